--- The policy side of a session, called by the engine's state machine
-- (engine/session/session.c). Each function is one step the C side asks for; the
-- session table `S` keeps what Lua needs between steps.
-- @module coax.runtime
local recipe_mod = require "coax.recipe"
local strategy = require "coax.strategy"
local feedback = require "coax.feedback"
local coax = require "coax"

local M = {}

-- The agent's options: the recipe's, then the host's over them. The host's
-- `fallback` is the agent when neither names one (no `name`, no `call`): a
-- table of options merged under the rest, or a string, the message the
-- session is invalid with (the CLI's default agent, README "The default
-- agent"). With neither, the replay agent.
local function agent_spec(recipe, host)
  local spec, fallback = {}, nil
  if type(recipe.agent) == "table" then
    for k, v in pairs(recipe.agent) do spec[k] = v end
  elseif type(recipe.agent) == "string" then
    spec.name = recipe.agent
  end
  for k, v in pairs(host or {}) do -- the host's options win
    if k == "fallback" then fallback = v else spec[k] = v end
  end
  if spec.name == nil and spec.call == nil and fallback ~= nil then
    if type(fallback) ~= "table" then error(tostring(fallback), 0) end
    for k, v in pairs(fallback) do
      if spec[k] == nil then spec[k] = v end
    end
  end
  spec.name = spec.name or "replay"
  return spec
end

-- What the session does with a streamed reply (README "Streaming"), read by
-- engine/session/create.c: `on` when the agent streams (its option stream,
-- or an agent whose replies may come in pieces: the host's), then the
-- recipe's stream table with its defaults (partials when streamed, no
-- stop_early, every 50 ms).
local function stream_options(t, spec, agent)
  t = t or {}
  local on = spec.stream == true or agent.PIECES == true
  local atomic = {}
  for i, p in ipairs(t.atomic or {}) do atomic[i] = p end
  local partials = t.partials
  if partials == nil then partials = on end
  return { on = on, partials = on and partials, stop_early = on and t.stop_early == true, atomic = atomic,
    every_ms = t.every_ms or 50 }
end

--- Checks the recipe and prepares a session.
-- @tparam table recipe what the recipe file returned
-- @tparam string input
-- @tparam table host {agent = {...}, max_attempts = n, default_max_attempts = n}: the
-- host's options, and the attempts when neither the host nor the recipe says
-- (COAX_DEFAULT_MAX_ATTEMPTS, which the engine passes)
-- @treturn table S, or raises with a message naming the problem
function M.new_session(recipe, input, host)
  local r, err = recipe_mod.check(recipe)
  if not r then error(err, 0) end
  local spec = agent_spec(r, host.agent)
  local agent
  if type(spec.call) == "function" then -- a recipe's own agent: agent = {call = function(request, state) ... end}
    agent = { call = spec.call, schema_in_request = spec.schema_in_request }
  else
    if not spec.name:match("^[%w_]+$") then error("invalid agent name '" .. spec.name .. "'", 0) end
    local ok, mod = pcall(require, "coax.agents." .. spec.name)
    if not ok then error("unknown agent '" .. spec.name .. "'", 0) end
    agent = mod
  end
  if spec.mode == "tools" and not agent.TOOLS then
    error(("the %s agent has no tools mode"):format(spec.name or "recipe's"), 0)
  end
  local S = {
    recipe = r, agent = agent, agent_spec = spec, agent_state = {}, input = input, system = r.system,
    max_attempts = host.max_attempts or r.max_attempts or host.default_max_attempts,
    max_class = r.max_class,
    context_budget = r.context_budget, budget = r.budget or {},
    rendered = {}, -- texts of templates that name only the session's values (coax.feedback)
    stream = stream_options(r.stream, spec, agent),
  }
  return S
end

-- The context strategies and templates see.
local function context(S, info)
  local ctx = info or {}
  ctx.prompt, ctx.system, ctx.input = S.prompt, S.system, S.input
  local in_request = S.agent.schema_in_request
  -- some agents send only the schemas their provider takes
  if type(in_request) == "function" then in_request = in_request(S.agent_spec, S.schema) end
  ctx.schema_text, ctx.schema_in_request = S.schema_text, in_request
  ctx.max_attempts, ctx.messages = S.max_attempts, S.messages
  ctx.context_budget, ctx.templates = S.context_budget, S.recipe.feedback
  ctx.estimate, ctx.rendered = S.estimate, S.rendered
  ctx.tools = S.agent_spec.mode == "tools"
  return ctx
end

-- A copy of a value of the session's messages for the recipe's own code (its strategy, on_submit),
-- marked as its original is (coax.json's array, object with its key order, number): the session's
-- are the ones the report recorded and the agent was handed (engine/session/record.c), and the next
-- attempt's are compared with them for the messages it keeps. A strategy or on_submit that changed
-- them made the next request keep a message the report never showed.
local function copy_for_recipe(v, seen)
  if type(v) ~= "table" then return v end
  if seen[v] then return seen[v] end
  local marked, kind = getmetatable(v) ~= nil, coax.json.type(v)
  if marked and kind == "number" then
    seen[v] = coax.json.number(rawget(v, "text"))
    return seen[v]
  end
  local c = {}
  seen[v] = c
  for k, x in next, v do c[k] = copy_for_recipe(x, seen) end
  if not marked then return c end
  if kind == "array" then return coax.json.array(c) end
  return coax.json.object(c, coax.json.keys(v))
end

-- Sets the messages of the next call. The session (engine/session/record.c)
-- records what it keeps of S.previous, the previous call's, and the rest.
local function set_messages(S, messages)
  S.previous, S.messages = S.messages, messages
end

--- The messages of the first attempt. The recipe's prompt is made here, when
-- the session runs: an error raised by a prompt function is the recipe's
-- code failing (a script error, with its traceback), not an invalid recipe.
function M.first(S)
  S.prompt = recipe_mod.prompt(S.recipe, S.input)
  set_messages(S, strategy.first_prompt(context(S, { attempt = 1 })))
  return S.messages
end

-- Whether the table at t holds only the keys `names` allows, read raw (as the session records it).
local function only_keys(t, names)
  for k in next, t do
    if not names[k] then return false end
  end
  return true
end

-- A list the report writes as a JSON array: an empty plain table is written as an object.
local function is_list(t)
  if coax.json.type(t) ~= "array" then return false end
  local n = rawlen(t)
  for k in next, t do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local ROUND_KEYS, CALL_KEYS = { round = true, calls = true }, { name = true, arguments = true, result = true,
  is_error = true }

-- Whether a call's tool rounds are what the report's schema holds ($defs/tool_round), read raw as
-- engine/session/record.c records them: a recipe's own agent returned any table, and the report did
-- not conform.
local function tool_rounds_hold(rounds)
  if type(rounds) ~= "table" then return true end -- not recorded
  if not is_list(rounds) then return false end
  for i = 1, rawlen(rounds) do
    local r = rawget(rounds, i)
    if type(r) ~= "table" or not only_keys(r, ROUND_KEYS) then return false end
    local n, calls = rawget(r, "round"), rawget(r, "calls")
    if math.type(n) ~= "integer" or n < 1 or type(calls) ~= "table" or not is_list(calls) then return false end
    for j = 1, rawlen(calls) do
      local c = rawget(calls, j)
      if type(c) ~= "table" or not only_keys(c, CALL_KEYS) then return false end
      local args = rawget(c, "arguments")
      if type(rawget(c, "name")) ~= "string" or type(rawget(c, "result")) ~= "string"
          or type(rawget(c, "is_error")) ~= "boolean"
          or not (type(args) == "string" or type(args) == "table" and coax.json.type(args) == "object") then
        return false
      end
    end
  end
  return true
end

local function checked_reply(reply, ...)
  local meta = select(2, ...) -- a failed call's (no table first): {retries, status, limit, tool_rounds, ...}
  local said = type(reply) == "table" and reply or type(meta) == "table" and meta or nil
  if said and not tool_rounds_hold(rawget(said, "tool_rounds")) then
    error("the agent's tool_rounds are not a list of {round, calls = {{name, arguments, result, is_error}, ...}} "
      .. "(the report's $defs/tool_round)", 0)
  end
  return reply, ...
end

--- Calls the agent (inside a coroutine: agents may yield on coax.sleep,
-- coax.http, coax.command and coax.host_request). Returns {text, usage?,
-- finish?} or nil, message. When the reply is streamed, request.on_text is
-- the session's sink for this attempt (engine/session/lend_stream.c):
-- on_text(delta) with each piece of the reply's text as it arrives,
-- on_text(nil) when a new reply starts over (a transport retry).
function M.call(S)
  local request = { messages = S.messages, schema = S.schema, options = S.agent_spec }
  if S.stream.on then request.on_text = coax.stream_sink() end
  if S.agent_spec.mode == "tools" then
    request.tools = { render = function(kind, info) return M.render(S, kind, info) end }
  end
  return checked_reply(S.agent.call(request, S.agent_state))
end

--- The recipe's verdict on a valid value: true, or false and a reason.
function M.submit(S, value, info)
  local on_submit = S.recipe.on_submit
  if not on_submit then return true end
  local ctx = context(S, info)
  ctx.messages = copy_for_recipe(S.messages, {})
  local ok, reason = on_submit(value, ctx)
  if ok then return true end
  return false, reason ~= nil and tostring(reason) or "rejected by on_submit"
end

--- The messages of the next attempt after a failure.
-- @treturn table messages
-- @treturn string the mode ("continue", "fresh", "last", "custom")
-- @treturn string the feedback on the failure: the text the strategy
-- rendered, or (a strategy of the recipe's own) the last message's when it
-- is the user's
function M.next(S, info)
  local ctx = context(S, info)
  if type(S.recipe.strategy) == "function" then ctx.messages = copy_for_recipe(S.messages, {}) end
  local messages, mode = strategy.next_prompt(ctx, S.recipe.strategy)
  if type(messages) ~= "table" or rawlen(messages) == 0 then error("strategy returned no messages", 0) end
  set_messages(S, messages)
  -- read raw, as the session checks, records and hands them on (engine/session/machine.c, record.c)
  local said = ctx.feedback
  local last = rawget(messages, rawlen(messages))
  if said == nil and type(last) == "table" and rawget(last, "role") == "user" then said = rawget(last, "content") end
  return messages, mode, type(said) == "string" and said or nil
end

--- Renders one feedback template (for hosts and the tools mode).
function M.render(S, kind, info)
  return feedback.render(kind, context(S, info), S.recipe.feedback)
end

--- Calls the recipe's on_event, if any.
function M.event(S, name, data)
  local f = S.recipe.on_event
  if f then f(name, data) end
end

return M
