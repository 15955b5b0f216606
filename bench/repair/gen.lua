-- Generates a file of realistic broken model replies, one JSON string a
-- line: extraction-shaped objects written the ways models get JSON wrong
-- (fences and prose, trailing commas, single quotes, unquoted keys,
-- comments, Python literals, unescaped quotes, raw newlines, truncation,
-- reasoning blocks). Deterministic: same arguments, same file.
--   lua5.4 gen.lua OUT.jsonl COUNT [SEED] [valid]
-- With "valid", the same records are written as valid JSON, bare.
local cjson = require "cjson"
local out_path, count, seed = arg[1], tonumber(arg[2] or 3000), tonumber(arg[3] or 42)
local valid_only = arg[4] == "valid"

local state = seed
local function rnd(n) -- 1..n
  state = (state * 1103515245 + 12345) % 2147483648
  return state % n + 1
end
local function pick(t) return t[rnd(#t)] end
local function chance(p) return rnd(1000) <= p * 1000 end

local words = { "alpha", "widget", "premium", "steel", "blue", "organic", "rapid", "compact",
  "deluxe", "fresh", "classic", "smart", "eco", "large", "mini", "pro", "café", "naïve", "東京", "データ" }
local function sentence(n)
  local t = {}
  for i = 1, n do t[i] = pick(words) end
  return table.concat(t, " ")
end

local function record()
  local items = {}
  for i = 1, rnd(12) do
    items[i] = { { "sku", "SKU-" .. rnd(99999) }, { "qty", rnd(20) }, { "price", rnd(100000) / 100 },
      { "desc", sentence(rnd(8)) } }
  end
  return {
    { "name", sentence(rnd(3)) }, { "price", rnd(5000) }, { "currency", pick { "USD", "EUR", "JPY" } },
    { "in_stock", chance(0.5) }, { "discount", chance(0.3) and cjson.null or rnd(50) / 100 },
    { "tags", { sentence(1), sentence(1), sentence(1) } }, { "items", items },
    { "notes", sentence(rnd(20)) }, { "confidence", rnd(100) / 100 },
  }
end

-- Writes a value with the breakages chosen in 'how'.
local function write(v, how, indent, out)
  local pad = how.pretty and ("\n" .. string.rep("  ", indent)) or ""
  local pad_in = how.pretty and ("\n" .. string.rep("  ", indent + 1)) or ""
  local t = type(v)
  if v == cjson.null then
    out[#out + 1] = how.python and "None" or "null"
  elseif t == "boolean" then
    out[#out + 1] = how.python and (v and "True" or "False") or tostring(v)
  elseif t == "number" then
    out[#out + 1] = math.type(v) == "integer" and tostring(v) or string.format("%.2f", v)
  elseif t == "string" then
    local q = how.single and "'" or '"'
    local s = v
    if how.inner_quote and #s > 8 then s = s:gsub(" ", ' "', 1):gsub(" ", '" ', 1) end
    if how.raw_newline and #s > 20 then s = s:gsub(" ", "\n", 1) end
    out[#out + 1] = q .. s .. q
  elseif type(v[1]) == "table" and type(v[1][1]) == "string" and #v[1] == 2 then -- object
    out[#out + 1] = "{"
    for i, kv in ipairs(v) do
      out[#out + 1] = pad_in
      if how.comment and i == 2 then out[#out + 1] = "// the model explains itself" .. pad_in end
      out[#out + 1] = how.unquoted and kv[1] or ('"' .. kv[1] .. '"')
      out[#out + 1] = how.pretty and ": " or ":"
      write(kv[2], how, indent + 1, out)
      if i < #v or how.trailing then
        if not (how.missing_comma and i == 3) then out[#out + 1] = "," end
      end
    end
    out[#out + 1] = pad .. "}"
  else -- array
    out[#out + 1] = "["
    for i, x in ipairs(v) do
      out[#out + 1] = pad_in
      write(x, how, indent + 1, out)
      if i < #v or how.trailing then out[#out + 1] = "," end
    end
    out[#out + 1] = pad .. "]"
  end
end

local wrappers = {
  function(j) return j end,
  function(j) return "```json\n" .. j .. "\n```" end,
  function(j)
    return "Sure! Here is the extracted data:\n\n```json\n" .. j .. "\n```\n\nLet me know if you need anything else."
  end,
  function(j) return "<think>The user wants the product as JSON. I will list the items.</think>\n" .. j end,
  function(j) return "Here is the JSON you asked for: " .. j .. " I hope this helps!" end,
}

local f = assert(io.open(out_path, "w"))
for _ = 1, count do
  local how = {
    pretty = chance(0.6), trailing = chance(0.3), single = chance(0.15), unquoted = chance(0.2),
    python = chance(0.15), comment = chance(0.15), inner_quote = chance(0.1), raw_newline = chance(0.1),
    missing_comma = chance(0.1),
  }
  if valid_only then how = { pretty = how.pretty } end
  local out = {}
  write(record(), how, 0, out)
  local j = table.concat(out)
  if valid_only then
    f:write(cjson.encode(j), "\n")
  else
    if chance(0.15) then -- truncated output, cut at a character boundary
      local cut = rnd(#j)
      while cut > 1 and j:byte(cut + 1) and j:byte(cut + 1) >= 0x80 and j:byte(cut + 1) < 0xC0 do cut = cut - 1 end
      j = j:sub(1, cut)
    end
    f:write(cjson.encode(pick(wrappers)(j)), "\n")
  end
end
f:close()
