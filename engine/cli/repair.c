/*
** cli/repair.c: coax repair [--log] [--pretty] [--jsonl] [limits] [FILE|-]
*/
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: coax repair [OPTIONS] [FILE|-]\n"
    "Prints the JSON value recovered from a raw model reply (FILE, or standard input):\n"
    "fences, prose and broken syntax are dealt with; valid JSON comes back as it is.\n"
    "Options:\n"
    "  --pretty              print the value indented (default: compact)\n"
    "  --log                 the repair log on stderr, one JSON object a line\n"
    "  --jsonl               a JSON string (one reply) a line in; {\"value\", \"repairs\"} or\n"
    "                        {\"error\"} a line out\n"
    "  --max-depth N         nesting of arrays and objects (default 512)\n"
    "  --max-input N         bytes of input (default 256M; k, M and G suffixes)\n"
    "  --max-string N        bytes of one decoded string (default 64M)\n"
    "  --help, -h            this help\n"
    "Exit: 0 recovered, 1 no JSON recoverable, 2 usage, 4 a limit.\n"
    "Example: echo \"Sure! {name: 'Ada', tags: ['x',],}\" | coax repair --log\n";

static int write_log(const coax_repair_result *r)
{
    coax_buf b;
    coax_buf_init(&b, NULL);
    for (size_t i = 0; i < r->nlog; i++) cli_put_repair_entry(&b, &r->log[i]);
    if (b.len) fwrite(b.data, 1, b.len, stderr);
    coax_buf_free(&b);
    return 0;
}

/* One reply: prints the value, returns the exit status. */
static int repair_one(const char *text, size_t len, const coax_limits *lim, bool pretty, bool log)
{
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) return cli_fail("repair", COAX_ENOMEM, NULL);
    coax_repair_result r;
    coax_error err;
    coax_code rc = coax_repair(arena, text, len, lim, &r, &err);
    int status;
    if (rc) {
        status = cli_fail("repair", rc, &err);
    } else {
        if (log) write_log(&r);
        coax_buf out;
        coax_buf_init(&out, NULL);
        coax_write_buf(&out, r.value, pretty ? COAX_WRITE_PRETTY : 0);
        coax_buf_putc(&out, '\n');
        status = cli_flush("repair", &out);
        coax_buf_free(&out);
    }
    coax_arena_free(arena);
    return status;
}

/* --jsonl: one output line per input line, in order. Lines that are not a
** JSON string, or replies with nothing recoverable, give {"error": ...};
** a limit on one line is that line's error too, so a batch loses nothing. */
typedef struct repair_lines {
    const coax_limits *lim;
    bool log;
} repair_lines;

static int repair_line(void *ud, const char *text, size_t len, coax_buf *out)
{
    const repair_lines *o = ud;
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) return cli_fail("repair", COAX_ENOMEM, NULL);
    coax_value *line;
    coax_error err = {0};
    coax_code rc = COAX_ESIZE;
    if (!text) cli_line_too_long(err.msg, sizeof err.msg, o->lim->max_input);
    else rc = coax_parse(arena, text, len, o->lim, &line, &err);
    if (rc == COAX_OK && line->type != COAX_STRING) {
        rc = COAX_EINVAL;
        snprintf(err.msg, sizeof err.msg, "input line is not a JSON string");
    }
    coax_repair_result r;
    if (rc == COAX_OK) rc = coax_repair(arena, line->u.text, line->len, o->lim, &r, &err);
    if (rc == COAX_OK) {
        if (o->log) write_log(&r);
        coax_buf_puts(out, "{\"value\":");
        coax_write_buf(out, r.value, 0);
        coax_buf_printf(out, ",\"repairs\":%zu}\n", r.nlog);
    } else {
        const char *msg = err.msg[0] ? err.msg : coax_strerror(rc);
        coax_buf_puts(out, "{\"error\":");
        coax_buf_put_json_string(out, msg, strlen(msg));
        coax_buf_puts(out, "}\n");
    }
    coax_arena_free(arena);
    return rc ? 1 : 0; /* every line answered; exit 1 when some failed */
}

int cli_repair(int argc, char **argv)
{
    bool log = false, pretty = false, jsonl = false;
    const char *path = NULL;
    coax_limits lim;
    coax_limits_default(&lim);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_limit_opt("repair", argc, argv, &i, &lim);
        if (r < 0) return 2;
        if (r > 0) continue;
        if (!strcmp(a, "--log")) log = true;
        else if (!strcmp(a, "--pretty")) pretty = true;
        else if (!strcmp(a, "--jsonl")) jsonl = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage("repair", "unknown option '%s' (try --help)", a);
        } else if (path) {
            return cli_usage("repair", "one input file at a time ('%s' and '%s')", path, a);
        } else {
            path = a;
        }
    }
    if (jsonl) { /* a stream of replies: each line is limited, as it is read */
        repair_lines o = {&lim, log};
        return cli_each_line("repair", path, lim.max_input, repair_line, &o);
    }
    char *data;
    size_t len;
    coax_error err;
    coax_code rc = cli_read(path, lim.max_input, &data, &len, &err);
    if (rc) return cli_fail("repair", rc, &err);
    int status = repair_one(data, len, &lim, pretty, log);
    free(data);
    return status;
}
