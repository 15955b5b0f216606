/*
** session.c: one extraction as a bounded series of attempts.
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
** The state is touched only under a protected call (script.h, vm_protect):
** a session's start and each of its steps run as one, so running out of
** Lua memory anywhere in them ends the session with a limit, never in
** Lua's panic. Inside them, the C resources held across a push (an
** attempt's arena, a buffer) are held only around a protected call of
** their own, so nothing leaks when a push fails.
*/
#include "session/engine.h"
#include "script/lib.h"

#include <errno.h>
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- small helpers ------------------------------------------------------ */

/* Tokens of text not yet sent: the calibrated o200k estimate (README,
** "Token estimation"); providers' reported usage replaces it when given. */
static uint64_t estimate_tokens(const char *s, size_t n)
{
    return coax_tokens(COAX_ENC_O200K, s, n);
}

static int l_estimate(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_pushinteger(L, (lua_Integer)estimate_tokens(s, n));
    return 1;
}

static void put_str(coax_buf *b, const char *s) { coax_buf_put_json_string(b, s, strlen(s)); }

/* Pushes t[k] of the table at 'idx', raw: tables an agent returns are read
** outside any protected call, so no metamethod of theirs may run. */
static int rawfield(lua_State *L, int idx, const char *k)
{
    idx = lua_absindex(L, idx);
    lua_pushstring(L, k);
    return lua_rawget(L, idx);
}

/* Appends the JSON of the Lua value at the top of the stack (popped). Runs
** protected: a value JSON cannot hold is a script error, not a crash. */
static int to_json(lua_State *L)
{
    coax_buf *b = lua_touserdata(L, 2);
    coax_value *v = lcoax_to_value(L, 1, lcoax_arena(L), COAX_DEFAULT_MAX_DEPTH);
    if (coax_write_buf(b, v, 0)) return luaL_error(L, "out of memory");
    return 0;
}

static int append_json(coax_session *s, coax_buf *b)
{
    lua_State *L = s->engine->vm.L;
    lua_pushcfunction(L, to_json);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, b);
    return vm_call(&s->engine->vm, 2, 0);
}

static const char *field(char *buf, size_t cap, const char *key, const char *text);

void session_end(coax_session *s, coax_outcome outcome, const char *code, const char *msg)
{
    if (s->state == SS_DONE) return;
    if (outcome != COAX_OUTCOME_OK && s->on_event && s->S_ref != LUA_NOREF) {
        /* The host hears every failure; the recipe's on_event is not called
        ** again here, since its own failure may be what ends the session. */
        char f[320], g[400];
        snprintf(g, sizeof g, "{\"attempt\":%d,\"outcome\":\"%s\",%s}", s->attempt, coax_outcome_name(outcome),
                 field(f, sizeof f, "message", msg ? msg : ""));
        s->on_event(s->event_ud, s, "failure", g);
    }
    s->state = SS_DONE;
    s->outcome = outcome;
    s->t_end = coax_now_ms();
    if (code) {
        coax_buf_puts(&s->error_code, code);
        coax_buf_puts(&s->error_msg, msg ? msg : "");
    }
    lua_State *L = s->engine->vm.L;
    if (s->co_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->co_ref); /* never allocates (script.c) */
    s->co_ref = LUA_NOREF;
    s->co = NULL;
    s->sleeping = false;
    http_cancel(s->http);
    proc_cancel(s->proc);
    s->http = NULL;
    s->proc = NULL;
}

/* A failed call into Lua ends the session: a limit, or a script error. */
static void script_failed(coax_session *s, int rc, const char *what)
{
    char head[128];
    snprintf(head, sizeof head, "%s: ", what);
    coax_buf msg;
    coax_buf_init(&msg, s->engine->alloc);
    coax_buf_puts(&msg, head);
    /* A script error keeps its traceback (the recipe's author needs it); a
    ** limit says which, and that is all. */
    coax_buf_puts(&msg, rc == VM_LIMIT ? vm_error(&s->engine->vm) : vm_message(&s->engine->vm));
    coax_buf_putc(&msg, '\0');
    session_end(s, rc == VM_LIMIT ? COAX_OUTCOME_LIMIT : COAX_OUTCOME_SCRIPT_ERROR, rc == VM_LIMIT ? "limit" : "script_error",
                msg.oom ? what : msg.data);
    coax_buf_free(&msg);
}

/* Pushes a runtime function's arguments after S; returns how many. */
typedef int (*arg_pusher)(lua_State *L, const void *ud);

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
static int runtime_call(coax_session *s, const char *fn, arg_pusher push, const void *ud, int nresults)
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
    lcoax_push_value(L, a->data, 8);
    return 2;
}

/* Tells the host's callback and the recipe's on_event: 'name' with data
** {"attempt": n, ...}; 'fields' adds members (JSON text after a comma). */
static void event(coax_session *s, const char *name, const char *fields)
{
    coax_buf data;
    coax_buf_init(&data, s->engine->alloc);
    coax_buf_printf(&data, "{\"attempt\":%d%s%s}", s->attempt, fields ? "," : "", fields ? fields : "");
    coax_buf_putc(&data, '\0');
    if (data.oom) {
        coax_buf_free(&data);
        session_end(s, COAX_OUTCOME_LIMIT, "out_of_memory", "out of memory");
        return;
    }
    if (s->on_event) s->on_event(s->event_ud, s, name, data.data);
    coax_arena *a = coax_arena_new(s->engine->alloc);
    coax_value *v;
    if (a && coax_parse(a, data.data, data.len - 1, NULL, &v, NULL) == COAX_OK) {
        event_args ea = {name, v};
        int rc = runtime_call(s, "event", push_event, &ea, 0);
        if (rc != VM_OK) script_failed(s, rc, "on_event");
    }
    coax_arena_free(a);
    coax_buf_free(&data);
}

/* A JSON fragment "key":"text" for event data (text escaped, cut at 200). */
static const char *field(char *buf, size_t cap, const char *key, const char *text)
{
    coax_buf b;
    coax_buf_init(&b, NULL);
    coax_buf_printf(&b, "\"%s\":", key);
    size_t n = strlen(text);
    while (n > 200 && ((unsigned char)text[n] & 0xC0) == 0x80) n--;
    coax_buf_put_json_string(&b, text, n > 200 ? 200 : n);
    snprintf(buf, cap, "%.*s", b.oom ? 0 : (int)b.len, b.data ? b.data : "");
    coax_buf_free(&b);
    return buf;
}

/* ---- attempts ------------------------------------------------------------ */

/* The context table of a failure or a submission, pushed on 'L'. */
static void push_info(coax_session *s, lua_State *L, const char *kind)
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

/* What templates and strategies read about a failed reply, pushed on 'L':
** the info table with the value read, the errors, the reply and 'detail'
** (the parse error, the rejection's reason or the errors' summary). */
static void push_failure(coax_session *s, lua_State *L, const char *kind, const coax_extract_result *r, bool have_r,
                         const char *detail, const char *reply, size_t rlen)
{
    push_info(s, L, kind);
    if (have_r && r->value) { /* what the model sent, and what coax made of it */
        lcoax_push_value(L, r->repair.value ? r->repair.value : r->value, COAX_DEFAULT_MAX_DEPTH);
        lua_setfield(L, -2, "value");
        lcoax_push_value(L, r->value, COAX_DEFAULT_MAX_DEPTH);
        lua_setfield(L, -2, "coerced_value");
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

typedef struct failure_args {
    coax_session *s;
    const char *kind;
    const coax_extract_result *r;
    bool have_r;
    const char *detail, *reply;
    size_t rlen;
} failure_args;

static int push_failure_arg(lua_State *L, const void *ud)
{
    const failure_args *a = ud;
    push_failure(a->s, L, a->kind, a->r, a->have_r, a->detail, a->reply, a->rlen);
    return 1;
}

typedef struct submit_args {
    coax_session *s;
    const coax_value *value;
} submit_args;

static int push_submission(lua_State *L, const void *ud)
{
    const submit_args *a = ud;
    lcoax_push_value(L, a->value, COAX_DEFAULT_MAX_DEPTH);
    push_info(a->s, L, NULL);
    return 2;
}

/* The one-line summary of an invalid value's errors. */
static void summarize(char *buf, size_t cap, const coax_validation *v)
{
    snprintf(buf, cap, "%zu validation error%s, the first at '%s': %s", v->nerrors, v->nerrors == 1 ? "" : "s",
             v->errors[0].instance_location, v->errors[0].message);
}

/* The messages this attempt added (S.added) and how many it kept (S.kept):
** the report holds each message once. */
static void record_messages(coax_session *s)
{
    lua_State *L = s->engine->vm.L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->S_ref);
    rawfield(L, -1, "kept");
    s->messages_kept = lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 0 ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    rawfield(L, -1, "added");
    lua_remove(L, -2);
    s->messages.len = 0;
    int rc = append_json(s, &s->messages);
    if (rc != VM_OK) script_failed(s, rc, "messages");
}

/* The message the session ended with (NUL-terminated), or "". */
static const char *ended_reason(coax_session *s)
{
    coax_buf *m = &s->error_msg;
    coax_buf_reserve(m, 1);
    if (m->oom || !m->data) return "";
    m->data[m->len] = '\0';
    return m->data;
}

/* Appends this attempt's record to the report; 'reason' says why it failed
** (NULL for an attempt that succeeded). */
static void record_attempt(coax_session *s, const char *outcome, const char *reason, const char *reply, size_t rlen,
                           const coax_extract_result *r, bool have_r, const char *usage_json)
{
    coax_buf *b = &s->attempts;
    if (b->len) coax_buf_putc(b, ',');
    coax_buf_printf(b, "{\"n\":%d,\"outcome\":", s->attempt);
    put_str(b, outcome);
    coax_buf_puts(b, ",\"reason\":");
    if (reason) put_str(b, reason);
    else coax_buf_puts(b, "null");
    coax_buf_printf(b, ",\"messages_kept\":%d,\"messages\":", s->messages_kept);
    coax_buf_put(b, s->messages.data ? s->messages.data : "[]", s->messages.data ? s->messages.len : 2);
    coax_buf_puts(b, ",\"reply\":");
    if (reply) coax_buf_put_json_string(b, reply, rlen);
    else coax_buf_puts(b, "null");
    coax_buf_puts(b, ",\"value\":");
    if (have_r && r->value) coax_write_buf(b, r->value, 0);
    else coax_buf_puts(b, "null");
    coax_buf_puts(b, ",\"errors\":[");
    for (size_t i = 0; have_r && i < r->validation.nerrors; i++) {
        const coax_schema_error *e = &r->validation.errors[i];
        coax_buf_puts(b, i ? ",{\"instanceLocation\":" : "{\"instanceLocation\":");
        put_str(b, e->instance_location);
        coax_buf_puts(b, ",\"keywordLocation\":");
        put_str(b, e->keyword_location);
        if (e->absolute_keyword_location) {
            coax_buf_puts(b, ",\"absoluteKeywordLocation\":");
            put_str(b, e->absolute_keyword_location);
        }
        coax_buf_puts(b, ",\"error\":");
        put_str(b, e->message);
        coax_buf_putc(b, '}');
    }
    coax_buf_puts(b, "],\"log\":[");
    size_t k = 0;
    for (size_t i = 0; have_r && i < r->repair.nlog; i++, k++) {
        const coax_repair_entry *e = &r->repair.log[i];
        coax_buf_puts(b, k ? ",{\"kind\":" : "{\"kind\":");
        put_str(b, e->kind);
        coax_buf_puts(b, ",\"class\":");
        put_str(b, coax_class_name(e->cls));
        coax_buf_puts(b, ",\"detail\":");
        put_str(b, e->detail);
        coax_buf_printf(b, ",\"offset\":%zu,\"line\":%u,\"column\":%u}", e->offset, e->line, e->column);
    }
    for (size_t i = 0; have_r && i < r->ncoercions; i++, k++) {
        coax_buf_puts(b, k ? ",{\"kind\":" : "{\"kind\":");
        put_str(b, r->coercions[i].kind);
        coax_buf_puts(b, ",\"class\":");
        put_str(b, coax_class_name(r->coercions[i].cls));
        coax_buf_puts(b, ",\"detail\":");
        put_str(b, r->coercions[i].detail);
        coax_buf_puts(b, ",\"pointer\":");
        put_str(b, r->coercions[i].pointer);
        coax_buf_putc(b, '}');
    }
    coax_buf_printf(b, "],\"usage\":%s,\"finish\":", usage_json ? usage_json : "null");
    if (s->finish[0]) put_str(b, s->finish);
    else coax_buf_puts(b, "null");
    if (s->retries >= 0) coax_buf_printf(b, ",\"retries\":%d", s->retries);
    if (s->http_status) coax_buf_printf(b, ",\"http_status\":%d", s->http_status);
    if (s->tool_rounds.len) {
        coax_buf_puts(b, ",\"tool_rounds\":");
        coax_buf_put(b, s->tool_rounds.data, s->tool_rounds.len);
    }
    coax_buf_printf(b, ",\"elapsed_ms\":%.3f}", coax_now_ms() - s->t_attempt);
}

/* The counts a provider may report beside the two totals, each under its own
** name (README "Usage"): input read from the prompt cache, input written to
** it, and reasoning tokens inside the output. They are parts of the totals,
** never added to them; cost depends on them. */
static const char *const USAGE_DETAILS[] = {"cached_input_tokens", "cache_creation_input_tokens",
                                            "reasoning_tokens"};
#define N_USAGE_DETAILS (sizeof USAGE_DETAILS / sizeof *USAGE_DETAILS)
_Static_assert(N_USAGE_DETAILS == SESSION_USAGE_DETAILS, "one sum per usage detail");
#define USAGE_JSON_CAP 256

/* A count the usage table at the top of the stack holds under 'name': a
** non-negative integer, or -1. */
static lua_Integer usage_count(lua_State *L, const char *name)
{
    int exact = 0; /* a float with an integral value counts (lua-cjson decodes numbers as floats) */
    lua_Integer n = rawfield(L, -1, name) == LUA_TNUMBER ? lua_tointegerx(L, -1, &exact) : -1;
    lua_pop(L, 1);
    return exact && n >= 0 ? n : -1;
}

static void put_count(char *json, size_t cap, const char *name, lua_Integer n, bool first)
{
    size_t len = strlen(json);
    if (n >= 0) snprintf(json + len, cap - len, "%s\"%s\":%lld", first ? "" : ",", name, (long long)n);
    else snprintf(json + len, cap - len, "%s\"%s\":null", first ? "" : ",", name);
}

/* Reads provider usage from the reply table on top of the stack into the
** session's sums and 'json', the attempt's usage object: the totals (null
** when not said) and each detail the provider gave. */
static void take_usage(coax_session *s, char *json, size_t cap)
{
    lua_State *L = s->engine->vm.L;
    json[0] = '\0';
    if (rawfield(L, -1, "usage") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    lua_Integer in = usage_count(L, "input_tokens"), out = usage_count(L, "output_tokens");
    if (in >= 0) {
        s->in_prov += (uint64_t)in;
        s->have_in_prov = true;
    }
    if (out >= 0) {
        s->out_prov += (uint64_t)out;
        s->have_out_prov = true;
    }
    snprintf(json, cap, "{");
    put_count(json, cap, "input_tokens", in, true);
    put_count(json, cap, "output_tokens", out, false);
    for (size_t i = 0; i < N_USAGE_DETAILS; i++) {
        lua_Integer n = usage_count(L, USAGE_DETAILS[i]);
        if (n < 0) continue;
        s->detail_prov[i] += (uint64_t)n;
        s->have_detail_prov[i] = true;
        put_count(json, cap, USAGE_DETAILS[i], n, false);
    }
    size_t len = strlen(json);
    snprintf(json + len, cap - len, "}");
    lua_pop(L, 1);
}

/* Reads what the agent says about its call from the table at 'idx' of
** 'L': the finish reason ("stop", "length", ...), its transport retries
** and, when it failed, the HTTP status of the last response. */
static void take_meta(coax_session *s, lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (rawfield(L, idx, "finish") == LUA_TSTRING) snprintf(s->finish, sizeof s->finish, "%s", lua_tostring(L, -1));
    if (rawfield(L, idx, "retries") == LUA_TNUMBER && lua_tointeger(L, -1) >= 0)
        s->retries = (int)lua_tointeger(L, -1);
    if (rawfield(L, idx, "status") == LUA_TNUMBER && lua_tointeger(L, -1) > 0 && lua_tointeger(L, -1) < 1000)
        s->http_status = (int)lua_tointeger(L, -1);
    lua_pop(L, 3);
}

/* Reads the tool rounds of an attempt in tools mode (the list at field
** "tool_rounds" of the table at 'idx' of 'L') into s->tool_rounds as JSON,
** with the request's secrets redacted. */
static void take_tool_rounds(coax_session *s, lua_State *L, int idx)
{
    lua_State *ML = s->engine->vm.L;
    s->tool_rounds.len = 0;
    if (rawfield(L, idx, "tool_rounds") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    if (L != ML) lua_xmove(L, ML, 1);
    if (append_json(s, &s->tool_rounds) != VM_OK || s->tool_rounds.oom) {
        s->tool_rounds.len = 0; /* the history goes without them rather than fail the session */
        s->tool_rounds.oom = false;
        return;
    }
    if (!s->secrets.len) return;
    lend_push_redacted(ML, &s->secrets, s->tool_rounds.data, s->tool_rounds.len);
    size_t n;
    const char *t = lua_tolstring(ML, -1, &n);
    s->tool_rounds.len = 0;
    coax_buf_put(&s->tool_rounds, t, n);
    lua_pop(ML, 1);
}

/* Adds to the record of the attempt just recorded (the last in
** s->attempts, closed by its '}') the feedback sent after it. */
static void record_feedback(coax_session *s, const char *text, size_t len)
{
    coax_buf *b = &s->attempts;
    if (b->oom || !b->len || b->data[b->len - 1] != '}') return;
    b->len--;
    coax_buf_puts(b, ",\"feedback\":");
    coax_buf_put_json_string(b, text, len);
    coax_buf_putc(b, '}');
}

/* Decides after a failed attempt: exhausted, or the next messages. */
static void retry(coax_session *s, const char *kind, coax_extract_result *r, bool have_r, const char *detail,
                  const char *reply, size_t rlen)
{
    if (s->attempt >= s->max_attempts) {
        char msg[256];
        snprintf(msg, sizeof msg, "%d attempt%s used up; the last failed: %s", s->max_attempts,
                 s->max_attempts == 1 ? "" : "s", detail);
        session_end(s, COAX_OUTCOME_EXHAUSTED, "exhausted", msg);
        return;
    }
    lua_State *L = s->engine->vm.L;
    failure_args fa = {s, kind, r, have_r, detail, reply, rlen};
    int rc = runtime_call(s, "next", push_failure_arg, &fa, 3);
    if (rc != VM_OK) {
        script_failed(s, rc, "strategy");
        return;
    }
    size_t flen;
    const char *feedback = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &flen) : NULL;
    if (feedback) record_feedback(s, feedback, flen);
    lua_pop(L, 3);
    s->attempt++;
    s->state = SS_CALL;
}

/* Replaces, in the string field 'key' of the table at 'idx', every secret
** value the session's requests carried by "[redacted]". */
static void redact_field(coax_session *s, lua_State *L, int idx, const char *key)
{
    if (!s->secrets.len) return;
    if (rawfield(L, idx, key) != LUA_TSTRING) {
        lua_pop(L, 1);
        return;
    }
    size_t n;
    const char *t = lua_tolstring(L, -1, &n);
    lend_push_redacted(L, &s->secrets, t, n);
    lua_setfield(L, idx, key);
    lua_pop(L, 1);
}

/* The host's C on_submit, after the recipe's accepted 'value': true to
** accept; false with its reason in 'reason', or with the session ended
** when memory ran out. */
static bool host_accepts(coax_session *s, const coax_value *value, char *reason, size_t cap)
{
    if (!s->on_submit) return true;
    coax_buf b;
    coax_buf_init(&b, s->engine->alloc);
    coax_write_buf(&b, value, 0);
    coax_buf_putc(&b, '\0');
    if (b.oom) {
        coax_buf_free(&b);
        session_end(s, COAX_OUTCOME_LIMIT, "out_of_memory", "out of memory");
        return false;
    }
    reason[0] = '\0';
    bool ok = s->on_submit(s->submit_ud, s, b.data, b.len - 1, reason, cap);
    coax_buf_free(&b);
    reason[cap - 1] = '\0';
    if (!ok && !reason[0]) snprintf(reason, cap, "rejected by the host");
    return ok;
}

/* A reply the provider says it cut off is never accepted as complete,
** whatever its shape: at its token limit (finish "length": a bare 12 may
** have been 1234, complete-looking JSON may have lost what was to follow),
** or by its content filter ("content_filter": something was left out).
** Unless the extraction already found the value incomplete, an error at the
** root says so, and the attempt fails like any invalid one. */
static const char *cut_off_reason(const coax_session *s)
{
    if (!strcmp(s->finish, "length"))
        return "the provider cut the reply off at its token limit (finish: length): the value may be incomplete";
    if (!strcmp(s->finish, "content_filter"))
        return "the provider's content filter cut the reply off (finish: content_filter): the value may be incomplete";
    return NULL;
}

static coax_code refuse_cut_off(coax_session *s, coax_arena *a, coax_extract_result *r)
{
    const char *why = cut_off_reason(s);
    if (!why) return COAX_OK;
    if (r->candidate < r->repair.ncandidates && !r->repair.candidates[r->candidate].complete) return COAX_OK;
    coax_validation *v = &r->validation;
    coax_schema_error *e = coax_arena_alloc(a, (v->nerrors + 1) * sizeof *e);
    if (!e) return COAX_ENOMEM;
    e[0] = (coax_schema_error){"", "", NULL, why, NULL, 0};
    if (v->nerrors) memcpy(e + 1, v->errors, v->nerrors * sizeof *e);
    v->errors = e;
    v->nerrors++;
    v->valid = 0;
    r->valid = 0;
    return COAX_OK;
}

/* The agent's reply (its table on top of the main stack, popped) through
** extraction and on_submit. */
static void handle_reply(coax_session *s)
{
    coax_engine *e = s->engine;
    lua_State *L = e->vm.L;
    int base = lua_gettop(L) - 1; /* below the reply table */
    char usage[USAGE_JSON_CAP];
    take_usage(s, usage, sizeof usage);
    take_meta(s, L, -1);
    take_tool_rounds(s, L, lua_gettop(L));
    redact_field(s, L, lua_gettop(L), "text");
    redact_field(s, L, lua_gettop(L), "refusal");
    if (rawfield(L, -1, "refusal") == LUA_TSTRING) {
        /* The model declined: the agent's policy made this the end. */
        size_t rl;
        const char *refusal = lua_tolstring(L, -1, &rl);
        /* The provider's words, whole: its explanation is the reason. */
        coax_buf msg;
        coax_buf_init(&msg, e->alloc);
        coax_buf_puts(&msg, "the model refused: ");
        coax_buf_put(&msg, refusal, rl);
        coax_buf_putc(&msg, '\0');
        record_attempt(s, "refused", msg.oom ? "the model refused" : msg.data, refusal, rl, NULL, false,
                       usage[0] ? usage : NULL);
        lua_settop(L, base);
        session_end(s, COAX_OUTCOME_AGENT_ERROR, "refusal", msg.oom ? "the model refused" : msg.data);
        coax_buf_free(&msg);
        return;
    }
    lua_pop(L, 1);
    rawfield(L, -1, "text");
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    if (!text || lua_type(L, -1) != LUA_TSTRING) {
        lua_pop(L, 2);
        session_end(s, COAX_OUTCOME_AGENT_ERROR, "agent_error", "the agent's reply has no text");
        return;
    }
    s->out_est += estimate_tokens(text, len);
    coax_arena *arena = coax_arena_new(e->alloc);
    if (!arena) {
        lua_pop(L, 2);
        session_end(s, COAX_OUTCOME_LIMIT, "out_of_memory", "out of memory");
        return;
    }
    coax_extract_result r;
    coax_error err = {0};
    /* extract closes no brackets of a cut reply; refuse_cut_off then refuses the rest */
    coax_extract_options xo = {cut_off_reason(s) ? COAX_EXTRACT_CUT_OFF : 0, s->max_class};
    coax_code rc = coax_extract(arena, s->schema, text, len, &e->limits, &xo, &r, &err);
    if (rc == COAX_OK) rc = refuse_cut_off(s, arena, &r);
    char f[320];
    snprintf(f, sizeof f, "\"bytes\":%zu", len);
    event(s, "reply", f);
    if (rc == COAX_ENOJSON) {
        record_attempt(s, "no_json", err.msg, text, len, &r, false, usage[0] ? usage : NULL);
        event(s, "parse_error", field(f, sizeof f, "error", err.msg));
        if (s->state != SS_DONE) retry(s, "parse", &r, false, err.msg, text, len);
    } else if (rc) {
        const char *why = err.msg[0] ? err.msg : coax_strerror(rc);
        record_attempt(s, "limit", why, text, len, &r, false, usage[0] ? usage : NULL);
        session_end(s, COAX_OUTCOME_LIMIT, coax_code_name(rc), why);
    } else {
        s->repairs += r.repair.nlog;
        s->coercions += r.ncoercions;
        if (!r.valid) {
            char detail[256];
            summarize(detail, sizeof detail, &r.validation);
            record_attempt(s, "invalid", detail, text, len, &r, true, usage[0] ? usage : NULL);
            snprintf(f, sizeof f, "\"errors\":%zu", r.validation.nerrors);
            event(s, "validation_error", f);
            /* A value that rests on a guessed repair: the reply is what to fix. */
            if (s->state != SS_DONE && r.refused)
                retry(s, "parse", &r, true, r.validation.errors[0].message, text, len);
            else if (s->state != SS_DONE) retry(s, "validation", &r, true, detail, text, len);
        } else {
            char reason[256]; /* why the recipe or the host rejected the value */
            submit_args sa = {s, r.value};
            int vr = runtime_call(s, "submit", push_submission, &sa, 2);
            if (vr != VM_OK) {
                script_failed(s, vr, "on_submit");
                record_attempt(s, vr == VM_LIMIT ? "limit" : "script_error", ended_reason(s), text, len, &r, true,
                               usage[0] ? usage : NULL);
            } else if (lua_toboolean(L, -2) && host_accepts(s, r.value, reason, sizeof reason)) {
                lua_pop(L, 2);
                record_attempt(s, "ok", NULL, text, len, &r, true, usage[0] ? usage : NULL);
                event(s, "success", NULL);
                coax_write_buf(&s->value, r.value, 0);
                session_end(s, COAX_OUTCOME_OK, NULL, NULL);
            } else if (s->state != SS_DONE) {
                if (!lua_toboolean(L, -2)) /* the recipe rejected; else the host did, and wrote its reason */
                    snprintf(reason, sizeof reason, "%s",
                             lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "rejected");
                lua_pop(L, 2);
                record_attempt(s, "rejected", reason, text, len, &r, true, usage[0] ? usage : NULL);
                event(s, "rejection", field(f, sizeof f, "reason", reason));
                if (s->state != SS_DONE) retry(s, "rejection", &r, true, reason, text, len);
            }
        }
    }
    coax_arena_free(arena);
    lua_settop(L, base); /* the reply and its text stayed anchored until here */
}

/* Starts the agent's coroutine for this attempt, or resumes it. */
static void run_agent(coax_session *s, bool start)
{
    coax_vm *vm = &s->engine->vm;
    lua_State *L = vm->L;
    int nargs = 0;
    if (start) {
        s->co = lua_newthread(L);
        s->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        vm_runtime(vm, "call");
        lua_xmove(L, s->co, 1);
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->S_ref);
        lua_xmove(L, s->co, 1);
        nargs = 1;
        s->t_call = coax_now_ms();
    }
    s->sleeping = false;
    vm->current = s;
    int nres = 0;
    int rc = vm_resume(vm, s->co, nargs, &nres);
    vm->current = NULL;
    if (rc == VM_YIELD) {
        if (!s->sleeping && !s->http && !s->proc && s->host != HOST_ASKED) { /* yielded for something unknown */
            session_end(s, COAX_OUTCOME_SCRIPT_ERROR, "script_error",
                        "the agent yielded outside coax.sleep, coax.http, coax.command and coax.host_request");
            return;
        }
        s->state = SS_WAIT;
        if (s->host == HOST_ASKED) { /* the host hears the request now; it may answer at once */
            coax_buf f;
            coax_buf_init(&f, s->engine->alloc);
            coax_buf_puts(&f, "\"request\":");
            coax_buf_put(&f, s->host_request.data, s->host_request.len);
            coax_buf_putc(&f, '\0');
            event(s, "host_request", f.oom ? "\"request\":null" : f.data);
            coax_buf_free(&f);
        }
        return;
    }
    http_cancel(s->http); /* a request the agent returned without waiting for */
    s->http = NULL;
    proc_cancel(s->proc);
    s->proc = NULL;
    s->agent_ms += coax_now_ms() - s->t_call;
    if (rc != VM_OK) {
        script_failed(s, rc, "agent");
        record_attempt(s, rc == VM_LIMIT ? "limit" : "script_error", ended_reason(s), NULL, 0, NULL, false, NULL);
        return;
    }
    lua_State *co = s->co;
    if (!lua_checkstack(co, 8)) { /* never raises */
        session_end(s, COAX_OUTCOME_LIMIT, "limit", "agent: not enough memory");
        return;
    }
    if (nres >= 1 && lua_istable(co, -nres)) {
        lua_settop(co, lua_gettop(co) - nres + 1);
        lua_xmove(co, L, 1);
        luaL_unref(L, LUA_REGISTRYINDEX, s->co_ref);
        s->co_ref = LUA_NOREF;
        s->co = NULL;
        handle_reply(s);
        return;
    }
    char msg[512], limit[32] = "", usage[USAGE_JSON_CAP] = "";
    const char *m = nres >= 2 && lua_type(co, -nres + 1) == LUA_TSTRING ? lua_tostring(co, -nres + 1) : NULL;
    snprintf(msg, sizeof msg, "%s", m ? m : "the agent returned no reply");
    if (nres >= 3 && lua_istable(co, -nres + 2)) {
        int meta = lua_gettop(co) - nres + 3;
        take_meta(s, co, meta);
        take_tool_rounds(s, co, meta);
        /* An agent that stopped at tools mode's rounds says so: the outcome
        ** is a limit, not an agent error (the only limit an agent has). */
        if (rawfield(co, meta, "limit") == LUA_TSTRING && !strcmp(lua_tostring(co, -1), "tool_rounds"))
            snprintf(limit, sizeof limit, "tool_rounds");
        lua_pop(co, 1);
        /* What the requests before the failure cost (tools mode's rounds). */
        lua_pushvalue(co, meta);
        lua_xmove(co, s->engine->vm.L, 1);
        take_usage(s, usage, sizeof usage);
        lua_pop(s->engine->vm.L, 1);
    }
    record_attempt(s, limit[0] ? "limit" : "agent_error", msg, NULL, 0, NULL, false, usage[0] ? usage : NULL);
    session_end(s, limit[0] ? COAX_OUTCOME_LIMIT : COAX_OUTCOME_AGENT_ERROR, limit[0] ? limit : "agent_error", msg);
}

/* Budgets before a call: the deadline, and the tokens the call would use. */
static bool within_budget(coax_session *s)
{
    if (s->deadline_ms > 0 && coax_now_ms() - s->t_start >= s->deadline_ms) {
        session_end(s, COAX_OUTCOME_LIMIT, "deadline", "the session's deadline passed");
        return false;
    }
    uint64_t in = 0;
    lua_State *L = s->engine->vm.L;
    /* Raw reads with type checks: the messages come from a script, and
    ** nothing here may run its metamethods or raise outside a pcall. */
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->S_ref);
    lua_pushliteral(L, "messages");
    lua_rawget(L, -2);
    lua_Integer n = lua_istable(L, -1) ? (lua_Integer)lua_rawlen(L, -1) : 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        if (!lua_istable(L, -1)) {
            lua_pop(L, 3);
            session_end(s, COAX_OUTCOME_SCRIPT_ERROR, "script_error",
                        "strategy: messages must be a list of {role = ..., content = ...} tables");
            return false;
        }
        lua_pushliteral(L, "content");
        lua_rawget(L, -2);
        size_t len = 0;
        const char *c = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        if (c) in += estimate_tokens(c, len) + 4; /* and a few per message */
        lua_pop(L, 2);
    }
    lua_pop(L, 2);
    uint64_t used = (s->have_in_prov ? s->in_prov : s->in_est) + (s->have_out_prov ? s->out_prov : s->out_est);
    if (s->budget_tokens && used + in > s->budget_tokens) {
        char msg[160];
        snprintf(msg, sizeof msg, "token budget of %llu would be passed (%llu used, %llu more for this call)",
                 (unsigned long long)s->budget_tokens, (unsigned long long)used, (unsigned long long)in);
        session_end(s, COAX_OUTCOME_LIMIT, "tokens", msg);
        return false;
    }
    s->in_est += in;
    return true;
}

/* ---- the host agent ---------------------------------------------------------- */

bool session_host_ask(void *task, const char *request, size_t len)
{
    coax_session *s = task;
    s->host_request.len = 0;
    coax_buf_put(&s->host_request, request, len);
    coax_buf_putc(&s->host_request, '\0');
    if (s->host_request.oom) return false;
    s->host_request.len--; /* the NUL stays, outside the length */
    s->host_answer.len = 0;
    s->host_failed = false;
    s->host_in = s->host_out = -1;
    s->host = HOST_ASKED;
    return true;
}

int session_host_answer(void *task, lua_State *L)
{
    coax_session *s = task;
    s->host = HOST_IDLE;
    const char *a = s->host_answer.data ? s->host_answer.data : "";
    if (s->host_failed) {
        lua_pushnil(L);
        lua_pushlstring(L, a, s->host_answer.len);
        return 2;
    }
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, a, s->host_answer.len);
    lua_setfield(L, -2, "text");
    lua_pushliteral(L, "stop");
    lua_setfield(L, -2, "finish");
    if (s->host_in >= 0 || s->host_out >= 0) {
        lua_createtable(L, 0, 2);
        if (s->host_in >= 0) lua_pushinteger(L, (lua_Integer)s->host_in), lua_setfield(L, -2, "input_tokens");
        if (s->host_out >= 0) lua_pushinteger(L, (lua_Integer)s->host_out), lua_setfield(L, -2, "output_tokens");
        lua_setfield(L, -2, "usage");
    }
    return 1;
}

int session_check(void *task, lua_State *L)
{
    coax_session *s = task;
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    coax_arena *arena = lcoax_arena(L); /* owned by a userdata: a Lua error below cannot leak it */
    coax_extract_result r;
    coax_error err = {0};
    coax_extract_options xo = {0, s->max_class};
    coax_code rc = coax_extract(arena, s->schema, text, len, &s->engine->limits, &xo, &r, &err);
    if (rc == COAX_ENOMEM) return luaL_error(L, "out of memory");
    if (rc == COAX_OK && r.valid) {
        lua_createtable(L, 0, 2);
        lcoax_push_value(L, r.value, COAX_DEFAULT_MAX_DEPTH);
        lua_setfield(L, -2, "value");
    } else if (rc == COAX_OK) {
        char detail[256];
        summarize(detail, sizeof detail, &r.validation);
        push_failure(s, L, "validation", &r, true, detail, text, len);
    } else { /* no JSON, or past a limit: the model hears why, as for a parse failure */
        push_failure(s, L, "parse", &r, false, err.msg[0] ? err.msg : coax_strerror(rc), text, len);
    }
    lua_pushboolean(L, rc == COAX_OK && r.valid);
    lua_setfield(L, -2, "valid");
    return 1;
}

const char *coax_session_host_request(const coax_session *s, size_t *len)
{
    if (!s || s->state == SS_DONE || s->host != HOST_ASKED) return NULL;
    if (len) *len = s->host_request.len;
    return s->host_request.data;
}

static coax_code host_answer(coax_session *s, bool failed, const char *text, size_t len, coax_error *err)
{
    if (!s || (!text && len)) return coax_fail(err, COAX_EINVAL, 0, "coax_session_host_reply: NULL argument");
    if (s->state == SS_DONE || s->host != HOST_ASKED)
        return coax_fail(err, COAX_EINVAL, 0, "the session is not waiting for its host");
    s->host_answer.len = 0;
    coax_buf_put(&s->host_answer, text ? text : "", len);
    if (s->host_answer.oom) {
        s->host_answer.oom = false; /* the host may try again */
        return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    }
    s->host_failed = failed;
    s->host = HOST_ANSWERED;
    return COAX_OK;
}

coax_code coax_session_host_reply(coax_session *s, const char *text, size_t len, long long input_tokens,
                                  long long output_tokens, coax_error *err)
{
    coax_code rc = host_answer(s, false, text, len, err);
    if (rc == COAX_OK) {
        s->host_in = input_tokens;
        s->host_out = output_tokens;
    }
    return rc;
}

coax_code coax_session_host_fail(coax_session *s, const char *message, coax_error *err)
{
    if (!message) message = "the host failed";
    return host_answer(s, true, message, strlen(message), err);
}

static void step(coax_session *s)
{
    while (s->state != SS_DONE) {
        if (s->t_start > 0 && s->deadline_ms > 0 && coax_now_ms() - s->t_start >= s->deadline_ms) {
            if (s->state == SS_WAIT) { /* the call in flight is this attempt's end */
                s->agent_ms += coax_now_ms() - s->t_call;
                record_attempt(s, "limit", "the session's deadline passed", NULL, 0, NULL, false, NULL);
            }
            session_end(s, COAX_OUTCOME_LIMIT, "deadline", "the session's deadline passed");
            return;
        }
        switch (s->state) {
        case SS_FIRST: {
            s->t_start = coax_now_ms();
            s->attempt = 1;
            int rc = runtime_call(s, "first", NULL, NULL, 0); /* the recipe's prompt, then the first messages */
            if (rc != VM_OK) {
                script_failed(s, rc, "prompt");
                return;
            }
            s->state = SS_CALL;
            break;
        }
        case SS_CALL:
            if (!within_budget(s)) return;
            record_messages(s);
            if (s->state == SS_DONE) return;
            s->t_attempt = coax_now_ms();
            s->finish[0] = '\0';
            s->retries = -1;
            s->http_status = 0;
            s->tool_rounds.len = 0;
            event(s, "attempt_start", NULL);
            if (s->state == SS_DONE) return;
            run_agent(s, true);
            if (s->state == SS_WAIT) return;
            break;
        case SS_WAIT:
            if (s->sleeping && s->wake_at > coax_now_ms()) return;
            if (!s->sleeping && s->http && !http_ready(s->http)) return;
            if (!s->sleeping && s->proc && !proc_ready(s->proc)) return;
            if (s->host == HOST_ASKED) return;
            run_agent(s, false);
            if (s->state == SS_WAIT) return;
            break;
        default:
            return;
        }
    }
}

static int step_protected(lua_State *L)
{
    coax_session *s = lua_touserdata(L, 1);
    luaL_checkstack(L, 40, "the session's step");
    step(s);
    return 0;
}

void session_step(coax_session *s)
{
    coax_vm *vm = &s->engine->vm;
    int top = lua_gettop(vm->L);
    int rc = vm_protect(vm, step_protected, s, 0);
    vm->current = NULL;
    lua_settop(vm->L, top);
    if (rc != VM_OK && s->state != SS_DONE) script_failed(s, rc, "session");
}

/* When the session next needs the engine: its timer or its deadline
** (0: it can move now, or it has ended). */
double session_next_event(const coax_session *s)
{
    if (s->state == SS_DONE) return 0;
    double t;
    if (s->sleeping) t = s->wake_at;
    else if (s->http && !http_ready(s->http)) t = HUGE_VAL; /* whenever curl says */
    else if (s->proc && !proc_ready(s->proc)) t = proc_deadline(s->proc); /* or its output, its exit */
    else if (s->host == HOST_ASKED) t = HUGE_VAL;            /* whenever the host answers */
    else return 0;
    if (s->deadline_ms > 0 && s->t_start + s->deadline_ms < t) t = s->t_start + s->deadline_ms;
    return t;
}

/* ---- the report ------------------------------------------------------------ */

static void build_report(coax_session *s)
{
    coax_buf *b = &s->report;
    double wall = (s->t_end ? s->t_end : coax_now_ms()) - (s->t_start ? s->t_start : s->t_end);
    if (wall < 0) wall = 0;
    coax_buf_puts(b, "{\"outcome\":");
    put_str(b, coax_outcome_name(s->outcome));
    coax_buf_puts(b, ",\"value\":");
    if (s->value.len) coax_buf_put(b, s->value.data, s->value.len);
    else coax_buf_puts(b, "null");
    coax_buf_puts(b, ",\"error\":");
    if (s->error_code.len) {
        coax_buf_puts(b, "{\"code\":");
        coax_buf_put_json_string(b, s->error_code.data, s->error_code.len);
        coax_buf_puts(b, ",\"message\":");
        coax_buf_put_json_string(b, s->error_msg.data ? s->error_msg.data : "", s->error_msg.len);
        if (s->http_status) coax_buf_printf(b, ",\"http_status\":%d", s->http_status);
        coax_buf_putc(b, '}');
    } else {
        coax_buf_puts(b, "null");
    }
    char in_prov[32] = "null", out_prov[32] = "null";
    if (s->have_in_prov) snprintf(in_prov, sizeof in_prov, "%llu", (unsigned long long)s->in_prov);
    if (s->have_out_prov) snprintf(out_prov, sizeof out_prov, "%llu", (unsigned long long)s->out_prov);
    int attempts = s->attempts.len ? s->attempt : 0;
    coax_buf_printf(b,
                    ",\"metrics\":{\"attempts\":%d,\"wall_ms\":%.3f,\"engine_ms\":%.3f,\"agent_ms\":%.3f,"
                    "\"input_tokens_est\":%llu,\"output_tokens_est\":%llu,\"input_tokens\":%s,"
                    "\"output_tokens\":%s",
                    attempts, wall, wall - s->agent_ms > 0 ? wall - s->agent_ms : 0, s->agent_ms,
                    (unsigned long long)s->in_est, (unsigned long long)s->out_est, in_prov, out_prov);
    for (size_t i = 0; i < N_USAGE_DETAILS; i++) /* only what some provider said */
        if (s->have_detail_prov[i])
            coax_buf_printf(b, ",\"%s\":%llu", USAGE_DETAILS[i], (unsigned long long)s->detail_prov[i]);
    coax_buf_printf(b, ",\"repairs\":%zu,\"coercions\":%zu}", s->repairs, s->coercions);
    coax_buf_puts(b, ",\"attempts\":[");
    if (s->attempts.len) coax_buf_put(b, s->attempts.data, s->attempts.len);
    coax_buf_puts(b, "]}");
    coax_buf_reserve(b, 0);
    if (!b->oom) b->data[b->len] = '\0';
}

const char *coax_session_report(const coax_session *s, size_t *len)
{
    if (!s || s->state != SS_DONE) return NULL;
    if (!s->report.len) build_report((coax_session *)s);
    if (s->report.oom) return NULL;
    if (len) *len = s->report.len;
    return s->report.data;
}

const char *coax_session_value(const coax_session *s, size_t *len)
{
    if (!s || s->outcome != COAX_OUTCOME_OK || s->value.oom) return NULL;
    coax_buf *v = (coax_buf *)&s->value;
    coax_buf_reserve(v, 0);
    if (v->oom) return NULL;
    v->data[v->len] = '\0';
    if (len) *len = v->len;
    return v->data;
}

coax_outcome coax_session_outcome(const coax_session *s) { return s ? s->outcome : COAX_OUTCOME_INVALID; }

/* A buffer's text, NUL-terminated, or NULL when empty or out of memory. */
static const char *buf_text(const coax_buf *cb)
{
    coax_buf *b = (coax_buf *)cb;
    if (!b->len || b->oom) return NULL;
    coax_buf_reserve(b, 0);
    if (b->oom) return NULL;
    b->data[b->len] = '\0';
    return b->data;
}

const char *coax_session_error(const coax_session *s, const char **code)
{
    const char *msg = s && s->state == SS_DONE ? buf_text(&s->error_msg) : NULL;
    const char *c = s && s->state == SS_DONE ? buf_text(&s->error_code) : NULL;
    if (code) *code = c;
    return c ? (msg ? msg : "") : NULL;
}

/* ---- creating and freeing sessions ----------------------------------------- */

static coax_session *session_alloc(coax_engine *e)
{
    coax_session *s = coax_alloc_raw(e->alloc, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->engine = e;
    s->S_ref = s->co_ref = LUA_NOREF;
    s->retries = -1;
    coax_buf *bufs[] = {&s->messages, &s->attempts,     &s->value,       &s->error_code, &s->error_msg,
                        &s->report,   &s->host_request, &s->host_answer, &s->secrets, &s->tool_rounds};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) coax_buf_init(bufs[i], e->alloc);
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

void coax_session_free(coax_session *s)
{
    if (!s) return;
    coax_engine *e = s->engine;
    lua_State *L = e->vm.L;
    http_cancel(s->http);
    proc_cancel(s->proc);
    if (s->S_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->S_ref);
    if (s->co_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->co_ref);
    if (s->prev) s->prev->next = s->next;
    else e->sessions = s->next;
    if (s->next) s->next->prev = s->prev;
    coax_schema_free(s->schema);
    coax_arena_free(s->arena);
    if (s->secrets.data) memset(s->secrets.data, 0, s->secrets.len);
    coax_buf *bufs[] = {&s->messages, &s->attempts,     &s->value,       &s->error_code, &s->error_msg,
                        &s->report,   &s->host_request, &s->host_answer, &s->secrets, &s->tool_rounds};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) coax_buf_free(bufs[i]);
    coax_free_raw(e->alloc, s, sizeof *s);
}

/* Whether the engine has seen 'text' pass the meta-schema check. */
static bool schema_checked(const coax_engine *e, const char *text, size_t len)
{
    for (size_t i = 0; i < sizeof e->checked / sizeof *e->checked; i++)
        if (e->checked[i].len == len && e->checked[i].data && !memcmp(e->checked[i].data, text, len)) return true;
    return false;
}

static void remember_checked(coax_engine *e, const char *text, size_t len)
{
    coax_buf *slot = &e->checked[e->checked_next++ % (sizeof e->checked / sizeof *e->checked)];
    if (!slot->data) coax_buf_init(slot, e->alloc);
    slot->len = 0;
    coax_buf_put(slot, text, len);
    if (slot->oom) coax_buf_free(slot); /* only a missed shortcut */
}

/* Compiles the schema 'doc' (whose text is 'text') into s->schema. */
static coax_code compile_schema(coax_session *s, const coax_value *doc, const char *text, size_t len, coax_error *err)
{
    coax_engine *e = s->engine;
    coax_schema_options lean = {0};
    lean.flags = COAX_SCHEMA_NO_META;
    if (schema_checked(e, text, len)) return coax_schema_compile(doc, &lean, e->alloc, &s->schema, err);
    /* The meta-schema check keeps its working memory in the compiled schema
    ** (about 100 KB): check with a compile that is freed at once, then keep
    ** one without the check, so a waiting session stays small. */
    coax_code rc = coax_schema_compile(doc, NULL, e->alloc, &s->schema, err);
    if (rc) return rc;
    coax_schema_free(s->schema);
    s->schema = NULL;
    rc = coax_schema_compile(doc, &lean, e->alloc, &s->schema, err);
    if (rc == COAX_OK) remember_checked(e, text, len);
    return rc;
}

/* Loads the schema: a path (relative to the recipe's folder) or a table
** (at the top of the stack; popped). Returns a message, or NULL; '*limit'
** says whether a limit (depth, size) was reached rather than the schema
** being wrong, as every command reports a schema over a limit (exit 4). */
static const char *load_schema(coax_session *s, const char *dir, char *msg, size_t cap, bool *limit)
{
    *limit = false;
    lua_State *L = s->engine->vm.L;
    coax_value *doc = NULL;
    coax_error err = {0};
    coax_buf text; /* the schema's JSON text, which compile_schema remembers */
    coax_buf_init(&text, s->engine->alloc);
    char path[4096] = "";
    if (lua_type(L, -1) == LUA_TSTRING) {
        const char *refused = roots_confine(&s->engine->roots, dir, lua_tostring(L, -1), "schema", path, sizeof path,
                                            msg, cap);
        lua_pop(L, 1);
        if (refused) return refused;
        coax_code rc = roots_read(path, s->engine->limits.max_input, "schema", &text, msg, cap);
        if (rc) {
            coax_buf_free(&text);
            *limit = coax_exit_status(rc) == 4;
            return msg;
        }
        rc = coax_parse(s->arena, text.data ? text.data : "", text.len, &s->engine->limits, &doc, &err);
        if (rc) {
            coax_buf_free(&text);
            *limit = coax_exit_status(rc) == 4;
            snprintf(msg, cap, "schema %.300s%s: %s (line %u, column %u)", path,
                     rc == COAX_ESYNTAX || rc == COAX_EUTF8 ? " is not JSON" : "", err.msg, err.line, err.column);
            return msg;
        }
    } else {
        lua_pushcfunction(L, to_json); /* validate the table converts: protected */
        lua_insert(L, -2);
        lua_pushlightuserdata(L, &text);
        int rc = vm_call(&s->engine->vm, 2, 0);
        coax_code pc = rc == VM_OK && !text.oom ? coax_parse(s->arena, text.data, text.len, NULL, &doc, &err) : COAX_EINVAL;
        if (pc) {
            coax_buf_free(&text);
            snprintf(msg, cap, "recipe schema: %s", rc == VM_OK ? err.msg : vm_message(&s->engine->vm));
            return msg;
        }
    }
    coax_code rc = compile_schema(s, doc, text.data ? text.data : "", text.len, &err);
    coax_buf_free(&text);
    if (rc) {
        *limit = coax_exit_status(rc) == 4;
        /* A file's values are not quoted ("..., got string \"...\""): the
        ** location and the rule say what to fix, and a file a recipe names
        ** is not the recipe's to show. */
        const char *got = path[0] ? strstr(err.msg, ", got ") : NULL;
        const char *count = got ? strstr(got, " (") : NULL;
        snprintf(msg, cap, "%s%.300s: %.*s%s", path[0] ? "schema " : "recipe schema", path,
                 got ? (int)(got - err.msg) : (int)strlen(err.msg), err.msg, count ? count : "");
        return msg;
    }
    s->schema_doc = doc;
    return NULL;
}

typedef struct text_args {
    const char *text;
    size_t len;
} text_args;

static int push_text(lua_State *L)
{
    const text_args *a = lua_touserdata(L, 1);
    lua_pushlstring(L, a->text, a->len);
    return 1;
}

/* Builds the Lua session from the recipe chunk on top of the stack. */
static void prepare(coax_session *s, const char *dir, const coax_session_options *o)
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
    int rc = vm_call(vm, 0, 1); /* run the recipe file */
    if (rc != VM_OK) {
        if (rc == VM_LIMIT) script_failed(s, rc, "recipe");
        else session_end(s, COAX_OUTCOME_INVALID, "invalid_recipe", vm_error(vm));
        return;
    }
    int recipe = lua_gettop(L);
    /* host options: {max_attempts, agent = {...}} */
    lua_createtable(L, 0, 2);
    if (o && o->max_attempts > 0) {
        lua_pushinteger(L, o->max_attempts);
        lua_setfield(L, -2, "max_attempts");
    }
    if (o && o->agent_json) { /* parsed into the session's arena: a failed push below leaks nothing */
        coax_value *v;
        coax_error err;
        coax_code pc = coax_parse(s->arena, o->agent_json, strlen(o->agent_json), NULL, &v, &err);
        if (pc || v->type != COAX_OBJECT) {
            lua_settop(L, recipe - 1);
            session_end(s, pc == COAX_ENOMEM ? COAX_OUTCOME_LIMIT : COAX_OUTCOME_INVALID,
                        pc == COAX_ENOMEM ? "out_of_memory" : "invalid_agent_options",
                        pc == COAX_ENOMEM ? "out of memory" : "agent options must be a JSON object");
            return;
        }
        lcoax_push_value(L, v, COAX_DEFAULT_MAX_DEPTH);
        lua_setfield(L, -2, "agent");
    }
    if (o && o->command) {
        s->command = coax_arena_strdup(s->arena, o->command, strlen(o->command));
        if (!s->command) {
            lua_settop(L, recipe - 1);
            session_end(s, COAX_OUTCOME_LIMIT, "out_of_memory", "out of memory");
            return;
        }
    }
    lua_pushvalue(L, recipe);
    lua_pushlstring(L, o && o->input ? o->input : "", o && o->input ? o->input_len : 0);
    lua_rotate(L, -3, 2); /* recipe, input, host */
    vm_runtime(vm, "new_session");
    lua_insert(L, -4);
    rc = vm_call(vm, 3, 1);
    if (rc != VM_OK) {
        lua_settop(L, recipe - 1);
        if (rc == VM_LIMIT) script_failed(s, rc, "recipe");
        else session_end(s, COAX_OUTCOME_INVALID, "invalid_recipe", vm_error(vm));
        return;
    }
    int S = lua_gettop(L);
    rawfield(L, recipe, "schema");
    bool limit;
    const char *problem = load_schema(s, dir, msg, sizeof msg, &limit);
    if (problem) {
        lua_settop(L, recipe - 1);
        session_end(s, limit ? COAX_OUTCOME_LIMIT : COAX_OUTCOME_INVALID, limit ? "schema_limit" : "invalid_schema", problem);
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
            script_failed(s, pr, "recipe");
            return;
        }
        lua_setfield(L, S, "schema_text");
    }
    lua_pushcfunction(L, l_estimate);
    lua_setfield(L, S, "estimate");
    rawfield(L, S, "max_attempts");
    s->max_attempts = (int)lua_tointeger(L, -1);
    s->max_class = COAX_CLASS_INFERRED; /* recipe.lua checked the name */
    if (rawfield(L, S, "max_class") == LUA_TSTRING) coax_class_parse(lua_tostring(L, -1), &s->max_class);
    lua_pop(L, 1);
    rawfield(L, S, "budget");
    if (rawfield(L, -1, "tokens") == LUA_TNUMBER) s->budget_tokens = (uint64_t)lua_tointeger(L, -1);
    if (rawfield(L, -2, "deadline_ms") == LUA_TNUMBER) s->deadline_ms = (double)lua_tointeger(L, -1);
    lua_pushvalue(L, S);
    s->S_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_settop(L, recipe - 1);
    s->state = SS_FIRST;
}

typedef struct start_args {
    coax_session *s;
    const char *text, *name, *dir;
    size_t len;
    const coax_session_options *o;
} start_args;

static int start_protected(lua_State *L)
{
    const start_args *a = lua_touserdata(L, 1);
    coax_vm *vm = &a->s->engine->vm;
    luaL_checkstack(L, 40, "the session's start");
    int rc = vm_load_sandboxed(vm, a->text, a->len, a->name);
    if (rc == VM_LIMIT) script_failed(a->s, rc, "recipe");
    else if (rc != VM_OK) session_end(a->s, COAX_OUTCOME_INVALID, "invalid_recipe", vm_error(vm));
    else prepare(a->s, a->dir, a->o);
    return 0;
}

static coax_code start(coax_engine *e, const char *text, size_t len, const char *name, const char *dir,
                       const coax_session_options *o, coax_session **out, coax_error *err)
{
    coax_session *s = session_alloc(e);
    if (!s) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    int top = lua_gettop(e->vm.L);
    start_args a = {s, text, name, dir, len, o};
    int rc = vm_protect(&e->vm, start_protected, &a, 0);
    lua_settop(e->vm.L, top);
    if (rc != VM_OK && s->state != SS_DONE) script_failed(s, rc, "recipe");
    *out = s;
    return COAX_OK;
}

coax_code coax_session_from_text(coax_engine *e, const char *text, size_t len, const char *name,
                                 const coax_session_options *o, coax_session **out, coax_error *err)
{
    if (!e || !out || (!text && len)) return coax_fail(err, COAX_EINVAL, 0, "coax_session_from_text: NULL argument");
    return start(e, text ? text : "", len, name ? name : "=recipe", NULL, o, out, err);
}

/* Appends 'text' as a Lua long string whose brackets it cannot close. */
static void put_long_string(coax_buf *b, const char *text, size_t len)
{
    int level = 0;
    for (;; level++) { /* the first level whose "]==]" is not in the text */
        bool found = false;
        for (size_t i = 0; i + (size_t)level + 1 < len && !found; i++) {
            if (text[i] != ']') continue;
            size_t k = 1;
            while (k <= (size_t)level && text[i + k] == '=') k++;
            found = k == (size_t)level + 1 && text[i + k] == ']';
        }
        if (!found) break;
    }
    coax_buf_putc(b, '[');
    for (int i = 0; i < level; i++) coax_buf_putc(b, '=');
    coax_buf_puts(b, "[\n"); /* a first newline is dropped by Lua: the text keeps its own */
    coax_buf_put(b, text, len);
    coax_buf_putc(b, ']');
    for (int i = 0; i < level; i++) coax_buf_putc(b, '=');
    coax_buf_putc(b, ']');
}

coax_code coax_session_from_schema(coax_engine *e, const char *schema, size_t schema_len, const char *prompt,
                                   const coax_session_options *o, coax_session **out, coax_error *err)
{
    if (!e || !out || !prompt || (!schema && schema_len))
        return coax_fail(err, COAX_EINVAL, 0, "coax_session_from_schema: NULL argument");
    /* A recipe of two fields; the schema's JSON is decoded by coax itself,
    ** so key order, integers and [] vs {} survive. */
    coax_buf b;
    coax_buf_init(&b, e->alloc);
    coax_buf_puts(&b, "local json = require('coax').json\nlocal schema, err = json.decode(");
    put_long_string(&b, schema ? schema : "", schema_len);
    coax_buf_puts(&b, ")\nif schema == nil then error('the schema is not JSON: ' .. err, 0) end\n"
                      "return { schema = schema, prompt = ");
    put_long_string(&b, prompt, strlen(prompt));
    coax_buf_puts(&b, " }\n");
    if (b.oom) {
        coax_buf_free(&b);
        return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    }
    coax_code rc = start(e, b.data, b.len, "=schema", NULL, o, out, err);
    coax_buf_free(&b);
    return rc;
}

coax_code coax_session_from_file(coax_engine *e, const char *path, const coax_session_options *o,
                                 coax_session **out, coax_error *err)
{
    if (!e || !path || !out) return coax_fail(err, COAX_EINVAL, 0, "coax_session_from_file: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f) return coax_fail(err, COAX_EIO, 0, "cannot open recipe %s: %s", path, strerror(errno));
    coax_buf b;
    coax_buf_init(&b, e->alloc);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) coax_buf_put(&b, chunk, n);
    bool bad = ferror(f);
    fclose(f);
    if (bad || b.oom) {
        coax_buf_free(&b);
        return coax_fail(err, bad ? COAX_EIO : COAX_ENOMEM, 0, "cannot read recipe %s", path);
    }
    char name[512], dir[4096];
    snprintf(name, sizeof name, "@%s", path);
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    coax_code rc = start(e, b.data ? b.data : "", b.len, name, dir, o, out, err);
    coax_buf_free(&b);
    return rc;
}
