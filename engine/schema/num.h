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

/* Significant digits of a multipleOf that coax_num_multiple reads exactly. */
#define COAX_NUM_EXACT_DIGITS 64

/* 1 when x is an integer multiple of d (d > 0), else 0, exactly; -1 when d
** has more than COAX_NUM_EXACT_DIGITS significant digits, x is not 0 and
** x's last significant digit is worth no less than d's (else x is surely
** no multiple: 0): no answer, which a validator reports as a failure,
** never a pass. */
int coax_num_multiple(const char *x, size_t xn, const char *d, size_t dn);

#endif
