--- Attack round 10: the promise "every input-driven cost is near-linear or a
-- named limit" against the code that walks a schema outside the
-- validator's step budget (coercion's trials and its lookups of defaults
-- and declared names). The recipe writes the schema, the model the reply:
-- both sizes count. Work is compared at n and 4n (linear 4, quadratic 16),
-- never against a clock.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

local function members(n, value)
  local t = {}
  for i = 1, n do t[i] = ('"z%d":%s'):format(i, value) end
  return "{" .. table.concat(t, ",") .. "}"
end

-- '"p1","p2",...,"pn"': n quoted names (required lists, enums)
local function quoted(prefix, n)
  local t = {}
  for i = 1, n do t[i] = ('"%s%d"'):format(prefix, i) end
  return table.concat(t, ",")
end

local function branches(n)
  local t = {}
  for i = 1, n do t[i] = ('{"properties":{"q%d":{"default":1}}}'):format(i) end
  return table.concat(t, ",")
end

describe("attack 10: an object's coercion trials are built once, not once per error", function()
  -- Each forbidden member is an error of its own, and each error rebuilt
  -- the trials of the whole object. When a change was planned the others
  -- waited for it; past NAME_COMPARES (4,096 names compared) there is none
  -- to plan, so every member's error scanned every member: 6,000 members
  -- took 7.4 s, 20,000 would take minutes. The trials are now kept for the
  -- plan (coerce_ctx's memo) and each further error reuses them.
  local FORBID = coax.schema('{"type":"object","properties":{"a":{}},"additionalProperties":false}')

  it("5,000 and 20,000 undeclared members: all kept with their errors, in linear work", function()
    local r
    local texts = { [5000] = members(5000, "1"), [20000] = members(20000, "1") }
    local ratio = H.scaling_ratio(function(n) r = coax.extract(texts[n], FORBID) end, 5000, 4)
    assert.are.same({ false, 5000, 'property "z1" is not allowed', "/z5000", 0 }, -- the last run is n's
      { r.valid, #r.errors, r.errors[1].error, r.errors[5000].instanceLocation, #r.coercions })
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
  end)

  -- Under a union every error's trials were built (mark_unions weighs the
  -- branches' readings) and each compared, edit by edit, with the first
  -- branch's: n members under two closed branches took 8.8 s at 4,000.
  -- Errors sharing an object's trials now compare them once.
  it("1,000 and 4,000 undeclared members under a union of two closed objects: dropped, in linear work", function()
    local s = coax.schema('{"anyOf":[{"type":"object","properties":{"a":{}},"additionalProperties":false},'
      .. '{"type":"object","properties":{"a":{},"b":{}},"additionalProperties":false}]}')
    local r
    -- the texts made before: the work timed is the extraction's alone
    local texts = {}
    for _, n in ipairs({ 1000, 4000 }) do texts[n] = members(n, "1"):gsub("^{", '{"a":1,') end
    local ratio = H.scaling_ratio(function(n) r = coax.extract(texts[n], s) end, 1000, 4)
    assert.are.same({ true, 1000, '{"a":1}' }, { r.valid, #r.coercions, coax.json.encode(r.value) })
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
  end)

  it("twins: 4,096 are dropped (each logged), a misspelt absent name keeps its member", function()
    -- numbers the absent "a" cannot take: with "a" of any type each may be it renamed, refused (lefts51, lefts52)
    local r = coax.extract(members(4096, "1"),
      coax.schema('{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}'))
    assert.are.same({ true, 4096, "property_dropped", "/z4096" },
      { r.valid, #r.coercions, r.coercions[1].kind, r.coercions[4096].pointer })
    local s = coax.schema('{"type":"object","properties":{"age":{"type":"integer"},"name":{"type":"string"}},'
      .. '"additionalProperties":false}')
    r = coax.extract('{"name":"Ada","aeg":36}', s)
    assert.are.same({ false, 'property "aeg" is not allowed', 0 }, { r.valid, r.errors[1].error, #r.coercions })
    r = coax.extract('{"Name":"Ada","zz":true}', s)
    assert.are.same({ true, '{"name":"Ada"}' }, { r.valid, coax.json.encode(r.value) })
  end)
end)

describe("attack 10: a union's branch on the failing path is found in the path's length", function()
  -- Looking up a property's default (or whether any schema declares a
  -- name) in a union scanned every branch for the one the path went
  -- through, and went on over the branches after the 64-schema bound had
  -- made the answer unsure: n missing names (or n undeclared members) under
  -- an anyOf of n branches cost n^2. The path's schemas are now placed
  -- among the branches by address, and the scan stops once unsure.
  local function required(n)
    return coax.schema('{"type":"object","required":[' .. quoted("p", n) .. '],"anyOf":[' .. branches(n) .. "]}")
  end

  it("n missing required names under n branches: linear", function()
    local s = { [2000] = required(2000), [8000] = required(8000) }
    local r
    local ratio = H.scaling_ratio(function(n) r = coax.extract("{}", s[n]) end, 2000, 4)
    assert.are.same({ false, 2000, 'missing required property "p1"', 0 },
      { r.valid, #r.errors, r.errors[1].error, #r.coercions })
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
  end)

  it("n undeclared members under n branches (and n dependentSchemas): linear", function()
    for _, kw in ipairs({ "anyOf", "dependentSchemas" }) do
      local function schema(n)
        local b = branches(n)
        if kw == "dependentSchemas" then
          local i = 0
          b = "{" .. b:gsub("{\"properties\"", function() i = i + 1 return ('"k%d":{"properties"'):format(i) end) .. "}"
        else
          b = "[" .. b .. "]"
        end
        return coax.schema('{"type":"object","properties":{"a":{}},"additionalProperties":false,"' .. kw .. '":'
          .. b .. "}")
      end
      local s = { [1000] = schema(1000), [4000] = schema(4000) }
      local r
      local ratio = H.scaling_ratio(function(n) r = coax.extract(members(n, "1"), s[n]) end, 1000, 4)
      assert.are.same({ false, 1000, 0 }, { r.valid, #r.errors, #r.coercions }, kw)
      assert.is_true(ratio < 8, ("%s ratio %.1f"):format(kw, ratio))
    end
  end)

  it("twins: the default of the branch the path went through is filled; a rival's default is not", function()
    local s = coax.schema('{"anyOf":[{"type":"object","properties":{"b":{"default":"x"}},"required":["b"]},'
      .. '{"type":"string"}]}')
    local r = coax.extract("{}", s)
    assert.are.same({ true, '{"b":"x"}' }, { r.valid, coax.json.encode(r.value) })
    s = coax.schema('{"type":"object","required":["p1"],"anyOf":[{"properties":{"p1":{"default":1}}},'
      .. '{"properties":{"q":{"default":1}}}]}')
    r = coax.extract("{}", s)
    assert.are.same({ false, 'missing required property "p1"', 0 }, { r.valid, r.errors[1].error, #r.coercions })
    s = coax.schema('{"type":"object","required":["p1"],"allOf":[' .. branches(100)
      .. ',{"properties":{"p1":{"default":1}}}]}')
    r = coax.extract("{}", s)
    assert.are.same({ false, 0 }, { r.valid, #r.coercions }) -- past 64 schemas: unsure, nothing filled
    s = coax.schema('{"type":"object","required":["p1"],"allOf":[' .. branches(10)
      .. ',{"properties":{"p1":{"default":1}}}]}')
    r = coax.extract("{}", s)
    assert.are.same({ true, '{"p1":1}' }, { r.valid, coax.json.encode(r.value) })
  end)
end)

describe("attack 10: whether bare text may be the answer is decided in bounded work", function()
  -- Before reading a reply, extract asks whether the schema takes a bare
  -- scalar: every branch of an anyOf or oneOf, 8 levels deep. Branches that
  -- refer to the next level's union (w "$ref"s at each level) were w^8
  -- visits: a 1.9 KB schema (w = 10) took 3.5 s, w = 16 minutes. The look
  -- is now bounded by SCALAR_WORK (2^20 members read); past it bare text
  -- is not read (as for any schema that is no scalar).
  local function levels(w, leaf)
    local d = {}
    for i = 0, 7 do
      local b = {}
      for k = 1, w do b[k] = i < 7 and ('{"$ref":"#/$defs/d%d"}'):format(i + 1) or leaf end
      d[#d + 1] = ('"d%d":{"anyOf":[%s]}'):format(i, table.concat(b, ","))
    end
    return coax.schema('{"$ref":"#/$defs/d0","$defs":{' .. table.concat(d, ",") .. "}}")
  end

  it("w = 8 and 32 unions referring to the next, 8 levels: the same work", function()
    local s = { [8] = levels(8, '{"type":"integer"}'), [32] = levels(32, '{"type":"integer"}') }
    local r, e
    local ratio = H.scaling_ratio(function(w) r, e = coax.extract("the answer is 42", s[w]) end, 8, 4)
    assert.are.same({ nil, "no JSON value found in 16 bytes of text" }, { r, e })
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
  end)

  it("twins: bare scalars are read under two-way unions 8 deep and a flat union of 20,000 consts", function()
    local r = coax.extract("42", levels(2, '{"type":"integer"}'))
    assert.are.same({ true, 42 }, { r.valid, r.value })
    local c = {}
    for i = 1, 20000 do c[i] = ('{"const":%d}'):format(i) end
    r = coax.extract("19999", coax.schema('{"anyOf":[' .. table.concat(c, ",") .. "]}"))
    assert.are.same({ true, 19999 }, { r.valid, r.value })
    r = coax.extract("true", levels(2, '{"type":"boolean"}'))
    assert.are.same({ true, true }, { r.valid, r.value })
  end)
end)

describe("attack 10: the streaming reader finds a key's subschema in constant time", function()
  -- `coax extract --partial` (and a session's partials) looked each key up
  -- in its object's "properties" by a scan: a reply's n keys under a schema
  -- of n names were n^2 compares (20,000: 0.36 s, 80,000: 6.6 s). Each
  -- large "properties" is now indexed once per reader.
  local dir = H.tmpdir()
  teardown(function() H.rmtree(dir) end)
  local function files(n)
    local props, reply = {}, {}
    for i = 0, n - 1 do
      props[#props + 1] = ('"k%d":{"type":"integer"}'):format(i)
      reply[#reply + 1] = ('"z%d":"%d","k%d":"%d"'):format(i, i, i, i)
    end
    local schema, text = ("%s/s%d.json"):format(dir, n), ("%s/r%d.json"):format(dir, n)
    H.write(schema, '{"type":"object","additionalProperties":false,"properties":{' .. table.concat(props, ",") .. "}}")
    H.write(text, "{" .. table.concat(reply, ",") .. "}")
    return schema, text
  end
  -- the CPU time of `coax extract --partial` (bash's `times`: its children's user and system time)
  local function partial_cpu(schema, text)
    local p = assert(io.popen(("bash -c %q"):format(("env -u LD_PRELOAD %q extract --partial --schema %q %q "
      .. ">%q/out; times"):format(H.build .. "/coax", schema, text, dir))))
    local report = p:read("a")
    p:close()
    local total = 0
    for m, s in report:match("\n([^\n]*)"):gmatch("(%d+)m([%d.]+)s") do total = total + 60 * m + tonumber(s) end
    return total
  end

  it("20,000 and 80,000 declared keys beside as many undeclared: the same partial, in linear work", function()
    local f = { [20000] = { files(20000) }, [80000] = { files(80000) } }
    local best = {}
    for _, n in ipairs({ 20000, 80000, 20000, 80000, 20000, 80000 }) do
      best[n] = math.min(best[n] or math.huge, partial_cpu(f[n][1], f[n][2]))
    end
    local fh = assert(io.open(dir .. "/out"))
    local out = coax.json.decode(fh:read("a"))
    fh:close()
    assert.are.same({ 80000, 79999, "" }, { #coax.json.keys(out.partial), out.partial.k79999, out.complete[1] })
    local ratio = best[80000] / math.max(best[20000], 0.01)
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
  end)

  -- Each container under a declared root key asked whether the key may
  -- name the whole answer, and that walked the schema for a declaration of
  -- the key (5,000 keys beside 5,000 other names: 0.2 s, 20,000: 3.1 s).
  -- The key is declared where the reader found its subschema: no walk.
  it("5,000 and 20,000 root keys holding objects, a large $defs beside: linear", function()
    local function wrap(n)
      local props, big, reply = {}, {}, {}
      for i = 0, n - 1 do
        props[#props + 1] = ('"k%d":{"type":"object"}'):format(i)
        big[#big + 1] = ('"b%d":{"type":"integer"}'):format(i)
        reply[#reply + 1] = ('"k%d":{}'):format(i)
      end
      local schema, text = ("%s/w%d.json"):format(dir, n), ("%s/wr%d.json"):format(dir, n)
      H.write(schema, '{"$ref":"#/$defs/r","$defs":{"r":{"type":"object","properties":{' .. table.concat(props, ",")
        .. '}},"zbig":{"properties":{' .. table.concat(big, ",") .. "}}}}")
      H.write(text, "{" .. table.concat(reply, ",") .. "}")
      return schema, text
    end
    local f = { [5000] = { wrap(5000) }, [20000] = { wrap(20000) } }
    local best = {}
    for _, n in ipairs({ 5000, 20000, 5000, 20000, 5000, 20000 }) do
      best[n] = math.min(best[n] or math.huge, partial_cpu(f[n][1], f[n][2]))
    end
    local fh = assert(io.open(dir .. "/out"))
    local out = coax.json.decode(fh:read("a"))
    fh:close()
    assert.are.same({ 20000, "" }, { #coax.json.keys(out.partial), out.complete[1] })
    local ratio = best[20000] / math.max(best[5000], 0.01)
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
    -- twins: a declared envelope word holds its container back until the root closes, another key's is complete
    H.write(dir .. "/env.json", '{"type":"object","properties":{"result":{"type":"object"},"a":{"type":"object"}}}')
    assert.are.equal('{"partial": {"a":{},"result":{}}, "complete": ["/a"], "in_progress": "/result/q"}\n',
      H.coax({ "extract", "--partial", "--schema", dir .. "/env.json", "-" }, '{"a": {}, "result": {"q": 1'))
  end)

  it("twins: a small object; a large one with a key declared twice reads it as `coax extract` does", function()
    local out = H.coax({ "extract", "--partial", "--schema", (files(3)), (select(2, files(3))) })
    assert.are.equal('{"partial": {"k0":0,"k1":1,"k2":2}, "complete": [""], "in_progress": null}\n', out)
    local props = {}
    for i = 1, 40 do props[i] = ('"p%d":{"type":"string"}'):format(i) end
    H.write(dir .. "/dup.json", '{"type":"object","properties":{"k":{"type":"integer"},' .. table.concat(props, ",")
      .. ',"k":{"type":"string"}}}')
    out = H.coax({ "extract", "--partial", "--schema", dir .. "/dup.json", "-" }, '{"k": "7", "p1": "x"}')
    assert.are.equal('{"partial": {"k":"7","p1":"x"}, "complete": [""], "in_progress": null}\n', out)
    out = H.coax({ "extract", "--schema", dir .. "/dup.json", "-" }, '{"k": "7", "p1": "x"}')
    assert.are.equal('{"k":"7","p1":"x"}\n', out)
  end)
end)

describe("attack 10: a large enum is indexed once a coercion, its numbers by value", function()
  -- The index of a large enum (loose matching of "usd" to "USD") was kept
  -- for the last enum only: replies whose errors took turns between two
  -- enums of n values rebuilt it at each error (4,000: 0.9 s); and a
  -- numeric string was compared with every number of the enum (8,000 of
  -- each: 0.72 s). Each enum's index is now kept for the coercion, its
  -- numbers chained by their value's hash (1, 1.0 and 10e-1 alike).
  local function words(prefix, n, case)
    local t = {}
    for i = 1, n do t[i] = ('"%s%d"'):format(case and prefix:upper() or prefix, i) end
    return table.concat(t, ",")
  end

  it("n objects whose two members take turns between two enums of n values: linear", function()
    local function schema(n)
      return coax.schema('{"type":"array","items":{"type":"object","properties":{"a":{"enum":['
        .. words("alpha", n, true) .. ']},"b":{"enum":[' .. words("beta", n, true) .. "]}}}}")
    end
    local function reply(n)
      local t = {}
      for i = 1, n do t[i] = ('{"a":"alpha%d","b":"beta%d"}'):format(i, i) end
      return "[" .. table.concat(t, ",") .. "]"
    end
    local s, text = { [1000] = schema(1000), [4000] = schema(4000) }, { [1000] = reply(1000), [4000] = reply(4000) }
    local r
    local ratio = H.scaling_ratio(function(n) r = coax.extract(text[n], s[n]) end, 1000, 4)
    assert.are.same({ true, 2000, "ALPHA1000", "BETA7" }, { r.valid, #r.coercions, r.value[1000].a, r.value[7].b })
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
  end)

  it("n numeric strings against an enum of n numbers: linear", function()
    local function schema(n)
      local t = {}
      for i = 1, n do t[i] = tostring(2 * i) end
      return coax.schema('{"type":"array","items":{"enum":[' .. table.concat(t, ",") .. "]}}")
    end
    local function reply(n)
      local t = {}
      for i = 1, n do t[i] = ('"%d"'):format(2 * i) end
      return "[" .. table.concat(t, ",") .. "]"
    end
    local s, text = { [1000] = schema(1000), [4000] = schema(4000) }, { [1000] = reply(1000), [4000] = reply(4000) }
    local r
    local ratio = H.scaling_ratio(function(n) r = coax.extract(text[n], s[n]) end, 1000, 4)
    assert.are.same({ true, 1000, 2000 }, { r.valid, #r.coercions, r.value[1000] })
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
  end)

  it("twins: a number spelt another way matches; two equal numbers or none leave the error", function()
    local t = {}
    for i = 1, 40 do t[i] = tostring(2 * i) end
    local base = table.concat(t, ",")
    for _, c in ipairs({ { base, '"1e1"', true, 10 }, { base, '"10.0"', true, 10 }, { base, '" 10 "', true, 10 },
      { base .. ",10.0", '"10"', false, "10" }, { base, '"11"', false, "11" },
      { base .. ',"Ten"', '"ten"', true, "Ten" } }) do
      local r = coax.extract(c[2], coax.schema('{"enum":[' .. c[1] .. "]}"))
      assert.are.same({ c[3], c[4] }, { r.valid, r.value }, c[2])
    end
  end)
end)

describe("attack 10: a string wrapped into a list is looked up in a large enum of its items once", function()
  -- Whether a string is an allowed item (so "a,b" is one item, not two)
  -- scanned the items' enum for each string: n strings sent for lists of
  -- an enum of n values (16,000: 0.26 s, 64,000: about 4 s). A large enum
  -- is looked up through its index.
  local function schema(n)
    return coax.schema('{"type":"array","items":{"type":"array","items":{"enum":[' .. quoted("v", n) .. "]}}}")
  end
  local function reply(n) return "[" .. ('"v%d",'):format(n):rep(n - 1) .. ('"v%d"]'):format(n) end

  it("4,000 and 16,000 strings for lists of an enum of as many: linear", function()
    local s, text = { [4000] = schema(4000), [16000] = schema(16000) }, { [4000] = reply(4000), [16000] = reply(16000) }
    local r
    local ratio = H.scaling_ratio(function(n) r = coax.extract(text[n], s[n]) end, 4000, 4)
    assert.are.same({ 4000, "v4000" }, { #r.coercions, r.value[4000][1] })
    assert.is_true(ratio < 8, ("ratio %.1f"):format(ratio))
  end)

  it("twins: an allowed item with a separator is one item; separated allowed items are not guessed", function()
    local s = coax.schema('{"type":"array","items":{"type":"array","items":{"enum":[' .. quoted("v", 40)
      .. ',"a,b","a","b","c;d"]}}}')
    for _, c in ipairs({ { '["v3"]', true, '[["v3"]]' }, { '["c;d"]', true, '[["c;d"]]' },
      { '["a,b"]', false, '["a,b"]' }, { '["v1;v2"]', false, '["v1;v2"]' }, { '["x"]', false, '["x"]' } }) do
      local r = coax.extract(c[1], s)
      assert.are.same({ c[2], c[3] }, { r.valid, coax.json.encode(r.value) }, c[1])
    end
  end)
end)
