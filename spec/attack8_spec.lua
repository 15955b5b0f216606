--- Attack round 8: the second promise (a recipe or a reply never hurts its
-- host) against work no budget saw, each hole with its input and the twins
-- that must keep working. Work is compared at n and a multiple of n, never
-- against a clock.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

-- Lua text whose names are looked up through `depth` nested functions of
-- 199 locals each: the parser scans every level's locals (and upvalues) for
-- each name, so each `y=y` costs `depth` x 199 x 2 comparisons.
local function nested(depth, uses)
  local locals = {}
  for i = 1, 199 do locals[i] = "v" .. i end
  local level = "local " .. table.concat(locals, ",") .. " local function f() "
  return level:rep(depth) .. ("y=y "):rep(uses) .. (" end "):rep(depth)
end

local STOPPED = "recipe: script stopped: Lua instruction limit (1000000) reached"

describe("attack 8: the parser's work is charged to the instruction budget", function()
  -- A parse is one call in C, and the count hook never ran inside it: 1.7
  -- MB of such names took 11.5 s in one `load` from a recipe (and as the
  -- recipe's own text), where no instruction was counted; 14 MB fit the
  -- 64 MiB cap. The count hook now runs every 1,024 tokens a parse reads
  -- (engine/vendor/lua/src/llex.c) and charges its time, so the parse stops
  -- with the budget, in its own time whatever the text's length.
  local LOAD = "local f, e = load(%q .. (%q):rep(%d) .. %q) "
  local function load_recipe(uses)
    local src = nested(190, 0)
    local head, tail = src:sub(1, #src - 190 * 5), (" end "):rep(190)
    return LOAD:format(head, "y=y ", uses, tail) .. "return { schema = {}, prompt = tostring(e) }"
  end
  local function recipe_text(uses) return nested(190, uses) .. " return { schema = {}, prompt = 'x' }" end

  for _, c in ipairs({ { "in a chunk a recipe loads", load_recipe }, { "in the recipe's own text", recipe_text } }) do
    it("stops at the limit " .. c[1] .. ", in the same work at 4 times the text", function()
      local r
      local ratio = H.scaling_ratio(function(n)
        r = coax.run(c[2](n), "x", { source = true, replies = { "{}" }, lua_instructions = 1000000 })
      end, 100000, 4)
      assert.are.same({ "limit", "limit", STOPPED }, { r.outcome, r.error.code, (r.error.message:gsub("\n.*", "")) })
      assert.is_true(ratio < 2, ("ratio %.1f"):format(ratio))
    end)
  end

  it("twins: the same shapes small, a flat megabyte, and syntax errors are what they were", function()
    local r = coax.run(load_recipe(1000), "x", { source = true, replies = { "{}" } })
    assert.are.same({ "ok", "nil" }, { r.outcome, r.attempts[1].messages[1].content:match("^[^\n]*") })
    r = coax.run(recipe_text(1000), "x", { source = true, replies = { "{}" } })
    assert.are.equal("ok", r.outcome)
    -- 300,000 tokens at the default budget: parsed, run, its value exact
    r = coax.run("local f = load('local x = 0 ' .. ('x = x + 1 '):rep(60000) .. 'return x') "
      .. "return { schema = {}, prompt = tostring(f()) }", "x", { source = true, replies = { "{}" } })
    assert.are.same({ "ok", "60000" }, { r.outcome, r.attempts[1].messages[1].content:match("^[^\n]*") })
    r = coax.run("local f, e = load(('x = 1 '):rep(1000) .. 'x = ') return { schema = {}, prompt = e }", "x",
      { source = true, replies = { "{}" } })
    assert.are.same({ "ok", '[string "x = 1 x = 1 x = 1 x = 1 x = 1 x = 1 x = 1 x =..."]:1: '
      .. "unexpected symbol near <eof>" }, { r.outcome, r.attempts[1].messages[1].content:match("^[^\n]*") })
    r = coax.run(("x = 1 "):rep(1000) .. "x = ", "x", { source = true, replies = { "{}" } })
    assert.are.same({ "invalid", "invalid_recipe", "recipe:1: unexpected symbol near <eof>" },
      { r.outcome, r.error.code, r.error.message })
  end)
end)

describe("attack 8: the texts of an attempt's messages are read within the memory cap", function()
  -- Before a call, every message's text not weighed by the last call was
  -- hashed for the token estimate's cache; the cap on what an attempt adds
  -- (lua_memory bytes of JSON) was applied after, when the messages were
  -- recorded. One long text a strategy listed many times was hashed each
  -- time: 2^20 times 64 KiB, 64 GB read in one step, 6.2 s (16 MiB texts:
  -- hours). The hashing now stops where the record would refuse.
  local TOO_MANY = "return { schema = { type = 'integer' }, prompt = 'x', strategy = function() "
    .. "local m = { role = 'user', content = ('x'):rep(%d) } local t = {} for i = 1, %d do t[i] = m end return t end }"
  local OVER = "messages: the messages are larger than the Lua memory cap allows (lua_memory: an attempt's may take "
    .. "it, a session's 4 times it)"

  it("a 1 MiB text listed 1,024 and 4,096 times stops at the cap in the same work", function()
    local r
    local ratio = H.scaling_ratio(function(n)
      r = coax.run(TOO_MANY:format(1 << 20, n), "x", { source = true, replies = { "no", "1" }, lua_memory = 16 << 20 })
    end, 1024, 4)
    assert.are.same({ "limit", "limit", OVER }, { r.outcome, r.error.code, r.error.message })
    assert.are.equal(1, #r.attempts)
    assert.is_true(ratio < 2, ("ratio %.1f"):format(ratio))
  end)

  it("twins: a short text listed 4,096 times and a 1 MiB one 8 times are sent; a 2 MiB prompt carried on", function()
    local AGENT = "prompt = 'x', agent = { call = function(req) return { text = 'n=' .. #req.messages } end },"
    for _, c in ipairs({ { 16, 4096 }, { 1 << 20, 8 } }) do
      local r = coax.run(TOO_MANY:format(c[1], c[2]):gsub("prompt = 'x',", AGENT), "x",
        { source = true, lua_memory = 16 << 20 })
      assert.are.same({ "exhausted", "n=1", "n=" .. c[2] }, { r.outcome, r.attempts[1].reply, r.attempts[2].reply })
    end
    -- each call's messages hold the prompt; the calls after the first have weighed it
    local r = coax.run("return { schema = { type = 'integer' }, prompt = ('p'):rep(2 << 20) }", "x",
      { source = true, replies = { "no", "no", "7" }, lua_memory = 16 << 20 })
    assert.are.same({ "ok", 7, 3 }, { r.outcome, r.value, #r.attempts })
    r = coax.run("return { schema = { type = 'integer' }, prompt = 'x', budget = { tokens = 60 }, "
      .. "strategy = function() return { { role = 'user', content = ('word '):rep(40) } } end }", "x",
      { source = true, replies = { "no", "1" } })
    assert.are.same({ "limit", "token budget of 60 would be passed (22 used, 46 more for this call)" },
      { r.outcome, r.error.message })
  end)
end)

describe("attack 8: a C function's time is charged when it returns", function()
  -- Time in C was charged at the count hook, every 1,000 instructions, and
  -- a loop of four instructions holds 250 calls: string.format("%q") of 8
  -- MB (130 ms a call) ran 33.8 s, coax.tokens of 16 MB 5.5 s, on a budget
  -- whose time is 2.5 s. The hook now runs too as a C function returns
  -- once a coarse clock moved (engine/vendor/lua/src/ldo.c), so the loop
  -- stops within a call of its budget, whatever each call costs.
  local LOOP = "local s = ('\\1'):rep(%d) local f = string.format for i = 1, 1e9 do local t = f('%%q', s) end "
    .. "return { schema = {}, prompt = 'x' }"

  -- 250 calls of 1 MB took 4 s before the first count at any budget, of
  -- 256 KB 1 s; now each stops within a call of the budget's 0.25 s
  it("a loop of string.format('%q') on 256 KB and on 1 MB stops at the limit in the same work", function()
    local r
    local ratio = H.scaling_ratio(function(n)
      r = coax.run(LOOP:format(n), "x", { source = true, replies = { "{}" }, lua_instructions = 1000000 })
    end, 1 << 18, 4)
    assert.are.same({ "limit", "limit", STOPPED }, { r.outcome, r.error.code, (r.error.message:gsub("\n.*", "")) })
    assert.is_true(ratio < 2, ("ratio %.1f"):format(ratio))
  end)

  it("twins: 600,000 cheap C calls run within the default budget, their results exact", function()
    local r = coax.run("local s, n = 'hello world', 0 for i = 1, 2e5 do n = n + #s:sub(2, 5) + select('#', i, i) "
      .. "+ #tostring(i) end return { schema = {}, prompt = tostring(n) }", "x", { source = true, replies = { "{}" } })
    assert.are.same({ "ok", "2288895" }, { r.outcome, r.attempts[1].messages[1].content:match("^[^\n]*") })
    -- a formatting loop that ends: its value exact
    r = coax.run("local n = 0 for i = 1, 100 do n = n + #string.format('%q', ('\\1'):rep(1000)) end "
      .. "return { schema = {}, prompt = tostring(n) }", "x", { source = true, replies = { "{}" } })
    assert.are.same({ "ok", "200200" }, { r.outcome, r.attempts[1].messages[1].content:match("^[^\n]*") })
  end)

  it("twin: the engine's own C work (reading a 6 MB reply) is not a script's, whatever its budget", function()
    local r = coax.run("return { schema = { type = 'array' }, prompt = 'x' }", "x",
      { source = true, replies = { "[" .. ("1,"):rep(3 << 20) .. "1]" }, lua_instructions = 100000 })
    assert.are.same({ "ok", (3 << 20) + 1 }, { r.outcome, #r.value })
  end)
end)
