/*
** lib.c: the helpers every part of the library (lib_*.c) shares: errors,
** options, limits, and a coax allocator over the state's own. The table
** of the library is built in library.c, which calls the parts: so this
** file is only called.
*/
#include "script/lib.h"

static const char stop_check_key = 0;

void lcoax_set_stop_check(lua_State *L, lua_CFunction check)
{
    lua_pushcfunction(L, check);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &stop_check_key);
}

int lcoax_error(lua_State *L, coax_code code, const coax_error *err)
{
    /* In the engine's Lua, memory the cap refused is the script's stop: a
    ** function that ran out raises the stop's own message, not its own,
    ** which would otherwise win or lose by whether a tick came between. */
    if (code == COAX_ENOMEM && lua_rawgetp(L, LUA_REGISTRYINDEX, &stop_check_key) == LUA_TFUNCTION) lua_call(L, 0, 0);
    if (err && err->msg[0])
        return luaL_error(L, "%s: %s", coax_code_name(code), err->msg);
    return luaL_error(L, "%s: %s", coax_code_name(code), coax_strerror(code));
}

/* The options every call that reads a reply takes: its limits
** (lcoax_limits) and its reading (lcoax_reply_options). */
static const char *const reply_option_names[] = {"max_depth", "max_input", "max_string", "max_class", "finish",
                                                 NULL};

/* by length too: "max_class\0x" is no option, though strcmp stops at its NUL */
static bool name_listed(const char *const *list, const char *k, size_t n)
{
    for (size_t i = 0; list[i]; i++)
        if (strlen(list[i]) == n && !memcmp(list[i], k, n)) return true;
    return false;
}

bool lcoax_key_before(lua_State *L, int a, int b)
{
    int ta = lua_type(L, a), tb = lua_type(L, b);
    if (ta != tb) {
        if (ta == LUA_TSTRING || tb == LUA_TSTRING) return ta == LUA_TSTRING;
        if (ta == LUA_TNUMBER || tb == LUA_TNUMBER) return ta == LUA_TNUMBER;
        return strcmp(lua_typename(L, ta), lua_typename(L, tb)) < 0;
    }
    if (ta == LUA_TNUMBER) {
        if (lua_isinteger(L, a) && lua_isinteger(L, b)) return lua_tointeger(L, a) < lua_tointeger(L, b);
        lua_Number x = lua_tonumber(L, a), y = lua_tonumber(L, b);
        return x < y || (x == y && lua_isinteger(L, a)); /* 2^53 + 1 and 2^53.0: the integer first */
    }
    if (ta == LUA_TBOOLEAN) return !lua_toboolean(L, a) && lua_toboolean(L, b);
    if (ta != LUA_TSTRING) return false;
    size_t na, nb;
    const char *x = lua_tolstring(L, a, &na), *y = lua_tolstring(L, b, &nb);
    int c = memcmp(x, y, na < nb ? na : nb);
    return c < 0 || (c == 0 && na < nb);
}

void lcoax_keep_least_key(lua_State *L, int *least)
{
    if (*least && !lcoax_key_before(L, -1, *least)) return;
    if (*least) {
        lua_pushvalue(L, -1);
        lua_replace(L, *least);
        return;
    }
    lua_pushvalue(L, -1);
    lua_insert(L, -2); /* below the key lua_next goes on from */
    *least = lua_gettop(L) - 1;
}

void lcoax_check_keys(lua_State *L, int idx, const char *fn, const char *const *own)
{
    if (!lua_istable(L, idx)) return;
    idx = lua_absindex(L, idx);
    int least = 0; /* the unknown key named: the least (lcoax_key_before), not pairs' first */
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        size_t n = 0;
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &n) : NULL;
        if (k && (name_listed(reply_option_names, k, n) || name_listed(own, k, n))) continue;
        lcoax_keep_least_key(L, &least);
    }
    if (!least) return;
    /* concatenated, not through %s: the name is shown whole, NULs included */
    lua_pushfstring(L, "%s: unknown option '", fn);
    luaL_tolstring(L, least, NULL);
    lua_pushliteral(L, "'");
    lua_concat(L, 3);
    lua_error(L);
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

const char *lcoax_opt_string(lua_State *L, int t, const char *k, int anchor)
{
    lua_getfield(L, t, k);
    const char *s = NULL;
    if (!lua_isnil(L, -1)) {
        /* A string only: a number would be converted into a new string that
        ** nothing keeps alive once popped. */
        if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "option '%s' must be a string", k);
        s = lua_tostring(L, -1);
        /* Not the options table: a host's __index may return a string made
        ** fresh, and a later option's __index may clear the key and collect
        ** (ASan: heap-use-after-free). The caller's anchor keeps it. */
        lua_rawseti(L, anchor, (int)lua_rawlen(L, anchor) + 1);
        return s;
    }
    lua_pop(L, 1);
    return s;
}

void lcoax_reply_options(lua_State *L, int idx, coax_extract_options *xo)
{
    if (!lua_istable(L, idx)) return;
    size_t n = 0;
    lua_getfield(L, idx, "max_class");
    const char *name = lua_isnil(L, -1) ? NULL : lua_tolstring(L, -1, &n);
    /* the whole string is the name: "lossless\0x" is none (strcmp would stop at the NUL) */
    if (!lua_isnil(L, -1))
        luaL_argcheck(L, name && strlen(name) == n && coax_class_parse(name, &xo->max_class), idx,
                      "max_class is lossless, inferred or invented");
    lua_getfield(L, idx, "finish"); /* the provider's finish reason: "length" is a cut */
    n = 0;
    const char *finish = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &n) : "";
    if (n == 6 && !memcmp(finish, "length", 6)) xo->flags |= COAX_EXTRACT_CUT_OFF;
    else if (n == 4 && !memcmp(finish, "stop", 4))
        xo->flags |= COAX_EXTRACT_FINISHED; /* the model stopped: a number it ends on ended */
    lua_pop(L, 2);
}

static void *state_malloc(void *ctx, size_t n)
{
    lcoax_lua_alloc *a = ctx;
    void *p = a->f(a->ud, NULL, 0, n);
    if (p) a->live += n;
    return p;
}

static void *state_realloc(void *ctx, void *p, size_t o, size_t n)
{
    lcoax_lua_alloc *a = ctx;
    void *q = a->f(a->ud, p, o, n);
    if (q) a->live += n - o;
    return q;
}

static void state_free(void *ctx, void *p, size_t o)
{
    lcoax_lua_alloc *a = ctx;
    a->f(a->ud, p, o, 0);
    a->live -= o;
}

const coax_allocator *lcoax_lua_allocator(lua_State *L, lcoax_lua_alloc *a)
{
    a->f = lua_getallocf(L, &a->ud);
    a->live = 0;
    a->alloc = (coax_allocator){state_malloc, state_realloc, state_free, a};
    return &a->alloc;
}
