/*
** outcome.c: a session's outcome as a name (reports, the command's
** messages) and as the command's exit status (coax.h).
*/
#include "coax.h"

const char *coax_outcome_name(coax_outcome o)
{
    static const char *const names[] = {"running", "ok", "exhausted", "agent_error", "limit", "script_error", "invalid"};
    return (unsigned)o < sizeof names / sizeof *names ? names[o] : "unknown";
}

int coax_outcome_exit_status(coax_outcome o)
{
    static const int status[] = {0, 0, 1, 3, 4, 5, 2};
    return (unsigned)o < sizeof status / sizeof *status ? status[o] : 2;
}
