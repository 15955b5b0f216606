/*
** hash.h: a keyed hash for every table whose keys come from input (object
** members, property names, schema URIs, uniqueItems buckets).
**
** Keys an attacker chooses must not be able to collide on purpose, so the
** hash covers every byte and is keyed by a seed drawn per table or per
** call (coax_hash_seed), never by a process-wide value: the library keeps
** no globals, and a seed nobody can read cannot be planned against.
*/
#ifndef COAX_HASH_H
#define COAX_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The 128-bit product of a and b, its halves xored (the mixing step of the
** keyed hash, and of the token estimator's piece hash, engine/tokens/table.h);
** the same value on every platform. */
static inline uint64_t coax_mum(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    uint64_t ha = a >> 32, la = (uint32_t)a, hb = b >> 32, lb = (uint32_t)b;
    uint64_t hh = ha * hb, hl = ha * lb, lh = la * hb, ll = la * lb;
    uint64_t mid = (ll >> 32) + (uint32_t)hl + (uint32_t)lh;
    uint64_t lo = (mid << 32) | (uint32_t)ll;
    uint64_t hi = hh + (hl >> 32) + (lh >> 32) + (mid >> 32);
    return lo ^ hi;
#endif
}

/* A fresh seed: the address 'salt' (a table, a local), the address of a
** local of this call and a clock reading, mixed. Thread-safe, no state. */
uint64_t coax_hash_seed(const void *salt);

/* The hash of p[0..n) under 'seed' (hash.c). */
uint64_t coax_hash_bytes(const void *p, size_t n, uint64_t seed);

/* Mixes a 64-bit word into a seeded hash (for combining hashes). */
uint64_t coax_hash_mix(uint64_t h, uint64_t seed);

#endif
