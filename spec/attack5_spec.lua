--- Attack round 5: holes a host's own Lua could open in the module, each
-- with its input and the twins that must keep working. Under the ASan build
-- (COAX_BUILD=build/asan) a use after free aborts the run.
local H = require "helper" -- first: it loads the module of COAX_BUILD
local coax = require "coax"

local REPLY = '{"n": 1}'
local RECIPE = "return { prompt = 'n?', schema = { type = 'object', properties = { n = { type = 'integer' } } } }"

-- A string made at run time that nothing else keeps: Lua interns strings
-- of up to 40 bytes (a short one equal to a literal anywhere lives as long
-- as the literal), never longer ones.
local function fresh(s)
  return table.concat({ s:sub(1, 1), s:sub(2) })
end
local AGENT = "an-agent-name-long-enough-not-to-be-interned-by-lua" -- no agent: its message names it
local LUA_PATH = "./././././././././././././././././././lua"
local BASE = "http://localhost:1234/a/base/long/enough/not/to/be/interned/"
local DIR = "./././././././././spec/json-schema-test-suite/remotes"

-- An options table whose __index answers 'give' with fresh strings (a
-- function: its result), and collects all garbage when asked for
-- 'collect_on'.
local function hostile(raw, give, collect_on)
  return setmetatable(raw, { __index = function(_, k)
    if k == collect_on then
      collectgarbage()
      collectgarbage()
    end
    local g = give[k]
    if type(g) == "function" then return g() end
    if g then return fresh(g) end
  end })
end

describe("attack 5: string options the host's __index gives", function()
  -- lcoax_opt_string popped what lua_getfield gave: a string an __index
  -- made fresh (or one a later __index removed from the table) was freed by
  -- the next collection while C still held it (ASan: heap-use-after-free).
  -- Each string option is now kept by a table on the call's stack.
  it("coax.run keeps the agent's name while a later option collects", function()
    local opts = hostile({ source = true }, { agent = AGENT, replies = function() return { REPLY } end }, "replies")
    local r = coax.run(RECIPE, "x", opts)
    assert.are.equal("invalid", r.outcome)
    assert.are.equal("invalid agent name '" .. AGENT .. "'", r.error.message)
  end)

  it("coax.run keeps lua_path, proxy and command while later options collect", function()
    local opts = hostile({ source = true, replies = { REPLY } },
      { lua_path = LUA_PATH, proxy = BASE, command = BASE }, "agent_options")
    local r = coax.run(RECIPE, "x", opts)
    assert.are.equal("ok", r.outcome)
    assert.are.same({ n = 1 }, r.value)
  end)

  it("coax.run keeps a raw string option another option's __index clears", function()
    local opts = { source = true, replies = { REPLY }, lua_path = fresh(LUA_PATH),
      allow_dirs = { fresh(LUA_PATH), fresh(DIR) } }
    setmetatable(opts, { __index = function(t, k)
      if k == "proxy" then
        rawset(t, "lua_path", nil)
        t.allow_dirs[1], t.allow_dirs[2] = nil, nil
        collectgarbage()
        collectgarbage()
      end
    end })
    local r = coax.run(RECIPE, "x", opts)
    assert.are.equal("ok", r.outcome)
  end)

  it("e:session keeps command and agent while later options collect", function()
    local e = coax.engine({ lua_path = "lua" })
    local opts = hostile({ source = true },
      { command = BASE, agent = AGENT, replies = function() return { REPLY } end }, "replies")
    local s = e:session(RECIPE, "x", opts)
    assert.are.equal("invalid", s:run())
    assert.are.equal("invalid agent name '" .. AGENT .. "'", s:report().error.message)
    e:close()
  end)

  it("coax.engine keeps lua_path and ca_file while a later option collects", function()
    local e = coax.engine(hostile({}, { lua_path = LUA_PATH, ca_file = BASE }, "verbose"))
    local s = e:session(RECIPE, "x", { source = true, replies = { REPLY } })
    assert.are.equal("ok", s:run())
    e:close()
  end)

  local REMOTE = { ["$ref"] = BASE .. "integer.json" }
  it("coax.schema keeps draft, remote_dir and remote_base while later options collect", function()
    local s = assert(coax.schema(REMOTE, hostile({}, { draft = "2020-12", remote_dir = DIR, remote_base = BASE },
      "max_depth")))
    assert.is_true(s:validate(3))
    assert.is_false(s:validate("x"))
  end)

  it("coax.example keeps draft, remote_dir and remote_base while later options collect", function()
    local v = coax.example(REMOTE, hostile({}, { draft = "2020-12", remote_dir = DIR, remote_base = BASE },
      "minimal"), "extra argument")
    assert.are.equal("number", type(v))
    assert.are.equal(v, math.floor(v))
  end)

  it("twins: plain options and __index defaults still work", function()
    local r = coax.run(RECIPE, "x", setmetatable({ source = true }, { __index = { replies = { REPLY } } }))
    assert.are.equal("ok", r.outcome)
    assert.has_error(function() coax.run(RECIPE, "x", { source = true, proxy = 5 }) end,
      "option 'proxy' must be a string")
    assert.has_error(function() coax.schema({}, { draft = 7 }) end, "option 'draft' must be a string")
  end)
end)

describe("attack 5: a reply's format and its answer, member by member", function()
  -- fills and agrees looked each member of the format up in the answer by
  -- a scan: a reply of a 32,000-member format (one placeholder) and its
  -- answer took 1.84 s, 79 times 4,000's, and 90 times the same reply with
  -- no placeholder. Now by position, else by a binary search in the
  -- answer's members sorted once. Extraction alone grows 10 to 15 times
  -- from n to 8n here (repair and the Lua tables are n log n), so the
  -- measure is the reply against its twin with no placeholder.
  local function reply(n, reverse, differ, plain)
    local a, b = {}, {}
    for i = 1, n do
      a[i] = ('"k%d": %s'):format(i, (i == n and not plain) and '"<your answer here>"' or tostring(i))
      b[reverse and n + 1 - i or i] = ('"k%d": %d'):format(i, (differ and i == 1) and 0 or i)
    end
    return "Format:\n{" .. table.concat(a, ", ") .. "}\nAnswer:\n{" .. table.concat(b, ", ") .. "}"
  end
  for _, reverse in ipairs({ false, true }) do
    it("takes the answer in its twin's time, its members " .. (reverse and "reversed" or "in order"), function()
      local n = 32000
      local texts = { format = reply(n, reverse), plain = reply(n, reverse, false, true) }
      local function run(which)
        return function()
          local r = coax.extract(texts[which], '{"type": "object"}')
          assert.is_true(r.valid)
          assert.are.equal(n, r.value["k" .. n])
        end
      end
      local format, plain = H.best_cpu_pair(run("format"), run("plain"))
      assert.is_true(format < 3 * plain + 0.02, ("%.3f s against %.3f s"):format(format, plain))
    end)
  end

  it("twin: a format whose filled member differs from the answer is a rival", function()
    local r = coax.extract(reply(50, true, true), '{"type": "object"}')
    assert.is_false(r.valid)
    assert.are.equal("the reply holds two different answers, at line 2, column 1 and at line 4, column 1: "
      .. "send one value", r.errors[1].error)
  end)
end)
