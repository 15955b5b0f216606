-- The invisible-character check: every corpus reply with an invisible character (a format
-- character, a C1 control) put in place of each space outside double-quoted strings, before each
-- line break there, and before and after the whole reply, through coax.extract with the case's
-- schema. Read as a blank, the character leaves the case's value (or its refusal); another value is
-- printed: DIFF (a value other than the case's), ACCEPT (a value where the case is refused), or,
-- with INVISIBLE_TEXT=1, TEXT (only a string differs, holding the character where it was written:
-- in single, triple or back quotes, an unquoted value, a code block whose dedent it stops; as
-- written, no wrong value).
--   COAX_BUILD=build lua5.4 bench/extract/invisible_check.lua [hex ...] [-- corpus-file]
-- Each hex is one character's UTF-8 bytes (E2808B for U+200B); without any, the whole class below.
-- Each character's summary line: variants, same (the case's value or refusal), refused (a value was
-- due; no wrong value), text, other (the wrong values: 0 is the promise kept). A reply that holds
-- the character already is left out. Where the character replaces an indentation's space, the
-- layout it leaves is one column narrower, and read as that ASCII layout is (hunt9's outer member
-- one space in: the same value with one space, a rule of the layout's own): 8 of each such "other".
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;spec/?.lua;" .. package.path
local corpus = require "confidence"
local coax = require "coax"
local json = coax.json
local canonical = corpus.canonical -- member order carries no meaning

local CLASS = {
  "E2808B", -- U+200B zero width space
  "E2808C", -- U+200C zero width non-joiner
  "E2808D", -- U+200D zero width joiner
  "E2808E", -- U+200E left-to-right mark
  "E2808F", -- U+200F right-to-left mark
  "E280AA", -- U+202A left-to-right embedding
  "E280AE", -- U+202E right-to-left override
  "E281A0", -- U+2060 word joiner
  "E281A3", -- U+2063 invisible separator
  "E281A6", -- U+2066 left-to-right isolate
  "E281A9", -- U+2069 pop directional isolate
  "C2AD", -- U+00AD soft hyphen
  "EFBBBF", -- U+FEFF byte order mark, zero width no-break space
  "E1A08E", -- U+180E Mongolian vowel separator
  "F3A080A1", -- U+E0021 tag exclamation mark
  "C280", -- U+0080 C1 control
  "C285", -- U+0085 next line (C1)
  "C29B", -- U+009B control sequence introducer (C1)
}

local marks, only = {}, nil
do
  local i = 1
  while arg[i] do
    if arg[i] == "--" then only = arg[i + 1]; break end
    marks[#marks + 1] = arg[i]
    i = i + 1
  end
  if #marks == 0 then marks = CLASS end
end
local text_too = os.getenv("INVISIBLE_TEXT") == "1"

-- Where each space and line break stands outside double-quoted strings.
local function blanks(s)
  local at, inside, escaped = {}, false, false
  for i = 1, #s do
    local ch = s:sub(i, i)
    if inside then
      if escaped then escaped = false elseif ch == "\\" then escaped = true elseif ch == '"' then inside = false end
    elseif ch == '"' then inside = true
    elseif ch == " " or ch == "\n" then at[#at + 1] = i end
  end
  return at
end

local function hex_bytes(h) return (h:gsub("..", function(x) return string.char(tonumber(x, 16)) end)) end

-- The character as the JSON encoder may write it: itself or a \u escape.
local function written(mark)
  local cp = utf8.codepoint(mark)
  return { mark, ("\\u%04x"):format(cp), ("\\u%04X"):format(cp) }
end

-- Whether the value is the case's but for the character kept in a string where it was written:
-- in its place, or where it stops a block's dedent (a code line starting with it has no margin),
-- the value's spaces aside.
local function only_text(got, want, forms)
  for _, f in ipairs(forms) do
    local plain = f:gsub("%p", "%%%0")
    if got:find(plain) then
      local bare = got:gsub(plain, "")
      if got:gsub(plain, " ") == want or bare == want or bare:gsub(" ", "") == want:gsub(" ", "") then return true end
    end
  end
  return false
end

local function show(reply, mark)
  return (reply:gsub(mark:gsub("%p", "%%%0"), "<M>"):gsub("\n", "⏎")):sub(1, 200)
end

for _, h in ipairs(marks) do
  local mark, n = hex_bytes(h), { variants = 0, same = 0, refused = 0, text = 0, other = 0 }
  local forms = written(mark)
  corpus.each(only, function(file, c)
    -- a reply holding the character already (invisible31's) is not told apart from its variants
    if c.input:find(mark, 1, true) then return end
    local want = c.expect ~= "refuse" and canonical(c.expect) or nil
    local schema = json.encode(c.schema)
    local variants = { mark .. c.input, c.input .. mark }
    for _, i in ipairs(blanks(c.input)) do
      local ch = c.input:sub(i, i)
      variants[#variants + 1] = c.input:sub(1, i - 1) .. (ch == "\n" and mark .. "\n" or mark) .. c.input:sub(i + 1)
    end
    for k, reply in ipairs(variants) do
      n.variants = n.variants + 1
      local got = corpus.value(c, reply, schema)
      local kind = not got and (want and "refused" or "same") or got == want and "same" or
        want and only_text(got, want, forms) and "text" or "other"
      n[kind] = n[kind] + 1
      if kind == "other" or (kind == "text" and text_too) then
        print(h, file, c.name, k, kind == "text" and "TEXT" or want and "DIFF" or "ACCEPT", show(reply, mark), "=>",
          got:sub(1, 120))
      end
    end
  end)
  print(("%s variants %d same %d refused %d text %d other %d"):format(h, n.variants, n.same, n.refused, n.text,
    n.other))
end
