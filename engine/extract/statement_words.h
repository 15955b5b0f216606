/*
** extract/statement_words.h: the words contradicted.c reads statements by
** (statement_words.c): each asks of a word s[0..n) of the prose (time_frame,
** of text[p..q) and the word after it) whether it is one of them.
*/
#ifndef COAX_EXTRACT_STATEMENT_WORDS_H
#define COAX_EXTRACT_STATEMENT_WORDS_H

#include "extract/coerce.h"

bool extract_determiner(const char *s, size_t n);
bool extract_correcting(const char *s, size_t n);
bool extract_generic(const char *s, size_t n);
bool extract_field_noun(const char *s, size_t n);
bool extract_supposing(const char *s, size_t n);
bool extract_elsewhere(const char *s, size_t n);
bool extract_time_frame(const char *text, size_t p, size_t q, size_t e);
bool extract_contrasting(const char *s, size_t n);

#endif
