/*
** bench_tokens.c: the speed of coax_tokens over a corpus file (JSON lines
** with a "text" member), per encoding, in MB/s of input, measured as
** bench/common/measure.h says (warm-up until the rate is stable, then the
** best of 5 rounds of the whole corpus).
**
**   bench_tokens CORPUS.jsonl [N]   prints "ENCODING MB/s TOKENS" lines;
**                                   N: exactly N passes (for callgrind)
*/
#include "coax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/measure.h"

typedef struct corpus {
    const char **texts;
    size_t *lens, n;
    coax_encoding enc;
} corpus;

/* One pass over the corpus; returns the tokens counted. */
static size_t pass(void *ctx)
{
    corpus *c = ctx;
    size_t tokens = 0;
    for (size_t i = 0; i < c->n; i++) tokens += coax_tokens(c->enc, c->texts[i], c->lens[i]);
    return tokens;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: bench_tokens CORPUS.jsonl [N]\n");
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
    size_t fixed = argc == 3 ? (size_t)atol(argv[2]) : 0;
    for (int e = 0; e < COAX_ENC_COUNT; e++) {
        corpus c = {texts, lens, n, (coax_encoding)e};
        size_t tokens = 0;
        double warm = 0, rate = 0;
        if (fixed) measure_fixed(pass, &c, fixed, &tokens);
        else rate = measure_best(pass, &c, &tokens, &warm);
        printf("%s %.1f %zu %.1f\n", coax_encoding_name((coax_encoding)e), (double)bytes * rate / 1e6, tokens, warm);
    }
    free(texts);
    free(lens);
    coax_arena_free(a);
    return 0;
}
