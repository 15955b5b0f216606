-- The README and coax.h send readers to things that exist: every `coax.X`
-- name the README shows is a function or value of the Lua module (or, for
-- the scripts' own functions, of the module recipes and agents get), and
-- every README section coax.h names is a heading of the README.
local H = require "helper"
local coax = require "coax"

local README = H.read("README.md")

local function resolve(root, dotted)
  local v = root
  for part in dotted:gmatch("[^.]+") do
    if type(v) ~= "table" then return nil end
    v = v[part]
  end
  return v
end

describe("the README", function()
  it("names only coax.X functions and values that exist, in the host's module or the scripts'", function()
    local names, seen = {}, {}
    for name in README:gmatch("`coax%.([%a_][%w_.]*)") do
      name = name:gsub("%.$", "")
      if not seen[name] and name ~= "h" and name ~= "pc" and name ~= "so" then -- files, not names
        seen[name] = true
        names[#names + 1] = name
      end
    end
    table.sort(names)
    assert.is_true(#names >= 20, #names .. " names")
    local in_scripts = {}
    for _, name in ipairs(names) do
      if resolve(coax, name) == nil then in_scripts[#in_scripts + 1] = name end
    end
    -- the rest must be in the module scripts get: a recipe lists what it lacks
    local listed = #in_scripts > 0 and ("'" .. table.concat(in_scripts, "','") .. "'") or ""
    local check = "local coax = require 'coax' local missing = {} "
      .. "for _, n in ipairs({" .. listed .. "}) do "
      .. "local v = coax for p in n:gmatch('[^.]+') do v = type(v) == 'table' and v[p] or nil end "
      .. "if v == nil then missing[#missing + 1] = n end end "
      .. "return { schema = {}, prompt = 'missing:' .. table.concat(missing, ',') }"
    local r = coax.run(check, "", { source = true, replies = { "{}" } })
    assert.are.equal("ok", r.outcome, r.error ~= coax.null and r.error.message or "")
    assert.are.equal("missing:", r.attempts[1].messages[1].content:match("^missing:[^\n]*"))
    assert.are.same({}, (function()
      local gone = {}
      for _, n in ipairs({ "array", "object" }) do
        if resolve(coax, n) == nil and seen[n] then gone[#gone + 1] = n end
      end
      return gone
    end)())
  end)

  it("has every section coax.h sends readers to", function()
    local headings = {}
    for h in README:gmatch("\n#+ ([^\n]+)") do
      headings[h] = true
      headings[h:match("^([^:]+):") or h] = true -- "Talking to models: HTTP and ..." is "Talking to models"
    end
    local refs = 0
    for section in H.read("engine/include/coax.h"):gmatch('README, "([^"]+)"') do
      section = section:gsub("%s*\n%s*%*%*%s*", " ") -- a name the comment wraps
      refs = refs + 1
      assert.is_true(headings[section] ~= nil, 'coax.h names README section "' .. section .. '"')
    end
    assert.is_true(refs >= 3, refs .. " references")
  end)

  it("documents `busted --lua=lua5.4` for recipe authors and `jq -Rs .` for transcripts", function()
    assert.truthy(README:find("busted --lua=lua5.4", 1, true))
    assert.truthy(README:find("jq -Rs .", 1, true))
    assert.is_nil(README:find("seed notes", 1, true))
    assert.is_nil(README:find("the issue", 1, true))
  end)
end)

describe("coax example --depth", function()
  it("is refused past 256, as its help says, and taken up to it", function()
    local schema = H.tmpfile('{"type": "integer"}')
    assert.are.same({ "", "coax example: --depth wants a number from 1 to 256, not '999'\n", 2 },
      { H.coax({ "example", "--depth", "999", schema }) })
    assert.are.same({ "1\n", "", 0 }, { H.coax({ "example", "--depth", "256", schema }) })
    os.remove(schema)
  end)
end)
