local H = require "helper"
local coax = require "coax"
local json = coax.json

-- coax.run and e:session behave as `coax run` does: the same default agent,
-- options checked, and failures to start returned as nil, message, code.

local dir
setup(function() dir = H.tmpdir() end)
teardown(function() H.rmtree(dir) end)

-- A recipe file naming no agent, with a transcript beside it when `replies`.
local function recipe(name, replies)
  local path = dir .. "/" .. name .. ".lua"
  H.write(path, 'return { schema = { type = "object", required = { "a" } }, prompt = "x: {{input}}" }')
  if replies then H.write(dir .. "/" .. name .. ".replies.jsonl", table.concat(replies, "\n") .. "\n") end
  return path
end

describe("coax.run without an agent named", function()
  it("replays the recipe's recorded transcript, as coax run does", function()
    local path = recipe("demo", { '"{}"', '"{\\"a\\": 1}"' })
    local r = coax.run(path, "in")
    assert.are.same({ "ok", 2, '{"a":1}' }, { r.outcome, r.metrics.attempts, json.encode(r.value) })
    local out, _, code = H.coax({ "run", path, "--input", "-" }, "in")
    assert.are.same({ '{"a":1}\n', 0 }, { out, code })
  end)

  it("is invalid, naming opts.agent and the missing transcript, where coax run names --agent", function()
    local path = recipe("bare")
    local r = coax.run(path, "in")
    assert.are.same({ "invalid", "invalid_recipe", 0 }, { r.outcome, r.error.code, r.metrics.attempts })
    local missing = path .. " names no agent and has no recorded transcript " .. dir .. "/bare.replies.jsonl: pass "
    assert.are.equal(missing .. "opts.agent (openai, anthropic, gemini, ollama) or set OPENAI_API_KEY, "
      .. "ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST", r.error.message)
    local _, err, code = H.coax({ "run", path, "--input", "-" }, "in")
    assert.are.same({ "coax run: " .. missing .. "--agent (openai, anthropic, gemini, ollama), "
      .. "--replay FILE (replies, one JSON string a line) or --command CMD (a local program), "
      .. "or set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST\n", 2 }, { err, code })
  end)

  it("uses the provider whose key opts.secrets holds, as coax run does with the environment", function()
    local r = coax.run(recipe("keyed"), "in", { secrets = { ANTHROPIC_API_KEY = "test-key" },
      agent_options = { base_url = "http://127.0.0.1:9", max_retries = 0 } })
    assert.are.equal("agent_error", r.outcome)
    assert.matches("^anthropic agent: ", r.error.message)
  end)

  it("leaves the recipe's own agent alone", function()
    local path = dir .. "/own.lua"
    H.write(path, 'return { schema = { type = "object" }, prompt = "x",'
      .. ' agent = { name = "replay", replies = { "{}" } } }')
    assert.are.equal("ok", coax.run(path, "in").outcome)
  end)

  it("runs the command agent with opts.command, as --command does", function()
    local r = coax.run(recipe("cmd"), "in", { command = [[printf '{"a": 2}']] })
    assert.are.same({ "ok", '{"a":2}' }, { r.outcome, json.encode(r.value) })
  end)

  it("says so in e:session too", function()
    local e = coax.engine()
    local s = e:session(recipe("demo2", { '"{\\"a\\": 3}"' }), "in")
    assert.are.equal("ok", s:run())
    assert.are.equal('{"a":3}', json.encode(s:value()))
  end)
end)

describe("coax.run's options", function()
  it("raises for one it does not know, naming it", function()
    local ok, err = pcall(coax.run, recipe("o"), "in", { replys = { "{}" } })
    assert.is_false(ok)
    assert.matches("coax.run: unknown option 'replys'", err, 1, true)
    ok, err = pcall(coax.engine, { lua_memroy = 1 })
    assert.is_false(ok)
    assert.matches("coax.engine: unknown option 'lua_memroy'", err, 1, true)
    ok, err = pcall(coax.engine().session, coax.engine(), recipe("o2"), "in", { max_attempt = 2 })
    assert.is_false(ok)
    assert.matches("e:session: unknown option 'max_attempt'", err, 1, true)
  end)

  -- Regression (attack, finding 14): a count was cast without a check, so
  -- lua_memory = -5 lifted the memory cap, lua_instructions = -1 gave 2^32 - 1
  -- and 2^32 + 5 gave 5.
  it("raises for a count out of range, naming it", function()
    for _, c in ipairs({
      { "lua_memory", -5, "option lua_memory: -5 is out of range (1 to 9223372036854775807)" },
      { "lua_instructions", -1, "option lua_instructions: -1 is out of range (1 to 4294967295)" },
      { "lua_instructions", (1 << 32) + 5, "option lua_instructions: 4294967301 is out of range (1 to 4294967295)" },
      { "http_timeout_ms", 0, "option http_timeout_ms: 0 is out of range (1 to 2147483647)" },
      { "http_max_response", -1, "option http_max_response: -1 is out of range (1 to 9223372036854775807)" },
    }) do
      local ok, err = pcall(coax.engine, { [c[1]] = c[2] })
      assert.are.same({ false, c[3] }, { ok, err })
    end
    local ok, err = pcall(coax.run, recipe("range"), "in", { replies = { '{"a": 1}' }, max_attempts = -1 })
    assert.are.same({ false, "option max_attempts: -1 is out of range (1 to 2147483647)" },
      { ok, err:match("option .*") })
    ok, err = pcall(coax.engine().session, coax.engine(), recipe("range2"), "in", { max_attempts = 1 << 40 })
    assert.are.same({ false, "option max_attempts: 1099511627776 is out of range (1 to 2147483647)" }, { ok, err })
  end)

  -- a review found 4 x lua_memory (the bound on a session's messages)
  -- wrapping for a cap of 2^62 or more: every attempt ended with limit
  it("takes the largest memory cap", function()
    for _, cap in ipairs({ (1 << 62) - 1, 1 << 62, (1 << 62) + 1, math.maxinteger }) do
      local r = coax.run(recipe("big" .. cap), "in", { replies = { '{"a": 1}' }, lua_memory = cap })
      assert.are.equal("ok", r.outcome)
    end
  end)

  it("takes every documented one", function()
    local r = coax.run(recipe("all"), "in", { replies = { '{"a": 1}' }, max_attempts = 1, lua_path = "lua",
      lua_memory = 1 << 26, lua_instructions = 1 << 24, max_depth = 64, max_input = 1 << 20, max_string = 1 << 20,
      http_connect_timeout_ms = 1000, http_timeout_ms = 1000, http_max_response = 1 << 20, verbose = false,
      secrets = {}, agent_options = {} })
    assert.are.equal("ok", r.outcome)
  end)
end)

describe("coax.run when the session cannot start", function()
  it("returns nil, the message and the code, as the other functions do", function()
    assert.are.same({ nil, "cannot open recipe /nonexistent/r.lua: No such file or directory", "COAX_EIO" },
      { coax.run("/nonexistent/r.lua", "x") })
    -- a host's path to a device is refused before a byte is read (it grew the host without end)
    assert.are.same({ nil, "cannot open recipe /dev/zero: not a regular file", "COAX_EIO" },
      { coax.run("/dev/zero", "x") })
  end)

  it("returns them for a transcript that is not one JSON string a line", function()
    local path = recipe("badlines")
    H.write(dir .. "/badlines.replies.jsonl", '"ok"\nnot json\n')
    assert.are.same({ nil, dir .. "/badlines.replies.jsonl line 2: each line must be a JSON string", "COAX_EINVAL" },
      { coax.run(path, "x") })
  end)
end)

describe("coax.run and e:session with the host's tables", function()
  -- the replay list's metatable was replaced with the JSON array's, and
  -- agent_options gained the agent's name and the replies
  it("leave the host's replies and agent_options tables as they were", function()
    local mt = { __name = "host's" }
    local replies = setmetatable({ '{"a": 1}' }, mt)
    local options = { temperature = 0 }
    for _, start in ipairs({
      function(o) return coax.run(recipe("own"), "in", o) end,
      function(o)
        local s = coax.engine():session(recipe("own2"), "in", o)
        return { outcome = s:run(), value = s:value() }
      end,
    }) do
      local r = start({ replies = replies, agent_options = options })
      assert.are.same({ "ok", '{"a":1}' }, { r.outcome, json.encode(r.value) })
      assert.are.equal(mt, getmetatable(replies))
      assert.are.same({ { '{"a": 1}' }, { temperature = 0 } }, { setmetatable(replies, nil), options })
      setmetatable(replies, mt)
    end
  end)
end)
