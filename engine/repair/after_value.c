/*
** after_value.c: what the text after a complete value says about it, for
** the looks of lenient_word.c (repair_closed_early) and the stray closers
** of repair.c and lenient.c: a second fault beside a stray closer (a word
** or number it split, members broken another way, a remark before the
** closers) must not hide it; and what values one after another say: a
** comma after the last at the end (one item of a list), one value or the
** first half of them written again (an answer repeated, or a list?). Each
** look is bounded: every span of a reply asks, and the text after it may
** be long.
*/
#include "repair/repair.h"

#include <string.h>

/* An ASCII letter or digit: not '_' or '$', which Markdown's emphasis
** (_[1, 2]_) and templates put beside a bracket, nor a UTF-8 byte, which
** may be a closing quote's (“x {"a": 1}”). */
static bool word_byte(char c)
{
    unsigned char u = (unsigned char)c;
    return (u >= '0' && u <= '9') || ((u | 0x20) >= 'a' && (u | 0x20) <= 'z');
}

bool repair_closer_splits(const char *p, const char *e)
{
    /* A value ends at p: a closer at p[-1] has its opener before it, so
    ** p[-2] is in the text. */
    if (p >= e || (p[-1] != '}' && p[-1] != ']') || !(word_byte(p[-2]) || p[-2] == '.')) return false;
    return word_byte(*p) || (*p == '.' && p + 1 < e && p[1] >= '0' && p[1] <= '9');
}

/* Whether c is a space, a tab or a line break: what may stand between a value's last comma
** and its closer, or between the closer and p. */
static bool space_byte(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The bytes that end repair_comma_closer_resumes's look along a line: a bracket, a line break. */
static const bool line_stop[256] = {['{'] = true, ['}'] = true, ['['] = true, [']'] = true, ['\n'] = true, ['\r'] = true};

bool repair_comma_closer_resumes(const char *p, const char *e)
{
    /* A value ends before p, spaces aside: the look back stops at its last byte, and at a
    ** closer's opener. */
    const char *c = p - 1;
    while (space_byte(*c)) c--;
    if (*c != '}' && *c != ']') return false;
    for (c--; space_byte(*c); c--) continue;
    const char *q = p;
    while (q < e && q - p < 128 && space_byte(*q) && *q != '\n' && *q != '\r') q++;
    /* closed where no item had ended ({]"a": 1}, [apple,] b]), or an item after it ([a], b]) */
    if (*c != ',' && *c != '{' && *c != '[' && (q >= e || *q != ',')) return false;
    const char *from = q;
    for (const char *limit = e - p > 128 ? p + 128 : e; q < limit && !line_stop[(unsigned char)*q];) q++;
    if (q >= e || (*q != '}' && *q != ']')) return false;
    while (from < q && (space_byte(*from) || *from == ',')) from++;
    return from < q; /* the value's rest before that closer: {}} is a stray closer only */
}

/* The bytes that end the look for a key's colon after a quoted string:
** a quote, a colon, a bracket, a line break, NUL. */
static const bool key_stop[256] = {['"'] = true, [':'] = true, ['{'] = true, ['}'] = true,
                                   ['['] = true, [']'] = true, ['\n'] = true, [0] = true};

bool repair_key_then_closer(const char *p, const char *e)
{
    const char *limit = e - p > 256 ? p + 256 : e;
    /* mostly the text after a value holds no key or no closer: memchr tells */
    size_t span = (size_t)(limit - p);
    if (!memchr(p, '"', span) || (!memchr(p, '}', span) && !memchr(p, ']', span))) return false;
    bool key = false;
    int depth = 0;
    while (p < limit) {
        char c = *p++;
        if (c == '{' || c == '[') depth++;
        if ((c == '}' || c == ']') && --depth < 0) {
            if (key) return true;
            depth = 0; /* a stray closer before any key: {"a": 1},}⏎ "b": 2} */
        }
        if (c != '"') continue;
        while (p < limit && *p != '"' && *p != '\n') p += *p == '\\' ? 2 : 1;
        if (p >= limit || *p != '"') return false; /* not closed on its line: prose's quote */
        /* a key's colon may come after a comment or words: "tags" (approx): [...] */
        const char *q = ++p;
        while (q < limit && !key_stop[(unsigned char)*q]) q++;
        key |= depth == 0 && q < limit && *q == ':';
    }
    return false;
}

size_t repair_remark_closers(const char *p, const char *e, const char **at)
{
    const char *limit = e - p > 128 ? p + 128 : e, *end = p;
    *at = p;
    /* a remark: no value of its own (no bracket opens, no quote), a citation's mark at its end aside */
    while (end < limit && *end != '\n' && *end != '{' && *end != '[' && *end != '"') end++;
    bool cited = end < limit && *end == '[' && repair_citation_at(p, end, e, true); /* the remark ends there */
    if (!cited && (end < limit ? *end != '\n' : limit < e)) return 0; /* a value, or a line longer than the look */
    const char *s = end;
    while (s > p && (s[-1] == ' ' || s[-1] == '\t' || s[-1] == '\r')) s--;
    const char *last = s;
    /* words or a token after the closers keep them the remark's: (approx)] Thanks!, (approx)]<|im_end|> */
    while (last > p && last[-1] != '}' && last[-1] != ']') last--;
    s = last;
    while (s > p && (s[-1] == '}' || s[-1] == ']' || s[-1] == ' ')) s--;
    while (s < last && *s == ' ') s++;
    *at = s;
    return s > p && s < last ? (size_t)(last - s) : 0;
}

const char *repair_comma_at_end(const char *p, const char *e)
{
    for (; p < e; p++) {
        if (*p == ',') return p;
        if (*p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') return NULL;
    }
    return NULL;
}

const char repair_opener_exchanged_detail[] =
    "a string opening the first value begins with a bracket it never closes: its quote and the bracket exchanged "
    "([\"[a\", \"b\"], [\"c\"]] for [[\"a\", \"b\"], [\"c\"]])? the values as a list are a guess";

bool repair_opener_exchanged(const char *text, const rvalues *vals)
{
    const char *p = text + vals->v[0].start, *e = text + vals->v[0].end;
    if (p >= e || *p != '[') return false;
    for (p++; p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r');) p++;
    if (e - p < 2 || *p != '"' || (p[1] != '[' && p[1] != '{')) return false;
    char open = p[1], close = open == '[' ? ']' : '}';
    unsigned depth = 0;
    for (p++; p < e && *p != '"'; p++) {
        if (*p == '\\') p++;
        else if (*p == open) depth++;
        else if (*p == close && depth && --depth == 0) return false;
    }
    return true;
}

const char repair_repeated_detail[] =
    "the same value written again: one answer repeated, or a list of equal items? which is a guess";

/* Whether the values are the first 'period' of them written again and
** again, no comma where one copy meets the next: 1 yes, 0 no, -1 out of
** memory (members in another order are compared sorted). Each value is
** compared once. */
static int repeats(const char *text, const rvalues *vals, size_t period, const coax_allocator *alloc)
{
    for (size_t i = period; i < vals->n; i++) {
        const rvalue *a = &vals->v[i - 1], *b = &vals->v[i];
        if (i % period == 0 && (a->end > b->start || memchr(text + a->end, ',', b->start - a->end))) return 0;
        int eq = coax_value_equal(b->value, vals->v[i - period].value, alloc);
        if (eq <= 0) return eq;
    }
    return 1;
}

int repair_repeated(const char *text, const rvalues *vals, const coax_allocator *alloc)
{
    if (vals->n < 2) return 0;
    int once = repeats(text, vals, 1, alloc);
    return once || vals->n % 2 ? once : repeats(text, vals, vals->n / 2, alloc);
}

/* repair_footnote_at, or with 'rows' false, the mark's shape alone (spaced, or after a list, with no label). */
static bool footnote_at(const char *start, const char *p, const char *e, bool rows)
{
    const char *b = p;
    for (;;) { /* indentation and byte order marks */
        while (b > start && (b[-1] == ' ' || b[-1] == '\t')) b--;
        if (b - start < 3 || memcmp(b - 3, "\xEF\xBB\xBF", 3)) break;
        b -= 3;
    }
    if ((b > start && b[-1] != '\n' && b[-1] != '\r') || e - p < 4 || *p != '[') return false;
    /* the mark's number, blanks around it as a bracket moved or typed spaced leaves them ([ 1 ], [1 ]Source) */
    const char *n = p + 1, *d;
    while (n < e && (*n == ' ' || *n == '\t')) n++;
    for (d = n; d < e && d - n < 3 && *d >= '0' && *d <= '9';) d++;
    bool spaced = d > p + 1 && (n > p + 1 || (d < e && (*d == ' ' || *d == '\t')));
    while (spaced && d < e && (*d == ' ' || *d == '\t')) d++;
    if (d == n || d >= e || *d != ']') return false;
    d++;
    if (d < e && *d == ']') d++, spaced = true; /* a closer typed twice, "[1]] Source": no list of lists */
    bool defined = d < e && *d == ':'; /* [1]: https://... */
    d += defined;
    const char *w = coax_blanks_end(d, e), *k = w;
    if ((w == d && !spaced) || w >= e || !(coax_ascii_alpha((unsigned char)*w) || (unsigned char)*w >= 0x80))
        return false;
    /* a mark typed spaced or closed twice, or after a list's closer (rows: "[1, 2]⏎[5] Let me know"), heads a
    ** label's words ("[1 ]Source:", "[1] Source:"): before other words it may be a row with a remark */
    const char *q = b;
    while (q > start && coax_ascii_space((unsigned char)q[-1])) q--;
    bool labelled = rows && (spaced || (q > start && q[-1] == ']')) && !defined;
    while (labelled && k < e && k - w < 24 && (coax_ascii_alpha((unsigned char)*k) || *k == ' ')) k++;
    return !labelled || (k < e && *k == ':');
}

bool repair_footnote_at(const char *start, const char *p, const char *e) { return footnote_at(start, p, e, true); }

bool repair_row_or_footnote_at(const char *start, const char *p, const char *e)
{
    return !footnote_at(start, p, e, true) && footnote_at(start, p, e, false);
}

bool repair_citation_at(const char *start, const char *p, const char *e, bool after_list)
{
    const char *b = p;
    while (b > start && (b[-1] == ' ' || b[-1] == '\t')) b--;
    /* after a value or a sentence: "Item: [5]" is a label's list */
    if (b == p || b == start || !strchr(after_list ? "}\".)]" : "}\".)", b[-1]) || e - p < 3 || *p != '[') return false;
    const char *n = p + 1, *d; /* blanks around the number too: "[1 ]", "[ 1 ]" */
    while (n < e && (*n == ' ' || *n == '\t')) n++;
    for (d = n; d < e && d - n < 3 && *d >= '0' && *d <= '9';) d++;
    while (d > n && d < e && (*d == ' ' || *d == '\t')) d++;
    if (d == n || d >= e || *d != ']') return false;
    d++;
    while (d < e && (*d == ' ' || *d == '\t')) d++;
    /* the line's last, or prose or a token after it ({...} [1] Hope it helps, [1]<|im_end|>, [1] [2]);
    ** not structure going on ([1, 2] [3], "b": 2}) */
    return d == e || !coax_byte_in(",:}]", *d);
}
