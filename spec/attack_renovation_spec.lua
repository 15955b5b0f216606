--- Attacks on the renovation of issue 19: the functions the engine lends to
-- scripts (engine/session/lend*.c, a luaL_Reg table given to vm_open; the
-- HTTP halves hidden by lua/coax/sandbox.lua behind coax.http.request), the
-- scripts' coax module built by lcoax_open_library, the schema cache every
-- session of an engine shares, S.token_counts and S.estimate, and events
-- pushed to on_event as values. Each case asserts what the session, the
-- command or the host made of the attack; those that crashed the host run
-- the command in a process of its own.
local H = require "helper"
local coax = require "coax"
local json = coax.json

local SCHEMA = "{ type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } }"

-- Runs `coax run` on recipe text: stdout, the first line of stderr with the
-- recipe's path written RECIPE, the exit status.
local function run_cli(text, args)
  local dir = H.tmpdir()
  local path = dir .. "/recipe.lua"
  H.write(path, text)
  local argv = { "run", path }
  for _, a in ipairs(args or {}) do argv[#argv + 1] = a end
  local out, err, code = H.coax(argv)
  H.rmtree(dir)
  local first = (err:match("^[^\n]*") or ""):gsub(path:gsub("%p", "%%%0"), "RECIPE")
  return out, first, code
end

-- A session of `recipe` on engine `e` (a new one by default) run to its end.
local function session(recipe, opts, e)
  e = e or coax.engine()
  opts = opts or {}
  opts.source = true
  local s = e:session(recipe, "x", opts)
  -- a session waiting for its host waits for ever: stop there
  while e:poll(10) > 0 and select(2, pcall(s.host_request, s)) == nil do end
  return s, e
end

describe("the functions lent to scripts", function()
  it("are in the scripts' coax module without the HTTP halves, coax.run, coax.engine or coax.patterns", function()
    local r = coax.run([[
local coax = require 'coax'
local names, raw = {}, {}
for k in pairs(coax) do names[#names + 1] = k end
for k in next, coax do raw[#raw + 1] = k end
table.sort(names)
table.sort(raw)
local http = {}
for k in pairs(coax.http) do http[#http + 1] = k end
return { schema = { type = 'integer' }, prompt = table.concat(names, ' ') .. ' | ' .. tostring(#raw == #names)
  .. ' | ' .. table.concat(http, ' ') .. ' | ' .. tostring(rawget(coax, 'http_start'))
  .. tostring(rawget(coax, 'http_wait')) .. tostring(coax.http_start) .. tostring(coax.run) .. tostring(coax.engine) }
]], "x", { source = true, replies = { "1" } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal("check_reply command example extract getenv host_request http json null repair schema secret "
      .. "sleep stream_sink strerror tokens tokens_chat version | true | request | nilnilnilnilnil",
      r.attempts[1].messages[1].content:match("^[^\n]*"))
  end)

  -- Each lent function called where no agent runs: on_event, a strategy,
  -- a template and on_submit each hear the same refusal.
  local OUTSIDE = {
    { "coax.sleep(1)", "recipe:1: coax.sleep: only an agent's call can sleep" },
    { "coax.host_request('{}')", "recipe:1: coax.host_request: only an agent's call can ask the host" },
    { "coax.check_reply('{}')", "recipe:1: coax.check_reply: only an agent's call can check a reply" },
    { "coax.command('x')", "recipe:1: coax.command: only an agent's call can run the command" },
    { "coax.http.request({ url = 'http://127.0.0.1:9/' })",
      "coax.http.request: only an agent's call can make requests" },
    { "coax.sleep('x')", "recipe:1: bad argument #1 to 'sleep' (number expected, got string)" },
    { "coax.host_request({})", "recipe:1: bad argument #1 to 'host_request' (string expected, got table)" },
    { "coax.secret('1x')", "recipe:1: bad argument #1 to 'secret' (not a secret's name)" },
  }
  local PLACES = {
    on_event = "on_event = function(n) if n == 'reply' then R = probe() end end, "
      .. "on_submit = function() return false, R end",
    strategy = "strategy = function() return { { role = 'user', content = probe() } } end",
    template = "prompt = function() return probe() end",
    on_submit = "on_submit = function() return false, probe() end",
  }
  for place, fields in pairs(PLACES) do
    for _, c in ipairs(OUTSIDE) do
      it("refuses " .. c[1] .. " from " .. place, function()
        local recipe = ("local coax = require 'coax' local R local function probe() local ok, e = pcall(function() "
          .. "%s end) return tostring(ok) .. ' ' .. tostring(e) end return { schema = " .. SCHEMA
          .. ", %s }"):format(c[1], place == "template" and fields or "prompt = 'x', " .. fields)
        local replies = place == "strategy" and { '{"n": "x"}', '{"n": 1}' } or { '{"n": 1}', '{"n": 2}' }
        local r = coax.run(recipe, "x", { source = true, replies = replies, max_attempts = 2 })
        local said
        if place == "on_event" or place == "on_submit" then said = r.attempts[1].reason
        elseif place == "template" then said = r.attempts[1].messages[1].content:match("^[^\n]*")
        else said = r.attempts[2].messages[#r.attempts[2].messages].content end
        -- the HTTP refusal names the sandbox's line, which calls the C half
        assert.are.equal("false " .. c[2], (said:gsub("^false [^ ]*sandbox%.lua:%d+: ", "false ")))
      end)
    end
  end

  it("refuse wrong arguments inside an agent's call with Lua's own messages", function()
    local cases = {
      { "coax.sleep('x')", "bad argument #1 to 'sleep' (number expected, got string)" },
      { "coax.sleep(-1)", "bad argument #1 to 'sleep' (must not be negative)" },
      { "coax.sleep(0/0)", "bad argument #1 to 'sleep' (must not be negative)" },
      { "coax.sleep(math.huge)", "bad argument #1 to 'sleep' (at most 3600000 ms (an hour))" },
      { "coax.sleep(3600001)", "bad argument #1 to 'sleep' (at most 3600000 ms (an hour))" },
      { "coax.host_request({})", "bad argument #1 to 'host_request' (string expected, got table)" },
      { "coax.check_reply()", "bad argument #1 to 'check_reply' (string expected, got no value)" },
      { "coax.command({})", "bad argument #1 to 'command' (string expected, got table)" },
      { "coax.secret(nil)", "bad argument #1 to 'secret' (string expected, got nil)" },
      { "coax.http.request('x')", "coax.http.request: wants a table of options" },
      { "coax.http.request({ url = 'file:///etc/passwd' })", "coax.http.request: only http:// and https:// URLs" },
      { "coax.http.request({ url = 'http://127.0.0.1:9/', timeout_ms = 1.5 })",
        "coax.http.request: timeout_ms must be a positive integer" },
      { "coax.http.request({ url = 'http://127.0.0.1:9/', on_line = 5 })",
        "coax.http.request: on_line must be a function" },
    }
    for _, c in ipairs(cases) do
      local recipe = ("local coax = require 'coax' return { schema = " .. SCHEMA .. ", prompt = 'x', agent = { call = "
        .. "function() local ok, e = pcall(function() %s end) return nil, tostring(ok) .. ' ' .. tostring(e) end } }")
        :format(c[1])
      local r = coax.run(recipe, "x", { source = true })
      assert.are.equal("agent_error", r.outcome)
      local msg = r.error.message:gsub("^false [^ ]*sandbox%.lua:%d+: ", "false "):gsub("^false recipe:1: ", "false ")
      assert.are.equal("false " .. c[2], msg)
    end
  end)
end)

describe("coax.host_request's coroutine", function()
  -- The agent keeps its own coroutine (coroutine.running) and on_event
  -- resumes it while it waits for the host: the continuation ran with no
  -- session and dereferenced NULL (SIGSEGV, exit 139).
  it("resumed from on_event while the host has not answered is an error, not a crash", function()
    local out, err, code = run_cli([[
local coax = require 'coax'
local main
return { schema = { type = 'integer' }, prompt = 'x',
  agent = { call = function() main = coroutine.running() return coax.host_request('{"messages": []}') end },
  on_event = function(name)
    if name == 'host_request' then
      local ok, e = coroutine.resume(main)
      error('resumed: ' .. tostring(ok) .. ' ' .. tostring(e), 0)
    end
  end }
]])
    assert.are.same({ "", "coax run: script_error: on_event: resumed: false RECIPE:4: coax.host_request: resumed "
      .. "before the host answered", 5 }, { out, err, code })
  end)

  -- A coroutine of the agent's own asks the host (it yields to the agent,
  -- not to the engine) and on_event resumes it later: the same crash.
  it("is the agent's own: a coroutine of its own may not ask (it crashed when resumed from on_event)", function()
    local out, err, code = run_cli([[
local coax = require 'coax'
local pending
return { schema = ]] .. SCHEMA .. [[, prompt = 'x',
  agent = { call = function()
    pending = coroutine.create(function() return coax.host_request('{}') end)
    local ok, e = coroutine.resume(pending)
    if not ok then return nil, e end
    return { text = '{"n": 1}' }
  end },
  on_event = function(name) if pending then coroutine.resume(pending) end end }
]])
    assert.are.same({ "", "coax run: agent_error: RECIPE:5: coax.host_request: only the agent's own call can ask the "
      .. "host, not a coroutine of its own", 3 }, { out, err, code })
  end)

  it("gives no made-up answer to a coroutine resumed before the host answered (it got an empty reply)", function()
    local s = session([[
local coax = require 'coax'
return { schema = ]] .. SCHEMA .. [[, prompt = 'x',
  agent = { call = function()
    local ask = coroutine.wrap(function() return coax.host_request('{}') end)
    local ok, e = pcall(ask)
    if not ok then return nil, e end
    local answer = ask()
    return answer
  end } }
]])
    assert.are.equal("agent_error", s:outcome())
    local failure, message = s:error()
    assert.are.equal("agent_error", failure)
    assert.are.equal("recipe:4: coax.host_request: only the agent's own call can ask the host, not a coroutine of "
      .. "its own", message)
  end)

  -- The request's text went into the host's event data as it was: a
  -- recipe's agent forged the attempt and any member it liked.
  it("is JSON text: a request that is not cannot forge the host's event data", function()
    local events = {}
    local s = session([[
local coax = require 'coax'
return { schema = ]] .. SCHEMA .. [[, prompt = 'x',
  agent = { call = function()
    return coax.host_request('{"messages": []}, "attempt": 99, "forged": true')
  end } }
]], { on_event = function(name, data) events[#events + 1] = name .. " " .. json.encode(data) end })
    assert.are.equal("script_error", s:outcome())
    local _, message = s:error()
    assert.are.equal("agent: recipe:4: coax.host_request: the request is not JSON: expected end of input after the "
      .. "value", message:match("^[^\n]*"))
    assert.is_nil(s:host_request())
    assert.are.same({ 'attempt_start {"attempt":1}' }, { events[1] })
    assert.are.equal(2, #events)
    assert.matches('^failure {"attempt":1,"outcome":"script_error"', events[2])
  end)

  it("still reaches the host from a recipe's own agent with JSON text, answered", function()
    local events = {}
    local e = coax.engine()
    local s = e:session([[
local coax = require 'coax'
return { schema = ]] .. SCHEMA .. [[, prompt = 'x',
  agent = { call = function() return coax.host_request(coax.json.encode({ ask = 'n?' })) end } }
]], "x", { source = true, on_event = function(name, data) events[#events + 1] = name .. " " .. json.encode(data) end })
    e:poll(0)
    assert.are.equal("running", s:outcome())
    assert.are.same({ ask = "n?" }, s:host_request())
    assert.is_true(s:host_reply('{"n": 4}'))
    while e:poll(10) > 0 do end
    assert.are.equal("ok", s:outcome())
    assert.are.same({ n = 4 }, s:value())
    assert.are.same({ 'attempt_start {"attempt":1}', 'host_request {"attempt":1,"request":{"ask":"n?"}}',
      'reply {"attempt":1,"bytes":8}', 'success {"attempt":1}' }, events)
  end)

  -- coax.run has no host to answer: it raised "COAX_ENOMEM: out of memory".
  it("asked under coax.run says the host cannot answer there, not out of memory", function()
    local r, msg, code = coax.run("return { schema = " .. SCHEMA .. ", prompt = 'x', agent = 'host' }", "x",
      { source = true })
    assert.is_nil(r)
    assert.are.equal("the host agent is answered by a program that embeds coax (coax.engine's s:host_request and "
      .. "s:host_reply), not by coax.run: name another agent", msg)
    assert.are.equal("COAX_EINVAL", code)
  end)
end)

describe("coax.http.request's options", function()
  -- The C half read the options through __index and kept the URL's
  -- pointer after popping a string only the stack held; a collection in
  -- between freed it (ASan: heap-use-after-free in http_start).
  local PROXY = [[
local coax = require 'coax'
return { schema = { type = 'integer' }, prompt = 'x',
  agent = { call = function()
    local fields = { url = 'http://127.0.0.1:9/', timeout_ms = 2000 }
    local opts = %s
    local ok, r, err, kind = pcall(coax.http.request, opts)
    return nil, tostring(ok) .. ' | ' .. tostring(r) .. ' | ' .. tostring(err) .. ' | ' .. tostring(kind)
  end } }
]]
  it("are read raw: a table whose fields come from __index has none (it was a use after free)", function()
    local out, err, code = run_cli(PROXY:format([[setmetatable({}, { __index = function(_, k)
      if k == 'url' then return fields.url .. string.rep('a', 200) .. tostring(os.clock()) end
      if k == 'timeout_ms' then for i = 1, 300000 do local _ = { i } end return fields.timeout_ms end
    end })]]))
    assert.are.same({ "", "coax run: agent_error: false | coax.http.request: 'url' is required | nil | nil", 3 },
      { out, (err:gsub("false | [^ ]*sandbox%.lua:%d+: ", "false | ")), code })
  end)

  it("of a plain table still make the request", function()
    local out, err, code = run_cli(PROXY:format("fields"))
    assert.are.same({ "", "coax run: agent_error: true | nil | Failed to connect to 127.0.0.1 port 9 after 0 ms: "
      .. "Couldn't connect to server | connect", 3 }, { out, (err:gsub("after %d+ ms", "after 0 ms")), code })
  end)
end)

describe("what sessions of one engine share", function()
  -- Sessions of one schema text share its compiled schema and document
  -- (engine/session/schema_cache.c); each gets its own Lua copy.
  it("a session that rewrites its schema table changes no other session's schema", function()
    local attacker = [[
return { schema = ]] .. SCHEMA .. [[, prompt = 'x',
  agent = { call = function(request)
    request.schema.type = 'string'
    request.schema.required = { 'zzz' }
    request.schema.properties.n.type = 'string'
    setmetatable(request.schema, { __index = function() return 'pwned' end })
    return { text = '{"n": 1}' }
  end } }
]]
    local victim = "return { schema = " .. SCHEMA .. ", prompt = 'x' }"
    local opts = function() return { replies = { '{"n": "x"}', '{"n": 2}' } } end
    local a, e = session(attacker)
    assert.are.equal("ok", a:outcome()) -- validated by the compiled schema, not by its table
    local v = session(victim, opts(), e)
    local fresh = session(victim, opts())
    local r, f = v:report(), fresh:report()
    assert.are.equal("ok", r.outcome)
    assert.are.same({ n = 2 }, r.value)
    assert.are.equal("invalid", r.attempts[1].outcome)
    assert.are.same(f.attempts[1].messages, r.attempts[1].messages)
    assert.are.same(f.attempts[1].errors, r.attempts[1].errors)
    assert.are.equal('{"properties":{"n":{"type":"integer"}},"required":["n"],"type":"object"}',
      r.attempts[1].messages[1].content:match("\n([^\n]*)$"))
  end)

  it("ctx.estimate gives coax.tokens' count, from the cache as at first", function()
    local r = coax.run([[
local coax = require 'coax'
return { schema = { type = 'integer' }, prompt = 'x',
  strategy = function(ctx)
    local out = {}
    for _, t in ipairs({ 'hello world', string.rep('ab ', 500), 'héllo wörld', '' }) do
      out[#out + 1] = ctx.estimate(t) .. '=' .. ctx.estimate(t) .. '=' .. coax.tokens(t)
    end
    local ok, e = pcall(ctx.estimate, 5)
    out[#out + 1] = tostring(ok) .. ' ' .. tostring(e)
    return { { role = 'user', content = table.concat(out, ' ') } }
  end }
]], "x", { source = true, replies = { "no", "1" } })
    assert.are.equal("2=2=2 501=501=501 4=4=4 0=0=0 false bad argument #1 to '?' (string expected, got number)",
      r.attempts[2].messages[1].content)
  end)

  -- The host keeps an ended session for its report: its S (the estimates'
  -- cache a strategy filled, the recipe's own tables) held the memory cap
  -- every session of the engine shares, and each later session ended with
  -- "recipe: not enough memory".
  local HOARDERS = {
    { "its estimates' cache", "strategy = function(ctx) for i = 1, 1e9 do ctx.estimate('k' .. i) end end" },
    { "a table of its own", "strategy = function() for i = 1, 1e9 do KEEP[i] = 'k' .. i end end" },
  }
  for _, h in ipairs(HOARDERS) do
    it("a strategy that fills the memory cap with " .. h[1] .. " holds none of it once its session ended", function()
      local attacker = "KEEP = {} return { schema = { type = 'integer' }, prompt = 'x', " .. h[2] .. " }"
      -- a small cap, so memory runs out long before the instruction budget on any machine
      -- (at 16 MB a hoarder took 0.6 s, 1.4 s under ASan, of the budget's 2.5 s of
      -- wall time, and hit it first on a loaded machine)
      local a, e = session(attacker, { replies = { "no", "1" } }, coax.engine({ lua_memory = 6 * 1024 * 1024 }))
      assert.are.equal("limit", a:outcome())
      assert.are.same({ "limit", "strategy: not enough memory" }, { a:error() })
      local victim = "return { schema = { type = 'integer' }, prompt = 'x', context_budget = 60 }"
      local v = session(victim, { replies = { "no", "no", "1" } }, e)
      local fresh = session(victim, { replies = { "no", "no", "1" } }, coax.engine({ lua_memory = 6 * 1024 * 1024 }))
      assert.are.equal("ok", v:outcome())
      assert.are.equal(fresh:report().metrics.input_tokens_est, v:report().metrics.input_tokens_est)
      assert.are.same(H.conversation(fresh:report(), 3), H.conversation(v:report(), 3))
      assert.are.equal("limit", a:outcome()) -- the attacker's report is still there
      assert.are.same({ "limit", "strategy: not enough memory" }, { a:error() })
    end)
  end
end)

describe("events pushed to on_event as values", function()
  it("are the handler's own copy: changing them changes neither the host's events, the next event nor the report",
    function()
    local host = {}
    local s = session([[
local seen = {}
return { schema = ]] .. SCHEMA .. [[, prompt = 'x', max_attempts = 2,
  on_event = function(name, data)
    seen[#seen + 1] = name .. ':' .. tostring(data.attempt) .. ':' .. tostring(data.bytes)
    data.attempt = 99
    data.bytes = -1
    data.extra = { 1 }
    setmetatable(data, { __index = function() return 'pwned' end })
  end,
  on_submit = function() return false, table.concat(seen, ' ') end }
]], { replies = { '{"n": "x"}', '{"n": 2}' },
      on_event = function(name, data) host[#host + 1] = name .. " " .. json.encode(data) end })
    local r = s:report()
    assert.are.equal("exhausted", r.outcome)
    local seen = "attempt_start:1:nil reply:1:10 validation_error:1:nil attempt_start:2:nil reply:2:8"
    assert.are.equal(seen, r.attempts[2].reason)
    assert.are.same({ "invalid", "rejected" }, { r.attempts[1].outcome, r.attempts[2].outcome })
    assert.are.same({ 'attempt_start {"attempt":1}', 'reply {"attempt":1,"bytes":10}',
      'validation_error {"attempt":1,"errors":1}', 'attempt_start {"attempt":2}', 'reply {"attempt":2,"bytes":8}',
      'rejection {"attempt":2,"reason":"' .. seen .. '"}',
      'failure {"attempt":2,"outcome":"exhausted","message":"2 attempts used up; the last failed: ' .. seen .. '"}' },
      host)
  end)

  it("of a host request: the recipe's copy changed leaves the host's request as asked", function()
    local e = coax.engine()
    local s = e:session([[
return { schema = ]] .. SCHEMA .. [[, prompt = 'the prompt', agent = 'host',
  on_event = function(name, data)
    if name == 'host_request' then
      data.request.messages[1].content = 'pwned'
      data.request.messages[2] = { role = 'user', content = 'pwned' }
      data.request.schema = nil
    end
  end }
]], "x", { source = true })
    e:poll(0)
    local req = s:host_request()
    assert.are.equal(1, #req.messages)
    assert.matches("^the prompt\n", req.messages[1].content)
    assert.are.equal("object", req.schema.type)
    assert.is_true(s:host_reply('{"n": 3}'))
    while e:poll(10) > 0 do end
    assert.are.same({ n = 3 }, s:value())
  end)
end)
