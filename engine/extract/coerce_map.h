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
    uint64_t seed; /* the hashes' key, drawn per map */
} hmap;

/* Keys are instance locations, keyword locations and member names, which a
** reply and a schema choose: every hash is keyed by the map's seed (one
** drawn per map), and the slot mixes all 64 bits with the seed again. */
static uint32_t hfold(const hmap *m, uint64_t h)
{
    h = coax_hash_mix(h, m->seed);
    return (uint32_t)(h ^ (h >> 32));
}

/* The hash of the pair a[0..al), b[0..bl) (b NULL: of a alone), a word at
** a time: a location is kilobytes on a deep schema or under a long key,
** and each error's were hashed a dozen times, a byte at a time (FNV-1a,
** 5 instructions a byte: 2.4 billion for 1,000 errors 100 levels deep). */
static uint32_t hash2(const hmap *m, const char *a, size_t al, const char *b, size_t bl)
{
    uint64_t h = coax_hash_bytes(a, al, m->seed);
    if (b) h = coax_hash_mix(h ^ coax_hash_bytes(b, bl, m->seed ^ 0x9e3779b97f4a7c15ull), m->seed);
    return hfold(m, h);
}

/* Locations in the maps read by prefix (a change's place and those above
** it) hash by their segments, each a '/' and the token after it (or the
** text before the first '/'), chained: one pass gives the hash of every
** prefix that ends before a '/'. A segment of at most 8 bytes takes one
** multiply, a longer one the keyed hash. loc_start is the hash of "". */
static uint64_t loc_start(const hmap *m) { return m->seed; }

static uint64_t loc_step(const hmap *m, uint64_t h, const char *s, size_t n)
{
    uint64_t w = 0;
    if (n <= 8) memcpy(&w, s, n);
    else w = coax_hash_bytes(s, n, m->seed);
    return coax_mum(h ^ w ^ 0xa0761d6478bd642full, (m->seed ^ 0xe7037ed1a0b428dbull) + n);
}

/* The end of the segment at loc[i] (i < len): the next '/' after it, or len. */
static size_t loc_cut(const char *loc, size_t i, size_t len)
{
    const char *e = i + 1 < len ? memchr(loc + i + 1, '/', len - i - 1) : NULL;
    return e ? (size_t)(e - loc) : len;
}

static uint32_t hash_loc(const hmap *m, const char *loc, size_t len)
{
    uint64_t h = loc_start(m);
    for (size_t i = 0, e; i < len; i = e) h = loc_step(m, h, loc + i, (e = loc_cut(loc, i, len)) - i);
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
        if (x->h == h && x->al == al && x->bl == bl && (x->a == a || !memcmp(x->a, a, al)) &&
            (!bl || x->b == b || !memcmp(x->b, b, bl)))
            return x; /* an error's own location is often the key itself: not read again */
    }
}

static hent *hmap_find(const hmap *m, const char *a, size_t al, const char *b, size_t bl, uint32_t h)
{
    hent *x = hmap_slot(m->e, m->cap, a, al, b, bl, h);
    return x->a ? x : NULL;
}

/* The entries of 'm' (a map of hash_loc) at the prefixes of a location
** that end before a '/' or at its end, shortest first, the whole location
** last: prefix_walk_at, then prefix_walk_next until it gives NULL. The
** prefixes' hashes come from one pass (hash_loc's chain). */
typedef struct prefix_walk {
    const char *loc;
    size_t len, at; /* at: the next prefix's length; past len once done */
    uint64_t h;     /* the hash of loc[0..at) */
} prefix_walk;

static prefix_walk prefix_walk_at(const hmap *m, const char *loc, size_t len)
{
    return (prefix_walk){loc, len, 0, loc_start(m)};
}

static hent *prefix_walk_next(const hmap *m, prefix_walk *w)
{
    while (w->at <= w->len) {
        size_t i = w->at;
        hent *x = i == w->len || w->loc[i] == '/' ? hmap_find(m, w->loc, i, NULL, 0, hfold(m, w->h)) : NULL;
        if (i == w->len) {
            w->at = i + 1;
        } else {
            w->at = loc_cut(w->loc, i, w->len);
            w->h = loc_step(m, w->h, w->loc + i, w->at - i);
        }
        if (x) return x;
    }
    return NULL;
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
