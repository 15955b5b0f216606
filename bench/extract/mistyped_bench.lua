--- Coercion's cost on a document with many schema errors (issue 17 item 8):
-- extract (repair, validate, coerce) against a strict extract (repair and
-- validate only) of the same 16 MB document of which ~30% of the records
-- are mistyped. Run: lua5.4 bench/extract/mistyped_bench.lua [MB]
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
local coax = require "coax"
local mistyped = dofile("bench/extract/mistyped.lua")

local mb = tonumber(arg[1]) or 16
local doc = mistyped.document_of_size(mb * 1000000)
local function time(f)
  local t0 = os.clock()
  local r = f()
  return os.clock() - t0, r
end
local ts, strict = time(function() return coax.extract(doc, mistyped.schema, { strict = true }) end)
local tc, coerced = time(function() return coax.extract(doc, mistyped.schema) end)
print(("document      %8.1f MB, %d errors before coercion"):format(#doc / 1e6, #strict.errors))
print(("strict        %8.3f s   (repair + validate)"):format(ts))
print(("coerced       %8.3f s   (%d coercions, valid: %s)"):format(tc, #coerced.coercions, tostring(coerced.valid)))
print(("ratio         %8.2f"):format(tc / ts))
