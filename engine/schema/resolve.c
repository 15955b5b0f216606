/*
** resolve.c: schema documents as JSON Schema sees them: drafts chosen
** by "$schema", resources found by "$id", anchors, and references resolved
** to the subschema they name, loading remote documents through the
** embedded meta-schemas, the host's resolver or a folder.
*/
#include "schema/compiled.h"
#include "base/stack.h"
#include "schema/uri.h"
#include "json/pointer.h"

#include <errno.h>
#include <stdio.h>

/* ---- drafts and vocabularies ------------------------------------------ */

static bool has_prefix(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && memcmp(s, p, k) == 0;
}

int coax_draft_of_uri(const char *uri, size_t len)
{
    static const struct {
        const char *path;
        int draft;
    } known[] = {
        {"json-schema.org/draft-04/schema", 4},      {"json-schema.org/draft-06/schema", 6},
        {"json-schema.org/draft-07/schema", 7},      {"json-schema.org/draft/2019-09/schema", 2019},
        {"json-schema.org/draft/2020-12/schema", 2020},
    };
    if (has_prefix(uri, len, "https://")) uri += 8, len -= 8;
    else if (has_prefix(uri, len, "http://")) uri += 7, len -= 7;
    else return 0;
    while (len && uri[len - 1] == '#') len--;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i].path) == len && !memcmp(known[i].path, uri, len)) return known[i].draft;
    return 0;
}

const coax_meta_doc *coax_meta_find(const char *uri, size_t len)
{
    size_t dl = 0;
    while (dl < len && uri[dl] != '#') dl++;
    const char *rest = uri;
    if (has_prefix(uri, dl, "https://")) rest += 8;
    else if (has_prefix(uri, dl, "http://")) rest += 7;
    else return NULL;
    size_t rl = dl - (size_t)(rest - uri);
    for (const coax_meta_doc *m = coax_meta_docs; m->uri; m++) {
        const char *mr = strstr(m->uri, "://") + 3;
        if (strlen(mr) == rl && !memcmp(mr, rest, rl)) return m;
    }
    return NULL;
}

static unsigned vocab_bit(const char *name, size_t len)
{
    static const struct {
        const char *name;
        unsigned bits;
    } v[] = {
        {"https://json-schema.org/draft/2019-09/vocab/core", VOC_CORE},
        {"https://json-schema.org/draft/2019-09/vocab/applicator", VOC_APPLICATOR | VOC_UNEVALUATED},
        {"https://json-schema.org/draft/2019-09/vocab/validation", VOC_VALIDATION},
        {"https://json-schema.org/draft/2019-09/vocab/meta-data", VOC_METADATA},
        {"https://json-schema.org/draft/2019-09/vocab/format", VOC_FORMAT},
        {"https://json-schema.org/draft/2019-09/vocab/content", VOC_CONTENT},
        {"https://json-schema.org/draft/2020-12/vocab/core", VOC_CORE},
        {"https://json-schema.org/draft/2020-12/vocab/applicator", VOC_APPLICATOR},
        {"https://json-schema.org/draft/2020-12/vocab/unevaluated", VOC_UNEVALUATED},
        {"https://json-schema.org/draft/2020-12/vocab/validation", VOC_VALIDATION},
        {"https://json-schema.org/draft/2020-12/vocab/meta-data", VOC_METADATA},
        {"https://json-schema.org/draft/2020-12/vocab/format-annotation", VOC_FORMAT},
        {"https://json-schema.org/draft/2020-12/vocab/format-assertion", VOC_FORMAT | VOC_FORMAT_ASSERT},
        {"https://json-schema.org/draft/2020-12/vocab/content", VOC_CONTENT},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (strlen(v[i].name) == len && !memcmp(v[i].name, name, len)) return v[i].bits;
    return 0;
}

static const coax_value *member(const coax_value *obj, const char *key)
{
    return obj->type == COAX_OBJECT ? coax_object_get(obj, key, strlen(key)) : NULL;
}

static sres *load_doc(cc *c, const char *uri, int draft, int meta_depth);

/* The draft and vocabularies of a resource root with "$schema" 'sv'. */
static bool draft_of(cc *c, const coax_value *sv, int *draft, unsigned *vocab, int meta_depth)
{
    if (sv->type != COAX_STRING) {
        cc_fail(c, COAX_ESCHEMA, "invalid schema: \"$schema\" must be a string");
        return false;
    }
    int d = coax_draft_of_uri(sv->u.text, sv->len);
    if (d) {
        *draft = d;
        *vocab = VOC_ALL;
        return true;
    }
    if (strstr(sv->u.text, "json-schema.org/draft-03/")) {
        cc_fail(c, COAX_ESCHEMA, "unsupported draft: %s (coax implements 4, 6, 7, 2019-09, 2020-12)",
                sv->u.text);
        return false;
    }
    if (meta_depth > 8) {
        cc_fail(c, COAX_ESCHEMA, "meta-schema chain too long at %s", sv->u.text);
        return false;
    }
    /* a custom meta-schema: its own draft, and its $vocabulary */
    char *uri = cc_uri_resolve(c, "", sv->u.text, sv->len);
    if (!uri) return false;
    uri[coax_uri_doc_len(uri)] = '\0';
    sres *m = smap_get(&c->resources, uri, strlen(uri));
    if (!m) m = load_doc(c, uri, *draft, meta_depth + 1);
    if (!m) {
        cc_fail(c, COAX_ESCHEMA, "unknown meta-schema \"%s\"", sv->u.text);
        return false;
    }
    *draft = m->draft;
    *vocab = VOC_ALL;
    const coax_value *voc = member(m->root, "$vocabulary");
    if (voc && voc->type == COAX_OBJECT && m->draft >= 2019) {
        unsigned bits = VOC_CORE;
        for (size_t i = 0; i < voc->len; i++) {
            const coax_member *mb = &voc->u.members[i];
            unsigned b = vocab_bit(mb->key, mb->klen);
            if (!b && mb->value.type == COAX_BOOL && mb->value.u.boolean) {
                cc_fail(c, COAX_ESCHEMA, "meta-schema %s requires the unknown vocabulary %s", uri,
                        mb->key);
                return false;
            }
            bits |= b;
        }
        *vocab = bits;
    }
    return true;
}

/* ---- resources and anchors -------------------------------------------- */

static sres *new_res(cc *c, const char *uri, const coax_value *root, int draft, unsigned vocab)
{
    sres *r = coax_arena_alloc(c->a, sizeof *r);
    if (!r) return cc_oom(c), NULL;
    memset(r, 0, sizeof *r);
    r->uri = uri;
    r->urilen = strlen(uri);
    r->root = root;
    r->draft = draft;
    r->vocab = vocab;
    r->id = c->s->resources ? c->s->resources->id + 1 : 0;
    r->next = c->s->resources;
    c->s->resources = r;
    if (!smap_get(&c->resources, uri, strlen(uri)) &&
        !smap_put(&c->resources, c->a, uri, strlen(uri), r))
        return cc_oom(c), NULL;
    return r;
}

/* ---- the walk ------------------------------------------------------------
** Where each draft keeps subschemas. Only these are scanned for $id and
** anchors: an "$id" inside "enum", "const" or an unknown keyword is data. */

enum { K_ONE, K_ARRAY, K_MAP, K_ITEMS, K_DEPS };

static const struct {
    const char *name;
    uint8_t kind;
    int16_t from, to;
} subkw[] = {
    {"additionalItems", K_ONE, 4, 2019},    {"additionalProperties", K_ONE, 4, 2020},
    {"allOf", K_ARRAY, 4, 2020},            {"anyOf", K_ARRAY, 4, 2020},
    {"oneOf", K_ARRAY, 4, 2020},            {"not", K_ONE, 4, 2020},
    {"items", K_ITEMS, 4, 2019},            {"items", K_ONE, 2020, 2020},
    {"prefixItems", K_ARRAY, 2020, 2020},   {"contains", K_ONE, 6, 2020},
    {"propertyNames", K_ONE, 6, 2020},      {"if", K_ONE, 7, 2020},
    {"then", K_ONE, 7, 2020},               {"else", K_ONE, 7, 2020},
    {"properties", K_MAP, 4, 2020},         {"patternProperties", K_MAP, 4, 2020},
    {"definitions", K_MAP, 4, 2020},        {"$defs", K_MAP, 2019, 2020},
    {"dependencies", K_DEPS, 4, 2020},         {"dependentSchemas", K_MAP, 2019, 2020},
    {"unevaluatedItems", K_ONE, 2019, 2020}, {"unevaluatedProperties", K_ONE, 2019, 2020},
    {"contentSchema", K_ONE, 2019, 2020},
};

static bool is_schema(const coax_value *v) { return v->type == COAX_OBJECT || v->type == COAX_BOOL; }

/* 'here': the location of v, were it no resource of its own (its tokens and
** its up, measured). */
static bool walk_value(cc *c, const sloc *here, const coax_value *v, sres *res, int draft,
                       unsigned vocab, size_t depth, const char *root_uri, int meta_depth);

static bool walk_child(cc *c, const sloc *up, const coax_value *v, sres *res, int draft,
                       unsigned vocab, size_t depth, const char *kw, const char *key,
                       size_t klen, bool index, size_t idx)
{
    sloc here = {up, kw, key, klen, idx, index, 0, 0};
    coax_sloc_measure(&here);
    return walk_value(c, &here, v, res, draft, vocab, depth + 1, NULL, 0);
}

/* Records v's info at 'loc' (the first one stays); returns it, or NULL after cc_fail. */
static sinfo *record(cc *c, const coax_value *v, sres *res, const sloc *loc)
{
    sinfo *i = smap_getp(&c->infos, v);
    if (i) return i;
    i = coax_arena_alloc(c->a, sizeof *i);
    if (!i) return cc_oom(c), NULL;
    *i = (sinfo){v, res, *loc, NULL};
    if (!smap_putp(&c->infos, c->a, v, i)) return cc_oom(c), NULL;
    return i;
}

static bool walk_value(cc *c, const sloc *here, const coax_value *v, sres *res, int draft,
                       unsigned vocab, size_t depth, const char *root_uri, int meta_depth)
{
    if (c->rc) return false;
    if (depth > c->max_depth)
        return cc_fail(c, COAX_EDEPTH, "schema nested deeper than the limit of %zu", c->max_depth),
               false;
    if (coax_stack_short()) return cc_fail(c, COAX_EDEPTH, "schema nested %s", COAX_STACK_WHY), false;
    if (!is_schema(v)) return true;
    if (v->type == COAX_BOOL) {
        if (!res) {
            char *u = coax_arena_strdup(c->a, root_uri, strlen(root_uri));
            if (!u) return cc_oom(c), false;
            if (!(res = new_res(c, u, v, draft, vocab))) return false;
        }
        return record(c, v, res, here) != NULL;
    }
    if (smap_getp(&c->infos, v)) return true; /* already scanned */
    const cc_keys keys = cc_keys_of(v);

    const coax_value *sv = cc_key(&keys, "$schema");
    const coax_value *idv = cc_key(&keys, draft == 4 ? "id" : "$id");
    if (draft <= 7 && cc_key(&keys, "$ref")) idv = NULL; /* $ref overrides its siblings */
    if (idv && idv->type != COAX_STRING) idv = NULL;
    const char *base = res ? res->uri : root_uri;
    sres *nres = NULL;
    if (idv && idv->len && idv->u.text[0] == '#' && draft <= 7) {
        /* a location-independent identifier: an anchor in its resource */
        if (!res) {
            char *u = coax_arena_strdup(c->a, root_uri, strlen(root_uri));
            if (!u) return cc_oom(c), false;
            if (!(nres = new_res(c, u, v, draft, vocab))) return false;
            res = nres;
        }
        if (!cc_add_anchor(c, cc_own_doc(c, res), idv->u.text + 1, idv->len - 1, v, res, false)) return false;
    } else if (idv) {
        char *abs = cc_uri_resolve(c, base, idv->u.text, idv->len);
        if (!abs) return false;
        size_t dl = coax_uri_doc_len(abs);
        if (abs[dl] == '#' && draft <= 7 && abs[dl + 1]) {
            /* "http://x/y#name": an anchor in another document's name */
            abs[dl] = '\0';
            if (!cc_add_anchor(c, cc_intern(c, abs, dl), abs + dl + 1, strlen(abs + dl + 1), v, NULL, false))
                return false;
            if (!res) {
                char *u = coax_arena_strdup(c->a, root_uri, strlen(root_uri));
                if (!u) return cc_oom(c), false;
                if (!(nres = new_res(c, u, v, draft, vocab))) return false;
            }
        } else {
            abs[dl] = '\0';
            if (sv && res && !draft_of(c, sv, &draft, &vocab, meta_depth)) return false;
            if (!(nres = new_res(c, abs, v, draft, vocab))) return false;
            if (!res && root_uri[0] && strcmp(root_uri, abs) &&
                !smap_get(&c->resources, root_uri, strlen(root_uri))) {
                /* the retrieval URI names the document too */
                char *u = coax_arena_strdup(c->a, root_uri, strlen(root_uri));
                if (!u || !smap_put(&c->resources, c->a, u, strlen(u), nres)) return cc_oom(c), false;
            }
        }
    } else if (!res) {
        char *u = coax_arena_strdup(c->a, root_uri, strlen(root_uri));
        if (!u) return cc_oom(c), false;
        if (!(nres = new_res(c, u, v, draft, vocab))) return false;
    }
    /* a resource's own root: its pointer starts again */
    static const sloc root_loc = {NULL, NULL, "", 0, 0, false, 0, 0};
    if (nres) {
        res = nres;
        here = &root_loc;
    }
    if (draft >= 2019) {
        const coax_value *an = cc_key(&keys, "$anchor");
        if (an && an->type == COAX_STRING && !cc_add_anchor(c, cc_own_doc(c, res), an->u.text, an->len, v, res, false))
            return false;
        if (draft >= 2020) {
            an = cc_key(&keys, "$dynamicAnchor");
            if (an && an->type == COAX_STRING &&
                !cc_add_anchor(c, cc_own_doc(c, res), an->u.text, an->len, v, res, true))
                return false;
        } else {
            an = cc_key(&keys, "$recursiveAnchor");
            if (an && an->type == COAX_BOOL && an->u.boolean && res->root == v)
                res->recursive_anchor = true;
        }
    }
    const sinfo *info = record(c, v, res, here);
    if (!info) return false;
    const sloc *up = &info->loc;

    for (size_t k = 0; k < sizeof subkw / sizeof subkw[0]; k++) {
        if (draft < subkw[k].from || draft > subkw[k].to) continue;
        const char *name = subkw[k].name;
        const coax_value *x = cc_key(&keys, name);
        if (!x) continue;
        int kind = subkw[k].kind;
        if (kind == K_ITEMS) kind = x->type == COAX_ARRAY ? K_ARRAY : K_ONE;
        if (kind == K_ONE) {
            if (!walk_child(c, up, x, res, draft, vocab, depth, name, NULL, 0, false, 0))
                return false;
        } else if (kind == K_ARRAY && x->type == COAX_ARRAY) {
            for (size_t i = 0; i < x->len; i++)
                if (!walk_child(c, up, &x->u.items[i], res, draft, vocab, depth, name, NULL, 0, true, i))
                    return false;
        } else if ((kind == K_MAP || kind == K_DEPS) && x->type == COAX_OBJECT) {
            for (size_t i = 0; i < x->len; i++) {
                const coax_member *m = &x->u.members[i];
                if (!walk_child(c, up, &m->value, res, draft, vocab, depth, name, m->key, m->klen,
                                false, 0))
                    return false;
            }
        }
    }
    return true;
}

sres *cc_scan_doc(cc *c, const coax_value *doc, const char *uri, int draft, int meta_depth)
{
    unsigned vocab = VOC_ALL;
    if (!draft) draft = c->default_draft;
    const coax_value *sv = doc->type == COAX_OBJECT ? member(doc, "$schema") : NULL;
    if (sv && !draft_of(c, sv, &draft, &vocab, meta_depth)) return NULL;
    static const sloc doc_loc = {NULL, NULL, "", 0, 0, false, 0, 0};
    if (!walk_value(c, &doc_loc, doc, NULL, draft, vocab, 0, uri, meta_depth)) return NULL;
    sinfo *i = smap_getp(&c->infos, doc);
    if (!i) {
        cc_fail(c, COAX_ESCHEMA, "invalid schema: a schema must be an object or a boolean");
        return NULL;
    }
    return i->res;
}

sinfo *cc_info(cc *c, const coax_value *v, sres *res, const char *ptr)
{
    sinfo *i = smap_getp(&c->infos, v);
    if (i) return i;
    if (!is_schema(v)) return NULL;
    /* the pointer the reference named (it stays in the arena) */
    sloc here = {NULL, NULL, ptr, strlen(ptr), 0, false, 0, 0};
    coax_sloc_measure(&here);
    bool ok = walk_value(c, &here, v, res, res->draft, res->vocab, 0, res->uri, 0);
    return ok ? smap_getp(&c->infos, v) : NULL;
}

/* ---- loading documents ------------------------------------------------ */

static coax_code read_file(cc *c, const char *path, coax_value **out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return COAX_ENOTFOUND;
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(c->a));
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) coax_buf_put(&b, chunk, n);
    bool bad = ferror(f);
    fclose(f);
    if (b.oom || bad) {
        coax_buf_free(&b);
        return bad ? cc_fail(c, COAX_EIO, "cannot read %s", path) : cc_oom(c);
    }
    coax_error e;
    coax_code rc = coax_parse(c->a, b.data ? b.data : "", b.len, NULL, out, &e);
    coax_buf_free(&b);
    if (rc) return cc_fail(c, rc, "%s: %s (line %u, column %u)", path, e.msg, e.line, e.column);
    return COAX_OK;
}

static coax_code from_dir(cc *c, const char *uri, coax_value **out)
{
    const char *dir = c->opt ? c->opt->remote_dir : NULL;
    const char *base = c->opt ? c->opt->remote_base : NULL;
    if (!dir || !base) return COAX_ENOTFOUND;
    size_t bl = strlen(base);
    if (strncmp(uri, base, bl)) return COAX_ENOTFOUND;
    const char *rest = uri + bl;
    if (strstr(rest, "..") || strchr(rest, '?') || strchr(rest, '\\')) return COAX_ENOTFOUND;
    coax_buf p;
    coax_buf_init(&p, coax_arena_allocator(c->a));
    coax_buf_puts(&p, dir);
    if (p.len && p.data[p.len - 1] != '/' && rest[0] != '/') coax_buf_putc(&p, '/');
    coax_buf_puts(&p, rest);
    coax_buf_putc(&p, '\0');
    coax_code rc = p.oom ? cc_oom(c) : read_file(c, p.data, out);
    coax_buf_free(&p);
    return rc;
}

static sres *load_doc(cc *c, const char *uri, int draft, int meta_depth)
{
    coax_value *doc = NULL;
    const coax_meta_doc *m = coax_meta_find(uri, strlen(uri));
    if (m) {
        coax_error e;
        coax_code rc = coax_parse(c->a, m->text, m->len, NULL, &doc, &e);
        if (rc) return cc_fail(c, rc, "embedded meta-schema %s: %s", m->uri, e.msg), NULL;
        sres *r = smap_get(&c->resources, m->uri, strlen(m->uri));
        if (!r) r = cc_scan_doc(c, doc, m->uri, 0, meta_depth);
        if (r && !smap_get(&c->resources, uri, strlen(uri)) &&
            !smap_put(&c->resources, c->a, uri, strlen(uri), r))
            return cc_oom(c), NULL;
        return r;
    }
    coax_code rc = COAX_ENOTFOUND;
    if (c->opt && c->opt->resolve) {
        coax_error e;
        memset(&e, 0, sizeof e);
        rc = c->opt->resolve(c->opt->resolve_ud, uri, c->a, &doc, &e);
        if (rc && rc != COAX_ENOTFOUND)
            return cc_fail(c, rc, "resolving %s: %s", uri, e.msg[0] ? e.msg : coax_strerror(rc)), NULL;
    }
    if (rc == COAX_ENOTFOUND) rc = from_dir(c, uri, &doc);
    if (rc) return NULL;
    sres *r = cc_scan_doc(c, doc, uri, draft, meta_depth);
    if (r && !smap_get(&c->resources, uri, strlen(uri)) &&
        !smap_put(&c->resources, c->a, uri, strlen(uri), r))
        return cc_oom(c), NULL;
    return r;
}

/* ---- references -------------------------------------------------------- */

/* The member of 'obj' named key[0..klen), the first of that name, as
** coax_pointer_get finds it. A large object is indexed the first time a
** reference walks through it: n references into n "$defs" were n scans. */
static const coax_value *member_lookup(void *ud, const coax_value *obj, const char *key, size_t klen)
{
    cc *c = ud;
    if (obj->len < 16) {
        for (size_t i = 0; i < obj->len; i++) {
            const coax_member *m = &obj->u.members[i];
            if (m->klen == klen && !memcmp(m->key, key, klen)) return &m->value;
        }
        return NULL;
    }
    smap *index = smap_getp(&c->members, obj);
    if (!index) {
        if (!(index = coax_arena_alloc(c->a, sizeof *index))) return cc_oom(c), NULL;
        memset(index, 0, sizeof *index);
        for (size_t i = 0; i < obj->len; i++) {
            const coax_member *m = &obj->u.members[i];
            if (smap_get(index, m->key, m->klen)) continue; /* the first one stays */
            if (!smap_put(index, c->a, m->key, m->klen, (void *)&m->value)) return cc_oom(c), NULL;
        }
        if (!smap_putp(&c->members, c->a, obj, index)) return cc_oom(c), NULL;
    }
    return smap_get(index, key, klen);
}

/* The interned copy of doc[0..dl) (NULL when none was made): a "#..."
** reference ('self' its resource's) has it without hashing the URI. */
static const char *doc_key(cc *c, const sdoc *self, const char *doc, size_t dl)
{
    return self ? self->base : smap_get(&c->uris, doc, dl);
}

sinfo *cc_resolve(cc *c, const sres *from, const char *ref, size_t len, const char **anchor,
                  bool *dynamic)
{
    *anchor = NULL;
    *dynamic = false;
    /* the reference resolved: document doc[0..dl), fragment frag (up to a NUL, as written) */
    const char *doc, *frag;
    size_t dl;
    sdoc *self = NULL;
    if (len && ref[0] == '#') {
        if (!(self = cc_base_doc(c, from))) return NULL;
        doc = self->base;
        dl = self->baselen;
        frag = ref + 1;
    } else {
        char *abs = cc_uri_resolve(c, from->uri, ref, len);
        if (!abs) return NULL;
        dl = coax_uri_doc_len(abs);
        frag = abs[dl] == '#' ? abs + dl + 1 : "";
        abs[dl] = '\0';
        doc = abs;
    }
    const char *nul = self ? memchr(frag, '\0', len - 1) : NULL;
    size_t fl = !self ? strlen(frag) : nul ? (size_t)(nul - frag) : len - 1;
    size_t flen;
    char *fdec = coax_uri_unescape(c->a, frag, fl, &flen);
    if (!fdec) return cc_oom(c), NULL;
    bool named = flen && fdec[0] != '/';
    sanchor *an = named ? cc_find_anchor(c, doc_key(c, self, doc, dl), frag, fl) : NULL;
    if (c->rc) return NULL;
    if (an) {
        *anchor = an->name;
        *dynamic = an->dynamic;
        sinfo *i = smap_getp(&c->infos, an->v);
        if (i) return i;
    }
    sres *r = self ? self->target : NULL;
    if (!r && (r = smap_get(&c->resources, doc, dl)) && self) self->target = r; /* the first one stays */
    if (!r && !c->rc) r = load_doc(c, doc, from->draft, 0);
    if (!r) {
        if (!c->rc) cc_fail(c, COAX_ESCHEMA, "unresolvable reference \"%.*s\"", (int)len, ref);
        return NULL;
    }
    const coax_value *target = NULL;
    if (flen == 0) {
        target = r->root;
    } else if (fdec[0] == '/') {
        char *scratch = coax_arena_alloc(c->a, flen);
        if (!scratch) return cc_oom(c), NULL;
        if (coax_pointer_walk(r->root, fdec, flen, member_lookup, c, scratch, &target) != COAX_OK) target = NULL;
        if (c->rc) return NULL;
    } else {
        /* loading the document may have filed it */
        if (!an) an = cc_find_anchor(c, doc_key(c, self, doc, dl), frag, fl);
        if (an) {
            *anchor = an->name;
            *dynamic = an->dynamic;
            target = an->v;
        }
    }
    if (!target) {
        cc_fail(c, COAX_ESCHEMA, "unresolvable reference \"%.*s\"", (int)len, ref);
        return NULL;
    }
    sinfo *i = cc_info(c, target, r, fdec[0] == '/' ? fdec : "");
    if (!i && !c->rc)
        cc_fail(c, COAX_ESCHEMA, "reference \"%.*s\" does not name a schema", (int)len, ref);
    return i;
}

snode *cc_node(cc *c, sinfo *i)
{
    if (i->node) return i->node;
    snode *n = coax_arena_alloc(c->a, sizeof *n);
    if (!n) return cc_oom(c), NULL;
    memset(n, 0, sizeof *n);
    n->src = i->v;
    n->res = i->res;
    n->kind = i->v->type == COAX_BOOL ? (i->v->u.boolean ? N_TRUE : N_FALSE) : N_OBJECT;
    n->loc = &i->loc;
    n->abslen = i->res->urilen + 1 + i->loc.shown;
    i->node = n;
    if (i->res->root == i->v) i->res->root_node = n;
    if (c->nwork == c->cwork) {
        size_t cap = c->cwork ? c->cwork * 2 : 64;
        snode **w = coax_realloc_raw(c->s->alloc, c->work, c->cwork * sizeof *w, cap * sizeof *w);
        if (!w) return cc_oom(c), NULL;
        c->work = w;
        c->cwork = cap;
    }
    c->work[c->nwork++] = n;
    if (c->nall == c->call) {
        size_t cap = c->call ? c->call * 2 : 64;
        snode **w = coax_realloc_raw(c->s->alloc, c->all, c->call * sizeof *w, cap * sizeof *w);
        if (!w) return cc_oom(c), NULL;
        c->all = w;
        c->call = cap;
    }
    n->id = (uint32_t)c->nall;
    c->all[c->nall++] = n;
    return n;
}
