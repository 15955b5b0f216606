/*
** lenient_string.c: strings as models write them (lenient.h): double,
** single, back or typographic quotes; unescaped quotes inside, told from
** the closing one by what follows it; raw control characters, invalid
** escapes and invalid UTF-8; a closing quote lost at a line break or at
** the end of the input; and block strings (Python triple quotes, Markdown
** fences written as a value). Plain bytes are copied a run at a time.
*/
#include "repair/lenient.h"
#include "base/bytes.h"

/* ---- quotes -------------------------------------------------------------- */

#if BYTES16
/* One block of lp_plain_body: the sixteen bytes in w, of which the 'valid'
** ones after the first 'shift' are the body's. Sets '*stop' (the block's
** stops) and '*carry' (continuation bytes due in the next block); false when
** a byte before the first stop is not what lp_plain_string takes. */
static inline __attribute__((always_inline)) bool plain_block(__m128i w, char open, unsigned shift, unsigned valid,
                                                              unsigned *carry, unsigned *stop_out)
{
    __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(w, _mm_set1_epi8(0x1F)), w); /* bytes below 0x20 */
    unsigned stop = ((unsigned)_mm_movemask_epi8(_mm_or_si128(
                         _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8(open)), _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))),
                         ctl)) >> shift) & valid;
    unsigned before = stop ? (stop & (0u - stop)) - 1 : valid; /* the bytes before the first stop */
    unsigned high = ((unsigned)_mm_movemask_epi8(w) >> shift) & before;
    *stop_out = stop;
    if (high | *carry) {
        /* signed: continuation bytes 0x80..0xBF are below -64, leads
        ** 0xC2..0xDF between -63 and -32, 0xE1..0xEF between -32 and -16 */
        unsigned cont = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(w, _mm_set1_epi8((char)0xC0))) >> shift;
        unsigned lead2 = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(w, _mm_set1_epi8((char)0xC1)),
                                                                   _mm_cmplt_epi8(w, _mm_set1_epi8((char)0xE0)))) >> shift;
        unsigned lead3 = (unsigned)_mm_movemask_epi8(_mm_andnot_si128(
                             _mm_cmpeq_epi8(w, _mm_set1_epi8((char)0xED)),
                             _mm_and_si128(_mm_cmpgt_epi8(w, _mm_set1_epi8((char)0xE0)),
                                           _mm_cmplt_epi8(w, _mm_set1_epi8((char)0xF0))))) >> shift;
        lead2 &= before;
        lead3 &= before;
        unsigned want = *carry | lead2 << 1 | lead3 << 1 | lead3 << 2; /* where continuation bytes go */
        if ((cont & before) != (want & before) || (high & ~(lead2 | lead3 | cont))) return false;
        if (want & ~before & 0xFFFF) return false; /* a sequence cut by a stop or the text's end */
        *carry = want >> 16;
    }
    return true;
}

const char *lp_plain_body(const char *q, const char *e, const char *b, char open)
{
    unsigned carry = 0, stop; /* carry: continuation bytes due at the start of the block */
    /* whole blocks, then the sixteen bytes that end the text, for the
    ** block's part of them (written apart: the shift and the mask of the
    ** last block cost every block a few instructions) */
    for (; e - q >= 16; q += 16) {
        if (!plain_block(bytes16_load(q), open, 0, 0xFFFF, &carry, &stop)) return NULL;
        if (stop) return carry ? NULL : q + __builtin_ctz(stop); /* carry: a sequence cut by the stop */
        if (e - q == 16) return NULL; /* no closing quote */
    }
    if (e - b < 16) return NULL;
    unsigned left = (unsigned)(e - q);
    if (!plain_block(bytes16_load(e - 16), open, 16 - left, (1u << left) - 1, &carry, &stop) || !stop) return NULL;
    return carry ? NULL : q + __builtin_ctz(stop);
}

const char *lp_text_body(const char *q, char open)
{
    __m128i quote = _mm_set1_epi8(open), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    for (;; q += 16) { /* the text's NUL at e is a stop */
        __m128i w = bytes16_load(q);
        unsigned stop = (unsigned)_mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(w, quote), _mm_cmpeq_epi8(w, backslash)), _mm_cmpeq_epi8(_mm_min_epu8(w, ctl), w)));
        if (stop) return q + __builtin_ctz(stop);
    }
}
#endif

/* After a candidate closing quote: lenient.h's lp_ends_string, which
** answers the common cases inline. */
bool lp_ends_string_slow(const lp *ps, const char *p, int ctx)
{
    const char *e = ps->e, *q0 = p;
    bool open = ps->nopens > 0;
    if (ctx == CTX_KEY) /* "k"e"y": a key's inner quote is followed at once */
        return p >= e || !is_ident((unsigned char)*p);
    const char *r0 = lp_space_end(p, e);
    bool newline = memchr(p, '\n', (size_t)(r0 - p)) != NULL;
    p = r0;
    if (p >= e) return true;
    uint32_t q;
    switch (*p) {
    case ',': case ':':
        return true;
    case '}': case ']':
        return open;
    case ')': /* inside a function-call wrapper */
        return ps->top_paren || (open && ps->opens[ps->nopens - 1].paren);
    case ';':
        return !open;
    case '+': { /* "a" + "b", or with a short block comment after the '+': a concatenation */
        const char *r = p + 1;
        for (int n = 0; n < 4; n++) { /* at most four comments */
            r = lp_space_end(r, e);
            if (e - r < 2 || r[0] != '/' || r[1] != '*') break;
            const char *end = r + 2, *limit = e - r > 256 ? r + 256 : e; /* bounded: this runs per quote */
            while (limit - end >= 2 && !(end[0] == '*' && end[1] == '/')) end++;
            if (limit - end < 2) return false;
            r = end + 2;
        }
        return r < e && quote_at(r, e, &q);
    }
    case '/':
        return p + 1 < e && (p[1] == '/' || p[1] == '*');
    case '#': /* "x" # a comment to the line's end, as after a number; "a "b" #1 c" goes on */
        for (const char *c = p + 1; c < e && *c != '\n'; c++)
            if (*c == '"' || c - p > 256) return false;
        return p + 1 < e && ws_tab[(unsigned char)p[1]];
    case '{': case '[':
        return open;
    default:
        break;
    }
    if (newline && open) return true;
    if (*p >= '0' && *p <= '9') return open && p > q0; /* "a" 2 */
    if (quote_at(p, e, &q)) {
        /* "72"" at the end: the first quote is inside the string. */
        if (p == q0) {
            const char *r = lp_space_end(p + 1, e);
            if (r >= e || *r == ',' || *r == '}' || *r == ']') return false;
        }
        return true;
    }
    return false;
}

/* Whether a quoted string that ends the way 'ctx' expects starts at p
** (after spaces): a key and its colon in an object, an item and its comma
** or bracket in an array. It tells that the string before lost its
** closing quote. */
bool lp_item_ahead(const char *p, const char *e, int ctx)
{
    /* Bounded: called at every line break inside a string, it must not
    ** rescan a long run of blank text each time. */
    const char *limit = e - p > 64 ? p + 64 : e;
    while (p < limit && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    if (p >= e || *p != '"') return false;
    p++;
    for (int n = 0; p < e && *p != '"' && *p != '\n'; p++)
        if (++n > 256) return false;
    if (p >= e || *p != '"') return false;
    p = coax_blanks_end(p + 1, e);
    if (p >= e) return ctx != CTX_OBJVAL;
    return ctx == CTX_OBJVAL ? *p == ':' : (*p == ',' || *p == ']' || *p == '\n' || *p == '\r');
}

/* A string in double or single quotes at p whose body is what
** lp_plain_string reads but for raw control characters (a line break the
** model wrote for "\n"), each a stop of its look, up to a closing quote
** that ends it and that no '+' or comment follows: read as
** lp_parse_string_slow reads it (every control character kept and logged,
** after the single quotes), without its decoding into ps->sb and its copy.
** NULL, nothing logged, for any other string: a backslash, invalid UTF-8,
** a line break before the next item ("abc\n"def": cut there), more control
** characters than it keeps, none at all. */
const char *lp_control_string(lp *ps, const char *p, const char *e, int ctx, coax_value *out)
{
    const char *body = p + 1, *q = body, *ctl[16];
    char open = *p;
    size_t nctl = 0;
    for (bool plain;;) {
#if BYTES16
        /* a text of valid UTF-8 has only sequences lp_quick_body passes:
        ** its stops alone */
        if (ps->utf8) {
            q = lp_text_body(q, open);
        } else
#endif
            q = lp_quick_body(q, e, open, &plain);
        if (q >= e) return NULL;
        unsigned char c = (unsigned char)*q;
        if (c == (unsigned char)open) break;
        if (c >= 0x20 || nctl == sizeof ctl / sizeof *ctl) return NULL;
        if (c == '\n' && (ctx == CTX_KEY || (ps->nopens && lp_item_ahead(q + 1, e, ctx)))) return NULL;
        ctl[nctl++] = q++;
    }
    const char *after = q + 1;
    if (!nctl || !lp_ends_string(ps, after, e, ctx) || lp_string_goes_on(skip_ws_run(after, e), e)) return NULL;
    if (open == '\'') note(ps, RK_SINGLE_QUOTES, p);
    for (size_t i = 0; i < nctl; i++) note(ps, RK_CONTROL_CHARACTER, ctl[i]);
    size_t n = (size_t)(q - body);
    *out = (coax_value){.type = COAX_STRING, .len = (uint32_t)n, .u.text = lp_text(ps, body, n)};
    return after;
}

coax_code lp_parse_key(lp *ps, coax_value *out) { return lp_parse_string(ps, CTX_KEY, out); }

/* ---- string bodies ------------------------------------------------------- */

/* Four hexadecimal digits at 's', before 'e'. */
static bool hex4(const char *s, const char *e, uint32_t *out) { return e - s >= 4 && coax_hex4(s, out); }

static void put_cp(lp *ps, uint32_t cp)
{
    char u[4];
    coax_buf_put(&ps->sb, u, coax_utf8_encode(cp, u));
}

enum { S_CLOSED, S_BOUND, S_CUT };

/* Whether the text before 'before' (inside a string from body) ends with
** a quote and a colon ("a": "b), where a member may have ended and a key
** begun; a colon in text ("Error: "File...) is no such place. */
static bool lost_member_end(const char *body, const char *before)
{
    if (before <= body || before[-1] != ':') return false;
    const char *c = before - 1;
    c = coax_blanks_start(body, c);
    return c > body && c[-1] == '"';
}

/* Whether the text before 'before' (inside a string from body) ends with
** a quote and an operator between alternatives ("active" | "inactive",
** "yes" or "no", "A"/"B"): the model listed choices, or echoed a type,
** and gave no one value; read as one string, the list would pass a
** schema that allows strings. So does another language's concatenation
** set off by spaces on both sides ("x" . "y" in PHP, "x" .. "y" in Lua,
** "x" & "y", "x" ~ "y", "x" ++ "y"), or a backslash that continues the
** line: the model meant "xy", not the expression as
** text; 'spaced': spaces lie between the operator and the quote ("hi".
** "Bye" in a quotation has none before its period). */
static bool alternatives_end(const char *body, const char *before, bool spaced)
{
    const char *c = before;
    if (c > body && (c[-1] == '|' || c[-1] == '/')) {
        c--;
        if (c > body && c[-1] == c[0]) c--; /* || and // */
    } else if (c - body >= 3 && c[-1] == 'r' && c[-2] == 'o' && coax_blank_before(body, c - 2)) {
        c -= 2;
    } else if (spaced && c > body && coax_byte_in(".&~+", c[-1])) {
        c--;
        if (c > body && c[-1] == c[0]) c--; /* .., && and Haskell's ++ */
        if (!coax_blank_before(body, c)) return false;
    } else if (c > body && c[-1] == '\n') { /* "ab" \ and a new line: C's and the shell's line continuation */
        c -= c - body >= 2 && c[-2] == '\r' ? 2 : 1;
        if (c == body || c[-1] != '\\') return false;
        c--;
    } else {
        return false;
    }
    c = coax_blanks_start(body, c);
    return c > body && (c[-1] == '"' || c[-1] == '\'');
}

/* Whether a quote character of any style starts at p: those quote_at
** knows, and the low ones („ ‚) that open German quotations. */
static bool quote_char(const char *p, const char *bound)
{
    uint32_t q;
    if (quote_at(p, bound, &q)) return true;
    return bound - p >= 3 && (unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
           ((unsigned char)p[2] == 0x9E || (unsigned char)p[2] == 0x9A);
}

/* Whether the octal escape at p (on the backslash; C's, Python's and
** JavaScript's \101, up to three digits, below 0400) reads as a character
** a writer may have typed that way: a printable one (\101 is A, \251 is
** Python's ©), a tab or a line break (\11, \12, \15), or any value
** written with its leading zero (\012, \000). D:\2024's \202 and a
** pattern's \1 read as controls nobody types: a path, a back-reference. */
static bool octal_character(const char *p, const char *bound)
{
    unsigned v = 0;
    const char *d = p + 1;
    while (d < bound && d < p + 4 && *d >= '0' && *d <= '7' && v * 8 + (unsigned)(*d - '0') < 0400)
        v = v * 8 + (unsigned)(*d++ - '0');
    if (d == p + 1) return false;
    return (v >= 0x20 && v < 0x7F) || v >= 0xA0 || v == '\t' || v == '\n' || v == '\r' ||
           (p[1] == '0' && d > p + 2);
}

/* Whether the escape at p (on the backslash) names its character between
** braces: \u{1F600} (JavaScript's, Rust's, Swift's and Ruby's code
** point), \x{41} (Perl's) or \N{EM DASH} (Python's name of it). */
static bool braced_character(const char *p, const char *bound)
{
    char c = p[1];
    if (!(c == 'u' || c == 'x' || c == 'N') || p + 3 >= bound || p[2] != '{') return false;
    const char *d = p + 3;
    while (d < bound && d < p + 3 + 64 && *d != '}' &&
           (c == 'N' ? (*d >= 'A' && *d <= 'Z') || is_digit(*d) || *d == ' ' || *d == '-'
                     : coax_hex_digit(*d) >= 0))
        d++;
    return d > p + 3 && d < bound && *d == '}' && (c == 'N' || d <= p + 9);
}

/* Whether \c escapes Markdown's (and LaTeX's) punctuation, \_ \* \#:
** there it is the character alone (snake\_case is snake_case), where a
** pattern or a path keeps the backslash; which one was meant is a guess. */
static bool markdown_escape(char c)
{
    return c == '_' || c == '*' || c == '#';
}

/* An escape JSON does not have: what it meant is the backslash as written
** (a pattern's \d, a path's C:\Users), kept, one obvious reading; unless
** another language reads it as a character (\x41, \U0001F600, \0, \a,
** \v, \e, \101, \u{1F600}, Markdown's \_): which one was meant is a guess. Returns where the text
** goes on (the character after the backslash, copied as text). */
static const char *kept_backslash(lp *ps, const char *p, const char *bound)
{
    char c = p[1];
    size_t nhex = 0;
    if (c == 'x' || c == 'U' || c == 'u')
        while (p + 2 + nhex < bound && nhex < 8 && coax_hex_digit(p[2 + nhex]) >= 0) nhex++;
    /* \alpha, \vec, \epsilon (LaTeX) and D:\2024 are text: a letter or a
    ** digit after the escape's own says so */
    bool word = p + 2 < bound && (is_ident((unsigned char)p[2]) || is_digit(p[2]));
    /* \u00A": a \u escape short of its four digits (C:\users and C:\udir
    ** go on as a word); which character it was is a guess */
    bool short_u = c == 'u' && nhex >= 1 && !(p + 2 + nhex < bound && is_ident((unsigned char)p[2 + nhex]));
    bool other = (c == 'x' && nhex >= 2) || (c == 'U' && nhex == 8) || (c == '0' && !word) ||
                 ((c == 'a' || c == 'v' || c == 'e') && !word) || short_u ||
                 octal_character(p, bound) || braced_character(p, bound) || markdown_escape(c);
    note_as(ps, RK_INVALID_ESCAPE, other ? COAX_CLASS_INVENTED : COAX_CLASS_INFERRED, p);
    ps->kept_escape |= is_ident((unsigned char)c) && c != '_' && c != '$'; /* \p, \d: not \_ or \ */
    coax_buf_putc(&ps->sb, '\\');
    return p + 1;
}

/* Decodes one escape at p (on the backslash), below 'bound'. */
/* Whether a key's text from p, over its lines up to its closing quote,
** holds JSON's punctuation: a key that swallowed structure ("count: [⏎ {⏎
** note"), not one that holds a line break ("key⏎after", "a⏎    "). */
static bool structure_in_key(const char *p, const char *bound)
{
    for (; p < bound && *p != '"' && *p != '\''; p++)
        if (coax_byte_in("{}[],:", *p)) return true;
    return false;
}

static const char *decode_escape(lp *ps, const char *p, const char *bound)
{
    if (p + 1 >= bound) return bound; /* a lone backslash at the end */
    char c = p[1];
    static const char simple_from[] = "\"\\/bfnrt";
    static const char simple_to[] = "\"\\/\b\f\n\r\t";
    const char *k = c ? strchr(simple_from, c) : NULL;
    if (k) {
        coax_buf_putc(&ps->sb, simple_to[k - simple_from]);
        return p + 2;
    }
    if (c == 'u') {
        uint32_t cp, lo;
        if (!hex4(p + 2, bound, &cp)) {
            const char *h = p + 2;
            while (h < bound && h < p + 6 && coax_hex_digit(*h) >= 0) h++;
            if (h == bound) { /* cut off by the end: drop it */
                note(ps, RK_INVALID_ESCAPE, p);
                return bound;
            }
            return kept_backslash(ps, p, bound); /* C:\users */
        }
        p += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF && bound - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
            hex4(p + 2, bound, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
            put_cp(ps, coax_utf16_pair(cp, lo));
            return p + 6;
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) { /* half a character: the whole one is lost (log.c: invented) */
            note(ps, RK_LONE_SURROGATE, p - 6);
            cp = 0xFFFD;
        }
        put_cp(ps, cp);
        return p;
    }
    if (c == '\n' || c == '\r') {
        /* a backslash before a line break: JavaScript's and JSON5's line
        ** continuation (nothing), or the break escaped (jsonrepair keeps
        ** it, as a writer who meant \n did): "firstsecond" or two lines is
        ** a guess; read as the continuation, CR LF and all */
        note_as(ps, RK_INVALID_ESCAPE, COAX_CLASS_INVENTED, p);
        return p + (c == '\r' && p + 2 < bound && p[2] == '\n' ? 3 : 2);
    }
    if (quote_char(p + 1, bound)) { /* it\'s, a \„ b: certain */
        note_as(ps, RK_INVALID_ESCAPE, COAX_CLASS_LOSSLESS, p);
        return p + 1; /* the quote after it is copied as text */
    }
    return kept_backslash(ps, p, bound);
}

/* The end of the bytes at p (below bound) that a body copies as they are:
** plain bytes and valid UTF-8 other than typographic quotes, which
** decode_body would take one character at a time (each a call to
** decode it, and a copy of its own): text in other scripts is mostly such
** characters. */
static const char *copied_run(const char *p, const char *bound)
{
    for (;;) {
        p = lp_plain_scan(p, bound);
        if (p >= bound || (unsigned char)*p < 0x80) return p;
        uint32_t q;
        size_t n = quote_at(p, bound, &q) ? 0 : lp_utf8_len(p, bound);
        if (!n) return p;
        p += n;
    }
}

/* Whether the next quote from p that could close a string opened with
** 'open' is where the string ends. */
static bool next_quote_ends(const lp *ps, uint32_t open, const char *p, int ctx)
{
    for (uint32_t q; p < ps->e; p++) {
        if (*p == '\\') {
            p++;
            continue;
        }
        size_t qn = quote_at(p, ps->e, &q);
        if (qn && closes(open, q)) return lp_ends_string(ps, p + qn, ps->e, ctx);
    }
    return false;
}

/* Decodes a string body from ps->p up to its closing quote (consumed:
** S_CLOSED) or to 'bound' (S_BOUND). S_CUT: the closing quote is missing
** and the string should end at *cut (decode again with that bound). */
static int decode_body(lp *ps, uint32_t open, int ctx, const char *bound, const char **cut)
{
    const char *p = ps->p, *body = ps->p;
    bool control = false, mixed = false; /* a control escape decoded; noted with a backslash kept */
    int key_punct = -1; /* a key over lines: whether it holds JSON's punctuation (-1: not looked yet) */
    ps->kept_escape = false;
    while (p < bound) {
        const char *run = p;
        p = copied_run(p, bound);
        coax_buf_put(&ps->sb, lp_orig(ps, run), (size_t)(p - run));
        if (p >= bound) break;
        unsigned char c = (unsigned char)*p;
        if (c == '\\') {
            /* "C:\path\to\file", "\b\d+\b": a backslash kept before a letter
            ** or a digit (\p, \d; not markdown's \_ or a lone \) says
            ** the writer did not escape the string's backslashes, so its
            ** \t, \f, \n, \r and \b are as likely text as the controls JSON
            ** reads them as: which one was meant is a guess */
            const char *esc = p;
            control |= p + 1 < bound && coax_byte_in("bfnrt", p[1]);
            p = decode_escape(ps, p, bound);
            if (control && ps->kept_escape && !mixed) {
                note_as(ps, RK_INVALID_ESCAPE, COAX_CLASS_INVENTED, esc);
                mixed = true;
            }
            continue;
        }
        if (c < 0x20) {
            if (c == '\n' && ctx != CTX_KEY && ps->nopens && lp_item_ahead(p + 1, ps->e, ctx)) {
                const char *back = p; /* "abc,\n"def": the comma separated them */
                while (back > body && ws_tab[(unsigned char)back[-1]]) back--;
                *cut = back > body && back[-1] == ',' ? back - 1 : p;
                return S_CUT;
            }
            /* a key over lines that holds JSON's punctuation ("count: [⏎ {⏎
            ** note": 1) may end at a later key's quote, its own and that
            ** key's opening one lost */
            bool first_look = key_punct < 0, line_end = c == '\n' || c == '\r'; /* a lone CR's line too */
            if (line_end && ctx == CTX_KEY && first_look) key_punct = structure_in_key(body, bound);
            if (line_end && ctx == CTX_KEY && key_punct == 1) {
                if (first_look) note_as(ps, RK_UNESCAPED_QUOTE, COAX_CLASS_INVENTED, body); /* once */
            } else {
                note(ps, RK_CONTROL_CHARACTER, p);
            }
            coax_buf_putc(&ps->sb, (char)c);
            p++;
            continue;
        }
        uint32_t q;
        size_t qn = quote_at(p, bound, &q);
        if (qn && closes(open, q)) {
            if (lp_ends_string(ps, p + qn, ps->e, ctx)) {
                ps->p = p + qn;
                return S_CLOSED;
            }
            if (ctx != CTX_KEY && ps->nopens) { /* "a,"b": ... lost the quote before the comma */
                const char *back = coax_blanks_start(body, p);
                if (back > body && back[-1] == ',' && lp_item_ahead(p, ps->e, ctx)) {
                    *cut = back - 1;
                    return S_CUT;
                }
            }
            /* Inside a key a stray quote leaves the key itself in doubt, and
            ** one after a comma, a bracket or a colon may open the next item
            ** or member ("a, "b"]; [["a], ["b", 1]] was two arrays): a guess.
            ** So is a quote alone between spaces ("abc " def": it neither
            ** closes a word nor opens one, and "abc " may be the string) and
            ** one right after the end of a comment ("abc COMMENT "def", the
            ** comment in slash-star) or a plus after a space or a comment
            ** ("hello + "world"), when the next quote ends the string: two
            ** strings joined, or one (not C++", nor "1 + "2" is not 3"). */
            const char *before = coax_blanks_start(body, p);
            bool alone = before < p && p + qn < bound && (ws_tab[(unsigned char)p[qn]] || coax_blank_at(p + qn, bound));
            const char *b = before > body && before[-1] == '+' ? before - 1 : before;
            bool comment_end = b - body >= 2 && b[-1] == '/' && b[-2] == '*';
            bool after_comment = (comment_end || (b < before && (b == body || ws_tab[(unsigned char)b[-1]] ||
                                                                 coax_blank_before(body, b)))) &&
                                 next_quote_ends(ps, open, p + qn, ctx);
            /* \\" (She said \\"hi\\"): JSON escaped twice, its quotes meant
            ** ("hi" quoted), or a backslash before each quote? */
            const char *k = p;
            while (k > body && k[-1] == '\\') k--;
            bool escaped_twice = p - k >= 2 && (p - k) % 2 == 0;
            bool guess = ctx == CTX_KEY || (before > body && coax_byte_in(",[{", before[-1])) || alone ||
                         after_comment || escaped_twice || lost_member_end(body, before) ||
                         alternatives_end(body, before, before < p);
            note_as(ps, RK_UNESCAPED_QUOTE, class_if(guess), p);
            ps->inner_quote = true;
            coax_buf_put(&ps->sb, p, qn);
            p += qn;
            continue;
        }
        if (qn) {
            coax_buf_put(&ps->sb, p, qn);
            p += qn;
            continue;
        }
        /* copied_run passed every valid sequence: invalid UTF-8 */
        note(ps, RK_INVALID_UTF8, p);
        coax_buf_put(&ps->sb, "\xEF\xBF\xBD", 3);
        p++;
    }
    ps->p = bound;
    return S_BOUND;
}

/* Where a string cut off by the end of input really ends: before a run of
** closing brackets at the end whose first closes the innermost open
** container (`{"a": ["b]}`). Returns ps->e when there is none. */
static const char *unterminated_end(lp *ps, const char *body)
{
    const char *x = ps->e, *run = ps->e;
    size_t m = 0;
    for (;;) {
        while (x > body && ws_tab[(unsigned char)x[-1]]) x--;
        if (x > body && (x[-1] == '}' || x[-1] == ']') && m < ps->nopens) {
            run = --x;
            m++;
            continue;
        }
        break;
    }
    if (m == 0 || *run != (ps->opens[ps->nopens - 1].object ? '}' : ']')) return ps->e;
    return run;
}

/* Whether the apostrophe at p (below e) begins a word it shortens: 'em,
** 'tis, 'til, 'cause, rock 'n' roll, the '90s. */
static bool elision_at(const char *p, const char *e)
{
    static const char *const words[] = {"em", "tis", "twas", "til", "cause", "bout", "round", "n", "neath", "nuff"};
    const char *w = p + 1, *x = w;
    if (x < e && is_digit(*x)) return true;
    while (x < e && ((*x >= 'a' && *x <= 'z') || (*x >= 'A' && *x <= 'Z'))) x++;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if ((size_t)(x - w) == strlen(words[i]) && coax_ascii_casesame(w, words[i], (size_t)(x - w))) return true;
    return false;
}

/* The unescaped quote q in a body..close quoted with q that opens a
** quotation ("the "best) no later quote closes: the quote taken as the
** string's end may be the quotation's own ("the "best"}: the string's end
** was lost) or the string's (the quotation's end was lost); either reading
** is a guess. A quote opens after a space or the body's start and before a
** non-space; after a non-space it closes (5" inches, "hi" said, dogs').
** An apostrophe that shortens a word opens nothing ('the '90s', 'rock 'n'
** roll'). So is a double quote that closes none opened, after a word and
** before a space ("red" blue": the string's end, and blue an item that
** lost its quote and comma, or a quotation whose opening quote was taken
** for the string's?); not after a digit (12" pizza) nor inside a word
** ("somet"string"), nor closing a typographic opening mark („x" y).
** Returns NULL when every quotation closes. */
/* Whether the double quote at p ends a measure in inches: a number
** before it, alone after a space (12", 5'10", 2.5"). */
static bool inch_mark(const char *body, const char *p)
{
    const char *c = p;
    while (c > body && (is_digit(c[-1]) || c[-1] == '.' || c[-1] == '\'')) c--;
    return c < p && is_digit(p[-1]) && (c == body || ws_tab[(unsigned char)c[-1]]);
}

static const char *open_quotation(const char *body, const char *close, char q)
{
    const char *opener = NULL, *unopened = NULL;
    bool typographic = false; /* „autocritică" opens with a low mark a plain quote closes */
    for (const char *p = body; p < close; p++) {
        if (*p == '\\') {
            p++;
            continue;
        }
        if (close - p >= 3 && (unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
            ((unsigned char)p[2] == 0x9E || (unsigned char)p[2] == 0x9C))
            typographic = true;
        if (*p != q) continue;
        bool spaced_before = p == body || ws_tab[(unsigned char)p[-1]] || p[-1] == '(';
        if (opener && !spaced_before) opener = NULL;
        else if (!opener && spaced_before && p + 1 < close && !ws_tab[(unsigned char)p[1]] &&
                 !(q == '\'' && elision_at(p, close)))
            opener = p;
        else if (!opener && typographic && !spaced_before)
            typographic = false;
        else if (!opener && !unopened && q == '"' && p + 1 < close && ws_tab[(unsigned char)p[1]] &&
                 !inch_mark(body, p))
            unopened = p;
    }
    return opener ? opener : unopened;
}

/* Whether the one quote a string just closed kept sits right before its
** closing quote ("x"", ["a"", "b"]): a string that ends in a quote, or its
** closing quote typed twice? A guess, made so (invented), but after a
** number, where it is an inch mark ("5' 10""). So are two it kept right
** inside both of its quotes (""value"": "value" quoted, or its quotes
** typed twice?). */
static bool doubled_close(lp *ps, size_t mark, const char *body, char open)
{
    const char *kept = ps->p - 2;
    size_t at = SIZE_MAX, quotes = 0, first = SIZE_MAX;
    if (kept < body || *kept != open || inch_mark(body, kept)) return false;
    for (size_t i = mark; i < ps->log->n; i++)
        if (ps->log->e[i].kind == rkind_name(RK_UNESCAPED_QUOTE)) first = quotes++ ? first : i, at = i;
    bool wrapped = quotes == 2 && kept > body && *body == open && ps->log->e[first].offset == off(ps, body);
    if ((quotes != 1 && !wrapped) || ps->log->e[at].offset != off(ps, kept)) return false;
    rlog_set_class(ps->log, at, RK_UNESCAPED_QUOTE, COAX_CLASS_INVENTED);
    return true;
}

/* The string at 'at' whose body (from 'body') needs decoding, or whose
** closing quote is in doubt. */
coax_code lp_parse_string_slow(lp *ps, int ctx, coax_value *out, uint32_t open, const char *at, const char *body)
{
    const char *cut = NULL;
    size_t mark = ps->log->n;
    ps->sb.len = 0;
    ps->p = body;
    ps->inner_quote = false;
    int r = decode_body(ps, open, ctx, ps->e, &cut);
    if (r == S_BOUND) {
        const char *x = unterminated_end(ps, body);
        if (x == ps->e) ps->truncated = true;
        else cut = x;
    }
    if (cut) { /* decode again, up to where the string really ends */
        ps->log->n = mark;
        ps->sb.len = 0;
        ps->p = body;
        ps->inner_quote = false;
        decode_body(ps, open, ctx, cut, &cut);
        while (ps->sb.len && ws_tab[(unsigned char)ps->sb.data[ps->sb.len - 1]]) ps->sb.len--;
    }
    if (r != S_CLOSED) note(ps, RK_UNTERMINATED_STRING, ps->p);
    bool plain_end = r == S_CLOSED && !cut && ps->inner_quote && (open == '"' || open == '\'');
    const char *opener = plain_end ? open_quotation(body, ps->p - 1, (char)open) : NULL;
    for (size_t i = mark; opener && i < ps->log->n; i++)
        if (ps->log->e[i].offset == off(ps, opener)) {
            rlog_set_class(ps->log, i, RK_UNESCAPED_QUOTE, COAX_CLASS_INVENTED);
            ps->inv = ps->inv_any = true;
        }
    if (plain_end && doubled_close(ps, mark, body, (char)open)) ps->inv = ps->inv_any = true;
    if (ps->inner_quote) ps->quoted_end = ps->p;
    if (ps->sb.oom) return nomem(ps);
    if (ps->sb.len > ps->lim.max_string)
        return coax_fail(ps->err, COAX_ESTRING, off(ps, at), "string longer than %zu bytes",
                         ps->lim.max_string);
    memset(out, 0, sizeof *out);
    out->type = COAX_STRING;
    out->len = ps->sb.len;
    out->u.text = lp_strdup(ps, ps->sb.data, ps->sb.len);
    if (ctx == CTX_KEY && ps->inv) out->flags |= COAX_VF_INVENTED; /* a key read by a guess */
    return out->u.text ? COAX_OK : nomem(ps);
}

/* Whether t[0..n) is JSON's own scalar: a number, true, false, null or a
** string in double quotes. */
static bool json_scalar_text(const char *t, size_t n)
{
    bool is_int;
    if (n && coax_number_span(t, n, &is_int) == n) return true;
    if ((n == 4 && (!memcmp(t, "true", 4) || !memcmp(t, "null", 4))) || (n == 5 && !memcmp(t, "false", 5)))
        return true;
    return n >= 2 && t[0] == '"' && t[n - 1] == '"';
}

/* Whether t[0..n), a whole reply's code span, looks like JSON: an object's brace at
** either end, a quoted key, a list of JSON's items (`{"a": 1`, `"a": 1}`, `[1, 2`; not
** `[a-z]`). When it is none the repair reads, its text as a string hides what could not
** be read. */
static bool broken_json_text(const char *t, size_t n)
{
    size_t a = 0, z = n, q;
    while (a < z && coax_byte_in(" \t\r\n", t[a])) a++;
    while (z > a && coax_byte_in(" \t\r\n", t[z - 1])) z--;
    if (a == z) return false;
    if (t[a] == '{' || t[z - 1] == '}') return true;
    for (q = a; q + 1 < z; q++)
        if (t[q] == '"' && t[q + 1] == ':') return true;
    if (t[a] != '[') return false;
    for (q = a + 1; q < z && coax_byte_in(" \t\r\n", t[q]);) q++;
    return q == z || coax_byte_in("\"{[]-0123456789", t[q]);
}

/* Whether t[0..n), a template literal's text, reads as Markdown's code
** span as well: JSON's own scalar (`42`, `true`, `"hi"`), text opened or
** closed by a backtick of its own (``{"a": 1}``: a code span opened with
** two so that it may hold one), or inside a container an object or a list in JSON ({"a":
** `{"b": 1}`}; `[a-z]` is no list). A whole reply's string that holds JSON
** is that JSON (`{"a": 1}` alone is the object): no second reading there. */
static bool code_span_text(lp *ps, const char *t, size_t n)
{
    if (json_scalar_text(t, n)) return true;
    if (n < 2) return false;
    /* the opening or the closing pair's other backtick: ``a`` twice on a
    ** reply reads `a`, then the text between, then a` */
    if (t[0] == '`' || t[n - 1] == '`') return true;
    bool whole = !ps->nopens;
    if (whole ? !broken_json_text(t, n) : !((t[0] == '{' && t[n - 1] == '}') || (t[0] == '[' && t[n - 1] == ']')))
        return false;
    coax_arena_mark mark = coax_arena_get_mark(ps->arena); /* the parse is a test: nothing of it is kept */
    coax_value *v;
    bool json = repair_json_text(ps->arena, t, n, &ps->lim, &v) == COAX_OK;
    coax_arena_rewind(ps->arena, mark);
    return whole ? !json : json; /* a whole reply's JSON is read as JSON after (repair.c) */
}

/* A string in backticks: JavaScript's template literal. With ${...} in it,
** its value is what the expression gives, which the reply does not say
** (`Hello ${name}` is not the text "Hello ${name}"). Around a value
** (code_span_text) the backticks are as likely Markdown's code span
** around it (42, {"b": 1}) as a string's quotes. */
coax_code lp_parse_template(lp *ps, int ctx, coax_value *out, const char *at, const char *body)
{
    size_t mark = ps->log->n;
    rlog_add(ps->log, RK_BACKTICK_QUOTES, off(ps, at));
    coax_code rc = lp_parse_string_slow(ps, ctx, out, '`', at, body);
    if (rc || !out->len) return rc;
    const char *t = out->u.text;
    size_t i = 0, n = out->len;
    while (i + 1 < n && !(t[i] == '$' && t[i + 1] == '{')) i++;
    bool code_span = ctx != CTX_KEY && code_span_text(ps, t, n);
    if (code_span || (i + 1 < n && memchr(t + i + 2, '}', n - i - 2))) { /* the first ${ has its }: later ones need no look */
        if (mark < ps->log->n) rlog_set_class(ps->log, mark, RK_BACKTICK_QUOTES, COAX_CLASS_INVENTED);
        ps->inv = ps->inv_any = true;
        if (ctx == CTX_KEY) out->flags |= COAX_VF_INVENTED;
    }
    return COAX_OK;
}

/* ---- block strings: Python triple quotes, fenced code -------------------- */

/* Puts the text of a block b..e into ps->sb. Text on one line with its
** opening quotes ('lines' false, no line break) stays as it is. Lines lose
** the indentation all of them share (Python's textwrap.dedent), blank lines
** are emptied and the blank first and last ones dropped: that layout is
** the reply's, not the text's. */
static void put_block(lp *ps, const char *b, const char *e, bool lines)
{
    ps->sb.len = 0;
    if (!lines && !memchr(b, '\n', (size_t)(e - b))) {
        lp_put_utf8(ps, b, e);
        return;
    }
    const char *margin = NULL; /* the shared indentation, from its first line */
    size_t mlen = 0;
    for (const char *l = b; l < e;) {
        const char *nl = memchr(l, '\n', (size_t)(e - l)), *end = nl ? nl : e, *x = l;
        while (x < end && (*x == ' ' || *x == '\t')) x++;
        if (x < end && *x != '\r') {
            if (!margin) {
                margin = l;
                mlen = (size_t)(x - l);
            } else {
                size_t k = 0;
                while (k < mlen && l + k < x && l[k] == margin[k]) k++;
                mlen = k;
            }
        }
        l = nl ? nl + 1 : e;
    }
    size_t blank_run = 0; /* blank lines held back until text follows */
    bool started = false;
    for (const char *l = b; l < e;) {
        const char *nl = memchr(l, '\n', (size_t)(e - l)), *end = nl ? nl : e, *x = l;
        if (end > l && end[-1] == '\r') end--;
        while (x < end && (*x == ' ' || *x == '\t')) x++;
        if (x == end) {
            blank_run += started;
        } else {
            if (started) coax_buf_putc(&ps->sb, '\n');
            for (; blank_run; blank_run--) coax_buf_putc(&ps->sb, '\n');
            lp_put_utf8(ps, l + mlen, end);
            started = true;
        }
        l = nl ? nl + 1 : e;
    }
}

/* A block string's value from ps->sb, after a check of its length. */
static coax_code block_value(lp *ps, const char *at, coax_value *out)
{
    if (ps->sb.oom) return nomem(ps);
    if (ps->sb.len > ps->lim.max_string)
        return coax_fail(ps->err, COAX_ESTRING, off(ps, at), "string longer than %zu bytes", ps->lim.max_string);
    memset(out, 0, sizeof *out);
    out->type = COAX_STRING;
    out->len = ps->sb.len;
    out->u.text = lp_strdup(ps, ps->sb.data, ps->sb.len);
    return out->u.text ? COAX_OK : nomem(ps);
}

/* A Python triple-quoted string at ps->p ('*ok' false when it is never
** closed). The first run of three or more quotes closes it; quotes before
** its last three belong to the text. Escapes are read in Python's way only
** by Python: a block holding a backslash is a guess. */
coax_code lp_parse_triple(lp *ps, coax_value *out, bool *ok)
{
    const char *s = ps->p, *body = s + 3, *e = ps->e, *r = body, *close = NULL;
    char q = *s;
    while (!close && (r = memchr(r, q, (size_t)(e - r)))) {
        size_t n = 0;
        while (r + n < e && r[n] == q) n++;
        if (n >= 3) close = r + n - 3;
        r += n;
    }
    *ok = close != NULL;
    if (!close) return COAX_OK;
    bool escapes = memchr(body, '\\', (size_t)(close - body)) != NULL;
    note_as(ps, RK_TRIPLE_QUOTED_STRING, escapes ? COAX_CLASS_INVENTED : COAX_CLASS_LOSSLESS, s);
    put_block(ps, body, close, false);
    ps->p = close + 3;
    return block_value(ps, s, out);
}

/* A fenced code block written as a string value ("code": ```...```). As a
** list's item ('item'), a block holding an object or a list ([```json⏎
** {"a": 1}⏎```]) is Markdown's fence around the JSON as likely as a text:
** a guess. */
coax_code lp_parse_fenced(lp *ps, coax_value *out, bool *ok, bool item)
{
    size_t cs, ce, end = repair_fenced_string(ps->b, (size_t)(ps->p - ps->b), (size_t)(ps->e - ps->b), &cs, &ce,
                                              &ps->fences);
    *ok = end != 0;
    if (!end) return COAX_OK;
    const char *at = ps->p, *first = ps->b + cs;
    while (first < ps->b + ce && ws_tab[(unsigned char)*first]) first++;
    bool json = item && first < ps->b + ce && (*first == '{' || *first == '[');
    note_as(ps, RK_FENCED_STRING, json ? COAX_CLASS_INVENTED : COAX_CLASS_LOSSLESS, at);
    put_block(ps, ps->b + cs, ps->b + ce, memchr(at, '\n', (size_t)(ps->b + cs - at)) != NULL);
    ps->p = ps->b + end;
    return block_value(ps, at, out);
}

bool lp_fence_ends_value(lp *ps, const char *p)
{
    size_t n = repair_fence_at(p, 0, (size_t)(ps->e - p));
    if (!n) return false;
    const char *after = p + n; /* the reply's last: {"key": "value"```, glued */
    while (after < ps->e && ws_tab[(unsigned char)*after]) after++;
    if (after == ps->e) return true;
    const char *s = p;
    while (s > ps->b && (s[-1] == ' ' || s[-1] == '\t')) s--;
    if (s > ps->b && s[-1] != '\n') return false;
    size_t cs, ce;
    return *p != '`' || !repair_fenced_string(ps->b, (size_t)(p - ps->b), (size_t)(ps->e - ps->b), &cs, &ce, &ps->fences);
}
