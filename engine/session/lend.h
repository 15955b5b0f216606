/*
** lend.h: the functions the session layer lends to scripts. They join the
** scripts' coax module (vm_open, script/vm.c) with the engine as their one
** upvalue, and find the session whose agent runs in the VM's current task.
**
**   lend.c          coax.sleep, coax.host_request, coax.check_reply; the table
**   lend_http.c     coax.http_start and coax.http_wait (the halves of
**                   sandbox.lua's coax.http.request), coax.secret
**   lend_command.c  coax.command
**   lend_stream.c   coax.stream_sink (request.on_text), partials, stop_early
*/
#ifndef COAX_LEND_H
#define COAX_LEND_H

#include "session/engine.h"

#include <lauxlib.h>

/* Every function lent, NULL-terminated: what coax_engine_new hands vm_open. */
extern const luaL_Reg lend_functions[];

int lend_http_start(lua_State *L);
int lend_http_wait(lua_State *L);
int lend_secret(lua_State *L);
int lend_command(lua_State *L);
int lend_stream_sink(lua_State *L);

/* The engine a lent function belongs to (its upvalue). Inline, like
** lend_session: the files of the functions call them, and lend.c calls
** those files (its table). */
static inline coax_engine *lend_engine(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

/* The session whose agent runs, or NULL (outside an agent's call). */
static inline coax_session *lend_session(lua_State *L) { return vm_of(L)->current; }

#endif
