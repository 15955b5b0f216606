/*
** hash.c: a keyed hash in the manner of wyhash (Wang Yi): 16 bytes at a
** time folded by a 64x64->128-bit multiply whose halves are xored. Both
** operands of every multiply carry a secret drawn from the seed: were
** one of them key bytes xored with a public constant, a key could zero
** it, and the product, and every key sharing that prefix would collide
** whatever the seed. Short keys (most property names) take two multiplies.
*/
#include "base/hash.h"

#include <string.h>
#include <time.h>

#define P0 0xa0761d6478bd642full
#define P1 0xe7037ed1a0b428dbull
#define P2 0x8ebc6af09c88c6e3ull

static uint64_t r64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint64_t r32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

uint64_t coax_hash_seed(const void *salt)
{
    struct timespec ts;
    int local = 0;
    uint64_t t = 0;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    uint64_t x = coax_mum((uint64_t)(uintptr_t)salt ^ P0, (uint64_t)(uintptr_t)&local ^ P1);
    return coax_mum(x ^ P2, t ^ P0);
}

uint64_t coax_hash_bytes(const void *key, size_t n, uint64_t seed)
{
    const unsigned char *p = key;
    uint64_t s = seed ^ coax_mum(seed ^ P0, P1), k = coax_mum(seed ^ P2, P0) ^ P1, a, b;
    if (n <= 16) {
        if (n >= 4) {
            size_t q = (n >> 3) << 2;
            a = (r32(p) << 32) | r32(p + q);
            b = (r32(p + n - 4) << 32) | r32(p + n - 4 - q);
        } else if (n > 0) {
            a = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | p[n - 1];
            b = 0;
        } else {
            a = b = 0;
        }
    } else {
        size_t i = n;
        while (i > 16) {
            s = coax_mum(r64(p) ^ k, r64(p + 8) ^ s);
            p += 16;
            i -= 16;
        }
        a = r64(p + i - 16);
        b = r64(p + i - 8);
    }
    return coax_mum(k ^ (uint64_t)n, coax_mum(a ^ k, b ^ s));
}

uint64_t coax_hash_mix(uint64_t h, uint64_t seed)
{
    return coax_mum(h ^ seed ^ P0, (seed ^ P1) + 0x9E3779B97F4A7C15ull);
}
