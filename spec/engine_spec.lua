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
    assert.is_nil(a:error())
    assert.are.same({ "exhausted", "1 attempt used up; the last failed: no JSON value found in 7 bytes of text" },
      { b:error() })
    assert.are.equal("invalid_recipe", (c:error()))
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

  -- Regression (a host's handler that called back into the engine crashed it:
  -- a use after free, or a segfault): polling or running again from a
  -- handler is a clear error, closing the engine or dropping a session
  -- there takes effect when the poll returns.
  it("a handler that calls back into the engine cannot hurt it", function()
    for _, what in ipairs({ "poll", "run", "close", "drop", "other" }) do
      local e = coax.engine()
      local s, other
      local events = {}
      other = e:session(RECIPE, "o", { source = true, replies = { '{"n": 2}' } })
      s = e:session(RECIPE, "x", { source = true, replies = { "no", '{"n": 1}' }, on_event = function(name)
        events[#events + 1] = name
        if name ~= "reply" then return end
        if what == "poll" then e:poll(0)
        elseif what == "run" then s:run()
        elseif what == "close" then e:close()
        elseif what == "drop" then s = nil collectgarbage() collectgarbage()
        elseif what == "other" then other:close() end
      end })
      local ok, err = pcall(function() while e:poll(10) > 0 do end end)
      if what == "poll" or what == "run" then
        assert.is_false(ok)
        assert.are.equal(("%s: called from an event handler while the engine polls"):format(
          what == "poll" and "e:poll" or "s:run"), err:match("[es]:%a+: .*"))
        assert.are.same({ "attempt_start", "reply" }, events) -- the first error stops the handler
      elseif what == "close" then
        assert.is_true(ok, err)
        assert.are.same({ "attempt_start", "reply" }, events)
        assert.has_error(function() e:poll(0) end, "calling 'poll' on bad self (the engine is closed)")
      elseif what == "drop" then
        assert.is_true(ok, err)
        assert.are.same({ "attempt_start", "reply" }, events)
        assert.are.equal("ok", other:outcome())
      else
        assert.is_true(ok, err)
        assert.are.same({ "attempt_start", "reply", "parse_error", "attempt_start", "reply", "success" }, events)
        assert.are.equal("ok", s:outcome())
        assert.has_error(function() other:outcome() end)
      end
      if what ~= "close" then e:close() end
    end
  end)

  it("reports a missing scripts folder", function()
    assert.has_error(function() coax.engine { lua_path = "/nonexistent" } end,
      "COAX_EIO: coax scripts not found in /nonexistent (name their folder with the script_dir option or "
        .. "$COAX_LUA_PATH)")
  end)
  assert(H)
end)

describe("the host agent from Lua", function()
  local HOST_RECIPE = "return { schema = { type = 'object', properties = { n = { type = 'integer' } },"
    .. " required = { 'n' } }, prompt = 'n of {{input}}', agent = { name = 'host', schema_in_request = true } }"

  it("surfaces each request and takes the reply frames later", function()
    local e = coax.engine()
    local asked = {}
    local s = e:session(HOST_RECIPE, "x", { source = true,
      on_event = function(name, data) if name == "host_request" then asked[#asked + 1] = data.request end end })
    assert.is_nil(s:host_request())
    local ok, err = s:host_reply("{}")
    assert.is_nil(ok)
    assert.are.equal("the session is not waiting for its host", err)
    e:poll(0)
    local req = s:host_request()
    assert.are.same({ { role = "user", content = "n of x" } }, req.messages)
    assert.are.equal('{"properties":{"n":{"type":"integer"}},"required":["n"],"type":"object"}',
      json.encode(req.schema))
    assert.are.same({ schema_in_request = true }, req.options)
    assert.are.equal(1, #asked)
    for _ = 1, 3 do assert.are.equal(1, e:poll(0)) end -- frames pass; it waits
    assert.is_true(s:host_reply('{"n": "seven"}', { input_tokens = 4, output_tokens = 2 }))
    e:poll(0)
    assert.are.equal(2, #asked)
    assert.are.equal(3, #s:host_request().messages) -- the reply and the feedback
    assert.matches("/n", s:host_request().messages[3].content, 1, true)
    assert.is_true(s:host_reply('{"n": 7}'))
    assert.are.equal(0, e:poll(0))
    assert.are.equal("ok", s:outcome())
    assert.are.same({ n = 7 }, s:value())
    local r = s:report()
    assert.are.equal(4, r.attempts[1].usage.input_tokens)
    assert.are.equal(coax.null, r.attempts[2].usage)
  end)

  -- Regression: the event's data reached on_event pushed 8 levels deep at
  -- most, so a schema nested a few levels made every host session a script
  -- error ("on_event: COAX_EDEPTH"), on_event or not.
  it("surfaces the request of a schema nested deeper than a few levels", function()
    local deep = "{ type = 'object', properties = { a = { type = 'object', properties = { b = { type = 'array',"
      .. " items = { type = 'object', properties = { c = { type = 'integer' } } } } } } } }"
    local recipe = "return { schema = " .. deep
      .. ", prompt = 'p', agent = { name = 'host', schema_in_request = true } }"
    local e = coax.engine()
    local seen
    local s = e:session(recipe, "x", { source = true,
      on_event = function(name, data) if name == "host_request" then seen = data.request end end })
    e:poll(0)
    assert.are.equal("running", s:outcome())
    assert.are.equal("integer", s:host_request().schema.properties.a.properties.b.items.properties.c.type)
    assert.are.equal("integer", seen.schema.properties.a.properties.b.items.properties.c.type)
    assert.is_true(s:host_reply('{"a": {"b": [{"c": 1}]}}'))
    e:poll(0)
    assert.are.equal("ok", s:outcome())
  end)

  it("ends the session as agent_error when the host fails", function()
    local e = coax.engine()
    local s = e:session(HOST_RECIPE, "x", { source = true })
    e:poll(0)
    assert.is_true(s:host_fail("no network"))
    e:poll(0)
    assert.are.equal("agent_error", s:outcome())
    assert.are.equal("no network", s:report().error.message)
    assert.are.same({ "agent_error", "no network" }, { s:error() })
    assert.is_nil(s:host_fail("again"))
  end)

  it("takes the reply in pieces: partials as they arrive, a start over, stop_early's cancel", function()
    local recipe = "return { schema = { type = 'object', properties = { n = { type = 'integer' },"
      .. " s = { type = 'string' } }, required = { 'n' } }, prompt = 'n of {{input}}', agent = 'host',"
      .. " stream = { stop_early = true, every_ms = 0 } }"
    local e = coax.engine()
    local partials, requests = {}, 0
    local s = e:session(recipe, "x", { source = true, on_event = function(name, data)
      if name == "partial" then partials[#partials + 1] = data end
      if name == "host_request" then requests = requests + 1 end
    end })
    assert.are.same({ nil, "the session is not waiting for its host", "COAX_EINVAL" }, { s:host_piece("{") })
    e:poll(0)
    for _, piece in ipairs { '{"s": "ab', 'c", "n": "seven"' } do
      assert.is_true(s:host_piece(piece))
      e:poll(20) -- the partial waits a few times what the last one cost; 20 ms is plenty
    end
    assert.are.same({ { value = { s = "ab" }, complete = {}, in_progress = "/s", attempt = 1 },
      { value = { s = "abc", n = "seven" }, complete = { "/s" }, in_progress = "/n", attempt = 1 } }, partials)
    -- "seven" is the wrong type once a delimiter closes it; a piece that doubles the bytes gets it checked
    local ok, msg, code = s:host_piece(', "t": "' .. ("x"):rep(30))
    assert.is_nil(ok)
    assert.are.equal("COAX_ECANCELED", code)
    assert.are.equal("the reply was stopped early (stream.stop_early): 1 validation error, the first at '/n': "
      .. 'expected integer, got string "seven"; cancel the request: the next host_request asks again', msg)
    assert.are.same({ nil, msg, code }, { s:host_reply('{"s": "abc", "n": "seven"}') })
    assert.is_nil(s:host_request())
    e:poll(0)
    assert.are.equal(2, requests)
    -- the second reply starts over halfway; no partial of its first try shows
    assert.is_true(s:host_piece('{"n": 1'))
    e:poll(20)
    assert.is_true(s:host_piece(nil))
    assert.is_true(s:host_piece('{"n": 2}'))
    e:poll(20)
    assert.is_true(s:host_reply('{"n": 2}'))
    e:poll(0)
    assert.are.equal("ok", s:outcome())
    assert.are.same({ n = 2 }, s:value())
    local r = s:report()
    assert.is_true(r.attempts[1].stopped_early)
    assert.are.equal(63, r.attempts[1].bytes_received)
    assert.are.equal(8, r.attempts[2].bytes_received)
    assert.are.same({ nil, "the session is not waiting for its host", "COAX_EINVAL" }, { s:host_piece("x") })
  end)
end)

-- Regression (review): the session read an agent's returned tables with
-- lua_getfield outside any protected call, so a throwing __index aborted
-- the host process.
describe("tables an agent returns are read raw", function()
  local function run(agent_body)
    local recipe = 'return { schema = { type = "object" }, prompt = "x", agent = { call = function() '
      .. agent_body .. " end } }"
    return coax.run(recipe, "in", { source = true })
  end

  it("a failure's meta table with a throwing __index", function()
    local r = run('return nil, "x", setmetatable({}, { __index = function() error("boom") end })')
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("x", r.error.message)
  end)

  it("a reply whose text exists only through __index has no text", function()
    local r = run('return setmetatable({}, { __index = function(_, k) if k == "text" then return "{}" end '
      .. 'error("boom") end })')
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("the agent's reply has no text", r.error.message)
  end)

  it("an agent cannot name a limit of its own (only tools mode's rounds)", function()
    local r = run('return nil, "stop", { limit = "deadline" }')
    assert.are.equal("agent_error", r.outcome)
    r = run('return nil, "stop", { limit = "tool_rounds" }')
    assert.are.equal("limit", r.outcome)
    assert.are.equal("tool_rounds", r.error.code)
  end)
end)
