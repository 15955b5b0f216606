-- The LÖVE example (examples/love/, issue 23): the game runs under xvfb-run
-- with the module built for LuaJIT, asks the mock model (spec/mock) for an
-- NPC card; the model takes a second a reply and its first reply is refused,
-- so the card takes two. The game logs every frame (COAX_LOVE_RECORD); no
-- frame may take 50 ms or more while the model is answering, and the card it
-- shows must be the second reply's. Its screenshot is kept in
-- $COAX_BUILD/examples/love-npc.png (examples/love/screenshot.png is one).
local H = require "helper"
local coax = require "coax"
local mock = require "mock.client"

local server, dir

setup(function()
  server = mock.start()
  dir = H.tmpdir()
end)

teardown(function()
  server:stop()
  H.rmtree(dir)
end)

local function abs(path)
  if path:sub(1, 1) == "/" then return path end
  return os.getenv("PWD") .. "/" .. path
end

describe("the LÖVE example", function()
  it("draws the NPC card from a slow model that needs a retry, and no frame stalls meanwhile", function()
    local card = '{"name": "Borin Ashbeard", "mood": "grumpy", "inventory": '
      .. '[{"item": "ale barrel", "count": 3}, {"item": "rusty axe", "count": 1}]}'
    local sc = server:scenario({
      { delay_ms = 1000, reply = '{"name": "Borin", "mood": "tired", "inventory": []}' }, -- no such mood
      { delay_ms = 1000, reply = "Here is the card: " .. card },
    })
    local env = ("COAX_LOVE_RECORD=%s COAX_LOVE_BASE_URL=%s COAX_LOVE_CPATH=%s COAX_LUA_PATH=%s"):format(
      H.quote(dir), H.quote(sc.base_url), H.quote(abs(H.build) .. "/lua/luajit/?.so"), H.quote(abs("lua")))
    local log = dir .. "/love.log"
    local ok = os.execute("env " .. env .. " timeout 90 xvfb-run -a -s '-screen 0 1024x768x24' love examples/love > "
      .. H.quote(log) .. " 2>&1")
    assert.is_true(ok == true or ok == 0, H.read(log))
    assert.are.equal(coax.json.encode(coax.json.decode(card)), H.read(dir .. "/card.json"))
    assert.are.equal(2, #sc:log())
    -- the frame log: time and length (ms), phase, engine:poll's time (ms)
    local answering, longest, longest_poll, first, last = 0, 0, 0, nil, nil
    for t, len, phase, poll in H.read(dir .. "/frames.log"):gmatch("([%d.]+) ([%d.]+) (%a+) ([%d.]+)\n") do
      if phase == "answering" then
        answering = answering + 1
        longest = math.max(longest, tonumber(len))
        longest_poll = math.max(longest_poll, tonumber(poll))
        first, last = first or tonumber(t), tonumber(t)
      end
    end
    if os.getenv("COAX_SPEC_SHOW") then -- COAX_SPEC_SHOW=1: the numbers it saw, on stderr
      io.stderr:write(("love: %d frames in %.0f ms while answering, longest %.2f ms, longest poll %.2f ms\n")
        :format(answering, last - first, longest, longest_poll))
    end
    assert.is_true(last - first >= 2000, tostring(last - first)) -- two replies, a second each
    assert.is_true(answering >= 60, tostring(answering))          -- 30 frames a second at the very least
    assert.is_true(longest < 50, tostring(longest))
    local png = H.read(dir .. "/screenshot.png")
    assert.are.equal("\137PNG\r\n\26\n", png:sub(1, 8))
    os.execute("mkdir -p " .. H.quote(H.build .. "/examples"))
    H.write(H.build .. "/examples/love-npc.png", png)
  end)
end)
