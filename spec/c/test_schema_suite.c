/* The official JSON-Schema-Test-Suite (spec/json-schema-test-suite/), run
** through the C API: every test of every group, in "basic" mode (all errors)
** and in "flag" mode (first error), which must agree with each other and
** with the suite.
**
**   test_schema_suite                  the drafts in COMPLETE (make test):
**                                      prints failures, ends "N passed, N failed"
**   test_schema_suite --report [-v]    every draft and optional group, counts
**                                      only, never fails (make conformance)
**   test_schema_suite -v DRAFT [FILE]  one draft (or file), failures listed
**
** Remote references (http://localhost:1234/...) resolve from the suite's
** remotes/ folder through coax_schema_options.remote_dir. */
#include "coax.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUITE "spec/json-schema-test-suite"

/* Drafts that pass completely: they run in `make test` and must stay
** at 100%. A draft joins here only when --report shows it complete. */
static const char *const COMPLETE[] = {"draft2020-12", "draft2019-09", "draft7", "draft6", "draft4", NULL};

typedef struct tally {
    long passed, failed;
} tally;

static int verbose;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    if (s) s[n] = '\0';
    *len = (size_t)n;
    return s;
}

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

static void run_file(const char *path, coax_draft draft, tally *t)
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
    opt.remote_dir = SUITE "/remotes";
    opt.remote_base = "http://localhost:1234/";
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

/* Every *.json of a folder, in name order. */
static void run_dir(const char *dir, coax_draft draft, tally *t)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("  cannot open %s\n", dir);
        t->failed++;
        return;
    }
    char *names[512];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 512) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        run_file(path, draft, t);
        free(names[i]);
    }
}

static const char *const DRAFTS[] = {"draft2020-12", "draft2019-09", "draft7", "draft6", "draft4"};

int main(int argc, char **argv)
{
    int report = 0;
    const char *only = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--report")) report = 1;
        else if (!strcmp(argv[i], "-v")) verbose = 1;
        else if (!only) only = argv[i];
        else file = argv[i];
    }
    tally all = {0, 0};
    if (report) {
        printf("%-14s %-18s %6s %6s\n", "draft", "group", "passed", "total");
        for (size_t i = 0; i < sizeof DRAFTS / sizeof *DRAFTS; i++) {
            char dir[256];
            tally t = {0, 0}, o = {0, 0};
            snprintf(dir, sizeof dir, SUITE "/tests/%s", DRAFTS[i]);
            run_dir(dir, draft_of_dir(DRAFTS[i]), &t);
            snprintf(dir, sizeof dir, SUITE "/tests/%s/optional", DRAFTS[i]);
            run_dir(dir, draft_of_dir(DRAFTS[i]), &o);
            printf("%-14s %-18s %6ld %6ld%s\n", DRAFTS[i], "required", t.passed, t.passed + t.failed,
                   t.failed ? "" : "  complete");
            printf("%-14s %-18s %6ld %6ld\n", DRAFTS[i], "optional", o.passed, o.passed + o.failed);
            snprintf(dir, sizeof dir, SUITE "/tests/%s/optional/format", DRAFTS[i]);
            tally f = {0, 0};
            run_dir(dir, draft_of_dir(DRAFTS[i]), &f);
            printf("%-14s %-18s %6ld %6ld\n", DRAFTS[i], "optional/format", f.passed, f.passed + f.failed);
        }
        return 0;
    }
    if (only) {
        char dir[256];
        if (file) {
            snprintf(dir, sizeof dir, SUITE "/tests/%s/%s", only, file);
            run_file(dir, draft_of_dir(only), &all);
        } else {
            snprintf(dir, sizeof dir, SUITE "/tests/%s", only);
            run_dir(dir, draft_of_dir(only), &all);
        }
    } else {
        verbose = 1;
        for (size_t i = 0; COMPLETE[i]; i++) {
            char dir[256];
            snprintf(dir, sizeof dir, SUITE "/tests/%s", COMPLETE[i]);
            run_dir(dir, draft_of_dir(COMPLETE[i]), &all);
        }
    }
    printf("%ld passed, %ld failed\n", all.passed, all.failed);
    return all.failed != 0;
}
