/*
** pointer.h: the JSON Pointer walk of coax_pointer_get with the lookup of
** an object's member left to the caller, so one that resolves many
** pointers into the same large objects (a schema's references into its
** "$defs") can look members up in an index it builds once.
*/
#ifndef COAX_JSON_POINTER_H
#define COAX_JSON_POINTER_H

#include "base/core.h"

/* The member of object 'obj' named by the unescaped key[0..klen) (the
** first one of that name, as coax_pointer_get finds), or NULL. */
typedef const coax_value *(*coax_member_lookup)(void *ud, const coax_value *obj, const char *key, size_t klen);

/* coax_pointer_get, but each object member is found by 'lookup' (NULL:
** a scan of the members). 'scratch' holds tokens with "~0" or "~1"
** unescaped: at least 'len' bytes, or NULL when 'lookup' is NULL. */
coax_code coax_pointer_walk(const coax_value *root, const char *p, size_t len, coax_member_lookup lookup,
                            void *ud, char *scratch, const coax_value **out);

#endif
