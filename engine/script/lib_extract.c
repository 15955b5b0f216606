/*
** script/lib_extract.c: coax.extract(text, schema [, opts]).
*/
#include "script/lib.h"

#include <string.h>

#define LCOAX_EXTRACT_SCHEMA "coax.extract.schema"

/* The schema at 'idx': a compiled one (coax.schema), used as it is, with
** nil pushed; or JSON text or a table, compiled through the state's
** allocator into a box it pushes (freed even when an error follows). */
static coax_schema *schema_arg(lua_State *L, int idx, coax_arena *arena, coax_draft draft)
{
    if (luaL_testudata(L, idx, LCOAX_SCHEMA)) {
        luaL_argcheck(L, draft == COAX_DRAFT_AUTO, 3, "draft applies to a schema compiled here, not a coax.schema");
        coax_schema *s = lcoax_owned_get(L, idx, LCOAX_SCHEMA);
        luaL_argcheck(L, s != NULL, idx, "schema already freed");
        lua_pushnil(L);
        return s;
    }
    coax_value *doc;
    coax_error err;
    if (lua_type(L, idx) == LUA_TSTRING) {
        size_t len;
        const char *text = lua_tolstring(L, idx, &len);
        coax_code rc = coax_parse(arena, text, len, NULL, &doc, &err);
        if (rc == COAX_ENOMEM) lcoax_error(L, rc, &err);
        if (rc) luaL_error(L, "%s: schema: %s", coax_code_name(COAX_ESCHEMA), err.msg);
    } else {
        luaL_checktype(L, idx, LUA_TTABLE);
        doc = lcoax_to_value(L, idx, arena, COAX_DEFAULT_MAX_DEPTH);
    }
    coax_schema_options so = {.flags = COAX_SCHEMA_ASSERT_FORMAT}; /* an extraction's "format" is no remark */
    so.draft = draft;
    coax_schema *s;
    coax_code rc = lcoax_compile_owned(L, LCOAX_EXTRACT_SCHEMA, doc, &so, &s, &err);
    if (rc) lcoax_error(L, rc, &err);
    return s;
}

/* Frees what l_extract made (its arena at 4, a schema it compiled at 5) now,
** not when the collector gets to them. */
static void release_made(lua_State *L)
{
    if (!lua_isnil(L, 5)) lcoax_own_release(L, 5, LCOAX_EXTRACT_SCHEMA);
    lcoax_arena_release(L, 4);
}

/** coax.extract(text, schema [, opts]) -> result | nil, message, code
** 'schema' is JSON text, a table (coax.json shapes) or a compiled schema
** (coax.schema: compiled once for many calls); opts: strict, draft (not
** with a compiled schema),
** max_class ("lossless", "inferred": the default, "invented"), finish (the
** provider's finish reason: "length" means the reply was cut off) and the
** limits. The result: {valid, value, errors, coercions, log, candidate,
** refused (the log entry the value was refused for, if any)}; 'value' is
** the best candidate even when it is invalid. No JSON in the text: nil,
** message, "COAX_ENOJSON". */
static int l_extract(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    luaL_checkany(L, 2);
    static const char *const own[] = {"strict", "draft", NULL};
    lcoax_check_keys(L, 3, "coax.extract", own);
    coax_limits lim = lcoax_limits(L, 3);
    coax_extract_options xo;
    coax_extract_options_default(&xo);
    coax_draft draft = COAX_DRAFT_AUTO;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "strict");
        if (lua_toboolean(L, -1)) xo.flags |= COAX_EXTRACT_STRICT;
        lua_getfield(L, 3, "draft");
        if (!lua_isnil(L, -1)) {
            draft = coax_draft_parse(lua_tostring(L, -1));
            luaL_argcheck(L, draft != COAX_DRAFT_AUTO, 3, "unknown draft");
        }
        lua_pop(L, 2);
    }
    lcoax_reply_options(L, 3, &xo);
    lua_settop(L, 3);
    coax_arena *arena = lcoax_arena(L);            /* at 4 */
    coax_schema *schema = schema_arg(L, 2, arena, draft); /* a box or nil at 5 */
    coax_extract_result r;
    coax_error err = {0};
    coax_code rc = coax_extract(arena, schema, text, len, &lim, &xo, &r, &err);
    if (rc == COAX_ENOMEM) return lcoax_error(L, rc, &err);
    if (rc) {
        release_made(L);
        lua_pushnil(L);
        lua_pushstring(L, err.msg[0] ? err.msg : coax_strerror(rc));
        lua_pushstring(L, coax_code_name(rc));
        return 3;
    }
    lua_createtable(L, 0, 6);
    lua_pushboolean(L, r.valid);
    lua_setfield(L, -2, "valid");
    lcoax_push_value(L, r.value, lim.max_depth);
    lua_setfield(L, -2, "value");
    lcoax_push_errors(L, &r.validation);
    lua_setfield(L, -2, "errors");
    lua_createtable(L, (int)r.ncoercions, 0);
    for (size_t i = 0; i < r.ncoercions; i++) {
        lua_createtable(L, 0, 4);
        lua_pushstring(L, r.coercions[i].kind);
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, r.coercions[i].pointer);
        lua_setfield(L, -2, "pointer");
        lua_pushstring(L, r.coercions[i].detail);
        lua_setfield(L, -2, "detail");
        lua_pushstring(L, coax_class_name(r.coercions[i].cls));
        lua_setfield(L, -2, "class");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "coercions");
    lcoax_push_repair_log(L, r.repair.log, r.repair.nlog);
    lua_setfield(L, -2, "log");
    if (r.refused) {
        lcoax_push_repair_entry(L, r.refused);
        lua_setfield(L, -2, "refused");
    }
    lua_pushinteger(L, (lua_Integer)r.candidate + 1);
    lua_setfield(L, -2, "candidate");
    release_made(L);
    return 1;
}

void lcoax_open_extract(lua_State *L)
{
    lua_pushcfunction(L, l_extract);
    lua_setfield(L, -2, "extract");
}
