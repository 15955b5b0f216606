/*
** lend_command.c: coax.command(input [, {timeout_ms}]), the command agent's
** transport for scripts: runs the session's own command (the host's, never
** a script's) as a child process (io/process.c) with 'input' on its stdin,
** and yields the agent's coroutine until it ends.
*/
#include "session/lend.h"
#include "base/clock.h"

#include <stdio.h>

static int command_k(lua_State *L, int status, lua_KContext ctx);

/* The process's result, once it has ended: {status, stdout, stderr,
** elapsed_ms} or nil, message, kind ("timeout", "signal"; at the start,
** "spawn" or "config": no command). */
static int finish(lua_State *L, coax_session *s)
{
    proc_req *p = s->proc;
    proc_outcome o;
    proc_result(p, &o);
    if (o.fail == PROC_TOO_LARGE || o.fail == PROC_OOM) {
        char msg[200];
        if (o.fail == PROC_OOM) snprintf(msg, sizeof msg, "coax.command: out of memory reading the output");
        else snprintf(msg, sizeof msg, "coax.command: the output is larger than the limit of %zu bytes", o.cap);
        return vm_stop_response(L, msg); /* the session ends; it frees p */
    }
    /* Built while the session still owns p: a memory error on the way
    ** ends the session, which frees it. */
    int n = 3;
    if (o.fail == PROC_TIMEOUT) {
        lua_pushnil(L);
        lua_pushfstring(L, "the command timed out after %d ms", o.timeout_ms);
        lua_pushliteral(L, "timeout");
    } else if (o.signal) {
        lua_pushnil(L);
        lua_pushfstring(L, "the command was killed by signal %d", o.signal);
        lua_pushliteral(L, "signal");
    } else {
        lua_createtable(L, 0, 4);
        if (o.status >= 0) { /* unknown when the host reaped it: no status, rather than a made-up one */
            lua_pushinteger(L, o.status);
            lua_setfield(L, -2, "status");
        }
        lua_pushlstring(L, o.out, o.out_len);
        lua_setfield(L, -2, "stdout");
        lua_pushlstring(L, o.err, o.err_len);
        lua_setfield(L, -2, "stderr");
        lua_pushnumber(L, o.elapsed_ms);
        lua_setfield(L, -2, "elapsed_ms");
        n = 1;
    }
    s->proc = NULL;
    proc_cancel(p);
    return n;
}

int lend_command(lua_State *L)
{
    coax_vm *vm = vm_of(L);
    coax_session *s = lend_session(L);
    size_t len;
    const char *input = luaL_checklstring(L, 1, &len);
    if (!s || !lua_isyieldable(L)) return luaL_error(L, "coax.command: only an agent's call can run the command");
    if (!s->command) {
        lua_pushnil(L);
        lua_pushliteral(L, "no command to run: the host names it (coax run --command, or the command option)");
        lua_pushliteral(L, "config");
        return 3;
    }
    if (L != s->co) return luaL_error(L, "coax.command: only the agent's own call can run the command, not a coroutine of its own");
    lua_Number timeout = 60000;
    if (lua_istable(L, 2) && lua_getfield(L, 2, "timeout_ms") != LUA_TNIL) {
        timeout = lua_tonumber(L, -1);
        if (!lua_isnumber(L, -1) || !(timeout >= 1 && timeout <= 86400000))
            return luaL_error(L, "coax.command: timeout_ms must be a number of milliseconds from 1 to 86400000");
    }
    proc_cancel(s->proc); /* an earlier one the script gave up on */
    s->proc = NULL;
    /* Output Lua could not hold anyway is not read either. */
    size_t cap = s->engine->limits.max_input < vm->mem_cap ? s->engine->limits.max_input : vm->mem_cap;
    proc_req *p = proc_new(s->engine->alloc, input, len, cap, (int)timeout);
    if (!p) return luaL_error(L, "out of memory");
    int rc = proc_spawn(p, s->command);
    if (rc) {
        proc_cancel(p); /* freed before a push below can raise */
        lua_pushnil(L);
        lua_pushfstring(L, "the command could not start: %s", strerror(rc));
        lua_pushliteral(L, "spawn");
        return 3;
    }
    s->proc = p; /* the session owns it now */
    proc_pump(p);
    return lua_yieldk(L, 0, 0, command_k);
}

static int command_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    coax_session *s = lend_session(L);
    if (!s || !s->proc || L != s->co) return luaL_error(L, "coax.command: no command in flight");
    if (!proc_ready(s->proc)) return lua_yieldk(L, 0, 0, command_k);
    return finish(L, s);
}
