-- The same module in every host Lua (issue 23): LuaJIT and Lua 5.1 to 5.4
-- run this file with build/lua/HOST/coax.so on package.cpath (and the
-- engine's scripts in $COAX_LUA_PATH) and must print the same lines, which
-- spec/hosts/expected.txt holds; spec/hosts_spec.lua runs it in each. No
-- busted: it is plain Lua 5.1 that every host reads. What it prints is
-- values written by coax.json.encode (the same text in every host), counts
-- and names; never a Lua number printed by the host (5.1 and 5.4 write 3
-- differently).
local coax = require "coax"
local J = coax.json.encode

local function line(...)
  local t = { ... }
  for i = 1, select("#", ...) do t[i] = tostring(t[i]) end
  print(table.concat(t, " "))
end

-- repair
local value, log = coax.repair("Sure! ```json\n{name: 'Ada', tags: ['x',],}\n```")
local kinds = {}
for i, e in ipairs(log) do kinds[i] = e.kind end
line("repair", J(value), table.concat(kinds, ","))

-- extract: a reply in prose, an age written as text
local schema = { type = "object", required = { "name", "age" },
  properties = { name = { type = "string" }, age = { type = "integer" } } }
local x = assert(coax.extract('Here you go: {"name": "Ada", "age": "36"} hope it helps', schema))
line("extract", x.valid, J(x.value), #x.coercions, x.coercions[1] and x.coercions[1].kind)

-- validate
local s = assert(coax.schema(schema))
local ok, errors = s:validate({ name = "Ada", age = 36.5 })
line("validate", s:validate({ name = "Ada", age = 36 }), ok, #errors, errors[1].instanceLocation,
  errors[1].keywordLocation)

-- JSON shapes: null, empty array and object, key order, big numbers
local doc = coax.json.decode('{"z": [], "a": {}, "n": null, "big": 12345678901234567890, "max": 9007199254740992}')
line("json", J(doc), coax.json.type(doc.big), doc.n == coax.null, coax.json.type(doc.z))
line("json", J(coax.json.decode("[1, 2.5, -0.125, 1e400]")))

-- a recipe, the replay agent: the first reply is refused, the second taken
local RECIPE = [[
return {
  schema = { type = "object", required = { "id", "mood" },
             properties = { id = { type = "integer" }, mood = { enum = { "calm", "angry" } } } },
  prompt = "Describe {{input}}",
}]]
local replies = { '{"id": 1, "mood": "sleepy"}', 'Sure: {"id": 12345678901234567890, "mood": "calm"}' }
local r = coax.run(RECIPE, "the guard", { source = true, replies = replies })
line("run", r.outcome, #r.attempts, J(r.value), coax.json.type(r.value.id), r.value.id.text)

-- a session polled from the host's own loop, with its events
local e = coax.engine()
local events = {}
local session = e:session(RECIPE, "the guard", { source = true, replies = replies,
  on_event = function(name) events[#events + 1] = name end })
local before, polls = session:outcome(), 0
repeat polls = polls + 1 until e:poll(0) == 0 -- timeout 0: never waits
line("session", before, session:outcome(), J(session:value()), polls >= 1, #events > 0)

-- the host agent: the host answers the engine's question itself
local host = e:session(RECIPE, "the cook", { source = true, agent = "host" })
local asked = 0
while e:poll(0) > 0 do
  local q = host:host_request()
  if q then
    asked = asked + 1
    host:host_reply(asked == 1 and "no idea" or '{"id": 9007199254740993, "mood": "angry"}')
  end
end
local report = host:report()
line("host", host:outcome(), asked, J(host:value()), coax.json.type(report.value.id))
e:close()
line("done")
