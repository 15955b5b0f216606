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

/* A fresh seed: the address 'salt' (a table, a local), the address of a
** local of this call and a clock reading, mixed. Thread-safe, no state. */
uint64_t coax_hash_seed(const void *salt);

/* The hash of p[0..n) under 'seed' (hash.c). */
uint64_t coax_hash_bytes(const void *p, size_t n, uint64_t seed);

/* Mixes a 64-bit word into a seeded hash (for combining hashes). */
uint64_t coax_hash_mix(uint64_t h, uint64_t seed);

#endif
