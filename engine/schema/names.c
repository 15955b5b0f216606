/*
** names.c: the names compilation files schemas under: URIs resolved
** against their base (charged to max_uri_bytes), one interned copy of each
** document URI, and anchors keyed by (that copy, name). A resource's own
** URI is worked out once, for its anchors and its "#..." references: each
** used to copy and hash it again, so N of them under a root "$id" of L
** bytes cost N * L.
*/
#include "schema/compiled.h"
#include "schema/uri.h"

/* coax_uri_resolve, charged to max_uri_bytes by the text it reads: every
** resolution parses its whole base, so N relative "$id"s under a root
** "$id" of L bytes are N absolute URIs of L bytes each, inherently. The
** charge comes first: past the limit, nothing more is read. NULL after
** cc_fail. */
char *cc_uri_resolve(cc *c, const char *base, const char *ref, size_t len)
{
    size_t cost = strlen(base) + len;
    if (cost > c->max_uri_bytes - c->uri_bytes)
        return cc_fail(c, COAX_ELIMIT, "resolving the schema's URIs passed %zu bytes (max_uri_bytes)",
                       c->max_uri_bytes),
               NULL;
    c->uri_bytes += cost;
    char *abs = coax_uri_resolve(c->a, base, ref, len);
    if (!abs) cc_oom(c);
    return abs;
}

/* The one copy of uri[0..len) that anchors are filed under (the first
** seen, which must live in the arena): comparing two documents is then
** comparing pointers. NULL after cc_fail. */
const char *cc_intern(cc *c, const char *uri, size_t len)
{
    const char *u = smap_get(&c->uris, uri, len);
    if (u) return u;
    if (!smap_put(&c->uris, c->a, uri, len, (void *)uri)) return cc_oom(c), NULL;
    return uri;
}

static sdoc *sdoc_of(cc *c, const sres *r)
{
    sdoc *d = smap_getp(&c->docs, r);
    if (d) return d;
    if (!(d = coax_arena_alloc(c->a, sizeof *d))) return cc_oom(c), NULL;
    memset(d, 0, sizeof *d);
    if (!smap_putp(&c->docs, c->a, r, d)) return cc_oom(c), NULL;
    return d;
}

const char *cc_own_doc(cc *c, const sres *r)
{
    sdoc *d = sdoc_of(c, r);
    if (!d) return NULL;
    if (!d->own) d->own = cc_intern(c, r->uri, r->urilen);
    return d->own;
}

/* The key of anchor name[0..nlen) in document 'doc' (interned): the
** document's pointer, then the name and a NUL (the name as a C string is
** key + sizeof doc). '*klen' its length without the NUL. */
static char *anchor_key(cc *c, const char *doc, const char *name, size_t nlen, size_t *klen)
{
    char *key = coax_arena_alloc(c->a, sizeof doc + nlen + 1);
    if (!key) return cc_oom(c), NULL;
    memcpy(key, &doc, sizeof doc);
    memcpy(key + sizeof doc, name, nlen);
    key[sizeof doc + nlen] = '\0';
    *klen = sizeof doc + nlen;
    return key;
}

sanchor *cc_find_anchor(cc *c, const char *doc, const char *name, size_t nlen)
{
    if (!doc) return NULL;
    size_t klen;
    char *key = anchor_key(c, doc, name, nlen, &klen);
    return key ? smap_get(&c->anchors, key, klen) : NULL;
}

bool cc_add_anchor(cc *c, const char *doc, const char *name, size_t nlen, const coax_value *v,
                   sres *res, bool dynamic)
{
    if (!doc) return false;
    size_t klen;
    char *key = anchor_key(c, doc, name, nlen, &klen);
    sanchor *an = coax_arena_alloc(c->a, sizeof *an);
    if (!key || !an) return cc_oom(c), false;
    *an = (sanchor){key + sizeof doc, v, NULL, dynamic};
    if (smap_get(&c->anchors, key, klen)) return true; /* the first one stays */
    if (!smap_put(&c->anchors, c->a, key, klen, an)) return cc_oom(c), false;
    if (dynamic && res) {
        if (res->nanchors == res->canchors) {
            size_t cap = res->canchors ? res->canchors * 2 : 4;
            sanchor *na = coax_arena_alloc(c->a, cap * sizeof *na);
            if (!na) return cc_oom(c), false;
            if (res->nanchors) memcpy(na, res->anchors, res->nanchors * sizeof *na);
            res->anchors = na;
            res->canchors = cap;
        }
        res->anchors[res->nanchors++] = *an;
    }
    return true;
}

/* The document a fragment-only reference ("#...") made in 'from' names:
** from's URI as a base, resolved once per resource (it was resolved, copied
** and hashed again for every such reference). */
sdoc *cc_base_doc(cc *c, const sres *from)
{
    sdoc *d = sdoc_of(c, from);
    if (!d || d->base) return d;
    char *b = cc_uri_resolve(c, from->uri, "", 0);
    if (!b) return NULL;
    d->baselen = strlen(b);
    d->base = cc_intern(c, b, d->baselen);
    return d->base ? d : NULL;
}
