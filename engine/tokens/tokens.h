/*
** tokens.h: internals of the token estimator (tokens.c), shared with the
** generated tables (tokens/unicode.c, tokens/weights.c) and with the
** calibration tool in bench/tokens/. Hosts use coax.h only.
**
** The estimator splits text into the pieces the o200k or cl100k
** pre-tokenizer makes (the regular expressions of tiktoken, as gpt-tokenizer
** writes them), gives each piece a key (kind, script, case pattern, what
** precedes it, length), and adds the piece's expected token count: the exact
** count when the piece is one of the frequent pieces of the calibration
** corpus (a fingerprint table), else a fitted weight for its key.
*/
#ifndef COAX_TOKENS_H
#define COAX_TOKENS_H

#include "base/core.h"

/* Character classes (low 3 bits of the Unicode table). */
enum {
    TOK_C_P = 0, /* anything else: punctuation, symbols, emoji, controls */
    TOK_C_WS,    /* JavaScript \s except CR and LF */
    TOK_C_NL,    /* CR, LF */
    TOK_C_N,     /* \p{N} */
    TOK_C_LU,    /* \p{Lu}, \p{Lt} */
    TOK_C_LL,    /* \p{Ll} */
    TOK_C_LO,    /* \p{Lm}, \p{Lo}: caseless letters */
    TOK_C_MK     /* \p{M}: marks (letters for o200k, not for cl100k) */
};

/* Script groups (high 5 bits); bench/tokens/gen_unicode.mjs lists them. */
enum {
    TOK_S_ASCII = 0, TOK_S_LATIN, TOK_S_GREEK, TOK_S_CYRILLIC,
    TOK_S_ARMENIAN_GEORGIAN, TOK_S_HEBREW, TOK_S_ARABIC, TOK_S_DEVANAGARI,
    TOK_S_INDIC, TOK_S_SEASIAN, TOK_S_HAN, TOK_S_HIRAGANA, TOK_S_KATAKANA,
    TOK_S_HANGUL, TOK_S_ETHIOPIC, TOK_S_EMOJI, TOK_S_CJK_PUNCT,
    TOK_S_GEN_PUNCT, TOK_S_SYMBOL, TOK_S_COMBINING, TOK_S_OTHER,
    TOK_NSCRIPT
};

extern const uint8_t coax_tok_stage1[512];
extern const uint8_t coax_tok_stage2[];
/* Below this code point coax_tok_stage2[cp] is cp's byte (the generator
** checks that the first blocks are in order). */
#define TOK_STAGE2_DIRECT 0x800
/* The count is a constant so the search (chars.h) unrolls; unicode.c
** includes this header, so a table of another length fails to compile
** until it is changed here. */
#define TOK_NRUNS 1140
extern const uint32_t coax_tok_runs[TOK_NRUNS];
/* The bytes of the emoji blocks, U+1F000-U+1FAFF, also a byte each (index
** cp - TOK_EMOJI_FIRST), not searched for in the runs. */
#define TOK_EMOJI_FIRST 0x1F000
#define TOK_EMOJI_CHARS 0xB00
extern const uint8_t coax_tok_emoji[TOK_EMOJI_CHARS];
/* A byte per code point of U+3000-U+D7AF (index cp - TOK_CJK_FIRST):
** TOK_CJK_SCRIPT, the script group of a caseless Han, kana or Hangul
** letter as one bit (1 << (group - TOK_S_HAN)); TOK_CJK_LETTER, any
** caseless letter (TOK_C_LO) but Latin ones; TOK_CJK_EXTRA(o200k), a Han, kana or Hangul
** character of U+3000-U+9FFF or a Hangul syllable that is not one token
** alone in the encoding: it counts double in a piece's length. */
#define TOK_CJK_FIRST 0x3000
#define TOK_CJK_CHARS (0xD7B0 - TOK_CJK_FIRST)
#define TOK_CJK_SCRIPT 0x0F
#define TOK_CJK_LETTER 0x4F
#define TOK_CJK_EXTRA(o200k) ((o200k) ? 0x10 : 0x20)
extern const uint8_t coax_tok_cjk[TOK_CJK_CHARS];

/* Piece kinds. */
enum {
    TOK_K_WORD = 0, /* letters, with an optional leading non-letter */
    TOK_K_PUNCT,    /* a run of punctuation/symbols, optional leading space */
    TOK_K_NUM,      /* one to three \p{N} */
    TOK_K_SPACE,    /* whitespace without a line break */
    TOK_K_NEWLINE,  /* whitespace ending in a line break */
    TOK_K_CONTR     /* cl100k: a contraction ('s, 't, 're, ...) on its own */
};

/* Case patterns of a word's letters. */
enum { TOK_CASE_LOWER = 0, TOK_CASE_CAP, TOK_CASE_UPPER, TOK_CASE_MIXED, TOK_NCASE };

/* What precedes a word's letters (or a punctuation run). */
enum {
    TOK_PRE_NONE = 0, /* nothing: the piece follows a space, punctuation, a break */
    TOK_PRE_GLUED,    /* nothing, right after a letter or digit (a case split) */
    TOK_PRE_SPACE,    /* a leading U+0020 inside the piece */
    TOK_PRE_OTHER,    /* another leading character inside the piece */
    TOK_NPRE
};

/* Key layout: every kind has rows of TOK_MAXLEN weights, one per length in
** code points (1..TOK_MAXLEN); longer pieces add a per-row slope. */
#define TOK_MAXLEN 24
#define TOK_ROWS_WORD (TOK_NSCRIPT * TOK_NCASE * TOK_NPRE)
#define TOK_ROWS_PUNCT (TOK_NSCRIPT * 8) /* script, leading space, break, repeats */
#define TOK_ROWS_NUM TOK_NSCRIPT
#define TOK_ROWS_SPACE 3   /* spaces only, tabs, other */
#define TOK_ROWS_NEWLINE 3 /* breaks only, with spaces, other */
#define TOK_ROW_WORD 0
#define TOK_ROW_PUNCT (TOK_ROW_WORD + TOK_ROWS_WORD)
#define TOK_ROW_NUM (TOK_ROW_PUNCT + TOK_ROWS_PUNCT)
#define TOK_ROW_SPACE (TOK_ROW_NUM + TOK_ROWS_NUM)
#define TOK_ROW_NEWLINE (TOK_ROW_SPACE + TOK_ROWS_SPACE)
#define TOK_ROW_CONTR (TOK_ROW_NEWLINE + TOK_ROWS_NEWLINE)
#define TOK_NROWS (TOK_ROW_CONTR + 1)
#define TOK_NKEYS (TOK_NROWS * TOK_MAXLEN)

/* Weights are in 1/TOK_SCALE token. */
#define TOK_SCALE 256

/* Rows whose weights are at most a token a character, slopes too (ASCII
** numbers, whitespace): the clamp of a piece's weight to a token a byte
** never changes theirs, as a character is a byte or more, and the scan
** skips it. spec/c/test_tokens.c checks the fitted weights for it. */
#define TOK_ROW_CAPPED(row) \
    ((row) == TOK_ROW_NUM + TOK_S_ASCII || ((row) >= TOK_ROW_SPACE && (row) < TOK_ROW_CONTR))

/* Frequent pieces: an open-addressed table of TOK_COMMON_SLOTS entries,
** each (fingerprint << 2 | (tokens - 1)), 0 for an empty slot, every entry
** within TOK_PROBES slots of its hash. Pieces of at most TOK_HASH_MAX bytes
** are looked up. About 6,100 entries: at a third full, nearly every entry
** finds a slot within four of any hash (at three quarters, a new hash lost
** 2.5% of them, bench/tokens/fit.mjs REHASH). */
#define TOK_COMMON_SLOTS 16384
#define TOK_PROBES 4
#define TOK_HASH_MAX 24

/* Runs of one ASCII punctuation mark ("----", " ====", "}}}}"): their
** exact tokens, per encoding, for 1..TOK_RUN_MAX marks, alone and after a
** space (runs.c, generated). BPE on such a run follows which repeats are
** tokens, mark by mark (80 dashes are 1 token, 300 closing braces 150): no
** row of mixed punctuation does. A longer run is its first r marks (r in
** 1..TOK_RUN_MAX) and runs of TOK_RUN_MAX (within 1.2% on runs of 129 to
** 5,000 marks). Runs shorter than TOK_RUN_MIN keep their rows (and the
** frequent-piece table), which have them. */
#define TOK_RUN_MAX 128
#define TOK_RUN_MIN 4
extern const uint8_t coax_tok_runs_o200k[2 * 32 * TOK_RUN_MAX];
extern const uint8_t coax_tok_runs_cl100k[2 * 32 * TOK_RUN_MAX];

/* The rows of ASCII punctuation (all but runs of one mark) past
** TOK_MIXED_FIT code points: the corpus held too few such pieces for a fit
** (the weights ran from 3 to 39 tokens at 11 to 24 marks, more tokens than
** marks), so a longer piece weighs the row's weight at TOK_MIXED_FIT and
** TOK_MIXED_SLOPE a mark more: mixed punctuation of replies, drawn at random
** from JSON's, code's, Markdown's or all of it, is 0.54-0.68 tokens a mark
** in o200k and cl100k at every length from 6 to 400 (exact counts,
** bench/tokens), and alternations ("]}]}", "<><>") 0.50. */
#define TOK_MIXED_FIT 10
#define TOK_MIXED_SLOPE (TOK_SCALE * 6 / 10)

/* The weight of punctuation piece s[i..end) of TOK_RUN_MIN code points or
** more ('row', 'nchars' its row and length) when its row's weight is not to
** be trusted: a run of one ASCII mark (after a space or not, and the line
** breaks after it) from runs.c, an ASCII piece past TOK_MIXED_FIT from
** mixed_weight; else 0 (long_punct.c). It reads the piece again: the
** scan's common path pays one test. */
uint64_t tok_long_punct_weight(const unsigned char *s, size_t i, size_t end, bool o200k, const uint16_t *weight,
                               unsigned row, unsigned nchars);

/* A calibrated model: the fitted data of one encoding. */
typedef struct tok_model {
    const uint16_t *weight; /* [TOK_NKEYS] */
    const uint16_t *slope;  /* [TOK_NROWS] per code point beyond TOK_MAXLEN */
    const uint16_t *common; /* [TOK_COMMON_SLOTS + TOK_PROBES - 1]: slots 0-2 again */
} tok_model;

extern const tok_model coax_tok_model_o200k;
extern const tok_model coax_tok_model_cl100k;

/* Which pre-tokenizer. */
enum { TOK_SPLIT_O200K = 0, TOK_SPLIT_CL100K };

/* One piece, as the calibration tool sees it. */
typedef struct tok_piece {
    size_t start, end;   /* bytes of the input */
    uint32_t kind, row, nchars, key;
    uint32_t hash;       /* valid when 'hashed' */
    int hashed;
    uint32_t common;     /* tokens from the common table, 0 when not there */
    uint64_t weight;     /* what the piece added, 1/TOK_SCALE token */
} tok_piece;

typedef void (*tok_visit)(void *ud, const tok_piece *piece);

/* Splits s[0..n) with pre-tokenizer 'split' and sums the expected tokens of
** the pieces under model 'm' (1/TOK_SCALE token). 'visit' (may be NULL)
** hears every piece. Any bytes: an invalid UTF-8 byte is one "other" char. */
uint64_t coax_tok_scan(int split, const tok_model *m, const char *s, size_t n,
                       tok_visit visit, void *ud);

/* The piece hash (FNV-1a with a final mix), and the fingerprint table. */
uint32_t coax_tok_hash(const unsigned char *s, size_t n);
unsigned coax_tok_common_lookup(const uint16_t *table, uint32_t hash);

#endif
