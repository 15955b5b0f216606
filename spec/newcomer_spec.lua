-- What a newcomer trips on (issue 24): the built and installed command
-- from any folder, agent flags that mean what they say, errors that name
-- the file and the fix.
local H = require "helper"

local ROOT = os.getenv("PWD")
local COAX = ROOT .. "/" .. H.build .. "/coax"

-- Runs a shell command line in 'dir' without COAX_LUA_PATH; returns stdout,
-- stderr and the exit status.
local function sh(dir, line)
  local out, err = os.tmpname(), os.tmpname()
  local ok, how, code = os.execute("cd " .. H.quote(dir) .. " && env -u LD_PRELOAD -u COAX_LUA_PATH "
    .. "-u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u OLLAMA_HOST " .. line
    .. " >" .. H.quote(out) .. " 2>" .. H.quote(err))
  if how == "signal" then code = 128 + code end
  local o, e = H.read(out), H.read(err)
  os.remove(out)
  os.remove(err)
  return o, e, ok and 0 or code
end

local dir

setup(function()
  dir = H.tmpdir()
  H.write(dir .. "/schema.json", '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}')
  H.write(dir .. "/job.lua", 'return { schema = "schema.json", prompt = "n of {{input}}" }')
  H.write(dir .. "/job.replies.jsonl", '"{\\"n\\": 7}"\n')
end)

teardown(function() H.rmtree(dir) end)

describe("the built coax, from any folder", function()
  it("runs a recipe from another folder: the scripts are found beside the executable", function()
    local out, err, code = sh(dir, H.quote(COAX) .. " run job.lua")
    assert.are.same({ '{"n":7}\n', 0 }, { out, code }, err)
    out, err, code = sh("/", H.quote(COAX) .. " run " .. H.quote(dir .. "/job.lua"))
    assert.are.same({ '{"n":7}\n', 0 }, { out, code }, err)
  end)

  it("names --lua-path and the search order when it finds no scripts", function()
    local lone = dir .. "/lone"
    os.execute("mkdir -p " .. H.quote(lone) .. " && cp " .. H.quote(COAX) .. " " .. H.quote(lone .. "/coax"))
    local out, err, code = sh(lone, "./coax run ../job.lua")
    assert.are.equal("", out)
    assert.are.equal(2, code)
    assert.matches("^coax run: coax scripts not found in [^;]+; looked in %-%-lua%-path, %$COAX_LUA_PATH, lua/ and "
      .. "share/coax/lua beside the coax executable, %./lua, then the installed share folder: pass %-%-lua%-path DIR "
      .. "%(the folder holding coax/runtime%.lua%)\n$", err)
    out, err, code = sh(lone, "./coax run ../job.lua --lua-path " .. H.quote(ROOT .. "/lua"))
    assert.are.same({ '{"n":7}\n', 0 }, { out, code }, err)
    out, err, code = sh(lone, "COAX_LUA_PATH=" .. H.quote(ROOT .. "/lua") .. " ./coax run ../job.lua")
    assert.are.same({ '{"n":7}\n', 0 }, { out, code }, err)
    out, err, code = sh(lone, "./coax batch ../job.lua --replies-field r")
    assert.are.equal("", out)
    assert.are.equal(2, code)
    assert.matches("^coax batch: coax scripts not found", err)
  end)
end)

describe("coax run --verbose", function()
  it("tells what became of each attempt for every agent, as the demo does", function()
    local state = dir .. "/called"
    os.remove(state)
    -- the command agent: a wrong reply first, then one that needs coercing
    local cmd = ("cat >/dev/null; if [ -e %s ]; then printf '{\"n\": \"7\"}'; "
      .. "else touch %s; printf 'Sure: {n: \"x\",}'; fi"):format(H.quote(state), H.quote(state))
    local out, err, code = H.coax({ "run", dir .. "/job.lua", "--command", cmd, "--verbose" })
    assert.are.same({ '{"n":7}\n', 0 }, { out, code }, err)
    assert.matches("^coax run: attempt 1: repaired %([^)]*unquoted_key, trailing_comma%); 1 schema error, "
      .. 'at /n: expected integer, got string "x"; fed back, asking again\n'
      .. "coax run: attempt 2: coerced %(string_to_integer at /n%); "
      .. "valid, accepted\n$", err)
    -- without --verbose, a named agent is quiet
    os.remove(state)
    out, err = H.coax({ "run", dir .. "/job.lua", "--command", cmd })
    assert.are.same({ '{"n":7}\n', "" }, { out, err })
    -- the replay agent named on the command line, too
    out, err = H.coax({ "run", dir .. "/job.lua", "--replay", dir .. "/job.replies.jsonl", "-v" })
    assert.are.equal('{"n":7}\n', out)
    assert.are.equal("coax run: attempt 1: valid, accepted\n", err)
  end)

  -- The report holds a reply's value 3 levels deeper than the value ({"attempts": [{"value": ...}]}):
  -- told from the report's text parsed back, a value nested 510 deep silenced every attempt.
  it("tells every attempt, whatever the depth of a reply's value", function()
    local deep = ("["):rep(510) .. ("]"):rep(510)
    local replies = H.tmpfile('"' .. deep .. '"\n"{\\"n\\": 7}"\n')
    local out, err = H.coax({ "run", dir .. "/job.lua", "--replay", replies, "-v" })
    os.remove(replies)
    assert.are.equal('{"n":7}\n', out)
    assert.are.equal("coax run: attempt 1: 1 schema error, at (root): expected object, got array of 1 item; "
      .. "fed back, asking again\ncoax run: attempt 2: valid, accepted\n", err)
  end)
end)

describe("agent flags mean what they say", function()
  local mock = require "mock.client"
  local server

  setup(function() server = mock.start() end)
  teardown(function() server:stop() end)

  -- Each a usage error (exit 2) before any request or program runs: the
  -- flag would be dropped, or would silently do something else.
  it("a flag another agent would drop, or an agent without what it needs, is exit 2 before any call", function()
    local sc = server:scenario({ { reply = '{"n": 1}' } })
    local replies = dir .. "/job.replies.jsonl"
    local touched = dir .. "/ran"
    local run_cmd = "touch " .. H.quote(touched)
    local recipe = dir .. "/job.lua" -- names no agent, has a transcript
    local cases = {
      { { "--base-url", sc.base_url }, "names no agent and none is chosen by the environment, so %-%-base%-url would "
        .. "be ignored %(the recorded transcript would play%): pass %-%-agent openai, anthropic, gemini or ollama" },
      { { "--model", "gpt-x" }, "so %-%-model would be ignored" },
      { { "--mode", "json_object" }, "so %-%-mode would be ignored" },
      { { "--agent", "openai", "--base-url", sc.base_url, "--replay", replies },
        "%-%-replay plays recorded replies, which the openai agent would drop: pass %-%-agent replay or leave "
        .. "%-%-replay out" },
      { { "--agent", "ollama", "--base-url", sc.host, "--command", run_cmd },
        "%-%-command runs a program as the agent, which the ollama agent would drop" },
      { { "--replay", replies, "--command", run_cmd }, "%-%-replay and %-%-command name two agents: pass one" },
      { { "--agent", "replay" }, "%-%-agent replay needs %-%-replay FILE" },
      { { "--agent", "command" }, "%-%-agent command needs %-%-command CMD" },
      { { "--replay", replies, "--model", "m" }, "%-%-model is an option of the HTTP agents "
        .. "%(openai, anthropic, gemini, ollama%), not of the replay agent" },
      { { "--command", run_cmd, "--base-url", sc.base_url }, "%-%-base%-url is an option of the HTTP agents "
        .. "%(openai, anthropic, gemini, ollama%), not of the command agent" },
      { { "--agent", "replay", "--replay", replies, "--mode", "prompt" }, "%-%-mode is an option of the HTTP agents" },
    }
    for _, cmd in ipairs({ "run", "batch" }) do
      for _, c in ipairs(cases) do
        local args = { cmd, recipe }
        for _, a in ipairs(c[1]) do args[#args + 1] = a end
        local out, err, code = H.coax(args, cmd == "batch" and '{"id": 1, "input": "x"}\n' or nil)
        assert.are.same({ "", 2 }, { out, code }, table.concat(args, " ") .. ": " .. err)
        assert.matches("^coax " .. cmd .. ": [^\n]*" .. c[2] .. "[^\n]*\n$", err)
      end
    end
    assert.are.same({}, sc:log()) -- no request reached the server
    assert.is_nil(io.open(touched)) -- no program ran
  end)

  it("agent options with their agent, or with a provider the environment chooses, are used", function()
    local sc = server:scenario({ { reply = '{"n": 5}' }, { reply = '{"n": 6}' } })
    local out, err, code = H.coax({ "run", dir .. "/job.lua", "--agent", "openai", "--base-url", sc.base_url,
      "--model", "m1" }, nil, { OPENAI_API_KEY = "test-key" })
    assert.are.same({ '{"n":5}\n', 0 }, { out, code }, err)
    out, err, code = H.coax({ "run", dir .. "/job.lua", "--base-url", sc.base_url, "--model", "m2" }, nil,
      { OPENAI_API_KEY = "test-key" })
    assert.are.same({ '{"n":6}\n', 0 }, { out, code }, err)
    local log = sc:log()
    assert.are.same({ "m1", "m2" }, { log[1].json.model, log[2].json.model })
    -- the replay agent's replies in --agent-options are enough for --agent replay
    out, err, code = H.coax({ "run", dir .. "/job.lua", "--agent", "replay", "--agent-options",
      '{"replies": ["{\\"n\\": 8}"]}' })
    assert.are.same({ '{"n":8}\n', 0 }, { out, code }, err)
  end)
end)

describe("errors about schemas and files", function()
  it("use one wording in every command, with the file and the reason", function()
    local nope, bad = dir .. "/nope.json", dir .. "/bad.json"
    H.write(bad, '{"type": ')
    H.write(dir .. "/r_nope.lua", 'return { schema = "nope.json", prompt = "x" }')
    H.write(dir .. "/r_bad.lua", 'return { schema = "bad.json", prompt = "x" }')
    local replies = dir .. "/job.replies.jsonl"
    local open_msg = "cannot open schema " .. nope .. ": No such file or directory"
    local json_msg = "schema " .. bad
      .. " is not JSON: unexpected end of input, expected a JSON value (line 1, column 10)"
    for _, c in ipairs({
      { { "validate", nope, "-" }, "coax validate: " .. open_msg },
      { { "extract", "--schema", nope }, "coax extract: " .. open_msg },
      { { "example", nope }, "coax example: " .. open_msg },
      { { "run", dir .. "/r_nope.lua", "--replay", replies }, "coax run: invalid: " .. open_msg },
      { { "batch", dir .. "/r_nope.lua", "--replay", replies }, "coax batch: " .. dir .. "/r_nope.lua: " .. open_msg },
      { { "validate", bad, "-" }, "coax validate: " .. json_msg },
      { { "extract", "--schema", bad }, "coax extract: " .. json_msg },
      { { "example", bad }, "coax example: " .. json_msg },
      { { "run", dir .. "/r_bad.lua", "--replay", replies }, "coax run: invalid: " .. json_msg },
      { { "batch", dir .. "/r_bad.lua", "--replay", replies }, "coax batch: " .. dir .. "/r_bad.lua: " .. json_msg },
      { { "run", dir .. "/none.lua" },
        "coax run: cannot open recipe " .. dir .. "/none.lua: No such file or directory" },
      { { "repair", nope }, "coax repair: cannot open " .. nope .. ": No such file or directory" },
      { { "tokens", "--jsonl", nope }, "coax tokens: cannot open " .. nope .. ": No such file or directory" },
      { { "repair", "--max-input", "4", bad },
        "coax repair: " .. bad .. " is larger than the limit of 4 bytes (--max-input)" },
    }) do
      local _, err, code = H.coax(c[1], '{"id": 1, "input": "x"}\n')
      assert.are.same({ c[2] .. "\n" }, { err }, table.concat(c[1], " "))
      assert.is_true(code == 2 or code == 4)
    end
  end)
end)
