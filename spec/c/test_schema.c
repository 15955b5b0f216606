/* JSON Schema through the public API: error units (locations, messages,
** counts), output formats, drafts, references and meta-schemas, invalid
** and hostile schemas, limits, and allocation failure at every step. */
#include "coax.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "counting.h"
#include "schema/uri.h"
#include "test.h"


static coax_value *parse(coax_arena *a, const char *text)
{
    coax_value *v = NULL;
    coax_error err;
    if (coax_parse(a, text, strlen(text), NULL, &v, &err)) {
        printf("  bad test JSON: %s: %s\n", text, err.msg);
        return NULL;
    }
    return v;
}

/* Compiles 'schema' and validates 'inst'; returns the output in 'format'
** ("ERR CODE message" when compiling or validating fails). */
static char out[65536];

static const char *run_opt(const char *schema, const char *inst, coax_output format,
                           const coax_schema_options *opt)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_schema *s = NULL;
    coax_error err;
    out[0] = '\0';
    coax_value *sv = parse(a, schema), *iv = parse(a, inst);
    coax_code rc = sv && iv ? coax_schema_compile(sv, opt, NULL, &s, &err) : COAX_EINVAL;
    if (rc) {
        snprintf(out, sizeof out, "ERR %s %s", coax_code_name(rc), err.msg);
    } else {
        coax_validation r;
        rc = coax_validate(s, iv, a, format == COAX_OUTPUT_FLAG ? COAX_VALIDATE_FIRST : 0, &r, &err);
        if (rc) {
            snprintf(out, sizeof out, "ERR %s %s", coax_code_name(rc), err.msg);
        } else {
            char *text;
            size_t len;
            if (coax_validation_write(&r, format, NULL, &text, &len) == COAX_OK) {
                snprintf(out, sizeof out, "%s", text);
                coax_free(NULL, text, len + 1);
            }
        }
    }
    coax_schema_free(s);
    coax_arena_free(a);
    return out;
}

static const char *run(const char *schema, const char *inst)
{
    return run_opt(schema, inst, COAX_OUTPUT_BASIC, NULL);
}

#define U(i, k, e) "{\"instanceLocation\":\"" i "\",\"keywordLocation\":\"" k "\",\"error\":\"" e "\"}"
#define UA(i, k, a, e)                                                                        \
    "{\"instanceLocation\":\"" i "\",\"keywordLocation\":\"" k "\",\"absoluteKeywordLocation\":\"" a \
    "\",\"error\":\"" e "\"}"
/* A unit of the detailed format: each is a full output unit, with "valid". */
#define UD(i, k, e) "{\"valid\":false,\"instanceLocation\":\"" i "\",\"keywordLocation\":\"" k "\",\"error\":\"" e "\"}"
#define INVALID(...) "{\"valid\":false,\"errors\":[" __VA_ARGS__ "]}"

static void test_every_error_is_reported_with_its_locations(void)
{
    CHECK_STR(run("{\"type\":\"object\",\"required\":[\"currency_code\",\"amount\"],"
                  "\"properties\":{\"amount\":{\"type\":\"integer\"},"
                  "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"maxLength\":3}}}}",
                  "{\"amount\":\"12\",\"tags\":[\"abcd\",3]}"),
              INVALID(U("", "/required", "missing required property \\\"currency_code\\\"") ","
                      U("/amount", "/properties/amount/type", "expected integer, got string \\\"12\\\"") ","
                      U("/tags/0", "/properties/tags/items/maxLength", "expected at most 3 characters, got 4") ","
                      U("/tags/1", "/properties/tags/items/type", "expected string, got number 3")));
}

static void test_valid_instances_give_valid_true(void)
{
    CHECK_STR(run("{\"type\":\"integer\"}", "1.0"), "{\"valid\":true}");
    CHECK_STR(run("true", "{\"a\":[1,2]}"), "{\"valid\":true}");
    CHECK_STR(run("{}", "null"), "{\"valid\":true}");
}

static void test_messages_name_expected_and_actual(void)
{
    CHECK_STR(run("{\"type\":[\"string\",\"null\"]}", "5"), INVALID(U("", "/type", "expected null or string, got number 5")));
    CHECK_STR(run("{\"enum\":[\"a\",\"b\"]}", "\"c\""), INVALID(U("", "/enum", "expected one of [\\\"a\\\",\\\"b\\\"], got string \\\"c\\\"")));
    CHECK_STR(run("{\"const\":{\"a\":1}}", "{\"a\":2}"), INVALID(U("", "/const", "expected {\\\"a\\\":1}, got object")));
    CHECK_STR(run("{\"minimum\":10}", "9.5"), INVALID(U("", "/minimum", "expected a number at least 10, got 9.5")));
    CHECK_STR(run("{\"exclusiveMaximum\":10}", "10"), INVALID(U("", "/exclusiveMaximum", "expected a number less than 10, got 10")));
    CHECK_STR(run("{\"multipleOf\":0.01}", "0.075"), INVALID(U("", "/multipleOf", "expected a multiple of 0.01, got 0.075")));
    CHECK_STR(run("{\"minItems\":2}", "[1]"), INVALID(U("", "/minItems", "expected at least 2 items, got 1")));
    CHECK_STR(run("{\"maxProperties\":1}", "{\"a\":1,\"b\":2}"), INVALID(U("", "/maxProperties", "expected at most 1 property, got 2")));
    CHECK_STR(run("{\"uniqueItems\":true}", "[1,2,1.0]"), INVALID(U("", "/uniqueItems", "expected unique items, items 0 and 2 are equal")));
    CHECK_STR(run("{\"pattern\":\"^[a-z]+$\"}", "\"ab1\""), INVALID(U("", "/pattern", "expected a string matching \\\"^[a-z]+$\\\", got \\\"ab1\\\"")));
    CHECK_STR(run("{\"additionalProperties\":false,\"properties\":{\"a\":{}}}", "{\"a\":1,\"b\":2}"),
              INVALID(U("/b", "/additionalProperties", "property \\\"b\\\" is not allowed")));
    CHECK_STR(run("{\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"a\":1}"),
              INVALID(U("", "/dependentRequired/a", "property \\\"a\\\" requires property \\\"b\\\", which is missing")));
    CHECK_STR(run("{\"contains\":{\"type\":\"string\"},\"minContains\":2}", "[\"a\",1]"),
              INVALID(U("", "/contains", "expected at least 2 items matching \\\"contains\\\", got 1")));
    CHECK_STR(run("{\"prefixItems\":[{}],\"items\":false}", "[1,2,3]"),
              INVALID(U("", "/items", "expected at most 1 item, got 3")));
    CHECK_STR(run("{\"not\":{\"type\":\"string\"}}", "\"x\""),
              INVALID(U("", "/not", "expected the value not to match the schema of \\\"not\\\", got string \\\"x\\\"")));
    CHECK_STR(run("{\"unevaluatedProperties\":false,\"allOf\":[{\"properties\":{\"a\":{}}}]}", "{\"a\":1,\"b\":2}"),
              INVALID(U("/b", "/unevaluatedProperties", "property \\\"b\\\" is not allowed (no keyword of the schema evaluates it)")));
}

static void test_long_values_are_cut_in_messages(void)
{
    CHECK_STR(run("{\"type\":\"integer\"}", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""),
              INVALID(U("", "/type", "expected integer, got string \\\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\\\"")));
}

static void test_anyof_keeps_branch_errors_only_when_all_fail(void)
{
    CHECK_STR(run("{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":2}]}", "1"),
              INVALID(U("", "/anyOf/0/type", "expected string, got number 1") ","
                      U("", "/anyOf/1/minimum", "expected a number at least 2, got 1") ","
                      U("", "/anyOf", "expected the value to match at least one schema of \\\"anyOf\\\", it matches none")));
    CHECK_STR(run("{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":2}]}", "3"), "{\"valid\":true}");
    CHECK_STR(run("{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}", "3"),
              INVALID(U("", "/oneOf", "expected the value to match exactly one schema of \\\"oneOf\\\", it matches 0 and 1")));
}

static void test_references_add_absolute_locations(void)
{
    CHECK_STR(run("{\"$id\":\"https://example.com/order\",\"properties\":{\"total\":{\"$ref\":\"#/$defs/money\"}},"
                  "\"$defs\":{\"money\":{\"type\":\"number\",\"minimum\":0}}}",
                  "{\"total\":-1}"),
              INVALID(UA("/total", "/properties/total/$ref/minimum", "https://example.com/order#/$defs/money/minimum",
                         "expected a number at least 0, got -1")));
    /* without $id the absolute location is relative to the document */
    CHECK_STR(run("{\"items\":{\"$ref\":\"#/$defs/s\"},\"$defs\":{\"s\":{\"type\":\"string\"}}}", "[1]"),
              INVALID(UA("/0", "/items/$ref/type", "#/$defs/s/type", "expected string, got number 1")));
}

static void test_flag_and_detailed_outputs(void)
{
    const char *schema = "{\"properties\":{\"a\":{\"type\":\"string\",\"minLength\":2},\"b\":{\"type\":\"integer\"}}}";
    CHECK_STR(run_opt(schema, "{\"a\":1,\"b\":\"x\"}", COAX_OUTPUT_FLAG, NULL), "{\"valid\":false}");
    CHECK_STR(run_opt(schema, "{\"a\":\"xy\"}", COAX_OUTPUT_FLAG, NULL), "{\"valid\":true}");
    CHECK_STR(run_opt("{\"properties\":{\"a\":{\"type\":\"string\",\"minLength\":2}}}", "{\"a\":5}", COAX_OUTPUT_DETAILED, NULL),
              "{\"valid\":false,\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"errors\":["
              UD("/a", "/properties/a/type", "expected string, got number 5") "]}");
    CHECK_STR(run_opt("{\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"^x\"},\"b\":{\"type\":\"integer\"}}}",
                      "{\"a\":\"yy\",\"b\":true}", COAX_OUTPUT_DETAILED, NULL),
              "{\"valid\":false,\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"errors\":["
              UD("/a", "/properties/a/pattern", "expected a string matching \\\"^x\\\", got \\\"yy\\\"") ","
              UD("/b", "/properties/b/type", "expected integer, got boolean true") "]}");
    CHECK_STR(run_opt("{\"properties\":{\"a\":{\"allOf\":[{\"type\":\"string\"},{\"minimum\":3}]}}}",
                      "{\"a\":1}", COAX_OUTPUT_DETAILED, NULL),
              "{\"valid\":false,\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"errors\":["
              "{\"valid\":false,\"instanceLocation\":\"/a\",\"keywordLocation\":\"/properties/a\",\"errors\":["
              UD("/a", "/properties/a/allOf/0/type", "expected string, got number 1") ","
              UD("/a", "/properties/a/allOf/1/minimum", "expected a number at least 3, got 1") "]}]}");
}

static void test_drafts_by_schema_and_by_host(void)
{
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    /* draft 4: exclusiveMaximum is a boolean beside maximum */
    o.draft = COAX_DRAFT_4;
    CHECK_STR(run_opt("{\"maximum\":3,\"exclusiveMaximum\":true}", "3", COAX_OUTPUT_BASIC, &o),
              INVALID(U("", "/maximum", "expected a number less than 3, got 3")));
    /* draft 7 ignores the siblings of $ref; 2020-12 does not */
    o.draft = COAX_DRAFT_7;
    CHECK_STR(run_opt("{\"$ref\":\"#/definitions/a\",\"type\":\"string\",\"definitions\":{\"a\":{}}}", "1", COAX_OUTPUT_BASIC, &o),
              "{\"valid\":true}");
    CHECK_STR(run("{\"$ref\":\"#/$defs/a\",\"type\":\"string\",\"$defs\":{\"a\":{}}}", "1"),
              INVALID(U("", "/type", "expected string, got number 1")));
    /* $schema wins over the host's choice */
    CHECK_STR(run_opt("{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"prefixItems\":[{\"type\":\"string\"}]}",
                      "[1]", COAX_OUTPUT_BASIC, &o),
              INVALID(U("/0", "/prefixItems/0/type", "expected string, got number 1")));
    CHECK_INT(coax_draft_parse("2019-09"), COAX_DRAFT_2019_09);
    CHECK_INT(coax_draft_parse("draft7"), COAX_DRAFT_7);
    CHECK_INT(coax_draft_parse("5"), COAX_DRAFT_AUTO);
    CHECK_STR(coax_draft_name(COAX_DRAFT_2020_12), "2020-12");
}

static void test_invalid_schemas_say_where(void)
{
    CHECK_STR(run("{\"type\":\"strin\"}", "1"),
              "ERR COAX_ESCHEMA invalid schema at \"/type\": expected one of [\"array\",\"boolean\",\"integer\",\"null\",\"number\",\"object\",\"string\"], got string \"strin\" (1 of 3 errors shown)");
    CHECK_STR(run("{\"properties\":{\"a\":{\"minLength\":-1}}}", "1"),
              "ERR COAX_ESCHEMA invalid schema at \"/properties/a/minLength\": expected a number at least 0, got -1 (1 error)");
    CHECK_STR(run("{\"pattern\":\"((\"}", "1"),
              "ERR COAX_ESCHEMA invalid schema at \"/pattern\": not an ECMA-262 regular expression: missing ')' at offset 2");
    CHECK_STR(run("{\"$ref\":\"#/$defs/missing\"}", "1"), "ERR COAX_ESCHEMA unresolvable reference \"#/$defs/missing\"");
    CHECK_STR(run("{\"$ref\":\"https://example.com/not-here.json\"}", "1"),
              "ERR COAX_ESCHEMA unresolvable reference \"https://example.com/not-here.json\"");
    CHECK_STR(run("{\"$schema\":\"https://example.com/meta\"}", "1"), "ERR COAX_ESCHEMA unknown meta-schema \"https://example.com/meta\"");
    CHECK_STR(run("{\"$schema\":\"http://json-schema.org/draft-03/schema#\"}", "1"),
              "ERR COAX_ESCHEMA unsupported draft: http://json-schema.org/draft-03/schema# (coax implements 4, 6, 7, 2019-09, 2020-12)");
    CHECK_STR(run("42", "1"), "ERR COAX_ESCHEMA invalid schema: a schema must be an object or a boolean");
    CHECK_STR(run("[{}]", "1"), "ERR COAX_ESCHEMA invalid schema: a schema must be an object or a boolean");
    CHECK_INT(coax_exit_status(COAX_ESCHEMA), 2);
    CHECK_INT(coax_exit_status(COAX_ELIMIT), 4);
}

static void test_reference_cycles_are_invalid_schemas(void)
{
    CHECK_STR(run("{\"$ref\":\"#\"}", "1"),
              "ERR COAX_ESCHEMA invalid schema: reference cycle through \"\" that never consumes the instance");
    CHECK_STR(run("{\"$defs\":{\"a\":{\"allOf\":[{\"$ref\":\"#/$defs/b\"}]},\"b\":{\"not\":{\"$ref\":\"#/$defs/a\"}}},\"$ref\":\"#/$defs/a\"}", "1"),
              "ERR COAX_ESCHEMA invalid schema: reference cycle through \"/$defs/a\" that never consumes the instance");
    /* recursion that consumes the instance is fine */
    CHECK_STR(run("{\"items\":{\"$ref\":\"#\"},\"type\":\"array\"}", "[[[[]]],[1]]"),
              INVALID(UA("/1/0", "/items/$ref/items/$ref/type", "#/type", "expected array, got number 1")));
}

static void test_depth_limits(void)
{
    /* evaluation depth: a recursive schema on a deep instance */
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.max_depth = 20;
    char deep[256];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    deep[200] = '\0';
    const char *r = run_opt("{\"items\":{\"$ref\":\"#\"}}", deep, COAX_OUTPUT_BASIC, &o);
    CHECK_STR(r, "ERR COAX_EDEPTH schema evaluation nested deeper than the limit of 20");
    CHECK_STR(run("{\"items\":{\"$ref\":\"#\"}}", deep), "{\"valid\":true}");
    /* schema nesting deeper than max_depth fails compilation */
    char sch[2048];
    size_t n = 0;
    for (int i = 0; i < 30; i++) n += (size_t)snprintf(sch + n, sizeof sch - n, "{\"not\":");
    n += (size_t)snprintf(sch + n, sizeof sch - n, "{}");
    for (int i = 0; i < 30; i++) sch[n++] = '}';
    sch[n] = '\0';
    CHECK_STR(run_opt(sch, "1", COAX_OUTPUT_BASIC, &o), "ERR COAX_EDEPTH copying the schema: nesting deeper than 20");
    CHECK_STR(run(sch, "1"), "{\"valid\":true}");
}

static void test_regex_steps_are_a_limit(void)
{
    CHECK_STR(run("{\"pattern\":\"^(a+)+$\"}", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\""),
              "ERR COAX_ELIMIT a regular expression exceeded its step limit of 1000000 steps (max_regex_steps)");
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.max_regex_steps = 100000000u;
    CHECK_STR(run_opt("{\"pattern\":\"^(a+)+$\"}", "\"aaaaaaaaaaaab\"", COAX_OUTPUT_BASIC, &o),
              INVALID(U("", "/pattern", "expected a string matching \\\"^(a+)+$\\\", got \\\"aaaaaaaaaaaab\\\"")));
    /* draft 4 alone counts 1.0 as a number, not an integer */
    o.draft = COAX_DRAFT_4;
    CHECK_STR(run_opt("{\"type\":\"integer\"}", "1.0", COAX_OUTPUT_BASIC, &o),
              INVALID(U("", "/type", "expected integer, got number 1.0")));
    CHECK_STR(run("{\"type\":\"integer\"}", "1.0"), "{\"valid\":true}");
}

static void test_big_numbers_are_exact(void)
{
    CHECK_STR(run("{\"maximum\":18446744073709551615}", "18446744073709551616"),
              INVALID(U("", "/maximum", "expected a number at most 18446744073709551615, got 18446744073709551616")));
    CHECK_STR(run("{\"multipleOf\":0.123456789}", "1e308"),
              INVALID(U("", "/multipleOf", "expected a multiple of 0.123456789, got 1e308")));
    CHECK_STR(run("{\"multipleOf\":1e-8}", "12391239123"), "{\"valid\":true}");
    /* a multipleOf past 18 significant digits, exactly (doubles passed both of the first two) */
    CHECK_STR(run("{\"multipleOf\":1234567890123456789}", "1234567890123456790"),
              INVALID(U("", "/multipleOf", "expected a multiple of 1234567890123456789, got 1234567890123456790")));
    CHECK_STR(run("{\"multipleOf\":12345678901234567890123}", "24691357802469135780247"),
              INVALID(U("", "/multipleOf", "expected a multiple of 12345678901234567890123, got 24691357802469135780247")));
    CHECK_STR(run("{\"multipleOf\":12345678901234567890123}", "24691357802469135780246"), "{\"valid\":true}");
    CHECK_STR(run("{\"multipleOf\":1.2345678901234567890123}", "2469135780246913578024.6e-21"), "{\"valid\":true}");
    CHECK_STR(run("{\"multipleOf\":1.2345678901234567890123}", "2.46913578024691357802"),
              INVALID(U("", "/multipleOf", "expected a multiple of 1.2345678901234567890123, got 2.46913578024691357802")));
    /* 2^70 and 5^30: their 2s and 5s met by the instance's zeros or its own digits */
    CHECK_STR(run("{\"multipleOf\":1180591620717411303424}", "3541774862152233910272"), "{\"valid\":true}");
    CHECK_STR(run("{\"multipleOf\":1180591620717411303424}", "1180591620717411303424e3"), "{\"valid\":true}");
    CHECK_STR(run("{\"multipleOf\":1180591620717411303424}", "590295810358705651712"),
              INVALID(U("", "/multipleOf", "expected a multiple of 1180591620717411303424, got 590295810358705651712")));
    CHECK_STR(run("{\"multipleOf\":1180591620717411303424}", "590295810358705651712e1"), "{\"valid\":true}");
    CHECK_STR(run("{\"multipleOf\":1180591620717411303424}", "590295810358705651712e70"), "{\"valid\":true}");
    CHECK_STR(run("{\"multipleOf\":931322574615478515625}", "6519258022308349609375"), "{\"valid\":true}");
    CHECK_STR(run("{\"multipleOf\":931322574615478515625}", "1303851604461669921875"),
              INVALID(U("", "/multipleOf", "expected a multiple of 931322574615478515625, got 1303851604461669921875")));
    CHECK_STR(run("{\"multipleOf\":931322574615478515625}", "1303851604461669921875e1"), "{\"valid\":true}");
    /* past 64 significant digits no answer: a failure that says so, never a pass (0 is a multiple of all) */
#define D65 "10000000000000000000000000000000000000000000000000000000000000001"
    CHECK_STR(run("{\"multipleOf\":" D65 "}", "2"),
              INVALID(U("", "/multipleOf", "expected a multiple of " D65 ", got 2: a multipleOf of more than 64 "
                                           "significant digits is not checked")));
    CHECK_STR(run("{\"multipleOf\":" D65 "}", "0"), "{\"valid\":true}");
#undef D65
    CHECK_STR(run("{\"type\":\"integer\"}", "1e400"), "{\"valid\":true}");
    CHECK_STR(run("{\"maxItems\":1e400}", "[1,2]"), "{\"valid\":true}");
}

static coax_code test_resolver(void *ud, const char *uri, coax_arena *a, coax_value **out, coax_error *err)
{
    int *calls = ud;
    ++*calls;
    if (strcmp(uri, "urn:example:money")) return COAX_ENOTFOUND;
    const char *t = "{\"type\":\"number\",\"minimum\":0}";
    return coax_parse(a, t, strlen(t), NULL, out, err);
}

static void test_host_resolver_and_remote_dir(void)
{
    int calls = 0;
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.resolve = test_resolver;
    o.resolve_ud = &calls;
    CHECK_STR(run_opt("{\"items\":{\"$ref\":\"urn:example:money\"}}", "[1,-1]", COAX_OUTPUT_BASIC, &o),
              INVALID(UA("/1", "/items/$ref/minimum", "urn:example:money#/minimum", "expected a number at least 0, got -1")));
    CHECK_INT(calls, 1);
    memset(&o, 0, sizeof o);
    o.remote_dir = "spec/json-schema-test-suite/remotes";
    o.remote_base = "http://localhost:1234/";
    CHECK_STR(run_opt("{\"$ref\":\"http://localhost:1234/integer.json\"}", "\"x\"", COAX_OUTPUT_BASIC, &o),
              INVALID(UA("", "/$ref/type", "http://localhost:1234/integer.json#/type", "expected integer, got string \\\"x\\\"")));
    CHECK_STR(run_opt("{\"$ref\":\"http://localhost:1234/../etc/passwd\"}", "1", COAX_OUTPUT_BASIC, &o),
              "ERR COAX_ESCHEMA unresolvable reference \"http://localhost:1234/../etc/passwd\"");
}

static void test_meta_schema_references_resolve_offline(void)
{
    /* the 2020-12 meta-schema validates schemas, as a schema */
    CHECK_STR(run("{\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}", "{\"type\":\"object\"}"), "{\"valid\":true}");
    CHECK_STR(run("{\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}", "{\"minLength\":\"x\"}"),
              INVALID(UA("/minLength", "/$ref/allOf/3/$ref/properties/minLength/$ref/$ref/type",
                         "https://json-schema.org/draft/2020-12/meta/validation#/$defs/nonNegativeInteger/type",
                         "expected integer, got string \\\"x\\\"")));
    CHECK_STR(run("{\"$ref\":\"http://json-schema.org/draft-07/schema#\"}", "{\"type\":12}"),
              INVALID(UA("/type", "/$ref/properties/type/anyOf/0/$ref/enum", "http://json-schema.org/draft-07/schema#/definitions/simpleTypes/enum",
                         "expected one of [\\\"array\\\",\\\"boolean\\\",\\\"integer\\\",\\\"null\\\",\\\"number\\\",\\\"object\\\",\\\"string\\\"], got number 12") ","
                         UA("/type", "/$ref/properties/type/anyOf/1/type", "http://json-schema.org/draft-07/schema#/properties/type/anyOf/1/type",
                         "expected array, got number 12") ","
                         UA("/type", "/$ref/properties/type/anyOf", "http://json-schema.org/draft-07/schema#/properties/type/anyOf",
                         "expected the value to match at least one schema of \\\"anyOf\\\", it matches none")));
}

/* RFC 3986 section 5.4's reference resolution examples (base
** http://a/b/c/d;p?q). "/../" in a path once came out as "//", so "../a"
** from a folder named no document. */
static void test_uri_references_resolve_as_rfc_3986_says(void)
{
    static const char *const cases[][2] = {
        {"g", "http://a/b/c/g"},         {"./g", "http://a/b/c/g"},        {"g/", "http://a/b/c/g/"},
        {"/g", "http://a/g"},            {"//g", "http://g"},              {"?y", "http://a/b/c/d;p?y"},
        {"g?y", "http://a/b/c/g?y"},     {"#s", "http://a/b/c/d;p?q#s"},   {"g#s", "http://a/b/c/g#s"},
        {";x", "http://a/b/c/;x"},       {"", "http://a/b/c/d;p?q"},       {".", "http://a/b/c/"},
        {"./", "http://a/b/c/"},         {"..", "http://a/b/"},            {"../", "http://a/b/"},
        {"../g", "http://a/b/g"},        {"../..", "http://a/"},           {"../../", "http://a/"},
        {"../../g", "http://a/g"},       {"../../../g", "http://a/g"},     {"../../../../g", "http://a/g"},
        {"/./g", "http://a/g"},          {"/../g", "http://a/g"},          {"g.", "http://a/b/c/g."},
        {".g", "http://a/b/c/.g"},       {"g..", "http://a/b/c/g.."},      {"..g", "http://a/b/c/..g"},
        {"./../g", "http://a/b/g"},      {"./g/.", "http://a/b/c/g/"},     {"g/./h", "http://a/b/c/g/h"},
        {"g/../h", "http://a/b/c/h"},    {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
        {"g;x=1/../y", "http://a/b/c/y"},
    };
    coax_arena *a = coax_arena_new(NULL);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = coax_uri_resolve(a, "http://a/b/c/d;p?q", cases[i][0], strlen(cases[i][0]));
        CHECK_STR(got, cases[i][1]);
    }
    coax_arena_free(a);
}

static void test_one_schema_validates_many_times(void)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_schema *s;
    coax_error err;
    CHECK(coax_schema_compile(parse(a, "{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}"), NULL, NULL, &s, &err) == COAX_OK);
    coax_arena_free(a); /* the compiled schema keeps its own copy */
    int invalid = 0;
    for (int i = 0; i < 100; i++) {
        coax_arena *va = coax_arena_new(NULL);
        char text[64];
        snprintf(text, sizeof text, "[1, %s]", i % 2 ? "2" : "\"x\"");
        coax_validation r;
        CHECK(coax_validate(s, parse(va, text), va, 0, &r, &err) == COAX_OK);
        invalid += !r.valid;
        coax_arena_free(va);
    }
    CHECK_INT(invalid, 50);
    CHECK_INT(coax_schema_draft(s), COAX_DRAFT_2020_12);
    coax_schema_free(s);
    coax_schema_free(NULL);
    CHECK(coax_schema_compile(NULL, NULL, NULL, &s, &err) == COAX_EINVAL);
}

/* Every byte of every embedded meta-schema, replaced in turn, must compile
** or fail cleanly, and validate itself without crashing. */
static void test_mutated_schemas_never_crash(void)
{
    static const char *const docs[] = {
        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://e.com/a\","
        "\"$defs\":{\"n\":{\"$dynamicAnchor\":\"x\",\"type\":[\"string\",\"null\"]}},"
        "\"properties\":{\"a\":{\"$dynamicRef\":\"#x\"},\"b\":{\"$ref\":\"#/$defs/n\"}},"
        "\"patternProperties\":{\"^p\":{\"minimum\":1}},\"unevaluatedProperties\":false,"
        "\"if\":{\"required\":[\"a\"]},\"then\":{\"maxProperties\":3},\"else\":{\"minProperties\":1}}",
        "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"a\":{\"$id\":\"#foo\","
        "\"items\":[{\"type\":\"integer\"}],\"additionalItems\":false}},\"dependencies\":{\"a\":[\"b\"],"
        "\"c\":{\"$ref\":\"#foo\"}},\"propertyNames\":{\"maxLength\":3},\"contains\":{\"const\":1}}",
    };
    const char *inst = "{\"a\":[1,2],\"b\":null,\"p1\":0,\"c\":[1],\"zzzz\":{}}";
    const char repl[] = {'"', '{', '}', '[', ']', ',', ':', '#', '/', 'x', '0', '1', ' '};
    long compiled = 0;
    for (size_t d = 0; d < sizeof docs / sizeof *docs; d++) {
        size_t len = strlen(docs[d]);
        char *buf = malloc(len + 1);
        for (size_t i = 0; i < len; i++) {
            for (size_t k = 0; k < sizeof repl; k++) {
                memcpy(buf, docs[d], len + 1);
                buf[i] = repl[k];
                coax_arena *a = coax_arena_new(NULL);
                coax_value *sv, *iv;
                coax_error err;
                if (coax_parse(a, buf, len, NULL, &sv, &err) == COAX_OK &&
                    coax_parse(a, inst, strlen(inst), NULL, &iv, &err) == COAX_OK) {
                    coax_schema_options o;
                    memset(&o, 0, sizeof o);
                    o.flags = (i + k) % 2 ? COAX_SCHEMA_NO_META : 0; /* unchecked schemas too */
                    coax_schema *s;
                    if (coax_schema_compile(sv, &o, NULL, &s, &err) == COAX_OK) {
                        coax_validation r;
                        coax_code rc = coax_validate(s, iv, a, 0, &r, &err);
                        CHECK(rc == COAX_OK || rc == COAX_ELIMIT);
                        rc = coax_validate(s, sv, a, 0, &r, &err);
                        CHECK(rc == COAX_OK || rc == COAX_ELIMIT);
                        coax_schema_free(s);
                        compiled++;
                    }
                }
                coax_arena_free(a);
            }
        }
        free(buf);
    }
    CHECK(compiled > 1000);
}

static void test_unique_items_on_large_arrays(void)
{
    static char big[200000];
    size_t n = 0;
    big[n++] = '[';
    for (int i = 0; i < 20000; i++) n += (size_t)snprintf(big + n, sizeof big - n, "%d,", i);
    n += (size_t)snprintf(big + n, sizeof big - n, "{\"a\":1,\"b\":[2]},{\"b\":[2.0],\"a\":1e0},7.0]");
    CHECK_STR(run("{\"uniqueItems\":true}", big),
              INVALID(U("", "/uniqueItems", "expected unique items, items 20000 and 20001 are equal")));
    big[n - 5] = ']'; /* drop the trailing 7.0 */
    big[n - 4] = '\0';
    CHECK_STR(run("{\"uniqueItems\":true}", big),
              INVALID(U("", "/uniqueItems", "expected unique items, items 20000 and 20001 are equal")));
    CHECK_STR(run("{\"uniqueItems\":true}", "[[1,2],[2,1],{\"a\":[]},{\"a\":{}},\"1\",1,true,null,0,false]"), "{\"valid\":true}");
}

/* Compilation and validation fail cleanly, leaking nothing, whichever
** allocation fails. */
static void test_allocation_failure_at_every_step(void)
{
    const char *schema = "{\"$id\":\"https://e.com/s\",\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/a\"}},"
                         "\"patternProperties\":{\"^x\":{\"type\":\"string\"}},\"required\":[\"b\"],"
                         "\"unevaluatedProperties\":false,\"$defs\":{\"a\":{\"anyOf\":[{\"type\":\"integer\"},{\"minLength\":3}]}}}";
    const char *inst = "{\"a\":\"x\",\"xy\":1,\"z\":[1,2,3]}";
    int ok_at = 0;
    for (long n = 1; n < 100000; n++) {
        counting c = {0, 0, n};
        coax_allocator al = {c_malloc, c_realloc, c_free, &c};
        coax_arena *a = coax_arena_new(&al);
        coax_code rc = COAX_ENOMEM;
        coax_value *sv, *iv;
        coax_error err;
        coax_schema *s = NULL;
        if (a && coax_parse(a, schema, strlen(schema), NULL, &sv, &err) == COAX_OK &&
            coax_parse(a, inst, strlen(inst), NULL, &iv, &err) == COAX_OK) {
            /* through a meta-schema cache on odd steps: filling it fails too */
            coax_schema_options o = {0};
            o.meta_cache = n % 2 ? coax_meta_cache_new(&al) : NULL;
            rc = n % 2 && !o.meta_cache ? COAX_ENOMEM : coax_schema_compile(sv, &o, &al, &s, &err);
            if (rc != COAX_OK && rc != COAX_ENOMEM) printf("  at %ld: %s %s\n", n, coax_code_name(rc), err.msg);
            CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
            if (rc == COAX_OK) {
                coax_validation r;
                rc = coax_validate(s, iv, a, 0, &r, &err);
                CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
                if (rc == COAX_OK) {
                    CHECK(!r.valid);
                    CHECK_INT(r.nerrors, 6);
                }
                coax_schema_free(s);
            }
            coax_meta_cache_free(o.meta_cache);
        }
        coax_arena_free(a);
        CHECK_INT(c.live, 0);
        if (rc == COAX_OK && !ok_at) ok_at = (int)n;
        if (rc == COAX_OK && ok_at != n) break; /* with and without a cache */
    }
    CHECK(ok_at > 50);
}

/* 'n' $defs, each applying the next twice through allOf. */
static char *fanout(int n)
{
    char *t = malloc((size_t)n * 80 + 100);
    size_t k = (size_t)sprintf(t, "{\"$defs\":{");
    for (int i = 0; i < n; i++)
        k += (size_t)sprintf(t + k, "\"d%d\":{\"allOf\":[{\"$ref\":\"#/$defs/d%d\"},{\"$ref\":\"#/$defs/d%d\"}]},", i,
                             i + 1, i + 1);
    sprintf(t + k, "\"d%d\":{\"type\":\"integer\"}},\"$ref\":\"#/$defs/d0\"}", n);
    return t;
}

/* Every application is charged: {"type":"integer"} on 1 is two steps (the
** subschema, its keyword). In the 10-level fan-out, d_i costs its node and
** allOf (2), then per branch its node and $ref (2) (the reference-cycle
** check over the i + 1 references active on the value costs a step per 16):
** 8 * 2^10 - 4 in all. */
static void test_validation_steps_are_counted_and_bounded(void)
{
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.max_steps = 2;
    CHECK_STR(run_opt("{\"type\":\"integer\"}", "1", COAX_OUTPUT_BASIC, &o), "{\"valid\":true}");
    o.max_steps = 1;
    CHECK_STR(run_opt("{\"type\":\"integer\"}", "1", COAX_OUTPUT_BASIC, &o),
              "ERR COAX_ELIMIT validation used up its step budget of 1 steps (max_steps)");
    char *ten = fanout(10), *forty = fanout(40);
    o.max_steps = 8188;
    CHECK_STR(run_opt(ten, "1", COAX_OUTPUT_BASIC, &o), "{\"valid\":true}");
    o.max_steps = 8187;
    CHECK_STR(run_opt(ten, "1", COAX_OUTPUT_BASIC, &o),
              "ERR COAX_ELIMIT validation used up its step budget of 8187 steps (max_steps)");
    CHECK_STR(run(forty, "1"), "ERR COAX_ELIMIT validation used up its step budget of 1000000 steps (max_steps)");
    /* the example's checks draw on max_steps x 500 */
    coax_arena *a = coax_arena_new(NULL);
    coax_value *sv = parse(a, forty);
    coax_schema *s = NULL;
    coax_error err;
    CHECK_INT(coax_schema_compile(sv, NULL, NULL, &s, &err), COAX_OK);
    coax_example_options eo = {0, 10, 0};
    coax_example_result r;
    CHECK_INT(coax_example(s, &eo, a, &r, &err), COAX_ELIMIT);
    CHECK_STR(err.msg, "validation used up its step budget of 5000 steps (the example's max_steps x 500)");
    coax_schema_free(s);
    coax_arena_free(a);
    free(ten), free(forty);
}

/* Every match of one validation draws on one regex budget. */
static void test_regex_budget_of_a_validation(void)
{
    static char inst[120000];
    size_t n = 0;
    inst[n++] = '[';
    for (int i = 0; i < 4000; i++) n += (size_t)sprintf(inst + n, "%s\"aaaaaaaaaaaaaaaaaab\"", i ? "," : "");
    inst[n++] = ']';
    inst[n] = '\0';
    CHECK_STR(run("{\"items\":{\"pattern\":\"^(a+)+$\"}}", inst),
              "ERR COAX_ELIMIT validation used up its regex budget of 10000000 steps (max_regex_total)");
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.max_regex_total = 50;
    CHECK_STR(run_opt("{\"items\":{\"pattern\":\"^(a+)+$\"}}", "[\"aaaaaaaab\"]", COAX_OUTPUT_BASIC, &o),
              "ERR COAX_ELIMIT validation used up its regex budget of 50 steps (max_regex_total)");
    o.max_regex_total = 100000;
    CHECK_STR(run_opt("{\"items\":{\"pattern\":\"^(a+)+$\"}}", "[\"aaaaaaaa\"]", COAX_OUTPUT_BASIC, &o),
              "{\"valid\":true}");
}

/* ---- the meta-schema cache ---- */

/* Compiles 'schema' with 'opt' and 'cache'; "OK" or "CODE message". */
static const char *compile_says(const char *schema, unsigned flags, size_t max_depth, coax_meta_cache *cache,
                                const coax_allocator *al, char *buf, size_t cap)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_schema_options o = {0};
    o.flags = flags;
    o.max_depth = max_depth;
    o.meta_cache = cache;
    coax_schema *s = NULL;
    coax_error err;
    coax_code rc = coax_schema_compile(parse(a, schema), &o, al, &s, &err);
    snprintf(buf, cap, "%s %s", coax_code_name(rc), rc ? err.msg : "");
    coax_schema_free(s);
    coax_arena_free(a);
    return buf;
}

static const char *const META_CASES[] = {
    "{\"type\":\"integer\"}",
    "{\"type\":\"intger\"}",
    "{\"$id\":\"http://x.y/a b\"}", /* a URI reference only when formats assert */
    "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"minLength\":-1}",
    "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"$id\":\"http://x.y/a%zz\"}",
    "{\"$schema\":\"http://json-schema.org/draft-06/schema#\",\"type\":\"string\"}",
    "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"exclusiveMinimum\":3}",
    "{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$recursiveAnchor\":1}",
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}",
    "{\"$schema\":\"http://example.com/unknown\"}",
};

/* A cached meta-schema checks as one compiled for the check: the same code
** and message for each case, each draft and each "format" flag, when the
** cache is filled, when it hits, and past its eight slots (15 keys here,
** twice over). */
static void test_meta_cache_checks_as_a_fresh_meta_schema(void)
{
    static const unsigned flags[] = {0, COAX_SCHEMA_ASSERT_FORMAT, COAX_SCHEMA_ANNOTATE_FORMAT};
    coax_meta_cache *cache = coax_meta_cache_new(NULL);
    CHECK(cache != NULL);
    char want[512], got[512];
    size_t ncases = sizeof META_CASES / sizeof META_CASES[0];
    for (int round = 0; round < 2; round++)
        for (size_t f = 0; f < 3; f++)
            for (size_t i = 0; i < ncases; i++) {
                compile_says(META_CASES[i], flags[f], 0, NULL, NULL, want, sizeof want);
                compile_says(META_CASES[i], flags[f], 0, cache, NULL, got, sizeof got);
                CHECK_STR(got, want);
            }
    /* the flags are part of the key: asserting formats, the same cache refuses what it let pass */
    CHECK_STR(compile_says(META_CASES[2], 0, 0, cache, NULL, got, sizeof got), "COAX_OK ");
    CHECK_STR(compile_says(META_CASES[2], COAX_SCHEMA_ASSERT_FORMAT, 0, cache, NULL, got, sizeof got),
              "COAX_ESCHEMA invalid schema at \"/$id\": expected a URI reference (format \"uri-reference\"), got "
              "\"http://x.y/a b\" (1 error)");
    CHECK_STR(compile_says(META_CASES[2], 0, 0, cache, NULL, got, sizeof got), "COAX_OK ");
    coax_meta_cache_free(cache);
    coax_meta_cache_free(NULL);
}

/* A bound that also binds compiling the meta-schema (max_uri_bytes) gives
** the same answer whatever the cache holds: a cache filled with the
** defaults does not lift it. */
static void test_meta_cache_keeps_the_hosts_bounds(void)
{
    coax_meta_cache *cache = coax_meta_cache_new(NULL);
    coax_arena *a = coax_arena_new(NULL);
    const coax_value *sv = parse(a, "{\"type\":\"integer\"}");
    coax_schema_options warm = {0}, tight = {0};
    warm.meta_cache = cache;
    tight.meta_cache = cache;
    tight.max_uri_bytes = 400;
    coax_schema *s = NULL;
    coax_error err;
    for (int i = 0; i < 2; i++) { /* cold, then after a compilation with the defaults filled it */
        CHECK_INT(coax_schema_compile(sv, &tight, NULL, &s, &err), COAX_ELIMIT);
        CHECK_INT(coax_schema_compile(sv, &warm, NULL, &s, &err), COAX_OK);
        coax_schema_free(s);
    }
    tight.meta_cache = NULL;
    CHECK_INT(coax_schema_compile(sv, &tight, NULL, &s, &err), COAX_ELIMIT);
    coax_arena_free(a);
    coax_meta_cache_free(cache);
}

/* A cache compiles a meta-schema once: the second compilation of a schema
** allocates a fraction of the first. With a host's own max_depth the
** meta-schema is compiled for each check, as without a cache. Nothing
** leaks. */
static void test_meta_cache_compiles_a_meta_schema_once(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    coax_meta_cache *cache = coax_meta_cache_new(&al);
    char got[512];
    long calls[4];
    for (int i = 0; i < 4; i++) {
        long before = c.allocs;
        CHECK_STR(compile_says(META_CASES[0], 0, i < 2 ? 0 : 64, cache, &al, got, sizeof got), "COAX_OK ");
        calls[i] = c.allocs - before;
    }
    if (!(calls[1] * 4 < calls[0]) || !(calls[3] * 4 > calls[2] * 3))
        printf("  allocations: %ld, %ld cached; %ld, %ld with max_depth\n", calls[0], calls[1], calls[2], calls[3]);
    CHECK(calls[1] * 4 < calls[0]);
    CHECK(calls[3] * 4 > calls[2] * 3);
    coax_meta_cache_free(cache);
    CHECK_INT(c.live, 0);
}

#define TESTS                                                 \
    X(test_uri_references_resolve_as_rfc_3986_says)           \
    X(test_every_error_is_reported_with_its_locations)        \
    X(test_valid_instances_give_valid_true)                   \
    X(test_messages_name_expected_and_actual)                 \
    X(test_long_values_are_cut_in_messages)                   \
    X(test_anyof_keeps_branch_errors_only_when_all_fail)      \
    X(test_references_add_absolute_locations)                 \
    X(test_flag_and_detailed_outputs)                         \
    X(test_drafts_by_schema_and_by_host)                      \
    X(test_invalid_schemas_say_where)                         \
    X(test_reference_cycles_are_invalid_schemas)              \
    X(test_depth_limits)                                      \
    X(test_regex_steps_are_a_limit)                           \
    X(test_validation_steps_are_counted_and_bounded)          \
    X(test_regex_budget_of_a_validation)                      \
    X(test_big_numbers_are_exact)                             \
    X(test_host_resolver_and_remote_dir)                      \
    X(test_meta_schema_references_resolve_offline)            \
    X(test_meta_cache_checks_as_a_fresh_meta_schema)          \
    X(test_meta_cache_compiles_a_meta_schema_once)            \
    X(test_meta_cache_keeps_the_hosts_bounds)                 \
    X(test_one_schema_validates_many_times)                   \
    X(test_unique_items_on_large_arrays)                      \
    X(test_mutated_schemas_never_crash)                       \
    X(test_allocation_failure_at_every_step)
#include "test.h"
