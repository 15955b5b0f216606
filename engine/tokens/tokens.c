/*
** tokens.c: token estimation (coax_tokens, coax_tokens_chat).
**
** The scanner below follows the pre-tokenizer regular expressions of o200k
** and cl100k (as gpt-tokenizer writes them for JavaScript) alternative by
** alternative, so the pieces it makes are the pieces the real tokenizer
** makes. Each piece then costs its expected number of tokens under the
** fitted model (tokens.h). No allocation, no state: pure functions of the
** bytes.
*/
#include "tokens/tokens.h"

/* The scanner is inlined into its per-encoding copies (see scan). */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* ---- characters ---------------------------------------------------------- */

#define TOK_INVALID (TOK_C_P | TOK_S_OTHER << 3)

static inline unsigned table_byte(uint32_t cp)
{
    if (cp < 0x10000) return coax_tok_stage2[(size_t)coax_tok_stage1[cp >> 7] * 128 + (cp & 127)];
    /* The last run starting at or before cp. */
    uint32_t key = cp << 8 | 0xFF;
    size_t lo = 0, hi = coax_tok_nruns;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (coax_tok_runs[mid] <= key) lo = mid;
        else hi = mid;
    }
    return coax_tok_runs[lo] & 0xFF;
}

static inline bool cont(unsigned char c) { return (c & 0xC0) == 0x80; }

/* The table byte of the non-ASCII character at s[i] (i < n), its length
** in *w. An invalid or truncated sequence is one byte of class P (as
** JavaScript would see U+FFFD). */
static unsigned char_slow(const unsigned char *s, size_t n, size_t i, size_t *w)
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
        if (n - i < 4 || !cont(s[i + 1]) || !cont(s[i + 2]) || !cont(s[i + 3])) goto bad;
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

/* The table byte of the character at s[i] (i < n) and its length in *w.
** ASCII stays on the fast path. */
static ALWAYS_INLINE unsigned char_at(const unsigned char *s, size_t n,
                                                               size_t i, size_t *w)
{
    if (s[i] < 0x80) {
        *w = 1;
        return coax_tok_stage2[s[i]]; /* block 0 is the first block */
    }
    return char_slow(s, n, i, w);
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

/* ---- the fingerprint table ------------------------------------------------ */

/* A 64-bit multiply-xorshift hash over little-endian words: the same value
** on every platform, since the tables are generated from it. */
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

static inline uint32_t load_le4(const unsigned char *s)
{
    return (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
}

/* The n (1..7) bytes at s as a little-endian word, reading only s[0..n):
** two overlapping loads whose shared bytes agree. */
static inline uint64_t load_le_tail(const unsigned char *s, size_t n)
{
    if (n >= 4) return (uint64_t)load_le4(s) | (uint64_t)load_le4(s + n - 4) << (8 * (n - 4));
    return (uint64_t)s[0] | (uint64_t)s[n / 2] << (8 * (n / 2)) | (uint64_t)s[n - 1] << (8 * (n - 1));
}

/* The hash of s[0..n); 'avail' (>= n) bytes from s may be read, so a tail
** of fewer than eight bytes with eight readable is one load, masked. */
static inline uint32_t tok_hash(const unsigned char *s, size_t n, size_t avail)
{
    uint64_t h = 0x9E3779B97F4A7C15u ^ n;
    while (n >= 8) {
        h = (h ^ load_le8(s)) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
        s += 8;
        n -= 8;
        avail -= 8;
    }
    if (n) {
        uint64_t tail = avail >= 8 ? load_le8(s) & (~0ull >> (64 - 8 * n)) : load_le_tail(s, n);
        h = (h ^ tail) * 0xc4ceb9fe1a85ec53u;
        h ^= h >> 29;
    }
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 32;
    return (uint32_t)h;
}

uint32_t coax_tok_hash(const unsigned char *s, size_t n) { return tok_hash(s, n, n); }

/* Linear probing over at most TOK_PROBES slots (the generator places every
** entry within them), so a miss costs one cache line. (Testing the four
** slots at once as 16-bit lanes measured more instructions: most probes end
** at the first or second slot.) */
static inline unsigned common_lookup(const uint16_t *table, uint32_t hash)
{
    unsigned fp = (hash >> 18) & 0x3FFF;
    if (!fp) fp = 1;
    uint32_t slot = hash & (TOK_COMMON_SLOTS - 1);
    for (int p = 0; p < TOK_PROBES; p++, slot = (slot + 1) & (TOK_COMMON_SLOTS - 1)) {
        unsigned e = table[slot];
        if (!e) return 0;
        if ((e >> 2) == fp) return (e & 3) + 1;
    }
    return 0;
}

unsigned coax_tok_common_lookup(const uint16_t *table, uint32_t hash)
{
    return common_lookup(table, hash);
}

/* ---- pieces --------------------------------------------------------------- */

/* A letter run starting at j (after any prefix), per the encoding. Fills the
** end, the script group, the case pattern and the letter count. */
typedef struct word_info {
    size_t end;
    unsigned script, casep, nchars;
} word_info;

/* 1 when the CJK character cp (its table byte b) is not a token of its own
** in the encoding, so it costs about one more. */
static inline unsigned cjk_extra(uint32_t cp, unsigned b, bool o200k)
{
    unsigned sc = SCRIPT(b);
    if (sc < TOK_S_HAN || sc > TOK_S_HANGUL) return 0;
    uint32_t i;
    if (cp >= 0x3000 && cp < 0xA000) i = cp - 0x3000;
    else if (cp >= 0xAC00 && cp < 0xD7B0) i = cp - 0xAC00 + 0x7000;
    else return 0;
    const uint8_t *bits = o200k ? coax_tok_cjk_single_o200k : coax_tok_cjk_single_cl100k;
    return !(bits[i >> 3] >> (i & 7) & 1);
}

/* char_at for words of any script: valid two- and three-byte sequences are
** decoded here, and *cp is the code point of a character of up to three
** bytes (0 for the others, which no CJK range holds). */
static ALWAYS_INLINE unsigned char_dec(const unsigned char *s, size_t n, size_t i, size_t *w,
                                       uint32_t *cp)
{
    unsigned c = s[i];
    uint32_t v;
    if (c < 0x80) {
        *w = 1;
        *cp = c;
        return coax_tok_stage2[c];
    }
    if (c >= 0xE0 && c <= 0xEF && n - i >= 3 && cont(s[i + 1]) && cont(s[i + 2])) {
        v = (uint32_t)(c & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
        if (v >= 0x800 && (v < 0xD800 || v > 0xDFFF)) {
            *w = 3;
            goto bmp;
        }
    } else if (c >= 0xC2 && c <= 0xDF && n - i >= 2 && cont(s[i + 1])) {
        v = (uint32_t)(c & 0x1F) << 6 | (s[i + 1] & 0x3F);
        *w = 2;
        goto bmp;
    }
    *cp = 0;
    return char_slow(s, n, i, w);
bmp:
    *cp = v;
    return coax_tok_stage2[(size_t)coax_tok_stage1[v >> 7] * 128 + (v & 127)];
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
static inline unsigned lanes_lead(uint64_t m) { return (unsigned)__builtin_ctzll(~m & LANES_HIGH) / 8; }

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

/* The common case: ASCII letters up to an ASCII non-letter. Returns false
** (and the caller takes the general path) when a non-ASCII character is met
** where it could continue the word. */
static ALWAYS_INLINE bool scan_word_ascii(const unsigned char *s, size_t n, size_t j, bool o200k,
                                          word_info *wi)
{
    size_t k = j;
    unsigned nup = 0, nlow;
    if (o200k) {
        while (k < n && (unsigned)(s[k] - 'A') < 26u) k++;
        nup = (unsigned)(k - j);
        size_t l = k;
        k = run_lower(s, n, k);
        nlow = (unsigned)(k - l);
        if (k < n && s[k] >= 0x80) return false;
        size_t cl = contraction(s, n, k);
        wi->nchars = nup + nlow + (unsigned)cl;
        k += cl;
    } else {
        k = run_letters(s, n, k, &nup);
        if (k < n && s[k] >= 0x80) return false;
        wi->nchars = (unsigned)(k - j);
        nlow = wi->nchars - nup;
    }
    wi->end = k;
    wi->script = TOK_S_ASCII;
    if (nup == 0) wi->casep = TOK_CASE_LOWER;
    else if (nup == 1 && (unsigned)(s[j] - 'A') < 26u) wi->casep = TOK_CASE_CAP;
    else if (nlow == 0) wi->casep = TOK_CASE_UPPER;
    else wi->casep = TOK_CASE_MIXED;
    return true;
}

/* Any letters: the regex's alternatives character by character. */
static void scan_word_any(const unsigned char *s, size_t n, size_t j, bool o200k, word_info *wi)
{
    unsigned nup = 0, nlow = 0, nchars = 0, first_cls = 0, script = TOK_S_OTHER, extra = 0;
    bool first = true, nonascii_latin = false, hira = false, kata = false;
    size_t k = j, w;
    uint32_t cp;
    if (o200k) {
        /* [UP]*: Lu Lt Lm Lo M, remembering the last caseless letter or mark
        ** (where [LO]+ can start when backtracking). */
        size_t last_lo_end = 0;
        unsigned cnt_at_last_lo = 0, up_at_last_lo = 0, extra_at_last_lo = 0;
        while (k < n) {
            unsigned b = char_dec(s, n, k, &w, &cp), c = CLS(b);
            if (c != TOK_C_LU && c != TOK_C_LO && c != TOK_C_MK) break;
            if (first) {
                first = false;
                first_cls = c;
                script = SCRIPT(b);
            }
            if (SCRIPT(b) == TOK_S_HIRAGANA) hira = true;
            else if (SCRIPT(b) == TOK_S_KATAKANA) kata = true;
            else if (SCRIPT(b) == TOK_S_LATIN) nonascii_latin = true;
            if (b >= 8 * TOK_S_HAN) extra += cjk_extra(cp, b, o200k);
            nchars++;
            if (c == TOK_C_LU) nup++;
            k += w;
            if (c != TOK_C_LU) {
                last_lo_end = k;
                cnt_at_last_lo = nchars;
                up_at_last_lo = nup;
                extra_at_last_lo = extra;
            }
        }
        unsigned b = k < n ? char_dec(s, n, k, &w, &cp) : TOK_C_P;
        if (k < n && CLS(b) == TOK_C_LL) {
            /* [LO]+: Ll Lm Lo M */
            while (k < n) {
                b = char_dec(s, n, k, &w, &cp);
                unsigned c = CLS(b);
                if (c != TOK_C_LL && c != TOK_C_LO && c != TOK_C_MK) break;
                if (first) {
                    first = false;
                    first_cls = c;
                    script = SCRIPT(b);
                }
                if (SCRIPT(b) == TOK_S_HIRAGANA) hira = true;
                else if (SCRIPT(b) == TOK_S_KATAKANA) kata = true;
                else if (SCRIPT(b) == TOK_S_LATIN) nonascii_latin = true;
                if (b >= 8 * TOK_S_HAN) extra += cjk_extra(cp, b, o200k);
                nchars++;
                if (c == TOK_C_LL) nlow++;
                k += w;
            }
        } else if (last_lo_end) {
            /* Backtracking: [LO]+ takes the last caseless letter or mark. */
            k = last_lo_end;
            nchars = cnt_at_last_lo;
            nup = up_at_last_lo;
            extra = extra_at_last_lo;
        }
        /* else the second alternative: [UP]+ then [LO]* (nothing follows). */
        size_t cl = contraction(s, n, k);
        if (cl) {
            k += cl;
            nchars += (unsigned)cl;
        }
    } else {
        while (k < n) {
            unsigned b = char_dec(s, n, k, &w, &cp), c = CLS(b);
            if (c < TOK_C_LU || c > TOK_C_LO) break;
            if (first) {
                first = false;
                first_cls = c;
                script = SCRIPT(b);
            }
            if (SCRIPT(b) == TOK_S_HIRAGANA) hira = true;
            else if (SCRIPT(b) == TOK_S_KATAKANA) kata = true;
            else if (SCRIPT(b) == TOK_S_LATIN) nonascii_latin = true;
            if (b >= 8 * TOK_S_HAN) extra += cjk_extra(cp, b, o200k);
            nchars++;
            if (c == TOK_C_LU) nup++;
            else if (c == TOK_C_LL) nlow++;
            k += w;
        }
    }
    if (script == TOK_S_ASCII && nonascii_latin) script = TOK_S_LATIN;
    if (script == TOK_S_HAN && (hira || kata)) script = hira ? TOK_S_HIRAGANA : TOK_S_KATAKANA;
    unsigned casep;
    if (nup == 0) casep = TOK_CASE_LOWER;
    else if (nup == 1 && first_cls == TOK_C_LU) casep = TOK_CASE_CAP;
    else if (nlow == 0) casep = TOK_CASE_UPPER;
    else casep = TOK_CASE_MIXED;
    wi->end = k;
    wi->script = script;
    wi->casep = casep;
    /* the length the weights are keyed on: multi-token CJK characters count
    ** twice */
    wi->nchars = nchars ? nchars + extra : 1;
}

static ALWAYS_INLINE void scan_word(const unsigned char *s, size_t n,
                                                          size_t j, bool o200k, word_info *wi)
{
    if (s[j] >= 0x80 || !scan_word_ascii(s, n, j, o200k, wi)) scan_word_any(s, n, j, o200k, wi);
}

/* The piece's row and kind from what scan_space found. */
static inline void space_row(bool nl, bool only_breaks, bool tabs, bool other, unsigned *kind,
                             unsigned *row)
{
    if (nl) {
        *kind = TOK_K_NEWLINE;
        /* line breaks only, with spaces, or with tabs and other spaces */
        *row = TOK_ROW_NEWLINE + (only_breaks ? 0u : (tabs || other) ? 2u : 1u);
    } else {
        *kind = TOK_K_SPACE;
        *row = TOK_ROW_SPACE + (other ? 2u : tabs ? 1u : 0u);
    }
}

/* scan_space when the run is ASCII (every character one byte, so counts are
** byte distances): one pass, no table. Returns 0 when the run meets a
** non-ASCII byte, which may be a space; the general scan then starts over. */
static inline size_t scan_space_ascii(const unsigned char *s, size_t n, size_t i, bool o200k,
                                      unsigned *kind, unsigned *row, unsigned *nchars)
{
    size_t k = i, last_nl_end = 0;
    bool tabs = false, other = false, tabs_nl = false, other_nl = false;
    bool blank = false, blank_nl = false; /* a space, tab or other before (the last) break */
    for (; k < n; k++) {
        unsigned c = s[k];
        if (c == ' ') {
            blank = true;
        } else if (c == '\n' || c == '\r') {
            last_nl_end = k + 1;
            tabs_nl = tabs;
            other_nl = other;
            blank_nl = blank;
        } else if (c == '\t') {
            tabs = blank = true;
        } else if (c == '\v' || c == '\f') {
            other = blank = true;
        } else {
            break;
        }
    }
    if (k < n && s[k] >= 0x80) return 0;
    size_t end;
    bool nl = false;
    if (!o200k && k == n) {
        end = n; /* \s+$ */
        nl = last_nl_end != 0;
    } else if (last_nl_end) {
        end = last_nl_end; /* \s*[\r\n]+ */
        nl = true;
        tabs = tabs_nl;
        other = other_nl;
        blank = blank_nl;
    } else if (k == n || k - i < 2) {
        end = k; /* \s+(?!\S) to the end, or a lone \s */
    } else {
        end = k - 1; /* \s+(?!\S): leave one for the next word */
    }
    *nchars = (unsigned)(end - i);
    space_row(nl, !blank, tabs, other, kind, row);
    return end;
}

/* The whitespace piece starting at i (class WS or NL), any characters. */
static size_t scan_space_any(const unsigned char *s, size_t n, size_t i, bool o200k, unsigned *kind,
                         unsigned *row, unsigned *nchars)
{
    size_t k = i, w, last_nl_end = 0, last_start = i;
    unsigned cnt = 0, cnt_at_nl = 0, cnt_last = 0;
    bool tabs = false, other = false, tabs_nl = false, other_nl = false;
    while (k < n) {
        unsigned b = char_at(s, n, k, &w), c = CLS(b);
        if (!is_space(c)) break;
        last_start = k;
        cnt_last = cnt;
        cnt++;
        if (c == TOK_C_NL) {
            last_nl_end = k + w;
            cnt_at_nl = cnt;
            tabs_nl = tabs;
            other_nl = other;
        } else if (s[k] == '\t') {
            tabs = true;
        } else if (s[k] != ' ') {
            other = true;
        }
        k += w;
    }
    size_t end;
    bool nl = false;
    if (!o200k && k == n) {
        end = n; /* \s+$ */
        nl = last_nl_end != 0;
    } else if (last_nl_end) {
        end = last_nl_end; /* \s*[\r\n]+ */
        cnt = cnt_at_nl;
        nl = true;
        tabs = tabs_nl;
        other = other_nl;
    } else if (k == n || cnt < 2) {
        end = k; /* \s+(?!\S) to the end, or a lone \s */
    } else {
        end = last_start; /* \s+(?!\S): leave one for the next word */
        cnt = cnt_last;
    }
    *nchars = cnt;
    bool only_breaks = true;
    for (size_t q = i; nl && q < end; q++)
        if (s[q] != '\n' && s[q] != '\r') {
            only_breaks = false;
            break;
        }
    space_row(nl, only_breaks, tabs, other, kind, row);
    return end;
}

/* The whitespace piece starting at i (class WS or NL). */
static ALWAYS_INLINE size_t scan_space(const unsigned char *s, size_t n,
                                                               size_t i, bool o200k, unsigned *kind,
                                                               unsigned *row, unsigned *nchars)
{
    size_t end = scan_space_ascii(s, n, i, o200k, kind, row, nchars);
    return end ? end : scan_space_any(s, n, i, o200k, kind, row, nchars);
}

/* Bit c % 64 of ascii_punct[c / 64]: the ASCII character c is of class P. */
#define BITS(a, b) ((~0ull >> (63 - (b) + (a))) << (a))
static const uint64_t ascii_punct[2] = {
    BITS(0x00, 0x08) | BITS(0x0E, 0x1F) | BITS(0x21, 0x2F) | BITS(0x3A, 0x3F),
    BITS(0x40 - 64, 0x40 - 64) | BITS(0x5B - 64, 0x60 - 64) | BITS(0x7B - 64, 0x7F - 64)};

static inline bool is_ascii_punct(unsigned c)
{
    return c < 0x80 && (ascii_punct[c >> 6] >> (c & 63) & 1);
}

/* A run of punctuation: its script (of its first non-ASCII character, ASCII
** when none), its characters, and how many repeat the one before (runs of
** one character, rules and underlines, merge well). */
typedef struct punct_info {
    unsigned script, count, repeats;
} punct_info;

/* punct_run past a non-ASCII byte at k; prev, prev_w: the character before. */
static size_t punct_run_any(const unsigned char *s, size_t n, size_t k, size_t prev, size_t prev_w,
                            punct_info *pi)
{
    size_t w;
    while (k < n) {
        unsigned b = char_at(s, n, k, &w);
        if (!is_punct(CLS(b))) break;
        if (pi->script == TOK_S_ASCII) pi->script = SCRIPT(b);
        if (w == prev_w && s[prev] == s[k] && (w == 1 || !memcmp(s + prev, s + k, w)))
            pi->repeats++;
        prev = k;
        prev_w = w;
        pi->count++;
        k += w;
    }
    return k;
}

/* The run of [^\s\p{L}\p{N}] starting at k; returns its end. ASCII stays
** in a loop of its own. */
static ALWAYS_INLINE size_t punct_run(const unsigned char *s, size_t n, size_t k, punct_info *pi)
{
    size_t start = k;
    unsigned nrep = 0;
    for (; k < n && is_ascii_punct(s[k]); k++) nrep += k > start && s[k] == s[k - 1];
    pi->script = TOK_S_ASCII;
    pi->count = (unsigned)(k - start);
    pi->repeats = nrep;
    if (k < n && s[k] >= 0x80) k = punct_run_any(s, n, k, k > start ? k - 1 : k, k > start, pi);
    return k;
}

/* The weight of a piece of 'nchars' code points in 'row'. */
static inline uint64_t row_weight(const tok_model *m, unsigned row, unsigned nchars)
{
    const uint16_t *w = m->weight + (size_t)row * TOK_MAXLEN;
    if (nchars <= TOK_MAXLEN) return w[nchars - 1];
    return w[TOK_MAXLEN - 1] + (uint64_t)(nchars - TOK_MAXLEN) * m->slope[row];
}

/* The scanner; inlined into coax_tok_scan (with a visitor, for the
** calibration tool) and into the per-encoding counters below, where the
** split is a constant and there is no visitor, so neither is tested per
** piece. */
static ALWAYS_INLINE uint64_t scan(int split, const tok_model *m, const char *str, size_t n,
                                   tok_visit visit, void *ud)
{
    const unsigned char *s = (const unsigned char *)str;
    const bool o200k = split == TOK_SPLIT_O200K;
    uint64_t total = 0;
    bool prev_alnum = false; /* the last piece ended in a letter or digit */
    size_t i = 0;
    while (i < n) {
        size_t w;
        unsigned b = char_at(s, n, i, &w), c = CLS(b);
        size_t end, word = i; /* where a word's letters start */
        unsigned kind = TOK_K_WORD, row, nchars, pre = prev_alnum ? TOK_PRE_GLUED : TOK_PRE_NONE;
        bool hashable = true, alnum_end = false;
        /* One alternative of the regex per branch, in its order; a word or
        ** whitespace is scanned below, once. */
        if (is_letter(c, o200k)) {
        } else if (c == TOK_C_N) {
            end = i + w;
            nchars = 1;
            while (nchars < 3 && end < n) {
                size_t w2;
                if (CLS(char_at(s, n, end, &w2)) != TOK_C_N) break;
                end += w2;
                nchars++;
            }
            kind = TOK_K_NUM;
            row = TOK_ROW_NUM + SCRIPT(b);
            hashable = false;
            alnum_end = true;
        } else if (c == TOK_C_NL) {
            kind = TOK_K_SPACE;
        } else {
            /* P, WS, or (cl100k) a mark: a contraction, a prefixed word, a
            ** punctuation run or whitespace. */
            size_t cl = o200k ? 0 : contraction(s, n, i), w2 = 0;
            unsigned nb = i + w < n ? char_at(s, n, i + w, &w2) : TOK_C_NL;
            if (cl) {
                end = i + cl;
                kind = TOK_K_CONTR;
                row = TOK_ROW_CONTR;
                nchars = (unsigned)cl;
            } else if (i + w < n && is_letter(CLS(nb), o200k)) {
                word = i + w;
                pre = s[i] == ' ' ? TOK_PRE_SPACE : TOK_PRE_OTHER;
            } else if (is_punct(c) || (s[i] == ' ' && i + 1 < n && is_punct(CLS(nb)))) {
                bool lead = s[i] == ' ';
                punct_info pi;
                size_t k = punct_run(s, n, lead ? i + 1 : i, &pi);
                unsigned cnt = pi.count;
                bool rep = cnt >= 3 && pi.repeats * 2 >= cnt, brk = false;
                while (k < n && (s[k] == '\n' || s[k] == '\r' || (o200k && s[k] == '/'))) {
                    brk = brk || s[k] != '/';
                    cnt++;
                    k++;
                }
                end = k;
                kind = TOK_K_PUNCT;
                row = TOK_ROW_PUNCT + ((pi.script * 2 + lead) * 2 + brk) * 2 + rep;
                nchars = cnt;
            } else {
                kind = TOK_K_SPACE;
            }
        }
        if (kind == TOK_K_WORD) {
            word_info wi;
            scan_word(s, n, word, o200k, &wi);
            end = wi.end;
            row = TOK_ROW_WORD + (wi.script * TOK_NCASE + wi.casep) * TOK_NPRE + pre;
            nchars = wi.nchars;
            alnum_end = true;
        } else if (kind == TOK_K_SPACE) {
            end = scan_space(s, n, i, o200k, &kind, &row, &nchars);
            hashable = false;
        }
        uint64_t weight;
        unsigned common = 0;
        uint32_t hash = 0;
        bool hashed = hashable && end - i <= TOK_HASH_MAX;
        if (hashed) {
            hash = tok_hash(s + i, end - i, n - i);
            common = common_lookup(m->common, hash);
        }
        weight = common ? (uint64_t)common * TOK_SCALE : row_weight(m, row, nchars);
        /* Byte-level BPE never makes more tokens than bytes. */
        if (weight > (uint64_t)(end - i) * TOK_SCALE) weight = (uint64_t)(end - i) * TOK_SCALE;
        total += weight;
        if (visit) {
            tok_piece p = {i, end, kind, row, nchars,
                           row * TOK_MAXLEN + (nchars <= TOK_MAXLEN ? nchars - 1 : TOK_MAXLEN - 1),
                           hash, hashed, common, weight};
            visit(ud, &p);
        }
        prev_alnum = alnum_end;
        i = end;
    }
    return total;
}

uint64_t coax_tok_scan(int split, const tok_model *m, const char *str, size_t n, tok_visit visit,
                       void *ud)
{
    return scan(split, m, str, n, visit, ud);
}

static uint64_t scan_o200k(const char *s, size_t n)
{
    return scan(TOK_SPLIT_O200K, &coax_tok_model_o200k, s, n, NULL, NULL);
}

static uint64_t scan_cl100k(const char *s, size_t n)
{
    return scan(TOK_SPLIT_CL100K, &coax_tok_model_cl100k, s, n, NULL, NULL);
}

/* ---- the public functions ------------------------------------------------- */

static const char *const encoding_names[COAX_ENC_COUNT] = {"o200k", "cl100k", "llama3", "claude",
                                                           "chars4"};

const char *coax_encoding_name(coax_encoding enc)
{
    return (int)enc >= 0 && enc < COAX_ENC_COUNT ? encoding_names[enc] : "unknown";
}

coax_code coax_encoding_parse(const char *name, size_t len, coax_encoding *out)
{
    if (!name || !out) return COAX_EINVAL;
    for (int e = 0; e < COAX_ENC_COUNT; e++)
        if (strlen(encoding_names[e]) == len && !memcmp(encoding_names[e], name, len)) {
            *out = (coax_encoding)e;
            return COAX_OK;
        }
    return COAX_EINVAL;
}

/* ceil(code points / 4); an invalid byte is one code point. */
static size_t chars4(const unsigned char *s, size_t n)
{
    size_t cps = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] < 0x80) {
            i++;
        } else {
            size_t w;
            char_at(s, n, i, &w);
            i += w;
        }
        cps++;
    }
    return cps / 4 + (cps % 4 != 0);
}

size_t coax_tokens(coax_encoding enc, const char *text, size_t len)
{
    if (!text || !len) return 0;
    if (enc == COAX_ENC_CHARS4) return chars4((const unsigned char *)text, len);
    bool cl = enc == COAX_ENC_CL100K || enc == COAX_ENC_LLAMA3;
    uint64_t sum = cl ? scan_cl100k(text, len) : scan_o200k(text, len);
    if (enc == COAX_ENC_CLAUDE) sum = sum / 5 * 6 + (sum % 5) * 6 / 5; /* x 1.2 */
    uint64_t n = enc == COAX_ENC_CLAUDE ? (sum + TOK_SCALE - 1) / TOK_SCALE
                                        : (sum + TOK_SCALE / 2) / TOK_SCALE;
    if (n < 1) n = 1;
    if (n > len) n = len; /* never more tokens than bytes */
    return (size_t)n;
}

/* Framing per encoding: tokens a message, a name, and for the reply. */
static const struct {
    unsigned message, name, reply;
} framing[COAX_ENC_COUNT] = {
    [COAX_ENC_O200K] = {3, 1, 3},
    [COAX_ENC_CL100K] = {3, 1, 3},
    [COAX_ENC_LLAMA3] = {4, 1, 5},
    [COAX_ENC_CLAUDE] = {3, 1, 3},
    [COAX_ENC_CHARS4] = {0, 0, 0},
};

static size_t add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

size_t coax_tokens_chat(coax_encoding enc, const coax_message *msgs, size_t n)
{
    if ((int)enc < 0 || enc >= COAX_ENC_COUNT) enc = COAX_ENC_O200K;
    size_t total = framing[enc].reply;
    for (size_t i = 0; msgs && i < n; i++) {
        const coax_message *m = &msgs[i];
        total = add_sat(total, framing[enc].message);
        total = add_sat(total, coax_tokens(enc, m->role, m->role ? m->role_len : 0));
        total = add_sat(total, coax_tokens(enc, m->content, m->content ? m->content_len : 0));
        if (m->name) {
            total = add_sat(total, framing[enc].name);
            total = add_sat(total, coax_tokens(enc, m->name, m->name_len));
        }
    }
    return total;
}
