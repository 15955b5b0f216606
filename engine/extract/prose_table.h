/*
** extract/prose_table.h: a markdown table's cells as the statements contradicted.c
** reads (prose_table.c). Each takes text[p], a bar of a row, in the prose text[from..e).
*/
#ifndef COAX_EXTRACT_PROSE_TABLE_H
#define COAX_EXTRACT_PROSE_TABLE_H

#include <stddef.h>

/* Where a row of two cells, a name and a value, has its value when text[p] is the bar
** between them ("| age | 37 |": a statement of the age, as "age: 37" is), its distance
** from p, and the bar closing the cell in *cell_end; 0 when not so (a row of more cells
** says what its header says, a header's row names). */
size_t extract_table_pair(const char *text, size_t from, size_t p, size_t e, size_t *cell_end);

/* Where the value of the cell after the bar at text[p] is, its distance from p, and the bar
** closing the cell in *cell_end, when the table has a header, its rule and this one row only
** ("| name | age |", "|---|---|", "| Ada | 37 |" states the age); the header cell's span
** into *name and *name_end. 0 when not so: a table of several rows lists several records. */
size_t extract_table_header(const char *text, size_t from, size_t p, size_t e, size_t *cell_end, size_t *name,
                            size_t *name_end);

#endif
