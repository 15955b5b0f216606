-- Every input from the two most used repair libraries' test suites goes
-- through coax: none may crash, hang or produce invalid JSON, and coax's
-- agreement with them must not fall (it only rises as repairs improve).
require "helper"
local coax = require "coax"
local json = coax.json
local cjson = require "cjson"

local function load()
  local rows = {}
  for line in io.lines("spec/fixtures/repair_pairs.jsonl") do rows[#rows + 1] = cjson.decode(line) end
  return rows
end

local function same(peer, text)
  if type(peer) ~= "table" or not peer.ok then return false end
  local v = json.decode(peer.ok)
  return v ~= nil and json.encode(v) == text
end

-- The values coax accepts by default that neither peer gives, pinned so
-- that any change to them is a decision (every other value it accepts is
-- one peer's reading too).
-- ("first\ and a line break" read as JavaScript's line continuation was one
-- until hunt9: jsonrepair keeps the break, so the reading is a guess, refused.)
local ONLY_COAX = {
  ["Null"] = "null", -- another language's null, as json_repair reads NULL
}

describe("coax.repair on the peers' test inputs", function()
  local rows = load()

  it("has all 637 inputs", function() assert.are.equal(637, #rows) end)

  it("never crashes, gives JSON that parses back to itself, and refuses the rest as no JSON", function()
    for _, opts in ipairs({ {}, { guess = true } }) do
      local values = 0
      for _, r in ipairs(rows) do
        local v, msg, code = coax.repair(r.input, opts)
        if v ~= nil then
          values = values + 1
          local text = json.encode(v)
          local back, err = json.decode(text)
          assert(err == nil, "invalid output for " .. r.input)
          assert.are.equal(text, json.encode(back))
        else
          assert.are.equal("COAX_ENOJSON", code, r.input)
          assert.is_string(msg)
        end
      end
      -- by default, a value that would be a guess (an invented repair, two
      -- answers, a reply cut off, a number in another language's syntax) is
      -- refused: 257 of coax's 591 readings (hunt12: json_repair's four
      -- fractions, {"key": 1/3} read as the text "1/3", are a quotient or its
      -- text, a guess as 1+2 is; {"scalar_group": (1)} is 1 to json_repair and
      -- "(1)" to jsonrepair, a value wrapped whole in parentheses; [2 0.0.1 2]
      -- is [2, "0.0.1 2"] to jsonrepair and [2, "0.0.1", 2] to json_repair, an
      -- item with a number after a space; /[a-z]_/ is a pattern, not ["a-z"];
      -- hunt18: json_repair's { "key": "value" /* comment ends inside a block
      -- comment with the object open: the reply was cut in it; hunt23:
      -- jsonrepair's seven values with a comma after them at the end, {},
      -- {"a":2}, [1,2,3], [e], ...: one item of a list, the rest lost;
      -- hunt25: [{], [{}] to jsonrepair and [] to json_repair, an object whose
      -- '}' was lost or a stray brace; ["value1" value2", "value3"] and
      -- "consectetur" comment", one string with a quote to jsonrepair and two
      -- items to json_repair: a quote that closes none opened, before a space;
      -- deleted49: [```json ⏎ {"a":"b"} ⏎ ```] and [``` ...```], the block's
      -- object to jsonrepair and a list of it to json_repair, a fence after a
      -- list's bracket: a block inside JSON the repair could not read; lefts50: "hello<BS>world" and
      -- "hello<FF>world", a raw control byte, which no model writes and the looks read apart; --guess reads them)
      assert.are.equal(opts.guess and 591 or 319, values)
    end
  end)

  it("accepts by default only values a peer reads too, but for the readings listed", function()
    local jr, py, only = 0, 0, {}
    for _, r in ipairs(rows) do
      local v = coax.repair(r.input)
      if v ~= nil then
        local text = json.encode(v)
        local a, b = same(r.jsonrepair, text), same(r.json_repair, text)
        if a then jr = jr + 1 end
        if b then py = py + 1 end
        if not a and not b then only[r.input] = text end
      end
    end
    assert.are.same(ONLY_COAX, only)
    -- 316 before hunt23's seven refusals, 309 before hunt25's three, 306 before deleted49's two, 304 before
    -- lefts50's two (a raw backspace and form feed in a string: a reply holding a control byte is refused)
    assert.is_true(jr >= 302, "agreement with jsonrepair fell to " .. jr)
    assert.is_true(py >= 268, "agreement with json_repair fell to " .. py) -- 275 before them
  end)

  it("reads (guess = true) as the peers do at least as often as measured", function()
    local jr, py = 0, 0
    for _, r in ipairs(rows) do
      local v = coax.repair(r.input, { guess = true })
      if v ~= nil then
        local text = json.encode(v)
        if same(r.jsonrepair, text) then jr = jr + 1 end
        if same(r.json_repair, text) then py = py + 1 end
      end
    end
    -- an escape JSON does not have keeps its backslash ("\\d", "C:\\Users"), as
    -- json_repair does and jsonrepair does not: two inputs went that way; TRUE,
    -- FALSE and Null are the constants, as json_repair reads them
    assert.is_true(jr >= 456, "agreement with jsonrepair fell to " .. jr)
    assert.is_true(py >= 370, "agreement with json_repair fell to " .. py)
  end)
end)
