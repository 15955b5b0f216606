/*
** table.h: the frequent-piece table of the token estimator, for tokens.c
** only: the piece hash the generator (bench/tokens/fit.mjs) placed the
** entries by, and the probe of a piece's slots. Inline, as the scanner's
** copies per encoding call them once a piece.
*/
#ifndef COAX_TOKENS_TABLE_H
#define COAX_TOKENS_TABLE_H

#include "base/hash.h"
#include "tokens/chars.h"

/* The piece hash: the piece as little-endian words (load_le8), the last
** one's bytes past the piece set to 0xFF (which no UTF-8 text holds, so the
** length needs no mixing of its own), each word folded in by one 64x64->128
** multiply whose halves are xored (coax_mum): a piece of at most eight bytes
** is one multiply, about a third of the three-step mix it replaced. Not
** keyed: the table is public and fitted offline, and a collision costs an
** estimate, never a value. The same on every platform, as the tables are
** generated from it (bench/tokens/fit.mjs). */
#define TOK_HASH_K0 0xa0761d6478bd642fu
#define TOK_HASH_K1 0xe7037ed1a0b428dbu
#define TOK_HASH_K2 0x8ebc6af09c88c6e3u

/* The n (1..7) bytes at s as a little-endian word, reading only s[0..n):
** two overlapping loads whose shared bytes agree. */
static inline uint64_t load_le_tail(const unsigned char *s, size_t n)
{
    if (n >= 4) return (uint64_t)load_le4(s) | (uint64_t)load_le4(s + n - 4) << (8 * (n - 4));
    return (uint64_t)s[0] | (uint64_t)s[n / 2] << (8 * (n / 2)) | (uint64_t)s[n - 1] << (8 * (n - 1));
}

/* The bytes of a piece's last word past its end, set: past[n] for a piece
** of n (0..16) bytes, none when its last word is whole. A load, where the
** shift by a variable count took four instructions. */
static const uint64_t past[17] = {
    ~0ull,       ~0ull << 8,  ~0ull << 16, ~0ull << 24, ~0ull << 32, ~0ull << 40,
    ~0ull << 48, ~0ull << 56, 0,           ~0ull << 8,  ~0ull << 16, ~0ull << 24,
    ~0ull << 32, ~0ull << 40, ~0ull << 48, ~0ull << 56, 0,
};

/* A piece of one word, and a later word into the hash of the words before. */
static inline uint32_t hash_one(uint64_t word) { return (uint32_t)coax_mum(word, TOK_HASH_K0); }
static inline uint64_t hash_next(uint64_t h, uint64_t word)
{
    return coax_mum(h ^ TOK_HASH_K1, word ^ TOK_HASH_K2);
}

/* The hash of s[0..n); 'avail' (>= n) bytes from s may be read, so a tail
** of fewer than eight bytes with eight readable is one load. */
static uint32_t tok_hash_any(const unsigned char *s, size_t n, size_t avail)
{
    if (n <= 8) {
        if (n == 8) return hash_one(load_le8(s));
        if (!n) return hash_one(past[0]);
        return hash_one((avail >= 8 ? load_le8(s) : load_le_tail(s, n)) | past[n]);
    }
    uint64_t h = load_le8(s);
    for (s += 8, n -= 8, avail -= 8; n >= 8; s += 8, n -= 8, avail -= 8) h = hash_next(h, load_le8(s));
    if (n) h = hash_next(h, (avail >= 8 ? load_le8(s) : load_le_tail(s, n)) | past[n]);
    return (uint32_t)h;
}

/* tok_hash_any inline for most pieces: one to eight bytes with eight
** readable are one load and one multiply, nine to sixteen with sixteen
** readable two loads and two multiplies (most words of two-byte scripts,
** long English words), no loop. 'room': sixteen are known to be readable. */
static ALWAYS_INLINE uint32_t tok_hash(const unsigned char *s, size_t n, size_t avail, bool room)
{
    if (n - 1 < 8 && (room || avail >= 8)) return hash_one(load_le8(s) | past[n]);
    if (n - 9 < 8 && (room || avail >= 16)) return (uint32_t)hash_next(load_le8(s), load_le8(s + 8) | past[n]);
    return tok_hash_any(s, n, avail);
}

/* Linear probing over at most TOK_PROBES slots (the generator places every
** entry within them; the table repeats its first three slots after its
** last, so the probe needs no wrap): the first slot that is empty or holds
** the fingerprint decides. An entry's fingerprint is never 0, so a slot is
** empty exactly when it is 0. A branch a slot, unrolled: at a third full
** the home slot alone decides most lookups (empty for most pieces not in
** the table, holding most entries that are), which made the four slots
** compared at once (SSE2, or 16-bit lanes of a word) and a per-call memo
** of the answers cost more than they saved: o200k 29.54 -> 29.12
** instructions a byte, cl100k 28.61 -> 28.25 against the four at once. */
static inline unsigned common_lookup(const uint16_t *table, uint32_t hash)
{
    unsigned fp = (hash >> 18) & 0x3FFF;
    if (!fp) fp = 1;
    uint32_t slot = hash & (TOK_COMMON_SLOTS - 1);
#pragma GCC unroll 4
    for (int p = 0; p < TOK_PROBES; p++) {
        unsigned e = table[slot + p];
        if (!e) return 0;
        if ((e >> 2) == fp) return (e & 3) + 1;
    }
    return 0;
}

#endif
