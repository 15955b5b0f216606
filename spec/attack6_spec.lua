--- Attack round 6: work a schema, a script or a host's call could make
-- large in one C call, each hole with its input and the twins that must
-- keep working. Under the ASan build (COAX_BUILD=build/asan) a memory
-- error aborts the run.
local H = require "helper" -- first: it loads the module of COAX_BUILD
local coax = require "coax"
local J = coax.json

describe("attack 6: an example of an array under uniqueItems", function()
  -- Each item made was compared with every item made before it: 4 arrays
  -- of 4,096 integers, a 300-byte schema, took 1.77 s in one call (512
  -- each: 0.028 s, 63 times less), whatever max_steps said. Now an item is
  -- compared with the items of its hash only: 0.042 s.
  local function schema(n)
    return coax.schema(J.encode({ type = "array", uniqueItems = true, minItems = n, items = { type = "integer" } }))
  end

  it("is made in near-linear time: 4 times the items is not 16 times the work", function()
    local schemas = { [1024] = schema(1024), [4096] = schema(4096) }
    local ratio = H.scaling_ratio(function(n)
      local v = assert(coax.example(schemas[n]))
      assert.are.equal(n, #v)
    end, 1024, 4)
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
  end)

  it("twins: its items are distinct; items that cannot be are still named", function()
    local v = assert(coax.example(schema(300)))
    local seen = {}
    for i = 1, 300 do
      assert.is_nil(seen[v[i]])
      seen[v[i]] = true
    end
    local nested = assert(coax.example(coax.schema(J.encode({ type = "array", uniqueItems = true, minItems = 3,
      items = { type = "array", minItems = 3, items = { type = "integer" } } }))))
    assert.are.equal("[[1,1,1],[2,2,2],[3,3,3]]", J.encode(nested))
    local none, message = coax.example(coax.schema(J.encode({ type = "array", uniqueItems = true, minItems = 3,
      items = { enum = { "a", "b" } } })))
    assert.is_nil(none)
    assert.are.equal('no valid instance found: at "": expected array, got null', message)
  end)
end)
