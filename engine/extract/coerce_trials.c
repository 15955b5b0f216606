/*
** coerce_trials.c: what could fix one validation error, without guessing.
**
** The error's keywordLocation is resolved in the schema document (local
** "$ref"s are followed, anything else is not guessed at) and, for the
** keyword found, a few trial values are built. coerce.c decides which one passes.
**
** Coercions (class in coerce_class): numeric strings to number/integer,
** "true"/"false" to boolean, numbers to strings, integral floats to
** integers, a value to a one-element array and back, enum/const matching
** that ignores case and surrounding whitespace when exactly one allowed
** value matches, a missing required property from its schema's "default",
** a property name that differs from exactly one declared name only in case
** or surrounding spaces renamed to it, properties forbidden by
** "additionalProperties": false dropped. Never: words to numbers,
** rounding, clamping, invented values, and nothing done to a value a repair
** invented.
*/
#include "extract/coerce.h"
#include "base/hash.h"
#include "base/unicode_nfc.h"

#include <stdlib.h>

/* ---- the instance side --------------------------------------------------- */

static bool enum_index_has(coerce_ctx *c, const coax_value *kv, const char *s, size_t n, bool *known);

bool coerce_enum_holds(coerce_ctx *c, const coax_value *allowed, const char *s, size_t n)
{
    bool known = false, has = allowed && allowed->type == COAX_ARRAY && allowed->len > 16 &&
                                enum_index_has(c, allowed, s, n, &known);
    if (known) return has;
    for (size_t i = 0; allowed && allowed->type == COAX_ARRAY && i < allowed->len; i++) {
        const coax_value *y = &allowed->u.items[i];
        if (y->type == COAX_STRING && y->len == n && !memcmp(y->u.text, s, n)) return true;
    }
    return false;
}

/* Whether s[0..n) (trimmed) says there is nothing rather than naming
** one thing: "none", "N/A", "-", "[]" for a list is the empty list, not a
** list of that word. */
static bool says_nothing(const char *s, size_t n)
{
    static const char *const words[] = {"none",  "n/a", "na", "null",   "nil",   "nothing", "empty", "-",
                                        "--",    "\xE2\x80\x93", "\xE2\x80\x94", "[]", "(none)", "none.", "n/a."};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == n && coax_ascii_casesame(s, words[i], n)) return true;
    /* "no tags", "None found", "not applicable": a few words opening with a
    ** negation deny the list rather than name its one item */
    size_t words_in = 1;
    for (size_t i = 0; i < n; i++) words_in += s[i] == ' ';
    bool no = n > 3 && coax_ascii_casesame(s, "no ", 3), no_t = n > 4 && coax_ascii_casesame(s, "not ", 4);
    return words_in <= 3 && (no || no_t || (n > 5 && coax_ascii_casesame(s, "none ", 5)));
}

/* Whether s[0..n) joins items with a word: "red and blue", "A & B", or
** offers them as choices, "red or blue": two items or one is a guess. */
static bool joins_items(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if ((i + 5 <= n && coax_ascii_casesame(s + i, " and ", 5)) || !memcmp(s + i, " & ", 3) ||
            (i + 4 <= n && coax_ascii_casesame(s + i, " or ", 4)))
            return true;
    return false;
}

/* Whether 'x' reads as exactly one item of a list whose items' "enum" is
** 'allowed' (or NULL). null and an empty string are no item (wrapped they
** would be a list of one blank), and a string with a list separator in it
** ("urgent, billing", lines, "[\"a\", \"b\"]") may be one item or several:
** taking either is a guess, unless it is an allowed item and none of its
** pieces is ("New York, NY" among cities; not "a, b" where "a" is one). An
** object of two or more members, each an object or a list, is a map of
** records keyed by name or number: one item, or one per member? So is a
** number read with thousands separators ("n": 1,234: 1234, or 1 and 234?). */
static bool one_item(coerce_ctx *c, const coax_value *x, const coax_value *allowed)
{
    if (x->type == COAX_NULL || (x->type == COAX_NUMBER && (x->flags & COAX_VF_GROUPED))) return false;
    if (x->type == COAX_OBJECT && x->len >= 2) { /* {"ada": {...}, "bob": {...}}: records by name, one each? */
        size_t k = 0;
        while (k < x->len && (x->u.members[k].value.type == COAX_OBJECT || x->u.members[k].value.type == COAX_ARRAY))
            k++;
        return k < x->len;
    }
    if (x->type != COAX_STRING) return true;
    const char *s = x->u.text;
    size_t n = x->len;
    coerce_trim(&s, &n);
    bool listed = n && coerce_enum_holds(c, allowed, s, n);
    if (n == 0 || (s[0] == '[' && !listed)) return false;
    if (!listed && (says_nothing(s, n) || joins_items(s, n))) return false;
    for (size_t i = 0, from = 0; i <= n; i++) {
        if (i < n && !memchr(",;|\n\t", s[i], 5)) continue;
        if (i == n && from == 0) break; /* no separator */
        const char *p = s + from;
        size_t pn = i - from;
        coerce_trim(&p, &pn);
        if (!listed || coerce_enum_holds(c, allowed, p, pn)) return false;
        from = i + 1;
    }
    return true;
}

/* A new scalar value. */
static coax_value *scalar(coax_arena *a, coax_type type, const char *text, size_t len, int b)
{
    coax_value *v = coax_new_value(a, type);
    if (!v) return NULL;
    if (type == COAX_BOOL) v->u.boolean = b;
    else if (type == COAX_STRING && coax_set_string(a, v, text, len)) return NULL;
    else if (type == COAX_NUMBER && coax_set_number(a, v, text, len)) return NULL;
    return v;
}

/* 'x' converted to JSON type 't' ("integer", ...), or NULL when that would
** be a guess. 'kind' names the coercion. */
static coax_value *convert(coerce_ctx *c, const coax_value *x, const char *t, const coax_value *allowed,
                           const char **kind)
{
    coax_arena *a = c->arena;
    bool want_int = !strcmp(t, "integer"), want_num = want_int || !strcmp(t, "number");
    if (x->type == COAX_STRING && want_num) {
        const char *s = x->u.text;
        size_t n = x->len;
        coerce_trim(&s, &n);
        bool is_int;
        /* "1.500" in a string: 1.5, or 1500 with a dot that groups
        ** thousands? For a number as for an integer, neither is sure. */
        if (n == 0 || coax_number_span(s, n, &is_int) != n || coerce_dot_grouped(s, n)) return NULL;
        char buf[48];
        if (want_int) {
            if (!coerce_integral_text(s, n, buf, sizeof buf)) return NULL; /* no rounding */
            s = buf;
            n = strlen(buf);
        }
        *kind = want_int ? "string_to_integer" : "string_to_number";
        return scalar(a, COAX_NUMBER, s, n, 0);
    }
    if (x->type == COAX_STRING && !strcmp(t, "boolean")) {
        const char *s = x->u.text;
        size_t n = x->len;
        coerce_trim(&s, &n);
        int b = n == 4 && coax_ascii_casesame(s, "true", 4) ? 1 : n == 5 && coax_ascii_casesame(s, "false", 5) ? 0 : -1;
        if (b < 0) return NULL;
        *kind = "string_to_boolean";
        return scalar(a, COAX_BOOL, NULL, 0, b);
    }
    if (x->type == COAX_NUMBER && !strcmp(t, "string")) {
        if (x->flags & COAX_VF_REWRITTEN) return NULL; /* "+15551234567" is not "15551234567" */
        *kind = "number_to_string";
        return scalar(a, COAX_STRING, x->u.text, x->len, 0);
    }
    if (x->type == COAX_NUMBER && want_int && !(x->flags & COAX_VF_INT_TEXT)) {
        char buf[48];
        if (!coerce_integral_text(x->u.text, x->len, buf, sizeof buf)) return NULL;
        *kind = "float_to_integer";
        return scalar(a, COAX_NUMBER, buf, strlen(buf), 0);
    }
    if (!strcmp(t, "array") && x->type != COAX_ARRAY && one_item(c, x, allowed)) {
        coax_value *arr = coax_new_value(a, COAX_ARRAY);
        coax_value *item = coax_arena_alloc(a, sizeof *item);
        if (!arr || !item) return NULL;
        *item = *x;
        arr->len = 1;
        arr->u.items = item;
        *kind = "wrap_in_array";
        return arr;
    }
    if (x->type == COAX_ARRAY && x->len == 1 && strcmp(t, "array")) {
        const coax_value *inner = &x->u.items[0];
        /* {"name": [insert name here]}: a placeholder in brackets, or a list
        ** of one unquoted string? Unwrapped, the brackets' reading is hidden. */
        if (inner->type == COAX_STRING && (inner->flags & COAX_VF_UNQUOTED)) return NULL;
        const char *k2;
        coax_value *conv = NULL;
        if (!strcmp(coax_type_name((coax_type)inner->type), t) || (want_num && inner->type == COAX_NUMBER)) {
            conv = coax_new_value(a, COAX_NULL);
            if (conv) *conv = *inner;
        } else {
            conv = convert(c, inner, t, NULL, &k2);
        }
        *kind = "unwrap_array";
        return conv;
    }
    return NULL;
}

/* Out of memory reads as "not equal": no coercion, never a wrong one. */
static bool loose_equal(coax_arena *a, const char *x, size_t xn, const char *y, size_t yn)
{
    return coerce_loose_equal(a, x, xn, y, yn);
}

const coax_value *coerce_loose_match(coax_arena *a, const coax_value *x, const coax_value *allowed, size_t n)
{
    const coax_value *hit = NULL;
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        const coax_value *y = &allowed[i];
        bool m = false;
        if (x->type == COAX_STRING && y->type == COAX_STRING) {
            m = loose_equal(a, x->u.text, x->len, y->u.text, y->len);
        } else if (x->type == COAX_STRING && y->type == COAX_NUMBER) {
            const char *s = x->u.text;
            size_t sn = x->len;
            coerce_trim(&s, &sn);
            m = sn && coax_number_span(s, sn, NULL) == sn && !coerce_dot_grouped(s, sn) && /* "1.500": 1500? */
                coax_number_compare_text(s, sn, y->u.text, y->len) == 0;
        } else if (x->type == COAX_NUMBER && y->type == COAX_STRING) {
            m = loose_equal(a, x->u.text, x->len, y->u.text, y->len);
        } else if (x->type == COAX_STRING && (y->type == COAX_BOOL || y->type == COAX_NULL)) {
            const char *word = y->type == COAX_NULL ? "null" : y->u.boolean ? "true" : "false";
            m = loose_equal(a, x->u.text, x->len, word, strlen(word));
        }
        if (m) {
            hit = y;
            hits++;
        }
    }
    return hits == 1 ? hit : NULL;
}

static const struct {
    const char *kind;
    coax_class cls;
} classes[] = {
    /* The same number or text, only its JSON form changed. */
    {"float_to_integer", COAX_CLASS_LOSSLESS},
    /* One obvious reading of what the model wrote. */
    {"string_to_integer", COAX_CLASS_INFERRED},
    {"string_to_number", COAX_CLASS_INFERRED},
    {"string_to_boolean", COAX_CLASS_INFERRED},
    {"number_to_string", COAX_CLASS_INFERRED},
    {"wrap_in_array", COAX_CLASS_INFERRED},
    {"unwrap_array", COAX_CLASS_INFERRED},
    {"enum_match", COAX_CLASS_INFERRED},
    {"const_match", COAX_CLASS_INFERRED},
    {"default_filled", COAX_CLASS_INFERRED},
    {"property_dropped", COAX_CLASS_INFERRED},
    {"key_renamed", COAX_CLASS_INFERRED},
    {"envelope_unwrapped", COAX_CLASS_INFERRED},
    {"bare_scalar", COAX_CLASS_INFERRED},
};

coax_class coerce_class(const char *kind)
{
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
        if (!strcmp(classes[i].kind, kind)) return classes[i].cls;
    return COAX_CLASS_INFERRED;
}

/* ---- the trials ----------------------------------------------------------- */

static void add_value(coerce_trials *ts, const char *kind, const char *detail, const coax_value *v)
{
    if (v && ts->n < COERCE_MAX_TRIALS) ts->t[ts->n++] = (coerce_trial){kind, detail, v, NULL, 0};
}

static void add_edits(coerce_trials *ts, medit *edits, size_t n)
{
    if (edits && n && ts->n < COERCE_MAX_TRIALS) ts->t[ts->n++] = (coerce_trial){NULL, NULL, NULL, edits, n};
}

/* ---- names compared loosely, through an index ------------------------------ */

/* Names by a hash that is equal for any two loose_equal calls equal: the
** trimmed text's code points after NFC, case folded (the bytes themselves
** when they are not UTF-8). A lookup compares only the names of its hash,
** so matching n names against n declared ones is linear, not n^2. */
typedef struct lidx {
    const char **key;
    size_t *klen;
    uint64_t *h;
    uint32_t *head, *next; /* entry + 1; 0 ends a chain */
    size_t n, mask;
    uint64_t seed;
} lidx;

static uint64_t loose_hash(coax_arena *a, const char *s, size_t n, uint64_t seed)
{
    coerce_trim(&s, &n);
    bool ascii = true;
    for (size_t i = 0; i < n && ascii; i++) ascii = !((unsigned char)s[i] & 0x80);
    if (!ascii && !coax_utf8_valid(s, n)) return coax_hash_bytes(s, n, seed ^ 1);
    size_t len = n;
    const char *t = ascii ? s : coax_nfc(a, s, n, &len);
    if (!t) return 0; /* out of memory: matches nothing, as loose_equal */
    uint64_t h = seed;
    for (size_t i = 0; i < len;) {
        uint32_t cp = (unsigned char)t[i];
        size_t k = ascii ? 1 : coax_utf8_decode((const unsigned char *)t + i, len - i, &cp);
        if (!k) break;
        h = coax_hash_mix(h ^ coax_fold_case(cp), seed);
        i += k;
    }
    return h;
}

static bool lidx_init(lidx *ix, coerce_ctx *c, size_t cap)
{
    size_t slots = 4;
    while (slots < cap * 2) slots *= 2;
    memset(ix, 0, sizeof *ix);
    size_t per = sizeof *ix->key + sizeof *ix->klen + sizeof *ix->h + sizeof *ix->next;
    char *mem = coax_arena_alloc(c->arena, cap * per + slots * sizeof *ix->head + 8);
    if (!mem) return false;
    ix->h = (uint64_t *)(void *)mem; /* the widest first: every part stays aligned */
    ix->key = (const char **)(void *)(ix->h + cap);
    ix->klen = (size_t *)(void *)(ix->key + cap);
    ix->next = (uint32_t *)(void *)(ix->klen + cap);
    ix->head = ix->next + cap;
    memset(ix->head, 0, slots * sizeof *ix->head);
    ix->mask = slots - 1;
    ix->seed = coerce_seed(c);
    return true;
}

/* Adds a name (the caller sized the index for it). */
static void lidx_add(lidx *ix, coax_arena *a, const char *k, size_t kn)
{
    uint64_t h = loose_hash(a, k, kn, ix->seed);
    size_t e = ix->n++;
    ix->key[e] = k;
    ix->klen[e] = kn;
    ix->h[e] = h;
    ix->next[e] = ix->head[h & ix->mask];
    ix->head[h & ix->mask] = (uint32_t)e + 1;
}

/* The entries loosely equal to k[0..kn) (at most 'max' of them into 'out';
** their count is returned), and in '*exact' the first one equal to it
** byte for byte, or -1. */
static size_t lidx_find(const lidx *ix, coax_arena *a, const char *k, size_t kn, size_t *out, size_t max, long *exact)
{
    uint64_t h = loose_hash(a, k, kn, ix->seed);
    size_t hits = 0;
    *exact = -1;
    for (uint32_t e = ix->head[h & ix->mask]; e; e = ix->next[e - 1]) {
        size_t i = e - 1;
        if (ix->h[i] != h || !loose_equal(a, ix->key[i], ix->klen[i], k, kn)) continue;
        if (hits < max) out[hits] = i;
        hits++;
        if (ix->klen[i] == kn && !memcmp(ix->key[i], k, kn)) *exact = (long)i;
    }
    return hits;
}

/* The declared names of an object's schema: the keys of 'props' (entries
** 0 .. np-1, in order), then the names of 'names' ("required") that
** 'props' does not hold. */
typedef struct declared {
    lidx ix;
    size_t np;
    coerce_ctx *c;
    lidx joined; /* the names in their joined form (coerce_norm_key), built at the first match */
    bool joined_built;
} declared;

static bool declared_init(declared *d, coerce_ctx *c, const coax_value *props, const coax_value *names)
{
    size_t np = props && props->type == COAX_OBJECT ? props->len : 0;
    size_t nn = names && names->type == COAX_ARRAY ? names->len : 0;
    coax_arena *a = c->arena;
    if (!lidx_init(&d->ix, c, np + nn)) return false;
    d->np = np;
    d->c = c;
    d->joined_built = false;
    for (size_t i = 0; i < np; i++) lidx_add(&d->ix, a, props->u.members[i].key, props->u.members[i].klen);
    for (size_t i = 0; i < nn; i++) {
        const coax_value *v = &names->u.items[i];
        size_t hit;
        long exact;
        if (v->type != COAX_STRING) continue;
        /* a name "properties" declares is counted once */
        lidx_find(&d->ix, a, v->u.text, v->len, &hit, 1, &exact);
        if (exact < 0 || (size_t)exact >= np) lidx_add(&d->ix, a, v->u.text, v->len);
    }
    return true;
}

/* Whether 'props' (entries 0 .. np-1) declares k[0..kn) exactly. */
static long declared_exact(const declared *d, coax_arena *a, const char *k, size_t kn)
{
    size_t hit;
    long exact;
    lidx_find(&d->ix, a, k, kn, &hit, 1, &exact);
    return exact >= 0 && (size_t)exact < d->np ? exact : -1;
}

/* Adds s[0..n) in its joined form (coerce_joined: "user_id" and "userId"
** are "userid") to 'ix'; false out of memory. */
static bool joined_add(lidx *ix, coax_arena *a, const char *s, size_t n)
{
    const char *kept = coerce_joined(a, s, n);
    if (kept) lidx_add(ix, a, kept, strlen(kept));
    return kept != NULL;
}

/* How many names of 'ix' (joined_add) are s[0..n) joined some way; 2 out
** of memory (as many as make a guess). */
static size_t joined_count(const lidx *ix, coax_arena *a, const char *s, size_t n)
{
    size_t hit;
    long exact;
    const char *norm = coerce_joined(a, s, n);
    return norm ? lidx_find(ix, a, norm, strlen(norm), &hit, 1, &exact) : 2;
}

/* How many declared names are key[0..klen) joined another way ("userId"
** and "user_id" for "userid"); 2 out of memory (no rename). */
static size_t declared_joined(declared *d, coax_arena *a, const char *key, size_t klen)
{
    if (!d->joined_built) {
        if (!lidx_init(&d->joined, d->c, d->ix.n)) return 2;
        for (size_t i = 0; i < d->ix.n; i++)
            if (!joined_add(&d->joined, a, d->ix.key[i], d->ix.klen[i])) return 2;
        d->joined_built = true;
    }
    return joined_count(&d->joined, a, key, klen);
}

/* The one declared name that equals 'key' ignoring case and surrounding
** spaces, or NULL: none, or several ('*index' SIZE_MAX). Several are
** " Name " when both "name" and "Name" exist, and "userid" when "userId"
** and "user_id" do: which one the reply meant is a guess. '*index' is its
** entry. */
static const char *declared_match(declared *d, coax_arena *a, const char *key, size_t klen, size_t *len,
                                  size_t *index)
{
    size_t hit = 0; /* no name found leaves it: then the key is unknown, not a guess between two (not SIZE_MAX) */
    long exact;
    size_t n = lidx_find(&d->ix, a, key, klen, &hit, 1, &exact);
    *index = n > 1 || (n == 1 && !coerce_same_trimmed(key, klen, d->ix.key[hit], d->ix.klen[hit]) &&
                       declared_joined(d, a, key, klen) > 1)
                 ? SIZE_MAX
                 : hit;
    if (n != 1 || *index == SIZE_MAX) return NULL;
    *len = d->ix.klen[hit];
    return d->ix.key[hit];
}

/* A member of 'obj' (indexed in 'members') to rename to the missing 'name':
** the one whose key differs from it only in case or surrounding spaces, is
** not declared itself, matches no other declared name, and was not invented. */
static const coax_member *rename_source(coax_arena *a, const coax_value *obj, const lidx *members, declared *d,
                                        const char *name, size_t nlen)
{
    size_t hit, dl, di;
    long exact;
    if (lidx_find(members, a, name, nlen, &hit, 1, &exact) != 1) return NULL;
    const coax_member *m = &obj->u.members[hit];
    if ((m->value.flags & COAX_VF_INVENTED) || declared_exact(d, a, m->key, m->klen) >= 0) return NULL;
    const char *dn = declared_match(d, a, m->key, m->klen, &dl, &di);
    return dn && dl == nlen && !memcmp(dn, name, nlen) ? m : NULL;
}

#define RENAMED "renamed a property written in another case or with surrounding spaces to its declared name"

/* Comparisons may_say makes for one object: past them, no default is filled
** (a bound on time: n missing names against n members). */
#define SAY_COMPARES 4096

/* Whether an undeclared member of object 'x' may say what the missing
** property 'name' is, in a shape other than a value of the default's type:
** a name close to its name ({"status_code": 5}), a name that is one of its
** allowed values 'allowed' ({"closed": true} beside an enum of "open" and
** "closed"), or an object that holds a member of its name ({"info":
** {"status": "closed"}}). Filling the default beside it would contradict
** what the reply may have said. Each comparison is charged to '*budget':
** past it, true. */
static bool may_say(coerce_ctx *c, const coax_value *x, const declared *d, const coax_value *name,
                    const coax_value *allowed, size_t *budget)
{
    size_t na = allowed && allowed->type == COAX_ARRAY ? allowed->len : 0;
    for (size_t i = 0; i < x->len; i++) {
        const coax_member *m = &x->u.members[i];
        size_t hit;
        long exact;
        if (lidx_find(&d->ix, c->arena, m->key, m->klen, &hit, 1, &exact)) continue; /* declared */
        if (*budget < na + 2) return true;
        *budget -= na + 2;
        if (coerce_names_close(m->key, m->klen, name->u.text, name->len)) return true;
        if (m->value.type == COAX_OBJECT && coax_object_get(&m->value, name->u.text, name->len)) return true;
        for (size_t k = 0; k < na; k++) {
            const coax_value *v = &allowed->u.items[k];
            if (v->type == COAX_STRING && v->len == m->klen && coax_ascii_casesame(v->u.text, m->key, m->klen))
                return true;
        }
    }
    return false;
}

/* "required": rename a member written in another case, else fill the
** property from its schema's default. */
static void required_trials(coerce_ctx *c, const coax_value *x, const coax_value *parent, const coax_value *kv,
                            const char *keyword_location, coerce_trials *ts)
{
    const coax_value *path[64]; /* the schemas that apply to the object, where its defaults are looked up */
    size_t npath = coerce_entry_path(c, keyword_location, path, sizeof path / sizeof *path);
    coax_arena *a = c->arena;
    const coax_value *props = coerce_member(parent, "properties");
    medit *edits = coax_arena_alloc(a, kv->len * sizeof *edits + 1);
    declared d;
    lidx members, done; /* the object's keys; the names handled (listed twice in "required") */
    if (!edits || !declared_init(&d, c, props, kv) || !lidx_init(&members, c, x->len) || !lidx_init(&done, c, kv->len))
        return;
    /* A member the schema does not declare may be the missing property under
    ** another name ({"stauts": "closed"} beside a default "open"): filling the
    ** default beside a value of its type would contradict what the reply may
    ** have said. A name declared in another case is renamed, not undeclared.
    ** Per JSON type, whether an undeclared member has a value of it. */
    unsigned undeclared = 0;
    for (size_t i = 0; i < x->len; i++) {
        const coax_member *m = &x->u.members[i];
        size_t hit;
        long exact;
        lidx_add(&members, a, m->key, m->klen);
        if (!lidx_find(&d.ix, a, m->key, m->klen, &hit, 1, &exact)) undeclared |= 1u << m->value.type;
    }
    size_t n = 0, budget = SAY_COMPARES;
    for (size_t i = 0; i < kv->len; i++) {
        const coax_value *name = &kv->u.items[i];
        size_t hit;
        long exact;
        if (name->type != COAX_STRING) continue;
        lidx_find(&members, a, name->u.text, name->len, &hit, 1, &exact);
        if (exact >= 0) continue;
        lidx_find(&done, a, name->u.text, name->len, &hit, 1, &exact);
        if (exact >= 0) continue;
        lidx_add(&done, a, name->u.text, name->len);
        const coax_member *src = rename_source(a, x, &members, &d, name->u.text, name->len);
        /* a member the schema names as written ({"ID": ...} beside
        ** patternProperties "^ID$", a dependency on "A") is its own
        ** property, or the missing one misnamed: a guess, and no default
        ** is filled beside it either */
        if (src && (coerce_names_anywhere(c, path, npath, src->key, src->klen) ||
                    coerce_joined_elsewhere(c, path, npath, src->key, src->klen, name->u.text, name->len)))
            continue;
        if (src) {
            edits[n++] = (medit){MEDIT_RENAME, "key_renamed", RENAMED, src->key, src->klen, name->u.text, name->len, NULL};
            continue;
        }
        const coax_value *def = coerce_property_default(c, path, npath, name);
        if (!def || (undeclared & (1u << def->type))) continue; /* nothing to fill without inventing */
        long pi = declared_exact(&d, a, name->u.text, name->len);
        const coax_value *ps = pi >= 0 ? coerce_deref(c, c->doc, &props->u.members[pi].value) : NULL;
        if (may_say(c, x, &d, name, coerce_member(ps, "enum"), &budget) || !coerce_default_charge(c, def)) continue;
        coax_value *copy = coax_value_copy(a, def);
        if (copy) edits[n++] = (medit){MEDIT_ADD, "default_filled", "filled a missing required property from its schema default", name->u.text, name->len, NULL, 0, copy};
    }
    add_edits(ts, edits, n);
}

/* Absent properties a forbidden member's name is compared with, one by
** one; past this many, or past NAME_COMPARES comparisons in one object (a
** bound on time: each is at most 33 x 33 steps), a value of a type one of
** them takes is kept. */
#define ABSENT_NAMED 64
#define NAME_COMPARES 4096

/* The edit that drops member m, which the schema forbids. */
static medit dropped(const coax_member *m)
{
    return (medit){MEDIT_DROP, "property_dropped", "dropped a property the schema forbids", m->key, m->klen, NULL, 0, NULL};
}

/* The present properties' names written with their words together: lower
** case without '_', '-' and spaces (coerce_norm_key), built at the first
** need; prop[e] is the property of entry e. */
typedef struct joined_names {
    lidx ix;
    size_t *prop;
    bool built;
} joined_names;

/* Whether member m, whose name matches no declared one loosely, is a
** present property written with its words apart or together (first_name,
** First Name, firstName), or with a word saying it replaces it
** (corrected_age), holding another value. One index of the names
** serves every member, so n members against n names stay linear; out of
** memory reads as "differs": nothing dropped, never a value lost. */
static bool joined_differs(coerce_ctx *c, const coax_value *props, const coax_value **taken, joined_names *jn,
                           const coax_member *m)
{
    coax_arena *a = c->arena;
    size_t np = props && props->type == COAX_OBJECT ? props->len : 0;
    if (!np) return false;
    if (!jn->built) {
        jn->built = true;
        size_t *prop = coax_arena_alloc(a, np * sizeof *prop);
        if (!prop || !lidx_init(&jn->ix, c, np)) return true;
        for (size_t k = 0; k < np; k++) {
            const coax_member *pm = &props->u.members[k];
            char *j = taken[k] ? coax_arena_alloc(a, pm->klen + 1) : NULL;
            if (taken[k] && !j) return true; /* jn->prop stays NULL: no index, every member differs */
            if (!j || !coerce_norm_key(pm->key, pm->klen, j, pm->klen + 1)) continue;
            prop[jn->ix.n] = k;
            lidx_add(&jn->ix, a, j, strlen(j));
        }
        jn->prop = prop;
    }
    if (!jn->prop) return true;
    char *mk = coax_arena_alloc(a, m->klen + 1);
    if (!mk) return true;
    if (!coerce_norm_key(m->key, m->klen, mk, m->klen + 1)) return false;
    /* A word saying the member replaces the property (corrected_age,
    ** newAge, age_final) beside it: two values for it too. */
    const char *const *fix = coerce_replacing_words;
    size_t ml = strlen(mk);
    for (size_t w = 0; w < COERCE_REPLACING_WORDS; w++) {
        size_t wl = strlen(fix[w]);
        for (int end = 0; end < 2 && (end == 0 || wl); end++) {
            const char *rest = end ? mk : mk + wl;
            if (wl && (ml <= wl || memcmp(end ? mk + ml - wl : mk, fix[w], wl))) continue;
            size_t hit[4];
            long exact;
            size_t n = lidx_find(&jn->ix, a, rest, ml - wl, hit, 4, &exact);
            for (size_t i = 0; i < n && i < 4; i++)
                if (coax_value_equal(taken[jn->prop[hit[i]]], &m->value, coax_arena_allocator(a)) != 1) return true;
            if (n > 4) return true;
        }
    }
    return false;
}

/* Names declared_below indexes: past this many, every member it is asked
** about is kept (a bound on time and memory). */
#define NESTED_NAMES 65536

/* The names the object properties of an object's schema declare, one or
** two levels down (address/city, address/geo/lat), built at the first
** need: per entry, the types its schema takes and the value the reply's
** nested object holds for it (NULL: none). */
typedef struct nested_names {
    lidx ix;
    unsigned *types;
    const coax_value **held;
    bool built, overflow;
} nested_names;

/* Walks the object properties of 'props' (the reply's object 'inst', or
** NULL) to 'depth' 1, counting the names found in '*n' and, with 'nn'
** ready, indexing them. False past NESTED_NAMES. */
static bool nested_walk(coerce_ctx *c, const coax_value *props, const coax_value *inst, int depth, size_t *n,
                        nested_names *nn)
{
    for (size_t i = 0; props && props->type == COAX_OBJECT && i < props->len; i++) {
        const coax_member *pm = &props->u.members[i];
        const coax_value *sub = coerce_member(coerce_deref(c, c->doc, &pm->value), "properties");
        if (!sub || sub->type != COAX_OBJECT) continue;
        const coax_value *held = inst && inst->type == COAX_OBJECT ? coax_object_get(inst, pm->key, pm->klen) : NULL;
        if (held && held->type != COAX_OBJECT) held = NULL;
        if (*n + sub->len > NESTED_NAMES) return false;
        for (size_t k = 0; nn && k < sub->len; k++) {
            const coax_member *sm = &sub->u.members[k];
            nn->types[nn->ix.n] = coerce_types_taken(coerce_member(coerce_deref(c, c->doc, &sm->value), "type"));
            nn->held[nn->ix.n] = held ? coax_object_get(held, sm->key, sm->klen) : NULL;
            lidx_add(&nn->ix, c->arena, sm->key, sm->klen);
        }
        *n += sub->len;
        if (depth < 1 && !nested_walk(c, sub, held, depth + 1, n, nn)) return false;
    }
    return true;
}

/* Whether member m of object 'obj' is a property that an object property
** of 'props' declares ({"city": "Paris"} beside "address": {"zip":
** "75001"}, where address declares city): the reply's value for it written
** a level too high. Moving it there is a guess and dropping it loses it,
** unless the nested object holds it with that value already. One index of
** the nested names serves every member; out of memory or past
** NESTED_NAMES reads as "declared": nothing dropped. */
static bool declared_below(coerce_ctx *c, const coax_value *props, const coax_value *obj, nested_names *nn,
                           const coax_member *m)
{
    if (!nn->built) {
        nn->built = true;
        size_t n = 0;
        nn->overflow = !nested_walk(c, props, obj, 0, &n, NULL);
        if (nn->overflow || !n) return nn->overflow;
        nn->types = coax_arena_alloc(c->arena, n * sizeof *nn->types);
        nn->held = coax_arena_alloc(c->arena, n * sizeof *nn->held);
        nn->overflow = !nn->types || !nn->held || !lidx_init(&nn->ix, c, n);
        n = 0;
        if (!nn->overflow) nested_walk(c, props, obj, 0, &n, nn);
    }
    if (nn->overflow) return true;
    if (!nn->ix.n) return false;
    size_t hit[8];
    long exact;
    size_t hits = lidx_find(&nn->ix, c->arena, m->key, m->klen, hit, 8, &exact);
    if (hits > 8) return true;
    for (size_t k = 0; k < hits; k++) {
        size_t e = hit[k];
        if (nn->ix.klen[e] != m->klen || memcmp(nn->ix.key[e], m->key, m->klen)) continue;
        if (!(nn->types[e] & coerce_type_bit(&m->value))) continue;
        if (!nn->held[e] || coax_value_equal(nn->held[e], &m->value, coax_arena_allocator(c->arena)) != 1) return true;
    }
    return false;
}

/* "additionalProperties": false: a forbidden member is renamed to the one
** declared name it differs from only in case or surrounding spaces (when
** that one is absent), else dropped. A member a repair invented is neither:
** the error stays. */
static void forbidden_trials(coerce_ctx *c, const coax_value *obj, const coax_value *parent,
                             const char *keyword_location, coerce_trials *ts)
{
    const coax_value *path[64]; /* the schemas that apply to the object: one may declare a member */
    size_t npath = coerce_entry_path(c, keyword_location, path, sizeof path / sizeof *path);
    coax_arena *a = c->arena;
    const coax_value *props = coerce_member(parent, "properties");
    medit *edits = coax_arena_alloc(a, obj->len * sizeof *edits + 1);
    declared d;
    if (!edits || !declared_init(&d, c, props, NULL)) return;
    /* Per declared name: whether the object holds it or a member was
    ** renamed to it already. The members written exactly as declared are
    ** marked first, so no name is searched for in the object: n members
    ** renamed to n names stay linear. */
    const coax_value **taken = coax_arena_alloc(a, (d.np + 1) * sizeof *taken); /* the value it holds */
    if (!taken) return;
    memset(taken, 0, (d.np + 1) * sizeof *taken);
    for (size_t i = 0; i < obj->len; i++) {
        long e = declared_exact(&d, a, obj->u.members[i].key, obj->u.members[i].klen);
        if (e >= 0) taken[e] = &obj->u.members[i].value;
    }
    size_t n = 0, ndrop = 0;
    for (size_t i = 0; i < obj->len; i++) {
        const coax_member *m = &obj->u.members[i];
        if (declared_exact(&d, a, m->key, m->klen) >= 0) continue;
        if (m->value.flags & COAX_VF_INVENTED) return;
        size_t dl, di;
        const char *dn = declared_match(&d, a, m->key, m->klen, &dl, &di);
        if (!dn && di == SIZE_MAX) return; /* " a" beside declared "a" and "A": one of them (a guess), not unknown */
        if (dn && coerce_joined_elsewhere(c, path, npath, m->key, m->klen, dn, dl))
            return; /* userid for userId where another schema of the object declares user_id */
        if (dn && !taken[di]) {
            taken[di] = &m->value;
            edits[n++] = (medit){MEDIT_RENAME, "key_renamed", RENAMED, m->key, m->klen, dn, dl, NULL};
        } else if (dn && coax_value_equal(taken[di], &m->value, coax_arena_allocator(a)) != 1) {
            return; /* {"name": "Ada", "Name": "Bob"}: two values for one property, neither dropped */
        } else if (!dn) {
            ndrop++;
        } else {
            edits[n++] = dropped(m);
        }
    }
    /* A member no declared name matches may be a declared property that is
    ** absent, misspelt ({"aeg": 36} beside a missing "age"): dropping it
    ** would lose what the reply said, so a value of a type some absent
    ** property takes is kept (and the error with it). */
    /* With few absent properties, only a name close to one of them counts
    ** ("note" is no "tax_rate"); with many, any of a type one takes. So
    ** does a name close to a present property holding another value (past
    ** the first ABSENT_NAMED, those of its type, each comparison charged). */
    unsigned absent = 0, present_past = 0, fits = 0;
    size_t nabsent = 0, npresent = 0, compares = NAME_COMPARES;
    size_t *which = coax_arena_alloc(a, (ABSENT_NAMED + d.np) * sizeof *which);
    joined_names joined = {0};
    nested_names nested = {0};
    if (!which) return;
    for (size_t i = 0; ndrop && i < d.np; i++) {
        if (taken[i]) {
            if (npresent >= ABSENT_NAMED)
                present_past |= coerce_types_taken(coerce_member(coerce_deref(c, c->doc, &props->u.members[i].value),
                                                                 "type"));
            which[ABSENT_NAMED + npresent++] = i;
            continue;
        }
        absent |= coerce_property_types(coerce_deref(c, c->doc, &props->u.members[i].value));
        if (nabsent < ABSENT_NAMED) which[nabsent] = i;
        nabsent++;
    }
    size_t *named = nabsent <= ABSENT_NAMED ? which : which + ABSENT_NAMED; /* past ABSENT_NAMED, the present ones */
    size_t nnamed = nabsent <= ABSENT_NAMED ? nabsent + npresent : npresent;
    if (nabsent <= ABSENT_NAMED) memmove(which + nabsent, which + ABSENT_NAMED, npresent * sizeof *which);
    for (size_t i = 0; ndrop && i < obj->len; i++) {
        const coax_member *m = &obj->u.members[i];
        size_t dl, di;
        if (declared_exact(&d, a, m->key, m->klen) >= 0 || declared_match(&d, a, m->key, m->klen, &dl, &di)) continue;
        /* first_name beside firstName: one property written two ways, with
        ** two values; which one the model meant is a guess */
        if (joined_differs(c, props, taken, &joined, m)) return;
        /* {"allOf": [{"properties": {"a": ...}}], "additionalProperties":
        ** false}: a is declared, and forbidden only by the schema's own
        ** contradiction; dropping it loses a value the schema names */
        if (coerce_names_anywhere(c, path, npath, m->key, m->klen)) return;
        if (declared_below(c, props, obj, &nested, m)) return;
        /* {"age": 35, "note": "age should be 36"}: dropped, it hides the correction */
        if (m->value.type == COAX_STRING && extract_remark_takes_back(m->value.u.text, m->value.len)) return;
        if ((absent & coerce_type_bit(&m->value)) && nabsent > ABSENT_NAMED) return;
        size_t free_until = nnamed - npresent + ABSENT_NAMED;
        size_t upto = (present_past & coerce_type_bit(&m->value)) || free_until > nnamed ? nnamed : free_until;
        if (coerce_may_be_declared(c, props, taken, named, upto, free_until, m, &compares)) return;
        /* a key holding another item's start: dropped, the members it swallowed would go unseen */
        if (coerce_key_holds_items(m->key, m->klen)) return;
        edits[n++] = dropped(m);
        fits |= absent & coerce_type_bit(&m->value);
    }
    /* a member dropped whose value fits an absent property ({"edad": 37} for "age"): that one under another name? */
    if (!coerce_telling_fits(taken, d.np, fits)) add_edits(ts, edits, n);
}

/* A large "enum" for loose matching: its strings (and the words of its
** booleans and nulls) by loose form, its numbers in a list. A reply's n
** mistyped values against n allowed ones cost n lookups, not n^2 compares. */
typedef struct enum_index {
    lidx words;
    lidx joined; /* its strings in their joined form (joined_add) */
    size_t *item;    /* per entry of 'words': the enum item */
    size_t *numbers; /* the items that are numbers */
    size_t nnum;
    uint32_t *nhead, *nnext; /* the numbers chained by their value's hash (1 and 1.0 alike): entry + 1 */
    uint64_t *nh;
    size_t nmask;
} enum_index;

static uint64_t number_value_hash(const char *t, size_t n, uint64_t seed)
{
    coax_value v = {.type = COAX_NUMBER, .len = (uint32_t)n, .u.text = t};
    uint64_t h = 0;
    return coax_value_hash(&v, seed, NULL, &h, NULL) ? 0 : h;
}

static const enum_index *enum_index_of(coerce_ctx *c, const coax_value *kv)
{
    const enum_index *known = smap_getp(&c->built, kv);
    if (known) return known;
    coax_arena *a = c->arena;
    enum_index *x = coax_arena_alloc(a, sizeof *x);
    if (!x || !lidx_init(&x->words, c, kv->len) || !lidx_init(&x->joined, c, kv->len)) return NULL;
    size_t slots = 4;
    while (slots < (size_t)kv->len * 2) slots *= 2;
    x->item = coax_arena_alloc(a, kv->len * sizeof *x->item + 1), x->nh = coax_arena_alloc(a, kv->len * sizeof *x->nh + 1);
    x->numbers = coax_arena_alloc(a, kv->len * sizeof *x->numbers + 1);
    x->nnext = coax_arena_alloc(a, kv->len * sizeof *x->nnext + 1);
    x->nhead = coax_arena_alloc(a, slots * sizeof *x->nhead);
    if (!x->item || !x->numbers || !x->nnext || !x->nh || !x->nhead) return NULL;
    memset(x->nhead, 0, slots * sizeof *x->nhead);
    x->nmask = slots - 1;
    x->nnum = 0;
    for (size_t i = 0; i < kv->len; i++) {
        const coax_value *y = &kv->u.items[i];
        const char *word = y->type == COAX_NULL ? "null" : y->type == COAX_BOOL ? (y->u.boolean ? "true" : "false") : NULL;
        if (y->type == COAX_NUMBER) {
            uint64_t h = x->nh[x->nnum] = number_value_hash(y->u.text, y->len, x->words.seed);
            x->nnext[x->nnum] = x->nhead[h & x->nmask];
            x->numbers[x->nnum++] = i;
            x->nhead[h & x->nmask] = (uint32_t)x->nnum;
        }
        if (y->type == COAX_STRING && !joined_add(&x->joined, a, y->u.text, y->len)) return NULL;
        if (y->type != COAX_STRING && !word) continue;
        x->item[x->words.n] = i;
        lidx_add(&x->words, a, word ? word : y->u.text, word ? strlen(word) : y->len);
    }
    return smap_putp(&c->built, a, kv, x) ? x : NULL;
}

/* Whether the large enum 'kv' holds the string s[0..n): '*known' false when
** its index could not be built (out of memory). */
static bool enum_index_has(coerce_ctx *c, const coax_value *kv, const char *s, size_t n, bool *known)
{
    const enum_index *ix = enum_index_of(c, kv);
    if (!(*known = ix != NULL)) return false;
    uint64_t h = loose_hash(c->arena, s, n, ix->words.seed);
    for (uint32_t e = ix->words.head[h & ix->words.mask]; e; e = ix->words.next[e - 1]) {
        const coax_value *y = &kv->u.items[ix->item[e - 1]];
        if (y->type == COAX_STRING && y->len == n && !memcmp(y->u.text, s, n)) return true;
    }
    return false;
}

/* coerce_loose_match over a large "enum" through its index: the same rules
** (a string is its loose equal among strings, booleans and nulls, or the
** number it spells; a number is its loose equal among strings), the same
** answer (one match, or none). */
static const coax_value *enum_loose_match(coerce_ctx *c, const coax_value *x, const coax_value *kv)
{
    const enum_index *ix = enum_index_of(c, kv);
    if (!ix) return NULL;
    if (x->type != COAX_STRING && x->type != COAX_NUMBER) return NULL;
    coax_arena *a = c->arena;
    const coax_value *hit = NULL;
    size_t hits = 0;
    uint64_t h = loose_hash(a, x->u.text, x->len, ix->words.seed);
    for (uint32_t e = ix->words.head[h & ix->words.mask]; e; e = ix->words.next[e - 1]) {
        const coax_value *y = &kv->u.items[ix->item[e - 1]];
        if (ix->words.h[e - 1] != h || (x->type == COAX_NUMBER && y->type != COAX_STRING)) continue;
        if (!loose_equal(a, ix->words.key[e - 1], ix->words.klen[e - 1], x->u.text, x->len)) continue;
        hit = y;
        hits++;
    }
    if (x->type == COAX_STRING) {
        const char *s = x->u.text;
        size_t sn = x->len;
        coerce_trim(&s, &sn);
        bool numeric = sn && coax_number_span(s, sn, NULL) == sn && !coerce_dot_grouped(s, sn);
        uint64_t nh = numeric ? number_value_hash(s, sn, ix->words.seed) : 0;
        for (uint32_t e = numeric ? ix->nhead[nh & ix->nmask] : 0; e; e = ix->nnext[e - 1]) {
            const coax_value *y = &kv->u.items[ix->numbers[e - 1]];
            if (ix->nh[e - 1] != nh || coax_number_compare_text(s, sn, y->u.text, y->len) != 0) continue;
            hit = y;
            hits++;
        }
    }
    return hits == 1 ? hit : NULL;
}

/* Whether string 'x', matched loosely to the string 'hit' of 'allowed' (n
** of them; 'kv' the enum when large), is another of them joined another
** way too: "IN_PROGRESS" for "in_progress" beside "inProgress" (an
** underscore dropped, or the case changed: which one the reply meant is a
** guess). Out of memory reads as "another". */
static bool joined_twice(coerce_ctx *c, const coax_value *x, const coax_value *hit, const coax_value *allowed, size_t n,
                         const coax_value *kv)
{
    if (coerce_same_trimmed(x->u.text, x->len, hit->u.text, hit->len)) return false;
    if (n > 16) {
        const enum_index *ix = enum_index_of(c, kv);
        return !ix || joined_count(&ix->joined, c->arena, x->u.text, x->len) > 1;
    }
    const char *norm = coerce_joined(c->arena, x->u.text, x->len);
    if (!norm) return true;
    for (size_t i = 0; i < n; i++)
        if (&allowed[i] != hit && allowed[i].type == COAX_STRING &&
            coerce_joined_equal(c->arena, norm, allowed[i].u.text, allowed[i].len))
            return true;
    return false;
}

void coerce_make_trials(coerce_ctx *c, const coax_value *x, const coax_value *up, const coerce_error *ce,
                        coerce_trials *ts)
{
    const coax_schema_error *e = ce->e;
    const coax_value *parent, *kv;
    char kw[128];
    ts->n = 0;
    ts->at = e->instance_location;
    ts->atlen = ce->ll;
    if (!coerce_keyword_at(c, c->doc, e->keyword_location, &parent, kw, sizeof kw, &kv)) return;
    coax_arena *a = c->arena;

    if (!strcmp(kw, "type")) {
        if (coerce_union_claims(c, x, NULL, ce) || coerce_tuple_swapped(c, x, up, e->keyword_location))
            return;
        size_t n = kv->type == COAX_ARRAY ? kv->len : 1;
        const coax_value *allowed = coerce_member(coerce_deref(c, c->doc, coerce_member(parent, "items")), "enum");
        for (size_t i = 0; i < n; i++) {
            const coax_value *t = kv->type == COAX_ARRAY ? &kv->u.items[i] : kv;
            const char *kind = NULL;
            if (t->type != COAX_STRING) continue;
            struct coerce_read_memo *m = &c->read_memo;
            if (!read_memo_hit(c, x, t->u.text, allowed)) {
                coax_value *conv = convert(c, x, t->u.text, allowed, &kind);
                *m = (struct coerce_read_memo){c->plan_id, x, allowed, conv, t->u.text, kind};
            }
            add_value(ts, m->kind, "converted the value to the type the schema asks for", m->out);
        }
        /* Several types are a union: two that read the value differently
        ** ("5" for an integer or a list: 5 or ["5"]) leave which one the
        ** reply meant a guess, whichever the schema lists first. */
        for (size_t i = 1; i < ts->n; i++)
            if (coax_value_equal(ts->t[0].value, ts->t[i].value, coax_arena_allocator(a)) != 1) ts->n = 0;
    } else if ((!strcmp(kw, "enum") && kv->type == COAX_ARRAY) || !strcmp(kw, "const")) {
        bool is_const = !strcmp(kw, "const");
        const coax_value *hit = read_memo_hit(c, x, kv, NULL) ? c->read_memo.out
                                : is_const                     ? coerce_loose_match(a, x, kv, 1)
                                : kv->len > 16                 ? enum_loose_match(c, x, kv)
                                                               : coerce_loose_match(a, x, kv->u.items, kv->len);
        c->read_memo = (struct coerce_read_memo){c->plan_id, x, NULL, hit, kv, NULL};
        if (hit && hit->type == COAX_STRING && x->type == COAX_STRING &&
            ((!is_const && joined_twice(c, x, hit, kv->u.items, kv->len, kv)) ||
             coerce_union_joined(c, x, hit, ce)))
            hit = NULL;
        if (hit && !coerce_union_claims(c, x, hit, ce))
            add_value(ts, is_const ? "const_match" : "enum_match",
                      "matched the allowed value ignoring case and surrounding spaces", coax_value_copy(a, hit));
    } else if (!strcmp(kw, "required") && x->type == COAX_OBJECT && kv->type == COAX_ARRAY) {
        if (!coerce_memo_get(c, x, kv, e->keyword_location, ts)) {
            required_trials(c, x, parent, kv, e->keyword_location, ts);
            coerce_memo_put(c, x, kv, e->keyword_location, ts);
        }
    } else if (!strcmp(kw, "additionalProperties") && kv->type == COAX_BOOL && !kv->u.boolean &&
               !coerce_member(parent, "patternProperties")) {
        /* The error is at the object or at the property, as validators
        ** differ: the trial edits the object. */
        if (x->type != COAX_OBJECT) {
            const char *slash = strrchr(ts->at, '/');
            if (!slash || !up || up->type != COAX_OBJECT) return;
            ts->atlen = (size_t)(slash - ts->at);
            x = up;
        }
        if (!coerce_memo_get(c, x, kv, e->keyword_location, ts)) {
            forbidden_trials(c, x, parent, e->keyword_location, ts);
            coerce_memo_put(c, x, kv, e->keyword_location, ts);
        }
    }
}
