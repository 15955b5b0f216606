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

#define TESTS X(test_every_allocation_fails_in_turn)
#include "test.h"
