/*
** host.c: the host agent (README, "Host agents"): coax.host_request hands
** the request to the host, which answers with coax_session_host_reply or
** _host_fail; and coax.check_reply, the session's verdict on a text.
*/
#include "session/session.h"

#include <lauxlib.h>

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
        session_summarize(detail, sizeof detail, &r.validation);
        session_push_failure(s, L, "validation", &r, true, detail, text, len);
    } else { /* no JSON, or past a limit: the model hears why, as for a parse failure */
        session_push_failure(s, L, "parse", &r, false, err.msg[0] ? err.msg : coax_strerror(rc), text, len);
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

