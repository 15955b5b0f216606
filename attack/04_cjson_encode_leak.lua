-- cjson.encode of 10 MB of NUL bytes: each is written \u0000, so 60 MB are
-- built with malloc (outside the cap); pushing them as a Lua string passes
-- the 64 MiB cap, the memory error longjmps past strbuf_free: the buffer
-- (128 MB of capacity) is leaked, once per session that does it.
return {
  name = "cjson_leak", schema = {type = "object"},
  prompt = function()
    local cjson = require "cjson"
    local out = cjson.encode(string.rep("\0", 10000000))
    return "len " .. #out
  end,
}
