/*
** scan.h: the byte scanners of the streaming reader's tokens (reader.c),
** which know nothing of the reader: where a run of string characters ends
** (plain ASCII sixteen bytes at a time through the strict parser's scanner,
** whole UTF-8 characters checked as RFC 3629 says) and the number lexer
** (JSON's grammar as states, one byte at a time, digits a run at a time).
** A piece is read in place: nothing is read past its end.
*/
#ifndef COAX_STREAM_SCAN_H
#define COAX_STREAM_SCAN_H

#include "base/bytes.h"
#include "base/core.h"
#include "json/parse_scan.h"

/* Inside a number (JSON's grammar). */
enum { N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };

/* The number lexer: the next state for 'c', or -1 when 'c' does not
** continue the number. */
static inline int number_next(int s, unsigned char c)
{
    bool digit = c >= '0' && c <= '9';
    switch (s) {
    case N_MINUS: return c == '0' ? N_ZERO : digit ? N_INT : -1;
    case N_ZERO: return c == '.' ? N_DOT : (c == 'e' || c == 'E') ? N_E : -1;
    case N_INT: return digit ? N_INT : c == '.' ? N_DOT : (c == 'e' || c == 'E') ? N_E : -1;
    case N_DOT: return digit ? N_FRAC : -1;
    case N_FRAC: return digit ? N_FRAC : (c == 'e' || c == 'E') ? N_E : -1;
    case N_E: return digit ? N_EXP : (c == '+' || c == '-') ? N_ESIGN : -1;
    case N_ESIGN: return digit ? N_EXP : -1;
    default: return digit ? N_EXP : -1;
    }
}

/* Whether a number may end in state 's' (what follows then proves it did). */
static inline bool number_may_end(int s) { return s == N_ZERO || s == N_INT || s == N_FRAC || s == N_EXP; }

/* Whether the number lexer stays in state 's' on a digit. */
static inline bool digits_stay(int s) { return s == N_INT || s == N_FRAC || s == N_EXP; }

/* Where the number's bytes from p[k] end (the lexer in state '*s', left
** in the state after them). */
static inline size_t number_scan(const unsigned char *p, size_t k, size_t len, int *s)
{
    int next;
    while (k < len) {
        if (digits_stay(*s) && p[k] >= '0' && p[k] <= '9') { /* most bytes of a number */
            k++;
            continue;
        }
        if ((next = number_next(*s, p[k])) < 0) break;
        *s = next;
        k++;
    }
    return k;
}

/* The length of the valid UTF-8 character at s[0..n) (RFC 3629: no
** overlongs, no surrogates), or 0 when it is not one or not whole (the
** reader's byte machine then reads it). */
static inline size_t utf8_char(const unsigned char *s, size_t n)
{
    unsigned char lo = 0x80, hi = 0xBF;
    size_t need;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        need = 2;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        need = 3;
        if (s[0] == 0xE0) lo = 0xA0;
        else if (s[0] == 0xED) hi = 0x9F;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        need = 4;
        if (s[0] == 0xF0) lo = 0x90;
        else if (s[0] == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (n < need || s[1] < lo || s[1] > hi) return 0;
    for (size_t k = 2; k < need; k++)
        if (s[k] < 0x80 || s[k] > 0xBF) return 0;
    return need;
}

/* The end of the run of plain string characters from p[i] (ASCII other than
** '"', '\\' and controls): sixteen bytes at a time with the strict parser's
** scanner (stop_at) where sixteen remain in the piece (it is read in place,
** with no padding after it), then eight at a time, then a byte at a time. */
static inline size_t ascii_run(const unsigned char *p, size_t i, size_t len)
{
    size_t at;
    for (; i + 16 <= len; i += 16)
        if (stop_at((const char *)p + i, &at)) return i + at;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (i + 8 <= len) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        uint64_t stop = word_json_stops(w); /* the lowest byte flagged is right */
        if (stop) return i + (size_t)(__builtin_ctzll(stop) >> 3);
        i += 8;
    }
#endif
    while (i < len && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' && p[i] != '\\') i++;
    return i;
}

/* string_run from a byte above 0x7F: whole, valid UTF-8 characters and the
** plain characters between them. Out of line: most strings are ASCII
** (unused: a file may include this header and read no string). */
static __attribute__((noinline, unused)) size_t utf8_run(const unsigned char *p, size_t i, size_t len)
{
    for (;;) {
        size_t n = utf8_char(p + i, len - i);
        if (!n) return i;
        i = ascii_run(p, i + n, len);
        if (i >= len || p[i] < 0x80) return i;
    }
}

/* The end of the run of string characters from p[i]: plain ones and whole,
** valid UTF-8 characters. */
static inline size_t string_run(const unsigned char *p, size_t i, size_t len)
{
    i = ascii_run(p, i, len);
    return i < len && p[i] >= 0x80 ? utf8_run(p, i, len) : i;
}

#endif
