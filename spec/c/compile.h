/*
** compile.h: a schema compiled from JSON text, for the C tests (the
** caller frees it with coax_schema_free); NULL when the text does not
** parse or compile.
*/
#ifndef COAX_TEST_COMPILE_H
#define COAX_TEST_COMPILE_H
#include <string.h>

#include "coax.h"

static inline coax_schema *compile(const char *json)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v = NULL;
    coax_schema *s = NULL;
    if (coax_parse(a, json, strlen(json), NULL, &v, NULL) == COAX_OK) coax_schema_compile(v, NULL, NULL, &s, NULL);
    coax_arena_free(a);
    return s;
}

#endif
