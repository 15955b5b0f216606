/* The official JSON-Schema-Test-Suite (spec/json-schema-test-suite/), run
** through the C API: every test of every group, in "basic" mode (all errors)
** and in "flag" mode (first error), which must agree with each other and
** with the suite.
**
**   test_schema_suite                  the groups in COMPLETE (make test):
**                                      prints failures, ends "N passed, N failed"
**   test_schema_suite --report [-v]    every draft and every optional file,
**                                      counts only, never fails (make conformance)
**   test_schema_suite -v DRAFT [FILE]  one draft (or file, or folder:
**                                      optional/format), failures listed
**
** optional/format/ runs with COAX_SCHEMA_ASSERT_FORMAT: the suite means it
** for validators that assert formats.
**
** Remote references (http://localhost:1234/...) resolve from the suite's
** remotes/ folder through coax_schema_options.remote_dir.
**
** Every invalid result is also written in the detailed format and checked
** against the 2020-12 output schema's definition of it: counted apart, by
** --report (-d lists the misses), until it is complete.
**
** The output tests (output-tests/DRAFT/content/, group "output/DRAFT")
** check the output formats: each test's data is validated, written in
** every format its "output" names (coax_validation_write, what `coax
** validate --output F --annotations` prints), and that text must validate
** against the test's schema for the format, which refers to the draft's
** output-schema.json. */
#include "coax.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../bench/common/slurp.h"

#define SUITE "spec/json-schema-test-suite"

/* Groups that pass completely: they run in `make test` and must stay at
** 100%. A group is a draft's required tests (its folder), an optional
** folder, or one file of one; it joins here only when --report shows it
** complete. */
/* One meta-schema cache for every schema of the suite. */
static coax_meta_cache *suite_meta_cache;

static const char *const COMPLETE[] = {
    "draft2020-12", "draft2020-12/optional", "draft2020-12/optional/format",
    "draft2019-09", "draft2019-09/optional", "draft2019-09/optional/format",
    "draft7",       "draft7/optional",       "draft7/optional/format",
    "draft6",       "draft6/optional",       "draft6/optional/format",
    "draft4",       "draft4/optional",       "draft4/optional/format",
    "output/draft2020-12", "output/draft2019-09",
    NULL};

typedef struct tally {
    long passed, failed;
} tally;

static int verbose;

static coax_draft draft_of_dir(const char *d)
{
    if (!strncmp(d, "draft4", 6)) return COAX_DRAFT_4;
    if (!strncmp(d, "draft6", 6)) return COAX_DRAFT_6;
    if (!strncmp(d, "draft7", 6)) return COAX_DRAFT_7;
    if (!strncmp(d, "draft2019-09", 12)) return COAX_DRAFT_2019_09;
    return COAX_DRAFT_2020_12;
}

static const coax_value *get(const coax_value *o, const char *k)
{
    return coax_object_get(o, k, strlen(k));
}

/* ---- output tests --------------------------------------------------- */

/* The draft's output-schema.json, for the references the tests make to it
** (https://json-schema.org/draft/DRAFT/output/schema). */
typedef struct output_schema {
    const char *uri;
    const char *path;
} output_schema;

static coax_code resolve_output_schema(void *ud, const char *uri, coax_arena *arena,
                                       coax_value **out, coax_error *err)
{
    const output_schema *os = ud;
    if (strcmp(uri, os->uri)) return COAX_ENOTFOUND;
    size_t len;
    char *text = slurp(os->path, &len);
    if (!text) return COAX_ENOTFOUND;
    coax_code rc = coax_parse(arena, text, len, NULL, out, err);
    free(text);
    return rc;
}

/* Whether 'output' (JSON text) validates against 'schema'. */
static int output_conforms(const coax_value *schema, const output_schema *os, const char *output,
                           size_t len, char *why, size_t whylen)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_schema_options opt;
    memset(&opt, 0, sizeof opt);
    opt.resolve = resolve_output_schema;
    opt.resolve_ud = (void *)os;
    coax_schema *s = NULL;
    coax_value *v;
    coax_validation r;
    coax_error err;
    int ok = 0;
    if (coax_parse(a, output, len, NULL, &v, &err)) {
        snprintf(why, whylen, "output is not JSON: %s", err.msg);
    } else if (coax_schema_compile(schema, &opt, NULL, &s, &err)) {
        snprintf(why, whylen, "output schema: %s", err.msg);
    } else if (coax_validate(s, v, a, 0, &r, &err)) {
        snprintf(why, whylen, "validating the output: %s", err.msg);
    } else if (!r.valid) {
        snprintf(why, whylen, "%s: at %s: %s", output, r.errors[0].keyword_location, r.errors[0].message);
    } else {
        ok = 1;
    }
    coax_schema_free(s);
    coax_arena_free(a);
    return ok;
}

/* One test: the data's result in every format the test names. */
static void run_output_test(const coax_schema *s, const coax_value *tc, const output_schema *os,
                            const char *where, tally *t)
{
    const coax_value *formats = get(tc, "output");
    for (size_t f = 0; f < coax_value_len(formats); f++) {
        const char *name = coax_object_key(formats, f, NULL);
        int format = coax_output_parse(name);
        char why[600] = "unknown output format";
        int ok = 0;
        if (format >= 0) {
            coax_arena *va = coax_arena_new(NULL);
            coax_validation r;
            coax_error err;
            unsigned flags = format == COAX_OUTPUT_FLAG ? COAX_VALIDATE_FIRST : COAX_VALIDATE_ANNOTATIONS;
            char *text = NULL;
            size_t len = 0;
            if (coax_validate(s, get(tc, "data"), va, flags, &r, &err)) {
                snprintf(why, sizeof why, "validate: %s", err.msg);
            } else if (coax_validation_write(&r, (coax_output)format, NULL, &text, &len)) {
                snprintf(why, sizeof why, "writing the output failed");
            } else {
                ok = output_conforms(coax_object_value(formats, f), os, text, len, why,
                                     sizeof why);
                coax_free(NULL, text, len + 1);
            }
            coax_arena_free(va);
        }
        if (ok) {
            t->passed++;
        } else {
            t->failed++;
            if (verbose)
                printf("  FAIL %s | %s | %s: %s\n", where, coax_value_text(get(tc, "description"), NULL),
                       name, why);
        }
    }
}

static void run_output_file(const char *path, coax_draft draft, const output_schema *os, tally *t)
{
    size_t len;
    char *text = slurp(path, &len);
    coax_arena *a = coax_arena_new(NULL);
    coax_value *groups;
    coax_error err;
    if (!text || coax_parse(a, text, len, NULL, &groups, &err)) {
        printf("  cannot read %s\n", path);
        t->failed++;
        goto out;
    }
    coax_schema_options opt;
    memset(&opt, 0, sizeof opt);
    opt.draft = draft;
    for (size_t g = 0; g < coax_value_len(groups); g++) {
        const coax_value *grp = coax_array_get(groups, g);
        const coax_value *tests = get(grp, "tests");
        coax_schema *s = NULL;
        if (coax_schema_compile(get(grp, "schema"), &opt, NULL, &s, &err)) {
            printf("  FAIL %s: compile: %s\n", path, err.msg);
            t->failed += (long)coax_value_len(tests);
            continue;
        }
        for (size_t i = 0; i < coax_value_len(tests); i++)
            run_output_test(s, coax_array_get(tests, i), os, path, t);
        coax_schema_free(s);
    }
out:
    coax_arena_free(a);
    free(text);
}

static size_t list_dir(const char *dir, char **names, size_t max);

/* "output/draft2020-12": the draft's output tests. */
static void run_output_group(const char *group, tally *t)
{
    const char *draft = group + strlen("output/");
    char dir[512], schema_path[512], uri[200];
    snprintf(dir, sizeof dir, SUITE "/output-tests/%s/content", draft);
    snprintf(schema_path, sizeof schema_path, SUITE "/output-tests/%s/output-schema.json", draft);
    snprintf(uri, sizeof uri, "https://json-schema.org/draft/%s/output/schema", draft + strlen("draft"));
    output_schema os = {uri, schema_path};
    char *names[64];
    size_t n = list_dir(dir, names, 64);
    if (!n) {
        printf("  cannot open %s\n", dir);
        t->failed++;
    }
    for (size_t i = 0; i < n; i++) {
        char f[700];
        snprintf(f, sizeof f, "%s/%s", dir, names[i]);
        run_output_file(f, draft_of_dir(draft), &os, t);
        free(names[i]);
    }
}

/* The detailed format's own definition in the 2020-12 output schema, which
** every invalid result of every test should meet (compiled once, by main).
** Not complete yet, so counted apart and printed by --report (-d lists the
** results that miss it): units whose keyword location passes a property
** named "$ref" (the schema's pattern takes it for a reference), and groups
** below a second reference, lack the absoluteKeywordLocation it asks for. */
static coax_schema *detailed_schema;
static tally detailed_tally;
static int verbose_detailed;

static void compile_detailed_schema(void)
{
    static const output_schema os = {"https://json-schema.org/draft/2020-12/output/schema",
                                     SUITE "/output-tests/draft2020-12/output-schema.json"};
    static const char text[] = "{\"$ref\":\"https://json-schema.org/draft/2020-12/output/schema#/$defs/detailed\"}";
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    coax_error err;
    coax_schema_options opt;
    memset(&opt, 0, sizeof opt);
    opt.resolve = resolve_output_schema;
    opt.resolve_ud = (void *)&os;
    if (coax_parse(a, text, sizeof text - 1, NULL, &v, &err) || coax_schema_compile(v, &opt, NULL, &detailed_schema, &err))
        printf("  cannot compile the detailed output schema: %s\n", err.msg);
    coax_arena_free(a);
}

/* Whether result r, written in the detailed format, meets the output
** schema; 'why' says where not. */
static int detailed_conforms(const coax_validation *r, char *why, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    if (!detailed_schema || coax_validation_write(r, COAX_OUTPUT_DETAILED, NULL, &text, &len)) {
        snprintf(why, cap, "no detailed output schema, or no output");
        return 0;
    }
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    coax_validation c;
    coax_error err;
    int ok = !coax_parse(a, text, len, NULL, &v, &err) && !coax_validate(detailed_schema, v, a, 0, &c, &err) && c.valid;
    if (!ok) snprintf(why, cap, "detailed output %.200s does not meet the output schema", text);
    coax_arena_free(a);
    coax_free(NULL, text, len + 1);
    return ok;
}

static void run_file(const char *path, coax_draft draft, unsigned flags, tally *t)
{
    size_t len;
    char *text = slurp(path, &len);
    if (!text) {
        printf("  cannot read %s\n", path);
        t->failed++;
        return;
    }
    coax_arena *a = coax_arena_new(NULL);
    coax_value *groups;
    coax_error err;
    if (coax_parse(a, text, len, NULL, &groups, &err)) {
        printf("  %s: %s\n", path, err.msg);
        t->failed++;
        goto out;
    }
    coax_schema_options opt;
    memset(&opt, 0, sizeof opt);
    opt.draft = draft;
    opt.flags = flags;
    opt.remote_dir = SUITE "/remotes";
    opt.remote_base = "http://localhost:1234/";
    opt.meta_cache = suite_meta_cache; /* as the engine and scripts compile */
    for (size_t g = 0; g < coax_value_len(groups); g++) {
        const coax_value *grp = coax_array_get(groups, g);
        const coax_value *tests = get(grp, "tests");
        const char *gdesc = coax_value_text(get(grp, "description"), NULL);
        coax_schema *s = NULL;
        coax_code rc = coax_schema_compile(get(grp, "schema"), &opt, NULL, &s, &err);
        for (size_t i = 0; i < coax_value_len(tests); i++) {
            const coax_value *tc = coax_array_get(tests, i);
            int want = coax_value_bool(get(tc, "valid"));
            const char *tdesc = coax_value_text(get(tc, "description"), NULL);
            int ok = 0;
            const char *why = "";
            char buf[300];
            if (rc) {
                snprintf(buf, sizeof buf, "compile: %s: %s", coax_code_name(rc), err.msg);
                why = buf;
            } else {
                coax_arena *va = coax_arena_new(NULL);
                coax_validation full, flag;
                coax_code r1 = coax_validate(s, get(tc, "data"), va, 0, &full, &err);
                coax_code r2 = r1 ? r1 : coax_validate(s, get(tc, "data"), va, COAX_VALIDATE_FIRST, &flag, &err);
                if (r1 || r2) {
                    snprintf(buf, sizeof buf, "validate: %s: %s", coax_code_name(r1 ? r1 : r2), err.msg);
                    why = buf;
                } else if (full.valid != flag.valid) {
                    why = "basic and flag modes disagree";
                } else if (full.valid != want) {
                    snprintf(buf, sizeof buf, "got %s%s%s", full.valid ? "valid" : "invalid",
                             full.nerrors ? ": " : "", full.nerrors ? full.errors[0].message : "");
                    why = buf;
                } else if (!full.valid && full.nerrors == 0) {
                    why = "invalid without an error";
                } else {
                    if (!full.valid) { /* counted apart: not yet complete (see --report) */
                        char dwhy[400];
                        int conforms = detailed_conforms(&full, dwhy, sizeof dwhy);
                        detailed_tally.passed += conforms;
                        detailed_tally.failed += !conforms;
                        if (!conforms && verbose_detailed) printf("  DETAILED %s | %s | %s: %s\n", path, gdesc, tdesc, dwhy);
                    }
                    ok = 1;
                }
                coax_arena_free(va);
            }
            if (ok) {
                t->passed++;
            } else {
                t->failed++;
                if (verbose) printf("  FAIL %s | %s | %s: %s\n", path, gdesc, tdesc, why);
            }
        }
        coax_schema_free(s);
    }
out:
    coax_arena_free(a);
    free(text);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of a folder, in name order; returns how many (at most
** 'max'), each to be freed. */
static size_t list_dir(const char *dir, char **names, size_t max)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    return n;
}

/* optional/format/ is meant for validators that assert formats. */
static unsigned flags_of(const char *path)
{
    return strstr(path, "/optional/format") ? COAX_SCHEMA_ASSERT_FORMAT : 0;
}

/* Runs a group: a folder (its files, not its subfolders) or one file,
** named from the suite's tests/ folder ("draft7/optional/format"). */
static void run_group(const char *group, tally *t)
{
    if (!strncmp(group, "output/", 7)) {
        run_output_group(group, t);
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, SUITE "/tests/%s", group);
    size_t l = strlen(path);
    if (l > 5 && !strcmp(path + l - 5, ".json")) {
        run_file(path, draft_of_dir(group), flags_of(path), t);
        return;
    }
    char *names[512];
    size_t n = list_dir(path, names, 512);
    if (!n) {
        printf("  cannot open %s\n", path);
        t->failed++;
    }
    for (size_t i = 0; i < n; i++) {
        char f[1200];
        snprintf(f, sizeof f, "%s/%s", path, names[i]);
        run_file(f, draft_of_dir(group), flags_of(f), t);
        free(names[i]);
    }
}

static const char *const DRAFTS[] = {"draft2020-12", "draft2019-09", "draft7", "draft6", "draft4"};

/* Prints one line per file of an optional folder, and its total. */
static void report_dir(const char *draft, const char *sub, tally *total)
{
    char dir[512];
    snprintf(dir, sizeof dir, SUITE "/tests/%s/%s", draft, sub);
    char *names[512];
    size_t n = list_dir(dir, names, 512);
    for (size_t i = 0; i < n; i++) {
        char g[700];
        tally t = {0, 0};
        snprintf(g, sizeof g, "%s/%s/%s", draft, sub, names[i]);
        run_group(g, &t);
        printf("%-14s %-40s %6ld %6ld%s\n", draft, g + strlen(draft) + 1, t.passed, t.passed + t.failed,
               t.failed ? "" : "  complete");
        total->passed += t.passed;
        total->failed += t.failed;
        free(names[i]);
    }
}

int main(int argc, char **argv)
{
    suite_meta_cache = coax_meta_cache_new(NULL);
    int report = 0;
    const char *only = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--report")) report = 1;
        else if (!strcmp(argv[i], "-v")) verbose = 1;
        else if (!strcmp(argv[i], "-d")) verbose_detailed = 1;
        else if (!only) only = argv[i];
        else file = argv[i];
    }
    tally all = {0, 0};
    compile_detailed_schema();
    if (report) {
        tally sum[5][3];
        memset(sum, 0, sizeof sum);
        printf("%-14s %-40s %6s %6s\n", "draft", "group", "passed", "total");
        for (size_t i = 0; i < sizeof DRAFTS / sizeof *DRAFTS; i++) {
            run_group(DRAFTS[i], &sum[i][0]);
            printf("%-14s %-40s %6ld %6ld%s\n", DRAFTS[i], "required", sum[i][0].passed,
                   sum[i][0].passed + sum[i][0].failed, sum[i][0].failed ? "" : "  complete");
            report_dir(DRAFTS[i], "optional", &sum[i][1]);
            report_dir(DRAFTS[i], "optional/format", &sum[i][2]);
        }
        for (size_t i = 0; i < 2; i++) { /* the output tests: 2020-12 and 2019-09 */
            char g[64];
            tally t = {0, 0};
            snprintf(g, sizeof g, "output/%s", DRAFTS[i]);
            run_group(g, &t);
            printf("%-14s %-40s %6ld %6ld%s\n", DRAFTS[i], "output", t.passed, t.passed + t.failed,
                   t.failed ? "" : "  complete");
        }
        printf("%-14s %-40s %6ld %6ld%s\n", "all drafts", "invalid results, detailed meets output schema",
               detailed_tally.passed, detailed_tally.passed + detailed_tally.failed,
               detailed_tally.failed ? "" : "  complete");
        printf("\n%-14s %-18s %-18s %-18s\n", "draft", "required", "optional", "optional/format");
        for (size_t i = 0; i < sizeof DRAFTS / sizeof *DRAFTS; i++) {
            printf("%-14s", DRAFTS[i]);
            for (int k = 0; k < 3; k++) {
                char cell[40];
                long tot = sum[i][k].passed + sum[i][k].failed;
                snprintf(cell, sizeof cell, "%ld/%ld %.1f%%", sum[i][k].passed, tot,
                         tot ? 100.0 * (double)sum[i][k].passed / (double)tot : 100.0);
                printf(" %-18s", cell);
            }
            printf("\n");
        }
        return 0;
    }
    if (only) {
        char g[512];
        if (file) snprintf(g, sizeof g, "%s/%s", only, file);
        else snprintf(g, sizeof g, "%s", only);
        run_group(g, &all);
    } else {
        verbose = 1;
        for (size_t i = 0; COMPLETE[i]; i++) run_group(COMPLETE[i], &all);
    }
    printf("%ld passed, %ld failed\n", all.passed, all.failed);
    coax_schema_free(detailed_schema);
    coax_meta_cache_free(suite_meta_cache);
    return all.failed != 0;
}
