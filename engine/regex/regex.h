/*
** regex.h: ECMA-262 regular expressions for "pattern", "patternProperties"
** and "format": "regex", run by PCRE2 (ecma.c translates). Compiled
** patterns are immutable; matching from several threads at once is safe
** when the allocator is (each thread with its own scratch).
*/
#ifndef COAX_REGEX_H
#define COAX_REGEX_H

#include "base/core.h"

typedef struct coax_regex_env coax_regex_env; /* contexts and limits */
typedef struct coax_regex coax_regex;         /* one compiled pattern */

/* Creates the contexts every pattern of a schema shares. 'match_limit'
** bounds the steps of one match (0: the default, 1000000). NULL: no
** memory. The allocator pointer must outlive the environment. */
coax_regex_env *coax_regex_env_new(const coax_allocator *alloc, uint32_t match_limit);
void coax_regex_env_free(coax_regex_env *env);
/* The steps one match may take in 'env' (its match_limit, or the default). */
uint32_t coax_regex_match_limit(const coax_regex_env *env);

/* The bounds of one match's backtracking: nested points, and memory. */
#define COAX_REGEX_DEPTH_LIMIT 100000u
#define COAX_REGEX_HEAP_LIMIT_KB 16384u

/* Compiles ECMA-262 pattern p[0..len). Returns COAX_EINVAL with a message
** in 'err' for a pattern ECMA-262 rejects ("not an ECMA-262 regular
** expression: ...", offset: the position in the pattern) and for one PCRE2
** cannot run ("unsupported pattern: ...", an unbounded lookbehind);
** COAX_ENOMEM. */
coax_code coax_regex_compile(coax_regex_env *env, const char *p, size_t len,
                             coax_regex **out, coax_error *err);
void coax_regex_free(coax_regex_env *env, coax_regex *re);

/* Working memory for matches, reused from one match to the next by one
** thread. NULL: no memory. */
typedef struct coax_regex_scratch coax_regex_scratch;
coax_regex_scratch *coax_regex_scratch_new(const coax_regex_env *env);
void coax_regex_scratch_free(const coax_regex_env *env, coax_regex_scratch *scratch);

/* 1 when 're' matches somewhere in s[0..len) (valid UTF-8), 0 when not;
** -1 when the match took more steps than the match limit, -4 when its
** backtracking went deeper or took more memory than its bounds, -2 when
** out of memory. coax_regex_match_in reuses 'scratch' (which may be NULL
** when 'budget' is) and, when 'budget' is not NULL, takes the match's
** steps from '*budget' (a step: an item of the pattern tried, or 16
** characters of the subject run over): -3 when it runs out. */
int coax_regex_match(const coax_regex_env *env, const coax_regex *re,
                     const char *s, size_t len);
int coax_regex_match_in(const coax_regex_env *env, const coax_regex *re,
                        const char *s, size_t len, coax_regex_scratch *scratch,
                        uint64_t *budget);

#endif
