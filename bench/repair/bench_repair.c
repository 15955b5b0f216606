/*
** bench_repair.c: coax_repair throughput.
**   bench_repair replies FILE.jsonl   MB/s over every reply (one JSON string a line)
**   bench_repair valid                MB/s on a valid 16 MB document (the fast path)
**   bench_repair scaling              MB/s on broken JSON from 1 KB to 64 MB
** Each measurement repeats until at least 0.5 s has passed.
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
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct reply {
    const char *text;
    size_t len;
} reply;

/* Repairs every reply once; returns how many gave a value. */
static size_t pass(const reply *r, size_t n)
{
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        coax_arena *a = coax_arena_new(NULL);
        coax_repair_result res;
        if (coax_repair(a, r[i].text, r[i].len, NULL, &res, NULL) == COAX_OK) ok++;
        coax_arena_free(a);
    }
    return ok;
}

/* Rounds to run: 0 means "until 0.5 s have passed"; a fixed count (the
** third argument) makes instruction counts under callgrind comparable. */
static size_t fixed_rounds;

static double measure(const reply *r, size_t n, size_t bytes, size_t *ok)
{
    double t0 = now(), t;
    size_t rounds = 0;
    do {
        *ok = pass(r, n);
        rounds++;
        t = now() - t0;
    } while (fixed_rounds ? rounds < fixed_rounds : t < 0.5);
    return (double)bytes * rounds / t / 1e6;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    *len = fread(s, 1, (size_t)n, f);
    fclose(f);
    return s;
}

static int replies(const char *path)
{
    size_t len;
    char *data = slurp(path, &len);
    if (!data) return 2;
    coax_arena *keep = coax_arena_new(NULL);
    reply *r = NULL;
    size_t n = 0, cap = 0, bytes = 0;
    for (char *p = data, *end = data + len; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        coax_value *v;
        if (l && coax_parse(keep, p, l, NULL, &v, NULL) == COAX_OK) {
            if (n == cap) r = realloc(r, (cap = cap ? cap * 2 : 1024) * sizeof *r);
            r[n].text = coax_value_text(v, &r[n].len);
            bytes += r[n].len;
            n++;
        }
        p += l + 1;
    }
    size_t ok;
    double mbs = measure(r, n, bytes, &ok);
    printf("coax %.1f MB/s %zu replies %zu bytes %zu recovered\n", mbs, n, bytes, ok);
    coax_arena_free(keep);
    free(r);
    free(data);
    return 0;
}

/* A document of about 'size' bytes: records in an array, valid or broken. */
static char *document(size_t size, int broken, size_t *len)
{
    char *s = malloc(size + 512);
    size_t n = 0;
    s[n++] = '[';
    for (unsigned i = 0; n < size; i++) {
        n += (size_t)sprintf(s + n, broken ? "{id: %u, 'name': 'item %u', \"ok\": True, \"tags\": [\"a\", \"b\",],},"
                                           : "{\"id\":%u,\"name\":\"item %u\",\"ok\":true,\"tags\":[\"a\",\"b\"]},",
                             i, i);
    }
    s[n - 1] = ']';
    *len = n;
    return s;
}

int main(int argc, char **argv)
{
    if (argc > 3) fixed_rounds = (size_t)atol(argv[3]);
    if (argc > 2 && !strcmp(argv[1], "replies")) return replies(argv[2]);
    if (argc > 1 && !strcmp(argv[1], "valid")) {
        size_t len, ok;
        char *doc = document(16u << 20, 0, &len);
        reply r = {doc, len};
        printf("coax valid %.1f MB/s %zu bytes\n", measure(&r, 1, len, &ok), len);
        free(doc);
        return ok == 1 ? 0 : 1;
    }
    if (argc > 1 && !strcmp(argv[1], "scaling")) {
        for (size_t size = 1024; size <= (64u << 20); size *= 4) {
            size_t len, ok;
            char *doc = document(size, 1, &len);
            reply r = {doc, len};
            double mbs = measure(&r, 1, len, &ok);
            printf("coax scaling %zu bytes %.1f MB/s %.3f ms\n", len, mbs, len / mbs / 1e3);
            free(doc);
        }
        return 0;
    }
    fprintf(stderr, "usage: bench_repair replies FILE | valid | scaling\n");
    return 2;
}
