--- Attack round 21: what a recipe's own C calls add to the engine's C stack.
--
-- A recipe's Lua may nest 200 C calls (a callback of string.gsub takes about 2 KB of stack), and
-- under them start engine work that recurses at its own limits: coax.schema checks a schema 255
-- "not"s deep against the meta-schema at the evaluation limit (1,024, about 350 KB). Each is under
-- the 512 KiB the README asks of a host's thread; together they took 800 KB, and a 512 KiB thread
-- died of a segfault. The VM now sets a floor 448 KiB below its outermost call
-- (engine/base/stack.h): validation, the schema compiler, example generation and a Lua table's
-- conversion stop at it with COAX_EDEPTH, as at their nesting limits.
local H = require "helper"

local STACK_WHY = "deeper than the C stack left to it (448 KiB from the outermost call, a script's C calls included)"
-- An ASan build's floor is 4 times as far, under 4 times the stack (H.coax_in_stack), and its frames
-- grow less than that: there the same work fits, and must not crash either.
local ASAN = H.build:find("asan") ~= nil

-- What a run at the floor says: 'stopped' in a build without ASan, 'fits' in one with it.
local function at_floor(stopped, fits) return ASAN and fits or stopped end

-- A recipe whose agent runs WORK (a chunk that returns a string) under 'nesting' string.gsub
-- callbacks, and replies {"res": that string}.
local NESTED = [[
local coax = require "coax"
local function work()
  %s
end
local function dive(n)
  if n == 0 then return work() end
  local r
  string.gsub("x", "x", function() r = dive(n - 1) end)
  return r
end
return { schema = { type = "object" }, prompt = "p", agent = { call = function()
  return { text = coax.json.encode({ res = dive(%d) }) }
end } }
]]

local function run_nested(kb, work, nesting)
  local recipe = H.tmpfile(NESTED:format(work, nesting))
  local reply = H.tmpfile('"{}"\n')
  local out, code = H.coax_in_stack(kb, { "run", recipe, "--agent", "replay", "--replay", reply })
  os.remove(recipe)
  os.remove(reply)
  return out, code
end

local COMPILE = [[
  local s, err = coax.schema(('{"not":'):rep(255) .. '{}' .. ('}'):rep(255))
  return s and "compiled" or err]]
local VALIDATE = [[
  local s = assert(coax.schema('{"$defs":{"n":{"type":["array","integer"],"items":{"$ref":"#/$defs/n"}}},'
    .. '"$ref":"#/$defs/n"}'))
  local ok, errors = s:validate(("["):rep(500) .. "1" .. ("]"):rep(500), "json")
  return ok and "valid" or tostring(errors)]]
local ENCODE = [[
  local t = 1
  for _ = 1, 511 do t = { t } end
  local ok, s = pcall(coax.json.encode, t)
  return ok and #s .. " bytes" or s]]

describe("attack 21: a recipe's C calls and the engine's recursion share 512 KiB of C stack", function()
  it("a schema checked at the evaluation limit under 190 gsub callbacks is refused, not a segfault", function()
    local out, code = run_nested(512, COMPILE, 190)
    assert.are.equal(0, code)
    assert.are.equal(at_floor('{"res":"schema nested ' .. STACK_WHY .. '"}\n', '{"res":"compiled"}\n'), out)
  end)

  it("twin: with no C calls around it the same schema compiles on 512 KiB", function()
    local out, code = run_nested(512, COMPILE, 0)
    assert.are.equal(0, code)
    assert.are.equal('{"res":"compiled"}\n', out)
  end)

  -- 170 callbacks, not 190: the schema's compile before the validation needs room of its own, and
  -- at 190 it had so little left that 16 bytes more of gsub's frame (its steps handed on as each
  -- call ends) made it fail one run in twelve; the validation still stops at the floor from 150
  it("a validation 1,000 evaluations deep under 170 callbacks stops at the floor", function()
    local out, code = run_nested(512, VALIDATE, 170)
    assert.are.equal(0, code)
    assert.are.equal(at_floor('{"res":"schema evaluation nested ' .. STACK_WHY .. '"}\n', '{"res":"valid"}\n'), out)
    out, code = run_nested(512, VALIDATE, 0)
    assert.are.equal(0, code)
    assert.are.equal('{"res":"valid"}\n', out)
  end)

  it("a table 511 deep encoded under 190 callbacks stops at the floor; twin: alone it encodes", function()
    local out, code = run_nested(512, ENCODE, 190)
    assert.are.equal(0, code)
    assert.are.equal(at_floor('{"res":"COAX_EDEPTH: nesting ' .. STACK_WHY .. '"}\n', '{"res":"1023 bytes"}\n'), out)
    out, code = run_nested(512, ENCODE, 0)
    assert.are.equal(0, code)
    assert.are.equal('{"res":"1023 bytes"}\n', out)
  end)
end)

-- The feedback. A reply's errors each name their place, as long as the depth it is at, and the
-- submission was indented two spaces a level: 2,000 strings at the bottom of an array 400 deep
-- (a reply of 12.8 KB) made a next prompt of 3.65 MB (500 strings: 1.15 MB from 3.8 KB). A path
-- keeps its two ends (feedback.max_path_bytes), the lines of errors and changes stop at
-- feedback.max_list_bytes with a line that says how many were left out, and the submission is
-- indented only when that at most doubles it (plus 4 KiB).
local fb = require "coax.feedback"
local coax = require "coax"

local DEEP_SCHEMA = '{"$defs":{"n":{"type":["array","integer"],"items":{"$ref":"#/$defs/n"}}},"$ref":"#/$defs/n"}'

local function deep_strings(depth, n)
  return ("["):rep(depth) .. ('"x",'):rep(n - 1) .. '"x"' .. ("]"):rep(depth)
end

-- The feedback sent after the first attempt of a run whose replies are `reply`, then [1].
local function first_feedback(reply)
  local recipe = H.tmpfile(("return { schema = require('coax').json.decode(%q), prompt = 'p' }"):format(DEEP_SCHEMA))
  local replies = H.tmpfile(coax.json.encode(reply) .. "\n" .. coax.json.encode("[1]") .. "\n")
  local report = os.tmpname()
  local out, _, code = H.coax({ "run", recipe, "--agent", "replay", "--replay", replies, "--report", report })
  local r = coax.json.decode(H.read(report))
  for _, f in ipairs({ recipe, replies, report }) do os.remove(f) end
  assert.are.equal(0, code)
  assert.are.equal("[1]\n", out)
  return r.attempts[1].feedback
end

describe("attack 21: the feedback of a small reply is bounded", function()
  it("2,000 errors 400 deep: the paths' ends, 16 KiB of lines, the rest counted", function()
    local text = first_feedback(deep_strings(400, 2000))
    local zeros = ("/0"):rep(100)
    local first = "  - At path '" .. zeros .. "...(400 bytes left out)..." .. zeros:sub(1, -2) .. "0"
      .. "': expected array or integer, got string \"x\""
    assert.is_truthy(text:find(first, 1, true))
    local lines = 0
    for _ in text:gmatch("\n  %- At path '") do lines = lines + 1 end
    assert.are.equal(33, lines)
    local left = "\n  - ... 1967 more errors left out (the feedback quotes at most 16384 bytes of them)\n"
    assert.is_truthy(text:find(left, 1, true))
    assert.is_truthy(text:find("\nYour submission:\n" .. ("["):rep(400) .. '"x","x"', 1, true))
    assert.is_true(#text < 2 * 16384 + 2 * 8808)
  end)

  it("4 times the strings add only their compact submission", function()
    local small, big = #first_feedback(deep_strings(400, 500)), #first_feedback(deep_strings(400, 2000))
    assert.are.equal(6001, big - small) -- 1,500 more "x", and "467" -> "1967"
  end)

  it("twins: a shallow reply keeps every error, its whole paths and its indented submission", function()
    local s = assert(coax.schema('{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}'))
    local r = coax.extract('{"a": ["x", "y"]}', s)
    local text = fb.render("validation", { attempt = 1, max_attempts = 3, errors = r.errors,
      submission = '{\n  "a": [\n    "x",\n    "y"\n  ]\n}' })
    assert.is_truthy(text:find("  - At path '/a/0': expected integer, got string \"x\"\n"
      .. "  - At path '/a/1': expected integer, got string \"y\"\n\nYour submission:\n{\n  \"a\": [", 1, true))
    assert.is_falsy(text:find("left out", 1, true))
  end)

  it("a cut path stays valid UTF-8: the cut moves to a character's start", function()
    local key = ("é"):rep(150) -- 300 bytes a key
    local text = fb.render("validation", { attempt = 1, max_attempts = 3,
      errors = { { instanceLocation = "/" .. key .. "/" .. key, error = "e" } }, submission = "s" })
    assert.is_truthy(utf8.len(text))
    assert.is_truthy(text:find("/" .. ("é"):rep(99) .. "...(203 bytes left out)..." .. ("é"):rep(100) .. "'", 1, true))
  end)
end)

-- The options tables. coax.extract and coax.repair refused an option they do not know; coax.schema,
-- coax.example and coax.json.decode took any key and dropped it, so a misspelt limit ({max_step = 50},
-- {max_dept = 3}) left the default in place without a word. They refuse it now. coax.json.encode
-- still reads only `pretty` from any table: `json.encode(coax.repair(text))` hands it the repair's
-- second result.
describe("attack 21: every function of the module refuses an option it does not know", function()
  local s = assert(coax.schema('{"type":"object"}'))
  local cases = {
    { "coax.schema", function(o) return coax.schema("{}", o) end },
    { "coax.example", function(o) return coax.example(s, o) end },
    { "coax.json.decode", function(o) return coax.json.decode("[1]", o) end },
    { "coax.extract", function(o) return coax.extract("{}", s, o) end },
    { "coax.repair", function(o) return coax.repair("{}", o) end },
  }
  for _, case in ipairs(cases) do
    it(case[1] .. ": the least unknown key is named; twin: no options and {} are accepted", function()
      local ok, err = pcall(case[2], { max_dept = 3, max_step = 50 })
      assert.is_false(ok)
      assert.are.equal(case[1] .. ": unknown option 'max_dept'", err)
      assert.is_truthy(case[2](nil))
      assert.is_truthy(case[2]({}))
    end)
  end

  it("twin: coax.json.encode takes a call's further results as they come", function()
    assert.are.equal('{"a":1}', coax.json.encode(coax.repair('{"a":1 ')))
  end)

  it("twins: the options each documents are still taken", function()
    assert.is_nil((coax.json.decode("[[[1]]]", { max_depth = 2 })))
    assert.are.equal("[\n  1\n]", coax.json.encode({ 1 }, { pretty = true }))
    local v, msg = coax.example('{"type":"array","minItems":1,"items":{"type":"array","minItems":1}}',
      { max_depth = 1, max_steps = 50, minimal = true })
    assert.is_nil(v)
    assert.is_string(msg)
    assert.is_truthy(coax.schema('{"type":"string","format":"email"}', { draft = "7", assert_format = true,
      meta = false, max_steps = 100000, max_regex_steps = 1000, max_regex_total = 100000 }))
  end)
end)
