--- The Gemini agent (lua/coax/agents/gemini.lua) end to end against the mock
-- server's Gemini API (spec/mock): the exact requests (URL, key header,
-- systemInstruction, contents and roles, generationConfig, tools), the
-- replies plain and streamed, finish reasons, refusals, usage, errors and
-- their retries, and tools mode. Every report validates against the report
-- schema.
local H = require "helper"
local cjson = require "cjson"
local P = require "providers"

local KEY = "gm-test-SENTINEL-GEMINI"
local SCHEMA, GOOD, INPUT, PROMPT, CUT = P.SCHEMA, P.GOOD, P.INPUT, P.PROMPT, P.CUT
-- A schema Gemini's responseJsonSchema does not take (pattern).
local PATTERNED = '{"type":"object","properties":{"name":{"type":"string","pattern":"^[A-Z]"},'
  .. '"age":{"type":"integer"}},"required":["name","age"]}'
-- Annotations (never constraints) are left out of the schema sent; a
-- property named like one is a property.
local ANNOTATED = '{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"P","type":"object",'
  .. '"properties":{"default":{"type":"string","examples":["x"]},"n":{"anyOf":[{"type":"integer","default":1},'
  .. '{"type":"null"}]}},"$defs":{"d":{"type":"string","$comment":"c"}},"required":["default"]}'
local ANNOTATED_SENT = '{"title":"P","type":"object","properties":{"default":{"type":"string"},"n":{"anyOf":'
  .. '[{"type":"integer"},{"type":"null"}]}},"$defs":{"d":{"type":"string"}},"required":["default"]}'
local SYSTEM = "You extract people."

local provider = P.harness { agent = "gemini", options = { model = "g1" }, secrets = { GEMINI_API_KEY = KEY } }

setup(function()
  provider:start {
    ["schema.json"] = SCHEMA, ["patterned.json"] = PATTERNED, ["annotated.json"] = ANNOTATED,
    ["recipe.lua"] = P.recipe(), ["system.lua"] = P.recipe("schema.json", ', system = "' .. SYSTEM .. '"'),
    ["annotated.lua"] = P.recipe("annotated.json"), ["patterned.lua"] = P.recipe("patterned.json"),
  }
end)

teardown(function() provider:stop() end)

-- One extraction against scenario `sc` with recipe `recipe` (recipe.lua by
-- default) and the secrets given (the key by default).
local function run_on(sc, options, recipe, secrets)
  return provider:run_on(sc, options, secrets and { secrets = secrets }, (recipe or "recipe") .. ".lua")
end

local function run(steps, options, recipe)
  return provider:run(steps, options, nil, (recipe or "recipe") .. ".lua")
end

-- What every request looks like on the wire.
local function check_request(sc, req, method, accept)
  P.check_request(req, { path = "/s/" .. sc.name .. "/v1/models/g1:" .. (method or "generateContent"),
    accept = accept or "application/json", headers = { ["x-goog-api-key"] = KEY, authorization = false } })
end

local function turn(role, text) return { role = role, parts = { { text = text } } } end

describe("the gemini agent's requests", function()
  it("json_schema mode: the exact body, responseJsonSchema the schema as written", function()
    local r, log, sc = run({ { reply = GOOD } })
    assert.are.equal("ok", r.outcome)
    assert.are.same({ name = "Ada", age = 36 }, r.value)
    assert.are.equal(1, #log)
    check_request(sc, log[1])
    assert.are.equal('{"contents":[{"role":"user","parts":[{"text":"' .. PROMPT .. '"}]}],'
      .. '"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":' .. SCHEMA .. '}}',
      log[1].body)
  end)

  it("a schema with what Gemini does not take goes in the prompt; JSON is still asked", function()
    local r, log = run({ { reply = GOOD } }, nil, "patterned")
    assert.are.equal("ok", r.outcome)
    local prompt = P.with_schema(PROMPT, PATTERNED)
    assert.are.same({ contents = { turn("user", prompt) },
      generationConfig = { responseMimeType = "application/json" } }, log[1].json)
  end)

  it("annotations are left out of responseJsonSchema, the rest sent in its order", function()
    local r, log = run({ { reply = '{"default":"x","n":1}' } }, nil, "annotated")
    assert.are.equal("ok", r.outcome)
    assert.are.equal('{"contents":[{"role":"user","parts":[{"text":"' .. PROMPT .. '"}]}],'
      .. '"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":' .. ANNOTATED_SENT .. '}}',
      log[1].body)
  end)

  it("json mode: JSON asked, the schema in the prompt; prompt mode: no generationConfig", function()
    local prompt = P.with_schema(PROMPT)
    local _, log = run({ { reply = GOOD } }, { mode = "json" })
    assert.are.same({ contents = { turn("user", prompt) },
      generationConfig = { responseMimeType = "application/json" } }, log[1].json)
    _, log = run({ { reply = GOOD } }, { mode = "prompt" })
    assert.are.same({ contents = { turn("user", prompt) } }, log[1].json)
  end)

  it("system text as systemInstruction; max_tokens, temperature and seed in generationConfig, in order", function()
    local r, log = run({ { reply = GOOD } }, { max_tokens = 256, temperature = 0, seed = 7 }, "system")
    assert.are.equal("ok", r.outcome)
    assert.are.equal('{"systemInstruction":{"parts":[{"text":"' .. SYSTEM .. '"}]},'
      .. '"contents":[{"role":"user","parts":[{"text":"' .. PROMPT .. '"}]}],'
      .. '"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":' .. SCHEMA
      .. ',"maxOutputTokens":256,"temperature":0,"seed":7}}', log[1].body)
  end)

  it("a retry continues the conversation with the reply as a model turn", function()
    local bad = '{"name":"Ada","age":"old"}'
    local r, log = run({ { reply = bad }, { reply = GOOD } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    local c = log[2].json.contents
    assert.are.equal(3, #c)
    assert.are.same(turn("user", PROMPT), c[1])
    assert.are.same(turn("model", bad), c[2])
    assert.are.equal("user", c[3].role)
    assert.matches("^Attempt 1/3: your JSON does not match the schema", c[3].parts[1].text)
  end)

  it("'models/NAME' is the model NAME; a name that is not one is refused before any request", function()
    local r, log, sc = run({ { reply = GOOD } }, { model = "models/g1" })
    assert.are.equal("ok", r.outcome)
    check_request(sc, log[1])
    r, log = run({ { reply = GOOD } }, { model = "g1/../../x" })
    assert.are.equal("script_error", r.outcome)
    assert.matches("gemini agent: model must be a model name", r.error.message, 1, true)
    assert.are.equal(0, #log)
  end)

  it("no key: no x-goog-api-key header", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local r, log = run_on(sc, nil, nil, {})
    assert.are.equal("ok", r.outcome)
    assert.is_nil(log[1].headers["x-goog-api-key"])
  end)

  it("an unknown mode is an error naming the modes", function()
    local r = run({ { reply = GOOD } }, { mode = "json_object" })
    assert.are.equal("script_error", r.outcome)
    assert.matches("gemini agent: unknown mode 'json_object' (json, json_schema, prompt, tools)", r.error.message,
      1, true)
  end)
end)

describe("the gemini agent's replies", function()
  it("the text parts joined, thought parts left out; finish STOP is stop; usage", function()
    local r = run({ { parts = { { text = "thinking...", thought = true }, { text = '{"name":"Ada",' },
      { text = '"age":36}' } }, usage = { 12, 9 } } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(GOOD, r.attempts[1].reply)
    assert.are.equal("stop", r.attempts[1].finish)
    assert.are.same({ input_tokens = 12, output_tokens = 9 }, r.attempts[1].usage)
  end)

  it("usageMetadata: cached content and thoughts under their own names; output counts the thoughts", function()
    local r = run({ { reply = GOOD, usage_raw = { promptTokenCount = 1500, candidatesTokenCount = 40,
      thoughtsTokenCount = 200, cachedContentTokenCount = 1024, totalTokenCount = 1740 } } })
    assert.are.same({ input_tokens = 1500, output_tokens = 240, cached_input_tokens = 1024, reasoning_tokens = 200 },
      r.attempts[1].usage)
    assert.are.equal(1024, r.metrics.cached_input_tokens)
    assert.are.equal(200, r.metrics.reasoning_tokens)
  end)

  it("MAX_TOKENS is finish length: never accepted, even a bare complete value; asked again", function()
    local r, log = run({ { reply = GOOD, finish = "length" }, { reply = GOOD } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    assert.are.equal("length", r.attempts[1].finish)
    assert.are.equal("invalid", r.attempts[1].outcome)
    assert.are.equal(CUT, r.attempts[1].errors[1].error)
  end)

  it("SAFETY is a refusal with the blocked category and the finish message", function()
    local r = run({ { refusal = "", blocked_category = "HARM_CATEGORY_DANGEROUS_CONTENT",
      finish_message = "The response was blocked." } })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("refusal", r.error.code)
    assert.are.equal("the model refused: finishReason SAFETY (HARM_CATEGORY_DANGEROUS_CONTENT)\n"
      .. "The response was blocked.", r.error.message)
    assert.are.equal("refused", r.attempts[1].outcome)
    assert.are.equal("refusal", r.attempts[1].finish)
  end)

  for _, reason in ipairs({ "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII" }) do
    it(reason .. " is a refusal, its text kept", function()
      local r = run({ { refusal = "Partial text", finish = reason } })
      assert.are.equal("the model refused: Partial text\nfinishReason " .. reason, r.error.message)
    end)
  end

  it("another finish reason is kept as it is, not a refusal", function()
    local r = run({ { reply = GOOD, finish = "OTHER" } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal("OTHER", r.attempts[1].finish)
  end)

  it("a blocked prompt (promptFeedback.blockReason) is a refusal", function()
    local r = run({ { blocked = { reason = "PROHIBITED_CONTENT", message = "The prompt was blocked." } } })
    assert.are.equal("the model refused: the prompt was blocked (PROHIBITED_CONTENT): The prompt was blocked.",
      r.error.message)
  end)

  it("on_refusal = retry: a failed attempt with feedback, then ok", function()
    local r, log = run({ { refusal = "No.", finish = "SAFETY" }, { reply = GOOD } }, { on_refusal = "retry" })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    assert.are.equal("no_json", r.attempts[1].outcome)
    assert.are.equal("refusal", r.attempts[1].finish)
  end)

  it("streams: :streamGenerateContent?alt=sse, the pieces joined, finish and usage from the last event", function()
    local pieces = { '{"name"', ':"Ada",', '"age":36}' }
    local r, log, sc = run({ { stream = pieces, usage = { 5, 4 } } }, { stream = true })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(GOOD, r.attempts[1].reply)
    assert.are.equal("stop", r.attempts[1].finish)
    assert.are.same({ input_tokens = 5, output_tokens = 4 }, r.attempts[1].usage)
    check_request(sc, log[1], "streamGenerateContent", "text/event-stream")
    assert.are.equal("/s/" .. sc.name .. "/v1/models/g1:streamGenerateContent?alt=sse", log[1].target)
  end)

  it("streams: MAX_TOKENS at the end is length", function()
    local r = run({ { stream = { '{"name":"Ada","age":36}' }, finish = "length" }, { reply = GOOD } },
      { stream = true })
    assert.are.equal("length", r.attempts[1].finish)
    assert.are.equal("invalid", r.attempts[1].outcome)
  end)

  it("streams: an error event is an agent error with its status and message", function()
    local r = run({ { stream = { '{"name"' }, stream_error = { message = "Internal error" } } }, { stream = true })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("gemini agent: INTERNAL: Internal error", r.error.message)
  end)
end)

describe("the gemini agent's errors", function()
  it("429 RESOURCE_EXHAUSTED is retried after the RetryInfo's retryDelay", function()
    local r, log = run({ { error = { status = 429, message = "Quota exceeded", retry_delay = "0.3s" } },
      { reply = GOOD } }, { retry_base_ms = 1 })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    assert.are.equal(1, r.attempts[1].retries)
    assert.is_true(log[2].t - log[1].t >= 280, "waited " .. (log[2].t - log[1].t) .. " ms")
  end)

  it("503 UNAVAILABLE is retried, then reported with the status name", function()
    local r, log = run({ { error = { status = 503, message = "The model is overloaded." }, times = 3 } },
      { max_retries = 2 })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal(3, #log)
    assert.are.equal("gemini agent: HTTP 503 (UNAVAILABLE): The model is overloaded. (after 2 retries)",
      r.error.message)
    assert.are.equal(503, r.error.http_status)
    assert.are.equal(2, r.attempts[1].retries)
  end)

  it("400 INVALID_ARGUMENT is not retried", function()
    local r, log = run({ { error = { status = 400, message = "Invalid JSON payload" } }, { reply = GOOD } })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal(1, #log)
    assert.are.equal("gemini agent: HTTP 400 (INVALID_ARGUMENT): Invalid JSON payload", r.error.message)
    assert.are.equal(400, r.attempts[1].http_status)
  end)

  it("a key the server echoes is redacted in the report", function()
    local r = run({ { error = { status = 400, message = "API key not valid: " .. KEY } } })
    assert.are.equal("gemini agent: HTTP 400 (INVALID_ARGUMENT): API key not valid: [redacted]", r.error.message)
  end)

  it("RetryInfo's retryDelay read as a duration, within 60 s, of the right type only", function()
    local transport = require "coax.transport"
    local function body(t, delay)
      return cjson.encode({ error = { code = 429, status = "RESOURCE_EXHAUSTED",
        details = { { ["@type"] = t, retryDelay = delay } } } })
    end
    local RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
    assert.are.equal(1500, transport.retry_info_ms(body(RETRY_INFO, "1.5s")))
    assert.are.equal(37000, transport.retry_info_ms(body(RETRY_INFO, "37s")))
    assert.is_nil(transport.retry_info_ms(body(RETRY_INFO, "61s")))
    assert.is_nil(transport.retry_info_ms(body(RETRY_INFO, "soon")))
    assert.is_nil(transport.retry_info_ms(body("type.googleapis.com/google.rpc.QuotaFailure", "5s")))
    assert.is_nil(transport.retry_info_ms("not json"))
  end)

  it("a body without candidates or feedback is an agent error", function()
    local r = run({ { json = { modelVersion = "g1" } } })
    assert.are.equal("gemini agent: the response has no candidates", r.error.message)
  end)
end)

describe("the gemini agent's tools mode", function()
  local GOOD_ARGS = '{"json":{"name":"Ada","age":36}}' -- text: the mock keeps its key order

  it("function declarations, mode ANY, the model's turn as sent and functionResponse parts in order", function()
    local steps = {
      { tool_calls = { { name = "validate_json", arguments = { json = { name = "Ada", age = "old" } }, id = "c1" },
        { name = "json_example", arguments = {} } } },
      { tool_calls = { { name = "submit", arguments = GOOD_ARGS } } },
    }
    local r, log = run(steps, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.same({ name = "Ada", age = 36 }, r.value)
    assert.are.equal(2, #log)
    local body = log[1].json
    assert.are.same({ functionCallingConfig = { mode = "ANY" } }, body.toolConfig)
    local decls = body.tools[1].functionDeclarations
    assert.are.same({ "validate_json", "json_example", "submit" }, { decls[1].name, decls[2].name, decls[3].name })
    local what = "The JSON value to check (the value itself, not text)."
    assert.are.same({ type = "object", properties = { json = { description = what } }, required = { "json" } },
      decls[1].parametersJsonSchema)
    assert.is_nil(body.generationConfig)
    local c = log[2].json.contents
    assert.are.equal(3, #c)
    assert.are.equal("model", c[2].role)
    assert.are.same({ functionCall = { id = "c1", name = "validate_json", args = { json = { name = "Ada",
      age = "old" } } } }, c[2].parts[1])
    assert.are.same({ functionCall = { name = "json_example", args = {} } }, c[2].parts[2])
    assert.are.equal("user", c[3].role)
    local first, second = c[3].parts[1].functionResponse, c[3].parts[2].functionResponse
    assert.are.equal("c1", first.id)
    assert.are.equal("validate_json", first.name)
    assert.matches("^Attempt 1/3: your JSON does not match the schema", first.response.error)
    assert.is_nil(second.id)
    assert.are.equal("json_example", second.name)
    assert.are.same({ name = "string", age = 1 }, cjson.decode(second.response.result))
    local rounds = r.attempts[1].tool_rounds
    assert.are.same({ json = { name = "Ada", age = "old" } }, rounds[1].calls[1].arguments)
    assert.are.equal('{"name":"Ada","age":36}', r.attempts[1].reply)
    assert.are.equal("submit", r.attempts[1].finish)
  end)

  it("streamed: the functionCall parts, thought signatures sent back as they came", function()
    local signed = { functionCall = { name = "validate_json", args = { json = { name = "Ada", age = 36 } } },
      thoughtSignature = "c2lnbmF0dXJl" }
    local steps = {
      { stream = { "Let me check." }, parts = { signed } },
      { stream = {}, tool_calls = { { name = "submit", arguments = GOOD_ARGS } } },
    }
    local r, log = run(steps, { mode = "tools", stream = true })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    assert.are.equal("/s/" .. log[1].path:match("^/s/([^/]+)") .. "/v1/models/g1:streamGenerateContent",
      log[1].path)
    local model = log[2].json.contents[2]
    assert.are.equal("model", model.role)
    assert.are.same({ { text = "Let me check." }, signed }, model.parts)
    assert.are.equal("valid: the JSON matches the schema; you may submit it",
      log[2].json.contents[3].parts[1].functionResponse.response.result)
    assert.are.equal('{"name":"Ada","age":36}', r.attempts[1].reply)
  end)

  it("a failed submit's feedback answers the submit call on the next attempt", function()
    local steps = {
      { tool_calls = { { name = "submit", arguments = { json = { name = "Ada" } } } } },
      { tool_calls = { { name = "submit", arguments = GOOD_ARGS } } },
    }
    local r, log = run(steps, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    local c = log[2].json.contents
    assert.are.equal(3, #c)
    local fr = c[3].parts[1].functionResponse
    assert.are.equal("submit", fr.name)
    assert.matches("missing required property", fr.response.error, 1, true)
  end)
end)

describe("coax run --agent gemini", function()
  it("takes the key from GEMINI_API_KEY and prints the value", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax({ "run", provider:path("recipe.lua"), "--agent", "gemini", "--base-url", sc.base_url,
      "--model", "g1", "--input", "-" }, INPUT, { GEMINI_API_KEY = KEY })
    assert.are.equal(0, code, err)
    assert.are.equal(GOOD .. "\n", out)
    local log = sc:log()
    check_request(sc, log[1])
  end)

  it("--mode checks gemini's modes", function()
    local _, err, code = H.coax({ "run", provider:path("recipe.lua"), "--agent", "gemini", "--mode", "format" })
    assert.are.equal(2, code)
    assert.are.equal("coax run: --mode wants json_schema, json, prompt or tools, not 'format'\n", err)
  end)
end)
