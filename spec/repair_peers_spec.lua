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

describe("coax.repair on the peers' test inputs", function()
  local rows = load()

  it("has all 637 inputs", function() assert.are.equal(637, #rows) end)

  it("never crashes and always produces JSON that parses back to itself", function()
    local values = 0
    for _, r in ipairs(rows) do
      local v, msg, code = coax.repair(r.input)
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
    assert.are.equal(591, values)
  end)

  it("agrees with jsonrepair and json_repair at least as often as measured", function()
    local jr, py = 0, 0
    for _, r in ipairs(rows) do
      local v = coax.repair(r.input)
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
