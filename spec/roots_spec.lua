-- A recipe names files (its schema) only within its own folder, the
-- project's schemas/ and the folders its host allows; paths are resolved
-- (symlinks, "..") before the check, and a refused file is never opened.
local H = require "helper"
local coax = require "coax"

local SCHEMA = '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}'
local root, recipes, outside, project_schemas

local function pattern(s) return (s:gsub("%p", "%%%0")) end

local function realpath(p)
  local f = assert(io.popen("realpath " .. H.quote(p)))
  local r = f:read("l")
  f:close()
  return r
end

-- Writes recipes/NAME.lua naming `schema` and runs it with the replay agent.
local function run_cli(name, schema, extra)
  local path = recipes .. "/" .. name .. ".lua"
  H.write(path, ("return { schema = %q, prompt = 'n of {{input}}' }"):format(schema))
  local reply = H.tmpfile('"{\\"n\\": 1}"\n')
  local args = { "run", path, "--replay", reply }
  for _, a in ipairs(extra or {}) do args[#args + 1] = a end
  local out, err, code = H.coax(args)
  os.remove(reply)
  return out, err, code
end

setup(function()
  root = realpath(H.tmpdir())
  recipes = root .. "/recipes"
  outside = root .. "/outside"
  os.execute("mkdir -p " .. H.quote(recipes .. "/sub") .. " " .. H.quote(outside) .. " "
    .. H.quote(root .. "/recipesX"))
  H.write(recipes .. "/schema.json", SCHEMA)
  H.write(recipes .. "/sub/schema.json", SCHEMA)
  -- a file outside that parses as a schema and would quote its content in an error
  H.write(outside .. "/auth.json", '{"type": "SECRET-TOKEN-1234"}')
  H.write(outside .. "/ok.json", SCHEMA)
  H.write(root .. "/recipesX/schema.json", SCHEMA)
  os.execute("ln -s " .. H.quote(outside .. "/auth.json") .. " " .. H.quote(recipes .. "/link.json"))
  os.execute("ln -s " .. H.quote(outside) .. " " .. H.quote(recipes .. "/linkdir"))
  os.execute("mkfifo " .. H.quote(outside .. "/fifo.json"))
  project_schemas = realpath("schemas")
end)

teardown(function() H.rmtree(root) end)

describe("a recipe's schema path", function()
  it("may name a file in the recipe's folder or below it", function()
    local out, err, code = run_cli("here", "schema.json")
    assert.are.same({ '{"n":1}\n', 0 }, { out, code }, err)
    out, err, code = run_cli("below", "sub/schema.json")
    assert.are.same({ '{"n":1}\n', 0 }, { out, code }, err)
    out, err, code = run_cli("dotted", "sub/../schema.json")
    assert.are.same({ '{"n":1}\n', 0 }, { out, code }, err)
    out, err, code = run_cli("absolute", recipes .. "/schema.json")
    assert.are.same({ '{"n":1}\n', 0 }, { out, code }, err)
  end)

  it("may name the project's schemas/ folder, as the shipped recipes do", function()
    local out, err, code = H.coax({ "run", "lua/recipes/contact.lua", "--input", "lua/recipes/contact.input.txt" })
    assert.are.equal(0, code, err)
    assert.matches('"full_name":"Grace Hopper"', out)
    -- from another folder too: the schemas beside the scripts' lua/ folder
    local r = coax.run(realpath("lua/recipes/invoice.lua"), H.read("lua/recipes/invoice.input.txt"),
      { replies = { (H.read("lua/recipes/invoice.replies.jsonl"):match("^[^\n]*")) } })
    assert.are_not.equal("invalid", r.outcome)
  end)

  local escapes = {
    { "a parent folder", function() return "../outside/auth.json" end },
    { "an absolute path", function() return outside .. "/auth.json" end },
    { "a symlink that leaves the folder", function() return "link.json" end },
    { "a path through a symlinked folder", function() return "linkdir/auth.json" end },
    { "a sibling folder whose name starts like the recipe's", function() return "../recipesX/schema.json" end },
    { "a system file", function() return "/etc/passwd" end },
  }
  for _, case in ipairs(escapes) do
    it("is refused (exit 2, nothing quoted) when it names " .. case[1], function()
      local name = case[2]()
      local out, err, code = run_cli("escape", name)
      assert.are.same({ "", 2 }, { out, code })
      assert.matches("^coax run: invalid: schema path " .. pattern(name) .. " resolves to ", err)
      assert.matches("outside the folders a recipe may read %(the recipe's folder " .. pattern(recipes) .. ", "
        .. pattern(project_schemas) .. "%); the host allows more with %-%-allow%-dir or allow_dirs\n$", err)
      assert.is_nil(err:find("SECRET", 1, true))
    end)
  end

  it("is refused without opening the file (a FIFO would block a reader)", function()
    local t0 = os.time()
    local _, err, code = run_cli("fifo", "../outside/fifo.json")
    assert.are.equal(2, code)
    assert.matches("resolves to " .. pattern(outside .. "/fifo.json") .. ", outside", err)
    assert.is_true(os.time() - t0 < 5)
  end)

  it("inside the folder, is read only when it is a regular file, and only up to --max-input", function()
    -- a FIFO in the recipe's own folder (a recipe archive may hold one) would block forever
    os.execute("mkfifo " .. H.quote(recipes .. "/fifo.json"))
    os.execute("mkdir -p " .. H.quote(recipes .. "/dir.json"))
    local t0 = os.time()
    local out, err, code = run_cli("fifo_inside", "fifo.json")
    assert.are.same({ "", "coax run: invalid: cannot open schema " .. recipes .. "/fifo.json: not a regular file\n",
      2 }, { out, err, code })
    assert.is_true(os.time() - t0 < 5)
    out, err, code = run_cli("dir_inside", "dir.json")
    assert.are.same({ "", "coax run: invalid: cannot open schema " .. recipes .. "/dir.json: not a regular file\n",
      2 }, { out, err, code })
    -- a file over the input limit is a limit, read no further than it
    out, err, code = run_cli("big", "schema.json", { "--max-input", "16" })
    assert.are.same({ "", "coax run: limit: schema " .. recipes .. "/schema.json is larger than the limit of 16 bytes "
      .. "(max_input)\n", 4 }, { out, err, code })
    out, err, code = run_cli("fits", "schema.json", { "--max-input", tostring(#SCHEMA) })
    assert.are.same({ '{"n":1}\n', 0 }, { out, code }, err)
  end)

  it("reaches a folder the host allows with --allow-dir (repeatable), and only that one", function()
    local out, err, code = run_cli("allowed", "../outside/ok.json", { "--allow-dir", outside })
    assert.are.same({ '{"n":1}\n', 0 }, { out, code }, err)
    out, err, code = run_cli("allowed2", "../outside/ok.json",
      { "--allow-dir", root .. "/recipesX", "--allow-dir", outside })
    assert.are.same({ '{"n":1}\n', 0 }, { out, code }, err)
    out, err, code = run_cli("other", "../outside/ok.json", { "--allow-dir", root .. "/recipesX" })
    assert.are.same({ "", 2 }, { out, code })
    assert.matches(pattern(root .. "/recipesX") .. "%); the host", err)
  end)

  it("is a usage error when an allowed folder does not exist", function()
    local _, err, code = run_cli("nodir", "schema.json", { "--allow-dir", root .. "/nope" })
    assert.are.same({ "coax run: cannot allow the folder " .. root .. "/nope: No such file or directory\n", 2 },
      { err, code })
  end)

  it("names the path and the reason when the file is missing", function()
    local _, err, code = run_cli("missing", "missing.json")
    assert.are.same({ "coax run: invalid: cannot open schema " .. recipes
      .. "/missing.json: No such file or directory\n", 2 }, { err, code })
  end)

  it("an invalid schema file in the folder is reported by place and rule, its values not quoted", function()
    H.write(recipes .. "/bad_type.json", '{"type": "SECRET-1"}')
    H.write(recipes .. "/bad_enum.json", '{"properties": {"a": {"enum": "SECRET-2"}}}')
    local _, err, code = run_cli("bad_type", "bad_type.json")
    assert.are.same({ "coax run: invalid: schema " .. recipes .. '/bad_type.json: invalid schema at "/type": expected '
      .. 'one of ["array","boolean","integer","null","number","object","string"] (1 of 3 errors shown)\n', 2 },
      { err, code })
    _, err, code = run_cli("bad_enum", "bad_enum.json")
    assert.are.same({ "coax run: invalid: schema " .. recipes .. '/bad_enum.json: invalid schema at '
      .. '"/properties/a/enum": expected array (1 error)\n', 2 }, { err, code })
  end)

  it("is confined in batch as in run", function()
    local path = recipes .. "/batch.lua"
    H.write(path, "return { schema = '../outside/ok.json', prompt = 'n of {{input}}' }")
    local line = '{"id": 1, "input": "x", "r": ["{\\"n\\": 1}"]}\n'
    local _, err, code = H.coax({ "batch", path, "--replies-field", "r", "--quiet" }, line)
    assert.are.equal(2, code)
    assert.matches("schema path %.%./outside/ok%.json resolves to", err)
    local out
    out, err, code = H.coax({ "batch", path, "--replies-field", "r", "--quiet", "--allow-dir", outside }, line)
    assert.are.equal(0, code, err)
    assert.matches('"value":{"n":1}', out)
  end)

  it("is confined in coax.run and coax.engine, with allow_dirs as a folder or a list", function()
    local path = recipes .. "/lua.lua"
    H.write(path, "return { schema = '../outside/ok.json', prompt = 'n of {{input}}' }")
    local r = coax.run(path, "x", { replies = { '{"n": 1}' } })
    assert.are.equal("invalid", r.outcome)
    assert.are.equal("invalid_schema", r.error.code)
    assert.matches("outside the folders a recipe may read", r.error.message)
    r = coax.run(path, "x", { replies = { '{"n": 1}' }, allow_dirs = outside })
    assert.are.same({ "ok", 1 }, { r.outcome, r.value.n })
    r = coax.run(path, "x", { replies = { '{"n": 1}' }, allow_dirs = { root .. "/recipesX", outside } })
    assert.are.equal("ok", r.outcome)
    local e = coax.engine { allow_dirs = { outside } }
    local s = e:session(path, "x", { replies = { '{"n": 1}' } })
    assert.are.equal("ok", s:run())
    e:close()
    assert.has_error(function() coax.run(path, "x", { allow_dirs = { 12 } }) end)
    assert.has_error(function() coax.engine { allow_dirs = root .. "/nope" } end,
      "COAX_EIO: cannot allow the folder " .. root .. "/nope: No such file or directory")
  end)

  it("has no folder of its own when the recipe is text: only the allowed folders", function()
    local src = ("return { schema = %q, prompt = 'x' }"):format(recipes .. "/schema.json")
    local r = coax.run(src, "x", { source = true, replies = { '{"n": 1}' } })
    assert.are.equal("invalid", r.outcome)
    assert.matches("outside the folders a recipe may read %(" .. pattern(project_schemas) .. "%)", r.error.message)
    r = coax.run(src, "x", { source = true, replies = { '{"n": 1}' }, allow_dirs = recipes })
    assert.are.equal("ok", r.outcome)
  end)
end)
