/*
** schema_lookup.c: the schema side of coercion: keywords looked up in the
** schema document by an error's keywordLocation, local "$ref"s followed
** (anything else is not guessed at), large schema objects indexed, and the
** defaults the schemas that apply give a property.
*/
#include "extract/coerce.h"
#include "base/hash.h"
#include "base/unicode_nfc.h"
#include "schema/schema.h"

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

uint32_t *coerce_name_index(coax_arena *a, const coax_value *obj, uint64_t seed, size_t *mask)
{
    size_t cap = 32;
    while (cap < (size_t)obj->len * 2) cap *= 2;
    uint32_t *slot = coax_arena_alloc(a, cap * sizeof *slot);
    if (!slot) return NULL;
    memset(slot, 0, cap * sizeof *slot);
    for (uint32_t i = 0; i < obj->len; i++) {
        const coax_member *m = &obj->u.members[i];
        size_t at = (size_t)coax_hash_bytes(m->key, m->klen, seed) & (cap - 1);
        while (slot[at]) at = (at + 1) & (cap - 1);
        slot[at] = i + 1;
    }
    *mask = cap - 1;
    return slot;
}

/* The member of the schema object 'obj' (or a reply's) named key[0..n): a
** scan for a small object, else through one of the latest indexes (built
** on first use, in the arena). */
typedef struct doc_index {
    uint32_t *slot; /* member index + 1, 0: empty */
    size_t mask;
} doc_index;

static const coax_value *doc_member(coerce_ctx *c, const coax_value *obj, const char *key, size_t n)
{
    if (obj->len <= 16) return coax_object_get(obj, key, n);
    doc_index *x = smap_getp(&c->docidx, obj->u.members);
    if (!x) {
        size_t mask;
        uint32_t *slot = coerce_name_index(c->arena, obj, coerce_seed(c), &mask);
        if (!slot || !(x = coax_arena_alloc(c->arena, sizeof *x))) return coax_object_get(obj, key, n);
        *x = (doc_index){slot, mask};
        if (!smap_putp(&c->docidx, c->arena, obj->u.members, x)) return coax_object_get(obj, key, n);
    }
    for (size_t at = (size_t)coax_hash_bytes(key, n, c->docidx_seed) & x->mask; x->slot[at]; at = (at + 1) & x->mask) {
        const coax_member *m = &obj->u.members[x->slot[at] - 1];
        if (m->klen == n && !memcmp(m->key, key, n)) return &m->value;
    }
    return NULL;
}

const coax_value *coerce_indexed_member(void *c, const coax_value *obj, const char *key, size_t n)
{
    return doc_member(c, obj, key, n);
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

typedef struct resolved {
    const coax_value *doc, *target;
} resolved;

const coax_value *coerce_local_ref(coerce_ctx *c, const coax_value *doc, const coax_value *ref)
{
    if (!ref || ref->type != COAX_STRING || ref->len == 0 || ref->u.text[0] != '#') return NULL;
    if (memchr(ref->u.text, '%', ref->len)) return NULL;
    if (c) {
        resolved *r = smap_getp(&c->refs, ref);
        if (r && r->doc == doc) return r->target;
        const coax_value *target = doc_pointer(c, doc, ref->u.text + 1, ref->len - 1);
        if (!r && (r = coax_arena_alloc(c->arena, sizeof *r)) && !smap_putp(&c->refs, c->arena, ref, r)) r = NULL;
        if (r) *r = (resolved){doc, target}; /* the latest resource it was read against */
        return target;
    }
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

/* Reads the JSON Pointer token after the '/' at *p into tok[0..cap),
** unescaped, and moves *p to its end. False when it is longer. */
static bool read_token(const char **p, char *tok, size_t cap, size_t *len)
{
    const char *s = ++*p, *e = s;
    while (*e && *e != '/') e++;
    size_t n = 0;
    for (const char *q = s; q < e; q++) {
        char ch = *q;
        if (ch == '~' && q + 1 < e) ch = *++q == '1' ? '/' : '~';
        if (n + 1 >= cap) return false;
        tok[n++] = ch;
    }
    tok[n] = '\0';
    *len = n;
    *p = e;
    return true;
}

bool coerce_keyword_at(coerce_ctx *c, const coax_value *doc, const char *loc, const coax_value **parent,
                              char *kw, size_t kwcap, const coax_value **value)
{
    const coax_value *cur = doc, *holder = NULL;
    const char *p = loc;
    /* a property's name on the way may be longer than the keyword asked
    ** for ("shipping_address" before "anyOf"): each token is read whole */
    size_t ll = strlen(loc), n = 0;
    char small[256], *tok = ll < sizeof small ? small : c ? coax_arena_alloc(c->arena, ll + 1) : NULL;
    if (*p == '\0' || !tok) return false;
    while (*p == '/') {
        if (!read_token(&p, tok, ll + 1, &n)) return false;
        if (!strcmp(tok, "$ref")) {
            cur = coerce_local_ref(c, doc, cur->type == COAX_OBJECT ? doc_member(c, cur, "$ref", 4) : NULL);
            if (!cur) return false;
            continue;
        }
        if (!strcmp(tok, "$dynamicRef") || !strcmp(tok, "$recursiveRef")) return false;
        holder = cur;
        /* Inside an embedded resource "#/..." refers to that resource, not
        ** to the document: do not look keywords up there. */
        if (cur != doc && cur->type == COAX_OBJECT && doc_member(c, cur, "$id", 3)) return false;
        if (cur->type == COAX_OBJECT) {
            cur = doc_member(c, cur, tok, n);
        } else if (cur->type == COAX_ARRAY) {
            char *end;
            unsigned long i = strtoul(tok, &end, 10);
            cur = *end ? NULL : coax_array_get(cur, i);
        } else {
            cur = NULL;
        }
        if (!cur) return false;
    }
    if (n + 1 > kwcap) return false; /* no keyword's name */
    memcpy(kw, tok, n + 1);
    *parent = holder;
    *value = cur;
    return holder != NULL;
}

/* The types a schema without "type" bounds by its keywords: numbers for
** "maximum", strings for "maxLength", ... ({"maximum": 100} takes 150 as
** its number, failing it). */
static unsigned types_bounded(const coax_value *s)
{
    static const struct {
        const char *kw;
        unsigned bits;
    } bounds[] = {
        {"minimum", 1u << 7 | 1u << COAX_NUMBER}, {"maximum", 1u << 7 | 1u << COAX_NUMBER},
        {"exclusiveMinimum", 1u << 7 | 1u << COAX_NUMBER}, {"exclusiveMaximum", 1u << 7 | 1u << COAX_NUMBER},
        {"multipleOf", 1u << 7 | 1u << COAX_NUMBER}, {"minLength", 1u << COAX_STRING},
        {"maxLength", 1u << COAX_STRING}, {"pattern", 1u << COAX_STRING}, {"items", 1u << COAX_ARRAY},
        {"prefixItems", 1u << COAX_ARRAY}, {"minItems", 1u << COAX_ARRAY}, {"maxItems", 1u << COAX_ARRAY},
        {"uniqueItems", 1u << COAX_ARRAY}, {"contains", 1u << COAX_ARRAY}, {"properties", 1u << COAX_OBJECT},
        {"required", 1u << COAX_OBJECT}, {"minProperties", 1u << COAX_OBJECT},
        {"maxProperties", 1u << COAX_OBJECT}, {"additionalProperties", 1u << COAX_OBJECT},
        {"patternProperties", 1u << COAX_OBJECT}, {"propertyNames", 1u << COAX_OBJECT},
        {"dependentRequired", 1u << COAX_OBJECT},
    };
    unsigned bits = 0;
    for (size_t i = 0; i < sizeof bounds / sizeof *bounds; i++)
        if (coerce_member(s, bounds[i].kw)) bits |= bounds[i].bits;
    return bits;
}

/* How coerce_unions steps over a keyword path segment. */
enum segment_kind {
    SEG_OTHER,
    SEG_UNION,      /* anyOf, oneOf: a branch index follows */
    SEG_NAMED_STEP, /* a name follows, and the instance steps in: properties/x */
    SEG_NAMED,      /* a name follows, the instance stays: $defs/x, allOf/0 */
    SEG_STEP,       /* the instance steps in: additionalProperties, contains */
    SEG_ITEMS,      /* a step, an index following it or not (items/0 before 2020-12) */
};

static enum segment_kind segment_kind(const char *s, size_t n)
{
    static const struct {
        const char *name;
        size_t len;
        enum segment_kind kind;
    } kinds[] = {
#define SEG(name, kind) {name, sizeof name - 1, kind}
        SEG("anyOf", SEG_UNION),
        SEG("oneOf", SEG_UNION),
        SEG("properties", SEG_NAMED_STEP),
        SEG("patternProperties", SEG_NAMED_STEP),
        SEG("prefixItems", SEG_NAMED_STEP),
        SEG("$defs", SEG_NAMED),
        SEG("definitions", SEG_NAMED),
        SEG("dependentSchemas", SEG_NAMED),
        SEG("dependencies", SEG_NAMED),
        SEG("allOf", SEG_NAMED),
        SEG("items", SEG_ITEMS),
        SEG("additionalItems", SEG_STEP),
        SEG("additionalProperties", SEG_STEP),
        SEG("unevaluatedItems", SEG_STEP),
        SEG("unevaluatedProperties", SEG_STEP),
        SEG("contains", SEG_STEP),
        SEG("propertyNames", SEG_STEP),
#undef SEG
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (kinds[k].len == n && !memcmp(kinds[k].name, s, n)) return kinds[k].kind;
    return SEG_OTHER;
}

/* The end of the segment at s: the next '/', or 'stop' (s <= stop). */
static const char *segment_end(const char *s, const char *stop)
{
    const char *e = s < stop ? memchr(s, '/', (size_t)(stop - s)) : NULL;
    return e ? e : stop;
}

static bool all_digits(const char *s, const char *e)
{
    for (; s < e; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

/* One pass over kw: each segment is found once and classified once (a
** scan per segment for every keyword name was most of an extraction's
** time on deep schemas, where each error's keyword path is kilobytes and
** is read here several times). */
size_t coerce_unions(const char *kw, size_t end[COERCE_UNION_LEVELS], size_t steps[COERCE_UNION_LEVELS])
{
    const char *stop = kw + strlen(kw);
    size_t n = 0, taken = 0;
    for (const char *p = kw; p < stop && *p == '/';) {
        const char *s = p + 1, *e = segment_end(s, stop);
        const char *next = e < stop ? e + 1 : e, *after = segment_end(next, stop);
        bool index = after > next && all_digits(next, after);
        p = e;
        switch (segment_kind(s, (size_t)(e - s))) {
        case SEG_UNION:
            if (!index) break;
            if (n >= COERCE_UNION_LEVELS) {
                memmove(end, end + 1, (COERCE_UNION_LEVELS - 1) * sizeof *end);
                memmove(steps, steps + 1, (COERCE_UNION_LEVELS - 1) * sizeof *steps);
            }
            end[n < COERCE_UNION_LEVELS ? n : COERCE_UNION_LEVELS - 1] = (size_t)(after - kw);
            steps[n < COERCE_UNION_LEVELS ? n : COERCE_UNION_LEVELS - 1] = taken;
            n++;
            p = after;
            break;
        case SEG_NAMED_STEP: taken++, p = after; break;
        case SEG_NAMED: p = after; break;
        case SEG_STEP: taken++; break;
        case SEG_ITEMS: taken++, p = index ? after : p; break;
        case SEG_OTHER: break;
        }
    }
    return n;
}

bool coerce_rejects_name(const char *kw)
{
    static const char *const presence[] = {"/additionalProperties", "/unevaluatedProperties", "/unevaluatedItems",
                                           "/items", "/additionalItems"};
    const char *last = strrchr(kw, '/');
    for (size_t i = 0; last && i < sizeof presence / sizeof *presence; i++)
        if (!strcmp(last, presence[i])) return true;
    return strstr(kw, "/propertyNames/") != NULL;
}

void coerce_error_read(coerce_error *ce, const coax_schema_error *e)
{
    const char *kw = e->keyword_location, *at = e->instance_location;
    size_t end[COERCE_UNION_LEVELS], steps[COERCE_UNION_LEVELS], n = 0;
    *ce = (coerce_error){e, strlen(at), strlen(kw), {0, 0, 0}, 0};
    ce->ul = ce->ll;
    /* Most errors are under no union: one scan tells (every error of a
    ** large extraction passes here). */
    if (strstr(kw, "/anyOf/") || strstr(kw, "/oneOf/")) n = coerce_unions(kw, end, steps);
    if (!n) return;
    size_t pl = end[n < COERCE_UNION_LEVELS ? n - 1 : COERCE_UNION_LEVELS - 1];
    while (pl && kw[pl - 1] >= '0' && kw[pl - 1] <= '9') pl--;
    ce->u = (coerce_union_at){pl, pl + strspn(kw + pl, "0123456789"), (size_t)strtol(kw + pl, NULL, 10) + 1};
    if (n > COERCE_UNION_LEVELS) return;
    const char *p = at, *stop = at + ce->ll; /* ul: up to the '/' past the place's tokens */
    for (size_t k = 0; (p = memchr(p, '/', (size_t)(stop - p))) != NULL; p++, k++)
        if (k == steps[n - 1]) {
            ce->ul = (size_t)(p - at);
            break;
        }
}

bool coerce_union_claims(coerce_ctx *c, const coax_value *x, const coax_value *to, const coerce_error *ce)
{
    const char *loc = ce->e->keyword_location;
    unsigned bit = x->type == COAX_NUMBER ? 1u << 7 | 1u << COAX_NUMBER : coerce_type_bit(x);
    if (to && to->type == x->type) return false; /* a case or spaces fixed: no other meaning */
    size_t pl = ce->u.pl;
    if (!pl) return false;
    char *end;
    long branch = strtol(loc + pl, &end, 10);
    if (end == loc + pl) return false;
    while (!strncmp(end, "/$ref", 5) && (end[5] == '/' || !end[5])) end += 5;
    /* the branch's own keyword, not a member's or an item's */
    if (strcmp(end, "/type") && strcmp(end, "/enum") && strcmp(end, "/const")) return false;
    char *at = coax_arena_strdup(c->arena, loc, pl - 1);
    const coax_value *parent, *branches;
    char kw[16];
    if (!at || !coerce_keyword_at(c, c->doc, at, &parent, kw, sizeof kw, &branches) || branches->type != COAX_ARRAY)
        return false;
    for (size_t i = 0; i < branches->len; i++) {
        const coax_value *b = coerce_deref(c, c->doc, &branches->u.items[i]);
        if ((long)i == branch || !b || b->type != COAX_OBJECT || coerce_member(b, "enum") || coerce_member(b, "const"))
            continue;
        const coax_value *t = coerce_member(b, "type");
        unsigned taken = t ? coerce_types_taken(t) : types_bounded(b);
        if (taken != ~0u && (taken & bit)) return true;
    }
    return false;
}

/* Schemas and strings of a union's branches coerce_union_joined reads, at
** most: past them a loose match under that union is not made. */
#define UNION_JOINED_WORK 4096

/* Whether schema s (through "$ref", "anyOf", "oneOf" and "allOf", 8 deep)
** lists a string other than 'hit' whose joined form is 'norm'; true past
** '*work' schemas and strings, or 8 levels (a guess not ruled out). */
static bool lists_joined(coerce_ctx *c, const coax_value *s, const char *norm, const coax_value *hit, int depth,
                         size_t *work)
{
    if (depth > 8 || !*work) return true;
    --*work; /* each schema looked into counts: {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]} is no 2^8 */
    s = coerce_deref(c, c->doc, s);
    if (!s || s->type != COAX_OBJECT) return false;
    const coax_value *k = coerce_member(s, "const"), *en = coerce_member(s, "enum");
    size_t n = en && en->type == COAX_ARRAY ? en->len : 0;
    for (size_t j = 0; j <= n; j++) {
        const coax_value *y = j < n ? &en->u.items[j] : k;
        if (!y || y->type != COAX_STRING || (y->len == hit->len && !memcmp(y->u.text, hit->u.text, y->len))) continue;
        if (!*work || (--*work, coerce_joined_equal(c->arena, norm, y->u.text, y->len))) return true;
    }
    static const char *const subs[] = {"anyOf", "oneOf", "allOf"};
    for (size_t u = 0; u < 3; u++) {
        const coax_value *b = coerce_member(s, subs[u]);
        for (size_t i = 0; b && b->type == COAX_ARRAY && i < b->len; i++)
            if (lists_joined(c, &b->u.items[i], norm, hit, depth + 1, work)) return true;
    }
    return false;
}

bool coerce_union_joined(coerce_ctx *c, const coax_value *x, const coax_value *hit, const coerce_error *ce)
{
    const char *loc = ce->e->keyword_location;
    size_t pl = ce->u.pl;
    if (!pl || coerce_same_trimmed(x->u.text, x->len, hit->u.text, hit->len)) return false;
    char *end;
    strtol(loc + pl, &end, 10);
    if (end == loc + pl) return false;
    while (!strncmp(end, "/$ref", 5) && (end[5] == '/' || !end[5])) end += 5;
    if (strcmp(end, "/enum") && strcmp(end, "/const")) return false; /* a member's or an item's: not this union's */
    const char *norm = coerce_joined(c->arena, x->u.text, x->len);
    size_t ends[COERCE_UNION_LEVELS], steps[COERCE_UNION_LEVELS], n = coerce_unions(loc, ends, steps), work = UNION_JOINED_WORK;
    if (!norm || !n || n > COERCE_UNION_LEVELS) return true;
    /* every union at the value's own place, the innermost first: an outer
    ** one's other branch lists values for it too */
    for (size_t k = n; k-- > 0 && steps[k] == steps[n - 1];) {
        size_t l = ends[k];
        while (l && loc[l - 1] >= '0' && loc[l - 1] <= '9') l--;
        char *at = coax_arena_strdup(c->arena, loc, l - 1), kw[16];
        const coax_value *parent, *branches;
        if (!at) return true;
        if (!coerce_keyword_at(c, c->doc, at, &parent, kw, sizeof kw, &branches) || branches->type != COAX_ARRAY)
            return false;
        for (size_t i = 0; i < branches->len; i++)
            if (lists_joined(c, &branches->u.items[i], norm, hit, 0, &work)) return true;
    }
    return false;
}

bool coerce_tuple_swapped(coerce_ctx *c, const coax_value *x, const coax_value *up, const char *loc)
{
    /* the slots are prefixItems, or items as an array (drafts 4 to 2019-09,
    ** whose locations read .../items/i/type): the last of either */
    static const char *const slots_of[] = {"/prefixItems/", "/items/"};
    const char *p = NULL;
    size_t slot_len = 0;
    for (size_t k = 0; k < 2; k++)
        for (const char *q = strstr(loc, slots_of[k]); q; q = strstr(q + 1, slots_of[k]))
            if (q > p) p = q, slot_len = strlen(slots_of[k]);
    if (!p || !up || up->type != COAX_ARRAY) return false;
    char *end;
    unsigned long i = strtoul(p + slot_len, &end, 10);
    if (end == p + slot_len || strcmp(end, "/type") || i >= up->len) return false;
    char *at = coax_arena_strdup(c->arena, loc, (size_t)(p - loc) + slot_len - 1);
    const coax_value *parent, *slots;
    char kw[16];
    if (!at || !coerce_keyword_at(c, c->doc, at, &parent, kw, sizeof kw, &slots) || slots->type != COAX_ARRAY ||
        i >= slots->len)
        return false;
    const coax_value *ti = coerce_member(coerce_deref(c, c->doc, &slots->u.items[i]), "type");
    unsigned takes_i = ti ? coerce_types_taken(ti) : ~0u;
    for (size_t k = 0; k < slots->len && k < up->len; k++) {
        const coax_value *tk = coerce_member(coerce_deref(c, c->doc, &slots->u.items[k]), "type");
        unsigned takes_k = tk ? coerce_types_taken(tk) : ~0u;
        const coax_value *y = &up->u.items[k];
        if (k != i && takes_k != ~0u && takes_i != ~0u && (takes_k & coerce_type_bit(x)) &&
            (takes_i & coerce_type_bit(y)) && !(takes_k & coerce_type_bit(y)))
            return true;
    }
    return false;
}

/* How a keyword holds subschemas: one ('S'), an array of them ('A') or an
** object of them ('O'), and whether they apply to a member or item of the
** instance rather than to the instance itself. */
static const struct applicator {
    const char *name;
    char holds;
    bool consumes;
} applicators[] = {
    {"properties", 'O', true},         {"patternProperties", 'O', true}, {"additionalProperties", 'S', true},
    {"unevaluatedProperties", 'S', true}, {"propertyNames", 'S', true}, {"items", 'S', true},
    {"prefixItems", 'A', true},        {"additionalItems", 'S', true},   {"unevaluatedItems", 'S', true},
    {"contains", 'S', true},           {"allOf", 'A', false},            {"anyOf", 'A', false},
    {"oneOf", 'A', false},             {"not", 'S', false},              {"if", 'S', false},
    {"then", 'S', false},              {"else", 'S', false},             {"dependentSchemas", 'O', false},
    {"dependencies", 'O', false},
};

size_t coerce_entry_path(coerce_ctx *c, const char *loc, const coax_value **path, size_t cap)
{
    const coax_value *doc = c->doc, *cur = doc;
    char tok[128];
    size_t n = 0;
    path[n++] = doc;
    for (const char *p = loc; *p == '/';) {
        size_t tn;
        if (!read_token(&p, tok, sizeof tok, &tn)) return 0;
        if (!*p) return n; /* the last token is the failing keyword */
        if (cur->type != COAX_OBJECT || (cur != doc && doc_member(c, cur, "$id", 3))) return 0;
        if (!strcmp(tok, "$ref")) {
            cur = coerce_local_ref(c, doc, doc_member(c, cur, "$ref", 4));
        } else {
            const struct applicator *k = NULL;
            for (size_t i = 0; i < sizeof applicators / sizeof *applicators && !k; i++)
                if (!strcmp(applicators[i].name, tok)) k = &applicators[i];
            if (!k || !(cur = doc_member(c, cur, tok, tn))) return 0;
            if (cur->type == COAX_ARRAY || (k->holds == 'O' && cur->type == COAX_OBJECT)) { /* the index or name */
                if (*p != '/' || !read_token(&p, tok, sizeof tok, &tn) || !*p) return 0;
                char *end;
                unsigned long i = strtoul(tok, &end, 10);
                cur = cur->type == COAX_ARRAY ? (*end || !tn ? NULL : coax_array_get(cur, i)) : doc_member(c, cur, tok, tn);
            }
            if (k->consumes) n = 0; /* another instance: its schemas start here */
        }
        if (!cur || n == cap) return 0;
        path[n++] = cur;
    }
    return 0;
}

/* ---- defaults ------------------------------------------------------------ */

/* The defaults the schemas of a property give: one, or unsure (two that
** differ, or a schema a reference leads to that is not read). Those of
** subschemas that apply only to some instances (anyOf, oneOf, then, else,
** dependentSchemas) are apart: 'cond'. */
typedef struct defaults {
    const coax_value *one, *cond;
    bool unsure, declared; /* declared: a "properties" holds the name */
    bool mentions, mentioned; /* mentioned: another keyword names it (with 'mentions', looked for) */
    unsigned visits; /* schemas looked into: past DEFAULT_VISITS, unsure (a bound on time) */
    const coax_value **path; /* the schemas the failing keyword's path went through: they apply */
    size_t npath;
    const char *joined; /* with it (joined_key, jlen long): a declared name but 'to' of that form, looked for */
    size_t jlen;
    bool twice;
} defaults;

#define DEFAULT_VISITS 64

static void collect_default(coerce_ctx *c, const coax_value *root, const coax_value *s, const coax_value *name,
                            bool cond, int depth, defaults *d);

/* s[0..n) joined (coerce_joined), case folded after NFC: one key for the
** names coerce_joined_equal calls equal; NULL out of memory. */
static const char *joined_key(coax_arena *a, const char *s, size_t n, size_t *len)
{
    char *j = coerce_joined(a, s, n);
    size_t jl = j ? strlen(j) : 0, nl, w = 0;
    bool ascii = true;
    for (size_t i = 0; i < jl; i++) ascii = ascii && !((unsigned char)j[i] & 0x80);
    if (!j || ascii || !coax_utf8_valid(j, jl)) return *len = jl, j;
    const char *t = coax_nfc(a, j, jl, &nl);
    char *out = t ? coax_arena_alloc(a, nl * 4 + 1) : NULL;
    for (size_t i = 0, k; out && i < nl; i += k) {
        uint32_t cp = 0;
        if (!(k = coax_utf8_decode((const unsigned char *)t + i, nl - i, &cp))) break;
        w += coax_utf8_encode(coax_fold_case(cp), out + w);
    }
    if (out) out[w] = '\0';
    return *len = w, out;
}

/* Per "properties" object, how many of its names have each joined key,
** counted once (c->built, keyed one byte into the object): n renames
** against n names stay linear. NULL out of memory. */
static const smap *joined_counts(coerce_ctx *c, const coax_value *props)
{
    const void *key = (const char *)props + 1;
    smap *m = smap_getp(&c->built, key);
    if (m) return m;
    if (!(m = coax_arena_alloc(c->arena, sizeof *m))) return NULL;
    *m = (smap){0};
    for (size_t i = 0; i < props->len; i++) {
        size_t kl;
        const char *k = joined_key(c->arena, props->u.members[i].key, props->u.members[i].klen, &kl);
        if (!k || !smap_put(m, c->arena, k, kl, (void *)((uintptr_t)smap_get(m, k, kl) + 1))) return NULL;
    }
    return smap_putp(&c->built, c->arena, key, m) ? m : NULL;
}

/* The names the value of "required", "dependentRequired",
** "dependentSchemas" or "dependencies" 'v' lists (its strings, its keys and
** the strings of its arrays), as a set built once per value (c->built): a
** lookup per member renamed would otherwise scan the list each time. NULL
** when out of memory. */
static const smap *listed_names(coerce_ctx *c, const coax_value *v)
{
    smap *set = smap_getp(&c->built, v);
    if (set) return set;
    if (!(set = coax_arena_alloc(c->arena, sizeof *set))) return NULL;
    memset(set, 0, sizeof *set);
    for (size_t i = 0; i < v->len; i++) {
        const coax_value *x = v->type == COAX_ARRAY ? &v->u.items[i] : &v->u.members[i].value;
        if (v->type == COAX_OBJECT && !smap_put(set, c->arena, v->u.members[i].key, v->u.members[i].klen, set))
            return NULL;
        for (size_t j = 0, nx = x->type == COAX_ARRAY ? x->len : 1; j < nx; j++) {
            const coax_value *y = x->type == COAX_ARRAY ? &x->u.items[j] : x;
            if (y->type == COAX_STRING && !smap_put(set, c->arena, y->u.text, y->len, set)) return NULL;
        }
    }
    return smap_putp(&c->built, c->arena, v, set) ? set : NULL;
}

/* Whether a keyword of schema 's' other than "properties" names the
** property 'name': "required", a key or a listed name of "dependentRequired",
** "dependentSchemas" or "dependencies", or a pattern of "patternProperties"
** that matches it (true when that is not known). */
static bool names_property(coerce_ctx *c, const coax_value *s, const coax_value *name)
{
    static const char *const lists[] = {"required", "dependentRequired", "dependentSchemas", "dependencies"};
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) {
        const coax_value *v = coerce_member(s, lists[k]);
        if (!v || (v->type != COAX_ARRAY && v->type != COAX_OBJECT) || !v->len) continue;
        const smap *set = listed_names(c, v);
        if (!set || smap_get(set, name->u.text, name->len)) return true;
    }
    const coax_value *pp = coerce_member(s, "patternProperties");
    return pp && pp->type == COAX_OBJECT && pp->len &&
           (!c->schema || coax_schema_pattern_names(c->schema, pp, name->u.text, name->len, &c->names_regex) != 0);
}

static bool on_path(const defaults *d, const coax_value *s)
{
    for (size_t k = 0; k < d->npath; k++)
        if (d->path[k] == s) return true;
    return false;
}

/* Applies collect_default to the schema 'v' ('one') or to every schema of
** the array or object 'v'; with 'some', each applies only to some
** instances, unless the failing keyword's path went through it. With
** 'rivals' (a union's branches), a branch on the path is the only one
** looked into: the others' defaults are the union's other readings, which
** coerce.c weighs (mark_unions). */
static void collect_each(coerce_ctx *c, const coax_value *root, const coax_value *v, bool one, const coax_value *name,
                         bool cond, bool some, bool rivals, int depth, defaults *d)
{
    size_t n = !v ? 0 : one ? 1 : v->type == COAX_ARRAY || v->type == COAX_OBJECT ? v->len : 0;
    const coax_value *taken = NULL;
    /* the path's schemas are looked for among the branches, not each
    ** branch on the path: a union of n branches costs the path's length */
    uintptr_t first = (uintptr_t)(rivals && n ? v->u.items : NULL), end = first + (rivals ? n : 0) * sizeof *v->u.items;
    for (size_t k = 0; k < d->npath; k++) { /* the first branch the path went through */
        uintptr_t p = (uintptr_t)d->path[k];
        if (p >= first && p < end && (!taken || p < (uintptr_t)taken)) taken = d->path[k];
    }
    for (size_t i = 0; i < n && !d->unsure; i++) { /* past DEFAULT_VISITS the rest is not looked into */
        const coax_value *x = one ? v : v->type == COAX_ARRAY ? &v->u.items[i] : &v->u.members[i].value;
        if (taken && x != taken && !d->joined) continue; /* a rival's name written another way is a reading too */
        collect_default(c, root, x, name, cond || (some && !on_path(d, x)), depth, d);
    }
}

/* Collects the defaults schema 's' of the resource 'root' gives, as a
** validator applies it: 'name' NULL, its own, its "allOf" branches' and its
** "$ref" target's; else those it gives its property 'name' through
** "properties", its applicators and its "$ref". A reference is read against
** the resource it is written in (an "$id" starts one: {"$id": "inner",
** "$ref": "#/$defs/a"} is inner's a, not the document's). Before 2019-09
** the keywords beside "$ref" are ignored, so the target's default is the
** only one; from 2019-09 on a default beside "$ref" applies too ({"$ref":
** "#/$defs/s", "default": "open"} where s says "new": which one the reply
** would have meant is a guess). 'cond': under a subschema that applies
** only to some instances. */
static void collect_default(coerce_ctx *c, const coax_value *root, const coax_value *s, const coax_value *name,
                            bool cond, int depth, defaults *d)
{
    if (d->unsure) return;
    if (!s || depth > 16 || ++d->visits > DEFAULT_VISITS) {
        d->unsure = true;
        return;
    }
    if (s->type != COAX_OBJECT) return;
    const coax_value *ref = coerce_member(s, "$ref");
    bool siblings = !ref || c->draft >= COAX_DRAFT_2019_09 || c->draft == COAX_DRAFT_AUTO;
    const coax_value *id = coerce_member(s, c->draft == COAX_DRAFT_4 ? "id" : "$id");
    if (siblings && s != c->doc && id && id->type == COAX_STRING && id->len && id->u.text[0] != '#')
        root = s; /* "#name" before 2019-09 names the schema, starts no resource */
    if (siblings && !name) {
        const coax_value *def = coerce_member(s, "default");
        const coax_value **one = cond ? &d->cond : &d->one;
        if (def && !*one) *one = def;
        else if (def && (!coerce_default_charge(c, def) ||
                         coax_value_equal(*one, def, coax_arena_allocator(c->arena)) != 1))
            d->unsure = true;
    } else if (siblings) {
        const coax_value *props = coerce_member(s, "properties");
        const coax_value *p = props && props->type == COAX_OBJECT ? doc_member(c, props, name->u.text, name->len) : NULL;
        d->declared = d->declared || p;
        if (d->mentions && !d->mentioned) d->mentioned = names_property(c, s, name);
        if (d->joined && !d->twice && props && props->type == COAX_OBJECT && props->len) {
            const smap *jc = joined_counts(c, props);
            size_t k = jc ? (size_t)(uintptr_t)smap_get(jc, d->joined, d->jlen) : 2;
            d->twice = k > (p != NULL); /* 'to' itself is one of that form */
        }
        if (p) collect_default(c, root, p, NULL, cond, depth + 1, d);
        /* "dependencies" is dependentSchemas before 2019-09 (its lists of
        ** names are no schemas: collect_default passes them by) */
        static const char *const some[] = {"anyOf", "oneOf", "dependentSchemas", "dependencies", "then", "else"};
        const coax_value *then = coerce_member(s, "then"), *otherwise = coerce_member(s, "else");
        bool then_taken = then && on_path(d, then), else_taken = otherwise && on_path(d, otherwise);
        for (size_t k = 0; k < sizeof some / sizeof *some; k++) {
            if ((k == 4 && else_taken) || (k == 5 && then_taken)) continue; /* the if's other outcome */
            const coax_value *v = coerce_member(s, some[k]);
            collect_each(c, root, v, k >= 4, name, cond, true, k < 2 && v && v->type == COAX_ARRAY, depth + 1, d);
        }
        for (size_t k = 0; d->mentions && k < 2; k++) /* conditions name properties too; they fill none */
            collect_each(c, root, coerce_member(s, k ? "not" : "if"), true, name, true, true, false, depth + 1, d);
    }
    if (siblings) collect_each(c, root, coerce_member(s, "allOf"), false, name, cond, false, false, depth + 1, d);
    if (ref) collect_default(c, root, coerce_local_ref(c, root, ref), name, cond, depth + 1, d);
}

bool coerce_push_children(coax_arena *a, const coax_value ***stack, size_t *n, size_t *cap, const coax_value *v)
{
    if (*n + v->len > *cap) {
        size_t grown = *cap;
        while (*n + v->len > grown) grown *= 2;
        const coax_value **s = coax_arena_alloc(a, grown * sizeof *s);
        if (!s) return false;
        memcpy(s, *stack, *n * sizeof *s);
        *stack = s;
        *cap = grown;
    }
    for (size_t i = 0; i < v->len; i++)
        (*stack)[(*n)++] = v->type == COAX_OBJECT ? &v->u.members[i].value : &v->u.items[i];
    return true;
}

bool coerce_default_charge(coerce_ctx *c, const coax_value *v)
{
    size_t left = COERCE_DEFAULT_VALUES - c->default_values, count = 0, cap = 32, n = 0;
    const coax_value *small[32], **stack = small;
    stack[n++] = v;
    while (n && count < left) { /* an explicit stack: a default's depth is the schema's */
        const coax_value *x = stack[--n];
        count++;
        if ((x->type == COAX_ARRAY || x->type == COAX_OBJECT) && !coerce_push_children(c->arena, &stack, &n, &cap, x))
            return false;
    }
    if (n || count > left) {
        c->default_values = COERCE_DEFAULT_VALUES; /* spent: nothing larger is compared or filled after */
        return false;
    }
    c->default_values += count;
    return true;
}

const coax_value *coerce_property_default(coerce_ctx *c, const coax_value **path, size_t n, const coax_value *name)
{
    defaults d = {NULL, NULL, false, false, false, false, 0, path, n, NULL, 0, false};
    if (!n) return NULL;
    collect_default(c, c->doc, path[0], name, false, 0, &d);
    if (d.unsure || (d.cond && (!d.one || !coerce_default_charge(c, d.cond) ||
                                coax_value_equal(d.one, d.cond, coax_arena_allocator(c->arena)) != 1)))
        return NULL;
    return d.one;
}

/* Walks the schemas that apply to an object from 'path' (n of them) for
** its property named key[0..klen), as 'd' asks; false with no path. */
static bool walk_for_name(coerce_ctx *c, const coax_value **path, size_t n, const char *key, size_t klen, defaults *d)
{
    coax_value name;
    memset(&name, 0, sizeof name);
    name.type = COAX_STRING;
    name.u.text = key;
    name.len = (uint32_t)klen;
    if (n) collect_default(c, c->doc, path[0], &name, false, 0, d);
    return n != 0;
}

bool coerce_names_anywhere(coerce_ctx *c, const coax_value **path, size_t n, const char *key, size_t klen)
{
    defaults d = {NULL, NULL, false, false, true, false, 0, path, n, NULL, 0, false};
    return !walk_for_name(c, path, n, key, klen, &d) || d.declared || d.mentioned || d.unsure;
}

bool coerce_joined_elsewhere(coerce_ctx *c, const coax_value **path, size_t n, const char *key, size_t klen,
                             const char *to, size_t tolen)
{
    defaults d = {NULL, NULL, false, false, false, false, 0, path, n, NULL, 0, false};
    if (coerce_same_trimmed(key, klen, to, tolen)) return false; /* spaces alone: no other name meant */
    d.joined = joined_key(c->arena, key, klen, &d.jlen);
    return !d.joined || !walk_for_name(c, path, n, to, tolen, &d) || d.twice || d.unsure;
}

/* ---- what one coercion keeps ------------------------------------------ */

/* The trials built for the object 'x' under the keyword 'kv' reached by the path 'loc' in
** this plan, copied into 'ts' (its place kept): a forbidden member's error comes once per
** member, and each scan of the object is linear in it. */
bool coerce_memo_get(coerce_ctx *c, const coax_value *x, const coax_value *kv, const char *loc, coerce_trials *ts)
{
    const coerce_trials *m = c->memo_trials;
    if (!m || c->memo_plan != c->plan_id || c->memo_obj != x || c->memo_kv != kv || strcmp(c->memo_loc, loc)) return false;
    memcpy(ts->t, m->t, sizeof ts->t);
    ts->n = m->n;
    return true;
}

void coerce_memo_put(coerce_ctx *c, const coax_value *x, const coax_value *kv, const char *loc,
                     const coerce_trials *ts)
{
    if (!c->memo_trials && !(c->memo_trials = coax_arena_alloc(c->arena, sizeof *ts))) return;
    memcpy(c->memo_trials, ts, sizeof *ts);
    c->memo_plan = c->plan_id, c->memo_obj = x, c->memo_kv = kv, c->memo_loc = loc; /* the plan's errors live on */
}

/* A key and how a reply may have written a property it names. */
typedef struct {
    const coax_schema *schema; /* NULL: no pattern is known to miss it */
    const char *key, *norm;    /* norm: key as coerce_norm_key writes it */
    size_t klen;
    uint64_t *spent; /* coax_schema_pattern_names' */
} named_loosely;

/* Whether a member of 'props' (a "properties") is the key joined another way
** or a few edits off ("FOO", "user-id", "bra" for "bar"; not a name holding
** the other and a word more, "invoice" for "invoice_id": another name), or a
** pattern of 'pp' (a "patternProperties") matches the key (or may). */
static bool names_loosely(const named_loosely *l, const coax_value *props, const coax_value *pp)
{
    char name[257];
    for (size_t i = 0; props && props->type == COAX_OBJECT && i < props->len; i++) {
        const coax_member *pm = &props->u.members[i];
        if (!coerce_norm_key(pm->key, pm->klen, name, sizeof name) || !strcmp(name, l->norm) ||
            (!strstr(name, l->norm) && !strstr(l->norm, name) && /* past holding, close is its edits: */
             coerce_names_close(pm->key, pm->klen, l->key, l->klen)))      /* "fox" for "foo" too */
            return true;
    }
    return pp && pp->type == COAX_OBJECT && pp->len &&
           (!l->schema || coax_schema_pattern_names(l->schema, pp, l->key, l->klen, l->spent) != 0);
}

/* Walks every "properties" of the schema document (an explicit stack: the
** document's depth is input): with 'set', puts each name declared in it,
** and in 'norm' the name normalized (coerce_norm_key) (false: out of
** memory); else whether one is 'key' (true when out of memory). */
static bool declared_walk(coax_arena *a, const coax_value *doc, const char *key, size_t klen, smap *set, smap *norm,
                          const named_loosely *loose)
{
    coax_arena_mark mark = coax_arena_get_mark(a);
    size_t cap = 64, n = 0;
    const coax_value **stack = coax_arena_alloc(a, cap * sizeof *stack);
    bool found = !stack, oom = !stack;
    if (stack) stack[n++] = doc;
    while (n && !found) {
        const coax_value *v = stack[--n];
        if (v->type != COAX_OBJECT && v->type != COAX_ARRAY) continue;
        const coax_value *props = v->type == COAX_OBJECT ? coerce_member(v, "properties") : NULL;
        if (props && props->type == COAX_OBJECT && !set && coax_object_get(props, key, klen)) found = true;
        if (loose && v->type == COAX_OBJECT && names_loosely(loose, props, coerce_member(v, "patternProperties")))
            found = true;
        for (size_t i = 0; set && props && props->type == COAX_OBJECT && i < props->len && !oom; i++) {
            const coax_member *pm = &props->u.members[i];
            char *k = coax_arena_alloc(a, pm->klen + 1);
            oom = !k || !smap_put(set, a, pm->key, pm->klen, (void *)props) ||
                  (coerce_norm_key(pm->key, pm->klen, k, pm->klen + 1) && !smap_put(norm, a, k, strlen(k), k));
        }
        if (!coerce_push_children(a, &stack, &n, &cap, v)) {
            found = oom = true;
            break;
        }
        found = found || oom;
    }
    if (!set) coax_arena_rewind(a, mark); /* a set keeps its entries in the arena */
    return set ? !oom : found;
}

/* How many schemas root_takes_any_key reads at most, and how deep its
** stack goes: past either the root is taken to name every key (unsure: no
** envelope is taken out, the reply is refused). */
#define ROOT_KEY_LOOK 4096
#define ROOT_KEY_STACK 64

/* Whether the root schema, through its local "$ref"s and its "allOf",
** "anyOf", "oneOf", "then" and "else", may read any key as content: a map
** ("additionalProperties" or "unevaluatedProperties" a schema: its keys are
** data, and {"alice": {"math": 90}} is no envelope around {"math": 90}),
** or a reference the look cannot follow (another document's, an anchor's,
** "$dynamicRef", "$recursiveRef": "$defs" is a property of the meta-schema
** a "$ref" names). */
static bool root_takes_any_key(const coax_value *doc)
{
    static const char *const branches[] = {"allOf", "anyOf", "oneOf", "then", "else"};
    const coax_value *stack[ROOT_KEY_STACK];
    size_t n = 0, looked = 0;
    stack[n++] = doc;
    while (n) {
        const coax_value *s = stack[--n];
        if (s->type != COAX_OBJECT) continue;
        const coax_value *ref = coerce_member(s, "$ref"), *map = coerce_member(s, "additionalProperties"),
                         *rest = coerce_member(s, "unevaluatedProperties");
        if (++looked > ROOT_KEY_LOOK || coerce_member(s, "$dynamicRef") || coerce_member(s, "$recursiveRef") ||
            (map && map->type == COAX_OBJECT) || (rest && rest->type == COAX_OBJECT))
            return true;
        const coax_value *target = ref ? coerce_local_ref(NULL, doc, ref) : NULL;
        if (ref && (!target || n == ROOT_KEY_STACK)) return true;
        if (target) stack[n++] = target;
        for (size_t b = 0; b < sizeof branches / sizeof *branches; b++) {
            const coax_value *br = coerce_member(s, branches[b]);
            size_t count = !br ? 0 : br->type == COAX_ARRAY ? br->len : 1;
            if (count > ROOT_KEY_STACK - n) return true;
            for (size_t i = 0; i < count; i++) stack[n++] = br->type == COAX_ARRAY ? &br->u.items[i] : br;
        }
    }
    return false;
}

bool coerce_named_in_doc(coax_arena *a, const coax_value *doc, const coax_schema *schema, const char *key, size_t klen,
                         uint64_t *spent)
{
    char norm[257];
    if (!coerce_norm_key(key, klen, norm, sizeof norm) || root_takes_any_key(doc)) return true;
    named_loosely l = {schema, key, norm, klen, spent};
    return declared_walk(a, doc, key, klen, NULL, NULL, &l);
}

const smap *coerce_declared_names(coerce_ctx *c, bool normalized)
{
    static const char declared_names_key; /* its address keys the sets in c->built */
    smap *sets = smap_getp(&c->built, &declared_names_key);
    if (sets) return &sets[normalized];
    sets = coax_arena_alloc(c->arena, 2 * sizeof *sets);
    if (!sets) return NULL;
    sets[0] = sets[1] = (smap){0};
    if (!declared_walk(c->arena, c->doc, NULL, 0, &sets[0], &sets[1], NULL)) return NULL;
    return smap_putp(&c->built, c->arena, &declared_names_key, sets) ? &sets[normalized] : NULL;
}

bool coerce_may_be_declared(coerce_ctx *c, const coax_value *props, const coax_value *const *taken, const size_t *named,
                            size_t n, size_t free_until, const coax_member *m, size_t *budget)
{
    unsigned bit = coerce_type_bit(&m->value);
    for (size_t k = 0; k < n; k++) {
        const coax_member *pm = &props->u.members[named[k]];
        if (!taken[named[k]] || k >= free_until) { /* present ones before free_until: not charged */
            if (!*budget) return true;
            --*budget;
        }
        /* beside a present property, a name holding its name is another one
        ** ("nickname", "alternate_phone"): only a misspelling is it again */
        if (!(coerce_types_taken(coerce_member(coerce_deref(c, c->doc, &pm->value), "type")) & bit) ||
            !coerce_names_near(m->key, m->klen, pm->key, pm->klen, !taken[named[k]]))
            continue;
        if (!taken[named[k]] || coax_value_equal(taken[named[k]], &m->value, coax_arena_allocator(c->arena)) != 1)
            return true;
    }
    return false;
}

/* Whether a key holds a closer and, after a comma, an opener: the end of one item and the start of the next
** ("qty: 2}, {sku": {"sku": "A1", "qty": 2}, {"sku": "B2"} with two quotes lost, read as valid JSON). */
bool coerce_key_holds_items(const char *k, size_t n)
{
    for (const char *p = k, *e = k + n; p < e; p++) {
        if (*p != '}' && *p != ']') continue;
        const char *q = p + 1;
        while (q < e && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
        if (q >= e || *q != ',') continue;
        for (q++; q < e && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r');) q++;
        if (q < e && (*q == '{' || *q == '[')) return true;
    }
    return false;
}

unsigned coerce_telling_fits(const coax_value *const *taken, size_t np, unsigned fits)
{
    for (size_t i = 0; (fits & 1u << COAX_STRING) && i < np; i++)
        if (taken[i]) fits &= ~(1u << COAX_STRING);
    return fits;
}

unsigned coerce_property_types(const coax_value *schema)
{
    const coax_value *t = coerce_member(schema, "type"), *e = coerce_member(schema, "enum");
    if (t || !(e && e->type == COAX_ARRAY) || e->len > 64) return coerce_types_taken(t);
    unsigned bits = 0; /* {"enum": ["red", "green"]} takes no number */
    for (size_t i = 0; i < e->len; i++) bits |= coerce_type_bit(&e->u.items[i]);
    return bits & 1u << 7 ? bits | 1u << COAX_NUMBER : bits; /* 2 in an enum takes 2.0 */
}
