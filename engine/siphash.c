/*
** siphash.c: SipHash-2-4 (Aumasson and Bernstein, 2012), as the reference
** implementation computes it, and a per-table seed.
*/
#include "siphash.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND                                                                                                       \
    do {                                                                                                               \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);                                                      \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                                                         \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                                                         \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);                                                      \
    } while (0)

static uint64_t load64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i]; /* little-endian, as the reference */
    return v;
}

uint64_t coax_siphash(const coax_hash_key *key, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t v0 = 0x736f6d6570736575u ^ key->k0, v1 = 0x646f72616e646f6du ^ key->k1;
    uint64_t v2 = 0x6c7967656e657261u ^ key->k0, v3 = 0x7465646279746573u ^ key->k1;
    size_t whole = n - n % 8;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m = load64(p + i);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    unsigned char last[8] = {0};
    memcpy(last, p + whole, n - whole);
    uint64_t m = load64(last) | (uint64_t)(n & 0xff) << 56;
    v3 ^= m;
    SIPROUND;
    SIPROUND;
    v0 ^= m;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* splitmix64's finalizer: spreads every input bit over the output. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

coax_hash_key coax_hash_seed(const void *salt)
{
    static const char here = 0; /* where the library is loaded (ASLR) */
    struct timespec mono = {0}, wall = {0};
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &wall);
    uint64_t a = mix((uint64_t)mono.tv_nsec ^ (uint64_t)mono.tv_sec << 30 ^ (uint64_t)(uintptr_t)salt);
    uint64_t b = mix(a ^ (uint64_t)wall.tv_nsec ^ (uint64_t)wall.tv_sec << 32 ^ (uint64_t)getpid() << 16 ^
                     (uint64_t)(uintptr_t)&here);
    coax_hash_key k = {a, mix(b)};
    return k;
}
