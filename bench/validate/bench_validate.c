/*
** bench_validate.c: coax_validate throughput on the instances of a JSONL
** file, printed in the shape the peers print:
**   validate <inst/s> <valid> <n>   validation alone: values parsed once
**                                   first, then every value validated with
**                                   all errors collected
**   first    <inst/s> <valid> <n>   validation alone, stopping at the first
**                                   error (COAX_VALIDATE_FIRST; ajv's
**                                   allErrors: false)
**   parse    <inst/s> <valid> <n>   coax_parse + coax_validate per line, as
**                                   `coax validate --jsonl` does
** The schema is compiled once with formats asserted (ajv-formats asserts).
** One arena serves every instance, reset between them (coax_arena_reset).
** Each figure is measured as bench/common/measure.h says (warm-up until the
** rate is stable, then the best of 5 rounds), as ajv.mjs measures ajv.
**
**   bench_validate SCHEMA FILE.jsonl all|first N   runs N passes of one
**       mode and prints nothing: for callgrind (ir.sh divides its count of
**       pass_validate by the instances).
*/
#include "coax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/measure.h"
#include "../common/slurp.h"

typedef struct line {
    const char *text;
    size_t len;
    coax_value *value;
} line;

typedef struct work {
    const coax_schema *schema;
    line *l;
    size_t n;
    coax_arena *arena;
    unsigned flags; /* 0: every error; COAX_VALIDATE_FIRST */
} work;

static size_t pass_validate(void *ctx)
{
    work *w = ctx;
    size_t ok = 0;
    for (size_t i = 0; i < w->n; i++) {
        coax_validation r;
        if (coax_validate(w->schema, w->l[i].value, w->arena, w->flags, &r, NULL) == COAX_OK && r.valid) ok++;
        coax_arena_reset(w->arena);
    }
    return ok;
}

static size_t pass_parse(void *ctx)
{
    work *w = ctx;
    size_t ok = 0;
    for (size_t i = 0; i < w->n; i++) {
        coax_value *v;
        coax_validation r;
        if (coax_parse(w->arena, w->l[i].text, w->l[i].len, NULL, &v, NULL) == COAX_OK &&
            coax_validate(w->schema, v, w->arena, 0, &r, NULL) == COAX_OK && r.valid)
            ok++;
        coax_arena_reset(w->arena);
    }
    return ok;
}

static void measure(const char *name, size_t (*pass)(void *), work *w)
{
    size_t ok;
    double warm, rate = measure_best(pass, w, &ok, &warm);
    printf("%s %.0f %zu %zu %.1f\n", name, (double)w->n * rate, ok, w->n, warm);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: bench_validate SCHEMA FILE.jsonl [all|first PASSES]\n");
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
    work w = {s, l, n, coax_arena_new(NULL), 0};
    if (argc == 5) {
        size_t ok;
        w.flags = !strcmp(argv[3], "first") ? COAX_VALIDATE_FIRST : 0;
        measure_fixed(pass_validate, &w, (size_t)atol(argv[4]), &ok);
    } else {
        measure("validate", pass_validate, &w);
        w.flags = COAX_VALIDATE_FIRST;
        measure("first", pass_validate, &w);
        w.flags = 0;
        measure("parse", pass_parse, &w);
    }
    coax_arena_free(w.arena);
    coax_schema_free(s);
    coax_arena_free(va);
    coax_arena_free(sa);
    free(l);
    free(stext);
    free(data);
    return 0;
}
