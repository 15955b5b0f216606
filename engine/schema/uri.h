/*
** uri.h: RFC 3986 references, as JSON Schema uses them for $id, $ref and
** friends: resolution against a base, and the split at '#'.
*/
#ifndef COAX_URI_H
#define COAX_URI_H

#include "base/core.h"

/* Resolves 'ref' (ref[0..len)) against 'base' (NUL-terminated, absolute or
** not; "" for none) as RFC 3986 section 5.2 says, with dot segments removed,
** the scheme and host lower-cased and an empty fragment ("x#") dropped.
** Returns a NUL-terminated string in 'arena', or NULL when out of memory. */
char *coax_uri_resolve(coax_arena *arena, const char *base, const char *ref,
                       size_t len);

/* The length of the part of 'uri' before its '#' (the whole when none). */
size_t coax_uri_doc_len(const char *uri);

/* Percent-decodes s[0..len) into a new arena string ('*out_len' its length).
** Invalid escapes are kept as written. NULL when out of memory. */
char *coax_uri_unescape(coax_arena *arena, const char *s, size_t len,
                        size_t *out_len);

#endif
