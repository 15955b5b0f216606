/*
** cli/repair.c: coax repair [--log] [--pretty] [--jsonl] [--max-class C] [--guess] [limits] [FILE|-]
*/
#include "cli/cli.h"
#include "extract/coerce.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: coax repair [OPTIONS] [FILE|-]\n"
    "Prints the JSON value recovered from a raw model reply (FILE, or standard input):\n"
    "fences, prose and broken syntax are dealt with; valid JSON comes back as it is.\n"
    "A value that would be a guess is refused (exit 1, the reason on stderr).\n"
    "Options:\n"
    "  --pretty              print the value indented (default: compact)\n"
    "  --log                 the repair log on stderr, one JSON object a line\n"
    "  --max-class C         the least certain repair accepted: lossless, inferred\n"
    "                        (default) or invented (coax's guess: keys guessed, strings\n"
    "                        ended at a guess, one item of a larger structure)\n"
    "  --guess               coax's best reading, even a guess or a reply cut off\n"
    "                        (--log says what was guessed)\n"
    "  --jsonl               a JSON string (one reply) a line in; {\"value\", \"repairs\",\n"
    "                        \"class\"} or {\"error\"} a line out (class: the least certain repair)\n"
    "  --max-depth N         nesting of arrays and objects (default 512)\n"
    "  --max-input N         bytes of input (default 256M; k, M and G suffixes)\n"
    "  --max-string N        bytes of one decoded string (default 64M)\n"
    "  --help, -h            this help\n"
    "Exit: 0 recovered, 1 no JSON recoverable (or only a guess), 2 usage, 4 a limit.\n"
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

typedef struct repair_opts {
    coax_limits lim;
    coax_extract_options xo;
    bool log, pretty, guess;
} repair_opts;

/* The value coax accepts from one reply, or why none (out->valid 0: the
** first error), with the log on stderr when asked. */
static coax_code repair_text(const repair_opts *o, coax_arena *arena, const char *text, size_t len,
                             coax_extract_result *out, coax_error *err)
{
    coax_code rc = o->guess ? extract_guess_repair(arena, text, len, &o->lim, out, err)
                            : extract_sure_repair(arena, text, len, &o->lim, &o->xo, out, err);
    if (rc == COAX_OK && o->log) write_log(&out->repair);
    return rc;
}

static const char *refusal(const coax_extract_result *r) { return r->validation.errors[0].message; }

/* One reply: prints the value, returns the exit status. */
static int repair_one(const repair_opts *o, const char *text, size_t len)
{
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) return cli_fail("repair", COAX_ENOMEM, NULL);
    coax_extract_result r;
    coax_error err;
    coax_code rc = repair_text(o, arena, text, len, &r, &err);
    int status;
    if (rc) {
        status = cli_fail("repair", rc, &err);
    } else if (!r.valid) {
        cli_errf("coax repair: no sure value: %s\n", refusal(&r));
        status = 1;
    } else {
        if (!o->log) cli_tell_guess("repair", &r);
        coax_buf out;
        coax_buf_init(&out, NULL);
        coax_write_buf(&out, r.value, o->pretty ? COAX_WRITE_PRETTY : 0);
        coax_buf_putc(&out, '\n');
        status = cli_flush("repair", &out);
        coax_buf_free(&out);
    }
    coax_arena_free(arena);
    return status;
}

/* --jsonl: one output line per input line, in order. Lines that are not a
** JSON string, replies with nothing recoverable or only a guess, give
** {"error": ...}; a limit on one line is that line's error too, so a batch
** loses nothing. */
static int repair_line(void *ud, const char *text, size_t len, coax_buf *out)
{
    const repair_opts *o = ud;
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) return cli_fail("repair", COAX_ENOMEM, NULL);
    coax_value *line;
    coax_error err = {0};
    coax_code rc = COAX_ESIZE;
    if (!text) cli_line_too_long(err.msg, sizeof err.msg, o->lim.max_input);
    else rc = coax_parse(arena, text, len, &o->lim, &line, &err);
    if (rc == COAX_OK && line->type != COAX_STRING) {
        rc = COAX_EINVAL;
        snprintf(err.msg, sizeof err.msg, "input line is not a JSON string");
    }
    coax_extract_result r;
    if (rc == COAX_OK) rc = repair_text(o, arena, line->u.text, line->len, &r, &err);
    if (rc == COAX_OK && r.valid) {
        coax_buf_puts(out, "{\"value\":");
        coax_write_buf(out, r.value, 0);
        coax_buf_printf(out, ",\"repairs\":%zu,\"class\":\"%s\"}\n", r.repair.nlog,
                        coax_class_name(extract_least_class(&r)));
    } else {
        const char *msg = rc == COAX_OK ? refusal(&r) : err.msg[0] ? err.msg : coax_strerror(rc);
        coax_buf_puts(out, "{\"error\":");
        coax_buf_put_json_string(out, msg, strlen(msg));
        coax_buf_puts(out, "}\n");
    }
    coax_arena_free(arena);
    return rc || !r.valid ? 1 : 0; /* every line answered; exit 1 when some failed */
}

int cli_repair(int argc, char **argv)
{
    bool jsonl = false;
    const char *path = NULL, *max_class = NULL;
    repair_opts o = {0};
    coax_limits_default(&o.lim);
    coax_extract_options_default(&o.xo);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_limit_opt("repair", argc, argv, &i, &o.lim);
        if (r == 0) r = cli_opt(argc, argv, &i, "max-class", &max_class);
        if (r < 0) return 2;
        if (r > 0) continue;
        if (!strcmp(a, "--log")) o.log = true;
        else if (!strcmp(a, "--pretty")) o.pretty = true;
        else if (!strcmp(a, "--guess")) o.guess = true;
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
    if (max_class && !coax_class_parse(max_class, &o.xo.max_class))
        return cli_usage("repair", "--max-class takes lossless, inferred or invented, not '%s'", max_class);
    if (jsonl) /* a stream of replies: each line is limited, as it is read */
        return cli_each_line("repair", path, o.lim.max_input, repair_line, &o);
    char *data;
    size_t len;
    coax_error err;
    coax_code rc = cli_read(path, o.lim.max_input, &data, &len, &err);
    if (rc) return cli_fail("repair", rc, &err);
    int status = repair_one(&o, data, len);
    free(data);
    return status;
}
