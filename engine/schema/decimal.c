/*
** decimal.c: the pattern Pydantic writes for every Decimal field,
**     ^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$
** matched without PCRE2 when the string is a plain decimal number (a sign,
** digits, a point, digits; one digit at least), which is nearly always.
** Every such string matches the pattern. What the match costs the regex
** budget is what PCRE2 counts for it (regex.c: a step per item of the
** pattern tried, and one per 16 characters the subject position moves
** between two): it walks the same items on every plain decimal, and only
** the lengths of its runs (leading zeros, other digits, fraction digits)
** move the position, so the cost is a function of those lengths. That
** function was measured against PCRE2 on every string of up to 9
** characters of "05.+-" and on 300,000 random ones with runs of up to 70;
** and because another PCRE2 build might count otherwise, each compilation
** checks it against the PCRE2 it runs on (coax_decimal_agrees) before
** using it. Any other string goes to PCRE2.
*/
#include "schema/decimal.h"

#include <stdio.h>

#define DECIMAL_PATTERN "^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$"
#define DECIMAL_MAX 160 /* longer strings go to PCRE2: the measured range */

bool coax_decimal_pattern(const char *p, size_t len)
{
    return len == sizeof DECIMAL_PATTERN - 1 && !memcmp(p, DECIMAL_PATTERN, len);
}

/* The end of the run of digits from p (before e). */
static const char *digits(const char *p, const char *e)
{
    while (p < e && (unsigned char)(*p - '0') < 10) p++;
    return p;
}

int coax_decimal_match(const char *s, size_t n, uint64_t *cost)
{
    if (n > DECIMAL_MAX) return -1;
    const char *e = s + n, *p = s + (n && (s[0] == '+' || s[0] == '-')), *z = p;
    size_t sign = (size_t)(p - s);
    while (p < e && *p == '0') p++;
    const char *d = p;
    p = digits(p, e);
    size_t zeros = (size_t)(d - z), ints = (size_t)(p - d), fracs = 0;
    if (p < e && *p == '.') {
        const char *f = ++p;
        p = digits(p, e);
        fracs = (size_t)(p - f);
    }
    if (p != e || zeros + ints + fracs == 0) return -1;
    /* the items PCRE2 tries: 12, one more past a sign, one more when the
    ** point comes first; and the runs' lengths by 16 */
    *cost = 12 + sign + (zeros + ints == 0) + zeros / 16 + ints / 16 + fracs / 16;
    return 1;
}

bool coax_decimal_agrees(const coax_regex_env *env, const coax_regex *re)
{
    /* with or without a sign, a point first or not, a fraction or not; each
    ** run alone of lengths on both sides of where its cost steps (16, 32),
    ** and all three together */
    static const char *const heads[] = {"", "-", "+"};
    static const unsigned runs[] = {1, 15, 16, 33};
    char s[3 * 48 + 8], u[sizeof s];
    coax_regex_scratch *sc = coax_regex_scratch_new(env);
    if (!sc) return false;
    bool ok = true;
    for (size_t h = 0; h < 3 && ok; h++) {
        for (size_t r = 0; r < sizeof runs / sizeof runs[0] && ok; r++) {
            for (int what = 0; what < 4 && ok; what++) { /* the run: zeros, digits, fraction, all three */
                size_t n = (size_t)snprintf(s, sizeof s, "%s", heads[h]), len = runs[r];
                for (size_t j = 0; j < (what == 0 || what == 3 ? len : 1); j++) s[n++] = '0';
                for (size_t j = 0; j < (what == 1 || what == 3 ? len : 1); j++) s[n++] = (char)('1' + j % 9);
                s[n++] = '.';
                for (size_t j = 0; j < (what == 2 || what == 3 ? len : 1); j++) s[n++] = (char)('0' + j % 10);
                const char *dot = memchr(s, '.', n);
                for (int cut = 0; cut < 3 && ok; cut++) { /* as is; without the integer part; without the fraction */
                    const char *t = s;
                    size_t tn = n;
                    if (cut == 1) { /* the sign, then from the point */
                        size_t hl = strlen(heads[h]);
                        memcpy(u, s, hl);
                        memcpy(u + hl, dot, (size_t)(s + n - dot));
                        t = u, tn = hl + (size_t)(s + n - dot);
                    } else if (cut == 2) {
                        tn = (size_t)(dot - s);
                    }
                    uint64_t want, budget = UINT32_MAX;
                    if (coax_decimal_match(t, tn, &want) != 1) continue;
                    int m = coax_regex_match_in(env, re, t, tn, sc, &budget);
                    ok = m == 1 && UINT32_MAX - budget == want;
                }
            }
        }
    }
    coax_regex_scratch_free(env, sc);
    return ok;
}
