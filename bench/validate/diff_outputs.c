/*
** diff_outputs.c: every output of coax_validate, written out so that two
** builds of the evaluator can be compared byte for byte (a change that
** makes validation faster must not change one byte of what it says).
**
**   diff_outputs suite DIR          every test of every file under DIR (a
**                                   JSON-Schema-Test-Suite tests/ folder:
**                                   draftX/, optional/, optional/format/)
**   diff_outputs jsonl SCHEMA FILE  every line of FILE against SCHEMA
**                                   (formats asserted)
**
** Each instance is validated under several budgets (the defaults, then
** step, regex and error-byte budgets small enough to run out, so the
** limit messages are compared too), and in each of: flag (first error),
** basic and detailed (all errors), basic and detailed with annotations.
** One line per result: the code and message of a failure, or the text
** coax_validation_write gives. Compare two builds' outputs with cmp.
**
** Hash tables take their seeds from the clock and addresses, and a lookup
** charges a step per probe, so a budget that runs out near the end of a
** validation could run out in one run and not in the next. Linked with
** -Wl,--allow-multiple-definition, the coax_hash_seed below (one fixed
** seed) replaces the library's, and two runs, or two builds, compare.
*/
#include "coax.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/slurp.h"

uint64_t coax_hash_seed(const void *salt);
uint64_t coax_hash_seed(const void *salt)
{
    (void)salt;
    return 0x9E3779B97F4A7C15u;
}

/* The budgets each instance runs under: {max_steps, max_regex_total,
** max_error_bytes}, 0 for the default. */
static const uint64_t BUDGETS[][3] = {
    {0, 0, 0},
    {1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {5, 0, 0}, {8, 0, 0}, {12, 0, 0}, {18, 0, 0}, {27, 0, 0},
    {40, 0, 0}, {60, 0, 0}, {90, 0, 0}, {135, 0, 0}, {200, 0, 0}, {300, 0, 0}, {450, 0, 0},
    {675, 0, 0}, {1000, 0, 0}, {1500, 0, 0}, {2250, 0, 0}, {3400, 0, 0}, {5000, 0, 0},
    {0, 1, 0}, {0, 10, 0}, {0, 30, 0}, {0, 100, 0}, {0, 300, 0}, {0, 1000, 0},
    {0, 0, 40}, {0, 0, 300}, {0, 0, 2000},
};
#define NBUDGETS (sizeof BUDGETS / sizeof BUDGETS[0])

static const struct {
    unsigned flags;
    coax_output out;
} MODES[] = {
    {COAX_VALIDATE_FIRST, COAX_OUTPUT_FLAG},
    {0, COAX_OUTPUT_BASIC},
    {0, COAX_OUTPUT_DETAILED},
    {COAX_VALIDATE_ANNOTATIONS, COAX_OUTPUT_BASIC},
    {COAX_VALIDATE_ANNOTATIONS, COAX_OUTPUT_DETAILED},
};

static void run_all(coax_schema *const *s, const coax_value *inst, coax_arena *a)
{
    for (size_t b = 0; b < NBUDGETS; b++) {
        if (!s[b]) continue;
        for (size_t m = 0; m < sizeof MODES / sizeof MODES[0]; m++) {
            coax_validation r;
            coax_error err;
            memset(&err, 0, sizeof err);
            coax_code rc = coax_validate(s[b], inst, a, MODES[m].flags, &r, &err);
            if (rc) {
                printf("%zu.%zu rc %d %s\n", b, m, (int)rc, err.msg);
            } else {
                char *text;
                size_t len;
                if (coax_validation_write(&r, MODES[m].out, NULL, &text, &len)) {
                    printf("%zu.%zu write failed\n", b, m);
                } else {
                    printf("%zu.%zu %s\n", b, m, text);
                    coax_free(NULL, text, len + 1);
                }
            }
            coax_arena_reset(a);
        }
    }
}

static void compile_all(const coax_value *schema, coax_schema_options o, coax_schema **s)
{
    for (size_t b = 0; b < NBUDGETS; b++) {
        coax_error err;
        o.max_steps = BUDGETS[b][0];
        o.max_regex_total = BUDGETS[b][1];
        o.max_error_bytes = (size_t)BUDGETS[b][2];
        s[b] = NULL;
        if (coax_schema_compile(schema, &o, NULL, &s[b], &err)) {
            printf("compile %zu: %s\n", b, err.msg);
            s[b] = NULL;
        }
    }
}

static void free_all(coax_schema **s)
{
    for (size_t b = 0; b < NBUDGETS; b++) coax_schema_free(s[b]);
}

static coax_draft draft_of(const char *path)
{
    if (strstr(path, "draft4")) return COAX_DRAFT_4;
    if (strstr(path, "draft6")) return COAX_DRAFT_6;
    if (strstr(path, "draft7")) return COAX_DRAFT_7;
    if (strstr(path, "draft2019-09")) return COAX_DRAFT_2019_09;
    return COAX_DRAFT_2020_12;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void suite_file(const char *path, const char *remotes)
{
    size_t len;
    char *text = slurp(path, &len);
    coax_arena *a = coax_arena_new(NULL), *va = coax_arena_new(NULL);
    coax_value *groups;
    coax_error err;
    printf("== %s\n", path);
    if (!text || coax_parse(a, text, len, NULL, &groups, &err)) {
        printf("cannot read\n");
        goto out;
    }
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.draft = draft_of(path);
    o.remote_dir = remotes;
    o.remote_base = "http://localhost:1234/";
    if (strstr(path, "/optional/format")) o.flags = COAX_SCHEMA_ASSERT_FORMAT;
    for (size_t g = 0; g < coax_value_len(groups); g++) {
        const coax_value *grp = coax_array_get(groups, g);
        const coax_value *tests = coax_object_get(grp, "tests", 5);
        coax_schema *s[NBUDGETS];
        printf("-- group %zu\n", g);
        compile_all(coax_object_get(grp, "schema", 6), o, s);
        for (size_t i = 0; i < coax_value_len(tests); i++) {
            printf("- test %zu\n", i);
            run_all(s, coax_object_get(coax_array_get(tests, i), "data", 4), va);
        }
        free_all(s);
    }
out:
    coax_arena_free(va);
    coax_arena_free(a);
    free(text);
}

static void suite_dir(const char *dir, const char *remotes)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char *names[1024];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 1024)
        if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        size_t l = strlen(p);
        if (l > 5 && !strcmp(p + l - 5, ".json")) suite_file(p, remotes);
        else suite_dir(p, remotes);
        free(names[i]);
    }
}

static int jsonl(const char *schema_path, const char *file)
{
    size_t slen, dlen;
    char *stext = slurp(schema_path, &slen), *data = slurp(file, &dlen);
    coax_arena *sa = coax_arena_new(NULL), *va = coax_arena_new(NULL), *ra = coax_arena_new(NULL);
    coax_value *sv;
    coax_error err;
    if (!stext || !data || coax_parse(sa, stext, slen, NULL, &sv, &err)) return 2;
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.flags = COAX_SCHEMA_ASSERT_FORMAT;
    coax_schema *s[NBUDGETS];
    compile_all(sv, o, s);
    size_t line = 0;
    for (char *p = data; p < data + dlen;) {
        char *nl = memchr(p, '\n', (size_t)(data + dlen - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(data + dlen - p);
        if (len) {
            coax_value *v;
            printf("- line %zu\n", ++line);
            if (coax_parse(va, p, len, NULL, &v, &err)) printf("not JSON\n");
            else run_all(s, v, ra);
            coax_arena_reset(va);
        }
        p += len + 1;
    }
    free_all(s);
    coax_arena_free(sa);
    coax_arena_free(va);
    coax_arena_free(ra);
    free(stext);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "suite")) {
        suite_dir(argv[2], argv[3]);
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "jsonl")) return jsonl(argv[2], argv[3]);
    fprintf(stderr, "usage: diff_outputs suite TESTS_DIR REMOTES_DIR | jsonl SCHEMA FILE.jsonl\n");
    return 2;
}
