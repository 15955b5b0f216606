--- Escape attempts from the sandbox (lua/coax/sandbox.lua), from each place
-- a script runs: a recipe's top level, a template (the prompt function), a
-- strategy and a recipe's own agent. Each attempt runs inside pcall and its
-- exact result is read back from what the session did with it (the prompt,
-- the next attempt's message, the agent's error). Then the attacks on what
-- sessions share: one session of an engine tampers with everything it can
-- reach, and a second session of the same engine runs exactly as on a fresh
-- engine. Feedback templates are text: placeholders fill in values, never
-- code. Instruction and memory limits in scripts are in limits_spec.
local H = require "helper"
local coax = require "coax"
local json = coax.json

local SCHEMA = "{ type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } }"

-- A recipe running `body` (one line, so errors say "recipe:2:") in `where`.
local function recipe(where, body)
  local head = "local function probe()\n" .. body .. "\nend\n"
    .. "local function result()\n  local ok, r = pcall(probe)\n"
    .. "  return (ok and 'ok: ' or 'error: ') .. tostring(r)\nend\n"
  if where == "recipe" then
    return head .. "local R = result()\nreturn { schema = " .. SCHEMA .. ", prompt = R }"
  elseif where == "template" then
    return head .. "return { schema = " .. SCHEMA .. ", prompt = function() return result() end }"
  elseif where == "strategy" then
    return head .. "return { schema = " .. SCHEMA .. ", prompt = 'x', "
      .. "strategy = function() return { { role = 'user', content = result() } } end }"
  end
  return head .. "return { schema = " .. SCHEMA .. ", prompt = 'x', "
    .. "agent = { call = function() return nil, result() end } }"
end

-- What `body` gave in `where`: "ok: VALUE" or "error: MESSAGE".
local function probe(where, body)
  local r = coax.run(recipe(where, body), "x", { source = true, replies = { "no JSON", '{"n": 1}' } })
  local text
  if where == "recipe" or where == "template" then
    text = r.attempts[1] and r.attempts[1].messages[1].content
  elseif where == "strategy" then
    text = r.attempts[2] and r.attempts[2].messages[1].content
  else
    text = r.outcome == "agent_error" and r.error.message
  end
  assert(text, "the probe did not run: " .. json.encode(r))
  return (text:match("^[^\n]*"))
end

local RO = "attempt to change a read-only table (every script shares it)"
local function unavailable(name)
  return "error: recipe:2: require: module '" .. name .. "' is not available to scripts"
end

local ATTEMPTS = {
  -- the standard library beyond the safe parts
  { "io is absent", "return type(io)", "ok: nil" },
  { "io.open", "local f = io.open('/etc/passwd') return f",
    "error: recipe:2: attempt to index a nil value (global 'io')" },
  { "os.execute", "local r = os.execute('true') return r",
    "error: recipe:2: attempt to call a nil value (field 'execute')" },
  { "os.getenv", "local r = os.getenv('HOME') return r",
    "error: recipe:2: attempt to call a nil value (field 'getenv')" },
  { "the rest of os", "return tostring(os.remove) .. tostring(os.rename) .. tostring(os.exit) .. tostring(os.tmpname)"
    .. " .. tostring(os.setlocale)", "ok: nilnilnilnilnil" },
  { "coax.getenv of a key", "local r = require('coax').getenv('OPENAI_API_KEY') return r",
    "error: recipe:2: coax.getenv: 'OPENAI_API_KEY' is not readable by scripts (only OLLAMA_HOST)" },
  { "coax.getenv of HOME", "local r = require('coax').getenv('HOME') return r",
    "error: recipe:2: coax.getenv: 'HOME' is not readable by scripts (only OLLAMA_HOST)" },
  { "debug", "local r = debug.getinfo(1) return r", "error: recipe:2: attempt to index a nil value (global 'debug')" },
  { "package.loadlib", "local r = package.loadlib('libc.so.6', 'system') return r",
    "error: recipe:2: attempt to index a nil value (global 'package')" },
  { "dofile", "local r = dofile('/etc/passwd') return r",
    "error: recipe:2: attempt to call a nil value (global 'dofile')" },
  { "loadfile", "local r = loadfile('/etc/passwd') return r",
    "error: recipe:2: attempt to call a nil value (global 'loadfile')" },
  { "collectgarbage('stop')", "local r = collectgarbage('stop') return r",
    "error: recipe:2: collectgarbage: only 'count' is available to scripts" },
  { "collectgarbage('count') only", "return math.type(collectgarbage('count')) or type(collectgarbage('count'))",
    "ok: float" },
  -- require
  { "require 'os'", "local m = require('os') return m", unavailable("os") },
  { "require 'io'", "local m = require('io') return m", unavailable("io") },
  { "require 'debug'", "local m = require('debug') return m", unavailable("debug") },
  { "require 'package'", "local m = require('package') return m", unavailable("package") },
  { "require 'ffi'", "local m = require('ffi') return m", unavailable("ffi") },
  { "require 'coax.sandbox' (it would rebuild coax.http)", "local m = require('coax.sandbox') return m",
    unavailable("coax.sandbox") },
  { "require 'coax...sandbox' (empty parts)", "local m = require('coax...sandbox') return m",
    unavailable("coax...sandbox") },
  { "require a path with ../", "local m = require('coax/../../../etc/passwd') return m",
    unavailable("coax/../../../etc/passwd") },
  { "require 'coax.agents..openai'", "local m = require('coax.agents..openai') return m",
    unavailable("coax.agents..openai") },
  { "require 'coax.'", "local m = require('coax.') return m", unavailable("coax.") },
  { "require of a table name", "local m = require({}) return m",
    "error: recipe:2: require: module name must be a string" },
  -- binary chunks
  { "string.dump", "local b = string.dump(function() return 1 end) return b",
    "error: recipe:2: attempt to call a nil value (field 'dump')" },
  { "string.dump through a string's methods", "local b = ('').dump(function() return 1 end) return b",
    "error: recipe:2: attempt to call a nil value (field 'dump')" },
  { "load, mode 'b'", "local f, e = load('\\27LuaT', 'c', 'b') return tostring(f) .. ' ' .. e",
    "ok: nil load: only text chunks are allowed" },
  { "load, mode 'bt'", "local f, e = load('\\27LuaT', 'c', 'bt') return tostring(f) .. ' ' .. e",
    "ok: nil load: only text chunks are allowed" },
  { "load of a binary chunk", "local f, e = load('\\27LuaT\\0\\25\\147') return tostring(f) .. ' ' .. e",
    "ok: nil attempt to load a binary chunk (mode is 't')" },
  { "load of a binary chunk from a reader", "local n = 0 local f, e = load(function() n = n + 1 "
    .. "if n == 1 then return '\\27Lua' end end) return tostring(f) .. ' ' .. e",
    "ok: nil attempt to load a binary chunk (mode is 't')" },
  { "a loaded chunk's globals are its own", "load('y_global = 1')() return tostring(y_global) .. tostring(_G.y_global)",
    "ok: nilnil" },
  -- the string metatable and the string library
  { "getmetatable('')", "return getmetatable('')", "ok: string" },
  { "getmetatable('').__index = {}", "getmetatable('').__index = {} return 'changed'",
    "error: recipe:2: attempt to index a string value" },
  { "setmetatable on a string", "setmetatable('', {}) return 'changed'",
    "error: recipe:2: bad argument #1 to 'setmetatable' (table expected, got string)" },
  { "string.upper = ...", "string.upper = function() return 'pwned' end return 'changed'", "error: recipe:2: " .. RO },
  { "rawset(string, ...)", "rawset(string, 'upper', nil) return 'changed'", "error: recipe:2: rawset: " .. RO },
  { "setmetatable(string, ...)", "setmetatable(string, {}) return 'changed'",
    "error: recipe:2: cannot change a protected metatable" },
  { "table.concat = ...", "table.concat = nil return 'changed'", "error: recipe:2: " .. RO },
  -- the shared environment
  { "_G.pcall = ...", "_G.pcall = nil return 'changed'", "error: recipe:2: " .. RO },
  { "rawset(_G, ...)", "rawset(_G, 'pcall', nil) return 'changed'", "error: recipe:2: rawset: " .. RO },
  { "rawset on the environment behind _ENV", "rawset(getmetatable(_ENV).__index, 'pcall', nil) return 'changed'",
    "error: recipe:2: rawset: " .. RO },
  { "setmetatable(_G, ...)", "setmetatable(_G, nil) return 'changed'",
    "error: recipe:2: cannot change a protected metatable" },
  { "a script's own globals stay writable", "own_global = 5 rawset(_ENV, 'own_raw', 6) return own_global + own_raw",
    "ok: 11" },
  -- pairs handed out the hidden table of a shared one's fields as its state,
  -- and a script wrote through it for every later session (attack, finding 01)
  { "pairs' state is the shared table itself", "local f, s = pairs(string) s.upper = nil return 'changed'",
    "error: recipe:2: " .. RO },
  { "pairs' iterator reads a table as next does", "local f = pairs(_G) "
    .. "return tostring(f({})) .. ' ' .. tostring(f({ 7 }))", "ok: nil 1" },
  { "the shared tables still read as tables", "local n = 0 for _ in pairs(string) do n = n + 1 end "
    .. "return n .. ' ' .. tostring(rawget(math, 'pi')) .. ' ' .. tostring(next(table) ~= nil)",
    "ok: 16 3.1415926535898 true" },
  -- the coax module
  { "coax.json.encode = ...", "require('coax').json.encode = nil return 'changed'", "error: recipe:2: " .. RO },
  { "coax.http.request = ...", "require('coax').http.request = print return 'changed'", "error: recipe:2: " .. RO },
  { "setmetatable(coax, ...)", "setmetatable(require('coax'), {}) return 'changed'",
    "error: recipe:2: cannot change a protected metatable" },
  { "coax.run (reads any file as a recipe)", "local r = require('coax').run('/etc/shadow', 'x') return r",
    "error: recipe:2: attempt to call a nil value (field 'run')" },
  { "coax.engine", "local e = require('coax').engine() return e",
    "error: recipe:2: attempt to call a nil value (field 'engine')" },
  { "coax.schema with remote_dir", "local s = require('coax').schema('{}', { remote_dir = '/', "
    .. "remote_base = 'http://x/' }) return s",
    "error: recipe:2: coax.schema: remote_dir is not available to scripts" },
  { "coax.schema with remote_dir behind __index (C reads what was checked)",
    "local s, e = require('coax').schema({ ['$ref'] = 'http://x/etc/passwd' }, setmetatable({}, { __index = "
    .. "function(_, k) return ({ remote_dir = '/', remote_base = 'http://x/' })[k] end })) "
    .. "return tostring(s) .. ' ' .. tostring(e)", 'ok: nil unresolvable reference "http://x/etc/passwd"' },
  { "coax.example with remote_dir", "local s = require('coax').example('{}', { remote_dir = '/', "
    .. "remote_base = 'http://x/' }) return s",
    "error: recipe:2: coax.example: remote_dir is not available to scripts" },
  -- the engine's metatables
  { "a JSON array's metatable", "return getmetatable(require('coax').json.decode('[]'))", "ok: coax.array" },
  { "a JSON object's metatable", "return getmetatable(require('coax').json.decode('{}'))", "ok: coax.object" },
  { "a schema's metatable", "return getmetatable(require('coax').schema('{}'))", "ok: coax.schema" },
  -- modules: the caller's own copies
  { "cjson's settings are the caller's own", "require('cjson').decode_max_depth(1) "
    .. "return tostring(pcall(require('cjson').decode, '[[1]]'))", "ok: true" },
  { "a coax.* script is the caller's own copy", "require('coax.transport').MAX_RETRIES = 99 "
    .. "return tostring(require('coax.transport').MAX_RETRIES)", "ok: 2" },
}

for _, where in ipairs({ "recipe", "template", "strategy", "agent" }) do
  describe("from a " .. where .. ", the sandbox refuses", function()
    for _, a in ipairs(ATTEMPTS) do
      it(a[1], function()
        assert.are.equal(a[3], probe(where, a[2]))
      end)
    end
  end)
end

describe("what sessions share", function()
  -- Everything a script could reach to change the next session's behaviour
  -- (each of these changed it before the sandbox froze them).
  local TAMPER = {
    "_G.pcall = function() return false, 'pwned' end",
    "_G.require = function() return {} end",
    "rawset(getmetatable(_ENV).__index, 'tostring', function() return 'pwned' end)",
    "string.format = function() return 'pwned' end",
    "table.concat = function() return 'pwned' end",
    "getmetatable('').__index.rep = nil",
    "require('coax').json.encode = function() return 'pwned' end",
    "require('coax').http.request = function() return nil, 'pwned' end",
    "require('cjson').decode_max_depth(1)",
    "require('coax.feedback').templates.parse = 'pwned'",
    "require('coax.transport').MAX_RETRIES = 0",
    "getmetatable(require('coax').json.decode('[]')).__index = function() return 'pwned' end",
    "getmetatable(require('coax').schema('{}')).__index.validate = function() return false end",
    "require('coax.sandbox')(function() end, require('coax'), function() return false end, {})",
    "local _, f = pairs(string) f.format = function() return 'pwned' end",
    "local _, g = pairs(_G) g.tostring = function() return 'pwned' end",
    "local _, j = pairs(require('coax').json) j.encode = function() return 'pwned' end",
  }

  -- The victim: uses what was tampered with, then fails once so feedback
  -- and a strategy run.
  local VICTIM = [=[
local coax = require("coax")
local cjson = require("cjson")
local function check()
  local arr = coax.json.decode("[1]")
  local s = coax.schema({ type = "integer" })
  return table.concat({ string.format("%d", 7), tostring(1), coax.json.encode({ 1 }), tostring(arr[2]),
    tostring(s:validate(1)), tostring(cjson.decode("[[1]]")[1][1]), ("ab"):rep(2), tostring(pcall(error)) }, " ")
end
return { schema = { type = "object", properties = { n = { type = "integer" } }, required = { "n" } },
  prompt = function(input) return check() .. " " .. input end }]=]

  local function run_victim(e)
    local s = e:session(VICTIM, "x", { source = true, replies = { "no JSON", '{"n": 1}' } })
    while e:poll(10) > 0 do end
    local r = s:report()
    local out = {}
    for i in ipairs(r.attempts) do out[i] = H.conversation(r, i) end
    return r.outcome, out
  end

  -- The runtime sets a metatable on a recipe's feedback table (its
  -- templates fall back on the defaults): one of the recipe's own, so
  -- changing it through getmetatable reaches no other session's.
  it("a recipe's feedback table's metatable is its own", function()
    local attacker = [[
local fb = { validation = "A {{errors}}" }
return { schema = { type = "integer" }, prompt = "x", feedback = fb,
  on_event = function()
    local mt = getmetatable(fb)
    if type(mt) == "table" then mt.__index = { first = "pwned", validation = "pwned", parse = "pwned" } end
  end }]]
    local victim = [[return { schema = { type = "integer" }, prompt = "P {{input}}",
  feedback = { validation = "V {{errors}}" } }]]
    local e = coax.engine()
    local a = e:session(attacker, "x", { source = true, replies = { "no JSON", "no JSON", "1" } })
    while e:poll(10) > 0 do end
    assert.are.equal("ok", a:report().outcome)
    local v = e:session(victim, "x", { source = true, replies = { "no JSON", "1" } })
    while e:poll(10) > 0 do end
    local r = v:report()
    assert.are.equal("ok", r.outcome)
    assert.matches("^P x\n\nReply with JSON that matches this JSON Schema:", r.attempts[1].messages[1].content)
    assert.matches("^Attempt 1/3: no JSON could be read from your reply", r.attempts[1].feedback)
  end)

  it("one session tampers with all it can reach; the next session of that engine runs as on a fresh one", function()
    local lines = { "local changed = {}" }
    for _, line in ipairs(TAMPER) do
      lines[#lines + 1] = ("if pcall(function() %s end) then changed[#changed + 1] = %q end"):format(line, line)
    end
    local attacker = table.concat(lines, "\n") .. "\n"
      .. "return { schema = { type = 'integer' }, prompt = 'changed: ' .. #changed .. ' ' "
      .. ".. table.concat(changed, '; ') }"
    local e = coax.engine()
    local s = e:session(attacker, "x", { source = true, replies = { "1" } })
    while e:poll(10) > 0 do end
    local r = s:report()
    assert.are.equal("ok", r.outcome)
    -- Three tamperings work and change only the attacker's own copies
    -- (cjson's settings, feedback and transport scripts of its own).
    assert.are.equal("changed: 3 require('cjson').decode_max_depth(1); require('coax.feedback').templates.parse = "
      .. "'pwned'; require('coax.transport').MAX_RETRIES = 0",
      r.attempts[1].messages[1].content:match("^[^\n]*"))

    local outcome, messages = run_victim(e)
    local fresh_outcome, fresh_messages = run_victim(coax.engine())
    assert.are.equal("ok", outcome)
    assert.are.equal(fresh_outcome, outcome)
    assert.are.same(fresh_messages, messages)
    assert.are.equal("7 1 [1] nil true 1.0 abab false x", messages[1][1].content:match("^[^\n]*"))
    assert.matches("^Attempt 1/3: no JSON could be read from your reply", messages[2][3].content)
  end)
end)

describe("the engine's own scripts, behind what they hand out", function()
  -- Regression (attack, finding 07): the tools mode's definitions were one
  -- shared list of JSON-marked tables (which freezing skips); a recipe's
  -- copy of an agent module handed them out, and a recipe rewrote what every
  -- later session of the engine sent its provider.
  it("the tool definitions an agent builds are made afresh for each request", function()
    local read = [[
local an = require "coax.agents.anthropic"
local defs = an.MODES.tools.fields().tools
return { schema = { type = "integer" }, prompt = tostring(defs[3].input_schema.properties.json.description) }]]
    local attacker = [[
local an = require "coax.agents.anthropic"
local defs = an.MODES.tools.fields().tools
defs[3].input_schema.properties.json.description = "pwned"
return { schema = { type = "integer" }, prompt = "x" }]]
    local e = coax.engine()
    for _, src in ipairs({ attacker, read }) do
      local s = e:session(src, "x", { source = true, replies = { "1" } })
      while e:poll(10) > 0 do end
      assert.are.equal("ok", s:report().outcome)
    end
    local s = e:session(read, "x", { source = true, replies = { "1" } })
    while e:poll(10) > 0 do end
    assert.are.equal("The final JSON value (the value itself, not text).",
      s:report().attempts[1].messages[1].content:match("^[^\n]*"))
  end)
end)

describe("the engine's own scripts", function()
  it("stay out of reach behind what they hand a recipe (feedback's templates behind its feedback table)", function()
    -- Rendering the first prompt gives the recipe's feedback table (the
    -- copy the recipe's check made: ctx.templates) a metatable whose
    -- __index is the feedback script's template table.
    local e = coax.engine()
    local attacker = e:session([[
local FB = {}
return { schema = { type = 'integer' }, prompt = 'x', feedback = FB,
  strategy = function(ctx)
    local ok, err = pcall(function() getmetatable(ctx.templates).__index.parse = 'pwned' end)
    return { { role = 'user', content = tostring(ok) .. ' ' .. tostring(err) } }
  end }]], "x", { source = true, replies = { "no", "1" } })
    while e:poll(10) > 0 do end
    assert.are.equal("false recipe:4: attempt to change a read-only table (every script shares it)",
      attacker:report().attempts[2].messages[1].content)
    local victim = e:session("return { schema = { type = 'integer' }, prompt = 'x' }", "x",
      { source = true, replies = { "no", "1" } })
    while e:poll(10) > 0 do end
    local m = H.conversation(victim:report(), 2)
    assert.matches("^Attempt 1/3: no JSON could be read from your reply", m[#m].content)
  end)
end)

describe("feedback templates", function()
  it("are text: placeholders fill in the attempt's values and nothing else", function()
    local r = coax.run("return { schema = { type = 'object' }, prompt = 'x', feedback = { parse = "
      .. "'{{io}}{{os}}{{_G}}{{require}}{{debug}}{{string}}{{load}}{{__index}}|{{attempt}}|{{reply_head}}' } }",
      "x", { source = true, replies = { "no JSON here", "{}" } })
    assert.are.equal("ok", r.outcome)
    assert.are.equal("|1|no JSON here", H.conversation(r, 2)[3].content)
  end)
end)

describe("Lua patterns", function()
  -- Backtracking that would run for hours in the stock string.find: the
  -- engine's pattern functions charge their steps to the instruction budget.
  local HOURS = "local ok = pcall(string.find, ('a'):rep(2000), '.-.-.-b')"
  local cases = {
    { "recipe", HOURS .. "\nreturn { schema = {}, prompt = 'x' }", "recipe" },
    { "template", "return { schema = {}, prompt = function() " .. HOURS .. " return 'x' end }", "prompt" },
    { "strategy", "return { schema = { type = 'integer' }, prompt = 'x', strategy = function() " .. HOURS
      .. " return { { role = 'user', content = 'x' } } end }", "strategy" },
    { "agent, through a string's method", "return { schema = {}, prompt = 'x', agent = { call = function() "
      .. "local ok = pcall(function() return ('a'):rep(2000):find('.-.-.-b') end) return { text = '{}' } end } }",
      "agent" },
    { "gmatch", "for _ in string.gmatch(('a'):rep(5000), 'a*a*a*a*b') do end return { schema = {}, prompt = 'x' }",
      "recipe" },
    { "gsub", "local s = string.gsub(('a'):rep(3000), '.-.-.-b', '') return { schema = {}, prompt = 'x' }", "recipe" },
  }
  for _, c in ipairs(cases) do
    it("that would backtrack for hours stop at the instruction limit: " .. c[1], function()
      local r = coax.run(c[2], "x", { source = true, replies = { "no JSON", "1", "1" } })
      assert.are.same({ "limit", "limit", c[3] .. ": script stopped: Lua instruction limit (10000000) reached" },
        { r.outcome, r.error.code, (r.error.message:gsub("\n.*", "")) })
    end)
  end

  -- A set is read whole at every step (its end found, its ranges tried): a
  -- step of a 4 MB set is 8 MB of reading, and the 1,024 steps between two
  -- charges ran for seconds before any count (a 16 MB set: 41 s on a budget
  -- of 10,000,000). Sets and back references are charged by their length.
  it("stop at the limit when a set or a back reference is megabytes long", function()
    for _, c in ipairs({
      { "set", "pcall(string.find, ('a'):rep(100000), '[' .. ('b'):rep(1 << 22) .. ']')" },
      { "set, repeated", "pcall(string.find, ('a'):rep(100000), '[' .. ('a'):rep(1 << 22) .. ']*c')" },
      -- the subject made by doubling: string.rep of 8 MB is the budget's million instructions
      { "back reference", "local s = 'a' while #s < 1 << 23 do s = s .. s end pcall(string.find, s, '^(a*)%1b')" },
    }) do
      local r
      local cpu = H.best_cpu(function()
        r = coax.run(c[2] .. " return { schema = {}, prompt = 'x' }", "x", { source = true, replies = { "{}" },
          lua_instructions = 1000000 })
      end)
      assert.are.same({ c[1], "limit", "recipe: script stopped: Lua instruction limit (1000000) reached" },
        { c[1], r.outcome, (r.error.message:gsub("\n.*", "")) })
      assert.is_true(cpu < 1.5, c[1] .. ": " .. cpu .. " s")
    end
  end)

  -- Not only patterns: one instruction may do a millisecond of work in C
  -- (`s .. "y"` or s:upper() on a megabyte); time between two counts is
  -- charged too (engine/script/vm.c), so such loops stop with the budget.
  for _, c in ipairs({
    { "s:upper() on a megabyte, a million times", "n = n + #s:upper()" },
    { "s .. 'y' on a megabyte, a million times", "local t = s .. 'y' n = n + #t" },
  }) do
    it("that are cheap in instructions but not in C stop at the limit too: " .. c[1], function()
      local r = coax.run("local s = ('x'):rep(1 << 20) local n = 0 for i = 1, 1e6 do " .. c[2] .. " end "
        .. "return { schema = {}, prompt = tostring(n) }", "x", { source = true, replies = { "{}" },
        lua_instructions = 1000000 })
      assert.are.same({ "limit", "recipe: script stopped: Lua instruction limit (1000000) reached" },
        { r.outcome, (r.error.message:gsub("\n.*", "")) })
    end)
  end

  -- What coax.patterns(tick) hands tick: the steps of every call, to the last, however it ends.
  local function counted()
    local total = 0
    return coax.patterns(function(n) total = total + n end), function() return total end
  end
  local function charged(total, f)
    local before = total()
    f()
    return total() - before
  end

  it("count every call's steps, those of a call that ends below a tick's 1024 too", function()
    local P, total = counted()
    local s = ("a"):rep(6)
    local function find() return P.find(s, ".-.-.-b") end
    local one = charged(total, find)
    assert.is_true(one > 100 and one < 1024, one) -- 496
    assert.are.equal(1000 * one, charged(total, function() for _ = 1, 1000 do find() end end))
    -- gmatch: each match's steps and its capture pushed, at each call of the iterator
    local words = charged(total, function() for _ in P.gmatch(("a"):rep(1000), "a") do end end)
    -- a match tried and its item, a step each, and 8 its capture; the last try, at the end, finds none
    assert.are.equal(1000 * (2 + 8) + 2, words)
  end)

  it("count the steps that led to an error, and those before a replacement function raises", function()
    local P, total = counted()
    local s, p = ("a"):rep(300), ("a?"):rep(150) .. "%"
    local function bad() return pcall(P.find, s, p) end
    local one = charged(total, bad)
    assert.is_true(one > 150, one)
    assert.are.equal(100 * one, charged(total, function() for _ = 1, 100 do bad() end end))
    local raise = charged(total, function() return pcall(P.gsub, ("b"):rep(500) .. "a", "a", error) end)
    -- the run of b's (a step, and a step per 8 of its bytes), the match tried and its item, its capture
    assert.are.equal(1 + 500 // 8 + 2 + 8, raise)
  end)

  it("count the bytes they search and copy, a step every 8", function()
    local P, total = counted()
    local MB = 1 << 20
    local r = ("x"):rep(MB)
    -- '' matches 3 times in "ab", each copying the megabyte: 5 positions tried (after a match, its
    -- end again, which may not match twice)
    assert.are.equal(5 + 3 * MB // 8, charged(total, function() return P.gsub("ab", "", r) end))
    -- no 'b' in a megabyte of 'a': one memchr, its bytes charged (and a step for the search)
    local s = ("a"):rep(MB)
    assert.are.equal(1 + MB // 8, charged(total, function() return P.find(s, "b", 1, true) end))
    -- the same, the run copied into the result, and a match tried at the end (and its item)
    assert.are.equal(3 + MB // 8, charged(total, function() return P.gsub(s, "b", "c") end))
  end)

  it("do what Lua's own do: 5 functions on 4,000 random patterns and subjects, results and errors", function()
    local atoms = { "a", "b", ".", "%a", "%d", "%s", "%w", "%A", "%p", "%z", "[ab]", "[^a]", "[a-c]", "[%d_]", "[]]",
      "[^]]", "%%", "%.", "x", "(", ")", "()", "%1", "%2", "%bab", "%b()", "%f[%w]", "%f[%W]", "^", "$", "-", "*",
      "+", "?", "[", "%", "[%a-]", "[a-]", "[-a]", "[v-%%]", "[%%-]", "\0" }
    local quants = { "", "", "", "*", "+", "-", "?" }
    local letters = "ab()[]%.-x \0^$1"
    local function outcome(ok, ...)
      local t = { ok and "ok" or "error" }
      if not ok then return tostring((...)):gsub("^.-:%d+: ", "") end
      for i = 1, select("#", ...) do t[#t + 1] = tostring((select(i, ...))) end
      return table.concat(t, "|")
    end
    local function gather(gmatch, s, p, init)
      local t = {}
      for a, b in gmatch(s, p, init) do
        t[#t + 1] = tostring(a) .. "/" .. tostring(b)
        if #t > 40 then break end
      end
      return table.concat(t, ",")
    end
    local rng = 12345
    local function random(n) -- deterministic, whatever math.random's seed
      rng = (rng * 1103515245 + 12345) % 2147483648
      return rng % n + 1
    end
    local differ = {}
    for _, P in ipairs({ coax.patterns(), (counted()) }) do -- without a tick, and ticking
      rng = 12345
      for _ = 1, 4000 do
        local parts = {}
        for i = 1, random(6) do parts[i] = atoms[random(#atoms)] .. quants[random(#quants)] end
        local p = table.concat(parts)
        local chars = {}
        for i = 1, random(13) - 1 do
          local j = random(#letters)
          chars[i] = letters:sub(j, j)
        end
        local s = table.concat(chars)
        local init = ({ nil, 1, 2, -1, -3, 0, 10, -100 })[random(8)]
        local repl = ({ "<%0>", "%1", "x", "%%", "%2", function(a, b) return b or a end, { a = "A", b = false, ab = 1 },
          7, "%" })[random(9)]
        local calls = {
          { "find", string.find, P.find, s, p, init },
          { "find plain", string.find, P.find, s, p, init, true },
          { "match", string.match, P.match, s, p, init },
          { "gsub", string.gsub, P.gsub, s, p, repl, ({ nil, 0, 1, 2 })[random(4)] },
          { "gmatch", function(...) return gather(string.gmatch, ...) end,
            function(...) return gather(P.gmatch, ...) end, s, p, init },
        }
        for _, c in ipairs(calls) do
          local want = outcome(pcall(c[2], table.unpack(c, 4, 7)))
          local got = outcome(pcall(c[3], table.unpack(c, 4, 7)))
          if want ~= got then differ[#differ + 1] = ("%s(%q, %q): %s, not %s"):format(c[1], s, p, got, want) end
        end
      end
    end
    assert.are.same({}, differ)
  end)
end)
