/* Pydantic's Decimal pattern matched without PCRE2 (schema/decimal.c): on
** every string it takes, the same answer and the same regex steps as PCRE2
** (every string of up to 6 characters of "05.+-x", and long runs around
** the lengths where the steps change); through a validation, the same
** outcome as PCRE2 at the edge of a regex budget, for plain decimals and
** for strings left to PCRE2. */
#include "coax.h"
#include "regex/regex.h"
#include "schema/decimal.h"

#include <stdio.h>
#include <stdlib.h>

#include "test.h"

#define DEC "^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$"

/* Whether decimal.c, when it takes s, says what PCRE2 says; counts those it took. */
static bool agrees(const coax_regex_env *env, const coax_regex *re, coax_regex_scratch *sc, const char *s,
                   size_t n, int *taken)
{
    uint64_t cost, budget = 1000000;
    if (coax_decimal_match(s, n, &cost) != 1) return true;
    (*taken)++;
    int r = coax_regex_match_in(env, re, s, n, sc, &budget);
    return r == 1 && 1000000 - budget == cost;
}

static void test_decimal_counts_what_pcre2_counts(void)
{
    coax_regex_env *env = coax_regex_env_new(NULL, 0);
    coax_regex *re = NULL;
    CHECK(coax_regex_compile(env, DEC, strlen(DEC), &re, NULL) == COAX_OK);
    coax_regex_scratch *sc = coax_regex_scratch_new(env);
    CHECK(coax_decimal_pattern(DEC, strlen(DEC)));
    CHECK(!coax_decimal_pattern("^[0-9]+$", 8));
    CHECK(coax_decimal_agrees(env, re));
    static const char alpha[] = "05.+-x";
    char s[256];
    int taken = 0, bad = 0;
    for (size_t len = 0; len <= 6; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++) total *= 6;
        for (size_t k = 0; k < total; k++) {
            size_t x = k;
            for (size_t i = 0; i < len; i++, x /= 6) s[i] = alpha[x % 6];
            if (!agrees(env, re, sc, s, len, &taken)) bad++;
        }
    }
    /* runs of zeros, digits and fraction digits of every length to 70 */
    static const char *const heads[] = {"", "-", "+"};
    for (size_t h = 0; h < 3; h++)
        for (size_t run = 0; run <= 70; run++)
            for (int what = 0; what < 6; what++) {
                size_t n = (size_t)snprintf(s, sizeof s, "%s", heads[h]);
                for (size_t j = 0; j < (what == 0 ? run : 2); j++) s[n++] = '0';
                for (size_t j = 0; j < (what == 1 ? run : 3); j++) s[n++] = (char)('1' + j % 9);
                if (what != 3) s[n++] = '.';
                for (size_t j = 0; j < (what == 2 ? run : what == 4 ? 0 : 2); j++) s[n++] = (char)('0' + j % 10);
                if (what == 5) n = (size_t)snprintf(s, sizeof s, "%s.%0*d", heads[h], (int)run + 1, 7);
                if (!agrees(env, re, sc, s, n, &taken)) bad++;
            }
    CHECK_INT(bad, 0);
    CHECK(taken > 2000);
    /* what it leaves to PCRE2 */
    uint64_t cost;
    CHECK_INT(coax_decimal_match("", 0, &cost), -1);
    CHECK_INT(coax_decimal_match("-.", 2, &cost), -1);
    CHECK_INT(coax_decimal_match("1e5", 3, &cost), -1);
    CHECK_INT(coax_decimal_match("1,5", 3, &cost), -1);
    CHECK_INT(coax_decimal_match("1.2.3", 5, &cost), -1);
    CHECK_INT(coax_decimal_match(" 1", 2, &cost), -1);
    CHECK_INT(coax_decimal_match("393.03", 6, &cost), 1);
    CHECK_INT(cost, 12);
    coax_regex_scratch_free(env, sc);
    coax_regex_free(env, re);
    coax_regex_env_free(env);
}

/* "valid", "invalid" or the failure's code name, for {"pattern": DEC} on a
** string under a regex budget. */
static const char *check(const char *inst_json, uint64_t regex_budget)
{
    static char out[64];
    coax_arena *a = coax_arena_new(NULL);
    const char *schema = "{\"pattern\": \"^(?!^[-+.]*$)[+-]?0*\\\\d*\\\\.?\\\\d*$\"}";
    coax_value *sv = NULL, *iv = NULL;
    coax_schema *s = NULL;
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.max_regex_total = regex_budget;
    coax_code rc = coax_parse(a, schema, strlen(schema), NULL, &sv, NULL);
    if (!rc) rc = coax_parse(a, inst_json, strlen(inst_json), NULL, &iv, NULL);
    if (!rc) rc = coax_schema_compile(sv, &o, NULL, &s, NULL);
    coax_validation r;
    if (!rc) rc = coax_validate(s, iv, a, 0, &r, NULL);
    snprintf(out, sizeof out, "%s", rc ? coax_code_name(rc) : r.valid ? "valid" : "invalid");
    coax_schema_free(s);
    coax_arena_free(a);
    return out;
}

static void test_budget_edges_are_pcre2s(void)
{
    /* a plain decimal: 12 steps, 13 with a sign, 12 + 1 per 16 digits */
    CHECK_STR(check("\"393.03\"", 12), "valid");
    CHECK_STR(check("\"393.03\"", 11), "COAX_ELIMIT");
    CHECK_STR(check("\"-0.5\"", 13), "valid");
    CHECK_STR(check("\"-0.5\"", 12), "COAX_ELIMIT");
    CHECK_STR(check("\"12345678901234567890\"", 13), "valid");
    CHECK_STR(check("\"12345678901234567890\"", 12), "COAX_ELIMIT");
    /* left to PCRE2: its own count */
    CHECK_STR(check("\"1,5\"", 15), "invalid");
    CHECK_STR(check("\"1,5\"", 14), "COAX_ELIMIT");
    CHECK_STR(check("\"abc\"", 11), "invalid");
    CHECK_STR(check("\"abc\"", 10), "COAX_ELIMIT");
}

#define TESTS                                      \
    X(test_decimal_counts_what_pcre2_counts)       \
    X(test_budget_edges_are_pcre2s)
#include "test.h"
