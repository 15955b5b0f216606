/*
** decimal.h: Pydantic's Decimal pattern without PCRE2 (decimal.c).
*/
#ifndef COAX_SCHEMA_DECIMAL_H
#define COAX_SCHEMA_DECIMAL_H

#include "base/core.h"
#include "regex/regex.h"

/* Whether pattern p[0..len) is Pydantic's Decimal pattern. */
bool coax_decimal_pattern(const char *p, size_t len);

/* 1 when s[0..n) is a plain decimal number (it matches the pattern), with
** the regex steps PCRE2 takes to match it in '*cost'; -1 when the string
** is another (PCRE2 tells). */
int coax_decimal_match(const char *s, size_t n, uint64_t *cost);

/* Whether the PCRE2 at hand counts those steps ('re': the pattern
** compiled); false when it does not (or out of memory). */
bool coax_decimal_agrees(const coax_regex_env *env, const coax_regex *re);

#endif
