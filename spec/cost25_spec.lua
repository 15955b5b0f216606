--- Cost round 25: what an input makes coax do grows near-linearly with it, or stops at a named limit.
-- Work is counted, never timed: regex steps by the least max_regex_total a validation ends under
-- without a limit (bisection: an exact count whatever the machine's load), the streaming reader's
-- memory in spec/c/test_cost25.c.
local H = require "helper"
local coax = require "coax"

-- The least max_regex_total under which 'pattern' on 'text' ends without a limit.
local function regex_steps(pattern, text)
  local lo, hi = 1, 1 << 26
  while lo < hi do
    local mid = (lo + hi) // 2
    local ok = assert(coax.schema(('{"pattern":"%s"}'):format(pattern), { max_regex_total = mid })):validate(text)
    if ok ~= nil then hi = mid else lo = mid + 1 end
  end
  return lo
end

-- A choice repeated, ^(a|b)*$, nests two backtracking points a character in PCRE2, so a fixed
-- bound of 10,000 nested points refused a string of 4,999 characters (the README said 10,000): a
-- description under "^(\\w|\\s)*$" of 5 KB was a limit. The bound is 100,000 points now (the 16 MiB
-- heap bound meets ^(a|b)*$ at 58,253 characters), named and a limit; below it each character
-- costs the same steps.
describe("cost 25: a repeated choice costs steps linear in its string, up to its named bound", function()
  local BOUNDS = "a regular expression exceeded its backtracking bounds (100000 nested points, 16384 KiB)"

  it("1,000 and 4,000 characters take 2,506 and 10,006 steps (4 times the string, 3.99 times)", function()
    local s1, s4 = regex_steps("^(a|b)*$", ("ab"):rep(500)), regex_steps("^(a|b)*$", ("ab"):rep(2000))
    assert.are.same({ 2506, 10006 }, { s1, s4 })
  end)

  it("49,998 characters match (4,999 met the bound); 49,999 meet it, named, as a limit", function()
    local s = assert(coax.schema('{"pattern":"^(a|b)*$"}'))
    assert.is_true(s:validate(("ab"):rep(24999)))
    assert.are.same({ nil, BOUNDS, "COAX_ELIMIT" }, { s:validate(("ab"):rep(25000):sub(1, 49999)) })
    assert.is_true(assert(coax.schema('{"pattern":"^(\\\\w|\\\\s)*$"}')):validate(("word "):rep(1000)))
    local ok, errors = s:validate(("ab"):rep(24999) .. "c")
    assert.are.same({ false, "/pattern" }, { ok, errors[1].keywordLocation })
  end)

  -- Unanchored, a pattern that fails at every start position is tried from each: quadratic steps,
  -- which the regex budget (64 a byte of the instance, at least 10,000,000) stops, by name.
  it("a pattern failing at every start: quadratic steps (100 and 400 characters: 30,900 and 483,600), named", function()
    local s1, s4 = regex_steps("(a|b)*(c|d)", ("ab"):rep(50)), regex_steps("(a|b)*(c|d)", ("ab"):rep(200))
    assert.are.same({ 30900, 483600 }, { s1, s4 })
    assert.are.same({ nil, "validation used up its regex budget of 10000000 steps (max_regex_total)", "COAX_ELIMIT" },
      { assert(coax.schema('{"pattern":"(a|b)*(c|d)"}')):validate(("ab"):rep(1000)) })
  end)
end)

-- The streaming reader's complete list repeats each part's whole path: n items under a key of k
-- bytes are listed in n x k bytes (8,000 items under an 8,000-byte key, a reply of 32 KB: a
-- partial of 64 MB). The pointers a reader builds are held to max_input.
describe("cost 25: the complete list's pointers are held to max_input", function()
  local dir = H.tmpdir()
  teardown(function() H.rmtree(dir) end)

  local function reply(items)
    local path = ("%s/items%d.txt"):format(dir, items)
    H.write(path, '{"' .. ("k"):rep(8000) .. '": [' .. ("1, "):rep(items))
    return path
  end

  it("200 items under an 8,000-byte key (1.6 MB of pointers) pass a max_input of 1 MiB: refused, named", function()
    local out, err, code = H.coax({ "extract", "--partial", "--max-input", "1M", reply(200) })
    assert.are.same({ "", "coax extract: the complete list's JSON Pointers passed 1048576 bytes (max_input): each "
      .. "repeats its part's path (200 parts new in this partial, pointers up to 8005 bytes)\n", 4 },
      { out, err, code })
  end)

  it("twin: 100 of them (800 KB) are listed whole", function()
    local out, err, code = H.coax({ "extract", "--partial", "--max-input", "1M", reply(100) })
    assert.are.same({ "", 0 }, { err, code })
    local p = coax.json.decode(out)
    assert.are.same({ 100, "/" .. ("k"):rep(8000) .. "/99", "/" .. ("k"):rep(8000) },
      { #p.complete, p.complete[100], p.in_progress })
  end)
end)

-- Numbers compare exactly whatever their size ("big numbers as exact decimals"), but an exponent's
-- digits were read up to 10^15 and the rest dropped: 1e10000021342904901 and 1e10000021342904902 were
-- one number, 1e10000021342904901 and 10e10000021342904900 two (uniqueItems passed the two as
-- unique, const and enum refused the second), and a multipleOf of such a number judged by the capped
-- powers (6e10000021342904901 passed as a multiple of 3e10000021342904902, a fifth of it). Exponents
-- are now exact to 17 digits and compared digit by digit past them.
describe("cost 25: exponents of any length compare exactly", function()
  local json = coax.json
  local function judged(schema, instance) return (assert(coax.schema(schema)):validate(json.decode(instance))) end

  it("equal numbers with long exponents are one: uniqueItems, const and enum see it", function()
    for _, pair in ipairs({ { "1e10000021342904901", "10e10000021342904900" },
      { "1e100000000000000000", "10e99999999999999999" }, { "-1e-100000000000000000", "-0.1e-99999999999999999" },
      { "1e99999999999999999999999999999999999999", "0.1e100000000000000000000000000000000000000" } }) do
      local a, b = pair[1], pair[2]
      assert.are.same({ false, true, true, true }, { judged('{"uniqueItems":true}', "[" .. a .. "," .. b .. "]"),
        judged('{"const":' .. a .. "}", b), judged('{"enum":[2,' .. a .. "]}", b),
        judged('{"minimum":' .. a .. "}", b) })
    end
  end)

  it("twins: numbers whose long exponents differ by one are two, in order", function()
    for _, pair in ipairs({ { "1e10000021342904901", "1e10000021342904902" },
      { "1e100000000000000000", "1e100000000000000001" }, { "1e-100000000000000001", "1e-100000000000000000" },
      { "1e-100000000000000000", "1e100000000000000000" } }) do
      local a, b = pair[1], pair[2] -- a < b
      assert.are.same({ true, false, true }, { judged('{"uniqueItems":true}', "[" .. a .. "," .. b .. "]"),
        judged('{"const":' .. a .. "}", b), judged('{"exclusiveMaximum":' .. b .. "}", a) })
      assert.are.same({ false, false }, { judged('{"minimum":' .. b .. "}", a), judged('{"maximum":' .. a .. "}", b) })
    end
  end)

  it("multipleOf by exact powers: a fifth is no multiple, twenty times is", function()
    assert.are.same({ false, true, false, true, true },
      { judged('{"multipleOf":3e10000021342904902}', "6e10000021342904901"),
        judged('{"multipleOf":3e10000021342904901}', "6e10000021342904902"),
        judged('{"multipleOf":7e100000000000000000}', "7e99999999999999999"),
        judged('{"multipleOf":7}', "7e100000000000000000"),
        judged('{"multipleOf":0.75}', "3e100000000000000000") })
    assert.is_false(judged('{"multipleOf":7}', "3e100000000000000000"))
  end)

  -- Past 18 significant digits a multipleOf was judged in doubles: 1234567890123456790 passed as a multiple
  -- of 1234567890123456789. Up to 64 digits it is exact now (spec/c/test_schema.c has more); past them no
  -- answer, so a failure that says so.
  it("multipleOf of 19 to 64 significant digits exactly; past 64, a failure that says why", function()
    assert.are.same({ false, false, true, true, false },
      { judged('{"multipleOf":1234567890123456789}', "1234567890123456790"),
        judged('{"multipleOf":12345678901234567890123}', "24691357802469135780247"),
        judged('{"multipleOf":12345678901234567890123}', "24691357802469135780246"),
        judged('{"multipleOf":' .. ("9"):rep(63) .. '7}', ("9"):rep(63) .. "7" .. ("9"):rep(63) .. "7"),
        judged('{"multipleOf":' .. ("9"):rep(63) .. '7}', ("9"):rep(63) .. "7" .. ("9"):rep(63) .. "8") })
    local long = "1" .. ("0"):rep(63) .. "1"
    local ok, errors = assert(coax.schema('{"multipleOf":' .. long .. '}')):validate(long, "json")
    assert.are.same({ false, "expected a multiple of " .. long .. ", got " .. long ..
      ": a multipleOf of more than 64 significant digits is not checked" }, { ok, errors[1].error })
  end)
end)
