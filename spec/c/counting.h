/*
** counting.h: the test allocator. It counts live bytes (so a test can check
** nothing leaked: 'live' is 0 after everything is freed) and fails the
** allocation numbered 'fail_at' (curl's torture idea; 0: never), or with
** 'fail_at' -N every allocation from the N-th on (Lua tries a failed
** allocation again after an emergency collection: a host allocator that
** has run dry keeps failing).
**
**   counting c = {0, 0, n};
**   coax_allocator al = COUNTING_ALLOCATOR(&c);
*/
#ifndef COAX_TEST_COUNTING_H
#define COAX_TEST_COUNTING_H
#include <stdlib.h>

#include "coax.h"

typedef struct counting {
    long live, allocs, fail_at;
} counting;

static int c_fails(counting *c)
{
    ++c->allocs;
    return c->allocs == c->fail_at || (c->fail_at < 0 && c->allocs >= -c->fail_at);
}

static void *c_malloc(void *ctx, size_t n)
{
    counting *c = ctx;
    if (c_fails(c)) return NULL;
    c->live += (long)n;
    return malloc(n);
}

static void *c_realloc(void *ctx, void *p, size_t o, size_t n)
{
    counting *c = ctx;
    if (c_fails(c)) return NULL;
    void *q = realloc(p, n);
    if (q) c->live += (long)n - (long)o;
    return q;
}

static void c_free(void *ctx, void *p, size_t n)
{
    counting *c = ctx;
    if (p) c->live -= (long)n;
    free(p);
}

#define COUNTING_ALLOCATOR(c) ((coax_allocator){c_malloc, c_realloc, c_free, (c)})
#endif
