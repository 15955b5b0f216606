/*
** cli/run.c: coax run RECIPE [--input FILE|-] [agent options] [--stream] [--max-attempts N]
**            [--report FILE] [--lua-path DIR] [--allow-dir DIR]
**            [--max-depth N] [--max-input N] [--max-string N]
*/
#include "cli/batch.h"
#include "extract/coerce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: coax run RECIPE [OPTIONS]\n"
    "Runs one extraction: prompts the agent, recovers and validates each reply, feeds the\n"
    "errors back and asks again, within the attempt budget. The value goes to stdout.\n"
    "With no agent named here or in the recipe: the provider of the first of OPENAI_API_KEY,\n"
    "ANTHROPIC_API_KEY, GEMINI_API_KEY and OLLAMA_HOST set, else the recipe's recorded transcript\n"
    "(RECIPE.replies.jsonl beside it) replayed offline; stderr says which.\n"
    "Options:\n"
    "  --input FILE          the input the prompt is made from (default: none; - is stdin)\n"
    "  --agent NAME          openai (key from OPENAI_API_KEY), anthropic (ANTHROPIC_API_KEY),\n"
    "                        gemini (GEMINI_API_KEY), ollama (OLLAMA_HOST), replay or command;\n"
    "                        wins over the recipe's\n"
    "  --command CMD         the command agent: CMD (sh -c) gets the conversation on stdin\n"
    "                        and prints the reply, once an attempt\n"
    "  --model M             the model (openai default: gpt-4o-mini)\n"
    "  --base-url URL        the server (openai default: https://api.openai.com/v1)\n"
    "  --mode M              openai: json_schema (default), json_object, prompt or tools;\n"
    "                        anthropic: prompt (default) or tools; gemini: json_schema\n"
    "                        (default), json, prompt or tools; ollama: format (default),\n"
    "                        json or prompt\n"
    "  --agent-options JSON  any other agent option, as in '{\"temperature\": 0}'\n"
    "  --stream              ask the agent for a streamed reply; stdout becomes JSON lines:\n"
    "                        {\"partial\": V, \"attempt\": N, \"complete\": [...], \"in_progress\": \"/x\"}\n"
    "                        as the value arrives (the recipe's stream.every_ms apart), then\n"
    "                        {\"value\": V, \"class\": C}, or the line coax batch writes for a\n"
    "                        failed session\n"
    "  --replay FILE         the replay agent, with these replies (one JSON string a line)\n"
    "  --verbose, -v         log each HTTP request and response on stderr (keys redacted), and\n"
    "                        what became of each attempt (repairs, coercions, errors, fed back)\n"
    "  --max-attempts N      attempts before giving up (default: the recipe's, else " CLI_TEXT(COAX_DEFAULT_MAX_ATTEMPTS) ")\n"
    "  --max-depth N         nesting of arrays and objects (default 512)\n"
    "  --max-input N         bytes of the input and of one reply (default 256M; k, M, G)\n"
    "  --max-string N        bytes of one decoded string (default 64M)\n"
    "  --report FILE         write the session report (outcome, metrics, every attempt)\n"
    "  --lua-path DIR        the coax scripts (default: $COAX_LUA_PATH, else lua/ beside the\n"
    "                        coax executable or its installed share/coax/lua, ./lua)\n"
    "  --allow-dir DIR       a folder the recipe may name files in (its schema), besides its\n"
    "                        own and the project's schemas/; repeatable\n"
    "  --help, -h            this help\n"
    "Exit: 0 ok, 1 exhausted, 2 usage or an invalid recipe or schema, 3 agent error,\n"
    "4 a limit (or no room to write the value or the report), 5 script error.\n"
    "Examples:\n"
    "  coax run lua/recipes/contact.lua --input lua/recipes/contact.input.txt\n"
    "  coax run invoice.lua --input invoice.txt --agent openai --model gpt-4o-mini\n";

/* What the session tells the command as it goes (session/report.h): the
** attempts, narrated for the demo and --verbose, and the partials --stream
** prints. */
typedef struct run_events {
    coax_buf told;    /* the narration of the attempts so far */
    int attempts;     /* the attempts narrated */
    int write_error;  /* errno of a failed write to stdout, or 0 */
    bool tell;        /* narrate each attempt */
    char guess[320];  /* the accepted value's first invented repair, told after it; "" when none */
} run_events;

/* Writes 'line' (newline-terminated) to stdout at once: a reader of the
** stream sees each partial as it comes. */
static void put_line(run_events *ev, const coax_buf *line)
{
    if (ev->write_error) return;
    if (line->oom) {
        ev->write_error = ENOMEM;
        return;
    }
    errno = 0;
    if (fwrite(line->data, 1, line->len, stdout) != line->len || fflush(stdout)) ev->write_error = errno ? errno : EIO;
}

/* A partial event's data ({"value", "complete", "in_progress", "attempt",
** "errors"?}) as --stream's line: {"partial", "attempt", "complete",
** "in_progress", "errors"?}. */
static void print_partial(void *ud, const coax_value *data)
{
    run_events *ev = ud;
    static const char *const keys[][2] = {{"value", "partial"}, {"attempt", "attempt"}, {"complete", "complete"},
                                          {"in_progress", "in_progress"}, {"errors", "errors"}};
    coax_buf line;
    coax_buf_init(&line, NULL);
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const coax_value *v = coax_object_get(data, keys[i][0], strlen(keys[i][0]));
        if (!v) continue;
        coax_buf_printf(&line, "%s\"%s\":", line.len ? "," : "{", keys[i][1]);
        coax_write_buf(&line, v, 0);
    }
    coax_buf_puts(&line, "}\n");
    put_line(ev, &line);
    coax_buf_free(&line);
}

/* --stream's last line: {"value": V, "class": C} (the least certain class
** the value rests on, as coax batch's line says it), or the line coax batch
** writes for a failed session (without an id). */
static void print_last(run_events *ev, coax_session *s)
{
    coax_buf line;
    coax_buf_init(&line, NULL);
    size_t vlen;
    const char *value = coax_session_value(s, &vlen);
    if (value) {
        coax_buf_puts(&line, "{\"value\":");
        coax_buf_put(&line, value, vlen);
        coax_buf_printf(&line, ",\"class\":\"%s\"}\n", coax_class_name(session_value_class(s)));
    } else {
        session_metrics m;
        batch_result_line(&line, s, NULL, 0, &m);
    }
    put_line(ev, &line);
    coax_buf_free(&line);
}

/* Appends 's' as the report's text holds it: up to a NUL, each byte that
** begins no valid UTF-8 sequence as U+FFFD. */
static void put_text(coax_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (coax_buf_reserve(b, 3 * n)) b->len += coax_utf8_replace(s, n, b->data + b->len);
}

/* The demo and --verbose tell what became of each reply, one line an
** attempt: what was repaired and coerced, what was wrong, and that it was
** fed back (said when the next attempt is recorded). */
static void narrate(void *ud, const session_attempt *a)
{
    run_events *ev = ud;
    coax_buf *line = &ev->told;
    const coax_extract_result *r = a->r;
    if (ev->attempts++) coax_buf_puts(line, "; fed back, asking again\n");
    coax_buf_printf(line, "coax run: attempt %d: ", ev->attempts);
    const char *sep = "repaired (";
    for (size_t k = 0; r && k < r->repair.nlog; k++) { /* each kind once, in order */
        const char *kind = r->repair.log[k].kind;
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++) seen = !strcmp(r->repair.log[j].kind, kind);
        if (seen) continue;
        coax_buf_puts(line, sep);
        put_text(line, kind);
        sep = ", ";
    }
    if (sep[0] == ',') coax_buf_puts(line, "); ");
    sep = "coerced (";
    for (size_t k = 0; r && k < r->ncoercions; k++) {
        coax_buf_puts(line, sep);
        put_text(line, r->coercions[k].kind);
        coax_buf_puts(line, " at ");
        put_text(line, r->coercions[k].pointer[0] ? r->coercions[k].pointer : "(root)");
        sep = ", ";
    }
    if (sep[0] == ',') coax_buf_puts(line, "); ");
    size_t ne = r ? r->validation.nerrors : 0;
    if (!strcmp(a->outcome, "ok")) {
        coax_buf_puts(line, "valid, accepted");
    } else if (!strcmp(a->outcome, "invalid") && ne) {
        const coax_schema_error *e = &r->validation.errors[0];
        coax_buf_printf(line, "%zu schema error%s, at ", ne, ne == 1 ? "" : "s");
        put_text(line, e->instance_location[0] ? e->instance_location : "(root)");
        coax_buf_puts(line, ": ");
        put_text(line, e->message);
        if (ne > 1) coax_buf_printf(line, " (and %zu more)", ne - 1);
    } else if (!strcmp(a->outcome, "rejected")) {
        coax_buf_printf(line, "rejected by the recipe: %s", a->reason ? a->reason : "");
    } else if (!strcmp(a->outcome, "no_json")) {
        coax_buf_printf(line, "no JSON: %s", a->reason ? a->reason : "");
    } else {
        coax_buf_puts(line, a->outcome);
    }
}

/* After each attempt: its narration, when told; for the accepted one, the
** first invented repair its value rests on (a recipe's max_class =
** "invented" takes one): stdout shows the value alone, so stderr says it
** was a guess, as coax repair and coax extract do. */
static void on_attempt(void *ud, const session_attempt *a)
{
    run_events *ev = ud;
    if (ev->tell) narrate(ud, a);
    const coax_repair_entry *e = a->r && !strcmp(a->outcome, "ok") ? extract_first_guess(a->r) : NULL;
    if (e)
        snprintf(ev->guess, sizeof ev->guess, "a guess at line %u, column %u of the reply: %s", e->line, e->column,
                 e->detail);
}

int cli_run(int argc, char **argv)
{
    const char *recipe = NULL, *input_path = NULL, *report = NULL, *attempts = NULL;
    bool stream = false;
    cli_agent agent = {0};
    cli_engine engine_opts = {0};
    coax_limits lim;
    coax_limits_default(&lim);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_opt(argc, argv, &i, "input", &input_path);
        if (r == 0) r = cli_agent_opt(argc, argv, &i, &agent);
        if (r == 0) r = cli_opt(argc, argv, &i, "report", &report);
        if (r == 0) r = cli_opt(argc, argv, &i, "max-attempts", &attempts);
        if (r == 0) r = cli_engine_opt(argc, argv, &i, &engine_opts);
        if (r == 0) r = cli_limit_opt("run", argc, argv, &i, &lim);
        if (r < 0) return 2;
        if (r > 0) continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(a, "--stream")) {
            stream = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage("run", "unknown option '%s' (try --help)", a);
        } else if (recipe) {
            return cli_usage("run", "one recipe at a time ('%s' and '%s')", recipe, a);
        } else {
            recipe = a;
        }
    }
    if (!recipe) return cli_usage("run", "a RECIPE is required (try --help)");
    coax_session_options so = {0};
    if (attempts) {
        char *end;
        long n = strtol(attempts, &end, 10);
        if (end == attempts || *end || n < 1 || n > 1000000)
            return cli_usage("run", "--max-attempts wants an integer from 1 to 1000000, not '%s'", attempts);
        so.max_attempts = (int)n;
    }
    char *input = NULL;
    size_t input_len = 0;
    coax_error err = {0};
    if (input_path) {
        coax_code rc = cli_read(input_path, lim.max_input, &input, &input_len, &err);
        if (rc) return cli_fail("run", rc, &err);
        so.input = input;
        so.input_len = input_len;
    }
    coax_engine *engine = NULL;
    coax_engine_options eo = {0};
    cli_engine_options(&engine_opts, &eo);
    eo.limits = lim;
    cli_agent_engine("run", &agent, &eo);
    coax_code rc = coax_engine_new(&eo, &engine, &err);
    if (rc) {
        free(input);
        return cli_engine_fail("run", rc, &err);
    }
    coax_buf members, agent_json;
    coax_buf_init(&members, NULL);
    coax_buf_init(&agent_json, NULL);
    run_events events = {0};
    coax_buf_init(&events.told, NULL);
    cli_agent_choice choice;
    int status = cli_agent_choose("run", &agent, NULL, engine, recipe, &members, &choice);
    if (status == 0 && stream) coax_buf_puts(&members, members.len ? ",\"stream\":true" : "\"stream\":true");
    if (status == 0 && members.len) {
        coax_buf_putc(&agent_json, '{');
        coax_buf_put(&agent_json, members.data, members.len);
        coax_buf_puts(&agent_json, "}");
        coax_buf_putc(&agent_json, '\0');
        if (agent_json.oom) status = cli_fail("run", COAX_ENOMEM, NULL);
        so.agent_json = agent_json.data;
        so.command = agent.command;
    }
    coax_buf_free(&members);
    bool tell = choice.demo || agent.verbose; /* each attempt told on stderr */
    coax_session *s = NULL;
    if (status == 0) {
        rc = coax_session_from_file(engine, recipe, &so, &s, &err);
        if (rc) status = cli_fail("run", rc, &err);
    }
    if (status == 0) { /* nothing has run yet: the session runs when polled */
        events.tell = tell;
        session_listener l = {on_attempt, stream ? print_partial : NULL, &events};
        session_listen(s, &l);
    }
    /* Opened before any model call, so a path that cannot be written costs none. */
    FILE *rf = NULL;
    if (status == 0 && report && !(rf = fopen(report, "wb")))
        status = cli_usage("run", "cannot write the report to %s: %s", report, strerror(errno));
    if (status == 0) {
        if (choice.notice[0] && coax_session_outcome(s) != COAX_OUTCOME_INVALID) cli_errf("coax run: %s\n", choice.notice);
        cli_trap_signals(engine);
        /* As coax_session_run, but a signal ends it; a host agent has no host here: it stops too. */
        while (coax_session_outcome(s) == COAX_OUTCOME_RUNNING && !cli_signalled() && !coax_session_host_request(s, NULL))
            coax_engine_poll(engine, 1000);
        if (cli_signalled()) {
            coax_engine_free(engine); /* kills the commands still running */
            cli_die_of(cli_signalled());
        }
        if (coax_session_host_request(s, NULL)) {
            status = cli_usage("run", "the host agent is answered by a program that embeds coax (its C or Lua API), "
                                      "not by the command line: name another agent");
        } else {
            coax_outcome outcome = coax_session_outcome(s);
            size_t rlen = 0;
            const char *rep = rf ? coax_session_report(s, &rlen) : NULL; /* built when asked for */
            int write_status = 0;
            if (rf) {
                errno = 0;
                bool ok = rep && fwrite(rep, 1, rlen, rf) == rlen && fputc('\n', rf) != EOF;
                int e = errno;
                if (fclose(rf)) {
                    if (ok) e = errno;
                    ok = false;
                }
                if (!ok) { /* no report (out of memory), or a full disk: not a silent success */
                    cli_errf("coax run: cannot write the report to %s: %s\n", report, e ? strerror(e) : "out of memory");
                    write_status = e ? cli_write_status(e) : 4;
                }
                rf = NULL;
            }
            if (tell && events.attempts && session_has_report(s)) { /* as the report has them */
                coax_buf_putc(&events.told, '\n');
                if (!events.told.oom) fwrite(events.told.data, 1, events.told.len, stderr);
            }
            size_t vlen;
            const char *value = coax_session_value(s, &vlen);
            if (stream) {
                print_last(&events, s);
                if (events.write_error) {
                    cli_errf("coax run: cannot write output: %s\n", strerror(events.write_error));
                    if (!write_status) write_status = cli_write_status(events.write_error);
                }
                if (!value) { /* the line says why; stderr too, as without --stream */
                    const char *why;
                    coax_session_error(s, &why);
                    cli_errf("coax run: %s: %s\n", coax_outcome_name(outcome), why ? why : "(no detail)");
                }
            } else if (value) {
                fwrite(value, 1, vlen, stdout);
                fputc('\n', stdout);
                if (fflush(stdout) || ferror(stdout)) {
                    int e = errno;
                    cli_errf("coax run: cannot write output: %s\n", strerror(e));
                    if (!write_status) write_status = cli_write_status(e);
                }
            } else {
                const char *why; /* the report's error (a script error's traceback included) */
                coax_session_error(s, &why);
                cli_errf("coax run: %s: %s\n", coax_outcome_name(outcome), why ? why : "(no detail)");
            }
            if (value && events.guess[0])
                cli_errf("coax run: %s (the report's log lists every repair)\n", events.guess);
            status = write_status ? write_status : coax_outcome_exit_status(outcome);
        }
    }
    if (rf) fclose(rf);
    coax_engine_free(engine);
    coax_buf_free(&agent_json);
    coax_buf_free(&events.told);
    free(input);
    return status;
}
