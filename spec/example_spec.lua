local H = require "helper"
local coax = require "coax"
local json = coax.json

--- Every schema file under schemas/, sorted.
local function schema_files()
  local files = {}
  local p = assert(io.popen("find schemas -name '*.json' | sort"))
  for line in p:lines() do files[#files + 1] = line end
  p:close()
  return files
end

--- Validates JSON text against a schema file with the validator.
local function validates(schema_text, instance_text)
  local s = assert(coax.schema(schema_text))
  return s:validate(instance_text, "json")
end

--- coax example on a schema given as text: stdout without the newline.
local function example(schema_text, ...)
  local path = H.tmpfile(schema_text)
  local args = { "example", ... }
  args[#args + 1] = path
  local out, err, code = H.coax(args)
  os.remove(path)
  return out:gsub("\n$", ""), err, code
end

describe("coax example (command)", function()
  describe("every schema in schemas/", function()
    for _, path in ipairs(schema_files()) do
      if path:find("draft%-03") then
        it("refuses " .. path .. ": draft 3 is not a draft coax implements (exit 2)", function()
          local out, err, code = H.coax({ "example", path })
          assert.are.equal("", out)
          assert.truthy(err:find("unsupported draft", 1, true))
          assert.are.equal(2, code)
        end)
      else
        it("prints an instance of " .. path .. " that validates, in full and minimal", function()
          local text = H.read(path)
          for _, minimal in ipairs({ false, true }) do
            local out, err, code = H.coax(minimal and { "example", "--minimal", path } or { "example", path })
            assert.are.equal("", err)
            assert.are.equal(0, code)
            assert.are.equal(true, validates(text, out))
          end
        end)
      end
    end
  end)

  describe("realistic extraction schemas: exact examples", function()
    local cases = {
      ["schemas/invoice.schema.json"] = {
        full = '{"invoice_number":"INV-0000","issue_date":"2024-01-15","due_date":"2024-01-15",'
          .. '"vendor":"string","vendor_email":"user@example.com","billing_address":{"street":"string",'
          .. '"city":"string","postal_code":"00000","country":"US"},"currency":"USD","items":[{"description":'
          .. '"string","quantity":1,"unit_price":1,"tax_rate":0}],"total":1,"paid":false,"notes":"string"}',
        minimal = '{"invoice_number":"INV-0000","issue_date":"2024-01-15","vendor":"string",'
          .. '"billing_address":{"street":"string","city":"string","postal_code":"00000"},'
          .. '"items":[{"description":"string","quantity":1,"unit_price":1}],"total":1}',
      },
      ["schemas/contact.schema.json"] = {
        full = '{"full_name":"Ada Lovelace","email":"user@example.com","phones":[{"kind":"mobile",'
          .. '"number":"+10000000"}],"company":"string","job_title":"string","website":"https://example.com/",'
          .. '"tags":["customer","supplier"],"preferred_contact":"email","last_contacted":"2024-01-15T09:30:00Z"}',
        minimal = '{"full_name":"Ada Lovelace","email":"user@example.com"}',
      },
      ["schemas/product.schema.json"] = {
        full = '{"id":"123e4567-e89b-12d3-a456-426614174000","name":"string","categories":["string"],'
          .. '"url":"https://example.com/","released":"2024-01-15","rating":1,"variants":[{"sku":"AA-000",'
          .. '"options":[{"name":"size","values":["string"]}],"price":{"amount":1,"currency":"AAA"},"stock":1}],'
          .. '"dimensions_cm":[1,1,1],"status":"active"}',
        minimal = '{"id":"123e4567-e89b-12d3-a456-426614174000","name":"string","variants":[{"sku":"AA-000",'
          .. '"price":{"amount":1,"currency":"AAA"}}],"status":"active"}',
      },
      ["schemas/meeting.schema.json"] = {
        full = '{"subject":"string","start":"2024-01-15T09:30:00Z","duration":"P1D","mode":"online",'
          .. '"link":"https://example.com/","room":"string","attendees":["user@example.com",'
          .. '"user1@example.com"],"priority":3}',
        minimal = '{"subject":"string","start":"2024-01-15T09:30:00Z","mode":"online",'
          .. '"link":"https://example.com/","attendees":["user@example.com","user1@example.com"]}',
      },
    }
    for _, path in ipairs({ "schemas/invoice.schema.json", "schemas/contact.schema.json",
      "schemas/product.schema.json", "schemas/meeting.schema.json" }) do
      it("gives " .. path .. " its one example, full and --minimal", function()
        assert.are.equal(cases[path].full .. "\n", (H.coax({ "example", path })))
        assert.are.equal(cases[path].minimal .. "\n", (H.coax({ "example", "--minimal", path })))
      end)
    end

    it("follows Pydantic's $defs/$ref, takes defaults and the non-null branch of Optional fields", function()
      local v = json.decode((H.coax({ "example", "schemas/invoice.schema.json" })))
      assert.are.equal("US", v.billing_address.country)     -- "default": "US"
      assert.are.equal("USD", v.currency)                   -- $ref to an enum, with a default
      assert.are.equal("2024-01-15", v.due_date)            -- anyOf [date, null]: the date
      assert.are.equal("INV-0000", v.invoice_number)        -- pattern ^INV-\d{4,}$
    end)

    it("pretty-prints with --pretty", function()
      local out, _, code = example('{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}',
        "--pretty")
      assert.are.equal('{\n  "a": 1\n}', out)
      assert.are.equal(0, code)
    end)

    it("reads the schema from standard input for - and for no argument", function()
      assert.are.equal("18\n", (H.coax({ "example", "-" }, '{"type":"integer","minimum":18}')))
      assert.are.equal("18\n", (H.coax({ "example" }, '{"type":"integer","minimum":18}')))
    end)
  end)

  describe("keywords", function()
    local cases = {
      { "examples first", '{"type":"string","examples":["Ada"],"default":"x"}', '"Ada"' },
      { "default", '{"type":"integer","default":42}', "42" },
      { "const", '{"const":{"a":[1,2]}}', '{"a":[1,2]}' },
      { "the first enum value that fits", '{"enum":[1,"a",null],"type":"string"}', '"a"' },
      { "a lower bound", '{"type":"integer","minimum":18}', "18" },
      { "1 inside wide bounds", '{"type":"number","minimum":-5,"maximum":5}', "1" },
      { "an upper bound below 1", '{"type":"integer","maximum":-3}', "-3" },
      { "exclusive bounds", '{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":3}', "2" },
      { "draft 4 exclusive bounds", '{"$schema":"http://json-schema.org/draft-04/schema#",'
        .. '"type":"integer","minimum":1,"exclusiveMinimum":true}', "2" },
      { "a fraction between bounds", '{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}', "0.5" },
      { "a decimal multipleOf", '{"type":"number","multipleOf":0.25,"minimum":2.1}', "2.25" },
      { "two multipleOf", '{"allOf":[{"multipleOf":4},{"multipleOf":6}],"type":"integer"}', "12" },
      { "a negative multiple", '{"type":"integer","multipleOf":4,"maximum":-3}', "-4" },
      { "a huge bound", '{"type":"number","minimum":1e308}', "1e308" },
      { "minLength", '{"type":"string","minLength":10}', '"stringxxxx"' },
      { "maxLength", '{"type":"string","maxLength":3}', '"aaa"' },
      { "a pattern", '{"type":"string","pattern":"^[A-Z]{3}-\\\\d{4}$"}', '"AAA-0000"' },
      { "a pattern grown to minLength", '{"type":"string","pattern":"^(foo|bar)+\\\\.(com|org)$","minLength":12}',
        '"foofoofoo.com"' },
      { "an unanchored pattern with classes", '{"type":"string","pattern":"[^a-z]\\\\w\\\\s?[0-9a-f]"}', '"0a0"' },
      { "date", '{"type":"string","format":"date"}', '"2024-01-15"' },
      { "date-time", '{"type":"string","format":"date-time"}', '"2024-01-15T09:30:00Z"' },
      { "time", '{"type":"string","format":"time"}', '"09:30:00Z"' },
      { "email", '{"type":"string","format":"email"}', '"user@example.com"' },
      { "uuid", '{"type":"string","format":"uuid"}', '"123e4567-e89b-12d3-a456-426614174000"' },
      { "uri", '{"type":"string","format":"uri"}', '"https://example.com/"' },
      { "hostname", '{"type":"string","format":"hostname"}', '"example.com"' },
      { "ipv4", '{"type":"string","format":"ipv4"}', '"192.0.2.1"' },
      { "ipv6", '{"type":"string","format":"ipv6"}', '"2001:db8::1"' },
      { "duration", '{"type":"string","format":"duration"}', '"P1D"' },
      { "an untyped format", '{"format":"date"}', '"2024-01-15"' },
      { "one item for arrays", '{"type":"array","items":{"type":"boolean"}}', "[true]" },
      { "minItems", '{"type":"array","minItems":3,"items":{"type":"integer"}}', "[1,1,1]" },
      { "distinct items under uniqueItems", '{"type":"array","minItems":3,"uniqueItems":true,'
        .. '"items":{"type":"string","format":"email"}}',
        '["user@example.com","user1@example.com","user2@example.com"]' },
      { "distinct enum items", '{"type":"array","items":{"enum":[1,2,3]},"minItems":3,"uniqueItems":true}', "[1,2,3]" },
      { "prefixItems", '{"prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}', '[1,"string"]' },
      { "draft 7 tuple items", '{"$schema":"http://json-schema.org/draft-07/schema#",'
        .. '"items":[{"type":"null"},{"type":"boolean"}],"additionalItems":false}', "[null,true]" },
      { "contains with minContains", '{"type":"array","contains":{"const":"x"},"minContains":2}', '["x","x"]' },
      { "items and contains together", '{"type":"array","items":{"multipleOf":2},"contains":{"multipleOf":3}}',
        "[6]" },
      { "required properties without a schema", '{"required":["a","b"]}', '{"a":null,"b":null}' },
      { "allOf merged", '{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},'
        .. '{"properties":{"b":{"type":"integer","minimum":5}},"required":["b"]}]}', '{"a":"string","b":5}' },
      { "anyOf: the first branch", '{"anyOf":[{"type":"string","format":"date"},{"type":"null"}]}',
        '"2024-01-15"' },
      { "oneOf: a value only one branch takes", '{"oneOf":[{"type":"integer","minimum":0},'
        .. '{"type":"integer","maximum":10}]}', "-1" },
      { "not", '{"type":"string","not":{"const":"string"}}', '"string2"' },
      { "if/then", '{"type":"object","properties":{"kind":{"enum":["a","b"]}},"required":["kind"],'
        .. '"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["x"]},"else":{"required":["y"]}}',
        '{"kind":"a","x":null}' },
      { "else when then cannot hold", '{"if":{"type":"integer"},"then":false,"else":{"type":"string"}}',
        '"string"' },
      { "dependentRequired", '{"type":"object","properties":{"card":{"type":"string"}},'
        .. '"dependentRequired":{"card":["billing"]}}', '{"card":"string","billing":null}' },
      { "dependentSchemas", '{"type":"object","properties":{"card":{"type":"string"}},'
        .. '"dependentSchemas":{"card":{"properties":{"cvv":{"type":"string","pattern":"^[0-9]{3}$"}},'
        .. '"required":["cvv"]}}}', '{"card":"string","cvv":"000"}' },
      { "minProperties from patternProperties", '{"type":"object","patternProperties":'
        .. '{"^x-[a-z]+$":{"type":"integer"}},"minProperties":1,"additionalProperties":false}', '{"x-a":1}' },
      { "minProperties with propertyNames", '{"type":"object","propertyNames":{"pattern":"^[a-z]{3}$"},'
        .. '"minProperties":2}', '{"aaa":null,"bbb":null}' },
      { "maxProperties drops optional properties", '{"properties":{"a":{},"b":{},"c":{}},"required":["c"],'
        .. '"maxProperties":2}', '{"a":null,"c":null}' },
      { "a local $ref with escapes", '{"$defs":{"a/b":{"type":"integer","minimum":7}},"$ref":"#/$defs/a~1b"}',
        "7" },
      { "an $anchor", '{"$defs":{"x":{"$anchor":"pos","type":"integer","minimum":3}},"$ref":"#pos"}', "3" },
      { "draft 7 definitions", '{"$schema":"http://json-schema.org/draft-07/schema#","definitions":'
        .. '{"n":{"type":"string","format":"ipv4"}},"$ref":"#/definitions/n"}', '"192.0.2.1"' },
      { "true", "true", "null" },
      { "{}", "{}", "null" },
    }
    for _, c in ipairs(cases) do
      it("uses " .. c[1] .. ": " .. c[2], function()
        local out, err, code = example(c[2])
        assert.are.equal(c[3], out)
        assert.are.equal("", err)
        assert.are.equal(0, code)
        assert.are.equal(true, validates(c[2], out))
      end)
    end
  end)

  describe("recursive schemas", function()
    it("ends a tree with an empty subtree", function()
      local s = '{"type":"object","properties":{"v":{"type":"integer"},"children":{"type":"array",'
        .. '"items":{"$ref":"#"}}},"required":["v"]}'
      assert.are.equal('{"v":1,"children":[{"v":1}]}', (example(s)))
    end)

    it("ends a Pydantic-style recursive model whose children are required", function()
      local s = '{"$defs":{"Node":{"properties":{"name":{"type":"string"},"kids":{"items":'
        .. '{"$ref":"#/$defs/Node"},"type":"array"}},"required":["name","kids"],"type":"object"}},'
        .. '"$ref":"#/$defs/Node"}'
      assert.are.equal('{"name":"string","kids":[{"name":"string","kids":[]}]}', (example(s)))
    end)

    it("ends a linked list on the branch that does not recur", function()
      local s = '{"type":"object","required":["next"],"properties":{"next":{"anyOf":[{"$ref":"#"},'
        .. '{"type":"null"}]}}}'
      assert.are.equal('{"next":{"next":null}}', (example(s)))
    end)

    it("gives up on a cycle no instance ends (exit 1), quickly", function()
      local s = '{"$defs":{"a":{"type":"object","required":["b"],"properties":{"b":{"$ref":"#/$defs/a"}}}},'
        .. '"$ref":"#/$defs/a"}'
      local t0 = os.clock()
      local out, err, code = example(s)
      assert.are.equal("", out)
      assert.truthy(err:find("no valid instance found for this schema within the depth limit", 1, true))
      assert.are.equal(1, code)
      assert.truthy(os.clock() - t0 < 5)
      -- a huge --depth is refused, as the help says (the library caps it too:
      -- the C stack is never at the schema's mercy)
      out, err, code = example(s, "--depth", "1000000", "--steps", "100000")
      assert.are.same({ "", "coax example: --depth wants a number from 1 to 256, not '1000000'\n", 2 },
        { out, err, code })
      out, err, code = example(s, "--depth", "256", "--steps", "100000")
      assert.are.equal("", out)
      assert.truthy(err:find("depth limit", 1, true))
      assert.are.equal(1, code)
    end)

    it("a search cut short by --steps is a limit (exit 4), a depth cut stays an answer (exit 1)", function()
      -- 1000^3 items: the generator runs out of steps before any instance
      local s = '{"type":"array","minItems":1000,"items":{"type":"array","minItems":1000,'
        .. '"items":{"type":"array","minItems":1000}}}'
      local out, err, code = example(s)
      assert.are.same({ "", 4 }, { out, code })
      -- no stand-in (null) is shown as the closest attempt: it said "expected array, got null"
      assert.are.equal("coax example: no valid instance found for this schema within the step limit "
        .. "(--steps N raises it)\n", err)
      out, err, code = example('{"type":"array","minItems":3,"items":{"type":"array","minItems":3}}', "--steps", "100")
      assert.are.same({ "[[null,null,null],[null,null,null],[null,null,null]]", "", 0 }, { out, err, code })
    end)

    it("gives up on branches that all recur, within the depth limit", function()
      local s = '{"$defs":{"a":{"anyOf":[{"type":"object","required":["x"],"properties":{"x":{"$ref":"#/$defs/a"}}},'
        .. '{"type":"array","minItems":1,"items":{"$ref":"#/$defs/a"}}]}},"$ref":"#/$defs/a"}'
      local out, err, code = example(s)
      assert.are.equal("", out)
      assert.truthy(err:find("depth limit", 1, true))
      assert.are.equal(1, code)
    end)

    it("refuses a reference cycle that never consumes the instance as an invalid schema (exit 2)", function()
      local out, err, code = example('{"$ref":"#"}')
      assert.are.equal("", out)
      assert.truthy(err:find("reference cycle", 1, true))
      assert.are.equal(2, code)
    end)
  end)

  describe("no instance, bad input, limits", function()
    it("exits 1 and says why for a schema nothing satisfies", function()
      for _, s in ipairs({ "false", '{"type":"string","minLength":3,"maxLength":2}', '{"not":{}}',
        '{"type":"array","items":{"type":"boolean"},"minItems":3,"uniqueItems":true}',
        '{"allOf":[{"type":"string"},{"type":"integer"}]}' }) do
        local out, err, code = example(s)
        assert.are.equal("", out)
        assert.truthy(err:find("^coax example: no valid instance found for this schema"))
        assert.are.equal(1, code)
      end
    end)

    it("names the closest attempt's errors with their locations", function()
      local _, err = example('{"type":"string","minLength":3,"maxLength":2}')
      assert.are.equal("coax example: no valid instance found for this schema; the closest attempt fails:\n"
        .. '  at "" (/minLength): expected at least 3 characters, got 2\n', err)
    end)

    it("exits 2 for a schema that is not JSON, an invalid schema, a bad option, a missing file", function()
      local _, err, code = example('{"type": ')
      assert.matches("^coax example: schema [^ ]+ is not JSON: unexpected end of input", err)
      assert.are.equal(2, code)
      _, err, code = example('{"type": 12}')
      assert.truthy(err:find("invalid schema", 1, true))
      assert.are.equal(2, code)
      _, _, code = H.coax({ "example", "--nope" })
      assert.are.equal(2, code)
      _, _, code = H.coax({ "example", "--depth", "0" }, "{}")
      assert.are.equal(2, code)
      _, _, code = H.coax({ "example", "/nonexistent/schema.json" })
      assert.are.equal(2, code)
      _, _, code = H.coax({ "example", "a.json", "b.json" })
      assert.are.equal(2, code)
    end)

    it("exits 4 for a schema nested beyond --max-depth, as every command does", function()
      local deep = string.rep('{"items":', 100000) .. "{}" .. string.rep("}", 100000)
      local out, err, code = H.coax({ "example" }, deep)
      assert.are.same({ "", "coax example: schema (standard input): nesting deeper than 512 (line 1, column 4609)\n",
        4 }, { out, err, code })
    end)

    it("builds deep required nesting up to --depth, and says so beyond it", function()
      local n = 60
      local s = string.rep('{"type":"object","required":["a"],"properties":{"a":', n) .. '{"type":"integer"}'
        .. string.rep("}}", n)
      local out, err, code = example(s)
      assert.are.equal("", out)
      assert.truthy(err:find("depth limit", 1, true))
      assert.are.equal(1, code)
      out, err, code = example(s, "--depth", "100")
      assert.are.equal(string.rep('{"a":', n) .. "1" .. string.rep("}", n), out)
      assert.are.equal("", err)
      assert.are.equal(0, code)
    end)

    it("uses --draft for schemas without $schema", function()
      -- in draft 7, siblings of $ref are ignored
      local s = '{"definitions":{"i":{"type":"integer"}},"$ref":"#/definitions/i","minimum":10}'
      assert.are.equal("1", (example(s, "--draft", "7")))
      assert.are.equal("10", (example(s)))
    end)
  end)
end)

describe("coax.example", function()
  it("takes JSON text and returns the instance as a Lua value", function()
    local v = coax.example('{"type":"object","properties":{"n":{"type":"integer","minimum":3}},"required":["n"]}')
    assert.are.same({ n = 3 }, v)
  end)

  it("takes a schema as a table", function()
    local v = coax.example({ type = "array", items = { type = "string", format = "date" }, minItems = 2 })
    assert.are.equal('["2024-01-15","2024-01-15"]', json.encode(v))
  end)

  it("takes options: minimal, draft, max_depth", function()
    local s = '{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["b"]}'
    assert.are.equal('{"a":1,"b":"string"}', json.encode(coax.example(s)))
    assert.are.equal('{"b":"string"}', json.encode(coax.example(s, { minimal = true })))
    local r = '{"definitions":{"i":{"type":"integer"}},"$ref":"#/definitions/i","minimum":10}'
    assert.are.equal(1, coax.example(r, { draft = "7" }))
    local deep = string.rep('{"type":"object","required":["a"],"properties":{"a":', 5) .. "{}"
      .. string.rep("}}", 5)
    local v, msg = coax.example(deep, { max_depth = 3 })
    assert.is_nil(v)
    assert.truthy(msg:find("^no valid instance found"))
  end)

  it("takes a schema compiled once (coax.schema) and gives what the text gives, schema after schema", function()
    local files = schema_files()
    assert.is_true(#files >= 5)
    for _, path in ipairs(files) do
      local text = assert(io.open(path)):read("a")
      local s, why = coax.schema(text)
      if not s then -- refused by both ways alike (schemas/ holds a draft-03 one)
        local v, msg, code = coax.example(text)
        assert.is_nil(v, path)
        assert.are.equal("COAX_ESCHEMA", code, path)
        assert.truthy(msg:find(why, 1, true) or why:find(msg, 1, true), path)
        goto next
      end
      for _, o in ipairs({ {}, { minimal = true }, { max_depth = 2 }, { max_steps = 50 } }) do
        local a, amsg, acode = coax.example(text, o)
        local b, bmsg, bcode = coax.example(s, o)
        assert.are.equal(json.encode(a), json.encode(b), path)
        assert.are.same({ amsg, acode }, { bmsg, bcode }, path)
      end
      -- the compiled schema stays the caller's: what it made validates against it
      local v = coax.example(s)
      if v ~= nil then assert.is_true(s:validate(json.encode(v), "json"), path) end
      ::next::
    end
    -- a draft given at compilation is kept: draft 7 reads "definitions" and the sibling of $ref
    local s7 = assert(coax.schema('{"definitions":{"i":{"type":"integer"}},"$ref":"#/definitions/i"}', { draft = "7" }))
    assert.are.equal(1, coax.example(s7))
  end)

  it("refuses compile options with a compiled schema, and a schema already freed", function()
    local s = assert(coax.schema('{"type":"integer","minimum":4}'))
    for _, o in ipairs({ { draft = "7" }, { remote_dir = "/tmp", remote_base = "https://x.test/" } }) do
      local ok, err = pcall(coax.example, s, o)
      assert.is_false(ok)
      assert.matches("draft, remote_dir and remote_base apply to a schema compiled here, not a coax.schema", err)
    end
    assert.are.equal(4, coax.example(s, { minimal = true }))
    getmetatable(s).__close(s) -- as a to-be-closed variable's end does
    local ok, err = pcall(coax.example, s)
    assert.is_false(ok)
    assert.matches("schema already freed", err)
    ok, err = pcall(coax.example, io.stdout) -- another userdata is no schema
    assert.is_false(ok)
    assert.matches("cannot encode a userdata as JSON", err)
  end)

  it("returns nil and the reason when no instance fits", function()
    local v, msg, code = coax.example("false")
    assert.is_nil(v)
    assert.are.equal('no valid instance found: at "": no value is allowed here (the schema is false), got null', msg)
    assert.is_nil(code)
  end)

  it("returns nil, the message and the code for an invalid schema", function()
    local v, msg, code = coax.example('{"$ref":"#/nope"}')
    assert.is_nil(v)
    assert.truthy(msg:find("unresolvable reference", 1, true))
    assert.are.equal("COAX_ESCHEMA", code)
    v, msg, code = coax.example("{nope")
    assert.is_nil(v)
    assert.truthy(msg:find("not valid JSON", 1, true))
    assert.are.equal("COAX_ESCHEMA", code)
  end)

  it("raises for wrong argument types", function()
    assert.has_error(function() coax.example() end)
    assert.has_error(function() coax.example("{}", { draft = "3" }) end)
    assert.has_error(function() coax.example("{}", { max_depth = 0 }) end)
  end)

  it("never crashes on garbage schemas, and what it returns validates", function()
    -- random schemas from a pool of keywords with sensible and silly values
    local pool = {
      type = { "string", "integer", "number", "object", "array", "boolean", "null", { "string", "null" } },
      minimum = { 0, -1, 5, 1e300, 0.5 }, maximum = { 0, 10, -3, 2.5 },
      exclusiveMinimum = { 0, 3 }, exclusiveMaximum = { 1, 100 }, multipleOf = { 0.1, 3, 7, 0.25 },
      minLength = { 0, 3, 50 }, maxLength = { 0, 2, 10 },
      pattern = { "^a+$", "[0-9]{2}", "^(x|y)$", "(", "\\1" },
      format = { "date", "email", "uuid", "nope" },
      minItems = { 0, 2, 5 }, maxItems = { 0, 1, 3 }, uniqueItems = { true, false },
      minProperties = { 1, 3 }, maxProperties = { 0, 1 },
      required = { { "a" }, { "a", "b" } },
      enum = { { 1, "a", json.null }, { "x" } }, const = { 3, "k", json.null },
    }
    local keys = {}
    for k in pairs(pool) do keys[#keys + 1] = k end
    table.sort(keys)
    local seed = 12345
    local function rand(n)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n + 1
    end
    local function gen(depth)
      local s = {}
      for _ = 1, rand(4) do
        local k = keys[rand(#keys)]
        s[k] = pool[k][rand(#pool[k])]
      end
      if depth < 3 then
        local r = rand(8)
        if r == 1 then s.items = gen(depth + 1)
        elseif r == 2 then s.properties = { a = gen(depth + 1), b = gen(depth + 1) }
        elseif r == 3 then s.anyOf = { gen(depth + 1), gen(depth + 1) }
        elseif r == 4 then s.oneOf = { gen(depth + 1), gen(depth + 1) }
        elseif r == 5 then s["not"] = gen(depth + 1)
        elseif r == 6 then s.allOf = { gen(depth + 1), { ["$ref"] = "#" } } end
      end
      return s
    end
    local found, none, invalid = 0, 0, 0
    for _ = 1, 300 do
      local schema = gen(0)
      local v, msg, code = coax.example(schema)
      if v ~= nil then
        found = found + 1
        local s = assert(coax.schema(schema))
        assert.are.equal(true, (s:validate(v)))
      elseif code then
        invalid = invalid + 1
        assert.are.equal("string", type(msg))
      else
        none = none + 1
        assert.truthy(msg:find("^no valid instance found"))
      end
    end
    assert.are.equal(300, found + none + invalid)
    assert.truthy(found > 100)
  end)
end)
