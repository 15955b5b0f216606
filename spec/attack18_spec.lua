--- Attack round 18: the work of an extraction beside the work of its validation.
-- A schema whose $defs each apply the level below twice under "oneOf" gives the
-- reply "5" 2^(n+1) - 1 errors at one place, each with its own keyword path,
-- each proposing the same change ("5" -> 5) that the oneOf refuses. Each of the
-- coercion's 24 rounds tried it again for another of the errors: 13 levels
-- (859 bytes of schema) took 2.4 s to extract where the validation took 6 ms.
-- A change refused alone in its round is now not tried again until the
-- candidate changes (engine/extract/coerce.c). And each of those errors read the
-- value again (a string of 1 MB converted, wrapped or compared 4,095 times at 11
-- levels: 2 s); a plan now reads a place's value once against one type or enum
-- (coerce_trials.c), and a value compared with itself is equal without a read.
local H = require "helper"
local coax = require "coax"
local json = coax.json

-- n levels, each a union of two references to the level below; the bottom an integer (or 'leaf').
local function fan_out(n, union, leaf)
  local d = { '"d0":' .. (leaf or '{"type":"integer"}') }
  for i = 1, n do
    d[#d + 1] = ('"d%d":{"%s":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}'):format(i, union, i - 1, i - 1)
  end
  return assert(coax.schema('{"$defs":{' .. table.concat(d, ",") .. '},"$ref":"#/$defs/d' .. n .. '"}'))
end

describe("attack 18: a change refused alone is not tried again while the candidate is the same", function()
  local schemas = { [10] = fan_out(10, "oneOf"), [12] = fan_out(12, "oneOf") }

  it("extracting \"5\" under 12 levels of oneOf costs at most 80 times its validation (240 before, 24 now)", function()
    local s = schemas[12]
    local extract, validate = H.best_cpu_pair(function() coax.extract('"5"', s) end,
      function() s:validate("5") end)
    assert.is_true(extract / validate < 80, ("extract / validate = %.1f"):format(extract / validate))
  end)

  it("4 times the errors (12 levels over 10) cost at most 8 times the work", function()
    local big, small = H.best_cpu_pair(function() coax.extract('"5"', schemas[12]) end,
      function() coax.extract('"5"', schemas[10]) end)
    assert.is_true(big / small < 8, ("ratio %.1f"):format(big / small))
  end)

  it("still refuses it: the errors stay, every one of them", function()
    local r = coax.extract('"5"', schemas[10])
    assert.is_false(r.valid)
    assert.are.equal(2047, #r.errors)
    assert.are.same({}, r.coercions)
    assert.are.equal('expected integer, got string "5"', r.errors[1].error)
    assert.are.equal("", r.errors[1].instanceLocation)
  end)

  it("twins: under anyOf, and for items of a union, the change is made", function()
    local r = coax.extract('"5"', fan_out(10, "anyOf"))
    assert.is_true(r.valid)
    assert.are.equal(5, r.value)
    assert.are.same({ { "string_to_integer", "" } }, { { r.coercions[1].kind, r.coercions[1].pointer } })
    local s = assert(coax.schema('{"type":"array","items":{"oneOf":[{"type":"integer"},{"type":"boolean"}]}}'))
    r = coax.extract('["5", "x", "7"]', s)
    assert.are.equal('[5,"x",7]', json.encode(r.value))
    assert.are.same({ "/0", "/2" }, { r.coercions[1].pointer, r.coercions[2].pointer })
    assert.are.equal(3, #r.errors)
  end)
end)

describe("attack 18: the errors of one place read its value once", function()
  local big = ("1"):rep(1000000)
  local cases = {
    { "a string of 1 MB of digits for an integer", '{"type":"integer"}', '"' .. big .. '"' },
    { "a string of 1 MB for an array", '{"type":"array"}', '"' .. big .. '"' },
    { "an array holding a string of 1 MB for a string", '{"type":"string"}', '["' .. big .. '"]' },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ", under 11 levels of oneOf: at most 80 times the validation's work (300 before)", function()
      local s, v = fan_out(11, "oneOf", c[2]), json.decode(c[3])
      local extract, validate = H.best_cpu_pair(function() coax.extract(c[3], s) end, function() s:validate(v) end)
      assert.is_true(extract / validate < 80, ("extract / validate = %.1f"):format(extract / validate))
      local r = coax.extract(c[3], s)
      assert.is_false(r.valid)
      assert.are.equal(4095, #r.errors)
      assert.are.same({}, r.coercions)
    end)
  end

  it("twins: under anyOf the one reading is made, its value whole", function()
    local r = coax.extract('"12345"', fan_out(11, "anyOf"))
    assert.is_true(r.valid)
    assert.are.equal(12345, r.value)
    assert.are.equal("string_to_integer", r.coercions[1].kind)
    r = coax.extract('"' .. big .. '"', fan_out(11, "anyOf", '{"type":"array"}'))
    assert.is_true(r.valid)
    assert.are.equal(big, r.value[1])
    assert.are.same({ "wrap_in_array", "" }, { r.coercions[1].kind, r.coercions[1].pointer })
  end)
end)
