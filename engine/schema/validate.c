/*
** validate.c: the evaluator. A compiled node is run on an instance one
** keyword after another; the applicator keywords apply subschemas to the
** instance or its items and members, recursing here, and record where
** they are on the instance and keyword paths, so every error knows its
** instance location, its keyword location (the evaluation path, through
** references) and, once a reference was crossed, its absolute keyword
** location (validate_errors.c writes them).
**
** Annotations for unevaluatedProperties/unevaluatedItems are bit sets over
** the instance's members or items, kept only where such a keyword can see
** them: a node that has one evaluates into a set of its own; in-place
** applicators whose failure fails their parent (allOf, $ref, then/else,
** dependentSchemas) write into their parent's set, and those whose failure
** does not (anyOf, oneOf, if, not) get a fresh set each, merged only when
** valid.
**
** Annotations (COAX_VALIDATE_ANNOTATIONS) are the values of the annotation
** keywords (OP_ANNOTATE) of every subschema that passes: a node that fails
** drops the annotations collected since it was entered, so a failing
** branch, a failing "contains" item or a failed validation keeps none.
** Work is charged: every subschema applied, keyword run, item or member
** visited and 64 string bytes read take steps from the run's budget, and
** every regex step from its regex budget, so no schema shape (fan-out
** through allOf, anyOf, references, dependentSchemas, if, contains,
** unevaluated*) can make one validation take more than its budgets allow.
*/
#include "schema/num.h"
#include "base/stack.h"
#include "schema/validate.h"

/* ---- the evaluator ------------------------------------------------------- */

static bool validate(vctx *c, const snode *n, const coax_value *inst, eset *ev);
static bool enter(vctx *c, const snode *n, const coax_value *inst, eset *ev);

/* A leaf subschema applied at once, before anything is pushed for it
** (validate_leaf.c): 1 it passes, 0 it fails while quiet, -1 apply it
** with enter(). */
static inline int leaf(vctx *c, const snode *n, const coax_value *inst, const eset *ev, const lpos *at)
{
    return n->leaf ? vctx_leaf(c, n, inst, ev, at) : -1;
}

/* The keywords that read a string take a step per 64 bytes. */
static inline bool charge_bytes(vctx *c, const coax_value *inst)
{
    return inst->type != COAX_STRING || inst->len < 64 || charge(c, inst->len / 64);
}

/* And those that read a number's digits (a bound, multipleOf), a step per
** 64 digits: a number of 100,000 digits under 65,536 multipleOf was a
** step each, 28 s. */
static inline bool charge_digits(vctx *c, const coax_value *inst)
{
    return inst->type != COAX_NUMBER || inst->len < 64 || charge(c, inst->len / 64);
}

/* ---- applicators --------------------------------------------------------- */

/* A reference that comes back to a node active on the same value. */
static bool cycle(vctx *c, const snode *n, const skw *k, const snode *t)
{
    coax_buf from, to;
    coax_buf_init(&from, c->alloc);
    coax_buf_init(&to, c->alloc);
    coax_snode_put_abs(&from, n);
    coax_snode_put_abs(&to, t);
    coax_buf_putc(&from, '\0');
    coax_buf_putc(&to, '\0');
    bool r = from.oom || to.oom ? oom(c)
                                : vctx_fatal(c, COAX_ELIMIT,
                                             "reference cycle: %s/%s comes back to %s without consuming the instance",
                                             from.data, k->name, to.data);
    coax_buf_free(&from);
    coax_buf_free(&to);
    return r;
}

static bool ref_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst, eset *ev)
{
    const snode *t = k->op == OP_REF ? k->sub : vctx_dynamic_target(c, k);
    if (!t) return false;
    size_t scanned = 0; /* references active on this value: a compare each, 16 a step */
    for (size_t i = c->nrefs; i-- > 0 && c->refs[i].inst == inst; scanned++)
        if (c->refs[i].target == t) return cycle(c, n, k, t);
    if (!charge(c, scanned / 16)) return false;
    lpos at = {NULL, LP_REF, k, 0, NULL};
    int l = leaf(c, t, inst, ev, &at); /* no cycle through a leaf: it applies nothing in place but leaves */
    if (l >= 0) return l;
    if (!reserve(c, (void **)&c->refs, &c->crefs, c->nrefs, sizeof *c->refs)) return false;
    c->refs[c->nrefs++] = (active_ref){t, inst};
    c->crossed++;
    bool ok = push_kwn(c, k->name, k->namelen) && enter(c, t, inst, ev);
    c->kpath.n--;
    c->crossed--;
    c->nrefs--;
    return ok;
}

static bool items_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst, eset *ev)
{
    if (inst->type != COAX_ARRAY) return true;
    bool ok = true;
    for (size_t i = 0; i < inst->len && !c->rc; i++) {
        const snode *sub;
        const char *kw;
        bool indexed = i < k->nsubs;
        if (indexed) sub = k->subs[i], kw = k->name;
        else if (k->sub) sub = k->sub, kw = k->name2;
        else break;
        bool r = false;
        if (sub->kind == N_FALSE && !indexed) {
            if (!msg_start(c)) return false; /* quiet: no message, no error */
            MSG("expected at most %zu item%s, got %zu", k->nsubs, k->nsubs == 1 ? "" : "s",
                (size_t)inst->len);
            vctx_error_at_kw(c, kw);
            return false; /* one error says it for every extra item */
        }
        lpos at = {NULL, LP_ITEM, k, (uint32_t)i, NULL};
        int l = leaf(c, sub, &inst->u.items[i], NULL, &at);
        if (l >= 0) { /* while quiet, the first failure ends it */
            mark(ev, i);
            if (!l && (ok = false, c->quiet)) break;
            continue;
        }
        if (!push(c, &c->ipath, NULL, i)) return false;
        if (sub->kind == N_FALSE) {
            if (push_kw(c, kw) && push(c, &c->kpath, NULL, i)) {
                msg_start(c);
                MSG("item %zu is not allowed", i);
                vctx_record(c);
                c->kpath.n -= 2;
            }
        } else {
            r = push_kw(c, kw) && (!indexed || push(c, &c->kpath, NULL, i)) &&
                enter(c, sub, &inst->u.items[i], NULL);
            c->kpath.n -= indexed ? 2 : 1;
        }
        c->ipath.n--;
        mark(ev, i);
        if (!r) {
            ok = false;
            if (c->quiet) break;
        }
    }
    return ok;
}

static bool contains_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst, eset *ev)
{
    if (inst->type != COAX_ARRAY) return true;
    size_t count = 0;
    bool annotate = ev && n->res->draft >= 2020;
    if (!push_kw(c, "contains")) return false;
    c->quiet++;
    for (size_t i = 0; i < inst->len && !c->rc; i++) {
        if (!push(c, &c->ipath, NULL, i)) break;
        bool r = validate(c, k->sub, &inst->u.items[i], NULL);
        c->ipath.n--;
        if (r) {
            count++;
            if (annotate) mark(ev, i);
            else if (!k->has_m && count >= k->n && !c->annotate) break;
        }
    }
    c->kpath.n--;
    c->quiet--;
    if (c->rc) return false;
    if (count >= k->n && (!k->has_m || count <= k->m)) return true;
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    if (count < k->n)
        MSG("expected at least %zu item%s matching \"contains\", got %zu", k->n, k->n == 1 ? "" : "s", count);
    else
        MSG("expected at most %zu item%s matching \"contains\", got %zu", k->m, k->m == 1 ? "" : "s", count);
    vctx_error_at_kw(c, "contains");
    return false;
}

static bool props_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst, eset *ev)
{
    if (inst->type != COAX_OBJECT || !charge(c, inst->len)) return !c->rc;
    const coax_value *props = k->v;
    int8_t idx[64]; /* a copy: the subschemas applied look up their own objects */
    const int8_t *found = !props ? NULL
                          : c->found.inst == inst && c->found.tab == k->ptab ? c->found.idx /* by required */
                          : !k->names ? vctx_prop_index(c, k->ptab, props, inst)
                                      : NULL;
    if (found) memcpy(idx, found, inst->len);
    bool ok = true;
    for (size_t i = 0; i < inst->len && !c->rc; i++) {
        const coax_member *m = &inst->u.members[i];
        bool matched = false, r = true;
        int32_t jj = !props     ? -1
                     : found    ? idx[i]
                     : k->names ? coax_names_find(k->names, m->key, m->klen)
                                : coax_ptab_find(k->ptab, props, m->key, m->klen);
        lpos at = {NULL, LP_PROP, k, (uint32_t)jj, m};
        int l = jj >= 0 && !k->npat ? leaf(c, k->subs[jj], &m->value, NULL, &at) : -1; /* nothing else applies */
        if (l >= 0) { /* while quiet, the first failure ends it */
            mark(ev, i);
            if (!l && (ok = false, c->quiet)) break;
            continue;
        }
        if (!push(c, &c->ipath, m->key, m->klen)) return false;
        if (props) {
            for (size_t j = jj < 0 ? props->len : (size_t)jj; j < props->len; j = props->len) {
                const coax_member *p = &props->u.members[j];
                matched = true;
                if (k->subs[j]->kind == N_FALSE) {
                    r = false;
                    if (push_kw(c, "properties")) {
                        vctx_not_allowed(c, p->key, &m->value, "", m->key, m->klen, 0);
                        c->kpath.n--;
                    }
                } else {
                    r = push_kw(c, "properties") && push(c, &c->kpath, p->key, p->klen);
                    if (r) c->kpath.v[c->kpath.n - 1].elen = k->pelen[j];
                    r = r && (jj >= 0 && !k->npat ? enter : validate)(c, k->subs[j], &m->value, NULL);
                    c->kpath.n -= 2;
                }
                break;
            }
        }
        for (size_t j = 0; j < k->npat && (r || !c->quiet) && !c->rc; j++) {
            bool hit;
            if (!vctx_regex_match(c, k->res[j], false, m->key, m->klen, &hit)) break;
            if (!hit) continue;
            matched = true;
            const coax_member *p = &k->pat->u.members[j];
            bool rr;
            if (k->patsubs[j]->kind == N_FALSE) {
                rr = false;
                if (push_kw(c, "patternProperties")) {
                    msg_start(c);
                    MSGS("property ");
                    vctx_put_str(&c->msg, m->key, m->klen, 60);
                    MSG(" is not allowed (it matches \"%s\")", p->key);
                    if (push(c, &c->kpath, p->key, p->klen)) {
                        vctx_record(c);
                        c->kpath.n--;
                    }
                    c->kpath.n--;
                }
            } else {
                rr = push_kw(c, "patternProperties") && push(c, &c->kpath, p->key, p->klen) &&
                     validate(c, k->patsubs[j], &m->value, NULL);
                c->kpath.n -= 2;
            }
            r = r && rr;
        }
        if (!matched && k->add && !c->rc) {
            matched = true;
            if (k->add->kind == N_FALSE) {
                r = false;
                vctx_not_allowed(c, "additionalProperties", &m->value, "", m->key, m->klen, 0);
            } else {
                r = push_kw(c, "additionalProperties") && validate(c, k->add, &m->value, NULL);
                c->kpath.n--;
            }
        }
        c->ipath.n--;
        if (matched) mark(ev, i);
        if (!r) {
            ok = false;
            if (c->quiet) break;
        }
    }
    return ok;
}

static bool deps_kw(vctx *c, const skw *k, const coax_value *inst, eset *ev)
{
    /* every name is looked up (an index of the members) */
    if (inst->type != COAX_OBJECT || !charge(c, k->cost + inst->len)) return !c->rc;
    bool ok = true;
    for (size_t j = 0; j < k->nsubs && !c->rc; j++) {
        const coax_member *d = &k->v->u.members[j];
        if (!vctx_member_named(c, inst, d->key, d->klen)) {
            if (c->rc) return false;
            continue;
        }
        bool r = true;
        if (!push_kw(c, k->name) || !push(c, &c->kpath, d->key, d->klen)) return false;
        if (!k->subs[j]) {
            for (size_t i = 0; i < d->value.len; i++) {
                const coax_value *need = &d->value.u.items[i];
                if (vctx_member_named(c, inst, need->u.text, need->len)) continue;
                if (c->rc) return false;
                r = false;
                msg_start(c);
                MSGS("property ");
                vctx_put_str(&c->msg, d->key, d->klen, 60);
                MSGS(" requires property ");
                vctx_put_str(&c->msg, need->u.text, need->len, 60);
                MSGS(", which is missing");
                vctx_record(c);
                if (c->quiet) break;
            }
        } else {
            r = validate(c, k->subs[j], inst, ev);
        }
        c->kpath.n -= 2;
        if (!r) {
            ok = false;
            if (c->quiet) break;
        }
    }
    return ok;
}

static bool propnames_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_OBJECT) return true;
    bool ok = true;
    for (size_t i = 0; i < inst->len && !c->rc; i++) {
        const coax_member *m = &inst->u.members[i];
        coax_value name;
        memset(&name, 0, sizeof name);
        name.type = COAX_STRING;
        name.len = m->klen;
        name.u.text = m->key;
        if (!push(c, &c->ipath, m->key, m->klen)) return false;
        bool r;
        if (k->sub->kind == N_FALSE) {
            r = false;
            vctx_not_allowed(c, "propertyNames", &name, "", m->key, m->klen, 0);
        } else {
            r = push_kw(c, "propertyNames") && validate(c, k->sub, &name, NULL);
            c->kpath.n--;
        }
        c->ipath.n--;
        if (!r) {
            ok = false;
            if (c->quiet) break;
        }
    }
    return ok;
}

/* The branches of anyOf and oneOf applied in order: how many passed, the
** first two that did, the evaluated set of the one a oneOf chose. */
typedef struct branches {
    size_t valid, first, second;
    eset chosen;
} branches;

static void try_branches(vctx *c, const skw *k, const coax_value *inst, eset *ev, branches *o)
{
    bool one = k->op == OP_ONEOF;
    bool track = ev != NULL;
    memset(o, 0, sizeof *o);
    if (!push_kwn(c, k->name, k->namelen)) return;
    for (size_t i = 0; i < k->nsubs && !c->rc; i++) {
        eset b = {0};
        if (track && !vctx_eset_init(c, &b, ev->n)) break;
        lpos at = {NULL, LP_BRANCH, k, (uint32_t)i, NULL};
        int l = track ? -1 : leaf(c, k->subs[i], inst, NULL, &at);
        bool r = l > 0;
        if (l < 0) {
            r = push(c, &c->kpath, NULL, i) && enter(c, k->subs[i], inst, track ? &b : NULL);
            c->kpath.n--;
        }
        if (r) {
            if (o->valid == 0) o->first = i;
            else if (o->valid == 1) o->second = i;
            o->valid++;
            if (!one) merge(ev, &b);
            else if (o->valid == 1) {
                o->chosen = b;
                b.bits = NULL;
            }
        }
        vctx_eset_free(c, &b);
        if (!track && !c->annotate && ((!one && o->valid) || (one && o->valid > 1))) break;
        if (one && o->valid > 1 && c->quiet) break;
    }
    c->kpath.n--;
}

/* anyOf and oneOf. Collecting every error, most branches that fail are
** followed by one that passes, and their errors are dropped: so the
** branches are first tried silently (their errors charged and bounded as
** if written, not written), and only when the keyword fails do they run
** again, with what the trial spent given back, writing their errors (no
** trial nested in that rerun: the work stays within twice the budget).
** The charges, the limits met and the errors are those of one run that
** writes every error. */
static bool some_of(vctx *c, const skw *k, const coax_value *inst, eset *ev)
{
    emark em = err_mark(c);
    bool one = k->op == OP_ONEOF;
    bool trial = !c->quiet && !c->silent && !c->eager;
    vspent sm = vctx_spent_mark(c);
    branches o;
    c->silent += trial;
    try_branches(c, k, inst, ev, &o);
    c->silent -= trial;
    if (c->rc) {
        vctx_eset_free(c, &o.chosen);
        return false;
    }
    bool ok = one ? o.valid == 1 : o.valid > 0;
    if (ok) {
        err_rewind(c, em);
        if (one) merge(ev, &o.chosen);
        vctx_eset_free(c, &o.chosen);
        return true;
    }
    vctx_eset_free(c, &o.chosen);
    if (trial && o.valid == 0) { /* the branches' errors are the keyword's */
        err_rewind(c, em);
        vctx_give_back(c, sm);
        c->eager++;
        try_branches(c, k, inst, ev, &o);
        c->eager--;
        vctx_eset_free(c, &o.chosen);
        if (c->rc) return false;
    }
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    if (!one) {
        MSGS("expected the value to match at least one schema of \"anyOf\", it matches none");
    } else if (o.valid == 0) {
        MSGS("expected the value to match exactly one schema of \"oneOf\", it matches none");
    } else {
        err_rewind(c, em);
        MSG("expected the value to match exactly one schema of \"oneOf\", it matches %zu and %zu%s",
            o.first, o.second, o.valid > 2 ? " (and more)" : "");
    }
    vctx_error_at_kw(c, k->name);
    return false;
}

static bool if_kw(vctx *c, const skw *k, const coax_value *inst, eset *ev)
{
    eset b = {0};
    if (ev && !vctx_eset_init(c, &b, ev->n)) return false;
    c->quiet++;
    bool cond = push_kw(c, "if") && validate(c, k->sub, inst, ev ? &b : NULL);
    c->kpath.n--;
    c->quiet--;
    if (cond) merge(ev, &b);
    vctx_eset_free(c, &b);
    if (c->rc) return false;
    const snode *next = k->subs[cond ? 0 : 1];
    if (!next) return true;
    bool r = push_kw(c, cond ? "then" : "else") && validate(c, next, inst, ev);
    c->kpath.n--;
    return r;
}

static bool uneval_kw(vctx *c, const skw *k, const coax_value *inst, eset *ev)
{
    bool items = k->op == OP_UNEVAL_ITEMS;
    if (inst->type != (items ? COAX_ARRAY : COAX_OBJECT) || !ev) return true;
    if (!charge(c, inst->len / 16)) return false;
    bool ok = true;
    for (size_t i = 0; i < inst->len && !c->rc; i++) {
        if (marked(ev, i)) continue;
        const coax_member *m = items ? NULL : &inst->u.members[i];
        const coax_value *v = items ? &inst->u.items[i] : &m->value;
        if (!(items ? push(c, &c->ipath, NULL, i) : push(c, &c->ipath, m->key, m->klen))) return false;
        bool r;
        if (k->sub->kind == N_FALSE) {
            r = false;
            vctx_not_allowed(c, k->name, v, " (no keyword of the schema evaluates it)", m ? m->key : NULL,
                             m ? m->klen : 0, i);
        } else {
            r = push_kw(c, k->name) && validate(c, k->sub, v, NULL);
            c->kpath.n--;
        }
        c->ipath.n--;
        if (r) mark(ev, i);
        else {
            ok = false;
            if (c->quiet) break;
        }
    }
    return ok;
}

/* ---- the keywords of a node ---------------------------------------------- */

/* Runs keyword 'k' of node 'n' (its charge already taken). */
static bool run_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst, eset *ev)
{
    switch (k->op) {
    case OP_REF:
    case OP_DYNREF:
    case OP_RECREF:
        return ref_kw(c, n, k, inst, ev);
    case OP_TYPE:
        if ((k->tmask >> inst->type) & 1) return true; /* the coax type answers */
        return vctx_type_kw(c, n, k, inst);
    case OP_ENUM:
        return vctx_enum_kw(c, k, inst);
    case OP_CONST:
        return vctx_const_kw(c, k, inst);
    case OP_MULTIPLEOF:
        return charge_digits(c, inst) && vctx_multiple_kw(c, k, inst);
    case OP_MAXIMUM:
    case OP_EXMAXIMUM:
    case OP_MINIMUM:
    case OP_EXMINIMUM:
        return charge_digits(c, inst) && vctx_cmp_kw(c, k, inst);
    case OP_MAXLENGTH:
    case OP_MINLENGTH:
        if (inst->type != COAX_STRING) return true;
        if (!charge_bytes(c, inst)) return false;
        return vctx_length_kw(c, k, inst);
    case OP_PATTERN:
        if (!charge_bytes(c, inst)) return false;
        return vctx_pattern_kw(c, k, inst);
    case OP_FORMAT:
        if (!charge_bytes(c, inst)) return false;
        return vctx_format_kw(c, k, inst);
    case OP_ITEMS:
        return items_kw(c, n, k, inst, ev);
    case OP_CONTAINS:
        return contains_kw(c, n, k, inst, ev);
    case OP_MAXITEMS:
    case OP_MINITEMS:
        if (inst->type != COAX_ARRAY) return true;
        return vctx_count_kw(c, k, inst->len, "item", "items", k->op == OP_MAXITEMS);
    case OP_UNIQUE:
        return vctx_unique_kw(c, k, inst);
    case OP_MAXPROPS:
    case OP_MINPROPS:
        if (inst->type != COAX_OBJECT) return true;
        return vctx_count_kw(c, k, inst->len, "property", "properties", k->op == OP_MAXPROPS);
    case OP_REQUIRED:
        return vctx_required_kw(c, k, inst);
    case OP_PROPS:
        return props_kw(c, n, k, inst, ev);
    case OP_DEPENDENCIES:
        return deps_kw(c, k, inst, ev);
    case OP_PROPNAMES:
        return propnames_kw(c, k, inst);
    case OP_ALLOF: {
        bool ok = true;
        if (!push_kw(c, "allOf")) return false;
        for (size_t i = 0; i < k->nsubs && !c->rc; i++) {
            bool r = push(c, &c->kpath, NULL, i) && validate(c, k->subs[i], inst, ev);
            c->kpath.n--;
            if (!r) {
                ok = false;
                if (c->quiet) break;
            }
        }
        c->kpath.n--;
        return ok;
    }
    case OP_ANYOF:
    case OP_ONEOF:
        return some_of(c, k, inst, ev);
    case OP_NOT: {
        c->quiet++;
        bool r = push_kw(c, "not") && validate(c, k->sub, inst, NULL);
        c->kpath.n--;
        c->quiet--;
        if (c->rc) return false;
        if (!r) return true;
        if (!msg_start(c)) return false; /* quiet: no message, no error */
        MSGS("expected the value not to match the schema of \"not\", got ");
        vctx_put_got(c, inst);
        vctx_error_at_kw(c, "not");
        return false;
    }
    case OP_IF:
        return if_kw(c, k, inst, ev);
    case OP_UNEVAL_ITEMS:
    case OP_UNEVAL_PROPS:
        return uneval_kw(c, k, inst, ev);
    case OP_CONTENT:
        if (!charge_bytes(c, inst)) return false;
        return vctx_content_kw(c, k, inst);
    case OP_ANNOTATE:
        if (c->annotate) vctx_annotate(c, k); /* most runs collect none: no call */
        return true;
    default:
        return true;
    }
}

/* Every keyword of a node, each charged its cost, with the node's own
** evaluated set when it has unevaluated* keywords, and the annotations of
** a node that fails dropped. */
static bool run_all(vctx *c, const snode *n, const coax_value *inst, eset *ev)
{
    eset local = {0}, *my = ev;
    if (n->uneval && (inst->type == COAX_ARRAY || inst->type == COAX_OBJECT)) {
        if (!vctx_eset_init(c, &local, inst->len)) return false;
        my = &local;
    }
    size_t anns_at = c->nanns, astrs_at = c->astrs.len;
    bool ok = true;
    for (size_t i = 0; i < n->nkw && !c->rc; i++) {
        if (!charge(c, n->kw[i].cost) || !run_kw(c, n, &n->kw[i], inst, my)) {
            ok = false;
            if (c->quiet) break;
        }
    }
    if (!ok) { /* a failing schema keeps no annotations, nor do its subschemas */
        c->nanns = anns_at;
        c->astrs.len = astrs_at;
    }
    if (my == &local) {
        if (ok && ev) merge(ev, &local);
        vctx_eset_free(c, &local);
    }
    return ok;
}

/* A node: its keywords one after another (the evaluation that collects
** annotations or tracks evaluated items runs them all, run_all; the
** others run the node's run, program.c, with the annotation keywords'
** costs charged with the keyword after them or as the node's tail). The
** keywords most nodes have are tested here, the rest in run_kw. */
static bool validate(vctx *c, const snode *n, const coax_value *inst, eset *ev)
{
    lpos at = {NULL, LP_NONE, NULL, 0, NULL};
    int l = leaf(c, n, inst, ev, &at);
    return l >= 0 ? l : enter(c, n, inst, ev);
}

/* A node applied the ordinary way (not a leaf the value passes). */
static bool enter(vctx *c, const snode *n, const coax_value *inst, eset *ev)
{
    if (c->rc || !charge(c, 1)) return false;
    if (n->kind != N_OBJECT) return n->kind == N_TRUE || vctx_false_schema(c, n, inst);
    if (c->nframes >= c->s->max_depth)
        return vctx_fatal(c, COAX_EDEPTH, "schema evaluation nested deeper than the limit of %zu",
                          c->s->max_depth);
    if (coax_stack_short()) return vctx_fatal(c, COAX_EDEPTH, "schema evaluation nested %s", COAX_STACK_WHY);
    bool pushed = c->scoped && (!c->nscope || c->scope[c->nscope - 1] != n->res);
    if (pushed) {
        if (!reserve(c, (void **)&c->scope, &c->cscope, c->nscope, sizeof *c->scope)) return false;
        c->scope[c->nscope++] = n->res;
    }
    if (!reserve(c, (void **)&c->frames, &c->cframes, c->nframes, sizeof *c->frames)) return false;
    c->frames[c->nframes++] = (vframe){(uint32_t)c->kpath.n, (uint32_t)c->ipath.n, n};
    bool ok = true;
    if (c->annotate || n->uneval) {
        ok = run_all(c, n, inst, ev);
        goto done;
    }
    for (const skw *k = n->run, *end = k + n->nrun; k < end; k++) {
        if (c->rc || !charge(c, k->charge)) {
            ok = false;
            goto done;
        }
        bool r;
        switch (k->op) {
        case OP_TYPE:
            r = ((k->tmask >> inst->type) & 1) || vctx_type_kw(c, n, k, inst);
            break;
        case OP_MAXLENGTH: /* no more characters than bytes */
            r = inst->type != COAX_STRING || (inst->len <= k->n && inst->len < 64) ||
                (charge_bytes(c, inst) && vctx_length_kw(c, k, inst));
            break;
        case OP_MINLENGTH: /* minLength 1: a first byte that begins a character */
            r = inst->type != COAX_STRING ||
                (k->n <= 1 && inst->len && inst->len < 64 && ((unsigned char)inst->u.text[0] & 0xC0) != 0x80) ||
                (charge_bytes(c, inst) && vctx_length_kw(c, k, inst));
            break;
        case OP_REF:
            r = ref_kw(c, n, k, inst, ev);
            break;
        case OP_PROPS:
            r = props_kw(c, n, k, inst, ev);
            break;
        case OP_REQUIRED:
            r = vctx_required_kw(c, k, inst);
            break;
        case OP_ENUM:
            r = vctx_enum_kw(c, k, inst);
            break;
        case OP_ANYOF:
        case OP_ONEOF:
            r = some_of(c, k, inst, ev);
            break;
        default:
            r = run_kw(c, n, k, inst, ev);
            break;
        }
        if (!r) {
            ok = false;
            if (c->quiet) goto done;
        }
    }
    if (n->tail && (c->rc || !charge(c, n->tail))) ok = false;
done:
    c->nframes--;
    if (pushed) c->nscope--;
    return ok && !c->rc;
}

bool vctx_validate(vctx *c, const snode *root, const coax_value *inst)
{
    return validate(c, root, inst, NULL);
}
