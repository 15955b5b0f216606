/*
** example/scalar.c: numbers and strings for example instances.
**
** Numbers are multiples of a step (the least common multiple of every
** multipleOf, as exact decimals, or 1) inside the tightest bounds; the
** preferred value is 1 (its first multiple), moved inside the bounds. Strings come from a format
** (a real date, email, uuid...), else a pattern, else the word "string",
** padded or cut to the length bounds. Each function hands out its
** candidates one by one ('attempt'); the caller validates them.
*/
#include "example/example.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define EX_MAX_STRING 65536

const coax_value *ex_member(const snode *n, const char *key)
{
    if (n->kind != N_OBJECT || !n->src || n->src->type != COAX_OBJECT) return NULL;
    return coax_object_get(n->src, key, strlen(key));
}

static coax_value *new_text(ex_ctx *c, coax_type t, const char *s, size_t len)
{
    coax_value *v = coax_new_value(c->work, t);
    if (!v) {
        c->rc = COAX_ENOMEM;
        return NULL;
    }
    coax_code rc = t == COAX_NUMBER ? coax_set_number(c->work, v, s, len) : coax_set_string(c->work, v, s, len);
    if (rc == COAX_ENOMEM) c->rc = rc;
    return rc ? NULL : v;
}

/* ---- numbers ------------------------------------------------------------ */

/* An exact decimal mant * 10^-scale, with mant below 2^53. */
typedef struct dec {
    int64_t mant;
    int scale;
} dec;

#define DEC_MAX ((int64_t)1 << 53)

static bool dec_parse(const char *t, size_t n, dec *out)
{
    int64_t m = 0;
    int scale = 0;
    size_t i = 0;
    bool neg = i < n && t[i] == '-';
    if (neg) i++;
    bool frac = false;
    for (; i < n; i++) {
        char ch = t[i];
        if (ch == '.') {
            frac = true;
            continue;
        }
        if (ch < '0' || ch > '9') break;
        if (m > DEC_MAX / 10) return false;
        m = m * 10 + (ch - '0');
        if (frac) scale++;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        long e = strtol(t + i + 1, NULL, 10);
        if (e > 30 || e < -30) return false;
        scale -= (int)e;
    }
    while (scale < 0) {
        if (m > DEC_MAX / 10) return false;
        m *= 10, scale++;
    }
    while (scale > 0 && m % 10 == 0 && m) m /= 10, scale--;
    if (scale > 18) return false;
    out->mant = neg ? -m : m;
    out->scale = scale;
    return true;
}

static int64_t pow10i(int e)
{
    int64_t p = 1;
    while (e-- > 0) p *= 10;
    return p;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* a * b, or 0 when it leaves (0, 2^53]. */
static int64_t mul_capped(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0 || a > DEC_MAX / b) return 0;
    return a * b;
}

/* The least common multiple of two decimals at a common scale; false when
** it does not fit. */
static bool dec_lcm(dec a, dec b, dec *out)
{
    int s = a.scale > b.scale ? a.scale : b.scale;
    int64_t x = mul_capped(a.mant, pow10i(s - a.scale)), y = mul_capped(b.mant, pow10i(s - b.scale));
    if (!x || !y) return false;
    int64_t l = mul_capped(x / gcd64(x, y), y);
    if (!l) return false;
    out->mant = l, out->scale = s;
    while (out->scale > 0 && out->mant % 10 == 0) out->mant /= 10, out->scale--;
    return true;
}

/* Writes k * step as decimal text into buf; false on overflow. */
static bool dec_format(int64_t k, dec step, char *buf, size_t cap)
{
    if (k && (k > INT64_MAX / step.mant || k < -(INT64_MAX / step.mant))) return false;
    int64_t v = k * step.mant;
    bool neg = v < 0;
    uint64_t u = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)u);
    int s = step.scale;
    while (s > 0 && n > 1 && digits[n - 1] == '0') digits[--n] = '\0', s--; /* 1.50 -> 1.5 */
    if (s > 0 && n > 0 && u == 0) s = 0;
    size_t o = 0;
    if (neg) buf[o++] = '-';
    if (s == 0) {
        memcpy(buf + o, digits, (size_t)n + 1);
        return true;
    }
    if (n <= s) {
        buf[o++] = '0', buf[o++] = '.';
        for (int i = 0; i < s - n; i++) buf[o++] = '0';
        memcpy(buf + o, digits, (size_t)n + 1);
    } else {
        memcpy(buf + o, digits, (size_t)(n - s));
        o += (size_t)(n - s);
        buf[o++] = '.';
        memcpy(buf + o, digits + n - s, (size_t)s + 1);
    }
    (void)cap;
    return true;
}

typedef struct bounds {
    bool has_lo, lo_ex, has_hi, hi_ex;
    double lo, hi;
    const coax_value *lo_v, *hi_v;
    dec step;
    bool step_ok; /* the step is exact (else candidates are a guess) */
    bool any_multiple;
} bounds;

static double num_of(const coax_value *v) { return coax_dot_strtod(v->u.text, NULL); }

static void collect_bounds(const ex_conj *L, bool integer, bounds *b)
{
    memset(b, 0, sizeof *b);
    b->step = (dec){1, 0};
    b->step_ok = true;
    bool first_multiple = true;
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (!w->v || w->v->type != COAX_NUMBER) continue;
            double x = num_of(w->v);
            switch (w->op) {
            case OP_MINIMUM:
            case OP_EXMINIMUM: {
                bool ex = w->op == OP_EXMINIMUM;
                if (!b->has_lo || x > b->lo || (x == b->lo && ex)) {
                    b->lo = x, b->lo_ex = ex, b->lo_v = w->v;
                }
                b->has_lo = true;
                break;
            }
            case OP_MAXIMUM:
            case OP_EXMAXIMUM: {
                bool ex = w->op == OP_EXMAXIMUM;
                if (!b->has_hi || x < b->hi || (x == b->hi && ex)) {
                    b->hi = x, b->hi_ex = ex, b->hi_v = w->v;
                }
                b->has_hi = true;
                break;
            }
            case OP_MULTIPLEOF: {
                dec d;
                b->any_multiple = true;
                if (!dec_parse(w->v->u.text, w->v->len, &d) || d.mant <= 0) {
                    b->step_ok = false;
                    break;
                }
                if (first_multiple) {
                    b->step = d;
                    first_multiple = false;
                } else if (!dec_lcm(b->step, d, &b->step)) {
                    b->step_ok = false;
                }
                break;
            }
            default:
                break;
            }
        }
    }
    if (integer && b->step.scale > 0) {
        dec one = {1, 0};
        if (!dec_lcm(b->step, one, &b->step)) b->step_ok = false;
    }
}

coax_value *ex_number(ex_ctx *c, const ex_conj *L, bool integer, size_t variant, size_t attempt)
{
    bounds b;
    collect_bounds(L, integer, &b);
    double sv = (double)b.step.mant / (double)pow10i(b.step.scale);
    double kmin = -9e15, kmax = 9e15;
    if (b.has_lo) {
        double q = b.lo / sv;
        kmin = b.lo_ex ? floor(q) + 1 : ceil(q);
    }
    if (b.has_hi) {
        double q = b.hi / sv;
        kmax = b.hi_ex ? ceil(q) - 1 : floor(q);
    }
    char buf[64];
    if (attempt < 2) {
        if (!(kmin >= -9e15 && kmax <= 9e15 && kmin <= kmax)) return NULL;
        double k = ceil(1 / sv); /* the first multiple from 1 up, inside the bounds */
        if (k < kmin) k = kmin;
        if (k > kmax) k = kmax;
        k += (double)(variant + attempt);
        if (k > kmax) k = kmax - (double)(variant + attempt);
        if (k < kmin || k > kmax) return NULL;
        if (!dec_format((int64_t)k, b.step, buf, sizeof buf)) return NULL;
        return new_text(c, COAX_NUMBER, buf, strlen(buf));
    }
    if (attempt == 2) { /* between the bounds, for fractional ranges */
        if (integer || b.any_multiple || !b.has_lo || !b.has_hi) return NULL;
        double mid = b.lo + (b.hi - b.lo) / 2 + (double)variant * (b.hi - b.lo) / 1024;
        coax_dot_format(buf, sizeof buf, "%.17g", mid);
        return new_text(c, COAX_NUMBER, buf, strlen(buf));
    }
    if (attempt == 3 && b.has_lo && !b.lo_ex && !variant) return new_text(c, COAX_NUMBER, b.lo_v->u.text, b.lo_v->len);
    if (attempt == 4 && b.has_hi && !b.hi_ex && !variant) return new_text(c, COAX_NUMBER, b.hi_v->u.text, b.hi_v->len);
    if (attempt == 5 && b.has_lo && !b.has_hi && !variant) { /* beyond a huge lower bound */
        coax_dot_format(buf, sizeof buf, "%.17g", b.lo * (b.lo > 0 ? 2 : 0.5) + 1);
        return new_text(c, COAX_NUMBER, buf, strlen(buf));
    }
    return attempt <= 5 ? ex_number(c, L, integer, variant, 6) : NULL;
}

/* ---- formats ------------------------------------------------------------ */

/* The example text for format 'f' into buf; false for formats coax has
** no example for (their strings are then plain). */
static bool format_text(const char *f, size_t v, char *buf, size_t cap)
{
    unsigned u = (unsigned)(v % 1000);
    if (!strcmp(f, "date"))
        snprintf(buf, cap, "2024-01-%02u", 15 + u % 14);
    else if (!strcmp(f, "date-time"))
        snprintf(buf, cap, "2024-01-%02uT09:30:00Z", 15 + u % 14);
    else if (!strcmp(f, "time"))
        snprintf(buf, cap, "09:30:%02uZ", u % 60);
    else if (!strcmp(f, "duration"))
        snprintf(buf, cap, "P%uD", 1 + u);
    else if (!strcmp(f, "email") || !strcmp(f, "idn-email"))
        snprintf(buf, cap, v ? "user%u@example.com" : "user@example.com", u);
    else if (!strcmp(f, "hostname") || !strcmp(f, "idn-hostname"))
        snprintf(buf, cap, v ? "host%u.example.com" : "example.com", u);
    else if (!strcmp(f, "ipv4"))
        snprintf(buf, cap, "192.0.2.%u", 1 + u % 254);
    else if (!strcmp(f, "ipv6"))
        snprintf(buf, cap, "2001:db8::%x", 1 + u);
    else if (!strcmp(f, "uri") || !strcmp(f, "iri") || !strcmp(f, "uri-reference") ||
             !strcmp(f, "iri-reference"))
        snprintf(buf, cap, v ? "https://example.com/%u" : "https://example.com/", u);
    else if (!strcmp(f, "uri-template"))
        snprintf(buf, cap, v ? "https://example.com/items/{id%u}" : "https://example.com/items/{id}", u);
    else if (!strcmp(f, "uuid"))
        snprintf(buf, cap, "123e4567-e89b-12d3-a456-%012llu", 426614174000ull + u);
    else if (!strcmp(f, "json-pointer"))
        snprintf(buf, cap, v ? "/example/%u" : "/example", u);
    else if (!strcmp(f, "relative-json-pointer"))
        snprintf(buf, cap, "%u", u);
    else if (!strcmp(f, "regex"))
        snprintf(buf, cap, v ? "^[a-z]{%u}$" : "^[a-z]+$", u);
    else
        return false;
    return true;
}

coax_value *ex_format(ex_ctx *c, const char *f, size_t v)
{
    char buf[128];
    if (!format_text(f, v, buf, sizeof buf)) return NULL;
    return new_text(c, COAX_STRING, buf, strlen(buf));
}

/* ---- strings ------------------------------------------------------------ */

static size_t code_points(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) k++;
    return k;
}

typedef struct slimits {
    size_t min, max;
    const coax_value *pat[8];
    size_t npat;
    const char *format;
} slimits;

static void collect_string(const ex_conj *L, slimits *s)
{
    memset(s, 0, sizeof *s);
    s->max = SIZE_MAX;
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (w->op == OP_MINLENGTH && w->n > s->min) s->min = w->n;
            if (w->op == OP_MAXLENGTH && w->n < s->max) s->max = w->n;
            if (w->op == OP_PATTERN && s->npat < 8) s->pat[s->npat++] = w->v;
        }
        const coax_value *f = ex_member(n, "format");
        if (!s->format && f && f->type == COAX_STRING) s->format = f->u.text;
    }
}

/* A string from pattern 'p', long enough for s->min when it can be. */
static coax_value *from_pattern(ex_ctx *c, const slimits *s, const coax_value *p, size_t variant)
{
    static const size_t extras[] = {0, 1, 2, 4, 8, 16, 64, 256};
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(c->work));
    coax_value *v = NULL;
    for (size_t i = 0; i < sizeof extras / sizeof *extras; i++) {
        b.len = 0;
        if (!ex_regex_string(&b, p->u.text, p->len, extras[i], variant)) break;
        if (code_points(b.data ? b.data : "", b.len) >= s->min || i + 1 == sizeof extras / sizeof *extras) {
            v = new_text(c, COAX_STRING, b.data ? b.data : "", b.len);
            break;
        }
    }
    if (b.oom) c->rc = COAX_ENOMEM;
    coax_buf_free(&b);
    return v;
}

/* "string", "string2", ... padded with 'x' or cut to the bounds. */
static coax_value *plain(ex_ctx *c, const slimits *s, size_t variant)
{
    char base[32];
    snprintf(base, sizeof base, variant ? "string%zu" : "string", variant + 1);
    size_t len = strlen(base), want = len;
    if (want < s->min) want = s->min;
    if (want > s->max) want = s->max;
    if (want > EX_MAX_STRING) return NULL;
    char *t = coax_arena_alloc(c->work, want + 1);
    if (!t) {
        c->rc = COAX_ENOMEM;
        return NULL;
    }
    if (want >= len) {
        memcpy(t, base, len);
        memset(t + len, 'x', want - len);
    } else { /* shorter than the word: letters that count the variant */
        size_t x = variant;
        for (size_t i = 0; i < want; i++, x /= 26) t[i] = (char)('a' + x % 26);
    }
    return new_text(c, COAX_STRING, t, want);
}

coax_value *ex_string(ex_ctx *c, const ex_conj *L, size_t variant, size_t attempt)
{
    slimits s;
    collect_string(L, &s);
    char buf[128];
    if (s.format && format_text(s.format, variant, buf, sizeof buf)) {
        if (attempt == 0) return new_text(c, COAX_STRING, buf, strlen(buf));
        attempt--;
    }
    if (attempt < s.npat) return from_pattern(c, &s, s.pat[attempt], variant);
    if (attempt == s.npat) return plain(c, &s, variant);
    return NULL;
}
