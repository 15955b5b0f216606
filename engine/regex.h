/*
** regex.h: regular expressions for "pattern" and "patternProperties".
** PCRE2 (UTF mode) behind a small interface, so the ECMA-262 translation
** (issue 4) can change the inside without touching the validator. Compiled
** patterns are immutable; matching from several threads at once is safe
** when the allocator is.
*/
#ifndef COAX_REGEX_H
#define COAX_REGEX_H

#include "core.h"

typedef struct coax_regex_env coax_regex_env; /* contexts and limits */
typedef struct coax_regex coax_regex;         /* one compiled pattern */

/* Creates the contexts every pattern of a schema shares. 'match_limit'
** bounds the steps of one match (0: the default, 1000000). NULL: no
** memory. The allocator pointer must outlive the environment. */
coax_regex_env *coax_regex_env_new(const coax_allocator *alloc, uint32_t match_limit);
void coax_regex_env_free(coax_regex_env *env);

/* Compiles pattern p[0..len). On a syntax error returns COAX_EINVAL with a
** message in 'err' (offset: the position in the pattern). */
coax_code coax_regex_compile(coax_regex_env *env, const char *p, size_t len,
                             coax_regex **out, coax_error *err);
void coax_regex_free(coax_regex_env *env, coax_regex *re);

/* 1 when 're' matches somewhere in s[0..len) (valid UTF-8), 0 when not;
** -1 when the match limit was reached, -2 when out of memory. */
int coax_regex_match(const coax_regex_env *env, const coax_regex *re,
                     const char *s, size_t len);

#endif
