-- The engine's cost per failed attempt does not grow with the conversation:
-- a conversation carried on keeps its messages, and neither their token
-- estimates nor their comparison with the previous attempt's are redone
-- every attempt (both once made the retry loop quadratic in its attempts).
local H = require "helper"
local coax = require "coax"

local RECIPE = "return { schema = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } },"
  .. " prompt = 'n of {{input}}', strategy = 'continue', budget = { tokens = 10000000000 } }"

-- A wrong reply of about 24 KB: valid JSON whose n is a string, so every
-- attempt fails validation and the feedback quotes the value back. Its
-- size weighs the work done on each attempt's own texts (linear in the
-- attempts) against the work done for each message kept (the strategy's
-- copy and comparison, quadratic in the attempts but not in the bytes).
local REPLY = '{"n": "seven", "note": "' .. string.rep("a long aside ", 1800) .. '"}'

local function exhaust(attempts)
  local replies = {}
  for i = 1, attempts do replies[i] = REPLY end
  local e = coax.engine()
  local s = e:session(RECIPE, "x", { source = true, replies = replies, max_attempts = attempts })
  s:run()
  assert.are.equal("exhausted", s:outcome())
  local r = s:report()
  e:close()
  return r
end

describe("the retry loop", function()
  it("keeps every message of a conversation carried on, and records only what each attempt added", function()
    local r = exhaust(4)
    assert.are.equal(4, #r.attempts)
    -- attempt n keeps the 2n - 1 messages before it: the opening, then a
    -- reply and its feedback per earlier attempt
    for n = 2, 4 do
      assert.are.equal(2 * n - 3, r.attempts[n].messages_kept, "attempt " .. n)
      assert.are.equal(2, #r.attempts[n].messages, "attempt " .. n)
    end
  end)

  it("costs a bounded share more per attempt at 200 attempts than at 50 (not quadratic)", function()
    -- Each attempt still walks the conversation's list of messages (the
    -- strategy copies it and the runtime compares it with the last one,
    -- so an agent that changed a message is seen): work per message, not
    -- per byte. With a 4 KB reply that was half the cost at 50 attempts,
    -- 4n over n near 10 (9.7-10.6); once each attempt's own work got
    -- cheaper it read 11.6-14.3 under load, and at 12 KB 13.6 once under
    -- ASan inside the whole suite, so the reply is 24 KB now: 9.0-9.4,
    -- 6.3 under ASan alone. Estimating and encoding every message's text
    -- every attempt measured 3.96 at 2n: all but quadratic, about 15.8 at
    -- 4n, and more so the longer the reply.
    local ratio = H.scaling_ratio(exhaust, 50, 4)
    assert.is_true(ratio < 13, "200 attempts cost " .. ratio .. "x 50 attempts")
  end)
end)
