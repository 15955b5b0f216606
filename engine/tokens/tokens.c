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
#include "tokens/chars.h"
#include "tokens/table.h"
#include "tokens/space.h"

/* ---- the fingerprint table (table.h) -------------------------------------- */

uint32_t coax_tok_hash(const unsigned char *s, size_t n) { return tok_hash(s, n, n, false); }

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

/* The case pattern of 'len' ASCII letters from bit masks of their capitals
** ('up', bit k for letter k) and of the letters that are not: as the
** counts decide it below (one capital, first: capitalised). */
static inline unsigned case_of_masks(unsigned up, unsigned len)
{
    unsigned all = (1u << len) - 1;
    up &= all;
    return up == 0 ? TOK_CASE_LOWER : up == 1 ? TOK_CASE_CAP : up == all ? TOK_CASE_UPPER : TOK_CASE_MIXED;
}

#if BYTES16
/* scan_word_ascii from one load of sixteen bytes (readable from j): the
** capitals, the lowercase and the bytes that are not ASCII as bit masks, the
** runs by counting bits. Returns false when the letters fill the sixteen
** (the caller's loops go on) or the general path must decide. */
static ALWAYS_INLINE bool scan_word_ascii16(const unsigned char *s, size_t n, size_t j, bool o200k,
                                            word_info *wi, bool *done)
{
    __m128i v = bytes16_load((const char *)s + j);
    unsigned up = bytes16_in(v, 'A', 'Z'), low = bytes16_in(v, 'a', 'z');
    unsigned len, casep;
    if (o200k) {
        /* [A-Z]*[a-z]*: the capitals leading, then the lowercase */
        unsigned nup = bits16_lead(up), nlow = bits16_lead(low >> nup);
        len = nup + nlow;
        if (len == 16) return *done = false;
        casep = nup == 0   ? TOK_CASE_LOWER
                : nup == 1 ? TOK_CASE_CAP
                : nlow == 0 ? TOK_CASE_UPPER
                            : TOK_CASE_MIXED;
    } else {
        len = bits16_lead(up | low);
        if (len == 16) return *done = false;
        casep = case_of_masks(up, len);
    }
    *done = true;
    /* the byte after the letters, within the sixteen: one load decides
    ** whether the general path must, and whether a contraction may follow */
    size_t k = j + len;
    unsigned next = s[k];
    if (next >= 0x80) return false;
    size_t cl = o200k && next == '\'' ? contraction(s, n, k) : 0;
    wi->end = k + cl;
    wi->nchars = len + (unsigned)cl;
    /* fewer than sixteen letters and a contraction: the weight needs no
    ** test for a long piece (TOK_MAXLEN) */
    if (wi->nchars > 18) __builtin_unreachable();
    wi->script = TOK_S_ASCII;
    wi->casep = casep;
    return true;
}
#endif

#if BYTES16
static bool scan_word_long_o200k(const unsigned char *s, size_t n, size_t j, word_info *wi);
static bool scan_word_long_cl100k(const unsigned char *s, size_t n, size_t j, word_info *wi);
#endif

/* The common case: ASCII letters up to an ASCII non-letter. Returns false
** (and the caller takes the general path) when a non-ASCII character is met
** where it could continue the word. */
static ALWAYS_INLINE bool scan_word_ascii(const unsigned char *s, size_t n, size_t j,
                                          bool o200k, bool room, word_info *wi)
{
#if BYTES16
    if (room) {
        bool done;
        bool ok = scan_word_ascii16(s, n, j, o200k, wi, &done);
        if (done) return ok;
        /* sixteen letters or more: out of line, through a copy (the
        ** address of 'wi' would keep every word's fields in memory) */
        word_info long_wi;
        ok = o200k ? scan_word_long_o200k(s, n, j, &long_wi) : scan_word_long_cl100k(s, n, j, &long_wi);
        *wi = long_wi;
        return ok;
    }
#endif
    size_t k = j;
    unsigned nup = 0, nlow;
    if (o200k) {
        /* [A-Z]*[a-z]*: both runs from the first eight bytes when they end
        ** there (most words), else byte by byte and eight at a time */
        uint64_t up;
        if ((room || n - j >= 8) && (up = lanes_in(load_le8(s + j), 'A', 'Z')) != LANES_HIGH) {
            uint64_t x = load_le8(s + j);
            nup = lanes_lead(up);
            uint64_t low = lanes_in(x, 'a', 'z') >> (8 * nup);
            nlow = low == LANES_HIGH ? 8 : lanes_lead(low);
            k = j + nup + nlow;
            if (nup + nlow == 8) {
                k = run_lower(s, n, k);
                nlow = (unsigned)(k - j) - nup;
            }
        } else {
            while (k < n && (unsigned)(s[k] - 'A') < 26u) k++;
            nup = (unsigned)(k - j);
            size_t l = k;
            k = run_lower(s, n, k);
            nlow = (unsigned)(k - l);
        }
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

#if BYTES16
/* scan_word_ascii past sixteen letters, a copy per encoding: its loops
** would take registers from the scan's, which a word this long seldom
** reaches. */
static __attribute__((noinline)) bool scan_word_long_o200k(const unsigned char *s, size_t n,
                                                           size_t j, word_info *wi)
{
    return scan_word_ascii(s, n, j, true, false, wi);
}

static __attribute__((noinline)) bool scan_word_long_cl100k(const unsigned char *s, size_t n,
                                                            size_t j, word_info *wi)
{
    return scan_word_ascii(s, n, j, false, false, wi);
}
#endif

/* Classes as bits, to test a character against a set in one step. */
#define CLS_BIT(c) (1u << (c))
#define UPPERISH (CLS_BIT(TOK_C_LU) | CLS_BIT(TOK_C_LO) | CLS_BIT(TOK_C_MK)) /* o200k [UP] */
#define LOWERISH (CLS_BIT(TOK_C_LL) | CLS_BIT(TOK_C_LO) | CLS_BIT(TOK_C_MK)) /* o200k [LO] */
#define LETTERS (CLS_BIT(TOK_C_LU) | CLS_BIT(TOK_C_LL) | CLS_BIT(TOK_C_LO)) /* \p{L} */
#define CASELESS (CLS_BIT(TOK_C_LO) | CLS_BIT(TOK_C_MK)) /* in both [UP] and [LO] */

/* 1 << script for every script group of a table byte (SCRIPT: five bits):
** a load, where a shift by a variable count takes a register and two
** instructions in the loops below. */
static const uint32_t script_bit[32] = {
    1u << 0,  1u << 1,  1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,
    1u << 8,  1u << 9,  1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
    1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23,
    1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31,
};

/* What a letter of each class adds to a count of capitals (low 32 bits) and
** of lowercase letters (high 32 bits). */
static const uint64_t case_count[8] = {[TOK_C_LU] = 1, [TOK_C_LL] = 1ull << 32};

/* A word's script group from its first letter's: Han letters with kana
** among them are Japanese, keyed as the first kana seen ('seen': a bit per
** group). */
static inline unsigned word_script(unsigned first, uint32_t seen)
{
    if (first == TOK_S_HAN && (seen & (1u << TOK_S_HIRAGANA | 1u << TOK_S_KATAKANA)))
        return seen >> TOK_S_HIRAGANA & 1 ? TOK_S_HIRAGANA : TOK_S_KATAKANA;
    return first;
}

/* A word of CJK letters (TOK_CJK_LETTER: Han, kana, Hangul, ...) from j,
** the first of table byte b and coax_tok_cjk byte t, when a run of them
** (cjk_run) is the whole word: it ends the text or meets neither a letter,
** a mark nor an apostrophe (caseless, so neither split backtracks). Fills
** *wi as scan_word_any would in a fraction of its instructions; false when
** the word is not such. Most words of those languages are. */
static ALWAYS_INLINE bool scan_word_cjk(const unsigned char *s, size_t n, size_t j, unsigned b,
                                        unsigned t, bool o200k, word_info *wi)
{
    cjk_count cc = {0, 0, 0};
    size_t k = cjk_run(s, n, j, t, o200k, &cc), w;
    if (k < n && (is_ascii_letter(s[k]) || s[k] == '\'')) return false;
    if (k < n && s[k] >= 0x80 && CLS(char_at(s, n, k, &w)) >= TOK_C_LU) return false;
    wi->end = k;
    wi->script = word_script(SCRIPT(b), cc.seen);
    wi->casep = TOK_CASE_LOWER;
    wi->nchars = cc.nchars + cc.extra;
    return true;
}

/* A word of two-byte letters (U+0080-U+07FF: accented Latin, Greek,
** Cyrillic, Armenian, Hebrew, Arabic), the first at j of table byte b, in
** the shapes most such words take, a character a test of its two bytes and
** a load: for o200k one capital at most, first, then lowercase, caseless
** letters and marks; for cl100k any letters. Their scripts matter to no key
** (only an ASCII or Han first letter's word looks at what follows it) and
** none is a CJK character, so the key needs the count and the case alone.
** False (scan_word_any decides) for other shapes: a capital after others
** before any lowercase (the regex's [UP]* goes on), an ASCII letter or a
** longer character that may go on with the word, an ASCII-script first. */
/* What o200k's words make of a letter's class, a load for three tests:
** a capital, [LO]'s classes (lowercase, caseless, marks), lowercase. */
enum { TWO_CAPITAL = 1, TWO_LOWERISH = 2, TWO_LOWER = 4 };
static const uint8_t two_byte_o200k[8] = {
    [TOK_C_LU] = TWO_CAPITAL, [TOK_C_LL] = TWO_LOWERISH | TWO_LOWER,
    [TOK_C_LO] = TWO_LOWERISH, [TOK_C_MK] = TWO_LOWERISH};

static ALWAYS_INLINE bool scan_word_two(const unsigned char *s, size_t n, size_t j, unsigned b,
                                        bool o200k, word_info *wi)
{
    if (SCRIPT(b) == TOK_S_ASCII) return false;
    size_t k = j;
    unsigned t = b, count = 0;
    unsigned lower = 0;  /* o200k: the classes seen (TWO_LOWER: a capital ends the word) */
    uint64_t cases = 0; /* cl100k: capitals (low half) and lowercase (high), as case_count */
    for (;;) {
        unsigned c = CLS(t);
        if (o200k) {
            unsigned a = two_byte_o200k[c];
            if (!(a & TWO_LOWERISH)) {
                if (!a) break;
                if (count && !(lower & TWO_LOWER)) return false;
                if (count) break;
            }
            lower |= a;
        } else {
            if (!(CLS_BIT(c) & LETTERS)) break;
            cases += case_count[c];
        }
        count++;
        k += 2;
        if (k == n) break;
        unsigned lead = s[k];
        if (lead < 0x80) {
            if (is_ascii_letter(lead)) return false;
            break;
        }
        if (lead - 0xC2 <= 0xDFu - 0xC2 && n - k >= 2 && cont(s[k + 1])) {
            t = coax_tok_stage2[(lead & 0x1F) << 6 | (s[k + 1] & 0x3F)]; /* below TOK_STAGE2_DIRECT */
            continue;
        }
        size_t w;
        if (CLS(char_at(s, n, k, &w)) >= TOK_C_LU) return false; /* a letter or a mark */
        break;
    }
    unsigned casep;
    if (o200k) {
        /* [UP]* took the capital, if any, [LO]+ the rest (or, with no
        ** lowercase, the last caseless letter: the same end) */
        casep = CLS(b) == TOK_C_LU ? TOK_CASE_CAP : TOK_CASE_LOWER;
        size_t cl = contraction(s, n, k);
        k += cl;
        count += (unsigned)cl;
    } else {
        unsigned nup = (unsigned)cases, nlow = (unsigned)(cases >> 32);
        casep = nup == 0                            ? TOK_CASE_LOWER
                : nup == 1 && CLS(b) == TOK_C_LU ? TOK_CASE_CAP
                : nlow == 0                         ? TOK_CASE_UPPER
                                                    : TOK_CASE_MIXED;
    }
    wi->end = k;
    wi->script = SCRIPT(b);
    wi->casep = casep;
    wi->nchars = count;
    return true;
}

/* Any letters: the regex's alternatives character by character. Per
** character only what the key needs: the scripts seen (a bit each), the
** capitals, the lowercase, the extra length of multi-token CJK characters.
** Each loop holds the table byte of the character at k, decoded once (the
** class at the end of the text: P); the first character's is kept for the
** key. s[j] is a letter, of table byte b, w bytes, code point cp (char_dec). */
static ALWAYS_INLINE void scan_word_any(const unsigned char *s, size_t n, size_t j, unsigned b,
                                        size_t w, uint32_t cp, bool o200k, word_info *wi)
{
    if (w == 2 && scan_word_two(s, n, j, b, o200k, wi)) return;
    unsigned t = cjk_byte(cp); /* most words of CJK letters are one run */
    if ((t & TOK_CJK_LETTER) && scan_word_cjk(s, n, j, b, t, o200k, wi)) return;
    unsigned nup = 0, nlow = 0, nchars = 0, extra = 0;
    uint32_t seen = 0; /* a bit per script group */
    size_t k = j;
    unsigned first = b;
#define NEXT_CHAR() (k += w, b = k < n ? letter_dec(s, n, k, &w, &cp) : TOK_C_P)
    /* a run of CJK letters at once (cjk_run), then the character after it */
#define TAKE_CJK()                                                                                 \
    if (cjk_byte(cp) & TOK_CJK_LETTER) {                                                           \
        cjk_count cc = {seen, nchars, extra};                                                      \
        k = cjk_run(s, n, k, cjk_byte(cp), o200k, &cc);                                            \
        seen = cc.seen, nchars = cc.nchars, extra = cc.extra;                                      \
        b = k < n ? letter_dec(s, n, k, &w, &cp) : TOK_C_P;                                        \
        continue;                                                                                  \
    }
    if (o200k) {
        /* [UP]*: Lu Lt Lm Lo M, as runs of caseless letters and marks and
        ** runs of capitals, remembering where the last caseless run ended
        ** (where [LO]+ can start when backtracking). */
        size_t last_lo_end = 0;
        unsigned cnt_at_last_lo = 0, up_at_last_lo = 0, extra_at_last_lo = 0;
        for (;;) {
            size_t run = k;
            while (CLS_BIT(CLS(b)) & CASELESS) {
                TAKE_CJK();
                seen |= script_bit[SCRIPT(b)];
                extra += cjk_extra(cp, o200k);
                nchars++;
                NEXT_CHAR();
            }
            if (k != run) {
                last_lo_end = k;
                cnt_at_last_lo = nchars;
                up_at_last_lo = nup;
                extra_at_last_lo = extra;
            }
            if (CLS(b) != TOK_C_LU) break;
            do {
                seen |= script_bit[SCRIPT(b)];
                extra += cjk_extra(cp, o200k);
                nchars++;
                nup++;
                NEXT_CHAR();
            } while (CLS(b) == TOK_C_LU);
        }
        if (CLS(b) == TOK_C_LL) {
            /* [LO]+: Ll Lm Lo M */
            for (;;) {
                unsigned c = CLS(b);
                if (!(CLS_BIT(c) & LOWERISH)) break;
                TAKE_CJK();
                seen |= script_bit[SCRIPT(b)];
                extra += cjk_extra(cp, o200k);
                nchars++;
                nlow += c == TOK_C_LL;
                NEXT_CHAR();
            }
        } else if (last_lo_end) {
            /* Backtracking: [LO]+ takes the last caseless letter or mark
            ** (the scripts seen past it still count, as they always have). */
            k = last_lo_end;
            nchars = cnt_at_last_lo;
            nup = up_at_last_lo;
            extra = extra_at_last_lo;
        }
        /* else the second alternative: [UP]+ then [LO]* (nothing follows). */
        size_t cl = contraction(s, n, k);
        k += cl;
        nchars += (unsigned)cl;
    } else {
        /* the capitals (low half) and the lowercase (high half) counted by
        ** one addition a letter */
        uint64_t cases = 0;
        for (;;) {
            unsigned c = CLS(b);
            if (!(CLS_BIT(c) & LETTERS)) break;
            TAKE_CJK();
            seen |= script_bit[SCRIPT(b)];
            extra += cjk_extra(cp, o200k);
            nchars++;
            cases += case_count[c];
            NEXT_CHAR();
        }
        nup = (unsigned)cases;
        nlow = (unsigned)(cases >> 32);
    }
#undef NEXT_CHAR
#undef TAKE_CJK
    unsigned script = nchars ? SCRIPT(first) : TOK_S_OTHER, first_cls = nchars ? CLS(first) : 0;
    if (script == TOK_S_ASCII && (seen >> TOK_S_LATIN & 1)) script = TOK_S_LATIN;
    script = word_script(script, seen);
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

/* What scan_word_any finds, packed into two registers for its copies out of
** line (a word_info through an address kept the caller's in memory): the
** end, and the letters (low 32 bits), script (next 8) and case pattern. */
typedef struct word_ret {
    size_t end;
    uint64_t key;
} word_ret;

static inline word_ret word_pack(const word_info *wi)
{
    return (word_ret){wi->end, wi->nchars | (uint64_t)wi->script << 32 | (uint64_t)wi->casep << 40};
}

static inline void word_unpack(word_ret r, word_info *wi)
{
    wi->end = r.end;
    wi->nchars = (unsigned)r.key;
    wi->script = (unsigned)(r.key >> 32) & 0xFF;
    wi->casep = (unsigned)(r.key >> 40);
}

/* scan_word_any out of line, a copy per encoding: from a first letter the
** dispatch decoded (scan_piece's general path, after a space or other
** prefix: most words of other scripts; decoding it again cost about 20
** instructions), or decoding it. */
static word_ret scan_word_from_o200k(const unsigned char *s, size_t n, size_t j, unsigned b,
                                     size_t w, uint32_t cp)
{
    word_info wi;
    scan_word_any(s, n, j, b, w, cp, true, &wi);
    return word_pack(&wi);
}

static word_ret scan_word_from_cl100k(const unsigned char *s, size_t n, size_t j, unsigned b,
                                      size_t w, uint32_t cp)
{
    word_info wi;
    scan_word_any(s, n, j, b, w, cp, false, &wi);
    return word_pack(&wi);
}

static word_ret scan_word_any_o200k(const unsigned char *s, size_t n, size_t j)
{
    size_t w;
    uint32_t cp;
    unsigned b = char_dec(s, n, j, &w, &cp);
    word_info wi;
    scan_word_any(s, n, j, b, w, cp, true, &wi);
    return word_pack(&wi);
}

static word_ret scan_word_any_cl100k(const unsigned char *s, size_t n, size_t j)
{
    size_t w;
    uint32_t cp;
    unsigned b = char_dec(s, n, j, &w, &cp);
    word_info wi;
    scan_word_any(s, n, j, b, w, cp, false, &wi);
    return word_pack(&wi);
}

/* The word whose letters start at j: scan_word_ascii finds no letters at a
** byte that is not ASCII and gives way, so it is not tested first. */
static ALWAYS_INLINE void scan_word(const unsigned char *s, size_t n, size_t j, bool o200k,
                                    bool room, word_info *wi)
{
    if (scan_word_ascii(s, n, j, o200k, room, wi)) return;
    word_unpack(o200k ? scan_word_any_o200k(s, n, j) : scan_word_any_cl100k(s, n, j), wi);
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
    if (k < n && is_ascii_punct(s[k]))
        for (k++; k < n && is_ascii_punct(s[k]); k++) nrep += s[k] == s[k - 1];
    pi->script = TOK_S_ASCII;
    pi->count = (unsigned)(k - start);
    pi->repeats = nrep;
    if (k < n && s[k] >= 0x80) {
        /* through a copy: the caller's fields stay in registers */
        punct_info any = *pi;
        k = punct_run_any(s, n, k, k > start ? k - 1 : k, k > start, &any);
        *pi = any;
    }
    return k;
}

/* A number's end and characters, returned in registers: scan_number is out
** of line, and an address passed to it would keep the caller's piece length
** in memory for every piece. */
typedef struct number_run {
    size_t end;
    unsigned count;
} number_run;

/* \p{N}{1,3} whose first character ends at k. */
static number_run scan_number(const unsigned char *s, size_t n, size_t k)
{
    unsigned c = 1;
    while (c < 3 && k < n) {
        size_t w;
        if (is_ascii_digit(s[k])) w = 1;
        else if (s[k] < 0x80 || CLS(char_at(s, n, k, &w)) != TOK_C_N) break;
        k += w;
        c++;
    }
    return (number_run){k, c};
}

/* scan_number for an ASCII digit at i, when four bytes are readable: the
** digits among the first three from two table loads, no loop (a number's
** length is as likely one as three). A byte past them that is not ASCII
** may be a digit of another script: the loop decides (past three digits
** it agrees). */
static ALWAYS_INLINE size_t scan_number_ascii(const unsigned char *s, size_t n, size_t i,
                                              bool room, unsigned *count)
{
    if (room || n - i >= 4) {
        unsigned d1 = is_ascii_digit(s[i + 1]), c = 1 + d1 + (d1 & is_ascii_digit(s[i + 2]));
        if (__builtin_expect(s[i + c] < 0x80, 1)) {
            *count = c;
            return i + c;
        }
    }
    number_run r = scan_number(s, n, i + 1);
    *count = r.count;
    return r.end;
}

/* ` ?[^\s\p{L}\p{N}]+[\r\n/]*` (o200k; cl100k without the slash) at i,
** known to hold punctuation: its end, row and length. */
static ALWAYS_INLINE size_t punct_tail(const unsigned char *s, size_t n, size_t k, bool o200k,
                                       const punct_info *pi, bool lead, unsigned *row,
                                       unsigned *nchars);

static ALWAYS_INLINE size_t punct_piece(const unsigned char *s, size_t n, size_t i, bool o200k,
                                        unsigned *row, unsigned *nchars)
{
    bool lead = s[i] == ' ';
    punct_info pi;
    size_t k = punct_run(s, n, lead ? i + 1 : i, &pi);
    return punct_tail(s, n, k, o200k, &pi, lead, row, nchars);
}

/* punct_piece past its run (ending at k): the trailing breaks (and, for
** o200k, slashes), the row and the length. */
static ALWAYS_INLINE size_t punct_tail(const unsigned char *s, size_t n, size_t k, bool o200k,
                                       const punct_info *pi_, bool lead, unsigned *row,
                                       unsigned *nchars)
{
    punct_info pi = *pi_;
    unsigned cnt = pi.count;
    bool rep = cnt >= 3 && pi.repeats * 2 >= cnt, brk = false;
    unsigned trail = o200k ? ASCII_BREAK | ASCII_SLASH : ASCII_BREAK; /* [\r\n/]* */
    while (k < n && (ascii_class[s[k]] & trail)) {
        brk = brk || s[k] != '/';
        cnt++;
        k++;
    }
    *row = TOK_ROW_PUNCT + ((pi.script * 2 + lead) * 2 + brk) * 2 + rep;
    *nchars = cnt;
    return k;
}

/* A punctuation piece starting with a character that is not ASCII, which
** the dispatch decoded (table byte b, w bytes at i: an emoji, CJK or other
** punctuation): punct_piece without decoding it again, out of line, a copy
** per encoding, its results in registers. */
typedef struct punct_end {
    size_t end;
    unsigned row, nchars;
} punct_end;

static ALWAYS_INLINE punct_end punct_from(const unsigned char *s, size_t n, size_t i, unsigned b,
                                          size_t w, bool o200k)
{
    punct_info pi = {SCRIPT(b), 1, 0};
    size_t k = punct_run_any(s, n, i + w, i, w, &pi);
    punct_end r;
    r.end = punct_tail(s, n, k, o200k, &pi, false, &r.row, &r.nchars);
    return r;
}

static punct_end punct_from_o200k(const unsigned char *s, size_t n, size_t i, unsigned b, size_t w)
{
    return punct_from(s, n, i, b, w, true);
}

static punct_end punct_from_cl100k(const unsigned char *s, size_t n, size_t i, unsigned b, size_t w)
{
    return punct_from(s, n, i, b, w, false);
}

/* No token of o200k's or cl100k's holds more than 128 code points of one
** piece (the longest are runs of spaces: 10,000 spaces are 79 tokens; a run
** of one punctuation mark, 64 a token): the least a code point past
** TOK_MAXLEN adds, in 1/TOK_SCALE token. */
#define TOK_LEAST_SLOPE (TOK_SCALE / 128)

/* row_weight past TOK_MAXLEN code points: the last weight and a slope. Out
** of line, as a piece this long is rare. The fit left a slope of 0 on the
** rows it saw no longer piece of (punctuation, spaces), which held such a
** piece to its last weight whatever its length (10,000 spaces were 1 token,
** 100 KB of one symbol 24): no row adds less than TOK_LEAST_SLOPE. */
static __attribute__((noinline)) uint64_t row_weight_long(const tok_model *m, size_t row,
                                                          size_t nchars)
{
    uint64_t slope = m->slope[row] < TOK_LEAST_SLOPE ? TOK_LEAST_SLOPE : m->slope[row];
    return m->weight[row * TOK_MAXLEN + TOK_MAXLEN - 1] + (uint64_t)(nchars - TOK_MAXLEN) * slope;
}

/* The weight of a piece of 'nchars' code points in 'row'. */
static inline uint64_t row_weight(const tok_model *m, const uint16_t *weight, size_t row,
                                  size_t nchars)
{
    if (__builtin_expect(nchars <= TOK_MAXLEN, 1)) return weight[row * TOK_MAXLEN + nchars - 1];
    return row_weight_long(m, row, nchars);
}

/* The key a piece of 'nchars' code points in 'row' is fitted under (the
** calibration tool's): its row's last past TOK_MAXLEN. */
static inline uint32_t piece_key(unsigned row, unsigned nchars)
{
    return row * TOK_MAXLEN + (nchars <= TOK_MAXLEN ? nchars - 1 : TOK_MAXLEN - 1);
}

/* What a piece may read past its start without a test (scan_piece). */
#define ROOM 20

/* What the scan carries from piece to piece. */
typedef struct scan_state {
    const unsigned char *s;
    size_t n;
    const tok_model *m;
    const uint16_t *weight, *common; /* m's, read once */
    tok_visit visit;
    void *ud;
    uint64_t total;
    bool prev_alnum; /* the last piece ended in a letter or digit */
} scan_state;

/* No memo of the table's answers: a per-call memo of 256 (hash, weight)
** slots on the stack saved instructions (o200k 29.14 a byte with it, 29.88
** without), but its test hits about half the time, so it is mispredicted
** about half the time, and it held registers: without it the scan runs a
** sixth faster (CPU time, alternating runs: o200k 311 -> 370 MB/s, cl100k
** 317 -> 398), and texts of every length take one copy of the scan. */

/* The end of a piece scanned from i to 'end': adds its weight (after the
** frequent-piece table when it is 'hashable'), tells the visitor, notes
** whether it ends in a letter or digit, returns its end. Inlined once per
** kind of piece, so the kind's constants decide at compile time; 'capped':
** the row is one of TOK_ROW_CAPPED's (tokens.h) and the piece not hashable,
** so the clamp is skipped (3 instructions a piece). */
static ALWAYS_INLINE size_t finish_piece(scan_state *st, size_t i, size_t end, unsigned kind,
                                         unsigned row, unsigned nchars, bool hashable,
                                         bool alnum_end, bool room, bool capped)
{
    const unsigned char *s = st->s;
    const tok_model *m = st->m;
    size_t len = end - i;
    uint64_t weight = row_weight(m, st->weight, row, nchars);
    unsigned common = 0;
    uint32_t hash = 0;
    bool hashed = hashable && len <= TOK_HASH_MAX;
    /* A piece of one byte is at most one token and a frequent piece at
    ** least one: when the weight is one already, the table changes
    ** nothing (the calibration tool still hears the hash). Most pieces
    ** looked up are of two bytes or more: one compare. */
    if (hashable && (len - 2 <= TOK_HASH_MAX - 2 || (len == 1 && (st->visit || weight < TOK_SCALE)))) {
        hash = tok_hash(s + i, len, st->n - i, room);
        common = common_lookup(st->common, hash);
        uint64_t hit = (uint64_t)common * TOK_SCALE; /* the table's weight, 0 for none */
        /* a conditional move, not a branch: a hit is as likely as not */
        if (__builtin_expect_with_probability(hit != 0, 1, 0.5)) weight = hit;
    }
    /* Byte-level BPE never makes more tokens than bytes. */
    if (!capped && weight > (uint64_t)len * TOK_SCALE) weight = (uint64_t)len * TOK_SCALE;
    st->total += weight;
    if (st->visit) {
        tok_piece p = {i, end, kind, row, nchars,
                       piece_key(row, nchars), hash, hashed, common, weight};
        st->visit(st->ud, &p);
    }
    st->prev_alnum = alnum_end;
    return end;
}

/* Tells the visitor of a piece whose weight tok_long_punct_weight knew (no
** table). Out of line, and given no scan_state: a scan_state whose address
** escapes to a call stays in memory, every piece's sum with it (4 more
** instructions a byte). */
static __attribute__((noinline)) void visit_exact(tok_visit visit, void *ud, size_t i, size_t end, unsigned row,
                                                  unsigned nchars, uint64_t weight)
{
    tok_piece p = {i, end, TOK_K_PUNCT, row, nchars, piece_key(row, nchars), 0, 0, 0, weight};
    visit(ud, &p);
}

/* The piece at i: adds its weight, returns its end. 'room': ROOM bytes from
** i are readable, so no load of eight at or after i, nor of sixteen where a
** word's letters start (at most one character, four bytes, after i), needs a
** test. */
static ALWAYS_INLINE size_t scan_piece(scan_state *st, size_t i, bool o200k, bool room)
{
    const unsigned char *s = st->s;
    const size_t n = st->n;
    unsigned c0 = s[i], a0 = ascii_class[c0];
    size_t word = i; /* where a word's letters start */
    unsigned row, nchars, pre = st->prev_alnum ? TOK_PRE_GLUED : TOK_PRE_NONE;
    /* Most pieces are decided from ASCII bytes alone: a word, a number,
    ** what a space starts, punctuation, a line feed. Everything else (and
    ** these too, the same way) below. Each kind of piece is scanned and
    ** finished once, at its label. */
    if (a0 & ASCII_LETTER) {
        goto word;
    } else if (a0 & ASCII_DIGIT) {
        size_t end = scan_number_ascii(s, n, i, room, &nchars);
        return finish_piece(st, i, end, TOK_K_NUM, TOK_ROW_NUM + TOK_S_ASCII, nchars, false, true,
                            room, true);
    } else if (c0 == ' ') {
        unsigned c1 = room || i + 1 < n ? s[i + 1] : '\n'; /* the end: as a break */
        if (is_ascii_letter(c1)) {
            word = i + 1;
            pre = TOK_PRE_SPACE;
            goto word;
        } else if (is_ascii_punct(c1)) {
            goto punct; /* ` ?[^\s\p{L}\p{N}]+` takes the space */
        } else if (c1 < 0x80) {
            goto space; /* before a digit, a space or a break */
        }
    } else if ((a0 & ASCII_PUNCT) && (o200k || c0 != '\'') && (room || i + 1 < n) &&
               s[i + 1] < 0x80) {
        /* punctuation (for cl100k not an apostrophe, which may start a
        ** contraction): a word's prefix, or a run of its own */
        if (!is_ascii_letter(s[i + 1])) goto punct;
        word = i + 1;
        pre = TOK_PRE_OTHER;
        goto word;
    } else if (c0 == '\n') {
        goto space;
    }
    size_t w;
    unsigned b = char_at(s, n, i, &w), c = CLS(b);
    /* One alternative of the regex per branch, in its order. */
    if (is_letter(c, o200k)) {
        goto word;
    } else if (c == TOK_C_N) {
        number_run r = scan_number(s, n, i + w);
        return finish_piece(st, i, r.end, TOK_K_NUM, TOK_ROW_NUM + SCRIPT(b), r.count, false, true,
                            room, false);
    } else if (c == TOK_C_NL) {
        goto space;
    } else {
        /* P, WS, or (cl100k) a mark: a contraction, a prefixed word, a
        ** punctuation run or whitespace. */
        size_t cl = o200k ? 0 : contraction(s, n, i), w2 = 0;
        uint32_t cp2 = 0;
        unsigned nb = i + w < n ? char_dec(s, n, i + w, &w2, &cp2) : TOK_C_NL;
        if (cl) {
            return finish_piece(st, i, i + cl, TOK_K_CONTR, TOK_ROW_CONTR, (unsigned)cl, true, false,
                                room, false);
        } else if (i + w < n && is_letter(CLS(nb), o200k)) {
            word = i + w;
            pre = s[i] == ' ' ? TOK_PRE_SPACE : TOK_PRE_OTHER;
            if (s[word] < 0x80) goto word;
            /* the letter after the prefix, decoded once: here */
            word_info wi;
            word_unpack(o200k ? scan_word_from_o200k(s, n, word, nb, w2, cp2)
                              : scan_word_from_cl100k(s, n, word, nb, w2, cp2),
                        &wi);
            row = TOK_ROW_WORD + (wi.script * TOK_NCASE + wi.casep) * TOK_NPRE + pre;
            return finish_piece(st, i, wi.end, TOK_K_WORD, row, wi.nchars, true, true, room, false);
        } else if (is_punct(c) && s[i] >= 0x80) {
            punct_end r = o200k ? punct_from_o200k(s, n, i, b, w) : punct_from_cl100k(s, n, i, b, w);
            return finish_piece(st, i, r.end, TOK_K_PUNCT, r.row, r.nchars, true, false, room, false);
        } else if (is_punct(c) || (s[i] == ' ' && i + 1 < n && is_punct(CLS(nb)))) {
            goto punct;
        } else {
            goto space;
        }
    }
word: {
        word_info wi;
        scan_word(s, n, word, o200k, room, &wi);
        row = TOK_ROW_WORD + (wi.script * TOK_NCASE + wi.casep) * TOK_NPRE + pre;
        return finish_piece(st, i, wi.end, TOK_K_WORD, row, wi.nchars, true, true, room, false);
    }
punct: {
        size_t end = punct_piece(s, n, i, o200k, &row, &nchars);
        if (__builtin_expect(nchars >= TOK_RUN_MIN, 0)) {
            uint64_t exact = tok_long_punct_weight(s, i, end, o200k, st->weight, row, nchars);
            if (exact) {
                st->total += exact;
                if (st->visit) visit_exact(st->visit, st->ud, i, end, row, nchars, exact);
                st->prev_alnum = false;
                return end;
            }
        }
        return finish_piece(st, i, end, TOK_K_PUNCT, row, nchars, true, false, room, false);
    }
space: {
        unsigned kind;
        size_t end = scan_space(s, n, i, o200k, room, &kind, &row, &nchars);
        return finish_piece(st, i, end, kind, row, nchars, false, false, room, true);
    }
}

/* The scanner; inlined into coax_tok_scan (with a visitor, for the
** calibration tool) and into the per-encoding counters below, where the
** split is a constant and there is no visitor, so neither is tested per
** piece. Pieces starting ROOM bytes or more before the end take the copy of
** scan_piece without the tests for room. */
static ALWAYS_INLINE uint64_t scan(int split, const tok_model *m, const char *str, size_t n,
                                   tok_visit visit, void *ud)
{
    const bool o200k = split == TOK_SPLIT_O200K;
    scan_state st = {(const unsigned char *)str, n, m, m->weight, m->common, visit, ud, 0, false};
    size_t i = 0, room_end = n > ROOM ? n - ROOM : 0;
    while (i < room_end) i = scan_piece(&st, i, o200k, true);
    while (i < n) i = scan_piece(&st, i, o200k, false);
    return st.total;
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
