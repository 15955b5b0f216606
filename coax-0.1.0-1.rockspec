-- The Lua module as LuaRocks users expect it: `luarocks --lua-version=5.4
-- make` builds coax.so from the C sources and installs the runtime scripts
-- beside it, where the module finds them (package.path). On Debian:
--   apt-get install luarocks liblua5.4-dev libcurl4-openssl-dev libpcre2-dev libidn2-dev pkgconf
--   luarocks --lua-version=5.4 make --tree ~/.luarocks      (README, "Using it from Lua")
-- Any Lua from 5.1 (and LuaJIT) works: the module is built against the
-- headers of the Lua LuaRocks runs for (LUA_INCDIR), while the scripts run in
-- the engine's own Lua 5.4 inside it, with its own cjson (engine/vendor/).
-- The other headers are found by pkg-config (curl's is in a multiarch folder
-- LuaRocks does not search), so only the libraries are checked here.
rockspec_format = "3.0"
package = "coax"
version = "0.1.0-1"
-- Built from the checkout this file is in (`luarocks make`); no archive is
-- published, so the source is this folder.
source = { url = "file://." }
description = {
  summary = "Schema-conforming JSON out of language-model replies",
  detailed = [[
    Repair, JSON Schema validation, schema-aligned coercion and a sandboxed
    retry loop for structured extraction from language models.
  ]],
  license = "MIT",
}
dependencies = { "lua >= 5.1, < 5.5" }
external_dependencies = {
  PCRE2 = { library = "pcre2-8" },
  CURL = { library = "curl" },
  IDN2 = { library = "idn2" },
}
build = {
  type = "make",
  build_target = "build/lua/rock/coax.so",
  install_target = "install-lua",
  build_variables = { CFLAGS = "$(CFLAGS)", LUA_INCDIR = "$(LUA_INCDIR)" },
  install_variables = { LUA_CMOD = "$(LIBDIR)", LUA_LMOD = "$(LUADIR)", LUA_MODULE = "build/lua/rock/coax.so" },
}
