--- Shared by every spec: loads the module from the build folder under test
-- (COAX_BUILD, set by spec/run: build, build/asan) and runs the coax command.
local build = os.getenv("COAX_BUILD") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;spec/?.lua;" .. package.path

local H = {}
H.build = build

local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end
H.quote = shell_quote

--- The CPU time of one run of f(), after a full collection: the spec files
-- share one Lua process, and garbage left by earlier files must not be
-- collected inside the run being timed. CPU, never the wall clock: a
-- loaded machine stretches the wall time of one run and not another's
-- (a session's metrics.wall_ms compared across two runs can fail so).
local function cpu(f)
  collectgarbage()
  local t0 = os.clock()
  f()
  return os.clock() - t0
end
H.cpu = cpu

-- Runs a timing takes the least of: five left linear work past its bound
-- in one suite in two on a virtual machine whose neighbours took the caches
-- for seconds at a time (attack19 12.1, attack20 8.1, both 4-5 alone).
local RUNS = 9

--- The least CPU time f() takes over RUNS runs.
function H.best_cpu(f)
  local best = math.huge
  for _ = 1, RUNS do best = math.min(best, cpu(f)) end
  return best
end

--- The least CPU times of f() and of g() over RUNS runs each, taken in
-- turns: a spell of load (another build, the caches another process
-- took) then falls on both rather than on all the runs of one, as it did
-- when one's runs were all taken before the other's.
function H.best_cpu_pair(f, g)
  local a, b = math.huge, math.huge
  for _ = 1, RUNS do
    a = math.min(a, cpu(f))
    b = math.min(b, cpu(g))
  end
  return a, b
end

--- CPU time at k*n over CPU time at n, the least of RUNS runs each
-- (run(m) does the work for size m; k defaults to 2): about k for
-- near-linear work, k*k for quadratic. The specs use k = 4 with bound 8: at
-- k = 2 cache misses and a loaded machine (CI, ASan) took linear work past
-- bounds of 2.6-3.5. The two sizes take turns (H.best_cpu_pair).
function H.scaling_ratio(run, n, k)
  k = k or 2
  local big, small = H.best_cpu_pair(function() run(k * n) end, function() run(n) end)
  return big / small
end

--- spec/mock/pipelined.py (listening on n ports, 1 unless given) for a describe block, which passes
-- start to its setup and stop to its teardown (busted gives those to spec files, not to this
-- module): start fills ports (strings; port is the first).
function H.pipelined_server(n)
  local server = { ports = {} }
  local pipe, pid
  function server.start()
    pipe = assert(io.popen("exec env -u LD_PRELOAD python3 spec/mock/pipelined.py " .. (n or 1), "r"))
    for p in assert(pipe:read("l")):gmatch("%d+") do server.ports[#server.ports + 1] = p end
    pid = table.remove(server.ports, 2) -- the line is "PORT PID PORT2 ... PORTN"
    server.port = server.ports[1]
  end
  function server.stop() -- after a start that failed too: nothing to stop
    if pid then os.execute("kill " .. pid) end
    if pipe then pipe:close() end
  end
  return server
end

--- coax.run of a recipe's text ('source'): its replies "{}" unless opts.replies says.
function H.run_source(source, opts)
  opts = opts or {}
  opts.source, opts.replies = true, opts.replies or { "{}" }
  return require("coax").run(source, "x", opts)
end

--- How a run ended: {outcome, its error's code, the first line of its message} (no
--- error: json.null in a report).
function H.ended(r)
  local e = type(r.error) == "table" and r.error or nil
  return { r.outcome, e and e.code, e and (e.message:gsub("\n.*", "")) }
end

--- The error message of a session whose agent sends the secret
--- OPENAI_API_KEY (= 'key') to 'url' in a header and then fails with
--- "sent: " and the response's status or the request's error kind (or
--- coax.http.request's refusal). 'options' join coax.run's.
function H.send_secret(url, key, options)
  local recipe = ([[local coax = require "coax"
return { schema = { type = "object" }, prompt = "x", agent = { call = function()
  local r, e, kind = coax.http.request({ url = %q, method = "POST", body = "{}", timeout_ms = 5000,
    headers = { Authorization = "Bearer " .. coax.secret("OPENAI_API_KEY") } })
  return nil, "sent: " .. tostring(r and r.status or kind) end } }]]):format(url)
  local o = { source = true, secrets = { OPENAI_API_KEY = key } }
  for k, v in pairs(options or {}) do o[k] = v end
  return require("coax").run(recipe, "x", o).error.message
end

--- Writes text to a fresh temporary file and returns its path.
-- 'count' texts of up to 'max' characters drawn from 'alphabet' (one byte
-- each), the same ones on every run for one 'seed'; an iterator.
function H.garbage(seed, count, max, alphabet)
  local function rnd(n)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  end
  local made = 0
  return function()
    if made == count then return nil end
    made = made + 1
    local t = {}
    for i = 1, rnd(max) do
      local k = rnd(#alphabet) + 1
      t[i] = alphabet:sub(k, k)
    end
    return table.concat(t)
  end
end

function H.tmpfile(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(text or "")
  f:close()
  return path
end

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read("a")
  f:close()
  os.remove(path)
  return s
end

--- Runs `coax ARGS...` with optional stdin text and environment variables
-- (`env`: {NAME = "value"}, set for this command only; OPENAI_API_KEY,
-- ANTHROPIC_API_KEY, GEMINI_API_KEY and OLLAMA_HOST are unset unless given here).
-- @treturn string stdout
-- @treturn string stderr
-- @treturn integer exit status
function H.coax(args, stdin, env)
  local parts = {}
  local names = {}
  for name in pairs(env or {}) do
    assert(name:match("^[%a_][%w_]*$"), "not a variable name: " .. name)
    names[#names + 1] = name
  end
  table.sort(names)
  for _, name in ipairs(names) do parts[#parts + 1] = name .. "=" .. shell_quote(env[name]) end
  local wrap = os.getenv("COAX_WRAP")
  if wrap and wrap ~= "" then parts[#parts + 1] = wrap end
  parts[#parts + 1] = shell_quote(build .. "/coax")
  for _, a in ipairs(args) do parts[#parts + 1] = shell_quote(a) end
  local inpath = H.tmpfile(stdin or "")
  local out, err = os.tmpname(), os.tmpname()
  -- The ASan runtime preloaded into busted's interpreter is not for children;
  -- the variables that choose a provider when no agent is named are cleared
  -- unless `env` sets them, so a developer's real keys never reach a spec.
  local cmd = "env -u LD_PRELOAD -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u OLLAMA_HOST "
    .. table.concat(parts, " ") .. " <" .. shell_quote(inpath) .. " >" .. shell_quote(out) .. " 2>" .. shell_quote(err)
  local ok, how, code = os.execute(cmd)
  os.remove(inpath)
  if how == "signal" then code = 128 + code end
  return slurp(out), slurp(err), (ok and 0 or code)
end

--- Runs `coax ARGS...` under a C stack of kb KiB (`ulimit -s`; 4 times as much for an ASan build,
-- whose frames are larger): its stdout, its exit status (128 + the signal's number) and its stderr.
function H.coax_in_stack(kb, args)
  local scale = build:find("asan") and 4 or 1
  local out, err = os.tmpname(), os.tmpname()
  local quoted = {}
  for i, a in ipairs(args) do quoted[i] = shell_quote(a) end
  local cmd = ("ulimit -s %d; exec env -u LD_PRELOAD %s %s >%s 2>%s </dev/null"):format(kb * scale,
    shell_quote(build .. "/coax"), table.concat(quoted, " "), shell_quote(out), shell_quote(err))
  local ok, how, code = os.execute("sh -c " .. shell_quote(cmd))
  return slurp(out), ok and 0 or (how == "signal" and 128 + code or code), slurp(err)
end

--- Writes `text` to `path` (whole, replacing it).
function H.write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

--- A new empty folder; H.rmtree(path) removes it.
function H.tmpdir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. shell_quote(dir)))
  return dir
end

function H.rmtree(dir)
  if dir then os.execute("rm -rf " .. shell_quote(dir)) end
end

--- Reads a file of the project.
function H.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

--- The messages attempt `n` of a session report sent, rebuilt as the
-- report's schema says: the first `messages_kept` of the previous
-- attempt's request, then the attempt's own `messages`.
function H.conversation(report, n)
  local request = {}
  for k = 1, n do
    local a = report.attempts[k]
    local kept = {}
    for i = 1, a.messages_kept do kept[i] = request[i] end
    for _, m in ipairs(a.messages) do kept[#kept + 1] = m end
    request = kept
  end
  return request
end

--- Every report coax.run gives a spec is checked against the schema on
-- its way back (H.assert_report).
do
  local coax = require "coax"
  local run = coax.run
  if debug.getinfo(run, "S").what == "C" then -- not yet wrapped (busted may load this file again)
    coax.run = function(...)
      local report, message, code = run(...)
      if report == nil then return nil, message, code end -- the session could not start
      return H.assert_report(report)
    end
  end
end

--- Asserts that a session report (JSON text, or the table coax.run gives)
-- conforms to schemas/report.schema.json, as `coax validate` says.
function H.assert_report(report)
  local text = type(report) == "string" and report or require("coax").json.encode(report)
  local out, err, code = H.coax({ "validate", "schemas/report.schema.json" }, text)
  H.reports_checked = (H.reports_checked or 0) + 1
  assert(code == 0, "the report does not conform to schemas/report.schema.json:\n" .. out .. err .. "\n" .. text)
  return report
end

return H
