--- The Anthropic agent: the Messages API (`POST {base_url}/messages`).
--
-- Options (a recipe's `agent` table, `coax run --agent anthropic --model M
-- --base-url URL --mode M`, or the C and Lua APIs' agent options):
--
--   model          the model (default "claude-sonnet-4-5", the alias of the
--                  current Claude Sonnet 4.5 snapshot)
--   base_url       default "https://api.anthropic.com/v1"
--   mode           "prompt" (default): the schema in the prompt, the reply
--                  is text; "tools": the three-tool mode (coax.tools): the
--                  model calls validate_json, json_example and submit
--                  (tool_choice "any"); max_tool_rounds bounds the rounds
--                  (default 8); the feedback on a submitted value goes back
--                  as the submit call's tool_result with is_error: true
--   max_tokens     the reply's cap, which the API requires (default 4096)
--   api_key_env    the environment variable holding the key, sent as
--                  `x-api-key` (default ANTHROPIC_API_KEY; the name must end
--                  in _API_KEY). No key: no x-api-key header (a proxy that
--                  adds it). The key never passes through Lua (coax.secret).
--   temperature    passed on when given
--   stream         true: server-sent events, read line by line as they come
--   headers        extra request headers, e.g. {["anthropic-beta"] = "..."};
--                  one named like a default (anthropic-version, ...) replaces it
--   timeout_ms     one request's whole time (default: the engine's)
--   max_retries    transport retries (default 2), with retry_base_ms (500)
--                  and retry_max_ms (8000) for the backoff; 429, 529
--                  (overloaded_error) and other 5xx are retried
--   on_refusal     "error" (default): a refusal (`stop_reason: "refusal"`)
--                  ends the session as an agent error; "retry": it counts as
--                  a failed attempt and the model gets feedback
--
-- Messages: Anthropic has no system role, so the conversation's system
-- messages become the `system` field (joined by a blank line); the others
-- keep their order, an empty message is left out (the API refuses empty
-- content) and consecutive messages of one role are merged, so that roles
-- alternate as the API wants.
--
-- The reply: the text blocks of `content`, joined; `stop_reason` becomes the
-- attempt's finish ("end_turn" -> "stop", "max_tokens" -> "length", others as
-- they are). A reply cut off at max_tokens ("length") is never accepted by
-- the engine; the model is asked again. Usage: input tokens
-- (with cache reads and writes counted in) and output tokens, and the cache
-- reads (`cached_input_tokens`) and writes (`cache_creation_input_tokens`)
-- under their own names. A refusal keeps the text and the API's
-- `stop_details` (category: explanation). The reply also
-- carries `content`, the whole list of content blocks (text and tool_use).
-- @module coax.agents.anthropic
local coax = require "coax"
local transport = require "coax.transport"
local tools = require "coax.tools"

local json = coax.json
local concat = table.concat

local M = {}

M.DEFAULT_MODEL = "claude-sonnet-4-5"
M.DEFAULT_BASE_URL = "https://api.anthropic.com/v1"
M.DEFAULT_MAX_TOKENS = 4096
M.API_VERSION = "2023-06-01"
M.DEFAULT_MODE = "prompt"

--- The modes: each says whether the schema travels in the request, and
-- `fields(request)` gives the body's extra fields (tools, tool_choice, ...)
-- or nil.
-- The three tools as Anthropic tools.
local function tool_definitions()
  local list = {}
  for i, t in ipairs(tools.definitions()) do
    list[i] = json.object({ name = t.name, description = t.description, input_schema = t.parameters },
      { "name", "description", "input_schema" })
  end
  return json.array(list)
end

M.MODES = {
  prompt = { schema_in_request = false, fields = function() return nil end },
  tools = {
    schema_in_request = false,
    fields = function() return { tools = tool_definitions(), tool_choice = json.object({ type = "any" }) } end,
  },
}
M.TOOLS = true -- speaks the three-tool mode

local function mode_of(o)
  local mode = o.mode or M.DEFAULT_MODE
  if not M.MODES[mode] then
    local names = {}
    for k in pairs(M.MODES) do names[#names + 1] = k end
    table.sort(names)
    error(("anthropic agent: unknown mode '%s' (%s)"):format(tostring(mode), concat(names, ", ")), 0)
  end
  return mode
end

--- Whether the schema travels in the request rather than in the prompt (an
-- unknown mode is the call's error, not this one's).
-- @tparam table options the agent options
-- @treturn boolean
function M.schema_in_request(options)
  local m = M.MODES[options.mode or M.DEFAULT_MODE]
  return m ~= nil and m.schema_in_request
end

-- ---- the request -----------------------------------------------------------

local BODY_ORDER = { "model", "max_tokens", "system", "messages", "tools", "tool_choice", "temperature", "stream" }
local ROLE_CONTENT = { "role", "content" }

-- A message's content as a list of content blocks.
local function blocks_of(content)
  if type(content) == "table" then return content end
  return { json.object({ type = "text", text = content }, { "type", "text" }) }
end

local function empty(content)
  return content == nil or content == "" or (type(content) == "table" and #content == 0)
end

--- The conversation in Anthropic's shape: the system text (or nil) and the
-- user and assistant messages, alternating. A content is a string or a
-- list of content blocks; two strings merge into one, otherwise the blocks
-- are listed one after the other.
-- @tparam table messages {role, content} in the engine's order
-- @treturn string|nil system
-- @treturn table messages
function M.messages(messages)
  local system, out = {}, {}
  for _, m in ipairs(messages) do
    local role, content = m.role, m.content
    if role == "system" then
      if type(content) == "string" and content ~= "" then system[#system + 1] = content end
    elseif not empty(content) then
      if role ~= "assistant" then role = "user" end
      local last = out[#out]
      if last and last.role == role then
        if type(last.content) == "string" and type(content) == "string" then
          last.content = last.content .. "\n\n" .. content
        else
          local merged = json.array({})
          for _, b in ipairs(blocks_of(last.content)) do merged[#merged + 1] = b end
          for _, b in ipairs(blocks_of(content)) do merged[#merged + 1] = b end
          last.content = merged
        end
      else
        out[#out + 1] = json.object({ role = role, content = content }, ROLE_CONTENT)
      end
    end
  end
  return #system > 0 and concat(system, "\n\n") or nil, json.array(out)
end

--- The request body as a table that encodes in a fixed key order.
-- @tparam table request {messages, schema, options}
-- @tparam[opt] table extra more fields (tools, tool_choice, ...), set over the
--   ones built here
-- @treturn table
function M.body_table(request, extra)
  local o = request.options
  local max_tokens = math.tointeger(o.max_tokens or M.DEFAULT_MAX_TOKENS)
  if not max_tokens or max_tokens < 1 then
    error("anthropic agent: max_tokens must be a positive integer", 0)
  end
  local system, messages = M.messages(request.messages)
  local body = {
    model = o.model or M.DEFAULT_MODEL, max_tokens = max_tokens, system = system, messages = messages,
    temperature = o.temperature, stream = o.stream and true or nil,
  }
  for k, v in pairs(extra or {}) do body[k] = v end
  local order = { table.unpack(BODY_ORDER) }
  local known = {}
  for _, k in ipairs(order) do known[k] = true end
  local more = {}
  for k in pairs(body) do
    if not known[k] then more[#more + 1] = k end
  end
  table.sort(more)
  for _, k in ipairs(more) do order[#order + 1] = k end
  return json.object(body, order)
end

--- The request body, as JSON text.
-- @tparam table request {messages, schema, options}
-- @tparam[opt] table messages the messages to send instead of
--   request.messages (tools mode's own conversation)
-- @treturn string
function M.body(request, messages)
  local mode = mode_of(request.options)
  if messages then request = { messages = messages, schema = request.schema, options = request.options } end
  return json.encode(M.body_table(request, M.MODES[mode].fields(request)))
end

local function headers_of(o)
  local h, given = {}, {}
  if type(o.headers) == "table" then
    for k, v in pairs(o.headers) do
      h[#h + 1] = { k, v }
      given[tostring(k):lower()] = true
    end
    table.sort(h, function(a, b) return a[1] < b[1] end)
  end
  local function add(name, value)
    if value ~= nil and not given[name] then h[#h + 1] = { name, value } end
  end
  add("content-type", "application/json")
  add("accept", o.stream and "text/event-stream" or "application/json")
  add("anthropic-version", M.API_VERSION)
  add("x-api-key", coax.secret(o.api_key_env or "ANTHROPIC_API_KEY"))
  return h
end

local function url_of(o)
  local base = o.base_url or M.DEFAULT_BASE_URL
  if type(base) ~= "string" then error("anthropic agent: base_url must be a string", 0) end
  return (base:gsub("/+$", "")) .. "/messages"
end

-- ---- the response ----------------------------------------------------------

-- A reply stopped by the context window, or paused mid-turn (server tools),
-- is cut off as one at max_tokens is: what was to follow is missing.
local FINISH = { end_turn = "stop", max_tokens = "length", model_context_window_exceeded = "length",
  pause_turn = "length" }

local function str(v)
  if type(v) == "string" then return v end
  return nil
end

local function int(v)
  if math.type(v) == "integer" then return v end
  return nil
end

-- Usage from the API's: input tokens count the prompt's cache reads and
-- writes too (the API reports them apart from `input_tokens`), and each is
-- also kept under its own name. A stream's later usage (message_delta)
-- updates what it says.
local function usage_into(usage, u)
  local n = int(u.input_tokens)
  local read, write = int(u.cache_read_input_tokens), int(u.cache_creation_input_tokens)
  if read then usage.cached_input_tokens = read end
  if write then usage.cache_creation_input_tokens = write end
  if n then usage.input_tokens = n + (usage.cache_creation_input_tokens or 0) + (usage.cached_input_tokens or 0) end
  if int(u.output_tokens) then usage.output_tokens = u.output_tokens end
  return usage
end

-- The provider's own explanation of a refusal (`stop_details`: its category
-- and explanation), or nil.
local function refusal_details(d)
  if type(d) ~= "table" then return nil end
  local category, explanation = str(d.category), str(d.explanation)
  if category and explanation then return category .. ": " .. explanation end
  return explanation or category
end

-- The reply from the content blocks and the stop reason. `raw` maps a
-- streamed tool_use block whose input did not arrive as JSON (cut off, or
-- broken) to that text: the call's arguments, for the extraction to judge.
local function reply_of(blocks, stop_reason, usage, stop_details, raw)
  local parts = {}
  for _, b in ipairs(blocks) do
    if type(b) == "table" and b.type == "text" and str(b.text) then parts[#parts + 1] = b.text end
  end
  local text = concat(parts)
  local calls
  for _, b in ipairs(blocks) do
    if type(b) == "table" and b.type == "tool_use" then
      calls = calls or {}
      calls[#calls + 1] = { id = str(b.id) or "", name = str(b.name) or "", args = raw and raw[b] or b.input }
    end
  end
  local r = { text = text, content = blocks, stop_reason = stop_reason, usage = usage, tool_calls = calls }
  r.finish = stop_reason and (FINISH[stop_reason] or stop_reason) or nil
  if stop_reason == "refusal" then -- the model's words, then the API's reason
    local words = {}
    if text ~= "" then words[#words + 1] = text end
    words[#words + 1] = refusal_details(stop_details)
    r.refusal = #words > 0 and concat(words, "\n") or "(no text; stop_reason refusal)"
  end
  return r
end

--- The reply from a whole (non-streamed) message body.
-- @tparam string body
-- @treturn[1] table {text, content, finish, stop_reason, refusal?, usage?}
-- @treturn[2] nil
-- @treturn[2] string the error
function M.parse_message(body)
  local doc = json.decode(body or "")
  if type(doc) ~= "table" then return nil, "anthropic agent: the response body is not JSON" end
  if doc.type == "error" and type(doc.error) == "table" then
    return nil, ("anthropic agent: %s: %s"):format(tostring(str(doc.error.type) or "error"),
      tostring(str(doc.error.message) or ""))
  end
  if type(doc.content) ~= "table" then return nil, "anthropic agent: the response has no content list" end
  local usage = type(doc.usage) == "table" and usage_into({}, doc.usage) or nil
  return reply_of(doc.content, str(doc.stop_reason), usage, doc.stop_details)
end

-- A reader for a streamed message: feed(line) per line, then result()
-- (nothing at all when no line was an event: the body was not a stream).
-- A streamed tool_use block's input from its pieces of JSON text. Text that
-- is not JSON stays the call's arguments (in `raw`), and the block, which
-- goes back to the API in tools mode, gets an empty object.
local function take_input(b, text, raw)
  local input = text == "" and json.object({}) or json.decode(text)
  if input == nil then input, raw[b] = json.object({}), text end
  b.input = input
end

-- `text` gets the text blocks' deltas, `submit` the first submit call's
-- input's (coax.tools.stream_sinks).
local function stream_reader(text, submit)
  local blocks, partial, usage, raw = json.array({}), {}, {}, {}
  -- a text block's deltas, by block, joined once at the end: joined as they came, each copied the
  -- text before it (a reply of 2 MB in 16-byte deltas ran out of its budget, attack round 17)
  local texts = {}
  local stop_reason, stop_details, submit_index
  local function handle(ev)
    local kind = ev.type
    if kind == "message_start" then
      local u = type(ev.message) == "table" and ev.message.usage
      if type(u) == "table" then usage_into(usage, u) end
    elseif kind == "content_block_start" and int(ev.index) and type(ev.content_block) == "table" then
      blocks[ev.index + 1] = ev.content_block
      local b = ev.content_block
      if submit and not submit_index and b.type == "tool_use" and b.name == "submit" then submit_index = ev.index end
    elseif kind == "content_block_delta" and int(ev.index) and type(ev.delta) == "table" then
      local b, d = blocks[ev.index + 1], ev.delta
      if type(b) ~= "table" then return end
      if d.type == "text_delta" and str(d.text) then
        local t = texts[b] or { str(b.text) or "" }
        texts[b] = t
        t[#t + 1] = d.text
        if text and b.type == "text" then text(d.text) end
      elseif d.type == "input_json_delta" and str(d.partial_json) then
        if submit_index == ev.index then submit(d.partial_json) end
        local p = partial[ev.index + 1] or {}
        p[#p + 1] = d.partial_json
        partial[ev.index + 1] = p
      end
    elseif kind == "content_block_stop" and int(ev.index) then
      local b, p = blocks[ev.index + 1], partial[ev.index + 1]
      if type(b) == "table" and p then
        take_input(b, concat(p), raw)
        partial[ev.index + 1] = nil
      end
    elseif kind == "message_delta" then
      if type(ev.delta) == "table" then
        if str(ev.delta.stop_reason) then stop_reason = ev.delta.stop_reason end
        if type(ev.delta.stop_details) == "table" then stop_details = ev.delta.stop_details end
      end
      if type(ev.usage) == "table" then usage_into(usage, ev.usage) end
    elseif kind == "error" then
      local e = type(ev.error) == "table" and ev.error or {}
      return ("anthropic agent: stream error (%s): %s"):format(tostring(str(e.type) or "error"),
        tostring(str(e.message) or ""))
    end
  end
  local function finish()
    for b, t in pairs(texts) do b.text = concat(t) end
    for i, p in pairs(partial) do -- blocks the stream never closed
      if type(blocks[i]) == "table" then take_input(blocks[i], concat(p), raw) end
    end
    local list = json.array({})
    for i = 1, #blocks do list[i] = blocks[i] end
    local u = (usage.input_tokens or usage.output_tokens) and usage or nil
    return reply_of(list, stop_reason, u, stop_details, raw)
  end
  return transport.json_events("anthropic agent", handle, finish)
end

-- One request and its reply, or nil, the error and {status, retries}.
local function exchange(o, body, request)
  return transport.post(o, "anthropic agent", { url = url_of(o), headers = headers_of(o), body = body },
    { stream = o.stream, reader = function() return stream_reader(tools.stream_sinks(request)) end,
      parse = M.parse_message })
end

-- A reply as the session takes it: the refusal policy applied.
local function settle(reply, o)
  if reply.refusal and o.on_refusal == "retry" then reply.refusal = nil end
  reply.tool_calls = nil
  return reply
end

-- Tools mode's messages: the model's turn as it came, and the answers as
-- tool_result blocks of one user message.
local function assistant_message(reply)
  local blocks = json.array({})
  for _, b in ipairs(reply.content) do -- the API refuses empty text blocks, which streams can leave
    if not (type(b) == "table" and b.type == "text" and (b.text or "") == "") then blocks[#blocks + 1] = b end
  end
  return json.object({ role = "assistant", content = blocks }, ROLE_CONTENT)
end

local RESULT_ORDER = { "type", "tool_use_id", "content", "is_error" }

local function tool_results(results)
  if #results == 0 then return {} end
  local blocks = json.array({})
  for i, r in ipairs(results) do
    blocks[i] = json.object({ type = "tool_result", tool_use_id = r.id, content = r.content,
      is_error = r.is_error or nil }, RESULT_ORDER)
  end
  return { json.object({ role = "user", content = blocks }, ROLE_CONTENT) }
end

--- Sends the conversation and returns the model's reply.
-- @tparam table request {messages, schema, options}
-- @tparam table state the session's agent state (tools mode keeps its
--   conversation there between attempts)
-- @treturn[1] table {text, content, finish, usage, retries, tool_rounds?} or {refusal, ...}
-- @treturn[2] nil
-- @treturn[2] string the error, with the HTTP status and the provider's message
-- @treturn[2] table {status?, retries, limit?, tool_rounds?}
function M.call(request, state)
  local o = request.options
  return tools.call(request, state, {
    exchange = function(native) return exchange(o, M.body(request, native), request) end,
    assistant = assistant_message, results = tool_results,
    settle = function(reply) return settle(reply, o) end,
  })
end

return M
