--- Attack round 23: the second promise (a recipe or a reply never hurts its host), against what the
-- earlier rounds left: the reads of a recipe's own tables.
local H = require "helper"

-- ---- a recipe's table is read once -----------------------------------------------------------------
-- recipe.lua checked a recipe's fields through its metatable (pairs, __index), and the session read
-- them again: Lua through __index, C raw. A table could answer the check one thing and the session
-- another: max_attempts 3 to the check's five reads and -1 to the session's ("-1 attempts used
-- up"), a __pairs that hid budget.tokens = -5 from the check left C's raw read a budget of 2^64 - 5
-- tokens, a field's type the check never saw (pairs hid it) failed in the engine's own scripts as
-- a script error, and a schema only __index gave was found by no raw read. The check now copies each
-- field once (plain_copy: what pairs gives, then t[name] for each known name it did not), checks
-- the copy, and the session and C use only that copy.
describe("attack 23: a recipe's table is read once, and what was checked is what runs", function()
  local FAILS = '{ type = "object", required = { "q" } }'

  it("max_attempts answered 3 to the check and -1 after: 3 attempts, as checked", function()
    local r = H.run_source([[
local reads = 0
return setmetatable({ schema = ]] .. FAILS .. [[, prompt = "hi" }, { __index = function(_, k)
  if k == "max_attempts" then reads = reads + 1 return reads > 5 and -1 or 3 end
end })]], { replies = { "{}", "{}", "{}", "{}" } })
    assert.are.same({ "exhausted", "exhausted",
      "3 attempts used up; the last failed: 1 validation error, the first at '': missing required property \"q\"" },
      H.ended(r))
    assert.are.equal(3, #r.attempts)
  end)

  it("a budget whose __pairs hides tokens = -5 and deadline_ms = -100 is refused, not a budget of 2^64 - 5", function()
    local r = H.run_source([[return { schema = { type = "object" }, prompt = "hi",
  budget = setmetatable({ tokens = -5, deadline_ms = -100 }, { __pairs = function() return next, {} end }) }]])
    assert.are.same({ "invalid", "invalid_recipe", "budget.deadline_ms must be a positive integer" }, H.ended(r))
    r = H.run_source([[return { schema = { type = "object" }, prompt = "hi",
  budget = setmetatable({ tokens = 2.5 }, { __pairs = function() return next, {} end }) }]])
    assert.are.same({ "invalid", "invalid_recipe", "budget.tokens must be a positive integer" }, H.ended(r))
  end)

  local hidden = {
    { "system = 5", "recipe field 'system' must be a string, not a number" },
    { "prompt = {}", "recipe field 'prompt' must be a string or function, not a table" },
    { "on_event = 5", "recipe field 'on_event' must be a function, not a number" },
    { "feedback = 5", "recipe field 'feedback' must be a table, not a number" },
    { "agent = 5", "recipe field 'agent' must be a string or table, not a number" },
    { "schema = 5", "recipe field 'schema' must be a string or table, not a number" },
  }
  for _, c in ipairs(hidden) do
    it("a field __pairs hides from the check is checked all the same: " .. c[1], function()
      local r = H.run_source(([[
local t = { schema = %s, prompt = "hi", max_attempts = 2 }
t.%s
return setmetatable(t, { __pairs = function() return next, {} end })]]):format(FAILS, c[1]))
      assert.are.same({ "invalid", "invalid_recipe", c[2] }, H.ended(r))
    end)
  end

  it("a stream table answering the check one thing and the session another: the checked one", function()
    local r = H.run_source([[
local reads = 0
return { schema = { type = "object" }, prompt = "hi",
  stream = setmetatable({}, { __index = function(_, k)
    if k == "every_ms" then reads = reads + 1 return reads > 2 and -1 or 5 end
  end }) }]])
    assert.are.same({ "ok" }, H.ended(r))
  end)

  it("twin: fields a base recipe lends through __index are used, the schema too", function()
    local r = H.run_source([[
local base = { prompt = "Who? {{input}}", max_attempts = 2, system = "Be brief.", schema = ]] .. FAILS .. [[ }
return setmetatable({}, { __index = base })]], { replies = { "{}", "{}", "{}" } })
    assert.are.same({ "exhausted", "exhausted",
      "2 attempts used up; the last failed: 1 validation error, the first at '': missing required property \"q\"" },
      H.ended(r))
    assert.are.equal("Be brief.", r.attempts[1].messages[1].content)
    r = H.run_source([[return setmetatable({ prompt = "hi" }, { __index = { schema = { type = "object" } } })]])
    assert.are.same({ "ok" }, H.ended(r))
  end)

  it("twins: an unknown field pairs shows is refused; a plain recipe runs", function()
    local r = H.run_source([[return setmetatable({ schema = { type = "object" }, prompt = "hi", bogus = 1 },
  { __index = function() end })]])
    assert.are.same({ "invalid", "invalid_recipe", "unknown recipe field 'bogus'" }, H.ended(r))
    r = H.run_source('return { schema = { type = "object" }, prompt = "hi", budget = { tokens = 100000 } }')
    assert.are.same({ "ok" }, H.ended(r))
  end)
end)
