-- Regressions for the defects an independent review found (each input is
-- the one that showed the defect; see spec/fixtures/review/).
local H = require "helper"
local coax = require "coax"
local json = coax.json

local function fixture(name) return H.read("spec/fixtures/review/" .. name) end

describe("review regressions", function()
  it("keeps the coercion log valid when an unwrapped envelope stays invalid", function()
    local r = coax.extract(fixture("envelope_reply.txt"), fixture("envelope.schema.json"))
    assert.is_false(r.valid)
    coax.json.decode(string.rep("[1]", 100)) -- more allocation after the rewind
    for _, c in ipairs(r.coercions) do
      assert.is_string(c.kind)
      assert.is_string(c.pointer)
    end
  end)

  it("stops a script that hides its loop behind coroutine.close", function()
    local r = coax.run("spec/fixtures/review/close_escape.lua", "x", { replies = { "{}" } })
    assert.are.equal("limit", r.outcome)
  end)

  it("ends with a script error, not a crash, when a strategy returns malformed messages", function()
    local r = coax.run("spec/fixtures/review/bad_messages.lua", "x", { replies = { "{}", "{}" } })
    assert.are.equal("script_error", r.outcome)
    assert.are.equal("strategy: messages must be a list of {role = ..., content = ...} tables", r.error.message)
  end)

  it("caps the Lua converters' depth whatever the caller's limit", function()
    local text = string.rep("[", 400000) .. string.rep("]", 400000)
    assert.has_error(function() json.decode(text, { max_depth = 10000000 }) end,
      "COAX_EDEPTH: nesting deeper than 4096")
  end)

  it("reads a long chain of call wrappers without recursion", function()
    assert.is_nil((coax.repair(string.rep("a(", 1000000))))
  end)

  it("stays linear on tag soup, blank runs in strings, concatenations and think blocks", function()
    assert.is_nil((coax.repair(string.rep("<a>", 60000))))
    local v = coax.repair('["a' .. string.rep("\n", 100000) .. 'x"]')
    assert.are.equal(100002, #v[1])
    v = coax.repair("[" .. string.rep('"a"+', 39999) .. '"a"]')
    assert.are.equal(40000, #v[1])
    v = coax.repair("<think></think>x " .. string.rep("{} ", 200000))
    assert.are.equal("{}", json.encode(v))
  end)

  it("finds a fenced block after a stray quote inside a prose brace", function()
    local v = coax.repair('Use {"key} like this:\n```json\n{"a": 1}\n```')
    assert.are.equal('{"a":1}', json.encode(v))
  end)

  it("applies more than 256 coercions when a reply needs them", function()
    local items = {}
    for i = 1, 300 do items[i] = '"' .. i .. '"' end
    local r = coax.extract("[" .. table.concat(items, ",") .. "]", '{"type":"array","items":{"type":"integer"}}')
    assert.is_true(r.valid)
    assert.are.equal(300, #r.coercions)
    assert.are.equal(300, r.value[300])
  end)

  it("does not look keywords up inside an embedded resource", function()
    local schema = '{"$defs":{"x":{"$id":"http://e/x","type":"object","properties":{"n":{"type":"integer"}}}},'
      .. '"$ref":"#/$defs/x"}'
    local r = coax.extract('{"n": "5"}', schema)
    assert.is_false(r.valid)
    assert.are.same({}, r.coercions)
  end)

  it("refuses an option that is not a string", function()
    assert.has_error(function() coax.engine { lua_path = 42 } end, "option 'lua_path' must be a string")
  end)
end)
