--- Attack round 4: holes a recipe could open in its host that the earlier
-- rounds left, each with its input and the twins that must keep working.
-- Work is compared at n and a multiple of n, never against a clock.
local H = require "helper"
local coax = require "coax"

local SCHEMA = "{ type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } }"

-- What `body` (the body of a function) gives in a recipe's top level:
-- "ok: VALUE" or "error: MESSAGE" (first line), or the session's outcome
-- and message when the script was stopped (as host_spec's probe).
local function probe(body)
  local text = "local function probe()\n" .. body .. "\nend\n"
    .. "local ok, r = pcall(probe)\n"
    .. "return { schema = " .. SCHEMA .. ", prompt = (ok and 'ok: ' or 'error: ') .. tostring(r) }"
  local r = coax.run(text, "x", { source = true, replies = { '{"n": 1}' } })
  if r.outcome == "ok" then return (r.attempts[1].messages[1].content:match("^[^\n]*")), r end
  return r.outcome .. ": " .. (r.error.message:match("^[^\n]*")), r
end

describe("attack 4: labels and gotos in a chunk a recipe loads", function()
  -- Lua's parser scans a function's active labels for each label and goto,
  -- and its pending gotos for each label, up to 32,767 of each: 32,000
  -- labels parsed in 24 times the time of 4,000, and 4.7 MB of labels took
  -- 3.9 s in one load, a C call no budget is charged in. Now 255 of each a
  -- function (engine/vendor/lua/src/lparser.c, MAXLABELS), like its locals.
  local LABELS = "local t = {} for i = 1, %d do t[i] = '::l' .. i .. ':: x = %d' end "
    .. "local f, e = load(table.concat(t, ' ') .. ' return x') if not f then return e end return f()"
  it("refuses a function's 256th label and 256th pending goto, naming the limit", function()
    assert.are.equal('ok: [string "::l1:: x = 1 ::l2:: x = 1 ::l3:: x = 1 ::l4::..."]:1: too many labels '
      .. "(limit is 255) in main function near 'x'", (probe(LABELS:format(256, 1))))
    assert.are.equal('ok: [string "goto g1 goto g2 goto g3 goto g4 goto g5 goto ..."]:1: too many pending gotos '
      .. "(limit is 255) in main function near <eof>", (probe("local t = {} for i = 1, 256 do t[i] = 'goto g' .. i end "
      .. "local f, e = load(table.concat(t, ' ')) return e")))
  end)

  it("still loads and runs 255 labels, gotos to them, and more of them in blocks and functions one after another",
    function()
      assert.are.equal("ok: 7", (probe(LABELS:format(255, 7))))
      -- forward and backward gotos, 160 and 160, over 240 labels; each block
      -- and function has its own 255, which end with it
      local body = "local t = { 'local n = 0' } for i = 1, 80 do t[#t + 1] = 'goto f' .. i .. ' ::b' .. i .. ':: '"
        .. " .. 'n = n + 1 if n %% 2 == 0 then goto e' .. i .. ' end goto b' .. i .. ' ::f' .. i .. ':: goto b' .. i"
        .. " .. ' ::e' .. i .. '::' end local blk = 'do ' .. table.concat(t, ' ') .. ' end ' "
        .. "local fn = 'local function g() ' .. table.concat(t, ' ') .. ' return n end ' "
        .. "local f, e = load('local x = 0 ' .. blk:rep(%d) .. fn:rep(2) .. ' return g()') "
        .. "if not f then return e end return f()"
      assert.are.equal("ok: 160", (probe(body:format(3))))
    end)

  it("refuses 32,000 labels at the 256th: 8 times the labels of 4,000 is not 24 times the work", function()
    local body = "local t = {} for i = 1, %d do t[i] = '::l' .. i .. ':: x = 1' end "
      .. "local f, e = load(table.concat(t, ' ')) return e:match('too many labels %%(limit is 255%%)')"
    local small, big = H.best_cpu_pair(function() assert.are.equal("ok: too many labels (limit is 255)",
      (probe(body:format(4000)))) end, function() assert.are.equal("ok: too many labels (limit is 255)",
      (probe(body:format(32000)))) end)
    assert.is_true(big < 12 * small + 0.02, ("%.3f s against %.3f s"):format(big, small))
  end)

  it("parses blocks of labels and gotos at the limit in linear time (8 times the blocks, not 64 times the work)",
    function()
      -- each block: 250 pending gotos and 250 labels, the most a block may hold
      local body = "local t = {} for i = 1, 250 do t[#t + 1] = 'goto l' .. (i %% 125 + 1) end "
        .. "for i = 1, 125 do t[#t + 1] = '::m' .. i .. ':: x = 1' end "
        .. "for i = 1, 125 do t[#t + 1] = '::l' .. i .. ':: x = 1' end "
        .. "local f, e = load(('do ' .. table.concat(t, ' ') .. ' end '):rep(%d)) return tostring(e)"
      local small, big = H.best_cpu_pair(function() assert.are.equal("ok: nil", (probe(body:format(50)))) end,
        function() assert.are.equal("ok: nil", (probe(body:format(400)))) end)
      assert.is_true(big < 12 * small + 0.05, ("%.3f s against %.3f s"):format(big, small))
    end)
end)

describe("attack 4: an object whose key order list is much longer than its keys", function()
  -- The remembered order (coax.json.object's list, a decoded object's keys)
  -- was read from its start for every occurrence of the object, to its end
  -- when a key is missing from it: one object with a list of 1,000,000
  -- names held 1,000 times in an array took 11.4 s in one coax.json.encode
  -- (8,000 times: 97 s), uncharged, and the recipe went on. Such a list is
  -- indexed once a conversion.
  local function repeated(items, names)
    local keys = {}
    for i = 1, names do keys[i] = i % 3 == 0 and ("k" .. i) or false end
    local o = coax.json.object({ a = 1, b = 2 }, keys)
    keys[names + 1] = "b" -- placed last: the reading went through every name before it
    local arr = {}
    for i = 1, items do arr[i] = o end
    return arr
  end
  it("encodes n occurrences of a list of n names in near-linear time (8n, 8n: not 64 times the work)", function()
    local data = { [100] = repeated(100, 10000), [800] = repeated(800, 80000) }
    local ratio = H.scaling_ratio(function(m)
      assert.are.equal(m * 14 + 1, #coax.json.encode(data[m]))
    end, 100, 8)
    assert.is_true(ratio < 12, ratio)
  end)

  it("from a recipe too: the encode ends at once, its text exact", function()
    local result = probe("local c = require('coax') local keys = { 'b' } for i = 2, 200000 do keys[i] = false end "
      .. "keys[200001] = 'a' local o = c.json.object({ a = 1, b = 2, c = 3 }, keys) local arr = {} "
      .. "for i = 1, 4000 do arr[i] = o end local s = c.json.encode(arr) return #s .. s:sub(1, 40)")
    assert.are.equal('ok: 80001[{"b":2,"a":1,"c":3},{"b":2,"a":1,"c":3}', result)
  end)

  -- The twins: the order is the one the reading gave, whatever the list
  -- holds, whether read or indexed: each key at its first place in the
  -- list, then the others sorted (a string key before an integer key of
  -- the same text). Checked against that rule written in Lua, over random
  -- objects and lists of every length around the switch (2 x keys + 16).
  local function expected(t, list)
    local placed, out = {}, {}
    local function place(k)
      if k ~= nil and rawget(t, k) ~= nil and not placed[k] then
        placed[k] = true
        out[#out + 1] = k
      end
    end
    for _, v in ipairs(list) do
      if type(v) == "string" then place(v)
      elseif math.type(v) == "integer" then place(v)
      elseif math.type(v) == "float" and v == math.floor(v) and v >= -2 ^ 63 and v < 2 ^ 63 then
        place(math.tointeger(v)) end
    end
    local rest = {}
    for k in pairs(t) do if not placed[k] then rest[#rest + 1] = k end end
    table.sort(rest, function(a, b)
      local x, y = tostring(a), tostring(b)
      if x ~= y then return x < y end
      return type(a) == "string" and type(b) ~= "string"
    end)
    for _, k in ipairs(rest) do out[#out + 1] = k end
    return out
  end
  it("keep the order the reading gives: 3,000 random objects and lists, read and indexed", function()
    math.randomseed(4)
    local names = { "a", "b", "c", "1", "2", "10", "x", "ab", "" }
    local entries = { "a", "b", "c", "1", "2", "10", "x", "ab", "", "zz", 1, 2, 10, 3, 2.0, 1.5, true, false, -0.0 }
    local indexed = 0
    for _ = 1, 3000 do
      local t = {}
      for _ = 1, math.random(0, 6) do
        local k = math.random(2) == 1 and names[math.random(#names)] or math.random(-1, 12)
        t[k] = true
      end
      local n = 0
      for _ in pairs(t) do n = n + 1 end
      local list = {}
      for i = 1, math.random(0, 2 * n + 30) do list[i] = entries[math.random(#entries)] end
      if #list > 2 * n + 16 and n > 0 then indexed = indexed + 1 end
      local o = coax.json.object(t, list)
      assert.are.same(expected(t, list), coax.json.keys(o))
      -- the same object twice in one value: its index is found again (an
      -- object with the keys 1 and "1" is refused, both times)
      local ok, one = pcall(coax.json.encode, o)
      if ok then assert.are.equal("[" .. one .. "," .. one .. "]", coax.json.encode({ o, o })) end
    end
    assert.are.equal(996, indexed) -- a third of them (seed 4)
  end)

  it("a decoded object with most keys removed still writes the rest in their decoded order", function()
    local parts = {}
    for i = 1, 100 do parts[i] = ('"k%03d": %d'):format(101 - i, i) end
    local o = coax.json.decode("{" .. table.concat(parts, ", ") .. "}")
    for i = 1, 100 do if i % 25 ~= 0 then o[("k%03d"):format(i)] = nil end end
    o.new = true
    assert.are.equal('[{"k100":1,"k075":26,"k050":51,"k025":76,"new":true},'
      .. '{"k100":1,"k075":26,"k050":51,"k025":76,"new":true}]', coax.json.encode({ o, o }))
  end)
end)

describe("attack 4: the report of a reply or a recipe's values as deep as their limits allow", function()
  -- The report holds the reply's value three levels down, a recipe's tool
  -- rounds four: a valid 1 KB reply of 510 nested arrays, or tool rounds
  -- 508 deep, made coax.run and s:report() raise COAX_EDEPTH (the report
  -- was read within the default 512) instead of giving the report.
  local function depth(v)
    local d = 0
    while type(v) == "table" and v[1] ~= nil do v, d = v[1], d + 1 end
    return d + (type(v) == "table" and 1 or 0)
  end
  local ARRAY = "return { schema = { type = 'array' }, prompt = 'x' }"
  -- coax.run itself, not helper's wrapper: that checks each report through
  -- coax.json.encode, whose depth is the default 512
  local run
  setup(function()
    local wrapped = package.loaded.coax
    package.loaded.coax = nil
    run = require("coax").run
    package.loaded.coax = wrapped
  end)
  for _, d in ipairs({ 509, 510, 512 }) do
    it("a reply " .. d .. " arrays deep: the report, its value exact", function()
      local reply = ("["):rep(d) .. ("]"):rep(d)
      local r = run(ARRAY, "x", { source = true, replies = { reply } })
      assert.are.same({ "ok", d }, { r.outcome, depth(r.value) })
      assert.are.equal(d, depth(r.attempts[1].value))
      local e = coax.engine()
      local s = e:session(ARRAY, "x", { source = true, replies = { reply } })
      s:run()
      assert.are.same({ "ok", d, d }, { s:report().outcome, depth(s:report().value), depth(s:value()) })
      e:close()
    end)
  end
  it("a reply past max_depth is still the limit it was", function()
    local reply = ("["):rep(513) .. ("]"):rep(513)
    local r = run(ARRAY, "x", { source = true, replies = { reply }, max_attempts = 1 })
    assert.are.same({ "limit", "COAX_EDEPTH", "nesting deeper than 512" }, { r.outcome, r.error.code, r.error.message })
  end)
  -- (attack 23: a round is {round, calls} as the report's schema says; the depth is in a call's arguments)
  it("tool rounds 510 deep from a recipe's agent: the report holds them", function()
    local recipe = "local t = {} local c = t for i = 1, 504 do c[1] = {} c = c[1] end "
      .. "return { schema = { type = 'integer' }, prompt = 'x', max_attempts = 1, "
      .. "agent = { call = function() return { text = '1', tool_rounds = { { round = 1, calls = { { name = 't', "
      .. "arguments = { d = t }, result = 'r', is_error = false } } } } } end } }"
    local r = run(recipe, "x", { source = true })
    assert.are.same({ "ok", 1, 505 }, { r.outcome, r.value, depth(r.attempts[1].tool_rounds[1].calls[1].arguments.d) })
  end)
end)

describe("attack 4: the report a session keeps in the host's memory", function()
  -- Each attempt records its reply and tool rounds in the report, in the
  -- host's memory: a recipe's agent that returned 20 MB of text for each of
  -- max_attempts attempts grew the host by that much an attempt, without
  -- end (16 attempts: a 335 MB report, 460 MB of host), while the Lua state
  -- stayed within its cap. The report may take 4 times lua_memory before an
  -- attempt starts: past it the session ends with limit.
  local function recipe(attempts, rounds)
    local returned = rounds and "'no', tool_rounds = { { round = 1, calls = { { name = 't', arguments = '{}', "
      .. "result = big, is_error = false } } } }" or "big"
    return "local big = string.rep('x', 2^20) return { schema = { type = 'integer' }, prompt = 'x', "
      .. "max_attempts = " .. attempts .. ", "
      .. "strategy = function() return { { role = 'user', content = 'again' } } end, "
      .. "agent = { call = function() return { text = " .. returned .. " } end } }"
  end
  local LIMIT = "messages: the session's report is larger than the Lua memory cap allows (lua_memory: it may take "
    .. "4 times it before an attempt)"
  for _, c in ipairs({ { "a 1 MiB reply", false }, { "1 MiB of tool rounds", true } }) do
    it("ends 1,000 attempts of " .. c[1] .. " each at 4 x lua_memory (8 MiB): 32 attempts recorded", function()
      local r = coax.run(recipe(1000, c[2]), "x", { source = true, lua_memory = 8 * 2 ^ 20 })
      assert.are.same({ "limit", "limit", LIMIT, 32 }, { r.outcome, r.error.code, r.error.message, #r.attempts })
    end)
    it("still runs 20 attempts of " .. c[1] .. " to their end", function()
      local r = coax.run(recipe(20, c[2]), "x", { source = true, lua_memory = 8 * 2 ^ 20 })
      assert.are.same({ "exhausted", 20 }, { r.outcome, #r.attempts })
    end)
  end
end)

describe("attack 4: the default validation budget of a recipe's schema over a reply", function()
  -- The default grew with the schema's size times the instance's, and a
  -- recipe writes both (its schema, its agent's reply): an anyOf of n
  -- consts over a reply of n items was a budget of 2n x 2n steps, spent in
  -- one call of the session where no script budget is charged (4,000: 64
  -- million steps, 1 s; 40,000: 6.4 billion, 100 s). It is also at most
  -- 1,024 steps for each unit of the two together: linear.
  local function fan(n)
    local items = {}
    for i = 1, n do items[i] = tostring(n) end
    local recipe = "local consts = {} for i = 1, " .. n .. " do consts[i] = { const = i } end "
      .. "return { schema = { type = 'array', items = { anyOf = consts } }, prompt = 'x', max_attempts = 1 }"
    local r = coax.run(recipe, "x", { source = true, replies = { "[" .. table.concat(items, ",") .. "]" } })
    return r.outcome .. ": " .. r.error.message
  end
  it("spends 8 times the steps on 8 times the consts and items, not 64 times", function()
    assert.are.equal("limit: validation used up its step budget of 3078144 steps (max_steps)", fan(1000))
    assert.are.equal("limit: validation used up its step budget of 24582144 steps (max_steps)", fan(8000))
    local ratio = H.scaling_ratio(fan, 1000, 8)
    assert.is_true(ratio < 12, ratio)
  end)
  it("still validates 20,000 objects through a 40-branch anyOf, and 160,000 items under a small schema", function()
    local items = {}
    local schema = "{ type = 'array', items = { anyOf = { " .. ("{ type = 'object', required = { 'k%d' } }, "):rep(40)
      :gsub("%%d", "40") .. "} } }"
    for i = 1, 20000 do items[i] = '{"k40": 1}' end
    local r = coax.run("return { schema = " .. schema .. ", prompt = 'x' }", "x",
      { source = true, replies = { "[" .. table.concat(items, ",") .. "]" } })
    assert.are.same({ "ok", 20000 }, { r.outcome, #r.value })
    for i = 1, 160000 do items[i] = tostring(i) end
    r = coax.run("return { schema = { type = 'array', items = { type = 'integer', minimum = 1 } }, prompt = 'x' }", "x",
      { source = true, replies = { "[" .. table.concat(items, ",") .. "]" } })
    assert.are.same({ "ok", 160000 }, { r.outcome, #r.value })
  end)
end)
