--- The Gemini agent: Google's Gemini API (`POST
-- {base_url}/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`).
--
-- Options (a recipe's `agent` table, `coax run --agent gemini --model M
-- --base-url URL --mode M`, or the C and Lua APIs' agent options):
--
--   model          the model (default "gemini-2.5-flash"; "models/..." is
--                  understood)
--   base_url       default "https://generativelanguage.googleapis.com/v1beta"
--   mode           "json_schema" (default): generationConfig asks for JSON
--                  (`responseMimeType: "application/json"`) and carries the
--                  schema as `responseJsonSchema` when it uses only what
--                  Gemini takes (M.request_schema: annotations such as
--                  $schema and examples left out); otherwise the schema
--                  goes in the prompt and the reply is still asked as JSON;
--                  "json": JSON asked, the schema in the prompt;
--                  "prompt": the schema in the prompt, the reply is text;
--                  "tools": the three-tool mode (coax.tools) as function
--                  declarations, `functionCallingConfig.mode: "ANY"`;
--                  max_tool_rounds bounds the rounds (default 8)
--   api_key_env    the environment variable holding the key, sent as
--                  `x-goog-api-key` (default GEMINI_API_KEY; the name must end
--                  in _API_KEY). No key: no header. The key never passes
--                  through Lua (coax.secret).
--   temperature, max_tokens (as maxOutputTokens), seed   passed on when given
--   stream         true: `:streamGenerateContent?alt=sse`, read as it comes
--   headers        extra request headers
--   timeout_ms     one request's whole time (default: the engine's)
--   max_retries    transport retries (default 2), with retry_base_ms (500)
--                  and retry_max_ms (8000); 429 (RESOURCE_EXHAUSTED) and 5xx
--                  (503 UNAVAILABLE) are retried after the error's
--                  `RetryInfo.retryDelay` when it gives one (coax.transport)
--   on_refusal     "error" (default): a refusal ends the session as an
--                  agent error; "retry": a failed attempt with feedback
--
-- Messages: system messages become `systemInstruction`; the others are
-- `contents` with roles "user" and "model" (an assistant's), consecutive
-- ones of a role merged.
--
-- The reply: the text parts of the first candidate joined (thought parts
-- left out); `finishReason` is the finish: STOP is "stop", MAX_TOKENS is
-- "length" (never accepted by the engine), SAFETY, RECITATION,
-- PROHIBITED_CONTENT, BLOCKLIST, SPII and IMAGE_SAFETY are refusals, others
-- kept as they are; a prompt the API blocked (`promptFeedback.blockReason`)
-- is a refusal too. Usage (`usageMetadata`): input is promptTokenCount (and
-- toolUsePromptTokenCount), output candidatesTokenCount plus
-- thoughtsTokenCount, with cachedContentTokenCount as cached_input_tokens
-- and thoughtsTokenCount as reasoning_tokens.
-- @module coax.agents.gemini
local coax = require "coax"
local transport = require "coax.transport"
local tools = require "coax.tools"

local json = coax.json
local concat = table.concat

local M = {}

M.DEFAULT_MODEL = "gemini-2.5-flash"
M.DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
M.DEFAULT_MODE = "json_schema"
M.MODES = { json_schema = true, json = true, prompt = true, tools = true }
M.TOOLS = true -- speaks the three-tool mode

local function mode_of(o)
  local mode = o.mode or M.DEFAULT_MODE
  if not M.MODES[mode] then
    error(("gemini agent: unknown mode '%s' (json, json_schema, prompt, tools)"):format(tostring(mode)), 0)
  end
  return mode
end

-- ---- what responseJsonSchema takes ------------------------------------------

-- The JSON Schema keywords Gemini's structured output takes (its
-- documentation's "JSON Schema support"); a schema with any other constraint
-- goes in the prompt instead, never silently weakened.
local KEYWORDS = {
  type = true, title = true, description = true, enum = true, format = true, properties = true,
  required = true, additionalProperties = true, items = true, prefixItems = true, minItems = true,
  maxItems = true, minimum = true, maximum = true, anyOf = true, ["$ref"] = true, ["$defs"] = true,
  propertyOrdering = true,
}
-- Annotations, which constrain nothing: left out of the schema sent.
local ANNOTATIONS = { ["$schema"] = true, ["$comment"] = true, examples = true, default = true, deprecated = true,
  readOnly = true, writeOnly = true }
local MAP_KEYWORDS = { properties = true, ["$defs"] = true } -- name -> subschema
local LIST_KEYWORDS = { anyOf = true, prefixItems = true }  -- lists of subschemas
local SUB_KEYWORDS = { items = true, additionalProperties = true }

--- The schema as Gemini's `responseJsonSchema` takes it: the same, key
-- order kept, without annotations; or nil when it uses a constraint Gemini
-- does not take.
-- @tparam table schema a schema as the engine hands it to agents
-- @treturn table|boolean|nil
-- @treturn string|nil why not
function M.request_schema(schema)
  local copy
  local function sub_of(k, v)
    if SUB_KEYWORDS[k] then return copy(v) end
    if MAP_KEYWORDS[k] or LIST_KEYWORDS[k] then
      if type(v) ~= "table" then return nil, "'" .. k .. "' is not a " .. (MAP_KEYWORDS[k] and "map" or "list") end
      local names = MAP_KEYWORDS[k] and json.keys(v) or nil
      local out = names and {} or json.array({})
      for i, name in ipairs(names or v) do
        local c, why = copy(names and v[name] or name)
        if c == nil then return nil, why end
        out[names and name or i] = c
      end
      return names and json.object(out, names) or out
    end
    return v
  end
  copy = function(s)
    if type(s) == "boolean" then return s end
    if json.type(s) ~= "object" then return nil, "a subschema is not an object" end
    local out, order = {}, {}
    for _, k in ipairs(json.keys(s)) do
      if not ANNOTATIONS[k] then
        if not KEYWORDS[k] then return nil, "unsupported keyword '" .. tostring(k) .. "'" end
        local v, why = sub_of(k, s[k])
        if v == nil then return nil, why end
        out[k], order[#order + 1] = v, k
      end
    end
    return json.object(out, order)
  end
  return copy(schema)
end

--- Whether `schema` uses only what Gemini's `responseJsonSchema` takes.
-- @tparam table schema
-- @treturn boolean
-- @treturn string|nil why not
function M.schema_ok(schema)
  local s, why = M.request_schema(schema)
  return s ~= nil, why
end

--- Whether the schema travels in the request rather than in the prompt.
-- @tparam table options the agent options
-- @tparam[opt] table schema the session's schema (json_schema mode sends
--   only a schema Gemini takes)
-- @treturn boolean
function M.schema_in_request(options, schema)
  if (options.mode or M.DEFAULT_MODE) ~= "json_schema" then return false end
  return schema == nil or M.schema_ok(schema) == true
end

-- ---- the request -----------------------------------------------------------

local BODY_ORDER = { "systemInstruction", "contents", "tools", "toolConfig", "generationConfig" }
local CONFIG_ORDER = { "responseMimeType", "responseJsonSchema", "maxOutputTokens", "temperature", "seed" }
local ROLE_PARTS = { "role", "parts" }

local function text_part(text) return json.object({ text = text }) end

--- The conversation in Gemini's shape: systemInstruction (or nil) and the
-- contents, roles "user" and "model", consecutive ones of a role merged. A
-- message's content is a string or (tools mode) a list of parts.
-- @tparam table messages {role, content} in the engine's order
-- @treturn table|nil systemInstruction
-- @treturn table contents
function M.contents(messages)
  local system, out = {}, {}
  for _, m in ipairs(messages) do
    local content = m.content
    if m.role == "system" then
      if type(content) == "string" and content ~= "" then system[#system + 1] = text_part(content) end
    elseif content ~= nil and content ~= "" and not (type(content) == "table" and #content == 0) then
      local role = m.role == "assistant" and "model" or "user"
      local parts = type(content) == "table" and content or { text_part(content) }
      local last = out[#out]
      if not last or last.role ~= role then
        last = json.object({ role = role, parts = json.array({}) }, ROLE_PARTS)
        out[#out + 1] = last
      end
      for _, p in ipairs(parts) do last.parts[#last.parts + 1] = p end
    end
  end
  local instruction = #system > 0 and json.object({ parts = json.array(system) }) or nil
  return instruction, json.array(out)
end

-- The three tools as function declarations (JSON Schema parameters).
local function tool_definitions()
  local list = {}
  for i, t in ipairs(tools.definitions()) do
    list[i] = json.object({ name = t.name, description = t.description, parametersJsonSchema = t.parameters },
      { "name", "description", "parametersJsonSchema" })
  end
  return json.array({ json.object({ functionDeclarations = json.array(list) }) })
end

local function generation_config(mode, request)
  local o = request.options
  local c = { temperature = o.temperature, seed = o.seed }
  if o.max_tokens ~= nil then
    c.maxOutputTokens = math.tointeger(o.max_tokens)
    if not c.maxOutputTokens or c.maxOutputTokens < 1 then
      error("gemini agent: max_tokens must be a positive integer", 0)
    end
  end
  if mode == "json_schema" or mode == "json" then
    c.responseMimeType = "application/json"
    if mode == "json_schema" then c.responseJsonSchema = M.request_schema(request.schema) end
  end
  if next(c) == nil then return nil end
  return json.object(c, CONFIG_ORDER)
end

--- The request body, as JSON text.
-- @tparam table request {messages, schema, options}
-- @tparam[opt] table messages the messages to send instead of
--   request.messages (tools mode's own conversation)
-- @treturn string
function M.body(request, messages)
  local mode = mode_of(request.options)
  local instruction, contents = M.contents(messages or request.messages)
  local body = { systemInstruction = instruction, contents = contents,
    generationConfig = generation_config(mode, request) }
  if mode == "tools" then
    body.tools = tool_definitions()
    body.toolConfig = json.object({ functionCallingConfig = json.object({ mode = "ANY" }) })
  end
  return json.encode(json.object(body, BODY_ORDER))
end

-- The model's name, checked: it becomes part of the URL's path.
local function model_of(o)
  local model = o.model or M.DEFAULT_MODEL
  model = type(model) == "string" and model:gsub("^models/", "") or ""
  if not model:match("^[%w][%w%._%-]*$") then
    error("gemini agent: model must be a model name (letters, digits, '.', '_', '-'), not '"
      .. tostring(o.model) .. "'", 0)
  end
  return model
end

local function url_of(o)
  local base = o.base_url or M.DEFAULT_BASE_URL
  if type(base) ~= "string" then error("gemini agent: base_url must be a string", 0) end
  local method = o.stream and ":streamGenerateContent?alt=sse" or ":generateContent"
  return (base:gsub("/+$", "")) .. "/models/" .. model_of(o) .. method
end

local function headers_of(o)
  return transport.headers(o, {
    { "Content-Type", "application/json" },
    { "Accept", o.stream and "text/event-stream" or "application/json" },
    { "x-goog-api-key", coax.secret(o.api_key_env or "GEMINI_API_KEY") },
  })
end

-- ---- the response ----------------------------------------------------------

local FINISH = { STOP = "stop", MAX_TOKENS = "length" }
local REFUSALS = { SAFETY = true, RECITATION = true, PROHIBITED_CONTENT = true, BLOCKLIST = true, SPII = true,
  IMAGE_SAFETY = true }

local function str(v)
  if type(v) == "string" then return v end
  return nil
end

local function count(v)
  if math.type(v) == "integer" and v >= 0 then return v end
  return nil
end

--- Usage as the session records it from `usageMetadata`.
-- @tparam table u
-- @treturn table|nil
function M.usage_of(u)
  if type(u) ~= "table" then return nil end
  local prompt, tool_prompt = count(u.promptTokenCount), count(u.toolUsePromptTokenCount)
  local candidates, thoughts = count(u.candidatesTokenCount), count(u.thoughtsTokenCount)
  local r = { cached_input_tokens = count(u.cachedContentTokenCount), reasoning_tokens = thoughts }
  if prompt or tool_prompt then r.input_tokens = (prompt or 0) + (tool_prompt or 0) end
  if candidates or thoughts then r.output_tokens = (candidates or 0) + (thoughts or 0) end
  return r
end

-- The categories a candidate's safety ratings say were blocked, or nil.
local function blocked_categories(ratings)
  local out = {}
  for _, r in ipairs(type(ratings) == "table" and ratings or {}) do
    if type(r) == "table" and r.blocked == true and str(r.category) then out[#out + 1] = r.category end
  end
  return #out > 0 and concat(out, ", ") or nil
end

-- The reply from what the response (or a stream's responses) said: the
-- parts of the first candidate, its finish reason and message, the prompt
-- feedback, the usage.
local function reply_of(parts, finish_reason, finish_message, ratings, feedback, usage)
  local texts, calls = {}, nil
  for _, p in ipairs(parts) do
    if type(p) == "table" then
      if str(p.text) and p.thought ~= true then texts[#texts + 1] = p.text end
      local fc = p.functionCall
      if type(fc) == "table" then
        calls = calls or {}
        local args = fc.args
        if json.type(args) ~= "object" then args = json.object({}) end
        calls[#calls + 1] = { id = str(fc.id) or "", name = str(fc.name) or "", args = args }
      end
    end
  end
  local r = { text = concat(texts), parts = parts, usage = usage, tool_calls = calls }
  local block = type(feedback) == "table" and str(feedback.blockReason)
  if block then -- the prompt was blocked: no candidate at all
    local words = { "the prompt was blocked (" .. block .. ")" }
    words[#words + 1] = str(feedback.blockReasonMessage)
    r.refusal, r.finish = concat(words, ": "), "refusal"
    return r
  end
  if not finish_reason then return r end
  r.finish = FINISH[finish_reason] or finish_reason
  if REFUSALS[finish_reason] then
    local words = {}
    if r.text ~= "" then words[#words + 1] = r.text end
    local why = "finishReason " .. finish_reason
    local categories = blocked_categories(ratings)
    if categories then why = why .. " (" .. categories .. ")" end
    words[#words + 1] = why
    words[#words + 1] = finish_message
    r.refusal, r.finish = concat(words, "\n"), "refusal"
  end
  return r
end

local function candidate_of(doc)
  local c = type(doc.candidates) == "table" and doc.candidates[1]
  return type(c) == "table" and c or nil
end

local function error_of(doc)
  local e = doc.error
  if type(e) ~= "table" then return nil end
  return ("gemini agent: %s: %s"):format(tostring(str(e.status) or e.code or "error"), tostring(str(e.message) or ""))
end

--- The reply from a whole (non-streamed) response body.
-- @tparam string body
-- @treturn[1] table {text, parts, finish, refusal?, usage?, tool_calls?}
-- @treturn[2] nil, string the error
function M.parse_response(body)
  local doc = json.decode(body or "")
  if type(doc) ~= "table" then return nil, "gemini agent: the response body is not JSON" end
  local e = error_of(doc)
  if e then return nil, e end
  local c = candidate_of(doc)
  if not c and type(doc.promptFeedback) ~= "table" then
    return nil, "gemini agent: the response has no candidates"
  end
  c = c or {}
  local content = type(c.content) == "table" and c.content or {}
  local parts = type(content.parts) == "table" and content.parts or json.array({})
  return reply_of(parts, str(c.finishReason), str(c.finishMessage), c.safetyRatings, doc.promptFeedback,
    M.usage_of(doc.usageMetadata))
end

-- A text part with nothing else (a thought's too): a stream's pieces of one
-- text join into one such part.
local function plain_text(p)
  if type(p) ~= "table" or not str(p.text) then return false end
  for k in pairs(p) do
    if k ~= "text" and k ~= "thought" then return false end
  end
  return true
end

-- A reader for a streamed response (`alt=sse`: one GenerateContentResponse
-- a `data:` line): feed(line) per line, then result() (nothing at all when
-- no line was an event: the body was not a stream). `text` gets the reply
-- text's deltas, thoughts left out (coax.tools.stream_sinks).
local function stream_reader(text)
  local parts, pieces = json.array({}), {}
  local finish_reason, finish_message, ratings, feedback, usage
  local function handle(doc)
    local e = error_of(doc)
    if e then return e end
    if type(doc.promptFeedback) == "table" then feedback = doc.promptFeedback end
    if type(doc.usageMetadata) == "table" then usage = M.usage_of(doc.usageMetadata) end -- cumulative: the last wins
    local c = candidate_of(doc)
    if not c then return end
    local content = type(c.content) == "table" and c.content or {}
    for _, p in ipairs(type(content.parts) == "table" and content.parts or {}) do
      local n = #parts
      if text and plain_text(p) and p.thought ~= true then text(p.text) end
      if plain_text(p) and pieces[n] and (p.thought == true) == (parts[n].thought == true) then
        pieces[n][#pieces[n] + 1] = p.text
      else
        parts[n + 1] = p
        if plain_text(p) then pieces[n + 1] = { p.text } end
      end
    end
    if str(c.finishReason) then finish_reason = c.finishReason end
    if str(c.finishMessage) then finish_message = c.finishMessage end
    if type(c.safetyRatings) == "table" then ratings = c.safetyRatings end
  end
  local function finish()
    for i, p in pairs(pieces) do parts[i].text = concat(p) end
    return reply_of(parts, finish_reason, finish_message, ratings, feedback, usage)
  end
  return transport.json_events("gemini agent", handle, finish)
end

-- One request and its reply, or nil, the error and {status, retries}.
local function exchange(o, body, request)
  return transport.post(o, "gemini agent", { url = url_of(o), headers = headers_of(o), body = body },
    { stream = o.stream, reader = function() return stream_reader(tools.stream_sinks(request)) end,
      parse = M.parse_response })
end

-- A reply as the session takes it: the refusal policy applied.
local function settle(reply, o)
  if reply.refusal and o.on_refusal == "retry" then reply.refusal = nil end
  reply.tool_calls, reply.parts = nil, nil
  return reply
end

-- Tools mode's messages: the model's turn as it came (its parts, thought
-- signatures and all), and the answers as functionResponse parts of one
-- user turn, in the calls' order, with the call's id when it had one.
local function model_turn(reply)
  return { role = "assistant", content = reply.parts }
end

local RESPONSE_ORDER = { "id", "name", "response" }

local function function_responses(results)
  if #results == 0 then return {} end
  local parts = json.array({})
  for i, r in ipairs(results) do
    local response = json.object(r.is_error and { error = r.content } or { result = r.content })
    parts[i] = json.object({ functionResponse = json.object({ id = r.id ~= "" and r.id or nil, name = r.name,
      response = response }, RESPONSE_ORDER) })
  end
  return { { role = "user", content = parts } }
end

--- Sends the conversation and returns the model's reply.
-- @tparam table request {messages, schema, options}
-- @tparam table state the session's agent state (tools mode keeps its
--   conversation there between attempts)
-- @treturn[1] table {text, finish, usage, retries, tool_rounds?} or {refusal, ...}
-- @treturn[2] nil, string the error, table {status?, retries, limit?, tool_rounds?}
function M.call(request, state)
  local o = request.options
  mode_of(o)
  return tools.call(request, state, {
    exchange = function(native) return exchange(o, M.body(request, native), request) end,
    assistant = model_turn, results = function_responses,
    settle = function(reply) return settle(reply, o) end,
  })
end

return M
