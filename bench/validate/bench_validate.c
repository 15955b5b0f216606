/*
** bench_validate.c: coax_validate throughput on the instances of a JSONL
** file, printed in the shape the peers print:
**   validate <inst/s> <valid> <n>   validation alone: values parsed once
**                                   first, then every value validated with
**                                   all errors collected (an arena each)
**   parse    <inst/s> <valid> <n>   coax_parse + coax_validate per line, as
**                                   `coax validate --jsonl` does
** The schema is compiled once with formats asserted (ajv-formats asserts).
** Each figure is the best of the whole passes run in at least 2 s.
*/
#include "coax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

typedef struct line {
    const char *text;
    size_t len;
    coax_value *value;
} line;

static size_t pass_validate(const coax_schema *s, line *l, size_t n)
{
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        coax_arena *a = coax_arena_new(NULL);
        coax_validation r;
        if (coax_validate(s, l[i].value, a, 0, &r, NULL) == COAX_OK && r.valid) ok++;
        coax_arena_free(a);
    }
    return ok;
}

static size_t pass_parse(const coax_schema *s, line *l, size_t n)
{
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        coax_arena *a = coax_arena_new(NULL);
        coax_value *v;
        coax_validation r;
        if (coax_parse(a, l[i].text, l[i].len, NULL, &v, NULL) == COAX_OK &&
            coax_validate(s, v, a, 0, &r, NULL) == COAX_OK && r.valid)
            ok++;
        coax_arena_free(a);
    }
    return ok;
}

/* The best pass of those run in at least 2 s: the figure least disturbed
** by whatever else the machine is doing (the peers measure the same way). */
static void measure(const char *name, size_t (*pass)(const coax_schema *, line *, size_t),
                    const coax_schema *s, line *l, size_t n)
{
    size_t ok = pass(s, l, n);
    double t0 = now(), best = 1e30;
    while (now() - t0 < 2.0) {
        double p0 = now();
        ok = pass(s, l, n);
        double d = now() - p0;
        if (d < best) best = d;
    }
    printf("%s %.0f %zu %zu\n", name, (double)n / best, ok, n);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_validate SCHEMA FILE.jsonl\n");
        return 2;
    }
    size_t slen, dlen;
    char *stext = slurp(argv[1], &slen), *data = slurp(argv[2], &dlen);
    if (!stext || !data) {
        fprintf(stderr, "bench_validate: cannot read the inputs\n");
        return 2;
    }
    coax_arena *sa = coax_arena_new(NULL);
    coax_value *sv;
    coax_error err;
    coax_schema *s;
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.flags = COAX_SCHEMA_ASSERT_FORMAT;
    if (coax_parse(sa, stext, slen, NULL, &sv, &err) || coax_schema_compile(sv, &o, NULL, &s, &err)) {
        fprintf(stderr, "bench_validate: %s\n", err.msg);
        return 2;
    }
    size_t n = 0, cap = 1024;
    line *l = malloc(cap * sizeof *l);
    coax_arena *va = coax_arena_new(NULL);
    for (char *p = data; p < data + dlen;) {
        char *nl = memchr(p, '\n', (size_t)(data + dlen - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(data + dlen - p);
        if (len) {
            if (n == cap) l = realloc(l, (cap *= 2) * sizeof *l);
            l[n].text = p;
            l[n].len = len;
            if (coax_parse(va, p, len, NULL, &l[n].value, &err)) {
                fprintf(stderr, "bench_validate: line %zu: %s\n", n + 1, err.msg);
                return 2;
            }
            n++;
        }
        p += len + 1;
    }
    measure("validate", pass_validate, s, l, n);
    measure("parse", pass_parse, s, l, n);
    coax_schema_free(s);
    coax_arena_free(va);
    coax_arena_free(sa);
    free(l);
    free(stext);
    free(data);
    return 0;
}
