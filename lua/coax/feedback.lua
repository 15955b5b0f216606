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

--- What the feedback quotes of a reply's errors and coercions. A reply's errors each name their
-- place, as long as the depth it is at: 2,000 strings at the bottom of an array 400 deep (a reply
-- of 8.8 KB) made 1.7 MB of error lines, sent back in the next prompt and kept in the
-- conversation. A path longer than `max_path_bytes` keeps its two ends, and the lines of a list
-- past `max_list_bytes` are left out, with a line that says how many were.
M.max_path_bytes = 400
M.max_list_bytes = 16384

-- The path, or its two ends around a mark saying how many bytes were left out (cut between
-- UTF-8 characters).
local function short_path(path)
  if #path <= M.max_path_bytes then return path end
  local half = math.floor(M.max_path_bytes / 2)
  local head, tail = half, #path - half + 1
  local function inside(i) local b = path:byte(i) return b and b >= 0x80 and b < 0xC0 end -- a continuation byte
  while head > 0 and inside(head + 1) do head = head - 1 end
  while tail <= #path and inside(tail) do tail = tail + 1 end
  return format("%s...(%d bytes left out)...%s", path:sub(1, head), tail - head - 1, path:sub(tail))
end

--- One error as the model reads it.
local function error_line(e)
  local path = e.instanceLocation == "" and "(root)" or short_path(e.instanceLocation)
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
  local path = c.pointer == "" and "(root)" or short_path(c.pointer)
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

-- The lines line(item) of the items of `list` while they fit in max_list_bytes, then one that
-- says how many `what` were left out.
local function bounded_lines(list, line, what)
  local lines, bytes = {}, 0
  for i, item in ipairs(list or {}) do
    local text = line(item)
    bytes = bytes + #text + 1
    if bytes > M.max_list_bytes and i > 1 then
      lines[i] = format("  - ... %d more %s left out (the feedback quotes at most %d bytes of them)",
        #list - i + 1, what, M.max_list_bytes)
      break
    end
    lines[i] = text
  end
  return lines_of(lines)
end

-- The values a template may name that take work to make, each made only
-- when a template names it: "fresh" and "last" render the first prompt
-- again every attempt, and it names none of them.
local derived = {
  errors = function(ctx) return bounded_lines(ctx.errors, error_line, "errors") end,
  -- the session writes what was sent (ctx.submission); a context built by
  -- hand has only the value
  submission = function(ctx)
    return ctx.submission or (ctx.value ~= nil and json.encode(ctx.value, { pretty = true }) or "")
  end,
  reply_head = function(ctx) return (ctx.reply or ""):sub(1, 500) end,
  coercions = function(ctx)
    return bounded_lines(ctx.coercions, function(c) return coercion_line(c, ctx.value, ctx.coerced_value) end,
      "changes")
  end,
  coerced_block = function(_, part, fill, templates)
    return part("coercions") ~= "" and fill(templates.coerced_block) or ""
  end,
  schema_block = function(ctx, _, fill, templates)
    return ctx.include_schema and fill(templates.schema_block) or ""
  end,
}

-- The placeholders whose values are the session's, the same every attempt.
-- A template that names no other renders the same text each time: "fresh"
-- and "last" render the first prompt, schema and all, on every attempt.
local SESSION_NAMES = { "prompt", "schema", "first_step", "next_step", "max_attempts" }
local SESSION_NAME = {}
for _, name in ipairs(SESSION_NAMES) do SESSION_NAME[name] = true end

-- The text memo (ctx.rendered, the session's) holds for `kind`, if it was
-- rendered from this template and these values of the session's names.
local function remembered(memo, kind, template, vars)
  local hit = memo and memo[kind]
  if not hit or hit.template ~= template then return nil end
  for _, name in ipairs(SESSION_NAMES) do
    if hit.values[name] ~= vars[name] then return nil end
  end
  return hit.text
end

--- Renders the feedback of `kind` ("validation", "parse", "rejection") or the
-- "first" prompt for the attempt described by `ctx`.
-- @tparam string kind
-- @tparam table ctx the attempt context (see coax.strategy); ctx.rendered,
-- when present, is a table where texts that name only the session's values
-- are kept for the next attempt
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
  local text = remembered(ctx.rendered, kind, template, vars)
  if text then return text end
  -- part(name): a placeholder's text, a derived one made the first time a
  -- template names it; fill(template): the template with each one's text
  local part
  local session_only = true
  local function fill(t) return (t:gsub(PLACEHOLDER, part)) end
  part = function(name)
    if not SESSION_NAME[name] then session_only = false end
    local v = vars[name]
    if v == nil then
      local make = derived[name]
      if not make then return "" end
      v = make(ctx, part, fill, templates)
      vars[name] = v
    end
    return tostring(v)
  end
  text = fill(template)
  if session_only and ctx.rendered then
    local values = {}
    for _, name in ipairs(SESSION_NAMES) do values[name] = vars[name] end
    ctx.rendered[kind] = { template = template, values = values, text = text }
  end
  return text
end

return M
