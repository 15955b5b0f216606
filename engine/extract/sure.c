/*
** sure.c: what `coax repair` and coax.repair accept without a schema.
**
** coax_repair reads every candidate and picks one, guesses included: its
** log's classes say how certain each fix is. A caller with no schema still
** must not get a guess as an answer ("1,2,3" read as 3, `{"a"2}` as
** {"a\"2": null}), so the value is judged exactly as coax_extract judges
** one: with the schema true, which every candidate fits, only the rules
** about the reply itself are left (a repair less certain than max_class,
** two different answers, a reply cut off, a value labelled an example).
*/
#include "extract/coerce.h"

#include <string.h>

coax_code extract_sure_repair(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                              const coax_extract_options *options, coax_extract_result *out, coax_error *err)
{
    static const coax_value anything = {.type = COAX_OBJECT}; /* {} */
    coax_schema_options so = {.flags = COAX_SCHEMA_NO_META};
    coax_schema *schema;
    coax_code rc = coax_schema_compile(&anything, &so, coax_arena_allocator(arena), &schema, err);
    if (rc) return rc;
    rc = coax_extract(arena, schema, text, len, limits, options, out, err);
    coax_schema_free(schema); /* nothing in the result points into it: {} makes no errors of its own */
    return rc;
}

coax_code extract_guess_repair(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                               coax_extract_result *out, coax_error *err)
{
    memset(out, 0, sizeof *out);
    coax_code rc = coax_repair(arena, text, len, limits, &out->repair, err);
    out->valid = rc == COAX_OK;
    out->value = out->repair.value;
    out->candidate = out->repair.chosen;
    return rc;
}

coax_class extract_least_class(const coax_extract_result *r)
{
    coax_class least = COAX_CLASS_LOSSLESS;
    for (size_t i = 0; i < r->repair.nlog; i++)
        if (r->repair.log[i].cls > least) least = r->repair.log[i].cls;
    for (size_t i = 0; i < r->ncoercions; i++)
        if (r->coercions[i].cls > least) least = r->coercions[i].cls;
    return least;
}

const coax_repair_entry *extract_first_guess(const coax_extract_result *r)
{
    for (size_t i = 0; i < r->repair.nlog; i++)
        if (r->repair.log[i].cls == COAX_CLASS_INVENTED) return &r->repair.log[i];
    return NULL;
}
