/* coax_example through the C API: exact examples, results and options,
** instances that always validate, bad arguments, and allocation failure
** at every step (curl's torture idea): each gives COAX_ENOMEM or the same
** example, with nothing leaked. */
#include "coax.h"
#include "base/core.h" /* a value built with a name twice (test_property_named_twice) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "counting.h"
#include "test.h"


/* The example of 'schema' as compact JSON in buf ("" when none). */
static coax_code example_text(const char *schema, const coax_example_options *o, char *buf, size_t cap,
                              coax_example_result *res)
{
    buf[0] = '\0';
    coax_schema *s = compile(schema);
    if (!s) return COAX_ESCHEMA;
    coax_arena *a = coax_arena_new(NULL);
    coax_example_result r;
    coax_error err;
    coax_code rc = coax_example(s, o, a, &r, &err);
    if (!rc && r.value) {
        char *json;
        size_t n;
        if (!coax_write(r.value, 0, NULL, &json, &n)) {
            snprintf(buf, cap, "%s", json);
            coax_free(NULL, json, n + 1);
        }
    }
    if (res) *res = r;
    coax_arena_free(a);
    coax_schema_free(s);
    return rc;
}

static const char INVOICE[] =
    "{\"$defs\":{\"Item\":{\"type\":\"object\",\"properties\":{\"sku\":{\"type\":\"string\",\"pattern\":"
    "\"^[A-Z]{2}-[0-9]{3}$\"},\"qty\":{\"type\":\"integer\",\"exclusiveMinimum\":0},\"price\":{\"type\":"
    "\"number\",\"minimum\":0,\"multipleOf\":0.01}},\"required\":[\"sku\",\"qty\"]}},\"type\":\"object\","
    "\"properties\":{\"number\":{\"type\":\"string\",\"examples\":[\"INV-7\"]},\"date\":{\"type\":\"string\","
    "\"format\":\"date\"},\"currency\":{\"enum\":[\"EUR\",\"USD\"]},\"items\":{\"type\":\"array\",\"items\":"
    "{\"$ref\":\"#/$defs/Item\"},\"minItems\":2,\"uniqueItems\":true},\"notes\":{\"anyOf\":[{\"type\":"
    "\"string\",\"maxLength\":4},{\"type\":\"null\"}]}},\"required\":[\"number\",\"items\"]}";

static const char INVOICE_EXAMPLE[] =
    "{\"number\":\"INV-7\",\"date\":\"2024-01-15\",\"currency\":\"EUR\",\"items\":[{\"sku\":\"AA-000\","
    "\"qty\":1,\"price\":1},{\"sku\":\"BB-111\",\"qty\":2,\"price\":1.01}],\"notes\":\"aaaa\"}";

static void test_exact_example(void)
{
    char buf[1024];
    coax_example_result r;
    CHECK_INT(example_text(INVOICE, NULL, buf, sizeof buf, &r), COAX_OK);
    CHECK_STR(buf, INVOICE_EXAMPLE);
    CHECK_INT(r.valid, 1);
    CHECK(r.checks > 0);
    CHECK_INT(r.limited, 0);
    CHECK_INT(r.validation.nerrors, 0);
}

static void test_minimal(void)
{
    char buf[1024];
    coax_example_options o = {0, 0, COAX_EXAMPLE_MINIMAL};
    CHECK_INT(example_text(INVOICE, &o, buf, sizeof buf, NULL), COAX_OK);
    CHECK_STR(buf, "{\"number\":\"INV-7\",\"items\":[{\"sku\":\"AA-000\",\"qty\":1},{\"sku\":\"BB-111\",\"qty\":2}]}");
}

static void test_same_schema_same_example(void)
{
    char a[1024], b[1024];
    example_text(INVOICE, NULL, a, sizeof a, NULL);
    example_text(INVOICE, NULL, b, sizeof b, NULL);
    CHECK_STR(a, b);
}

static void test_no_instance(void)
{
    char buf[256];
    coax_example_result r;
    CHECK_INT(example_text("false", NULL, buf, sizeof buf, &r), COAX_OK);
    CHECK_INT(r.valid, 0);
    CHECK_STR(buf, "null"); /* the closest attempt */
    CHECK_INT(r.validation.nerrors, 1);
    CHECK_INT(r.limited, 0);
}

static void test_depth_and_steps_limits(void)
{
    const char *chain = "{\"$defs\":{\"a\":{\"type\":\"object\",\"required\":[\"b\"],\"properties\":{\"b\":"
                        "{\"$ref\":\"#/$defs/a\"}}}},\"$ref\":\"#/$defs/a\"}";
    char buf[256];
    coax_example_result r;
    CHECK_INT(example_text(chain, NULL, buf, sizeof buf, &r), COAX_OK);
    CHECK_INT(r.valid, 0);
    CHECK(r.limited & COAX_EXAMPLE_HIT_DEPTH);
    coax_example_options o = {0, 3, 0};
    CHECK_INT(example_text(INVOICE, &o, buf, sizeof buf, &r), COAX_OK);
    CHECK_INT(r.valid, 0);
    CHECK(r.limited & COAX_EXAMPLE_HIT_STEPS);
    const char *nest = "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"array\","
                       "\"minItems\":1}}}";
    o = (coax_example_options){2, 0, 0};
    CHECK_INT(example_text(nest, &o, buf, sizeof buf, &r), COAX_OK);
    CHECK_STR(buf, "[]"); /* a third level does not fit in depth 2: the minimal array, empty */
    CHECK_INT(r.valid, 1);
}

static void test_bad_arguments(void)
{
    coax_schema *s = compile("{}");
    coax_arena *a = coax_arena_new(NULL);
    coax_example_result r;
    coax_error err;
    CHECK_INT(coax_example(NULL, NULL, a, &r, &err), COAX_EINVAL);
    CHECK_INT(coax_example(s, NULL, NULL, &r, &err), COAX_EINVAL);
    CHECK_INT(coax_example(s, NULL, a, NULL, NULL), COAX_EINVAL);
    CHECK(strstr(err.msg, "must not be NULL") != NULL);
    CHECK_INT(coax_example(s, NULL, a, &r, NULL), COAX_OK);
    CHECK_INT(r.valid, 1);
    coax_arena_free(a);
    coax_schema_free(s);
}

static void test_validation_limit_is_a_code(void)
{
    /* every candidate hits the regex step limit: a limit, not "no instance" */
    coax_arena *pa = coax_arena_new(NULL);
    const char *text = "{\"type\":\"string\",\"pattern\":\"^(a+)+$\",\"minLength\":40}";
    coax_value *v;
    coax_parse(pa, text, strlen(text), NULL, &v, NULL);
    coax_schema_options so;
    memset(&so, 0, sizeof so);
    so.max_regex_steps = 1;
    coax_schema *s = NULL;
    CHECK_INT(coax_schema_compile(v, &so, NULL, &s, NULL), COAX_OK);
    coax_arena *a = coax_arena_new(NULL);
    coax_example_result r;
    coax_error err;
    coax_code rc = coax_example(s, NULL, a, &r, &err);
    CHECK_INT(rc, COAX_ELIMIT);
    CHECK(r.value == NULL && r.valid == 0);
    coax_arena_free(a);
    coax_arena_free(pa);
    coax_schema_free(s);
}

/* Names past the cap of 1,024 there was (its example failed "required"
** for the 1,025th): each required one is there, in order. */
static void test_many_required_names(void)
{
    size_t n = 3000, cap = n * 40 + 200;
    char *schema = malloc(cap), *out = malloc(cap), *p = schema;
    p += sprintf(p, "{\"type\":\"object\",\"properties\":{");
    for (size_t i = 0; i < n; i++) p += sprintf(p, "%s\"k%zu\":{\"const\":%zu}", i ? "," : "", i, i);
    p += sprintf(p, "},\"required\":[");
    for (size_t i = 0; i < n; i++) p += sprintf(p, "%s\"k%zu\"", i ? "," : "", i);
    sprintf(p, "]}");
    coax_example_result r;
    CHECK_INT(example_text(schema, NULL, out, cap, &r), COAX_OK);
    CHECK_INT(r.valid, 1); /* r.value went with example_text's arena: its text tells */
    size_t members = 0;
    for (const char *q = out; *q; q++) members += *q == ':';
    CHECK_INT(members, n);
    CHECK(!strncmp(out, "{\"k0\":0,\"k1\":1,", strlen("{\"k0\":0,\"k1\":1,")));
    CHECK(strstr(out, ",\"k1024\":1024,\"k1025\":1025,") != NULL);
    CHECK(strstr(out, ",\"k2999\":2999}") != NULL);
    free(schema);
    free(out);
}

/* A "properties" object a host built with a name twice (the parser keeps
** one of each): both subschemas apply to that name, past the index's size. */
static void test_property_named_twice(void)
{
    char text[2048], *p = text;
    p += sprintf(p, "{\"type\":\"object\",\"required\":[\"k3\"],\"properties\":{");
    for (int i = 0; i < 20; i++) p += sprintf(p, "%s\"k%d\":{\"type\":\"integer\"}", i ? "," : "", i);
    sprintf(p, ",\"x\":{\"const\":7}}}");
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    CHECK_INT(coax_parse(a, text, strlen(text), NULL, &v, NULL), COAX_OK);
    coax_value *props = &v->u.members[2].value;
    CHECK_STR(v->u.members[2].key, "properties");
    props->u.members[20].key = "k3"; /* "x" becomes a second "k3" */
    props->u.members[20].klen = 2;
    coax_schema *s = NULL;
    CHECK_INT(coax_schema_compile(v, NULL, NULL, &s, NULL), COAX_OK);
    coax_example_options o = {0, 0, COAX_EXAMPLE_MINIMAL};
    coax_example_result r;
    coax_error err;
    CHECK_INT(coax_example(s, &o, a, &r, &err), COAX_OK);
    CHECK_INT(r.valid, 1);
    char *json;
    size_t len;
    CHECK_INT(coax_write(r.value, 0, NULL, &json, &len), COAX_OK);
    CHECK_STR(json, "{\"k3\":7}");
    coax_free(NULL, json, len + 1);
    coax_schema_free(s);
    coax_arena_free(a);
}

/* More items than the steps left: the step limit, and no stand-in (null)
** for a closest attempt ("expected array, got null" said nothing of it);
** with the steps, the array. */
static void test_items_past_the_steps(void)
{
    const char *schema = "{\"type\":\"array\",\"minItems\":25641,\"uniqueItems\":true,"
                         "\"items\":{\"type\":\"integer\"}}";
    char *out = malloc(300000);
    coax_example_result r;
    CHECK_INT(example_text(schema, NULL, out, 300000, &r), COAX_OK);
    CHECK_INT(r.valid, 0);
    CHECK_INT(r.limited, COAX_EXAMPLE_HIT_STEPS);
    CHECK_STR(out, ""); /* no closest attempt */
    coax_example_options o = {0, 60000, 0};
    CHECK_INT(example_text(schema, &o, out, 300000, &r), COAX_OK);
    CHECK_INT(r.valid, 1);
    size_t items = 1;
    for (const char *q = out; *q; q++) items += *q == ',';
    CHECK_INT(items, 25641);
    /* past COAX_EXAMPLE_MAX_ITEMS whatever the steps: the size limit (a
    ** minItems of 2^60 under 2^60 + 1 steps wrapped the items' size, and
    ** with uniqueItems the filing table's size loop never ended) */
    const char *huge[] = {"{\"type\":\"array\",\"minItems\":1152921504606846976}",
                          "{\"type\":\"array\",\"minItems\":4611686018427387905,\"uniqueItems\":true}",
                          "{\"type\":\"array\",\"minItems\":65537}"};
    for (size_t i = 0; i < sizeof huge / sizeof *huge; i++) {
        coax_example_options big = {0, (size_t)-1, 0};
        CHECK_INT(example_text(huge[i], &big, out, 300000, &r), COAX_OK);
        CHECK_INT(r.valid, 0);
        CHECK_INT(r.limited, COAX_EXAMPLE_HIT_SIZE);
        CHECK_STR(out, "");
    }
    coax_example_options big = {0, 100000, 0};
    CHECK_INT(example_text("{\"type\":\"array\",\"minItems\":65536,\"items\":{\"const\":1}}", &big, out, 300000, &r),
              COAX_OK);
    CHECK_INT(r.valid, 1);
    free(out);
}

/* Fails each allocation in turn: COAX_ENOMEM (nothing leaked, out zeroed)
** or the very same example. */
static void test_allocation_failures(void)
{
    coax_schema *s = compile(INVOICE);
    CHECK(s != NULL);
    int failures = 0, successes = 0;
    for (long n = 1; n < 100000; n++) {
        counting c = {0, 0, n};
        coax_allocator al = {c_malloc, c_realloc, c_free, &c};
        coax_arena *a = coax_arena_new(&al);
        coax_code rc = COAX_ENOMEM;
        coax_example_result r;
        memset(&r, 0x5a, sizeof r);
        if (a) rc = coax_example(s, NULL, a, &r, NULL);
        if (rc == COAX_OK) {
            char *json;
            size_t len;
            CHECK_INT(r.valid, 1);
            CHECK_INT(coax_write(r.value, 0, NULL, &json, &len), COAX_OK);
            CHECK_STR(json, INVOICE_EXAMPLE);
            coax_free(NULL, json, len + 1);
            successes++;
        } else {
            CHECK_INT(rc, COAX_ENOMEM);
            if (a) CHECK(r.value == NULL && r.valid == 0 && r.checks == 0);
            failures++;
        }
        coax_arena_free(a);
        CHECK_INT(c.live, 0);
        if (rc == COAX_OK && c.allocs < n) break; /* no allocation left to fail */
    }
    CHECK(failures > 10);
    CHECK_INT(successes, 1);
    coax_schema_free(s);
}

#define TESTS                                \
    X(test_exact_example)                    \
    X(test_minimal)                          \
    X(test_same_schema_same_example)         \
    X(test_no_instance)                      \
    X(test_depth_and_steps_limits)           \
    X(test_bad_arguments)                    \
    X(test_validation_limit_is_a_code)       \
    X(test_many_required_names)              \
    X(test_property_named_twice)             \
    X(test_items_past_the_steps)             \
    X(test_allocation_failures)
#include "test.h"
