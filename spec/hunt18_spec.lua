-- hunt18: readings the repair and the words after the answer hid. A number
-- joined to the next one by a sign or a split point ([10 -5], [1 .5]) is
-- one value to some languages and two items to others; prose after the
-- answer that offers another value for it, or says a value was made up,
-- makes it a guess. The values are in spec/fixtures/confidence/hunt18.jsonl;
-- here the errors' places and words.
require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"
local json = coax.json

local person = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},'
  .. '"required":["name","age"]}'
local answer = '{"name": "Ada", "age": 36}'

local function refused(reply, schema, location, message)
  local r = coax.extract(reply, schema)
  assert.are.same({ false, location, message }, { r.valid, r.errors[1].instanceLocation, r.errors[1].error })
end

local function joined(where, text)
  return "unreadable text at " .. where .. " (a comma was guessed before text that does not start a member, or"
    .. " that may be one value with the number before it ([10 -5]: 10 - 5, [1 .5]: 1.5?), or after a string ending"
    .. " in a comma or a closer (\"x,\" \"y\": 1: typed inside its quote?): '" .. text
    .. "'); send valid JSON"
end

local function taken_back(line, column)
  return ("the reply's answer at line 1, column 1 is taken back by the text after it, at line %d, column %d"
    .. " (Actually, Oops, I meant, a typo, not sure, another value offered, made up): which value was meant is a"
    .. " guess; send it alone"):format(line, column)
end

describe("hunt18", function()
  it("refuses a number joined to the next by a sign or a split point on one line, in repair and extract", function()
    for _, case in ipairs {
      { "[10 -5]", joined("line 1, column 5", "-5") },
      { "[0.5 -0.5]", joined("line 1, column 6", "-0.5") },
      { "[1 .5]", joined("line 1, column 4", ".5") },
      { "[1. 5]", joined("line 1, column 5", "5") },
      { "[3 -1, 4]", joined("line 1, column 4", "-1") },
    } do
      local v, msg, code = coax.repair(case[1])
      assert.are.same({ nil, case[2], "COAX_ENOJSON" }, { v, msg, code })
    end
    refused('{"offsets": [10 -5]}', '{"type":"object"}', "", joined("line 1, column 17", "-5"))
  end)

  it("keeps items a line break, a comma or no sign parts", function()
    for text, value in pairs {
      ["[10\n-5]"] = "[10,-5]",
      ["[10\r\n-5]"] = "[10,-5]",
      ["[10, -5]"] = "[10,-5]",
      ["[1 2]"] = "[1,2]",
      ["[1.5 2]"] = "[1.5,2]",
      ['{"a": [1 2], "b": -3}'] = '{"a":[1,2],"b":-3}',
    } do
      assert.are.equal(value, json.encode((coax.repair(text))), text)
    end
  end)

  it("refuses an answer another value is offered for after it, where the offer starts", function()
    refused(answer .. "\n\nThe age could also be 37.", person, "", taken_back(3, 9))
    refused(answer .. " (or 37)", person, "", taken_back(1, 29))
    refused('{"city": "Paris"}\n\nIt may also be "Lyon".', '{"type":"object"}', "", taken_back(3, 4))
    refused(answer .. "\n\nEither 36 or 37.", person, "", taken_back(3, 1))
    refused(answer .. "\n\nNote: 37 is also possible.", person, "", taken_back(3, 10))
    for _, twin in ipairs { "\n\nAges may be 0 when unknown.", "\n\nThe list may be empty.",
      "\n\nOr, if you prefer, I can add more fields." } do
      local r = coax.extract(answer .. twin, person)
      assert.are.same({ true, '{"name":"Ada","age":36}' }, { r.valid, json.encode(r.value) }, twin)
    end
  end)

  it("refuses an answer a value of which is said to be made up, and a remark member saying so", function()
    refused(answer .. "\n\nI made up the age.", person, "", taken_back(3, 3))
    refused(answer .. "\n\nThe age is a guess.", person, "", taken_back(3, 12))
    refused(answer .. "\n\nI assumed she was born in 1990.", person, "", taken_back(3, 1))
    refused(answer .. "\n\nThis is sample data.", person, "", taken_back(3, 9))
    refused('{"name": "Ada", "age": 36, "notes": "age is a guess"}', person, "/notes",
      'the member "notes" gives "age" another value (a correction kept beside it): which one was meant is a guess;'
        .. " send one value")
    for _, twin in ipairs { "\n\nNothing here is made up.", "\n\nIf any value is a guess, tell me.",
      "\n\nThe age is inferred from her birth year.", "\n\nAda is an example of a pioneer.",
      "\n\nThe data is from her biography, not made up." } do
      local r = coax.extract(answer .. twin, person)
      assert.are.same({ true, '{"name":"Ada","age":36}' }, { r.valid, json.encode(r.value) }, twin)
    end
  end)
  it("refuses a reply that ends inside a block comment with a value open, as cut; a closed value keeps it", function()
    for _, text in ipairs { '{"a": 1 /* unit', '[1, 2 /* from', '{"a": "x" /* as written', '{"ok": true /* ' } do
      local v, msg, code = coax.repair(text)
      assert.are.same({ nil, "the JSON is incomplete: the reply ends inside it", "COAX_ENOJSON" }, { v, msg, code })
    end
    for text, value in pairs {
      ['{"a": 1} /* trailing'] = '{"a":1}',
      ['{"a": 1 /* unit */}'] = '{"a":1}',
      ['{"a": "x" // note'] = '{"a":"x"}',
    } do
      assert.are.equal(value, json.encode((coax.repair(text))), text)
    end
  end)
  it("refuses the only JSON its clause names as made up, assumed or sample data, at the word", function()
    local function marked(reply, json_column, word_column)
      refused(reply, person, "", ("the reply's JSON at line 1, column %d sits in a sentence that marks it as no"
        .. " answer, at line 1, column %d (For example, Suppose, Instead of, Not, Probably): send the answer alone")
        :format(json_column, word_column))
    end
    marked("Made-up values: " .. answer, 17, 6)
    marked("Here is some sample data: " .. answer, 27, 14)
    for _, twin in ipairs { "Here are some details: ", "Based on the text: " } do
      local r = coax.extract(twin .. answer, person)
      assert.are.same({ true, '{"name":"Ada","age":36}' }, { r.valid, json.encode(r.value) }, twin)
    end
  end)
end)
