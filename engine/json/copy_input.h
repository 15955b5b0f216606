/*
** json/copy_input.h: the strict parser's copy of its input (json/parse_scan.c),
** which the lenient parser (repair/lenient.c) takes too: the bytes, a NUL
** and SCAN_PAD more zero bytes, and whether they are valid UTF-8, in one
** pass.
*/
#ifndef COAX_JSON_COPY_INPUT_H
#define COAX_JSON_COPY_INPUT_H

#include "base/core.h"

#define SCAN_PAD 16

/* Copies the input's len bytes from text to copy, then its NUL and
** SCAN_PAD zero bytes, and returns whether the input is all valid UTF-8
** (then no string of it can hold invalid UTF-8, and text_scan crosses
** multi-byte sequences unchecked). */
bool coax_json_copy_input(char *restrict copy, const char *restrict text, size_t len);
/* coax_json_copy_input, the bytes and their NUL copied to 'twin' too in the
** same pass (the lenient parser reads one copy and writes its tokens'
** NULs into the other). */
bool coax_json_copy_input_twin(char *restrict copy, char *restrict twin, const char *restrict text, size_t len);

#endif
