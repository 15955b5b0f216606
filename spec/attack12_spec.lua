--- Attack round 12: a recipe or a reply never hurts its host, seen from the host's side: what one call
-- of the host's frame (e:poll(0)) may cost. (The host's allocator: spec/c/test_attack12.c.)
require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

-- A recipe whose agent answers at once, never right, under max_attempts = n.
local function answering_at_once(n)
  return "return { schema = { type = 'integer' }, prompt = 'p', max_attempts = " .. n
    .. ", agent = { call = function(request) return { text = 'no' } end } }"
end

-- The attempts the first e:poll(0) starts, and the polls the session then takes to end.
local function first_poll(n)
  local e = coax.engine()
  local started = 0
  local s = e:session(answering_at_once(n), "x", { source = true, on_event = function(name)
    if name == "attempt_start" then started = started + 1 end
  end })
  local left = e:poll(0)
  local in_first, polls = started, 1
  while left > 0 do
    left = e:poll(0)
    polls = polls + 1
  end
  local report = s:report()
  e:close()
  return in_first, polls, report.outcome, #report.attempts
end

describe("attack 12: one poll of the host's frame", function()
  -- A session stepped through its attempts without returning while its agent answered without
  -- yielding: one e:poll(0) ran all max_attempts of them, a number the recipe chose (1,600 attempts:
  -- 1.6 s in one poll, 400: 79 ms, 100: 6 ms). A step now starts one agent call at most; a poll
  -- takes the next attempt while its timeout lasts, and past it 64 passes in all.
  it("starts at most 64 attempts, whatever the recipe's max_attempts", function()
    assert.are.same({ 64, 4, "exhausted", 200 }, { first_poll(200) })
    assert.are.same({ 64, 13, "exhausted", 800 }, { first_poll(800) })
  end)

  it("still runs a short session in one poll, and coax.run runs it to its end", function()
    assert.are.same({ 3, 1, "exhausted", 3 }, { first_poll(3) })
    local r = coax.run(answering_at_once(100), "x", { source = true })
    assert.are.equal("exhausted", r.outcome)
    assert.are.equal(100, #r.attempts)
  end)
end)

describe("attack 12: sessions of one engine share its Lua memory", function()
  -- A recipe that holds 14 MiB while its agent sleeps (within a cap of 16 MiB) left a second session
  -- of the same engine, whose recipe carries a 3 MiB reply, without memory: it ended with
  -- "recipe: not enough memory", as if its own recipe were past the cap. lua_memory caps the engine's
  -- one Lua state, whatever session allocates; the victim's report now says so, and where to go.
  local HOG = "local coax = require 'coax' return { schema = { type = 'integer' }, prompt = 'p',"
    .. " agent = { call = function(request) local t = {}"
    .. " for i = 1, 14 do t[i] = string.rep(string.char(64 + i), 2^20) end"
    .. " coax.sleep(200) return { text = tostring(#t) } end } }"
  local VICTIM = "return { schema = { type = 'object' }, prompt = 'p', agent = { name = 'replay',"
    .. " replies = { '{\"a\": \"" .. ("x"):rep(3 * 2 ^ 20) .. "\"}' } } }"

  local function victim_beside(hog)
    local e = coax.engine({ lua_memory = 16 * 2 ^ 20 })
    local h = hog and e:session(HOG, "x", { source = true })
    e:poll(0) -- the hog's agent holds its memory and sleeps
    local v = e:session(VICTIM, "x", { source = true })
    while e:poll(50) > 0 do end
    local got = { v:outcome(), v:error() }
    if h then got[#got + 1] = h:outcome() end
    e:close()
    return got
  end

  it("a session starved by another's memory is told the cap is the engine's", function()
    assert.are.same({ "limit", "limit", "recipe: not enough memory (lua_memory, 16777216 bytes, is the engine's "
      .. "whole Lua state, shared with 1 other session running: recipes that must not starve each other need an "
      .. "engine each)", "ok" }, victim_beside(true))
  end)

  it("the same recipe alone in its engine runs", function()
    assert.are.same({ "ok" }, victim_beside(false))
  end)
end)

describe("attack 12: token counts the host or a provider reports", function()
  -- The session summed reported usage in 64 bits that wrapped: three replies each said to cost
  -- 2^63 - 1 input tokens made the report's total 9223372036854775805, and one said to cost 2^63 - 1
  -- input and output tokens each let a budget of 1,000,000 pass (2^64 - 2 used, plus the next call,
  -- wrapped to a few hundred). The sums
  -- now stop at 2^64 - 1 (the report's total: at least that many), and the budget sees them.
  local function session(budget, output_tokens)
    local e = coax.engine()
    local s = e:session("return { schema = { type = 'integer' }, prompt = 'p', agent = 'host', max_attempts = 3"
      .. (budget and ", budget = { tokens = " .. budget .. " }" or "") .. " }", "x", { source = true })
    for _ = 1, 3 do
      e:poll(0)
      if s:outcome() ~= "running" then break end
      assert.is_true(s:host_reply("no", { input_tokens = math.maxinteger, output_tokens = output_tokens }))
    end
    e:poll(0)
    local r = s:report()
    e:close()
    return r
  end

  it("a budget is not passed by sums that wrap", function()
    local r = session(1000000, math.maxinteger)
    assert.are.equal("tokens", r.error.code)
    assert.are.equal(1, #r.attempts)
    assert.matches("^token budget of 1000000 would be passed %(18446744073709551614 used, %d+ more for this call%)$",
      r.error.message)
  end)

  it("the report's totals stop at 2^64 - 1", function()
    local r = session(nil, 1)
    assert.are.equal("exhausted", r.error.code)
    assert.are.equal(3, #r.attempts)
    assert.are.equal(math.maxinteger, r.attempts[3].usage.input_tokens)
    assert.are.equal("18446744073709551615", tostring(r.metrics.input_tokens)) -- a number past Lua's integers
    assert.are.equal(3, r.metrics.output_tokens)
  end)
end)

describe("attack 12: a recipe's max_attempts is a C int", function()
  -- The session kept max_attempts in a C int, cast from whatever the recipe wrote: 2^31 ended after one
  -- attempt saying "-2147483648 attempts used up", 2^32 + 2 gave two attempts, 1e300 and 2^53 "0
  -- attempts used up". Past 2^31 - 1 the recipe is now invalid, as a fraction or 0 was.
  local function run(max_attempts)
    local r = coax.run("return { schema = { type = 'integer' }, prompt = 'p', max_attempts = " .. max_attempts
      .. ", agent = { name = 'replay', replies = { 'no', '3' } } }", "x", { source = true })
    return { r.outcome, #r.attempts, r.error ~= coax.null and r.error.message or nil }
  end
  local REFUSED = "recipe field 'max_attempts' must be a positive integer of at most 2147483647"

  it("refuses what the C int cannot hold", function()
    for _, m in ipairs { "2^31", "2^32 + 2", "2^53", "1e300", "math.maxinteger", "math.huge" } do
      assert.are.same({ "invalid", 0, REFUSED }, run(m))
    end
    assert.are.same({ "invalid", 0, REFUSED }, run("0"))
    assert.are.same({ "invalid", 0, REFUSED }, run("2.5"))
  end)

  it("takes every count it can hold", function()
    assert.are.same({ "ok", 2 }, run("2147483647"))
    assert.are.same({ "ok", 2 }, run("2^31 - 1"))
    assert.are.same({ "exhausted", 1, "1 attempt used up; the last failed: no JSON value found in 2 bytes of text" },
      run("1"))
  end)
end)

describe("attack 12: an agent's retries are a C int", function()
  -- An agent's reply table says how many transport retries it took; the session cast the count to a C
  -- int, so 2^32 + 1 was reported as 1 retry. A count past the int is now not said, as a negative one.
  local function retries(n)
    local r = coax.run("return { schema = { type = 'integer' }, prompt = 'p', agent = { call = function()"
      .. " return { text = '3', retries = " .. n .. " } end } }", "x", { source = true })
    return r.attempts[1].retries
  end

  it("reports the count it can hold, and no other", function()
    assert.are.equal(2, retries("2"))
    assert.are.equal(2147483647, retries("2147483647"))
    assert.is_nil(retries("2^32 + 1"))
    assert.is_nil(retries("math.maxinteger"))
    assert.is_nil(retries("-1"))
  end)
end)

describe("attack 12: an input past lua_memory", function()
  -- A session's input is a Lua string within the engine's memory cap, as its recipe's text is; an input
  -- past the cap ended the session "recipe: not enough memory", blaming the recipe, where a recipe's text
  -- past it is COAX_ESIZE when the session is made. The input is now refused the same way.
  local RECIPE = "return { schema = { type = 'integer' }, prompt = 'p {{input}}', agent = { name = 'replay',"
    .. " replies = { '3' } } }"

  it("is refused when the session is made", function()
    local e = coax.engine({ lua_memory = 16 * 2 ^ 20 })
    assert.are.same({ nil, "the input is larger than the limit of 16777216 bytes (lua_memory)", "COAX_ESIZE" },
      { e:session(RECIPE, ("x"):rep(16 * 2 ^ 20 + 1), { source = true }) })
    local s = e:session(RECIPE, ("x"):rep(2 * 2 ^ 20), { source = true }) -- the prompt holds it more than once
    assert.are.equal("ok", s:run())
    e:close()
  end)
end)

