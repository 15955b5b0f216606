/*
** cli/example.c: coax example [options] [SCHEMA|-]
*/
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#define EXAMPLE_MAX_DEPTH 256 /* coax_example_options.max_depth: "at most 256" (coax.h) */

static const char usage_text[] =
    "usage: coax example [OPTIONS] [SCHEMA|-]\n"
    "Prints an instance that validates against the JSON Schema, built from its examples,\n"
    "defaults, const, enum, formats, bounds, patterns, references and combinators, and\n"
    "checked by the validator.\n"
    "Options:\n"
    "  --pretty              print the instance indented (default: compact)\n"
    "  --minimal             required properties only, minItems items\n"
    "  --depth N             nesting of the instance (default 32, at most 256)\n"
    "  --steps N             subschemas visited before giving up (default 20000); checking\n"
    "                        the candidates may take 500 validation steps for each; more: exit 4\n"
    "  --draft D             2020-12 (default), 2019-09, 7, 6 or 4, when $schema says none\n"
    "  --remote-dir DIR      with --remote-base URL: references under URL are read from files\n"
    "  --remote-base URL     in DIR (coax never touches the network)\n"
    "  --max-depth N         nesting of arrays and objects (default 512)\n"
    "  --max-input N         bytes of input (default 256M; k, M and G suffixes)\n"
    "  --max-string N        bytes of one decoded string (default 64M)\n"
    "  --help, -h            this help\n"
    "Exit: 0 an instance, 1 none found (why on stderr), 2 usage or invalid schema, 4 a limit.\n"
    "Example: coax example --pretty schemas/contact.schema.json\n";

/* Says why no instance was found: the closest attempt's first errors. */
static void explain(const coax_example_result *r)
{
    cli_errf("coax example: no valid instance found for this schema");
    if (r->limited & COAX_EXAMPLE_HIT_DEPTH)
        cli_errf(" within the depth limit (--depth N raises it)");
    else if (r->limited & COAX_EXAMPLE_HIT_STEPS)
        cli_errf(" within the step limit (--steps N raises it)");
    else if (r->limited & COAX_EXAMPLE_HIT_SIZE)
        cli_errf(" within the size limit (an array of at most %d items)", COAX_EXAMPLE_MAX_ITEMS);
    if (!r->value || !r->validation.nerrors) {
        cli_errf("\n");
        return;
    }
    cli_errf("; the closest attempt fails:\n");
    for (size_t i = 0; i < r->validation.nerrors && i < 5; i++) {
        const coax_schema_error *e = &r->validation.errors[i];
        cli_errf("  at \"%s\" (%s): %s\n", e->instance_location, e->keyword_location, e->message);
    }
}

int cli_example(int argc, char **argv)
{
    bool pretty = false;
    const char *path = NULL;
    coax_limits lim;
    coax_limits_default(&lim);
    coax_schema_options so;
    memset(&so, 0, sizeof so);
    coax_example_options eo;
    memset(&eo, 0, sizeof eo);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int r = cli_limit_opt("example", argc, argv, &i, &lim);
        if (r < 0) return 2;
        if (r > 0) continue;
        if ((r = cli_opt(argc, argv, &i, "draft", &v))) {
            if (r < 0) return 2;
            if (!(so.draft = coax_draft_parse(v)))
                return cli_usage("example", "--draft wants 2020-12, 2019-09, 7, 6 or 4, not '%s'", v);
        } else if ((r = cli_opt(argc, argv, &i, "remote-dir", &v))) {
            if (r < 0) return 2;
            so.remote_dir = v;
        } else if ((r = cli_opt(argc, argv, &i, "remote-base", &v))) {
            if (r < 0) return 2;
            so.remote_base = v;
        } else if ((r = cli_opt(argc, argv, &i, "depth", &v)) ||
                   (r = cli_opt(argc, argv, &i, "steps", &v))) {
            if (r < 0) return 2;
            bool depth = !strncmp(a, "--depth", 7);
            if (!cli_size(v, depth ? &eo.max_depth : &eo.max_steps))
                return cli_usage("example", "--%s wants a positive number, not '%s'", depth ? "depth" : "steps", v);
            if (depth && eo.max_depth > EXAMPLE_MAX_DEPTH) /* the library caps it; say so rather than cap silently */
                return cli_usage("example", "--depth wants a number from 1 to %d, not '%s'", EXAMPLE_MAX_DEPTH, v);
        } else if (!strcmp(a, "--pretty")) {
            pretty = true;
        } else if (!strcmp(a, "--minimal")) {
            eo.flags |= COAX_EXAMPLE_MINIMAL;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage("example", "unknown option '%s' (try --help)", a);
        } else if (path) {
            return cli_usage("example", "one schema at a time ('%s' and '%s')", path, a);
        } else {
            path = a;
        }
    }
    if (!so.remote_dir != !so.remote_base)
        return cli_usage("example", "--remote-dir and --remote-base go together");
    coax_schema *s = NULL;
    coax_arena *schema_arena = coax_arena_new(NULL);
    if (!schema_arena) return cli_fail("example", COAX_ENOMEM, NULL);
    coax_value *doc;
    int status = cli_load_schema("example", path, &lim, &so, schema_arena, &doc, &s);
    coax_arena_free(schema_arena); /* the compiled schema keeps what it needs */
    if (status) return status;
    coax_arena *arena = coax_arena_new(NULL);
    if (!arena) {
        coax_schema_free(s);
        return cli_fail("example", COAX_ENOMEM, NULL);
    }
    coax_example_result r;
    coax_error err;
    memset(&err, 0, sizeof err);
    coax_code rc = coax_example(s, &eo, arena, &r, &err);
    if (rc) {
        status = cli_fail("example", rc, &err);
    } else if (!r.valid) {
        explain(&r);
        /* the search stopped at --steps or the size cap: a limit, not an
        ** answer (a depth cut is the answer for schemas whose every instance
        ** recurs: none) */
        status = !(r.limited & COAX_EXAMPLE_HIT_DEPTH) && (r.limited & (COAX_EXAMPLE_HIT_STEPS | COAX_EXAMPLE_HIT_SIZE))
                     ? 4
                     : 1;
    } else {
        coax_buf out;
        coax_buf_init(&out, NULL);
        coax_write_buf(&out, r.value, pretty ? COAX_WRITE_PRETTY : 0);
        coax_buf_putc(&out, '\n');
        status = cli_flush("example", &out);
        coax_buf_free(&out);
    }
    coax_arena_free(arena);
    coax_schema_free(s);
    return status;
}
