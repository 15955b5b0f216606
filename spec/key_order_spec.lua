--- An error that names one of several bad keys of a table names the same
-- one on every run. pairs' order follows the string hash, which Lua seeds
-- afresh for every state (the clock and the addresses), so "the first bad
-- key pairs gives" named one key or another from run to run: a recipe with
-- two unknown fields said either, coax.run's options, coax.extract's,
-- coax.json.encode's marked arrays the same (about half the runs each for
-- two keys). The least key is named now: strings first, by bytes, then
-- numbers, then other types (script/lib.h's lcoax_key_before, recipe.lua's
-- before). Each case is built in many insertion orders and table sizes,
-- which reorder pairs within one state as a new seed does between runs.
require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

-- Every rotation of `keys`, each also in a table grown from a larger one
-- (a bigger hash part: another pairs order for the same keys).
local function orders(keys)
  local out = {}
  for r = 0, #keys - 1 do
    local list = {}
    for i = 1, #keys do list[i] = keys[(i + r - 1) % #keys + 1] end
    out[#out + 1] = { list, 0 }
    out[#out + 1] = { list, 37 }
  end
  return out
end

-- A table of `keys` (each set to `value`) inserted in order, after `pad`
-- keys that are then removed.
local function table_of(keys, pad, value)
  local t = {}
  for i = 1, pad do t["pad" .. i] = true end
  for _, k in ipairs(keys) do t[k] = value end
  for i = 1, pad do t["pad" .. i] = nil end
  return t
end

-- The one message every order of `keys` gives err_of (else the list of all).
local function one_message(keys, err_of)
  local seen, list = {}, {}
  for _, o in ipairs(orders(keys)) do
    local m = err_of(o[1], o[2])
    if not seen[m] then
      seen[m] = true
      list[#list + 1] = m
    end
  end
  return #list == 1 and list[1] or list
end

describe("an error naming one of several bad keys names the same one whatever pairs' order", function()
  it("a recipe's fields, its budget's and its stream's (the engine's own state, a fresh seed each run)", function()
    -- the recipe's table `into` ("r", "r.budget", "r.stream") gets `keys`
    -- (each = value) after `pad` keys it then loses
    local function recipe_error(keys, pad, into, value)
      local parts = { "local r = { schema = {}, prompt = 'x' } r.budget = {} r.stream = {}" }
      for i = 1, pad do parts[#parts + 1] = ("%s.pad%d = true"):format(into, i) end
      for _, k in ipairs(keys) do parts[#parts + 1] = ("%s.%s = %s"):format(into, k, value(k)) end
      for i = 1, pad do parts[#parts + 1] = ("%s.pad%d = nil"):format(into, i) end
      parts[#parts + 1] = "return r"
      return coax.run(table.concat(parts, " "), "x", { source = true, replies = { "{}" } }).error.message
    end
    local function one() return "1" end
    assert.are.equal("unknown recipe field 'alpha'", one_message({ "zeta", "alpha", "mid", "omega", "beta" },
      function(k, pad) return recipe_error(k, pad, "r", one) end))
    -- a wrong type and an unknown field: the least of the two, whichever kind
    assert.are.equal("recipe field 'max_attempts' must be a number, not a string", one_message(
      { "zeta", "max_attempts", "zz" }, function(k, pad)
        return recipe_error(k, pad, "r", function(key) return key == "max_attempts" and "'1'" or "1" end)
      end))
    assert.are.equal("unknown budget field 'alpha'", one_message({ "zeta", "alpha", "tokens" },
      function(k, pad) return recipe_error(k, pad, "r.budget", one) end))
    assert.are.equal("unknown stream field 'alpha' (partials, stop_early, atomic, every_ms)",
      one_message({ "zeta", "alpha", "stop" }, function(k, pad) return recipe_error(k, pad, "r.stream", one) end))
    -- twins: one bad field is named as before, a good recipe still runs
    assert.are.equal("unknown recipe field 'colour'", coax.run("return { schema = {}, prompt = 'x', colour = 1 }",
      "x", { source = true, replies = { "{}" } }).error.message)
    assert.are.equal("ok", coax.run("return { schema = {}, prompt = 'x', budget = { tokens = 9000 } }", "x",
      { source = true, replies = { "{}" } }).outcome)
  end)

  it("the options of coax.run, coax.engine and coax.extract (the host's state)", function()
    local keys = { "zeta", "bogus", "alpha", "mid", "omega" }
    local function caught(f, ...)
      local ok, e = pcall(f, ...)
      assert.is_false(ok)
      return (e:gsub("^spec/helper%.lua:%d+: ", "")) -- where the specs' coax.run wrapper raised it
    end
    assert.are.equal("coax.run: unknown option 'alpha' (README, \"The Lua module\")", one_message(keys,
      function(k, pad)
        local o = table_of(k, pad, 1)
        o.source, o.replies = true, { "{}" }
        return caught(coax.run, "return { schema = {}, prompt = 'x' }", "x", o)
      end))
    assert.are.equal("coax.engine: unknown option 'alpha' (README, \"The Lua module\")",
      one_message(keys, function(k, pad) return caught(coax.engine, table_of(k, pad, 1)) end))
    assert.are.equal("coax.extract: unknown option 'alpha'", one_message(keys, function(k, pad)
      local o = table_of(k, pad, 1)
      o.max_depth = 8
      return caught(coax.extract, "1", "{}", o)
    end))
    -- strings before numbers before other types
    assert.are.equal("coax.extract: unknown option 'zz'", caught(coax.extract, "1", "{}", { zz = 1, [1] = 1 }))
    assert.are.equal("coax.extract: unknown option '2'", caught(coax.extract, "1", "{}", { [true] = 1, [2] = 1 }))
    assert.are.same({ true, 1 }, { coax.extract("1", "{}", { max_depth = 8 }).valid, 1 })
  end)

  it("the key coax.json.encode refuses in a marked array, and the key type it refuses in an object", function()
    local function caught(t)
      local ok, e = pcall(coax.json.encode, t)
      assert.is_false(ok)
      return e
    end
    assert.are.equal('cannot encode an array (coax.json.array) with the key "alpha" as JSON',
      one_message({ "zeta", "alpha", "mid", "omega" }, function(k, pad)
        local a = coax.json.array({ 1, 2 })
        for key, v in pairs(table_of(k, pad, 3)) do a[key] = v end
        return caught(a)
      end))
    assert.are.equal("cannot encode an array (coax.json.array) of length 2 with the key 0 as JSON",
      one_message({ 9, 0, 5, 7 }, function(k, pad)
        local a = coax.json.array(table_of({ 1, 2 }, pad, 1))
        for _, key in ipairs(k) do a[key] = 3 end
        return caught(a)
      end))
    assert.are.equal("cannot encode a table with a number key as JSON", one_message({ true, 2.5, false, 0.5 },
      function(k, pad)
        local t = table_of({ "a" }, pad, 1)
        for _, key in ipairs(k) do t[key] = 3 end
        return caught(t)
      end))
    -- twins: good tables still encode
    assert.are.equal('[1,2]', coax.json.encode(coax.json.array({ 1, 2 })))
    assert.are.equal('{"1":1,"a":2}', coax.json.encode({ [1] = 1, a = 2 }))
  end)
end)
