--- The host's locale changes nothing coax reads or writes. LC_NUMERIC
-- belongs to the host process (GTK and Qt set it from the environment at
-- start), and strtod and printf follow it: under a locale whose decimal
-- point is a comma, coax read a reply's 1.5e3 as 1 and 3.14159265358979323846
-- as 3 in the Lua module, failed every schema with a fraction in it ("out
-- of memory"), and a recipe's cjson read "[1,5]" as one number.
-- spec/locale_probe.lua converts numbers every way coax does, in a process
-- of its own under the locale given; its output under "C" must be the exact
-- values, and the same under locales whose point is ',' or U+066B (two
-- bytes). The locales are compiled here from spec/fixtures/locale (Debian's
-- `locales` package provides localedef's charmaps), so none need be installed.
local H = require "helper"
local json = require("coax").json

local dir

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local ok, _, code = p:close()
  return ok, out, code
end

-- The probe's report under `locale`, as a table.
local function probe(locale)
  local ok, out = sh("LOCPATH=" .. H.quote(dir) .. " lua5.4 spec/locale_probe.lua " .. H.quote(locale))
  assert(ok, "locale_probe.lua under " .. locale .. " failed:\n" .. out)
  return json.decode(out)
end

setup(function()
  local ok, out = sh("mktemp -d")
  assert(ok, out)
  dir = out:gsub("%s+$", "")
  for _, name in ipairs({ "comma", "arabic_point" }) do
    -- -c: the sources define LC_NUMERIC only; localedef warns about the rest and exits 1
    local _, log = sh("localedef -c -i spec/fixtures/locale/" .. name .. " -f UTF-8 " .. H.quote(dir .. "/" .. name))
    local f = io.open(dir .. "/" .. name .. "/LC_NUMERIC")
    assert(f, "localedef could not compile spec/fixtures/locale/" .. name .. " (is Debian's locales installed?):\n"
      .. log)
    f:close()
  end
end)

teardown(function()
  if dir then os.execute("rm -rf " .. H.quote(dir)) end
end)

local in_c

describe("numbers under the C locale", function()
  it("are the exact values, every way coax converts them", function()
    in_c = probe("C")
    assert.equal("1.5", in_c.host)
    local r = in_c.repair
    assert.same({ 1500.0, 0.1, -0.0025, 3.141592653589793, 1.2345678901234567e+19 }, { r[1], r[3], r[4], r[6], r[7] })
    assert.same({ "3.14159265358979323846", "12345678901234567890.5" }, { tostring(r[2]), tostring(r[5]) })
    assert.same({ valid = false, errors = { "expected a number at most 1.2, got 1.5" }, value = { a = 1.5 } },
      in_c.maximum)
    assert.same({ "expected a multiple of 0.5, got 1.3" }, in_c.multiple.errors)
    assert.is_true(in_c.multiple_long.valid)
    assert.same({ a = 2.5 }, in_c.to_number.value)
    assert.equal(1.6, in_c.example)
    assert.equal(0.275, in_c.example_object.p)
    assert.equal("[1.5,0.1,1e+300,-2.5e-07]", in_c.encoded)
    assert.same({ 1.5, 25.0, 0.125 }, in_c.decoded)
    local run = in_c.run
    assert.equal("ok", run.outcome)
    assert.is_true(run.times_are_numbers)
    assert.equal("1.5 2.5 1e+100", run.computed.written)
    assert.equal("2.25 0.5 1.234500e+03 0x1.8p+0  -3.2", run.computed.format)
    assert.equal("[1.5,0.1]", run.computed.cjson_encoded)
    assert.same({ 1, 5, 25, 0.75 }, run.computed.cjson_decoded)
    assert.same({ "0x1.8p+0", "0x1.77p+10", "0x1.77p+10", "0x1.9p+3", "0x1p-1", "0x1.4p+2", "0x1.8p+0", "0x1.8p+1",
      "nil", "-0x0p+0", "0x0p+0", "inf", "-0x1p-1", "0x1p-1", "0x1p-1", "nil", "nil", "0x1p+0", "0x1p+0",
      "0x0p+0", "0x0p+0", "0x0.0000000000001p-1022",
      "0x1.8p+0", "nil", "-0x1p-2", "0x1.8p+1", "nil", "nil" }, run.computed.read)
    assert.same({ 1, 8, 1.5, -4 }, run.computed.cjson_hex)
  end)
end)

for _, case in ipairs({ { "comma", "1,5" }, { "arabic_point", "1\u{66B}5" } }) do
  local locale, host_writes = case[1], case[2]
  describe("numbers under a host locale whose decimal point is " .. host_writes:sub(2, -2), function()
    it("are the same as under C", function()
      local got = probe(locale)
      -- the locale is in effect: the host's own Lua writes its point
      assert.equal(host_writes, got.host)
      in_c = in_c or probe("C")
      got.host = in_c.host
      assert.same(in_c, got)
    end)
  end)
end
