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

