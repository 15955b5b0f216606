/*
** fence.c: Markdown code fences, for the candidate scan (scan.c) and the
** lenient parser (lenient_string.c), which reads a fenced block written
** as a string value ("code": ```...```). Apart, so that neither file calls
** the other for them: the scan calls the parser (repair_value_starts,
** lenient_word.c), never the other way.
*/
#include "repair/repair.h"

bool repair_value_fence(const char *t, size_t i)
{
    while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) i--;
    return i > 0 && t[i - 1] == ':';
}

size_t repair_fenced_string(const char *t, size_t i, size_t len, size_t *cs, size_t *ce, repair_fence_memo *m)
{
    size_t n = repair_fence_at(t, i, len);
    if (!n || t[i] != '`' || n > REPAIR_FENCE_MAX) return 0;
    if (!m->ready) {
        memset(m, 0, sizeof *m);
        m->ready = true;
    }
    size_t slot = n - 3, body = i + n, eol;
    if (m->line_end[slot] && m->line_from[slot] <= body && body < m->line_end[slot]) {
        eol = m->line_end[slot]; /* no run of n on the rest of this line: known */
    } else { /* ```print(1)``` on one line: the next run of exactly n before the line's end */
        size_t k = body;
        while (k < len && t[k] != '\n') {
            size_t run = t[k] == '`' ? repair_fence_at(t, k, len) : 0;
            if (run == n) {
                *cs = body;
                *ce = k;
                return k + n;
            }
            k += run ? run : 1;
        }
        eol = k;
        m->line_from[slot] = body;
        m->line_end[slot] = eol;
    }
    if (eol >= len) return 0;
    size_t known = m->none_after[slot] ? m->none_after[slot] - 1 : SIZE_MAX;
    for (size_t k = eol; k < len && k < known;) { /* k is on a line break */
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
    /* No line after eol starts with n backticks or more: nor with more than n. */
    for (size_t x = slot; x < REPAIR_FENCE_MAX - 2; x++)
        if (!m->none_after[x] || m->none_after[x] > eol + 1) m->none_after[x] = eol + 1;
    return 0;
}
