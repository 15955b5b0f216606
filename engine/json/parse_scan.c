/*
** json/parse_scan.c: the strict parser's slow paths for strings (escapes,
** multi-byte sequences, faults) and whitespace runs, out of its loop.
*/
#include "json/parse_scan.h"
#include "base/bytes.h"

coax_code coax_json_fail(coax_error *err, const char *start, const char *end, coax_code code, const char *at,
                         const char *what)
{
    size_t off = (size_t)(at - start);
    if (code == COAX_ESYNTAX && at >= end)
        return coax_fail(err, code, off, "unexpected end of input, expected %s", what);
    if (code == COAX_ESYNTAX)
        return coax_fail(err, code, off, "expected %s", what);
    return coax_fail(err, code, off, "%s", what);
}

/* The copy of the input the faults are reported in. */
typedef struct text {
    const char *start, *end;
    coax_error *err;
} text;

static coax_code fail(const text *t, coax_code code, const char *at, const char *what)
{
    return coax_json_fail(t->err, t->start, t->end, code, at, what);
}

char *coax_json_skip_ws_run(char *p)
{
#ifdef __SSE2__
    for (;;) {
        __m128i w = _mm_loadu_si128((const __m128i *)p);
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8(' ')),
                                               _mm_cmpeq_epi8(w, _mm_set1_epi8('\n'))),
                                  _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('\t')),
                                               _mm_cmpeq_epi8(w, _mm_set1_epi8('\r'))));
        unsigned other = ~(unsigned)_mm_movemask_epi8(ws) & 0xFFFF;
        if (other) return p + (unsigned)__builtin_ctz(other);
        p += 16;
    }
#else
    while (is_ws[(unsigned char)*p]) p++;
    return p;
#endif
}

/* What a byte that leads a multi-byte sequence asks of the bytes after it
** (RFC 3629's table, as coax_utf8_decode checks it): its length, the range
** of its second byte (lo to lo + span: no overlong form, no surrogate,
** nothing above U+10FFFF) and which of its third and fourth bytes must be
** continuation bytes (a 0xC0 mask). A byte that leads none has length 0. */
typedef struct utf8_lead {
    uint8_t len, lo, span, m2, m3;
} utf8_lead;

static const utf8_lead utf8_leads[256] = {
    [0xC2 ... 0xDF] = {2, 0x80, 0x3F, 0, 0},
    [0xE0] = {3, 0xA0, 0x1F, 0xC0, 0},
    [0xE1 ... 0xEC] = {3, 0x80, 0x3F, 0xC0, 0},
    [0xED] = {3, 0x80, 0x1F, 0xC0, 0},
    [0xEE ... 0xEF] = {3, 0x80, 0x3F, 0xC0, 0},
    [0xF0] = {4, 0x90, 0x2F, 0xC0, 0xC0},
    [0xF1 ... 0xF3] = {4, 0x80, 0x3F, 0xC0, 0xC0},
    [0xF4] = {4, 0x80, 0x0F, 0xC0, 0xC0},
};

/* Length of the valid sequence at p (a byte >= 0x80), or 0: one lookup
** and one branch. p[1] to p[3] must be readable. */
static inline unsigned sequence_length(const unsigned char *p)
{
    utf8_lead l = utf8_leads[p[0]];
    bool bad = (l.len == 0) | ((unsigned char)(p[1] - l.lo) > l.span) | ((p[2] & l.m2) != (l.m2 & 0x80)) |
               ((p[3] & l.m3) != (l.m3 & 0x80));
    return bad ? 0 : l.len;
}

#ifdef __SSE2__
/* Checks the sequences of a block of 'width' bytes at p (width <= 64)
** whose bytes >= 0x80 are the bits of m, the first '*skip' of them the
** end of a sequence begun before the block; '*skip' receives how far the
** block's last sequence reaches past it. False at an invalid sequence. */
static inline bool check_block(const unsigned char *p, uint64_t m, unsigned width, unsigned *skip)
{
    m &= ~(uint64_t)0 << *skip;
    *skip = 0;
    while (m) {
        unsigned i = (unsigned)__builtin_ctzll(m), n = sequence_length(p + i);
        if (!n) return false;
        if (i + n >= width) {
            *skip = i + n - width;
            break;
        }
        m &= ~(uint64_t)0 << (i + n);
    }
    return true;
}

static inline uint64_t high_bits(const char *p)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)p));
}
#endif

#if BYTES32
/* The bytes of 32 before 'in' by n (1 to 3): the last of 'prev' first. */
#define BEFORE(in, prev, n) _mm256_alignr_epi8((in), _mm256_permute2x128_si256((prev), (in), 0x21), 16 - (n))

/* utf8_faults' constants: its three tables (each twice, one a lane),
** the low nibble's mask, and the bytes that subtracted from a lead of three
** bytes (or more) and of four leave it at 0x80 or above. */
typedef struct utf8_consts {
    __m256i lead_high, lead_low, next_high, nibble, third, fourth, top;
} utf8_consts;

/* The tables hold bytes past 0x7F (CONTS) where _mm256_setr_epi8 takes a
** char: the wrap to negative is the point, which clang warns of. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wconstant-conversion"
#endif
static inline BYTES32_TARGET utf8_consts utf8_consts_make(void)
{
    enum { SHORT = 0x01, LONG = 0x02, OVER3 = 0x04, LARGE = 0x08, SURR = 0x10, OVER2 = 0x20, LARGE1000 = 0x40,
           OVER4 = 0x40, CONTS = 0x80, CARRY = SHORT | LONG | CONTS };
    utf8_consts k;
    k.lead_high = _mm256_setr_epi8(
        LONG, LONG, LONG, LONG, LONG, LONG, LONG, LONG, CONTS, CONTS, CONTS, CONTS, SHORT | OVER2, SHORT,
        SHORT | OVER3 | SURR, SHORT | LARGE | LARGE1000 | OVER4, LONG, LONG, LONG, LONG, LONG, LONG, LONG, LONG,
        CONTS, CONTS, CONTS, CONTS, SHORT | OVER2, SHORT, SHORT | OVER3 | SURR, SHORT | LARGE | LARGE1000 | OVER4);
    k.lead_low = _mm256_setr_epi8(
        CARRY | OVER3 | OVER2 | OVER4, CARRY | OVER2, CARRY, CARRY, CARRY | LARGE, CARRY | LARGE | LARGE1000,
        CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000,
        CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000,
        CARRY | LARGE | LARGE1000 | SURR, CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000,
        CARRY | OVER3 | OVER2 | OVER4, CARRY | OVER2, CARRY, CARRY, CARRY | LARGE, CARRY | LARGE | LARGE1000,
        CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000,
        CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000,
        CARRY | LARGE | LARGE1000 | SURR, CARRY | LARGE | LARGE1000, CARRY | LARGE | LARGE1000);
    k.next_high = _mm256_setr_epi8(
        SHORT, SHORT, SHORT, SHORT, SHORT, SHORT, SHORT, SHORT, LONG | OVER2 | CONTS | OVER3 | LARGE1000 | OVER4,
        LONG | OVER2 | CONTS | OVER3 | LARGE, LONG | OVER2 | CONTS | SURR | LARGE, LONG | OVER2 | CONTS | SURR | LARGE,
        SHORT, SHORT, SHORT, SHORT, SHORT, SHORT, SHORT, SHORT, SHORT, SHORT, SHORT, SHORT,
        LONG | OVER2 | CONTS | OVER3 | LARGE1000 | OVER4, LONG | OVER2 | CONTS | OVER3 | LARGE,
        LONG | OVER2 | CONTS | SURR | LARGE, LONG | OVER2 | CONTS | SURR | LARGE, SHORT, SHORT, SHORT, SHORT);
    k.nibble = _mm256_set1_epi8(0x0F);
    k.third = _mm256_set1_epi8(0xE0 - 0x80);
    k.fourth = _mm256_set1_epi8((char)(0xF0 - 0x80));
    k.top = _mm256_set1_epi8((char)0x80);
    return k;
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

/* The faults of the 32 bytes 'in' after 'prev' (both by AVX2), as bits:
** none when every sequence that ends in them is valid UTF-8 (RFC 3629's
** table, as sequence_length checks it). Each pair of a byte and the one
** before it is looked up by nibbles in three tables of what it may be
** (a continuation where none is due, a lead without one, an overlong
** form, a surrogate, above U+10FFFF); the third and fourth bytes of a
** sequence are then required from the lead two or three bytes back.
** About twenty instructions for 32 bytes, whatever the number of
** sequences: the byte-wise check cost some fifty a sequence. */
static inline BYTES32_TARGET __m256i utf8_faults(__m256i in, __m256i prev, const utf8_consts *k)
{
    __m256i prev1 = BEFORE(in, prev, 1);
    __m256i special = _mm256_and_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(k->lead_high, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), k->nibble)),
                         _mm256_shuffle_epi8(k->lead_low, _mm256_and_si256(prev1, k->nibble))),
        _mm256_shuffle_epi8(k->next_high, _mm256_and_si256(_mm256_srli_epi16(in, 4), k->nibble)));
    /* 0x80 where a third or fourth byte is due: a lead of three bytes (or
    ** more) two back, of four three back */
    __m256i due = _mm256_or_si256(_mm256_subs_epu8(BEFORE(in, prev, 2), k->third),
                                  _mm256_subs_epu8(BEFORE(in, prev, 3), k->fourth));
    return _mm256_xor_si256(_mm256_and_si256(due, k->top), special);
}

/* coax_json_copy_input's 64-byte steps by AVX2, where the CPU has it
** (base/bytes.h): two loads, two stores (four with a twin) and one test of
** the high bits a step, and utf8_faults for a step that has any. Returns
** where the steps stopped; '*skip': the continuation bytes after it of a
** sequence begun before (checked here). Inlined twice: with no twin and
** with one, the test for it made once each. */
static BYTES32_TARGET inline __attribute__((always_inline)) size_t
copy_input_steps(char *restrict copy, char *restrict twin, const char *restrict text, size_t len, bool *valid,
                 unsigned *skip)
{
    size_t i = 0;
    /* open: not 0 where the last step's last three bytes begin a
    ** sequence longer than they are */
    const __m256i last = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, (char)0xEF, (char)0xDF, (char)0xBF);
    __m256i prev = _mm256_setzero_si256(), faults = prev, open = prev;
    /* made before the loop and kept there (opaque): GCC made each again in
    ** every step with sequences, a dozen instructions */
    utf8_consts k = utf8_consts_make();
    __asm__("" : "+x"(k.lead_high), "+x"(k.lead_low), "+x"(k.next_high), "+x"(k.nibble), "+x"(k.third),
            "+x"(k.fourth), "+x"(k.top));
    for (; len - i >= 64 + 3; i += 64) {
        const char *s = text + i;
        char *d = copy + i;
        __m256i a = _mm256_loadu_si256((const __m256i *)s), b = _mm256_loadu_si256((const __m256i *)(s + 32));
        _mm256_storeu_si256((__m256i *)d, a);
        _mm256_storeu_si256((__m256i *)(d + 32), b);
        if (twin) {
            _mm256_storeu_si256((__m256i *)(twin + i), a);
            _mm256_storeu_si256((__m256i *)(twin + i + 32), b);
        }
        /* Whether a step is ASCII is a coin toss in text with accented or
        ** CJK words (a mispredicted branch every third step of the bench's
        ** broken replies): the repair's copy (with a twin) checks every
        ** step, as the branch's other side does, for about 0.3 instructions
        ** a byte more; a strict parse, mostly of ASCII documents
        ** (records.json: 9.9 -> 10.5 instructions a byte), keeps the test. */
        if (!twin && __builtin_expect(!_mm256_movemask_epi8(_mm256_or_si256(a, b)), 1)) {
            faults = _mm256_or_si256(faults, open); /* ASCII: a sequence left open before it is cut short */
            open = _mm256_setzero_si256();
        } else {
            faults = _mm256_or_si256(faults, _mm256_or_si256(utf8_faults(a, prev, &k), utf8_faults(b, a, &k)));
            open = _mm256_subs_epu8(b, last);
        }
        prev = b;
    }
    *valid = _mm256_testz_si256(faults, faults);
    *skip = 0;
    /* a sequence the steps leave open, begun in their last three bytes
    ** (three bytes of the text follow them) */
    for (unsigned k = 1; *valid && i && k <= 3; k++) {
        unsigned char c = (unsigned char)text[i - k];
        if (c < 0x80) break;
        if (c < 0xC0) continue;
        unsigned n = sequence_length((const unsigned char *)text + i - k);
        if (!n) *valid = false;
        else if (n > k) *skip = n - k;
        break;
    }
    return i;
}

static BYTES32_TARGET size_t copy_input_wide(char *restrict copy, const char *restrict text, size_t len, bool *valid,
                                             unsigned *skip)
{
    return copy_input_steps(copy, NULL, text, len, valid, skip);
}

static BYTES32_TARGET size_t copy_input_wide_twin(char *restrict copy, char *restrict twin, const char *restrict text,
                                                  size_t len, bool *valid, unsigned *skip)
{
    return copy_input_steps(copy, twin, text, len, valid, skip);
}
#endif

/* coax_json_copy_input, with the bytes and the NUL to 'twin' too unless it
** is NULL: twice inlined, as copy_input_steps. */
static inline __attribute__((always_inline)) bool copy_input(char *restrict copy, char *restrict twin,
                                                             const char *restrict text, size_t len)
{
    bool valid = true;
    size_t twinned = 0; /* the bytes the AVX2 steps gave the twin */
#ifdef __SSE2__
    size_t i = 0;
    /* 64 bytes a step, and the bytes >= 0x80 among them checked from the
    ** input while it is in registers and cache: most steps have none, and
    ** a sequence's last three bytes are read from within the input (the
    ** last steps' are read from the copy's padding below). A text with an
    ** invalid sequence is copied on and left to the strings' own checks. */
    unsigned skip = 0;
#if BYTES32
    if (bytes32_ok())
        twinned = i = twin ? copy_input_wide_twin(copy, twin, text, len, &valid, &skip)
                           : copy_input_wide(copy, text, len, &valid, &skip);
#endif
    for (; len - i >= 64 + 3; i += 64) {
        const char *s = text + i;
        char *d = copy + i;
        __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_storeu_si128((__m128i *)d, a);
        _mm_storeu_si128((__m128i *)(d + 16), b);
        _mm_storeu_si128((__m128i *)(d + 32), c);
        _mm_storeu_si128((__m128i *)(d + 48), e);
        if (__builtin_expect(!_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, e))), 1)) {
            skip = 0; /* a sequence reaches at most 3 bytes into the next step */
            continue;
        }
        if (!valid) continue;
        uint64_t m = (uint64_t)(unsigned)_mm_movemask_epi8(a) | (uint64_t)(unsigned)_mm_movemask_epi8(b) << 16 |
                     (uint64_t)(unsigned)_mm_movemask_epi8(c) << 32 | (uint64_t)(unsigned)_mm_movemask_epi8(e) << 48;
        valid = check_block((const unsigned char *)s, m, 64, &skip);
    }
    if (len > i) memcpy(copy + i, text + i, len - i); /* text may be NULL when len is 0 */
    memset(copy + len, 0, 1 + SCAN_PAD);
    /* the rest from the copy, 16 bytes a step: its NUL and padding are
    ** ASCII and readable */
    for (; valid && i < len; i += 16) valid = check_block((const unsigned char *)copy + i, high_bits(copy + i), 16, &skip);
#else
    if (len) memcpy(copy, text, len); /* text may be NULL when len is 0 */
    memset(copy + len, 0, 1 + SCAN_PAD);
    for (const unsigned char *p = (const unsigned char *)copy, *end = p + len; valid && p < end;) {
        if (*p < 0x80) {
            p++;
        } else {
            unsigned n = sequence_length(p);
            valid = n != 0;
            p += n;
        }
    }
#endif
    if (twin) memcpy(twin + twinned, copy + twinned, len + 1 - twinned);
    return valid;
}

bool coax_json_copy_input(char *restrict copy, const char *restrict text, size_t len)
{
    return copy_input(copy, NULL, text, len);
}

bool coax_json_copy_input_twin(char *restrict copy, char *restrict twin, const char *restrict text, size_t len)
{
    return copy_input(copy, twin, text, len);
}

/* Decodes the escapes of a string body in place (s..e, known to be free of
** raw control characters and invalid UTF-8); returns the decoded length. */
static coax_code decode_escapes(const text *t, char *s, const char *e, size_t *outlen)
{
    char *d = s, *const first = s;
    while (s < e) {
        if (*s != '\\') {
            *d++ = *s++;
            continue;
        }
        const char *at = s;
        s++;
        int byte = coax_json_escape_byte((unsigned char)*s);
        if (byte >= 0) {
            *d++ = (char)byte;
            s++;
            continue;
        }
        switch (*s++) {
        case 'u': {
            uint32_t cp, lo;
            if (e - s < 4 || !coax_hex4(s, &cp)) return fail(t, COAX_ESYNTAX, at, "four hex digits after \\u");
            s += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (e - s < 6 || s[0] != '\\' || s[1] != 'u' || !coax_hex4(s + 2, &lo) ||
                    lo < 0xDC00 || lo > 0xDFFF)
                    return fail(t, COAX_EUTF8, at, "unpaired UTF-16 surrogate in \\u escape");
                s += 6;
                cp = coax_utf16_pair(cp, lo);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(t, COAX_EUTF8, at, "unpaired UTF-16 surrogate in \\u escape");
            }
            d += coax_utf8_encode(cp, d);
            break;
        }
        default:
            return fail(t, COAX_ESYNTAX, at, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
        }
    }
    *outlen = (size_t)(d - first);
    return COAX_OK;
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

string_end coax_json_string_rest(const char *start, const char *end, coax_error *err, char *s, char *p)
{
    const text t = {start, end, err};
    bool escaped = false;
    while (*p != '"') {
        if (*p == '\\') {
            escaped = true;
            if (end - p < 2) return (string_end){NULL, fail(&t, COAX_ESYNTAX, end, "'\"' to close the string")};
            p += 2 + string_scan(p + 2);
            continue;
        }
        if ((signed char)*p >= 0) { /* a control byte, or the NUL after the input */
            if (p >= end) return (string_end){NULL, fail(&t, COAX_ESYNTAX, end, "'\"' to close the string")};
            return (string_end){NULL, fail(&t, COAX_ESYNTAX, p, "no raw control character in a string (escape it)")};
        }
        /* a run of multi-byte sequences (text in most scripts but Latin) */
        do {
            size_t n = utf8_length((const unsigned char *)p, (const unsigned char *)end);
            if (!n) return (string_end){NULL, fail(&t, COAX_EUTF8, p, "invalid UTF-8 in string")};
            p += n;
        } while ((signed char)*p < 0);
        p += string_scan(p);
    }
    size_t n = (size_t)(p - s);
    if (escaped) {
        coax_code rc = decode_escapes(&t, s, p, &n);
        if (rc) return (string_end){NULL, rc};
    }
    return (string_end){p, n};
}

