/*
** fence.c: Markdown code fences, for the candidate scan (scan.c) and the
** lenient parser (lenient_string.c), which reads a fenced block written
** as a string value ("code": ```...```). Apart, so that neither file calls
** the other for them: the scan calls the parser (repair_value_starts,
** lenient_word.c), never the other way.
*/
#include "repair/repair.h"

size_t repair_fence_at(const char *t, size_t i, size_t len)
{
    if (i >= len) return 0; /* a line break or its indentation ends the text */
    char c = t[i];
    if (c != '`' && c != '~') return 0;
    size_t n = 0;
    while (i + n < len && t[i + n] == c) n++;
    return n >= 3 ? n : 0;
}

bool repair_value_fence(const char *t, size_t i)
{
    while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) i--;
    return i > 0 && t[i - 1] == ':';
}

size_t repair_fenced_string(const char *t, size_t i, size_t len, size_t *cs, size_t *ce, size_t *none_from)
{
    size_t n = repair_fence_at(t, i, len);
    if (!n || t[i] != '`') return 0;
    size_t body = i + n, eol = body;
    while (eol < len && t[eol] != '\n') eol++;
    for (size_t k = body; k + n <= eol; k++) { /* ```print(1)``` on one line */
        if (t[k] != '`') continue;
        size_t run = repair_fence_at(t, k, eol);
        if (run == n) {
            *cs = body;
            *ce = k;
            return k + n;
        }
        if (run) k += run - 1;
    }
    if (eol >= len) return 0;
    for (size_t k = eol; k < len && k < *none_from;) { /* k is on a line break */
        size_t s = k + 1;
        while (s < len && (t[s] == ' ' || t[s] == '\t')) s++;
        size_t run = s < len && t[s] == '`' ? repair_fence_at(t, s, len) : 0;
        if (run >= n) {
            *cs = eol + 1;
            *ce = k > eol && t[k - 1] == '\r' ? k - 1 : k;
            if (*ce < *cs) *ce = *cs;
            return s + run;
        }
        const char *nl = memchr(t + s, '\n', len - s);
        if (!nl) break;
        k = (size_t)(nl - t);
    }
    if (n == 3 && eol < *none_from) *none_from = eol; /* no line-start fence after eol */
    return 0;
}
