/*
** host.c: the host agent (README, "Host agents"): coax.host_request hands
** the request to the host, which may hand over the reply's text as it
** arrives (coax_session_host_piece, fed to the attempt's stream as an
** agent's request.on_text is) and answers with coax_session_host_reply or
** _host_fail; and coax.check_reply, the session's verdict on a text.
*/
#include "session/session.h"

#include <lauxlib.h>

/* The pieces' hash: FNV-1a, which goes on from piece to piece. It only
** tells a whole reply that differs from its pieces (which then counts as
** the reply starting over); a collision is still caught by the promises'
** check of the final value (stream_kept_promises). */
#define PIECE_HASH_BASIS 14695981039346656037ull

static uint64_t piece_hash(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

bool session_host_ask(void *task, const char *request, size_t len)
{
    coax_session *s = task;
    s->host_request.len = 0;
    coax_buf_put(&s->host_request, request, len);
    coax_buf_putc(&s->host_request, '\0');
    if (s->host_request.oom) return false;
    s->host_request.len--; /* the NUL stays, outside the length */
    s->host_answer.len = 0;
    s->host_over = 0;
    s->host_failed = false;
    s->host_in = s->host_out = -1;
    s->host_finish[0] = '\0';
    s->host_piece_len = 0;
    s->host_piece_hash = PIECE_HASH_BASIS;
    if (s->stream.fed) stream_take(s, NULL, 0); /* an agent's second request: a new reply */
    s->host = HOST_ASKED;
    return true;
}

int session_host_answer(void *task, lua_State *L)
{
    coax_session *s = task;
    s->host = HOST_IDLE;
    if (s->host_over) { /* as a response past its cap ends an agent's HTTP call */
        char why[160];
        snprintf(why, sizeof why, "the host's reply of %zu bytes passes max_input (%zu bytes)", s->host_over,
                 s->engine->limits.max_input);
        s->host_over = 0;
        return vm_stop_response(L, why);
    }
    const char *a = s->host_answer.data ? s->host_answer.data : "";
    if (s->host_failed) {
        lua_pushnil(L);
        lua_pushlstring(L, a, s->host_answer.len);
        return 2;
    }
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, a, s->host_answer.len);
    lua_setfield(L, -2, "text");
    /* No finish unless the host said one: "stop" lets a number an open
    ** reply ends on ({"n": 12, cut from 1234?) count as ended, a guess
    ** coax extract refuses unless told (README, "finish"). */
    if (s->host_finish[0]) lua_pushstring(L, s->host_finish), lua_setfield(L, -2, "finish");
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
    if (rc == COAX_ENOMEM) return lcoax_error(L, rc, NULL); /* the cap refused it: the stop */
    if (rc == COAX_OK && r.valid) {
        lua_createtable(L, 0, 2);
        lcoax_push_value(L, r.value, COAX_DEFAULT_MAX_DEPTH);
        lua_setfield(L, -2, "value");
    } else if (rc == COAX_OK) {
        char detail[256];
        session_summarize(detail, sizeof detail, &r.validation);
        session_push_failure(s, L, "validation", &r, true, detail, text, len, false);
    } else { /* no JSON, or past a limit: the model hears why, as for a parse failure */
        session_push_failure(s, L, "parse", &r, false, err.msg[0] ? err.msg : coax_strerror(rc), text, len, false);
    }
    lua_pushboolean(L, rc == COAX_OK && r.valid);
    lua_setfield(L, -2, "valid");
    return 1;
}

const char *coax_session_host_request(const coax_session *s, size_t *len)
{
    if (!s || s->state == SS_DONE || s->host != HOST_ASKED || stream_stopped_early(s)) return NULL;
    if (len) *len = s->host_request.len;
    return s->host_request.data;
}

/* Whether the session waits for its host's reply: COAX_OK, COAX_EINVAL
** (asked for none, answered, ended), or COAX_ECANCELED (stop_early stopped
** the reply: the next poll asks again). */
static coax_code waiting(coax_session *s, coax_error *err)
{
    if (s->state == SS_DONE || s->host != HOST_ASKED)
        return coax_fail(err, COAX_EINVAL, 0, "the session is not waiting for its host");
    if (!stream_stopped_early(s)) return COAX_OK;
    char why[320];
    stream_stop_reason(s, why, sizeof why);
    return coax_fail(err, COAX_ECANCELED, 0, "%s; cancel the request: the next host_request asks again", why);
}

coax_code coax_session_host_piece(coax_session *s, const char *text, size_t len, coax_error *err)
{
    if (!s || (!text && len)) return coax_fail(err, COAX_EINVAL, 0, "coax_session_host_piece: NULL argument");
    coax_code rc = waiting(s, err);
    if (rc) return rc;
    size_t max = s->engine->limits.max_input;
    if (text && (len > max || s->stream.received > max - len))
        return coax_fail(err, COAX_ESIZE, 0, "the reply would pass max_input (%zu bytes): piece not taken", max);
    rc = stream_take(s, text, len);
    if (rc == COAX_ENOMEM) rc = coax_fail(err, rc, 0, "out of memory: no partials from this reply");
    if (rc == COAX_ECANCELED) return waiting(s, err);
    if (!text) { /* the reply starts over */
        s->host_piece_len = 0;
        s->host_piece_hash = PIECE_HASH_BASIS;
    } else { /* taken, if only for the whole reply's check */
        s->host_piece_len += len;
        s->host_piece_hash = piece_hash(s->host_piece_hash, text, len);
    }
    return rc;
}

static coax_code host_answer(coax_session *s, bool failed, const char *text, size_t len, coax_error *err)
{
    if (!s || (!text && len)) return coax_fail(err, COAX_EINVAL, 0, "coax_session_host_reply: NULL argument");
    coax_code rc = waiting(s, err);
    if (rc) return rc;
    s->host_answer.len = 0;
    /* a reply past max_input ends the session as a reply past the limit
    ** does, without a copy of it (it may be as long as the host's memory) */
    s->host_over = !failed && len > s->engine->limits.max_input ? len : 0;
    if (!s->host_over) coax_buf_put(&s->host_answer, text ? text : "", len);
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
    /* No text is longer (values store lengths in 32 bits): a length no
    ** reply has (SIZE_MAX) was out of memory, which the host tries again. */
    if (s && len > COAX_MAX_INPUT_CAP && waiting(s, NULL) == COAX_OK)
        return coax_fail(err, COAX_ESIZE, 0, "a reply of %zu bytes: longer than any text coax reads (4 GiB)", len);
    /* A reply that is not its pieces joined is a reply that started over
    ** with this text: the partials told stay promises it must keep. */
    if (s && (text || !len) && waiting(s, NULL) == COAX_OK && s->stream.fed &&
        (len != s->host_piece_len || piece_hash(PIECE_HASH_BASIS, text, len) != s->host_piece_hash)) {
        stream_take(s, NULL, 0);
        /* out of memory only costs the partials: the reply goes on */
        if (stream_take(s, text ? text : "", len) == COAX_ECANCELED) return waiting(s, err);
    }
    coax_code rc = host_answer(s, false, text, len, err);
    if (rc == COAX_OK) {
        s->host_in = input_tokens;
        s->host_out = output_tokens;
    }
    return rc;
}

coax_code coax_session_host_finish(coax_session *s, const char *finish, coax_error *err)
{
    if (!s) return coax_fail(err, COAX_EINVAL, 0, "coax_session_host_finish: NULL argument");
    coax_code rc = waiting(s, err);
    if (rc) return rc;
    size_t n = finish ? strlen(finish) : 0;
    if (n >= sizeof s->host_finish)
        return coax_fail(err, COAX_EINVAL, 0, "a finish of %zu bytes: at most %zu", n, sizeof s->host_finish - 1);
    for (size_t i = 0; i < n; i++) /* a provider's word ("stop", "max_tokens"), which the report tells */
        if (finish[i] <= ' ' || finish[i] > '~')
            return coax_fail(err, COAX_EINVAL, 0, "a finish is printable ASCII: byte %zu is 0x%02x", i,
                             (unsigned char)finish[i]);
    memcpy(s->host_finish, finish ? finish : "", n + 1);
    return COAX_OK;
}

coax_code coax_session_host_fail(coax_session *s, const char *message, coax_error *err)
{
    if (!message) message = "the host failed";
    return host_answer(s, true, message, strlen(message), err);
}
