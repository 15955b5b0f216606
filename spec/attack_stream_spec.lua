--- Attacks on streaming (issue 22) that hold: exact outcomes.
-- Cases where the streaming reader and the whole reply's extraction could
-- disagree (lenient repairs after a part was listed), recipe hooks that
-- misbehave on "partial", and on_text fed oddly. What did NOT hold is in
-- the attack report, not here.
local H = require "helper"
local coax = require "coax"
local cjson = require "cjson"
local mock = require "mock.client"

local SCHEMA = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},'
  .. '"tags":{"type":"array","items":{"type":"string"}}},"required":["name","age"]}'
local REPLY = '{"name": "Ada", "age": 36, "tags": ["a", "b"]}'

local server, dir
local function path(name) return dir .. "/" .. name end

setup(function()
  server = mock.start()
  dir = H.tmpdir()
  H.write(path("p.json"), SCHEMA)
  H.write(path("any.json"), "{}")
end)

teardown(function()
  server:stop()
  H.rmtree(dir)
end)

describe("attack: extract --partial agrees with the lenient parser after a part was listed", function()
  local function partial(text)
    local out, err, code = H.coax({ "extract", "--partial", "-" }, text)
    assert.are.equal("", err)
    assert.are.equal(0, code)
    return out
  end
  local function final(text)
    local out, _, code = H.coax({ "extract", "--max-class", "invented", "--schema", path("any.json"), "-" }, text)
    assert.are.equal(0, code)
    return out
  end
  -- Each: the text, its partial (stopped where the JSON is not strict), and
  -- the whole reply's value, which keeps every part the partial listed.
  local cases = {
    { '{"a": 1 000}', '{"partial": {"a":1}, "complete": ["/a"], "in_progress": "", "stopped": true}\n',
      '{"a":1,"000":null}\n' },
    { '{"a": 12, 111}', '{"partial": {"a":12}, "complete": ["/a"], "in_progress": "", "stopped": true}\n',
      '{"a":12,"111":null}\n' },
    { "[1,000]", '{"partial": [1], "complete": ["/0"], "in_progress": "/1", "stopped": true}\n', '[1,"000"]\n' },
    { '["a", "b" c", "d"]', '{"partial": ["a","b"], "complete": ["/0"], "in_progress": "/1", "stopped": true}\n',
      '["a","b\\" c","d"]\n' },
    { '{"a": "x", "b": "y"z"}',
      '{"partial": {"a":"x","b":"y"}, "complete": ["/a"], "in_progress": "/b", "stopped": true}\n',
      '{"a":"x","b":"y\\"z"}\n' },
    { '{"a": [1, 2], "b" 3}', '{"partial": {"a":[1,2]}, "complete": ["/a"], "in_progress": "/b", "stopped": true}\n',
      '{"a":[1,2],"b":3}\n' },
    { '{"a": "one", "two", "three", "b": 1}',
      '{"partial": {"a":"one"}, "complete": ["/a"], "in_progress": "/two", "stopped": true}\n',
      '{"a":"one","two":null,"three":null,"b":1}\n' },
    { '{"a": "x", "b": "He said "hi", ok", "c": 1}',
      '{"partial": {"a":"x","b":"He said "}, "complete": ["/a"], "in_progress": "/b", "stopped": true}\n',
      '{"a":"x","b":"He said \\"hi","ok":null,"c":1}\n' },
    -- a comma right after the value: it was closed before members that follow
    { '{"a": "x"}, "b": 2}', '{"partial": {"a":"x"}, "complete": [""], "in_progress": null, "stopped": true}\n',
      '{"a":"x"}\n' },
    { '{"a": "x"} thanks, bye', '{"partial": {"a":"x"}, "complete": [""], "in_progress": null}\n', '{"a":"x"}\n' },
  }
  for _, c in ipairs(cases) do
    it(c[1], function()
      assert.are.equal(c[2], partial(c[1]))
      assert.are.equal(c[3], final(c[1]))
    end)
  end
end)

--- One session of recipe source `src` against the mock server streaming REPLY.
local function session(src)
  H.write(path("r.lua"), src)
  local sc = server:scenario({ { stream_text = REPLY, seed = 3, chunk_delay_ms = 1 } })
  local e = coax.engine()
  local s = e:session(path("r.lua"), "x", { agent = "openai",
    agent_options = { base_url = sc.base_url, retry_base_ms = 5, timeout_ms = 5000, stream = true } })
  local status = s:run()
  local _, msg = s:error()
  local report = s:report()
  e:close()
  return status, msg, report
end

describe("attack: a recipe's on_event misbehaving on \"partial\"", function()
  local head = 'return { schema = "p.json", prompt = "x {{input}}", max_attempts = 1, stream = { every_ms = 0 }, '
  local function hook(body)
    return head .. "on_event = function(n, d) if n == \"partial\" then " .. body .. " end end }"
  end

  -- Each: what the hook does, the session's status, and its message (a
  -- Lua pattern, anchored).
  local cases = {
    { "an error is a script error", 'error("boom")', "script_error", "^on_event: [^\n]*r%.lua:1: boom" },
    { "an endless loop is charged against the instruction budget", "while true do end", "limit",
      "^on_event: script stopped: Lua instruction limit %(10000000%) reached$" },
    { "a yield outside a coroutine is a script error", "coroutine.yield(1)", "script_error",
      "^on_event: attempt to yield from outside a coroutine" },
    { "one huge string is the memory limit", 'local s = ("x"):rep(2^40)', "limit", "^on_event: not enough memory$" },
    { "many strings are the memory limit",
      'local t, s = {}, ("x"):rep(1000) for i = 1, 1e9 do t[i] = s .. i end', "limit",
      "^on_event: not enough memory$" },
  }
  for _, c in ipairs(cases) do
    it(c[1], function()
      local status, msg = session(hook(c[2]))
      assert.are.equal(c[3], status)
      assert.matches(c[4], msg)
    end)
  end

  it("changing the data it was given changes nothing else", function()
    local status, _, report = session(hook "d.value = nil; d.complete[1] = 42; setmetatable(d, nil)")
    assert.are.equal("ok", status)
    assert.are.equal(#REPLY, report.attempts[1].bytes_received)
  end)
end)

describe("attack: request.on_text fed oddly by a recipe's own agent", function()
  local function run(body, opts)
    H.write(path("a.lua"), 'return { schema = "p.json", prompt = "x", max_attempts = 1, stream = { every_ms = 0 }, '
      .. "agent = { stream = true, call = function(request) " .. body .. " end } }")
    local e = coax.engine(opts)
    local s = e:session(path("a.lua"), "x")
    local status = s:run()
    local _, msg = s:error()
    local report = s:report()
    e:close()
    return status, msg, report
  end

  it("a thousand empty pieces: nothing received, the returned text decides", function()
    local status, _, report = run('for i = 1, 1000 do request.on_text("") end; '
      .. 'return { text = \'{"name": "B", "age": 4}\' }')
    assert.are.equal("ok", status)
    assert.are.equal(0, report.attempts[1].bytes_received)
  end)

  it("text fed that differs from the text returned: the returned text decides (no partial was told)", function()
    local status, _, report = run('request.on_text(\'{"name": "A", "age": 3}\'); '
      .. 'return { text = \'{"name": "B", "age": 4}\' }')
    assert.are.equal("ok", status)
    assert.are.equal(23, report.attempts[1].bytes_received)
  end)

  it("a piece past max_input: the limit, as without streaming", function()
    local status, msg, report = run('request.on_text(("x"):rep(3000)); return { text = ("x"):rep(3000) }',
      { max_input = 2000 })
    assert.are.equal("limit", status)
    assert.are.equal("input of 3000 bytes exceeds the limit of 2000", msg)
    assert.are.equal(3000, report.attempts[1].bytes_received)
  end)

  it("non-strings are refused; nil restarts the reply", function()
    local status, msg = run('assert(not pcall(request.on_text, {})); assert(not pcall(request.on_text, 1.5)); '
      .. 'assert(pcall(request.on_text, nil)); request.on_text(\'{"name": "A", "age": 3}\'); '
      .. 'return { text = \'{"name": "A", "age": 3}\' }')
    assert.are.equal("ok", status, msg)
  end)
end)

describe("attack: coax run --stream output lines", function()
  it("every line is JSON; the last is the value, through reasoning and a fence", function()
    H.write(path("s.lua"), 'return { schema = "p.json", prompt = "x {{input}}", stream = { every_ms = 0 } }')
    local text = "<think>maybe {\"name\": 1} [x]</think>\nSure:\n```json\n" .. REPLY .. "\n```\n"
    local sc = server:scenario({ { stream_text = text, seed = 5, chunk_delay_ms = 1 } })
    local out, err, code = H.coax { "run", path("s.lua"), "--agent", "openai", "--base-url", sc.base_url, "--stream" }
    assert.are.equal(0, code, err)
    local lines = {}
    for line in out:gmatch("[^\n]+") do lines[#lines + 1] = cjson.decode(line) end
    assert.is_true(#lines >= 2)
    assert.are.same({ value = { name = "Ada", age = 36, tags = { "a", "b" } }, class = "lossless" }, lines[#lines])
    for i = 1, #lines - 1 do
      assert.are.equal(1, lines[i].attempt)
      assert.is_not_nil(lines[i].partial)
      assert.is_not_nil(lines[i].complete)
    end
  end)
end)
