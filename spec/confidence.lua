--- The confidence corpus (spec/fixtures/confidence/*.jsonl): replies with the
-- one right value, or "refuse" where no value may come back. Shared by
-- spec/confidence_spec.lua and spec/confidence_score.lua.
local coax = require "coax"
local json = coax.json

local M = {}

M.files = { "triple_quoted", "fenced_string", "thousands", "split_strings", "nesting", "closed_bracket",
  "spans", "mixed", "replies", "peers", "guesses", "hunt3", "hunt4", "hunt5", "hunt6", "hunt7",
  "hunt8", "hunt9", "hunt10", "hunt11", "hunt12", "hunt13", "hunt14", "hunt15", "hunt16", "hunt17", "hunt18",
  "formats", "named", "structure", "hunt19", "unions", "joined", "unquoted", "hunt20", "hunt21", "dropped",
  "hunt22", "open_keys", "languages", "hunt23", "hunt24",
  "restated_prose", "supposed", "hunt25", "hunt26", "retract48", "hunt27", "lefts49", "deleted49", "hunt28", "hunt29",
  "hunt30", "lefts50", "inserted50", "invisible31", "hunt31", "lefts51", "twice55", "hunt32", "lefts52" }

--- How many plain cases each file may see refused (none where absent).
M.refused_allowed = { peers = 1 }

--- Every case of one file: {name, input, schema, expect, finish, max_class}. A reply
-- that is no valid UTF-8 (which no JSON line can hold) is written as
-- "input_hex", its bytes in hexadecimal.
function M.cases(file)
  local out = {}
  for line in io.lines("spec/fixtures/confidence/" .. file .. ".jsonl") do
    local c = json.decode(line)
    if c.input_hex then
      c.input = c.input_hex:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)
    end
    out[#out + 1] = c
  end
  return out
end

--- The value's JSON with every object's members sorted by name: member
-- order carries no meaning, so it never makes a value wrong.
local function canonical(v)
  if type(v) ~= "table" or v == json.null then return json.encode(v) end
  local text = json.encode(v)
  if text:sub(1, 1) == "[" then
    local parts = {}
    for i = 1, #v do parts[i] = canonical(v[i]) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  local names = {}
  for k in pairs(v) do names[#names + 1] = k end
  table.sort(names)
  local parts = {}
  for i, k in ipairs(names) do parts[i] = json.encode(k) .. ":" .. canonical(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end

--- The options a case is read with, as coax.extract takes them.
function M.options(c)
  return { finish = c.finish, max_class = c.max_class, strict = c.strict }
end

--- Calls fn(file, case) for every case of every file, or of the file named
-- by only (the checks in bench/extract take one file as their argument).
function M.each(only, fn)
  for _, file in ipairs(M.files) do
    if not only or file == only then
      for _, c in ipairs(M.cases(file)) do fn(file, c) end
    end
  end
end

--- reply read with case c's schema (schema_text: c.schema encoded, which a
-- caller reading many variants of one case encodes once) and options: the
-- value's canonical JSON, or nil where it was refused.
function M.value(c, reply, schema_text)
  local r = coax.extract(reply, schema_text or json.encode(c.schema), M.options(c))
  return r and r.valid and canonical(r.value) or nil
end

--- Runs one case: "right", "refused" (a value was expected, none came) or
-- "wrong" (a value came that is not the expected one, or any value where a
-- refusal was due), and what came back.
M.canonical = canonical

function M.run(c)
  local r, msg = coax.extract(c.input, json.encode(c.schema), M.options(c))
  local got = r and r.valid and json.encode(r.value)
  local detail = got or (r and r.errors[1] and r.errors[1].error) or msg
  if c.expect == "refuse" then return got and "wrong" or "right", detail end
  if not got then return "refused", detail end
  return canonical(r.value) == canonical(c.expect) and "right" or "wrong", detail
end

return M
