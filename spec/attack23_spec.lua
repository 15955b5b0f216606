--- Attack round 23: the second promise (a recipe or a reply never hurts its host), against what the
-- earlier rounds left: the reads of a recipe's own tables.
local H = require "helper"

-- ---- a recipe's table is read once -----------------------------------------------------------------
-- recipe.lua checked a recipe's fields through its metatable (pairs, __index), and the session read
-- them again: Lua through __index, C raw. A table could answer the check one thing and the session
-- another: max_attempts 3 to the check's five reads and -1 to the session's ("-1 attempts used
-- up"), a __pairs that hid budget.tokens = -5 from the check left C's raw read a budget of 2^64 - 5
-- tokens, a field's type the check never saw (pairs hid it) failed in the engine's own scripts as
-- a script error, and a schema only __index gave was found by no raw read. The check now copies each
-- field once (plain_copy: what pairs gives, then t[name] for each known name it did not), checks
-- the copy, and the session and C use only that copy.
describe("attack 23: a recipe's table is read once, and what was checked is what runs", function()
  local FAILS = '{ type = "object", required = { "q" } }'

  it("max_attempts answered 3 to the check and -1 after: 3 attempts, as checked", function()
    local r = H.run_source([[
local reads = 0
return setmetatable({ schema = ]] .. FAILS .. [[, prompt = "hi" }, { __index = function(_, k)
  if k == "max_attempts" then reads = reads + 1 return reads > 5 and -1 or 3 end
end })]], { replies = { "{}", "{}", "{}", "{}" } })
    assert.are.same({ "exhausted", "exhausted",
      "3 attempts used up; the last failed: 1 validation error, the first at '': missing required property \"q\"" },
      H.ended(r))
    assert.are.equal(3, #r.attempts)
  end)

  it("a budget whose __pairs hides tokens = -5 and deadline_ms = -100 is refused, not a budget of 2^64 - 5", function()
    local r = H.run_source([[return { schema = { type = "object" }, prompt = "hi",
  budget = setmetatable({ tokens = -5, deadline_ms = -100 }, { __pairs = function() return next, {} end }) }]])
    assert.are.same({ "invalid", "invalid_recipe", "budget.deadline_ms must be a positive integer" }, H.ended(r))
    r = H.run_source([[return { schema = { type = "object" }, prompt = "hi",
  budget = setmetatable({ tokens = 2.5 }, { __pairs = function() return next, {} end }) }]])
    assert.are.same({ "invalid", "invalid_recipe", "budget.tokens must be a positive integer" }, H.ended(r))
  end)

  local hidden = {
    { "system = 5", "recipe field 'system' must be a string, not a number" },
    { "prompt = {}", "recipe field 'prompt' must be a string or function, not a table" },
    { "on_event = 5", "recipe field 'on_event' must be a function, not a number" },
    { "feedback = 5", "recipe field 'feedback' must be a table, not a number" },
    { "agent = 5", "recipe field 'agent' must be a string or table, not a number" },
    { "schema = 5", "recipe field 'schema' must be a string or table, not a number" },
  }
  for _, c in ipairs(hidden) do
    it("a field __pairs hides from the check is checked all the same: " .. c[1], function()
      local r = H.run_source(([[
local t = { schema = %s, prompt = "hi", max_attempts = 2 }
t.%s
return setmetatable(t, { __pairs = function() return next, {} end })]]):format(FAILS, c[1]))
      assert.are.same({ "invalid", "invalid_recipe", c[2] }, H.ended(r))
    end)
  end

  it("a stream table answering the check one thing and the session another: the checked one", function()
    local r = H.run_source([[
local reads = 0
return { schema = { type = "object" }, prompt = "hi",
  stream = setmetatable({}, { __index = function(_, k)
    if k == "every_ms" then reads = reads + 1 return reads > 2 and -1 or 5 end
  end }) }]])
    assert.are.same({ "ok" }, H.ended(r))
  end)

  it("twin: fields a base recipe lends through __index are used, the schema too", function()
    local r = H.run_source([[
local base = { prompt = "Who? {{input}}", max_attempts = 2, system = "Be brief.", schema = ]] .. FAILS .. [[ }
return setmetatable({}, { __index = base })]], { replies = { "{}", "{}", "{}" } })
    assert.are.same({ "exhausted", "exhausted",
      "2 attempts used up; the last failed: 1 validation error, the first at '': missing required property \"q\"" },
      H.ended(r))
    assert.are.equal("Be brief.", r.attempts[1].messages[1].content)
    r = H.run_source([[return setmetatable({ prompt = "hi" }, { __index = { schema = { type = "object" } } })]])
    assert.are.same({ "ok" }, H.ended(r))
  end)

  it("feedback templates a base table lends, or behind a protected metatable, are the recipe's", function()
    for _, mt in ipairs({ '{ __index = base }', '{ __index = base, __metatable = "locked" }' }) do
      local r = H.run_source(([[
local base = { validation = "V: {{errors}}" }
return { schema = %s, prompt = "hi", max_attempts = 2, feedback = setmetatable({}, %s) }]]):format(FAILS, mt),
        { replies = { "{}", "{}" } })
      assert.are.same({ "exhausted", "V:   - At path '(root)': missing required property \"q\"" },
        { r.outcome, r.attempts[1].feedback })
    end
  end)

  it("a template that is no text, or of a name coax does not know, is refused; twin: known ones are used", function()
    local r = H.run_source('return { schema = { type = "object" }, prompt = "hi", feedback = { validation = 5 } }')
    assert.are.same({ "invalid", "invalid_recipe", "feedback.validation must be a string, not a number" }, H.ended(r))
    r = H.run_source('return { schema = { type = "object" }, prompt = "hi", feedback = { validaton = "x" } }')
    assert.are.same({ "invalid", "invalid_recipe", "unknown feedback template 'validaton' (coerced_block, first, "
      .. "parse, rejection, schema_block, validation)" }, H.ended(r))
    r = H.run_source('return { schema = { type = "object" }, prompt = "hi", feedback = { first = "F: {{prompt}}" } }')
    assert.are.same({ "ok", "F: hi" }, { r.outcome, r.attempts[1].messages[1].content })
  end)

  it("twins: an unknown field pairs shows is refused; a plain recipe runs", function()
    local r = H.run_source([[return setmetatable({ schema = { type = "object" }, prompt = "hi", bogus = 1 },
  { __index = function() end })]])
    assert.are.same({ "invalid", "invalid_recipe", "unknown recipe field 'bogus'" }, H.ended(r))
    r = H.run_source('return { schema = { type = "object" }, prompt = "hi", budget = { tokens = 100000 } }')
    assert.are.same({ "ok" }, H.ended(r))
  end)
end)

-- ---- the messages an agent sends are the ones the report records ------------------------------------
-- The report records an attempt's messages raw (engine/session/record.c, in C) before the agent is
-- called; the agent read the strategy's tables through their metatables, later. A message whose
-- content only __index gave was sent and recorded as {"role":"user"}; a strategy that kept the list it
-- returned changed it from on_event "attempt_start", after the record: the provider got text the
-- report never showed. The agent is now handed a plain copy made where the messages are recorded
-- (lcoax_push_plain_list: their raw data, JSON marks and key orders, no other metatable), which no
-- script holds.
describe("attack 23: the messages an agent is handed are the ones the report records", function()
  -- an agent that answers {} first, then {"q": the last message's content, as it sees it}
  local AGENT = [[
  agent = { call = function(request)
    local m = request.messages[#request.messages]
    calls = calls + 1
    if calls == 1 then return { text = "{}" } end
    return { text = coax.json.encode({ q = tostring(m.content) }) }
  end } }]]
  local HEAD = 'local coax = require "coax"\nlocal sent, calls = nil, 0\n'
    .. 'return { schema = { type = "object", required = { "q" } }, '
    .. 'prompt = "hi", max_attempts = 2,\n'

  -- the recipe's own agent: no replies from the host, whose options win
  local function run_own(source) return require("coax").run(source, "x", { source = true }) end

  local function run(strategy)
    local r = run_own(HEAD .. strategy .. ",\n" .. AGENT)
    return r.outcome, r.value and r.value.q, r.attempts[2].messages, r.attempts[1].feedback
  end

  it("a content only __index gives is neither sent nor recorded: the message has none, and is refused", function()
    local r = run_own(HEAD .. [[
  strategy = function() return { setmetatable({ role = "user" }, { __index = { content = "only __index" } }) } end,
]] .. AGENT)
    assert.are.same({ "script_error", "script_error", "strategy: message 1 needs a role (system, user, "
      .. "assistant or tool) and a string content" }, H.ended(r))
    assert.are.equal(1, #r.attempts)
  end)

  it("a raw content beside an __index one: the raw one is sent, recorded and told as the feedback", function()
    local outcome, q, recorded, feedback = run([[
  strategy = function()
    return { setmetatable({ role = "user", content = "raw" }, { __index = { content = "__index" } }) }
  end]])
    assert.are.same({ "ok", "raw", { { role = "user", content = "raw" } }, "raw" }, { outcome, q, recorded, feedback })
  end)

  it("a list changed from on_event after it was recorded: the agent sends what was recorded", function()
    local outcome, q, recorded = run([[
  strategy = function() sent = { { role = "user", content = "as recorded" } } return sent end,
  on_event = function(name) if name == "attempt_start" and sent then sent[1].content = "changed after" end end]])
    assert.are.same({ "ok", "as recorded", { { role = "user", content = "as recorded" } } }, { outcome, q, recorded })
  end)

  it("messages on_submit or a strategy changed after they were recorded: the kept ones go as recorded", function()
    for _, c in ipairs({
      { "on_submit", [[strategy = "continue",
  on_submit = function(v, ctx) ctx.messages[1].content = "changed" return v.q ~= "first" end]] },
      { "a strategy", [[strategy = function(ctx)
    ctx.messages[1].content = "changed"
    local m = { ctx.messages[1] }
    m[2] = { role = "user", content = "again" }
    return m
  end,
  on_submit = function(v) return v.q ~= "first" end]] },
    }) do
      local r = run_own(HEAD .. c[2] .. [[,
  agent = { call = function(request)
    calls = calls + 1
    return { text = coax.json.encode({ q = calls == 1 and "first" or request.messages[1].content }) }
  end } }]])
      local first = r.attempts[1].messages[1].content
      assert.are.equal("hi\n\n", first:sub(1, 4), c[1])
      if c[1] == "on_submit" then -- kept: the first request's prompt, as the report has it
        assert.are.same({ "ok", first, 1 }, { r.outcome, r.value.q, r.attempts[2].messages_kept })
      else -- its own copy changed and returned: a new message, recorded as sent
        assert.are.same({ "ok", "changed", 0, "changed" },
          { r.outcome, r.value.q, r.attempts[2].messages_kept, r.attempts[2].messages[1].content })
      end
    end
  end)

  it("a list whose __len and __index make it longer: the raw items, as recorded", function()
    local outcome, q, recorded = run([[
  strategy = function() return setmetatable({ { role = "user", content = "first" } },
    { __len = function() return 2 end,
      __index = function(_, i) if i == 2 then return { role = "user", content = "hidden" } end end })
  end]])
    assert.are.same({ "ok", "first", { { role = "user", content = "first" } } }, { outcome, q, recorded })
  end)

  local bad = {
    { "a role the report does not know", '{ role = "robot", content = "x" }', 1 },
    { "a content that is no string", '{ role = "user", content = "x" }, { role = "user", content = 5 }', 2 },
    { "a message that is no table", '{ role = "user", content = "x" }, "x"', 2 },
  }
  for _, c in ipairs(bad) do
    it("a message the report's schema cannot hold is the strategy's error: " .. c[1], function()
      local r = run_own(HEAD .. "strategy = function() return { " .. c[2] .. " } end,\n" .. AGENT)
      local want = c[1] == "a message that is no table"
        and "strategy: messages must be a list of {role = ..., content = ...} tables"
        or ("strategy: message %d needs a role (system, user, assistant or tool) and a string content"):format(c[3])
      assert.are.same({ "script_error", "script_error", want }, H.ended(r))
    end)
  end

  it("twin: fields a recipe's own agent reads beside role and content are sent and recorded", function()
    local outcome, q, recorded = run([[
  strategy = function()
    return { { role = "system", content = "be brief" }, { role = "user", content = "x", name = "ada" } }
  end]])
    assert.are.same({ "ok", "x",
      { { role = "system", content = "be brief" }, { role = "user", content = "x", name = "ada" } } },
      { outcome, q, recorded })
  end)

  it("twins: JSON marks, key orders and a table met twice are kept; a cycle is still refused", function()
    local outcome, q, recorded = run([[
  strategy = function()
    local part = coax.json.object({ type = "text", text = "twice" }, { "type", "text" })
    return { coax.json.object({ role = "user", content = "marked", parts = coax.json.array({ part, part }),
      empty = coax.json.array({}) }, { "role", "content" }) }
  end]])
    assert.are.same({ "ok", "marked" }, { outcome, q })
    assert.are.same({ role = "user", content = "marked", empty = {},
      parts = { { type = "text", text = "twice" }, { type = "text", text = "twice" } } }, recorded[1])
    local r = run_own(HEAD .. [[
  strategy = function() local m = { role = "user", content = "loop" } m.self = m return { m } end,
]] .. AGENT)
    assert.are.same({ "script_error", "script_error", "messages: COAX_EDEPTH: nesting deeper than 512 (or a cycle)" },
      H.ended(r))
  end)
end)

-- ---- what an agent hands the report is what the report's schema holds ----------------------------------
-- A recipe's own agent returned tool_rounds of any shape, and the report recorded them as they were:
-- {{weird = 1}}, {5, "x"}, an empty {} (written as an object): a report that did not conform to
-- schemas/report.schema.json. And a provider's tool call whose input was a JSON list (anthropic's
-- tool_use) went into the report's arguments as that list, where the schema holds text or an object.
-- A recipe's agent's rounds are now checked as they are recorded (raw), and a list of arguments is
-- recorded as its text. Its status 5 was recorded as the attempt's http_status, which the schema
-- holds from 100 to 999 (C took 1 to 999).
describe("attack 23: what an agent hands the report is what the report's schema holds", function()
  local function agent_returns(reply)
    local r = require("coax").run('local coax = require "coax"\nreturn { schema = { type = "object" }, prompt = "hi", '
      .. "agent = { call = function() return " .. reply .. " end } }", "x", { source = true })
    return H.ended(r), r
  end
  local REFUSED = { "script_error", "script_error", "agent: the agent's tool_rounds are not a list of {round, calls = "
    .. "{{name, arguments, result, is_error}, ...}} (the report's $defs/tool_round)" }
  local ROUND = '{ round = 1, calls = { { name = "t", arguments = %s, result = "r", is_error = false } } }'

  for _, c in ipairs({
    { "a round with another key", '{ { weird = 1 } }' },
    { "rounds that are no tables", '{ 5, "x" }' },
    { "an empty plain table (written as an object)", "{}" },
    { "a call without is_error", '{ { round = 1, calls = { { name = "t", arguments = "{}", result = "r" } } } }' },
    { "arguments that are a list", "{ " .. ROUND:format("{ 1, 2 }") .. " }" },
    { "round 0", '{ { round = 0, calls = {} } }' },
  }) do
    it("a recipe's agent's tool_rounds are refused: " .. c[1], function()
      assert.are.same(REFUSED, (agent_returns('{ text = "{}", tool_rounds = ' .. c[2] .. " }")))
      assert.are.same(REFUSED, (agent_returns('nil, "failed", { tool_rounds = ' .. c[2] .. " }")))
    end)
  end

  it("twins: rounds the schema holds are recorded, text or object arguments, an empty marked list", function()
    local ended, r = agent_returns("{ text = \"{}\", tool_rounds = { " .. ROUND:format('"{}"') .. ", "
      .. ROUND:gsub("round = 1", "round = 2"):format('{ a = 1 }') .. " } }")
    assert.are.same({ "ok" }, ended)
    assert.are.same({ { round = 1, calls = { { name = "t", arguments = "{}", result = "r", is_error = false } } },
      { round = 2, calls = { { name = "t", arguments = { a = 1 }, result = "r", is_error = false } } } },
      r.attempts[1].tool_rounds)
    assert.are.same({ "ok" }, (agent_returns('{ text = "{}", tool_rounds = coax.json.array({}) }')))
  end)

  it("an HTTP status without three digits is not recorded (5 was, past the schema's 100); twin: 404 is", function()
    local ended, r = agent_returns('nil, "failed", { status = 5 }')
    assert.are.same({ "agent_error", "agent_error", "failed" }, ended)
    assert.are.same({ nil, nil }, { r.error.http_status, r.attempts[1].http_status })
    local _, found = agent_returns('nil, "failed", { status = 404 }')
    assert.are.same({ 404, 404 }, { found.error.http_status, found.attempts[1].http_status })
  end)

  describe("a provider's tool call whose input is a list", function()
    local P = require "providers"
    local provider = P.harness { agent = "anthropic", options = { model = "m1", mode = "tools" },
      secrets = { ANTHROPIC_API_KEY = "sk-test-SENTINEL-23" } }
    setup(function() provider:start { ["schema.json"] = P.SCHEMA, ["recipe.lua"] = P.recipe() } end)
    teardown(function() provider:stop() end)

    it("is recorded as its text; twin: an object input is recorded as the object", function()
      local good = '{"json":{"name":"Ada","age":36}}'
      local r = provider:run({
        { tool_calls = { { name = "json_example", arguments = "[1,2]", id = "t1" } } },
        { tool_calls = { { name = "submit", arguments = good, id = "t2" } } },
      })
      assert.are.equal("ok", r.outcome)
      assert.are.same({ "[1,2]", { json = { name = "Ada", age = 36 } } },
        { r.attempts[1].tool_rounds[1].calls[1].arguments, r.attempts[1].tool_rounds[2].calls[1].arguments })
    end)
  end)
end)

-- ---- what the command writes to a terminal carries no control character ---------------------------------
-- `coax run`'s messages quote a recipe's error, a provider's error body and, with --verbose, the URL a
-- recipe's agent asks, and `coax extract`'s the place of an error in a model's reply (its key): each went
-- to stderr as it was, and an escape sequence in it acted on the terminal (ESC ] 0 ; ... BEL set its
-- title; ESC ] 52 sets the clipboard in many). Every message of the commands, and the Lua module's
-- verbose lines, now show C0 controls, DEL and C1 (in UTF-8) as \u00XX.
describe("attack 23: what the command writes to a terminal carries no control character", function()
  local P = require "providers"
  local fixture = P.harness {}
  setup(function()
    fixture:start { ["plain.lua"] = 'return { schema = { type = "object" }, prompt = "hi", max_attempts = 1 }' }
  end)
  teardown(function() fixture:stop() end)
  local SHOWN = "\\u001b]0;PWNED\\u0007\\u001b[31mRED \\u009b2J"

  local function run(recipe, args, env)
    local path = fixture:path("r.lua")
    H.write(path, recipe)
    local cmd = { "run", path }
    for _, a in ipairs(args or {}) do cmd[#cmd + 1] = a end
    local _, err, code = H.coax(cmd, "x", env)
    return err, code
  end

  it("a recipe's error", function()
    local err, code = run('error("boom \\27]0;PWNED\\7\\27[31mRED \\194\\1552J")')
    assert.are.same({ "coax run: invalid: " .. fixture:path("r.lua") .. ":1: boom " .. SHOWN .. "\n", 2 },
      { err, code })
  end)

  it("a provider's error body", function()
    local sc = fixture:scenario({ { status = 400, json = { error = { type = "x",
      message = "\27]0;PWNED\7\27[31mRED \194\1552J" } } } })
    local err = run('return { schema = { type = "object" }, prompt = "hi", max_attempts = 1 }',
      { "--agent", "openai", "--base-url", P.base_of("openai", sc), "--model", "m" },
      { OPENAI_API_KEY = "sk-test-23-SENTINEL" })
    assert.are.equal("coax run: agent_error: openai agent: HTTP 400 (x): " .. SHOWN .. "\n", err)
  end)

  it("the URL a recipe's agent asks, under --verbose", function()
    local err = run([[local coax = require "coax"
return { schema = { type = "object" }, prompt = "hi", agent = { call = function()
  coax.http.request({ url = "http://127.0.0.1:9/\27]0;PWNED\7\27[31mRED \194\1552J" })
  return { text = "{}" }
end } }]], { "--verbose" })
    assert.are.equal("coax run: http #1 > GET http://127.0.0.1:9/" .. SHOWN .. " (0 bytes)", err:match("^[^\n]*"))
  end)

  it("a reply's key in the place `coax extract` names", function()
    local schema = fixture:path("s.json")
    H.write(schema, '{"type":"object","additionalProperties":{"type":"boolean"}}')
    local _, err, code = H.coax({ "extract", "--schema", schema }, '{"\\u001b]0;X\\u0007": [1]}')
    assert.are.same({ "coax extract: no valid value: at '/\\u001b]0;X\\u0007': expected boolean, got array of 1 "
      .. "item (1 error)\n", 1 }, { err, code })
  end)

  it("twins: newlines and tabs go as they are, and UTF-8 text", function()
    local err = run('error("caf\\195\\169\\tline\\nnext \\226\\128\\148 ok", 0)')
    assert.are.equal("coax run: invalid: caf\195\169\tline\nnext \226\128\148 ok\n", err)
  end)
end)
