/*
** complete.c: with a schema, which closed parts are final, and the values
** they will have in the final value.
**
** A closed part P is final when nothing later in the reply can change it:
** every container above it has a "plain" subschema (keywords that judge
** each member or item on its own: properties, items as one schema,
** additionalProperties, required, counts, annotations; see plain()) and
** every key on the way, P's own included, is declared in "properties"
** (coercion may rename or drop an undeclared key, and a single undeclared
** key at the root may be an envelope; so may a declared one that names the
** whole answer, "result", over a container: coerce_wrapper_key), and the
** root's "type" names its container alone (else an invalid root may be
** unwrapped to a member's scalar). Anything else above P (anyOf,
** oneOf, allOf, if, not, enum or const on a container, uniqueItems,
** contains, dependencies, patternProperties, a reference that is not
** local...) may judge P together with what follows it, so P is final only
** with that container. The root is final when it closes: its value is
** then coax_extract's over the candidate's text (envelopes, coercions).
**
** The value of a final part is computed once, when a partial is first
** asked for after it closed: the parts that closed since the last partial
** are placed in one skeleton (the path from the root to each, nothing
** else), validated and coerced with the whole schema as coax_extract does
** (extract/coerce.c), and each part's coerced value is read back at its
** place. Errors at and under a part are its own; the others belong to the
** skeleton (a missing required member, minItems) and are dropped. A final
** part with an error left after coercion is one no later text can repair:
** the reply is doomed.
*/
#include "stream/reader.h"
#include "base/hash.h"
#include "json/pointer.h"

#include "extract/coerce.h"
#include "schema/schema.h"

static const coax_value *member(const coax_value *obj, const char *key, size_t n)
{
    return obj && obj->type == COAX_OBJECT ? coax_object_get(obj, key, n) : NULL;
}

/* A "properties" of more than PROPS_SCAN names, indexed once per reader: a
** reply's n keys under a schema of n names cost n lookups, not n^2 compares.
** So is any large object of the schema a reference goes through ("$defs"). */
#define PROPS_SCAN 16
struct sprops {
    uint32_t *slot; /* member index + 1, 0: empty */
    size_t mask;
    uint64_t seed;
};

/* The index of 'props' (built on first use), or NULL out of memory. */
static const struct sprops *props_index(stream_reader *r, const coax_value *props)
{
    const struct sprops *known = smap_getp(&r->pidx, props);
    if (known) return known;
    struct sprops *x = coax_arena_alloc(r->ar, sizeof *x);
    if (!x) return NULL;
    x->seed = coax_hash_seed(x);
    x->slot = coerce_name_index(r->ar, props, x->seed, &x->mask);
    return x->slot && smap_putp(&r->pidx, r->ar, props, x) ? x : NULL;
}

/* The first member of 'props' named key[0..klen), or NULL. */
static const coax_member *declared(stream_reader *r, const coax_value *props, const char *key, size_t klen)
{
    const struct sprops *x = props->len > PROPS_SCAN ? props_index(r, props) : NULL;
    if (!x) {
        for (size_t i = 0; i < props->len; i++)
            if (props->u.members[i].klen == klen && coax_same_bytes(props->u.members[i].key, key, klen))
                return &props->u.members[i];
        return NULL;
    }
    const coax_member *first = NULL;
    for (size_t k = (size_t)coax_hash_bytes(key, klen, x->seed) & x->mask; x->slot[k]; k = (k + 1) & x->mask) {
        const coax_member *m = &props->u.members[x->slot[k] - 1];
        if (m->klen == klen && coax_same_bytes(m->key, key, klen) && (!first || m < first)) first = m;
    }
    return first;
}

/* declared() as a coax_member_lookup ('ud' the reader), for pointers into the schema. */
static const coax_value *schema_member(void *ud, const coax_value *obj, const char *key, size_t klen)
{
    const coax_member *m = declared(ud, obj, key, klen);
    return m ? &m->value : NULL;
}

/* Keywords that only annotate (or hold subschemas reached by reference). */
static bool annotation(const char *k)
{
    static const char *const names[] = {"title", "description", "default", "examples", "$comment", "$schema",
                                        "$defs", "definitions", "format", "readOnly", "writeOnly", "deprecated",
                                        "contentEncoding", "contentMediaType", "$anchor", "example"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(k, names[i])) return true;
    return false;
}

/* 's' with its local "$ref" followed, when the reference is all it asserts
** (a reference beside other keywords, or to another document: NULL). The
** schema's large objects are looked into through the reader's indexes: n
** keys each behind a "$ref" into n "$defs" were n scans of n members (32,000:
** 2.2 s where coax_extract took 0.15 s). */
static const coax_value *deref(stream_reader *r, const coax_value *doc, const coax_value *s)
{
    char small[256], *scratch = small; /* a token's escapes undone */
    for (int hops = 0; s && hops < 16; hops++) {
        const coax_value *ref = member(s, "$ref", 4);
        if (!ref) return s;
        for (size_t i = 0; i < s->len; i++)
            if (strcmp(s->u.members[i].key, "$ref") && !annotation(s->u.members[i].key)) return NULL;
        if (ref->type != COAX_STRING || ref->len == 0 || ref->u.text[0] != '#' || memchr(ref->u.text, '%', ref->len))
            return NULL;
        if (ref->len > sizeof small && scratch == small && memchr(ref->u.text, '~', ref->len) &&
            !(scratch = coax_arena_alloc(r->ar, ref->len)))
            return NULL; /* only a token with "~0" or "~1" is written there */
        if (coax_pointer_walk(doc, ref->u.text + 1, ref->len - 1, schema_member, r, scratch, &s)) return NULL;
    }
    return NULL;
}

static bool type_allows(const coax_value *t, const char *name)
{
    if (t->type == COAX_STRING) return !strcmp(t->u.text, name);
    if (t->type != COAX_ARRAY) return false;
    for (size_t i = 0; i < t->len; i++)
        if (t->u.items[i].type == COAX_STRING && !strcmp(t->u.items[i].u.text, name)) return true;
    return false;
}

/* Whether subschema 's' judges each member (item) of a container of this
** kind on its own, so a member may be final before the container closes. */
static bool plain(const coax_value *s, bool object, bool root)
{
    if (!s) return false;
    if (s->type == COAX_BOOL) return s->u.boolean != 0;
    if (s->type != COAX_OBJECT) return false;
    for (size_t i = 0; i < s->len; i++) {
        const char *k = s->u.members[i].key;
        const coax_value *v = &s->u.members[i].value;
        if (annotation(k)) continue;
        if (!strcmp(k, "type")) {
            if (!type_allows(v, object ? "object" : "array")) return false;
        } else if (!strcmp(k, "$id") || !strcmp(k, "id")) {
            if (!root) return false; /* a new base for references */
        } else if (object) {
            if (strcmp(k, "properties") && strcmp(k, "required") && strcmp(k, "additionalProperties") &&
                strcmp(k, "minProperties") && strcmp(k, "maxProperties") && strcmp(k, "propertyNames") &&
                strcmp(k, "items") && strcmp(k, "minItems") && strcmp(k, "maxItems"))
                return false;
        } else {
            if (!strcmp(k, "items")) {
                if (v->type != COAX_OBJECT && v->type != COAX_BOOL) return false; /* a tuple */
            } else if (strcmp(k, "minItems") && strcmp(k, "maxItems") && strcmp(k, "properties") &&
                       strcmp(k, "required") && strcmp(k, "additionalProperties") &&
                       strcmp(k, "minProperties") && strcmp(k, "maxProperties") && strcmp(k, "propertyNames")) {
                return false;
            }
        }
    }
    return true;
}

/* What "items" is when a schema has none. */
static const coax_value any_schema = {.type = COAX_BOOL, .u.boolean = 1};

/* Keywords that neither fail nor coerce the value they sit on. "format"
** and the content keywords are annotations to plain() (they judge the
** value alone) but may fail, so they are not here. */
static bool inert(const char *k)
{
    static const char *const names[] = {"title", "description", "default", "examples", "$comment", "$schema",
                                        "$defs", "definitions", "readOnly", "writeOnly", "deprecated",
                                        "$anchor", "example"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(k, names[i])) return true;
    return false;
}

/* Whether followed subschema 's' accepts any value unchanged: true, {}, or
** nothing but inert keywords. */
static bool trivial(const coax_value *s)
{
    if (!s) return false;
    if (s->type == COAX_BOOL) return s->u.boolean != 0;
    if (s->type != COAX_OBJECT) return false;
    for (size_t i = 0; i < s->len; i++)
        if (!inert(s->u.members[i].key)) return false;
    return true;
}

/* Fills slot 'e' with what is known of subschema 's' (not NULL). */
static const ssub *sub_fill(stream_reader *r, ssub *e, const coax_value *s)
{
    const coax_value *sub = deref(r, r->o.schema->doc, s);
    const coax_value *items = sub && sub->type == COAX_OBJECT ? member(sub, "items", 5) : NULL;
    *e = (ssub){.schema = s,
                .sub = sub,
                .props = member(sub, "properties", 10),
                .items = items ? items : &any_schema,
                .plain_object = plain(sub, true, false),
                .plain_array = plain(sub, false, false),
                .names = member(sub, "propertyNames", 13) != NULL,
                .trivial = trivial(sub)};
    return e;
}

/* What is known of subschema 's' (not NULL), computed on first sight:
** every container and closed part below a plain one asks, so the keyword
** scans (strcmp chains) run once per subschema, not once per item (and
** the lookup is inline). */
static inline const ssub *sub_info(stream_reader *r, const coax_value *s)
{
    uintptr_t h = (uintptr_t)s;
    ssub *e = &r->subs[(h >> 4 ^ h >> 10) & (STREAM_SUB_SLOTS - 1)];
    return e->schema == s ? e : sub_fill(r, e, s);
}

static void frame_from(sframe *f, const coax_value *sub, bool children_final, const coax_value *props,
                       const coax_value *items, bool names)
{
    f->sub = sub;
    f->children_final = children_final;
    f->props = props;
    f->items = items;
    f->names = names;
    f->key_sub = NULL;
}

/* Whether root schema 'sub' can hold nothing but a container of this kind
** ("type" names it alone), or accepts anything unchanged. Otherwise an
** invalid root may be unwrapped (extract.c, try_envelope) to the value of
** one of its members, a scalar included ({"a": {}, "result": "x"} is "x"
** once "additionalProperties": false dropped "a"): nothing in it is final
** before it closes. */
static bool root_pinned(const coax_value *sub, bool object)
{
    if (trivial(sub)) return true;
    const coax_value *t = member(sub, "type", 4);
    const char *kind = object ? "object" : "array";
    if (!t) return false;
    if (t->type == COAX_STRING) return !strcmp(t->u.text, kind);
    if (t->type != COAX_ARRAY || t->len == 0) return false;
    for (size_t i = 0; i < t->len; i++)
        if (t->u.items[i].type != COAX_STRING || strcmp(t->u.items[i].u.text, kind)) return false;
    return true;
}

/* A part whose subschema judges nothing keeps its parsed value and has no
** errors of its own: known once per array whose items may be complete
** (sframe.child_trivial; complete_key knows it for each key). */
static void items_trivial(stream_reader *r, sframe *f)
{
    f->child_trivial = !f->object && f->children_final && sub_info(r, f->items)->trivial;
}

void complete_frame(stream_reader *r, sframe *f, sframe *parent)
{
    const coax_value *doc = r->o.schema->doc;
    frame_from(f, NULL, false, NULL, NULL, false);
    if (!parent) { /* once per candidate: "$id" is allowed here */
        const coax_value *sub = deref(r, doc, doc);
        const coax_value *items = sub && sub->type == COAX_OBJECT ? member(sub, "items", 5) : NULL;
        frame_from(f, sub, plain(sub, f->object, true) && root_pinned(sub, f->object), member(sub, "properties", 10),
                   items ? items : &any_schema, member(sub, "propertyNames", 13) != NULL);
        items_trivial(r, f);
        return;
    }
    if (!parent->children_final) return;
    /* A container under a root key that may name the whole answer: the
    ** root may be an envelope the extraction unwraps (try_envelope, once
    ** coercion left one member), and then this container is judged as the
    ** root. Neither it nor anything in it is final before the root. */
    if (parent == r->frames && parent->object && parent->key_sub) {
        /* The key is declared (key_sub: the root's "properties" holds it), which is
        ** all coerce_wrapper_key walks the schema to learn for a container (n root
        ** keys cost n walks of it): it is asked as for a scalar, the same answer. */
        coax_value inner = {.type = COAX_NULL};
        uint64_t spent = 0; /* no schema: no pattern is matched */
        if (coerce_wrapper_key(r->ar, doc, NULL, parent->key, parent->klen, &inner, &spent)) {
            parent->key_sub = NULL;
            return;
        }
    }
    const coax_value *s = parent->object ? parent->key_sub : parent->items;
    if (!s) return; /* an undeclared key: coercion may rename or drop it */
    const ssub *info = sub_info(r, s);
    frame_from(f, info->sub, f->object ? info->plain_object : info->plain_array, info->props, info->items,
               info->names);
    items_trivial(r, f);
}

const char *complete_key(stream_reader *r, sframe *f, const char *key, size_t klen)
{
    f->key_sub = NULL;
    if (!f->children_final || !f->props || f->props->type != COAX_OBJECT) return NULL;
    const coax_member *m = declared(r, f->props, key, klen);
    if (!m) return NULL;
    f->key_sub = &m->value;
    /* "propertyNames" above it judges its key */
    f->child_trivial = sub_info(r, &m->value)->trivial && !f->names;
    return m->key;
}

void complete_unpend(stream_reader *r, size_t d, const char *ptr, size_t plen)
{
    while (r->npending && r->pending[r->npending - 1].depth >= d) r->npending--;
    /* errors are in document order: the frame's are the last ones */
    while (r->nerrors) {
        const char *loc = r->errors[r->nerrors - 1].instance_location;
        if (strncmp(loc, ptr, plen) || (loc[plen] && loc[plen] != '/')) break;
        r->nerrors--;
    }
    r->doomed = r->nerrors > 0;
}

/* ---- the skeleton ------------------------------------------------------- */

typedef struct skel {
    stream_reader *r;
    coax_arena *a;
    const size_t *list; /* the pending parts placed (indexes into r->pending), in document order */
    size_t n;
    size_t next;        /* the next of them to place */
} skel;

static const spending *placed(const skel *k, size_t i) { return &k->r->pending[k->list[i]]; }

/* The skeleton of frames[d]: its pending children, then (when parts below
** wait too) the open child leading to them. */
static coax_code skel_level(skel *k, size_t d, coax_value *out)
{
    stream_reader *r = k->r;
    const sframe *f = &r->frames[d];
    size_t n = 0, first = k->next;
    while (k->next < k->n && placed(k, k->next)->depth == d) k->next++;
    n = k->next - first;
    bool deeper = k->next < k->n;
    size_t total = n + (deeper ? 1 : 0);
    size_t size = f->object ? sizeof(coax_member) : sizeof(coax_value);
    void *kids = coax_arena_alloc(k->a, (total ? total : 1) * size);
    if (!kids) return COAX_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        size_t index = placed(k, first + i)->index;
        if (f->object) ((coax_member *)kids)[i] = ((const coax_member *)f->raw)[index];
        else ((coax_value *)kids)[i] = ((const coax_value *)f->raw)[index];
    }
    if (deeper) {
        coax_value child;
        coax_code rc = skel_level(k, d + 1, &child);
        if (rc) return rc;
        if (f->object) ((coax_member *)kids)[n] = (coax_member){f->key, (uint32_t)f->klen, child};
        else ((coax_value *)kids)[n] = child;
    }
    *out = (coax_value){.type = (uint8_t)(f->object ? COAX_OBJECT : COAX_ARRAY), .len = (uint32_t)total};
    if (f->object) out->u.members = kids;
    else out->u.items = kids;
    return COAX_OK;
}

/* The skeleton pointer of placed part i: its place in the skeleton (array
** indexes count the parts placed, not the reply's items). 'lo[j]' is the
** first placed part of depth j, 'lo[j + 1]' the end of them (the parts are
** in document order, so by depth). */
static char *skel_pointer(skel *k, size_t i, const size_t *lo, size_t *len)
{
    stream_reader *r = k->r;
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(k->a));
    size_t d = placed(k, i)->depth;
    for (size_t j = 0; j <= d; j++) {
        const sframe *f = &r->frames[j];
        coax_buf_putc(&b, '/');
        if (f->object) {
            const coax_member *m = j == d ? (const coax_member *)f->raw + placed(k, i)->index : NULL;
            const char *key = m ? m->key : f->key;
            size_t klen = m ? m->klen : f->klen;
            for (size_t c = 0; c < klen; c++) {
                if (key[c] == '~') coax_buf_puts(&b, "~0");
                else if (key[c] == '/') coax_buf_puts(&b, "~1");
                else coax_buf_putc(&b, key[c]);
            }
        } else { /* the part, or the open child after the level's parts */
            coax_buf_printf(&b, "%zu", j == d ? i - lo[j] : lo[j + 1] - lo[j]);
        }
    }
    char *s = b.oom ? NULL : coax_arena_strdup(k->a, b.data ? b.data : "", b.len);
    *len = b.len;
    coax_buf_free(&b);
    return s;
}

static char *dup_text(coax_arena *a, const char *s) { return s ? coax_arena_strdup(a, s, strlen(s)) : NULL; }

/* Pointers looked up by text (open addressing in a scratch arena), so an
** error finds the part it is at or under through its location's prefixes
** instead of every part being tried against every error. */
typedef struct ptr_index {
    const char *const *keys; /* keys[i]: the pointer of part i (NULL: none) */
    const size_t *lens;
    uint32_t *slots;         /* index + 1; 0 empty */
    size_t mask;
    uint64_t seed;
} ptr_index;

static bool index_build(ptr_index *x, coax_arena *a, const char *const *keys, const size_t *lens, size_t n,
                        uint64_t seed)
{
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    *x = (ptr_index){keys, lens, coax_arena_alloc(a, cap * sizeof *x->slots), cap - 1, seed};
    if (!x->slots) return false;
    memset(x->slots, 0, cap * sizeof *x->slots);
    for (size_t i = 0; i < n; i++) {
        if (!keys[i]) continue;
        size_t h = (size_t)coax_hash_bytes(keys[i], lens[i], seed) & x->mask;
        while (x->slots[h]) h = (h + 1) & x->mask;
        x->slots[h] = (uint32_t)(i + 1);
    }
    return true;
}

/* The first part (by the shortest prefix) whose pointer is 'loc' or an
** ancestor of it, or SIZE_MAX. */
static size_t index_owner(const ptr_index *x, const char *loc)
{
    size_t len = strlen(loc);
    for (size_t n = 0; n <= len; n++) {
        if (n < len && loc[n] != '/') continue;
        size_t h = (size_t)coax_hash_bytes(loc, n, x->seed) & x->mask;
        for (; x->slots[h]; h = (h + 1) & x->mask) {
            size_t i = x->slots[h] - 1;
            if (x->lens[i] == n && !memcmp(x->keys[i], loc, n)) return i;
        }
    }
    return SIZE_MAX;
}

/* Error 'e' of the skeleton, when it is at or under the part whose skeleton
** pointer is sp: kept with the part's real pointer. */
static coax_code keep_error(stream_reader *r, const coax_schema_error *e, const char *sp, size_t splen,
                            const char *real, size_t reallen)
{
    const char *loc = e->instance_location;
    if (strncmp(loc, sp, splen) || (loc[splen] && loc[splen] != '/')) return COAX_OK;
    if (!stream_grow(r, (void **)&r->errors, &r->errorcap, r->nerrors + 1, sizeof *r->errors)) return COAX_ENOMEM;
    size_t rest = strlen(loc + splen);
    char *inst = coax_arena_alloc(r->ar, reallen + rest + 1);
    if (!inst) return COAX_ENOMEM;
    memcpy(inst, real, reallen);
    memcpy(inst + reallen, loc + splen, rest + 1);
    coax_schema_error *o = &r->errors[r->nerrors];
    *o = (coax_schema_error){inst, dup_text(r->ar, e->keyword_location), dup_text(r->ar, e->absolute_keyword_location),
                             dup_text(r->ar, e->message), NULL, 0};
    if (!o->keyword_location || !o->message || (e->absolute_keyword_location && !o->absolute_keyword_location))
        return COAX_ENOMEM;
    r->nerrors++;
    r->doomed = true;
    return COAX_OK;
}

/* Part 'p' as parsed (its value if it was not placed, or no coercion
** changed it), with its pointer. */
static coax_code settle_as_parsed(stream_reader *r, spending *p)
{
    const sframe *f = &r->frames[p->depth];
    const coax_member *m = f->object ? (const coax_member *)f->raw + p->index : NULL;
    p->value = m ? &m->value : (const coax_value *)f->raw + p->index;
    const char *fp = frame_ptr(r, p->depth);
    p->ptr = fp ? stream_pointer(r->ar, fp, f->plen, m ? m->key : NULL, m ? m->klen : 0, p->index, NULL) : NULL;
    return p->ptr ? COAX_OK : COAX_ENOMEM;
}

/* The errors of 'val' grouped by the placed part they are at or under:
** order[from[i]..from[i + 1]) are part i's, in their order in 'val'. */
static coax_code errors_by_part(skel *k, const char *const *sps, const size_t *splens, const coax_validation *val,
                                size_t **order, size_t **from)
{
    ptr_index x;
    size_t *owner = coax_arena_alloc(k->a, val->nerrors * sizeof *owner);
    *order = coax_arena_alloc(k->a, (val->nerrors ? val->nerrors : 1) * sizeof **order);
    *from = coax_arena_alloc(k->a, (k->n + 2) * sizeof **from);
    if (!owner || !*order || !*from || !index_build(&x, k->a, sps, splens, k->n, k->r->seed)) return COAX_ENOMEM;
    memset(*from, 0, (k->n + 2) * sizeof **from);
    for (size_t e = 0; e < val->nerrors; e++) {
        owner[e] = index_owner(&x, val->errors[e].instance_location);
        if (owner[e] != SIZE_MAX) (*from)[owner[e] + 2]++;
    }
    for (size_t i = 0; i < k->n; i++) (*from)[i + 2] += (*from)[i + 1]; /* from[i + 1]: where part i's end */
    for (size_t e = 0; e < val->nerrors; e++)
        if (owner[e] != SIZE_MAX) (*order)[(*from)[owner[e] + 1]++] = e;
    return COAX_OK;
}

coax_code complete_settle(stream_reader *r, coax_error *err)
{
    if (!r->npending) return COAX_OK;
    if (!r->scratch && !(r->scratch = coax_arena_new(coax_arena_allocator(r->ar)))) return stream_oom(r, err);
    /* The parts whose subschema judges something go in the skeleton. */
    size_t *list = coax_arena_alloc(r->scratch, r->npending * sizeof *list);
    if (!list) {
        coax_arena_reset(r->scratch);
        return stream_oom(r, err);
    }
    skel k = {r, r->scratch, list, 0, 0};
    coax_code rc = COAX_OK;
    for (size_t i = 0; !rc && i < r->npending; i++) {
        if (r->pending[i].trivial) rc = settle_as_parsed(r, &r->pending[i]);
        else list[k.n++] = i;
    }
    coax_value root;
    const coax_value *coerced = NULL;
    coax_validation val = {.valid = true};
    coerce_ctx c = {.arena = k.a, .schema = r->o.schema, .doc = r->o.schema->doc,
                    .draft = coax_schema_draft(r->o.schema), .err = err};
    if (!rc && k.n) {
        rc = skel_level(&k, 0, &root);
        if (!rc) rc = coerce_candidate(&c, &root, &coerced, &val);
    }
    size_t maxd = k.n ? placed(&k, k.n - 1)->depth : 0;
    size_t *lo = rc || !k.n ? NULL : coax_arena_alloc(k.a, (maxd + 2) * sizeof *lo);
    if (!rc && k.n && !lo) rc = COAX_ENOMEM;
    for (size_t j = 0, i = 0; !rc && lo && j <= maxd + 1; j++) {
        while (i < k.n && placed(&k, i)->depth < j) i++;
        lo[j] = i;
    }
    bool as_parsed = c.n == 0 && val.valid; /* nothing changed, nothing failed: the parts as parsed */
    const char **sps = NULL;
    size_t *splens = NULL, *order = NULL, *from = NULL;
    if (!rc && k.n && !as_parsed) {
        sps = coax_arena_alloc(k.a, k.n * sizeof *sps);
        splens = coax_arena_alloc(k.a, k.n * sizeof *splens);
        if (!sps || !splens) rc = COAX_ENOMEM;
        for (size_t i = 0; !rc && i < k.n; i++)
            if (!(sps[i] = skel_pointer(&k, i, lo, &splens[i]))) rc = COAX_ENOMEM;
    }
    /* Each error goes to the part it is at or under (at most one: no part
    ** placed is inside another), in the order coercion gave them. */
    if (!rc && sps && !val.valid && val.nerrors) rc = errors_by_part(&k, sps, splens, &val, &order, &from);
    /* Each part's place in the coerced value, a wide object's members through
    ** the coercion's index: a scan each was quadratic in the parts of one
    ** partial (32,000 keys coerced: 2.4 s). 'tok': a token's escapes undone. */
    size_t longest = 0;
    for (size_t i = 0; sps && i < k.n; i++)
        if (splens[i] > longest) longest = splens[i];
    char *tok = !rc && sps ? coax_arena_alloc(k.a, longest + 1) : NULL;
    if (!rc && sps && !tok) rc = COAX_ENOMEM;
    for (size_t i = 0; !rc && i < k.n; i++) {
        spending *p = &r->pending[list[i]];
        if (as_parsed) {
            rc = settle_as_parsed(r, p);
            continue;
        }
        const sframe *f = &r->frames[p->depth];
        const coax_member *m = f->object ? (const coax_member *)f->raw + p->index : NULL;
        size_t splen = splens[i], reallen;
        const char *sp = sps[i];
        const coax_value *v = NULL;
        /* not where it was: never shown changed */
        if (coax_pointer_walk(coerced, sp, splen, coerce_indexed_member, &c, tok, &v))
            v = m ? &m->value : (const coax_value *)f->raw + p->index;
        /* Without coercions the value is the parsed one (the skeleton only
        ** shares it); a coerced one lives in the scratch arena: copied. */
        const coax_value *keep = c.n == 0 ? (m ? &m->value : (const coax_value *)f->raw + p->index)
                                          : coax_value_copy(r->ar, v);
        const char *fp = frame_ptr(r, p->depth);
        char *real = fp ? stream_pointer(r->ar, fp, f->plen, m ? m->key : NULL, m ? m->klen : 0, p->index, &reallen)
                        : NULL;
        if (!keep || !real) {
            rc = COAX_ENOMEM;
            break;
        }
        p->value = keep; /* partial.c shows and lists it */
        p->ptr = real;
        for (size_t e = from ? from[i] : 0; !rc && from && e < from[i + 1]; e++)
            rc = keep_error(r, &val.errors[order[e]], sp, splen, real, reallen);
    }
    coax_arena_reset(r->scratch);
    if (rc == COAX_ENOMEM) return stream_oom(r, err);
    if (rc) return stream_limit(r, rc, NULL, "%s", err && err->msg[0] ? err->msg : coax_strerror(rc));
    return COAX_OK;
}

coax_code complete_root(stream_reader *r, coax_error *err)
{
    coax_extract_result x;
    coax_error e = {0};
    coax_code rc = coax_extract(r->ar, r->o.schema, r->cand.data, r->cand.len, &r->lim, NULL, &x, &e);
    if (rc == COAX_ENOMEM) return stream_oom(r, err);
    if (rc) return COAX_OK; /* not read: the root is not complete */
    r->root_x = x;
    r->root_read = true;
    if (!x.valid) {
        r->root_errors_pending = true;
        return COAX_OK;
    }
    r->root = (coax_value *)x.value;
    r->nentries = 0;
    r->nptrs = 0;
    r->npending = 0;
    if (!stream_grow(r, (void **)&r->entries, &r->entrycap, 1, sizeof *r->entries)) return stream_oom(r, err);
    r->entries[r->nentries++] = (sentry){NULL, 0, NULL, 0, 0, NULL};
    r->root_listed = true;
    return COAX_OK;
}

coax_code complete_root_errors(stream_reader *r, coax_error *err)
{
    const coax_validation *v = &r->root_x.validation;
    r->root_errors_pending = false;
    if (!v->nerrors) return COAX_OK;
    /* The parts listed, by pointer: an error at or under one is known already. */
    if (!r->scratch && !(r->scratch = coax_arena_new(coax_arena_allocator(r->ar)))) return stream_oom(r, err);
    const char **texts = coax_arena_alloc(r->scratch, (r->nentries + 1) * sizeof *texts);
    size_t *lens = coax_arena_alloc(r->scratch, (r->nentries + 1) * sizeof *lens);
    ptr_index x;
    bool ok = texts && lens;
    for (size_t i = 0; ok && i < r->nentries; i++) {
        texts[i] = r->entries[i].text;
        lens[i] = texts[i] ? strlen(texts[i]) : 0;
    }
    ok = ok && index_build(&x, r->scratch, texts, lens, r->nentries, r->seed);
    for (size_t i = 0; ok && i < v->nerrors; i++) {
        if (index_owner(&x, v->errors[i].instance_location) != SIZE_MAX) continue; /* known already */
        ok = stream_grow(r, (void **)&r->errors, &r->errorcap, r->nerrors + 1, sizeof *r->errors);
        if (ok) r->errors[r->nerrors++] = v->errors[i];
    }
    coax_arena_reset(r->scratch);
    return ok ? COAX_OK : stream_oom(r, err);
}

const coax_extract_result *stream_root_extract(stream_reader *r, const char *text, size_t len, bool now)
{
    if (!r || r->failed || !r->o.schema || !r->ended || r->cand.len != len || (len && memcmp(r->cand.data, text, len)))
        return NULL;
    if (r->root_pending && now) { /* as the next partial would */
        r->root_pending = false;
        if (complete_root(r, NULL)) return NULL;
    }
    return r->root_read ? &r->root_x : NULL;
}
