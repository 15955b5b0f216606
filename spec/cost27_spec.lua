--- Cost round 27: coercion reads each error's locations a bounded number of times, a word at a time.
-- An error's instance location is as long as the keys on its way, and its keyword location grows with
-- the schema's depth: under a 20,000-byte key, or 100 levels of anyOf, each is kilobytes. Coercion read
-- both a dozen times an error (each map hashed them a byte at a time, the union under the keyword path
-- was parsed anew by each question, a pointer's tokens were copied a byte at a time to be looked up):
-- 42 to 52 times the validation's work. Each error is now read once a validation (coerce_error_read),
-- the maps hash a word at a time, and a pointer's token is looked up where it lies.
local H = require "helper"
local coax = require "coax"
local json = require "cjson"

local function strings(n) -- "0","1",...
  local t = {}
  for i = 1, n do t[i] = ('"%d"'):format(i - 1) end
  return table.concat(t, ",")
end

local function pointers(r)
  local t = {}
  for i, c in ipairs(r.coercions) do t[i] = c.kind .. " " .. c.pointer end
  return t
end

describe("cost 27: coercion under long locations", function()
  -- a list of integers under any depth of objects
  local WIDE = assert(coax.schema('{"$defs":{"n":{"anyOf":[{"type":"object","additionalProperties":'
    .. '{"$ref":"#/$defs/n"}},{"type":"array","items":{"type":"integer"}}]}},"$ref":"#/$defs/n"}'))
  local DEEP = assert(coax.schema('{"$defs":{"n":{"anyOf":[{"type":"object","properties":{"a":'
    .. '{"$ref":"#/$defs/n"}}},{"type":"array","items":{"type":"integer"}}]}},"$ref":"#/$defs/n"}'))
  local key = ("k"):rep(20000)
  local long = '{"' .. key .. '": [' .. strings(310) .. ']}'
  local deep = ('{"a":'):rep(100) .. "[" .. strings(1000) .. "]" .. ("}"):rep(100)

  -- extracting 'reply' costs less than 20 times validating it (the least CPU times of several runs);
  -- returns the extraction
  local function within_20_validations(reply, schema)
    local v = json.decode(reply)
    local extract, validate = H.best_cpu_pair(function() coax.extract(reply, schema) end,
      function() schema:validate(v) end)
    assert.is_true(extract / validate < 20, ("extract / validate = %.1f"):format(extract / validate))
    return coax.extract(reply, schema)
  end

  it("310 strings under a key of 20,000 bytes: at most 20 times the validation's work (52 before)", function()
    local r = within_20_validations(long, WIDE)
    assert.is_true(r.valid)
    assert.are.equal(310, #r.coercions)
    local last = r.coercions[310]
    assert.are.same({ "string_to_integer", "/" .. key .. "/309" }, { last.kind, last.pointer })
    assert.are.equal(309, r.value[key][310])
  end)

  it("1,000 strings 100 objects deep under anyOf: at most 20 times the validation's work (42 before)", function()
    local r = within_20_validations(deep, DEEP)
    assert.is_true(r.valid)
    assert.are.equal(1000, #r.coercions)
    assert.are.equal(("/a"):rep(100) .. "/999", r.coercions[1000].pointer)
    local x = r.value
    for _ = 1, 100 do x = x.a end
    assert.are.same({ 0, 1, 998, 999 }, { x[1], x[2], x[999], x[1000] })
  end)

  -- twins: what stays wrong stays an error at its place; escaped tokens are unescaped before the lookup
  it("twins: a string no integer reads stays an error, under the long key and 100 levels down", function()
    local r = coax.extract('{"' .. key .. '": ["1", "x", "3"]}', WIDE)
    assert.is_false(r.valid)
    assert.are.same({ "string_to_integer /" .. key .. "/0", "string_to_integer /" .. key .. "/2" }, pointers(r))
    local at = {}
    for _, e in ipairs(r.errors) do at[e.instanceLocation] = true end
    assert.is_true(at["/" .. key .. "/1"])
    local d = coax.extract(('{"a":'):rep(100) .. '["1", "x"]' .. ("}"):rep(100), DEEP)
    assert.is_false(d.valid)
    assert.are.same({ "string_to_integer " .. ("/a"):rep(100) .. "/0" }, pointers(d))
  end)

  it("twins: keys with '/' and '~' (escaped in the pointer) are coerced at their own places", function()
    local s = assert(coax.schema('{"type":"object","additionalProperties":{"type":"array",'
      .. '"items":{"type":"integer"}}}'))
    local r = coax.extract('{"a/b~c": ["1", "x"], "~1": ["2"], "/": ["3"], "": ["4"], "~": [true]}', s)
    assert.is_false(r.valid)
    assert.are.same({ "string_to_integer /a~1b~0c/0", "string_to_integer /~01/0", "string_to_integer /~1/0",
      "string_to_integer //0" }, pointers(r))
    assert.are.same({ { 1, "x" }, { 2 }, { 3 }, { 4 }, { true } },
      { r.value["a/b~c"], r.value["~1"], r.value["/"], r.value[""], r.value["~"] })
    local tilde = ("~"):rep(3000) .. "/" .. ("~0"):rep(3000)
    local t = coax.extract(json.encode({ [tilde] = { "7" } }), s)
    assert.is_true(t.valid)
    assert.are.same({ 7 }, t.value[tilde])
    assert.are.equal("/" .. ("~0"):rep(3000) .. "~1" .. ("~00"):rep(3000) .. "/0", t.coercions[1].pointer)
  end)
end)

-- An example's property names: each was looked for by a scan of those before it, the included ones
-- counted anew for each one added, and each looked up by a scan of the "properties" object: quadratic
-- in the names (16,000 required: 1.6 G instructions), capped at 1,024 names, past which the example
-- failed "missing required property" for a name the cap dropped. Now an index each, and no cap: the
-- step budget (a step a value made) bounds an object as it bounds an array, and says so.
describe("cost 27: an example's many property names", function()
  local function required_names(n)
    local p, r = {}, {}
    for i = 1, n do
      p[i] = ('"k%d":{"type":"integer"}'):format(i)
      r[i] = ('"k%d"'):format(i)
    end
    return '{"type":"object","properties":{' .. table.concat(p, ",") .. '},"required":[' .. table.concat(r, ",")
      .. "]}"
  end

  it("4 times the required names (2,000 and 8,000) cost at most 8 times the work, every name there", function()
    local schemas = { [2000] = assert(coax.schema(required_names(2000))),
      [8000] = assert(coax.schema(required_names(8000))) }
    local r = H.scaling_ratio(function(n) assert.is_table(coax.example(schemas[n])) end, 2000, 4)
    assert.is_true(r < 8, ("time(8000) / time(2000) = %.2f (linear 4, quadratic 16)"):format(r))
    local v = coax.example(schemas[8000])
    local count = 0
    for _ in pairs(v) do count = count + 1 end
    assert.are.same({ 8000, 1, 1 }, { count, v.k1025, v.k8000 })
  end)

  it("twins: past the step limit an object, or an array, says so; with the steps it is made", function()
    assert.are.same({ nil, "no valid instance found within the step limit (max_steps)" },
      { coax.example(required_names(40000)) })
    local list = '{"type":"array","minItems":25641,"uniqueItems":true,"items":{"type":"integer"}}'
    assert.are.same({ nil, "no valid instance found within the step limit (max_steps)" }, { coax.example(list) })
    local v = coax.example(list, { max_steps = 60000 })
    assert.are.same({ 25641, 1, 25641 }, { #v, v[1], v[25641] })
    -- past 65,536 items whatever the steps (2^60 items under as many steps wrapped their size: a crash)
    assert.are.same({ nil, "no valid instance found within the size limit (an array of at most 65536 items)" },
      { coax.example('{"type":"array","minItems":1152921504606846976}', { max_steps = 2 ^ 62 }) })
    assert.are.same({ nil, "no valid instance found: at \"\": no value is allowed here (the schema is false), "
      .. "got null" }, { coax.example("false") })
  end)
end)
