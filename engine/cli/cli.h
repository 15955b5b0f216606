/*
** cli.h: the coax command. One file a subcommand (cli_<name>.c), each an
** int cli_<name>(int argc, char **argv) returning the exit status, with
** argv[0] the subcommand's name. Shared helpers live in cli/util.c.
*/
#ifndef COAX_CLI_H
#define COAX_CLI_H

#include "base/core.h"

#include <stdio.h>

/* A number's macro as text, for help texts: CLI_TEXT(COAX_DEFAULT_MAX_ATTEMPTS) is "3". */
#define CLI_TEXT(macro) CLI_TEXT_(macro)
#define CLI_TEXT_(x) #x

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

/* Reads SCHEMA (FILE, "-" or NULL: standard input) within 'lim' (NULL: the
** default limits; the limit options bound a command's input, which is the
** schema only for `example`), parses
** it into 'arena' (*doc) and compiles it with 'so' (*out, freed by the
** caller). Returns 0, or the exit status after one message that names the
** file: 2 when it cannot be opened (with the reason), is not JSON or is not
** a valid schema; 4 when it is over a limit (size, depth) or memory ran out. Every
** command that reads a schema reads it here, so they agree. */
int cli_load_schema(const char *cmd, const char *path, const coax_limits *lim, const coax_schema_options *so,
                    coax_arena *arena, coax_value **doc, coax_schema **out);

/* What a --jsonl command does with one input line: 'text' is the line
** without its '\n' (or "\r\n"), or NULL when the line was longer than the
** limit and was skipped unread. Appends one answer line to 'out'; returns 0,
** 1 (this line's answer is no, or its error) or an exit status >= 2 after a
** message, which stops the reading. */
typedef int (*cli_line_fn)(void *ud, const char *text, size_t len, coax_buf *out);

/* Reads FILE ("-" or NULL: standard input) a line at a time, each of at
** most 'max' bytes, calls 'each' on every line in order and writes what it
** appends to stdout as it goes (cli/lines.c). Returns the highest status
** 'each' returned, or the exit status of a failure to open, read or write. */
int cli_each_line(const char *cmd, const char *path, size_t max, cli_line_fn each, void *ud);

/* The error of a line cli_each_line skipped as too long. */
void cli_line_too_long(char *msg, size_t cap, size_t max);

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

/* Writes to stderr as fprintf does, through coax_fput_shown (base/core.h):
** every message of the commands goes through it. */
void cli_errf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "coax CMD: MESSAGE" to stderr and returns exit status 2. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints an error unit for 'code' to stderr ("coax CMD: message (line L,
** column C)") and returns the code's exit status. */
int cli_fail(const char *cmd, coax_code code, const coax_error *err);

/* Appends one repair-log entry as a JSON line (the --log format). */
void cli_put_repair_entry(coax_buf *b, const coax_repair_entry *e);

/* Tells on stderr ("coax CMD: a guess at line L, column C: ...") when the
** accepted value rests on an invented repair, unless --log lists it. */
void cli_tell_guess(const char *cmd, const coax_extract_result *r);

/* The agent options `run` and `batch` share (cli/agent.c). */
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
** runtime uses only when the recipe names none either (agent_default.c,
** as for coax.run). The engine runs the recipe once to see whether it names an agent. Fills
** 'c' with the line to print once the recipe is known good. No transcript:
** exit 2 after a message. Returns 0 or an exit status after a message. */
int cli_agent_choose(const char *cmd, const cli_agent *a, const char *default_name, coax_engine *e,
                     const char *recipe, coax_buf *m, cli_agent_choice *c);

/* --verbose: the engine logs each HTTP request and response to stderr. */
void cli_agent_engine(const char *cmd, const cli_agent *a, coax_engine_options *eo);

/* The engine options `run` and `batch` share (cli/engine.c). */
#define CLI_MAX_ALLOW 32
typedef struct cli_engine {
    const char *lua_path;                     /* --lua-path DIR */
    const char *allow[CLI_MAX_ALLOW + 1];     /* --allow-dir DIR, repeated; NULL-terminated */
    int n_allow;
    char found[4096];                         /* the scripts found beside the executable */
} cli_engine;

/* Matches --lua-path or --allow-dir at argv[*i], as cli_opt does: 1, 0 or -1. */
int cli_engine_opt(int argc, char **argv, int *i, cli_engine *c);

/* Sets eo->script_dir (--lua-path; else, without $COAX_LUA_PATH, the
** scripts beside the executable when there are any) and eo->allow_dirs. */
void cli_engine_options(cli_engine *c, coax_engine_options *eo);

/* As cli_fail for coax_engine_new's failure; when the scripts were not
** found, the message names the search order and --lua-path. */
int cli_engine_fail(const char *cmd, coax_code code, const coax_error *err);

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
