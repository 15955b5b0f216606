-- N cjson instances, each keeping its encode buffer (lua-cjson's default
-- encode_keep_buffer): 8 MB each for a 1 MB string (6 bytes a byte reserved).
return {
  name = "cjson_kept", schema = {type = "object"},
  prompt = function()
    local s = string.rep('x', 1000000) local keep = {}
    for i = 1, NKEEP or 12 do keep[i] = require('cjson') local n = #keep[i].encode(s) end
    return "kept " .. #keep .. " " .. collectgarbage("count")
  end,
}
