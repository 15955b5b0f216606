--- Cost round 23 (issue 21): inputs whose cost grew faster than their size, past every budget.
-- Each case times the work at n and at 4n (the least CPU time of five runs each, in turns:
-- H.scaling_ratio): near-linear work gives about 4, quadratic 16. Twins of the same shape keep
-- their results.
local H = require "helper"
local coax = require "coax"
local json = coax.json

-- 4 times 'n' costs less than 'bound' times n: run(m) does the work for size m.
local function assert_scales(run, n, bound)
  local r = H.scaling_ratio(run, n, 4)
  assert.is_true(r < bound, ("time(%d) / time(%d) = %.2f (linear 4, quadratic 16)"):format(4 * n, n, r))
end

local function csv(n, f)
  local t = {}
  for i = 1, n do t[i] = f(i) end
  return table.concat(t, ",")
end

-- The example's candidates share a pool of validation steps (max_steps x 500). A check the pool
-- could no longer pay failed at its first step, but a leaf found that out only after its tests:
-- an anyOf of n branches no number passes did its n tests for each of the 4n candidates the
-- example went on to check (1,600 branches: 0.11 s; 3,200: 0.50 s; 6,400: 2.4 s, 9.8 G
-- instructions at 3,200 where the pool is 10 M steps). A run the pool cannot pay now stops
-- before it measures or tests anything (engine/schema/validate_run.c).
local function failing_branches(n)
  return assert(coax.schema('{"anyOf":[' .. csv(n, function(i)
    return ('{"type":"integer","minimum":%d,"maximum":%d}'):format(i * 10, i * 10 - 1)
  end) .. ',{"type":"string"}]}'))
end

describe("cost 23: the example's checks stop when their pool runs dry", function()
  local STEPS = "validation used up its step budget of 10000000 steps (the example's max_steps x 500)"

  it("4 times the branches (1,600 and 6,400) cost at most 8 times the work", function()
    local s = { [1600] = failing_branches(1600), [6400] = failing_branches(6400) }
    assert_scales(function(m) assert.is_nil((coax.example(s[m]))) end, 1600, 8)
  end)

  it("past the pool the example names it", function()
    local v, err = coax.example(failing_branches(6400))
    assert.is_nil(v)
    assert.are.equal(STEPS, err)
  end)

  -- n branches that each refer to 64 examples of m items (none a string of their lengths): once the
  -- pool ran dry each example was still measured before its check failed, n x 64 x m (4 times both,
  -- a schema 4 times the size, took 12.6 times the work; 1,600 branches of 10,000 items: 1.1 s).
  local function measured_examples(n, m)
    local big = "[" .. csv(m, tostring) .. "]"
    return assert(coax.schema('{"$defs":{"big":{"type":"string","examples":[' .. csv(64, function() return big end)
      .. ']}},"anyOf":[' .. csv(n, function(i)
        return ('{"$ref":"#/$defs/big","minLength":%d,"maxLength":%d}'):format(1000 + i, i)
      end) .. "]}"))
  end

  it("4 times the branches and the examples' items (400 x 5,000, 1,600 x 20,000): at most 8 times the work", function()
    local s = { [400] = measured_examples(400, 5000), [1600] = measured_examples(1600, 20000) }
    assert_scales(function(m)
      local v, err = coax.example(s[m])
      assert.is_nil(v)
      assert.are.equal(STEPS, err)
    end, 400, 8)
  end)

  -- n branches that each refer to 40 subschemas offering 64 examples (no branch has a value): once the
  -- pool ran dry no candidate could pass, but the generation went on to the end of max_steps, each
  -- branch checking its 2,600 examples (1,000 branches: 0.46 s; 4,000: 1.7 s; 16,000: 4.2 s). It
  -- stops when the pool does (0.04 s, 0.045 s, 0.054 s).
  local function offered_examples(n)
    local all = csv(40, function()
      return '{"type":"integer","examples":[' .. csv(64, function(j) return '"x' .. j .. '"' end) .. "]}"
    end)
    return assert(coax.schema('{"$defs":{"d":{"allOf":[' .. all .. ']}},"anyOf":[' .. csv(n, function(i)
      return ('{"$ref":"#/$defs/d","minimum":%d,"maximum":%d}'):format(i, i - 1)
    end) .. "]}"))
  end

  it("past the pool, 4 times the branches (1,000 and 4,000) cost at most twice the work", function()
    local s = { [1000] = offered_examples(1000), [4000] = offered_examples(4000) }
    local r = H.scaling_ratio(function(m)
      local v, err = coax.example(s[m])
      assert.is_nil(v)
      assert.are.equal(STEPS, err)
    end, 1000, 4)
    assert.is_true(r < 2, ("time(4000) / time(1000) = %.2f (the same work past the pool: 1)"):format(r))
  end)

  it("twins: 400 branches still give the string, and the pool still binds a fan-out alone", function()
    assert.are.equal("string", coax.example(failing_branches(400)))
    local v, err = coax.example(failing_branches(400), { max_steps = 100 })
    assert.is_nil(v)
    assert.are.equal("validation used up its step budget of 50000 steps (the example's max_steps x 500)", err)
  end)
end)

-- The line reader of `coax batch` and of the --jsonl modes (engine/cli/batch_io.c) searched the
-- unread bytes for a newline from their start after each read: a line that came through a pipe,
-- 64 KiB a read, was searched again for each of them (a line of 64 MB: 0.7 s, of 128 MB: 3.3 s,
-- 16 MB: 0.02 s). The search goes on from where the last one ended.
describe("cost 23: a long line read from a pipe is searched for its newline once", function()
  local dir = H.tmpdir()
  teardown(function() H.rmtree(dir) end)
  local schema = dir .. "/any.json"
  H.write(schema, "{}")

  -- The CPU time of `cat FILE | coax validate --jsonl ...` (bash's `times`: its children's), and
  -- what it printed.
  local function piped(file, ...)
    local args = {}
    for i, a in ipairs({ ... }) do args[i] = H.quote(a) end
    local p = assert(io.popen(("bash -c %s"):format(H.quote(("cat %s | env -u LD_PRELOAD %s validate --jsonl %s %s "
      .. ">%s/out; times"):format(H.quote(file), H.quote(H.build .. "/coax"), table.concat(args, " "),
      H.quote(schema), H.quote(dir))))))
    local report = p:read("a")
    p:close()
    local total = 0
    for m, s in report:match("\n([^\n]*)"):gmatch("(%d+)m([%d.]+)s") do total = total + 60 * m + tonumber(s) end
    return total, H.read(dir .. "/out")
  end

  it("4 times the line (16 MB and 64 MB) costs at most 8 times the work", function()
    local files = {}
    for _, mb in ipairs({ 16, 64 }) do
      files[mb] = ("%s/line%d.jsonl"):format(dir, mb)
      H.write(files[mb], '"' .. ("x"):rep(mb << 20) .. '"\n')
    end
    local best = {}
    for _, mb in ipairs({ 16, 64, 16, 64, 16, 64 }) do
      local t, out = piped(files[mb])
      assert.are.equal('{"valid":true}\n', out)
      best[mb] = math.min(best[mb] or math.huge, t)
    end
    for _, f in pairs(files) do os.remove(f) end
    local ratio = best[64] / math.max(best[16], 0.01)
    assert.is_true(ratio < 8, ("cpu(64 MB) / cpu(16 MB) = %.2f"):format(ratio))
  end)

  it("twins: the lines after a long one, one too long and a last one without a newline", function()
    local file = dir .. "/twin.jsonl"
    H.write(file, '"' .. ("x"):rep(200000) .. '"\n1\n"' .. ("y"):rep(100) .. '"\n[2]')
    local _, out = piped(file)
    assert.are.equal(('{"valid":true}\n'):rep(4), out)
    _, out = piped(file, "--max-input", "150000")
    assert.are.equal('{"valid":false,"errors":[{"instanceLocation":"","keywordLocation":"","error":'
      .. '"line longer than --max-input (150000 bytes)"}]}\n' .. ('{"valid":true}\n'):rep(3), out)
  end)
end)

-- A tool call's arguments (tools mode, lua/coax/tools.lua) are the envelope {"json": V} when
-- nothing but spaces, a comma and a closing brace follow V. One pattern, "^%s*,?%s*}?%s*$", looked
-- for that, and when more followed it tried its three runs of spaces against each other: n^3 steps.
-- The engine's scripts match with a step count, so a call of 500 spaces before another member
-- (550 bytes) spent the session's 10 M Lua instructions and ended it as a limit, its next attempt
-- never made (1,000 spaces, outside the count: 1 s; 4,000: 62 s). The look is a scan now.
describe("cost 23: a tool call's arguments are read in linear work", function()
  local P = require "providers"
  local provider = P.harness { agent = "openai", options = { model = "m1", mode = "tools" },
    secrets = { OPENAI_API_KEY = "sk-test-cost23", ANTHROPIC_API_KEY = "sk-test-cost23" } }
  setup(function() provider:start { ["schema.json"] = P.SCHEMA, ["recipe.lua"] = P.recipe() } end)
  teardown(function() provider:stop() end)

  -- The session whose first reply submits 'args', its second {"name": "Bob", "age": 37}.
  local function submitted(args)
    local bob = '{"json": {"name": "Bob", "age": 37}}'
    return provider:run({ { tool_calls = { { name = "submit", arguments = args, id = "s1" } } },
      { tool_calls = { { name = "submit", arguments = bob, id = "s2" } } } })
  end
  local ADA = '{"json": {"name": "Ada", "age": 36}'

  it("2,000 spaces before another member: no envelope, the attempt is invalid and the next one taken", function()
    local r = submitted(ADA .. (" "):rep(2000) .. ', "note": "x"}')
    assert.are.same({ "ok", '{"name":"Bob","age":37}', 2, "invalid" },
      { r.outcome, json.encode(r.value), #r.attempts, r.attempts[1].outcome })
  end)

  it("twins: 2,000 spaces or newlines before the closing brace, a comma or nothing: the envelope's value", function()
    for _, args in ipairs({ ADA .. (" "):rep(2000) .. "}", ADA .. "," .. ("\n"):rep(2000) .. "}  ",
      ADA .. ("\t"):rep(2000) }) do
      local r = submitted(args)
      assert.are.same({ "ok", '{"name":"Ada","age":36}', 1, '{"name": "Ada", "age": 36}' },
        { r.outcome, json.encode(r.value), #r.attempts, r.attempts[1].reply })
    end
  end)

  it("4 times the spaces (20,000 and 80,000) cost at most 8 times the work", function()
    local tools = require "coax.tools"
    local text = {}
    for _, n in ipairs({ 20000, 80000 }) do text[n] = ADA .. (" "):rep(n) .. ', "note": "x"}' end
    assert_scales(function(m) -- 20 looks a run, so that the smaller takes milliseconds
      for _ = 1, 20 do assert.are.equal(text[m], tools.value_text(text[m])) end
    end, 20000, 8)
  end)
end)
