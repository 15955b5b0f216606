--- Attack round 16: the promise "a recipe or a reply never hurts its host", against one session
-- seeing or steering another of the same engine. The sessions of an engine share its one Lua state
-- and its thread: what one script can read that another's work changes is a channel between them.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

local ended = H.ended

-- An agent that reads os.clock, sleeps while the other sessions run, and reads it again: its
-- reply is the difference, in microseconds.
local SPY = [==[
local coax = require 'coax'
return { schema = { type = 'integer' }, prompt = 'p', agent = { call = function()
  local t0 = os.clock()
  coax.sleep(50)
  return { text = tostring(math.floor((os.clock() - t0) * 1e6)) }
end } }
]==]

-- An agent that works for %d iterations and replies with the time os.clock saw it take, in
-- microseconds.
local BUSY = [==[
return { schema = { type = 'integer' }, prompt = 'p', agent = { call = function()
  local t0, x = os.clock(), 0
  for i = 1, %d do x = x ~ i end
  return { text = tostring(math.floor((os.clock() - t0) * 1e6)) }
end } }
]==]

local function value_of(s)
  local r = s:report()
  return r.outcome == "ok" and r.value or r.outcome
end

describe("attack 16: os.clock tells a session nothing of the others' time", function()
  -- os.clock was the process's CPU time: a session that slept while another worked saw that
  -- work's time as its own clock's, 500,000 iterations of a loop (about 14 ms) across a sleep of
  -- 50 ms in which its own script ran no instruction, so a recipe could time what the others of
  -- its engine do (how long their replies take to check, how large they are). os.clock is now the
  -- CPU time the session's own scripts have spent (engine/script/vm.c's l_clock): the spy's clock
  -- moves by the few microseconds of its own resume.
  it("a session asleep beside one that works for 500,000 iterations sees less than a tenth of it", function()
    local e = coax.engine()
    local spy = e:session(SPY, "x", { source = true })
    e:poll(0) -- the spy reads its clock and sleeps
    local busy = e:session(BUSY:format(500000), "x", { source = true })
    while e:poll(50) > 0 do end
    local spied, worked = value_of(spy), value_of(busy)
    e:close()
    assert.are.equal("integer", math.type(spied))
    assert.is_true(worked > 0, "busy " .. tostring(worked))
    assert.is_true(spied * 10 < worked, ("the spy saw %s us of the other's %s us"):format(spied, worked))
  end)

  it("a session made after another worked starts its clock near 0", function()
    local e = coax.engine()
    local busy = e:session(BUSY:format(500000), "x", { source = true })
    while e:poll(50) > 0 do end
    local fresh = e:session("return { schema = {}, prompt = tostring(math.floor(os.clock() * 1e6)) }", "x",
      { source = true, replies = { "{}" } })
    while e:poll(0) > 0 do end
    local worked, r = value_of(busy), fresh:report()
    e:close()
    local first = tonumber(r.attempts[1].messages[#r.attempts[1].messages].content:match("^%d+"))
    assert.is_true(first * 10 < worked, ("the new session's clock began at %s us, the other worked %s us"):format(
      first, worked))
  end)

  -- Twins: a session's own clock still runs with its own work, within a call and across its calls
  -- (the recipe's run and its agent's call add to one clock), and never goes back.
  it("a session's clock counts its own work, the recipe's and its agent's", function()
    local r = H.run_source([==[
      local x = 0
      local t0 = os.clock()
      for i = 1, 300000 do x = x ~ i end
      local t1 = os.clock()
      return { schema = { type = 'string' }, prompt = 'p', agent = { call = function()
        local t2 = os.clock()
        for i = 1, 300000 do x = x ~ i end
        local t3 = os.clock()
        return { text = ('"%s %s %s %s"'):format(math.type(t0), t0 < t1, t1 <= t2, t2 < t3) }
      end } }]==])
    assert.are.same({ "ok", nil, nil }, ended(r))
    assert.are.equal("float true true true", r.value)
  end)
end)

-- The first line of the prompt a session's recipe made.
local function prompt_of(e, source)
  local s = e:session(source, "x", { source = true, replies = { "{}" } })
  while e:poll(0) > 0 do end
  local r = s:report()
  if r.outcome ~= "ok" then return r.outcome .. ": " .. tostring(r.error and r.error.message) end
  return r.attempts[1].messages[#r.attempts[1].messages].content:match("^[^\n]*")
end

describe("attack 16: what one session changes, another of its engine does not see", function()
  -- Each change a script can make is its own: its globals, its copy of a coax.* script and of
  -- cjson; the tables every session reads (the globals' libraries, the coax module, strings'
  -- methods) refuse changes. The first session changes all it can, the second reads the same.
  local CHANGE = [==[
    local f, cjson = require 'coax.feedback', require 'cjson'
    f.templates.coerced_block = 'PWNED'
    cjson.encode_number_precision(3)
    seen = 'mine'
    local refused = 0
    for _, change in ipairs({ function() _G.seen = 1 end, function() string.upper = string.lower end,
      function() require('coax').json = nil end, function() rawset(string, 'upper', string.lower) end,
      function() getmetatable('').__index = {} end, function() table.insert(math, 1) end }) do
      if not pcall(change) then refused = refused + 1 end
    end
    return { schema = {}, prompt = ('%s %s %s %s %d'):format(f.templates.coerced_block, cjson.encode(0.123456),
      seen, ('a'):upper(), refused) }
  ]==]
  local READ = [==[
    local f, cjson = require 'coax.feedback', require 'cjson'
    return { schema = {}, prompt = ('%s %s %s %s %s'):format(f.templates.coerced_block == 'PWNED',
      cjson.encode(0.123456), seen, ('a'):upper(), #math) }
  ]==]

  it("a session's changes are its own, and the shared tables refuse them", function()
    local e = coax.engine()
    local changed, read = prompt_of(e, CHANGE), prompt_of(e, READ)
    e:close()
    assert.are.same({ "PWNED 0.123 mine A 6", "false 0.123456 nil A 0" }, { changed, read })
  end)
end)

describe("attack 16: a session's request frames nothing another session reads", function()
  -- The engine's requests share its connections: a connection one session's request used is kept
  -- and may carry another session's next request to the same server. A script could set the
  -- request's Content-Length (0) over a body that is a second request of its choosing; the server
  -- answered both, in order, and the second answer, still on its way when the first was read, was
  -- read as the answer to the next request on that connection, another session's ("conn1
  -- /slow-chosen-by-a" where it asked for /b). The headers that frame a request or rule its
  -- connection are now the transport's alone (engine/io/http.c's http_header_frames).
  local server = H.pipelined_server()
  setup(server.start)
  teardown(server.stop)

  local REQUEST = [==[
local coax = require 'coax'
return { schema = { type = 'string' }, prompt = 'p', agent = { call = function()
  coax.sleep(%d)
  local r, err = coax.http.request(%s)
  return { text = ('%%q'):format(r and r.status .. ' ' .. r.body or err) }
end } }
]==]
  local function run_beside(first, second)
    local e = coax.engine()
    local a = e:session(REQUEST:format(0, first), "x", { source = true })
    local b = second and e:session(REQUEST:format(300, second), "x", { source = true })
    while e:poll(50) > 0 do end
    local got = { a:report(), b and b:report() }
    e:close()
    return got
  end

  it("a Content-Length of 0 over a second request is refused, and the next session reads its own answer", function()
    local got = run_beside(("{ method = 'POST', url = 'http://127.0.0.1:%s/a', headers = { ['Content-Length'] = '0' },"
      .. " body = 'GET /slow-chosen-by-a HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n' }"):format(server.port),
      ("{ url = 'http://127.0.0.1:%s/b' }"):format(server.port))
    assert.are.equal("script_error", got[1].outcome)
    assert.truthy(got[1].error.message:find("coax.http.request: header 'Content-Length' frames the request or its "
      .. "connection: the transport sets it", 1, true))
    assert.are.equal("ok", got[2].outcome)
    assert.truthy(got[2].value:match("^200 conn%d+ /b$"), got[2].value)
  end)

  local FRAMING = { "content-length", "TRANSFER-ENCODING", "Connection", "Keep-Alive", "Proxy-Connection",
    "Upgrade", "TE", "Trailer" }
  for _, name in ipairs(FRAMING) do
    it("a header " .. name .. " is refused, in a map and in a list", function()
      for _, headers in ipairs({ ("{ [%q] = '1' }"):format(name), ("{ { %q, '1' } }"):format(name) }) do
        local got = run_beside(("{ method = 'POST', url = 'http://127.0.0.1:%s/a', headers = %s, body = 'x' }"):format(
          server.port, headers))
        assert.are.equal("script_error", got[1].outcome)
        assert.truthy(got[1].error.message:find("header '" .. name .. "' frames the request", 1, true))
      end
    end)
  end

  -- A server's answer that came late, after the one its request read (here the server answers /twice
  -- twice; a server answering a request in another's body is one), waited on the kept connection:
  -- the next session's request to that server went on it and read "conn1 late". Each session now
  -- keeps connections of its own (engine/io/http.c's http_pool, a curl share of connections).
  it("an answer that comes late on a session's connection is never read by another session", function()
    local got = run_beside(("{ url = 'http://127.0.0.1:%s/twice' }"):format(server.port),
      ("{ url = 'http://127.0.0.1:%s/b' }"):format(server.port))
    assert.truthy(got[1].value:match("^200 conn%d+ /twice$"), got[1].value)
    assert.are.equal("ok", got[2].outcome)
    assert.truthy(got[2].value:match("^200 conn%d+ /b$"), got[2].value)
    assert.are_not.equal(got[1].value:match("conn%d+"), got[2].value:match("conn%d+"))
  end)

  it("a session's own requests still go on its kept connection", function()
    local e = coax.engine()
    local s = e:session(([==[
      local coax = require 'coax'
      return { schema = { type = 'string' }, prompt = 'p', agent = { call = function()
        local a = coax.http.request({ url = 'http://127.0.0.1:%s/a' })
        local b = coax.http.request({ url = 'http://127.0.0.1:%s/b' })
        return { text = ('%%q'):format(a.body .. ', ' .. b.body) }
      end } }]==]):format(server.port, server.port), "x", { source = true })
    while e:poll(50) > 0 do end
    local r = s:report()
    e:close()
    local first, second = r.value:match("^(conn%d+) /a, (conn%d+) /b$")
    assert.are.equal(first, second)
    assert.truthy(first)
  end)

  -- Twins: headers that frame nothing still go, names that only begin like a framing one too; two
  -- sessions' requests to one server both read their own answers.
  it("Content-Type, Expect, X-Te and Connections go, and two sessions read their own answers", function()
    local got = run_beside(("{ method = 'POST', url = 'http://127.0.0.1:%s/a', body = 'x', headers = { ['Content-Type']"
      .. " = 'text/plain', Expect = '', ['X-Te'] = '1', Connections = '1' } }"):format(server.port),
      ("{ url = 'http://127.0.0.1:%s/b' }"):format(server.port))
    assert.are.equal("ok", got[1].outcome)
    assert.truthy(got[1].value:match("^200 conn%d+ /a$"), got[1].value)
    assert.truthy(got[2].value:match("^200 conn%d+ /b$"), got[2].value)
  end)
end)
