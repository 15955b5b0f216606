/* The JSON value model through the public API: strict parsing, writing,
** equality, JSON Pointer, and allocation failure at every step. */
#include "coax.h"

#include <stdbool.h>
#include <stdlib.h>

#include "base/core.h" /* coax_buf_put_json_string, against the reference below */
#include "counting.h"
#include "test.h"


static char *roundtrip(const char *text, unsigned flags)
{
    static char out[4096];
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    coax_error err;
    out[0] = '\0';
    if (coax_parse(a, text, strlen(text), NULL, &v, &err) == COAX_OK) {
        char *s;
        size_t n;
        if (coax_write(v, flags, NULL, &s, &n) == COAX_OK) {
            snprintf(out, sizeof out, "%s", s);
            coax_free(NULL, s, n + 1);
        }
    } else {
        snprintf(out, sizeof out, "ERR %s %u:%u %s", coax_code_name(err.code), err.line, err.column, err.msg);
    }
    coax_arena_free(a);
    return out;
}

static void test_numbers_keep_their_text(void)
{
    CHECK_STR(roundtrip("[12345678901234567890, 1.10, -0, 1E+2, 0.000001]", 0),
              "[12345678901234567890,1.10,-0,1E+2,0.000001]");
}

static void test_strings_are_decoded_and_escaped_minimally(void)
{
    CHECK_STR(roundtrip("\"a\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\\u0001\"", 0), "\"aé😀\\n\\t\\\"\\\\/\\u0001\"");
}

/* The escaping of strings, byte by byte as the contract says: '"', '\\'
** and control bytes escaped (\b \t \n \f \r or \u00XX), valid UTF-8
** copied, and each byte that begins no valid sequence written as U+FFFD. */
static void reference_escape(coax_buf *b, const char *s, size_t len)
{
    coax_buf_putc(b, '"');
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        size_t n = c >= 0x80 ? coax_utf8_decode((const unsigned char *)s + i, len - i, &cp) : 1;
        if (c >= 0x80) coax_buf_put(b, n ? s + i : "\xef\xbf\xbd", n ? n : 3);
        else if (c == '"' || c == '\\') coax_buf_put(b, c == '"' ? "\\\"" : "\\\\", 2);
        else if (c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r') {
            char e[2] = {'\\', "btn?fr"[c - '\b']};
            coax_buf_put(b, e, 2);
        } else if (c < 0x20) coax_buf_printf(b, "\\u%04x", c);
        else coax_buf_putc(b, (char)c);
        i += n ? n : 1;
    }
    coax_buf_putc(b, '"');
}

/* Long strings are escaped a piece at a time (json/write.c): texts up to
** 20,000 bytes of plain runs, quotes, controls, valid and cut UTF-8, so
** escapes and sequences fall on every side of a piece's end. */
static void test_strings_escape_as_the_reference_does_at_any_length(void)
{
    static const char *const parts[] = {"a", "\"", "\\", "\n", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
                                        "\xf0\x9f\x98\x80", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "abcdefghijklmnopq"};
    static char s[20000];
    uint64_t seed = 0x9e3779b97f4a7c15u;
    int mismatches = 0;
    for (int t = 0; t < 3000; t++) {
        size_t len = 0, want = t % 10 == 0 ? 4000 + (size_t)t * 5 : (size_t)t % 97;
        while (len + 17 < want) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            const char *p = parts[seed % (sizeof parts / sizeof *parts)];
            memcpy(s + len, p, strlen(p));
            len += strlen(p);
        }
        coax_buf got, want_b;
        coax_buf_init(&got, NULL);
        coax_buf_init(&want_b, NULL);
        coax_buf_put(&got, "x", 1); /* not at the buffer's start */
        coax_buf_put(&want_b, "x", 1);
        coax_buf_put_json_string(&got, s, len);
        reference_escape(&want_b, s, len);
        if (got.len != want_b.len || memcmp(got.data, want_b.data, got.len)) mismatches++;
        coax_buf_free(&got);
        coax_buf_free(&want_b);
    }
    CHECK_INT(mismatches, 0);
    /* a sequence across a piece's end (256 and 4,096 bytes in) */
    for (size_t at = 255; at <= 4095; at += 3840) {
        memset(s, 'a', at);
        memcpy(s + at, "\xe2\x82\xac\x01", 4);
        coax_buf b;
        coax_buf_init(&b, NULL);
        coax_buf_put_json_string(&b, s, at + 4);
        CHECK_INT(b.len, 1 + at + 3 + 6 + 1);
        CHECK(b.len == at + 11 && !memcmp(b.data + 1 + at, "\xe2\x82\xac\\u0001\"", 10));
        coax_buf_free(&b);
    }
    /* what a buffer holds beyond its text: at most a piece's worst case */
    memset(s, 'a', 16384);
    coax_buf b;
    coax_buf_init(&b, NULL);
    coax_buf_put_json_string(&b, s, 16384);
    CHECK(b.cap <= 2 * (16384 + 2 + 6 * 256 + 34));
    coax_buf_free(&b);
}

/* Strings under 16 bytes, and the tails of longer ones, go a word at a
** time (json/write.c): one of these bytes at every place of texts of 0 to
** 24 bytes, or two up to a word apart, each text in an allocation of exactly its size, so a read
** past its end is a sanitizer's error. */
static void test_short_strings_escape_as_the_reference_does_byte_by_byte(void)
{
    static const unsigned char odd[] = {0x00, 0x01, 0x08, 0x1f, 0x20, 0x21, '"', '\\', '/', 0x7f,
                                        0x80, 0xa9, 0xc3, 0xe2, 0xff, 'a'};
    int mismatches = 0, cases = 0;
    for (size_t len = 0; len <= 24; len++) {
        for (size_t i = 0; i < len || (len == 0 && i == 0); i++) {
            for (size_t j = i; j <= i + 8 && (j < len || (len == 0 && j == 0)); j++) { /* a word apart at most */
                for (size_t a = 0; a < sizeof odd; a++) {
                    for (size_t c = 0; c < (j == i ? 1 : sizeof odd); c++) {
                        char *s = malloc(len ? len : 1);
                        memset(s, 'k', len);
                        if (len) s[i] = (char)odd[a], s[j] = (char)odd[j == i ? a : c];
                        coax_buf got, want;
                        coax_buf_init(&got, NULL);
                        coax_buf_init(&want, NULL);
                        coax_buf_put_json_string(&got, s, len);
                        reference_escape(&want, s, len);
                        mismatches += got.len != want.len || memcmp(got.data, want.data, got.len);
                        cases++;
                        coax_buf_free(&got);
                        coax_buf_free(&want);
                        free(s);
                    }
                }
            }
        }
    }
    CHECK_INT(mismatches, 0);
    CHECK_INT(cases, 16 + 16 * 300 + 256 * 1620); /* 1,620 pairs of places up to 8 apart */
}

static void test_objects_keep_order_and_last_duplicate_wins(void)
{
    CHECK_STR(roundtrip("{\"b\":1,\"a\":2,\"b\":3}", 0), "{\"b\":3,\"a\":2}");
    /* more than 16 members: the hashed path */
    CHECK_STR(roundtrip("{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,"
                        "\"k9\":9,\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,"
                        "\"k16\":16,\"k0\":17}", 0),
              "{\"k0\":17,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,"
              "\"k9\":9,\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k16\":16}");
}

static void test_pretty_output(void)
{
    CHECK_STR(roundtrip("{\"a\":[1,{}],\"b\":[]}", COAX_WRITE_PRETTY),
              "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}");
}

static void test_strict_errors_have_positions(void)
{
    CHECK_STR(roundtrip("{\"a\":1,}", 0), "ERR COAX_ESYNTAX 1:8 expected a string key");
    CHECK_STR(roundtrip("[1,\n 2 3]", 0), "ERR COAX_ESYNTAX 2:4 expected ',' or ']'");
    CHECK_STR(roundtrip("\"\xff\"", 0), "ERR COAX_EUTF8 1:2 invalid UTF-8 in string");
    CHECK_STR(roundtrip("\"\\ud800\"", 0), "ERR COAX_EUTF8 1:2 unpaired UTF-16 surrogate in \\u escape");
    CHECK_STR(roundtrip("01", 0), "ERR COAX_ESYNTAX 1:1 expected a JSON value");
    CHECK_STR(roundtrip("", 0), "ERR COAX_ESYNTAX 1:1 unexpected end of input, expected a JSON value");
    CHECK_STR(roundtrip("[1] x", 0), "ERR COAX_ESYNTAX 1:5 expected end of input after the value");
}

static void test_depth_limit_is_clean(void)
{
    size_t n = 1000000;
    char *deep = malloc(n);
    memset(deep, '[', n);
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    coax_error err;
    CHECK_INT(coax_parse(a, deep, n, NULL, &v, &err), COAX_EDEPTH);
    CHECK_INT(err.offset, 512);
    coax_limits lim = {.max_depth = 3};
    CHECK_INT(coax_parse(a, "[[[1]]]", 7, &lim, &v, &err), COAX_OK);
    CHECK_INT(coax_parse(a, "[[[[1]]]]", 9, &lim, &v, &err), COAX_EDEPTH);
    coax_arena_free(a);
    free(deep);
}

static void test_equality_is_by_value(void)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_value *x, *y;
    const char *pairs[][3] = {
        {"1", "1.0", "1"},           {"100", "1e2", "1"},     {"0.1", "1e-1", "1"},
        {"-0", "0", "1"},            {"12345678901234567890", "12345678901234567891", "0"},
        {"{\"a\":1,\"b\":[1,2]}", "{\"b\":[1,2.0],\"a\":1}", "1"},
        {"[1,2]", "[2,1]", "0"},     {"{\"a\":1}", "{\"a\":1,\"b\":2}", "0"},
        {"\"a\"", "\"a\"", "1"},     {"null", "false", "0"},
        /* regression: the point was placed before all integer digits were seen */
        {"0.01", "1e-2", "1"},       {"-1.5", "-15e-1", "1"},  {"2", "10", "0"},
        {"1200", "12e2", "1"},       {"12.50", "1.25e1", "1"}, {"9.99", "10", "0"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        bool ok = coax_parse(a, pairs[i][0], strlen(pairs[i][0]), NULL, &x, NULL) == COAX_OK &&
                  coax_parse(a, pairs[i][1], strlen(pairs[i][1]), NULL, &y, NULL) == COAX_OK;
        CHECK(ok);
        if (ok) CHECK_INT(coax_value_equal(x, y, NULL), pairs[i][2][0] - '0');
    }
    /* 100 levels: deeper than equality's on-stack frames */
    char deep1[256], deep2[256];
    memset(deep1, '[', 100);
    memset(deep2, '[', 100);
    memcpy(deep1 + 100, "1", 1);
    memcpy(deep2 + 100, "1.0", 3);
    memset(deep1 + 101, ']', 100);
    memset(deep2 + 103, ']', 100);
    CHECK_INT(coax_parse(a, deep1, 201, NULL, &x, NULL), COAX_OK);
    CHECK_INT(coax_parse(a, deep2, 203, NULL, &y, NULL), COAX_OK);
    CHECK_INT(coax_value_equal(x, y, NULL), 1);
    coax_arena_free(a);
}

static void test_json_pointer(void)
{
    const char *doc = "{\"a/b\":{\"m~n\":[10,20]},\"\":5}";
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    const coax_value *out;
    CHECK_INT(coax_parse(a, doc, strlen(doc), NULL, &v, NULL), COAX_OK);
    CHECK_INT(coax_pointer_get(v, "/a~1b/m~0n/1", 12, &out), COAX_OK);
    CHECK_STR(coax_value_text(out, NULL), "20");
    CHECK_INT(coax_pointer_get(v, "/", 1, &out), COAX_OK);
    CHECK_STR(coax_value_text(out, NULL), "5");
    CHECK_INT(coax_pointer_get(v, "", 0, &out), COAX_OK);
    CHECK(out == v);
    CHECK_INT(coax_pointer_get(v, "/a~1b/m~0n/01", 13, &out), COAX_ENOTFOUND);
    CHECK_INT(coax_pointer_get(v, "/a~1b/m~0n/2", 12, &out), COAX_ENOTFOUND);
    CHECK_INT(coax_pointer_get(v, "/a~1b/m~0n/-", 12, &out), COAX_ENOTFOUND);
    CHECK_INT(coax_pointer_get(v, "a", 1, &out), COAX_EINVAL);
    CHECK_INT(coax_pointer_get(v, "/a~2", 4, &out), COAX_EINVAL);
    coax_arena_free(a);
}

static void test_every_allocation_goes_through_the_allocator(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    const char *doc = "{\"a\":[1,2,{\"b\":\"c\"}],\"d\":\"\\u00e9\"}";
    coax_arena *a = coax_arena_new(&al);
    coax_value *v;
    CHECK_INT(coax_parse(a, doc, strlen(doc), NULL, &v, NULL), COAX_OK);
    char *s;
    size_t n;
    CHECK_INT(coax_write(v, 0, &al, &s, &n), COAX_OK);
    coax_free(&al, s, n + 1);
    CHECK(coax_arena_size(a) > 0);
    coax_arena_free(a);
    CHECK_INT(c.live, 0);
}

/* curl's torture idea: fail the N-th allocation for every N. */
static void test_allocation_failure_at_every_step(void)
{
    const char *reply = "Here:\n```json\n{'a': [1, 2,], b: \"x\", \"a\": True, \"s\": \"\\ud800\"}\n```";
    for (long n = 1;; n++) {
        counting c = {0, 0, n};
        coax_allocator al = {c_malloc, c_realloc, c_free, &c};
        coax_arena *a = coax_arena_new(&al);
        coax_code rc = COAX_ENOMEM;
        if (a) {
            coax_repair_result r;
            coax_error err;
            rc = coax_repair(a, reply, strlen(reply), NULL, &r, &err);
            if (rc == COAX_OK) {
                char *s;
                size_t len;
                rc = coax_write(r.value, 0, &al, &s, &len);
                if (rc == COAX_OK) {
                    CHECK_STR(s, "{\"a\":true,\"b\":\"x\",\"s\":\"\xef\xbf\xbd\"}");
                    coax_free(&al, s, len + 1);
                }
            }
            coax_arena_free(a);
        }
        CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
        CHECK_INT(c.live, 0);
        if (rc == COAX_OK && c.allocs < n) break; /* no allocation left to fail */
        if (n > 10000) {
            CHECK(!"torture did not converge");
            break;
        }
    }
}

static void test_strerror_names_every_code(void)
{
    for (int c = 0; c < COAX_CODE_COUNT; c++) {
        CHECK(strcmp(coax_strerror((coax_code)c), "unknown error code") != 0);
        CHECK(strncmp(coax_code_name((coax_code)c), "COAX_", 5) == 0);
    }
    CHECK_STR(coax_strerror((coax_code)999), "unknown error code");
    CHECK_INT(coax_exit_status(COAX_EDEPTH), 4);
    CHECK_INT(coax_exit_status(COAX_ENOJSON), 1);
}

/* A member or item that is not there reads as an absent value: chained
** reads of one never crash (attack finding 12: each of these was a NULL
** dereference). */
static void test_reads_of_an_absent_value_chain(void)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    CHECK_INT(coax_parse(a, "{\"a\": [1]}", 10, NULL, &v, NULL), COAX_OK);
    const coax_value *missing = coax_object_get(v, "tags", 4);
    CHECK(missing == NULL);
    CHECK_INT(coax_value_type(missing), COAX_NULL);
    CHECK_INT(coax_value_len(missing), 0);
    size_t len = 7;
    CHECK(coax_value_text(missing, &len) == NULL);
    CHECK_INT(len, 7);
    CHECK_INT(coax_value_bool(missing), 0);
    CHECK_INT(coax_number_is_int_text(missing), 0);
    CHECK(coax_value_double(missing) == 0.0);
    CHECK(coax_array_get(missing, 0) == NULL);
    CHECK(coax_object_key(missing, 0, &len) == NULL);
    CHECK(coax_object_value(missing, 0) == NULL);
    CHECK(coax_object_get(missing, "x", 1) == NULL);
    CHECK(coax_object_get(v, NULL, 3) == NULL);
    CHECK(coax_array_get(coax_object_get(v, "a", 1), 0) != NULL);
    CHECK(coax_array_get(coax_object_get(v, "b", 1), 0) == NULL);
    CHECK_INT(coax_value_equal(missing, NULL, NULL), 1);
    CHECK_INT(coax_value_equal(missing, v, NULL), 0);
    CHECK_INT(coax_value_equal(v, missing, NULL), 0);
    coax_arena_free(a);
}

/* Whether coax_repair's reading of text[0..len) rests on a guess: an
** invented entry in its chosen candidate's log. */
static int repair_guessed(const char *text, size_t len)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_repair_result r;
    int guessed = -1;
    if (coax_repair(a, text, len, NULL, &r, NULL) == COAX_OK) {
        guessed = 0;
        for (size_t i = 0; i < r.nlog; i++) guessed |= r.log[i].cls == COAX_CLASS_INVENTED;
    }
    coax_arena_free(a);
    return guessed;
}

/* A control byte in an unquoted word (a NUL, an ESC's colour code) is no
** text of the value: the word read with it is a guess, not "\u0001 1". */
static void test_repair_guesses_a_word_holding_a_control_byte(void)
{
    CHECK_INT(repair_guessed("{\"a\": \x01 1}", 10), 1);
    CHECK_INT(repair_guessed("{\"a\": 1\0}", 9), 1);
    CHECK_INT(repair_guessed("{\"a\": \x1b[1mred\x1b[0m}", 18), 1);
    CHECK_INT(repair_guessed("[x\x7fy]", 5), 1);
    CHECK_INT(repair_guessed("{\"a\": red}", 10), 0); /* twins: a word of text, a tab beside it */
    CHECK_INT(repair_guessed("{\"a\":\tred\t}", 11), 0);
}

/* The characters a text shows as nothing (Unicode's default ignorables):
** each one's length where it starts, none for a letter or a cut sequence;
** C1 controls stop coax_control_byte as C0 ones do, escaped they are text;
** the text ends, as one sees it, before those at its end. */
#define TEXT(s) s, strlen(s)
static void test_invisible_characters_and_c1_controls(void)
{
    static const char *const shown_as_nothing[] = {"\xC2\xAD", "\xCD\x8F", "\xD8\x9C", "\xE1\x85\x9F", "\xE1\xA0\x8E",
                                                   "\xE2\x80\x8B", "\xE2\x80\x8F", "\xE2\x80\xAE", "\xE2\x81\xA0",
                                                   "\xE2\x81\xAF", "\xEF\xB8\x8F", "\xEF\xBB\xBF", "\xF0\x9D\x85\xB3",
                                                   "\xF3\xA0\x80\xA1"};
    for (size_t i = 0; i < sizeof shown_as_nothing / sizeof *shown_as_nothing; i++) {
        const char *c = shown_as_nothing[i];
        CHECK_INT((int)coax_invisible_at(c, c + strlen(c)), (int)strlen(c));
        CHECK_INT((int)coax_invisible_at(c, c + strlen(c) - 1), 0); /* cut */
    }
    static const char *const seen[] = {"a", "\xC2\xA0", "\xC2\xAE", "\xE2\x80\x8A", "\xE2\x80\x90", "\xE2\x81\x9F",
                                       "\xEF\xBC\x8C", "\xF0\x9F\x98\x80", "\xE2\x80\xA8"};
    for (size_t i = 0; i < sizeof seen / sizeof *seen; i++)
        CHECK_INT((int)coax_invisible_at(seen[i], seen[i] + strlen(seen[i])), 0);
    CHECK_INT((int)coax_control_byte(TEXT("{\"a\": \xC2\x85 1}")), 6);
    CHECK_INT((int)coax_control_byte(TEXT("{\"note\": \"it\xC2\x92s\"}")), 12);
    CHECK_INT((int)coax_control_byte(TEXT("{\"a\": \"\xC2\xA0\xC2\xBF\"}\t\r\n")), 16); /* U+00A0, U+00BF */
    CHECK_INT((int)coax_control_byte(TEXT("0123456789abcdef0123456789abcd\xC2\x9B")), 30); /* past a block */
    CHECK_INT((int)coax_invisible_end(TEXT("{\"a\": 36\xE2\x80\x8B\xEF\xBB\xBF")), 8);
    CHECK_INT((int)coax_invisible_end(TEXT("{\"a\": 36 \xE2\x80\x8B")), 9);
    CHECK_INT((int)coax_invisible_end(TEXT("\xE2\x80\x8B")), 0);
    /* a number before U+200B alone at the reply's end may be cut: closed by a guess */
    CHECK_INT(repair_guessed(TEXT("{\"a\": 1.\xE2\x80\x8B")), 1);
    CHECK_INT(repair_guessed(TEXT("[1\xE2\x80\x8E" "2]")), 1); /* shown as 12 */
    CHECK_INT(repair_guessed(TEXT("{\"a\":\xE2\x80\x8F 1}")), 0);
}

#define TESTS                                              \
    X(test_numbers_keep_their_text)                        \
    X(test_strings_are_decoded_and_escaped_minimally)      \
    X(test_strings_escape_as_the_reference_does_at_any_length) \
    X(test_short_strings_escape_as_the_reference_does_byte_by_byte) \
    X(test_objects_keep_order_and_last_duplicate_wins)     \
    X(test_pretty_output)                                  \
    X(test_strict_errors_have_positions)                   \
    X(test_depth_limit_is_clean)                           \
    X(test_equality_is_by_value)                           \
    X(test_json_pointer)                                   \
    X(test_every_allocation_goes_through_the_allocator)    \
    X(test_allocation_failure_at_every_step)               \
    X(test_strerror_names_every_code)                      \
    X(test_reads_of_an_absent_value_chain)                 \
    X(test_repair_guesses_a_word_holding_a_control_byte)    \
    X(test_invisible_characters_and_c1_controls)
#include "test.h"
