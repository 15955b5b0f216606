--- Attack round 16: the promise "a recipe or a reply never hurts its host", against one session
-- seeing or steering another of the same engine. The sessions of an engine share its one Lua state
-- and its thread: what one script can read that another's work changes is a channel between them.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

local ended = H.ended

-- An agent that reads os.clock, sleeps while the other sessions run, and reads it again: its
-- reply is the difference, in microseconds.
local SPY = [==[
local coax = require 'coax'
return { schema = { type = 'integer' }, prompt = 'p', agent = { call = function()
  local t0 = os.clock()
  coax.sleep(50)
  return { text = tostring(math.floor((os.clock() - t0) * 1e6)) }
end } }
]==]

-- An agent that works for %d iterations and replies with the time os.clock saw it take, in
-- microseconds.
local BUSY = [==[
return { schema = { type = 'integer' }, prompt = 'p', agent = { call = function()
  local t0, x = os.clock(), 0
  for i = 1, %d do x = x ~ i end
  return { text = tostring(math.floor((os.clock() - t0) * 1e6)) }
end } }
]==]

local function value_of(s)
  local r = s:report()
  return r.outcome == "ok" and r.value or r.outcome
end

describe("attack 16: os.clock tells a session nothing of the others' time", function()
  -- os.clock was the process's CPU time: a session that slept while another worked saw that
  -- work's time as its own clock's, 500,000 iterations of a loop (about 14 ms) across a sleep of
  -- 50 ms in which its own script ran no instruction, so a recipe could time what the others of
  -- its engine do (how long their replies take to check, how large they are). os.clock is now the
  -- CPU time the session's own scripts have spent (engine/script/vm.c's l_clock): the spy's clock
  -- moves by the few microseconds of its own resume.
  it("a session asleep beside one that works for 500,000 iterations sees less than a tenth of it", function()
    local e = coax.engine()
    local spy = e:session(SPY, "x", { source = true })
    e:poll(0) -- the spy reads its clock and sleeps
    local busy = e:session(BUSY:format(500000), "x", { source = true })
    while e:poll(50) > 0 do end
    local spied, worked = value_of(spy), value_of(busy)
    e:close()
    assert.are.equal("integer", math.type(spied))
    assert.is_true(worked > 0, "busy " .. tostring(worked))
    assert.is_true(spied * 10 < worked, ("the spy saw %s us of the other's %s us"):format(spied, worked))
  end)

  it("a session made after another worked starts its clock near 0", function()
    local e = coax.engine()
    local busy = e:session(BUSY:format(500000), "x", { source = true })
    while e:poll(50) > 0 do end
    local fresh = e:session("return { schema = {}, prompt = tostring(math.floor(os.clock() * 1e6)) }", "x",
      { source = true, replies = { "{}" } })
    while e:poll(0) > 0 do end
    local worked, r = value_of(busy), fresh:report()
    e:close()
    local first = tonumber(r.attempts[1].messages[#r.attempts[1].messages].content:match("^%d+"))
    assert.is_true(first * 10 < worked, ("the new session's clock began at %s us, the other worked %s us"):format(
      first, worked))
  end)

  -- Twins: a session's own clock still runs with its own work, within a call and across its calls
  -- (the recipe's run and its agent's call add to one clock), and never goes back.
  it("a session's clock counts its own work, the recipe's and its agent's", function()
    local r = H.run_source([==[
      local x = 0
      local t0 = os.clock()
      for i = 1, 300000 do x = x ~ i end
      local t1 = os.clock()
      return { schema = { type = 'string' }, prompt = 'p', agent = { call = function()
        local t2 = os.clock()
        for i = 1, 300000 do x = x ~ i end
        local t3 = os.clock()
        return { text = ('"%s %s %s %s"'):format(math.type(t0), t0 < t1, t1 <= t2, t2 < t3) }
      end } }]==])
    assert.are.same({ "ok", nil, nil }, ended(r))
    assert.are.equal("float true true true", r.value)
  end)
end)
