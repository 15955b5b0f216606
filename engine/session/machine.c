/*
** machine.c: a session's state machine (session.c says its states): a step
** as far as it goes without waiting, the agent's call in its coroutine, the
** reply through extraction and on_submit, the retry, the budgets.
*/
#include "session/session.h"
#include "extract/coerce.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>

typedef struct failure_args {
    coax_session *s;
    const char *kind;
    const coax_extract_result *r;
    bool have_r;
    const char *detail, *reply;
    size_t rlen;
} failure_args;

/* Whether the failed value is read on the way to the next messages: by a
** recipe's own strategy (a function, given the whole context; a recipe
** table with a metatable may hold one), or by the built-in templates for
** their coercion lines. The built-in strategies and templates read only
** the submission's text otherwise. */
static bool failed_value_read(coax_session *s, lua_State *L, const coax_extract_result *r)
{
    if (r->ncoercions) return true;
    int top = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->S_ref);
    bool read = session_raw_field(L, -1, "recipe") != LUA_TTABLE || lua_getmetatable(L, -1);
    if (!read) {
        int how = session_raw_field(L, -1, "strategy"); /* nil: "continue" */
        read = how != LUA_TNIL && how != LUA_TSTRING;
    }
    lua_settop(L, top);
    return read;
}

static int push_failure_arg(lua_State *L, const void *ud)
{
    const failure_args *a = ud;
    bool unread = a->have_r && !failed_value_read(a->s, L, a->r);
    session_push_failure(a->s, L, a->kind, a->r, a->have_r, a->detail, a->reply, a->rlen, unread);
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
    session_push_info(a->s, L, NULL);
    return 2;
}

/* Decides after a failed attempt: exhausted, or the next messages. */
static void retry(coax_session *s, const char *kind, coax_extract_result *r, bool have_r, const char *detail,
                  const char *reply, size_t rlen)
{
    if (s->attempt >= s->max_attempts) {
        char msg[256];
        snprintf(msg, sizeof msg, "%d attempt%s used up; the last failed: %s", s->max_attempts,
                 s->max_attempts == 1 ? "" : "s", detail);
        session_end(s, COAX_FAILURE_EXHAUSTED, msg);
        return;
    }
    lua_State *L = s->engine->vm.L;
    failure_args fa = {s, kind, r, have_r, detail, reply, rlen};
    int rc = session_runtime_call(s, "next", push_failure_arg, &fa, 3);
    if (rc != VM_OK) {
        session_script_failed(s, rc, "strategy");
        return;
    }
    size_t flen;
    const char *feedback = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &flen) : NULL;
    if (feedback) session_record_feedback(s, feedback, flen);
    lua_pop(L, 3);
    s->attempt++;
    s->state = SS_CALL;
}

/* Replaces, in the string field 'key' of the table at 'idx', every secret
** value the session's requests carried by "[redacted]". */
static void redact_field(coax_session *s, lua_State *L, int idx, const char *key)
{
    if (!s->secrets.len) return;
    if (session_raw_field(L, idx, key) != LUA_TSTRING) {
        lua_pop(L, 1);
        return;
    }
    size_t n;
    const char *t = lua_tolstring(L, -1, &n);
    lend_push_redacted(L, &s->secrets, t, n);
    lua_setfield(L, idx, key);
    lua_pop(L, 1);
}

/* The host's C on_submit, after the recipe's accepted the value whose text
** is s->value: true to accept; false with its reason in 'reason'. */
static bool host_accepts(coax_session *s, char *reason, size_t cap)
{
    if (!s->on_submit) return true;
    reason[0] = '\0';
    bool ok = s->on_submit(s->submit_ud, s, s->value.data, s->value.len, reason, cap);
    reason[cap - 1] = '\0';
    if (!ok && !reason[0]) snprintf(reason, cap, "rejected by the host");
    return ok;
}

/* Writes the value the recipe accepted into s->value (NUL-terminated), the
** one text of it the host's on_submit, the attempt's record and the result
** read; false when memory ran out (the session has ended then). */
static bool write_value(coax_session *s, const coax_value *value)
{
    coax_buf *v = &s->value;
    v->len = 0;
    coax_write_buf(v, value, 0);
    coax_buf_putc(v, '\0');
    if (v->oom) {
        v->len = 0;
        v->oom = false;
        session_end(s, COAX_FAILURE_OUT_OF_MEMORY, "out of memory");
        return false;
    }
    v->len--; /* the NUL stays, outside the length */
    return true;
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
    char usage[SESSION_USAGE_JSON_CAP];
    session_take_usage(s, usage, sizeof usage);
    session_take_meta(s, L, -1);
    session_take_tool_rounds(s, L, lua_gettop(L));
    redact_field(s, L, lua_gettop(L), "text");
    redact_field(s, L, lua_gettop(L), "refusal");
    if (session_raw_field(L, -1, "refusal") == LUA_TSTRING) {
        /* The model declined: the agent's policy made this the end. */
        size_t rl;
        const char *refusal = lua_tolstring(L, -1, &rl);
        /* The provider's words, whole: its explanation is the reason. */
        coax_buf msg;
        coax_buf_init(&msg, e->alloc);
        coax_buf_puts(&msg, "the model refused: ");
        coax_buf_put(&msg, refusal, rl);
        coax_buf_putc(&msg, '\0');
        session_record_attempt(s, "refused", msg.oom ? "the model refused" : msg.data, refusal, rl, NULL, false,
                               usage[0] ? usage : NULL);
        lua_settop(L, base);
        session_end(s, COAX_FAILURE_REFUSAL, msg.oom ? "the model refused" : msg.data);
        coax_buf_free(&msg);
        return;
    }
    lua_pop(L, 1);
    session_raw_field(L, -1, "text");
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    if (!text || lua_type(L, -1) != LUA_TSTRING) {
        lua_pop(L, 2);
        session_end(s, COAX_FAILURE_AGENT_ERROR, "the agent's reply has no text");
        return;
    }
    /* Told on arrival, before the reply is estimated and extracted: hosts
    ** time an attempt's work from here (bench/run). A listener that ends
    ** the session here still has the attempt extracted and recorded, as
    ** when the event came after. */
    event_member m = {"bytes", EVENT_COUNT, len, NULL, 0};
    session_event(s, "reply", &m);
    s->out_est += session_estimate_kept(s, L, -1);
    coax_arena *arena = coax_arena_new(e->alloc);
    if (!arena) {
        lua_pop(L, 2);
        session_end(s, COAX_FAILURE_OUT_OF_MEMORY, "out of memory");
        return;
    }
    coax_extract_result r;
    coax_error err = {0};
    /* extract closes no brackets of a cut reply; refuse_cut_off then refuses the rest */
    coax_extract_options xo = {cut_off_reason(s)            ? COAX_EXTRACT_CUT_OFF
                               : !strcmp(s->finish, "stop") ? COAX_EXTRACT_FINISHED
                                                            : 0,
                               s->max_class};
    /* a streamed reply whose partials were told: its reader extracts this very text too */
    const coax_extract_result *streamed = stream_reply_extract(s, text, len, &xo);
    coax_code rc = COAX_OK;
    if (streamed) r = *streamed;
    else rc = coax_extract(arena, s->schema, text, len, &e->limits, &xo, &r, &err);
    if (rc == COAX_OK) rc = refuse_cut_off(s, arena, &r);
    char text_buf[EVENT_TEXT_BUF];
    if (rc == COAX_ENOJSON) {
        session_record_attempt(s, "no_json", err.msg, text, len, &r, false, usage[0] ? usage : NULL);
        m = session_event_text("error", err.msg, text_buf, sizeof text_buf);
        session_event(s, "parse_error", &m);
        if (s->state != SS_DONE) retry(s, "parse", &r, false, err.msg, text, len);
    } else if (rc) {
        const char *why = err.msg[0] ? err.msg : coax_strerror(rc);
        session_record_attempt(s, "limit", why, text, len, &r, false, usage[0] ? usage : NULL);
        session_end(s, rc == COAX_ENOMEM ? COAX_FAILURE_OUT_OF_MEMORY : COAX_FAILURE_REPLY_LIMIT, why);
        if (rc != COAX_ENOMEM) s->error_code = coax_code_name(rc); /* the report names the limit reached */
    } else {
        s->repairs += r.repair.nlog;
        s->coercions += r.ncoercions;
        char broken[320];
        if (r.valid && !stream_kept_promises(s, r.value, broken, sizeof broken)) {
            session_record_attempt(s, "rejected", broken, text, len, &r, true, usage[0] ? usage : NULL);
            m = session_event_text("reason", broken, text_buf, sizeof text_buf);
            session_event(s, "rejection", &m);
            if (s->state != SS_DONE) retry(s, "rejection", &r, true, broken, text, len);
        } else if (!r.valid) {
            char detail[256];
            session_summarize(detail, sizeof detail, &r.validation);
            session_record_attempt(s, "invalid", detail, text, len, &r, true, usage[0] ? usage : NULL);
            m = (event_member){"errors", EVENT_COUNT, r.validation.nerrors, NULL, 0};
            session_event(s, "validation_error", &m);
            /* A value that rests on a guessed repair: the reply is what to fix. */
            if (s->state != SS_DONE && r.refused)
                retry(s, "parse", &r, true, r.validation.errors[0].message, text, len);
            else if (s->state != SS_DONE) retry(s, "validation", &r, true, detail, text, len);
        } else {
            char reason[256]; /* why the recipe or the host rejected the value */
            submit_args sa = {s, r.value};
            int vr = session_runtime_call(s, "submit", push_submission, &sa, 2);
            if (vr != VM_OK) {
                session_script_failed(s, vr, "on_submit");
                session_record_attempt(s, vr == VM_LIMIT ? "limit" : "script_error", session_ended_reason(s), text,
                                       len, &r, true, usage[0] ? usage : NULL);
            } else if (lua_toboolean(L, -2) && write_value(s, r.value) && host_accepts(s, reason, sizeof reason)) {
                lua_pop(L, 2);
                s->value_class = extract_least_class(&r);
                session_record_attempt(s, "ok", NULL, text, len, &r, true, usage[0] ? usage : NULL);
                session_event(s, "success", NULL);
                session_end(s, COAX_FAILURE_NONE, NULL);
            } else if (s->state != SS_DONE) {
                if (!lua_toboolean(L, -2)) /* the recipe rejected; else the host did, and wrote its reason */
                    snprintf(reason, sizeof reason, "%s",
                             lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "rejected");
                lua_pop(L, 2);
                session_record_attempt(s, "rejected", reason, text, len, &r, true, usage[0] ? usage : NULL);
                m = session_event_text("reason", reason, text_buf, sizeof text_buf);
                session_event(s, "rejection", &m);
                if (s->state != SS_DONE) retry(s, "rejection", &r, true, reason, text, len);
            }
            if (s->outcome != COAX_OUTCOME_OK) s->value.len = 0; /* only an accepted value stays */
        }
    }
    coax_arena_free(arena);
    lua_settop(L, base); /* the reply and its text stayed anchored until here */
}

/* The agent's call after its sink (or the host's piece) stopped the reply
** (lend_stream.c): the attempt fails as an invalid reply with the partial's
** errors (the usual feedback and retry), whatever the agent returned,
** raised or waits on. */
static void fail_stopped(coax_session *s)
{
    lua_State *L = s->engine->vm.L;
    luaL_unref(L, LUA_REGISTRYINDEX, s->co_ref); /* never allocates (script/vm.c) */
    s->co_ref = LUA_NOREF;
    s->co = NULL;
    s->sleeping = false;
    s->host = HOST_IDLE; /* a host asked hears ECANCELED, then the next request */
    http_cancel(s->http);
    s->http = NULL;
    proc_cancel(s->proc);
    s->proc = NULL;
    s->agent_ms += coax_now_ms() - s->t_call;
    const stream_partial *p = &s->stream.part;
    coax_extract_result r;
    memset(&r, 0, sizeof r);
    r.value = p->value;
    r.validation = p->errors;
    r.validation.valid = 0;
    const char *text = s->stream.text.data ? s->stream.text.data : "";
    size_t len = s->stream.text.len;
    s->out_est += session_estimate_tokens(text, len);
    char detail[256] = "the reply was stopped early: it cannot succeed";
    if (p->errors.nerrors) session_summarize(detail, sizeof detail, &p->errors);
    session_record_attempt(s, "invalid", detail, text, len, &r, true, NULL);
    event_member m = {"bytes", EVENT_COUNT, len, NULL, 0};
    session_event(s, "reply", &m);
    m = (event_member){"errors", EVENT_COUNT, p->errors.nerrors, NULL, 0};
    if (s->state != SS_DONE) session_event(s, "validation_error", &m);
    if (s->state != SS_DONE) retry(s, "validation", &r, true, detail, text, len);
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
        s->call_left = vm->instr_budget * VM_CALL_BUDGETS;
    }
    s->sleeping = false;
    vm->current = s;
    int nres = 0;
    vm_clock_for(vm, &s->script_cpu_ns);
    int rc = vm_resume(vm, s->co, nargs, &nres, &s->call_left);
    vm->current = NULL;
    if (stream_stopped_early(s)) { /* whatever the agent did after the stop */
        fail_stopped(s);
        return;
    }
    if (rc == VM_YIELD) {
        if (!s->sleeping && !s->http && !s->proc && s->host != HOST_ASKED) { /* yielded for something unknown */
            session_end(s, COAX_FAILURE_SCRIPT_ERROR,
                        "the agent yielded outside coax.sleep, coax.http, coax.command and coax.host_request");
            return;
        }
        s->state = SS_WAIT;
        if (s->host == HOST_ASKED) { /* the host hears the request now; it may answer at once */
            event_member m = {"request", EVENT_JSON, 0, s->host_request.data, s->host_request.len};
            session_event(s, "host_request", &m);
        }
        return;
    }
    http_cancel(s->http); /* a request the agent returned without waiting for */
    s->http = NULL;
    proc_cancel(s->proc);
    s->proc = NULL;
    s->agent_ms += coax_now_ms() - s->t_call;
    if (rc != VM_OK) {
        session_script_failed(s, rc, "agent");
        session_record_attempt(s, rc == VM_LIMIT ? "limit" : "script_error", session_ended_reason(s), NULL, 0, NULL,
                               false, NULL);
        return;
    }
    lua_State *co = s->co;
    if (!lua_checkstack(co, 8)) { /* never raises */
        session_end(s, COAX_FAILURE_SCRIPT_LIMIT, "agent: not enough memory");
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
    char msg[512], usage[SESSION_USAGE_JSON_CAP] = "";
    bool rounds = false; /* tools mode's rounds used up */
    const char *m = nres >= 2 && lua_type(co, -nres + 1) == LUA_TSTRING ? lua_tostring(co, -nres + 1) : NULL;
    snprintf(msg, sizeof msg, "%s", m ? m : "the agent returned no reply");
    if (nres >= 3 && lua_istable(co, -nres + 2)) {
        int meta = lua_gettop(co) - nres + 3;
        session_take_meta(s, co, meta);
        session_take_tool_rounds(s, co, meta);
        /* An agent that stopped at tools mode's rounds says so: the outcome
        ** is a limit, not an agent error (the only limit an agent has). */
        if (session_raw_field(co, meta, "limit") == LUA_TSTRING && !strcmp(lua_tostring(co, -1), "tool_rounds"))
            rounds = true;
        lua_pop(co, 1);
        /* What the requests before the failure cost (tools mode's rounds). */
        lua_pushvalue(co, meta);
        lua_xmove(co, s->engine->vm.L, 1);
        session_take_usage(s, usage, sizeof usage);
        lua_pop(s->engine->vm.L, 1);
    }
    session_record_attempt(s, rounds ? "limit" : "agent_error", msg, NULL, 0, NULL, false, usage[0] ? usage : NULL);
    session_end(s, rounds ? COAX_FAILURE_TOOL_ROUNDS : COAX_FAILURE_AGENT_ERROR, msg);
}

/* Whether the value on top is a message the report's schema holds ($defs/message): a table whose
** role (read raw) is one it knows and whose content is text. A strategy's message that was not
** went to the agent and into a report that did not conform. */
static bool message_holds(lua_State *L)
{
    if (!lua_istable(L, -1)) return false;
    static const char *const roles[] = {"system", "user", "assistant", "tool"};
    size_t len = 0;
    lua_pushliteral(L, "role");
    const char *role = lua_rawget(L, -2) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    bool known = false;
    for (size_t r = 0; role && r < sizeof roles / sizeof *roles; r++)
        known = known || (strlen(roles[r]) == len && !memcmp(role, roles[r], len));
    lua_pushliteral(L, "content");
    bool text = lua_rawget(L, -3) == LUA_TSTRING;
    lua_pop(L, 2);
    return known && text;
}

/* Budgets before a call: the deadline, and the tokens the call would use. */
static bool within_budget(coax_session *s)
{
    if (s->deadline_ms > 0 && coax_now_ms() - s->t_start >= s->deadline_ms) {
        session_end(s, COAX_FAILURE_DEADLINE, "the session's deadline passed");
        return false;
    }
    uint64_t in = 0;
    lua_State *L = s->engine->vm.L;
    /* Raw reads with type checks: the messages come from a script, and
    ** nothing here may run its metamethods or raise outside a pcall. */
    int top = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->S_ref);
    int S = lua_gettop(L);
    lua_pushliteral(L, "token_counts");
    int cache = lua_rawget(L, S) == LUA_TTABLE ? lua_gettop(L) : 0;
    /* S.estimated: {text 1, count 1, text 2, ...} of the messages the last
    ** call weighed, by position. A message whose text is the same string
    ** there takes its count without hashing the text for the cache: a
    ** conversation carried on keeps its messages' strings, and hashing
    ** them all every attempt made each attempt cost more as it went. */
    lua_pushliteral(L, "estimated");
    if (lua_rawget(L, S) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushliteral(L, "estimated");
        lua_pushvalue(L, -2);
        lua_rawset(L, S);
    }
    int known = lua_gettop(L);
    /* The bytes of the texts hashed here: the messages an attempt adds may
    ** take the Lua memory cap (record_messages), and no more is read. One
    ** long text a strategy listed a million times was hashed a million
    ** times, past any cap, before the record refused it (64 KiB: 6 s). */
    size_t hashed = 0;
    lua_pushliteral(L, "messages");
    lua_rawget(L, S);
    lua_Integer n = lua_istable(L, -1) ? (lua_Integer)lua_rawlen(L, -1) : 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        if (!message_holds(L)) {
            char msg[160] = "strategy: messages must be a list of {role = ..., content = ...} tables";
            if (lua_istable(L, -1))
                snprintf(msg, sizeof msg, "strategy: message %lld needs a role (system, user, assistant or tool) "
                                          "and a string content", (long long)i);
            lua_settop(L, top);
            session_end(s, COAX_FAILURE_SCRIPT_ERROR, msg);
            return false;
        }
        lua_pushliteral(L, "content");
        lua_rawget(L, -2);
        uint64_t count;
        if (lua_rawgeti(L, known, 2 * i - 1) == LUA_TSTRING && lua_rawequal(L, -1, -2) &&
            lua_rawgeti(L, known, 2 * i) == LUA_TNUMBER) {
            count = (uint64_t)lua_tointeger(L, -1);
        } else { /* estimated once per distinct text (the cache), kept here by position */
            lua_settop(L, S + 5); /* ... messages, message, content */
            if ((hashed += lua_rawlen(L, -1)) > s->engine->vm.mem_cap) {
                lua_settop(L, top);
                session_messages_over_cap(s);
                return false;
            }
            count = session_estimate_cached(L, cache, -1);
            lua_pushvalue(L, -1);
            lua_rawseti(L, known, 2 * i - 1);
            lua_pushinteger(L, (lua_Integer)count);
            lua_rawseti(L, known, 2 * i);
        }
        in += count + 4; /* and a few per message */
        lua_settop(L, S + 3); /* ... messages */
    }
    lua_settop(L, top);
    uint64_t used = session_add_tokens(s->have_in_prov ? s->in_prov : s->in_est,
                                       s->have_out_prov ? s->out_prov : s->out_est);
    if (s->budget_tokens && session_add_tokens(used, in) > s->budget_tokens) {
        char msg[160];
        snprintf(msg, sizeof msg, "token budget of %llu would be passed (%llu used, %llu more for this call)",
                 (unsigned long long)s->budget_tokens, (unsigned long long)used, (unsigned long long)in);
        session_end(s, COAX_FAILURE_TOKENS, msg);
        return false;
    }
    s->in_est = session_add_tokens(s->in_est, in);
    return true;
}

/* One step starts one agent call at most: a recipe's agent that answers without yielding, under a
** max_attempts of a million, ran every attempt in one step, so one coax_engine_poll(e, 0) of the host's
** frame ran the whole session (1,600 attempts: 1.6 s). The next attempt is due at once: the poll takes it
** while its timeout lasts, and past it within POLL_EXTRA_PASSES passes in all (engine.c). */
static void step(coax_session *s)
{
    bool started = false;
    while (s->state != SS_DONE) {
        if (s->t_start > 0 && s->deadline_ms > 0 && coax_now_ms() - s->t_start >= s->deadline_ms) {
            if (s->state == SS_WAIT) { /* the call in flight is this attempt's end */
                s->agent_ms += coax_now_ms() - s->t_call;
                session_record_attempt(s, "limit", "the session's deadline passed", NULL, 0, NULL, false, NULL);
            }
            session_end(s, COAX_FAILURE_DEADLINE, "the session's deadline passed");
            return;
        }
        switch (s->state) {
        case SS_FIRST: {
            s->t_start = coax_now_ms();
            s->attempt = 1;
            int rc = session_runtime_call(s, "first", NULL, NULL, 0); /* the recipe's prompt, then the first messages */
            if (rc != VM_OK) {
                session_script_failed(s, rc, "prompt");
                return;
            }
            s->state = SS_CALL;
            break;
        }
        case SS_CALL:
            if (started) return;
            started = true;
            if (!within_budget(s)) return;
            session_record_messages(s);
            if (s->state == SS_DONE) return;
            s->t_attempt = coax_now_ms();
            s->finish[0] = '\0';
            s->retries = -1;
            s->http_status = 0;
            s->tool_rounds.len = 0;
            stream_attempt_start(s);
            session_event(s, "attempt_start", NULL);
            if (s->state == SS_DONE) return;
            run_agent(s, true);
            if (s->state == SS_WAIT) return;
            break;
        case SS_WAIT:
            if (stream_stopped_early(s)) { /* while the host was asked: the agent has nothing to resume for */
                fail_stopped(s);                /* the next attempt, or the end */
                break;
            }
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
    if (s->state == SS_WAIT) stream_tell_partial(s); /* the agent waits: what it has received so far */
    return 0;
}

void session_step(coax_session *s)
{
    coax_vm *vm = &s->engine->vm;
    int top = lua_gettop(vm->L);
    int rc = vm_protect(vm, step_protected, s, 0);
    vm->current = NULL;
    lua_settop(vm->L, top);
    if (rc != VM_OK && s->state != SS_DONE) session_script_failed(s, rc, "session");
    session_release_lua(s);
}

/* When the session next needs the engine: its timer or its deadline
** (0: it can move now, or it has ended). */
double session_next_event(const coax_session *s)
{
    if (s->state == SS_DONE || stream_stopped_early(s)) return 0;
    double t;
    if (s->sleeping) t = s->wake_at;
    else if (s->http && !http_ready(s->http)) t = HUGE_VAL; /* whenever curl says */
    else if (s->proc && !proc_ready(s->proc)) t = proc_deadline(s->proc); /* or its output, its exit */
    else if (s->host == HOST_ASKED) t = HUGE_VAL;            /* whenever the host answers */
    else return 0;
    if (stream_due(s) < t) t = stream_due(s); /* a partial to tell */
    if (s->deadline_ms > 0 && s->t_start + s->deadline_ms < t) t = s->t_start + s->deadline_ms;
    return t;
}

