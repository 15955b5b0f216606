-- hunt17: a valid value that is no answer as it stands: a member that
-- gives a declared property a second value, null written as text where
-- the schema takes null, doubt around the only JSON. The values are in
-- spec/fixtures/confidence/hunt17.jsonl; here the errors' places and words
-- and the bound on the looks.
local coax = require "coax"
local json = coax.json
local H = require "helper"

local person = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},'
  .. '"required":["name","age"]}'

local function refused(reply, schema, location, message)
  local r = coax.extract(reply, schema)
  assert.are.same({ false, location, message }, { r.valid, r.errors[1].instanceLocation, r.errors[1].error })
end

describe("hunt17", function()
  it("refuses a member no property declares that gives a declared one another value, at the member", function()
    local function restated(reply, schema, location, member)
      refused(reply, schema, location, ('the member "%s" gives "age" another value (a correction kept beside it):'
        .. " which one was meant is a guess; send one value"):format(member))
    end
    restated('{"name": "Ada", "age": 36, "corrected_age": 37}', person, "/corrected_age", "corrected_age")
    restated('{"name": "Ada", "age": 35, "correction": {"age": 36}}', person, "/correction", "correction")
    restated('{"people": [{"name": "Ada", "age": 35, "note": "typo: age should be 36"}]}',
      '{"type":"object","properties":{"people":{"type":"array","items":' .. person .. '}}}', "/people/0/note", "note")
    local r = coax.extract('{"name": "Ada", "age": 36, "corrected_age": 36, "age_unit": "years"}', person)
    assert.are.same({ true, '{"name":"Ada","age":36,"corrected_age":36,"age_unit":"years"}' },
      { r.valid, json.encode(r.value) })
  end)

  it("refuses null written as text where the schema takes null, at the string", function()
    local s = '{"type":"object","properties":{"middle":{"type":["string","null"]},'
      .. '"tags":{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"null"}]}}}}'
    local message = 'a string that spells null where the schema takes null too ("None", "null"): the model\'s null,'
      .. " or the text? send null or another text"
    refused('{"middle": "None"}', s, "/middle", message)
    refused('{"middle": "Ada", "tags": ["x", "undefined"]}', s, "/tags/1", message)
    local r = coax.extract('{"middle": "None", "tags": ["none"]}',
      '{"type":"object","properties":{"middle":{"type":"string"},"tags":{"type":"array"}}}')
    assert.are.same({ true, '{"middle":"None","tags":["none"]}' }, { r.valid, json.encode(r.value) })
  end)

  it("names the doubt before or after the only JSON", function()
    refused('Probably {"name": "Ada", "age": 36}', person, "",
      "the reply's JSON at line 1, column 10 sits in a sentence that marks it as no answer, at line 1, column 1"
      .. " (For example, Suppose, Instead of, Not, Probably): send the answer alone")
    refused('{"name": "Ada", "age": 36}\nI\226\128\153m not sure about the age.', person, "",
      "the reply's answer at line 1, column 1 is taken back by the text after it, at line 2, column 1"
      .. " (Actually, Oops, I meant, a typo, not sure, another value offered, made up): which value was meant is a"
      .. " guess; send it alone")
  end)

  it("looks at members and null texts in time linear in the value", function()
    -- every object holds undeclared members that may restate b (a replacing
    -- word, a remark naming it, agreeing with it), and one a level down, and
    -- a string spelling null where any value fits: each object indexed and
    -- looked up, the value validated with the string made null and true
    local schema = '{"type":"array","items":{"type":"object","properties":{"a":{"type":["string","null"]},'
      .. '"b":{"type":"integer"}}}}'
    local text = {}
    for _, m in ipairs({ 2000, 8000 }) do
      local items = {}
      for i = 1, m do
        items[i] = ('{"a": "x%d", "b": %d, "b_new": %d, "c_fixed": "null", "note": "b from record %d", "d": {"b": %d}}')
          :format(i, i, i, i, i)
      end
      text[m] = "[" .. table.concat(items, ",") .. "]"
    end
    local r = coax.extract(text[2000], schema)
    assert.is_true(r.valid)
    local ratio = H.scaling_ratio(function(m) coax.extract(text[m], schema) end, 2000, 4)
    assert.is_true(ratio < 8, ("time(8000 items) / time(2000 items) = %.2f (linear 4, quadratic 16)"):format(ratio))
    -- one object of n members whose names are all "x" written another way
    -- ("x_", "-x", "x. "...), beside the declared x with the same value
    local one = '{"type":"object","properties":{"x":{"type":"integer"}}}'
    local wide = {}
    for _, m in ipairs({ 2000, 8000 }) do
      local members = { '"x": 1' }
      for i = 1, m do
        local name, k = "x", i
        while k > 0 do name, k = name .. ("_- ."):sub(k % 4 + 1, k % 4 + 1), k // 4 end
        members[#members + 1] = ('"%s": 1'):format(name)
      end
      wide[m] = "{" .. table.concat(members, ", ") .. "}"
    end
    assert.is_true(coax.extract(wide[2000], one).valid)
    ratio = H.scaling_ratio(function(m) coax.extract(wide[m], one) end, 2000, 4)
    assert.is_true(ratio < 8, ("time(8000 names) / time(2000 names) = %.2f (linear 4, quadratic 16)"):format(ratio))
  end)

  it("takes a string the schema's enum or const names as the value, never as a placeholder", function()
    -- review42: "insert_row" in {"enum": ["insert_row", ...]} was refused as a template's name
    -- (YOUR_API_KEY), "?" and "<first name>" alike: the schema itself says the string is an answer
    local function accepted(reply, schema)
      local r = coax.extract(reply, schema)
      assert.are.same({ true, reply }, { r.valid, r.valid and json.encode(r.value) or r.errors[1].error })
    end
    accepted('{"action":"insert_row"}', '{"properties":{"action":{"enum":["insert_row","delete_row"]}}}')
    accepted('{"key":"your_turn"}', '{"properties":{"key":{"const":"your_turn"}}}')
    accepted('["?","<first name>"]', '{"items":{"enum":["?","!","<first name>"]}}')
    -- twins: the same strings where the schema names no such value, or another one, are still refused
    refused('{"action":"insert_row"}', '{"properties":{"action":{"type":"string"}}}', "/action",
      'a placeholder where a value was due ("insert_row"): send the value itself')
    refused('{"action":"insert_row","b":"your_turn"}', '{"properties":{"action":{"enum":["insert_row"]}}}', "/b",
      'a placeholder where a value was due ("your_turn"): send the value itself')
  end)

  it("indexes the members a level down in time linear in how many share a name", function()
    -- review42: n objects a level down all declare b, beside "b_new" of their
    -- value: b was one name of n entries in the index, each put at the end
    -- of one probe chain (n^2 / 2 probes: 160,000 objects, 6 s) and each
    -- look walked them all
    local schema = '{"type":"object","additionalProperties":{"type":["object","integer"],'
      .. '"properties":{"b":{"type":"integer"}}}}'
    local text = {}
    for _, m in ipairs({ 10000, 40000 }) do
      local members = {}
      for i = 1, m do members[i] = ('"k%d": {"b": 1}'):format(i) end
      text[m] = "{" .. table.concat(members, ",") .. ', "b_new": 1, "b_fixed": 1, "c": {"b": 2}}'
    end
    local r = coax.extract('{"k1": {"b": 1}, "k2": {"b": 1}, "b_new": 1, "c": {"b": 2}}', schema)
    assert.are.same({ false, "/b_new", 'the member "b_new" gives "b" another value (a correction kept beside it): '
      .. "which one was meant is a guess; send one value" },
      { r.valid, r.errors[1].instanceLocation, r.errors[1].error })
    assert.is_true(coax.extract('{"k1": {"b": 1}, "k2": {"b": 1}, "b_new": 1}', schema).valid)
    local ratio = H.scaling_ratio(function(m) coax.extract(text[m], schema) end, 10000, 4)
    assert.is_true(ratio < 8,
      ("time(40000 objects) / time(10000 objects) = %.2f (linear 4, quadratic 16)"):format(ratio))
  end)
end)
