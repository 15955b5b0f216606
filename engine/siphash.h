/*
** siphash.h: SipHash-2-4, a keyed hash of a whole key, for tables whose
** keys come from input (an attacker who cannot guess the key cannot make
** keys collide, whatever bits of the hash a table uses), and a cheap seed.
*/
#ifndef COAX_SIPHASH_H
#define COAX_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct coax_hash_key {
    uint64_t k0, k1;
} coax_hash_key;

/* The hash of 'n' bytes at 'p' under 'key'. */
uint64_t coax_siphash(const coax_hash_key *key, const void *p, size_t n);

/* A fresh key from cheap entropy (clocks, the process id, an address of
** the caller's): differs per table and per run; not for cryptography. */
coax_hash_key coax_hash_seed(const void *salt);

#endif
