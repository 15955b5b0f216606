--- coax.json.encode of Lua tables whose keys JSON cannot hold as they are:
-- the integer 1 and the string "1" are one JSON key, and an array marked
-- with coax.json.array holds nothing but its items. A value written with a
-- key twice, or with a key dropped, is a wrong value: these are refused,
-- with the key named.
require "helper" -- first: it points package.cpath at COAX_BUILD
local json = require("coax").json

local function encode(t)
  local ok, r = pcall(json.encode, t)
  return ok and r or (tostring(r):gsub("^[^:]*:%d+: ", ""))
end

local function twin(k)
  return ('cannot encode a table with both the integer key %s and the string key "%s" as JSON '
    .. '(both are written "%s")'):format(k, k, k)
end

describe("coax.json.encode, keys", function()
  it("refuses the integer key 1 beside the string key \"1\" (it wrote {\"1\":\"a\",\"1\":\"b\"})", function()
    assert.are.equal(twin("1"), encode({ [1] = "a", ["1"] = "b" }))
  end)

  it("refuses such twins whatever the integer, and deep inside a value", function()
    assert.are.equal(twin("-7"), encode({ [-7] = "a", ["-7"] = "b" }))
    assert.are.equal(twin("0"), encode({ [0] = "a", ["0"] = "b", x = 1 }))
    assert.are.equal(twin("10"), encode({ x = { y = { [10] = 1, ["10"] = 2 } } }))
    assert.are.equal(twin("1"), encode(json.object({ [1] = "a", ["1"] = "b" }, { "1" })))
  end)

  it("writes keys that only look alike, each once, in order", function()
    assert.are.equal('{"-0":4,"0":5,"01":1,"1":2,"1.0":3}',
      encode({ ["01"] = 1, [1] = 2, ["1.0"] = 3, ["-0"] = 4, [0] = 5 }))
    assert.are.equal('{"1":"a","2":"b"}', encode({ [1] = "a", ["2"] = "b" }))
    assert.are.equal('{"1":1,"2":2,"x":3}', encode({ 1, 2, x = 3 }))
  end)

  it("refuses a marked array holding a key besides its items (it dropped the key)", function()
    local a = json.array({ 1, 2 })
    a.x = 3
    assert.are.equal('cannot encode an array (coax.json.array) with the key "x" as JSON', encode(a))
    local b = json.array({ 1, 2 })
    b[5] = 3
    assert.are.equal("cannot encode an array (coax.json.array) of length 2 with the key 5 as JSON", encode(b))
    local c = json.decode("[1,2]")
    c[0] = 3
    assert.are.equal("cannot encode an array (coax.json.array) of length 2 with the key 0 as JSON", encode(c))
  end)

  it("writes marked arrays that hold only their items", function()
    assert.are.equal("[]", encode(json.array({})))
    assert.are.equal("[1,2,3]", encode(json.array({ 1, 2, 3 })))
    assert.are.equal('[1,{"a":[]}]', encode(json.decode('[1,{"a":[]}]')))
  end)
end)
