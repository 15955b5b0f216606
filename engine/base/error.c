/*
** error.c: result codes, their names and sentences, limits and positions.
*/
#include "base/core.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name, *sentence;
    int exit_status;
} codes[COAX_CODE_COUNT] = {
    [COAX_OK] = {"COAX_OK", "success", 0},
    [COAX_ENOJSON] = {"COAX_ENOJSON", "no JSON value could be recovered", 1},
    [COAX_ESYNTAX] = {"COAX_ESYNTAX", "invalid JSON", 1},
    [COAX_EDEPTH] = {"COAX_EDEPTH", "nesting deeper than the depth limit", 4},
    [COAX_ESIZE] = {"COAX_ESIZE", "input larger than the size limit", 4},
    [COAX_ESTRING] = {"COAX_ESTRING", "string longer than the string limit", 4},
    [COAX_ENOMEM] = {"COAX_ENOMEM", "out of memory", 4},
    [COAX_EINVAL] = {"COAX_EINVAL", "invalid argument", 2},
    [COAX_EIO] = {"COAX_EIO", "input/output error", 2},
    [COAX_ENOTFOUND] = {"COAX_ENOTFOUND", "no value at that JSON Pointer", 1},
    [COAX_EUTF8] = {"COAX_EUTF8", "invalid UTF-8", 1},
    [COAX_ESCHEMA] = {"COAX_ESCHEMA", "invalid JSON Schema", 2},
    [COAX_ELIMIT] = {"COAX_ELIMIT", "a validation limit was reached", 4},
    [COAX_ESCRIPT] = {"COAX_ESCRIPT", "a Lua script failed", 5},
    [COAX_ECANCELED] = {"COAX_ECANCELED", "cancelled: the reply cannot succeed", 1},
};

static int known(coax_code code)
{
    return (int)code >= 0 && code < COAX_CODE_COUNT && codes[code].name;
}

const char *coax_strerror(coax_code code)
{
    return known(code) ? codes[code].sentence : "unknown error code";
}

const char *coax_code_name(coax_code code)
{
    return known(code) ? codes[code].name : "COAX_UNKNOWN";
}

int coax_exit_status(coax_code code)
{
    return known(code) ? codes[code].exit_status : 2;
}

coax_code coax_failv(coax_error *err, coax_code code, size_t offset, const char *fmt, va_list ap)
{
    if (!err) return code;
    err->code = code;
    err->offset = offset;
    err->line = err->column = 0;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return code;
}

coax_code coax_fail(coax_error *err, coax_code code, size_t offset,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    coax_failv(err, code, offset, fmt, ap);
    va_end(ap);
    return code;
}

void coax_error_insert(coax_error *err, size_t at, const char *words)
{
    size_t len = strlen(err->msg), n = strlen(words);
    if (at > len || len + n >= sizeof err->msg) return;
    memmove(err->msg + at + n, err->msg + at, len - at + 1);
    memcpy(err->msg + at, words, n);
}

void coax_locate(const char *text, size_t len, size_t offset, uint32_t *line,
                 uint32_t *column)
{
    uint32_t l = 1, c = 1;
    if (offset > len) offset = len;
    for (size_t i = 0; i < offset; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') {
            l++;
            c = 1;
        } else if ((ch & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *column = c;
}

void coax_error_locate(coax_error *err, const char *text, size_t len)
{
    if (err) coax_locate(text, len, err->offset, &err->line, &err->column);
}

void coax_limits_default(coax_limits *l)
{
    if (!l) return;
    l->max_depth = COAX_DEFAULT_MAX_DEPTH;
    l->max_input = COAX_DEFAULT_MAX_INPUT;
    l->max_string = COAX_DEFAULT_MAX_STRING;
}

coax_limits coax_limits_resolve(const coax_limits *limits)
{
    coax_limits l;
    coax_limits_default(&l);
    if (limits) {
        if (limits->max_depth) l.max_depth = limits->max_depth;
        if (limits->max_input) l.max_input = limits->max_input;
        if (limits->max_string) l.max_string = limits->max_string;
        if (l.max_input > COAX_MAX_INPUT_CAP) l.max_input = COAX_MAX_INPUT_CAP;
        if (l.max_string > COAX_MAX_INPUT_CAP) l.max_string = COAX_MAX_INPUT_CAP;
    }
    return l;
}
