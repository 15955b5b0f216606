--- The three-tool mode (lua/coax/tools.lua, coax.check_reply in
-- engine/session/session.c) through the openai agent against the mock server: the
-- exact tool definitions, the answers each tool call gets, the
-- conversation carried from round to round and from attempt to attempt,
-- the rounds' history in the report, and the rounds limit.
local H = require "helper"
local coax = require "coax"
local cjson = require "cjson"
local P = require "providers"
local report_check = require "report_check"

local KEY = "sk-test-SENTINEL-TOOLS"
local SCHEMA, INPUT, PROMPT = P.SCHEMA, P.INPUT, P.PROMPT
local SCHEMA_TEXT = coax.json.encode(coax.json.decode(SCHEMA)) -- compact, as prompts show it
local FIRST = PROMPT .. "\n\nCall validate_json, then submit, with JSON that matches this JSON Schema:\n"
  .. SCHEMA_TEXT

local provider = P.harness { agent = "openai", options = { model = "m1", mode = "tools" },
  secrets = { OPENAI_API_KEY = KEY, ANTHROPIC_API_KEY = KEY } }

setup(function()
  provider:start {
    ["schema.json"] = SCHEMA, ["recipe.lua"] = P.recipe(),
    ["custom.lua"] = P.recipe("schema.json", ", strategy = function(ctx) local m = { ctx.messages[1], "
      .. '{ role = "assistant", content = "something else" } } m[3] = { role = "user", content = "again" } '
      .. "return m end"),
    ["fresh.lua"] = P.recipe("schema.json", ', strategy = "fresh"'),
  }
end)

teardown(function() provider:stop() end)

-- One extraction in tools mode (through `agent`, openai by default) against
-- a new scenario of `steps`.
local function run(steps, agent_options, recipe, agent)
  local report, log = provider:run(steps, agent_options, { agent = agent }, recipe)
  return report, log
end

local function call(name, args, id) return { name = name, arguments = args, id = id } end

-- The wire shape of an assistant message with tool calls, as the agent
-- sends it back.
local function assistant_calls(calls)
  local out = {}
  for i, c in ipairs(calls) do
    out[i] = {
      id = c.id, type = "function",
      ["function"] = { name = c.name, arguments = c.arguments },
    }
  end
  return { role = "assistant", content = cjson.null, tool_calls = out }
end

local function tool_result(id, content) return { role = "tool", tool_call_id = id, content = content } end

-- The feedback validate_json gives for {"name":"Ada","age":"unknown"} on attempt `n` of 3.
local function age_feedback(n)
  return ("Attempt %d/3: your JSON does not match the schema.\n\nErrors:\n"
    .. "  - At path '/age': expected integer, got string \"unknown\"\n\nYour submission:\n"
    .. '{\n  "name": "Ada",\n  "age": "unknown"\n}\n\n'
    .. "Fix all of the errors above and call validate_json with the corrected JSON, then submit it."):format(n)
end

local GOOD = { name = "Ada", age = 36 }
-- Tool-call arguments as the model sends them: JSON text.
local GOOD_ARGS = '{"json":{"name":"Ada","age":36}}'
local BAD_ARGS = '{"json":{"name":"Ada","age":"unknown"}}'

describe("tools mode (openai)", function()
  it("sends the three tools with tool_choice required and the tools' first prompt", function()
    local r, log = run({ { tool_calls = { call("submit", GOOD_ARGS, "c1") } } })
    assert.are.equal("ok", r.outcome)
    assert.are.same(GOOD, r.value)
    assert.are.equal(1, #log)
    local body = log[1].json
    assert.are.same({ { role = "user", content = FIRST } }, body.messages)
    assert.are.equal("required", body.tool_choice)
    assert.is_nil(body.response_format)
    local names = {}
    for i, t in ipairs(body.tools) do
      assert.are.equal("function", t.type)
      names[i] = t["function"].name
    end
    assert.are.same({ "validate_json", "json_example", "submit" }, names)
    assert.are.same({ type = "object", properties = { json = { description =
      "The final JSON value (the value itself, not text)." } }, required = { "json" } },
      body.tools[3]["function"].parameters)
    -- json_example takes no arguments: its properties are an object, not a list.
    assert.truthy(log[1].body:find('"parameters":{"type":"object","properties":{}}', 1, true))
  end)

  it("answers validate_json with the attempt's feedback, then 'valid', then accepts the submit", function()
    local steps = {
      { tool_calls = { call("validate_json", BAD_ARGS, "c1") } },
      { tool_calls = { call("validate_json", GOOD_ARGS, "c2") } },
      { tool_calls = { call("submit", GOOD_ARGS, "c3") } },
    }
    local r, log = run(steps)
    assert.are.equal("ok", r.outcome)
    assert.are.same(GOOD, r.value)
    assert.are.equal(3, #log)
    local first = { role = "user", content = FIRST }
    local a1 = assistant_calls({ steps[1].tool_calls[1] })
    local a2 = assistant_calls({ steps[2].tool_calls[1] })
    assert.are.same({ first, a1, tool_result("c1", age_feedback(1)) }, log[2].json.messages)
    assert.are.same({ first, a1, tool_result("c1", age_feedback(1)), a2,
      tool_result("c2", "valid: the JSON matches the schema; you may submit it") }, log[3].json.messages)
    -- One attempt; three rounds in its history; usage summed over the rounds.
    assert.are.equal(1, #r.attempts)
    local a = r.attempts[1]
    assert.are.equal("submit", a.finish)
    assert.are.same({ input_tokens = 33, output_tokens = 21 }, a.usage)
    assert.are.same({
      { round = 1, calls = { { name = "validate_json", arguments = BAD_ARGS,
        result = age_feedback(1), is_error = true } } },
      { round = 2, calls = { { name = "validate_json", arguments = GOOD_ARGS,
        result = "valid: the JSON matches the schema; you may submit it", is_error = false } } },
      { round = 3, calls = { { name = "submit", arguments = GOOD_ARGS, result = "submitted",
        is_error = false } } },
    }, a.tool_rounds)
    assert.are.equal('{"name":"Ada","age":36}', a.reply)
  end)

  it("answers json_example with an instance of the schema (coax example)", function()
    local r, log = run({
      { tool_calls = { call("json_example", "{}", "c1") } },
      { tool_calls = { call("submit", GOOD_ARGS, "c2") } },
    })
    assert.are.equal("ok", r.outcome)
    local example = coax.json.encode(coax.example(SCHEMA), { pretty = true })
    assert.are.same(tool_result("c1", example), log[2].json.messages[3])
    assert.are.equal(example, r.attempts[1].tool_rounds[1].calls[1].result)
    assert.is_true(coax.schema(SCHEMA):validate(coax.json.decode(example)))
  end)

  it("a failed submit is a failed attempt; its feedback answers the submit call when the conversation continues",
    function()
      local steps = {
        { tool_calls = { call("submit", BAD_ARGS, "s1") } },
        { tool_calls = { call("submit", GOOD_ARGS, "s2") } },
      }
      local r, log = run(steps)
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, #r.attempts)
      assert.are.equal("invalid", r.attempts[1].outcome)
      assert.are.equal("ok", r.attempts[2].outcome)
      assert.are.same({ { role = "user", content = FIRST }, assistant_calls({ steps[1].tool_calls[1] }),
        tool_result("s1", age_feedback(1)) }, log[2].json.messages)
    end)

  it("with the fresh strategy a failed submit's next attempt is a plain fresh prompt", function()
    local r, log = run({
      { tool_calls = { call("submit", BAD_ARGS, "s1") } },
      { tool_calls = { call("submit", GOOD_ARGS, "s2") } },
    }, nil, "fresh.lua")
    assert.are.equal("ok", r.outcome)
    local m = log[2].json.messages
    assert.are.equal(2, #m)
    assert.are.same({ role = "user", content = FIRST }, m[1])
    assert.are.equal("user", m[2].role)
    assert.truthy(m[2].content:find("At path '/age': expected integer, got string \"unknown\"", 1, true))
    assert.is_nil(m[2].content:find("Expected schema:", 1, true)) -- m[1] holds it: once a request
  end)

  it("stops at max_tool_rounds with outcome limit, the rounds in the history, no attempt used", function()
    local v = call("validate_json", BAD_ARGS, "c1")
    local r, log = run({ { tool_calls = { v } }, { tool_calls = { v } }, { tool_calls = { v } } },
      { max_tool_rounds = 2 })
    assert.are.equal("limit", r.outcome)
    assert.are.equal("tool_rounds", r.error.code)
    assert.are.equal("tools mode: 2 tool rounds without a submit (max_tool_rounds)", r.error.message)
    assert.are.equal(2, #log)
    assert.are.equal(1, #r.attempts)
    assert.are.equal("limit", r.attempts[1].outcome)
    assert.are.equal(2, #r.attempts[1].tool_rounds)
    -- The rounds' requests are counted though no reply came of them.
    assert.are.same({ input_tokens = 22, output_tokens = 14 }, r.attempts[1].usage)
    assert.are.equal(22, r.metrics.input_tokens)
  end)

  it("an unknown tool gets an error result naming the tools; the round goes on", function()
    local r, log = run({
      { tool_calls = { call("lookup", '{"q":"x"}', "c1") } },
      { tool_calls = { call("submit", GOOD_ARGS, "c2") } },
    })
    assert.are.equal("ok", r.outcome)
    assert.are.same(tool_result("c1", "unknown tool 'lookup'; the tools are validate_json, json_example and submit"),
      log[2].json.messages[3])
    assert.is_true(r.attempts[1].tool_rounds[1].calls[1].is_error)
  end)

  it("several calls in one message: each answered in order; calls after submit are ignored", function()
    local r, log = run({
      { tool_calls = { call("validate_json", GOOD_ARGS, "c1"), call("submit", GOOD_ARGS, "c2"),
        call("validate_json", BAD_ARGS, "c3") } },
    })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(1, #log)
    local calls = r.attempts[1].tool_rounds[1].calls
    assert.are.same({ "validate_json", "submit", "validate_json" }, { calls[1].name, calls[2].name, calls[3].name })
    assert.are.equal("ignored: submit ended the turn", calls[3].result)
  end)

  it("repairs broken argument text and understands a value passed without the json wrapper", function()
    local r = run({ { tool_calls = { call("submit", "{json: {name: 'Ada', age: 36,}", "c1") } } })
    assert.are.equal("ok", r.outcome)
    assert.are.same(GOOD, r.value)
    r = run({ { tool_calls = { call("submit", '{"name":"Ada","age":36}', "c1") } } })
    assert.are.equal("ok", r.outcome)
    assert.are.same(GOOD, r.value)
    -- JSON sent as a string inside the wrapper is read as that JSON.
    local fenced = cjson.encode({ json = '```json\n{"name":"Ada","age":36}\n```' })
    r = run({ { tool_calls = { call("submit", fenced, "c1") } } })
    assert.are.equal("ok", r.outcome)
    assert.are.same(GOOD, r.value)
  end)

  it("validate_json on text with no JSON answers with the parse feedback", function()
    local r, log = run({
      { tool_calls = { call("validate_json", "", "c1") } },
      { tool_calls = { call("submit", GOOD_ARGS, "c2") } },
    })
    assert.are.equal("ok", r.outcome)
    local content = log[2].json.messages[3].content
    assert.truthy(content:find("^Attempt 1/3: no JSON could be read from your reply: "))
    assert.truthy(content:find("Fix this and call validate_json with the corrected JSON, then submit it.", 1, true))
  end)

  it("a plain reply without tool calls is read as the attempt's reply", function()
    local r = run({ { reply = '```json\n{"name":"Ada","age":36}\n```' } })
    assert.are.equal("ok", r.outcome)
    assert.are.same(GOOD, r.value)
    assert.is_nil(r.attempts[1].tool_rounds)
  end)

  it("streams tool calls whose arguments arrive in fragments", function()
    local r, log = run({
      { stream = {}, finish = "tool_calls", tool_calls = { call("validate_json", BAD_ARGS, "c1") } },
      { stream = {}, finish = "tool_calls", tool_calls = { call("submit", GOOD_ARGS, "c2") } },
    }, { stream = true })
    assert.are.equal("ok", r.outcome)
    assert.are.same(tool_result("c1", age_feedback(1)), log[2].json.messages[3])
    -- The arguments' fragments joined again.
    assert.are.same(BAD_ARGS, log[2].json.messages[2].tool_calls[1]["function"].arguments)
  end)

  it("a transport failure in a later round ends the session as an agent error with the rounds so far", function()
    local r = run({
      { tool_calls = { call("validate_json", BAD_ARGS, "c1") } },
      { error = { status = 400, message = "bad tool message", type = "invalid_request_error" } },
    })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal(400, r.error.http_status)
    assert.are.equal(1, #r.attempts[1].tool_rounds)
    assert.are.same({ input_tokens = 11, output_tokens = 7 }, r.attempts[1].usage)
  end)

  it("an agent without a tools mode is refused before any call", function()
    local r = report_check.valid(coax.run(provider:path("recipe.lua"), INPUT,
      { agent = "replay", agent_options = { mode = "tools", replies = { "{}" } } }))
    assert.are.equal("invalid", r.outcome)
    assert.are.equal("the replay agent has no tools mode", r.error.message)
  end)

  it("max_tool_rounds must be a positive integer", function()
    local r = run({}, { max_tool_rounds = 0 })
    assert.are.equal("script_error", r.outcome)
    assert.truthy(r.error.message:find("max_tool_rounds must be a positive integer", 1, true))
  end)
end)

describe("tools mode (anthropic)", function()
  local function run_a(steps, agent_options, recipe) return run(steps, agent_options, recipe, "anthropic") end

  -- The model's turn as the agent sends it back: its content blocks.
  local function tool_use(id, name, input)
    return { role = "assistant", content = { { type = "tool_use", id = id, name = name, input = input } } }
  end
  local function results(...)
    return { role = "user", content = { ... } }
  end
  local function result(id, content, is_error)
    return { type = "tool_result", tool_use_id = id, content = content, is_error = is_error }
  end

  it("sends the three tools with input_schema and tool_choice any", function()
    local r, log = run_a({ { tool_calls = { call("submit", GOOD_ARGS, "t1") } } })
    assert.are.equal("ok", r.outcome)
    assert.are.same(GOOD, r.value)
    local body = log[1].json
    assert.are.equal("/s/" .. log[1].path:match("^/s/([^/]+)") .. "/v1/messages", log[1].path)
    assert.are.same({ type = "any" }, body.tool_choice)
    assert.are.same({ "validate_json", "json_example", "submit" },
      { body.tools[1].name, body.tools[2].name, body.tools[3].name })
    assert.are.same({ type = "object", properties = { json = { description =
      "The JSON value to check (the value itself, not text)." } }, required = { "json" } }, body.tools[1].input_schema)
    assert.are.same({ { role = "user", content = FIRST } }, body.messages)
  end)

  it("answers each round with tool_result blocks; errors marked is_error", function()
    local r, log = run_a({
      { tool_calls = { call("validate_json", BAD_ARGS, "t1") } },
      { tool_calls = { call("json_example", "{}", "t2") } },
      { tool_calls = { call("submit", GOOD_ARGS, "t3") } },
    })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(3, #log)
    local bad = coax.json.decode(BAD_ARGS)
    assert.are.same({ { role = "user", content = FIRST }, tool_use("t1", "validate_json", bad),
      results(result("t1", age_feedback(1), true)) }, log[2].json.messages)
    local example = coax.json.encode(coax.example(SCHEMA), { pretty = true })
    assert.are.same(results(result("t2", example)), log[3].json.messages[5])
    assert.are.same({ input_tokens = 33, output_tokens = 21 }, r.attempts[1].usage)
    assert.are.equal(3, #r.attempts[1].tool_rounds)
  end)

  it("a failed submit's feedback goes back as the submit's tool_result with is_error", function()
    local r, log = run_a({
      { tool_calls = { call("submit", BAD_ARGS, "t1") } },
      { tool_calls = { call("submit", GOOD_ARGS, "t2") } },
    })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #r.attempts)
    assert.are.same({ { role = "user", content = FIRST }, tool_use("t1", "submit", coax.json.decode(BAD_ARGS)),
      results(result("t1", age_feedback(1), true)) }, log[2].json.messages)
  end)

  it("streams tool_use input in fragments", function()
    local r, log = run_a({
      { stream = {}, tool_calls = { call("validate_json", BAD_ARGS, "t1") } },
      { stream = {}, tool_calls = { call("submit", GOOD_ARGS, "t2") } },
    }, { stream = true })
    assert.are.equal("ok", r.outcome)
    assert.are.same(results(result("t1", age_feedback(1), true)), log[2].json.messages[3])
    -- The stream's empty text block is not sent back (the API refuses empty text blocks).
    assert.are.same(tool_use("t1", "validate_json", coax.json.decode(BAD_ARGS)), log[2].json.messages[2])
  end)

  it("stops at max_tool_rounds with outcome limit", function()
    local v = call("json_example", "{}", "t1")
    local r = run_a({ { tool_calls = { v } }, { tool_calls = { v } } }, { max_tool_rounds = 1 })
    assert.are.equal("limit", r.outcome)
    assert.are.equal("tool_rounds", r.error.code)
    assert.are.equal("tools mode: 1 tool round without a submit (max_tool_rounds)", r.error.message)
  end)
end)

describe("tools mode edge cases (review)", function()
  it("tool_calls elements that are not objects are no calls", function()
    local r = run({ { json = { choices = { { index = 0, finish_reason = "tool_calls", message = {
      role = "assistant", content = GOOD_ARGS:match('"json":(.*)}$'), tool_calls = { 1, cjson.null, "x" } } } },
      usage = { prompt_tokens = 1, completion_tokens = 1 } } } })
    -- No call left: the content is the reply.
    assert.are.equal("ok", r.outcome)
    assert.are.same(GOOD, r.value)
  end)

  it("a final reply without content keeps the attempt's rounds and usage", function()
    local r = run({
      { tool_calls = { call("json_example", "{}", "c1") } },
      { json = { choices = { { index = 0, finish_reason = "stop", message = { role = "assistant" } } },
        usage = { prompt_tokens = 5, completion_tokens = 1 } } },
    })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("openai agent: the reply has no content", r.error.message)
    assert.are.equal(1, #r.attempts[1].tool_rounds)
    assert.are.same({ input_tokens = 16, output_tokens = 8 }, r.attempts[1].usage)
  end)

  it("answers at most 16 calls of one message; the rest are told they were ignored", function()
    local calls = {}
    for i = 1, 20 do calls[i] = call("json_example", "{}", "c" .. i) end
    local r, log = run({ { tool_calls = calls }, { tool_calls = { call("submit", GOOD_ARGS, "s") } } })
    assert.are.equal("ok", r.outcome)
    local answers = log[2].json.messages
    assert.are.equal(2 + 20, #answers)
    assert.are.equal("ignored: at most 16 tool calls are answered at a time", answers[2 + 17].content)
    assert.are_not.equal(answers[2 + 16].content, answers[2 + 17].content)
  end)

  it("a custom strategy's continuation about another reply is sent as plain messages", function()
    local r, log = run({
      { tool_calls = { call("submit", BAD_ARGS, "s1") } },
      { tool_calls = { call("submit", GOOD_ARGS, "s2") } },
    }, nil, "custom.lua")
    assert.are.equal("ok", r.outcome)
    local m = log[2].json.messages
    assert.are.same({ role = "assistant", content = "something else" }, m[2])
    assert.are.equal("user", m[3].role)
  end)
end)

describe("tools.value_text: the value a call carries, as the provider sent it", function()
  local tools = require "coax.tools"
  local json = coax.json

  it("cuts the json member's own bytes from the arguments' text", function()
    local cases = {
      { '{"json": {"a": 1,  "b": [1, 2]}}', '{"a": 1,  "b": [1, 2]}' },
      { '  {"json":12}', "12" },
      { '{"json": 1.50e0 }', "1.50e0" },
      { '{"json": "Ada"}', '"Ada"' },
      { '{"json": {"s": "a } ] \\" {"}}', '{"s": "a } ] \\" {"}' }, -- brackets and a quote inside strings
      { "{json: {'a': 1,}}", "{'a': 1,}" },                       -- an unquoted key, single quotes
      { "{'json': [1, 2,]", "[1, 2,]" },                          -- no closing brace
      { '{"json": {"a": 1, "b": [2', '{"a": 1, "b": [2' },        -- cut off: up to the end
      { '{"json": {"a": 1},}', '{"a": 1}' },                      -- a trailing comma
    }
    for _, c in ipairs(cases) do assert.are.equal(c[2], tools.value_text(c[1]), c[1]) end
  end)

  it("JSON sent as text in a string is that text; a string that is not JSON stays a string", function()
    assert.are.equal('{"a": 1}', tools.value_text('{"json": "{\\"a\\": 1}"}'))
    assert.are.equal('"hello"', tools.value_text('{"json": "hello"}'))
  end)

  it("anything else is the arguments themselves: the value without the wrapper, more members, not JSON", function()
    for _, args in ipairs({ '{"a": 1}', '{"json": 1, "note": "x"}', "[1, 2]", "not json", "" }) do
      assert.are.equal(args, tools.value_text(args))
    end
  end)

  it("a decoded object (Anthropic, Gemini): the json member encoded exactly, or its text", function()
    assert.are.equal('{"b":1,"a":12345678901234567890}',
      tools.value_text(json.decode('{"json":{"b":1,"a":12345678901234567890}}')))
    assert.are.equal("[1, 2]", tools.value_text(json.decode('{"json":"[1, 2]"}')))
    assert.are.equal('{"a":1}', tools.value_text(json.decode('{"a":1}')))
  end)

  it("takes time linear in the arguments (4n within 8x of n)", function()
    local function args(n) return '{"json": {"items": [' .. ('{"s": "x\\"]}", "n": [1, 2]},'):rep(n) .. '1]}}' end
    -- n against 4n (linear 4, quadratic 16), bound 8: 2n against n with
    -- bound 3 left too little room for a loaded machine (CI, ASan)
    local small, big = args(10000), args(40000)
    local text = { [10000] = small, [40000] = big }
    tools.value_text(small)
    local ratio = H.scaling_ratio(function(m) tools.value_text(text[m]) end, 10000, 4)
    assert.is_true(ratio < 8, ("time(40000) / time(10000) = %.2f (linear 4, quadratic 16)"):format(ratio))
    assert.are.equal(#big - #'{"json": }', #tools.value_text(big))
  end)
end)
