-- The hosts coax is built for (issue 23): LuaJIT and Lua 5.1 to 5.4 each load
-- their module (build/lua/HOST/coax.so, `make lua-hosts`) and run
-- spec/hosts/smoke.lua with the same output, spec/hosts/expected.txt. The
-- engine's own Lua 5.4 lives inside each module and inside libcoax, privately:
-- neither exports a Lua symbol.
local H = require "helper"

local HOSTS = { { "5.1", "lua5.1" }, { "5.2", "lua5.2" }, { "5.3", "lua5.3" }, { "5.4", "lua5.4" },
  { "luajit", "luajit" } }

local function module(host) return H.build .. "/lua/" .. host .. "/coax.so" end

-- Runs Lua file or code 'script' in 'interp' with the module of 'host'; stdout
-- and stderr together, and whether it exited 0.
local function run(interp, host, script)
  local log = os.tmpname()
  local ok = os.execute(("COAX_LUA_PATH=lua LUA_CPATH=%s LUA_PATH= %s %s > %s 2>&1"):format(
    H.quote(H.build .. "/lua/" .. host .. "/?.so"), interp, script, H.quote(log)))
  local text = H.read(log)
  os.remove(log)
  return ok == true or ok == 0, text
end

-- Runs 'code' on every host; each exits 0 and prints 'want'.
local function prints_on_every_host(code, want)
  for _, h in ipairs(HOSTS) do
    local ok, text = run(h[2], h[1], code)
    assert.is_true(ok, h[1] .. ": " .. text)
    assert.are.equal(want, text, h[1])
  end
end

local function nm(args, file)
  local p = io.popen("nm " .. args .. " " .. H.quote(file) .. " 2>&1")
  local text = p:read("a")
  p:close()
  return text
end

describe("every host Lua", function()
  local expected = H.read("spec/hosts/expected.txt")
  for _, h in ipairs(HOSTS) do
    local host, interp = h[1], h[2]
    it(interp .. " runs the smoke script with the module built for it, with the same output", function()
      local ok, text = run(interp, host, "spec/hosts/smoke.lua")
      assert.is_true(ok, text)
      assert.are.equal(expected, text)
    end)
  end

  it("gets integers past 2^53 as big numbers where Lua has no integers (5.1, 5.2, LuaJIT), as integers elsewhere",
  function()
    local code = [[-e "local c = require 'coax'
local v = c.json.decode('[9007199254740992, 9007199254740993, 12345678901234567890]')
io.write(type(v[1]), ' ', type(v[2]), ' ', type(v[3]), ' ', v[3].text, ' ', c.json.encode(v))"]]
    local want = {
      ["5.1"] = "number table table", ["5.2"] = "number table table", luajit = "number table table",
      ["5.3"] = "number number table", ["5.4"] = "number number table",
    }
    for _, h in ipairs(HOSTS) do
      local ok, text = run(h[2], h[1], code)
      assert.is_true(ok, text)
      assert.are.equal(want[h[1]] .. " 12345678901234567890 [9007199254740992,9007199254740993,12345678901234567890]",
        text)
    end
  end)

  -- A count option a host gives as a number with no integer value: 5.1,
  -- 5.2 and LuaJIT cast it (2.5 became 2, and 1e300, an undefined
  -- conversion, INT64_MIN); every host now names it, as 5.4 did.
  it("refuses a count option with no integer value, naming it", function()
    local code = [[-e "local c = require 'coax'
for _, n in ipairs({ 2.5, 1e300, -1e300 }) do
  local ok, e = pcall(c.engine, { lua_instructions = n })
  io.write(tostring(ok), ' ', e, ';')
end
io.write(tostring(select(2, pcall(c.schema, {}, { max_depth = 2.5 })):match('number has no integer representation')))"]]
    prints_on_every_host(code, "false option lua_instructions: 2.5 is not an integer;"
      .. "false option lua_instructions: 1e+300 is not an integer;"
      .. "false option lua_instructions: -1e+300 is not an integer;number has no integer representation")
  end)

  -- A kept schema's memory is charged to the collector with a step of it
  -- (lua_gc), which Lua before 5.4.4 would run inside a finalizer too and
  -- re-enter itself: schemas made in finalizers and dropped in a loop.
  it("makes schemas inside finalizers and in a loop", function()
    local code = [[-e "local c = require 'coax'
local made = 0
local function make() if c.schema('{\"type\":\"integer\"}'):validate(1) then made = made + 1 end end
for _ = 1, 50 do
  if newproxy then getmetatable(newproxy(true)).__gc = make else setmetatable({}, { __gc = make }) end
end
collectgarbage() collectgarbage()
for _ = 1, 200 do make() end
io.write(made)"]]
    prints_on_every_host(code, "250")
  end)

  it("leaves a stopped collector stopped: no finalizer runs while schemas are made", function()
    local code = [[-e "local c = require 'coax'
collectgarbage('stop')
local ran = 0
for _ = 1, 100 do
  if newproxy then getmetatable(newproxy(true)).__gc = function() ran = ran + 1 end
  else setmetatable({}, { __gc = function() ran = ran + 1 end }) end
end
for _ = 1, 50 do assert(c.schema('{\"type\":\"integer\"}')) end
io.write(ran)"]]
    prints_on_every_host(code, "0")
  end)

  -- Lua 5.1 and LuaJIT unloaded the module's library at lua_close before
  -- running the finalizers of objects made before the require: a segfault.
  it("serves a finalizer made before the require, at lua_close", function()
    local code = [[-e "local c
local function fin() io.write(c.json.encode(c.repair('{\"a\":1 '))) end
if newproxy then GUARD = newproxy(true) getmetatable(GUARD).__gc = fin
else GUARD = setmetatable({}, { __gc = fin }) end
c = require 'coax'"]]
    prints_on_every_host(code, '{"a":1}')
  end)

  it("loads the module built for 5.1 in LuaJIT, which shares 5.1's module folder", function()
    local ok, text = run("luajit", "5.1", "spec/hosts/smoke.lua")
    assert.is_true(ok, text)
    assert.are.equal(expected, text)
  end)

  -- Every build names its types alike in the registry: a second build in
  -- the state would take the first one's metatables and read the other's
  -- objects with its own layout. It refuses to open; the first keeps working,
  -- and opens again (the same library is the same build).
  it("refuses to open a second build of coax in one Lua state, and the first keeps working", function()
    local dir = H.tmpdir()
    local code = [[-e "local c = require 'coax'
local ok, err = pcall(assert(package.loadlib(OTHER, 'luaopen_coax')))
io.write(tostring(ok), '|', (err:gsub('[^ ()]*/', '')), '|')
package.loaded.coax = nil
local again = require 'coax'
io.write(c.json.encode(c.repair('[1, 2]')), ' ', again.json.encode(again.repair('[3]')))"]]
    local want = "false|coax: cannot open coax.so: another build of coax (coax.so) is open in this Lua state, and "
      .. "the two would mistake each other's objects; load one|[1,2] [3]"
    for _, h in ipairs(HOSTS) do
      local other = dir .. "/" .. h[1] .. "/coax.so"
      os.execute("mkdir -p " .. H.quote(dir .. "/" .. h[1]))
      H.write(other, H.read(module(h[1])))
      local ok, text = run(h[2], h[1], code:gsub("OTHER", "'" .. other .. "'"))
      assert.is_true(ok, h[1] .. ": " .. text)
      assert.are.equal(want, text, h[1])
    end
    -- the case LuaJIT meets on its own: the 5.1 module beside LuaJIT's
    local ok, text = run("luajit", "luajit", code:gsub("OTHER", "'" .. module("5.1") .. "'"))
    assert.is_true(ok, text)
    assert.are.equal(want, text)
    H.rmtree(dir)
  end)
end)

describe("the engine's own Lua", function()
  it("is exported by no module and not by libcoax.so: no lua_* or luaL_* symbol defined", function()
    local files = { H.build .. "/libcoax.so", H.build .. "/coax.so" }
    for _, h in ipairs(HOSTS) do files[#files + 1] = module(h[1]) end
    for _, f in ipairs(files) do
      local text = nm("-D --defined-only", f)
      assert.is_nil(text:match("[^\n]* [A-Za-z] luaL?_[^\n]*"), f)
      assert.is_nil(text:match("No such file"), f)
    end
    -- a module exports its entry point and nothing else of coax
    local exported = {}
    for name in nm("-D --defined-only", module("luajit")):gmatch(" T ([%w_]+)") do exported[#exported + 1] = name end
    assert.are.same({ "luaopen_coax" }, exported)
  end)

  it("runs a recipe inside a LuaJIT host: two Luas live in one process, each with its own symbols", function()
    -- LuaJIT's own lua_* are what the binding calls; the recipe runs in the
    -- engine's Lua 5.4 (its _VERSION and integer division say so)
    local script = H.tmpfile([[
local c = require "coax"
local r = c.run('return { schema = { type = "object" }, prompt = _VERSION .. " " .. math.type(7 // 2) }', "",
  { source = true, replies = { "{}" } })
io.write(jit.version, " | ", r.outcome, " | ", r.attempts[1].messages[1].content:match("^[^\n]*"))]])
    local ok, text = run("luajit", "luajit", script)
    os.remove(script)
    assert.is_true(ok, text)
    assert.matches("^LuaJIT 2%.1%.[^|]* | ok | Lua 5%.4 integer$", text)
  end)
end)
