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

-- A table whose entries sit at 1, 2, 4, ..., 2^k has the length 2^k in
-- Lua 5.4 (a border: t[2^k] is set, t[2^k + 1] is not), with k + 1 entries.
local function sparse(k, value)
  local t = {}
  for i = k, 0, -1 do t[1 << i] = value(i) end
  return t
end

describe("attack 6: a key order list with few entries and a long border", function()
  -- The index of a long order list read every position 1..#list: 25 names
  -- at 1, 2, 4, ..., 2^24 made encoding a one-key object take 0.54 s (and
  -- 2^27 slots of memory), coax.json.keys too; at 2^30, 35 s and 6 GB in
  -- the host. It now visits the list's entries.
  local function name(i) return "k" .. i end

  it("costs its entries, not its border: encode and keys", function()
    local long, short = sparse(24, name), {}
    for i = 0, 24 do short[i + 1] = name(i) end
    local function run(list)
      return function()
        for _ = 1, 20 do
          local obj = J.object({ k1 = 1, k0 = 0 }, list)
          assert.are.equal('{"k0":0,"k1":1}', J.encode(obj))
          assert.are.same({ "k0", "k1" }, J.keys(obj))
        end
      end
    end
    local sparse_cpu, dense_cpu = H.best_cpu_pair(run(long), run(short))
    assert.is_true(sparse_cpu < 3 * dense_cpu + 0.02, ("%.3f s against %.3f s"):format(sparse_cpu, dense_cpu))
  end)

  it("twins: the first position of a name wins; names past a hole are not the list's", function()
    local list = { "b", "a", "b", "c" }
    for i = 5, 40 do list[i] = "x" .. i end -- long: the index reads it
    assert.are.equal('{"b":2,"a":1,"c":3}', J.encode(J.object({ a = 1, b = 2, c = 3 }, list)))
    local holed = sparse(6, function(i) return ({ [0] = "z", "y", "x", "w", "v", "u", "t" })[i] end)
    holed[3] = "a" -- #holed is 64: 3 is read, as every position up to the border
    assert.are.equal('{"z":0,"y":1,"a":3,"x":2}', J.encode(J.object({ a = 3, x = 2, y = 1, z = 0 }, holed)))
  end)
end)

describe("attack 6: a host's allow_dirs with a long border", function()
  -- Copied position by position to its border before its strings were
  -- checked: 25 folders at 1, 2, 4, ..., 2^24 took 0.3 s before the error
  -- (2^30: 20 s). The copy now stops at the first position that is not a
  -- folder.
  it("is refused at its first hole, in a hole's time", function()
    local function run(list)
      return function()
        local ok, err = pcall(coax.engine, { allow_dirs = list })
        assert.is_false(ok)
        assert.matches("allow_dirs must be a folder or a list of folders", err, 1, true)
      end
    end
    local long = sparse(24, function() return "spec" end)
    local sparse_cpu, twin_cpu = H.best_cpu_pair(run(long), run({ "spec", 5 }))
    assert.is_true(sparse_cpu < 3 * twin_cpu + 0.02, ("%.3f s against %.3f s"):format(sparse_cpu, twin_cpu))
  end)

  it("twin: a list of folders still makes an engine", function()
    local e = coax.engine({ allow_dirs = { "spec", "lua" } })
    e:close()
  end)
end)

describe("attack 6: the on_event handler of an e:session that raised", function()
  -- The handler was referenced from the registry before the agent options
  -- were read: an option that raised (replies = 5, agent = {}, a function
  -- in agent_options) left the reference, so a host retrying in a loop
  -- kept every handler and all it held (1,000 tries: 1,000 references).
  local RECIPE = "return { schema = { type = 'integer' }, prompt = 'p' }"

  local function collected(make)
    local seen = setmetatable({}, { __mode = "k" })
    make(seen)
    collectgarbage()
    collectgarbage()
    return next(seen) == nil
  end

  for _, bad in ipairs({ { "replies = 5", { replies = 5 } }, { "agent = {}", { agent = {} } },
    { "a function in agent_options", { agent_options = { x = print } } } }) do
    it("is not kept when " .. bad[1] .. " raises", function()
      local e = coax.engine()
      assert.is_true(collected(function(seen)
        local handler = function() end
        seen[handler] = true
        local opts = { source = true, on_event = handler }
        for k, v in pairs(bad[2]) do opts[k] = v end
        assert.is_false(pcall(e.session, e, RECIPE, "x", opts))
      end))
      e:close()
    end)
  end

  it("twin: a session's handler hears its events, and is let go with the session", function()
    local e = coax.engine()
    local names = {}
    assert.is_true(collected(function(seen)
      local handler = function(name) names[#names + 1] = name end
      seen[handler] = true
      local s = e:session(RECIPE, "x", { source = true, on_event = handler, replies = { "7" } })
      assert.are.equal("ok", s:run())
      s:close()
    end))
    assert.are.same({ "attempt_start", "reply", "success" }, names)
    e:close()
  end)
end)
