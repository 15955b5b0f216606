/*
** record.c: what a session keeps of each attempt (its messages, reply,
** value, errors, log, usage, finish, tool rounds and feedback) and the
** report made of it when the session ends, with the accessors that read it.
*/
#include "session/session.h"

#include <lauxlib.h>
#include <limits.h>
#include <stdio.h>

static void put_str(coax_buf *b, const char *s) { coax_buf_put_json_string(b, s, strlen(s)); }

/* Whether the values at a and b hold the same data: the same value, or
** tables with the same metatable whose keys and values are alike,
** recursively. Raw reads: no metamethod of a script's runs. Tables nested
** deeper than 'depth' (one that holds itself) count as unlike: the message
** is recorded again rather than compared forever. */
static bool same_data(lua_State *L, int a, int b, int depth)
{
    if (lua_rawequal(L, a, b)) return true;
    if (lua_type(L, a) != LUA_TTABLE || lua_type(L, b) != LUA_TTABLE || depth == 0) return false;
    luaL_checkstack(L, 6, "comparing messages");
    a = lua_absindex(L, a);
    b = lua_absindex(L, b);
    int ma = lua_getmetatable(L, a), mb = lua_getmetatable(L, b);
    bool alike = ma == mb && (!ma || lua_rawequal(L, -1, -2));
    lua_pop(L, ma + mb);
    for (lua_pushnil(L); alike && lua_next(L, a); lua_pop(L, 1)) { /* each value of a as b's */
        lua_pushvalue(L, -2);
        lua_rawget(L, b);
        alike = same_data(L, -2, -1, depth - 1);
        lua_pop(L, 1);
    }
    if (!alike) {
        lua_pop(L, 1); /* the key lua_next did not take */
        return false;
    }
    for (lua_pushnil(L); lua_next(L, b); lua_pop(L, 1)) { /* and no key of b's that a lacks */
        lua_pushvalue(L, -2);
        if (lua_rawget(L, a) == LUA_TNIL) {
            lua_pop(L, 3);
            return false;
        }
        lua_pop(L, 1);
    }
    return true;
}

enum { SAID_REPLY, SAID_FEEDBACK };

/* Writes the JSON string of 'text' into the report, and keeps the text and
** where its JSON is (s->said) for the next request's messages. */
static void put_said(coax_session *s, int which, const char *text, size_t len)
{
    struct session_said *w = &s->said[which];
    coax_buf *b = &s->report;
    size_t at = b->len;
    coax_buf_put_json_string(b, text, len);
    w->text.len = 0;
    w->text.oom = false;
    coax_buf_put(&w->text, text, len);
    w->at = at;
    w->len = !len || w->text.oom || b->oom ? 0 : b->len - at; /* 0: nothing kept */
}

/* A session's messages may take this many times the Lua memory cap (an
** attempt's the cap: record_messages). */
#define MESSAGES_CAPS 4
#define TEXT_OF_(x) #x
#define TEXT_OF(x) TEXT_OF_(x) /* a constant's digits, for a message */
#define MESSAGES_OVER ": an attempt's may take it, a session's " TEXT_OF(MESSAGES_CAPS) " times it"
/* The report, in the host's memory, may take this many times the cap
** before another attempt starts: each attempt records its reply and its
** tool rounds too, so a recipe's agent that returned 20 MB of text (or of
** tool rounds) for each of max_attempts attempts grew the host by that
** much an attempt, without end (16 attempts: 335 MB of report, 460 MB of
** host), while the Lua state stayed within its cap. */
#define REPORT_CAPS 4

/* k times the Lua memory cap, or SIZE_MAX past it. */
static size_t caps(const coax_vm *vm, size_t k) { return vm->mem_cap > SIZE_MAX / k ? SIZE_MAX : k * vm->mem_cap; }

/* Protected (S at 1, the session at 2): how many messages at the start of
** S.messages are S.previous's, the part of the conversation the attempt
** kept, and the JSON of the rest, which the report records: each message
** once. Compared here rather than in Lua, where the sandbox's next and
** rawget made comparing a conversation a third of a retry's Lua. */
static int record_messages(lua_State *L)
{
    coax_session *s = lua_touserdata(L, 2);
    lua_settop(L, 2);
    session_raw_field(L, 1, "messages"); /* 3 */
    session_raw_field(L, 1, "previous"); /* 4 */
    lua_pushliteral(L, "previous");
    lua_pushnil(L);
    lua_rawset(L, 1); /* compared once: the garbage collector may have it */
    lua_Integer n = lua_istable(L, 3) ? (lua_Integer)lua_rawlen(L, 3) : 0, kept = 0;
    while (kept < n && lua_istable(L, 4)) {
        lua_rawgeti(L, 3, kept + 1);
        bool same = lua_rawgeti(L, 4, kept + 1) != LUA_TNIL && same_data(L, -2, -1, COAX_DEFAULT_MAX_DEPTH);
        lua_pop(L, 2);
        if (!same) break;
        kept++;
    }
    s->messages_kept = kept > INT_MAX ? INT_MAX : (int)kept;
    /* The agent is handed a plain copy of the messages, made here, and the
    ** report records that copy: agents read a message through its metatable
    ** (__index), the report raw, so a strategy's message sent one text and
    ** recorded {}; and a script that kept the list it returned changed it
    ** after it was recorded (from on_event "attempt_start"), and the agent
    ** sent what the report never saw. The kept ones are the last copies. */
    lcoax_push_plain_list(L, 3, 4, kept, n, COAX_DEFAULT_MAX_DEPTH);
    lua_replace(L, 3);
    lua_pushliteral(L, "messages");
    lua_pushvalue(L, 3);
    lua_rawset(L, 1);
    coax_buf *b = &s->messages;
    b->len = 0;
    coax_escaped said[2];
    size_t nsaid = 0;
    for (size_t i = 0; i < 2; i++) {
        const struct session_said *w = &s->said[i];
        if (w->len && !s->reported && w->at + w->len <= s->report.len)
            said[nsaid++] = (coax_escaped){w->text.data, s->report.data + w->at, w->text.len, w->len};
    }
    coax_vm *vm = &s->engine->vm;
    if (s->report.len > caps(vm, REPORT_CAPS))
        return vm_over_memory_cap(L, "the session's report is",
                                  ": it may take " TEXT_OF(REPORT_CAPS) " times it before an attempt");
    coax_buf_putc(b, '[');
    /* What a script hands over is copied here, in C, past the Lua memory cap:
    ** one 8 MiB string in 200 messages was 1.6 GB. An attempt's messages may
    ** take the cap, a session's MESSAGES_CAPS caps (the report keeps them). */
    size_t session_cap = caps(vm, MESSAGES_CAPS);
    for (lua_Integer i = kept + 1; i <= n; i++) {
        if (i > kept + 1) coax_buf_putc(b, ',');
        lua_rawgeti(L, 3, i);
        session_write_json(s, L, -1, b, said, nsaid);
        lua_pop(L, 1);
        if (b->len > vm->mem_cap || b->len > session_cap - s->messages_total)
            return vm_over_memory_cap(L, "the messages are", MESSAGES_OVER);
    }
    coax_buf_putc(b, ']');
    if (b->oom) return luaL_error(L, "out of memory");
    s->messages_total += b->len;
    return 0;
}

void session_messages_over_cap(coax_session *s)
{
    char msg[160];
    snprintf(msg, sizeof msg, "messages: " VM_OVER_CAP, "the messages are", MESSAGES_OVER);
    session_end(s, COAX_FAILURE_SCRIPT_LIMIT, msg);
}

void session_record_messages(coax_session *s)
{
    lua_State *L = s->engine->vm.L;
    lua_pushcfunction(L, record_messages);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->S_ref);
    lua_pushlightuserdata(L, s);
    vm_clock_for(&s->engine->vm, &s->script_cpu_ns);
    int rc = vm_call(&s->engine->vm, 2, 0);
    if (rc != VM_OK) session_script_failed(s, rc, "messages");
}

/* The message the session ended with (NUL-terminated), or "". */
const char *session_ended_reason(coax_session *s)
{
    coax_buf *m = &s->error_msg;
    coax_buf_reserve(m, 1);
    if (m->oom || !m->data) return "";
    m->data[m->len] = '\0';
    return m->data;
}

/* Appends this attempt's record to the report; 'reason' says why it failed
** (NULL for an attempt that succeeded). */
void session_record_attempt(coax_session *s, const char *outcome, const char *reason, const char *reply,
                            size_t rlen, const coax_extract_result *r, bool have_r, const char *usage_json)
{
    coax_buf *b = &s->report;
    if (s->reported) return;
    if (b->len) coax_buf_putc(b, ',');
    coax_buf_printf(b, "{\"n\":%d,\"outcome\":", s->attempt);
    put_str(b, outcome);
    coax_buf_puts(b, ",\"reason\":");
    if (reason) put_str(b, reason);
    else coax_buf_puts(b, "null");
    coax_buf_printf(b, ",\"messages_kept\":%d,\"messages\":", s->messages_kept);
    coax_buf_put(b, s->messages.data ? s->messages.data : "[]", s->messages.data ? s->messages.len : 2);
    coax_buf_puts(b, ",\"reply\":");
    if (reply) put_said(s, SAID_REPLY, reply, rlen);
    else coax_buf_puts(b, "null");
    coax_buf_puts(b, ",\"value\":");
    if (have_r && r->value && s->value.len) coax_buf_put(b, s->value.data, s->value.len); /* its text, submitted */
    else if (have_r && r->value) coax_write_buf(b, r->value, 0);
    else coax_buf_puts(b, "null");
    coax_buf_puts(b, ",\"errors\":");
    size_t errors_at = b->len;
    coax_buf_putc(b, '[');
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
    coax_buf_putc(b, ']');
    s->recorded++;
    s->last_errors_at = errors_at;
    s->last_errors_len = b->len - errors_at;
    coax_buf_puts(b, ",\"log\":[");
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
    if (s->stream.fed) coax_buf_printf(b, ",\"bytes_received\":%zu", s->stream.received);
    if (s->stream.stopped) coax_buf_puts(b, ",\"stopped_early\":true");
    if (s->tool_rounds.len) {
        coax_buf_puts(b, ",\"tool_rounds\":");
        coax_buf_put(b, s->tool_rounds.data, s->tool_rounds.len);
    }
    char ms[48]; /* JSON: a '.' whatever the host's locale */
    coax_dot_format(ms, sizeof ms, "%.3f", coax_now_ms() - s->t_attempt);
    coax_buf_printf(b, ",\"elapsed_ms\":%s}", ms);
    if (s->listener.attempt) {
        char told[EVENT_TEXT_BUF];
        session_attempt a = {outcome, reason ? session_event_text("reason", reason, told, sizeof told).text : NULL,
                             have_r ? r : NULL};
        s->listener.attempt(s->listener.ud, &a);
    }
}

void session_listen(coax_session *s, const session_listener *l)
{
    if (l) s->listener = *l;
    else memset(&s->listener, 0, sizeof s->listener);
}

/* The counts a provider may report beside the two totals, each under its own
** name (README "Usage"): input read from the prompt cache, input written to
** it, and reasoning tokens inside the output. They are parts of the totals,
** never added to them; cost depends on them. */
static const char *const USAGE_DETAILS[] = {"cached_input_tokens", "cache_creation_input_tokens",
                                            "reasoning_tokens"};
#define N_USAGE_DETAILS (sizeof USAGE_DETAILS / sizeof *USAGE_DETAILS)
_Static_assert(N_USAGE_DETAILS == SESSION_USAGE_DETAILS, "one sum per usage detail");

/* A count the usage table at the top of the stack holds under 'name': a
** non-negative integer, or -1. */
static lua_Integer usage_count(lua_State *L, const char *name)
{
    int exact = 0; /* a float with an integral value counts (lua-cjson decodes numbers as floats) */
    lua_Integer n = session_raw_field(L, -1, name) == LUA_TNUMBER ? lua_tointegerx(L, -1, &exact) : -1;
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
void session_take_usage(coax_session *s, char *json, size_t cap)
{
    lua_State *L = s->engine->vm.L;
    json[0] = '\0';
    if (session_raw_field(L, -1, "usage") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    lua_Integer in = usage_count(L, "input_tokens"), out = usage_count(L, "output_tokens");
    if (in >= 0) {
        s->in_prov = session_add_tokens(s->in_prov, (uint64_t)in);
        s->have_in_prov = true;
    }
    if (out >= 0) {
        s->out_prov = session_add_tokens(s->out_prov, (uint64_t)out);
        s->have_out_prov = true;
    }
    snprintf(json, cap, "{");
    put_count(json, cap, "input_tokens", in, true);
    put_count(json, cap, "output_tokens", out, false);
    for (size_t i = 0; i < N_USAGE_DETAILS; i++) {
        lua_Integer n = usage_count(L, USAGE_DETAILS[i]);
        if (n < 0) continue;
        s->detail_prov[i] = session_add_tokens(s->detail_prov[i], (uint64_t)n);
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
void session_take_meta(coax_session *s, lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (session_raw_field(L, idx, "finish") == LUA_TSTRING)
        snprintf(s->finish, sizeof s->finish, "%s", lua_tostring(L, -1));
    /* a count past the int it is kept in is not said (2^32 + 1 was 1) */
    if (session_raw_field(L, idx, "retries") == LUA_TNUMBER && lua_tointeger(L, -1) >= 0 &&
        lua_tointeger(L, -1) <= INT_MAX)
        s->retries = (int)lua_tointeger(L, -1);
    /* an HTTP status has three digits (the report's schema: 5 made a report that did not conform) */
    if (session_raw_field(L, idx, "status") == LUA_TNUMBER && lua_tointeger(L, -1) >= 100 &&
        lua_tointeger(L, -1) <= 999)
        s->http_status = (int)lua_tointeger(L, -1);
    lua_pop(L, 3);
}

/* Reads the tool rounds of an attempt in tools mode (the list at field
** "tool_rounds" of the table at 'idx' of 'L') into s->tool_rounds as JSON,
** with the request's secrets redacted. */
void session_take_tool_rounds(coax_session *s, lua_State *L, int idx)
{
    lua_State *ML = s->engine->vm.L;
    s->tool_rounds.len = 0;
    if (session_raw_field(L, idx, "tool_rounds") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    if (L != ML) lua_xmove(L, ML, 1);
    if (session_append_json(s, &s->tool_rounds) != VM_OK || s->tool_rounds.oom) {
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
** s->report, closed by its '}') the feedback sent after it. */
void session_record_feedback(coax_session *s, const char *text, size_t len)
{
    coax_buf *b = &s->report;
    if (s->reported || b->oom || !b->len || b->data[b->len - 1] != '}') return;
    b->len--;
    coax_buf_puts(b, ",\"feedback\":");
    put_said(s, SAID_FEEDBACK, text, len);
    coax_buf_putc(b, '}');
}

/* ---- the report ------------------------------------------------------------ */

void session_metrics_read(const coax_session *s, session_metrics *m)
{
    memset(m, 0, sizeof *m);
    double wall = (s->t_end ? s->t_end : coax_now_ms()) - (s->t_start ? s->t_start : s->t_end);
    if (wall < 0) wall = 0;
    m->attempts = s->recorded ? s->attempt : 0;
    m->wall_ms = wall;
    m->engine_ms = wall - s->agent_ms > 0 ? wall - s->agent_ms : 0;
    m->agent_ms = s->agent_ms;
    m->input_tokens_est = s->in_est;
    m->output_tokens_est = s->out_est;
    m->input_tokens = s->in_prov;
    m->output_tokens = s->out_prov;
    m->have_input_tokens = s->have_in_prov;
    m->have_output_tokens = s->have_out_prov;
    for (size_t i = 0; i < N_USAGE_DETAILS; i++) {
        m->detail[i] = s->detail_prov[i];
        m->have_detail[i] = s->have_detail_prov[i];
    }
    m->repairs = s->repairs;
    m->coercions = s->coercions;
}

void session_metrics_write(coax_buf *b, const session_metrics *m)
{
    char in_prov[32] = "null", out_prov[32] = "null", wall[48], engine[48], agent[48];
    coax_dot_format(wall, sizeof wall, "%.3f", m->wall_ms); /* JSON: a '.' whatever the host's locale */
    coax_dot_format(engine, sizeof engine, "%.3f", m->engine_ms);
    coax_dot_format(agent, sizeof agent, "%.3f", m->agent_ms);
    if (m->have_input_tokens) snprintf(in_prov, sizeof in_prov, "%llu", (unsigned long long)m->input_tokens);
    if (m->have_output_tokens) snprintf(out_prov, sizeof out_prov, "%llu", (unsigned long long)m->output_tokens);
    coax_buf_printf(b,
                    "{\"attempts\":%d,\"wall_ms\":%s,\"engine_ms\":%s,\"agent_ms\":%s,"
                    "\"input_tokens_est\":%llu,\"output_tokens_est\":%llu,\"input_tokens\":%s,"
                    "\"output_tokens\":%s",
                    m->attempts, wall, engine, agent, (unsigned long long)m->input_tokens_est,
                    (unsigned long long)m->output_tokens_est, in_prov, out_prov);
    for (size_t i = 0; i < N_USAGE_DETAILS; i++) /* only what some provider said */
        if (m->have_detail[i]) coax_buf_printf(b, ",\"%s\":%llu", USAGE_DETAILS[i], (unsigned long long)m->detail[i]);
    coax_buf_printf(b, ",\"repairs\":%zu,\"coercions\":%zu}", m->repairs, m->coercions);
}

void session_error_write(coax_buf *b, const coax_session *s)
{
    if (!s->failure) {
        coax_buf_puts(b, "null");
        return;
    }
    coax_buf_puts(b, "{\"code\":");
    put_str(b, s->error_code);
    coax_buf_puts(b, ",\"message\":");
    coax_buf_put_json_string(b, s->error_msg.data ? s->error_msg.data : "", s->error_msg.len);
    if (s->http_status) coax_buf_printf(b, ",\"http_status\":%d", s->http_status);
    coax_buf_putc(b, '}');
}

/* Records cut short by a lack of memory make no report (build_report). */
bool session_has_report(const coax_session *s) { return !s->report.oom; }

const char *session_last_errors(const coax_session *s, size_t *len)
{
    if (!s->recorded || !session_has_report(s)) return NULL;
    *len = s->last_errors_len;
    return s->report.data + s->records_at + s->last_errors_at;
}

/* Makes the report around the attempts' records, in place: written once. */
static void build_report(coax_session *s)
{
    coax_buf head;
    coax_buf *b = &head;
    coax_buf_init(b, s->engine->alloc);
    coax_buf_puts(b, "{\"outcome\":");
    put_str(b, coax_outcome_name(s->outcome));
    coax_buf_puts(b, ",\"value\":");
    if (s->value.len) coax_buf_put(b, s->value.data, s->value.len);
    else coax_buf_puts(b, "null");
    coax_buf_puts(b, ",\"error\":");
    session_error_write(b, s);
    coax_buf_puts(b, ",\"metrics\":");
    session_metrics m;
    session_metrics_read(s, &m);
    session_metrics_write(b, &m);
    coax_buf_puts(b, ",\"attempts\":[");
    /* The records move up behind the head. Records cut short by a lack of
    ** memory make no report. */
    coax_buf *r = &s->report;
    size_t n = r->len;
    bool whole = !r->oom;
    if (whole && !head.oom && coax_buf_reserve(r, head.len + 2)) {
        memmove(r->data + head.len, r->data, n);
        memcpy(r->data, head.data, head.len);
        r->len += head.len;
        coax_buf_puts(r, "]}");
        r->data[r->len] = '\0';
        s->records_at = head.len;
        s->reported = true;
    } else if (whole) {
        r->oom = false; /* only the head found no room: the records stay whole for a later call */
    }
    coax_buf_free(&head);
}

const char *coax_session_report(const coax_session *s, size_t *len)
{
    if (!s || s->state != SS_DONE) return NULL;
    if (!s->reported) build_report((coax_session *)s);
    if (!s->reported) return NULL;
    if (len) *len = s->report.len;
    return s->report.data;
}

const char *coax_session_value(const coax_session *s, size_t *len)
{
    if (!s || s->outcome != COAX_OUTCOME_OK) return NULL;
    if (len) *len = s->value.len;
    return s->value.data; /* NUL-terminated when it was written */
}

coax_outcome coax_session_outcome(const coax_session *s) { return s ? s->outcome : COAX_OUTCOME_INVALID; }

coax_session_failure coax_session_error(const coax_session *s, const char **message)
{
    coax_session_failure f = s && s->state == SS_DONE ? s->failure : COAX_FAILURE_NONE;
    if (message) *message = f ? session_ended_reason((coax_session *)s) : NULL; /* only NUL-terminates */
    return f;
}

coax_class session_value_class(const coax_session *s) { return s->value_class; }
