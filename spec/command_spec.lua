--- The command agent (lua/coax/agents/command.lua) and coax.command
-- (engine/io/process.c): the host's program run once per attempt, its reply
-- read from stdout, without blocking the engine's poll; failures, timeouts
-- (the whole process group killed), output caps, big inputs, and the rule
-- that only the host names the program.
local H = require "helper"
local coax = require "coax"

local dir

local write = H.write

local function read(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- Whether process `pid` has ended: no longer there, or a zombie waiting
-- for init to reap it (killed: what matters here).
local function gone(pid)
  for _ = 1, 100 do
    local stat = read("/proc/" .. pid .. "/stat")
    if not stat or stat:match("^%d+ %b() (%a)") == "Z" then return true end
    os.execute("sleep 0.02")
  end
  return false
end

local RECIPE = [[return {
  schema = { type = "object", properties = { age = { type = "integer" } }, required = { "age" } },
  prompt = "Extract the age from: {{input}}",
  agent = "command",
}]]

setup(function()
  dir = H.tmpdir()
  write(dir .. "/recipe.lua", RECIPE)
  write(dir .. "/plain.lua", (RECIPE:gsub('\n  agent = "command",', "")))
  write(dir .. "/json.lua", RECIPE:gsub('agent = "command"', 'agent = { name = "command", input = "json" }'))
  write(dir .. "/sneaky.lua", RECIPE:gsub('agent = "command"',
    'agent = { name = "command", command = "touch ' .. dir .. '/pwned" }'))
  write(dir .. "/outside.lua", RECIPE:gsub('agent = "command"', [[agent = "command",
    on_submit = function() require("coax").command("x") return true end]]))
  write(dir .. "/direct.lua", RECIPE:gsub('agent = "command"', [[agent = { call = function()
    local r, err = require("coax").command("x")
    if not r then return nil, err end
    return { text = r.stdout }
  end }]]))
end)

teardown(function()
  H.rmtree(dir)
end)

local function run(command, recipe, opts)
  local o = { command = command }
  for k, v in pairs(opts or {}) do o[k] = v end
  return coax.run(dir .. "/" .. (recipe or "recipe.lua"), "Ada is 36.", o)
end

describe("the command agent", function()
  it("sends the prompt on stdin and reads the reply from stdout, through repair", function()
    local r = run("cat > " .. H.quote(dir .. "/stdin") .. "; printf '```json\\n{age: 36,}\\n```'")
    assert.are.equal("ok", r.outcome)
    assert.are.same({ age = 36 }, r.value)
    assert.are.equal("Extract the age from: Ada is 36.\n\nReply with JSON that matches this JSON Schema:\n"
      .. '{"properties":{"age":{"type":"integer"}},"required":["age"],"type":"object"}', read(dir .. "/stdin"))
    -- exit 0 says the program ended, not that its model stopped short of a limit
    assert.are.equal(coax.null, r.attempts[1].finish)
  end)

  it("later attempts send the whole conversation under role headings", function()
    local script = dir .. "/turns.sh"
    -- First reply invalid, second valid: the turn is the number of replies so far.
    write(script, 'cat > "$1/in.$(ls "$1" | grep -c "^in\\.")"; '
      .. 'if [ -e "$1/in.1" ]; then echo \'{"age": 36}\'; else echo \'{"age": "old"}\'; fi\n')
    local r = run("sh " .. H.quote(script) .. " " .. H.quote(dir))
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, #r.attempts)
    local second = read(dir .. "/in.1")
    assert.truthy(second:find("^### user\n\nExtract the age from: Ada is 36%."))
    assert.truthy(second:find('\n\n### assistant\n\n{"age": "old"}\n\n\n### user\n\nAttempt 1/3: ', 1, false))
  end)

  it("input = 'json' sends {messages, schema}", function()
    local r = run("cat > " .. H.quote(dir .. "/json_in") .. "; echo '{\"age\": 1}'", "json.lua")
    assert.are.equal("ok", r.outcome)
    local sent = coax.json.decode(read(dir .. "/json_in"))
    assert.are.same({ "messages", "schema" }, coax.json.keys(sent))
    assert.are.equal("user", sent.messages[1].role)
    assert.are.same({ "age" }, sent.schema.required)
  end)

  it("a non-zero exit is an agent error with the status and stderr's first line", function()
    local r = run("echo 'model not found' >&2; echo more >&2; exit 7")
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("command agent: the command exited with status 7: model not found", r.error.message)
    r = run("exit 3")
    assert.are.equal("command agent: the command exited with status 3", r.error.message)
  end)

  it("a command killed by a signal is an agent error naming it", function()
    local r = run("kill -9 $$")
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("command agent: the command was killed by signal 9", r.error.message)
  end)

  it("past timeout_ms the command and everything it started are killed", function()
    local pidfile = dir .. "/grandchild"
    local r = run("sleep 30 & echo $! > " .. H.quote(pidfile) .. "; wait", nil,
      { agent_options = { timeout_ms = 300 } })
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("command agent: the command timed out after 300 ms", r.error.message)
    local pid = read(pidfile):match("%d+")
    -- The grandchild is gone (killed with its process group).
    assert.is_true(gone(pid))
  end)

  it("what the command left running in the background is killed when it exits", function()
    local pidfile = dir .. "/background"
    local r = run("sleep 30 >/dev/null 2>&1 & echo $! > " .. H.quote(pidfile) .. "; echo '{\"age\": 3}'")
    assert.are.equal("ok", r.outcome)
    local pid = read(pidfile):match("%d+")
    assert.is_true(gone(pid))
  end)

  it("the command gets no descriptor of the host's but 0, 1 and 2, and default signal dispositions", function()
    -- A host that ignores SIGPIPE and SIGXFSZ (as batch does) and holds files open.
    local script, out = dir .. "/fds_host.lua", dir .. "/fds"
    write(script, ([[package.cpath = "build/?.so;" .. package.cpath
      local coax = require "coax"
      local held = io.open(%q, "r")
      local r = coax.run(%q, "x", { command = "ls /proc/self/fd > %s; grep SigIgn /proc/self/status >> %s; echo '{}'" })
      io.write(r.outcome)
      held:close()]]):format(script, dir .. "/recipe.lua", out, out))
    local p = io.popen("trap '' PIPE XFSZ; env -u LD_PRELOAD lua5.4 " .. H.quote(script))
    assert.are.equal("exhausted", p:read("a")) -- {} has no age: what matters is what the command saw
    p:close()
    local text = read(out)
    local fds = {}
    for fd in text:match("^(.-)SigIgn"):gmatch("(%d+)\n") do fds[#fds + 1] = tonumber(fd) end
    table.sort(fds)
    assert.are.same({ 0, 1, 2, 3 }, fds) -- 3: the folder ls itself reads
    local ignored = tonumber(text:match("SigIgn:%s*(%x+)"), 16)
    assert.are.equal(0, ignored & (1 << 12), "SIGPIPE ignored in the command")
    assert.are.equal(0, ignored & (1 << 24), "SIGXFSZ ignored in the command")
  end)

  it("a host that ignores SIGCHLD loses the exit status, not the reply", function()
    local script = dir .. "/host.lua"
    write(script, ([[package.cpath = "build/?.so;" .. package.cpath
      local coax = require "coax"
      local r = coax.run(%q, "x", { command = "echo '{\"age\": 8}'" })
      io.write(r.outcome, " ", coax.json.encode(r.value))]]):format(dir .. "/recipe.lua"))
    local p = io.popen("trap '' CHLD; env -u LD_PRELOAD lua5.4 " .. H.quote(script))
    local got = p:read("a")
    p:close()
    assert.are.equal('ok {"age":8}', got)
  end)

  it("timeout_ms may be any number of milliseconds; nonsense is a clear error", function()
    local r = run("sleep 5", nil, { agent_options = { timeout_ms = 150.0 } })
    assert.are.equal("command agent: the command timed out after 150 ms", r.error.message)
    r = run("echo '{}'", nil, { agent_options = { timeout_ms = -1 } })
    assert.are.equal("script_error", r.outcome)
    assert.truthy(r.error.message:find("timeout_ms must be a number of milliseconds from 1 to 86400000", 1, true))
  end)

  it("output past the engine's max_input ends the session with outcome limit", function()
    local r = run("head -c 300000 /dev/zero | tr '\\0' x", nil, { max_input = 100000 })
    assert.are.equal("limit", r.outcome)
    assert.are.equal("agent: coax.command: the output is larger than the limit of 100000 bytes",
      r.error.message:gsub("lua/coax/agents/command.lua:%d+: ", ""))
  end)

  it("a big prompt is written while the output is read (no deadlock on full pipes)", function()
    local big = ("x"):rep(3 * 1024 * 1024)
    local r = coax.run(dir .. "/recipe.lua", big, { command = "cat; echo '{\"age\": 1}'", max_input = 8 * 1024 * 1024 })
    -- cat echoes the 3 MiB prompt back, then the JSON: extraction finds it.
    assert.are.equal("ok", r.outcome)
    assert.are.same({ age = 1 }, r.value)
  end)

  it("a command that exits without reading its stdin is no trouble (no SIGPIPE)", function()
    local big = ("x"):rep(2 * 1024 * 1024)
    local r = coax.run(dir .. "/recipe.lua", big, { command = "echo '{\"age\": 2}'" })
    assert.are.equal("ok", r.outcome)
    assert.are.same({ age = 2 }, r.value)
  end)

  it("a command that cannot start is an agent error", function()
    local r = run("/nonexistent/model-cli")
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("command agent: the command exited with status 127: sh: 1: /nonexistent/model-cli: not found",
      r.error.message)
  end)

  it("does not block the poll: other sessions move while a command runs", function()
    local e = coax.engine()
    local slow = e:session(dir .. "/recipe.lua", "a", { command = "sleep 0.5; echo '{\"age\": 1}'" })
    local fast = e:session(dir .. "/recipe.lua", "b", { agent = "replay", replies = { '{"age": 2}' } })
    local polls, fast_done_at = 0, nil
    while e:poll(0) > 0 do
      polls = polls + 1
      if fast:outcome() == "ok" and not fast_done_at then fast_done_at = polls end
      os.execute("sleep 0.01")
    end
    assert.are.equal("ok", slow:outcome())
    assert.are.equal("ok", fast:outcome())
    -- The fast session ended on an early frame; the slow one took many frames.
    assert.are.equal(1, fast_done_at)
    assert.is_true(polls > 5)
    e:close()
  end)

  it("two commands run at the same time", function()
    local e = coax.engine()
    local marks = dir .. "/marks"
    local cmd = "echo start >> " .. H.quote(marks) .. "; sleep 0.3; echo end >> " .. H.quote(marks)
      .. "; echo '{\"age\": 3}'"
    local a = e:session(dir .. "/recipe.lua", "a", { command = cmd })
    local b = e:session(dir .. "/recipe.lua", "b", { command = cmd })
    while e:poll(100) > 0 do end
    assert.are.equal("ok", a:outcome())
    assert.are.equal("ok", b:outcome())
    -- Both started before either ended.
    assert.are.equal("start\nstart\nend\nend\n", read(marks))
    e:close()
  end)
end)

describe("only the host names the command", function()
  it("a recipe's agent table cannot name it", function()
    local r = run("echo '{\"age\": 1}'", "sneaky.lua")
    assert.are.equal("script_error", r.outcome)
    assert.truthy(r.error.message:find("the command comes from the host", 1, true))
    assert.is_nil(read(dir .. "/pwned"))
  end)

  it("without the host's command the agent fails before running anything", function()
    local r = run(nil)
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("command agent: no command to run: the host names it (coax run --command, or the command option)",
      r.error.message)
  end)

  it("a recipe's own agent calling coax.command runs only the host's command", function()
    local r = run(nil, "direct.lua")
    assert.are.equal("agent_error", r.outcome)
    assert.are.equal("no command to run: the host names it (coax run --command, or the command option)",
      r.error.message)
    r = run("echo '{\"age\": 5}'", "direct.lua")
    assert.are.equal("ok", r.outcome)
    assert.are.same({ age = 5 }, r.value)
  end)

  it("coax.command outside an agent's call is refused", function()
    local r = run("echo '{\"age\": 1}'", "outside.lua")
    assert.are.equal("script_error", r.outcome)
    assert.truthy(r.error.message:find("coax.command: only an agent's call can run the command", 1, true))
  end)
end)

describe("coax run / batch --command", function()
  local ECHO = "cat >/dev/null; echo '{\"age\": 4}'"

  it("run --command uses the command agent with that command (the recipe names no agent)", function()
    local out, err, code = H.coax({ "run", dir .. "/plain.lua", "--command", ECHO })
    assert.are.equal(0, code, err)
    assert.are.equal('{"age":4}\n', out)
  end)

  it("batch --command runs it for every line", function()
    local input = H.tmpfile('{"id":1,"input":"a"}\n{"id":2,"input":"b"}\n')
    local out, err, code = H.coax({ "batch", dir .. "/plain.lua", "--input", input, "--command", ECHO, "--quiet" })
    os.remove(input)
    assert.are.equal(0, code, err)
    local ids = {}
    for line in out:gmatch("[^\n]+") do
      local v = coax.json.decode(line)
      assert.are.equal("ok", v.outcome)
      assert.are.same({ age = 4 }, v.value)
      ids[#ids + 1] = v.id
    end
    table.sort(ids)
    assert.are.same({ 1, 2 }, ids)
  end)

  it("--command with another agent is a usage error, before anything runs (it would be dropped)", function()
    local replies = H.tmpfile('"{\\"age\\": 9}"\n')
    assert.are.same({ "", "coax run: --replay and --command name two agents: pass one\n", 2 },
      { H.coax({ "run", dir .. "/recipe.lua", "--replay", replies, "--command", "exit 1" }) })
    assert.are.same({ "", "coax batch: --command runs a program as the agent, which the openai agent would drop: "
      .. "pass --agent command or leave --command out\n", 2 },
      { H.coax({ "batch", dir .. "/recipe.lua", "--agent", "openai", "--command", "exit 1" },
        '{"id": 1, "input": "x"}\n') })
    os.remove(replies)
  end)
end)

describe("a signal to the command line", function()
  -- Starts coax ARGS in the background, waits until the command has
  -- written its pid, sends SIG, and returns coax's exit status and that pid.
  local function signal_during(args, sig, pidfile)
    local sh = ("env -u LD_PRELOAD build/coax %s >/dev/null 2>&1 & c=$!; n=0; "
      .. "while [ ! -s %s ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done; kill -%s $c; wait $c; echo $?")
      :format(args, H.quote(pidfile), sig)
    local p = io.popen(sh)
    local status = tonumber(p:read("a"))
    p:close()
    return status, read(pidfile):match("%d+")
  end

  it("coax run dies of SIGTERM and takes the running command with it", function()
    local pidfile = dir .. "/run.pid"
    local cmd = "echo $$ > " .. pidfile .. "; exec sleep 30"
    local status, pid = signal_during("run " .. H.quote(dir .. "/plain.lua") .. " --command " .. H.quote(cmd), "TERM",
      pidfile)
    assert.are.equal(128 + 15, status)
    assert.is_true(gone(pid))
  end)

  -- (SIGINT cannot be tried here: a shell starts background jobs with it ignored, and
  -- coax leaves ignored signals ignored.)
  it("coax batch dies of SIGHUP and takes every running command with it", function()
    local pidfile = dir .. "/batch.pid"
    local input = H.tmpfile('{"id":1,"input":"a"}\n{"id":2,"input":"b"}\n')
    local cmd = "echo $$ >> " .. pidfile .. "; exec sleep 30"
    local status = signal_during("batch " .. H.quote(dir .. "/plain.lua") .. " --quiet --input " .. H.quote(input)
      .. " --command " .. H.quote(cmd), "HUP", pidfile)
    os.remove(input)
    assert.are.equal(128 + 1, status)
    for pid in read(pidfile):gmatch("%d+") do assert.is_true(gone(pid)) end
  end)
end)
