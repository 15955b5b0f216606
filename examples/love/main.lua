-- A small LÖVE game that asks a model for an NPC card (name, mood,
-- inventory) through coax and draws it as the extraction proceeds, without
-- ever stalling a frame: love.update polls the engine with timeout 0, so the
-- HTTP request, the refusal of a bad reply and the retry all happen a little
-- each frame (README, "Using it from Lua").
--
--   love examples/love                       -- the default agent (OPENAI_API_KEY, ...)
--   COAX_LOVE_BASE_URL=http://127.0.0.1:8080/v1 love examples/love   -- any OpenAI-compatible server
--
-- LÖVE runs LuaJIT: the module is build/lua/luajit/coax.so (`make lua-hosts`),
-- or COAX_LOVE_CPATH. With COAX_LOVE_RECORD=DIR the game writes DIR/frames.log
-- (one line a frame: time and frame length in ms, "warmup", "answering" or
-- "idle", and the time engine:poll took in that frame), DIR/card.json and DIR/screenshot.png once the card is done, and
-- quits: spec/apps_spec.lua runs it so under xvfb-run.
local root = love.filesystem.getSource() .. "/../.."
package.cpath = (os.getenv("COAX_LOVE_CPATH") or root .. "/build/lua/luajit/?.so") .. ";" .. package.cpath
local coax = require "coax"

local DESCRIPTION = "A tired dwarf innkeeper who sells ale by the barrel and keeps a rusty axe under the counter."
local RECORD = os.getenv("COAX_LOVE_RECORD")

local engine, session
local status, card = "asking the model...", nil
local frames, started = {}, nil
local finished_at, shot = nil, false
local poll_ms

local function session_options()
  local url = os.getenv("COAX_LOVE_BASE_URL")
  local o = { on_event = function(name, data)
    local n = data and data.attempt or "?"
    if name == "attempt_start" then status = "attempt " .. n .. ": asking the model..."
    elseif name == "validation_error" or name == "parse_error" then
      status = "attempt " .. n .. ": reply refused, asking again"
    elseif name == "success" then status = "attempt " .. n .. ": accepted" end
  end }
  if url then o.agent, o.agent_options = "openai", { base_url = url, model = os.getenv("COAX_LOVE_MODEL") or "m1" } end
  return o
end

function love.load()
  local eo = { lua_path = os.getenv("COAX_LUA_PATH") or root .. "/lua" }
  if os.getenv("COAX_LOVE_BASE_URL") then eo.secrets = { OPENAI_API_KEY = os.getenv("OPENAI_API_KEY") or "local" } end
  engine = coax.engine(eo)
  started = love.timer.getTime()
  love.graphics.setBackgroundColor(0.11, 0.12, 0.16)
end

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- The question goes out once the scene is on screen: LÖVE's first frames
-- (the window, its first draw and glyphs) are slow on their own, 80-250 ms
-- under xvfb's software GL, and are logged as "warmup".
local WARMUP_FRAMES = 10

function love.update(dt)
  if not session and #frames >= WARMUP_FRAMES then
    session = assert(engine:session(love.filesystem.getSource() .. "/npc_recipe.lua", DESCRIPTION, session_options()))
  end
  local answering = session and session:outcome() == "running"
  if answering then
    local t0 = love.timer.getTime()
    engine:poll(0) -- timeout 0: does what is ready and returns
    poll_ms = (love.timer.getTime() - t0) * 1000
    if session:outcome() ~= "running" then
      card = session:value()
      finished_at = love.timer.getTime()
      status = card and "done" or ("no card: " .. session:outcome())
    end
  end
  frames[#frames + 1] = ("%.1f %.2f %s %.2f"):format((love.timer.getTime() - started) * 1000, dt * 1000,
    not session and "warmup" or answering and "answering" or "idle", poll_ms or 0)
  if RECORD and finished_at and not shot and love.timer.getTime() - finished_at > 0.3 then
    shot = true
    write(RECORD .. "/frames.log", table.concat(frames, "\n") .. "\n")
    write(RECORD .. "/card.json", card and coax.json.encode(card) or "null")
    love.graphics.captureScreenshot(function(image)
      write(RECORD .. "/screenshot.png", image:encode("png"):getString())
      love.event.quit(0)
    end)
  end
end

function love.draw()
  local t = love.timer.getTime()
  -- something that moves every frame: a stall would show as a jump
  love.graphics.setColor(0.95, 0.75, 0.3)
  love.graphics.circle("fill", 80 + 40 * math.sin(t * 3), 300, 12)
  love.graphics.setColor(0.2, 0.22, 0.3)
  love.graphics.rectangle("fill", 180, 30, 420, 300, 12, 12)
  love.graphics.setColor(1, 1, 1)
  love.graphics.print("NPC", 200, 45, 0, 1.4)
  love.graphics.setColor(0.7, 0.75, 0.85)
  love.graphics.printf(DESCRIPTION, 200, 75, 380)
  love.graphics.setColor(1, 1, 1)
  if card then
    love.graphics.print("Name:  " .. card.name, 200, 125, 0, 1.3)
    love.graphics.print("Mood:  " .. card.mood, 200, 155, 0, 1.3)
    love.graphics.print("Inventory:", 200, 190, 0, 1.3)
    for i, it in ipairs(card.inventory) do
      love.graphics.print(("- %s x%s"):format(it.item, coax.json.encode(it.count)), 220, 195 + 22 * i, 0, 1.1)
    end
  else
    love.graphics.print(("Thinking" .. ("."):rep(math.floor(t * 3) % 4)), 200, 150, 0, 1.3)
  end
  love.graphics.setColor(0.6, 0.8, 0.6)
  love.graphics.print(status, 20, 20)
  love.graphics.print(("%d fps"):format(love.timer.getFPS()), 20, 335)
end
