-- The mutation check: every corpus reply whose right value is a value, with one structural byte
-- ({ } [ ] , : and the double quote, outside double-quoted strings) edited, through coax.extract
-- with the case's schema. MUTATION names the edit:
--   delete     (the default) the byte deleted;
--   swap       the byte swapped for its like ([ and {, ] and }, , and :, " and '; DELETION_SWAP=1 too);
--   insert     each structural byte inserted at each token boundary: before and after each one, outside
--              double-quoted strings (before an opening quote, after a closing one);
--   dup        the byte written twice (`,,`, `}}`, `::`, `""`);
--   transpose  the byte and its right neighbour exchanged (`}]` to `]}`, `",` to `,"`, `1,` to `,1`).
-- A value must then be the case's own (an edit the repair undoes) or a refusal; another value is
-- printed: SHAPE when its structure differs (judge it: a guess the repair or a later step made is a
-- wrong value), TEXT when only strings differ (the byte was a string's own, in backticks, single or
-- triple quotes: as written; MUTATION_TEXT=1, or DELETION_TEXT=1, prints those too).
--   COAX_BUILD=build MUTATION=insert lua5.4 bench/extract/mutation_check.lua [corpus-file]
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

-- Where each structural byte stands, outside double-quoted strings; and the token boundaries
-- beside them, outside strings: before and after each, but inside no quotes.
local function structural(s)
  local at, bounds, inside, escaped = {}, {}, false, false
  for i = 1, #s do
    local ch = s:sub(i, i)
    if inside then
      if escaped then escaped = false
      elseif ch == "\\" then escaped = true
      elseif ch == '"' then inside = false; at[#at + 1] = i; bounds[#bounds + 1] = i + 1 end
    elseif ch == '"' then inside = true; at[#at + 1] = i; bounds[#bounds + 1] = i
    elseif ch:match("[%[%]{}:,]") then
      at[#at + 1] = i
      if bounds[#bounds] ~= i then bounds[#bounds + 1] = i end
      bounds[#bounds + 1] = i + 1
    end
  end
  return at, bounds
end

local swapped = { ["["] = "{", ["{"] = "[", ["]"] = "}", ["}"] = "]", [","] = ":", [":"] = ",", ['"'] = "'" }
local inserted = { "{", "}", "[", "]", ",", ":", '"' }

-- Each mode: the edited replies of one reply, each with what was done, and where.
local modes = {}
function modes.delete(s)
  local out = {}
  for _, i in ipairs(structural(s)) do
    out[#out + 1] = { s:sub(1, i - 1) .. s:sub(i + 1), ("%q deleted at %d"):format(s:sub(i, i), i), i }
  end
  return out
end
function modes.swap(s)
  local out = {}
  for _, i in ipairs(structural(s)) do
    out[#out + 1] = { s:sub(1, i - 1) .. swapped[s:sub(i, i)] .. s:sub(i + 1),
      ("%q swapped at %d"):format(s:sub(i, i), i), i }
  end
  return out
end
function modes.insert(s)
  local out, seen = {}, {}
  for _, at in ipairs(select(2, structural(s))) do
    if not seen[at] then
      seen[at] = true
      for _, b in ipairs(inserted) do
        out[#out + 1] = { s:sub(1, at - 1) .. b .. s:sub(at), ("%q inserted at %d"):format(b, at), at }
      end
    end
  end
  return out
end
function modes.dup(s)
  local out = {}
  for _, i in ipairs(structural(s)) do
    out[#out + 1] = { s:sub(1, i) .. s:sub(i), ("%q doubled at %d"):format(s:sub(i, i), i), i }
  end
  return out
end
function modes.transpose(s)
  local out = {}
  for _, i in ipairs(structural(s)) do
    local a, b = s:sub(i, i), s:sub(i + 1, i + 1)
    if b ~= "" and b ~= a then
      out[#out + 1] = { s:sub(1, i - 1) .. b .. a .. s:sub(i + 2), ("%q%q transposed at %d"):format(a, b, i), i }
    end
  end
  return out
end

local mode = os.getenv("MUTATION") or (os.getenv("DELETION_SWAP") and "swap") or "delete"
local edits = assert(modes[mode], "MUTATION is one of delete, swap, insert, dup, transpose")
local print_text = os.getenv("MUTATION_TEXT") or os.getenv("DELETION_TEXT")
local only = arg[1]
local n = { cases = 0, variants = 0, same = 0, refused = 0, shape = 0, text = 0 }
corpus.each(only, function(file, c)
  if c.expect == "refuse" then return end
  n.cases = n.cases + 1
  local want, schema = canonical(c.expect), json.encode(c.schema)
  for _, edit in ipairs(edits(c.input)) do
    local reply = edit[1]
    local got = corpus.value(c, reply, schema)
    n.variants = n.variants + 1
    if not got then n.refused = n.refused + 1
    elseif got == want then n.same = n.same + 1
    else
      local kind = shape(got) == shape(want) and "text" or "shape"
      n[kind] = n[kind] + 1
      if kind == "shape" or print_text then
        print(("%s %s | %s | %s\n  near:  %s\n  reply: %s\n  got:   %s\n  right: %s"):format(kind:upper(), file,
          c.name, edit[2], (reply:sub(math.max(1, edit[3] - 12), edit[3] + 12):gsub("\n", "\\n")),
          (reply:gsub("\n", "\\n")):sub(1, 300), got:sub(1, 200), want:sub(1, 200)))
      end
    end
  end
end)
print(("%s: cases %d, variants %d: the same value %d, refused %d, another value %d (SHAPE %d, TEXT %d)"):format(
  mode, n.cases, n.variants, n.same, n.refused, n.shape + n.text, n.shape, n.text))
