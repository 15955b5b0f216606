--- Attack round 24: the second promise (a recipe or a reply never hurts its host), against what the
-- earlier rounds left: what one call of the host's frame costs when every script call of a recipe stays
-- within its budget.
require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

-- ---- one poll past its timeout ----------------------------------------------------------------------
-- Round 12 bounded a poll by passes: past its timeout a poll takes the steps due at once, 64 passes at
-- most, and a pass starts one attempt of each session. But an attempt runs several script calls (the
-- agent, on_event at attempt_start and validation_error, the strategy), each with a budget of its own:
-- a recipe whose hooks each ran 6 million instructions (under the 10 million of a call) had one
-- e:poll(0) start 64 attempts, 14.2 s of the host's frame. Past its timeout a poll now takes another
-- pass only while the passes since charged the scripts less than one call's budget (engine.c's
-- poll_loop, vm.c's work).
describe("attack 24: a poll past its timeout", function()
  -- A recipe whose four calls an attempt (agent, two events, strategy) each run 'iterations' loop
  -- turns (two instructions each), never answering right, under max_attempts 'n'.
  local function hooks_that_burn(iterations, n)
    return ([[
local function burn() local x = 0 for i = 1, %d do x = x + i end return x end
return { schema = { type = "object", required = { "q" } }, prompt = "hi", max_attempts = %d,
  on_event = function(name) if name == "attempt_start" or name == "validation_error" then burn() end end,
  strategy = function(ctx) burn() return { { role = "user", content = "again" } } end,
  agent = { call = function() burn() return { text = "{}" } end } }]]):format(iterations, n)
  end

  -- The attempts each e:poll(0) started until the session ended, its outcome and attempts, and
  -- the victim session beside it: its outcome and value.
  local function polls(recipe)
    local e = coax.engine()
    local started, per_poll = 0, {}
    local s = e:session(recipe, "x", { source = true, on_event = function(name)
      if name == "attempt_start" then started = started + 1 end
    end })
    local victim = e:session('return { schema = { type = "object", required = { "n" } }, prompt = "p" }', "x",
      { source = true, replies = { "no", '{"n": 42}' } })
    repeat
      started = 0
      local left = e:poll(0)
      per_poll[#per_poll + 1] = started
    until left == 0
    local report = s:report()
    local result = { per_poll, report.outcome, #report.attempts, victim:outcome(), victim:value() }
    e:close()
    return result
  end

  it("stops taking passes once they charged a call's budget: one attempt a poll, not 64", function()
    -- 24 million instructions an attempt: the poll's first pass is past one budget
    local r = polls(hooks_that_burn(3000000, 5))
    assert.are.same({ { 1, 1, 1, 1, 1 }, "exhausted", 5, "ok", { n = 42 } }, r)
  end)

  it("goes on while the passes cost less: 4 million an attempt, three attempts a poll", function()
    local r = polls(hooks_that_burn(500000, 7))
    assert.are.same({ { 3, 3, 1 }, "exhausted", 7, "ok", { n = 42 } }, r)
  end)

  it("twin: attempts that cost next to nothing still take 64 passes, as round 12 has it", function()
    local r = polls(hooks_that_burn(10, 200))
    assert.are.same({ { 64, 64, 64, 8 }, "exhausted", 200, "ok", { n = 42 } }, r)
  end)

  -- The C of a pass is no script's: an agent that answered 7 MB of "[1,2,3] text " at once (0.5 s of
  -- extraction an attempt) had one e:poll(0) take 42 attempts, 20.8 s, before the report's bound ended
  -- the session. A poll's cost is counted as a call's: its scripts' instructions, or its CPU time at
  -- 250 ns an instruction, whichever is more. Under a budget of 100,000 instructions (25 ms), an
  -- attempt that extracts 1.3 MB (0.2 s or more here, 8 times the budget) is a poll's last. The reply
  -- is the session's input, kept by the prompt function: a recipe that built it (by doubling a string)
  -- spent a time-dependent part of its own budget doing so, and under a sanitizer beside another job
  -- all of it, so the session ended "limit" before its first attempt; a smaller reply built in 1 ms
  -- was extracted in 32 ms, too close to the budget for a faster machine.
  it("counts the C of its passes too: an agent's long reply, extracted in C, is one attempt a poll", function()
    local answering = [[
local reply
return { schema = { type = "object", required = { "q" } }, max_attempts = 3,
  prompt = function(input) reply = input return "hi" end,
  agent = { call = function() return { text = reply } end } }]]
    local function per_poll(reps)
      local e = coax.engine({ lua_instructions = 100000 })
      local started, counts = 0, {}
      local s = e:session(answering, ("[1,2,3] text "):rep(reps), { source = true, on_event = function(name)
        if name == "attempt_start" then started = started + 1 end
      end })
      repeat
        started = 0
        local left = e:poll(0)
        counts[#counts + 1] = started
      until left == 0
      local r = { counts, s:outcome() }
      e:close()
      return r
    end
    assert.are.same({ { 1, 1, 1 }, "exhausted" }, per_poll(100000))
    assert.are.same({ { 3 }, "exhausted" }, per_poll(10)) -- twin: a short reply, all three in one poll
  end)

  it("the CPU time of a heavy first poll is one attempt's, not 64 attempts'", function()
    local function first_poll_cpu(max_attempts)
      local e = coax.engine()
      local s = e:session(hooks_that_burn(3000000, max_attempts), "x", { source = true }) -- kept: not collected
      local t = require("helper").cpu(function() e:poll(0) end)
      assert.are.equal(max_attempts == 1 and "exhausted" or "running", s:outcome())
      e:close()
      return t
    end
    local one, of_100 = first_poll_cpu(1), first_poll_cpu(100)
    -- the one attempt's hooks less the strategy (no next attempt): 4/3; 64 attempts were 85 times
    assert.is_true(of_100 / one < 3, ("ratio %.2f"):format(of_100 / one))
  end)
end)

-- ---- the engine's own setup is not under the scripts' budget -----------------------------------------
-- The sandbox and the runtime load in a call (vm_open's setup) that ran under the host's
-- lua_instructions: an engine asked for a budget under about 3,000 instructions a call could not be
-- made at all, and said so as COAX_ENOMEM ("loading the coax scripts ...: script stopped: Lua
-- instruction limit (2000) reached"), a memory failure for a budget the host chose. The setup is
-- trusted and bounded: it runs without a budget, and the scripts then run under the host's.
describe("attack 24: a small lua_instructions", function()
  local SOURCE = 'return { schema = { type = "object" }, prompt = "hi" }'

  it("makes the engine; its sessions stop at the budget, as a limit", function()
    for _, n in ipairs({ 1 }) do
      local r = coax.run(SOURCE, "x", { source = true, replies = { "{}" }, lua_instructions = n })
      assert.are.same({ "limit", "limit",
        ("recipe: script stopped: Lua instruction limit (%d) reached"):format(n) }, require("helper").ended(r))
    end
    local e = coax.engine({ lua_instructions = 1 })
    assert.are.equal("limit", e:session(SOURCE, "x", { source = true, replies = { "{}" } }):run())
    e:close()
  end)

  it("twin: a budget the runtime fits in runs the session", function()
    local r = coax.run(SOURCE, "x", { source = true, replies = { "{}" }, lua_instructions = 20000 })
    assert.are.same({ "ok" }, require("helper").ended(r))
  end)
end)
