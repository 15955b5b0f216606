--- Attack round 22: the C stack, again, from the places round 21's floor did not reach.
--
-- Round 21 set a floor 448 KiB below the VM's outermost call (engine/base/stack.h), where the
-- engine's recursions stop. Four ways still passed it, each a segfault on a 512 KiB thread (or on
-- 8 MB): Lua's own calls into Lua never looked at it (18 nested coax.schema calls, each calling
-- its resolver, reach the floor; 50 string.gsub callbacks under the last one went past the
-- thread's end); cjson's recursion never looked at it (a decode 999 deep under 17 resolvers); an
-- extraction's looks recurse on the value (placeholder.c's find, 112 to 190 bytes a level) and a
-- host or a script may raise max_depth at will (`coax repair --max-depth 300000` of 200,000
-- brackets; a recipe's coax.extract of 1,000 levels under 150 callbacks); and a host's own call
-- set no floor (coax_validate under a schema max_depth of 6,000: spec/c/test_attack22.c).
local H = require "helper"
local STACK_WHY = "deeper than the C stack left to it (448 KiB from the outermost call, a script's C calls included)"
-- An ASan build's floor is 4 times as far, under 4 times the stack (H.coax_in_stack), and its frames
-- grow by other factors: there the same work may fit, and must not crash either.
local ASAN = H.build:find("asan") ~= nil

local function run_recipe(kb, text)
  local recipe = H.tmpfile(text)
  local reply = H.tmpfile('"{}"\n')
  local out, code, err = H.coax_in_stack(kb, { "run", recipe, "--agent", "replay", "--replay", reply })
  os.remove(recipe)
  os.remove(reply)
  return out, code, err
end

-- A recipe whose agent replies {"res": R}, R what `body` (the body of a function that may use
-- gdive(n): n nested string.gsub callbacks, then WORK) returns.
local RECIPE = [[
local coax = require "coax"
local function work()
  %s
end
local function gdive(n)
  if n == 0 then return work() end
  local r
  string.gsub("x", "x", function() r = gdive(n - 1) end)
  return r
end
local function body()
  %s
end
return { schema = { type = "object" }, prompt = "p", agent = { call = function()
  local ok, r = pcall(body)
  return { text = coax.json.encode({ res = ok and r or "error: " .. tostring(r) }) }
end } }
]]

local function res(out) return out:match('^{"res":(.*)}\n$') end

-- k nested coax.schema calls, each in the resolver of the one above; under the last, g callbacks.
local RESOLVERS = [[
  local function rdive(n)
    if n == 0 then
      local ok, r = pcall(gdive, %d)
      return ok and r or "gsub: " .. tostring(r)
    end
    local r
    local _, e = coax.schema('{"$ref":"http://x.example/y"}', { meta = false, resolver = function()
      r = rdive(n - 1)
      return "{}"
    end })
    return r or e
  end
  return rdive(%d)]]

describe("attack 22: Lua's own calls into Lua stop at the floor", function()
  it("50 gsub callbacks under 18 nested resolvers: C stack overflow, not a segfault", function()
    local out, code = run_recipe(512, RECIPE:format("return 'bottom'", RESOLVERS:format(50, 18)))
    assert.are.equal(0, code)
    local r = res(out)
    if ASAN then
      assert.is_truthy(r == '"bottom"' or r:find("C stack overflow", 1, true))
    else
      -- the floor is met in Lua's call into the resolver or in the compile of the schema it
      -- resolves, whichever the stack's randomised start puts past it first: one floor either way
      local floor = {
        ['"resolving http://x.example/y: resolver: C stack overflow"'] = true,
        ['"schema nested deeper than the C stack left to it (448 KiB from the outermost call, a script\'s C calls '
          .. 'included)"'] = true }
      assert.is_true(floor[r], r)
    end
  end)

  it("150 callbacks under 17 resolvers stop in the callbacks; twin: 17 resolvers alone reach the bottom", function()
    local out, code = run_recipe(512, RECIPE:format("return 'bottom'", RESOLVERS:format(150, 17)))
    assert.are.equal(0, code)
    if not ASAN then assert.are.equal('"gsub: C stack overflow"', res(out)) end
    out, code = run_recipe(512, RECIPE:format("return 'bottom'", RESOLVERS:format(0, 17)))
    assert.are.equal(0, code)
    assert.are.equal('"bottom"', res(out))
  end)

  it("twins: 195 callbacks alone still nest (Lua's own limit is 200 C calls, as before)", function()
    local out, code = run_recipe(512, RECIPE:format("return 'bottom'", "return gdive(195)"))
    assert.are.equal(0, code)
    assert.are.equal('"bottom"', res(out))
    out, code = run_recipe(512, RECIPE:format("return 'bottom'", "return gdive(250)"))
    assert.are.equal(0, code)
    assert.are.equal('"error: C stack overflow"', res(out))
  end)

  it("an error handler at Lua's limit nests its own callbacks and ends as error in error handling", function()
    local body = [[
      local ok, r = xpcall(gdive, function(m) gdive(300) return m end, 300)
      return tostring(r)]]
    local out, code = run_recipe(512, RECIPE:format("return 'bottom'", body))
    assert.are.equal(0, code)
    assert.are.equal('"error in error handling"', res(out))
  end)
end)

describe("attack 22: on a thread of less than 512 KiB the floor keeps 64 KiB off its end", function()
  it("195 callbacks on 256 KiB: C stack overflow, not a segfault", function()
    local out, code = run_recipe(256, RECIPE:format("return 'bottom'", "return gdive(195)"))
    assert.are.equal(0, code)
    if ASAN then
      assert.is_truthy(res(out) == '"bottom"' or res(out) == '"error: C stack overflow"')
    else
      assert.are.equal('"error: C stack overflow"', res(out))
    end
  end)

  it("a schema checked at the evaluation limit on 256 KiB is refused; twin: 60 callbacks fit", function()
    local compile = [[
      local s, err = coax.schema(('{"not":'):rep(255) .. '{}' .. ('}'):rep(255))
      return s and "compiled" or err]]
    local out, code = run_recipe(256, RECIPE:format(compile, "return gdive(0)"))
    assert.are.equal(0, code)
    if not ASAN then
      assert.are.equal('"checking the schema against its meta-schema: schema evaluation nested ' .. STACK_WHY .. '"',
        res(out))
    end
    out, code = run_recipe(256, RECIPE:format("return 'bottom'", "return gdive(60)"))
    assert.are.equal(0, code)
    assert.are.equal('"bottom"', res(out))
  end)
end)

local CJSON_DECODE = [[
  local ok, e = pcall(require("cjson").decode, ("["):rep(999) .. ("]"):rep(999))
  return ok and "decoded" or e]]
local CJSON_ENCODE = [[
  local t = {}
  for _ = 1, 990 do t = { t } end
  local ok, e = pcall(require("cjson").encode, t)
  return ok and #e .. " bytes" or e]]

describe("attack 22: cjson's nesting stops at the floor", function()
  it("a decode 999 deep under 17 nested resolvers stops where the stack ends; twin: alone it decodes", function()
    local out, code = run_recipe(512, RECIPE:format(CJSON_DECODE, RESOLVERS:format(0, 17)))
    assert.are.equal(0, code)
    local r = res(out)
    if not ASAN then
      assert.is_truthy(r:match('^"Found too many nested data structures %(%d+: deeper than the C stack left to it%) at '
        .. 'character %d+"$'), r)
    end
    out, code = run_recipe(512, RECIPE:format(CJSON_DECODE, "return gdive(0)"))
    assert.are.equal(0, code)
    assert.are.equal('"decoded"', res(out))
  end)

  it("an encode 990 deep under 17 nested resolvers stops too; twin: alone it encodes", function()
    local out, code = run_recipe(512, RECIPE:format(CJSON_ENCODE, RESOLVERS:format(0, 17)))
    assert.are.equal(0, code)
    if not ASAN then
      local why = '^"Cannot serialise, excessive nesting %(%d+: deeper than the C stack left to it%)"$'
      assert.is_truthy(res(out):match(why))
    end
    out, code = run_recipe(512, RECIPE:format(CJSON_ENCODE, "return gdive(0)"))
    assert.are.equal(0, code)
    assert.are.equal('"1982 bytes"', res(out))
  end)

  it("twin: past its own depth limit cjson says so, without the stack", function()
    local out, code = run_recipe(512, RECIPE:format([[
      local ok, e = pcall(require("cjson").decode, ("["):rep(1001) .. ("]"):rep(1001))
      return e]], "return gdive(0)"))
    assert.are.equal(0, code)
    assert.are.equal('"Found too many nested data structures (1001) at character 1001"', res(out))
  end)
end)

local function brackets(depth) return ("["):rep(depth) .. "1" .. ("]"):rep(depth) end

describe("attack 22: an extraction reads the nesting the C stack left to it holds", function()
  local EXTRACT_WHY = " (what the C stack left to an extraction holds)"

  it("coax repair --max-depth 300000 of 200,000 brackets: a limit, not a segfault", function()
    local input = H.tmpfile(brackets(200000))
    local out, code, err = H.coax_in_stack(8192, { "repair", "--max-depth", "300000", input })
    assert.are.equal(4, code)
    assert.are.equal("", out)
    -- 448 KiB at 256 bytes a level (under ASan 4 times both, and its frames lie elsewhere)
    local levels = ASAN and tonumber(err:match("deeper than (%d+)")) or 1792
    assert.is_true(levels > 1780 and levels < 1800)
    assert.are.equal(("coax repair: nesting deeper than %d%s (line 1, column %d)\n"):format(levels, EXTRACT_WHY,
      levels + 1), err)
    os.remove(input)
  end)

  it("twin: 1,500 brackets under --max-depth 2000 are repaired on 512 KiB", function()
    local input = H.tmpfile(brackets(1500))
    local out, code = H.coax_in_stack(512, { "repair", "--max-depth", "2000", input })
    assert.are.equal(0, code)
    assert.are.equal(brackets(1500) .. "\n", out)
    os.remove(input)
  end)

  it("twin: the nesting limit the caller set still says only that", function()
    local input = H.tmpfile(brackets(5))
    local _, err, code = H.coax({ "repair", "--max-depth", "3", input })
    assert.are.equal(4, code)
    assert.are.equal("coax repair: nesting deeper than 3 (line 1, column 4)\n", err)
    os.remove(input)
  end)

  it("1,500 levels under an object schema extract on 512 KiB (the walk of an error's place)", function()
    local schema = H.tmpfile('{"type":"object","properties":{"a":{"type":"integer"}}}')
    local input = H.tmpfile(brackets(1500))
    local out, code, err = H.coax_in_stack(512, { "extract", "--schema", schema, "--max-depth", "5000", input })
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal("coax extract: no valid value: at '': expected object, got array of 1 item (1 error)\n", err)
    for _, f in ipairs({ schema, input }) do os.remove(f) end
  end)

  local EXTRACT = [[
  local s = coax.schema('{"type":"object","properties":{"a":{"type":"integer"}}}')
  local r, e = coax.extract(("["):rep(1000) .. "1" .. ("]"):rep(1000), s, { max_depth = 2000 })
  return r and #r.errors .. " error" or e]]

  it("a recipe's extraction 1,000 deep under 150 callbacks is refused where its stack ends", function()
    local out, code = run_recipe(512, RECIPE:format(EXTRACT, "return gdive(150)"))
    assert.are.equal(0, code)
    if not ASAN then assert.is_truthy(res(out):match('^"nesting deeper than %d+' .. EXTRACT_WHY:gsub("%p", "%%%0")
      .. '"$'), out) end
    out, code = run_recipe(512, RECIPE:format(EXTRACT, "return gdive(0)"))
    assert.are.equal(0, code)
    assert.are.equal('"1 error"', res(out))
  end)
end)
