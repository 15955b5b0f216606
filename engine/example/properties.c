/*
** example/properties.c: an object's property names as the example collects
** them, and the names of a "properties" object, each found through an
** index: a scan for each name, a count of the included ones for each name
** added and a scan of "properties" for each name made an object of n
** names n^2 work (16,000 required names: 1.6 billion instructions), and
** the cap of 1,024 names put on it failed the example ("missing required
** property").
*/
#include "example/example.h"

void ex_names_reset(ex_names *ns)
{
    ns->n = ns->included = 0;
    ns->index = (smap){0};
}

ex_name *ex_name_find(const ex_names *ns, const char *k, size_t kl)
{
    size_t i = (size_t)(uintptr_t)smap_get(&ns->index, k, kl);
    return i ? &ns->v[i - 1] : NULL;
}

void ex_include(ex_names *ns, ex_name *p, bool on)
{
    ns->included = ns->included - p->include + on;
    p->include = on;
}

ex_name *ex_name_add(ex_ctx *c, ex_names *ns, const char *k, size_t kl)
{
    ex_name *p = ex_name_find(ns, k, kl);
    if (p) return p;
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 16;
        ex_name *v = coax_arena_alloc(c->work, cap * sizeof *v);
        if (!v) {
            c->rc = COAX_ENOMEM;
            return NULL;
        }
        if (ns->n) memcpy(v, ns->v, ns->n * sizeof *v);
        ns->v = v, ns->cap = cap;
    }
    if (!smap_put(&ns->index, c->work, k, kl, (void *)(uintptr_t)(ns->n + 1))) {
        c->rc = COAX_ENOMEM;
        return NULL;
    }
    p = &ns->v[ns->n++];
    *p = (ex_name){k, kl, false, false};
    return p;
}

/* A "properties" object with more members than this is looked up through
** an index. */
#define EX_INDEX_MIN 16

/* A large "properties" object's names -> place + 1, unless a name is
** there twice (a value a host built: the parser keeps one of each), when
** it is scanned. */
typedef struct prop_index {
    smap names;
    bool twice;
} prop_index;

bool ex_prop_next(ex_ctx *c, smap *indexes, const coax_value *props, const char *key, size_t kl, size_t *j)
{
    prop_index *ix = props->len > EX_INDEX_MIN ? smap_getp(indexes, props) : NULL;
    if (props->len > EX_INDEX_MIN && !ix) {
        if (!(ix = coax_arena_alloc(c->work, sizeof *ix)) || !smap_putp(indexes, c->work, props, ix)) {
            c->rc = COAX_ENOMEM;
            return false;
        }
        *ix = (prop_index){{0}, false};
        for (size_t m = 0; m < props->len && !ix->twice; m++) {
            const coax_member *x = &props->u.members[m];
            ix->twice = smap_get(&ix->names, x->key, x->klen) != NULL;
            if (!smap_put(&ix->names, c->work, x->key, x->klen, (void *)(uintptr_t)(m + 1))) {
                c->rc = COAX_ENOMEM;
                return false;
            }
        }
    }
    if (ix && !ix->twice) {
        size_t m = (size_t)(uintptr_t)smap_get(&ix->names, key, kl);
        if (!m || m - 1 < *j) return false;
        *j = m - 1;
        return true;
    }
    for (; *j < props->len; ++*j)
        if (props->u.members[*j].klen == kl && !memcmp(props->u.members[*j].key, key, kl)) return true;
    return false;
}
