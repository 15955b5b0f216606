-- The inverse check (hunt22): every valid instance of the JSON-Schema-Test-Suite, and an example of
-- each schema named, perturbed the ways models write; each value coax accepts is compared with the
-- instance. Prints DIFF (a value neither the instance nor the reply as written: judge it),
-- VALIDPERT-CHANGED (a valid reply changed), UNCHANGED-* (the instance itself changed or refused).
--   COAX_BUILD=build lua5.4 bench/extract/inverse_check.lua draft2020-12 [schemas/*.json ...]
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;spec/?.lua;" .. package.path
local coax = require "coax"
local json = coax.json
local T = json.type

local function copy(v)
  return json.decode(json.encode(v))
end
local function eq(a, b)
  local ta, tb = T(a), T(b)
  if ta ~= tb then return false end
  if ta == "number" then return a == b end
  if ta == "array" then
    if #a ~= #b then return false end
    for i = 1, #a do if not eq(a[i], b[i]) then return false end end
    return true
  end
  if ta == "object" then
    for k, v in pairs(a) do if b[k] == nil or not eq(v, b[k]) then return false end end
    for k in pairs(b) do if a[k] == nil then return false end end
    return true
  end
  return a == b
end
-- all paths in v
local function paths(v, p, out)
  out[#out + 1] = p
  local t = T(v)
  if t == "array" then for i = 1, #v do local q = {table.unpack(p)}; q[#q + 1] = i; paths(v[i], q, out) end
  elseif t == "object" then for k, x in pairs(v) do local q = {table.unpack(p)}; q[#q + 1] = k; paths(x, q, out) end end
  return out
end
local function get(v, p) for _, k in ipairs(p) do v = v[k] end return v end
local function set(root, p, nv)
  if #p == 0 then return nv end
  local parent = get(root, {table.unpack(p, 1, #p - 1)})
  parent[p[#p]] = nv
  return root
end
local function recase(s)
  local out = {}
  if s:find("_") then out[#out + 1] = (s:gsub("_(%w)", function(c) return c:upper() end)) end
  if s:find("%l%u") then out[#out + 1] = (s:gsub("(%l)(%u)", function(a, b) return a .. "_" .. b:lower() end)) end
  if s:upper() ~= s then out[#out + 1] = s:upper() end
  if s:lower() ~= s then out[#out + 1] = s:lower() end
  if s:find("[_%-]") then out[#out + 1] = (s:gsub("[_%-]", " ")) end
  if #s > 0 and s:sub(1, 1):lower() == s:sub(1, 1) then out[#out + 1] = s:sub(1, 1):upper() .. s:sub(2) end
  return out
end
-- perturbations: list of {desc, text}
local function perturb(x)
  local res = {}
  local function add(desc, v) res[#res + 1] = { desc, type(v) == "string" and v or json.encode(v) } end
  for _, p in ipairs(paths(x, {}, {})) do
    local v = get(x, p)
    local t = T(v)
    local ps = json.encode(p)
    if t == "number" then
      add("num-as-string " .. ps, set(copy(x), p, json.encode(v)))
      if math.type(v) == "integer" then add("int-as-float " .. ps, set(copy(x), p, v + 0.0)) end
    elseif t == "string" then
      add("string-wrapped " .. ps, set(copy(x), p, json.decode("[" .. json.encode(v) .. "]")))
      for _, r in ipairs(recase(v)) do add("string-recased " .. ps .. " " .. r, set(copy(x), p, r)) end
      add("string-spaced " .. ps, set(copy(x), p, " " .. v .. " "))
    elseif t == "boolean" then
      add("bool-as-string " .. ps, set(copy(x), p, tostring(v)))
    elseif t == "null" then
      add("null-as-string " .. ps, set(copy(x), p, "null"))
    elseif t == "array" then
      if #v == 1 then add("unwrap " .. ps, set(copy(x), p, copy(v[1]))) end
      add("wrap-array " .. ps, set(copy(x), p, json.decode("[" .. json.encode(v) .. "]")))
    elseif t == "object" then
      for k, m in pairs(v) do
        local c = copy(x); local o = get(c, p); o[k] = nil
        add("drop " .. ps .. " " .. k, c)
        for _, r in ipairs(recase(k)) do
          c = copy(x); o = get(c, p); o[k] = nil; o[r] = copy(m)
          add("rekey " .. ps .. " " .. k .. "->" .. r, c)
        end
        c = copy(x); o = get(c, p); o[k .. "s"] = copy(m)
        add("addclose " .. ps .. " " .. k .. "s", c)
        if #k > 2 then
          c = copy(x); o = get(c, p); o[k] = nil; o[k:sub(1, 1) .. k:sub(3, 3) .. k:sub(2, 2) .. k:sub(4)] = copy(m)
          add("typo " .. ps .. " " .. k, c)
        end
      end
      add("wrap-array " .. ps, set(copy(x), p, json.decode("[" .. json.encode(v) .. "]")))
    end
  end
  return res
end

local function run(name, schema_text, x, sch)
  local xt = json.encode(x)
  local r = coax.extract(xt, schema_text)
  if not (r and r.valid) then
    print(("UNCHANGED-REFUSED %s: %s"):format(name, xt)); io.stdout:flush()
  elseif not eq(copy(r.value), x) then
    print(("UNCHANGED-CHANGED %s: %s -> %s"):format(name, xt, json.encode(r.value)))
  end
  for _, pt in ipairs(perturb(x)) do
    local ok, r2 = pcall(coax.extract, pt[2], schema_text)
    if ok and r2 and r2.valid then
      local y = copy(r2.value)
      local xp = json.decode(pt[2])
      local xp_valid = sch and sch:validate(xp)
      if xp_valid and not eq(y, xp) then
        print(("VALIDPERT-CHANGED %s [%s]: %s -> %s"):format(name, pt[1], pt[2], json.encode(y)))
      elseif not xp_valid and not eq(y, x) then
        print(("DIFF %s [%s]: x=%s x'=%s -> %s"):format(name, pt[1], xt, pt[2], json.encode(y)))
      elseif not xp_valid then
        print(("INVERSE %s [%s]: x'=%s -> x"):format(name, pt[1], pt[2]))
      end
    end
  end
end


local drafts = { ["draft2020-12"] = "https://json-schema.org/draft/2020-12/schema",
  ["draft2019-09"] = "https://json-schema.org/draft/2019-09/schema",
  draft7 = "http://json-schema.org/draft-07/schema#" }
local root = os.getenv("COAX_SUITE") or "spec/json-schema-test-suite/tests/"
for _, a in ipairs(arg) do
  if drafts[a] then
    local p = io.popen("ls " .. root .. a .. "/*.json")
    for f in p:lines() do
      local fh = io.open(f)
      local groups = json.decode(fh:read("a"))
      fh:close()
      for gi = 1, #groups do
        local g = groups[gi]
        local s = g.schema
        if json.type(s) == "object" and s["$schema"] == nil then s["$schema"] = drafts[a] end
        local st = json.encode(s)
        local okc, sch = pcall(coax.schema, st)
        for ti = 1, okc and #g.tests or 0 do
          local t = g.tests[ti]
          if t.valid then
            local name = f:match("[^/]+$") .. "#" .. g.description .. "#" .. t.description
            local ok, err = pcall(run, name, st, t.data, sch)
            if not ok then print("ERR", err) end
          end
        end
      end
    end
    p:close()
  else
    local fh = io.open(a)
    local st = fh:read("a")
    fh:close()
    local ok, ex = pcall(coax.example, st)
    if ok then run(a, st, copy(type(ex) == "string" and json.decode(ex) or ex), coax.schema(st))
    else print("NOEX", a, ex) end
  end
end
