-- :CoaxExtract {recipe}: extracts from the current buffer with a coax recipe
-- and shows the value in a scratch buffer, without blocking the editor. The
-- engine is polled with timeout 0 on a vim.loop timer, so Neovim keeps
-- reading keys and redrawing while the model answers (coax's HTTP runs
-- inside the poll, never waiting).
--
-- Neovim runs LuaJIT: put build/lua/luajit/coax.so (or the module `make
-- install` puts in lib/lua/5.1) on package.cpath, and configure the agent:
--
--   require("coax_extract").setup({
--     engine = { secrets = { OPENAI_API_KEY = os.getenv("OPENAI_API_KEY") } },
--     session = { agent = "openai", agent_options = { model = "gpt-4o-mini" } },
--   })
local M = {}

local config = { engine = {}, session = {}, interval_ms = 15 }
local engine -- one engine for every extraction: its sandboxed Lua state is made once

function M.setup(opts)
  for k, v in pairs(opts or {}) do config[k] = v end
end

local function coax() return require("coax") end

local function show(lines, name)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_option(buf, "filetype", "json")
  -- The value arrives while the user may be typing: the split shows it
  -- without taking the cursor, so no key meant for their buffer lands in it.
  local from = vim.api.nvim_get_current_win()
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, buf)
  vim.api.nvim_set_current_win(from)
  return buf
end

-- The lines of the scratch buffer for a finished session.
local function result_lines(session)
  local value = session:value()
  if session:outcome() == "ok" then
    return vim.split(coax().json.encode(value, { pretty = true }), "\n", { plain = true })
  end
  local report = session:report() or {}
  local err = report.error and report.error.message or "no message"
  return { "coax: " .. session:outcome() .. ": " .. err }
end

--- Starts extracting from buffer 'buf' (0: the current one) with 'recipe';
--- calls 'done(scratch_buffer, session)' when the value is shown. Returns the
--- session at once.
function M.extract(recipe, buf, done)
  buf = buf == nil and 0 or buf
  engine = engine or coax().engine(config.engine)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  local session = engine:session(recipe, text, vim.deepcopy(config.session))
  local timer = vim.loop.new_timer()
  timer:start(0, config.interval_ms, vim.schedule_wrap(function()
    if timer:is_closing() then return end
    local ok, err = pcall(engine.poll, engine, 0) -- timeout 0: never waits
    if ok and session:outcome() == "running" then return end
    timer:stop()
    timer:close()
    local lines = ok and result_lines(session) or { "coax: " .. tostring(err) }
    local scratch = show(lines, "coax://" .. vim.fn.fnamemodify(recipe, ":t"))
    if done then done(scratch, session) end
  end))
  return session
end

return M
