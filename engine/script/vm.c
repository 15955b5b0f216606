/*
** vm.c: the engine's Lua VM.
**
** Memory: every byte Lua allocates goes through the engine's allocator and
** counts against a cap; past the cap, allocations fail and the script
** stops with a memory error. Instructions: a count hook charges every 1000
** instructions against a budget that each call or resume starts afresh (a
** resume within what its coroutine's call has left, vm_resume); past it,
** or once any limit stopped the script, the hook raises an error at every
** instruction until control is back in C. The sandbox's pcall, xpcall and
** coroutine.resume pass these errors on (lua/coax/sandbox.lua), so a script cannot swallow them.
** C functions whose work an argument sets (table.move's range, ...) charge
** it up front (l_charge), since the hook never sees a C loop.
**
** Protection: Lua's panic handler calls abort(), so nothing here touches
** the state outside a protected call. The engine's C code that pushes
** values or reads a script's results runs as a C function under lua_pcall
** (vm_protect); the few calls made outside one (lua_rawgeti, lua_settop,
** luaL_unref, lua_pcall itself) never allocate.
*/
#include "script/vm.h"
#include "base/clock.h"
#include "base/stack.h"
#include "script/lib.h"

#include <lauxlib.h>
#include <lstate.h> /* gcemergency: see lua_retrying; LUA_HOOKTIME: see hook; cfloor: see enter */
#include <limits.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

#define HOOK_STEP 1000
/* Time a script spends in C (a loop of `s .. s` or s:upper() on megabyte
** strings: one instruction each, a millisecond each) is charged too: one
** instruction per VM_NS_PER_INSTRUCTION (vm.h) of its time between two counts, when
** that is more than the count itself. Lua runs 1000 instructions in about
** 10 us (500 us under valgrind), so only C-heavy stretches pay extra, and
** the default budget bounds them to about 2.5 s of CPU (charge_time). */

coax_vm *vm_of(lua_State *L) { return *(coax_vm **)lua_getextraspace(L); }

/* A failed allocation stops the script (LIMIT_MEMORY), unless Lua's retry
** after its emergency collection succeeds: garbage another session left is
** not this script's limit, and a host allocator that failed once and then
** gave is no failure. The retry forgives its own failure alone: a stop set
** before it (a request the retry never saw, a __close handler running as
** that stop unwinds and then retrying a request of its own) stands. */
static void *alloc_failed(coax_vm *vm, bool first_host_failure)
{
    vm->retry_forgives = vm->limit == LIMIT_NONE;
    if (vm->limit == LIMIT_NONE) {
        vm->limit = LIMIT_MEMORY;
        vm->failed_host = first_host_failure;
    }
    return NULL;
}

/* Whether Lua is trying a failed request again (the vendored lmem.c's
** tryagain sets gcemergency around it; the collection itself only frees). */
static bool lua_retrying(const coax_vm *vm) { return vm->L && G(vm->L)->gcemergency; }

static void *l_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    coax_vm *vm = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        if (ptr) {
            coax_free_raw(vm->alloc, ptr, osize);
            vm->mem_used -= osize;
        }
        return NULL;
    }
    if (nsize > old && vm->mem_used + (nsize - old) > vm->mem_cap) return alloc_failed(vm, false);
    bool host_had_failed = vm->host_failed;
    void *p = ptr ? coax_realloc_raw(vm->alloc, ptr, osize, nsize) : coax_alloc_raw(vm->alloc, nsize);
    if (!p) {
        /* Lua 5.4 copes with any failure, shrinking included; returning the
        ** old block instead would leave Lua and the host disagreeing on its
        ** size when it is freed. */
        return alloc_failed(vm, !host_had_failed && vm->host_failed);
    }
    if (vm->limit == LIMIT_MEMORY && vm->retry_forgives && lua_retrying(vm)) { /* it worked: nothing failed */
        vm->limit = LIMIT_NONE;
        if (vm->failed_host) vm->host_failed = false;
    }
    vm->mem_used = vm->mem_used - old + nsize;
    return p;
}

static void hook(lua_State *L, lua_Debug *ar);

/* Raises the stop when the budget is spent or the host interrupted, and
** again at every tick of a script stopped for any limit (memory, a
** response's size), as its stop unwinds: a message without a position
** (wherever the count found the script, the traceback says). */
static void stop_if_due(lua_State *L, coax_vm *vm)
{
    if (vm->interrupted && vm->limit == LIMIT_NONE) vm->limit = LIMIT_INTERRUPT;
    if (vm->instr_left < 0 && vm->limit == LIMIT_NONE) vm->limit = LIMIT_INSTRUCTIONS;
    if (vm->limit == LIMIT_NONE) return;
    /* Once stopped, this thread raises at its every instruction: the stop
    ** unwinds through the script's __close handlers, and one given a
    ** thousand instructions could declare more of them than it ends (a
    ** recursion of <close> variables), or loop, so the stop would never
    ** finish. arm() sets the step back. */
    lua_sethook(L, hook, LUA_MASKCOUNT, 1);
    switch (vm->limit) {
    case LIMIT_INTERRUPT:
        lua_pushliteral(L, "script stopped: the host interrupted it");
        break;
    case LIMIT_INSTRUCTIONS:
        if (vm->call_capped)
            lua_pushfstring(L, "script stopped: Lua instruction limit (%I over the agent's call and its resumes) reached",
                            (lua_Integer)vm->instr_budget * VM_CALL_BUDGETS);
        else
            lua_pushfstring(L, "script stopped: Lua instruction limit (%I) reached", (lua_Integer)vm->instr_budget);
        break;
    case LIMIT_MEMORY:
        lua_pushliteral(L, "not enough memory");
        break;
    case LIMIT_RESPONSE:
        lua_pushstring(L, vm->response_why);
        break;
    default:
        lua_pushliteral(L, "script stopped: a limit was reached");
        break;
    }
    lua_error(L);
}

/* The script's time since the last tick, in ns. The monotonic clock is
** cheap to read, but it runs on while the thread waits for a core: on a
** loaded machine a script preempted for 25 ms was charged 100,000
** instructions it never ran, and one near its budget ended ok or limit
** from run to run (4 runs in 300 stopped at 90% of their budget, 43 in
** 1,000 beside two busy loops). A stretch the clock says is short (at most
** a count's worth) is charged by the clock: its CPU time is no more. A
** long one is charged the thread's CPU time since it was last read, less
** the short stretches' clock time since (each already charged at least
** that), so what is charged in all is never less than the CPU time used,
** and nothing for time the script did not run. */
static uint64_t charge_time(coax_vm *vm)
{
    uint64_t t = coax_now_ns(), spent = t - vm->tick_ns;
    vm->tick_ns = t;
    if (spent <= (uint64_t)HOOK_STEP * VM_NS_PER_INSTRUCTION) {
        vm->short_ns += spent;
        return spent;
    }
    uint64_t cpu = coax_cpu_ns(), used = cpu - vm->cpu_ns;
    vm->cpu_ns = cpu;
    spent = used > vm->short_ns ? used - vm->short_ns : 0;
    vm->short_ns = 0;
    return spent;
}

/* Both clocks start over: a call begins, or a nested call's time ends. */
static void restart_time(coax_vm *vm)
{
    vm->tick_ns = coax_now_ns();
    vm->cpu_ns = vm->clock_from = coax_cpu_ns();
    vm->short_ns = 0;
}

/* Adds the CPU time since it was last brought up to date to the running
** call's session's clock. */
static void update_clock(coax_vm *vm)
{
    uint64_t now = coax_cpu_ns();
    if (vm->clock) *vm->clock += now - vm->clock_from;
    vm->clock_from = now;
}

void vm_clock_for(coax_vm *vm, uint64_t *clock) { vm->clock_next = clock; }

void vm_clock_forget(coax_vm *vm, const uint64_t *clock)
{
    if (vm->clock == clock) vm->clock = NULL;
    if (vm->clock_next == clock) vm->clock_next = NULL;
}

/* The call that begins keeps the clock of the session it runs for; one
** for none keeps the clock of the call it is nested in (its work is that
** call's), or at the outermost a spare from 0. */
static void take_clock(coax_vm *vm)
{
    if (vm->clock_next) vm->clock = vm->clock_next;
    else if (vm->calls == 1) vm->clock = &vm->spare_clock, vm->spare_clock = 0;
    vm->clock_next = NULL;
}

/* For sandbox.lua: os.clock, the CPU time the running session's scripts
** have spent (another session's time is not its to see), in seconds. */
static int l_clock(lua_State *L)
{
    coax_vm *vm = vm_of(L);
    update_clock(vm);
    lua_pushnumber(L, (lua_Number)(vm->clock ? *vm->clock : 0) / 1e9);
    return 1;
}

/* Runs every HOOK_STEP instructions; every 1024 tokens Lua parses (the
** vendored llex.c: a parse is one call in C, whose cost a text can make far
** larger than its size); as a C function returns once the coarse clock
** moved (the vendored ldo.c: a thousand instructions can hold 250 calls of
** a costly C function); and every MiB of strings compared or joined, once
** that clock moved (ldo.c's luaD_work: a sort of the same long strings).
** Those three ran no instruction (LUA_HOOKTIME): only their time is
** charged. */
static void hook(lua_State *L, lua_Debug *ar)
{
    coax_vm *vm = vm_of(L);
    uint64_t spent = charge_time(vm) / VM_NS_PER_INSTRUCTION;
    long charge = !vm->timed ? 0 : spent > (uint64_t)vm->instr_budget ? vm->instr_budget + 1 : (long)spent;
    long ran = ar->currentline == LUA_HOOKTIME ? 0 : HOOK_STEP;
    vm->instr_left -= charge > ran ? charge : ran;
    stop_if_due(L, vm);
}

/* The stop check lcoax_error runs before it raises COAX_ENOMEM: raises the
** running script's stop if one is pending (the cap refused an allocation,
** the budget is spent, the host interrupted), whose text would otherwise
** depend on whether a tick came first; returns if none is. */
static int l_stop_check(lua_State *L)
{
    stop_if_due(L, vm_of(L));
    return 0;
}

/* For sandbox.lua: charge(n) takes n instructions from the running
** script's budget (the work of a C loop of n steps), stopping it past. */
static int l_charge(lua_State *L)
{
    coax_vm *vm = vm_of(L);
    lua_Number n = luaL_checknumber(L, 1);
    if (n > 0) vm->instr_left = n >= (lua_Number)vm->instr_left + 1 ? -1 : vm->instr_left - (long)n;
    stop_if_due(L, vm);
    return 0;
}

/* Lua 5.4.4 runs the __close handlers of a coroutine being closed with the
** C-call count it had when it last yielded, so closes nested through those
** handlers are never counted and a chain of them overflows the C stack
** (fixed in 5.4.6). The sandbox's coroutine.close counts them itself: each
** level may use Lua's whole C-call allowance (LUAI_MAXCCALLS, 200). */
#define MAX_CLOSE_DEPTH 4

static int l_close(lua_State *L)
{
    coax_vm *vm = vm_of(L);
    if (vm->closing >= MAX_CLOSE_DEPTH) { /* like Lua's "C stack overflow": the script's position is in the traceback */
        lua_pushfstring(L, "coroutine.close: closes nested deeper than %d", MAX_CLOSE_DEPTH);
        return lua_error(L);
    }
    lua_pushvalue(L, lua_upvalueindex(1)); /* Lua's own coroutine.close */
    lua_insert(L, 1);
    vm->closing++;
    int rc = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    vm->closing--;
    if (rc != LUA_OK) return lua_error(L); /* a bad argument; a stop goes on, too */
    return lua_gettop(L);
}

/* For sandbox.lua: whether the engine is stopping the running script. */
static int l_limit_hit(lua_State *L)
{
    lua_pushboolean(L, vm_of(L)->limit != LIMIT_NONE);
    return 1;
}

/* The privileged loader behind the sandbox's require: "coax.a.b" is
** DIR/coax/a/b.lua, loaded as text with the given environment. */
static int l_loader(lua_State *L)
{
    coax_vm *vm = vm_of(L);
    const char *name = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, vm->dir);
    luaL_addchar(&b, '/');
    for (const char *p = name; *p; p++) luaL_addchar(&b, *p == '.' ? '/' : *p);
    luaL_addstring(&b, ".lua");
    luaL_pushresult(&b);
    const char *path = lua_tostring(L, -1);
    if (luaL_loadfilex(L, path, "t") != LUA_OK) {
        lua_pushnil(L);
        lua_pushfstring(L, "cannot load module '%s': %s", name, lua_tostring(L, -2));
        return 2;
    }
    lua_pushvalue(L, 2);
    lua_setupvalue(L, -2, 1); /* _ENV */
    return 1;
}

/* The message handler: no metamethod of the error object runs (a script's
** __tostring could loop or fail again while the error is handled). */
static int traceback(lua_State *L)
{
    const char *msg = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : NULL;
    if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    vm_of(L)->head = strlen(msg);
    luaL_traceback(L, L, msg, 1);
    return 1;
}

static void set_message(coax_vm *vm, const char *msg)
{
    if (!msg || vm->head > strlen(msg)) vm->head = msg ? strlen(msg) : 0;
    vm->msg.len = 0;
    coax_buf_puts(&vm->msg, msg ? msg : "(no message)");
    coax_buf_reserve(&vm->msg, 0);
    if (vm->msg.data) vm->msg.data[vm->msg.len] = '\0';
}

const char *vm_message(const coax_vm *vm) { return vm->msg.data && !vm->msg.oom ? vm->msg.data : ""; }

const char *vm_error(coax_vm *vm)
{
    if (!vm->msg.data || vm->msg.oom) return "";
    if (vm->head < vm->msg.len) vm->msg.data[vm->head] = '\0'; /* the traceback is dropped */
    return vm->msg.data;
}

/* How a call that failed ended: VM_LIMIT for a Lua limit or for memory,
** the cap's or the host's (a script that fails because an allocation did,
** whatever error it then raised, ran out of memory: the host's allocator,
** not the script, is to blame), VM_ERROR for the script's own error. */
static int failed_as(coax_vm *vm, int limit, int rc)
{
    if (vm->host_failed && rc != LUA_ERRMEM && !limit) {
        coax_buf m;
        coax_buf_init(&m, vm->alloc);
        coax_buf_printf(&m, "out of memory (the host's allocator failed), and then: %s", vm_message(vm));
        coax_buf_putc(&m, '\0');
        if (!m.oom) {
            vm->head += m.len - 1 - strlen(vm_message(vm));
            set_message(vm, m.data);
        }
        coax_buf_free(&m);
    }
    return limit || rc == LUA_ERRMEM || vm->host_failed ? VM_LIMIT : VM_ERROR;
}

/* The error object on top of 'L', as text, without converting it in place
** (converting a number allocates). */
static const char *error_text(lua_State *L)
{
    return lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(error object is not a string)";
}

/* The count step back to HOOK_STEP on a thread a stop set to 1 (only
** there: setting the hook restarts its count, and a coroutine that yields
** within every thousand instructions would never be counted at all). */
static void step_back(lua_State *L)
{
    if (lua_gethookcount(L) != HOOK_STEP) lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_STEP);
}

static void arm(coax_vm *vm)
{
    vm->limit = LIMIT_NONE;
    vm->host_failed = false;
    vm->instr_left = vm->instr_budget;
    vm->call_capped = false;
    step_back(vm->L);
    restart_time(vm);
}

/* The message of a stop the script caught and then ended (or yielded)
** before a tick raised it again. */
static const char *limit_caught(const coax_vm *vm, int limit)
{
    return limit == LIMIT_RESPONSE ? vm->response_why : "script stopped: a Lua limit was reached";
}

/* What a call arms: the running script's, kept while a call nested in it
** (a host callback inside one of its C calls starting a session) runs. A
** nested call re-armed it: the script went on with a fresh budget, its
** stop or a memory failure forgotten; and the nested one ran as the agent
** being resumed (vm->current), so the functions lent to agents acted on
** another session. */
typedef struct armed {
    int limit;
    bool host_failed, failed_host, retry_forgives, call_capped;
    long instr_left;
    int hook_count; /* the main thread's: 1 while a script on it is being stopped */
    void *current;
    uint64_t *clock, spare_clock;
    uintptr_t stack_floor; /* set by the outermost call (base/stack.h) */
} armed;

static armed enter(coax_vm *vm)
{
    update_clock(vm); /* the outer call's time until now */
    vm->calls++;
    armed outer = {vm->limit,      vm->host_failed, vm->failed_host,         vm->retry_forgives,
                   vm->call_capped, vm->instr_left, lua_gethookcount(vm->L), vm->current,
                   vm->clock,       vm->spare_clock, coax_stack_arm()};
    G(vm->L)->cfloor = coax_stack_floor; /* Lua's own calls into Lua stop at it too (the vendored lstate.c) */
    take_clock(vm);
    return outer;
}

/* The nested call's time was its own script's: the outer one's clock
** restarts now. A failure of the host's allocator in it stays known: the
** engine's own nested calls (a recipe's schema table converted as the
** recipe is read) fail the outer one for it. */
static void leave(coax_vm *vm, const armed *outer)
{
    update_clock(vm);
    /* no call runs after the outermost: no session's clock is kept, as its session may be freed */
    vm->clock = vm->calls == 1 ? NULL : outer->clock;
    vm->spare_clock = outer->spare_clock;
    coax_stack_restore(outer->stack_floor);
    G(vm->L)->cfloor = coax_stack_floor;
    if (--vm->calls == 0) return;
    vm->limit = outer->limit;
    vm->host_failed = outer->host_failed || vm->host_failed;
    vm->failed_host = outer->failed_host;
    vm->retry_forgives = outer->retry_forgives;
    vm->call_capped = outer->call_capped;
    vm->instr_left = outer->instr_left;
    vm->current = outer->current;
    restart_time(vm);
    if (lua_gethookcount(vm->L) != outer->hook_count) lua_sethook(vm->L, hook, LUA_MASKCOUNT, outer->hook_count);
}

/* What the call that began with 'before' instructions left was charged, added to vm->work. A
** nested call's is its own: leave() gives the outer call back what it had left when the nested
** one began, so nothing is counted twice. */
static void add_work(coax_vm *vm, long before)
{
    if (vm->instr_left < before) vm->work += (uint64_t)(before - vm->instr_left);
}

int vm_call(coax_vm *vm, int nargs, int nresults)
{
    lua_State *L = vm->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback);
    lua_insert(L, base);
    armed outer = enter(vm);
    arm(vm);
    vm->current = NULL; /* a call runs no agent: one nested in an agent's is not that agent's */
    vm->head = SIZE_MAX;
    long before = vm->instr_left;
    int rc = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    add_work(vm, before);
    int limit = vm->limit;
    leave(vm, &outer);
    if (!vm->calls) vm->limit = LIMIT_NONE;
    if (rc == LUA_OK && limit) { /* stopped, but the script caught it somehow */
        lua_pop(L, nresults == LUA_MULTRET ? 0 : nresults);
        set_message(vm, limit_caught(vm, limit));
        return VM_LIMIT;
    }
    if (rc == LUA_OK) return VM_OK;
    set_message(vm, error_text(L));
    lua_pop(L, 1);
    return failed_as(vm, limit, rc);
}

int vm_protect(coax_vm *vm, lua_CFunction f, void *ud, int nresults)
{
    lua_State *L = vm->L;
    if (!lua_checkstack(L, 3)) { /* never raises: false when the stack cannot grow */
        set_message(vm, "not enough memory");
        return VM_LIMIT;
    }
    lua_pushcfunction(L, f);
    lua_pushlightuserdata(L, ud);
    return vm_call(vm, 1, nresults);
}

int vm_resume(coax_vm *vm, lua_State *co, int nargs, int *nres, long *call_left)
{
    armed outer = enter(vm);
    arm(vm);
    if (*call_left < vm->instr_left) {
        vm->instr_left = *call_left;
        vm->call_capped = true;
    }
    long before = vm->instr_left;
    step_back(co);
    int rc = lua_resume(co, vm->L, nargs, nres);
    long spent = before - vm->instr_left; /* instr_left is below 0 once stopped */
    add_work(vm, before);
    *call_left = spent >= *call_left ? 0 : *call_left - spent;
    int limit = vm->limit;
    leave(vm, &outer);
    if (!vm->calls) vm->limit = LIMIT_NONE;
    if ((rc == LUA_OK || rc == LUA_YIELD) && limit) {
        set_message(vm, limit_caught(vm, limit));
        return VM_LIMIT;
    }
    if (rc == LUA_OK) return VM_OK;
    if (rc == LUA_YIELD) return VM_YIELD;
    const char *msg = error_text(co);
    vm->head = strlen(msg);
    luaL_traceback(vm->L, co, msg, 0);
    set_message(vm, lua_tostring(vm->L, -1));
    lua_pop(vm->L, 1);
    return failed_as(vm, limit, rc);
}

int vm_load_sandboxed(coax_vm *vm, const char *text, size_t len, const char *name)
{
    lua_State *L = vm->L;
    arm(vm);
    int rc = luaL_loadbufferx(L, text, len, name, "t");
    if (rc != LUA_OK) { /* a syntax error, or a stop: the count hook runs while Lua parses */
        set_message(vm, error_text(L));
        lua_pop(L, 1);
        return failed_as(vm, vm->limit, rc);
    }
    lua_newtable(L); /* the chunk's own globals */
    lua_newtable(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, vm->env_ref);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setupvalue(L, -2, 1);
    return VM_OK;
}

void vm_runtime(coax_vm *vm, const char *name)
{
    lua_rawgeti(vm->L, LUA_REGISTRYINDEX, vm->runtime_ref);
    lua_getfield(vm->L, -1, name);
    lua_remove(vm->L, -2);
}

typedef struct setup_args {
    coax_vm *vm;
    const luaL_Reg *lent;
    void *lent_ctx;
} setup_args;

/* Runs in the full environment, before anything untrusted: builds the
** sandbox and loads coax.runtime in it. */
int luaopen_cjson(lua_State *L); /* engine/vendor/cjson/lua_cjson.c */

static int setup(lua_State *L)
{
    const setup_args *args = lua_touserdata(L, 1);
    coax_vm *vm = args->vm;
    luaL_openlibs(L);
    /* cjson is built in (engine/vendor/): a C module from the system's
    ** cpath would bind to whatever Lua the host process exports. */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_cjson);
    lua_setfield(L, -2, "cjson");
    lua_pop(L, 1);
    lcoax_bound_validation(L); /* a script's schemas validate within per-call bounds */
    lcoax_set_stop_check(L, l_stop_check);
    luaL_requiref(L, "coax", lcoax_open_library, 0); /* the scripts' coax module */
    if (args->lent) { /* what the layer above lends */
        lua_pushlightuserdata(L, args->lent_ctx);
        luaL_setfuncs(L, args->lent, 1);
    }
    int coax_idx = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, vm->dir);
    luaL_addstring(&b, "/coax/sandbox.lua");
    luaL_pushresult(&b);
    if (luaL_loadfilex(L, lua_tostring(L, -1), "t") != LUA_OK) return lua_error(L);
    lua_call(L, 0, 1);
    lua_pushcfunction(L, l_loader);
    lua_pushvalue(L, coax_idx);
    lua_pushcfunction(L, l_limit_hit);
    lua_createtable(L, 0, 3); /* the VM's own functions */
    lua_pushcfunction(L, l_charge);
    lua_setfield(L, -2, "charge");
    lua_pushcfunction(L, l_clock);
    lua_setfield(L, -2, "clock");
    lua_getglobal(L, "coroutine");
    lua_getfield(L, -1, "close");
    lua_pushcclosure(L, l_close, 1);
    lua_setfield(L, -3, "close");
    lua_pop(L, 1);
    lua_call(L, 4, 1); /* the sandbox env */
    lua_pushvalue(L, -1);
    vm->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getfield(L, -1, "require");
    lua_pushliteral(L, "coax.runtime");
    lua_call(L, 1, 1);
    vm->runtime_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    /* What must exist before anything runs unprotected: the registry's
    ** free list (the first luaL_unref creates it) and the message Lua
    ** makes, outside any protection, when a message handler fails. */
    lua_pushboolean(L, 1);
    luaL_unref(L, LUA_REGISTRYINDEX, luaL_ref(L, LUA_REGISTRYINDEX));
    lua_pushliteral(L, "error in error handling");
    luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int vm_stop_response(lua_State *L, const char *why)
{
    coax_vm *vm = vm_of(L);
    vm->limit = LIMIT_RESPONSE;
    snprintf(vm->response_why, sizeof vm->response_why, "%s", why);
    lua_pushstring(L, vm->response_why); /* no position: the message is the same from any agent */
    return lua_error(L);
}

int vm_over_memory_cap(lua_State *L, const char *what, const char *detail)
{
    vm_of(L)->limit = LIMIT_MEMORY;
    return luaL_error(L, VM_OVER_CAP, what, detail);
}

void vm_interrupt(coax_vm *vm) { vm->interrupted = 1; }

coax_code vm_open(coax_vm *vm, const coax_allocator *alloc, const char *dir, size_t mem_cap,
                  uint32_t instructions, const luaL_Reg *lent, void *lent_ctx, coax_error *err)
{
    memset(vm, 0, sizeof *vm);
    vm->alloc = alloc;
    vm->mem_cap = mem_cap;
    vm->instr_budget = instructions;
    coax_buf_init(&vm->msg, alloc);
    vm->env_ref = vm->runtime_ref = LUA_NOREF;
    size_t n = strlen(dir);
    vm->dir = coax_alloc_raw(alloc, n + 1);
    if (!vm->dir) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    memcpy(vm->dir, dir, n + 1);
    vm->L = lua_newstate(l_alloc, vm);
    if (!vm->L) {
        vm_close(vm);
        return coax_fail(err, COAX_ENOMEM, 0, "out of memory creating the Lua state");
    }
    *(coax_vm **)lua_getextraspace(vm->L) = vm;
    lua_sethook(vm->L, hook, LUA_MASKCOUNT, HOOK_STEP);
    setup_args args = {vm, lent, lent_ctx};
    lua_pushcfunction(vm->L, setup);
    lua_pushlightuserdata(vm->L, &args);
    /* Trusted and bounded: neither its time (valgrind's, too) nor its instructions are the host's
    ** budget, which is the scripts' (a host's lua_instructions of 2,000 made every engine fail to
    ** load, as COAX_ENOMEM). */
    vm->instr_budget = LONG_MAX;
    int rc = vm_call(vm, 1, 0);
    vm->instr_budget = instructions;
    vm->timed = true;
    if (rc != VM_OK) {
        coax_code code = rc == VM_LIMIT ? COAX_ENOMEM : COAX_ESCRIPT;
        coax_fail(err, code, 0, "loading the coax scripts from %s: %.120s", dir, vm_message(vm));
        vm_close(vm);
        return code;
    }
    return COAX_OK;
}

void vm_close(coax_vm *vm)
{
    if (vm->L) {
        lcoax_free_owned(vm->L);
        lua_close(vm->L);
    }
    vm->L = NULL;
    coax_free_raw(vm->alloc, vm->dir, vm->dir ? strlen(vm->dir) + 1 : 0);
    vm->dir = NULL;
    coax_buf_free(&vm->msg);
}
