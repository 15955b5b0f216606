/*
** compiled.h: the compilation context shared by resolve.c (documents,
** resources, anchors, references) and compile.c (keywords).
*/
#ifndef COAX_SCHEMA_CC_H
#define COAX_SCHEMA_CC_H

#include "schema/schema.h"
#include "schema/map.h"

/* What compilation knows of one subschema position in a document. */
typedef struct sinfo {
    const coax_value *v;
    sres *res;       /* the resource it belongs to (nearest $id) */
    sloc loc;        /* its JSON Pointer from res->root */
    snode *node;     /* compiled, once asked for */
} sinfo;

/* coax_schema_options.max_uri_bytes when 0: each resolution reads its
** base, so a root "$id" of L bytes under N relative "$id"s is N * L bytes. */
#define CC_DEFAULT_MAX_URI_BYTES ((size_t)64 << 20)

typedef struct cc {
    coax_schema *s;
    coax_arena *a;
    const coax_schema_options *opt;
    int default_draft;
    size_t max_depth;
    smap resources; /* absolute URI without fragment -> sres */
    smap anchors;   /* (interned document URI, name) -> sanchor (names.c) */
    smap uris;      /* document URI -> its first copy: one pointer per distinct URI */
    smap docs;      /* sres * -> what references and anchors made in it reuse (sdoc) */
    size_t uri_bytes;     /* URI text read resolving identifiers and references so far */
    size_t max_uri_bytes; /* the bound on it: past it, COAX_ELIMIT */
    smap infos;     /* coax_value * -> sinfo */
    smap members;   /* object -> smap of its members by name (the first of each), for references */
    snode **work;   /* compiled nodes whose keywords are still to compile */
    size_t nwork, cwork;
    snode **all;    /* every node, by id */
    size_t nall, call;
    coax_error *err;
    coax_code rc;   /* the first failure; compilation stops at it */
    int decimal;    /* decimal.c's count agrees with this PCRE2: 0 not asked yet, 1 yes, -1 no */
    const char *tnames[128]; /* the text of each set of "type" names written so far (program.c) */
    size_t ntnames[128];
} cc;

/* The member names of a subschema as a 64-bit filter. Scanning and
** compiling ask each subschema for every keyword they know (some forty),
** and most are absent: a name the filter lacks is known absent without a
** scan of the members. */
typedef struct cc_keys {
    const coax_value *o; /* NULL: not an object */
    uint64_t bits;
} cc_keys;

static inline uint64_t cc_key_bit(const char *k, size_t len)
{
    return (uint64_t)1 << ((len * 7u + (unsigned char)k[0] * 3u + (unsigned char)k[len - 1]) & 63u);
}

static inline cc_keys cc_keys_of(const coax_value *o)
{
    cc_keys ks = {NULL, 0};
    if (o->type != COAX_OBJECT) return ks;
    ks.o = o;
    for (size_t i = 0; i < o->len; i++) {
        const coax_member *m = &o->u.members[i];
        ks.bits |= m->klen ? cc_key_bit(m->key, m->klen) : 0;
    }
    return ks;
}

/* The member named 'k' (the first of that name), or NULL. */
static inline const coax_value *cc_key(const cc_keys *ks, const char *k)
{
    size_t len = strlen(k);
    if (!ks->o || (len && !(ks->bits & cc_key_bit(k, len)))) return NULL;
    return coax_object_get(ks->o, k, len);
}

/* Records the first failure (with a message) and returns its code. */
coax_code cc_fail(cc *c, coax_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* cc_fail with COAX_ENOMEM. */
coax_code cc_oom(cc *c);

/* ---- names (names.c) ---- */

/* What a resource's anchors and its fragment-only references share,
** worked out once per resource. */
typedef struct sdoc {
    const char *own;  /* the resource's URI, interned: its anchors' document */
    const char *base; /* its URI resolved as a base (what "#x" resolves to before the '#'), interned */
    size_t baselen;
    sres *target;     /* the resource 'base' names, once the map of resources had it */
} sdoc;

/* ref[0..len) resolved against 'base' (coax_uri_resolve), charged to
** max_uri_bytes: past it, COAX_ELIMIT. NULL after cc_fail. */
char *cc_uri_resolve(cc *c, const char *base, const char *ref, size_t len);

/* The interned copy of uri[0..len) (this one, the first time: it must
** live in the arena). NULL after cc_fail. */
const char *cc_intern(cc *c, const char *uri, size_t len);

/* The interned document resource r's anchors are filed under. NULL after cc_fail. */
const char *cc_own_doc(cc *c, const sres *r);

/* The document a "#..." reference made in 'from' names. NULL after cc_fail. */
sdoc *cc_base_doc(cc *c, const sres *from);

/* Files anchor name[0..nlen) at v in document 'doc' (interned; NULL after
** a failure: false); a dynamic one goes into res's list too. The first of
** a name stays. */
bool cc_add_anchor(cc *c, const char *doc, const char *name, size_t nlen, const coax_value *v,
                   sres *res, bool dynamic);

/* The anchor name[0..nlen) of document 'doc' (interned; NULL: a document
** never interned, so no anchor), or NULL. */
sanchor *cc_find_anchor(cc *c, const char *doc, const char *name, size_t nlen);

/* Scans a document whose retrieval URI is 'uri' (absolute or ""), with
** 'draft' for it when it has no "$schema". Returns its root resource, or
** NULL after cc_fail. */
sres *cc_scan_doc(cc *c, const coax_value *doc, const char *uri, int draft, int meta_depth);

/* The info of a subschema value (scanning it as part of 'res' when it was
** not reached by the scan, as a reference into an unknown keyword is). */
sinfo *cc_info(cc *c, const coax_value *v, sres *res, const char *ptr);

/* Resolves a reference made from resource 'from'. On success returns the
** target's info; '*anchor' receives the fragment when it is a plain name
** (else NULL) and '*dynamic' whether that name is a $dynamicAnchor. */
sinfo *cc_resolve(cc *c, const sres *from, const char *ref, size_t len,
                  const char **anchor, bool *dynamic);

/* The compiled node for a subschema value (compiled later, from the work
** list); NULL after cc_fail. */
snode *cc_node(cc *c, sinfo *info);

/* Compiles the keywords of one node (compile.c). */
coax_code cc_compile_node(cc *c, snode *n);

#endif
