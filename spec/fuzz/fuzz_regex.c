/* Patterns through the regex layer (ECMA-262 checked and translated by
** ecma.c, compiled and run by PCRE2): the input is a pattern, a NUL byte
** and a subject. Compiling either succeeds or fails with a clean error at
** a position inside the pattern; a compiled pattern matches a valid UTF-8
** subject (1 or 0, or -1 at a limit), the same with and without reused
** scratch memory; the example generator's string for the pattern is valid
** UTF-8, and matching it never fails for a reason other than a limit. */
#include "fuzz.h"
#include "base/core.h"
#include "example/example.h"
#include "regex/regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    const char *nul = size ? memchr(p, '\0', size) : NULL;
    size_t plen = nul ? (size_t)(nul - p) : size;
    const char *subject = nul ? nul + 1 : "";
    size_t slen = nul ? size - plen - 1 : 0;

    coax_regex_env *env = coax_regex_env_new(NULL, 20000);
    FUZZ_CHECK(env != NULL);
    coax_regex *re = NULL;
    coax_error err;
    coax_code rc = coax_regex_compile(env, p, plen, &re, &err);
    FUZZ_CHECK(rc == COAX_OK || rc == COAX_EINVAL);
    if (rc == COAX_EINVAL) FUZZ_CHECK(err.offset <= plen && err.msg[0]);
    if (rc == COAX_OK) {
        if (coax_utf8_valid(subject, slen)) {
            int m = coax_regex_match(env, re, subject, slen);
            FUZZ_CHECK(m == 1 || m == 0 || m == -1);
            coax_regex_scratch *scratch = coax_regex_scratch_new(env);
            FUZZ_CHECK(scratch != NULL);
            FUZZ_CHECK(coax_regex_match_in(env, re, subject, slen, scratch, NULL) == m);
            FUZZ_CHECK(coax_regex_match_in(env, re, subject, slen, scratch, NULL) == m);
            uint64_t budget = UINT64_MAX; /* counting steps never changes the answer */
            FUZZ_CHECK(coax_regex_match_in(env, re, subject, slen, scratch, &budget) == m);
            coax_regex_scratch_free(env, scratch);
        }
        for (size_t extra = 0; extra < 3; extra++) {
            coax_buf b;
            coax_buf_init(&b, NULL);
            bool made = ex_regex_string(&b, p, plen, extra, extra);
            FUZZ_CHECK(!b.oom);
            if (made) {
                FUZZ_CHECK(coax_utf8_valid(b.data ? b.data : "", b.len));
                int m = coax_regex_match(env, re, b.data ? b.data : "", b.len);
                FUZZ_CHECK(m == 1 || m == 0 || m == -1);
            }
            coax_buf_free(&b);
        }
        coax_regex_free(env, re);
    }
    coax_regex_env_free(env);
    return 0;
}
