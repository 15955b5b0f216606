/*
** validate_leaf.c: most subschemas are leaves (program.c): tests of the
** value, objects and arrays whose members and items are leaves, references
** to leaves, anyOfs and oneOfs of leaves. A leaf is applied here at once,
** without entering it: no frame, no path, no charge per keyword. It takes
** the steps and regex steps validate.c would take, counted in the order
** validate.c takes them, and taken only at the end, when the budget holds
** them all (then nothing else happens between those charges and no budget
** could run out among them); its regex steps are counted on a copy of the
** budget.
**
** A leaf that fails while quiet has taken what validate.c takes while
** quiet (it stops at the first failure, records nothing). While errors are
** only counted (validate.c's silent trial of anyOf and oneOf branches:
** charged by their bytes, not written), a leaf may fail by "type",
** "const", "required" or a member a false subschema refuses: each error
** is counted here as count_silently counts it, from the path the leaf went
** down (lpos). Anything else (an error to write, a test that cannot tell,
** a budget that might run out, the depth limit, a run that collects
** annotations) leaves the node to validate.c, from its start: a leaf
** takes nothing and records nothing until it is sure.
*/
#include "schema/format.h"
#include "schema/num.h"
#include "schema/validate.h"

/* What a leaf has taken so far: steps, the regex budget left, the bytes
** of the errors it counted (and charged) while silent. */
typedef struct lpass {
    uint64_t steps, regex, vbytes;
    bool silent; /* an error is counted, not written: the run's trial or an anyOf's here */
    size_t klen, ilen; /* the pointers' lengths where validate.c stands, once measured */
} lpass;

/* What a leaf tells: it passes; it fails, having taken what validate.c
** takes to find that out; or it cannot tell (validate.c must apply it). */
enum { FAILS = 0, PASSES = 1, UNSURE = -1 };

/* Most values pass: the code for a failure is laid out of the way. */
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static int pass(vctx *c, const snode *n, const coax_value *inst, size_t refs, const lpos *at, lpass *p);

/* The length of index i's JSON Pointer segment ("/" and its digits); most
** are one digit. */
static inline size_t index_len(size_t i) { return i < 10 ? 2 : vctx_index_len(i); }

/* Adds the JSON Pointers' lengths a step down adds to *kl (keyword path)
** and *il (instance path). A member under "properties" has the name of the
** property it matched (the same bytes): the segment measured at compilation
** serves both pointers (0: over 2^32, measured now). */
static inline void step_lens(const lpos *at, size_t *kl, size_t *il)
{
    const skw *k = at->k;
    size_t e;
    switch (at->kind) {
    case LP_PROP:
        if (at->j == LP_ADD) {
            *kl += sizeof "/additionalProperties" - 1, *il += vctx_key_len(at->m->key, at->m->klen);
            break;
        }
        e = k->pelen[at->j] ? k->pelen[at->j] : vctx_key_len(at->m->key, at->m->klen);
        *kl += sizeof "/properties" - 1 + e, *il += e;
        break;
    case LP_ITEM:
        e = index_len(at->j);
        *kl += at->j < k->nsubs ? 1 + k->namelen + e : 1 + (size_t)k->name2len, *il += e;
        break;
    case LP_BRANCH: *kl += index_len(at->j); break;
    case LP_REF: *kl += 1 + k->namelen; break;
    case LP_ANYOF: *kl += 1 + k->namelen + index_len(at->j); break;
    default: break;
    }
}

/* The length of the message just written in c->msg; SIZE_MAX when its
** writing ran out of memory. */
static size_t msg_len(const vctx *c) { return c->msg.oom ? SIZE_MAX : c->msg.len; }

/* An error of node 'n' (its message 'msglen' bytes), down path 'at', counted as
** count_silently (validate_errors.c) counts it: its bytes (the two
** pointers, the message, the nesting, the absolute location once a
** reference was crossed) charged and bounded. 'ksuffix' and 'isuffix':
** what the keyword and instance pointers add from the node's entry. False
** when it cannot be counted here. */
static bool count_error(vctx *c, const snode *n, const lpos *at, size_t msglen, size_t ksuffix, size_t isuffix,
                        lpass *p)
{
    if (!p->silent || msglen == SIZE_MAX) return false;
    size_t klen = ksuffix, ilen = isuffix, frames = 0, crossed = c->crossed;
    for (const lpos *a = at; a; a = a->up) {
        step_lens(a, &klen, &ilen);
        frames++;
        crossed += a->kind == LP_REF;
    }
    if (p->klen == SIZE_MAX) p->klen = vctx_path_len(&c->kpath), p->ilen = vctx_path_len(&c->ipath);
    klen += p->klen, ilen += p->ilen, frames += c->nframes;
    size_t bytes = ilen + 1 + klen + 1 + msglen + 1 + (frames < 64 ? frames : 64) * 2 * sizeof(uint32_t);
    if (crossed) bytes += n->abslen + ksuffix + 1;
    p->vbytes += bytes;
    p->steps += vctx_record_steps(bytes);
    return c->strs.len + c->nests.len + c->vbytes + p->vbytes <= c->s->max_error_bytes;
}

static bool count_type_error(vctx *c, const snode *n, const skw *k, const coax_value *inst, const lpos *at, lpass *p)
{
    if (!p->silent) return false;
    size_t len = vctx_type_msg_len(k, inst); /* only its length counts: measured, unless only writing tells */
    if (len == SIZE_MAX) vctx_type_msg(c, k, inst), len = msg_len(c);
    return count_error(c, n, at, len, sizeof "/type" - 1, 0, p);
}

/* The lengths of the messages of a "required" name missing and of a member
** a false subschema refuses: only their lengths count, measured without
** writing them unless only writing tells. */
static __attribute__((noinline)) size_t required_msg_len(vctx *c, const coax_value *name)
{
    size_t len = vctx_str_len(name->u.text, name->len, 60);
    if (len != SIZE_MAX) return sizeof "missing required property " - 1 + len;
    vctx_required_msg(c, name);
    return msg_len(c);
}

static __attribute__((noinline)) size_t not_allowed_msg_len(vctx *c, const coax_member *m)
{
    size_t len = vctx_str_len(m->key, m->klen, 60);
    if (len != SIZE_MAX) return sizeof "property " - 1 + len + sizeof " is not allowed" - 1;
    vctx_not_allowed_msg(c, "", m->key, m->klen, 0);
    return msg_len(c);
}

/* The length of a "const" error's message: measured, unless only writing
** tells (a value that is no string, a string to escape or to cut). */
static __attribute__((noinline)) size_t const_msg_len(vctx *c, const skw *k, const coax_value *inst)
{
    size_t got = vctx_got_len(inst);
    if (k->n != SIZE_MAX && got != SIZE_MAX) return sizeof "expected " - 1 + k->n + sizeof ", got " - 1 + got;
    vctx_const_msg(c, k, inst);
    return msg_len(c);
}

/* The errors of "required": each name missing, in its order. */
static bool count_required_errors(vctx *c, const snode *n, const skw *k, uint64_t seen, const lpos *at, lpass *p)
{
    if (!p->silent) return false;
    for (size_t i = 0; i < k->v->len; i++) {
        if ((seen >> k->ridx[i]) & 1) continue;
        if (!count_error(c, n, at, required_msg_len(c, &k->v->u.items[i]), 1 + (size_t)k->namelen, 0, p))
            return false;
    }
    return true;
}

/* A member a false subschema refuses: under "properties" (j >= 0) or
** "additionalProperties". */
static bool count_not_allowed(vctx *c, const snode *n, const skw *k, int32_t j, const coax_member *m, const lpos *at,
                              lpass *p)
{
    if (!p->silent) return false;
    size_t len = not_allowed_msg_len(c, m);
    lpos self = {NULL, LP_PROP, k, j >= 0 ? (uint32_t)j : LP_ADD, m};
    size_t kl = 0, il = 0;
    step_lens(&self, &kl, &il);
    return count_error(c, n, at, len, kl, il, p);
}

/* A quiet node stops at its first failure: the keywords after keyword 'k'
** and its tail are not charged (n->leaf_charge charged them). */
static int stop(const snode *n, const skw *k, lpass *p)
{
    uint64_t after = n->tail;
    for (const skw *x = k + 1, *end = n->run + n->nrun; x < end; x++) after += x->charge;
    p->steps -= after;
    return FAILS;
}

/* A test that failed: quiet, the node stops; else only a counted "type". */
#define FAILED(counted)                          \
    do {                                         \
        if (c->quiet) return stop(n, k, p);      \
        if (!(counted)) return UNSURE;           \
        failed = true;                           \
    } while (0)

/* The keywords of a LEAF_TESTS node on a value that is no array or object,
** in order, charged as validate.c charges them (the node's step, each
** keyword's, the tail: leaf_charge); after a failure, the rest too unless
** quiet. Most leaves a value meets are these: it is inlined where a
** member, an item or a branch meets one, so that most of them cost no
** call (a call and its frame cost about as much as the tests). */
static inline __attribute__((always_inline)) int scalar_pass(vctx *c, const snode *n, const coax_value *inst,
                                                             const lpos *at, lpass *p)
{
    p->steps += n->leaf_charge;
    bool failed = false;
    uint64_t bytes = inst->len / 64; /* the steps of each keyword that reads a string or a number's digits
                                      ** (read only when the value is one: those keywords act on it alone) */
    int r;
    const skw *k = n->run; /* "type" comes first in a run (compile.c) */
    if (UNLIKELY(!((n->ltmask >> inst->type) & 1) && !vctx_type_ok(n, k, inst)))
        FAILED(count_type_error(c, n, k, inst, at, p));
    /* then only the keywords that act on the value's type: the others pass it */
    for (const skw *const *t = n->ltests + n->ltest_at[inst->type], *const *e = n->ltests + n->ltest_at[inst->type + 1];
         t < e; t++) {
        k = *t;
        switch (k->op) {
        case OP_MAXLENGTH:
        case OP_MINLENGTH: /* no more characters than bytes, nor fewer than a quarter of them (a
                            ** string is valid UTF-8): most strings pass uncounted, without a call */
            p->steps += bytes;
            if (!(k->op == OP_MAXLENGTH ? inst->len <= k->n : inst->len / 4 >= k->n) && !vctx_length_ok(k, inst))
                FAILED(false);
            break;
        case OP_ENUM: /* of strings (n->leaf): a hashed one charges the string's hash and a lookup */
            if (inst->type != COAX_STRING) return UNSURE;
            if (k->vset) p->steps += 2 + bytes;
            if (UNLIKELY(coax_names_find(k->names, inst->u.text, inst->len) < 0)) FAILED(false);
            break;
        case OP_CONST:
            if ((r = coax_value_equal(k->v, inst, c->alloc)) < 0) return UNSURE;
            if (!r) FAILED(p->silent && count_error(c, n, at, const_msg_len(c, k, inst), sizeof "/const" - 1, 0, p));
            break;
        case OP_MAXIMUM:
        case OP_EXMAXIMUM:
        case OP_MINIMUM:
        case OP_EXMINIMUM:
            p->steps += bytes;
            if (UNLIKELY(!vctx_bound_ok(k, inst))) FAILED(false);
            break;
        case OP_MULTIPLEOF:
            p->steps += bytes;
            if (coax_num_multiple(inst->u.text, inst->len, k->v->u.text, k->v->len) != 1) FAILED(false);
            break;
        case OP_FORMAT:
            p->steps += bytes;
            if ((r = coax_format_check((coax_format)k->n, inst->u.text, inst->len, c->alloc)) < 0) return UNSURE;
            if (UNLIKELY(!r)) FAILED(false);
            break;
        case OP_PATTERN:
            p->steps += bytes;
            if ((r = vctx_match_in(c, k->re, k->decimal, inst->u.text, inst->len, &p->regex)) < 0) return UNSURE;
            if (UNLIKELY(!r)) FAILED(false);
            break;
        default:
            return UNSURE;
        }
    }
    return failed ? FAILS : PASSES;
}

/* The subschema applied to a member or an item. */
static inline __attribute__((always_inline)) int sub_pass(vctx *c, const snode *s, const coax_value *v, const lpos *at,
                                                           lpass *p)
{
    if (UNLIKELY(s->kind == N_FALSE)) return c->quiet ? FAILS : UNSURE; /* its keyword reports it (quiet: no step) */
    if (s->leaf == LEAF_TESTS && v->type < COAX_ARRAY) return scalar_pass(c, s, v, at, p);
    return pass(c, s, v, 0, at, p); /* a member's value has no reference active on it */
}

/* "required" just before "properties" is checked with the names that
** "properties" finds for its members (tests_pass), one probe per member for
** both. When a member fails in a quiet run, the node stops at "required"
** if a name is missing (it would have stopped there first: back to what
** "required" had taken, 'steps' and 'regex'), else at "properties". */
static int stop_props(const snode *n, const skw *req, const skw *props, const coax_value *inst, size_t from,
                      uint64_t seen, uint64_t steps, uint64_t regex, lpass *p)
{
    if (req) {
        for (size_t i = from; i < inst->len; i++) {
            int32_t j = coax_names_find(props->names, inst->u.members[i].key, inst->u.members[i].klen);
            if (j >= 0) seen |= (uint64_t)1 << j;
        }
        if ((seen & req->reqmask) != req->reqmask) {
            p->steps = steps, p->regex = regex;
            return stop(n, req, p);
        }
    }
    return stop(n, props, p);
}

/* The keywords of a LEAF_TESTS node on an array or an object, as
** scalar_pass runs them. */
static int tests_pass(vctx *c, const snode *n, const coax_value *inst, const lpos *at, lpass *p)
{
    p->steps += n->leaf_charge;
    bool failed = false;
    int r;
    uint64_t seen = 0; /* the indexes in "properties" of the members' names */
    const skw *req = NULL; /* a "required" checked after "properties", what it had taken */
    uint64_t req_steps = 0, req_regex = 0;
    const skw *k = n->run; /* "type" comes first in a run (compile.c) */
    if (UNLIKELY(!((n->ltmask >> inst->type) & 1) && !vctx_type_ok(n, k, inst)))
        FAILED(count_type_error(c, n, k, inst, at, p));
    /* then only the keywords that act on the value's type: the others pass it */
    for (const skw *const *t = n->ltests + n->ltest_at[inst->type], *const *e = n->ltests + n->ltest_at[inst->type + 1];
         t < e; t++) {
        k = *t;
        switch (k->op) {
        case OP_MAXITEMS:
        case OP_MINITEMS:
        case OP_MAXPROPS:
        case OP_MINPROPS: /* the value's type is the keyword's (ltests), so len counts what it bounds */
            if (!vctx_count_ok(k, inst->len, k->op == OP_MAXITEMS || k->op == OP_MAXPROPS)) FAILED(false);
            break;
        case OP_UNIQUE: { /* a few scalars, every pair compared (validate_assert.c) */
            uint64_t steps;
            size_t dj, di;
            if (inst->len < 2) break;
            if (!vctx_small_scalars(inst, &steps)) return UNSURE;
            p->steps += steps;
            if (vctx_scalar_duplicate(inst, &dj, &di)) FAILED(false);
            break;
        }
        case OP_REQUIRED: /* a probe per member, the names all in "properties" */
            p->steps += inst->len;
            for (size_t i = 0; i < inst->len; i++) {
                int32_t j = coax_names_find(k->names, inst->u.members[i].key, inst->u.members[i].klen);
                if (j >= 0) seen |= (uint64_t)1 << j;
            }
            if ((seen & k->reqmask) != k->reqmask) FAILED(count_required_errors(c, n, k, seen, at, p));
            break;
        case OP_PROPS: /* a step per member, and the subschema each is applied */
            if ((req = k->lreq)) p->steps += inst->len, req_steps = p->steps, req_regex = p->regex;
            p->steps += inst->len;
            for (size_t i = 0; i < inst->len; i++) {
                const coax_member *m = &inst->u.members[i];
                int32_t j = k->names ? coax_names_find(k->names, m->key, m->klen) : -1;
                if (j >= 0) seen |= (uint64_t)1 << j;
                const snode *sub = j >= 0 ? k->subs[j] : k->add;
                if (UNLIKELY(!sub)) continue;
                if (UNLIKELY(sub->kind == N_FALSE)) { /* refused by its keyword (quiet: no step) */
                    if (c->quiet) return stop_props(n, req, k, inst, i + 1, seen, req_steps, req_regex, p);
                    if (!count_not_allowed(c, n, k, j, m, at, p)) return UNSURE;
                    failed = true;
                    continue;
                }
                lpos down = {at, LP_PROP, k, (uint32_t)j, m}; /* j -1 is LP_ADD */
                if (UNLIKELY((r = sub_pass(c, sub, &m->value, &down, p)) == UNSURE)) return UNSURE;
                if (UNLIKELY(!r)) {
                    if (c->quiet) return stop_props(n, req, k, inst, i + 1, seen, req_steps, req_regex, p);
                    failed = true;
                }
            }
            if (req && (seen & req->reqmask) != req->reqmask) {
                if (c->quiet) {
                    p->steps = req_steps, p->regex = req_regex;
                    return stop(n, req, p);
                }
                if (!count_required_errors(c, n, req, seen, at, p)) return UNSURE;
                failed = true;
            }
            break;
        case OP_ITEMS:
            for (size_t i = 0; i < inst->len; i++) {
                lpos down = {at, LP_ITEM, k, (uint32_t)i, NULL};
                if (UNLIKELY((r = sub_pass(c, k->sub, &inst->u.items[i], &down, p)) == UNSURE)) return UNSURE;
                if (UNLIKELY(!r)) FAILED(true);
            }
            break;
        default: /* enum and const on an array or an object: compared by validate.c */
            return UNSURE;
        }
    }
    return failed ? FAILS : PASSES;
}

/* Node 'n' as a leaf on 'inst', 'refs' references active on it, reached
** down path 'at'. A reference to a node that is no reference is followed
** here, not by a call: most references are to tests (a call costs about as
** much as the tests); the steps are taken in the same order. */
static int pass(vctx *c, const snode *n, const coax_value *inst, size_t refs, const lpos *at, lpass *p)
{
    if (UNLIKELY(p->steps > c->steps)) return UNSURE; /* the budget ran out: validate.c tells where (between two
                                             ** calls, a leaf tests an object's or an array's values) */
    lpos down;
    uint64_t tail = 0; /* the reference's, taken as it would take it after its target */
    if (n->lref) {
        const skw *k = &n->run[0];
        p->steps += 1 + k->charge + refs / 16;
        down = (lpos){at, LP_REF, k, 0, NULL};
        at = &down, tail = n->tail, n = n->lref, refs++;
    }
    int r;
    if (n->leaf == LEAF_TESTS) {
        r = inst->type < COAX_ARRAY ? scalar_pass(c, n, inst, at, p) : tests_pass(c, n, inst, at, p);
    } else {
        p->steps++; /* the node's own step */
        if (n->leaf == LEAF_TRUE) {
            r = PASSES;
            goto out;
        }
        const skw *k = &n->run[0];
        p->steps += k->charge;
        if (n->leaf == LEAF_REF) { /* a step per 16 references active on the value (validate.c) */
            p->steps += refs / 16;
            lpos next = {at, LP_REF, k, 0, NULL};
            r = pass(c, k->sub, inst, refs + 1, &next, p);
        } else if (((n->lfirst >> inst->type) & 1) && (c->quiet || !c->eager)) {
            p->steps += k->subs[0]->leaf_charge + n->tail + tail; /* its first branch passes it by its "type" */
            return PASSES;
        } else { /* anyOf: the first branch that passes; oneOf: one branch alone passes (validate.c
                  ** stops at a second). The errors of those that fail, counted silently, are dropped
                  ** (validate.c's trial; in a run writing its errors again, left to it). */
            if (!c->quiet && c->eager) return UNSURE;
            bool silent = p->silent, one = n->leaf == LEAF_ONEOF;
            uint64_t vbytes = p->vbytes;
            size_t valid = 0;
            p->silent = !c->quiet;
            for (uint32_t i = 0; i < k->nsubs && valid < (one ? 2u : 1u); i++) {
                lpos next = {at, LP_ANYOF, k, i, NULL};
                const snode *b = k->subs[i];
                r = b->leaf == LEAF_TESTS && inst->type < COAX_ARRAY ? scalar_pass(c, b, inst, &next, p)
                                                                     : pass(c, b, inst, refs, &next, p);
                if (UNLIKELY(r == UNSURE)) return UNSURE;
                valid += r == PASSES;
            }
            p->silent = silent;
            p->vbytes = vbytes;
            r = valid == 1 ? PASSES : FAILS;
            if (r == FAILS && !c->quiet) return UNSURE; /* the keyword reports its own error */
        }
        if (r == PASSES || (r == FAILS && !c->quiet)) p->steps += n->tail; /* not quiet: the node goes on */
    }
out:
    if (tail && (r == PASSES || (r == FAILS && !c->quiet))) p->steps += tail;
    return r;
}

/* Whether a leaf gave up on 'inst' in this run (c->unsure). */
static bool gave_up_on(const vctx *c, const coax_value *inst)
{
    for (size_t i = 0; i < c->nunsure && i < VCTX_UNSURE; i++)
        if (c->unsure[i] == inst) return true;
    return false;
}

int vctx_leaf(vctx *c, const snode *n, const coax_value *inst, const eset *ev, const lpos *at)
{
    /* a set of evaluated members is written by "properties", "items" and anyOf, left to validate.c */
    if (c->rc || c->annotate || c->nframes + n->leaf_depth > c->s->max_depth || (ev && !n->leaf_plain) ||
        (c->nunsure && gave_up_on(c, inst)))
        return UNSURE;
    size_t refs = 0;
    if (n->leaf == LEAF_REF)
        while (refs < c->nrefs && c->refs[c->nrefs - 1 - refs].inst == inst) refs++;
    lpass p = {0, c->regex, 0, c->silent > 0, SIZE_MAX, 0};
    int r = pass(c, n, inst, refs, at, &p);
    if (r == UNSURE || c->steps < p.steps) {
        c->unsure[c->nunsure++ % VCTX_UNSURE] = inst;
        return UNSURE;
    }
    c->steps -= p.steps;
    c->regex = p.regex;
    c->vbytes += p.vbytes;
    return r;
}
