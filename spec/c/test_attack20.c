/*
** Attack round 20: work the engine did for a small input where no budget
** counted it.
**
** Annotations: each records its instance and keyword locations, as long as
** the depth they are found at; a recursive schema's 30 titles over an array
** 400 deep holding 1,000 integers (2.8 KB) made 193 MB of annotations
** (830 MB, 2.4 s). They are now charged steps and bounded by
** max_error_bytes, as errors are.
**
** The extraction's new bounds (spec/attack20_spec.lua times them): each
** allocation failing in turn through the patterns asked of member names, a
** default filled, the indexes of large objects and the references kept for
** the extraction gives COAX_ENOMEM or the answer the run with memory gives,
** and nothing leaks.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coax.h"
#include "counting.h"
#include "test.h"

/* An array 'depth' deep holding 'n' integers. */
static char *nested(int depth, int n, size_t *len)
{
    size_t cap = (size_t)depth * 2 + (size_t)n * 2 + 8, at = 0;
    char *t = malloc(cap);
    for (int i = 0; i < depth; i++) t[at++] = '[';
    for (int i = 0; i < n; i++) at += (size_t)snprintf(t + at, cap - at, i ? ",1" : "1");
    for (int i = 0; i < depth; i++) t[at++] = ']';
    t[at] = '\0';
    *len = at;
    return t;
}

/* Each level an array of itself, or an integer, under 'titles' titles. */
static char *titled_schema(int titles)
{
    size_t cap = (size_t)titles * 24 + 128, at = 0;
    char *t = malloc(cap);
    at += (size_t)snprintf(t + at, cap - at, "{\"$defs\":{\"n\":{\"allOf\":[");
    for (int i = 0; i < titles; i++) at += (size_t)snprintf(t + at, cap - at, "%s{\"title\":\"t%d\"}", i ? "," : "", i);
    snprintf(t + at, cap - at, "],\"type\":[\"array\",\"integer\"],\"items\":{\"$ref\":\"#/$defs/n\"}}},"
                               "\"$ref\":\"#/$defs/n\"}");
    return t;
}

static coax_code annotate(int titles, int depth, int n, const coax_schema_options *o, coax_validation *r,
                          coax_error *err, coax_arena *a)
{
    char *st = titled_schema(titles);
    size_t len;
    char *it = nested(depth, n, &len);
    coax_value *sv, *iv;
    coax_schema *s = NULL;
    coax_code rc = coax_parse(a, st, strlen(st), NULL, &sv, err);
    if (!rc) rc = coax_schema_compile(sv, o, NULL, &s, err);
    if (!rc) rc = coax_parse(a, it, len, NULL, &iv, err);
    if (!rc) rc = coax_validate(s, iv, a, COAX_VALIDATE_ANNOTATIONS, r, err);
    coax_schema_free(s); /* the annotations' values are not read after */
    free(st);
    free(it);
    return rc;
}

static void test_annotations_are_bounded_as_errors_are(void)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_validation r;
    coax_error err;
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.max_steps = (uint64_t)1 << 40; /* the bytes bound, not the steps */
    o.max_error_bytes = (size_t)1 << 20;
    CHECK_INT(annotate(30, 400, 1000, &o, &r, &err, a), COAX_ELIMIT);
    CHECK_STR(err.msg, "validation annotations passed 1048576 bytes (max_error_bytes)");
    /* by default, the step budget: 2 x schema x instance, at least 1,000,000 */
    CHECK_INT(annotate(30, 400, 1000, NULL, &r, &err, a), COAX_ELIMIT);
    CHECK(strncmp(err.msg, "validation used up its step budget of ", 38) == 0);
    coax_arena_free(a);
}

static void test_annotations_within_the_bounds_are_all_kept(void)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_validation r;
    coax_error err;
    CHECK_INT(annotate(3, 30, 2, NULL, &r, &err, a), COAX_OK);
    CHECK_INT(r.valid, 1);
    CHECK_INT(r.nannotations, 96); /* 32 values, 3 titles each */
    CHECK_STR(r.annotations[0].instance_location, "");
    CHECK_STR(r.annotations[0].keyword_location, "/$ref/allOf/0/title");
    CHECK_STR(r.annotations[95].instance_location,
              "/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/1");
    coax_arena_free(a);
}

/* Schemas that take each new path: patterns asked of names under a dependentSchemas, a
** default given twice, a large "properties" in two allOf branches, references kept. */
static const char *const schemas[] = {
    "{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"integer\"}},\"additionalProperties\":false,"
    "\"dependentSchemas\":{\"never\":{\"patternProperties\":{\"^x_\":{},\"^(a|a)+$\":{}}}}}",
    "{\"type\":\"object\",\"required\":[\"a\",\"c\"],\"properties\":{\"a\":{\"$ref\":\"#/$defs/d\"},"
    "\"c\":{\"$ref\":\"#/$defs/d\"}},\"$defs\":{\"d\":{\"allOf\":[{\"default\":[1,2]},{\"default\":[1,2]}]}}}",
    "{\"type\":\"object\",\"properties\":{\"b\":{}},\"additionalProperties\":false,\"allOf\":["
    "{\"$ref\":\"#/$defs/p\"},{\"$ref\":\"#/$defs/p\"}],\"$defs\":{\"p\":{\"properties\":{"
    "\"p1\":{},\"p2\":{},\"p3\":{},\"p4\":{},\"p5\":{},\"p6\":{},\"p7\":{},\"p8\":{},\"p9\":{},\"p10\":{},"
    "\"p11\":{},\"p12\":{},\"p13\":{},\"p14\":{},\"p15\":{},\"p16\":{},\"p17\":{}}}}}",
};
static const char *const replies[] = {"{\"b\": 1, \"y\": 2, \"aaaaaaax\": 3}", "{}", "{\"b\": 1, \"zz\": 2, \"p17\": 3}"};

static coax_code extract(const coax_allocator *al, const char *schema, const char *reply, char *out, size_t cap)
{
    coax_arena *a = coax_arena_new(al);
    if (!a) return COAX_ENOMEM;
    coax_value *sv;
    coax_schema *s = NULL;
    coax_code rc = coax_parse(a, schema, strlen(schema), NULL, &sv, NULL);
    if (rc == COAX_OK) rc = coax_schema_compile(sv, NULL, al, &s, NULL);
    coax_extract_result r;
    if (rc == COAX_OK) rc = coax_extract(a, s, reply, strlen(reply), NULL, NULL, &r, NULL);
    char *text = NULL;
    size_t len = 0;
    if (rc == COAX_OK) rc = coax_write(r.value, 0, al, &text, &len);
    if (rc == COAX_OK) snprintf(out, cap, "%d %.*s", r.valid, (int)len, text);
    coax_free(al, text, text ? len + 1 : 0);
    coax_schema_free(s);
    coax_arena_free(a);
    return rc;
}

static void test_each_allocation_failing_in_turn(void)
{
    const char *want[] = {"1 {\"b\":1}", "1 {\"a\":[1,2],\"c\":[1,2]}", "0 {\"b\":1,\"zz\":2,\"p17\":3}"};
    for (size_t k = 0; k < sizeof schemas / sizeof *schemas; k++) {
        char whole_out[256] = "", out[256];
        counting whole = {0, 0, 0};
        coax_allocator wl = COUNTING_ALLOCATOR(&whole);
        CHECK_INT(extract(&wl, schemas[k], replies[k], whole_out, sizeof whole_out), COAX_OK);
        CHECK_STR(whole_out, want[k]);
        CHECK_INT(whole.live, 0);
        for (long n = 1 - whole.allocs; n <= whole.allocs; n++) {
            if (!n) continue;
            counting c = {0, 0, n};
            coax_allocator al = COUNTING_ALLOCATOR(&c);
            out[0] = '\0';
            coax_code rc = extract(&al, schemas[k], replies[k], out, sizeof out);
            CHECK(rc == COAX_ENOMEM || rc == COAX_OK);
            /* a failed allocation in a look-up gives the careful answer: the member kept, refused */
            if (rc == COAX_OK && strcmp(out, want[k]) && out[0] != '0')
                printf("  schema %zu, allocation %ld failing: %s\n", k, n, out);
            CHECK(rc != COAX_OK || !strcmp(out, want[k]) || out[0] == '0');
            CHECK_INT(c.live, 0);
            if (test_failed_now) break;
        }
    }
}

#define TESTS                                           \
    X(test_annotations_are_bounded_as_errors_are)       \
    X(test_annotations_within_the_bounds_are_all_kept) \
    X(test_each_allocation_failing_in_turn)
#include "test.h"
