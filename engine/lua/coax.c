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

/* Every build names its Lua types alike in the registry ("coax.schema",
** "coax.arena", "coax.session", ...). A second build in one Lua state
** (two plugins each with its own, or LuaJIT finding both the 5.1 and the
** LuaJIT module) would take the first one's metatables: its objects would
** reach the other build's functions and finalizers, which read them with
** their own layout. The registry remembers which build came first, by the
** address of a variable this library alone has (exports.map hides every
** symbol but luaopen_coax), and any other build refuses to open. The same
** library required again is the same address. */
static const char this_build;

static void claim_state(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "coax.build");
    const void *first = lua_touserdata(L, -1);
    lua_pop(L, 1);
    Dl_info info;
    const char *path = dladdr((void *)&this_build, &info) && info.dli_fname ? info.dli_fname : "coax.so";
    if (first && first != &this_build) {
        lua_getfield(L, LUA_REGISTRYINDEX, "coax.build_path");
        luaL_error(L, "coax: cannot open %s: another build of coax (%s) is open in this Lua state, and the two "
                      "would mistake each other's objects; load one",
                   path, lua_tostring(L, -1));
    }
    lua_pushlightuserdata(L, (void *)&this_build);
    lua_setfield(L, LUA_REGISTRYINDEX, "coax.build");
    lua_pushstring(L, path);
    lua_setfield(L, LUA_REGISTRYINDEX, "coax.build_path");
}

/* The one symbol build/coax.so exports: the objects are compiled with
** -fvisibility=hidden (Makefile). */
__attribute__((visibility("default"))) int luaopen_coax(lua_State *L)
{
    claim_state(L);
    pin_library();
    lcoax_open_library(L);
    lcoax_open_run(L);
    return 1;
}
