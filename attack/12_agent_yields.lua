-- An agent that yields to the engine what the engine never asked for:
-- coroutine.yield directly (values of its choosing), coax.sleep from a
-- coroutine of its own (the engine's wait lands in the agent's own resume),
-- and a sleep(0) loop inside a nested coroutine. Expected: clean errors or
-- a limit; the host never hangs or crashes.
local CASE = CASE or 1
return {
  name = "agent_yields", schema = { type = "object" }, prompt = "x", max_attempts = 1,
  agent = { call = function(request)
    local coax = require "coax"
    if CASE == 1 then
      for i = 1, 5 do coroutine.yield("sleep", -1, {}, function() end) end
    elseif CASE == 2 then
      local co = coroutine.create(function() coax.sleep(10) return "slept" end)
      local ok, a, b = coroutine.resume(co)
      local ok2, c = coroutine.resume(co)
      return { text = '{"r":"' .. tostring(ok) .. tostring(a) .. tostring(b) .. tostring(ok2) .. tostring(c) .. '"}' }
    elseif CASE == 3 then
      local co = coroutine.wrap(function() while true do coax.sleep(0) end end)
      co()
      while true do co() end
    elseif CASE == 4 then
      coroutine.yield(setmetatable({}, { __tostring = function() while true do end end, __index = function() while true do end end }))
    elseif CASE == 5 then
      error(setmetatable({}, { __tostring = function() while true do end end }))
    elseif CASE == 6 then
      local t = setmetatable({}, { __index = function() while true do end end, __len = function() while true do end end })
      return t
    elseif CASE == 7 then
      return { text = setmetatable({}, { __tostring = function() while true do end end }) }
    end
    return { text = "{}" }
  end },
}
