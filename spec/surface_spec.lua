-- The public surface: libcoax.so exports the functions coax.h declares
-- (each marked COAX_API) and nothing else of coax's, and the Lua module
-- build/coax.so exports luaopen_coax alone. The library is compiled with
-- -fvisibility=hidden (Makefile), so an internal function exported, or one
-- declared and not marked, shows up here by name.
local H = require "helper"

--- The top-level statements of a C header, comments and preprocessor lines
-- removed, whitespace folded: each declaration or definition up to its ';'.
local function statements(text)
  text = text:gsub("/%*.-%*/", " "):gsub("//[^\n]*", " ")
  -- extern "C" { ... } is C++'s alone; its braces would hide everything.
  text = text:gsub("#ifdef __cplusplus.-#endif", "")
  text = text:gsub("\\\n", " "):gsub("\n[ \t]*#[^\n]*", "\n"):gsub("^[ \t]*#[^\n]*", "")
  local out, depth, start = {}, 0, 1
  for i = 1, #text do
    local c = text:sub(i, i)
    if c == "{" then
      depth = depth + 1
    elseif c == "}" then
      depth = depth - 1
    elseif c == ";" and depth == 0 then
      local s = text:sub(start, i - 1):gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
      out[#out + 1] = s
      start = i + 1
    end
  end
  return out
end

--- The functions coax.h declares: name -> whether the declaration is marked
-- COAX_API. A statement with a parameter list that is not a typedef (of a
-- struct, an enum or a function pointer) declares a function.
local function header_functions()
  local decls = {}
  for _, s in ipairs(statements(H.read("engine/include/coax.h"))) do
    if not s:match("^typedef ") and s:find("(", 1, true) then
      local name = assert(s:match("([%a_][%w_]*)%s*%("), s)
      assert.is_nil(decls[name], "coax.h declares " .. name .. " twice")
      decls[name] = s:match("^COAX_API ") ~= nil
    end
  end
  return decls
end

--- The symbols 'path' defines for the dynamic linker: name -> nm's type
-- letter. Names beginning with '_' are the implementation's (_init,
-- _edata, the sanitizers' __asan_*), never coax's, and are left out.
local function exports(path)
  local f = assert(io.popen("env -u LD_PRELOAD nm -D --defined-only " .. H.quote(path) .. " 2>&1"))
  local text = f:read("a")
  local ok = f:close()
  assert.is_true(ok, "nm " .. path .. ": " .. text)
  local out = {}
  for line in text:gmatch("[^\n]+") do
    local kind, name = line:match("^%x* *(%a) ([^%s@]+)")
    assert.is_not_nil(kind, "nm " .. path .. ": " .. line)
    if not name:match("^_") then out[name] = kind end
  end
  return out
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

describe("the public surface", function()
  it("coax.h marks every function it declares COAX_API", function()
    local decls = header_functions()
    local unmarked = {}
    for _, name in ipairs(sorted_keys(decls)) do
      if not decls[name] then unmarked[#unmarked + 1] = name end
    end
    assert.are.same({}, unmarked)
    assert.is_true(#sorted_keys(decls) > 50, "coax.h: the parse found " .. #sorted_keys(decls) .. " functions")
  end)

  it("libcoax.so exports exactly the functions of coax.h", function()
    local decls = header_functions()
    local syms = exports(H.build .. "/libcoax.so")
    local missing, extra, not_functions = {}, {}, {}
    for _, name in ipairs(sorted_keys(decls)) do
      if not syms[name] then missing[#missing + 1] = name end
    end
    for _, name in ipairs(sorted_keys(syms)) do
      if decls[name] == nil then extra[#extra + 1] = name .. " (" .. syms[name] .. ")"
      elseif syms[name] ~= "T" then not_functions[#not_functions + 1] = name .. " (" .. syms[name] .. ")" end
    end
    assert.are.same({ declared_not_exported = {}, exported_not_declared = {}, not_text = {} },
      { declared_not_exported = missing, exported_not_declared = extra, not_text = not_functions })
  end)

  it("the Lua module exports luaopen_coax alone", function()
    assert.are.same({ luaopen_coax = "T" }, exports(H.build .. "/coax.so"))
  end)
end)
