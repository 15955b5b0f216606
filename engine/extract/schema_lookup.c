/*
** schema_lookup.c: the schema side of coercion: keywords looked up in the
** schema document by an error's keywordLocation, local "$ref"s followed
** (anything else is not guessed at), large schema objects indexed.
*/
#include "extract/coerce.h"
#include "base/hash.h"

#include <stdlib.h>

const coax_value *coerce_member(const coax_value *obj, const char *key)
{
    return obj && obj->type == COAX_OBJECT ? coax_object_get(obj, key, strlen(key)) : NULL;
}

/* Drawn once: a clock read per object would cost more than the lookups it
** serves. */
uint64_t coerce_seed(coerce_ctx *c)
{
    if (!c->docidx_seed) c->docidx_seed = coax_hash_seed(c) | 1;
    return c->docidx_seed;
}

/* The member of the schema object 'obj' named key[0..n): a scan for a small
** object, else through one of the latest indexes (built on first use, in
** the arena). */
static const coax_value *doc_member(coerce_ctx *c, const coax_value *obj, const char *key, size_t n)
{
    if (obj->len <= 16) return coax_object_get(obj, key, n);
    const size_t count = sizeof c->docidx / sizeof *c->docidx;
    struct coerce_doc_index *x = NULL;
    for (size_t i = 0; i < count && !x; i++)
        if (c->docidx[i].members == obj->u.members) x = &c->docidx[i];
    if (!x) {
        size_t cap = 32;
        while (cap < (size_t)obj->len * 2) cap *= 2;
        uint32_t *slot = coax_arena_alloc(c->arena, cap * sizeof *slot);
        if (!slot) return coax_object_get(obj, key, n);
        memset(slot, 0, cap * sizeof *slot);
        coerce_seed(c);
        for (uint32_t i = 0; i < obj->len; i++) {
            const coax_member *m = &obj->u.members[i];
            size_t at = (size_t)coax_hash_bytes(m->key, m->klen, c->docidx_seed) & (cap - 1);
            while (slot[at]) at = (at + 1) & (cap - 1);
            slot[at] = i + 1;
        }
        x = &c->docidx[c->docidx_next++ % count];
        *x = (struct coerce_doc_index){obj->u.members, slot, cap - 1};
    }
    for (size_t at = (size_t)coax_hash_bytes(key, n, c->docidx_seed) & x->mask; x->slot[at]; at = (at + 1) & x->mask) {
        const coax_member *m = &obj->u.members[x->slot[at] - 1];
        if (m->klen == n && !memcmp(m->key, key, n)) return &m->value;
    }
    return NULL;
}

/* The value at JSON pointer p[0..len) in the schema document, as
** coax_pointer_get finds it (the first of equal keys), but each object's
** member through doc_member: a reply's n errors behind n "$ref"s into
** one "$defs" of n entries cost n lookups, not n scans of n members. */
static const coax_value *doc_pointer(coerce_ctx *c, const coax_value *doc, const char *p, size_t len)
{
    if (len && p[0] != '/') return NULL;
    const coax_value *v = doc;
    char *tok = NULL; /* an escaped token, unescaped; no longer than the pointer */
    for (size_t i = 0; i < len;) {
        size_t start = ++i;
        bool escaped = false;
        while (i < len && p[i] != '/') {
            if (p[i] == '~') {
                if (i + 1 >= len || (p[i + 1] != '0' && p[i + 1] != '1')) return NULL;
                escaped = true;
                i += 2;
            } else {
                i++;
            }
        }
        const char *t = p + start;
        size_t tlen = i - start;
        if (escaped) {
            if (!tok && !(tok = coax_arena_alloc(c->arena, len))) return NULL;
            size_t n = 0;
            for (size_t k = 0; k < tlen; k++) tok[n++] = t[k] == '~' ? (t[++k] == '1' ? '/' : '~') : t[k];
            t = tok, tlen = n;
        }
        if (v->type == COAX_OBJECT) {
            v = doc_member(c, v, t, tlen);
        } else if (v->type == COAX_ARRAY) {
            if (tlen == 0 || (tlen > 1 && t[0] == '0')) return NULL;
            size_t idx = 0;
            for (size_t k = 0; k < tlen; k++) {
                if (t[k] < '0' || t[k] > '9' || idx > (SIZE_MAX - 9) / 10) return NULL;
                idx = idx * 10 + (size_t)(t[k] - '0');
            }
            v = idx < v->len ? &v->u.items[idx] : NULL;
        } else {
            return NULL;
        }
        if (!v) return NULL;
    }
    return v;
}

const coax_value *coerce_local_ref(coerce_ctx *c, const coax_value *doc, const coax_value *ref)
{
    if (!ref || ref->type != COAX_STRING || ref->len == 0 || ref->u.text[0] != '#') return NULL;
    if (memchr(ref->u.text, '%', ref->len)) return NULL;
    if (c) return doc_pointer(c, doc, ref->u.text + 1, ref->len - 1);
    const coax_value *out;
    if (coax_pointer_get(doc, ref->u.text + 1, ref->len - 1, &out)) return NULL;
    return out;
}

const coax_value *coerce_deref(coerce_ctx *c, const coax_value *doc, const coax_value *s)
{
    for (int hops = 0; s && hops < 16; hops++) {
        const coax_value *ref = coerce_member(s, "$ref");
        if (!ref) return s;
        s = coerce_local_ref(c, doc, ref);
    }
    return NULL;
}

bool coerce_keyword_at(coerce_ctx *c, const coax_value *doc, const char *loc, const coax_value **parent,
                              char *kw, size_t kwcap, const coax_value **value)
{
    const coax_value *cur = doc, *holder = NULL;
    const char *p = loc;
    if (*p == '\0') return false;
    while (*p == '/') {
        const char *s = ++p;
        while (*p && *p != '/') p++;
        size_t n = 0;
        for (const char *c = s; c < p; c++) { /* unescape the token */
            char ch = *c;
            if (ch == '~' && c + 1 < p) ch = *++c == '1' ? '/' : '~';
            if (n + 1 >= kwcap) return false;
            kw[n++] = ch;
        }
        kw[n] = '\0';
        if (!strcmp(kw, "$ref")) {
            cur = coerce_local_ref(c, doc, cur->type == COAX_OBJECT ? doc_member(c, cur, "$ref", 4) : NULL);
            if (!cur) return false;
            continue;
        }
        if (!strcmp(kw, "$dynamicRef") || !strcmp(kw, "$recursiveRef")) return false;
        holder = cur;
        /* Inside an embedded resource "#/..." refers to that resource, not
        ** to the document: do not look keywords up there. */
        if (cur != doc && cur->type == COAX_OBJECT && doc_member(c, cur, "$id", 3)) return false;
        if (cur->type == COAX_OBJECT) {
            cur = doc_member(c, cur, kw, n);
        } else if (cur->type == COAX_ARRAY) {
            char *end;
            unsigned long i = strtoul(kw, &end, 10);
            cur = *end ? NULL : coax_array_get(cur, i);
        } else {
            cur = NULL;
        }
        if (!cur) return false;
    }
    *parent = holder;
    *value = cur;
    return holder != NULL;
}
