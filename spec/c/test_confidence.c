/* Confidence classes through the C API: the class of each repair, the
** COAX_VF_INVENTED flag on every value an invented repair made (the
** coercion step refuses to drop, rename or fill those), and
** coax_extract_options. */
#include "base/core.h"

#include <stdlib.h>

#include "test.h"

/* The member 'key' of object 'v', or NULL. */
static const coax_value *member(const coax_value *v, const char *key)
{
    for (uint32_t i = 0; v->type == COAX_OBJECT && i < v->len; i++)
        if (!strcmp(v->u.members[i].key, key)) return &v->u.members[i].value;
    return NULL;
}

static bool invented(const coax_value *v) { return v && (v->flags & COAX_VF_INVENTED); }

static void test_classes_in_the_log(void)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_repair_result r;
    const char *t = "{a: 1, 'b': 2, c d: 3,}";
    CHECK_INT(coax_repair(a, t, strlen(t), NULL, &r, NULL), COAX_OK);
    CHECK_INT(r.nlog, 4);
    const char *want[][2] = {{"unquoted_key", "inferred"}, {"single_quotes", "lossless"},
                             {"unquoted_key", "invented"}, {"trailing_comma", "lossless"}};
    for (size_t i = 0; i < 4 && i < r.nlog; i++) {
        CHECK_STR(r.log[i].kind, want[i][0]);
        CHECK_STR(coax_class_name(r.log[i].cls), want[i][1]);
    }
    coax_arena_free(a);
}

static void test_invented_values_are_flagged(void)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_repair_result r;
    /* a guessed key, a missing value, a container under a guessed key */
    const char *t = "{\"name\": \"x\", \"amount\": -2,00.00, \"ok\": [1], more text: {\"k\": [2]}, \"z\": }";
    CHECK_INT(coax_repair(a, t, strlen(t), NULL, &r, NULL), COAX_OK);
    const coax_value *v = r.value;
    CHECK(!invented(v));
    CHECK(!invented(member(v, "name")));
    CHECK(!invented(member(v, "amount")));
    CHECK(invented(member(v, "00.00")));
    CHECK(!invented(member(v, "ok")));
    const coax_value *more = member(v, "more text");
    CHECK(invented(more));
    CHECK(more && invented(member(more, "k")));
    CHECK(more && member(more, "k") && invented(&member(more, "k")->u.items[0]));
    CHECK(invented(member(v, "z")));
    coax_arena_free(a);
}

static void test_extract_options(void)
{
    coax_arena *a = coax_arena_new(NULL);
    const char *schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}";
    coax_value *doc;
    coax_schema *s = NULL;
    CHECK_INT(coax_parse(a, schema, strlen(schema), NULL, &doc, NULL), COAX_OK);
    CHECK_INT(coax_schema_compile(doc, NULL, NULL, &s, NULL), COAX_OK);
    coax_extract_result x;
    const char *guess = "{\"n\": 1, more: }";
    CHECK_INT(coax_extract(a, s, guess, strlen(guess), NULL, NULL, &x, NULL), COAX_OK);
    CHECK(!x.valid);
    CHECK_STR(x.validation.errors[0].message,
              "unreadable text at line 1, column 16 (used null for a missing value: '}'); send valid JSON");
    CHECK(x.refused && !strcmp(x.refused->kind, "missing_value") && x.refused->cls == COAX_CLASS_INVENTED);
    coax_extract_options o;
    coax_extract_options_default(&o);
    CHECK_INT(o.max_class, COAX_CLASS_INFERRED);
    o.max_class = COAX_CLASS_INVENTED;
    CHECK_INT(coax_extract(a, s, guess, strlen(guess), NULL, &o, &x, NULL), COAX_OK);
    CHECK(x.valid && !x.refused);
    const char *open = "{\"n\": 1";
    CHECK_INT(coax_extract(a, s, open, strlen(open), NULL, NULL, &x, NULL), COAX_OK);
    CHECK(!x.valid); /* 1 may have been cut from 12 */
    CHECK_STR(x.validation.errors[0].message, "the JSON is incomplete: the reply ends inside it");
    o = (coax_extract_options){COAX_EXTRACT_CUT_OFF, COAX_CLASS_INFERRED}; /* the provider said it cut */
    CHECK_INT(coax_extract(a, s, open, strlen(open), NULL, &o, &x, NULL), COAX_OK);
    CHECK_STR(x.validation.errors[0].message, "the reply was cut off: the JSON is incomplete");
    o = (coax_extract_options){COAX_EXTRACT_FINISHED, COAX_CLASS_INFERRED}; /* the model stopped there */
    CHECK_INT(coax_extract(a, s, open, strlen(open), NULL, &o, &x, NULL), COAX_OK);
    CHECK(x.valid);
    const char *spaced = "{\"n\": 1\n"; /* a space after it: the number ended */
    CHECK_INT(coax_extract(a, s, spaced, strlen(spaced), NULL, NULL, &x, NULL), COAX_OK);
    CHECK(x.valid);
    o = (coax_extract_options){COAX_EXTRACT_CUT_OFF, COAX_CLASS_INFERRED};
    CHECK_INT(coax_extract(a, s, open, strlen(open), NULL, &o, &x, NULL), COAX_OK);
    CHECK(!x.valid);
    o = (coax_extract_options){0}; /* zero is lossless, the strictest */
    CHECK_INT(coax_extract(a, s, open, strlen(open), NULL, &o, &x, NULL), COAX_OK);
    CHECK(!x.valid);
    coax_class c = COAX_CLASS_LOSSLESS;
    CHECK(coax_class_parse("invented", &c) && c == COAX_CLASS_INVENTED);
    CHECK(!coax_class_parse("sure", &c) && c == COAX_CLASS_INVENTED);
    CHECK(!coax_class_parse(NULL, &c));
    coax_schema_free(s);
    coax_arena_free(a);
}

/* An allocator that overwrites a block before freeing it: what pointed
** into it reads garbage, with or without a sanitizer. */
static void *scrub_malloc(void *ctx, size_t n) { return malloc(n); }
static void *scrub_realloc(void *ctx, void *p, size_t o, size_t n) { return realloc(p, n); }
static void scrub_free(void *ctx, void *p, size_t n)
{
    if (p) memset(p, 0xA5, n);
    free(p);
}

/* coax_extract coerces by the document the schema was compiled from, which
** the compiled schema keeps: the host's copy may be gone. */
static void test_extract_keeps_the_schema_document(void)
{
    const coax_allocator scrub = {scrub_malloc, scrub_realloc, scrub_free, NULL};
    coax_arena *host = coax_arena_new(&scrub);
    const char *schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"$ref\":\"#/$defs/int\"},"
                         "\"c\":{\"enum\":[\"Red\",\"Blue\"]}},\"$defs\":{\"int\":{\"type\":\"integer\"}}}";
    coax_value *doc;
    coax_schema *s = NULL;
    CHECK_INT(coax_parse(host, schema, strlen(schema), NULL, &doc, NULL), COAX_OK);
    CHECK_INT(coax_schema_compile(doc, NULL, NULL, &s, NULL), COAX_OK);
    coax_arena_free(host);
    coax_arena *a = coax_arena_new(NULL);
    const char *reply = "{\"n\": \"12\", \"c\": \"red\"}";
    coax_extract_result x;
    CHECK_INT(coax_extract(a, s, reply, strlen(reply), NULL, NULL, &x, NULL), COAX_OK);
    CHECK(x.valid);
    char *out = NULL;
    size_t len = 0;
    CHECK_INT(coax_write(x.value, 0, NULL, &out, &len), COAX_OK);
    CHECK_STR(out, "{\"n\":12,\"c\":\"Red\"}");
    coax_free(NULL, out, len + 1);
    CHECK_INT(x.ncoercions, 2);
    CHECK_STR(x.coercions[0].kind, "string_to_integer");
    CHECK_STR(x.coercions[1].kind, "enum_match");
    coax_extract_options strict = {COAX_EXTRACT_STRICT, COAX_CLASS_INFERRED};
    CHECK_INT(coax_extract(a, s, reply, strlen(reply), NULL, &strict, &x, NULL), COAX_OK);
    CHECK(!x.valid);
    CHECK_INT(x.ncoercions, 0);
    coax_schema_free(s);
    coax_arena_free(a);
}

#define TESTS                                                                                                 \
    X(test_classes_in_the_log) X(test_invented_values_are_flagged) X(test_extract_options)                    \
    X(test_extract_keeps_the_schema_document)
#include "test.h"
