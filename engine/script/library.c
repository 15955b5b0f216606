/*
** library.c: the table of the library (lib.h, lcoax_open_library): what
** scripts get as their coax module, and what luaopen_coax (engine/lua/)
** adds coax.run and coax.engine to. Each part adds its own functions.
*/
#include "script/lib.h"

static int l_strerror(lua_State *L)
{
    lua_Integer code = luaL_checkinteger(L, 1);
    lua_pushstring(L, coax_strerror((coax_code)code));
    return 1;
}

int lcoax_open_library(lua_State *L)
{
    lua_newtable(L);
    lua_pushliteral(L, COAX_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushcfunction(L, l_strerror);
    lua_setfield(L, -2, "strerror");
    lcoax_open_json(L);
    lcoax_open_repair(L);
    lcoax_open_extract(L);
    lcoax_open_schema(L);
    lcoax_open_example(L);
    lcoax_open_tokens(L);
    lcoax_open_pattern(L);
    return 1;
}
