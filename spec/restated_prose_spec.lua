--- Prose beside an answer that gives one of its members another value
-- (engine/extract/contradicted.c): "The age is 37." after {"age": 36} is refused
-- with the place of the statement; the same value, a supposition, a derivation and a
-- reasoning block's drafts are not. The cases of the class are in
-- spec/fixtures/confidence/restated_prose.jsonl; here the error, the edges of the
-- window and the cost.
local H = require "helper"
local coax = require "coax"

local AGE = assert(coax.schema('{"type":"object","properties":{"age":{"type":"integer"}},"required":["age"]}'))
local OBJECT = assert(coax.schema('{"type":"object"}'))

local function outcome(reply, schema)
  local r, err = coax.extract(reply, schema or AGE)
  if not r then return { false, err } end
  return r.valid and { true, r.value } or { false, r.errors[1].instanceLocation, r.errors[1].error }
end

-- A reply holding a NUL never reaches the prose's looks: no text a model writes.
local function nul_at(column)
  return { false, ("the reply holds a control byte (0x00) at line 2, column %d: send the JSON as plain text")
    :format(column) }
end

local function said(line1, col1, line2, col2)
  return ("the reply's answer at line %d, column %d is given another value by the text at line %d, column %d "
    .. '("The age is 37." beside {"age": 36}): which value was meant is a guess; send it alone')
    :format(line1, col1, line2, col2)
end

describe("prose that gives the answer's member another value", function()
  it("is refused at the root with the places of the answer and of the statement", function()
    assert.are.same({ false, "", said(1, 1, 2, 1) }, outcome('{"age": 36}\nThe age is 37.'))
    assert.are.same({ false, "", said(3, 1, 1, 1) }, outcome("Ada's age is 37.\n\n{\"age\": 36}"))
    assert.are.same({ false, "", said(3, 1, 5, 5) }, outcome('Here:\n```json\n{"age": 36}\n```\n- **Age**: 37'))
  end)

  it("reads as far as its window: 400 bytes from the answer on each side", function()
    local far = '{"age": 36}\n' .. ("x"):rep(500) .. ". The age is 37."
    assert.are.same({ true, { age = 36 } }, outcome(far))
    local near = '{"age": 36}\n' .. ("x"):rep(300) .. ". The age is 37."
    assert.is_false(outcome(near)[1])
    -- a statement cut at the window's end reads no value
    local cut = '{"age": 36}\n' .. ("x"):rep(386) .. ". The age is 3" .. "7" .. (" y"):rep(10)
    assert.are.same({ true, { age = 36 } }, outcome(cut))
  end)

  it("reads no statement out of garbage, cut UTF-8 or control bytes, and one through tabs", function()
    local refused = { ["age\tis\t37"] = true, ["age  is   37"] = true, ["age is 37\xE2"] = true }
    assert.are.same(nul_at(5), outcome('{"age": 36}\nage:\0 37'))
    for _, tail in ipairs({ "\xE6\xAD\xA3\xE7\xA1", "age is \xE2\x80", "age\tis\t37", "age  is   37",
      "is 37", "= 37", "age is", "age:", "age is 37\xE2", "正确的是\xE3", "age is 0x25", "age is 1e", "age is -" }) do
      local r = outcome('{"age": 36}\n' .. tail)
      assert.are.same(refused[tail] and { false, "", said(1, 1, 2, 1) } or { true, { age = 36 } }, r, tail)
    end
  end)

  it("reads no statement out of cut or hostile bytes after the words and signs it reads past the value", function()
    for _, tail in ipairs({ "l'", "L\xE2\x80\x99", "\xC3\x82GE", "age \xE2\x86", "age \xE2\x80\x94", "age -",
      "age \xE2\x86\x92", "年龄是", "年龄是3\xE5\xB2",
      "ageは", "**age:** ", "age: " .. ("9"):rep(400), "age: 1e999999 hours", "The text says" }) do
      assert.are.same({ true, { age = 36 } }, outcome('{"age": 36}\n' .. tail), tail)
    end
    assert.are.same(nul_at(12), outcome('{"age": 36}\nage: 37 per\0cent'))
    assert.are.same(nul_at(9), outcome('{"age": 36}\nage: 37 \0hours'))
    -- a cut sequence after the value is no word: the value stands alone
    for _, tail in ipairs({ "age: 37 \xE2\x80", "age: 37 \xC2" }) do
      assert.are.same({ false, "", said(1, 1, 2, 1) }, outcome('{"age": 36}\n' .. tail), tail)
    end
    assert.are.same({ false, "", said(1, 1, 2, 1) }, outcome('{"age": 36}\nage: 1e999999'))
  end)

  it("compares a member deep in the answer, and leaves one past its depth bound", function()
    local deep = ('{"a": '):rep(300) .. '{"age": 36}' .. ("}"):rep(300)
    assert.are.same(true, outcome(deep .. "\nThe age is 37.", OBJECT)[1]) -- past 256 levels: not read
    local shallow = ('{"a": '):rep(20) .. '{"age": 36}' .. ("}"):rep(20)
    assert.are.same(false, outcome(shallow .. "\nThe age is 37.", OBJECT)[1])
  end)

  it("costs work linear in the answer and in the prose", function()
    local function linear(make, n)
      local ratio = H.scaling_ratio(function(m) coax.extract(make(m), OBJECT) end, n, 4)
      assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
    end
    local function members(n)
      local t = {}
      for i = 1, n do t[i] = ('"k%d": %d'):format(i, i) end
      return "{" .. table.concat(t, ", ") .. "}"
    end
    -- a big answer and a window full of statements about its members
    linear(function(n) return members(n) .. "\n" .. ("The k1 is 1. "):rep(40) end, 5000)
    -- statements without end around a small answer
    linear(function(n) return ("The k1 is 2. "):rep(n) .. '{"k1": 1}' .. ("\nThe k1 is 1."):rep(n) end, 4000)
    -- Chinese links before digits, none correcting
    linear(function(n) return '{"k1": 1}\n' .. ("是1"):rep(n) end, 20000)
    -- a long string member and quoted statements that almost hold it
    linear(function(n)
      local long = ("a"):rep(n)
      return '{"name": "' .. long .. '"}\n' .. ('Name: "' .. ("a"):rep(20) .. 'b". '):rep(16)
    end, 50000)
  end)
end)
