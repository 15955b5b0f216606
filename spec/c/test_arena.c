/*
** test_arena.c: arenas keep and reuse their memory. A host that works reply
** after reply in one arena, resetting it between them, stops calling its
** allocator once the arena has seen the work; the memory comes back when
** the host trims or frees the arena, and the cache is bounded.
*/
#include "base/core.h"

#include <stdio.h>
#include <stdlib.h>

#include "counting.h"
#include "test.h"

/* A broken reply of about 'size' bytes: records with the usual mistakes. */
static char *broken_reply(size_t size, size_t *len)
{
    char *s = malloc(size + 512);
    size_t n = (size_t)sprintf(s, "Here you go:\n```json\n[");
    for (unsigned i = 0; n < size; i++)
        n += (size_t)sprintf(s + n, "{id: %u, 'name': 'item %u', \"ok\": True, \"tags\": [\"a\", \"b\",],},", i, i);
    n += (size_t)sprintf(s + n, "]\n```\n");
    *len = n;
    return s;
}

static char *valid_document(size_t size, size_t *len)
{
    char *s = malloc(size + 512);
    size_t n = 0;
    s[n++] = '[';
    for (unsigned i = 0; n < size; i++)
        n += (size_t)sprintf(s + n, "{\"id\":%u,\"name\":\"item \\u00e9%u\",\"ok\":true,\"n\":%u.5},", i, i, i);
    s[n - 1] = ']';
    *len = n;
    return s;
}

static const char *schema_text =
    "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"required\":[\"id\",\"name\"],"
    "\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":0},\"name\":{\"type\":\"string\","
    "\"pattern\":\"^item\"},\"ok\":{\"type\":\"boolean\"},\"n\":{\"type\":\"number\"}},"
    "\"additionalProperties\":false}}";

/* One unit of work in 'a': repair the broken reply, parse and validate the
** valid document; returns the repaired value as text (malloc'd) to compare
** across iterations. */
static char *work(coax_arena *a, const coax_schema *s, const char *reply, size_t rlen, const char *doc,
                  size_t dlen)
{
    coax_repair_result r;
    coax_value *v;
    coax_validation val;
    if (coax_repair(a, reply, rlen, NULL, &r, NULL) != COAX_OK) return NULL;
    if (coax_parse(a, doc, dlen, NULL, &v, NULL) != COAX_OK) return NULL;
    if (coax_validate(s, v, a, 0, &val, NULL) != COAX_OK || !val.valid) return NULL;
    char *text;
    size_t len;
    if (coax_write(r.value, 0, NULL, &text, &len) != COAX_OK) return NULL;
    return text;
}

static void test_a_reset_arena_stops_calling_the_allocator(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    size_t rlen, dlen;
    char *reply = broken_reply(16u << 10, &rlen), *doc = valid_document(16u << 10, &dlen);
    coax_arena *sa = coax_arena_new(NULL);
    coax_value *sv;
    coax_schema *s = NULL;
    CHECK_INT(coax_parse(sa, schema_text, strlen(schema_text), NULL, &sv, NULL), COAX_OK);
    CHECK_INT(coax_schema_compile(sv, NULL, NULL, &s, NULL), COAX_OK);
    coax_arena *a = coax_arena_new(&al);
    char *first = work(a, s, reply, rlen, doc, dlen);
    CHECK(first != NULL);
    CHECK(first && strncmp(first, "[{\"id\":0,\"name\":\"item 0\",\"ok\":true,\"tags\":[\"a\",\"b\"]},", 52) == 0);
    coax_arena_reset(a);
    long allocs_after[101] = {0}, live_after[101] = {0};
    allocs_after[1] = c.allocs;
    for (int i = 2; i <= 100; i++) {
        char *again = work(a, s, reply, rlen, doc, dlen);
        CHECK(again && first && strcmp(again, first) == 0);
        free(again);
        coax_arena_reset(a);
        allocs_after[i] = c.allocs;
        live_after[i] = c.live;
    }
    CHECK(allocs_after[1] > 5);              /* the first call did allocate (10 blocks) */
    CHECK_INT(allocs_after[100], allocs_after[3]); /* then nothing more */
    CHECK_INT(live_after[100], live_after[3]);
    CHECK(coax_arena_size(a) > 0);           /* the kept memory */
    coax_arena_trim(a);
    CHECK_INT(coax_arena_size(a), 0);
    CHECK(c.live > 0 && c.live < 1024);      /* the arena itself */
    coax_arena_free(a);
    CHECK_INT(c.live, 0);
    free(first);
    coax_schema_free(s);
    coax_arena_free(sa);
    free(reply);
    free(doc);
}

/* A fresh arena per call gives everything back at once, as before. */
static void test_a_freed_arena_gives_everything_back(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    size_t rlen;
    char *reply = broken_reply(64u << 10, &rlen);
    for (int i = 0; i < 3; i++) {
        coax_arena *a = coax_arena_new(&al);
        coax_repair_result r;
        CHECK_INT(coax_repair(a, reply, rlen, NULL, &r, NULL), COAX_OK);
        CHECK(coax_arena_size(a) > rlen);
        coax_arena_free(a);
        CHECK_INT(c.live, 0);
    }
    free(reply);
}

/* What a reset frees serves the next call, big documents included. */
static void test_a_reset_serves_big_documents_too(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    coax_arena *a = coax_arena_new(&al);
    coax_value *v;
    CHECK_INT(coax_parse(a, "[1]", 3, NULL, &v, NULL), COAX_OK);
    size_t len;
    char *doc = valid_document(200u << 10, &len);
    CHECK_INT(coax_parse(a, doc, len, NULL, &v, NULL), COAX_OK);
    size_t items = coax_value_len(v);
    CHECK(items > 1000);
    coax_arena_reset(a);
    long allocs = c.allocs;
    for (int i = 0; i < 5; i++) {
        CHECK_INT(coax_parse(a, "[1]", 3, NULL, &v, NULL), COAX_OK);
        CHECK_INT(coax_parse(a, doc, len, NULL, &v, NULL), COAX_OK);
        CHECK_INT(coax_value_len(v), items);
        coax_arena_reset(a);
    }
    CHECK_INT(c.allocs, allocs);
    coax_arena_free(a);
    CHECK_INT(c.live, 0);
    free(doc);
}

/* The allocator coax_arena_allocator lends: contents survive growth, a
** shrink keeps the block, a freed loan is reused. */
static void test_loans_grow_shrink_and_come_back(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    coax_arena *a = coax_arena_new(&al);
    const coax_allocator *lend = coax_arena_allocator(a);
    char *p = lend->malloc(lend->ctx, 10);
    CHECK(p != NULL);
    memcpy(p, "0123456789", 10);
    char *q = lend->realloc(lend->ctx, p, 10, 5000);
    CHECK(q && memcmp(q, "0123456789", 10) == 0);
    CHECK(lend->realloc(lend->ctx, q, 5000, 20) == q);
    lend->free(lend->ctx, q, 20);
    long allocs = c.allocs;
    char *r = lend->malloc(lend->ctx, 4000);
    CHECK(r == q); /* the freed block, from the cache */
    CHECK_INT(c.allocs, allocs);
    lend->free(lend->ctx, r, 4000);
    coax_arena_free(a);
    CHECK_INT(c.live, 0);
}

/* The cache keeps at most 1024 blocks: freeing more loans than that gives
** the rest back to the allocator at once. */
static void test_the_cache_is_bounded(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    coax_arena *a = coax_arena_new(&al);
    const coax_allocator *lend = coax_arena_allocator(a);
    enum { N = 3000 };
    static void *loans[N];
    long base = c.live;
    for (int i = 0; i < N; i++) loans[i] = lend->malloc(lend->ctx, 100);
    long each = (c.live - base) / N;
    CHECK(each >= 100 && each <= 256);
    for (int i = 0; i < N; i++) lend->free(lend->ctx, loans[i], 100);
    CHECK_INT(c.live - base, 1024 * each);
    CHECK_INT(coax_arena_size(a), 1024 * each);
    coax_arena_trim(a);
    CHECK_INT(c.live, base);
    coax_arena_free(a);
    CHECK_INT(c.live, 0);
}

#define TESTS                                         \
    X(test_a_reset_arena_stops_calling_the_allocator) \
    X(test_a_freed_arena_gives_everything_back)       \
    X(test_a_reset_serves_big_documents_too)    \
    X(test_loans_grow_shrink_and_come_back)           \
    X(test_the_cache_is_bounded)
#include "test.h"
