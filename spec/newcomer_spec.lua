-- What a newcomer trips on (issue 24): the built and installed command
-- from any folder, agent flags that mean what they say, errors that name
-- the file and the fix.
local H = require "helper"

local ROOT = os.getenv("PWD")
local COAX = ROOT .. "/" .. H.build .. "/coax"

-- Runs a shell command line in 'dir' without COAX_LUA_PATH; returns stdout,
-- stderr and the exit status.
local function sh(dir, line)
  local out, err = os.tmpname(), os.tmpname()
  local ok, how, code = os.execute("cd " .. H.quote(dir) .. " && env -u LD_PRELOAD -u COAX_LUA_PATH "
    .. "-u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u OLLAMA_HOST " .. line .. " >" .. H.quote(out) .. " 2>" .. H.quote(err))
  if how == "signal" then code = 128 + code end
  local o, e = H.read(out), H.read(err)
  os.remove(out)
  os.remove(err)
  return o, e, ok and 0 or code
end

local dir

setup(function()
  dir = H.tmpdir()
  H.write(dir .. "/schema.json", '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}')
  H.write(dir .. "/job.lua", 'return { schema = "schema.json", prompt = "n of {{input}}" }')
  H.write(dir .. "/job.replies.jsonl", '"{\\"n\\": 7}"\n')
end)

teardown(function() H.rmtree(dir) end)

describe("the built coax, from any folder", function()
  it("runs a recipe from another folder: the scripts are found beside the executable", function()
    local out, err, code = sh(dir, H.quote(COAX) .. " run job.lua")
    assert.are.same({ '{"n":7}\n', 0 }, { out, code }, err)
    out, err, code = sh("/", H.quote(COAX) .. " run " .. H.quote(dir .. "/job.lua"))
    assert.are.same({ '{"n":7}\n', 0 }, { out, code }, err)
  end)

  it("names --lua-path and the search order when it finds no scripts", function()
    local lone = dir .. "/lone"
    os.execute("mkdir -p " .. H.quote(lone) .. " && cp " .. H.quote(COAX) .. " " .. H.quote(lone .. "/coax"))
    local out, err, code = sh(lone, "./coax run ../job.lua")
    assert.are.equal("", out)
    assert.are.equal(2, code)
    assert.matches("^coax run: coax scripts not found in [^;]+; looked in %-%-lua%-path, %$COAX_LUA_PATH, lua/ and "
      .. "share/coax/lua beside the coax executable, %./lua, then the installed share folder: pass %-%-lua%-path DIR "
      .. "%(the folder holding coax/runtime%.lua%)\n$", err)
    out, err, code = sh(lone, "./coax run ../job.lua --lua-path " .. H.quote(ROOT .. "/lua"))
    assert.are.same({ '{"n":7}\n', 0 }, { out, code }, err)
    out, _, code = sh(lone, "COAX_LUA_PATH=" .. H.quote(ROOT .. "/lua") .. " ./coax run ../job.lua")
    assert.are.same({ '{"n":7}\n', 0 }, { out, code })
    _, err, code = sh(lone, "./coax batch ../job.lua --replies-field r")
    assert.are.equal(2, code)
    assert.matches("^coax batch: coax scripts not found", err)
  end)
end)

describe("coax run --verbose", function()
  it("tells what became of each attempt for every agent, as the demo does", function()
    local state = dir .. "/called"
    os.remove(state)
    -- the command agent: a wrong reply first, then one that needs coercing
    local cmd = ("cat >/dev/null; if [ -e %s ]; then printf '{\"n\": \"7\"}'; else touch %s; printf 'Sure: {n: \"x\",}'; fi")
      :format(H.quote(state), H.quote(state))
    local out, err, code = H.coax({ "run", dir .. "/job.lua", "--command", cmd, "--verbose" })
    assert.are.same({ '{"n":7}\n', 0 }, { out, code }, err)
    assert.matches("^coax run: attempt 1: repaired %([^)]*unquoted_key, trailing_comma%); 1 schema error, at /n: expected "
      .. 'integer, got string "x"; fed back, asking again\ncoax run: attempt 2: coerced %(string_to_integer at /n%); '
      .. "valid, accepted\n$", err)
    -- without --verbose, a named agent is quiet
    os.remove(state)
    out, err = H.coax({ "run", dir .. "/job.lua", "--command", cmd })
    assert.are.same({ '{"n":7}\n', "" }, { out, err })
    -- the replay agent named on the command line, too
    _, err = H.coax({ "run", dir .. "/job.lua", "--replay", dir .. "/job.replies.jsonl", "-v" })
    assert.are.equal("coax run: attempt 1: valid, accepted\n", err)
  end)
end)
