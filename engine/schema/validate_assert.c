/*
** validate_assert.c: the assertion keywords that take more than a test
** (validate.h): number bounds compared on the texts, patterns and formats
** charged to the regex budget, counts and string lengths (characters
** counted only when the bytes cannot answer), uniqueItems by a keyed hash of the items,
** required and dependentRequired by an index of the members' names, and
** the content of a string (base64, JSON). Each records its own error.
*/
#include "base/hash.h"
#include "schema/decimal.h"
#include "schema/format.h"
#include "schema/num.h"
#include "schema/validate.h"

#include <stdlib.h>

/* ---- strings: patterns and formats --------------------------------------- */

static bool regex_spent(vctx *c)
{
    return vctx_fatal(c, COAX_ELIMIT, "validation used up its regex budget of %llu steps (%s)",
                      (unsigned long long)c->regex_max, c->regex_what);
}

static int regex_match_in(vctx *c, const coax_regex *re, const char *s, size_t n, uint64_t *budget)
{
    if (!vctx_scratch(c)) return -2;
    return coax_regex_match_in(c->s->re_env, re, s, n, c->scratch, budget);
}

/* Pydantic's Decimal pattern: a plain decimal as PCRE2 would match it,
** without it; anything else by the pattern. Apart, not inlined, so the
** other patterns' calls save and restore nothing. */
static __attribute__((noinline)) int decimal_match_in(vctx *c, const coax_regex *re, const char *s, size_t n,
                                                      uint64_t *budget)
{
    uint64_t cost;
    if (coax_decimal_match(s, n, &cost) != 1) return regex_match_in(c, re, s, n, budget);
    if (*budget < cost) {
        *budget = 0;
        return -3;
    }
    *budget -= cost;
    return 1;
}

int vctx_match_in(vctx *c, const coax_regex *re, bool decimal, const char *s, size_t n, uint64_t *budget)
{
    return decimal ? decimal_match_in(c, re, s, n, budget) : regex_match_in(c, re, s, n, budget);
}

bool vctx_regex_match(vctx *c, const coax_regex *re, bool decimal, const char *s, size_t n, bool *ok)
{
    uint64_t left = c->regex;
    int r = vctx_match_in(c, re, decimal, s, n, &c->regex);
    if (r == -3 && c->unsized) { /* again with the whole default budget: the same match, the same cost */
        c->regex = left;
        if (vctx_measure(c)) r = vctx_match_in(c, re, decimal, s, n, &c->regex);
    }
    /* the limits named, as the others of a validation are */
    if (r == -1)
        return vctx_fatal(c, COAX_ELIMIT, "a regular expression exceeded its step limit of %lu steps (max_regex_steps)",
                          (unsigned long)coax_regex_match_limit(c->s->re_env));
    if (r == -4)
        return vctx_fatal(c, COAX_ELIMIT, "a regular expression exceeded its backtracking bounds (%u nested points, "
                          "%u KiB)", COAX_REGEX_DEPTH_LIMIT, COAX_REGEX_HEAP_LIMIT_KB);
    if (r == -2) return oom(c);
    if (r == -3) return regex_spent(c);
    *ok = r == 1;
    return true;
}

bool vctx_pattern_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_STRING) return true;
    bool hit;
    if (!vctx_regex_match(c, k->re, k->decimal, inst->u.text, inst->len, &hit)) return false;
    if (hit) return true;
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    MSGS("expected a string matching ");
    vctx_put_str(&c->msg, k->v->u.text, k->v->len, 60);
    MSGS(", got ");
    vctx_put_str(&c->msg, inst->u.text, inst->len, 40);
    vctx_error_at_kw(c, "pattern");
    return false;
}

bool vctx_format_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_STRING) return true;
    if (k->n == FMT_REGEX) { /* a pattern read: charged like a match */
        uint64_t cost = 1 + inst->len / 16;
        if (c->regex < cost && !(vctx_measure(c) && c->regex >= cost)) return regex_spent(c);
        c->regex -= cost;
    }
    int r = coax_format_check((coax_format)k->n, inst->u.text, inst->len, c->alloc);
    if (r < 0) return oom(c);
    if (r) return true;
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    MSGS("expected ");
    coax_buf_puts(&c->msg, coax_format_describe((coax_format)k->n));
    MSGS(" (format \"");
    coax_buf_puts(&c->msg, k->v->u.text);
    MSGS("\"), got ");
    vctx_put_str(&c->msg, inst->u.text, inst->len, 40);
    vctx_error_at_kw(c, "format");
    return false;
}

/* ---- counts and lengths ------------------------------------------------ */

bool vctx_count_kw(vctx *c, const skw *k, size_t have, const char *one, const char *many,
                     bool max)
{
    if (vctx_count_ok(k, have, max)) return true;
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    coax_buf_puts(&c->msg, max ? "expected at most " : "expected at least ");
    vctx_put_size(&c->msg, k->n);
    coax_buf_putc(&c->msg, ' ');
    coax_buf_puts(&c->msg, k->n == 1 ? one : many);
    MSGS(", got ");
    vctx_put_size(&c->msg, have);
    vctx_error_at_kw(c, k->name);
    return false;
}

static size_t utf8_count(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* Whether s[0..n) holds at least 'min' characters (counted as utf8_count does). */
static bool utf8_reaches(const char *s, size_t n, size_t min)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < min; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k >= min;
}

bool vctx_length_ok(const skw *k, const coax_value *inst)
{
    /* no more characters than bytes: a short string passes maxLength
    ** uncounted, and minLength stops counting once it has enough */
    return k->op == OP_MAXLENGTH ? inst->len <= k->n || utf8_count(inst->u.text, inst->len) <= k->n
                                 : utf8_reaches(inst->u.text, inst->len, k->n);
}

bool vctx_length_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (vctx_length_ok(k, inst)) return true;
    return vctx_count_kw(c, k, utf8_count(inst->u.text, inst->len), "character", "characters", k->op == OP_MAXLENGTH);
}

/* ---- numbers and enums --------------------------------------------------- */

/* Compares two JSON number texts without an exponent (the common case)
** by their digits; false when it cannot tell (the exact comparison in
** json/value.c answers then). */
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
    /* integer parts have no leading zeros; "0" counts as no digit */
    size_t ia = ai == 1 && a[0] == '0' ? 0 : ai, ib = bi == 1 && b[0] == '0' ? 0 : bi;
    int mag; /* |a| against |b| */
    if (ia != ib) {
        mag = ia < ib ? -1 : 1;
    } else {
        int r = memcmp(a + ai - ia, b + bi - ib, ia);
        mag = r < 0 ? -1 : r > 0;
        for (size_t i = 1; !mag && (ai + i < al || bi + i < bl); i++) {
            char x = ai + i < al ? a[ai + i] : '0', y = bi + i < bl ? b[bi + i] : '0';
            mag = x < y ? -1 : x > y;
        }
    }
    if (na == nb) {
        *out = na ? -mag : mag;
        return true;
    }
    if (!mag) { /* equal magnitudes of opposite signs: equal when zero (-0 = 0) */
        bool zero = true;
        for (size_t i = 0; i < al && zero; i++) zero = a[i] == '0' || a[i] == '.';
        if (zero) {
            *out = 0;
            return true;
        }
    }
    *out = na ? -1 : 1;
    return true;
}

/* Compares two integer texts (no fraction, no exponent, no leading zero). */
static int int_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    bool na = a[0] == '-', nb = b[0] == '-';
    a += na, al -= na, b += nb, bl -= nb;
    int mag = al != bl ? (al < bl ? -1 : 1) : 0;
    for (size_t i = 0; !mag && i < al; i++) mag = a[i] < b[i] ? -1 : a[i] > b[i]; /* a few digits: no call */
    if (na == nb) return na ? -mag : mag;
    if (!mag && al == 1 && a[0] == '0') return 0; /* -0 = 0 */
    return na ? -1 : 1;
}

/* The sign of a number text: -1, 0 or 1 (a zero mantissa is 0, "-0" too). */
static int num_sign(const char *s, size_t n)
{
    size_t i = s[0] == '-';
    for (; i < n && s[i] != 'e' && s[i] != 'E'; i++)
        if (s[i] >= '1' && s[i] <= '9') return s[0] == '-' ? -1 : 1;
    return 0;
}

/* Two number texts compared by their digits, or exactly when that cannot
** tell. Apart, not inlined: the common comparisons (a sign, two integers)
** then save and restore no registers for it. */
static __attribute__((noinline)) int text_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    int r;
    if (!plain_cmp(a, al, b, bl, &r)) r = coax_number_compare_text(a, al, b, bl);
    return r;
}

bool vctx_cmp_ok(const skw *k, const coax_value *inst)
{
    int r;
    if (k->zero)
        r = num_sign(inst->u.text, inst->len);
    else if (inst->flags & k->v->flags & COAX_VF_INT_TEXT)
        r = int_cmp(inst->u.text, inst->len, k->v->u.text, k->v->len);
    else
        r = text_cmp(inst->u.text, inst->len, k->v->u.text, k->v->len);
    switch (k->op) {
    case OP_MAXIMUM: return r <= 0;
    case OP_EXMAXIMUM: return r < 0;
    case OP_MINIMUM: return r >= 0;
    default: return r > 0;
    }
}

bool vctx_cmp_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_NUMBER || vctx_bound_ok(k, inst)) return true;
    const char *what = k->op == OP_MAXIMUM     ? "at most"
                       : k->op == OP_EXMAXIMUM ? "less than"
                       : k->op == OP_MINIMUM   ? "at least"
                                               : "greater than";
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    MSGS("expected a number ");
    coax_buf_puts(&c->msg, what);
    coax_buf_putc(&c->msg, ' ');
    coax_buf_puts(&c->msg, k->v->u.text);
    MSGS(", got ");
    coax_buf_puts(&c->msg, inst->u.text);
    vctx_error_at_kw(c, k->name);
    return false;
}

/* 1 when 'inst' is one of a hashed enum's values, 0 when not, -1 after a
** failure (budget, memory). Equal hashes are confirmed by comparing. The
** lookup is charged one step whatever its probes: their number depends on
** the table's seed, drawn per compilation, and a budget must end a run at
** the same place every time (the probes are few for any seed a reply
** cannot know). */
int vctx_enum_lookup(vctx *c, const skw *k, const coax_value *inst)
{
    const svset *t = k->vset;
    uint64_t h;
    size_t work;
    if (coax_value_hash(inst, t->seed, c->alloc, &h, &work)) return oom(c), -1;
    if (!charge(c, work + 1)) return -1;
    for (uint32_t i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
        int32_t j = t->slot[i];
        if (j < 0) return 0;
        if (t->hash[j] == h && equal(c, &k->v->u.items[j], inst)) return 1;
        if (c->rc) return -1;
    }
}

/* "type" when the value's coax type alone does not answer (an integer
** asked of a number, or a failure). */
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

bool vctx_type_ok(const snode *n, const skw *k, const coax_value *inst)
{
    if (inst->type == COAX_NUMBER) {
        if (k->types & T_NUMBER) return true; /* integral or not */
        if (inst->flags & COAX_VF_INT_TEXT) return (k->types & T_INTEGER) != 0; /* an integer in every draft */
    }
    unsigned t = type_bits(inst);
    /* draft 4 counts 1.0 as a number only */
    if (n->res->draft == 4 && inst->type == COAX_NUMBER && !(inst->flags & COAX_VF_INT_TEXT))
        t &= ~(unsigned)T_INTEGER;
    return (t & k->types) != 0;
}

void vctx_type_msg(vctx *c, const skw *k, const coax_value *inst)
{
    msg_start(c);
    MSGS("expected ");
    coax_buf_put(&c->msg, k->tnames, k->ntnames);
    MSGS(", got ");
    vctx_put_got(c, inst);
}

size_t vctx_type_msg_len(const skw *k, const coax_value *inst)
{
    size_t got = vctx_got_len(inst);
    return got == SIZE_MAX ? SIZE_MAX : sizeof "expected " - 1 + k->ntnames + sizeof ", got " - 1 + got;
}

bool vctx_type_kw(vctx *c, const snode *n, const skw *k, const coax_value *inst)
{
    if (vctx_type_ok(n, k, inst)) return true;
    if (c->quiet) return false; /* no message, no error */
    vctx_type_msg(c, k, inst);
    vctx_error_at_kw(c, "type");
    return false;
}

bool vctx_enum_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (k->names && inst->type == COAX_STRING) { /* one probe of the strings' table */
        /* a hashed enum charges what hashing the string takes (1 + len / 64) and the lookup */
        if (k->vset && !charge(c, 2 + inst->len / 64)) return false;
        if (coax_names_find(k->names, inst->u.text, inst->len) >= 0) return true;
    } else if (k->vset) {
        int r = vctx_enum_lookup(c, k, inst);
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
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    if (k->v->len == 1) {
        MSGS("expected ");
        vctx_put_json(c, &c->msg, &k->v->u.items[0], 60);
    } else {
        MSGS("expected one of ");
        vctx_put_json(c, &c->msg, k->v, 100);
    }
    MSGS(", got ");
    vctx_put_got(c, inst);
    vctx_error_at_kw(c, "enum");
    return false;
}

void vctx_const_msg(vctx *c, const skw *k, const coax_value *inst)
{
    msg_start(c);
    MSGS("expected ");
    vctx_put_json(c, &c->msg, k->v, 60);
    MSGS(", got ");
    vctx_put_got(c, inst);
}

bool vctx_const_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (equal(c, k->v, inst)) return true;
    if (c->rc || c->quiet) return false; /* quiet: no message, no error */
    vctx_const_msg(c, k, inst);
    vctx_error_at_kw(c, "const");
    return false;
}

void vctx_required_msg(vctx *c, const coax_value *name)
{
    msg_start(c);
    MSGS("missing required property ");
    vctx_put_str(&c->msg, name->u.text, name->len, 60);
}

bool vctx_multiple_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_NUMBER) return true;
    int multiple = coax_num_multiple(inst->u.text, inst->len, k->v->u.text, k->v->len);
    if (multiple == 1) return true;
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    if (multiple < 0)
        MSG("expected a multiple of %s, got %s: a multipleOf of more than %d significant digits is not checked",
            k->v->u.text, inst->u.text, COAX_NUM_EXACT_DIGITS);
    else
        MSG("expected a multiple of %s, got %s", k->v->u.text, inst->u.text);
    vctx_error_at_kw(c, "multipleOf");
    return false;
}

bool vctx_false_schema(vctx *c, const snode *n, const coax_value *inst)
{
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    MSGS("no value is allowed here (the schema is false), got ");
    vctx_put_got(c, inst);
    c->false_node = n;
    vctx_record(c);
    c->false_node = NULL;
    return false;
}

/* ---- uniqueItems --------------------------------------------------------- */

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

bool vctx_small_scalars(const coax_value *a, uint64_t *steps)
{
    if (a->len > 16) return false;
    uint64_t bytes = 0;
    for (size_t i = 0; i < a->len; i++) {
        const coax_value *v = &a->u.items[i];
        if (v->type == COAX_ARRAY || v->type == COAX_OBJECT) return false;
        if (v->type == COAX_STRING || v->type == COAX_NUMBER) bytes += v->len;
    }
    *steps = (uint64_t)a->len * a->len / 2 + a->len * (bytes / 64);
    return true;
}

bool vctx_scalar_duplicate(const coax_value *a, size_t *dj, size_t *di)
{
    for (size_t i = 1; i < a->len; i++)
        for (size_t j = 0; j < i; j++)
            if (coax_value_equal(&a->u.items[j], &a->u.items[i], NULL) > 0) { /* scalars: no memory */
                *dj = j, *di = i;
                return true;
            }
    return false;
}

/* The duplicate pair (j < i) with the smallest i, then j; false if none.
** Beyond small arrays of scalars, only items of equal hash are compared (a
** keyed hash of the whole item, however deep, charged by its size), so the
** work is linear in the items' size plus n log n. */
static bool find_duplicate(vctx *c, const coax_value *a, size_t *dj, size_t *di)
{
    size_t n = a->len, best_i = SIZE_MAX, best_j = 0;
    uint64_t steps;
    if (n < 2) return false;
    if (vctx_small_scalars(a, &steps)) return charge(c, steps) && vctx_scalar_duplicate(a, dj, di);
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

bool vctx_unique_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_ARRAY) return true;
    size_t j = 0, i = 0;
    if (!find_duplicate(c, inst, &j, &i)) return !c->rc;
    if (!msg_start(c)) return false; /* quiet: no message, no error */
    MSG("expected unique items, items %zu and %zu are equal", j, i);
    vctx_error_at_kw(c, k->name);
    return false;
}

/* ---- names of an object: required ---------------------------------------- */

/* The member of 'obj' named key[0..n), or NULL. A large object is indexed
** by its names once (a keyed hash), and the index kept for the next lookup:
** "required" and "dependentRequired" look up one name after another in
** the same object, and a scan per name made n names over n members cost
** n^2. NULL with c->rc set when out of memory. */
const coax_value *vctx_member_named(vctx *c, const coax_value *obj, const char *key, size_t n)
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

/* Whether props[j] is in table 't' (the first of its name: a duplicate
** name is left out), found where its hash leads. */
static bool in_table(const sptab *t, size_t j)
{
    for (uint32_t i = t->hash[j] & t->mask;; i = (i + 1) & t->mask) {
        if (t->slot[i] == (int32_t)j) return true;
        if (t->slot[i] < 0) return false;
    }
}

const int8_t *vctx_prop_index(vctx *c, const sptab *t, const coax_value *props, const coax_value *inst)
{
    if (inst->len > 64 || props->len > 64) return NULL;
    if (c->found.inst == inst && c->found.tab == t) return c->found.idx;
    /* members mostly come in the order of "properties": the names after
    ** the last one found are tried first, the table (a hash) after */
    size_t next = 0, np = props->len, tries = np < 4 ? np : 4;
    const coax_member *pm = props->u.members;
    uint64_t seen = 0;
    for (size_t i = 0; i < inst->len; i++) {
        const coax_member *m = &inst->u.members[i];
        int32_t j = -1;
        if (next < np && pm[next].klen == m->klen && coax_same_bytes(pm[next].key, m->key, m->klen)) {
            if (in_table(t, next)) j = (int32_t)next; /* the common case: the next name */
        } else {
            for (size_t g = 1, at = next + 1; g < tries; g++, at++) {
                if (at >= np) at -= np;
                if (pm[at].klen == m->klen && coax_same_bytes(pm[at].key, m->key, m->klen)) {
                    if (in_table(t, at)) j = (int32_t)at;
                    break;
                }
            }
        }
        if (j < 0) j = coax_ptab_find(t, props, m->key, m->klen);
        if (j >= 0) next = (size_t)j + 1, seen |= (uint64_t)1 << j;
        c->found.idx[i] = (int8_t)j;
    }
    c->found.seen = seen;
    c->found.inst = inst;
    c->found.tab = t;
    return c->found.idx;
}

bool vctx_required_kw(vctx *c, const skw *k, const coax_value *inst)
{
    if (inst->type != COAX_OBJECT) return true;
    /* a probe per member, or a lookup per name (an index of the members) */
    if (!charge(c, k->ptab ? inst->len : (uint64_t)k->v->len + inst->len)) return false;
    uint64_t seen = 0; /* the node's "properties" present in the instance */
    if (k->names) { /* a probe of the perfect table per member; every name there */
        bool keep = inst->len <= 64; /* for the node's "properties", as vctx_prop_index keeps them */
        for (size_t i = 0; i < inst->len; i++) {
            int32_t j = coax_names_find(k->names, inst->u.members[i].key, inst->u.members[i].klen);
            if (keep) c->found.idx[i] = (int8_t)j;
            if (j >= 0) seen |= (uint64_t)1 << j;
        }
        if (keep) c->found.inst = inst, c->found.tab = k->ptab, c->found.seen = seen;
        if ((seen & k->reqmask) == k->reqmask) return true;
    } else if (k->ptab) {
        if (vctx_prop_index(c, k->ptab, k->v2, inst)) {
            seen = c->found.seen;
        } else {
            for (size_t i = 0; i < inst->len; i++) {
                const coax_member *m = &inst->u.members[i];
                int32_t j = coax_ptab_find(k->ptab, k->v2, m->key, m->klen);
                if (j >= 0) seen |= (uint64_t)1 << j;
            }
        }
    }
    bool ok = true;
    for (size_t i = 0; i < k->v->len; i++) {
        const coax_value *name = &k->v->u.items[i];
        if (k->ptab && k->ridx[i] >= 0) {
            if ((seen >> k->ridx[i]) & 1) continue;
        } else if (vctx_member_named(c, inst, name->u.text, name->len)) {
            continue;
        } else if (c->rc) {
            return false;
        }
        ok = false;
        if (c->quiet) break; /* no message, no error */
        vctx_required_msg(c, name);
        vctx_error_at_kw(c, k->name);
    }
    return ok;
}

/* ---- content ------------------------------------------------------------- */

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

bool vctx_content_kw(vctx *c, const skw *k, const coax_value *inst)
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
            MSGS("expected base64-encoded text (contentEncoding \"base64\"), got ");
            vctx_put_str(&c->msg, inst->u.text, inst->len, 40);
            vctx_error_at_kw(c, "contentEncoding");
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
            vctx_error_at_kw(c, "contentMediaType");
            ok = false;
        }
        coax_arena_free(a);
    }
    if (buf) coax_free_raw(c->alloc, buf, blen);
    return ok;
}
