-- hunt11: the streaming reader's promise that a part listed complete is the
-- one the whole reply's extraction takes. Every prefix of many replies is
-- checked in spec/c/test_stream_property.c; here the inputs that broke it,
-- and their twins, through `coax extract --partial` and `coax extract`.
local H = require "helper"

local ANY = "{}"
local OBJECT = '{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}'

describe("hunt11: a block that begins with a value of its own", function()
  local dir
  setup(function()
    dir = H.tmpdir()
    H.write(dir .. "/array.json", '{"type":"array"}')
    H.write(dir .. "/object.json", OBJECT)
    H.write(dir .. "/any.json", ANY)
  end)
  teardown(function() H.rmtree(dir) end)

  local function partial(text)
    local out, err, code = H.coax({ "extract", "--partial", "--schema", dir .. "/object.json", "-" }, text)
    assert.are.same({ "", 0 }, { err, code })
    return out
  end
  local function final(text, schema)
    local out, err, code = H.coax({ "extract", "--schema", dir .. "/" .. (schema or "array.json"), "-" }, text)
    return code == 0 and out or err
  end

  local STOPPED = '{"partial": null, "complete": [], "in_progress": null, "stopped": true}\n'
  -- The lenient parser reads the block as values one after another, as one
  -- string, or as a string left open: before the fix the reader listed the
  -- object inside as the complete root.
  local broke = {
    { "'x {\"a\": 1}'", '"x {\\"a\\": 1}"\n' },
    -- the code span's text, or the object in it and words? (deleted49: text that looks like JSON)
    { '`{"a": 1} and more`', "coax extract: no valid value: at '': unreadable text at line 1, column 1 (read a"
      .. " template literal as its text: what ${...} stands for was not written, or the backticks are Markdown's"
      .. " around a value (`42`, `true`): '`'); send valid JSON (1 error)\n" },
    { '``{"a": 1}``', "coax extract: no valid value: at '': unreadable text at line 1, column 1 (read a"
      .. " template literal as its text: what ${...} stands for was not written, or the backticks are Markdown's"
      .. " around a value (`42`, `true`): '``'); send valid JSON (1 error)\n" },
    { "\u{2018}x {\"a\": 1}\u{2019}", '"x {\\"a\\": 1}"\n' },
    { "\u{2019}x {\"a\": 1}\u{2019}", '"x {\\"a\\": 1}"\n' },
    { "'x {\"a\": 1}\nmore'", '"x {\\"a\\": 1}\\nmore"\n' },
    { '0{"a": 1}', '[0,{"a":1}]\n' },
    { 'true {"a": 1}', '[true,{"a":1}]\n' },
    { '<think>x</think>5 {"a": 1}', '[5,{"a":1}]\n' },
    { "'Sure,' {\"a\": 1}",
      "coax extract: no valid value: at '': the JSON is incomplete: the reply ends inside it (2 errors)\n" },
    { "`x` {\"a\": 1}", -- a string left open, whose text looks like JSON too
      "coax extract: no valid value: at '': the JSON is incomplete: the reply ends inside it (2 errors)\n" },
  }
  for _, c in ipairs(broke) do
    it("follows nothing in " .. c[1], function()
      assert.are.equal(STOPPED, partial(c[1]))
      assert.are.equal(c[2], final(c[1], c[2]:find("^%[") and "array.json" or "any.json"))
    end)
  end

  -- Where the extraction takes the object after all, the stop costs the
  -- partials, never a value.
  for _, t in ipairs { '`{"a": 1}`', '200 OK {"a": 1}', 'json({"a": 1})', '"x {"a": 1}"',
    "\u{201C}x {\"a\": 1}\u{201D}",
    "<json>'{\"a\": 1} y'</json>" } do
    it("stops in " .. t .. ", taken by the extraction", function()
      assert.are.equal(STOPPED, partial(t))
      assert.are.equal('{"a":1}\n', final(t, "object.json"))
    end)
  end

  -- A numbered list's marker is no value (repair_value_starts): before the
  -- fix "1. {...}" was [1.0,{"a":1}] to a schema that takes an array, and
  -- a list of two objects [1.0,{"a":1},2.0,{"a":2}] (a lossless number_format).
  it("reads 1. as a list's marker, not a number", function()
    assert.are.equal('{"partial": {"a":1}, "complete": [""], "in_progress": null}\n', partial('1. {"a": 1}'))
    assert.are.equal('[{"a":1}]\n', final('1. {"a": 1}', "array.json"))
    assert.matches("the reply holds two different answers", final('1. {"a": 1}\n2. {"a": 2}', "array.json"), 1, true)
    assert.are.equal("coax extract: no JSON value found in 4 bytes of text\n", final("3. 5", "array.json"))
    -- twins: a number and a period at the end of its line, 1.5, a cut 5.
    assert.are.equal("[5.0]\n", final("5. ", "array.json"))
    assert.are.equal("[1.5,{\"a\":1}]\n", final('1.5 {"a": 1}', "array.json"))
    assert.are.equal(STOPPED, partial('1.5 {"a": 1}'))
  end)

  -- Twins: prose first, a quote that does not begin the block, a fence, a
  -- tilde, a dash, a call: followed as before.
  local twins = {
    "it's {\"a\": 1}", "Sure! {\"a\": 1}", "Answer: `{\"a\": 1} and more`", "```json\n{\"a\": 1}\n```",
    "~{\"a\": 1}", "\u{2014} {\"a\": 1}", "<answer>{\"a\": 1}</answer>",
  }
  for _, t in ipairs(twins) do
    it("still follows " .. t, function()
      assert.are.equal('{"partial": {"a":1}, "complete": [""], "in_progress": null}\n', partial(t))
      assert.are.equal('{"a":1}\n', final(t, "object.json"))
    end)
  end

  it("a quote after the value changes nothing listed", function()
    assert.are.equal('{"partial": {"a":1}, "complete": [""], "in_progress": null}\n', partial("{\"a\": 1} it's done"))
    assert.are.equal('{"a":1}\n', final("{\"a\": 1} it's done", "object.json"))
  end)
end)

describe("hunt11: another value after the one the reader followed", function()
  local dir
  setup(function()
    dir = H.tmpdir()
    H.write(dir .. "/array.json", '{"type":"array"}')
    H.write(dir .. "/any.json", ANY)
  end)
  teardown(function() H.rmtree(dir) end)

  local function both(text, schema)
    local p, err, code = H.coax({ "extract", "--partial", "--schema", dir .. "/" .. schema, "-" }, text)
    assert.are.same({ "", 0 }, { err, code })
    local out, err2 = H.coax({ "extract", "--schema", dir .. "/" .. schema, "-" }, text)
    return p, out ~= "" and out or err2
  end

  -- A string, number or literal after the value: the text holds several
  -- values, an array to a schema that takes one. Before the fix the reader
  -- listed the root as [{"a":1}] and did not stop, as it does for a '{'.
  local several = {
    { '{"a": 1} "x"', '[{"a":1},"x"]' }, { "{\"a\": 1} 'x'", '[{"a":1},"x"]' },
    { '{"a": 1} `x`', '[{"a":1},"x"]' }, { '{"a": 1} 5', '[{"a":1},5]' }, { '{"a": 1} -5', '[{"a":1},-5]' },
    { '{"a": 1} true', '[{"a":1},true]' }, { '{"a": 1} None', '[{"a":1},null]' },
    { '{"a": 1}\n\u{2018}x\u{2019}', '[{"a":1},"x"]' }, { '```json\n{"a": 1} 5\n```', '[{"a":1},5]' },
  }
  for _, c in ipairs(several) do
    it("stops at " .. c[1], function()
      local p, f = both(c[1], "array.json")
      assert.are.equal('{"partial": [{"a":1}], "complete": [""], "in_progress": null, "stopped": true}\n', p)
      assert.are.equal(c[2] .. "\n", f)
    end)
  end

  -- Twins: prose after the value, a word that starts like a literal, a
  -- dash, the closing fence, a tag, a code span after the fence.
  local prose = {
    "{\"a\": 1} thanks, bye", "{\"a\": 1} truly", "{\"a\": 1} - done", "{\"a\": 1} Hope this helps.",
    "```json\n{\"a\": 1}\n``` `x`", "<json>{\"a\": 1}</json>", "{\"a\": 1} nothing else",
  }
  for _, t in ipairs(prose) do
    it("follows on after " .. t, function()
      local p, f = both(t, "array.json")
      assert.are.equal('{"partial": [{"a":1}], "complete": [""], "in_progress": null}\n', p)
      assert.are.equal('[{"a":1}]\n', f)
    end)
  end
end)

describe("hunt11: JSON the extraction scores as no answer (an example, a draft, a wrong answer)", function()
  local dir
  setup(function()
    dir = H.tmpdir()
    H.write(dir .. "/object.json", OBJECT)
  end)
  teardown(function() H.rmtree(dir) end)

  local function both(text)
    local p, err, code = H.coax({ "extract", "--partial", "--schema", dir .. "/object.json", "-" }, text)
    assert.are.same({ "", 0 }, { err, code })
    local out, err2 = H.coax({ "extract", "--schema", dir .. "/object.json", "-" }, text)
    return p, out ~= "" and out or err2
  end

  -- Before the fix the reader followed the example, listed /a = "x" and
  -- said doomed: stop_early cancelled a reply the extraction accepts, and a
  -- partial told made the session refuse it.
  local DOOMED_BEFORE = {
    "Wrong answer:\n```json\n{\"a\": \"x\"}\n```\nRight:\n```json\n{\"a\": 2}\n```",
    "<draft>{\"a\": \"x\"}</draft>\n{\"a\": 2}",
    "<wrong_answer>{\"a\": \"x\"}</wrong_answer><answer>{\"a\": 2}</answer>",
    "Example:\n{\"a\": \"x\"}\nNow yours:\n{\"a\": 2}",
    "<!-- {\"a\": \"x\"} --> {\"a\": 2}",
  }
  local partials = {
    '{"partial": null, "complete": [], "in_progress": null, "stopped": true}\n',
    '{"partial": {"a":2}, "complete": [""], "in_progress": null}\n',
    '{"partial": {"a":2}, "complete": [""], "in_progress": null}\n',
    '{"partial": null, "complete": [], "in_progress": null, "stopped": true}\n',
    '{"partial": null, "complete": [], "in_progress": null, "stopped": true}\n',
  }
  for i, t in ipairs(DOOMED_BEFORE) do
    it("is not doomed by " .. t:gsub("\n", " "), function()
      local p, f = both(t)
      assert.are.same({ partials[i], '{"a":2}\n' }, { p, f })
    end)
  end

  it("the only JSON, an example: nothing listed, refused by the extraction", function()
    local p, f = both('Example: {"a": 1}')
    assert.are.equal('{"partial": null, "complete": [], "in_progress": null, "stopped": true}\n', p)
    assert.matches("the only JSON is marked as no answer", f, 1, true)
    p, f = both('<example>{"a": 1}</example>')
    assert.are.equal('{"partial": null, "complete": [], "in_progress": null}\n', p)
    assert.matches("the only JSON is in a block whose tag says it holds no answer", f, 1, true)
  end)

  -- A tag is a block only when JSON starts its content (the scan's rule);
  -- a span in one that starts with prose is still in its element, which
  -- says it holds no answer (hunt28): the reader stops there, as at a
  -- label's ("Example: {...}"), and the extraction takes the value after.
  it("skips a tag whose content starts with JSON, and stops at one that starts with prose", function()
    local p, f = both('<example> {"a": "x"}</example> and {"a": 2}')
    assert.are.same({ '{"partial": {"a":2}, "complete": [""], "in_progress": null}\n', '{"a":2}\n' }, { p, f })
    p, f = both('<example>Here: {"a": 1}</example> and {"a": 2}')
    assert.are.same({ '{"partial": null, "complete": [], "in_progress": null, "stopped": true}\n', '{"a":2}\n' },
      { p, f })
  end)

  -- Twins: labels that introduce the answer, a tag that holds it, a word
  -- inside a sentence.
  local twins = {
    "For your input:\n```json\n{\"a\": 2}\n```", "Here: {\"a\": 2}", "<answer>{\"a\": 2}</answer>",
    "That was wrong; corrected: {\"a\": 2}", "Example 1 was wrong. Final:\n{\"a\": 2}",
  }
  for _, t in ipairs(twins) do
    it("follows " .. t:gsub("\n", " "), function()
      local p, f = both(t)
      assert.are.same({ '{"partial": {"a":2}, "complete": [""], "in_progress": null}\n', '{"a":2}\n' }, { p, f })
    end)
  end
end)

describe("hunt11: stop_early on a reply whose first JSON is no answer", function()
  local coax = require "coax"
  local dir
  setup(function()
    dir = H.tmpdir()
    H.write(dir .. "/p.json", '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},'
      .. '"required":["name","age"]}')
  end)
  teardown(function() H.rmtree(dir) end)

  -- The recipe's own agent streams the reply three bytes a piece. Before
  -- the fix the example's "x" doomed the reply: cancelled, 1 attempt spent,
  -- where the extraction of the whole reply takes the answer after it.
  local replies = {
    '<draft>{"name": "X", "age": "x"}</draft>\n{"name": "Ada", "age": 36}',
    'Wrong answer:\n```json\n{"name": "X", "age": "x"}\n```\nRight:\n```json\n{"name": "Ada", "age": 36}\n```',
  }
  for _, text in ipairs(replies) do
    it("takes the answer: " .. text:gsub("\n", " "), function()
      H.write(dir .. "/r.lua", ([[return { schema = "p.json", prompt = "x", max_attempts = 1,
  stream = { every_ms = 0, stop_early = true },
  agent = { stream = true, call = function(request)
    local t = %q
    for i = 1, #t, 3 do request.on_text(t:sub(i, i + 2)) end
    return { text = t }
  end } }]]):format(text))
      local e = coax.engine()
      local s = e:session(dir .. "/r.lua", "x")
      local status = s:run()
      local report = s:report()
      assert.are.same({ "ok", { name = "Ada", age = 36 }, #text },
        { status, s:value(), report.attempts[1].bytes_received })
      assert.is_nil(report.attempts[1].stopped_early)
      e:close()
    end)
  end
end)
