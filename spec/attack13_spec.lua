--- Attack round 13: the promise "a recipe or a reply never hurts its host", against work one
-- instruction does in C that the script's choice of data makes super-linear. Work is compared at n
-- and 8n, never against a clock.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD

local run, ended = H.run_source, H.ended

describe("attack 13: keys a script chooses do not share a chain of a table's hash part", function()
  -- Lua placed an integer key at its value modulo (size - 1) | 1: the multiples of 2^m - 1 spread
  -- out while a table had 2^(m-1) nodes and all fell in one chain of the 2^m it grew to, and the
  -- rehash (one instruction, where no count runs) looked each key up along that chain: 2^17 + 1
  -- keys took 14 s in one instruction under a budget of 2.5 s, and ended ok; 2^16 + 1, 0.9 s. A
  -- float was placed by its top 31 bits of mantissa, so 1.5 + j * 2^-52 shared one chain at every
  -- size (32,768 of them: 1.2 s). The vendored ltable.c now places integers, floats and addresses
  -- by a keyed mix of their bits (a secret drawn once a process): the same keys cost 21 ms and 4 ms.
  local MULTIPLES = "local t = {} for k = 1, %d do t[k * %d + (1 << 40)] = true end "
    .. "return { schema = {}, prompt = 'x' }"
  local function multiples(n) -- n = 2^(m-1): n + 1 keys, all in one chain at 2^m nodes before
    local m = math.floor(math.log(n, 2) + 0.5) + 1
    return run(MULTIPLES:format(n + 1, (1 << m) - 1))
  end

  it("2^13 + 1 and 2^16 + 1 integer keys that collide at the size the table grows to cost 8 times the work", function()
    local r
    local ratio = H.scaling_ratio(function(n) r = multiples(n) end, 1 << 13, 8)
    assert.are.same({ "ok" }, ended(r))
    assert.is_true(ratio < 20, ("ratio %.1f"):format(ratio))
  end)

  local NEAR = "local t = {} for j = 1, %d do t[1.5 + j * 2^-52] = true end return { schema = {}, prompt = 'x' }"
  it("4,096 and 32,768 floats that differ below 2^-31 of their value cost 8 times the work", function()
    local r
    local ratio = H.scaling_ratio(function(n) r = run(NEAR:format(n)) end, 4096, 8)
    assert.are.same({ "ok" }, ended(r))
    assert.is_true(ratio < 20, ("ratio %.1f"):format(ratio))
  end)

  -- Twins: the tables still hold every key, once, with its value, through growth, removal and
  -- lookups of integers, floats, integral floats (which are integer keys) and tables as keys.
  it("a table keyed by integers, floats and tables still finds, counts and removes every key", function()
    local r = run([=[
      local t, objects = {}, {}
      for k = 1, 5000 do t[k * 65535 + (1 << 40)] = k end
      for j = 1, 3000 do t[1.5 + j * 2^-52] = -j end
      for i = 1, 2000 do objects[i] = {} t[objects[i]] = i end
      t[2.0], t[-0.0], t[-7] = "two", "zero", "minus"
      for k = 1, 5000, 2 do t[k * 65535 + (1 << 40)] = nil end
      local n, sum = 0, 0
      for _, v in pairs(t) do n = n + 1 if math.type(v) == "integer" then sum = sum + v end end
      error(("%d keys, sum %d; %s %s %s %s %s %s %s"):format(n, sum, t[2 * 65535 + (1 << 40)],
        t[3 * 65535 + (1 << 40)], t[1.5 + 17 * 2^-52], t[objects[1999]], t[2], t[0], t[-7.0]), 0)]=])
    assert.are.same({ "invalid", "invalid_recipe",
      "7503 keys, sum 3752000; 2 nil -17 1999 two zero minus" }, ended(r))
  end)

  -- A look-up goes through up to 2,000 tables of an __index or __newindex chain in one instruction,
  -- and Lua compared a long key byte by byte with every stored key of its length on the way: a key
  -- of 8 MB missing from 1,900 tables that each hold a key of that length differing at its end took
  -- 0.34 s a look-up, 10 of them 3.4 s and 80 of them 27 s, ended ok. The vendored lstring.c
  -- compares two long strings' bytes only when their hashes, which a look-up knows, are equal.
  local CHAIN = "local a, b = ('a'):rep(8 << 20) .. 'b', ('a'):rep(8 << 20) .. 'c' local get, set = {}, {} "
    .. "for i = 1, 1900 do get = setmetatable({ [a] = true }, { __index = get }) "
    .. "set = setmetatable({ [a] = true }, { __newindex = set }) end "
    .. "local found = 0 for i = 1, %d do if get[b] then found = found + 1 end set[b] = i end "
    .. "return { schema = {}, prompt = 'x' .. found }"
  it("10 and 80 look-ups of a key of 8 MB through 1,900 tables holding a key of its length cost the same", function()
    local r
    local ratio = H.scaling_ratio(function(n) r = run(CHAIN:format(n)) end, 10, 8)
    assert.are.same({ "ok" }, ended(r))
    assert.are.same("x0", r.attempts[1].messages[#r.attempts[1].messages].content:match("^x%d+"))
    assert.is_true(ratio < 2, ("ratio %.1f"):format(ratio))
  end)

  -- Twins: a key equal to a stored one, another object with the same bytes, is still found, at the
  -- end of a chain too; one of another length or other bytes is not.
  it("a long key is found through a chain by its bytes, not its object, and another is not", function()
    local r = run([=[
      local function key(c) return ("k"):rep(100) .. c end
      local t = { [key("a")] = 1 }
      for i = 1, 1000 do t = setmetatable({ [key(i % 2 == 0 and "x" or "y")] = false }, { __index = t }) end
      local w = setmetatable({}, { __newindex = setmetatable({}, { __newindex = t }) })
      w[key("a")] = 2
      error(("%s %s %s %s"):format(t[key("a")], t[key("b")], t[("k"):rep(99) .. "a"], rawget(w, key("a"))), 0)]=])
    assert.are.same({ "invalid", "invalid_recipe", "2 nil nil nil" }, ended(r))
  end)
end)

describe("attack 13: a chain of weak-keyed entries does not make a collection quadratic", function()
  -- The collector settles weak-keyed tables (ephemerons) in passes over all of them, in one atomic
  -- step where no count runs, and a chain split over two tables (a[k1] = k2, b[k2] = k3, ...)
  -- advanced two links a pass: the square of its length at every full collection, in whichever
  -- session allocated then (32,000 links and 300,000 small tables of garbage: 3.6 s, stopped by the
  -- budget; 4,000 links: 1.1 s). The vendored lgc.c marks every value of the ephemerons left after
  -- 16 passes, as a strong table's: 61 ms and 27 ms.
  local function chain(n)
    return "local A, B = setmetatable({}, { __mode = 'k' }), setmetatable({}, { __mode = 'k' }) "
      .. "local function chain(n) local first = {} local k = first for i = 1, n do local nk = {} "
      .. "if i % 2 == 1 then A[k] = nk else B[k] = nk end k = nk end return first end "
      .. "local kept = chain(" .. n .. ") "
  end
  local GARBAGE = "for i = 1, 200000 do local g = { i } end "

  it("collections beside a chain of 1,000 and of 8,000 links cost about 8 times the work", function()
    local r
    local ratio = H.scaling_ratio(function(n)
      r = run(chain(n) .. GARBAGE .. "return { schema = {}, prompt = 'x' }", { lua_instructions = 1e9 })
    end, 1000, 8)
    assert.are.same({ "ok" }, ended(r))
    assert.is_true(ratio < 4, ("ratio %.1f"):format(ratio))
  end)

  -- Twins: a chain whose first key lives keeps every link through the collections; one whose first
  -- key is garbage is cleared, and a short chain (settled within 16 passes) as Lua always did.
  local COUNT = "local function links(k) local n = 0 while A[k] or B[k] do k = A[k] or B[k] n = n + 1 end return n end "
    .. "local function entries() local n = 0 for _ in pairs(A) do n = n + 1 end for _ in pairs(B) do n = n + 1 end "
    .. "return n end "
  for _, c in ipairs({ { 4000, "4000 links kept, 4000 entries" }, { 20, "20 links kept, 20 entries" } }) do
    it("a chain of " .. c[1] .. " links: kept while its first key lives, cleared once it is garbage", function()
      local r = run(chain(c[1]) .. COUNT .. GARBAGE .. "local kept_links, kept_entries = links(kept), entries() "
        .. "kept = nil " .. GARBAGE .. GARBAGE
        .. "error(('%d links kept, %d entries; %d left'):format(kept_links, kept_entries, entries()), 0)")
      assert.are.same({ "invalid", "invalid_recipe", c[2] .. "; 0 left" }, ended(r))
    end)
  end
end)

