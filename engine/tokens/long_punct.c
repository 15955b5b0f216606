/*
** tokens/long_punct.c: the weight of a long punctuation piece, where the
** fitted rows are not to be trusted (tokens.h, TOK_RUN_MAX and
** TOK_MIXED_FIT): runs of one mark from runs.c, other ASCII punctuation
** at a measured rate a mark. Out of the scan's file: such pieces are rare,
** and the scan's common path pays one test for them.
*/
#include "tokens/tokens.h"

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

uint64_t tok_long_punct_weight(const unsigned char *s, size_t i, size_t end, bool o200k, const uint16_t *weight,
                               unsigned row, unsigned nchars)
{
    const uint8_t *runs = o200k ? coax_tok_runs_o200k : coax_tok_runs_cl100k;
    bool lead = s[i] == ' ', fitted = nchars <= TOK_MIXED_FIT; /* fitted: its row holds it but for one run */
    size_t j = i + lead, marks = end; /* the marks, then the line breaks after them */
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
