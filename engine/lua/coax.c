/*
** coax.c: luaopen_coax, the coax module of a Lua host (build/coax.so): the
** library scripts get (engine/script/lib.c) and, beside it, coax.run and
** coax.engine (run.c), which load recipes and drive engines of their own.
*/
#include "lua/run.h"
#include "script/lib.h"

/* The one symbol build/coax.so exports: the objects are compiled with
** -fvisibility=hidden (Makefile). */
__attribute__((visibility("default"))) int luaopen_coax(lua_State *L)
{
    lcoax_open_library(L);
    lcoax_open_run(L);
    return 1;
}
