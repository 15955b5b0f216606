local H = require "helper"

-- `coax validate --annotations`: the annotation keywords of every subschema
-- that passed, in the specification's output formats.
local function validate(schema, instance, ...)
  local path = H.tmpfile(schema)
  local args = { "validate", "--annotations", ... }
  args[#args + 1] = path
  local out, err, code = H.coax(args, instance)
  os.remove(path)
  return out, err, code
end

describe("coax validate --annotations", function()
  it("lists the annotations of a valid instance with their locations", function()
    local out, err, code = validate('{"title":"Order","properties":{"id":{"readOnly":true,"default":0}}}',
      '{"id":7}')
    assert.are.equal('{"valid":true,"annotations":['
      .. '{"instanceLocation":"","keywordLocation":"/title","annotation":"Order"},'
      .. '{"instanceLocation":"/id","keywordLocation":"/properties/id/default","annotation":0},'
      .. '{"instanceLocation":"/id","keywordLocation":"/properties/id/readOnly","annotation":true}]}\n', out)
    assert.are.equal("", err)
    assert.are.equal(0, code)
  end)

  it("keeps none from a branch that failed, only from the branches that passed", function()
    local out = validate('{"anyOf":[{"type":"string","title":"text"},{"type":"number","title":"number"},'
      .. '{"minimum":5,"description":"five or more"}]}', '7')
    assert.are.equal('{"valid":true,"annotations":['
      .. '{"instanceLocation":"","keywordLocation":"/anyOf/1/title","annotation":"number"},'
      .. '{"instanceLocation":"","keywordLocation":"/anyOf/2/description","annotation":"five or more"}]}\n', out)
  end)

  it("keeps none when a later keyword of the same subschema fails", function()
    local out = validate('{"anyOf":[{"title":"small","maximum":3},{"title":"any"}]}', '9')
    assert.are.equal('{"valid":true,"annotations":['
      .. '{"instanceLocation":"","keywordLocation":"/anyOf/1/title","annotation":"any"}]}\n', out)
  end)

  it("reports the items that match contains, at their index", function()
    local out = validate('{"contains":{"type":"number","title":"n"}}', '[1,"a",2]')
    assert.are.equal('{"valid":true,"annotations":['
      .. '{"instanceLocation":"/0","keywordLocation":"/contains/title","annotation":"n"},'
      .. '{"instanceLocation":"/2","keywordLocation":"/contains/title","annotation":"n"}]}\n', out)
  end)

  it("gives the absolute location past a reference", function()
    local out = validate('{"$id":"https://example.com/s","$ref":"#/$defs/a","$defs":{"a":{"deprecated":true}}}', '1')
    assert.are.equal('{"valid":true,"annotations":[{"instanceLocation":"","keywordLocation":"/$ref/deprecated",'
      .. '"absoluteKeywordLocation":"https://example.com/s#/$defs/a/deprecated","annotation":true}]}\n', out)
  end)

  it("lists no annotation for an invalid instance, only the errors", function()
    local out, _, code = validate('{"title":"T","properties":{"a":{"readOnly":true,"type":"string"}}}', '{"a":1}')
    assert.are.equal('{"valid":false,"errors":[{"instanceLocation":"/a","keywordLocation":"/properties/a/type",'
      .. '"error":"expected string, got number 1"}]}\n', out)
    assert.are.equal(1, code)
  end)

  it("puts them under the root unit in detailed (each a full unit), and never in flag", function()
    local schema = '{"description":"d"}'
    assert.are.equal('{"valid":true,"instanceLocation":"","keywordLocation":"","annotations":['
      .. '{"valid":true,"instanceLocation":"","keywordLocation":"/description","annotation":"d"}]}\n',
      (validate(schema, "1", "--output", "detailed")))
    assert.are.equal('{"valid":true}\n', (validate(schema, "1", "--output", "flag")))
  end)

  it("follows the draft: readOnly is no keyword of draft 4", function()
    local out = validate('{"$schema":"http://json-schema.org/draft-04/schema#","readOnly":true,"title":"t"}', '1')
    assert.are.equal('{"valid":true,"annotations":['
      .. '{"instanceLocation":"","keywordLocation":"/title","annotation":"t"}]}\n', out)
  end)

  it("prints only the verdict without --annotations", function()
    local path = H.tmpfile('{"title":"T"}')
    local out = H.coax({ "validate", path }, "1")
    os.remove(path)
    assert.are.equal('{"valid":true}\n', out)
  end)
end)

describe("coax validate --output detailed", function()
  -- Each unit is a full output unit ("valid" included), and a group below a
  -- reference says where it is absolutely, as the output schema asks.
  it("gives every unit its verdict and a group past a $ref its absolute location", function()
    local path = H.tmpfile('{"$id":"https://e.com/s","properties":{"a":{"$ref":"#/$defs/p"}},'
      .. '"$defs":{"p":{"properties":{"x":{"allOf":[{"type":"string"},{"minimum":3}]}}}}}')
    local out, _, code = H.coax({ "validate", "--output", "detailed", path }, '{"a":{"x":1}}')
    os.remove(path)
    assert.are.equal(1, code)
    assert.are.equal('{"valid":false,"instanceLocation":"","keywordLocation":"","errors":['
      .. '{"valid":false,"instanceLocation":"/a/x","keywordLocation":"/properties/a/$ref/properties/x",'
      .. '"absoluteKeywordLocation":"https://e.com/s#/$defs/p/properties/x","errors":['
      .. '{"valid":false,"instanceLocation":"/a/x","keywordLocation":"/properties/a/$ref/properties/x/allOf/0/type",'
      .. '"absoluteKeywordLocation":"https://e.com/s#/$defs/p/properties/x/allOf/0/type",'
      .. '"error":"expected string, got number 1"},'
      .. '{"valid":false,"instanceLocation":"/a/x","keywordLocation":"/properties/a/$ref/properties/x/allOf/1/minimum",'
      .. '"absoluteKeywordLocation":"https://e.com/s#/$defs/p/properties/x/allOf/1/minimum",'
      .. '"error":"expected a number at least 3, got 1"}]}]}\n', out)
  end)

  it("leaves a group's absolute location out when no reference was crossed", function()
    local path = H.tmpfile('{"properties":{"x":{"allOf":[{"type":"string"},{"minimum":3}]}}}')
    local out = H.coax({ "validate", "--output", "detailed", path }, '{"x":1}')
    os.remove(path)
    assert.is_nil(out:find("absoluteKeywordLocation", 1, true))
    assert.matches('"valid":false,"instanceLocation":"/x","keywordLocation":"/properties/x","errors":', out, 1, true)
  end)
end)
