/*
** lcoax_run.c: coax.run(recipe, input [, opts]) for Lua hosts and specs.
*/
#include "lcoax.h"

#include <stdio.h>
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
    fprintf(stderr, "coax: %s\n", line);
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
    }
    luaL_argcheck(L, lua_istable(L, -1), t, "allow_dirs must be a folder or a list of folders");
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

/* Reads the engine options of table 't' into 'eo'. Pushes two values: the
** allowed folders (or nil), which must live until the engine is made, and
** on top the secrets (or nil), which must outlive the engine. */
static void engine_options(lua_State *L, int t, coax_engine_options *eo)
{
    eo->script_dir = lcoax_opt_string(L, t, "lua_path");
    eo->allow_dirs = allow_dirs(L, t);
    eo->limits = lcoax_limits(L, t); /* max_depth, max_input, max_string */
    eo->lua_memory = (size_t)opt_integer(L, t, "lua_memory");
    eo->lua_instructions = (uint32_t)opt_integer(L, t, "lua_instructions");
    eo->http_connect_timeout_ms = (long)opt_integer(L, t, "http_connect_timeout_ms");
    eo->http_timeout_ms = (long)opt_integer(L, t, "http_timeout_ms");
    eo->http_max_response = (size_t)opt_integer(L, t, "http_max_response");
    eo->proxy = lcoax_opt_string(L, t, "proxy");
    eo->ca_file = lcoax_opt_string(L, t, "ca_file");
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
    lua_pushvalue(L, -2);
    lua_setiuservalue(L, -2, 1);
    lua_pushnil(L);
    while (lua_next(L, -3)) {
        s->kv[2 * s->n] = lua_tostring(L, -2);
        s->kv[2 * s->n + 1] = lua_tostring(L, -1);
        s->n++;
        lua_pop(L, 1);
    }
    lua_remove(L, -2);
    eo->secret = find_secret;
    eo->secret_ud = s;
}

/* The agent options of opts table 't' as JSON text pushed on the stack (and
** returned; NULL when there are none): {name?, replies?, ...agent_options}. */
static const char *agent_json(lua_State *L, int t)
{
    lua_getfield(L, t, "agent_options");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
    }
    const char *name = lcoax_opt_string(L, t, "agent");
    if (name) {
        lua_pushstring(L, name);
        lua_setfield(L, -2, "name");
    }
    lua_getfield(L, t, "replies");
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
    lua_remove(L, -2); /* the options table; the arena box stays until the end */
    if (v->type != COAX_OBJECT || v->len == 0) return NULL;
    char *json;
    size_t jlen;
    if (coax_write(v, 0, coax_arena_allocator(a), &json, &jlen)) {
        lcoax_error(L, COAX_ENOMEM, NULL);
        return NULL;
    }
    lua_pushlstring(L, json, jlen);
    coax_free(coax_arena_allocator(a), json, jlen + 1);
    return lua_tostring(L, -1);
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
        engine_options(L, 3, &eo); /* the folders and secrets stay on the stack */
        so.max_attempts = (int)opt_integer(L, 3, "max_attempts");
        lua_getfield(L, 3, "source");
        source = lua_toboolean(L, -1);
        lua_pop(L, 1);
        so.agent_json = agent_json(L, 3);
        so.command = lcoax_opt_string(L, 3, "command");
    }
    engine_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->engine = NULL;
    if (luaL_newmetatable(L, "coax.engine")) {
        lua_pushcfunction(L, engine_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    char scripts[4096];
    if (!eo.script_dir) eo.script_dir = scripts_on_package_path(L, scripts, sizeof scripts);
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

/* ---- coax.engine: the C API's engines and sessions, for Lua hosts ------- */

#define LENGINE "coax.engine.object"
#define LSESSION "coax.session"

typedef struct lengine {
    coax_engine *engine;
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

/* Events reach the Lua handler protected: an error must not unwind through
** the engine's C frames. The first one is raised when the poll returns. */
static void lua_event(void *ud, coax_session *cs, const char *name, const char *data)
{
    (void)cs;
    lsession *s = ud;
    lengine *e = s->owner;
    lua_State *L = e->L;
    if (!L || s->on_event == LUA_NOREF || e->error_ref != LUA_NOREF) return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->on_event);
    lua_pushstring(L, name);
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    if (a && coax_parse(a, data, strlen(data), NULL, &v, NULL) == COAX_OK) lcoax_push_value(L, v, 16);
    else lua_pushnil(L);
    coax_arena_free(a);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) e->error_ref = luaL_ref(L, LUA_REGISTRYINDEX);
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
        engine_options(L, 1, &eo);
    } else {
        lua_pushnil(L);
    }
    lengine *e = lua_newuserdatauv(L, sizeof *e, 1);
    e->engine = NULL;
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
    e->L = L;
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
    int handler = LUA_NOREF;
    if (lua_istable(L, 4)) {
        lua_getfield(L, 4, "max_attempts");
        so.max_attempts = (int)luaL_optinteger(L, -1, 0);
        lua_getfield(L, 4, "source");
        source = lua_toboolean(L, -1);
        lua_pop(L, 2);
        so.agent_json = agent_json(L, 4);
        so.command = lcoax_opt_string(L, 4, "command");
        lua_getfield(L, 4, "on_event");
        if (lua_isfunction(L, -1)) handler = luaL_ref(L, LUA_REGISTRYINDEX);
        else lua_pop(L, 1);
    }
    lsession *s = lua_newuserdatauv(L, sizeof *s, 1);
    s->session = NULL;
    s->owner = e;
    s->on_event = handler;
    luaL_setmetatable(L, LSESSION);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1); /* the engine outlives its sessions' objects */
    so.on_event = lua_event;
    so.event_ud = s;
    coax_error err = {0};
    coax_code rc = source ? coax_session_from_text(e->engine, recipe, rlen, "=recipe", &so, &s->session, &err)
                          : coax_session_from_file(e->engine, recipe, &so, &s->session, &err);
    if (rc) return lcoax_error(L, rc, &err);
    return 1;
}

/** s:run() -> outcome name: polls the engine until this session ends. */
static int s_run(lua_State *L)
{
    lsession *s = check_session(L, 1);
    lengine *e = s->owner;
    e->L = L;
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

static int push_json(lua_State *L, const char *text, size_t len)
{
    if (!text) {
        lua_pushnil(L);
        return 1;
    }
    coax_arena *a = lcoax_arena(L);
    coax_value *v;
    coax_error err;
    if (coax_parse(a, text, len, NULL, &v, &err)) return lcoax_error(L, err.code, &err);
    lcoax_push_value(L, v, COAX_DEFAULT_MAX_DEPTH);
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

/** s:host_reply(text [, usage]) -> true, or nil, message when the session
** waits for no reply. usage: {input_tokens, output_tokens}, as the provider
** reported them. The next e:poll goes on from there. */
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
    coax_error err = {0};
    if (coax_session_host_reply(s->session, text, len, in, out, &err)) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/** s:host_fail(message) -> true, or nil, message: the session ends with
** outcome agent_error. */
static int s_host_fail(lua_State *L)
{
    lsession *s = check_session(L, 1);
    coax_error err = {0};
    if (coax_session_host_fail(s->session, luaL_checkstring(L, 2), &err)) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

void lcoax_open_run(lua_State *L)
{
    static const luaL_Reg engine_methods[] = {
        {"poll", e_poll}, {"session", e_session}, {"close", e_close}, {NULL, NULL}};
    static const luaL_Reg session_methods[] = {
        {"run", s_run}, {"outcome", s_outcome}, {"value", s_value}, {"report", s_report},
        {"host_request", s_host_request}, {"host_reply", s_host_reply}, {"host_fail", s_host_fail},
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
