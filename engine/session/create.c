/*
** create.c: a session from a recipe (a file, text, or a schema and a
** prompt): the recipe run in the sandbox, coax.runtime.new_session, the
** schema loaded and compiled; and freeing a session, or the engine with
** them all, at once or (from a callback) when the poll or the making ends.
*/
#include "session/session.h"
#include "base/hash.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>

/* S.estimate(text), for strategies that weigh a conversation: through the
** session's cache of estimates (upvalue 1, also S.token_counts). */
static int l_estimate(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TSTRING);
    lua_pushinteger(L, (lua_Integer)session_estimate_cached(L, lua_upvalueindex(1), 1));
    return 1;
}
/* The buffers a session owns, for making and freeing them alike. */
enum { SESSION_BUFS = 14 };
static void session_bufs(coax_session *s, coax_buf *bufs[SESSION_BUFS])
{
    coax_buf *all[SESSION_BUFS] = {&s->messages,      &s->report,        &s->value,
                                   &s->error_msg,     &s->host_request,  &s->host_answer,
                                   &s->secrets,       &s->tool_rounds,   &s->sent,
                                   &s->stream.text,   &s->stream.hold,   &s->stream.clean,
                                   &s->said[0].text,  &s->said[1].text};
    memcpy(bufs, all, sizeof all);
}

static coax_session *session_alloc(coax_engine *e)
{
    coax_session *s = coax_alloc_raw(e->alloc, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->engine = e;
    s->serial = ++e->serials;
    s->S_ref = s->co_ref = LUA_NOREF;
    s->retries = -1;
    coax_buf *bufs[SESSION_BUFS];
    session_bufs(s, bufs);
    for (size_t i = 0; i < SESSION_BUFS; i++) coax_buf_init(bufs[i], e->alloc);
    s->arena = coax_arena_new(e->alloc);
    if (!s->arena) {
        coax_free_raw(e->alloc, s, sizeof *s);
        return NULL;
    }
    s->next = e->sessions;
    if (e->sessions) e->sessions->prev = s;
    e->sessions = s;
    return s;
}

/* The host's callbacks of 's' are not called again. */
static void session_mute(coax_session *s)
{
    s->on_event = NULL;
    s->on_submit = NULL;
    memset(&s->listener, 0, sizeof s->listener);
}

void coax_session_free(coax_session *s)
{
    if (!s) return;
    coax_engine *e = s->engine;
    if (e->polling) { /* from a callback: the poll steps it still, or is telling it something */
        session_mute(s);
        s->free_pending = true;
        return;
    }
    lua_State *L = e->vm.L;
    vm_clock_forget(&e->vm, &s->script_cpu_ns);
    http_cancel(s->http);
    http_pool_free(s->pool); /* after its request */
    proc_cancel(s->proc);
    if (s->S_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->S_ref);
    if (s->co_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->co_ref);
    if (s->prev) s->prev->next = s->next;
    else e->sessions = s->next;
    if (s->next) s->next->prev = s->prev;
    if (s->shared) {
        schema_cache_release(s->shared); /* the engine's, which frees it */
    } else {
        coax_schema_free(s->schema);
        coax_arena_free(s->schema_arena);
    }
    stream_session_free(s);
    coax_arena_free(s->arena);
    if (s->secrets.data) memset(s->secrets.data, 0, s->secrets.len);
    coax_buf *bufs[SESSION_BUFS];
    session_bufs(s, bufs);
    for (size_t i = 0; i < SESSION_BUFS; i++) coax_buf_free(bufs[i]);
    coax_free_raw(e->alloc, s, sizeof *s);
}

void coax_engine_free(coax_engine *e)
{
    if (!e) return;
    if (e->polling) { /* from a callback: when the poll returns */
        for (coax_session *s = e->sessions; s; s = s->next) coax_session_free(s);
        e->free_pending = true;
        vm_interrupt(&e->vm); /* the script running now stops soon */
        return;
    }
    while (e->sessions) coax_session_free(e->sessions);
    vm_close(&e->vm);
    http_free(e->http);
    roots_free(&e->roots);
    schema_cache_free(&e->schemas); /* after the sessions that shared them */
    coax_meta_cache_free(e->meta_cache);
    coax_allocator host = e->host;
    coax_free_raw(e->host_set ? &host : NULL, e, sizeof *e);
}

bool engine_reap(coax_engine *e)
{
    e->polling = false;
    for (coax_session *s = e->sessions, *next; s; s = next) {
        next = s->next;
        if (s->free_pending) coax_session_free(s);
    }
    if (!e->free_pending) return true;
    coax_engine_free(e);
    return false;
}

/* Compiles 'doc' into '*out' after checking it against its meta-schema,
** which the engine compiles once. */
static coax_code compile_schema(coax_engine *e, const coax_value *doc, coax_schema **out, coax_error *err)
{
    if (!e->meta_cache && !(e->meta_cache = coax_meta_cache_new(e->alloc)))
        return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    coax_schema_options o = {0};
    o.flags = COAX_SCHEMA_ASSERT_FORMAT; /* an extraction's "format" is no remark (README, coax extract) */
    o.meta_cache = e->meta_cache;
    return coax_schema_compile(doc, &o, e->alloc, out, err);
}

/* The schema of JSON text 'text' for 's': the engine's compiled one for the
** same text, or one parsed (within the engine's limits when 'limited') and
** compiled now, then cached. COAX_OK, or the failure described in 'err',
** with '*parsed' false when the text did not parse (or no memory was left
** to parse it), true when the schema did not compile. */
static coax_code use_schema(coax_session *s, const char *text, size_t len, bool limited, coax_error *err,
                            bool *parsed)
{
    *parsed = false;
    coax_engine *e = s->engine;
    cached_schema *c = schema_cache_find(&e->schemas, text, len, limited);
    if (!c) {
        coax_arena *arena = coax_arena_new(e->alloc);
        if (!arena) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
        coax_value *doc = NULL;
        coax_schema *schema = NULL;
        coax_code rc = coax_parse(arena, text, len, limited ? &e->limits : NULL, &doc, err);
        *parsed = rc == COAX_OK;
        if (rc == COAX_OK) rc = compile_schema(e, doc, &schema, err);
        if (rc) {
            coax_arena_free(arena);
            return rc;
        }
        c = schema_cache_add(&e->schemas, e->alloc, text, len, limited, arena, doc, schema);
        if (!c) { /* the cache has no room: the session's own */
            s->schema = schema;
            s->schema_doc = doc;
            s->schema_arena = arena;
            return COAX_OK;
        }
    }
    s->shared = c;
    s->schema = c->schema;
    s->schema_doc = c->doc;
    return COAX_OK;
}

typedef struct text_args {
    const char *text;
    size_t len;
} text_args;

/* Loads the schema: a path (relative to the recipe's folder) or a table
** (at the top of the stack; popped). Returns a message, or NULL; '*limit'
** says whether a limit (depth, size) was reached rather than the schema
** being wrong, as every command reports a schema over a limit (exit 4). */
static const char *load_schema(coax_session *s, const char *dir, const text_args *host, char *msg, size_t cap,
                               bool *limit)
{
    *limit = false;
    lua_State *L = s->engine->vm.L;
    coax_error err = {0};
    coax_buf text; /* the schema's JSON text: the cache's key */
    coax_buf_init(&text, s->engine->alloc);
    char path[4096] = "";
    if (host) { /* the host's own text: the key as it is, parsed once (if not cached) */
        lua_pop(L, 1);
        bool parsed;
        coax_code rc = use_schema(s, host->text, host->len, true, &err, &parsed);
        if (rc == COAX_OK) return NULL;
        *limit = coax_exit_status(rc) == 4;
        if (!parsed && (rc == COAX_ESYNTAX || rc == COAX_EUTF8))
            snprintf(msg, cap, "the schema is not JSON: %s (line %u, column %u)", err.msg, err.line, err.column);
        else snprintf(msg, cap, "schema: %s", err.msg);
        return msg;
    }
    if (lua_type(L, -1) == LUA_TSTRING) {
        const char *refused = roots_confine(&s->engine->roots, dir, lua_tostring(L, -1), "schema", path, sizeof path,
                                            msg, cap);
        lua_pop(L, 1);
        if (refused) return refused;
        coax_code rc = roots_read(path, s->engine->limits.max_input, "max_input", "schema", &text, msg, cap);
        if (rc) {
            coax_buf_free(&text);
            *limit = coax_exit_status(rc) == 4;
            return msg;
        }
    } else {
        int rc = session_append_json(s, &text); /* the table converts, or the recipe is refused */
        if (rc != VM_OK || text.oom) {
            coax_buf_free(&text);
            snprintf(msg, cap, "recipe schema: %s", rc == VM_OK ? "out of memory" : vm_message(&s->engine->vm));
            return msg;
        }
    }
    bool parsed;
    coax_code rc = use_schema(s, text.data ? text.data : "", text.len, path[0] != '\0', &err, &parsed);
    coax_buf_free(&text);
    if (rc == COAX_OK) return NULL;
    if (!parsed && !path[0]) { /* a table's text: only memory can fail */
        snprintf(msg, cap, "recipe schema: %s", err.msg);
        return msg;
    }
    *limit = coax_exit_status(rc) == 4;
    if (!parsed) {
        snprintf(msg, cap, "schema %.300s%s: %s (line %u, column %u)", path,
                 rc == COAX_ESYNTAX || rc == COAX_EUTF8 ? " is not JSON" : "", err.msg, err.line, err.column);
        return msg;
    }
    /* A file's values are not quoted ("..., got string \"...\""): the
    ** location and the rule say what to fix, and a file a recipe names is
    ** not the recipe's to show. */
    const char *got = path[0] ? strstr(err.msg, ", got ") : NULL;
    const char *count = got ? strstr(got, " (") : NULL;
    snprintf(msg, cap, "%s%.300s: %.*s%s", path[0] ? "schema " : "recipe schema", path,
             got ? (int)(got - err.msg) : (int)strlen(err.msg), err.msg, count ? count : "");
    return msg;
}

static int push_text(lua_State *L)
{
    const text_args *a = lua_touserdata(L, 1);
    lua_pushlstring(L, a->text, a->len);
    return 1;
}

/* Builds the Lua session from the recipe chunk on top of the stack, or
** from the recipe table there when 'host_schema' (the schema's JSON text,
** coax_session_from_schema) is not NULL. */
static void prepare(coax_session *s, const char *dir, const coax_session_options *o, const text_args *host_schema)
{
    coax_vm *vm = &s->engine->vm;
    if (o) {
        s->on_event = o->on_event;
        s->event_ud = o->event_ud;
        s->on_submit = o->on_submit;
        s->submit_ud = o->submit_ud;
    }
    lua_State *L = vm->L;
    char msg[1024];
    vm_clock_for(vm, &s->script_cpu_ns);
    int rc = host_schema ? VM_OK : vm_call(vm, 0, 1); /* run the recipe file */
    if (rc != VM_OK) {
        if (rc == VM_LIMIT) session_script_failed(s, rc, "recipe");
        else session_end(s, COAX_FAILURE_INVALID_RECIPE, vm_error(vm));
        return;
    }
    int recipe = lua_gettop(L);
    /* host options: {max_attempts, default_max_attempts, agent = {...}} */
    lua_createtable(L, 0, 3);
    if (o && o->max_attempts > 0) {
        lua_pushinteger(L, o->max_attempts);
        lua_setfield(L, -2, "max_attempts");
    }
    lua_pushinteger(L, COAX_DEFAULT_MAX_ATTEMPTS);
    lua_setfield(L, -2, "default_max_attempts");
    if (o && o->agent_json) { /* parsed into the session's arena: a failed push below leaks nothing */
        coax_value *v;
        coax_error err;
        coax_code pc = coax_parse(s->arena, o->agent_json, strlen(o->agent_json), NULL, &v, &err);
        if (pc || v->type != COAX_OBJECT) {
            lua_settop(L, recipe - 1);
            session_end(s, pc == COAX_ENOMEM ? COAX_FAILURE_OUT_OF_MEMORY : COAX_FAILURE_INVALID_AGENT_OPTIONS,
                        pc == COAX_ENOMEM ? "out of memory" : "agent options must be a JSON object");
            return;
        }
        /* the host named this server: its secrets may go there (lend_http.c);
        ** host_base stays "" when the URL has no host */
        const coax_value *base = coax_object_get(v, "base_url", 8);
        if (coax_value_type(base) == COAX_STRING && http_url_host(base->u.text, s->host_base, sizeof s->host_base))
            s->host_base_plain = !strncmp(base->u.text, "http://", 7);
        lcoax_push_value(L, v, COAX_DEFAULT_MAX_DEPTH);
        lua_setfield(L, -2, "agent");
    }
    if (o && o->command) {
        s->command = coax_arena_strdup(s->arena, o->command, strlen(o->command));
        if (!s->command) {
            lua_settop(L, recipe - 1);
            session_end(s, COAX_FAILURE_OUT_OF_MEMORY, "out of memory");
            return;
        }
    }
    lua_pushvalue(L, recipe);
    lua_pushlstring(L, o && o->input ? o->input : "", o && o->input ? o->input_len : 0);
    lua_rotate(L, -3, 2); /* recipe, input, host */
    vm_runtime(vm, "new_session");
    lua_insert(L, -4);
    vm_clock_for(vm, &s->script_cpu_ns);
    rc = vm_call(vm, 3, 1);
    if (rc != VM_OK) {
        lua_settop(L, recipe - 1);
        if (rc == VM_LIMIT) session_script_failed(s, rc, "recipe");
        else session_end(s, COAX_FAILURE_INVALID_RECIPE, vm_error(vm));
        return;
    }
    int S = lua_gettop(L);
    session_raw_field(L, S, "recipe"); /* the copy recipe.lua checked, not the table the recipe returned */
    session_raw_field(L, -1, "schema");
    lua_remove(L, -2);
    bool limit;
    const char *problem = load_schema(s, dir, host_schema, msg, sizeof msg, &limit);
    if (problem) {
        lua_settop(L, recipe - 1);
        session_end(s,
                    vm->host_failed ? COAX_FAILURE_OUT_OF_MEMORY /* the host's allocator, not the schema */
                    : limit         ? COAX_FAILURE_SCHEMA_LIMIT
                                    : COAX_FAILURE_INVALID_SCHEMA,
                    problem);
        return;
    }
    lcoax_push_value(L, s->schema_doc, COAX_DEFAULT_MAX_DEPTH);
    lua_setfield(L, S, "schema");
    /* The schema as prompts show it: compact, since indentation (one enum
    ** value a line) costs tokens and tells a model nothing (README, "The
    ** schema in a prompt"). */
    char *text;
    size_t tlen;
    if (coax_write(s->schema_doc, 0, s->engine->alloc, &text, &tlen) == COAX_OK) {
        text_args ta = {text, tlen}; /* pushed under a protected call of its own, so 'text' is freed */
        int pr = vm_protect(vm, push_text, &ta, 1);
        coax_free(s->engine->alloc, text, tlen + 1);
        if (pr != VM_OK) {
            lua_settop(L, recipe - 1);
            session_script_failed(s, pr, "recipe");
            return;
        }
        lua_setfield(L, S, "schema_text");
    }
    lua_newtable(L);
    lua_pushinteger(L, (lua_Integer)coax_hash_seed(s)); /* session.c, session_estimate_cached */
    lua_setfield(L, -2, "seed");
    lua_pushvalue(L, -1);
    lua_setfield(L, S, "token_counts");
    lua_pushcclosure(L, l_estimate, 1);
    lua_setfield(L, S, "estimate");
    session_raw_field(L, S, "max_attempts");
    s->max_attempts = (int)lua_tointeger(L, -1);
    s->max_class = COAX_CLASS_INFERRED; /* recipe.lua checked the name */
    if (session_raw_field(L, S, "max_class") == LUA_TSTRING) coax_class_parse(lua_tostring(L, -1), &s->max_class);
    lua_pop(L, 1);
    session_raw_field(L, S, "budget");
    if (session_raw_field(L, -1, "tokens") == LUA_TNUMBER) s->budget_tokens = (uint64_t)lua_tointeger(L, -1);
    if (session_raw_field(L, -2, "deadline_ms") == LUA_TNUMBER) s->deadline_ms = (double)lua_tointeger(L, -1);
    stream_configure(s, L, S);
    lua_pushvalue(L, S);
    s->S_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_settop(L, recipe - 1);
    s->state = SS_FIRST;
}

/* What a session starts from: recipe text (a chunk named 'name', in folder
** 'dir'), or a schema's JSON text and a prompt (coax_session_from_schema),
** which become a recipe table without passing through Lua source. */
typedef struct start_args {
    coax_session *s;
    const char *text, *name, *dir;
    size_t len;
    const text_args *schema;
    const char *prompt;
    const coax_session_options *o;
} start_args;

static int start_protected(lua_State *L)
{
    const start_args *a = lua_touserdata(L, 1);
    coax_vm *vm = &a->s->engine->vm;
    luaL_checkstack(L, 40, "the session's start");
    if (a->schema) {
        lua_createtable(L, 0, 2);
        lua_newtable(L); /* a place for the schema, which load_schema reads from a->schema */
        lua_setfield(L, -2, "schema");
        lua_pushstring(L, a->prompt);
        lua_setfield(L, -2, "prompt");
        prepare(a->s, NULL, a->o, a->schema);
        return 0;
    }
    int rc = vm_load_sandboxed(vm, a->text, a->len, a->name);
    if (rc == VM_LIMIT) session_script_failed(a->s, rc, "recipe");
    else if (rc != VM_OK) session_end(a->s, COAX_FAILURE_INVALID_RECIPE, vm_error(vm));
    else prepare(a->s, a->dir, a->o, NULL);
    return 0;
}

/* COAX_EINVAL once a callback freed the engine (it is freed when the poll
** returns, with its sessions: one made now would be freed behind the
** host's back). */
static coax_code engine_closing(const coax_engine *e, coax_error *err)
{
    return e->free_pending ? coax_fail(err, COAX_EINVAL, 0, "the engine is being freed (coax_engine_free in a callback)")
                           : COAX_OK;
}

static coax_code start(coax_engine *e, const start_args *args, coax_session **out, coax_error *err)
{
    if (engine_closing(e, err)) return COAX_EINVAL;
    /* The input is a Lua string within the same cap as the recipe: one past
    ** it ended the session as "recipe: not enough memory", blaming the recipe. */
    const coax_session_options *o = args->o;
    if (o && o->input && o->input_len > e->vm.mem_cap)
        return coax_fail(err, COAX_ESIZE, 0, "the input is larger than the limit of %zu bytes (lua_memory)",
                         e->vm.mem_cap);
    coax_session *s = session_alloc(e);
    if (!s) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    /* The host's callbacks run in here too (the secret callback of a recipe that asks for a secret
    ** as it runs): what they free is freed when the making ends, as in a poll. Freed at once, the
    ** engine's Lua state went under the running recipe (attack round 17). */
    bool outermost = !e->polling;
    e->polling = true;
    int top = lua_gettop(e->vm.L);
    start_args a = *args;
    a.s = s;
    int rc = vm_protect(&e->vm, start_protected, &a, 0);
    lua_settop(e->vm.L, top);
    if (rc != VM_OK && s->state != SS_DONE) session_script_failed(s, rc, "recipe");
    session_release_lua(s);
    bool engine_freed = e->free_pending; /* read before the reap frees it */
    if (outermost) engine_reap(e); /* else the poll outside frees it when it returns */
    *out = engine_freed ? NULL : s;
    if (!engine_freed) return COAX_OK;
    return coax_fail(err, COAX_ECANCELED, 0,
                     "the engine was freed (coax_engine_free in a callback) while the session was made");
}

coax_code coax_session_from_text(coax_engine *e, const char *text, size_t len, const char *name,
                                 const coax_session_options *o, coax_session **out, coax_error *err)
{
    if (!e || !out || (!text && len)) return coax_fail(err, COAX_EINVAL, 0, "coax_session_from_text: NULL argument");
    /* A recipe is compiled within the Lua memory cap, so no longer text can
    ** load; and a length no text has (SIZE_MAX) would read past its end. */
    if (len > e->vm.mem_cap)
        return coax_fail(err, COAX_ESIZE, 0, "the recipe's text is larger than the limit of %zu bytes (lua_memory)",
                         e->vm.mem_cap);
    start_args a = {.text = text ? text : "", .len = len, .name = name ? name : "=recipe", .o = o};
    return start(e, &a, out, err);
}

coax_code coax_session_from_schema(coax_engine *e, const char *schema, size_t schema_len, const char *prompt,
                                   const coax_session_options *o, coax_session **out, coax_error *err)
{
    if (!e || !out || !prompt || (!schema && schema_len))
        return coax_fail(err, COAX_EINVAL, 0, "coax_session_from_schema: NULL argument");
    /* The schema's text is the schema cache's key and is parsed by coax
    ** itself (once, unless cached), so key order, integers and [] vs {}
    ** survive. */
    text_args text = {schema ? schema : "", schema_len};
    start_args a = {.name = "=schema", .schema = &text, .prompt = prompt, .o = o};
    return start(e, &a, out, err);
}

coax_code coax_session_from_file(coax_engine *e, const char *path, const coax_session_options *o,
                                 coax_session **out, coax_error *err)
{
    if (!e || !path || !out) return coax_fail(err, COAX_EINVAL, 0, "coax_session_from_file: NULL argument");
    if (engine_closing(e, err)) return COAX_EINVAL;
    /* A regular file only, as a recipe's schema (/dev/zero grew the host
    ** without end, a FIFO blocked it), and at most the Lua memory cap, which
    ** no longer recipe compiles within. Not max_input: that bounds replies,
    ** and a host may set it far below its recipes' size. */
    coax_buf b;
    coax_buf_init(&b, e->alloc);
    char msg[512];
    coax_code read_rc = roots_read_path(path, e->vm.mem_cap, "lua_memory", "recipe", &b, msg, sizeof msg);
    if (read_rc) {
        coax_buf_free(&b);
        return coax_fail(err, read_rc, 0, "%s", msg);
    }
    char name[512], dir[4096];
    snprintf(name, sizeof name, "@%s", path);
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    start_args a = {.text = b.data ? b.data : "", .len = b.len, .name = name, .dir = dir, .o = o};
    coax_code rc = start(e, &a, out, err);
    coax_buf_free(&b);
    return rc;
}
