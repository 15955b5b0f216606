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

typedef struct cc {
    coax_schema *s;
    coax_arena *a;
    const coax_schema_options *opt;
    int default_draft;
    size_t max_depth;
    smap resources; /* absolute URI without fragment -> sres */
    smap anchors;   /* "uri#name" -> sanchor */
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

/* Records the first failure (with a message) and returns its code. */
coax_code cc_fail(cc *c, coax_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

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
