-- hunt30: the repair's side of the classes in spec/fixtures/confidence/hunt30.jsonl (the values are there):
-- the end of a string and more after a value, its closer last (Gemini's stray tail under a JSON response
-- format), is a guess unless it is the value's own last bytes again; a fence's info string with attributes
-- ends at its line; DSPy's field marker heads its field; a list the reply ends inside is a candidate cut off.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"
local json = coax.json

local TAIL = "the end of a string and more after the value, its closing bracket last: the value went on, written"
  .. " again with other values? which is a guess"

-- the value read with --guess and its log's kind:class@offset entries
local function read(reply)
  local v, log = coax.repair(reply, { guess = true })
  local seen = {}
  for i, e in ipairs(log) do seen[i] = e.kind .. ":" .. e.class .. "@" .. e.offset end
  return json.encode(v), seen
end

describe("hunt30", function()
  it("reads a string's end and a closer after the value as a guess", function()
    local reply = '{\n  "summary": "clear.",\n  "score": 4\n}\n.",\n  "score": 3\n}'
    assert.are.same({ '{"summary":"clear.","score":4}', { "prose_span:lossless@0", "trailing_text:invented@40" } },
      { read(reply) })
    local v, err = coax.repair(reply)
    assert.are.same({ nil, "unreadable text at line 5, column 1 (" .. TAIL .. ": '.'); send valid JSON" },
      { v, err })
    assert.are.same({ '{"summary":"ok","score":4}', { "prose_span:lossless@8", "trailing_text:invented@38" } },
      { read('Result: {"summary": "ok", "score": 4}\nnot ok"}') })
  end)

  it("keeps the value where the tail is its own last bytes again, or holds no string's end", function()
    assert.are.same({ '{"summary":"clear.","score":4}', { "prose_span:lossless@0" } },
      { read('{\n  "summary": "clear.",\n  "score": 4\n}\n.",\n  "score": 4\n}') })
    -- the same value twice, prose with a quotation between
    assert.are.same({ '{"a":1}', { "prose_span:lossless@22" } }, { read('{"a": 1}\nHe said "hi"\n{"a": 1}') })
  end)

  it("reads a fence's attributes as its info string and DSPy's marker as its field's heading", function()
    local titled = '```json title="answer.json"\n{"a": 1}\n```'
    assert.are.same({ '{"a":1}', { "fenced_block:lossless@0" } }, { read(titled) })
    assert.are.same({ '{"a":1}', { "fenced_block:lossless@0" } }, { read('```json:answer.json\n{"a": 1}\n```') })
    assert.are.same({ '["a","b"]', { "prose_span:lossless@19" } },
      { read('[[ ## answer ## ]]\n["a", "b"]\n\n[[ ## completed ## ]]') })
    local out, err, code = H.coax({ "repair" }, '[[ ## answer ## ]]\n{"a": 1}\n\n[[ ## completed ## ]]')
    assert.are.same({ '{"a":1}\n', "", 0 }, { out, err, code })
  end)

  it("refuses the answer beside a list the reply ends inside", function()
    local cut = { 'He said {"a": 1} then: [1, 2', 'He said {"a": 1} then: [true', 'He said {"a": 1} then: [-1' }
    for _, reply in ipairs(cut) do
      local r = coax.extract(reply, "{}")
      assert.are.same({ false, "the reply holds two different answers, at line 1, column 9 and at line 1, column 24:"
        .. " send one value" }, { r.valid, r.errors[1].error }, reply)
    end
    local r = coax.extract('The answer is {"a": 1}, see [1', "{}") -- a citation's mark cut: no list
    assert.are.same({ true, { a = 1 } }, { r.valid, r.value })
  end)
end)
