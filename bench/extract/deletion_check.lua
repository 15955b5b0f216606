-- The deletion check: every corpus reply whose right value is a value, with one of its
-- structural bytes deleted ({ } [ ] , : and the double quote, outside double-quoted strings), or
-- swapped for its like (DELETION_SWAP=1), through coax.extract with the case's schema. A value must
-- then be the case's own (an edit the repair undoes) or a refusal; another value is printed: SHAPE
-- when its structure differs (judge it: a guess the repair or a later step made is a wrong value),
-- TEXT when only strings differ (the byte was a string's own, in backticks, single or triple quotes:
-- as written; DELETION_TEXT=1 prints those too).
--   COAX_BUILD=build lua5.4 bench/extract/deletion_check.lua [corpus-file]
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;spec/?.lua;" .. package.path
local corpus = require "confidence"
local coax = require "coax"
local json = coax.json
local canonical = corpus.canonical -- member order carries no meaning

-- The structure alone: every string one letter.
local function shape(text)
  local out, i = {}, 1
  while i <= #text do
    local ch = text:sub(i, i)
    if ch == '"' then
      i = i + 1
      while i <= #text and text:sub(i, i) ~= '"' do i = i + (text:sub(i, i) == "\\" and 2 or 1) end
      ch = "S"
    end
    out[#out + 1] = ch
    i = i + 1
  end
  return table.concat(out)
end

-- Where each structural byte stands, outside double-quoted strings.
local function structural(s)
  local at, inside, escaped = {}, false, false
  for i = 1, #s do
    local ch = s:sub(i, i)
    if inside then
      if escaped then escaped = false
      elseif ch == "\\" then escaped = true
      elseif ch == '"' then inside = false; at[#at + 1] = i end
    elseif ch == '"' then inside = true; at[#at + 1] = i
    elseif ch:match("[%[%]{}:,]") then at[#at + 1] = i end
  end
  return at
end

-- DELETION_SWAP=1: each byte swapped for its like instead ([ and {, ] and }, , and :, " and ').
local swap = os.getenv("DELETION_SWAP")
local swapped = { ["["] = "{", ["{"] = "[", ["]"] = "}", ["}"] = "]", [","] = ":", [":"] = ",", ['"'] = "'" }
local only = arg[1]
local n = { cases = 0, variants = 0, same = 0, refused = 0, shape = 0, text = 0 }
for _, file in ipairs(corpus.files) do
  for _, c in ipairs((not only or file == only) and corpus.cases(file) or {}) do
    if c.expect ~= "refuse" then
      n.cases = n.cases + 1
      local want, schema = canonical(c.expect), json.encode(c.schema)
      for _, i in ipairs(structural(c.input)) do
        local edit = swap and swapped[c.input:sub(i, i)] or ""
        local reply = c.input:sub(1, i - 1) .. edit .. c.input:sub(i + 1)
        local r = coax.extract(reply, schema, { finish = c.finish, max_class = c.max_class, strict = c.strict })
        n.variants = n.variants + 1
        local got = r and r.valid and canonical(r.value)
        if not got then n.refused = n.refused + 1
        elseif got == want then n.same = n.same + 1
        else
          local kind = shape(got) == shape(want) and "text" or "shape"
          n[kind] = n[kind] + 1
          if kind == "shape" or os.getenv("DELETION_TEXT") then
            print(("%s %s | %s | %q %s at %d\n  reply: %s\n  got:   %s\n  right: %s"):format(kind:upper(),
              file, c.name, c.input:sub(i, i), swap and "swapped" or "deleted", i,
              (reply:gsub("\n", "\\n")):sub(1, 300), got:sub(1, 200), want:sub(1, 200)))
          end
        end
      end
    end
  end
end
print(("cases %d, variants %d: the same value %d, refused %d, another value %d (SHAPE %d, TEXT %d)"):format(
  n.cases, n.variants, n.same, n.refused, n.shape + n.text, n.shape, n.text))
