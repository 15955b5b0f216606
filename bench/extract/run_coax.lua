-- coax on the same cases: "right failed wrong total".
package.cpath = (os.getenv("COAX_BUILD") or "../build") .. "/?.so;" .. package.cpath
local coax = require "coax"
local fixture = dofile(arg[1])
local right, failed, wrong = 0, 0, 0
for _, c in ipairs(fixture.cases) do
  local r = coax.extract(c[3], fixture.schemas[c[2]])
  local ok = r and r.valid
  if not ok then
    if c.fail then right = right + 1 else failed = failed + 1 end
  elseif not c.fail and coax.json.encode(r.value) == c[4] then
    right = right + 1
  else
    wrong = wrong + 1
    io.stderr:write("wrong value: ", c[1], "\n")
  end
end
print(("coax %d %d %d %d"):format(right, failed, wrong, #fixture.cases))
