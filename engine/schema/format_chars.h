/*
** format_chars.h: the byte classes the format checks share (format.c,
** format_net.c), a table lookup each: the checks run on every byte of
** every formatted string.
*/
#ifndef COAX_FORMAT_CHARS_H
#define COAX_FORMAT_CHARS_H

#include "base/core.h"

/* ASCII classes by byte: */
enum {
    C_DIGIT = 1, C_ALPHA = 2, C_HEX = 4,
    C_ATEXT = 8,        /* RFC 5322 atext: letters, digits, !#$%&'*+-/=?^_`{|}~ */
    C_UNRESERVED = 16,  /* RFC 3986: letters, digits, -._~ */
    C_SUBDELIM = 32     /* RFC 3986: !$&'()*+,;= */
};
static const uint8_t char_class[256] = {
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0, 40,  0,  8, 40,  8, 40, 40, 32, 32, 40, 40, 32, 24, 16,  8,
    29, 29, 29, 29, 29, 29, 29, 29, 29, 29,  0, 32,  0, 40,  0,  8,
     0, 30, 30, 30, 30, 30, 30, 26, 26, 26, 26, 26, 26, 26, 26, 26,
    26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26,  0,  0,  0,  8, 24,
     8, 30, 30, 30, 30, 30, 30, 26, 26, 26, 26, 26, 26, 26, 26, 26,
    26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26,  8,  8,  8, 24,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
};

static inline bool is_class(int c, unsigned cls) { return (char_class[(unsigned char)c] & cls) != 0; }
static inline bool is_digit(int c) { return is_class(c, C_DIGIT); }
static inline bool is_alpha(int c) { return is_class(c, C_ALPHA); }
static inline bool is_hex(int c) { return is_class(c, C_HEX); }
static inline int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* n ASCII digits at s as a number, or -1. */
static inline int num(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!is_digit((unsigned char)s[i])) return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

#endif
