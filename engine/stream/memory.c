/*
** memory.c: what every file of the streaming reader uses: growing arrays in
** the reader's arena, JSON Pointers, and failing (memory, limits) so that
** the reader stays failed. The lowest file of engine/stream/: reader.c
** calls partial.c, which calls complete.c; all three call this one.
*/
#include "stream/reader.h"

#include <stdio.h>

/* ---- the reader's arena, from one reply to the next ----------------------
** A reader's arena grows to a few times the reply (values, the candidate's
** text, the root's extraction). Freed with the reader, its blocks go back to
** the C library, which gives the pages back to the system, and the next
** reply's reader takes them again page fault by page fault: about a third
** of the time of a 100 KB reply. So a caller that reads reply after reply
** (a session) lends each reader the same arena (stream_options.arena),
** which the reader resets, not frees; blocks past SPARE_MAX go back. No
** state outlives the caller's: no globals, no thread-locals. */

#define SPARE_MAX ((size_t)8 << 20)

coax_arena *stream_arena_take(const coax_allocator *alloc, coax_arena *lent)
{
    if (lent) {
        coax_arena_reset(lent);
        return lent;
    }
    return coax_arena_new(alloc);
}

void stream_arena_give(coax_arena *a, const coax_arena *lent)
{
    if (!a) return;
    if (a != lent) {
        coax_arena_free(a);
        return;
    }
    coax_arena_reset(a);
    if (coax_arena_size(a) > SPARE_MAX) coax_arena_trim(a);
}

coax_code stream_oom(stream_reader *r, coax_error *err)
{
    return stream_limit(r, COAX_ENOMEM, err, "out of memory reading a streamed reply");
}

coax_code stream_limit(stream_reader *r, coax_code code, coax_error *err, const char *fmt, ...)
{
    r->failed = code;
    r->seek = STREAM_SEEK_DONE;
    va_list ap;
    va_start(ap, fmt);
    coax_failv(&r->fail_err, code, r->bytes, fmt, ap);
    va_end(ap);
    if (err) *err = r->fail_err;
    return code;
}

bool stream_grow_to(stream_reader *r, void **p, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap * 2 : 8;
    while (n < need) n *= 2;
    void *q = coax_arena_alloc(r->ar, n * size);
    if (!q) return false;
    if (*cap) memcpy(q, *p, *cap * size);
    *p = q;
    *cap = n;
    return true;
}

/* '/' and 'key' escaped (~0, ~1) at s + o; the end. */
static size_t put_token(char *s, size_t o, const char *key, size_t klen)
{
    s[o++] = '/';
    for (size_t i = 0; i < klen; i++) {
        if (key[i] == '~' || key[i] == '/') {
            s[o++] = '~';
            s[o++] = key[i] == '~' ? '0' : '1';
        } else {
            s[o++] = key[i];
        }
    }
    return o;
}

char *stream_pointer(coax_arena *a, const char *parent, size_t plen, const char *key, size_t klen, size_t index,
                     size_t *outlen)
{
    char num[24];
    if (!key) { /* the index's digits */
        klen = coax_decimal(num, index);
        key = num;
    }
    size_t extra = 0;
    for (size_t i = 0; i < klen; i++) extra += key[i] == '~' || key[i] == '/';
    size_t n = plen + 1 + klen + extra;
    char *s = coax_arena_alloc(a, n + 1);
    if (!s) return NULL;
    memcpy(s, parent, plen);
    size_t o = put_token(s, plen, key, klen);
    s[o] = '\0';
    if (outlen) *outlen = o;
    return s;
}

/* The bytes of the pointer token naming child 'index' or 'key' of a frame. */
static size_t token_len(const char *key, size_t klen, size_t index)
{
    char num[24];
    if (!key) return coax_decimal(num, index);
    size_t n = klen;
    for (size_t i = 0; i < klen; i++) n += key[i] == '~' || key[i] == '/';
    return n;
}

/* The frames above d that have no pointer yet get theirs with d's: each
** open frame's pointer is a prefix of its child's, so one string holds them
** all (a frame's is its first plen bytes, never NUL-terminated but d's).
** Built apart, each copied its parent's whole: d levels of k-byte keys took
** d^2 k / 2 bytes (500 levels of 1,000 bytes: 125 MB for a 500 KB reply). */
const char *frame_ptr(stream_reader *r, size_t d)
{
    size_t from = d;
    while (!r->frames[from].ptr) from--; /* the root's is "" */
    if (from == d) return r->frames[d].ptr;
    size_t len = r->frames[from].plen;
    for (size_t j = from; j < d; j++) {
        const sframe *p = &r->frames[j];
        len += 1 + token_len(p->object ? p->key : NULL, p->klen, p->nraw);
    }
    char *s = coax_arena_alloc(r->ar, len + 1);
    if (!s) return NULL;
    memcpy(s, r->frames[from].ptr, r->frames[from].plen);
    size_t o = r->frames[from].plen;
    for (size_t j = from; j < d; j++) {
        const sframe *p = &r->frames[j];
        char num[24];
        const char *key = p->object ? p->key : num;
        size_t klen = p->object ? p->klen : coax_decimal(num, p->nraw);
        o = put_token(s, o, key, klen);
        r->frames[j + 1].ptr = s;
        r->frames[j + 1].plen = o;
    }
    s[o] = '\0';
    return s;
}
