-- coax.schema's resolver calling coax.schema again, nested as deep as Lua
-- lets C calls nest (200): each level a schema compilation in C with its
-- own C frames. Expected: a clean error ("C stack overflow" or a limit).
return {
  name = "resolver_nest", schema = { type = "object" },
  prompt = function()
    local coax = require "coax"
    local depth = 0
    local function resolver(uri)
      depth = depth + 1
      local s, e = coax.schema({ ["$id"] = "http://a/b" .. depth, ["$ref"] = "c" .. depth }, { resolver = resolver })
      if not s then error(e, 0) end
      return '{"type":"integer"}'
    end
    local ok, e = pcall(coax.schema, { ["$id"] = "http://a/", ["$ref"] = "c" }, { resolver = resolver })
    return "depth " .. depth .. " " .. tostring(ok) .. " " .. tostring(e):sub(1, 200)
  end,
}
