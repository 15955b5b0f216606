/* slurp.h: a whole file read into memory, for the benchmarks' inputs. */
#ifndef BENCH_SLURP_H
#define BENCH_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/* The file's bytes, NUL-terminated (malloc'd; '*len' without the NUL), or
** NULL when it cannot be read whole. */
static inline char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    if (s) s[n] = '\0';
    *len = s ? (size_t)n : 0;
    return s;
}

#endif
