/*
** pieces.c: the calibration side of the estimator. Reads a corpus file
** (JSON lines with a "text" member) and writes, for every sample, the pieces
** coax's pre-tokenizer makes and their keys, as little-endian uint32 records:
**   npieces, then npieces x {start, end, key, hash, hashed, nchars}
** fit.mjs counts the exact tokens of each piece and fits the weights, so the
** segmentation the weights are fitted on is the one the library runs.
**
**   pieces o200k|cl100k CORPUS.jsonl > pieces.bin
*/
#include "coax.h"
#include "tokens/tokens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sink {
    uint32_t *rec;
    size_t n, cap;
    int oom;
} sink;

static void visit(void *ud, const tok_piece *p)
{
    sink *s = ud;
    if (s->oom) return;
    if (s->n + 6 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1 << 16;
        uint32_t *r = realloc(s->rec, cap * sizeof *r);
        if (!r) {
            s->oom = 1;
            return;
        }
        s->rec = r;
        s->cap = cap;
    }
    uint32_t *r = s->rec + s->n;
    r[0] = (uint32_t)p->start;
    r[1] = (uint32_t)p->end;
    r[2] = p->key;
    r[3] = p->hash;
    r[4] = (uint32_t)p->hashed;
    r[5] = p->nchars;
    s->n += 6;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "o200k") && strcmp(argv[1], "cl100k"))) {
        fprintf(stderr, "usage: pieces o200k|cl100k CORPUS.jsonl > pieces.bin\n");
        return 2;
    }
    int split = strcmp(argv[1], "o200k") ? TOK_SPLIT_CL100K : TOK_SPLIT_O200K;
    const tok_model *m = split == TOK_SPLIT_O200K ? &coax_tok_model_o200k : &coax_tok_model_cl100k;
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    sink s = {0};
    int status = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        coax_arena *a = coax_arena_new(NULL);
        coax_value *v;
        coax_error err;
        const coax_value *t;
        if (!a || coax_parse(a, line, (size_t)len, NULL, &v, &err) ||
            !(t = coax_object_get(v, "text", 4)) || coax_value_type(t) != COAX_STRING) {
            fprintf(stderr, "pieces: a line without a text string\n");
            status = 1;
            coax_arena_free(a);
            break;
        }
        size_t n;
        const char *text = coax_value_text(t, &n);
        s.n = 0;
        coax_tok_scan(split, m, text, n, visit, &s);
        if (s.oom) {
            fprintf(stderr, "pieces: out of memory\n");
            status = 1;
            coax_arena_free(a);
            break;
        }
        uint32_t np = (uint32_t)(s.n / 6);
        fwrite(&np, 4, 1, stdout);
        fwrite(s.rec, 4, s.n, stdout);
        coax_arena_free(a);
    }
    free(line);
    free(s.rec);
    fclose(f);
    return status;
}
