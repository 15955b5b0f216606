/*
** compat.h: the Lua 5.4 C API the library bindings use (lib*.c, engine/lua/),
** on the Lua they are compiled for. The engine's own state is 5.4, where
** this file adds nothing; the Lua modules for hosts (the Makefile's "Lua
** hosts" block) compile the same sources against LuaJIT 2.1 and Lua 5.1,
** 5.2 and 5.3, where each missing function is defined here from older ones,
** under its 5.4 name, with 5.4's behaviour as far as the bindings rely on it
** (functions that push a value return its type; user values keep a value
** alive). Include after lua.h and lauxlib.h.
**
** Numbers: a Lua without integers (5.1, 5.2, LuaJIT) has only doubles, so
** coax_host_exact_integer says which integers it holds exactly: JSON
** integers past 2^53 reach such a host as a big number ({text = "..."}, the
** coax.number kind), as integers past 64 bits reach any host.
*/
#ifndef COAX_SCRIPT_COMPAT_H
#define COAX_SCRIPT_COMPAT_H

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdbool.h>

#if LUA_VERSION_NUM >= 503
#define COAX_HOST_INTEGERS 1
#else
#define COAX_HOST_INTEGERS 0
#endif

/* Whether integer 'n' is a Lua integer (5.3 and later) or a double that
** holds it exactly (|n| <= 2^53). */
static inline bool coax_host_exact_integer(long long n)
{
    return COAX_HOST_INTEGERS || (n >= -(1LL << 53) && n <= (1LL << 53));
}

#ifndef LUA_OK
#define LUA_OK 0
#endif

/* ---- 5.1 (and LuaJIT): what 5.2 added ----------------------------------- */
#if LUA_VERSION_NUM < 502
static inline int coax_compat_absindex(lua_State *L, int i)
{
    return i > 0 || i <= LUA_REGISTRYINDEX ? i : lua_gettop(L) + i + 1;
}

static inline size_t coax_compat_rawlen(lua_State *L, int i) { return lua_objlen(L, i); }

static inline lua_Integer coax_compat_len(lua_State *L, int i) { return (lua_Integer)lua_objlen(L, i); }

static inline void coax_compat_setfuncs(lua_State *L, const luaL_Reg *l, int nup)
{
    luaL_checkstack(L, nup + 1, "too many upvalues");
    for (; l->name; l++) {
        for (int i = 0; i < nup; i++) lua_pushvalue(L, -nup);
        lua_pushcclosure(L, l->func, nup);
        lua_setfield(L, -(nup + 2), l->name);
    }
    lua_pop(L, nup);
}

static inline void coax_compat_setmetatable(lua_State *L, const char *name)
{
    luaL_getmetatable(L, name);
    lua_setmetatable(L, -2);
}

/* 5.2's luaL_tolstring: __tostring, else the value's own text. */
static inline const char *coax_compat_tolstring(lua_State *L, int i, size_t *len)
{
    i = coax_compat_absindex(L, i);
    if (luaL_callmeta(L, i, "__tostring")) {
        if (!lua_isstring(L, -1)) luaL_error(L, "'__tostring' must return a string");
    } else {
        switch (lua_type(L, i)) {
        case LUA_TNUMBER:
        case LUA_TSTRING: lua_pushvalue(L, i); break;
        case LUA_TBOOLEAN: lua_pushstring(L, lua_toboolean(L, i) ? "true" : "false"); break;
        case LUA_TNIL: lua_pushliteral(L, "nil"); break;
        default: lua_pushfstring(L, "%s: %p", luaL_typename(L, i), lua_topointer(L, i)); break;
        }
    }
    return lua_tolstring(L, -1, len);
}

/* 5.2's luaL_testudata: the userdata at 'i' if its metatable is 'name's, else NULL. */
static inline void *coax_compat_testudata(lua_State *L, int i, const char *name)
{
    void *p = lua_touserdata(L, i);
    if (!p || !lua_getmetatable(L, i)) return NULL;
    luaL_getmetatable(L, name);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? p : NULL;
}

#define lua_absindex coax_compat_absindex
#define lua_rawlen coax_compat_rawlen
#define luaL_len coax_compat_len
#undef luaL_setfuncs
#define luaL_setfuncs coax_compat_setfuncs
#undef luaL_newlib
#define luaL_newlib(L, l) (lua_createtable(L, 0, (int)(sizeof(l) / sizeof((l)[0]) - 1)), luaL_setfuncs(L, l, 0))
#undef luaL_setmetatable
#define luaL_setmetatable coax_compat_setmetatable
#undef luaL_tolstring
#define luaL_tolstring coax_compat_tolstring
#undef luaL_testudata
#define luaL_testudata coax_compat_testudata
#endif

/* ---- 5.1, 5.2: what 5.3 added ------------------------------------------- */
#if LUA_VERSION_NUM < 503
/* Functions that push a value return its type. */
static inline int coax_compat_getfield(lua_State *L, int i, const char *k)
{
    lua_getfield(L, i, k);
    return lua_type(L, -1);
}

static inline int coax_compat_gettable(lua_State *L, int i)
{
    lua_gettable(L, i);
    return lua_type(L, -1);
}

static inline int coax_compat_rawget(lua_State *L, int i)
{
    lua_rawget(L, i);
    return lua_type(L, -1);
}

static inline int coax_compat_rawgeti(lua_State *L, int i, lua_Integer n)
{
    lua_rawgeti(L, i, (int)n);
    return lua_type(L, -1);
}

static inline int coax_compat_getglobal(lua_State *L, const char *name)
{
    lua_getglobal(L, name);
    return lua_type(L, -1);
}

static inline int coax_compat_geti(lua_State *L, int i, lua_Integer n)
{
    i = lua_absindex(L, i);
    lua_pushinteger(L, n);
    lua_gettable(L, i);
    return lua_type(L, -1);
}

static inline int coax_compat_rawgetp(lua_State *L, int i, const void *p)
{
    i = lua_absindex(L, i);
    lua_pushlightuserdata(L, (void *)p);
    lua_rawget(L, i);
    return lua_type(L, -1);
}

static inline void coax_compat_rawsetp(lua_State *L, int i, const void *p)
{
    i = lua_absindex(L, i);
    lua_pushlightuserdata(L, (void *)p);
    lua_insert(L, -2);
    lua_rawset(L, i);
}

/* A number with an integral value in 64 bits is an integer, as 5.3 would
** have read it from the same JSON. */
static inline int coax_compat_isinteger(lua_State *L, int i)
{
    if (lua_type(L, i) != LUA_TNUMBER) return 0;
    lua_Number n = lua_tonumber(L, i);
    return n == floor(n) && n >= -9223372036854775808.0 && n < 9223372036854775808.0;
}

/* 5.3's luaL_checkinteger: a number with no integral value in 64 bits is
** an argument error, as there. 5.1's cast made 2.5 a lua_memory of 2 and
** 1e300 (an undefined conversion) one of INT64_MIN. */
static inline lua_Integer coax_compat_checkinteger(lua_State *L, int arg)
{
    lua_Number n = luaL_checknumber(L, arg);
    if (!(n == floor(n) && n >= -9223372036854775808.0 && n < 9223372036854775808.0))
        luaL_argerror(L, arg, "number has no integer representation");
    return (lua_Integer)n;
}

static inline lua_Integer coax_compat_optinteger(lua_State *L, int arg, lua_Integer def)
{
    return lua_isnoneornil(L, arg) ? def : coax_compat_checkinteger(L, arg);
}

/* Rotates the values from 'i' to the top 'n' places toward the top. */
static inline void coax_compat_rotate(lua_State *L, int i, int n)
{
    i = lua_absindex(L, i);
    for (; n > 0; n--) lua_insert(L, i);
    for (; n < 0; n++) {
        lua_pushvalue(L, i);
        lua_remove(L, i);
    }
}

#undef lua_getfield
#define lua_getfield coax_compat_getfield
#undef lua_gettable
#define lua_gettable coax_compat_gettable
#undef lua_rawget
#define lua_rawget coax_compat_rawget
#undef lua_rawgeti
#define lua_rawgeti coax_compat_rawgeti
#undef lua_getglobal
#define lua_getglobal coax_compat_getglobal
#define lua_geti coax_compat_geti
#undef lua_rawgetp
#define lua_rawgetp coax_compat_rawgetp
#undef lua_rawsetp
#define lua_rawsetp coax_compat_rawsetp
#define lua_isinteger coax_compat_isinteger
#undef luaL_checkinteger
#define luaL_checkinteger coax_compat_checkinteger
#undef luaL_optinteger
#define luaL_optinteger coax_compat_optinteger
#define lua_rotate coax_compat_rotate
#endif

/* ---- 5.1 to 5.3: what 5.4 added ----------------------------------------- */
#if LUA_VERSION_NUM < 504
static inline void *coax_compat_newuserdatauv(lua_State *L, size_t size, int nuvalue)
{
    (void)nuvalue;
    return lua_newuserdata(L, size);
}

/* The user value keeps the value on top alive: 5.1 and 5.2 take only a
** table there, so it goes into one ({value}); nothing reads it back. */
static inline int coax_compat_setiuservalue(lua_State *L, int i, int n)
{
    (void)n;
    i = lua_absindex(L, i);
    lua_createtable(L, 1, 0);
    lua_insert(L, -2);
    lua_rawseti(L, -2, 1);
#if LUA_VERSION_NUM < 502
    lua_setfenv(L, i);
#else
    lua_setuservalue(L, i);
#endif
    return 1;
}

static inline int coax_compat_typeerror(lua_State *L, int arg, const char *tname)
{
    return luaL_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, luaL_typename(L, arg)));
}

#define lua_newuserdatauv coax_compat_newuserdatauv
#define lua_setiuservalue coax_compat_setiuservalue
#define luaL_pushfail(L) lua_pushnil(L)
#define luaL_typeerror coax_compat_typeerror
#define luaL_argexpected(L, cond, arg, tname) ((void)((cond) || luaL_typeerror(L, (arg), (tname))))
#endif

#endif
