/*
** engine.c: the engine, its sessions' list and the poll loop. A session
** waits for a timer (coax.sleep) or for its HTTP request (coax.http); the
** loop drives curl without waiting, steps every session that can move, and
** then waits on curl's sockets (or sleeps, with nothing in flight), never
** past the poll's timeout.
*/
#include "session/engine.h"
#include "session/lend.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#ifndef COAX_SHARE_DIR
#define COAX_SHARE_DIR "/usr/local/share/coax/lua"
#endif

static bool has_runtime(const char *dir)
{
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/coax/runtime.lua", dir) >= (int)sizeof path) return false;
    return stat(path, &st) == 0;
}

/* The scripts folder: the option, $COAX_LUA_PATH, ./lua, the share folder. */
static const char *script_dir(const coax_engine_options *o)
{
    if (o && o->script_dir) return o->script_dir;
    const char *env = getenv("COAX_LUA_PATH");
    if (env && *env) return env;
    if (has_runtime("lua")) return "lua";
    return COAX_SHARE_DIR;
}

static const coax_allocator *host_of(const coax_engine *e) { return e->host_set ? &e->host : NULL; }

static void *watch_malloc(void *ctx, size_t size)
{
    coax_engine *e = ctx;
    void *p = coax_alloc_raw(host_of(e), size);
    if (!p) e->vm.host_failed = true;
    return p;
}

static void *watch_realloc(void *ctx, void *ptr, size_t old_size, size_t size)
{
    coax_engine *e = ctx;
    void *p = coax_realloc_raw(host_of(e), ptr, old_size, size);
    if (!p) e->vm.host_failed = true;
    return p;
}

static void watch_free(void *ctx, void *ptr, size_t size) { coax_free_raw(host_of(ctx), ptr, size); }

coax_code coax_engine_new(const coax_engine_options *o, coax_engine **out, coax_error *err)
{
    if (!out) return coax_fail(err, COAX_EINVAL, 0, "coax_engine_new: NULL argument");
    *out = NULL;
    const coax_allocator *alloc = o ? o->alloc : NULL;
    if (coax_allocator_incomplete(alloc))
        return coax_fail(err, COAX_EINVAL, 0, "coax_engine_new: the allocator lacks a function");
    coax_engine *e = coax_alloc_raw(alloc, sizeof *e);
    if (!e) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    memset(e, 0, sizeof *e);
    if (alloc) {
        e->host = *alloc;
        e->host_set = true;
    }
    e->watch = (coax_allocator){watch_malloc, watch_realloc, watch_free, e};
    e->alloc = &e->watch;
    e->limits = coax_limits_resolve(o ? &o->limits : NULL);
    const char *dir = script_dir(o);
    if (!has_runtime(dir)) {
        coax_free_raw(e->alloc, e, sizeof *e);
        return coax_fail(err, COAX_EIO, 0, "coax scripts not found in %s (name their folder with the script_dir option or $COAX_LUA_PATH)", dir);
    }
    size_t mem = o && o->lua_memory ? o->lua_memory : COAX_DEFAULT_LUA_MEMORY;
    uint32_t instr = o && o->lua_instructions ? o->lua_instructions : COAX_DEFAULT_LUA_INSTRUCTIONS;
    e->http = http_new(e->alloc, o);
    if (!e->http) {
        coax_free_raw(e->alloc, e, sizeof *e);
        return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    }
    coax_code rc = vm_open(&e->vm, e->alloc, dir, mem, instr, lend_functions, e, err);
    if (rc) {
        http_free(e->http);
        coax_free_raw(e->alloc, e, sizeof *e);
        return rc;
    }
    rc = roots_init(&e->roots, e->alloc, dir, o ? o->allow_dirs : NULL, err);
    if (rc) {
        vm_close(&e->vm);
        http_free(e->http);
        coax_free_raw(e->alloc, e, sizeof *e);
        return rc;
    }
    *out = e;
    return COAX_OK;
}

void coax_engine_interrupt(coax_engine *e)
{
    if (e) vm_interrupt(&e->vm);
}

/* One pass: every session that can move, moves. Returns how many still
** run; '*next' is the earliest wake-up among the sleeping ones. */
static size_t pass(coax_engine *e, double *next)
{
    size_t running = 0;
    double now = coax_now_ms();
    *next = 0;
    for (coax_session *s = e->sessions; s && !e->free_pending; s = s->next) {
        if (s->state == SS_DONE || s->free_pending) continue;
        if (s->proc) proc_pump(s->proc);
        double due = session_next_event(s);
        if (due <= now) session_step(s);
        if (s->state == SS_DONE) continue;
        running++;
        due = session_next_event(s);
        if (due > 0 && (*next == 0 || due < *next)) *next = due;
    }
    return running;
}

/* Waits 'ms' (> 0) for curl's sockets and the commands' pipes, or sleeps
** with nothing in flight. */
static void wait_for(coax_engine *e, double ms)
{
    struct pollfd fds[64];
    unsigned n = 0;
    bool more = false; /* descriptors past the array: poll again soon */
    for (coax_session *s = e->sessions; s; s = s->next) {
        if (!s->proc || s->state == SS_DONE) continue;
        if (n + 4 > sizeof fds / sizeof *fds) more = true;
        else proc_fds(s->proc, fds, sizeof fds / sizeof *fds, &n);
    }
    if (more && ms > 5) ms = 5;
    if (http_active(e->http)) {
        http_wait(e->http, fds, n, (int)ms); /* whole milliseconds: never past the timeout */
        return;
    }
    if (n) {
        poll(fds, n, (int)ms); /* a signal ends the wait early: the caller's loop looks at the clock again */
        return;
    }
    struct timespec ts = {(time_t)(ms / 1e3), (long)((ms - (double)(time_t)(ms / 1e3) * 1e3) * 1e6)};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

/* The sessions still running, without moving any. */
static size_t count_running(const coax_engine *e)
{
    size_t n = 0;
    for (const coax_session *s = e->sessions; s; s = s->next) n += s->state != SS_DONE && !s->free_pending;
    return n;
}

/* Past its timeout a poll still takes the steps that are due at once (a
** reply's failure, then the next request; a partial to tell; a sleep's
** end), this many passes at most, so it returns soon whatever its sessions
** do: an agent that sleeps 0 in a loop no longer keeps it for ever (and its
** call ends at VM_CALL_BUDGETS budgets). And only while those passes, from
** the one the timeout ran out in, cost less than one call's budget (cheap):
** each pass may start an attempt of each session, whose calls (prompt,
** agent, on_event, on_submit, strategy) each have a budget, and whose reply
** is extracted in C, so 64 passes of a recipe whose hooks each ran 6 million
** instructions (under the 10 million of a call) kept one e:poll(0) for
** 14.2 s, and of one whose agent answered 7 MB of "[1,2,3] text " at once
** (0.5 s of extraction an attempt, no script's) for 20.8 s. */
#define POLL_EXTRA_PASSES 64

/* Whether the passes since the VM's work was 'work' and the thread's CPU time 'cpu' cost less
** than one call's budget, counted as a call's cost is: the instructions the scripts were charged
** (their C time included), or the CPU time at VM_NS_PER_INSTRUCTION an instruction, whichever is
** more. */
static bool cheap_since(const coax_engine *e, uint64_t work, uint64_t cpu)
{
    uint64_t budget = (uint64_t)e->vm.instr_budget;
    return e->vm.work - work < budget && (coax_cpu_ns() - cpu) / VM_NS_PER_INSTRUCTION < budget;
}

static void poll_loop(coax_engine *e, int timeout_ms)
{
    double deadline = coax_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    unsigned extra = 0;
    bool late = false;
    uint64_t late_work = 0, late_cpu = 0; /* when the pass that ran past the timeout began */
    e->wakes++;
    for (;;) {
        double next;
        uint64_t work = e->vm.work, cpu = coax_cpu_ns();
        http_perform(e->http);
        size_t running = pass(e, &next);
        if (running == 0 || e->free_pending) return;
        double now = coax_now_ms();
        if (now >= deadline) {
            if (!late) late = true, late_work = work, late_cpu = cpu;
            if ((next == 0 || next <= now) && cheap_since(e, late_work, late_cpu) && ++extra < POLL_EXTRA_PASSES)
                continue;
            return;
        }
        if (next == 0 || next <= now) continue; /* someone can move at once */
        wait_for(e, (next < deadline ? next : deadline) - now);
        e->wakes++;
    }
}

size_t coax_engine_poll(coax_engine *e, int timeout_ms)
{
    if (!e) return 0;
    if (e->polling) return count_running(e); /* from a callback: the poll outside goes on */
    e->polling = true;
    poll_loop(e, timeout_ms);
    return engine_reap(e) ? count_running(e) : 0;
}

coax_outcome coax_session_run(coax_session *s)
{
    if (!s) return COAX_OUTCOME_INVALID;
    coax_engine *e = s->engine;
    if (e->polling) return s->state == SS_DONE ? s->outcome : COAX_OUTCOME_RUNNING;
    e->polling = true;
    /* while it runs, a callback may free it, or the engine: both wait for the end */
    while (s->state != SS_DONE && !s->free_pending && !e->free_pending) {
        poll_loop(e, s->host == HOST_ASKED ? 0 : 1000);
        if (s->host == HOST_ASKED) break; /* only the host can move it */
    }
    coax_outcome outcome = s->state == SS_DONE ? s->outcome : COAX_OUTCOME_RUNNING;
    engine_reap(e);
    return outcome;
}
