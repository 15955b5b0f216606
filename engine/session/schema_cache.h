/*
** schema_cache.h: schemas compiled once per engine. Sessions of one recipe
** (a batch: thousands of lines) have the same schema text; compiling it,
** and checking it against its meta-schema first, costs more than the rest
** of a session's start, and a compiled schema is most of a waiting
** session's memory. So the engine keeps the compiled schema and its
** document for a few texts, keyed by the exact text, shared read-only by
** the sessions that use them: a session never frees what it shares, and an
** entry is replaced only when no live session uses it. The cache is freed
** with the engine, after its sessions.
*/
#ifndef COAX_SCHEMA_CACHE_H
#define COAX_SCHEMA_CACHE_H

#include "base/core.h"

#define SCHEMA_CACHE_SIZE 8

typedef struct cached_schema {
    coax_buf text;          /* the key: the schema's JSON text, exactly */
    bool limited;           /* read within the engine's limits (a file), not converted from a table */
    coax_arena *arena;      /* holds 'doc' */
    const coax_value *doc;
    coax_schema *schema;    /* compiled from 'doc' once it passed the meta-schema check */
    size_t users;           /* the live sessions that share it */
} cached_schema;

typedef struct schema_cache {
    cached_schema slots[SCHEMA_CACHE_SIZE];
    unsigned next;          /* where the search for a slot to replace starts */
} schema_cache;

/* The cached schema of 'text' (read within the limits or not), with one
** user more; NULL when it is not cached. */
cached_schema *schema_cache_find(schema_cache *c, const char *text, size_t len, bool limited);

/* Caches 'schema', compiled from 'doc' (in 'arena'), for 'text', with one
** user: the entry, owning 'arena' and 'schema' from then on; or NULL when
** every slot is in use or memory ran out, and they stay the caller's. An
** entry no session uses is replaced (freed), the least recently added
** first. */
cached_schema *schema_cache_add(schema_cache *c, const coax_allocator *alloc, const char *text, size_t len,
                                bool limited, coax_arena *arena, const coax_value *doc, coax_schema *schema);

/* A session is done with 'entry' (it stays cached). */
void schema_cache_release(cached_schema *entry);

/* Frees every entry: when the engine is freed, after its sessions. */
void schema_cache_free(schema_cache *c);

#endif
