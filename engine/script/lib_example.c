/*
** script/lib_example.c: coax.example(schema [, options]).
*/
#include "script/lib.h"

#include <string.h>

#define LCOAX_EXAMPLE_SCHEMA "coax.example.schema"
#define SCRIPT_MAX_STEPS 20000 /* coax_example's default max_steps */
#define TEXT_OF_(x) #x
#define TEXT_OF(x) TEXT_OF_(x) /* a macro's value as a string literal */

static size_t opt_size(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    size_t n = 0;
    if (!lua_isnil(L, -1)) {
        lua_Integer v = luaL_checkinteger(L, -1);
        luaL_argcheck(L, v > 0, t, "max_depth and max_steps must be positive integers");
        n = (size_t)v;
    }
    lua_pop(L, 1);
    return n;
}

/** coax.example(schema [, options]) -> value | nil, message [, code]
** An instance that validates against 'schema' (JSON text, a table in
** coax.json shapes, or a compiled schema from coax.schema, compiled once for
** many calls), as a Lua value in coax.json shapes. options: draft (for
** schemas without $schema), remote_dir and remote_base (those three shape
** a compilation, so not with a compiled schema), minimal
** (required properties only), max_depth (nesting of the instance, default
** 32), max_steps (default 20000). When no valid instance can be built:
** nil and a message naming the limit that cut generation short, if one
** did, and the first error of the closest attempt, if one was built. An
** invalid schema or a limit on a check: nil, the message and the code
** ("COAX_ESCHEMA", "COAX_ELIMIT", ...). */
static int l_example(lua_State *L)
{
    luaL_checkany(L, 1);
    coax_schema_options so;
    memset(&so, 0, sizeof so);
    coax_example_options eo;
    memset(&eo, 0, sizeof eo);
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        static const char *const own[] = {"draft", "remote_dir", "remote_base", "minimal", "max_steps", NULL};
        lcoax_check_keys(L, 2, "coax.example", own); /* a misspelt limit is not the default silently */
        lua_settop(L, 2);
        lua_newtable(L); /* keeps the string options: at 2 once they are read */
        const char *d = lcoax_opt_string(L, 2, "draft", 3);
        if (d && !(so.draft = coax_draft_parse(d)))
            return luaL_argerror(L, 2, "draft must be \"2020-12\", \"2019-09\", \"7\", \"6\" or \"4\"");
        so.remote_dir = lcoax_opt_string(L, 2, "remote_dir", 3);
        so.remote_base = lcoax_opt_string(L, 2, "remote_base", 3);
        luaL_argcheck(L, !so.remote_dir == !so.remote_base, 2, "remote_dir and remote_base go together");
        lua_getfield(L, 2, "minimal");
        if (lua_toboolean(L, -1)) eo.flags |= COAX_EXAMPLE_MINIMAL;
        lua_pop(L, 1);
        eo.max_depth = opt_size(L, 2, "max_depth");
        eo.max_steps = opt_size(L, 2, "max_steps");
        lua_replace(L, 2); /* the options are read; their strings stay */
    }
    /* In the engine's Lua a call runs to its end before any instruction is
    ** charged, and its candidates' checks draw max_steps x 500 validation
    ** steps: a script's max_steps of 2^50 on a schema with no instance ran
    ** for hours. At most the default there, as its schemas' budgets. */
    if (lcoax_bounded(L) && (!eo.max_steps || eo.max_steps > SCRIPT_MAX_STEPS)) eo.max_steps = SCRIPT_MAX_STEPS;
    lua_settop(L, 2);
    coax_arena *arena = lcoax_arena(L); /* at 3 */
    coax_error err;
    memset(&err, 0, sizeof err);
    coax_schema *schema;
    coax_code rc;
    if (luaL_testudata(L, 1, LCOAX_SCHEMA)) {
        luaL_argcheck(L, !so.draft && !so.remote_dir, 2,
                      "draft, remote_dir and remote_base apply to a schema compiled here, not a coax.schema");
        schema = lcoax_owned_get(L, 1, LCOAX_SCHEMA);
        luaL_argcheck(L, schema != NULL, 1, "schema already freed");
        lua_pushnil(L); /* at 4: nothing of this call's to release */
        rc = COAX_OK;
    } else {
        coax_value *doc;
        if (lua_type(L, 1) == LUA_TSTRING) {
            size_t len;
            const char *text = lua_tolstring(L, 1, &len);
            rc = coax_parse(arena, text, len, NULL, &doc, &err);
            if (rc == COAX_ENOMEM) return lcoax_error(L, rc, &err);
            if (rc) {
                lcoax_arena_release(L, 3);
                lua_pushnil(L);
                lua_pushfstring(L, "schema is not valid JSON: %s at line %d, column %d", err.msg,
                                (int)err.line, (int)err.column);
                lua_pushstring(L, coax_code_name(COAX_ESCHEMA));
                return 3;
            }
        } else {
            doc = lcoax_to_value(L, 1, arena, COAX_DEFAULT_MAX_DEPTH);
        }
        rc = lcoax_compile_owned(L, LCOAX_EXAMPLE_SCHEMA, doc, &so, &schema, &err); /* at 4 */
    }
    coax_example_result r;
    if (!rc) rc = coax_example(schema, &eo, arena, &r, &err);
    if (rc == COAX_ENOMEM) return lcoax_error(L, rc, &err);
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg[0] ? err.msg : coax_strerror(rc));
        lua_pushstring(L, coax_code_name(rc));
    } else if (!r.valid) {
        const char *within = r.limited & COAX_EXAMPLE_HIT_DEPTH   ? " within the depth limit (max_depth)"
                             : r.limited & COAX_EXAMPLE_HIT_STEPS ? " within the step limit (max_steps)"
                             : r.limited & COAX_EXAMPLE_HIT_SIZE  ? " within the size limit (an array of at most "
                                                                    TEXT_OF(COAX_EXAMPLE_MAX_ITEMS) " items)"
                                                                  : "";
        lua_pushnil(L);
        if (r.value && r.validation.nerrors)
            lua_pushfstring(L, "no valid instance found%s: at \"%s\": %s", within,
                            r.validation.errors[0].instance_location, r.validation.errors[0].message);
        else
            lua_pushfstring(L, "no valid instance found%s", within);
    } else {
        lcoax_push_value(L, r.value, COAX_DEFAULT_MAX_DEPTH);
    }
    int nret = lua_gettop(L) - 4;
    if (!lua_isnil(L, 4)) lcoax_own_release(L, 4, LCOAX_EXAMPLE_SCHEMA); /* now, not when the collector gets to them */
    lcoax_arena_release(L, 3);
    return nret;
}

void lcoax_open_example(lua_State *L)
{
    lua_pushcfunction(L, l_example);
    lua_setfield(L, -2, "example");
}
