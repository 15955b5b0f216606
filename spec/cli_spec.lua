--- The command line as a whole (issue 11): every command's --help lists
-- every option its C file parses, with an example; an unknown option, a
-- missing file, a missing or bad value is one line on stderr and exit 2;
-- --version; no colour; and the default agent (a provider chosen by the
-- environment, else the recipe's recorded transcript).
local H = require "helper"
local coax = require "coax"
local json = coax.json

local COMMANDS = { "repair", "validate", "extract", "example", "run", "batch", "tokens" }
local RECIPE = "lua/recipes/contact.lua"
local CARD = '{"full_name":"Grace Hopper","email":"grace.hopper@navy.example","phones":[{"kind":"mobile",'
  .. '"number":"+15550102030"}],"company":"Navy Research Lab","job_title":"Rear Admiral, Computing"}'
local DEMO_NOTICE = "no agent named; replaying the recorded transcript lua/recipes/contact.replies.jsonl (set "
  .. "OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST, or pass --agent, to use a model)"

local function lines(text)
  local t = {}
  for l in text:gmatch("([^\n]*)\n") do t[#t + 1] = l end
  return t
end

--- The options a command's C file parses: the names it gives cli_opt, the
-- names in its option tables, the flags it compares with strcmp, and the
-- shared limit and agent options when it takes them.
local function parsed_options(cmd)
  local src = H.read("engine/cli/" .. cmd .. ".c")
  local opts, seen = {}, {}
  local function add(o)
    if not seen[o] then
      seen[o] = true
      opts[#opts + 1] = o
    end
  end
  local function scan(text)
    for name in text:gmatch('cli_opt%(argc, argv, &?i, "([%w-]+)"') do add("--" .. name) end
    for name in text:gmatch('{"([%w-]+)", &') do add("--" .. name) end
    for flag in text:gmatch('strcmp%([%w_%[%]%*>-]+, "(%-%-?[%w-]+)"%)') do add(flag) end
  end
  scan(src)
  if src:find("cli_limit_opt(", 1, true) then
    for _, o in ipairs { "--max-depth", "--max-input", "--max-string" } do add(o) end
  end
  if src:find("cli_agent_opt(", 1, true) then scan(H.read("engine/cli/agent.c")) end
  table.sort(opts)
  return opts
end

--- True when `text` names `opt` as a whole word (--max-input, not --max-input-x).
local function mentions(text, opt)
  local from = 1
  while true do
    local i, j = text:find(opt, from, true)
    if not i then return false end
    local before, after = text:sub(i - 1, i - 1), text:sub(j + 1, j + 1)
    if not before:match("[%w-]") and not after:match("[%w-]") then return true end
    from = j + 1
  end
end

describe("coax", function()
  it("--help lists every command of cli.c, --version and examples; exit 0", function()
    local out, err, code = H.coax({ "--help" })
    assert.are.same({ "", 0 }, { err, code })
    local listed = {}
    for name in H.read("engine/cli/cli.c"):gmatch('{"(%l+)", cli_%l+, "') do listed[#listed + 1] = name end
    table.sort(listed)
    local expected = { table.unpack(COMMANDS) }
    table.sort(expected)
    assert.are.same(expected, listed) -- this spec covers every command there is
    for _, c in ipairs(COMMANDS) do assert.matches("\n  " .. c .. " +%S", out) end
    assert.is_true(mentions(out, "--version") and mentions(out, "--help") and mentions(out, "-h"))
    assert.matches("\nExamples:\n  coax run lua/recipes/contact%.lua", out)
    local h_out = H.coax({ "-h" })
    assert.are.equal(out, h_out)
  end)

  it("--version prints the version of coax.h", function()
    local version = H.read("engine/include/coax.h"):match('#define COAX_VERSION "([^"]+)"')
    assert.are.same({ "coax " .. version .. "\n", "", 0 }, { H.coax({ "--version" }) })
  end)

  it("help CMD is CMD --help", function()
    for _, c in ipairs(COMMANDS) do
      assert.are.same({ H.coax({ c, "--help" }) }, { H.coax({ "help", c }) })
    end
  end)

  it("says in one line what is wrong with no command, an unknown one or an unknown option; exit 2", function()
    local cases = {
      { {}, "coax: a COMMAND is required: repair, validate, extract, example, run, batch, tokens "
        .. "(try coax --help)\n" },
      { { "frobnicate" }, "coax: unknown command 'frobnicate' (try coax --help)\n" },
      { { "--frobnicate" }, "coax: unknown option '--frobnicate' (try coax --help)\n" },
      { { "help", "frobnicate" }, "coax: unknown command 'frobnicate' (try coax --help)\n" },
    }
    for _, c in ipairs(cases) do
      assert.are.same({ "", c[2], 2 }, { H.coax(c[1]) })
    end
  end)
end)

describe("every command", function()
  -- What a missing file, a missing value and a bad value give, per command.
  local missing = {
    repair = { { { "repair", "/nonexistent/reply.txt" },
      "coax repair: cannot open /nonexistent/reply.txt: No such file or directory" } },
    validate = {
      { { "validate", "/nonexistent/schema.json" },
        "coax validate: cannot open schema /nonexistent/schema.json: No such file or directory" },
      { { "validate", "schemas/contact.schema.json", "/nonexistent/card.json" },
        "coax validate: cannot open /nonexistent/card.json: No such file or directory" },
      { { "validate", "--remote-dir", "/nonexistent", "--remote-base", "https://x.example/",
        "schemas/contact.schema.json", "/nonexistent/card.json" },
        "coax validate: cannot open /nonexistent/card.json: No such file or directory" },
    },
    extract = {
      { { "extract", "--schema", "/nonexistent/schema.json" },
        "coax extract: cannot open schema /nonexistent/schema.json: No such file or directory" },
      { { "extract", "--schema", "schemas/contact.schema.json", "/nonexistent/reply.txt" },
        "coax extract: cannot open /nonexistent/reply.txt: No such file or directory" },
    },
    example = { { { "example", "/nonexistent/schema.json" },
      "coax example: cannot open schema /nonexistent/schema.json: No such file or directory" } },
    tokens = { { { "tokens", "/nonexistent/text.txt" },
      "coax tokens: cannot open /nonexistent/text.txt: No such file or directory" } },
    run = {
      { { "run", "/nonexistent/recipe.lua" },
        "coax run: cannot open recipe /nonexistent/recipe.lua: No such file or directory" },
      { { "run", RECIPE, "--input", "/nonexistent/input.txt" },
        "coax run: cannot open /nonexistent/input.txt: No such file or directory" },
      { { "run", RECIPE, "--replay", "/nonexistent/replies.jsonl" },
        "coax run: cannot open /nonexistent/replies.jsonl: No such file or directory" },
      { { "run", RECIPE, "--report", "/nonexistent/report.json" },
        "coax run: cannot write the report to /nonexistent/report.json: No such file or directory" },
    },
    batch = {
      { { "batch", "/nonexistent/recipe.lua" },
        "coax batch: cannot open recipe /nonexistent/recipe.lua: No such file or directory" },
      { { "batch", RECIPE, "--input", "/nonexistent/in.jsonl" },
        "coax batch: cannot open /nonexistent/in.jsonl: No such file or directory" },
      { { "batch", RECIPE, "--replay", "/nonexistent/replies.jsonl" },
        "coax batch: cannot open /nonexistent/replies.jsonl: No such file or directory" },
      { { "batch", RECIPE, "--output", "/nonexistent/out.jsonl" },
        "coax batch: cannot open /nonexistent/out.jsonl: No such file or directory" },
    },
  }
  local bad = {
    repair = { { { "repair", "--max-depth", "deep" }, "coax repair: --max-depth wants a positive size, not 'deep'" },
      { { "repair", "--max-string" }, "coax repair: option --max-string needs a value" } },
    validate = { { { "validate", "--draft", "5", "s.json" },
      "coax validate: --draft wants 2020-12, 2019-09, 7, 6 or 4, not '5'" },
      { { "validate", "--output", "verbose", "s.json" },
        "coax validate: --output wants flag, basic or detailed, not 'verbose'" } },
    extract = { { { "extract", "--schema", "schemas/contact.schema.json", "--output", "x" },
      "coax extract: --output takes 'basic', not 'x'" },
      { { "extract", "--schema" }, "coax extract: option --schema needs a value" } },
    example = { { { "example", "--depth", "0" }, "coax example: --depth wants a positive number, not '0'" } },
    tokens = { { { "tokens", "--encoding", "ascii" },
      "coax tokens: unknown encoding 'ascii' (o200k, cl100k, llama3, claude, chars4)" },
      { { "tokens", "--max-input", "-1" }, "coax tokens: --max-input wants a positive size, not '-1'" } },
    run = { { { "run", RECIPE, "--max-attempts", "0" },
      "coax run: --max-attempts wants an integer from 1 to 1000000, not '0'" },
      { { "run", RECIPE, "--base-url", "ftp://x" },
        "coax run: --base-url wants an http:// or https:// URL, not 'ftp://x'" },
      { { "run", RECIPE, "--input" }, "coax run: option --input needs a value" } },
    batch = { { { "batch", RECIPE, "--concurrency", "many" },
      "coax batch: --concurrency wants an integer from 1 to 100000, not 'many'" },
      { { "batch", RECIPE, "--max-input", "0" }, "coax batch: --max-input wants a positive size, not '0'" } },
  }

  for _, cmd in ipairs(COMMANDS) do
    describe(cmd, function()
      it("--help exits 0 and explains every option the code parses, with an example", function()
        local out, err, code = H.coax({ cmd, "--help" })
        assert.are.same({ "", 0 }, { err, code })
        assert.matches("^usage: coax " .. cmd .. " ", out)
        local opts = parsed_options(cmd)
        assert.is_true(#opts >= 4, table.concat(opts, " "))
        for _, o in ipairs { "--help", "-h" } do assert.truthy(mentions(table.concat(opts, " "), o)) end
        for _, o in ipairs(opts) do
          assert(mentions(out, o), cmd .. " --help does not mention " .. o)
          -- explained: on a line of the options list that starts with it
          local explained = false
          for _, l in ipairs(lines(out)) do
            explained = explained or (l:match("^  %-") and mentions(l:match("^  (%S+,? ?%S*)") or "", o)
              and #l > 24)
          end
          assert(explained, cmd .. " --help has no line explaining " .. o)
        end
        local example = out:match("\nExample: ([^\n]+)") or out:match("\nExamples:\n  ([^\n]+)")
        assert(example, cmd .. " --help has no example")
        assert.truthy(example:find("coax " .. cmd .. " ", 1, true), example)
        assert.are.same({ out, "", 0 }, { H.coax({ cmd, "-h" }) })
      end)

      it("an unknown option is one line naming it, exit 2", function()
        assert.are.same({ "", "coax " .. cmd .. ": unknown option '--frobnicate' (try --help)\n", 2 },
          { H.coax({ cmd, "--frobnicate" }, "") })
      end)

      it("a missing file is one line naming it, exit 2", function()
        for _, c in ipairs(missing[cmd]) do
          assert.are.same({ "", c[2] .. "\n", 2 }, { H.coax(c[1], "") })
        end
      end)

      it("a missing or bad value is one line naming it, exit 2", function()
        for _, c in ipairs(bad[cmd]) do
          assert.are.same({ "", c[2] .. "\n", 2 }, { H.coax(c[1], "") })
        end
      end)
    end)
  end

  it("writes no colour, even to a terminal, with or without NO_COLOR", function()
    -- No command colours its output (batch's progress only redraws its line
    -- with \r and ESC [K on a terminal); script(1) gives stderr a terminal.
    for _, no_color in ipairs { "", "NO_COLOR=1 " } do
      local cmd = "cd " .. H.quote(os.getenv("PWD") or ".") .. " && printf '" .. '{"id":1,"input":"x"}\\n'
        .. "' | " .. no_color .. H.quote(H.build .. "/coax") .. " batch " .. RECIPE
      local p = assert(io.popen("env -u LD_PRELOAD -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u OLLAMA_HOST "
        .. "script -qec " .. H.quote(cmd) .. " /dev/null 2>&1"))
      local out = p:read("a")
      p:close()
      assert.truthy(out:find('"outcome":"ok"', 1, true), out)
      assert.truthy(out:find("coax batch: 1 lines in", 1, true), out)
      assert.is_nil(out:find("\27%[[%d;]*m"), out)
    end
  end)
end)

describe("the default agent", function()
  local dir

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. H.quote(dir)))
    local f = assert(io.open(dir .. "/person.lua", "w"))
    f:write('return { schema = { type = "object", required = { "name" } }, prompt = "Who: {{input}}" }')
    f:close()
  end)

  teardown(function() os.execute("rm -rf " .. H.quote(dir)) end)

  it("replays the recipe's recorded transcript when no agent is named, says so, and tells each attempt", function()
    local out, err, code = H.coax({ "run", RECIPE, "--input", "lua/recipes/contact.input.txt" })
    assert.are.same({ CARD .. "\n", 0 }, { out, code })
    assert.are.same({
      "coax run: " .. DEMO_NOTICE,
      "coax run: attempt 1: repaired (fenced_block, unquoted_key, single_quotes, trailing_comma); coerced "
        .. "(enum_match at /phones/0/kind); 1 schema error, at /phones/0/number: expected a string matching "
        .. '"^\\\\+[1-9][0-9]{7,14}$", got "+1 555 010 2030"; fed back, asking again',
      "coax run: attempt 2: 1 schema error, at /phones/0/number: expected string, got number 15550102030; "
        .. "fed back, asking again",
      "coax run: attempt 3: valid, accepted",
    }, lines(err))
  end)

  it("shows on the invoice a repair and a rejection, then a type error, then the invoice", function()
    local out, err, code = H.coax({ "run", "lua/recipes/invoice.lua", "--input", "lua/recipes/invoice.input.txt" })
    assert.are.equal(0, code)
    assert.are.equal(231, json.decode(out).total)
    assert.are.same({
      "coax run: no agent named; replaying the recorded transcript lua/recipes/invoice.replies.jsonl (set "
        .. "OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST, or pass --agent, to use a model)",
      "coax run: attempt 1: repaired (fenced_block, trailing_comma, comment); rejected by the recipe: total 219.00 "
        .. "does not equal the sum of the items with tax, 231.00; fed back, asking again",
      "coax run: attempt 2: repaired (fenced_block); 1 schema error, at /total: expected number, got string "
        .. '"$231.00"; fed back, asking again',
      "coax run: attempt 3: valid, accepted",
    }, lines(err))
  end)

  it("each shipped transcript goes: fenced and broken, a type error after feedback, then right", function()
    for _, name in ipairs { "contact", "invoice" } do
      local report = os.tmpname()
      local _, err, code = H.coax({ "run", "lua/recipes/" .. name .. ".lua", "--input",
        "lua/recipes/" .. name .. ".input.txt", "--report", report })
      assert.are.equal(0, code, err)
      local r = json.decode(H.assert_report(H.read(report)))
      os.remove(report)
      local a = r.attempts
      assert.are.equal(3, #a)
      assert.truthy(a[1].reply:find("```json\n", 1, true))
      local kinds = {}
      for _, e in ipairs(a[1].log) do kinds[e.kind] = true end
      assert.is_true(kinds.fenced_block and kinds.trailing_comma, name)
      assert.are.same({ name == "invoice" and "rejected" or "invalid", "invalid", "ok" },
        { a[1].outcome, a[2].outcome, a[3].outcome })
      assert.are.equal(1, #a[2].errors)
      assert.matches("/type$", a[2].errors[1].keywordLocation)
      local feedback = a[2].feedback -- the type error, fed back
      assert.are.equal(feedback, a[3].messages[#a[3].messages].content)
      assert.truthy(feedback:find(a[2].errors[1].error, 1, true), feedback)
    end
  end)

  it("replays it in batch too, for every line", function()
    local input = '{"id": 1, "input": "a"}\n{"id": 2, "input": "b"}\n'
    local out, err, code = H.coax({ "batch", RECIPE, "--quiet" }, input)
    assert.are.same({ "", 0 }, { err, code }) -- --quiet silences the notice too
    local _, loud = H.coax({ "batch", RECIPE }, input)
    assert.matches("^coax batch: " .. DEMO_NOTICE:gsub("%p", "%%%0") .. "\n", loud)
    for i, l in ipairs(lines(out)) do
      local r = json.decode(l)
      assert.are.same({ i, "ok", 3, CARD }, { r.id, r.outcome, r.metrics.attempts, json.encode(r.value) })
    end
  end)

  it("is an error naming the transcript when the recipe has none: exit 2 before any call", function()
    local recipe = dir .. "/person.lua"
    local msg = recipe .. " names no agent and has no recorded transcript " .. dir .. "/person.replies.jsonl: "
      .. "pass --agent (openai, anthropic, gemini, ollama), --replay FILE (replies, one JSON string a line) "
      .. "or --command CMD (a local program), or set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST\n"
    assert.are.same({ "", "coax run: " .. msg, 2 }, { H.coax({ "run", recipe }) })
    local out_path = dir .. "/out.jsonl"
    assert.are.same({ "", "coax batch: " .. msg, 2 },
      { H.coax({ "batch", recipe, "--output", out_path }, '{"id": 1, "input": "x"}\n') })
    assert.is_nil(io.open(out_path)) -- OUT is never opened
  end)

  it("is the provider of the first of OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OLLAMA_HOST set", function()
    -- Nothing listens on port 1: the agent's own error shows which one ran.
    local fast = { "--max-attempts", "1", "--agent-options", '{"max_retries": 0}' }
    local cases = {
      { { OPENAI_API_KEY = "key1", ANTHROPIC_API_KEY = "key2", OLLAMA_HOST = "127.0.0.1:1" }, "openai",
        "OPENAI_API_KEY" },
      { { OPENAI_API_KEY = "", ANTHROPIC_API_KEY = "key2", GEMINI_API_KEY = "key3", OLLAMA_HOST = "127.0.0.1:1" },
        "anthropic", "ANTHROPIC_API_KEY" },
      { { ANTHROPIC_API_KEY = "", GEMINI_API_KEY = "key3", OLLAMA_HOST = "127.0.0.1:1" }, "gemini", "GEMINI_API_KEY" },
      { { OLLAMA_HOST = "http://127.0.0.1:1" }, "ollama", "OLLAMA_HOST" },
    }
    for _, c in ipairs(cases) do
      local args = { "run", RECIPE, table.unpack(fast) }
      if c[2] ~= "ollama" then table.insert(args, 3, "--base-url=http://127.0.0.1:1") end
      local out, err, code = H.coax(args, nil, c[1])
      assert.are.same({ "", 3 }, { out, code })
      local l = lines(err)
      assert.are.equal(2, #l, err)
      assert.are.equal("coax run: no agent named; using " .. c[2] .. ", since " .. c[3]
        .. " is set (--agent chooses another)", l[1])
      assert.matches("^coax run: agent_error: " .. c[2] .. " agent: ", l[2])
    end
    local _, err, code = H.coax({ "batch", RECIPE, "--quiet", "--base-url", "http://127.0.0.1:1",
      "--max-attempts", "1", "--agent-options", '{"max_retries": 0}' }, '{"id": 1, "input": "x"}\n',
      { OPENAI_API_KEY = "key1" })
    assert.are.same({ "", 1 }, { err, code }) -- --quiet: no notice
  end)

  it("never overrides an agent named on the command line or in the recipe", function()
    local env = { OPENAI_API_KEY = "key1", ANTHROPIC_API_KEY = "key2", OLLAMA_HOST = "127.0.0.1:1" }
    local replies = H.tmpfile('"{\\"name\\": \\"Ada\\"}"\n')
    for _, args in ipairs {
      { "run", dir .. "/person.lua", "--replay", replies },
      { "run", dir .. "/person.lua", "--agent", "replay", "--agent-options",
        '{"replies": ["{\\"name\\": \\"Ada\\"}"]}' },
      { "run", dir .. "/person.lua", "--agent-options", '{"name": "replay", "replies": ["{\\"name\\": \\"Ada\\"}"]}' },
    } do
      assert.are.same({ '{"name":"Ada"}\n', "", 0 }, { H.coax(args, nil, env) })
    end
    os.remove(replies)
    local named = dir .. "/named.lua"
    local f = assert(io.open(named, "w"))
    f:write('return { schema = { type = "object" }, prompt = "x", agent = { name = "replay", replies = { "{}" } } }')
    f:close()
    assert.are.same({ "{}\n", "", 0 }, { H.coax({ "run", named }, nil, env) })
    assert.are.same({ '{"id":1,"outcome":"ok","value":{},"class":"lossless"}', "", 0 },
      { (H.coax({ "batch", named, "--quiet" }, '{"id": 1, "input": "x"}\n', env)):gsub(',"metrics":.*', "}"), "", 0 })
  end)
end)

describe("the host's fallback agent (runtime.lua)", function()
  local dir

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. H.quote(dir)))
  end)

  teardown(function() os.execute("rm -rf " .. H.quote(dir)) end)

  local function run(agent, fallback)
    local path = dir .. "/r.lua"
    local f = assert(io.open(path, "w"))
    f:write('return { schema = { type = "object" }, prompt = "x"' .. (agent or "") .. " }")
    f:close()
    return coax.run(path, "", { agent_options = { fallback = fallback } })
  end

  it("is the agent when neither the recipe nor the host names one", function()
    local r = run(nil, { name = "replay", replies = { '{"a": 1}' } })
    assert.are.same({ "ok", '{"a":1}' }, { r.outcome, json.encode(r.value) })
  end)

  it("is ignored when the recipe names one", function()
    local r = run(', agent = { name = "replay", replies = { "{}" } }', { name = "no_such_agent" })
    assert.are.same({ "ok", "{}" }, { r.outcome, json.encode(r.value) })
    r = run(', agent = { call = function() return { text = "[]" } end }', "never raised")
    assert.are.same({ "exhausted" }, { r.outcome }) -- [] is no object, but the recipe's agent answered
  end)

  it("as a string, makes the session invalid with that message when it would be used", function()
    local r = run(nil, "name an agent")
    assert.are.same({ "invalid", "invalid_recipe", "name an agent" }, { r.outcome, r.error.code, r.error.message })
    assert.are.equal(0, r.metrics.attempts)
  end)
end)

describe("README.md", function()
  local readme = H.read("README.md")

  it("opens with the two set-up commands, then what the demo prints, exactly", function()
    local first = readme:match("```sh\n(.-)```")
    assert.are.equal("make deps && make && build/coax run lua/recipes/contact.lua --input "
      .. "lua/recipes/contact.input.txt\nmake test      # every test: ends \"N passed, N failed\"\n", first)
    local shown = readme:match("```sh\n.-```.-```\n(.-)```")
    local out, err, code = H.coax({ "run", RECIPE, "--input", "lua/recipes/contact.input.txt" })
    assert.are.equal(0, code)
    assert.are.equal(err .. out, shown)
  end)

  it("shows lua/recipes/contact.lua as it is", function()
    local recipe = readme:match("\n## Writing a recipe\n.-```lua\n(.-)```")
    local file = H.read(RECIPE)
    assert.are.equal(file:sub((file:find("return {", 1, true))), recipe)
  end)

  it("embeds from C with examples/blocking.c, which make test builds and runs", function()
    local c = readme:match("\n## Embedding from C\n.-```c\n(.-)```")
    assert.are.equal(H.read("examples/blocking.c"), c)
  end)
end)
