-- The options check: every corpus reply read strict, at max_class lossless, at the default class
-- (inferred) and at invented. A stricter option must give the looser one's value or refuse: two
-- values that differ (DIFF) mean one of them is a guess; a stricter option taking a value a looser
-- one refuses (LOST) is printed too, to judge: strict turns coercion off and keeps the default's
-- repairs, so strict beside lossless differs by design; strict or lossless beside inferred must not.
--   COAX_BUILD=build lua5.4 bench/extract/options_check.lua [corpus-file]
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;spec/?.lua;" .. package.path
local corpus = require "confidence"
local coax = require "coax"
local json = coax.json
local canonical = corpus.canonical

local settings = { { name = "strict", strict = true }, { name = "lossless", max_class = "lossless" },
  { name = "inferred", max_class = "inferred" }, { name = "invented", max_class = "invented" } }
local only = arg[1]
local n = { cases = 0, diff = 0, lost = {} }
for _, file in ipairs(corpus.files) do
  for _, c in ipairs((not only or file == only) and corpus.cases(file) or {}) do
    local schema, got = json.encode(c.schema), {}
    for k, s in ipairs(settings) do
      local r = coax.extract(c.input, schema, { finish = c.finish, max_class = s.max_class, strict = s.strict })
      got[k] = r and r.valid and canonical(r.value) or false
    end
    n.cases = n.cases + 1
    for a = 1, #settings do
      for b = a + 1, #settings do
        local kind = got[a] and (got[b] and got[a] ~= got[b] and "DIFF" or not got[b] and "LOST")
        if kind then
          local pair = settings[a].name .. ">" .. settings[b].name
          if kind == "DIFF" then n.diff = n.diff + 1 else n.lost[pair] = (n.lost[pair] or 0) + 1 end
          if kind == "DIFF" or pair ~= "strict>lossless" then
            print(("%s %s | %s | %s\n  reply: %s\n  %s: %s\n  %s: %s"):format(kind, file, c.name, pair,
              (c.input:gsub("\n", "\\n")):sub(1, 300), settings[a].name, got[a]:sub(1, 200), settings[b].name,
              got[b] and got[b]:sub(1, 200) or "refused"))
          end
        end
      end
    end
  end
end
local lost = {}
for pair, count in pairs(n.lost) do lost[#lost + 1] = pair .. " " .. count end
table.sort(lost)
print(("cases %d: values that differ %d; a stricter option's value a looser one refuses: %s"):format(n.cases,
  n.diff, #lost > 0 and table.concat(lost, ", ") or "none"))
