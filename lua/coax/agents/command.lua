--- The command agent: the reply comes from a local program (a model's
-- command-line tool, a script around a local model), run once per attempt
-- with the conversation on its stdin and the reply read from its stdout.
--
-- The program is the host's to choose (`coax run --command "..."`, the C
-- API's coax_session_options.command, the Lua API's `command` option) and
-- runs as `/bin/sh -c COMMAND`; a recipe cannot name it, so a recipe from
-- elsewhere cannot run programs (design.md, "Sandboxing scripts").
-- coax.command runs it without blocking: the engine's poll reads its
-- output while other sessions go on.
--
-- Options:
--   input        "text" (default): the conversation as text: the one user
--                message as it is, or each message under a "### role"
--                heading; "json": {"messages": [...], "schema": {...}}
--   timeout_ms   the program's whole time (default 60000); past it the
--                program and what it started are killed: an agent error
--
-- A non-zero exit status is an agent error naming the status and the first
-- line of stderr. (A host that ignores SIGCHLD loses the status: the
-- output is then taken as the reply.) The output is capped at the engine's max_input: past it,
-- the outcome is `limit`.
-- @module coax.agents.command
local coax = require "coax"

local json = coax.json

local M = {}

local INPUTS = { text = true, json = true }

-- The conversation as a program reads it.
local function text_of(messages)
  if #messages == 1 and messages[1].role == "user" then return messages[1].content end
  local parts = {}
  for i, m in ipairs(messages) do parts[i] = ("### %s\n\n%s"):format(m.role, m.content) end
  return table.concat(parts, "\n\n")
end

local function input_of(request)
  local how = request.options.input or "text"
  if not INPUTS[how] then error(("command agent: unknown input '%s' (text, json)"):format(tostring(how)), 0) end
  if how == "json" then
    return json.encode(json.object({ messages = json.array(request.messages), schema = request.schema },
      { "messages", "schema" }))
  end
  return text_of(request.messages)
end

--- Runs the host's command with the conversation on stdin.
-- @tparam table request {messages, schema, options}
-- @treturn[1] table {text}: no finish, which a program's output does not say
-- @treturn[2] nil
-- @treturn[2] string the error
function M.call(request)
  local o = request.options
  if o.command ~= nil then
    error("command agent: the command comes from the host (--command, or the command option), "
      .. "not from a recipe or agent options", 0)
  end
  local res, err = coax.command(input_of(request), { timeout_ms = o.timeout_ms })
  if not res then return nil, "command agent: " .. err end
  -- No status: the host reaped the program itself (it ignores SIGCHLD); the
  -- output is all there is to go by.
  if res.status and res.status ~= 0 then
    local why = res.stderr:match("^%s*([^\n]*)") or ""
    return nil, ("command agent: the command exited with status %d%s"):format(res.status,
      why ~= "" and (": " .. why:sub(1, 200)) or "")
  end
  -- No finish: exit 0 says the program ended, not that its model stopped
  -- rather than reaching a limit, so a number an open reply ends on is no end.
  return { text = res.stdout }
end

return M
