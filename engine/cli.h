/*
** cli.h: the coax command. One file a subcommand (cli_<name>.c), each an
** int cli_<name>(int argc, char **argv) returning the exit status, with
** argv[0] the subcommand's name. Shared helpers live in cli_util.c.
*/
#ifndef COAX_CLI_H
#define COAX_CLI_H

#include "core.h"

#include <stdio.h>

int cli_repair(int argc, char **argv);
int cli_extract(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_batch(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_example(int argc, char **argv);
int cli_tokens(int argc, char **argv);

/* Reads FILE ("-" or NULL: standard input) whole. More than 'max' bytes is
** COAX_ESIZE; the caller frees *data with free(). Fills err on failure. */
coax_code cli_read(const char *path, size_t max, char **data, size_t *len,
                   coax_error *err);

/* Option matching: if argv[*i] is "--name" (with the value in the next
** argument) or "--name=value", sets *value, advances *i past what it used and
** returns 1; returns -1 (and prints the usage error) when the value is
** missing; 0 when argv[*i] is not this option. */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **value);

/* Parses a positive size ("512", "64k", "256M", "1G"). */
int cli_size(const char *s, size_t *out);

/* Parses the limit options every command shares (--max-depth, --max-input,
** --max-string) at argv[*i]: 1 matched, 0 not a limit option, -1 bad value. */
int cli_limit_opt(const char *cmd, int argc, char **argv, int *i, coax_limits *lim);

/* Prints "coax CMD: MESSAGE" to stderr and returns exit status 2. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints an error unit for 'code' to stderr ("coax CMD: message (line L,
** column C)") and returns the code's exit status. */
int cli_fail(const char *cmd, coax_code code, const coax_error *err);

/* Appends one repair-log entry as a JSON line (the --log format). */
void cli_put_repair_entry(coax_buf *b, const coax_repair_entry *e);

/* The agent options `run` and `batch` share (cli_agent.c). */
typedef struct cli_agent {
    const char *name, *model, *base_url, *mode; /* --agent, --model, --base-url, --mode */
    const char *options;                        /* --agent-options '{...}' */
    const char *replay;                         /* --replay FILE */
    const char *command;                        /* --command CMD: what the command agent runs */
    bool verbose;                               /* --verbose, -v */
} cli_agent;

/* Matches one agent option at argv[*i], as cli_opt does: 1, 0 or -1. */
int cli_agent_opt(int argc, char **argv, int *i, cli_agent *a);

/* Appends the agent options' members, without braces, to 'm': name (the
** --agent, else "replay" with --replay, else 'default_name' when not NULL),
** model, base_url, mode, the replies of --replay, then --agent-options'
** members. Returns 0 or an exit status after a message. */
int cli_agent_members(const char *cmd, const cli_agent *a, const char *default_name, coax_buf *m);

/* The agent chosen for a recipe by cli_agent_choose. */
typedef struct cli_agent_choice {
    bool demo;         /* the recipe's recorded transcript plays */
    char notice[600];  /* which agent and why, for stderr; "" when named */
} cli_agent_choice;

/* The agent options of a session of RECIPE, as cli_agent_members appends
** them, and when no agent is named on the command line (no --agent, no
** --replay, 'default_name' NULL) the default agent as "fallback", which the
** runtime uses only when the recipe names none either: the provider of the
** first of OPENAI_API_KEY, ANTHROPIC_API_KEY and OLLAMA_HOST set (openai,
** anthropic, ollama), else the demo: the replay agent with the recipe's
** recorded transcript, RECIPE.replies.jsonl beside it (RECIPE without .lua).
** The engine runs the recipe once to see whether it names an agent. Fills
** 'c' with the line to print once the recipe is known good. No transcript:
** exit 2 after a message. Returns 0 or an exit status after a message. */
int cli_agent_choose(const char *cmd, const cli_agent *a, const char *default_name, coax_engine *e,
                     const char *recipe, coax_buf *m, cli_agent_choice *c);

/* --verbose: the engine logs each HTTP request and response to stderr. */
void cli_agent_engine(const char *cmd, const cli_agent *a, coax_engine_options *eo);

/* Ctrl-C, SIGTERM and SIGHUP end run and batch between polls, so that the
** engine is freed (it kills the commands the command agent started, which
** run in process groups of their own and would outlive the CLI) before the
** CLI dies of the signal. cli_trap_signals installs the handlers and, once
** 'engine' is given (NULL: not yet), a signal also stops the script it is
** running (coax_engine_interrupt), so a script busy in a loop cannot delay
** the end; a second signal ends the CLI at once. cli_signalled returns the
** signal caught, or 0; cli_die_of frees nothing and dies of 'sig' as if
** never caught. A closed output pipe is not a signal: SIGPIPE is ignored
** (main), and the write fails with EPIPE. */
void cli_trap_signals(coax_engine *engine);
int cli_signalled(void);
void cli_die_of(int sig);

/* Writes a buffer to stdout; returns 0, or the status of cli_write_status
** after a message if the write failed (a full disk or a closed pipe must
** not pass silently). */
int cli_flush(const char *cmd, coax_buf *out);

/* The exit status of a failed write with errno 'e': 4 when the device is out
** of space (ENOSPC, EDQUOT, EFBIG: a limit of the machine; free space and run
** again, batch with --resume) or the reader is gone (EPIPE: a closed pipe),
** 2 for any other error. */
int cli_write_status(int e);

#endif
