--- The Ollama agent: Ollama's native chat API (`POST {host}/api/chat`), with
-- structured outputs (`format` = the schema) and NDJSON streaming.
--
-- Options (a recipe's `agent` table, `coax run --agent ollama --model M
-- --base-url URL --mode M`, or the C and Lua APIs' agent options):
--
--   model          the model (default "llama3.1")
--   base_url       the server (no /api: http://host:port); else the
--                  environment's OLLAMA_HOST (read with coax.getenv, the one
--                  variable the sandbox lets scripts read), else
--                  "http://127.0.0.1:11434". Without a scheme, http:// is
--                  meant, and without a port, 11434 (as Ollama's own client
--                  reads OLLAMA_HOST: "localhost" is http://localhost:11434)
--   mode           "format" (default): `format` carries the schema (Ollama's
--                  structured outputs), the prompt does not;
--                  "json": `format: "json"`, the schema in the prompt;
--                  "prompt": no `format`, the schema in the prompt
--   stream         true (default): NDJSON, one JSON object a line, read as it
--                  comes; false: one JSON object
--   options        Ollama's model options, passed on as they are
--                  ({temperature = 0, num_ctx = 8192, ...}); temperature,
--                  seed and max_tokens (as num_predict) given as agent
--                  options go there too, unless `options` sets them
--   keep_alive     passed on when given ("5m", 0, ...)
--   headers        extra request headers (a proxy's auth: values may be
--                  coax.secret objects only from a recipe's own code)
--   timeout_ms     one request's whole time (default: the engine's)
--   max_retries    transport retries (default 2), with retry_base_ms (500)
--                  and retry_max_ms (8000) for the backoff
--
-- The reply: `message.content` (the chunks joined when streamed); the last
-- object (`done: true`) gives `done_reason` ("stop", "length", ...) as the
-- attempt's finish and `prompt_eval_count` and `eval_count` as input and
-- output tokens. A reply cut off ("length") is never accepted by the engine.
-- `{"error": "..."}`, as a body or as a line of a stream, is an agent error
-- with that message.
-- @module coax.agents.ollama
local coax = require "coax"
local transport = require "coax.transport"
local tools = require "coax.tools"

local json = coax.json
local concat = table.concat

local M = {}

M.DEFAULT_MODEL = "llama3.1"
M.DEFAULT_HOST = "http://127.0.0.1:11434"
M.DEFAULT_MODE = "format"
M.MODES = { format = true, json = true, prompt = true }

local function mode_of(o)
  local mode = o.mode or M.DEFAULT_MODE
  if not M.MODES[mode] then
    error(("ollama agent: unknown mode '%s' (format, json, prompt)"):format(tostring(mode)), 0)
  end
  return mode
end

--- Whether the schema travels in the request (format mode) rather than in
-- the prompt.
-- @tparam table options the agent options
-- @treturn boolean
function M.schema_in_request(options)
  return (options.mode or M.DEFAULT_MODE) == "format"
end

-- ---- the request -----------------------------------------------------------

--- The server's root URL from a base_url or OLLAMA_HOST value: surrounding
-- spaces and quotes dropped, http:// added when there is no scheme (and
-- then :11434 when there is no port), trailing slashes dropped.
-- @tparam string s
-- @treturn string
function M.host_url(s)
  s = s:match("^%s*(.-)%s*$"):match("^[\"']?(.-)[\"']?$")
  if not s:find("://", 1, true) then
    local hostport, path = s:match("^([^/]*)(.*)$")
    if hostport == "" then hostport = "127.0.0.1" end
    -- a port after the host, or after a bracketed IPv6 address
    if not (hostport:match("^[^:]*:%d+$") or hostport:match("^%[.*%]:%d+$")) then
      hostport = hostport .. ":11434"
    end
    s = "http://" .. hostport .. path
  end
  return (s:gsub("/+$", ""))
end

local function url_of(o)
  local base = o.base_url
  if base ~= nil and type(base) ~= "string" then error("ollama agent: base_url must be a string", 0) end
  if base == nil or base == "" then base = coax.getenv("OLLAMA_HOST") end
  if base == nil or base == "" then base = M.DEFAULT_HOST end
  return M.host_url(base) .. "/api/chat"
end

local BODY_ORDER = { "model", "messages", "format", "options", "stream", "keep_alive" }

-- Ollama's model options: `options`, with the agent's own temperature, seed
-- and max_tokens where it does not set them.
local function options_of(o)
  local out, any = {}, false
  if o.options ~= nil then
    if type(o.options) ~= "table" then error("ollama agent: options must be a table", 0) end
    for k, v in pairs(o.options) do
      out[k] = v
      any = true
    end
  end
  for from, to in pairs({ temperature = "temperature", seed = "seed", max_tokens = "num_predict" }) do
    if o[from] ~= nil and out[to] == nil then
      out[to] = o[from]
      any = true
    end
  end
  if not any then return nil end
  local names = {}
  for k in pairs(out) do names[#names + 1] = k end
  table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
  return json.object(out, names)
end

--- The request body, as JSON text.
-- @tparam table request {messages, schema, options}
-- @treturn string
function M.body(request)
  local o = request.options
  local mode = mode_of(o)
  local format
  if mode == "format" then
    format = request.schema
  elseif mode == "json" then
    format = "json"
  end
  local body = {
    model = o.model or M.DEFAULT_MODEL,
    messages = json.array(request.messages),
    format = format,
    options = options_of(o),
    stream = o.stream ~= false,
    keep_alive = o.keep_alive,
  }
  return json.encode(json.object(body, BODY_ORDER))
end

local function headers_of(o)
  return transport.headers(o, {
    { "Content-Type", "application/json" },
    { "Accept", o.stream == false and "application/json" or "application/x-ndjson" },
  })
end

-- ---- the response ----------------------------------------------------------

local function str(v)
  if type(v) == "string" then return v end
  return nil
end

local function int(v)
  if math.type(v) == "integer" then return v end
  return nil
end

-- The error an object carries ({"error": "..."}), or nil.
local function error_of(doc)
  local e = doc.error
  if e == nil or e == json.null then return nil end
  if type(e) == "table" then e = str(e.message) or "error" end
  return "ollama agent: " .. tostring(e)
end

-- What the last object (done: true) says: finish and usage.
local function finish_into(r, doc)
  -- A server that sends no done_reason (before Ollama 0.1.39) says nothing
  -- of num_predict's limit: no finish rather than a "stop" it never said.
  r.finish = str(doc.done_reason) or r.finish
  local i, o = int(doc.prompt_eval_count), int(doc.eval_count)
  if i or o then r.usage = { input_tokens = i, output_tokens = o } end
end

--- The reply from a whole (non-streamed) body.
-- @tparam string body
-- @treturn[1] table {text, finish, usage?}
-- @treturn[2] nil
-- @treturn[2] string the error
function M.parse_reply(body)
  local doc = json.decode(body or "")
  if type(doc) ~= "table" then return nil, "ollama agent: the response body is not JSON" end
  local e = error_of(doc)
  if e then return nil, e end
  local msg = doc.message
  if type(msg) ~= "table" or not str(msg.content) then
    return nil, "ollama agent: the response has no message.content"
  end
  local r = { text = msg.content }
  if doc.done ~= false then finish_into(r, doc) end
  return r
end

-- A reader for a streamed body: feed(line) per line, then result() (nothing
-- at all when there was no line: an empty body). `text` gets the content's
-- deltas (coax.tools.stream_sinks).
local function stream_reader(text)
  local parts, r = {}, {}
  local lines, done, bad = 0, false, nil
  local function feed(line)
    if bad or line:match("^%s*$") then return end
    lines = lines + 1
    local doc = json.decode(line)
    if type(doc) ~= "table" then
      bad = "ollama agent: a streamed line is not JSON"
      return
    end
    local e = error_of(doc)
    if e then
      bad = e
      return
    end
    local msg = doc.message
    if type(msg) == "table" and str(msg.content) then
      parts[#parts + 1] = msg.content
      if text then text(msg.content) end
    end
    if doc.done == true then
      done = true
      finish_into(r, doc)
    end
  end
  local function result()
    if lines == 0 then return nil end
    if bad then return nil, bad end
    if not done then return nil, "ollama agent: the stream ended before its last object (done: true)" end
    r.text = concat(parts)
    return r
  end
  return feed, result
end

--- Sends the conversation and returns the model's reply.
-- @tparam table request {messages, schema, options}
-- @treturn[1] table {text, finish, usage, retries}
-- @treturn[2] nil
-- @treturn[2] string the error, with the HTTP status and the server's message
-- @treturn[2] table {status?, retries}
function M.call(request)
  local o = request.options
  return transport.post(o, "ollama agent", { url = url_of(o), headers = headers_of(o), body = M.body(request) }, {
    stream = o.stream ~= false, reader = function() return stream_reader(tools.stream_sinks(request)) end,
    parse = M.parse_reply, empty = "the response body is empty",
  })
end

return M
