/*
** coerce.c: recover values that are right in substance and wrong in form,
** in work linear in the candidate whatever its number of errors.
**
** A round validates the candidate once, asks coerce_trials.c what could fix
** each error, and applies the next untried trial of every error at once
** (copy-on-write: only the containers on a changed path are copied, each
** once). One more validation judges them all. A change is kept when no
** error is left at or under the place it replaced (a member edit: its own
** error is gone and nothing new appeared in the object), and no new error
** appeared at a place above it (a parent's oneOf, uniqueItems, contains,
** ... that the change broke: every change under that place is undone).
** Changes that fail are undone and try their next trial in the next round.
**
** Changes never nest within a round: a change at or above a planned place
** waits for the next round. A replacement whose own error is gone but
** leaves errors deeper inside it ({"hi": "a"} wrapped into [{"hi": "a"}]
** where "hi" must be an array) is kept provisionally: the next rounds may
** fix what is inside, and if anything is still wrong inside it at the end
** it is undone with everything done under it. So coercions compose.
**
** Cost: at most MAX_ROUNDS rounds of two validations, and per round work
** linear in the errors times their pointers' length. A replacement refused
** alone in its round is not tried again while the candidate has not changed:
** the same validation would refuse it, and errors at one place with as many
** keyword paths (a schema's oneOf of two references to the level below, 13
** levels, gives "5" 16,383) each proposed it again, a round each (2.4 s
** where the validation took 6 ms; attack round 18). No coercion is made at
** or inside a value a repair invented (COAX_VF_INVENTED).
*/
#include "extract/coerce.h"
#include "extract/coerce_map.h"
#include "base/bytes.h"
#include "base/hash.h"

#include <stdlib.h>

#define MAX_ROUNDS 24
/* Objects with more members than this get a hash index for lookups. */
#define INDEX_MIN 16

/* ---- the candidate being coerced --------------------------------------- */

enum { PLANNED, GOOD, BAD, PROVISIONAL };

typedef struct change {
    const coax_schema_error *e; /* the error it answers */
    char *at;                   /* where: the value replaced, or the object edited */
    size_t atlen;
    coerce_trial t;
    coax_value saved;           /* the value at 'at' before */
    int verdict;
} change;

typedef struct provisional {
    char *at;
    size_t atlen;
    const char *kind;
    coax_value saved;
    size_t logpos; /* its coercions and everything after it in the log */
    bool failed;
} provisional;

typedef struct job {
    coerce_ctx *c;
    coax_arena *a;
    coax_arena *scratch; /* what one round plans with, emptied after it */
    coax_value *root;  /* our copy of the candidate's root */
    hmap index;        /* members block -> hash index, for large objects */
    hmap tried;        /* (instanceLocation, keywordLocation) -> trials used */
    coax_buf tok;      /* a pointer token, unescaped */
    bool oom;          /* a lookup ran out of memory (not "not found") */
    provisional *prov;
    size_t nprov, cprov;
    hmap provs;        /* provisional places -> index + 1 */
    hmap refused;      /* (place, trial_text) of a replacement refused alone -> version + 1 then */
    uint32_t version;  /* rounds that kept a change: the candidate's state */
    coax_buf sig;      /* trial_text's buffer */
    /* The last replacement looked up in 'refused', within one plan: the
    ** errors of one place share their replacement (coerce_trials.c's read
    ** memo), and writing it for each would cost its length an error. */
    const coax_value *seen_value;
    const char *seen_at;
    size_t seen_atlen;
    unsigned seen_plan;
    const hent *seen;
} job;

/* A replacement's value as text, in j->sig: two of one text at one place
** make the same candidate, judged alike whatever error they answer (a member
** edit's verdict reads its own error: not compared so). False when out of
** memory. */
static bool trial_text(job *j, const coerce_trial *t)
{
    j->sig.len = 0;
    return coax_write_buf(&j->sig, t->value, 0) == COAX_OK && !j->sig.oom;
}

/* The member of 'obj' named key[0..n): a hash index for large objects
** (built once per members block), so resolving many pointers into one
** object stays linear. */
static coax_member *find_member(job *j, const coax_value *obj, const char *key, size_t n)
{
    if (obj->len <= INDEX_MIN) {
        for (size_t i = 0; i < obj->len; i++)
            if (obj->u.members[i].klen == n && !memcmp(obj->u.members[i].key, key, n)) return &obj->u.members[i];
        return NULL;
    }
    const void *blk = obj->u.members;
    uint32_t bh = hash2(&j->index, (const char *)&blk, sizeof blk, NULL, 0);
    hent *x = hmap_find(&j->index, (const char *)&blk, sizeof blk, NULL, 0, bh);
    size_t cap = 16;
    while (cap < (size_t)obj->len * 2) cap *= 2;
    uint32_t *slots;
    if (x) {
        slots = (uint32_t *)(uintptr_t)x->val;
    } else {
        const void **k = coax_arena_alloc(j->a, sizeof *k);
        slots = coax_arena_alloc(j->a, cap * sizeof *slots);
        if (!k || !slots) {
            j->oom = true;
            return NULL;
        }
        memset(slots, 0, cap * sizeof *slots);
        for (uint32_t i = 0; i < obj->len; i++) {
            const coax_member *m = &obj->u.members[i];
            size_t s = (size_t)hash2(&j->index, m->key, m->klen, NULL, 0) & (cap - 1);
            while (slots[s]) s = (s + 1) & (cap - 1);
            slots[s] = i + 1;
        }
        *k = blk;
        if (!(x = hmap_put(&j->index, (const char *)k, sizeof *k, NULL, 0, bh))) {
            j->oom = true;
            return NULL;
        }
        x->val = (size_t)(uintptr_t)slots;
    }
    for (size_t s = (size_t)hash2(&j->index, key, n, NULL, 0) & (cap - 1); slots[s]; s = (s + 1) & (cap - 1)) {
        coax_member *m = &obj->u.members[slots[s] - 1];
        if (m->klen == n && !memcmp(m->key, key, n)) return m; /* the first of duplicates is not kept: keys are unique */
    }
    return NULL;
}

/* Resolves 'loc' in the job's root. With 'own', every container block on
** the way that the job did not copy yet is copied first, so '*slot' may be
** written. Sets '*up' to the container holding the value (NULL at the
** root) and '*invented' when a value on the way carries COAX_VF_INVENTED.
** Returns false when the pointer does not resolve or memory ran out. */
static bool walk(job *j, const char *loc, size_t len, bool own, coax_value **slot, coax_value **up, bool *invented)
{
    coax_value *cur = j->root, *parent = NULL;
    bool inv = cur->flags & COAX_VF_INVENTED;
    size_t i = 0;
    while (i < len) {
        if (loc[i] != '/') return false;
        const char *t = loc + i + 1, *end = memchr(t, '/', len - i - 1);
        size_t tn = end ? (size_t)(end - t) : len - i - 1;
        i += 1 + tn;
        if (memchr(t, '~', tn)) { /* escaped: unescaped into j->tok (a key is read in place otherwise) */
            j->tok.len = 0;
            for (size_t k = 0; k < tn; k++) {
                char ch = t[k];
                if (ch == '~' && k + 1 < tn) ch = t[++k] == '1' ? '/' : '~';
                coax_buf_putc(&j->tok, ch);
            }
            if (j->tok.oom) {
                j->oom = true;
                return false;
            }
            t = j->tok.data ? j->tok.data : "";
            tn = j->tok.len;
        }
        bool arr = cur->type == COAX_ARRAY;
        if (!arr && cur->type != COAX_OBJECT) return false;
        if (own && cur->len && !(cur->flags & COAX_VF_COERCE_OWNED)) {
            void *blk = arr ? (void *)cur->u.items : (void *)cur->u.members;
            size_t size = cur->len * (arr ? sizeof(coax_value) : sizeof(coax_member));
            void *copy = coax_arena_alloc(j->a, size);
            if (!copy) {
                j->oom = true;
                return false;
            }
            memcpy(copy, blk, size);
            if (arr) cur->u.items = copy;
            else cur->u.members = copy;
            cur->flags |= COAX_VF_COERCE_OWNED;
        }
        coax_value *next;
        if (arr) {
            size_t v = 0;
            bool ok = tn > 0 && (tn == 1 || t[0] != '0');
            for (size_t k = 0; ok && k < tn; k++) {
                ok = t[k] >= '0' && t[k] <= '9' && v < SIZE_MAX / 16;
                v = v * 10 + (size_t)(t[k] - '0');
            }
            if (!ok || v >= cur->len) return false;
            next = &cur->u.items[v];
        } else {
            coax_member *m = find_member(j, cur, t, tn);
            if (!m) return false;
            next = &m->value;
        }
        parent = cur;
        cur = next;
        inv = inv || (cur->flags & COAX_VF_INVENTED);
    }
    *slot = cur;
    *up = parent;
    *invented = inv;
    return true;
}

/* The first edit after 'after' (SIZE_MAX: from the start) that names the
** member key[0..klen), through the index of edits by key when there is one. */
static size_t next_edit(const coerce_trial *t, const hmap *index, const size_t *chain, const char *key,
                        size_t klen, size_t after)
{
    size_t k = after == SIZE_MAX ? 0 : after + 1;
    if (index) {
        hent *x = hmap_find(index, key, klen, NULL, 0, hash2(index, key, klen, NULL, 0));
        for (k = x ? x->val - 1 : SIZE_MAX; k != SIZE_MAX && after != SIZE_MAX && k <= after; k = chain[k]) {}
        return k;
    }
    for (; k < t->nedits; k++) {
        const medit *d = &t->edits[k];
        if (d->op != MEDIT_ADD && d->klen == klen && !memcmp(d->key, key, klen)) return k;
    }
    return SIZE_MAX;
}

/* Applies member edits to the object in 'slot': a new members block. Each
** member takes the edits that name it, in order (a rename's later edits
** name the new key); many edits are indexed by key, so dropping every
** member of a large object stays linear. */
static bool apply_edits(job *j, coax_value *slot, const coerce_trial *t)
{
    size_t adds = 0;
    for (size_t i = 0; i < t->nedits; i++) adds += t->edits[i].op == MEDIT_ADD;
    coax_member *m = coax_arena_alloc(j->a, (slot->len + adds) * sizeof *m + 1);
    if (!m) return false;
    hmap index, *ix = NULL;
    size_t *chain = NULL; /* the next edit with the same key, SIZE_MAX: none */
    if (t->nedits > INDEX_MIN) {
        chain = coax_arena_alloc(j->scratch, t->nedits * sizeof *chain);
        if (!chain || !hmap_init(&index, j->scratch, t->nedits)) return false;
        ix = &index;
        for (size_t k = t->nedits; k-- > 0;) { /* backwards: each key's entry ends at its first edit */
            const medit *d = &t->edits[k];
            chain[k] = SIZE_MAX;
            if (d->op == MEDIT_ADD) continue;
            hent *x = hmap_put(ix, d->key, d->klen, NULL, 0, hash2(ix, d->key, d->klen, NULL, 0));
            if (!x) return false;
            chain[k] = x->val ? x->val - 1 : SIZE_MAX;
            x->val = k + 1;
        }
    }
    size_t n = 0;
    for (size_t i = 0; i < slot->len; i++) {
        coax_member x = slot->u.members[i];
        bool drop = false;
        for (size_t k = next_edit(t, ix, chain, x.key, x.klen, SIZE_MAX); k != SIZE_MAX;
             k = next_edit(t, ix, chain, x.key, x.klen, k)) {
            const medit *d = &t->edits[k];
            if (d->op == MEDIT_DROP) drop = true;
            else if (!(x.key = coax_arena_strdup(j->a, d->to, d->tolen))) return false;
            else x.klen = (uint32_t)d->tolen;
        }
        if (!drop) m[n++] = x;
    }
    for (size_t k = 0; k < t->nedits; k++) {
        const medit *d = &t->edits[k];
        if (d->op != MEDIT_ADD) continue;
        char *key = coax_arena_strdup(j->a, d->key, d->klen);
        if (!key) return false;
        m[n++] = (coax_member){key, (uint32_t)d->klen, *d->value};
    }
    slot->u.members = m;
    slot->len = (uint32_t)n;
    slot->flags |= COAX_VF_COERCE_OWNED;
    return true;
}

/* ---- one round ------------------------------------------------------------ */

typedef struct round {
    change *ch;
    size_t n;
    hmap where;  /* change places (and member places an edit wrote) -> index + 1 (| TOUCHED) */
    hmap above;  /* every proper prefix of a change place */
    hmap *tried; /* the job's: entries seen this round are the errors before it */
    uint32_t id; /* the round's number, from 1 */
    change **sorted; /* the changes by place */
} round;

#define TOUCHED ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* The deepest prefix of loc[0..len) (itself included) that ends before a
** '/' or at the end, in 'm' (a map of hash_loc), or NULL. */
static hent *deepest_prefix(const hmap *m, const char *loc, size_t len)
{
    hent *best = NULL;
    prefix_walk w = prefix_walk_at(m, loc, len);
    for (hent *x; (x = prefix_walk_next(m, &w));) best = x;
    return best;
}

/* Puts every proper prefix of at[0..len) (len > 0) in r->above, the root
** "" too. The prefixes' hashes come from one pass (hash_loc's chain);
** they go in longest first, and a prefix found there already ends it: the
** prefix was put with all of its own, by the change it came from. Each
** hashed and compared from scratch was a change's depth times its
** location's length, cubic on a deep reply with long keys. */
static bool mark_above(round *r, coax_arena *a, const char *at, size_t len)
{
    size_t cuts = 0; /* "" and the place of every '/' after the first byte */
    for (size_t k = 0; k < len; k = loc_cut(at, k, len)) cuts++;
    struct cut { size_t at; uint32_t h; } *cut = coax_arena_alloc(a, cuts * sizeof *cut);
    if (!cut) return false;
    uint64_t h = loc_start(&r->above);
    size_t n = 0;
    for (size_t k = 0, e; k < len; k = e) {
        cut[n++] = (struct cut){k, hfold(&r->above, h)};
        h = loc_step(&r->above, h, at + k, (e = loc_cut(at, k, len)) - k);
    }
    while (n--) {
        size_t before = r->above.n;
        if (!hmap_put(&r->above, at, cut[n].at, NULL, 0, cut[n].h)) return false;
        if (r->above.n == before) break; /* there already, with all it begins with */
    }
    return true;
}

static const char *member_place(coax_arena *a, const char *at, size_t atlen, const char *key, size_t klen,
                                size_t *len)
{
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(a));
    coax_buf_put(&b, at, atlen);
    extract_put_token(&b, key, klen);
    char *p = b.oom ? NULL : coax_arena_strdup(a, b.data, b.len);
    *len = b.len;
    coax_buf_free(&b);
    return p;
}

static bool is_under(const char *loc, size_t len, const char *at, size_t atlen)
{
    return len >= atlen && !memcmp(loc, at, atlen) && (len == atlen || loc[atlen] == '/');
}

/* Whether a change at loc[0..len) would be at, above or under a planned
** one: it waits for the next round. (Checked first at the error's place,
** before any trial is built: a change at the error's object nests exactly
** when one at the error's place would.) */
static bool nests(const round *r, const char *loc, size_t len)
{
    return deepest_prefix(&r->where, loc, len) || hmap_find(&r->above, loc, len, NULL, 0, hash_loc(&r->above, loc, len));
}

/* Whether a trial of 'kind' at at[0..len) wraps in an array the value a
** provisional change just wrapped: composing coercions never nests arrays
** ("a" is not [["a"]]). */
static bool rewraps(const job *j, const char *kind, const char *at, size_t len)
{
    if (!kind || strcmp(kind, "wrap_in_array") || len < 2 || memcmp(at + len - 2, "/0", 2)) return false;
    hent *x = hmap_find(&j->provs, at, len - 2, NULL, 0, hash2(&j->provs, at, len - 2, NULL, 0));
    return x && !strcmp(j->prov[x->val - 1].kind, "wrap_in_array");
}

/* Whether error 'ce' is under a union branch 'hopeless' holds. */
static bool in_hopeless_branch(const hmap *hopeless, const coerce_error *ce)
{
    const char *kl = ce->e->keyword_location;
    return ce->u.pl && hmap_find(hopeless, kl, ce->u.bl, NULL, 0, hash2(hopeless, kl, ce->u.bl, NULL, 0)) != NULL;
}

/* Per place and union: the first branch with a replacement, its value, and
** whether another branch has a different one. */
typedef struct union_seen {
    size_t branch;
    const coerce_trial *trial;
    const medit *same; /* edits found the same change: an object's n errors share theirs, compared once */
    bool ambiguous;
} union_seen;

/* Whether two branches' first trials at one place make one change: equal
** replacements, or the same edits of the same members, a member added
** with equal values (1: a default of 1 and one of 2 are two readings); 0
** if not, -1 out of memory. */
static int same_change(coax_arena *a, const coerce_trial *x, const coerce_trial *y)
{
    if (x->value && y->value) return coax_value_equal(x->value, y->value, coax_arena_allocator(a));
    if (x->value || y->value || x->nedits != y->nedits) return 0;
    for (size_t k = 0; k < x->nedits; k++) {
        const medit *d = &x->edits[k], *f = &y->edits[k];
        if (d->op != f->op || d->klen != f->klen || memcmp(d->key, f->key, d->klen) || d->tolen != f->tolen ||
            (d->tolen && memcmp(d->to, f->to, d->tolen)))
            return 0;
        int eq = d->op == MEDIT_ADD ? coax_value_equal(d->value, f->value, coax_arena_allocator(a)) : 1;
        if (eq != 1) return eq;
    }
    return 1;
}

/* The place of the last '/' in s[0..n), or 0 when there is none: a token
** can be kilobytes, so 8 bytes a step (word_eq). */
static size_t last_slash(const char *s, size_t n)
{
    for (; n >= 8; n -= 8) {
        uint64_t w;
        memcpy(&w, s + n - 8, 8);
        if (word_eq(w, '/')) break;
    }
    while (n && s[--n] != '/') {}
    return n;
}

/* How many levels above an error's place its branch's claim reaches (the
** claims are a bounded cost an error, however deep the place). */
#define CLAIM_LEVELS 8

/* Records in 'claims' that the branch of error 'ce' (under its union)
** read the value at its place, and those
** above it, as its own kind of value: it failed there for what the value
** holds (a bound, a member, an item), not for its "type", "enum" or
** "const" (a branch naming its values claims none), and it failed for good
** nowhere but there or inside ('d', coerce_place_within). Each key, a place and a
** union, to its branch + 1, or SIZE_MAX for several. In 'reads' the same
** for any error but one rejecting the name (coerce_rejects_name): the branches
** that take the member or item there, for what it holds, or for its type. */
static bool claim(hmap *claims, hmap *reads, const coerce_error *ce, const coerce_place *d)
{
    const char *kl = ce->e->keyword_location, *at = ce->e->instance_location, *kw = strrchr(kl, '/');
    size_t len = ce->ll, pl = ce->u.pl;
    bool own = !strcmp(kw, "/type") || !strcmp(kw, "/enum") || !strcmp(kw, "/const");
    if (coerce_rejects_name(kl + pl)) return true;
    for (int level = 0; level < CLAIM_LEVELS; level++) {
        for (int m = 0; m < 2 && coerce_place_within(d, at, len); m++) {
            hmap *map = m ? reads : claims;
            if (!m && !level && own) continue;
            hent *h = hmap_put(map, at, len, kl, pl, hash2(map, at, len, kl, pl));
            if (!h) return false;
            h->val = !h->val || h->val == ce->u.branch ? ce->u.branch : SIZE_MAX;
        }
        if (!len) break;
        len = last_slash(at, len);
    }
    return true;
}

/* Whether another branch of the union error 'e' is under read the value x
** at e's place as written (claim), while e's trial 'to' makes it another
** kind of value: {"x": {"a": 150}} past a branch's "maximum": 100 for
** x.a is no string "150" for the other branch's x.a; which branch the
** reply meant is a guess (coerce_union_claims tells it from the schema
** for a branch's own keyword; here the other branch's errors tell it at
** any depth). */
static bool claimed_elsewhere(const hmap *claims, const coerce_error *ce, const coax_value *x, const coax_value *to)
{
    const char *at = ce->e->instance_location, *kl = ce->e->keyword_location;
    if (!ce->u.pl || !to || to->type == x->type) return false;
    hent *h = hmap_find(claims, at, ce->ll, kl, ce->u.pl, hash2(claims, at, ce->ll, kl, ce->u.pl));
    return h && h->val != ce->u.branch;
}

/* Whether trial t of the union error 'ce', editing the
** object at at[0..atlen), drops a member that another branch of that
** union reads ('reads', claim): {"a": 1} for a closed object of "b" or an
** object whose "a" is a string is no {} (the member dropped) but, if
** anything, {"a": "1"}. -1 out of memory. */
static int dropped_read(coax_arena *a, const hmap *reads, const coerce_error *ce, const coerce_trial *t,
                        const char *at, size_t atlen)
{
    for (size_t k = 0; k < t->nedits; k++) {
        const medit *d = &t->edits[k];
        size_t ml;
        if (d->op != MEDIT_DROP) continue;
        const char *m = member_place(a, at, atlen, d->key, d->klen, &ml);
        if (!m) return -1;
        const char *kl = ce->e->keyword_location;
        hent *h = hmap_find(reads, m, ml, kl, ce->u.pl, hash2(reads, m, ml, kl, ce->u.pl));
        if (h && h->val != ce->u.branch) return 1;
    }
    return 0;
}

/* Marks in 'amb' the places where two branches of one union each have a
** change, different ones ("5" for a number or a list of strings: 5 or
** ["5"]; "Ab" for const "AB" or enum ["ab"]; {"n": 1, "m": 2} for closed
** objects of n or of m: m dropped or n dropped): which branch the reply
** meant is a guess, so neither is tried and the error stays. A member edit
** is marked at its object's place, a replacement at the error's. Puts in
** 'hopeless' the branches with an error no trial may fix: no member edit
** of theirs is a reading (their default filled in would let another
** branch pass with a value that branch does not give). Puts in 'claims'
** what each branch read as written (claim). Sets trials[i] to error i's
** trials when it is under a union (NULL: none built), for plan to use. */
static coax_code mark_unions(job *j, const coerce_error *errs, size_t nerrors, coerce_trials **trials, hmap *amb,
                             hmap *hopeless, hmap *claims)
{
    hmap reads, checked, deadm; /* deadm: a branch's trial-less errors' common place, per place of its union */
    /* Only the errors under a union are read here, and an extraction's
    ** errors are mostly not (73,602 of 73,602 in bench/extract/big.sh):
    ** a coerce_trials for each error would be 350 bytes an error. */
    size_t nu = 0;
    for (size_t i = 0; i < nerrors; i++) nu += errs[i].u.pl != 0;
    if (!hmap_init(amb, j->scratch, nu) || !hmap_init(hopeless, j->scratch, nu) || !hmap_init(claims, j->scratch, nu) ||
        !hmap_init(&reads, j->scratch, nu) || !hmap_init(&checked, j->scratch, nu) ||
        !hmap_init(&deadm, j->scratch, nu))
        return COAX_ENOMEM;
    if (!nu) return COAX_OK;
    union_seen *seen = coax_arena_alloc(j->scratch, nu * sizeof *seen);
    coerce_trials *tried = coax_arena_alloc(j->scratch, nu * sizeof *tried);
    const coerce_error **under = coax_arena_alloc(j->scratch, nu * sizeof *under);
    coerce_place *dead = coax_arena_alloc(j->scratch, nu * sizeof *dead); /* per branch and place in 'deadm' */
    if (!seen || !tried || !under || !dead) return COAX_ENOMEM;
    size_t ndead = 0;
    for (size_t i = 0, u = 0; i < nerrors; i++) {
        const coerce_error *ce = &errs[i];
        const char *at = ce->e->instance_location, *kl = ce->e->keyword_location;
        coax_value *x, *up;
        bool invented;
        if (!ce->u.pl) continue;
        under[u] = ce;
        tried[u].n = 0;
        if (!walk(j, at, ce->ll, false, &x, &up, &invented) || invented) {
            if (j->oom) return COAX_ENOMEM;
            u++;
            continue;
        }
        coerce_make_trials(j->c, x, up, ce, &tried[u]);
        trials[i] = &tried[u];
        if (tried[u++].n) continue;
        hent *h = hmap_put(hopeless, kl, ce->u.bl, NULL, 0, hash2(hopeless, kl, ce->u.bl, NULL, 0));
        hent *dh = h ? hmap_put(&deadm, kl, ce->u.bl, at, ce->ul, hash2(&deadm, kl, ce->u.bl, at, ce->ul)) : NULL;
        if (!dh) return COAX_ENOMEM;
        if (!dh->val) dead[(dh->val = ++ndead) - 1] = (coerce_place){NULL, 0};
        coerce_place_narrow(&dead[dh->val - 1], at, ce->ll);
    }
    size_t n = 0;
    for (size_t k = 0; k < nu; k++) { /* what each branch claims and reads, once all its errors are known */
        const coerce_error *ce = under[k];
        const char *at = ce->e->instance_location, *kl = ce->e->keyword_location;
        hent *d = hmap_find(&deadm, kl, ce->u.bl, at, ce->ul, hash2(&deadm, kl, ce->u.bl, at, ce->ul));
        if (!claim(claims, &reads, ce, d ? &dead[d->val - 1] : NULL)) return COAX_ENOMEM;
    }
    for (size_t k = 0; k < nu; k++) {
        const coerce_error *ce = under[k];
        const coerce_trials *ts = &tried[k];
        coerce_union_at un = ce->u;
        const char *kl = ce->e->keyword_location;
        if (!ts->n || (ts->t[0].value ? ts->atlen != ce->ll : !ts->t[0].nedits)) continue;
        if (!ts->t[0].value && in_hopeless_branch(hopeless, ce)) continue;
        hent *h = hmap_put(amb, ts->at, ts->atlen, kl, un.pl, hash2(amb, ts->at, ts->atlen, kl, un.pl));
        if (!h) return COAX_ENOMEM;
        bool first = !h->val;
        if (first) {
            seen[n] = (union_seen){un.branch, &ts->t[0], NULL, false};
            h->val = ++n;
        }
        union_seen *u = &seen[h->val - 1];
        /* an object's n errors share their edits (the memo): each is read once */
        const char *key = (const char *)&tried[k].t[0].edits;
        hent *c = ts->t[0].nedits ? hmap_put(&checked, key, sizeof ts->t[0].edits, NULL, 0,
                                             hash2(&checked, key, sizeof ts->t[0].edits, NULL, 0))
                                  : NULL;
        if (ts->t[0].nedits && !c) return COAX_ENOMEM;
        if (c && !c->val++) {
            int read = dropped_read(j->scratch, &reads, ce, &ts->t[0], ts->at, ts->atlen);
            if (read < 0) return COAX_ENOMEM;
            u->ambiguous = u->ambiguous || read; /* another branch reads what this one drops: a guess */
        }
        if (first) continue;
        if (u->ambiguous || u->branch == un.branch || (ts->t[0].nedits && ts->t[0].edits == u->same)) continue;
        int eq = same_change(j->scratch, u->trial, &ts->t[0]);
        if (eq < 0) return COAX_ENOMEM;
        u->ambiguous = !eq;
        if (eq) u->same = ts->t[0].edits;
    }
    for (size_t i = 0; i < amb->cap; i++) /* only the ambiguous places stay marked */
        if (amb->e[i].val && !seen[amb->e[i].val - 1].ambiguous) amb->e[i].val = SIZE_MAX;
    return COAX_OK;
}

/* Whether error 'ce', with a change at at[0..ll), is under a union 'amb'
** marks there. */
static bool in_ambiguous_union(const hmap *amb, const coerce_error *ce, const char *at, size_t ll)
{
    const char *kl = ce->e->keyword_location;
    if (!ce->u.pl) return false;
    hent *h = hmap_find(amb, at, ll, kl, ce->u.pl, hash2(amb, at, ll, kl, ce->u.pl));
    return h && h->val != SIZE_MAX;
}

/* Plans one change per error that has a trial left and does not nest with
** another planned change. */
static coax_code plan(job *j, const coax_validation *val, round *r)
{
    coax_arena *a = j->scratch;
    r->n = 0;
    j->c->plan_id++; /* the instance may have changed: trials built before are stale */
    r->ch = coax_arena_alloc(a, val->nerrors * sizeof *r->ch + 1);
    if (!r->ch || !hmap_init(&r->where, a, val->nerrors) || !hmap_init(&r->above, a, val->nerrors))
        return COAX_ENOMEM;
    coerce_error *errs = coax_arena_alloc(a, val->nerrors * sizeof *errs + 1);
    coerce_trials **trials = coax_arena_alloc(a, val->nerrors * sizeof *trials + 1);
    if (!errs || !trials) return COAX_ENOMEM;
    for (size_t i = 0; i < val->nerrors; i++) {
        coerce_error_read(&errs[i], &val->errors[i]);
        trials[i] = NULL;
    }
    hmap amb, hopeless, claims;
    coax_code rc = mark_unions(j, errs, val->nerrors, trials, &amb, &hopeless, &claims);
    if (rc) return rc;
    for (size_t i = 0; i < val->nerrors; i++) {
        const coerce_error *ce = &errs[i];
        const coax_schema_error *e = ce->e;
        size_t ll = ce->ll, kl = ce->kl;
        uint32_t h = hash2(&j->tried, e->instance_location, ll, e->keyword_location, kl);
        hent *used = hmap_put(&j->tried, e->instance_location, ll, e->keyword_location, kl, h);
        if (!used) return COAX_ENOMEM;
        used->round = r->id;
        if (used->val >= COERCE_MAX_TRIALS || nests(r, e->instance_location, ll)) continue;
        if (in_ambiguous_union(&amb, ce, e->instance_location, ll)) {
            used->val = COERCE_MAX_TRIALS;
            continue;
        }
        coax_value *x, *up;
        bool invented;
        if (!walk(j, e->instance_location, ll, false, &x, &up, &invented) || invented) {
            if (j->oom) return COAX_ENOMEM;
            used->val = COERCE_MAX_TRIALS;
            continue;
        }
        coerce_trials ts;
        if (trials[i]) ts = *trials[i]; /* mark_unions built them, on this candidate */
        else coerce_make_trials(j->c, x, up, ce, &ts);
        if (used->val >= ts.n ||
            (!ts.t[used->val].value && (in_ambiguous_union(&amb, ce, ts.at, ts.atlen) ||
                                        in_hopeless_branch(&hopeless, ce))) ||
            claimed_elsewhere(&claims, ce, x, ts.t[used->val].value)) {
            used->val = COERCE_MAX_TRIALS;
            continue;
        }
        if (nests(r, ts.at, ts.atlen)) continue;
        if (rewraps(j, ts.t[used->val].kind, ts.at, ts.atlen)) {
            used->val++; /* this trial is not tried: the next one may be */
            continue;
        }
        const coax_value *tv = ts.t[used->val].value;
        if (j->refused.n && tv) { /* refused alone in this state: as good as tried */
            if (j->seen_value != tv || j->seen_plan != j->c->plan_id || j->seen_atlen != ts.atlen ||
                memcmp(j->seen_at, ts.at, ts.atlen)) {
                if (!trial_text(j, &ts.t[used->val])) return COAX_ENOMEM;
                j->seen = hmap_find(&j->refused, ts.at, ts.atlen, j->sig.data, j->sig.len,
                                    hash2(&j->refused, ts.at, ts.atlen, j->sig.data, j->sig.len));
                j->seen_value = tv, j->seen_plan = j->c->plan_id, j->seen_at = ts.at, j->seen_atlen = ts.atlen;
            }
            if (j->seen && j->seen->val == j->version + 1u) {
                used->val++;
                continue;
            }
        }
        change *c = &r->ch[r->n];
        *c = (change){e, coax_arena_strdup(a, ts.at, ts.atlen), ts.atlen, ts.t[used->val], {0}, PLANNED};
        if (!c->at) return COAX_ENOMEM;
        used->val++;
        hent *w = hmap_put(&r->where, c->at, c->atlen, NULL, 0, hash_loc(&r->where, c->at, c->atlen));
        if (!w) return COAX_ENOMEM;
        w->val = ++r->n;
        for (size_t k = 0; k < c->t.nedits; k++) { /* the places an edit writes */
            const medit *d = &c->t.edits[k];
            if (d->op == MEDIT_DROP) continue;
            size_t pl;
            const char *p = member_place(a, c->at, c->atlen, d->op == MEDIT_RENAME ? d->to : d->key,
                                         d->op == MEDIT_RENAME ? d->tolen : d->klen, &pl);
            if (!p || !(w = hmap_put(&r->where, p, pl, NULL, 0, hash_loc(&r->where, p, pl)))) return COAX_ENOMEM;
            w->val = r->n | TOUCHED;
        }
        if (c->atlen && !mark_above(r, a, c->at, c->atlen)) return COAX_ENOMEM;
    }
    return COAX_OK;
}

static int by_place(const void *x, const void *y)
{
    const change *a = *(const change *const *)x, *b = *(const change *const *)y;
    size_t n = a->atlen < b->atlen ? a->atlen : b->atlen;
    int c = memcmp(a->at, b->at, n);
    return c ? c : (a->atlen > b->atlen) - (a->atlen < b->atlen);
}

/* Marks BAD every change at or under loc[0..len). */
static void blame(round *r, const char *loc, size_t len)
{
    size_t lo = 0, hi = r->n; /* the first place >= loc */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const change *c = r->sorted[mid];
        size_t n = c->atlen < len ? c->atlen : len;
        int cmp = memcmp(c->at, loc, n);
        if (cmp < 0 || (cmp == 0 && c->atlen < len)) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < r->n; i++) {
        change *c = r->sorted[i];
        if (c->atlen < len || memcmp(c->at, loc, len)) break;
        if (is_under(c->at, c->atlen, loc, len)) c->verdict = BAD;
    }
}

/* Judges every planned change by the validation of the candidate with
** all of them applied. */
static void judge(round *r, const coax_validation *after)
{
    for (size_t i = 0; i < after->nerrors; i++) {
        const coax_schema_error *f = &after->errors[i];
        size_t ll = strlen(f->instance_location), kl = strlen(f->keyword_location);
        hent *seen = hmap_find(r->tried, f->instance_location, ll, f->keyword_location, kl,
                               hash2(r->tried, f->instance_location, ll, f->keyword_location, kl));
        bool fresh = !seen || seen->round != r->id;
        hent *w = deepest_prefix(&r->where, f->instance_location, ll);
        if (!w) {
            if (fresh) blame(r, f->instance_location, ll);
            continue;
        }
        change *c = &r->ch[(w->val & ~TOUCHED) - 1];
        if (c->verdict == BAD) continue;
        bool at_place = ll == c->atlen;
        if (c->t.value) { /* a replacement: errors deeper inside may be fixed later */
            c->verdict = at_place ? BAD : PROVISIONAL;
        } else if (!strcmp(f->instance_location, c->e->instance_location) &&
                   !strcmp(f->keyword_location, c->e->keyword_location)) {
            c->verdict = BAD; /* the member edit did not fix its error */
        } else if (fresh) {
            c->verdict = (w->val & TOUCHED) && !at_place ? PROVISIONAL : BAD;
        }
    }
}

static coax_code log_change(job *j, const change *c)
{
    coerce_ctx *cc = j->c;
    if (c->t.value) return coerce_log(cc, c->t.kind, c->t.detail, c->at, c->atlen);
    for (size_t k = 0; k < c->t.nedits; k++) {
        const medit *d = &c->t.edits[k];
        size_t pl;
        const char *p = member_place(j->a, c->at, c->atlen, d->op == MEDIT_RENAME ? d->to : d->key,
                                     d->op == MEDIT_RENAME ? d->tolen : d->klen, &pl);
        coax_code rc = p ? coerce_log(cc, d->kind, d->detail, p, pl) : COAX_ENOMEM;
        if (rc) return rc;
    }
    return COAX_OK;
}

static coax_code keep_provisional(job *j, const change *c)
{
    if (j->nprov == j->cprov) {
        size_t cap = j->cprov ? j->cprov * 2 : 8;
        provisional *p = coax_arena_alloc(j->a, cap * sizeof *p);
        if (!p) return COAX_ENOMEM;
        if (j->nprov) memcpy(p, j->prov, j->nprov * sizeof *p);
        j->prov = p;
        j->cprov = cap;
    }
    char *at = coax_arena_strdup(j->a, c->at, c->atlen); /* the round's own memory goes */
    if (!at) return COAX_ENOMEM;
    j->prov[j->nprov++] = (provisional){at, c->atlen, c->t.kind, c->saved, j->c->n, false};
    hent *x = hmap_put(&j->provs, at, c->atlen, NULL, 0, hash2(&j->provs, at, c->atlen, NULL, 0));
    if (!x) return COAX_ENOMEM;
    x->val = j->nprov;
    return COAX_OK;
}

static coax_code undo(job *j, const char *at, size_t atlen, const coax_value *saved)
{
    coax_value *slot, *up;
    bool inv;
    if (!walk(j, at, atlen, true, &slot, &up, &inv)) return COAX_ENOMEM;
    *slot = *saved;
    return COAX_OK;
}

/* Files replacement c, refused alone in its round, under the candidate's state. */
static coax_code refuse(job *j, const change *c)
{
    if (!trial_text(j, &c->t)) return COAX_ENOMEM;
    char *at = coax_arena_strdup(j->a, c->at, c->atlen), *text = coax_arena_strdup(j->a, j->sig.data, j->sig.len);
    hent *x = at && text ? hmap_put(&j->refused, at, c->atlen, text, j->sig.len,
                                    hash2(&j->refused, at, c->atlen, text, j->sig.len))
                         : NULL;
    if (!x) return COAX_ENOMEM;
    x->val = j->version + 1u;
    return COAX_OK;
}

/* One round. Clears '*progress' when nothing was left to try. */
static coax_code run_round(job *j, coax_validation *val, uint32_t id, bool *progress)
{
    coerce_ctx *c = j->c;
    round r = {.tried = &j->tried, .id = id};
    coax_code rc = plan(j, val, &r);
    *progress = r.n > 0;
    if (rc || r.n == 0) return rc;
    r.sorted = coax_arena_alloc(j->scratch, r.n * sizeof *r.sorted);
    if (!r.sorted) return COAX_ENOMEM;
    for (size_t i = 0; i < r.n; i++) {
        change *ch = &r.ch[i];
        coax_value *slot, *up;
        bool inv;
        if (!walk(j, ch->at, ch->atlen, true, &slot, &up, &inv)) return COAX_ENOMEM;
        ch->saved = *slot;
        if (ch->t.value) *slot = *ch->t.value;
        else if (!apply_edits(j, slot, &ch->t)) return COAX_ENOMEM;
        r.sorted[i] = ch;
    }
    qsort(r.sorted, r.n, sizeof *r.sorted, by_place);
    coax_arena_mark mark = coax_arena_get_mark(j->a);
    coax_validation after;
    if ((rc = coax_validate(c->schema, j->root, j->a, 0, &after, c->err))) return rc;
    judge(&r, &after);
    bool bad = false;
    bool kept = false;
    for (size_t i = 0; i < r.n; i++) {
        if (r.ch[i].verdict == PLANNED) r.ch[i].verdict = GOOD;
        bad = bad || r.ch[i].verdict == BAD;
        kept = kept || r.ch[i].verdict != BAD;
    }
    if (bad) {
        coerce_rewind(c, mark); /* j->a is the context's arena */
        for (size_t i = r.n; i-- > 0;)
            if (r.ch[i].verdict == BAD && (rc = undo(j, r.ch[i].at, r.ch[i].atlen, &r.ch[i].saved))) return rc;
        if ((rc = coax_validate(c->schema, j->root, j->a, 0, &after, c->err))) return rc;
    }
    if (r.n == 1 && bad && r.ch[0].t.value && (rc = refuse(j, &r.ch[0]))) return rc; /* after the rewind */
    j->version += kept;
    for (size_t i = 0; i < r.n; i++) {
        const change *ch = &r.ch[i];
        if (ch->verdict == BAD) continue;
        if (ch->verdict == PROVISIONAL && (rc = keep_provisional(j, ch))) return rc;
        if ((rc = log_change(j, ch))) return rc;
    }
    *val = after;
    return COAX_OK;
}

/* Undoes every provisional change that still has an error at or under its
** place, with the coercions logged under it since. */
static coax_code settle(job *j, coax_validation *val)
{
    if (!j->nprov) return COAX_OK;
    hmap places;
    if (!hmap_init(&places, j->a, j->nprov)) return COAX_ENOMEM;
    for (size_t i = 0; i < j->nprov; i++) {
        hent *x = hmap_put(&places, j->prov[i].at, j->prov[i].atlen, NULL, 0, hash_loc(&places, j->prov[i].at, j->prov[i].atlen));
        if (!x) return COAX_ENOMEM;
        x->val = i + 1;
    }
    bool any = false;
    for (size_t i = 0; i < val->nerrors; i++) { /* every provisional place above an error fails */
        const char *loc = val->errors[i].instance_location;
        prefix_walk w = prefix_walk_at(&places, loc, strlen(loc));
        for (hent *x; (x = prefix_walk_next(&places, &w));) any = j->prov[x->val - 1].failed = true;
    }
    if (!any) return COAX_OK;
    coerce_ctx *c = j->c;
    for (size_t i = j->nprov; i-- > 0;) {
        provisional *p = &j->prov[i];
        if (!p->failed) continue;
        coax_code rc = undo(j, p->at, p->atlen, &p->saved);
        if (rc) return rc;
        size_t k = p->logpos;
        for (size_t s = p->logpos; s < c->n; s++)
            if (!is_under(c->log[s].pointer, strlen(c->log[s].pointer), p->at, p->atlen)) c->log[k++] = c->log[s];
        c->n = k;
    }
    return coax_validate(c->schema, j->root, j->a, 0, val, c->err);
}

/* Clears COAX_VF_COERCE_OWNED in the result: a later coercion of a part of
** it (an envelope's inner value) must copy before it writes. Visits only
** the containers this coercion copied. */
static coax_code disown(coax_arena *a, coax_value *root)
{
    size_t cap = 64, n = 0;
    coax_value **stack = coax_arena_alloc(a, cap * sizeof *stack);
    if (!stack) return COAX_ENOMEM;
    stack[n++] = root;
    while (n) {
        coax_value *v = stack[--n];
        if (!(v->flags & COAX_VF_COERCE_OWNED)) continue;
        v->flags &= (uint8_t)~COAX_VF_COERCE_OWNED;
        for (size_t i = 0; i < v->len; i++) {
            coax_value *kid = v->type == COAX_ARRAY ? &v->u.items[i] : &v->u.members[i].value;
            if (!(kid->flags & COAX_VF_COERCE_OWNED)) continue;
            if (n == cap) {
                coax_value **s = coax_arena_alloc(a, cap * 2 * sizeof *s);
                if (!s) return COAX_ENOMEM;
                memcpy(s, stack, n * sizeof *s);
                stack = s;
                cap *= 2;
            }
            stack[n++] = kid;
        }
    }
    return COAX_OK;
}

coax_code coerce_log(coerce_ctx *c, const char *kind, const char *detail, const char *pointer, size_t plen)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        coax_coercion *l = coax_arena_alloc(c->arena, cap * sizeof *l);
        if (!l) return COAX_ENOMEM;
        if (c->n) memcpy(l, c->log, c->n * sizeof *l);
        c->log = l;
        c->cap = cap;
    }
    char *p = coax_arena_strdup(c->arena, pointer, plen);
    if (!p) return COAX_ENOMEM;
    c->log[c->n++] = (coax_coercion){kind, p, detail, coerce_class(kind)};
    return COAX_OK;
}

coax_code coerce_candidate(coerce_ctx *c, const coax_value *v, const coax_value **out, coax_validation *val)
{
    coax_code rc = coax_validate(c->schema, v, c->arena, 0, val, c->err);
    *out = v;
    if (rc || val->valid) return rc;
    job j = {.c = c, .a = c->arena};
    coax_buf_init(&j.tok, coax_arena_allocator(c->arena));
    coax_buf_init(&j.sig, coax_arena_allocator(c->arena));
    j.root = coax_new_value(c->arena, COAX_NULL);
    if (!j.root || !hmap_init(&j.index, c->arena, 16) || !hmap_init(&j.provs, c->arena, 16) ||
        !hmap_init(&j.tried, c->arena, val->nerrors) || !hmap_init(&j.refused, c->arena, 16))
        rc = COAX_ENOMEM;
    else *j.root = *v;
    size_t logged = c->n;
    j.scratch = rc ? NULL : coax_arena_new(coax_arena_allocator(c->arena));
    if (!rc && !j.scratch) rc = COAX_ENOMEM;
    coax_arena_mark empty = j.scratch ? coax_arena_get_mark(j.scratch) : (coax_arena_mark){0};
    for (uint32_t round = 1; !rc && round <= MAX_ROUNDS && !val->valid; round++) {
        bool progress;
        rc = run_round(&j, val, round, &progress);
        coax_arena_rewind(j.scratch, empty);
        if (!progress) break;
    }
    coax_arena_free(j.scratch);
    if (!rc) rc = settle(&j, val);
    coax_buf_free(&j.tok);
    coax_buf_free(&j.sig);
    if (!rc) rc = disown(c->arena, j.root);
    if (!rc && c->n > logged) *out = j.root;
    return rc;
}
