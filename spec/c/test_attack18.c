/*
** Attack round 18: the host's allocator failing every allocation in turn
** (and every allocation from the N-th on) across the paths of validation
** the other torture tests do not walk: drafts 4 to 2019-09 and their
** meta-schemas, $dynamicRef and $recursiveRef, a host resolver, formats
** asserted, annotations, and the three output formats written. Each run
** ends COAX_OK with the output the run without failures gives, or
** COAX_ENOMEM; nothing leaks.
*/
#include <stdlib.h>
#include <string.h>

#include "coax.h"
#include "counting.h"
#include "test.h"

typedef struct sweep_case {
    const char *schema, *instance;
    unsigned schema_flags, validate_flags;
} sweep_case;

static const char *REMOTE = "{\"$id\":\"https://r.example/t\",\"$defs\":{\"n\":{\"type\":\"integer\",\"minimum\":3}}}";

static coax_code resolve(void *ud, const char *uri, coax_arena *arena, coax_value **out, coax_error *err)
{
    (void)ud;
    if (strcmp(uri, "https://r.example/t")) return COAX_ENOTFOUND;
    return coax_parse(arena, REMOTE, strlen(REMOTE), NULL, out, err);
}

static const sweep_case CASES[] = {
    {"{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"type\":\"object\",\"properties\":{\"a\":"
     "{\"$ref\":\"#/definitions/a\"}},\"definitions\":{\"a\":{\"type\":\"integer\",\"maximum\":3,"
     "\"exclusiveMaximum\":true}},\"dependencies\":{\"a\":[\"b\"]}}",
     "{\"a\":3,\"c\":[1]}", 0, 0},
    {"{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"if\":{\"required\":[\"a\"]},\"then\":"
     "{\"properties\":{\"a\":{\"format\":\"date-time\"}}},\"else\":{\"contains\":{\"const\":1}},"
     "\"propertyNames\":{\"pattern\":\"^[a-z]+$\"}}",
     "{\"a\":\"2020-13-01T00:00:00Z\",\"B\":1}", 0, 0},
    {"{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$id\":\"https://e.example/tree\","
     "\"$recursiveAnchor\":true,\"type\":\"object\",\"properties\":{\"kids\":{\"type\":\"array\",\"items\":"
     "{\"$recursiveRef\":\"#\"}},\"n\":{\"$ref\":\"https://r.example/t#/$defs/n\"}},"
     "\"unevaluatedProperties\":false}",
     "{\"n\":1,\"kids\":[{\"n\":4,\"x\":1},{\"kids\":[{\"n\":\"2\"}]}]}", COAX_SCHEMA_ASSERT_FORMAT, 0},
    {"{\"$id\":\"https://e.example/list\",\"$dynamicAnchor\":\"item\",\"title\":\"T\",\"type\":[\"object\","
     "\"string\"],\"properties\":{\"v\":{\"$dynamicRef\":\"#item\",\"description\":\"d\",\"default\":1},"
     "\"w\":{\"uniqueItems\":true,\"prefixItems\":[{\"enum\":[1,2,3,4,5,6,7,8,9,10]}],\"examples\":[[1]]}},"
     "\"dependentSchemas\":{\"v\":{\"minProperties\":1}}}",
     "{\"v\":{\"v\":\"s\",\"w\":[1,{\"a\":1},{\"a\":1.0}]},\"w\":[2]}", 0, COAX_VALIDATE_ANNOTATIONS},
    {"{\"$id\":\"https://e.example/list\",\"$dynamicAnchor\":\"item\",\"title\":\"T\",\"type\":[\"object\","
     "\"string\"],\"properties\":{\"v\":{\"$dynamicRef\":\"#item\",\"description\":\"d\",\"default\":1},"
     "\"w\":{\"uniqueItems\":true,\"prefixItems\":[{\"enum\":[1,2,3,4,5,6,7,8,9,10]}],\"examples\":[[1]]}},"
     "\"dependentSchemas\":{\"v\":{\"minProperties\":1}}}",
     "{\"v\":{\"v\":\"s\",\"w\":[1,{\"a\":1}]},\"w\":[2]}", 0, COAX_VALIDATE_ANNOTATIONS},
};

/* Compiles, validates and writes the three outputs, one after another, into
** 'text' (or "" when a step gave COAX_ENOMEM). The code of the first step
** that did not give COAX_OK. */
static coax_code run_case(const sweep_case *k, const coax_allocator *al, char *text, size_t cap)
{
    text[0] = '\0';
    coax_arena *a = coax_arena_new(al);
    if (!a) return COAX_ENOMEM;
    coax_value *sv = NULL, *iv = NULL;
    coax_error err;
    coax_schema *s = NULL;
    coax_code rc = coax_parse(a, k->schema, strlen(k->schema), NULL, &sv, &err);
    if (rc == COAX_OK) rc = coax_parse(a, k->instance, strlen(k->instance), NULL, &iv, &err);
    coax_schema_options o = {0};
    o.resolve = resolve;
    o.flags = k->schema_flags;
    if (rc == COAX_OK) rc = coax_schema_compile(sv, &o, al, &s, &err);
    coax_validation r;
    if (rc == COAX_OK) rc = coax_validate(s, iv, a, k->validate_flags, &r, &err);
    size_t used = 0;
    for (int f = COAX_OUTPUT_FLAG; rc == COAX_OK && f <= COAX_OUTPUT_DETAILED; f++) {
        char *out = NULL;
        size_t len = 0;
        rc = coax_validation_write(&r, (coax_output)f, al, &out, &len);
        if (rc != COAX_OK) break;
        if (used + len + 2 < cap) {
            memcpy(text + used, out, len);
            used += len;
            text[used++] = '\n';
            text[used] = '\0';
        }
        coax_free(al, out, len + 1);
    }
    if (rc != COAX_OK) {
        text[0] = '\0';
        if (rc != COAX_ENOMEM) printf("  %s\n", err.msg);
    }
    coax_schema_free(s);
    coax_arena_free(a);
    return rc;
}

static void test_each_allocation_failing_in_turn(void)
{
    static char want[1 << 16], got[1 << 16];
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        counting whole = {0, 0, 0};
        coax_allocator wl = COUNTING_ALLOCATOR(&whole);
        CHECK_INT(run_case(&CASES[i], &wl, want, sizeof want), COAX_OK);
        CHECK_INT(whole.live, 0);
        CHECK(strstr(want, "\"valid\"") != NULL);
        long failed = 0;
        for (long n = 1 - whole.allocs; n <= whole.allocs; n++) { /* from -N: every allocation from the N-th on */
            if (!n) continue;
            counting c = {0, 0, n};
            coax_allocator al = COUNTING_ALLOCATOR(&c);
            coax_code rc = run_case(&CASES[i], &al, got, sizeof got);
            if (rc != COAX_OK && rc != COAX_ENOMEM)
                printf("  case %zu, allocation %ld failing: %s\n", i, n, coax_code_name(rc));
            CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
            if (rc == COAX_OK && strcmp(got, want))
                printf("  case %zu, allocation %ld failing:\n%s  not\n%s", i, n, got, want);
            CHECK(rc != COAX_OK || !strcmp(got, want));
            if (c.live) printf("  case %zu, allocation %ld failing: %ld bytes leaked\n", i, n, c.live);
            CHECK_INT(c.live, 0);
            failed += rc == COAX_ENOMEM;
            if (test_failed_now) break;
        }
        CHECK(failed > 100);
    }
}

#define TESTS X(test_each_allocation_failing_in_turn)
#include "test.h"
