/*
** example.h: example instances (internal). example.c walks the compiled
** schema (references already resolved by the compiler) and builds
** candidates; example/scalar.c makes numbers and strings (formats,
** lengths, bounds); example/pattern.c makes a string a pattern matches;
** example/unique.c files the items of a uniqueItems array by hash;
** example/properties.c finds an object's property names through indexes.
** Every candidate is checked with the validator before it is kept.
*/
#ifndef COAX_EXAMPLE_H
#define COAX_EXAMPLE_H

#include "schema/schema.h"
#include "schema/map.h"

/* The most subschemas one conjunction holds (allOf members, reference
** targets, chosen anyOf/oneOf branches); more are left to the validator. */
#define EX_MAXCONJ 48

typedef struct ex_ctx {
    const coax_schema *s;
    const coax_allocator *alloc; /* the caller's arena's */
    coax_arena *work;    /* candidate values */
    coax_arena *scratch; /* validation results, rewound after each check */
    size_t max_depth;    /* nesting of the instance */
    size_t steps;        /* generation steps left (the budget) */
    coax_vpool pool;     /* validation work left for checking candidates */
    coax_regex_scratch *re_scratch; /* for patternProperties' keys */
    size_t checks;       /* validations run */
    size_t nest;         /* generation calls in progress (C stack depth) */
    coax_code rc;        /* the first hard failure (out of memory) */
    unsigned limited;    /* COAX_EXAMPLE_HIT_*: a bound cut generation short */
    const snode **path;  /* subschemas of the enclosing instances */
    size_t npath, cpath;
} ex_ctx;

/* A conjunction: subschemas an instance must satisfy together. The first
** 'nbase' are the ones the caller asked for (checked); the rest were added
** by flattening (allOf, references). 'decided' lists the anyOf/oneOf/if
** keywords whose branch is already chosen. */
typedef struct ex_conj {
    const snode *n[EX_MAXCONJ];
    size_t len, nbase;
    const skw *decided[EX_MAXCONJ];
    size_t ndecided;
    bool bottom; /* holds the false schema */
} ex_conj;

/* Scalars (example/scalar.c). Each returns candidate number 'attempt' of
** its kind for the conjunction, or NULL when there is no such candidate
** (c->rc is set when memory ran out). 'variant' makes items of a
** uniqueItems array differ. */
coax_value *ex_number(ex_ctx *c, const ex_conj *L, bool integer, size_t variant, size_t attempt);
coax_value *ex_string(ex_ctx *c, const ex_conj *L, size_t variant, size_t attempt);

/* A string for format 'fmt' (NULL when coax knows no example for it). */
coax_value *ex_format(ex_ctx *c, const char *fmt, size_t variant);

/* Appends to 'b' a string that pattern p[0..len) matches, repeating each
** unbounded quantifier 'extra' more times than its minimum. Returns false
** for constructs it cannot generate (back-references, deep nesting). */
bool ex_regex_string(coax_buf *b, const char *p, size_t len, size_t extra, size_t variant);

/* The items of an array under uniqueItems made so far, by hash
** (example/unique.c), in arena 'work'. */
typedef struct ex_items {
    uint32_t *slots;  /* open addressing: an item's index + 1, 0 for none */
    uint64_t *hashes; /* per item */
    uint64_t seed;
    size_t mask;
} ex_items;

/* Room for 'total' items; false when out of memory. */
bool ex_items_init(coax_arena *work, ex_items *set, size_t total);

/* 1 when 'v' equals one of items[] in the set, 0 when not ('*h' is then
** its hash and '*slot' where it goes), -1 when out of memory. */
int ex_items_has(coax_arena *work, const ex_items *set, const coax_value *items, const coax_value *v, uint64_t *h,
                 size_t *slot);

/* An object's property names in order (example/properties.c), found through
** 'index', the included ones counted as ex_include changes them. */
typedef struct ex_name {
    const char *key;
    size_t klen;
    bool required, include;
} ex_name;

typedef struct ex_names {
    ex_name *v;
    size_t n, cap;
    size_t included;
    smap index; /* name -> its place in v + 1 */
} ex_names;

void ex_names_reset(ex_names *ns);
ex_name *ex_name_find(const ex_names *ns, const char *k, size_t kl);
/* The name k[0..kl), added (neither required nor included) when absent;
** NULL when out of memory (c->rc). */
ex_name *ex_name_add(ex_ctx *c, ex_names *ns, const char *k, size_t kl);
void ex_include(ex_names *ns, ex_name *p, bool on);

/* Whether the "properties" object 'props' has a member named key[0..kl)
** at or after *j, which it then sets: a large one through an index built
** at its first look, into 'indexes' (one object's generation, in c->work). */
bool ex_prop_next(ex_ctx *c, smap *indexes, const coax_value *props, const char *key, size_t kl, size_t *j);

/* The string member 'key' of an object schema node, or NULL. */
const coax_value *ex_member(const snode *n, const char *key);

#endif
