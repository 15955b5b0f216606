/*
** location.c: the JSON Pointer of a subschema, written from its chain of
** locations (schema.h, sloc) when an error or a message asks for it. The
** bytes are those the scan once copied for every subschema: each token
** "/keyword", then "/name" with '~' as "~0" and '/' as "~1", or "/index".
*/
#include "schema/schema.h"

/* "/" and the index's digits, as "/%zu" prints them. */
static size_t index_text(char *out, size_t index)
{
    out[0] = '/';
    return 1 + coax_decimal(out + 1, index);
}

/* The bytes 'l' adds to the pointer of its 'up'. */
static size_t token_len(const sloc *l)
{
    size_t n = 1 + strlen(l->kw);
    if (l->key) {
        n += 1 + l->klen;
        for (size_t i = 0; i < l->klen; i++) n += l->key[i] == '~' || l->key[i] == '/';
    }
    if (l->has_index) {
        char t[24];
        n += index_text(t, l->index);
    }
    return n;
}

void coax_sloc_measure(sloc *l)
{
    if (!l->up) {
        l->len = l->klen;
        const char *nul = memchr(l->key, '\0', l->klen);
        l->shown = nul ? (size_t)(nul - l->key) : l->klen;
        return;
    }
    l->len = l->up->len + token_len(l);
    l->shown = l->up->shown;
    if (l->shown < l->up->len) return; /* a NUL above it already ends the string */
    /* a NUL in the name ends the string there (only a name can hold one) */
    const char *nul = l->key ? memchr(l->key, '\0', l->klen) : NULL;
    if (!nul) {
        l->shown = l->len;
        return;
    }
    size_t at = l->up->len + 1 + strlen(l->kw) + 1;
    for (const char *k = l->key; k < nul; k++) at += 1 + (*k == '~' || *k == '/');
    l->shown = at;
}

/* Writes the tokens of 'l' into 'o', which has room for them. */
static void put_tokens(char *o, const sloc *l)
{
    size_t kl = strlen(l->kw);
    *o++ = '/';
    memcpy(o, l->kw, kl);
    o += kl;
    if (l->key) {
        *o++ = '/';
        for (size_t i = 0; i < l->klen; i++) {
            char ch = l->key[i];
            if (ch == '~' || ch == '/') {
                *o++ = '~';
                *o++ = ch == '~' ? '0' : '1';
            } else {
                *o++ = ch;
            }
        }
    }
    if (l->has_index) {
        char t[24];
        size_t n = index_text(t, l->index);
        memcpy(o, t, n);
    }
}

void coax_sloc_put(coax_buf *b, const sloc *l)
{
    if (!coax_buf_reserve(b, l->len + 1)) return;
    char *at = b->data + b->len;
    /* each location fills its own span, from the innermost out */
    for (const sloc *p = l; p; p = p->up) {
        if (p->up) put_tokens(at + p->up->len, p);
        else memcpy(at, p->key, p->klen);
    }
    b->len += l->shown;
}

void coax_snode_put_abs(coax_buf *b, const snode *n)
{
    coax_buf_put(b, n->res->uri, n->res->urilen);
    coax_buf_putc(b, '#');
    coax_sloc_put(b, n->loc);
}
