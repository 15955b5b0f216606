--- Every limit, hit on purpose: the exit code of the command (4) or the
-- outcome of the API (`limit`, or the limit's code), with the message.
-- Limits already hit elsewhere are not repeated here: 1,000,000 `[` in
-- repair and coax.json (repair_spec, repair_cli_spec, json_spec, and
-- spec/c/test_json.c), --max-input for repair and tokens, caller limits in
-- coax.repair, regex steps and schema nesting in `coax validate`
-- (validate_spec), Lua instructions in a recipe's top level, on_submit
-- and a strategy (inside pcall and coroutine.resume), Lua memory in
-- on_submit, the token budget and the deadline in coax.run (run_spec).
local H = require "helper"
local coax = require "coax"

local dir

local function write(name, text)
  local path = dir .. "/" .. name
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

-- Runs `coax ARGS` and gives stdout, stderr and the exit status.
local coax_cmd = H.coax

setup(function()
  dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. H.quote(dir)))
  write("schema.json", '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}')
  write("empty.json", "{}")
  write("replies.jsonl", '"no JSON here"\n"still none"\n"{\\"name\\": \\"Ada\\"}"\n')
end)

teardown(function() os.execute("rm -rf " .. H.quote(dir)) end)

describe("limits of the model-free commands (exit 4)", function()
  it("nesting depth: 1,000,000 [ in extract and validate", function()
    local deep = string.rep("[", 1000000)
    local out, err, code = coax_cmd({ "extract", "--schema", dir .. "/schema.json" }, deep)
    assert.are.same({ "", "coax extract: nesting deeper than 512 (line 1, column 513)\n", 4 }, { out, err, code })
    out, err, code = coax_cmd({ "validate", dir .. "/schema.json" }, deep)
    assert.are.same({ "", "coax validate: nesting deeper than 512 (line 1, column 513)\n", 4 }, { out, err, code })
  end)

  it("input size: --max-input in extract and validate", function()
    local _, err, code = coax_cmd({ "extract", "--schema", dir .. "/schema.json", "--max-input", "8" }, '{"name": "Ada"}')
    assert.are.same({ "coax extract: standard input is larger than the limit of 8 bytes (--max-input)\n", 4 }, { err, code })
    _, err, code = coax_cmd({ "validate", "--max-input", "8", dir .. "/empty.json" }, '{"name": "Ada"}')
    assert.are.same({ "coax validate: standard input is larger than the limit of 8 bytes (--max-input)\n", 4 }, { err, code })
  end)

  it("string length: --max-string in repair, extract and validate", function()
    local _, err, code = coax_cmd({ "repair", "--max-string", "4" }, '["abcdefgh"]')
    assert.are.same({ "coax repair: string longer than the string limit (line 1, column 3)\n", 4 }, { err, code })
    _, err, code = coax_cmd({ "extract", "--schema", dir .. "/schema.json", "--max-string", "4" }, '{"a": "abcdefgh"}')
    assert.are.same({ "coax extract: string longer than the string limit (line 1, column 8)\n", 4 }, { err, code })
    _, err, code = coax_cmd({ "validate", "--max-string", "4", dir .. "/empty.json" }, '{"a": "abcdefgh"}')
    assert.are.same({ "coax validate: string longer than the string limit (line 1, column 8)\n", 4 }, { err, code })
  end)

  it("schema reference depth: a chain of 1,100 $refs, one level each", function()
    local function chain(n)
      local defs = {}
      for i = 0, n - 1 do defs[#defs + 1] = string.format('"a%d":{"$ref":"#/$defs/a%d"}', i, i + 1) end
      defs[#defs + 1] = string.format('"a%d":{"type":"integer"}', n)
      return '{"$defs":{' .. table.concat(defs, ",") .. '},"$ref":"#/$defs/a0"}'
    end
    local out, err, code = coax_cmd({ "validate", write("chain.json", chain(1100)) }, "1")
    assert.are.same({ "", "coax validate: schema evaluation nested deeper than the limit of 1024\n", 4 },
      { out, err, code })
    _, err, code = coax_cmd({ "extract", "--schema", dir .. "/chain.json" }, "1")
    assert.are.same({ "coax extract: schema evaluation nested deeper than the limit of 1024\n", 4 }, { err, code })
    out, _, code = coax_cmd({ "validate", write("chain1000.json", chain(1000)) }, "1")
    assert.are.same({ '{"valid":true}\n', 0 }, { out, code })
  end)

  it("regex steps: ^(a+)+$ on a hostile string in extract, and from Lua", function()
    local hostile = '"' .. string.rep("a", 40) .. 'b"'
    local _, err, code = coax_cmd({ "extract", "--schema", write("re.json", '{"pattern":"^(a+)+$"}') }, hostile)
    assert.are.same({ "coax extract: a regular expression exceeded its step limit\n", 4 }, { err, code })
    local s = assert(coax.schema('{"pattern":"^(a+)+$"}'))
    local ok, msg, name = s:validate(string.rep("a", 40) .. "b")
    assert.are.same({ nil, "a regular expression exceeded its step limit", "COAX_ELIMIT" }, { ok, msg, name })
  end)
end)

describe("limits of scripts and sessions", function()
  -- Runs a recipe with the command: the replies fail twice (so strategies
  -- and feedback run), then succeed.
  local function run_cmd(recipe, ...)
    local path = write("recipe.lua", recipe)
    local out, err, code = coax_cmd({ "run", path, "--replay", dir .. "/replies.jsonl", ... })
    return out, err, code
  end

  -- The same through coax.run: the report.
  local function run_lua(recipe, opts)
    opts = opts or {}
    opts.replies = { "no JSON here", "still none", '{"name": "Ada"}' }
    return coax.run(write("recipe.lua", recipe), "input", opts)
  end

  local function recipe(extra)
    return 'return { schema = "schema.json", prompt = "Who? {{input}}"' .. (extra or "") .. " }"
  end

  local STOPPED = "script stopped: Lua instruction limit %(10000000%) reached"

  describe("Lua instructions: while true do end", function()
    local cases = {
      { "in a recipe", "while true do end", "^coax run: limit: recipe: " },
      { "in a recipe, inside pcall", "pcall(function() while true do end end) return {}", "^coax run: limit: recipe: " },
      { "in a template (the prompt function)", recipe(", prompt = function() while true do end end"):gsub('prompt = "Who%? {{input}}", ', ""),
        "^coax run: limit: prompt: " },
      { "in a template, inside pcall",
        recipe(", prompt = function() pcall(function() while true do end end) return 'x' end"):gsub('prompt = "Who%? {{input}}", ', ""),
        "^coax run: limit: prompt: " },
      { "in a strategy", recipe(", strategy = function() while true do end end"), "^coax run: limit: strategy: " },
      { "in a strategy, inside pcall",
        recipe(", strategy = function() pcall(function() while true do end end) return { { role = 'user', content = 'x' } } end"),
        "^coax run: limit: strategy: " },
      { "in on_submit, inside xpcall",
        recipe(", on_submit = function() xpcall(function() while true do end end, print) return true end"),
        "^coax run: limit: on_submit: " },
    }
    for _, c in ipairs(cases) do
      it(c[1] .. ": exit 4", function()
        local out, err, code = run_cmd(c[2])
        assert.are.equal("", out)
        assert.are.equal(4, code)
        assert.matches(c[3], err)
        assert.matches(STOPPED, err)
      end)
    end

    it("ends the session with outcome limit, the same from Lua", function()
      local r = run_lua(recipe(", strategy = function() pcall(function() while true do end end) end"),
        { lua_instructions = 100000 })
      assert.are.equal("limit", r.outcome)
      assert.are.equal("limit", r.error.code)
      assert.matches("^strategy: script stopped: Lua instruction limit %(100000%) reached", r.error.message)
      assert.are.equal(1, r.metrics.attempts)
    end)
  end)

  describe("Lua memory: string.rep(\"x\", 2^30)", function()
    local cases = {
      { "in a recipe", 'local s = string.rep("x", 2^30) return {}', "coax run: limit: recipe: not enough memory\n" },
      { "in a template", recipe(', prompt = function() return string.rep("x", 2^30) end'):gsub('prompt = "Who%? {{input}}", ', ""),
        "coax run: limit: prompt: not enough memory\n" },
      { "in a strategy, inside pcall",
        recipe(', strategy = function() pcall(string.rep, "x", 2^30) return { { role = "user", content = "x" } } end'),
        "coax run: limit: strategy: not enough memory\n" },
    }
    for _, c in ipairs(cases) do
      it(c[1] .. ": exit 4", function()
        local out, err, code = run_cmd(c[2])
        assert.are.same({ "", c[3], 4 }, { out, err, code })
      end)
    end

    it("a little at a time, inside pcall, ends at the cap with outcome limit", function()
      local r = run_lua([[
        local ok = pcall(function()
          local t = {}
          while true do t[#t + 1] = string.rep("x", 1 << 20) .. #t end
        end)
        return {}]], { lua_memory = 16 << 20 })
      assert.are.same({ "limit", "limit", "recipe: not enough memory" },
        { r.outcome, r.error.code, r.error.message })
      assert.are.equal(0, r.metrics.attempts)
    end)
  end)

  it("token budget: exit 4 before the call that would pass it", function()
    local out, err, code = run_cmd(recipe(", budget = { tokens = 20 }"))
    assert.are.same({ "", 4 }, { out, code })
    -- the estimate itself is the estimator's business (tokens_spec)
    assert.matches("^coax run: limit: token budget of 20 would be passed %(0 used, %d+ more for this call%)\n$", err)
  end)

  it("deadline: exit 4 when it passes while the agent waits", function()
    local out, err, code = run_cmd(recipe(', budget = { deadline_ms = 30 }, agent = { name = "replay", delay_ms = 50 }'))
    assert.are.same({ "", "coax run: limit: the session's deadline passed\n", 4 }, { out, err, code })
  end)
end)
