local H = require "helper"

local ORDER = '{"type":"object","required":["currency_code"],'
  .. '"properties":{"amount":{"type":"integer"},"items":{"type":"array","items":{"$ref":"#/$defs/item"}}},'
  .. '"$defs":{"item":{"type":"object","required":["sku"]}}}'

describe("coax validate (command)", function()
  local schema
  before_each(function() schema = H.tmpfile(ORDER) end)
  after_each(function() os.remove(schema) end)

  it("exits 0 and prints {\"valid\":true} for a valid instance", function()
    local out, err, code = H.coax({ "validate", schema }, '{"currency_code":"EUR","amount":5}')
    assert.are.equal('{"valid":true}\n', out)
    assert.are.equal("", err)
    assert.are.equal(0, code)
  end)

  it("exits 1 and lists every error with its locations (basic output)", function()
    local out, err, code = H.coax({ "validate", schema }, '{"amount":"12","items":[{"sku":1},{}]}')
    assert.are.equal('{"valid":false,"errors":['
      .. '{"instanceLocation":"","keywordLocation":"/required",'
      .. '"error":"missing required property \\"currency_code\\""},'
      .. '{"instanceLocation":"/amount","keywordLocation":"/properties/amount/type",'
      .. '"error":"expected integer, got string \\"12\\""},'
      .. '{"instanceLocation":"/items/1","keywordLocation":"/properties/items/items/$ref/required",'
      .. '"absoluteKeywordLocation":"#/$defs/item/required","error":"missing required property \\"sku\\""}]}\n', out)
    assert.are.equal("", err)
    assert.are.equal(1, code)
  end)

  it("prints only the verdict with --output flag", function()
    local out, _, code = H.coax({ "validate", "--output", "flag", schema }, '{"amount":"12"}')
    assert.are.equal('{"valid":false}\n', out)
    assert.are.equal(1, code)
  end)

  it("nests units as the schema nests them with --output detailed", function()
    local s = H.tmpfile('{"properties":{"a":{"allOf":[{"type":"string"},{"minimum":3}]}}}')
    local out, _, code = H.coax({ "validate", "--output=detailed", s }, '{"a":1}')
    os.remove(s)
    assert.are.equal('{"valid":false,"instanceLocation":"","keywordLocation":"","errors":['
      .. '{"valid":false,"instanceLocation":"/a","keywordLocation":"/properties/a","errors":['
      .. '{"valid":false,"instanceLocation":"/a","keywordLocation":"/properties/a/allOf/0/type",'
      .. '"error":"expected string, got number 1"},'
      .. '{"valid":false,"instanceLocation":"/a","keywordLocation":"/properties/a/allOf/1/minimum",'
      .. '"error":"expected a number at least 3, got 1"}]}]}\n', out)
    assert.are.equal(1, code)
  end)

  it("reads the instance from a FILE, or standard input for -", function()
    local inst = H.tmpfile('{"currency_code":"EUR"}')
    assert.are.equal('{"valid":true}\n', (H.coax({ "validate", schema, inst })))
    assert.are.equal('{"valid":true}\n', (H.coax({ "validate", schema, "-" }, '{"currency_code":"EUR"}')))
    os.remove(inst)
  end)

  it("writes one result line per input line with --jsonl", function()
    local out, err, code = H.coax({ "validate", "--jsonl", "--output", "flag", schema },
      '{"currency_code":"EUR"}\n{"amount":1}\nnot json\n{"currency_code":"USD"}\n')
    assert.are.equal('{"valid":true}\n{"valid":false}\n{"valid":false}\n{"valid":true}\n', out)
    assert.are.equal("", err)
    assert.are.equal(1, code)
    out, err, code = H.coax({ "validate", "--jsonl", schema }, '{"currency_code":"EUR"}\n{"currency_code":"USD"}')
    assert.are.equal('{"valid":true}\n{"valid":true}\n', out)
    assert.are.equal("", err)
    assert.are.equal(0, code)
  end)

  it("reports an instance that is not JSON as invalid, exit 1", function()
    local out, _, code = H.coax({ "validate", schema }, '{"currency_code": }')
    assert.are.equal('{"valid":false,"errors":[{"instanceLocation":"","keywordLocation":"",'
      .. '"error":"not JSON: expected a JSON value (line 1, column 19)"}]}\n', out)
    assert.are.equal(1, code)
  end)

  it("refuses an instance that gives a key twice with two values: valid would judge one reading (hunt15)", function()
    -- the last value (EUR) is valid, the first (a number) is not: which one the instance means is a guess
    local out, _, code = H.coax({ "validate", schema }, '{"currency_code": 7,\n "currency_code": "EUR"}')
    assert.are.same({ '{"valid":false,"errors":[{"instanceLocation":"","keywordLocation":"",'
      .. '"error":"not JSON: a key given twice with two values: which one is meant is a guess (line 2, column 2)"}]}\n',
      1 }, { out, code })
    out, _, code = H.coax({ "validate", "--jsonl", "--output", "flag", schema },
      '{"currency_code":"EUR","amount":1,"amount":2}\n{"currency_code":"EUR","amount":1,"amount":1}\n')
    assert.are.same({ '{"valid":false}\n{"valid":true}\n', 1 }, { out, code })
    -- twin: a key given twice with one value is one reading, valid
    out, _, code = H.coax({ "validate", schema }, '{"currency_code":"EUR","currency_code":"EUR"}')
    assert.are.same({ '{"valid":true}\n', 0 }, { out, code })
    local coax = require "coax"
    local s = coax.schema(ORDER)
    assert.are.same({ nil, "a key given twice with two values: which one is meant is a guess at line 1, column 24",
      "COAX_ESYNTAX" }, { s:validate('{"currency_code":"EUR","currency_code":"USD"}', "json") })
    assert.is_true((s:validate('{"currency_code":"EUR","currency_code":"EUR"}', "json")))
  end)

  it("chooses the draft with --draft when the schema has no $schema", function()
    local s = H.tmpfile('{"$ref":"#/definitions/a","type":"string","definitions":{"a":{}}}')
    assert.are.equal(0, select(3, H.coax({ "validate", "--draft", "7", s }, "1")))
    assert.are.equal(1, select(3, H.coax({ "validate", s }, "1")))
    os.remove(s)
  end)

  it("resolves remote references from a folder, never the network", function()
    local s = H.tmpfile('{"$ref":"http://localhost:1234/integer.json"}')
    local out, _, code = H.coax({ "validate", "--remote-dir", "spec/json-schema-test-suite/remotes",
      "--remote-base", "http://localhost:1234/", s }, '"x"')
    assert.are.equal('{"valid":false,"errors":[{"instanceLocation":"","keywordLocation":"/$ref/type",'
      .. '"absoluteKeywordLocation":"http://localhost:1234/integer.json#/type",'
      .. '"error":"expected integer, got string \\"x\\""}]}\n', out)
    assert.are.equal(1, code)
    local _, err
    _, err, code = H.coax({ "validate", s }, '"x"')
    assert.are.equal("coax validate: schema " .. s
      .. ': unresolvable reference "http://localhost:1234/integer.json"\n', err)
    assert.are.equal(2, code)
    os.remove(s)
  end)

  describe("bad schemas and hostile input", function()
    local function with_schema(text, args, stdin)
      local s = H.tmpfile(text)
      local a = { "validate" }
      for _, x in ipairs(args or {}) do a[#a + 1] = x end
      a[#a + 1] = s
      local out, err, code = H.coax(a, stdin or "1")
      os.remove(s)
      return out, err:gsub(s:gsub("%p", "%%%0"), "S"), code
    end

    it("exits 2 with the location for a schema the meta-schema rejects", function()
      local out, err, code = with_schema('{"properties":{"a":{"type":"strin"}}}')
      assert.are.equal("", out)
      assert.are.equal('coax validate: schema S: invalid schema at "/properties/a/type": expected one of '
        .. '["array","boolean","integer","null","number","object","string"], got string "strin" '
        .. "(1 of 3 errors shown)\n", err)
      assert.are.equal(2, code)
    end)

    it("exits 2 for a schema that is not JSON, truncated or empty", function()
      for _, text in ipairs({ "garbage", '{"type":', "" }) do
        local out, err, code = with_schema(text)
        assert.are.equal("", out)
        assert.truthy(err:find("^coax validate: schema S is not JSON: "))
        assert.are.equal(2, code)
      end
    end)

    it("exits 2 for reference cycles and unresolvable references, never loops", function()
      local _, err, code = with_schema('{"$ref":"#"}')
      assert.are.equal('coax validate: schema S: invalid schema: reference cycle through "" '
        .. "that never consumes the instance\n", err)
      assert.are.equal(2, code)
      _, err, code = with_schema('{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},'
        .. '"$ref":"#/$defs/a"}')
      assert.are.equal('coax validate: schema S: invalid schema: reference cycle through "/$defs/a" '
        .. "that never consumes the instance\n", err)
      assert.are.equal(2, code)
      _, err, code = with_schema('{"$ref":"#/$defs/nothing"}')
      assert.are.equal('coax validate: schema S: unresolvable reference "#/$defs/nothing"\n', err)
      assert.are.equal(2, code)
    end)

    it("exits 4 for instances nested past the depth limit", function()
      local deep = string.rep("[", 600) .. string.rep("]", 600)
      local out, err, code = with_schema('{"items":{"$ref":"#"}}', nil, deep)
      assert.are.equal("", out)
      assert.are.equal("coax validate: nesting deeper than 512 (line 1, column 513)\n", err)
      assert.are.equal(4, code)
      deep = string.rep("[", 100) .. string.rep("]", 100)
      out, err, code = with_schema('{"items":{"$ref":"#"}}', { "--max-depth", "50" }, deep)
      assert.are.same({ "", "coax validate: nesting deeper than 50 (line 1, column 51)\n", 4 },
        { out, err, code })
      out, err, code = with_schema('{"items":{"$ref":"#"}}', nil, deep)
      assert.are.same({ '{"valid":true}\n', "", 0 }, { out, err, code })
    end)

    it("exits 4 when a regular expression runs past its step limit", function()
      local out, err, code = with_schema('{"pattern":"^(a+)+$"}', nil, '"' .. string.rep("a", 40) .. 'b"')
      assert.are.equal("", out)
      assert.are.equal("coax validate: a regular expression exceeded its step limit of 1000000 steps "
        .. "(max_regex_steps)\n", err)
      assert.are.equal(4, code)
    end)

    it("ends a catastrophic pattern on a long hostile string with exit 4, never a hang", function()
      local out, err, code = with_schema('{"pattern":"^(a+)+$"}', nil, '"' .. string.rep("a", 100000) .. 'b"')
      assert.are.equal("", out)
      assert.are.equal("coax validate: a regular expression exceeded its step limit of 1000000 steps "
        .. "(max_regex_steps)\n", err)
      assert.are.equal(4, code)
      out, err, code = with_schema('{"pattern":"^(a+)+$"}', { "--max-regex-steps", "100" }, '"aaaaaaaaab"')
      assert.are.same({ "", "coax validate: a regular expression exceeded its step limit of 100 steps "
        .. "(max_regex_steps)\n", 4 }, { out, err, code })
    end)

    it("exits 2 for a pattern ECMA-262 rejects and for one PCRE2 cannot run", function()
      local out, err, code = with_schema('{"pattern":"(?i)abc"}')
      assert.are.equal("", out)
      assert.are.equal('coax validate: schema S: invalid schema at "/pattern": not an ECMA-262 regular expression: '
        .. "invalid group: (? must be followed by :, =, !, <=, <! or <name> at offset 2\n", err)
      assert.are.equal(2, code)
      out, err, code = with_schema('{"pattern":"(?<=a+)b"}')
      assert.are.equal("", out)
      assert.are.equal('coax validate: schema S: invalid schema at "/pattern": unsupported pattern: valid ECMA-262, '
        .. "but PCRE2 cannot run it (lookbehind assertion is not fixed length)\n", err)
      assert.are.equal(2, code)
    end)

    it("asserts formats with --assert-format and annotates them by default in 2020-12", function()
      local s = '{"properties":{"when":{"format":"date-time"},"mail":{"format":"email"}}}'
      local bad = '{"when":"2024-13-01T00:00:00Z","mail":"nobody"}'
      local out, _, code = with_schema(s, nil, bad)
      assert.are.equal('{"valid":true}\n', out)
      assert.are.equal(0, code)
      local invalid = '{"valid":false,"errors":['
        .. '{"instanceLocation":"/when","keywordLocation":"/properties/when/format",'
        .. '"error":"expected an RFC 3339 date-time (format \\"date-time\\"), got \\"2024-13-01T00:00:00Z\\""},'
        .. '{"instanceLocation":"/mail","keywordLocation":"/properties/mail/format",'
        .. '"error":"expected an e-mail address (format \\"email\\"), got \\"nobody\\""}]}\n'
      out, _, code = with_schema(s, { "--assert-format" }, bad)
      assert.are.equal(invalid, out)
      assert.are.equal(1, code)
      out, _, code = with_schema(s, { "--draft", "7" }, bad)
      assert.are.same({ invalid, 1 }, { out, code })
      out, _, code = with_schema(s, { "--draft", "7", "--annotate-format" }, bad)
      assert.are.same({ '{"valid":true}\n', 0 }, { out, code })
    end)

    it("refuses a bad --max-regex-steps", function()
      local _, err, code = with_schema("{}", { "--max-regex-steps", "0" })
      assert.are.equal("coax validate: --max-regex-steps wants a positive integer, not '0'\n", err)
      assert.are.equal(2, code)
    end)

    it("exits 4 for schemas nested past the depth limit, as every command does", function()
      local deep = string.rep('{"not":', 600) .. "{}" .. string.rep("}", 600)
      local out, err, code = with_schema(deep)
      assert.are.equal("", out)
      assert.are.equal("coax validate: schema S: nesting deeper than 512 (line 1, column 3585)\n", err)
      assert.are.equal(4, code)
    end)

    it("validates a huge instance, reporting every error", function()
      local parts = {}
      for i = 1, 20000 do parts[i] = (i % 2 == 0) and '"x"' or tostring(i) end
      local out, _, code = with_schema('{"items":{"type":"integer"}}', nil, "[" .. table.concat(parts, ",") .. "]")
      local n = select(2, out:gsub('"error":', ""))
      assert.are.equal(10000, n)
      assert.are.equal(1, code)
    end)

    it("exits 2 for bad options", function()
      local _, err, code = H.coax({ "validate", "--output", "verbose", "x.json" })
      assert.are.equal("coax validate: --output wants flag, basic or detailed, not 'verbose'\n", err)
      assert.are.equal(2, code)
      _, err, code = H.coax({ "validate", "--draft", "3", "x.json" })
      assert.are.equal("coax validate: --draft wants 2020-12, 2019-09, 7, 6 or 4, not '3'\n", err)
      assert.are.equal(2, code)
      _, err, code = H.coax({ "validate" })
      assert.are.equal("coax validate: missing SCHEMA (try --help)\n", err)
      assert.are.equal(2, code)
      _, _, code = H.coax({ "validate", "/nonexistent/schema.json" })
      assert.are.equal(2, code)
    end)
  end)

  it("a step budget ends a validation at the same step whatever the hash seed of the compiled enum", function()
    -- each run compiles the schema anew, with a new seed for the enum's table; the lookups
    -- are charged one step each, not one a probe, so the budget's edge does not move
    local values = {}
    for i = 0, 1999 do values[#values + 1] = ('"v%d"'):format(i) end
    local s = H.tmpfile('{"type":"array","items":{"enum":[' .. table.concat(values, ",") .. ']}}')
    local items = {}
    for i = 0, 299 do items[#items + 1] = ('"v%d"'):format(i * 7 % 2000) end
    for i = 0, 299 do items[#items + 1] = ('"nope%d"'):format(i) end
    local inst = "[" .. table.concat(items, ",") .. "]"
    local function code(steps)
      local _, _, c = H.coax({ "validate", "--output", "flag", "--max-steps", tostring(steps), s }, inst)
      return c
    end
    local lo, hi = 1, 100000 -- code(lo) == 4 (over budget), code(hi) == 1 (ran to its end: invalid)
    while hi - lo > 1 do
      local mid = (lo + hi) // 2
      if code(mid) == 4 then lo = mid else hi = mid end
    end
    assert.are.equal(1207, hi)
    for _ = 1, 12 do
      assert.are.equal(4, code(lo))
      assert.are.equal(1, code(hi))
    end
    os.remove(s)
  end)
end)
