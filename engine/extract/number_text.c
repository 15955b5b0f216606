/*
** number_text.c: what the coercions read in a number's text: whether it is
** integral and its integer spelling, and whether its dot may group
** thousands rather than start a fraction.
*/
#include "extract/coerce.h"
#include <stdlib.h>

/* The integer text of an integral number text ("2.0" -> "2", "1e3" ->
** "1000"), in 'buf'; false when not integral or too long to spell. */
bool coerce_integral_text(const char *s, size_t n, char *buf, size_t cap)
{
    size_t i = 0, k = 0;
    bool neg = i < n && s[i] == '-';
    if (neg) i++;
    char digits[64];
    size_t nd = 0;
    long point = -1; /* digits before the decimal point */
    for (; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
        if (s[i] == '.') {
            point = (long)nd;
            continue;
        }
        if (nd == 0 && s[i] == '0' && point < 0) continue; /* leading zeros */
        if (nd >= sizeof digits) return false;
        digits[nd++] = s[i];
    }
    if (point < 0) point = (long)nd;
    long exp = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        char *end;
        exp = strtol(s + i + 1, &end, 10);
        if (exp > 40 || exp < -400) return false;
    }
    long intlen = point + exp;
    /* Everything at and after position intlen must be zero. */
    for (long d = intlen < 0 ? 0 : intlen; d < (long)nd; d++)
        if (digits[d] != '0') return false;
    if (intlen <= 0) {
        if (cap < 2) return false;
        buf[0] = '0';
        buf[1] = '\0';
        return true;
    }
    if ((size_t)intlen + 2 > cap) return false;
    if (neg) buf[k++] = '-';
    for (long d = 0; d < intlen; d++) buf[k++] = d < (long)nd ? digits[d] : '0';
    buf[k] = '\0';
    return true;
}

/* Whether s[0..n) is a group of one to three digits, a dot and three
** more (1.000, -12.000): in much of Europe the dot groups thousands, so
** as an integer the text is 1000 as likely as 1 (only a fraction of
** zeros makes it integral at all, and nobody writes 1 so). */
bool coerce_dot_grouped(const char *s, size_t n)
{
    size_t i = n && s[0] == '-', d = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d || i - d > 3 || s[d] == '0' || i + 4 != n || s[i] != '.') return false;
    for (i++; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}
