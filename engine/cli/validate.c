/*
** cli/validate.c: coax validate [options] SCHEMA [INSTANCE|-]
*/
#include "cli/cli.h"
#include "schema/schema.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: coax validate [OPTIONS] SCHEMA [INSTANCE|-]\n"
    "Validates a JSON instance against a JSON Schema and prints the result in the\n"
    "specification's output format: every error with its instanceLocation, keywordLocation\n"
    "and, past a $ref, absoluteKeywordLocation.\n"
    "Options:\n"
    "  --output F            flag, basic (default) or detailed\n"
    "  --annotations         a valid instance's basic or detailed result also lists the\n"
    "                        annotations (title, default, readOnly, format, ...) that apply\n"
    "  --draft D             2020-12 (default), 2019-09, 7, 6 or 4, when $schema says none\n"
    "  --jsonl               one instance per input line, one result per output line\n"
    "  --assert-format       \"format\" fails invalid values in every draft (by default only in\n"
    "                        drafts 4, 6 and 7)\n"
    "  --annotate-format     \"format\" never fails a value\n"
    "  --max-regex-steps N   steps of one pattern match (default 1000000); more: exit 4\n"
    "  --max-regex-total N   regex steps of one validation, every match summed (default: 64 a\n"
    "                        value and string byte of the instance, at least 10M); more: exit 4\n"
    "  --max-steps N         steps of one validation: subschemas applied, keywords run, values\n"
    "                        visited (default: 2 x schema size x instance size, at least 1M);\n"
    "                        more: exit 4\n"
    "  --remote-dir DIR      with --remote-base URL: references under URL are read from files\n"
    "  --remote-base URL     in DIR (coax never touches the network)\n"
    "  --max-depth N         nesting of arrays and objects (default 512)\n"
    "  --max-input N         bytes of input (default 256M; k, M and G suffixes)\n"
    "  --max-string N        bytes of one decoded string (default 64M)\n"
    "  --help, -h            this help\n"
    "Exit: 0 valid, 1 invalid (or not JSON), 2 usage or invalid schema, 4 a limit.\n"
    "Example: coax validate --output detailed schemas/invoice.schema.json invoice.json\n";

typedef struct opts {
    coax_output format;
    bool jsonl;
    bool annotations;
    coax_limits lim;
    coax_schema_options so;
} opts;

/* A one-unit result for input that is not JSON. */
static void put_not_json(coax_buf *out, const coax_error *err, coax_output format)
{
    if (format == COAX_OUTPUT_FLAG) {
        coax_buf_puts(out, "{\"valid\":false}");
        return;
    }
    char msg[300];
    snprintf(msg, sizeof msg, "not JSON: %s (line %u, column %u)", err->msg, err->line,
             err->column);
    coax_buf_puts(out, "{\"valid\":false,\"errors\":[{\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"error\":");
    coax_buf_put_json_string(out, msg, strlen(msg));
    coax_buf_puts(out, "}]}");
}

static bool is_limit(coax_code rc) { return coax_exit_status(rc) == 4; }

/* Validates one instance text and appends its result line. Returns 0, 1
** or 4 (a limit, reported in the line in --jsonl mode, on stderr otherwise). */
static int check_one(const coax_schema *s, const char *text, size_t len, const opts *o,
                     coax_buf *out)
{
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) return cli_fail("validate", COAX_ENOMEM, NULL);
    coax_value *v;
    coax_error err;
    memset(&err, 0, sizeof err);
    int status = 0;
    coax_code rc = coax_parse_unique(arena, text, len, &o->lim, &v, &err);
    if (rc == COAX_OK) {
        coax_validation r;
        unsigned flags = o->format == COAX_OUTPUT_FLAG ? COAX_VALIDATE_FIRST
                         : o->annotations            ? COAX_VALIDATE_ANNOTATIONS
                                                     : 0;
        rc = coax_validate(s, v, arena, flags, &r, &err);
        if (rc == COAX_OK) {
            if (coax_validation_write_buf(out, &r, o->format)) rc = COAX_ENOMEM;
            status = r.valid ? 0 : 1;
        }
    } else if (!is_limit(rc)) {
        put_not_json(out, &err, o->format);
        rc = COAX_OK;
        status = 1;
    }
    if (rc) {
        if (!o->jsonl) {
            status = cli_fail("validate", rc, &err);
        } else {
            const char *msg = err.msg[0] ? err.msg : coax_strerror(rc);
            coax_buf_puts(out, "{\"valid\":false,\"errors\":[{\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"error\":");
            coax_buf_put_json_string(out, msg, strlen(msg));
            coax_buf_puts(out, "}]}");
            status = 4;
        }
    } else {
        coax_buf_putc(out, '\n');
    }
    if (rc && o->jsonl) coax_buf_putc(out, '\n');
    coax_arena_free(arena);
    return status;
}

typedef struct check_lines {
    const coax_schema *schema;
    const opts *o;
} check_lines;

/* --jsonl: a limit on one line is that line's error, as in every --jsonl
** mode: the line is answered and the exit is 1. */
static int check_line(void *ud, const char *text, size_t len, coax_buf *out)
{
    const check_lines *c = ud;
    if (text) {
        int s = check_one(c->schema, text, len, c->o, out);
        return s == 4 ? 1 : s;
    }
    char msg[96];
    cli_line_too_long(msg, sizeof msg, c->o->lim.max_input);
    if (c->o->format == COAX_OUTPUT_FLAG) {
        coax_buf_puts(out, "{\"valid\":false}\n");
        return 1;
    }
    coax_buf_puts(out, "{\"valid\":false,\"errors\":[{\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"error\":");
    coax_buf_put_json_string(out, msg, strlen(msg));
    coax_buf_puts(out, "}]}\n");
    return 1;
}

int cli_validate(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    o.format = COAX_OUTPUT_BASIC;
    coax_limits_default(&o.lim);
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int r = cli_limit_opt("validate", argc, argv, &i, &o.lim);
        if (r < 0) return 2;
        if (r > 0) continue;
        if ((r = cli_opt(argc, argv, &i, "output", &v))) {
            if (r < 0) return 2;
            int f = coax_output_parse(v);
            if (f < 0) return cli_usage("validate", "--output wants flag, basic or detailed, not '%s'", v);
            o.format = (coax_output)f;
        } else if ((r = cli_opt(argc, argv, &i, "draft", &v))) {
            if (r < 0) return 2;
            if (!(o.so.draft = coax_draft_parse(v)))
                return cli_usage("validate", "--draft wants 2020-12, 2019-09, 7, 6 or 4, not '%s'", v);
        } else if ((r = cli_opt(argc, argv, &i, "remote-dir", &v))) {
            if (r < 0) return 2;
            o.so.remote_dir = v;
        } else if ((r = cli_opt(argc, argv, &i, "remote-base", &v))) {
            if (r < 0) return 2;
            o.so.remote_base = v;
        } else if ((r = cli_opt(argc, argv, &i, "max-regex-steps", &v))) {
            if (r < 0) return 2;
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (*end || !n || n > 0xFFFFFFFFul || v[0] == '-')
                return cli_usage("validate", "--max-regex-steps wants a positive integer, not '%s'", v);
            o.so.max_regex_steps = (uint32_t)n;
        } else if ((r = cli_opt(argc, argv, &i, "max-steps", &v)) ||
                   (r = cli_opt(argc, argv, &i, "max-regex-total", &v))) {
            if (r < 0) return 2;
            bool steps = !strncmp(a, "--max-steps", 11);
            size_t n;
            if (!cli_size(v, &n))
                return cli_usage("validate", "--%s wants a positive number, not '%s'",
                                 steps ? "max-steps" : "max-regex-total", v);
            *(steps ? &o.so.max_steps : &o.so.max_regex_total) = n;
        } else if (!strcmp(a, "--assert-format")) {
            o.so.flags = (o.so.flags & ~COAX_SCHEMA_ANNOTATE_FORMAT) | COAX_SCHEMA_ASSERT_FORMAT;
        } else if (!strcmp(a, "--annotate-format")) {
            o.so.flags = (o.so.flags & ~COAX_SCHEMA_ASSERT_FORMAT) | COAX_SCHEMA_ANNOTATE_FORMAT;
        } else if (!strcmp(a, "--jsonl")) {
            o.jsonl = true;
        } else if (!strcmp(a, "--annotations")) {
            o.annotations = true;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage("validate", "unknown option '%s' (try --help)", a);
        } else if (nfiles == 2) {
            return cli_usage("validate", "one schema and one input at a time (try --help)");
        } else {
            files[nfiles++] = a;
        }
    }
    if (!nfiles) return cli_usage("validate", "missing SCHEMA (try --help)");
    if (!o.so.remote_dir != !o.so.remote_base)
        return cli_usage("validate", "--remote-dir and --remote-base go together");
    o.so.max_depth = 0;
    coax_schema *s;
    coax_arena *schema_arena = coax_arena_new(NULL);
    if (!schema_arena) return cli_fail("validate", COAX_ENOMEM, NULL);
    coax_value *doc;
    int loaded = cli_load_schema("validate", files[0], NULL, &o.so, schema_arena, &doc, &s);
    coax_arena_free(schema_arena); /* the compiled schema keeps what it needs */
    if (loaded) return loaded;
    coax_code rc;
    char *data;
    size_t len;
    coax_error err;
    int status;
    if (o.jsonl) { /* a stream of instances: each line is limited, as it is read */
        check_lines c = {s, &o};
        status = cli_each_line("validate", files[1], o.lim.max_input, check_line, &c);
    } else if ((rc = cli_read(files[1], o.lim.max_input, &data, &len, &err))) {
        status = cli_fail("validate", rc, &err);
    } else {
        coax_buf out;
        coax_buf_init(&out, NULL);
        status = check_one(s, data, len, &o, &out);
        int w = cli_flush("validate", &out);
        if (w) status = w;
        coax_buf_free(&out);
        free(data);
    }
    coax_schema_free(s);
    return status;
}
