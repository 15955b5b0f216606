--- Attacker round 7: the second promise (a recipe or a reply never hurts
-- its host) against the VM allocator's retry and coax.repair's option
-- check. Each hole has its twin. (The guard-page readers and the AVX2
-- and 16-byte ways: spec/c/test_guard_page.c.)
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

local dir

local function write(name, text)
  H.write(dir .. "/" .. name, text)
  return dir .. "/" .. name
end

setup(function()
  dir = H.tmpdir()
  write("schema.json", '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}')
end)

teardown(function() H.rmtree(dir) end)

local function run_lua(recipe)
  local opts = { replies = { '{"name": "Ada"}' }, lua_memory = 16 << 20 }
  return coax.run(write("recipe.lua", recipe), "input", opts)
end

-- A request over the cap stops the script (LIMIT_MEMORY); Lua's retry of
-- a failed request after its emergency collection, when it works, forgives
-- that request's own failure (engine/script/vm.c l_alloc). A __close
-- handler runs as the stop unwinds, before pcall looks at limit_hit(): it
-- dropped garbage and made a request the cap refused until the emergency
-- collection freed that garbage; the retry's success cleared the stop the
-- 1 GiB string.rep had set, pcall returned false and the recipe ran on
-- to outcome ok, its limit never reported.
local STOPPED = [[
local ok = pcall(function()
  local big = ("z"):rep(4 << 20)
  local t = {} for i = 1, 6 do t[i] = ("y"):rep(1 << 20) .. i end
  local c <close> = setmetatable({}, {__close = function()
    t = nil
    local s = big .. "!"
  end})
  STOP
end)
return { schema = "schema.json", prompt = "Who? {{input}}" }]]

describe("Lua memory: a retry that works forgives only its own failure", function()
  it("a stop, then a retry in a __close handler that works: still the limit", function()
    local r = run_lua((STOPPED:gsub("STOP", 'string.rep("x", 1 << 30)')))
    assert.are.same({ "limit", "limit", "recipe: not enough memory" },
      { r.outcome, r.error.code, r.error.message })
  end)

  it("twin: the same retry after a plain error is no limit", function()
    local r = run_lua((STOPPED:gsub("STOP", 'error("plain")')))
    assert.are.equal("ok", r.outcome)
  end)

  it("twin: the stop without the __close handler is the limit", function()
    local r = run_lua('pcall(string.rep, "x", 1 << 30) return { schema = "schema.json", prompt = "Who? {{input}}" }')
    assert.are.same({ "limit", "limit" }, { r.outcome, r.error.code })
  end)
end)

-- d78b99a: coax.repair and coax.extract raise on an option they do not
-- know. The check compared names with strcmp, which stops at a NUL: the
-- key "max_class\0x" passed as max_class, and then lua_getfield found no
-- max_class, so the reply was read at the default, silently.
describe("options: a name with a NUL in it is no option", function()
  local schema = coax.schema("{}")
  it("coax.repair and coax.extract raise on max_class\\0x and finish\\0", function()
    assert.has_error(function() coax.repair('{"a":1}', { ["max_class\0x"] = "lossless" }) end,
      "coax.repair: unknown option 'max_class\0x'")
    assert.has_error(function() coax.extract('{"a":1}', schema, { ["finish\0"] = "length" }) end,
      "coax.extract: unknown option 'finish\0'")
  end)

  it("and on a value with a NUL: max_class \"lossless\\0x\" is no class, finish \"length\\0\" no reason", function()
    local ok, err = pcall(coax.repair, '{"a":1}', { max_class = "lossless\0x" })
    assert.is_false(ok)
    assert.matches("max_class is lossless, inferred or invented", err, 1, true)
    -- "length" makes {"a": "x" a cut, so refused; "length\0" is no reason, as "lengthy" is not
    assert.is_nil(coax.repair('{"a": "x"', { finish = "length" }))
    local lengthy = coax.repair('{"a": "x"', { finish = "lengthy" })
    assert.is_not_nil(lengthy)
    assert.are.same(lengthy, (coax.repair('{"a": "x"', { finish = "length\0" })))
  end)

  it("twin: the names themselves are options", function()
    assert.is_not_nil(coax.repair('{"a":1}', { max_class = "lossless" }))
    assert.is_not_nil(coax.extract('{"a":1}', schema, { finish = "length" }))
  end)
end)
