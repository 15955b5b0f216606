-- hunt21: readings other parsers' suites (json-fixer's samples, jsonic's,
-- really-relaxed-json's, best-effort-json-parser's) showed coax taking as
-- sure. A comment holding nothing but another value than the one before it
-- ("version": 19 //16), a number marked approximate, complemented or bounded
-- (~6, ≈2.5, <5, ≥18) and digits and points ending in a point (0.3., 1.2.3.) each have
-- two readings. The values are in spec/fixtures/confidence/hunt21.jsonl;
-- here the logs' kinds, classes and places, and the errors' words.
require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"
local json = coax.json

local GUESS = { guess = true }

local COMMENT = "removed a comment that says content was left out, that may hold the rest of the value, or that"
  .. " takes back the value before it (a correction, another value alone, a made-up value, a stand-in for none)"
local UNQUOTED = "a string was guessed from text whose end is unclear, or that is no value (etc., a placeholder"
  .. " such as <age>, a number in another language's syntax such as 0x1F)"

-- the reply is refused by default, and --guess reads value with the repair
-- of kind at offset invented
local function guessed(reply, value, kind, offset, detail, where, text)
  local v, msg, code = coax.repair(reply)
  assert.are.same({ nil, "unreadable text at " .. where .. " (" .. detail .. ": '" .. text .. "'); send valid JSON",
    "COAX_ENOJSON" }, { v, msg, code }, reply)
  local g, log = coax.repair(reply, GUESS)
  local last = log[#log]
  assert.are.same({ value, kind, "invented", offset, detail },
    { json.encode(g), last.kind, last.class, last.offset, last.detail }, reply)
end

-- the reply's value, sure: every repair lossless or inferred
local function sure(reply, value, kinds)
  local v, log = coax.repair(reply, GUESS)
  local seen = {}
  for i, entry in ipairs(log) do seen[i] = entry.kind .. ":" .. entry.class end
  assert.are.same({ value, kinds }, { json.encode(v), seen }, reply)
  assert.are.equal(value, json.encode((coax.repair(reply))), reply)
end

describe("hunt21", function()
  it("refuses a comment holding nothing but another value than the one before it", function()
    guessed('{"version": 19 //16\n}', '{"version":19}', "comment", 15, COMMENT, "line 1, column 16", "//16")
    guessed('{"age": 36 /* 37 */, "name": "Ada"}', '{"age":36,"name":"Ada"}', "comment", 11, COMMENT,
      "line 1, column 12", "/* 37 */")
    guessed('{"age": 36, // 37\n "name": "Ada"}', '{"age":36,"name":"Ada"}', "comment", 12, COMMENT,
      "line 1, column 13", "// 37")
    guessed('{"ok": true # false\n}', '{"ok":true}', "comment", 12, COMMENT, "line 1, column 13", "# false")
    -- the error's excerpt stops at a quote
    guessed('{"city": "Paris" // "Lyon"\n}', '{"city":"Paris"}', "comment", 17, COMMENT, "line 1, column 18", "// ")
    guessed('{"age": 36 // -> 37\n}', '{"age":36}', "comment", 11, COMMENT, "line 1, column 12", "// -> 37")
    guessed('{"age": 36 // (37)\n}', '{"age":36}', "comment", 11, COMMENT, "line 1, column 12", "// (37)")
    guessed('{"ids": [1 /* 2 */, 3]}', '{"ids":[1,3]}', "comment", 11, COMMENT, "line 1, column 12", "/* 2 */")
    -- marked about or equal, or ending a sentence: the value offered all the same (review45)
    guessed('{"age": 36 // ~37\n}', '{"age":36}', "comment", 11, COMMENT, "line 1, column 12", "// ~37")
    guessed('{"age": 36 // = 37\n}', '{"age":36}', "comment", 11, COMMENT, "line 1, column 12", "// = 37")
    guessed('{"age": 36 // 37.\n}', '{"age":36}', "comment", 11, COMMENT, "line 1, column 12", "// 37.")
    guessed('{"age": 36 /* \u{2248}37 */}', '{"age":36}', "comment", 11, COMMENT, "line 1, column 12",
      "/* \u{2248}37 */")
  end)

  it("keeps a comment that repeats the value, names a unit or a range, or is an item left out of a list", function()
    sure('{"age": 36 // 36\n}', '{"age":36}', { "comment:lossless" })
    sure('{"n": 5 // 5.0\n}', '{"n":5}', { "comment:lossless" })
    sure("{\"city\": \"Paris\" // 'Paris'\n}", '{"city":"Paris"}', { "comment:lossless" })
    sure('{"timeout": 30 // seconds\n}', '{"timeout":30}', { "comment:lossless" })
    sure('{"n": 5 // 0-10\n}', '{"n":5}', { "comment:lossless" })
    sure('{"ratio": 0.5 // 50%\n}', '{"ratio":0.5}', { "comment:lossless" })
    sure('{"color": 16711680 // 0xFF0000\n}', '{"color":16711680}', { "comment:lossless" })
    sure('{"ids": [1, // 2\n 3]}', '{"ids":[1,3]}', { "comment:lossless" })
    sure('{"ids": [1, 2] // 3\n}', '{"ids":[1,2]}', { "comment:lossless" })
    sure('{"age": 36 // ~36\n}', '{"age":36}', { "comment:lossless" })
    sure('{"age": 36 // 36.\n}', '{"age":36}', { "comment:lossless" })
    sure('{"age": 36 // <40\n}', '{"age":36}', { "comment:lossless" })
    sure("[1,# one\n2,# two\n3]", "[1,2,3]", { "comment:lossless", "comment:lossless" })
  end)

  it("refuses a number marked approximate, complemented or bounded", function()
    guessed('{"version": ~6}', '{"version":"~6"}', "unquoted_string", 12, UNQUOTED, "line 1, column 13", "~6")
    guessed('{"n": ~ 6}', '{"n":"~ 6"}', "unquoted_string", 6, UNQUOTED, "line 1, column 7", "~ 6")
    guessed('{"n": -~6}', '{"n":"-~6"}', "unquoted_string", 6, UNQUOTED, "line 1, column 7", "-~6")
    guessed("[~0.5]", '["~0.5"]', "unquoted_string", 1, UNQUOTED, "line 1, column 2", "~0.5")
    guessed('{"eta": ≈2.5}', '{"eta":"≈2.5"}', "unquoted_string", 8, UNQUOTED, "line 1, column 9", "≈2.5")
    -- a bound, as >5 was already
    guessed('{"n": <5}', '{"n":"<5"}', "unquoted_string", 6, UNQUOTED, "line 1, column 7", "<5")
    guessed('{"n": <= 5}', '{"n":"<= 5"}', "unquoted_string", 6, UNQUOTED, "line 1, column 7", "<= 5")
    guessed('{"age": ≥18}', '{"age":"≥18"}', "unquoted_string", 8, UNQUOTED, "line 1, column 9", "≥18")
    guessed('{"d": ≠0}', '{"d":"≠0"}', "unquoted_string", 6, UNQUOTED, "line 1, column 7", "≠0")
  end)

  it("keeps a home directory, an HTML tag, words after the mark and a mark in quotes", function()
    sure('{"dir": ~/projects}', '{"dir":"~/projects"}', { "unquoted_string:inferred" })
    sure('{"age": ~6 years}', '{"age":"~6 years"}', { "unquoted_string:inferred" })
    sure('{"tag": v~6}', '{"tag":"v~6"}', { "unquoted_string:inferred" })
    sure('{"label": "~6"}', '{"label":"~6"}', {})
    sure('{"html": <b>hi</b>}', '{"html":"<b>hi</b>"}', { "unquoted_string:inferred" })
    sure('{"age": <5 years}', '{"age":"<5 years"}', { "unquoted_string:inferred" })
  end)

  it("refuses digits and points ending in a point", function()
    guessed('{"version": 0.3.}', '{"version":"0.3."}', "unquoted_string", 12, UNQUOTED, "line 1, column 13", "0.3.")
    guessed('{"version": 1.2.3.}', '{"version":"1.2.3."}', "unquoted_string", 12, UNQUOTED, "line 1, column 13",
      "1.2.3.")
    guessed('{"v": 1.2., "b": 1}', '{"v":"1.2.","b":1}', "unquoted_string", 6, UNQUOTED, "line 1, column 7", "1.2.")
    guessed("[24.12.]", '["24.12."]', "unquoted_string", 1, UNQUOTED, "line 1, column 2", "24.12.")
  end)

  it("keeps a version, a date, a number's own point and an abbreviation", function()
    sure('{"version": 1.2.3}', '{"version":"1.2.3"}', { "unquoted_string:inferred" })
    sure('{"date": 24.12.2024}', '{"date":"24.12.2024"}', { "unquoted_string:inferred" })
    sure('{"v": 12.}', '{"v":12.0}', { "number_format:lossless" })
    sure('{"degree": Ph.D.}', '{"degree":"Ph.D."}', { "unquoted_string:inferred" })
  end)

  it("refuses them in coax extract too, where the schema takes the text", function()
    local text = '{"type":"object","properties":{"version":{"type":"string"}}}'
    for _, reply in ipairs { '{"version": 1.2.3.}', '{"version": ~6}', '{"version": "2" // "3"\n}' } do
      local r = coax.extract(reply, text)
      assert.are.same({ false, "" }, { r.valid, r.errors[1].instanceLocation }, reply)
    end
    local r = coax.extract('{"version": "2" // "2"\n}', text)
    assert.are.same({ true, '{"version":"2"}' }, { r.valid, json.encode(r.value) })
  end)
end)
