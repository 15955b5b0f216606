/*
** json/value.c: reading and building values, exact equality, JSON Pointer.
*/
#include "base/core.h"
#include "base/hash.h"
#include "json/pointer.h"

#include <stdlib.h>

static const char *const type_names[] = {"null", "boolean", "number",
                                         "string", "array", "object"};

/* Every reader takes NULL, what coax_object_get and coax_array_get return
** for a missing member or item, as a value absent: chained reads never
** crash (coax_value_len(coax_object_get(v, "tags", 4)) is 0). */
coax_type coax_value_type(const coax_value *v) { return v ? (coax_type)v->type : COAX_NULL; }

const char *coax_type_name(coax_type t)
{
    return (unsigned)t <= COAX_OBJECT ? type_names[t] : "unknown";
}

int coax_value_bool(const coax_value *v)
{
    return v && v->type == COAX_BOOL ? v->u.boolean : 0;
}

int coax_number_is_int_text(const coax_value *v)
{
    return v && v->type == COAX_NUMBER && (v->flags & COAX_VF_INT_TEXT);
}

double coax_value_double(const coax_value *v)
{
    return v && v->type == COAX_NUMBER ? coax_dot_strtod(v->u.text, NULL) : 0.0;
}

const char *coax_value_text(const coax_value *v, size_t *len)
{
    if (!v || (v->type != COAX_NUMBER && v->type != COAX_STRING)) return NULL;
    if (len) *len = v->len;
    return v->u.text;
}

size_t coax_value_len(const coax_value *v)
{
    return v && (v->type == COAX_ARRAY || v->type == COAX_OBJECT) ? v->len : 0;
}

const coax_value *coax_array_get(const coax_value *v, size_t i)
{
    return (v && v->type == COAX_ARRAY && i < v->len) ? &v->u.items[i] : NULL;
}

const char *coax_object_key(const coax_value *v, size_t i, size_t *len)
{
    if (!v || v->type != COAX_OBJECT || i >= v->len) return NULL;
    if (len) *len = v->u.members[i].klen;
    return v->u.members[i].key;
}

const coax_value *coax_object_value(const coax_value *v, size_t i)
{
    return (v && v->type == COAX_OBJECT && i < v->len) ? &v->u.members[i].value
                                                 : NULL;
}

const coax_value *coax_object_get(const coax_value *v, const char *key,
                                  size_t len)
{
    if (!v || v->type != COAX_OBJECT || (len && !key)) return NULL;
    for (size_t i = 0; i < v->len; i++) {
        const coax_member *m = &v->u.members[i];
        if (m->klen == len && memcmp(m->key, key, len) == 0) return &m->value;
    }
    return NULL;
}

/* ---- builders ---------------------------------------------------------- */

coax_value *coax_new_value(coax_arena *arena, coax_type type)
{
    coax_value *v = coax_arena_alloc(arena, sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->type = (uint8_t)type;
    }
    return v;
}

coax_code coax_set_string(coax_arena *arena, coax_value *v, const char *s,
                          size_t len)
{
    if (!coax_utf8_valid(s, len)) return COAX_EUTF8;
    char *copy = coax_arena_strdup(arena, s, len);
    if (!copy) return COAX_ENOMEM;
    v->type = COAX_STRING;
    v->flags = 0;
    v->len = len;
    v->u.text = copy;
    return COAX_OK;
}

size_t coax_number_span(const char *s, size_t n, bool *is_int)
{
    size_t i = 0;
    bool integer = true;
    if (i < n && s[i] == '-') i++;
    if (i >= n) return 0;
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    } else {
        return 0;
    }
    if (i + 1 < n && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
        integer = false;
        i += 2;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-')) j++;
        if (j < n && s[j] >= '0' && s[j] <= '9') {
            while (j < n && s[j] >= '0' && s[j] <= '9') j++;
            i = j;
            integer = false;
        }
    }
    if (is_int) *is_int = integer;
    return i;
}

coax_code coax_set_number(coax_arena *arena, coax_value *v, const char *s,
                          size_t len)
{
    bool is_int;
    if (len == 0 || coax_number_span(s, len, &is_int) != len) return COAX_EINVAL;
    char *copy = coax_arena_strdup(arena, s, len);
    if (!copy) return COAX_ENOMEM;
    v->type = COAX_NUMBER;
    v->flags = is_int ? COAX_VF_INT_TEXT : 0;
    v->len = len;
    v->u.text = copy;
    return COAX_OK;
}

/* ---- exact numeric comparison ------------------------------------------
** A JSON number is sign * 0.DIGITS * 10^point once leading and trailing
** zeros are stripped; two numbers compare exactly on (sign, point, DIGITS),
** whatever their size, so 1 == 1.0 == 10e-1 and big integers stay exact. */

typedef struct decimal {
    bool neg, zero;
    long long point;
    const char *text;   /* the number text, to walk digits from */
    size_t first, last; /* range of significant digits in text (incl.) */
    /* An exponent of more than COAX_EXP_DIGITS digits has no long long:
    ** then 'power' is the point, read by point_cmp. Capped,
    ** 1e10000021342904901 and 1e10000021342904902 were one number and
    ** 1e10000021342904901 and 10e10000021342904900 two, so uniqueItems
    ** passed [1e10000021342904901, 10e10000021342904900]. */
    bool big;
    coax_power power;
} decimal;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static void decimal_of(const char *s, size_t n, decimal *d)
{
    size_t i = 0;
    memset(d, 0, sizeof *d);
    d->text = s;
    if (i < n && s[i] == '-') {
        d->neg = true;
        i++;
    }
    long long intdigits = 0, int_lead_zeros = 0, frac_zeros = 0;
    size_t first = SIZE_MAX, last = 0;
    bool seen_point = false, first_in_frac = false;
    for (; i < n && (is_digit(s[i]) || s[i] == '.'); i++) {
        if (s[i] == '.') {
            seen_point = true;
            continue;
        }
        if (!seen_point) intdigits++;
        if (s[i] != '0') {
            if (first == SIZE_MAX) {
                first = i;
                first_in_frac = seen_point;
            }
            last = i;
        } else if (first == SIZE_MAX) {
            if (seen_point) frac_zeros++;
            else int_lead_zeros++;
        }
    }
    long long exp = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i = coax_power_read(s, i + 1, n, &d->power, &exp);
    }
    if (first == SIZE_MAX) {
        d->zero = true;
        d->neg = false;
        return;
    }
    /* 0.DIGITS * 10^point: the first significant digit is the point-th
    ** digit before the decimal point (or -point zeros after it). */
    d->power.adj = first_in_frac ? -frac_zeros : intdigits - int_lead_zeros;
    d->big = d->power.elen > COAX_EXP_DIGITS;
    d->point = d->power.adj + exp;
    d->first = first;
    d->last = last;
}

static int digits_cmp(const decimal *a, const decimal *b)
{
    size_t i = a->first, j = b->first;
    for (;;) {
        while (i <= a->last && a->text[i] == '.') i++;
        while (j <= b->last && b->text[j] == '.') j++;
        bool ea = i > a->last, eb = j > b->last;
        if (ea || eb) return ea == eb ? 0 : (ea ? -1 : 1);
        if (a->text[i] != b->text[j]) return a->text[i] < b->text[j] ? -1 : 1;
        i++;
        j++;
    }
}

size_t coax_power_read(const char *s, size_t i, size_t n, coax_power *p, long long *value)
{
    long long v = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) p->neg = s[i++] == '-';
    while (i < n && s[i] == '0') i++;
    p->exp = s + i;
    for (; i < n && is_digit(s[i]); i++)
        if (++p->elen <= COAX_EXP_DIGITS) v = v * 10 + (s[i] - '0');
    *value = p->neg ? -v : v;
    return i;
}

long long coax_power_diff(const coax_power *a, const coax_power *b, long long far)
{
    if (a->neg != b->neg) return a->neg ? -far : far;
    size_t len = a->elen > b->elen ? a->elen : b->elen;
    long long diff = 0;
    for (size_t k = 0; k < len && diff < far && diff > -far; k++) {
        int da = k < len - a->elen ? 0 : a->exp[k - (len - a->elen)] - '0';
        int db = k < len - b->elen ? 0 : b->exp[k - (len - b->elen)] - '0';
        diff = diff * 10 + (da - db);
    }
    if (a->neg) diff = -diff;
    if (diff < far && diff > -far) diff += a->adj - b->adj;
    return diff >= far ? far : diff <= -far ? -far : diff;
}

/* The sign of x's point less y's, exactly. */
static int point_cmp(const decimal *x, const decimal *y)
{
    if (!x->big && !y->big) return x->point < y->point ? -1 : x->point > y->point;
    long long diff = coax_power_diff(&x->power, &y->power, 1000000000000000LL);
    return diff < 0 ? -1 : diff > 0;
}

/* The point modulo 2^64: equal points, equal values (a hash's). */
static uint64_t point_bits(const decimal *d)
{
    if (!d->big) return (uint64_t)d->point;
    uint64_t e = 0;
    for (size_t k = 0; k < d->power.elen; k++) e = e * 10 + (uint64_t)(d->power.exp[k] - '0');
    return (uint64_t)d->power.adj + (d->power.neg ? 0 - e : e);
}

/* <0, 0, >0 as the number a is less than, equal to, greater than b. */
int coax_number_compare_text(const char *a, size_t alen, const char *b,
                             size_t blen)
{
    decimal x, y;
    decimal_of(a, alen, &x);
    decimal_of(b, blen, &y);
    if (x.zero && y.zero) return 0;
    int sx = x.zero ? 0 : (x.neg ? -1 : 1), sy = y.zero ? 0 : (y.neg ? -1 : 1);
    if (sx != sy) return sx < sy ? -1 : 1;
    int mag;
    mag = point_cmp(&x, &y);
    if (!mag) mag = digits_cmp(&x, &y);
    return sx < 0 ? -mag : mag;
}

/* ---- equality ----------------------------------------------------------
** Iterative, with one frame per nesting level (depth is input-controlled):
** 32 frames on the C stack, more from the allocator. Members of two objects
** in the same key order pair up by position; otherwise both member lists
** are sorted by key and paired in that order, so equality costs n log n in
** the members whatever their order (a lookup per key was quadratic). */

/* Doubles a stack that starts in 'small' (on the C stack) and moves to
** memory from 'alloc'; false when out of memory (the stack is unchanged). */
static bool stack_grow(const coax_allocator *alloc, void **st, const void *small, size_t *cap,
                       size_t elem)
{
    void *ns = *st == small ? coax_alloc_raw(alloc, 2 * *cap * elem)
                            : coax_realloc_raw(alloc, *st, *cap * elem, 2 * *cap * elem);
    if (!ns) return false;
    if (*st == small) memcpy(ns, small, *cap * elem);
    *st = ns;
    *cap *= 2;
    return true;
}

typedef struct frame {
    const coax_value *x, *y;
    size_t i;
    const coax_member **sx, **sy; /* members sorted by key, or NULL: by position */
} frame;

static bool same_key(const coax_member *a, const coax_member *b)
{
    return a->klen == b->klen && memcmp(a->key, b->key, a->klen) == 0;
}

static int key_order(const void *pa, const void *pb)
{
    const coax_member *a = *(const coax_member *const *)pa, *b = *(const coax_member *const *)pb;
    size_t n = a->klen < b->klen ? a->klen : b->klen;
    int r = memcmp(a->key, b->key, n);
    if (r) return r;
    return a->klen < b->klen ? -1 : a->klen > b->klen;
}

static const coax_member **sorted_members(const coax_value *obj, const coax_allocator *a)
{
    const coax_member **s = coax_alloc_raw(a, obj->len * sizeof *s);
    if (!s) return NULL;
    for (size_t i = 0; i < obj->len; i++) s[i] = &obj->u.members[i];
    qsort(s, obj->len, sizeof *s, key_order);
    return s;
}

static void frame_free(frame *f, const coax_allocator *a)
{
    if (f->sx) coax_free_raw(a, f->sx, f->x->len * sizeof *f->sx);
    if (f->sy) coax_free_raw(a, f->sy, f->y->len * sizeof *f->sy);
    f->sx = f->sy = NULL;
}

/* Prepares the pairing of two objects of equal length: 1 when their keys
** are the same set, 0 when not, -1 when out of memory. */
static int pair_members(frame *f, const coax_allocator *a)
{
    const coax_value *x = f->x, *y = f->y;
    size_t n = x->len, i = 0;
    while (i < n && same_key(&x->u.members[i], &y->u.members[i])) i++;
    if (i == n) return 1;
    f->sx = sorted_members(x, a);
    f->sy = f->sx ? sorted_members(y, a) : NULL;
    if (!f->sy) return -1;
    for (i = 0; i < n; i++)
        if (!same_key(f->sx[i], f->sy[i])) return 0;
    return 1;
}

/* Compares scalars; for containers compares only type and length. */
static bool shallow_equal(const coax_value *x, const coax_value *y)
{
    if (x->type != y->type) return false;
    switch (x->type) {
    case COAX_BOOL:
        return x->u.boolean == y->u.boolean;
    case COAX_NUMBER:
        return coax_number_compare_text(x->u.text, x->len, y->u.text, y->len) == 0;
    case COAX_STRING:
    case COAX_ARRAY:
    case COAX_OBJECT:
        if (x->len != y->len) return false;
        /* one text is itself: no read of it (a coercion compares its value with copies of it) */
        return x->type != COAX_STRING || x->u.text == y->u.text || memcmp(x->u.text, y->u.text, x->len) == 0;
    default:
        return true;
    }
}

int coax_value_equal(const coax_value *a, const coax_value *b,
                     const coax_allocator *alloc)
{
    frame small[32], *st = small;
    size_t n = 0, cap = 32;
    int result = 1;
    if (!a || !b) return a == b; /* two absent values are alike; absent and null are not */
    if (coax_allocator_incomplete(alloc)) return -1;
    if (a == b) return 1;
    if (!shallow_equal(a, b)) return 0;
    const coax_value *cx = a, *cy = b;
    while (result == 1) {
        if (cx && (cx->type == COAX_ARRAY || cx->type == COAX_OBJECT)) {
            if (n == cap && !stack_grow(alloc, (void **)&st, small, &cap, sizeof *st)) {
                result = -1;
                break;
            }
            st[n++] = (frame){cx, cy, 0, NULL, NULL};
            if (cx->type == COAX_OBJECT && (result = pair_members(&st[n - 1], alloc)) != 1) break;
        }
        cx = NULL;
        if (!n) break;
        frame *f = &st[n - 1];
        if (f->i >= f->x->len) {
            frame_free(f, alloc);
            n--;
            continue;
        }
        size_t i = f->i++;
        if (f->x->type == COAX_ARRAY) {
            cx = &f->x->u.items[i];
            cy = &f->y->u.items[i];
        } else if (f->sx) {
            cx = &f->sx[i]->value;
            cy = &f->sy[i]->value;
        } else {
            cx = &f->x->u.members[i].value;
            cy = &f->y->u.members[i].value;
        }
        if (!shallow_equal(cx, cy)) result = 0;
    }
    while (n) frame_free(&st[--n], alloc);
    if (st != small) coax_free_raw(alloc, st, cap * sizeof *st);
    return result;
}

/* ---- structural hash -------------------------------------------------------
** Consistent with coax_value_equal: numbers hash by value (1, 1.0 and
** 10e-1 alike), objects whatever their member order (the members' hashes
** are summed), and every level counts, however deep. Keyed by 'seed', so
** values cannot be made to collide in advance. Iterative, like equality. */

static uint64_t number_hash(const char *t, size_t n, uint64_t seed)
{
    decimal d;
    decimal_of(t, n, &d);
    if (d.zero) return coax_hash_mix(0x5a45524f, seed);
    char chunk[64];
    size_t k = 0;
    uint64_t h = coax_hash_mix(point_bits(&d) ^ ((uint64_t)d.neg << 63), seed);
    for (size_t i = d.first; i <= d.last; i++) {
        if (t[i] == '.') continue;
        chunk[k++] = t[i];
        if (k == sizeof chunk || i == d.last) {
            h = coax_hash_mix(h ^ coax_hash_bytes(chunk, k, seed), seed);
            k = 0;
        }
    }
    if (k) h = coax_hash_mix(h ^ coax_hash_bytes(chunk, k, seed), seed);
    return h;
}

static uint64_t leaf_hash(const coax_value *v, uint64_t seed)
{
    switch (v->type) {
    case COAX_NULL: return coax_hash_mix(1, seed);
    case COAX_BOOL: return coax_hash_mix(v->u.boolean ? 2 : 3, seed);
    case COAX_NUMBER: return number_hash(v->u.text, v->len, seed);
    default: return coax_hash_bytes(v->u.text, v->len, seed ^ 0x5354524e47ull);
    }
}

typedef struct hframe {
    const coax_value *v;
    size_t i;
    uint64_t acc;
} hframe;

int coax_value_hash(const coax_value *v, uint64_t seed, const coax_allocator *alloc,
                    uint64_t *out, size_t *work)
{
    hframe small[32], *st = small;
    size_t n = 0, cap = 32, count = 1;
    uint64_t h = 0;
    const coax_value *next = v;
    for (;;) {
        if (next) {
            if (next->type != COAX_ARRAY && next->type != COAX_OBJECT) {
                h = leaf_hash(next, seed);
                if (next->type == COAX_STRING) count += next->len / 64;
            } else {
                if (n == cap && !stack_grow(alloc, (void **)&st, small, &cap, sizeof *st)) {
                    if (st != small) coax_free_raw(alloc, st, cap * sizeof *st);
                    return -1;
                }
                st[n++] = (hframe){next, 0, 0};
                next = NULL;
                goto descend;
            }
            next = NULL;
        }
        /* 'h' is the hash of a finished value: fold it into its parent */
        if (!n) break;
        {
            hframe *f = &st[n - 1];
            if (f->v->type == COAX_ARRAY) {
                f->acc = coax_hash_mix(f->acc ^ h, seed);
            } else {
                const coax_member *m = &f->v->u.members[f->i - 1];
                f->acc += coax_hash_mix(coax_hash_bytes(m->key, m->klen, seed) ^ (h * 0x9E3779B97F4A7C15ull), seed);
                count += m->klen / 64;
            }
        }
    descend:;
        hframe *f = &st[n - 1];
        if (f->i < f->v->len) {
            next = f->v->type == COAX_ARRAY ? &f->v->u.items[f->i] : &f->v->u.members[f->i].value;
            f->i++;
            count++;
            continue;
        }
        h = coax_hash_mix(f->acc ^ ((uint64_t)f->v->len << 4 | f->v->type), seed);
        n--;
    }
    if (st != small) coax_free_raw(alloc, st, cap * sizeof *st);
    *out = h;
    if (work) *work = count;
    return 0;
}

/* ---- JSON Pointer (RFC 6901) ------------------------------------------- */

/* Compares an escaped pointer token with a key. */
static bool token_equals(const char *t, size_t tlen, const char *key,
                         size_t klen)
{
    size_t i = 0, k = 0;
    while (i < tlen) {
        char c = t[i++];
        if (c == '~') {
            c = t[i++] == '0' ? '~' : '/';
        }
        if (k >= klen || key[k++] != c) return false;
    }
    return k == klen;
}

coax_code coax_pointer_walk(const coax_value *root, const char *p, size_t len, coax_member_lookup lookup,
                            void *ud, char *scratch, const coax_value **out)
{
    if (!root || !out || (!p && len)) return COAX_EINVAL;
    const coax_value *v = root;
    size_t i = 0;
    if (len && p[0] != '/') return COAX_EINVAL;
    while (i < len) {
        size_t start = ++i;
        bool escaped = false;
        while (i < len && p[i] != '/') {
            if (p[i] == '~' && (i + 1 >= len || (p[i + 1] != '0' && p[i + 1] != '1')))
                return COAX_EINVAL;
            escaped |= p[i] == '~';
            i += p[i] == '~' ? 2 : 1;
        }
        const char *t = p + start;
        size_t tlen = i - start;
        if (v->type == COAX_OBJECT) {
            const coax_value *next = NULL;
            if (lookup) {
                const char *key = t;
                size_t klen = tlen;
                if (escaped) {
                    klen = 0;
                    for (size_t k = 0; k < tlen; k++)
                        scratch[klen++] = t[k] != '~' ? t[k] : t[++k] == '0' ? '~' : '/';
                    key = scratch;
                }
                next = lookup(ud, v, key, klen);
            } else {
                for (size_t m = 0; m < v->len && !next; m++)
                    if (token_equals(t, tlen, v->u.members[m].key, v->u.members[m].klen))
                        next = &v->u.members[m].value;
            }
            if (!next) return COAX_ENOTFOUND;
            v = next;
        } else if (v->type == COAX_ARRAY) {
            if (tlen == 0 || (tlen > 1 && t[0] == '0')) return COAX_ENOTFOUND;
            size_t idx = 0;
            for (size_t k = 0; k < tlen; k++) {
                if (!is_digit(t[k]) || idx > (SIZE_MAX - 9) / 10) return COAX_ENOTFOUND;
                idx = idx * 10 + (size_t)(t[k] - '0');
            }
            if (idx >= v->len) return COAX_ENOTFOUND;
            v = &v->u.items[idx];
        } else {
            return COAX_ENOTFOUND;
        }
    }
    *out = v;
    return COAX_OK;
}

coax_code coax_pointer_get(const coax_value *root, const char *p, size_t len,
                           const coax_value **out)
{
    return coax_pointer_walk(root, p, len, NULL, NULL, NULL, out);
}
