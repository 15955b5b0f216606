-- coax on the same cases: "right failed wrong total rate rate_compiling",
-- rates being passes over every case a second (../common/measure.lua:
-- warm-up, then the best of 5 rounds): each schema compiled once
-- (coax.schema), then every schema compiled on every call (a table).
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
local here = arg[0]:match("(.*/)") or "./"
local measure = dofile(here .. "../common/measure.lua")
local compiled = {}
for name, schema in pairs(fixture.schemas) do compiled[name] = assert(coax.schema(schema)) end
local function rate_with(schemas)
  return measure(function()
    local n = 0
    for _, c in ipairs(fixture.cases) do
      if coax.extract(c[3], schemas[c[2]]) then n = n + 1 end
    end
    return n
  end)
end
print(("coax %d %d %d %d %.1f %.1f"):format(right, failed, wrong, #fixture.cases, rate_with(compiled),
  rate_with(fixture.schemas)))
