local H = require "helper"
local coax = require "coax"
local json = coax.json

local RECIPE = "return { schema = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } },"
  .. " prompt = 'n of {{input}}' }"

describe("coax.engine (the C API from Lua)", function()
  it("polls sessions from a frame loop without blocking, with events", function()
    local e = coax.engine()
    local events = {}
    local s = e:session(RECIPE, "x", {
      source = true,
      replies = { "no json", '{"n": "7"}' },
      agent_options = { delay_ms = 10 },
      on_event = function(name, data) events[#events + 1] = name .. ":" .. data.attempt end,
    })
    assert.are.equal("running", s:outcome())
    assert.is_nil(s:report())
    local frames = 0
    while e:poll(0) > 0 do
      frames = frames + 1
      os.execute("sleep 0.002") -- the rest of a frame
    end
    assert.is_true(frames > 1)
    assert.are.equal("ok", s:outcome())
    assert.are.same({ n = 7 }, s:value())
    assert.are.same({ "attempt_start:1", "reply:1", "parse_error:1", "attempt_start:2", "reply:2", "success:2" },
      events)
    local r = s:report()
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, r.metrics.attempts)
    e:close()
  end)

  it("runs many sessions on one engine, each to its own end", function()
    local e = coax.engine()
    local a = e:session(RECIPE, "a", { source = true, replies = { '{"n": 1}' } })
    local b = e:session(RECIPE, "b", { source = true, replies = { "nothing" }, max_attempts = 1 })
    local c = e:session("return {", "c", { source = true })
    assert.are.equal("invalid", c:outcome())
    while e:poll(10) > 0 do end
    assert.are.same({ "ok", "exhausted", "invalid" }, { a:outcome(), b:outcome(), c:outcome() })
    assert.are.equal('{"n":1}', json.encode(a:value()))
    assert.is_nil(b:value())
  end)

  it("raises an event handler's error when the poll returns", function()
    local e = coax.engine()
    local s = e:session(RECIPE, "x", { source = true, replies = { '{"n": 1}' },
      on_event = function() error("handler failed") end })
    assert.has_error(function() s:run() end, "handler failed")
    e:poll(0) -- the engine is still usable
  end)

  it("refuses closed objects with a clear error", function()
    local e = coax.engine()
    local s = e:session(RECIPE, "x", { source = true, replies = { '{"n": 1}' } })
    e:close()
    assert.has_error(function() s:run() end)
    assert.has_error(function() e:poll(0) end)
    assert.has_error(function() e:poll(-1) end)
  end)

  it("reports a missing scripts folder", function()
    assert.has_error(function() coax.engine { lua_path = "/nonexistent" } end,
      "COAX_EIO: coax scripts not found in /nonexistent (set COAX_LUA_PATH)")
  end)
  assert(H)
end)
