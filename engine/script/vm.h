/*
** vm.h: the engine's Lua VM (vm.c): a sandboxed lua_State whose
** memory and instructions are capped, the loader for the scripts folder,
** and protected calls and resumes that tell a script error from a limit.
*/
#ifndef COAX_SCRIPT_H
#define COAX_SCRIPT_H

#include "base/core.h"

#include <lauxlib.h>
#include <lua.h>
#include <signal.h>

enum { VM_OK = 0, VM_YIELD, VM_ERROR, VM_LIMIT };

/* What one instruction of the budget stands for in time: C work a script's call does is charged
** an instruction per this many ns of its CPU time (vm.c's hook), as is a poll's (engine.c). */
#define VM_NS_PER_INSTRUCTION 250
/* LIMIT_RESPONSE: an HTTP response or a command's output passed its size
** cap (coax.http, coax.command);
** LIMIT_INTERRUPT: the host asked the engine to stop (vm_interrupt). */
enum { LIMIT_NONE = 0, LIMIT_MEMORY, LIMIT_INSTRUCTIONS, LIMIT_RESPONSE, LIMIT_INTERRUPT };

typedef struct coax_vm {
    lua_State *L;
    const coax_allocator *alloc;
    size_t mem_used, mem_cap;
    long instr_budget, instr_left;
    uint64_t work;     /* the instructions every call and resume has been charged, their C time's
                       ** included (vm_call, vm_resume), added up over the VM's life: what a poll
                       ** measures its passes by (engine.c's poll_loop) */
    bool call_capped;  /* instr_left is what is left of an agent's call (vm_resume), less than a budget */
    uint64_t tick_ns;  /* when the budget was last charged (CLOCK_MONOTONIC) */
    uint64_t cpu_ns;   /* the thread's CPU time when it was last read (vm.c's charge_time) */
    uint64_t short_ns; /* the clock's time over the short stretches since then */
    bool timed;        /* time is charged (not while the engine's setup runs) */
    int limit;         /* LIMIT_*: why the running script was stopped */
    char response_why[512]; /* LIMIT_RESPONSE's message (vm_stop_response), raised again
                            ** at each tick of the stop: the script may catch the first */
    volatile sig_atomic_t interrupted; /* set from a signal handler: stop every script */
    int closing;       /* coroutine.close calls in progress, nested */
    int calls;         /* vm_call and vm_resume in progress, nested: a host callback a script's C
                       ** call makes (a secret, a log line, an event) may start a session */
    bool host_failed;  /* the host's allocator returned NULL since the last call began (set by
                       ** the engine's allocator; a script's error then is out of memory) */
    bool failed_host;  /* the allocation that set LIMIT_MEMORY was the first the host's
                       ** allocator refused in this call (Lua may try it again) */
    bool retry_forgives; /* the last failed allocation set LIMIT_MEMORY: only its retry,
                         ** when it works, may clear the stop (never one set before) */
    char *dir;         /* the scripts folder (owned) */
    int env_ref;       /* the sandbox environment */
    int runtime_ref;   /* coax.runtime */
    void *current;     /* the task being resumed: the session whose agent runs (the lent
                       ** functions find theirs here) */
    uint64_t *clock;   /* os.clock's: the CPU time the running call's session has spent in its
                       ** calls (vm_clock_for), or the spare, a call's own when it has none */
    uint64_t *clock_next, spare_clock, clock_from; /* the next call's; the CPU time *clock was last brought up to */
    coax_buf msg;      /* the last error message (with traceback) */
    size_t head;       /* the length of the message before its traceback */
} coax_vm;

/* Opens the VM: the state, the sandbox, coax.runtime. 'dir' is copied.
** 'lent' (NULL-terminated) are the functions the layer above lends to
** scripts (coax.sleep, coax.command, ...): they join the scripts' coax
** module, each with 'lent_ctx' as its one upvalue (a light userdata). */
coax_code vm_open(coax_vm *vm, const coax_allocator *alloc, const char *dir, size_t mem_cap,
                  uint32_t instructions, const luaL_Reg *lent, void *lent_ctx, coax_error *err);
void vm_close(coax_vm *vm);

/* Calls the function below 'nargs' arguments on the stack, like lua_pcall,
** with a fresh instruction budget; VM_OK, VM_ERROR or VM_LIMIT. On failure
** the stack holds nothing from the call and vm->msg says why. */
int vm_call(coax_vm *vm, int nargs, int nresults);

/* The next vm_call or vm_resume runs for the session whose script CPU time
** is '*clock' (os.clock reads it): the call's time, and that of the calls
** nested in it with no session of their own, is added to it. */
void vm_clock_for(coax_vm *vm, uint64_t *clock);

/* '*clock' is freed: neither the running call nor the next one keeps it. */
void vm_clock_forget(coax_vm *vm, const uint64_t *clock);

/* Stops the running script as its memory cap does (LIMIT_MEMORY): 'what'
** (copied from the script into C, where the cap does not reach) "is larger
** than the Lua memory cap allows (lua_memory" 'detail' ")" (VM_OVER_CAP,
** for C that refuses the same without raising). Raises. */
int vm_over_memory_cap(lua_State *L, const char *what, const char *detail);
#define VM_OVER_CAP "%s larger than the Lua memory cap allows (lua_memory%s)"


/* Runs f(L) with 'ud' as its one argument (a light userdata) under
** vm_call: the way C code of the engine touches the state, since a value
** pushed or a result read outside a protected call may fail to allocate
** and Lua's panic aborts. Out of memory there is VM_LIMIT. */
int vm_protect(coax_vm *vm, lua_CFunction f, void *ud, int nresults);

/* Stops the running script as a response past its size cap does
** (LIMIT_RESPONSE), with 'why' as the message of the stop wherever it
** ends: the script may catch the first raise, and every tick after raises
** it again. Raises. */
int vm_stop_response(lua_State *L, const char *why);

/* Stops every script of the VM at its next instruction tick, now and from
** now on (as a limit). Async-signal-safe. */
void vm_interrupt(coax_vm *vm);

/* An agent's call may yield and be resumed (coax.sleep, coax.http) as often
** as it likes: each resume has a budget, and the whole call, over all its
** resumes, this many budgets (a loop of coax.sleep(0) would otherwise run
** for ever, a fresh budget at each resume). */
#define VM_CALL_BUDGETS 16

/* Inside vm_protect: resumes coroutine 'co' with 'nargs' arguments: VM_OK (finished; its
** results are on co's stack, '*nres' of them), VM_YIELD, VM_ERROR, VM_LIMIT. '*call_left': the
** instructions the coroutine's call has left over its resumes (VM_CALL_BUDGETS budgets at its
** first), less what this resume spends. */
int vm_resume(coax_vm *vm, lua_State *co, int nargs, int *nres, long *call_left);

/* Inside vm_protect: loads Lua text as a chunk whose _ENV is a new table that reads through to
** the sandbox (a recipe's globals stay its own). Pushes the chunk; returns
** VM_OK, or VM_ERROR with the syntax error in vm->msg. */
int vm_load_sandboxed(coax_vm *vm, const char *text, size_t len, const char *name);

/* Pushes coax.runtime's function 'name'. */
void vm_runtime(coax_vm *vm, const char *name);

/* The message of the last failure (NUL-terminated, never NULL), with its
** traceback; vm_error: without it (the message is cut, once asked). */
const char *vm_message(const coax_vm *vm);
const char *vm_error(coax_vm *vm);

/* The VM a state (or any of its threads) belongs to. */
coax_vm *vm_of(lua_State *L);

#endif
