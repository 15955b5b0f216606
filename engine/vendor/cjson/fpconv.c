/* fpconv - Floating point conversion routines
 *
 * Copyright (c) 2011-2012  Mark Pulford <mark@kyne.com.au>
 *
 * Permission is hereby granted, free of charge, to any person obtaining
 * a copy of this software and associated documentation files (the
 * "Software"), to deal in the Software without restriction, including
 * without limitation the rights to use, copy, modify, merge, publish,
 * distribute, sublicense, and/or sell copies of the Software, and to
 * permit persons to whom the Software is furnished to do so, subject to
 * the following conditions:
 *
 * The above copyright notice and this permission notice shall be
 * included in all copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
 * EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
 * MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
 * IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
 * CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
 * TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
 * SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 */

/* coax: numbers are read and written with a '.' whatever the host's locale,
 * decided at each call by the engine's engine/base/dot_number.c. Stock fpconv
 * read the locale's decimal point once, when cjson was opened, and kept it
 * in a static: a host that set its locale afterwards (GTK and Qt do, at
 * start) had "1,5]" read as one and a half and 1.5 written as "1,5"; and it
 * called abort() when the copy of a long number could not be allocated. */

#include <assert.h>
#include <stddef.h>

#include "fpconv.h"

double coax_dot_strtod(const char *s, char **end);
int coax_dot_format(char *buf, size_t cap, const char *fmt, double d);

double fpconv_strtod(const char *nptr, char **endptr)
{
    return coax_dot_strtod(nptr, endptr);
}

/* "fmt" must point to a buffer of at least 6 characters */
static void set_number_format(char *fmt, int precision)
{
    int d1, d2, i;

    assert(1 <= precision && precision <= 14);

    /* Create printf format (%.14g) from precision */
    d1 = precision / 10;
    d2 = precision % 10;
    fmt[0] = '%';
    fmt[1] = '.';
    i = 2;
    if (d1) {
        fmt[i++] = '0' + d1;
    }
    fmt[i++] = '0' + d2;
    fmt[i++] = 'g';
    fmt[i] = 0;
}

/* Assumes there is always at least 32 characters available in the target buffer */
int fpconv_g_fmt(char *str, double num, int precision)
{
    char fmt[6];

    set_number_format(fmt, precision);
    return coax_dot_format(str, FPCONV_G_FMT_BUFSIZE, fmt, num);
}

void fpconv_init()
{
}

/* vi:ai et sw=4 ts=4:
 */
