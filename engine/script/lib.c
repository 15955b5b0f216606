/*
** lcoax.c: luaopen_coax, the Lua module. The stock lua5.4 loads it with
**   package.cpath = "build/?.so;" .. package.cpath
**   local coax = require "coax"
*/
#include "script/lib.h"

int lcoax_error(lua_State *L, coax_code code, const coax_error *err)
{
    if (err && err->msg[0])
        return luaL_error(L, "%s: %s", coax_code_name(code), err->msg);
    return luaL_error(L, "%s: %s", coax_code_name(code), coax_strerror(code));
}

coax_limits lcoax_limits(lua_State *L, int idx)
{
    coax_limits l;
    coax_limits_default(&l);
    if (lua_isnoneornil(L, idx)) return l;
    luaL_checktype(L, idx, LUA_TTABLE);
    static const char *const names[] = {"max_depth", "max_input", "max_string"};
    size_t *fields[] = {&l.max_depth, &l.max_input, &l.max_string};
    for (int i = 0; i < 3; i++) {
        lua_getfield(L, idx, names[i]);
        if (!lua_isnil(L, -1)) {
            lua_Integer n = luaL_checkinteger(L, -1);
            luaL_argcheck(L, n > 0, idx, "limits must be positive integers");
            *fields[i] = (size_t)n;
        }
        lua_pop(L, 1);
    }
    return l;
}

const char *lcoax_opt_string(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    const char *s = NULL;
    if (!lua_isnil(L, -1)) {
        /* A string only: a number would be converted into a new string that
        ** nothing keeps alive once popped. */
        if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "option '%s' must be a string", k);
        s = lua_tostring(L, -1);
    }
    lua_pop(L, 1); /* the options table keeps the string alive */
    return s;
}

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
