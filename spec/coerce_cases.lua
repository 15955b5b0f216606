--- The coercion cases of spec/fixtures/coerce_cases.jsonl (issue 18): each a
-- reply, a schema and the one right value, or `refuse` when no value may
-- come back. Shared by spec/coerce_spec.lua and bench/extract/cases.lua.
local coax = require "coax"
local json = coax.json

local M = {}

--- Reads the cases.
-- @treturn {table,...} {item, reply, schema (JSON text), want (JSON text) or refuse = true}
function M.load(path)
  local cases = {}
  for line in io.lines(path or "spec/fixtures/coerce_cases.jsonl") do
    local d = json.decode(line)
    cases[#cases + 1] = {
      item = d.item, reply = d.reply, schema = json.encode(d.schema),
      want = d.refuse and nil or json.encode(d.want), refuse = d.refuse == true,
    }
  end
  return cases
end

--- Runs one case: "right", "refused" or "wrong", and what came back.
function M.run(c)
  local r = coax.extract(c.reply, c.schema)
  local got = r and r.valid and json.encode(r.value) or nil
  if got == nil then return c.refuse and "right" or "refused", got end
  if c.refuse then return "wrong", got end
  return got == c.want and "right" or "wrong", got
end

return M
