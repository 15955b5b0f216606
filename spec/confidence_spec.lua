local H = require "helper"
local coax = require "coax"
local corpus = require "confidence"

-- Every case of spec/fixtures/confidence/*.jsonl: the one right value, or a
-- refusal where any value would be a guess. A wrong value fails the spec.
-- The peers' cases (converted from another parser's tests) may also be
-- refused where the meaning was plain, as long as their count stays as low
-- as measured.
describe("the confidence corpus", function()
  for _, file in ipairs(corpus.files) do
    describe(file, function()
      local refused = 0
      for _, c in ipairs(corpus.cases(file)) do
        it(c.name, function()
          local outcome, detail = corpus.run(c)
          if outcome == "refused" and corpus.refused_allowed[file] then
            refused = refused + 1
          else
            assert.are.equal("right", outcome, detail)
          end
        end)
      end
      if corpus.refused_allowed[file] then
        it("refuses no more plain cases than measured", function()
          assert.is_true(refused <= corpus.refused_allowed[file], refused .. " plain cases refused")
        end)
      end
    end)
  end
end)

describe("confidence classes", function()
  local schema = [[{"type": "object", "properties": {"name": {"type": "string"},
    "transaction_amount": {"type": "number"}}, "required": ["name", "transaction_amount"],
    "additionalProperties": false}]]
  local guessed = '{"name": "x", "transaction_amount": -2,00.00}'

  it("gives every log entry its class", function()
    local _, log = coax.repair("{a: 1, 'b': [1,], c d: 2}", { guess = true })
    local got = {}
    for i, e in ipairs(log) do got[i] = e.kind .. " " .. e.class end
    assert.are.same({ "unquoted_key inferred", "single_quotes lossless", "trailing_comma lossless",
      "unquoted_key invented" }, got)
    assert.are.equal("a key was guessed from text not written as one", log[4].detail)
  end)

  it("refuses a value that depends on an invented repair, naming the repair and its place", function()
    local r = coax.extract(guessed, schema)
    assert.is_false(r.valid)
    assert.are.same({ instanceLocation = "", keywordLocation = "",
      error = "unreadable text at line 1, column 40 (a key was guessed from text not written as one: '00.00'); "
        .. "send valid JSON" }, r.errors[1])
  end)

  it("takes today's liberty with max_class = invented, and nothing less certain than lossless with lossless", function()
    local guess = '{"name": "x", "transaction_amount": 2, "note": a b, c}'
    local r = coax.extract(guess, '{"type": "object"}', { max_class = "invented" })
    assert.is_true(r.valid)
    assert.are.equal('{"name":"x","transaction_amount":2,"note":"a b","c":null}', coax.json.encode(r.value))
    assert.is_false(coax.extract(guess, '{"type": "object"}').valid)
    -- Even when invented repairs are allowed, no coercion drops what they
    -- guessed: the extra members stay, and so does the schema's error.
    r = coax.extract(guess, schema, { max_class = "invented" })
    assert.is_false(r.valid)
    assert.are.equal('property "note" is not allowed', r.errors[1].error)
    r = coax.extract('{name: "x", "transaction_amount": 2}', schema, { max_class = "lossless" })
    assert.is_false(r.valid)
    assert.are.equal("text that is not strict JSON at line 1, column 2 (quoted an unquoted key: 'name'); "
      .. "send valid JSON", r.errors[1].error)
    r = coax.extract('{"name": \'x\', "transaction_amount": 2,}', schema, { max_class = "lossless" })
    assert.is_true(r.valid)
    assert.has_error(function() coax.extract("{}", schema, { max_class = "guessed" }) end)
  end)

  it("refuses under max_class = lossless a value a coercion inferred, at the coercion's place (hunt15)", function()
    local int = '{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}'
    local r = coax.extract('{"n": "42"}', int, { max_class = "lossless" })
    assert.is_false(r.valid)
    assert.are.same({ instanceLocation = "/n", keywordLocation = "",
      error = "a coercion less certain than the class allowed (string_to_integer: converted the value to the type "
        .. "the schema asks for); send the value as the schema asks for it" }, r.errors[1])
    r = coax.extract('{"result": {"n": 42}}', int, { max_class = "lossless" })
    assert.are.same({ false, "", "a coercion less certain than the class allowed (envelope_unwrapped: took the "
      .. "value inside a single-key envelope); send the value as the schema asks for it" },
      { r.valid, r.errors[1].instanceLocation, r.errors[1].error })
    r = coax.extract("**42**", '{"type": "integer"}', { max_class = "lossless" })
    assert.are.same({ false, "a coercion less certain than the class allowed (bare_scalar: read the whole reply as one "
      .. "value); send the value as the schema asks for it" }, { r.valid, r.errors[1].error })
    -- twins: what needs no coercion, or a lossless one, is still taken; inferred takes the coercions
    r = coax.extract('{"n": 42}', int, { max_class = "lossless" })
    assert.are.same({ true, '{"n":42}' }, { r.valid, coax.json.encode(r.value) })
    r = coax.extract('{"n": 2.0}', '{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", '
      .. '"properties": {"n": {"type": "integer"}}}', { max_class = "lossless" })
    assert.are.same({ true, '{"n":2}', "float_to_integer" },
      { r.valid, coax.json.encode(r.value), r.coercions[1].kind })
    r = coax.extract('{"n": "42"}', int)
    assert.are.same({ true, '{"n":42}' }, { r.valid, coax.json.encode(r.value) })
    r = coax.extract("**42**", '{"type": "integer"}')
    assert.are.same({ true, 42 }, { r.valid, r.value })
  end)

  it("closes brackets missing at the very end unless the provider cut the reply", function()
    local reply = '{"name": "x", "transaction_amount": 2'
    local r = coax.extract(reply, schema, { finish = "stop" })
    assert.is_true(r.valid)
    assert.are.same({ "closed_bracket", "inferred" }, { r.log[1].kind, r.log[1].class })
    r = coax.extract(reply, schema, { finish = "length" })
    assert.is_false(r.valid)
    assert.are.equal("the reply was cut off: the JSON is incomplete", r.errors[1].error)
  end)

  -- {"n": 12 may be {"n": 1234} cut: a number the reply ends on ended only
  -- when the provider says the model stopped, or a space follows it.
  it("takes a number an open reply ends on only when the model stopped or a space follows", function()
    local reply = '{"name": "x", "transaction_amount": 12'
    local r = coax.extract(reply, schema)
    assert.are.same({ false, "the JSON is incomplete: the reply ends inside it", "closed_bracket", "inferred" },
      { r.valid, r.errors[1].error, r.log[1].kind, r.log[1].class })
    assert.is_false(coax.extract(reply .. ".5", schema).valid)
    assert.is_false(coax.extract('[1, 2, 3', '{"type": "array"}').valid)
    assert.is_false(coax.extract('{"rows": [[1, 2], [3, 4', '{"type": "object"}').valid)
    assert.are.equal(12, coax.extract(reply, schema, { finish = "stop" }).value.transaction_amount)
    assert.are.equal(12, coax.extract(reply .. "\n", schema).value.transaction_amount)
    assert.are.equal(12, coax.extract(reply .. " ", schema).value.transaction_amount)
    assert.are.equal("y", coax.extract('{"transaction_amount": 12, "name": "y"', schema).value.name)
    assert.is_true(coax.extract('{"name": "x", "transaction_amount": 12}', schema).valid) -- nothing left open
    assert.is_true(coax.extract('{"a": [1, true', '{"type": "object"}').valid) -- a literal is whole
  end)

  it("prefers a candidate without invented repairs whatever the order", function()
    local r = coax.extract('{"name": "y", "transaction_amount": 1}\nor {"name": "z", transaction amount: 1}',
      schema, { max_class = "invented" })
    assert.are.equal('{"name":"y","transaction_amount":1}', coax.json.encode(r.value))
  end)

  it("names the repair a value was refused for", function()
    local r = coax.extract(guessed, schema)
    assert.are.same({ kind = "unquoted_key", class = "invented", offset = 39, line = 1, column = 40,
      detail = "a key was guessed from text not written as one" }, r.refused)
    assert.is_nil(coax.extract('{"name": "x", "transaction_amount": 1}', schema).refused)
  end)

  it("rejects a span deeper than the limit as one candidate, not the whole reply", function()
    local v, _, info = coax.repair('```json\n{"a": 1}\n```\n' .. string.rep("x{", 600))
    assert.are.same({ '{"a":1}', "fenced" }, { coax.json.encode(v), info.source })
    local none, msg, code = coax.repair("See " .. string.rep("x{", 600))
    assert.are.same({ nil, "COAX_EDEPTH" }, { none, code })
    assert.truthy(msg:find("nesting deeper than 512", 1, true))
  end)

  it("a value after an unclosed span over the limit is tried, as a fragment of that span", function()
    -- the scanner sees {"a": 1} inside the 600 open x{; the span over the
    -- limit is rejected and what it holds is still a candidate, never certain
    local reply = "See " .. string.rep("x{", 600) .. '\n{"a": 1}'
    local v, log, info = coax.repair(reply, { guess = true })
    assert.are.same({ '{"a":1}', "prose", 1 }, { coax.json.encode(v), info.source, info.candidates })
    assert.are.same({ "prose_span", "fragment", "invented" }, { log[1].kind, log[2].kind, log[2].class })
    local r = coax.extract(reply, { type = "object" })
    assert.are.same({ false, "fragment", "invented", 2, 1 },
      { r.valid, r.refused.kind, r.refused.class, r.refused.line, r.refused.column })
    r = coax.extract(reply, { type = "object" }, { max_class = "invented" })
    assert.are.equal('{"a":1}', coax.json.encode(r.value))
    -- twins: a closed span over the limit keeps its insides (they are
    -- parts of it), and an unclosed one with nothing complete inside is the limit
    assert.are.equal("COAX_EDEPTH", select(3, coax.repair("[[[1]]]", { max_depth = 2 })))
    assert.are.equal("COAX_EDEPTH", select(3, coax.repair("See " .. string.rep("x{", 600) .. "\n")))
  end)

  it("refuses two different plain answers, naming both places, and keeps one answer written twice", function()
    local key = '{"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}'
    local r = coax.extract('{"key": "value1"}\nor rather {"key": "value2"}', key)
    assert.is_false(r.valid)
    assert.are.equal("the reply holds two different answers, at line 1, column 1 and at line 2, column 11: "
      .. "send one value", r.errors[1].error)
    r = coax.extract('```json\n{"key": "v"}\n```\nThat is {"key": "v"}.', key)
    assert.are.equal('{"key":"v"}', coax.json.encode(r.value))
    r = coax.extract('{"key": "a"}\n{"key": "b"}', '{"type": "array", "items": ' .. key .. '}')
    assert.are.equal('[{"key":"a"},{"key":"b"}]', coax.json.encode(r.value))
    -- A list of values one after the other and its first value start at one
    -- place: the error names the first value and the next one, not one place twice.
    r = coax.extract('{"name":"Ada"}{"name":"Bob"}', "{}")
    assert.are.equal("the reply holds several values one after another, at line 1, column 1 and at line 1, "
      .. "column 15: send one value (a list, if they are one answer)", r.errors[1].error)
    r = coax.extract('[1]\n  [2]', "{}")
    assert.are.equal("the reply holds several values one after another, at line 1, column 1 and at line 2, "
      .. "column 3: send one value (a list, if they are one answer)", r.errors[1].error)
    -- A reply whose only JSON is in a block tagged as no answer says so (the
    -- error was empty); a tag's attributes are not its name.
    assert.are.same({ nil, "the only JSON is in a block whose tag says it holds no answer (<example>, <draft>), at "
      .. "line 2, column 1: send the answer itself", "COAX_ENOJSON" },
      { coax.extract('<example>\n{"key": "v"}\n</example>', key) })
    -- (attack round 4) a reply with no JSON at all is not said to hold it in such a block
    assert.are.same({ nil, "no JSON value found in 11 bytes of text", "COAX_ENOJSON" },
      { coax.extract("hello there", key) })
    r = coax.extract('<answer type="example">\n{"key": "v"}\n</answer>', key)
    assert.are.equal('{"key":"v"}', coax.json.encode(r.value))
    -- (hunt13) JSON others wrote, which the reply quotes (a tool's result,
    -- a document, the user's turn), is no answer; nor is a Thought: line
    for _, tag in ipairs { "tool_result", "function_results", "search_results", "document", "context", "user",
      "system", "observation" } do
      assert.are.same({ nil, "the only JSON is in a block whose tag says it holds no answer (<example>, <draft>), at "
        .. "line 1, column " .. (#tag + 3) .. ": send the answer itself", "COAX_ENOJSON" },
        { coax.extract(("<%s>{\"key\": \"v\"}</%s>"):format(tag, tag), key) }, tag)
    end
    for _, label in ipairs { "User", "Observation", "Thought", "Human", "System prompt" } do
      assert.are.equal("COAX_ENOJSON", select(3, coax.extract(label .. ': {"key": "v"}', key)), label)
    end
    for _, label in ipairs { "First attempt:", "Option A:", "Candidate:", "Hypothesis:", "Analysis:", "Partial:",
      "**Reasoning:**", "## Reasoning\n", "### Example\n" } do
      assert.are.equal("COAX_ENOJSON", select(3, coax.extract(label .. ' {"key": "v"}', key)), label)
    end
    for _, label in ipairs { "Best option:", "Selected candidate:", "## Answer\n", "## Result for Ada\n" } do
      assert.are.equal('{"key":"v"}', coax.json.encode(coax.extract(label .. ' {"key": "v"}', key).value), label)
    end
    r = coax.extract('<tool_result>{"key": "a"}</tool_result>\n<answer>{"key": "v"}</answer>', key)
    assert.are.equal('{"key":"v"}', coax.json.encode(r.value))
    r = coax.extract('For the user: {"key": "v"}', key)
    assert.are.equal('{"key":"v"}', coax.json.encode(r.value))
    -- A draft that does not fit is no rival: the answer after it wins.
    r = coax.extract('{"name": "b"}\nFixed: {"key": "b"}', key)
    assert.are.equal('{"key":"b"}', coax.json.encode(r.value))
  end)

  it("looks for closing fences outside strings in time linear in the reply", function()
    local unit = '```json\n{"a": "x ```y\n'
    -- Blocks whose quotes never settle and whose first fence is mid-line:
    -- each would scan to the end without the cache. Sizes whose memory
    -- stays in the caches, each timed over repeated calls: at 50,000 blocks
    -- against 100,000 the ratio was 4 in a fresh process while the
    -- instructions were 1.98x (callgrind), cache misses and page faults
    -- growing with the working set, not the scan.
    -- n against 4n (linear 4, quadratic 16), bound 8: 6,250 against 12,500
    -- blocks with bound 2.6 failed under load (3.25 seen, the code linear).
    -- 12,500 is still the larger size; 8 calls a timing, the sizes taking
    -- turns (H.scaling_ratio), so a spell of load falls on both.
    local text = { [3125] = unit:rep(3125), [12500] = unit:rep(12500) }
    local ratio = H.scaling_ratio(function(m) for _ = 1, 8 do coax.repair(text[m]) end end, 3125, 4)
    assert.is_true(ratio < 8, ("time(12500 blocks) / time(3125 blocks) = %.2f (linear 4, quadratic 16)"):format(ratio))
  end)

  it("coax_repair's own choice (guess = true) follows the README's rule, and LaTeX in prose does not win", function()
    local v, _, info = coax.repair('{"a": 1}\n\nwhere \\frac{1}{2} is a half.', { guess = true })
    assert.are.equal('{"a":1}', coax.json.encode(v))
    assert.are.equal("prose", info.source)
    local log
    v, log, info = coax.repair('Shape: {"name": "Bob"}\n```json\n{"name": "Ada", "age": 3', { guess = true })
    assert.are.same({ '{"name":"Ada","age":3}', "fenced" }, { coax.json.encode(v), info.source })
    assert.are.same({ "closed_bracket", "invented" }, { log[2].kind, log[2].class })
  end)

  assert(H)
end)

describe("coax extract --max-class (command)", function()
  local schema_path
  setup(function()
    schema_path = H.tmpfile('{"type": "object", "properties": {"n": {"type": "number"}}, '
      .. '"required": ["n"], "additionalProperties": false}')
  end)
  teardown(function() os.remove(schema_path) end)

  it("fails on invented repairs by default, with the log's class and the error unit", function()
    local out, err, code = H.coax({ "extract", "--schema", schema_path, "--log", "--output", "basic" },
      '{"n": 12,34}')
    assert.are.equal(1, code)
    assert.are.equal('{"valid":false,"errors":[{"instanceLocation":"","keywordLocation":"","error":'
      .. '"unreadable text at line 1, column 10 (a key was guessed from text not written as one: \'34\'); '
      .. 'send valid JSON"},{"instanceLocation":"/34","keywordLocation":"/additionalProperties",'
      .. '"error":"property \\"34\\" is not allowed"}]}\n', out)
    assert.truthy(err:find('"kind":"unquoted_key","offset":9,"line":1,"column":10,'
      .. '"detail":"a key was guessed from text not written as one","class":"invented"}', 1, true))
  end)

  it("reads grouped thousands and accepts invented repairs only when asked", function()
    local out, _, code = H.coax({ "extract", "--schema", schema_path }, '{"n": -2,000.00}')
    assert.are.same({ '{"n":-2000.00}\n', 0 }, { out, code })
    out, _, code = H.coax({ "extract", "--schema", schema_path, "--max-class", "invented" }, '{"n": 7, "m": x y, z}')
    assert.are.same({ '', 1 }, { out, code }) -- allowed, but the guessed member is never dropped to fit
    local open_schema = H.tmpfile('{"type": "object"}')
    out, _, code = H.coax({ "extract", "--schema", open_schema, "--max-class", "invented" },
      '{"n": 7, "m": x y, z}')
    assert.are.same({ '{"n":7,"m":"x y","z":null}\n', 0 }, { out, code })
    out, _, code = H.coax({ "extract", "--schema", open_schema }, '{"n": 7, "m": x y, z}')
    os.remove(open_schema)
    assert.are.same({ '', 1 }, { out, code })
    local _, err2, code2 = H.coax({ "extract", "--schema", schema_path, "--max-class", "sure" }, '{"n": 1}')
    assert.are.equal(2, code2)
    assert.are.equal("coax extract: --max-class takes lossless, inferred or invented, not 'sure'\n", err2)
  end)
end)

describe("confidence classes in a session", function()
  local dir
  local SCHEMA = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},'
    .. '"required":["name","age"],"additionalProperties":false}'

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. H.quote(dir)))
    local f = assert(io.open(dir .. "/schema.json", "w"))
    f:write(SCHEMA)
    f:close()
  end)
  teardown(function() os.execute("rm -rf " .. H.quote(dir)) end)

  local function run(extra, replies)
    local path = dir .. "/recipe.lua"
    local f = assert(io.open(path, "w"))
    f:write('return { schema = "schema.json", prompt = "Extract: {{input}}"' .. (extra or "") .. " }")
    f:close()
    return coax.run(path, "Ada is 36.", { replies = replies })
  end

  it("feeds an invented repair back to the model, naming it, and asks again", function()
    local r = run(nil, { '{"name": "Ada", "age": 36, years old}', '{"name": "Ada", "age": 36}' })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, r.metrics.attempts)
    local e = r.attempts[1].errors[1]
    assert.are.equal("unreadable text at line 1, column 28 (a key was guessed from text not written as one: "
      .. "'years old'); send valid JSON", e.error)
    local feedback = r.attempts[1].feedback
    assert.are.equal("Attempt 1/3: no JSON could be read from your reply: " .. e.error .. ".",
      feedback:match("^[^\n]*"))
    assert.truthy(feedback:find('{"name": "Ada", "age": 36, years old}', 1, true)) -- the reply, not a guess
    local log = r.attempts[1].log
    assert.are.same({ "unquoted_key invented", "missing_value invented" },
      { log[1].kind .. " " .. log[1].class, log[2].kind .. " " .. log[2].class })
  end)

  it("accepts what a recipe's max_class allows", function()
    local guessed = '{"name": """Ada\\n""", "age": 36}' -- a backslash in a triple-quoted string
    local r = run(nil, { guessed })
    assert.are.same({ "agent_error", "invalid" }, { r.outcome, r.attempts[1].outcome })
    r = run(', max_class = "invented"', { guessed })
    assert.are.same({ "ok", '{"name":"Ada\\\\n","age":36}' }, { r.outcome, coax.json.encode(r.value) })
    r = run(', max_class = "lossless"', { "{name: 'Ada', age: 36}", "{name: 'Ada', age: 36}",
      "{name: 'Ada', age: 36}" })
    assert.are.equal("exhausted", r.outcome)
    assert.are.equal("text that is not strict JSON at line 1, column 2 (quoted an unquoted key: 'name'); "
      .. "send valid JSON", r.attempts[1].errors[1].error)
    assert.are.equal("invalid", run(', max_class = "sure"', {}).outcome)
  end)

  it("closes brackets missing at the end when the provider stopped, and asks again when it cut", function()
    local r = run(nil, { { text = '{"name": "Ada", "age": 36', finish = "stop" } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(1, r.metrics.attempts)
    r = run(nil, { { text = '{"name": "Ada", "age": 36', finish = "length" }, '{"name": "Ada", "age": 36}' })
    assert.are.equal("ok", r.outcome)
    assert.are.equal(2, r.metrics.attempts)
    assert.are.equal("the reply was cut off: the JSON is incomplete", r.attempts[1].errors[1].error)
    -- a content filter's cut is a cut too: its missing brackets were accepted
    r = run(nil, { { text = '{"name": "Ada", "age": 36', finish = "content_filter" }, '{"name": "Ada", "age": 36}' })
    assert.are.same({ "ok", 2, "invalid" }, { r.outcome, r.metrics.attempts, r.attempts[1].outcome })
    assert.are.equal("the reply was cut off: the JSON is incomplete", r.attempts[1].errors[1].error)
  end)
end)
