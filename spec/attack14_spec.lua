--- Attack round 14: the promise "nothing a reply does can hurt the host" against the code that reads
-- model replies for a second value (restated.c), null spelled as text (null_text.c), doubt words
-- (retract.c), comments (lenient_space.c) and formats. Work is compared at n and 8n (linear 8,
-- quadratic 64) or deep and shallow, never against a clock.
local H = require "helper" -- first: it points package.cpath at COAX_BUILD
local coax = require "coax"

local AGE = '{"type":"object","properties":{"age":{"type":"integer"}}}'

-- '"p1":{"age":5},...': n objects that each hold the declared name "age"
local function kids(n, value)
  local t = {}
  for i = 1, n do t[i] = ('"p%d":{"age":%s}'):format(i, value or "5") end
  return table.concat(t, ",")
end

-- A name of seven separators (coerce_norm_key drops them): n names that all read "age" once normalized.
local SEP = { "_", "-", ".", ":", ";", "!", "?", "~" }
local function spelled(i)
  local t = {}
  for d = 1, 7 do t[d], i = SEP[i % 8 + 1], i // 8 end
  return table.concat(t)
end

local function outcome(r)
  local e = r.errors[1]
  return { r.valid, #r.errors, e and e.instanceLocation, e and e.error }
end

local function restated(member)
  return ('the member "%s" gives "age" another value (a correction kept beside it): which one was meant is a guess;'
    .. ' send one value'):format(member)
end

describe("attack 14: a restated member is looked up once per name, not once per object holding it", function()
  -- The index of the names the objects an object holds declare had an entry per member, all of one
  -- name in one chain of linear probes: {"p1": {"age": 5}, ..., "pn": {"age": 5}, "corrected_age": 5}
  -- took a square of n to build, and each lookup whose value equalled them walked all n (100,000
  -- objects: 2.55 s). The index now keeps a list per name, its first entry knowing the first whose
  -- value differs (0.18 s).
  it("5,000 and 40,000 objects holding \"age\" beside \"corrected_age\" cost 8 times the work", function()
    local r
    local ratio = H.scaling_ratio(function(n)
      r = coax.extract("{" .. kids(n) .. ',"corrected_age":5}', AGE)
    end, 5000, 8)
    assert.are.same({ true, 0 }, outcome(r))
    assert.is_true(ratio < 20, ("ratio %.1f"):format(ratio))
  end)

  it("300 and 2,400 spellings of \"age\" in a correction beside as many objects cost 8 times the work", function()
    local r
    local ratio = H.scaling_ratio(function(n)
      local v = {}
      for i = 1, n do v[i] = ('"age%s":5'):format(spelled(i)) end
      r = coax.extract("{" .. kids(n) .. ',"correction":{' .. table.concat(v, ",") .. "}}", AGE)
    end, 300, 8)
    assert.are.same({ true, 0 }, outcome(r))
    assert.is_true(ratio < 20, ("ratio %.1f"):format(ratio))
  end)

  -- Twins: a value that differs from the first, from a later one, or in a correction is still found;
  -- values that all agree are one answer.
  it("still refuses a correction that differs from any object's value, and keeps one that agrees", function()
    assert.are.same({ false, 1, "/corrected_age", restated("corrected_age") },
      outcome(coax.extract('{"p1":{"age":5},"corrected_age":6}', AGE)))
    assert.are.same({ false, 1, "/corrected_age", restated("corrected_age") },
      outcome(coax.extract('{"p1":{"age":5},"p2":{"age":5},"p3":{"age":6},"corrected_age":5}', AGE)))
    assert.are.same({ false, 1, "/correction", restated("correction") },
      outcome(coax.extract('{"p1":{"age":5},"p2":{"age":5},"correction":{"AGE":5,"a-g-e":6}}', AGE)))
    assert.are.same({ true, 0 }, outcome(coax.extract('{"p1":{"age":5},"p2":{"age":5},"corrected_age":5}', AGE)))
    assert.are.same({ true, 0 },
      outcome(coax.extract('{"p1":{"age":5},"p2":{"age":5},"correction":{"AGE":5,"a-g-e":5}}', AGE)))
    assert.are.same({ false, 1, "/age_new", restated("age_new") },
      outcome(coax.extract('{"age":5,"age_new":6}', AGE)))
  end)
end)

describe("attack 14: null spelled as text is placed with one path, not a pointer per string", function()
  -- Every string that spells null had its JSON Pointer written whole and kept, the depth times the
  -- strings: 160,000 "None"s 500 arrays deep (a 1.1 MB reply) took 600 MB and 5 s. The walk now builds
  -- one pointer as it goes and looks each place up in it (27 MB, 0.03 s).
  local OPEN = '{"type":"object","properties":{"a":{},"b":{"type":"string"}}}'
  local function nones(depth, n)
    return '{"b":"None","a":' .. ("["):rep(depth) .. ('"None",'):rep(n) .. "1" .. ("]"):rep(depth) .. "}"
  end

  it("20,000 \"None\"s 500 arrays deep cost about what they cost 10 deep", function()
    local r
    local deep, shallow = H.best_cpu_pair(function() r = coax.extract(nones(500, 20000), OPEN) end,
      function() coax.extract(nones(10, 20000), OPEN) end)
    assert.are.same({ true, 0 }, outcome(r))
    assert.is_true(deep / shallow < 4, ("ratio %.1f"):format(deep / shallow))
  end)

  it("20,000 and 160,000 \"None\"s 200 arrays deep cost 8 times the work", function()
    local r
    local ratio = H.scaling_ratio(function(n) r = coax.extract(nones(200, n), OPEN) end, 20000, 8)
    assert.are.same({ true, 0 }, outcome(r))
    assert.is_true(ratio < 20, ("ratio %.1f"):format(ratio))
  end)

  -- Twins: the place found is still the first that takes null and not true, deep or at the root,
  -- past keys that need escaping; a place that takes a string only keeps the text.
  local NULLABLE = '{"$defs":{"n":{"anyOf":[{"type":"null"},{"type":"string","maxLength":4},'
    .. '{"type":"array","items":{"$ref":"#/$defs/n"}},{"type":"object","additionalProperties":{"$ref":"#/$defs/n"}}]}},'
    .. '"$ref":"#/$defs/n"}'
  local SPELLS = 'a string that spells null where the schema takes null too ("None", "null"): the model\'s null, '
    .. "or the text? send null or another text"
  it("still names the first string that spells null where null is taken", function()
    assert.are.same({ false, 1, "/x/0/a~1b~0c/1", SPELLS },
      outcome(coax.extract('{"x":[{"a/b~c":["abc","None","null"]}]}', NULLABLE)))
    assert.are.same({ false, 1, ("/0"):rep(9) .. "/1", SPELLS },
      outcome(coax.extract(("["):rep(10) .. '"ok","nil"' .. ("]"):rep(10), NULLABLE)))
    assert.are.same({ false, 1, "", SPELLS }, outcome(coax.extract('"None"', '{"type":["string","null"]}')))
    assert.are.same({ true, 0 }, outcome(coax.extract('{"x":["None"]}', '{"type":"object"}')))
    assert.are.same({ true, 0 }, outcome(coax.extract('{"b":"None"}', OPEN)))
  end)
end)

describe("attack 14: an idn-hostname past 253 octets asks libidn2 of no more labels", function()
  -- Each label went to libidn2 and the length was judged at the end: 20 names of 20,000 labels "é" (1.2
  -- MB) took 0.16 s, 135 ns a byte (a reply of max_input, 256 MiB: half a minute). The look now stops
  -- where the name passes 253 octets (0.4 ms).
  local function names(labels)
    return "[" .. ('"' .. ("é."):rep(labels) .. 'x",'):rep(20) .. '"a"]'
  end

  it("20 names of 20,000 labels cost about what the reply costs as plain strings", function()
    local r
    local doc = names(20000)
    local checked, plain = H.best_cpu_pair(
      function() r = coax.extract(doc, '{"type":"array","items":{"format":"idn-hostname"}}') end,
      function() coax.extract(doc, '{"type":"array","items":{"type":"string"}}') end)
    assert.are.same({ false, 20, "/0" }, { r.valid, #r.errors, r.errors[1].instanceLocation })
    local message = 'expected an internationalized host name (format "idn-hostname"), got "'
    assert.are.equal(message, r.errors[1].error:sub(1, #message))
    assert.is_true(checked / plain < 4, ("ratio %.1f"):format(checked / plain))
  end)

  -- Twins at the edge: 253 octets (an A-label counted as sent) pass, 254 do not.
  it("still takes a name of 253 octets and refuses one of 254", function()
    local function valid(s) return coax.extract('"' .. s .. '"', '{"format":"idn-hostname"}').valid end
    local three = ("a"):rep(63) .. "." .. ("b"):rep(63) .. "." .. ("c"):rep(63) .. "."
    assert.is_true(valid(three .. ("d"):rep(61)))
    assert.is_false(valid(three .. ("d"):rep(62)))
    assert.is_true(valid("ü." .. three .. ("d"):rep(53))) -- "xn--tda": 7 octets
    assert.is_false(valid("ü." .. three .. ("d"):rep(54)))
  end)
end)
