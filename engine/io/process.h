/*
** process.h: the command agent's transport (process.c): the host's command
** run as a child process, its stdin written and its stdout and stderr read
** without blocking, inside the engine's poll like an HTTP request.
**
** The command line is the host's (coax_session_options.command, the CLI's
** --command), never a script's: coax.command(input, opts) can only run the
** session's own command. One process at most per session. The engine
** pumps it every pass (proc_pump), waits on its descriptors beside curl's
** (proc_fds), and resumes the agent when it has ended.
*/
#ifndef COAX_PROCESS_H
#define COAX_PROCESS_H

#include "script/vm.h"

#include <poll.h>

typedef struct proc_req proc_req;

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

/* Pushes coax.command (the function sandbox.lua exposes). */
void proc_push_lua(lua_State *L);

#endif
