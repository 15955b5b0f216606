-- The rockspec works on Debian as the README says (issue 24 item 2):
-- `luarocks --lua-version=5.4 make --tree T` offline, with the system's
-- lua-cjson and curl's header in its multiarch folder, and the installed
-- module runs a recipe with the scripts the rock installed, from any folder.
local H = require "helper"

local ROCKSPEC = "coax-0.1.0-1.rockspec"

-- The rock builds the plain module whatever build the suite tests (make asan
-- sets B for its run; an instrumented coax.so cannot load in a plain lua5.4).
local function sh(line)
  local log = os.tmpname()
  local ok = os.execute("env -u LD_PRELOAD -u COAX_LUA_PATH -u B -u MAKEFLAGS -u MFLAGS -u MAKELEVEL " .. line
    .. " >" .. H.quote(log) .. " 2>&1")
  local text = H.read(log)
  os.remove(log)
  return ok, text
end

describe("the rockspec", function()
  it("names a license the project holds, a source that exists, and every library the module links", function()
    local spec = {}
    assert(load(H.read(ROCKSPEC), ROCKSPEC, "t", spec))()
    assert.are.equal("MIT", spec.description.license)
    assert.matches("^MIT License\n", H.read("LICENSE"))
    assert.are.equal("file://.", spec.source.url)
    assert.are.same({ "lua >= 5.1, < 5.5" }, spec.dependencies) -- any host Lua; cjson is built in
    local libs = {}
    for _, d in pairs(spec.external_dependencies) do libs[#libs + 1] = d.library end
    table.sort(libs)
    assert.are.same({ "curl", "idn2", "pcre2-8" }, libs)
    local ok, text = sh("luarocks lint " .. ROCKSPEC)
    assert.is_true(ok, text)
  end)

  -- `luarocks --lua-version=V make` into a new tree, and a recipe job.lua in
  -- it; 'run(interp, script)' runs Lua code from / with the tree's paths.
  local function install(version)
    local tree = H.tmpdir()
    local ok, text = sh("luarocks --lua-version=" .. version .. " make --tree " .. H.quote(tree) .. " " .. ROCKSPEC)
    assert.is_true(ok, text)
    assert.matches("coax 0%.1%.0%-1 is now installed", text)
    H.write(tree .. "/job.lua",
      'return { schema = { type = "object", required = { "n" } }, prompt = "n of {{input}}" }')
    local function run(interp, script)
      return sh("sh -c " .. H.quote("cd / && eval \"$(luarocks --lua-version=" .. version .. " --tree " .. tree
        .. " path)\" && " .. interp .. " -e " .. H.quote(script:format(tree .. "/job.lua"))))
    end
    return tree, run
  end

  it("installs with luarocks make into a tree, offline, and the module runs a recipe from the tree", function()
    local tree, run = install("5.4")
    local ok, text = run("lua5.4", "local coax = require 'coax' "
      .. "local r = coax.run(%q, 'x', { replies = { '{\"n\": 3}' } }) print(r.outcome, r.value.n, "
      .. "package.searchpath('coax', package.cpath))")
    assert.is_true(ok, text)
    assert.are.equal("ok\t3\t" .. tree .. "/lib/lua/5.4/coax.so\n", text)
    H.rmtree(tree)
  end)

  it("builds for the Lua LuaRocks runs for: a 5.1 rock runs the recipe in lua5.1 and in LuaJIT", function()
    local tree, run = install("5.1")
    for _, lua in ipairs({ "lua5.1", "luajit" }) do
      local ok, text = run(lua, "local coax = require 'coax' "
        .. "local r = coax.run(%q, 'x', { replies = { '{\"n\": 9007199254740993}' } }) "
        .. "print(_VERSION, r.outcome, coax.json.encode(r.value))")
      assert.is_true(ok, text)
      assert.are.equal('Lua 5.1\tok\t{"n":9007199254740993}\n', text)
    end
    H.rmtree(tree)
  end)
end)
