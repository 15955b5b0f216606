--- Continue the conversation or start fresh: the messages of each attempt.
--
-- Strategies (a recipe's `strategy` field, or a function of the same shape):
--   "continue" (default): the first prompt carries the schema; each retry adds
--     the reply and the feedback, without repeating the schema, so context grows
--     by the errors. When the conversation's estimated size passes
--     `ctx.context_budget` tokens, start fresh instead.
--   "fresh": every retry is the original prompt, the schema and the latest
--     errors, nothing else.
--   "last": the original prompt, the last failed reply and its feedback.
-- Whatever the strategy, a request carries the schema once: in the first
-- prompt, or in the feedback when the messages do not hold it already (or
-- not at all when the agent sends it in the request's own field).
-- @module coax.strategy
local feedback = require "coax.feedback"
local json = require("coax").json

local M = {}

local ROLE_CONTENT = { "role", "content" }

--- A chat message that encodes as {"role": ..., "content": ...}.
local function message(role, content)
  return json.object({ role = role, content = content }, ROLE_CONTENT)
end
M.message = message

local function copy(messages)
  local out = {}
  for i, m in ipairs(messages) do out[i] = message(m.role, m.content) end
  return out
end

-- The feedback on the failure in `ctx`, kept in ctx.feedback: the report
-- records it as the text sent after the failed attempt.
local function say(ctx)
  ctx.feedback = feedback.render(ctx.kind, ctx, ctx.templates)
  return ctx.feedback
end

local function opening(ctx)
  local messages = {}
  if ctx.system and ctx.system ~= "" then messages[1] = message("system", ctx.system) end
  local user = ctx.schema_in_request and ctx.prompt or feedback.render("first", ctx, ctx.templates)
  messages[#messages + 1] = message("user", user)
  return messages
end

--- The messages of the first attempt.
-- @tparam table ctx
-- @treturn table messages
function M.first_prompt(ctx)
  return opening(ctx)
end

-- Whether the schema's text is in 'messages' already (the first prompt
-- holds it, unless a recipe's template left it out): feedback adds it only
-- when not, so each request carries it once, whatever the strategy.
local function needs_schema(messages, ctx)
  if ctx.schema_in_request or not ctx.schema_text then return false end
  for _, m in ipairs(messages) do
    if type(m.content) == "string" and m.content:find(ctx.schema_text, 1, true) then return false end
  end
  return true
end

local function estimate(messages, ctx)
  local n = 0
  for _, m in ipairs(messages) do n = n + ctx.estimate(m.content) end
  return n
end

local function fresh(ctx)
  local messages = opening(ctx)
  ctx.include_schema = needs_schema(messages, ctx)
  messages[#messages + 1] = message("user", say(ctx))
  return messages, "fresh"
end

local strategies = {}

function strategies.continue(ctx)
  local messages = copy(ctx.messages)
  messages[#messages + 1] = message("assistant", ctx.reply or "")
  ctx.include_schema = needs_schema(messages, ctx)
  messages[#messages + 1] = message("user", say(ctx))
  if ctx.context_budget and estimate(messages, ctx) > ctx.context_budget then return fresh(ctx) end
  return messages, "continue"
end

function strategies.fresh(ctx)
  return fresh(ctx)
end

function strategies.last(ctx)
  local messages = opening(ctx)
  messages[#messages + 1] = message("assistant", ctx.reply or "")
  ctx.include_schema = needs_schema(messages, ctx)
  messages[#messages + 1] = message("user", say(ctx))
  return messages, "last"
end

--- The messages of the next attempt after a failure described by `ctx`
-- (ctx.kind is "validation", "parse" or "rejection").
-- @tparam table ctx
-- @tparam[opt="continue"] string|function how
-- @treturn table messages
-- @treturn string the mode used ("continue", "fresh", "last" or "custom")
function M.next_prompt(ctx, how)
  if type(how) == "function" then return how(ctx), "custom" end
  local s = strategies[how or "continue"]
  if not s then error("unknown strategy '" .. tostring(how) .. "' (continue, fresh, last)", 2) end
  return s(ctx)
end

M.names = { "continue", "fresh", "last" }

return M
