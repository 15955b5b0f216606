-- What coax.repair and `coax repair` accept without a schema: the value a
-- reply surely holds. A value that would be a guess is refused with the
-- reason (nil, message, "COAX_ENOJSON"; exit 1), as coax.extract refuses it
-- with the schema true. repair_spec.lua covers the parser's own reading.
local H = require "helper"
local coax = require "coax"
local json = coax.json

local function refusal(text, opts)
  local v, msg, code = coax.repair(text, opts)
  assert.is_nil(v, text)
  assert.are.equal("COAX_ENOJSON", code, text)
  return msg
end

local function accepted(text, opts)
  local v, log = coax.repair(text, opts)
  assert.is_not_nil(v, text)
  return json.encode(v), log
end

-- The refusal of a bare word read as a string by a guess, at where.
local function unquoted(where, word)
  return "unreadable text at " .. where .. " (a string was guessed from text whose end is unclear, or that is no"
    .. " value (etc., a placeholder such as <age>, a number in another language's syntax such as 0x1F): '"
    .. word .. "'); send valid JSON"
end

describe("coax.repair without a schema", function()
  it("refuses each kind of guess, saying where and why", function()
    local cases = {
      -- several values one after another: one list, or one of them?
      { '{"a": 1} {"a": 2}', "the reply holds several values one after another, at line 1, column 1 and at line 1, "
        .. "column 10: send one value (a list, if they are one answer)" },
      -- equal ones: one answer repeated, or a list of equal items?
      { '{"a": 1} {"a": 1}', "unreadable text at line 1, column 10 (the same value written again: one answer"
        .. " repeated, or a list of equal items? which is a guess: '{'); send valid JSON" },
      { "1,2,3",
        "the reply holds several values one after another, at line 1, column 1 and at line 1, column 3: "
        .. "send one value (a list, if they are one answer)" },
      { "1,234", "unreadable text at line 1, column 2 (a comma before three digits: one number's thousands separator,"
        .. " or two items: ',234'); send valid JSON" },
      { '{"key": "value"}, {}',
        "the reply holds several values one after another, at line 1, column 1 and at line 1, column 19: "
        .. "send one value (a list, if they are one answer)" },
      { '{"v": 1}\n{"v": 2}',
        "the reply holds several values one after another, at line 1, column 1 and at line 2, column 1: "
        .. "send one value (a list, if they are one answer)" },
      { 'I think {"a": 1} or maybe {"a": 2}',
        "the reply holds two different answers, at line 1, column 9 and at line 1, column 27: send one value" },
      -- structure or content invented
      { '{"a"2}', "unreadable text at line 1, column 4 (guessed which quote ends the string: '\"2'); send valid JSON" },
      { "{:2}", "unreadable text at line 1, column 2 (skipped an unexpected character: ':2'); send valid JSON" },
      { '{"a":1,"a":2}', "unreadable text at line 1, column 8 (a key given twice with two values: which one was"
        .. " meant is a guess: '\"a'); send valid JSON" },
      { "[1, 2, ...]", "unreadable text at line 1, column 8 (removed an ellipsis: '...'); send valid JSON" },
      -- cut off, a template, an example
      { '{"a": "x", "b": tru', "the JSON is incomplete: the reply ends inside it" },
      { '{"n": 12', "the JSON is incomplete: the reply ends inside it" },
      { '{"name": "<name>"}', 'a placeholder where a value was due ("<name>"): send the value itself' },
      { 'Example: {"a": 1}', "the only JSON is marked as no answer by a label or a comment before it or a remark"
        .. " after it (Example:, <!--, (example)), at line 1, column 10: send the answer itself" },
      { "The answer is 42", "no JSON value found in 16 bytes of text" },
      -- a number in another language's syntax: which number, or a code, is a guess
      { '{"mask": 0x1F}', unquoted("line 1, column 10", "0x1F") },
      { "[1_000]", unquoted("line 1, column 2", "1_000") },
      { '{"mode": 0755}', unquoted("line 1, column 10", "0755") },
      { "[1.5, nan, inf]", unquoted("line 1, column 7", "nan") },
      { '{"n": １２}', unquoted("line 1, column 7", "１２") },
      { '{"n": 1+2}', unquoted("line 1, column 7", "1+2") },
      { '{"n": 10n}', unquoted("line 1, column 7", "10n") },
      { '{"sep": \\n}', unquoted("line 1, column 9", "\\n") },
      -- a bare value that runs into the next key: a comma left out, or its words?
      { "{name: Ada Lovelace age: 36}", unquoted("line 1, column 8", "Ada Lovelace age") },
      -- a quote alone between spaces, or after a comment or a plus: the string's end, or text?
      { '{"a": "abc " def"}', "unreadable text at line 1, column 12 (guessed which quote ends the string: '\" def');"
        .. " send valid JSON" },
      { '["abc/*c*/+"def"]', "unreadable text at line 1, column 12 (guessed which quote ends the string: '\"def');"
        .. " send valid JSON" },
      -- backticks around JSON's own scalar: Markdown's code span, or a string's quotes?
      { "`42`", "unreadable text at line 1, column 1 (read a template literal as its text: what ${...} stands for was"
        .. " not written, or the backticks are Markdown's around a value (`42`, `true`): '`42`'); send valid JSON" },
      -- a # between spaces: Python's or YAML's comment, or the value's text?
      { '{"a": b # c}', unquoted("line 1, column 7", "b # c") },
      -- (hunt13) a comment that takes back the value before it, or prose after the answer that does
      { '{"age": 36 // actually 37\n}', "unreadable text at line 1, column 12 (removed a comment that says content"
        .. " was left out, that may hold the rest of the value, or that takes back the value before it (a correction,"
        .. " another value alone, a made-up value, a stand-in for none): '// actually 37'); send valid JSON" },
      { '```json\n{"city": "Paris"}\n```\nOops, I meant Lyon.', "the reply's answer at line 2, column 1 is taken"
        .. " back by the text after it, at line 4, column 1 (Actually, Oops, I meant, a typo, not sure, another value"
        .. " offered, made up): which value was meant is a guess; send it alone" },
      { 'For example, {"a": 1} would do.', "the reply's JSON at line 1, column 14 sits in a sentence that marks it as"
        .. " no answer, at line 1, column 5 (For example, Suppose, Instead of, Not, Probably): send the answer alone" },
      { 'Do not return {"a": 1}.', "the reply's JSON at line 1, column 15 sits in a sentence that marks it as no"
        .. " answer, at line 1, column 4 (For example, Suppose, Instead of, Not, Probably): send the answer alone" },
      { '{"a": 1} is not the answer.', "the reply's answer at line 1, column 1 is taken back by the text after it, at"
        .. " line 1, column 10 (Actually, Oops, I meant, a typo, not sure, another value offered, made up): which value"
        .. " was meant is a guess; send it alone" },
      { '{"a": 1}\nNote: a should actually be 3.', "the reply's answer at line 1, column 1 is taken back by the text"
        .. " after it, at line 2, column 9 (Actually, Oops, I meant, a typo, not sure, another value offered, made"
        .. " up): which value was meant is a guess; send it alone" },
    }
    for _, c in ipairs(cases) do assert.are.equal(c[2], refusal(c[1]), c[1]) end
  end)

  it("accepts what is sure, with the log of what was fixed (twins of the refusals)", function()
    local cases = {
      { "Sure! {name: 'Ada', tags: ['x',],}", '{"name":"Ada","tags":["x"]}' },
      { "```json\n{'a': 1, b: [1,2,],}\n```", '{"a":1,"b":[1,2]}' },
      { '{"a": 1}\n\nwhere \\frac{1}{2} is a half.', '{"a":1}' }, -- LaTeX reads only as a guess
      { '{"a":1,"a":1}', '{"a":1}' }, -- a key given twice with one value
      { "[TRUE, None]", "[true,null]" },
      { '{"name": "Ada", "tags": ["x", "y"', '{"name":"Ada","tags":["x","y"]}' }, -- brackets after a whole item
      { '"hello"', '"hello"' },
      { "42", "42" },
      { '{"n": 0, "x": 0.5, "d": 2024-01-05, "k": snake_case}', '{"n":0,"x":0.5,"d":"2024-01-05","k":"snake_case"}' },
      { "{a: Note: see below, t: at 10:30}", '{"a":"Note: see below","t":"at 10:30"}' },
      { "{a: C# and F#, b: Issue #42}", '{"a":"C# and F#","b":"Issue #42"}' },
      { "{a: infinite, b: C++, c: nano}", '{"a":"infinite","b":"C++","c":"nano"}' },
      { "{a: 2nd, b: 100px}", '{"a":"2nd","b":"100px"}' },
      { "{a: `x`, b: `true story`}", '{"a":"x","b":"true story"}' },
      { '{"a": "I like "C++" a lot", "b": "5" tall"}', '{"a":"I like \\"C++\\" a lot","b":"5\\" tall"}' },
      { '{"big": 12345678901234567890, "price": 1.10}', '{"big":12345678901234567890,"price":1.1}' },
      -- (hunt13) a remark about the value, and prose that takes back nothing
      { '{"timeout": 30 // seconds\n}', '{"timeout":30}' },
      { '{"email": null // not given\n}', '{"email":null}' },
      { '{"a": 1}\nLet me know if I made a mistake.', '{"a":1}' },
      { 'Based on the example you gave, here is the result: {"a": 1}', '{"a":1}' },
      { 'The earlier draft was wrong. Here it is: {"a": 1}', '{"a":1}' },
      { 'Actually, here it is:\n```json\n{"a": 1}\n```\nThis is actually simple.', '{"a":1}' },
    }
    for _, c in ipairs(cases) do assert.are.equal(c[2], (accepted(c[1])), c[1]) end
    local _, log = accepted("{a: 1, 'b': [1,],}")
    local kinds = {}
    for i, e in ipairs(log) do kinds[i] = e.kind .. " " .. e.class end
    assert.are.same({ "unquoted_key inferred", "single_quotes lossless", "trailing_comma lossless",
      "trailing_comma lossless" }, kinds)
  end)

  it("takes max_class and finish as coax.extract does", function()
    assert.are.equal('{"a\\"2":null}', (accepted('{"a"2}', { max_class = "invented" })))
    assert.are.equal("text that is not strict JSON at line 1, column 2 (quoted an unquoted key: 'a'); send valid JSON",
      refusal("{a: 1}", { max_class = "lossless" }))
    assert.are.equal('{"n":12}', (accepted('{"n": 12', { finish = "stop" })))
    assert.are.equal("the reply was cut off: the JSON is incomplete",
      refusal('{"name": "Ada", "tags": ["x", "y"', { finish = "length" }))
    assert.has_error(function() coax.repair("{}", { max_class = "sure" }) end)
    -- a misspelt option would read the reply at the default: an error instead
    assert.has_error(function() coax.repair("{a: 1}", { maxclass = "lossless" }) end,
      "coax.repair: unknown option 'maxclass'")
    assert.has_error(function() coax.extract("{a: 1}", "{}", { max_clas = "lossless" }) end,
      "coax.extract: unknown option 'max_clas'")
    assert.are.equal("table", type(coax.extract("{}", "{}", { strict = true, draft = "7", finish = "stop",
      max_class = "lossless", max_depth = 4, max_input = 10, max_string = 10 })))
    -- each call's own options are its own: the other's is unknown to it
    assert.has_error(function() coax.extract("{}", "{}", { guess = true }) end,
      "coax.extract: unknown option 'guess'")
    assert.has_error(function() coax.repair("{}", { strict = true }) end, "coax.repair: unknown option 'strict'")
    assert.are.equal("{}", coax.json.encode((coax.repair("{}", { guess = true, finish = "stop", max_class = "lossless",
      max_depth = 4, max_input = 10, max_string = 10 }))))
  end)

  it("gives coax's reading with guess = true, its log saying what was guessed", function()
    local v, log = coax.repair("1,2,3", { guess = true })
    assert.are.same({ 3, "fragment", "invented" }, { v, log[1].kind, log[1].class })
  end)

  it("survives garbage, truncation, huge and deep input with a value or a reason", function()
    local alphabet = '{}[]",:\'`0123456789.-+eE truefalsnulNaI\\/\n\t#*<>' .. "\226\128\156\255"
    for text in H.garbage(7, 2000, 60, alphabet) do
      local v, msg, code = coax.repair(text)
      if v == nil then
        assert.is_string(msg)
        assert.is_true(code == "COAX_ENOJSON" or code == "COAX_EDEPTH", code)
      else
        local out = json.encode(v)
        assert.are.equal(out, json.encode(json.decode(out)))
      end
    end
    -- every cut of a reply: the whole value, one cut after a whole member,
    -- or a refusal, never a value with a part cut short
    local reply = 'Here: {"name": "Ada Lovelace", "n": 1815, "tags": ["math", "poetry"], "ok": true}'
    for i = 1, #reply do
      local v = coax.repair(reply:sub(1, i))
      if v ~= nil then
        assert.is_true(v.name == nil or v.name == "Ada Lovelace", reply:sub(1, i))
        assert.is_true(v.n == nil or v.n == 1815, reply:sub(1, i))
        assert.is_true(v.tags == nil or #v.tags == 0 or v.tags[1] == "math", reply:sub(1, i))
        for _, tag in ipairs(v.tags or {}) do assert.is_true(tag == "math" or tag == "poetry", reply:sub(1, i)) end
      end
    end
    assert.are.equal("COAX_EDEPTH", select(3, coax.repair(string.rep("[", 100000))))
    assert.are.equal('"' .. string.rep("x", 1000000) .. '"', (accepted('"' .. string.rep("x", 1000000) .. '"')))
  end)

  assert(H)
end)

describe("coax repair (command) without a guess", function()
  it("refuses a guess: exit 1 and the reason; --guess and --max-class invented print coax's reading", function()
    local out, err, code = H.coax({ "repair" }, '{"a"2}')
    assert.are.same({ "", 1 }, { out, code })
    assert.are.equal("coax repair: no sure value: unreadable text at line 1, column 4 (guessed which quote ends"
      .. " the string: '\"2'); send valid JSON\n", err)
    out, err, code = H.coax({ "repair", "--max-class", "invented" }, '{"a"2}')
    assert.are.same({ '{"a\\"2":null}\n', 0 }, { out, code })
    -- the guess is told on stderr, --log or not (hunt15)
    assert.are.equal("coax repair: a guess at line 1, column 4: guessed which quote ends the string (--log lists "
      .. "every repair)\n", err)
    out, err, code = H.coax({ "repair", "--guess", "--log" }, "1,2,3")
    assert.are.same({ "3\n", 0 }, { out, code })
    assert.truthy(err:find('"kind":"fragment"', 1, true))
    out, err, code = H.coax({ "repair", "--max-class", "sure" }, "1")
    assert.are.same({ "", 2 }, { out, code })
    assert.are.equal("coax repair: --max-class takes lossless, inferred or invented, not 'sure'\n", err)
  end)

  it("says the least certain class of each --jsonl value: a guess never looks certain (hunt15)", function()
    local input = '"{\\"a\\":1,\\"a\\":2}"\n"{a: 1}"\n"[1]"\n'
    local out, err, code = H.coax({ "repair", "--jsonl", "--guess" }, input)
    assert.are.same({ '{"value":{"a":2},"repairs":1,"class":"invented"}\n{"value":{"a":1},"repairs":1,'
      .. '"class":"inferred"}\n{"value":[1],"repairs":0,"class":"lossless"}\n', "", 0 }, { out, err, code })
    out, err, code = H.coax({ "repair", "--jsonl", "--max-class", "invented" }, input)
    assert.are.same({ '{"value":{"a":2},"repairs":1,"class":"invented"}\n{"value":{"a":1},"repairs":1,'
      .. '"class":"inferred"}\n{"value":[1],"repairs":0,"class":"lossless"}\n', "", 0 }, { out, err, code })
    out, err, code = H.coax({ "repair", "--guess" }, '{"a":1,"a":2}')
    assert.are.same({ '{"a":2}\n', "coax repair: a guess at line 1, column 8: a key given twice with two values: "
      .. "which one was meant is a guess (--log lists every repair)\n", 0 }, { out, err, code })
    -- twins: no guess, nothing told; with --log the log tells it
    out, err, code = H.coax({ "repair", "--guess" }, "{a: 1}")
    assert.are.same({ '{"a":1}\n', "", 0 }, { out, err, code })
    out, err = H.coax({ "repair", "--guess", "--log" }, '{"a":1,"a":2}')
    assert.are.same({ '{"a":2}\n', 1 }, { out, select(2, err:gsub("\n", "")) })
    local schema = H.tmpfile('{"type":"object","properties":{"n":{"type":"integer"}}}')
    out, err, code = H.coax({ "extract", "--schema", schema, "--jsonl", "--max-class", "invented" },
      '"{\\"n\\":\\"4\\"}"\n"{\\"n\\":1,\\"n\\":2}"\n"{\\"n\\":1}"\n')
    assert.are.same({ '{"value":{"n":4},"class":"inferred"}\n{"value":{"n":2},"class":"invented"}\n'
      .. '{"value":{"n":1},"class":"lossless"}\n', "", 0 }, { out, err, code })
    out, err, code = H.coax({ "extract", "--schema", schema, "--max-class", "invented" }, '{"n":1,"n":2}')
    assert.are.same({ '{"n":2}\n', "coax extract: a guess at line 1, column 8: a key given twice with two values: "
      .. "which one was meant is a guess (--log lists every repair)\n", 0 }, { out, err, code })
    os.remove(schema)
  end)

  it("answers each line of --jsonl, a refusal as that line's error", function()
    local out, _, code = H.coax({ "repair", "--jsonl" }, '"{a: 1}"\n"1,2,3"\n"{\\"a\\": [1"\n')
    assert.are.equal(1, code)
    assert.are.equal('{"value":{"a":1},"repairs":1,"class":"inferred"}\n'
      .. '{"error":"the reply holds several values one after another, at line 1, column 1 and at line 1, '
      .. 'column 3: send one value (a list, if they are one answer)"}\n'
      .. '{"error":"the JSON is incomplete: the reply ends inside it"}\n', out)
  end)
end)
