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

/* The length of a terminal's colour code (SGR: ESC '[', digits and ';', 'm') at t[i], or 0. */
static size_t colour_at(const char *t, size_t i, size_t len)
{
    if (len - i < 3 || t[i] != '\x1B' || t[i + 1] != '[') return 0;
    size_t k = i + 2;
    while (k < len && k - i < 32 && ((t[k] >= '0' && t[k] <= '9') || t[k] == ';')) k++;
    return k < len && t[k] == 'm' ? k + 1 - i : 0;
}

/* The length of a colour code ending at t[end - 1], or 0. */
static size_t colour_before(const char *t, size_t end)
{
    if (end < 3 || t[end - 1] != 'm') return 0;
    size_t k = end - 1;
    while (k > 0 && end - k < 32 && ((t[k - 1] >= '0' && t[k - 1] <= '9') || t[k - 1] == ';')) k--;
    return k >= 2 && t[k - 1] == '[' && t[k - 2] == '\x1B' ? end - (k - 2) : 0;
}

/* A reply a terminal tool printed in colour, its codes around it (ESC[32m{...}ESC[0m): they set how it
** looked, they are no text of it, so they are read as blanks, in a copy of the reply (offsets hold). Only
** before and after the rest, blanks between: a code elsewhere may sit inside a string, and stays a control
** byte. The reply as it was when there is none, or no memory for the copy (the control byte refuses it). */
static const char *colour_blanked(coax_arena *arena, const char *text, size_t len)
{
    size_t from = 0, to = len, n;
    bool coloured = false; /* a code found around it, not blanks alone */
    for (bool any = true; any;) {
        any = false;
        while (from < to && coax_ascii_space((unsigned char)text[from])) from++;
        if ((n = colour_at(text, from, to))) from += n, any = coloured = true;
    }
    size_t head = from;
    for (bool any = true; any;) {
        any = false;
        while (to > from && coax_ascii_space((unsigned char)text[to - 1])) to--;
        if ((n = colour_before(text, to)) && to - n >= from) to -= n, any = coloured = true;
    }
    if (!coloured) return text;
    char *copy = coax_arena_alloc(arena, len + 1);
    if (!copy) return text;
    memcpy(copy, text, len);
    copy[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if ((i < head || i >= to) && !coax_ascii_space((unsigned char)copy[i])) copy[i] = ' ';
    return copy;
}

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
    text = colour_blanked(arena, text, len);
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
