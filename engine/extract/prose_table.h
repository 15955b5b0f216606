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

/* A table's cell under a header: where it ends (its closing bar), the header cell naming it, and
** in a table of several rows, the row's first cell naming its record (0, 0 in a table of one). */
typedef struct table_cell {
    size_t end, name, name_end, owner, owner_end;
} table_cell;

/* Where the value of the cell after the bar at text[p] is, its distance from p, when the table has
** a header and its rule ("| name | age |", "|---|---|", "| Ada | 37 |" states the age), the rest
** into *cell. In a table of several rows, a row lists one of several records: its cells state
** values of the record its first cell names, a proper name ("| Ada | 37 |" states Ada's age). 0
** when not so: no header, or several rows of which this one names no one, or the naming cell. */
size_t extract_table_header(const char *text, size_t from, size_t p, size_t e, table_cell *cell);

#endif
