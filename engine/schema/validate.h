/*
** validate.h: the context of one validation (internal), shared by the files
** that run it, each calling only those below it:
**   validate_run.c     coax_validate and coax_schema_run: the budgets, the
**                      run, its errors and annotations copied to the arena
**   validate.c         the evaluator: a node's keywords, and the applicator
**                      keywords that apply subschemas (they recurse into it)
**   validate_leaf.c    leaves (program.c) applied at once, without entering
**                      them, taking what validate.c would take
**   validate_assert.c  the assertion keywords that need more than a test:
**                      numbers, patterns, formats, counts and lengths,
**                      uniqueness, required, content
**   validate_errors.c  errors and annotations recorded at the current
**                      locations (or, while silent, only counted), and the
**                      pieces of their messages
** The helpers every keyword runs (charging a step, pushing a path segment,
** marking an evaluated item) are inline here: a call each would cost as
** much as the work.
*/
#ifndef COAX_SCHEMA_VALIDATE_H
#define COAX_SCHEMA_VALIDATE_H

#include "schema/schema.h"

/* One segment of a JSON Pointer being built. */
typedef struct seg {
    const char *s; /* a key, or NULL for an index */
    uint32_t len;  /* key length, or the index (keys and arrays hold less than 2^32) */
    uint32_t elen; /* the length of its JSON Pointer segment ("/" and the escaped key),
                   ** measured when an error counted while silent first needs it; 0: not yet */
} seg;

typedef struct segs {
    seg *v;
    size_t n, cap;
} segs;

/* The members or items of an instance that a keyword evaluated, for
** unevaluatedProperties/unevaluatedItems. */
typedef struct eset {
    uint64_t *bits;
    size_t n;
} eset;

typedef struct verr {
    size_t iloc, kloc, aloc, msg, nest; /* offsets in strs (nest: in nests) */
    size_t nnest;
} verr;

typedef struct vann {
    size_t iloc, kloc, aloc; /* offsets in astrs */
    const coax_value *value;
} vann;

/* A node being evaluated: the lengths of the keyword and instance paths at
** its entry (an error's nesting), and the node (its absolute location). */
typedef struct vframe {
    uint32_t k, i;
    const snode *node;
} vframe;

typedef struct active_ref {
    const snode *target;
    const coax_value *inst;
} active_ref;

#define VCTX_UNSURE 16

typedef struct vctx {
    const coax_schema *s;
    const coax_allocator *alloc;
    coax_error *err;
    coax_code rc;
    int quiet;          /* > 0: errors are not recorded, failures stop early */
    int silent;         /* > 0: errors are counted and charged as if written, not written
                        ** (an anyOf/oneOf trying its branches: validate.c) */
    int eager;          /* > 0: no anyOf/oneOf tries silently first (its rerun) */
    size_t vbytes;      /* the bytes the errors counted while silent would hold */
    segs ipath, kpath;
    bool scoped;        /* keep the dynamic scope: the run may meet a dynamic reference */
    const sres **scope; /* the dynamic scope: resources entered, outermost first */
    size_t nscope, cscope;
    active_ref *refs;   /* references being evaluated, for cycle detection */
    size_t nrefs, crefs;
    size_t crossed;     /* references crossed on the current path */
    const char *own_lo, *own_hi; /* the run's first arrays (on its stack): not freed */
    vframe *frames;     /* the nodes being evaluated, outermost first (their number: the depth) */
    size_t nframes, cframes;
    const snode *false_node; /* a false subschema being reported (it has no frame) */
    coax_buf strs;      /* the strings of the errors so far */
    coax_buf nests;     /* their nesting, as uint32 pairs */
    coax_buf msg;       /* the message being built */
    verr *errs;
    size_t nerrs, cerrs;
    coax_regex_scratch *scratch; /* match memory, made on the first match */
    bool annotate;      /* collect annotations */
    coax_buf astrs;     /* the strings of the annotations */
    vann *anns;
    size_t nanns, canns;
    uint64_t steps, regex;        /* left of the run's budgets */
    const coax_value *unsized;    /* the instance, while the budgets are the defaults' least */
    uint64_t steps_max, regex_max; /* the budgets, for messages */
    const char *steps_what, *regex_what; /* the budget that binds */
    /* The last values a leaf gave up on (validate_leaf.c), most for an error
    ** to write in them: the evaluator then applies the node the ordinary
    ** way, and a reference it follows brings it to a leaf on the same value,
    ** which would walk again to the same error and give up again; that one
    ** is left to the evaluator at once. */
    const coax_value *unsure[VCTX_UNSURE];
    size_t nunsure;          /* how many were noted (the last VCTX_UNSURE kept) */
    struct {                 /* the last object whose names were found in a "properties" */
        const coax_value *inst;
        const sptab *tab;
        int8_t idx[64];      /* each member's index in "properties", or -1 */
        uint64_t seen;       /* the indexes found */
    } found;
    struct {                 /* the last large object whose names were looked up */
        const coax_member *members;
        uint32_t *slot;      /* member index + 1, 0: empty */
        size_t cap;
        uint64_t seed;
    } names;
} vctx;

/* ---- validate_errors.c --------------------------------------------------- */

/* Stops the run with 'code' and a message (the first failure wins); false. */
bool vctx_fatal(vctx *c, coax_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The instance's size: its values and members, and the bytes of its
** strings and keys; false when out of memory. */
bool vctx_instance_size(vctx *c, const coax_value *v, uint64_t *values, uint64_t *bytes);

/* The default budgets for an instance of that size. */
uint64_t vctx_default_steps(const vctx *c, uint64_t values, uint64_t bytes);
uint64_t vctx_default_regex(uint64_t values, uint64_t bytes);

/* Gives the rest of the default budgets, by the instance's size, when a run
** started with their least spends it: true when it did (c->unsized). */
bool vctx_measure(vctx *c);

/* The length of the JSON Pointer of a path; of a segment for key s[0..n)
** ("/" and the key, '~' and '/' escaped in two bytes); for index i. */
size_t vctx_path_len(segs *s);
size_t vctx_key_len(const char *s, size_t n);
size_t vctx_index_len(size_t i);

/* The steps an error or an annotation of 'bytes' bytes costs: one, and one
** per 64 of its bytes, as a string's bytes read (vctx_record says why not
** one per 16). */
static inline uint64_t vctx_record_steps(size_t bytes) { return 1 + bytes / 64; }

/* charge() short of 'n' steps: the rest of the default budget, or the end
** of the run (COAX_ELIMIT). */
bool vctx_out_of_steps(vctx *c, uint64_t n);

/* What a run has left of its budgets and where its annotations stand, to
** give back what a silent trial of anyOf/oneOf spent before its branches
** run again for their errors (validate.c). */
typedef struct vspent {
    uint64_t steps, regex;
    const coax_value *unsized;
    size_t nanns, astrs;
} vspent;
static inline vspent vctx_spent_mark(const vctx *c)
{
    return (vspent){c->steps, c->regex, c->unsized, c->nanns, c->astrs.len};
}

/* Back to the budgets of 'm' (with the rest of the defaults if the instance
** was measured since) and to its annotations. */
void vctx_give_back(vctx *c, vspent m);

/* An evaluated set for n members or items (charged n / 64 steps), and its
** release; false after a failure (budget, memory). */
bool vctx_eset_init(vctx *c, eset *e, size_t n);
void vctx_eset_free(vctx *c, eset *e);

/* The node a $dynamicRef or $recursiveRef reaches through the dynamic
** scope (each resource searched charged); NULL when the budget ran out. */
const snode *vctx_dynamic_target(vctx *c, const skw *k);

/* Grows *p (of *cap elements of 'size' bytes) to hold more than n; false
** (COAX_ENOMEM) when out of memory. */
bool vctx_grow(vctx *c, void **p, size_t *cap, size_t n, size_t size);

/* Frees *p (cap elements of 'size' bytes) unless it is one of the run's
** first arrays. */
void vctx_release(vctx *c, void *p, size_t cap, size_t size);

/* Records an error at the current locations with the message in c->msg
** (nothing while quiet; while silent, only its charge and its bytes). */
void vctx_record(vctx *c);

/* The same, with keyword 'kw' added to the keyword location. */
void vctx_error_at_kw(vctx *c, const char *kw);

/* Records the annotation of keyword 'k' at the current locations. */
void vctx_annotate(vctx *c, const skw *k);

/* Message pieces: s[0..n) as a JSON string cut at 'max' bytes; a short
** JSON rendering of a value; "string \"12\"", "object", ...; the names of
** "type" bits ("string or null"). */
void vctx_put_str(coax_buf *b, const char *s, size_t n, size_t max);
void vctx_put_json(vctx *c, coax_buf *b, const coax_value *v, size_t max);
void vctx_put_got(vctx *c, const coax_value *v);
/* The bytes vctx_put_got writes for 'v', measured without writing them;
** SIZE_MAX when only writing tells (a string to escape or to cut). */
size_t vctx_got_len(const coax_value *v);
/* The bytes vctx_put_str writes for s[0..n) cut at 'max', measured without
** writing them; SIZE_MAX when only writing tells. */
size_t vctx_str_len(const char *s, size_t n, size_t max);
void vctx_put_types(coax_buf *b, unsigned types);
void vctx_put_size(coax_buf *b, size_t n); /* as %zu writes it */

/* A false subschema reached through keyword 'kw' for the item or member
** just pushed on the instance path. */
void vctx_not_allowed(vctx *c, const char *kw, const coax_value *v, const char *what, const char *key,
                      size_t klen, size_t index);

/* ---- validate_assert.c --------------------------------------------------- */

/* The run's match memory: the one the last run left, or a new one; NULL
** when out of memory. */
static inline coax_regex_scratch *vctx_scratch(vctx *c)
{
    if (!c->scratch && !(c->scratch = atomic_exchange(c->s->spare, NULL)))
        c->scratch = coax_regex_scratch_new(c->s->re_env);
    return c->scratch;
}

/* coax_regex_match_in for the run ('decimal': Pydantic's Decimal pattern,
** decimal.c): 1, 0, -1 (a limit), -2 (memory), -3 (the budget ran out). */
int vctx_match_in(vctx *c, const coax_regex *re, bool decimal, const char *s, size_t n, uint64_t *budget);

/* Runs a pattern on s[0..n) ('*ok': it matched), charged to the regex
** budget; false after a failure (limit, memory). */
bool vctx_regex_match(vctx *c, const coax_regex *re, bool decimal, const char *s, size_t n, bool *ok);

/* The member of 'obj' named key[0..n), or NULL (with c->rc set when out of
** memory). */
const coax_value *vctx_member_named(vctx *c, const coax_value *obj, const char *key, size_t n);

/* The index in 'props' (of at most 64 names, table 't') of each member
** of object 'inst' (-1: none), kept until the next object is looked up
** (required and properties of a node share it; c->found.seen: the
** indexes found); NULL past 64 members. */
const int8_t *vctx_prop_index(vctx *c, const sptab *t, const coax_value *props, const coax_value *inst);

/* 1 when 'inst' is one of a hashed enum's values, 0 when not, -1 after a
** failure (budget, memory). */
int vctx_enum_lookup(vctx *c, const skw *k, const coax_value *inst);

/* A count against a keyword's bound ('max': at most, else at least),
** "expected at most 3 items, got 4" when it fails; true when it passes. */
/* Whether 'have' is within the bound of a max* (max true) or min* keyword. */
static inline bool vctx_count_ok(const skw *k, size_t have, bool max) { return max ? have <= k->n : have >= k->n; }
bool vctx_count_kw(vctx *c, const skw *k, size_t have, const char *one, const char *many, bool max);

/* The assertion keywords kept out of the evaluator: true when 'inst'
** passes (an error recorded when it does not). maxLength and minLength
** take a string. */
bool vctx_length_kw(vctx *c, const skw *k, const coax_value *inst);
bool vctx_cmp_kw(vctx *c, const skw *k, const coax_value *inst);
bool vctx_pattern_kw(vctx *c, const skw *k, const coax_value *inst);
bool vctx_format_kw(vctx *c, const skw *k, const coax_value *inst);
bool vctx_unique_kw(vctx *c, const skw *k, const coax_value *inst);
bool vctx_required_kw(vctx *c, const skw *k, const coax_value *inst);
bool vctx_content_kw(vctx *c, const skw *k, const coax_value *inst);
bool vctx_type_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst);

/* The messages of errors, in c->msg (not quiet): "type", "const", a
** "required" name missing, a member or item not allowed ('key' NULL: the
** item's 'index'; 'what' after). */
void vctx_type_msg(vctx *c, const skw *k, const coax_value *inst);
/* The length of the message vctx_type_msg writes, measured without
** writing it; SIZE_MAX when only writing tells. */
size_t vctx_type_msg_len(const skw *k, const coax_value *inst);
void vctx_const_msg(vctx *c, const skw *k, const coax_value *inst);
void vctx_required_msg(vctx *c, const coax_value *name);
void vctx_not_allowed_msg(vctx *c, const char *what, const char *key, size_t klen, size_t index);

/* The tests of some of those, recording nothing: whether 'inst' passes
** (maxLength and minLength take a string, the bounds a number). */
bool vctx_type_ok(const snode *n, const skw *k, const coax_value *inst);
bool vctx_length_ok(const skw *k, const coax_value *inst);
bool vctx_cmp_ok(const skw *k, const coax_value *inst);

/* vctx_cmp_ok, its common cases answered inline (a call and its
** comparison's dispatch cost more than they do): a number written with a
** leading 1-9 is positive, so above a bound of 0; and a positive integer
** without leading zeros is above or below a positive integer bound of
** another length by its length alone. Either answers the minimums when
** the value is above, the maximums when it is below. */
static inline bool vctx_bound_ok(const skw *k, const coax_value *inst)
{
    const char *a = inst->u.text;
    bool min = k->op == OP_MINIMUM || k->op == OP_EXMINIMUM;
    if (a[0] >= '1' && a[0] <= '9') {
        if (k->zero) return min;
        if ((inst->flags & k->v->flags & COAX_VF_INT_TEXT) && k->v->u.text[0] != '-' && inst->len != k->v->len)
            return inst->len > k->v->len ? min : !min;
    }
    return vctx_cmp_ok(k, inst);
}

/* uniqueItems on an array of at most 16 scalars compares every pair: true
** when 'a' is one, with the steps that costs; and its first duplicate pair
** (j < i), false when it has none. */
bool vctx_small_scalars(const coax_value *a, uint64_t *steps);
bool vctx_scalar_duplicate(const coax_value *a, size_t *dj, size_t *di);

/* ---- validate_leaf.c ----------------------------------------------------- */

/* Where a leaf is applied: the step down from what applies it (a member
** of "properties" or "additionalProperties", an item, a branch of an anyOf
** whose keyword is already on the path, a reference, a branch of an anyOf
** applied by a leaf; LP_NONE: the paths are the node's), for the errors a
** leaf counts (validate_leaf.c). */
enum { LP_NONE, LP_PROP, LP_ITEM, LP_BRANCH, LP_REF, LP_ANYOF };
typedef struct lpos {
    const struct lpos *up;
    uint8_t kind;
    const skw *k;         /* the keyword applying the node */
    uint32_t j;           /* the property's index in k->v (LP_ADD: "additionalProperties"), the item's,
                          ** the branch's */
    const coax_member *m; /* the member (LP_PROP) */
} lpos;

/* LP_PROP's j for a member "additionalProperties" applies to: one kind for
** both, so that the walk of members does not choose it. */
#define LP_ADD UINT32_MAX

/* Node 'n' (n->leaf) applied to 'inst' (reached by 'at') as its tests
** tell at once: 1 when it passes; 0 when it fails while quiet, or while
** its errors are only counted; either having taken the steps, regex steps
** and error bytes validate.c would take; -1, having taken and recorded
** nothing, when it must be applied the ordinary way (an error to write, a
** test that cannot tell, a budget that may run out). 'ev': the evaluated
** set the node would write into. */
int vctx_leaf(vctx *c, const snode *n, const coax_value *inst, const eset *ev, const lpos *at);
bool vctx_enum_kw(vctx *c, const skw *k, const coax_value *inst);
bool vctx_const_kw(vctx *c, const skw *k, const coax_value *inst);
bool vctx_multiple_kw(vctx *c, const skw *k, const coax_value *inst);

/* The error of a false subschema (no frame of its own: its absolute
** location is its own, its nesting its parent's). */
bool vctx_false_schema(vctx *c, const snode *n, const coax_value *inst);

/* ---- validate.c ---------------------------------------------------------- */

/* Applies 'root' to 'inst' (c set up by validate_run.c): true when valid. */
bool vctx_validate(vctx *c, const snode *root, const coax_value *inst);

/* ---- inline: what every keyword does ------------------------------------- */

/* The node whose keywords run (NULL before the first), and the length of
** the keyword path at its entry in '*k'. */
static inline const snode *vctx_node(const vctx *c, size_t *k)
{
    if (c->false_node) {
        *k = c->kpath.n;
        return c->false_node;
    }
    if (!c->nframes) {
        *k = 0;
        return NULL;
    }
    *k = c->frames[c->nframes - 1].k;
    return c->frames[c->nframes - 1].node;
}

static inline bool oom(vctx *c) { return vctx_fatal(c, COAX_ENOMEM, "out of memory during validation"); }

/* Takes 'n' steps from the budget; false (COAX_ELIMIT) when it runs out. */
static inline bool charge(vctx *c, uint64_t n)
{
    if (c->steps >= n) {
        c->steps -= n;
        return true;
    }
    return vctx_out_of_steps(c, n);
}

/* vctx_grow, its common case (room left) inline. */
static inline bool reserve(vctx *c, void **p, size_t *cap, size_t n, size_t size)
{
    return n < *cap || vctx_grow(c, p, cap, n, size);
}

static inline bool push(vctx *c, segs *s, const char *k, size_t len)
{
    if (!reserve(c, (void **)&s->v, &s->cap, s->n, sizeof *s->v)) return false;
    s->v[s->n++] = (seg){k, (uint32_t)len, 0};
    return true;
}

/* A keyword's name: no '~' or '/' in it, its segment is measured now. */
static inline bool push_kwn(vctx *c, const char *k, size_t len)
{
    if (!reserve(c, (void **)&c->kpath.v, &c->kpath.cap, c->kpath.n, sizeof *c->kpath.v)) return false;
    c->kpath.v[c->kpath.n++] = (seg){k, (uint32_t)len, (uint32_t)len + 1};
    return true;
}

static inline bool push_kw(vctx *c, const char *k) { return push_kwn(c, k, strlen(k)); }

static inline void mark(eset *e, size_t i)
{
    if (e && i < e->n) e->bits[i / 64] |= (uint64_t)1 << (i % 64);
}

static inline bool marked(const eset *e, size_t i) { return (e->bits[i / 64] >> (i % 64)) & 1; }

static inline void merge(eset *into, const eset *from)
{
    if (!into || !from->bits) return;
    for (size_t i = 0; i < (from->n + 63) / 64; i++) into->bits[i] |= from->bits[i];
}

/* Where the errors stand, to drop those recorded after (anyOf, oneOf). */
typedef struct emark {
    size_t nerrs, strs, nests, vbytes;
} emark;

static inline emark err_mark(const vctx *c) { return (emark){c->nerrs, c->strs.len, c->nests.len, c->vbytes}; }

static inline void err_rewind(vctx *c, emark m)
{
    c->nerrs = m.nerrs;
    c->strs.len = m.strs;
    c->nests.len = m.nests;
    c->vbytes = m.vbytes;
}

static inline int equal(vctx *c, const coax_value *a, const coax_value *b)
{
    int r = coax_value_equal(a, b, c->alloc);
    if (r < 0) oom(c);
    return r > 0;
}

/* Starts an error's message; false while quiet, when no error is recorded
** (vctx_record does nothing), so the caller skips writing one. */
static inline bool msg_start(vctx *c)
{
    if (c->quiet) return false;
    c->msg.len = 0;
    c->msg.oom = false;
    return true;
}

#define MSG(...) coax_buf_printf(&c->msg, __VA_ARGS__)
/* A literal piece of a message: most errors are built of these, and a
** printf call costs more than the rest of recording the error. */
#define MSGS(lit) coax_buf_put(&c->msg, lit, sizeof(lit) - 1)

#endif
