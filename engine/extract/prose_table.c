/*
** extract/prose_table.c: markdown tables in the prose beside an answer, read
** as statements are (contradicted.c): "| age | 37 |" says the age is 37 as
** "age: 37" does, and so does a row under a header naming its cells.
*/
#include "extract/prose_table.h"

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

/* Whether the line at text[b] is a table header's rule: bars, dashes, colons. */
static bool table_rule(const char *text, size_t b, size_t e)
{
    size_t bars, dashes = 0;
    if (!table_row(text, b, e, e, &bars)) return false;
    for (; b < e && text[b] != '\n'; b++) {
        if (!strchr(" \t|-:\r", text[b])) return false;
        dashes += text[b] == '-';
    }
    return dashes > 0;
}

/* Where the cell after the bar at text[p] ends when it holds one value alone and
** is its row's last ("| age | 37 |"); 0 when not. */
static size_t last_cell_end(const char *text, size_t p, size_t e, bool last)
{
    size_t v = p + 1, q;
    while (v < e && (text[v] == ' ' || text[v] == '\t')) v++;
    for (q = v; q < e && text[q] != '|' && text[q] != '\n'; q++) {}
    if (q >= e || text[q] != '|' || q == v) return 0;
    if (!last) return q;
    for (q++; q < e && (text[q] == ' ' || text[q] == '\t' || text[q] == '\r'); q++) {}
    return q == e || text[q] == '\n' ? q : 0;
}

/* Where a markdown table's row of two cells, a name and a value, has its value
** when text[p] is the bar between them ("| age | 37 |": a statement of the age, as
** "age: 37" is), its distance from p; 0 when it is not so (a row of more cells says
** what its header says). */
size_t extract_table_pair(const char *text, size_t from, size_t p, size_t e)
{
    size_t bars;
    size_t end = last_cell_end(text, p, e, true);
    if (!table_row(text, line_start(text, from, p), p, e, &bars) || bars != 1 || !end ||
        (end < e && table_rule(text, end + 1, e))) /* a header's row names, it states nothing */
        return 0;
    size_t v = p + 1;
    while (v < e && (text[v] == ' ' || text[v] == '\t')) v++;
    return v - p;
}

/* Where the value of the cell after the bar at text[p] is when the table has a
** header, its rule and this one row only: the header's cell above names it
** ("| name | age |", "|---|---|", "| Ada | 37 |" states the age), its span into
** *name and *name_end. 0 when not so: a table of several rows lists several records. */
size_t extract_table_header(const char *text, size_t from, size_t p, size_t e, size_t *name, size_t *name_end)
{
    size_t b = line_start(text, from, p), cell, cells, end = last_cell_end(text, p, e, false);
    if (!end || !table_row(text, b, p, e, &cell) || !table_row(text, b, e, e, &cells) || b < from + 2) return 0;
    size_t next = end; /* the row after this one: none */
    while (next < e && text[next] != '\n') next++;
    size_t any;
    if (next < e && table_row(text, next + 1, e, e, &any)) return 0;
    size_t rule = line_start(text, from, b - 1), head, hcells, rcells;
    if (rule < from + 2 || !table_rule(text, rule, e) || !table_row(text, rule, e, e, &rcells) || rcells != cells)
        return 0;
    head = line_start(text, from, rule - 1);
    if (!table_row(text, head, e, e, &hcells) || hcells != cells) return 0;
    size_t q = head, seen = 0;
    while (seen <= cell) seen += text[q++] == '|'; /* past the bar opening the header's cell */
    *name = q;
    while (q < rule && text[q] != '|') q++;
    *name_end = q;
    size_t v = p + 1;
    while (v < e && (text[v] == ' ' || text[v] == '\t')) v++;
    return v - p;
}
