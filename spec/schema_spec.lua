local H = require "helper"
local coax = require "coax"
local json = coax.json

describe("coax.schema (Lua)", function()
  it("compiles once and validates many times, returning true or false, errors", function()
    local s = assert(coax.schema(json.decode('{"type":"object","required":["name"],'
      .. '"properties":{"age":{"type":"integer","minimum":0}}}')))
    assert.is_true(s:validate(json.decode('{"name":"Ada","age":36}')))
    local ok, errs = s:validate(json.decode('{"age":-1.5}'))
    assert.is_false(ok)
    assert.are.same({
      { instanceLocation = "", keywordLocation = "/required", error = 'missing required property "name"' },
      { instanceLocation = "/age", keywordLocation = "/properties/age/type",
        error = "expected integer, got number -1.5" },
      { instanceLocation = "/age", keywordLocation = "/properties/age/minimum",
        error = "expected a number at least 0, got -1.5" },
    }, errs)
  end)

  it("accepts the schema as JSON text, and the instance as JSON text with \"json\"", function()
    local s = assert(coax.schema('{"items":{"$ref":"#/$defs/s"},"$defs":{"s":{"type":"string"}}}'))
    local ok, errs = s:validate('["a", 2]', "json")
    assert.is_false(ok)
    assert.are.same({ { instanceLocation = "/1", keywordLocation = "/items/$ref/type",
      absoluteKeywordLocation = "#/$defs/s/type", error = "expected string, got number 2" } }, errs)
  end)

  it("keeps big integers exact", function()
    local s = assert(coax.schema('{"maximum": 9007199254740993}'))
    assert.is_true(s:validate("9007199254740993", "json"))
    assert.is_false(s:validate("9007199254740994", "json"))
  end)

  it("stops at the first error with \"flag\"", function()
    local s = assert(coax.schema('{"type":"string","minLength":3}'))
    local ok, errs = s:validate(5, "flag")
    assert.is_false(ok)
    assert.are.same({}, errs)
  end)

  it("reports the draft chosen by $schema, by the host, or 2020-12", function()
    assert.are.equal("2020-12", assert(coax.schema("{}")):draft())
    assert.are.equal("7", assert(coax.schema("{}", { draft = "7" })):draft())
    local draft4 = '{"$schema":"http://json-schema.org/draft-04/schema#"}'
    assert.are.equal("4", assert(coax.schema(draft4, { draft = "7" })):draft())
    assert.has_error(function() coax.schema("{}", { draft = "3" }) end)
  end)

  it("returns nil, a message with the location and COAX_ESCHEMA for an invalid schema", function()
    local s, msg, code = coax.schema('{"properties":{"a":{"minLength":"3"}}}')
    assert.is_nil(s)
    assert.are.equal('invalid schema at "/properties/a/minLength": expected integer, got string "3" (1 error)', msg)
    assert.are.equal("COAX_ESCHEMA", code)
    s, msg, code = coax.schema('{"$ref":"#"}')
    assert.is_nil(s)
    assert.are.equal('invalid schema: reference cycle through "" that never consumes the instance', msg)
    assert.are.equal("COAX_ESCHEMA", code)
    s, msg, code = coax.schema("{")
    assert.is_nil(s)
    assert.are.equal("schema is not valid JSON: unexpected end of input, expected a string key at line 1, column 2",
      msg)
    assert.are.equal("COAX_ESYNTAX", code)
  end)

  it("resolves references through a resolver function, never the network", function()
    local asked = {}
    local s = assert(coax.schema('{"properties":{"price":{"$ref":"https://example.com/money.json"}}}', {
      resolver = function(uri)
        asked[#asked + 1] = uri
        if uri == "https://example.com/money.json" then return { type = "number", minimum = 0 } end
      end,
    }))
    assert.are.same({ "https://example.com/money.json" }, asked)
    local ok, errs = s:validate(json.decode('{"price":-3}'))
    assert.is_false(ok)
    assert.are.equal("https://example.com/money.json#/minimum", errs[1].absoluteKeywordLocation)
    local bad, msg = coax.schema('{"$ref":"https://example.com/nothing.json"}',
      { resolver = function() return nil end })
    assert.is_nil(bad)
    assert.are.equal('unresolvable reference "https://example.com/nothing.json"', msg)
    bad, msg = coax.schema('{"$ref":"https://example.com/x.json"}', { resolver = function() error("boom") end })
    assert.is_nil(bad)
    assert.truthy(msg:find("resolver: .*boom"))
  end)

  it("resolves remotes from a folder", function()
    local s = assert(coax.schema('{"$ref":"http://localhost:1234/integer.json"}',
      { remote_dir = "spec/json-schema-test-suite/remotes", remote_base = "http://localhost:1234/" }))
    assert.is_true(s:validate(3))
    assert.is_false(s:validate("3"))
  end)

  it("returns nil, message, COAX_EDEPTH when evaluation nests too deep", function()
    local s = assert(coax.schema('{"items":{"$ref":"#"}}', { max_depth = 10 }))
    local v, msg, code = s:validate(string.rep("[", 50) .. string.rep("]", 50), "json")
    assert.is_nil(v)
    assert.are.equal("schema evaluation nested deeper than the limit of 10", msg)
    assert.are.equal("COAX_EDEPTH", code)
  end)

  it("validates schemas against the official meta-schemas offline", function()
    local meta = assert(coax.schema('{"$ref":"https://json-schema.org/draft/2020-12/schema"}'))
    assert.is_true(meta:validate(json.decode(H.read("schemas/meta/json-schema.org/draft/2020-12/schema.json"))))
    assert.is_false(meta:validate(json.decode('{"type":42}')))
  end)

  it("asserts formats with assert_format = true, annotates them with false", function()
    local doc = '{"format":"ipv4"}'
    assert.is_true(assert(coax.schema(doc)):validate('"999.1.1.1"', "json"))
    local ok, errs = assert(coax.schema(doc, { assert_format = true })):validate('"999.1.1.1"', "json")
    assert.is_false(ok)
    assert.are.same({ { instanceLocation = "", keywordLocation = "/format",
      error = 'expected an IPv4 address (format "ipv4"), got "999.1.1.1"' } }, errs)
    assert.is_true(assert(coax.schema(doc, { draft = "7", assert_format = false })):validate('"999.1.1.1"', "json"))
    assert.is_false(assert(coax.schema(doc, { draft = "7" })):validate('"999.1.1.1"', "json"))
    assert.has_error(function() coax.schema(doc, { assert_format = "yes" }) end)
  end)

  it("uses ECMA-262 patterns and stops hostile ones at max_regex_steps", function()
    local s = assert(coax.schema('{"pattern":"^\\\\s$"}'))
    assert.is_true(s:validate('"\\u00a0"', "json"))
    local slow = assert(coax.schema('{"pattern":"^(a+)+$"}', { max_regex_steps = 1000 }))
    local ok, msg, code = slow:validate('"' .. string.rep("a", 30) .. 'b"', "json")
    assert.are.same({ nil, "a regular expression exceeded its step limit of 1000 steps (max_regex_steps)",
      "COAX_ELIMIT" }, { ok, msg, code })
    local bad, why, name = coax.schema('{"pattern":"a++"}')
    assert.are.same({ nil,
      'invalid schema at "/pattern": not an ECMA-262 regular expression: nothing to repeat at offset 2',
      "COAX_ESCHEMA" }, { bad, why, name })
  end)
end)
