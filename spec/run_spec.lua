local H = require "helper"
local coax = require "coax"
local json = coax.json

local SCHEMA = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},'
  .. '"required":["name","age"],"additionalProperties":false}'
local GOOD = '{"name":"Ada","age":36}'

local dir, schema_path

-- Writes a recipe (text) beside the test schema and runs it.
local function run(recipe, replies, opts)
  local path = dir .. "/recipe.lua"
  local f = assert(io.open(path, "w"))
  f:write(recipe)
  f:close()
  opts = opts or {}
  opts.replies = replies
  return coax.run(path, opts.input or "Ada is 36.", opts)
end

local function recipe(extra)
  return 'return { schema = "schema.json", prompt = "Extract the person from: {{input}}"' .. (extra or "") .. " }"
end

setup(function()
  dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. H.quote(dir)))
  schema_path = dir .. "/schema.json"
  local f = assert(io.open(schema_path, "w"))
  f:write(SCHEMA)
  f:close()
end)

teardown(function() os.execute("rm -rf " .. H.quote(dir)) end)

describe("coax.run", function()
  it("accepts the first reply that validates", function()
    local r = run(recipe(), { "Here you go:\n```json\n" .. GOOD .. "\n```" })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(GOOD, json.encode(r.value))
    assert.are.equal(json.null, r.error)
    assert.are.equal(1, r.metrics.attempts)
    assert.are.equal(1, r.metrics.repairs) -- the fenced block
    assert.are.equal("ok", r.attempts[1].outcome)
  end)

  it("feeds every validation error back with its JSON Pointer and asks again", function()
    local r = run(recipe(), { '{"name": true, "age": "thirty"}', GOOD })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, r.metrics.attempts)
    local first, second = r.attempts[1], r.attempts[2]
    assert.are.equal("invalid", first.outcome)
    assert.are.same({ "/name", "/age" }, { first.errors[1].instanceLocation, first.errors[2].instanceLocation })
    local m = H.conversation(r, 2)
    assert.are.equal(1, second.messages_kept) -- the prompt; the reply and the feedback are new
    assert.are.equal(3, #m)
    assert.are.same({ "user", "assistant", "user" }, { m[1].role, m[2].role, m[3].role })
    assert.are.equal('{"name": true, "age": "thirty"}', m[2].content)
    assert.are.equal(table.concat({
      "Attempt 1/3: your JSON does not match the schema.",
      "",
      "Errors:",
      "  - At path '/name': " .. first.errors[1].error,
      "  - At path '/age': " .. first.errors[2].error,
      "",
      "Your submission:",
      '{\n  "name": true,\n  "age": "thirty"\n}',
      "",
      "Fix all of the errors above and reply with the corrected JSON only.",
    }, "\n"), m[3].content)
    assert.are.equal(m[3].content, first.feedback)
    assert.are.equal("2 validation errors, the first at '/name': " .. first.errors[1].error, first.reason)
    -- the schema once, compact (indentation costs tokens and tells the model nothing)
    assert.truthy(m[1].content:find("Reply with JSON that matches this JSON Schema:\n" .. SCHEMA, 1, true))
  end)

  it("coerces what it can without asking again", function()
    local r = run(recipe(), { '{"name": "Ada", "age": "36"}' })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(GOOD, json.encode(r.value))
    assert.are.equal(1, r.metrics.coercions)
    assert.are.same({ kind = "string_to_integer", class = "inferred", pointer = "/age",
      detail = "converted the value to the type the schema asks for" }, r.attempts[1].log[1])
  end)

  it("tells the model when no JSON could be read, with the start of its reply", function()
    local r = run(recipe(), { "I think the person is Ada.", GOOD })
    assert.are.equal("no_json", r.attempts[1].outcome)
    assert.are.equal("no JSON value found in 26 bytes of text", r.attempts[1].reason)
    assert.are.equal(table.concat({
      "Attempt 1/3: no JSON could be read from your reply: no JSON value found in 26 bytes of text.",
      "",
      "Your reply began with:",
      "I think the person is Ada.",
      "",
      "Fix this and reply with the corrected JSON only.",
    }, "\n"), r.attempts[1].feedback)
    assert.are.equal(r.attempts[1].feedback, H.conversation(r, 2)[3].content)
  end)

  it("passes a valid value to on_submit with the attempt's context, and feeds its reason back", function()
    local r = run(recipe([[, on_submit = function(v, ctx)
        if ctx.last_attempt then return true end
        return false, ("age %d checked at %d/%d"):format(v.age, ctx.attempt, ctx.max_attempts)
      end, max_attempts = 2]]), { GOOD, GOOD })
    assert.are.equal("ok", r.outcome)
    assert.are.equal("rejected", r.attempts[1].outcome)
    assert.are.equal("age 36 checked at 1/2", r.attempts[1].reason)
    assert.matches("^Attempt 1/2: your JSON matches the schema but was rejected: age 36 checked at 1/2\n",
      r.attempts[1].feedback)
  end)

  it("counts parse failures, schema failures and rejections against one budget", function()
    local r = run(recipe([[, on_submit = function() return false, "no" end]]),
      { "nothing", '{"name": true}', GOOD })
    assert.are.equal("exhausted", r.outcome)
    assert.are.same({ "no_json", "invalid", "rejected" },
      { r.attempts[1].outcome, r.attempts[2].outcome, r.attempts[3].outcome })
    assert.are.equal("exhausted", r.error.code)
    assert.are.equal("3 attempts used up; the last failed: no", r.error.message)
    assert.are.equal(json.null, r.value)
  end)

  it("lets the host cap the attempts", function()
    local r = run(recipe(), { "x", "y", "z" }, { max_attempts = 1 })
    assert.are.equal("exhausted", r.outcome)
    assert.are.equal(1, r.metrics.attempts)
  end)

  describe("strategies", function()
    local replies = { '{"name": true, "age": 2}', '{"name": "Ada"}', GOOD }

    it("continue: the conversation grows by replies and feedback, without the schema again", function()
      local r = run(recipe(), replies)
      local m = H.conversation(r, 3)
      assert.are.same({ 0, 1, 3 }, { r.attempts[1].messages_kept, r.attempts[2].messages_kept,
        r.attempts[3].messages_kept })
      assert.are.same({ "user", "assistant", "user", "assistant", "user" },
        { m[1].role, m[2].role, m[3].role, m[4].role, m[5].role })
      assert.is_nil(m[5].content:find("Expected schema", 1, true))
    end)

    it("fresh: the original prompt, the schema and only the latest errors", function()
      local r = run(recipe(', strategy = "fresh"'), replies)
      local m = H.conversation(r, 3)
      assert.are.equal(2, #m)
      assert.are.same({ 1, 1 }, { r.attempts[3].messages_kept, #r.attempts[3].messages }) -- the prompt stays
      assert.truthy(m[1].content:find("JSON Schema:\n{", 1, true))
      assert.matches("^Attempt 2/3: your JSON does not match the schema%.", m[2].content)
      assert.is_nil(m[2].content:find("Expected schema", 1, true)) -- the prompt has it
    end)

    -- Each request carries the schema once, whatever the strategy, and also
    -- when a recipe's first prompt leaves it out (then the feedback has it).
    for _, case in ipairs({
      { "continue", "" }, { "fresh", ', strategy = "fresh"' }, { "last", ', strategy = "last"' },
      { "continue past its budget", ", context_budget = 50" },
      { "fresh, first prompt without it", ', strategy = "fresh", feedback = { first = "{{prompt}}" }' },
      { "last, first prompt without it", ', strategy = "last", feedback = { first = "{{prompt}}" }' },
      { "continue, first prompt without it", ', feedback = { first = "{{prompt}}" }' },
    }) do
      it("sends the schema once in every request: " .. case[1], function()
        local r = run(recipe(case[2]), replies)
        assert.are.equal(3, #r.attempts)
        for i in ipairs(r.attempts) do
          local n = 0
          for _, m in ipairs(H.conversation(r, i)) do
            for _ in m.content:gmatch('"additionalProperties": ?false') do n = n + 1 end
          end
          local want = (i == 1 and case[1]:find("without it")) and 0 or 1
          assert.are.equal(want, n, ("attempt %d: %s"):format(i, json.encode(H.conversation(r, i))))
        end
      end)
    end

    it("last: the original prompt, the last failed reply and its feedback", function()
      local r = run(recipe(', strategy = "last"'), replies)
      local m = H.conversation(r, 3)
      assert.are.equal(3, #m)
      assert.are.equal(1, r.attempts[3].messages_kept)
      assert.are.equal('{"name": "Ada"}', m[2].content)
    end)

    -- A message is kept when its data is the previous request's: the same
    -- table, or one alike key by key, nested tables too (compared in C,
    -- engine/session/record.c). Each twin below differs in one place.
    local function twice(second)
      return ([[, strategy = function(ctx)
          local prompt = ctx.messages[1]
          if #ctx.messages == 1 then
            return { prompt, { role = "user", content = "x", meta = { a = { 1, 2 } } },
              { role = "user", content = "y" } }
          end
          return { prompt, %s, { role = "user", content = "z" } }
        end]]):format(second)
    end
    for _, case in ipairs({
      { "alike, nested", '{ role = "user", content = "x", meta = { a = { 1, 2 } } }', 2 },
      { "a nested value differs", '{ role = "user", content = "x", meta = { a = { 1, 3 } } }', 1 },
      { "a key more", '{ role = "user", content = "x", meta = { a = { 1, 2 } }, name = "n" }', 1 },
      { "a key less", '{ role = "user", content = "x" }', 1 },
      { "another metatable", 'setmetatable({ role = "user", content = "x", meta = { a = { 1, 2 } } }, {})', 1 },
    }) do
      it("keeps a message whose data is the previous request's: " .. case[1], function()
        local r = run(recipe(twice(case[2])), { "{}", "{}", "{}" })
        assert.are.equal(3, #r.attempts)
        assert.are.equal(1, r.attempts[2].messages_kept)
        assert.are.equal(case[3], r.attempts[3].messages_kept)
        assert.are.equal(3 - case[3], #r.attempts[3].messages)
        assert.are.equal("z", r.attempts[3].messages[#r.attempts[3].messages].content)
      end)
    end

    -- The report writes a message that repeats the last reply or feedback
    -- from the JSON it wrote for them (engine/session/record.c): the same
    -- text only, byte for byte, whatever its escapes.
    it("records each message's own text where it repeats the reply or the feedback", function()
      local reply = '{"name": "A\\"da\\n\u{e9}\\u0001", "age": "x"}'
      local r = run(recipe([[, strategy = function(ctx)
          local said = ctx.kind .. " " .. #ctx.errors
          return { ctx.messages[1], { role = "assistant", content = ctx.reply },
            { role = "user", content = ctx.reply:upper() }, { role = "user", content = said },
            { role = "user", content = said:upper() } }
        end]]), { reply, GOOD })
      assert.are.equal("ok", r.outcome)
      local m = r.attempts[2].messages
      assert.are.equal(1, r.attempts[2].messages_kept)
      assert.are.same({ reply, reply:upper(), "validation 1", "VALIDATION 1" },
        { m[1].content, m[2].content, m[3].content, m[4].content })
      assert.are.equal(reply, r.attempts[1].reply)
      assert.are.equal("VALIDATION 1", r.attempts[1].feedback) -- the last user message
    end)

    it("ends with a script error on a message that holds itself, and does not hang", function()
      local r = run(recipe([[, strategy = function(ctx)
          local m = { role = "user", content = "x" }
          m.self = m
          return { ctx.messages[1], m }
        end]]), { "{}", "{}" })
      assert.are.equal("script_error", r.error.code)
      assert.matches("^messages: COAX_EDEPTH: nesting deeper than 512 %(or a cycle%)", r.error.message)
      assert.are.equal(1, #r.attempts)
    end)

    it("continue starts fresh once the conversation passes the context budget", function()
      local r = run(recipe(", context_budget = 50"), replies)
      assert.are.equal(2, #H.conversation(r, 2))
    end)

    it("takes a function", function()
      local r = run(recipe([[, strategy = function(ctx)
          return { { role = "user", content = "retry " .. ctx.kind .. " " .. #ctx.errors } }
        end]]), replies)
      assert.are.equal("retry validation 1", r.attempts[2].messages[1].content)
      assert.are.equal(0, r.attempts[2].messages_kept)
      assert.are.equal("retry validation 1", r.attempts[1].feedback) -- the strategy's last user message
    end)

    -- The failed value reaches Lua as a table only where it is read: a
    -- recipe's own strategy (also through a recipe with a metatable), and
    -- the coercion lines of the built-in feedback. The built-in strategies
    -- read the submission's text, whatever the value.
    it("gives a strategy function the value sent and the value coerced", function()
      local strategy = [[, strategy = function(ctx)
          SEEN = (SEEN or "") .. require("coax").json.encode({ ctx.value, ctx.coerced_value }) .. ";"
          return { { role = "user", content = SEEN } }
        end]]
      local r = run(recipe(strategy), { '{"age": "36"}', '{"name": 7, "age": 36, "x": {}}', GOOD })
      assert.are.equal('[{"age":"36"},{"age":36}];', r.attempts[2].messages[1].content)
      assert.are.equal('[{"age":"36"},{"age":36}];[{"name":7,"age":36,"x":{}},{"name":"7","age":36,"x":{}}];',
        r.attempts[3].messages[1].content)
      -- a strategy behind the recipe's metatable
      r = run('return setmetatable({ schema = "schema.json", prompt = "x" }, { __index = { strategy = function(ctx) '
        .. 'return { { role = "user", content = ctx.value.name } } end } })', { '{"name": "Bo"}', GOOD })
      assert.are.equal("Bo", r.attempts[2].messages[1].content)
      assert.are.equal("ok", r.attempts[2].outcome)
    end)

    for _, how in ipairs({ "continue", "fresh", "last" }) do
      it("writes the submission and the coercion lines with the built-in strategy " .. how, function()
        local r = run(recipe((', strategy = "%s"'):format(how)), { '{"age": "36"}', GOOD })
        assert.are.equal("Attempt 1/3: your JSON does not match the schema.\n\nErrors:\n"
          .. "  - At path '(root)': missing required property \"name\"\n\n"
          .. 'Your submission:\n{\n  "age": "36"\n}\n\nBefore checking, coax changed:\n'
          .. "  - At path '/age': \"36\" became 36: converted the value to the type the schema asks for "
          .. "(string_to_integer)\n\nFix all of the errors above and reply with the corrected JSON only.",
          r.attempts[1].feedback)
        r = run(recipe((', strategy = "%s"'):format(how)), { '{"name": "Ada", "age": 3.5}', GOOD })
        assert.are.equal("Attempt 1/3: your JSON does not match the schema.\n\nErrors:\n"
          .. "  - At path '/age': expected integer, got number 3.5\n\n"
          .. 'Your submission:\n{\n  "name": "Ada",\n  "age": 3.5\n}\n\n'
          .. "Fix all of the errors above and reply with the corrected JSON only.", r.attempts[1].feedback)
        assert.are.equal("ok", r.attempts[2].outcome)
      end)
    end
  end)

  -- A template's parts are made when it names them: "fresh" and "last"
  -- render the first prompt again every attempt, and it names no errors,
  -- coercions or submission.
  it("makes only the parts of feedback its template names", function()
    local feedback = require "coax.feedback"
    local trap = setmetatable({}, { __index = function() error("read", 0) end })
    local ctx = { prompt = "P", schema_text = "S", errors = trap, coercions = trap, attempt = 2, max_attempts = 3,
      reply = trap }
    assert.are.equal("P\n\nReply with JSON that matches this JSON Schema:\nS", feedback.render("first", ctx))
    assert.are.equal("2/3 P",
      feedback.render("mine", ctx, { mine = "{{attempt}}/{{max_attempts}} {{prompt}}{{nope}}" }))
    assert.has_error(function() feedback.render("validation", ctx) end, "read")
    ctx.errors = { { instanceLocation = "/a", error = "bad" } }
    assert.has_error(function() feedback.render("validation", ctx) end, "read") -- the coercion lines
    ctx.coercions = {}
    ctx.submission = "{}"
    assert.are.equal("Attempt 2/3: your JSON does not match the schema.\n\nErrors:\n  - At path '/a': bad\n\n"
      .. "Your submission:\n{}\n\nFix all of the errors above and reply with the corrected JSON only.",
      feedback.render("validation", ctx))
  end)

  -- "fresh" and "last" render the first prompt every attempt: a text that
  -- names only the session's values (prompt, schema, steps, max_attempts) is
  -- kept in ctx.rendered and given back while they stay the same.
  it("keeps a rendered text that names only the session's values", function()
    local feedback = require "coax.feedback"
    local ctx = { prompt = "P", schema_text = "S", attempt = 2, max_attempts = 3, rendered = {} }
    local first = feedback.render("first", ctx)
    assert.are.equal("P\n\nReply with JSON that matches this JSON Schema:\nS", first)
    assert.are.equal(first, ctx.rendered.first.text)
    ctx.rendered.first.text = "kept" -- given back, not rendered again
    ctx.attempt = 3
    assert.are.equal("kept", feedback.render("first", ctx))
    -- any of the session's values changed, or the template: rendered again
    for _, change in ipairs({ { "prompt", "Q" }, { "schema_text", "T" }, { "max_attempts", 4 }, { "tools", true } }) do
      local c = { prompt = "P", schema_text = "S", attempt = 2, max_attempts = 3,
        rendered = { first = ctx.rendered.first } }
      c[change[1]] = change[2]
      assert.are_not.equal("kept", feedback.render("first", c))
    end
    assert.are.equal("P!", feedback.render("first", ctx, { first = "{{prompt}}!" }))
    -- a template that names the attempt is never kept
    local mine = { first = "{{attempt}} {{prompt}}" }
    local c = { prompt = "P", attempt = 2, max_attempts = 3, rendered = {} }
    assert.are.equal("2 P", feedback.render("first", c, mine))
    assert.is_nil(c.rendered.first)
    c.attempt = 3
    assert.are.equal("3 P", feedback.render("first", c, mine))
  end)

  for _, how in ipairs({ "fresh", "last" }) do
    -- on a retry, {{attempt}} is the failed attempt's number, as in the feedback
    it("renders a first prompt that names the attempt afresh each attempt (" .. how .. ")", function()
      local r = run(recipe((', strategy = "%s", feedback = { first = "Try {{attempt}}: {{prompt}}" }'):format(how)),
        { '{"name": "Ada"}', '{"name": "Ada"}', GOOD })
      assert.are.equal("ok", r.outcome)
      for n, shown in ipairs({ 1, 1, 2 }) do
        assert.are.equal("Try " .. shown .. ": Extract the person from: Ada is 36.", H.conversation(r, n)[1].content)
      end
    end)
  end

  it("renders feedback from the recipe's templates", function()
    local r = run(recipe([[, feedback = { validation = "Wrong ({{attempt}}/{{max_attempts}}):\n{{errors}}" }]]),
      { '{"name": "Ada"}', GOOD })
    assert.are.equal("Wrong (1/3):\n  - At path '(root)': " .. r.attempts[1].errors[1].error,
      H.conversation(r, 2)[3].content)
  end)

  it("tells on_event what happens", function()
    local r = run(recipe([[, on_event = function(name) events[#events + 1] = name end,
      on_submit = function() return false, table.concat(events, ",") end, max_attempts = 1]]):gsub("^", "events = {} "),
      { GOOD })
    assert.are.equal("1 attempt used up; the last failed: attempt_start,reply", r.error.message)
  end)

  it("gives on_event the attempt and what happened", function()
    local r = run(recipe([[, on_event = function(name, data)
        local extra = data.errors or data.bytes or data.reason or data.error or ""
        log[#log + 1] = name .. ":" .. data.attempt .. ":" .. tostring(extra)
      end, on_submit = function() return false, table.concat(log, " ") end]]):gsub("^", "log = {} "),
      { "nothing", '{"name": true}', GOOD })
    assert.are.equal("exhausted", r.outcome)
    assert.are.equal("3 attempts used up; the last failed: attempt_start:1: reply:1:7 "
      .. "parse_error:1:no JSON value found in 7 bytes of text attempt_start:2: reply:2:14 "
      .. "validation_error:2:2 attempt_start:3: reply:3:23", r.error.message)
  end)

  -- Regression: the value stayed in the report of a session whose on_event
  -- failed on "success", beside outcome script_error.
  it("keeps no value when on_event fails on the success", function()
    local r = run(recipe([[, on_event = function(name) if name == "success" then error("no") end end]]), { GOOD })
    assert.are.equal("script_error", r.outcome)
    assert.are.equal(json.null, r.value)
    assert.are.equal("ok", r.attempts[1].outcome)
    assert.is_table(r.attempts[1].value)
  end)

  describe("ends with", function()
    it("agent_error when the agent fails", function()
      local r = run(recipe(), { "nothing" })
      assert.are.equal("agent_error", r.outcome)
      assert.are.equal("replay agent: no reply left (1 given)", r.error.message)
      assert.are.equal(2, r.metrics.attempts)
    end)

    it("invalid for an unknown recipe field, a bad schema or a syntax error, before any call", function()
      local r = run(recipe(", colour = 'red'"), { GOOD })
      assert.are.equal("invalid", r.outcome)
      assert.are.equal("unknown recipe field 'colour'", r.error.message)
      assert.are.equal(0, r.metrics.attempts)
      r = run('return { schema = { type = 12 }, prompt = "x" }', { GOOD })
      assert.are.equal("invalid", r.outcome)
      assert.are.equal("invalid_schema", r.error.code)
      r = run('return { schema = "missing.json", prompt = "x" }', { GOOD })
      assert.are.equal("invalid", r.outcome)
      assert.matches("cannot open schema .*missing.json", r.error.message)
      r = run("return {", { GOOD })
      assert.are.equal("invalid_recipe", r.error.code)
    end)

    -- A recipe's code failing while it runs is a script error, whatever
    -- function of the recipe it is; only what is wrong with the recipe
    -- itself is invalid.
    for _, case in ipairs({
      { "a prompt function that raises", [[, prompt = function(input) error("boom") end]],
        "^prompt: .*boom\nstack traceback:" },
      { "a prompt function that indexes nil", [[, prompt = function(input) local t; return t.x end]],
        "^prompt: .*attempt to index a nil value.*\nstack traceback:" },
      { "a prompt function that returns no string", [[, prompt = function(input) return 12 end]],
        "^prompt: the recipe's prompt function must return a string, not a number\nstack traceback:" },
      { "on_submit", [[, on_submit = function() error("boom") end]], "^on_submit: .*boom\nstack traceback:" },
      { "a strategy", [[, strategy = function() error("boom") end]], "^strategy: .*boom\nstack traceback:" },
    }) do
      it("script_error (exit 5) with the traceback for " .. case[1], function()
        local text = recipe(case[2])
        if case[2]:find("prompt =", 1, true) then -- the case's prompt replaces the recipe's
          text = text:gsub('prompt = "Extract the person from: {{input}}"', "prompt = nil")
        end
        local r = run(text, { '{"name": true}', GOOD })
        assert.are.equal("script_error", r.outcome)
        assert.are.equal("script_error", r.error.code)
        assert.matches(case[3], r.error.message)
        local path = dir .. "/recipe.lua"
        local replies = H.tmpfile('"{\\"name\\": true}"\n"' .. GOOD:gsub('"', '\\"') .. '"\n')
        local _, err, code = H.coax({ "run", path, "--replay", replies })
        assert.are.equal(5, code, err)
        assert.matches("^coax run: script_error: " .. case[3]:sub(2), err)
      end)
    end

    it("script_error with a traceback when a callback raises", function()
      local r = run(recipe([[, on_submit = function() error("boom") end]]), { GOOD })
      assert.are.equal("script_error", r.outcome)
      assert.matches("on_submit: .*boom\nstack traceback:", r.error.message)
    end)

    it("limit when the token budget would be passed", function()
      local r = run(recipe(", budget = { tokens = 20 }"), { GOOD })
      assert.are.equal("limit", r.outcome)
      assert.are.equal("tokens", r.error.code)
      assert.are.equal(0, r.metrics.attempts)
    end)

    it("limit when the deadline passes while the agent waits", function()
      -- The deadline counts from the session's first step, so the work
      -- before the first call must fit in it for that call to be made: at
      -- 20 ms a loaded machine's wait (ASan: 3 ms, 2 runs in 100) could
      -- end the session before its first attempt. 200 ms leaves that work
      -- room; the agent's delay is far past it, and costs nothing (the
      -- session ends at its deadline).
      local r = run(recipe(", budget = { deadline_ms = 200 }"), { "x", "y", GOOD },
        { agent_options = { delay_ms = 60000 } })
      assert.are.equal("limit", r.outcome)
      assert.are.equal("deadline", r.error.code)
      assert.is_true(r.metrics.wall_ms >= 200 and r.metrics.wall_ms < 60000)
      assert.are.equal(1, r.metrics.attempts)
      assert.are.equal("limit", r.attempts[1].outcome) -- the deadline, not the agent, ended it
    end)
  end)

  describe("stops runaway scripts", function()
    local function limited(extra)
      return run(recipe(extra), { GOOD }, { lua_instructions = 200000 })
    end

    it("in a recipe's top level", function()
      local r = run("while true do end", { GOOD }, { lua_instructions = 200000 })
      assert.are.equal("limit", r.outcome)
      assert.matches("Lua instruction limit", r.error.message)
    end)

    it("in on_submit, even inside pcall", function()
      local r = limited([[, on_submit = function()
          local ok = pcall(function() while true do end end)
          return true
        end]])
      assert.are.equal("limit", r.outcome)
    end)

    it("in a strategy, even inside coroutine.resume", function()
      local r = run(recipe([[, strategy = function()
          coroutine.resume(coroutine.create(function() while true do end end))
          return { { role = "user", content = "x" } }
        end]]), { "x", GOOD }, { lua_instructions = 200000 })
      assert.are.equal("limit", r.outcome)
    end)

    it("that allocate too much", function()
      local r = run(recipe([[, on_submit = function()
          local ok = pcall(string.rep, "x", 1 << 30)
          return true
        end]]), { GOOD }, { lua_memory = 32 << 20 })
      assert.are.equal("limit", r.outcome)
    end)
  end)

  describe("keeps scripts in the sandbox", function()
    local cases = {
      { "io", "return io.open('/etc/passwd')" },
      { "os.execute", "return os.execute('true')" },
      { "os.getenv", "return os.getenv('HOME')" },
      { "debug", "return debug.getinfo(1)" },
      { "package.loadlib", "return package.loadlib('libc.so.6', 'system')" },
      { "require of other modules", "return require('os')" },
      { "require of io", "return require('io')" },
      { "dofile", "return dofile('/etc/passwd')" },
      { "loadfile", "return loadfile('/etc/passwd')" },
      { "binary chunks", "return assert(load('\\27Lua', 'x', 'b'))" },
      { "the string metatable", "getmetatable('').__index = {}" },
      { "collectgarbage", "collectgarbage('stop')" },
    }
    for _, c in ipairs(cases) do
      it("no " .. c[1], function()
        local r = run(c[2], { GOOD })
        assert.are.equal("invalid", r.outcome, c[2])
        assert.are.equal("invalid_recipe", r.error.code)
      end)
    end

    it("a recipe's globals stay its own", function()
      local r = run("x_global = 1; return { schema = 'schema.json', prompt = tostring(x_global) }", { GOOD })
      assert.are.equal("ok", r.outcome)
      assert.are.equal("1", r.attempts[1].messages[1].content:sub(1, 1))
    end)
  end)

  it("waits on coax.sleep without blocking other work", function()
    local r = run(recipe(), { GOOD }, { agent_options = { delay_ms = 20 } })
    assert.are.equal("ok", r.outcome)
    assert.is_true(r.metrics.agent_ms >= 20)
    assert.is_true(r.metrics.wall_ms >= r.metrics.agent_ms)
  end)

  it("writes reports that validate against schemas/report.schema.json", function()
    local validator = coax.schema(H.read("schemas/report.schema.json"))
    local reports = {
      run(recipe(), { '{"name": true}', "nothing", GOOD }),
      run(recipe(), { "nothing" }),
      run(recipe(", colour = 1"), {}),
      run(recipe([[, on_submit = function() error("x") end]]), { GOOD }),
    }
    for _, r in ipairs(reports) do
      local ok, errors = validator:validate(r)
      assert(ok, errors and json.encode(errors))
    end
  end)
end)

describe("coax run (command)", function()
  it("runs the shipped recipes on their sample inputs", function()
    for _, name in ipairs { "invoice", "contact" } do
      local report = os.tmpname()
      local out, err, code = H.coax({ "run", "lua/recipes/" .. name .. ".lua", "--input", "lua/recipes/" .. name
        .. ".input.txt", "--replay", "lua/recipes/" .. name .. ".replies.jsonl", "--report", report })
      assert.are.equal(0, code, err)
      assert.are.equal("", err)
      local r = json.decode(H.assert_report(H.read(report)))
      os.remove(report)
      assert.are.equal("ok", r.outcome)
      assert.are.equal(3, r.metrics.attempts) -- the transcripts: repair and an error, a type error, then right
      assert.are.equal(json.encode(r.value) .. "\n", out)
    end
  end)

  it("tells on stderr a value a recipe's max_class = \"invented\" took from a guess (hunt15)", function()
    local path = dir .. "/recipe.lua"
    local f = assert(io.open(path, "w"))
    f:write(recipe(', max_class = "invented"'))
    f:close()
    local replies = H.tmpfile('"{\\"name\\": \\"Ada\\", \\"age\\": 35, \\"age\\": 36}"\n')
    local out, err, code = H.coax({ "run", path, "--replay", replies })
    assert.are.same({ GOOD .. "\n", "coax run: a guess at line 1, column 28 of the reply: a key given twice with two "
      .. "values: which one was meant is a guess (the report's log lists every repair)\n", 0 }, { out, err, code })
    -- --stream's last line says the class, as coax batch's line does
    local function last_line(text) return json.decode(text:match("([^\n]+)\n$")) end
    out, err, code = H.coax({ "run", path, "--replay", replies, "--stream" })
    assert.are.same({ { value = json.decode(GOOD), class = "invented" }, 0 }, { last_line(out), code }, err)
    -- twin: a value that rests on no guess is printed alone
    os.remove(replies)
    replies = H.tmpfile('"{name: \\"Ada\\", \\"age\\": 36}"\n')
    out, err, code = H.coax({ "run", path, "--replay", replies })
    assert.are.same({ GOOD .. "\n", "", 0 }, { out, err, code })
    out, err, code = H.coax({ "run", path, "--replay", replies, "--stream" })
    assert.are.same({ { value = json.decode(GOOD), class = "inferred" }, 0 }, { last_line(out), code }, err)
    os.remove(replies)
  end)

  it("exits by outcome with the reason on stderr", function()
    local replies = H.tmpfile('"nothing"\n"still nothing"\n"no"\n')
    local out, err, code = H.coax({ "run", "lua/recipes/contact.lua", "--replay", replies, "--max-attempts", "2" })
    assert.are.equal("", out)
    assert.are.equal(1, code)
    assert.matches("^coax run: exhausted: 2 attempts used up", err)
    out, err, code = H.coax({ "run", "lua/recipes/contact.lua", "--replay", replies, "--max-attempts", "5" })
    assert.are.equal("", out)
    assert.are.equal(3, code)
    assert.are.equal("coax run: agent_error: replay agent: no reply left (3 given)\n", err)
    os.remove(replies)
  end)

  it("exits 2 for usage errors and unreadable recipes", function()
    local _, err, code = H.coax({ "run" })
    assert.are.equal(2, code)
    assert.are.equal("coax run: a RECIPE is required (try --help)\n", err)
    _, err, code = H.coax({ "run", "/nonexistent/recipe.lua" })
    assert.are.equal(2, code)
    assert.are.equal("coax run: cannot open recipe /nonexistent/recipe.lua: No such file or directory\n", err)
    local bad = H.tmpfile("not a JSON string\n")
    _, _, code = H.coax({ "run", "lua/recipes/contact.lua", "--replay", bad })
    assert.are.equal(2, code)
    os.remove(bad)
  end)

  it("reads a recipe only from a regular file, and at most the Lua memory cap of it", function()
    -- /dev/zero grew the command without end (1 GB in 20 s), a FIFO with no
    -- writer blocked it for ever; both are refused before a byte is read
    local fifo = os.tmpname()
    os.remove(fifo)
    assert(os.execute("mkfifo " .. H.quote(fifo)))
    for _, path in ipairs({ "/dev/zero", fifo }) do
      local _, err, code = H.coax({ "run", path, "--replay", "/dev/null" })
      assert.are.same({ 2, "coax run: cannot open recipe " .. path .. ": not a regular file\n" }, { code, err })
    end
    os.remove(fifo)
    -- past the Lua memory cap (64 MiB), a limit seen before a byte is read (a sparse file);
    -- --max-input bounds replies, not recipes (batch_spec: a recipe past --max-input 200 runs)
    local big = os.tmpname()
    assert(os.execute("truncate -s " .. (64 * 1024 * 1024 + 1) .. " " .. H.quote(big)))
    local _, err, code = H.coax({ "run", big, "--replay", "/dev/null" })
    os.remove(big)
    assert.are.same({ 4, "coax run: recipe " .. big .. " is larger than the limit of 67108864 bytes (lua_memory)\n" },
      { code, err })
  end)
end)
