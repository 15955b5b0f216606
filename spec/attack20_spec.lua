--- Attack round 20: work a reply makes the engine do where no budget counted it.
--
-- The extraction asks whether a "patternProperties" of the schema names a member before it drops
-- the member, or before it takes a single key for an envelope around the answer; it asks every
-- such object its walk of the schema meets, under "dependentSchemas", "then" and "else" too,
-- where the validation never ran the patterns (their condition did not hold). Those matches had
-- PCRE2's limit of one match alone, no budget over them: a schema of 3 KB with 160 patterns that
-- backtrack (`^(a|a)+$`) under a dependentSchemas, and a reply of 1 KB with 40 undeclared members
-- of 17 a's each, took 51 s to extract (and 40 patterns, 10 members of 259 bytes: 3.1 s). The
-- look-ups of one extraction now share a budget of regex steps (COAX_SCHEMA_NAMES_REGEX,
-- engine/schema/schema.h, the validation's least budget); past it a name is one a pattern may
-- match, so nothing is dropped or unwrapped on it: the reply is refused with its errors.
local H = require "helper"
local coax = require "coax"
local json = coax.json

-- Extracting big_reply under big_schema costs less than 'bound' times extracting small_reply
-- under small_schema (the least CPU time of five runs each, in turns).
local function assert_extract_ratio(small_reply, small_schema, big_reply, big_schema, bound)
  local big, small = H.best_cpu_pair(function() coax.extract(big_reply, big_schema) end,
    function() coax.extract(small_reply, small_schema) end)
  assert.is_true(big / small < bound, ("ratio %.1f"):format(big / small))
end

-- A closed object whose dependentSchemas (never triggered) holds k patterns that backtrack.
local function closed_schema(k, pattern)
  local pp = {}
  for i = 1, k do pp[(pattern or "^(a|a)+$|z") .. i] = {} end
  return assert(coax.schema(json.encode({
    type = "object", properties = { b = { type = "integer" } }, additionalProperties = false,
    dependentSchemas = { never = { patternProperties = pp } } })))
end

-- {"b": 2} and m undeclared members of n a's, an x and their number.
local function members_reply(m, n)
  local parts = { '"b": 2' }
  for i = 1, m do parts[#parts + 1] = ('"%sx%d": 1'):format(("a"):rep(n), i) end
  return "{" .. table.concat(parts, ", ") .. "}"
end

describe("attack 20: the patterns an extraction asks of member names share one budget", function()
  it("16 times the patterns and members (40 and 10, 160 and 40) cost at most 3 times the work", function()
    assert_extract_ratio(members_reply(10, 17), closed_schema(40), members_reply(40, 17), closed_schema(160), 3)
  end)

  it("past the budget nothing is dropped: every undeclared member keeps its error", function()
    local r = coax.extract(members_reply(40, 17), closed_schema(160))
    assert.is_false(r.valid)
    assert.are.equal(40, #r.errors)
    assert.are.equal("/" .. ("a"):rep(17) .. "x1", r.errors[1].instanceLocation)
    assert.are.equal("/additionalProperties", r.errors[1].keywordLocation)
    assert.are.same({}, r.coercions)
    assert.are.equal(41, #json.keys(r.value))
  end)

  it("nor is a key taken off as an envelope", function()
    local pp = {}
    for i = 1, 20 do pp["^(a|a)+$|z" .. i] = {} end
    local s = assert(coax.schema(json.encode({ type = "object", required = { "b" },
      properties = { b = { type = "integer" } }, dependentSchemas = { never = { patternProperties = pp } } })))
    local r = coax.extract('{"' .. ("a"):rep(17) .. 'x": {"b": [1]}}', s)
    assert.is_false(r.valid)
    assert.are.equal('{"' .. ("a"):rep(17) .. 'x":{"b":[1]}}', json.encode(r.value))
  end)

  it("twins: a cheap pattern that names a member keeps every member, one that names none drops them", function()
    local s = closed_schema(3, "^x_")
    local kept = coax.extract('{"b": 2, "x_11": 1, "y": 1}', s)
    assert.is_false(kept.valid)
    assert.are.equal('{"b":2,"x_11":1,"y":1}', json.encode(kept.value))
    local dropped = coax.extract('{"b": 2, "y": 1, "z": 1}', s)
    assert.is_true(dropped.valid)
    assert.are.equal('{"b":2}', json.encode(dropped.value))
    assert.are.same({ "/y", "/z" }, { dropped.coercions[1].pointer, dropped.coercions[2].pointer })
  end)

  it("twins: a key no cheap pattern names is still taken off as an envelope", function()
    local s = assert(coax.schema(json.encode({ type = "object", required = { "b" },
      properties = { b = { type = "integer" } },
      dependentSchemas = { never = { patternProperties = { ["^x_"] = {} } } } })))
    local r = coax.extract('{"invoice": {"b": 1}}', s)
    assert.is_true(r.valid)
    assert.are.equal('{"b":1}', json.encode(r.value))
  end)
end)

-- Defaults: n required properties refer to one $defs entry whose allOf gives w copies of a default
-- of B integers. The reply {} had each default compared with its copies (n x w x B) and copied
-- into the value (n x B): a schema of 427 KB (3,200 x 8 x 8,000) made a value of 124 MB in 5.4 s
-- and 1.4 GB (coax extract), the square of the schema's size. What one extraction compares and
-- fills of defaults is now at most COERCE_DEFAULT_VALUES (2^20) JSON values
-- (engine/extract/coerce.h); past it no default is filled, and the missing names keep their errors.
local function defaults_schema(n, b, w)
  local big, all, props, required = {}, {}, {}, {}
  for i = 1, b do big[i] = i end
  for i = 1, w do all[i] = { default = big } end
  for i = 1, n do props["p" .. i], required[i] = { ["$ref"] = "#/$defs/d" }, "p" .. i end
  return assert(coax.schema(json.encode({ type = "object", properties = props, required = required,
    ["$defs"] = { d = { allOf = all } } })))
end

describe("attack 20: the defaults one extraction compares and fills are bounded", function()
  it("4 times the names and the default (800 x 2,000, 3,200 x 8,000) cost at most 8 times the work", function()
    assert_extract_ratio("{}", defaults_schema(800, 2000, 8), "{}", defaults_schema(3200, 8000, 8), 8)
  end)

  it("past the bound no default is filled: every missing name keeps its error", function()
    local r = coax.extract("{}", defaults_schema(800, 2000, 8))
    assert.is_false(r.valid)
    assert.are.equal(800, #r.errors)
    assert.are.equal("/required", r.errors[1].keywordLocation)
    assert.are.same({}, r.coercions)
    assert.are.equal("{}", json.encode(r.value))
  end)

  it("twins: 100 names refer to a default of 10 given 8 times: each is filled", function()
    local r = coax.extract("{}", defaults_schema(100, 10, 8))
    assert.is_true(r.valid)
    assert.are.equal(100, #r.coercions)
    assert.are.equal("default_filled", r.coercions[1].kind)
    assert.are.equal("[1,2,3,4,5,6,7,8,9,10]", json.encode(r.value.p1))
    assert.are.equal("[1,2,3,4,5,6,7,8,9,10]", json.encode(r.value.p100))
  end)

  it("twins: two defaults that differ still fill nothing, within the bound or past it", function()
    local s = assert(coax.schema(json.encode({ type = "object", required = { "a" },
      properties = { a = { allOf = { { default = 1 }, { default = 2 } } } } })))
    local r = coax.extract("{}", s)
    assert.is_false(r.valid)
    assert.are.same({}, r.coercions)
  end)
end)

-- The extraction's index of a large "properties" (or "$defs") by name was kept for the four latest
-- objects: a walk for each member it would drop went through the root's and eight allOf branches'
-- objects, each index built again, members times names (8,000 undeclared members beside 8 x 8,000
-- names: 10.6 s, 4 times both 28 times the work). Each object's index is now built once a plan.
local function branches_schema(w, p)
  local all = {}
  for j = 1, w do
    local props = {}
    for i = 1, p do props[("q%d_%d"):format(j, i)] = {} end
    all[j] = { properties = props }
  end
  return assert(coax.schema(json.encode({ type = "object", properties = { b = { type = "integer" } },
    additionalProperties = false, allOf = all })))
end

local function undeclared_reply(m)
  local parts = { '"b": 1' }
  for i = 1, m do parts[#parts + 1] = ('"zz%d": %d'):format(i, i) end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- Under schema s, m undeclared members are each dropped; beside a member s declares only through
-- a branch ('declared'), nothing is.
local function assert_drops_and_keeps(s, m, declared)
  local r = coax.extract(undeclared_reply(m), s)
  assert.is_true(r.valid)
  assert.are.equal('{"b":1}', json.encode(r.value))
  assert.are.equal(m, #r.coercions)
  assert.are.equal("/zz1", r.coercions[1].pointer)
  local kept = coax.extract(('{"b": 1, "%s": 2, "zz": 3}'):format(declared), s)
  assert.is_false(kept.valid)
  assert.are.equal(('{"b":1,"%s":2,"zz":3}'):format(declared), json.encode(kept.value))
end

describe("attack 20: each large object of the schema is indexed once an extraction", function()
  it("4 times the members and names under 8 branches (1,000, 4,000) cost at most 8 times the work", function()
    assert_extract_ratio(undeclared_reply(1000), branches_schema(8, 1000), undeclared_reply(4000),
      branches_schema(8, 4000), 8)
  end)

  it("still drops each undeclared member, and keeps one a branch declares", function()
    assert_drops_and_keeps(branches_schema(8, 1000), 1000, "q8_1000")
  end)
end)

-- A local "$ref" was resolved again at each walk that met it: a walk for each member it would
-- drop, through 10 references to keys of 40,000 bytes, cost the members times the pointers' length
-- (4,000 members: 0.97 s). What a reference resolves to is now kept for the extraction.
local function long_refs_schema(k, w)
  local key, all, defs = ("k"):rep(k), {}, {}
  for i = 1, w do
    all[i] = { ["$ref"] = "#/$defs/" .. key .. i }
    defs[key .. i] = { properties = { ["c" .. i] = {} } }
  end
  for i = 1, 20 do defs["pad" .. i] = {} end
  return assert(coax.schema(json.encode({ type = "object", properties = { b = { type = "integer" } },
    additionalProperties = false, allOf = all, ["$defs"] = defs })))
end

describe("attack 20: a local reference is resolved once an extraction", function()
  it("4 times the pointers' length and the members (10,000 x 1,000, 40,000 x 4,000): at most 8 times", function()
    assert_extract_ratio(undeclared_reply(1000), long_refs_schema(10000, 10), undeclared_reply(4000),
      long_refs_schema(40000, 10), 8)
  end)

  it("still reads what each reference names: a member it declares is kept, the others dropped", function()
    assert_drops_and_keeps(long_refs_schema(100, 10), 100, "c10")
  end)
end)

-- The C stack. A value the engine hands a script (coax.json.decode, a reply, an event's data) was
-- built by a C recursion, a level of about 200 bytes a level of nesting: a recipe's decode of 4,000
-- levels (its limits allow 4,096) needed 800 KB of stack, and a host thread of 512 KB (macOS's
-- default for threads other than the main one) died of a segfault. It is built with a stack of
-- frames in the Lua state now (engine/script/lib_json.c's push_tree). What still recurses in C is
-- bounded: a validation at its nesting limit (1,024) takes about 350 KB; the README asks for 512 KB.
local coax_in_stack = H.coax_in_stack

local DECODE = [[
local coax = require "coax"
return { schema = { type = "object" }, prompt = "p", agent = { call = function()
  local ok, v = pcall(coax.json.decode, ("["):rep(%d) .. ("]"):rep(%d), { max_depth = 5000 })
  local depth, err = 0, not ok and v
  while type(v) == "table" do depth, v = depth + 1, v[1] end
  return { text = coax.json.encode({ depth = depth, err = err or "none" }) }
end } }
]]

describe("attack 20: what runs in C needs a bounded stack", function()
  it("a recipe decodes 4,000 levels on a C stack of 256 KB", function()
    local recipe = H.tmpfile(DECODE:format(4000, 4000))
    local out, code = coax_in_stack(256, { "run", recipe, "--agent", "replay", "--replay", H.tmpfile('"{}"\n') })
    os.remove(recipe)
    assert.are.equal(0, code)
    assert.are.equal('{"depth":4000,"err":"none"}\n', out)
  end)

  it("twin: 4,097 levels are past the cap of a decode, whatever its limits say", function()
    local recipe = H.tmpfile(DECODE:format(4097, 4097))
    local out, code = coax_in_stack(256, { "run", recipe, "--agent", "replay", "--replay", H.tmpfile('"{}"\n') })
    os.remove(recipe)
    assert.are.equal(0, code)
    assert.are.equal('{"depth":0,"err":"COAX_EDEPTH: nesting deeper than 4096"}\n', out)
  end)

  it("a reply 500 levels deep under a recursive schema is validated on a C stack of 512 KB", function()
    local schema = H.tmpfile('{"$defs":{"n":{"type":["array","integer"],"items":{"$ref":"#/$defs/n"}}},'
      .. '"$ref":"#/$defs/n"}')
    local ok_reply = H.tmpfile(("["):rep(500) .. "1" .. ("]"):rep(500))
    local bad_reply = H.tmpfile(("["):rep(511) .. '"1", {"a": "x"}' .. ("]"):rep(511))
    local out, code = coax_in_stack(512, { "extract", "--schema", schema, ok_reply })
    assert.are.equal(0, code)
    assert.are.equal(("["):rep(500) .. "1" .. ("]"):rep(500) .. "\n", out)
    out, code = coax_in_stack(512, { "extract", "--schema", schema, bad_reply })
    assert.are.equal(4, code) -- the nesting limit (1,024 evaluations), not the stack
    assert.are.equal("", out)
    for _, f in ipairs({ schema, ok_reply, bad_reply }) do os.remove(f) end
  end)
end)
