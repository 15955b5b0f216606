/* "format": each checker on the cases its RFC decides (beyond the suite's),
** when formats assert (drafts 4-7, the format-assertion vocabulary, the
** host's flags) and when they only annotate, the error a model is shown,
** draft 7's content keywords, and long or odd strings. */
#include "coax.h"
#include "schema/format.h"

#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static int fc(const char *name, const char *s)
{
    return coax_format_check(coax_format_find(name, strlen(name)), s, strlen(s), NULL);
}

static void test_each_format_follows_its_rfc(void)
{
    static const struct {
        const char *f, *s;
        int want;
    } cases[] = {
        {"date-time", "2024-02-29T23:59:60Z", 1}, {"date-time", "2023-02-29T10:00:00Z", 0},
        {"date-time", "2024-01-01T00:00:00.5+05:30", 1}, {"date-time", "2024-01-01 00:00:00Z", 0},
        {"date", "2000-02-29", 1}, {"date", "1900-02-29", 0}, {"time", "23:59:60-00:00", 1},
        {"time", "12:00:00", 0}, {"duration", "P1Y2M3DT4H5M6S", 1}, {"duration", "PT", 0},
        {"duration", "P1W", 1}, {"duration", "P1M1W", 0}, {"duration", "PT1H1S", 0},
        {"email", "a.b+c@example.com", 1}, {"email", "a@b@example.com", 0},
        {"email", "\"a b\"@example.com", 1}, {"email", "a@[IPv6:::1]", 1}, {"email", "é@example.com", 0},
        {"idn-email", "é@exämple.com", 1}, {"idn-email", "a@-x.com", 0},
        {"hostname", "xn--bcher-kva.example", 1}, {"hostname", "xn--bcher-kv.example", 0},
        {"hostname", "ab--cd.example", 0}, {"hostname", "a_b.example", 0},
        {"idn-hostname", "bücher.example", 1}, {"idn-hostname", "bücher..example", 0},
        {"ipv4", "255.255.255.255", 1}, {"ipv4", "01.2.3.4", 0}, {"ipv6", "::ffff:1.2.3.4", 1},
        {"ipv6", "1::2::3", 0}, {"uri", "https://example.com:8080/a?b#c", 1}, {"uri", "/relative", 0},
        {"uri-reference", "../a/b?c", 1}, {"uri-reference", "a b", 0}, {"iri", "https://例え.jp/パス", 1},
        {"iri-reference", "//例え.jp", 1}, {"uuid", "123e4567-e89b-12d3-a456-426614174000", 1},
        {"uuid", "123e4567e89b12d3a456426614174000", 0}, {"uri-template", "/users/{id}{?q,page}", 1},
        {"uri-template", "/users/{id", 0}, {"json-pointer", "/a~1b/~0", 1}, {"json-pointer", "a", 0},
        {"relative-json-pointer", "2/a", 1}, {"relative-json-pointer", "02/a", 0},
        {"regex", "^(?<y>\\d{4})$", 1}, {"regex", "(?P<y>x)", 0}, {"no-such-format", "anything", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = fc(cases[i].f, cases[i].s);
        if (got != cases[i].want) printf("  %s \"%s\": got %d\n", cases[i].f, cases[i].s, got);
        CHECK_INT(got, cases[i].want);
    }
    CHECK_STR(coax_format_describe(FMT_DATE), "an RFC 3339 full-date");
}

static char out[8192];

static const char *run(const char *schema, const char *inst, unsigned flags)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_value *sv, *iv;
    coax_error err;
    coax_schema *s = NULL;
    coax_schema_options o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    coax_code rc = coax_parse(a, schema, strlen(schema), NULL, &sv, &err);
    if (!rc) rc = coax_parse(a, inst, strlen(inst), NULL, &iv, &err);
    if (!rc) rc = coax_schema_compile(sv, &o, NULL, &s, &err);
    if (!rc) {
        coax_validation r;
        rc = coax_validate(s, iv, a, 0, &r, &err);
        char *t;
        size_t len;
        if (!rc && coax_validation_write(&r, COAX_OUTPUT_BASIC, NULL, &t, &len) == COAX_OK) {
            snprintf(out, sizeof out, "%s", t);
            coax_free(NULL, t, len + 1);
        }
    }
    if (rc) snprintf(out, sizeof out, "ERR %s %s", coax_code_name(rc), err.msg);
    coax_schema_free(s);
    coax_arena_free(a);
    return out;
}

#define D7 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"format\":\"date\"}"
#define D2020 "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"format\":\"date\"}"
#define BAD_DATE_ERR                                                                                 \
    "{\"valid\":false,\"errors\":[{\"instanceLocation\":\"\",\"keywordLocation\":\"/format\",\"error\":" \
    "\"expected an RFC 3339 full-date (format \\\"date\\\"), got \\\"2024-02-30\\\"\"}]}"

static void test_formats_assert_where_the_draft_says(void)
{
    CHECK_STR(run(D7, "\"2024-02-30\"", 0), BAD_DATE_ERR);
    CHECK_STR(run(D7, "\"2024-02-29\"", 0), "{\"valid\":true}");
    CHECK_STR(run(D7, "\"2024-02-30\"", COAX_SCHEMA_ANNOTATE_FORMAT), "{\"valid\":true}");
    CHECK_STR(run(D2020, "\"2024-02-30\"", 0), "{\"valid\":true}");
    CHECK_STR(run(D2020, "\"2024-02-30\"", COAX_SCHEMA_ASSERT_FORMAT), BAD_DATE_ERR);
    CHECK_STR(run(D2020, "20240230", COAX_SCHEMA_ASSERT_FORMAT), "{\"valid\":true}"); /* strings only */
    CHECK_STR(run("{\"format\":\"made-up\"}", "\"x\"", COAX_SCHEMA_ASSERT_FORMAT), "{\"valid\":true}");
    /* draft 4 and 6 host names are RFC 1123's */
    CHECK_STR(run("{\"$schema\":\"http://json-schema.org/draft-06/schema#\",\"format\":\"hostname\"}", "\"ab--cd.example\"", 0),
              "{\"valid\":true}");
    /* a draft-7 schema whose pattern is not ECMA-262 fails its meta-schema's format: regex */
    CHECK_STR(run("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"pattern\":\"(?i)a\"}", "1", 0),
              "ERR COAX_ESCHEMA invalid schema at \"/pattern\": expected an ECMA-262 regular expression (format \"regex\"), got \"(?i)a\" (1 error)");
}

static void test_draft7_content_keywords(void)
{
    const char *s = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"contentEncoding\":\"base64\","
                    "\"contentMediaType\":\"application/json\"}";
    CHECK_STR(run(s, "\"eyJhIjogMX0=\"", 0), "{\"valid\":true}");
    CHECK_STR(run(s, "\"e30\"", 0),
              "{\"valid\":false,\"errors\":[{\"instanceLocation\":\"\",\"keywordLocation\":\"/contentEncoding\","
              "\"error\":\"expected base64-encoded text (contentEncoding \\\"base64\\\"), got \\\"e30\\\"\"}]}");
    CHECK_STR(run(s, "\"ezp9\"", COAX_SCHEMA_ANNOTATE_FORMAT), "{\"valid\":true}");
    CHECK_STR(run("{\"contentEncoding\":\"base64\"}", "\"%%%%\"", 0), "{\"valid\":true}"); /* 2020-12: annotation */
}

static char *repeat(char *out, const char *unit, size_t times, const char *tail)
{
    out[0] = '\0';
    for (size_t i = 0; i < times; i++) strcat(out, unit);
    return strcat(out, tail);
}

/* Each format and its internationalized twin apply the same limits to what
** they share (issue 17, item 12): the 64 octets of a mail local part, the
** 63 of a label (on its A-label when not ASCII), the 253 of a domain; and
** on ASCII text the twins give the same answer. */
static void test_twin_formats_apply_the_same_limits(void)
{
    char buf[1024], buf2[1024];
    static const char *const mails[] = {"email", "idn-email"};
    for (int m = 0; m < 2; m++) {
        const char *f = mails[m];
        CHECK_INT(fc(f, repeat(buf, "a", 64, "@example.com")), 1);
        CHECK_INT(fc(f, repeat(buf, "a", 65, "@example.com")), 0);
        CHECK_INT(fc(f, repeat(buf, "a.", 32, "b@example.com")), 0);     /* 65 octets with dots */
        CHECK_INT(fc(f, repeat(buf, "a", 62, "\"@example.com")), 0);     /* unbalanced quote */
        snprintf(buf2, sizeof buf2, "\"%s\"@example.com", repeat(buf, "a", 62, "")); /* 64 with the quotes */
        CHECK_INT(fc(f, buf2), 1);
        snprintf(buf2, sizeof buf2, "\"%s\"@example.com", repeat(buf, "a", 63, ""));
        CHECK_INT(fc(f, buf2), 0);
        CHECK_INT(fc(f, "@example.com"), 0);
        snprintf(buf2, sizeof buf2, "a@%s.com", repeat(buf, "x", 63, ""));
        CHECK_INT(fc(f, buf2), 1);
        snprintf(buf2, sizeof buf2, "a@%s.com", repeat(buf, "x", 64, ""));
        CHECK_INT(fc(f, buf2), 0);
        snprintf(buf2, sizeof buf2, "a@%sx", repeat(buf, "abcdefgh.", 28, "")); /* 253 */
        CHECK_INT(fc(f, buf2), 1);
        snprintf(buf2, sizeof buf2, "a@%sxy", repeat(buf, "abcdefgh.", 28, "")); /* 254 */
        CHECK_INT(fc(f, buf2), 0);
        CHECK_INT(fc(f, "a@xn--zz.com"), 0); /* not a valid A-label */
        CHECK_INT(fc(f, "a@xn--exmple-cua.com"), 1);
        CHECK_INT(fc(f, "a@-x.com"), 0);
        CHECK_INT(fc(f, "a@x-.com"), 0);
    }
    /* non-ASCII: 32 two-octet letters are 64 octets, 33 are 66 */
    CHECK_INT(fc("idn-email", repeat(buf, "\xC3\xA9", 32, "@example.com")), 1);
    CHECK_INT(fc("idn-email", repeat(buf, "\xC3\xA9", 33, "@example.com")), 0);
    CHECK_INT(fc("idn-email", repeat(buf, "a", 63, "\xC3\xA9@example.com")), 0);
    /* a non-ASCII label whose A-label is 63 octets, and one of 64: "a"*k + "é"
    ** encodes as "xn--" + k a's + "-" + 3 digits */
    snprintf(buf2, sizeof buf2, "a@%s.com", repeat(buf, "a", 55, "\xC3\xA9"));
    CHECK_INT(fc("idn-email", buf2), 1);
    snprintf(buf2, sizeof buf2, "a@%s.com", repeat(buf, "a", 56, "\xC3\xA9"));
    CHECK_INT(fc("idn-email", buf2), 0);
    CHECK_INT(fc("idn-hostname", repeat(buf, "a", 55, "\xC3\xA9.com")), 1);
    CHECK_INT(fc("idn-hostname", repeat(buf, "a", 56, "\xC3\xA9.com")), 0);
    /* host names: the same label and domain limits in both */
    static const char *const hosts[] = {"hostname", "idn-hostname"};
    for (int h = 0; h < 2; h++) {
        CHECK_INT(fc(hosts[h], repeat(buf, "x", 63, ".com")), 1);
        CHECK_INT(fc(hosts[h], repeat(buf, "x", 64, ".com")), 0);
        CHECK_INT(fc(hosts[h], repeat(buf, "abcdefgh.", 28, "x")), 1);
        CHECK_INT(fc(hosts[h], repeat(buf, "abcdefgh.", 28, "xy")), 0);
        CHECK_INT(fc(hosts[h], "xn--zz.com"), 0);
        CHECK_INT(fc(hosts[h], "-x.com"), 0);
    }
    /* ASCII text: each twin answers as the other */
    static const char *const twins[][2] = {
        {"email", "idn-email"}, {"hostname", "idn-hostname"}, {"uri", "iri"}, {"uri-reference", "iri-reference"}};
    static const char *const samples[] = {
        "a@b.co", "a..b@c.com", "\"q\\\"x\"@e.org", "a@[127.0.0.1]", "a@[IPv6:::1]", "a@[1.2.3]", "x@y",
        "http://a.b/c?d#e", "http://[::1]:80/", "http://[v1.x]/", "http://a b/", "//host/p", "a:b", "%zz",
        "http://u@h:8x/", "mailto:a@b", "example.com", "ex..com", "a-.b", "1.2.3.4", "xn--exmple-cua.com",
        "http://h/%41", "urn:isbn:0451450523", "/a/b", "?q", "#f", ""};
    for (size_t t = 0; t < sizeof twins / sizeof *twins; t++)
        for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
            int a = fc(twins[t][0], samples[i]), b = fc(twins[t][1], samples[i]);
            if (a != b) printf("  %s and %s differ on \"%s\": %d, %d\n", twins[t][0], twins[t][1], samples[i], a, b);
            CHECK_INT(a, b);
        }
}

/* Long, odd and hostile strings: an answer for each, no crash. */
static void test_odd_strings_get_an_answer(void)
{
    static const char *const names[] = {"date-time", "date", "time", "duration", "email", "idn-email",
                                        "hostname", "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference",
                                        "iri", "iri-reference", "uuid", "uri-template", "json-pointer",
                                        "relative-json-pointer", "regex"};
    size_t n = 1 << 20;
    char *big = malloc(n + 1);
    int valid = 0;
    for (int fill = 0; fill < 4; fill++) {
        static const char fills[] = "a.-/";
        memset(big, fills[fill], n);
        big[n] = '\0';
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            int r = coax_format_check(coax_format_find(names[i], strlen(names[i])), big, n, NULL);
            CHECK(r == 0 || r == 1);
            valid += r == 1;
        }
    }
    /* a megabyte of any of them is a URI and an IRI reference (a relative
    ** path), a URI template and a regex; of '/' a JSON Pointer too. Too
    ** long for a host name, not a date. */
    CHECK_INT(valid, 17);
    free(big);
    CHECK_INT(coax_format_check(FMT_HOSTNAME, "a\0b", 3, NULL), 0);
    CHECK_INT(coax_format_check(FMT_EMAIL, "a@b\0.com", 8, NULL), 0);
    CHECK_INT(coax_format_check(FMT_IDN_HOSTNAME, "\xe3\x80\x82", 3, NULL), 0);
    CHECK_INT(coax_format_check(FMT_HOSTNAME, "xn--", 4, NULL), 0);
    CHECK_INT(coax_format_check(FMT_HOSTNAME, "xn--zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", 63, NULL), 0);
}

#define TESTS                                        \
    X(test_each_format_follows_its_rfc)              \
    X(test_formats_assert_where_the_draft_says)      \
    X(test_draft7_content_keywords)                  \
    X(test_odd_strings_get_an_answer)                \
    X(test_twin_formats_apply_the_same_limits)
#include "test.h"
