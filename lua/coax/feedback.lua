--- The text a model sees when an attempt fails. Read top to bottom, this file
-- is the feedback: each template below is what the model gets, with
-- {{placeholders}} filled from the attempt's context.
-- A recipe overrides any template with `feedback = { validation = "..." }`.
-- @module coax.feedback
local json = require("coax").json

local M = {}

local concat, format = table.concat, string.format

M.templates = {
  -- The first prompt: the task, then the schema (unless the agent sends the
  -- schema in the provider's structured-output field instead).
  first = [[
{{prompt}}

{{first_step}} that matches this JSON Schema:
{{schema}}]],

  -- The JSON was read but does not match the schema.
  validation = [[
Attempt {{attempt}}/{{max_attempts}}: your JSON does not match the schema.

Errors:
{{errors}}

Your submission:
{{submission}}
{{coerced_block}}{{schema_block}}
Fix all of the errors above and {{next_step}}.]],

  -- No JSON could be recovered from the reply.
  parse = [[
Attempt {{attempt}}/{{max_attempts}}: no JSON could be read from your reply: {{parse_error}}.

Your reply began with:
{{reply_head}}
{{schema_block}}
Fix this and {{next_step}}.]],

  -- The JSON matched the schema but the recipe's on_submit rejected it.
  rejection = [[
Attempt {{attempt}}/{{max_attempts}}: your JSON matches the schema but was rejected: {{reason}}

Your submission:
{{submission}}
{{coerced_block}}
Fix this and {{next_step}}.]],

  -- Added after the submission when coax changed the form of some of its
  -- values before checking it (the submission above is as the model sent it).
  coerced_block = [[

Before checking, coax changed:
{{coercions}}
]],

  -- Added to feedback only when the conversation does not already hold the
  -- schema (a fresh prompt).
  schema_block = [[

Expected schema:
{{schema}}
]],
}

--- One error as the model reads it.
local function error_line(e)
  local path = e.instanceLocation == "" and "(root)" or e.instanceLocation
  return format("  - At path '%s': %s", path, e.error)
end

-- The value at JSON Pointer `pointer` in `v`, or nil.
local function at(v, pointer)
  for token in pointer:gmatch("/([^/]*)") do
    if type(v) ~= "table" then return nil end
    token = token:gsub("~1", "/"):gsub("~0", "~")
    local i = math.tointeger(tonumber(token))
    if getmetatable(v) == getmetatable(json.array({})) then
      v = i and v[i + 1]
    else
      v = v[token]
    end
  end
  return v
end

--- One coercion as the model reads it: where, what became what, and why.
local function coercion_line(c, sent, coerced)
  local path = c.pointer == "" and "(root)" or c.pointer
  local before, after = at(sent, c.pointer), at(coerced, c.pointer)
  local change = ""
  if before ~= nil and after ~= nil and type(before) ~= "table" and type(after) ~= "table" then
    change = format("%s became %s: ", json.encode(before), json.encode(after))
  end
  return format("  - At path '%s': %s%s (%s)", path, change, c.detail, c.kind)
end

local PLACEHOLDER = "{{([%w_]+)}}"

--- Fills {{name}} placeholders from `vars`; unknown names are left empty.
-- @tparam string template
-- @tparam table vars
-- @treturn string
function M.fill(template, vars)
  return (template:gsub(PLACEHOLDER, function(name)
    local v = vars[name]
    if v == nil then return "" end
    return tostring(v)
  end))
end

-- Lines joined by newlines. The sandbox's table.concat charges its loop
-- first, which costs more than the rest of making a feedback's errors:
-- most feedback has one error line and no coercion line.
local function lines_of(list)
  if #list <= 1 then return list[1] or "" end
  return concat(list, "\n")
end

-- The values a template may name that take work to make, each made only
-- when a template names it: "fresh" and "last" render the first prompt
-- again every attempt, and it names none of them.
local derived = {
  errors = function(ctx)
    local lines = {}
    for i, e in ipairs(ctx.errors or {}) do lines[i] = error_line(e) end
    return lines_of(lines)
  end,
  -- the session writes what was sent (ctx.submission); a context built by
  -- hand has only the value
  submission = function(ctx)
    return ctx.submission or (ctx.value ~= nil and json.encode(ctx.value, { pretty = true }) or "")
  end,
  reply_head = function(ctx) return (ctx.reply or ""):sub(1, 500) end,
  coercions = function(ctx)
    local changed = {}
    for i, c in ipairs(ctx.coercions or {}) do changed[i] = coercion_line(c, ctx.value, ctx.coerced_value) end
    return lines_of(changed)
  end,
  coerced_block = function(_, part, fill, templates)
    return part("coercions") ~= "" and fill(templates.coerced_block) or ""
  end,
  schema_block = function(ctx, _, fill, templates)
    return ctx.include_schema and fill(templates.schema_block) or ""
  end,
}

--- Renders the feedback of `kind` ("validation", "parse", "rejection") or the
-- "first" prompt for the attempt described by `ctx`.
-- @tparam string kind
-- @tparam table ctx the attempt context (see coax.strategy)
-- @tparam[opt] table overrides templates from the recipe
-- @treturn string
function M.render(kind, ctx, overrides)
  -- a metatable of the recipe's own each time: one shared by every session
  -- would let a recipe change another's templates through getmetatable
  local templates = overrides and setmetatable(overrides, { __index = M.templates }) or M.templates
  local template = templates[kind]
  if type(template) ~= "string" then error("feedback: no template '" .. tostring(kind) .. "'", 2) end
  local vars = {
    attempt = ctx.attempt, max_attempts = ctx.max_attempts, prompt = ctx.prompt, schema = ctx.schema_text,
    reason = ctx.reason, parse_error = ctx.parse_error,
    first_step = ctx.tools and "Call validate_json, then submit, with JSON" or "Reply with JSON",
    next_step = ctx.tools and "call validate_json with the corrected JSON, then submit it"
      or "reply with the corrected JSON only",
  }
  -- part(name): a placeholder's text, a derived one made the first time a
  -- template names it; fill(template): the template with each one's text
  local part
  local function fill(t) return (t:gsub(PLACEHOLDER, part)) end
  part = function(name)
    local v = vars[name]
    if v == nil then
      local make = derived[name]
      if not make then return "" end
      v = make(ctx, part, fill, templates)
      vars[name] = v
    end
    return tostring(v)
  end
  return fill(template)
end

return M
