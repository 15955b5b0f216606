--- Cost round 24: what an input makes coax do grows near-linearly with it, or stops at a named limit.
-- Work is counted in validation steps where a budget exists: the least max_steps a run ends under
-- without a limit is found by bisection, an exact count whatever the machine's load.
require "helper"
local coax = require "coax"
local json = coax.json

-- An error repeats its whole instance path, so a deep instance with long keys and an error a level
-- writes errors quadratic in its size: 200 levels of 1,000-byte keys (200 KB) write 20 MB of them.
-- Writing them is linear in their bytes, and their bytes have their own bound (max_error_bytes,
-- 64 MiB), but they cost a step per 16 bytes: 1,298,855 steps at 200 levels, past the default
-- budget's floor of 1,000,000, so `validate` and `extract` refused a legitimate instance as
-- "validation used up its step budget" at a third of the bytes the bound on them allows. A step per
-- 64 bytes now, as a string's bytes read (engine/schema/validate_errors.c).
describe("cost 24: errors with long paths cost a step per 64 bytes, as a string's bytes read", function()
  local KEY = ("k"):rep(1000)
  local SCHEMA = '{"type":"object","additionalProperties":{"$ref":"#"},"required":["b"]}'
  local function deep_text(levels) return ('{"' .. KEY .. '":'):rep(levels) .. "{}" .. ("}"):rep(levels) end

  -- The least max_steps under which validating 'levels' levels ends without a limit.
  local function steps(levels)
    local v = json.decode(deep_text(levels))
    local lo, hi = 1, 1 << 26
    while lo < hi do
      local mid = (lo + hi) // 2
      local ok, errors = assert(coax.schema(SCHEMA, { max_steps = mid })):validate(v)
      if ok or type(errors) == "table" then hi = mid else lo = mid + 1 end
    end
    return lo
  end

  it("100 and 200 levels take 82,856 and 326,293 steps (they took 328,255 and 1,298,855)", function()
    assert.are.same({ 82856, 326293 }, { steps(100), steps(200) })
  end)

  it("200 levels validate under the default budget: an error a level, the deepest path 200,200 bytes", function()
    local ok, errors = assert(coax.schema(SCHEMA)):validate(json.decode(deep_text(200)))
    assert.is_false(ok)
    assert.are.same({ 201, "", 200 * 1001, "/required" },
      { #errors, errors[1].instanceLocation, #errors[201].instanceLocation, errors[1].keywordLocation })
  end)

  it("extraction reads them too: the reply is invalid with its 201 errors, not a limit", function()
    local r = assert(coax.extract(deep_text(200), assert(coax.schema(SCHEMA))))
    assert.are.same({ false, 201 }, { r.valid, #r.errors })
  end)

  it("twins: 400 levels (80 MB of errors) stop at the step budget, or past it at max_error_bytes", function()
    local v = json.decode(deep_text(400))
    assert.are.same({ nil, "validation used up its step budget of 1000000 steps (max_steps)", "COAX_ELIMIT" },
      { assert(coax.schema(SCHEMA)):validate(v) })
    assert.are.same({ nil, "validation used up its step budget of 326292 steps (max_steps)", "COAX_ELIMIT" },
      { assert(coax.schema(SCHEMA, { max_steps = 326292 })):validate(json.decode(deep_text(200))) })
    assert.are.same({ nil, "validation errors passed 67108864 bytes (max_error_bytes)", "COAX_ELIMIT" },
      { assert(coax.schema(SCHEMA, { max_steps = 1e8 })):validate(v) })
  end)
end)

-- A match past its limits ended with "a regular expression exceeded its step limit", whichever limit
-- it was, its value and its option unnamed (the steps are --max-regex-steps; the backtracking's depth
-- and memory are fixed bounds). Each is named now.
describe("cost 24: a regular expression's limits are named", function()
  it("the step limit with its value, the backtracking bounds with theirs", function()
    local steps = assert(coax.schema('{"pattern":"^(a+)+$"}', { max_regex_steps = 5000 }))
    assert.are.same({ nil, "a regular expression exceeded its step limit of 5000 steps (max_regex_steps)",
      "COAX_ELIMIT" }, { steps:validate(("a"):rep(40) .. "b") })
    local choices = assert(coax.schema('{"pattern":"^(a|b)*$"}'))
    assert.are.same({ nil, "a regular expression exceeded its backtracking bounds (100000 nested points, 16384 KiB)",
      "COAX_ELIMIT" }, { choices:validate(("ab"):rep(30000)) }) -- 10,000 points until cost round 25
  end)

  it("twins: within them the answers stand", function()
    local choices = assert(coax.schema('{"pattern":"^(a|b)*$"}'))
    assert.is_true(choices:validate(("ab"):rep(2000)))
    local ok, errors = choices:validate(("ab"):rep(2000) .. "c")
    assert.are.same({ false, "/pattern" }, { ok, errors[1].keywordLocation })
    assert.is_true(assert(coax.schema('{"pattern":"^(a+)+$"}', { max_regex_steps = 5000 })):validate(("a"):rep(40)))
  end)
end)
