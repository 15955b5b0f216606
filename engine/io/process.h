/*
** process.h: the command agent's transport (process.c): the host's command
** run as a child process, its stdin written and its stdout and stderr read
** without blocking, inside the engine's poll like an HTTP request.
**
** It knows neither sessions nor Lua. The command line is the host's
** (coax_session_options.command, the CLI's --command), never a script's:
** coax.command(input, opts), lent by the session layer
** (session/lend_command.c), can only run the session's own command. One
** process at most per session. The engine pumps it every pass
** (proc_pump), waits on its descriptors beside curl's (proc_fds), and
** resumes the agent when it has ended.
*/
#ifndef COAX_PROCESS_H
#define COAX_PROCESS_H

#include "base/core.h"

#include <poll.h>

typedef struct proc_req proc_req;

/* A process to run: 'input' (copied) is written to its stdin, at most
** 'cap' bytes of its stdout are read (past them it is stopped), and it is
** killed past 'timeout_ms' from its start. NULL on out of memory. */
proc_req *proc_new(const coax_allocator *alloc, const char *input, size_t len, size_t cap, int timeout_ms);

/* Starts 'command' (/bin/sh -c) as the process; its clock starts now.
** 0, or an errno value when it could not start. */
int proc_spawn(proc_req *p, const char *command);

/* Moves the process along without blocking: writes what stdin can take,
** reads what is there, reaps it, kills it past its timeout or output cap. */
void proc_pump(proc_req *p);

/* Whether the process has ended (or could not start, or was stopped). */
bool proc_ready(const proc_req *p);

/* When the engine must look at the process again without news on its
** descriptors: its timeout, or soon when only its exit is awaited. */
double proc_deadline(const proc_req *p);

/* Adds the descriptors to wait on to 'fds' (at most 'cap' in all, from
** '*n' on) and updates '*n'. */
void proc_fds(const proc_req *p, struct pollfd *fds, unsigned cap, unsigned *n);

/* Kills the process (its whole process group), reaps it and frees it.
** NULL: no-op. */
void proc_cancel(proc_req *p);

/* Why an ended process went wrong: PROC_OK when it ended by itself. */
typedef enum proc_fail { PROC_OK, PROC_TIMEOUT, PROC_TOO_LARGE, PROC_OOM } proc_fail;

/* What an ended process left, as proc_result reads it: valid until the
** process is freed. */
typedef struct proc_outcome {
    proc_fail fail;
    int status;              /* its exit status; -1: unknown (the host reaped it) */
    int signal;              /* the signal that ended it, or 0 */
    const char *out, *err;   /* what it wrote (never NULL): its stdout, the head of its stderr */
    size_t out_len, err_len;
    size_t cap;              /* proc_new's */
    int timeout_ms;
    double elapsed_ms;       /* from its start until now */
} proc_outcome;

void proc_result(const proc_req *p, proc_outcome *o);

#endif
