-- Runs inside `nvim --headless` for spec/apps_spec.lua: loads the example
-- plugin (examples/nvim) and the LuaJIT module, runs :CoaxExtract on a
-- buffer, types a key every 50 ms and ticks a 10 ms timer while the model
-- answers, and writes what it saw to $COAX_NVIM_OUT as JSON, then quits.
local env = function(k) return assert(os.getenv(k), k) end
local root = env("COAX_NVIM_ROOT")
package.cpath = env("COAX_NVIM_BUILD") .. "/lua/luajit/?.so;" .. package.cpath
vim.opt.runtimepath:append(root .. "/examples/nvim")
vim.cmd("runtime plugin/coax.lua")
require("coax_extract").setup({
  engine = { lua_path = root .. "/lua", secrets = { OPENAI_API_KEY = "sk-test" } },
  session = { agent = "openai", agent_options = { base_url = env("COAX_NVIM_URL"), model = "m1", retry_base_ms = 5 } },
})
local coax = require "coax"

local source = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_lines(source, 0, -1, false, { "Ada is 36." })
local recipe = env("COAX_NVIM_RECIPE")
local name = "coax://" .. vim.fn.fnamemodify(recipe, ":t")

local uv = vim.loop
local t0 = uv.hrtime()
local function ms(t) return (t - t0) / 1e6 end

local result = { state = "running", ticks = 0, max_gap_ms = 0, keys_sent = 0 }
local ticker, typist, guard = uv.new_timer(), uv.new_timer(), uv.new_timer()

local function finish(state)
  ticker:stop()
  typist:stop()
  guard:stop()
  result.state = state
  result.elapsed_ms = ms(uv.hrtime())
  local line = vim.api.nvim_buf_get_lines(source, 0, 1, false)[1]
  result.source_line = line
  result.keys_inserted = #line - #"Ada is 36."
  result.kept_cursor = vim.api.nvim_get_current_buf() == source
  local buf = vim.fn.bufnr(name)
  if buf ~= -1 then
    result.buffer_name = vim.api.nvim_buf_get_name(buf)
    result.buffer = coax.json.array(vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  end
  local f = assert(io.open(env("COAX_NVIM_OUT"), "wb"))
  f:write(coax.json.encode(result))
  f:close()
  vim.cmd("qa!")
end

vim.cmd("CoaxExtract " .. vim.fn.fnameescape(recipe))
result.command_ms = ms(uv.hrtime())

-- the editor's loop: a 10 ms timer run by the main loop (vim.schedule), and
-- the largest gap between two of its ticks
local last = uv.hrtime()
ticker:start(10, 10, vim.schedule_wrap(function()
  local now = uv.hrtime()
  result.ticks = result.ticks + 1
  result.max_gap_ms = math.max(result.max_gap_ms, (now - last) / 1e6)
  last = now
  if vim.fn.bufnr(name) ~= -1 then finish("done") end
end))
-- a user typing: "x" appended to the source line every 50 ms, as keys the
-- editor reads from its input like any typed key
typist:start(50, 50, vim.schedule_wrap(function()
  if result.state ~= "running" then return end
  result.keys_sent = result.keys_sent + 1
  vim.api.nvim_input("Ax<Esc>")
end))
guard:start(20000, 0, vim.schedule_wrap(function() finish("timeout") end))
