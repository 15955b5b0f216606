/*
** unwrapped.c: a list's items each taken out of a list of one, inside a
** list of one. Where the reply nests its lists one level too deep, the
** coercion may take the innermost level out ([[[1], [2]]] for a list of
** lists of numbers gives [[1, 2]]) where dropping the list of one around
** them reads the schema's way too ([[1], [2]]): two readings, one taken.
** Likewise one level too shallow: [[4], [5], [6]] where lists of lists of
** lists of numbers are due is [[[4]], [[5]], [[6]]] or [[[4], [5], [6]]].
*/
#include "extract/coerce.h"
#include "json/pointer.h"

#include <stdlib.h>

/* A list above is looked at, each with one validation, at most this often;
** past it, one is taken to read the other way. */
#define UNWRAPPED_LOOKS 16

/* 'v' with the value at p[0..n) (a place in it) made 'with', copied along
** the way; NULL out of memory. */
static const coax_value *with_at(coax_arena *a, const coax_value *v, const char *p, size_t n, const coax_value *with)
{
    if (!n) return with;
    size_t end = 1;
    while (end < n && p[end] != '/') end++;
    const coax_value *child;
    if (coax_pointer_get(v, p, end, &child)) return NULL;
    size_t i = 0;
    if (v->type == COAX_ARRAY) i = (size_t)(child - v->u.items);
    else
        while (i < v->len && &v->u.members[i].value != child) i++;
    const coax_value *sub = with_at(a, child, p + end, n - end, with);
    coax_value *copy = coax_arena_alloc(a, sizeof *copy);
    if (!sub || !copy || i >= v->len) return NULL;
    *copy = *v;
    if (v->type == COAX_ARRAY) {
        coax_value *items = coax_arena_alloc(a, v->len * sizeof *items);
        if (!items) return NULL;
        memcpy(items, v->u.items, v->len * sizeof *items);
        items[i] = *sub;
        copy->u.items = items;
    } else {
        coax_member *members = coax_arena_alloc(a, v->len * sizeof *members);
        if (!members) return NULL;
        memcpy(members, v->u.members, v->len * sizeof *members);
        members[i].value = *sub;
        copy->u.members = members;
    }
    return copy;
}

/* Whether the list at p[0..n) in 'value', written as a list there in
** 'written' too, reads the schema's way another way, and then differs from
** 'value': for an unwrapping below ('wrap' false), that list of one dropped,
** as written inside; for a wrapping ('wrap'), the list as written put in a
** list of one. */
static coax_code reads_other(coerce_ctx *c, const coax_value *value, const coax_value *written, const char *p,
                             size_t n, bool wrap, char *scratch, size_t *looks, bool *other)
{
    const coax_value *at, *was;
    *other = false;
    /* only a list above is looked for: its item's token is a number (a wide object's members through an index) */
    if (p[n + 1] < '0' || p[n + 1] > '9' ||
        coax_pointer_walk(value, p, n, coerce_indexed_member, c, scratch, &at) || at->type != COAX_ARRAY ||
        coax_pointer_walk(written, p, n, coerce_indexed_member, c, scratch, &was) || was->type != COAX_ARRAY ||
        (wrap ? at->len != was->len : at->len != 1 || was->len != 1))
        return COAX_OK;
    const coax_value *instead = wrap ? NULL : &was->u.items[0];
    if (wrap) {
        coax_value *one = coax_new_value(c->arena, COAX_ARRAY), *item = coax_arena_alloc(c->arena, sizeof *item);
        if (!one || !item) return COAX_ENOMEM;
        *item = *was;
        one->len = 1;
        one->u.items = item;
        instead = one;
    }
    /* the same value either way is one reading: no validation spent on it */
    int same = coax_value_equal(instead, at, coax_arena_allocator(c->arena));
    if (same) return same < 0 ? COAX_ENOMEM : COAX_OK;
    if (++*looks > UNWRAPPED_LOOKS) {
        *other = true;
        return COAX_OK;
    }
    const coax_value *alt = with_at(c->arena, value, p, n, instead);
    if (!alt) return COAX_ENOMEM;
    coax_validation v;
    coax_code rc = coax_validate(c->schema, alt, c->arena, 0, &v, c->err);
    *other = !rc && v.valid;
    return rc;
}

/* The place of the first value the coercion put in a list of one or took out of one, when the
** repair placed a bracket of the candidate (closed it at the end, inserted or replaced it): where
** a list ends is then the repair's guess, and lists reshaped until the value fits hide it ([[1,
** [2]] closed at the end and [2] unwrapped gives [[1, 2]] where [[1], [2]] lost its bracket). */
static const char *reshaped_after_bracket(const coerce_ctx *c, const coax_candidate *cand)
{
    static const char *const placed[] = {"closed_bracket", "missing_bracket", "mismatched_bracket"};
    bool guessed = false;
    for (size_t i = 0; i < cand->nlog && !guessed; i++)
        for (size_t k = 0; k < sizeof placed / sizeof *placed; k++) guessed |= !strcmp(cand->log[i].kind, placed[k]);
    for (size_t i = 0; guessed && i < c->n; i++)
        if (!strcmp(c->log[i].kind, "wrap_in_array") || !strcmp(c->log[i].kind, "unwrap_array"))
            return c->log[i].pointer;
    return NULL;
}

coax_code coerce_unwrapped_items_place(coerce_ctx *c, const coax_value *value, const coax_candidate *cand,
                                       const char **at, const char **why)
{
    const coax_value *written = cand->value;
    if ((*at = reshaped_after_bracket(c, cand))) {
        *why = "a list reshaped (a value put in a list of one, or taken out of one) where the repair placed a lost "
               "bracket: where the list ends is a guess; send the lists as you mean them";
        return COAX_OK;
    }
    size_t looks = 0;
    /* after an envelope, the log's places are in the value it held */
    if (c->n && !strcmp(c->log[0].kind, "envelope_unwrapped") && written->type == COAX_OBJECT && written->len == 1)
        written = &written->u.members[0].value;
    const char *last = NULL; /* the coerced value before: siblings share the places above */
    *at = NULL;
    for (size_t i = 0; i < c->n && !*at; i++) {
        const char *p = c->log[i].pointer;
        bool wrap = !strcmp(c->log[i].kind, "wrap_in_array");
        if (!wrap && strcmp(c->log[i].kind, "unwrap_array")) continue;
        /* each list above the value, the nearest first, the root last; for an unwrapping, bar its own */
        size_t n = strlen(p);
        char *scratch = coax_arena_alloc(c->arena, n + 1); /* a token's escapes undone */
        if (!scratch) return COAX_ENOMEM;
        if (!wrap)
            while (n && p[--n] != '/') {}
        while (n && !*at) {
            while (n && p[--n] != '/') {}
            if (last && !strncmp(last, p, n) && last[n] == '/') continue;
            bool other;
            coax_code rc = reads_other(c, value, written, p, n, wrap, scratch, &looks, &other);
            if (rc) return rc;
            if (other && !(*at = coax_arena_strdup(c->arena, p, n))) return COAX_ENOMEM;
            *why = wrap ? "a list whose items' items were each put in a list of their own: the list put in one "
                          "list instead is another reading; send the lists as you mean them"
                        : "a list of one around lists whose items were taken out of lists of one: the list of "
                          "one dropped instead is another reading; send the lists as you mean them";
        }
        last = p;
    }
    return COAX_OK;
}

/* Whether log entry 'p' is a wrap_in_array of an item of an array: then
** *plen is the length of the array's pointer. */
static bool wrapped_item(const coax_coercion *e, size_t *plen)
{
    const char *p = e->pointer, *slash = strrchr(p, '/');
    if (strcmp(e->kind, "wrap_in_array") || !slash || !slash[1] || slash[1 + strspn(slash + 1, "0123456789")])
        return false;
    *plen = (size_t)(slash - p);
    return true;
}

/* A wrapped item (wrapped_item): its pointer, its list's pointer's length,
** its index and its place in the log. */
typedef struct wrapped {
    const char *p;
    size_t plen;
    unsigned long idx;
    size_t at;
} wrapped;

/* Whether two wrapped items are items of one list. */
static bool same_list(const wrapped *a, const wrapped *b)
{
    return a->plen == b->plen && !memcmp(a->p, b->p, a->plen);
}

/* By list, then index, then place in the log. */
static int by_list(const void *x, const void *y)
{
    const wrapped *a = x, *b = y;
    if (a->plen != b->plen) return a->plen < b->plen ? -1 : 1;
    int d = memcmp(a->p, b->p, a->plen);
    if (d) return d;
    if (a->idx != b->idx) return a->idx < b->idx ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* A list whose items the coercion wrapped each in a list of its own, none of them written as a list: one list of
** them all ([[1, 2, 3]]) is as much the reply's reading as a list of each ([[1], [2], [3]]): "points": [3, 4] for a
** list of points was one point. So are values one after the other (1\n2\n3), read as a list, where one wrapped item
** is enough to doubt. Its place is the first wrapped item's list, *why saying so; so is a list of one whose items'
** items were unwrapped, or a list whose items' items were wrapped (coerce_unwrapped_items_place). The wrapped
** items are sorted by list once: comparing each with every other was quadratic (16,000 lists of one, 250 KB, 7 s). */
coax_code coerce_wrapped_items_place(coerce_ctx *c, const coax_value *value, const coax_candidate *cand,
                                     const char **at, const char **why)
{
    if (cand->source == COAX_SOURCE_SEQUENCE) {
        for (size_t i = 0; i < c->n; i++) {
            size_t plen;
            if (!wrapped_item(&c->log[i], &plen) || plen || value->type != COAX_ARRAY) continue;
            *why = "values one after the other, each put in a list of its own: one list of them all is another "
                   "reading; send one JSON value";
            return (*at = coax_arena_strdup(c->arena, c->log[i].pointer, strlen(c->log[i].pointer))) ? COAX_OK
                                                                                                      : COAX_ENOMEM;
        }
        return coerce_unwrapped_items_place(c, value, cand, at, why);
    }
    size_t n = 0, longest = 0;
    for (size_t i = 0; i < c->n; i++) {
        size_t plen;
        n += wrapped_item(&c->log[i], &plen);
    }
    wrapped *w = n ? coax_arena_alloc(c->arena, n * sizeof *w) : NULL;
    if (n && !w) return COAX_ENOMEM;
    n = 0;
    for (size_t i = 0; i < c->n; i++) {
        size_t plen;
        if (!wrapped_item(&c->log[i], &plen)) continue;
        const char *p = c->log[i].pointer;
        w[n++] = (wrapped){p, plen, strtoul(p + plen + 1, NULL, 10), i};
        if (plen > longest) longest = plen;
    }
    if (n) qsort(w, n, sizeof *w, by_list); /* w is NULL for none, which qsort may not take */
    char *scratch = coax_arena_alloc(c->arena, longest + 1); /* a token's escapes undone */
    if (!scratch) return COAX_ENOMEM;
    /* Each list's wrapped items together: the first wrapped item "/0" (in the log's order) of a list of two or
    ** more whose items were all wrapped; failing that, the first of two items side by side each wrapped
    ** ([["a", "b"], "c", "d"]: one list of both, its brackets lost, is as much the reading). */
    const wrapped *all = NULL, *side = NULL;
    for (size_t g = 0, e; g < n; g = e) {
        const wrapped *first = NULL;
        for (e = g; e < n && same_list(&w[e], &w[g]); e++) {
            if (!strcmp(w[e].p + w[e].plen, "/0") && (!first || w[e].at < first->at)) first = &w[e];
            /* an item whose next index is wrapped too: the run of its index ends where the next begins */
            bool same = e + 1 < n && same_list(&w[e + 1], &w[e]);
            if (same && w[e + 1].idx == w[e].idx) continue; /* not the run's end */
            bool next = same && w[e + 1].idx == w[e].idx + 1;
            for (size_t k = e; next; k--) { /* each item of this index */
                if (!side || w[k].at < side->at) side = &w[k];
                if (k == g || w[k - 1].idx != w[e].idx) break;
            }
        }
        const coax_value *list;
        if (first && e - g >= 2 && (!all || first->at < all->at) &&
            !coax_pointer_walk(value, first->p, first->plen, coerce_indexed_member, c, scratch, &list) &&
            list->type == COAX_ARRAY && list->len >= 2 && e - g >= list->len)
            all = first;
    }
    if (all || side) {
        const wrapped *x = all ? all : side;
        *why = all ? "a list whose items were each put in a list of their own: one list of them all is another "
                     "reading; send the lists as you mean them"
                   : "items side by side, each put in a list of its own: one list of both, its brackets lost, is "
                     "another reading; send the lists as you mean them";
        return (*at = coax_arena_strdup(c->arena, x->p, x->plen)) ? COAX_OK : COAX_ENOMEM;
    }
    return coerce_unwrapped_items_place(c, value, cand, at, why);
}
