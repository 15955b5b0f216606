/*
** fuzz.h: what the libFuzzer harnesses share (spec/fuzz/fuzz_*.c, built and
** run by `make fuzz`). A harness states the properties that must hold for
** every input; FUZZ_CHECK turns a broken one into a crash libFuzzer keeps.
*/
#ifndef COAX_FUZZ_H
#define COAX_FUZZ_H

#include "coax.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* spec/c/test_fuzz.c replays the harnesses in the ordinary suite and
** defines its own FUZZ_CHECK, which records a failure and goes on. */
#ifndef FUZZ_CHECK
#define FUZZ_CHECK(cond)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", __FILE__, __LINE__, \
                    #cond);                                                     \
            abort();                                                            \
        }                                                                       \
    } while (0)
#endif

/* The writer round trip: 'v' written compactly parses strictly back to a
** value that is equal to it and writes to the same text, and its pretty
** form parses to the same value too. Returns nothing: a failure aborts.
** Out of memory is not expected here (the C library's allocator). */
static inline void fuzz_roundtrip(const coax_value *v)
{
    char *text, *again, *pretty;
    size_t n, n2, np;
    FUZZ_CHECK(coax_write(v, 0, NULL, &text, &n) == COAX_OK);
    FUZZ_CHECK(strlen(text) <= n); /* strings may hold \u0000 escapes only */

    coax_arena *a = coax_arena_new(NULL);
    FUZZ_CHECK(a != NULL);
    coax_value *back;
    coax_error err;
    coax_code rc = coax_parse(a, text, n, NULL, &back, &err);
    if (rc != COAX_OK) fprintf(stderr, "strict parse of written text failed: %s\n%s\n", err.msg, text);
    FUZZ_CHECK(rc == COAX_OK);
    FUZZ_CHECK(coax_write(back, 0, NULL, &again, &n2) == COAX_OK);
    if (n != n2 || memcmp(text, again, n) != 0) fprintf(stderr, "first:  %s\nsecond: %s\n", text, again);
    FUZZ_CHECK(n == n2 && memcmp(text, again, n) == 0);
    FUZZ_CHECK(coax_value_equal(v, back, NULL) == 1);

    FUZZ_CHECK(coax_write(v, COAX_WRITE_PRETTY, NULL, &pretty, &np) == COAX_OK);
    coax_value *pv;
    FUZZ_CHECK(coax_parse(a, pretty, np, NULL, &pv, &err) == COAX_OK);
    FUZZ_CHECK(coax_value_equal(v, pv, NULL) == 1);

    coax_free(NULL, pretty, np + 1);
    coax_free(NULL, again, n2 + 1);
    coax_free(NULL, text, n + 1);
    coax_arena_free(a);
}

#endif
