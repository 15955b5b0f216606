/*
** every.h: a test allocator that fails every Nth allocation from a given one on ('every' 0: never), so each
** recovery meets the next failure, and checks the host's side of the contract: each block carries its size in
** a header, and a free or realloc told another size is counted ('wrong_size'); 'live' is 0 once everything is
** freed. Its realloc always moves the block.
**
**   every st = {0, 0, 0, n, from};
**   coax_allocator al = EVERY_ALLOCATOR(&st);
*/
#ifndef COAX_TEST_EVERY_H
#define COAX_TEST_EVERY_H
#include <stdlib.h>
#include <string.h>

#include "coax.h"

typedef struct every {
    long live, calls, wrong_size, every, from;
} every;

#define EVERY_HEADER 16

static void *e_block(every *st, size_t n)
{
    ++st->calls;
    if (n == 0 || (st->every && st->calls > st->from && (st->calls - st->from) % st->every == 0)) return NULL;
    unsigned char *p = malloc(n + EVERY_HEADER);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    st->live += (long)n;
    return p + EVERY_HEADER;
}

static void e_release(every *st, void *q, size_t n)
{
    unsigned char *p = (unsigned char *)q - EVERY_HEADER;
    size_t had;
    memcpy(&had, p, sizeof had);
    if (had != n) st->wrong_size++;
    st->live -= (long)had;
    free(p);
}

static void *e_malloc(void *ctx, size_t n) { return e_block(ctx, n); }

static void *e_realloc(void *ctx, void *q, size_t o, size_t n)
{
    if (!q) return e_block(ctx, n);
    void *r = e_block(ctx, n);
    if (!r) return NULL;
    memcpy(r, q, o < n ? o : n);
    e_release(ctx, q, o);
    return r;
}

static void e_free(void *ctx, void *q, size_t n)
{
    if (q) e_release(ctx, q, n);
}

#define EVERY_ALLOCATOR(st) ((coax_allocator){e_malloc, e_realloc, e_free, (st)})
#endif
