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
** remotes/ folder through coax_schema_options.remote_dir. */
#include "coax.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUITE "spec/json-schema-test-suite"

/* Groups that pass completely: they run in `make test` and must stay at
** 100%. A group is a draft's required tests (its folder), an optional
** folder, or one file of one; it joins here only when --report shows it
** complete. */
static const char *const COMPLETE[] = {
    "draft2020-12", "draft2020-12/optional", "draft2020-12/optional/format",
    "draft2019-09", "draft2019-09/optional", "draft2019-09/optional/format",
    "draft7",       "draft7/optional",       "draft7/optional/format",
    "draft6",       "draft6/optional",       "draft6/optional/format",
    "draft4",       "draft4/optional",       "draft4/optional/format",
    NULL};

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
    return all.failed != 0;
}
