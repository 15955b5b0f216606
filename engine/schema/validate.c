/*
** validate.c: runs a compiled schema on an instance and collects every
** error with its instance location, its keyword location (the evaluation
** path, through references) and, once a reference was crossed, its absolute
** keyword location.
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
#include "base/hash.h"
#include "schema/format.h"
#include "schema/compiled.h"
#include "schema/num.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct seg {
    const char *s; /* a key, or NULL for an index */
    size_t len;    /* key length, or the index */
} seg;

typedef struct segs {
    seg *v;
    size_t n, cap;
} segs;

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

typedef struct active_ref {
    const snode *target;
    const coax_value *inst;
} active_ref;

typedef struct vctx {
    const coax_schema *s;
    const coax_allocator *alloc;
    coax_error *err;
    coax_code rc;
    int quiet;          /* > 0: errors are not recorded, failures stop early */
    size_t depth;
    segs ipath, kpath;
    const sres **scope; /* the dynamic scope: resources entered, outermost first */
    size_t nscope, cscope;
    active_ref *refs;   /* references being evaluated, for cycle detection */
    size_t nrefs, crefs;
    size_t crossed;     /* references crossed on the current path */
    const snode *node;  /* the node being evaluated */
    size_t node_k;      /* kpath length at its entry */
    uint32_t *nest;     /* (kpath, ipath) lengths at each node entry */
    size_t nnest, cnest;
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
    uint64_t steps_max, regex_max; /* the budgets, for messages */
    const char *steps_what, *regex_what; /* the budget that binds */
    struct {                 /* the last large object whose names were looked up */
        const coax_member *members;
        uint32_t *slot;      /* member index + 1, 0: empty */
        size_t cap;
        uint64_t seed;
    } names;
} vctx;

static bool fatal(vctx *c, coax_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fatal(vctx *c, coax_code code, const char *fmt, ...)
{
    if (c->rc) return false;
    c->rc = code;
    if (c->err) {
        c->err->code = code;
        c->err->offset = 0;
        c->err->line = c->err->column = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err->msg, sizeof c->err->msg, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool oom(vctx *c) { return fatal(c, COAX_ENOMEM, "out of memory during validation"); }

/* Takes 'n' steps from the budget; false (COAX_ELIMIT) when it runs out. */
static bool charge(vctx *c, uint64_t n)
{
    if (c->steps >= n) {
        c->steps -= n;
        return true;
    }
    c->steps = 0;
    return fatal(c, COAX_ELIMIT, "validation used up its step budget of %llu steps (%s)",
                 (unsigned long long)c->steps_max, c->steps_what);
}

/* ---- growable stacks ---------------------------------------------------- */

static bool grow(vctx *c, void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return true;
    size_t nc = *cap ? *cap * 2 : 32;
    void *q = coax_realloc_raw(c->alloc, *p, *cap * size, nc * size);
    if (!q) return oom(c);
    *p = q;
    *cap = nc;
    return true;
}

static inline bool push(vctx *c, segs *s, const char *k, size_t len)
{
    if (s->n >= s->cap && !grow(c, (void **)&s->v, &s->cap, s->n, sizeof *s->v)) return false;
    s->v[s->n++] = (seg){k, len};
    return true;
}

static bool push_kw(vctx *c, const char *k) { return push(c, &c->kpath, k, strlen(k)); }

/* ---- evaluated sets ---------------------------------------------------- */

static bool eset_init(vctx *c, eset *e, size_t n)
{
    e->n = n;
    e->bits = NULL;
    if (!charge(c, n / 64)) return false;
    e->bits = coax_alloc_raw(c->alloc, ((n + 63) / 64) * sizeof *e->bits);
    if (!e->bits) return oom(c);
    memset(e->bits, 0, ((n + 63) / 64) * sizeof *e->bits);
    return true;
}

static void eset_free(vctx *c, eset *e)
{
    if (e->bits) coax_free_raw(c->alloc, e->bits, ((e->n + 63) / 64) * sizeof *e->bits);
    e->bits = NULL;
}

static void mark(eset *e, size_t i)
{
    if (e && i < e->n) e->bits[i / 64] |= (uint64_t)1 << (i % 64);
}

static bool marked(const eset *e, size_t i) { return (e->bits[i / 64] >> (i % 64)) & 1; }

static void merge(eset *into, const eset *from)
{
    if (!into || !from->bits) return;
    for (size_t i = 0; i < (from->n + 63) / 64; i++) into->bits[i] |= from->bits[i];
}

/* ---- errors ------------------------------------------------------------ */

static void put_ptr(coax_buf *b, const segs *s, size_t from, size_t *cuts_at, uint32_t *cut_len,
                    size_t ncuts)
{
    size_t ci = 0;
    for (size_t i = from; i < s->n; i++) {
        while (ci < ncuts && cuts_at[ci] == i) cut_len[ci++] = (uint32_t)b->len;
        coax_buf_putc(b, '/');
        if (!s->v[i].s) {
            coax_buf_printf(b, "%zu", s->v[i].len);
            continue;
        }
        for (size_t k = 0; k < s->v[i].len; k++) {
            char ch = s->v[i].s[k];
            if (ch == '~') coax_buf_puts(b, "~0");
            else if (ch == '/') coax_buf_puts(b, "~1");
            else coax_buf_putc(b, ch);
        }
    }
    while (ci < ncuts) cut_len[ci++] = (uint32_t)b->len;
}

typedef struct emark {
    size_t nerrs, strs, nests;
} emark;

static emark err_mark(const vctx *c) { return (emark){c->nerrs, c->strs.len, c->nests.len}; }

static void err_rewind(vctx *c, emark m)
{
    c->nerrs = m.nerrs;
    c->strs.len = m.strs;
    c->nests.len = m.nests;
}

/* The absolute keyword location, once a reference was crossed, as a
** string in 'b': its offset, or SIZE_MAX when there is none. */
static size_t put_abs(vctx *c, coax_buf *b)
{
    if (!c->crossed || !c->node) return SIZE_MAX;
    size_t at = b->len;
    coax_buf_puts(b, c->node->abs);
    put_ptr(b, &c->kpath, c->node_k, NULL, NULL, 0);
    coax_buf_putc(b, '\0');
    return at;
}

/* Records the annotation of keyword 'k' at the current locations. */
static void annotate(vctx *c, const skw *k)
{
    if (!c->annotate || c->rc) return;
    if (!grow(c, (void **)&c->anns, &c->canns, c->nanns, sizeof *c->anns) || !push_kw(c, k->name)) return;
    vann *a = &c->anns[c->nanns];
    a->iloc = c->astrs.len;
    put_ptr(&c->astrs, &c->ipath, 0, NULL, NULL, 0);
    coax_buf_putc(&c->astrs, '\0');
    a->kloc = c->astrs.len;
    put_ptr(&c->astrs, &c->kpath, 0, NULL, NULL, 0);
    coax_buf_putc(&c->astrs, '\0');
    a->aloc = put_abs(c, &c->astrs);
    a->value = k->v;
    c->kpath.n--;
    if (c->astrs.oom) {
        oom(c);
        return;
    }
    c->nanns++;
}

/* Records an error at the current locations with the message in c->msg. */
static void record(vctx *c)
{
    if (c->quiet || c->rc) return;
    size_t before = c->strs.len + c->nests.len;
    if (c->msg.oom || !grow(c, (void **)&c->errs, &c->cerrs, c->nerrs, sizeof *c->errs)) {
        oom(c);
        return;
    }
    verr *e = &c->errs[c->nerrs];
    size_t npairs = c->nnest / 2;
    uint32_t lens[2 * 64];
    size_t atk[64], ati[64];
    size_t ncut = npairs < 64 ? npairs : 64;
    for (size_t i = 0; i < ncut; i++) {
        atk[i] = c->nest[2 * i];
        ati[i] = c->nest[2 * i + 1];
    }
    uint32_t klen[64], ilen[64];
    e->iloc = c->strs.len;
    put_ptr(&c->strs, &c->ipath, 0, ati, ilen, ncut);
    coax_buf_putc(&c->strs, '\0');
    e->kloc = c->strs.len;
    put_ptr(&c->strs, &c->kpath, 0, atk, klen, ncut);
    coax_buf_putc(&c->strs, '\0');
    for (size_t i = 0; i < ncut; i++) {
        lens[2 * i] = klen[i] - (uint32_t)e->kloc;
        lens[2 * i + 1] = ilen[i] - (uint32_t)e->iloc;
    }
    e->aloc = put_abs(c, &c->strs);
    e->msg = c->strs.len;
    coax_buf_put(&c->strs, c->msg.data ? c->msg.data : "", c->msg.len);
    coax_buf_putc(&c->strs, '\0');
    e->nest = c->nests.len;
    e->nnest = ncut;
    coax_buf_put(&c->nests, lens, ncut * 2 * sizeof *lens);
    if (c->strs.oom || c->nests.oom) {
        oom(c);
        return;
    }
    c->nerrs++;
    /* writing the error is charged by its bytes, and their sum is bounded:
    ** a schema that fans out over a long path would otherwise fill memory */
    if (!charge(c, 1 + (c->strs.len + c->nests.len - before) / 16)) return;
    if (c->strs.len + c->nests.len > c->s->max_error_bytes)
        fatal(c, COAX_ELIMIT, "validation errors passed %zu bytes (max_error_bytes)", c->s->max_error_bytes);
}

/* ---- messages ------------------------------------------------------------ */

/* Appends s[0..n) as a JSON string, cut at 'max' bytes on a character
** boundary, with "..." inside the quotes when cut. */
static void put_str(coax_buf *b, const char *s, size_t n, size_t max)
{
    if (n <= max) {
        coax_buf_put_json_string(b, s, n);
        return;
    }
    size_t k = max;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    size_t at = b->len;
    coax_buf_put_json_string(b, s, k);
    if (!b->oom && b->len > at) {
        b->len--; /* the closing quote */
        coax_buf_puts(b, "...\"");
    }
}

/* Writes the compact JSON of 'v' to 'b' until 'b' holds more than 'max'
** bytes: what it writes is the text coax_write_buf would (a longer text is
** cut anywhere past 'max', even inside a string or a number), so a message
** quoting a large enum or const costs 'max', not the value's size, per error. */
static void put_prefix(coax_buf *b, const coax_value *v, size_t max)
{
    if (b->len > max || b->oom) return;
    size_t room = max - b->len + 8; /* bytes enough to pass max, and a character's */
    switch (v->type) {
    case COAX_STRING:
        coax_buf_put_json_string(b, v->u.text, v->len < room ? v->len : room);
        return;
    case COAX_NUMBER:
        coax_buf_put(b, v->u.text, v->len < room ? v->len : room);
        return;
    case COAX_ARRAY:
        coax_buf_putc(b, '[');
        for (size_t i = 0; i < v->len && b->len <= max; i++) {
            if (i) coax_buf_putc(b, ',');
            put_prefix(b, &v->u.items[i], max);
        }
        if (b->len <= max) coax_buf_putc(b, ']');
        return;
    case COAX_OBJECT:
        coax_buf_putc(b, '{');
        for (size_t i = 0; i < v->len && b->len <= max; i++) {
            const coax_member *m = &v->u.members[i];
            if (i) coax_buf_putc(b, ',');
            coax_buf_put_json_string(b, m->key, m->klen < room ? m->klen : room);
            if (b->len > max) return;
            coax_buf_putc(b, ':');
            put_prefix(b, &m->value, max);
        }
        if (b->len <= max) coax_buf_putc(b, '}');
        return;
    default:
        coax_write_buf(b, v, 0);
    }
}

/* A short JSON rendering of a value: scalars whole (long strings cut),
** containers cut at about 'max' bytes. */
static void put_json(vctx *c, coax_buf *b, const coax_value *v, size_t max)
{
    if (v->type == COAX_STRING) {
        put_str(b, v->u.text, v->len, max);
        return;
    }
    if (v->type != COAX_ARRAY && v->type != COAX_OBJECT) {
        coax_write_buf(b, v, 0);
        return;
    }
    coax_buf t;
    coax_buf_init(&t, c->alloc);
    put_prefix(&t, v, max + 8);
    if (t.oom) {
        coax_buf_puts(b, v->type == COAX_ARRAY ? "[...]" : "{...}");
    } else if (t.len <= max) {
        coax_buf_put(b, t.data, t.len);
    } else {
        size_t k = max;
        while (k > 0 && ((unsigned char)t.data[k] & 0xC0) == 0x80) k--;
        coax_buf_put(b, t.data, k);
        coax_buf_puts(b, "...");
    }
    coax_buf_free(&t);
}

/* "string \"12\"", "number 3.5", "boolean true", "null", "object", "array" */
static void put_got(vctx *c, const coax_value *v)
{
    coax_buf *b = &c->msg;
    switch (v->type) {
    case COAX_NULL: coax_buf_puts(b, "null"); break;
    case COAX_BOOL: coax_buf_puts(b, v->u.boolean ? "boolean true" : "boolean false"); break;
    case COAX_NUMBER:
        coax_buf_puts(b, "number ");
        if (v->len <= 40) coax_buf_put(b, v->u.text, v->len);
        else coax_buf_printf(b, "%.40s...", v->u.text);
        break;
    case COAX_STRING:
        coax_buf_puts(b, "string ");
        put_str(b, v->u.text, v->len, 40);
        break;
    case COAX_ARRAY: coax_buf_printf(b, "array of %zu item%s", (size_t)v->len, v->len == 1 ? "" : "s"); break;
    default: coax_buf_puts(b, "object"); break;
    }
}

static void msg_start(vctx *c) { c->msg.len = 0; c->msg.oom = false; }

#define MSG(...) coax_buf_printf(&c->msg, __VA_ARGS__)

static void error_at_kw(vctx *c, const char *kw)
{
    if (push_kw(c, kw)) {
        record(c);
        c->kpath.n--;
    }
}

/* ---- the evaluator ------------------------------------------------------- */

static bool validate(vctx *c, const snode *n, const coax_value *inst, eset *ev);

/* Applies 'sub' to 'inst' with extra keyword segments and an optional
** instance segment already pushed by the caller. */
static bool apply(vctx *c, const snode *sub, const coax_value *inst, eset *ev)
{
    return validate(c, sub, inst, ev);
}

static size_t utf8_count(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

static unsigned type_bits(const coax_value *v)
{
    switch (v->type) {
    case COAX_NULL: return T_NULL;
    case COAX_BOOL: return T_BOOLEAN;
    case COAX_OBJECT: return T_OBJECT;
    case COAX_ARRAY: return T_ARRAY;
    case COAX_STRING: return T_STRING;
    default:
        return T_NUMBER | (((v->flags & COAX_VF_INT_TEXT) || coax_num_is_integral(v->u.text, v->len))
                               ? T_INTEGER
                               : 0);
    }
}

static void put_types(vctx *c, unsigned types)
{
    static const char *const names[] = {"null", "boolean", "object", "array", "number", "string", "integer"};
    size_t total = 0, k = 0;
    for (int i = 0; i < 7; i++) total += (types >> i) & 1;
    for (int i = 0; i < 7; i++) {
        if (!((types >> i) & 1)) continue;
        if (k) MSG("%s", k + 1 == total ? " or " : ", ");
        MSG("%s", names[i]);
        k++;
    }
}

static int equal(vctx *c, const coax_value *a, const coax_value *b)
{
    int r = coax_value_equal(a, b, c->alloc);
    if (r < 0) oom(c);
    return r > 0;
}

static bool regex_spent(vctx *c)
{
    return fatal(c, COAX_ELIMIT, "validation used up its regex budget of %llu steps (%s)",
                 (unsigned long long)c->regex_max, c->regex_what);
}

static bool regex_match(vctx *c, const coax_regex *re, const char *s, size_t n, bool *ok)
{
    if (!c->scratch && !(c->scratch = coax_regex_scratch_new(c->s->re_env))) return oom(c);
    int r = coax_regex_match_in(c->s->re_env, re, s, n, c->scratch, &c->regex);
    if (r == -1)
        return fatal(c, COAX_ELIMIT, "a regular expression exceeded its step limit"); /* or depth, or heap */
    if (r == -2) return oom(c);
    if (r == -3) return regex_spent(c);
    *ok = r == 1;
    return true;
}

/* Compares two JSON number texts without an exponent and not both zero
** in magnitude (the common case) by their digits; false when it cannot
** tell (the exact comparison in json/value.c answers then). */
static bool plain_cmp(const char *a, size_t al, const char *b, size_t bl, int *out)
{
    bool na = a[0] == '-', nb = b[0] == '-';
    a += na, al -= na, b += nb, bl -= nb;
    size_t ai = 0, bi = 0;
    while (ai < al && a[ai] != '.') {
        if (a[ai] == 'e' || a[ai] == 'E') return false;
        ai++;
    }
    while (bi < bl && b[bi] != '.') {
        if (b[bi] == 'e' || b[bi] == 'E') return false;
        bi++;
    }
    for (size_t i = ai; i < al; i++)
        if (a[i] == 'e' || a[i] == 'E') return false;
    for (size_t i = bi; i < bl; i++)
        if (b[i] == 'e' || b[i] == 'E') return false;
    if ((ai == 1 && a[0] == '0') || (bi == 1 && b[0] == '0')) return false; /* |x| < 1: rare, exact path */
    int mag; /* |a| against |b|: integer parts have no leading zeros */
    if (ai != bi) {
        mag = ai < bi ? -1 : 1;
    } else {
        int r = memcmp(a, b, ai);
        mag = r < 0 ? -1 : r > 0;
        for (size_t i = 1; !mag && (ai + i < al || bi + i < bl); i++) {
            char x = ai + i < al ? a[ai + i] : '0', y = bi + i < bl ? b[bi + i] : '0';
            mag = x < y ? -1 : x > y;
        }
    }
    if (na != nb) *out = na ? -1 : 1;
    else *out = na ? -mag : mag;
    return true;
}

/* 1 when 'inst' is one of a hashed enum's values, 0 when not, -1 after a
** failure (budget, memory). Equal hashes are confirmed by comparing. */
static int enum_lookup(vctx *c, const skw *k, const coax_value *inst)
{
    const svset *t = k->vset;
    uint64_t h;
    size_t work;
    if (coax_value_hash(inst, t->seed, c->alloc, &h, &work)) return oom(c), -1;
    if (!charge(c, work)) return -1;
    for (uint32_t i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
        int32_t j = t->slot[i];
        if (j < 0) return 0;
        if (!charge(c, 1)) return -1;
        if (t->hash[j] == h && equal(c, &k->v->u.items[j], inst)) return 1;
        if (c->rc) return -1;
    }
}

static bool cmp_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_NUMBER) return true;
    int r;
    if (!plain_cmp(inst->u.text, inst->len, k->v->u.text, k->v->len, &r))
        r = coax_number_compare_text(inst->u.text, inst->len, k->v->u.text, k->v->len);
    bool ok;
    const char *what;
    switch (k->op) {
    case OP_MAXIMUM: ok = r <= 0, what = "at most"; break;
    case OP_EXMAXIMUM: ok = r < 0, what = "less than"; break;
    case OP_MINIMUM: ok = r >= 0, what = "at least"; break;
    default: ok = r > 0, what = "greater than"; break;
    }
    if (ok) return true;
    msg_start(c);
    MSG("expected a number %s %s, got %s", what, k->v->u.text, inst->u.text);
    error_at_kw(c, k->name);
    return false;
}

static bool count_kw(vctx *c, const skw *k, size_t have, const char *one, const char *many,
                     bool max)
{
    if (max ? have <= k->n : have >= k->n) return true;
    msg_start(c);
    MSG("expected %s %zu %s, got %zu", max ? "at most" : "at least", k->n, k->n == 1 ? one : many,
        have);
    error_at_kw(c, k->name);
    return false;
}

/* A false subschema reached through keyword 'kw' for the item or member
** just pushed on the instance path. */
static void not_allowed(vctx *c, const char *kw, const coax_value *v, const char *what, const char *key,
                        size_t klen, size_t index)
{
    msg_start(c);
    if (key) {
        MSG("property ");
        put_str(&c->msg, key, klen, 60);
        MSG(" is not allowed%s", what);
    } else {
        MSG("item %zu is not allowed%s", index, what);
    }
    (void)v;
    error_at_kw(c, kw);
}

static bool ref_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst, eset *ev)
{
    const snode *t = k->sub;
    if (k->op == OP_DYNREF && k->anchor) {
        for (size_t i = 0; i < c->nscope; i++) {
            const sres *r = c->scope[i];
            if (!charge(c, 1 + r->nanchors)) return false;
            for (size_t j = 0; j < r->nanchors; j++) {
                if (r->anchors[j].dynamic && !strcmp(r->anchors[j].name, k->anchor)) {
                    t = r->anchors[j].node;
                    goto found;
                }
            }
        }
    } else if (k->op == OP_RECREF && t->res->recursive_anchor && t == t->res->root_node) {
        for (size_t i = c->nscope; i-- > 0;) {
            if (!c->scope[i]->recursive_anchor || !c->scope[i]->root_node) break;
            t = c->scope[i]->root_node;
        }
    }
found:;
    size_t scanned = 0; /* references active on this value: a compare each, 16 a step */
    for (size_t i = c->nrefs; i-- > 0 && c->refs[i].inst == inst; scanned++)
        if (c->refs[i].target == t)
            return fatal(c, COAX_ELIMIT,
                         "reference cycle: %s/%s comes back to %s without consuming the instance",
                         n->abs, k->name, t->abs);
    if (!charge(c, scanned / 16)) return false;
    if (!grow(c, (void **)&c->refs, &c->crefs, c->nrefs, sizeof *c->refs)) return false;
    c->refs[c->nrefs++] = (active_ref){t, inst};
    c->crossed++;
    bool ok = push_kw(c, k->name) && apply(c, t, inst, ev);
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
            msg_start(c);
            MSG("expected at most %zu item%s, got %zu", k->nsubs, k->nsubs == 1 ? "" : "s",
                (size_t)inst->len);
            error_at_kw(c, kw);
            return false; /* one error says it for every extra item */
        }
        if (!push(c, &c->ipath, NULL, i)) return false;
        if (sub->kind == N_FALSE) {
            if (push_kw(c, kw) && push(c, &c->kpath, NULL, i)) {
                msg_start(c);
                MSG("item %zu is not allowed", i);
                record(c);
                c->kpath.n -= 2;
            }
        } else {
            r = push_kw(c, kw) && (!indexed || push(c, &c->kpath, NULL, i)) &&
                apply(c, sub, &inst->u.items[i], NULL);
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
        bool r = apply(c, k->sub, &inst->u.items[i], NULL);
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
    msg_start(c);
    if (count < k->n)
        MSG("expected at least %zu item%s matching \"contains\", got %zu", k->n, k->n == 1 ? "" : "s", count);
    else
        MSG("expected at most %zu item%s matching \"contains\", got %zu", k->m, k->m == 1 ? "" : "s", count);
    error_at_kw(c, "contains");
    return false;
}

typedef struct hidx {
    uint64_t h;
    size_t i;
} hidx;

static int hidx_cmp(const void *a, const void *b)
{
    const hidx *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* True when every item of a small array is a scalar: then comparing every
** pair is cheaper than hashing, and charged by the pairs and the bytes. */
static bool small_scalars(vctx *c, const coax_value *a)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < a->len; i++) {
        const coax_value *v = &a->u.items[i];
        if (v->type == COAX_ARRAY || v->type == COAX_OBJECT) return false;
        if (v->type == COAX_STRING || v->type == COAX_NUMBER) bytes += v->len;
    }
    return charge(c, (uint64_t)a->len * a->len / 2 + a->len * (bytes / 64));
}

/* The duplicate pair (j < i) with the smallest i, then j; false if none.
** Beyond small arrays of scalars, only items of equal hash are compared (a
** keyed hash of the whole item, however deep, charged by its size), so the
** work is linear in the items' size plus n log n. */
static bool find_duplicate(vctx *c, const coax_value *a, size_t *dj, size_t *di)
{
    size_t n = a->len, best_i = SIZE_MAX, best_j = 0;
    if (n < 2) return false;
    if (n <= 16 && small_scalars(c, a)) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (equal(c, &a->u.items[j], &a->u.items[i])) {
                    *dj = j, *di = i;
                    return true;
                }
        return false;
    }
    hidx *x = coax_alloc_raw(c->alloc, n * sizeof *x);
    if (!x) return oom(c);
    uint64_t seed = coax_hash_seed(x);
    for (size_t i = 0; i < n; i++) {
        size_t work;
        if (coax_value_hash(&a->u.items[i], seed, c->alloc, &x[i].h, &work)) {
            coax_free_raw(c->alloc, x, n * sizeof *x);
            return oom(c);
        }
        x[i].i = i;
        if (!charge(c, work)) {
            coax_free_raw(c->alloc, x, n * sizeof *x);
            return false;
        }
    }
    qsort(x, n, sizeof *x, hidx_cmp);
    for (size_t s = 0; s < n && !c->rc;) {
        size_t e = s + 1;
        while (e < n && x[e].h == x[s].h) e++;
        for (size_t p = s + 1; p < e && !c->rc; p++)
            for (size_t q = s; q < p; q++) {
                if (x[p].i > best_i || (x[p].i == best_i && x[q].i > best_j)) break;
                if (equal(c, &a->u.items[x[q].i], &a->u.items[x[p].i])) {
                    best_i = x[p].i, best_j = x[q].i;
                    break;
                }
            }
        s = e;
    }
    coax_free_raw(c->alloc, x, n * sizeof *x);
    if (best_i == SIZE_MAX) return false;
    *dj = best_j, *di = best_i;
    return true;
}

static bool unique_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_ARRAY) return true;
    size_t j = 0, i = 0;
    if (!find_duplicate(c, inst, &j, &i)) return !c->rc;
    msg_start(c);
    MSG("expected unique items, items %zu and %zu are equal", j, i);
    error_at_kw(c, k->name);
    return false;
}

/* The member of 'obj' named key[0..n), or NULL. A large object is indexed
** by its names once (a keyed hash), and the index kept for the next lookup:
** "required" and "dependentRequired" look up one name after another in
** the same object, and a scan per name made n names over n members cost
** n^2. NULL with c->rc set when out of memory. */
static const coax_value *member_named(vctx *c, const coax_value *obj, const char *key, size_t n)
{
    if (obj->len <= 16) return coax_object_get(obj, key, n);
    if (c->names.members != obj->u.members) {
        size_t cap = 32;
        while (cap < (size_t)obj->len * 2) cap *= 2;
        if (cap != c->names.cap) {
            coax_free_raw(c->alloc, c->names.slot, c->names.cap * sizeof *c->names.slot);
            c->names.cap = 0;
            c->names.members = NULL;
            if (!(c->names.slot = coax_alloc_raw(c->alloc, cap * sizeof *c->names.slot))) return oom(c), NULL;
            c->names.cap = cap;
        }
        if (!c->names.seed) c->names.seed = coax_hash_seed(c) | 1;
        memset(c->names.slot, 0, cap * sizeof *c->names.slot);
        for (uint32_t i = 0; i < obj->len; i++) {
            const coax_member *m = &obj->u.members[i];
            size_t at = (size_t)coax_hash_bytes(m->key, m->klen, c->names.seed) & (cap - 1);
            while (c->names.slot[at]) at = (at + 1) & (cap - 1);
            c->names.slot[at] = i + 1;
        }
        c->names.members = obj->u.members;
    }
    size_t mask = c->names.cap - 1;
    for (size_t at = (size_t)coax_hash_bytes(key, n, c->names.seed) & mask; c->names.slot[at]; at = (at + 1) & mask) {
        const coax_member *m = &obj->u.members[c->names.slot[at] - 1];
        if (m->klen == n && !memcmp(m->key, key, n)) return &m->value;
    }
    return NULL;
}

static bool required_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_OBJECT) return true;
    /* a probe per member, or a lookup per name (an index of the members) */
    if (!charge(c, k->ptab ? inst->len : (uint64_t)k->v->len + inst->len)) return false;
    uint64_t seen = 0; /* the node's "properties" present in the instance */
    if (k->ptab) {
        for (size_t i = 0; i < inst->len; i++) {
            const coax_member *m = &inst->u.members[i];
            int32_t j = coax_ptab_find(k->ptab, k->v2, m->key, m->klen);
            if (j >= 0) seen |= (uint64_t)1 << j;
        }
    }
    bool ok = true;
    for (size_t i = 0; i < k->v->len; i++) {
        const coax_value *name = &k->v->u.items[i];
        if (k->ptab && k->ridx[i] >= 0) {
            if ((seen >> k->ridx[i]) & 1) continue;
        } else if (member_named(c, inst, name->u.text, name->len)) {
            continue;
        } else if (c->rc) {
            return false;
        }
        ok = false;
        msg_start(c);
        MSG("missing required property ");
        put_str(&c->msg, name->u.text, name->len, 60);
        error_at_kw(c, k->name);
        if (c->quiet) break;
    }
    return ok;
}

static bool props_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst, eset *ev)
{
    if (inst->type != COAX_OBJECT || !charge(c, inst->len)) return !c->rc;
    const coax_value *props = k->v;
    bool ok = true;
    for (size_t i = 0; i < inst->len && !c->rc; i++) {
        const coax_member *m = &inst->u.members[i];
        bool matched = false, r = true;
        if (!push(c, &c->ipath, m->key, m->klen)) return false;
        if (props) {
            int32_t jj = coax_ptab_find(k->ptab, props, m->key, m->klen);
            for (size_t j = jj < 0 ? props->len : (size_t)jj; j < props->len; j = props->len) {
                const coax_member *p = &props->u.members[j];
                matched = true;
                if (k->subs[j]->kind == N_FALSE) {
                    r = false;
                    if (push_kw(c, "properties")) {
                        not_allowed(c, p->key, &m->value, "", m->key, m->klen, 0);
                        c->kpath.n--;
                    }
                } else {
                    r = push_kw(c, "properties") && push(c, &c->kpath, p->key, p->klen) &&
                        apply(c, k->subs[j], &m->value, NULL);
                    c->kpath.n -= 2;
                }
                break;
            }
        }
        for (size_t j = 0; j < k->npat && (r || !c->quiet) && !c->rc; j++) {
            bool hit;
            if (!regex_match(c, k->res[j], m->key, m->klen, &hit)) break;
            if (!hit) continue;
            matched = true;
            const coax_member *p = &k->pat->u.members[j];
            bool rr;
            if (k->patsubs[j]->kind == N_FALSE) {
                rr = false;
                if (push_kw(c, "patternProperties")) {
                    msg_start(c);
                    MSG("property ");
                    put_str(&c->msg, m->key, m->klen, 60);
                    MSG(" is not allowed (it matches \"%s\")", p->key);
                    if (push(c, &c->kpath, p->key, p->klen)) {
                        record(c);
                        c->kpath.n--;
                    }
                    c->kpath.n--;
                }
            } else {
                rr = push_kw(c, "patternProperties") && push(c, &c->kpath, p->key, p->klen) &&
                     apply(c, k->patsubs[j], &m->value, NULL);
                c->kpath.n -= 2;
            }
            r = r && rr;
        }
        if (!matched && k->add && !c->rc) {
            matched = true;
            if (k->add->kind == N_FALSE) {
                r = false;
                not_allowed(c, "additionalProperties", &m->value, "", m->key, m->klen, 0);
            } else {
                r = push_kw(c, "additionalProperties") && apply(c, k->add, &m->value, NULL);
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
        if (!member_named(c, inst, d->key, d->klen)) {
            if (c->rc) return false;
            continue;
        }
        bool r = true;
        if (!push_kw(c, k->name) || !push(c, &c->kpath, d->key, d->klen)) return false;
        if (!k->subs[j]) {
            for (size_t i = 0; i < d->value.len; i++) {
                const coax_value *need = &d->value.u.items[i];
                if (member_named(c, inst, need->u.text, need->len)) continue;
                if (c->rc) return false;
                r = false;
                msg_start(c);
                MSG("property ");
                put_str(&c->msg, d->key, d->klen, 60);
                MSG(" requires property ");
                put_str(&c->msg, need->u.text, need->len, 60);
                MSG(", which is missing");
                record(c);
                if (c->quiet) break;
            }
        } else {
            r = apply(c, k->subs[j], inst, ev);
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
            not_allowed(c, "propertyNames", &name, "", m->key, m->klen, 0);
        } else {
            r = push_kw(c, "propertyNames") && apply(c, k->sub, &name, NULL);
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

/* anyOf and oneOf. */
static bool some_of(vctx *c, const skw *k, const coax_value *inst, eset *ev)
{
    emark em = err_mark(c);
    size_t valid = 0, first = 0, second = 0;
    bool one = k->op == OP_ONEOF;
    bool track = ev != NULL;
    eset chosen = {0};
    if (!push_kw(c, k->name)) return false;
    for (size_t i = 0; i < k->nsubs && !c->rc; i++) {
        eset b = {0};
        if (track && !eset_init(c, &b, ev->n)) break;
        bool r = push(c, &c->kpath, NULL, i) && apply(c, k->subs[i], inst, track ? &b : NULL);
        c->kpath.n--;
        if (r) {
            if (valid == 0) first = i;
            else if (valid == 1) second = i;
            valid++;
            if (!one) merge(ev, &b);
            else if (valid == 1) {
                chosen = b;
                b.bits = NULL;
            }
        }
        eset_free(c, &b);
        if (!track && !c->annotate && ((!one && valid) || (one && valid > 1))) break;
        if (one && valid > 1 && c->quiet) break;
    }
    c->kpath.n--;
    if (c->rc) {
        eset_free(c, &chosen);
        return false;
    }
    bool ok = one ? valid == 1 : valid > 0;
    if (ok) {
        err_rewind(c, em);
        if (one) merge(ev, &chosen);
        eset_free(c, &chosen);
        return true;
    }
    eset_free(c, &chosen);
    msg_start(c);
    if (!one) {
        MSG("expected the value to match at least one schema of \"anyOf\", it matches none");
    } else if (valid == 0) {
        MSG("expected the value to match exactly one schema of \"oneOf\", it matches none");
    } else {
        err_rewind(c, em);
        MSG("expected the value to match exactly one schema of \"oneOf\", it matches %zu and %zu%s",
            first, second, valid > 2 ? " (and more)" : "");
    }
    error_at_kw(c, k->name);
    return false;
}

static bool if_kw(vctx *c, const skw *k, const coax_value *inst, eset *ev)
{
    eset b = {0};
    if (ev && !eset_init(c, &b, ev->n)) return false;
    c->quiet++;
    bool cond = push_kw(c, "if") && apply(c, k->sub, inst, ev ? &b : NULL);
    c->kpath.n--;
    c->quiet--;
    if (cond) merge(ev, &b);
    eset_free(c, &b);
    if (c->rc) return false;
    const snode *next = k->subs[cond ? 0 : 1];
    if (!next) return true;
    bool r = push_kw(c, cond ? "then" : "else") && apply(c, next, inst, ev);
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
            not_allowed(c, k->name, v, " (no keyword of the schema evaluates it)", m ? m->key : NULL,
                        m ? m->klen : 0, i);
        } else {
            r = push_kw(c, k->name) && apply(c, k->sub, v, NULL);
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

/* Standard base64 (RFC 4648 section 4) with padding; the decoded bytes go
** to out (at least len * 3 / 4 bytes). False when not base64. */
static bool base64_decode(const char *s, size_t len, unsigned char *out, size_t *olen)
{
    if (len % 4) return false;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            int ch = (unsigned char)s[i + j], d;
            if (ch >= 'A' && ch <= 'Z') d = ch - 'A';
            else if (ch >= 'a' && ch <= 'z') d = ch - 'a' + 26;
            else if (ch >= '0' && ch <= '9') d = ch - '0' + 52;
            else if (ch == '+') d = 62;
            else if (ch == '/') d = 63;
            else if (ch == '=' && i + 4 == len && j >= 2 && (j == 3 || s[i + 3] == '=')) d = 0, pad++;
            else return false;
            if (pad && ch != '=') return false;
            v = v << 6 | (uint32_t)d;
        }
        out[o++] = (unsigned char)(v >> 16);
        if (pad < 2) out[o++] = (unsigned char)(v >> 8);
        if (pad < 1) out[o++] = (unsigned char)v;
    }
    *olen = o;
    return true;
}

static bool content_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_STRING) return true;
    const char *text = inst->u.text;
    size_t len = inst->len, blen = len / 4 * 3 + 3;
    unsigned char *buf = NULL;
    bool ok = true;
    if (k->n & CONTENT_BASE64) {
        if (!(buf = coax_alloc_raw(c->alloc, blen))) return oom(c);
        if (!base64_decode(inst->u.text, inst->len, buf, &len)) {
            msg_start(c);
            MSG("expected base64-encoded text (contentEncoding \"base64\"), got ");
            put_str(&c->msg, inst->u.text, inst->len, 40);
            error_at_kw(c, "contentEncoding");
            ok = false;
        }
        text = (const char *)buf;
    }
    if (ok && (k->n & CONTENT_JSON)) {
        coax_arena *a = coax_arena_new(c->alloc);
        coax_value *v;
        coax_error e;
        if (!a) {
            ok = oom(c);
        } else if (coax_parse(a, text, len, NULL, &v, &e) != COAX_OK) {
            msg_start(c);
            MSG("expected a JSON document (contentMediaType \"application/json\"): %s", e.msg);
            error_at_kw(c, "contentMediaType");
            ok = false;
        }
        coax_arena_free(a);
    }
    if (buf) coax_free_raw(c->alloc, buf, blen);
    return ok;
}

static bool run_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst, eset *ev)
{
    if (!charge(c, k->cost)) return false;
    if (inst->type == COAX_STRING &&
        (k->op == OP_MAXLENGTH || k->op == OP_MINLENGTH || k->op == OP_PATTERN || k->op == OP_FORMAT ||
         k->op == OP_CONTENT) &&
        !charge(c, inst->len / 64))
        return false;
    switch (k->op) {
    case OP_REF:
    case OP_DYNREF:
    case OP_RECREF:
        return ref_kw(c, n, k, inst, ev);
    case OP_TYPE: {
        unsigned t = type_bits(inst);
        /* draft 4 counts 1.0 as a number only */
        if (n->res->draft == 4 && inst->type == COAX_NUMBER && !(inst->flags & COAX_VF_INT_TEXT))
            t &= ~(unsigned)T_INTEGER;
        if (t & k->types) return true;
        msg_start(c);
        MSG("expected ");
        put_types(c, k->types);
        MSG(", got ");
        put_got(c, inst);
        error_at_kw(c, "type");
        return false;
    }
    case OP_ENUM:
        if (k->vset) {
            int r = enum_lookup(c, k, inst);
            if (r) return r > 0;
        } else if (inst->type == COAX_STRING) { /* the common case, without the general comparison */
            for (size_t i = 0; i < k->v->len; i++) {
                const coax_value *e = &k->v->u.items[i];
                if (e->type == COAX_STRING && e->len == inst->len && !memcmp(e->u.text, inst->u.text, inst->len))
                    return true;
            }
        } else {
            for (size_t i = 0; i < k->v->len; i++)
                if (equal(c, &k->v->u.items[i], inst)) return true;
        }
        if (c->rc) return false;
        msg_start(c);
        if (k->v->len == 1) {
            MSG("expected ");
            put_json(c, &c->msg, &k->v->u.items[0], 60);
        } else {
            MSG("expected one of ");
            put_json(c, &c->msg, k->v, 100);
        }
        MSG(", got ");
        put_got(c, inst);
        error_at_kw(c, "enum");
        return false;
    case OP_CONST:
        if (equal(c, k->v, inst)) return true;
        if (c->rc) return false;
        msg_start(c);
        MSG("expected ");
        put_json(c, &c->msg, k->v, 60);
        MSG(", got ");
        put_got(c, inst);
        error_at_kw(c, "const");
        return false;
    case OP_MULTIPLEOF:
        if (inst->type != COAX_NUMBER || coax_num_multiple(inst->u.text, inst->len, k->v->u.text, k->v->len))
            return true;
        msg_start(c);
        MSG("expected a multiple of %s, got %s", k->v->u.text, inst->u.text);
        error_at_kw(c, "multipleOf");
        return false;
    case OP_MAXIMUM:
    case OP_EXMAXIMUM:
    case OP_MINIMUM:
    case OP_EXMINIMUM:
        return cmp_kw(c, k, inst);
    case OP_MAXLENGTH:
    case OP_MINLENGTH:
        if (inst->type != COAX_STRING) return true;
        return count_kw(c, k, utf8_count(inst->u.text, inst->len), "character", "characters", k->op == OP_MAXLENGTH);
    case OP_PATTERN: {
        if (inst->type != COAX_STRING) return true;
        bool hit;
        if (!regex_match(c, k->re, inst->u.text, inst->len, &hit)) return false;
        if (hit) return true;
        msg_start(c);
        MSG("expected a string matching ");
        put_str(&c->msg, k->v->u.text, k->v->len, 60);
        MSG(", got ");
        put_str(&c->msg, inst->u.text, inst->len, 40);
        error_at_kw(c, "pattern");
        return false;
    }
    case OP_FORMAT: {
        if (inst->type != COAX_STRING) return true;
        if (k->n == FMT_REGEX) { /* a pattern read: charged like a match */
            uint64_t cost = 1 + inst->len / 16;
            if (c->regex < cost) return regex_spent(c);
            c->regex -= cost;
        }
        int r = coax_format_check((coax_format)k->n, inst->u.text, inst->len, c->alloc);
        if (r < 0) return oom(c);
        if (r) return true;
        msg_start(c);
        MSG("expected %s (format \"%s\"), got ", coax_format_describe((coax_format)k->n), k->v->u.text);
        put_str(&c->msg, inst->u.text, inst->len, 40);
        error_at_kw(c, "format");
        return false;
    }
    case OP_ITEMS:
        return items_kw(c, n, k, inst, ev);
    case OP_CONTAINS:
        return contains_kw(c, n, k, inst, ev);
    case OP_MAXITEMS:
    case OP_MINITEMS:
        if (inst->type != COAX_ARRAY) return true;
        return count_kw(c, k, inst->len, "item", "items", k->op == OP_MAXITEMS);
    case OP_UNIQUE:
        return unique_kw(c, k, inst);
    case OP_MAXPROPS:
    case OP_MINPROPS:
        if (inst->type != COAX_OBJECT) return true;
        return count_kw(c, k, inst->len, "property", "properties", k->op == OP_MAXPROPS);
    case OP_REQUIRED:
        return required_kw(c, k, inst);
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
            bool r = push(c, &c->kpath, NULL, i) && apply(c, k->subs[i], inst, ev);
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
        bool r = push_kw(c, "not") && apply(c, k->sub, inst, NULL);
        c->kpath.n--;
        c->quiet--;
        if (c->rc) return false;
        if (!r) return true;
        msg_start(c);
        MSG("expected the value not to match the schema of \"not\", got ");
        put_got(c, inst);
        error_at_kw(c, "not");
        return false;
    }
    case OP_IF:
        return if_kw(c, k, inst, ev);
    case OP_UNEVAL_ITEMS:
    case OP_UNEVAL_PROPS:
        return uneval_kw(c, k, inst, ev);
    case OP_CONTENT:
        return content_kw(c, k, inst);
    case OP_ANNOTATE:
        annotate(c, k);
        return true;
    default:
        return true;
    }
}

static bool validate(vctx *c, const snode *n, const coax_value *inst, eset *ev)
{
    if (c->rc || !charge(c, 1)) return false;
    if (n->kind == N_TRUE) return true;
    if (n->kind == N_FALSE) {
        msg_start(c);
        MSG("no value is allowed here (the schema is false), got ");
        put_got(c, inst);
        const snode *save = c->node;
        size_t save_k = c->node_k;
        c->node = n;
        c->node_k = c->kpath.n;
        record(c);
        c->node = save;
        c->node_k = save_k;
        return false;
    }
    if (c->depth >= c->s->max_depth)
        return fatal(c, COAX_EDEPTH, "schema evaluation nested deeper than the limit of %zu",
                     c->s->max_depth);
    bool pushed = !c->nscope || c->scope[c->nscope - 1] != n->res;
    if (pushed) {
        if (!grow(c, (void **)&c->scope, &c->cscope, c->nscope, sizeof *c->scope)) return false;
        c->scope[c->nscope++] = n->res;
    }
    if (!grow(c, (void **)&c->nest, &c->cnest, c->nnest + 1, sizeof *c->nest)) return false;
    c->nest[c->nnest++] = (uint32_t)c->kpath.n;
    c->nest[c->nnest++] = (uint32_t)c->ipath.n;
    const snode *save = c->node;
    size_t save_k = c->node_k;
    c->node = n;
    c->node_k = c->kpath.n;
    c->depth++;

    eset local = {0}, *my = ev;
    if (n->uneval && (inst->type == COAX_ARRAY || inst->type == COAX_OBJECT)) {
        if (!eset_init(c, &local, inst->len)) return false;
        my = &local;
    }
    size_t anns_at = c->nanns, astrs_at = c->astrs.len;
    bool ok = true;
    for (size_t i = 0; i < n->nkw && !c->rc; i++) {
        if (!run_kw(c, n, &n->kw[i], inst, my)) {
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
        eset_free(c, &local);
    }
    c->depth--;
    c->node = save;
    c->node_k = save_k;
    c->nnest -= 2;
    if (pushed) c->nscope--;
    return ok && !c->rc;
}

/* Moves the annotations collected into 'out', in 'arena'. */
static void take_annotations(vctx *c, coax_arena *arena, coax_validation *out)
{
    coax_schema_annotation *a = coax_arena_alloc(arena, c->nanns * sizeof *a);
    char *strs = coax_arena_alloc(arena, c->astrs.len);
    if (!a || !strs) {
        oom(c);
        return;
    }
    memcpy(strs, c->astrs.data, c->astrs.len);
    for (size_t i = 0; i < c->nanns; i++) {
        const vann *v = &c->anns[i];
        a[i].instance_location = strs + v->iloc;
        a[i].keyword_location = strs + v->kloc;
        a[i].absolute_keyword_location = v->aloc == SIZE_MAX ? NULL : strs + v->aloc;
        a[i].value = v->value;
    }
    out->annotations = a;
    out->nannotations = c->nanns;
}

/* The instance's size: its values and members, and the bytes of its
** strings and keys. Walked with a stack from the allocator (any depth). */
static bool instance_size(vctx *c, const coax_value *v, uint64_t *values, uint64_t *bytes)
{
    segs st = {0}; /* (container, next index) pairs, in seg's two fields */
    *values = 1, *bytes = v->type == COAX_STRING ? v->len : 0;
    if ((v->type == COAX_ARRAY || v->type == COAX_OBJECT) && !push(c, &st, (const char *)v, 0)) return false;
    while (st.n) {
        seg *top = &st.v[st.n - 1];
        const coax_value *p = (const coax_value *)top->s;
        if (top->len >= p->len) {
            st.n--;
            continue;
        }
        size_t i = top->len++;
        const coax_value *ch = p->type == COAX_ARRAY ? &p->u.items[i] : &p->u.members[i].value;
        if (p->type == COAX_OBJECT) *values += 1, *bytes += p->u.members[i].klen;
        *values += 1;
        if (ch->type == COAX_STRING) *bytes += ch->len;
        if ((ch->type == COAX_ARRAY || ch->type == COAX_OBJECT) && ch->len &&
            !push(c, &st, (const char *)ch, 0))
            break;
    }
    coax_free_raw(c->alloc, st.v, st.cap * sizeof *st.v);
    return !c->rc;
}

static uint64_t sat_mul(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* The run's budgets: the schema's (or the defaults, by the sizes of the
** schema and the instance), cut to what the pool has left. */
static bool budgets(vctx *c, const coax_value *inst, const coax_vpool *pool)
{
    uint64_t values, bytes;
    c->steps = c->s->max_steps, c->regex = c->s->max_regex_total;
    c->steps_what = "max_steps";
    c->regex_what = "max_regex_total";
    if (!c->steps || !c->regex) {
        if (!instance_size(c, inst, &values, &bytes)) return false;
        if (!c->steps) {
            c->steps = sat_mul(2 * c->s->weight, values + bytes / 64);
            if (c->steps < COAX_DEFAULT_MIN_STEPS) c->steps = COAX_DEFAULT_MIN_STEPS;
        }
        if (!c->regex) {
            c->regex = sat_mul(64, values + bytes);
            if (c->regex < COAX_DEFAULT_MIN_REGEX_TOTAL) c->regex = COAX_DEFAULT_MIN_REGEX_TOTAL;
        }
    }
    if (pool && pool->steps < c->steps) c->steps = pool->steps, c->steps_what = pool->what;
    if (pool && pool->regex < c->regex) c->regex = pool->regex, c->regex_what = pool->what;
    c->steps_max = pool && c->steps_what == pool->what ? pool->size : c->steps;
    c->regex_max = pool && c->regex_what == pool->what ? pool->size : c->regex;
    return true;
}

coax_code coax_schema_run(const coax_schema *s, const snode *root, const coax_value *inst,
                          coax_arena *arena, unsigned flags, coax_vpool *pool, coax_validation *out,
                          coax_error *err)
{
    vctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.alloc = coax_arena_allocator(arena);
    c.err = err;
    c.quiet = (flags & COAX_VALIDATE_FIRST) ? 1 : 0;
    c.annotate = (flags & COAX_VALIDATE_ANNOTATIONS) != 0;
    coax_buf_init(&c.astrs, c.alloc);
    coax_buf_init(&c.strs, c.alloc);
    coax_buf_init(&c.nests, c.alloc);
    coax_buf_init(&c.msg, c.alloc);
    bool valid = false;
    if (budgets(&c, inst, pool)) {
        uint64_t steps = c.steps, regex = c.regex;
        valid = validate(&c, root, inst, NULL);
        if (pool) {
            pool->steps -= steps - c.steps;
            pool->regex -= regex - c.regex;
        }
    }
    memset(out, 0, sizeof *out);
    if (!c.rc) {
        out->valid = valid;
        if (!valid && c.nerrs) {
            coax_schema_error *e = coax_arena_alloc(arena, c.nerrs * sizeof *e);
            char *strs = coax_arena_alloc(arena, c.strs.len ? c.strs.len : 1);
            uint32_t *nests = coax_arena_alloc(arena, c.nests.len ? c.nests.len : 1);
            if (!e || !strs || !nests) {
                oom(&c);
            } else {
                if (c.strs.len) memcpy(strs, c.strs.data, c.strs.len);
                if (c.nests.len) memcpy(nests, c.nests.data, c.nests.len);
                for (size_t i = 0; i < c.nerrs; i++) {
                    const verr *v = &c.errs[i];
                    e[i].instance_location = strs + v->iloc;
                    e[i].keyword_location = strs + v->kloc;
                    e[i].absolute_keyword_location = v->aloc == SIZE_MAX ? NULL : strs + v->aloc;
                    e[i].message = strs + v->msg;
                    e[i].nesting = nests + v->nest / sizeof *nests;
                    e[i].nnesting = v->nnest;
                }
                out->errors = e;
                out->nerrors = c.nerrs;
            }
        }
        if (valid && c.nanns) take_annotations(&c, arena, out);
    }
    coax_buf_free(&c.astrs);
    coax_free_raw(c.alloc, c.anns, c.canns * sizeof *c.anns);
    coax_buf_free(&c.strs);
    coax_buf_free(&c.nests);
    coax_buf_free(&c.msg);
    coax_free_raw(c.alloc, c.errs, c.cerrs * sizeof *c.errs);
    coax_free_raw(c.alloc, c.ipath.v, c.ipath.cap * sizeof *c.ipath.v);
    coax_free_raw(c.alloc, c.kpath.v, c.kpath.cap * sizeof *c.kpath.v);
    coax_free_raw(c.alloc, c.scope, c.cscope * sizeof *c.scope);
    coax_free_raw(c.alloc, c.refs, c.crefs * sizeof *c.refs);
    coax_free_raw(c.alloc, c.nest, c.cnest * sizeof *c.nest);
    coax_free_raw(c.alloc, c.names.slot, c.names.cap * sizeof *c.names.slot);
    coax_regex_scratch_free(s->re_env, c.scratch);
    if (c.rc) memset(out, 0, sizeof *out);
    return c.rc;
}

coax_code coax_validate(const coax_schema *s, const coax_value *instance, coax_arena *arena,
                        unsigned flags, coax_validation *out, coax_error *err)
{
    if (!s || !instance || !arena || !out)
        return coax_fail(err, COAX_EINVAL, 0, "schema, instance, arena and out must not be NULL");
    return coax_schema_run(s, s->root, instance, arena, flags, NULL, out, err);
}
