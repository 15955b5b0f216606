/*
** process.c: the host's command as a child process, without blocking (see
** process.h).
**
** The child runs `/bin/sh -c COMMAND` in a process group of its own (so a
** timeout kills what the shell started too), with stdin on a socket pair
** (written with MSG_NOSIGNAL: a child that exits without reading cannot
** raise SIGPIPE in the host) and stdout and stderr on pipes. Every
** descriptor the engine keeps is non-blocking and close-on-exec, made so
** atomically (another thread's child must not inherit our pipe ends: it
** would hold the output open), and the child gets none of the host's other
** descriptors, and default signal dispositions.
**
** When the shell exits, what it left behind in its group is killed before
** the shell is reaped (the zombie keeps the group's id from being reused).
*/
#define _GNU_SOURCE /* pipe2, SOCK_CLOEXEC, posix_spawn_file_actions_addclosefrom_np */
#include "io/process.h"
#include "session/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define STDERR_KEEP 4096 /* the head of stderr kept for error messages */

struct proc_req {
    const coax_allocator *alloc;
    pid_t pid;               /* 0 once reaped */
    int in, out, err;        /* the engine's ends, -1 once closed */
    int pidfd;               /* readable when the shell exits (Linux 5.3+), or -1 */
    coax_buf input, output, errors;
    size_t written, cap;
    double t0, deadline;
    int timeout_ms;
    int status;              /* the exit status; -1: unknown (the host reaped it) */
    int signal;              /* the signal that ended it, or 0 */
    enum { PROC_OK, PROC_TIMEOUT, PROC_TOO_LARGE, PROC_OOM } fail;
};

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* Reaps the shell once it has exited ('wait': waits for that), after
** killing what it left running in its group. */
static void reap(proc_req *p, bool wait)
{
    if (!p->pid) return;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int r;
    do r = waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOWAIT | (wait ? 0 : WNOHANG));
    while (r < 0 && errno == EINTR);
    if (r == 0 && si.si_pid == 0) return; /* still running */
    pid_t pid = p->pid;
    p->pid = 0;
    if (r < 0) return; /* reaped elsewhere (a host that ignores SIGCHLD): the status is unknown */
    kill(-pid, SIGKILL); /* background children of the shell; the zombie still holds the group id */
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (si.si_code == CLD_EXITED) p->status = si.si_status;
    else p->signal = si.si_status;
}

/* Kills the whole group and waits for the shell: SIGKILL cannot be
** caught, so the wait is short. */
static void stop(proc_req *p)
{
    if (p->pid) kill(-p->pid, SIGKILL);
    close_fd(&p->in);
    close_fd(&p->out);
    close_fd(&p->err);
    reap(p, true);
    close_fd(&p->pidfd);
}

void proc_cancel(proc_req *p)
{
    if (!p) return;
    stop(p);
    coax_buf_free(&p->input);
    coax_buf_free(&p->output);
    coax_buf_free(&p->errors);
    coax_free_raw(p->alloc, p, sizeof *p);
}

bool proc_ready(const proc_req *p) { return p->pid == 0 && p->out < 0 && p->err < 0; }

double proc_deadline(const proc_req *p)
{
    /* Its output has ended but it has not exited yet (or it closed its
    ** output and goes on): without a pidfd to wait on, look again soon
    ** rather than at the deadline. */
    if (p->out < 0 && p->err < 0 && p->pid && p->pidfd < 0) {
        double soon = coax_now_ms() + 2;
        return soon < p->deadline ? soon : p->deadline;
    }
    return p->deadline;
}

/* Reads what 'fd' has into 'b', closing it at its end. Past 'keep' bytes
** the rest is dropped, or, when 'capped', reading stops: returns false. */
static bool drain(proc_req *p, int *fd, coax_buf *b, size_t keep, bool capped)
{
    char chunk[16384];
    while (*fd >= 0) {
        ssize_t n = read(*fd, chunk, sizeof chunk);
        if (n > 0) {
            size_t room = b->len < keep ? keep - b->len : 0;
            coax_buf_put(b, chunk, (size_t)n < room ? (size_t)n : room);
            if (b->oom) {
                p->fail = PROC_OOM;
                return false;
            }
            if (capped && (size_t)n > room) return false;
        } else if (n == 0) {
            close_fd(fd);
        } else if (errno != EINTR) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) close_fd(fd);
            break;
        }
    }
    return true;
}

void proc_pump(proc_req *p)
{
    if (proc_ready(p)) return;
    while (p->in >= 0 && p->written < p->input.len) {
        ssize_t n = send(p->in, p->input.data + p->written, p->input.len - p->written, MSG_NOSIGNAL);
        if (n > 0) p->written += (size_t)n;
        else if (n < 0 && errno == EINTR) continue;
        else {
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) close_fd(&p->in); /* it stopped reading */
            break;
        }
    }
    if (p->in >= 0 && p->written == p->input.len) close_fd(&p->in); /* end of input */
    if (!drain(p, &p->out, &p->output, p->cap, true) || !drain(p, &p->err, &p->errors, STDERR_KEEP, false)) {
        if (p->fail == PROC_OK) p->fail = PROC_TOO_LARGE;
        stop(p);
        return;
    }
    if (p->out < 0 && p->err < 0) reap(p, false);
    if (!proc_ready(p) && coax_now_ms() >= p->deadline) {
        p->fail = PROC_TIMEOUT;
        stop(p);
    }
}

void proc_fds(const proc_req *p, struct pollfd *fds, unsigned cap, unsigned *n)
{
    int want[4][2] = {{p->in, POLLOUT}, {p->out, POLLIN}, {p->err, POLLIN}, {p->pid ? p->pidfd : -1, POLLIN}};
    for (int i = 0; i < 4 && *n < cap; i++) {
        if (want[i][0] < 0) continue;
        fds[*n].fd = want[i][0];
        fds[*n].events = (short)want[i][1];
        fds[*n].revents = 0;
        (*n)++;
    }
}

/* Starts COMMAND; returns an errno value on failure. */
static int spawn(proc_req *p, const char *command)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    int rc = 0;
    /* Every end close-on-exec from the start (dup2 onto 0, 1 and 2 clears
    ** the flag in this child); ours non-blocking. */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
        rc = errno;
    int mine[3] = {in[0], out[0], err[0]};
    for (int i = 0; !rc && i < 3; i++) {
        int fl = fcntl(mine[i], F_GETFL);
        if (fl < 0 || fcntl(mine[i], F_SETFL, fl | O_NONBLOCK)) rc = errno ? errno : EIO;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    bool fa_ok = false, attr_ok = false;
    if (!rc && !(rc = posix_spawn_file_actions_init(&fa))) fa_ok = true;
    if (!rc && !(rc = posix_spawnattr_init(&attr))) attr_ok = true;
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, in[1], 0);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, err[1], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
    /* Not the host's files, sockets or pipes (a report being written, an
    ** embedder's connections). */
    if (!rc) rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    if (!rc) rc = posix_spawnattr_setpgroup(&attr, 0);
    /* No signal blocked, and every one at its default: a host that ignores
    ** SIGPIPE or SIGXFSZ must not hand that on. */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (!rc) rc = posix_spawnattr_setsigmask(&attr, &none);
    if (!rc) rc = posix_spawnattr_setsigdefault(&attr, &all);
    if (!rc) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (!rc) {
        char *argv[] = {"sh", "-c", (char *)command, NULL};
        rc = posix_spawn(&p->pid, "/bin/sh", &fa, &attr, argv, environ);
        if (rc) p->pid = 0;
    }
#ifdef SYS_pidfd_open
    if (!rc) p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0); /* -1 on older kernels: the clock it is */
#endif
    if (fa_ok) posix_spawn_file_actions_destroy(&fa);
    if (attr_ok) posix_spawnattr_destroy(&attr);
    close_fd(&in[1]);
    close_fd(&out[1]);
    close_fd(&err[1]);
    p->in = in[0], p->out = out[0], p->err = err[0];
    if (rc) stop(p);
    return rc;
}

/* ---- coax.command ---------------------------------------------------------- */

/* The request being started lives in a userdata until the session owns it,
** so a raised error frees it. */
static int pending_gc(lua_State *L)
{
    proc_req **box = lua_touserdata(L, 1);
    proc_cancel(*box);
    *box = NULL;
    return 0;
}

static int command_k(lua_State *L, int status, lua_KContext ctx);

/* The process's result, once it has ended: {status, stdout, stderr,
** elapsed_ms} or nil, message, kind ("timeout", "signal"; at the start,
** "spawn" or "config": no command). */
static int finish(lua_State *L, coax_session *s)
{
    proc_req *p = s->proc;
    if (p->fail == PROC_TOO_LARGE || p->fail == PROC_OOM) {
        char msg[200];
        if (p->fail == PROC_OOM) snprintf(msg, sizeof msg, "coax.command: out of memory reading the output");
        else snprintf(msg, sizeof msg, "coax.command: the output is larger than the limit of %zu bytes", p->cap);
        vm_of(L)->limit = LIMIT_RESPONSE;
        return luaL_error(L, "%s", msg); /* the session ends; it frees p */
    }
    /* Built while the session still owns p: a memory error on the way
    ** ends the session, which frees it. */
    int n = 3;
    if (p->fail == PROC_TIMEOUT) {
        lua_pushnil(L);
        lua_pushfstring(L, "the command timed out after %d ms", (int)(p->timeout_ms));
        lua_pushliteral(L, "timeout");
    } else if (p->signal) {
        lua_pushnil(L);
        lua_pushfstring(L, "the command was killed by signal %d", p->signal);
        lua_pushliteral(L, "signal");
    } else {
        lua_createtable(L, 0, 4);
        if (p->status >= 0) { /* unknown when the host reaped it: no status, rather than a made-up one */
            lua_pushinteger(L, p->status);
            lua_setfield(L, -2, "status");
        }
        lua_pushlstring(L, p->output.data ? p->output.data : "", p->output.len);
        lua_setfield(L, -2, "stdout");
        lua_pushlstring(L, p->errors.data ? p->errors.data : "", p->errors.len);
        lua_setfield(L, -2, "stderr");
        lua_pushnumber(L, coax_now_ms() - p->t0);
        lua_setfield(L, -2, "elapsed_ms");
        n = 1;
    }
    s->proc = NULL;
    proc_cancel(p);
    return n;
}

/* coax.command(input [, {timeout_ms}]): runs the session's command (the
** host's) with 'input' on its stdin; yields until it ends. */
static int l_command(lua_State *L)
{
    coax_vm *vm = vm_of(L);
    coax_session *s = vm->current;
    size_t len;
    const char *input = luaL_checklstring(L, 1, &len);
    if (!s || !lua_isyieldable(L)) return luaL_error(L, "coax.command: only an agent's call can run the command");
    if (!s->command) {
        lua_pushnil(L);
        lua_pushliteral(L, "no command to run: the host names it (coax run --command, or the command option)");
        lua_pushliteral(L, "config");
        return 3;
    }
    if (L != s->co) return luaL_error(L, "coax.command: only the agent's own call can run the command, not a coroutine of its own");
    lua_Number timeout = 60000;
    if (lua_istable(L, 2) && lua_getfield(L, 2, "timeout_ms") != LUA_TNIL) {
        timeout = lua_tonumber(L, -1);
        if (!lua_isnumber(L, -1) || !(timeout >= 1 && timeout <= 86400000))
            return luaL_error(L, "coax.command: timeout_ms must be a number of milliseconds from 1 to 86400000");
    }
    proc_cancel(s->proc); /* an earlier one the script gave up on */
    s->proc = NULL;
    const coax_allocator *a = s->engine->alloc;
    proc_req **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, pending_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    proc_req *p = coax_alloc_raw(a, sizeof *p);
    if (!p) return luaL_error(L, "out of memory");
    memset(p, 0, sizeof *p);
    *box = p;
    p->alloc = a;
    p->in = p->out = p->err = p->pidfd = -1;
    p->status = -1;
    /* Output Lua could not hold anyway is not read either. */
    p->cap = s->engine->limits.max_input < vm->mem_cap ? s->engine->limits.max_input : vm->mem_cap;
    coax_buf_init(&p->input, a);
    coax_buf_init(&p->output, a);
    coax_buf_init(&p->errors, a);
    coax_buf_put(&p->input, input, len);
    if (p->input.oom) return luaL_error(L, "out of memory");
    p->t0 = coax_now_ms();
    p->timeout_ms = (int)timeout;
    p->deadline = p->t0 + (double)p->timeout_ms;
    int rc = spawn(p, s->command);
    if (rc) {
        lua_pushnil(L);
        lua_pushfstring(L, "the command could not start: %s", strerror(rc));
        lua_pushliteral(L, "spawn");
        return 3;
    }
    *box = NULL; /* the session owns it now */
    s->proc = p;
    proc_pump(p);
    return lua_yieldk(L, 0, 0, command_k);
}

static int command_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    coax_session *s = vm_of(L)->current;
    if (!s || !s->proc || L != s->co) return luaL_error(L, "coax.command: no command in flight");
    if (!proc_ready(s->proc)) return lua_yieldk(L, 0, 0, command_k);
    return finish(L, s);
}

void proc_push_lua(lua_State *L) { lua_pushcfunction(L, l_command); }
