/*
** num.h: exact decimal tests on JSON number texts (num.c).
*/
#ifndef COAX_SCHEMA_NUM_H
#define COAX_SCHEMA_NUM_H

#include "base/core.h"

#include <limits.h>

/* True when the number t[0..n) has no fractional part (1.0, 1e2, -0). */
bool coax_num_is_integral(const char *t, size_t n);

/* A non-negative integral number as a size, SIZE_MAX when larger; false
** for negative or fractional numbers. */
bool coax_num_to_size(const char *t, size_t n, size_t *out);

/* 1 when x is an integer multiple of d (d > 0), else 0. Exact unless d has
** more than 18 significant digits (then in double precision). */
int coax_num_multiple(const char *x, size_t xn, const char *d, size_t dn);

#endif
