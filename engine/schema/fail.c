/*
** fail.c: a compilation's first failure, which every part of compilation
** records (names, documents, keywords): the rest of the work stops at it.
*/
#include "schema/compiled.h"

coax_code cc_fail(cc *c, coax_code code, const char *fmt, ...)
{
    if (c->rc) return c->rc;
    c->rc = code;
    va_list ap;
    va_start(ap, fmt);
    coax_failv(c->err, code, 0, fmt, ap);
    va_end(ap);
    return code;
}

coax_code cc_oom(cc *c) { return cc_fail(c, COAX_ENOMEM, "out of memory compiling the schema"); }
