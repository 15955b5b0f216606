/*
** alloc.c: allocation through the host's allocator, the arena, and the
** growable buffer. Every byte coax allocates passes through here.
*/
#include "core.h"

#include <stdio.h>
#include <stdlib.h>

void *coax_alloc_raw(const coax_allocator *a, size_t size)
{
    if (size == 0) size = 1;
    return a ? a->malloc(a->ctx, size) : malloc(size);
}

void *coax_realloc_raw(const coax_allocator *a, void *p, size_t old_size,
                       size_t size)
{
    if (size == 0) size = 1;
    if (!p) return coax_alloc_raw(a, size);
    return a ? a->realloc(a->ctx, p, old_size, size) : realloc(p, size);
}

void coax_free_raw(const coax_allocator *a, void *p, size_t size)
{
    if (!p) return;
    if (a) a->free(a->ctx, p, size ? size : 1);
    else free(p);
}

void coax_free(const coax_allocator *alloc, void *ptr, size_t size)
{
    coax_free_raw(alloc, ptr, size);
}

/* ---- arena ---------------------------------------------------------------
** A list of chunks. Small requests are bumped out of the current chunk;
** chunks start small (most arenas hold one small reply or schema) and
** double up to a cap, so a big document needs few of them. A request
** larger than a quarter of the next chunk gets a chunk of its own, linked
** behind the current one so the current chunk's free space is not wasted. */

typedef struct chunk {
    struct chunk *next;
    size_t size;   /* bytes allocated for this chunk, header included */
    size_t used;   /* bytes used after the header */
    size_t serial; /* creation order, for coax_arena_rewind */
} chunk;

/* A block allocated elsewhere that the arena frees with itself. */
typedef struct adopted {
    struct adopted *next;
    void *block;
    size_t size;
} adopted;

struct coax_arena {
    coax_allocator alloc;
    bool has_alloc;
    chunk *head;
    adopted *adopted;
    size_t total;
    size_t serial;
    size_t next_chunk; /* the size of the next ordinary chunk */
};

#define ARENA_FIRST_CHUNK ((size_t)1 << 10)
#define ARENA_MAX_CHUNK ((size_t)64 << 10)
#define ARENA_HDR ((sizeof(chunk) + 15) & ~(size_t)15)

static const coax_allocator *arena_alloc_of(const coax_arena *a)
{
    return a->has_alloc ? &a->alloc : NULL;
}

coax_arena *coax_arena_new(const coax_allocator *alloc)
{
    coax_arena *a = coax_alloc_raw(alloc, sizeof *a);
    if (!a) return NULL;
    memset(a, 0, sizeof *a);
    if (alloc) {
        a->alloc = *alloc;
        a->has_alloc = true;
    }
    return a;
}

void coax_arena_free(coax_arena *a)
{
    if (!a) return;
    const coax_allocator *al = arena_alloc_of(a);
    for (adopted *r = a->adopted; r; r = r->next) coax_free_raw(al, r->block, r->size);
    chunk *c = a->head;
    while (c) {
        chunk *next = c->next;
        coax_free_raw(al, c, c->size);
        c = next;
    }
    coax_allocator copy = a->alloc;
    coax_free_raw(a->has_alloc ? &copy : NULL, a, sizeof *a);
}

size_t coax_arena_size(const coax_arena *a) { return a ? a->total : 0; }

const coax_allocator *coax_arena_allocator(const coax_arena *a)
{
    return arena_alloc_of(a);
}

void *coax_arena_alloc(coax_arena *a, size_t size)
{
    size = (size + 7) & ~(size_t)7;
    if (size == 0) size = 8;
    chunk *c = a->head;
    if (c && c->size - ARENA_HDR - c->used >= size) {
        void *p = (char *)c + ARENA_HDR + c->used;
        c->used += size;
        return p;
    }
    size_t chunk_size = a->next_chunk ? a->next_chunk : ARENA_FIRST_CHUNK;
    if (size > SIZE_MAX - ARENA_HDR - chunk_size) return NULL;
    bool big = size > chunk_size / 4;
    size_t csize = ARENA_HDR + (big ? size : chunk_size);
    chunk *n = coax_alloc_raw(arena_alloc_of(a), csize);
    if (!n) return NULL;
    n->size = csize;
    n->used = size;
    n->serial = ++a->serial;
    a->total += csize;
    if (!big && chunk_size < ARENA_MAX_CHUNK) a->next_chunk = chunk_size * 2;
    else if (!big) a->next_chunk = chunk_size;
    if (big && c) { /* keep the current chunk in front: it still has room */
        n->next = c->next;
        c->next = n;
    } else {
        n->next = c;
        a->head = n;
    }
    return (char *)n + ARENA_HDR;
}

coax_arena_mark coax_arena_get_mark(const coax_arena *a)
{
    return (coax_arena_mark){a->serial, a->head ? a->head->used : 0, a->head};
}

void coax_arena_rewind(coax_arena *a, coax_arena_mark m)
{
    const coax_allocator *al = arena_alloc_of(a);
    chunk **link = &a->head;
    while (*link) {
        chunk *c = *link;
        if (c->serial > m.serial) {
            *link = c->next;
            a->total -= c->size;
            coax_free_raw(al, c, c->size);
        } else {
            link = &c->next;
        }
    }
    if (a->head && a->head == m.head) a->head->used = m.used;
}

bool coax_arena_adopt(coax_arena *a, void *block, size_t size)
{
    /* The block becomes a full chunk: its header is a small chunk of its own
    ** that points at it and frees it with the arena. */
    adopted *r = coax_arena_alloc(a, sizeof *r);
    if (!r) return false;
    r->block = block;
    r->size = size;
    r->next = a->adopted;
    a->adopted = r;
    a->total += size;
    return true;
}

char *coax_arena_strdup(coax_arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX) return NULL;
    char *p = coax_arena_alloc(a, len + 1);
    if (!p) return NULL;
    if (len) memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

/* ---- buffer ------------------------------------------------------------ */

void coax_buf_init(coax_buf *b, const coax_allocator *alloc)
{
    memset(b, 0, sizeof *b);
    b->alloc = alloc;
}

void coax_buf_free(coax_buf *b)
{
    coax_free_raw(b->alloc, b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = 0;
}

bool coax_buf_reserve(coax_buf *b, size_t extra)
{
    if (b->oom) return false;
    if (extra > SIZE_MAX - b->len - 1) {
        b->oom = true;
        return false;
    }
    size_t need = b->len + extra + 1; /* room for a terminating NUL */
    if (need <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = coax_realloc_raw(b->alloc, b->data, b->cap, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void coax_buf_put(coax_buf *b, const void *data, size_t len)
{
    if (!coax_buf_reserve(b, len)) return;
    if (len) memcpy(b->data + b->len, data, len);
    b->len += len;
}

void coax_buf_putc(coax_buf *b, char c)
{
    if (b->len + 1 < b->cap) {
        b->data[b->len++] = c;
        return;
    }
    coax_buf_put(b, &c, 1);
}

void coax_buf_puts(coax_buf *b, const char *s) { coax_buf_put(b, s, strlen(s)); }

void coax_buf_printf(coax_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        coax_buf_put(b, small, (size_t)n);
        return;
    }
    if (!coax_buf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *coax_buf_take(coax_buf *b, size_t *len)
{
    if (b->oom || !coax_buf_reserve(b, 0)) return NULL;
    b->data[b->len] = '\0';
    char *p = b->data;
    if (len) *len = b->len;
    /* Shrink to the exact size so the caller frees with len + 1. */
    if (b->cap != b->len + 1) {
        char *q = coax_realloc_raw(b->alloc, p, b->cap, b->len + 1);
        if (!q) return NULL; /* the buffer still owns p */
        p = q;
    }
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}
