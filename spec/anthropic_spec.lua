--- The Anthropic agent (lua/coax/agents/anthropic.lua, coax.transport,
-- engine/io/http.c) end to end: whole extractions against the mock server
-- (spec/mock), asserting the exact requests it received and the reports.
local H = require "helper"
local coax = require "coax"
local P = require "providers"
local report_check = require "report_check"
local json = coax.json

local KEY = "sk-ant-test-SENTINEL-0077"
local SCHEMA, GOOD, INPUT, CUT = P.SCHEMA, P.GOOD, P.INPUT, P.CUT
-- The first prompt: the schema is never in the request.
local PROMPT = P.with_schema(P.PROMPT)
local SYSTEM = "You extract people. Reply with JSON only."
local user, assistant, plain = P.user, P.assistant, P.plain

-- Extractions through the anthropic agent (providers.lua): fast retries
-- and timeouts unless `agent_options` says otherwise.
local provider = P.harness { agent = "anthropic", options = { model = "c1" }, secrets = { ANTHROPIC_API_KEY = KEY } }
local run_on, run = provider:runners()
local recipe_path, system_path, input_path = provider:path("recipe.lua"), provider:path("system.lua"),
  provider:path("input.txt")

setup(function()
  provider:start {
    ["schema.json"] = SCHEMA, ["input.txt"] = INPUT,
    ["recipe.lua"] = P.recipe(), ["system.lua"] = P.recipe("schema.json", ', system = "' .. SYSTEM .. '"'),
  }
end)

teardown(function() provider:stop() end)

-- What every request of the agent looks like on the wire.
local function check_request(sc, req, accept)
  P.check_request(req, { path = "/s/" .. sc.name .. "/v1/messages", accept = accept or "application/json",
    headers = { ["x-api-key"] = KEY, ["anthropic-version"] = "2023-06-01", authorization = false }, length = true })
end

-- The body of a request with `messages` (the defaults of run_on).
local function body(messages, extra)
  local b = { model = "c1", max_tokens = 4096, messages = messages }
  for k, v in pairs(extra or {}) do b[k] = v end
  return b
end

local function check_same_requests(sc, log, n)
  assert.are.equal(n, #log)
  for _, req in ipairs(log) do
    check_request(sc, req)
    assert.are.same(body({ user(PROMPT) }), req.json)
  end
end

-- A step's `error`: an Anthropic error body with this status.
local function provider_error(status, message, kind)
  return { status = status, message = message, type = kind }
end

local FEEDBACK_TYPES = table.concat({
  "Attempt 1/3: your JSON does not match the schema.",
  "",
  "Errors:",
  "  - At path '/name': expected string, got boolean true",
  "  - At path '/age': expected integer, got string \"thirty\"",
  "",
  "Your submission:",
  '{\n  "name": true,\n  "age": "thirty"\n}',
  "",
  "Fix all of the errors above and reply with the corrected JSON only.",
}, "\n")

describe("the anthropic agent against a mock server", function()
  describe("requests", function()
    it("prompt mode: the exact body, max_tokens 4096 by default, the schema in the prompt", function()
      local r, log, sc = run({ { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.same({ name = "Ada", age = 36 }, r.value)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.equal('{"model":"c1","max_tokens":4096,"messages":[{"role":"user","content":'
        .. json.encode(PROMPT) .. '}]}', log[1].body)
      assert.are.same({ user(PROMPT) }, plain(r.attempts[1].messages))
    end)

    it("the recipe's system text goes in `system`, never among the messages", function()
      local r, log, sc = run({ { reply = GOOD } }, nil, nil, system_path)
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.equal('{"model":"c1","max_tokens":4096,"system":' .. json.encode(SYSTEM)
        .. ',"messages":[{"role":"user","content":' .. json.encode(PROMPT) .. '}]}', log[1].body)
      -- the session's own history keeps the system message
      assert.are.same({ { role = "system", content = SYSTEM }, user(PROMPT) }, plain(r.attempts[1].messages))
    end)

    it("max_tokens and temperature as given; the default model when none is named", function()
      local sc = provider:scenario({ { reply = GOOD } })
      local r = report_check.valid(coax.run(recipe_path, INPUT, {
        agent = "anthropic", secrets = { ANTHROPIC_API_KEY = KEY },
        agent_options = { base_url = sc.base_url, max_tokens = 512, temperature = 0 },
      }))
      assert.are.equal("ok", r.outcome)
      local log = sc:log()
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.equal('{"model":"claude-sonnet-4-5","max_tokens":512,"messages":[{"role":"user","content":'
        .. json.encode(PROMPT) .. '}],"temperature":0}', log[1].body)
    end)

    it("extra headers are sent, and one named like a default replaces it", function()
      local r, log = run({ { reply = GOOD } }, { headers = {
        ["anthropic-beta"] = "output-128k-2025-02-19", ["anthropic-version"] = "2024-01-01",
      } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      assert.are.equal("output-128k-2025-02-19", log[1].headers["anthropic-beta"])
      assert.are.equal("2024-01-01", log[1].headers["anthropic-version"])
      assert.are.equal(KEY, log[1].headers["x-api-key"])
    end)

    it("api_key_env names another variable for x-api-key", function()
      local r, log = run({ { reply = GOOD } }, { api_key_env = "CLAUDE_WORK_API_KEY" },
        { secrets = { CLAUDE_WORK_API_KEY = "work-key-1", ANTHROPIC_API_KEY = KEY } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal("work-key-1", log[1].headers["x-api-key"])
    end)

    it("no key: no x-api-key header", function()
      local r, log = run({ { reply = GOOD } }, nil, { secrets = {} })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      assert.is_nil(log[1].headers["x-api-key"])
      assert.are.equal("2023-06-01", log[1].headers["anthropic-version"])
      assert.are.same(body({ user(PROMPT) }), log[1].json)
    end)

    it("an unknown mode is a script error naming the modes, and nothing is sent", function()
      local r, log = run({ { reply = GOOD } }, { mode = "json_schema" })
      assert.are.equal("script_error", r.outcome)
      assert.are.equal(0, #log)
      assert.are.equal("agent: anthropic agent: unknown mode 'json_schema' (prompt, tools)",
        r.error.message:match("^[^\n]*"))
    end)

    it("a base_url with a trailing slash still posts to .../v1/messages", function()
      local sc = provider:scenario({ { reply = GOOD } })
      local r, log = run_on(sc, { base_url = sc.base_url .. "/" })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
    end)
  end)

  describe("messages in Anthropic's shape", function()
    local agent = require "coax.agents.anthropic"

    it("system messages become `system`; consecutive roles merge; empty messages are left out", function()
      local system, messages = agent.messages({
        { role = "system", content = "A." }, { role = "user", content = "one" },
        { role = "system", content = "B." }, { role = "user", content = "two" },
        { role = "assistant", content = "" }, { role = "user", content = "three" },
        { role = "assistant", content = "x" }, { role = "assistant", content = "y" },
      })
      assert.are.equal("A.\n\nB.", system)
      assert.are.equal('[{"role":"user","content":"one\\n\\ntwo\\n\\nthree"},'
        .. '{"role":"assistant","content":"x\\n\\ny"}]', json.encode(messages))
    end)

    it("a string merged with content blocks becomes a list of blocks", function()
      local system, messages = agent.messages({
        { role = "user", content = "one" },
        { role = "user", content = json.array({ { type = "tool_result", tool_use_id = "t1", content = "ok" } }) },
      })
      assert.is_nil(system)
      assert.are.equal('[{"role":"user","content":[{"type":"text","text":"one"},'
        .. '{"content":"ok","tool_use_id":"t1","type":"tool_result"}]}]', json.encode(messages))
    end)

    it("the body builder takes extra fields in a fixed place", function()
      local b = agent.body_table({ messages = { { role = "user", content = "hi" } }, options = { model = "c9" } },
        { tools = json.array({ { name = "t" } }), tool_choice = { type = "any" }, zeta = 1 })
      assert.are.equal('{"model":"c9","max_tokens":4096,"messages":[{"role":"user","content":"hi"}],'
        .. '"tools":[{"name":"t"}],"tool_choice":{"type":"any"},"zeta":1}', json.encode(b))
    end)
  end)

  describe("replies", function()
    it("fenced JSON: ok, the exact value, one repair", function()
      local reply = "Here you go:\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```"
      local r, log = run({ { reply = reply } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(GOOD, json.encode(r.value))
      assert.are.equal(1, #log)
      assert.are.equal(reply, r.attempts[1].reply)
      assert.are.equal("stop", r.attempts[1].finish)
      assert.are.equal("fenced_block", r.attempts[1].log[1].kind)
    end)

    it("wrong types, then valid: the second request carries the reply and the feedback; usage per attempt", function()
      local bad = '{"name": true, "age": "thirty"}'
      local r, log, sc = run({ { reply = bad }, { reply = GOOD, usage = { 5, 3 } } }, nil, nil, system_path)
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, r.metrics.attempts)
      assert.are.equal(2, #log)
      assert.are.equal("invalid", r.attempts[1].outcome)
      local turns = { { user(PROMPT) }, { user(PROMPT), assistant(bad), user(FEEDBACK_TYPES) } }
      for i, messages in ipairs(turns) do
        check_request(sc, log[i])
        assert.are.same(body(messages, { system = SYSTEM }), log[i].json)
      end
      assert.are.same({ input_tokens = 11, output_tokens = 7 }, r.attempts[1].usage)
      assert.are.same({ input_tokens = 5, output_tokens = 3 }, r.attempts[2].usage)
      assert.are.equal(16, r.metrics.input_tokens)
      assert.are.equal(10, r.metrics.output_tokens)
    end)

    it("cache reads and writes count as input tokens, and each is kept under its own name", function()
      local r = run({ { json = {
        type = "message", role = "assistant", content = { { type = "text", text = GOOD } },
        stop_reason = "end_turn",
        usage = { input_tokens = 10, cache_creation_input_tokens = 100, cache_read_input_tokens = 1000,
          output_tokens = 9 },
      } } })
      assert.are.equal("ok", r.outcome)
      assert.are.same({ input_tokens = 1110, output_tokens = 9, cached_input_tokens = 1000,
        cache_creation_input_tokens = 100 }, r.attempts[1].usage)
      assert.are.equal(1000, r.metrics.cached_input_tokens)
      assert.are.equal(100, r.metrics.cache_creation_input_tokens)
      assert.is_nil(r.metrics.reasoning_tokens)
    end)

    it("several text blocks are joined; other blocks are not text", function()
      local r = run({ { blocks = {
        { type = "thinking", thinking = "hmm", signature = "s" },
        { type = "text", text = '{"name": "Ada", ' }, { type = "text", text = '"age": 36}' },
      } } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal('{"name": "Ada", "age": 36}', r.attempts[1].reply)
    end)

    it("no text at all: a reply without JSON, and the model is asked again", function()
      local r, log = run({ { blocks = {} }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, #log)
      assert.are.equal("no_json", r.attempts[1].outcome)
      assert.are.equal("", r.attempts[1].reply)
    end)

    it("cut off (max_tokens) after complete JSON: finish length, never accepted, asked again", function()
      local reply = '{"name": "Ada", "age": 36}\n\nNote: the age was taken fr'
      local r, log = run({ { reply = reply, finish = "length" }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, #log)
      assert.are.equal("length", r.attempts[1].finish)
      assert.are.equal("invalid", r.attempts[1].outcome)
      assert.are.equal(reply, r.attempts[1].reply)
      assert.are.equal(CUT, r.attempts[1].errors[1].error)
    end)

    it("cut off (max_tokens) inside the JSON: repaired, never valid, so asked again", function()
      local cut = '{"name": "Ada", "age": 36'
      local r, log, sc = run({ { reply = cut, finish = "length" }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, #log)
      local first = r.attempts[1]
      assert.are.equal("length", first.finish)
      assert.are.equal("invalid", first.outcome)
      assert.are.same({ name = "Ada", age = 36 }, first.value)
      assert.are.equal("the reply was cut off: the JSON is incomplete", first.errors[1].error)
      check_request(sc, log[2])
      local m = log[2].json.messages
      assert.are.equal(3, #m)
      assert.are.same(assistant(cut), m[2])
      assert.matches("^Attempt 1/3: your JSON does not match the schema%.\n\nErrors:\n"
        .. "  %- At path '%(root%)': the reply was cut off: the JSON is incomplete\n", m[3].content)
      assert.are.equal("stop", r.attempts[2].finish)
    end)

    it("stopped by the context window or paused mid-turn: finish length, never accepted", function()
      for _, why in ipairs { "model_context_window_exceeded", "pause_turn" } do
        local r = run({ { reply = '{"name": "Ada", "age": 36', finish = why }, { reply = GOOD } })
        assert.are.equal("ok", r.outcome)
        assert.are.equal("length", r.attempts[1].finish)
        assert.are.equal("invalid", r.attempts[1].outcome)
      end
    end)

    it("another stop reason is kept as it is", function()
      local r = run({ { reply = GOOD, finish = "stop_sequence" } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal("stop_sequence", r.attempts[1].finish)
    end)

    it("streams: the exact text assembled from text deltas, usage from message_start and message_delta", function()
      local pieces = { '{"name"', ': "Ada", ', '"age": ', "36}" }
      local r, log, sc = run({ { stream = pieces, usage = { 4, 2 }, chunk_delay_ms = 2 } }, { stream = true })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(GOOD, json.encode(r.value))
      assert.are.equal('{"name": "Ada", "age": 36}', r.attempts[1].reply)
      assert.are.equal("stop", r.attempts[1].finish)
      assert.are.same({ input_tokens = 4, output_tokens = 2 }, r.attempts[1].usage)
      assert.are.equal(1, #log)
      check_request(sc, log[1], "text/event-stream")
      assert.are.equal('{"model":"c1","max_tokens":4096,"messages":[{"role":"user","content":'
        .. json.encode(PROMPT) .. '}],"stream":true}', log[1].body)
    end)

    it("streams: cut off at max_tokens is finish length, and never accepted", function()
      local r = run({ { stream = { '{"name": "Ada", "age": 36}', " and so" }, finish = "length" }, { reply = GOOD } },
        { stream = true })
      assert.are.equal("ok", r.outcome)
      assert.are.equal("length", r.attempts[1].finish)
      assert.are.equal("invalid", r.attempts[1].outcome)
      assert.are.equal(2, #r.attempts)
    end)

    it("streams: an error event is an agent error with its type and message", function()
      local overloaded = { type = "overloaded_error", message = "Overloaded" }
      local r, log = run({ { stream = { '{"name"' }, stream_error = overloaded }, { reply = GOOD } }, { stream = true })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal(1, #log)
      assert.are.equal("agent_error", r.error.code)
      assert.are.equal("anthropic agent: stream error (overloaded_error): Overloaded", r.error.message)
      assert.are.equal(200, r.error.http_status)
    end)

    it("streams: a server that ignores stream and sends one whole message is read as such", function()
      local r, log = run({ { reply = GOOD, usage = { 4, 2 } } }, { stream = true })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      assert.are.equal(GOOD, r.attempts[1].reply)
      assert.are.same({ input_tokens = 4, output_tokens = 2 }, r.attempts[1].usage)
    end)
  end)

  describe("transport retries", function()
    it("reads Anthropic's error body: the code is error.type", function()
      local transport = require "coax.transport"
      local code, message = transport.provider_error(
        '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}')
      assert.are.equal("overloaded_error", code)
      assert.are.equal("Overloaded", message)
    end)

    it("429 rate_limit_error with retry-after, then a reply: two requests, one attempt, retries = 1", function()
      local r, log, sc = run({
        { error = provider_error(429, "Number of request tokens has exceeded your per-minute rate limit"),
          headers = { ["retry-after"] = "0" } },
        { reply = GOOD },
      })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 2)
      assert.are.equal(1, r.metrics.attempts)
      assert.are.equal(1, r.attempts[1].retries)
      assert.are.equal(GOOD, json.encode(r.value))
    end)

    it("529 overloaded_error twice, then a reply, with max_retries = 2", function()
      local r, log, sc = run({ { error = provider_error(529, "Overloaded"), times = 2 }, { reply = GOOD } },
        { max_retries = 2 })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 3)
      assert.are.equal(1, r.metrics.attempts)
      assert.are.equal(2, r.attempts[1].retries)
    end)

    it("529 three times with max_retries = 2: agent_error with the status, the type and the message", function()
      local r, log, sc = run({ { error = provider_error(529, "Overloaded"), times = 3 } }, { max_retries = 2 })
      assert.are.equal("agent_error", r.outcome)
      check_same_requests(sc, log, 3)
      assert.are.equal("agent_error", r.error.code)
      assert.are.equal(529, r.error.http_status)
      assert.are.equal("anthropic agent: HTTP 529 (overloaded_error): Overloaded (after 2 retries)", r.error.message)
      assert.are.equal(json.null, r.value)
      assert.are.equal(2, r.attempts[1].retries)
      assert.are.equal(529, r.attempts[1].http_status)
    end)

    it("500 api_error, then a reply", function()
      local r, log, sc = run({ { error = provider_error(500, "Internal server error") }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 2)
      assert.are.equal(1, r.attempts[1].retries)
    end)

    for _, c in ipairs({
      { 400, "invalid_request_error", "max_tokens: 100000 > 64000, which is the maximum allowed" },
      { 401, "authentication_error", "invalid x-api-key" },
      { 403, "permission_error", "Your API key does not have permission to use the specified resource." },
      { 404, "not_found_error", "model: c1" },
    }) do
      it(("never retries %d (%s)"):format(c[1], c[2]), function()
        local r, log, sc = run({ { error = provider_error(c[1], c[3]) }, { reply = GOOD } })
        assert.are.equal("agent_error", r.outcome)
        check_same_requests(sc, log, 1)
        assert.are.equal("agent_error", r.error.code)
        assert.are.equal(c[1], r.error.http_status)
        assert.are.equal(("anthropic agent: HTTP %d (%s): %s"):format(c[1], c[2], c[3]), r.error.message)
        assert.are.equal(0, r.attempts[1].retries)
        assert.are.equal(c[1], r.attempts[1].http_status)
      end)
    end
  end)

  describe("refusals", function()
    local REFUSAL = "I can't help with extracting that."

    it("stop_reason refusal ends the session as an agent error with code refusal", function()
      local r, log, sc = run({ { refusal = REFUSAL }, { reply = GOOD } })
      assert.are.equal("agent_error", r.outcome)
      check_same_requests(sc, log, 1)
      assert.are.equal("refusal", r.error.code)
      assert.are.equal("the model refused: " .. REFUSAL, r.error.message)
      assert.are.equal("refused", r.attempts[1].outcome)
      assert.are.equal(REFUSAL, r.attempts[1].reply)
      assert.are.same({ input_tokens = 11, output_tokens = 7 }, r.attempts[1].usage)
    end)

    it("streamed, ends the session the same way", function()
      local r = run({ { stream = { "I can't ", "help." }, finish = "refusal" } }, { stream = true })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal("refusal", r.error.code)
      assert.are.equal("the model refused: I can't help.", r.error.message)
    end)

    it("with on_refusal = retry are a failed attempt, and the next reply succeeds", function()
      local r, log, sc = run({ { refusal = REFUSAL }, { reply = GOOD } }, { on_refusal = "retry" })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(GOOD, json.encode(r.value))
      assert.are.equal(2, r.metrics.attempts)
      assert.are.equal(2, #log)
      assert.are.equal("no_json", r.attempts[1].outcome)
      assert.are.equal("refusal", r.attempts[1].finish)
      local feedback = table.concat({
        "Attempt 1/3: no JSON could be read from your reply: no JSON value found in 34 bytes of text.",
        "",
        "Your reply began with:",
        REFUSAL,
        "",
        "Fix this and reply with the corrected JSON only.",
      }, "\n")
      check_request(sc, log[2])
      assert.are.same(body({ user(PROMPT), assistant(REFUSAL), user(feedback) }), log[2].json)
    end)
  end)

  describe("the API key", function()
    it("never appears in a report or an error message", function()
      local reports = {
        (run({ { reply = GOOD } })),
        (run({ { reply = '{"name": "' .. KEY .. '", "age": 36}' } })),
        (run({ { stream = { '{"name": "', KEY:sub(1, 9), KEY:sub(10), '", "age": 36}' } } }, { stream = true })),
        (run({ { error = provider_error(529, "Overloaded " .. KEY), times = 2 } }, { max_retries = 1 })),
        (run({ { reply = '{"name": 1}' }, { refusal = "no " .. KEY } })),
        (run({ { error = provider_error(401, "invalid x-api-key: " .. KEY) } })),
        (run({ { stream = { "x" }, stream_error = { type = "api_error", message = "bad " .. KEY } } },
          { stream = true })),
      }
      for i, r in ipairs(reports) do
        local text = json.encode(r)
        assert.is_nil(text:find(KEY, 1, true), "report " .. i .. ": " .. text)
        assert.is_nil(text:find("SENTINEL", 1, true), "report " .. i .. ": " .. text)
      end
      assert.are.equal("[redacted]", reports[2].value.name)
      assert.are.equal("[redacted]", reports[3].value.name)
      assert.are.equal('{"name": "[redacted]", "age": 36}', reports[3].attempts[1].reply)
      assert.are.equal("anthropic agent: HTTP 529 (overloaded_error): Overloaded [redacted] (after 1 retry)",
        reports[4].error.message)
      assert.are.equal("the model refused: no [redacted]", reports[5].error.message)
      assert.are.equal("anthropic agent: HTTP 401 (authentication_error): invalid x-api-key: [redacted]",
        reports[6].error.message)
      assert.are.equal("anthropic agent: stream error (api_error): bad [redacted]", reports[7].error.message)
    end)
  end)

  describe("bad responses", function()
    it("a malformed JSON body with status 200: agent_error naming the body", function()
      local r, log = run({ { status = 200, body = '{"content": [' }, { reply = GOOD } })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal(1, #log)
      assert.are.equal("anthropic agent: the response body is not JSON", r.error.message)
      assert.are.equal(200, r.error.http_status)
    end)

    it("a JSON body without content: agent_error", function()
      local r = run({ { json = { type = "message", role = "assistant" } } })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal("anthropic agent: the response has no content list", r.error.message)
    end)

    it("an error body with status 200: agent_error with its type and message", function()
      local r = run({ { json = { type = "error", error = { type = "api_error", message = "odd" } } } })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal("anthropic agent: api_error: odd", r.error.message)
    end)

    it("a stream with no events: agent_error", function()
      local r = run({ { status = 200, body = "", headers = { ["content-type"] = "text/event-stream" } } },
        { stream = true })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal("anthropic agent: the stream carried no events", r.error.message)
    end)
  end)
end)

describe("coax run --agent anthropic", function()
  local function args(sc, ...)
    return { "run", recipe_path, "--agent", "anthropic", "--base-url", sc.base_url, "--model", "c2",
      "--input", input_path, ... }
  end

  it("takes the key from ANTHROPIC_API_KEY and prints the value", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax(args(sc, "--mode", "prompt"), nil, { ANTHROPIC_API_KEY = KEY })
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    assert.are.equal(GOOD .. "\n", out)
    local log = sc:log()
    assert.are.equal(1, #log)
    check_request(sc, log[1])
    assert.are.same({ model = "c2", max_tokens = 4096, messages = { user(PROMPT) } }, log[1].json)
  end)

  it("--verbose and --report: the key is in neither stderr nor the report, even when echoed", function()
    local sc = provider:scenario({
      { error = provider_error(529, "Overloaded " .. KEY) },
      { reply = '{"name": true, "age": "' .. KEY .. '"}' },
      { reply = GOOD },
    })
    local report = provider:path("report.json")
    local out, err, code = H.coax(args(sc, "--verbose", "--report", report, "--agent-options",
      '{"retry_base_ms": 5}'), nil, { ANTHROPIC_API_KEY = KEY })
    assert.are.equal(0, code, err)
    assert.are.equal(GOOD .. "\n", out)
    assert.is_nil(err:find(KEY, 1, true), err)
    assert.is_nil(err:find("SENTINEL", 1, true), err)
    local text = report_check.valid(H.read(report))
    assert.is_nil(text:find(KEY, 1, true), text)
    assert.is_nil(text:find("SENTINEL", 1, true), text)
    local r = json.decode(text)
    assert.are.equal('{"name": true, "age": "[redacted]"}', r.attempts[1].reply)
    -- the history sent back to the model carries the redacted echo only
    local log = sc:log()
    assert.are.equal(3, #log)
    assert.is_nil(log[3].body:find(KEY, 1, true))
    assert.are.equal('{"name": true, "age": "[redacted]"}', log[3].json.messages[2].content)
    assert.are.equal(KEY, log[3].headers["x-api-key"])
    local lines = P.lines(err)
    assert.are.equal(8, #lines, err) -- 6 HTTP lines and the 2 attempts told
    assert.matches("^coax run: attempt 1: 2 schema errors, at /name: expected string, got boolean true %(and 1 more%); "
      .. "fed back, asking again$", lines[7])
    assert.are.equal("coax run: attempt 2: valid, accepted", lines[8])
    P.check_posts(lines, sc.base_url .. "/messages", log)
    assert.matches("^coax run: http #1 < 529 %([%d.]+ ms, %d+ bytes%)$", lines[2])
    assert.matches("^coax run: http #3 < 200 %([%d.]+ ms, %d+ bytes%)$", lines[6])
  end)

  it("--mode json_schema exits 2 naming anthropic's modes and sends nothing", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax(args(sc, "--mode", "json_schema"), nil, { ANTHROPIC_API_KEY = KEY })
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("coax run: --mode wants prompt or tools, not 'json_schema'\n", err)
    assert.are.equal(0, #sc:log())
  end)

  it("a 400 exits 3 with the provider's message", function()
    local sc = provider:scenario({ { error = provider_error(400, "messages: at least one message is required") } })
    local out, err, code = H.coax(args(sc), nil, { ANTHROPIC_API_KEY = KEY })
    assert.are.equal(3, code)
    assert.are.equal("", out)
    assert.truthy(err:find("anthropic agent: HTTP 400 (invalid_request_error): messages: at least one message is "
      .. "required", 1, true), err)
    assert.are.equal(1, #sc:log())
  end)
end)
