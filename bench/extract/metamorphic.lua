-- The metamorphic check (hunt23): every reply of the confidence corpus, coerce_cases.jsonl and
-- repair_pairs.jsonl rewritten in ways that do not change what the model meant (line endings,
-- indentation, tabs, no-break or ideographic spaces, a fence, prose or a reasoning block around it, a BOM, a closing remark,
-- \u escapes, the reply twice, keys in another order, the reply cut at each point); each
-- variant's reading is compared with the original's. Prints
--   DIFF     the variant accepted a value the original did not (a value that differs)
--   NEWACC   the variant accepted where the original was refused (judge: the less sure reading?)
--   CUT      a cut reply accepted with a value the whole one did not give
-- Each line: kind, variant, source, the two readings.
--   COAX_BUILD=build lua5.4 bench/extract/metamorphic.lua [cut]
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;spec/?.lua;" .. package.path
local coax = require "coax"
local json = coax.json
local T = json.type
local corpus = require "confidence"
local with_cuts = arg[1] == "cut"

-- A value's JSON, members sorted, strings' (keys' too) line breaks and runs of spaces (a no-break or
-- ideographic space too) made one space, so that a rewrite of whitespace inside a string (a raw
-- line break made CRLF, spaces in a single-quoted string made U+00A0) does not count.
local function canonical(v, loose)
  local t = T(v)
  if t == "string" then
    if loose then
      v = v:gsub("\194\160", " "):gsub("\227\128\128", " "):gsub("[%s]+", " "):gsub("^ ", ""):gsub(" $", "")
    end
    return json.encode(v)
  end
  if t == "array" then
    local parts = {}
    for i = 1, #v do parts[i] = canonical(v[i], loose) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  if t == "object" then
    local names = {}
    for k in pairs(v) do names[#names + 1] = k end
    table.sort(names)
    local parts = {}
    for i, k in ipairs(names) do parts[i] = canonical(k, loose) .. ":" .. canonical(v[k], loose) end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return json.encode(v)
end

-- Rewrites the text outside double-quoted strings with outside(s) and the text inside them with
-- inside(s), each keeping s when nil (a string ends at its quote or at a line break). Outside only
-- for layout: a string's text is what the model meant, byte for byte.
local function by_strings(text, outside, inside)
  local function keep(s) return s end
  outside, inside = outside or keep, inside or keep
  local out, i, n = {}, 1, #text
  while i <= n do
    local q = text:find('"', i, true)
    if not q then out[#out + 1] = outside(text:sub(i)); break end
    out[#out + 1] = outside(text:sub(i, q - 1))
    local j = q + 1
    while j <= n do
      local c = text:sub(j, j)
      if c == "\\" then j = j + 2 elseif c == '"' or c == "\n" then break else j = j + 1 end
    end
    out[#out + 1] = '"' .. inside(text:sub(q + 1, j - 1)) .. text:sub(j, j)
    i = j + 1
  end
  return table.concat(out)
end
local function u_escape(s)
  return (s:gsub(utf8.charpattern, function(ch)
    if #ch == 1 then return ch end
    local ok, cp = pcall(utf8.codepoint, ch)
    if not ok then return ch end
    if cp < 0x10000 then return string.format("\\u%04x", cp) end
    cp = cp - 0x10000
    return string.format("\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF))
  end))
end

-- Valid JSON written again with every object's members in reverse order.
local function reordered(text)
  local ok, v = pcall(json.decode, text)
  if not ok or v == nil then return nil end
  local function enc(x)
    local t = T(x)
    if t == "array" then
      local p = {}
      for i = 1, #x do p[i] = enc(x[i]) end
      return "[" .. table.concat(p, ", ") .. "]"
    elseif t == "object" then
      local names = {}
      for k in pairs(x) do names[#names + 1] = k end
      table.sort(names, function(a, b) return a > b end)
      local p = {}
      for i, k in ipairs(names) do p[i] = json.encode(k) .. ": " .. enc(x[k]) end
      return "{" .. table.concat(p, ", ") .. "}"
    end
    return json.encode(x)
  end
  return enc(v)
end

local function bare(text) return text:match("^%s*[%[{]") and text:match("[%]}]%s*$") end

-- META_ONLY=name,name runs those variants only (a quicker check of one rewrite).
local only = os.getenv("META_ONLY")
local function variants(text)
  local out = {}
  local function add(name, v)
    local wanted = not only or (only .. ","):find(name .. ",", 1, true)
    if v and v ~= text and wanted then out[#out + 1] = { name, v } end
  end
  add("crlf", (text:gsub("\r?\n", "\r\n")))
  add("cr", (text:gsub("\r?\n", "\r")))
  add("tabs_indent", (text:gsub("\n(  +)", function(s) return "\n" .. ("\t"):rep(#s // 2) end)))
  add("dedent", (text:gsub("\n[ \t]+", "\n")))
  add("indent", (text:gsub("\n", "\n    ")))
  add("tabs_between", by_strings(text, function(s) return (s:gsub(" ", "\t")) end))
  add("spaces_doubled", by_strings(text, function(s) return (s:gsub(" ", "  ")) end))
  add("nbsp_between", by_strings(text, function(s) return (s:gsub(" ", "\194\160")) end))
  add("ideo_between", by_strings(text, function(s) return (s:gsub(" ", "\227\128\128")) end))
  add("u_escapes", by_strings(text, nil, u_escape))
  add("bom", "\239\187\191" .. text)
  add("blank_around", "\n\n" .. text .. "\n\n")
  add("twice", text .. "\n\n" .. text)
  add("closing", text .. "\n\nLet me know if you need anything else!")
  add("reordered", reordered(text))
  if bare(text) then
    add("fenced", "```json\n" .. text .. "\n```")
    add("fenced_prose", "Here is the JSON:\n\n```json\n" .. text .. "\n```\n\nHope this helps.")
    add("prose", "Here is the JSON:\n" .. text)
    add("prose_colon_line", "Sure! The extracted data:\n\n" .. text .. "\n\nAll fields were taken from the text.")
    add("think", "<think>\nThe user wants JSON. Let me fill the fields.\n</think>\n" .. text)
    add("think_fenced", "<think>\nOkay.\n</think>\n\n```json\n" .. text .. "\n```")
  end
  return out
end

local function read(kind, text, schema, opts)
  if kind == "repair" then
    local v = coax.repair(text)
    if v == nil then return nil end
    return v
  end
  local r = coax.extract(text, schema, opts)
  if r and r.valid then return r.value end
  return nil
end

local cases = {}
for _, f in ipairs(corpus.files) do
  for _, c in ipairs(corpus.cases(f)) do
    cases[#cases + 1] = { src = f .. ":" .. c.name, kind = "extract", input = c.input, schema = json.encode(c.schema),
      opts = { finish = c.finish, max_class = c.max_class } }
  end
end
for line in io.lines("spec/fixtures/coerce_cases.jsonl") do
  local c = json.decode(line)
  cases[#cases + 1] = { src = "coerce:" .. c.item, kind = "extract", input = c.reply, schema = json.encode(c.schema),
    opts = {} }
end
local n = 0
for line in io.lines("spec/fixtures/repair_pairs.jsonl") do
  local c = json.decode(line)
  n = n + 1
  cases[#cases + 1] = { src = "pairs:" .. n, kind = "repair", input = c.input }
end
local extra = os.getenv("META_EXTRA") -- a gen.lua output: one JSON string a line
if extra then
  n = 0
  for line in io.lines(extra) do
    n = n + 1
    cases[#cases + 1] = { src = "gen:" .. n, kind = "repair", input = json.decode(line) }
  end
end

local counts = { runs = 0, diff = 0, loose = 0, newacc = 0, cut = 0 }
local function show(s) return (s:gsub("\n", "\\n"):gsub("\r", "\\r"):gsub("\t", "\\t")) end
for _, c in ipairs(cases) do
  if os.getenv("META_TRACE") then io.stderr:write(c.src, "\n"); io.stderr:flush() end
  local base = read(c.kind, c.input, c.schema, c.opts)
  local bj = base ~= nil and canonical(base)
  for _, v in ipairs(variants(c.input)) do
    counts.runs = counts.runs + 1
    local got = read(c.kind, v[2], c.schema, c.opts)
    if got ~= nil then
      local gj = canonical(got)
      if not bj then
        counts.newacc = counts.newacc + 1
        print("NEWACC", v[1], c.src, show(c.input):sub(1, 200), gj:sub(1, 200))
      elseif gj ~= bj then
        if canonical(got, true) == canonical(base, true) then
          counts.loose = counts.loose + 1
          if os.getenv("META_LOOSE") then print("LOOSE", v[1], c.src, bj:sub(1, 150), gj:sub(1, 150)) end
        else
          counts.diff = counts.diff + 1
          print("DIFF", v[1], c.src, show(c.input):sub(1, 200), bj:sub(1, 200), gj:sub(1, 200))
        end
      end
    end
  end
  if with_cuts then
    local len = #c.input
    local step = len > 400 and len // 150 or 1
    for k = 1, len - 1, step do
      for _, fin in ipairs({ c.opts and c.opts.finish or false, "length" }) do
        local opts = c.opts and { finish = fin or nil, max_class = c.opts.max_class }
        counts.runs = counts.runs + 1
        local got = read(c.kind, c.input:sub(1, k), c.schema, opts)
        if got ~= nil then
          local gj = canonical(got)
          if gj ~= bj and (bj or fin == "length") then
            counts.cut = counts.cut + 1
            print("CUT", tostring(fin), c.src, show(c.input:sub(1, k)):sub(-160), tostring(bj):sub(1, 120), gj:sub(1, 160))
          end
        end
      end
    end
  end
end
io.stderr:write(string.format("cases %d, runs %d: DIFF %d, NEWACC %d, CUT %d (whitespace-only diffs %d)\n",
  #cases, counts.runs, counts.diff, counts.newacc, counts.cut, counts.loose))
