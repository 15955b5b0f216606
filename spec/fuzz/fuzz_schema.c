/* Schema compile plus validate: the input is a schema, a NUL byte and an
** instance, both JSON text (anything else is rejected early). Compiling
** gives a schema or a clean code; validating gives an answer or a limit,
** the same answer with and without COAX_VALIDATE_FIRST; every output
** format is valid JSON; an example generated for the schema (bounded)
** validates when it says it does. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = size ? memchr(text, '\0', size) : NULL;
    size_t slen = nul ? (size_t)(nul - text) : size;
    const char *inst = nul ? nul + 1 : "null";
    size_t ilen = nul ? size - slen - 1 : 4;

    coax_arena *a = coax_arena_new(NULL);
    FUZZ_CHECK(a != NULL);
    coax_value *sv, *iv;
    coax_error err;
    coax_limits lim = {.max_depth = 64};
    if (coax_parse(a, text, slen, &lim, &sv, &err) != COAX_OK ||
        coax_parse(a, inst, ilen, &lim, &iv, &err) != COAX_OK) {
        coax_arena_free(a);
        return 0;
    }
    coax_schema *s;
    coax_schema_options so = {.max_regex_steps = 20000, .max_depth = 128};
    coax_code rc = coax_schema_compile(sv, &so, NULL, &s, &err);
    if (rc != COAX_OK) {
        FUZZ_CHECK(rc == COAX_ESCHEMA || rc == COAX_EDEPTH || rc == COAX_ELIMIT);
        FUZZ_CHECK(err.code == rc && err.msg[0]);
        coax_arena_free(a);
        return 0;
    }
    coax_validation all, first;
    coax_code r1 = coax_validate(s, iv, a, 0, &all, &err);
    coax_code r2 = coax_validate(s, iv, a, COAX_VALIDATE_FIRST, &first, &err);
    FUZZ_CHECK(r1 == COAX_OK || r1 == COAX_ELIMIT || r1 == COAX_EDEPTH);
    FUZZ_CHECK(r2 == COAX_OK || r2 == COAX_ELIMIT || r2 == COAX_EDEPTH);
    if (r1 == COAX_OK && r2 == COAX_OK) FUZZ_CHECK(all.valid == first.valid);
    if (r1 == COAX_OK) {
        FUZZ_CHECK(all.valid == (all.nerrors == 0));
        for (int f = COAX_OUTPUT_FLAG; f <= COAX_OUTPUT_DETAILED; f++) {
            char *out;
            size_t n;
            FUZZ_CHECK(coax_validation_write(&all, (coax_output)f, NULL, &out, &n) == COAX_OK);
            coax_value *ov;
            FUZZ_CHECK(coax_parse(a, out, n, NULL, &ov, &err) == COAX_OK);
            coax_free(NULL, out, n + 1);
        }
    }

    coax_example_options eo = {.max_depth = 8, .max_steps = 500};
    coax_example_result ex;
    rc = coax_example(s, &eo, a, &ex, &err);
    FUZZ_CHECK(rc == COAX_OK || rc == COAX_ELIMIT || rc == COAX_EDEPTH);
    if (rc == COAX_OK && ex.valid) {
        FUZZ_CHECK(ex.value != NULL);
        fuzz_roundtrip(ex.value);
        coax_validation v;
        rc = coax_validate(s, ex.value, a, 0, &v, &err);
        FUZZ_CHECK(rc == COAX_ELIMIT || (rc == COAX_OK && v.valid));
    }
    coax_schema_free(s);
    coax_arena_free(a);
    return 0;
}
