-- `coax extract --partial`: the partial value of a reply that stops
-- anywhere, as the streaming reader (engine/stream/) sees it, one line.
local H = require "helper"

local PERSON = [[{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},
"color":{"enum":["red","green"]}},"required":["name","age"],"additionalProperties":false}]]

describe("coax extract --partial", function()
  local schema
  setup(function() schema = H.tmpfile(PERSON) end)
  teardown(function() os.remove(schema) end)

  local function partial(text, ...)
    local args = { "extract", "--partial", ... }
    args[#args + 1] = "-"
    local out, err, code = H.coax(args, text)
    assert.are.equal("", err)
    assert.are.equal(0, code)
    return out
  end

  it("shows nothing before the JSON, nor inside reasoning", function()
    assert.are.equal('{"partial": null, "complete": [], "in_progress": null}\n',
      partial("<think>maybe {\"a\": 1"))
  end)

  it("shows complete parts and the string in progress, without a schema", function()
    assert.are.equal('{"partial": {"a":[1,2],"b":"hel"}, "complete": ["/a"], "in_progress": "/b"}\n',
      partial('Sure:\n```json\n{"a": [1, 2], "b": "hel'))
  end)

  it("does not show a number before a delimiter proves it ended", function()
    assert.are.equal('{"partial": {"a":"x"}, "complete": ["/a"], "in_progress": "/n"}\n',
      partial('{"a": "x", "n": 12'))
  end)

  it("gives complete parts their coerced values, and says when the reply is doomed", function()
    assert.are.equal('{"partial": {"name":"Jo","age":40,"color":"red"}, "complete": ["/name", "/age", "/color"], '
      .. '"in_progress": ""}\n',
      partial('{"name": "Jo", "age": "40", "color": "RED", ', "--schema", schema))
    assert.are.equal('{"partial": {"name":"Jo","age":"old"}, "complete": ["/name", "/age"], "in_progress": "", '
      .. '"errors": [{"instanceLocation": "/age", "keywordLocation": "/properties/age/type", '
      .. '"error": "expected integer, got string \\"old\\""}], "doomed": true}\n',
      partial('{"name": "Jo", "age": "old", ', "--schema", schema))
  end)

  it("lists the root once it closes, with coax extract's value (an envelope unwrapped)", function()
    assert.are.equal('{"partial": {"name":"Jo","age":40}, "complete": [""], "in_progress": null}\n',
      partial('{"result": {"name": "Jo", "age": "40"}}', "--schema", schema))
  end)

  it("keeps an atomic string back until it is complete", function()
    assert.are.equal('{"partial": {"name":"Jo"}, "complete": ["/name"], "in_progress": "/color"}\n',
      partial('{"name": "Jo", "color": "re', "--atomic", "/color"))
  end)

  it("stops following a reply that is not JSON once a part was listed", function()
    assert.are.equal('{"partial": {"a":1}, "complete": ["/a"], "in_progress": "", "stopped": true}\n',
      partial("{\"a\": 1, 'b': 2}"))
  end)
end)
