--- The Ollama agent (lua/coax/agents/ollama.lua, coax.transport,
-- engine/io/http.c) end to end: whole extractions against the mock server
-- (spec/mock), asserting the exact requests it received and the reports.
local H = require "helper"
local coax = require "coax"
local cjson = require "cjson"
local P = require "providers"
local report_check = require "report_check"
local json = coax.json

local SCHEMA, GOOD, INPUT, PROMPT, CUT = P.SCHEMA, P.GOOD, P.INPUT, P.PROMPT, P.CUT
local PROMPT_WITH_SCHEMA = P.with_schema(PROMPT)
local SYSTEM = "You extract people."
local user, assistant, plain = P.user, P.assistant, P.plain

-- Extractions through the ollama agent (providers.lua).
local provider = P.harness { agent = "ollama", options = { model = "m1" } }
local _, run = provider:runners()
local recipe_path, system_path, input_path = provider:path("recipe.lua"), provider:path("system.lua"),
  provider:path("input.txt")

setup(function()
  provider:start {
    ["schema.json"] = SCHEMA, ["input.txt"] = INPUT,
    ["recipe.lua"] = P.recipe(), ["system.lua"] = P.recipe("schema.json", ', system = "' .. SYSTEM .. '"'),
  }
end)

teardown(function() provider:stop() end)

local function check_request(sc, req, accept)
  P.check_request(req, { path = "/s/" .. sc.name .. "/api/chat", accept = accept or "application/x-ndjson",
    headers = { authorization = false }, length = true })
end

-- The body of a format-mode request with `messages`.
local function format_body(messages)
  return { model = "m1", messages = messages, format = cjson.decode(SCHEMA), stream = true }
end

local function check_same_requests(sc, log, n)
  assert.are.equal(n, #log)
  for _, req in ipairs(log) do
    check_request(sc, req)
    assert.are.same(format_body({ user(PROMPT) }), req.json)
  end
end

describe("the ollama agent against a mock server", function()
  describe("requests", function()
    it("format mode (the default): the exact body, the schema as `format`, streamed", function()
      local r, log, sc = run({ { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.same({ name = "Ada", age = 36 }, r.value)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.equal('{"model":"m1","messages":[{"role":"user","content":"' .. PROMPT .. '"}],"format":' .. SCHEMA
        .. ',"stream":true}', log[1].body)
      assert.are.same({ user(PROMPT) }, plain(r.attempts[1].messages))
    end)

    it("json mode: format json, the schema in the prompt", function()
      local r, log, sc = run({ { reply = GOOD } }, { mode = "json" })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.equal('{"model":"m1","messages":[{"role":"user","content":' .. json.encode(PROMPT_WITH_SCHEMA)
        .. '}],"format":"json","stream":true}', log[1].body)
    end)

    it("prompt mode: no format, the schema in the prompt", function()
      local r, log, sc = run({ { reply = GOOD } }, { mode = "prompt" })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.same({ model = "m1", messages = { user(PROMPT_WITH_SCHEMA) }, stream = true }, log[1].json)
      assert.is_nil(log[1].body:find("format", 1, true))
    end)

    it("the system message stays a system message", function()
      local r, log, sc = run({ { reply = GOOD } }, nil, nil, system_path)
      assert.are.equal("ok", r.outcome)
      check_request(sc, log[1])
      assert.are.same(format_body({ { role = "system", content = SYSTEM }, user(PROMPT) }), log[1].json)
    end)

    it("options pass through, with temperature, seed and max_tokens where options do not set them", function()
      local r, log = run({ { reply = GOOD } }, {
        options = { num_ctx = 8192, temperature = 0.5 }, temperature = 0, seed = 7, max_tokens = 300,
        keep_alive = "5m",
      })
      assert.are.equal("ok", r.outcome)
      assert.are.equal('{"model":"m1","messages":[{"role":"user","content":"' .. PROMPT .. '"}],"format":' .. SCHEMA
        .. ',"options":{"num_ctx":8192,"num_predict":300,"seed":7,"temperature":0.5},"stream":true,'
        .. '"keep_alive":"5m"}', log[1].body)
    end)

    it("stream = false: stream false in the body, one JSON object read back", function()
      local r, log, sc = run({ { reply = GOOD, usage = { 20, 9 } } }, { stream = false })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(1, #log)
      check_request(sc, log[1], "application/json")
      local b = format_body({ user(PROMPT) })
      b.stream = false
      assert.are.same(b, log[1].json)
      assert.are.equal(GOOD, r.attempts[1].reply)
      assert.are.equal("stop", r.attempts[1].finish)
      assert.are.same({ input_tokens = 20, output_tokens = 9 }, r.attempts[1].usage)
    end)

    it("the default model when none is named; a base_url with a trailing slash", function()
      local sc = provider:scenario({ { reply = GOOD } })
      local r = report_check.valid(coax.run(recipe_path, INPUT,
        { agent = "ollama", agent_options = { base_url = sc.host .. "/" } }))
      assert.are.equal("ok", r.outcome)
      local log = sc:log()
      assert.are.equal(1, #log)
      check_request(sc, log[1])
      assert.are.equal("llama3.1", log[1].json.model)
    end)

    it("an unknown mode is a script error naming the modes, and nothing is sent", function()
      local r, log = run({ { reply = GOOD } }, { mode = "json_schema" })
      assert.are.equal("script_error", r.outcome)
      assert.are.equal(0, #log)
      assert.are.equal("agent: ollama agent: unknown mode 'json_schema' (format, json, prompt)",
        r.error.message:match("^[^\n]*"))
    end)
  end)

  describe("the server's URL", function()
    local agent = require "coax.agents.ollama"
    for _, c in ipairs({
      { "localhost:11434", "http://localhost:11434" },
      { "localhost", "http://localhost:11434" },
      { "10.0.0.5:8080/", "http://10.0.0.5:8080" },
      { "[::1]:11434", "http://[::1]:11434" },
      { " 'example.com' ", "http://example.com:11434" },
      { "http://localhost", "http://localhost" },
      { "https://ollama.example.com/", "https://ollama.example.com" },
      { "127.0.0.1:1234/s/x", "http://127.0.0.1:1234/s/x" },
    }) do
      it(("'%s' is %s"):format(c[1], c[2]), function()
        assert.are.equal(c[2], agent.host_url(c[1]))
      end)
    end
  end)

  describe("replies", function()
    it("wrong types, then valid: the second request carries the reply and feedback; usage per attempt", function()
      local bad = '{"name": true, "age": "thirty"}'
      local r, log, sc = run({ { reply = bad }, { reply = GOOD, usage = { 5, 3 } } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, r.metrics.attempts)
      assert.are.equal(2, #log)
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
      for i, messages in ipairs({ { user(PROMPT) }, { user(PROMPT), assistant(bad), user(feedback) } }) do
        check_request(sc, log[i])
        assert.are.same(format_body(messages), log[i].json)
        assert.are.same(messages, plain(H.conversation(r, i)))
      end
      assert.are.same({ input_tokens = 11, output_tokens = 7 }, r.attempts[1].usage)
      assert.are.same({ input_tokens = 5, output_tokens = 3 }, r.attempts[2].usage)
      assert.are.equal(16, r.metrics.input_tokens)
      assert.are.equal(10, r.metrics.output_tokens)
    end)

    it("streams: the exact text joined from message.content chunks, usage from the last line", function()
      local pieces = { '{"name"', ': "Ada", ', '"age": ', "36}" }
      local r, log, sc = run({ { stream = pieces, usage = { 4, 2 }, chunk_delay_ms = 2 } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal('{"name": "Ada", "age": 36}', r.attempts[1].reply)
      assert.are.equal("stop", r.attempts[1].finish)
      assert.are.same({ input_tokens = 4, output_tokens = 2 }, r.attempts[1].usage)
      check_same_requests(sc, log, 1)
    end)

    it("no usage on the last line: none recorded", function()
      local r = run({ { stream = { GOOD }, usage = cjson.null } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(json.null, r.attempts[1].usage)
    end)

    it("cut off (done_reason length) after complete JSON: never accepted, asked again", function()
      local reply = '{"name": "Ada", "age": 36}\n\nNote: the age'
      local r, log = run({ { reply = reply, finish = "length" }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, #log)
      assert.are.equal("length", r.attempts[1].finish)
      assert.are.equal("invalid", r.attempts[1].outcome)
      assert.are.equal(reply, r.attempts[1].reply)
      assert.are.equal(CUT, r.attempts[1].errors[1].error)
    end)

    it("cut off (done_reason length) inside the JSON: repaired, never valid, so asked again", function()
      local cut = '{"name": "Ada", "age": 36'
      local r, log, sc = run({ { stream = { '{"name": "Ada", ', '"age": 36' }, finish = "length" }, { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      assert.are.equal(2, #log)
      local first = r.attempts[1]
      assert.are.equal("length", first.finish)
      assert.are.equal("invalid", first.outcome)
      assert.are.equal(cut, first.reply)
      assert.are.equal("the reply was cut off: the JSON is incomplete", first.errors[1].error)
      check_request(sc, log[2])
      assert.are.same(assistant(cut), log[2].json.messages[2])
    end)

    it("a mid-stream error line is an agent error with its message", function()
      local r, log = run({ { stream = { '{"name": ' }, stream_error = { message = "an error was encountered while "
        .. "running the model: unexpected EOF" } }, { reply = GOOD } })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal(1, #log)
      assert.are.equal("agent_error", r.error.code)
      assert.are.equal("ollama agent: an error was encountered while running the model: unexpected EOF",
        r.error.message)
      assert.are.equal(200, r.error.http_status)
    end)

    it("a stream that ends before done: true is an agent error", function()
      local line = cjson.encode({ model = "m1", message = { role = "assistant", content = GOOD }, done = false })
      local r = run({ { body = line .. "\n", headers = { ["content-type"] = "application/x-ndjson" } } })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal("ollama agent: the stream ended before its last object (done: true)", r.error.message)
    end)

    it("a line that is not JSON is an agent error", function()
      local r = run({ { body = '{"message": {"content": "x"}, "done": false}\n{"message": \n' } })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal("ollama agent: a streamed line is not JSON", r.error.message)
    end)

    it("stream = false: a malformed body is an agent error naming the body", function()
      local r, log = run({ { body = '{"message": ' }, { reply = GOOD } }, { stream = false })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal(1, #log)
      assert.are.equal("ollama agent: the response body is not JSON", r.error.message)
      assert.are.equal(200, r.error.http_status)
    end)

    it("stream = false: an error object with status 200 is an agent error", function()
      local r = run({ { json = { error = "model is loading" } } }, { stream = false })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal("ollama agent: model is loading", r.error.message)
    end)

    it("an empty body is an agent error", function()
      local r = run({ { body = "" } })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal("ollama agent: the response body is empty", r.error.message)
    end)
  end)

  describe("transport retries", function()
    it("500, then a reply: two requests, one attempt, retries = 1", function()
      local r, log, sc = run({ { error = { status = 500, message = "llama runner process has terminated" } },
        { reply = GOOD } })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 2)
      assert.are.equal(1, r.metrics.attempts)
      assert.are.equal(1, r.attempts[1].retries)
    end)

    it("503 twice with retry-after 0, then a reply, with max_retries = 2", function()
      local r, log, sc = run({ { error = { status = 503, message = "server busy" }, headers = { ["retry-after"] = "0" },
        times = 2 }, { reply = GOOD } }, { max_retries = 2 })
      assert.are.equal("ok", r.outcome)
      check_same_requests(sc, log, 3)
      assert.are.equal(2, r.attempts[1].retries)
    end)

    it("500 three times with max_retries = 2: agent_error with the status and the server's message", function()
      local r, log, sc = run({ { error = { status = 500, message = "out of memory" }, times = 3 } },
        { max_retries = 2 })
      assert.are.equal("agent_error", r.outcome)
      check_same_requests(sc, log, 3)
      assert.are.equal(500, r.error.http_status)
      assert.are.equal("ollama agent: HTTP 500: out of memory (after 2 retries)", r.error.message)
    end)

    for _, c in ipairs({
      { 404, 'model "m1" not found, try pulling it first' },
      { 400, "invalid format: expected \"json\" or a JSON schema" },
    }) do
      it(("never retries %d"):format(c[1]), function()
        local r, log, sc = run({ { error = { status = c[1], message = c[2] } }, { reply = GOOD } })
        assert.are.equal("agent_error", r.outcome)
        check_same_requests(sc, log, 1)
        assert.are.equal("agent_error", r.error.code)
        assert.are.equal(c[1], r.error.http_status)
        assert.are.equal(("ollama agent: HTTP %d: %s"):format(c[1], c[2]), r.error.message)
        assert.are.equal(0, r.attempts[1].retries)
      end)
    end

    it("a server that is not there: agent_error naming the connection", function()
      local r = run({}, { base_url = "http://127.0.0.1:1", max_retries = 0 })
      assert.are.equal("agent_error", r.outcome)
      assert.matches("^ollama agent: .*127%.0%.0%.1.* %(connect%)$", r.error.message)
      assert.is_nil(r.error.http_status)
    end)
  end)
end)

describe("coax run --agent ollama", function()
  local function args(...)
    return { "run", recipe_path, "--agent", "ollama", "--model", "m1", "--input", input_path, ... }
  end

  it("finds the server in OLLAMA_HOST", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax(args(), nil, { OLLAMA_HOST = sc.host })
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    assert.are.equal(GOOD .. "\n", out)
    local log = sc:log()
    assert.are.equal(1, #log)
    check_request(sc, log[1])
    assert.are.same(format_body({ user(PROMPT) }), log[1].json)
  end)

  it("OLLAMA_HOST without a scheme is http", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax(args(), nil, { OLLAMA_HOST = sc.host:gsub("^http://", "") })
    assert.are.equal(0, code, err)
    assert.are.equal(GOOD .. "\n", out)
    assert.are.equal(1, #sc:log())
  end)

  it("--base-url wins over OLLAMA_HOST", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax(args("--base-url", sc.host), nil, { OLLAMA_HOST = "127.0.0.1:1" })
    assert.are.equal(0, code, err)
    assert.are.equal(GOOD .. "\n", out)
    assert.are.equal(1, #sc:log())
  end)

  it("--mode json and --verbose: the request logged on stderr", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax(args("--mode", "json", "--base-url", sc.host, "--verbose"))
    assert.are.equal(0, code, err)
    assert.are.equal(GOOD .. "\n", out)
    local log = sc:log()
    assert.are.equal(1, #log)
    assert.are.equal("json", log[1].json.format)
    local url = (sc.host .. "/api/chat"):gsub("%p", "%%%0")
    assert.matches("^coax run: http #1 > POST " .. url .. " %(" .. #log[1].body .. " bytes%)\n"
      .. "coax run: http #1 < 200 %([%d.]+ ms, %d+ bytes%)\ncoax run: attempt 1: valid, accepted\n$", err)
  end)

  it("--mode x exits 2 naming ollama's modes and sends nothing", function()
    local sc = provider:scenario({ { reply = GOOD } })
    local out, err, code = H.coax(args("--mode", "x", "--base-url", sc.host))
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("coax run: --mode wants format, json or prompt, not 'x'\n", err)
    assert.are.equal(0, #sc:log())
  end)

  it("a mid-stream error exits 3 with the message", function()
    local sc = provider:scenario({ { stream = { "{" }, stream_error = { message = "model crashed" } } })
    local out, err, code = H.coax(args("--base-url", sc.host))
    assert.are.equal(3, code)
    assert.are.equal("", out)
    assert.truthy(err:find("ollama agent: model crashed", 1, true), err)
  end)
end)

describe("coax.getenv in the sandbox", function()
  local function agent_recipe(body)
    local path = provider:path("getenv.lua")
    H.write(path, 'local coax = require "coax"\nreturn { schema = "schema.json", prompt = "x", agent = { call = '
      .. "function() " .. body .. " end } }")
    return path
  end

  it("reads OLLAMA_HOST", function()
    local path = agent_recipe(
      [[return { text = '{"name": "' .. tostring(coax.getenv("OLLAMA_HOST")) .. '", "age": 1}' }]])
    local out, err, code = H.coax({ "run", path }, nil, { OLLAMA_HOST = "gpu-box:11434" })
    assert.are.equal(0, code, err)
    assert.are.equal('{"name":"gpu-box:11434","age":1}\n', out)
  end)

  it("refuses any other variable", function()
    local path = agent_recipe([[return { text = tostring(coax.getenv("HOME")) }]])
    local out, err, code = H.coax({ "run", path })
    assert.are.equal(5, code)
    assert.are.equal("", out)
    assert.truthy(err:find("coax.getenv: 'HOME' is not readable by scripts (only OLLAMA_HOST)", 1, true), err)
  end)
end)
