--- The OpenAI-compatible agent: Chat Completions (`POST {base_url}/chat/completions`),
-- the API that OpenAI, vLLM, llama.cpp's server, LM Studio, OpenRouter and
-- Ollama's `/v1` all speak; or, with `api = "responses"`, OpenAI's Responses
-- API (`POST {base_url}/responses`, coax.agents.openai_responses).
--
-- Options (a recipe's `agent` table, `coax run --agent openai --model M
-- --base-url URL --mode M`, or the C and Lua APIs' agent options):
--
--   api            "chat_completions" (default) or "responses"
--   model          the model (default "gpt-4o-mini")
--   base_url       default "https://api.openai.com/v1"
--   mode           "json_schema" (default): response_format carries the schema,
--                  with `strict` when the schema meets OpenAI's strict rules;
--                  "json_object": JSON mode, the schema in the prompt;
--                  "prompt": the schema in the prompt, the reply is text;
--                  "tools": the three-tool mode (coax.tools): the model calls
--                  validate_json, json_example and submit (tool_choice
--                  "required"); max_tool_rounds bounds the rounds (default 8)
--   strict         true / false to force strict json_schema either way
--   api_key_env    the environment variable holding the key (default
--                  OPENAI_API_KEY; the name must end in _API_KEY). No key:
--                  no Authorization header (local servers need none). The
--                  key never passes through Lua (coax.secret).
--   temperature, max_tokens, seed   passed on when given (Responses:
--                  max_tokens is max_output_tokens; it has no seed)
--   stream         true: server-sent events, read line by line as they come
--   headers        extra request headers, e.g. OpenRouter's {["HTTP-Referer"] = ...}
--   timeout_ms     one request's whole time (default: the engine's)
--   max_retries    transport retries (default 2), with retry_base_ms (500)
--                  and retry_max_ms (8000) for the backoff
--   on_refusal     "error" (default): a refusal ends the session as an
--                  agent error; "retry": it counts as a failed attempt and
--                  the model gets feedback
--
-- A reply cut off (`finish_reason: "length"`) is returned as it is, marked
-- `finish = "length"`; the engine never accepts it (README "A reply the
-- provider says was cut off"). A refusal keeps `message.refusal` whole.
-- @module coax.agents.openai
local coax = require "coax"
local cjson = require "cjson"
local transport = require "coax.transport"
local tools = require "coax.tools"

local json = coax.json
local concat = table.concat

local M = {}

M.DEFAULT_MODEL = "gpt-4o-mini"
M.DEFAULT_BASE_URL = "https://api.openai.com/v1"
M.MODES = { json_schema = true, json_object = true, prompt = true, tools = true }
M.TOOLS = true -- speaks the three-tool mode

--- Whether the schema travels in the request (json_schema mode) rather than
-- in the prompt.
-- @tparam table options the agent options
-- @treturn boolean
function M.schema_in_request(options)
  return (options.mode or "json_schema") == "json_schema"
end

-- ---- OpenAI's strict mode --------------------------------------------------

-- Keywords strict Structured Outputs accepts (OpenAI's "Supported schemas").
local STRICT_KEYWORDS = {
  type = true, properties = true, required = true, additionalProperties = true, items = true,
  enum = true, const = true, anyOf = true, ["$ref"] = true, ["$defs"] = true, definitions = true,
  description = true, title = true, pattern = true, format = true, minimum = true, maximum = true,
  exclusiveMinimum = true, exclusiveMaximum = true, multipleOf = true, minItems = true, maxItems = true,
}
local STRICT_MAX_DEPTH, STRICT_MAX_PROPERTIES, STRICT_MAX_ENUM = 10, 5000, 1000

--- Whether `schema` meets OpenAI's strict rules: an object at the root, only
-- supported keywords, every object closed (`additionalProperties: false`)
-- with every property required, at most 10 levels of nesting, 5000
-- properties and 1000 enum values.
-- @tparam table schema a schema as the engine hands it to agents
-- @treturn boolean
-- @treturn string|nil why not
function M.strict_ok(schema)
  if type(schema) ~= "table" or schema.type ~= "object" then return false, "the root is not an object" end
  local props, enums = 0, 0
  local function walk(s, depth)
    if type(s) ~= "table" then return false, "a subschema is not an object" end
    if depth > STRICT_MAX_DEPTH then return false, "nested more than 10 levels" end
    for k in pairs(s) do
      if not STRICT_KEYWORDS[k] then return false, "unsupported keyword '" .. tostring(k) .. "'" end
    end
    local children = {}
    if s.properties ~= nil or s.type == "object" then
      if s.additionalProperties ~= false then return false, "an object without additionalProperties: false" end
      local required = {}
      for _, name in ipairs(s.required or {}) do required[name] = true end
      for name, sub in pairs(s.properties or {}) do
        props = props + 1
        if not required[name] then return false, "property '" .. tostring(name) .. "' is not required" end
        children[#children + 1] = sub
      end
    end
    if s.enum then enums = enums + #s.enum end
    if s.items ~= nil then children[#children + 1] = s.items end
    for _, sub in ipairs(s.anyOf or {}) do children[#children + 1] = sub end
    for _, defs in ipairs({ "$defs", "definitions" }) do
      for _, sub in pairs(s[defs] or {}) do children[#children + 1] = sub end
    end
    for _, sub in ipairs(children) do
      local ok, why = walk(sub, depth + 1)
      if not ok then return false, why end
    end
    return true
  end
  local ok, why = walk(schema, 1)
  if not ok then return false, why end
  if props > STRICT_MAX_PROPERTIES then return false, "more than 5000 properties" end
  if enums > STRICT_MAX_ENUM then return false, "more than 1000 enum values" end
  return true
end

-- ---- the request -----------------------------------------------------------

local BODY_ORDER = { "model", "messages", "response_format", "tools", "tool_choice", "temperature", "max_tokens",
  "seed", "stream", "stream_options" }

--- The structured output's name: the `schema_name` option, else "extraction".
function M.schema_name(o)
  local n = o.schema_name or "extraction"
  if type(n) ~= "string" or not n:match("^[%w_%-]+$") or #n > 64 then
    error("openai agent: schema_name must be 1 to 64 letters, digits, _ or -", 0)
  end
  return n
end
local schema_name = M.schema_name

local function response_format(mode, schema, o)
  if mode == "json_object" then return json.object({ type = "json_object" }) end
  if mode ~= "json_schema" then return nil end
  local strict = o.strict
  if strict == nil then strict = M.strict_ok(schema) end
  local spec = json.object({ name = schema_name(o), schema = schema, strict = strict == true },
    { "name", "schema", "strict" })
  return json.object({ type = "json_schema", json_schema = spec }, { "type", "json_schema" })
end

-- The three tools as OpenAI function tools.
local function tool_definitions()
  local list = {}
  for i, t in ipairs(tools.definitions()) do
    list[i] = json.object({
      type = "function",
      ["function"] = json.object({ name = t.name, description = t.description, parameters = t.parameters },
        { "name", "description", "parameters" }),
    }, { "type", "function" })
  end
  return json.array(list)
end

--- The mode the options name (json_schema by default), or an error naming the modes.
function M.mode_of(o)
  local mode = o.mode or "json_schema"
  if not M.MODES[mode] then
    error(("openai agent: unknown mode '%s' (json_schema, json_object, prompt, tools)"):format(tostring(mode)), 0)
  end
  return mode
end

--- The request body, as JSON text.
-- @tparam table request {messages, schema, options}
-- @tparam[opt] table messages the messages to send instead of
--   request.messages (tools mode's own conversation)
-- @treturn string
function M.body(request, messages)
  local o = request.options
  local mode = M.mode_of(o)
  local body = {
    model = o.model or M.DEFAULT_MODEL,
    messages = json.array(messages or request.messages),
    response_format = response_format(mode, request.schema, o),
    temperature = o.temperature, max_tokens = o.max_tokens, seed = o.seed,
  }
  if mode == "tools" then body.tools, body.tool_choice = tool_definitions(), "required" end
  if o.stream then
    body.stream = true
    body.stream_options = json.object({ include_usage = true })
  end
  return json.encode(json.object(body, BODY_ORDER))
end

--- The request headers (the key as a Bearer token, when there is one).
function M.headers_of(o)
  local key = coax.secret(o.api_key_env or "OPENAI_API_KEY")
  return transport.headers(o, {
    { "Content-Type", "application/json" },
    { "Accept", o.stream and "text/event-stream" or "application/json" },
    { "Authorization", key and "Bearer " .. key },
  })
end

local headers_of = M.headers_of

--- The base URL without trailing slashes.
function M.base_of(o)
  local base = o.base_url or M.DEFAULT_BASE_URL
  if type(base) ~= "string" then error("openai agent: base_url must be a string", 0) end
  return (base:gsub("/+$", ""))
end

local function url_of(o)
  return M.base_of(o) .. "/chat/completions"
end

-- ---- the response ----------------------------------------------------------

local function str(v)
  if type(v) == "string" then return v end
  return nil
end

local function count(v)
  if type(v) == "number" and v >= 0 and v == math.floor(v) then return math.tointeger(v) end
  return nil
end

local function detail(t, k)
  return type(t) == "table" and count(t[k]) or nil
end

--- Usage as the session records it from Chat Completions' (`prompt_tokens`,
-- `completion_tokens`, with `prompt_tokens_details.cached_tokens` and
-- `completion_tokens_details.reasoning_tokens` parts of them) or the
-- Responses API's (`input_tokens`, `output_tokens`, `input_tokens_details`,
-- `output_tokens_details`).
-- @tparam table u the provider's usage object
-- @treturn table|nil {input_tokens, output_tokens, cached_input_tokens?, reasoning_tokens?}
function M.usage_of(u)
  if type(u) ~= "table" then return nil end
  local responses = u.prompt_tokens == nil and u.completion_tokens == nil
  local input_details = responses and u.input_tokens_details or u.prompt_tokens_details
  local output_details = responses and u.output_tokens_details or u.completion_tokens_details
  return {
    input_tokens = count(responses and u.input_tokens or u.prompt_tokens),
    output_tokens = count(responses and u.output_tokens or u.completion_tokens),
    cached_input_tokens = detail(input_details, "cached_tokens"),
    reasoning_tokens = detail(output_details, "reasoning_tokens"),
  }
end
local usage_of = M.usage_of

-- The reply from a whole (non-streamed) completion body.
local function parse_completion(body)
  local ok, doc = pcall(cjson.decode, body)
  if not ok or type(doc) ~= "table" then return nil, "openai agent: the response body is not JSON" end
  local choice = type(doc.choices) == "table" and doc.choices[1]
  local msg = type(choice) == "table" and choice.message
  if type(msg) ~= "table" then return nil, "openai agent: the response has no choices[1].message" end
  local calls
  if type(msg.tool_calls) == "table" then
    calls = {}
    for _, c in ipairs(msg.tool_calls) do
      if type(c) == "table" then -- anything else is no call at all
        local f = type(c["function"]) == "table" and c["function"] or {}
        calls[#calls + 1] = { id = str(c.id) or "", name = str(f.name) or "", args = str(f.arguments) or "" }
      end
    end
  end
  return {
    text = str(msg.content), refusal = str(msg.refusal), finish = str(choice.finish_reason),
    usage = usage_of(doc.usage), tool_calls = calls,
  }
end

-- A reader for a streamed completion: feed(line) per line, then result()
-- (nothing at all when no line was an event: the body was not a stream).
-- `text` gets the content's deltas, `submit` the first submit call's
-- arguments' (coax.tools.stream_sinks).
local function stream_reader(text, submit)
  local parts, r, bad = {}, {}, nil
  local submit_index -- the index of the call whose arguments go to `submit`
  local refusal = {}
  -- streamed tool calls, by index: {id, names, name_len, parts}: a name's and the arguments' pieces,
  -- joined once at the end (joined as they came, each piece copied all before it: quadratic)
  local calls = {}
  local events = 0
  local function feed(line)
    local data = line:match("^data:%s?(.*)$")
    if not data then return end
    events = events + 1
    if data == "[DONE]" then return end
    local ok, ev = pcall(cjson.decode, data)
    if not ok or type(ev) ~= "table" then
      bad = "openai agent: a streamed event is not JSON"
      return
    end
    if type(ev.error) == "table" then bad = "openai agent: " .. tostring(str(ev.error.message) or "stream error") end
    if type(ev.usage) == "table" then r.usage = usage_of(ev.usage) end
    local choice = type(ev.choices) == "table" and ev.choices[1]
    if type(choice) ~= "table" then return end
    local delta = type(choice.delta) == "table" and choice.delta or {}
    if str(delta.content) then
      parts[#parts + 1] = delta.content
      if text then text(delta.content) end
    end
    if str(delta.refusal) then refusal[#refusal + 1] = delta.refusal end
    for _, d in ipairs(type(delta.tool_calls) == "table" and delta.tool_calls or {}) do
      if type(d) ~= "table" then goto next_call end
      local i = type(d.index) == "number" and d.index >= 0 and math.floor(d.index) + 1 or #calls + 1 -- cjson: floats
      local c = calls[i] or { id = "", names = {}, name_len = 0, parts = {} }
      calls[i] = c
      local f = type(d["function"]) == "table" and d["function"] or {}
      if str(d.id) then c.id = d.id end
      if str(f.name) then
        c.names[#c.names + 1] = f.name
        c.name_len = c.name_len + #f.name
      end
      if submit and not submit_index and c.name_len == #"submit" and concat(c.names) == "submit" then
        submit_index = i
      end
      if str(f.arguments) then
        c.parts[#c.parts + 1] = f.arguments
        if submit_index == i then submit(f.arguments) end
      end
      ::next_call::
    end
    if str(choice.finish_reason) then r.finish = choice.finish_reason end
  end
  local function result()
    if events == 0 then return nil end
    if bad then return nil, bad end
    r.text = concat(parts)
    if #refusal > 0 then r.refusal = concat(refusal) end
    if #calls > 0 then
      r.tool_calls = {}
      for i, c in ipairs(calls) do r.tool_calls[i] = { id = c.id, name = concat(c.names), args = concat(c.parts) } end
    end
    return r
  end
  return feed, result
end

-- One request and its reply: {text, refusal, finish, usage, tool_calls,
-- retries}, or nil, the error and {status, retries}.
local function exchange(o, body, request)
  local reply, err, info = transport.post(o, "openai agent", { url = url_of(o), headers = headers_of(o), body = body },
    { stream = o.stream, reader = function() return stream_reader(tools.stream_sinks(request)) end,
      parse = parse_completion })
  -- OpenAI-compatible servers serve under /v1; a base URL without it is the
  -- usual cause of a 404.
  local base = transport.shown_url(o.base_url or M.DEFAULT_BASE_URL):gsub("/+$", "")
  if not reply and info and info.status == 404 and not base:find("/v%d+$") then
    err = ("%s; OpenAI-compatible servers serve under /v1: try base_url %s/v1"):format(err, base)
  end
  return reply, err, info
end

--- A reply as the session takes it: the refusal policy applied, text checked.
function M.settle(reply, o)
  if reply.refusal and o.on_refusal == "retry" then
    reply.text, reply.refusal, reply.finish = reply.refusal, nil, "refusal"
  elseif reply.refusal == nil and reply.text == nil then
    return nil, "openai agent: the reply has no content", { retries = reply.retries }
  end
  reply.tool_calls = nil
  return reply
end

local ASSISTANT_ORDER = { "role", "content", "tool_calls" }
local CALL_ORDER = { "id", "type", "function" }

local function assistant_message(reply)
  local calls = {}
  for i, c in ipairs(reply.tool_calls) do
    calls[i] = json.object({
      id = c.id, type = "function",
      ["function"] = json.object({ name = c.name, arguments = c.args }, { "name", "arguments" }),
    }, CALL_ORDER)
  end
  return json.object({ role = "assistant", content = reply.text or coax.null, tool_calls = json.array(calls) },
    ASSISTANT_ORDER)
end

local function tool_messages(results)
  local out = {}
  for i, r in ipairs(results) do
    out[i] = json.object({ role = "tool", tool_call_id = r.id, content = r.content },
      { "role", "tool_call_id", "content" })
  end
  return out
end

--- Sends the conversation and returns the model's reply.
-- @tparam table request {messages, schema, options}
-- @tparam table state the session's agent state (tools mode keeps its
--   conversation there between attempts)
-- @treturn[1] table {text, finish, usage, retries, tool_rounds?} or {refusal, ...}
-- @treturn[2] nil
-- @treturn[2] string the error, with the HTTP status and the provider's message
-- @treturn[2] table {status?, retries, limit?, tool_rounds?}
function M.call(request, state)
  local o = request.options
  local api = o.api or "chat_completions"
  if api == "responses" then return require("coax.agents.openai_responses").call(request, state) end
  if api ~= "chat_completions" then
    error(("openai agent: unknown api '%s' (chat_completions, responses)"):format(tostring(api)), 0)
  end
  return tools.call(request, state, {
    exchange = function(native) return exchange(o, M.body(request, native), request) end,
    assistant = assistant_message, results = tool_messages,
    settle = function(reply) return M.settle(reply, o) end,
  })
end

return M
