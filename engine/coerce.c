/*
** coerce.c: recover values that are right in substance and wrong in form,
** without guessing.
**
** Each validation error names a keyword (its keywordLocation, resolved in
** the schema document; local "$ref"s are followed, anything else is not
** guessed at). For the keyword, a few trial values are built (path copies:
** the original is untouched); a trial is accepted only when the total
** number of errors falls and the place it changes then passes: no error
** left at or under a replaced value, or, for a property filled or dropped,
** none left from the same keyword on that object. Then the candidate is validated again and
** the next error gets its turn.
**
** Coercions: numeric strings to number/integer, "true"/"false" to boolean,
** numbers to strings, integral floats to integers (draft 4), a value to a
** one-element array and back, enum/const matching that ignores ASCII case
** and surrounding whitespace when exactly one allowed value matches, a
** missing required property from its schema's "default", properties
** forbidden by "additionalProperties": false dropped. Never: words to
** numbers, rounding, clamping, invented values.
*/
#include "coerce.h"

#include <stdlib.h>
#include <strings.h>

/* Each trial validates the whole candidate again: a budget of trial
** validations per candidate keeps hostile replies (thousands of errors
** nothing fixes) bounded, while one accepted coercion per round still
** allows thousands of fixes. */
#define MAX_VALIDATIONS 1024
#define MAX_TRIALS 8

/* ---- the schema side ---------------------------------------------------- */

static const coax_value *member(const coax_value *obj, const char *key)
{
    return obj && obj->type == COAX_OBJECT ? coax_object_get(obj, key, strlen(key)) : NULL;
}

/* Follows a local "$ref" ("#" or "#/json/pointer"); NULL for any other. */
static const coax_value *local_ref(const coax_value *doc, const coax_value *ref)
{
    if (!ref || ref->type != COAX_STRING || ref->len == 0 || ref->u.text[0] != '#') return NULL;
    if (memchr(ref->u.text, '%', ref->len)) return NULL;
    const coax_value *out;
    if (coax_pointer_get(doc, ref->u.text + 1, ref->len - 1, &out)) return NULL;
    return out;
}

/* A subschema with its own "$ref" followed (for "properties/x": {"$ref"}). */
static const coax_value *deref(const coax_value *doc, const coax_value *s)
{
    for (int hops = 0; s && hops < 16; hops++) {
        const coax_value *ref = member(s, "$ref");
        if (!ref) return s;
        s = local_ref(doc, ref);
    }
    return NULL;
}

/* Walks an evaluation path through the schema document. On success sets the
** subschema holding the failing keyword, and the keyword's name and value. */
static bool keyword_at(const coax_value *doc, const char *loc, const coax_value **parent,
                       char *kw, size_t kwcap, const coax_value **value)
{
    const coax_value *cur = doc, *holder = NULL;
    const char *p = loc;
    if (*p == '\0') return false;
    while (*p == '/') {
        const char *s = ++p;
        while (*p && *p != '/') p++;
        size_t n = 0;
        for (const char *c = s; c < p; c++) { /* unescape the token */
            char ch = *c;
            if (ch == '~' && c + 1 < p) ch = *++c == '1' ? '/' : '~';
            if (n + 1 >= kwcap) return false;
            kw[n++] = ch;
        }
        kw[n] = '\0';
        if (!strcmp(kw, "$ref")) {
            cur = local_ref(doc, member(cur, "$ref"));
            if (!cur) return false;
            continue;
        }
        if (!strcmp(kw, "$dynamicRef") || !strcmp(kw, "$recursiveRef")) return false;
        holder = cur;
        /* Inside an embedded resource "#/..." refers to that resource, not
        ** to the document: do not look keywords up there. */
        if (cur != doc && member(cur, "$id")) return false;
        if (cur->type == COAX_OBJECT) {
            cur = coax_object_get(cur, kw, n);
        } else if (cur->type == COAX_ARRAY) {
            char *end;
            unsigned long i = strtoul(kw, &end, 10);
            cur = *end ? NULL : coax_array_get(cur, i);
        } else {
            cur = NULL;
        }
        if (!cur) return false;
    }
    *parent = holder;
    *value = cur;
    return holder != NULL;
}

/* ---- the instance side --------------------------------------------------- */

static void trim(const char **s, size_t *n)
{
    while (*n && strchr(" \t\r\n", (*s)[0])) {
        (*s)++;
        (*n)--;
    }
    while (*n && strchr(" \t\r\n", (*s)[*n - 1])) (*n)--;
}

/* The integer text of an integral number text ("2.0" -> "2", "1e3" ->
** "1000"), in 'buf'; false when not integral or too long to spell. */
static bool integral_text(const char *s, size_t n, char *buf, size_t cap)
{
    size_t i = 0, k = 0;
    bool neg = i < n && s[i] == '-';
    if (neg) i++;
    char digits[64];
    size_t nd = 0;
    long point = -1; /* digits before the decimal point */
    for (; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
        if (s[i] == '.') {
            point = (long)nd;
            continue;
        }
        if (nd == 0 && s[i] == '0' && point < 0) continue; /* leading zeros */
        if (nd >= sizeof digits) return false;
        digits[nd++] = s[i];
    }
    if (point < 0) point = (long)nd;
    long exp = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        char *end;
        exp = strtol(s + i + 1, &end, 10);
        if (exp > 40 || exp < -400) return false;
    }
    long intlen = point + exp;
    /* Everything at and after position intlen must be zero. */
    for (long d = intlen < 0 ? 0 : intlen; d < (long)nd; d++)
        if (digits[d] != '0') return false;
    if (intlen <= 0) {
        if (cap < 2) return false;
        buf[0] = '0';
        buf[1] = '\0';
        return true;
    }
    if ((size_t)intlen + 2 > cap) return false;
    if (neg) buf[k++] = '-';
    for (long d = 0; d < intlen; d++) buf[k++] = d < (long)nd ? digits[d] : '0';
    buf[k] = '\0';
    return true;
}

typedef struct trial {
    const char *kind, *detail;
    coax_value *root;      /* the candidate with the change made */
    const char **pointers; /* the places changed (NULL: the error's location) */
    size_t npointers;
    bool subtree;          /* the value at the location was replaced: all of it must pass */
} trial;

typedef struct trials {
    trial t[MAX_TRIALS];
    size_t n;
} trials;

static void add_trial(trials *ts, const char *kind, const char *detail, coax_value *root)
{
    if (root && ts->n < MAX_TRIALS) ts->t[ts->n++] = (trial){kind, detail, root, NULL, 0, true};
}

/* The pointer of member 'key' of the object at 'loc' (loc[0..llen)). */
static const char *member_pointer(coax_arena *a, const char *loc, size_t llen, const char *key, size_t klen)
{
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(a));
    coax_buf_put(&b, loc, llen);
    coax_buf_putc(&b, '/');
    for (size_t i = 0; i < klen; i++) {
        if (key[i] == '~') coax_buf_put(&b, "~0", 2);
        else if (key[i] == '/') coax_buf_put(&b, "~1", 2);
        else coax_buf_putc(&b, key[i]);
    }
    char *p = b.oom ? NULL : coax_arena_strdup(a, b.data, b.len);
    coax_buf_free(&b);
    return p;
}

/* Adds a trial that changed the members named in 'keys' of the object at
** 'loc': each is logged at its own pointer. */
static void add_member_trial(coax_arena *a, trials *ts, const char *kind, const char *detail,
                             coax_value *root, const char *loc, size_t llen, const coax_member *keys,
                             size_t n)
{
    if (!root || ts->n >= MAX_TRIALS || n == 0) return;
    const char **ptrs = coax_arena_alloc(a, n * sizeof *ptrs);
    if (!ptrs) return;
    for (size_t i = 0; i < n; i++)
        if (!(ptrs[i] = member_pointer(a, loc, llen, keys[i].key, keys[i].klen))) return;
    ts->t[ts->n++] = (trial){kind, detail, root, ptrs, n, false};
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
static coax_value *convert(coerce_ctx *c, const coax_value *x, const char *t, const char **kind)
{
    coax_arena *a = c->arena;
    bool want_int = !strcmp(t, "integer"), want_num = want_int || !strcmp(t, "number");
    if (x->type == COAX_STRING && want_num) {
        const char *s = x->u.text;
        size_t n = x->len;
        trim(&s, &n);
        bool is_int;
        if (n == 0 || coax_number_span(s, n, &is_int) != n) return NULL;
        char buf[48];
        if (want_int) {
            if (!integral_text(s, n, buf, sizeof buf)) return NULL; /* no rounding */
            s = buf;
            n = strlen(buf);
        }
        *kind = want_int ? "string_to_integer" : "string_to_number";
        return scalar(a, COAX_NUMBER, s, n, 0);
    }
    if (x->type == COAX_STRING && !strcmp(t, "boolean")) {
        const char *s = x->u.text;
        size_t n = x->len;
        trim(&s, &n);
        int b = n == 4 && !strncasecmp(s, "true", 4) ? 1 : n == 5 && !strncasecmp(s, "false", 5) ? 0 : -1;
        if (b < 0) return NULL;
        *kind = "string_to_boolean";
        return scalar(a, COAX_BOOL, NULL, 0, b);
    }
    if (x->type == COAX_NUMBER && !strcmp(t, "string")) {
        *kind = "number_to_string";
        return scalar(a, COAX_STRING, x->u.text, x->len, 0);
    }
    if (x->type == COAX_NUMBER && want_int && !(x->flags & COAX_VF_INT_TEXT)) {
        char buf[48];
        if (!integral_text(x->u.text, x->len, buf, sizeof buf)) return NULL;
        *kind = "float_to_integer";
        return scalar(a, COAX_NUMBER, buf, strlen(buf), 0);
    }
    if (!strcmp(t, "array") && x->type != COAX_ARRAY) {
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
        const char *k2;
        coax_value *conv = NULL;
        if (!strcmp(coax_type_name((coax_type)inner->type), t) ||
            (want_num && inner->type == COAX_NUMBER)) {
            conv = coax_new_value(a, COAX_NULL);
            if (conv) *conv = *inner;
        } else {
            conv = convert(c, inner, t, &k2);
        }
        *kind = "unwrap_array";
        return conv;
    }
    return NULL;
}

/* Equal ignoring ASCII case and surrounding whitespace. */
static bool loose_equal(const char *a, size_t an, const char *b, size_t bn)
{
    trim(&a, &an);
    trim(&b, &bn);
    return an == bn && !strncasecmp(a, b, an);
}

/* The one allowed value 'x' matches loosely, or NULL (none, or several). */
static const coax_value *loose_match(const coax_value *x, const coax_value *allowed, size_t n)
{
    const coax_value *hit = NULL;
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        const coax_value *y = &allowed[i];
        bool m = false;
        if (x->type == COAX_STRING && y->type == COAX_STRING) {
            m = loose_equal(x->u.text, x->len, y->u.text, y->len);
        } else if (x->type == COAX_STRING && y->type == COAX_NUMBER) {
            const char *s = x->u.text;
            size_t sn = x->len;
            trim(&s, &sn);
            m = sn && coax_number_span(s, sn, NULL) == sn &&
                coax_number_compare_text(s, sn, y->u.text, y->len) == 0;
        } else if (x->type == COAX_NUMBER && y->type == COAX_STRING) {
            m = loose_equal(x->u.text, x->len, y->u.text, y->len);
        }
        if (m) {
            hit = y;
            hits++;
        }
    }
    return hits == 1 ? hit : NULL;
}

/* Builds the trial values for one error. */
static void make_trials(coerce_ctx *c, const coax_value *root, const coax_schema_error *e, trials *ts)
{
    const coax_value *parent, *kv, *x;
    char kw[128];
    ts->n = 0;
    if (!keyword_at(c->doc, e->keyword_location, &parent, kw, sizeof kw, &kv)) return;
    const char *loc = e->instance_location;
    size_t llen = strlen(loc);
    if (coax_pointer_get(root, loc, llen, &x)) return;
    coax_arena *a = c->arena;

    if (!strcmp(kw, "type")) {
        size_t n = kv->type == COAX_ARRAY ? kv->len : 1;
        for (size_t i = 0; i < n; i++) {
            const coax_value *t = kv->type == COAX_ARRAY ? &kv->u.items[i] : kv;
            const char *kind = NULL;
            if (t->type != COAX_STRING) continue;
            coax_value *conv = convert(c, x, t->u.text, &kind);
            if (conv) add_trial(ts, kind, "converted the value to the type the schema asks for",
                                coax_value_replace(a, root, loc, llen, conv));
        }
    } else if ((!strcmp(kw, "enum") && kv->type == COAX_ARRAY) || !strcmp(kw, "const")) {
        const coax_value *hit = kv->type == COAX_ARRAY && strcmp(kw, "const") ? loose_match(x, kv->u.items, kv->len)
                                                                              : loose_match(x, kv, 1);
        if (hit) {
            coax_value *copy = coax_value_copy(a, hit);
            add_trial(ts, !strcmp(kw, "const") ? "const_match" : "enum_match",
                      "matched the allowed value ignoring case and surrounding spaces",
                      copy ? coax_value_replace(a, root, loc, llen, copy) : NULL);
        }
    } else if (!strcmp(kw, "required") && x->type == COAX_OBJECT && kv->type == COAX_ARRAY) {
        const coax_value *props = member(parent, "properties");
        coax_value *cur = (coax_value *)root;
        coax_member *filled = coax_arena_alloc(a, kv->len * sizeof *filled + 1);
        size_t nfilled = 0;
        for (size_t i = 0; filled && i < kv->len && cur; i++) {
            const coax_value *name = &kv->u.items[i];
            if (name->type != COAX_STRING || coax_object_get(x, name->u.text, name->len)) continue;
            bool again = false; /* listed twice in "required" */
            for (size_t k = 0; k < nfilled && !again; k++)
                again = filled[k].klen == name->len && !memcmp(filled[k].key, name->u.text, name->len);
            if (again) continue;
            const coax_value *ps = deref(c->doc, props ? coax_object_get(props, name->u.text, name->len) : NULL);
            const coax_value *def = member(ps, "default");
            if (!def) continue; /* no default: nothing to fill without inventing */
            coax_value *copy = coax_value_copy(a, def);
            cur = copy ? coax_value_add_member(a, cur, loc, llen, name->u.text, name->len, copy) : NULL;
            filled[nfilled++] = (coax_member){name->u.text, name->len, {0}};
        }
        add_member_trial(a, ts, "default_filled", "filled a missing required property from its schema default",
                         cur, loc, llen, filled, nfilled);
    } else if (!strcmp(kw, "additionalProperties") && kv->type == COAX_BOOL && !kv->u.boolean &&
               !member(parent, "patternProperties")) {
        /* The error is at the object or at the property, as validators
        ** differ: drop every property the schema does not list. */
        const coax_value *obj = x;
        const char *oloc = loc;
        size_t olen = llen;
        if (obj->type != COAX_OBJECT) {
            const char *slash = strrchr(loc, '/');
            if (!slash) return;
            olen = (size_t)(slash - loc);
            if (coax_pointer_get(root, loc, olen, &obj) || obj->type != COAX_OBJECT) return;
            oloc = loc;
        }
        const coax_value *props = member(parent, "properties");
        coax_value *cur = (coax_value *)root;
        coax_member *dropped = coax_arena_alloc(a, obj->len * sizeof *dropped + 1);
        size_t ndropped = 0;
        for (size_t i = 0; dropped && i < obj->len && cur; i++) {
            const coax_member *m = &obj->u.members[i];
            if (props && coax_object_get(props, m->key, m->klen)) continue;
            cur = coax_value_remove_member(a, cur, oloc, olen, m->key, m->klen);
            dropped[ndropped++] = *m;
        }
        add_member_trial(a, ts, "property_dropped", "dropped a property the schema forbids", cur, oloc, olen,
                         dropped, ndropped);
    }
}

/* Whether 'after' fixes error 'e': fewer errors in all, and none left at or
** under its location ('subtree': a value was replaced there) or, for a fix
** of the object itself (a property filled or dropped), none left from the
** same keyword at the same place. */
static bool improves(const coax_validation *before, const coax_validation *after, const coax_schema_error *e,
                     bool subtree)
{
    if (after->nerrors >= before->nerrors) return false;
    const char *loc = e->instance_location;
    size_t n = strlen(loc);
    for (size_t i = 0; i < after->nerrors; i++) {
        const coax_schema_error *x = &after->errors[i];
        const char *l = x->instance_location;
        if (subtree) {
            if (!strncmp(l, loc, n) && (l[n] == '\0' || l[n] == '/')) return false;
        } else if (!strcmp(l, loc) && !strcmp(x->keyword_location, e->keyword_location)) {
            return false;
        }
    }
    return true;
}

static coax_code log_coercion(coerce_ctx *c, const char *kind, const char *detail, const char *loc)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        coax_coercion *l = coax_arena_alloc(c->arena, cap * sizeof *l);
        if (!l) return COAX_ENOMEM;
        if (c->n) memcpy(l, c->log, c->n * sizeof *l);
        c->log = l;
        c->cap = cap;
    }
    char *p = coax_arena_strdup(c->arena, loc, strlen(loc));
    if (!p) return COAX_ENOMEM;
    c->log[c->n++] = (coax_coercion){kind, p, detail, COAX_CLASS_INFERRED}; /* classes per kind: issue 18 */
    return COAX_OK;
}

coax_code coerce_candidate(coerce_ctx *c, const coax_value *v, const coax_value **out, coax_validation *val)
{
    coax_code rc = coax_validate(c->schema, v, c->arena, 0, val, c->err);
    if (rc) return rc;
    int budget = MAX_VALIDATIONS;
    while (!val->valid && c->doc && budget > 0) {
        bool accepted = false;
        for (size_t i = 0; i < val->nerrors && !accepted; i++) {
            trials ts;
            const coax_schema_error *e = &val->errors[i];
            coax_arena_mark mark = coax_arena_get_mark(c->arena);
            make_trials(c, v, e, &ts);
            for (size_t k = 0; k < ts.n && !accepted && budget > 0; k++, budget--) {
                coax_validation tv;
                rc = coax_validate(c->schema, ts.t[k].root, c->arena, 0, &tv, c->err);
                if (rc) return rc;
                if (improves(val, &tv, e, ts.t[k].subtree)) {
                    const trial *t = &ts.t[k];
                    for (size_t p = 0; p < (t->pointers ? t->npointers : 1); p++)
                        if ((rc = log_coercion(c, t->kind, t->detail, t->pointers ? t->pointers[p] : e->instance_location)))
                            return rc;
                    v = ts.t[k].root;
                    *val = tv;
                    accepted = true;
                }
            }
            if (!accepted) coax_arena_rewind(c->arena, mark);
        }
        if (!accepted) break;
    }
    *out = v;
    return COAX_OK;
}
