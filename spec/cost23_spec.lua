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
-- before its first test (engine/schema/validate_run.c).
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

  it("twins: 400 branches still give the string, and the pool still binds a fan-out alone", function()
    assert.are.equal("string", coax.example(failing_branches(400)))
    local v, err = coax.example(failing_branches(400), { max_steps = 100 })
    assert.is_nil(v)
    assert.are.equal("validation used up its step budget of 50000 steps (the example's max_steps x 500)", err)
  end)
end)
