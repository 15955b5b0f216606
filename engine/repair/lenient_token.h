/*
** lenient_token.h: the plain tokens the lenient parser reads inline (for
** lenient_fast.c's loop, and as the first try of lenient.c and
** lenient_word.c): numbers as JSON writes them, strings in double or
** single quotes whose body needs no decoding, identifiers before their
** colon as keys, and literals. Each reads what the general way would read
** there, or nothing (false, NULL) for the general way to read. They read
** a byte, a word or a block past a token without a test for the text's
** end: the NUL and zero bytes after it (lenient.h) stop them there.
*/
#ifndef COAX_REPAIR_LENIENT_TOKEN_H
#define COAX_REPAIR_LENIENT_TOKEN_H

#include "repair/lenient.h"

/* The end of the run of ASCII digits at q (up to e). A byte at a time
** cost four instructions a digit; eight bytes are read as one word and the first byte that is no digit found from its bits
** (one step for most numbers). Forced inline, as lp_literal: with the fast
** loop's object and array paths each reading numbers, GCC called both. */
static inline __attribute__((always_inline)) const char *lp_digits_end(const char *q, const char *e)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (;;) { /* a word at e or before it: its zero bytes end the run */
        uint64_t w;
        memcpy(&w, q, 8);
        uint64_t x = w ^ 0x3030303030303030ull; /* a digit's byte becomes 0..9 */
        /* Bit 7 of a byte ends up set unless it was 0..9: 10..0x7F reach it
        ** by adding 0x76, 0x80 and above have it. Only a byte that has it
        ** already can carry into the next one, so the lowest byte marked is
        ** the first one that is no digit. */
        uint64_t other = ((x + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
        if (other) return q + (__builtin_ctzll(other) >> 3);
        q += 8;
    }
#else
    while (q < e && is_digit(*q)) q++;
    return q;
#endif
}

/* A number as JSON writes it, -?int(.frac)? before a comma, a space or a
** closing bracket, at s: read into 'out', as lp_try_number's reading
** makes of it, and its end returned; NULL (nothing read) for anything
** else. */
static inline __attribute__((always_inline)) const char *lp_json_number_at(lp *ps, const char *s, const char *e,
                                                                              int ctx, coax_value *out)
{
    const char *d = s + (*s == '-'), *q = lp_digits_end(d, e);
    size_t nd = (size_t)(q - d);
    if (!nd || (nd > 1 && *d == '0')) return NULL;
    bool frac = false;
    if (*q == '.') {
        const char *f = ++q;
        q = lp_digits_end(q, e);
        if (q == f) return NULL;
        frac = true;
    }
    if (*q == ',') {
        /* a digit after a comma may be a thousands group: lp_try_number's reading */
        if (!frac && ctx == CTX_OBJVAL && is_digit(q[1])) return NULL;
    } else if (*q != '}' && *q != ']' && !ws_tab[(unsigned char)*q] && q < e) {
        return NULL;
    }
    out->type = COAX_NUMBER;
    out->flags = frac ? 0 : COAX_VF_INT_TEXT;
    out->len = (uint32_t)(q - s);
    out->u.text = lp_text(ps, s, (size_t)(q - s));
    return q;
}

/* lp_json_number_at at ps->p, moved past it (true) when there is one. */
static inline __attribute__((always_inline)) bool lp_json_number(lp *ps, const char *e, int ctx, coax_value *out)
{
    const char *q = lp_json_number_at(ps, ps->p, e, ctx, out);
    if (!q) return false;
    ps->p = q;
    return true;
}

/* The end of the run of identifier bytes (is_ident) at p, in the parser's
** padded copy (its NUL ends every run). Sixteen bytes a step where SSE2
** is: a key's length is anybody's guess, and the byte loop's exit was
** mispredicted at every unquoted key (18,000 times a pass over the bench's
** broken replies). */
static inline const char *lp_ident_end(const char *p)
{
#if BYTES16
    for (;; p += 16) {
        __m128i w = bytes16_load(p);
        /* letters: (w | 0x20) - 'a' below 26; digits: w - '0' below 10 */
        __m128i letter = _mm_sub_epi8(_mm_or_si128(w, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
        __m128i digit = _mm_sub_epi8(w, _mm_set1_epi8('0'));
        __m128i ident = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(letter, _mm_set1_epi8(25)), letter),
                         _mm_cmpeq_epi8(_mm_min_epu8(digit, _mm_set1_epi8(9)), digit)),
            _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('_')), _mm_cmpeq_epi8(w, _mm_set1_epi8('$'))));
        unsigned other = ~(unsigned)_mm_movemask_epi8(ident) & 0xFFFFu;
        if (other) return p + __builtin_ctz(other);
    }
#else
    while (is_ident((unsigned char)*p)) p++;
    return p;
#endif
}

/* An identifier and its colon where a key goes, at ps->p: the unquoted
** key (logged), as lp_parse_word reads it first (true); false, nothing
** read, for anything else. */
static inline bool lp_ident_key(lp *ps, const char *e, size_t max_string, coax_value *out)
{
    const char *s = ps->p, *p = lp_ident_end(s);
    size_t n = (size_t)(p - s);
    if (!n || n > max_string || *p != ':') return false;
    note_inline(ps, RK_UNQUOTED_KEY, s); /* its usual class: inferred */
    *out = (coax_value){.type = COAX_STRING, .len = (uint32_t)n, .u.text = lp_text(ps, s, n)}; /* as lp_plain_string's */
    ps->p = p;
    return true;
}

/* true, false, null or their Python spellings as a value at s, before a
** comma, a space, a closing bracket or the end: read into 'out' (a Python
** one logged) as lp_parse_word reads them, and its end returned; NULL,
** nothing read, for anything else. */
static inline __attribute__((always_inline)) const char *lp_literal(lp *ps, const char *s, const char *e,
                                                                       coax_value *out)
{
    /* The word compared first, then the byte after it: no identifier byte
    ** (so the word is the whole run of them) and a delimiter. */
    bool t = !memcmp(s, "true", 4) || !memcmp(s, "True", 4), f = false;
    size_t n = 4;
    if (!t && memcmp(s, "null", 4) && memcmp(s, "None", 4)) {
        if (memcmp(s, "false", 5) && memcmp(s, "False", 5)) return NULL;
        f = true;
        n = 5;
    }
    const char *p = s + n;
    if (p < e && (is_ident((unsigned char)*p) || (!ws_tab[(unsigned char)*p] && *p != ',' && *p != '}' && *p != ']')))
        return NULL;
    if (*s == 'T' || *s == 'F' || *s == 'N') note_inline(ps, RK_PYTHON_LITERAL, s);
    memset(out, 0, sizeof *out);
    out->type = t || f ? COAX_BOOL : COAX_NULL;
    out->u.boolean = t;
    return p;
}

#if BYTES16
/* A string in double or single quotes at p whose body is plain bytes, other quote
** characters and the two- and three-byte UTF-8 sequences lp_utf8_len reads
** inline, up to a closing quote that ends it: what lp_parse_string's quick
** way reads, without a look at each multi-byte character (the sequences
** are checked sixteen bytes at a time from bit masks). Returns the byte
** after the closing quote and fills 'out'; NULL (nothing read) for
** anything else, lp_parse_string's to read. A key read after an invented
** repair is left to it too (its flag depends on the body). '*next': the
** byte after the closing quote (0 at e), read before the string's NUL and
** its log entry are written, which GCC must take for writes over it: the
** fast loop's look for a key's colon or a value's comma costs no load. */
static inline __attribute__((always_inline)) const char *lp_plain_string_next(lp *ps, const char *p, const char *e,
                                                                                 size_t max_string, int ctx,
                                                                                 coax_value *out, char *next)
{
    const char *body = p + 1, *q = body;
    char open = *p;
    if (ctx == CTX_KEY && ps->inv) return NULL;
    {
        /* Most strings are short and ASCII: a stop in the first block with
        ** no byte from 0x80 before it is lp_plain_body's answer at its
        ** first step, without a call. Near e the block ends in the text's
        ** NUL, a stop. */
        __m128i w = bytes16_load(body);
        __m128i quote = __builtin_expect(open == '"', 1) ? _mm_set1_epi8('"') : _mm_set1_epi8('\'');
        __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(w, _mm_set1_epi8(0x1F)), w); /* bytes below 0x20 */
        unsigned stop = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, quote), _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))), ctl));
        unsigned high = (unsigned)_mm_movemask_epi8(w);
        if (__builtin_expect(stop != 0, 1)) {
            /* a text of valid UTF-8 (most) has only sequences taken before it */
            if (__builtin_expect(ps->utf8 || !(high & ((stop & (0u - stop)) - 1)), 1)) {
                q = body + __builtin_ctz(stop);
                goto found;
            }
        } else if (!high || ps->utf8) {
            q = body + 16; /* sixteen plain bytes: lp_plain_body's first step, done */
        }
    }
    /* Out of line: the sixteen-byte loop's set-up and the UTF-8 masks made
    ** GCC spill registers of the fast loop around every string that took it. */
    if (!(q = ps->utf8 ? lp_text_body(q, open) : lp_plain_body(q, e, ps->b, open))) return NULL;
found:
    if (*q != open || !lp_ends_string(ps, q + 1, e, ctx)) return NULL;
    *next = q[1]; /* 0 at e */
    size_t n = (size_t)(q - body);
    if (n > max_string) return NULL;
    if (open == '\'') note_inline(ps, RK_SINGLE_QUOTES, p); /* lp_parse_string logs it first: nothing else is logged */
    /* one assignment, not a memset and three fields: GCC then keeps a key
    ** in registers instead of writing it to the stack and reading it back */
    *out = (coax_value){.type = COAX_STRING, .len = (uint32_t)n, .u.text = lp_text(ps, body, n)};
    return q + 1;
}
#else
static inline const char *lp_plain_string_next(lp *ps, const char *p, const char *e, size_t max_string, int ctx,
                                               coax_value *out, char *next)
{
    return NULL;
}
#endif

/* lp_plain_string_next without the byte after it. */
static inline __attribute__((always_inline)) const char *lp_plain_string(lp *ps, const char *p, const char *e,
                                                                            size_t max_string, int ctx,
                                                                            coax_value *out)
{
    char next;
    return lp_plain_string_next(ps, p, e, max_string, ctx, out, &next);
}

/* Whether the brackets in s..t close in order: "fetch(page: number" was
** cut inside its parentheses (the comma after it is the text's, not a
** member's), and "object): Promise" lost its start. */
static inline bool brackets_balance(const char *s, const char *t)
{
    char open[16];
    size_t n = 0;
    for (const char *c = s; c < t; c++) {
        char want = *c == ')' ? '(' : *c == ']' ? '[' : *c == '}' ? '{' : 0;
        if (*c == '(' || *c == '[' || *c == '{') {
            if (n == sizeof open) return false;
            open[n++] = *c;
        } else if (want && (n == 0 || open[--n] != want)) {
            return false;
        }
    }
    return n == 0;
}

/* Whether s..t is wrapped whole in parentheses: (100) is an expression's
** 100 or accounting's -100, (none) and (see below) a note where the value
** should be; its text with the parentheses is none of them. (1) first is
** a label before text. */
static inline bool parenthesized(const char *s, const char *t)
{
    if (t - s < 3 || *s != '(' || t[-1] != ')') return false;
    int depth = 0;
    for (const char *c = s; c < t - 1; c++)
        if ((depth += (*c == '(') - (*c == ')')) == 0) return false;
    return true;
}

#endif
