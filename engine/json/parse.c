/*
** json/parse.c: the strict RFC 8259 parser, coax's fast path.
**
** Iterative with an explicit stack, so input-controlled nesting can never
** overflow the C stack. Pending children of open containers sit in one
** growable array; closing a container copies its children into the arena
** as one contiguous block. The input is copied into the arena once and
** strings are decoded in place there (decoding never grows a string; its
** closing quote becomes its NUL), so a string costs no allocation.
*/
#include "base/core.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* A pending child: a member (key NULL for array items). Keys are decoded
** in place right after their opening quote, so a key's offset in the input
** (for duplicate-key reports) is where its text starts, less one. */
typedef coax_member slot;

typedef struct open {
    size_t base; /* index of the first child in the slot array */
    uint64_t keys; /* an object's key_bits so far */
    bool object;
} open;

typedef struct parser {
    coax_arena *arena;
    const coax_allocator *alloc;
    char *start, *p, *end; /* the arena's copy of the input */
    coax_limits lim;
    coax_error *err;
    slot *slots;
    size_t nslots, cslots;
    open *opens;
    size_t copens;
    void (*on_dup)(void *, size_t);
    void *ud;
    size_t dup_base; /* first slot of the object being deduplicated */
    char *region, *region_end; /* see bump() */
    size_t next_region;
    /* the scratch arrays' first room, in the parser itself: most documents
    ** need no more, and no allocation */
    slot first_slots[32];
    open first_opens[16];
} parser;

/* bump()'s pieces: the first as large as the input (at least 256 bytes, at
** most 64 KB) and taken with the input's copy, then doubling to 64 KB, so a
** small reply needs one allocation and leaves at most its size unused. */
#define REGION_FIRST 256
#define REGION_MAX ((size_t)64 << 10)

#ifndef __SSE2__
/* The bytes that stop the string scanner: '"', '\\', control bytes and
** bytes of multi-byte sequences. */
static const uint8_t string_stop[256] = {
    [0 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xFF] = 1,
};
#endif
static const uint8_t is_ws[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

static coax_code fail(parser *ps, coax_code code, const char *at, const char *what)
{
    size_t off = (size_t)(at - ps->start);
    if (code == COAX_ESYNTAX && at >= ps->end)
        return coax_fail(ps->err, code, off, "unexpected end of input, expected %s", what);
    if (code == COAX_ESYNTAX)
        return coax_fail(ps->err, code, off, "expected %s", what);
    return coax_fail(ps->err, code, off, "%s", what);
}

/* The copy of the input ends in a NUL and SCAN_PAD more zero bytes, so the
** scanners below may read SCAN_PAD bytes at any position up to the end:
** the NUL stops them (it is neither whitespace nor allowed in a string). */
#define SCAN_PAD 16

/* The first byte at or after p that is not whitespace. Most values follow
** no whitespace or one space; indentation runs are skipped sixteen bytes at
** a time. */
static inline char *skip_ws(char *p)
{
    if ((unsigned char)*p > ' ') return p; /* no whitespace byte is above the space */
    if (!is_ws[(unsigned char)*p]) return p;
    p++;
    if ((unsigned char)*p > ' ') return p;
#ifdef __SSE2__
    for (;;) {
        __m128i w = _mm_loadu_si128((const __m128i *)p);
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8(' ')),
                                               _mm_cmpeq_epi8(w, _mm_set1_epi8('\n'))),
                                  _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('\t')),
                                               _mm_cmpeq_epi8(w, _mm_set1_epi8('\r'))));
        unsigned other = ~(unsigned)_mm_movemask_epi8(ws) & 0xFFFF;
        if (other) return p + __builtin_ctz(other);
        p += 16;
    }
#else
    while (is_ws[(unsigned char)*p]) p++;
    return p;
#endif
}

/* Decodes the escapes of a string body in place (s..e, known to be free of
** raw control characters and invalid UTF-8); returns the decoded length. */
static coax_code decode_escapes(parser *ps, char *s, const char *e, size_t *outlen)
{
    char *d = s, *const first = s;
    while (s < e) {
        if (*s != '\\') {
            *d++ = *s++;
            continue;
        }
        const char *at = s;
        s++;
        switch (*s++) {
        case '"': *d++ = '"'; break;
        case '\\': *d++ = '\\'; break;
        case '/': *d++ = '/'; break;
        case 'b': *d++ = '\b'; break;
        case 'f': *d++ = '\f'; break;
        case 'n': *d++ = '\n'; break;
        case 'r': *d++ = '\r'; break;
        case 't': *d++ = '\t'; break;
        case 'u': {
            uint32_t cp, lo;
            if (e - s < 4 || !coax_hex4(s, &cp)) return fail(ps, COAX_ESYNTAX, at, "four hex digits after \\u");
            s += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (e - s < 6 || s[0] != '\\' || s[1] != 'u' || !coax_hex4(s + 2, &lo) ||
                    lo < 0xDC00 || lo > 0xDFFF)
                    return fail(ps, COAX_EUTF8, at, "unpaired UTF-16 surrogate in \\u escape");
                s += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(ps, COAX_EUTF8, at, "unpaired UTF-16 surrogate in \\u escape");
            }
            d += coax_utf8_encode(cp, d);
            break;
        }
        default:
            return fail(ps, COAX_ESYNTAX, at, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
        }
    }
    *outlen = (size_t)(d - first);
    return COAX_OK;
}

/* The first byte at or after p that stops the string scanner: '"', '\\',
** a control character (the NUL after the input among them) or a byte of a
** multi-byte sequence. */
static inline char *string_scan(char *p)
{
#ifdef __SSE2__
    for (;;) {
        __m128i w = _mm_loadu_si128((const __m128i *)p);
        /* signed: bytes >= 0x80 are negative, so "< 0x20" takes them too */
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')),
                                                 _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))),
                                    _mm_cmplt_epi8(w, _mm_set1_epi8(0x20)));
        unsigned m = (unsigned)_mm_movemask_epi8(stop);
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
#else
    while (!string_stop[(unsigned char)*p]) p++;
    return p;
#endif
}

/* Length of the valid UTF-8 sequence at p (a byte >= 0x80), or 0. Two- and
** three-byte sequences are checked here (the NUL after the input fails the
** continuation test, so no length is checked); the rest by coax_utf8_decode. */
static inline size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
    if (p[0] >= 0xC2 && p[0] <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
    /* E1-EC and EE-EF: no overlong form, no surrogate to rule out */
    if (p[0] >= 0xE1 && p[0] <= 0xEF && p[0] != 0xED && (p[1] & 0xC0) == 0x80 &&
        (p[2] & 0xC0) == 0x80)
        return 3;
    uint32_t cp;
    return coax_utf8_decode(p, (size_t)(end - p), &cp);
}

/* Parses the string whose body starts at s (after its opening quote), in
** place; '*pp' receives the byte after its closing quote. Inlined in its
** two uses: strings are most of a document's values and keys. The first
** fault from the left wins (an unclosed string, a raw control character,
** invalid UTF-8); escapes are checked after that, as they are decoded. */
static inline __attribute__((always_inline)) coax_code parse_string(parser *ps, char *s, char **pp,
                                                                    const char **out, uint32_t *outlen)
{
    char *p = s;
    const char *end = ps->end;
    bool escaped = false;
    for (;;) {
        p = string_scan(p);
        if (*p == '"') break;
        if (*p == '\\') {
            escaped = true;
            if (end - p < 2) return fail(ps, COAX_ESYNTAX, end, "'\"' to close the string");
            p += 2;
            continue;
        }
        if ((signed char)*p >= 0) { /* a control byte, or the NUL after the input */
            if (p >= end) return fail(ps, COAX_ESYNTAX, end, "'\"' to close the string");
            return fail(ps, COAX_ESYNTAX, p, "no raw control character in a string (escape it)");
        }
        /* a run of multi-byte sequences (text in most scripts but Latin) */
        do {
            size_t n = utf8_length((const unsigned char *)p, (const unsigned char *)end);
            if (!n) return fail(ps, COAX_EUTF8, p, "invalid UTF-8 in string");
            p += n;
        } while ((signed char)*p < 0);
    }
    *pp = p + 1;
    size_t n = (size_t)(p - s);
    if (escaped) {
        coax_code rc = decode_escapes(ps, s, p, &n);
        if (rc) return rc;
    }
    if (n > ps->lim.max_string)
        return fail(ps, COAX_ESTRING, s, "string longer than the string limit");
    s[n] = '\0'; /* over the closing quote, or inside the shrunk escapes */
    *out = s;
    *outlen = (uint32_t)n;
    return COAX_OK;
}

/* Copies n bytes, 64 at a time: the C library's memcpy moves large blocks
** with 'rep movsb', one counted instruction a byte under callgrind, and the
** input and the pending children are the parser's only large copies. */
static void copy_bytes(char *restrict d, const char *restrict s, size_t n)
{
#ifdef __SSE2__
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_storeu_si128((__m128i *)d, a);
        _mm_storeu_si128((__m128i *)(d + 16), b);
        _mm_storeu_si128((__m128i *)(d + 32), c);
        _mm_storeu_si128((__m128i *)(d + 48), e);
    }
#endif
    if (n) memcpy(d, s, n);
}

/* Grows a scratch array to hold 'need' elements (doubling). */
static bool grow(parser *ps, void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t ncap = *cap * 2;
    while (ncap < need) ncap *= 2;
    void *p = coax_alloc_raw(ps->alloc, ncap * elem);
    if (!p) return false;
    copy_bytes(p, *arr, *cap * elem);
    if (*arr != ps->first_slots && *arr != ps->first_opens) coax_free_raw(ps->alloc, *arr, *cap * elem);
    *arr = p;
    *cap = ncap;
    return true;
}

/* The arena memory of closed containers, bumped from a region the parser
** takes from the arena in growing pieces (a call per container costs more
** than the container): 8-byte aligned, 8 bytes for an empty container as
** coax_arena_alloc gives. */
static inline void *bump(parser *ps, size_t size)
{
    if (size == 0) size = 8;
    if ((size_t)(ps->region_end - ps->region) < size) {
        size_t piece = ps->next_region > size ? ps->next_region : size;
        char *r = coax_arena_alloc(ps->arena, piece);
        if (!r) return NULL;
        ps->region = r;
        ps->region_end = r + piece;
        if (ps->next_region < REGION_MAX) ps->next_region *= 2;
    }
    void *p = ps->region;
    ps->region += size;
    return p;
}

static void report_dup(void *ud, size_t index)
{
    parser *ps = ud;
    if (ps->on_dup) ps->on_dup(ps->ud, (size_t)(ps->slots[ps->dup_base + index].key - 1 - ps->start));
}

/* Builds the container whose children are slots[base..nslots) into 'v';
** 'at' is where an allocation failure is reported. An object's keys are
** searched for duplicates when key_bits says they may repeat. */
static coax_code close_container(parser *ps, bool object, bool maybe_dup, size_t base, size_t nslots,
                                 coax_value *v, const char *at)
{
    size_t n = nslots - base;
    slot *kids = ps->slots ? ps->slots + base : NULL; /* no slots yet: n is 0 */
    memset(v, 0, sizeof *v);
    if (object) {
        /* Dedupe needs members contiguous: compact slots to members first. */
        coax_member *m = bump(ps, n * sizeof *m);
        if (!m && n) return fail(ps, COAX_ENOMEM, at, "out of memory");
        if (n) memcpy(m, kids, n * sizeof *m);
        size_t k = n;
        if (maybe_dup) {
            ps->dup_base = base;
            k = coax_members_dedupe(m, n, ps->alloc, report_dup, ps);
            if (k == SIZE_MAX) return fail(ps, COAX_ENOMEM, at, "out of memory");
        }
        v->type = COAX_OBJECT;
        v->len = (uint32_t)k;
        v->u.members = m;
    } else {
        coax_value *items = bump(ps, n * sizeof *items);
        if (!items && n) return fail(ps, COAX_ENOMEM, at, "out of memory");
        for (size_t i = 0; i < n; i++) items[i] = kids[i].value;
        v->type = COAX_ARRAY;
        v->len = (uint32_t)n;
        v->u.items = items;
    }
    return COAX_OK;
}

static inline bool is_digit(char c) { return (unsigned char)(c - '0') < 10; }

/* coax_number_span over the padded copy: the NUL after the input stops
** every loop, so no length is checked. */
static inline size_t number_span(const char *s, bool *is_int)
{
    const char *p = s;
    *is_int = true;
    if (*p == '-') p++;
    if (*p == '0') p++;
    else if (is_digit(*p)) while (is_digit(*++p)) {}
    else return 0;
    if (*p == '.' && is_digit(p[1])) {
        *is_int = false;
        p += 2;
        while (is_digit(*p)) p++;
    }
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-') q++;
        if (is_digit(*q)) {
            while (is_digit(*++q)) {}
            p = q;
            *is_int = false;
        }
    }
    return (size_t)(p - s);
}

#ifdef __SSE2__
/* loadu at lane_mask + 16 - n: n lanes of 0xFF, then zeros (n <= 16) */
static const uint8_t lane_mask[32] = {[0 ... 15] = 0xFF};
#endif

/* Moves the n bytes of text at p one byte back, over the byte before it (a
** consumed '[', ',', ':', whitespace, or the spare byte before the input),
** and puts a NUL after them: a number costs no allocation. The bytes after
** it keep their values (the copy is padded for the 16-byte load and store). */
static inline char *shift_number(char *p, size_t n)
{
    char *t = p - 1;
#ifdef __SSE2__
    if (n < 16) {
        __m128i num = _mm_loadu_si128((const __m128i *)p);
        __m128i old = _mm_loadu_si128((const __m128i *)t);
        __m128i take = _mm_loadu_si128((const __m128i *)(lane_mask + 16 - n));
        __m128i taken_or_nul = _mm_loadu_si128((const __m128i *)(lane_mask + 15 - n));
        _mm_storeu_si128((__m128i *)t, _mm_or_si128(_mm_and_si128(take, num),
                                                     _mm_andnot_si128(taken_or_nul, old)));
        return t;
    }
#endif
    for (size_t i = 0; i < n; i++) t[i] = t[i + 1];
    t[n] = '\0';
    return t;
}

/* A scalar at p into v: a string, a literal or a number; '*pp' receives the
** byte after it. */
static inline __attribute__((always_inline)) coax_code parse_scalar(parser *ps, char *p, char **pp,
                                                                    coax_value *v)
{
    memset(v, 0, sizeof *v);
    /* the NUL after the input fails every comparison, so no length is checked */
    switch (*p) {
    case '"':
        v->type = COAX_STRING;
        return parse_string(ps, p + 1, pp, &v->u.text, &v->len);
    case 't':
        if (memcmp(p, "true", 4) == 0) {
            v->type = COAX_BOOL;
            v->u.boolean = 1;
            *pp = p + 4;
            return COAX_OK;
        }
        break;
    case 'f':
        if (memcmp(p, "false", 5) == 0) {
            v->type = COAX_BOOL;
            *pp = p + 5;
            return COAX_OK;
        }
        break;
    case 'n':
        if (memcmp(p, "null", 4) == 0) {
            v->type = COAX_NULL;
            *pp = p + 4;
            return COAX_OK;
        }
        break;
    default: {
        bool is_int;
        size_t n = number_span(p, &is_int);
        if (!n) break;
        /* "01", "1." and "-" are not numbers. */
        if (p[n] == '.' || is_digit(p[n])) break;
        v->type = COAX_NUMBER;
        v->flags = is_int ? COAX_VF_INT_TEXT : 0;
        v->len = (uint32_t)n;
        v->u.text = shift_number(p, n);
        *pp = p + n;
        return COAX_OK;
    }
    }
    return fail(ps, COAX_ESYNTAX, p, "a JSON value");
}

/* Objects seldom repeat a key, and comparing every pair at the close costs
** more than the keys took to read: each key sets one of 64 bits chosen by
** its length and first and last bytes (key[-1] is its opening quote, so an
** empty key reads that), and only an object where a bit was already set
** (then all bits are: UINT64_MAX) is searched for duplicates. */
static inline uint64_t key_bits(uint64_t bits, const char *key, uint32_t klen)
{
    const unsigned char *k = (const unsigned char *)key;
    unsigned bit = ((unsigned)k[0] + 9u * k[(int64_t)klen - 1] + 5u * klen) & 63;
    return bits >> bit & 1 ? UINT64_MAX : bits | (uint64_t)1 << bit;
}

/* The parser's loop. The cursor, the pending children and the innermost
** container live in locals: the parser writes the text it decodes in place,
** and through a char pointer every write could alias a field of 'ps'. */
static coax_code run(parser *ps, coax_value *root)
{
    char *p = ps->p;
    const char *end = ps->end;
    slot *top = ps->slots, *limit = ps->slots + ps->cslots; /* the next free slot; the last + 1 */
    slot *base = top;      /* the innermost container's first child */
    size_t depth = 0;
    uint64_t keys = 0;     /* key_bits of the innermost object */
    bool object = false;
    coax_value *dst = root; /* where the next value goes */
    coax_code rc;
    char c;
value:
    p = skip_ws(p);
    c = *p;
    if (c == '{' || c == '[') {
        if (depth >= ps->lim.max_depth)
            return coax_fail(ps->err, COAX_EDEPTH, (size_t)(p - ps->start), "nesting deeper than %zu",
                             ps->lim.max_depth);
        if (depth == ps->copens && !grow(ps, (void **)&ps->opens, &ps->copens, depth + 1, sizeof(open)))
            return fail(ps, COAX_ENOMEM, p, "out of memory");
        ps->opens[depth++] = (open){(size_t)(base - ps->slots), keys, object}; /* the parent's */
        object = c == '{';
        base = top;
        keys = 0;
        p = skip_ws(p + 1);
        if (*p == (object ? '}' : ']')) {
            p++;
            goto close;
        }
        goto child;
    }
    if ((rc = parse_scalar(ps, p, &p, dst))) return rc;
have_value:
    if (depth == 0) {
        ps->p = p;
        return COAX_OK;
    }
    p = skip_ws(p);
    c = *p;
    if (c == ',') {
        p++;
        goto child;
    }
    if (c == (object ? '}' : ']')) {
        p++;
        goto close;
    }
    if (p >= end) return fail(ps, COAX_ESYNTAX, p, "',' or a closing bracket");
    return fail(ps, COAX_ESYNTAX, p, object ? "',' or '}'" : "',' or ']'");
child:
    if (top == limit) {
        size_t n = (size_t)(top - ps->slots), b = (size_t)(base - ps->slots);
        if (!grow(ps, (void **)&ps->slots, &ps->cslots, n + 1, sizeof(slot)))
            return fail(ps, COAX_ENOMEM, p, "out of memory");
        top = ps->slots + n;
        base = ps->slots + b;
        limit = ps->slots + ps->cslots;
    }
    dst = &top->value;
    if (object) {
        p = skip_ws(p);
        if (*p != '"') return fail(ps, COAX_ESYNTAX, p, "a string key");
        if ((rc = parse_string(ps, p + 1, &p, &top->key, &top->klen))) return rc;
        keys = key_bits(keys, top->key, top->klen);
        p = skip_ws(p);
        if (*p != ':') return fail(ps, COAX_ESYNTAX, p, "':' after the key");
        p++;
    }
    top++;
    goto value;
close: {
    /* the container's own slot is its parent's last child (or the root) */
    open parent = ps->opens[--depth];
    coax_value *v = depth ? &base[-1].value : root;
    size_t first = (size_t)(base - ps->slots);
    if ((rc = close_container(ps, object, keys == UINT64_MAX, first, (size_t)(top - ps->slots), v, p)))
        return rc;
    top = base;
    base = ps->slots + parent.base;
    keys = parent.keys;
    object = parent.object;
    goto have_value;
}
}

coax_code coax_parse_ex(coax_arena *arena, const char *text, size_t len,
                        const coax_limits *limits, coax_value **out,
                        coax_error *err, void (*on_dup)(void *, size_t),
                        void *ud)
{
    if (!arena || !out || (!text && len))
        return coax_fail(err, COAX_EINVAL, 0, "coax_parse: NULL argument");
    *out = NULL;
    parser ps; /* field by field: the first arrays need no zeroing */
    ps.slots = ps.first_slots;
    ps.cslots = sizeof ps.first_slots / sizeof *ps.first_slots;
    ps.opens = ps.first_opens;
    ps.copens = sizeof ps.first_opens / sizeof *ps.first_opens;
    ps.dup_base = 0;
    ps.arena = arena;
    ps.alloc = coax_arena_allocator(arena);
    ps.lim = coax_limits_resolve(limits);
    if (len > ps.lim.max_input)
        return coax_fail(err, COAX_ESIZE, 0, "input of %zu bytes exceeds the limit of %zu", len,
                         ps.lim.max_input);
    /* A spare byte in front, for a number at the very start (parse_scalar),
    ** and the scanners' padding after the NUL. */
    size_t first = len < REGION_FIRST ? REGION_FIRST : len < REGION_MAX ? (len + 7) & ~(size_t)7 : REGION_MAX;
    size_t copy_size = (len + 2 + SCAN_PAD + 7) & ~(size_t)7;
    if (len > SIZE_MAX - 2 * REGION_MAX) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    char *copy = coax_arena_alloc(arena, copy_size + first);
    if (!copy) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    ps.region = copy + copy_size;
    ps.region_end = ps.region + first;
    ps.next_region = first * 2 < REGION_MAX ? first * 2 : REGION_MAX;
    copy[0] = ' ';
    copy++;
    copy_bytes(copy, text, len);
    memset(copy + len, 0, 1 + SCAN_PAD);
    ps.start = ps.p = copy;
    ps.end = copy + len;
    ps.err = err;
    ps.on_dup = on_dup;
    ps.ud = ud;
    /* A UTF-8 byte order mark is not JSON; strict parsing rejects it. */
    coax_value root;
    coax_code rc = run(&ps, &root);
    if (!rc) {
        ps.p = skip_ws(ps.p);
        if (ps.p < ps.end) rc = fail(&ps, COAX_ESYNTAX, ps.p, "end of input after the value");
    }
    if (!rc) {
        coax_value *v = bump(&ps, sizeof *v);
        if (!v) rc = fail(&ps, COAX_ENOMEM, ps.p, "out of memory");
        else {
            *v = root;
            *out = v;
        }
    }
    if (ps.slots != ps.first_slots) coax_free_raw(ps.alloc, ps.slots, ps.cslots * sizeof(slot));
    if (ps.opens != ps.first_opens) coax_free_raw(ps.alloc, ps.opens, ps.copens * sizeof(open));
    if (rc) coax_error_locate(err, text ? text : "", len); /* the copy has changed */
    return rc;
}

coax_code coax_parse(coax_arena *arena, const char *text, size_t len,
                     const coax_limits *limits, coax_value **out,
                     coax_error *err)
{
    return coax_parse_ex(arena, text, len, limits, out, err, NULL, NULL);
}
