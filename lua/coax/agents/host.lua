--- The host agent: each reply comes from the program coax is embedded in
-- (a game engine with its own networking, a tool with its own local model).
-- The request goes to the host as JSON, {messages, schema, options}, and the
-- agent's coroutine waits until the host answers (coax_session_host_reply or
-- _host_fail in C; s:host_reply / s:host_fail in Lua), perhaps after handing
-- over its text in pieces as it arrives. Nothing blocks.
--
-- Options: schema_in_request = true when the host sends the schema to its
-- model itself (structured output), so the prompt does not carry it.
-- @module coax.agents.host
local coax = require "coax"

local json = coax.json

local M = {}

--- The host may hand over the reply's text as it arrives
-- (coax_session_host_piece, s:host_piece): the recipe's stream options apply.
M.PIECES = true

--- Whether the schema travels beside the messages rather than in the prompt.
function M.schema_in_request(options)
  return options.schema_in_request == true
end

local REQUEST_ORDER = { "messages", "schema", "options" }

--- Asks the host for a reply.
-- @tparam table request {messages, schema, options}
-- @treturn[1] table {text, usage?, finish?}: a finish only where the host said one
-- @treturn[2] nil
-- @treturn[2] string the host's failure message
function M.call(request)
  local options = json.object({})
  for k, v in pairs(request.options) do
    if k ~= "name" and type(v) ~= "function" then options[k] = v end
  end
  local text = json.encode(json.object({
    messages = json.array(request.messages), schema = request.schema, options = options,
  }, REQUEST_ORDER))
  return coax.host_request(text)
end

return M
