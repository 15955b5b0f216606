/*
** repair_log.c: the names and sentences of every kind of fix, and the
** growable log the parser writes into. The names are stable: hosts and
** tests match on them (README, "Repair log").
*/
#include "repair.h"

static const struct {
    const char *name, *detail;
} kinds[RK_COUNT] = {
    [RK_FENCED_BLOCK] = {"fenced_block", "took the value from a fenced code block"},
    [RK_TAGGED_BLOCK] = {"tagged_block", "took the value from a tagged block"},
    [RK_PROSE_SPAN] = {"prose_span", "took the value from a span inside prose"},
    [RK_REASONING_SKIPPED] = {"reasoning_skipped", "skipped a reasoning block"},
    [RK_BYTE_ORDER_MARK] = {"byte_order_mark", "removed a byte order mark"},
    [RK_TRAILING_COMMA] = {"trailing_comma", "removed a trailing comma"},
    [RK_EXTRA_COMMA] = {"extra_comma", "removed a superfluous comma"},
    [RK_MISSING_COMMA] = {"missing_comma", "inserted a missing comma"},
    [RK_MISSING_COLON] = {"missing_colon", "inserted a missing colon"},
    [RK_MISSING_VALUE] = {"missing_value", "used null for a missing value"},
    [RK_DANGLING_KEY] = {"dangling_key", "dropped a key without a value"},
    [RK_UNQUOTED_KEY] = {"unquoted_key", "quoted an unquoted key"},
    [RK_UNQUOTED_STRING] = {"unquoted_string", "quoted an unquoted string"},
    [RK_SINGLE_QUOTES] = {"single_quotes", "replaced single quotes"},
    [RK_BACKTICK_QUOTES] = {"backtick_quotes", "replaced backtick quotes"},
    [RK_TYPOGRAPHIC_QUOTES] = {"typographic_quotes", "replaced typographic quotes"},
    [RK_UNESCAPED_QUOTE] = {"unescaped_quote", "escaped a quote inside a string"},
    [RK_UNTERMINATED_STRING] = {"unterminated_string", "closed an unterminated string"},
    [RK_CONTROL_CHARACTER] = {"control_character", "escaped a raw control character in a string"},
    [RK_INVALID_ESCAPE] = {"invalid_escape", "replaced an invalid escape sequence"},
    [RK_INVALID_UTF8] = {"invalid_utf8", "replaced invalid UTF-8 with U+FFFD"},
    [RK_LONE_SURROGATE] = {"lone_surrogate", "replaced an unpaired surrogate with U+FFFD"},
    [RK_COMMENT] = {"comment", "removed a comment"},
    [RK_PYTHON_LITERAL] = {"python_literal", "replaced a Python literal (True, False, None)"},
    [RK_NON_JSON_NUMBER] = {"non_json_number", "replaced NaN, Infinity or undefined with null"},
    [RK_NUMBER_FORMAT] = {"number_format", "normalised a number (leading +, .5, 5.)"},
    [RK_ELLIPSIS] = {"ellipsis", "removed an ellipsis"},
    [RK_FUNCTION_CALL] = {"function_call", "removed a function-call wrapper (JSONP)"},
    [RK_ESCAPED_JSON] = {"escaped_json", "unescaped JSON written with escaped quotes"},
    [RK_DOUBLE_ENCODED] = {"double_encoded", "decoded JSON encoded inside a string"},
    [RK_STRING_CONCATENATION] = {"string_concatenation", "joined concatenated strings"},
    [RK_CLOSED_BRACKET] = {"closed_bracket", "closed an array or object left open"},
    [RK_MISMATCHED_BRACKET] = {"mismatched_bracket", "replaced a mismatched closing bracket"},
    [RK_MISSING_BRACKET] = {"missing_bracket", "inserted a missing closing bracket"},
    [RK_SKIPPED_CHARACTER] = {"skipped_character", "skipped an unexpected character"},
    [RK_TRAILING_TEXT] = {"trailing_text", "ignored text after the value"},
    [RK_DUPLICATE_KEY] = {"duplicate_key", "duplicate key: the last value wins"},
    [RK_UNICODE_WHITESPACE] = {"unicode_whitespace", "treated a Unicode space as whitespace"},
};

const char *rkind_name(rkind k) { return k < RK_COUNT ? kinds[k].name : "unknown"; }
const char *rkind_detail(rkind k) { return k < RK_COUNT ? kinds[k].detail : ""; }

void rlog_add(rlog *log, rkind kind, size_t offset)
{
    if (log->oom) return;
    if (log->n == log->cap) {
        size_t cap = log->cap ? log->cap * 2 : 16;
        void *p = coax_realloc_raw(log->alloc, log->e, log->cap * sizeof *log->e, cap * sizeof *log->e);
        if (!p) {
            log->oom = true;
            return;
        }
        log->e = p;
        log->cap = cap;
    }
    log->e[log->n++] = (coax_repair_entry){kinds[kind].name, kinds[kind].detail, offset, 0, 0, COAX_CLASS_INFERRED};
}

void rlog_free(rlog *log)
{
    coax_free_raw(log->alloc, log->e, log->cap * sizeof *log->e);
    log->e = NULL;
    log->n = log->cap = 0;
}
