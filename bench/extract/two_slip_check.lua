-- The two-slip check: valid documents with one structural byte ({ } [ ] , : and the double quote,
-- outside strings) deleted or exchanged with its right neighbour, then the closers at the end cut
-- (none to all) and a tail written after (prose, a remark, a fence, a closer, a quote, another
-- object), each through coax.extract with no finish and with "stop". A value must be the document's
-- own or a refusal; another is printed (judge it: valid JSON as written and a tail's own content are
-- readings; a string's text the repair read as written where its quote may have moved is a guess).
-- TWO_SLIP=deleted instead deletes two structural bytes, each pair once, with no cut and no tail.
--   COAX_BUILD=build [TWO_SLIP=deleted] lua5.4 bench/extract/two_slip_check.lua
package.cpath = (os.getenv("COAX_BUILD") or "build") .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;spec/?.lua;" .. package.path
local coax = require "coax"
local json = coax.json
local C = require "confidence"
-- Documents of the shapes replies have: records, lists of records, nested objects, lists of lists.
local docs = {
 '{"guests": ["David Farrier", "Monica Padman"]}',
 '{"name": "Ada", "age": 36, "tags": ["math", "poetry"]}',
 '[{"id": 1, "title": "First"}, {"id": 2, "title": "Second"}]',
 '{"user": {"name": "Ada", "email": "ada@example.com"}, "active": true}',
 '{"items": [{"sku": "A1", "qty": 2}, {"sku": "B2", "qty": 1}], "total": 3}',
 '{"a": "x", "b": ["y", "z"], "c": {"d": "e"}}',
 '{"matrix": [[1, 2], [3, 4]], "label": "m"}',
 '{"ok": true, "reason": null, "score": 0.5}',
 '{"steps": ["Open the file", "Edit it"], "meta": {"author": "Ada", "version": "1.2"}}',
 '[["a", "b"], ["c", "d"]]',
 '{"q": "What is 2+2?", "choices": ["3", "4"], "answer": "4"}',
 '{"rows": [{"k": "x", "v": [1, 2]}, {"k": "y", "v": []}]}',
}
local tails = { "", " ", "\n\nHope this helps!", " (none)", "  { ", "\n```", "}" , "]", "\"", "\n{\"a\": 1}" }
local function structural(s)
  local at, inside, esc = {}, false, false
  for i = 1, #s do
    local ch = s:sub(i, i)
    if inside then
      if esc then esc = false elseif ch == "\\" then esc = true elseif ch == '"' then inside = false; at[#at+1] = i end
    elseif ch == '"' then inside = true; at[#at+1] = i
    elseif ch:match("[%[%]{}:,]") then at[#at+1] = i end
  end
  return at
end
local seen, total, printed = 0, 0, {}

-- One variant under both finishes: a value not the document's is printed once.
local function check(v, orig)
  for _, fin in ipairs({ false, "stop" }) do
    total = total + 1
    local r = coax.extract(v, "{}", { finish = fin or nil })
    local got = r and r.valid and C.canonical(r.value)
    if got and got ~= orig and not printed[v] then
      printed[v] = true
      seen = seen + 1
      print(("%s | %s | %s"):format(fin or "-", json.encode(v), json.encode(r.value)))
    end
  end
end

-- Two structural bytes deleted, each pair once.
local function deleted_twice(d, orig)
  local at = structural(d)
  for a = 1, #at do
    for b = a + 1, #at do
      local i, j = at[a], at[b]
      check(d:sub(1, i - 1) .. d:sub(i + 1, j - 1) .. d:sub(j + 1), orig)
    end
  end
end

for _, d in ipairs(docs) do
  local orig = C.canonical(json.decode(d))
  if os.getenv("TWO_SLIP") == "deleted" then deleted_twice(d, orig) goto next_doc end
  local variants = {}
  for _, i in ipairs(structural(d)) do
    variants[#variants + 1] = d:sub(1, i - 1) .. d:sub(i + 1) -- deleted
    if i < #d then -- exchanged with its right neighbour
      variants[#variants + 1] = d:sub(1, i - 1) .. d:sub(i + 1, i + 1) .. d:sub(i, i) .. d:sub(i + 2)
    end
  end
  for _, v0 in ipairs(variants) do
    for cut = 0, #v0:match("[%]}]*$") do
      for _, tail in ipairs(tails) do check(v0:sub(1, #v0 - cut) .. tail, orig) end
    end
  end
  ::next_doc::
end
print("different values:", seen, "of", total)
