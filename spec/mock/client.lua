--- Starts and drives the mock model server (spec/mock/server.py) for specs.
--
--   local mock = require "mock.client"
--   local server = mock.start()            -- in setup()
--   local sc = server:scenario({ { reply = '{"a": 1}' } })
--   ... base URL sc.base_url (http://127.0.0.1:PORT/s/NAME/v1: OpenAI's
--   .../chat/completions, Anthropic's .../messages), sc.host (the same without
--   /v1: Ollama's .../api/chat) ...
--   sc:log()                               -- the requests it received
--   server:stop()                          -- in teardown()
local cjson = require "cjson"

local M = {}

local function quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- Debian's interpreter, whatever `python3` means on PATH (pyenv shims...).
local function python()
  local f = io.open("/usr/bin/python3", "rb")
  if f then
    f:close()
    return "/usr/bin/python3"
  end
  return "python3"
end

local Server = {}
Server.__index = Server

--- Starts a server on a free port of 127.0.0.1, with a fresh folder.
function M.start()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. quote(dir)))
  local pipe = assert(io.popen("exec env -u LD_PRELOAD " .. python() .. " spec/mock/server.py " .. quote(dir), "r"))
  local line = pipe:read("l")
  local port, pid = (line or ""):match("^(%d+) (%d+)$")
  assert(port, "the mock server did not start: " .. tostring(line))
  return setmetatable({ dir = dir, port = tonumber(port), pid = pid, pipe = pipe, n = 0 }, Server)
end

function Server:stop()
  os.execute("kill " .. self.pid .. " 2>/dev/null")
  self.pipe:close()
  os.execute("rm -rf " .. quote(self.dir))
end

--- The server's root URL: http://127.0.0.1:PORT
function Server:url() return "http://127.0.0.1:" .. self.port end

local Scenario = {}
Scenario.__index = Scenario

--- A new scenario playing `steps` (see server.py), one a request.
function Server:scenario(steps, name)
  self.n = self.n + 1
  name = name or ("sc" .. self.n)
  local f = assert(io.open(self.dir .. "/" .. name .. ".json", "w"))
  f:write(cjson.encode(steps))
  f:close()
  return setmetatable({
    name = name, server = self,
    base_url = self:url() .. "/s/" .. name .. "/v1",
    host = self:url() .. "/s/" .. name,
  }, Scenario)
end

--- The requests received so far, oldest first: {method, target, path,
-- headers, body, t}; `json` holds the decoded body when it is JSON.
function Scenario:log()
  local f = io.open(self.server.dir .. "/" .. self.name .. ".log", "r")
  local out = {}
  if not f then return out end
  for line in f:lines() do
    local r = cjson.decode(line)
    local ok, body = pcall(cjson.decode, r.body)
    if ok then r.json = body end
    out[#out + 1] = r
  end
  f:close()
  return out
end

return M
