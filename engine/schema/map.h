/*
** map.h: the hash maps compilation uses (URI -> resource, anchor ->
** target, value -> subschema info). Open addressing in the compile arena;
** nothing here outlives compilation except what the values point to.
*/
#ifndef COAX_SCHEMA_MAP_H
#define COAX_SCHEMA_MAP_H

#include "base/core.h"

typedef struct smap_entry {
    uint64_t hash;
    const char *key; /* a string, or a pointer when klen == SIZE_MAX */
    size_t klen;
    void *val;
} smap_entry;

typedef struct smap {
    smap_entry *e;
    size_t n, cap;
    uint64_t seed; /* of string keys: drawn on the first put */
} smap;

/* String keys (the map keeps the pointer: it must live in the arena). */
void *smap_get(const smap *m, const char *key, size_t klen);
bool smap_put(smap *m, coax_arena *a, const char *key, size_t klen, void *val);

/* Pointer keys. */
void *smap_getp(const smap *m, const void *p);
bool smap_putp(smap *m, coax_arena *a, const void *p, void *val);

#endif
