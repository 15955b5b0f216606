/* multipleOf on number texts (schema/num.c): plain decimals of up to 19
** digits are answered with one integer remainder, every other text through
** exact decimals. The same number written with an exponent takes the exact
** path, so each plain case is checked against it. */
#include "coax.h"
#include "schema/num.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static int multiple(const char *x, const char *d) { return coax_num_multiple(x, strlen(x), d, strlen(d)); }

static uint64_t seed = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return seed;
}

/* v / 10^after written plainly ("0.05", "-12.5", "7"), and as digits and
** an exponent ("5e-2"), which takes the exact path. */
static void write(uint64_t v, unsigned after, bool negative, char *plain, char *exp)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    char *p = plain;
    if (negative) *p++ = '-';
    if ((unsigned)n <= after) { /* 0.000ddd */
        *p++ = '0', *p++ = '.';
        for (unsigned i = (unsigned)n; i < after; i++) *p++ = '0';
        memcpy(p, digits, (size_t)n + 1);
    } else {
        memcpy(p, digits, (size_t)n - after);
        p += (size_t)n - after;
        if (after) *p++ = '.';
        memcpy(p, digits + n - after, after + 1);
    }
    sprintf(exp, "%s%se-%u", negative ? "-" : "", digits, after);
}

static uint64_t up_to_digits(unsigned k) /* below 10^k, k <= 19 */
{
    uint64_t p = 1;
    for (unsigned i = 0; i < k; i++) p *= 10;
    return next() % p;
}

static void test_plain_decimals_answer_as_exact_decimals_do(void)
{
    int differ = 0, multiples = 0, cases = 0;
    for (int t = 0; t < 200000; t++) {
        char x[48], xe[48], d[48], de[48];
        /* a divisor of a few significant digits and a place (0.01, 2.5, 300) */
        uint64_t dv = 1 + up_to_digits(1 + next() % 4);
        unsigned da = next() % 8;
        for (unsigned z = next() % 4; z; z--) dv *= 10;
        write(dv, da, false, d, de);
        uint64_t xv;
        unsigned xa;
        if (t % 2) { /* a multiple of it, at the same place or with zeros after */
            xv = dv * (next() % 100000), xa = da;
            for (unsigned z = next() % 3; z; z--) xv *= 10, xa++;
        } else { /* anything of up to 19 digits */
            xv = up_to_digits(1 + next() % 19), xa = next() % 20;
        }
        write(xv, xa, next() % 4 == 0, x, xe);
        int plain = multiple(x, d), exact = multiple(xe, de);
        if (plain != exact && differ++ < 5) printf("  %s / %s: %d, %s / %s: %d\n", x, d, plain, xe, de, exact);
        multiples += exact == 1;
        cases++;
    }
    CHECK_INT(differ, 0);
    CHECK_INT(cases, 200000);
    CHECK(multiples > 100000 && multiples < 190000); /* both answers turn up */
}

static void test_known_multiples(void)
{
    CHECK_INT(multiple("49.5", "0.01"), 1);
    CHECK_INT(multiple("49.505", "0.01"), 0);
    CHECK_INT(multiple("0.3", "0.1"), 1);        /* not 0.30000000000000004 */
    CHECK_INT(multiple("-7.5", "2.5"), 1);
    CHECK_INT(multiple("7.5", "0.2"), 0);
    CHECK_INT(multiple("0", "0.7"), 1);
    CHECK_INT(multiple("-0.0", "3"), 1);
    CHECK_INT(multiple("1.0", "1"), 1);
    CHECK_INT(multiple("4", "0.0001"), 1);
    CHECK_INT(multiple("0.0001", "4"), 0);
    /* past 19 digits, or scaled past 64 bits: the exact path */
    CHECK_INT(multiple("18446744073709551616", "2"), 1);
    CHECK_INT(multiple("18446744073709551617", "2"), 0);
    CHECK_INT(multiple("36893488147419103233", "3"), 1); /* 2^65 + 1: read in 64 bits, 1 */
    CHECK_INT(multiple("9999999999999999999", "0.0000000000000000001"), 1);
    CHECK_INT(multiple("9999999999999999999.5", "0.5"), 1);
    CHECK_INT(multiple("1e308", "0.01"), 1);
    CHECK_INT(multiple("12345678901234567890123", "3"), 1);
}

#define TESTS                                             \
    X(test_plain_decimals_answer_as_exact_decimals_do)    \
    X(test_known_multiples)
#include "test.h"
