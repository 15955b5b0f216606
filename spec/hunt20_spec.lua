-- hunt20: the same reply through every way in (coax.extract, coax repair, a
-- session's host, command and replay agents, streamed in pieces), and two
-- faults at once. Four classes gave a wrong value: (1) the host, command and
-- replay agents said finish "stop", which no provider had said, so a number an
-- open reply ends on ({"n": 12, cut from 1234?) was taken in a session and
-- refused by coax extract; (2) a stray closer that a second fault hid: a word
-- or number it split followed by more than a closer, members after it broken
-- another way, a remark before the closers; (3) a key over lines holding
-- JSON's punctuation, which ends at a later key's quote; (4) drafts before
-- 2020-12: a tuple of `items` swapped, a `dependencies` default beside
-- another. The values are in spec/fixtures/confidence/hunt20.jsonl; here the
-- sessions and the places.
require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"
local json = coax.json

local incomplete = "1 attempt used up; the last failed: 1 validation error, the first at '': the JSON is"
  .. " incomplete: the reply ends inside it"
local person = "return { schema = { type = 'object', properties = { name = { type = 'string' }, age = {"
  .. " type = 'integer' } }, required = { 'name', 'age' } }, prompt = 'x {{input}}', max_attempts = 1%s }"

describe("hunt20: a session claims no finish its agent was not told", function()
  local function host(reply, finish)
    local e = coax.engine()
    local s = e:session(person:format(", agent = 'host'"), "x", { source = true })
    e:poll(0)
    assert.is_true(s:host_reply(reply, nil, finish))
    e:poll(0)
    return s
  end

  it("refuses, through the host agent, a number an open reply ends on, as coax extract does", function()
    local s = host('{"name": "Ada", "age": 3')
    assert.are.same({ "exhausted", "exhausted", incomplete }, { s:outcome(), s:error() })
    assert.are.equal(json.null, s:report().attempts[1].finish)
    local r = coax.extract('{"name": "Ada", "age": 3', '{"type":"object"}')
    assert.are.same({ false, "the JSON is incomplete: the reply ends inside it" }, { r.valid, r.errors[1].error })
  end)

  it("takes it where the host says its model stopped, and refuses it where the model was cut off", function()
    local s = host('{"name": "Ada", "age": 3', "stop")
    assert.are.same({ "ok", { name = "Ada", age = 3 }, "stop" },
      { s:outcome(), s:value(), s:report().attempts[1].finish })
    s = host('{"name": "Ada", "age": 3', "length")
    assert.are.same({ "exhausted", "length", "1 attempt used up; the last failed: 1 validation error, the first at '':"
      .. " the reply was cut off: the JSON is incomplete" },
      { s:outcome(), s:report().attempts[1].finish, select(2, s:error()) })
  end)

  it("refuses a finish no provider says, and the session still waits for its reply", function()
    local e = coax.engine()
    local s = e:session(person:format(", agent = 'host'"), "x", { source = true })
    e:poll(0)
    assert.are.same({ nil, "a finish of 30 bytes: at most 23", "COAX_EINVAL" },
      { s:host_reply("{}", nil, ("x"):rep(30)) })
    assert.are.same({ nil, "a finish is printable ASCII: byte 0 is 0x20", "COAX_EINVAL" },
      { s:host_reply("{}", nil, " stop") })
    assert.are.same({ nil, "a finish is printable ASCII: a NUL byte in it", "COAX_EINVAL" },
      { s:host_reply("{}", nil, "stop\0x") }) -- C would read "stop": a number an open reply ends on taken
    assert.is_true(s:host_reply('{"name": "Ada", "age": 3'))
    e:poll(0)
    assert.are.same({ "exhausted", json.null }, { s:outcome(), s:report().attempts[1].finish })
  end)

  it("takes a number a space ends and closes the object, as coax extract does", function()
    local s = host('{"name": "Ada", "age": 36 ')
    assert.are.same({ "ok", { name = "Ada", age = 36 } }, { s:outcome(), s:value() })
  end)

  it("refuses it from the replay agent's bare transcript, and takes it where the transcript says stop", function()
    local r = coax.run(person:format(""), "x", { source = true, replies = { '{"name": "Ada", "age": 3' } })
    assert.are.same({ "exhausted", incomplete, json.null }, { r.outcome, r.error.message, r.attempts[1].finish })
    r = coax.run(person:format(""), "x",
      { source = true, replies = { { text = '{"name": "Ada", "age": 3', finish = "stop" } } })
    assert.are.same({ "ok", { name = "Ada", age = 3 }, "stop" }, { r.outcome, r.value, r.attempts[1].finish })
  end)

  it("refuses it from the command agent, whose exit 0 says nothing of a limit", function()
    local r = coax.run(person:format(""), "x", { source = true, command = "printf '{\"name\": \"Ada\", \"age\": 3'" })
    assert.are.same({ "exhausted", incomplete, json.null }, { r.outcome, r.error.message, r.attempts[1].finish })
  end)
end)

describe("hunt20: a stray closer a second fault hid", function()
  local early = "unreadable text at line %d, column %d (members follow an object or array that was closed"
    .. " before them: '%s'); send valid JSON"
  local moved = "unreadable text at line 1, column %d (a closing bracket no bracket opened after the value, which"
    .. " closes an object or list before more members or items: which bracket was the extra one is a guess: '%s');"
    .. " send valid JSON"

  it("refuses a word or number its closer split, whatever follows, at the text after the closer", function()
    for text, want in pairs {
      ['Here: {"n": 1}2 (approx)}'] = early:format(1, 15, "2 (approx)"),
      ['{"email": "x", "age": 0.}001 (approximately)}'] = early:format(1, 26, "001 (approximately)"),
      ['Here: {"ok": tr}ue (yes)}'] = early:format(1, 17, "ue (yes)"),
      ['Here: {"n": 1.}5 units'] = early:format(1, 16, "5 units"),
    } do
      assert.are.same({ nil, want, "COAX_ENOJSON" }, { coax.repair(text) })
    end
  end)

  it("refuses members broken another way after a stray closer, the guess invented in the value's log", function()
    local text = '{"id": "x",} "email" 0, "tags": true}'
    assert.are.same({ nil, early:format(1, 13, " "), "COAX_ENOJSON" }, { coax.repair(text) })
    local v, log = coax.repair(text, { guess = true })
    assert.are.same({ id = "x" }, v)
    assert.are.same({ "early_close", "invented", 12 }, { log[#log].kind, log[#log].class, log[#log].offset })
    assert.are.same({ nil, early:format(2, 15, ","), "COAX_ENOJSON" },
      { coax.repair('{\n  "count": -5},}\n  "email": [\n    false\n  ],\n  "tags": null\n}') })
  end)

  it("counts the closers that end a remark's line as stray closers", function()
    assert.are.same({ nil, moved:format(44, " (approximately)"), "COAX_ENOJSON" },
      { coax.repair('{"items": 1, "ok": {"city": 10}, "tags": 2} (approximately)}') })
    assert.are.same({ a = { b = 1 } }, (coax.repair('{"a": {"b": 1}} (approx)}')))
  end)

  it("keeps what has one reading: a period, a spaced word, a quoted key with no closer, emphasis", function()
    for text, want in pairs {
      ['Here: {"n": 1}. Done'] = { n = 1 }, ['Here: {"n": [1, 2]} ok'] = { n = { 1, 2 } },
      ['Sure: {"a": 1} (the "a": field)'] = { a = 1 }, ["The ids: _[1, 2]_"] = { 1, 2 },
    } do
      assert.are.same(want, (coax.repair(text)))
    end
  end)
end)

describe("hunt20: a key over lines that holds JSON's punctuation", function()
  it("is a guess at which quote ends it, at the key's first character", function()
    local text = '{\n  "email": 1,\n  "count: [\n    {\n      note": "x"\n    }\n  ]\n}'
    assert.are.same({ nil, "unreadable text at line 3, column 4 (guessed which quote ends the string: 'count');"
      .. " send valid JSON", "COAX_ENOJSON" }, { coax.repair(text) })
    local _, log = coax.repair(text, { guess = true })
    assert.are.same({ "unescaped_quote", "invented", 19 }, { log[1].kind, log[1].class, log[1].offset })
  end)

  it("keeps a key over lines with no bracket, comma or colon in it, and a value's line break", function()
    assert.are.same({ ["a\n    "] = "b" }, (coax.repair('{"a\n    ": "b"}')))
    assert.are.same({ ["key\nafter"] = "foo" }, (coax.repair('{"key\nafter": "foo"}')))
    local v, log = coax.repair('{"note": "one\ntwo"}')
    assert.are.same({ { note = "one\ntwo" }, "control_character", "lossless" }, { v, log[1].kind, log[1].class })
  end)
end)

describe("hunt20: drafts before 2020-12 keep their 2020-12 keywords' rules", function()
  local tuple = '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": [{"type":'
    .. ' "integer"}, {"type": "string"}]}'

  it("refuses a tuple of items whose two items fit each other's slot, at the first", function()
    local r = coax.extract('["5", 6]', tuple)
    assert.are.same({ false, "/0", "/items/0/type", 'expected integer, got string "5"' },
      { r.valid, r.errors[1].instanceLocation, r.errors[1].keywordLocation, r.errors[1].error })
    r = coax.extract('["5", "x"]', tuple)
    assert.are.same({ true, { 5, "x" }, "string_to_integer", "/0" },
      { r.valid, r.value, r.coercions[1].kind, r.coercions[1].pointer })
  end)

  it("fills no default a dependencies schema gives another of", function()
    local schema = '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a":'
      .. ' {"type": "integer"}, "b": {"type": "integer", "default": 1}}, "required": ["b"], "dependencies": %s}'
    local r = coax.extract('{"a": 1}', schema:format('{"a": {"properties": {"b": {"default": 2}}}}'))
    assert.are.same({ false, 'missing required property "b"' }, { r.valid, r.errors[1].error })
    r = coax.extract('{"a": 1}', schema:format('{"a": ["b"]}'))
    assert.are.same({ true, { a = 1, b = 1 } }, { r.valid, r.value })
  end)
end)
