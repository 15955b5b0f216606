/*
** lend_stream.c: a streamed reply as it arrives (README "Streaming").
**
**   coax.stream_sink() -> on_text   made by coax.runtime.call for each
**        attempt whose reply is streamed (request.on_text); the agent calls
**        on_text(delta) with each piece of the reply's text, on_text(nil)
**        when the reply starts over (a transport retry).
**   stream_take                     what the sink does with a piece, which
**        the host's pieces get too (coax_session_host_piece, host.c).
**
** The sink counts the bytes, feeds this attempt's stream_reader (when the
** recipe wants partials or stop_early) and, with stop_early, builds the
** partial now and then to see whether the reply is doomed: then it cancels
** the request at once and raises, and the attempt fails as an invalid one
** whose errors are the partial's, whatever the agent does next.
**
** Partials are told after the agent's coroutine yielded (the step's end),
** never from inside it: at most one per session per wake of the engine's
** poll and one every every_ms, built only when the reader says something
** changed. A partial costs what changed plus the value shown, so output and
** CPU stay linear in the reply; nothing here waits.
*/
#include "session/lend.h"
#include "session/session.h"
#include "extract/coerce.h"
#include "json/pointer.h"
#include "io/http.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>

void stream_configure(coax_session *s, lua_State *L, int S)
{
    session_stream *st = &s->stream;
    st->opts.schema = s->schema;
    st->opts.limits = &s->engine->limits;
    if (session_raw_field(L, S, "stream") != LUA_TTABLE) { /* runtime.lua always makes one */
        lua_pop(L, 1);
        return;
    }
    int t = lua_gettop(L);
    const char *flags[] = {"on", "partials", "stop_early"};
    bool *to[] = {&st->on, &st->partials, &st->stop_early};
    for (size_t i = 0; i < 3; i++) {
        session_raw_field(L, t, flags[i]);
        *to[i] = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    st->every_ms = session_raw_field(L, t, "every_ms") == LUA_TNUMBER ? lua_tonumber(L, -1) : 50;
    lua_pop(L, 1);
    if (session_raw_field(L, t, "atomic") == LUA_TTABLE) { /* recipe.lua checked: a list of strings */
        size_t n = lua_rawlen(L, -1);
        /* The pointers are copied into the session, past the Lua memory cap:
        ** one 16 MiB pointer listed 60 times was 1 GB of the host's memory.
        ** Together they may take the cap, as an attempt's messages may. */
        size_t room = s->engine->vm.mem_cap;
        const char **atomic = n ? coax_arena_alloc(s->arena, n * sizeof *atomic) : NULL;
        for (size_t i = 0; atomic && i < n; i++) {
            size_t len = 0;
            const char *p = lua_rawgeti(L, -1, (lua_Integer)i + 1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : "";
            if (len + sizeof *atomic > room) vm_over_memory_cap(L, "stream.atomic is", "");
            room -= len + sizeof *atomic;
            atomic[i] = coax_arena_strdup(s->arena, p, len);
            if (!atomic[i]) atomic = NULL;
            lua_pop(L, 1);
        }
        if (n && !atomic) luaL_error(L, "out of memory");
        st->opts.atomic = atomic;
        st->opts.natomic = n;
    }
    lua_settop(L, t - 1);
}

/* Forgets the reply received so far (a new attempt, or the reply started over). */
static void forget_reply(session_stream *st)
{
    stream_free(st->reader);
    st->reader = NULL;
    st->received = 0;
    st->text.len = st->hold.len = 0;
    st->text.oom = st->hold.oom = false;
    st->built = st->lost = st->promised = false;
    st->built_at = 0;
}

void stream_attempt_start(coax_session *s)
{
    session_stream *st = &s->stream;
    forget_reply(st);
    st->fed = st->stopped = st->has_promise = st->told_promise = false;
    st->told_at = st->told_cost = 0;
    if (st->arena) coax_arena_reset(st->arena);
    if (st->kept) coax_arena_reset(st->kept);
}

bool stream_stopped_early(const coax_session *s) { return s->stream.stopped; }

void stream_session_free(coax_session *s)
{
    stream_free(s->stream.reader);
    coax_arena_free(s->stream.arena); /* its text is one of the session's buffers (create.c) */
    coax_arena_free(s->stream.kept);
    coax_arena_free(s->stream.opts.arena); /* after the reader that used it */
}

/* A reader past a limit: no partials until the reply starts over (the
** whole reply's extraction names the limit). */
static void drop_reader(session_stream *st)
{
    stream_free(st->reader);
    st->reader = NULL;
    st->built = false;
    st->lost = true;
}

/* Builds the partial so far into the stream's arena (the last one goes). */
static coax_code build(coax_session *s, coax_error *err)
{
    session_stream *st = &s->stream;
    if (!st->arena && !(st->arena = coax_arena_new(s->engine->alloc))) return COAX_ENOMEM;
    coax_arena_reset(st->arena);
    st->built = false;
    coax_code rc = stream_partial_get(st->reader, st->arena, &st->part, err);
    if (rc) {
        memset(&st->part, 0, sizeof st->part); /* nothing stale */
        return rc;
    }
    st->built = true;
    st->built_at = stream_bytes(st->reader);
    return COAX_OK;
}

/* ---- the sink --------------------------------------------------------------- */

/* Stops a doomed reply: its request cancelled at once, the attempt failed
** when the agent's call ends (machine.c), whatever the agent does next. */
static void stop(coax_session *s)
{
    http_cancel(s->http);
    s->http = NULL;
    s->stream.stopped = true;
}

void stream_stop_reason(const coax_session *s, char *why, size_t cap)
{
    char errors[256] = "the reply cannot succeed";
    if (s->stream.part.errors.nerrors) session_summarize(errors, sizeof errors, &s->stream.part.errors);
    snprintf(why, cap, "the reply was stopped early (stream.stop_early): %s", errors);
}

/* Whether the reply is doomed, looked at as it grows: when the reader says
** something changed and the bytes have doubled since the last partial was
** built (or none was), so that the partials built for it cost a constant
** times the reply. */
static bool doomed(coax_session *s)
{
    session_stream *st = &s->stream;
    size_t n = stream_bytes(st->reader);
    if (stream_changed(st->reader) && (!st->built_at || n >= 2 * st->built_at)) {
        coax_error err = {0};
        if (build(s, &err) != COAX_OK) return false; /* no memory for it: the reply goes on, extracted whole */
    }
    return st->built && st->part.doomed;
}

/* Feeds this reply's reader, made on first use; COAX_ENOMEM when memory
** runs out, else COAX_OK (a reader past a limit is dropped). */
static coax_code feed(coax_session *s, const char *text, size_t len)
{
    session_stream *st = &s->stream;
    coax_error err = {0};
    if (!st->reader && !st->opts.arena && !(st->opts.arena = coax_arena_new(s->engine->alloc)))
        return COAX_ENOMEM; /* the readers' arena, one reply after another */
    coax_code rc = st->reader ? COAX_OK : stream_new(s->engine->alloc, &st->opts, &st->reader, &err);
    if (rc == COAX_OK) rc = stream_feed(st->reader, text, len, &err);
    if (rc == COAX_ENOMEM) return rc;
    if (rc) drop_reader(st);
    return COAX_OK;
}

/* The complete parts of the reader's partial now, copied into 'a' (a
** partial shares the reader's memory only until the next call on it):
** what was told, and what settled since (parts only ever settle). */
static bool snapshot(stream_reader *r, coax_arena *a, stream_partial *out)
{
    coax_error err = {0};
    memset(out, 0, sizeof *out);
    if (stream_partial_get(r, a, out, &err) != COAX_OK) return false;
    const char **complete = coax_arena_alloc(a, (out->ncomplete + 1) * sizeof *complete);
    const coax_value *value = out->value ? coax_value_copy(a, out->value) : NULL;
    if (!complete || (out->value && !value)) return false;
    for (size_t i = 0; i < out->ncomplete; i++)
        if (!(complete[i] = coax_arena_strdup(a, out->complete[i], strlen(out->complete[i])))) return false;
    if (out->in_progress && !(out->in_progress = coax_arena_strdup(a, out->in_progress, strlen(out->in_progress))))
        return false; /* the reader's, like the list */
    out->complete = complete;
    out->value = value;
    out->errors = (coax_validation){0};
    return true;
}

/* The reply starts over after a partial was told: the host showed its
** complete parts, which the new reply need not repeat. They stay promises
** the final value must keep, and this attempt tells no partial again, as
** the new reply's could contradict them. Nothing to keep when none was told. */
static void keep_promise(coax_session *s)
{
    session_stream *st = &s->stream;
    if (!st->promised || !st->reader || st->told_promise) return;
    if (!st->kept && !(st->kept = coax_arena_new(s->engine->alloc))) return;
    coax_arena_reset(st->kept);
    st->has_promise = snapshot(st->reader, st->kept, &st->promise); /* without memory: a promise not checked */
    st->told_promise = true;
}

/* The secret that decides position i of t[0..n) as the session's
** redaction of the whole reply would (lend_push_redacted: the first
** secret, in order, that matches there): its length, 0 when none matches,
** or -1 when one that comes first could still match once more text came. */
static long secret_at(const coax_buf *secrets, const char *t, size_t i, size_t n)
{
    for (const char *v = secrets->data; v < secrets->data + secrets->len; v += strlen(v) + 1) {
        size_t vl = strlen(v);
        if (vl < HTTP_SECRET_MIN) continue; /* never sent (lend_http.c) */
        if (vl <= n - i) {
            if (!memcmp(t + i, v, vl)) return (long)vl;
        } else if (!memcmp(t + i, v, n - i)) {
            return -1;
        }
    }
    return 0;
}

/* The piece of reply text the reader and the record get: the text so far
** with each secret replaced by "[redacted]", exactly as the whole reply
** will be, the tail that may still begin a secret held back until later
** pieces decide it (a key split across two events is never shown). Points
** '*out' at the text to feed; false when out of memory. */
static bool redact_piece(coax_session *s, const char *text, size_t len, const char **out, size_t *outlen)
{
    session_stream *st = &s->stream;
    if (!s->secrets.len) {
        *out = text;
        *outlen = len;
        return true;
    }
    coax_buf_put(&st->hold, text, len);
    st->clean.len = 0;
    const char *t = st->hold.data;
    size_t n = st->hold.len, i = 0;
    while (i < n) {
        long hit = secret_at(&s->secrets, t, i, n);
        if (hit < 0) break; /* undecided */
        if (hit) coax_buf_puts(&st->clean, HTTP_REDACTED);
        else coax_buf_putc(&st->clean, t[i]);
        i += hit ? (size_t)hit : 1;
    }
    memmove(st->hold.data, t + i, n - i);
    st->hold.len = n - i;
    *out = st->clean.data ? st->clean.data : "";
    *outlen = st->clean.len;
    return !st->hold.oom && !st->clean.oom;
}

/* A piece the reader missed (memory ran out): no partials until the reply
** starts over, and those told stay promises the final value must keep. */
static coax_code lose_piece(coax_session *s)
{
    session_stream *st = &s->stream;
    keep_promise(s);
    drop_reader(st);
    return COAX_ENOMEM;
}

coax_code stream_take(coax_session *s, const char *text, size_t len)
{
    session_stream *st = &s->stream;
    if (st->stopped) return COAX_ECANCELED;
    st->fed = true;
    if (!text) { /* the reply starts over */
        keep_promise(s);
        forget_reply(st);
        return COAX_OK;
    }
    st->received += len;
    if (!redact_piece(s, text, len, &text, &len)) return lose_piece(s);
    if (st->stop_early && st->text.len + len <= s->engine->limits.max_input) {
        coax_buf_put(&st->text, text, len);
        if (st->text.oom) return lose_piece(s);
    }
    if ((!st->partials && !st->stop_early) || st->lost) return COAX_OK;
    if (feed(s, text, len) != COAX_OK) return lose_piece(s);
    if (st->stop_early && st->reader && doomed(s)) { /* no later text can save it: stop paying for it */
        stop(s);
        return COAX_ECANCELED;
    }
    return COAX_OK;
}

/* on_text(delta | nil): upvalues 2 the session, 3 its serial, 4 the attempt. */
static int sink(lua_State *L)
{
    coax_session *s = lend_session(L);
    if (!s || s != lua_touserdata(L, lua_upvalueindex(2)) ||
        s->serial != (uint64_t)lua_tointeger(L, lua_upvalueindex(3)) ||
        s->attempt != lua_tointeger(L, lua_upvalueindex(4)) || L != s->co || s->state == SS_DONE)
        return luaL_error(L, "request.on_text: only the agent's call of its own attempt can feed the reply "
                             "(not a coroutine of its own, not after the call)");
    if (!lua_isnoneornil(L, 1)) luaL_checktype(L, 1, LUA_TSTRING);
    size_t len = 0;
    const char *text = lua_tolstring(L, 1, &len);
    coax_code rc = stream_take(s, text, len);
    if (rc == COAX_ENOMEM) return luaL_error(L, "out of memory");
    if (rc == COAX_ECANCELED) {
        char why[320];
        stream_stop_reason(s, why, sizeof why);
        return luaL_error(L, "coax: %s", why);
    }
    return 0;
}

/* coax.stream_sink() -> on_text, for this attempt's agent call only. */
int lend_stream_sink(lua_State *L)
{
    coax_session *s = lend_session(L);
    if (!s || L != s->co) return luaL_error(L, "coax.stream_sink: only an agent's call has a reply to stream");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushlightuserdata(L, s);
    lua_pushinteger(L, (lua_Integer)s->serial);
    lua_pushinteger(L, s->attempt);
    lua_pushcclosure(L, sink, 4);
    return 1;
}

/* ---- partials ------------------------------------------------------------- */

static coax_value text_value(const char *t) { return (coax_value){COAX_STRING, 0, (uint32_t)strlen(t), {.text = t}}; }

static coax_member member(const char *key, coax_value v) { return (coax_member){key, (uint32_t)strlen(key), v}; }

/* The partial event's data in the stream's arena: {"value", "complete",
** "in_progress", "attempt"} and "errors" when any; NULL without memory. */
static const coax_value *event_data(coax_session *s, const stream_partial *p)
{
    coax_arena *a = s->stream.arena;
    size_t ne = p->errors.nerrors;
    char num[24];
    snprintf(num, sizeof num, "%d", s->attempt);
    coax_member *m = coax_arena_alloc(a, 5 * sizeof *m);
    coax_value *complete = coax_arena_alloc(a, (p->ncomplete + 1) * sizeof *complete);
    coax_value *errors = coax_arena_alloc(a, (ne + 1) * sizeof *errors);
    coax_member *fields = coax_arena_alloc(a, (3 * ne + 1) * sizeof *fields);
    coax_value *data = coax_arena_alloc(a, sizeof *data);
    char *attempt = coax_arena_strdup(a, num, strlen(num));
    if (!m || !complete || !errors || !fields || !data || !attempt) return NULL;
    const coax_value null = {COAX_NULL, 0, 0, {.text = NULL}};
    for (size_t i = 0; i < p->ncomplete; i++) complete[i] = text_value(p->complete[i]);
    for (size_t i = 0; i < ne; i++) {
        const coax_schema_error *e = &p->errors.errors[i];
        fields[3 * i] = member("instanceLocation", text_value(e->instance_location));
        fields[3 * i + 1] = member("keywordLocation", text_value(e->keyword_location));
        fields[3 * i + 2] = member("error", text_value(e->message));
        errors[i] = (coax_value){COAX_OBJECT, 0, 3, {.members = fields + 3 * i}};
    }
    m[0] = member("value", p->value ? *p->value : null);
    m[1] = member("complete", (coax_value){COAX_ARRAY, 0, (uint32_t)p->ncomplete, {.items = complete}});
    m[2] = member("in_progress", p->in_progress ? text_value(p->in_progress) : null);
    m[3] = member("attempt", (coax_value){COAX_NUMBER, COAX_VF_INT_TEXT, (uint32_t)strlen(attempt), {.text = attempt}});
    m[4] = member("errors", (coax_value){COAX_ARRAY, 0, (uint32_t)ne, {.items = errors}});
    *data = (coax_value){COAX_OBJECT, 0, ne ? 5 : 4, {.members = m}};
    return data;
}

/* Whether a partial waits to be told: the reader has news, or one was built
** for stop_early and not told; never twice in one wake of the poll. */
static bool pending(const coax_session *s)
{
    const session_stream *st = &s->stream;
    return st->partials && st->reader && !st->stopped && !st->told_promise && st->told_wake != s->engine->wakes &&
           (st->built || stream_changed(st->reader));
}

/* A partial's cost grows with the value shown, so partials told every
** every_ms would cost the square of a long reply: the next one also waits
** PARTIAL_SHARE times what the last one cost, so that telling partials
** takes at most about a fifth of the time the reply takes to arrive. The
** cost is the thread's CPU time: the monotonic clock also counted a wait
** for a core on a loaded machine (a 10 ms one made the next partial wait
** 40 ms more), so which pieces of a reply got a partial of their own
** changed with the machine's load, not with the work. */
#define PARTIAL_SHARE 4

static double next_due(const session_stream *st)
{
    double wait = PARTIAL_SHARE * st->told_cost;
    return st->told_at + (wait > st->every_ms ? wait : st->every_ms);
}

double stream_due(const coax_session *s)
{
    return pending(s) ? next_due(&s->stream) : HUGE_VAL;
}

void stream_tell_partial(coax_session *s)
{
    session_stream *st = &s->stream;
    double now = coax_now_ms();
    if (!pending(s) || now < next_due(st)) return;
    uint64_t cpu = coax_cpu_ns();
    coax_error err = {0};
    /* a partial built for stop_early is told as it is unless text came since
    ** (it shares the reader's memory only until the next feed) */
    bool stale = stream_changed(st->reader) || st->built_at != stream_bytes(st->reader);
    coax_code rc = stale ? build(s, &err) : COAX_OK;
    if (rc && rc != COAX_ENOMEM) { /* the reader gave up: no partials until the reply starts over */
        drop_reader(st);
        return;
    }
    if (rc == COAX_OK && st->stop_early && st->part.doomed) { /* the session's next step fails the attempt */
        stop(s);
        return;
    }
    const coax_value *data = rc == COAX_OK ? event_data(s, &st->part) : NULL;
    if (!data) {
        session_end(s, COAX_FAILURE_OUT_OF_MEMORY, "out of memory");
        return;
    }
    st->built = false;
    st->told_at = now;
    st->told_wake = s->engine->wakes;
    st->promised = true;
    session_event_value(s, "partial", data);
    st->told_cost = (double)(coax_cpu_ns() - cpu) / 1e6;
}

/* Whether 'v' holds each complete part of partial 'p' as 'p' showed it;
** false with 'why' naming the first that differs. Wide objects' members are
** found through indexes built once (the coercion's): a scan for each part
** was quadratic (32,000 keys shown complete: 4.0 s). Out of memory, each
** is found by a scan. */
static bool kept(const stream_partial *p, const coax_value *v, const coax_allocator *alloc, const char *cause,
                 char *why, size_t cap)
{
    coerce_ctx c = {.arena = coax_arena_new(alloc)};
    size_t longest = 0;
    for (size_t i = 0; i < p->ncomplete; i++) {
        size_t len = strlen(p->complete[i]);
        if (len > longest) longest = len;
    }
    char *tok = c.arena ? coax_arena_alloc(c.arena, longest + 1) : NULL; /* a token's escapes undone */
    coax_member_lookup lookup = tok ? coerce_indexed_member : NULL;
    bool all = true;
    for (size_t i = 0; all && i < p->ncomplete; i++) {
        const char *ptr = p->complete[i];
        size_t len = strlen(ptr);
        const coax_value *told = NULL, *now = NULL;
        if (coax_pointer_walk(p->value, ptr, len, lookup, &c, tok, &told) != COAX_OK) continue; /* cannot happen */
        if (coax_pointer_walk(v, ptr, len, lookup, &c, tok, &now) == COAX_OK && coax_value_equal(told, now, alloc) != 0)
            continue; /* equal, or no memory to tell: not a contradiction we can show */
        if (*ptr)
            snprintf(why, cap, "%s: the value taken differs at '%s' from the part shown as complete while it "
                               "streamed; send exactly one JSON value", cause, ptr);
        else
            snprintf(why, cap, "%s: the value taken is not the one shown as complete while it streamed; send "
                               "exactly one JSON value", cause);
        all = false;
    }
    if (c.arena) coax_arena_free(c.arena);
    return all;
}

const coax_extract_result *stream_reply_extract(coax_session *s, const char *text, size_t len,
                                                const coax_extract_options *xo)
{
    session_stream *st = &s->stream;
    coax_extract_options reader; /* what the reader extracts the candidate with */
    coax_extract_options_default(&reader);
    /* A finished reply only excuses more (a number an open reply ends on):
    ** the reader's valid value is its value too, an invalid one is redone. */
    bool finished = (xo->flags & COAX_EXTRACT_FINISHED) != 0;
    if (!st->reader || (xo->flags & ~COAX_EXTRACT_FINISHED) != reader.flags || xo->max_class != reader.max_class)
        return NULL;
    const coax_extract_result *r = stream_root_extract(st->reader, text, len, st->promised);
    return r && finished && !r->valid ? NULL : r;
}

bool stream_kept_promises(coax_session *s, const coax_value *v, char *why, size_t cap)
{
    session_stream *st = &s->stream;
    const coax_allocator *alloc = s->engine->alloc;
    if (st->has_promise && !kept(&st->promise, v, alloc, "the reply started over while it streamed", why, cap))
        return false;
    if (!st->promised || !st->reader) return true;
    stream_partial now;
    if (!st->arena && !(st->arena = coax_arena_new(alloc))) return true; /* no memory to tell */
    coax_arena_reset(st->arena);
    st->built = false;
    if (!snapshot(st->reader, st->arena, &now)) return true;
    return kept(&now, v, alloc, "the reply holds more than one JSON value, or a key twice", why, cap);
}
