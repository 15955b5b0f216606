/*
** extract/prose_table.c: markdown tables in the prose beside an answer, read
** as statements are (contradicted.c): "| age | 37 |" says the age is 37 as
** "age: 37" does, and so does a row under a header naming its cells; in a
** table of several rows, of the record the row's first cell names.
*/
#include "extract/prose_table.h"
#include "base/core.h"

#include <stdbool.h>
#include <string.h>

/* The start of the line holding text[p], not before 'from'. */
static size_t line_start(const char *text, size_t from, size_t p)
{
    while (p > from && text[p - 1] != '\n') p--;
    return p;
}

/* Whether the line at text[b] is a markdown table's row: a bar its first
** sign; *bars: how many it holds before 'p' (the line's end when past it). */
static bool table_row(const char *text, size_t b, size_t p, size_t e, size_t *bars)
{
    size_t q = b;
    if (e - q >= 3 && !memcmp(text + q, "\xEF\xBB\xBF", 3)) q += 3; /* a byte order mark opening the reply */
    while (q < e && (text[q] == ' ' || text[q] == '\t')) q++;
    if (q >= e || text[q] != '|') return false;
    for (*bars = 0; q < e && q < p && text[q] != '\n'; q++) *bars += text[q] == '|';
    return true;
}

/* Whether the line at text[b] is a table header's rule: bars, dashes, colons;
** *bars: how many bars it holds. */
static bool table_rule(const char *text, size_t b, size_t e, size_t *bars)
{
    size_t dashes = 0;
    if (!table_row(text, b, e, e, bars)) return false;
    for (; b < e && text[b] != '\n'; b++) {
        if (!coax_byte_in(" \t|-:\r", text[b])) return false;
        dashes += text[b] == '-';
    }
    return dashes > 0;
}

/* The bar closing the cell after the bar at text[p], on its line; 0 when none does or
** the cell is blank. *v: where the cell's text starts. */
static size_t cell_at(const char *text, size_t p, size_t e, size_t *v)
{
    size_t q;
    for (*v = p + 1; *v < e && (text[*v] == ' ' || text[*v] == '\t'); ++*v) {}
    for (q = *v; q < e && text[q] != '|' && text[q] != '\n'; q++) {}
    return q < e && text[q] == '|' && q > *v ? q : 0;
}

size_t extract_table_pair(const char *text, size_t from, size_t p, size_t e, size_t *cell_end)
{
    size_t bars, v, bar = cell_at(text, p, e, &v), end = bar + 1, rule;
    while (bar && end < e && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r')) end++;
    if (!bar || (end < e && text[end] != '\n') || !table_row(text, line_start(text, from, p), p, e, &bars) ||
        bars != 1 || (end < e && table_rule(text, end + 1, e, &rule))) /* a header's row names, it states nothing */
        return 0;
    *cell_end = bar;
    return v - p;
}

size_t extract_table_header(const char *text, size_t from, size_t p, size_t e, table_cell *cell)
{
    size_t v, bar = cell_at(text, p, e, &v), b = line_start(text, from, p), at, cells, any;
    if (!bar || !table_row(text, b, p, e, &at) || !table_row(text, b, e, e, &cells) || b < from + 2) return 0;
    size_t next = bar; /* the row after this one */
    while (next < e && text[next] != '\n') next++;
    bool rows = next < e && table_row(text, next + 1, e, e, &any); /* several: each names its record */
    size_t rule = line_start(text, from, b - 1), head, hcells, rcells;
    while (rule >= from + 2 && !table_rule(text, rule, e, &rcells) && table_row(text, rule, e, e, &any))
        rule = line_start(text, from, rule - 1), rows = true; /* up past the rows before this one */
    if (rule < from + 2 || !table_rule(text, rule, e, &rcells) || rcells != cells) return 0;
    head = line_start(text, from, rule - 1);
    if (!table_row(text, head, e, e, &hcells) || hcells != cells) return 0;
    cell->owner = cell->owner_end = 0;
    if (rows) { /* the row's first cell, a proper name ("| Ada | 37 |"), says whose its values are */
        size_t first = b;
        while (text[first] != '|') first++;
        if (at == 0 || !(cell->owner_end = cell_at(text, first, e, &cell->owner)) || text[cell->owner] < 'A' ||
            text[cell->owner] > 'Z')
            return 0;
        while (cell->owner_end > cell->owner && (text[cell->owner_end - 1] == ' ' || text[cell->owner_end - 1] == '\t'))
            cell->owner_end--;
    }
    size_t q = head, seen = 0;
    while (seen <= at) seen += text[q++] == '|'; /* past the bar opening the header's cell */
    cell->name = q;
    while (q < rule && text[q] != '|') q++;
    cell->name_end = q;
    cell->end = bar;
    return v - p;
}
