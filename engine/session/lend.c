/*
** lend.c: the table of functions lent to scripts (lend.h), and those that
** hand the agent's coroutine to the session: coax.sleep,
** coax.host_request, coax.check_reply.
*/
#include "session/lend.h"
#include "base/clock.h"
#include "script/lib.h"

/* The longest one sleep may be: a script's coax.sleep(math.huge) in a
** session with no deadline left its run waiting for ever (`coax run` never
** returned). An hour is longer than any backoff a provider asks for. */
#define SLEEP_MOST_MS 3600000.0

/* coax.sleep(ms): yields the agent's coroutine until the time has passed;
** the engine's poll wakes it (session_next_event). */
static int l_sleep(lua_State *L)
{
    coax_session *s = lend_session(L);
    lua_Number ms = luaL_checknumber(L, 1);
    luaL_argcheck(L, ms >= 0, 1, "must not be negative");
    luaL_argcheck(L, ms <= SLEEP_MOST_MS, 1, "at most 3600000 ms (an hour)");
    if (!lua_isyieldable(L) || !s) return luaL_error(L, "coax.sleep: only an agent's call can sleep");
    s->sleeping = true;
    s->wake_at = coax_now_ms() + ms;
    return lua_yield(L, 0);
}

/* Runs when the coroutine that asked is resumed: by the engine once the
** host answered, or by a script that kept the coroutine (coroutine.running)
** and resumes it from on_event, a strategy or a coroutine of its own, where
** no session's agent runs or not this one: that is an error, not an answer. */
static int host_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    coax_session *s = lend_session(L);
    if (!s || L != s->co || s->host != HOST_ANSWERED)
        return luaL_error(L, "coax.host_request: resumed before the host answered");
    return session_host_answer(s, L);
}

/* coax.host_request(json): the host agent's question to the host; yields
** until the host answers (coax_session_host_reply / _host_fail). Only the
** agent's own coroutine may ask (a coroutine of its own would yield to the
** script, leaving the session waiting on a question nobody waits for), and
** only JSON text: the host's event data holds the request as it is. */
static int l_host_request(lua_State *L)
{
    coax_session *s = lend_session(L);
    size_t len;
    const char *req = luaL_checklstring(L, 1, &len);
    if (!lua_isyieldable(L) || !s) return luaL_error(L, "coax.host_request: only an agent's call can ask the host");
    if (L != s->co)
        return luaL_error(L, "coax.host_request: only the agent's own call can ask the host, "
                             "not a coroutine of its own");
    /* Parsed in the Lua state's memory, under its cap: in the host's, a
    ** script's 30 MB of "[]," took 550 MB of it, past any cap. */
    int box = lua_gettop(L) + 1;
    coax_arena *a = lcoax_arena(L);
    coax_value *v;
    coax_error err = {0};
    /* The engine's own request (the recipe's messages, bounded by the Lua
    ** memory cap): the limits of replies (max_input, max_string) are not its
    ** own, and a host that set them low for replies could not ask at all. */
    coax_limits limits = {s->engine->limits.max_depth, COAX_MAX_INPUT_CAP, COAX_MAX_INPUT_CAP};
    coax_code rc = coax_parse(a, req, len, &limits, &v, &err);
    lcoax_arena_release(L, box);
    if (rc == COAX_ENOMEM) return lcoax_error(L, rc, NULL); /* the cap refused it: the stop */
    const char *why = err.msg[0] ? err.msg : coax_strerror(rc);
    if (rc) return luaL_error(L, "coax.host_request: the request is not JSON: %s", why);
    if (!session_host_ask(s, req, len)) return luaL_error(L, "out of memory");
    return lua_yieldk(L, 0, 0, host_k);
}

/* coax.check_reply(text): for tools mode, the session's verdict on a text
** as if it were the reply (repair, coercion, validation), without ending
** the attempt. */
static int l_check_reply(lua_State *L)
{
    coax_session *s = lend_session(L);
    luaL_checkstring(L, 1);
    if (!s) return luaL_error(L, "coax.check_reply: only an agent's call can check a reply");
    lua_settop(L, 1);
    return session_check(s, L);
}

const luaL_Reg lend_functions[] = {
    {"sleep", l_sleep},
    {"host_request", l_host_request},
    {"check_reply", l_check_reply},
    {"command", lend_command},
    {"http_start", lend_http_start},
    {"http_wait", lend_http_wait},
    {"secret", lend_secret},
    {"stream_sink", lend_stream_sink},
    {NULL, NULL},
};
