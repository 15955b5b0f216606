--- The replay agent: replies come from a list the host gives (the CLI reads
-- them from `--replay FILE`, one JSON string a line), in order. Running out is
-- an agent error. Specs and demos run with it.
-- @module coax.agents.replay
local M = {}

--- Returns the next reply.
-- @tparam table request {messages, schema, options}; options.replies is the list
-- (a reply is its text, or {text, finish} to replay a provider's finish reason)
-- @tparam table state per-session state, kept between calls
-- @treturn[1] table {text, usage?, finish?}
-- @treturn[2] nil
-- @treturn[2] string the error
function M.call(request, state)
  local replies = request.options.replies
  if type(replies) ~= "table" then
    return nil, "replay agent: no replies given (coax run --replay FILE; coax.run: opts.replies)"
  end
  state.i = (state.i or 0) + 1
  local text = replies[state.i]
  if text == nil then return nil, ("replay agent: no reply left (%d given)"):format(#replies) end
  if request.options.delay_ms then require("coax").sleep(request.options.delay_ms) end
  -- A finish only when the list gives one: "stop" would be a claim that a
  -- number an open reply ends on ended there, which a bare transcript never made.
  if type(text) == "table" then return { text = text.text, finish = text.finish } end
  return { text = text }
end

return M
