/*
** coax.c: luaopen_coax, the coax module of a Lua host (build/coax.so): the
** library scripts get (engine/script/lib.c) and, beside it, coax.run and
** coax.engine (run.c), which load recipes and drive engines of their own.
*/
#define _GNU_SOURCE /* dladdr */
#include "lua/run.h"
#include "script/lib.h"

#include <dlfcn.h>

/* Lua 5.1 and LuaJIT unload the module's library when lua_close finalizes
** the handle require made, before the finalizers of objects made before
** the require: one of those that called coax jumped into unmapped code. A
** reference to the library that is never dropped keeps it mapped until the
** process ends (RTLD_NODELETE: a dlclose cannot unmap it either). */
static void pin_library(void)
{
    Dl_info info;
    if (dladdr((void *)&pin_library, &info) && info.dli_fname) (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE);
}

/* The one symbol build/coax.so exports: the objects are compiled with
** -fvisibility=hidden (Makefile). */
__attribute__((visibility("default"))) int luaopen_coax(lua_State *L)
{
    pin_library();
    lcoax_open_library(L);
    lcoax_open_run(L);
    return 1;
}
