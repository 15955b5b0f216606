/*
** coerce.h: schema-aligned coercion of one candidate (coerce.c), used by
** coax_extract (extract.c).
*/
#ifndef COAX_COERCE_H
#define COAX_COERCE_H

#include "core.h"

typedef struct coerce_ctx {
    coax_arena *arena;
    const coax_schema *schema;
    const coax_value *doc; /* the schema document: where keywords are looked up */
    int draft;
    coax_error *err;
    /* The coercions of the candidate being coerced (arena memory). */
    coax_coercion *log;
    size_t n, cap;
} coerce_ctx;

/* Validates 'v' and, while it is invalid, applies coercions that make a
** failing location pass without new errors, until none applies. Sets
** '*out' to the final value and 'val' to its validation. Returns COAX_OK or
** a validation failure (limit, memory). */
coax_code coerce_candidate(coerce_ctx *c, const coax_value *v, const coax_value **out,
                           coax_validation *val);

#endif
