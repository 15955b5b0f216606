-- measure.lua: how every benchmark here times a piece of work, the same
-- procedure as bench/common/measure.h and measure.mjs, for the benchmarks
-- that drive coax through its Lua module:
--   1. warm-up: windows of 0.2 s until two windows in a row agree on the
--      rate within 3%, at most 3 s;
--   2. then 5 rounds of at least 0.2 s each; the figure is the best round.
-- pass() does the work once and returns how many items gave a result.
-- Returns rate (passes/s), ok, warm-up seconds. The clock is CPU time
-- (os.clock): Lua has no monotonic wall clock, and the work is one thread.
local WINDOW, MAX_WARM, ROUNDS = 0.2, 3.0, 5

local function window(pass, secs)
  local t0, n, ok, t = os.clock(), 0, 0, 0
  repeat
    ok = pass()
    n = n + 1
    t = os.clock() - t0
  until t >= secs
  return n / t, ok
end

return function(pass)
  local t0, prev, ok = os.clock(), 0, 0
  while true do
    local r, k = window(pass, WINDOW)
    ok = k
    if prev > 0 and r < prev * 1.03 and r > prev * 0.97 then break end
    if os.clock() - t0 > MAX_WARM then break end
    prev = r
  end
  local warm, best = os.clock() - t0, 0
  for _ = 1, ROUNDS do
    local r, k = window(pass, WINDOW)
    ok = k
    if r > best then best = r end
  end
  return best, ok, warm
end
