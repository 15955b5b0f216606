-- one 1 MB string referenced 4,000 times: cjson.encode builds 4 GB with
-- malloc, outside the engine's allocator and the memory cap
return {
  name = "cjson_refs", schema = {type = "object"},
  prompt = function()
    local cjson = require "cjson"
    local s = string.rep("x", 1000000)
    local t = {}
    for i = 1, tonumber(N or 4000) do t[i] = s end
    local out = cjson.encode(t)
    return "len " .. #out
  end,
}
