/*
** lua/run.c: coax.run(recipe, input [, opts]) for Lua hosts and specs.
*/
#include "session/agent_default.h"
#include "lua/run.h"
#include "script/lib.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LRUN_ENGINE "coax.run.engine" /* the engine of one coax.run call */

static void release_engine(void *e)
{
    coax_engine_free(e);
}

/* Option k of table t: a count from 1 to 'max', or 0 when absent (the
** default). Out of range is an error: a cast would wrap -1 into no memory
** cap, or 2^32 + 5 instructions into 5. */
static lua_Integer opt_count(lua_State *L, int t, const char *k, lua_Integer max)
{
    lua_getfield(L, t, k);
    if (lua_type(L, -1) == LUA_TNUMBER && !lua_isinteger(L, -1)) { /* 2.5, 1e300: named, on every host */
        lua_Number d = lua_tonumber(L, -1);
        if (!(d == floor(d) && d >= -0x1p63 && d < 0x1p63))
            luaL_error(L, "option %s: %s is not an integer", k, luaL_tolstring(L, -1, NULL));
    }
    lua_Integer n = lua_isnil(L, -1) ? 0 : luaL_checkinteger(L, -1);
    if (!lua_isnil(L, -1) && (n < 1 || n > max)) {
        char msg[160]; /* every host's Lua: 5.1's luaL_error has no %I */
        snprintf(msg, sizeof msg, "option %s: %lld is out of range (1 to %lld)", k, (long long)n, (long long)max);
        luaL_error(L, "%s", msg);
    }
    lua_pop(L, 1);
    return n;
}

/* opts.secrets = {NAME = "value"}: what coax.secret finds, instead of the
** environment. The names and values point into a table the userdata keeps. */
typedef struct secrets {
    size_t n;
    const char *kv[]; /* name, value, name, value, ... */
} secrets;

static const char *find_secret(void *ud, const char *name)
{
    const secrets *s = ud;
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->kv[2 * i], name)) return s->kv[2 * i + 1];
    return NULL;
}

static void log_stderr(void *ud, const char *line)
{
    (void)ud;
    fputs("coax: ", stderr);
    coax_fput_shown(stderr, line, strlen(line)); /* a recipe's URL, a provider's error */
    fputc('\n', stderr);
}

/* opts.allow_dirs, a folder or a list of folders, as the NULL-terminated
** list coax_engine_options wants, in a userdata pushed on the stack (which
** keeps the strings too), or NULL (nil pushed). */
static const char *const *allow_dirs(lua_State *L, int t)
{
    int type = lua_getfield(L, t, "allow_dirs");
    if (type == LUA_TNIL) return NULL;
    if (type == LUA_TSTRING) {
        lua_createtable(L, 1, 0);
        lua_insert(L, -2);
        lua_rawseti(L, -2, 1);
    } else {
        /* A copy, as for the secrets: the host's list may lose its strings
        ** to a later option's __index before the engine is made. */
        luaL_argcheck(L, lua_istable(L, -1), t, "allow_dirs must be a folder or a list of folders");
        size_t len = lua_rawlen(L, -1);
        lua_newtable(L); /* grown as it is filled: its length may be a border far past its entries */
        for (size_t i = 1; i <= len; i++) {
            /* checked here, so a hole ends the copy: a list of 31 folders at
            ** 1, 2, 4, ..., 2^30 has the length 2^30 (a border) */
            luaL_argcheck(L, lua_rawgeti(L, -2, (lua_Integer)i) == LUA_TSTRING, t,
                          "allow_dirs must be a folder or a list of folders");
            lua_rawseti(L, -2, (lua_Integer)i);
        }
        lua_remove(L, -2);
    }
    size_t n = lua_rawlen(L, -1);
    const char **dirs = lua_newuserdatauv(L, (n + 1) * sizeof *dirs, 1);
    lua_pushvalue(L, -2);
    lua_setiuservalue(L, -2, 1);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -2, (lua_Integer)i + 1);
        luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, t, "allow_dirs must be a folder or a list of folders");
        dirs[i] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    dirs[n] = NULL;
    lua_remove(L, -2);
    return dirs;
}

/* Where the scripts are when neither opts.lua_path nor $COAX_LUA_PATH says:
** the folder of coax/runtime.lua on the host's package.path, which is
** where `luarocks make` (and `make install-lua`) put them beside the
** module, so an installed rock runs recipes wherever its tree is. NULL:
** not there either (the engine then tries ./lua and its share folder). */
static const char *scripts_on_package_path(lua_State *L, char *buf, size_t cap)
{
    const char *env = getenv("COAX_LUA_PATH");
    if (env && *env) return NULL;
    lua_getglobal(L, "package");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    lua_getfield(L, -1, "path");
    const char *path = lua_tostring(L, -1), *found = NULL;
    for (const char *t = path; t && *t && !found; t += strcspn(t, ";"), t += *t == ';') {
        size_t n = strcspn(t, ";");
        const char *q = memchr(t, '?', n);
        /* "DIR/?.lua": the scripts are DIR when DIR/coax/runtime.lua exists */
        if (!q || n - (size_t)(q - t) != 5 || memcmp(q, "?.lua", 5) || (size_t)(q - t) + 20 >= cap) continue;
        snprintf(buf, cap, "%.*scoax/runtime.lua", (int)(q - t), t);
        FILE *f = fopen(buf, "rb");
        if (!f) continue;
        fclose(f);
        size_t dir = (size_t)(q - t);
        while (dir > 1 && t[dir - 1] == '/') dir--; /* "DIR/" -> "DIR" */
        snprintf(buf, cap, "%.*s", dir ? (int)dir : 1, dir ? t : ".");
        found = buf;
    }
    lua_pop(L, 2);
    return found;
}

/* The options each function knows: an unknown one is a mistake (a typo
** would otherwise be silently ignored), raised as an error. */
static const char *const ENGINE_OPTS[] = {"lua_path", "lua_memory", "lua_instructions", "max_depth",
                                          "max_input", "max_string", "http_connect_timeout_ms",
                                          "http_timeout_ms", "http_max_response", "proxy", "ca_file",
                                          "verbose", "secrets", "allow_dirs", NULL};
static const char *const SESSION_OPTS[] = {"agent", "replies", "agent_options", "max_attempts", "source",
                                           "command", NULL};

static bool known(const char *const *names, const char *k)
{
    for (; *names; names++)
        if (!strcmp(*names, k)) return true;
    return false;
}

/* Raises for a key of options table 't' in none of the lists (NULL ends
** them); 'extra' is one more name, or NULL. Of several, the least. */
static void check_options(lua_State *L, int t, const char *fn, const char *const *a, const char *const *b,
                          const char *extra)
{
    int least = 0; /* the unknown key named: the least (lcoax_key_before), not pairs' first */
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (!k || !((a && known(a, k)) || (b && known(b, k)) || (extra && !strcmp(k, extra))))
            lcoax_keep_least_key(L, &least);
    }
    if (least)
        luaL_error(L, "%s: unknown option '%s' (README, \"The Lua module\")", fn, luaL_tolstring(L, least, NULL));
}

/* Reads the engine options of table 't' into 'eo'. Pushes two values: the
** allowed folders (or nil), which must live until the engine is made, and
** on top the secrets (or nil), which must outlive the engine. */
static void engine_options(lua_State *L, int t, int anchor, coax_engine_options *eo)
{
    eo->script_dir = lcoax_opt_string(L, t, "lua_path", anchor);
    eo->allow_dirs = allow_dirs(L, t);
    eo->limits = lcoax_limits(L, t); /* max_depth, max_input, max_string */
    eo->lua_memory = (size_t)opt_count(L, t, "lua_memory", PTRDIFF_MAX);
    eo->lua_instructions = (uint32_t)opt_count(L, t, "lua_instructions", UINT32_MAX);
    eo->http_connect_timeout_ms = (long)opt_count(L, t, "http_connect_timeout_ms", INT32_MAX);
    eo->http_timeout_ms = (long)opt_count(L, t, "http_timeout_ms", INT32_MAX);
    eo->http_max_response = (size_t)opt_count(L, t, "http_max_response", PTRDIFF_MAX);
    eo->proxy = lcoax_opt_string(L, t, "proxy", anchor);
    eo->ca_file = lcoax_opt_string(L, t, "ca_file", anchor);
    lua_getfield(L, t, "verbose");
    if (lua_toboolean(L, -1)) eo->log = log_stderr;
    lua_pop(L, 1);
    if (lua_getfield(L, t, "secrets") == LUA_TNIL) return; /* nil stays pushed */
    luaL_argcheck(L, lua_istable(L, -1), t, "secrets must be a table of strings");
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        luaL_argcheck(L, lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING, t,
                      "secrets must be a table of strings");
        lua_pop(L, 1);
        n++;
    }
    secrets *s = lua_newuserdatauv(L, sizeof *s + 2 * n * sizeof(char *), 1);
    s->n = 0;
    /* The pointers point into a copy of the table, which the userdata keeps:
    ** a host that empties its own table once the engine is made (clearing
    ** its keys) left them pointing at freed strings, read at the next
    ** session (ASan: heap-use-after-free in find_secret). */
    lua_createtable(L, 0, n > INT_MAX ? INT_MAX : (int)n);
    lua_pushnil(L);
    while (lua_next(L, -4)) { /* the host's table: no metamethod runs, no Lua changes it meanwhile */
        s->kv[2 * s->n] = lua_tostring(L, -2);
        s->kv[2 * s->n + 1] = lua_tostring(L, -1);
        s->n++;
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4); /* copy[name] = value */
    }
    lua_setiuservalue(L, -2, 1);
    lua_remove(L, -2);
    eo->secret = find_secret;
    eo->secret_ud = s;
}

/* Whether opts table 't' names the agent (agent, replies, command, or a
** name or call in agent_options) or its own default (agent_options.fallback). */
static bool names_agent(lua_State *L, int t)
{
    static const char *const direct[] = {"agent", "replies", "command"};
    for (size_t i = 0; i < 3; i++) {
        int type = lua_getfield(L, t, direct[i]);
        lua_pop(L, 1);
        if (type != LUA_TNIL) return true;
    }
    bool named = false;
    if (lua_getfield(L, t, "agent_options") == LUA_TTABLE) {
        static const char *const keys[] = {"name", "call", "fallback"}; /* fallback: the host's own default */
        for (size_t i = 0; i < 3 && !named; i++) {
            named = lua_getfield(L, -1, keys[i]) != LUA_TNIL;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return named;
}

/* Copies table 'from''s own pairs into table 'to' (both absolute indexes). */
static void copy_raw(lua_State *L, int from, int to)
{
    luaL_checkstack(L, 3, "options");
    lua_pushnil(L);
    while (lua_next(L, from)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, to);
    }
}

/* The agent options of opts table 't' (nil: none) as JSON text pushed on
** the stack and returned: {name?, replies?, ...agent_options, fallback?}.
** When nothing names an agent, "fallback" is the default agent (as for
** the coax command: agent_default.c) or the message the session fails
** with if the recipe names none either. 'recipe' is the recipe file (NULL
** for recipe text); 'secret' finds the provider keys (NULL: environment).
** A bad transcript is an error: false, with 'msg' set. */
static bool agent_json(lua_State *L, int t, int anchor, const char *recipe, coax_secret_fn secret, void *ud,
                       bool verbose, char *msg, size_t cap)
{
    /* Copies: the host's agent_options and replies tables are its own, and
    ** stay as they were (no name or replies added, no metatable replaced). */
    lua_newtable(L);
    if (t) {
        if (lua_getfield(L, t, "agent_options") != LUA_TNIL) {
            luaL_checktype(L, -1, LUA_TTABLE);
            copy_raw(L, lua_gettop(L), lua_gettop(L) - 1);
        }
        lua_pop(L, 1);
    }
    /* the agent: opts.agent, else replay with opts.replies, else command
    ** with opts.command, as --agent, --replay and --command choose */
    const char *name = t ? lcoax_opt_string(L, t, "agent", anchor) : NULL;
    if (t && lua_getfield(L, t, "replies") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        lua_newtable(L);
        copy_raw(L, lua_gettop(L) - 1, lua_gettop(L));
        luaL_setmetatable(L, LCOAX_ARRAY);
        lua_remove(L, -2);
        lua_setfield(L, -2, "replies");
        if (!name) name = "replay";
    } else if (t) {
        lua_pop(L, 1); /* the nil */
    }
    if (t && !name) {
        if (lua_getfield(L, t, "command") != LUA_TNIL) name = "command";
        lua_pop(L, 1);
    }
    if (name) {
        lua_pushstring(L, name);
        lua_setfield(L, -2, "name");
    }
    coax_arena *a = lcoax_arena(L);
    coax_value *v = lcoax_to_value(L, -2, a, COAX_DEFAULT_MAX_DEPTH);
    lua_remove(L, -2); /* the options table; the arena box stays until the end */
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(a));
    if (v->type == COAX_OBJECT && v->len) coax_write_buf(&b, v, 0);
    else coax_buf_puts(&b, "{}"); /* an empty table may read as an array */
    bool ok = true;
    if (!(t && names_agent(L, t))) {
        coax_buf fb;
        coax_buf_init(&fb, coax_arena_allocator(a));
        agent_default_choice d;
        coax_code rc = agent_default(recipe, secret, ud, "opts.agent", &fb, &d, msg, cap);
        if (rc == COAX_ENOTFOUND) { /* the session fails with it only if the recipe names no agent */
            coax_buf_puts(&fb, "\"fallback\":");
            coax_buf_put_json_string(&fb, msg, strlen(msg));
        } else if (rc) {
            ok = false;
        } else if (verbose) {
            fprintf(stderr, "coax: %s\n", d.notice);
        }
        if (ok && fb.len && b.len) {
            b.len--; /* the closing brace */
            if (b.len > 1) coax_buf_putc(&b, ',');
            coax_buf_put(&b, fb.data, fb.len);
            coax_buf_putc(&b, '}');
        }
        coax_buf_free(&fb);
    }
    if (b.oom) {
        coax_buf_free(&b);
        lcoax_error(L, COAX_ENOMEM, NULL);
    }
    lua_pushlstring(L, b.data, b.len);
    coax_buf_free(&b);
    return ok;
}

/** coax.run(recipe, input [, opts]) -> result
** 'recipe' is a recipe file's path (or, with opts.source = true, its text).
** opts: agent (a name), replies (a list: the replay agent's replies),
** agent_options (a table merged into the agent's), max_attempts,
** lua_path, lua_memory, lua_instructions, the limits (max_depth, max_input,
** max_string), command (what the command agent runs), and for HTTP agents
** http_connect_timeout_ms, http_timeout_ms, http_max_response, proxy,
** ca_file, verbose (log requests to stderr), secrets ({NAME = "value"}:
** what coax.secret finds instead of the environment), allow_dirs (a folder
** or a list: where the recipe may name files besides its own folder and the
** project's schemas/). The result is the session report
** as a table: {outcome, value, error, metrics, attempts}. */
/* nil, message, code: a session that could not start (an unreadable
** recipe, a bad transcript), as the other functions report failures. */
/* JSON the engine wrote (a report, a value, a host's request, an event's
** data) holds a reply's value, or a recipe's tool rounds and messages, a
** few levels below its top, each as deep as its own limit allows: a 1 KB
** reply of 510 nested arrays, a valid one, made coax.run and s:report()
** raise COAX_EDEPTH instead of giving the report. It is read as deep as a
** value is ever pushed into Lua (lcoax_push_value's cap), and whole. */
#define OWN_JSON_DEPTH 4096

static coax_limits own_json_limits(size_t len)
{
    coax_limits lim = {OWN_JSON_DEPTH, len ? len : 1, len ? len : 1};
    return lim;
}

static int start_failed(lua_State *L, coax_code rc, const char *msg)
{
    lua_pushnil(L);
    lua_pushstring(L, msg && *msg ? msg : coax_strerror(rc));
    lua_pushstring(L, coax_code_name(rc));
    return 3;
}

/* As start_failed, once the engine at 'box' is freed: a host calling coax.run
** in a loop need not wait for its collector, which does not see an engine's
** memory. */
static int run_failed(lua_State *L, int box, coax_code rc, const char *msg)
{
    lcoax_own_release(L, box, LRUN_ENGINE);
    return start_failed(L, rc, msg);
}

static int l_run(lua_State *L)
{
    size_t rlen, ilen = 0;
    const char *recipe = luaL_checklstring(L, 1, &rlen);
    const char *input = luaL_optlstring(L, 2, "", &ilen);
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    int opts = lua_istable(L, 3) ? 3 : 0;
    if (opts) check_options(L, opts, "coax.run", ENGINE_OPTS, SESSION_OPTS, NULL);
    coax_engine_options eo = {0};
    coax_session_options so = {0};
    so.input = input;
    so.input_len = ilen;
    bool source = false;
    lua_newtable(L); /* keeps the string options until this returns */
    int anchor = lua_gettop(L);
    if (opts) {
        engine_options(L, opts, anchor, &eo); /* the folders and secrets stay on the stack */
        so.max_attempts = (int)opt_count(L, opts, "max_attempts", INT_MAX);
        lua_getfield(L, opts, "source");
        source = lua_toboolean(L, -1);
        lua_pop(L, 1);
        so.command = lcoax_opt_string(L, opts, "command", anchor);
    }
    char msg[700];
    if (!agent_json(L, opts, anchor, source ? NULL : recipe, eo.secret, eo.secret_ud, eo.log != NULL, msg, sizeof msg))
        return start_failed(L, COAX_EINVAL, msg);
    so.agent_json = lua_tostring(L, -1);
    /* the engine, freed before this returns (if it raises, by its box at 'box') */
    lcoax_owned *node = lcoax_own(L, LRUN_ENGINE, release_engine);
    int box = lua_gettop(L);
    char scripts[4096];
    if (!eo.script_dir) eo.script_dir = scripts_on_package_path(L, scripts, sizeof scripts);
    coax_error err = {0};
    coax_engine *engine;
    coax_code rc = coax_engine_new(&eo, &engine, &err);
    lcoax_owned_set(node, engine);
    if (rc) return run_failed(L, box, rc, err.msg);
    coax_session *s;
    rc = source ? coax_session_from_text(engine, recipe, rlen, "=recipe", &so, &s, &err)
                : coax_session_from_file(engine, recipe, &so, &s, &err);
    if (rc) return run_failed(L, box, rc, err.msg);
    coax_session_run(s);
    /* A session waiting for its host (the host agent, or a recipe's agent
    ** asking it) has no report yet: not a memory failure, but a host that
    ** cannot answer, as in `coax run`. */
    if (coax_session_host_request(s, NULL))
        return run_failed(L, box, COAX_EINVAL,
                          "the host agent is answered by a program that embeds coax (coax.engine's "
                          "s:host_request and s:host_reply), not by coax.run: name another agent");
    size_t len;
    const char *report = coax_session_report(s, &len);
    if (!report) return lcoax_error(L, COAX_ENOMEM, NULL);
    coax_arena *a = lcoax_arena(L);
    coax_value *v;
    coax_limits lim = own_json_limits(len);
    if (coax_parse(a, report, len, &lim, &v, &err)) return lcoax_error(L, err.code, &err);
    lcoax_push_value(L, v, lim.max_depth);
    lcoax_arena_release(L, box + 1);
    lcoax_own_release(L, box, LRUN_ENGINE);
    return 1;
}

/* ---- coax.engine: the C API's engines and sessions, for Lua hosts ------- */

#define LENGINE "coax.engine.object"
#define LSESSION "coax.session"

typedef struct lengine {
    coax_engine *engine;
    coax_secret_fn secret; /* the engine's secrets (opts.secrets), for the default agent */
    void *secret_ud;
    lua_State *L;    /* the state polling now (events call back into it) */
    int error_ref;   /* an error raised by an event handler during a poll */
} lengine;

typedef struct lsession {
    coax_session *session;
    lengine *owner;  /* kept alive by the session's user value */
    int on_event;    /* registry ref of the handler, or LUA_NOREF */
} lsession;

static lengine *check_engine(lua_State *L, int i)
{
    lengine *e = luaL_checkudata(L, i, LENGINE);
    luaL_argcheck(L, e->engine != NULL, i, "the engine is closed");
    return e;
}

static lsession *check_session(lua_State *L, int i)
{
    lsession *s = luaL_checkudata(L, i, LSESSION);
    luaL_argcheck(L, s->session && s->owner->engine, i, "the session is closed");
    return s;
}

/* The handler (1) called with the event's name (2) and its data (3, JSON
** text), both light userdata, made values here under the pcall: no memory,
** or a value too deep for Lua, is the handler's error. */
static int call_handler(lua_State *L)
{
    const char *name = lua_touserdata(L, 2), *data = lua_touserdata(L, 3);
    lua_settop(L, 1);
    coax_arena *a = lcoax_arena(L); /* a box at 2, which frees it when collected */
    lua_pushvalue(L, 1);
    lua_pushstring(L, name);
    coax_value *v;
    coax_limits lim = own_json_limits(strlen(data));
    if (coax_parse(a, data, strlen(data), &lim, &v, NULL) == COAX_OK) lcoax_push_value(L, v, lim.max_depth);
    else lua_pushnil(L);
    lua_call(L, 2, 0);
    return 0;
}

/* Events reach the Lua handler protected: an error must not unwind through
** the engine's C frames. The first one is raised when the poll returns. */
static void lua_event(void *ud, coax_session *cs, const char *name, const char *data)
{
    (void)cs;
    lsession *s = ud;
    lengine *e = s->owner;
    lua_State *L = e->L;
    if (!L || s->on_event == LUA_NOREF || e->error_ref != LUA_NOREF) return;
    if (!lua_checkstack(L, 4)) return;
    lua_pushcfunction(L, call_handler);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->on_event);
    lua_pushlightuserdata(L, (void *)name); /* nothing that allocates outside the pcall */
    lua_pushlightuserdata(L, (void *)data);
    if (lua_pcall(L, 3, 0, 0) != LUA_OK) e->error_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

/* A poll of 'e' begins on 'L': not from an event handler, inside the poll
** that called it (the C engine would not poll again, and the handlers of
** the poll outside would lose their state). */
static void begin_poll(lua_State *L, lengine *e, const char *what)
{
    if (e->L) luaL_error(L, "%s: called from an event handler while the engine polls", what);
    e->L = L;
}

static void raise_pending(lua_State *L, lengine *e)
{
    e->L = NULL;
    if (e->error_ref == LUA_NOREF) return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, e->error_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, e->error_ref);
    e->error_ref = LUA_NOREF;
    lua_error(L);
}

static int engine_gc(lua_State *L)
{
    lengine *e = luaL_checkudata(L, 1, LENGINE);
    coax_engine_free(e->engine); /* frees its sessions too */
    e->engine = NULL;
    return 0;
}

/** coax.engine([opts]) -> engine
** opts: as coax.run's engine options (lua_path, lua_memory,
** lua_instructions, http_*, proxy, ca_file, verbose, secrets, allow_dirs). The engine
** owns a sandboxed Lua state and its sessions; e:close() (or collection)
** frees them all. */
static int l_engine(lua_State *L)
{
    coax_engine_options eo = {0};
    if (!lua_isnoneornil(L, 1)) {
        luaL_checktype(L, 1, LUA_TTABLE);
        check_options(L, 1, "coax.engine", ENGINE_OPTS, NULL, NULL);
        lua_newtable(L); /* keeps the string options until this returns */
        engine_options(L, 1, lua_gettop(L), &eo);
    } else {
        lua_pushnil(L);
    }
    lengine *e = lua_newuserdatauv(L, sizeof *e, 1);
    e->engine = NULL;
    e->secret = eo.secret;
    e->secret_ud = eo.secret_ud;
    e->L = NULL;
    e->error_ref = LUA_NOREF;
    luaL_setmetatable(L, LENGINE);
    lua_rotate(L, -2, 1);
    lua_setiuservalue(L, -2, 1); /* the secrets live as long as the engine */
    char scripts[4096];
    if (!eo.script_dir) eo.script_dir = scripts_on_package_path(L, scripts, sizeof scripts);
    coax_error err = {0};
    coax_code rc = coax_engine_new(&eo, &e->engine, &err);
    if (rc) return lcoax_error(L, rc, &err);
    return 1;
}

/** e:poll([timeout_ms = 0]) -> the number of sessions still running
** Never waits longer than the timeout; event handlers run inside. */
static int e_poll(lua_State *L)
{
    lengine *e = check_engine(L, 1);
    lua_Integer t = luaL_optinteger(L, 2, 0);
    luaL_argcheck(L, t >= 0 && t <= 3600000, 2, "timeout out of range");
    begin_poll(L, e, "e:poll");
    size_t n = coax_engine_poll(e->engine, (int)t);
    raise_pending(L, e);
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

static int e_close(lua_State *L) { return engine_gc(L); }

static int session_gc(lua_State *L)
{
    lsession *s = luaL_checkudata(L, 1, LSESSION);
    if (s->session && s->owner->engine) coax_session_free(s->session);
    s->session = NULL;
    if (s->on_event != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->on_event);
    s->on_event = LUA_NOREF;
    return 0;
}

/** e:session(recipe, input [, opts]) -> session
** As coax.run (recipe path, or text with opts.source), plus opts.on_event =
** function(name, data). Nothing runs until the engine is polled. */
static int e_session(lua_State *L)
{
    lengine *e = check_engine(L, 1);
    size_t rlen, ilen = 0;
    const char *recipe = luaL_checklstring(L, 2, &rlen);
    const char *input = luaL_optlstring(L, 3, "", &ilen);
    if (!lua_isnoneornil(L, 4)) luaL_checktype(L, 4, LUA_TTABLE);
    coax_session_options so = {0};
    so.input = input;
    so.input_len = ilen;
    bool source = false;
    int opts = lua_istable(L, 4) ? 4 : 0;
    lua_newtable(L); /* keeps the string options until this returns */
    int anchor = lua_gettop(L);
    if (opts) {
        check_options(L, opts, "e:session", SESSION_OPTS, NULL, "on_event");
        so.max_attempts = (int)opt_count(L, 4, "max_attempts", INT_MAX);
        lua_getfield(L, 4, "source");
        source = lua_toboolean(L, -1);
        lua_pop(L, 1);
        so.command = lcoax_opt_string(L, 4, "command", anchor);
    }
    lua_pushnil(L); /* the handler, kept here: a reference taken now was lost when an option below raised */
    int handler = lua_gettop(L);
    if (opts && lua_getfield(L, 4, "on_event") == LUA_TFUNCTION) lua_replace(L, handler);
    else lua_settop(L, handler);
    char msg[700];
    if (!agent_json(L, opts, anchor, source ? NULL : recipe, e->secret, e->secret_ud, false, msg, sizeof msg))
        return start_failed(L, COAX_EINVAL, msg);
    so.agent_json = lua_tostring(L, -1);
    lsession *s = lua_newuserdatauv(L, sizeof *s, 1);
    s->session = NULL;
    s->owner = e;
    s->on_event = LUA_NOREF;
    luaL_setmetatable(L, LSESSION); /* from here its __gc drops the reference */
    if (!lua_isnil(L, handler)) {
        lua_pushvalue(L, handler);
        s->on_event = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1); /* the engine outlives its sessions' objects */
    so.on_event = lua_event;
    so.event_ud = s;
    coax_error err = {0};
    coax_code rc = source ? coax_session_from_text(e->engine, recipe, rlen, "=recipe", &so, &s->session, &err)
                          : coax_session_from_file(e->engine, recipe, &so, &s->session, &err);
    if (rc) return start_failed(L, rc, err.msg);
    return 1;
}

/** s:run() -> outcome name: polls the engine until this session ends. */
static int s_run(lua_State *L)
{
    lsession *s = check_session(L, 1);
    lengine *e = s->owner;
    begin_poll(L, e, "s:run");
    coax_outcome o = coax_session_run(s->session);
    raise_pending(L, e);
    lua_pushstring(L, coax_outcome_name(o));
    return 1;
}

/** s:outcome() -> "running", "ok", "exhausted", ... */
static int s_outcome(lua_State *L)
{
    lua_pushstring(L, coax_outcome_name(coax_session_outcome(check_session(L, 1)->session)));
    return 1;
}

/** s:error() -> why the session failed: its failure's name ("exhausted",
** "agent_error", ...; coax_failure_name) and message, or nil while it runs
** and when it succeeded */
static int s_error(lua_State *L)
{
    const char *why;
    coax_session_failure f = coax_session_error(check_session(L, 1)->session, &why);
    if (!f) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushstring(L, coax_failure_name(f));
    lua_pushstring(L, why);
    return 2;
}

static int push_json(lua_State *L, const char *text, size_t len)
{
    if (!text) {
        lua_pushnil(L);
        return 1;
    }
    coax_arena *a = lcoax_arena(L);
    coax_value *v;
    coax_error err;
    coax_limits lim = own_json_limits(len);
    if (coax_parse(a, text, len, &lim, &v, &err)) return lcoax_error(L, err.code, &err);
    lcoax_push_value(L, v, lim.max_depth);
    return 1;
}

/** s:value() -> the accepted value, or nil */
static int s_value(lua_State *L)
{
    size_t len = 0;
    const char *v = coax_session_value(check_session(L, 1)->session, &len);
    return push_json(L, v, len);
}

/** s:report() -> the report as a table (nil while running) */
static int s_report(lua_State *L)
{
    size_t len = 0;
    const char *r = coax_session_report(check_session(L, 1)->session, &len);
    return push_json(L, r, len);
}

/** s:host_request() -> the request a host agent waits on, as a table
** {messages, schema, options}, or nil when it waits for none */
static int s_host_request(lua_State *L)
{
    size_t len = 0;
    const char *r = coax_session_host_request(check_session(L, 1)->session, &len);
    return push_json(L, r, len);
}

/* true, or nil, message, code (as start_failed) for a host's call. */
static int host_result(lua_State *L, coax_code rc, const coax_error *err)
{
    if (rc) return start_failed(L, rc, err->msg);
    lua_pushboolean(L, 1);
    return 1;
}

/** s:host_piece(text | nil) -> true, or nil, message, code: the next piece
** of the reply's text as it arrives (nil: the reply starts over); code
** "COAX_ECANCELED" when stream.stop_early stopped the reply: cancel the
** request, the next e:poll asks again. */
static int s_host_piece(lua_State *L)
{
    lsession *s = check_session(L, 1);
    size_t len = 0;
    const char *text = lua_isnoneornil(L, 2) ? NULL : luaL_checklstring(L, 2, &len);
    coax_error err = {0};
    return host_result(L, coax_session_host_piece(s->session, text, len, &err), &err);
}

/** s:host_reply(text [, usage [, finish]]) -> true, or nil, message, code
** when the session waits for no reply. usage: {input_tokens, output_tokens},
** as the provider reported them; finish: why the model stopped ("stop",
** "length"; coax_session_host_finish). The next e:poll goes on from there. */
static int s_host_reply(lua_State *L)
{
    lsession *s = check_session(L, 1);
    size_t len;
    const char *text = luaL_checklstring(L, 2, &len);
    long long in = -1, out = -1;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        if (lua_getfield(L, 3, "input_tokens") != LUA_TNIL) in = luaL_checkinteger(L, -1);
        if (lua_getfield(L, 3, "output_tokens") != LUA_TNIL) out = luaL_checkinteger(L, -1);
        lua_pop(L, 2);
    }
    size_t flen = 0;
    const char *finish = luaL_optlstring(L, 4, NULL, &flen);
    if (finish && strlen(finish) != flen) /* "stop\0...": the C call would read "stop" */
        return start_failed(L, COAX_EINVAL, "a finish is printable ASCII: a NUL byte in it");
    coax_error err = {0};
    coax_code rc = finish ? coax_session_host_finish(s->session, finish, &err) : COAX_OK;
    if (rc == COAX_OK) rc = coax_session_host_reply(s->session, text, len, in, out, &err);
    return host_result(L, rc, &err);
}

/** s:host_fail(message) -> true, or nil, message, code: the session ends
** with outcome agent_error. */
static int s_host_fail(lua_State *L)
{
    lsession *s = check_session(L, 1);
    coax_error err = {0};
    return host_result(L, coax_session_host_fail(s->session, luaL_checkstring(L, 2), &err), &err);
}

void lcoax_open_run(lua_State *L)
{
    static const luaL_Reg engine_methods[] = {
        {"poll", e_poll}, {"session", e_session}, {"close", e_close}, {NULL, NULL}};
    static const luaL_Reg session_methods[] = {
        {"run", s_run}, {"outcome", s_outcome}, {"error", s_error}, {"value", s_value}, {"report", s_report},
        {"host_request", s_host_request}, {"host_piece", s_host_piece}, {"host_reply", s_host_reply},
        {"host_fail", s_host_fail},
        {"close", session_gc}, {NULL, NULL}};
    if (luaL_newmetatable(L, LENGINE)) {
        luaL_newlib(L, engine_methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, engine_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, LSESSION)) {
        luaL_newlib(L, session_methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, session_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    lua_pushcfunction(L, l_run);
    lua_setfield(L, -2, "run");
    lua_pushcfunction(L, l_engine);
    lua_setfield(L, -2, "engine");
}
