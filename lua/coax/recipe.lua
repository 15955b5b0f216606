--- Checking a recipe: the table a recipe file returns.
-- @module coax.recipe
local feedback = require "coax.feedback"

local M = {}

local fields = {
  name = "string", description = "string", schema = { "string", "table" }, system = "string",
  prompt = { "string", "function" }, max_attempts = "number", agent = { "string", "table" },
  on_submit = "function", strategy = { "string", "function" }, feedback = "table",
  budget = "table", on_event = "function", context_budget = "number", max_class = "string",
  stream = "table",
}

local classes = { lossless = true, inferred = true, invented = true }

local function allowed(kind, want)
  if type(want) == "string" then return kind == want end
  for _, w in ipairs(want) do if kind == w then return true end end
  return false
end

local function expected(want)
  return type(want) == "string" and want or table.concat(want, " or ")
end

-- Whether key a comes before key b in the order a message picks the one bad
-- field it names by: pairs' order follows the string hash, which Lua seeds
-- afresh for every state, so with two bad fields the first pairs gave was
-- one or the other from run to run. Strings first, then numbers, then the
-- other types by name, as in C (script/lib.h's lcoax_key_before; strings
-- compare by bytes there, and here too under the C locale coax runs in).
local function before(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then
    if ta == "string" or tb == "string" then return ta == "string" end
    if ta == "number" or tb == "number" then return ta == "number" end
    return ta < tb
  end
  if ta == "number" or ta == "string" then return a < b end
  if ta == "boolean" then return not a and b end
  return false -- a table or function key shows as its address, the run's own anyway
end

-- The message fault(k, v) gives for the least key of `t` (before) it finds
-- fault with, or nil: one pass, so every key is looked at once.
local function least_fault(t, fault)
  local found, least, message = false, nil, nil
  for k, v in pairs(t) do
    if not found or before(k, least) then
      local m = fault(k, v)
      if m then found, least, message = true, k, m end
    end
  end
  return message
end

local function field_fault(k, v)
  local want = fields[k]
  if not want then return "unknown recipe field '" .. tostring(k) .. "'" end
  if not allowed(type(v), want) then
    return ("recipe field '%s' must be a %s, not a %s"):format(k, expected(want), type(v))
  end
end

-- The table a check approves and the engine then uses: each of t's fields
-- read once, the ones pairs(t) gives and, for each name in `names` it did
-- not give, t[name] (a field a metatable's __index supplies). A recipe's
-- table with a metatable could answer each read differently: the check
-- read max_attempts 3 and the session then -1 ("-1 attempts used up"), a
-- __pairs that hid budget.tokens = -5 left the engine's raw read a budget
-- of 2^64 - 5 tokens, and a schema that only __index gave was found by no
-- raw read ("a schema must be an object or a boolean").
local function plain_copy(t, names)
  local copy = {}
  for k, v in pairs(t) do copy[k] = v end
  for k in next, names do
    if rawget(copy, k) == nil then copy[k] = t[k] end
  end
  return copy
end

local BUDGET_FIELDS = { tokens = true, deadline_ms = true }
local STREAM_FIELDS = { partials = "boolean", stop_early = "boolean", atomic = "table", every_ms = "number" }

-- The names of the templates a recipe's feedback may override, as a message lists them.
local TEMPLATE_NAMES = {}
for name in next, feedback.templates do TEMPLATE_NAMES[#TEMPLATE_NAMES + 1] = name end
table.sort(TEMPLATE_NAMES)
TEMPLATE_NAMES = table.concat(TEMPLATE_NAMES, ", ")

-- A template is text: coax.feedback sets its own templates under the recipe's copy as its
-- __index, which a metatable of the recipe's own refused ("cannot change a protected metatable",
-- in the engine's script) or lost (a base table of templates the recipe's __index lent).
local function template_fault(k, v)
  if feedback.templates[k] == nil then
    return "unknown feedback template '" .. tostring(k) .. "' (" .. TEMPLATE_NAMES .. ")"
  end
  if type(v) ~= "string" then return ("feedback.%s must be a string, not a %s"):format(k, type(v)) end
end

local function budget_fault(k, v)
  if not BUDGET_FIELDS[k] then return "unknown budget field '" .. tostring(k) .. "'" end
  if math.type(v) ~= "integer" or v <= 0 then return "budget." .. k .. " must be a positive integer" end
end

--- Checks `r` and returns the plain copy it checked (plain_copy: the session
-- uses that, never `r` again), or nil and a message naming the bad field.
-- @tparam table r
-- @treturn[1] table the copy
-- @treturn[2] nil
-- @treturn[2] string
local MAX_ATTEMPTS = 2147483647

function M.check(r)
  if type(r) ~= "table" then return nil, "a recipe must return a table, not a " .. type(r) end
  r = plain_copy(r, fields)
  local fault = least_fault(r, field_fault)
  if fault then return nil, fault end
  if r.schema == nil then return nil, "recipe field 'schema' is required" end
  if r.prompt == nil then return nil, "recipe field 'prompt' is required" end
  -- at most the C int the session counts attempts in: 2^31 was -2147483648 attempts, 1e300 none
  if r.max_attempts and (r.max_attempts < 1 or r.max_attempts ~= math.floor(r.max_attempts)
      or r.max_attempts > MAX_ATTEMPTS) then
    return nil, "recipe field 'max_attempts' must be a positive integer of at most " .. MAX_ATTEMPTS
  end
  if r.max_class and not classes[r.max_class] then
    return nil, "recipe field 'max_class' must be lossless, inferred or invented, not '" .. r.max_class .. "'"
  end
  if r.feedback then
    r.feedback = plain_copy(r.feedback, feedback.templates)
    fault = least_fault(r.feedback, template_fault)
    if fault then return nil, fault end
  end
  if r.budget then
    r.budget = plain_copy(r.budget, BUDGET_FIELDS)
    fault = least_fault(r.budget, budget_fault)
    if fault then return nil, fault end
  end
  if r.stream then
    r.stream = plain_copy(r.stream, STREAM_FIELDS)
    local ok, err = M.check_stream(r.stream)
    if not ok then return nil, err end
  end
  return r
end

local function stream_fault(k, v)
  local want = STREAM_FIELDS[k]
  if not want then return "unknown stream field '" .. tostring(k) .. "' (partials, stop_early, atomic, every_ms)" end
  if type(v) ~= want then return ("stream.%s must be a %s, not a %s"):format(k, want, type(v)) end
end

--- Checks a recipe's `stream` table (README "Streaming"): {partials =
-- boolean, stop_early = boolean, atomic = {JSON Pointer, ...}, every_ms =
-- a non-negative integer}.
-- @treturn[1] true
-- @treturn[2] nil, the message naming the bad field
function M.check_stream(t)
  local fault = least_fault(t, stream_fault)
  if fault then return nil, fault end
  if t.every_ms and (math.type(t.every_ms) ~= "integer" or t.every_ms < 0) then
    return nil, "stream.every_ms must be a non-negative integer (milliseconds)"
  end
  if t.atomic then
    t.atomic = plain_copy(t.atomic, {})
    local n = #t.atomic
    fault = least_fault(t.atomic, function(k, p)
      if math.type(k) ~= "integer" or k < 1 or k > n then return "stream.atomic must be a list of JSON Pointers" end
      if type(p) ~= "string" or (p ~= "" and p:sub(1, 1) ~= "/") then
        return ("stream.atomic[%d] must be a JSON Pointer (\"\" or starting with /), not %s"):format(k,
          type(p) == "string" and ("'" .. p .. "'") or ("a " .. type(p)))
      end
    end)
    if fault then return nil, fault end
  end
  return true
end

--- The prompt for `input`: `{{input}}` replaced, or the prompt function called.
-- @tparam table r
-- @tparam string input
-- @treturn string
function M.prompt(r, input)
  if type(r.prompt) == "function" then
    local p = r.prompt(input)
    if type(p) ~= "string" then error("the recipe's prompt function must return a string, not a " .. type(p), 0) end
    return p
  end
  return (r.prompt:gsub("{{input}}", function() return input end))
end

return M
