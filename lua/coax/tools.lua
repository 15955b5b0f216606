--- The three-tool mode (`mode = "tools"`): instead of replying with JSON, the
-- model works with three tools inside one attempt:
--
--   validate_json {json}  coax checks the value as it would check a reply
--                         (repair, coercion, validation) and answers with the
--                         feedback a failed attempt would get, or "valid".
--   json_example {}       an example instance of the schema (`coax example`).
--   submit {json}         ends the attempt; the value is the attempt's reply.
--
-- Tool rounds do not consume attempts; `max_tool_rounds` (default 8) bounds
-- them, and reaching it ends the session with outcome `limit`. A submitted
-- value that fails is a failed attempt like any other; its feedback goes
-- back to the model as the submit call's (error) result when the strategy
-- continues the conversation.
--
-- This module is the provider-neutral half; each agent (openai, anthropic, gemini)
-- speaks its own wire format and asks this module what to answer.
-- @module coax.tools
local coax = require "coax"

local json = coax.json
local concat = table.concat

local M = {}

M.DEFAULT_MAX_ROUNDS = 8
M.MAX_CALLS = 16 -- answered per round; the rest are told they were ignored

local SCHEMA_ORDER = { "type", "properties", "required" }

local function value_parameters(what)
  return json.object({
    type = "object",
    properties = json.object({ json = json.object({ description = what }) }),
    required = json.array({ "json" }),
  }, SCHEMA_ORDER)
end

--- The tools, provider-neutral: {name, description, parameters (a schema)},
-- made afresh at each call: the engine's instance of this module is shared
-- by every session, and its frozen tables cannot hold the JSON-marked
-- parameters (a marked table keeps its own metatable), so a list kept here
-- would be one a recipe could rewrite for every later session's provider.
function M.definitions()
  return {
    {
      name = "validate_json",
      description = "Check a JSON value against the schema. Answers 'valid' or lists every error with its path. "
        .. "Call it before submit.",
      parameters = value_parameters("The JSON value to check (the value itself, not text)."),
    },
    {
      name = "json_example",
      description = "Get an example JSON value that matches the schema.",
      parameters = json.object({ type = "object", properties = json.object({}) }, SCHEMA_ORDER),
    },
    {
      name = "submit",
      description = "Submit the final JSON value. This ends your turn; validate it first.",
      parameters = value_parameters("The final JSON value (the value itself, not text)."),
    },
  }
end

M.VALID = "valid: the JSON matches the schema; you may submit it"

-- ---- the value a call carries, as the provider sent it ---------------------

local function skip_space(s, i) return s:find("[^ \t\r\n]", i) or #s + 1 end

-- The index of the quote that closes the string opened at `i` (by `q`), or nil.
local function string_end(s, i, q)
  local stop, j = q == '"' and '["\\]' or "['\\]", i + 1
  while true do
    local k = s:find(stop, j)
    if not k then return nil end
    if s:byte(k) == 92 then j = k + 2 else return k end -- 92: a backslash escapes the next byte
  end
end

-- The index of the last byte of the value that starts at `i`: a string, a
-- balanced object or array (strings skipped), or a scalar up to the next
-- `,`, `}` or `]`. A value cut off runs to the end of the text.
local function value_end(s, i)
  local c = s:sub(i, i)
  if c == '"' or c == "'" then return string_end(s, i, c) or #s end
  if c ~= "{" and c ~= "[" then
    local k = s:find("[,}%]]", i)
    local e = k and k - 1 or #s
    while e > i and s:find("^%s", e) do e = e - 1 end
    return e
  end
  local depth, j = 0, i
  while true do
    local k = s:find("[%[%]{}\"']", j)
    if not k then return #s end
    local ch = s:sub(k, k)
    if ch == '"' or ch == "'" then
      j = (string_end(s, k, ch) or #s) + 1
    elseif ch == "{" or ch == "[" then
      depth, j = depth + 1, k + 1
    else
      depth, j = depth - 1, k + 1
      if depth == 0 then return k end
    end
  end
end

-- Whether s[i..] is nothing but spaces, a comma and a closing brace, each optional, in that order.
-- One pattern, "^%s*,?%s*}?%s*$", tried its three runs of spaces against each other when the text
-- went on after them: a run of n spaces took n^3 steps (1,000: 1 s; 4,000: 62 s).
local function only_closing(s, i)
  i = s:find("[^%s]", i) or #s + 1
  if s:byte(i) == 44 then i = s:find("[^%s]", i + 1) or #s + 1 end -- 44: ','
  if s:byte(i) == 125 then i = s:find("[^%s]", i + 1) or #s + 1 end -- 125: '}'
  return i > #s
end

-- The bytes of the `json` member's value when the text is an object with that
-- one member (`{"json": V}`, possibly broken: the key unquoted or in single
-- quotes, a trailing comma, the closing brace missing), else nil.
local function envelope_value(s)
  local i = skip_space(s, 1)
  if s:sub(i, i) ~= "{" then return nil end
  i = skip_space(s, i + 1)
  local c = s:sub(i, i)
  local key, after
  if c == '"' or c == "'" then
    local e = string_end(s, i, c)
    if not e then return nil end
    key, after = s:sub(i + 1, e - 1), e + 1
  else
    local a, b = s:find("^[%a_][%w_]*", i)
    if not a then return nil end
    key, after = s:sub(a, b), b + 1
  end
  if key ~= "json" then return nil end
  i = skip_space(s, after)
  if s:sub(i, i) ~= ":" then return nil end
  i = skip_space(s, i + 1)
  if i > #s then return nil end
  local e = value_end(s, i)
  if not only_closing(s, e + 1) then return nil end -- more members: not an envelope
  return s:sub(i, e)
end

-- A string that holds JSON: models often send the value as text.
local function json_text(v)
  return type(v) == "string" and v:match("^%s*[%[{`]") ~= nil
end

--- The text of the value a validate_json or submit call carries, for the
-- session's extraction (which repairs, coerces and logs it like any reply).
-- `args` is what the provider sent: JSON text (OpenAI's `arguments`,
-- possibly broken) or a decoded object (Anthropic's `input`, Gemini's
-- `args`). The value is the `json` member when that is the only one, else
-- the arguments themselves (a model that passes the value itself). From text,
-- the value's own bytes are taken, never re-encoded: what needed repair is
-- repaired, and logged, by the extraction. A string that holds JSON is taken
-- as that JSON.
-- @param args string|table
-- @treturn string
function M.value_text(args)
  if type(args) == "string" then
    local v = envelope_value(args)
    if v == nil then return args end
    if v:sub(1, 1) == '"' then
      local decoded = json.decode(v)
      if json_text(decoded) then return decoded end
    end
    return v
  end
  if json.type(args) == "object" then
    local keys = json.keys(args)
    if #keys == 1 and keys[1] == "json" then
      local v = args.json
      if json_text(v) then return v end
      return json.encode(v)
    end
  end
  return json.encode(args)
end

-- ---- a streamed reply ---------------------------------------------------------

-- Whether `head` (a call's arguments so far) may still become the envelope's
-- opening `{"json":` (spaces allowed between its tokens).
local function envelope_may_open(head)
  if head:match('^%s*{%s*"json"%s*:%s*$') or head:match('^%s*{%s*"json"%s*$') then return true end
  for n = 0, 4 do
    if head:match('^%s*{%s*"' .. ("json"):sub(1, n) .. "$") then return true end
  end
  return head:match("^%s*{?%s*$") ~= nil
end

--- A sink for a streamed submit call's arguments: the text of its value
-- goes on to `on_text` as it arrives, without the `{"json": ...}` envelope
-- around it (the partial is the submitted value itself). Arguments that are
-- not the envelope go on as they are.
-- @tparam function on_text
-- @treturn function feed(piece)
function M.submit_feed(on_text)
  -- The pieces so far, and their text with each run of spaces made one (the looks take any run):
  -- what is looked at stays a few bytes. The text itself, joined to each piece, made arguments
  -- of many pieces of spaces quadratic (attack round 17).
  local pieces, squeezed, open = {}, "", false
  return function(piece)
    if open then return on_text(piece) end
    pieces[#pieces + 1] = piece
    squeezed = (squeezed .. piece):gsub("%s+", " ")
    if squeezed:match('^%s*{%s*"json"%s*:%s*%S') or not envelope_may_open(squeezed) then
      open = true
      local head = concat(pieces)
      return on_text(head:match('^%s*{%s*"json"%s*:%s*(%S.*)$') or head)
    end
  end
end

--- The sinks of a streamed reply's reader, made anew for each reply (a
-- try, a tools round), which starts the session's partials over: the sink
-- of the reply's text and, in tools mode, the sink of the submit call's
-- arguments instead. Both nil when the reply is not streamed (no on_text).
-- @tparam table request the agent's request (request.on_text: coax.runtime)
-- @treturn function|nil text(delta)
-- @treturn function|nil submit(arguments_delta)
function M.stream_sinks(request)
  local on_text = request.on_text
  if not on_text then return nil, nil end
  on_text(nil)
  if request.options.mode == "tools" then return nil, M.submit_feed(on_text) end
  return on_text, nil
end

local Run = {}
Run.__index = Run

--- A tools-mode attempt: answers tool calls and records each round.
-- @tparam table request the agent's request; `request.tools` is what the
--   runtime gives tools mode: {render = function(kind, info) -> feedback}
-- @treturn table with :round(calls), .rounds, .max_rounds
function M.new(request)
  local max = request.options.max_tool_rounds or M.DEFAULT_MAX_ROUNDS
  if math.type(max) ~= "integer" or max < 1 then error("tools mode: max_tool_rounds must be a positive integer", 0) end
  return setmetatable({ request = request, rounds = {}, max_rounds = max }, Run)
end

function Run:validate(text)
  local info = coax.check_reply(text)
  if info.valid then return M.VALID, false end
  return self.request.tools.render(info.kind, info), true
end

function Run:example()
  local v, err = coax.example(self.request.schema)
  if v == nil then return "no example could be built: " .. tostring(err), true end
  return json.encode(v, { pretty = true }), false
end

--- A call's arguments for the report: the provider's text, or its object
-- (an empty object when it sent none).
function M.arguments_as_sent(args)
  if type(args) == "string" or type(args) == "table" and json.type(args) == "object" then return args end
  if type(args) == "table" then return json.encode(args) end -- a list: its text (the report holds text or an object)
  return json.object({})
end

local ROUND_ORDER = { "round", "calls" }
local CALL_ORDER = { "name", "arguments", "result", "is_error" }

--- Answers one round of tool calls, in order.
-- @tparam table calls {{id, name, args}, ...} (args: text or a decoded value)
-- @treturn table results {{id, name, content, is_error}, ...}, one per call except
--   the submit that ended the attempt
-- @treturn[opt] table {id, text}: the submit call and its value's text
function Run:round(calls)
  local results, recorded, submitted = {}, {}, nil
  for _, call in ipairs(calls) do
    local content, is_error, args_text
    local ends = call.name == "submit" and not submitted
    if ends then
      args_text = M.value_text(call.args)
      submitted = { id = call.id, text = args_text }
      content = "submitted"
    elseif submitted then
      content, is_error = "ignored: submit ended the turn", true
    elseif #recorded >= M.MAX_CALLS then
      content, is_error = ("ignored: at most %d tool calls are answered at a time"):format(M.MAX_CALLS), true
    elseif call.name == "validate_json" then
      args_text = M.value_text(call.args)
      content, is_error = self:validate(args_text)
    elseif call.name == "json_example" then
      content, is_error = self:example()
    else
      content, is_error = ("unknown tool '%s'; the tools are validate_json, json_example and submit")
        :format(tostring(call.name)), true
    end
    -- The submit call is answered by the next attempt's feedback, if any.
    if not ends then
      results[#results + 1] = { id = call.id, name = call.name, content = content, is_error = is_error or false }
    end
    -- Every call as it was sent: its name and its arguments untouched.
    recorded[#recorded + 1] = json.object({
      name = tostring(call.name), arguments = M.arguments_as_sent(call.args), result = content,
      is_error = is_error or false,
    }, CALL_ORDER)
  end
  self.rounds[#self.rounds + 1] = json.object({ round = #self.rounds + 1, calls = json.array(recorded) }, ROUND_ORDER)
  return results, submitted
end

--- The error an agent returns when the rounds run out (outcome `limit`).
function Run:out_of_rounds(meta)
  meta = meta or {}
  meta.limit, meta.tool_rounds = "tool_rounds", json.array(self.rounds)
  return nil, ("tools mode: %d tool round%s without a submit (max_tool_rounds)"):format(self.max_rounds,
    self.max_rounds == 1 and "" or "s"), meta
end

--- Keeps what the next attempt needs to continue this one natively: the
-- provider's own messages up to the submit call, and the messages the
-- strategy had given (to recognise a continued conversation).
function Run:remember(state, native, submitted)
  local given = {}
  for i, m in ipairs(self.request.messages) do given[i] = { role = m.role, content = m.content } end
  state.tools_prev = { given = given, native = native, submit_id = submitted.id, text = submitted.text }
end

--- When the strategy continued the last attempt's conversation (its
-- messages, then the submitted reply and the feedback), the provider's own
-- messages of that attempt, the submit call's id and the feedback; the
-- agent answers the submit call with the feedback as an error result. Nil
-- otherwise (a fresh prompt, a custom strategy): the agent sends the
-- messages as they are.
function M.continued(request, state)
  local prev = state.tools_prev
  state.tools_prev = nil
  if not prev then return nil end
  local m, n = request.messages, #prev.given
  if #m ~= n + 2 or m[n + 1].role ~= "assistant" or m[n + 1].content ~= prev.text or m[n + 2].role ~= "user" then
    return nil
  end
  for i = 1, n do
    if m[i].role ~= prev.given[i].role or m[i].content ~= prev.given[i].content then return nil end
  end
  return prev.native, prev.submit_id, m[n + 2].content
end

-- The usage counts agents report (README "Usage"), summed over the rounds.
M.USAGE_COUNTS = { "input_tokens", "output_tokens", "cached_input_tokens", "cache_creation_input_tokens",
  "reasoning_tokens" }

local function add_usage(total, usage)
  for _, k in ipairs(M.USAGE_COUNTS) do
    if usage and usage[k] then total[k] = (total[k] or 0) + usage[k] end
  end
end

--- One tools-mode attempt over a provider's wire: rounds of tool calls
-- until a submit, a reply without tool calls, or the rounds run out.
-- `wire` speaks the provider's format:
--   exchange(native) -> reply {text?, tool_calls? {{id, name, args}},
--     usage?, retries} | nil, error, meta: one request with these messages
--   assistant(reply) -> the provider's message of the model's tool calls
--   results({{id, name, content, is_error}}) -> the provider's messages answering them
--   settle(reply) -> the reply as the session takes it (a reply without
--     tool calls: refusals, missing text)
-- @treturn[1] table the reply: {text, finish = "submit", usage, retries,
--   tool_rounds} or the settled plain reply
-- @treturn[2] nil, error, meta {retries, status?, limit?, tool_rounds?, usage?}
function M.attempt(request, state, wire)
  local run = M.new(request)
  local prev, submit_id, fb = M.continued(request, state)
  local native = { table.unpack(prev or request.messages) }
  if prev then -- the submitted value's feedback answers the submit call
    for _, m in ipairs(wire.results({ { id = submit_id, name = "submit", content = fb, is_error = true } })) do
      native[#native + 1] = m
    end
  end
  local usage, retries = {}, 0
  local function rounds() return #run.rounds > 0 and json.array(run.rounds) or nil end
  for _ = 1, run.max_rounds do
    local reply, err, meta = wire.exchange(native)
    if not reply then
      meta = meta or {}
      meta.retries, meta.tool_rounds = retries + (meta.retries or 0), rounds()
      if next(usage) then meta.usage = usage end
      return nil, err, meta
    end
    add_usage(usage, reply.usage)
    retries = retries + (reply.retries or 0)
    reply.usage, reply.retries, reply.tool_rounds = usage, retries, rounds()
    if not reply.tool_calls or #reply.tool_calls == 0 then
      local settled, why, info = wire.settle(reply)
      if settled then return settled end
      info = info or {}
      info.tool_rounds, info.usage = rounds(), next(usage) and usage or nil
      return nil, why, info
    end
    native[#native + 1] = wire.assistant(reply)
    local results, submitted = run:round(reply.tool_calls)
    for _, m in ipairs(wire.results(results)) do native[#native + 1] = m end
    if submitted then
      run:remember(state, native, submitted)
      -- A reply the provider cut off may have cut the submitted value too.
      local finish = reply.finish == "length" and "length" or "submit"
      return { text = submitted.text, finish = finish, usage = usage, retries = retries, tool_rounds = rounds() }
    end
  end
  return run:out_of_rounds({ retries = retries, usage = usage })
end

--- An agent's whole call over its wire: tools mode's rounds, or else one
-- request (`wire.exchange(nil)`: the request's own messages) and its reply
-- settled. The agents that speak tools mode are this call and a wire.
function M.call(request, state, wire)
  if request.options.mode == "tools" then return M.attempt(request, state, wire) end
  local reply, err, meta = wire.exchange(nil)
  if not reply then return nil, err, meta end
  return wire.settle(reply)
end

return M
