-- The layout of engine/ (spec/layout.lua): includes name a header with its
-- folder and go only where the rule table lets them; no cycle between files
-- in includes or calls (calls read with `nm` from the objects of the build
-- under test); no file too long to read; no two archive members of one
-- name; and the README shows the rule table the checks use. Each check is
-- first run on small made-up trees, with a twin that must fail, so a check
-- that passes the real tree is known to be able to fail.
local H = require "helper"
local L = require "layout"

local RULES = {
  base = {},
  json = { "base" },
  regex = { "base" },
  schema = { "base", "json", "regex" },
}

describe("the layout checks, on made-up trees", function()
  local tree = {
    ["engine/include/coax.h"] = "#include <stddef.h>\n",
    ["engine/base/core.h"] = '/* core */\n#include "coax.h"\n',
    ["engine/json/value.c"] = '#include "base/core.h"\n',
    ["engine/regex/regex.h"] = '#include "base/core.h"\n',
    ["engine/schema/schema.h"] = '#include "regex/regex.h"\n#include "base/core.h"\n',
    ["engine/schema/compile.c"] = '#include "schema/schema.h"\n  # include "json/nothing_else.h"\n',
  }
  tree["engine/json/nothing_else.h"] = ""
  local rules = { include = {}, base = {}, json = { "base" }, regex = { "base" },
    schema = { "base", "json", "regex" } }

  it("take includes that name an existing header with its folder, where the rules allow", function()
    assert.are.same({}, L.include_problems(tree, rules))
  end)

  it("name an include without its folder, of a missing header, or to a folder the rules forbid", function()
    local twin = {}
    for k, v in pairs(tree) do twin[k] = v end
    twin["engine/json/value.c"] = '#include "base/core.h"\n#include "core.h"\n#include "base/gone.h"\n'
      .. '#include "regex/regex.h"\n'
    twin["engine/regex/regex.c"] = '#include "regex/../json/nothing_else.h"\n'
    assert.are.same({
      'engine/json/value.c:2: "core.h" is not a header named with its folder (FOLDER/NAME.h)',
      'engine/json/value.c:3: "base/gone.h" does not exist',
      'engine/json/value.c:4: json may not include regex ("regex/regex.h")',
      'engine/regex/regex.c:1: "regex/../json/nothing_else.h" is not a header named with its folder (FOLDER/NAME.h)',
    }, L.include_problems(twin, rules))
    assert.are.same({ 'engine/json/value.c:1: folder json is not in the rule table' },
      L.include_problems({ ["engine/json/value.c"] = '#include "base/core.h"\n',
        ["engine/base/core.h"] = "" }, { base = {} }))
  end)

  it("find no cycle in a graph without one, and each cycle with the symbols that make it", function()
    local edges = {
      { from = "engine/a/a.c", to = "engine/b/b.c", via = { "b_one" } },
      { from = "engine/b/b.c", to = "engine/c/c.c", via = { "c_one", "c_two" } },
      { from = "engine/a/a.c", to = "engine/c/c.c", via = { "c_one" } },
      { from = "engine/d/d.c", to = "engine/a/a.c", via = { "a_one" } },
    }
    assert.are.same({}, L.cycles(edges))
    -- the twin: c calls back into a, and e and f include each other
    edges[#edges + 1] = { from = "engine/c/c.c", to = "engine/a/a.c", via = { "a_two" } }
    edges[#edges + 1] = { from = "engine/e/e.h", to = "engine/f/f.h", via = { '#include "f/f.h"' } }
    edges[#edges + 1] = { from = "engine/f/f.h", to = "engine/e/e.h", via = { '#include "e/e.h"' } }
    local found = L.cycles(edges)
    assert.are.same({
      { "engine/a/a.c", "engine/b/b.c", "engine/c/c.c" },
      { "engine/e/e.h", "engine/f/f.h" },
    }, { found[1].files, found[2].files })
    assert.are.equal(table.concat({
      "cycle of 3 files: engine/a/a.c, engine/b/b.c, engine/c/c.c",
      "  engine/a/a.c -> engine/b/b.c: b_one",
      "  engine/a/a.c -> engine/c/c.c: c_one",
      "  engine/b/b.c -> engine/c/c.c: c_one, c_two",
      "  engine/c/c.c -> engine/a/a.c: a_two",
      "cycle of 2 files: engine/e/e.h, engine/f/f.h",
      '  engine/e/e.h -> engine/f/f.h: #include "f/f.h"',
      '  engine/f/f.h -> engine/e/e.h: #include "e/e.h"',
    }, "\n"), L.describe_cycles(found))
  end)

  it("read calls from nm listings, and find a cycle made of an include and a call", function()
    local listings = {
      ["engine/json/value.c"] = "json_get T 0 10\ncoax_alloc U\nmemcpy U\nlocal_helper t 10 4\n",
      ["engine/base/alloc.c"] = "coax_alloc T 0 20\ncoax_arena D 0 8\njson_get U\n",
      ["engine/schema/compile.c"] = "compile T 0 9\njson_get U\ncoax_arena U\ncoax_alloc U\n",
    }
    local edges = L.call_edges(listings)
    assert.are.same({
      { from = "engine/base/alloc.c", to = "engine/json/value.c", via = { "json_get" } },
      { from = "engine/json/value.c", to = "engine/base/alloc.c", via = { "coax_alloc" } },
      { from = "engine/schema/compile.c", to = "engine/base/alloc.c", via = { "coax_alloc", "coax_arena" } },
      { from = "engine/schema/compile.c", to = "engine/json/value.c", via = { "json_get" } },
    }, edges)
    assert.are.same({ { "engine/base/alloc.c", "engine/json/value.c" } },
      (function()
        local out = {}
        for _, c in ipairs(L.cycles(edges)) do out[#out + 1] = c.files end
        return out
      end)())
    assert.are.same({ "engine/base/alloc.c -> engine/json/value.c (base may not reach json): json_get" },
      L.call_problems(edges, rules))
    -- a header that includes a file whose code calls back: one cycle across both graphs
    local mixed = L.include_edges({ ["engine/base/core.h"] = '#include "json/value.c"\n',
      ["engine/json/value.c"] = "" })
    mixed[#mixed + 1] = { from = "engine/json/value.c", to = "engine/base/core.h", via = { "core_thing" } }
    assert.are.same({ "engine/base/core.h", "engine/json/value.c" }, L.cycles(mixed)[1].files)
  end)

  it("let calls go as far down as the rules reach, through another folder", function()
    local edges = { { from = "engine/schema/compile.c", to = "engine/base/alloc.c", via = { "coax_alloc" } } }
    assert.are.same({}, L.call_problems(edges, { schema = { "json" }, json = { "base" }, base = {} }))
    assert.are.same({ "engine/schema/compile.c -> engine/base/alloc.c (schema may not reach base): coax_alloc" },
      L.call_problems(edges, { schema = { "json" }, json = {}, base = {} }))
  end)

  it("allow 1,000 lines, and more only in a generated table", function()
    local function lines(n, head) return (head or "") .. ("x\n"):rep(n - (head and 1 or 0)) end
    assert.are.same({}, L.size_problems({ ["engine/a/a.c"] = lines(1000) }, 1000))
    assert.are.same({}, L.size_problems({ ["engine/a/t.c"] = lines(1001, "/* GENERATED by gen.lua. Do not edit. */\n"),
      ["engine/a/u.h"] = lines(1001, "/* Generated by gen.py: do not edit. */\n") }, 1000))
    assert.are.same({
      "engine/a/a.c: 1001 lines (at most 1000, or a generated table)",
      "engine/a/g.c: 1001 lines (at most 1000, or a generated table)",
    }, L.size_problems({ ["engine/a/a.c"] = lines(1000) .. "a last line without its newline",
      ["engine/a/g.c"] = lines(1001, "/* the generated examples */\n") }, 1000))
  end)

  it("refuse two library files of one name, and allow a name the command or the Lua module repeats", function()
    assert.are.same({}, L.basename_problems({ ["engine/schema/validate.c"] = "", ["engine/cli/validate.c"] = "",
      ["engine/lua/validate.c"] = "", ["engine/schema/schema.h"] = "", ["engine/json/schema.h"] = "" }))
    assert.are.same({ "scan.c: engine/repair/scan.c, engine/schema/scan.c" },
      L.basename_problems({ ["engine/repair/scan.c"] = "", ["engine/schema/scan.c"] = "" }))
  end)

  it("read the README's rule table, and say how it differs from another", function()
    local readme = table.concat({
      "## Layout", "",
      "| folder | may include |",
      "| --- | --- |",
      "| `base` | nothing |",
      "| `json` | `base` |",
      "| `regex` | `base` |",
      "| `schema` | `base`, `json`, `regex` |",
      "", "text",
    }, "\n")
    local read = L.readme_rules(readme)
    assert.are.same(RULES, read)
    assert.are.same({}, L.rules_differences(RULES, read, "layout.lua", "README"))
    local twin = L.readme_rules(readme:gsub("`base`, `json`, `regex`", "`base`, `regex`, `tokens`"))
    assert.are.same({ "schema: layout.lua alone allows {json}, README alone allows {tokens}" },
      L.rules_differences(RULES, twin, "layout.lua", "README"))
    twin = L.readme_rules(readme:gsub("| `regex` | `base` |\n", ""))
    assert.are.same({ "regex: only in layout.lua" }, L.rules_differences(RULES, twin, "layout.lua", "README"))
    assert.are.same(L.RULES.lua,
      L.readme_rules("| folder | may include |\n|---|---|\n| `lua` | all but `cli` |\n").lua)
  end)

  it("read the files the README's Layout names, folder by folder", function()
    local readme = table.concat({
      "## Layout of the repository", "", "```",
      "engine/json/      values: value.c (reading), parse.c, the RFC 8259",
      "                  parser; edit.c and dedupe.h",
      "spec/             busted specs (*_spec.lua), layout.lua",
      "lua/coax/agents/  openai.lua, gemini.lua; not openai.lua.bak nor x.cpp",
      "```", "", "## Next", "engine/json/ gone.c",
    }, "\n")
    local files, folders = L.readme_files(readme)
    local paths = {}
    for _, f in ipairs(files) do paths[#paths + 1] = f.path end
    assert.are.same({ "engine/json/value.c", "engine/json/parse.c", "engine/json/edit.c", "engine/json/dedupe.h",
      "lua/coax/agents/openai.lua", "lua/coax/agents/gemini.lua" }, paths)
    assert.are.same({ "engine/json/", "lua/coax/agents/" }, folders)
  end)
end)

describe("engine/", function()
  local tree = L.read_tree()

  it("has every folder of the rule table, and no other", function()
    local folders = {}
    for path in pairs(tree) do folders[(L.split(path))] = true end
    local rules = {}
    for folder in pairs(L.RULES) do rules[folder] = true end
    assert.are.same(rules, folders)
  end)

  it("includes only headers named with their folder that exist, where the rule table allows", function()
    assert.are.same({}, L.include_problems(tree, L.RULES))
  end)

  it("has its rule table in the README, as spec/layout.lua has it", function()
    local readme = L.readme_rules(H.read("README.md"))
    assert.are.same({}, L.rules_differences(L.RULES, readme, "spec/layout.lua", "README.md"))
  end)

  it("has every file the README's Layout names, and a line there for each of its folders", function()
    local files, folders = L.readme_files(H.read("README.md"))
    local missing = {}
    for _, f in ipairs(files) do
      local probe = io.open(f.path, "rb")
      if probe then probe:close() else missing[#missing + 1] = f.path end
    end
    assert.are.same({}, missing)
    local described = {}
    for _, folder in ipairs(folders) do described[folder] = true end
    local undescribed = {}
    for _, folder in ipairs(L.FOLDERS) do
      if not described["engine/" .. folder .. "/"] then undescribed[#undescribed + 1] = folder end
    end
    assert.are.same({}, undescribed)
  end)

  it("has no cycle between files, in includes or in calls (nm of the build's objects)", function()
    local listings, missing = L.read_objects(tree, H.build)
    assert.are.same({}, missing)
    local edges = L.include_edges(tree)
    for _, e in ipairs(L.call_edges(listings)) do edges[#edges + 1] = e end
    local found = L.cycles(edges)
    assert.are.equal("", L.describe_cycles(found))
  end)

  it("calls from one folder only into folders the rule table lets it reach", function()
    local listings = L.read_objects(tree, H.build)
    assert.are.same({}, L.call_problems(L.call_edges(listings), L.RULES))
  end)

  it("has no file over 1,000 lines but generated tables", function()
    assert.are.same({}, L.size_problems(tree, L.MAX_LINES))
  end)

  it("has no two files of libcoax with one name", function()
    assert.are.same({}, L.basename_problems(tree))
  end)

  it("has the meta-schemas its generator writes (make meta, part of make tables)", function()
    local embed = assert(io.popen("lua5.4 schemas/meta/embed.lua"))
    local written = embed:read("a")
    assert.is_true(embed:close())
    assert.is_true(written == tree["engine/schema/meta.c"], "engine/schema/meta.c differs from what "
      .. "schemas/meta/embed.lua writes: run make meta")
  end)
end)
