--- Fidelity to what the provider sent (issue 20), across the HTTP agents
-- against the mock server: every report validates against the strict report
-- schema; a refusal keeps the provider's words; cached and reasoning tokens
-- are kept under their own names, per attempt and in the metrics; tools mode
-- keeps the arguments as sent and runs submitted values through the same
-- extraction as replies (repairs logged and counted); and a reply the
-- provider says was cut off is never accepted, whatever its shape.
require "helper" -- first: it points package.cpath at COAX_BUILD
local P = require "providers"
local report_check = require "report_check"
local json = require("coax").json
local cjson_encode = require("cjson").encode

local KEY = "sk-test-SENTINEL-FIDELITY"
local CUT = P.CUT

-- The agent is named by each run.
local provider = P.harness { options = { model = "m1" }, secrets = { OPENAI_API_KEY = KEY, ANTHROPIC_API_KEY = KEY } }

setup(function()
  local files = { ["person.json"] = P.SCHEMA, ["person.lua"] = P.recipe("person.json") }
  for name, schema in pairs({ integer = '{"type":"integer"}', string = '{"type":"string"}',
    boolean = '{"type":"boolean"}', number = '{"type":"number"}' }) do
    files[name .. ".json"] = schema
    files[name .. ".lua"] = ('return { schema = "%s.json", prompt = "How old: {{input}}" }'):format(name)
  end
  provider:start(files)
end)

teardown(function() provider:stop() end)

-- One extraction through `agent` against a new scenario of `steps`; the
-- report is validated against the report schema before anything else.
local function run(agent, steps, options, recipe)
  local r, log = provider:run(steps, options, { agent = agent }, (recipe or "person") .. ".lua")
  return r, log
end

local HTTP_AGENTS = { "openai", "anthropic", "gemini", "ollama" }

describe("reports validate against the strict report schema", function()
  it("an agent error's http_status, on the error and on the attempt", function()
    local r = run("openai", { { error = { status = 400, message = "bad model", type = "invalid_request_error" } } })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal(400, r.error.http_status)
    assert.are.equal(400, r.attempts[1].http_status)
    assert.are.equal(0, r.attempts[1].retries)
  end)

  it("a refusal's outcome 'refused'", function()
    local r = run("openai", { { refusal = "I can't help with that." } })
    assert.are.equal("refused", r.attempts[1].outcome)
  end)

  it("a report that is not valid is caught: the checker can fail", function()
    local r = run("openai", { { reply = '{"name":"Ada","age":36}' } })
    r.attempts[1].surprise = true
    assert.has_error(function() report_check.valid(r) end)
    r.attempts[1].surprise = nil
    r.attempts[1].usage.unknown_tokens = 1
    assert.has_error(function() report_check.valid(r) end)
  end)
end)

describe("a refusal keeps the provider's words", function()
  local DETAILS = { type = "refusal", category = "cyber", explanation = "The request asks for malware." }

  it("anthropic: stop_details' category and explanation, after the text, in the error and the report", function()
    local r = run("anthropic", { { refusal = "I won't do that.", stop_details = DETAILS } })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("refusal", r.error.code)
    local words = "I won't do that.\ncyber: The request asks for malware."
    assert.are.equal("the model refused: " .. words, r.error.message)
    assert.are.equal("refused", r.attempts[1].outcome)
    assert.are.equal(words, r.attempts[1].reply)
    assert.are.equal("refusal", r.attempts[1].finish)
  end)

  it("anthropic: no text, only stop_details: the explanation is the reason", function()
    local r = run("anthropic", { { blocks = {}, refusal = "", stop_details = DETAILS } })
    assert.are.equal("the model refused: cyber: The request asks for malware.", r.error.message)
  end)

  it("anthropic streamed: stop_details from message_delta", function()
    local r = run("anthropic", { { stream = {}, refusal = "", stop_details = DETAILS } }, { stream = true })
    assert.are.equal("the model refused: cyber: The request asks for malware.", r.error.message)
  end)

  it("anthropic: neither text nor stop_details says so", function()
    local r = run("anthropic", { { blocks = {}, refusal = "" } })
    assert.are.equal("the model refused: (no text; stop_reason refusal)", r.error.message)
  end)

  it("openai: message.refusal whole, however long", function()
    local long = "I can't help with that. " .. ("Because of the policy. "):rep(40)
    local r = run("openai", { { refusal = long } })
    assert.are.equal("the model refused: " .. long, r.error.message)
    assert.are.equal(long, r.attempts[1].reply)
  end)

  it("openai streamed: the refusal deltas joined", function()
    local r = run("openai", { { sse_data = {
      { choices = { { index = 0, delta = { role = "assistant", refusal = "I can't " }, finish_reason = json.null } } },
      { choices = { { index = 0, delta = { refusal = "help." }, finish_reason = json.null } } },
      { choices = { { index = 0, delta = {}, finish_reason = "stop" } } },
    } } }, { stream = true })
    assert.are.equal("the model refused: I can't help.", r.error.message)
  end)
end)

describe("cached and reasoning tokens under their own names", function()
  local OPENAI_USAGE = {
    prompt_tokens = 1200, completion_tokens = 300, total_tokens = 1500,
    prompt_tokens_details = { cached_tokens = 1024, audio_tokens = 0 },
    completion_tokens_details = { reasoning_tokens = 256, audio_tokens = 0, accepted_prediction_tokens = 0,
      rejected_prediction_tokens = 0 },
  }

  it("openai: per attempt beside the totals, and summed in the metrics", function()
    local r = run("openai", { { reply = '{"name":"Ada"}', usage_raw = OPENAI_USAGE },
      { reply = '{"name":"Ada","age":36}', usage_raw = OPENAI_USAGE } })
    assert.are.equal("ok", r.outcome)
    local want = { input_tokens = 1200, output_tokens = 300, cached_input_tokens = 1024, reasoning_tokens = 256 }
    assert.are.same(want, r.attempts[1].usage)
    assert.are.same(want, r.attempts[2].usage)
    assert.are.equal(2400, r.metrics.input_tokens)
    assert.are.equal(600, r.metrics.output_tokens)
    assert.are.equal(2048, r.metrics.cached_input_tokens)
    assert.are.equal(512, r.metrics.reasoning_tokens)
    assert.is_nil(r.metrics.cache_creation_input_tokens)
  end)

  it("openai streamed: from the last chunk's usage", function()
    local r = run("openai", { { stream = { '{"name":"Ada",', '"age":36}' }, usage_raw = OPENAI_USAGE } },
      { stream = true })
    assert.are.same({ input_tokens = 1200, output_tokens = 300, cached_input_tokens = 1024, reasoning_tokens = 256 },
      r.attempts[1].usage)
  end)

  it("openai: details of zero are kept as zero; no details, no fields", function()
    local r = run("openai", { { reply = '{"name":"Ada","age":36}', usage_raw = { prompt_tokens = 5,
      completion_tokens = 3, prompt_tokens_details = { cached_tokens = 0 } } } })
    assert.are.same({ input_tokens = 5, output_tokens = 3, cached_input_tokens = 0 }, r.attempts[1].usage)
    assert.are.equal(0, r.metrics.cached_input_tokens)
    assert.is_nil(r.metrics.reasoning_tokens)
    r = run("openai", { { reply = '{"name":"Ada","age":36}' } })
    assert.are.same({ input_tokens = 11, output_tokens = 7 }, r.attempts[1].usage)
    assert.is_nil(r.metrics.cached_input_tokens)
  end)

  it("anthropic streamed: cache reads and writes from message_start, kept apart and in the total", function()
    local r = run("anthropic", { { stream = { '{"name":"Ada","age":36}' }, usage_raw = {
      input_tokens = 7, cache_read_input_tokens = 2000, cache_creation_input_tokens = 300, output_tokens = 12 } } },
      { stream = true })
    assert.are.same({ input_tokens = 2307, output_tokens = 12, cached_input_tokens = 2000,
      cache_creation_input_tokens = 300 }, r.attempts[1].usage)
    assert.are.equal(2000, r.metrics.cached_input_tokens)
  end)

  it("tools mode sums every count over the rounds", function()
    local r = run("openai", {
      { tool_calls = { { name = "validate_json", arguments = '{"json":{"name":"Ada","age":36}}' } },
        usage_raw = OPENAI_USAGE },
      { tool_calls = { { name = "submit", arguments = '{"json":{"name":"Ada","age":36}}' } },
        usage_raw = OPENAI_USAGE },
    }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.same({ input_tokens = 2400, output_tokens = 600, cached_input_tokens = 2048, reasoning_tokens = 512 },
      r.attempts[1].usage)
  end)
end)

describe("tools mode keeps what the model sent", function()
  it("openai: the arguments verbatim in the rounds, the value's own bytes as the reply", function()
    local args = '{ "json" : {"name": "Ada",  "age": 36.0e0} }'
    local r = run("openai", { { tool_calls = { { name = "submit", arguments = args } } } }, { mode = "tools" })
    assert.are.equal(args, r.attempts[1].tool_rounds[1].calls[1].arguments)
    assert.are.equal('{"name": "Ada",  "age": 36.0e0}', r.attempts[1].reply)
  end)

  it("openai: a submitted value that needs repair is repaired by the extraction, logged and counted", function()
    local args = '{"json": {"name": "Ada", "age": 36,}}'
    local r = run("openai", { { tool_calls = { { name = "submit", arguments = args } } } }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.same({ name = "Ada", age = 36 }, r.value)
    local a = r.attempts[1]
    assert.are.equal('{"name": "Ada", "age": 36,}', a.reply)
    assert.are.equal(args, a.tool_rounds[1].calls[1].arguments)
    assert.are.equal(1, #a.log)
    assert.are.equal("trailing_comma", a.log[1].kind)
    assert.are.equal(1, r.metrics.repairs)
  end)

  it("openai: a coerced submission is logged and counted as a coercion", function()
    local args = '{"json":{"name":"Ada","age":"36"}}'
    local r = run("openai", { { tool_calls = { { name = "submit", arguments = args } } } }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.same({ name = "Ada", age = 36 }, r.value)
    assert.are.equal('{"name":"Ada","age":"36"}', r.attempts[1].reply)
    assert.are.equal(1, r.metrics.coercions)
    assert.are.equal("/age", r.attempts[1].log[1].pointer)
  end)

  it("openai: broken wrappers still give the value's bytes (unquoted key, no closing brace)", function()
    local args = "{json: {'name': 'Ada', 'age': 36}"
    local r = run("openai", { { tool_calls = { { name = "submit", arguments = args } } } }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.equal("{'name': 'Ada', 'age': 36}", r.attempts[1].reply)
    assert.is_true(r.metrics.repairs >= 1)
  end)

  it("openai: the value sent as text inside a string is that text", function()
    local r = run("openai", { { tool_calls = { { name = "submit",
      arguments = '{"json": "{\\"name\\": \\"Ada\\", \\"age\\": 36}"}' } } } }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.equal('{"name": "Ada", "age": 36}', r.attempts[1].reply)
  end)

  it("openai: the value itself without the json wrapper is the whole arguments", function()
    local args = '{"name": "Ada", "age": 36}'
    local r = run("openai", { { tool_calls = { { name = "submit", arguments = args } } } }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(args, r.attempts[1].reply)
  end)

  it("every call is logged as sent: an unknown tool and json_example with their arguments", function()
    local odd = '{"query": "people named Ada", "limit": 3}'
    local r = run("openai", {
      { tool_calls = { { name = "web_search", arguments = odd }, { name = "json_example", arguments = '{}' } } },
      { tool_calls = { { name = "submit", arguments = '{"json":{"name":"Ada","age":36}}' },
        { name = "validate_json", arguments = '{"json": 1}' } } },
    }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    local rounds = r.attempts[1].tool_rounds
    assert.are.equal("web_search", rounds[1].calls[1].name)
    assert.are.equal(odd, rounds[1].calls[1].arguments)
    assert.is_true(rounds[1].calls[1].is_error)
    assert.are.equal("{}", rounds[1].calls[2].arguments)
    -- a call after the submit is ignored, and still logged as sent
    assert.are.equal('{"json": 1}', rounds[2].calls[2].arguments)
    assert.are.equal("ignored: submit ended the turn", rounds[2].calls[2].result)
  end)

  it("anthropic: the input object as sent in the rounds; the value exact (key order, numbers)", function()
    local input = '{"json":{"age":36,"name":"Ada","big":12345678901234567890}}' -- the mock sends it as an object
    local r = run("anthropic", { { tool_calls = { { name = "submit", arguments = input } } } }, { mode = "tools" })
    local a = r.attempts[1]
    assert.are.equal('{"age":36,"name":"Ada","big":12345678901234567890}', a.reply)
    assert.are.equal('{"json":{"age":36,"name":"Ada","big":12345678901234567890}}',
      json.encode(a.tool_rounds[1].calls[1].arguments))
  end)

  it("anthropic: JSON sent as text inside the input is that text, repaired and logged by the extraction", function()
    local input = cjson_encode({ json = "{'name': 'Ada', 'age': 36,}" })
    local r = run("anthropic", { { tool_calls = { { name = "submit", arguments = input } } } }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.equal("{'name': 'Ada', 'age': 36,}", r.attempts[1].reply)
    assert.are.same({ "single_quotes", "single_quotes", "single_quotes", "trailing_comma" }, (function()
      local kinds = {}
      for i, e in ipairs(r.attempts[1].log) do kinds[i] = e.kind end
      table.sort(kinds)
      return kinds
    end)())
    assert.are.equal(4, r.metrics.repairs) -- three strings in single quotes, a trailing comma
  end)

  it("anthropic: an unknown tool's input is logged, not {}", function()
    local r = run("anthropic", {
      { tool_calls = { { name = "lookup", arguments = { who = "Ada" } } } },
      { tool_calls = { { name = "submit", arguments = { json = { name = "Ada", age = 36 } } } } },
    }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.same({ who = "Ada" }, r.attempts[1].tool_rounds[1].calls[1].arguments)
  end)

  it("anthropic streamed: a tool input cut off at max_tokens is the text that came, never accepted", function()
    local cut = '{"json": {"name": "Ada", "age": 3'
    local r, log = run("anthropic", {
      { stream = {}, tool_calls = { { name = "submit", arguments = cut, id = "toolu_1" } }, finish = "length" },
      { stream = {}, tool_calls = { { name = "submit", arguments = '{"json": {"name": "Ada", "age": 36}}' } } },
    }, { mode = "tools", stream = true })
    assert.are.equal("ok", r.outcome)
    local first = r.attempts[1]
    assert.are.equal("invalid", first.outcome)
    assert.are.equal("length", first.finish)
    assert.are.equal('{"name": "Ada", "age": 3', first.reply)
    assert.are.equal(cut, first.tool_rounds[1].calls[1].arguments)
    assert.are.equal("the reply was cut off: the JSON is incomplete", first.errors[1].error)
    -- the turn goes back with an object as the API wants, the feedback as the call's error result
    local m = log[2].json.messages
    assert.are.same({ type = "tool_use", id = "toolu_1", name = "submit", input = {} }, m[2].content[1])
    assert.are.equal("toolu_1", m[3].content[1].tool_use_id)
    assert.is_true(m[3].content[1].is_error)
  end)

  it("a submit in a reply cut off at the token limit is not accepted", function()
    local r = run("openai", {
      { tool_calls = { { name = "submit", arguments = '{"json": 12}' } }, finish = "length" },
      { tool_calls = { { name = "submit", arguments = '{"json": {"name":"Ada","age":36}}' } } },
    }, { mode = "tools" })
    assert.are.equal("ok", r.outcome)
    assert.are.equal("length", r.attempts[1].finish)
    assert.are.equal("invalid", r.attempts[1].outcome)
    assert.are.equal(CUT, r.attempts[1].errors[1].error)
    assert.are.equal("submit", r.attempts[2].finish)
  end)
end)

describe("a reply the provider says was cut off is never accepted", function()
  local SCALARS = { integer = "12", number = "3.5", string = '"Ada"', boolean = "true" }

  for _, agent in ipairs(HTTP_AGENTS) do
    for schema, reply in pairs(SCALARS) do
      it(agent .. ": a bare " .. schema .. " " .. reply .. " with finish length is refused, asked again", function()
        local r, log = run(agent, { { reply = reply, finish = "length" }, { reply = reply } }, nil, schema)
        assert.are.equal("ok", r.outcome)
        assert.are.equal(2, #log)
        local first = r.attempts[1]
        assert.are.equal("length", first.finish)
        assert.are.equal("invalid", first.outcome)
        assert.are.equal(reply, first.reply)
        assert.are.same({ { instanceLocation = "", keywordLocation = "", error = CUT } }, first.errors)
        assert.are.equal("ok", r.attempts[2].outcome)
      end)
    end

    it(agent .. ": the twin with finish stop is accepted at once", function()
      local r, log = run(agent, { { reply = "12", finish = "stop" } }, nil, "integer")
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      assert.are.equal(12, r.value)
    end)
  end

  it("openai: finish_reason content_filter (something left out) is never accepted either", function()
    local r = run("openai", { { reply = "12", finish = "content_filter" }, { reply = "12" } }, nil, "integer")
    assert.are.equal("ok", r.outcome)
    assert.are.equal("invalid", r.attempts[1].outcome)
    assert.are.equal("the provider's content filter cut the reply off (finish: content_filter): the value may be "
      .. "incomplete", r.attempts[1].errors[1].error)
  end)

  it("another finish (stop_sequence, tool_calls) is no cut: accepted", function()
    local r = run("anthropic", { { reply = "12", finish = "stop_sequence" } }, nil, "integer")
    assert.are.equal("ok", r.outcome)
    assert.are.equal(1, #r.attempts)
  end)

  it("every attempt cut off: exhausted, never ok", function()
    local r = run("openai", { { reply = "12", finish = "length", times = 3 } }, nil, "integer")
    assert.are.equal("exhausted", r.outcome)
    assert.are.equal(json.null, r.value)
    assert.are.equal(3, #r.attempts)
  end)

  it("a JSON value cut inside keeps the extraction's own error, not a second one", function()
    local r = run("openai", { { reply = '{"name": "Ada", "age": 3', finish = "length" }, { reply = "{}" },
      { reply = '{"name":"Ada","age":36}' } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal("the reply was cut off: the JSON is incomplete", r.attempts[1].errors[1].error)
    for _, e in ipairs(r.attempts[1].errors) do assert.are_not.equal(CUT, e.error) end
  end)
end)
