/*
** Attack round 19: an allocation failing inside the comparison that tells a
** reply written twice ({...}⏎{...}, its members in another order, compared
** sorted) from values one after another. The comparison's "out of memory"
** was read as "not the same value", so the copies were read as a list of
** two (valid for a schema asking for an array) where the run with memory
** refuses it as a guess: now COAX_ENOMEM. Each run ends COAX_ENOMEM or
** refused as the run with memory is; nothing leaks.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coax.h"
#include "counting.h"
#include "test.h"

/* An object of 'n' members, then the same with its members in reverse order. */
static char *written_twice(int n, size_t *len)
{
    size_t cap = (size_t)n * 40 + 16, at = 0;
    char *t = malloc(cap);
    for (int copy = 0; copy < 2; copy++) {
        at += (size_t)snprintf(t + at, cap - at, copy ? "\n{" : "{");
        for (int i = 0; i < n; i++) {
            int k = copy ? n - 1 - i : i;
            at += (size_t)snprintf(t + at, cap - at, "%s\"k%d\": %d", i ? ", " : "", k, k);
        }
        at += (size_t)snprintf(t + at, cap - at, "}");
    }
    *len = at;
    return t;
}

static coax_code extract(const coax_allocator *al, const char *text, size_t len, int *valid)
{
    coax_arena *a = coax_arena_new(al);
    if (!a) return COAX_ENOMEM;
    coax_value *sv;
    coax_schema *s = NULL;
    coax_code rc = coax_parse(a, "{\"type\":\"array\"}", 16, NULL, &sv, NULL);
    if (rc == COAX_OK) rc = coax_schema_compile(sv, NULL, al, &s, NULL);
    coax_extract_result r;
    if (rc == COAX_OK) rc = coax_extract(a, s, text, len, NULL, NULL, &r, NULL);
    *valid = rc == COAX_OK && r.valid;
    coax_schema_free(s);
    coax_arena_free(a);
    return rc;
}

static void test_a_failing_comparison_reads_no_list(void)
{
    int sizes[] = {2, 3000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t len;
        char *t = written_twice(sizes[k], &len);
        counting whole = {0, 0, 0};
        coax_allocator wl = COUNTING_ALLOCATOR(&whole);
        int valid;
        CHECK_INT(extract(&wl, t, len, &valid), COAX_OK);
        CHECK_INT(valid, 0); /* one answer repeated, or a list of equal items? a guess */
        CHECK_INT(whole.live, 0);
        long failed = 0;
        for (long n = 1 - whole.allocs; n <= whole.allocs; n++) {
            if (!n) continue;
            counting c = {0, 0, n};
            coax_allocator al = COUNTING_ALLOCATOR(&c);
            coax_code rc = extract(&al, t, len, &valid);
            if (rc == COAX_OK && valid) printf("  %d members, allocation %ld failing: read as a list\n", sizes[k], n);
            CHECK(rc == COAX_ENOMEM || (rc == COAX_OK && !valid));
            CHECK_INT(c.live, 0);
            failed += rc == COAX_ENOMEM;
            if (test_failed_now) break;
        }
        CHECK(failed > 0);
        free(t);
    }
}

#define TESTS X(test_a_failing_comparison_reads_no_list)
#include "test.h"
