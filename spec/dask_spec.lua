local H = require "helper"
local coax = require "coax"
local json = coax.json

-- examples/dask/coax_dask.py on a LocalCluster of two worker processes
-- (Debian's python3-distributed, installed by `make deps`). A stand-in for
-- coax (spec/fixtures/dask/held_coax.sh) holds the first partition to start
-- until the spec kills its worker process, so a task is always mid-run when
-- its worker dies: Dask must run that partition again elsewhere.
local PYTHON = "/usr/bin/python3" -- the interpreter Debian's package installs for
local RECIPE = "spec/fixtures/batch/person.lua"
local LINES = 2000

local function lines(text)
  local t = {}
  for l in text:gmatch("([^\n]*)\n") do t[#t + 1] = l end
  return t
end

-- Times vary from run to run; everything else in a line is exact.
local function untimed(text)
  return (text:gsub('"(%a+_ms)":[%d.]+', '"%1":T'))
end

local function people(n)
  local t = {}
  for i = 1, n do
    t[#t + 1] = json.encode({ id = i, input = "P" .. i .. " is " .. i .. ".",
      replies = { ('{"name": "P%d", "age": %d}'):format(i, i) } })
  end
  return table.concat(t, "\n") .. "\n"
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

-- Waits up to 'seconds' for a file to appear.
local function wait_for(path, seconds)
  for _ = 1, seconds * 20 do
    if exists(path) then return true end
    os.execute("sleep 0.05")
  end
  return false
end

local function abs(path)
  local p = io.popen("realpath " .. H.quote(path))
  local r = p:read("l")
  p:close()
  return r
end

describe("coax batch on Dask distributed (examples/dask)", function()
  local tmp
  before_each(function() tmp = H.tmpdir() end)
  after_each(function()
    -- nothing the run started outlives it, whatever the outcome: the run is
    -- a process group of its own (setsid), killed whole
    local pid = exists(tmp .. "/driver.pid") and H.read(tmp .. "/driver.pid"):match("%d+")
    if pid then os.execute("kill -9 -- -" .. pid .. " 2>/dev/null") end
    local pids = exists(tmp .. "/gate/pids") and H.read(tmp .. "/gate/pids") or ""
    for p in pids:gmatch("%d+") do os.execute("kill -9 " .. p .. " 2>/dev/null") end
    H.rmtree(tmp)
  end)

  it("puts every id out exactly once, as one process does, when a worker is killed mid-task", function()
    local input = tmp .. "/in.jsonl"
    H.write(input, people(LINES))
    os.execute("mkdir " .. H.quote(tmp .. "/gate"))

    -- the single-process run
    local expect_path = tmp .. "/expect.jsonl"
    assert.is_true(os.execute(("env -u LD_PRELOAD %s batch %s --input %s --replies-field replies --quiet > %s")
      :format(H.quote(H.build .. "/coax"), RECIPE, H.quote(input), H.quote(expect_path))))
    local expect = H.read(expect_path)
    assert.are.equal(LINES, #lines(expect))

    -- the Dask run, in the background: 2 workers, partitions of about 16 kB
    local out = tmp .. "/out.jsonl"
    local cmd = ("env -u LD_PRELOAD COAX_GATE=%s COAX_REAL=%s %s examples/dask/coax_dask.py --workers 2"
      .. " --blocksize 16kB --coax spec/fixtures/dask/held_coax.sh %s %s %s -- --replies-field replies")
      :format(H.quote(tmp .. "/gate"), H.quote(abs(H.build .. "/coax")), PYTHON, RECIPE, H.quote(input), H.quote(out))
    local script = ("%s > %s 2>&1; echo $? > %s"):format(cmd, H.quote(tmp .. "/log"), H.quote(tmp .. "/rc"))
    os.execute(("setsid sh -c %s & echo $! > %s"):format(H.quote(script), H.quote(tmp .. "/driver.pid")))

    -- a partition is held on a worker: kill that worker process and the held run
    assert.is_true(wait_for(tmp .. "/gate/pids", 60), "no partition started:\n" .. H.read(tmp .. "/log"))
    local worker, held = H.read(tmp .. "/gate/pids"):match("^(%d+) (%d+)")
    local cmdline = H.read("/proc/" .. worker .. "/cmdline"):gsub("%z", " ")
    assert.matches("python", cmdline) -- the worker, not the driver's shell
    assert.is_true(os.execute("kill -9 " .. worker))
    assert.is_true(os.execute("kill -9 " .. held))

    assert.is_true(wait_for(tmp .. "/rc", 90), "the run did not end:\n" .. H.read(tmp .. "/log"))
    local log = H.read(tmp .. "/log")
    assert.are.equal("0", H.read(tmp .. "/rc"):match("%d+"), log)
    assert.matches("distributed.nanny %- WARNING %- Restarting worker", log) -- Dask saw the loss
    local partitions = tonumber(log:match("coax_dask: " .. LINES .. " lines in (%d+) partitions"))
    assert.is_true(partitions ~= nil and partitions >= 8, log)

    -- the held partition never wrote a line, yet all came out: it was run again
    local got = H.read(out)
    local seen, n = {}, 0
    for _, l in ipairs(lines(got)) do
      local id = json.decode(l).id
      seen[id] = (seen[id] or 0) + 1
      n = n + 1
    end
    assert.are.equal(LINES, n)
    for i = 1, LINES do assert.are.equal(1, seen[i], "id " .. i) end
    assert.are.equal(untimed(expect), untimed(got))
  end)
end)
