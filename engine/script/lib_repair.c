/*
** script/lib_repair.c: coax.repair(text [, opts]).
*/
#include "script/lib.h"
#include "extract/coerce.h"

/* A log entry's field names, on the stack from 'keys' on: pushed once for a
** whole log, for lua_setfield looks each name up again (the state's string
** cache, a strcmp) for every entry, and a reply of 16 KB can log 1,700. */
static const char *const entry_keys[] = {"kind", "detail", "offset", "line", "column", "class"};
#define ENTRY_FIELDS (int)(sizeof entry_keys / sizeof *entry_keys)

static int push_entry_keys(lua_State *L)
{
    luaL_checkstack(L, ENTRY_FIELDS + 3, "repair log");
    for (int i = 0; i < ENTRY_FIELDS; i++) lua_pushstring(L, entry_keys[i]);
    return lua_gettop(L) - ENTRY_FIELDS + 1;
}

static void push_entry(lua_State *L, const coax_repair_entry *e, int keys)
{
    lua_createtable(L, 0, ENTRY_FIELDS);
    lua_pushvalue(L, keys);
    lua_pushstring(L, e->kind);
    lua_rawset(L, -3);
    lua_pushvalue(L, keys + 1);
    lua_pushstring(L, e->detail);
    lua_rawset(L, -3);
    lua_pushvalue(L, keys + 2);
    lua_pushinteger(L, (lua_Integer)e->offset);
    lua_rawset(L, -3);
    lua_pushvalue(L, keys + 3);
    lua_pushinteger(L, e->line);
    lua_rawset(L, -3);
    lua_pushvalue(L, keys + 4);
    lua_pushinteger(L, e->column);
    lua_rawset(L, -3);
    lua_pushvalue(L, keys + 5);
    lua_pushstring(L, coax_class_name(e->cls));
    lua_rawset(L, -3);
}

void lcoax_push_repair_entry(lua_State *L, const coax_repair_entry *e)
{
    int keys = push_entry_keys(L);
    push_entry(L, e, keys);
    lua_replace(L, keys);
    lua_settop(L, keys);
}

void lcoax_push_repair_log(lua_State *L, const coax_repair_entry *log, size_t n)
{
    lua_createtable(L, (int)(n > 1u << 20 ? 0 : n), 0);
    int keys = push_entry_keys(L);
    for (size_t i = 0; i < n; i++) {
        push_entry(L, &log[i], keys);
        lua_rawseti(L, keys - 1, (lua_Integer)i + 1);
    }
    lua_settop(L, keys - 1);
}

/** coax.repair(text [, opts]) -> value, log, info | nil, message, code
** The value coax accepts from a raw reply without a schema: a value that
** would be a guess (a repair less certain than opts.max_class, "inferred"
** by default; one of two different answers; a reply cut off) is refused
** with nil, the reason and "COAX_ENOJSON", as no JSON is. opts: max_class,
** finish (as coax.extract's), guess (true: the best reading even when it
** is a guess; its log's classes say what was guessed) and the limits.
** 'log' lists every fix ({kind, detail, offset, line, column, class});
** 'info' says where the value came from: {source, start, stop, complete,
** candidates}. Offsets are 0-based bytes, as in the C API. Limits raise no
** error: they return nil, message and the code (COAX_EDEPTH, ...). */
static int l_repair(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    static const char *const own[] = {"guess", NULL};
    lcoax_check_keys(L, 2, "coax.repair", own);
    coax_limits lim = lcoax_limits(L, 2);
    coax_extract_options xo;
    coax_extract_options_default(&xo);
    lcoax_reply_options(L, 2, &xo);
    bool guess = lua_istable(L, 2) && lua_getfield(L, 2, "guess") != LUA_TNIL && lua_toboolean(L, -1);
    lua_settop(L, 2);
    coax_arena *arena = lcoax_arena(L); /* at 3, released once the result is pushed */
    coax_extract_result r;
    coax_error err = {0};
    coax_code rc = guess ? extract_guess_repair(arena, text, len, &lim, &r, &err)
                         : extract_sure_repair(arena, text, len, &lim, &xo, &r, &err);
    if (rc == COAX_ENOMEM) return lcoax_error(L, rc, &err);
    if (rc || !r.valid) {
        lua_pushnil(L);
        lua_pushstring(L, rc ? err.msg : r.validation.errors[0].message);
        lua_pushstring(L, coax_code_name(rc ? rc : COAX_ENOJSON));
        lcoax_arena_release(L, 3);
        return 3;
    }
    lcoax_push_value(L, r.value, lim.max_depth);
    lcoax_push_repair_log(L, r.repair.log, r.repair.nlog);
    const coax_candidate *c = &r.repair.candidates[r.candidate];
    lua_createtable(L, 0, 5);
    lua_pushstring(L, coax_source_name(c->source));
    lua_setfield(L, -2, "source");
    lua_pushinteger(L, (lua_Integer)c->start);
    lua_setfield(L, -2, "start");
    lua_pushinteger(L, (lua_Integer)c->end);
    lua_setfield(L, -2, "stop");
    lua_pushboolean(L, c->complete);
    lua_setfield(L, -2, "complete");
    lua_pushinteger(L, (lua_Integer)r.repair.ncandidates);
    lua_setfield(L, -2, "candidates");
    lcoax_arena_release(L, 3);
    return 3;
}

void lcoax_open_repair(lua_State *L)
{
    lua_pushcfunction(L, l_repair);
    lua_setfield(L, -2, "repair");
}
