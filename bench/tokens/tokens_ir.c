/*
** tokens_ir.c: two tools for work on the estimator's speed (engine/tokens).
**
**   tokens_ir dump CORPUS.jsonl...     prints, for every text (and for cut
**       and damaged copies of it: cuts inside UTF-8 sequences, bytes flipped),
**       coax_tokens under every encoding, the raw sums of both splits and a
**       digest of every piece the visitor hears. `| md5sum` before and after
**       a change: equal sums mean no estimate changed.
**   tokens_ir run CORPUS.jsonl CAT ENC [PASSES]
**       counts the texts of category CAT (or "all") with encoding ENC and
**       prints the bytes counted; under
**       valgrind --tool=callgrind --toggle-collect=coax_tokens
**       Ir / bytes is the cost per byte (stable on a loaded machine).
**   tokens_ir speed CORPUS.jsonl ENC [ROUNDS]
**       MB/s of coax_tokens with encoding ENC over the whole corpus, timed
**       as bench/common/measure.h says, ROUNDS times (default 1), one line
**       each: run the binaries of two versions in turn and compare medians.
**
** cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -Iengine/include -Iengine \
**    -o bench/out/tokens_ir bench/tokens/tokens_ir.c build/libcoax.a \
**    $(pkg-config --libs lua5.4 libpcre2-8 libcurl libidn2) -lm
*/
#include "coax.h"
#include "tokens/tokens.h"
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/measure.h"

typedef struct text {
    const char *s, *cat;
    size_t n;
} text;

static text *texts;
static size_t ntexts, cap;

static void keep_text(void *ud, const coax_value *record, const char *s, size_t n)
{
    (void)ud;
    if (ntexts == cap) {
        cap = cap ? cap * 2 : 1024;
        texts = realloc(texts, cap * sizeof *texts);
        if (!texts) exit(1);
    }
    size_t cl;
    const coax_value *c = coax_object_get(record, "cat", 3);
    texts[ntexts++] = (text){s, c ? coax_value_text(c, &cl) : "", n};
}

static void load(coax_arena *a, const char *path) { records_each(a, path, keep_text, NULL); }

static void visit(void *ud, const tok_piece *p)
{
    uint64_t *h = ud;
    uint64_t f[] = {p->start, p->end, p->kind, p->row, p->nchars, p->key,
                    p->hash, (uint64_t)p->hashed, p->common, p->weight};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++) *h = (*h ^ f[k]) * 0x100000001b3u;
}

static void dump_one(const char *s, size_t n)
{
    for (int e = 0; e < COAX_ENC_COUNT; e++) printf("%zu ", coax_tokens((coax_encoding)e, s, n));
    for (int sp = 0; sp < 2; sp++) {
        const tok_model *m = sp == TOK_SPLIT_O200K ? &coax_tok_model_o200k : &coax_tok_model_cl100k;
        uint64_t h = 0xcbf29ce484222325u;
        uint64_t raw = coax_tok_scan(sp, m, s, n, NULL, NULL);
        uint64_t raw2 = coax_tok_scan(sp, m, s, n, visit, &h);
        printf("%llu %llu %016llx ", (unsigned long long)raw, (unsigned long long)raw2,
               (unsigned long long)h);
    }
    putchar('\n');
}

static int dump(void)
{
    uint64_t rng = 42;
    for (size_t i = 0; i < ntexts; i++) {
        const char *s = texts[i].s;
        size_t n = texts[i].n;
        printf("%zu: ", i);
        dump_one(s, n);
        /* cuts: short prefixes, and prefixes ending at every byte of the
        ** first few hundred (many inside a UTF-8 sequence) */
        size_t lim = n < 300 ? n : 300;
        for (size_t k = 1; k < lim; k += 1 + (k > 64) * 6) dump_one(s, k);
        if (n > 64) dump_one(s + 1, n - 1);
        /* damage: a copy with a few bytes replaced by random ones */
        char *d = malloc(n + 1);
        if (!d) return 1;
        memcpy(d, s, n);
        for (int r = 0; r < 8 && n; r++) {
            rng = rng * 6364136223846793005u + 1442695040888963407u;
            d[(rng >> 33) % n] = (char)(rng >> 20);
        }
        dump_one(d, n);
        free(d);
    }
    return 0;
}

static int run(const char *cat, const char *encname, long passes)
{
    coax_encoding enc;
    if (coax_encoding_parse(encname, strlen(encname), &enc)) {
        fprintf(stderr, "unknown encoding %s\n", encname);
        return 2;
    }
    size_t bytes = 0, tokens = 0;
    for (long p = 0; p < passes; p++)
        for (size_t i = 0; i < ntexts; i++)
            if (!strcmp(cat, "all") || !strcmp(cat, texts[i].cat)) {
                tokens += coax_tokens(enc, texts[i].s, texts[i].n);
                bytes += texts[i].n;
            }
    printf("%s %s bytes %zu tokens %zu\n", cat, encname, bytes, tokens);
    return 0;
}

typedef struct speed_ctx {
    coax_encoding enc;
} speed_ctx;

static size_t speed_pass(void *ud)
{
    speed_ctx *c = ud;
    size_t tokens = 0;
    for (size_t i = 0; i < ntexts; i++) tokens += coax_tokens(c->enc, texts[i].s, texts[i].n);
    return tokens;
}

static int speed(const char *encname, long rounds)
{
    speed_ctx c;
    if (coax_encoding_parse(encname, strlen(encname), &c.enc)) {
        fprintf(stderr, "unknown encoding %s\n", encname);
        return 2;
    }
    size_t bytes = 0, tokens = 0;
    for (size_t i = 0; i < ntexts; i++) bytes += texts[i].n;
    for (long r = 0; r < rounds; r++) {
        double rate = measure_best(speed_pass, &c, &tokens, NULL);
        printf("%s %.1f MB/s tokens %zu\n", encname, (double)bytes * rate / 1e6, tokens);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    coax_arena *a = coax_arena_new(NULL);
    int rc = 2;
    if (argc >= 3 && !strcmp(argv[1], "dump")) {
        for (int k = 2; k < argc; k++) load(a, argv[k]);
        rc = dump();
    } else if ((argc == 5 || argc == 6) && !strcmp(argv[1], "run")) {
        load(a, argv[2]);
        rc = run(argv[3], argv[4], argc == 6 ? atol(argv[5]) : 1);
    } else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "speed")) {
        load(a, argv[2]);
        rc = speed(argv[3], argc == 5 ? atol(argv[4]) : 1);
    } else {
        fprintf(stderr, "usage: tokens_ir dump CORPUS.jsonl...\n"
                        "       tokens_ir run CORPUS.jsonl CAT ENC [PASSES]\n"
                        "       tokens_ir speed CORPUS.jsonl ENC [ROUNDS]\n");
    }
    free(texts);
    coax_arena_free(a);
    return rc;
}
