--- A recipe must never crash, hang or tamper with its host (issue 17): the
-- C stack (nesting through C functions and metamethods), the instruction
-- budget (work in C loops, finalizers, code run under protected calls a
-- script does not see), the tables every session shares (C functions that
-- set metatables), and memory running out where C pushes values into Lua.
-- Each case runs in a real session and asserts what the session made of it.
local H = require "helper"
local coax = require "coax"
local json = coax.json

local SCHEMA = "{ type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } }"

-- What `body` (the body of a function) gives in a recipe's top level:
-- "ok: VALUE" or "error: MESSAGE" (first line), or the session's outcome
-- and message when the script was stopped.
local function probe(body, opts)
  local text = "local function probe()\n" .. body .. "\nend\n"
    .. "local ok, r = pcall(probe)\n"
    .. "return { schema = " .. SCHEMA .. ", prompt = (ok and 'ok: ' or 'error: ') .. tostring(r) }"
  opts = opts or {}
  opts.source, opts.replies = true, { '{"n": 1}' }
  local r = coax.run(text, "x", opts)
  if r.outcome == "ok" then return (r.attempts[1].messages[1].content:match("^[^\n]*")), r end
  return r.outcome .. ": " .. (r.error.message:match("^[^\n]*")), r
end

describe("the C stack", function()
  -- Lua 5.4.4 (Debian 12) overflowed the C stack on tens of thousands of
  -- coroutines each closing the previous one from a <close> handler: the
  -- host died of SIGSEGV. Every other way to nest through C is bounded by
  -- Lua's C-call limit (200) or coax's own depth limits.
  local CLOSE_CHAIN = [[
local co
for i = 1, %d do
  local prev = co
  co = coroutine.create(function()
    local x <close> = setmetatable({}, { __close = function()
      if prev then local ok, e = coroutine.close(prev) if not ok then error(e, 0) end end end })
    coroutine.yield()
  end)
  coroutine.resume(co)
end
local ok, e = coroutine.close(co)
return tostring(ok) .. " " .. tostring(e)]]
  -- Each level of the chain nesting as deep through C as Lua lets it.
  local DEEP_CHAIN = [[
local function deep(n, k)
  if n == 0 then return k() end
  local ok, e = pcall(deep, n - 1, k)
  if not ok then error(e, 0) end
  return e
end
local co
for i = 1, 50 do
  local prev = co
  co = coroutine.create(function()
    local x <close> = setmetatable({}, { __close = function()
      if prev then
        deep(%d, function() local ok, e = coroutine.close(prev) if not ok then error(e, 0) end end)
      end
    end })
    %s
  end)
  coroutine.resume(co)
end
local ok, e = coroutine.close(co)
return tostring(ok) .. " " .. tostring(e)]]
  local cases = {
    { "30,000 coroutines, each closing the previous one from its <close> handler", CLOSE_CHAIN:format(30000),
      "^ok: false coroutine%.close: closes nested deeper than 4$" },
    { "the same chain, 4 deep: closed, every handler run", CLOSE_CHAIN:format(4), "^ok: true nil$" },
    { "the same chain, 5 deep: one close too deep", CLOSE_CHAIN:format(6),
      "^ok: false coroutine%.close: closes nested deeper than 4$" },
    -- The engine's Lua (5.4.7, engine/vendor/) counts a close's C calls as
    -- 5.4.4 did not: two handlers 185 pcalls deep pass Lua's own C-call
    -- limit (200) before coax's nesting bound is reached.
    { "the chain with each handler 185 pcalls deep before it closes the next",
      DEEP_CHAIN:format(185, "coroutine.yield()"), "^ok: false C stack overflow$" },
    { "the chain with coroutines that yielded 150 pcalls deep", DEEP_CHAIN:format(180, "deep(150, coroutine.yield)"),
      "^ok: false C stack overflow$" },
    { "coroutine.resume nested 100,000 deep",
      "local function f(n) local ok, e = coroutine.resume(coroutine.create(f), n + 1) "
      .. "if not ok then error(e, 0) end return e end return f(1)", "^error: C stack overflow$" },
    { "coroutine.wrap nested", "local function f(n) return coroutine.wrap(f)(n + 1) end return f(1)",
      "C stack overflow$" },
    { "pcall nested through C", "local function f(n) local ok, e = pcall(f, n + 1) if not ok then error(e, 0) end "
      .. "return e end return f(1)", "^error: C stack overflow$" },
    { "xpcall nested through C", "local function f(n) local ok, e = xpcall(f, function(m) return m end, n + 1) "
      .. "if not ok then error(e, 0) end return e end return f(1)", "^error: C stack overflow$" },
    { "string.gsub calling itself from its callback", "local function f(s) return (string.gsub(s, '.', f)) end "
      .. "return f('ab')", "^error: C stack overflow$" },
    { "an __index chain", "local t = {} setmetatable(t, { __index = function(_, k) return t[k] end }) return t.x",
      "C stack overflow$" },
    { "a __tostring chain", "local t = setmetatable({}, { __tostring = function(x) return tostring(x) end }) "
      .. "return tostring(t)", "^error: C stack overflow$" },
    { "table.sort calling itself from its comparator", "local function f(a, b) table.sort({ 3, 2, 1 }, f) "
      .. "return a < b end table.sort({ 2, 1 }, f) return 'sorted'", "^error: C stack overflow$" },
    { "an __lt chain", "local t = setmetatable({}, { __lt = function(a, b) return a < b end }) return t < t",
      "C stack overflow$" },
    { "a __concat chain", "local t = setmetatable({}, { __concat = function(a, b) return a .. b end }) "
      .. "return t .. 'x'", "C stack overflow$" },
    { "a __call chain", "local t = setmetatable({}, { __call = function(self) return self() end }) return t()",
      "^limit: recipe: script stopped: Lua instruction limit %(10000000%) reached$" },
    { "coax.json.encode of a table 100,000 deep", "local t = {} local c = t for i = 1, 100000 do c[1] = {} "
      .. "c = c[1] end return require('coax').json.encode(t)",
      "^error: recipe:2: COAX_EDEPTH: nesting deeper than 512 %(or a cycle%)$" },
    { "cjson.encode of a table 100,000 deep", "local t = {} local c = t for i = 1, 100000 do c[1] = {} "
      .. "c = c[1] end return require('cjson').encode(t)",
      "^error: recipe:2: Cannot serialise, excessive nesting %(1001%)$" },
    { "cjson's decode depth raised past its default", "require('cjson').decode_max_depth(1000000)",
      "^error: recipe:2: cjson.decode_max_depth: at most 1000 for scripts$" },
    { "cjson's encode depth raised past its default", "require('cjson').encode_max_depth(1001)",
      "^error: recipe:2: cjson.encode_max_depth: at most 1000 for scripts$" },
    { "cjson.decode of [ 100,000 deep", "return require('cjson').decode(string.rep('[', 100000))",
      "^error: recipe:2: Found too many nested data structures %(1001%) at character 1001$" },
    { "load of 100,000 nested parentheses", "local f, e = load(string.rep('(', 100000) .. '1' .. "
      .. "string.rep(')', 100000)) return e", "^ok: C stack overflow$" },
  }
  for _, c in ipairs(cases) do
    it("is never overflowed by " .. c[1], function()
      assert.matches(c[3], (probe(c[2])))
    end)
  end
end)

describe("the instruction budget", function()
  -- Each of these ran for minutes or forever in C, where the count hook
  -- never looks, or under a protected call that swallowed the stop.
  local STOPPED = "^limit: recipe: script stopped: Lua instruction limit %(10000000%) reached$"
  -- A table whose length is 2^k with k + 1 entries (t[1], t[2], t[4], ...):
  -- Lua's border search answers the last power of two.
  -- (from the largest, so that they stay in the hash part).
  local SPARSE = "local t = {} for k = %d, 0, -1 do t[1 << k] = k end "
  local cases = {
    { "string.rep('', 2^50)", "return #string.rep('', 1 << 50)" },
    { "('').rep('', 2^50, '')", "return #(''):rep(1 << 50, '')" },
    { "table.move of 2^50 nils", "return table.move({}, 1, 1 << 50, 1, {})" },
    { "table.unpack of 2^40", "return select('#', table.unpack({}, 1, 1 << 40))" },
    { "table.concat through a C __index and a huge __len",
      "local i = setmetatable({}, { __index = table.concat }) "
      .. "local t = setmetatable({}, { __index = i, __len = function() return 1 << 50 end }) return table.concat(t)" },
    { "table.insert at 1 into a table of length 2^49", SPARSE:format(49) .. "table.insert(t, 1, 'x') return #t" },
    { "table.remove at 1 from a table of length 2^49", SPARSE:format(49) .. "return table.remove(t, 1)" },
    { "table.insert through a __len that answers big the second time",
      "local n = 0 local t = setmetatable({}, { __len = function() n = n + 1 return n == 1 and 1 or 1 << 50 end, "
      .. "__newindex = rawequal }) table.insert(t, 1, 'x') table.insert(t, 1, 'x') return n" },
    { "table.sort of a table of length 2^30", SPARSE:format(30) .. "table.sort(t) return 'sorted'" },
    { "load with a reader that never ends", "return load(function() while true do end end)" },
    { "load with a reader that loops inside pcall",
      "local f = load(function() pcall(function() while true do end end) return nil end) return f" },
    { "a schema resolver that never ends",
      "return require('coax').schema({ ['$ref'] = 'http://example.com/s' }, "
      .. "{ resolver = function() while true do end end })" },
    { "a schema resolver that loops inside pcall, many times",
      "local refs = {} for i = 1, 50 do refs[i] = { ['$ref'] = 'http://example.com/' .. i } end "
      .. "return require('coax').schema({ anyOf = refs }, { resolver = function() "
      .. "pcall(function() while true do end end) return { type = 'integer' } end })" },
    -- attack round 3: each match expanded its whole replacement uncharged, and
    -- "%0" of an empty match adds nothing: 4,000 matches of 4,000,000 "%0" were 22 s
    { "gsub of an empty pattern with a replacement of a million %0",
      "return (('a'):rep(4000):gsub('', ('%0'):rep(1000000)))" },
    -- Each pattern step was a quarter of an instruction, and a call's steps below 1024 were never
    -- charged: these ran 10 to 60 times as long as `while true do end` on the same budget
    -- (gsub of a million %0 was 1.42 s under ASan, the bound 1.25 s)
    { "gsub of a million position captures %1 at each of 4,000 places",
      "return (('a'):rep(4000):gsub('()', ('%1'):rep(1000000)))" },
    { "find of a thousand steps of backtracking, a billion times",
      "local s = ('a'):rep(17) for i = 1, 1e9 do s:find('.-.-.-b') end" },
    { "gmatch of a megabyte's one-character matches, a thousand times",
      "local s = ('a'):rep(1 << 20) for i = 1, 1000 do for w in s:gmatch('a') do end end" },
    { "gsub of a megabyte's characters, a thousand times",
      "local s = ('a'):rep(1 << 20) for i = 1, 1000 do s:gsub('a', 'b') end" },
    { "gsub of a two-byte subject with a replacement of a megabyte, a million times",
      "local r = ('x'):rep(1 << 20) for i = 1, 1e6 do ('ab'):gsub('', r) end" },
    { "gsub of a megabyte that holds no match, a million times",
      "local s = ('a'):rep(1 << 20) for i = 1, 1e6 do s:gsub('b', 'c') end" },
    -- attack on the change: an item that matches once or not at all moved on uncharged (a step
    -- was a call of do_match), so one find with a pattern of 8 million 'b?' ran 27.5 s in one
    -- call, past the budget's time; the pattern's own bytes were read uncharged (its specials
    -- sought, an unclosed set's end), and a set of %d classes cost 20 times its charge
    { "find with a pattern of 8 million optional items, in one call",
      "return (('a'):rep(2000):find(('b?'):rep(8000000) .. 'c'))" },
    { "find with a pattern of 200 optional items, a billion times",
      "local P, s = ('b?'):rep(200) .. 'c', ('a'):rep(1000) for i = 1, 1e9 do s:find(P) end" },
    { "find with a pattern of 100,000 frontiers, a billion times",
      "local P = ('%f[x]'):rep(100000) for i = 1, 1e9 do ('x'):find(P) end" },
    { "find of a plain pattern of 4 MB in an empty subject, a billion times",
      "local P = ('a'):rep(4000000) for i = 1, 1e9 do (''):find(P) end" },
    { "match with an unclosed set of 4 MB, under pcall, a billion times",
      "local P = '[' .. ('a'):rep(4000000) for i = 1, 1e9 do pcall(string.match, 'x', P) end" },
    { "find with a set of 100,000 %d classes, a billion times",
      "local P, s = '[' .. ('%d'):rep(100000) .. ']', ('a'):rep(100000) for i = 1, 1e9 do s:find(P) end" },
    { "string.rep of 200 KB, a million times", "for i = 1, 1e6 do local s = ('ab'):rep(100000) end" },
    -- attack round 3: one 1 MiB message 2,000 times was 6.2 s of C in one call
    { "coax.tokens_chat of one long message many times",
      "local m = { role = 'user', content = string.rep('hello world, ', 80000) } local l = {} "
      .. "for i = 1, 2000 do l[i] = m end return require('coax').tokens_chat(l)" },
  }
  -- CPU times (H.cpu), not the sessions' wall_ms: a spell of load on one
  -- run and not on the baseline's can take the wall time past the bound
  local baseline
  setup(function()
    baseline = H.cpu(function() probe("while true do end") end)
  end)
  for _, c in ipairs(cases) do
    it("stops " .. c[1] .. " as a limit, as soon as a loop in Lua would stop", function()
      local result, r
      local cpu = H.cpu(function() result, r = probe(c[2]) end)
      assert.matches(STOPPED, result)
      assert.are.same({ "limit", "limit" }, { r.outcome, r.error.code })
      -- within a second of the time `while true do end` takes to the same budget
      assert.is_true(cpu < 2 * baseline + 1, ("%.3f s, the baseline %.3f s"):format(cpu, baseline))
    end)
  end

  -- The twins that must still work: each function, used as intended.
  local TWINS = {
    { "string.rep of nothing, 3 times", "return '[' .. string.rep('', 3) .. ']'", "ok: []" },
    { "table.move", "local t = table.move({ 1, 2, 3 }, 1, 3, 2) return table.concat(t, ',')", "ok: 1,1,2,3" },
    { "table.insert in the middle, and appended",
      "local t = { 1, 2, 3 } table.insert(t, 2, 'x') table.insert(t, 'y') return table.concat(t, ',')",
      "ok: 1,x,2,3,y" },
    { "table.insert past the end", "table.insert({ 1 }, 3, 'x')",
      "error: recipe:2: bad argument #2 to 'insert' (position out of bounds)" },
    { "table.remove from the middle, the end, and an empty table",
      "local t = { 1, 2, 3, 4 } local a = table.remove(t, 2) local b = table.remove(t) "
      .. "return a .. b .. table.concat(t, ',') .. tostring(table.remove({}))", "ok: 241,3nil" },
    { "table.remove past the end", "table.remove({ 1 }, 5)",
      "error: recipe:2: bad argument #2 to 'remove' (position out of bounds)" },
    { "table.sort, plain and through metamethods",
      "local t = { 3, 1, 2 } table.sort(t) local p = setmetatable({}, { __index = { 'c', 'a', 'b' }, "
      .. "__len = function() return 3 end }) table.sort(p, function(a, b) return a > b end) "
      .. "return table.concat(t) .. rawget(p, 1) .. rawget(p, 2) .. rawget(p, 3)", "ok: 123cba" },
    { "table.concat and unpack of a range", "return table.concat({ 'a', 'b', 'c' }, '-', 2, 3) .. "
      .. "select('#', table.unpack({ 1, 2, 3 }))", "ok: b-c3" },
    { "load with a reader", "local parts = { 'return ', '4', '2' } local i = 0 "
      .. "return load(function() i = i + 1 return parts[i] end)()", "ok: 42" },
    { "load with a reader that fails", "local f, e = load(function() error('no more', 0) end) return e",
      "ok: no more" },
    { "coax.tokens_chat, and its errors", "local c = require('coax') "
      .. "local m = setmetatable({}, { __index = { role = 'user', content = 'hi there' } }) "
      .. "return c.tokens_chat({ m, { role = 'assistant', content = 'ok', name = 'x' } }) == c.tokens_chat({ "
      .. "{ role = 'user', content = 'hi there' }, { role = 'assistant', content = 'ok', name = 'x' } }) "
      .. "and select(2, pcall(c.tokens_chat, { m, 5 })) .. '|' .. select(2, pcall(c.tokens_chat, { { role = 1 } }))",
      "ok: coax.tokens_chat: message 2 is not a table|coax.tokens_chat: message 1 needs a string 'role'" },
    { "a schema resolver", "local s = require('coax').schema({ ['$ref'] = 'http://example.com/s' }, "
      .. "{ resolver = function() return { type = 'integer' } end }) return tostring(s:validate(1))", "ok: true" },
  }
  for _, c in ipairs(TWINS) do
    it("still runs " .. c[1], function()
      assert.are.equal(c[3], (probe(c[2])))
    end)
  end

  -- A string past Lua's size bound was "resulting string too large", a
  -- script error (exit 5), though it is a memory bound: now a limit, even
  -- under a pcall of the script's; a large string within bounds still works.
  for _, c in ipairs({
    { "('x'):rep(2^40)", "return #('x'):rep(1 << 40)" },
    { "a 99-byte string repeated 2^30 times", "return #string.format('%099d', 1):rep(1 << 30)" },
    { "('ab'):rep(2^31, ',')", "return #('ab'):rep(1 << 31, ',')" },
    -- attack round 3: the size overflowed in integers, and the string was "too large" again
    { "('ab'):rep(2^62, ',')", "return #('ab'):rep(1 << 62, ',')" },
  }) do
    it("ends " .. c[1] .. " as a memory limit, not a script error", function()
      local result, r = probe(c[2])
      assert.are.same({ "limit: recipe: not enough memory", "limit" }, { result, r.outcome })
    end)
  end
  it("still repeats a string within bounds", function()
    assert.are.equal("ok: 3000000", (probe("return #('abc'):rep(1000000)")))
  end)

  -- Regression (attack, finding 11, and its memory twin): a stop unwinds
  -- through the script's __close handlers, and a handler given a thousand
  -- instructions declared more handlers than it ended, or looped after the
  -- memory cap had stopped the script (the hook raised only instruction
  -- stops): the session never ended. Once stopped, a script raises at its
  -- every instruction.
  it("ends a stop whose __close handlers declare more of themselves", function()
    local result, r = probe("local MT = {} local function h() local function rec(n) "
      .. "local x <close> = setmetatable({}, MT) return rec(n + 1) and nil end rec(0) end MT.__close = h "
      .. "local x <close> = setmetatable({}, MT) while true do end")
    assert.matches(STOPPED, result)
    assert.are.equal("limit", r.outcome)
  end)

  it("ends a memory stop whose __close handler loops", function()
    local result, r = probe("local x <close> = setmetatable({}, { __close = function() while true do end end }) "
      .. "local s, t = ('x'):rep(100000), {} for i = 1, 1e9 do t[i] = s .. i end")
    assert.are.same({ "limit: recipe: not enough memory", "limit" }, { result, r.outcome })
  end)

  -- Regression (attack, finding 10): each resume of an agent's coroutine
  -- had a fresh budget, so an agent spending half of it and sleeping 0 in a
  -- loop ran for ever, and a host's e:poll(0) never came back. The call,
  -- over all its resumes, has 16 budgets; a poll returns at its timeout.
  it("ends an agent that sleeps 0 in a loop, and a poll of it returns at its timeout", function()
    local recipe = "local coax = require 'coax' return { schema = " .. SCHEMA .. ", prompt = 'x', agent = { call = "
      .. "function() while true do for i = 1, 5000000 do end coax.sleep(0) end end } }"
    local r = coax.run(recipe, "x", { source = true })
    assert.are.same({ "limit", "agent: script stopped: Lua instruction limit (160000000 over the agent's call and "
      .. "its resumes) reached" }, { r.outcome, r.error.message:match("^[^\n]*") })
    -- a review found the resume restarting the hook's count, so an agent that
    -- yields within every thousand instructions was never counted at all
    local short = "local coax = require 'coax' return { schema = " .. SCHEMA .. ", prompt = 'x', agent = { call = "
      .. "function() for i = 1, 200000 do coax.sleep(0) local x = 0 for j = 1, 200 do x = x + j end end "
      .. "return nil, 'completed' end } }"
    r = coax.run(short, "x", { source = true, lua_instructions = 100000, max_attempts = 1 })
    assert.are.same({ "limit", "agent: script stopped: Lua instruction limit (1600000 over the agent's call and "
      .. "its resumes) reached" }, { r.outcome, r.error.message:match("^[^\n]*") })
    -- an agent that sleeps 0 after a little work: each poll(0) comes back
    -- (after at most 64 passes past its timeout), the session still running
    local e = coax.engine()
    local light = recipe:gsub("5000000", "1000")
    local session = e:session(light, "x", { source = true })
    for _ = 1, 20 do assert.are.equal(1, e:poll(0)) end
    assert.are.equal("running", session:outcome())
    e:close()
  end)

  -- Regression (attack, finding 03): a schema a script compiled validated
  -- with the defaults that grow with the instance, so one s:validate ran
  -- for tens of seconds in C, where the budget is charged only after it
  -- returns (an anyOf of 20,000 consts over 20,000 items: 27.6 s). In the
  -- engine's Lua every schema validates within 1,000,000 steps a call.
  it("bounds one validation a script makes, whatever the instance", function()
    local body = "local coax = require 'coax' local consts, items = {}, {} "
      .. "for i = 1, 20000 do consts[i] = { const = i } items[i] = 20000 end "
      .. "local s = coax.schema({ items = { anyOf = consts } }, { max_steps = 1e12 }) "
      .. "local ok, err, code = s:validate(coax.json.array(items)) return tostring(err) .. ' ' .. code"
    local result, r = probe(body)
    assert.are.equal("ok: validation used up its step budget of 1000000 steps (max_steps) COAX_ELIMIT", result)
    assert.is_true(r.metrics.wall_ms < 5000, r.metrics.wall_ms .. " ms")
    -- a host's own Lua keeps the defaults, and takes the option
    local consts, items = {}, {}
    for i = 1, 300 do consts[i] = { const = i } items[i] = 300 end
    local s = coax.schema({ items = { anyOf = consts } })
    assert.is_true(s:validate(coax.json.array(items)))
    s = coax.schema({ items = { anyOf = consts } }, { max_steps = 1000 })
    assert.are.same({ nil, "validation used up its step budget of 1000 steps (max_steps)", "COAX_ELIMIT" },
      { s:validate(coax.json.array(items)) })
  end)

  -- Regression (attack, finding 04): Lua's parser walked a growing jump
  -- list for each operand of 'a and a and ... a', and a parse runs in C,
  -- uncharged: load of 480 KB took 10 s inside a recipe. The engine's Lua
  -- joins one jump to a list at its head (engine/vendor/lua/src/lcode.c).
  it("parses a long chain of 'and' in linear time", function()
    local body = "local src = 'local a = ... return a' .. string.rep(' and a', %d) "
      .. "local f = assert(load(src)) return tostring(f(1)) .. ' ' .. tostring(f(false))"
    local result
    -- CPU (H.cpu), not the sessions' wall_ms: a spell of load on one run
    -- alone can take the wall times past the bound
    local small = H.cpu(function() probe(body:format(20000)) end)
    local big = H.cpu(function() result = probe(body:format(160000)) end)
    assert.are.equal("ok: 1 false", result)
    -- 8 times the text: linear is 8, the old parse 64
    assert.is_true(big < 24 * small + 0.2, ("%.3f s against %.3f s"):format(big, small))
  end)

  -- Regression (attack, finding 06): what a strategy returns is copied into
  -- C memory, past the Lua memory cap: 200 messages sharing one 8 MiB string
  -- held 8 MiB in Lua and took 3.3 GB. An attempt's messages may take the
  -- cap, a session's four times it.
  it("bounds the C copy of the messages a strategy hands over", function()
    local recipe = "local big = string.rep('A', 8 * 1024 * 1024) return { schema = " .. SCHEMA .. ", prompt = 'x', "
      .. "max_attempts = 2, strategy = function() local m = {} for i = 1, 200 do "
      .. "m[i] = { role = 'user', content = big } end return m end }"
    local r = coax.run(recipe, "x", { source = true, replies = { "no", '{"n": 1}' } })
    assert.are.same({ "limit", "messages: the messages are larger than the Lua memory cap allows (lua_memory: an "
      .. "attempt's may take it, a session's 4 times it)" }, { r.outcome, r.error.message })
    -- the twin: a few large messages fit
    recipe = recipe:gsub("for i = 1, 200 do", "for i = 1, 3 do")
    r = coax.run(recipe, "x", { source = true, replies = { "no", '{"n": 1}' } })
    assert.are.equal("ok", r.outcome)
  end)

  -- Regression (attack round 3): a recipe's stream.atomic pointers are
  -- copied into the session's memory (the host's, past the Lua cap) when it
  -- starts: one 16 MiB pointer listed 60 times grew the host by 1 GB.
  -- Restores 'memory is capped': together they may take the cap.
  it("bounds the C copy of a recipe's stream.atomic pointers", function()
    local recipe = "local p = '/' .. string.rep('a', 16 * 1024 * 1024) local atomic = {} "
      .. "for i = 1, 60 do atomic[i] = p end return { schema = " .. SCHEMA .. ", prompt = 'x', "
      .. "stream = { atomic = atomic } }"
    local r = coax.run(recipe, "x", { source = true, replies = { '{"n": 1}' } })
    assert.are.same({ "limit", "recipe: stream.atomic is larger than the Lua memory cap allows (lua_memory)" },
      { r.outcome, r.error.message })
    -- the twin: a few long pointers fit
    r = coax.run(recipe:gsub("for i = 1, 60 do", "for i = 1, 3 do"), "x", { source = true, replies = { '{"n": 1}' } })
    assert.are.equal("ok", r.outcome)
  end)

  -- Regression (attack round 3): coax.host_request parsed its text in the
  -- host's memory, past the Lua cap, only to check it is JSON: an agent's
  -- 30 MB of "[]," took 550 MB of the host's. Now in the Lua state's memory.
  -- Restores 'memory is capped and counted'.
  it("parses a host request within the Lua memory cap", function()
    local function ask(n)
      local e = coax.engine()
      local s = e:session("local coax = require 'coax' return { schema = " .. SCHEMA .. ", prompt = 'x', "
        .. "agent = { call = function() return coax.host_request('[' .. ('[],'):rep(" .. n .. ") .. '[]]') end } }",
        "x", { source = true })
      s:run()
      local outcome, why = s:outcome(), select(2, s:error())
      e:close()
      return outcome, why
    end
    -- the cap's stop, without a position like every stop (it was the parse's
    -- own "recipe:1: not enough memory" unless a tick came first)
    assert.are.same({ "limit", "agent: not enough memory" }, { ask(10000000) })
    assert.are.same({ "running" }, { ask(1000) }) -- the twin: the session waits for its host's reply
  end)

  it("refuses __gc finalizers, which Lua runs with the count hook off", function()
    assert.are.equal("error: recipe:2: setmetatable: __gc finalizers are not available to scripts",
      (probe("setmetatable({}, { __gc = function() while true do end end })")))
  end)

  it("never runs a __gc set after setmetatable, so freeing the engine cannot hang", function()
    -- the engine and its session are garbage once this returns
    local function run_once()
      local e = coax.engine()
      local s = e:session("local mt = {} _ENV.keep = setmetatable({}, mt) mt.__gc = function() while true do end end "
        .. "return { schema = { type = 'integer' }, prompt = 'x' }", "x",
        { source = true, replies = { "1" } })
      while e:poll(10) > 0 do end
      return s:report().outcome
    end
    assert.are.equal("ok", run_once())
    local t0 = os.clock()
    collectgarbage()
    collectgarbage()
    assert.is_true(os.clock() - t0 < 5)
  end)

  it("bounds coax.example whatever max_steps a script gives it (one call in C, its checks max_steps x 500)", function()
    -- 40 $defs, each an anyOf of the next one twice, the last a string
    -- no instance meets: 2^40 branches to try. A script's max_steps of
    -- 1,280,000 ran 36.7 s in one call, before any instruction was charged
    -- (2^50: hours); it is held to the default, 20,000, as a script's
    -- schemas are held to 1,000,000 validation steps.
    local body = "local defs = {} for i = 0, 39 do defs['d' .. i] = { anyOf = { { ['$ref'] = '#/$defs/d' .. (i + 1) }, "
      .. "{ ['$ref'] = '#/$defs/d' .. (i + 1) } } } end "
      .. "defs.d40 = { type = 'string', pattern = '^a$', minLength = 2 } "
      .. "local v, e = require('coax').example({ ['$defs'] = defs, ['$ref'] = '#/$defs/d0' }, { max_steps = 1000000 }) "
      .. "return tostring(v) .. ' ' .. e"
    local got
    local cpu = H.best_cpu(function() got = probe(body) end)
    assert.are.equal("ok: nil validation used up its step budget of 10000000 steps (the example's max_steps x 500)",
      got)
    assert.is_true(cpu < 5, cpu .. " s")
  end)
end)

describe("the tables every session shares", function()
  -- Every function a script can reach, called with every shared table in
  -- each argument position: afterwards every shared table is still
  -- read-only and holds what it held, and a second session runs as on a
  -- fresh engine. coax.json.array and coax.json.object replaced the
  -- metatable of any table (string, _G, coax, coax.http) regardless of
  -- __metatable, and a recipe then rewrote string.format for everyone.
  local ATTACK = [=[
local shared, functions, seen = {}, {}, {}
local function walk(t, path)
  if seen[t] then return end
  seen[t] = true
  if getmetatable(t) == "read-only" then shared[#shared + 1] = { path, t } end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local v = t[k]
    if type(v) == "table" then walk(v, path .. "." .. tostring(k))
    elseif type(v) == "function" then functions[#functions + 1] = { path .. "." .. tostring(k), v } end
  end
end
walk(_G, "_G")
walk(require("coax"), "coax")
local SKIP = { ["_G.coroutine.yield"] = true, ["_G.coroutine.wrap"] = true }
local function snapshot()
  local out = {}
  for _, s in ipairs(shared) do
    local keys = {}
    for k, v in pairs(s[2]) do keys[#keys + 1] = tostring(k) .. "=" .. tostring(v) end
    table.sort(keys)
    out[#out + 1] = s[1] .. "{" .. table.concat(keys, ",") .. "}" .. tostring(getmetatable(s[2]))
  end
  return table.concat(out, "\n")
end
local before = snapshot()
local calls = 0
for _, f in ipairs(functions) do
  if not SKIP[f[1]] then
    for _, s in ipairs(shared) do
      for pos = 1, 3 do
        local args = { "k", "v", 1 }
        args[pos] = s[2]
        pcall(f[2], args[1], args[2], args[3])
        calls = calls + 1
      end
      pcall(f[2], s[2], s[2], s[2])
      calls = calls + 1
    end
  end
end
local writable = {}
for _, s in ipairs(shared) do
  if pcall(function() s[2].pwned = true end) or pcall(rawset, s[2], "pwned", true)
    or pcall(setmetatable, s[2], nil) then writable[#writable + 1] = s[1] end
end
local after = snapshot()
return { schema = { type = "integer" }, prompt = #functions .. " functions, " .. #shared .. " shared tables, "
  .. calls .. " calls; writable: " .. table.concat(writable, ",") .. "; changed: " .. tostring(before ~= after) }
]=]

  local VICTIM = [=[
local coax = require("coax")
local function check()
  local arr = coax.json.decode("[1]")
  return table.concat({ string.format("%d", 7), tostring(1), coax.json.encode({ 1 }), tostring(arr[2]),
    coax.json.encode(coax.json.array({})), coax.json.encode(coax.json.object({})), ("ab"):rep(2),
    tostring(pcall(error)), type(coax.http.request), getmetatable("").__index and "index" or "locked" }, " ")
end
return { schema = { type = "object", properties = { n = { type = "integer" } }, required = { "n" } },
  prompt = function(input) return check() .. " " .. input end }]=]

  local function victim(e)
    local s = e:session(VICTIM, "secret input", { source = true, replies = { "no JSON", '{"n": 1}' } })
    while e:poll(10) > 0 do end
    local r = s:report()
    return r.outcome, r.attempts[1].messages[1].content:match("^[^\n]*"), r.value
  end

  it("stay read-only and unchanged whatever function a script hands them to", function()
    local e = coax.engine()
    local s = e:session(ATTACK, "x", { source = true, replies = { "1" } })
    while e:poll(10) > 0 do end
    local r = s:report()
    assert.are.equal("ok", r.outcome, json.encode(r.error))
    local text = r.attempts[1].messages[1].content:match("^[^\n]*")
    local nf, ns = text:match("^(%d+) functions, (%d+) shared tables")
    assert.is_true(tonumber(nf) > 100, text)
    assert.is_true(tonumber(ns) >= 10, text)
    assert.matches("; writable: ; changed: false$", text)

    local outcome, prompt, value = victim(e)
    local fresh = { victim(coax.engine()) }
    assert.are.same(fresh, { outcome, prompt, value })
    assert.are.equal("7 1 [1] nil [] {} abab false function locked secret input", prompt)
    assert.are.same({ n = 1 }, value)
  end)

  for _, c in ipairs({
    { "string", "string" }, { "_G", "_G" }, { "coax", "require('coax')" }, { "coax.http", "require('coax').http" },
    { "coax.json", "require('coax').json" }, { "table", "table" },
  }) do
    it("refuse to be marked as JSON: " .. c[1], function()
      assert.are.equal("error: recipe:2: coax.json.array: the table has a metatable of its own "
        .. "(only a plain table can be marked)", (probe("require('coax').json.array(" .. c[2] .. ")")))
      assert.are.equal("error: recipe:2: coax.json.object: the table has a metatable of its own "
        .. "(only a plain table can be marked)", (probe("require('coax').json.object(" .. c[2] .. ")")))
      assert.are.equal("error: recipe:2: coax.json.object: the table has a metatable of its own "
        .. "(only a plain table can be marked)", (probe("require('coax').json.object(" .. c[2] .. ", {})")))
    end)
  end

  it("a plain table, or a marked one, is still marked", function()
    assert.are.equal("ok: [] {} {} [] [1]", (probe("local j = require('coax').json "
      .. "local a, o = j.array({}), j.object({}) return j.encode(a) .. ' ' .. j.encode(o) .. ' ' .. "
      .. "j.encode(j.object(a)) .. ' ' .. j.encode(j.array(o)) .. ' ' .. j.encode(j.array(j.decode('[1]')))")))
    assert.are.equal("error: recipe:2: coax.json.array: the table has a metatable of its own "
      .. "(only a plain table can be marked)", (probe("require('coax').json.array(setmetatable({}, {}))")))
  end)
end)

describe("memory running out where C pushes values", function()
  -- 1.5 million {} in a valid 4.5 MB reply: the value handed to the
  -- recipe did not fit the Lua memory cap, outside any protected call, and
  -- Lua's panic aborted the host (and every --resume of the batch).
  local BIG = "[" .. string.rep("{},", 1500000) .. "{}]"

  it("ends the session with limit, never in abort: 1.5 million {} against {type = 'array'}", function()
    local r = coax.run("return { schema = { type = 'array' }, prompt = 'x' }", "x",
      { source = true, replies = { BIG } })
    assert.are.same({ "limit", "limit", "on_submit: not enough memory" },
      { r.outcome, r.error.code, r.error.message:match("^[^\n]*") })
  end)

  it("in a strategy too: the same reply against a schema it fails, handed to the recipe's strategy", function()
    local r = coax.run("return { schema = { type = 'array', maxItems = 1 }, prompt = 'x', "
      .. "strategy = function(ctx) return { { role = 'user', content = 'again' } } end }", "x",
      { source = true, replies = { BIG, "[]" } })
    assert.are.same({ "limit", "limit", "strategy: not enough memory" },
      { r.outcome, r.error.code, r.error.message:match("^[^\n]*") })
    -- the built-in strategies read the submission's text, written in C, and
    -- never the value as a Lua table: the 9 MB feedback fits, the next reply wins
    r = coax.run("return { schema = { type = 'array', maxItems = 1 }, prompt = 'x' }", "x",
      { source = true, replies = { BIG, "[]" } })
    assert.are.same({ "ok", 2, "invalid", 9000213 },
      { r.outcome, #r.attempts, r.attempts[1].outcome, #r.attempts[1].feedback })
  end)

  it("through coax batch: that line ends with limit, the lines around it ok, exit 1", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. H.quote(dir)))
    local f = assert(io.open(dir .. "/recipe.lua", "wb"))
    f:write("return { schema = { type = 'array' }, prompt = 'x {{input}}' }")
    f:close()
    local lines = {}
    for i, reply in ipairs({ "[1]", BIG, "[3]" }) do
      lines[i] = json.encode({ id = tostring(i), input = "x", replies = { reply } })
    end
    local out, _, code = H.coax({ "batch", dir .. "/recipe.lua", "--replies-field", "replies", "--quiet" },
      table.concat(lines, "\n") .. "\n")
    os.execute("rm -rf " .. H.quote(dir))
    local outcomes = {}
    for line in out:gmatch("[^\n]+") do
      local v = json.decode(line)
      outcomes[#outcomes + 1] = v.id .. "=" .. v.outcome
    end
    assert.are.same({ "1=ok", "2=limit", "3=ok" }, outcomes)
    assert.are.equal(1, code)
  end)
end)

describe("memory C functions hold for a script (lua-cjson's buffers)", function()
  -- lua-cjson built its text with malloc, outside the engine's allocator
  -- and the memory cap, and exit(-1)ed the host when malloc failed: a 1 MB
  -- string 4,000 times in one table, cjson.encode'd, grew the host to the
  -- address space's end and ended it ("Out of memory", status 255). An
  -- error past the call (the cap, when its result was pushed) leaked the
  -- buffer: 60 MB a session. Its buffers come from the Lua state's
  -- allocator now, owned by a userdata while a call runs.
  it("count against the cap: one string 4,000 times in cjson.encode is a limit, not the host's end", function()
    assert.are.equal("limit: recipe: not enough memory", (probe(
      "local s = string.rep('x', 1000000) local t = {} for i = 1, 4000 do t[i] = s end "
      .. "return #require('cjson').encode(t)")))
  end)

  it("count while kept: 12 instances each keeping an encode buffer of 8 MB pass a 32 MiB cap", function()
    local body = "local s = string.rep('x', 1000000) local keep = {} for i = 1, %d do "
      .. "keep[i] = require('cjson') local n = #keep[i].encode(s) end return #keep"
    assert.are.equal("ok: 2", (probe(body:format(2), { lua_memory = 32 << 20 })))
    assert.are.equal("limit: recipe: not enough memory", (probe(body:format(12), { lua_memory = 32 << 20 })))
  end)

  it("still encode and decode as lua-cjson does, its errors included", function()
    assert.are.equal([[ok: ["x\u0000",1.5]|{"a":[1,2]}|A|Expected value but found T_END at character 4]],
      (probe([[local c = require('cjson') local kept = c.encode({ 'x\0', 1.5 })
        c.encode_keep_buffer(false)
        return kept .. '|' .. c.encode({ a = { 1, 2 } }) .. '|' .. c.decode('[1,"\\u0041"]')[2] .. '|'
          .. select(2, pcall(c.decode, '[1,'))]])))
  end)
end)

describe("tables a script hands C that repeat a table", function()
  -- No depth limit sees a table holding the same table twice, 60 levels
  -- down: 2^60 nodes. Converted into the session's memory (the host's, past
  -- the Lua cap), a recipe's schema grew the host to 8 GB in 100 s, and a
  -- strategy's message to 2 GB before the messages' bound was checked.
  local DAG = "local dag = { 1 } for i = 1, 60 do dag = { dag, dag } end "
  it("end within the Lua memory cap: as a recipe's schema", function()
    local r = coax.run(DAG .. "return { schema = dag, prompt = 'x' }", "x", { source = true, replies = { "{}" } })
    assert.are.same({ "invalid", "recipe schema: COAX_ESIZE: the value is larger than the limit of 67108864 bytes" },
      { r.outcome, r.error.message:match("^[^\n]*") })
  end)

  it("end within the Lua memory cap: in a strategy's message", function()
    local r = coax.run(DAG .. "return { schema = { type = 'integer' }, prompt = 'x', strategy = function() "
      .. "return { { role = 'user', content = 'x', extra = dag } } end }", "x",
      { source = true, replies = { "no", "1" } })
    assert.are.same({ "limit", "messages: COAX_ESIZE: the value is larger than the limit of 67108864 bytes" },
      { r.outcome, r.error.message:match("^[^\n]*") })
  end)
end)
