/*
** bench_tokens.c: the speed of coax_tokens over a corpus file (JSON lines
** with a "text" member), per encoding, in MB/s of input. Each encoding runs
** over the whole corpus until at least half a second has passed.
**
**   bench_tokens CORPUS.jsonl   prints "ENCODING MB/s TOKENS" lines
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
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_tokens CORPUS.jsonl\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    coax_arena *a = coax_arena_new(NULL);
    const char **texts = NULL;
    size_t *lens = NULL, n = 0, cap = 0, bytes = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) > 0) {
        coax_value *v;
        const coax_value *t;
        if (coax_parse(a, line, (size_t)len, NULL, &v, NULL) || !(t = coax_object_get(v, "text", 4)))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            texts = realloc(texts, cap * sizeof *texts);
            lens = realloc(lens, cap * sizeof *lens);
            if (!texts || !lens) return 1;
        }
        texts[n] = coax_value_text(t, &lens[n]);
        bytes += lens[n];
        n++;
    }
    free(line);
    fclose(f);
    for (int e = 0; e < COAX_ENC_COUNT; e++) {
        size_t tokens = 0, rounds = 0;
        double t0 = now(), t1;
        do {
            tokens = 0;
            for (size_t i = 0; i < n; i++) tokens += coax_tokens((coax_encoding)e, texts[i], lens[i]);
            rounds++;
            t1 = now();
        } while (t1 - t0 < 0.5);
        printf("%s %.1f %zu\n", coax_encoding_name((coax_encoding)e),
               (double)bytes * rounds / (t1 - t0) / 1e6, tokens);
    }
    free(texts);
    free(lens);
    coax_arena_free(a);
    return 0;
}
