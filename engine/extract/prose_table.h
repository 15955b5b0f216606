/*
** extract/prose_table.h: a markdown table's cells as the statements contradicted.c
** reads (prose_table.c). Each takes text[p], a bar of a row, in the prose text[from..e).
*/
#ifndef COAX_EXTRACT_PROSE_TABLE_H
#define COAX_EXTRACT_PROSE_TABLE_H

#include <stddef.h>

/* Where a row of two cells, a name and a value, has its value when text[p] is the
** bar between them ("| age | 37 |"), its distance from p; 0 when not so. */
size_t extract_table_pair(const char *text, size_t from, size_t p, size_t e);

/* Where the value of the cell after the bar at text[p] is, its distance from p, when a
** header names it and its row is the table's one; the header cell's span into *name and
** *name_end. 0 when not so. */
size_t extract_table_header(const char *text, size_t from, size_t p, size_t e, size_t *name, size_t *name_end);

#endif
