-- lua5.4 attack/08_repair_scaling.lua [filter]: CPU seconds of coax.repair,
-- coax.extract and coax.tokens at n, 2n, 4n, 8n bytes on odd replies.
package.cpath = "build/?.so;" .. package.cpath
local coax = require "coax"
local filter = arg[1]
local function cpu(f) collectgarbage() local t = os.clock() f() return os.clock() - t end
local S = assert(coax.schema({ type = "object", properties = { a = { type = "array", items = { type = "integer" } },
  b = { type = "string" } }, required = { "a" } }))
local shapes = {
  backslashes = function(n) return '{"b": "' .. ("\\"):rep(n) end,
  quotes = function(n) return ('"a'):rep(n // 2) end,
  fences = function(n) return ("```json\n{\"a\":[1]\n"):rep(n // 16) end,
  tags = function(n) return ("<json>{\"a\":"):rep(n // 12) end,
  braces_prose = function(n) return ("{ x "):rep(n // 4) end,
  nested_prose = function(n) return ('{"a": x '):rep(n // 8) end,
  many_objs = function(n) return ('{"a":[1]} '):rep(n // 10) end,
  many_bad_objs = function(n) return ('{"a":[1,} '):rep(n // 10) end,
  close_spam = function(n) return "{" .. ("]}"):rep(n // 2) end,
  colon_spam = function(n) return "{" .. (":"):rep(n) end,
  comma_spam = function(n) return "[" .. (","):rep(n) .. "]" end,
  key_spam = function(n) return "{" .. ("a "):rep(n // 2) .. "}" end,
  words = function(n) return "{\"a\": [" .. ("true false null "):rep(n // 16) end,
  comments = function(n) return "{\"a\":[1" .. ("/*"):rep(n // 2) end,
  line_comments = function(n) return "{\"a\":[1" .. ("//x\n"):rep(n // 4) .. "]}" end,
  single_quotes = function(n) return ("{'a':'"):rep(n // 6) end,
  unicode_escapes = function(n) return '{"b":"' .. ("\\ud800"):rep(n // 6) .. '"}' end,
  numbers = function(n) return '{"a":[' .. ("1e"):rep(n // 2) .. "]}" end,
  dots = function(n) return '{"a":[' .. ("..."):rep(n // 3) .. "]}" end,
  ellipsis = function(n) return '{"a":[1, ' .. ("… "):rep(n // 4) .. "]}" end,
  backticks = function(n) return ("`"):rep(n) end,
  mixed_brackets = function(n) return ("[{"):rep(256) .. ("x]}"):rep(n // 3) end,
  key_no_colon = function(n) return '{' .. ('"k" '):rep(n // 4) .. '}' end,
  newline_strings = function(n) return '{"b":"' .. ("a\n"):rep(n // 2) end,
  crlf = function(n) return ("\r"):rep(n) .. '{"a":[1]}' end,
  nul = function(n) return ("\0"):rep(n) .. '{"a":[1]}' end,
  spaces_in_fence = function(n) return "```" .. (" "):rep(n) .. "\n{\"a\":[1]}\n```" end,
  python = function(n) return "{'a': [" .. ("True, None, "):rep(n // 12) .. "]}" end,
}
local names = {}
for k in pairs(shapes) do names[#names + 1] = k end
table.sort(names)
for _, name in ipairs(names) do
  if not filter or name:find(filter, 1, true) then
    for _, op in ipairs({ "repair", "extract", "tokens" }) do
      local ts = {}
      for k = 0, 3 do
        local n = 200000 * (1 << k)
        local x = shapes[name](n)
        local t = cpu(function()
          if op == "repair" then coax.repair(x) elseif op == "extract" then coax.extract(x, S) else coax.tokens(x) end
        end)
        ts[#ts + 1] = string.format("%.3f", t)
        if t > 10 then break end
      end
      local r = tonumber(ts[#ts]) / math.max(tonumber(ts[1]), 1e-4)
      print(string.format("%-18s %-8s %s%s", name, op, table.concat(ts, " "), r > 16 and #ts == 4 and "  <== x" .. math.floor(r) or ""))
      io.stdout:flush()
    end
  end
end
