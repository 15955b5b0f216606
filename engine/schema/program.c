/*
** program.c: what compilation prepares for the evaluator beyond the
** keywords themselves (compile.c calls it, validate.c and validate_leaf.c
** read it):
**   - a node's run: its keywords without the annotation keywords. Those
**     only charge their cost when no annotations are collected; each one's
**     cost is added to the charge of the keyword after it (nothing happens
**     between the two charges, so a budget runs out at the same place), or
**     to the node's tail when the annotations come last;
**   - perfect hashes of the names of "properties" and of the values of an
**     enum of strings, the bits of "required" among those names, and the
**     lengths of those names as JSON Pointer segments;
**   - the coax types "type" accepts whatever the value, and its names as
**     its error writes them; whether a bound is 0;
**   - the leaves (LEAF_*, validate_leaf.c), once every node is compiled;
**   - whether the root reaches a dynamic reference: when it does not, a
**     run from the root keeps no dynamic scope (nothing would read it).
*/
#include "schema/compiled.h"
#include "schema/format.h"
#include "schema/program.h"
#include "schema/validate.h"

/* Names as the table is built from them. */
typedef struct name_in {
    const char *s;
    uint32_t len;
    uint64_t a, b;
} name_in;

static uint64_t next_mult(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return (z ^ (z >> 31)) | 1;
}

/* A table with a multiplier under which no two different names share a
** slot (a name written twice keeps its first index); NULL when none was
** found (names alike in their first and last eight bytes), the evaluator
** then uses its other lookups. The multipliers come from a fixed sequence:
** the table decides only how fast a name is found, never what is found. */
static const snames *make_names(cc *c, const name_in *in, size_t n)
{
    if (!n || n > 256) return NULL;
    unsigned bits = 1;
    while (((size_t)1 << bits) < 2 * n) bits++;
    uint64_t state = 0x5EED;
    int32_t *used = coax_alloc_raw(c->s->alloc, ((size_t)1 << (bits + 3)) * sizeof *used);
    if (!used) return cc_fail(c, COAX_ENOMEM, "out of memory"), NULL;
    const snames *out = NULL;
    for (unsigned b = bits; b < bits + 4 && !out; b++) {
        size_t size = (size_t)1 << b;
        for (int attempt = 0; attempt < 64 && !out; attempt++) {
            uint64_t mult = next_mult(&state);
            for (size_t i = 0; i < size; i++) used[i] = -1;
            bool ok = true;
            for (size_t i = 0; i < n && ok; i++) {
                size_t h = (size_t)((coax_name_mix(in[i].a, in[i].b, in[i].len) * mult) >> (64 - b));
                int32_t j = used[h];
                if (j < 0) used[h] = (int32_t)i;
                else ok = in[j].len == in[i].len && !memcmp(in[j].s, in[i].s, in[i].len); /* the same name */
            }
            if (!ok) continue;
            snames *t = coax_arena_alloc(c->a, sizeof *t);
            sname *slot = coax_arena_alloc(c->a, size * sizeof *slot);
            if (!t || !slot) {
                cc_fail(c, COAX_ENOMEM, "out of memory");
                break;
            }
            for (size_t i = 0; i < size; i++) {
                int32_t j = used[i];
                slot[i] = j < 0 ? (sname){"", UINT32_MAX, -1, 0, 0} : (sname){in[j].s, in[j].len, j, in[j].a, in[j].b};
            }
            t->mult = mult;
            t->shift = 64 - b;
            t->slot = slot;
            out = t;
        }
    }
    coax_free_raw(c->s->alloc, used, ((size_t)1 << (bits + 3)) * sizeof *used);
    return out;
}

/* The names of an object's members, or of an array's items when all are
** strings (else NULL). */
static const snames *names_of(cc *c, const coax_value *v)
{
    if (!v || !v->len || v->len > 256) return NULL;
    name_in *in = coax_alloc_raw(c->s->alloc, v->len * sizeof *in);
    if (!in) return cc_fail(c, COAX_ENOMEM, "out of memory"), NULL;
    bool ok = true;
    for (size_t i = 0; i < v->len && ok; i++) {
        if (v->type == COAX_OBJECT) {
            in[i].s = v->u.members[i].key, in[i].len = v->u.members[i].klen;
        } else {
            ok = v->u.items[i].type == COAX_STRING;
            in[i].s = v->u.items[i].u.text, in[i].len = v->u.items[i].len;
        }
        coax_name_words(in[i].s, in[i].len, &in[i].a, &in[i].b);
    }
    const snames *t = ok ? make_names(c, in, v->len) : NULL;
    coax_free_raw(c->s->alloc, in, v->len * sizeof *in);
    return t;
}

/* The length of each member name's JSON Pointer segment: "/" and the
** name with '~' and '/' escaped in two bytes (0 when over 2^32: measured
** when needed). */
static uint32_t *segment_lengths(cc *c, const coax_value *o)
{
    uint32_t *len = coax_arena_alloc(c->a, (o->len ? o->len : 1) * sizeof *len);
    if (!len) return cc_fail(c, COAX_ENOMEM, "out of memory"), NULL;
    for (size_t i = 0; i < o->len; i++) {
        const coax_member *m = &o->u.members[i];
        uint64_t n = 1 + (uint64_t)m->klen;
        for (size_t j = 0; j < m->klen; j++) n += m->key[j] == '~' || m->key[j] == '/';
        len[i] = n < UINT32_MAX ? (uint32_t)n : 0;
    }
    return len;
}

/* The coax types every value of which "type" accepts (a number only when
** "number" is named: "integer" alone looks at the value). */
static uint8_t type_mask(unsigned types)
{
    uint8_t m = 0;
    if (types & T_NULL) m |= 1u << COAX_NULL;
    if (types & T_BOOLEAN) m |= 1u << COAX_BOOL;
    if (types & T_NUMBER) m |= 1u << COAX_NUMBER;
    if (types & T_STRING) m |= 1u << COAX_STRING;
    if (types & T_ARRAY) m |= 1u << COAX_ARRAY;
    if (types & T_OBJECT) m |= 1u << COAX_OBJECT;
    return m;
}

/* Points "required" at the node's "properties" table, so that a name
** there is found by one probe per member of the instance. */
bool cc_link_required(cc *c, skw *ks, size_t nk)
{
    skw *req = NULL, *props = NULL;
    for (size_t i = 0; i < nk; i++) {
        if (ks[i].op == OP_REQUIRED) req = &ks[i];
        if (ks[i].op == OP_PROPS && ks[i].ptab && ks[i].v->len <= 64) props = &ks[i];
    }
    if (!req || !props) return true;
    req->ridx = coax_arena_alloc(c->a, req->v->len * sizeof *req->ridx);
    if (!req->ridx) return cc_fail(c, COAX_ENOMEM, "out of memory"), false;
    for (size_t i = 0; i < req->v->len; i++) {
        const coax_value *name = &req->v->u.items[i];
        req->ridx[i] = coax_ptab_find(props->ptab, props->v, name->u.text, name->len);
    }
    req->ptab = props->ptab;
    req->v2 = props->v;
    return true;
}

/* The names of a set of types as a "type" error writes them, made once
** per set in a compilation. */
static bool type_names(cc *c, unsigned types)
{
    if (c->tnames[types]) return true;
    coax_buf b;
    coax_buf_init(&b, c->s->alloc);
    vctx_put_types(&b, types);
    char *t = b.oom ? NULL : coax_arena_alloc(c->a, b.len + 1);
    if (t) memcpy(t, b.data ? b.data : "", b.len), t[b.len] = '\0';
    c->tnames[types] = t, c->ntnames[types] = b.len;
    coax_buf_free(&b);
    return t || (cc_fail(c, COAX_ENOMEM, "out of memory"), false);
}

coax_code cc_program(cc *c, snode *n, skw *ks, size_t nk)
{
    skw *props = NULL, *req = NULL;
    for (size_t i = 0; i < nk; i++) {
        skw *k = &ks[i];
        k->charge = k->cost;
        k->namelen = (uint8_t)strlen(k->name);
        if (k->name2) k->name2len = (uint8_t)strlen(k->name2);
        if (k->op == OP_MAXIMUM || k->op == OP_EXMAXIMUM || k->op == OP_MINIMUM || k->op == OP_EXMINIMUM)
            k->zero = coax_number_compare_text(k->v->u.text, k->v->len, "0", 1) == 0;
        if (k->op == OP_CONST) /* a string, as vctx_put_json quotes it */
            k->n = k->v->type == COAX_STRING ? vctx_str_len(k->v->u.text, k->v->len, 60) : SIZE_MAX;
        if (k->op == OP_TYPE) {
            k->tmask = type_mask(k->types);
            if (!type_names(c, k->types & 127)) return c->rc;
            k->tnames = c->tnames[k->types & 127], k->ntnames = c->ntnames[k->types & 127];
        }
        if (k->op == OP_ENUM && k->v->type == COAX_ARRAY) k->names = names_of(c, k->v);
        if (k->op == OP_PROPS && k->v && k->v->len <= 64) k->names = names_of(c, k->v), props = k;
        if (k->op == OP_PROPS && k->v && !(k->pelen = segment_lengths(c, k->v))) return c->rc;
        if (k->op == OP_REQUIRED) req = k;
        if (c->rc) return c->rc;
    }
    /* required reads the bits of the members "properties" found */
    if (req && props && props->names && req->ptab == props->ptab && req->ridx) {
        uint64_t mask = 0;
        bool all = true;
        for (size_t i = 0; i < req->v->len; i++) {
            if (req->ridx[i] < 0) all = false;
            else mask |= (uint64_t)1 << req->ridx[i];
        }
        if (all) req->names = props->names, req->reqmask = mask;
    }
    size_t nrun = 0;
    for (size_t i = 0; i < nk; i++) nrun += ks[i].op != OP_ANNOTATE;
    n->run = coax_arena_alloc(c->a, (nrun ? nrun : 1) * sizeof *n->run);
    if (!n->run) return cc_fail(c, COAX_ENOMEM, "out of memory");
    uint64_t pending = 0;
    for (size_t i = 0; i < nk; i++) {
        if (ks[i].op == OP_ANNOTATE) {
            pending += ks[i].cost;
            continue;
        }
        n->run[n->nrun] = ks[i];
        n->run[n->nrun++].charge += pending;
        pending = 0;
    }
    n->tail = pending;
    n->leaf_charge = 1 + n->tail;
    for (size_t i = 0; i < n->nrun; i++) n->leaf_charge += n->run[i].charge;
    return COAX_OK;
}

/* Whether node 'n' may be a leaf (validate_leaf.c) as far as its own
** keywords tell (its subschemas aside): each a test of the value, or
** "required", "properties" and "items" in the forms a leaf handles. */
static bool leaf_keywords(const snode *n)
{
    if (n->kind != N_OBJECT || n->uneval || n->nrun > 40) return false; /* 6 x 40 tests fit ltest_at */
    for (size_t i = 0; i < n->nrun; i++) {
        const skw *k = &n->run[i];
        switch (k->op) {
        case OP_TYPE: case OP_CONST: case OP_MULTIPLEOF: case OP_PATTERN:
        case OP_MAXIMUM: case OP_EXMAXIMUM: case OP_MINIMUM: case OP_EXMINIMUM:
        case OP_MAXLENGTH: case OP_MINLENGTH: case OP_MAXITEMS: case OP_MINITEMS:
        case OP_MAXPROPS: case OP_MINPROPS: case OP_UNIQUE:
            break;
        case OP_ENUM: /* of strings, looked up in their table */
        case OP_REQUIRED: /* names all in "properties", found by its table */
            if (!k->names) return false;
            break;
        case OP_FORMAT: /* "regex" compiles the pattern: no test to do twice */
            if (k->n == FMT_REGEX) return false;
            break;
        case OP_PROPS: /* "properties" by its table (or none), "additionalProperties" */
            if ((k->v && !k->names) || k->npat) return false;
            break;
        case OP_ITEMS: /* one subschema for every item */
            if (k->nsubs || !k->sub) return false;
            break;
        default:
            return false;
        }
    }
    return true;
}

/* A subschema a leaf may apply: a leaf, or false (the leaf then fails). */
static bool leaf_sub(const snode *s, unsigned *depth, bool *choice)
{
    if (s->kind == N_FALSE) return true;
    if (!s->leaf) return false;
    if (s->leaf_depth > *depth) *depth = s->leaf_depth;
    *choice = *choice || s->leaf_choice;
    return true;
}

/* The leaf depth of a node whose keywords may be a leaf's, when all the
** subschemas it applies are leaves (1 + theirs); 0 when they are not. */
static unsigned leaf_subs(const snode *n, bool *choice)
{
    unsigned depth = 0;
    for (size_t i = 0; i < n->nrun; i++) {
        const skw *k = &n->run[i];
        if (k->op == OP_PROPS) {
            for (size_t j = 0; j < k->nsubs; j++)
                if (!leaf_sub(k->subs[j], &depth, choice)) return 0;
            if (k->add && !leaf_sub(k->add, &depth, choice)) return 0;
        } else if (k->op == OP_ITEMS && !leaf_sub(k->sub, &depth, choice)) {
            return 0;
        }
    }
    return depth + 1;
}

/* Whether keyword 'k' of a leaf acts on a value of coax type t (the others
** pass it untested; "type" is tested first, apart). */
static bool acts_on(const skw *k, unsigned t)
{
    switch (k->op) {
    case OP_ENUM: case OP_CONST: return true;
    case OP_MAXLENGTH: case OP_MINLENGTH: case OP_PATTERN: case OP_FORMAT: return t == COAX_STRING;
    case OP_MAXIMUM: case OP_EXMAXIMUM: case OP_MINIMUM: case OP_EXMINIMUM:
    case OP_MULTIPLEOF: return t == COAX_NUMBER;
    case OP_MAXITEMS: case OP_MINITEMS: case OP_UNIQUE: case OP_ITEMS: return t == COAX_ARRAY;
    case OP_MAXPROPS: case OP_MINPROPS: case OP_REQUIRED: case OP_PROPS: return t == COAX_OBJECT;
    default: return false;
    }
}

/* A leaf's keywords by the type of value they act on (n->ltests); a
** "required" just before a "properties" whose names it has goes with it
** (lreq), checked with the names that finds. */
static bool leaf_tests(cc *c, snode *n)
{
    const skw **t = coax_arena_alloc(c->a, (6 * n->nrun + 1) * sizeof *t);
    if (!t) return cc_fail(c, COAX_ENOMEM, "out of memory"), false;
    size_t m = 0;
    for (unsigned type = 0; type < 6; type++) {
        n->ltest_at[type] = (uint8_t)m;
        for (size_t i = 0; i < n->nrun; i++) {
            skw *k = &n->run[i];
            if (k->op == OP_TYPE || !acts_on(k, type)) continue;
            const skw *prev = m > n->ltest_at[type] ? t[m - 1] : NULL;
            if (k->op == OP_PROPS && prev && prev->op == OP_REQUIRED && prev->names == k->names)
                k->lreq = t[--m]; /* "required" is checked with the names "properties" finds */
            t[m++] = k;
        }
    }
    n->ltest_at[6] = (uint8_t)m;
    n->ltests = t;
    return true;
}

/* The deepest of the leaves a node applies alone to the same value, a
** reference or an anyOf whose every branch is a leaf (LEAF_REF, LEAF_ANYOF);
** NULL when it is no such node. */
static const snode *leaf_next(const snode *n)
{
    if (n->kind != N_OBJECT || n->uneval || n->nrun != 1) return NULL;
    const skw *k = &n->run[0];
    if (k->op == OP_REF) return k->sub;
    if (k->op != OP_ANYOF && k->op != OP_ONEOF) return NULL;
    const snode *deepest = k->subs[0];
    for (size_t i = 0; i < k->nsubs; i++) {
        if (!k->subs[i]->leaf) return NULL;
        if (k->subs[i]->leaf_depth > deepest->leaf_depth) deepest = k->subs[i];
    }
    return deepest;
}

/* The coax types of the values an anyOf's first branch passes by its
** "type" alone (no other test acts on them): such a value passes the anyOf
** as that branch, nothing else tried (an Optional's value, most often). */
static void first_branch_passes(snode *n)
{
    const snode *b = n->run[0].subs[0];
    if (b->leaf != LEAF_TESTS) return;
    for (unsigned t = 0; t < COAX_ARRAY; t++)
        if (((b->ltmask >> t) & 1) && b->ltest_at[t] == b->ltest_at[t + 1]) n->lfirst |= (uint8_t)(1u << t);
}

coax_code cc_mark_leaves(cc *c)
{
    /* found from the ends: true schemas, tests, then the nodes whose
    ** subschemas are leaves, until none is added. No chain loops (an
    ** in-place cycle was refused, check_cycles; a leaf's subschemas apply
    ** to smaller values), and a leaf deeper than 64 frames is left to the
    ** evaluator. */
    for (bool more = true; more;) {
        more = false;
        for (size_t i = 0; i < c->nall; i++) {
            snode *n = c->all[i];
            if (n->leaf) continue;
            const snode *t = leaf_next(n);
            unsigned depth = 0;
            bool choice = false;
            if (n->kind == N_TRUE) {
                n->leaf = LEAF_TRUE, n->leaf_depth = 0, n->leaf_charge = 1, n->leaf_plain = true;
            } else if (t && t->leaf && t->leaf_depth < 64) {
                n->leaf = n->run[0].op == OP_REF ? LEAF_REF : n->run[0].op == OP_ANYOF ? LEAF_ANYOF : LEAF_ONEOF;
                n->leaf_depth = (uint8_t)(t->leaf_depth + 1);
                n->lref = n->leaf == LEAF_REF && t->leaf != LEAF_REF ? t : NULL;
                n->leaf_plain = n->leaf == LEAF_REF && t->leaf_plain;
                n->leaf_choice = n->leaf != LEAF_REF || t->leaf_choice;
                n->leaf_deep_choice = t->leaf_deep_choice;
                for (size_t j = 0; n->leaf != LEAF_REF && j < n->run[0].nsubs; j++)
                    n->leaf_deep_choice = n->leaf_deep_choice || n->run[0].subs[j]->leaf_deep_choice;
                if (n->leaf == LEAF_ANYOF) first_branch_passes(n);
            } else if (leaf_keywords(n) && (depth = leaf_subs(n, &choice)) && depth <= 64) {
                if (!leaf_tests(c, n)) return c->rc;
                n->leaf = LEAF_TESTS;
                n->ltmask = n->nrun && n->run[0].op == OP_TYPE ? n->run[0].tmask : 0x7f;
                n->leaf_depth = (uint8_t)depth;
                n->leaf_choice = n->leaf_deep_choice = choice;
                n->leaf_plain = true;
                for (size_t j = 0; j < n->nrun; j++)
                    if (n->run[j].op == OP_PROPS || n->run[j].op == OP_ITEMS) n->leaf_plain = false;
            } else {
                continue;
            }
            more = true;
        }
    }
    return COAX_OK;
}

/* Pushes a subschema not seen yet (each node once: the stack holds at
** most every node). */
static void visit(const snode *x, uint8_t *seen, const snode **st, size_t *top)
{
    if (!x || seen[x->id]) return;
    seen[x->id] = 1;
    st[(*top)++] = x;
}

/* A node's size: itself and its keywords' costs (cc_compile_node). */
static uint64_t node_weight(const snode *n)
{
    uint64_t w = n->kind == N_OBJECT;
    for (size_t i = 0; i < n->nkw; i++) w += n->kw[i].cost;
    return w;
}

coax_code cc_reach(cc *c, const snode *from, uint64_t *weight, bool *dynamic)
{
    coax_schema *s = c->s;
    size_t n = c->nall, nres = s->resources ? s->resources->id + 1 : 0;
    uint8_t *seen = coax_alloc_raw(s->alloc, n + nres + 1); /* the nodes', then the resources' marks */
    const snode **st = coax_alloc_raw(s->alloc, (n ? n : 1) * sizeof *st);
    bool dyn = false;
    *weight = 0;
    if (seen && st) {
        memset(seen, 0, n + nres + 1);
        uint8_t *entered = seen + n;
        size_t top = 0;
        visit(from, seen, st, &top);
        while (top) {
            const snode *x = st[--top];
            const sres *r = x->res;
            *weight += node_weight(x);
            if (!entered[r->id]) { /* in the dynamic scope from here on: its targets of dynamic references */
                entered[r->id] = 1;
                for (size_t i = 0; i < r->nanchors; i++)
                    if (r->anchors[i].dynamic) visit(r->anchors[i].node, seen, st, &top);
                if (r->recursive_anchor) visit(r->root_node, seen, st, &top);
            }
            for (size_t i = 0; i < x->nkw; i++) {
                const skw *k = &x->kw[i];
                if ((k->op == OP_DYNREF && k->anchor) || k->op == OP_RECREF) dyn = true;
                visit(k->sub, seen, st, &top);
                visit(k->add, seen, st, &top);
                size_t ns = k->op == OP_IF ? 2 : k->nsubs;
                for (size_t j = 0; k->subs && j < ns; j++) visit(k->subs[j], seen, st, &top);
                for (size_t j = 0; k->patsubs && j < k->npat; j++) visit(k->patsubs[j], seen, st, &top);
            }
        }
    } else {
        cc_fail(c, COAX_ENOMEM, "out of memory");
    }
    if (dynamic) *dynamic = dyn;
    coax_free_raw(s->alloc, seen, n + nres + 1);
    coax_free_raw(s->alloc, st, (n ? n : 1) * sizeof *st);
    return c->rc;
}
