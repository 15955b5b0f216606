/*
** dot_number.c: numbers read and written with a '.' whatever the host's locale.
**
** strtod and printf follow LC_NUMERIC, which belongs to the host process: a
** host that calls setlocale(LC_ALL, "") under de_DE (GTK and Qt do) makes
** strtod("1.5e3") stop at the '.' and read 1, printf("%g", 1.5) write "1,5",
** and strtod("1,5]") read one and a half out of a JSON array's two numbers.
** JSON's numbers are the engine's data, not the user's display, so every
** conversion between a number's text and a double goes through these two.
** No state: the locale can change between two calls, and hosts run engines
** on several threads.
*/
#include "base/core.h"

#include <stdio.h>
#include <stdlib.h>

/* A double's correct rounding never depends on more than 767 significant
** digits (the longest exact halfway point between two doubles): keeping
** 768 and one nonzero digit for any nonzero digit dropped rounds as the
** whole numeral does. */
#define KEEP_DIGITS 768
/* An exponent this far out already makes any kept digits inf or 0; it is
** applied to the sum of the written exponent and the digits' own (a
** numeral of a million zeros after its point and e1000002 is 1). */
#define EXP_LIMIT 100000
#define EXP_SATURATED (1LL << 50)

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Bytes a number's text holds in the "C" locale, hex and inf/nan included;
** anything else in what strtod consumed is the locale's decimal point (one
** byte or several) or its thousands separator. */
static bool c_number_byte(unsigned char c)
{
    return coax_ascii_alnum(c) || c == '+' || c == '-' || c == '.' || coax_ascii_space(c);
}

static bool is_xdigit(char c) { return coax_hex_digit((unsigned char)c) >= 0; }

/* The numeral at s read as the "C" locale reads it, by writing its digits
** again as an integer with an exponent: a text with no point at all reads
** alike under every locale. 'hex': s is "0x" and hex digits (after blanks
** and a sign), whose exponent is 'p' and binary, four bits a digit: a hex
** numeral's point is the locale's too ("0x1,8p1" read 3 under de_DE, "0x1.8"
** read 1), and cjson accepts hex. Returns false when s holds no digit. */
static bool read_without_point(const char *s, bool hex, double *out, char **end)
{
    char buf[KEEP_DIGITS + 32];
    size_t n = 0, kept = 0;
    long long exp = 0, step = hex ? 4 : 1;
    bool any = false, fraction = false, dropped = false;
    const char *p = s;
    while (coax_ascii_space((unsigned char)*p)) p++;
    if (*p == '-' || *p == '+') buf[n++] = *p++;
    if (hex) {
        buf[n++] = '0';
        buf[n++] = 'x';
        p += 2;
    }
    for (;; p++) {
        if (*p == '.' && !fraction) {
            fraction = true;
            continue;
        }
        if (!(hex ? is_xdigit(*p) : is_digit(*p))) break;
        any = true;
        if (kept == 0 && *p == '0') {
            exp -= fraction * step; /* a leading zero after the point moves the first digit right */
        } else if (kept < KEEP_DIGITS) {
            buf[n++] = *p;
            kept++;
            exp -= fraction * step;
        } else {
            dropped |= *p != '0';
            exp += !fraction * step;
        }
    }
    if (!any) return false;
    if (kept == 0) buf[n++] = '0';
    if (dropped) {
        buf[n++] = '1';
        exp -= step;
    }
    char mark = hex ? 'p' : 'e';
    if ((*p | 0x20) == mark && (is_digit(p[1]) || ((p[1] == '-' || p[1] == '+') && is_digit(p[2])))) {
        const char *q = p + 1;
        int sign = *q == '-' ? -1 : 1;
        if (*q == '-' || *q == '+') q++;
        long long e = 0;
        for (; is_digit(*q); q++) /* saturates far past any sum that could come back into range */
            if (e < EXP_SATURATED) e = e * 10 + (*q - '0');
        exp += sign * e;
        p = q;
    }
    if (exp > EXP_LIMIT) exp = EXP_LIMIT;
    if (exp < -EXP_LIMIT) exp = -EXP_LIMIT;
    buf[n++] = mark;
    if (exp < 0) {
        buf[n++] = '-';
        exp = -exp;
    }
    n += coax_decimal(buf + n, (uint64_t)exp);
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    *end = (char *)p;
    return true;
}

/* "0x" and a hex digit, or a point and one, after blanks and a sign: what
** the "C" locale reads as a hex numeral ("0x" alone is the numeral 0). */
static bool is_hex(const char *p)
{
    while (coax_ascii_space((unsigned char)*p)) p++;
    if (*p == '-' || *p == '+') p++;
    if (p[0] != '0' || (p[1] | 0x20) != 'x') return false;
    return is_xdigit(p[2]) || (p[2] == '.' && is_xdigit(p[3]));
}

double coax_dot_strtod(const char *s, char **end)
{
    char *e;
    double d;
    if (is_hex(s) && read_without_point(s, true, &d, &e)) {
        if (end) *end = e;
        return d;
    }
    d = strtod(s, &e);
    /* strtod's reading is the "C" locale's unless it stopped at a '.' (the
    ** locale's point is another), read nothing ("-.5" there), or took in a
    ** byte no "C" numeral has (a locale's ',' read as a point). In the "C"
    ** locale only "1.." stops at a '.', and the reading below agrees. */
    bool plain = *e != '.' && e > s, c_bytes = true;
    for (const char *p = s; c_bytes && p < e; p++) c_bytes = c_number_byte((unsigned char)*p);
    plain = plain && c_bytes;
    if (!plain) {
        double d2;
        char *e2;
        if (read_without_point(s, false, &d2, &e2)) {
            d = d2;
            e = e2;
        } else if (!c_bytes) { /* ",5": the locale's point alone, no numeral under "C" */
            d = 0;
            e = (char *)s;
        }
    }
    if (end) *end = e;
    return d;
}

int coax_dot_format(char *buf, size_t cap, const char *fmt, double d)
{
    int n = snprintf(buf, cap, fmt, d);
    if (n <= 0 || cap == 0) return n;
    size_t len = (size_t)n < cap ? (size_t)n : cap - 1, w = 0;
    /* One conversion's output holds digits, signs, letters (e, inf, nan,
    ** hex) and padding; any other run of bytes is the locale's point. */
    for (size_t r = 0; r < len;) {
        if (c_number_byte((unsigned char)buf[r]) && buf[r] != '.') {
            buf[w++] = buf[r++];
            continue;
        }
        buf[w++] = '.';
        r++;
        while (r < len && !c_number_byte((unsigned char)buf[r])) r++;
    }
    buf[w] = '\0';
    return n - (int)(len - w);
}
