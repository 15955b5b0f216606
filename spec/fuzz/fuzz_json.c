/* The strict parser and the writer: any bytes. Either a clean error with a
** position inside the input, or a value whose written text (compact and
** pretty) parses back to the same value and the same text. Text the strict
** parser accepts is also what repair must give back unchanged. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    coax_arena *a = coax_arena_new(NULL);
    FUZZ_CHECK(a != NULL);
    coax_value *v;
    coax_error err;
    coax_code rc = coax_parse(a, (const char *)data, size, NULL, &v, &err);
    if (rc != COAX_OK) {
        FUZZ_CHECK(rc == COAX_ESYNTAX || rc == COAX_EUTF8 || rc == COAX_EDEPTH || rc == COAX_ESTRING);
        FUZZ_CHECK(err.code == rc && err.offset <= size);
        FUZZ_CHECK(err.line >= 1 && err.column >= 1);
        coax_arena_free(a);
        return 0;
    }
    fuzz_roundtrip(v);

    /* Valid JSON takes repair's fast path: the same value. */
    coax_repair_result r;
    FUZZ_CHECK(coax_repair(a, (const char *)data, size, NULL, &r, &err) == COAX_OK);
    if (r.nlog == 0) FUZZ_CHECK(coax_value_equal(v, r.value, NULL) == 1);
    coax_arena_free(a);
    return 0;
}
