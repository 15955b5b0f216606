/*
** places.c: places in a value, their JSON Pointers written when one is
** wanted, and what the schema says at the places of some strings, learnt
** by one validation. A valid value cannot tell which keyword let a string
** pass at its place (an enum naming it, or a plain "type": "string"): a
** copy with those strings replaced by a probe value that place may refuse
** can, by the errors the probe meets there. null_text.c probes with null
** and true, placeholder.c with a value no enum names.
*/
#include "extract/coerce.h"

#include <stdio.h>

void extract_put_token(coax_buf *b, const char *k, size_t n)
{
    coax_buf_putc(b, '/');
    for (size_t i = 0; i < n; i++) {
        if (k[i] == '~') coax_buf_put(b, "~0", 2);
        else if (k[i] == '/') coax_buf_put(b, "~1", 2);
        else coax_buf_putc(b, k[i]);
    }
}

void extract_put_index(coax_buf *b, size_t i)
{
    char num[24];
    extract_put_token(b, num, (size_t)snprintf(num, sizeof num, "%zu", i));
}

void extract_put_pointer(coax_buf *b, const extract_frame *f)
{
    if (!f) return;
    extract_put_pointer(b, f->up);
    if (f->key) extract_put_token(b, f->key, f->klen);
    else extract_put_index(b, f->index);
}

/* The walk's state: which strings, what replaces them, how many did. */
typedef struct probing {
    coax_arena *a;
    extract_pick pick;
    void *ctx;
    const coax_value *with;
    size_t count;
} probing;

/* A copy of 'v' (a member of key[0..klen), NULL at the root; an item goes
** by its list's name) with every string pr->pick chooses made pr->with ('v'
** itself when none is under it); NULL when memory ran out. */
static const coax_value *replaced(probing *pr, const coax_value *v, const char *key, size_t klen)
{
    if (v->type == COAX_STRING && pr->pick(pr->ctx, v, key, klen)) {
        pr->count++;
        return pr->with;
    }
    if (v->type != COAX_ARRAY && v->type != COAX_OBJECT) return v;
    size_t before = pr->count;
    const coax_value **sub = coax_arena_alloc(pr->a, (v->len + 1) * sizeof *sub);
    if (!sub) return NULL;
    for (size_t i = 0; i < v->len; i++) {
        const coax_member *m = v->type == COAX_OBJECT ? &v->u.members[i] : NULL;
        if (!(sub[i] = m ? replaced(pr, &m->value, m->key, m->klen) : replaced(pr, &v->u.items[i], key, klen)))
            return NULL;
    }
    if (pr->count == before) return v;
    coax_value *copy = coax_arena_alloc(pr->a, sizeof *copy);
    if (!copy) return NULL;
    *copy = *v;
    if (v->type == COAX_ARRAY) {
        coax_value *items = coax_arena_alloc(pr->a, (v->len + 1) * sizeof *items);
        if (!items) return NULL;
        for (size_t i = 0; i < v->len; i++) items[i] = *sub[i];
        copy->u.items = items;
    } else {
        coax_member *members = coax_arena_alloc(pr->a, (v->len + 1) * sizeof *members);
        if (!members) return NULL;
        for (size_t i = 0; i < v->len; i++) members[i] = v->u.members[i], members[i].value = *sub[i];
        copy->u.members = members;
    }
    return copy;
}

coax_code extract_probe(coerce_ctx *c, const coax_value *v, extract_pick pick, void *ctx, const coax_value *with,
                        smap *errors_at, size_t *count)
{
    probing pr = {.a = c->arena, .pick = pick, .ctx = ctx, .with = with};
    const coax_value *copy = replaced(&pr, v, NULL, 0);
    coax_code rc = !copy ? COAX_ENOMEM : COAX_OK;
    coax_validation out;
    *count = pr.count;
    if (rc || !pr.count || (rc = coax_validate(c->schema, copy, c->arena, 0, &out, c->err))) return rc;
    for (size_t i = out.nerrors; i-- > 0;) { /* pushed last first: each list in the errors' order */
        const char *at = out.errors[i].instance_location;
        size_t n = strlen(at);
        extract_probe_error *node = coax_arena_alloc(c->arena, sizeof *node);
        if (!node) return COAX_ENOMEM;
        *node = (extract_probe_error){&out.errors[i], smap_get(errors_at, at, n)};
        if (!smap_put(errors_at, c->arena, at, n, node)) return COAX_ENOMEM;
    }
    return COAX_OK;
}

void coerce_place_narrow(coerce_place *d, const char *at, size_t len)
{
    if (!d->at) {
        *d = (coerce_place){at, len};
        return;
    }
    size_t m = 0;
    while (m < d->len && m < len && d->at[m] == at[m]) m++;
    if ((m == d->len || d->at[m] == '/') && (m == len || at[m] == '/')) d->len = m;
    else { /* the last boundary both share before they differ: "/a/b" and "/ab" share "" */
        while (m && d->at[--m] != '/') {}
        d->len = m;
    }
}

bool coerce_place_within(const coerce_place *d, const char *at, size_t len)
{
    return !d || !d->at || (len <= d->len && !memcmp(d->at, at, len) && (len == d->len || d->at[len] == '/'));
}
