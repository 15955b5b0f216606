--- Attack round 13: the promise "a recipe or a reply never hurts its host", against work one
-- instruction does in C that the script's choice of data makes super-linear. Work is compared at n
-- and 8n, never against a clock.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

local function run(source, opts)
  opts = opts or {}
  opts.source, opts.replies = true, opts.replies or { "{}" }
  return coax.run(source, "x", opts)
end

local function ended(r)
  return { r.outcome, type(r.error) == "table" and r.error.code or nil,
    type(r.error) == "table" and (r.error.message:gsub("\n.*", "")) or nil }
end

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
end)
