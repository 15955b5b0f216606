/*
** sized.h: a strict host allocator for the attack tests. Each block carries
** its size in a header, so a free or realloc told another size than the
** block's is counted ('wrong_size'); malloc(0) and realloc to 0 return NULL,
** as some hosts' do (C leaves it to the implementation; 'zero' counts them);
** every realloc moves the block and poisons the old one. It fails the call
** numbered 'fail_at' (0: never), and with 'every' set every every-th call
** after the first 'from', so each recovery meets the next failure.
**
**   sized st = {.fail_at = k};   or   sized st = {.every = n, .from = m};
**   coax_allocator al = SIZED_ALLOCATOR(&st);
*/
#ifndef COAX_TEST_SIZED_H
#define COAX_TEST_SIZED_H
#include <stdlib.h>
#include <string.h>

#include "coax.h"

typedef struct sized {
    long live, calls, wrong_size, zero, fail_at, every, from;
} sized;

#define SIZED_HEADER 16

static int s_fails(sized *st)
{
    ++st->calls;
    return st->calls == st->fail_at || (st->every && st->calls > st->from && (st->calls - st->from) % st->every == 0);
}

static void *s_block(sized *st, size_t n)
{
    if (s_fails(st) || n == 0) {
        st->zero += n == 0;
        return NULL;
    }
    unsigned char *p = malloc(n + SIZED_HEADER);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    st->live += (long)n;
    return p + SIZED_HEADER;
}

static void s_release(sized *st, void *q, size_t n)
{
    unsigned char *p = (unsigned char *)q - SIZED_HEADER;
    size_t had;
    memcpy(&had, p, sizeof had);
    if (had != n) st->wrong_size++;
    st->live -= (long)had;
    memset(p, 0xA5, had + SIZED_HEADER);
    free(p);
}

static void *s_malloc(void *ctx, size_t n) { return s_block(ctx, n); }

static void *s_realloc(void *ctx, void *q, size_t o, size_t n)
{
    sized *st = ctx;
    if (!q) return s_block(st, n);
    void *r = s_block(st, n);
    if (!r) return NULL;
    memcpy(r, q, o < n ? o : n);
    s_release(st, q, o);
    return r;
}

static void s_free(void *ctx, void *q, size_t n)
{
    if (q) s_release(ctx, q, n);
}

#define SIZED_ALLOCATOR(st) ((coax_allocator){s_malloc, s_realloc, s_free, (st)})
#endif
