-- The metamorphic check (hunt23): every reply of the confidence corpus, coerce_cases.jsonl and
-- repair_pairs.jsonl rewritten in ways that do not change what the model meant (line endings,
-- indentation, tabs, no-break or ideographic spaces, a fence, prose or a reasoning block around it, a BOM, a closing remark,
-- \u escapes, the reply twice, keys in another order, the reply cut at each point; hunt29: other
-- fences (```JSON, ~~~, none, four backticks, glued, open, closing only, in a list item, CRLF), a
-- heading, a label or a list marker above, prose around in five languages, typographic and
-- Windows-1252 quotes in it, tags, an end-of-turn token, reasoning with a draft of other values, a
-- blockquote, zero-width spaces, U+2028; and valid JSON minified, pretty-printed, padded, with
-- trailing commas, single quotes, unquoted keys, Python's literals, escapes, full-width punctuation
-- or typographic quotes); each variant's reading is compared with the original's. Prints
--   DIFF     the variant accepted a value the original did not (a value that differs)
--   NEWACC   the variant accepted where the original was refused (judge: the less sure reading?)
--   CUT      a cut reply accepted with a value the whole one did not give
-- Each line: kind, variant, source, the two readings.
--   COAX_BUILD=build lua5.4 bench/extract/metamorphic.lua [cut]
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;spec/?.lua;" .. package.path
local coax = require "coax"
local json = coax.json
local T = json.type
local corpus = require "confidence"
local with_cuts = arg[1] == "cut"

-- A value's JSON, members sorted, strings' (keys' too) line breaks and runs of spaces (a no-break or
-- ideographic space too) made one space, so that a rewrite of whitespace inside a string (a raw
-- line break made CRLF, spaces in a single-quoted string made U+00A0) does not count.
local function canonical(v, loose)
  local t = T(v)
  if t == "string" then
    if loose then
      v = v:gsub("\194\160", " "):gsub("\227\128\128", " "):gsub("[%s]+", " "):gsub("^ ", ""):gsub(" $", "")
    end
    return json.encode(v)
  end
  if t == "array" then
    local parts = {}
    for i = 1, #v do parts[i] = canonical(v[i], loose) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  if t == "object" then
    local names = {}
    for k in pairs(v) do names[#names + 1] = k end
    table.sort(names)
    local parts = {}
    for i, k in ipairs(names) do parts[i] = canonical(k, loose) .. ":" .. canonical(v[k], loose) end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return json.encode(v)
end

-- Rewrites the text outside double-quoted strings with outside(s) and the text inside them with
-- inside(s), each keeping s when nil (a string ends at its quote or at a line break). Outside only
-- for layout: a string's text is what the model meant, byte for byte.
local function by_strings(text, outside, inside)
  local function keep(s) return s end
  outside, inside = outside or keep, inside or keep
  local out, i, n = {}, 1, #text
  while i <= n do
    local q = text:find('"', i, true)
    if not q then out[#out + 1] = outside(text:sub(i)); break end
    out[#out + 1] = outside(text:sub(i, q - 1))
    local j = q + 1
    while j <= n do
      local c = text:sub(j, j)
      if c == "\\" then j = j + 2 elseif c == '"' or c == "\n" then break else j = j + 1 end
    end
    out[#out + 1] = '"' .. inside(text:sub(q + 1, j - 1)) .. text:sub(j, j)
    i = j + 1
  end
  return table.concat(out)
end
local function u_escape(s)
  return (s:gsub(utf8.charpattern, function(ch)
    if #ch == 1 then return ch end
    local ok, cp = pcall(utf8.codepoint, ch)
    if not ok then return ch end
    if cp < 0x10000 then return string.format("\\u%04x", cp) end
    cp = cp - 0x10000
    return string.format("\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF))
  end))
end

-- Valid JSON written again with every object's members in reverse order.
local function reordered(text)
  local ok, v = pcall(json.decode, text)
  if not ok or v == nil then return nil end
  local function enc(x)
    local t = T(x)
    if t == "array" then
      local p = {}
      for i = 1, #x do p[i] = enc(x[i]) end
      return "[" .. table.concat(p, ", ") .. "]"
    elseif t == "object" then
      local names = {}
      for k in pairs(x) do names[#names + 1] = k end
      table.sort(names, function(a, b) return a > b end)
      local p = {}
      for i, k in ipairs(names) do p[i] = json.encode(k) .. ": " .. enc(x[k]) end
      return "{" .. table.concat(p, ", ") .. "}"
    end
    return json.encode(x)
  end
  return enc(v)
end

-- The tokens of valid JSON, each {kind, from, to} over the text (kind "s" a string, "p" a
-- punctuator, "w" a number or literal); nil where the text is no JSON.
local function tokens(text)
  local ok, v = pcall(json.decode, text)
  if not ok or v == nil then return nil end
  local out, i, n = {}, 1, #text
  while i <= n do
    local c = text:sub(i, i)
    if c:match("%s") then
      i = i + 1
    elseif c == '"' then
      local j = i + 1
      while text:sub(j, j) ~= '"' do j = j + (text:sub(j, j) == "\\" and 2 or 1) end
      out[#out + 1] = { "s", i, j }
      i = j + 1
    elseif c:match("[{}%[%],:]") then
      out[#out + 1] = { "p", i, i }
      i = i + 1
    else
      local j = text:find('[%s{}%[%],:"]', i) or n + 1
      out[#out + 1] = { "w", i, j - 1 }
      i = j
    end
  end
  return out
end

-- Valid JSON with each token replaced by edit(token, text of it, index, tokens) where that
-- returns a string, the layout between tokens kept; nil for text that is no JSON.
local function retokened(text, edit)
  local toks = tokens(text)
  if not toks then return nil end
  local out, at = {}, 1
  for k, t in ipairs(toks) do
    out[#out + 1] = text:sub(at, t[2] - 1)
    local s = text:sub(t[2], t[3])
    out[#out + 1] = edit(t, s, k, toks) or s
    at = t[3] + 1
  end
  out[#out + 1] = text:sub(at)
  return table.concat(out)
end

-- Valid JSON written with no whitespace between tokens, or pretty-printed two spaces a level.
local function minified(text)
  local toks = tokens(text)
  if not toks then return nil end
  local out = {}
  for k, t in ipairs(toks) do out[k] = text:sub(t[2], t[3]) end
  return table.concat(out)
end
local function pretty(text)
  local toks = tokens(text)
  if not toks then return nil end
  local out, depth = {}, 0
  for k, t in ipairs(toks) do
    local s = text:sub(t[2], t[3])
    local nxt = toks[k + 1] and text:sub(toks[k + 1][2], toks[k + 1][3])
    if s == "}" or s == "]" then
      local prev = text:sub(toks[k - 1][2], toks[k - 1][3])
      depth = depth - 1
      if prev ~= "{" and prev ~= "[" then out[#out + 1] = "\n" .. ("  "):rep(depth) end
      out[#out + 1] = s
    elseif s == "{" or s == "[" then
      depth = depth + 1
      out[#out + 1] = s
      if nxt ~= "}" and nxt ~= "]" then out[#out + 1] = "\n" .. ("  "):rep(depth) end
    elseif s == "," then
      out[#out + 1] = ",\n" .. ("  "):rep(depth)
    elseif s == ":" then
      out[#out + 1] = ": "
    else
      out[#out + 1] = s
    end
  end
  return table.concat(out)
end
-- The text with each ASCII digit another (a draft that differs from the answer).
local function digits_changed(text)
  return (text:gsub("%d", function(d) return tostring((tonumber(d) + 1) % 10) end))
end
local function tok_text(text, toks, k) return toks[k] and text:sub(toks[k][2], toks[k][3]) end
local function is_key(text, toks, k) return toks[k][1] == "s" and tok_text(text, toks, k + 1) == ":" end

local function bare(text) return text:match("^%s*[%[{]") and text:match("[%]}]%s*$") end

-- hunt29's wrappers of a bare reply: {name, text before it, text after it}.
local WRAPPERS = {
  { "cite_inline", "", " [1]" },
  { "sources_line", "", "\n\nSources: [1] the input text" },
  { "link_after", "", "\n\nSee [the schema](https://example.com/schema) for the fields." },
  { "explanation", "", "\n\nExplanation:\n- Each field comes from the input.\n- Nothing was guessed." },
  { "role_label", "Assistant: ", "" },
  { "reasoning_tag", "<reasoning>\nRead the input.\n</reasoning>\n\n", "" },
  { "emoji_prose", "Here you go \240\159\154\128:\n\n", "\n\nDone \226\156\133" },
  { "hr_around", "---\n", "\n---" },
  { "html_comment", "<!-- extracted from the input -->\n", "" },
  { "note_after", "", "\n\nNote: all values are taken from the input." },
  { "footnote", "", "\n\n[1] Source: the input text." },
  { "fence_upper", "```JSON\n", "\n```" },
  { "fence_tilde", "~~~json\n", "\n~~~" },
  { "fence_nolang", "```\n", "\n```" },
  { "fence_four", "````json\n", "\n````" },
  { "fence_glued", "```json\n", "```" },
  { "fence_open", "```json\n", "" },
  { "fence_blank_inside", "```json\n\n", "\n\n```" },
  { "heading", "## Result\n\n", "" },
  { "bold_label", "**JSON:**\n", "" },
  { "json_label", "json\n", "" },
  { "answer_prefix", "Answer: ", "" },
  { "output_line", "Output:\n", "" },
  { "final_answer", "Final answer:\n\n", "" },
  { "prose_same_line", "Here is the JSON: ", "" },
  { "prose_de", "Hier ist das JSON:\n\n", "\n\nIch hoffe, das hilft!" },
  { "prose_fr", "Voici le JSON :\n\n", "\n\nN'hésitez pas si vous avez des questions." },
  { "prose_es", "Aquí está el JSON:\n\n", "\n\n¡Espero que te sirva!" },
  { "prose_zh", "以下是提取的JSON：\n\n", "\n\n希望对你有帮助！" },
  { "prose_ja", "以下がJSONです。\n\n```json\n", "\n```\n\nご確認ください。" },
  { "smart_quotes", "Here is the \226\128\156JSON\226\128\157 you asked for:\n\n", "" },
  { "cp1252_quotes", "Here is the \147JSON\148:\n\n", "" },
  { "tag_answer", "<answer>\n", "\n</answer>" },
  { "tag_json", "<json>", "</json>" },
  { "fence_js", "```javascript\n", "\n```" },
  { "fence_titled", "```json title=\"result.json\"\n", "\n```" },
  { "fence_close_only", "", "\n```" },
  { "comment_line", "// result\n", "" },
  { "block_comment", "/* extracted */\n", "" },
  { "eot_token", "", "<|im_end|>" },
  { "bullet_label", "- Result:\n\n", "" },
  { "closing_same_line", "", " Let me know if you need anything else." },
  { "tag_pre", "<pre>\n", "\n</pre>" },
  { "tag_fenced", "<answer>\n```json\n", "\n```\n</answer>" },
  { "label_fenced", "**Output:**\n\n```json\n", "\n```" },
  { "think_unopened", "The user wants JSON. Let me fill the fields.\n</think>\n\n", "" },
  { "thinking_tag", "<thinking>\nLet me read the text.\n</thinking>\n\n", "" },
}

-- META_ONLY=name,name runs those variants only (a quicker check of one rewrite).
local only = os.getenv("META_ONLY")
local function variants(text)
  local out = {}
  local function add(name, v)
    local wanted = not only or (only .. ","):find(name .. ",", 1, true)
    if v and v ~= text and wanted then out[#out + 1] = { name, v } end
  end
  add("crlf", (text:gsub("\r?\n", "\r\n")))
  add("cr", (text:gsub("\r?\n", "\r")))
  add("tabs_indent", (text:gsub("\n(  +)", function(s) return "\n" .. ("\t"):rep(#s // 2) end)))
  add("dedent", (text:gsub("\n[ \t]+", "\n")))
  add("indent", (text:gsub("\n", "\n    ")))
  add("tabs_between", by_strings(text, function(s) return (s:gsub(" ", "\t")) end))
  add("spaces_doubled", by_strings(text, function(s) return (s:gsub(" ", "  ")) end))
  add("nbsp_between", by_strings(text, function(s) return (s:gsub(" ", "\194\160")) end))
  add("ideo_between", by_strings(text, function(s) return (s:gsub(" ", "\227\128\128")) end))
  add("u_escapes", by_strings(text, nil, u_escape))
  add("bom", "\239\187\191" .. text)
  add("blank_around", "\n\n" .. text .. "\n\n")
  add("twice", text .. "\n\n" .. text)
  add("closing", text .. "\n\nLet me know if you need anything else!")
  add("reordered", reordered(text))
  if bare(text) then
    add("fenced", "```json\n" .. text .. "\n```")
    add("fenced_prose", "Here is the JSON:\n\n```json\n" .. text .. "\n```\n\nHope this helps.")
    add("prose", "Here is the JSON:\n" .. text)
    add("prose_colon_line", "Sure! The extracted data:\n\n" .. text .. "\n\nAll fields were taken from the text.")
    add("think", "<think>\nThe user wants JSON. Let me fill the fields.\n</think>\n" .. text)
    add("think_fenced", "<think>\nOkay.\n</think>\n\n```json\n" .. text .. "\n```")
    -- hunt29's variants: other fences, labels, languages, tags around a bare reply.
    for _, w in ipairs(WRAPPERS) do add(w[1], w[2] .. text .. w[3]) end
    add("tag_repeat", text .. "\n\n<answer>\n" .. text .. "\n</answer>")
    add("think_draft", "<think>\nDraft:\n" .. digits_changed(text) .. "\nNo, read again.\n</think>\n\n" .. text)
    add("fenced_crlf", ("```json\n" .. text .. "\n```"):gsub("\r?\n", "\r\n"))
    if not text:find("\n") then add("numbered_item", "1. " .. text) end
    local toks = tokens(text)
    if toks then -- valid JSON only: no line break can fall in a string
      local lines_in_list = "1. Here is the result:\n\n   ```json\n   " .. text:gsub("\n", "\n   ") .. "\n   ```"
      add("fence_in_list", lines_in_list)
      add("fence_indented", "```json\n  " .. text:gsub("\n", "\n  ") .. "\n```")
      add("list_indented", "- Result:\n\n  " .. text:gsub("\n", "\n  "))
      add("blockquote", "> " .. text:gsub("\n", "\n> "))
      add("zwsp_lines", "\226\128\139" .. text:gsub("\n", "\n\226\128\139"))
      add("blank_lines", (text:gsub("\n", "\n\n"))) -- in prose a blank line ends a table or a heading's rule
      add("line_sep", (text:gsub("\n", "\226\128\168")))
      add("para_sep", (text:gsub("\n", "\226\128\169")))
    end
  end
  add("closing_question", text .. "\n\nWould you like me to convert it to YAML too?")
  add("trailing_spaces", by_strings(text, function(x) return (x:gsub("\n", "  \n")) end))
  add("minified", minified(text))
  add("padded", retokened(text, function(t, s, k, toks)
    local nxt = tok_text(text, toks, k + 1)
    if (s == "{" or s == "[") and nxt ~= "}" and nxt ~= "]" then return s .. " " end
    if (nxt == "}" or nxt == "]") and s ~= "{" and s ~= "[" then return s .. " " end
  end))
  add("zwsp_tokens", retokened(text, function(t, s) if s == ":" or s == "," then return s .. "\226\128\139" end end))
  add("fullwidth_colon", retokened(text, function(t, s) if s == ":" then return "\239\188\154" end end))
  add("fullwidth_comma", retokened(text, function(t, s) if s == "," then return "\239\188\140" end end))
  add("curly_json", retokened(text, function(t, s)
    if t[1] == "s" and not s:find('\\') and not s:find("\226\128[\156\157]") then
      return "\226\128\156" .. s:sub(2, -2) .. "\226\128\157"
    end
  end))
  add("pretty", pretty(text))
  add("trailing_comma", retokened(text, function(t, s, k, toks)
    local nxt = tok_text(text, toks, k + 1)
    if (nxt == "}" or nxt == "]") and s ~= "{" and s ~= "[" then return s .. "," end
  end))
  add("single_quotes", retokened(text, function(t, s)
    if t[1] == "s" and not s:find("'", 1, true) and not s:find('\\"') then return "'" .. s:sub(2, -2) .. "'" end
  end))
  add("unquoted_keys", retokened(text, function(t, s, k, toks)
    local name = s:match('^"([%a_][%w_]*)"$')
    if name and is_key(text, toks, k) and name ~= "true" and name ~= "false" and name ~= "null" then return name end
  end))
  add("space_colon", retokened(text, function(t, s) if s == ":" then return " : " end end))
  add("key_escaped", retokened(text, function(t, s, k, toks)
    if is_key(text, toks, k) and s:match('^"%a') then
      return string.format('"\\u%04x', s:byte(2)) .. s:sub(3)
    end
  end))
  add("python_literals", retokened(text, function(t, s)
    if t[1] == "s" and not s:find("'", 1, true) and not s:find('\\"') then return "'" .. s:sub(2, -2) .. "'" end
    local py = ({ ["true"] = "True", ["false"] = "False", null = "None" })[s]
    if t[1] == "w" and py then return py end
  end))
  add("empty_spaced", retokened(text, function(t, s, k, toks)
    local nxt = tok_text(text, toks, k + 1)
    if (s == "{" and nxt == "}") or (s == "[" and nxt == "]") then return s .. " " end
  end))
  add("value_escaped", retokened(text, function(t, s, k, toks)
    if t[1] == "s" and not is_key(text, toks, k) and s:match('^"%a') then
      return string.format('"\\u%04x', s:byte(2)) .. s:sub(3)
    end
  end))
  add("slash_escaped", retokened(text, function(t, s)
    if t[1] == "s" and s:find("/", 1, true) and not s:find("\\", 1, true) then return (s:gsub("/", "\\/")) end
  end))

  return out
end

local function read(kind, text, schema, opts)
  if kind == "repair" then
    local v = coax.repair(text)
    if v == nil then return nil end
    return v
  end
  local r = coax.extract(text, schema, opts)
  if r and r.valid then return r.value end
  return nil
end

local cases = {}
corpus.each(nil, function(f, c)
  cases[#cases + 1] = { src = f .. ":" .. c.name, kind = "extract", input = c.input, schema = json.encode(c.schema),
    opts = corpus.options(c) }
end)
for line in io.lines("spec/fixtures/coerce_cases.jsonl") do
  local c = json.decode(line)
  cases[#cases + 1] = { src = "coerce:" .. c.item, kind = "extract", input = c.reply, schema = json.encode(c.schema),
    opts = {} }
end
local n = 0
for line in io.lines("spec/fixtures/repair_pairs.jsonl") do
  local c = json.decode(line)
  n = n + 1
  cases[#cases + 1] = { src = "pairs:" .. n, kind = "repair", input = c.input }
end
local extra = os.getenv("META_EXTRA") -- a gen.lua output: one JSON string a line
if extra then
  n = 0
  for line in io.lines(extra) do
    n = n + 1
    cases[#cases + 1] = { src = "gen:" .. n, kind = "repair", input = json.decode(line) }
  end
end

local counts = { runs = 0, diff = 0, loose = 0, newacc = 0, cut = 0 }
local function show(s) return (s:gsub("\n", "\\n"):gsub("\r", "\\r"):gsub("\t", "\\t")) end
for _, c in ipairs(cases) do
  if os.getenv("META_TRACE") then io.stderr:write(c.src, "\n"); io.stderr:flush() end
  local base = read(c.kind, c.input, c.schema, c.opts)
  local bj = base ~= nil and canonical(base)
  for _, v in ipairs(variants(c.input)) do
    counts.runs = counts.runs + 1
    local got = read(c.kind, v[2], c.schema, c.opts)
    if got ~= nil then
      local gj = canonical(got)
      if not bj then
        counts.newacc = counts.newacc + 1
        print("NEWACC", v[1], c.src, show(c.input):sub(1, 200), gj:sub(1, 200))
      elseif gj ~= bj then
        if canonical(got, true) == canonical(base, true) then
          counts.loose = counts.loose + 1
          if os.getenv("META_LOOSE") then print("LOOSE", v[1], c.src, bj:sub(1, 150), gj:sub(1, 150)) end
        else
          counts.diff = counts.diff + 1
          print("DIFF", v[1], c.src, show(c.input):sub(1, 200), bj:sub(1, 200), gj:sub(1, 200))
        end
      end
    end
  end
  if with_cuts then
    local len = #c.input
    local step = len > 400 and len // 150 or 1
    for k = 1, len - 1, step do
      for _, fin in ipairs({ c.opts and c.opts.finish or false, "length" }) do
        local opts = c.opts and { finish = fin or nil, max_class = c.opts.max_class }
        counts.runs = counts.runs + 1
        local got = read(c.kind, c.input:sub(1, k), c.schema, opts)
        if got ~= nil then
          local gj = canonical(got)
          if gj ~= bj and (bj or fin == "length") then
            counts.cut = counts.cut + 1
            print("CUT", tostring(fin), c.src, show(c.input:sub(1, k)):sub(-160), tostring(bj):sub(1, 120), gj:sub(1, 160))
          end
        end
      end
    end
  end
end
io.stderr:write(string.format("cases %d, runs %d: DIFF %d, NEWACC %d, CUT %d (whitespace-only diffs %d)\n",
  #cases, counts.runs, counts.diff, counts.newacc, counts.cut, counts.loose))
