--- Attack round 11: the promise "a recipe or a reply never hurts its host",
-- against work in C that a script repeats on data it already holds, where
-- neither the instruction count nor the memory cap sees it. Work is
-- compared at n and 4n (the same work when the budget bounds it), never
-- against a clock.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD

local STOPPED = "recipe: script stopped: Lua instruction limit (1000000) reached"

local run, stopped = H.run_source, H.ended

describe("attack 11: comparing and joining long strings is charged as it runs", function()
  -- table.sort charged its n log2 n comparisons as instructions, but a
  -- comparison of two strings is a strcoll over their common length, and a
  -- table may hold the same two long strings n times (16 bytes a slot, no
  -- memory for the strings): 1,600 references to two strings of 4 MB
  -- sorted for 1.9 s, 200,000 would sort for hours, in one C call. The
  -- vendored Lua (lvm.c's l_strcmp, luaV_equalobj, luaV_concat; ldo.c's
  -- luaD_work) now runs the count hook every MiB of strings compared or
  -- joined once the clock moved, so that time is charged as it is spent.
  local SORT = "local a, b = ('a'):rep(%d) .. 'b', ('a'):rep(%d) .. 'c' local t = {} "
    .. "for i = 1, %d do t[i] = i %% 2 == 0 and a or b end table.sort(t) return { schema = {}, prompt = 'x' }"

  it("a sort of 2,000 and of 8,000 references to two strings of 1 MB stops at the limit in the same work", function()
    local r
    local ratio = H.scaling_ratio(function(n)
      r = run(SORT:format(1 << 20, 1 << 20, n), { lua_instructions = 1000000 })
    end, 2000, 4)
    assert.are.same({ "limit", "limit", STOPPED }, stopped(r))
    assert.is_true(ratio < 2, ("ratio %.1f"):format(ratio))
  end)

  -- The VM's `<`, `==` and `..` on long strings go through the same
  -- charge: a loop of them stopped at the first count past its budget, a
  -- thousand instructions (250 operations of 16 MB: 0.1 s here) late, and
  -- now within a MiB of work of it, whatever the strings' length.
  for _, c in ipairs({ { "<", "local x = a < b" }, { "==", "local x = a == b" }, { "..", "local x = a .. 'y'" } }) do
    it("a loop of `" .. c[1] .. "` on strings of 4 MB and of 16 MB stops at the limit in the same work", function()
      local r
      local ratio = H.scaling_ratio(function(n)
        -- made by doubling: string.rep charges its bytes (16 MB: 2,000,000), and the loop would
        -- never run on this budget
        r = run(("local function big(n) local s = 'a' while #s < n do s = s .. s end return s end "
          .. "local a, b = big(%d), big(%d) for i = 1, 1e9 do %s end "
          .. "return { schema = {}, prompt = 'x' }"):format(n, n, c[2]), { lua_instructions = 1000000 })
      end, 1 << 22, 4)
      assert.are.same({ "limit", "limit", STOPPED }, stopped(r))
      assert.is_true(ratio < 2, ("ratio %.1f"):format(ratio))
    end)
  end

  -- A C function's time was charged as it returned to Lua, never as it
  -- returned to C: a comparator written in C runs from sort's C, and
  -- string.format (a copy of its first argument) compared 4,000 references
  -- to a string of 4 MB for 11.8 s in one call on a budget of 0.25 s (1,000:
  -- 2.4 s), charged 48,000 instructions; a metamethod in C runs from the C
  -- of table.concat, and coax.json.type (a scan of its table) as __index of
  -- a table of 100,000 keys ran 4.9 s for 8,000 missing keys on the same
  -- budget. The vendored ldo.c now charges a C function's time as it
  -- returns whenever a script's call is below it (underlua).
  it("a sort of 1,000 and of 4,000 references with string.format as its comparator stops in the same work", function()
    local r
    local ratio = H.scaling_ratio(function(n)
      r = run(("local s = ('a'):rep(4 << 20) local t = {} for i = 1, %d do t[i] = s end "
        .. "table.sort(t, string.format) return { schema = {}, prompt = 'x' }"):format(n),
        { lua_instructions = 1000000 })
    end, 1000, 4)
    assert.are.same({ "limit", "limit", STOPPED }, stopped(r))
    assert.is_true(ratio < 2, ("ratio %.1f"):format(ratio))
  end)

  it("table.concat of 2,000 and of 8,000 keys a C __index answers stops in the same work", function()
    local r
    local ratio = H.scaling_ratio(function(n)
      r = run(("local coax = require 'coax' local t = { 1 } for i = 3, 100000 do t[i] = i end "
        .. "setmetatable(t, { __index = coax.json.type }) local s = table.concat(t, '', 100001, 100000 + %d) "
        .. "return { schema = {}, prompt = 'x' }"):format(n), { lua_instructions = 1000000 })
    end, 2000, 4)
    assert.are.same({ "limit", "limit", STOPPED }, stopped(r))
    assert.is_true(ratio < 2, ("ratio %.1f"):format(ratio))
  end)

  it("twins: C comparators and metamethods still work, and their errors are still errors", function()
    local r = run("local coax = require 'coax' local t = { 5, 3, 9, 1, 7 } table.sort(t, math.ult) "
      .. "local ok, e = pcall(table.sort, { {}, {} }, string.format) "
      .. "local u = setmetatable({ 1, 2 }, { __index = coax.json.type }) "
      .. "return { schema = {}, prompt = table.concat(t, ',') .. ' ' .. tostring(ok) .. ' ' .. e:gsub('^.-: ', '') "
      .. ".. ' ' .. table.concat(u, ' ', 1, 4) }")
    assert.are.same({ "ok", "1,3,5,7,9 false bad argument #1 to 'string.format' (string expected, got table) "
      .. "1 2 array array" }, { r.outcome, r.attempts[1].messages[1].content:match("^[^\n]*") })
  end)

  it("twins: sorts, comparisons and joins that end give exact results", function()
    local r = run("local t = {} for i = 1, 2000 do t[i] = ('z'):rep(10000) .. ('%05d'):format(i * 7919 % 2003) end "
      .. "table.sort(t) local ok = true for i = 2, #t do ok = ok and t[i - 1] < t[i] end "
      .. "local a, b = ('q'):rep(3 << 20), ('q'):rep(3 << 20) "
      .. "return { schema = {}, prompt = ('%s %s %s %s %d'):format(t[1]:sub(-5), t[2000]:sub(-5), tostring(ok), "
      .. "tostring(a == b and a <= b and not (a < b)), #(a .. b .. 'x')) }")
    assert.are.same({ "ok", "00001 02002 true true 6291457" },
      { r.outcome, r.attempts[1].messages[1].content:match("^[^\n]*") })
  end)
end)
