/*
** test_cost25.c: cost round 25, the streaming reader's pointers.
**
** Each open container's pointer was built apart, as a copy of its parent's
** with its key added: d levels of k-byte keys took d^2 k / 2 bytes (500
** levels of 1,000 bytes, a reply of 500 KB: 125 MB, the command's peak 135
** MB). They share one string now (a frame's pointer is a prefix of its
** child's): the reader's memory at 4 times the levels is about 4 times.
** The complete list repeats each part's whole path, so n items under a
** key of k bytes are listed in n x k bytes (8,000 items under an 8,000-byte
** key, a reply of 32 KB: a partial of 64 MB); the pointers a reader builds
** are held to max_input, past which the partial fails with COAX_ESIZE and
** says so. Twins: within the bound the list is whole; the pointers shared
** are the ones built apart (spec/c/test_cost24.c compares every partial
** of pieces with the one of the same prefix read whole).
*/
#include "base/core.h"
#include "stream/stream.h"

#include <stdio.h>
#include <stdlib.h>

#include "counting.h"
#include "test.h"

/* 'levels' levels of {"kkk...": (keys of 'klen' bytes), then {"a": 1, "b": */
static char *deep_text(size_t levels, size_t klen, size_t *len)
{
    char *t = malloc(levels * (klen + 5) + 32);
    size_t at = 0;
    for (size_t i = 0; i < levels; i++) {
        t[at++] = '{', t[at++] = '"';
        memset(t + at, 'k', klen), at += klen;
        memcpy(t + at, "\": ", 3), at += 3;
    }
    memcpy(t + at, "{\"a\": 1, \"b\": ", 14), at += 14;
    *len = at;
    return t;
}

/* The bytes the reader holds (its arena included) after reading 'text' and
** giving one partial, whose text goes to 'out' when given. */
static long reader_bytes(const char *text, size_t len, const coax_limits *lim, coax_code *rc, coax_error *err,
                         char **out)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    stream_options o = {NULL, lim, NULL, 0, NULL};
    stream_reader *r;
    if (stream_new(&al, &o, &r, NULL)) return -1;
    coax_arena *a = coax_arena_new(NULL);
    stream_partial p;
    *rc = stream_feed(r, text, len, err);
    if (!*rc) *rc = stream_partial_get(r, a, &p, err);
    if (!*rc && out) {
        coax_buf b;
        coax_buf_init(&b, NULL);
        stream_partial_write(&p, &b);
        size_t n;
        *out = coax_buf_take(&b, &n);
    }
    long held = c.live;
    coax_arena_free(a);
    stream_free(r);
    return held;
}

static void test_deep_long_keys_hold_linear_memory(void)
{
    size_t n1, n4;
    char *t1 = deep_text(100, 1000, &n1), *t4 = deep_text(400, 1000, &n4);
    coax_code rc1, rc4;
    coax_error err;
    char *p1 = NULL, *p4 = NULL;
    long b1 = reader_bytes(t1, n1, NULL, &rc1, &err, &p1), b4 = reader_bytes(t4, n4, NULL, &rc4, &err, &p4);
    CHECK_INT(rc1, COAX_OK);
    CHECK_INT(rc4, COAX_OK);
    if (b4 >= 8 * b1 || getenv("COST25_SHOW")) printf("  %ld bytes at 100 levels, %ld at 400\n", b1, b4);
    CHECK(b1 > 0 && b4 < 8 * b1); /* built apart: 16 times */
    /* the partial names the deepest parts in full */
    CHECK(p4 && strlen(p4) > 2 * 400 * 1001);
    if (p4) {
        const char *tail = "/a\"], \"in_progress\": \"";
        CHECK(strstr(p4, tail) != NULL);
        CHECK(strstr(p4, "\"/b\"}") == NULL && strstr(p4, "/b\"}") != NULL);
    }
    free(p1);
    free(p4);
    free(t1);
    free(t4);
}

/* '{"kkk...": [' (a key of 'klen' bytes) then 'items' items "1, " */
static char *items_text(size_t klen, size_t items, size_t *len)
{
    char *t = malloc(klen + 3 * items + 16);
    size_t at = 0;
    t[at++] = '{', t[at++] = '"';
    memset(t + at, 'k', klen), at += klen;
    memcpy(t + at, "\": [", 4), at += 4;
    for (size_t i = 0; i < items; i++) memcpy(t + at, "1, ", 3), at += 3;
    *len = at;
    return t;
}

static void test_the_complete_list_is_held_to_max_input(void)
{
    coax_limits lim = {0, 1 << 20, 0};
    size_t n;
    char *t = items_text(8000, 200, &n); /* 200 pointers of 8,005 bytes: 1.6 MB */
    coax_code rc;
    coax_error err = {0};
    reader_bytes(t, n, &lim, &rc, &err, NULL);
    CHECK_INT(rc, COAX_ESIZE);
    CHECK_STR(err.msg, "the complete list's JSON Pointers passed 1048576 bytes (max_input): each repeats its "
                           "part's path (200 parts new in this partial, pointers up to 8005 bytes)");
    free(t);
    /* twin: 100 of them (800 KB) are listed whole */
    t = items_text(8000, 100, &n);
    char *out = NULL;
    reader_bytes(t, n, &lim, &rc, &err, &out);
    CHECK_INT(rc, COAX_OK);
    size_t listed = 0;
    for (const char *s = out; s && (s = strstr(s, "k/")) != NULL; s++) listed++;
    CHECK_INT(listed, 100); /* "1, ": the space after each proves it ended */
    CHECK(out && strstr(out, "\"/" ) && strstr(out, "k/99\"], \"in_progress\": \"/k"));
    free(out);
    free(t);
}

#define TESTS                                       \
    X(test_deep_long_keys_hold_linear_memory)       \
    X(test_the_complete_list_is_held_to_max_input)
#include "test.h"
