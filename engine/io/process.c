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
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
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
    proc_fail fail;
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

/* ---- the process's life ---------------------------------------------------- */

proc_req *proc_new(const coax_allocator *alloc, const char *input, size_t len, size_t cap, int timeout_ms)
{
    proc_req *p = coax_alloc_raw(alloc, sizeof *p);
    if (!p) return NULL;
    memset(p, 0, sizeof *p);
    p->alloc = alloc;
    p->in = p->out = p->err = p->pidfd = -1;
    p->status = -1;
    p->cap = cap;
    p->timeout_ms = timeout_ms;
    coax_buf_init(&p->input, alloc);
    coax_buf_init(&p->output, alloc);
    coax_buf_init(&p->errors, alloc);
    coax_buf_put(&p->input, input, len);
    if (p->input.oom) {
        proc_cancel(p);
        return NULL;
    }
    return p;
}

int proc_spawn(proc_req *p, const char *command)
{
    p->t0 = coax_now_ms();
    p->deadline = p->t0 + (double)p->timeout_ms;
    return spawn(p, command);
}

void proc_result(const proc_req *p, proc_outcome *o)
{
    o->fail = p->fail;
    o->status = p->status;
    o->signal = p->signal;
    o->out = p->output.data ? p->output.data : "";
    o->out_len = p->output.len;
    o->err = p->errors.data ? p->errors.data : "";
    o->err_len = p->errors.len;
    o->cap = p->cap;
    o->timeout_ms = p->timeout_ms;
    o->elapsed_ms = coax_now_ms() - p->t0;
}
