local H = require "helper"
local coax = require "coax"
local json = coax.json
local fixture = dofile("spec/fixtures/extract_cases.lua")

describe("coax.extract", function()
  describe("on realistic replies, scored by exact value", function()
    for _, c in ipairs(fixture.cases) do
      local name, schema, reply, want = c[1], fixture.schemas[c[2]], c[3], c[4]
      it(name, function()
        local r, msg, code = coax.extract(reply, schema)
        if c.fail then
          -- No value may come back: no JSON at all, or the best candidate is invalid.
          if r == nil then
            assert.are.equal("COAX_ENOJSON", code, msg)
          else
            assert.is_false(r.valid, "returned " .. json.encode(r.value))
            assert.is_true(#r.errors > 0)
          end
        else
          assert(r, msg)
          assert.is_true(r.valid, r.errors[1] and (r.errors[1].instanceLocation .. ": " .. r.errors[1].error))
          assert.are.equal(want, json.encode(r.value))
        end
      end)
    end
  end)

  it("logs every coercion with its JSON Pointer, beside the repairs", function()
    -- note: 1 beside the absent tax_rate may be that one renamed (lefts52): a list no absent property takes
    local r = coax.extract(
      "{invoice_id: 'INV-7', total: '1250', currency: 'usd', tags: 'x', note: [1]}",
      fixture.schemas.invoice)
    assert.is_true(r.valid)
    local got = {}
    for i, c in ipairs(r.coercions) do got[i] = c.kind .. " " .. c.pointer end
    assert.are.same({ "default_filled /status", "string_to_integer /total", "enum_match /currency",
      "wrap_in_array /tags", "property_dropped /note" }, got)
    assert.are.equal("unquoted_key", r.log[1].kind)
    assert.are.equal('{"invoice_id":"INV-7","total":1250,"currency":"USD","tags":["x"],"status":"open"}',
      json.encode(r.value))
  end)

  -- A model that echoes its format writes placeholders in quotes: valid
  -- strings, not an answer. The error is at the placeholder.
  it("refuses a value holding a placeholder, at its place", function()
    local schema = '{"type":"object","properties":{"name":{"type":"string"},"tags":{"type":"array"}}}'
    local function refused(reply, location, shown)
      local r = coax.extract(reply, schema)
      assert.are.same({ false, location, ('a placeholder where a value was due ("%s"): send the value itself'):format(
        shown) }, { r.valid, r.errors[1].instanceLocation, r.errors[1].error })
    end
    refused('{"name": "<name>"}', "/name", "<name>")
    refused('{"name": "Ada", "tags": ["x", "..."]}', "/tags/1", "...")
    refused('{"name": "[Insert name here]"}', "/name", "[Insert name here]")
    refused('{"name": "{{ name }}"}', "/name", "{{ name }}")
    refused('{"a/b": {"c~d": "<your answer>"}}', "/a~1b/c~0d", "<your answer>")
    -- an item named by its list's key in the singular, a type's name, a format's mask
    refused('{"name": "Ada", "tags": ["x", "<tag>"]}', "/tags/1", "<tag>")
    refused('{"name": "<string>"}', "/name", "<string>")
    refused('{"name": "[number]"}', "/name", "[number]")
    refused('{"name": "YYYY-MM-DD"}', "/name", "YYYY-MM-DD")
    refused('{"name": "XXX-XXX-XXXX"}', "/name", "XXX-XXX-XXXX")
    refused('{"name": "Ada", "tags": ["YYYY-MM-DDTHH:MM"]}', "/tags/0", "YYYY-MM-DDTHH:MM")
    -- twins: a tag, markup, a trailing ellipsis, another member's name, brackets with other text
    for _, v in ipairs { "<div>", "<b>Ada</b>", "Ada...", "<tags>", "[a-z]", "{x: 1}", "(none)", "$5", "XXL", "Dyms",
      "MM", "Hyde-Smith", "2024-01-02" } do
      local r = coax.extract(json.encode({ name = v }), schema)
      assert.are.same({ true, v }, { r.valid, r.value.name })
    end
    -- the format, then the answer: the answer, not two answers
    local r = coax.extract('Format: {"name": "<name>"}\nAnswer: {"name": "Ada"}', schema)
    assert.are.same({ true, "Ada" }, { r.valid, r.value.name })
  end)

  -- A string an enum or const names is an answer at that enum's place only: "???" for a plain string
  -- was accepted because another property's enum held it (named.jsonl holds the class). One validation of
  -- a copy with such strings made a value no enum names tells which keyword let each pass at its place.
  it("refuses a placeholder that an enum names elsewhere, and keeps it where that enum is", function()
    local schema = [[{"type":"object","properties":{"status":{"enum":["open","???"]},"owner":{"type":"string"},
      "team":{"type":"array","items":{"type":"object","properties":{"role":{"$ref":"#/$defs/role"},
      "name":{"type":"string"}}}}},"$defs":{"role":{"anyOf":[{"const":"<your name>"},{"type":"integer"}]}}}]]
    local function outcome(reply)
      local r = coax.extract(reply, schema)
      return r.valid and { true } or { false, r.errors[1].instanceLocation, r.errors[1].error }
    end
    local function refusal(at, shown)
      return { false, at, ('a placeholder where a value was due ("%s"): send the value itself'):format(shown) }
    end
    assert.are.same(refusal("/owner", "???"), outcome('{"status": "open", "owner": "???"}'))
    assert.are.same(refusal("/team/1/name", "<your name>"),
      outcome('{"status": "???", "team": [{"role": "<your name>"}, {"role": 2, "name": "<your name>"}]}'))
    assert.are.same({ true }, outcome('{"status": "???", "owner": "Ann", "team": [{"role": "<your name>"}]}'))
  end)

  -- an enum in a union's branch names the string only when that branch fails in the probe at the
  -- string's place alone: a branch failing at another member let "???" through by its plain-string
  -- sibling (review43)
  it("refuses a placeholder that an enum names only in a union branch that fails elsewhere", function()
    local schema = [[{"anyOf":[{"type":"object","properties":{"a":{"enum":["???"]},"b":{"const":1},
      "c":{"enum":["<your name>"]}},"required":["a","b"]},{"type":"object","properties":{"a":{"type":"string"},
      "b":{"type":"integer"},"c":{"type":"string"}}}]}]]
    local function outcome(reply)
      local r = coax.extract(reply, schema)
      return r.valid and { true, r.value.a } or { false, r.errors[1].instanceLocation, r.errors[1].error }
    end
    local refusal = { false, "/a", 'a placeholder where a value was due ("???"): send the value itself' }
    assert.are.same(refusal, outcome('{"a": "???", "b": 2}'))
    assert.are.same(refusal, outcome('{"a": "???", "b": 2, "c": "Ann"}'))
    assert.are.same({ true, "???" }, outcome('{"a": "???", "b": 1}'))
    -- two named strings under one branch: each branch fails at two places, taken as not named
    assert.are.same(refusal, outcome('{"a": "???", "b": 1, "c": "<your name>"}'))
  end)

  -- a union in a list's items applies at each item: its branch's errors are told apart by the item
  it("keeps placeholders a union's branch names in each item of a list, in linear work", function()
    local schema = [[{"type":"array","items":{"$ref":"#/$defs/row"},"$defs":{"row":{"anyOf":[{"type":"object",
      "properties":{"s":{"enum":["???"]},"b":{"const":1}},"required":["b"]},{"type":"object",
      "properties":{"s":{"type":"string"}}}]}}}]]
    local r = coax.extract('[{"s": "???", "b": 1}, {"s": "???", "b": 1}]', schema)
    assert.are.same({ true, "???" }, { r.valid, r.value[2].s })
    r = coax.extract('[{"s": "???", "b": 1}, {"s": "???", "b": 2}]', schema)
    assert.are.same({ false, "/1/s" }, { r.valid, r.errors[1].instanceLocation })
    local last
    local ratio = H.scaling_ratio(function(n)
      local t = {}
      for i = 1, n do t[i] = '{"s": "???", "b": 1}' end
      last = n
      r = coax.extract("[" .. table.concat(t, ",") .. ',{"s": "???", "b": 2}]', schema)
    end, 1000, 8)
    assert.are.same({ false, ("/%d/s"):format(last) }, { r.valid, r.errors[1].instanceLocation })
    assert.is_true(ratio < 20, ("ratio %.1f"):format(ratio))
  end)

  -- a place under a key holding NUL has no errors the probe can tell (an error's place is a C string):
  -- it was taken as named, so the reply's key let "???" through (review43)
  it("refuses a placeholder under a key holding NUL that an enum names elsewhere", function()
    local schema = '{"type":"object","properties":{"status":{"enum":["open","???"]}},'
      .. '"additionalProperties":{"type":"string"}}'
    local r = coax.extract('{"status": "open", "note\\u0000": "???"}', schema)
    assert.are.same({ false, "/note", 'a placeholder where a value was due ("???"): send the value itself' },
      { r.valid, r.errors[1].instanceLocation, r.errors[1].error })
  end)

  -- each place's enum is looked up by its index: a scan of it was n places by n names (8x: 37x the work)
  it("reads 1,000 and 8,000 named placeholders under enums of 1,000 and 8,000 in 8 times the work", function()
    local r, last
    local ratio = H.scaling_ratio(function(n)
      local names, t = {}, {}
      for i = 1, n do names[i] = ('"<name %d>"'):format(i) end
      for i = 1, n do t[i] = ('{"k": "<name %d>", "n": "x"}'):format(n - i % 10) end
      last = n
      local schema = ('{"type":"array","items":{"type":"object","properties":{"k":{"enum":[%s]},'
        .. '"n":{"type":"string"}}}}'):format(table.concat(names, ","))
      r = coax.extract("[" .. table.concat(t, ",") .. ',{"k": "<name 1>", "n": "<name 1>"}]', schema)
    end, 1000, 8)
    assert.are.same({ false, ("/%d/n"):format(last) }, { r.valid, r.errors[1].instanceLocation })
    assert.is_true(ratio < 20, ("ratio %.1f"):format(ratio))
  end)

  it("says a reply with no JSON and no scalar the schema takes holds no JSON (not that a tag said so)", function()
    local r, msg, code = coax.extract("Yes", '{"type":"boolean"}')
    assert.are.same({ nil, "no JSON value found in 3 bytes of text", "COAX_ENOJSON" }, { r, msg, code })
    r, msg, code = coax.extract("<example>{}</example>", '{"type":"boolean"}')
    assert.are.same({ nil, "COAX_ENOJSON" }, { r, code })
    assert.are.equal("the only JSON is in a block whose tag says it holds no answer", msg:sub(1, 61))
  end)

  -- A span of prose a label ("Example:", "Wrong answer:") or a comment
  -- (<!--, /*, //) marks as no answer is no candidate, as <example> is not.
  it("takes no span a label or a comment before it marks as no answer", function()
    local schema = '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}'
    for _, reply in ipairs { 'Example: {"name": "Bob"}', 'Wrong answers: {"name": "Bob"}',
      '**Sample:** {"name": "Bob"}', '<!-- {"name": "Bob"} -->', '/* {"name": "Bob"} */', '  // {"name": "Bob"}' } do
      local r, msg, code = coax.extract(reply, schema)
      assert.are.same({ nil, "COAX_ENOJSON" }, { r, code }, reply)
      assert.are.equal("the only JSON is marked as no answer by a label or a comment before it or a remark after it"
        .. " (Example:, <!--, (example)), at "
        .. "line 1, column " .. (reply:find("{", 1, true)) .. ": send the answer itself", msg)
    end
    -- a label that is the whole line above, past blank lines and a fence's opening
    for reply, line in pairs { ['Example:\n{"name": "Bob"}'] = 2, ['**Wrong answer:**\n\n{"name": "Bob"}'] = 3,
      ['Sample output:\n```json\n{"name": "Bob"}\n```'] = 3, ['User input:\n{"name": "Bob"}'] = 2 } do
      local r, msg, code = coax.extract(reply, schema)
      assert.are.same({ nil, "COAX_ENOJSON" }, { r, code }, reply)
      assert.are.equal("the only JSON is marked as no answer by a label or a comment before it or a remark after it"
        .. " (Example:, <!--, (example)), at "
        .. "line " .. line .. ", column 1: send the answer itself", msg)
    end
    for reply, want in pairs {
      ['Incorrect: {"name": "Bob"}\nCorrect: {"name": "Ada"}'] = "Ada",
      ['<!-- {"name": "Bob"} -->\n{"name": "Ada"}'] = "Ada",
      ['For your input: {"name": "Ada"}'] = "Ada",
      ['An example helps. Answer: {"name": "Ada"}'] = "Ada",
      ['Answer:\n```json\n{"name": "Ada"}\n```'] = "Ada",
      ['Example:\n```json\n{"name": "Bob"}\n```\nFor your input: {"name": "Ada"}'] = "Ada",
      ['Wrong: {"name": "Bob"}\nCorrected answer:\n{"name": "Ada"}'] = "Ada",
      ['Input: {"name": "Bob"}\nOutput: {"name": "Ada"}'] = "Ada",
      ['For your input:\n{"name": "Ada"}'] = "Ada",
    } do
      local r = coax.extract(reply, schema)
      assert.are.same({ true, want }, { r.valid, r.value.name }, reply)
    end
    -- a draft named is no answer, alone too (hunt16.jsonl): refused where it stands
    local r = coax.extract('Draft: {"name": "Ada"}', schema)
    assert.are.same({ false, 1, "the reply's JSON at line 1, column 8 sits in a sentence that marks it as no answer, "
      .. "at line 1, column 1 (For example, Suppose, Instead of, Not, Probably): send the answer alone" },
      { r.valid, #r.errors, r.errors[1].error })
  end)

  it("coerces nothing in strict mode", function()
    local r = coax.extract('{"invoice_id":"INV-7","total":"1250","currency":"USD","status":"open"}',
      fixture.schemas.invoice, { strict = true })
    assert.is_false(r.valid)
    assert.are.same({}, r.coercions)
    assert.are.equal("/total", r.errors[1].instanceLocation)
  end)

  it("puts no values one after the other each in a list: one list of them all is another reading", function()
    local lists = '{"type":"array","items":{"type":"array"}}'
    local r = coax.extract("1\n2\n3", lists)
    assert.are.same({ false, "/0", "values one after the other, each put in a list of its own: one list of them all "
      .. "is another reading; send one JSON value" }, { r.valid, r.errors[1].instanceLocation, r.errors[1].error })
    assert.is_false(coax.extract('{"a": 1}\n{"b": 2}', lists).valid)
    -- twins: lists one after the other, objects for a list of objects
    assert.are.equal("[[1,2],[3,4]]", coax.json.encode(coax.extract("[1, 2]\n[3, 4]", lists).value))
    assert.are.equal('[{"a":1},{"a":2}]', coax.json.encode(coax.extract('{"a": 1}\n{"a": 2}',
      '{"type":"array","items":{"type":"object"}}').value))
  end)

  -- "cut off" only where the provider said so: a model that stopped with
  -- its JSON open, or a reply whose finish nobody gave, is told the JSON is
  -- incomplete, not that its reply was cut
  it("says the JSON is incomplete, and that the reply was cut off only when the provider said so", function()
    local reply = '{"invoice_id":"INV-7","total":1250,"currency":"USD","status":"op'
    local incomplete = "the JSON is incomplete: the reply ends inside it"
    local cut = "the reply was cut off: the JSON is incomplete"
    for _, c in ipairs({ { nil, incomplete }, { "stop", incomplete }, { "length", cut } }) do
      local r = coax.extract(reply, fixture.schemas.invoice, { finish = c[1] })
      assert.is_false(r.valid)
      assert.are.equal(c[2], r.errors[1].error, c[1])
      assert.are.equal("", r.errors[1].instanceLocation)
    end
  end)

  it("takes a schema compiled once (coax.schema) and gives what the table gives, on every case", function()
    local compiled = {}
    for name, schema in pairs(fixture.schemas) do compiled[name] = assert(coax.schema(schema)) end
    for _, c in ipairs(fixture.cases) do
      local a, amsg, acode = coax.extract(c[3], fixture.schemas[c[2]])
      local b, bmsg, bcode = coax.extract(c[3], compiled[c[2]])
      assert.are.same({ a, amsg, acode }, { b, bmsg, bcode }, c[1])
    end
    -- the compiled schema stays the caller's: it validates after many calls
    local invoice = json.decode('{"invoice_id":"INV-7","total":1,"currency":"USD","status":"open"}')
    assert.is_true(compiled.invoice:validate(invoice))
  end)

  it("refuses a draft for a compiled schema, and a schema already freed", function()
    local s = assert(coax.schema(fixture.schemas.invoice))
    local ok, err = pcall(coax.extract, "{}", s, { draft = "7" })
    assert.is_false(ok)
    assert.matches("draft applies to a schema compiled here, not a coax.schema", err)
    getmetatable(s).__close(s) -- as a to-be-closed variable's end does
    ok, err = pcall(coax.extract, "{}", s)
    assert.is_false(ok)
    assert.matches("schema already freed", err)
    ok, err = pcall(coax.extract, "{}", io.stdout)
    assert.is_false(ok)
    assert.matches("bad argument #2", err)
  end)

  it("rejects an invalid schema with a clear error", function()
    assert.has_error(function() coax.extract("{}", '{"type": 12}') end)
    assert.has_error(function() coax.extract("{}", "{not json") end)
  end)

  it("survives garbage, truncation and deep nesting", function()
    local schema = fixture.schemas.people
    for b = 0, 255 do coax.extract(string.char(b), schema) end
    local reply = '[{"name":"Ada","score":"9.5"},{"name":"Bob","score":7}]'
    for i = 0, #reply do coax.extract(reply:sub(1, i), schema) end
    local r, _, code = coax.extract(string.rep("[", 100000), schema)
    assert.is_nil(r)
    assert.are.equal("COAX_EDEPTH", code)
  end)

  assert(H)
end)

describe("coax extract (command)", function()
  local schema_path

  setup(function() schema_path = H.tmpfile(fixture.schemas.invoice) end)
  teardown(function() os.remove(schema_path) end)

  it("prints the value, exit 0", function()
    local out, err, code = H.coax({ "extract", "--schema", schema_path },
      'Sure:\n```json\n{"invoice_id":"INV-7","total":"1250","currency":"usd"}\n```')
    assert.are.equal('{"invoice_id":"INV-7","total":1250,"currency":"USD","status":"open"}\n', out)
    assert.are.equal("", err)
    assert.are.equal(0, code)
  end)

  it("exits 1 with a one-line reason, and basic output on request", function()
    local reply = '{"invoice_id":"INV-7","total":"twelve","currency":"USD","status":"open"}'
    local out, err, code = H.coax({ "extract", "--schema", schema_path }, reply)
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.matches("^coax extract: no valid value: at '/total': .+ %(1 error%)\n$", err)
    out, err, code = H.coax({ "extract", "--schema", schema_path, "--output", "basic" }, reply)
    assert.are.equal(1, code)
    assert.are.equal("coax extract: no valid value: at '/total': expected integer, got string \"twelve\" (1 error)\n",
      err)
    local v = json.decode(out)
    assert.is_false(v.valid)
    assert.are.equal("/total", v.errors[1].instanceLocation)
    assert.are.equal("/properties/total/type", v.errors[1].keywordLocation)
  end)

  it("reports no JSON as one error at the root", function()
    local out, err, code = H.coax({ "extract", "--schema", schema_path, "--output", "basic" }, "Sorry, no.")
    assert.are.equal(1, code)
    assert.are.equal('{"valid":false,"errors":[{"instanceLocation":"","keywordLocation":"",'
      .. '"error":"no JSON value found in 10 bytes of text"}]}\n', out)
    assert.are.equal("coax extract: no JSON value found in 10 bytes of text\n", err)
  end)

  it("writes repairs and coercions to stderr with --log", function()
    local _, err = H.coax({ "extract", "--schema", schema_path, "--log" },
      '{invoice_id: "INV-7", "total": "1250", "currency": "USD"}')
    assert.are.equal(table.concat({
      '{"kind":"unquoted_key","offset":1,"line":1,"column":2,"detail":"quoted an unquoted key","class":"inferred"}',
      '{"kind":"default_filled","pointer":"/status",'
        .. '"detail":"filled a missing required property from its schema default","class":"inferred"}',
      '{"kind":"string_to_integer","pointer":"/total",'
        .. '"detail":"converted the value to the type the schema asks for","class":"inferred"}',
    }, "\n") .. "\n", err)
  end)

  it("keeps coercion off with --strict", function()
    local _, _, code = H.coax({ "extract", "--schema", schema_path, "--strict" },
      '{"invoice_id":"INV-7","total":"1250","currency":"USD","status":"open"}')
    assert.are.equal(1, code)
  end)

  it("writes one line per input line with --jsonl", function()
    local input = table.concat({
      json.encode('{"invoice_id":"A","total":"5","currency":"EUR"}'),
      json.encode("nothing here"),
      json.encode('{"invoice_id":"B","total":"lots","currency":"EUR","status":"open"}'),
    }, "\n") .. "\n"
    local out, _, code = H.coax({ "extract", "--schema", schema_path, "--jsonl" }, input)
    assert.are.equal(1, code) -- some lines failed; every line has its answer
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.are.equal(3, #lines)
    assert.are.equal('{"value":{"invoice_id":"A","total":5,"currency":"EUR","status":"open"},"class":"inferred"}',
      lines[1])
    assert.are.equal('{"valid":false,"errors":[{"instanceLocation":"","keywordLocation":"",'
      .. '"error":"no JSON value found in 12 bytes of text"}]}', lines[2])
    assert.are.equal("/total", json.decode(lines[3]).errors[1].instanceLocation)
  end)

  it("exits 2 for usage errors and invalid schemas", function()
    local _, err, code = H.coax({ "extract" }, "{}")
    assert.are.equal(2, code)
    assert.are.equal("coax extract: --schema SCHEMA is required (try --help)\n", err)
    local bad = H.tmpfile('{"type": 12}')
    _, _, code = H.coax({ "extract", "--schema", bad }, "{}")
    assert.are.equal(2, code)
    os.remove(bad)
    _, _, code = H.coax({ "extract", "--schema", "/nonexistent.json" }, "{}")
    assert.are.equal(2, code)
  end)
end)
