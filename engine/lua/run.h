/*
** run.h: coax.run and coax.engine for Lua hosts (run.c).
*/
#ifndef COAX_LUA_RUN_H
#define COAX_LUA_RUN_H

#include "script/compat.h"

/* Adds run and engine to the table on top, and the metatables of their
** engines and sessions to the registry. */
void lcoax_open_run(lua_State *L);

#endif
