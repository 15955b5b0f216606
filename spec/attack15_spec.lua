--- Attack round 15: the promise "a recipe or a reply never hurts its host", against what a script can
-- learn of its engine's hashes. Where a table places a key is observable, so an attacker outside (the
-- spec, which reads one session's report and writes the next session's recipe, as a model server
-- that reads prompts and writes replies would) can learn the secret Lua's hash of strings rests on
-- and choose keys that share one chain. Work is compared at n and 8n, never against a clock.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

local ended = H.ended
local MASK = 0xffffffff
local M = 12 -- the observing table has 2^M nodes

-- Where strings land in a table of 2^M nodes. The table is filled (every node holds a key, so the
-- order of 'next' is the nodes' order), then emptied: its keys stay in the nodes, and 'next' from
-- one of them finds the next node that holds a value. A string set in the emptied table takes its
-- main position, the low M bits of its hash, found by halving with 'next' (the key it replaced
-- is no longer found: 'next' raises).
local OBSERVE = [==[
local M = %d
local N = 1 << M
local T, refs = {}, {}
for i = 1, N do T[-i] = true end
for k in next, T do refs[#refs + 1] = k end
for i = 1, N do T[refs[i]] = nil end
local function node(s)
  T[s] = true
  local lo, hi, found = 0, N - 1, nil
  while lo <= hi do
    local mid = (lo + hi) // 2
    local ok, k = pcall(next, T, refs[mid + 1])
    if not ok then found = mid break end
    if k == s then lo = mid + 1 else hi = mid - 1 end
  end
  T[s] = nil
  refs[found + 1] = s
  return found
end
local out = {}
for len = 1, 10 do
  for c = 0, len == 1 and 63 or 11 do
    local s = len == 1 and string.char(c + 32) or ("z"):rep(len - 1) .. string.char(c + 32)
    out[#out + 1] = s .. "=" .. node(s)
  end
end
return { schema = {}, prompt = table.concat(out, ";") }
]==]

-- Lua 5.4's hash of a string from a seed, in 32 bits.
local function lua_hash(s, seed)
  local h = (seed ~ #s) & MASK
  for i = #s, 1, -1 do h = (h ~ ((h << 5) + (h >> 2) + s:byte(i))) & MASK end
  return h
end

-- The seeds under which Lua's hash puts every observed string where it was seen. The low k bits of
-- a string of length l depend on the seed's low k + 2l bits only: one-byte strings give the low
-- M + 2 bits, each further length two more.
local function seeds(observed)
  local low = (1 << M) - 1
  local function fits(seed, len)
    for _, o in ipairs(observed) do
      if #o[1] == len and lua_hash(o[1], seed) & low ~= o[2] then return false end
    end
    return true
  end
  local found = {}
  for seed = 0, (1 << (M + 2)) - 1 do
    if fits(seed, 1) then found[#found + 1] = seed end
  end
  for len = 2, 10 do
    local more = {}
    for _, seed in ipairs(found) do
      for bits = 0, 3 do
        local s = (seed | (bits << (M + 2 * len - 2))) & MASK
        if fits(s, len) then more[#more + 1] = s end
      end
    end
    found = more
  end
  return found
end

-- For B blocks of 4 letters and digits: two blocks each that take the hash's state at that block to one
-- state, so the 2^B strings of one block of each pair share one hash under 'seed' (Joux's
-- multicollision). Lua hashes a string from its last byte: the first pair is the string's last block.
local function multicollision(seed, blocks)
  local h, pairs_of, x = (seed ~ (4 * blocks)) & MASK, {}, 12345
  local function after(state, block)
    for i = 4, 1, -1 do state = (state ~ ((state << 5) + (state >> 2) + block:byte(i))) & MASK end
    return state
  end
  for b = 1, blocks do
    local seen = {}
    while not pairs_of[b] do
      x = x * 6364136223846793005 + 1442695040888963407
      local v = x >> 20
      local block = string.char(97 + v % 26, 97 + (v >> 5) % 26, 65 + (v >> 10) % 26, 48 + (v >> 15) % 10)
      local state = after(h, block)
      if seen[state] and seen[state] ~= block then pairs_of[b], h = { seen[state], block }, state end
      seen[state] = block
    end
  end
  return pairs_of
end

-- The i-th (from 0) of the 2^B strings of those pairs.
local function colliding(pairs_of, i)
  local parts = {}
  for b = 1, #pairs_of do parts[#pairs_of - b + 1] = pairs_of[b][((i >> (b - 1)) & 1) + 1] end
  return table.concat(parts)
end

local function as_lua(pairs_of)
  local t = {}
  for b, p in ipairs(pairs_of) do t[b] = ("{%q, %q}"):format(p[1], p[2]) end
  return "{" .. table.concat(t, ", ") .. "}"
end

-- n of those strings, keys of one table.
local KEYS = [==[
local P, n = %s, %d
local t = {}
for i = 0, n - 1 do
  local parts = {}
  for b = 1, #P do parts[#P - b + 1] = P[b][((i >> (b - 1)) & 1) + 1] end
  t[table.concat(parts)] = i
end
local count = 0 for _ in pairs(t) do count = count + 1 end
return { schema = {}, prompt = 'x' .. count }
]==]

local function report_of(e, source)
  local s = e:session(source, "x", { source = true, replies = { "{}" } })
  while e:poll(0) > 0 do end
  return s:report()
end

local function prompt(r)
  return r.attempts[1].messages[#r.attempts[1].messages].content:match("^[^\n]*")
end

describe("attack 15: where a table places strings tells a script nothing of its hash", function()
  -- Lua hashed a string by h ^= (h<<5) + (h>>2) + byte from a 32-bit seed, the engine's, and where
  -- 170 strings landed in a table of 4,096 nodes gave that seed two bits at a time (one seed fitted:
  -- the seed); with it, 13 blocks of 4 bytes made 8,192 strings of one hash, one chain at every size:
  -- 1,024 of them took 3.7 ms as keys of one table, 8,192 took 255 ms (68.9 times), 16,384 took
  -- 1.05 s, and the rehash to 16,384 nodes was one instruction of 0.1 s. The vendored lstring.c now
  -- hashes strings by SipHash-1-3 under a key drawn once a process: no seed fits, and the keys built
  -- for one cost 0.14 ms and 1.3 ms.
  local e, observed
  setup(function()
    e = coax.engine()
    local r = report_of(e, OBSERVE:format(M))
    observed = {}
    for s, node in prompt(r):gmatch("([^;=]+)=(%d+)") do observed[#observed + 1] = { s, tonumber(node) } end
  end)
  teardown(function() e:close() end)

  it("no seed of Lua's hash puts 170 strings where a table placed them", function()
    assert.are.equal(170, #observed)
    assert.are.same({}, seeds(observed))
  end)

  it("1,024 and 8,192 keys built for the seed the places gave cost 8 times the work", function()
    local collision = as_lua(multicollision(seeds(observed)[1] or 0, 13))
    local counted = {}
    local ratio = H.scaling_ratio(function(n)
      local r = report_of(e, KEYS:format(collision, n))
      counted[n] = r.outcome .. " " .. prompt(r)
    end, 1024, 8)
    assert.are.same({ [1024] = "ok x1024", [8192] = "ok x8192" }, counted)
    assert.is_true(ratio < 20, ("ratio %.1f"):format(ratio))
  end)

  -- One call of cjson.decode made the table of an object of such keys (the attacker wrote its text in
  -- the recipe: no instruction built it), and charged its time as it returned: 16,384 keys took 0.56 s
  -- in one call, 65,536 took 9.5 s on a budget of 2.5 s (the session then ended with limit). Now 17 ms.
  local DECODE = "local t = require('cjson').decode([==[%s]==]) local count = 0 for _ in pairs(t) do "
    .. "count = count + 1 end return { schema = {}, prompt = 'x' .. count }"
  it("cjson.decode of an object of 1,024 and of 8,192 such keys, one call each, costs 8 times the work", function()
    local blocks = multicollision(seeds(observed)[1] or 0, 13)
    local function object(n)
      local members = {}
      for i = 0, n - 1 do members[i + 1] = '"' .. colliding(blocks, i) .. '": 1' end
      return "{" .. table.concat(members, ",") .. "}"
    end
    local recipes, counted = { [1024] = DECODE:format(object(1024)), [8192] = DECODE:format(object(8192)) }, {}
    local ratio = H.scaling_ratio(function(n)
      local r = report_of(e, recipes[n])
      counted[n] = r.outcome .. " " .. prompt(r)
    end, 1024, 8)
    assert.are.same({ [1024] = "ok x1024", [8192] = "ok x8192" }, counted)
    assert.is_true(ratio < 20, ("ratio %.1f"):format(ratio))
  end)

  -- Twins: Lua's own hash still explains itself (the solver is right), and strings are still keys:
  -- one string built two ways is one key, short and long, with zeros and of every length to 100.
  it("the solver finds the seed of strings hashed by Lua's own hash", function()
    local known = {}
    for _, o in ipairs(observed) do known[#known + 1] = { o[1], lua_hash(o[1], 0x9e3779b9) & ((1 << M) - 1) } end
    assert.are.same({ 0x9e3779b9 }, seeds(known))
  end)

  it("strings of every length, built two ways, are one key each and are removed", function()
    local r = H.run_source([=[
      local t, n = {}, 0
      for len = 0, 100 do t[("a\0"):rep(len // 2) .. ("b"):rep(len % 2)] = len end
      for len = 0, 100 do
        local parts = {}
        for i = 1, len // 2 do parts[i] = "a\0" end
        if t[table.concat(parts) .. (len % 2 == 1 and "b" or "")] == len then n = n + 1 end
      end
      for len = 0, 100, 2 do t[("a\0"):rep(len // 2)] = nil end
      local left = 0 for _ in pairs(t) do left = left + 1 end
      local long = ("k"):rep(60)
      t[long .. 1] = "one"
      error(("%d found, %d left; %s %s %s"):format(n, left, t[("k"):rep(59) .. "k1"], t[long .. 2],
        t[("a\0"):rep(3) .. "b"]), 0)]=])
    assert.are.same({ "invalid", "invalid_recipe", "101 found, 50 left; one nil 7" }, ended(r))
  end)
end)

describe("attack 15: tostring and %p show no address", function()
  -- tostring of a table, a function or a thread, and string.format's %p, showed the object's
  -- address: the engine's memory layout, and where another session's objects are. They now show a
  -- keyed hash of it (distinct for distinct objects), which tells nothing of where a table places it.
  -- Addresses are aligned: every one of 64 tables ended in 0 or 8; hashes end in any of 16 digits.
  it("64 tables show values that are not aligned as addresses", function()
    local r = H.run_source([=[
      local aligned = 0
      for i = 1, 64 do
        local digit = tostring({}):sub(-1)
        if digit == "0" or digit == "8" then aligned = aligned + 1 end
      end
      error(aligned < 40 and "hashed" or "aligned " .. aligned, 0)]=])
    assert.are.same({ "invalid", "invalid_recipe", "hashed" }, ended(r))
  end)

  -- Twins: one object shows one value, tostring and %p alike; 20,000 objects show 20,000 values; a
  -- value with no address is "(null)".
  it("an object shows one value each time, distinct objects distinct ones", function()
    local r = H.run_source([=[
      local o, shown, kept, distinct = {}, {}, {}, 0
      local same = tostring(o) == tostring(o) and tostring(o) == "table: " .. string.format("%p", o)
      for i = 1, 20000 do
        kept[i] = i % 2 == 0 and {} or function() return i end
        local s = tostring(kept[i]):match("0x%x+")
        if not shown[s] then shown[s], distinct = true, distinct + 1 end
      end
      local builtin = tostring(print):match("^%a+: 0x%x+$") ~= nil
      error(("%s %d %s %s"):format(same, distinct, string.format("%p", 1), builtin), 0)]=])
    assert.are.same({ "invalid", "invalid_recipe", "true 20000 (null) true" }, ended(r))
  end)
end)

describe("attack 15: a session's draws of math.random foretell nothing of another's", function()
  -- The engine's one generator (xoshiro256**) serves every session, and math.random(0) gives its
  -- value whole: rotl(s1 * 5, 7) * 9 of one word of its state, which four values give all of. A
  -- session told the next three values another session of the engine then drew, exactly (and could
  -- draw until the next suited it). The vendored lmathlib.c now draws SipHash-1-3 of the seeds and a
  -- count under the process's key: the three values are others.
  local XOSHIRO = [==[
    local function rotl(x, n) return (x << n) | (x >> (64 - n)) end
    local function step(s) -- xoshiro256**: the value of state s, and s made the next state
      local s0, s1, s2, s3 = s[1], s[2], s[3] ~ s[1], s[4] ~ s[2]
      local r = rotl(s1 * 5, 7) * 9
      s[1], s[2], s[3], s[4] = s0 ~ s3, s1 ~ s2, s2 ~ (s1 << 17), rotl(s3, 45)
      return r
    end
  ]==]
  local PREDICT = XOSHIRO .. [==[
    local function inverse(a) local x = a for _ = 1, 6 do x = x * (2 - a * x) end return x end
    local inv5, inv9 = inverse(5), inverse(9)
    local b = {}
    for i = 0, 3 do b[i] = rotl(math.random(0) * inv9, 57) * inv5 end
    local ca = b[1] ~ b[0]
    local c1 = ca ~ (b[0] << 17)
    local ad = b[2] ~ b[1] ~ c1 ~ b[0]
    local d0 = rotl(b[3] ~ b[2] ~ c1 ~ (b[1] << 17) ~ b[1], 19) ~ b[0]
    local s = { ad ~ d0, b[0], ca ~ ad ~ d0, d0 }
    for _ = 1, 4 do step(s) end
    return { schema = {}, prompt = step(s) .. " " .. step(s) .. " " .. step(s) }
  ]==]
  local DRAW = "return { schema = {}, prompt = math.random(0) .. ' ' .. math.random(0) .. ' ' .. math.random(0) }"

  it("four values of one session do not give the next three another session draws", function()
    local e = coax.engine()
    local predicted, drawn = prompt(report_of(e, PREDICT)), prompt(report_of(e, DRAW))
    e:close()
    assert.are.equal(3, select(2, drawn:gsub("%-?%d+", "")))
    assert.are_not.equal(predicted, drawn)
  end)

  -- Twins: the prediction is right for xoshiro256** (run here on a known state), and math.random
  -- still draws floats in [0, 1) about 0.5 on average and integers over the whole of an interval.
  it("the prediction gives xoshiro256**'s next values from four", function()
    local step = assert(load(XOSHIRO .. " return step", "xoshiro", "t", {}))()
    local s = { 0x0123456789abcdef, 0x1111, -7, 42 }
    local function xoshiro() return step(s) end
    local env = { math = { random = xoshiro } }
    local predicted = assert(load(PREDICT, "predict", "t", env))().prompt
    assert.are.equal(("%d %d %d"):format(xoshiro(), xoshiro(), xoshiro()), predicted)
  end)

  it("math.random draws floats in [0, 1) and integers over the whole interval", function()
    local r = H.run_source([=[
      local sum, seen, outside = 0, {}, 0
      for _ = 1, 100000 do
        local x, k = math.random(), math.random(3, 7)
        if x < 0 or x >= 1 or k < 3 or k > 7 then outside = outside + 1 end
        sum, seen[k] = sum + x, true
      end
      error(("%d outside, %d integers, mean %.2f, %s"):format(outside, #{ seen[3], seen[4], seen[5], seen[6],
        seen[7] }, sum / 100000, math.type(math.random(0))), 0)]=])
    assert.are.same({ "invalid", "invalid_recipe", "0 outside, 5 integers, mean 0.50, integer" }, ended(r))
  end)
end)
