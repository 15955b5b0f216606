/*
** lenient_expr.c: arithmetic written where a value goes, without quotes
** (lenient.h): its value is what it computes, or a variable's, never the
** text of the expression. Not in lenient_word.c, which reads the words
** this judges.
*/
#include "repair/lenient.h"

/* Whether c is a sign of arithmetic between operands: + * / ^ (and **,
** two of them). '-' is one only between spaces and numbers (x-ray,
** 2024-01-05 and "Chapter - 1" are text); '%' is a number's percent. */
static bool arith_sign(char c) { return c == '+' || c == '*' || c == '/' || c == '^'; }

/* Whether the operand o..c reads as a number in some notation: digits,
** points and '_' after a digit or a point (1_000, .5, 1.5e3), a radix's
** (0x1F, 0o17, 0b101) or a literal's suffix or percent after them (5L,
** 10n, 50%); 2FA and 9am are words. */
static bool numeric_operand(const char *o, const char *c)
{
    if (c == o || !(is_digit(*o) || (c - o > 1 && *o == '.' && is_digit(o[1])))) return false;
    const char *d = o;
    if (c - o > 2 && *o == '0' && coax_byte_in("xXoObB", o[1])) {
        for (d = o + 2; d < c && (coax_hex_digit(*d) >= 0 || *d == '_');) d++;
        return d == c;
    }
    while (d < c && (is_digit(*d) || *d == '.' || *d == '_' || ((*d == 'e' || *d == 'E') && d > o))) d++;
    return d == c || (c - d == 1 && coax_byte_in("LlnjfuU%", *d));
}

/* Arithmetic ({"a": 0x10 + 1}, x + 1, pi * 2, 1_000*2): its value is what
** it computes, or a variable's; words alone (salt + pepper, a+b) and dates
** (12/31/2024) are text. */
static bool arithmetic_text(const char *s, const char *t)
{
    const char *c = s, *prev_o = NULL, *prev_end = NULL;
    size_t operands = 0, numeric = 0;
    bool spaced = false, only_slash = true, minus_between = false;
    for (;;) {
        const char *o = c; /* an operand: no space and no sign of arithmetic */
        while (c < t && !ws_tab[(unsigned char)*c] && !arith_sign(*c)) c++;
        if (c == o || (c - o == 1 && *o == '-')) return false;
        bool num = numeric_operand(o, c);
        if (minus_between && !(num && numeric_operand(prev_o, prev_end))) return false; /* 5 - x: a dash */
        operands++, numeric += num;
        prev_o = o, prev_end = c;
        const char *g = c; /* the sign, and the spaces around it */
        while (g < t && (*g == ' ' || *g == '\t')) g++;
        if (g == t) return c == t && operands >= 2 && numeric > 0 && (spaced || numeric == operands) &&
                           !(only_slash && !spaced); /* 12/31/2024, km/h: a date, a unit */
        bool before = g > c;
        const char *op = g;
        minus_between = false;
        if (g + 1 < t && g[0] == '*' && g[1] == '*') g += 2;
        else if (arith_sign(*g)) g++;
        else if (*g == '-' && before && g + 1 < t && (g[1] == ' ' || g[1] == '\t')) g++, minus_between = true;
        else return false; /* two operands with no sign between: words */
        only_slash &= *op == '/';
        const char *n = g;
        while (n < t && (*n == ' ' || *n == '\t')) n++;
        if (n == t || (n > g) != before) return false; /* 1 +2: a sign, or a sum? read elsewhere */
        spaced |= before;
        c = n;
    }
}

/* The value of a decimal digit of another script (Arabic-Indic,
** Extended Arabic-Indic, Devanagari, Bengali, Thai, ...: Unicode's Nd
** blocks that start at a code point ending in 0 or 6), or -1. */
static int script_digit(uint32_t cp)
{
    static const uint32_t zeros[] = {0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66,
                                     0xCE6, 0xD66, 0xE50, 0xED0, 0xF20, 0x1040, 0x17E0, 0x1810, 0xFF10};
    for (size_t i = 0; i < sizeof zeros / sizeof *zeros; i++)
        if (cp >= zeros[i] && cp <= zeros[i] + 9) return (int)(cp - zeros[i]);
    return -1;
}

/* Whether cp is a sign JSON does not read as a number's: the minus sign
** U+2212, the en and em dashes, the small and full-width hyphen-minus
** and plus (U+FE63, U+FF0D, U+FF0B). */
static bool foreign_sign(uint32_t cp)
{
    return cp == 0x2212 || cp == 0x2013 || cp == 0x2014 || cp == 0xFE63 || cp == 0xFF0D || cp == 0xFF0B;
}

/* Whether cp is a number of its own or a part of one written as a
** character: a vulgar fraction (½, ⅓), the fraction slash, a superscript
** digit (2²), infinity's ∞, the Arabic decimal and thousands signs. */
static bool number_character(uint32_t cp)
{
    return (cp >= 0xBC && cp <= 0xBE) || (cp >= 0x2150 && cp <= 0x215E) || cp == 0x2189 || cp == 0x2044 ||
           cp == 0xB2 || cp == 0xB3 || cp == 0xB9 || cp == 0x2070 || (cp >= 0x2074 && cp <= 0x207B) ||
           (cp >= 0x2080 && cp <= 0x208B) || cp == 0x221E || cp == 0x66B || cp == 0x66C;
}

/* Whether cp parts digits as a point or a comma another way: the
** ideographic comma (1、2), the full-width comma and full stop (1，5, 1．5),
** the middle dot (1·5), the low quotation mark (1‚5), the Arabic comma:
** items, a decimal or a product, never a text. */
static bool foreign_separator(uint32_t cp)
{
    return cp == 0x3001 || cp == 0xFF0C || cp == 0xFF0E || cp == 0xB7 || cp == 0x201A || cp == 0x60C;
}

/* A number written with signs or digits JSON does not read: the minus
** sign or a dash before digits (−5, –5, 1e−5), digits of another script
** (١٢٣), ½, 2², 10⁻³, ∞, digits parted by another script's comma or point
** (1、2, 1，5, 1．5): a number or items, its text none of them. */
static bool unicode_number_text(const char *s, const char *t)
{
    if (t - s == 3 && !memcmp(s, "\xE2\x88\x92", 3)) return true; /* the minus sign alone holds a place, as - does */
    bool foreign = false, digit = false;
    for (const char *c = s; c < t;) {
        uint32_t cp;
        size_t k = coax_utf8_decode((const unsigned char *)c, (size_t)(t - c), &cp);
        if (!k) return false;
        bool sign_place = c == s || c[-1] == 'e' || c[-1] == 'E';
        if (cp < 0x80 && (is_digit((char)cp) || cp == '.' || cp == ',' || ((cp == 'e' || cp == 'E') && digit) ||
                          ((cp == '-' || cp == '+') && sign_place)))
            digit |= is_digit((char)cp);
        else if (script_digit(cp) >= 0 || number_character(cp) || (foreign_sign(cp) && sign_place) ||
                 (foreign_separator(cp) && digit))
            foreign = true, digit |= script_digit(cp) >= 0 || number_character(cp);
        else
            return false;
        c += k;
    }
    return foreign && digit;
}

/* Past the spaces at c, ASCII or Unicode (up to t). */
static const char *past_spaces(const char *c, const char *t)
{
    for (size_t u; c < t; c += u ? u : 1)
        if (!(u = repair_unicode_space(c, t)) && !ws_tab[(unsigned char)*c]) break;
    return c;
}

/* A constructor's call with spaces before its parentheses, new Date ( ):
** an object JavaScript builds, not the text (new York is text). */
static bool constructor_call(const char *s, const char *t)
{
    if (t - s < 7 || memcmp(s, "new", 3) || t[-1] != ')') return false;
    const char *c = past_spaces(s + 3, t), *name = c;
    if (c == s + 3) return false;
    while (c < t && (is_ident((unsigned char)*c) || *c == '.')) c++;
    if (c == name) return false;
    c = past_spaces(c, t);
    return c < t && *c == '(';
}

/* A literal typed in full-width letters (ｔｒｕｅ, ＮＵＬＬ, with a CJK
** keyboard): the constant, and its text is none of it. */
static bool full_width_literal(const char *s, const char *t)
{
    static const char *const words[] = {"true", "false", "null", "none", "nil"};
    char ascii[6];
    size_t n = 0;
    for (const char *c = s; c < t; n++) {
        uint32_t cp;
        size_t k = coax_utf8_decode((const unsigned char *)c, (size_t)(t - c), &cp);
        if (!k || n == sizeof ascii - 1 || !((cp >= 0xFF21 && cp <= 0xFF3A) || (cp >= 0xFF41 && cp <= 0xFF5A)))
            return false;
        ascii[n] = (char)((cp - 0xFF21) % 0x20 + 'a');
        c += k;
    }
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == n && !memcmp(ascii, words[i], n)) return true;
    return false;
}

/* A number or literal wrapped whole in one HTML element, <b>36</b>,
** <span>true</span>: the reply's formatting around the value, as
** Markdown's **36** is, or its text? <b>hi</b> is text. */
static bool markup_around_scalar(const char *s, const char *t)
{
    const char *c = s + 1;
    if (t - s < 8 || *s != '<' || t[-1] != '>') return false;
    while (c < t && is_ident((unsigned char)*c)) c++;
    size_t tag = (size_t)(c - s - 1);
    if (!tag || c >= t || *c != '>' || (size_t)(t - c) < tag + 4) return false;
    const char *close = t - tag - 3, *inner = c + 1;
    if (close < inner || close[0] != '<' || close[1] != '/' || memcmp(close + 2, s + 1, tag)) return false;
    size_t n = (size_t)(close - inner);
    bool is_int;
    return (n && coax_number_span(inner, n, &is_int) == n) || (n == 4 && !memcmp(inner, "true", 4)) ||
           (n == 5 && !memcmp(inner, "false", 5)) || (n == 4 && !memcmp(inner, "null", 4));
}

bool lp_notation_in_doubt(const char *s, const char *t)
{
    if (markup_around_scalar(s, t)) return true;
    /* Python's Ellipsis is its ..., content left out, as an ellipsis is */
    if (t - s == 8 && !memcmp(s, "Ellipsis", 8)) return true;
    return arithmetic_text(s, t) || unicode_number_text(s, t) || constructor_call(s, t) || full_width_literal(s, t);
}

const char *lp_plain_word(const char *s, const char *t, char *buf, size_t cap)
{
    size_t n = (size_t)(t - s), k = 0;
    for (size_t i = 0; i < n && !k; i++) k = repair_visible_space(s + i, t);
    if (!k || n >= cap) return s;
    memcpy(buf, s, n);
    buf[n] = '\0';
    for (size_t i = 0; i < n; i += k ? k : 1)
        if ((k = repair_visible_space(s + i, t))) memset(buf + i, ' ', k);
    return buf;
}
