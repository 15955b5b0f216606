/*
** coerce_map.h: coerce.c's string-keyed map (one or two parts, in an
** arena), keyed by what a reply chooses (instance locations, member names)
** under a seed drawn per map. Only coerce.c includes it.
*/
#ifndef COAX_EXTRACT_COERCE_MAP_H
#define COAX_EXTRACT_COERCE_MAP_H
#include "base/core.h"
#include "base/hash.h"

#include <string.h>

typedef struct hent {
    const char *a, *b;
    uint32_t al, bl;
    uint32_t h, round; /* round: when the key was last seen (the tried map) */
    size_t val;
} hent;

typedef struct hmap {
    coax_arena *arena;
    hent *e;
    size_t cap, n;
    uint64_t seed; /* hash2's key, drawn per map */
} hmap;

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* Keys are instance locations and member names, which a reply chooses: the
** FNV-1a state starts from the map's seed and its slot mixes all 64 bits
** with the seed again (FNV's low bits alone can be made to collide at will,
** which made n crafted keys cost n^2). FNV stays for its being incremental:
** every prefix of a location is hashed in one pass (deepest_prefix). */
static uint32_t hfold(const hmap *m, uint64_t h)
{
    h = coax_hash_mix(h, m->seed);
    return (uint32_t)(h ^ (h >> 32));
}

static uint32_t hash2(const hmap *m, const char *a, size_t al, const char *b, size_t bl)
{
    uint64_t h = fnv(m->seed, a, al);
    if (b) h = fnv(h ^ 0x9e3779b97f4a7c15ull, b, bl);
    return hfold(m, h);
}

static bool hmap_init(hmap *m, coax_arena *a, size_t expect)
{
    m->arena = a;
    m->n = 0;
    m->seed = coax_hash_seed(m);
    for (m->cap = 16; m->cap * 2 < expect * 3; m->cap *= 2) {}
    m->e = coax_arena_alloc(a, m->cap * sizeof *m->e);
    if (m->e) memset(m->e, 0, m->cap * sizeof *m->e);
    return m->e != NULL;
}

static hent *hmap_slot(hent *e, size_t cap, const char *a, size_t al, const char *b, size_t bl, uint32_t h)
{
    for (size_t i = (size_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
        hent *x = &e[i];
        if (!x->a) return x;
        if (x->h == h && x->al == al && x->bl == bl && !memcmp(x->a, a, al) && (!bl || !memcmp(x->b, b, bl)))
            return x;
    }
}

static hent *hmap_find(const hmap *m, const char *a, size_t al, const char *b, size_t bl, uint32_t h)
{
    hent *x = hmap_slot(m->e, m->cap, a, al, b, bl, h);
    return x->a ? x : NULL;
}

/* The entry for the key, added (val 0) when absent; NULL when out of memory. */
static hent *hmap_put(hmap *m, const char *a, size_t al, const char *b, size_t bl, uint32_t h)
{
    if ((m->n + 1) * 3 > m->cap * 2) { /* load at most 2/3 */
        size_t cap = m->cap * 2;
        hent *e = coax_arena_alloc(m->arena, cap * sizeof *e);
        if (!e) return NULL;
        memset(e, 0, cap * sizeof *e);
        for (size_t i = 0; i < m->cap; i++)
            if (m->e[i].a) *hmap_slot(e, cap, m->e[i].a, m->e[i].al, m->e[i].b, m->e[i].bl, m->e[i].h) = m->e[i];
        m->e = e;
        m->cap = cap;
    }
    hent *x = hmap_slot(m->e, m->cap, a, al, b, bl, h);
    if (!x->a) {
        *x = (hent){a, b, (uint32_t)al, (uint32_t)bl, h, 0, 0};
        m->n++;
    }
    return x;
}

#endif
