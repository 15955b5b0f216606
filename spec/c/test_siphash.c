/*
** test_siphash.c: the keyed hash of tables with keys from input (issue 17,
** item 10): the reference vectors, and seeds that differ per table.
*/
#include "siphash.h"

#include <stdint.h>

#include "test.h"

static void test_reference_vectors(void)
{
    /* SipHash-2-4 paper, appendix A: key 00..0f, messages 00..(n-1). */
    coax_hash_key k = {0x0706050403020100u, 0x0f0e0d0c0b0a0908u};
    unsigned char m[64];
    for (int i = 0; i < 64; i++) m[i] = (unsigned char)i;
    CHECK(coax_siphash(&k, m, 0) == 0x726fdb47dd0e0e31u);
    CHECK(coax_siphash(&k, m, 1) == 0x74f839c593dc67fdu);
    CHECK(coax_siphash(&k, m, 7) == 0xab0200f58b01d137u);
    CHECK(coax_siphash(&k, m, 8) == 0x93f5f5799a932462u);
    CHECK(coax_siphash(&k, m, 15) == 0xa129ca6149be45e5u);
    CHECK(coax_siphash(&k, m, 63) == 0x958a324ceb064572u);
}

static void test_seeds_differ(void)
{
    int a, b;
    coax_hash_key x = coax_hash_seed(&a), y = coax_hash_seed(&b), z = coax_hash_seed(&a);
    CHECK(x.k0 != y.k0 || x.k1 != y.k1);
    CHECK(x.k0 != z.k0 || x.k1 != z.k1); /* the clock moved */
    CHECK(coax_siphash(&x, "id", 2) != coax_siphash(&y, "id", 2));
}

#define TESTS X(test_reference_vectors) X(test_seeds_differ)
#include "test.h"
