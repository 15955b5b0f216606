-- Joins the replies of a JSONL file (one JSON string a line, each a JSON
-- text) into one JSON array: a realistic valid document for the parsers.
--   lua5.4 join.lua FILE.jsonl > OUT.json
local cjson = require "cjson"
local t = {}
for l in io.lines(arg[1]) do
  if #l > 0 then t[#t + 1] = cjson.decode(l) end
end
io.write("[", table.concat(t, ","), "]")
