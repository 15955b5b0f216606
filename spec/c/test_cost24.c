/*
** test_cost24.c: cost round 24, the streaming reader's pointer of the part
** in progress.
**
** A partial built the pointer of the part in progress afresh from its key:
** a key of n bytes being read, or the value after it, cost n a partial, so
** partials after every 64-byte piece of a long key were quadratic (a key of
** 80,000 bytes: 0.058 s, 4 times that of 40,000; the value after it: 0.16 s).
** The reader now keeps the pointer it built last and adds the key's bytes
** read since. The work is counted as the bytes the partials' arenas take
** from their allocator (a fresh arena a partial): deterministic.
** Twins: after each piece, the partial is the one the same prefix fed in
** one piece gives, for keys with '~' and '/' across pieces, a key after a
** finished one in the same object, items and nested containers.
*/
#include "base/core.h"
#include "stream/stream.h"

#include <stdio.h>
#include <stdlib.h>

#include "counting.h"
#include "test.h"

/* The partial of 'r' as the CLI writes it (malloc'd), its arena counted in 'c'. */
static char *partial_text(stream_reader *r, counting *c, long *taken)
{
    coax_allocator al = COUNTING_ALLOCATOR(c);
    coax_arena *a = coax_arena_new(&al);
    stream_partial p;
    char *out = NULL;
    if (a && stream_partial_get(r, a, &p, NULL) == COAX_OK) {
        if (taken) *taken += c->live;
        coax_buf b;
        coax_buf_init(&b, NULL);
        stream_partial_write(&p, &b);
        size_t n;
        out = coax_buf_take(&b, &n);
    }
    coax_arena_free(a);
    return out;
}

/* The bytes the arenas of the partials after each 64-byte piece of 'text' took. */
static long partials_cost(const char *text, size_t len)
{
    stream_options o = {NULL, NULL, NULL, 0, NULL};
    stream_reader *r;
    if (stream_new(NULL, &o, &r, NULL)) return -1;
    counting c = {0, 0, 0};
    long taken = 0;
    for (size_t i = 0; i < len; i += 64) {
        if (stream_feed(r, text + i, len - i < 64 ? len - i : 64, NULL)) return -1;
        free(partial_text(r, &c, &taken));
    }
    stream_free(r);
    return taken;
}

/* '{"' then n bytes of key ('value': then '": "' and n bytes of a string). */
static char *long_key(size_t n, bool value, size_t *len)
{
    char *t = malloc(2 * n + 8);
    size_t at = 0;
    t[at++] = '{', t[at++] = '"';
    memset(t + at, 'k', n), at += n;
    if (value) {
        memcpy(t + at, "\": \"", 4), at += 4;
        memset(t + at, 'v', n), at += n;
    }
    *len = at;
    return t;
}

static void test_a_long_key_costs_its_partials_linear_work(void)
{
    for (int value = 0; value < 2; value++) {
        size_t n1, n4;
        char *t1 = long_key(20000, value, &n1), *t4 = long_key(80000, value, &n4);
        long c1 = partials_cost(t1, n1), c4 = partials_cost(t4, n4);
        CHECK(c1 > 0 && c4 > 0);
        if (c4 >= 8 * c1) printf("  value %d: %ld bytes for 20,000, %ld for 80,000\n", value, c1, c4);
        CHECK(c4 < 8 * c1); /* 4 times the pieces; the key rebuilt each time was 16 times */
        free(t1);
        free(t4);
    }
}

/* After each piece of 'text' (pieces of 1, 2, 3 and 7 bytes), the partial is
** the one of the same prefix read in one piece. */
static void check_pieces(const char *text)
{
    size_t len = strlen(text);
    static const size_t sizes[] = {1, 2, 3, 7};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        stream_options o = {NULL, NULL, NULL, 0, NULL};
        stream_reader *r;
        if (stream_new(NULL, &o, &r, NULL)) return;
        counting c = {0, 0, 0};
        for (size_t i = 0; i < len; i += sizes[s]) {
            size_t end = i + sizes[s] < len ? i + sizes[s] : len;
            CHECK_INT(stream_feed(r, text + i, end - i, NULL), COAX_OK);
            char *got = partial_text(r, &c, NULL);
            stream_reader *whole;
            if (stream_new(NULL, &o, &whole, NULL)) break;
            CHECK_INT(stream_feed(whole, text, end, NULL), COAX_OK);
            char *want = partial_text(whole, &c, NULL);
            CHECK(got && want);
            if (got && want && strcmp(got, want) != 0) printf("  %zu-byte pieces of '%s' at %zu:\n", sizes[s], text, end);
            if (got && want) CHECK_STR(got, want);
            free(got);
            free(want);
            stream_free(whole);
        }
        stream_free(r);
    }
}

static void test_the_pointer_kept_is_the_one_built_afresh(void)
{
    check_pieces("{\"a~b/c~~//d\": \"x~/\", \"a~b/c\": [1, 22, \"3/\", {\"e/f\": {\"g~\": [4]}}], \"a~b\": 5}");
    check_pieces("{\"k\": {\"k\": 1, \"kk\": {\"k\": \"kk\"}}, \"kk\": [[\"k\", \"kk\"], [1, 2]], \"kkk\": true}");
    check_pieces("[{\"a\": 1}, {\"a\": 2}, {\"b\": [{\"a\": 3}, {\"a\": 4}]}, \"x\", 12, null]");
    check_pieces("{\"\\u007e\\u002f\": {\"\\\"\": 1, \"\\\\/\": [\"~\"]}}");
}

#define TESTS                                             \
    X(test_a_long_key_costs_its_partials_linear_work)     \
    X(test_the_pointer_kept_is_the_one_built_afresh)
#include "test.h"
