-- The Neovim example (examples/nvim/, issue 23): `nvim --headless` (LuaJIT)
-- loads the plugin and the module built for LuaJIT, runs :CoaxExtract on a
-- buffer against the mock model (spec/mock), which takes half a second a
-- reply and needs one retry, and while the model answers the editor keeps
-- processing typed keys and its timers. spec/hosts/nvim_driver.lua does it
-- inside Neovim and writes what it saw as JSON.
local H = require "helper"
local coax = require "coax"
local mock = require "mock.client"

local server, dir

setup(function()
  server = mock.start()
  dir = H.tmpdir()
end)

teardown(function()
  server:stop()
  H.rmtree(dir)
end)

local function abs(path)
  if path:sub(1, 1) == "/" then return path end
  return os.getenv("PWD") .. "/" .. path
end

describe("the Neovim plugin", function()
  it(":CoaxExtract fills a scratch buffer from the model while the editor keeps taking keys", function()
    local sc = server:scenario({
      { delay_ms = 500, reply = '{"name": "Ada"}' }, -- no age: refused, retried
      { delay_ms = 500, reply = 'Here: {"name": "Ada", "age": 36}' },
    })
    local recipe = dir .. "/person.lua"
    H.write(recipe, 'return { schema = { type = "object", required = { "name", "age" }, properties = {'
      .. ' name = { type = "string" }, age = { type = "integer" } } }, prompt = "Extract the person: {{input}}" }')
    local out = dir .. "/nvim.json"
    local env = ("COAX_NVIM_BUILD=%s COAX_NVIM_RECIPE=%s COAX_NVIM_URL=%s COAX_NVIM_OUT=%s COAX_NVIM_ROOT=%s"):format(
      H.quote(abs(H.build)), H.quote(recipe), H.quote(sc.base_url), H.quote(out), H.quote(os.getenv("PWD")))
    local log = dir .. "/nvim.log"
    local ok = os.execute("env " .. env .. " timeout 60 nvim --headless -u NONE -i NONE -n"
      .. " -c 'luafile spec/hosts/nvim_driver.lua' > " .. H.quote(log) .. " 2>&1")
    local f = io.open(out, "rb")
    assert(f, "nvim wrote no result: " .. tostring(ok) .. " " .. (H.read(log) or ""))
    local text = f:read("a")
    if os.getenv("COAX_SPEC_SHOW") then -- COAX_SPEC_SHOW=1: the numbers it saw, on stderr
      io.stderr:write(text, "\n")
    end
    local r = coax.json.decode(text)
    f:close()
    assert.are.equal("done", r.state)
    -- the value, in the scratch buffer named after the recipe
    assert.are.equal("coax://person.lua", r.buffer_name)
    assert.are.equal('{\n  "name": "Ada",\n  "age": 36\n}', table.concat(r.buffer, "\n"))
    -- two requests: the refused reply and its retry, a second each at least
    assert.are.equal(2, #sc:log())
    assert.is_true(r.elapsed_ms >= 1000, r.elapsed_ms)
    -- the command returned at once, and the keys typed every 50 ms while
    -- the model answered were inserted as they came (the last one may still
    -- be in the editor's input when the value arrives)
    assert.is_true(r.command_ms < 100, r.command_ms)
    assert.is_true(r.keys_inserted >= 15, r.keys_inserted)
    assert.is_true(r.keys_sent - r.keys_inserted <= 1, r.keys_sent .. " sent, " .. r.keys_inserted .. " inserted")
    assert.are.equal("Ada is 36." .. ("x"):rep(r.keys_inserted), r.source_line)
    -- the editor's loop never stalled: no gap over 50 ms between the ticks
    -- of a 10 ms timer while the model answered
    assert.is_true(r.ticks >= 50, r.ticks)
    assert.is_true(r.max_gap_ms < 50, r.max_gap_ms)
  end)
end)
