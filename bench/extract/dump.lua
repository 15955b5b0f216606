-- Writes the extraction cases (spec/fixtures/extract_cases.lua) as JSON for
-- the peer runner: [{name, schema, reply, want | null}].
local cjson = require "cjson"
local fixture = dofile(arg[1])
local out = {}
for _, c in ipairs(fixture.cases) do
  out[#out + 1] = { name = c[1], schema = fixture.schemas[c[2]], reply = c[3], want = c.fail and cjson.null or c[4] }
end
io.write(cjson.encode(out))
