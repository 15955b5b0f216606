--- Writes the fuzzers' seed corpora into a build folder (never committed):
--   lua5.4 spec/fuzz/seeds.lua OUT [BUILD]
-- OUT/<harness>/ gets one file per seed, from the specs' fixtures: the peer
-- repair inputs and their outputs, the extract cases, the held-out token
-- texts, and every schema and instance of the JSON-Schema-Test-Suite
-- (2020-12 and draft 7) with its patterns. BUILD (default "build") holds
-- coax.so, whose JSON functions keep [] and {} apart. Hand-picked seeds are
-- committed in spec/fuzz/seeds/<harness>/ and read by `make fuzz` directly.
local out, build = arg[1], arg[2] or "build"
assert(out, "usage: lua5.4 spec/fuzz/seeds.lua OUT [BUILD]")
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "spec/fixtures/?.lua;" .. package.path
local coax = require "coax"
local json = coax.json

local counts = {}

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function seed(harness, text)
  if not counts[harness] then
    assert(os.execute("mkdir -p '" .. out .. "/" .. harness .. "'"))
    counts[harness] = 0
  end
  counts[harness] = counts[harness] + 1
  local f = assert(io.open(string.format("%s/%s/s%05d", out, harness, counts[harness]), "wb"))
  f:write(text)
  f:close()
end

-- Repair: the peers' test inputs; their repaired outputs are strict JSON.
for line in io.lines("spec/fixtures/repair_pairs.jsonl") do
  local p = json.decode(line)
  seed("repair", p.input)
  seed("extract", p.input)
  seed("tokens", p.input)
  for _, peer in ipairs { "jsonrepair", "json_repair" } do
    local r = p[peer]
    if type(r) == "table" and type(r.ok) == "string" and r.ok ~= "" and json.decode(r.ok) ~= nil then
      seed("json", r.ok)
    end
  end
end

-- Extract: realistic replies, fenced, in prose, broken, truncated.
local cases = dofile("spec/fixtures/extract_cases.lua")
for _, c in ipairs(cases.cases) do
  for _, v in ipairs(c) do
    if type(v) == "string" and #v > 20 then
      seed("extract", v)
      seed("repair", v)
    end
  end
end

-- Tokens: the held-out texts in every category.
for line in io.lines("spec/fixtures/tokens/heldout.jsonl") do
  seed("tokens", json.decode(line).text)
end

-- Schemas and instances of the test suite; patterns with the strings they
-- are tested on.
local function patterns(schema, into)
  if json.type(schema) ~= "object" and json.type(schema) ~= "array" then return end
  for k, v in pairs(schema) do
    if k == "pattern" and type(v) == "string" then into[#into + 1] = v end
    if k == "patternProperties" and type(v) == "table" then
      for p in pairs(v) do into[#into + 1] = p end
    end
    patterns(v, into)
  end
end

for _, draft in ipairs { "draft2020-12", "draft7" } do
  local p = io.popen("ls spec/json-schema-test-suite/tests/" .. draft .. "/*.json")
  for file in p:lines() do
    for _, group in ipairs(json.decode(read(file))) do
      local schema = json.encode(group.schema)
      seed("json", json.encode(group.schema, { pretty = true }))
      local pats = {}
      patterns(group.schema, pats)
      for _, t in ipairs(group.tests) do
        local inst = json.encode(t.data)
        seed("schema", schema .. "\0" .. inst)
        for _, pat in ipairs(pats) do
          seed("regex", pat .. "\0" .. (type(t.data) == "string" and t.data or inst))
        end
      end
    end
  end
  p:close()
end
for _, name in ipairs { "invoice", "contact", "meeting", "product" } do
  local s = read("schemas/" .. name .. ".schema.json")
  seed("schema", s .. "\0{}")
  seed("json", s)
end

local names = {}
for h in pairs(counts) do names[#names + 1] = h end
table.sort(names)
for _, h in ipairs(names) do io.write(h, " ", counts[h], "  ") end
io.write("seeds in ", out, "\n")
