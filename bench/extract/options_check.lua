-- The options check: every corpus reply read with each option of an axis, from the strictest on:
-- strict, max_class lossless, the default class (inferred), invented; and the provider's finish
-- reason "length" (the reply was cut), none, "stop" (the model stopped). A stricter option must give
-- the looser one's value or refuse: two values that differ (DIFF) mean one of them is a guess; a
-- stricter option taking a value a looser one refuses (LOST) is printed too, to judge: strict turns
-- coercion off and keeps the default's repairs, so strict beside lossless differs by design.
--   COAX_BUILD=build lua5.4 bench/extract/options_check.lua [corpus-file]
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;spec/?.lua;" .. package.path
local corpus = require "confidence"
local coax = require "coax"
local json = coax.json
local canonical = corpus.canonical

local axes = {
  { { name = "strict", strict = true }, { name = "lossless", max_class = "lossless" },
    { name = "inferred", max_class = "inferred" }, { name = "invented", max_class = "invented" } },
  { { name = "length", finish = "length" }, { name = "unfinished" }, { name = "stop", finish = "stop" } },
}
local by_design = { ["strict>lossless"] = true }
local only = arg[1]
local n = { cases = 0, diff = 0, lost = {} }
-- Each option of the axis over case c: its value, canonical, or false (refused).
local function values(c, schema, axis)
  local got = {}
  for k, o in ipairs(axis) do
    local r = coax.extract(c.input, schema, { finish = o.finish or (axis[1].finish == nil and c.finish) or nil,
      max_class = o.max_class or (axis[1].max_class == nil and c.max_class) or nil,
      strict = o.strict or (axis[1].strict == nil and c.strict) or nil })
    got[k] = r and r.valid and canonical(r.value) or false
  end
  return got
end

corpus.each(only, function(file, c)
  n.cases = n.cases + 1
  local schema = json.encode(c.schema)
  for _, axis in ipairs(axes) do
    local got = values(c, schema, axis)
    for a = 1, #axis do
      for b = a + 1, #axis do
        local kind = got[a] and (got[b] and got[a] ~= got[b] and "DIFF" or not got[b] and "LOST")
        local pair = axis[a].name .. ">" .. axis[b].name
        if kind == "DIFF" then n.diff = n.diff + 1 elseif kind then n.lost[pair] = (n.lost[pair] or 0) + 1 end
        if kind and not (kind == "LOST" and by_design[pair]) then
          print(("%s %s | %s | %s\n  reply: %s\n  %s: %s\n  %s: %s"):format(kind, file, c.name, pair,
            (c.input:gsub("\n", "\\n")):sub(1, 300), axis[a].name, got[a]:sub(1, 200), axis[b].name,
            got[b] and got[b]:sub(1, 200) or "refused"))
        end
      end
    end
  end
end)
local lost = {}
for pair, count in pairs(n.lost) do lost[#lost + 1] = pair .. " " .. count end
table.sort(lost)
print(("cases %d: values that differ %d; a stricter option's value a looser one refuses: %s"):format(n.cases,
  n.diff, #lost > 0 and table.concat(lost, ", ") or "none"))
