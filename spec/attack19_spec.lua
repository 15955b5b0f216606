--- Attack round 19: the input paths merged after round 18 (hunt23's lone CRs read as
-- line ends in a same-length copy, a reply written twice, the text after an introduction
-- read again whole, "{...}," and [1,,2], a grouped number's spaces; repair12's line and
-- column sweep in chunks and its unquoted key's end sixteen bytes a step; hunt24's rivals
-- read as the default class reads them; the phrase tables of eight languages; labels past
-- characters that show nothing; Node's inspect markers and other languages' instructions
-- in a placeholder). Each is timed at n and 4n: near-linear, bound 8 (quadratic is 16).
-- The one fault found on the input path: the comparison that tells a reply written twice
-- from a list read "out of memory" as "not the same value" (spec/c/test_attack19.c).
local H = require "helper"
local coax = require "coax"
local json = coax.json

local OBJECT = '{"type":"object"}'
local ARRAY = '{"type":"array"}'

-- The ratio of the work at 4n to the work at n, below 8 (H.scaling_ratio, k = 4).
local function linear(make, n, schema, opts)
  local s = schema and assert(coax.schema(schema))
  local run = s and function(m) coax.extract(make(m), s, opts) end or function(m) coax.repair(make(m), opts) end
  local ratio = H.scaling_ratio(run, n, 4)
  assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
end

describe("attack 19: hunt23's repairs cost linear work", function()
  it("a reply written twice: many copies of a value, and one long value twice", function()
    linear(function(n) return ('{"a": 1}\n\n'):rep(n) end, 2000, ARRAY)
    linear(function(n) return ('{"a": 1}\n\n'):rep(n) end, 4000, nil, { guess = true })
    linear(function(n) local v = '{"a": [' .. ("1, "):rep(n) .. '1]}' return v .. "\n" .. v end, 100000, OBJECT)
    linear(function(n) local v = ('{"a": 1}\n{"b": 2}\n'):rep(n) return v .. v end, 1000, ARRAY)
  end)

  it("lone CRs by the thousand: outside strings, inside them, and lines of values", function()
    linear(function(n) return ("\r"):rep(n) .. '{"a": 1}' end, 400000, OBJECT)
    linear(function(n) return ('"x\ry" '):rep(n) end, 4000)
    linear(function(n) return ('Here:\r{"a": 1}\r'):rep(n) end, 2000, OBJECT)
  end)

  it("introductions and spans read again whole, and {...}, and [1,,2] by the thousand", function()
    linear(function(n) return ('Here is the JSON:\n{"a": 1}\n'):rep(n) end, 2000, OBJECT)
    linear(function(n) return ('x:{"a": 1} '):rep(n) end, 2000, OBJECT)
    linear(function(n) return ('{"a": 1},'):rep(n) end, 4000, ARRAY)
    linear(function(n) return '{"a": 1}' .. ("}] "):rep(n) .. "," end, 400000, OBJECT)
    linear(function(n) return "[" .. ("1,,"):rep(n) .. "]" end, 10000, ARRAY)
    linear(function(n) return ("1,234 "):rep(n) end, 5000, ARRAY)
    linear(function(n) return "1,234" .. (" "):rep(n) end, 400000, ARRAY)
  end)

  it("unquoted keys: one long, and many", function()
    linear(function(n) return "{" .. ("a"):rep(n) .. ": 1}" end, 400000, OBJECT)
    linear(function(n)
      local t = {}
      for i = 1, n do t[i] = "k" .. i .. ": 1" end
      return "{" .. table.concat(t, ", ") .. "}"
    end, 2000, OBJECT)
  end)

  it("a log's entries coming back over a long line (the sweep's rlocate_back)", function()
    linear(function(n) return "{" .. ('"a":1,'):rep(n) .. '"b":2}' end, 8000, nil, { guess = true })
    linear(function(n)
      local t = {}
      for i = 1, n do t[i] = '"k' .. i .. '":1' end
      local u = table.concat(t, ",")
      return "{" .. u .. "," .. u .. "}"
    end, 2000, nil, { guess = true })
  end)
end)

describe("attack 19: the extraction's new looks cost linear work", function()
  it("rivals by the thousand, cut ones too", function()
    linear(function(n) return ('{"a": 1}\nActually, {"a": 2}\n'):rep(n) end, 2000, OBJECT)
    linear(function(n) return ('{"a": 1} wait, {"a": 2'):rep(n) end, 20000, OBJECT, { max_class = "lossless" })
  end)

  it("long runs of CJK text, of a phrase's first letter, and of zero-width characters", function()
    linear(function(n) return '{"a": 1}' .. ("我是。"):rep(n) end, 100000, OBJECT)
    linear(function(n) return "{\"a\": 1} 如果" .. ("我错了"):rep(n) end, 100000, OBJECT)
    linear(function(n) return ("我"):rep(n) .. ' {"a": 1}' end, 100000, OBJECT)
    linear(function(n) return '{"a": 1} ' .. ("Esper "):rep(n) end, 100000, OBJECT)
    linear(function(n) return ("\u{200b}"):rep(n) .. 'Answer: {"a": 1}' end, 100000, OBJECT)
    linear(function(n) return ("\u{feff}"):rep(n) .. 'Answer: {"a": 1}' end, 100000, OBJECT)
    linear(function(n) return ("ejemplo: {\"a\": 1}\n"):rep(n) end, 2000, OBJECT)
  end)

  it("placeholders: inspect markers and instructions by the thousand, and long ones", function()
    linear(function(n) return "[" .. ("[Getter], "):rep(n) .. "1]" end, 4000, ARRAY)
    linear(function(n) return '{"a": [Circular *' .. ("1"):rep(n) .. "]}" end, 100000, OBJECT)
    linear(function(n) return '{"a": "[' .. ("我"):rep(n) .. ']"}' end, 100000, OBJECT)
    linear(function(n) return '{"a": "<' .. ("ihr "):rep(n) .. 'b>"}' end, 100000, OBJECT)
  end)

  it("still reads them as before: a reply written twice refused, its twin list taken", function()
    local r = coax.extract('{"a": 1, "b": 2}\n{"b": 2, "a": 1}', ARRAY)
    assert.is_false(r.valid)
    assert.are.equal("unreadable text at line 2, column 1 (the same value written again: one answer repeated, or a"
      .. " list of equal items? which is a guess: '{'); send valid JSON", r.errors[1].error)
    r = coax.extract('{"a": 1}\n{"b": 2}', ARRAY)
    assert.are.same({ true, '[{"a":1},{"b":2}]' }, { r.valid, json.encode(r.value) })
  end)
end)

describe("attack 19: what make fuzz found once it built again", function()
  -- comment_offers_value read the byte before the value's text as t[-n - 1], n unsigned: a pointer
  -- moved by an overflowed offset (UBSan's finding; the byte read was the right one)
  it("a comment after a list's item that a colon split reads its value's bytes by a pointer's subtraction", function()
    local v, log = coax.repair("[1,2:3,2#2", { guess = true })
    assert.are.equal('[1,"2:3",2]', json.encode(v))
    local got = {}
    for i, e in ipairs(log) do got[i] = { e.kind, e.class, e.offset } end
    assert.are.same({ { "unquoted_string", "inferred", 3 }, { "comment", "lossless", 8 },
      { "closed_bracket", "inferred", 10 } }, got)
  end)
end)
