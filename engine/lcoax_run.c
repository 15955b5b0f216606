/*
** lcoax_run.c: coax.run(recipe, input [, opts]) for Lua hosts and specs.
*/
#include "lcoax.h"

#include <stdlib.h>

typedef struct engine_box {
    coax_engine *engine;
} engine_box;

static int engine_box_gc(lua_State *L)
{
    engine_box *b = luaL_checkudata(L, 1, "coax.engine");
    coax_engine_free(b->engine);
    b->engine = NULL;
    return 0;
}

static lua_Integer opt_integer(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    lua_Integer n = lua_isnil(L, -1) ? 0 : luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    return n;
}

/** coax.run(recipe, input [, opts]) -> result
** 'recipe' is a recipe file's path (or, with opts.source = true, its text).
** opts: agent (a name), replies (a list: the replay agent's replies),
** agent_options (a table merged into the agent's), max_attempts,
** lua_path, lua_memory, lua_instructions. The result is the session report
** as a table: {outcome, value, error, metrics, attempts}. */
static int l_run(lua_State *L)
{
    size_t rlen, ilen = 0;
    const char *recipe = luaL_checklstring(L, 1, &rlen);
    const char *input = luaL_optlstring(L, 2, "", &ilen);
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    bool opts = lua_istable(L, 3);
    coax_engine_options eo = {0};
    coax_session_options so = {0};
    so.input = input;
    so.input_len = ilen;
    bool source = false;
    if (opts) {
        eo.script_dir = lcoax_opt_string(L, 3, "lua_path");
        eo.lua_memory = (size_t)opt_integer(L, 3, "lua_memory");
        eo.lua_instructions = (uint32_t)opt_integer(L, 3, "lua_instructions");
        so.max_attempts = (int)opt_integer(L, 3, "max_attempts");
        lua_getfield(L, 3, "source");
        source = lua_toboolean(L, -1);
        lua_pop(L, 1);
        /* agent options as JSON: {name?, replies?, ...agent_options} */
        lua_getfield(L, 3, "agent_options");
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_newtable(L);
        }
        const char *name = lcoax_opt_string(L, 3, "agent");
        if (name) {
            lua_pushstring(L, name);
            lua_setfield(L, -2, "name");
        }
        lua_getfield(L, 3, "replies");
        if (!lua_isnil(L, -1)) {
            luaL_checktype(L, -1, LUA_TTABLE);
            luaL_setmetatable(L, LCOAX_ARRAY);
            lua_setfield(L, -2, "replies");
            if (!name) {
                lua_pushliteral(L, "replay");
                lua_setfield(L, -2, "name");
            }
        } else {
            lua_pop(L, 1);
        }
        coax_arena *a = lcoax_arena(L);
        coax_value *v = lcoax_to_value(L, -2, a, COAX_DEFAULT_MAX_DEPTH);
        char *json;
        size_t jlen;
        if (v->type == COAX_OBJECT && v->len > 0) {
            if (coax_write(v, 0, coax_arena_allocator(a), &json, &jlen)) return lcoax_error(L, COAX_ENOMEM, NULL);
            lua_pushlstring(L, json, jlen);
            coax_free(coax_arena_allocator(a), json, jlen + 1);
            so.agent_json = lua_tostring(L, -1); /* anchored on the stack */
        }
    }
    engine_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->engine = NULL;
    if (luaL_newmetatable(L, "coax.engine")) {
        lua_pushcfunction(L, engine_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    coax_error err = {0};
    coax_code rc = coax_engine_new(&eo, &b->engine, &err);
    if (rc) return lcoax_error(L, rc, &err);
    coax_session *s;
    rc = source ? coax_session_from_text(b->engine, recipe, rlen, "=recipe", &so, &s, &err)
                : coax_session_from_file(b->engine, recipe, &so, &s, &err);
    if (rc) return lcoax_error(L, rc, &err);
    coax_session_run(s);
    size_t len;
    const char *report = coax_session_report(s, &len);
    if (!report) return lcoax_error(L, COAX_ENOMEM, NULL);
    coax_arena *a = lcoax_arena(L);
    coax_value *v;
    if (coax_parse(a, report, len, NULL, &v, &err)) return lcoax_error(L, err.code, &err);
    lcoax_push_value(L, v, COAX_DEFAULT_MAX_DEPTH);
    coax_engine_free(b->engine);
    b->engine = NULL;
    return 1;
}

void lcoax_open_run(lua_State *L)
{
    lua_pushcfunction(L, l_run);
    lua_setfield(L, -2, "run");
}
