-- lua5.4 attack/13_schema_scaling.lua [filter]: CPU seconds to compile (and
-- validate a matching instance) schemas of n, 2n, 4n, 8n parts.
package.cpath = "build/?.so;" .. package.cpath
local coax = require "coax"
local json = coax.json
local filter = arg[1]
local function cpu(f) collectgarbage() local t = os.clock() f() return os.clock() - t end
local shapes = {
  anchors_same = function(n) local d = {} for i = 1, n do d["a" .. i] = { ["$anchor"] = "x" .. (i % 2) } end return { ["$defs"] = d }, {} end,
  anchors = function(n) local d = {} for i = 1, n do d["a" .. i] = { ["$anchor"] = "x" .. i } end return { ["$defs"] = d, ["$ref"] = "#x" .. n }, 1 end,
  ids = function(n) local d = {} for i = 1, n do d["a" .. i] = { ["$id"] = "http://e/x" .. i } end return { ["$id"] = "http://e/", ["$defs"] = d, ["$ref"] = "x" .. n }, 1 end,
  required = function(n) local p, r, inst = {}, {}, {} for i = 1, n do p["k" .. i] = { type = "integer" } r[i] = "k" .. i inst["k" .. i] = i end return { properties = p, required = r }, inst end,
  enum_dups = function(n) local e = {} for i = 1, n do e[i] = { a = i % 7 } end return { enum = e }, { a = 3 } end,
  enum_objs = function(n) local e = {} for i = 1, n do e[i] = { a = i } end return { items = { enum = e } }, (function() local t = {} for i = 1, 100 do t[i] = { a = n - i } end return t end)() end,
  unique = function(n) return { uniqueItems = true }, (function() local t = {} for i = 1, n do t[i] = { i, { "x" .. i } } end return t end)() end,
  unique_nums = function(n) return { uniqueItems = true }, (function() local t = {} for i = 1, n do t[i] = i * 1.0 + 0.5 end return t end)() end,
  unique_strs_prefix = function(n) local p = ("p"):rep(1000) return { uniqueItems = true }, (function() local t = {} for i = 1, n // 10 do t[i] = p .. i end return t end)() end,
  dep_required = function(n) local d, inst = {}, {} for i = 1, n do d["k" .. i] = { "k" .. (i % n + 1) } inst["k" .. i] = 1 end return { dependentRequired = d }, inst end,
  deep_props = function(n) local s = { type = "integer" } local inst = 1 for i = 1, math.min(n // 400, 200) do s = { properties = { a = s } } inst = { a = inst } end return s, inst end,
  ref_pointer = function(n) local name = ("a~1b~0"):rep(n // 6) return { ["$defs"] = { [("a/b~"):rep(n // 6)] = { type = "integer" } }, ["$ref"] = "#/$defs/" .. name }, 1 end,
  allof_wide = function(n) local a = {} for i = 1, n do a[i] = { type = "integer" } end return { allOf = a }, 1 end,
  oneof_wide = function(n) local a = {} for i = 1, n do a[i] = { const = i } end return { oneOf = a }, n end,
  prefix_items = function(n) local a, inst = {}, {} for i = 1, n do a[i] = { const = i } inst[i] = i end return { prefixItems = a }, inst end,
  contains_minmax = function(n) return { contains = { const = 1 }, minContains = n, maxContains = n }, (function() local t = {} for i = 1, n do t[i] = 1 end return t end)() end,
  dyn_refs = function(n) local d = {} for i = 1, n do d["d" .. i] = { ["$dynamicAnchor"] = "n" .. i, ["$ref"] = i < n and "#/$defs/d" .. (i + 1) or nil } end return { ["$defs"] = d, ["$ref"] = "#/$defs/d1" }, 1 end,
  props_names = function(n) return { propertyNames = { maxLength = 5 } }, (function() local t = {} for i = 1, n do t["k" .. i] = 1 end return t end)() end,
  pattern_props = function(n) local pp = {} for i = 1, 50 do pp["^k" .. i .. "$"] = { type = "integer" } end return { patternProperties = pp }, (function() local t = {} for i = 1, n do t["k" .. i] = 1 end return t end)() end,
  long_keys = function(n) local k = ("k"):rep(n) return { properties = { [k] = { const = 1 } }, required = { k } }, { [k] = 1 } end,
  mult_of = function(n) return { multipleOf = tonumber("1e-" .. math.min(n // 1000, 300)) }, 12.5 end,
}
local names = {}
for k in pairs(shapes) do names[#names + 1] = k end
table.sort(names)
for _, name in ipairs(names) do
  if not filter or name:find(filter, 1, true) then
    local ts = {}
    for k = 0, 3 do
      local n = (tonumber(os.getenv("N0")) or 10000) * (1 << k)
      local schema, inst = shapes[name](n)
      local text = json.encode(schema)
      local err
      local t = cpu(function()
        local s, e = coax.schema(text)
        if not s then err = e return end
        local ok, errs = s:validate(inst)
        if not ok then err = type(errs) == "table" and (errs[1] and errs[1].error or tostring(errs)) or tostring(errs) end
      end)
      ts[#ts + 1] = string.format("%.3f", t) .. (err and ("!" .. tostring(err):sub(1, 40)) or "")
      if t > 10 then break end
    end
    local r = tonumber(ts[#ts]:match("^[%d.]+")) / math.max(tonumber(ts[1]:match("^[%d.]+")), 2e-3)
    print(string.format("%-20s %s%s", name, table.concat(ts, " "), r > 16 and #ts == 4 and "  <== x" .. math.floor(r) or ""))
    io.stdout:flush()
  end
end
