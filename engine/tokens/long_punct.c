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

uint64_t tok_long_punct_weight(const unsigned char *s, size_t i, size_t end, bool o200k, const uint16_t *weight,
                               unsigned row, unsigned nchars)
{
    bool lead = s[i] == ' ';
    size_t j = i + lead, k = j + 1;
    while (k < end && s[k] == s[j]) k++;
    /* a run and the line breaks after it ("=====\n\n" under a title): the
    ** run's tokens and a token for each 8 breaks, exact for 73% of runs of 4
    ** to 200 marks with 1 to 3 breaks, one over for most others */
    size_t breaks = k;
    while (breaks < end && (s[breaks] == '\n' || s[breaks] == '\r')) breaks++;
    if (k - j >= TOK_RUN_MIN && breaks == end) {
        uint64_t w = run_weight(o200k ? coax_tok_runs_o200k : coax_tok_runs_cl100k, s[j], k - j, lead);
        if (w) return w + (uint64_t)((end - k + 7) / 8) * TOK_SCALE;
    }
    bool ascii = (row - TOK_ROW_PUNCT) / 8 == TOK_S_ASCII; /* the rows of a script: lead, break, repeats */
    return nchars > TOK_MIXED_FIT && ascii ? mixed_weight(weight, row, nchars) : 0;
}

