--- Checking a recipe: the table a recipe file returns.
-- @module coax.recipe
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

--- Checks `r` and returns it, or nil and a message naming the bad field.
-- @tparam table r
-- @treturn[1] table r
-- @treturn[2] nil
-- @treturn[2] string
local MAX_ATTEMPTS = 2147483647

function M.check(r)
  if type(r) ~= "table" then return nil, "a recipe must return a table, not a " .. type(r) end
  for k, v in pairs(r) do
    local want = fields[k]
    if not want then return nil, "unknown recipe field '" .. tostring(k) .. "'" end
    if not allowed(type(v), want) then
      return nil, ("recipe field '%s' must be a %s, not a %s"):format(k, expected(want), type(v))
    end
  end
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
  if r.budget then
    for k, v in pairs(r.budget) do
      if k ~= "tokens" and k ~= "deadline_ms" then return nil, "unknown budget field '" .. tostring(k) .. "'" end
      if math.type(v) ~= "integer" or v <= 0 then return nil, "budget." .. k .. " must be a positive integer" end
    end
  end
  if r.stream then
    local ok, err = M.check_stream(r.stream)
    if not ok then return nil, err end
  end
  return r
end

local STREAM_FIELDS = { partials = "boolean", stop_early = "boolean", atomic = "table", every_ms = "number" }

--- Checks a recipe's `stream` table (README "Streaming"): {partials =
-- boolean, stop_early = boolean, atomic = {JSON Pointer, ...}, every_ms =
-- a non-negative integer}.
-- @treturn[1] true
-- @treturn[2] nil, the message naming the bad field
function M.check_stream(t)
  for k, v in pairs(t) do
    local want = STREAM_FIELDS[k]
    if not want then
      return nil, "unknown stream field '" .. tostring(k) .. "' (partials, stop_early, atomic, every_ms)"
    end
    if type(v) ~= want then return nil, ("stream.%s must be a %s, not a %s"):format(k, want, type(v)) end
  end
  if t.every_ms and (math.type(t.every_ms) ~= "integer" or t.every_ms < 0) then
    return nil, "stream.every_ms must be a non-negative integer (milliseconds)"
  end
  for k, p in pairs(t.atomic or {}) do
    if math.type(k) ~= "integer" or k < 1 or k > #t.atomic then
      return nil, "stream.atomic must be a list of JSON Pointers"
    end
    if type(p) ~= "string" or (p ~= "" and p:sub(1, 1) ~= "/") then
      return nil, ("stream.atomic[%d] must be a JSON Pointer (\"\" or starting with /), not %s"):format(k,
        type(p) == "string" and ("'" .. p .. "'") or ("a " .. type(p)))
    end
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
