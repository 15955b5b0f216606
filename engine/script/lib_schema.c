/*
** script/lib_schema.c: coax.schema(schema [, options]) -> compiled schema, and
** its methods s:validate(value [, format]) and s:draft().
*/
#include "script/lib.h"

static void release_schema(void *s)
{
    coax_schema_free(s);
}

static void release_meta_cache(void *mc)
{
    coax_meta_cache_free(mc);
}

static const char meta_cache_key = 0;

/* The state's meta-schema cache: its box lives in the registry, so the
** cache lives as long as the state. */
static coax_meta_cache *meta_cache(lua_State *L)
{
    coax_meta_cache *mc = NULL;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &meta_cache_key) != LUA_TNIL)
        mc = lcoax_owned_get(L, -1, "coax.meta_cache");
    lua_pop(L, 1);
    if (mc) return mc;
    lcoax_owned *node = lcoax_own(L, "coax.meta_cache", release_meta_cache);
    if (!(mc = coax_meta_cache_new(lcoax_owned_allocator(node))))
        lcoax_error(L, COAX_ENOMEM, NULL);
    lcoax_owned_set(node, mc);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &meta_cache_key);
    return mc;
}

#define LCOAX_BOUNDED "coax.bounded_validation"

void lcoax_bound_validation(lua_State *L)
{
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, LCOAX_BOUNDED);
}

bool lcoax_bounded(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, LCOAX_BOUNDED);
    bool bounded = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return bounded;
}

/* The budgets of a schema compiled in the engine's Lua: at most the bounds. */
static void bound_budgets(lua_State *L, coax_schema_options *o)
{
    if (!lcoax_bounded(L)) return;
    if (!o->max_steps || o->max_steps > COAX_DEFAULT_MIN_STEPS) o->max_steps = COAX_DEFAULT_MIN_STEPS;
    if (!o->max_regex_total || o->max_regex_total > COAX_DEFAULT_MIN_REGEX_TOTAL)
        o->max_regex_total = COAX_DEFAULT_MIN_REGEX_TOTAL;
}

coax_code lcoax_compile_owned(lua_State *L, const char *tname, const coax_value *doc,
                              const coax_schema_options *o, coax_schema **out, coax_error *err)
{
    coax_schema_options with_cache = *o;
    with_cache.meta_cache = meta_cache(L);
    bound_budgets(L, &with_cache);
    lcoax_owned *node = lcoax_own(L, tname, release_schema);
    coax_code rc = coax_schema_compile(doc, &with_cache, lcoax_owned_allocator(node), out, err);
    lcoax_owned_set(node, *out);
    return rc;
}

/* ---- the resolver: a Lua function uri -> schema (table or JSON text) ---- */

/* The resolver is called from inside coax_schema_compile, where a Lua error
** (memory above all: pushing the URI) would jump out and lose the
** half-built schema: every step of a call, from pushing the URI to reading
** the result, runs in a protected call of resolve_protected. */
typedef struct lresolver {
    lua_State *L;
    int fn;        /* stack index of the resolver */
    int protected; /* stack index of resolve_protected, pushed before compiling */
    size_t max_depth;
} lresolver;

typedef struct resolve_call {
    const char *uri;
    coax_arena *arena;
    size_t max_depth;
    const char *step; /* what a raised error is reported as */
    coax_value *out;
    coax_code rc;
    coax_error *err;
} resolve_call;

/* resolve_protected(resolver, call): the resolver's result for call->uri. */
static int resolve_protected(lua_State *L)
{
    resolve_call *c = lua_touserdata(L, 2);
    lua_pushvalue(L, 1);
    lua_pushstring(L, c->uri);
    lua_call(L, 1, 1);
    c->step = "resolver result";
    if (lua_isnil(L, -1)) {
        c->rc = COAX_ENOTFOUND;
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        size_t len;
        const char *text = lua_tolstring(L, -1, &len);
        c->rc = coax_parse(c->arena, text, len, NULL, &c->out, c->err);
    } else {
        c->out = lcoax_to_value(L, -1, c->arena, c->max_depth);
    }
    return 0;
}

static coax_code lua_resolve(void *ud, const char *uri, coax_arena *arena, coax_value **out,
                             coax_error *err)
{
    lresolver *r = ud;
    lua_State *L = r->L;
    if (!lua_checkstack(L, 3)) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    resolve_call c = {uri, arena, r->max_depth, "resolver", NULL, COAX_OK, err};
    lua_pushvalue(L, r->protected);
    lua_pushvalue(L, r->fn);
    lua_pushlightuserdata(L, &c);
    int status = lua_pcall(L, 2, 0, 0);
    if (status != LUA_OK) {
        coax_code code = status == LUA_ERRMEM ? COAX_ENOMEM : COAX_EINVAL;
        coax_fail(err, code, 0, "%s: %s", c.step,
                  lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(an error that is not a string)");
        lua_pop(L, 1);
        return code;
    }
    if (c.rc == COAX_OK) *out = c.out;
    return c.rc;
}

/* ---- coax.schema -------------------------------------------------------- */

/* Budget option 'k' of the options at 2: a positive integer (at most 'max'
** when not 0), or 0 when absent (the default). */
static lua_Integer opt_budget(lua_State *L, const char *k, lua_Integer max)
{
    lua_getfield(L, 2, k);
    lua_Integer n = 0;
    if (!lua_isnil(L, -1)) {
        n = luaL_checkinteger(L, -1);
        if (n <= 0 || (max && n > max)) luaL_argerror(L, 2, lua_pushfstring(L, "%s must be a positive integer", k));
    }
    lua_pop(L, 1);
    return n;
}

/** coax.schema(schema [, options]) -> compiled schema | nil, message, code
** 'schema' is a Lua value (coax.json shapes) or JSON text. options:
** draft ("2020-12", "2019-09", "7", "6", "4": for schemas without $schema),
** resolver (function(uri) -> schema table, JSON text or nil), remote_dir
** and remote_base (files for URIs under remote_base), max_depth, meta
** (false: skip the meta-schema check), assert_format (true: "format"
** asserts in every draft; false: it only annotates; nil: the draft's
** default, assert in 4, 6, 7), max_regex_steps (steps of one pattern
** match, default 1000000), max_steps and max_regex_total (a validation's
** budgets; in the engine's Lua at most bound_budgets'). An invalid schema
** returns nil, the message (with its location in the schema) and
** "COAX_ESCHEMA". */

static int l_schema(lua_State *L)
{
    luaL_checkany(L, 1);
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    lresolver res = {L, 0, 0, COAX_DEFAULT_MAX_DEPTH};
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        static const char *const own[] = {"draft",         "remote_dir",      "remote_base", "meta",
                                          "assert_format", "max_regex_steps", "max_steps",   "max_regex_total",
                                          "resolver",      NULL};
        lcoax_check_keys(L, 2, "coax.schema", own); /* a misspelt limit is not the default silently */
        lua_newtable(L); /* keeps the string options until this returns */
        int anchor = lua_gettop(L);
        const char *d = lcoax_opt_string(L, 2, "draft", anchor);
        if (d && !(o.draft = coax_draft_parse(d)))
            return luaL_argerror(L, 2, "draft must be \"2020-12\", \"2019-09\", \"7\", \"6\" or \"4\"");
        o.remote_dir = lcoax_opt_string(L, 2, "remote_dir", anchor);
        o.remote_base = lcoax_opt_string(L, 2, "remote_base", anchor);
        lua_getfield(L, 2, "max_depth");
        if (!lua_isnil(L, -1)) {
            lua_Integer n = luaL_checkinteger(L, -1);
            luaL_argcheck(L, n > 0, 2, "max_depth must be a positive integer");
            o.max_depth = (size_t)n;
        }
        lua_pop(L, 1);
        lua_getfield(L, 2, "meta");
        if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) o.flags |= COAX_SCHEMA_NO_META;
        lua_pop(L, 1);
        lua_getfield(L, 2, "assert_format");
        if (!lua_isnil(L, -1)) {
            luaL_argcheck(L, lua_type(L, -1) == LUA_TBOOLEAN, 2, "assert_format must be a boolean");
            o.flags |= lua_toboolean(L, -1) ? COAX_SCHEMA_ASSERT_FORMAT : COAX_SCHEMA_ANNOTATE_FORMAT;
        }
        lua_pop(L, 1);
        o.max_regex_steps = (uint32_t)opt_budget(L, "max_regex_steps", 0xFFFFFFFF);
        o.max_steps = (uint64_t)opt_budget(L, "max_steps", 0);
        o.max_regex_total = (uint64_t)opt_budget(L, "max_regex_total", 0);
        lua_getfield(L, 2, "resolver");
        if (!lua_isnil(L, -1)) {
            luaL_checktype(L, -1, LUA_TFUNCTION);
            res.fn = lua_gettop(L); /* stays on the stack during compilation */
            lua_pushcfunction(L, resolve_protected); /* now: on Lua 5.1 a push allocates */
            res.protected = lua_gettop(L);
            o.resolve = lua_resolve;
            o.resolve_ud = &res;
        } else {
            lua_pop(L, 1);
        }
    }
    coax_arena *arena = lcoax_arena(L);
    int arena_box = lua_gettop(L);
    coax_value *v;
    coax_error err;
    if (lua_type(L, 1) == LUA_TSTRING) {
        size_t len;
        const char *text = lua_tolstring(L, 1, &len);
        coax_code rc = coax_parse(arena, text, len, NULL, &v, &err);
        if (rc == COAX_ENOMEM) return lcoax_error(L, rc, &err);
        if (rc) {
            lcoax_arena_release(L, arena_box);
            lua_pushnil(L);
            lua_pushfstring(L, "schema is not valid JSON: %s at line %d, column %d", err.msg,
                            (int)err.line, (int)err.column);
            lua_pushstring(L, coax_code_name(rc));
            return 3;
        }
    } else {
        v = lcoax_to_value(L, 1, arena, COAX_DEFAULT_MAX_DEPTH);
    }
    coax_schema *s;
    coax_code rc = lcoax_compile_owned(L, LCOAX_SCHEMA, v, &o, &s, &err);
    lcoax_arena_release(L, arena_box); /* the schema holds a copy of its document */
    if (rc == COAX_ENOMEM) return lcoax_error(L, rc, &err);
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg[0] ? err.msg : coax_strerror(rc));
        lua_pushstring(L, coax_code_name(rc));
        return 3;
    }
    lcoax_owned_charge(L, lua_gettop(L), LCOAX_SCHEMA); /* the one a script keeps */
    return 1;
}

void lcoax_push_errors(lua_State *L, const coax_validation *r)
{
    lua_createtable(L, (int)(r->nerrors > 1u << 20 ? 0 : r->nerrors), 0);
    for (size_t i = 0; i < r->nerrors; i++) {
        const coax_schema_error *e = &r->errors[i];
        lua_createtable(L, 0, 4);
        lua_pushstring(L, e->instance_location);
        lua_setfield(L, -2, "instanceLocation");
        lua_pushstring(L, e->keyword_location);
        lua_setfield(L, -2, "keywordLocation");
        if (e->absolute_keyword_location) {
            lua_pushstring(L, e->absolute_keyword_location);
            lua_setfield(L, -2, "absoluteKeywordLocation");
        }
        lua_pushstring(L, e->message);
        lua_setfield(L, -2, "error");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/** s:validate(value [, format]) -> true | false, errors | nil, message, code
** 'value' is a Lua value (coax.json shapes) or, with format "json", JSON
** text to parse first. 'errors' lists every error as {instanceLocation,
** keywordLocation, absoluteKeywordLocation (past a reference), error}.
** format "flag" stops at the first error and returns false with an empty
** list. A limit (COAX_EDEPTH, COAX_ELIMIT) or text that is not JSON returns
** nil, the message and the code. */
static int l_validate(lua_State *L)
{
    coax_schema *s = lcoax_owned_get(L, 1, LCOAX_SCHEMA);
    luaL_checkany(L, 2);
    const char *fmt = luaL_optstring(L, 3, "basic");
    bool flag = !strcmp(fmt, "flag"), json = !strcmp(fmt, "json");
    luaL_argcheck(L, flag || json || !strcmp(fmt, "basic"), 3, "format must be \"basic\", \"flag\" or \"json\"");
    luaL_argcheck(L, s != NULL, 1, "schema already freed");
    lua_settop(L, 3);
    coax_arena *arena = lcoax_arena(L); /* at 4, released once the result is pushed */
    coax_value *v;
    coax_error err;
    coax_code rc;
    if (json) {
        size_t len;
        const char *text = luaL_checklstring(L, 2, &len);
        rc = coax_parse_unique(arena, text, len, NULL, &v, &err);
        if (rc == COAX_ENOMEM) return lcoax_error(L, rc, &err);
        if (rc) {
            lcoax_arena_release(L, 4);
            lua_pushnil(L);
            lua_pushfstring(L, "%s at line %d, column %d", err.msg, (int)err.line, (int)err.column);
            lua_pushstring(L, coax_code_name(rc));
            return 3;
        }
    } else {
        v = lcoax_to_value(L, 2, arena, COAX_DEFAULT_MAX_DEPTH);
    }
    coax_validation r;
    rc = coax_validate(s, v, arena, flag ? COAX_VALIDATE_FIRST : 0, &r, &err);
    if (rc == COAX_ENOMEM) return lcoax_error(L, rc, &err);
    if (rc) {
        lcoax_arena_release(L, 4);
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        lua_pushstring(L, coax_code_name(rc));
        return 3;
    }
    lua_pushboolean(L, r.valid);
    if (r.valid) {
        lcoax_arena_release(L, 4);
        return 1;
    }
    lcoax_push_errors(L, &r);
    lcoax_arena_release(L, 4);
    return 2;
}

/** s:draft() -> "2020-12" | "2019-09" | "7" | "6" | "4" */
static int l_draft(lua_State *L)
{
    coax_schema *s = lcoax_owned_get(L, 1, LCOAX_SCHEMA);
    luaL_argcheck(L, s != NULL, 1, "schema already freed");
    lua_pushstring(L, coax_draft_name(coax_schema_draft(s)));
    return 1;
}

void lcoax_open_schema(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"validate", l_validate},
        {"draft", l_draft},
        {NULL, NULL},
    };
    lcoax_own_metatable(L, LCOAX_SCHEMA);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    lua_pushcfunction(L, l_schema);
    lua_setfield(L, -2, "schema");
}
