--- Streaming (README "Streaming"): partial values while the reply arrives,
-- and stop_early. End to end against the mock server (spec/mock), which
-- streams replies in pieces of 1 to 17 bytes (seeded) over OpenAI chat and
-- Anthropic server-sent events and Ollama NDJSON, fenced and bare, in
-- prompt and tools mode; through the Lua module's engine and sessions, and
-- `coax run --stream`.
local H = require "helper"
local coax = require "coax"
local cjson = require "cjson"
local mock = require "mock.client"
local report_check = require "report_check"

local json = coax.json
local null = coax.null

local PERSON = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},'
  .. '"tags":{"type":"array","items":{"type":"string"}},'
  .. '"address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}}}},'
  .. '"required":["name","age"]}'
local COUNT = '{"type":"object","properties":{"count":{"type":"integer"},"items":{"type":"array",'
  .. '"items":{"type":"string"}}},"required":["count","items"]}'
local REPLY = '{"name": "Ada Lovelace", "age": 36, "tags": ["math", "poetry", "engines"], '
  .. '"address": {"city": "London", "zip": "W1"}}'
local FENCED = "Here is the person:\n```json\n" .. REPLY .. "\n```\nAnything else?"
local VALUE = { name = "Ada Lovelace", age = 36, tags = { "math", "poetry", "engines" },
  address = { city = "London", zip = "W1" } }
local KEYS = { OPENAI_API_KEY = "sk-test-stream", ANTHROPIC_API_KEY = "sk-ant-stream", GEMINI_API_KEY = "g-stream" }

local server, dir

local function path(name) return dir .. "/" .. name end

setup(function()
  server = mock.start()
  dir = H.tmpdir()
  H.write(path("person.json"), PERSON)
  H.write(path("count.json"), COUNT)
  H.write(path("person.lua"), 'return { schema = "person.json", prompt = "Extract: {{input}}", '
    .. 'stream = { every_ms = 0 } }')
  H.write(path("stop.lua"), 'return { schema = "count.json", prompt = "Count: {{input}}", '
    .. 'stream = { partials = false, stop_early = true } }')
end)

teardown(function()
  server:stop()
  H.rmtree(dir)
end)

local function base_of(agent, sc) return agent == "ollama" and sc.host or sc.base_url end

--- One session of `recipe` against scenario `sc` through `agent` (options
-- `ao` over base_url, fast retries): its report (checked against the report
-- schema), its value and the data of every "partial" event, in order.
local function run(sc, agent, ao, recipe)
  local e = coax.engine { secrets = KEYS }
  local o = { base_url = base_of(agent, sc), retry_base_ms = 5, timeout_ms = 5000 }
  for k, v in pairs(ao or {}) do o[k] = v end
  local partials = {}
  local s = e:session(path(recipe or "person.lua"), "Ada", { agent = agent, agent_options = o,
    on_event = function(name, data) if name == "partial" then partials[#partials + 1] = data end end })
  s:run()
  local report = report_check.valid(s:report())
  local value = s:value()
  e:close()
  return report, value, partials
end

-- The value at JSON Pointer `ptr` of `v` (arrays are Lua lists), or nil.
local function at(v, ptr)
  for token in ptr:gmatch("/([^/]*)") do
    token = token:gsub("~1", "/"):gsub("~0", "~")
    if type(v) ~= "table" then return nil end
    if json.type(v) == "array" then v = v[tonumber(token) + 1] else v = v[token] end
  end
  return v
end

-- Every complete part of every partial is the same in every later partial
-- and in the final value (itself, or through an ancestor listed instead).
local function check_monotone(partials, final)
  for i, p in ipairs(partials) do
    for _, ptr in ipairs(p.complete) do
      local v = at(p.value, ptr)
      assert.is_not_nil(v, ptr)
      for j = i + 1, #partials do assert.are.same(v, at(partials[j].value, ptr), ptr) end
      assert.are.same(v, at(final, ptr), ptr)
    end
  end
end

-- The shape of every partial: {value, complete, in_progress, attempt}.
local function check_shape(partials, attempt)
  for _, p in ipairs(partials) do
    assert.are.equal(attempt, p.attempt)
    assert.are.equal("array", json.type(p.complete))
    assert.is_true(p.in_progress == null or type(p.in_progress) == "string")
    assert.is_nil(p.errors)
  end
end

describe("streaming: partials", function()
  local cases = {
    { agent = "openai", text = REPLY, seed = 1 },
    { agent = "openai", text = FENCED, seed = 2 },
    { agent = "anthropic", text = REPLY, seed = 3 },
    { agent = "anthropic", text = FENCED, seed = 4 },
    { agent = "ollama", text = REPLY, seed = 5 },
    { agent = "ollama", text = FENCED, seed = 6 },
    { agent = "gemini", text = REPLY, seed = 15 },
    { agent = "openai", api = "responses", text = FENCED, seed = 16 },
  }
  for _, c in ipairs(cases) do
    local kind = c.text == REPLY and "bare" or "fenced"
    it(("%s%s, %s: monotone partials, the final value as without streaming, bytes received"):format(c.agent,
      c.api and " " .. c.api or "", kind), function()
        -- 5 ms between pieces: a partial waits 4x what the last one cost, so
        -- on a loaded sanitizer build pieces 1 ms apart could all land
        -- before a second partial was due (seen: one partial, gemini)
        local sc = server:scenario({ { stream_text = c.text, seed = c.seed, chunk_delay_ms = 5 } })
        local report, value, partials = run(sc, c.agent, { stream = true, api = c.api })
        assert.are.equal("ok", report.outcome)
        assert.are.same(VALUE, value)
        assert.are.equal(#c.text, report.attempts[1].bytes_received)
        assert.is_nil(report.attempts[1].stopped_early)
        assert.is_true(#partials >= 2, "partials: " .. #partials)
        check_shape(partials, 1)
        check_monotone(partials, value)
        -- not streamed: the same value, and no bytes_received
        local plain = server:scenario({ { reply = c.text } })
        local r2, v2 = run(plain, c.agent, { stream = c.agent == "ollama" and false or nil, api = c.api })
        assert.are.same(value, v2)
        assert.is_nil(r2.attempts[1].bytes_received)
      end)
  end

  for _, agent in ipairs { "openai", "anthropic" } do
    it(agent .. ", tools mode: the partial is the submitted value itself", function()
      local args = '{"json": ' .. REPLY .. "}"
      -- 5 ms between pieces, as above: two partials at least, under load too
      local sc = server:scenario({ { stream_text = "", seed = 7, chunk_delay_ms = 5,
        tool_calls = { { name = "submit", arguments = args } } } })
      local report, value, partials = run(sc, agent, { stream = true, mode = "tools" })
      assert.are.equal("ok", report.outcome)
      assert.are.same(VALUE, value)
      -- the envelope's opening {"json": is not the reply's; its closing } is
      assert.are.equal(#REPLY + 1, report.attempts[1].bytes_received)
      assert.is_true(#partials >= 2, "partials: " .. #partials)
      check_shape(partials, 1)
      check_monotone(partials, value)
      for _, p in ipairs(partials) do -- never the envelope
        assert.is_true(p.value == null or p.value.json == nil)
      end
    end)
  end

  it("a secret in the reply is redacted in every partial, even cut across pieces", function()
    local KEYED = '{"name": "sk-test-stream", "age": 36, "tags": ["a sk-test-stream b", "sk-test"]}'
    for seed = 30, 37 do -- pieces of 1 to 17 bytes cut the key in different places
      -- 5 ms between pieces: with 1 ms, one partial came under load (#partials >= 2 failed)
      local sc = server:scenario({ { stream_text = KEYED, seed = seed, chunk_delay_ms = 5 } })
      local report, value, partials = run(sc, "openai", { stream = true })
      assert.are.equal("ok", report.outcome)
      assert.are.same({ name = "[redacted]", age = 36, tags = { "a [redacted] b", "sk-test" } }, value)
      assert.is_true(#partials >= 2)
      for _, p in ipairs(partials) do
        local text = cjson.encode(p.value)
        assert.is_nil(text:find("sk-test-s", 1, true), text)
        assert.is_nil(text:find("sk-test-stream", 1, true), text)
      end
      check_monotone(partials, value)
    end
  end)

  it("a recipe's on_event hears partials as values; every_ms spaces them", function()
    H.write(path("heard.lua"), [[
local heard, last = 0, nil
return { schema = "person.json", prompt = "Extract: {{input}}", max_attempts = 1,
  stream = { every_ms = 10000 },
  on_event = function(name, data)
    if name ~= "partial" then return end
    assert(data.attempt == 1 and type(data.complete) == "table", "the partial's shape")
    heard = heard + 1
  end,
  on_submit = function() if heard == 1 then return true end return false, "heard " .. heard end }]])
    local sc = server:scenario({ { stream_text = REPLY, seed = 8, chunk_delay_ms = 1 } })
    local report, value, partials = run(sc, "openai", { stream = true }, "heard.lua")
    assert.are.equal("ok", report.outcome, cjson.encode(report.attempts))
    assert.are.same(VALUE, value)
    assert.are.equal(1, #partials) -- the first, then none for 10 s
  end)
end)

describe("streaming: a value that would break the partials' promises", function()
  -- The bare object is what the partials follow; the whole reply's
  -- extraction prefers the fenced block after it (as it does without
  -- streaming). The host was already shown "/name" = "Ada" as complete, so
  -- the value that contradicts it is refused and asked for again.
  local TWO = '{"name": "Ada", "age": 36} or, formatted:\n```json\n{"name": "Bob", "age": 2}\n```'

  it("is refused when a partial was told; the next reply is accepted", function()
    local sc = server:scenario({ { stream_text = TWO, seed = 21, chunk_delay_ms = 3 },
      { stream_text = REPLY, seed = 22 } })
    local report, value, partials = run(sc, "openai", { stream = true })
    assert.are.equal("ok", report.outcome)
    assert.are.same(VALUE, value)
    local first = report.attempts[1]
    assert.are.equal("rejected", first.outcome)
    assert.are.equal("the reply holds more than one JSON value, or a key twice: the value taken is not the one "
      .. "shown as complete while it streamed; send exactly one JSON value", first.reason)
    assert.matches("was rejected: the reply holds more than one JSON value", first.feedback, 1, true)
    local shown -- "/name" as a partial of the first attempt listed it, itself or through the root
    for _, p in ipairs(partials) do
      for _, ptr in ipairs(p.attempt == 1 and p.complete or {}) do
        if ptr == "" or ptr == "/name" then shown = at(p.value, "/name") end
      end
    end
    assert.are.equal("Ada", shown)
  end)

  -- Rejected at the part a partial listed, taken otherwise without streaming: a first value that
  -- never closed before a fenced one.
  local NAMED = {
    { "the first value never closed", seed = 23, plain = "Bob",
      text = '{"name": "Ada", "age": 36 oops, let me redo that:\n```json\n{"name": "Bob", "age": 2}\n```' },
  }
  for _, c in ipairs(NAMED) do
    it("names the part a reply changed after it was shown: " .. c[1], function()
      local sc = server:scenario({ { stream_text = c.text, seed = c.seed, chunk_delay_ms = 3 },
        { stream_text = REPLY, seed = 24 } })
      local report, value = run(sc, "openai", { stream = true })
      assert.are.equal("ok", report.outcome)
      assert.are.same(VALUE, value)
      assert.are.equal("rejected", report.attempts[1].outcome)
      assert.are.equal("the reply holds more than one JSON value, or a key twice: the value taken differs at "
        .. "'/name' from the part shown as complete while it streamed; send exactly one JSON value",
        report.attempts[1].reason)
      local _, v2 = run(server:scenario({ { reply = c.text } }), "openai", {})
      assert.are.equal(c.plain, v2.name)
    end)
  end

  -- A key written twice with two values is refused streamed or not: which one the model meant is
  -- a guess (the partial showed Ada; the last value is Bob).
  it("refuses a key written twice with two values, streamed or not", function()
    local text = '{"name": "Ada", "age": 36, "tags": ["math", "poetry", "engines"], "name": "Bob"}'
    local sc = server:scenario({ { stream_text = text, seed = 29, chunk_delay_ms = 3 },
      { stream_text = REPLY, seed = 24 } })
    local report, value = run(sc, "openai", { stream = true })
    assert.are.same({ "ok", VALUE }, { report.outcome, value })
    for _, r in ipairs({ report, (run(server:scenario({ { reply = text }, { reply = REPLY } }), "openai", {})) }) do
      assert.are.equal("invalid", r.attempts[1].outcome)
      assert.matches("a key given twice with two values: which one was meant is a guess", r.attempts[1].reason, 1,
        true)
    end
  end)

  it("holds across a reply that started over: no partial after it, and a value that differs is refused", function()
    local OTHER = REPLY:gsub("Ada Lovelace", "Grace Hopper")
    -- the first try breaks after its events up to the middle of the reply; the transport sends it again
    local sc = server:scenario({ { stream_text = REPLY, seed = 25, chunk_delay_ms = 1, reset_after_events = 8 },
      { stream_text = OTHER, seed = 26 }, { stream_text = REPLY, seed = 27 } })
    local report, value, partials = run(sc, "openai", { stream = true })
    assert.are.equal("ok", report.outcome)
    assert.are.same(VALUE, value)
    local first = report.attempts[1]
    assert.are.equal(1, first.retries)
    assert.are.equal("rejected", first.outcome)
    assert.are.equal("the reply started over while it streamed: the value taken differs at '/name' from the part "
      .. "shown as complete while it streamed; send exactly one JSON value", first.reason)
    local last_told = 0
    for i, p in ipairs(partials) do
      if p.attempt == 1 then
        last_told = i
        assert.are_not.equal("Grace Hopper", p.value.name) -- none from the reply sent again
      end
    end
    assert.are.equal("Ada Lovelace", partials[last_told].value.name)
  end)

  it("holds across a reply that started over and came back the same", function()
    local sc = server:scenario({ { stream_text = REPLY, seed = 25, chunk_delay_ms = 1, reset_after_events = 8 },
      { stream_text = REPLY, seed = 28 } })
    local report, value = run(sc, "openai", { stream = true })
    assert.are.equal("ok", report.outcome)
    assert.are.same(VALUE, value)
    assert.are.equal(1, #report.attempts)
    assert.are.equal(1, report.attempts[1].retries)
  end)

  it("is accepted as without streaming when no partial was told", function()
    H.write(path("quiet.lua"), 'return { schema = "person.json", prompt = "Extract: {{input}}", '
      .. 'stream = { partials = false } }')
    local sc = server:scenario({ { stream_text = TWO, seed = 21, chunk_delay_ms = 1 } })
    local report, value, partials = run(sc, "openai", { stream = true }, "quiet.lua")
    assert.are.equal("ok", report.outcome)
    assert.are.same({ name = "Bob", age = 2 }, value)
    assert.are.same({}, partials)
    local plain = server:scenario({ { reply = TWO } })
    local _, v2 = run(plain, "openai", {})
    assert.are.same(value, v2)
  end)
end)

describe("streaming: stop_early", function()
  local BAD = '{"count": "abc", "items": ["' .. ("x"):rep(10240) .. '"]}'
  local GOOD = '{"count": 2, "items": ["a", "b"]}'
  local ERRORS = { { instanceLocation = "/count", keywordLocation = "/properties/count/type",
    error = 'expected integer, got string "abc"' } }

  for _, agent in ipairs { "openai", "anthropic", "ollama" } do
    it(agent .. ": a reply that went wrong early is cut after the offending part; the retry succeeds", function()
      local sc = server:scenario({ { stream_text = BAD, seed = 9, chunk_delay_ms = 1 },
        { stream_text = GOOD, seed = 10 } })
      local report, value = run(sc, agent, { stream = true }, "stop.lua")
      assert.are.equal("ok", report.outcome)
      assert.are.same({ count = 2, items = { "a", "b" } }, value)
      local first = report.attempts[1]
      assert.are.equal("invalid", first.outcome)
      assert.is_true(first.stopped_early)
      assert.are.same(ERRORS, first.errors)
      -- a partial is built each time the bytes have doubled: "abc" closes at byte 15, and the check after
      -- it (at 36 bytes with these pieces) finds the reply doomed, 10 KB before its end
      assert.are.equal(36, first.bytes_received)
      assert.are.equal(BAD:sub(1, first.bytes_received), first.reply)
      assert.are.equal("1 validation error, the first at '/count': expected integer, got string \"abc\"", first.reason)
      assert.are.equal(#GOOD, report.attempts[2].bytes_received)
      assert.is_nil(report.attempts[2].stopped_early)
      -- the feedback went back with the errors
      local log = sc:log()
      assert.are.equal(2, #log)
      local messages = log[2].json.messages
      assert.matches("At path '/count': expected integer, got string \"abc\"", messages[#messages].content, 1, true)
    end)
  end

  it("counts as stopped early whatever the agent does after the stop (pcall, more text, a reply)", function()
    H.write(path("stubborn.lua"), ([[
local bad, good, n = %q, %q, 0
return { schema = "count.json", prompt = "Count: {{input}}", stream = { stop_early = true, partials = false },
  agent = { stream = true, call = function(request)
    n = n + 1
    local text = n == 1 and bad or good
    for i = 1, #text, 7 do pcall(request.on_text, text:sub(i, i + 6)) end
    return { text = text }
  end } }]]):format(BAD, GOOD))
    local e = coax.engine()
    local s = e:session(path("stubborn.lua"), "x")
    assert.are.equal("ok", s:run())
    local report = report_check.valid(s:report())
    assert.is_true(report.attempts[1].stopped_early)
    assert.are.equal("invalid", report.attempts[1].outcome)
    assert.are.same(ERRORS, report.attempts[1].errors)
    assert.are.equal(28, report.attempts[1].bytes_received) -- checks at 7, 14, 28 bytes: "abc" closed at 15
    assert.are.equal(#GOOD, report.attempts[2].bytes_received)
    e:close()
  end)
end)

describe("streaming: errors", function()
  it("a stream that is not JSON: partials without a value, then the usual parse failure", function()
    local garbage = "I am sorry, I cannot see a person in that text."
    local sc = server:scenario({ { stream_text = garbage, seed = 11, chunk_delay_ms = 1 },
      { stream_text = REPLY, seed = 12 } })
    local report, value, partials = run(sc, "openai", { stream = true })
    assert.are.equal("ok", report.outcome)
    assert.are.same(VALUE, value)
    assert.are.equal("no_json", report.attempts[1].outcome)
    assert.are.equal(#garbage, report.attempts[1].bytes_received)
    for _, p in ipairs(partials) do
      if p.attempt == 1 then
        assert.are.equal(null, p.value)
        assert.are.same({}, p.complete)
      end
    end
  end)

  it("a stream cut off by an error event: an agent error, the partials before it monotone", function()
    local sc = server:scenario({ { stream = { '{"name": "Ada", ', '"age": 3' },
      stream_error = { message = "upstream went away" } } })
    local report, _, partials = run(sc, "openai", { stream = true, max_retries = 0 })
    assert.are.equal("agent_error", report.outcome)
    assert.are.equal("openai agent: upstream went away", report.error.message)
    check_monotone(partials, { name = "Ada" })
  end)

  it("a delta past max_input: no partials from it, and the reply's limit as without streaming", function()
    local big = '{"name": "' .. ("y"):rep(4000) .. '", "age": 1}'
    local e = coax.engine { max_input = 2000 }
    local sc = server:scenario({ { stream = { big } } })
    local partials = {}
    local s = e:session(path("person.lua"), "x", { agent = "openai",
      agent_options = { base_url = sc.base_url, stream = true },
      on_event = function(name, data) if name == "partial" then partials[#partials + 1] = data end end })
    s:run()
    local report = report_check.valid(s:report())
    assert.are.equal("limit", report.outcome)
    assert.are.same({}, partials)
    assert.are.equal(#big, report.attempts[1].bytes_received)
    e:close()
  end)

  it("the sink refuses anything but its own attempt's agent call", function()
    H.write(path("misuse.lua"), [[
local saved
return { schema = "person.json", prompt = "x", max_attempts = 1,
  agent = { stream = true, call = function(request)
    saved = request.on_text
    local co = coroutine.wrap(function() return pcall(request.on_text, "{") end)
    local ok, err = co()
    assert(not ok and err:find("only the agent's call of its own attempt", 1, true), err)
    local ok2, err2 = pcall(request.on_text, 42)
    assert(not ok2 and err2:find("string expected", 1, true), err2)
    return { text = '{"name": "Ada", "age": 36}' }
  end },
  on_event = function(name) if name == "success" then saved("late") end end }]])
    local e = coax.engine()
    local s = e:session(path("misuse.lua"), "x")
    assert.are.equal("script_error", s:run())
    local _, msg = s:error()
    assert.matches("request.on_text: only the agent's call of its own attempt can feed the reply", msg, 1, true)
    e:close()
  end)

  it("recipe.stream is checked", function()
    local e = coax.engine()
    local function err_of(stream)
      local s = e:session('return { schema = {}, prompt = "x", stream = ' .. stream .. " }", "", { source = true })
      local _, msg = s:error()
      return msg
    end
    assert.are.equal("recipe field 'stream' must be a table, not a boolean", err_of("true"))
    assert.are.equal("stream.partials must be a boolean, not a string", err_of('{ partials = "yes" }'))
    assert.are.equal("stream.every_ms must be a non-negative integer (milliseconds)", err_of("{ every_ms = 2.5 }"))
    assert.are.equal("unknown stream field 'stop' (partials, stop_early, atomic, every_ms)", err_of("{ stop = true }"))
    assert.are.equal("stream.atomic[1] must be a JSON Pointer (\"\" or starting with /), not 'price'",
      err_of('{ atomic = { "price" } }'))
    e:close()
  end)
end)

describe("streaming: cost", function()
  -- A reply of about n bytes: a list of numbered strings.
  local function reply_of(n)
    local items = {}
    for i = 1, math.max(1, n // 14) do items[i] = ('"item-%06d"'):format(i) end
    return '{"count": ' .. #items .. ', "items": [' .. table.concat(items, ", ") .. "]}"
  end

  it("CPU per streamed reply grows linearly with its length (1 KB to 1 MB)", function()
    local function cpu(n)
      local text = reply_of(n)
      local sc = server:scenario({ { stream_text = text, seed = 13 } })
      H.write(path("cost.lua"), 'return { schema = "count.json", prompt = "x", stream = { every_ms = 0 } }')
      collectgarbage()
      local t0 = os.clock()
      local report = run(sc, "openai", { stream = true, timeout_ms = 120000 }, "cost.lua") -- slow under ASan
      local t = os.clock() - t0
      assert.are.equal("ok", report.outcome)
      assert.are.equal(#text, report.attempts[1].bytes_received)
      return t
    end
    local small, quarter, big = cpu(1024), cpu(256 * 1024), cpu(1024 * 1024)
    -- linear: about 4 from 256 KB to 1 MB (quadratic: 16), at most 1024 from 1 KB
    assert.is_true(big / quarter < 8, ("1 MB / 256 KB: %.2f"):format(big / quarter))
    assert.is_true(big / small < 1024, ("1 MB / 1 KB: %.2f"):format(big / small))
  end)
end)

describe("coax run --stream", function()
  local function lines_of(text)
    local out = {}
    for line in text:gmatch("[^\n]+") do out[#out + 1] = cjson.decode(line) end
    return out
  end

  it("prints partial lines while the reply streams, then the value", function()
    local sc = server:scenario({ { stream_text = REPLY, seed = 14, chunk_delay_ms = 1 } })
    local out, err, code = H.coax { "run", path("person.lua"), "--agent", "openai", "--base-url", sc.base_url,
      "--stream" }
    assert.are.equal(0, code, err)
    local lines = lines_of(out)
    assert.are.same({ value = VALUE, class = "lossless" }, lines[#lines])
    assert.is_true(#lines >= 3, out)
    local partials = {}
    for i = 1, #lines - 1 do
      local l = lines[i]
      local keys = {}
      for k in pairs(l) do keys[#keys + 1] = k end
      table.sort(keys)
      assert.are.same({ "attempt", "complete", "in_progress", "partial" }, keys)
      partials[i] = { value = l.partial, complete = l.complete }
    end
    check_monotone(partials, VALUE)
    assert.are.same({ model = "gpt-4o-mini", stream = true }, { model = sc:log()[1].json.model,
      stream = sc:log()[1].json.stream })
  end)

  it("ends with the line coax batch writes for a failed session", function()
    local replies = H.tmpfile('"{\\"name\\": \\"Ada\\", \\"age\\": \\"old\\"}"\n')
    local out, _, code = H.coax { "run", path("person.lua"), "--replay", replies, "--stream", "--max-attempts", "1",
      "--input", H.tmpfile("Ada") }
    assert.are.equal(1, code)
    local input = H.tmpfile('{"id": 1, "input": "Ada"}\n')
    local batch = H.coax { "batch", path("person.lua"), "--input", input, "--replay", replies, "--max-attempts", "1" }
    local last = lines_of(out)
    last = last[#last]
    local want = cjson.decode(batch:match("[^\n]+"))
    want.id = nil
    for _, m in ipairs { "wall_ms", "engine_ms", "agent_ms" } do last.metrics[m], want.metrics[m] = 0, 0 end
    assert.are.same(want, last)
    assert.are.equal("exhausted", last.outcome)
  end)
end)
