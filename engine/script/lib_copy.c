/*
** script/lib_copy.c: plain copies of the values a script hands the engine
** (lcoax_push_plain_list), which the engine then uses, and no script holds.
*/
#include "script/lib.h"
#include "base/stack.h"

#include <limits.h>

typedef struct copying {
    lua_State *L;
    int memo;    /* a table -> its copy: a table met twice is copied once */
    int mark[3]; /* LCOAX_ARRAY's, LCOAX_OBJECT's and LCOAX_NUMBER's metatables */
    int order;   /* LCOAX_ORDER */
    size_t max_depth;
} copying;

/* The copy of the value at 'idx' (absolute), pushed: its raw data, as the
** engine's JSON conversion reads it (lib_json.c), with its JSON mark and an
** object's own key order list (copied too), without any other metatable. */
static void copy_rec(copying *c, int idx, size_t depth)
{
    lua_State *L = c->L;
    if (lua_type(L, idx) != LUA_TTABLE) {
        lua_pushvalue(L, idx);
        return;
    }
    lua_pushvalue(L, idx);
    if (lua_rawget(L, c->memo) != LUA_TNIL) return;
    lua_pop(L, 1);
    if (depth >= c->max_depth)
        luaL_error(L, "%s: nesting deeper than %d (or a cycle)", coax_code_name(COAX_EDEPTH), (int)c->max_depth);
    if (coax_stack_short()) luaL_error(L, "%s: nesting %s", coax_code_name(COAX_EDEPTH), COAX_STACK_WHY);
    luaL_checkstack(L, 8, "JSON nesting");
    /* made at its size: grown a key at a time, a message's two keys and its
    ** key order list's two items cost more rehashing than copying */
    size_t entries = 0, items = lua_rawlen(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        entries++;
    }
    if (items > entries) items = entries;
    lua_createtable(L, items < INT_MAX ? (int)items : 0, entries - items < INT_MAX ? (int)(entries - items) : 0);
    int copy = lua_gettop(L);
    lua_pushvalue(L, idx);
    lua_pushvalue(L, copy);
    lua_rawset(L, c->memo);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int value = lua_gettop(L);
        lua_pushvalue(L, value - 1);
        copy_rec(c, value, depth + 1);
        lua_rawset(L, copy);
        lua_pop(L, 1);
    }
    if (!lua_getmetatable(L, idx)) return;
    for (int i = 0; i < 3; i++) {
        if (!lua_rawequal(L, -1, c->mark[i])) continue;
        lua_setmetatable(L, copy);
        if (i == 1) { /* an object: its key order list */
            lua_pushvalue(L, idx);
            if (lua_rawget(L, c->order) == LUA_TTABLE) {
                copy_rec(c, lua_gettop(L), depth + 1);
                lua_pushvalue(L, copy);
                lua_insert(L, -2);
                lua_rawset(L, c->order);
            }
            lua_pop(L, 1);
        }
        return;
    }
    lua_pop(L, 1); /* a metatable of the script's own: not copied */
}

void lcoax_push_plain_list(lua_State *L, int list, int prefix, lua_Integer kept, lua_Integer n, size_t max_depth)
{
    list = lua_absindex(L, list);
    prefix = lua_absindex(L, prefix);
    luaL_checkstack(L, 8, "JSON nesting");
    lua_createtable(L, n < INT_MAX ? (int)n : 0, 0);
    int out = lua_gettop(L);
    lua_createtable(L, 0, 8); /* the memo: a few messages and their key order lists */
    luaL_getmetatable(L, LCOAX_ARRAY);
    luaL_getmetatable(L, LCOAX_OBJECT);
    luaL_getmetatable(L, LCOAX_NUMBER);
    lua_getfield(L, LUA_REGISTRYINDEX, LCOAX_ORDER);
    copying c = {L, out + 1, {out + 2, out + 3, out + 4}, out + 5, max_depth};
    for (lua_Integer i = 1; i <= kept; i++) {
        lua_rawgeti(L, prefix, i);
        lua_rawseti(L, out, i);
    }
    for (lua_Integer i = kept + 1; i <= n; i++) {
        lua_rawgeti(L, list, i);
        copy_rec(&c, lua_gettop(L), 0);
        lua_rawseti(L, out, i);
        lua_pop(L, 1);
    }
    lua_settop(L, out);
}
