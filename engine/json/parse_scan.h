/*
** json/parse_scan.h: the byte scanners of the strict parser (json/parse.c)
** and its strings' slow path (json/parse_scan.c). They read the parser's
** copy of the input, which ends in a NUL and SCAN_PAD more zero bytes, so a
** scanner may read SCAN_PAD bytes at any position up to the end: the NUL
** stops each (it is neither whitespace, nor allowed in a string, nor a
** digit).
*/
#ifndef COAX_JSON_PARSE_SCAN_H
#define COAX_JSON_PARSE_SCAN_H

#include "base/core.h"
#include "json/copy_input.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The string scanner's kernel written out for x86-64 (see stop_at). */
#if defined(__x86_64__) && defined(__SSE2__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
#define SCAN_ASM 1
#endif

/* Fills 'err' for a fault at 'at' in the copy [start, end), as coax_fail:
** a syntax error says what was expected ('what'), at the end of the input
** that it ended; another code says 'what'. Returns 'code'. */
coax_code coax_json_fail(coax_error *err, const char *start, const char *end, coax_code code, const char *at,
                         const char *what);

static const uint8_t is_ws[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

/* The first byte at or after p (whitespace) that is not whitespace: an
** indentation run, sixteen bytes at a time. Out of line, so its constants
** stay out of the parser's loop. */
char *coax_json_skip_ws_run(char *p);

/* The first byte at or after p that is not whitespace. Most values follow
** no whitespace or one space; most runs longer than that are a newline and
** an indentation of spaces, which one compare with the space crosses here:
** the out-of-line run (a call and four compares) took a tenth of the
** parser's instructions on pretty-printed documents. The run goes on from
** where the spaces stop only when the byte there is a control byte
** (another newline, a tab, or a fault); after sixteen spaces ~m's bit 16
** stops the count there. */
static inline char *skip_ws(char *p)
{
    if ((unsigned char)*p > ' ') return p; /* no whitespace byte is above the space */
    if (!is_ws[(unsigned char)*p]) return p;
    p++;
    if ((unsigned char)*p > ' ') return p;
#ifdef __SSE2__
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), _mm_set1_epi8(' ')));
    p += __builtin_ctz(~m);
    if ((unsigned char)*p > ' ') return p;
#endif
    return coax_json_skip_ws_run(p);
}

#ifdef __SSE2__
static const char newline_spaces[16] __attribute__((aligned(16))) = {[0] = '\n', [1 ... 15] = ' '};
#endif

/* Whether the n bytes at p (whitespace at p) are a newline and n - 1
** spaces and the byte after them is not whitespace: the run before a
** pretty-printed document's next child, guessed from the last one. The
** cursor then moves by n, known before these bytes are read: skip_ws
** takes it from the bytes (a load, a compare, a mask and a count, some
** fifteen cycles), and every token after waits for it. A branch the
** predictor learns lets the parser go on while the guess is checked. n is
** at most 16; 0 guesses nothing (the byte at p is whitespace). 'known':
** 1 when the caller knows the byte at p was a newline (a NUL may have gone
** over it since), else 0. */
static inline bool is_indent(const char *p, size_t n, unsigned known)
{
#ifdef __SSE2__
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p),
                                                            _mm_load_si128((const __m128i *)newline_spaces))) |
                 known;
    unsigned want = (1u << n) - 1;
    return (m & want) == want && (unsigned char)p[n] > ' ';
#else
    (void)p, (void)n, (void)known;
    return false;
#endif
}

#ifndef __SSE2__
/* The bytes that stop the string scanner: '"', '\\', control bytes and
** bytes of multi-byte sequences; text_stop, those of an input known to be
** valid UTF-8, where multi-byte sequences need no check. */
static const uint8_t string_stop[256] = {
    [0 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xFF] = 1,
};
static const uint8_t text_stop[256] = {[0 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1};
#endif

/* The scanners' kernel: whether one of the 16 bytes at p is a backslash
** or, once xored with 'flip', below 'limit' as a signed byte; '*at'
** receives the first one's offset. Xoring 0x02 puts '"' at 0x20, beside
** the control bytes (0x00-0x1F stay among themselves), so one signed
** compare with 0x21 takes the quote, the control bytes (the NUL after the
** input among them) and the bytes >= 0x80 (negative): string_scan's stops.
** Xoring 0x82 moves the control bytes to 0x80-0x9F and '"' to 0xA0 and
** makes the bytes >= 0x80 positive, so a compare with 0xA1 (-95) takes
** the quote and control bytes alone: text_scan's stops. Strings are most
** of what the parser reads, so this is written out for x86-64: SSE2
** compares overwrite an operand, and GCC keeps the constants hoisted in
** registers it copies before each use, and clears and widens around
** tzcnt; 9 instructions. */
#ifdef SCAN_ASM
static const uint8_t backslashes[16] __attribute__((aligned(16))) = {[0 ... 15] = '\\'};
static const uint8_t string_flip[16] __attribute__((aligned(16))) = {[0 ... 15] = 0x02};
static const uint8_t string_limit[16] __attribute__((aligned(16))) = {[0 ... 15] = 0x21};
static const uint8_t text_flip[16] __attribute__((aligned(16))) = {[0 ... 15] = 0x82};
static const uint8_t text_limit[16] __attribute__((aligned(16))) = {[0 ... 15] = 0xA1};

/* The kernel's mask of stops, bit i for byte i, in m */
#define SCAN_MASK_ASM                                                                                                 \
    "movdqu %[p], %[w]\n\t"                                                                                            \
    "movdqa %[w], %[x]\n\t"                                                                                            \
    "pxor %[flip], %[x]\n\t"                                                                                           \
    "movdqa %[limit], %[a]\n\t"                                                                                        \
    "pcmpgtb %[x], %[a]\n\t"                                                                                           \
    "pcmpeqb %[bs], %[w]\n\t"                                                                                          \
    "por %[w], %[a]\n\t"                                                                                               \
    "pmovmskb %[a], %k[m]"
#define SCAN_MASK_IN                                                                                                  \
    [p] "m"(*(const char(*)[16])p), [bs] "m"(backslashes), [flip] "m"(*(const uint8_t(*)[16])flip),                   \
        [limit] "m"(*(const uint8_t(*)[16])limit)

static inline bool scan_kernel(const char *p, size_t *at, const uint8_t *flip, const uint8_t *limit)
{
    bool found;
    uint64_t m;
    __m128i w, x, a;
    __asm__(SCAN_MASK_ASM "\n\t"
                          "bsfq %[m], %[m]" /* ZF when no bit is set */
            : [m] "=r"(m), [w] "=&x"(w), [x] "=&x"(x), [a] "=&x"(a), "=@ccnz"(found)
            : SCAN_MASK_IN);
    *at = m;
    return found;
}

/* The kernel's stops as a mask, bit i for the byte at p + i. */
static inline unsigned scan_mask(const char *p, const uint8_t *flip, const uint8_t *limit)
{
    uint64_t m;
    __m128i w, x, a;
    __asm__(SCAN_MASK_ASM : [m] "=r"(m), [w] "=&x"(w), [x] "=&x"(x), [a] "=&x"(a) : SCAN_MASK_IN);
    return (unsigned)m;
}
#elif defined(__SSE2__)
static inline unsigned scan_mask(const char *p, char flip, char limit)
{
    __m128i w = _mm_loadu_si128((const __m128i *)p);
    __m128i stop = _mm_or_si128(_mm_cmpgt_epi8(_mm_set1_epi8(limit), _mm_xor_si128(w, _mm_set1_epi8(flip))),
                                _mm_cmpeq_epi8(w, _mm_set1_epi8('\\')));
    return (unsigned)_mm_movemask_epi8(stop);
}

static inline bool scan_kernel(const char *p, size_t *at, char flip, char limit)
{
    unsigned m = scan_mask(p, flip, limit);
    *at = m ? (unsigned)__builtin_ctz(m) : 0;
    return m != 0;
}
#else
static inline unsigned scan_mask(const char *p, const uint8_t *stops)
{
    unsigned m = 0;
    for (int i = 0; i < 16; i++) m |= (unsigned)stops[(unsigned char)p[i]] << i;
    return m;
}

static inline bool scan_kernel(const char *p, size_t *at, const uint8_t *stops)
{
    unsigned m = scan_mask(p, stops);
    *at = m ? (unsigned)__builtin_ctz(m) : 0;
    return m != 0;
}
#endif

/* Whether one of the 16 bytes at p stops the string scanner: '"', '\\',
** a control character (the NUL after the input among them) or a byte of a
** multi-byte sequence; '*at' receives the first one's offset. */
static inline bool stop_at(const char *p, size_t *at)
{
#ifdef SCAN_ASM
    return scan_kernel(p, at, string_flip, string_limit);
#elif defined(__SSE2__)
    return scan_kernel(p, at, 0x02, 0x21);
#else
    return scan_kernel(p, at, string_stop);
#endif
}

/* The offset from s of the first byte that stops the string scanner. Most
** strings end in their first 16 bytes. */
static inline size_t string_scan(const char *s)
{
    size_t at;
    if (__builtin_expect(stop_at(s, &at), 1)) return at;
    size_t i = 16;
    while (!stop_at(s + i, &at)) i += 16;
    return i + at;
}

/* stop_at for an input known to be valid UTF-8 (coax_json_copy_input):
** bytes of multi-byte sequences do not stop it, as they need no check. */
static inline bool text_stop_at(const char *p, size_t *at)
{
#ifdef SCAN_ASM
    return scan_kernel(p, at, text_flip, text_limit);
#elif defined(__SSE2__)
    return scan_kernel(p, at, (char)0x82, (char)0xA1);
#else
    return scan_kernel(p, at, text_stop);
#endif
}

/* The stops of the string scanner (text: for an input known to be valid
** UTF-8) among the 16 bytes at p, bit i for byte i. */
static inline unsigned stops_at(const char *p, bool text)
{
#ifdef SCAN_ASM
    return text ? scan_mask(p, text_flip, text_limit) : scan_mask(p, string_flip, string_limit);
#elif defined(__SSE2__)
    return text ? scan_mask(p, (char)0x82, (char)0xA1) : scan_mask(p, 0x02, 0x21);
#else
    return scan_mask(p, text ? text_stop : string_stop);
#endif
}

/* string_scan over an input known to be valid UTF-8. */
static inline size_t text_scan(const char *s)
{
    size_t at;
    if (__builtin_expect(text_stop_at(s, &at), 1)) return at;
    size_t i = 16;
    while (!text_stop_at(s + i, &at)) i += 16;
    return i + at;
}

/* Where a string ends: its closing quote and decoded length, or no quote
** and the error code in 'len'. Two words, returned in registers: the hot
** loop keeps its cursor out of memory. */
typedef struct string_end {
    char *quote;
    size_t len;
} string_end;

/* The rest of the string whose body starts at s, where the scanner stopped
** at p before its closing quote: escapes, multi-byte sequences, or a fault
** (then 'err' is filled, for the copy [start, end)). The first fault from
** the left wins (an unclosed string, a raw control character, invalid
** UTF-8); escapes are checked after that, as they are decoded in place. */
string_end coax_json_string_rest(const char *start, const char *end, coax_error *err, char *s, char *p);

static inline bool is_digit(char c) { return (unsigned char)(c - '0') < 10; }

/* The byte after the run of decimal digits at p, eight bytes a step where
** a word can be read as little-endian (the copy's padding makes eight
** bytes readable anywhere up to its end). A byte is a digit when byte -
** '0' (wrapping) is below 10: the top bit of it, or of it + 0x76, marks one
** that is not; the words' borrows and carries only reach later bytes, past
** the first that is not. */
static inline char *skip_digits(char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (;;) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t t = w - 0x3030303030303030u;
        uint64_t other = (t | (t + 0x7676767676767676u)) & 0x8080808080808080u;
        if (other) return p + ((unsigned)__builtin_ctzll(other) >> 3);
        p += 8;
    }
#else
    while (is_digit(*p)) p++;
    return p;
#endif
}

#endif
