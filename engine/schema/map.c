/*
** map.c: open-addressing hash maps with string or pointer keys.
*/
#include "schema/map.h"
#include "base/hash.h"

#include <stdint.h>

/* Keys are URIs and anchor names from the schema: keyed per map, so names
** made to collide cannot make compilation quadratic. 0 marks a free slot. */
static uint64_t hash_str(smap *m, const char *s, size_t n)
{
    if (!m->seed) m->seed = coax_hash_seed(m) | 1;
    return coax_hash_bytes(s, n, m->seed) | 1;
}

static uint64_t hash_ptr(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x | 1;
}

static bool same(const smap_entry *e, uint64_t h, const char *key, size_t klen)
{
    if (e->hash != h || e->klen != klen) return false;
    return klen == SIZE_MAX ? e->key == key : memcmp(e->key, key, klen) == 0;
}

static void *get(const smap *m, uint64_t h, const char *key, size_t klen)
{
    if (!m->cap) return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const smap_entry *e = &m->e[i];
        if (!e->hash) return NULL;
        if (same(e, h, key, klen)) return e->val;
    }
}

static bool put(smap *m, coax_arena *a, uint64_t h, const char *key, size_t klen, void *val)
{
    if ((m->n + 1) * 4 > m->cap * 3) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        smap_entry *e = coax_arena_alloc(a, cap * sizeof *e);
        if (!e) return false;
        memset(e, 0, cap * sizeof *e);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].hash) continue;
            size_t j = m->e[i].hash & (cap - 1);
            while (e[j].hash) j = (j + 1) & (cap - 1);
            e[j] = m->e[i];
        }
        m->e = e;
        m->cap = cap;
    }
    size_t i = h & (m->cap - 1);
    while (m->e[i].hash) {
        if (same(&m->e[i], h, key, klen)) {
            m->e[i].val = val;
            return true;
        }
        i = (i + 1) & (m->cap - 1);
    }
    m->e[i] = (smap_entry){h, key, klen, val};
    m->n++;
    return true;
}

void *smap_get(const smap *m, const char *key, size_t klen)
{
    if (!m->cap) return NULL;
    return get(m, coax_hash_bytes(key, klen, m->seed) | 1, key, klen);
}

bool smap_put(smap *m, coax_arena *a, const char *key, size_t klen, void *val)
{
    return put(m, a, hash_str(m, key, klen), key, klen, val);
}

void *smap_getp(const smap *m, const void *p)
{
    return get(m, hash_ptr(p), (const char *)p, SIZE_MAX);
}

bool smap_putp(smap *m, coax_arena *a, const void *p, void *val)
{
    return put(m, a, hash_ptr(p), (const char *)p, SIZE_MAX, val);
}
