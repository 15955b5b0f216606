/*
** test_json_scan.c: the strict parser's word-at-a-time scanners (strings,
** whitespace, numbers in place) give the same answers as a byte-by-byte
** reading, at every position of a 16-byte block and across block ends:
** every kind of stop byte at every offset, every invalid UTF-8 form, raw
** control bytes, unterminated strings, whitespace runs, numbers at the
** root and beside every delimiter, duplicate-key offsets.
*/
#include "base/core.h"
#include "json/parse_scan.h"

#include <stdio.h>
#include <stdlib.h>

#include "test.h"

/* Parses 'json' strictly; returns the code and fills 'v' and 'err'. */
static coax_code parse(coax_arena *a, const char *json, size_t len, coax_value **v, coax_error *err)
{
    memset(err, 0, sizeof *err);
    return coax_parse(a, json, len, NULL, v, err);
}

/* Every special character at every position of strings of 0..40 bytes. */
static void test_every_stop_at_every_position(void)
{
    static const struct {
        const char *json, *text; /* as written in JSON, and decoded */
    } special[] = {
        {"\\\"", "\""}, {"\\\\", "\\"}, {"\\n", "\n"}, {"\\u00e9", "\xc3\xa9"}, {"\xc3\xa9", "\xc3\xa9"},
        {"\xe6\x9d\xb1", "\xe6\x9d\xb1"}, {"\xef\xbf\xbd", "\xef\xbf\xbd"}, {"\xe0\xa4\x85", "\xe0\xa4\x85"},
        {"\xed\x9f\xbf", "\xed\x9f\xbf"}, {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"}, {"\\ud83d\\ude00", "\xf0\x9f\x98\x80"},
    };
    coax_arena *a = coax_arena_new(NULL);
    for (size_t k = 0; k < sizeof special / sizeof *special; k++)
        for (size_t len = 1; len <= 40; len++)
            for (size_t pos = 0; pos < len; pos++) {
                char json[128], want[128];
                size_t n = 0, w = 0;
                json[n++] = '"';
                for (size_t i = 0; i < len; i++) {
                    const char *j = i == pos ? special[k].json : "a", *t = i == pos ? special[k].text : "a";
                    memcpy(json + n, j, strlen(j));
                    n += strlen(j);
                    memcpy(want + w, t, strlen(t));
                    w += strlen(t);
                }
                json[n++] = '"';
                want[w] = '\0';
                coax_value *v;
                coax_error err;
                CHECK_INT(parse(a, json, n, &v, &err), COAX_OK);
                size_t got;
                const char *text = coax_value_text(v, &got);
                CHECK_INT(got, w);
                CHECK(text && memcmp(text, want, w) == 0 && text[w] == '\0');
                coax_arena_reset(a);
            }
    coax_arena_free(a);
}

/* Raw control bytes and invalid UTF-8 at every position: the code and the
** byte offset of the offending byte. */
static void test_every_bad_byte_at_every_position(void)
{
    static const struct {
        const char *bytes;
        coax_code code;
    } bad[] = {
        {"\x01", COAX_ESYNTAX}, {"\x1f", COAX_ESYNTAX}, {"\n", COAX_ESYNTAX}, {"\x80", COAX_EUTF8},
        {"\xc0\xaf", COAX_EUTF8}, {"\xc1\xbf", COAX_EUTF8}, {"\xe0\x80\x80", COAX_EUTF8},
        {"\xed\xa0\x80", COAX_EUTF8}, {"\xe6\x9d", COAX_EUTF8}, {"\xe6\x41\x41", COAX_EUTF8},
        {"\xf5\x80\x80\x80", COAX_EUTF8}, {"\xf4\x90\x80\x80", COAX_EUTF8}, {"\xff", COAX_EUTF8},
        {"\xc3", COAX_EUTF8},
    };
    coax_arena *a = coax_arena_new(NULL);
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        for (size_t len = 1; len <= 40; len++)
            for (size_t pos = 0; pos < len; pos++) {
                char json[128];
                size_t n = 0;
                json[n++] = '[';
                json[n++] = '"';
                for (size_t i = 0; i < len; i++) {
                    const char *j = i == pos ? bad[k].bytes : "b";
                    memcpy(json + n, j, strlen(j));
                    n += strlen(j);
                }
                json[n++] = '"';
                json[n++] = ']';
                coax_value *v;
                coax_error err;
                CHECK_INT(parse(a, json, n, &v, &err), bad[k].code);
                CHECK_INT(err.offset, 2 + pos);
                coax_arena_reset(a);
            }
    coax_arena_free(a);
}

/* A string that never closes, of every length, also when the last byte is
** a backslash or the start of a multi-byte sequence. */
static void test_unterminated_strings(void)
{
    coax_arena *a = coax_arena_new(NULL);
    static const char *tails[] = {"", "\\", "\\\"", "\xc3\xa9"};
    for (size_t t = 0; t < 4; t++)
        for (size_t len = 0; len <= 40; len++) {
            char json[128];
            size_t n = 0;
            json[n++] = '"';
            for (size_t i = 0; i < len; i++) json[n++] = 'c';
            memcpy(json + n, tails[t], strlen(tails[t]));
            n += strlen(tails[t]);
            coax_value *v;
            coax_error err;
            CHECK_INT(parse(a, json, n, &v, &err), COAX_ESYNTAX);
            CHECK_INT(err.offset, n);
            coax_arena_reset(a);
        }
    coax_arena_free(a);
}

/* Whitespace runs of every length and mix between every pair of tokens. */
static void test_whitespace_runs(void)
{
    coax_arena *a = coax_arena_new(NULL);
    static const char ws[] = " \t\n\r";
    for (size_t len = 0; len <= 40; len++) {
        char run[64];
        for (size_t i = 0; i < len; i++) run[i] = ws[(i * 7 + len) % 4];
        run[len] = '\0';
        char json[512];
        int n = snprintf(json, sizeof json, "%s{%s\"k\"%s:%s[%s1%s,%s\"s\"%s,%strue%s]%s}%s", run, run, run, run, run,
                         run, run, run, run, run, run, run);
        coax_value *v;
        coax_error err;
        CHECK_INT(parse(a, json, (size_t)n, &v, &err), COAX_OK);
        char *out;
        size_t olen;
        CHECK_INT(coax_write(v, 0, NULL, &out, &olen), COAX_OK);
        CHECK_STR(out, "{\"k\":[1,\"s\",true]}");
        free(out);
        /* a stray byte after a run is reported where it stands */
        n = snprintf(json, sizeof json, "[1,%sx]", run);
        CHECK_INT(parse(a, json, (size_t)n, &v, &err), COAX_ESYNTAX);
        CHECK_INT(err.offset, 3 + len);
        coax_arena_reset(a);
    }
    coax_arena_free(a);
}

/* Numbers keep their exact text wherever they stand: at the very start, at
** the end, beside every delimiter; invalid forms are refused where they
** start. */
static void test_numbers_in_place(void)
{
    static const char *nums[] = {"0", "-0", "7", "-12", "3.25", "1e5", "-2.5E-3", "123456789012345678901234567890"};
    coax_arena *a = coax_arena_new(NULL);
    for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
        char json[256];
        const char *forms[] = {"%s", " %s ", "[%s]", "[%s,%s]", "{\"a\":%s,\"b\":%s}", "[\"x\",%s]", "[\n%s\n]"};
        for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
            int n = snprintf(json, sizeof json, forms[f], nums[k], nums[k]);
            coax_value *v;
            coax_error err;
            CHECK_INT(parse(a, json, (size_t)n, &v, &err), COAX_OK);
            const coax_value *num = v;
            if (coax_value_type(v) == COAX_ARRAY) num = coax_array_get(v, coax_value_len(v) - 1);
            if (coax_value_type(v) == COAX_OBJECT) num = coax_object_get(v, "a", 1);
            size_t len;
            const char *text = coax_value_text(num, &len);
            CHECK_STR(text, nums[k]);
            CHECK_INT(len, strlen(nums[k]));
            if (coax_value_type(v) == COAX_OBJECT) CHECK_STR(coax_value_text(coax_object_get(v, "b", 1), NULL), nums[k]);
            coax_arena_reset(a);
        }
    }
    static const struct {
        const char *json;
        size_t offset;
    } bad[] = {{"01", 0}, {"1.", 0}, {"-", 0}, {"[1,-]", 3}, {"[.5]", 1}, {"[1.e3]", 1}, {"{\"a\":+1}", 5}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        coax_value *v;
        coax_error err;
        CHECK_INT(parse(a, bad[k].json, strlen(bad[k].json), &v, &err), COAX_ESYNTAX);
        CHECK_INT(err.offset, bad[k].offset);
        coax_arena_reset(a);
    }
    coax_arena_free(a);
}

static size_t dups[8], ndups;
static bool dups_differ[8];
static void on_dup(void *ud, size_t offset, bool differs)
{
    (void)ud;
    if (ndups < 8) {
        dups_differ[ndups] = differs;
        dups[ndups++] = offset;
    }
}

/* A repeated key is reported at its opening quote, escaped or not, with
** whether its value differs from the one it replaces (1 and 1.0 are one
** number; past 16 members the hash table's way says the same). */
static void test_duplicate_key_offsets(void)
{
    const char *json = "{\"a\":1, \"b\":2,\n  \"\\u0061\":3, \"b\" : 2.0}";
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    ndups = 0;
    CHECK_INT(coax_parse_ex(a, json, strlen(json), NULL, &v, NULL, on_dup, NULL), COAX_OK);
    CHECK_INT(ndups, 2);
    CHECK_INT(dups[0], 17);
    CHECK_INT(dups[1], 29);
    CHECK_INT(dups_differ[0], 1);
    CHECK_INT(dups_differ[1], 0);
    CHECK_STR(coax_value_text(coax_object_get(v, "a", 1), NULL), "3");
    CHECK_STR(coax_value_text(coax_object_get(v, "b", 1), NULL), "2.0");
    char big[512];
    int n = snprintf(big, sizeof big, "{");
    for (int i = 0; i < 20; i++) n += snprintf(big + n, sizeof big - n, "\"k%d\":[%d],", i, i);
    snprintf(big + n, sizeof big - n, "\"k3\":[3],\"k4\":[5]}");
    ndups = 0;
    CHECK_INT(coax_parse_ex(a, big, strlen(big), NULL, &v, NULL, on_dup, NULL), COAX_OK);
    CHECK_INT(ndups, 2);
    CHECK_INT(dups_differ[0], 0);
    CHECK_INT(dups_differ[1], 1);
    coax_arena_free(a);
}

/* The parser guesses the whitespace before a pretty-printed child (as
** long as the one before), a key's length (the one that followed the key
** before it last time) and takes either only once checked: ten objects
** of one shape, each turn one of them with something the guess misses
** (a run a space longer or shorter, a tab, a CRLF, a key of another
** length, a key whose guessed end is an escape, an empty key, keys of 16
** and 17 bytes, a repeated key, a closing bracket out of line), give the
** values, the repeated keys and the error offsets they give written
** compactly. */
static void test_guessed_runs_and_keys(void)
{
    /* "price\\u0073": an escape where "price" ends, its guessed length */
    static const char *odd_keys[] = {"sk", "skuu", "price\\u0073", "", "abcdefghijklmnop", "abcdefghijklmnopq",
                                     "qty"};
    static const char *odd_keys_text[] = {"sk",   "skuu", "prices", "", "abcdefghijklmnop", "abcdefghijklmnopq",
                                          "qty"};
    enum { LONGER, SHORTER, TAB, CRLF, CLOSER, STRAY, KEY, KINDS = KEY + 7 };
    coax_arena *a = coax_arena_new(NULL);
    for (int kind = 0; kind < KINDS; kind++)
        for (int odd = 0; odd < 10; odd++) {
            char pretty[4096], compact[2048];
            size_t n = 0, c = 0, stray_at = 0;
            n += (size_t)snprintf(pretty + n, sizeof pretty - n, "[");
            c += (size_t)snprintf(compact + c, sizeof compact - c, "[");
            for (int i = 0; i < 10; i++) {
                bool here = i == odd;
                n += (size_t)snprintf(pretty + n, sizeof pretty - n, "%s\n  {", i ? "," : "");
                c += (size_t)snprintf(compact + c, sizeof compact - c, "%s{", i ? "," : "");
                static const char *keys[] = {"sku", "qty", "price", "desc"};
                static const char *values[] = {"\"SKU-1\"", "3", "147.04", "\"large mini\""};
                for (int k = 0; k < 4; k++) {
                    const char *key = keys[k], *key_text = keys[k];
                    const char *indent = "\n    ";
                    if (here && k == 2) {
                        if (kind == LONGER) indent = "\n     ";
                        else if (kind == SHORTER) indent = "\n   ";
                        else if (kind == TAB) indent = "\n  \t ";
                        else if (kind == CRLF) indent = "\r\n    ";
                        else if (kind == STRAY) {
                            stray_at = n + (size_t)(k ? 1 : 0) + 5;
                            indent = "\n    x";
                        } else if (kind >= KEY) {
                            key = odd_keys[kind - KEY];
                            key_text = odd_keys_text[kind - KEY];
                        }
                    }
                    n += (size_t)snprintf(pretty + n, sizeof pretty - n, "%s%s\"%s\": %s", k ? "," : "", indent, key,
                                          values[k]);
                    bool repeated = here && kind == KINDS - 1; /* "qty" again: the first's place, the last's value */
                    if (!(repeated && k == 2))
                        c += (size_t)snprintf(compact + c, sizeof compact - c, "%s\"%s\":%s", k ? "," : "", key_text,
                                              values[repeated && k == 1 ? 2 : k]);
                }
                n += (size_t)snprintf(pretty + n, sizeof pretty - n, "%s}", here && kind == CLOSER ? "\n " : "\n  ");
                c += (size_t)snprintf(compact + c, sizeof compact - c, "}");
            }
            n += (size_t)snprintf(pretty + n, sizeof pretty - n, "\n]");
            c += (size_t)snprintf(compact + c, sizeof compact - c, "]");
            coax_value *v;
            coax_error err;
            ndups = 0;
            memset(&err, 0, sizeof err);
            coax_code rc = coax_parse_ex(a, pretty, n, NULL, &v, &err, on_dup, NULL);
            if (kind == STRAY) {
                CHECK_INT(rc, COAX_ESYNTAX);
                CHECK_INT(err.offset, stray_at);
            } else {
                CHECK_INT(rc, COAX_OK);
                char *out;
                size_t olen;
                CHECK_INT(coax_write(v, 0, NULL, &out, &olen), COAX_OK);
                CHECK_STR(out, compact);
                free(out);
                /* "qty" in the place of "price": given twice in one object */
                CHECK_INT(ndups, kind == KINDS - 1 ? 1 : 0);
            }
            coax_arena_reset(a);
        }
    coax_arena_free(a);
}

/* The string scanners' kernels stop at exactly their bytes, at every
** offset of a block: string_scan's at '"', '\\', control bytes and bytes
** >= 0x80; text_scan's (for an input known to be valid UTF-8) at the same
** but the bytes >= 0x80. */
static void test_scan_kernels(void)
{
    char block[32];
    for (int b = 0; b < 256; b++)
        for (size_t pos = 0; pos < 16; pos++) {
            memset(block, 'a', sizeof block);
            block[pos] = (char)b;
            bool ctl = b < 0x20 || b == '"' || b == '\\';
            size_t at = 99;
            bool found = stop_at(block, &at);
            CHECK(found == (ctl || b >= 0x80));
            if (found) CHECK_INT(at, pos);
            at = 99;
            found = text_stop_at(block, &at);
            CHECK(found == ctl);
            if (found) CHECK_INT(at, pos);
        }
}

/* The input's copy says it is valid UTF-8 exactly when coax_utf8_valid
** does, for every valid and invalid form at every position of inputs
** around its 64-byte steps and across their ends, and copies it whole,
** then its NUL and padding. */
static void test_copy_input_utf8(void)
{
    static const char *const forms[] = {
        "\xc3\xa9", "\xe6\x9d\xb1", "\xe0\xa4\x85", "\xed\x9f\xbf", "\xef\xbf\xbd", "\xf0\x9f\x98\x80",
        "\xf4\x8f\xbf\xbf", "\xc2\x80", "\xdf\xbf", "\xc3\xa9\xe6\x9d\xb1\xf0\x9f\x98\x80",
        "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xf0\x8f\xbf\xbf",
        "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8\x80", "\xff", "\x80", "\xbf", "\xc3", "\xe6\x9d",
        "\xf0\x9f\x98", "\xc3\x41", "\xe6\x41\xb1", "\xf0\x9f\x41\x80", "\xc3\xa9\xa9",
    };
    char in[160], copy[160 + 1 + SCAN_PAD];
    for (size_t k = 0; k < sizeof forms / sizeof *forms; k++) {
        size_t n = strlen(forms[k]);
        for (size_t len = n; len <= 140; len++)
            for (size_t pos = 0; pos + n <= len; pos++) {
                memset(in, 'a', len);
                memcpy(in + pos, forms[k], n);
                memset(copy, 0x55, sizeof copy);
                bool valid = coax_json_copy_input(copy, in, len);
                CHECK(valid == coax_utf8_valid(in, len));
                CHECK(memcmp(copy, in, len) == 0);
                for (size_t i = len; i < len + 1 + SCAN_PAD; i++) CHECK_INT(copy[i], 0);
            }
    }
    CHECK(coax_json_copy_input(copy, NULL, 0) && copy[0] == 0);
}

/* The same for texts of many sequences, valid and not, in every 64-byte
** step and across the steps' ends (the AVX2 way checks a step's sequences
** together, from the bytes before them): 20,000 mixes of a fixed seed. */
static void test_copy_input_utf8_mixed(void)
{
    static const char *const pieces[] = {
        "a", " ", "\"", "\xc3\xa9", "\xe6\x9d\xb1", "\xf0\x9f\x8e\x89", "\xe0\xa0\x80", "\xed\x9f\xbf",
        "\xf4\x8f\xbf\xbf", "\xc0\x80", "\xed\xa0\x80", "\xe0\x9f\xbf", "\xf4\x90\x80\x80", "\xf0\x8f\xbf\xbf",
        "\x80", "\xff", "\xc3", "\xe6\x9d", "\xf0\x9f\x8e",
    };
    char in[400], copy[400 + 1 + SCAN_PAD];
    uint64_t seed = 42;
    size_t invalid = 0;
    for (int t = 0; t < 20000; t++) {
        size_t len = 0, target = (size_t)(t % 330);
        unsigned bad_odds = t % 3 == 0 ? 0 : t % 3 == 1 ? 150 : 20; /* one piece in that many may be invalid */
        while (len < target) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            unsigned r = (unsigned)(seed >> 40);
            const char *p = bad_odds && r % bad_odds == 0 ? pieces[9 + (r / bad_odds) % 10] : pieces[r % 9];
            size_t n = strlen(p);
            memcpy(in + len, p, n);
            len += n;
        }
        memset(copy, 0x55, sizeof copy);
        bool valid = coax_json_copy_input(copy, in, len);
        CHECK(valid == coax_utf8_valid(in, len));
        CHECK(memcmp(copy, in, len) == 0);
        invalid += !valid;
    }
    CHECK(invalid > 5000 && invalid < 15000); /* both kinds were tried */
}

#define TESTS                                  \
    X(test_scan_kernels)                       \
    X(test_copy_input_utf8)                    \
    X(test_copy_input_utf8_mixed)              \
    X(test_every_stop_at_every_position)       \
    X(test_every_bad_byte_at_every_position)   \
    X(test_unterminated_strings)               \
    X(test_whitespace_runs)                    \
    X(test_numbers_in_place)                   \
    X(test_duplicate_key_offsets)              \
    X(test_guessed_runs_and_keys)
#include "test.h"
