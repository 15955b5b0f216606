--- Attack round 17: the promise "a recipe or a reply never hurts its host", against what round 16
-- added (each session's own connections, os.clock a session's own) and the sandbox's edges.
-- Work is compared at n and 8n, never against a clock.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

local ended = H.ended

-- The sockets this process holds (the spec's Lua, not the ls that counts them; sockets alone, as
-- the pipe to the ls is open while it looks).
local SELF = io.open("/proc/self/stat"):read("n")
local function open_sockets()
  local n, ls = 0, io.popen("ls -l /proc/" .. SELF .. "/fd 2>/dev/null")
  for line in ls:lines() do
    if line:find("-> socket:", 1, true) then n = n + 1 end
  end
  ls:close()
  return n
end

describe("attack 17: an ended session keeps no connection", function()
  -- Round 16 gave each session a pool of kept connections (a curl share), freed with the
  -- session. A host keeps ended sessions for their reports as long as it likes, and each kept
  -- its connections open: 100 ended sessions that each made one request held 100 sockets, and a
  -- host keeping sessions by the thousand ran out of file descriptors (its files, its other
  -- connections, every session after). An ended session makes no request again: its pool is
  -- freed when it ends (engine/session/session.c's session_end).
  local server = H.pipelined_server()
  setup(server.start)
  teardown(server.stop)

  local ASK = [==[
local coax = require 'coax'
return { schema = { type = 'string' }, prompt = 'p', agent = { call = function()
  local r, err = coax.http.request({ url = 'http://127.0.0.1:%s/%s' })
  %s
  return { text = ('%%q'):format(r and r.body or err) }
end } }
]==]

  -- Runs n sessions one after the other, each to its end, and keeps them: the descriptors the
  -- process holds more than after the first, and the last one's report.
  local function kept_sockets(n, after)
    local e = coax.engine()
    local kept, base, last = {}, nil, nil
    for i = 1, n + 1 do
      kept[i] = e:session(ASK:format(server.port, "s" .. i, after or ""), "x", { source = true })
      while e:poll(50) > 0 do end
      if i == 1 then base = open_sockets() end
      last = kept[i]:report()
    end
    local held = open_sockets() - base
    e:close()
    return held, last
  end

  it("100 sessions ended and kept hold no socket", function()
    local held, last = kept_sockets(100)
    assert.are.same({ "ok", nil, nil }, ended(last))
    assert.truthy(last.value:match("^conn%d+ /s101$"), last.value)
    assert.are.equal(0, held)
  end)

  -- An agent may return with a request in flight (one it made in a coroutine of its own, which
  -- yielded back to it): the attempt's end cancels the request, the session's frees the pool.
  it("sessions ended while their requests' connections were busy hold none either", function()
    local held, last = kept_sockets(20, "coroutine.wrap(function() coax.http.request({ url = 'http://127.0.0.1:"
      .. server.port .. "/slow' }) end)()")
    assert.are.equal("ok", last.outcome)
    assert.are.equal(0, held)
  end)

  -- Twin: a session still running reuses its kept connection (round 16's case, kept here for
  -- the pool freed at the end, not before).
  it("a running session's requests still share its connection", function()
    local e = coax.engine()
    local s = e:session(([==[
      local coax = require 'coax'
      return { schema = { type = 'string' }, prompt = 'p', agent = { call = function()
        local a = coax.http.request({ url = 'http://127.0.0.1:%s/a' })
        coax.sleep(20)
        local b = coax.http.request({ url = 'http://127.0.0.1:%s/b' })
        return { text = ('%%q'):format(a.body .. ', ' .. b.body) }
      end } }]==]):format(server.port, server.port), "x", { source = true })
    while e:poll(50) > 0 do end
    local r = s:report()
    e:close()
    local first, second = r.value:match("^(conn%d+) /a, (conn%d+) /b$")
    assert.truthy(first, r.value)
    assert.are.equal(first, second)
  end)
end)

describe("attack 17: a running session keeps a bounded number of connections", function()
  -- libcurl keeps up to 4 connections for each request in flight in the engine (the multi's
  -- own default), and each session's pool got that allowance: a session requesting 40 servers
  -- one after the other, while 12 other sessions each had a request in flight, kept all 40 open
  -- while it lived, and a handful of such recipes beside a busy host used up its descriptors. A
  -- session's pool keeps at most HTTP_POOL_KEEP (engine/io/http.c) idle connections.
  local server = H.pipelined_server(41)
  setup(server.start)
  teardown(server.stop)

  local SLOW = [==[
local coax = require 'coax'
return { schema = { type = 'string' }, prompt = 'p', agent = { call = function()
  for _ = 1, 6 do coax.http.request({ url = 'http://127.0.0.1:%s/slow' }) end
  return { text = '"done"' }
end } }
]==]
  -- Requests the given ports one after the other, then asks its host (which counts sockets then).
  local HOARD = [==[
local coax = require 'coax'
local ports = { %s }
return { schema = { type = 'string' }, prompt = 'p', agent = { call = function()
  local got = 0
  for _, port in ipairs(ports) do
    local r = coax.http.request({ url = 'http://127.0.0.1:' .. port .. '/h' })
    if r and r.status == 200 then got = got + 1 end
  end
  coax.host_request('{"messages": []}')
  return { text = '"' .. got .. '"' }
end } }
]==]

  -- The hoarder's sockets: those open when it asks its host less those open once it ended (its
  -- pool freed), while the 12 others still wait on theirs.
  it("a session that asked 40 servers while 12 others waited holds at most 4 of their connections", function()
    local e = coax.engine()
    local busy = {}
    for i = 1, 12 do busy[i] = e:session(SLOW:format(server.port), "x", { source = true }) end
    local hoarder = e:session(HOARD:format(table.concat(server.ports, ", ", 2)), "x", { source = true })
    local asking, held
    while e:poll(10) > 0 do
      if not asking and select(2, pcall(hoarder.host_request, hoarder)) ~= nil then
        asking = open_sockets()
        hoarder:host_reply('"x"')
      elseif asking and not held and hoarder:outcome() ~= "running" then
        held = asking - open_sockets()
        assert.are.equal("running", busy[12]:outcome())
      end
    end
    local r, others = hoarder:report(), busy[12]:report()
    e:close()
    assert.are.same({ "ok", nil, nil }, ended(r))
    assert.are.equal("40", r.value)
    assert.are.equal("ok", others.outcome)
    assert.truthy(held <= 4, "the session held " .. tostring(held) .. " sockets")
  end)
end)

describe("attack 17: a streamed reply costs the agents linear work in its events", function()
  -- The providers' agents read a streamed reply event by event. Anthropic's joined each text
  -- delta to the text before it, and OpenAI's each piece of a tool call's name to the name before
  -- it: every event copied all that came before, quadratic in the reply. A reply of 2 MB in
  -- 16-byte deltas (131,074 events) ran 6.2 s and ended `limit` (its budget), where OpenAI's
  -- agent took 0.24 s for 512 KB; a name in 131,072 pieces took 5.8 s. Each now keeps the pieces
  -- and joins them once at the end (lua/coax/agents/anthropic.lua, openai.lua).
  local P = require "providers"
  local provider = P.harness { agent = "anthropic", options = { model = "c1", timeout_ms = 60000 },
    secrets = { ANTHROPIC_API_KEY = "sk-ant-test-SENTINEL-0077", OPENAI_API_KEY = "sk-test-SENTINEL-0077" } }
  setup(function() provider:start { ["schema.json"] = P.SCHEMA, ["recipe.lua"] = P.recipe() } end)
  teardown(function() provider:stop() end)

  local function run_streamed(agent, step, options)
    local sc = provider:scenario({ step })
    local o = { base_url = P.base_of(agent, sc), model = "c1", timeout_ms = 60000, stream = true }
    for k, v in pairs(options or {}) do o[k] = v end
    return coax.run(provider:path("recipe.lua"), P.INPUT, { agent = agent, secrets = provider.secrets,
      agent_options = o })
  end

  -- {"name": n a's, "age": 36} in deltas of 16 bytes.
  local function deltas(n)
    local text, pieces = '{"name":"' .. ("a"):rep(n) .. '","age":36}', {}
    for i = 1, #text, 16 do pieces[#pieces + 1] = text:sub(i, i + 15) end
    return pieces
  end

  it("Anthropic's text in 8,194 and 65,538 deltas costs 8 times the work", function()
    local r, n
    local ratio = H.scaling_ratio(function(k) n, r = k, run_streamed("anthropic", { stream = deltas(k) }) end,
      131072, 8)
    assert.are.same({ "ok", nil, nil }, ended(r))
    assert.are.same({ name = ("a"):rep(n), age = 36 }, r.value)
    assert.is_true(ratio < 16, ("ratio %.1f"):format(ratio))
  end)

  -- A tool call's name in n pieces beside a reply's text: the text is the value, the call (no
  -- tools mode) is not.
  local function name_pieces(n)
    local ev = { 'data: {"choices":[{"index":0,"delta":{"content":"{\\"name\\":\\"Ada\\",\\"age\\":36}"}}]}\n\n' }
    local piece = 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"abcdefghijkl'
      .. 'mnop"}}]}}]}\n\n'
    for i = 2, n + 1 do ev[i] = piece end
    ev[#ev + 1] = 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    return { body = table.concat(ev), headers = { ["content-type"] = "text/event-stream" } }
  end

  it("OpenAI's tool call name in 16,384 and 131,072 pieces costs 8 times the work", function()
    local r
    local ratio = H.scaling_ratio(function(k) r = run_streamed("openai", name_pieces(k)) end, 16384, 8)
    assert.are.same({ "ok", nil, nil }, ended(r))
    assert.are.same({ name = "Ada", age = 36 }, r.value)
    assert.is_true(ratio < 16, ("ratio %.1f"):format(ratio))
  end)

  -- A submit call's arguments in tools mode: "{", then n pieces of 16 spaces, then the rest of
  -- the envelope {"json": value}. The sink that takes the envelope off joined each piece to the
  -- text before it and looked at it all again (lua/coax/tools.lua's submit_feed): 8,192 pieces
  -- ended `limit`. The look is now at the text with each run of spaces made one.
  local function spaced_submit(n)
    local ev = { 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":'
      .. '"submit","arguments":"{"}}]}}]}\n\n' }
    local piece = 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"'
      .. (" "):rep(16) .. '"}}]}}]}\n\n'
    for i = 2, n + 1 do ev[i] = piece end
    ev[#ev + 1] = 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":'
      .. '"\\"json\\": {\\"name\\": \\"Bo\\", \\"age\\": 5}}"}}]}}]}\n\n'
    ev[#ev + 1] = 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    return { body = table.concat(ev), headers = { ["content-type"] = "text/event-stream" } }
  end

  it("a submit call's arguments with 4,096 and 32,768 pieces of spaces cost 8 times the work", function()
    local r
    local ratio = H.scaling_ratio(function(k) r = run_streamed("openai", spaced_submit(k), { mode = "tools" }) end,
      4096, 8)
    assert.are.same({ "ok", nil, nil }, ended(r))
    assert.are.same({ name = "Bo", age = 5 }, r.value)
    assert.is_true(ratio < 16, ("ratio %.1f"):format(ratio))
  end)

  -- Twins: a text in deltas, and a submit call whose name comes in pieces, still
  -- read whole (tools mode: the submit call's arguments are the value).
  it("a text in deltas and a submit call's name in pieces are read whole", function()
    local r = run_streamed("anthropic", { stream = { '{"name":', '"Ada",', '"age":36}' } })
    assert.are.same({ name = "Ada", age = 36 }, r.value)
    local sc = provider:scenario({ { body = table.concat({
      'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"sub",'
        .. '"arguments":""}}]}}]}\n\n',
      'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"mit","arguments":'
        .. '"{\\"json\\": {\\"name\\": \\"Bo\\", \\"age\\": 5}}"}}]}}]}\n\n',
      'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n' }),
      headers = { ["content-type"] = "text/event-stream" } } })
    r = coax.run(provider:path("recipe.lua"), P.INPUT, { agent = "openai", secrets = provider.secrets,
      agent_options = { base_url = P.base_of("openai", sc), model = "c1", stream = true, mode = "tools" } })
    assert.are.same({ "ok", nil, nil }, ended(r))
    assert.are.same({ name = "Bo", age = 5 }, r.value)
  end)
end)
