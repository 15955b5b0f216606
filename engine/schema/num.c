/*
** num.c: exact decimal arithmetic on JSON number texts, for
** "integer", "multipleOf" and counts. A number is read as M * 10^e with M an
** integer without trailing zeros, so 1.0 is integral, 0.0075 is a multiple
** of 0.0001 and 1e308 never turns into infinity.
*/
#include "schema/num.h"

#include <stdlib.h>

typedef struct dnum {
    bool neg, zero;
    const char *t;
    size_t first, last; /* indexes of the first and last significant digits */
    long long e;        /* power of ten of the last significant digit */
    size_t ndig;        /* significant digits from first to last */
    /* An exponent of more than COAX_EXP_DIGITS digits: 'e' is +-EXP_FAR,
    ** and 'power' the exact one. */
    bool big;
    coax_power power;
} dnum;

#define EXP_FAR 1000000000000000LL

static void dnum_of(const char *t, size_t n, dnum *d)
{
    memset(d, 0, sizeof *d);
    d->t = t;
    size_t i = 0;
    if (i < n && t[i] == '-') {
        d->neg = true;
        i++;
    }
    size_t start = i, point = SIZE_MAX, end;
    while (i < n && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.')) {
        if (t[i] == '.') point = i;
        i++;
    }
    end = i;
    long long exp = 0;
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        coax_power_read(t, i + 1, n, &d->power, &exp);
    }
    if (point == SIZE_MAX) point = end;
    size_t first = SIZE_MAX, last = 0;
    for (size_t k = start; k < end; k++) {
        if (t[k] == '.' || t[k] == '0') continue;
        if (first == SIZE_MAX) first = k;
        last = k;
    }
    if (first == SIZE_MAX) {
        d->zero = true;
        d->neg = false;
        return;
    }
    d->first = first;
    d->last = last;
    /* power of the digit at 'last': digits before the point count down to 0 */
    long long pw = last < point ? (long long)(point - last - 1) : -(long long)(last - point);
    d->power.adj = pw;
    d->big = d->power.elen > COAX_EXP_DIGITS;
    d->e = d->big ? (d->power.neg ? -EXP_FAR : EXP_FAR) : pw + exp;
    size_t nd = 0;
    for (size_t k = first; k <= last; k++) nd += t[k] != '.';
    d->ndig = nd;
}

bool coax_num_is_integral(const char *t, size_t n)
{
    dnum d;
    dnum_of(t, n, &d);
    return d.zero || d.e >= 0;
}

bool coax_num_to_size(const char *t, size_t n, size_t *out)
{
    dnum d;
    dnum_of(t, n, &d);
    if (d.zero) {
        *out = 0;
        return true;
    }
    if (d.neg || d.e < 0) return false;
    if ((long long)d.ndig + d.e > 19) {
        *out = SIZE_MAX;
        return true;
    }
    unsigned long long v = 0;
    for (size_t k = d.first; k <= d.last; k++) {
        if (t[k] == '.') continue;
        v = v * 10 + (unsigned)(t[k] - '0');
    }
    for (long long k = 0; k < d.e; k++) {
        if (v > ULLONG_MAX / 10) {
            *out = SIZE_MAX;
            return true;
        }
        v *= 10;
    }
    *out = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    return true;
}

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    uint64_t r = 0;
    a %= m;
    while (b) {
        if (b & 1) r = (r + a) % m;
        a = (a + a) % m;
        b >>= 1;
    }
    return r;
}

static uint64_t powmod10(unsigned long long k, uint64_t m)
{
    uint64_t r = 1 % m, base = 10 % m;
    while (k) {
        if (k & 1) r = mulmod(r, base, m);
        base = mulmod(base, base, m);
        k >>= 1;
    }
    return r;
}

/* a.e - b.e, exactly when below EXP_FAR either way, else +-EXP_FAR (an
** exponent past COAX_EXP_DIGITS digits read whole: coax_power_diff). A cap
** on the exponents made 6e10000021342904901 a multiple of
** 3e10000021342904902. */
static long long power_diff(const dnum *a, const dnum *b)
{
    if (a->big || b->big) return coax_power_diff(&a->power, &b->power, EXP_FAR);
    long long k = a->e - b->e;
    return k >= EXP_FAR ? EXP_FAR : k <= -EXP_FAR ? -EXP_FAR : k;
}

/* A divisor of up to COAX_NUM_EXACT_DIGITS significant digits, in limbs of
** nine digits, lowest first: enough for any multipleOf a schema means, and
** small enough that reading an instance's digits against it stays a few
** dozen operations a digit (the instance's length is the reply's). */
#define LIMB 1000000000u
#define LIMBS ((COAX_NUM_EXACT_DIGITS + 8) / 9)

typedef struct big {
    uint32_t l[LIMBS + 1]; /* one more: a remainder times ten before it is reduced */
    size_t n;              /* limbs in use; 0 is the number 0 */
} big;

static void big_times_add(big *a, uint32_t mul, uint32_t add)
{
    uint64_t carry = add;
    for (size_t i = 0; i < a->n; i++) {
        uint64_t v = (uint64_t)a->l[i] * mul + carry;
        a->l[i] = (uint32_t)(v % LIMB);
        carry = v / LIMB;
    }
    if (carry) a->l[a->n++] = (uint32_t)carry;
}

/* a / s (s < 2^32), returning the remainder. */
static uint32_t big_div_small(big *a, uint32_t s)
{
    uint64_t r = 0;
    for (size_t i = a->n; i-- > 0;) {
        uint64_t v = r * LIMB + a->l[i];
        a->l[i] = (uint32_t)(v / s);
        r = v % s;
    }
    while (a->n && !a->l[a->n - 1]) a->n--;
    return (uint32_t)r;
}

static int big_cmp(const big *a, const big *b)
{
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (size_t i = a->n; i-- > 0;)
        if (a->l[i] != b->l[i]) return a->l[i] < b->l[i] ? -1 : 1;
    return 0;
}

static void big_sub(big *a, const big *b) /* a >= b */
{
    int64_t borrow = 0;
    for (size_t i = 0; i < a->n; i++) {
        int64_t v = (int64_t)a->l[i] - (i < b->n ? b->l[i] : 0) - borrow;
        borrow = v < 0;
        a->l[i] = (uint32_t)(v + (borrow ? LIMB : 0));
    }
    while (a->n && !a->l[a->n - 1]) a->n--;
}

/* Whether m divides the integer of the digits t[first..last] (points
** skipped) followed by 'zeros' zeros: their remainder, a digit at a time,
** less the largest multiple of m below ten times it (one subtraction; m
** subtracted until below took four and a half on average, 0.2 us a digit
** of a 64-digit divisor). */
static bool big_divides(const big *m, const char *t, size_t first, size_t last, size_t zeros)
{
    big times[10]; /* times[j] = j m */
    for (uint32_t j = 0; j < 10; j++) {
        times[j] = *m;
        big_times_add(&times[j], j, 0);
        while (times[j].n && !times[j].l[times[j].n - 1]) times[j].n--; /* 0 m: no limbs */
    }
    big r = {{0}, 0};
    for (size_t i = first; i <= last + zeros; i++) {
        if (i <= last && t[i] == '.') continue;
        big_times_add(&r, 10, i <= last ? (uint32_t)(t[i] - '0') : 0);
        int j = 9; /* r < 10m */
        while (j && big_cmp(&r, &times[j]) < 0) j--;
        if (j) big_sub(&r, &times[j]);
    }
    return r.n == 0;
}

/* coax_num_multiple for a divisor past 18 significant digits: M_b = 2^p 5^q m
** with m prime to 10 divides M_a 10^k when m divides M_a and 10^k's 2s and 5s
** with M_a's cover p and q; where k covers both, M_a modulo m alone says. */
static int multiple_long(const dnum *a, const char *x, const dnum *b, const char *d, long long k)
{
    if (b->ndig > COAX_NUM_EXACT_DIGITS) return -1;
    big m = {{0}, 0};
    for (size_t i = b->first; i <= b->last; i++)
        if (d[i] != '.') big_times_add(&m, 10, (uint32_t)(d[i] - '0'));
    big whole = m;
    long long p = 0, q = 0;
    for (big t = m; big_div_small(&t, 2) == 0; m = t) p++;
    for (big t = m; big_div_small(&t, 5) == 0; m = t) q++;
    if (k >= p && k >= q) return big_divides(&m, x, a->first, a->last, 0);
    return big_divides(&whole, x, a->first, a->last, (size_t)k); /* k < p or q: a few hundred zeros at most */
}

/* A number written as plain digits with at most one point and no exponent,
** 19 digits at most: the digits as an integer and how many follow the point.
** Most instances and divisors are (49.5, 0.01): read at once, not as dnums. */
static bool plain_decimal(const char *t, size_t n, uint64_t *digits, unsigned *after)
{
    size_t i = n && t[0] == '-';
    uint64_t v = 0;
    size_t count = 0, point = 0;
    bool seen = false;
    for (; i < n; i++) {
        unsigned digit = (unsigned char)t[i] - (unsigned)'0';
        if (digit < 10) {
            v = v * 10 + digit; /* past 19 digits it wraps, and is not used */
            count++;
            point += seen;
        } else if (t[i] == '.' && !seen) {
            seen = true;
        } else {
            return false;
        }
    }
    *digits = v, *after = (unsigned)point; /* point <= count <= 19 when it is read */
    return count > 0 && count <= 19;
}

int coax_num_multiple(const char *x, size_t xn, const char *d, size_t dn)
{
    static const uint64_t pow10[20] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
                                       100000000u, 1000000000u, 10000000000u, 100000000000u,
                                       1000000000000u, 10000000000000u, 100000000000000u,
                                       1000000000000000u, 10000000000000000u, 100000000000000000u,
                                       1000000000000000000u, 10000000000000000000u};
    uint64_t xd, dd, xs, ds;
    unsigned xa, da;
    if (plain_decimal(x, xn, &xd, &xa) && plain_decimal(d, dn, &dd, &da)) {
        if (xd == 0) return 1;
        if (dd == 0) return 0;
        /* both at the finer point: x = xs / 10^k, d = ds / 10^k */
        unsigned k = xa > da ? xa : da;
        if (!__builtin_mul_overflow(xd, pow10[k - xa], &xs) && !__builtin_mul_overflow(dd, pow10[k - da], &ds))
            return xs % ds == 0;
    }
    dnum a, b;
    dnum_of(x, xn, &a);
    dnum_of(d, dn, &b);
    if (a.zero) return 1;
    if (b.zero) return 0;
    long long k = power_diff(&a, &b);
    if (k < 0) return 0; /* M_a has no factor 10, so M_b * 10^k cannot divide it */
    if (b.ndig > 18) return multiple_long(&a, x, &b, d, k);
    uint64_t m = 0;
    for (size_t k = b.first; k <= b.last; k++)
        if (d[k] != '.') m = m * 10 + (uint64_t)(d[k] - '0');
    if (k >= 64) /* 10^k holds m's factors 2 and 5 (m < 2^60): the rest must divide M_a */
        while (m % 2 == 0 || m % 5 == 0) m /= m % 2 == 0 ? 2 : 5;
    uint64_t r = 0;
    for (size_t i = a.first; i <= a.last; i++)
        if (x[i] != '.') r = (r * 10 + (uint64_t)(x[i] - '0')) % m;
    if (k < 64) r = mulmod(r, powmod10((unsigned long long)k, m), m);
    return r == 0;
}
