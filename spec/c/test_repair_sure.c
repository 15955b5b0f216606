/*
** test_repair_sure.c: `coax repair` and coax.repair (extract_sure_repair,
** coax_extract with the schema true, compiled per call into the arena's
** allocator) under an allocator that fails: at every allocation in turn,
** and at every one from the N-th on. Each call returns COAX_OK with the
** value a working allocator gives, or COAX_ENOMEM; nothing leaks, and the
** arena is usable after.
*/
#include "extract/coerce.h"

#include <stdlib.h>

#include "counting.h"
#include "test.h"

static const char *const replies[] = {
    "{\"a\": 1}",
    "Sure! ```json\n{name: 'Ada', tags: ['x',],}\n``` and {\"b\": [1, 2",
    "{\"a\":1} {\"a\":2}",
    "1,234",
    "<json>[1, 2, {\"c\": \"d\\u00e9\"}]</json>",
    /* attack round 19: the paths hunt23 added (a lone CR read as LF in a copy, a reply written twice, the
    ** text after an introduction read again whole, "{...}," and [1,,2], labels behind a BOM or a zero-width
    ** space) */
    "Here:\r{\"a\": 1}\r\rNote: fine\r",
    "{\"a\": 1}\n\n{\"a\": 1}\n",
    "{\"a\": 1, \"b\": 2}\n{\"b\": 2, \"a\": 1}", /* its members in another order: compared sorted */
    "{\"a\":1}\n{\"b\":2}\n{\"a\":1}\n{\"b\":2}\n",
    "Here is the JSON:\n{\"a\": 1}\n\"a\": 2}\n{\"a\": 3}",
    "{\"a\": 1},",
    "[1,,2]",
    "\xEF\xBB\xBF" "Answer\xE2\x80\x8B: {\"a\": 1}",
};

/* The call's outcome, 0 when refused (a guess) and 1 when taken. */
static int sure(coax_arena *a, const char *text, coax_code *rc)
{
    coax_extract_result r;
    coax_extract_options xo;
    coax_extract_options_default(&xo);
    *rc = extract_sure_repair(a, text, strlen(text), NULL, &xo, &r, NULL);
    return *rc == COAX_OK && r.valid;
}

static void test_every_allocation_fails_in_turn(void)
{
    for (size_t k = 0; k < sizeof replies / sizeof *replies; k++) {
        coax_arena *a = coax_arena_new(NULL);
        coax_code want_rc;
        int want = sure(a, replies[k], &want_rc);
        coax_arena_free(a);
        CHECK_INT(want_rc, COAX_OK);
        int done = 0;
        for (long n = 1; n < 2000 && !done; n++)
            for (int from = 0; from < 2; from++) {
                counting c = {0, 0, from ? -n : n};
                coax_allocator al = COUNTING_ALLOCATOR(&c);
                a = coax_arena_new(&al);
                if (!a) continue;
                coax_code rc;
                int got = sure(a, replies[k], &rc);
                if (rc == COAX_OK) CHECK_INT(got, want);
                else CHECK_INT(rc, COAX_ENOMEM);
                if (!from && rc == COAX_OK && c.allocs < n) done = 1; /* n is past the last allocation */
                c.fail_at = 0; /* the arena still works */
                CHECK_INT(sure(a, replies[k], &rc), want);
                coax_arena_free(a);
                CHECK_INT(c.live, 0);
            }
        CHECK(done);
    }
}

/* A long reply through the same paths, so that the lone CRs' copy, the
** values compared for a reply written twice and the text after an
** introduction read again need blocks of their own: 'kind' 0 lines ending
** in a lone CR, 1 a long value written twice, 2 an introduction, then 200
** values one after another (each candidate allocates). */
static char *long_reply(int kind, size_t *len)
{
    size_t cap = 1 << 18, n = 0;
    char *t = malloc(cap);
    if (kind == 2) n += (size_t)snprintf(t, cap, "Here is the JSON:\n");
    for (int copy = 0; copy < (kind == 1 ? 2 : 1); copy++) {
        n += (size_t)snprintf(t + n, cap - n, kind == 1 ? "{\"a\": [" : "Here:\r");
        for (int i = 0; i < (kind == 2 ? 200 : 9000); i++)
            n += (size_t)snprintf(t + n, cap - n, kind == 0 ? "line %d\r" : kind == 1 ? "%d, " : "{\"a\": %d}\n", i);
        n += (size_t)snprintf(t + n, cap - n, kind == 1 ? "0]}\n\n" : "{\"a\": 1}\r");
    }
    *len = n;
    return t;
}

static void test_long_replies_fail_each_allocation_in_turn(void)
{
    for (int kind = 0; kind < 3; kind++) {
        size_t len;
        char *t = long_reply(kind, &len);
        counting whole = {0, 0, 0};
        coax_allocator wl = COUNTING_ALLOCATOR(&whole);
        coax_arena *a = coax_arena_new(&wl);
        coax_extract_result want, got;
        coax_extract_options xo;
        coax_extract_options_default(&xo);
        CHECK_INT(extract_sure_repair(a, t, len, NULL, &xo, &want, NULL), COAX_OK);
        int want_valid = want.valid;
        coax_arena_free(a);
        CHECK(whole.allocs >= 3);
        if (getenv("A19")) printf("kind %d: %zu bytes, %ld allocations\n", kind, len, whole.allocs);
        for (long n = 1 - whole.allocs; n <= whole.allocs; n++) {
            if (!n) continue;
            counting c = {0, 0, n};
            coax_allocator al = COUNTING_ALLOCATOR(&c);
            a = coax_arena_new(&al);
            coax_code rc = a ? extract_sure_repair(a, t, len, NULL, &xo, &got, NULL) : COAX_ENOMEM;
            if (rc != COAX_ENOMEM) CHECK_INT(rc, COAX_OK);
            if (rc == COAX_OK) CHECK_INT(got.valid, want_valid);
            coax_arena_free(a);
            CHECK_INT(c.live, 0);
            if (test_failed_now) break;
        }
        free(t);
    }
}

#define TESTS                                 \
    X(test_every_allocation_fails_in_turn) \
    X(test_long_replies_fail_each_allocation_in_turn)
#include "test.h"
