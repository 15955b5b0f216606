--- Right / refused / wrong counts on spec/fixtures/coerce_cases.jsonl, per
-- item: lua5.4 bench/extract/cases.lua (COAX_BUILD picks the build).
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
package.path = "spec/?.lua;" .. package.path
local cases = require "coerce_cases"

local counts, order = {}, {}
for _, c in ipairs(cases.load()) do
  for _, key in ipairs { c.item, "all" } do
    if not counts[key] then
      counts[key] = { right = 0, refused = 0, wrong = 0, clear = 0, must_refuse = 0, refused_ok = 0 }
      order[#order + 1] = key
    end
    local n, verdict = counts[key], cases.run(c)
    n[verdict] = n[verdict] + 1
    if c.refuse then
      n.must_refuse = n.must_refuse + 1
      if verdict == "right" then n.refused_ok = n.refused_ok + 1 end
    else
      n.clear = n.clear + 1
    end
  end
end
print(("%-14s %14s %14s %6s"):format("item", "clear: right", "refuse: ok", "wrong"))
table.sort(order, function(a, b) return (a == "all" and "~" or a) < (b == "all" and "~" or b) end)
for _, key in ipairs(order) do
  local n = counts[key]
  print(("%-14s %8d / %-3d %8d / %-3d %6d"):format(key, n.right - n.refused_ok, n.clear, n.refused_ok,
    n.must_refuse, n.wrong))
end
