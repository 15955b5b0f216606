-- coax.example in a recipe with its own max_steps: 2^50 (any positive
-- integer is taken). The schema fans out: 40 $defs, each an anyOf of the
-- next one twice, the last unsatisfiable (a string of at least 2 matching
-- ^a$): 2^40 subschema visits to find none, each candidate's check cheap.
-- One C call, no instruction charged until it returns. Expected: stopped at the script's bound (as s:validate is,
-- at 1,000,000 steps), about 2.5 s. Observed: see README.
local defs = {}
for i = 0, 39 do defs["d" .. i] = { anyOf = { { ["$ref"] = "#/$defs/d" .. (i + 1) }, { ["$ref"] = "#/$defs/d" .. (i + 1) } } } end
defs.d40 = { type = "string", pattern = "^a$", minLength = 2 }
return {
  name = "example_steps", schema = { type = "object" },
  prompt = function()
    local coax = require "coax"
    local t = os.clock()
    local v, err = coax.example({ ["$defs"] = defs, ["$ref"] = "#/$defs/d0" }, { max_steps = MAXSTEPS or (1 << 50) })
    return "example: " .. tostring(v) .. " " .. tostring(err) .. " in " .. (os.clock() - t) .. " s"
  end,
}
