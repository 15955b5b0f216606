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

#if defined(__SSE2__) && !defined(COAX_TOK_NO_SIMD)
#include <emmintrin.h>
#endif

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
** entry within them), so a miss costs one cache line. */
static inline unsigned common_lookup_loop(const uint16_t *table, uint32_t slot, unsigned fp)
{
    for (int p = 0; p < TOK_PROBES; p++, slot = (slot + 1) & (TOK_COMMON_SLOTS - 1)) {
        unsigned e = table[slot];
        if (!e) return 0;
        if ((e >> 2) == fp) return (e & 3) + 1;
    }
    return 0;
}

#define LANES16_LOW 0x0001000100010001u
#define LANES16_HIGH 0x8000800080008000u

/* The four slots at once (the table repeats its first three slots after its
** last, so four from any slot are one load): the first slot that is empty
** or holds the fingerprint decides, as in the loop, without a branch.
** An entry's fingerprint is never 0, so a slot is empty exactly when its
** fingerprint bits are. Without a branch on purpose: whether a piece is in
** the table, or its home slot empty, is as likely as not, and every such
** branch is mispredicted half the time. The loop above a slot at a time
** (or a test of the home slot before the four) takes fewer instructions
** (o200k 28.2 a byte against 29.9, cl100k 27.3 against 28.9) but runs a
** fifth slower (CPU time, alternating runs: 303 MB/s against 382, 319
** against 395). */
static inline unsigned common_lookup(const uint16_t *table, uint32_t hash)
{
    _Static_assert(TOK_PROBES == 4, "four 16-bit slots in one load");
    unsigned fp = (hash >> 18) & 0x3FFF;
    if (!fp) fp = 1;
    uint32_t slot = hash & (TOK_COMMON_SLOTS - 1);
#if defined(__SSE2__) && !defined(COAX_TOK_NO_SIMD)
    {
        /* 16-bit lanes compared in one step (SSE2, which every x86-64 has);
        ** the load clears lanes 4-7, which read as empty and stop the
        ** search past the four. Every lane's tokens where the fingerprint
        ** matches, else 0, are read at the first lane that stops. */
        __m128i e = _mm_loadl_epi64((const __m128i *)(const void *)(table + slot));
        __m128i fps = _mm_and_si128(e, _mm_set1_epi16((short)~3));
        __m128i match = _mm_cmpeq_epi16(fps, _mm_set1_epi16((short)(fp << 2)));
        unsigned stop = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(match, _mm_cmpeq_epi16(fps, _mm_setzero_si128())));
        /* two mask bits a lane; when lanes 0-3 go on, lane 4 (at 8) stops
        ** and the shift, taken mod 64, reads lane 0, which matched nothing */
        unsigned at = (unsigned)__builtin_ctz(stop);
        __m128i tokens = _mm_add_epi16(_mm_and_si128(e, _mm_set1_epi16(3)), _mm_set1_epi16(1));
        uint64_t lanes = (uint64_t)_mm_cvtsi128_si64(_mm_and_si128(tokens, match));
        return (unsigned)(lanes >> (8 * at & 63)) & 7;
    }
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    {
        /* 16-bit lanes of one 64-bit word: (v - 1) & ~v marks a zero lane
        ** exactly at the lowest one; lanes above it may be marked falsely, so
        ** only the lowest counts: its mark isolated (hit & -hit) widens to a
        ** mask of its lane, which keeps the entry when the fingerprint
        ** matched and nothing when the lane is empty; the entry's two low
        ** bits are then summed out of the lanes by a multiply. */
        uint64_t e;
        memcpy(&e, table + slot, 8);
        uint64_t x = (e & ~(LANES16_LOW * 3)) ^ LANES16_LOW * (fp << 2);
        uint64_t hit = ((x - LANES16_LOW) & ~x) | ((e - LANES16_LOW) & ~e);
        hit &= LANES16_HIGH;
        uint64_t first = hit & (0 - hit);
        uint64_t entry = e & ((first << 1) - (first >> 15));
        return (unsigned)(((entry & LANES16_LOW * 3) * LANES16_LOW) >> 48) + (entry != 0);
    }
#else
    return common_lookup_loop(table, slot, fp);
#endif
}

#endif
