/*
** alloc.c: allocation through the host's allocator, the arena, and the
** growable buffer. Every byte coax allocates passes through here.
*/
#include "base/core.h"

#include <stdio.h>
#include <stdlib.h>

/* Under AddressSanitizer a cached block is poisoned, so a use after a
** reset, a rewind or a freed loan is still caught as it was when the block
** went back to the allocator. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

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

bool coax_grow(const coax_allocator *a, void **arr, size_t *cap, size_t need, size_t elem, void *first)
{
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 32;
    while (ncap < need) ncap *= 2;
    void *p;
    if (*arr && *arr == first) {
        p = coax_alloc_raw(a, ncap * elem);
        if (p) memcpy(p, first, *cap * elem);
    } else {
        p = coax_realloc_raw(a, *arr, *cap * elem, ncap * elem);
    }
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

bool coax_allocator_incomplete(const coax_allocator *a) { return a && (!a->malloc || !a->realloc || !a->free); }

void coax_free(const coax_allocator *alloc, void *ptr, size_t size)
{
    if (!coax_allocator_incomplete(alloc)) coax_free_raw(alloc, ptr, size);
}

/* ---- arena ---------------------------------------------------------------
** Every block the arena takes from its allocator starts with a chunk header.
** Small requests are bumped out of the current chunk; chunks start small
** (most arenas hold one small reply or schema) and double up to a cap, so
** a big document needs few of them. A request larger than a quarter of the
** next chunk gets a chunk of its own, linked behind the current one so the
** current chunk's free space is not wasted.
**
** The arena also lends blocks that are freed one by one (a parser's
** growing stack, a buffer): coax_arena_allocator hands out an allocator
** whose blocks come from the same place. Blocks the arena no longer uses
** (rewound or reset chunks, freed loans) go to its cache and serve the
** next request they fit, so an arena that is reset and used again for the
** same kind of work stops calling its allocator at all. The cache holds at
** most ARENA_CACHE_BLOCKS blocks; coax_arena_trim and coax_arena_free give
** them back. Block sizes are rounded to a quarter of a power of two, so a
** block freed by one call fits the same request of the next. Below
** CACHE_BIG the cache keeps a list for each such size and a bit mask of the
** lists that hold a block, so a request finds the smallest block that fits
** without walking past the smaller ones (a reset arena caches a few dozen
** of them, and a reply takes several); larger blocks, few, are one list
** sorted by size. */

/* Block sizes (block_size) are 64 bytes and up, four to a power of two: a
** list each up to 1 MiB (CACHE_CLASSES of them, a bit each in one word). */
#define CACHE_BIG ((size_t)1 << 20)
#define CACHE_CLASSES (4 * (20 - 6))

typedef struct chunk {
    struct chunk *next;
    size_t size;   /* bytes taken from the allocator, header included */
    size_t used;   /* bytes used after the header (chunks only) */
    size_t serial; /* creation order, for coax_arena_rewind */
} chunk;

/* A loaned block the arena frees with itself (coax_arena_adopt). */
typedef struct adopted {
    struct adopted *next;
    void *block;
    size_t size;
} adopted;

struct coax_arena {
    coax_allocator host; /* what the arena allocates through */
    bool has_host;       /* false: the C library */
    coax_allocator lend; /* coax_arena_allocator: loans from this arena */
    chunk *head;
    adopted *adopted;
    chunk *cache[CACHE_CLASSES]; /* unused blocks below CACHE_BIG, a list for each size (size_class) */
    uint64_t cache_bits;         /* bit c set: cache[c] holds a block */
    chunk *cache_big;            /* unused blocks from CACHE_BIG on, smallest first */
    size_t ncached, cached;
    size_t held; /* bytes taken from the allocator and not given back */
    size_t serial;
    size_t next_chunk; /* the size of the next ordinary chunk */
};

#define ARENA_FIRST_CHUNK ((size_t)1 << 10)
#define ARENA_MAX_CHUNK ((size_t)64 << 10)
#define ARENA_HDR ((sizeof(chunk) + 15) & ~(size_t)15)
#define ARENA_CACHE_BLOCKS 1024

static const coax_allocator *host_of(const coax_arena *a)
{
    return a->has_host ? &a->host : NULL;
}

/* The block size for 'n' bytes: the next multiple of a quarter of a power
** of two (at most 25% more), or 0 on overflow. */
static size_t block_size(size_t n)
{
    if (n <= 64) return 64;
    if (n > SIZE_MAX / 2) return 0;
    int k = 63 - __builtin_clzll((unsigned long long)n); /* 2^k <= n */
    size_t quarter = (size_t)1 << (k - 2);
    return (n + quarter - 1) & ~(quarter - 1);
}

/* The cache list of a block size below CACHE_BIG (a block_size): four to a
** power of two, in size order from 64 bytes. */
static inline unsigned size_class(size_t size)
{
    unsigned k = 63u - (unsigned)__builtin_clzll((unsigned long long)size); /* 2^k <= size, k >= 6 */
    return 4 * (k - 6) + (unsigned)((size >> (k - 2)) & 3);
}

/* Where the smallest cached block of at least 'size' bytes is linked from
** (a list's head, or a link in the big list), or NULL when there is none. */
static chunk **cached_fit(coax_arena *a, size_t size)
{
    if (size < CACHE_BIG) {
        uint64_t m = a->cache_bits & (~0ull << size_class(size));
        if (m) return &a->cache[__builtin_ctzll(m)];
    }
    chunk **link = &a->cache_big; /* every block there is larger than the lists' */
    while (*link && (*link)->size < size) link = &(*link)->next;
    return *link ? link : NULL;
}

static void release(coax_arena *a, chunk *b)
{
    a->held -= b->size;
    coax_free_raw(host_of(a), b, b->size);
}

/* A block of at least 'size' bytes (a block_size): the smallest cached one
** that fits, if it is at most twice the size or 'any' is set, else a new
** one from the allocator. */
static chunk *block_take(coax_arena *a, size_t size, bool any)
{
    chunk **link = cached_fit(a, size), *b = link ? *link : NULL;
    if (b && (any || b->size / 2 <= size)) {
        *link = b->next;
        if (b->size < CACHE_BIG && !b->next) a->cache_bits &= ~(1ull << size_class(b->size));
        a->ncached--;
        a->cached -= b->size;
        UNPOISON((char *)b + ARENA_HDR, b->size - ARENA_HDR);
        return b;
    }
    b = coax_alloc_raw(host_of(a), size);
    if (!b) return NULL;
    b->size = size;
    a->held += size;
    return b;
}

/* Puts an unused block in the cache, or gives it back when the cache is full. */
static void block_put(coax_arena *a, chunk *b)
{
    if (a->ncached >= ARENA_CACHE_BLOCKS) {
        release(a, b);
        return;
    }
    chunk **link = &a->cache_big;
    if (b->size < CACHE_BIG) { /* the newest first among equal sizes, as in the big list */
        unsigned c = size_class(b->size);
        link = &a->cache[c];
        a->cache_bits |= 1ull << c;
    } else {
        while (*link && (*link)->size < b->size) link = &(*link)->next;
    }
    b->next = *link;
    *link = b;
    a->ncached++;
    a->cached += b->size;
    POISON((char *)b + ARENA_HDR, b->size - ARENA_HDR);
}

/* ---- loans: the allocator coax_arena_allocator returns ---- */

static void *lend_malloc(void *ctx, size_t n)
{
    coax_arena *a = ctx;
    size_t size = n <= SIZE_MAX - ARENA_HDR ? block_size(n + ARENA_HDR) : 0;
    chunk *b = size ? block_take(a, size, false) : NULL;
    return b ? (char *)b + ARENA_HDR : NULL;
}

static chunk *loan_block(void *p) { return (chunk *)((char *)p - ARENA_HDR); }

static void lend_free(void *ctx, void *p, size_t n)
{
    (void)n; /* the block knows its size */
    if (p) block_put(ctx, loan_block(p));
}

static void *lend_realloc(void *ctx, void *p, size_t old, size_t n)
{
    if (!p) return lend_malloc(ctx, n);
    if (loan_block(p)->size - ARENA_HDR >= n) return p;
    void *q = lend_malloc(ctx, n);
    if (!q) return NULL;
    memcpy(q, p, old < n ? old : n);
    lend_free(ctx, p, old);
    return q;
}

coax_arena *coax_arena_new(const coax_allocator *alloc)
{
    if (coax_allocator_incomplete(alloc)) return NULL;
    coax_arena *a = coax_alloc_raw(alloc, sizeof *a);
    if (!a) return NULL;
    memset(a, 0, sizeof *a);
    if (alloc) {
        a->host = *alloc;
        a->has_host = true;
    }
    a->lend = (coax_allocator){lend_malloc, lend_realloc, lend_free, a};
    return a;
}

/* Frees everything allocated in the arena into its cache. */
static void arena_clear(coax_arena *a)
{
    for (adopted *r = a->adopted, *next; r; r = next) {
        next = r->next; /* r lives in a chunk, which stays until the loop below */
        lend_free(a, r->block, r->size);
    }
    a->adopted = NULL;
    for (chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        block_put(a, c);
    }
    a->head = NULL;
    a->next_chunk = 0;
}

void coax_arena_reset(coax_arena *a)
{
    if (a) arena_clear(a);
}

void coax_arena_trim(coax_arena *a)
{
    if (!a) return;
    for (chunk **link; (link = cached_fit(a, 64));) { /* smallest first */
        chunk *b = *link;
        *link = b->next;
        if (b->size < CACHE_BIG && !b->next) a->cache_bits &= ~(1ull << size_class(b->size));
        UNPOISON((char *)b + ARENA_HDR, b->size - ARENA_HDR);
        release(a, b);
    }
    a->ncached = a->cached = 0;
}

void coax_arena_free(coax_arena *a)
{
    if (!a) return;
    arena_clear(a);
    coax_arena_trim(a);
    coax_allocator copy = a->host;
    coax_free_raw(a->has_host ? &copy : NULL, a, sizeof *a);
}

size_t coax_arena_size(const coax_arena *a) { return a ? a->held : 0; }

const coax_allocator *coax_arena_allocator(const coax_arena *a)
{
    return &a->lend;
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
    if (size > SIZE_MAX / 4 - ARENA_HDR) return NULL;
    bool big = size > chunk_size / 4;
    chunk *n = big ? block_take(a, block_size(ARENA_HDR + size), false)
                   : block_take(a, chunk_size, true);
    if (!n) return NULL;
    n->used = size;
    n->serial = ++a->serial;
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

bool coax_arena_reserve(coax_arena *a, size_t size)
{
    size = (size + 7) & ~(size_t)7;
    chunk *c = a->head;
    if (c && c->size - ARENA_HDR - c->used >= size) return true;
    if (size > SIZE_MAX / 4 - ARENA_HDR) return false;
    chunk *n = block_take(a, block_size(ARENA_HDR + size), false);
    if (!n) return false;
    n->used = 0;
    n->serial = ++a->serial;
    n->next = c; /* the current chunk's room is left behind it */
    a->head = n;
    return true;
}

coax_arena_mark coax_arena_get_mark(const coax_arena *a)
{
    return (coax_arena_mark){a->serial, a->head ? a->head->used : 0, a->head};
}

void coax_arena_rewind(coax_arena *a, coax_arena_mark m)
{
    chunk **link = &a->head;
    while (*link) {
        chunk *c = *link;
        if (c->serial > m.serial) {
            *link = c->next;
            block_put(a, c);
        } else {
            link = &c->next;
        }
    }
    if (a->head && a->head == m.head) a->head->used = m.used;
}

bool coax_arena_adopt(coax_arena *a, void *block, size_t size)
{
    adopted *r = coax_arena_alloc(a, sizeof *r);
    if (!r) return false;
    r->block = block;
    r->size = size;
    r->next = a->adopted;
    a->adopted = r;
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

void coax_buf_put_grow(coax_buf *b, const void *data, size_t len)
{
    if (!coax_buf_reserve(b, len)) return;
    if (len) memcpy(b->data + b->len, data, len);
    b->len += len;
}

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
