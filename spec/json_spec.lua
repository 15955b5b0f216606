require "helper"
local coax = require "coax"
local json = coax.json

describe("coax.json", function()
  it("keeps key order, big integers and number text through decode and encode", function()
    local text = '{"b":1,"a":[1,2.5,12345678901234567890,{}],"c":null}'
    assert.are.equal(text, json.encode(assert(json.decode(text))))
  end)

  it("decodes integers as Lua integers and fractions as floats", function()
    local v = json.decode('[7, -0, 2.5, 1e2]')
    assert.are.equal("integer", math.type(v[1]))
    assert.are.equal(7, v[1])
    assert.are.equal("float", math.type(v[3]))
    assert.are.equal(100.0, v[4])
  end)

  it("keeps numbers no Lua number can hold as coax.json.number text", function()
    local v = json.decode('[12345678901234567890, 1e400]')
    assert.are.equal("12345678901234567890", v[1].text)
    assert.are.equal("1e400", tostring(v[2]))
    assert.are.equal("number", json.type(v[1]))
    assert.are.equal('[12345678901234567890,1e400]', json.encode(v))
    -- a number a double rounds to zero is no zero: text too, as 1e400 (hunt14)
    local u = json.decode('[1e-400, 2e-324, 0e-400, -0.0, 4.9e-324]')
    assert.are.same({ "number", "1e-400", "2e-324" }, { json.type(u[1]), tostring(u[1]), tostring(u[2]) })
    assert.are.same({ "float", 0.0, "float", "float" }, { math.type(u[3]), u[3], math.type(u[4]), math.type(u[5]) })
    assert.are.equal('[1e-400,2e-324,0.0,-0.0,4.94065645841247e-324]', json.encode(u))
  end)

  it("keeps as text a number with more digits than a double holds, never rounded on the way (hunt15)", function()
    local v = json.decode('[3.141592653589793238462643383279, 123456789012345678901234567890.5, '
      .. '1.00000000000000001, 12345678901234567890.0]')
    for i = 1, 4 do assert.are.equal("number", json.type(v[i])) end
    assert.are.same({ "3.141592653589793238462643383279", "1.00000000000000001" }, { tostring(v[1]), tostring(v[3]) })
    assert.are.equal('[3.141592653589793238462643383279,123456789012345678901234567890.5,1.00000000000000001,'
      .. '12345678901234567890.0]', json.encode(v))
    -- twins: a number whose every digit its double holds is a float
    local u = json.decode('[0.1, 1.10, 3.141592653589793, 100000000000000000000.0, 0.30000000000000004, 1E2, '
      .. '1.6000000000000001]')
    assert.are.same({ 0.1, 1.1, 3.141592653589793, 1e20, 0.30000000000000004, 100.0, 1.6 }, u)
    for i = 1, 7 do assert.are.equal("float", math.type(u[i])) end
    local r = coax.repair('{"pi": 3.14159265358979323846}')
    assert.are.same({ "3.14159265358979323846", '{"pi":3.14159265358979323846}' },
      { tostring(r.pi), json.encode(r) })
  end)

  it("tells [] from {} and null from a missing value", function()
    local v = json.decode('{"a":[],"b":{},"c":null}')
    assert.are.equal("array", json.type(v.a))
    assert.are.equal("object", json.type(v.b))
    assert.are.equal(json.null, v.c)
    assert.are.equal(coax.null, require("cjson").null)
    assert.are.equal('{"a":[],"b":{},"c":null}', json.encode(v))
  end)

  it("keys() lists remembered order first, then new keys sorted", function()
    local v = json.decode('{"z":1,"y":2}')
    v.b, v.a = 3, 4
    assert.are.same({ "z", "y", "a", "b" }, json.keys(v))
    assert.are.equal('{"z":1,"y":2,"a":4,"b":3}', json.encode(v))
  end)

  -- The order list says which keys come first; it cannot add a key, say one
  -- twice, or make the integer 2 and the string "2" one key.
  it("keys() takes an object's order as given, then the other keys sorted", function()
    local t = json.object({ a = 1, b = 2, c = 3, [2] = "two", d = 4 }, { "c", "zz", "c", 2.0, "2", "a" })
    assert.are.same({ "c", 2, "a", "b", "d" }, json.keys(t))
    assert.are.equal('{"c":3,"2":"two","a":1,"b":2,"d":4}', json.encode(t))
    assert.are.same({ 1, 10, 2, "k" }, json.keys({ [10] = 1, [2] = 1, [1] = 1, k = 1, }))
    assert.are.same({}, json.keys({}))
    local many = {}
    for i = 1, 300 do many["k" .. i] = i end
    local keys = json.keys(many)
    assert.are.same({ 300, "k1", "k10", "k100", "k99" }, { #keys, keys[1], keys[2], keys[3], keys[300] })
  end)

  it("encodes plain tables: sequences as arrays, other tables as sorted objects", function()
    assert.are.equal('[3,2,1]', json.encode({ 3, 2, 1 }))
    assert.are.equal('{"a":2,"z":1}', json.encode({ z = 1, a = 2 }))
    assert.are.equal('{"1":"x","k":true}', json.encode({ [1] = "x", k = true }))
    assert.are.equal('[]', json.encode(json.array {}))
    assert.are.equal('{}', json.encode({}))
  end)

  it("writes floats shortest-exact and keeps integral floats as floats", function()
    assert.are.equal('[0.1,2.0,1e+300,-1.5]', json.encode({ 0.1, 2.0, 1e300, -1.5 }))
  end)

  it("pretty-prints with two-space indentation", function()
    assert.are.equal('{\n  "a": [\n    1\n  ]\n}', json.encode(json.decode('{"a":[1]}'), { pretty = true }))
  end)

  it("returns nil, message and code for invalid JSON", function()
    local v, msg, code = json.decode('[1,')
    assert.is_nil(v)
    assert.are.equal("unexpected end of input, expected a JSON value at line 1, column 4", msg)
    assert.are.equal("COAX_ESYNTAX", code)
  end)

  it("rejects what JSON cannot hold with a clear error", function()
    assert.has_error(function() json.encode({ f = print }) end, "cannot encode a function as JSON")
    assert.has_error(function() json.encode(0 / 0) end, "cannot encode NaN as JSON")
    -- invalid UTF-8 (a model's raw reply, text cut mid-character) becomes U+FFFD, as in Go's encoder
    assert.are.equal('"a\239\191\189\239\191\189b\195\169\239\191\189"', json.encode("a\255\254b\195\169\195"))
    local t = {}
    t.t = t
    assert.has_error(function() json.encode(t) end, "COAX_EDEPTH: nesting deeper than 512 (or a cycle)")
  end)

  it("gives a clean depth error for 1,000,000 nested arrays", function()
    local v, msg, code = json.decode(string.rep("[", 1000000))
    assert.is_nil(v)
    assert.are.equal("COAX_EDEPTH", code)
    assert.matches("nesting deeper than 512", msg)
  end)

  it("honours a caller's depth limit", function()
    assert.is_nil((json.decode("[[[1]]]", { max_depth = 2 })))
    assert.are.equal("[[[1]]]", json.encode(json.decode("[[[1]]]", { max_depth = 3 })))
  end)

  it("rejects garbage, truncation and invalid UTF-8 without crashing", function()
    for _, bad in ipairs { "", " ", "{", '{"a"', '{"a":', '"abc', "tru", "01", "1.", "-", "[1,]",
      '{"a":1,}', "\239\187\191{}", '"\255"', '"\\ud800"', '"a\nb"', "nul", "[1 2]", "{1:2}" } do
      local v, msg, code = json.decode(bad)
      assert.is_nil(v, bad)
      assert.is_string(msg)
      assert.is_string(code)
    end
  end)
end)
