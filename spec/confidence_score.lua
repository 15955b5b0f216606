-- Counts right / refused / wrong over the confidence corpus, per file:
--   COAX_BUILD=build lua5.4 spec/confidence_score.lua [-v]
local build = os.getenv("COAX_BUILD") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;spec/?.lua;" .. package.path
local corpus = require "confidence"
local verbose = arg[1] == "-v"
local total = { right = 0, refused = 0, wrong = 0 }
for _, file in ipairs(corpus.files) do
  local n = { right = 0, refused = 0, wrong = 0 }
  for _, c in ipairs(corpus.cases(file)) do
    local outcome, detail = corpus.run(c)
    n[outcome] = n[outcome] + 1
    total[outcome] = total[outcome] + 1
    if verbose and outcome ~= "right" then print(("  %-8s %s: %s"):format(outcome, c.name, detail)) end
  end
  print(("%-16s right %3d  refused %3d  wrong %3d"):format(file, n.right, n.refused, n.wrong))
end
print(("%-16s right %3d  refused %3d  wrong %3d"):format("total", total.right, total.refused, total.wrong))
