-- The Lua module as LuaRocks users expect it: `luarocks make` builds
-- coax.so from the C sources and installs the runtime scripts beside it.
package = "coax"
version = "0.1.0-1"
source = { url = "git+https://example.invalid/coax.git", tag = "v0.1.0" }
description = {
  summary = "Schema-conforming JSON out of language-model replies",
  detailed = [[
    Repair, JSON Schema validation, schema-aligned coercion and a sandboxed
    retry loop for structured extraction from language models.
  ]],
  license = "MIT",
}
dependencies = { "lua >= 5.4, < 5.5", "lua-cjson" }
external_dependencies = {
  PCRE2 = { header = "pcre2.h", library = "pcre2-8" },
  CURL = { header = "curl/curl.h", library = "curl" },
}
build = {
  type = "make",
  build_target = "build/coax.so",
  install_target = "install-lua",
  build_variables = { CFLAGS = "$(CFLAGS)", LUA_INCDIR = "$(LUA_INCDIR)" },
  install_variables = { LUA_CMOD = "$(LIBDIR)", LUA_LMOD = "$(LUADIR)", PREFIX = "$(PREFIX)" },
}
