/* Example conformance: for every schema of the JSON-Schema-Test-Suite that
** has at least one valid test instance, does coax_example build an
** instance that validates? The instance is validated again here with
** coax_validate, independently of coax_example's own check.
**
**   test_example_suite                  every draft, required and optional
**                                       (make test): failures listed, ends
**                                       "N passed, N failed"; every draft is
**                                       at 100%, so none may regress
**   test_example_suite --report [-v]    the rate per draft, never fails
**                                       (make example-conformance)
**   test_example_suite -e [DRAFT]       the table and every example made
*/
#include "coax.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../bench/common/slurp.h"

#define SUITE "spec/json-schema-test-suite"

typedef struct tally {
    long passed, total;
} tally;

static int verbose, show, report;

static const coax_value *get(const coax_value *o, const char *k)
{
    return coax_object_get(o, k, strlen(k));
}

static int has_valid_test(const coax_value *tests)
{
    for (size_t i = 0; i < coax_value_len(tests); i++)
        if (coax_value_bool(get(coax_array_get(tests, i), "valid"))) return 1;
    return 0;
}

static void run_file(const char *path, coax_draft draft, tally *t)
{
    size_t len;
    char *text = slurp(path, &len);
    if (!text) return;
    coax_arena *a = coax_arena_new(NULL);
    coax_value *groups;
    coax_error err;
    if (coax_parse(a, text, len, NULL, &groups, &err)) {
        printf("  %s: %s\n", path, err.msg);
        goto out;
    }
    coax_schema_options opt;
    memset(&opt, 0, sizeof opt);
    opt.draft = draft;
    opt.remote_dir = SUITE "/remotes";
    opt.remote_base = "http://localhost:1234/";
    for (size_t g = 0; g < coax_value_len(groups); g++) {
        const coax_value *grp = coax_array_get(groups, g);
        if (!has_valid_test(get(grp, "tests"))) continue;
        t->total++;
        coax_schema *s = NULL;
        char why[400] = "";
        coax_code rc = coax_schema_compile(get(grp, "schema"), &opt, NULL, &s, &err);
        if (rc) {
            snprintf(why, sizeof why, "compile: %s", err.msg);
        } else {
            coax_arena *ea = coax_arena_new(NULL);
            coax_example_result r;
            rc = coax_example(s, NULL, ea, &r, &err);
            coax_validation v;
            if (rc) {
                snprintf(why, sizeof why, "%s: %s", coax_code_name(rc), err.msg);
            } else if (!r.valid) {
                snprintf(why, sizeof why, "no instance: %s", r.validation.nerrors ? r.validation.errors[0].message : "");
            } else if ((rc = coax_validate(s, r.value, ea, 0, &v, &err)) || !v.valid) {
                snprintf(why, sizeof why, "example does not validate: %s", rc ? err.msg : v.errors[0].message);
            } else {
                t->passed++;
                if (show) {
                    char *json;
                    size_t n;
                    if (!coax_write(r.value, 0, NULL, &json, &n)) {
                        printf("  %s | %s | %.300s\n", path + sizeof SUITE "/tests/" - 1,
                               coax_value_text(get(grp, "description"), NULL), json);
                        coax_free(NULL, json, n + 1);
                    }
                }
            }
            if (why[0] && verbose && r.value) {
                char *json;
                size_t n;
                if (!coax_write(r.value, 0, NULL, &json, &n)) {
                    size_t l = strlen(why);
                    snprintf(why + l, sizeof why - l, " | tried %.200s", json);
                    coax_free(NULL, json, n + 1);
                }
            }
            coax_arena_free(ea);
        }
        if (why[0] && (verbose || !report))
            printf("  FAIL %s | %s | %s\n", path + sizeof SUITE "/tests/" - 1,
                   coax_value_text(get(grp, "description"), NULL), why);
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

static void run_dir(const char *dir, coax_draft draft, tally *t)
{
    DIR *d = opendir(dir);
    if (!d) return;
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

static const struct {
    const char *dir;
    coax_draft draft;
} DRAFTS[] = {{"draft2020-12", COAX_DRAFT_2020_12},
              {"draft2019-09", COAX_DRAFT_2019_09},
              {"draft7", COAX_DRAFT_7},
              {"draft6", COAX_DRAFT_6},
              {"draft4", COAX_DRAFT_4}};

static void row(const char *draft, const char *group, tally t)
{
    printf("%-14s %-10s %6ld %6ld %6.1f%%\n", draft, group, t.passed, t.total,
           t.total ? 100.0 * (double)t.passed / (double)t.total : 0.0);
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = 1;
        else if (!strcmp(argv[i], "--report")) report = 1;
        else if (!strcmp(argv[i], "-e")) show = 1;
        else only = argv[i];
    }
    if (report || show)
        printf("Example conformance: schemas of the JSON-Schema-Test-Suite with a valid test,\n"
               "whose generated example validates.\n"
               "%-14s %-10s %6s %6s %7s\n", "draft", "tests", "valid", "total", "rate");
    tally all = {0, 0};
    for (size_t i = 0; i < sizeof DRAFTS / sizeof *DRAFTS; i++) {
        if (only && strcmp(only, DRAFTS[i].dir)) continue;
        char dir[256];
        tally t = {0, 0}, o = {0, 0};
        snprintf(dir, sizeof dir, SUITE "/tests/%s", DRAFTS[i].dir);
        run_dir(dir, DRAFTS[i].draft, &t);
        snprintf(dir, sizeof dir, SUITE "/tests/%s/optional", DRAFTS[i].dir);
        run_dir(dir, DRAFTS[i].draft, &o);
        snprintf(dir, sizeof dir, SUITE "/tests/%s/optional/format", DRAFTS[i].dir);
        run_dir(dir, DRAFTS[i].draft, &o);
        if (report || show) {
            row(DRAFTS[i].dir, "required", t);
            row(DRAFTS[i].dir, "optional", o);
        }
        all.passed += t.passed + o.passed;
        all.total += t.total + o.total;
    }
    if (report || show) {
        row("all drafts", "all", all);
        return 0;
    }
    printf("%ld passed, %ld failed\n", all.passed, all.total - all.passed);
    return all.passed != all.total;
}
