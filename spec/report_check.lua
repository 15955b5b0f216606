--- Checks that a session report (or a batch line) validates against
-- schemas/report.schema.json, with coax itself: `coax validate`, as a user
-- would run it. Every spec that produces a report hands it here.
--
--   local report_check = require "report_check"
--   report_check.valid(report)        -- asserts, and returns the report
local H = require "helper"
local coax = require "coax"

local M = {}

M.SCHEMA = "schemas/report.schema.json"

--- Asserts that `report` (a table as coax.run gives it, or JSON text)
-- validates against the report schema; returns it.
function M.valid(report)
  local text = type(report) == "string" and report or coax.json.encode(report)
  local out, err, code = H.coax({ "validate", M.SCHEMA }, text)
  assert(code == 0, ("the report does not validate against %s:\n%s%s\nthe report: %s"):format(M.SCHEMA, out, err,
    text:sub(1, 4000)))
  return report
end

return M
