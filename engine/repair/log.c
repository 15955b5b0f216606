/*
** log.c: the names and sentences of every kind of fix, and the
** growable log the parser writes into. The names are stable: hosts and
** tests match on them (README, "Repair log").
*/
#include "repair/repair.h"

const rkind_info rkind_table[RK_COUNT] = {
    [RK_FENCED_BLOCK] = {"fenced_block", "took the value from a fenced code block", COAX_CLASS_LOSSLESS, NULL},
    [RK_TAGGED_BLOCK] = {"tagged_block", "took the value from a tagged block", COAX_CLASS_LOSSLESS, NULL},
    [RK_PROSE_SPAN] = {"prose_span", "took the value from a span inside prose", COAX_CLASS_LOSSLESS, "took words in brackets in prose ([INFO], [x], [sic]), a reference (section [3.2]) or a citation's mark ({...} [1]), for a list: they are its punctuation"},
    [RK_REASONING_SKIPPED] = {"reasoning_skipped", "skipped a reasoning block", COAX_CLASS_LOSSLESS, NULL},
    [RK_BYTE_ORDER_MARK] = {"byte_order_mark", "removed a byte order mark", COAX_CLASS_LOSSLESS, NULL},
    [RK_TRAILING_COMMA] = {"trailing_comma", "removed a trailing comma", COAX_CLASS_LOSSLESS, NULL},
    [RK_EXTRA_COMMA] = {"extra_comma", "removed a superfluous comma", COAX_CLASS_INFERRED, "removed a comma where an item of the list may have been left out"},
    [RK_MISSING_COMMA] = {"missing_comma", "inserted a missing comma", COAX_CLASS_INFERRED, "a comma was guessed before text that does not start a member, or that may be one value with the number before it ([10 -5]: 10 - 5, [1 .5]: 1.5?), or after a string ending in a comma or a closer (\"x,\" \"y\": 1: typed inside its quote?)"},
    [RK_MISSING_COLON] = {"missing_colon", "inserted a missing colon", COAX_CLASS_INVENTED, "a colon was guessed after text that may not be a key"},
    [RK_MISSING_VALUE] = {"missing_value", "used null for a missing value", COAX_CLASS_INVENTED, NULL},
    [RK_DANGLING_KEY] = {"dangling_key", "dropped a key without a value", COAX_CLASS_INVENTED, NULL},
    [RK_UNQUOTED_KEY] = {"unquoted_key", "quoted an unquoted key", COAX_CLASS_INFERRED, "a key was guessed from text not written as one"},
    [RK_UNQUOTED_STRING] = {"unquoted_string", "quoted an unquoted string", COAX_CLASS_INFERRED, "a string was guessed from text whose end is unclear, or that is no value (etc., a placeholder such as <age>, a number in another language's syntax such as 0x1F)"},
    [RK_SINGLE_QUOTES] = {"single_quotes", "replaced single quotes", COAX_CLASS_LOSSLESS, NULL},
    [RK_BACKTICK_QUOTES] = {"backtick_quotes", "replaced backtick quotes", COAX_CLASS_LOSSLESS, "read a template literal as its text: what ${...} stands for was not written, or the backticks are Markdown's around a value (`42`, `true`)"},
    [RK_TYPOGRAPHIC_QUOTES] = {"typographic_quotes", "replaced typographic quotes", COAX_CLASS_LOSSLESS, NULL},
    [RK_UNESCAPED_QUOTE] = {"unescaped_quote", "escaped a quote inside a string", COAX_CLASS_INFERRED, "guessed which quote ends the string"},
    [RK_UNTERMINATED_STRING] = {"unterminated_string", "closed an unterminated string", COAX_CLASS_INVENTED, NULL},
    [RK_CONTROL_CHARACTER] = {"control_character", "escaped a raw control character in a string", COAX_CLASS_LOSSLESS, NULL},
    [RK_INVALID_ESCAPE] = {"invalid_escape", "repaired an escape JSON does not have (a quote escaped is the quote, others keep their backslash)", COAX_CLASS_INFERRED, "read an escape whose meaning is a guess: another language's (\\x41), a control (\\t) beside a backslash kept as text, or a backslash before a line break (a line continuation, or the break?)"},
    [RK_INVALID_UTF8] = {"invalid_utf8", "replaced invalid UTF-8 with U+FFFD, standing for a character the reply lost", COAX_CLASS_INVENTED, NULL},
    [RK_LONE_SURROGATE] = {"lone_surrogate", "replaced an unpaired surrogate with U+FFFD", COAX_CLASS_INVENTED, NULL},
    [RK_COMMENT] = {"comment", "removed a comment", COAX_CLASS_LOSSLESS, "removed a comment that says content was left out, that may hold the rest of the value, or that takes back the value before it (a correction, another value alone, a made-up value, a stand-in for none)"},
    [RK_PYTHON_LITERAL] = {"python_literal", "replaced a Python literal (True, False, None)", COAX_CLASS_LOSSLESS, NULL},
    [RK_OTHER_LITERAL] = {"other_literal", "replaced another language's true, false or null (TRUE, FALSE, NULL, nil)", COAX_CLASS_INFERRED, NULL},
    [RK_NON_JSON_NUMBER] = {"non_json_number", "replaced NaN, Infinity or undefined with null", COAX_CLASS_INFERRED, "read Infinity, or a member's undefined, as null: Infinity is a number JSON lacks, and a member undefined is absent"},
    [RK_NUMBER_FORMAT] = {"number_format", "normalised a number (leading +, .5, 5.)", COAX_CLASS_LOSSLESS, "read a number whose end was lost (an exponent with no digits, 1. at the end of a cut reply)"},
    [RK_ELLIPSIS] = {"ellipsis", "removed an ellipsis", COAX_CLASS_INVENTED, NULL},
    [RK_FUNCTION_CALL] = {"function_call", "removed a function-call wrapper (JSONP)", COAX_CLASS_LOSSLESS, "read a call as its argument: the call's value is not its text"},
    [RK_ESCAPED_JSON] = {"escaped_json", "unescaped JSON written with escaped quotes", COAX_CLASS_LOSSLESS, NULL},
    [RK_DOUBLE_ENCODED] = {"double_encoded", "decoded JSON encoded inside a string", COAX_CLASS_LOSSLESS, NULL},
    [RK_STRING_CONCATENATION] = {"string_concatenation", "joined concatenated strings", COAX_CLASS_LOSSLESS, NULL},
    [RK_CLOSED_BRACKET] = {"closed_bracket", "closed an array or object left open", COAX_CLASS_INFERRED, "the reply ends inside a value, or the bracket it lacks may have been lost before members it holds (a closing bracket was replaced, or the layout puts a member outside), or the reply started over inside it, or a comment inside it held its closer"},
    [RK_MISMATCHED_BRACKET] = {"mismatched_bracket", "replaced a mismatched closing bracket", COAX_CLASS_INFERRED, "the bracket it would stand for follows it: its opener may have been lost ({\"a\": 7]} for [7]), or it was typed once too often; or a string before it ends in that bracket, its quote maybe moved ({\"a\": \"m}\"])"},
    [RK_MISSING_BRACKET] = {"missing_bracket", "inserted a missing closing bracket", COAX_CLASS_INFERRED, "a closing bracket was guessed for several levels, or for an empty container in a list ([{]: {} or a stray brace?), or before a brace opening a key the object lacks ([{\"k\": 1, {\"n\": 2}]: a record after a lost brace, or a brace typed once too often?)"},
    [RK_SKIPPED_CHARACTER] = {"skipped_character", "skipped an unexpected character", COAX_CLASS_INVENTED, NULL},
    [RK_TRAILING_TEXT] = {"trailing_text", "ignored text after the value", COAX_CLASS_LOSSLESS, "a closing bracket no bracket opened after the value, which closes an object or list before more members or items: which bracket was the extra one is a guess"},
    [RK_DUPLICATE_KEY] = {"duplicate_key", "duplicate key: the last value wins", COAX_CLASS_INFERRED, "a key given twice with two values: which one was meant is a guess"},
    [RK_UNICODE_WHITESPACE] = {"unicode_whitespace", "treated a Unicode space as whitespace", COAX_CLASS_LOSSLESS, NULL},
    [RK_TRIPLE_QUOTED_STRING] = {"triple_quoted_string", "read a triple-quoted string", COAX_CLASS_LOSSLESS, NULL},
    [RK_FENCED_STRING] = {"fenced_string", "read a fenced code block written as a string value", COAX_CLASS_LOSSLESS, "read a fenced code block holding JSON as a list's item as its text: the JSON, or the text?"},
    [RK_THOUSANDS_SEPARATOR] = {"thousands_separator", "read a number written with thousands separators", COAX_CLASS_INFERRED, "a comma before three digits: one number's thousands separator, or two items"},
    [RK_FRAGMENT] = {"fragment", "took one item of a larger structure as the whole value", COAX_CLASS_INVENTED, NULL},
    [RK_EARLY_CLOSE] = {"early_close", "members follow an object or array that was closed before them", COAX_CLASS_INVENTED, NULL},
    [RK_OPERAND] = {"operand", "took a value an expression applies to (a call's argument, an operator's operand): the expression's value is not its text", COAX_CLASS_INVENTED, NULL},
};

const char *rkind_name(rkind k) { return k < RK_COUNT ? rkind_table[k].name : "unknown"; }
const char *rkind_detail(rkind k) { return k < RK_COUNT ? rkind_table[k].detail : ""; }
coax_class rkind_class(rkind k) { return k < RK_COUNT ? rkind_table[k].cls : COAX_CLASS_INVENTED; }

bool rlog_grow(rlog *log)
{
    if (log->oom) return false;
    if (log->n < log->cap) return true;
    size_t cap = log->cap ? log->cap * 2 : log->first_cap > 16 ? log->first_cap : 16;
    void *p;
    if (log->in_arena) { /* the arena's block stays with the arena */
        if ((p = coax_alloc_raw(log->alloc, cap * sizeof *log->e))) memcpy(p, log->e, log->n * sizeof *log->e);
        log->in_arena = !p;
    } else {
        p = coax_realloc_raw(log->alloc, log->e, log->cap * sizeof *log->e, cap * sizeof *log->e);
    }
    if (!p) {
        log->oom = true;
        return false;
    }
    log->e = p;
    log->cap = cap;
    return true;
}

void rlog_set_class(rlog *log, size_t i, rkind kind, coax_class cls)
{
    coax_repair_entry *e = &log->e[i];
    e->cls = cls;
    e->detail = cls == COAX_CLASS_INVENTED && rkind_table[kind].guess ? rkind_table[kind].guess : rkind_table[kind].detail;
}

void rlog_free(rlog *log)
{
    if (!log->in_arena) coax_free_raw(log->alloc, log->e, log->cap * sizeof *log->e);
    log->in_arena = false;
    log->e = NULL;
    log->n = log->cap = 0;
}
