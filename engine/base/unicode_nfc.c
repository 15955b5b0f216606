/*
** unicode_nfc.c: NFC normalisation (decompose canonically, order combining
** marks, compose primary composites) and simple case folding, over the
** generated tables in unicode_nfc_tables.h. Text that is all ASCII is
** already NFC and skips all of it.
*/
#include "base/unicode_nfc.h"

#include "base/unicode_nfc_tables.h"

#define N_ELEMS(t) (sizeof(t) / sizeof *(t))

/* Hangul syllables are composed and decomposed by arithmetic. */
enum { SBASE = 0xAC00, LBASE = 0x1100, VBASE = 0x1161, TBASE = 0x11A7, LCOUNT = 19, VCOUNT = 21, TCOUNT = 28,
       NCOUNT = VCOUNT * TCOUNT, SCOUNT = LCOUNT * NCOUNT };

static const uint32_t *find3(const uint32_t (*t)[3], size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid][0] < cp) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && t[lo][0] == cp ? t[lo] : NULL;
}

static int ccc(uint32_t cp)
{
    size_t lo = 0, hi = N_ELEMS(nfc_ccc);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (nfc_ccc[mid][1] < cp) lo = mid + 1;
        else hi = mid;
    }
    return lo < N_ELEMS(nfc_ccc) && nfc_ccc[lo][0] <= cp ? (int)nfc_ccc[lo][2] : 0;
}

static uint32_t compose(uint32_t a, uint32_t b)
{
    if (a >= LBASE && a < LBASE + LCOUNT && b >= VBASE && b < VBASE + VCOUNT)
        return SBASE + ((a - LBASE) * VCOUNT + (b - VBASE)) * TCOUNT;
    if (a >= SBASE && a < SBASE + SCOUNT && (a - SBASE) % TCOUNT == 0 && b > TBASE && b < TBASE + TCOUNT)
        return a + (b - TBASE);
    size_t lo = 0, hi = N_ELEMS(nfc_comp);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (nfc_comp[mid][0] < a || (nfc_comp[mid][0] == a && nfc_comp[mid][1] < b)) lo = mid + 1;
        else hi = mid;
    }
    return lo < N_ELEMS(nfc_comp) && nfc_comp[lo][0] == a && nfc_comp[lo][1] == b ? nfc_comp[lo][2] : 0;
}

uint32_t coax_fold_case(uint32_t cp)
{
    if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
    size_t lo = 0, hi = N_ELEMS(nfc_lower);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (nfc_lower[mid][0] < cp) lo = mid + 1;
        else hi = mid;
    }
    return lo < N_ELEMS(nfc_lower) && nfc_lower[lo][0] == cp ? nfc_lower[lo][1] : cp;
}

/* Appends the full canonical decomposition of 'cp' to out[*n..] (room for
** at least 4 * decomposition depth; canonical decompositions are at most 4
** code points deep). */
static void decompose(uint32_t cp, uint32_t *out, size_t *n)
{
    if (cp >= SBASE && cp < SBASE + SCOUNT) {
        uint32_t s = cp - SBASE;
        out[(*n)++] = LBASE + s / NCOUNT;
        out[(*n)++] = VBASE + (s % NCOUNT) / TCOUNT;
        if (s % TCOUNT) out[(*n)++] = TBASE + s % TCOUNT;
        return;
    }
    const uint32_t *d = find3(nfc_decomp, N_ELEMS(nfc_decomp), cp);
    if (!d) {
        out[(*n)++] = cp;
        return;
    }
    decompose(d[1], out, n);
    if (d[2]) decompose(d[2], out, n);
}

/* Puts the marks run[0..m) (each of a nonzero combining class) in
** canonical order: by class, stable. Short runs (most text has a mark or
** two on a letter) by insertion; longer ones counted by class through
** 'tmp' (m entries; NULL: no room, by insertion too), so a long run of
** marks costs linear time, not m^2. */
static void order_marks(uint32_t *run, size_t m, uint32_t *tmp)
{
    if (m < 16 || !tmp) {
        for (size_t x = 1; x < m; x++) {
            uint32_t cp = run[x];
            int cx = ccc(cp);
            size_t y = x;
            for (; y > 0 && ccc(run[y - 1]) > cx; y--) run[y] = run[y - 1];
            run[y] = cp;
        }
        return;
    }
    size_t at[257] = {0};
    for (size_t x = 0; x < m; x++) { /* the class above the code point's 21 bits */
        uint32_t cx = (uint32_t)ccc(run[x]);
        tmp[x] = cx << 21 | run[x];
        at[cx + 1]++;
    }
    for (size_t c = 1; c < 257; c++) at[c] += at[c - 1];
    for (size_t x = 0; x < m; x++) run[at[tmp[x] >> 21]++] = tmp[x] & 0x1FFFFF;
}

/* The NFC code points of s[0..n) (valid UTF-8) in cps[0..*count): cps has
** room for 4 * n + 4. A code point decomposes into at most 1.5 per byte
** it takes (U+01D5, two bytes, into three code points), so past the code
** points there is room for as many again: order_marks' scratch, checked
** all the same. */
static void nfc_points(const char *s, size_t n, uint32_t *cps, size_t *count)
{
    const size_t room = 4 * n + 4;
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += coax_utf8_decode((const unsigned char *)s + i, n - i, &cp);
        decompose(cp, cps, &k);
    }
    /* Canonical order: each run of marks (nonzero classes) by class. */
    for (size_t x = 0; x < k;) {
        if (!ccc(cps[x])) {
            x++;
            continue;
        }
        size_t end = x + 1;
        while (end < k && ccc(cps[end])) end++;
        order_marks(cps + x, end - x, room - k >= end - x ? cps + k : NULL);
        x = end;
    }
    /* Composition: each mark joins the last starter unless blocked. */
    size_t w = 0, starter = SIZE_MAX;
    int last = -1;
    for (size_t x = 0; x < k; x++) {
        uint32_t cp = cps[x];
        int cx = ccc(cp);
        uint32_t c = starter != SIZE_MAX && (last < cx || (last == 0 && w == starter + 1)) ? compose(cps[starter], cp) : 0;
        if (c && (last < cx || last == 0)) {
            cps[starter] = c;
            continue;
        }
        if (cx == 0) starter = w;
        last = cx;
        cps[w++] = cp;
    }
    *count = w;
}

static bool is_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] & 0x80) return false;
    return true;
}

char *coax_nfc(coax_arena *a, const char *s, size_t n, size_t *out_len)
{
    if (is_ascii(s, n) || !coax_utf8_valid(s, n)) { /* ASCII is NFC; invalid text stays as it is */
        *out_len = n;
        return coax_arena_strdup(a, s, n);
    }
    uint32_t *cps = coax_arena_alloc(a, (n * 4 + 4) * sizeof *cps);
    char *out = cps ? coax_arena_alloc(a, n * 16 + 1) : NULL;
    if (!out) return NULL;
    size_t w, o = 0;
    nfc_points(s, n, cps, &w);
    for (size_t x = 0; x < w; x++) o += coax_utf8_encode(cps[x], out + o);
    out[o] = '\0';
    *out_len = o;
    return out;
}

static bool ascii_fold_equal(const char *x, const char *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (coax_fold_case((unsigned char)x[i]) != coax_fold_case((unsigned char)y[i])) return false;
    return true;
}

bool coax_nfc_fold_equal(const coax_allocator *al, const char *x, size_t xn, const char *y, size_t yn, bool *oom)
{
    *oom = false;
    if (is_ascii(x, xn) && is_ascii(y, yn)) return xn == yn && ascii_fold_equal(x, y, xn);
    if (!coax_utf8_valid(x, xn) || !coax_utf8_valid(y, yn)) return xn == yn && !memcmp(x, y, xn);
    size_t size = (xn + yn) * 4 + 8;
    uint32_t *p = coax_alloc_raw(al, size * sizeof *p);
    if (!p) {
        *oom = true;
        return false;
    }
    uint32_t *q = p + xn * 4 + 4;
    size_t pn, qn;
    nfc_points(x, xn, p, &pn);
    nfc_points(y, yn, q, &qn);
    bool eq = pn == qn;
    for (size_t i = 0; eq && i < pn; i++) eq = coax_fold_case(p[i]) == coax_fold_case(q[i]);
    coax_free_raw(al, p, size * sizeof *p);
    return eq;
}
