/*
** ecma.h: ECMA-262 regular expressions (with the "u" flag, as JSON Schema
** reads "pattern", "patternProperties" and "format": "regex") checked and
** translated into PCRE2 syntax with the same meaning.
*/
#ifndef COAX_ECMA_H
#define COAX_ECMA_H

#include "base/core.h"

/* Checks pattern p[0..len) (UTF-8) against the ECMA-262 grammar with the
** "u" flag and, when 'out' is not NULL, appends its PCRE2 translation, to be
** compiled with PCRE2_UTF | PCRE2_MATCH_UNSET_BACKREF and without
** PCRE2_UCP (so \b and \w stay ASCII, as in ECMA-262). Returns COAX_OK;
** COAX_EINVAL for a pattern ECMA-262 rejects ('err->msg' says why,
** 'err->offset' is the byte position); COAX_ENOMEM. 'err' may be NULL. */
coax_code coax_ecma_translate(const char *p, size_t len, coax_buf *out,
                              const coax_allocator *alloc, coax_error *err);

#endif
