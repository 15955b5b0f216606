local H = require "helper"
local coax = require "coax"
local json = coax.json

-- The session report (schemas/report.schema.json): why each attempt failed,
-- the feedback sent after it, and each message of the conversation once.
-- Every report coax.run gives here is also checked against the schema by
-- `coax validate` (spec/helper.lua).

local PERSON = "{ type = 'object', properties = { name = { type = 'string' }, age = { type = 'integer' },"
  .. " currency = { enum = { 'USD', 'EUR' } } }, required = { 'name', 'age' }, additionalProperties = false }"

local function run(fields, replies, opts)
  opts = opts or {}
  opts.source, opts.replies = true, replies
  return coax.run("return { schema = " .. PERSON .. ", prompt = 'Who: {{input}}'" .. (fields or "") .. " }",
    "Ada is 36.", opts)
end

describe("the session report", function()
  describe("records why each attempt failed", function()
    it("the on_submit reason of a rejected attempt", function()
      local r = run(", on_submit = function(v, ctx) return ctx.attempt > 1, 'age ' .. v.age .. ' unverified' end",
        { '{"name": "Ada", "age": 36}', '{"name": "Ada", "age": 36}' })
      assert.are.same({ "rejected", "age 36 unverified", {} },
        { r.attempts[1].outcome, r.attempts[1].reason, r.attempts[1].errors })
      assert.are.same({ "ok", json.null }, { r.attempts[2].outcome, r.attempts[2].reason })
    end)

    it("the parse message of a no_json attempt", function()
      local r = run("", { "I cannot say.", '{"name": "Ada", "age": 36}' })
      assert.are.same({ "no_json", "no JSON value found in 13 bytes of text" },
        { r.attempts[1].outcome, r.attempts[1].reason })
    end)

    it("the errors' count and first error of an invalid attempt", function()
      local r = run("", { '{"name": true, "age": "x"}', '{"name": "Ada", "age": 36}' })
      assert.are.equal("2 validation errors, the first at '/name': expected string, got boolean true",
        r.attempts[1].reason)
      assert.are.equal(2, #r.attempts[1].errors)
    end)

    it("the agent's message when the agent fails", function()
      local r = run("", { '{"name": true}' }, { max_attempts = 2 })
      assert.are.same({ "agent_error", "replay agent: no reply left (1 given)" },
        { r.attempts[2].outcome, r.attempts[2].reason })
      assert.are.equal(r.error.message, r.attempts[2].reason)
    end)

    it("the script's error when on_submit raises", function()
      local r = run(", on_submit = function() error('boom') end", { '{"name": "Ada", "age": 36}' })
      assert.are.equal("script_error", r.attempts[1].outcome)
      assert.matches("^on_submit: recipe:1: boom", r.attempts[1].reason)
      assert.are.equal(r.error.message, r.attempts[1].reason)
    end)
  end)

  describe("keeps the feedback sent after a failed attempt", function()
    it("on every failed attempt another followed, and on no other", function()
      local r = run("", { "nothing", '{"name": true, "age": 2}', "still nothing" })
      assert.are.equal("exhausted", r.outcome)
      assert.matches("^Attempt 1/3: no JSON could be read from your reply", r.attempts[1].feedback)
      assert.matches("^Attempt 2/3: your JSON does not match the schema%.", r.attempts[2].feedback)
      assert.is_nil(r.attempts[3].feedback) -- nothing was sent after the last
      for n = 1, 2 do
        local sent = H.conversation(r, n + 1)
        assert.are.equal(r.attempts[n].feedback, sent[#sent].content)
      end
    end)
  end)

  describe("holds each message once", function()
    -- An agent that replies with the messages it was sent: the reply is the
    -- truth the report's rebuilt conversation must equal.
    local ECHO = ", agent = { call = function(request)"
      .. " return { text = require('coax').json.encode(request.messages) } end }"

    for _, strategy in ipairs { "continue", "fresh", "last" } do
      it("rebuilds what the agent was sent at every attempt (" .. strategy .. ")", function()
        local r = run(ECHO .. ", max_attempts = 5, strategy = '" .. strategy .. "'", nil)
        assert.are.equal(5, #r.attempts)
        for n = 1, 5 do
          assert.are.same(json.decode(r.attempts[n].reply), H.conversation(r, n), strategy .. " attempt " .. n)
        end
      end)
    end

    it("grows by the reply and the feedback an attempt, not by the whole conversation", function()
      local r = run(ECHO .. ", max_attempts = 8", nil)
      local recorded = 0
      for n, a in ipairs(r.attempts) do
        recorded = recorded + #a.messages
        assert.are.equal(n == 1 and 0 or 2 * n - 3, a.messages_kept)
      end
      assert.are.equal(1 + 2 * 7, recorded) -- the prompt, then two a retry (a whole copy each: 64)
      assert.are.equal(15, #H.conversation(r, 8))
    end)

    it("starts again from 0 when a strategy of the recipe's own keeps nothing", function()
      local r = run(", strategy = function(ctx) return { { role = 'user', content = 'again: ' .. ctx.kind } } end",
        { "no", '{"name": "Ada", "age": 36}' })
      assert.are.same({ 0, 1, "again: parse" },
        { r.attempts[2].messages_kept, #r.attempts[2].messages, r.attempts[2].messages[1].content })
      assert.are.equal("again: parse", r.attempts[1].feedback)
    end)
  end)

  describe("log entries", function()
    it("keep each repair's and coercion's detail and class", function()
      local r = run("", { '```json\n{"name": "Ada", "age": "36",}\n```' })
      local log = r.attempts[1].log
      local classes = {} -- the class of each kind is issue 18's to settle; the schema checks the names
      for i, e in ipairs(log) do classes[i], e.class = e.class, nil end
      assert.are.same({
        { kind = "fenced_block", detail = "took the value from a fenced code block", offset = 0, line = 1, column = 1 },
        { kind = "trailing_comma", detail = "removed a trailing comma", offset = 35, line = 2, column = 28 },
        { kind = "string_to_integer", detail = "converted the value to the type the schema asks for",
          pointer = "/age" },
      }, log)
      assert.are.equal(3, #classes)
    end)
  end)
end)

describe("feedback on a coerced submission", function()
  it("echoes what the model sent and says what coax changed", function()
    local r = run("", { '{"name": true, "age": "36", "currency": "usd"}', '{"name": "Ada", "age": 36}' })
    assert.are.equal(table.concat({
      "Attempt 1/3: your JSON does not match the schema.",
      "",
      "Errors:",
      "  - At path '/name': expected string, got boolean true",
      "",
      "Your submission:",
      '{\n  "name": true,\n  "age": "36",\n  "currency": "usd"\n}',
      "",
      "Before checking, coax changed:",
      "  - At path '/age': \"36\" became 36: converted the value to the type the schema asks for (string_to_integer)",
      "  - At path '/currency': \"usd\" became \"USD\": matched the allowed value ignoring case and surrounding spaces"
        .. " (enum_match)",
      "",
      "Fix all of the errors above and reply with the corrected JSON only.",
    }, "\n"), r.attempts[1].feedback)
    -- the report keeps both: the reply as sent, the value as coerced
    assert.are.same({ "usd", "USD" }, { json.decode(r.attempts[1].reply).currency, r.attempts[1].value.currency })
  end)

  it("does the same for a rejection", function()
    local r = run(", on_submit = function(v, ctx) return ctx.attempt > 1, 'not now' end",
      { '{"name": "Ada", "age": 36, "currency": " eur "}', '{"name": "Ada", "age": 36}' })
    assert.are.equal(table.concat({
      "Attempt 1/3: your JSON matches the schema but was rejected: not now",
      "",
      "Your submission:",
      '{\n  "name": "Ada",\n  "age": 36,\n  "currency": " eur "\n}',
      "",
      "Before checking, coax changed:",
      "  - At path '/currency': \" eur \" became \"EUR\": matched the allowed value ignoring case and"
        .. " surrounding spaces (enum_match)",
      "",
      "Fix this and reply with the corrected JSON only.",
    }, "\n"), r.attempts[1].feedback)
  end)

  it("has no such block when nothing was coerced", function()
    local r = run("", { '{"name": true, "age": 2}', '{"name": "Ada", "age": 36}' })
    assert.matches("^Attempt 1/3: your JSON does not match", r.attempts[1].feedback)
    assert.is_nil(r.attempts[1].feedback:find("coax changed", 1, true))
  end)
end)

describe("schemas/report.schema.json", function()
  local report
  setup(function()
    report = json.encode(run("", { "none", '{"name": "Ada", "age": "36"}' }))
  end)

  local function validates(text)
    local _, _, code = H.coax({ "validate", "schemas/report.schema.json" }, text)
    return code
  end

  it("accepts a report coax wrote", function()
    assert.are.equal(0, validates(report))
  end)

  -- Its twins, each with one member the schema does not know: every level is closed.
  for _, case in ipairs {
    { "the report", '^{', '{"extra":1,' },
    { "the metrics", '"metrics":{', '"metrics":{"extra":1,' },
    { "an attempt", '"attempts":%[{', '"attempts":[{"extra":1,' },
    { "a repair or coercion", '"log":%[{', '"log":[{"extra":1,' },
  } do
    it("refuses a member it does not know in " .. case[1], function()
      local changed, n = report:gsub(case[2], case[3], 1)
      assert.are.equal(1, n)
      assert.are.equal(1, validates(changed))
    end)
  end

  it("refuses a failed attempt without its reason, and an ok attempt with one", function()
    local without = report:gsub('"outcome":"no_json","reason":"[^"]*"', '"outcome":"no_json","reason":null', 1)
    assert.are.equal(1, validates(without))
    local with = report:gsub('"outcome":"ok","reason":null', '"outcome":"ok","reason":"x"', 1)
    assert.are.equal(1, validates(with))
  end)
end)
