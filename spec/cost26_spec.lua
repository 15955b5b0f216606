--- Cost round 26: what an input makes coax do grows near-linearly with it, or stops at a named limit.
-- Found by a hunt for superlinear costs (each case: CPU time at n and 4n, the least of several runs,
-- H.scaling_ratio; near-linear is about 4, quadratic 16).
local H = require "helper"
local coax = require "coax"

-- Items each put in a list of their own: whether a list's items were all wrapped, or two side by side
-- were, was asked of every wrapped item against every other (extract/unwrapped.c): 16,000 lists of one
-- in a reply of 250 KB took 7 s, 7,392 took 18.4 G instructions against 1.1 G for 1,848. Each list's
-- wrapped items are now found together, sorted once.
describe("cost 26: items wrapped in lists of their own", function()
  local OBJECT = '{"type":"object","additionalProperties":{"type":"array","items":{"type":"array",'
    .. '"items":{"type":"integer"}}}}'
  local DEEP = '{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"integer"}}}}'

  local function lists_of_one(n) -- {"k1":[1],"k2":[2],...}
    local m = {}
    for i = 1, n do m[i] = ('"k%d":[%d]'):format(i, i) end
    return "{" .. table.concat(m, ",") .. "}"
  end
  local function items_of_lists(n) -- [[1],[2],...]
    local m = {}
    for i = 1, n do m[i] = ("[%d]"):format(i) end
    return "[" .. table.concat(m, ",") .. "]"
  end

  it("4 times the lists of one (3,000 and 12,000) cost at most 8 times the work, each wrapped", function()
    local replies = { [3000] = lists_of_one(3000), [12000] = lists_of_one(12000) }
    local r = H.scaling_ratio(function(n) assert.is_true(coax.extract(replies[n], OBJECT).valid) end, 3000, 4)
    assert.is_true(r < 8, ("time(12000) / time(3000) = %.2f (linear 4, quadratic 16)"):format(r))
    local res = coax.extract(replies[3000], OBJECT)
    assert.are.equal(3000, #res.coercions)
    assert.are.same({ "wrap_in_array", "/k3000/0" }, { res.coercions[3000].kind, res.coercions[3000].pointer })
    assert.are.same({ { 3000 } }, res.value.k3000)
  end)

  it("4 times the items (3,000 and 12,000) cost at most 8 times the work, refused the same", function()
    local replies = { [3000] = items_of_lists(3000), [12000] = items_of_lists(12000) }
    local r = H.scaling_ratio(function(n) assert.is_false(coax.extract(replies[n], DEEP).valid) end, 3000, 4)
    assert.is_true(r < 8, ("time(12000) / time(3000) = %.2f (linear 4, quadratic 16)"):format(r))
    local refused = coax.extract(replies[3000], DEEP)
    assert.are.equal("a list whose items' items were each put in a list of their own: the list put in one list "
      .. "instead is another reading; send the lists as you mean them", refused.errors[1].error)
  end)

  -- twins: the readings the sorted lists still find, in the log's order
  it("twins: a list's items all wrapped, two side by side, one alone, lists of one apart", function()
    local LISTS = '{"type":"array","items":{"type":"array","items":{"type":"string"}}}'
    local all = coax.extract('{"a":[1,2],"b":[3,4,5]}', OBJECT)
    assert.are.same({ false, "/a" }, { all.valid, all.errors[1].instanceLocation })
    assert.are.equal("a list whose items were each put in a list of their own: one list of them all is another "
      .. "reading; send the lists as you mean them", all.errors[1].error)
    local side = coax.extract('[["a"],"b","c"]', LISTS)
    assert.are.same({ false, "" }, { side.valid, side.errors[1].instanceLocation })
    assert.are.equal("items side by side, each put in a list of its own: one list of both, its brackets lost, is "
      .. "another reading; send the lists as you mean them", side.errors[1].error)
    local one = coax.extract('[["a","b"],"c"]', LISTS)
    assert.are.same({ true, { { "a", "b" }, { "c" } } }, { one.valid, one.value })
    local apart = coax.extract('[["a"],"b",["c"],"d"]', LISTS)
    assert.are.same({ true, { { "a" }, { "b" }, { "c" }, { "d" } } }, { apart.valid, apart.value })
  end)
end)

-- A streamed reply's wide objects: the reader followed each key's "$ref" into "$defs" by scanning them,
-- found each coerced part's place in the coerced value by scanning each object on the way, and the session
-- checked each part shown complete against the final value the same way (32,000 keys: 2.2 s, 2.4 s and
-- 4.0 s where extracting the reply took 0.15 s). Each now goes through an index of the object built once.
describe("cost 26: a streamed reply's wide objects", function()
  local dir
  setup(function() dir = H.tmpdir() end)
  teardown(function() H.rmtree(dir) end)

  -- A session whose agent streams n members (the values from value(i)) with a partial shown before the
  -- reply closes, under a schema of n declared names (each behind a "$ref" when refs).
  local function streamed(n, value, refs)
    local props, defs = {}, {}
    for i = 1, n do
      props[i] = refs and ('"k%d":{"$ref":"#/$defs/d%d"}'):format(i, i) or ('"k%d":{"type":"integer"}'):format(i)
      defs[i] = ('"d%d":{"type":"integer"}'):format(i)
    end
    local schema = dir .. ("/s%d%s.json"):format(n, refs and "r" or "")
    H.write(schema, '{"type":"object","properties":{' .. table.concat(props, ",") .. '},"$defs":{'
      .. table.concat(defs, ",") .. "}}")
    local members = {}
    for i = 1, n do members[i] = ('"k%d": %s'):format(i, value(i)) end
    local recipe = dir .. ("/r%d%s.lua"):format(n, refs and "r" or "")
    H.write(recipe, ([[local coax = require "coax"
local body = %q
return { schema = %q, prompt = "x", max_attempts = 1, stream = { every_ms = 0, partials = true },
  agent = { stream = true, call = function(request)
    request.on_text(body); coax.sleep(1); return { text = body .. "}" } end } }]]):format(
      "{" .. table.concat(members, ", "), schema))
    return recipe
  end

  for _, c in ipairs({
    { "each key behind a $ref into $defs", function(i) return tostring(i) end, true },
    { "each value coerced from a string", function(i) return ('"%d"'):format(i) end, false },
    { "each part shown complete, checked against the value", function(i) return tostring(i) end, false },
  }) do
    it("4 times the keys (3,000 and 12,000) cost at most 8 times the work: " .. c[1], function()
      local recipes = { [3000] = streamed(3000, c[2], c[3]), [12000] = streamed(12000, c[2], c[3]) }
      local function run(n)
        local s = coax.engine():session(recipes[n], "x")
        return s:run(), s
      end
      local r = H.scaling_ratio(function(n) assert.are.equal("ok", (run(n))) end, 3000, 4)
      assert.is_true(r < 8, ("time(12000) / time(3000) = %.2f (linear 4, quadratic 16)"):format(r))
      local outcome, s = run(3000)
      local value = s:value()
      assert.are.same({ "ok", 1, 3000 }, { outcome, value.k1, value.k3000 })
    end)
  end
end)
