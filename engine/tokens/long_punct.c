/*
** tokens/long_punct.c: the weight of a long punctuation piece, where the
** fitted rows are not to be trusted (tokens.h, TOK_RUN_MAX and
** TOK_MIXED_FIT): runs of one mark from runs.c, other ASCII punctuation
** at a measured rate a mark. Out of the scan's file: such pieces are rare,
** and the scan's common path pays one test for them.
*/
#include "tokens/tokens.h"
#include "tokens/chars.h"
#include "base/bytes.h"

#include <string.h>

/* The place of ASCII punctuation mark c among the 32 in byte order (runs.c),
** -1 for another byte (a control character is punctuation to the split). */
static inline int mark_index(unsigned c)
{
    return c >= 0x21 && c <= 0x2F   ? (int)c - 0x21
           : c >= 0x3A && c <= 0x40 ? (int)c - 0x3A + 15
           : c >= 0x5B && c <= 0x60 ? (int)c - 0x5B + 22
           : c >= 0x7B && c <= 0x7E ? (int)c - 0x7B + 28
                                    : -1;
}

/* The exact weight of a run of 'count' marks c after a space or not
** (runs.c): a longer run than the table's is its first r marks and runs of
** TOK_RUN_MAX. */
static uint64_t run_weight(const uint8_t *runs, unsigned c, size_t count, bool lead)
{
    int m = mark_index(c);
    if (m < 0) return 0;
    size_t q = (count - 1) / TOK_RUN_MAX, r = count - q * TOK_RUN_MAX;
    const uint8_t *alone = runs + (size_t)m * TOK_RUN_MAX, *first = lead ? alone + 32 * TOK_RUN_MAX : alone;
    return ((uint64_t)first[r - 1] + (uint64_t)q * alone[TOK_RUN_MAX - 1]) * TOK_SCALE;
}

/* The weight of a piece of ASCII punctuation longer than TOK_MIXED_FIT
** (tokens.h): the row's weight there and TOK_MIXED_SLOPE a mark more. */
static uint64_t mixed_weight(const uint16_t *weight, unsigned row, size_t nchars)
{
    return weight[row * TOK_MAXLEN + TOK_MIXED_FIT - 1] + (uint64_t)(nchars - TOK_MIXED_FIT) * TOK_MIXED_SLOPE;
}

/* The weight of n line breaks after punctuation: a token for each 8 (one
** token holds 8 line feeds and more in both encodings). */
static uint64_t break_weight(size_t n) { return (uint64_t)((n + 7) / 8) * TOK_SCALE; }

/* A control character, which the split takes as punctuation (\t, \v, \f
** are spaces, and \r, \n the breaks after a piece). */
static inline bool is_control(unsigned c) { return (c < 0x20 && c != '\n' && c != '\r') || c == 0x7F; }

/* The weight of s[a..b), ASCII marks and no control character, as the
** piece a control character ends: the sum of its runs when it is one run
** or runs of 2 marks or more on average, else the row's weight (the row of
** ASCII punctuation, after a space or not). The line breaks inside o200k's
** tail of breaks and slashes ("\n/") are no mark: such a stretch takes
** the row's weight ("\x01\x01\x01\x01/\n/": 5, exact; with "\n/" 5 for 6). */
static uint64_t marks_weight(const uint8_t *runs, const uint16_t *weight, const unsigned char *s, size_t a,
                             size_t b, bool lead)
{
    uint64_t sum = 0;
    size_t nruns = 0, len = b - a;
    for (size_t k = a, e; k < b && sum != UINT64_MAX; k = e, nruns++) {
        for (e = k + 1; e < b && s[e] == s[k];) e++;
        uint64_t w = run_weight(runs, s[k], e - k, lead && k == a);
        sum = w ? sum + w : UINT64_MAX;
    }
    if (sum != UINT64_MAX && nruns * 2 <= len + (nruns == 1)) return sum;
    unsigned row = TOK_ROW_PUNCT + (TOK_S_ASCII * 2 + lead) * 4; /* no break, no repeats */
    return len > TOK_MIXED_FIT ? mixed_weight(weight, row, len) : weight[row * TOK_MAXLEN + len - 1];
}

/* Whether a byte of w may be a control character: one below a space but a
** line feed (a borrow starts only below a space, and may flag a byte
** above it: a maybe), 0x7F (which the 1 added makes 0x80), or one past
** ASCII. A line feed, after most long pieces, is found exactly (a lane's
** sum stays in its lane). */
static inline bool word_controls(uint64_t w)
{
    const uint64_t low7 = WORD_ONES * 0x7F, lf = w ^ WORD_ONES * '\n';
    uint64_t is_lf = ~(((lf & low7) + low7) | lf);
    return ((w - WORD_ONES * 0x20) | w | (w + WORD_ONES)) & ~is_lf & WORD_HIGHS;
}

/* Whether s[j..end) may hold a control character: no for most pieces, in
** a word or two (two loads that overlap for 4 to 8 bytes, the last word
** overlapping the one before past 8). */
static inline bool maybe_controls(const unsigned char *s, size_t j, size_t end)
{
    size_t n = end - j;
    if (n < 4) {
        for (size_t k = j; k < end; k++)
            if (is_control(s[k]) || s[k] >= 0x80) return true;
        return false;
    }
    if (n <= 8) return word_controls(load_le4(s + j) | (uint64_t)load_le4(s + end - 4) << 32);
    for (size_t k = j; k + 8 < end; k += 8)
        if (word_controls(load_le8(s + k))) return true;
    return word_controls(load_le8(s + end - 8));
}

/* The weight of the piece s[j..end) (after a space when 'lead'; its marks,
** then line breaks) when its marks hold a control character, or 0 when
** they hold none or a byte past ASCII. No token of either encoding joins a
** control character to another byte, but for NULs in o200k (two a token):
** each is a token, and the marks between them are pieces of their own
** ("\x01}}}}" is 1 and 2; exact in both encodings for runs of controls, of
** controls and runs of one mark, and a space before a control, a token
** alone). */
static uint64_t controls_weight(const uint8_t *runs, const uint16_t *weight, const unsigned char *s, size_t j,
                                size_t end, bool lead, bool o200k)
{
    if (!maybe_controls(s, j, end)) return 0;
    size_t marks = end;
    while (marks > j && (s[marks - 1] == '\n' || s[marks - 1] == '\r')) marks--;
    bool any = false;
    for (size_t k = j; k < marks; k++) {
        if (s[k] >= 0x80) return 0;
        any = any || is_control(s[k]);
    }
    if (!any) return 0;
    uint64_t w = break_weight(end - marks);
    if (lead && is_control(s[j])) w += TOK_SCALE; /* the space, alone */
    for (size_t k = j, e; k < marks; k = e) {
        e = k + 1;
        if (!is_control(s[k])) {
            while (e < marks && !is_control(s[e])) e++;
            w += marks_weight(runs, weight, s, k, e, lead && k == j);
        } else if (o200k && !s[k]) {
            while (e < marks && !s[e]) e++;
            w += (uint64_t)((e - k + 1) / 2) * TOK_SCALE;
        } else {
            w += TOK_SCALE;
        }
    }
    return w;
}

uint64_t tok_long_punct_weight(const unsigned char *s, size_t i, size_t end, bool o200k, const uint16_t *weight,
                               unsigned row, unsigned nchars)
{
    const uint8_t *runs = o200k ? coax_tok_runs_o200k : coax_tok_runs_cl100k;
    bool lead = s[i] == ' ', fitted = nchars <= TOK_MIXED_FIT; /* fitted: its row holds it but for one run */
    size_t j = i + lead, marks = end; /* the marks, then the line breaks after them */
    uint64_t controls = controls_weight(runs, weight, s, j, end, lead, o200k);
    if (controls) return controls;
    if (fitted && s[j + 1] != s[j]) return 0; /* "},{" and the like: most punctuation pieces, at once */
    while (marks > j && (s[marks - 1] == '\n' || s[marks - 1] == '\r')) marks--;
    size_t breaks = end - marks;
    /* Runs of one mark each ("----", "[[[[]]]]", "}}}]]]"): the sum of their
    ** tokens, past TOK_MIXED_FIT marks when they average 2 marks or more
    ** (a few merge across a boundary: 1,022 brackets are 512 for 511), a
    ** single run of TOK_RUN_MIN or more at any length; the line breaks
    ** after them a token for each 8, exact for 73% of single runs of 4 to
    ** 200 marks with 1 to 3 breaks, one over for most others. */
    uint64_t sum = 0;
    size_t nruns = 0, k = j;
    while (k < marks && sum != UINT64_MAX && !(fitted && nruns)) {
        size_t e = k + 1;
        while (e < marks && s[e] == s[k]) e++;
        uint64_t w = run_weight(runs, s[k], e - k, lead && k == j);
        sum = w ? sum + w : UINT64_MAX; /* not a mark of the table: no sum */
        nruns++;
        k = e;
    }
    size_t nmarks = marks - j;
    if (nmarks && sum != UINT64_MAX && (fitted ? nmarks >= TOK_RUN_MIN && k == marks : nruns * 2 <= nmarks))
        return sum + break_weight(breaks);
    /* other ASCII punctuation past TOK_MIXED_FIT marks: the rate a mark, and
    ** the breaks after it as above ("}" and 40 line feeds: 4 exact) */
    bool ascii = (row - TOK_ROW_PUNCT) / 8 == TOK_S_ASCII; /* the rows of a script: lead, break, repeats */
    if (!ascii || nchars <= TOK_MIXED_FIT) return 0;
    if (nmarks > TOK_MIXED_FIT) return mixed_weight(weight, row, nmarks) + break_weight(breaks);
    /* a few marks and many breaks: the row's weight for them and one break, a token for each 8 more */
    return breaks > 1 ? weight[row * TOK_MAXLEN + nmarks] + break_weight(breaks - 1) : 0;
}
