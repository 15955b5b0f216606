/*
** compile.c: coax_schema_compile. Each subschema becomes an snode
** whose keywords are checked and prepared once: counts parsed, patterns
** compiled, references pointed at their target nodes. A work list (not
** recursion) drives it, so reference chains of any length compile in
** bounded stack.
*/
#include "base/stack.h"
#include "schema/decimal.h"
#include "schema/format.h"
#include "schema/compiled.h"
#include "schema/num.h"
#include "schema/program.h"
#include "schema/uri.h"

#include <stdio.h>

static const coax_value *member(const coax_value *o, const char *k)
{
    return o->type == COAX_OBJECT ? coax_object_get(o, k, strlen(k)) : NULL;
}

/* Where a node is, for messages: a JSON Pointer in the schema itself, or
** an absolute URI in another document. Written in the arena, as it is only
** asked for on a failure. */
static const char *where(cc *c, const snode *n)
{
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(c->a));
    coax_snode_put_abs(&b, n);
    char *s = b.oom ? NULL : coax_arena_strdup(c->a, b.data, b.len); /* the loan goes back */
    coax_buf_free(&b);
    if (!s) return "(out of memory)";
    return n->res->uri[0] ? s : s + 1;
}

static coax_code bad(cc *c, const snode *n, const char *kw, const char *what)
{
    return cc_fail(c, COAX_ESCHEMA, "invalid schema at \"%s/%s\": %s", where(c, n), kw, what);
}

/* A subschema of 'n' found by the scan. */
static snode *child(cc *c, const snode *n, const coax_value *v, const char *kw)
{
    sinfo *i = smap_getp(&c->infos, v);
    if (!i) {
        bad(c, n, kw, n->res->draft == 4 ? "must be a schema (an object)"
                                         : "must be a schema (an object or a boolean)");
        return NULL;
    }
    return cc_node(c, i);
}

static bool count_kw(cc *c, const snode *n, const char *kw, const coax_value *v, size_t *out)
{
    if (v->type != COAX_NUMBER || !coax_num_to_size(v->u.text, v->len, out)) {
        bad(c, n, kw, "must be a non-negative integer");
        return false;
    }
    return true;
}

static bool add_regex(cc *c, const snode *n, const char *kw, const char *p, size_t len,
                      coax_regex **out)
{
    coax_schema *s = c->s;
    if (s->nregexes == s->cregexes) {
        size_t cap = s->cregexes ? s->cregexes * 2 : 8;
        coax_regex **r = coax_realloc_raw(s->alloc, s->regexes, s->cregexes * sizeof *r, cap * sizeof *r);
        if (!r) return cc_fail(c, COAX_ENOMEM, "out of memory"), false;
        s->regexes = r;
        s->cregexes = cap;
    }
    coax_error e;
    coax_code rc = coax_regex_compile(s->re_env, p, len, out, &e);
    if (rc == COAX_ENOMEM) return cc_fail(c, rc, "out of memory"), false;
    if (rc) return bad(c, n, kw, e.msg), false;
    s->regexes[s->nregexes++] = *out;
    return true;
}

static unsigned type_bit(const coax_value *v)
{
    static const struct {
        const char *name;
        unsigned bit;
    } t[] = {{"null", T_NULL},     {"boolean", T_BOOLEAN}, {"object", T_OBJECT}, {"array", T_ARRAY},
             {"number", T_NUMBER}, {"string", T_STRING},   {"integer", T_INTEGER}};
    if (v->type != COAX_STRING) return 0;
    for (size_t i = 0; i < 7; i++)
        if (!strcmp(v->u.text, t[i].name)) return t[i].bit;
    return 0;
}

/* Subschemas of an array-valued keyword. */
static bool subs_array(cc *c, const snode *n, const char *kw, const coax_value *v, skw *k)
{
    if (v->type != COAX_ARRAY) return bad(c, n, kw, "must be an array of schemas"), false;
    k->nsubs = v->len;
    k->subs = coax_arena_alloc(c->a, (v->len ? v->len : 1) * sizeof *k->subs);
    if (!k->subs) return cc_fail(c, COAX_ENOMEM, "out of memory"), false;
    for (size_t i = 0; i < v->len; i++)
        if (!(k->subs[i] = child(c, n, &v->u.items[i], kw))) return false;
    return true;
}

/* Subschemas of an object-valued keyword, aligned with its members; a
** member whose value is an array (dependencies) gets NULL when 'arrays'. */
static bool subs_map(cc *c, const snode *n, const char *kw, const coax_value *v, snode ***out,
                     bool arrays, bool schemas)
{
    if (v->type != COAX_OBJECT) return bad(c, n, kw, "must be an object"), false;
    snode **s = coax_arena_alloc(c->a, (v->len ? v->len : 1) * sizeof *s);
    if (!s) return cc_fail(c, COAX_ENOMEM, "out of memory"), false;
    for (size_t i = 0; i < v->len; i++) {
        const coax_value *x = &v->u.members[i].value;
        s[i] = NULL;
        if (arrays && x->type == COAX_ARRAY) {
            for (size_t j = 0; j < x->len; j++)
                if (x->u.items[j].type != COAX_STRING)
                    return bad(c, n, kw, "must list property names (strings)"), false;
            continue;
        }
        if (!schemas) return bad(c, n, kw, "must map names to arrays of strings"), false;
        if (!(s[i] = child(c, n, x, kw))) return false;
    }
    *out = s;
    return true;
}

static bool ref_kw(cc *c, snode *n, const char *name, int op, const coax_value *v, skw *k)
{
    if (v->type != COAX_STRING) return bad(c, n, name, "must be a string"), false;
    const char *anchor;
    bool dynamic;
    sinfo *t = cc_resolve(c, n->res, v->u.text, v->len, &anchor, &dynamic);
    if (!t) return false;
    *k = (skw){.op = (uint8_t)op, .name = name, .v = v};
    if (!(k->sub = cc_node(c, t))) return false;
    if (op == OP_DYNREF && anchor && dynamic) k->anchor = anchor;
    return true;
}

/* The hash table of a "properties" object. */
static sptab *make_ptab(cc *c, const coax_value *props)
{
    uint32_t size = 8;
    while (size < 2 * props->len) size *= 2;
    sptab *t = coax_arena_alloc(c->a, sizeof *t);
    int32_t *slot = coax_arena_alloc(c->a, size * sizeof *slot);
    uint32_t *hash = coax_arena_alloc(c->a, (props->len ? props->len : 1) * sizeof *hash);
    if (!t || !slot || !hash) return cc_fail(c, COAX_ENOMEM, "out of memory"), NULL;
    t->mask = size - 1;
    t->slot = slot;
    t->hash = hash;
    t->seed = coax_hash_seed(t);
    for (uint32_t i = 0; i < size; i++) slot[i] = -1;
    for (uint32_t k = 0; k < props->len; k++) {
        const coax_member *m = &props->u.members[k];
        uint32_t h = hash[k] = coax_name_hash(t, m->key, m->klen);
        if (coax_ptab_find(t, props, m->key, m->klen) >= 0) continue; /* a duplicate name */
        uint32_t i = h & t->mask;
        while (slot[i] >= 0) i = (i + 1) & t->mask;
        slot[i] = (int32_t)k;
    }
    return t;
}

/* The hash set of a long "enum": its values by their structural hash. */
static svset *make_vset(cc *c, const coax_value *values)
{
    uint32_t size = 16;
    while (size < 2 * values->len) size *= 2;
    svset *t = coax_arena_alloc(c->a, sizeof *t);
    int32_t *slot = coax_arena_alloc(c->a, size * sizeof *slot);
    uint64_t *hash = coax_arena_alloc(c->a, values->len * sizeof *hash);
    if (!t || !slot || !hash) return cc_fail(c, COAX_ENOMEM, "out of memory"), NULL;
    t->mask = size - 1;
    t->slot = slot;
    t->hash = hash;
    t->seed = coax_hash_seed(t);
    for (uint32_t i = 0; i < size; i++) slot[i] = -1;
    for (uint32_t k = 0; k < values->len; k++) {
        if (coax_value_hash(&values->u.items[k], t->seed, c->s->alloc, &hash[k], NULL))
            return cc_fail(c, COAX_ENOMEM, "out of memory"), NULL;
        /* a value equal to one already in stays out: n copies of one value
        ** each probed past all the copies before it */
        uint32_t i = (uint32_t)hash[k] & t->mask;
        bool copy = false;
        for (; slot[i] >= 0 && !copy; i = (i + 1) & t->mask) {
            const coax_value *in = &values->u.items[slot[i]];
            int eq = hash[slot[i]] == hash[k] ? coax_value_equal(in, &values->u.items[k], c->s->alloc) : 0;
            if (eq < 0) return cc_fail(c, COAX_ENOMEM, "out of memory"), NULL;
            copy = eq > 0;
        }
        if (!copy) slot[i] = (int32_t)k;
    }
    return t;
}

/* The size of a value in steps: its values and members, and its string
** bytes by 64. Schema documents are parsed with a depth limit, which
** bounds the recursion. */
static uint64_t value_cost(const coax_value *v)
{
    uint64_t k = 1;
    if (v->type == COAX_STRING) return k + v->len / 64;
    if (v->type == COAX_ARRAY)
        for (size_t i = 0; i < v->len; i++) k += value_cost(&v->u.items[i]);
    if (v->type == COAX_OBJECT)
        for (size_t i = 0; i < v->len; i++) k += 1 + v->u.members[i].klen / 64 + value_cost(&v->u.members[i].value);
    return k;
}

/* The steps one application of a keyword costs besides the instance's
** share: comparing with "enum" and "const" values, looking up the names
** of "required" and of dependencies. */
static uint64_t kw_cost(const skw *k)
{
    if (k->vset) return 1; /* a lookup, charged by the instance's size */
    switch (k->op) {
    case OP_ENUM:
    case OP_CONST:
    case OP_REQUIRED:
        return value_cost(k->v);
    case OP_DEPENDENCIES: {
        uint64_t n = 1;
        for (size_t i = 0; i < k->v->len; i++) {
            const coax_value *d = &k->v->u.members[i].value;
            n += 1 + (d->type == COAX_ARRAY ? d->len : 0);
        }
        return n;
    }
    default:
        return 1;
    }
}

#define MAXKW 64

coax_code cc_compile_node(cc *c, snode *n)
{
    if (n->kind != N_OBJECT) return COAX_OK;
    const coax_value *o = n->src, *x, *y;
    const cc_keys keys = cc_keys_of(o);
    int draft = n->res->draft;
    unsigned voc = n->res->vocab;
    skw ks[MAXKW];
    size_t nk = 0;
#define NEW(op_, name_, v_) (ks[nk] = (skw){.op = (op_), .name = (name_), .v = (v_)}, &ks[nk++])

    if ((x = cc_key(&keys, "$ref"))) {
        if (!ref_kw(c, n, "$ref", OP_REF, x, &ks[nk++])) return c->rc;
        if (draft <= 7) goto done; /* siblings of $ref are ignored */
    }
    if (draft >= 2020 && (x = cc_key(&keys, "$dynamicRef")) && !ref_kw(c, n, "$dynamicRef", OP_DYNREF, x, &ks[nk++]))
        return c->rc;
    if (draft == 2019 && (x = cc_key(&keys, "$recursiveRef")) &&
        !ref_kw(c, n, "$recursiveRef", OP_RECREF, x, &ks[nk++]))
        return c->rc;

    if (voc & VOC_VALIDATION) {
        if ((x = cc_key(&keys, "type"))) {
            skw *k = NEW(OP_TYPE, "type", x);
            if (x->type == COAX_ARRAY) {
                for (size_t i = 0; i < x->len; i++) {
                    unsigned b = type_bit(&x->u.items[i]);
                    if (!b) return bad(c, n, "type", "unknown type name");
                    k->types |= b;
                }
            } else if (!(k->types = type_bit(x))) {
                return bad(c, n, "type", "must be a type name or an array of them");
            }
        }
        if ((x = cc_key(&keys, "enum"))) {
            if (x->type != COAX_ARRAY) return bad(c, n, "enum", "must be an array");
            skw *k = NEW(OP_ENUM, "enum", x);
            if (x->len >= SVSET_MIN && !(k->vset = make_vset(c, x))) return c->rc;
        }
        if (draft >= 6 && (x = cc_key(&keys, "const"))) NEW(OP_CONST, "const", x);
        if ((x = cc_key(&keys, "multipleOf"))) {
            if (x->type != COAX_NUMBER || x->u.text[0] == '-' ||
                coax_number_compare_text(x->u.text, x->len, "0", 1) == 0)
                return bad(c, n, "multipleOf", "must be a number greater than 0");
            NEW(OP_MULTIPLEOF, "multipleOf", x);
        }
        static const struct {
            const char *name, *flag;
            int op, exop;
        } bounds[] = {{"maximum", "exclusiveMaximum", OP_MAXIMUM, OP_EXMAXIMUM},
                      {"minimum", "exclusiveMinimum", OP_MINIMUM, OP_EXMINIMUM}};
        for (int b = 0; b < 2; b++) {
            if ((x = cc_key(&keys, bounds[b].name))) {
                if (x->type != COAX_NUMBER) return bad(c, n, bounds[b].name, "must be a number");
                y = cc_key(&keys, bounds[b].flag);
                bool ex = draft == 4 && y && y->type == COAX_BOOL && y->u.boolean;
                NEW(ex ? bounds[b].exop : bounds[b].op, bounds[b].name, x);
            }
            if (draft >= 6 && (x = cc_key(&keys, bounds[b].flag))) {
                if (x->type != COAX_NUMBER) return bad(c, n, bounds[b].flag, "must be a number");
                NEW(bounds[b].exop, bounds[b].flag, x);
            }
        }
        static const struct {
            const char *name;
            int op;
        } counts[] = {{"maxLength", OP_MAXLENGTH}, {"minLength", OP_MINLENGTH},
                      {"maxItems", OP_MAXITEMS},   {"minItems", OP_MINITEMS},
                      {"maxProperties", OP_MAXPROPS}, {"minProperties", OP_MINPROPS}};
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            if (!(x = cc_key(&keys, counts[i].name))) continue;
            skw *k = NEW(counts[i].op, counts[i].name, x);
            if (!count_kw(c, n, counts[i].name, x, &k->n)) return c->rc;
        }
        if ((x = cc_key(&keys, "pattern"))) {
            if (x->type != COAX_STRING) return bad(c, n, "pattern", "must be a string");
            skw *k = NEW(OP_PATTERN, "pattern", x);
            if (!add_regex(c, n, "pattern", x->u.text, x->len, &k->re)) return c->rc;
            if (coax_decimal_pattern(x->u.text, x->len)) {
                if (!c->decimal) c->decimal = coax_decimal_agrees(c->s->re_env, k->re) ? 1 : -1;
                k->decimal = c->decimal > 0;
            }
        }
        if ((x = cc_key(&keys, "uniqueItems"))) {
            if (x->type != COAX_BOOL) return bad(c, n, "uniqueItems", "must be a boolean");
            if (x->u.boolean) NEW(OP_UNIQUE, "uniqueItems", x);
        }
        if ((x = cc_key(&keys, "required"))) {
            if (x->type != COAX_ARRAY) return bad(c, n, "required", "must be an array of strings");
            for (size_t i = 0; i < x->len; i++)
                if (x->u.items[i].type != COAX_STRING)
                    return bad(c, n, "required", "must be an array of strings");
            if (x->len) NEW(OP_REQUIRED, "required", x);
        }
        if (draft >= 2019 && (x = cc_key(&keys, "dependentRequired"))) {
            skw *k = NEW(OP_DEPENDENCIES, "dependentRequired", x);
            if (!subs_map(c, n, "dependentRequired", x, &k->subs, true, false)) return c->rc;
            k->nsubs = x->len;
        }
    }

    /* "format" asserts in drafts 4 to 7 and under the format-assertion
    ** vocabulary; elsewhere it annotates, unless the host says otherwise */
    if ((x = cc_key(&keys, "format")) && x->type == COAX_STRING) {
        unsigned fl = c->opt ? c->opt->flags : 0;
        bool assert = (voc & VOC_FORMAT_ASSERT) || (fl & COAX_SCHEMA_ASSERT_FORMAT) ||
                      (draft <= 7 && !(fl & COAX_SCHEMA_ANNOTATE_FORMAT));
        coax_format f = coax_format_find(x->u.text, x->len);
        if (f == FMT_HOSTNAME && draft <= 6) f = FMT_HOSTNAME_RFC1123;
        if (assert && f != FMT_UNKNOWN) NEW(OP_FORMAT, "format", x)->n = (size_t)f;
    }
    /* draft 7's content keywords assert with its formats (later drafts make
    ** them annotations only) */
    if (draft == 7 && !(c->opt && (c->opt->flags & COAX_SCHEMA_ANNOTATE_FORMAT))) {
        x = cc_key(&keys, "contentEncoding");
        y = cc_key(&keys, "contentMediaType");
        unsigned what = 0;
        if (x && x->type == COAX_STRING && !strcmp(x->u.text, "base64")) what |= CONTENT_BASE64;
        if (y && y->type == COAX_STRING && !strcmp(y->u.text, "application/json")) what |= CONTENT_JSON;
        if (what) {
            skw *k = NEW(OP_CONTENT, what & CONTENT_BASE64 ? "contentEncoding" : "contentMediaType", y);
            k->n = what;
        }
    }

    /* annotation keywords, in the draft that introduced each */
    static const struct {
        const char *name;
        int draft;
        unsigned voc;
    } notes[] = {{"title", 4, VOC_METADATA},           {"description", 4, VOC_METADATA},
                 {"default", 4, VOC_METADATA},         {"examples", 6, VOC_METADATA},
                 {"readOnly", 7, VOC_METADATA},        {"writeOnly", 7, VOC_METADATA},
                 {"deprecated", 2019, VOC_METADATA},   {"format", 4, VOC_FORMAT},
                 {"contentEncoding", 7, VOC_CONTENT},  {"contentMediaType", 7, VOC_CONTENT},
                 {"contentSchema", 2019, VOC_CONTENT}};
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (draft >= notes[i].draft && (voc & notes[i].voc) && (x = cc_key(&keys, notes[i].name)))
            NEW(OP_ANNOTATE, notes[i].name, x);

    if (voc & VOC_APPLICATOR) {
        static const struct {
            const char *name;
            int op;
        } arrays[] = {{"allOf", OP_ALLOF}, {"anyOf", OP_ANYOF}, {"oneOf", OP_ONEOF}};
        for (int i = 0; i < 3; i++) {
            if (!(x = cc_key(&keys, arrays[i].name))) continue;
            skw *k = NEW(arrays[i].op, arrays[i].name, x);
            if (!subs_array(c, n, arrays[i].name, x, k)) return c->rc;
            if (!x->len) return bad(c, n, arrays[i].name, "must not be empty");
        }
        if ((x = cc_key(&keys, "not"))) {
            skw *k = NEW(OP_NOT, "not", x);
            if (!(k->sub = child(c, n, x, "not"))) return c->rc;
        }
        if (draft >= 7 && (x = cc_key(&keys, "if"))) {
            skw *k = NEW(OP_IF, "if", x);
            if (!(k->sub = child(c, n, x, "if"))) return c->rc;
            k->nsubs = 2;
            k->subs = coax_arena_alloc(c->a, 2 * sizeof *k->subs);
            if (!k->subs) return cc_fail(c, COAX_ENOMEM, "out of memory");
            k->subs[0] = k->subs[1] = NULL;
            if ((y = cc_key(&keys, "then")) && !(k->subs[0] = child(c, n, y, "then"))) return c->rc;
            if ((y = cc_key(&keys, "else")) && !(k->subs[1] = child(c, n, y, "else"))) return c->rc;
        }
        /* arrays: prefixItems/items (2020-12) or items/additionalItems */
        const coax_value *prefix = NULL, *rest = NULL;
        const char *pname = NULL, *rname = NULL;
        if (draft >= 2020) {
            prefix = cc_key(&keys, "prefixItems"), pname = "prefixItems";
            rest = cc_key(&keys, "items"), rname = "items";
        } else if ((x = cc_key(&keys, "items"))) {
            if (x->type == COAX_ARRAY) {
                prefix = x, pname = "items";
                rest = cc_key(&keys, "additionalItems"), rname = "additionalItems";
            } else {
                rest = x, rname = "items";
            }
        }
        if (prefix || rest) {
            skw *k = NEW(OP_ITEMS, pname ? pname : rname, prefix);
            k->name2 = rname;
            k->v2 = rest;
            if (prefix && !subs_array(c, n, pname, prefix, k)) return c->rc;
            if (rest && !(k->sub = child(c, n, rest, rname))) return c->rc;
        }
        if (draft >= 6 && (x = cc_key(&keys, "contains"))) {
            skw *k = NEW(OP_CONTAINS, "contains", x);
            if (!(k->sub = child(c, n, x, "contains"))) return c->rc;
            k->n = 1;
            if (draft >= 2019 && (voc & VOC_VALIDATION)) {
                if ((y = cc_key(&keys, "minContains")) && !count_kw(c, n, "minContains", y, &k->n))
                    return c->rc;
                if ((y = cc_key(&keys, "maxContains"))) {
                    if (!count_kw(c, n, "maxContains", y, &k->m)) return c->rc;
                    k->has_m = true;
                }
            }
        }
        const coax_value *props = cc_key(&keys, "properties"), *pat = cc_key(&keys, "patternProperties"),
                         *add = cc_key(&keys, "additionalProperties");
        if (props || pat || add) {
            skw *k = NEW(OP_PROPS, "properties", props);
            if (props) {
                if (!subs_map(c, n, "properties", props, &k->subs, false, true)) return c->rc;
                k->nsubs = props->len;
                if (!(k->ptab = make_ptab(c, props))) return c->rc;
            }
            if (pat) {
                if (!subs_map(c, n, "patternProperties", pat, &k->patsubs, false, true)) return c->rc;
                k->pat = pat;
                k->npat = pat->len;
                k->res = coax_arena_alloc(c->a, (pat->len ? pat->len : 1) * sizeof *k->res);
                if (!k->res) return cc_fail(c, COAX_ENOMEM, "out of memory");
                for (size_t i = 0; i < pat->len; i++)
                    if (!add_regex(c, n, "patternProperties", pat->u.members[i].key,
                                   pat->u.members[i].klen, &k->res[i]))
                        return c->rc;
                if (!smap_putp(&c->s->patterns, c->a, pat, k->res)) return cc_fail(c, COAX_ENOMEM, "out of memory");
            }
            if (add && !(k->add = child(c, n, add, "additionalProperties"))) return c->rc;
        }
        if (draft >= 2019 && (x = cc_key(&keys, "dependentSchemas"))) {
            skw *k = NEW(OP_DEPENDENCIES, "dependentSchemas", x);
            if (!subs_map(c, n, "dependentSchemas", x, &k->subs, false, true)) return c->rc;
            k->nsubs = x->len;
        }
        /* "dependencies" is draft 4-7; later drafts keep it for compatibility
        ** (their meta-schemas still describe it) */
        if ((x = cc_key(&keys, "dependencies"))) {
            skw *k = NEW(OP_DEPENDENCIES, "dependencies", x);
            if (!subs_map(c, n, "dependencies", x, &k->subs, true, true)) return c->rc;
            k->nsubs = x->len;
        }
        if (draft >= 6 && (x = cc_key(&keys, "propertyNames"))) {
            skw *k = NEW(OP_PROPNAMES, "propertyNames", x);
            if (!(k->sub = child(c, n, x, "propertyNames"))) return c->rc;
        }
    }

    if (draft >= 2019 && (voc & VOC_UNEVALUATED)) {
        if ((x = cc_key(&keys, "unevaluatedItems"))) {
            skw *k = NEW(OP_UNEVAL_ITEMS, "unevaluatedItems", x);
            if (!(k->sub = child(c, n, x, "unevaluatedItems"))) return c->rc;
            n->uneval = true;
        }
        if ((x = cc_key(&keys, "unevaluatedProperties"))) {
            skw *k = NEW(OP_UNEVAL_PROPS, "unevaluatedProperties", x);
            if (!(k->sub = child(c, n, x, "unevaluatedProperties"))) return c->rc;
            n->uneval = true;
        }
    }
#undef NEW
done:
    if (!cc_link_required(c, ks, nk)) return c->rc;
    for (size_t i = 0; i < nk; i++) ks[i].cost = kw_cost(&ks[i]);
    if (cc_program(c, n, ks, nk)) return c->rc;
    if (nk) {
        n->kw = coax_arena_alloc(c->a, nk * sizeof *n->kw);
        if (!n->kw) return cc_fail(c, COAX_ENOMEM, "out of memory");
        memcpy(n->kw, ks, nk * sizeof *ks);
        n->nkw = nk;
    }
    return COAX_OK;
}

/* Compiles every node on the work list, and every $dynamicAnchor of every
** resource (run-time lookups need them), until nothing new appears. */
static coax_code finish(cc *c)
{
    for (;;) {
        while (c->nwork && !c->rc) {
            snode *n = c->work[--c->nwork];
            cc_compile_node(c, n);
        }
        if (c->rc) return c->rc;
        bool more = false;
        for (sres *r = c->s->resources; r; r = r->next) {
            for (size_t i = 0; i < r->nanchors; i++) {
                if (r->anchors[i].node) continue;
                sinfo *inf = smap_getp(&c->infos, r->anchors[i].v);
                if (!inf || !(r->anchors[i].node = cc_node(c, inf))) return c->rc ? c->rc : cc_fail(c, COAX_ESCHEMA, "bad anchor");
                more = true;
            }
        }
        if (!more && !c->nwork) return COAX_OK;
    }
}

/* The in-place edges of a node (subschemas applied to the same instance,
** unconditionally): references, allOf, anyOf, oneOf, not, if. Returns the
** target after position (*k, *j) and advances it; NULL at the end. */
static const snode *next_edge(const snode *n, uint32_t *k, uint32_t *j)
{
    for (; *k < n->nkw; (*k)++, *j = 0) {
        const skw *w = &n->kw[*k];
        switch (w->op) {
        case OP_REF: case OP_DYNREF: case OP_RECREF: case OP_NOT: case OP_IF:
            if (*j == 0) {
                (*j)++;
                return w->sub;
            }
            break;
        case OP_ALLOF: case OP_ANYOF: case OP_ONEOF:
            if (*j < w->nsubs) return w->subs[(*j)++];
            break;
        default:
            break;
        }
    }
    return NULL;
}

/* A cycle of in-place edges evaluates forever on any instance that reaches
** it ({"$ref": "#"}): an invalid schema. Iterative depth-first search. */
static coax_code check_cycles(cc *c)
{
    typedef struct frame {
        uint32_t node, k, j;
    } frame;
    size_t n = c->nall;
    uint8_t *color = coax_alloc_raw(c->s->alloc, n ? n : 1);
    frame *st = coax_alloc_raw(c->s->alloc, (n ? n : 1) * sizeof *st);
    if (!color || !st) {
        cc_fail(c, COAX_ENOMEM, "out of memory");
    } else {
        memset(color, 0, n);
        for (size_t r = 0; r < n && !c->rc; r++) {
            if (color[r]) continue;
            size_t top = 0;
            st[top++] = (frame){(uint32_t)r, 0, 0};
            color[r] = 1;
            while (top && !c->rc) {
                frame *f = &st[top - 1];
                const snode *t = next_edge(c->all[f->node], &f->k, &f->j);
                if (!t) {
                    color[f->node] = 2;
                    top--;
                } else if (color[t->id] == 1) {
                    cc_fail(c, COAX_ESCHEMA,
                            "invalid schema: reference cycle through \"%s\" that never consumes the instance",
                            where(c, t));
                } else if (!color[t->id]) {
                    color[t->id] = 1;
                    st[top++] = (frame){t->id, 0, 0};
                }
            }
        }
    }
    coax_free_raw(c->s->alloc, color, n ? n : 1);
    coax_free_raw(c->s->alloc, st, (n ? n : 1) * sizeof *st);
    return c->rc;
}

static const char *meta_uri(int draft)
{
    switch (draft) {
    case 4: return "http://json-schema.org/draft-04/schema#";
    case 6: return "http://json-schema.org/draft-06/schema#";
    case 7: return "http://json-schema.org/draft-07/schema#";
    case 2019: return "https://json-schema.org/draft/2019-09/schema";
    default: return "https://json-schema.org/draft/2020-12/schema";
    }
}

/* Checks the root document against its meta-schema. */
/* ---- the meta-schema cache (coax_schema_options.meta_cache) ---------------
** Checking a schema against its meta-schema compiled the meta-schema for
** each schema: about 85% of compiling an invoice schema. Only the embedded
** meta-schemas are kept: they resolve before the host's resolver and
** remote_dir (load_doc), so the compiled one does not depend on them. What
** else shapes it is the key: the URI as resolved and the "format" flags;
** with a host's own max_depth or max_regex_steps the meta-schema is
** compiled for the check and freed, as without a cache. */

#define META_CACHE_SLOTS 8 /* five drafts, and room for a host's flags */

typedef struct meta_entry {
    char *uri; /* NULL: a free slot */
    size_t len;
    unsigned flags;
    coax_schema *meta;
} meta_entry;

struct coax_meta_cache {
    coax_allocator alloc_copy;
    const coax_allocator *alloc;
    meta_entry e[META_CACHE_SLOTS];
    unsigned next; /* the slot replaced when all are taken */
};

coax_meta_cache *coax_meta_cache_new(const coax_allocator *alloc)
{
    if (coax_allocator_incomplete(alloc)) return NULL;
    coax_meta_cache *mc = coax_alloc_raw(alloc, sizeof *mc);
    if (!mc) return NULL;
    memset(mc, 0, sizeof *mc);
    if (alloc) {
        mc->alloc_copy = *alloc;
        mc->alloc = &mc->alloc_copy;
    }
    return mc;
}

static void entry_free(coax_meta_cache *mc, meta_entry *x)
{
    coax_schema_free(x->meta);
    coax_free_raw(mc->alloc, x->uri, x->len + 1);
    memset(x, 0, sizeof *x);
}

void coax_meta_cache_free(coax_meta_cache *mc)
{
    if (!mc) return;
    for (size_t i = 0; i < META_CACHE_SLOTS; i++)
        if (mc->e[i].uri) entry_free(mc, &mc->e[i]);
    coax_allocator copy = mc->alloc_copy;
    coax_free_raw(mc->alloc ? &copy : NULL, mc, sizeof *mc);
}

/* What of the options a compiled meta-schema depends on. */
static unsigned key_flags(const coax_schema_options *o)
{
    return o->flags & (COAX_SCHEMA_ASSERT_FORMAT | COAX_SCHEMA_ANNOTATE_FORMAT);
}

/* Compiles the meta-schema at absolute 'uri' for a check, as {"$ref": uri}
** with options 'o' (COAX_SCHEMA_NO_META among them): an embedded one is
** taken from, or compiled into, 'mc' (when not NULL) and '*kept' is true;
** any other is compiled with 'alloc' for the caller to free. */
static coax_code meta_compile(coax_meta_cache *mc, const char *uri, const coax_schema_options *o,
                              const coax_allocator *alloc, coax_schema **out, bool *kept, coax_error *err)
{
    size_t len = strlen(uri);
    *kept = false;
    coax_member ref = {"$ref", 4, {COAX_STRING, 0, (uint32_t)len, {.text = uri}}};
    coax_value wrapper = {COAX_OBJECT, 0, 1, {.members = &ref}};
    /* a host's own depth, regex and URI bounds apply to compiling the
    ** meta-schema too, and are not kept: eight slots hold every URI and flag
    ** set met in practice, and a script cannot make a state keep more than
    ** eight meta-schemas */
    if (!mc || o->max_depth || o->max_regex_steps || o->max_uri_bytes || !coax_meta_find(uri, len))
        return coax_schema_compile(&wrapper, o, alloc, out, err);
    for (size_t i = 0; i < META_CACHE_SLOTS; i++) {
        meta_entry *x = &mc->e[i];
        if (x->uri && x->len == len && !memcmp(x->uri, uri, len) && x->flags == key_flags(o)) {
            *out = x->meta;
            *kept = true;
            return COAX_OK;
        }
    }
    coax_schema *meta;
    coax_code rc = coax_schema_compile(&wrapper, o, mc->alloc, &meta, err);
    if (rc) return rc;
    char *copy = coax_alloc_raw(mc->alloc, len + 1);
    if (!copy) { /* used once, not kept */
        *out = meta;
        return COAX_OK;
    }
    memcpy(copy, uri, len + 1);
    meta_entry *x = &mc->e[mc->next];
    mc->next = (mc->next + 1) % META_CACHE_SLOTS;
    if (x->uri) entry_free(mc, x);
    *x = (meta_entry){copy, len, key_flags(o), meta};
    *out = meta;
    *kept = true;
    return COAX_OK;
}

/* The errors of checking 'doc' against a meta-schema, as a failure of 'c'. */
static coax_code meta_failure(cc *c, coax_code rc, const coax_validation *r, const coax_error *e)
{
    if (rc) return cc_fail(c, rc == COAX_ELIMIT ? COAX_ESCHEMA : rc, "checking the schema against its meta-schema: %s",
                           e->msg);
    if (r->valid) return c->rc;
    /* the most specific error: the deepest location in the schema */
    const coax_schema_error *best = &r->errors[0];
    for (size_t i = 1; i < r->nerrors; i++)
        if (strlen(r->errors[i].instance_location) > strlen(best->instance_location)) best = &r->errors[i];
    return cc_fail(c, COAX_ESCHEMA, "invalid schema at \"%s\": %s (%s%zu error%s%s)", best->instance_location,
                   best->message, r->nerrors == 1 ? "" : "1 of ", r->nerrors, r->nerrors == 1 ? "" : "s",
                   r->nerrors == 1 ? "" : " shown");
}

/* Checks 'doc' against its meta-schema. One this compilation has loaded
** already (the document itself, or a meta-schema read for its vocabularies)
** is compiled here. Any other, a draft's built-in above all, is compiled
** apart, as {"$ref": its URI} with the same options, and freed after the
** check or kept in the options' meta_cache (above): compiled into
** the schema it took ~200 KB of every schema's memory for nodes only this
** check runs. */
static coax_code meta_check(cc *c, const sres *root, const coax_value *doc)
{
    const coax_value *sv = member(doc, "$schema");
    const char *uri = sv && sv->type == COAX_STRING ? sv->u.text : meta_uri(root->draft);
    char *abs = cc_uri_resolve(c, root->uri, uri, strlen(uri));
    if (!abs) return c->rc;
    coax_arena *tmp = coax_arena_new(c->s->alloc);
    if (!tmp) return cc_fail(c, COAX_ENOMEM, "out of memory");
    coax_validation r;
    coax_error e;
    coax_code rc;
    if (smap_get(&c->resources, abs, coax_uri_doc_len(abs))) {
        const char *anchor;
        bool dyn;
        sinfo *mi = cc_resolve(c, root, uri, strlen(uri), &anchor, &dyn);
        snode *mn = mi ? cc_node(c, mi) : NULL;
        if (!mn || finish(c) || cc_reach(c, mn, &c->s->weight, NULL)) {
            coax_arena_free(tmp);
            return c->rc;
        }
        rc = coax_schema_run(c->s, mn, doc, tmp, 0, NULL, &r, &e);
    } else {
        coax_schema_options o;
        memset(&o, 0, sizeof o);
        if (c->opt) o = *c->opt;
        o.flags |= COAX_SCHEMA_NO_META;
        o.draft = (coax_draft)root->draft;
        o.max_steps = 0; /* the defaults, by the size of the schema */
        o.max_regex_total = 0;
        o.max_error_bytes = 0;
        coax_schema *meta;
        bool kept;
        if (meta_compile(o.meta_cache, abs, &o, c->s->alloc, &meta, &kept, &e)) {
            coax_arena_free(tmp);
            return cc_fail(c, e.code, "%s", e.msg); /* as if compiled here */
        }
        rc = coax_validate(meta, doc, tmp, 0, &r, &e);
        if (!kept) coax_schema_free(meta);
    }
    meta_failure(c, rc, &r, &e);
    coax_arena_free(tmp);
    return c->rc;
}

static coax_code compile_within(const coax_value *schema, const coax_schema_options *opt,
                                const coax_allocator *alloc, coax_schema **out, coax_error *err)
{
    if (!schema || !out) return coax_fail(err, COAX_EINVAL, 0, "schema and out must not be NULL");
    *out = NULL;
    if (coax_allocator_incomplete(alloc))
        return coax_fail(err, COAX_EINVAL, 0, "coax_schema_compile: the allocator lacks a function");
    coax_schema *s = coax_alloc_raw(alloc, sizeof *s);
    if (!s) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    memset(s, 0, sizeof *s);
    if (alloc) {
        s->alloc_copy = *alloc;
        s->alloc = &s->alloc_copy;
    }
    s->max_depth = opt && opt->max_depth ? opt->max_depth : COAX_DEFAULT_MAX_SCHEMA_DEPTH;
    s->max_error_bytes = COAX_DEFAULT_MAX_ERROR_BYTES; /* the meta-schema check's */
    s->arena = coax_arena_new(s->alloc);
    s->re_env = coax_regex_env_new(s->alloc, opt ? opt->max_regex_steps : 0);
    if (s->arena && (s->spare = coax_arena_alloc(s->arena, sizeof *s->spare))) atomic_init(s->spare, NULL);
    cc c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.a = s->arena;
    c.opt = opt;
    c.err = err;
    c.max_depth = s->max_depth;
    c.max_uri_bytes = opt && opt->max_uri_bytes ? opt->max_uri_bytes : CC_DEFAULT_MAX_URI_BYTES;
    c.default_draft = opt && opt->draft ? (int)opt->draft : 2020;
    if (c.default_draft != 4 && c.default_draft != 6 && c.default_draft != 7 &&
        c.default_draft != 2019 && c.default_draft != 2020)
        cc_fail(&c, COAX_EINVAL, "unknown draft %d", c.default_draft);
    if (!c.rc && (!s->arena || !s->re_env || !s->spare)) cc_fail(&c, COAX_ENOMEM, "out of memory");

    /* the schema is copied into the schema's arena */
    coax_value *doc = NULL;
    if (!c.rc) {
        coax_buf b;
        coax_buf_init(&b, s->alloc);
        coax_code rc = coax_write_buf(&b, schema, 0);
        if (rc || b.oom) {
            cc_fail(&c, rc ? rc : COAX_ENOMEM, "copying the schema: %s", coax_strerror(rc ? rc : COAX_ENOMEM));
        } else {
            coax_limits lim;
            coax_limits_default(&lim);
            lim.max_depth = c.max_depth;
            coax_error e;
            rc = coax_parse(s->arena, b.data, b.len, &lim, &doc, &e);
            if (rc) cc_fail(&c, rc, "copying the schema: %s", e.msg);
        }
        coax_buf_free(&b);
    }
    s->doc = doc;
    sres *root = c.rc ? NULL : cc_scan_doc(&c, doc, "", c.default_draft, 0);
    if (root) {
        s->draft = root->draft;
        if (!(opt && (opt->flags & COAX_SCHEMA_NO_META))) meta_check(&c, root, doc);
    }
    if (!c.rc) {
        sinfo *ri = smap_getp(&c.infos, doc);
        if ((s->root = cc_node(&c, ri)) && !finish(&c) && !check_cycles(&c) && !cc_mark_leaves(&c))
            cc_reach(&c, s->root, &s->weight, &s->root_dynamic);
    }
    coax_free_raw(s->alloc, c.work, c.cwork * sizeof *c.work);
    coax_free_raw(s->alloc, c.all, c.call * sizeof *c.all);
    /* the host's budgets are for its instances; the meta-schema check
    ** above ran with the defaults, by the size of the schema */
    s->max_steps = opt ? opt->max_steps : 0;
    s->max_regex_total = opt ? opt->max_regex_total : 0;
    s->max_error_bytes = opt && opt->max_error_bytes ? opt->max_error_bytes : COAX_DEFAULT_MAX_ERROR_BYTES;
    if (c.rc) {
        coax_schema_free(s);
        return c.rc;
    }
    *out = s;
    return COAX_OK;
}

/* A host's max_depth may be any size: the compiler's recursions stop at the floor of the C stack
** (base/stack.h), set here when no call above set one, as a script's do. */
coax_code coax_schema_compile(const coax_value *schema, const coax_schema_options *opt,
                              const coax_allocator *alloc, coax_schema **out, coax_error *err)
{
    uintptr_t before = coax_stack_arm();
    coax_code rc = compile_within(schema, opt, alloc, out, err);
    coax_stack_restore(before);
    return rc;
}

void coax_schema_free(coax_schema *s)
{
    if (!s) return;
    if (s->spare) coax_regex_scratch_free(s->re_env, atomic_load(s->spare));
    for (size_t i = 0; i < s->nregexes; i++) coax_regex_free(s->re_env, s->regexes[i]);
    coax_free_raw(s->alloc, s->regexes, s->cregexes * sizeof *s->regexes);
    coax_regex_env_free(s->re_env);
    coax_arena_free(s->arena);
    coax_allocator copy = s->alloc_copy;
    coax_free_raw(s->alloc ? &copy : NULL, s, sizeof *s);
}

int coax_schema_pattern_names(const coax_schema *s, const coax_value *pp, const char *name, size_t len,
                              uint64_t *spent)
{
    coax_regex **res = smap_getp(&s->patterns, pp);
    if (!res || *spent >= COAX_SCHEMA_NAMES_REGEX) return -1;
    /* the match memory validations keep, or one of its own while another has it */
    coax_regex_scratch *scratch = atomic_exchange(s->spare, NULL);
    if (!scratch && !(scratch = coax_regex_scratch_new(s->re_env))) return -1;
    uint64_t left = COAX_SCHEMA_NAMES_REGEX - *spent;
    int m = 0;
    for (size_t i = 0; i < pp->len && !m; i++) m = coax_regex_match_in(s->re_env, res[i], name, len, scratch, &left);
    *spent = COAX_SCHEMA_NAMES_REGEX - left;
    coax_regex_scratch *none = NULL;
    if (!atomic_compare_exchange_strong(s->spare, &none, scratch)) coax_regex_scratch_free(s->re_env, scratch);
    return m == 0 ? 0 : m == 1 ? 1 : -1;
}

coax_draft coax_schema_draft(const coax_schema *s) { return s ? (coax_draft)s->draft : COAX_DRAFT_AUTO; }

coax_draft coax_draft_parse(const char *name)
{
    static const struct {
        const char *name;
        coax_draft d;
    } names[] = {
        {"2020-12", COAX_DRAFT_2020_12}, {"draft2020-12", COAX_DRAFT_2020_12},
        {"2019-09", COAX_DRAFT_2019_09}, {"draft2019-09", COAX_DRAFT_2019_09},
        {"7", COAX_DRAFT_7}, {"draft7", COAX_DRAFT_7}, {"draft-07", COAX_DRAFT_7},
        {"6", COAX_DRAFT_6}, {"draft6", COAX_DRAFT_6}, {"draft-06", COAX_DRAFT_6},
        {"4", COAX_DRAFT_4}, {"draft4", COAX_DRAFT_4}, {"draft-04", COAX_DRAFT_4},
    };
    if (!name) return COAX_DRAFT_AUTO;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i].name)) return names[i].d;
    return COAX_DRAFT_AUTO;
}

const char *coax_draft_name(coax_draft d)
{
    switch (d) {
    case COAX_DRAFT_4: return "4";
    case COAX_DRAFT_6: return "6";
    case COAX_DRAFT_7: return "7";
    case COAX_DRAFT_2019_09: return "2019-09";
    case COAX_DRAFT_2020_12: return "2020-12";
    case COAX_DRAFT_AUTO: return "auto";
    default: return "unknown";
    }
}
