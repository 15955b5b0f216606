/*
** script/lib_owned.c: what Lua values own in C (arenas, compiled schemas),
** listed per state so that it is freed whatever becomes of its owner.
**
** A box's finalizer is not enough: when the allocator has run dry a
** finalizer can fail to run, and the box is then collected like any other
** object. Each resource therefore lives in a node of a list the state
** keeps (a userdata in the registry) with the allocator it was made with
** and the function that frees it. The box points at its node; the box's
** finalizer or __close, a call that is done with it (lcoax_own_release),
** lcoax_free_owned before the state closes, or the list's own finalizer
** frees it, whichever comes first.
*/
#include "script/lib.h"

#include <limits.h>

struct lcoax_owned {
    struct lcoax_owned *prev, *next;
    void *resource;
    void (*release)(void *resource);
    lcoax_lua_alloc alloc; /* the resource's allocator, which outlives the box */
};

typedef struct owned_list {
    lcoax_owned *first;
    lua_Alloc f; /* the state's allocator, for the nodes */
    void *ud;
    bool closed; /* every node freed: the boxes left own nothing */
} owned_list;

typedef struct owned_box {
    lcoax_owned *node;
} owned_box;

static const char list_key = 0;

static owned_list *list_of(lua_State *L)
{
    owned_list *l = lua_rawgetp(L, LUA_REGISTRYINDEX, &list_key) == LUA_TUSERDATA ? lua_touserdata(L, -1) : NULL;
    lua_pop(L, 1);
    return l;
}

static void node_free(owned_list *l, lcoax_owned *n)
{
    if (n->resource) n->release(n->resource);
    if (n->prev) n->prev->next = n->next;
    else l->first = n->next;
    if (n->next) n->next->prev = n->prev;
    l->f(l->ud, n, sizeof *n, 0);
}

void lcoax_own_release(lua_State *L, int box, const char *tname)
{
    owned_box *b = luaL_checkudata(L, box, tname);
    owned_list *l = list_of(L);
    if (b->node && l && !l->closed) node_free(l, b->node);
    b->node = NULL;
}

/* __gc and __close of every kind of box; the kind's name is the upvalue,
** so a script handing another userdata to it gets an argument error. */
static int box_gc(lua_State *L)
{
    lcoax_own_release(L, 1, lua_tostring(L, lua_upvalueindex(1)));
    return 0;
}

void lcoax_free_owned(lua_State *L)
{
    owned_list *l = list_of(L);
    if (!l || l->closed) return;
    while (l->first) node_free(l, l->first);
    l->closed = true;
}

static int list_gc(lua_State *L)
{
    lcoax_free_owned(L);
    return 0;
}

void lcoax_own_metatable(lua_State *L, const char *tname)
{
    if (luaL_newmetatable(L, tname)) {
        lua_pushstring(L, tname);
        lua_pushcclosure(L, box_gc, 1);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, "__gc");
        lua_setfield(L, -2, "__close");
    }
}

lcoax_owned *lcoax_own(lua_State *L, const char *tname, void (*release)(void *))
{
    owned_list *l = list_of(L);
    if (!l) {
        l = lua_newuserdatauv(L, sizeof *l, 0);
        memset(l, 0, sizeof *l);
        l->f = lua_getallocf(L, &l->ud);
        lua_createtable(L, 0, 1);
        lua_pushcfunction(L, list_gc);
        lua_setfield(L, -2, "__gc");
        lua_setmetatable(L, -2);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &list_key);
    }
    owned_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->node = NULL;
    lcoax_own_metatable(L, tname);
    lua_setmetatable(L, -2);
    lcoax_owned *n = l->closed ? NULL : l->f(l->ud, NULL, 0, sizeof *n);
    if (!n) lcoax_error(L, COAX_ENOMEM, NULL);
    memset(n, 0, sizeof *n);
    n->release = release;
    lcoax_lua_allocator(L, &n->alloc);
    n->next = l->first;
    if (l->first) l->first->prev = n;
    l->first = n;
    b->node = n;
    return n;
}

const coax_allocator *lcoax_owned_allocator(lcoax_owned *n)
{
    return &n->alloc.alloc;
}

void lcoax_owned_set(lcoax_owned *n, void *resource)
{
    n->resource = resource;
}

/* A step of the collector, as if the resource's bytes were Lua's own, when
** it runs. Only from Lua 5.4.4 on, which refuses lua_gc inside a finalizer
** (where a host may call coax.schema): earlier collectors run the step there
** and re-enter themselves, so on those hosts the collector is not told. */
void lcoax_owned_charge(lua_State *L, int box, const char *tname)
{
#if defined(LUA_VERSION_RELEASE_NUM) && LUA_VERSION_RELEASE_NUM >= 50404
    owned_box *b = luaL_checkudata(L, box, tname);
    size_t kb = b->node ? b->node->alloc.live >> 10 : 0;
    /* a host that stopped the collector keeps it stopped: a step would run
    ** (and its finalizers with it) whatever the host said */
    if (kb && lua_gc(L, LUA_GCISRUNNING, 0) == 1) lua_gc(L, LUA_GCSTEP, kb > INT_MAX ? INT_MAX : (int)kb);
#else
    (void)L;
    (void)box;
    (void)tname;
#endif
}

void *lcoax_owned_get(lua_State *L, int box, const char *tname)
{
    owned_box *b = luaL_checkudata(L, box, tname);
    return b->node ? b->node->resource : NULL;
}

/* ---- arenas ------------------------------------------------------------- */

#define LCOAX_ARENA "coax.arena"

static void release_arena(void *a)
{
    coax_arena_free(a);
}

coax_arena *lcoax_arena(lua_State *L)
{
    lcoax_owned *n = lcoax_own(L, LCOAX_ARENA, release_arena);
    coax_arena *a = coax_arena_new(lcoax_owned_allocator(n));
    if (!a) lcoax_error(L, COAX_ENOMEM, NULL);
    lcoax_owned_set(n, a);
    return a;
}

void lcoax_arena_release(lua_State *L, int box)
{
    lcoax_own_release(L, box, LCOAX_ARENA);
}
