/* Coercion against values a repair invented (COAX_VF_INVENTED, flagged here
** by hand: the repair side sets it), NFC comparison, and the rounds'
** linearity counted in validations rather than time. */
#include "extract/coerce.h"
#include "base/unicode_nfc.h"

#include <stdlib.h>

#include "counting.h"
#include "test.h"

typedef struct fixture {
    coax_arena *a;
    coax_schema *schema;
    coax_value *doc, *value;
} fixture;

static bool setup(fixture *f, const char *schema, const char *value)
{
    f->a = coax_arena_new(NULL);
    f->schema = NULL;
    if (coax_parse(f->a, schema, strlen(schema), NULL, &f->doc, NULL) ||
        coax_schema_compile(f->doc, NULL, NULL, &f->schema, NULL) ||
        coax_parse(f->a, value, strlen(value), NULL, &f->value, NULL))
        return false;
    return true;
}

static void teardown(fixture *f)
{
    coax_schema_free(f->schema);
    coax_arena_free(f->a);
}

/* Coerces f->value; writes the result into 'out' and returns the number of
** coercions (-1 on failure). */
static int coerce(fixture *f, char *out, size_t cap, int *valid, coerce_ctx *cc)
{
    *cc = (coerce_ctx){.arena = f->a, .schema = f->schema, .doc = f->doc};
    const coax_value *res;
    coax_validation val;
    if (coerce_candidate(cc, f->value, &res, &val)) return -1;
    char *s;
    size_t n;
    if (coax_write(res, 0, NULL, &s, &n)) return -1;
    snprintf(out, cap, "%s", s);
    coax_free(NULL, s, n + 1);
    *valid = val.valid;
    return (int)cc->n;
}

static coax_value *member_value(coax_value *obj, const char *key)
{
    return (coax_value *)coax_object_get(obj, key, strlen(key));
}

static void test_an_invented_key_is_never_dropped(void)
{
    fixture f;
    CHECK(setup(&f, "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{\"n\":{\"type\":\"number\"}}}",
                "{\"n\": -2, \"000.00\": 1}"));
    member_value(f.value, "000.00")->flags |= COAX_VF_INVENTED;
    char out[256];
    int valid;
    coerce_ctx cc;
    CHECK_INT(coerce(&f, out, sizeof out, &valid, &cc), 0);
    CHECK_INT(valid, 0);
    CHECK_STR(out, "{\"n\":-2,\"000.00\":1}");
    teardown(&f);
}

static void test_a_written_key_beside_it_is_dropped(void)
{
    fixture f; /* the twin: the same member, not invented */
    CHECK(setup(&f, "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{\"n\":{\"type\":\"number\"}}}",
                "{\"n\": -2, \"000.00\": 1}"));
    char out[256];
    int valid;
    coerce_ctx cc;
    CHECK_INT(coerce(&f, out, sizeof out, &valid, &cc), 1);
    CHECK_INT(valid, 1);
    CHECK_STR(out, "{\"n\":-2}");
    CHECK_STR(cc.log[0].kind, "property_dropped");
    CHECK_INT(cc.log[0].cls, COAX_CLASS_INFERRED);
    teardown(&f);
}

static void test_an_invented_value_is_not_converted_or_renamed(void)
{
    fixture f;
    CHECK(setup(&f, "{\"type\":\"object\",\"required\":[\"answer\"],\"properties\":{\"answer\":{\"type\":\"integer\"},"
                    "\"n\":{\"type\":\"integer\"},\"tags\":{\"type\":\"array\"}}}",
                "{\"Answer\": 1, \"n\": \"5\", \"tags\": {\"x\": \"7\"}}"));
    member_value(f.value, "Answer")->flags |= COAX_VF_INVENTED;
    member_value(f.value, "n")->flags |= COAX_VF_INVENTED;
    member_value(f.value, "tags")->flags |= COAX_VF_INVENTED;
    char out[256];
    int valid;
    coerce_ctx cc;
    CHECK_INT(coerce(&f, out, sizeof out, &valid, &cc), 0);
    CHECK_INT(valid, 0);
    CHECK_STR(out, "{\"Answer\":1,\"n\":\"5\",\"tags\":{\"x\":\"7\"}}");
    teardown(&f);
}

static void test_nothing_inside_an_invented_member_is_filled(void)
{
    fixture f;
    CHECK(setup(&f, "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"required\":[\"k\"],"
                    "\"properties\":{\"k\":{\"default\":3},\"m\":{\"type\":\"integer\"}}}}}",
                "{\"o\": {\"m\": \"4\"}}"));
    member_value(f.value, "o")->flags |= COAX_VF_INVENTED;
    char out[256];
    int valid;
    coerce_ctx cc;
    CHECK_INT(coerce(&f, out, sizeof out, &valid, &cc), 0);
    CHECK_STR(out, "{\"o\":{\"m\":\"4\"}}");
    teardown(&f);
    /* Not invented: both are fixed. */
    CHECK(setup(&f, "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"required\":[\"k\"],"
                    "\"properties\":{\"k\":{\"default\":3},\"m\":{\"type\":\"integer\"}}}}}",
                "{\"o\": {\"m\": \"4\"}}"));
    CHECK_INT(coerce(&f, out, sizeof out, &valid, &cc), 2);
    CHECK_INT(valid, 1);
    CHECK_STR(out, "{\"o\":{\"m\":4,\"k\":3}}");
    teardown(&f);
}

static void test_the_input_value_is_left_unchanged(void)
{
    fixture f;
    CHECK(setup(&f, "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}}",
                "[{\"a\": \"1\"}, {\"a\": 2}, {\"a\": \"3\"}]"));
    char out[256], *s;
    size_t n;
    int valid;
    coerce_ctx cc;
    CHECK_INT(coerce(&f, out, sizeof out, &valid, &cc), 2);
    CHECK_STR(out, "[{\"a\":1},{\"a\":2},{\"a\":3}]");
    CHECK_INT(coax_write(f.value, 0, NULL, &s, &n), COAX_OK);
    CHECK_STR(s, "[{\"a\":\"1\"},{\"a\":2},{\"a\":\"3\"}]");
    coax_free(NULL, s, n + 1);
    teardown(&f);
}

static void test_nfc_composes_and_folds(void)
{
    coax_arena *a = coax_arena_new(NULL);
    size_t n;
    const char *s = coax_nfc(a, "Sa\xcc\x83o", 5, &n); /* a + combining tilde */
    CHECK_STR(s, "S\xc3\xa3o");
    s = coax_nfc(a, "\xe1\x84\x80\xe1\x85\xa1", 6, &n); /* Hangul L + V */
    CHECK_STR(s, "\xea\xb0\x80");
    s = coax_nfc(a, "q\xcc\x87\xcc\xa3", 5, &n); /* marks put in canonical order */
    CHECK_STR(s, "q\xcc\xa3\xcc\x87");
    bool oom;
    CHECK(coax_nfc_fold_equal(NULL, "\xc3\x89T\xc3\x89", 5, "e\xcc\x81t\xc3\xa9", 6, &oom)); /* ÉTÉ, été */
    CHECK(!coax_nfc_fold_equal(NULL, "ete", 3, "\xc3\xa9t\xc3\xa9", 5, &oom));
    CHECK(coax_nfc_fold_equal(NULL, "TWO", 3, "two", 3, &oom));
    CHECK_INT(coax_fold_case(0x0394), 0x03B4); /* Greek Delta */
    coax_arena_free(a);
}

/* A long run of marks is ordered by class, stably, in linear time (an
** insertion sort took m^2 steps: 7.5 G instructions for 16,000 marks).
** Four classes, 300 times over, after a letter none of them joins. */
static void test_a_long_run_of_marks_is_put_in_order(void)
{
    static const char *const marks[4] = {"\xcd\x85", "\xcc\x87", "\xcc\xa3", "\xcc\xa8"}; /* 240 230 220 202 */
    coax_buf in, want;
    coax_buf_init(&in, NULL);
    coax_buf_init(&want, NULL);
    coax_buf_putc(&in, 'q');
    coax_buf_putc(&want, 'q');
    for (int i = 0; i < 300; i++)
        for (int k = 0; k < 4; k++) coax_buf_put(&in, marks[k], 2);
    for (int k = 3; k >= 0; k--)
        for (int i = 0; i < 300; i++) coax_buf_put(&want, marks[k], 2);
    coax_buf_putc(&want, '\0');
    coax_arena *a = coax_arena_new(NULL);
    size_t n;
    const char *s = coax_nfc(a, in.data, in.len, &n);
    CHECK_INT(n, want.len - 1);
    CHECK_STR(s, want.data);
    bool oom;
    CHECK(coax_nfc_fold_equal(NULL, in.data, in.len, want.data, want.len - 1, &oom));
    /* the twin: one mark fewer is not the same text */
    CHECK(!coax_nfc_fold_equal(NULL, in.data, in.len - 2, want.data, want.len - 1, &oom));
    coax_arena_free(a);
    coax_buf_free(&in);
    coax_buf_free(&want);
}

/* Coercing many errors costs memory in proportion to what validating them
** does: 20,000 records, 30% with a quantity written as a string (as
** bench/extract/big.sh). The union look kept a set of trials (350 bytes)
** for every error, under a union or not: extraction's arena was 1.97x
** validation's (16 MB: 168 MB at its peak, past the 10x goal); 1.45x now. */
static void test_many_errors_cost_memory_like_validation(void)
{
    static const char *schema =
        "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"required\":[\"id\",\"qty\"],"
        "\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"
        "\"qty\":{\"type\":\"integer\",\"minimum\":0}},\"additionalProperties\":false}}";
    coax_buf doc;
    coax_buf_init(&doc, NULL);
    coax_buf_putc(&doc, '[');
    for (unsigned i = 0; i < 20000; i++)
        coax_buf_printf(&doc, (i * 37u) % 100u < 30 ? "%s{\"id\":%u,\"name\":\"item %u\",\"qty\":\"%u\"}"
                                                     : "%s{\"id\":%u,\"name\":\"item %u\",\"qty\":%u}",
                        i ? "," : "", i, i, i % 50);
    coax_buf_putc(&doc, ']');
    fixture f;
    CHECK(setup(&f, schema, "0"));
    coax_arena *va = coax_arena_new(NULL), *ea = coax_arena_new(NULL);
    coax_value *v;
    coax_validation val;
    coax_extract_result r;
    CHECK_INT(coax_parse(va, doc.data, doc.len, NULL, &v, NULL), COAX_OK);
    CHECK_INT(coax_validate(f.schema, v, va, 0, &val, NULL), COAX_OK);
    CHECK_INT(val.nerrors, 6000);
    CHECK_INT(coax_extract(ea, f.schema, doc.data, doc.len, NULL, NULL, &r, NULL), COAX_OK);
    CHECK(r.valid);
    CHECK_INT(r.ncoercions, 6000);
    CHECK(coax_arena_size(ea) * 10 <= coax_arena_size(va) * 17);
    coax_arena_free(va);
    coax_arena_free(ea);
    coax_buf_free(&doc);
    teardown(&f);
}

/* Extracts 'reply' into a, writing its value into 'out' when valid ("" when
** not); the code coax_extract returned. */
static coax_code extract_into(coax_arena *a, const coax_schema *schema, const char *reply, char *out, size_t cap)
{
    coax_extract_result r;
    coax_code rc = coax_extract(a, schema, reply, strlen(reply), NULL, NULL, &r, NULL);
    out[0] = '\0';
    char *s;
    size_t n;
    if (rc == COAX_OK && r.valid && coax_write(r.value, 0, NULL, &s, &n) == COAX_OK) {
        snprintf(out, cap, "%s", s);
        coax_free(NULL, s, n + 1);
    }
    return rc;
}

/* The union and joined-name rules read memory at each step (claims, the
** members other branches read, joined forms): an allocation failing at
** any of them ends in COAX_ENOMEM or in the value a run with memory gives
** (or in a refusal), never in another value: out of memory reads "a
** guess", never "no guess". */
static void test_each_allocation_failing_gives_no_other_value(void)
{
    static const char *const cases[][2] = {
        {"{\"type\":\"object\",\"properties\":{\"s\":{\"enum\":[\"in_progress\",\"inProgress\",\"done\"]}}}",
         "{\"s\": \"IN_PROGRESS\"}"},
        {"{\"type\":\"object\",\"properties\":{\"s\":{\"oneOf\":[{\"const\":\"in_progress\"},{\"const\":\"inProgress\"}]}}}",
         "{\"s\": \"IN_PROGRESS\"}"},
        {"{\"type\":\"object\",\"properties\":{\"userId\":{},\"user_id\":{}},\"additionalProperties\":false}",
         "{\"userid\": 5}"},
        {"{\"type\":\"object\",\"properties\":{\"x\":{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
         "\"number\",\"maximum\":100}}},{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}]}}}",
         "{\"x\": {\"a\": 150}}"},
        {"{\"type\":\"object\",\"properties\":{\"x\":{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
         "\"string\"}},\"additionalProperties\":false},{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"integer\","
         "\"maximum\":3}},\"additionalProperties\":false}]}}}",
         "{\"x\": {\"b\": 5}}"},
        {"{\"type\":\"object\",\"properties\":{\"p\":{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"kind\":{\"const\":"
         "\"cat\"},\"age\":{\"type\":\"integer\",\"maximum\":30}}},{\"type\":\"object\",\"properties\":{\"kind\":{"
         "\"const\":\"dog\"},\"age\":{\"type\":\"string\"}}}]}}}",
         "{\"p\": {\"kind\": \"dog\", \"age\": 50}}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fixture f;
        CHECK(setup(&f, cases[i][0], "0"));
        counting whole = {0, 0, 0};
        coax_allocator wl = COUNTING_ALLOCATOR(&whole);
        coax_arena *a = coax_arena_new(&wl);
        char want[256], got[256];
        CHECK_INT(extract_into(a, f.schema, cases[i][1], want, sizeof want), COAX_OK);
        coax_arena_free(a);
        for (long k = 1 - whole.allocs; k <= whole.allocs; k++) { /* from -n: each allocation from the n-th on */
            if (!k) continue;
            counting c = {0, 0, k};
            coax_allocator al = COUNTING_ALLOCATOR(&c);
            a = coax_arena_new(&al);
            coax_code rc = a ? extract_into(a, f.schema, cases[i][1], got, sizeof got) : COAX_ENOMEM;
            coax_arena_free(a);
            CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
            if (rc == COAX_OK && got[0] && strcmp(got, want))
                printf("  case %zu, allocation %ld failing: %s, not %s\n", i, k, got, want[0] ? want : "refused");
            CHECK(rc != COAX_OK || !got[0] || !strcmp(got, want));
            CHECK_INT(c.live, 0);
            if (test_failed_now) break;
        }
        CHECK(whole.allocs >= 3);
        teardown(&f);
    }
}

/* A union branch's failures' common ancestor is read by whole tokens:
** "/a/b" and "/ab" share the root, not "/a". */
static void test_the_common_place_is_a_whole_token(void)
{
    coerce_place d = {NULL, 0};
    CHECK(coerce_place_within(&d, "/x", 2));
    coerce_place_narrow(&d, "/p/a/b", 6);
    coerce_place_narrow(&d, "/p/ab", 5);
    CHECK_INT((long)d.len, 2);
    CHECK(coerce_place_within(&d, "/p", 2));
    CHECK(coerce_place_within(&d, "", 0));
    CHECK(!coerce_place_within(&d, "/p/a", 4));
    coerce_place_narrow(&d, "/q", 2);
    CHECK_INT((long)d.len, 0);
    coerce_place e = {NULL, 0};
    coerce_place_narrow(&e, "/p/a/bc", 7);
    coerce_place_narrow(&e, "/p/a/bd", 7);
    CHECK_INT((long)e.len, 4);
    coerce_place_narrow(&e, "/p/a", 4);
    CHECK_INT((long)e.len, 4);
    CHECK(!coerce_place_within(&e, "/p/ab", 5));
}

#define TESTS                                          \
    X(test_an_invented_key_is_never_dropped)           \
    X(test_a_written_key_beside_it_is_dropped)         \
    X(test_an_invented_value_is_not_converted_or_renamed) \
    X(test_nothing_inside_an_invented_member_is_filled) \
    X(test_the_input_value_is_left_unchanged)          \
    X(test_nfc_composes_and_folds)                     \
    X(test_a_long_run_of_marks_is_put_in_order)        \
    X(test_many_errors_cost_memory_like_validation)    \
    X(test_each_allocation_failing_gives_no_other_value) \
    X(test_the_common_place_is_a_whole_token)
#include "test.h"
