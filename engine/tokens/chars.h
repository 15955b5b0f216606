/*
** chars.h: the character level of the token estimator, for tokens.c only:
** UTF-8 decoding into the class/script table byte (tokens.h), the classes
** the pre-tokenizer's regular expressions test, and the ASCII runs it scans
** eight bytes at a time. Everything is inline: the scanner is copied per
** encoding and these are its inner loops.
*/
#ifndef COAX_TOKENS_CHARS_H
#define COAX_TOKENS_CHARS_H

#include "tokens/tokens.h"
#include "base/bytes.h"

/* The scanner (tokens.c) is inlined into its per-encoding copies. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* ---- characters ---------------------------------------------------------- */

#define TOK_INVALID (TOK_C_P | TOK_S_OTHER << 3)

/* The table byte of a code point below U+10000: two stages. */
static inline unsigned table_bmp(uint32_t cp)
{
    return coax_tok_stage2[(size_t)coax_tok_stage1[cp >> 7] * 128 + (cp & 127)];
}

static inline unsigned table_byte(uint32_t cp)
{
    if (cp < 0x10000) return table_bmp(cp);
    if (cp - TOK_EMOJI_FIRST < TOK_EMOJI_CHARS) return coax_tok_emoji[cp - TOK_EMOJI_FIRST];
    /* The last run starting at or before cp (the first when none does), in
    ** steps of fixed powers of two, unrolled (a supplementary character
    ** took about 90 instructions in a loop halving the candidates; the
    ** emoji, most of them, skip the search): the first step leaves a
    ** window of RUNS_STEP runs that holds the answer, each next halves it. Every step is a conditional
    ** move, not a branch. */
#define RUNS_STEP 1024
    _Static_assert(TOK_NRUNS > RUNS_STEP && TOK_NRUNS <= 2 * RUNS_STEP, "one first step");
    uint32_t key = cp << 8 | 0xFF;
    size_t lo = coax_tok_runs[TOK_NRUNS - RUNS_STEP] <= key ? TOK_NRUNS - RUNS_STEP : 0;
#pragma GCC unroll 16
    for (size_t step = RUNS_STEP / 2; step; step /= 2)
        lo = coax_tok_runs[lo + step] <= key ? lo + step : lo;
#undef RUNS_STEP
    return coax_tok_runs[lo] & 0xFF;
}

static inline bool cont(unsigned char c) { return (c & 0xC0) == 0x80; }

/* The table byte of the non-ASCII character at s[i] (i < n), its length
** in *w. An invalid or truncated sequence is one byte of class P (as
** JavaScript would see U+FFFD). */
static inline unsigned char_slow(const unsigned char *s, size_t n, size_t i, size_t *w)
{
    unsigned c = s[i];
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        if (n - i < 2 || !cont(s[i + 1])) goto bad;
        cp = (uint32_t)(c & 0x1F) << 6 | (s[i + 1] & 0x3F);
        *w = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        if (n - i < 3 || !cont(s[i + 1]) || !cont(s[i + 2])) goto bad;
        cp = (uint32_t)(c & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
        if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) goto bad;
        *w = 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
        /* the three continuation bytes tested at once, as in char_dec */
        if (n - i < 4 || (((s[i + 1] ^ 0x80u) | (s[i + 2] ^ 0x80u) | (s[i + 3] ^ 0x80u)) & 0xC0))
            goto bad;
        cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 |
             (uint32_t)(s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F);
        if (cp < 0x10000 || cp > 0x10FFFF) goto bad;
        *w = 4;
    } else {
        goto bad;
    }
    return table_byte(cp);
bad:
    *w = 1;
    return TOK_INVALID;
}

#define CLS(b) ((b) & 7u)
#define SCRIPT(b) ((b) >> 3)

/* \p{L} for cl100k; o200k's letter pieces also take marks. */
static inline bool is_letter(unsigned cls, bool o200k)
{
    return (cls >= TOK_C_LU && cls <= TOK_C_LO) || (o200k && cls == TOK_C_MK);
}

/* [^\s\p{L}\p{N}]: what punctuation runs are made of (marks included). */
static inline bool is_punct(unsigned cls) { return cls == TOK_C_P || cls == TOK_C_MK; }

static inline bool is_space(unsigned cls) { return cls == TOK_C_WS || cls == TOK_C_NL; }

/* The lead bytes of the non-ASCII characters in JavaScript's \s (U+00A0,
** U+1680, U+2000-U+205F, U+3000, U+FEFF), a bit each at lead - 0xC0: no
** other byte starts a space, so the table need not be asked for text of
** most scripts after a space (spec/c/test_tokens.c checks the set against
** the table). */
#define SPACE_LEADS                                                                            \
    (1ull << (0xC2 - 0xC0) | 1ull << (0xE1 - 0xC0) | 1ull << (0xE2 - 0xC0) |                   \
     1ull << (0xE3 - 0xC0) | 1ull << (0xEF - 0xC0))

static inline bool may_start_space(unsigned c) { return c >= 0xC0 && (SPACE_LEADS >> (c - 0xC0) & 1); }

/* '(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]) after the apostrophe at
** s[i]: the length of the whole contraction, or 0. */
static inline size_t contraction(const unsigned char *s, size_t n, size_t i)
{
    if (i + 1 >= n || s[i] != '\'') return 0;
    unsigned a = s[i + 1] | 0x20, b = i + 2 < n ? (s[i + 2] | 0x20u) : 0;
    if (a == 's' || a == 'd' || a == 'm' || a == 't') return 2;
    if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e')) return 3;
    return 0;
}

/* ---- loads ----------------------------------------------------------------- */

static inline uint32_t load_le4(const unsigned char *s)
{
    return (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
}

static inline uint64_t load_le8(const unsigned char *s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
#else
    uint64_t w = 0;
    for (int k = 0; k < 8; k++) w |= (uint64_t)s[k] << (8 * k);
    return w;
#endif
}

/* 1 when the CJK character cp is not a token of its own in the encoding,
** so it costs about one more. */
static inline unsigned cjk_extra(uint32_t cp, bool o200k)
{
    uint32_t i = cp - TOK_CJK_FIRST;
    return i < TOK_CJK_CHARS && (coax_tok_cjk[i] & TOK_CJK_EXTRA(o200k));
}

/* The coax_tok_cjk byte of code point cp (0 outside the table). */
static inline unsigned cjk_byte(uint32_t cp)
{
    uint32_t i = cp - TOK_CJK_FIRST;
    return i < TOK_CJK_CHARS ? coax_tok_cjk[i] : 0;
}

/* What a run of CJK letters adds to a word (scan_word_any in tokens.c). */
typedef struct cjk_count {
    uint32_t seen;          /* a bit per script group */
    unsigned nchars, extra; /* letters, and those not a token of their own */
} cjk_count;

/* The end of the run of caseless letters of U+3000-U+D7AF (TOK_CJK_LETTER:
** Han, kana, Hangul and others, not Latin) starting at k with a letter of
** coax_tok_cjk byte t. Each is three bytes, and one table byte tells all a
** word needs of it (of a letter after its first, a word asks only whether it
** is Latin, Hiragana or Katakana), where the general loop decodes it for two
** tables and tests its class, script and range apart: text of those
** languages is mostly such runs. */
static ALWAYS_INLINE size_t cjk_run(const unsigned char *s, size_t n, size_t k, unsigned t,
                                    bool o200k, cjk_count *cc)
{
    /* the letters from the distance, the extra ones as a sum of their bits */
    size_t start = k;
    unsigned scripts = 0, extra = 0;
    for (;;) {
        scripts |= t;
        extra += t & TOK_CJK_EXTRA(o200k);
        k += 3;
        /* four bytes at once: a lead byte of three, two continuation bytes
        ** (a character ending the text is left to the general loop) */
        if (n - k < 4) break;
        uint32_t x = load_le4(s + k);
        if ((x & 0xC0C0F0) != 0x8080E0) break;
        /* U+3000-U+D7AF past the subtraction, surrogates above it */
        uint32_t i = ((x & 0x0F) << 12 | (x & 0x3F00) >> 2 | (x >> 16 & 0x3F)) - TOK_CJK_FIRST;
        if (i >= TOK_CJK_CHARS) break;
        t = coax_tok_cjk[i];
        if (!(t & TOK_CJK_LETTER)) break;
    }
    cc->seen |= (scripts & TOK_CJK_SCRIPT) << TOK_S_HAN;
    cc->nchars += (unsigned)(k - start) / 3;
    cc->extra += extra / TOK_CJK_EXTRA(o200k);
    return k;
}

/* The table byte of the character at s[i] (i < n) and its length in *w:
** ASCII, and valid two- and three-byte sequences, are decoded here (the
** others by char_slow), and *cp is the code point of a character of up to
** three bytes (0 for the others, which no CJK range holds). */
static ALWAYS_INLINE unsigned char_dec(const unsigned char *s, size_t n, size_t i,
                                       size_t *w, uint32_t *cp)
{
    unsigned c = s[i];
    uint32_t v;
    if (c < 0x80) {
        *w = 1;
        *cp = c;
        return coax_tok_stage2[c];
    }
    /* both continuation bytes tested at once: each xor 0x80 has its top two
    ** bits clear */
    if ((c & 0xF0) == 0xE0 && n - i >= 3 && !(((s[i + 1] ^ 0x80u) | (s[i + 2] ^ 0x80u)) & 0xC0)) {
        v = (uint32_t)(c & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
        if (v >= 0x800 && v - 0xD800 >= 0x800u) {
            *w = 3;
            goto bmp;
        }
    } else if (c - 0xC2 < 0xE0u - 0xC2 && n - i >= 2 && cont(s[i + 1])) {
        v = (uint32_t)(c & 0x1F) << 6 | (s[i + 1] & 0x3F);
        *w = 2;
        *cp = v;
        return coax_tok_stage2[v]; /* below TOK_STAGE2_DIRECT */
    }
    *cp = 0;
    /* through a local: the address of *w would keep the loops' widths in
    ** memory */
    size_t slow_w;
    unsigned b = char_slow(s, n, i, &slow_w);
    *w = slow_w;
    return b;
bmp:
    *cp = v;
    return table_bmp(v);
}

/* char_dec for words' letters, where most characters are of two or three
** bytes: after ASCII, a character of three bytes from U+1000 to U+CFFF
** (CJK, kana, Hangul), valid whenever its continuation bytes are, and one of
** two bytes (Cyrillic, Greek, Arabic, accented Latin), each with that test
** alone; the rest by char_dec. */
static ALWAYS_INLINE unsigned letter_dec(const unsigned char *s, size_t n, size_t i, size_t *w,
                                         uint32_t *cp)
{
    unsigned c = s[i];
    uint32_t v;
    if (c < 0x80) {
        *w = 1;
        *cp = c;
        return coax_tok_stage2[c];
    }
    if (c - 0xE1 <= 0xECu - 0xE1 && i + 2 < n) {
        unsigned c1 = s[i + 1] ^ 0x80u, c2 = s[i + 2] ^ 0x80u;
        if ((c1 | c2) & 0xC0) return char_dec(s, n, i, w, cp);
        v = (uint32_t)(c & 0x0F) << 12 | c1 << 6 | c2;
        *w = 3;
    } else if (c - 0xC2 <= 0xDFu - 0xC2 && i + 1 < n) {
        unsigned c1 = s[i + 1] ^ 0x80u;
        if (c1 & 0xC0) return char_dec(s, n, i, w, cp);
        v = (uint32_t)(c & 0x1F) << 6 | c1;
        *w = 2;
        *cp = v;
        return coax_tok_stage2[v]; /* below TOK_STAGE2_DIRECT */
    } else {
        return char_dec(s, n, i, w, cp);
    }
    *cp = v;
    return table_bmp(v);
}

/* char_dec without the code point, for everything but words' letters. */
static ALWAYS_INLINE unsigned char_at(const unsigned char *s, size_t n, size_t i, size_t *w)
{
    uint32_t cp;
    return char_dec(s, n, i, w, &cp);
}

/* ---- eight bytes at a time ------------------------------------------------ */

#define LANES_LOW 0x0101010101010101u
#define LANES_HIGH 0x8080808080808080u

/* The high bit of every byte of x in [lo, hi] (lo >= 1, hi < 0x80): the
** seven low bits plus (0x80 - lo) reach the high bit without carrying into
** the next byte; a byte of x with its high bit set is never in range. */
static inline uint64_t lanes_in(uint64_t x, unsigned lo, unsigned hi)
{
    uint64_t y = x & ~LANES_HIGH;
    return (y + LANES_LOW * (0x80 - lo)) & ~(y + LANES_LOW * (0x7F - hi)) & ~x & LANES_HIGH;
}

/* How many lanes a lanes_in mask has (the high bits summed into the top byte). */
static inline unsigned lanes_count(uint64_t m) { return (unsigned)(((m >> 7) * LANES_LOW) >> 56); }

/* The lanes before the first lane not in m (m != LANES_HIGH). */
static inline unsigned lanes_lead(uint64_t m)
{
    return (unsigned)__builtin_ctzll(~m & LANES_HIGH) / 8;
}

/* The end of the run of ASCII lowercase letters starting at k. */
static inline size_t run_lower(const unsigned char *s, size_t n, size_t k)
{
    for (; n - k >= 8; k += 8) {
        uint64_t m = lanes_in(load_le8(s + k), 'a', 'z');
        if (m != LANES_HIGH) return k + lanes_lead(m);
    }
    while (k < n && (unsigned)(s[k] - 'a') < 26u) k++;
    return k;
}

/* The end of the run of ASCII letters starting at k; their capitals are
** added to *nup. */
static inline size_t run_letters(const unsigned char *s, size_t n, size_t k, unsigned *nup)
{
    for (; n - k >= 8; k += 8) {
        uint64_t x = load_le8(s + k), up = lanes_in(x, 'A', 'Z');
        uint64_t m = up | lanes_in(x, 'a', 'z');
        if (m != LANES_HIGH) {
            unsigned lead = lanes_lead(m);
            *nup += lanes_count(up & ((1ull << (8 * lead)) - 1));
            return k + lead;
        }
        *nup += lanes_count(up);
    }
    for (; k < n; k++) {
        unsigned c = s[k];
        if ((unsigned)(c - 'A') < 26u) ++*nup;
        else if ((unsigned)(c - 'a') >= 26u) break;
    }
    return k;
}

/* ---- sixteen bytes at a time (SSE2: base/bytes.h) -------------------------- */

#if BYTES16
/* Bit k set where byte k of w is in [lo, hi] (lo <= hi, both ASCII): adding
** 0x80 - lo maps [lo, hi] onto the lowest signed bytes, -128 up to
** hi - lo - 128, and every other byte (the addition is a bijection) above
** them, so one signed compare decides. */
static inline unsigned bytes16_in(__m128i w, char lo, char hi)
{
    __m128i t = _mm_add_epi8(w, _mm_set1_epi8((char)(0x80 - lo)));
    return (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(t, _mm_set1_epi8((char)(hi - lo - 127))));
}

/* Bit k set where byte k of w is not ASCII. */
static inline unsigned bytes16_high(__m128i w) { return (unsigned)_mm_movemask_epi8(w); }
#endif

/* The lanes before the first clear bit of a sixteen-bit mask (16 when all are
** set). */
static inline unsigned bits16_lead(unsigned m) { return (unsigned)__builtin_ctz(~m); }

/* What the scan asks of most ASCII bytes, one load each: ascii_class[c]
** holds ASCII_PUNCT when the byte c is ASCII of class P (no letter, digit
** or whitespace), ASCII_BREAK for CR and LF, ASCII_SLASH for '/' (what may
** follow a punctuation run in its piece), ASCII_LETTER for A-Z and a-z,
** ASCII_DIGIT for 0-9. */
enum { ASCII_PUNCT = 1, ASCII_BREAK = 2, ASCII_SLASH = 4, ASCII_LETTER = 8, ASCII_DIGIT = 16 };
static const uint8_t ascii_class[256] = {
     1,  1,  1,  1,  1,  1,  1,  1,  1,  0,  2,  0,  0,  2,  1,  1, /* 0x00 */
     1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1, /* 0x10 */
     0,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  5, /* 0x20 */
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16,  1,  1,  1,  1,  1,  1, /* 0x30 */
     1,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8, /* 0x40 */
     8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  1,  1,  1,  1,  1, /* 0x50 */
     1,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8, /* 0x60 */
     8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  1,  1,  1,  1,  1, /* 0x70 */
    /* 0x80-0xFF: 0 */
};

/* Any byte may be tested. */
static inline bool is_ascii_punct(unsigned c) { return ascii_class[c & 0xFF] & ASCII_PUNCT; }
static inline bool is_ascii_letter(unsigned c) { return ascii_class[c & 0xFF] & ASCII_LETTER; }
static inline bool is_ascii_digit(unsigned c) { return ascii_class[c & 0xFF] & ASCII_DIGIT; }

#endif
