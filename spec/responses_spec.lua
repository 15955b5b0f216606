--- The openai agent's `api = "responses"` (lua/coax/agents/openai_responses.lua)
-- end to end against the mock server's Responses API (spec/mock): the exact
-- requests (instructions, input items, text.format, max_output_tokens,
-- tools), the replies plain and streamed (typed events), statuses and
-- finish, refusals, usage, errors, and tools mode with function_call items.
-- Every report validates against the report schema.
local H = require "helper"
local cjson = require "cjson"
local P = require "providers"

local KEY = "sk-test-SENTINEL-RESPONSES"
local SCHEMA, GOOD, INPUT, PROMPT, CUT = P.SCHEMA, P.GOOD, P.INPUT, P.PROMPT, P.CUT
local SYSTEM = "You extract people."
local user, assistant, with_schema = P.user, P.assistant, P.with_schema

local provider = P.harness { agent = "openai", options = { api = "responses", model = "m1" },
  secrets = { OPENAI_API_KEY = KEY } }

setup(function()
  provider:start {
    ["schema.json"] = SCHEMA,
    ["recipe.lua"] = P.recipe(), ["system.lua"] = P.recipe("schema.json", ', system = "' .. SYSTEM .. '"'),
  }
end)

teardown(function() provider:stop() end)

-- One extraction through the Responses API against a new scenario of
-- `steps`, with recipe `recipe` (recipe.lua by default).
local function run(steps, options, recipe)
  return provider:run(steps, options, nil, (recipe or "recipe") .. ".lua")
end

local function check_request(sc, req, accept)
  P.check_request(req, { path = "/s/" .. sc.name .. "/v1/responses", accept = accept or "application/json",
    headers = { authorization = "Bearer " .. KEY } })
end

describe("the responses api's requests", function()
  it("json_schema mode: input items and text.format with the exact schema, strict", function()
    local r, log, sc = run({ { reply = GOOD } })
    assert.are.equal("ok", r.outcome)
    assert.are.same({ name = "Ada", age = 36 }, r.value)
    assert.are.equal(1, #log)
    check_request(sc, log[1])
    assert.are.equal('{"model":"m1","input":[{"role":"user","content":"' .. PROMPT .. '"}],'
      .. '"text":{"format":{"type":"json_schema","name":"extraction","schema":' .. SCHEMA .. ',"strict":true}}}',
      log[1].body)
  end)

  it("the system text as instructions; max_tokens as max_output_tokens; no seed", function()
    local r, log = run({ { reply = GOOD } }, { max_tokens = 300, temperature = 0, seed = 3, strict = false },
      "system")
    assert.are.equal("ok", r.outcome)
    assert.are.equal('{"model":"m1","instructions":"' .. SYSTEM .. '","input":[{"role":"user","content":"'
      .. PROMPT .. '"}],"text":{"format":{"type":"json_schema","name":"extraction","schema":' .. SCHEMA
      .. ',"strict":false}},"temperature":0,"max_output_tokens":300}', log[1].body)
  end)

  it("json_object mode: text.format json_object, the schema in the prompt; prompt mode: no text", function()
    local _, log = run({ { reply = GOOD } }, { mode = "json_object" })
    assert.are.same(
      { model = "m1", input = { user(with_schema(PROMPT)) }, text = { format = { type = "json_object" } } },
      log[1].json)
    _, log = run({ { reply = GOOD } }, { mode = "prompt" })
    assert.are.same({ model = "m1", input = { user(with_schema(PROMPT)) } }, log[1].json)
  end)

  it("a retry continues with the reply as an assistant input item", function()
    local bad = '{"name":"Ada","age":"old"}'
    local r, log = run({ { reply = bad }, { reply = GOOD } })
    assert.are.equal("ok", r.outcome)
    local input = log[2].json.input
    assert.are.equal(3, #input)
    assert.are.same(user(PROMPT), input[1])
    assert.are.same(assistant(bad), input[2])
    assert.matches("^Attempt 1/3: your JSON does not match the schema", input[3].content)
  end)

  it("an unknown api is an error naming the apis, before any request", function()
    local r, log = run({ { reply = GOOD } }, { api = "completions" })
    assert.are.equal("script_error", r.outcome)
    assert.matches("openai agent: unknown api 'completions' (chat_completions, responses)", r.error.message, 1, true)
    assert.are.equal(0, #log)
  end)
end)

describe("the responses api's replies", function()
  it("the message's output_text after a reasoning item; status completed is stop", function()
    local r = run({ { reply = GOOD, reasoning = true, usage = { 20, 8 } } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(GOOD, r.attempts[1].reply)
    assert.are.equal("stop", r.attempts[1].finish)
    assert.are.same({ input_tokens = 20, output_tokens = 8, cached_input_tokens = 0, reasoning_tokens = 0 },
      r.attempts[1].usage)
  end)

  it("usage: cached and reasoning tokens under their own names", function()
    local r = run({ { reply = GOOD, usage_raw = { input_tokens = 2048, output_tokens = 500, total_tokens = 2548,
      input_tokens_details = { cached_tokens = 1920 }, output_tokens_details = { reasoning_tokens = 448 } } } })
    assert.are.same({ input_tokens = 2048, output_tokens = 500, cached_input_tokens = 1920, reasoning_tokens = 448 },
      r.attempts[1].usage)
  end)

  it("status incomplete (max_output_tokens) is finish length: never accepted, asked again", function()
    local r, log = run({ { reply = GOOD, finish = "length" }, { reply = GOOD } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    assert.are.equal("length", r.attempts[1].finish)
    assert.are.equal("invalid", r.attempts[1].outcome)
    assert.are.equal(CUT, r.attempts[1].errors[1].error)
  end)

  it("cut off before any message (reasoning only): an empty reply, finish length, asked again", function()
    local r, log = run({ { reasoning = true, tool_calls = {}, finish = "length" }, { reply = GOOD } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    assert.are.equal("no_json", r.attempts[1].outcome)
    assert.are.equal("", r.attempts[1].reply)
    assert.are.equal("length", r.attempts[1].finish)
  end)

  it("incomplete for the content filter: the reason is the finish, and the reply is never accepted", function()
    local r = run({ { reply = GOOD, finish = "content_filter" }, { reply = GOOD } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal("content_filter", r.attempts[1].finish)
    assert.are.equal("invalid", r.attempts[1].outcome)
    assert.are.equal("the provider's content filter cut the reply off (finish: content_filter): the value may be "
      .. "incomplete", r.attempts[1].errors[1].error)
  end)

  it("a refusal part is a refusal with its words", function()
    local r = run({ { refusal = "I can't help with that request." } })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("refusal", r.error.code)
    assert.are.equal("the model refused: I can't help with that request.", r.error.message)
    assert.are.equal("refused", r.attempts[1].outcome)
  end)

  it("on_refusal = retry: the refusal is a failed attempt with feedback", function()
    local r, log = run({ { refusal = "No." }, { reply = GOOD } }, { on_refusal = "retry" })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    assert.are.equal("refusal", r.attempts[1].finish)
  end)

  it("status failed is an agent error with the response's error", function()
    local r = run({ { reply = "", failed = { code = "server_error", message = "The model failed." } } })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("openai agent: the response failed (server_error): The model failed.", r.error.message)
  end)

  it("HTTP errors: 429 retried, 400 not, with OpenAI's error body", function()
    local r, log = run({ { error = { status = 429, message = "Slow down", type = "requests", code = "rate_limit" } },
      { reply = GOOD } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #log)
    assert.are.equal(1, r.attempts[1].retries)
    local unsupported = { status = 400, message = "Unsupported parameter: 'seed'", type = "invalid_request_error" }
    r, log = run({ { error = unsupported } })
    assert.are.equal(1, #log)
    assert.are.equal("openai agent: HTTP 400 (invalid_request_error): Unsupported parameter: 'seed'", r.error.message)
  end)
end)

describe("the responses api streamed", function()
  it("the output_text deltas joined; finish and usage from response.completed", function()
    local pieces = { '{"name"', ':"Ada",', '"age":36}' }
    local r, log, sc = run({ { stream = pieces, usage = { 6, 5 } } }, { stream = true })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(GOOD, r.attempts[1].reply)
    assert.are.equal("stop", r.attempts[1].finish)
    assert.are.same({ input_tokens = 6, output_tokens = 5, cached_input_tokens = 0, reasoning_tokens = 0 },
      r.attempts[1].usage)
    check_request(sc, log[1], "text/event-stream")
    assert.is_true(log[1].json.stream)
  end)

  it("response.incomplete is finish length", function()
    local r = run({ { stream = { '{"name":"Ada","age":36}' }, finish = "length" }, { reply = GOOD } },
      { stream = true })
    assert.are.equal("length", r.attempts[1].finish)
    assert.are.equal("invalid", r.attempts[1].outcome)
  end)

  it("an error event is an agent error with its code and message", function()
    local r = run({ { stream = { '{"name"' }, stream_error = { type = "server_error", message = "Oops" } } },
      { stream = true })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("openai agent: stream error (server_error): Oops", r.error.message)
  end)

  it("response.failed is an agent error", function()
    local r = run({ { stream = { "x" }, failed = { code = "server_error", message = "Failed." } } }, { stream = true })
    assert.are.equal("openai agent: the response failed (server_error): Failed.", r.error.message)
  end)

  it("a refusal streamed as refusal deltas", function()
    local r = run({ { stream = {}, refusal = "Not this." } }, { stream = true })
    assert.are.equal("the model refused: Not this.", r.error.message)
  end)

  it("a stream that ends before the response did is an agent error", function()
    local delta = { type = "response.output_text.delta", output_index = 0, content_index = 0, delta = GOOD }
    local r = run({ { body = "event: response.output_text.delta\ndata: " .. cjson.encode(delta) .. "\n\n",
      headers = { ["content-type"] = "text/event-stream" } } }, { stream = true })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("openai agent: the stream ended before the response did (response.completed)", r.error.message)
  end)
end)

describe("the responses api's tools mode", function()
  local BAD_ARGS = '{"json": {"name": "Ada", "age": "old"}}'
  local GOOD_ARGS = '{"json": {"name": "Ada", "age": 36}}'

  for _, stream in ipairs({ false, true }) do
    it("function tools, tool_choice required; items and outputs carried; arguments as sent" ..
      (stream and " (streamed)" or ""), function()
      local first = { tool_calls = { { name = "validate_json", arguments = BAD_ARGS, id = "call_a" } },
        reasoning = true }
      local second = { tool_calls = { { name = "submit", arguments = GOOD_ARGS, id = "call_b" } } }
      if stream then first.stream, second.stream = {}, {} end
      local r, log = run({ first, second }, { mode = "tools", stream = stream })
      assert.are.equal("ok", r.outcome)
      assert.are.same({ name = "Ada", age = 36 }, r.value)
      assert.are.equal(2, #log)
      local body = log[1].json
      assert.are.equal("required", body.tool_choice)
      assert.are.same({ "function", "validate_json" }, { body.tools[1].type, body.tools[1].name })
      assert.are.same({ "json" }, body.tools[1].parameters.required)
      assert.is_false(body.tools[1].strict) -- the API's default is true, which an untyped `json` fails
      assert.truthy(log[1].body:find('"name":"json_example","description":"Get an example JSON value that matches '
        .. 'the schema.","parameters":{"type":"object","properties":{}},"strict":false}', 1, true))
      assert.is_nil(body.tools[1]["function"])
      local input = log[2].json.input
      assert.are.equal(4, #input)
      assert.are.same({ type = "reasoning", id = "rs_1", summary = {} }, input[2])
      assert.are.same({ type = "function_call", id = "fc_1", call_id = "call_a", name = "validate_json",
        arguments = BAD_ARGS, status = "completed" }, input[3])
      assert.are.equal("function_call_output", input[4].type)
      assert.are.equal("call_a", input[4].call_id)
      assert.matches("^Attempt 1/3: your JSON does not match the schema", input[4].output)
      local a = r.attempts[1]
      assert.are.equal(BAD_ARGS, a.tool_rounds[1].calls[1].arguments)
      assert.are.equal(GOOD_ARGS, a.tool_rounds[2].calls[1].arguments)
      assert.are.equal('{"name": "Ada", "age": 36}', a.reply)
      assert.are.equal("submit", a.finish)
    end)
  end
end)

describe("coax run --agent openai with api responses", function()
  it("posts to /responses with the key from OPENAI_API_KEY and prints the value", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax({ "run", provider:path("recipe.lua"), "--agent", "openai", "--base-url", sc.base_url,
      "--model", "m1", "--agent-options", '{"api": "responses"}', "--input", "-" }, INPUT, { OPENAI_API_KEY = KEY })
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    assert.are.equal(GOOD .. "\n", out)
    local log = sc:log()
    assert.are.equal(1, #log)
    check_request(sc, log[1])
  end)
end)
