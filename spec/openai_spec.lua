--- The OpenAI-compatible agent (lua/coax/agents/openai.lua, coax.transport,
-- engine/io/http.c) end to end: whole extractions against the mock server
-- (spec/mock), asserting the exact requests it received and the reports.
local H = require "helper"
local cjson = require "cjson"
local P = require "providers"
local json = require("coax").json

local KEY = "sk-test-SENTINEL-0042"
local SCHEMA, GOOD, INPUT, PROMPT, CUT = P.SCHEMA, P.GOOD, P.INPUT, P.PROMPT, P.CUT
local OPTIONAL = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},'
  .. '"required":["name"],"additionalProperties":false}'
-- The first prompt when the schema is not in the request.
local PROMPT_WITH_SCHEMA = P.with_schema(PROMPT)
local user, assistant, plain = P.user, P.assistant, P.plain

-- Extractions through the openai agent (providers.lua): fast retries and
-- timeouts unless `agent_options` says otherwise.
local provider = P.harness { agent = "openai", options = { model = "m1", timeout_ms = 300 },
  secrets = { OPENAI_API_KEY = KEY } }
local run_on, run = provider:runners()
local recipe_path, optional_path, input_path = provider:path("recipe.lua"), provider:path("optional.lua"),
  provider:path("input.txt")

setup(function()
  provider:start {
    ["schema.json"] = SCHEMA, ["optional.json"] = OPTIONAL, ["input.txt"] = INPUT,
    ["recipe.lua"] = P.recipe(), ["optional.lua"] = P.recipe("optional.json"),
  }
end)

teardown(function() provider:stop() end)

-- What every request of the agent looks like on the wire.
local function check_request(sc, req, accept)
  P.check_request(req, { path = "/s/" .. sc.name .. "/v1/chat/completions", accept = accept or "application/json",
    headers = { authorization = "Bearer " .. KEY }, length = true })
end

local STRICT_FORMAT = {
  type = "json_schema",
  json_schema = { name = "extraction", schema = cjson.decode(SCHEMA), strict = true },
}

-- The body of a json_schema request (strict, the default schema) with `messages`.
local function schema_body(messages, model)
  return { model = model or "m1", messages = messages, response_format = STRICT_FORMAT }
end

-- The body of every request of a one-attempt run that was sent again.
local function check_same_requests(sc, log, n)
  assert.are.equal(n, #log)
  for _, req in ipairs(log) do
    check_request(sc, req)
    assert.are.same(schema_body({ user(PROMPT) }), req.json)
  end
end

-- A step's `error`: an OpenAI error body with this status.
local function provider_error(status, message, kind, code)
  return { status = status, message = message, type = kind, code = code }
end

describe("the openai agent against a mock server", function()
  describe("requests", function()
    it("json_schema mode sends the exact schema with strict on for a closed, all-required object", function()
      local r, log, sc = run({ { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.same({ name = "Ada", age = 36 }, r.value)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.equal('{"model":"m1","messages":[{"role":"user","content":"' .. PROMPT .. '"}],'
        .. '"response_format":{"type":"json_schema","json_schema":{"name":"extraction","schema":' .. SCHEMA
        .. ',"strict":true}}}', log[1].body)
      assert.are.same({ user(PROMPT) }, plain(r.attempts[1].messages))
    end)

    it("json_schema mode turns strict off for a schema with an optional property", function()
      local r, log, sc = run({ { reply = GOOD } }, nil, nil, optional_path)
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.same({
        model = "m1", messages = { user(PROMPT) },
        response_format = {
          type = "json_schema",
          json_schema = { name = "extraction", schema = cjson.decode(OPTIONAL), strict = false },
        },
      }, log[1].json)
    end)

    it("json_schema mode: the agent option strict = false forces strict off", function()
      local r, log, sc = run({ { reply = GOOD } }, { strict = false })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.same({
        model = "m1", messages = { user(PROMPT) },
        response_format = {
          type = "json_schema",
          json_schema = { name = "extraction", schema = cjson.decode(SCHEMA), strict = false },
        },
      }, log[1].json)
    end)

    it("json_object mode sends response_format json_object and the schema in the prompt", function()
      local r, log, sc = run({ { reply = GOOD } }, { mode = "json_object" })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.same({
        model = "m1", messages = { user(PROMPT_WITH_SCHEMA) }, response_format = { type = "json_object" },
      }, log[1].json)
      assert.are.same({ user(PROMPT_WITH_SCHEMA) }, plain(r.attempts[1].messages))
    end)

    it("prompt mode sends no response_format, the schema in the first user message", function()
      local r, log, sc = run({ { reply = GOOD } }, { mode = "prompt" })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.same({ model = "m1", messages = { user(PROMPT_WITH_SCHEMA) } }, log[1].json)
      assert.is_nil(log[1].body:find("response_format", 1, true))
    end)

    it("a base_url with a trailing slash still posts to .../v1/chat/completions", function()
      local sc = provider:scenario({ { reply = GOOD } })
      local r, log = run_on(sc, { base_url = sc.base_url .. "/" })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.equal("/s/" .. sc.name .. "/v1/chat/completions", log[1].target)
    end)
  end)

  describe("replies", function()
    it("fenced JSON: ok, the exact value, one repair", function()
      local reply = "Here you go:\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```"
      local r, log = run({ { reply = reply } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(GOOD, json.encode(r.value))
      assert.are.equal(1, #log)
      assert.are.equal(1, r.metrics.repairs)
      assert.are.equal(reply, r.attempts[1].reply)
      assert.are.equal("fenced_block", r.attempts[1].log[1].kind)
    end)

    it("prose around JSON: ok, the exact value, one repair", function()
      local reply = 'Sure! The person is {"name": "Ada", "age": 36}, as the text says.'
      local r, log = run({ { reply = reply } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(GOOD, json.encode(r.value))
      assert.are.equal(1, #log)
      assert.are.equal(1, r.metrics.repairs)
      assert.are.equal("prose_span", r.attempts[1].log[1].kind)
    end)

    it("wrong types, then valid: the second request carries the reply and feedback naming each pointer", function()
      local bad = '{"name": true, "age": "thirty"}'
      local r, log, sc = run({ { reply = bad }, { reply = GOOD, usage = { 5, 3 } } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(GOOD, json.encode(r.value))
      assert.are.equal(2, r.metrics.attempts)
      assert.are.equal(2, #log)
      assert.are.equal("invalid", r.attempts[1].outcome)
      local feedback = table.concat({
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
      local second = { user(PROMPT), assistant(bad), user(feedback) }
      for i, messages in ipairs({ { user(PROMPT) }, second }) do
        check_request(sc, log[i])
        assert.are.same(schema_body(messages), log[i].json)
        assert.are.same(messages, plain(H.conversation(r, i)))
      end
      -- the provider's usage, per attempt and summed (the mock's default is [11, 7])
      assert.are.same({ input_tokens = 11, output_tokens = 7 }, r.attempts[1].usage)
      assert.are.same({ input_tokens = 5, output_tokens = 3 }, r.attempts[2].usage)
      assert.are.equal(16, r.metrics.input_tokens)
      assert.are.equal(10, r.metrics.output_tokens)
    end)

    it("a missing field, then valid: the feedback names the pointer of the object missing it", function()
      local bad = '{"name": "Ada"}'
      local r, log, sc = run({ { reply = bad }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, r.metrics.attempts)
      assert.are.equal(2, #log)
      local feedback = table.concat({
        "Attempt 1/3: your JSON does not match the schema.",
        "",
        "Errors:",
        "  - At path '(root)': missing required property \"age\"",
        "",
        "Your submission:",
        '{\n  "name": "Ada"\n}',
        "",
        "Fix all of the errors above and reply with the corrected JSON only.",
      }, "\n")
      check_request(sc, log[2])
      assert.are.same(schema_body({ user(PROMPT), assistant(bad), user(feedback) }), log[2].json)
      assert.are.equal(22, r.metrics.input_tokens)
      assert.are.equal(14, r.metrics.output_tokens)
    end)

    it("cut off (finish length) after complete JSON: never accepted, the model is asked again", function()
      -- design.md: a reply the provider says was cut off is never accepted
      -- as complete, whatever its shape.
      local reply = '{"name": "Ada", "age": 36}\n\nNote: the age was taken fr'
      local r, log = run({ { reply = reply, finish = "length" }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, #log)
      assert.are.equal(2, r.metrics.attempts)
      local first = r.attempts[1]
      assert.are.equal("length", first.finish)
      assert.are.equal("invalid", first.outcome)
      assert.are.equal(reply, first.reply)
      assert.are.same({ name = "Ada", age = 36 }, first.value)
      assert.are.same({ { instanceLocation = "", keywordLocation = "", error = CUT } }, first.errors)
      assert.are.equal(reply, log[2].json.messages[2].content)
      assert.matches("  - At path '(root)': " .. CUT, log[2].json.messages[3].content, 1, true)
      assert.are.equal("stop", r.attempts[2].finish)
    end)

    it("cut off (finish length) inside the JSON: repaired, but never valid, so asked again", function()
      -- README "Never guessed": a value closed at the end of a cut-off reply
      -- may not be what the model meant, so it is not accepted.
      local cut = '{"name": "Ada", "age": 36'
      local r, log, sc = run({ { reply = cut, finish = "length" }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, #log)
      local first = r.attempts[1]
      assert.are.equal("length", first.finish)
      assert.are.equal("invalid", first.outcome)
      assert.are.same({ name = "Ada", age = 36 }, first.value) -- what repair made of it
      assert.are.equal("closed_bracket", first.log[1].kind)
      assert.are.equal("the reply was cut off: the JSON is incomplete", first.errors[1].error)
      check_request(sc, log[2])
      local m = log[2].json.messages
      assert.are.equal(3, #m)
      assert.are.same(assistant(cut), m[2])
      assert.matches("^Attempt 1/3: your JSON does not match the schema%.\n\nErrors:\n"
        .. "  %- At path '%(root%)': the reply was cut off: the JSON is incomplete\n", m[3].content)
      assert.are.equal("stop", r.attempts[2].finish)
    end)

    it("streams: the exact text assembled, usage from the last chunk", function()
      local pieces = { '{"name"', ': "Ada", ', '"age": ', "36}" }
      local r, log, sc = run({ { stream = pieces, usage = { 4, 2 }, chunk_delay_ms = 2 } }, { stream = true })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(GOOD, json.encode(r.value))
      assert.are.equal('{"name": "Ada", "age": 36}', r.attempts[1].reply)
      assert.are.equal("stop", r.attempts[1].finish)
      assert.are.same({ input_tokens = 4, output_tokens = 2 }, r.attempts[1].usage)
      assert.are.equal(4, r.metrics.input_tokens)
      assert.are.equal(2, r.metrics.output_tokens)
      assert.are.equal(1, #log)
      check_request(sc, log[1], "text/event-stream")
      local body = schema_body({ user(PROMPT) })
      body.stream = true
      body.stream_options = { include_usage = true }
      assert.are.same(body, log[1].json)
    end)

    it("streams: a server that ignores stream and sends one whole completion is read as such", function()
      local r, log = run({ { reply = GOOD, usage = { 4, 2 } } }, { stream = true })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      assert.are.equal(GOOD, r.attempts[1].reply)
      assert.are.same({ input_tokens = 4, output_tokens = 2 }, r.attempts[1].usage)
    end)
  end)

  describe("transport retries", function()
    it("429 with retry-after-ms, then a reply: two requests, one attempt, retries = 1", function()
      local r, log, sc = run({
        { error = provider_error(429, "Rate limit reached", "requests", "rate_limit_exceeded"),
          headers = { ["retry-after-ms"] = "5" } },
        { reply = GOOD },
      })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 2)
      assert.are.equal(1, r.metrics.attempts)
      assert.are.equal(1, #r.attempts)
      assert.are.equal(1, r.attempts[1].retries)
      assert.are.equal(GOOD, json.encode(r.value))
    end)

    it("waits as long as retry-after-ms says", function()
      local r, log = run({
        { error = provider_error(429, "Rate limit reached", "requests", "rate_limit_exceeded"),
          headers = { ["retry-after-ms"] = "200" } },
        { reply = GOOD },
      })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, #log)
      assert.is_true(log[2].t - log[1].t >= 180, "waited " .. (log[2].t - log[1].t) .. " ms")
      assert.is_true(r.attempts[1].elapsed_ms >= 180)
    end)

    it("500, then a reply", function()
      local r, log, sc = run({ { error = provider_error(500, "The server had an error") }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 2)
      assert.are.equal(1, r.metrics.attempts)
      assert.are.equal(1, r.attempts[1].retries)
    end)

    it("503 twice, then a reply, with max_retries = 2", function()
      local r, log, sc = run({ { error = provider_error(503, "Overloaded"), times = 2 }, { reply = GOOD } },
        { max_retries = 2 })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 3)
      assert.are.equal(1, r.metrics.attempts)
      assert.are.equal(2, r.attempts[1].retries)
    end)

    it("500 three times with max_retries = 2: agent_error with the status and the provider's message", function()
      local r, log, sc = run({ { error = provider_error(500, "The server had an error"), times = 3 } },
        { max_retries = 2 })
      assert.are.equal("agent_error", r.outcome)
      check_same_requests(sc, log, 3)
      assert.are.equal("agent_error", r.error.code)
      assert.are.equal(500, r.error.http_status)
      assert.are.equal("openai agent: HTTP 500 (server_error): The server had an error (after 2 retries)",
        r.error.message)
      assert.truthy(r.error.message:find("HTTP 500", 1, true))
      assert.truthy(r.error.message:find("(after 2 retries)", 1, true))
      assert.are.equal(json.null, r.value)
      assert.are.equal(1, r.metrics.attempts)
      assert.are.equal("agent_error", r.attempts[1].outcome)
      assert.are.equal(2, r.attempts[1].retries)
      assert.are.equal(500, r.attempts[1].http_status)
    end)

    for _, c in ipairs({
      { 400, "invalid_request_error", "Invalid schema for response_format" },
      { 401, "invalid_request_error", "Incorrect API key provided" },
      { 403, "permission_denied", "Country, region, or territory not supported" },
      { 404, "invalid_request_error", "The model `m1` does not exist" },
    }) do
      it(("never retries %d"):format(c[1]), function()
        local r, log, sc = run({ { error = provider_error(c[1], c[3], c[2]) }, { reply = GOOD } })
        assert.are.equal("agent_error", r.outcome)
        check_same_requests(sc, log, 1)
        assert.are.equal(c[1], r.error.http_status)
        assert.are.equal(("openai agent: HTTP %d (%s): %s"):format(c[1], c[2], c[3]), r.error.message)
        assert.are.equal(0, r.attempts[1].retries)
        assert.are.equal(c[1], r.attempts[1].http_status)
      end)
    end

    it("names the URL posted on a 404 with an empty body, and suggests /v1 when the base URL lacks it", function()
      local sc = provider:scenario({ { status = 404, body = "" }, { status = 404, body = "" },
        { status = 405, body = "" } })
      local bare = sc.base_url:gsub("/v1$", "")
      local r = run_on(sc, { base_url = bare })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal(("openai agent: HTTP 404: the response has no message (POST %s/chat/completions); "
        .. "OpenAI-compatible servers serve under /v1: try base_url %s/v1"):format(bare, bare), r.error.message)
      -- with /v1 already there, no suggestion; the key in a query is never shown
      r = run_on(sc, { base_url = sc.base_url .. "?key=SECRET" })
      assert.are.equal(("openai agent: HTTP 404: the response has no message (POST %s)"):format(sc.base_url),
        r.error.message)
      r = run_on(sc, {})
      assert.are.equal(("openai agent: HTTP 405: the response has no message (POST %s/chat/completions)")
        :format(sc.base_url), r.error.message)
    end)

    it("never retries a 429 for insufficient_quota", function()
      local r, log, sc = run({
        { error = provider_error(429, "You exceeded your current quota", "insufficient_quota", "insufficient_quota") },
        { reply = GOOD },
      })
      assert.are.equal("agent_error", r.outcome)
      check_same_requests(sc, log, 1)
      assert.are.equal(429, r.error.http_status)
      assert.are.equal("openai agent: HTTP 429 (insufficient_quota): You exceeded your current quota", r.error.message)
    end)

    it("x-should-retry: false on a 500 is not retried", function()
      local r, log, sc = run({
        { error = provider_error(500, "Do not retry"), headers = { ["x-should-retry"] = "false" } },
        { reply = GOOD },
      })
      assert.are.equal("agent_error", r.outcome)
      check_same_requests(sc, log, 1)
      assert.are.equal(500, r.error.http_status)
      assert.are.equal("openai agent: HTTP 500 (server_error): Do not retry", r.error.message)
    end)

    it("x-should-retry: true on a 400 is retried", function()
      local r, log, sc = run({
        { error = provider_error(400, "Try again", "invalid_request_error"),
          headers = { ["x-should-retry"] = "true" } },
        { reply = GOOD },
      })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 2)
      assert.are.equal(1, r.attempts[1].retries)
    end)

    it("retry-after in seconds (0)", function()
      local r, log, sc = run({
        { error = provider_error(429, "Slow down", "requests"), headers = { ["retry-after"] = "0" } },
        { reply = GOOD },
      })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 2)
      assert.are.equal(1, r.attempts[1].retries)
    end)

    it("retry-after as an HTTP date in the past: retried at once", function()
      local r, log, sc = run({
        { error = provider_error(503, "Overloaded"), headers = { ["retry-after"] = "Wed, 21 Oct 2015 07:28:00 GMT" } },
        { reply = GOOD },
      })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 2)
      assert.are.equal(1, r.attempts[1].retries)
    end)

    it("a stalled response times out: agent_error naming the timeout", function()
      local r, log, sc = run({ { stall = true } }, { timeout_ms = 300, max_retries = 0 })
      assert.are.equal("agent_error", r.outcome)
      check_same_requests(sc, log, 1)
      assert.are.equal("agent_error", r.error.code)
      assert.matches("^openai agent: .*timed out.* %(timeout%)$", r.error.message)
      assert.is_nil(r.error.http_status)
      assert.are.equal(0, r.attempts[1].retries)
      assert.is_true(r.attempts[1].elapsed_ms >= 280)
    end)

    it("a stalled response, then a reply, with max_retries = 1: ok", function()
      local r, log, sc = run({ { stall = true }, { reply = GOOD } }, { timeout_ms = 300, max_retries = 1 })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 2)
      assert.are.equal(1, r.metrics.attempts)
      assert.are.equal(1, r.attempts[1].retries)
      assert.are.equal(GOOD, json.encode(r.value))
    end)
  end)

  describe("refusals", function()
    local REFUSAL = "I'm sorry, I can't help with that."

    it("end the session as an agent error with code refusal", function()
      local r, log, sc = run({ { refusal = REFUSAL }, { reply = GOOD } })
      assert.are.equal("agent_error", r.outcome)
      check_same_requests(sc, log, 1)
      assert.are.equal("refusal", r.error.code)
      assert.are.equal("the model refused: " .. REFUSAL, r.error.message)
      assert.are.equal("refused", r.attempts[1].outcome)
      assert.are.equal(REFUSAL, r.attempts[1].reply)
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
      assert.are.same(schema_body({ user(PROMPT), assistant(REFUSAL), user(feedback) }), log[2].json)
    end)
  end)

  describe("the API key", function()
    it("never appears in a report or an error message", function()
      local reports = {
        (run({ { reply = GOOD } })),
        (run({ { reply = '{"name": "' .. KEY .. '", "age": 36}' } })),
        (run({ { stream = { '{"name": "', KEY, '", "age": 36}' } } }, { stream = true })),
        (run({ { error = provider_error(500, "boom " .. KEY), times = 2 } }, { max_retries = 1 })),
        (run({ { reply = '{"name": 1}' }, { refusal = "no " .. KEY } })),
        (run({ { stall = true } }, { timeout_ms = 100, max_retries = 0 })),
      }
      for i, r in ipairs(reports) do
        local text = json.encode(r)
        assert.is_nil(text:find(KEY, 1, true), "report " .. i .. ": " .. text)
        if r.error ~= json.null then assert.is_nil(r.error.message:find(KEY, 1, true)) end
      end
      -- an echoed key reaches neither the value nor the messages of the next attempt
      assert.are.equal("[redacted]", reports[2].value.name)
      assert.are.equal("[redacted]", reports[3].value.name)
      assert.are.equal("the model refused: no [redacted]", reports[5].error.message)
    end)

    it("split across two streamed events is still redacted in the reply, value and report", function()
      local half = #KEY // 2
      local r = run({ { stream = { '{"name": "', KEY:sub(1, half), KEY:sub(half + 1), '", "age": 36}' } } },
        { stream = true })
      assert.are.equal("ok", r.outcome)
      assert.are.equal("[redacted]", r.value.name)
      assert.are.equal('{"name": "[redacted]", "age": 36}', r.attempts[1].reply)
      assert.is_nil(json.encode(r):find(KEY, 1, true))
    end)

    it("echoed in a 401's error body is redacted in the error message", function()
      local r, log, sc = run({ {
        status = 401,
        json = { error = {
          message = "Incorrect API key provided: " .. KEY .. ". You can find your API key at "
            .. "https://platform.openai.com/account/api-keys.",
          type = "invalid_request_error", param = cjson.null, code = "invalid_api_key",
        } },
      } })
      assert.are.equal("agent_error", r.outcome)
      check_same_requests(sc, log, 1)
      assert.are.equal(401, r.error.http_status)
      assert.are.equal("openai agent: HTTP 401 (invalid_api_key): Incorrect API key provided: [redacted]. "
        .. "You can find your API key at https://platform.openai.com/account/api-keys.", r.error.message)
      assert.is_nil(json.encode(r):find(KEY, 1, true))
    end)

    it("none: no Authorization header", function()
      local r, log = run({ { reply = GOOD } }, nil, { secrets = {} })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      assert.is_nil(log[1].headers.authorization)
      assert.are.equal("application/json", log[1].headers["content-type"])
      assert.are.same(schema_body({ user(PROMPT) }), log[1].json)
    end)
  end)

  describe("bad responses", function()
    it("larger than http_max_response: outcome limit", function()
      local long = '{"name": "' .. string.rep("a", 2000) .. '", "age": 36}'
      local r, log = run({ { reply = long }, { reply = GOOD } }, nil, { http_max_response = 1000 })
      assert.are.equal("limit", r.outcome)
      assert.are.equal(1, #log)
      assert.truthy(r.error.message:find("the response is larger than the limit of 1000 bytes", 1, true))
      assert.are.equal(json.null, r.value)
    end)

    it("a malformed JSON body with status 200: agent_error naming the body", function()
      local r, log = run({ { status = 200, body = '{"choices": [' }, { reply = GOOD } })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal(1, #log)
      assert.are.equal("openai agent: the response body is not JSON", r.error.message)
      assert.are.equal(200, r.error.http_status)
    end)
  end)
end)

describe("coax run --agent openai", function()
  local function args(sc, ...)
    return { "run", recipe_path, "--agent", "openai", "--base-url", sc.base_url, "--model", "m2",
      "--mode", "json_object", "--input", input_path, ... }
  end

  it("takes the key from the environment and prints the value", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax(args(sc), nil, { OPENAI_API_KEY = KEY })
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    assert.are.equal(GOOD .. "\n", out)
    local log = sc:log()
    assert.are.equal(1, #log)
    check_request(sc, log[1])
    assert.are.same({
      model = "m2", messages = { user(PROMPT_WITH_SCHEMA) }, response_format = { type = "json_object" },
    }, log[1].json)
  end)

  it("--verbose logs each request and response on stderr, never the key", function()
    local sc = provider:scenario({ { error = provider_error(503, "Overloaded " .. KEY) }, { reply = GOOD } })
    local out, err, code = H.coax(args(sc, "--verbose", "--agent-options", '{"retry_base_ms": 5}'), nil,
      { OPENAI_API_KEY = KEY })
    assert.are.equal(0, code, err)
    assert.are.equal(GOOD .. "\n", out)
    assert.is_nil(err:find(KEY, 1, true), err)
    assert.is_nil(err:find("SENTINEL", 1, true), err)
    local log = sc:log()
    assert.are.equal(2, #log)
    local lines = P.lines(err)
    assert.are.equal(5, #lines, err) -- and the attempt told
    assert.are.equal("coax run: attempt 1: valid, accepted", lines[5])
    P.check_posts(lines, sc.base_url .. "/chat/completions", log)
    assert.matches("^coax run: http #1 < 503 %([%d.]+ ms, %d+ bytes%)$", lines[2])
    assert.matches("^coax run: http #2 < 200 %([%d.]+ ms, %d+ bytes%)$", lines[4])
  end)

  it("--mode x exits 2 with a one-line message and sends nothing", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local cmd = args(sc)
    for i, a in ipairs(cmd) do
      if a == "json_object" then cmd[i] = "x" end
    end
    local out, err, code = H.coax(cmd, nil, { OPENAI_API_KEY = KEY })
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("coax run: --mode wants json_schema, json_object, prompt or tools, not 'x'\n", err)
    assert.are.equal(0, #sc:log())
  end)
end)
