/*
** restated.c: members that give a property a second value. A model that
** corrects itself inside its JSON may keep both values: {"age": 36,
** "corrected_age": 37}, {"city": "Paris", "actual_city": "Lyon"}, {"age":
** 35, "correction": {"age": 36}}, {"age": 35, "note": "age should be
** 36"}. Where the schema forbids the extra member, coercion keeps it rather
** than drop it (coerce_trials.c); where the object is open, the value
** validates with both, and the caller reads the property the reply took
** back. Only a member no "properties" of the schema declares counts, and
** only against a property one does: {"price": 100, "final_price": 90}
** where the schema asks for both is two answers, not one twice.
*/
#include "extract/coerce.h"
#include "base/hash.h"


const char *const coerce_replacing_words[COERCE_REPLACING_WORDS] = {
    "", "corrected", "correct", "correction", "actual", "new", "updated", "final", "revised", "fixed", "real", "true",
    "instead", "fix", "shouldbe", "amended",
    /* or offers another value beside it: the reply does not know which (not "alt_email", "alternate_phone":
    ** a second address or phone is a value of its own) */
    "possible", "maybe", "probable", "likely", "guess", "guessed"};

/* Names that say a member holds corrections of its object's members, or
** other values for them ({"age": 35, "correction": {"age": 36}}). */
static bool correcting_name(const char *mk, size_t n)
{
    static const coax_word words[] = {COAX_WORD("correction"), COAX_WORD("corrections"), COAX_WORD("corrected"),
                                      COAX_WORD("fix"),        COAX_WORD("fixes"),       COAX_WORD("fixed"),
                                      COAX_WORD("update"),     COAX_WORD("updates"),     COAX_WORD("updated"),
                                      COAX_WORD("revision"),   COAX_WORD("revised"),     COAX_WORD("erratum"),
                                      COAX_WORD("errata"),     COAX_WORD("actual"),      COAX_WORD("new"),
                                      COAX_WORD("final"),      COAX_WORD("alternative"), COAX_WORD("alternatives"),
                                      COAX_WORD("alternate"),  COAX_WORD("alternates")};
    return coax_word_in(mk, n, words, sizeof words / sizeof *words);
}

typedef struct look {
    coax_arena *a;
    const smap *declared, *normalized; /* the names the schema declares, as written and normalized */
    coax_buf path;
    const char *message;
} look;

/* Whether the schema declares 'key' in some "properties". */
static bool declared(const look *lk, const char *key, size_t klen)
{
    return smap_get(lk->declared, key, klen) != NULL;
}

/* The members the schema declares by their names normalized (norm): an
** object's, or those of the objects an object holds. Only declared ones:
** how many of an object's own share a normalized name is bounded by the
** schema ("a", "A", "a_", ... one name), but not of the objects it holds
** (n objects each with "b"): a slot holds a name, its entries a list in
** the order indexed, so that neither indexing nor a look walks them all. */
typedef struct names {
    const coax_member **mem;
    char **norm;
    uint32_t *slot;  /* the first entry of a name + 1, 0: empty */
    uint32_t *next;  /* the next entry of the same name + 1, 0: none */
    uint32_t *last;  /* of a name's first entry: its last entry */
    uint32_t *other; /* of a name's first entry: the first entry whose value differs from its + 1, 0: none */
    size_t n, mask;
    uint64_t seed;
} names;

/* key[0..klen) normalized (coerce_norm_key) in 'out', of klen + 1 bytes:
** its length, 0 when nothing is left. */
static size_t norm(const char *key, size_t klen, char *out)
{
    return coerce_norm_key(key, klen, out, klen + 1) ? strlen(out) : 0;
}

/* The slot of normalized name k[0..n): its own, or the empty one it would take. */
static size_t name_slot(const names *ns, const char *k, size_t n)
{
    size_t at = (size_t)coax_hash_bytes(k, n, ns->seed) & ns->mask;
    for (; ns->slot[at]; at = (at + 1) & ns->mask) {
        const char *o = ns->norm[ns->slot[at] - 1];
        if (strlen(o) == n && !memcmp(o, k, n)) break;
    }
    return at;
}

/* Indexes the declared members of 'obj' (kids false) or of the objects
** its members hold (kids true). */
static bool names_init(names *ns, const look *lk, const coax_value *obj, bool kids, uint64_t seed)
{
    coax_arena *a = lk->a;
    size_t total = 0;
    for (size_t j = 0; j < obj->len; j++)
        total += !kids ? 1 : obj->u.members[j].value.type == COAX_OBJECT ? obj->u.members[j].value.len : 0;
    size_t cap = 32;
    while (cap < total * 2) cap *= 2;
    ns->n = 0, ns->mask = cap - 1, ns->seed = seed;
    ns->slot = coax_arena_alloc(a, cap * sizeof *ns->slot);
    ns->mem = coax_arena_alloc(a, (total + 1) * sizeof *ns->mem);
    ns->norm = coax_arena_alloc(a, (total + 1) * sizeof *ns->norm);
    ns->next = coax_arena_alloc(a, (total + 1) * sizeof *ns->next);
    ns->last = coax_arena_alloc(a, (total + 1) * sizeof *ns->last);
    ns->other = coax_arena_alloc(a, (total + 1) * sizeof *ns->other);
    if (!ns->slot || !ns->mem || !ns->norm || !ns->next || !ns->last || !ns->other) return false;
    memset(ns->slot, 0, cap * sizeof *ns->slot);
    for (size_t j = 0; j < obj->len; j++) {
        const coax_value *in = kids ? &obj->u.members[j].value : NULL;
        if (kids && in->type != COAX_OBJECT) continue;
        for (size_t i = 0; i < (kids ? in->len : 1); i++) {
            const coax_member *m = kids ? &in->u.members[i] : &obj->u.members[j];
            if (!declared(lk, m->key, m->klen)) continue;
            char *k = coax_arena_alloc(a, m->klen + 1);
            if (!k) return false;
            size_t e = ns->n++;
            ns->mem[e] = m;
            ns->norm[e] = norm(m->key, m->klen, k) ? k : NULL;
            ns->next[e] = ns->other[e] = 0;
            ns->last[e] = (uint32_t)e;
            if (!ns->norm[e]) continue;
            size_t at = name_slot(ns, k, strlen(k));
            if (!ns->slot[at]) {
                ns->slot[at] = (uint32_t)e + 1;
                continue;
            }
            size_t first = ns->slot[at] - 1;
            ns->next[ns->last[first]] = (uint32_t)e + 1;
            ns->last[first] = (uint32_t)e;
            if (!ns->other[first] && coax_value_equal(&ns->mem[first]->value, &m->value, coax_arena_allocator(a)) != 1)
                ns->other[first] = (uint32_t)e + 1;
        }
    }
    return true;
}

/* The first member indexed but 'not' whose normalized name is k[0..n) and
** whose value differs from 'v' (NULL: any value), NULL when none. */
static const coax_member *differing(const look *lk, const names *ns, const char *k, size_t n, const coax_member *not,
                                    const coax_value *v)
{
    size_t first = ns->slot[name_slot(ns, k, n)];
    for (size_t e1 = first; e1;) {
        const coax_member *m = ns->mem[e1 - 1];
        bool same = m != not && v && coax_value_equal(&m->value, v, coax_arena_allocator(lk->a)) == 1;
        if (m != not && !same) return m;
        /* the first entry's value is v: so is each before the first that differs from it */
        e1 = same && e1 == first ? ns->other[e1 - 1] : ns->next[e1 - 1];
    }
    return NULL;
}

/* An object's own members, then those of the objects it holds, a level
** down ({"person": {"age": 36}, "corrected_age": 37}), indexed at the
** first need. */
typedef struct scope {
    const coax_value *obj;
    names self, kids;
    bool built, kids_ok;
} scope;

static const coax_member *differing_near(look *lk, scope *sc, const char *k, size_t n, const coax_member *not,
                                         const coax_value *v)
{
    const coax_member *hit = differing(lk, &sc->self, k, n, not, v);
    if (hit) return hit;
    if (!sc->built) sc->built = true, sc->kids_ok = names_init(&sc->kids, lk, sc->obj, true, sc->self.seed);
    return sc->kids_ok ? differing(lk, &sc->kids, k, n, not, v) : NULL;
}

/* Calls 'each' with the words of a remark's first bytes normalized, alone
** and two together ("first name": "firstname"), until it returns
** non-NULL: that, or NULL. */
static const void *remark_words(const char *s, size_t len, const void *(*each)(void *, const char *, size_t),
                                void *ctx)
{
    size_t n = len > 400 ? 400 : len, prev = SIZE_MAX, prevn = 0;
    char w[2 * 400 + 2];
    for (size_t p = 0; p < n;) {
        if (!coax_ascii_alnum((unsigned char)s[p])) {
            p++;
            continue;
        }
        size_t q = p;
        while (q < n && (coax_ascii_alnum((unsigned char)s[q]) || s[q] == '_')) q++;
        size_t wn = norm(s + p, q - p, w);
        const void *hit = wn ? each(ctx, w, wn) : NULL;
        if (!hit && prev != SIZE_MAX) {
            size_t tn = norm(s + prev, prevn, w);
            tn += norm(s + p, q - p, w + tn);
            hit = tn ? each(ctx, w, tn) : NULL;
        }
        if (hit) return hit;
        prev = p, prevn = q - p, p = q;
    }
    return NULL;
}

/* remark_words' look for restated_by: a declared member the word names. */
typedef struct naming {
    look *lk;
    scope *sc;
    const coax_member *remark;
} naming;

static const void *named_member(void *ctx, const char *w, size_t n)
{
    naming *nm = ctx;
    return differing_near(nm->lk, nm->sc, w, n, nm->remark, NULL);
}

/* The member that member i, undeclared, gives another value, in its
** object or one a level down: by its name (corrected_age, age_new,
** firstName beside first_name), by members of its own (correction: {"age":
** 36}), or by a remark that takes back a value and names the member ("age
** should be 36"). NULL when none. */
static const coax_member *restated_by(look *lk, scope *sc, size_t i)
{
    const coax_member *m = &sc->obj->u.members[i], *hit = NULL;
    char *mk = coax_arena_alloc(lk->a, m->klen + 1);
    size_t ml = mk ? norm(m->key, m->klen, mk) : 0;
    if (ml) {
        for (size_t w = 0; w < COERCE_REPLACING_WORDS; w++) {
            size_t wl = strlen(coerce_replacing_words[w]);
            for (int end = 0; end < 2 && (end == 0 || wl); end++) {
                if (wl && (ml <= wl || memcmp(end ? mk + ml - wl : mk, coerce_replacing_words[w], wl))) continue;
                /* the name itself written another way only beside it: {"user": {"id": 5}, "id": 7} is two ids */
                const char *rest = end ? mk : mk + wl;
                hit = wl ? differing_near(lk, sc, rest, ml - wl, m, &m->value)
                         : differing(lk, &sc->self, rest, ml, m, &m->value);
                if (hit) return hit;
            }
        }
        if (m->value.type == COAX_OBJECT && correcting_name(mk, ml))
            for (size_t k = 0; k < m->value.len; k++) {
                const coax_member *c = &m->value.u.members[k];
                char *ck = coax_arena_alloc(lk->a, c->klen + 1);
                if (ck && norm(c->key, c->klen, ck) && (hit = differing_near(lk, sc, ck, strlen(ck), m, &c->value)))
                    return hit;
            }
    }
    if (m->value.type != COAX_STRING || !extract_remark_takes_back(m->value.u.text, m->value.len)) return NULL;
    naming nm = {lk, sc, m};
    return remark_words(m->value.u.text, m->value.len, named_member, &nm);
}

/* Whether k[0..n), a normalized name, is one the schema declares. */
static bool declared_norm(const look *lk, const char *k, size_t n)
{
    return n && smap_get(lk->normalized, k, n) != NULL;
}

/* remark_words' look for may_restate: the word is a declared name. */
static const void *declared_word(void *ctx, const char *w, size_t n)
{
    return declared_norm(ctx, w, n) ? ctx : NULL;
}

/* Whether member m, undeclared, may give a declared property another
** value (restated_by), by what the schema declares alone: its name, less a
** replacing word, is a declared one; it holds corrections; or it is a
** string naming a declared property. A cheap look before the object's
** names are indexed: most undeclared members are none of these. */
static bool may_restate(const look *lk, const coax_member *m)
{
    char mk[128];
    if (m->klen >= sizeof mk || !coerce_norm_key(m->key, m->klen, mk, sizeof mk)) return true; /* long: the full look */
    size_t ml = strlen(mk);
    if (m->value.type == COAX_OBJECT && correcting_name(mk, ml)) return true;
    for (size_t i = 0; i < COERCE_REPLACING_WORDS; i++) {
        size_t wl = strlen(coerce_replacing_words[i]);
        if (wl < ml && !memcmp(mk, coerce_replacing_words[i], wl) && declared_norm(lk, mk + wl, ml - wl)) return true;
        if (wl && wl < ml && !memcmp(mk + ml - wl, coerce_replacing_words[i], wl) && declared_norm(lk, mk, ml - wl))
            return true;
    }
    return m->value.type == COAX_STRING &&
           remark_words(m->value.u.text, m->value.len, declared_word, (void *)lk) != NULL;
}

/* Depth-first from place 'at': false once a restating member is found
** (lk->message set, its pointer in lk->path) or memory ran out (message
** NULL). */
static bool walk(look *lk, const coax_value *v, uint64_t seed, const extract_frame *at)
{
    if (v->type == COAX_ARRAY) {
        for (size_t i = 0; i < v->len; i++) {
            extract_frame item = {at, NULL, 0, i};
            if (!walk(lk, &v->u.items[i], seed, &item)) return false;
        }
        return true;
    }
    if (v->type != COAX_OBJECT) return true;
    bool undeclared = false; /* most objects: no member that may restate one, nothing to index */
    for (size_t i = 0; i < v->len && !undeclared; i++)
        undeclared = !declared(lk, v->u.members[i].key, v->u.members[i].klen) && may_restate(lk, &v->u.members[i]);
    coax_arena_mark am = undeclared ? coax_arena_get_mark(lk->a) : (coax_arena_mark){0};
    scope sc = {.obj = v};
    if (undeclared && !names_init(&sc.self, lk, v, false, seed)) return false;
    for (size_t i = 0; undeclared && i < v->len; i++) {
        const coax_member *m = &v->u.members[i], *p;
        if (declared(lk, m->key, m->klen) || !may_restate(lk, m) || !(p = restated_by(lk, &sc, i))) continue;
        coax_buf b;
        coax_buf_init(&b, coax_arena_allocator(lk->a));
        coax_buf_printf(&b, "the member \"%.*s\" gives \"%.*s\" another value (a correction kept beside it): "
                            "which one was meant is a guess; send one value",
                        (int)(m->klen > 40 ? 40 : m->klen), m->key, (int)(p->klen > 40 ? 40 : p->klen), p->key);
        lk->message = b.oom ? NULL : coax_arena_strdup(lk->a, b.data, b.len);
        coax_buf_free(&b);
        extract_frame member = {at, m->key, m->klen, 0};
        extract_put_pointer(&lk->path, &member);
        return false;
    }
    for (size_t i = 0; i < v->len; i++) {
        const coax_member *m = &v->u.members[i];
        extract_frame member = {at, m->key, m->klen, 0};
        if (!walk(lk, &m->value, seed, &member)) return false;
    }
    if (undeclared) coax_arena_rewind(lk->a, am); /* the indexes (a rewind is no cheap call) */
    return true;
}

coax_code extract_find_restated(coerce_ctx *c, const coax_value *v, const char **message, const char **pointer)
{
    *message = *pointer = NULL;
    /* the sets are built before the walk's arena marks */
    look lk = {c->arena, coerce_declared_names(c, false), coerce_declared_names(c, true), {0}, NULL};
    if (!lk.declared || !lk.normalized) return COAX_ENOMEM;
    coax_buf_init(&lk.path, coax_arena_allocator(c->arena));
    coax_code rc = COAX_OK;
    if (lk.declared->n && !walk(&lk, v, coerce_seed(c), NULL)) { /* none declared: no property to give a value */
        *pointer = lk.message && !lk.path.oom
                       ? coax_arena_strdup(c->arena, lk.path.data ? lk.path.data : "", lk.path.len)
                       : NULL;
        if (*pointer) *message = lk.message;
        else rc = COAX_ENOMEM;
    }
    coax_buf_free(&lk.path);
    return rc ? rc : *message ? COAX_OK : extract_find_null_text(c, v, message, pointer);
}
