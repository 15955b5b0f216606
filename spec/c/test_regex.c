/* ECMA-262 patterns: the translation to PCRE2 (exact text), what ECMA-262
** rejects (message and offset), the meanings the JSON-Schema-Test-Suite
** checks, unsupported patterns, limits on hostile patterns and inputs, and
** garbage patterns that must never crash. */
#include "coax.h"
#include "regex/ecma.h"

#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static char tbuf[4096];

/* The PCRE2 text of an ECMA pattern, or "ERR message". */
static const char *tr(const char *p)
{
    coax_buf b;
    coax_buf_init(&b, NULL);
    coax_error err;
    coax_code rc = coax_ecma_translate(p, strlen(p), &b, NULL, &err);
    if (rc) snprintf(tbuf, sizeof tbuf, "ERR %s", err.msg);
    else snprintf(tbuf, sizeof tbuf, "%.*s", (int)b.len, b.data ? b.data : "");
    coax_buf_free(&b);
    return tbuf;
}

static char out[8192];

/* Validates instance text against {"pattern": P} (draft 2020-12); returns
** "valid", "invalid" or "ERR CODE message". */
static const char *match(const char *pattern, const char *inst_json)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_buf b;
    coax_buf_init(&b, NULL);
    coax_buf_puts(&b, "{\"pattern\":");
    coax_buf_put_json_string(&b, pattern, strlen(pattern));
    coax_buf_putc(&b, '}');
    coax_value *sv, *iv;
    coax_error err;
    coax_schema *s = NULL;
    coax_code rc = coax_parse(a, b.data, b.len, NULL, &sv, &err);
    coax_buf_free(&b);
    if (!rc) rc = coax_parse(a, inst_json, strlen(inst_json), NULL, &iv, &err);
    if (!rc) rc = coax_schema_compile(sv, NULL, NULL, &s, &err);
    if (!rc) {
        coax_validation r;
        rc = coax_validate(s, iv, a, 0, &r, &err);
        if (!rc) snprintf(out, sizeof out, "%s", r.valid ? "valid" : "invalid");
    }
    if (rc) snprintf(out, sizeof out, "ERR %s %s", coax_code_name(rc), err.msg);
    coax_schema_free(s);
    coax_arena_free(a);
    return out;
}

static void test_patterns_are_translated_with_ecma_meanings(void)
{
    CHECK_STR(tr("^a$"), "^\\x{61}\\z");
    CHECK_STR(tr("."), "[^\\n\\r\\x{2028}\\x{2029}]");
    CHECK_STR(tr("\\d\\w"), "[0-9][0-9A-Z_a-z]");
    CHECK_STR(tr("\\v\\t\\cA\\0"), "\\x{B}\\x{9}\\x{1}\\x{0}");
    CHECK_STR(tr("[]"), "(?!)");
    CHECK_STR(tr("[^]"), "(?s:.)");
    CHECK_STR(tr("\\u{1F432}\\uD83D\\uDC32\\u0041\\x41"), "\\x{1F432}\\x{1F432}\\x{41}\\x{41}");
    CHECK_STR(tr("(?<n>a)\\k<n>\\1"), "(\\x{61})\\g{1}\\g{1}");
    CHECK_STR(tr("\\p{Letter}\\P{Lu}\\p{Script=Greek}\\p{scx=Latn}"), "[\\p{L}][\\P{Lu}][\\p{sc:Greek}][\\p{scx:Latn}]");
    CHECK_STR(tr("[a-c\\d-]"), "[\\x{61}-\\x{63}0-9\\x{2D}]");
    CHECK_STR(tr("a{2,}?b{3}c{1,5}"), "\\x{61}{2,}?\\x{62}{3}\\x{63}{1,5}");
    CHECK_STR(tr("(?<=a)(?<!b)(?=c)(?!d)(?:e)"), "(?<=\\x{61})(?<!\\x{62})(?=\\x{63})(?!\\x{64})(?:\\x{65})");
    CHECK_STR(tr("\\uD800"), "(?!)"); /* a lone surrogate: no UTF-8 string holds one */
    CHECK_STR(tr("é"), "\\x{E9}");
}

static void test_non_ecma_syntax_is_rejected(void)
{
    CHECK_STR(tr("\\a"), "ERR not an ECMA-262 regular expression: invalid escape at offset 1");
    CHECK_STR(tr("\\z"), "ERR not an ECMA-262 regular expression: invalid escape at offset 1");
    CHECK_STR(tr("(?i)abc"), "ERR not an ECMA-262 regular expression: invalid group: (? must be followed by :, =, !, <=, <! or <name> at offset 2");
    CHECK_STR(tr("(?P<n>x)"), "ERR not an ECMA-262 regular expression: invalid group: (? must be followed by :, =, !, <=, <! or <name> at offset 2");
    CHECK_STR(tr("(?#c)a"), "ERR not an ECMA-262 regular expression: invalid group: (? must be followed by :, =, !, <=, <! or <name> at offset 2");
    CHECK_STR(tr("a++"), "ERR not an ECMA-262 regular expression: nothing to repeat at offset 2");
    CHECK_STR(tr("a{"), "ERR not an ECMA-262 regular expression: lone '{' (escape it as \\{) at offset 2");
    CHECK_STR(tr("a}"), "ERR not an ECMA-262 regular expression: lone '}' (escape it as \\}) at offset 1");
    CHECK_STR(tr("]"), "ERR not an ECMA-262 regular expression: lone ']' (escape it as \\]) at offset 0");
    CHECK_STR(tr("\\-"), "ERR not an ECMA-262 regular expression: invalid escape at offset 1");
    CHECK_STR(tr("(a)\\2"), "ERR not an ECMA-262 regular expression: back reference to a group that does not exist at offset 5");
    CHECK_STR(tr("\\k<x>"), "ERR not an ECMA-262 regular expression: \\k names a group that does not exist at offset 0");
    CHECK_STR(tr("(?<n>a)(?<n>b)"), "ERR not an ECMA-262 regular expression: duplicate group name at offset 12");
    CHECK_STR(tr("[z-a]"), "ERR not an ECMA-262 regular expression: range out of order in character class at offset 1");
    CHECK_STR(tr("[\\d-z]"), "ERR not an ECMA-262 regular expression: a class escape cannot bound a range at offset 1");
    CHECK_STR(tr("(?=a)*"), "ERR not an ECMA-262 regular expression: a lookaround assertion cannot be repeated at offset 5");
    CHECK_STR(tr("\\p{Greek}"), "ERR not an ECMA-262 regular expression: unknown property name at offset 9");
    CHECK_STR(tr("\\p{letter}"), "ERR not an ECMA-262 regular expression: unknown property name at offset 10");
    CHECK_STR(tr("a{3,2}"), "ERR not an ECMA-262 regular expression: numbers out of order in {} quantifier at offset 6");
    CHECK_STR(tr("\\u{110000}"), "ERR not an ECMA-262 regular expression: code point beyond U+10FFFF at offset 8");
    CHECK_STR(tr("(a"), "ERR not an ECMA-262 regular expression: missing ')' at offset 2");
    CHECK_STR(tr("a)"), "ERR not an ECMA-262 regular expression: unmatched ')' at offset 1");
    CHECK_STR(tr("\\"), "ERR not an ECMA-262 regular expression: pattern ends with a backslash at offset 1");
    CHECK_STR(tr("\\01"), "ERR not an ECMA-262 regular expression: octal escapes are not allowed at offset 2");
    CHECK_STR(tr("\\c1"), "ERR not an ECMA-262 regular expression: \\c must be followed by a letter at offset 2");
}

static void test_matching_follows_ecma(void)
{
    CHECK_STR(match("^\\s$", "\"\\u00a0\""), "valid");
    CHECK_STR(match("^\\s$", "\"\\ufeff\""), "valid");
    CHECK_STR(match("^\\s$", "\"\\u2029\""), "valid");
    CHECK_STR(match("^\\S$", "\"\\u2003\""), "invalid");
    CHECK_STR(match("^[\\S]$", "\"\\u2003\""), "invalid");
    CHECK_STR(match("^[\\S]$", "\"x\""), "valid");
    CHECK_STR(match("^.$", "\"\\n\""), "invalid");
    CHECK_STR(match("^.$", "\"\\u2028\""), "invalid");
    CHECK_STR(match("^.$", "\"\\ud83d\\udc32\""), "valid");
    CHECK_STR(match("^\\w$", "\"\\u00e9\""), "invalid");
    CHECK_STR(match("^\\d$", "\"\\u0663\""), "invalid");
    CHECK_STR(match("^\\p{digit}$", "\"\\u0663\""), "valid");
    CHECK_STR(match("^\\p{Lu}+$", "\"\\u00c9T\""), "valid");
    CHECK_STR(match("abc$", "\"abc\\n\""), "invalid");
    CHECK_STR(match("^[]$", "\"\""), "invalid");
    CHECK_STR(match("^[^]$", "\"\\n\""), "valid");
    CHECK_STR(match("^\\u{1F432}$", "\"\\ud83d\\udc32\""), "valid");
    CHECK_STR(match("^(?<y>\\d{4})-\\k<y>$", "\"2024-2024\""), "valid");
    CHECK_STR(match("^(a)?\\1b$", "\"b\""), "valid"); /* an unset group matches empty, as in ECMA */
    /* the fast path (anchored ASCII classes) and PCRE2 agree */
    CHECK_STR(match("^[A-Z]{3}-[0-9]{4,6}$", "\"ABC-12345\""), "valid");
    CHECK_STR(match("^[A-Z]{3}-[0-9]{4,6}$", "\"ABC-1234567\""), "invalid");
    CHECK_STR(match("^[A-Z]{3}-[0-9]{4,6}$", "\"ÀBC-1234\""), "invalid");
    CHECK_STR(match("^a*a*a*b", "\"aaab\""), "valid");
    CHECK_STR(match("^\\+?[0-9 ()-]{7,20}$", "\"+33 (1) 234-567\""), "valid");
    CHECK_STR(match("^x", "\"xyz\""), "valid");
}

static void test_unsupported_patterns_are_clear_errors(void)
{
    CHECK_STR(match("(?<=a+)b", "\"b\""),
              "ERR COAX_ESCHEMA invalid schema at \"/pattern\": unsupported pattern: valid ECMA-262, but PCRE2 cannot run it (lookbehind assertion is not fixed length)");
    CHECK_STR(match("a{100000}", "\"a\""),
              "ERR COAX_ESCHEMA invalid schema at \"/pattern\": unsupported pattern: valid ECMA-262, but PCRE2 cannot run it (number too big in {} quantifier)");
    CHECK_STR(match("(?i)a", "\"a\""),
              "ERR COAX_ESCHEMA invalid schema at \"/pattern\": not an ECMA-262 regular expression: invalid group: (? must be followed by :, =, !, <=, <! or <name> at offset 2");
}

static void test_hostile_patterns_end_with_a_limit(void)
{
    size_t n = 100000;
    char *inst = malloc(n + 4);
    inst[0] = '"';
    memset(inst + 1, 'a', n);
    inst[n + 1] = 'b';
    inst[n + 2] = '"';
    inst[n + 3] = '\0';
    CHECK_STR(match("^(a+)+$", inst), "ERR COAX_ELIMIT a regular expression exceeded its step limit of 1000000 steps (max_regex_steps)");
    /* 100,000 nested choices: the backtracking's depth bound, named as such */
    CHECK_STR(match("^(a|aa)*c$", inst),
              "ERR COAX_ELIMIT a regular expression exceeded its backtracking bounds (100000 nested points, 16384 KiB)");
    CHECK_STR(match("^(a*)*$", inst), "ERR COAX_ELIMIT a regular expression exceeded its step limit of 1000000 steps (max_regex_steps)");
    /* a plain pattern on the same long string answers */
    CHECK_STR(match("^a+b$", inst), "valid");
    CHECK_STR(match("^[a]{2,}$", inst), "invalid");
    free(inst);
    /* nesting deeper than PCRE2 and ecma.c allow */
    char deep[1300];
    memset(deep, '(', 300);
    memset(deep + 300, ')', 300);
    deep[600] = '\0';
    CHECK_STR(tr(deep), "ERR not an ECMA-262 regular expression: groups nested too deeply at offset 201");
}

/* Deterministic garbage: every answer is OK or EINVAL, and a translation
** PCRE2 refuses says "unsupported pattern". */
static void test_garbage_patterns_never_crash(void)
{
    static const char alphabet[] = "()[]{}|^$\\.*+?-,:<>=!^0123456789abcdkpuxDSWPBbcfnrtv/ \xc3\xa9";
    uint32_t seed = 12345;
    size_t ok = 0, bad = 0, other = 0, compiled = 0, unsupported = 0;
    for (int i = 0; i < 20000; i++) {
        char p[24];
        size_t len = (size_t)(i % 23);
        for (size_t k = 0; k < len; k++) {
            seed = seed * 1103515245u + 12345u;
            p[k] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        coax_buf b;
        coax_buf_init(&b, NULL);
        coax_error err;
        coax_code rc = coax_ecma_translate(p, len, &b, NULL, &err);
        if (rc == COAX_OK) ok++;
        else if (rc == COAX_EINVAL) bad++;
        else other++;
        coax_buf_free(&b);
        if (rc == COAX_OK) {
            p[len] = '\0';
            const char *r = match(p, "\"ab(c)\\u00e9\"");
            if (!strncmp(r, "valid", 5) || !strncmp(r, "invalid", 7)) compiled++;
            else if (strstr(r, "unsupported pattern")) unsupported++;
            else printf("  unexpected for /%s/: %s\n", p, r);
        }
    }
    CHECK_INT(other, 0);
    CHECK_INT(ok + bad, 20000);
    CHECK_INT(compiled + unsupported, ok);
    CHECK(ok > 100);
}

#define TESTS                                              \
    X(test_patterns_are_translated_with_ecma_meanings)     \
    X(test_non_ecma_syntax_is_rejected)                    \
    X(test_matching_follows_ecma)                          \
    X(test_unsupported_patterns_are_clear_errors)          \
    X(test_hostile_patterns_end_with_a_limit)              \
    X(test_garbage_patterns_never_crash)
#include "test.h"
