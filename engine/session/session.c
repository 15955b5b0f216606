/*
** session.c: what every part of a session uses (session.h): ending it,
** calling coax.runtime, telling events, the context a failed reply gives
** templates and strategies.
**
** A session is one extraction as a bounded series of attempts:
**
**   FIRST  coax.runtime.first(S)                 -> the first messages
**   CALL   budgets checked; coax.runtime.call(S) in a coroutine
**   WAIT   the coroutine sleeps (coax.sleep) or waits on its HTTP request
**          (coax.http); the engine's poll resumes it
**   reply  coax_extract (repair, coerce, validate), then on_submit
**          accepted: ok. Attempts used up: exhausted. Otherwise
**          coax.runtime.next(S, ctx) -> the next messages, and CALL again.
**
** Parse failures, schema failures and rejections share the attempt budget;
** retries are immediate. Agent errors, script errors and limits end the
** session at once. Every path records metrics; every attempt its record.
**
** The state is touched only under a protected call (script/vm.h, vm_protect):
** a session's start and each of its steps run as one, so running out of
** Lua memory anywhere in them ends the session with a limit, never in
** Lua's panic. Inside them, the C resources held across a push (an
** attempt's arena, a buffer) are held only around a protected call of
** their own, so nothing leaks when a push fails.
*/
#include "session/session.h"
#include "base/hash.h"

#include <lauxlib.h>
#include <stdio.h>

/* ---- small helpers ------------------------------------------------------ */

/* Tokens of text not yet sent: the calibrated o200k estimate (README,
** "Token estimation"); providers' reported usage replaces it when given. */
uint64_t session_estimate_tokens(const char *s, size_t n)
{
    return coax_tokens(COAX_ENC_O200K, s, n);
}

/* The cache is keyed by a seeded hash of the text (its "seed" field, drawn
** when the session was made), not by the text: Lua hashes a long string key
** a byte at a time, serially, when it first meets that string object, and
** every attempt brings new ones (the reply pushed again, a prompt rendered
** again, the feedback), which cost more than the rest of the lookups. The
** text sits at the hash's even key, its count at the odd key after it; a
** text whose slot holds another one is estimated and takes the slot. */
uint64_t session_estimate_cached(lua_State *L, int cache, int str)
{
    size_t n;
    const char *text = lua_tolstring(L, str, &n);
    if (!cache) return session_estimate_tokens(text, n);
    int top = lua_gettop(L);
    cache = lua_absindex(L, cache);
    str = lua_absindex(L, str);
    lua_pushliteral(L, "seed");
    uint64_t seed = lua_rawget(L, cache) == LUA_TNUMBER ? (uint64_t)lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    lua_Integer slot = (lua_Integer)(coax_hash_bytes(text, n, seed) & ~(uint64_t)1);
    if (lua_rawgeti(L, cache, slot) == LUA_TSTRING && lua_rawequal(L, -1, str) &&
        lua_rawgeti(L, cache, slot + 1) == LUA_TNUMBER) {
        uint64_t known = (uint64_t)lua_tointeger(L, -1);
        lua_pop(L, 2);
        return known;
    }
    lua_settop(L, top);
    uint64_t count = session_estimate_tokens(text, n);
    lua_pushvalue(L, str);
    lua_rawseti(L, cache, slot);
    lua_pushinteger(L, (lua_Integer)count);
    lua_rawseti(L, cache, slot + 1);
    return count;
}

uint64_t session_estimate_kept(coax_session *s, lua_State *L, int str)
{
    str = lua_absindex(L, str);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->S_ref);
    lua_pushliteral(L, "token_counts");
    int cache = lua_rawget(L, -2) == LUA_TTABLE ? lua_gettop(L) : 0;
    uint64_t count = session_estimate_cached(L, cache, str);
    lua_pop(L, 2);
    return count;
}

/* Pushes t[k] of the table at 'idx', raw: tables an agent returns are read
** outside any protected call, so no metamethod of theirs may run. */
int session_raw_field(lua_State *L, int idx, const char *k)
{
    idx = lua_absindex(L, idx);
    lua_pushstring(L, k);
    return lua_rawget(L, idx);
}

typedef struct to_value_args {
    coax_session *s;
    coax_value *v;
    bool exceeded;
} to_value_args;

/* Protected: the value at 1 converted into the session's arena, within
** the Lua memory cap (the session's arena is the host's memory: a table
** holding one table twice, 60 levels down, grew the host to 8 GB). */
static int to_value_capped(lua_State *L)
{
    to_value_args *a = lua_touserdata(L, 2);
    a->v = lcoax_to_value_max(L, 1, a->s->arena, COAX_DEFAULT_MAX_DEPTH, a->s->engine->vm.mem_cap, &a->exceeded);
    return 0;
}

void session_write_json(coax_session *s, lua_State *L, int idx, coax_buf *b, const coax_escaped *known,
                        size_t nknown)
{
    idx = lua_absindex(L, idx);
    coax_arena_mark mark = coax_arena_get_mark(s->arena);
    to_value_args args = {s, NULL, false};
    luaL_checkstack(L, 3, "JSON");
    lua_pushcfunction(L, to_value_capped);
    lua_pushvalue(L, idx);
    lua_pushlightuserdata(L, &args);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        coax_arena_rewind(s->arena, mark);
        coax_arena_trim(s->arena);
        if (args.exceeded) s->engine->vm.limit = LIMIT_MEMORY; /* a limit, as the messages' own bound */
        lua_error(L);
    }
    coax_value *v = args.v;
    coax_code rc = coax_write_buf_reusing(b, v, 0, known, nknown);
    coax_arena_rewind(s->arena, mark);
    coax_arena_trim(s->arena); /* the blocks back: a session waiting on its agent keeps none */
    if (rc) luaL_error(L, "out of memory");
}

/* Protected: session_write_json of the value at 1 into the buffer at 2, for
** the session at 3. */
static int session_to_json(lua_State *L)
{
    session_write_json(lua_touserdata(L, 3), L, 1, lua_touserdata(L, 2), NULL, 0);
    return 0;
}

int session_append_json(coax_session *s, coax_buf *b)
{
    lua_State *L = s->engine->vm.L;
    lua_pushcfunction(L, session_to_json);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, b);
    lua_pushlightuserdata(L, s);
    vm_clock_for(&s->engine->vm, &s->script_cpu_ns);
    return vm_call(&s->engine->vm, 3, 0);
}

const char *coax_failure_name(coax_session_failure f)
{
    static const char *const names[] = {"none",           "exhausted",      "agent_error",          "refusal",
                                        "tokens",         "deadline",       "tool_rounds",          "limit",
                                        "out_of_memory",  "reply_limit",    "schema_limit",         "script_error",
                                        "invalid_recipe", "invalid_schema", "invalid_agent_options"};
    _Static_assert(sizeof names / sizeof *names == COAX_FAILURE_COUNT, "a name per failure");
    return (unsigned)f < COAX_FAILURE_COUNT ? names[f] : "unknown";
}

/* The outcome a failure belongs to (coax.h). */
static coax_outcome failure_outcome(coax_session_failure f)
{
    switch (f) {
    case COAX_FAILURE_NONE: return COAX_OUTCOME_OK;
    case COAX_FAILURE_EXHAUSTED: return COAX_OUTCOME_EXHAUSTED;
    case COAX_FAILURE_AGENT_ERROR:
    case COAX_FAILURE_REFUSAL: return COAX_OUTCOME_AGENT_ERROR;
    case COAX_FAILURE_SCRIPT_ERROR: return COAX_OUTCOME_SCRIPT_ERROR;
    case COAX_FAILURE_INVALID_RECIPE:
    case COAX_FAILURE_INVALID_SCHEMA:
    case COAX_FAILURE_INVALID_AGENT_OPTIONS: return COAX_OUTCOME_INVALID;
    default: return COAX_OUTCOME_LIMIT;
    }
}

/* The text of a number, NUL-terminated (a value's text is read by strtoll
** too), as %d and %zu print it: room for 22 bytes; returns its length.
** Events are told several times an attempt, and formatting their numbers
** through vsnprintf cost more than the rest of their text. */
static size_t count_text(char *out, size_t v)
{
    size_t n = coax_decimal(out, v);
    out[n] = '\0';
    return n;
}

static size_t int_text(char *out, int v)
{
    if (v >= 0) return count_text(out, (size_t)v);
    out[0] = '-';
    return 1 + count_text(out + 1, (size_t)(0ull - (uint64_t)(int64_t)v));
}

/* Event data as the host reads it, JSON text: {"attempt": n, ...}. */
static void write_event(coax_buf *b, int attempt, const event_member *m, size_t n)
{
    char num[24];
    coax_buf_puts(b, "{\"attempt\":");
    coax_buf_put(b, num, int_text(num, attempt));
    for (size_t i = 0; i < n; i++) {
        coax_buf_puts(b, ",\"");
        coax_buf_puts(b, m[i].key);
        coax_buf_puts(b, "\":");
        if (m[i].kind == EVENT_COUNT) coax_buf_put(b, num, count_text(num, m[i].count));
        else if (m[i].kind == EVENT_TEXT) coax_buf_put_json_string(b, m[i].text, m[i].len);
        else coax_buf_put(b, m[i].text, m[i].len);
    }
    coax_buf_putc(b, '}');
    coax_buf_putc(b, '\0');
}

/* Hands the host's callback 'name' and its data; false when memory ran out,
** and the host was not told. */
static bool tell_host(coax_session *s, const char *name, const event_member *m, size_t n)
{
    if (!s->on_event) return true;
    coax_buf data;
    coax_buf_init(&data, s->engine->alloc);
    write_event(&data, s->attempt, m, n);
    bool told = !data.oom;
    if (told) s->on_event(s->event_ud, s, name, data.data);
    coax_buf_free(&data);
    return told;
}

void session_end(coax_session *s, coax_session_failure failure, const char *msg)
{
    if (s->state == SS_DONE) return;
    coax_outcome outcome = failure_outcome(failure);
    if (outcome != COAX_OUTCOME_OK && s->on_event && s->S_ref != LUA_NOREF) {
        /* The host hears every failure; the recipe's on_event is not called
        ** again here, since its own failure may be what ends the session. */
        char text[EVENT_TEXT_BUF];
        const char *o = coax_outcome_name(outcome);
        event_member m[2] = {{"outcome", EVENT_TEXT, 0, o, strlen(o)},
                             session_event_text("message", msg ? msg : "", text, sizeof text)};
        tell_host(s, "failure", m, 2); /* the session ends anyway: without memory, untold */
    }
    s->state = SS_DONE;
    s->outcome = outcome;
    s->failure = failure;
    s->error_code = coax_failure_name(failure);
    s->t_end = coax_now_ms();
    if (failure) { /* valid UTF-8, as the report writes it: a provider's bytes may not be */
        size_t n = msg ? strlen(msg) : 0;
        if (coax_utf8_valid(msg, n)) coax_buf_put(&s->error_msg, msg, n);
        else if (coax_buf_reserve(&s->error_msg, 3 * n))
            s->error_msg.len = coax_utf8_replace(msg, n, s->error_msg.data);
    }
    lua_State *L = s->engine->vm.L;
    if (s->co_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->co_ref); /* never allocates (script/vm.c) */
    s->co_ref = LUA_NOREF;
    s->co = NULL;
    s->sleeping = false;
    http_cancel(s->http);
    proc_cancel(s->proc);
    s->http = NULL;
    s->proc = NULL;
    /* It makes no request again: the connections it kept are closed now, not when the host frees
    ** it (a host keeping ended sessions for their reports kept a socket each, attack round 17). */
    http_pool_free(s->pool);
    s->pool = NULL;
}

/* An ended session keeps no Lua memory: its S (the recipe and its closures,
** the conversation, the estimates' cache) becomes garbage, so a session the
** host keeps for its report does not hold the memory cap every session of
** the engine shares. Called where a step or a start is over, since until
** then the code that ended the session may still read S. */
void session_release_lua(coax_session *s)
{
    if (s->state != SS_DONE || s->S_ref == LUA_NOREF) return;
    luaL_unref(s->engine->vm.L, LUA_REGISTRYINDEX, s->S_ref); /* never allocates (vm.c made the free list) */
    s->S_ref = LUA_NOREF;
}

/* A failed call into Lua ends the session: the host's allocator failing
** under it, a limit, or a script error. */
void session_script_failed(coax_session *s, int rc, const char *what)
{
    coax_session_failure failure = s->engine->vm.host_failed ? COAX_FAILURE_OUT_OF_MEMORY
                                   : rc == VM_LIMIT             ? COAX_FAILURE_SCRIPT_LIMIT
                                                                : COAX_FAILURE_SCRIPT_ERROR;
    char head[128];
    snprintf(head, sizeof head, "%s: ", what);
    coax_buf msg;
    coax_buf_init(&msg, s->engine->alloc);
    coax_buf_puts(&msg, head);
    /* A script error keeps its traceback (the recipe's author needs it); a
    ** limit says which, and that is all. */
    const char *why = rc == VM_LIMIT ? vm_error(&s->engine->vm) : vm_message(&s->engine->vm);
    coax_buf_puts(&msg, why);
    /* The cap is the engine's, not the session's: what another session
    ** holds while it waits (a sleep, a request) counts against this one,
    ** which may have done nothing wrong. Its report says so. */
    size_t others = 0;
    for (const coax_session *o = s->engine->sessions; o; o = o->next) others += o != s && o->state != SS_DONE;
    if (failure == COAX_FAILURE_SCRIPT_LIMIT && others && !strcmp(why, "not enough memory"))
        coax_buf_printf(&msg, " (lua_memory, %zu bytes, is the engine's whole Lua state, shared with %zu other "
                              "session%s running: recipes that must not starve each other need an engine each)",
                        s->engine->vm.mem_cap, others, others == 1 ? "" : "s");
    coax_buf_putc(&msg, '\0');
    session_end(s, failure, msg.oom ? what : msg.data);
    coax_buf_free(&msg);
}

typedef struct runtime_args {
    coax_session *s;
    const char *fn;
    arg_pusher push;
    const void *ud;
    int nresults;
} runtime_args;

static int runtime_protected(lua_State *L)
{
    const runtime_args *a = lua_touserdata(L, 1);
    vm_runtime(&a->s->engine->vm, a->fn);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->s->S_ref);
    int n = a->push ? a->push(L, a->ud) : 0;
    lua_call(L, n + 1, a->nresults);
    return a->nresults;
}

/* Calls coax.runtime[fn](S, ...), the arguments pushed by 'push' (or
** none), with its 'nresults' results left on the stack; protected, the
** pushing too. */
int session_runtime_call(coax_session *s, const char *fn, arg_pusher push, const void *ud, int nresults)
{
    runtime_args a = {s, fn, push, ud, nresults};
    return vm_protect(&s->engine->vm, runtime_protected, &a, nresults);
}

typedef struct event_args {
    const char *name;
    const coax_value *data;
} event_args;

static int push_event(lua_State *L, const void *ud)
{
    const event_args *a = ud;
    lua_pushstring(L, a->name);
    lcoax_push_value(L, a->data, COAX_DEFAULT_MAX_DEPTH);
    return 2;
}

typedef struct recipe_event {
    coax_session *s;
    event_args ea;
} recipe_event;

/* coax.runtime.event(S, name, data), protected, unless it would call
** nothing: a recipe table without a metatable and without on_event (read
** raw, as coax.runtime.event reads it). Three events an attempt each
** pushed its data and called into Lua for most recipes, which have none. */
static int event_protected(lua_State *L)
{
    const recipe_event *a = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->s->S_ref);
    int S = lua_gettop(L);
    if (session_raw_field(L, S, "recipe") == LUA_TTABLE && !lua_getmetatable(L, -1) &&
        session_raw_field(L, -1, "on_event") == LUA_TNIL)
        return 0;
    vm_runtime(&a->s->engine->vm, "event");
    lua_pushvalue(L, S);
    lua_call(L, 1 + push_event(L, &a->ea), 0);
    return 0;
}

/* The recipe's on_event hears 'name' with 'data' as a Lua value. */
static void tell_recipe(coax_session *s, const char *name, const coax_value *data)
{
    recipe_event a = {s, {name, data}};
    int rc = vm_protect(&s->engine->vm, event_protected, &a, 0);
    if (rc != VM_OK) session_script_failed(s, rc, "on_event");
}

void session_event_value(coax_session *s, const char *name, const coax_value *data)
{
    if (s->listener.partial && !strcmp(name, "partial")) s->listener.partial(s->listener.ud, data);
    if (s->on_event) {
        coax_buf text;
        coax_buf_init(&text, s->engine->alloc);
        coax_write_buf(&text, data, 0);
        coax_buf_putc(&text, '\0');
        if (!text.oom) s->on_event(s->event_ud, s, name, text.data);
        bool told = !text.oom;
        coax_buf_free(&text);
        if (!told) {
            session_end(s, COAX_FAILURE_OUT_OF_MEMORY, "out of memory");
            return;
        }
    }
    if (s->state != SS_DONE) tell_recipe(s, name, data);
}

void session_event(coax_session *s, const char *name, const event_member *m)
{
    if (!tell_host(s, name, m, m ? 1 : 0)) {
        session_end(s, COAX_FAILURE_OUT_OF_MEMORY, "out of memory");
        return;
    }
    /* The data as a value for the recipe's on_event, with what 'm' points to */
    char attempt[16], count[24];
    coax_member members[2] = {{"attempt", 7, {COAX_NUMBER, COAX_VF_INT_TEXT, 0, {.text = attempt}}}};
    members[0].value.len = (uint32_t)int_text(attempt, s->attempt);
    coax_value data = {COAX_OBJECT, 0, m ? 2 : 1, {.members = members}};
    coax_arena *a = NULL; /* for a member of JSON text, parsed */
    if (m) {
        coax_member *x = &members[1];
        x->key = m->key;
        x->klen = (uint32_t)strlen(m->key);
        if (m->kind == EVENT_COUNT) {
            x->value = (coax_value){COAX_NUMBER, COAX_VF_INT_TEXT, 0, {.text = count}};
            x->value.len = (uint32_t)count_text(count, m->count);
        } else if (m->kind == EVENT_TEXT) {
            x->value = (coax_value){COAX_STRING, 0, (uint32_t)m->len, {.text = m->text}};
        } else {
            coax_value *v;
            a = coax_arena_new(s->engine->alloc);
            if (!a || coax_parse(a, m->text, m->len, NULL, &v, NULL) != COAX_OK) {
                coax_arena_free(a); /* the recipe hears nothing, as a host without memory: the session goes on */
                return;
            }
            x->value = *v;
        }
    }
    tell_recipe(s, name, &data);
    coax_arena_free(a);
}

event_member session_event_text(const char *key, const char *text, char *buf, size_t cap)
{
    size_t n = strlen(text), cut = n > EVENT_TEXT_CAP ? EVENT_TEXT_CAP : n;
    while (cut < n && cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80) cut--; /* a whole character */
    size_t len = cap > 3 * cut ? coax_utf8_replace(text, cut, buf) : 0;
    buf[len] = '\0';
    return (event_member){key, EVENT_TEXT, 0, buf, len};
}

/* ---- attempts ------------------------------------------------------------ */

/* The context table of a failure or a submission, pushed on 'L'. */
void session_push_info(coax_session *s, lua_State *L, const char *kind)
{
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, s->attempt);
    lua_setfield(L, -2, "attempt");
    lua_pushinteger(L, s->max_attempts);
    lua_setfield(L, -2, "max_attempts");
    lua_pushboolean(L, s->attempt >= s->max_attempts);
    lua_setfield(L, -2, "last_attempt");
    if (kind) {
        lua_pushstring(L, kind);
        lua_setfield(L, -2, "kind");
    }
}

/* __index of a failure table whose values were left out: a read of one is
** a broken promise of the caller's, told loudly, not a nil. */
static int unpushed_value(lua_State *L)
{
    const char *k = lua_tostring(L, 2);
    if (k && (!strcmp(k, "value") || !strcmp(k, "coerced_value")))
        return luaL_error(L, "the failure's %s was not pushed: its reader was not expected (session_push_failure)", k);
    return 0;
}

/* What templates and strategies read about a failed reply, pushed on 'L':
** the info table with the value read, the errors, the reply and 'detail'
** (the parse error, the rejection's reason or the errors' summary). */
void session_push_failure(coax_session *s, lua_State *L, const char *kind, const coax_extract_result *r,
                          bool have_r, const char *detail, const char *reply, size_t rlen, bool values_unread)
{
    session_push_info(s, L, kind);
    if (have_r && r->value) { /* what the model sent, and what coax made of it */
        const coax_value *sent = r->repair.value ? r->repair.value : r->value;
        if (values_unread) {
            if (luaL_newmetatable(L, "coax.unpushed_value")) {
                lua_pushcfunction(L, unpushed_value);
                lua_setfield(L, -2, "__index");
            }
            lua_setmetatable(L, -2);
        } else {
            lcoax_push_value(L, sent, COAX_DEFAULT_MAX_DEPTH);
            lua_pushvalue(L, -1);
            lua_setfield(L, -3, "value");
            if (r->value != sent) {
                lua_pop(L, 1);
                lcoax_push_value(L, r->value, COAX_DEFAULT_MAX_DEPTH);
            }
            lua_setfield(L, -2, "coerced_value");
        }
        /* The feedback's {{submission}}, written here from the value itself:
        ** encoding the pushed table back to JSON cost more than the rest of
        ** a failed attempt. The session owns the buffer, so a memory error
        ** while pushing leaks nothing. Indented unless that more than
        ** doubles it (plus 4 KiB): 2,000 strings 400 levels deep, a reply of
        ** 8.8 KB, were 1.9 MB of indentation in the next prompt. */
        s->sent.len = 0;
        s->sent.oom = false;
        size_t extra = coax_pretty_extra(s->sent.alloc, sent);
        if (extra > 4096) { /* the compact text's length decides; below that any is long enough */
            coax_write_buf(&s->sent, sent, 0);
            if (s->sent.oom || extra > s->sent.len + 4096) extra = SIZE_MAX;
            else s->sent.len = 0;
        }
        if (extra != SIZE_MAX) coax_write_buf(&s->sent, sent, COAX_WRITE_PRETTY);
        if (s->sent.oom) luaL_error(L, "out of memory");
        lua_pushlstring(L, s->sent.data, s->sent.len);
        lua_setfield(L, -2, "submission");
    }
    lua_createtable(L, have_r ? (int)r->ncoercions : 0, 0);
    for (size_t i = 0; have_r && i < r->ncoercions; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, r->coercions[i].kind);
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, r->coercions[i].pointer);
        lua_setfield(L, -2, "pointer");
        lua_pushstring(L, r->coercions[i].detail);
        lua_setfield(L, -2, "detail");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "coercions");
    lua_createtable(L, have_r ? (int)r->validation.nerrors : 0, 0);
    for (size_t i = 0; have_r && i < r->validation.nerrors; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, r->validation.errors[i].instance_location);
        lua_setfield(L, -2, "instanceLocation");
        lua_pushstring(L, r->validation.errors[i].keyword_location);
        lua_setfield(L, -2, "keywordLocation");
        lua_pushstring(L, r->validation.errors[i].message);
        lua_setfield(L, -2, "error");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "errors");
    lua_pushlstring(L, reply, rlen);
    lua_setfield(L, -2, "reply");
    lua_pushstring(L, detail);
    lua_setfield(L, -2, !strcmp(kind, "parse") ? "parse_error" : !strcmp(kind, "rejection") ? "reason" : "summary");
}

/* The one-line summary of an invalid value's errors. */
void session_summarize(char *buf, size_t cap, const coax_validation *v)
{
    snprintf(buf, cap, "%zu validation error%s, the first at '%s': %s", v->nerrors, v->nerrors == 1 ? "" : "s",
             v->errors[0].instance_location, v->errors[0].message);
}

