/*
** bench_tokens.c: the speed of coax_tokens over a corpus file (JSON lines
** with a "text" member), per encoding, in MB/s of input, measured as
** bench/common/measure.h says (warm-up until the rate is stable, then the
** best of 5 rounds of the whole corpus).
**
**   bench_tokens CORPUS.jsonl [N [ENC]]   prints "ENCODING MB/s TOKENS" lines;
**       N: exactly N passes (for callgrind; 0: timed); ENC: that encoding only
*/
#include "coax.h"
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/measure.h"

typedef struct corpus {
    const char **texts;
    size_t *lens, n, cap, bytes;
    coax_encoding enc;
} corpus;

static void keep_text(void *ud, const coax_value *record, const char *s, size_t n)
{
    (void)record;
    corpus *c = ud;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->texts = realloc(c->texts, c->cap * sizeof *c->texts);
        c->lens = realloc(c->lens, c->cap * sizeof *c->lens);
        if (!c->texts || !c->lens) exit(1);
    }
    c->texts[c->n] = s;
    c->lens[c->n++] = n;
    c->bytes += n;
}

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
    coax_encoding only = COAX_ENC_COUNT;
    if (argc < 2 || argc > 4 ||
        (argc == 4 && coax_encoding_parse(argv[3], strlen(argv[3]), &only) != COAX_OK)) {
        fprintf(stderr, "usage: bench_tokens CORPUS.jsonl [N [ENC]]\n");
        return 2;
    }
    coax_arena *a = coax_arena_new(NULL);
    corpus c = {0};
    records_each(a, argv[1], keep_text, &c);
    size_t fixed = argc >= 3 ? (size_t)atol(argv[2]) : 0;
    for (int e = 0; e < COAX_ENC_COUNT; e++) {
        if (only != COAX_ENC_COUNT && e != (int)only) continue;
        c.enc = (coax_encoding)e;
        size_t tokens = 0;
        double warm = 0, rate = 0;
        if (fixed) measure_fixed(pass, &c, fixed, &tokens);
        else rate = measure_best(pass, &c, &tokens, &warm);
        printf("%s %.1f %zu %.1f\n", coax_encoding_name((coax_encoding)e), (double)c.bytes * rate / 1e6, tokens, warm);
    }
    free(c.texts);
    free(c.lens);
    coax_arena_free(a);
    return 0;
}
