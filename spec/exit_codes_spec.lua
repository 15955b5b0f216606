-- One condition, one exit code, whatever the command (design.md, "Contracts
-- every command shares"): each command that reads a schema, a file or an
-- input runs on each bad condition, and every reader honours --max-input
-- while it reads, not after.
local H = require "helper"

local dir, REPLIES
local BIG = string.rep("x", 3000) -- over --max-input 1k

-- The exit code each condition gives, for every command it applies to.
local EXPECTED = {
  deep_schema = 4,     -- a limit reached while reading the schema
  invalid_schema = 2,  -- JSON, but not a valid schema
  schema_not_json = 2,
  missing_file = 2,    -- a file named on the command line, or by the recipe
  missing_schema = 2,
  oversized_input = 4, -- the input over --max-input
  oversized_line = 1,  -- a --jsonl line over --max-input: that line's error
}

local function path(name) return dir .. "/" .. name end

-- For each command, the arguments (and stdin) that bring each condition
-- about. `schema` is the file of the condition's schema.
local function cases(schema, recipe)
  return {
    validate = {
      schema = { { "validate", schema, path("inst.json") } },
      missing_file = { { "validate", path("ok.json"), path("nope.json") } },
      missing_schema = { { "validate", path("nope.json"), path("inst.json") } },
      oversized_input = { { "validate", "--max-input", "1k", path("ok.json"), path("big.txt") } },
      oversized_line = { { "validate", "--jsonl", "--max-input", "1k", path("ok.json") }, '"' .. BIG .. '"\n{}\n' },
    },
    extract = {
      schema = { { "extract", "--schema", schema, path("inst.json") } },
      missing_file = { { "extract", "--schema", path("ok.json"), path("nope.json") } },
      missing_schema = { { "extract", "--schema", path("nope.json"), path("inst.json") } },
      oversized_input = { { "extract", "--schema", path("ok.json"), "--max-input", "1k", path("big.txt") } },
      oversized_line = { { "extract", "--schema", path("ok.json"), "--jsonl", "--max-input", "1k" },
        '"' .. BIG .. '"\n"{}"\n' },
    },
    example = {
      schema = { { "example", schema } },
      missing_file = { { "example", path("nope.json") } },
      missing_schema = { { "example", path("nope.json") } },
      oversized_input = { { "example", "--max-input", "1k", path("bigschema.json") } },
    },
    repair = {
      missing_file = { { "repair", path("nope.json") } },
      oversized_input = { { "repair", "--max-input", "1k", path("big.txt") } },
      oversized_line = { { "repair", "--jsonl", "--max-input", "1k" }, '"' .. BIG .. '"\n"{}"\n' },
    },
    tokens = {
      missing_file = { { "tokens", path("nope.json") } },
      oversized_input = { { "tokens", "--max-input", "1k", path("big.txt") } },
      oversized_line = { { "tokens", "--jsonl", "--max-input", "1k" }, '"' .. BIG .. '"\n"x"\n' },
    },
    run = {
      schema = { { "run", recipe, "--replay", REPLIES } },
      missing_file = { { "run", path("nope.lua"), "--replay", REPLIES } },
      missing_schema = { { "run", path("r_missing.lua"), "--replay", REPLIES } },
      oversized_input = { { "run", path("r_ok.lua"), "--replay", REPLIES, "--max-input", "1k",
        "--input", path("big.txt") } },
    },
    batch = {
      schema = { { "batch", recipe, "--replay", REPLIES, "--quiet" }, '{"id": 1, "input": "x"}\n' },
      missing_file = { { "batch", path("r_ok.lua"), "--replay", REPLIES, "--input", path("nope.jsonl") } },
      missing_schema = { { "batch", path("r_missing.lua"), "--replay", REPLIES }, '{"id": 1, "input": "x"}\n' },
      oversized_line = { { "batch", path("r_ok.lua"), "--replay", REPLIES, "--quiet", "--max-input", "1k" },
        '{"id": 1, "input": "' .. BIG .. '"}\n' },
    },
  }
end

local SCHEMAS = {
  deep_schema = string.rep('{"items":', 600) .. "{}" .. string.rep("}", 600),
  invalid_schema = '{"type": 12}',
  schema_not_json = '{"type":',
}

setup(function()
  dir = H.tmpdir()
  H.write(path("ok.json"), '{"type": "object"}')
  H.write(path("inst.json"), '{"a": 1}')
  H.write(path("big.txt"), '"' .. BIG .. '"')
  H.write(path("bigschema.json"), '{"description": "' .. BIG .. '"}')
  REPLIES = path("replies.jsonl")
  H.write(REPLIES, '"{\\"a\\": 1}"\n')
  H.write(path("r_ok.lua"), 'return { schema = "ok.json", prompt = "x {{input}}" }')
  H.write(path("r_missing.lua"), 'return { schema = "nope.json", prompt = "x" }')
  for cond, text in pairs(SCHEMAS) do
    H.write(path(cond .. ".json"), text)
    H.write(path("r_" .. cond .. ".lua"), ('return { schema = "%s.json", prompt = "x" }'):format(cond))
  end
end)

teardown(function() H.rmtree(dir) end)

describe("every command maps a condition to one exit code", function()
  for _, cond in ipairs({ "deep_schema", "invalid_schema", "schema_not_json", "missing_file", "missing_schema",
    "oversized_input", "oversized_line" }) do
    it(cond .. " is exit " .. EXPECTED[cond] .. " in every command it applies to", function()
      local ran = {}
      local schema = SCHEMAS[cond] and path(cond .. ".json")
      local recipe = SCHEMAS[cond] and path("r_" .. cond .. ".lua")
      for _, cmd in ipairs({ "validate", "extract", "example", "repair", "tokens", "run", "batch" }) do
        local c = cases(schema, recipe)[cmd][SCHEMAS[cond] and "schema" or cond]
        if c then
          local out, err, code = H.coax(c[1], c[2])
          assert.are.equal(EXPECTED[cond], code, cmd .. " " .. cond .. ": " .. err)
          -- one line on stderr that names the file, except where the
          -- answer is a line of the output
          if cond == "oversized_line" then
            assert.matches("longer than %-%-max%-input %(1024 bytes%)", out .. err, 1)
          elseif cond ~= "oversized_input" then
            assert.matches("^coax " .. cmd .. ": [^\n]*" .. (cond:match("missing") and "nope" or cond), err)
          end
          ran[#ran + 1] = cmd
        end
      end
      assert.is_true(#ran >= 3, table.concat(ran, ", "))
    end)
  end

  it("answers every --jsonl line, the one over --max-input included, in order", function()
    local input = '"{}"\n"' .. BIG .. '"\n"[1]"\n'
    local out, _, code = H.coax({ "repair", "--jsonl", "--max-input", "1k" }, input)
    assert.are.same({ '{"value":{},"repairs":0,"class":"lossless"}\n'
      .. '{"error":"line longer than --max-input (1024 bytes)"}\n'
      .. '{"value":[1],"repairs":0,"class":"lossless"}\n', 1 }, { out, code })
    out, _, code = H.coax({ "validate", "--jsonl", "--max-input", "1k", path("ok.json") }, '{}\n"' .. BIG .. '"\n[]\n')
    assert.are.same({ '{"valid":true}\n{"valid":false,"errors":[{"instanceLocation":"","keywordLocation":"",'
      .. '"error":"line longer than --max-input (1024 bytes)"}]}\n{"valid":false,"errors":[{"instanceLocation":"",'
      .. '"keywordLocation":"/type","error":"expected object, got array of 0 items"}]}\n', 1 }, { out, code })
    out, _, code = H.coax({ "tokens", "--jsonl", "--max-input", "1k" }, '"a b"\n"' .. BIG .. '"\n"c"\n')
    assert.are.same({ "2\nnull\n1\n", 1 }, { out, code })
  end)

  -- Peak memory of one run (kB), from GNU time.
  local function peak_kb(args, file)
    local cmd = "env -u LD_PRELOAD /usr/bin/time -f %M " .. H.quote(H.build .. "/coax")
    for _, a in ipairs(args) do cmd = cmd .. " " .. H.quote(a) end
    local f = assert(io.popen(cmd .. " <" .. H.quote(file) .. " 2>&1 >/dev/null"))
    local text = f:read("a")
    f:close()
    return assert(tonumber(text:match("(%d+)%s*$")), text)
  end

  it("reads a --jsonl line over --max-input without keeping it (64 MB line, 1M limit)", function()
    local small, huge = path("small.jsonl"), path("huge.jsonl")
    H.write(small, '"x"\n"y"\n')
    local f = assert(io.open(huge, "wb"))
    f:write('"')
    local chunk = string.rep("x", 1 << 20)
    for _ = 1, 64 do f:write(chunk) end
    f:write('"\n"y"\n')
    f:close()
    for _, args in ipairs({ { "repair", "--jsonl", "--max-input", "1M" }, { "tokens", "--jsonl", "--max-input", "1M" },
      { "validate", "--jsonl", "--max-input", "1M", path("ok.json") },
      { "extract", "--jsonl", "--max-input", "1M", "--schema", path("ok.json") } }) do
      local base, big = peak_kb(args, small), peak_kb(args, huge)
      assert.is_true(big - base < 16 * 1024, ("%s: %d kB more for a 64 MB line"):format(args[1], big - base))
    end
    os.remove(huge)
  end)
end)
