-- hunt10: coercions that chose one of two readings without a word (a
-- "type" array, a member matching two declared names, a default from one
-- of several schemas or union branches). The values are in
-- spec/fixtures/confidence/hunt10.jsonl; here the errors, the coercion
-- log and the bound on looking defaults up.
require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"
local json = coax.json

local function refused(reply, schema, location, message)
  local r = coax.extract(reply, schema)
  assert.are.same({ false, 0, location, message },
    { r.valid, #r.coercions, r.errors[1].instanceLocation, r.errors[1].error })
end

local function coerced(reply, schema, want, kinds)
  local r = coax.extract(reply, schema)
  local got = {}
  for i, c in ipairs(r.coercions) do got[i] = c.kind .. " " .. c.pointer end
  assert.are.same({ true, want, kinds }, { r.valid, json.encode(r.value), got })
end

describe("hunt10", function()
  it("reads a type array as a union: two types that convert differently leave the error", function()
    local s = '{"type":"object","properties":{"n":{"type":["integer","array"],"items":{"type":"string"}}}}'
    refused('{"n": "5"}', s, "/n", 'expected array or integer, got string "5"')
    s = '{"type":"object","properties":{"n":{"type":["array","integer"],"items":{"type":"string"}}}}'
    refused('{"n": "5"}', s, "/n", 'expected array or integer, got string "5"')
    coerced('{"n": "5"}', '{"type":"object","properties":{"n":{"type":["integer","null"]}}}', '{"n":5}',
      { "string_to_integer /n" })
    coerced('{"n": "5"}', '{"type":"object","properties":{"n":{"type":["integer","number"]}}}', '{"n":5}',
      { "string_to_integer /n" })
  end)

  it("drops no member whose name matches two declared ones loosely", function()
    local s = '{"type":"object","properties":{"a":{"type":"string"},"A":{"type":"string"}},'
      .. '"additionalProperties":false}'
    refused('{" a": "x"}', s, "/ a", 'property " a" is not allowed')
    coerced('{"a": "x", "zzz": true}', s, '{"a":"x"}', { "property_dropped /zzz" })
    coerced('{" a": "x"}', '{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}',
      '{"a":"x"}', { "key_renamed /a" })
    s = '{"allOf":[{"properties":{"a":{"type":"string"}}}],"properties":{"b":{}},"additionalProperties":false}'
    refused('{"a": "x", "b": 1}', s, "/a", 'property "a" is not allowed')
    coerced('{"c": "x", "b": 1}', s, '{"b":1}', { "property_dropped /c" })
  end)

  it("fills a default only when every schema that applies gives that one", function()
    local s = '{"type":"object","properties":{"s":{"$ref":"#/$defs/s","default":"open"}},"required":["s"],'
      .. '"$defs":{"s":{"enum":["open","new"],"default":"new"}}}'
    refused("{}", s, "", 'missing required property "s"')
    s = '{"type":"object","properties":{"s":{"$ref":"#/$defs/s","default":"open"}},"required":["s"],'
      .. '"$defs":{"s":{"enum":["open","new"]}}}'
    coerced("{}", s, '{"s":"open"}', { "default_filled /s" })
  end)

  it("bounds the schemas looked into for a default: a wide tree of allOf fills nothing", function()
    -- ten levels of ten references each: 10^10 paths to the same default
    local defs = { ["l10"] = { default = 1 } }
    for level = 0, 9 do
      local all = {}
      for i = 1, 10 do all[i] = { ["$ref"] = "#/$defs/l" .. (level + 1) } end
      defs["l" .. level] = { allOf = all }
    end
    local s = json.encode({ type = "object", properties = { x = { ["$ref"] = "#/$defs/l0" } }, required = { "x" },
      ["$defs"] = defs })
    refused("{}", s, "", 'missing required property "x"')
    defs.l9 = { allOf = { { ["$ref"] = "#/$defs/l10" } } }
    defs.l8 = { allOf = { { ["$ref"] = "#/$defs/l9" } } }
    local narrow = json.encode({ type = "object", properties = { x = { ["$ref"] = "#/$defs/l8" } }, required = { "x" },
      ["$defs"] = defs })
    coerced("{}", narrow, '{"x":1}', { "default_filled /x" })
  end)

  it("fills a union's default from the branch that passes, and none when two branches differ", function()
    local s = '{"type":"object","anyOf":[{"properties":{"x":{"default":1},"k":{"const":"a"}},"required":["x"]},'
      .. '{"properties":{"x":{"default":2},"k":{"const":"b"}},"required":["x"]}]}'
    coerced('{"k": "b"}', s, '{"k":"b","x":2}', { "default_filled /x" })
    coerced('{"k": "a"}', s, '{"k":"a","x":1}', { "default_filled /x" })
    s = '{"type":"object","anyOf":[{"properties":{"x":{"default":1}},"required":["x"]},'
      .. '{"properties":{"x":{"default":2}},"required":["x"]}]}'
    refused("{}", s, "", 'missing required property "x"')
  end)
  it("drops no member a nested object property declares, unless the nested object holds it already", function()
    local s = '{"type":"object","properties":{"name":{"type":"string"},"address":{"type":"object",'
      .. '"properties":{"city":{"type":"string"},"zip":{"type":"string"}}}},"additionalProperties":false}'
    refused('{"name": "Ada", "address": {"zip": "75001"}, "city": "Paris"}', s, "/city",
      'property "city" is not allowed')
    coerced('{"name": "Ada", "address": {"city": "Paris"}, "city": "Paris"}', s,
      '{"name":"Ada","address":{"city":"Paris"}}', { "property_dropped /city" })
  end)

  it("keeps members past NESTED_NAMES nested names rather than look further", function()
    local sub = {}
    for i = 1, 70000 do sub[i] = ('"n%d":{}'):format(i) end
    local s = '{"type":"object","properties":{"big":{"type":"object","properties":{' .. table.concat(sub, ",")
      .. '}}},"additionalProperties":false}'
    refused('{"debug": 1}', s, "/debug", 'property "debug" is not allowed')
    s = '{"type":"object","properties":{"big":{"type":"object","properties":{' .. table.concat(sub, ",", 1, 1000)
      .. '}}},"additionalProperties":false}'
    coerced('{"debug": 1}', s, "{}", { "property_dropped /debug" })
  end)
  it("looks a default up in every schema that applies to the object, from where the object is entered", function()
    local base = '"$defs":{"base":{"type":"object","properties":{"x":{"default":3}},"required":["x"]}}'
    refused("{}", '{"allOf":[{"$ref":"#/$defs/base"},{"properties":{"x":{"default":4}}}],' .. base .. "}", "",
      'missing required property "x"')
    coerced("{}", '{"allOf":[{"$ref":"#/$defs/base"},{"properties":{"y":{"default":4}}}],' .. base .. "}",
      '{"x":3}', { "default_filled /x" })
    local ife = '{"type":"object","properties":{"k":{"type":"string"}},"if":{"properties":{"k":{"const":"a"}}},'
      .. '"then":{"properties":{"x":{"default":1}},"required":["x"]},'
      .. '"else":{"properties":{"x":{"default":2}},"required":["x"]}}'
    coerced('{"k": "b"}', ife, '{"k":"b","x":2}', { "default_filled /x" })
  end)
  it("fills no default beside a member that may say the value, and bounds the members compared", function()
    local s = '{"type":"object","properties":{"status":{"enum":["open","closed"],"default":"open"}},'
      .. '"required":["status"]}'
    refused('{"closed": true}', s, "", 'missing required property "status"')
    coerced('{"note": 5}', s, '{"note":5,"status":"open"}', { "default_filled /status" })
    local many = {}
    for i = 1, 2000 do many[i] = ('"n%d":%d'):format(i, i) end
    refused("{" .. table.concat(many, ",") .. "}", s, "", 'missing required property "status"')
    local few = table.concat(many, ",", 1, 100)
    coerced("{" .. few .. "}", s, "{" .. few .. ',"status":"open"}', { "default_filled /status" })
  end)
end)
