/*
** nesting.c: coax_extract's entry, what it refuses before and after the
** reading: a reply holding a control byte, nesting deeper than the C stack
** left to it holds, a candidate rejected for a limit beside the ones read.
**
** A control byte (NUL, ESC, ...; a tab and line breaks are text) is no
** text a model writes, and the reply's looks and its repair would each read
** it their own way (a NUL as a space, in a word): the reply is refused,
** but for NULs that end it (a host that counted a C string's terminator).
**
** The looks of an extraction (placeholders, restated values, doubts, the
** places of errors, coercion's trials, ...) walk its values recursively,
** up to EXTRACT_LEVEL_BYTES of C stack a level of nesting (measured: 112
** bytes in placeholder.c's find, 190 under an object schema), and the
** parsers take any nesting max_depth allows: `coax repair --max-depth
** 300000` of 200,000 brackets segfaulted on 8 MB. The nesting an
** extraction reads is what the C stack left to it holds (base/stack.h's
** floor, set here when no call above set one: 448 KiB, 1,792 levels);
** deeper is COAX_EDEPTH, as past max_depth.
*/
#include "extract/coerce.h"
#include "base/stack.h"

#include <stdio.h>
#include <string.h>

#define EXTRACT_LEVEL_BYTES (COAX_STACK_SCALE * 256u)

coax_code coax_extract(coax_arena *arena, const coax_schema *schema, const char *text, size_t len,
                       const coax_limits *limits, const coax_extract_options *options, coax_extract_result *out,
                       coax_error *err)
{
    if (!arena || !schema || !out || (!text && len))
        return coax_fail(err, COAX_EINVAL, 0, "coax_extract: NULL argument");
    memset(out, 0, sizeof *out);
    coax_limits lim = coax_limits_resolve(limits);
    if (len > lim.max_input) /* before any read of the text: its length may be anything */
        return coax_fail(err, COAX_ESIZE, 0, "input of %zu bytes exceeds the limit of %zu", len, lim.max_input);
    while (len && !text[len - 1]) len--; /* a C string's terminator or a buffer's padding, counted in */
    size_t ctl = coax_control_byte(text, len);
    if (ctl < len) {
        uint32_t line, column;
        coax_locate(text, len, ctl, &line, &column);
        bool c1 = (unsigned char)text[ctl] == 0xC2; /* U+0080..U+009F: a cp1252 quote or dash read as Latin-1 */
        return coax_fail(err, COAX_ENOJSON, ctl,
                         "the reply holds a control %s (%s%02X) at line %u, column %u: send the JSON as plain text",
                         c1 ? "character" : "byte", c1 ? "U+00" : "0x", (unsigned char)text[ctl + c1], (unsigned)line,
                         (unsigned)column);
    }
    uintptr_t before = coax_stack_arm();
    size_t most = coax_stack_left() / EXTRACT_LEVEL_BYTES;
    bool capped = lim.max_depth > most;
    if (capped) lim.max_depth = most ? most : 1;
    coax_code rc = extract_within(arena, schema, text, len, &lim, options, out, err);
    coax_stack_restore(before);
    if (rc != COAX_EDEPTH || !capped || !err) return rc;
    /* the parsers' own message at the lowered limit (the schema's evaluation depth says its own) */
    char parsed[64];
    size_t n = (size_t)snprintf(parsed, sizeof parsed, "nesting deeper than %zu", lim.max_depth);
    /* before extract.c's rejected_limit's words, where they follow */
    if (!strncmp(err->msg, parsed, n) && (err->msg[n] == '\0' || err->msg[n] == ':'))
        coax_error_insert(err, n, " (what the C stack left to an extraction holds)");
    return rc;
}
