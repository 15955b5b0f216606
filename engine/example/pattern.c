/*
** example/pattern.c: a string a regular expression matches, for "pattern"
** and "patternProperties" examples. A recursive-descent walk over the
** ECMA-262 syntax that emits as it parses: the first alternative of each
** alternation, each quantified atom its minimum number of times (plus
** 'extra' for unbounded ones, to reach a minLength), the first member of
** each class. Lookarounds emit nothing. Whatever it makes is checked by the
** validator afterwards, so an approximation costs a candidate, never a
** wrong answer. Nesting, output and steps are bounded.
*/
#include "example/example.h"

#define RX_MAX_NEST 32
#define RX_MAX_OUT 4096
#define RX_MAX_STEPS 100000
#define RX_MAX_RANGES 64

typedef struct rx {
    const char *p;
    size_t len, pos;
    coax_buf *out;
    size_t extra, variant, steps;
    int nest;
    bool fail;
} rx;

typedef struct range {
    uint32_t lo, hi;
} range;

static bool at_end(const rx *r) { return r->pos >= r->len; }
static char peek(const rx *r) { return at_end(r) ? '\0' : r->p[r->pos]; }

static void emit_cp(rx *r, bool emit, uint32_t cp)
{
    if (!emit) return;
    char u[4];
    size_t n = coax_utf8_encode(cp, u);
    if (!n || r->out->len + n > RX_MAX_OUT) {
        r->fail = true;
        return;
    }
    coax_buf_put(r->out, u, n);
}

/* Reads n hex digits (or a {...} group when 'braces'); 0 on failure. */
static bool read_hex(rx *r, int n, bool braces, uint32_t *cp)
{
    uint32_t v = 0;
    if (braces && peek(r) == '{') {
        r->pos++;
        int k = 0;
        while (!at_end(r) && peek(r) != '}' && k < 8) {
            int h = coax_hex_digit(peek(r));
            if (h < 0) return false;
            v = v * 16 + (uint32_t)h;
            r->pos++, k++;
        }
        if (peek(r) != '}' || !k) return false;
        r->pos++;
    } else {
        for (int k = 0; k < n; k++) {
            int h = coax_hex_digit(peek(r));
            if (h < 0) return false;
            v = v * 16 + (uint32_t)h;
            r->pos++;
        }
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return false;
    *cp = v;
    return true;
}

/* The ranges a class escape (\d \w \s and their complements, \p{...})
** stands for; complements and properties are approximated by a few
** representative characters. Returns the number of ranges written. */
static size_t class_escape(char e, range *out)
{
    switch (e) {
    case 'd': out[0] = (range){'0', '9'}; return 1;
    case 'w':
        out[0] = (range){'a', 'z'}, out[1] = (range){'A', 'Z'}, out[2] = (range){'0', '9'};
        out[3] = (range){'_', '_'};
        return 4;
    case 's': out[0] = (range){' ', ' '}, out[1] = (range){'\t', '\r'}; return 2;
    case 'D': out[0] = (range){'a', 'z'}, out[1] = (range){'-', '-'}; return 2;
    case 'W': out[0] = (range){'-', '-'}, out[1] = (range){' ', ' '}; return 2;
    case 'S': out[0] = (range){'a', 'z'}, out[1] = (range){'0', '9'}; return 2;
    default: return 0;
    }
}

/* After a backslash (at r->pos): a single character escape. Sets *cp, or
** fills 'cls' (and returns its count) for class escapes. Returns -1 for
** what cannot be generated. */
static int escape(rx *r, uint32_t *cp, range *cls)
{
    if (at_end(r)) return -1;
    char e = r->p[r->pos++];
    size_t n = class_escape(e, cls);
    if (n) return (int)n;
    switch (e) {
    case 'n': *cp = '\n'; return 0;
    case 'r': *cp = '\r'; return 0;
    case 't': *cp = '\t'; return 0;
    case 'f': *cp = '\f'; return 0;
    case 'v': *cp = '\v'; return 0;
    case '0': *cp = 0; return 0;
    case 'x': return read_hex(r, 2, false, cp) ? 0 : -1;
    case 'u': return read_hex(r, 4, true, cp) ? 0 : -1;
    case 'c':
        if (at_end(r)) return -1;
        *cp = (uint32_t)(r->p[r->pos++] & 31);
        return 0;
    case 'p':
    case 'P':
        /* \p{L}, \p{Letter}, ...: a letter stands for most; the validator decides */
        if (peek(r) == '{') {
            while (!at_end(r) && peek(r) != '}') r->pos++;
            if (at_end(r)) return -1;
            r->pos++;
        }
        cls[0] = e == 'p' ? (range){'a', 'z'} : (range){'0', '9'};
        return 1;
    case 'k':
        return -1;
    default:
        if (e >= '1' && e <= '9') return -1; /* back-references */
        {
            /* an escaped literal, possibly multi-byte */
            size_t k = coax_utf8_decode((const unsigned char *)r->p + r->pos - 1, r->len - r->pos + 1, cp);
            if (!k) return -1;
            r->pos += k - 1;
            return 0;
        }
    }
}

static bool in_ranges(const range *rg, size_t n, uint32_t cp)
{
    for (size_t i = 0; i < n; i++)
        if (cp >= rg[i].lo && cp <= rg[i].hi) return true;
    return false;
}

/* A literal character at r->pos (UTF-8). */
static bool literal(rx *r, uint32_t *cp)
{
    size_t k = coax_utf8_decode((const unsigned char *)r->p + r->pos, r->len - r->pos, cp);
    if (!k) return false;
    r->pos += k;
    return true;
}

/* [...] after the '['. */
static void char_class(rx *r, bool emit)
{
    bool neg = false;
    if (peek(r) == '^') neg = true, r->pos++;
    range rg[RX_MAX_RANGES];
    size_t n = 0;
    while (!at_end(r) && peek(r) != ']') {
        uint32_t lo;
        range cls[4];
        if (peek(r) == '\\') {
            r->pos++;
            int k = escape(r, &lo, cls);
            if (k < 0) {
                r->fail = true;
                return;
            }
            if (k > 0) {
                for (int i = 0; i < k && n < RX_MAX_RANGES; i++) rg[n++] = cls[i];
                continue;
            }
            if (lo == 'b') lo = '\b'; /* [\b] is a backspace */
        } else if (!literal(r, &lo)) {
            r->fail = true;
            return;
        }
        uint32_t hi = lo;
        if (peek(r) == '-' && r->pos + 1 < r->len && r->p[r->pos + 1] != ']') {
            r->pos++;
            if (peek(r) == '\\') {
                r->pos++;
                int k = escape(r, &hi, cls);
                if (k != 0) {
                    r->fail = true;
                    return;
                }
            } else if (!literal(r, &hi)) {
                r->fail = true;
                return;
            }
            if (hi < lo) {
                r->fail = true;
                return;
            }
        }
        if (n < RX_MAX_RANGES) rg[n++] = (range){lo, hi};
    }
    if (at_end(r)) {
        r->fail = true;
        return;
    }
    r->pos++; /* ']' */
    if (!emit) return;
    if (!neg) {
        if (!n) {
            r->fail = true; /* [] matches nothing */
            return;
        }
        uint32_t size = rg[0].hi - rg[0].lo + 1;
        uint32_t cp = rg[0].lo + (uint32_t)(r->variant % size);
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = rg[0].lo;
        emit_cp(r, emit, cp);
        return;
    }
    static const char pick[] = "ax0Z_-. !~";
    for (size_t i = 0; pick[i]; i++) {
        if (!in_ranges(rg, n, (uint32_t)pick[i])) {
            emit_cp(r, emit, (uint32_t)pick[i]);
            return;
        }
    }
    emit_cp(r, emit, 0x00E9);
}

static void alternation(rx *r, bool emit);

/* One atom at r->pos, emitted when 'emit'. */
static void atom(rx *r, bool emit)
{
    if (++r->steps > RX_MAX_STEPS) {
        r->fail = true;
        return;
    }
    char ch = peek(r);
    uint32_t cp;
    range cls[4];
    switch (ch) {
    case '^':
    case '$':
        r->pos++;
        return;
    case '.':
        r->pos++;
        emit_cp(r, emit, 'a' + (uint32_t)(r->variant % 26));
        return;
    case '[':
        r->pos++;
        char_class(r, emit);
        return;
    case '(': {
        r->pos++;
        bool quiet = false;
        if (peek(r) == '?') {
            r->pos++;
            char k = peek(r);
            if (k == ':') {
                r->pos++;
            } else if (k == '=' || k == '!') {
                r->pos++, quiet = true;
            } else if (k == '<' && r->pos + 1 < r->len &&
                       (r->p[r->pos + 1] == '=' || r->p[r->pos + 1] == '!')) {
                r->pos += 2, quiet = true;
            } else if (k == '<') {
                while (!at_end(r) && peek(r) != '>') r->pos++;
                if (at_end(r)) {
                    r->fail = true;
                    return;
                }
                r->pos++;
            } else {
                r->fail = true;
                return;
            }
        }
        if (++r->nest > RX_MAX_NEST) {
            r->fail = true;
            return;
        }
        alternation(r, emit && !quiet);
        r->nest--;
        if (peek(r) != ')') {
            r->fail = true;
            return;
        }
        r->pos++;
        return;
    }
    case '\\': {
        r->pos++;
        if (peek(r) == 'b' || peek(r) == 'B') { /* word boundaries: nothing to emit */
            r->pos++;
            return;
        }
        int k = escape(r, &cp, cls);
        if (k < 0) {
            r->fail = true;
            return;
        }
        if (k > 0) {
            uint32_t size = cls[0].hi - cls[0].lo + 1;
            emit_cp(r, emit, cls[0].lo + (uint32_t)(r->variant % size));
        } else {
            emit_cp(r, emit, cp);
        }
        return;
    }
    default:
        if (!literal(r, &cp)) {
            r->fail = true;
            return;
        }
        emit_cp(r, emit, cp);
        return;
    }
}

/* A {n}, {n,} or {n,m} quantifier at r->pos; false (pos unchanged) when the
** brace is a literal. */
static bool braces(rx *r, size_t *lo, size_t *hi)
{
    size_t p = r->pos + 1, a = 0, b;
    bool digits = false;
    while (p < r->len && r->p[p] >= '0' && r->p[p] <= '9') {
        if (a < 100000) a = a * 10 + (size_t)(r->p[p] - '0');
        p++, digits = true;
    }
    if (!digits) return false;
    b = a;
    if (p < r->len && r->p[p] == ',') {
        p++;
        b = SIZE_MAX;
        if (p < r->len && r->p[p] >= '0' && r->p[p] <= '9') {
            b = 0;
            while (p < r->len && r->p[p] >= '0' && r->p[p] <= '9') {
                if (b < 100000) b = b * 10 + (size_t)(r->p[p] - '0');
                p++;
            }
        }
    }
    if (p >= r->len || r->p[p] != '}') return false;
    r->pos = p + 1;
    *lo = a, *hi = b;
    return true;
}

/* A sequence of quantified atoms, up to '|' or ')' or the end. */
static void sequence(rx *r, bool emit)
{
    while (!at_end(r) && !r->fail && peek(r) != '|' && peek(r) != ')') {
        size_t start = r->pos;
        atom(r, false); /* find the atom's end */
        if (r->fail) return;
        size_t lo = 1, hi = 1;
        char q = peek(r);
        if (q == '*') lo = 0, hi = SIZE_MAX, r->pos++;
        else if (q == '+') lo = 1, hi = SIZE_MAX, r->pos++;
        else if (q == '?') lo = 0, hi = 1, r->pos++;
        else if (q == '{' && braces(r, &lo, &hi)) {
            if (hi < lo) {
                r->fail = true;
                return;
            }
        }
        if ((lo != 1 || hi != 1) && peek(r) == '?') r->pos++; /* lazy */
        size_t count = lo;
        if (hi > lo) count = lo + (r->extra < hi - lo ? r->extra : hi - lo);
        if (!emit) continue;
        size_t end = r->pos;
        for (size_t i = 0; i < count && !r->fail; i++) {
            r->pos = start;
            atom(r, true);
        }
        r->pos = end;
    }
}

static void alternation(rx *r, bool emit)
{
    sequence(r, emit);
    while (!r->fail && peek(r) == '|') {
        r->pos++;
        sequence(r, false);
    }
}

bool ex_regex_string(coax_buf *b, const char *p, size_t len, size_t extra, size_t variant)
{
    rx r = {.p = p, .len = len, .out = b, .extra = extra, .variant = variant};
    alternation(&r, true);
    if (!r.fail && !at_end(&r)) r.fail = true; /* an unbalanced ')' */
    return !r.fail && !b->oom;
}
