/*
** space.h: the whitespace pieces of the token estimator, for tokens.c only:
** the regex's three whitespace alternatives (\s*[\r\n]+, \s+(?!\S), \s+)
** decided from one pass over the run, which is read sixteen bytes at a
** time (SSE2), a byte at a time, or a character at a time as its bytes
** allow. Inline: the scanner is copied per encoding.
*/
#ifndef COAX_TOKENS_SPACE_H
#define COAX_TOKENS_SPACE_H

#include "tokens/chars.h"

/* What a whitespace run holds, up to where it stops and up to the end of
** its last line break. */
typedef struct space_run {
    size_t stop, last_nl_end, last_start; /* last_nl_end 0: no break */
    unsigned cnt, cnt_at_nl, cnt_last;    /* characters: all, to the last break, before the last */
    bool tabs, other, blank;              /* a tab, another space, anything but a break */
    bool tabs_nl, other_nl, blank_nl;     /* the same before the last break */
} space_run;

/* The piece the regex takes from the run starting at i: its end, kind, row
** and length. */
static ALWAYS_INLINE size_t space_piece(const space_run *r, size_t n, bool o200k,
                                        unsigned *kind, unsigned *row, unsigned *nchars)
{
    size_t end;
    unsigned cnt = r->cnt;
    bool nl = false, tabs = r->tabs, other = r->other, blank = r->blank;
    if (!o200k && r->stop == n) {
        end = n; /* \s+$ */
        nl = r->last_nl_end != 0;
    } else if (r->last_nl_end) {
        end = r->last_nl_end; /* \s*[\r\n]+ */
        cnt = r->cnt_at_nl;
        nl = true;
        tabs = r->tabs_nl;
        other = r->other_nl;
        blank = r->blank_nl;
    } else if (r->stop == n || cnt < 2) {
        end = r->stop; /* \s+(?!\S) to the end, or a lone \s */
    } else {
        end = r->last_start; /* \s+(?!\S): leave one for the next word */
        cnt = r->cnt_last;
    }
    *nchars = cnt;
    if (nl) {
        *kind = TOK_K_NEWLINE;
        /* line breaks only, with spaces, or with tabs and other spaces */
        *row = TOK_ROW_NEWLINE + (!blank ? 0u : (tabs || other) ? 2u : 1u);
    } else {
        *kind = TOK_K_SPACE;
        *row = TOK_ROW_SPACE + (other ? 2u : tabs ? 1u : 0u);
    }
    return end;
}

/* Whether the non-ASCII character at k is whitespace: out of line, as the
** ASCII scans below ask only when their run stops at a non-ASCII byte (text
** of other scripts after a space or a line break). */
static __attribute__((noinline)) bool non_ascii_space_at(const unsigned char *s, size_t n,
                                                         size_t k)
{
    size_t w;
    return is_space(CLS(char_at(s, n, k, &w)));
}

/* scan_space when the run is ASCII (every character one byte, so counts are
** byte distances): one pass, no table. Returns 0 when the run meets a
** non-ASCII space; the general scan then starts over. */
static ALWAYS_INLINE size_t scan_space_ascii(const unsigned char *s, size_t n, size_t i,
                                             bool o200k, unsigned *kind, unsigned *row,
                                             unsigned *nchars)
{
    space_run r = {0};
    size_t k = i;
    for (; k < n; k++) {
        unsigned c = s[k];
        if (c == ' ') {
            r.blank = true;
        } else if (c == '\n' || c == '\r') {
            r.last_nl_end = k + 1;
            r.tabs_nl = r.tabs;
            r.other_nl = r.other;
            r.blank_nl = r.blank;
        } else if (c == '\t') {
            r.tabs = r.blank = true;
        } else if (c == '\v' || c == '\f') {
            r.other = r.blank = true;
        } else {
            break;
        }
    }
    if (k < n && may_start_space(s[k]) && non_ascii_space_at(s, n, k)) return 0;
    r.stop = k;
    r.last_start = k - 1;
    r.cnt = (unsigned)(k - i);
    r.cnt_last = r.cnt - 1;
    r.cnt_at_nl = (unsigned)(r.last_nl_end - i);
    return space_piece(&r, n, o200k, kind, row, nchars);
}

#if BYTES16
/* scan_space_ascii from one load of sixteen bytes (readable from i): each
** kind of space as a bit mask, the run's length and its last break by
** counting bits. *done false: the run fills the sixteen (the byte loop goes
** on); else as scan_space_ascii. */
static ALWAYS_INLINE size_t scan_space_ascii16(const unsigned char *s, size_t n, size_t i,
                                               bool o200k, unsigned *kind, unsigned *row,
                                               unsigned *nchars, bool *done)
{
    __m128i v = bytes16_load((const char *)s + i);
    unsigned sp = bytes16_eq(v, ' '), tab = bytes16_eq(v, '\t'), other = bytes16_in(v, '\v', '\f');
    unsigned brk = bytes16_eq(v, '\n') | bytes16_eq(v, '\r'), blank = sp | tab | other;
    unsigned len = bits16_lead(blank | brk);
    if (len == 16) {
        *done = false;
        return 0;
    }
    *done = true;
    if ((bytes16_high(v) >> len & 1) && may_start_space(s[i + len]) && non_ascii_space_at(s, n, i + len))
        return 0;
    unsigned run = (1u << len) - 1;
    space_run r = {0};
    r.stop = i + len;
    r.last_start = r.stop - 1;
    r.cnt = len;
    r.cnt_last = len - 1;
    r.tabs = tab & run;
    r.other = other & run;
    r.blank = blank & run;
    if (brk & run) {
        unsigned last = 31 - (unsigned)__builtin_clz(brk & run), before = (1u << last) - 1;
        r.last_nl_end = i + last + 1;
        r.cnt_at_nl = last + 1;
        r.tabs_nl = tab & before;
        r.other_nl = other & before;
        r.blank_nl = blank & before;
    }
    return space_piece(&r, n, o200k, kind, row, nchars);
}
#endif

/* The whitespace piece starting at i (class WS or NL), any characters. */
static size_t scan_space_any(const unsigned char *s, size_t n, size_t i, bool o200k,
                             unsigned *kind, unsigned *row, unsigned *nchars)
{
    space_run r = {0};
    size_t k = i, w;
    while (k < n) {
        unsigned b = char_at(s, n, k, &w), c = CLS(b);
        if (!is_space(c)) break;
        r.last_start = k;
        r.cnt_last = r.cnt;
        r.cnt++;
        if (c == TOK_C_NL) {
            r.last_nl_end = k + w;
            r.cnt_at_nl = r.cnt;
            r.tabs_nl = r.tabs;
            r.other_nl = r.other;
            r.blank_nl = r.blank;
        } else {
            r.blank = true;
            if (s[k] == '\t') r.tabs = true;
            else if (s[k] != ' ') r.other = true;
        }
        k += w;
    }
    r.stop = k;
    return space_piece(&r, n, o200k, kind, row, nchars);
}

/* The whitespace piece starting at i (class WS or NL). */
static ALWAYS_INLINE size_t scan_space(const unsigned char *s, size_t n, size_t i, bool o200k,
                                       bool room, unsigned *kind, unsigned *row, unsigned *nchars)
{
    size_t end;
#if BYTES16
    bool done = false;
    if (room) end = scan_space_ascii16(s, n, i, o200k, kind, row, nchars, &done);
    if (!done)
#endif
        end = scan_space_ascii(s, n, i, o200k, kind, row, nchars);
    if (end) return end;
    /* through copies: were the caller's addresses passed on, its piece's
    ** kind, row and length would live in memory for every piece */
    unsigned any_kind, any_row, any_nchars;
    end = scan_space_any(s, n, i, o200k, &any_kind, &any_row, &any_nchars);
    *kind = any_kind;
    *row = any_row;
    *nchars = any_nchars;
    return end;
}

#endif
