--- The layout of engine/: which folder may include which (RULES, the one
-- copy of the table; the README's "Layout of the repository" shows it and
-- spec/layout_spec.lua holds the two equal), and the checks the spec runs
-- over the tree and the build. Each check takes its input as data (file
-- texts, `nm` listings, edges), so the spec can feed it small made-up trees
-- as well as the real one, and returns the problems it found as sentences
-- (an empty list when there are none).
local L = {}

--- Folders lowest first. A file may include the headers of its own folder,
-- "coax.h", and those of the folders RULES lists for its folder.
L.FOLDERS = { "include", "base", "json", "regex", "tokens", "io", "schema", "repair", "extract", "stream", "example",
  "script", "session", "lua", "cli" }

local function all_but(...)
  local out, skip = {}, {}
  for _, f in ipairs({ ... }) do skip[f] = true end
  for _, f in ipairs(L.FOLDERS) do
    if not skip[f] then out[#out + 1] = f end
  end
  return out
end

L.RULES = {
  include = {},
  base = {},
  json = { "base" },
  regex = { "base" },
  tokens = { "base" },
  io = { "base" }, -- curl and child processes: no Lua, no session
  schema = { "base", "json", "regex" },
  repair = { "base", "json" },
  extract = { "base", "json", "repair", "schema" },
  stream = { "base", "json", "repair", "schema", "extract" },
  example = { "base", "json", "regex", "schema" },
  script = { "base", "json", "regex", "schema", "repair", "extract", "example", "tokens" }, -- never io, session
  session = { "base", "json", "regex", "tokens", "io", "schema", "repair", "extract", "stream", "example", "script" },
  lua = all_but("include", "lua", "cli"),
  cli = all_but("include", "cli", "lua"),
}

-- Over this many lines a file of the engine is too long to read as one
-- concern, unless it is a generated table.
L.MAX_LINES = 1000

local function set_of(list)
  local s = {}
  for _, v in ipairs(list) do s[v] = true end
  return s
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

--- "engine/json/parse.c" -> "json", "parse.c"
local function split(path)
  return path:match("^engine/([^/]+)/([^/]+)$")
end
L.split = split

---------------------------------------------------------------------------
-- Reading the real tree and the build

--- The engine's sources: {["engine/json/parse.c"] = text, ...}.
function L.read_tree()
  local tree = {}
  local list = assert(io.popen("find engine -mindepth 2 -maxdepth 2 -type f \\( -name '*.c' -o -name '*.h' \\)"))
  for path in list:lines() do
    local f = assert(io.open(path, "rb"))
    tree[path] = f:read("a")
    f:close()
  end
  list:close()
  return tree
end

--- `nm -P` of every engine object in build/obj: {["engine/json/parse.c"] =
-- listing}, and the sources that have no object (a build is missing).
-- Objects whose source is gone (a file renamed since the last build) are
-- not read: they are not part of the engine any more. The Lua module's
-- files are built once per host Lua; the stock 5.4 one stands for them.
function L.read_objects(tree, build)
  local listings, missing = {}, {}
  for _, path in ipairs(sorted_keys(tree)) do
    local folder, name = split(path)
    if name:match("%.c$") then
      local objects = folder == "lua" and build .. "/lua/5.4/obj/" or build .. "/obj/"
      local object = objects .. folder .. "/" .. name:gsub("%.c$", ".o")
      local probe = io.open(object, "rb")
      if probe then
        probe:close()
        local nm = assert(io.popen("nm -P '" .. object .. "' 2>&1"))
        listings[path] = nm:read("a")
        nm:close()
      else
        missing[#missing + 1] = object
      end
    end
  end
  return listings, missing
end

---------------------------------------------------------------------------
-- Includes

--- Every `#include "X"` of every file: { {from = path, line = n, name = X} }.
function L.includes(tree)
  local out = {}
  for _, path in ipairs(sorted_keys(tree)) do
    local n = 0
    for line in (tree[path] .. "\n"):gmatch("([^\n]*)\n") do
      n = n + 1
      local name = line:match('^%s*#%s*include%s*"([^"]+)"')
      if name then out[#out + 1] = { from = path, line = n, name = name } end
    end
  end
  return out
end

--- What is wrong with one include (nil when nothing is): "coax.h", the
-- public header, is open to every folder; any other names its folder.
local function include_problem(inc, tree, allowed)
  if inc.name == "coax.h" then return nil end
  local from = split(inc.from)
  local to = inc.name:match("^([%w_]+)/[%w_]+%.h$")
  if not to then
    return '"' .. inc.name .. '" is not a header named with its folder (FOLDER/NAME.h)'
  elseif not tree["engine/" .. inc.name] then
    return '"' .. inc.name .. '" does not exist'
  elseif not allowed[from] then
    return "folder " .. from .. " is not in the rule table"
  elseif to ~= from and not allowed[from][to] then
    return from .. " may not include " .. to .. ' ("' .. inc.name .. '")'
  end
  return nil
end

--- The includes that name no folder-qualified header of the tree, or cross
-- from one folder to another the rules do not allow.
function L.include_problems(tree, rules)
  local problems = {}
  local allowed = {}
  for folder, list in pairs(rules) do allowed[folder] = set_of(list) end
  for _, inc in ipairs(L.includes(tree)) do
    local problem = include_problem(inc, tree, allowed)
    if problem then problems[#problems + 1] = inc.from .. ":" .. inc.line .. ": " .. problem end
  end
  return problems
end

--- Include edges between files: { {from, to, via = {'#include "X"'}} }.
function L.include_edges(tree)
  local edges = {}
  for _, inc in ipairs(L.includes(tree)) do
    local to = inc.name == "coax.h" and "engine/include/coax.h" or "engine/" .. inc.name
    if tree[to] and to ~= inc.from then
      edges[#edges + 1] = { from = inc.from, to = to, via = { '#include "' .. inc.name .. '"' } }
    end
  end
  return edges
end

---------------------------------------------------------------------------
-- Calls

--- What one `nm -P` listing defines and uses: two sets of global names.
function L.parse_nm(listing)
  local defines, uses = {}, {}
  for line in listing:gmatch("[^\n]+") do
    local name, kind = line:match("^(%S+)%s+(%a)")
    if name then
      if kind == "U" then
        uses[name] = true
      elseif kind:match("%u") then -- upper case: global (T text, D data, B bss, R read-only, ...)
        defines[name] = true
      end
    end
  end
  return defines, uses
end

--- Call (and data reference) edges between sources, from their objects'
-- listings: a file uses a global another file defines.
-- { {from, to, via = {symbols, sorted}} }
function L.call_edges(listings)
  local owner, uses = {}, {}
  for _, path in ipairs(sorted_keys(listings)) do
    local defines
    defines, uses[path] = L.parse_nm(listings[path])
    for name in pairs(defines) do owner[name] = owner[name] or path end
  end
  local edges = {}
  for _, path in ipairs(sorted_keys(uses)) do
    local by_target = {}
    for name in pairs(uses[path]) do
      local to = owner[name]
      if to and to ~= path then
        by_target[to] = by_target[to] or {}
        table.insert(by_target[to], name)
      end
    end
    for _, to in ipairs(sorted_keys(by_target)) do
      table.sort(by_target[to])
      edges[#edges + 1] = { from = path, to = to, via = by_target[to] }
    end
  end
  return edges
end

--- Every folder a folder may reach through the rules, directly or through
-- another folder: a call may go as far as the headers it sees reach.
function L.reachable(rules)
  local reach = {}
  for folder in pairs(rules) do
    local seen, todo = {}, { folder }
    while #todo > 0 do
      local f = table.remove(todo)
      for _, g in ipairs(rules[f] or {}) do
        if not seen[g] then
          seen[g] = true
          todo[#todo + 1] = g
        end
      end
    end
    reach[folder] = seen
  end
  return reach
end

--- The call edges that go from one folder to another the rules do not let
-- it reach.
function L.call_problems(edges, rules)
  local reach = L.reachable(rules)
  local problems = {}
  for _, e in ipairs(edges) do
    local from, to = split(e.from), split(e.to)
    if from ~= to and not (reach[from] and reach[from][to]) then
      problems[#problems + 1] = e.from .. " -> " .. e.to .. " (" .. from .. " may not reach " .. to .. "): "
        .. table.concat(e.via, ", ")
    end
  end
  return problems
end

---------------------------------------------------------------------------
-- Cycles

--- The strongly connected components of more than one file of the graph the
-- edges make (Tarjan's algorithm), each { files = {sorted}, edges = {the
-- edges inside it} }, sorted by their first file.
function L.cycles(edges)
  local next_of, nodes = {}, {}
  for _, e in ipairs(edges) do
    next_of[e.from] = next_of[e.from] or {}
    table.insert(next_of[e.from], e.to)
    nodes[e.from], nodes[e.to] = true, true
  end
  local index, low, on_stack, stack, count = {}, {}, {}, {}, 0
  local components = {}
  local function visit(v)
    count = count + 1
    index[v], low[v] = count, count
    stack[#stack + 1] = v
    on_stack[v] = true
    for _, w in ipairs(next_of[v] or {}) do
      if not index[w] then
        visit(w)
        low[v] = math.min(low[v], low[w])
      elseif on_stack[w] then
        low[v] = math.min(low[v], index[w])
      end
    end
    if low[v] == index[v] then
      local members = {}
      repeat
        local w = table.remove(stack)
        on_stack[w] = nil
        members[#members + 1] = w
      until w == v
      if #members > 1 then components[#components + 1] = members end
    end
  end
  for _, v in ipairs(sorted_keys(nodes)) do
    if not index[v] then visit(v) end
  end
  local out = {}
  for _, members in ipairs(components) do
    table.sort(members)
    local inside = set_of(members)
    local own = {}
    for _, e in ipairs(edges) do
      if inside[e.from] and inside[e.to] then own[#own + 1] = e end
    end
    table.sort(own, function(a, b) return a.from < b.from or (a.from == b.from and a.to < b.to) end)
    out[#out + 1] = { files = members, edges = own }
  end
  table.sort(out, function(a, b) return a.files[1] < b.files[1] end)
  return out
end

--- The components as the sentences a failing spec prints: the files, then
-- each edge inside with the symbols or includes that make it.
function L.describe_cycles(components)
  local lines = {}
  for _, c in ipairs(components) do
    lines[#lines + 1] = "cycle of " .. #c.files .. " files: " .. table.concat(c.files, ", ")
    for _, e in ipairs(c.edges) do
      lines[#lines + 1] = "  " .. e.from .. " -> " .. e.to .. ": " .. table.concat(e.via, ", ")
    end
  end
  return table.concat(lines, "\n")
end

---------------------------------------------------------------------------
-- Sizes and names

--- Whether a file says in its first lines that a program wrote it and it is
-- not to be edited: a generated table, exempt from the size limit.
function L.generated(text)
  local head = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    head[#head + 1] = line:lower()
    if #head == 5 then break end
  end
  local top = table.concat(head, "\n")
  return top:find("generated", 1, true) ~= nil and top:find("do not edit", 1, true) ~= nil
end

--- Files over `limit` lines that are not generated tables.
function L.size_problems(tree, limit)
  local problems = {}
  for _, path in ipairs(sorted_keys(tree)) do
    local text = tree[path]
    local _, lines = text:gsub("\n", "")
    if #text > 0 and text:sub(-1) ~= "\n" then lines = lines + 1 end
    if lines > limit and not L.generated(text) then
      problems[#problems + 1] = path .. ": " .. lines .. " lines (at most " .. limit .. ", or a generated table)"
    end
  end
  return problems
end

--- The C files of libcoax (every engine/*/*.c but the command's and the Lua
-- module's) that share a file name: `ar` keeps one member a name, so
-- updating the archive with one would replace the other.
function L.basename_problems(tree)
  local by_name = {}
  for _, path in ipairs(sorted_keys(tree)) do
    local folder, name = split(path)
    if name:match("%.c$") and folder ~= "cli" and folder ~= "lua" then
      by_name[name] = by_name[name] or {}
      table.insert(by_name[name], path)
    end
  end
  local problems = {}
  for _, name in ipairs(sorted_keys(by_name)) do
    if #by_name[name] > 1 then
      problems[#problems + 1] = name .. ": " .. table.concat(by_name[name], ", ")
    end
  end
  return problems
end

---------------------------------------------------------------------------
-- The README's copy of the rules

--- The rule table of a README: the rows under the header row
-- "| folder | may include |", each "| `folder` | `a`, `b` |" (or "all but
-- `x`, `y`", or no name for none), as a table like RULES.
function L.readme_rules(readme)
  local rules, in_table = {}, false
  for line in readme:gmatch("[^\n]*") do
    if line:match("^|%s*folder%s*|%s*may include") then
      in_table = true
    elseif in_table and not line:match("^|") then
      break
    elseif in_table and not line:match("^|%s*%-") then
      local folder, cell = line:match("^|%s*`([%w_]+)`%s*|(.-)|")
      assert(folder, "a row of the rule table that names no folder: " .. line)
      local names = {}
      for name in cell:gmatch("`([%w_]+)`") do names[#names + 1] = name end
      if cell:match("^%s*all but") then
        table.insert(names, 1, folder)
        table.insert(names, 1, "include")
        names = all_but(table.unpack(names))
      end
      rules[folder] = names
    end
  end
  return rules
end

--- The files the README's "Layout of the repository" names in the lines of
-- engine/ and lua/ folders: a line that begins with a folder ("engine/json/
-- ...") names files of it ("parse.c"), and so do the lines indented under
-- it. { {path = "engine/json/parse.c", folder = "engine/json/"} }, and the
-- folders that have a line.
function L.readme_files(readme)
  readme = "\n" .. readme
  local section = readme:match("\n## Layout of the repository\n(.-)\n## ") or
    readme:match("\n## Layout of the repository\n(.*)$") or ""
  local files, folders, folder = {}, {}, nil
  for line in section:gmatch("[^\n]*") do
    local head = line:match("^([%w_][%w_/%.]*/)%s")
    if head then
      folder = (head:match("^engine/") or head:match("^lua/")) and head or nil
      if folder then folders[#folders + 1] = folder end
    elseif not line:match("^%s") then
      folder = nil
    end
    if folder then
      for _, pattern in ipairs({ "%f[%w_]([%w_]+%.[ch])%f[^%w_%.]", "%f[%w_]([%w_]+%.lua)%f[^%w_%.]" }) do
        for name in line:gmatch(pattern) do
          files[#files + 1] = { path = folder .. name, folder = folder }
        end
      end
    end
  end
  return files, folders
end

--- How two rule tables differ, one sentence a folder (empty when equal).
function L.rules_differences(a, b, a_name, b_name)
  local folders = {}
  for f in pairs(a) do folders[f] = true end
  for f in pairs(b) do folders[f] = true end
  local out = {}
  for _, f in ipairs(sorted_keys(folders)) do
    if not a[f] then
      out[#out + 1] = f .. ": only in " .. b_name
    elseif not b[f] then
      out[#out + 1] = f .. ": only in " .. a_name
    else
      local sa, sb = set_of(a[f]), set_of(b[f])
      local extra, lacking = {}, {}
      for g in pairs(sa) do if not sb[g] then extra[#extra + 1] = g end end
      for g in pairs(sb) do if not sa[g] then lacking[#lacking + 1] = g end end
      table.sort(extra)
      table.sort(lacking)
      if #extra + #lacking > 0 then
        out[#out + 1] = f .. ": " .. a_name .. " alone allows {" .. table.concat(extra, ", ") .. "}, "
          .. b_name .. " alone allows {" .. table.concat(lacking, ", ") .. "}"
      end
    end
  end
  return out
end

return L
