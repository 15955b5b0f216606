/*
** hash.c: SipHash-1-3 (Aumasson and Bernstein), keyed per table or call.
** One compression round per 8 bytes and three at the end: fast enough for
** short keys, and without the seed its collisions cannot be prepared.
*/
#include "hash.h"

#include <string.h>
#include <time.h>

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

typedef struct sip {
    uint64_t v0, v1, v2, v3;
} sip;

static void sip_round(sip *s)
{
    s->v0 += s->v1, s->v1 = ROTL(s->v1, 13), s->v1 ^= s->v0, s->v0 = ROTL(s->v0, 32);
    s->v2 += s->v3, s->v3 = ROTL(s->v3, 16), s->v3 ^= s->v2;
    s->v0 += s->v3, s->v3 = ROTL(s->v3, 21), s->v3 ^= s->v0;
    s->v2 += s->v1, s->v1 = ROTL(s->v1, 17), s->v1 ^= s->v2, s->v2 = ROTL(s->v2, 32);
}

static uint64_t fmix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

uint64_t coax_hash_seed(const void *salt)
{
    struct timespec ts;
    int local = 0;
    uint64_t t = 0;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    uint64_t x = fmix((uint64_t)(uintptr_t)salt ^ 0x9E3779B97F4A7C15ull);
    x = fmix(x ^ (uint64_t)(uintptr_t)&local);
    return fmix(x ^ t);
}

uint64_t coax_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *in = p;
    uint64_t k0 = seed, k1 = fmix(seed ^ 0x6a09e667f3bcc909ull);
    sip s = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
             k1 ^ 0x7465646279746573ull};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t m;
        memcpy(&m, in + i, 8);
        s.v3 ^= m;
        sip_round(&s);
        s.v0 ^= m;
    }
    uint64_t last = (uint64_t)n << 56;
    for (size_t j = 0; i + j < n; j++) last |= (uint64_t)in[i + j] << (8 * j);
    s.v3 ^= last;
    sip_round(&s);
    s.v0 ^= last;
    s.v2 ^= 0xff;
    sip_round(&s);
    sip_round(&s);
    sip_round(&s);
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

uint64_t coax_hash_mix(uint64_t h, uint64_t seed)
{
    return coax_hash_bytes(&h, sizeof h, seed);
}
