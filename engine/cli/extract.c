/*
** cli/extract.c: coax extract --schema SCHEMA [--strict] [--max-class C]
**                [--output basic] [--log] [--jsonl] [--draft D] [--annotate-format]
**                [limits] [FILE|-]
**                coax extract --partial [--schema SCHEMA] [--atomic PTR] [FILE|-]
*/
#include "cli/cli.h"
#include "extract/coerce.h"
#include "stream/stream.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: coax extract --schema SCHEMA [OPTIONS] [FILE|-]\n"
    "       coax extract --partial [--schema SCHEMA] [--atomic PTR]... [FILE|-]\n"
    "Prints the value recovered from a raw model reply that validates against SCHEMA,\n"
    "coercing what is right in substance and wrong in form.\n"
    "Options:\n"
    "  --schema SCHEMA       the JSON Schema (required, but with --partial)\n"
    "  --partial             the partial value of a reply that stops anywhere, as a\n"
    "                        streaming reader sees it: one line {\"partial\": V,\n"
    "                        \"complete\": [...], \"in_progress\": P} (+ \"errors\",\n"
    "                        \"doomed\", \"stopped\" when they apply)\n"
    "  --atomic PTR          with --partial: the string at PTR is shown only complete\n"
    "  --strict              no coercion: the value as the reply has it\n"
    "  --max-class C         the least certain repair or coercion accepted: lossless, inferred\n"
    "                        (default) or invented (guessed keys, strings ended at a guess)\n"
    "  --draft D             2020-12 (default), 2019-09, 7, 6 or 4, when $schema says none\n"
    "  --annotate-format     \"format\" never fails a value (by default an extraction checks\n"
    "                        the formats coax knows in every draft: a date is a real date)\n"
    "  --output basic        on failure, print {\"valid\": false, \"errors\": [...]} on stdout\n"
    "  --log                 the repair and coercion log on stderr, one JSON object a line\n"
    "  --jsonl               a JSON string (one reply) a line in; {\"value\", \"class\"} (the\n"
    "                        least certain repair or coercion) or the errors out\n"
    "  --max-depth N         nesting of arrays and objects (default 512)\n"
    "  --max-input N         bytes of input (default 256M; k, M and G suffixes)\n"
    "  --max-string N        bytes of one decoded string (default 64M)\n"
    "  --help, -h            this help\n"
    "Exit: 0 extracted, 1 no valid value (or no JSON), 2 usage or invalid schema, 4 a limit.\n"
    "Example: coax extract --schema schemas/invoice.schema.json --log reply.txt\n";

typedef struct opts {
    const coax_schema *schema;
    coax_limits lim;
    coax_extract_options xo;
    bool log, basic;
} opts;

static void put_log(const coax_extract_result *r)
{
    coax_buf b;
    coax_buf_init(&b, NULL);
    for (size_t i = 0; i < r->repair.nlog; i++) cli_put_repair_entry(&b, &r->repair.log[i]);
    for (size_t i = 0; i < r->ncoercions; i++) {
        const coax_coercion *c = &r->coercions[i];
        coax_buf_puts(&b, "{\"kind\":");
        coax_buf_put_json_string(&b, c->kind, strlen(c->kind));
        coax_buf_puts(&b, ",\"pointer\":");
        coax_buf_put_json_string(&b, c->pointer, strlen(c->pointer));
        coax_buf_puts(&b, ",\"detail\":");
        coax_buf_put_json_string(&b, c->detail, strlen(c->detail));
        coax_buf_printf(&b, ",\"class\":\"%s\"}\n", coax_class_name(c->cls));
    }
    if (b.len) fwrite(b.data, 1, b.len, stderr);
    coax_buf_free(&b);
}

/* {"valid":false,"errors":[...]} for a result, or for "no JSON" (one unit
** at the instance root saying so). */
static void put_failure(coax_buf *out, const coax_extract_result *r, const char *nojson)
{
    if (nojson) {
        coax_buf_puts(out, "{\"valid\":false,\"errors\":[{\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"error\":");
        coax_buf_put_json_string(out, nojson, strlen(nojson));
        coax_buf_puts(out, "}]}");
        return;
    }
    char *text;
    size_t len;
    if (coax_validation_write(&r->validation, COAX_OUTPUT_BASIC, NULL, &text, &len) == COAX_OK) {
        coax_buf_put(out, text, len);
        coax_free(NULL, text, len + 1);
    } else {
        out->oom = true;
    }
}

/* One reply. Returns 0, 1 or a limit's status; 'line' mode writes a JSONL
** result line instead of the plain contract. */
static int extract_one(const opts *o, const char *text, size_t len, coax_buf *out, bool line)
{
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) return cli_fail("extract", COAX_ENOMEM, NULL);
    coax_extract_result r;
    coax_error err = {0};
    coax_code rc = coax_extract(arena, o->schema, text, len, &o->lim, &o->xo, &r, &err);
    int status = 0;
    if (rc == COAX_OK && o->log) put_log(&r);
    if (rc == COAX_OK && r.valid) {
        if (line) coax_buf_puts(out, "{\"value\":");
        coax_write_buf(out, r.value, 0);
        if (line) coax_buf_printf(out, ",\"class\":\"%s\"}\n", coax_class_name(extract_least_class(&r)));
        else coax_buf_putc(out, '\n');
        if (!o->log && !line) cli_tell_guess("extract", &r);
    } else if (rc == COAX_OK || rc == COAX_ENOJSON) {
        const char *nojson = rc == COAX_ENOJSON ? err.msg : NULL;
        if (line || o->basic) {
            put_failure(out, &r, nojson);
            coax_buf_putc(out, '\n');
        }
        if (!line) {
            if (nojson) cli_errf("coax extract: %s\n", nojson);
            else cli_errf("coax extract: no valid value: at '%s': %s (%zu error%s)\n",
                          r.validation.errors[0].instance_location, r.validation.errors[0].message,
                          r.validation.nerrors, r.validation.nerrors == 1 ? "" : "s");
        }
        status = 1;
    } else if (line) { /* a limit on one line is that line's error */
        put_failure(out, &r, err.msg[0] ? err.msg : coax_strerror(rc));
        coax_buf_putc(out, '\n');
        status = 1;
    } else {
        status = cli_fail("extract", rc, &err);
    }
    coax_arena_free(arena);
    return status;
}

static int extract_line(void *ud, const char *text, size_t len, coax_buf *out)
{
    const opts *o = ud;
    if (!text) {
        char msg[96];
        cli_line_too_long(msg, sizeof msg, o->lim.max_input);
        put_failure(out, NULL, msg);
        coax_buf_putc(out, '\n');
        return 1;
    }
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) return cli_fail("extract", COAX_ENOMEM, NULL);
    coax_value *v;
    coax_error err;
    int status;
    coax_code rc = coax_parse(arena, text, len, &o->lim, &v, &err);
    if (rc || v->type != COAX_STRING) {
        put_failure(out, NULL, rc ? err.msg : "input line is not a JSON string");
        coax_buf_putc(out, '\n');
        status = 1;
    } else {
        size_t tlen;
        const char *t = coax_value_text(v, &tlen);
        status = extract_one(o, t, tlen, out, true);
    }
    coax_arena_free(arena);
    return status; /* exit 1 when some line failed */
}

/* --partial: the text read as a streaming reader reads it, in one piece. */
static int partial_one(const coax_schema *schema, const coax_limits *lim, const char *const *atomic,
                       size_t natomic, const char *text, size_t len, coax_buf *out)
{
    stream_options so = {schema, lim, atomic, natomic, NULL};
    stream_reader *r = NULL;
    coax_error err = {0};
    coax_arena *arena = coax_arena_new(NULL);
    coax_code rc = arena ? stream_new(NULL, &so, &r, &err) : COAX_ENOMEM;
    stream_partial p;
    if (!rc) rc = stream_feed(r, text, len, &err);
    if (!rc) rc = stream_partial_get(r, arena, &p, &err);
    if (!rc) rc = stream_partial_write(&p, out);
    if (!rc) coax_buf_putc(out, '\n');
    stream_free(r);
    coax_arena_free(arena);
    return rc ? cli_fail("extract", rc, &err) : 0;
}

/* Reads and compiles SCHEMA; 0, or the exit status after a message. */
static int load_schema(const char *path, const char *draft, bool annotate_format, coax_arena *arena,
                       coax_value **doc, coax_schema **schema)
{
    coax_schema_options so = {.flags = annotate_format ? COAX_SCHEMA_ANNOTATE_FORMAT : COAX_SCHEMA_ASSERT_FORMAT};
    if (draft && !(so.draft = coax_draft_parse(draft)))
        return cli_usage("extract", "--draft takes 2020-12, 2019-09, 7, 6 or 4, not '%s'", draft);
    return cli_load_schema("extract", path, NULL, &so, arena, doc, schema);
}

int cli_extract(int argc, char **argv)
{
    const char *path = NULL, *schema_path = NULL, *draft = NULL, *output = NULL, *max_class = NULL;
    opts o = {0};
    bool jsonl = false, partial = false, annotate_format = false;
    const char *atomic[64];
    size_t natomic = 0;
    coax_limits_default(&o.lim);
    coax_extract_options_default(&o.xo);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_limit_opt("extract", argc, argv, &i, &o.lim);
        if (r == 0) r = cli_opt(argc, argv, &i, "schema", &schema_path);
        if (r == 0) r = cli_opt(argc, argv, &i, "draft", &draft);
        if (r == 0) r = cli_opt(argc, argv, &i, "output", &output);
        if (r == 0) r = cli_opt(argc, argv, &i, "max-class", &max_class);
        if (r == 0 && natomic < sizeof atomic / sizeof *atomic &&
            (r = cli_opt(argc, argv, &i, "atomic", &atomic[natomic])) > 0)
            natomic++;
        if (r < 0) return 2;
        if (r > 0) continue;
        if (!strcmp(a, "--strict")) o.xo.flags |= COAX_EXTRACT_STRICT;
        else if (!strcmp(a, "--log")) o.log = true;
        else if (!strcmp(a, "--jsonl")) jsonl = true;
        else if (!strcmp(a, "--partial")) partial = true;
        else if (!strcmp(a, "--annotate-format")) annotate_format = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage("extract", "unknown option '%s' (try --help)", a);
        } else if (path) {
            return cli_usage("extract", "one input file at a time ('%s' and '%s')", path, a);
        } else {
            path = a;
        }
    }
    if (!schema_path && !partial) return cli_usage("extract", "--schema SCHEMA is required (try --help)");
    if (output && strcmp(output, "basic")) return cli_usage("extract", "--output takes 'basic', not '%s'", output);
    o.basic = output != NULL;
    if (max_class && !coax_class_parse(max_class, &o.xo.max_class))
        return cli_usage("extract", "--max-class takes lossless, inferred or invented, not '%s'", max_class);
    coax_arena *keep = coax_arena_new(NULL);
    coax_schema *schema = NULL;
    coax_value *doc = NULL;
    int status = !keep ? 4 : schema_path ? load_schema(schema_path, draft, annotate_format, keep, &doc, &schema) : 0;
    char *data = NULL;
    size_t len = 0;
    o.schema = schema;
    if (status == 0 && jsonl) { /* a stream of replies: each line is limited, as it is read */
        status = cli_each_line("extract", path, o.lim.max_input, extract_line, &o);
    } else if (status == 0) {
        coax_error err;
        coax_code rc = cli_read(path, o.lim.max_input, &data, &len, &err);
        if (rc) status = cli_fail("extract", rc, &err);
        if (status == 0) {
            coax_buf out;
            coax_buf_init(&out, NULL);
            status = partial ? partial_one(schema, &o.lim, atomic, natomic, data, len, &out)
                             : extract_one(&o, data, len, &out, false);
            int s = cli_flush("extract", &out);
            if (!status) status = s;
            coax_buf_free(&out);
        }
    }
    free(data);
    coax_schema_free(schema);
    coax_arena_free(keep);
    return status;
}
