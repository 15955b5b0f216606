/* The sandbox's Lua pattern functions (engine/script/lib_pattern.c, what scripts
** get as string.find, match, gmatch and gsub) against the stock ones, on
** any pattern and subject: the first byte says how much of the rest is the
** pattern. Whatever ours return or raise, the stock functions do too; a
** match ours give up on (the tick's budget) is not compared, since the
** stock ones would take as long. */
#include "fuzz.h"
#include "script/lib.h"

#include <lauxlib.h>
#include <lualib.h>


#define MAX_TICKS 16 /* about 16,000 steps of matching */

static int ticks;

static int tick(lua_State *L)
{
    if (++ticks > MAX_TICKS) return luaL_error(L, "fuzz: tick budget");
    return 0;
}

static lua_State *L;

static void close_state(void) /* at exit, so no leak checker sees Lua's blocks */
{
    if (L) lua_close(L);
    L = NULL;
}

static lua_State *state(void)
{
    if (L) return L;
    atexit(close_state);
    L = luaL_newstate();
    FUZZ_CHECK(L != NULL);
    luaL_openlibs(L);
    lcoax_open_library(L);
    lua_getfield(L, -1, "patterns");
    lua_pushcfunction(L, tick);
    lua_call(L, 1, 1);
    lua_setglobal(L, "P");
    lua_pop(L, 1);
    FUZZ_CHECK(luaL_dostring(L,
        "function gather(gmatch, s, p)\n"
        "  local t = {}\n"
        "  for a, b in gmatch(s, p) do\n"
        "    t[#t + 1] = tostring(a) .. '/' .. tostring(b)\n"
        "    if #t > 20 then break end\n"
        "  end\n"
        "  return table.concat(t, ',')\n"
        "end\n"
        "function run(f, ...)\n"
        "  local r = table.pack(pcall(f, ...))\n"
        "  for i = 1, r.n do r[i] = tostring(r[i]) end\n"
        "  return table.concat(r, '|', 1, r.n)\n"
        "end\n"
        "CALLS = {\n"
        "  function(F, s, p) return F.find(s, p) end,\n"
        "  function(F, s, p) return F.find(s, p, 2, true) end,\n"
        "  function(F, s, p) return F.match(s, p, -3) end,\n"
        "  function(F, s, p) return F.gsub(s, p, '<%0>') end,\n"
        "  function(F, s, p) return F.gsub(s, p, '%1', 2) end,\n"
        "  function(F, s, p) return F.gsub(s, p, function(a) return a .. a end) end,\n"
        "  function(F, s, p) return gather(F.gmatch, s, p) end,\n"
        "}\n") == LUA_OK);
    return L;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    state();
    size_t plen = data[0] % size;
    const char *p = (const char *)data + 1, *s = p + plen;
    size_t slen = size - 1 - plen;
    int top = lua_gettop(L);
    for (int i = 1; i <= 7; i++) {
        lua_getglobal(L, "run");
        lua_getglobal(L, "CALLS");
        lua_rawgeti(L, -1, i);
        lua_remove(L, -2);
        lua_getglobal(L, "P");
        lua_pushlstring(L, s, slen);
        lua_pushlstring(L, p, plen);
        ticks = 0;
        FUZZ_CHECK(lua_pcall(L, 4, 1, 0) == LUA_OK);
        size_t olen;
        const char *ours = lua_tolstring(L, -1, &olen);
        if (ticks > MAX_TICKS) { /* gave up: the stock functions would run as long */
            lua_settop(L, top);
            continue;
        }
        lua_getglobal(L, "run");
        lua_getglobal(L, "CALLS");
        lua_rawgeti(L, -1, i);
        lua_remove(L, -2);
        lua_getglobal(L, "string");
        lua_pushlstring(L, s, slen);
        lua_pushlstring(L, p, plen);
        FUZZ_CHECK(lua_pcall(L, 4, 1, 0) == LUA_OK);
        size_t slen2;
        const char *stock = lua_tolstring(L, -1, &slen2);
        /* error messages carry no position: both are C functions */
        if (olen != slen2 || memcmp(ours, stock, olen))
            fprintf(stderr, "call %d, pattern of %zu bytes, subject of %zu:\n ours:  %s\n stock: %s\n", i, plen,
                    slen, ours, stock);
        FUZZ_CHECK(olen == slen2 && !memcmp(ours, stock, olen));
        lua_settop(L, top);
    }
    FUZZ_CHECK(lua_gettop(L) == top);
    return 0;
}
