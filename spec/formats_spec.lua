-- An extraction checks "format" (the formats coax knows) in every draft: a
-- value for `"format": "date"` is a real date. JSON Schema 2019-09 and
-- 2020-12 make "format" an annotation unless asked, and coax validate keeps
-- that; an extraction asks, because a schema's "date" (Pydantic writes one for
-- every datetime.date) says what the caller can use, and a model's "March 5,
-- 2024" or "2023-02-29" passed as valid reached it as a value it cannot read.
local H = require "helper"
local coax = require "coax"
local json = coax.json

local BORN = { type = "object", properties = { born = { type = "string", format = "date" } }, required = { "born" } }
local FORMAT_ERROR = 'expected an RFC 3339 full-date (format "date"), got "2023-02-29"'

describe("an extraction's formats", function()
  it("coax.extract refuses a date that is none, with its path and keyword, and keeps a real one", function()
    local r = assert(coax.extract('{"born": "2023-02-29"}', BORN))
    assert.is_false(r.valid)
    assert.are.same({ "/born", "/properties/born/format", FORMAT_ERROR },
      { r.errors[1].instanceLocation, r.errors[1].keywordLocation, r.errors[1].error })
    assert.are.equal(1, #r.errors)
    r = assert(coax.extract('{"born": "2024-02-29"}', json.encode(BORN)))
    assert.is_true(r.valid)
    assert.are.equal('{"born":"2024-02-29"}', json.encode(r.value))
  end)

  it("checks them under 2019-09's and 2020-12's $schema too, and in draft 7 as before", function()
    for _, uri in ipairs { "https://json-schema.org/draft/2020-12/schema",
      "https://json-schema.org/draft/2019-09/schema", "http://json-schema.org/draft-07/schema#" } do
      local s = json.decode(json.encode(BORN))
      s["$schema"] = uri
      assert.is_false(assert(coax.extract('{"born": "March 5, 2024"}', s)).valid, uri)
      assert.is_true(assert(coax.extract('{"born": "2024-03-05"}', s)).valid, uri)
    end
  end)

  it("leaves a format coax does not know, and one on a type that is no string, as remarks", function()
    local s = { type = "object", properties = { phone = { type = "string", format = "phone" },
      n = { type = "integer", format = "date" } } }
    local r = assert(coax.extract('{"phone": "+33 1 23 45 67 89", "n": 5}', s))
    assert.is_true(r.valid)
    assert.are.equal('{"phone":"+33 1 23 45 67 89","n":5}', json.encode(r.value))
  end)

  it("are annotations in a schema the caller compiled with assert_format = false", function()
    local s = assert(coax.schema(BORN, { assert_format = false }))
    local r = assert(coax.extract('{"born": "2023-02-29"}', s))
    assert.is_true(r.valid)
    assert.are.equal('{"born":"2023-02-29"}', json.encode(r.value))
  end)

  it("coax extract refuses the date (exit 1) and takes it with --annotate-format (exit 0)", function()
    local path = H.tmpfile(json.encode(BORN))
    local out, err, code = H.coax({ "extract", "--schema", path }, '{"born": "2023-02-29"}')
    assert.are.same({ "", "coax extract: no valid value: at '/born': " .. FORMAT_ERROR .. " (1 error)\n", 1 },
      { out, err, code })
    out, err, code = H.coax({ "extract", "--schema", path, "--annotate-format" }, '{"born": "2023-02-29"}')
    assert.are.same({ '{"born":"2023-02-29"}\n', "", 0 }, { out, err, code })
    os.remove(path)
  end)

  it("a session feeds the format's error back and takes the next reply's real date", function()
    local recipe = 'return { schema = { type = "object", properties = { born = { type = "string", format = "date" } },'
      .. ' required = { "born" } }, prompt = "When was Ada born? {{input}}" }'
    local r = coax.run(recipe, "She was born on the 29th of February 2023.",
      { source = true, replies = { '{"born": "2023-02-29"}', '{"born": "2024-02-29"}' } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal('{"born":"2024-02-29"}', json.encode(r.value))
    assert.are.same({ "invalid", "/born", FORMAT_ERROR },
      { r.attempts[1].outcome, r.attempts[1].errors[1].instanceLocation, r.attempts[1].errors[1].error })
    assert.truthy(H.conversation(r, 2)[3].content:find(FORMAT_ERROR, 1, true))
  end)
end)
