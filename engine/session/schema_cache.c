/*
** schema_cache.c: schemas compiled once per engine (schema_cache.h).
*/
#include "session/schema_cache.h"

cached_schema *schema_cache_find(schema_cache *c, const char *text, size_t len, bool limited)
{
    for (size_t i = 0; i < SCHEMA_CACHE_SIZE; i++) {
        cached_schema *x = &c->slots[i];
        if (x->schema && x->limited == limited && x->text.len == len && (!len || !memcmp(x->text.data, text, len))) {
            x->users++;
            return x;
        }
    }
    return NULL;
}

static void clear(cached_schema *x)
{
    coax_schema_free(x->schema);
    coax_arena_free(x->arena);
    coax_buf_free(&x->text);
    memset(x, 0, sizeof *x);
}

cached_schema *schema_cache_add(schema_cache *c, const coax_allocator *alloc, const char *text, size_t len,
                                bool limited, coax_arena *arena, const coax_value *doc, coax_schema *schema)
{
    cached_schema *x = NULL;
    for (size_t i = 0; i < SCHEMA_CACHE_SIZE && !x; i++) {
        cached_schema *y = &c->slots[(c->next + i) % SCHEMA_CACHE_SIZE];
        if (!y->users) x = y;
    }
    if (!x) return NULL;
    coax_buf key;
    coax_buf_init(&key, alloc);
    coax_buf_put(&key, text, len);
    if (key.oom) {
        coax_buf_free(&key);
        return NULL;
    }
    clear(x);
    c->next = (unsigned)(x - c->slots + 1) % SCHEMA_CACHE_SIZE;
    *x = (cached_schema){key, limited, arena, doc, schema, 1};
    return x;
}

void schema_cache_release(cached_schema *entry)
{
    if (entry && entry->users) entry->users--;
}

void schema_cache_free(schema_cache *c)
{
    for (size_t i = 0; i < SCHEMA_CACHE_SIZE; i++) clear(&c->slots[i]);
}
