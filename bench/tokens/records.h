/*
** records.h: the token benches' corpora, JSON lines each with a "text"
** (and, in the evaluation set, a "cat"). One reader for the rate bench
** (bench_tokens.c), the instruction counts (tokens_ir.c) and the
** differential check (diff.c).
*/
#ifndef BENCH_TOKENS_RECORDS_H
#define BENCH_TOKENS_RECORDS_H
#include "coax.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

/* Calls 'each' with every line of 'path' that parses as an object with a
** string "text" (its value, its text and length); exits on an unreadable
** file. The values live in 'a' until the caller resets it ('each' may). */
static inline void records_each(coax_arena *a, const char *path,
                         void (*each)(void *ud, const coax_value *record, const char *text, size_t n), void *ud)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) > 0) {
        coax_value *v;
        const coax_value *t;
        if (coax_parse(a, line, (size_t)len, NULL, &v, NULL) || !(t = coax_object_get(v, "text", 4))) continue;
        size_t n;
        const char *s = coax_value_text(t, &n);
        each(ud, v, s, n);
    }
    free(line);
    fclose(f);
}
#endif
