--- The OpenAI Responses API (`POST {base_url}/responses`): the wire of the
-- `openai` agent's `api = "responses"` option (lua/coax/agents/openai.lua
-- has the options; this module only speaks the format).
--
-- The request: the conversation's system text as `instructions`, the other
-- messages as `input` items ({role, content}), structured output as
-- `text.format` (mode json_schema: {type: "json_schema", name, schema,
-- strict} with strict as for Chat Completions; json_object: {type:
-- "json_object"}), `max_tokens` as `max_output_tokens`, temperature, stream;
-- tools mode's three tools as function tools (`strict: false`) with
-- `tool_choice: "required"`. (The Responses API has no seed.)
--
-- The response: the `output_text` parts of the `message` items joined; a
-- `refusal` part is a refusal; `function_call` items are tool calls (their
-- `arguments` text as sent). `status: "completed"` is finish "stop",
-- `status: "incomplete"` is "length" for `incomplete_details.reason:
-- "max_output_tokens"` (never accepted by the engine) and the reason itself
-- otherwise ("content_filter"); `status: "failed"` is an agent error with
-- the response's error. Usage: input_tokens and output_tokens with
-- `input_tokens_details.cached_tokens` and
-- `output_tokens_details.reasoning_tokens`. Streamed: the typed server-sent
-- events, the text from `response.output_text.delta`, the end from
-- `response.completed`, `response.incomplete` or `response.failed`; an
-- `error` event is an agent error.
-- @module coax.agents.openai_responses
local coax = require "coax"
local transport = require "coax.transport"
local tools = require "coax.tools"
local openai = require "coax.agents.openai"

local json = coax.json
local concat = table.concat

local M = {}

-- ---- the request -----------------------------------------------------------

local BODY_ORDER = { "model", "instructions", "input", "text", "tools", "tool_choice", "temperature",
  "max_output_tokens", "stream" }
local ROLE_CONTENT = { "role", "content" }

--- The conversation as the Responses API takes it: the system messages'
-- text as `instructions` (joined by a blank line, or nil) and the others as
-- input items. Tools mode's own entries are items already: {items = {...}}
-- (the model's output, as it came) or an item with a `type`.
-- @tparam table messages
-- @treturn string|nil instructions
-- @treturn table input
function M.input(messages)
  local system, input = {}, json.array({})
  for _, m in ipairs(messages) do
    if m.items then
      for _, item in ipairs(m.items) do input[#input + 1] = item end
    elseif m.type then
      input[#input + 1] = m
    elseif m.role == "system" then
      if type(m.content) == "string" and m.content ~= "" then system[#system + 1] = m.content end
    else
      local role = m.role == "assistant" and "assistant" or "user"
      input[#input + 1] = json.object({ role = role, content = m.content }, ROLE_CONTENT)
    end
  end
  return #system > 0 and concat(system, "\n\n") or nil, input
end

local FORMAT_ORDER = { "type", "name", "schema", "strict" }

local function text_format(mode, request)
  if mode == "json_object" then return json.object({ format = json.object({ type = "json_object" }) }) end
  if mode ~= "json_schema" then return nil end
  local o = request.options
  local strict = o.strict
  if strict == nil then strict = openai.strict_ok(request.schema) end
  local format = json.object({ type = "json_schema", name = openai.schema_name(o), schema = request.schema,
    strict = strict == true }, FORMAT_ORDER)
  return json.object({ format = format })
end

-- The three tools as the Responses API's function tools. Its `strict`
-- defaults to true, and a strict schema may not leave a property untyped
-- as `json` (any value) is: so strict is off, said in so many words.
local function tool_definitions()
  local list = {}
  for i, t in ipairs(tools.definitions()) do
    list[i] = json.object({ type = "function", name = t.name, description = t.description, parameters = t.parameters,
      strict = false }, { "type", "name", "description", "parameters", "strict" })
  end
  return json.array(list)
end

--- The request body, as JSON text.
-- @tparam table request {messages, schema, options}
-- @tparam[opt] table messages tools mode's own conversation
-- @treturn string
function M.body(request, messages)
  local o = request.options
  local mode = openai.mode_of(o)
  local instructions, input = M.input(messages or request.messages)
  local body = {
    model = o.model or openai.DEFAULT_MODEL, instructions = instructions, input = input,
    text = text_format(mode, request), temperature = o.temperature, max_output_tokens = o.max_tokens,
    stream = o.stream and true or nil,
  }
  if mode == "tools" then body.tools, body.tool_choice = tool_definitions(), "required" end
  return json.encode(json.object(body, BODY_ORDER))
end

-- ---- the response ----------------------------------------------------------

local function str(v)
  if type(v) == "string" then return v end
  return nil
end

-- The finish of a response's status: "stop", "length" (cut at
-- max_output_tokens), or the incomplete reason as it is.
local function finish_of(resp)
  if resp.status == "incomplete" then
    local reason = type(resp.incomplete_details) == "table" and str(resp.incomplete_details.reason)
    if reason == "max_output_tokens" or reason == nil then return "length" end
    return reason
  end
  return str(resp.status) == "completed" and "stop" or str(resp.status)
end

local function failure_of(resp)
  local e = type(resp.error) == "table" and resp.error or {}
  return ("openai agent: the response failed (%s): %s"):format(tostring(str(e.code) or "error"),
    tostring(str(e.message) or ""))
end

--- The reply from the response's output items: the text and refusal parts
-- of its messages, its function calls.
-- @tparam table output the `output` list
-- @treturn table {text?, refusal?, tool_calls?, output}
local function reply_of_output(output)
  local texts, refusals, calls = {}, {}, nil
  for _, item in ipairs(output) do
    if type(item) == "table" and item.type == "message" and type(item.content) == "table" then
      for _, part in ipairs(item.content) do
        local kind = type(part) == "table" and part.type
        if kind == "output_text" and str(part.text) then texts[#texts + 1] = part.text end
        if kind == "refusal" and str(part.refusal) then refusals[#refusals + 1] = part.refusal end
      end
    elseif type(item) == "table" and item.type == "function_call" then
      calls = calls or {}
      calls[#calls + 1] = { id = str(item.call_id) or "", name = str(item.name) or "",
        args = str(item.arguments) or "" }
    end
  end
  return {
    text = #texts > 0 and concat(texts) or nil, refusal = #refusals > 0 and concat(refusals) or nil,
    tool_calls = calls, output = output,
  }
end

-- The reply of a finished response object (a body, or a stream's last event).
local function reply_of(resp)
  if resp.status == "failed" then return nil, failure_of(resp) end
  local output = type(resp.output) == "table" and resp.output or json.array({})
  local r = reply_of_output(output)
  r.finish, r.usage = finish_of(resp), openai.usage_of(resp.usage)
  if resp.status == "incomplete" and r.text == nil and r.refusal == nil then r.text = "" end -- cut before any text
  return r
end

--- The reply from a whole (non-streamed) response body.
-- @tparam string body
-- @treturn[1] table {text, refusal?, finish, usage?, tool_calls?, output}
-- @treturn[2] nil, string the error
function M.parse_response(body)
  local doc = json.decode(body or "")
  if type(doc) ~= "table" then return nil, "openai agent: the response body is not JSON" end
  if type(doc.error) == "table" and doc.status == nil then
    return nil, "openai agent: " .. tostring(str(doc.error.message) or "error")
  end
  if type(doc.output) ~= "table" then return nil, "openai agent: the response has no output" end
  return reply_of(doc)
end

local TERMINAL = { ["response.completed"] = true, ["response.incomplete"] = true, ["response.failed"] = true }

-- A reader for a streamed response: feed(line) per line, then result()
-- (nothing at all when no line was an event: the body was not a stream).
-- The text is what the deltas brought; the last event (completed,
-- incomplete or failed) gives the status, the usage and the items.
-- `text` gets the output text's deltas (coax.tools.stream_sinks).
local function stream_reader(text)
  local texts, refusals, items, indices = {}, {}, {}, {}
  local final
  local function handle(ev)
    local kind = ev.type
    if kind == "response.output_text.delta" and str(ev.delta) then
      texts[#texts + 1] = ev.delta
      if text then text(ev.delta) end
    elseif kind == "response.refusal.delta" and str(ev.delta) then
      refusals[#refusals + 1] = ev.delta
    elseif kind == "response.output_item.done" and type(ev.item) == "table" and math.type(ev.output_index) then
      if items[ev.output_index] == nil then indices[#indices + 1] = ev.output_index end
      items[ev.output_index] = ev.item
    elseif TERMINAL[kind] and type(ev.response) == "table" then
      final = ev.response
    elseif kind == "error" then
      return ("openai agent: stream error (%s): %s"):format(tostring(str(ev.code) or "error"),
        tostring(str(ev.message) or ""))
    end
  end
  local function finish()
    if not final then return nil, "openai agent: the stream ended before the response did (response.completed)" end
    if final.status == "failed" then return nil, failure_of(final) end
    -- the items as they were done, else as the last event lists them
    local output = json.array({})
    table.sort(indices) -- the items in their order, whatever the indices
    for _, i in ipairs(indices) do output[#output + 1] = items[i] end
    if #output == 0 and type(final.output) == "table" then output = final.output end
    local r = reply_of_output(output)
    if #texts > 0 then r.text = concat(texts) end
    if #refusals > 0 then r.refusal = concat(refusals) end
    r.finish, r.usage = finish_of(final), openai.usage_of(final.usage)
    return r
  end
  return transport.json_events("openai agent", handle, finish)
end

local function url_of(o)
  return openai.base_of(o) .. "/responses"
end

-- One request and its reply, or nil, the error and {status, retries}.
local function exchange(o, body, request)
  return transport.post(o, "openai agent", { url = url_of(o), headers = openai.headers_of(o), body = body },
    { stream = o.stream, reader = function() return stream_reader(tools.stream_sinks(request)) end,
      parse = M.parse_response })
end

-- Tools mode's entries: the model's output items as they came, and a
-- function_call_output item per answer.
local function model_output(reply)
  return { items = reply.output }
end

local OUTPUT_ORDER = { "type", "call_id", "output" }

local function call_outputs(results)
  local out = {}
  for i, r in ipairs(results) do
    out[i] = json.object({ type = "function_call_output", call_id = r.id, output = r.content }, OUTPUT_ORDER)
  end
  return out
end

--- Sends the conversation and returns the model's reply (the openai
-- agent's call when `api = "responses"`).
-- @tparam table request {messages, schema, options}
-- @tparam table state the session's agent state
function M.call(request, state)
  local o = request.options
  return tools.call(request, state, {
    exchange = function(native) return exchange(o, M.body(request, native), request) end,
    assistant = model_output, results = call_outputs,
    settle = function(reply)
      reply.output = nil
      return openai.settle(reply, o)
    end,
  })
end

return M
