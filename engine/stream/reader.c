/*
** reader.c: the push parser that reads the JSON of a streamed reply, one
** piece at a time, and the rules of where that JSON starts (seek.c follows
** them).
**
** Both are state machines over single bytes, so a piece may end anywhere
** (inside "```json", "<think>", a UTF-8 character, "\u12") and the next
** one resumes there: every byte is looked at once, whatever the pieces.
** The tokens most of a reply is made of (strings with their escapes,
** numbers, literals, spaces and colons) are read whole where the piece
** holds them (parse_run: token), with the effects the byte machine's steps
** over their bytes would have; the byte machine (parse_byte) reads the
** rest: brackets, commas, tokens a piece cuts, faults. A string or number
** all in one piece is read in place, not copied through r->text.
**
** Where the JSON starts follows the candidate scan of coax_repair
** (repair/scan.c): reasoning blocks (<think>...</think> and the other names
** it knows) are skipped until they close; a code fence of a JSON-like
** language (or any fence whose block starts with { or [) holds the JSON; a
** tag's content, or prose, is passed until a '{' or '['. In prose, where
** "[1]" or "[note]" are text, an array counts only when it starts like
** JSON ('{', '[', '"' or ']' next), as the scan's rule for an open span.
** A root scalar is never followed: its value is the final one's business.
**
** The parser reads strict JSON (RFC 8259). Anything else (what the lenient
** parser would repair, and so might read otherwise) stops the reader from
** following the reply, wherever the candidate is and whatever was listed:
** the lenient parser may read the failed text as the answer ({name: "Jo",
** "info": {...}} is one object to it, "use {name} here" none), and a search
** resumed from the failing byte would take a container inside it for the
** whole value. Nothing after a failed candidate's bracket can be known not
** to be part of it, so no candidate is ever dropped.
** A scalar is reported (tree_scalar) only once what follows proves it
** final: a string by the ',' or closer after it ("a" + "b" is one string
** to the lenient parser), a number or literal by a space or a closer, or a
** ',' in an array; in an object "12,111" is one number to the lenient
** parser (thousands), so there the comma proves it only once a key's quote
** follows.
*/
#include "stream/reader.h"

#include "json/parse_scan.h"
#include "stream/scan.h"


/* Inside a string. */
enum { L_CHAR, L_U8, L_ESC, L_HEX, L_LOW_BACKSLASH, L_LOW_U };

coax_code stream_new(const coax_allocator *alloc, const stream_options *o, stream_reader **out, coax_error *err)
{
    if (!out) return coax_fail(err, COAX_EINVAL, 0, "stream_new: NULL argument");
    *out = NULL;
    stream_reader *r = coax_alloc_raw(alloc, sizeof *r);
    if (!r) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    memset(r, 0, sizeof *r);
    r->alloc = alloc;
    if (o) r->o = *o;
    r->lim = coax_limits_resolve(r->o.limits);
    r->ar = stream_arena_take(alloc, r->o.arena);
    if (!r->ar) {
        coax_free_raw(alloc, r, sizeof *r);
        return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    }
    coax_buf_init(&r->text, coax_arena_allocator(r->ar));
    coax_buf_init(&r->cand, coax_arena_allocator(r->ar));
    coax_buf_init(&r->ip, coax_arena_allocator(r->ar));
    r->seek = SK_PROSE;
    r->block_start = true;
    *out = r;
    return COAX_OK;
}

void stream_free(stream_reader *r)
{
    if (!r) return;
    tree_free(r);
    coax_buf_free(&r->text); /* loans: back to the arena, before it goes */
    coax_buf_free(&r->cand);
    coax_buf_free(&r->ip);
    coax_arena_free(r->scratch);
    stream_arena_give(r->ar, r->o.arena);
    coax_free_raw(r->alloc, r, sizeof *r);
}

size_t stream_bytes(const stream_reader *r) { return r ? r->bytes : 0; }

bool stream_changed(const stream_reader *r) { return r && r->changed; }

/* ---- the parser ---------------------------------------------------------- */

/* The candidate cannot be read as strict JSON from here on: the reader
** stops following the reply (see above: never dropped, never restarted). */
static void candidate_fails(stream_reader *r)
{
    r->changed = true;
    r->stopped = true;
    r->seek = SK_DONE;
}

/* The held scalar is final: it joins its container. */
static coax_code commit(stream_reader *r, coax_error *err)
{
    if (r->held.type == 0xFF) return COAX_OK;
    coax_value v = r->held;
    r->held.type = 0xFF;
    r->changed = true;
    coax_code rc = tree_scalar(r, &v);
    if (rc && err) *err = r->fail_err;
    return rc;
}

static coax_code too_long(stream_reader *r, coax_error *err)
{
    return stream_limit(r, COAX_ESTRING, err, "a string of the streamed reply is longer than %zu bytes",
                        r->lim.max_string);
}

static coax_code text_put(stream_reader *r, const void *p, size_t n, coax_error *err)
{
    coax_buf_put(&r->text, p, n);
    if (r->text.oom) return stream_oom(r, err);
    if (r->text.len > r->lim.max_string) return too_long(r, err);
    if (r->scalar == SC_STRING || r->scalar == SC_KEY) r->changed = true;
    return COAX_OK;
}

static coax_code put_code_point(stream_reader *r, uint32_t cp, coax_error *err)
{
    char u[4];
    return text_put(r, u, coax_utf8_encode(cp, u), err);
}

/* The text of the scalar being read, so far. */
static const char *text_data(const stream_reader *r) { return r->text.data ? r->text.data : ""; }

/* A scalar as the held value; a string's or number's text is text[0..n)
** (the decoded text so far, or the piece's bytes when it is all there),
** copied into the reader's arena. */
static coax_code hold(stream_reader *r, coax_type type, int boolean, const char *text, size_t n, coax_error *err)
{
    coax_value v = {.type = (uint8_t)type};
    if (type == COAX_STRING || type == COAX_NUMBER) {
        char *s = coax_arena_strdup(r->ar, text, n);
        if (!s) return stream_oom(r, err);
        v.len = (uint32_t)n;
        v.u.text = s;
        if (type == COAX_NUMBER) {
            bool is_int;
            coax_number_span(s, n, &is_int);
            v.flags = is_int ? COAX_VF_INT_TEXT : 0;
        }
    } else if (type == COAX_BOOL) {
        v.u.boolean = boolean;
    }
    r->held = v;
    r->scalar = SC_NONE;
    r->pstate = P_AFTER;
    r->held_spaced = false;
    r->changed = true;
    return COAX_OK;
}

/* A string or key, whose decoded text is text[0..n), ends at its closing
** quote. */
static coax_code string_ends(stream_reader *r, const char *text, size_t n, coax_error *err)
{
    if (r->scalar == SC_KEY) {
        bool dup = false;
        coax_code rc = tree_key(r, text, n, &dup);
        if (rc) {
            if (err) *err = r->fail_err;
            return rc;
        }
        r->scalar = SC_NONE;
        r->pstate = P_COLON;
        r->changed = true;
        /* A duplicate key: the lenient parser keeps the last value, which
        ** cannot be foreseen; the parts listed stay (a session rejects a
        ** final value that contradicts them). */
        if (dup) candidate_fails(r);
        return COAX_OK;
    }
    return hold(r, COAX_STRING, 0, text, n, err);
}

/* A literal's last letter matched. */
static coax_code literal_ends(stream_reader *r, coax_error *err)
{
    return hold(r, r->literal[0] == 'n' ? COAX_NULL : COAX_BOOL, r->literal[0] == 't', NULL, 0, err);
}

static void begin_scalar(stream_reader *r, sscalar kind, int pstate)
{
    r->scalar = kind;
    r->scalars++;
    r->pstate = pstate;
    r->lstate = 0;
    r->text.len = 0;
    r->high = 0;
    r->changed = true;
}

/* Result of reading one byte in the parser. */
enum { STEP_OK, STEP_AGAIN, STEP_FAIL, STEP_ERROR };

/* A byte that begins a value. */
static int value_starts(stream_reader *r, unsigned char c, coax_error *err)
{
    switch (c) {
    case '{': case '[':
        if (r->depth >= r->lim.max_depth) {
            stream_limit(r, COAX_EDEPTH, err, "the streamed reply nests deeper than %zu levels", r->lim.max_depth);
            return STEP_ERROR;
        }
        if (tree_open(r, c == '{')) {
            if (err) *err = r->fail_err;
            return STEP_ERROR;
        }
        r->pstate = c == '{' ? P_KEY_OR_CLOSE : P_VALUE_OR_CLOSE;
        r->changed = true;
        return STEP_OK;
    case '"':
        begin_scalar(r, SC_STRING, P_STRING);
        return STEP_OK;
    case 't': case 'f': case 'n':
        begin_scalar(r, SC_LITERAL, P_LITERAL);
        r->literal = c == 't' ? "true" : c == 'f' ? "false" : "null";
        r->lstate = 1;
        return STEP_OK;
    case '-':
        begin_scalar(r, SC_NUMBER, P_NUMBER);
        r->lstate = N_MINUS;
        break;
    default:
        if (c < '0' || c > '9') return STEP_FAIL;
        begin_scalar(r, SC_NUMBER, P_NUMBER);
        r->lstate = c == '0' ? N_ZERO : N_INT;
        break;
    }
    char ch = (char)c;
    return text_put(r, &ch, 1, err) ? STEP_ERROR : STEP_OK;
}

/* The innermost container closes with 'c'. */
static int closes(stream_reader *r, unsigned char c, coax_error *err)
{
    bool object = r->frames[r->depth - 1].object;
    if (object != (c == '}')) return STEP_FAIL;
    if (commit(r, err) || tree_close(r)) {
        if (err) *err = r->fail_err;
        return STEP_ERROR;
    }
    r->changed = true;
    if (r->depth == 0) {
        r->ended = true;
        r->seek = SK_AFTER;
        r->run = 0;
        r->after_text = false;
        r->nfirst = 0;
        if (r->o.schema) r->root_pending = true; /* the root's value is coax_extract's, at the next partial */
    } else {
        r->pstate = P_AFTER;
    }
    return STEP_OK;
}

/* One byte of a string or key. */
static int string_byte(stream_reader *r, unsigned char c, coax_error *err)
{
    switch (r->lstate) {
    case L_CHAR:
        if (c == '"') return string_ends(r, text_data(r), r->text.len, err) ? STEP_ERROR : STEP_OK;
        if (c == '\\') {
            r->lstate = L_ESC;
            return STEP_OK;
        }
        if (c < 0x20) return STEP_FAIL;
        if (c < 0x80) {
            char ch = (char)c;
            return text_put(r, &ch, 1, err) ? STEP_ERROR : STEP_OK;
        }
        /* A UTF-8 lead byte (RFC 3629: no overlongs, no surrogates). */
        if (c >= 0xC2 && c <= 0xDF) r->u8need = 2;
        else if (c >= 0xE0 && c <= 0xEF) r->u8need = 3;
        else if (c >= 0xF0 && c <= 0xF4) r->u8need = 4;
        else return STEP_FAIL;
        r->u8[0] = c;
        r->u8n = 1;
        r->lstate = L_U8;
        return STEP_OK;
    case L_U8: {
        unsigned char lo = 0x80, hi = 0xBF;
        if (r->u8n == 1) {
            if (r->u8[0] == 0xE0) lo = 0xA0;
            else if (r->u8[0] == 0xED) hi = 0x9F;
            else if (r->u8[0] == 0xF0) lo = 0x90;
            else if (r->u8[0] == 0xF4) hi = 0x8F;
        }
        if (c < lo || c > hi) return STEP_FAIL;
        r->u8[r->u8n++] = c;
        if (r->u8n < r->u8need) return STEP_OK;
        r->lstate = L_CHAR;
        return text_put(r, r->u8, r->u8n, err) ? STEP_ERROR : STEP_OK;
    }
    case L_ESC: {
        int byte = coax_json_escape_byte(c);
        if (byte >= 0) {
            char d = (char)byte;
            r->lstate = L_CHAR;
            return text_put(r, &d, 1, err) ? STEP_ERROR : STEP_OK;
        }
        if (c != 'u') return STEP_FAIL;
        r->lstate = L_HEX;
        r->hex = 0;
        r->u8n = 0;
        return STEP_OK;
    }
    case L_HEX: {
        int h = coax_hex_digit(c);
        if (h < 0) return STEP_FAIL;
        r->hex = r->hex << 4 | (uint32_t)h;
        if (++r->u8n < 4) return STEP_OK;
        uint32_t cp = r->hex;
        if (r->high) { /* the low half of a pair */
            if (cp < 0xDC00 || cp > 0xDFFF) return STEP_FAIL;
            cp = coax_utf16_pair(r->high, cp);
            r->high = 0;
        } else if (cp >= 0xD800 && cp <= 0xDBFF) {
            r->high = cp;
            r->lstate = L_LOW_BACKSLASH;
            return STEP_OK;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return STEP_FAIL; /* a lone low surrogate */
        }
        r->lstate = L_CHAR;
        return put_code_point(r, cp, err) ? STEP_ERROR : STEP_OK;
    }
    case L_LOW_BACKSLASH:
        if (c != '\\') return STEP_FAIL; /* a lone high surrogate */
        r->lstate = L_LOW_U;
        return STEP_OK;
    default: /* L_LOW_U */
        if (c != 'u') return STEP_FAIL;
        r->lstate = L_HEX;
        r->hex = 0;
        r->u8n = 0;
        return STEP_OK;
    }
}

/* A space between tokens (what follows it may be more spaces: they change
** nothing more). A space proves a number or literal ended; a string waits
** for what follows ("a" + "b"). */
static coax_code space(stream_reader *r, coax_error *err)
{
    if (r->pstate == P_AFTER && r->held.type != 0xFF) {
        r->held_spaced = true;
        if (r->held.type != COAX_STRING) return commit(r, err);
    } else if (r->pstate == P_KEY) { /* "n": 12, : no thousands after a space */
        return commit(r, err);
    }
    return COAX_OK;
}

/* One byte of the candidate. */
static int parse_byte(stream_reader *r, unsigned char c, coax_error *err)
{
    switch (r->pstate) {
    case P_STRING:
        return string_byte(r, c, err);
    case P_NUMBER: {
        int next = number_next(r->lstate, c);
        if (next >= 0) {
            r->lstate = next;
            char ch = (char)c;
            return text_put(r, &ch, 1, err) ? STEP_ERROR : STEP_OK;
        }
        if (!number_may_end(r->lstate)) return STEP_FAIL;
        if (hold(r, COAX_NUMBER, 0, text_data(r), r->text.len, err)) return STEP_ERROR;
        return STEP_AGAIN;
    }
    case P_LITERAL:
        if (r->literal[r->lstate] != (char)c) return STEP_FAIL;
        if (r->literal[++r->lstate]) return STEP_OK;
        return literal_ends(r, err) ? STEP_ERROR : STEP_OK;
    default:
        break;
    }
    if (is_ws[c]) return space(r, err) ? STEP_ERROR : STEP_OK;
    switch (r->pstate) {
    case P_VALUE:
        return value_starts(r, c, err);
    case P_VALUE_OR_CLOSE:
        if (c == ']') return closes(r, c, err);
        return value_starts(r, c, err);
    case P_KEY_OR_CLOSE:
        if (c == '}') return closes(r, c, err);
        /* fall through */
    case P_KEY:
        if (c != '"') return STEP_FAIL;
        if (commit(r, err)) return STEP_ERROR; /* "n": 12,"m": the comma ended 12 */
        begin_scalar(r, SC_KEY, P_STRING);
        return STEP_OK;
    case P_COLON:
        if (c != ':') return STEP_FAIL;
        r->pstate = P_VALUE;
        return STEP_OK;
    default: /* P_AFTER */
        if (c == '}' || c == ']') return closes(r, c, err);
        if (c != ',') return STEP_FAIL;
        if (r->frames[r->depth - 1].object) {
            /* "n": 12,111 is one number to the lenient parser: the key's
            ** quote next proves the comma separates members. */
            if ((r->held.type != COAX_NUMBER || r->held_spaced) && commit(r, err)) return STEP_ERROR;
            r->pstate = P_KEY;
        } else {
            if (commit(r, err)) return STEP_ERROR;
            r->pstate = P_VALUE;
        }
        return STEP_OK;
    }
}

/* ---- tokens: the bytes most of a reply is made of, read whole ----------- */

/* The escape at s[0..n) (s[0] is its backslash), when the piece holds all
** of it and the byte machine would read it without a fault: puts what it
** stands for and returns its length (a surrogate pair is one escape of 12
** bytes). 0: the byte machine reads it, a byte at a time. */
static size_t escape_token(stream_reader *r, const unsigned char *s, size_t n, coax_error *err)
{
    if (n < 2) return 0;
    int byte = coax_json_escape_byte(s[1]);
    if (byte >= 0) {
        char d = (char)byte;
        return text_put(r, &d, 1, err) ? SIZE_MAX : 2;
    }
    uint32_t cp, low;
    if (s[1] != 'u' || n < 6 || !coax_hex4((const char *)s + 2, &cp) || (cp >= 0xDC00 && cp <= 0xDFFF)) return 0;
    if (cp < 0xD800 || cp > 0xDBFF) return put_code_point(r, cp, err) ? SIZE_MAX : 6;
    if (n < 12 || s[6] != '\\' || s[7] != 'u' || !coax_hex4((const char *)s + 8, &low) || low < 0xDC00 ||
        low > 0xDFFF)
        return 0;
    return put_code_point(r, coax_utf16_pair(cp, low), err) ? SIZE_MAX : 12;
}

/* Reads a string's body from p[i] (the lexer at L_CHAR): runs of
** characters, whole escapes, and its closing quote. Returns where it
** stopped: the byte there, if any, is for the byte machine (an escape or a
** UTF-8 character the piece cuts, a fault); SIZE_MAX on an error. */
static size_t string_token(stream_reader *r, const unsigned char *p, size_t i, size_t len, coax_error *err)
{
    size_t k = string_run(p, i, len);
    if (k < len && p[k] == '"' && r->text.len == 0) {
        /* All of it is in the piece, with nothing to decode: it is read in
        ** place, not copied through r->text (no partial can come between). */
        if (k - i > r->lim.max_string) return too_long(r, err), SIZE_MAX;
        return string_ends(r, (const char *)p + i, k - i, err) ? SIZE_MAX : k + 1;
    }
    for (;;) {
        if (k > i && text_put(r, p + i, k - i, err)) return SIZE_MAX;
        if (k >= len) return k;
        if (p[k] == '"') return string_ends(r, text_data(r), r->text.len, err) ? SIZE_MAX : k + 1;
        if (p[k] != '\\') return k;
        size_t n = escape_token(r, p + k, len - k, err);
        if (n == 0 || n == SIZE_MAX) return n ? n : k;
        i = k + n;
        k = string_run(p, i, len);
    }
}

/* A number that starts at p[i] and ends in the piece: read in place, not
** copied through r->text, and held. Else (it goes on past the piece, or
** cannot end where it stops) the byte machine starts it. */
static size_t number_whole(stream_reader *r, const unsigned char *p, size_t i, size_t len, coax_error *err)
{
    int s = p[i] == '-' ? N_MINUS : p[i] == '0' ? N_ZERO : N_INT;
    size_t k = number_scan(p, i + 1, len, &s);
    if (k >= len || !number_may_end(s)) return i;
    begin_scalar(r, SC_NUMBER, P_NUMBER);
    r->lstate = s;
    if (k - i > r->lim.max_string) return too_long(r, err), SIZE_MAX;
    return hold(r, COAX_NUMBER, 0, (const char *)p + i, k - i, err) ? SIZE_MAX : k;
}

/* Reads a number's bytes from p[i], and holds it when the byte after them
** proves it ended (that byte is then read after the number, as P_AFTER). */
static size_t number_token(stream_reader *r, const unsigned char *p, size_t i, size_t len, coax_error *err)
{
    int s = r->lstate;
    size_t k = number_scan(p, i, len, &s);
    r->lstate = s;
    if (k > i && text_put(r, p + i, k - i, err)) return SIZE_MAX;
    if (k < len && number_may_end(s) && hold(r, COAX_NUMBER, 0, text_data(r), r->text.len, err)) return SIZE_MAX;
    return k;
}

/* Reads the rest of a literal from p[i] when the piece holds all of it and
** it matches (else the byte machine reads it). */
static size_t literal_token(stream_reader *r, const unsigned char *p, size_t i, size_t len, coax_error *err)
{
    const char *rest = r->literal + r->lstate;
    size_t n = strlen(rest);
    if (len - i < n || memcmp(p + i, rest, n)) return i;
    r->lstate += (int)n;
    return literal_ends(r, err) ? SIZE_MAX : i + n;
}

/* Reads the bytes between scalars from p[i] (a run of spaces, a colon and
** the spaces after it) and the start of the scalar after them (a quote, a
** number whole in the piece); commas, brackets and the rest are the byte
** machine's. Returns where it stopped; SIZE_MAX on an error. */
static size_t between(stream_reader *r, const unsigned char *p, size_t i, size_t len, coax_error *err)
{
    unsigned char c = p[i];
    if (is_ws[c]) {
        if ((r->pstate == P_AFTER || r->pstate == P_KEY) && space(r, err)) return SIZE_MAX;
        for (i++; i < len && is_ws[p[i]]; i++) {}
        if (i == len) return i;
        c = p[i];
    }
    if (r->pstate == P_COLON && c == ':') {
        r->pstate = P_VALUE; /* spaces after it change nothing */
        for (i++; i < len && is_ws[p[i]]; i++) {}
        if (i == len) return i;
        c = p[i];
    }
    switch (r->pstate) {
    case P_VALUE: case P_VALUE_OR_CLOSE:
        if (c == '"') {
            begin_scalar(r, SC_STRING, P_STRING);
            return i + 1;
        }
        if (c == '-' || (c >= '0' && c <= '9')) return number_whole(r, p, i, len, err);
        break;
    case P_KEY: case P_KEY_OR_CLOSE:
        if (c == '"') {
            if (commit(r, err)) return SIZE_MAX; /* "n": 12,"m": the comma ended 12 */
            begin_scalar(r, SC_KEY, P_STRING);
            return i + 1;
        }
        break;
    default:
        break;
    }
    return i;
}

/* Reads the token at p[i] whole when it is one the byte machine would read
** without a fault or a change of container: a string's body, a number, a
** literal, the bytes between scalars. Returns where it stopped (i: the byte
** machine reads p[i]); SIZE_MAX on an error. Each token has the effects the
** byte machine's steps over it have, in the same order. */
static size_t token(stream_reader *r, const unsigned char *p, size_t i, size_t len, coax_error *err)
{
    switch (r->pstate) {
    case P_STRING: return r->lstate == L_CHAR ? string_token(r, p, i, len, err) : i;
    case P_NUMBER: return number_token(r, p, i, len, err);
    case P_LITERAL: return literal_token(r, p, i, len, err);
    default: return between(r, p, i, len, err);
    }
}

/* Reads p[i..len) in the candidate until it ends, the piece ends or the
** reader stops; returns where it stopped, or SIZE_MAX on an error (memory,
** a limit). Tokens are read whole where they can be; the byte machine reads
** the rest (containers, commas, cut tokens, faults). */
static size_t parse_run(stream_reader *r, const unsigned char *p, size_t i, size_t len, coax_error *err)
{
    while (i < len) {
        size_t k = token(r, p, i, len, err);
        if (k == SIZE_MAX) return k;
        if (k > i) {
            i = k;
            if (r->seek != SK_JSON) return i; /* a duplicate key */
            continue;
        }
        int step = parse_byte(r, p[i], err);
        if (step == STEP_ERROR) return SIZE_MAX;
        if (step == STEP_FAIL) {
            candidate_fails(r);
            return i;
        }
        if (step == STEP_OK) {
            i++;
            if (r->seek != SK_JSON) return i; /* the root closed */
        }
    }
    return i;
}

coax_code stream_feed(stream_reader *r, const char *piece, size_t len, coax_error *err)
{
    if (!r || (!piece && len)) return coax_fail(err, COAX_EINVAL, 0, "stream_feed: NULL argument");
    if (r->failed) {
        if (err) *err = r->fail_err;
        return r->failed;
    }
    if (len > r->lim.max_input || r->bytes > r->lim.max_input - len)
        return stream_limit(r, COAX_ESIZE, err, "the streamed reply is longer than %zu bytes", r->lim.max_input);
    const unsigned char *p = (const unsigned char *)piece;
    for (size_t i = 0; i < len;) {
        if (r->seek == SK_DONE) break;
        if (r->seek != SK_JSON) {
            if (r->seek == SK_PROSE) { /* the common case */
                size_t from = i;
                i = seek_prose(r, p, i, len);
                seek_remember(r, p + from, i - from);
                if (i >= len) break;
            }
            if (!seek_byte(r, p[i])) seek_remember(r, p + i++, 1);
            if (r->seek == SK_JSON && r->bracket_pending) {
                r->bracket_pending = false;
                if (r->o.schema) coax_buf_putc(&r->cand, '[');
                int s = value_starts(r, '[', err);
                if (s == STEP_ERROR) return r->failed;
            }
            continue;
        }
        /* The candidate's bytes the parser reads go to its text in one copy
        ** (with a schema: coax_extract reads the root from it). */
        size_t end = parse_run(r, p, i, len, err);
        if (end == SIZE_MAX) return r->failed;
        if (r->o.schema && r->seek != SK_DONE) coax_buf_put(&r->cand, p + i, end - i);
        i = end;
        if (r->seek == SK_DONE) break;
    }
    r->bytes += len;
    if (r->cand.oom) return stream_oom(r, err);
    return COAX_OK;
}
