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

local STACK_WHY = "deeper than the C stack left to it (a script's C calls and the work under them: 448 KiB)"

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
    assert.are.equal('{"res":"schema nested ' .. STACK_WHY .. '"}\n', out)
  end)

  it("twin: with no C calls around it the same schema compiles on 512 KiB", function()
    local out, code = run_nested(512, COMPILE, 0)
    assert.are.equal(0, code)
    assert.are.equal('{"res":"compiled"}\n', out)
  end)

  it("a validation 1,000 evaluations deep under 190 callbacks stops at the floor", function()
    local out, code = run_nested(512, VALIDATE, 190)
    assert.are.equal(0, code)
    assert.are.equal('{"res":"schema evaluation nested ' .. STACK_WHY .. '"}\n', out)
    out, code = run_nested(512, VALIDATE, 0)
    assert.are.equal(0, code)
    assert.are.equal('{"res":"valid"}\n', out)
  end)

  it("a table 511 deep encoded under 190 callbacks stops at the floor; twin: alone it encodes", function()
    local out, code = run_nested(512, ENCODE, 190)
    assert.are.equal(0, code)
    assert.are.equal('{"res":"COAX_EDEPTH: nesting ' .. STACK_WHY .. '"}\n', out)
    out, code = run_nested(512, ENCODE, 0)
    assert.are.equal(0, code)
    assert.are.equal('{"res":"1023 bytes"}\n', out)
  end)
end)
