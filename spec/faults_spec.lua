--- Faults against the mock server (spec/mock), through the command as a
-- user runs it: `coax run RECIPE --agent openai --base-url URL --report F`
-- and `coax batch`. Each case asserts the exit status, the exact line on
-- stderr, the report's outcome, error, http_status and retries, the requests
-- the server saw, and that the command ended (every run is under
-- `timeout`, and a run it had to stop fails the case). Then batch with no
-- room for its output: a full disk, a file size limit mid-line.
local H = require "helper"
local coax = require "coax"
local P = require "providers"
local json = coax.json

local KEY = "sk-faults-SENTINEL-7531"
local SCHEMA = '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}'
local GOOD = '{"name": "Ada"}'
local FFFD = "\239\191\189" -- U+FFFD, the replacement character
local GUARD_S = 120 -- no case comes near this; it only turns a hang into a failure

-- The mock server and a folder for the recipe (providers.lua).
local fixture = P.harness {}
local dir = fixture.dir
local recipe = fixture:path("recipe.lua")
local write = H.write

setup(function()
  fixture:start {
    ["schema.json"] = SCHEMA,
    ["recipe.lua"] = 'return { schema = "schema.json", prompt = "Who is in: {{input}}", max_attempts = 2 }',
  }
end)

teardown(function() fixture:stop() end)

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  os.remove(path)
  return s
end

--- Runs `coax ARGS` under `timeout` with the key in the environment.
-- @treturn string stdout
-- @treturn string stderr
-- @treturn integer the exit status (124: it had to be stopped)
local function coax_cmd(args, stdin)
  local parts = { "timeout", "-k", "5", tostring(GUARD_S), "env", "-u", "LD_PRELOAD",
    "OPENAI_API_KEY=" .. H.quote(KEY) }
  local wrap = os.getenv("COAX_WRAP")
  if wrap and wrap ~= "" then parts[#parts + 1] = wrap end
  parts[#parts + 1] = H.quote(H.build .. "/coax")
  for _, a in ipairs(args) do parts[#parts + 1] = H.quote(a) end
  local inpath = H.tmpfile(stdin or "")
  local out, err = os.tmpname(), os.tmpname()
  local ok, how, code = os.execute(table.concat(parts, " ") .. " <" .. H.quote(inpath) .. " >" .. H.quote(out)
    .. " 2>" .. H.quote(err))
  os.remove(inpath)
  if how == "signal" then code = 128 + code end
  code = ok and 0 or code
  assert(code ~= 124 and code ~= 137, "coax did not end within " .. GUARD_S .. " s: " .. table.concat(args, " "))
  return slurp(out), slurp(err), code
end

--- Strict JSON (coax.json.decode rejects invalid UTF-8), or a failure.
local function strict(text, what)
  local v, msg = json.decode(text)
  assert(v ~= nil, (what or "text") .. " is not valid JSON: " .. tostring(msg))
  return v
end

-- Fast retries unless `options` says otherwise.
local function agent_options(options)
  local o = { retry_base_ms = 5, max_retries = 2 }
  for k, v in pairs(options or {}) do o[k] = v end
  return json.encode(o)
end

--- `coax run` on the openai agent against `url` (a scenario's base_url).
-- @treturn table {out, err, code, report (decoded strictly), report_text}
local function run_at(url, options, input)
  local report = os.tmpname()
  local out, err, code = coax_cmd({ "run", recipe, "--agent", "openai", "--base-url", url, "--model", "m1",
    "--input", "-", "--report", report, "--agent-options", agent_options(options) }, input or "Ada is here.")
  local text = slurp(report) or ""
  if text ~= "" then H.assert_report(text) end
  return { out = out, err = err, code = code, report_text = text,
    report = strict(text, ("the report (exit %d, stderr %q)"):format(code, err)) }
end

--- A new scenario of `steps`, and run_at it.
-- @treturn table as run_at, plus `log` (the requests) and `sc`
local function run(steps, options, input)
  local sc = fixture:scenario(steps)
  local r = run_at(sc.base_url, options, input)
  r.log, r.sc = sc:log(), sc
  return r
end

-- An OpenAI chat completion carrying `content`, as raw bytes.
local function completion(content)
  return '{"id":"x","object":"chat.completion","model":"m1","choices":[{"index":0,"message":{"role":"assistant",'
    .. '"content":"' .. content .. '"},"finish_reason":"stop"}]}'
end

local function hex(s)
  return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end))
end

-- The report of an extraction that failed for good at its first attempt.
local function agent_error(r, message, retries, status)
  assert.are.same({ "", "coax run: agent_error: " .. message .. "\n", 3 }, { r.out, r.err, r.code })
  local rep = r.report
  assert.are.equal("agent_error", rep.outcome)
  assert.are.same({ code = "agent_error", message = message, http_status = status }, rep.error)
  assert.are.equal(json.null, rep.value)
  assert.are.equal(1, rep.metrics.attempts)
  assert.are.equal(1, #rep.attempts)
  assert.are.equal("agent_error", rep.attempts[1].outcome)
  assert.are.equal(retries, rep.attempts[1].retries)
  assert.are.equal(status, rep.attempts[1].http_status)
end

local function ok(r, retries, requests)
  assert.are.same({ '{"name":"Ada"}\n', "", 0 }, { r.out, r.err, r.code })
  assert.are.equal("ok", r.report.outcome)
  assert.are.equal(retries, r.report.attempts[1].retries)
  if requests then assert.are.equal(requests, #r.log) end
end

describe("faults: the connection", function()
  it("refused: retried, then agent_error (exit 3) naming the connect failure, no HTTP status", function()
    local r = run_at("http://127.0.0.1:1/v1")
    local msg = r.report.error.message
    assert.matches("^openai agent: Failed to connect to 127%.0%.0%.1 port 1 after %d+ ms: Couldn't connect to server "
      .. "%(connect%) %(after 2 retries%)$", msg)
    agent_error(r, msg, 2, nil)
  end)

  it("reset mid-body every time: retried, then agent_error (exit 3) naming the reset", function()
    local r = run({ { reply = GOOD, reset_after = 10, times = 3 } })
    agent_error(r, "openai agent: Recv failure: Connection reset by peer (connection) (after 2 retries)", 2, nil)
    assert.are.equal(3, #r.log)
  end)

  it("reset mid-body once, then a reply: ok with one retry", function()
    local r = run({ { reply = GOOD, reset_after = 10 }, { reply = GOOD } })
    ok(r, 1, 2)
  end)

  it("a slow drip past the timeout: agent_error (exit 3) at the timeout, not when the drip ends", function()
    -- 321 bytes 50 ms apart would take 16 s; the timeout is 300 ms.
    local r = run({ { reply = GOOD, drip_ms = 50 } }, { timeout_ms = 300, max_retries = 0 })
    local msg = r.report.error.message
    assert.matches("^openai agent: Operation timed out after %d+ milliseconds with %d+ out of %d+ bytes received "
      .. "%(timeout%)$", msg)
    agent_error(r, msg, 0, nil)
    local elapsed = r.report.attempts[1].elapsed_ms
    assert.is_true(elapsed >= 250 and elapsed < 8000, "elapsed " .. elapsed .. " ms")
    assert.are.equal(1, #r.log)
  end)

  it("a slow drip within the timeout: ok", function()
    local r = run({ { reply = GOOD, drip_ms = 1 } }, { timeout_ms = 60000 })
    ok(r, 0, 1)
  end)
end)

describe("faults: the body", function()
  it("malformed JSON with status 200: agent_error (exit 3) at once, http_status 200, not retried", function()
    local r = run({ { body = "<html><body>Bad gateway</body></html>" }, { reply = GOOD } })
    agent_error(r, "openai agent: the response body is not JSON", 0, 200)
    assert.are.equal(1, #r.log)
  end)

  it("JSON that is not a completion, status 200: agent_error (exit 3) naming what is missing", function()
    local r = run({ { json = { id = "x", object = "list" } }, { reply = GOOD } })
    agent_error(r, "openai agent: the response has no choices[1].message", 0, 200)
    assert.are.equal(1, #r.log)
  end)

  it("a proxy's HTML 502, every time: retried, then agent_error with the body's first 200 bytes", function()
    local page = "<html><head><title>502 Bad Gateway</title></head><body>" .. string.rep("x", 300) .. "</body></html>"
    local r = run({ { status = 502, body = page, times = 3 } })
    agent_error(r, "openai agent: HTTP 502: " .. page:sub(1, 200) .. " (after 2 retries)", 2, 502)
    assert.are.equal(3, #r.log)
  end)
end)

describe("faults: invalid UTF-8 from the model", function()
  it("inside the JSON reply: U+FFFD for each bad byte is a guess, refused; feedback and report valid JSON, then ok",
    function()
      local r = run({ { body_hex = hex(completion('{\\"name\\": \\"Ad\255\254a\\"}')) }, { reply = GOOD } })
      ok(r, 0, 2)
      local first = r.report.attempts[1]
      assert.are.equal('{"name": "Ad' .. FFFD .. FFFD .. 'a"}', first.reply)
      assert.are.same({ "invalid_utf8", "invalid_utf8" }, { first.log[1].kind, first.log[2].kind })
      assert.is_nil(r.report_text:find("\255", 1, true))
      local sent = strict(r.log[2].body, "the second request").messages
      assert.are.same({ "assistant", '{"name": "Ad' .. FFFD .. FFFD .. 'a"}' }, { sent[2].role, sent[2].content })
    end)

  it("in a reply without JSON: the feedback quotes it with U+FFFD, the next request is valid JSON, then ok", function()
    local r = run({ { body_hex = hex(completion("no JSON \255 here")) }, { reply = GOOD } })
    ok(r, 0, 2)
    assert.are.equal(2, r.report.metrics.attempts)
    assert.are.equal("no_json", r.report.attempts[1].outcome)
    local sent = strict(r.log[2].body, "the second request").messages
    assert.are.equal(3, #sent)
    assert.are.same({ "assistant", "no JSON " .. FFFD .. " here" }, { sent[2].role, sent[2].content })
    assert.matches("Your reply began with:\nno JSON " .. FFFD .. " here\n", sent[3].content, 1, true)
  end)

  it("a reply cut at 500 bytes in the middle of a character for the feedback: U+FFFD, then ok", function()
    local reply = "x" .. string.rep("\195\169", 300) -- "x" and 300 é: byte 500 is the first half of an é
    local r = run({ { reply = reply }, { reply = GOOD } })
    ok(r, 0, 2)
    local sent = strict(r.log[2].body, "the second request").messages
    assert.are.equal(reply, sent[2].content)
    assert.matches("Your reply began with:\nx" .. string.rep("\195\169", 249) .. FFFD .. "\n", sent[3].content, 1, true)
  end)

  it("in a 500's error message: the message on stderr and in the report is valid UTF-8", function()
    local body = '{"error":{"message":"upstream \255 failed","type":"server_error","code":null}}'
    local r = run({ { status = 500, body_hex = hex(body), times = 2 } }, { max_retries = 1 })
    agent_error(r, "openai agent: HTTP 500 (server_error): upstream " .. FFFD .. " failed (after 1 retry)", 1, 500)
  end)

  it("through coax batch: every output line is valid JSON", function()
    local sc = fixture:scenario({ { body_hex = hex(completion('{\\"name\\": \\"B\255\\"}')), times = 4 } })
    local input = '{"id": 1, "input": "B"}\n{"id": 2, "input": "B"}\n'
    local out, err, code = coax_cmd({ "batch", recipe, "--agent", "openai", "--base-url", sc.base_url, "--quiet",
      "--agent-options", agent_options() }, input)
    assert.are.same({ "", 1 }, { err, code }) -- 1: some lines failed
    local n = 0
    for line in out:gmatch("[^\n]+") do
      local v = strict(line, "an output line")
      assert.are.same({ "exhausted", nil }, { v.outcome, v.value }) -- each attempt's U+FFFD a guess
      n = n + 1
    end
    assert.are.equal(2, n)
  end)
end)

describe("faults: headers", function()
  it("one header line of 200 KB: outcome limit (exit 4) at once, not retried", function()
    local r = run({ { reply = GOOD, header_bytes = 200000 }, { reply = GOOD } })
    local msg = "agent: coax.http: the response headers are larger than libcurl accepts (Out of memory)"
    assert.are.same({ "", "coax run: limit: " .. msg .. "\n", 4 }, { r.out, r.err, r.code })
    assert.are.same({ "limit", { code = "limit", message = msg } }, { r.report.outcome, r.report.error })
    assert.are.equal(1, #r.log)
  end)

  it("30,000 headers (300 KB): outcome limit (exit 4) at once, not retried", function()
    local r = run({ { reply = GOOD, many_headers = 30000 }, { reply = GOOD } })
    assert.are.same({ "", 4 }, { r.out, r.code })
    assert.matches("^coax run: limit: agent: coax%.http: the response headers are larger than libcurl accepts "
      .. "%(Too large response headers: %d+ > 307200%)\n$", r.err)
    assert.are.equal("limit", r.report.outcome)
    assert.are.equal(1, #r.log)
  end)

  it("past the engine's response cap: outcome limit, with the cap in the message", function()
    local sc = fixture:scenario({ { reply = GOOD, header_bytes = 8000 }, { reply = GOOD } })
    local rep = coax.run(recipe, "Ada", { agent = "openai", http_max_response = 4000,
      secrets = { OPENAI_API_KEY = KEY }, agent_options = { base_url = sc.base_url, retry_base_ms = 5 } })
    assert.are.same({ "limit", { code = "limit",
      message = "agent: coax.http: the response is larger than the limit of 4000 bytes" } },
      { rep.outcome, rep.error })
    assert.are.equal(1, #sc:log())
  end)

  it("2,000 headers (50 KB), under every cap: ok", function()
    local r = run({ { reply = GOOD, many_headers = 2000 } })
    ok(r, 0, 1)
  end)
end)

describe("faults: a storm of 429s", function()
  local function rate_limited(times, headers)
    return { error = { status = 429, message = "Rate limit reached for m1", type = "requests",
      code = "rate_limit_exceeded" }, times = times, headers = headers }
  end

  it("every request 429: agent_error (exit 3) after max_retries, http_status 429, retries counted", function()
    local r = run({ rate_limited(10) }, { max_retries = 4 })
    agent_error(r, "openai agent: HTTP 429 (rate_limit_exceeded): Rate limit reached for m1 (after 4 retries)", 4, 429)
    assert.are.equal(5, #r.log)
  end)

  it("429 three times, then a reply: ok, the retries recorded, one attempt", function()
    local r = run({ rate_limited(3), { reply = GOOD } }, { max_retries = 3 })
    ok(r, 3, 4)
    assert.are.equal(1, r.report.metrics.attempts)
  end)

  it("retry-after in seconds is honoured over the backoff", function()
    local r = run({ rate_limited(1, { ["retry-after"] = "1" }), { reply = GOOD } })
    ok(r, 1, 2)
    local gap = r.log[2].t - r.log[1].t
    assert.is_true(gap >= 950, "the retry came " .. gap .. " ms after the 429")
  end)

  it("across a batch: the batch stops after --max-agent-errors lines in a row (exit 3), --resume finishes", function()
    local storm = fixture:scenario({ rate_limited(1000) })
    local out_path = dir .. "/storm.out.jsonl"
    local input = {}
    for i = 1, 8 do input[i] = ('{"id": %d, "input": "P%d"}'):format(i, i) end
    input = table.concat(input, "\n") .. "\n"
    local _, err, code = coax_cmd({ "batch", recipe, "--agent", "openai", "--base-url", storm.base_url,
      "--output", out_path, "--concurrency", "2", "--max-agent-errors", "3", "--quiet",
      "--agent-options", agent_options({ max_retries = 1 }) }, input)
    assert.are.equal(3, code)
    assert.matches("^coax batch: stopped: %d+ lines in a row ended in agent_error %(the last: openai agent: HTTP 429 "
      .. "%(rate_limit_exceeded%): Rate limit reached for m1 %(after 1 retry%)%); the rest is unread: rerun with "
      .. "%-%-resume\n$", err)
    local done = {}
    for line in H.read(out_path):gmatch("[^\n]+") do
      local v = strict(line, "an output line")
      assert.are.same({ "agent_error", 429 }, { v.outcome, v.error.http_status })
      done[#done + 1] = v.id
    end
    assert.is_true(#done >= 3 and #done < 8, #done .. " lines before the stop")
    -- The storm has passed: the rest completes, every id exactly once.
    local calm = fixture:scenario({ { reply = GOOD, times = 8 } })
    _, err, code = coax_cmd({ "batch", recipe, "--agent", "openai", "--base-url", calm.base_url,
      "--output", out_path, "--resume", "--quiet", "--agent-options", agent_options() }, input)
    assert.are.same({ "", 0 }, { err, code })
    local seen, n = {}, 0
    for line in H.read(out_path):gmatch("[^\n]+") do
      local v = strict(line, "an output line")
      seen[v.id] = (seen[v.id] or 0) + 1
      n = n + 1
    end
    assert.are.equal(8, n)
    for i = 1, 8 do assert.are.equal(1, seen[i], "id " .. i) end
    assert.are.equal(8 - #done, #calm:log())
  end)
end)

describe("faults: no room for batch's output", function()
  local PERSON = "spec/fixtures/batch/person.lua"

  -- n input lines for the person recipe, each with the reply that succeeds.
  local function people(n)
    local t = {}
    for i = 1, n do
      t[i] = json.encode({ id = i, input = "P" .. i .. " is " .. i .. ".",
        replies = { ('{"name": "P%d", "age": %d}'):format(i, i) } })
    end
    return table.concat(t, "\n") .. "\n"
  end

  -- Runs a shell script (the command is $COAX, unquoted) under the guard:
  -- stderr and the exit status.
  local function shell(script, stdin)
    local wrap = os.getenv("COAX_WRAP") or ""
    local path = H.tmpfile(script)
    local inpath = H.tmpfile(stdin or "")
    local errpath = os.tmpname()
    local done, how, status = os.execute(("timeout -k 5 %d env -u LD_PRELOAD COAX=%s sh %s <%s 2>%s"):format(GUARD_S,
      H.quote(wrap .. " " .. H.build .. "/coax"), H.quote(path), H.quote(inpath), H.quote(errpath)))
    os.remove(path)
    os.remove(inpath)
    if how == "signal" then status = 128 + status end
    status = done and 0 or status
    assert(status ~= 124 and status ~= 137, "the command did not end within " .. GUARD_S .. " s")
    return slurp(errpath), status
  end

  -- Every line of the file whole, each id once: the ids.
  local function whole_lines(path)
    local text = H.read(path)
    assert.are.equal("\n", text:sub(-1), "the last line is torn")
    local seen, n = {}, 0
    for line in text:gmatch("([^\n]*)\n") do
      local v = strict(line, "an output line")
      assert.are.equal("ok", v.outcome)
      assert.is_nil(seen[v.id], "id " .. tostring(v.id) .. " twice")
      seen[v.id] = true
      n = n + 1
    end
    return seen, n
  end

  it("--output /dev/full: exit 4, one line naming the file", function()
    local out, err, code = coax_cmd({ "batch", PERSON, "--output", "/dev/full", "--replies-field", "replies",
      "--quiet" }, people(3))
    assert.are.same({ "", "coax batch: cannot write to /dev/full: No space left on device; the lines before are "
      .. "whole: rerun with --resume to finish\n", 4 }, { out, err, code })
  end)

  it("standard output on /dev/full: exit 4, one line", function()
    local err, code = shell('$COAX batch spec/fixtures/batch/person.lua --replies-field replies --quiet >/dev/full\n',
      people(3))
    assert.are.same({ "coax batch: cannot write to standard output: No space left on device\n", 4 }, { err, code })
  end)

  it("coax run: a value or a report that cannot be written is exit 4 and a line, not a silent success", function()
    local replies = H.tmpfile('"{\\"name\\": \\"Ada\\", \\"age\\": 36}"\n')
    local err, code = shell(("$COAX run %s --replay %s >/dev/full\n"):format(PERSON, H.quote(replies)))
    assert.are.same({ "coax run: cannot write output: No space left on device\n", 4 }, { err, code })
    local out
    out, err, code = coax_cmd({ "run", PERSON, "--replay", replies, "--report", "/dev/full" })
    assert.are.same({ '{"name":"Ada","age":36}\n',
      "coax run: cannot write the report to /dev/full: No space left on device\n", 4 }, { out, err, code })
    os.remove(replies)
  end)

  it("a file size limit mid-line (ulimit -f): exit 4, no torn line, and --resume finishes every id once", function()
    local out_path = dir .. "/fsize.out.jsonl"
    local input = people(40)
    -- 2 blocks of 512 bytes: about four lines of ~240 bytes fit, the fifth is cut by the limit.
    local err, code = shell(("ulimit -f 2\nexec $COAX batch %s --output %s --replies-field replies --quiet\n")
      :format(PERSON, H.quote(out_path)), input)
    assert.are.same({ "coax batch: cannot write to " .. out_path .. ": File too large; the lines before are whole: "
      .. "rerun with --resume to finish\n", 4 }, { err, code })
    local size = #H.read(out_path)
    assert.is_true(size > 0 and size <= 1024, "size " .. size)
    local _, before = whole_lines(out_path)
    assert.is_true(before >= 1 and before < 40, before .. " lines")
    local out
    out, err, code = coax_cmd({ "batch", PERSON, "--output", out_path, "--replies-field", "replies", "--resume" },
      input)
    assert.are.equal("", out)
    assert.are.equal(0, code, err)
    assert.matches(("^coax batch: %d lines in [%%d.]+ s %%([%%d.]+ lines/s%%), %d skipped as done %%(%%-%%-resume%%)\n")
      :format(40 - before, before), err)
    local seen, n = whole_lines(out_path)
    assert.are.equal(40, n)
    for i = 1, 40 do assert.is_true(seen[i], "id " .. i) end
  end)

  -- A reader that went away (`coax batch | head -1`) killed coax with
  -- SIGPIPE and left the command agent's children running. Now the write
  -- fails with EPIPE like any other: the engine is freed (its commands
  -- ended) and the exit status is 4, never a death by signal.
  it("standard output closed by its reader: exit 4, one line, the agent's commands ended", function()
    -- a sleep no other process runs: the spec's own process id in it, not
    -- the clock's second alone, which two runs of the suite side by side
    -- (two worktrees, CI beside a developer) could share
    local stat = assert(io.open("/proc/self/stat")):read("l")
    local marker = ("37.%s%03d"):format(stat:match("^%d+"), os.time() % 1000)
    local lines = {}
    for i, input in ipairs({ "first", "second", "third" }) do
      lines[i] = json.encode({ id = i, input = input })
    end
    -- line 1 replies at once, line 2 after half a second, line 3 never
    local command = ("input=$(cat); case \"$input\" in *first*) echo '{\"name\": \"A\"}';; "
      .. "*second*) sleep 0.5; echo '{\"name\": \"B\"}';; *) sleep %s;; esac"):format(marker)
    write(dir .. "/pipe.jsonl", table.concat(lines, "\n") .. "\n")
    local t0 = os.time()
    local err, code = shell(("{ $COAX batch %s --input %s --agent command --command %s --concurrency 3 --quiet; "
      .. "echo $? >%s; } | head -1 >/dev/null\n"):format(recipe, H.quote(dir .. "/pipe.jsonl"), H.quote(command),
      H.quote(dir .. "/pipe.status")))
    assert.are.equal(0, code)
    assert.are.equal("4\n", H.read(dir .. "/pipe.status"))
    assert.are.equal("coax batch: cannot write to standard output: Broken pipe\n", err)
    assert.is_true(os.time() - t0 < 20)
    -- pgrep deadlocked at start under the sanitizer run's LD_PRELOAD: run it without
    local ps = io.popen("env -u LD_PRELOAD pgrep -f '^sleep " .. marker .. "'")
    local left = ps:read("a")
    ps:close()
    assert.are.equal("", left)
  end)

  for _, c in ipairs({
    { "extract", "extract --schema %s/schema.json %s/good.json" },
    { "repair", "repair %s/good.json", true },
    { "validate", "validate %s/schema.json %s/good.json" },
    { "example", "example %s/schema.json" },
    { "tokens", "tokens %s/good.json", true },
    { "run", "run %s/recipe.lua --replay %s/replies.jsonl", true },
  }) do
    it("coax " .. c[1] .. " with standard output closed: exit 4 and one line, not a death by SIGPIPE", function()
      write(dir .. "/good.json", GOOD)
      write(dir .. "/replies.jsonl", json.encode(GOOD) .. "\n")
      local args = c[2]:gsub("%%s", dir)
      local err, code = shell(("{ sleep 0.3; $COAX %s; echo $? >%s; } | true\n"):format(args,
        H.quote(dir .. "/pipe.status")))
      assert.are.equal(0, code)
      assert.are.same({ "4\n", "coax " .. c[1] .. ": cannot write output: Broken pipe\n" },
        { H.read(dir .. "/pipe.status"), err })
    end)
  end
end)

