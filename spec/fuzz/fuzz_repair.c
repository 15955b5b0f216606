/* Repair: any bytes. Either a clean code, or a value (and every candidate)
** that survives the writer round trip, with positions inside the input. */
#include "fuzz.h"

static void check_log(const coax_repair_entry *log, size_t n, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(log[i].kind && log[i].detail);
        FUZZ_CHECK(log[i].offset <= size);
        FUZZ_CHECK(log[i].line >= 1 && log[i].column >= 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    coax_arena *a = coax_arena_new(NULL);
    FUZZ_CHECK(a != NULL);
    coax_repair_result r;
    coax_error err;
    coax_code rc = coax_repair(a, (const char *)data, size, NULL, &r, &err);
    if (rc != COAX_OK) {
        FUZZ_CHECK(rc == COAX_ENOJSON || rc == COAX_EDEPTH || rc == COAX_ESTRING);
        FUZZ_CHECK(err.code == rc && err.offset <= size);
        coax_arena_free(a);
        return 0;
    }
    FUZZ_CHECK(r.value != NULL && r.ncandidates > 0 && r.chosen < r.ncandidates);
    FUZZ_CHECK(r.candidates[r.chosen].value == r.value);
    check_log(r.log, r.nlog, size);
    fuzz_roundtrip(r.value);
    for (size_t i = 0; i < r.ncandidates; i++) {
        const coax_candidate *c = &r.candidates[i];
        FUZZ_CHECK(c->value != NULL);
        FUZZ_CHECK(c->start <= c->end && c->end <= size);
        check_log(c->log, c->nlog, size);
        if (c->value != r.value) fuzz_roundtrip(c->value);
    }
    coax_arena_free(a);
    return 0;
}
