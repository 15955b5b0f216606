/*
** lenient.c: the lenient parser.
**
** A state machine over an explicit stack (nesting is input-controlled), in
** the shape of the strict parser, that accepts what language models write
** instead of JSON and logs every fix: comments, trailing/missing commas and
** colons, unquoted keys and strings, other quote styles, unescaped inner
** quotes, raw control characters, Python and JavaScript literals, numbers in
** other notations, ellipses, JSONP wrappers, truncation (open strings,
** arrays and objects are closed; a dangling key is dropped), mismatched
** brackets and invalid UTF-8. Each byte is looked at a bounded number of
** times, so time is linear in the input.
*/
#include "repair/repair.h"

enum { ST_VALUE, ST_AFTER, ST_KEY, ST_COLON };
enum { CTX_OTHER, CTX_OBJVAL, CTX_KEY };

typedef struct lslot {
    coax_member m;
    uint32_t koff;  /* offsets fit: max_input is below 4 GiB */
    bool invented;  /* the key was guessed: its value is flagged */
} lslot;

typedef struct lopen {
    size_t base;   /* first child in the slot array */
    bool object;
    bool invented;  /* opened under an invented repair: all inside is flagged */
    unsigned paren; /* function-call wrappers opened at this level */
} lopen;

typedef struct lp {
    coax_arena *arena;
    const coax_allocator *alloc;
    const char *b, *p, *e; /* the bytes parsed */
    size_t base;           /* offset in the text of b[0] */
    bool exact;            /* false: every log offset is 'base' */
    coax_limits lim;
    rlog *log;
    coax_error *err;
    lslot *slots;
    size_t nslots, cslots;
    lopen *opens;
    size_t nopens, copens;
    unsigned top_paren;
    coax_buf sb;     /* string being decoded */
    bool truncated;  /* something was cut off by the end of input */
    int st;
    const char *comma; /* the comma just read, for trailing-comma reports */
    bool inv;          /* an invented repair since the last value: it flags the next */
    bool inv_any;      /* an invented repair in this top-level value */
    size_t inv_opens;  /* open containers with 'invented' set */
    size_t none_from;  /* repair_fenced_string's cache */
    bool bracket_fixed; /* a closing bracket was replaced or inserted in this value */
    bool inner_quote;  /* the string being decoded kept an unescaped quote */
    const char *quoted_end; /* the end of the last string that kept one */
} lp;

static size_t off(const lp *ps, const char *at)
{
    return ps->exact ? ps->base + (size_t)(at - ps->b) : ps->base;
}

/* Logs a fix of class 'cls'; an invented one flags the value it belongs to. */
static void note_as(lp *ps, rkind k, coax_class cls, const char *at)
{
    rlog_add_class(ps->log, k, cls, off(ps, at));
    if (cls == COAX_CLASS_INVENTED) ps->inv = ps->inv_any = true;
}

/* Logs a fix of its kind's usual class. */
static void note(lp *ps, rkind k, const char *at)
{
    if (rlog_add(ps->log, k, off(ps, at)) == COAX_CLASS_INVENTED) ps->inv = ps->inv_any = true;
}

static coax_class class_if(bool invented) { return invented ? COAX_CLASS_INVENTED : COAX_CLASS_INFERRED; }

static coax_code nomem(lp *ps)
{
    return coax_fail(ps->err, COAX_ENOMEM, off(ps, ps->p), "out of memory");
}

static const uint8_t ws_tab[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1, ['\v'] = 1};

static bool is_ident(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}

/* A Unicode space outside strings: returns its byte length, or 0. */
static size_t unicode_space(const char *p, const char *e, bool *bom)
{
    uint32_t cp;
    size_t n = coax_utf8_decode((const unsigned char *)p, (size_t)(e - p), &cp);
    if (!n) return 0;
    *bom = cp == 0xFEFF;
    if (cp == 0xA0 || cp == 0x1680 || cp == 0x180E || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x2028 ||
        cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF)
        return n;
    return 0;
}

/* Bytes that may begin whitespace or a comment outside strings. */
static const uint8_t space_start[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1, ['\v'] = 1, ['/'] = 1, ['#'] = 1,
    [0xC2] = 1, [0xE1] = 1, [0xE2] = 1, [0xE3] = 1, [0xEF] = 1,
};

/* Skips whitespace, comments and Unicode spaces, logging what is not JSON. */
static void skip_space_slow(lp *ps);
static inline void skip_space(lp *ps)
{
    if (ps->p < ps->e && !space_start[(unsigned char)*ps->p]) return;
    skip_space_slow(ps);
}

static void skip_space_slow(lp *ps)
{
    const char *p = ps->p, *e = ps->e;
    for (;;) {
        while (p < e && ws_tab[(unsigned char)*p]) p++;
        if (p >= e) break;
        if (*p == '/' && p + 1 < e && (p[1] == '/' || p[1] == '*')) {
            note(ps, RK_COMMENT, p);
            if (p[1] == '/') {
                while (p < e && *p != '\n') p++;
            } else {
                const char *q = p + 2;
                while (q + 1 < e && !(q[0] == '*' && q[1] == '/')) q++;
                p = q + 1 < e ? q + 2 : e;
            }
            continue;
        }
        if (*p == '#') {
            note(ps, RK_COMMENT, p);
            while (p < e && *p != '\n') p++;
            continue;
        }
        if ((unsigned char)*p >= 0x80) {
            bool bom;
            size_t n = unicode_space(p, e, &bom);
            if (n) {
                note(ps, bom ? RK_BYTE_ORDER_MARK : RK_UNICODE_WHITESPACE, p);
                p += n;
                continue;
            }
        }
        break;
    }
    ps->p = p;
}

/* ---- quotes ------------------------------------------------------------ */

/* Recognises a quote character at p: returns its length (0 if none) and
** its code point. */
static size_t quote_at(const char *p, const char *e, uint32_t *q)
{
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\'' || c == '`') {
        *q = c;
        return 1;
    }
    if (c == 0xE2 && e - p >= 3 && (unsigned char)p[1] == 0x80) {
        unsigned char d = (unsigned char)p[2];
        if (d == 0x98 || d == 0x99 || d == 0x9C || d == 0x9D) {
            *q = (uint32_t)0x2000 | (uint32_t)(d - 0x80); /* U+2018 2019 201C 201D */
            return 3;
        }
    }
    return 0;
}

/* Whether quote 'c' closes a string opened with 'open'. */
static bool closes(uint32_t open, uint32_t c)
{
    switch (open) {
    case '"': return c == '"';
    case '\'': return c == '\'';
    case '`': return c == '`';
    case 0x201C: case 0x201D: return c == 0x201D || c == '"' || c == 0x201C;
    default: return c == 0x2019 || c == '\'' || c == 0x2018; /* U+2018, U+2019 */
    }
}

/* After a candidate closing quote (p just past it): does the string end?
** It does when structure that can apply here follows, or another value
** (a missing comma), or a line break; otherwise the quote is taken as an
** unescaped quote inside the string ("He said "hi" to me"). */
static bool ends_string(const lp *ps, const char *p, int ctx)
{
    const char *e = ps->e, *q0 = p;
    bool open = ps->nopens > 0;
    bool call = ps->top_paren || (open && ps->opens[ps->nopens - 1].paren);
    if (ctx == CTX_KEY) /* "k"e"y": a key's inner quote is followed at once */
        return p >= e || !is_ident((unsigned char)*p);
    bool newline = false;
    while (p < e && ws_tab[(unsigned char)*p]) newline |= *p++ == '\n';
    if (p >= e) return true;
    uint32_t q;
    switch (*p) {
    case ',': case ':':
        return true;
    case '}': case ']':
        return open;
    case ')':
        return call;
    case ';':
        return !open;
    case '+': { /* "a" + "b", or with a short block comment after the '+': a concatenation */
        const char *r = p + 1;
        for (int n = 0; n < 4; n++) { /* at most four comments */
            while (r < e && ws_tab[(unsigned char)*r]) r++;
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
            const char *r = p + 1;
            while (r < e && ws_tab[(unsigned char)*r]) r++;
            if (r >= e || *r == ',' || *r == '}' || *r == ']') return false;
        }
        return true;
    }
    return false;
}

/* Whether only spaces lie between p and a closing bracket. */
static bool ws_ahead_closes(const char *p, const char *e)
{
    const char *limit = e - p > 64 ? p + 64 : e;
    while (p < limit && ws_tab[(unsigned char)*p]) p++;
    return p < e && (*p == '}' || *p == ']');
}

/* Whether a quoted string that ends the way 'ctx' expects starts at p
** (after spaces): a key and its colon in an object, an item and its comma
** or bracket in an array. It tells that the string before lost its
** closing quote. */
static bool item_ahead(const char *p, const char *e, int ctx)
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
    p++;
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    if (p >= e) return ctx != CTX_OBJVAL;
    return ctx == CTX_OBJVAL ? *p == ':' : (*p == ',' || *p == ']' || *p == '\n' || *p == '\r');
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool hex4(const char *s, const char *e, uint32_t *out)
{
    if (e - s < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(s[i]);
        if (h < 0) return false;
        v = (v << 4) | (uint32_t)h;
    }
    *out = v;
    return true;
}

static void put_cp(lp *ps, uint32_t cp)
{
    char u[4];
    coax_buf_put(&ps->sb, u, coax_utf8_encode(cp, u));
}

enum { S_CLOSED, S_BOUND, S_CUT };

/* Bytes a string body cannot copy as they are: controls, backslash, quote
** characters and the start of any multi-byte sequence. */
static const uint8_t plain_not[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\''] = 1, ['`'] = 1, ['\\'] = 1,
    [0x80] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* Decodes one escape at p (on the backslash), below 'bound'. */
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
            note(ps, RK_INVALID_ESCAPE, p);
            const char *h = p + 2;
            while (h < bound && h < p + 6 && hexval(*h) >= 0) h++;
            if (h == bound) return bound; /* cut off by the end: drop it */
            return p + 1;                 /* keep the 'u' and what follows as text */
        }
        p += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF && bound - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
            hex4(p + 2, bound, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
            put_cp(ps, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
            return p + 6;
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) {
            note(ps, RK_LONE_SURROGATE, p - 6);
            cp = 0xFFFD;
        }
        put_cp(ps, cp);
        return p;
    }
    note(ps, RK_INVALID_ESCAPE, p);
    if (c == '\n') return p + 2; /* a line continuation */
    return p + 1;                /* drop the backslash, keep the character */
}

/* Decodes a string body from ps->p up to its closing quote (consumed:
** S_CLOSED) or to 'bound' (S_BOUND). S_CUT: the closing quote is missing
** and the string should end at *cut (decode again with that bound). */
static int decode_body(lp *ps, uint32_t open, int ctx, const char *bound, const char **cut)
{
    const char *p = ps->p, *body = ps->p;
    while (p < bound) {
        const char *run = p;
        while (bound - p >= 4 && !(plain_not[(unsigned char)p[0]] | plain_not[(unsigned char)p[1]] |
                                   plain_not[(unsigned char)p[2]] | plain_not[(unsigned char)p[3]]))
            p += 4;
        while (p < bound && !plain_not[(unsigned char)*p]) p++;
        coax_buf_put(&ps->sb, run, (size_t)(p - run));
        if (p >= bound) break;
        unsigned char c = (unsigned char)*p;
        if (c == '\\') {
            p = decode_escape(ps, p, bound);
            continue;
        }
        if (c < 0x20) {
            if (c == '\n' && ctx != CTX_KEY && ps->nopens && item_ahead(p + 1, ps->e, ctx)) {
                const char *back = p; /* "abc,\n"def": the comma separated them */
                while (back > body && ws_tab[(unsigned char)back[-1]]) back--;
                *cut = back > body && back[-1] == ',' ? back - 1 : p;
                return S_CUT;
            }
            note(ps, RK_CONTROL_CHARACTER, p);
            coax_buf_putc(&ps->sb, (char)c);
            p++;
            continue;
        }
        uint32_t q;
        size_t qn = quote_at(p, bound, &q);
        if (qn && closes(open, q)) {
            if (ends_string(ps, p + qn, ctx)) {
                ps->p = p + qn;
                return S_CLOSED;
            }
            if (ctx != CTX_KEY && ps->nopens) { /* "a,"b": ... lost the quote before the comma */
                const char *back = p;
                while (back > body && (back[-1] == ' ' || back[-1] == '\t')) back--;
                if (back > body && back[-1] == ',' && item_ahead(p, ps->e, ctx)) {
                    *cut = back - 1;
                    return S_CUT;
                }
            }
            /* Inside a key a stray quote leaves the key itself in doubt, and
            ** one after a comma may open the next item ("a, "b"]): a guess. */
            const char *before = p;
            while (before > body && (before[-1] == ' ' || before[-1] == '\t')) before--;
            bool guess = ctx == CTX_KEY || (before > body && before[-1] == ',');
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
        uint32_t cp;
        size_t n = coax_utf8_decode((const unsigned char *)p, (size_t)(bound - p), &cp);
        if (!n) {
            note(ps, RK_INVALID_UTF8, p);
            coax_buf_put(&ps->sb, "\xEF\xBF\xBD", 3);
            p++;
        } else {
            coax_buf_put(&ps->sb, p, n);
            p += n;
        }
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

/* Parses a string at ps->p (on its opening quote) into 'out'. */
static coax_code parse_string(lp *ps, int ctx, coax_value *out)
{
    uint32_t open;
    size_t qn = quote_at(ps->p, ps->e, &open);
    const char *at = ps->p;
    if (open == '\'') note(ps, RK_SINGLE_QUOTES, at);
    else if (open == '`') note(ps, RK_BACKTICK_QUOTES, at);
    else if (open != '"') note(ps, RK_TYPOGRAPHIC_QUOTES, at);
    const char *body = ps->p + qn, *cut = NULL;
    if (open == '"') { /* the common case: plain bytes up to a closing quote that ends it */
        const char *q = body;
        while (ps->e - q >= 4 && !(plain_not[(unsigned char)q[0]] | plain_not[(unsigned char)q[1]] |
                                   plain_not[(unsigned char)q[2]] | plain_not[(unsigned char)q[3]]))
            q += 4;
        while (q < ps->e && !plain_not[(unsigned char)*q]) q++;
        if (q < ps->e && *q == '"' && ends_string(ps, q + 1, ctx)) {
            size_t n = (size_t)(q - body);
            if (n > ps->lim.max_string)
                return coax_fail(ps->err, COAX_ESTRING, off(ps, at), "string longer than %zu bytes",
                                 ps->lim.max_string);
            memset(out, 0, sizeof *out);
            out->type = COAX_STRING;
            out->len = (uint32_t)n;
            out->u.text = coax_arena_strdup(ps->arena, body, n);
            ps->p = q + 1;
            return out->u.text ? COAX_OK : nomem(ps);
        }
    }
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
    if (ps->inner_quote) ps->quoted_end = ps->p;
    if (ps->sb.oom) return nomem(ps);
    if (ps->sb.len > ps->lim.max_string)
        return coax_fail(ps->err, COAX_ESTRING, off(ps, at), "string longer than %zu bytes",
                         ps->lim.max_string);
    memset(out, 0, sizeof *out);
    out->type = COAX_STRING;
    out->len = ps->sb.len;
    out->u.text = coax_arena_strdup(ps->arena, ps->sb.data ? ps->sb.data : "", ps->sb.len);
    if (ctx == CTX_KEY && ps->inv) out->flags |= COAX_VF_INVENTED; /* a key read by a guess */
    return out->u.text ? COAX_OK : nomem(ps);
}

/* ---- block strings: Python triple quotes, fenced code ---------------- */

/* Appends b..e to ps->sb, invalid UTF-8 replaced with U+FFFD (logged). */
static void put_utf8(lp *ps, const char *b, const char *e)
{
    while (b < e) {
        const char *run = b;
        while (b < e && (unsigned char)*b < 0x80) b++;
        coax_buf_put(&ps->sb, run, (size_t)(b - run));
        if (b >= e) break;
        uint32_t cp;
        size_t n = coax_utf8_decode((const unsigned char *)b, (size_t)(e - b), &cp);
        if (n) {
            coax_buf_put(&ps->sb, b, n);
            b += n;
        } else {
            note(ps, RK_INVALID_UTF8, b);
            coax_buf_put(&ps->sb, "\xEF\xBF\xBD", 3);
            b++;
        }
    }
}

/* Puts the text of a block b..e into ps->sb. Text on one line with its
** opening quotes ('lines' false, no line break) stays as it is. Lines lose
** the indentation all of them share (Python's textwrap.dedent), blank lines
** are emptied and the blank first and last ones dropped: that layout is
** the reply's, not the text's. */
static void put_block(lp *ps, const char *b, const char *e, bool lines)
{
    ps->sb.len = 0;
    if (!lines && !memchr(b, '\n', (size_t)(e - b))) {
        put_utf8(ps, b, e);
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
            put_utf8(ps, l + mlen, end);
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
    out->u.text = coax_arena_strdup(ps->arena, ps->sb.data ? ps->sb.data : "", ps->sb.len);
    return out->u.text ? COAX_OK : nomem(ps);
}

/* A Python triple-quoted string at ps->p ('*ok' false when it is never
** closed). The first run of three or more quotes closes it; quotes before
** its last three belong to the text. Escapes are read in Python's way only
** by Python: a block holding a backslash is a guess. */
static coax_code parse_triple(lp *ps, coax_value *out, bool *ok)
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

/* A fenced code block written as a string value ("code": ```...```). */
static coax_code parse_fenced(lp *ps, coax_value *out, bool *ok)
{
    size_t cs, ce, end = repair_fenced_string(ps->b, (size_t)(ps->p - ps->b), (size_t)(ps->e - ps->b), &cs, &ce,
                                              &ps->none_from);
    *ok = end != 0;
    if (!end) return COAX_OK;
    const char *at = ps->p;
    note(ps, RK_FENCED_STRING, at);
    put_block(ps, ps->b + cs, ps->b + ce, memchr(at, '\n', (size_t)(ps->b + cs - at)) != NULL);
    ps->p = ps->b + end;
    return block_value(ps, at, out);
}

/* ---- numbers, literals and bare words ---------------------------------- */

/* Whether the token ending at p is followed by a delimiter. */
static bool delimited(const char *p, const char *e, int ctx)
{
    if (p >= e || ws_tab[(unsigned char)*p]) return true;
    uint32_t q;
    switch (*p) {
    case ',': case '}': case ']': case ')': case '#': case ';': case '{': case '[':
        return true;
    case ':':
        return ctx == CTX_KEY;
    case '/':
        return p + 1 < e && (p[1] == '/' || p[1] == '*');
    default:
        return quote_at(p, e, &q) > 0;
    }
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Tries a number at ps->p in the notations models use (+1, .5, 5., 1e).
** Returns true and fills 'out' if there is one. */
static coax_code try_number(lp *ps, int ctx, coax_value *out, bool *ok)
{
    const char *s = ps->p, *p = s, *e = ps->e;
    bool plus = false, fixed = false, dangling = false;
    *ok = false;
    if (*p == '+' || *p == '-') {
        plus = *p == '+';
        p++;
    }
    const char *digits = p;
    while (p < e && *p >= '0' && *p <= '9') p++;
    size_t nint = (size_t)(p - digits);
    if (nint > 1 && *digits == '0') return COAX_OK; /* 007: not a number */
    /* "n": 12,111, "m": digits cannot start a key, so the comma groups
    ** thousands, when every group after the first has three digits. In an
    ** array a comma separates items ([12,111] is two numbers). */
    const char *groups = p;
    if (ctx == CTX_OBJVAL && nint >= 1 && nint <= 3 && *digits != '0')
        while (e - p >= 4 && p[0] == ',' && is_digit(p[1]) && is_digit(p[2]) && is_digit(p[3]) &&
               (e - p == 4 || !is_digit(p[4])))
            p += 4;
    const char *groups_end = p;
    bool frac = p < e && *p == '.';
    const char *fd = frac ? p + 1 : p, *fe = fd;
    while (frac && fe < e && *fe >= '0' && *fe <= '9') fe++;
    if (nint == 0 && (!frac || fe == fd)) return COAX_OK;
    if (frac) p = fe;
    const char *ex = p, *exd = p;
    if (p < e && (*p == 'e' || *p == 'E')) {
        exd = p + 1;
        if (exd < e && (*exd == '+' || *exd == '-')) exd++;
        const char *x = exd;
        while (x < e && *x >= '0' && *x <= '9') x++;
        if (x == exd) dangling = true; /* "1e": drop the dangling exponent (1e5 cut?) */
        else exd = x;
        p = x;
    }
    if (!delimited(p, e, ctx)) return COAX_OK;
    /* Build the normalised text: it is at most the token plus two bytes. */
    coax_buf *b = &ps->sb;
    b->len = 0;
    if (!plus && *s == '-') coax_buf_putc(b, '-');
    if (nint) coax_buf_put(b, digits, nint);
    else {
        coax_buf_putc(b, '0');
        fixed = true;
    }
    for (const char *g = groups; g < groups_end; g += 4) coax_buf_put(b, g + 1, 3);
    if (frac) {
        coax_buf_putc(b, '.');
        if (fe == fd) {
            coax_buf_putc(b, '0');
            fixed = true;
        } else {
            coax_buf_put(b, fd, (size_t)(fe - fd));
        }
    }
    if (ex < p && exd > ex + 1 && !(exd == ex + 2 && (ex[1] == '+' || ex[1] == '-'))) {
        coax_buf_put(b, ex, (size_t)(exd - ex));
    }
    if (b->oom) return nomem(ps);
    if (dangling) note_as(ps, RK_NUMBER_FORMAT, COAX_CLASS_INFERRED, s);
    else if (plus || fixed) note(ps, RK_NUMBER_FORMAT, s);
    if (groups_end > groups) note(ps, RK_THOUSANDS_SEPARATOR, groups);
    coax_code rc = coax_set_number(ps->arena, out, b->data, b->len);
    if (rc == COAX_ENOMEM) return nomem(ps);
    if (rc) return COAX_OK; /* not a number after all: a bare word */
    ps->p = p;
    *ok = true;
    return COAX_OK;
}

/* The byte length of one identifier character at p, or 0: an ASCII letter,
** digit, '_' or '$', or a non-ASCII letter (spécialité, prénom, 名前): any
** character from U+00C0 on but the signs, punctuation, symbols and
** emoji, which never make a word. */
static size_t ident_char(const char *p, const char *e)
{
    if (is_ident((unsigned char)*p)) return 1;
    if (!((unsigned char)*p & 0x80)) return 0;
    uint32_t cp;
    size_t n = coax_utf8_decode((const unsigned char *)p, (size_t)(e - p), &cp);
    if (!n || cp < 0xC0 || cp == 0xD7 || cp == 0xF7 || (cp >= 0x2000 && cp <= 0x2BFF) ||
        (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFE00 && cp <= 0xFFFF) || cp >= 0x1F000)
        return 0;
    return n;
}

/* Whether s..t holds nothing but whitespace. */
static bool only_space(const char *s, const char *t)
{
    for (; s < t; s++)
        if (!ws_tab[(unsigned char)*s]) return false;
    return true;
}

/* Whether s..t is one identifier (a letter, '_' or '$', then those and
** digits): the only unquoted key whose reading is obvious. */
static bool is_identifier(const char *s, const char *t)
{
    if (t <= s || (*s >= '0' && *s <= '9')) return false;
    for (const char *c = s; c < t;) {
        size_t n = ident_char(c, t);
        if (!n) return false;
        c += n;
    }
    return true;
}

/* Whether s..t is a plain number (5, -1, 2.17) written where a key goes:
** followed by its colon, it is the key's text ({5: "b"} is {"5": "b"}). */
static bool is_number_key(const char *s, const char *t)
{
    const char *c = s + (s < t && *s == '-');
    const char *d = c;
    while (c < t && *c >= '0' && *c <= '9') c++;
    if (c == d || (c - d > 1 && *d == '0')) return false;
    if (c < t && *c == '.') {
        const char *f = ++c;
        while (c < t && *c >= '0' && *c <= '9') c++;
        if (c == f) return false;
    }
    return c == t;
}

/* Whether a key and its colon start at p (after spaces): a quoted string
** on one line, or an identifier. */
static bool key_ahead(const char *p, const char *e)
{
    const char *limit = e - p > 64 ? p + 64 : e;
    while (p < limit && ws_tab[(unsigned char)*p]) p++;
    uint32_t q, c;
    size_t qn = p < e ? quote_at(p, e, &q) : 0;
    if (qn && q == '"') { /* the common case, a byte at a time */
        const char *r = p + 1, *stop = e - r > 257 ? r + 257 : e;
        while (r < stop && *r != '"' && *r != '\n') r++;
        if (r >= stop || *r != '"') return false;
        p = r + 1;
    } else if (qn) {
        const char *r = p + qn;
        for (int n = 0;; n++) {
            if (r >= e || *r == '\n' || n > 256) return false;
            size_t cn = quote_at(r, e, &c);
            if (cn && closes(q, c)) {
                p = r + cn;
                break;
            }
            r++;
        }
    } else {
        const char *s = p;
        for (size_t n; p < e && (n = ident_char(p, e));) p += n;
        if (!is_identifier(s, p)) return false;
    }
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    return p < e && *p == ':';
}

/* Whether what starts at p makes a missing comma before it the one
** reading: a key and its colon in an object, a value in an array. */
static bool member_starts(const char *p, const char *e, bool object)
{
    return object ? key_ahead(p, e) : repair_value_starts(p, e);
}

/* Whether the brackets in s..t close in order: "fetch(page: number" was
** cut inside its parentheses (the comma after it is the text's, not a
** member's), and "object): Promise" lost its start. */
static bool brackets_balance(const char *s, const char *t)
{
    char open[16];
    size_t n = 0;
    for (const char *c = s; c < t; c++) {
        char want = *c == ')' ? '(' : *c == ']' ? '[' : *c == '}' ? '{' : 0;
        if (*c == '(' || *c == '[' || *c == '{') {
            if (n == sizeof open) return false;
            open[n++] = *c;
        } else if (want && (n == 0 || open[--n] != want)) {
            return false;
        }
    }
    return n == 0;
}

/* Whether an unquoted value s..t (stopped at p) has an obvious end: a
** closing bracket, or a comma or line break followed by a key (in an
** array: a comma after a single word). A value that lost its quotes, or
** one cut at a comma or line break before text that is no member, is a
** guess: the rest would become members. */
static bool word_ends_clearly(const lp *ps, const char *s, const char *t, const char *p, int ctx)
{
    const char *e = ps->e;
    for (const char *c = t; c < p; c++)
        if (!ws_tab[(unsigned char)*c]) return false; /* a quote was stripped */
    if (*s == ':' || *s == ',') return false;         /* "a":: 1 */
    if (memchr(s, '"', (size_t)(t - s))) return false;
    if (!brackets_balance(s, t)) return false;
    if (p >= e) return false;
    if (*p == '}' || *p == ']') return true;
    if (ctx == CTX_OBJVAL) return key_ahead(p + 1, e) || ws_ahead_closes(p + 1, e);
    if (*p == ',') {
        for (const char *c = s; c < t; c++)
            if (ws_tab[(unsigned char)*c]) return false;
        return true;
    }
    return ws_ahead_closes(p, e);
}

#define word_is(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)

/* Where unquoted text stops: 1 for a key, 2 for a value (a table, not a
** strchr a byte). */
static const uint8_t word_stop[256] = {
    [':'] = 1, [','] = 3, ['{'] = 1, ['}'] = 3, ['['] = 1, [']'] = 3, ['\n'] = 3, ['\r'] = 3,
};

enum { W_VALUE, W_NONE, W_CALL, W_STOP };

/* A bare word at ps->p: a literal, a function-call wrapper, an unquoted
** key or string. At the top level only literals and calls are values. */
static coax_code parse_word(lp *ps, int ctx, coax_value *out, int *what)
{
    const char *s = ps->p, *p = s, *e = ps->e;
    memset(out, 0, sizeof *out);
    *what = W_VALUE;
    bool neg = *p == '-';
    if (neg) p++;
    const char *id = p;
    while (p < e && is_ident((unsigned char)*p)) p++;
    size_t n = (size_t)(p - id);
    if (n && delimited(p, e, ctx) && ctx != CTX_KEY) {
        if (!neg && (word_is(id, n, "true") || word_is(id, n, "false") || word_is(id, n, "null") ||
                     word_is(id, n, "True") || word_is(id, n, "False") || word_is(id, n, "None"))) {
            if (*id == 'T' || *id == 'F' || *id == 'N') note(ps, RK_PYTHON_LITERAL, s);
            out->type = *id == 't' || *id == 'T' ? COAX_BOOL : *id == 'f' || *id == 'F' ? COAX_BOOL : COAX_NULL;
            out->u.boolean = *id == 't' || *id == 'T';
            ps->p = p;
            return COAX_OK;
        }
        if (word_is(id, n, "NaN") || word_is(id, n, "Infinity") || (!neg && word_is(id, n, "undefined"))) {
            note(ps, RK_NON_JSON_NUMBER, s);
            out->type = COAX_NULL;
            ps->p = p;
            return COAX_OK;
        }
    }
    if (n && !neg && ctx != CTX_KEY) {
        const char *q = p;
        while (q < e && (*q == ' ' || *q == '\t')) q++;
        if (q < e && *q == '(') {
            note(ps, RK_FUNCTION_CALL, s);
            ps->p = q + 1;
            *what = W_CALL;
            return COAX_OK;
        }
    }
    if (ps->nopens == 0) {
        *what = W_STOP;
        return COAX_OK;
    }
    /* An unquoted key runs to the colon, an unquoted string to the end of
    ** its line or the next comma or bracket. */
    p = s;
    uint8_t stop = ctx == CTX_KEY ? 1 : 2;
    while (p < e && !(word_stop[(unsigned char)*p] & stop)) p++;
    const char *t = p;
    uint32_t q;
    while (t > s && (ws_tab[(unsigned char)t[-1]] || quote_at(t - 1, e, &q)))
        t--;
    if (t == s) { /* nothing usable: skip one character */
        uint32_t cp;
        size_t k = coax_utf8_decode((const unsigned char *)s, (size_t)(e - s), &cp);
        note(ps, RK_SKIPPED_CHARACTER, s);
        ps->p = s + (k ? k : 1);
        *what = W_NONE;
        return COAX_OK;
    }
    /* A key is one identifier when the run of identifier bytes read above
    ** is all of it and does not start with a digit; a number before a colon
    ** is a key written without quotes too. */
    bool ident = !neg && n && t == id + n && !is_digit(*id);
    bool guessed = ctx == CTX_KEY ? !(ident || is_identifier(s, t) || (p < e && *p == ':' && is_number_key(s, t)))
                                  : !word_ends_clearly(ps, s, t, p, ctx);
    note_as(ps, ctx == CTX_KEY ? RK_UNQUOTED_KEY : RK_UNQUOTED_STRING, class_if(guessed), s);
    ps->sb.len = 0;
    for (const char *c = s; c < t;) { /* keep valid UTF-8 only */
        uint32_t cp;
        size_t k = coax_utf8_decode((const unsigned char *)c, (size_t)(t - c), &cp);
        if (k) coax_buf_put(&ps->sb, c, k);
        else {
            note(ps, RK_INVALID_UTF8, c);
            coax_buf_put(&ps->sb, "\xEF\xBF\xBD", 3);
        }
        c += k ? k : 1;
    }
    if (ps->sb.oom) return nomem(ps);
    if (ps->sb.len > ps->lim.max_string)
        return coax_fail(ps->err, COAX_ESTRING, off(ps, s), "string longer than %zu bytes",
                         ps->lim.max_string);
    out->type = COAX_STRING;
    out->len = ps->sb.len;
    out->u.text = coax_arena_strdup(ps->arena, ps->sb.data, ps->sb.len);
    if (guessed && ctx == CTX_KEY) out->flags |= COAX_VF_INVENTED;
    ps->p = p;
    return out->u.text ? COAX_OK : nomem(ps);
}

/* An ellipsis ("..." or U+2026) at p: its length, or 0. */
static size_t ellipsis_at(const char *p, const char *e)
{
    if (e - p >= 3 && p[0] == '.' && p[1] == '.' && p[2] == '.') {
        size_t n = 3;
        while (p + n < e && p[n] == '.') n++;
        return n;
    }
    if (e - p >= 3 && (unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
        (unsigned char)p[2] == 0xA6)
        return 3;
    return 0;
}

/* ---- containers -------------------------------------------------------- */

static bool grow(lp *ps, void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 32;
    while (ncap < need) ncap *= 2;
    void *p = coax_realloc_raw(ps->alloc, *arr, *cap * elem, ncap * elem);
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

static void report_dup(void *ud, size_t index)
{
    lp *ps = ud;
    note(ps, RK_DUPLICATE_KEY, ps->b + (ps->slots[ps->opens[ps->nopens - 1].base + index].koff - ps->base));
}

/* Whether the value about to start belongs to a member whose key was
** guessed (only after an invented repair in this value: the common case
** costs one test). */
static inline bool under_invented_key(const lp *ps)
{
    if (!ps->inv_any || !ps->nopens || !ps->opens[ps->nopens - 1].object) return false;
    return ps->nslots > ps->opens[ps->nopens - 1].base && ps->slots[ps->nslots - 1].invented;
}

/* A value just completed: flagged when an invented repair made it, or it
** lies inside an invented container or under an invented key. */
static inline void flag_value(lp *ps, coax_value *v)
{
    if (!ps->inv_any) return; /* no invented repair in this value yet */
    if (ps->inv || ps->inv_opens || under_invented_key(ps)) v->flags |= COAX_VF_INVENTED;
    ps->inv = false;
}

static coax_code push_open(lp *ps, bool object)
{
    if (ps->nopens >= ps->lim.max_depth)
        return coax_fail(ps->err, COAX_EDEPTH, off(ps, ps->p), "nesting deeper than %zu",
                         ps->lim.max_depth);
    if (!grow(ps, (void **)&ps->opens, &ps->copens, ps->nopens + 1, sizeof(lopen))) return nomem(ps);
    bool invented = ps->inv_any && (ps->inv || ps->inv_opens || under_invented_key(ps));
    ps->opens[ps->nopens++] = (lopen){ps->nslots, object, invented, 0};
    if (invented) {
        ps->inv = false;
        ps->inv_opens++;
    }
    return COAX_OK;
}

static coax_code push_slot(lp *ps, const coax_value *key, size_t koff)
{
    if (!grow(ps, (void **)&ps->slots, &ps->cslots, ps->nslots + 1, sizeof(lslot))) return nomem(ps);
    lslot *s = &ps->slots[ps->nslots++];
    memset(s, 0, sizeof *s);
    if (key) {
        s->m.key = key->u.text;
        s->m.klen = key->len;
        if (key->flags & COAX_VF_INVENTED) s->invented = true;
    }
    s->koff = (uint32_t)koff;
    return COAX_OK;
}

/* null for a member whose value is missing: invented, so flagged. */
static void fill_null(lp *ps)
{
    coax_value *v = &ps->slots[ps->nslots - 1].m.value;
    memset(v, 0, sizeof *v);
    v->type = COAX_NULL;
    v->flags = COAX_VF_INVENTED;
    ps->inv = false;
}

/* Closes the innermost container into 'v'. A key still waiting for its
** value gets null ('at_eof': the key is dropped, the value was cut off). */
static coax_code close_top(lp *ps, coax_value *v, bool at_eof)
{
    lopen *o = &ps->opens[ps->nopens - 1];
    if (o->object && (ps->st == ST_COLON || ps->st == ST_VALUE) && ps->nslots > o->base) {
        if (at_eof) {
            note(ps, RK_DANGLING_KEY, ps->p);
            ps->nslots--;
        } else { /* at the closing bracket just read, if it was read */
            bool read = ps->p > ps->b && (ps->p[-1] == '}' || ps->p[-1] == ']');
            note(ps, RK_MISSING_VALUE, ps->p - read);
            fill_null(ps);
        }
    }
    size_t n = ps->nslots - o->base;
    lslot *kids = ps->slots ? ps->slots + o->base : NULL; /* no slots yet: n is 0 */
    memset(v, 0, sizeof *v);
    if (o->object) {
        coax_member *m = coax_arena_alloc(ps->arena, n * sizeof *m + 1);
        if (!m) return nomem(ps);
        for (size_t i = 0; i < n; i++) m[i] = kids[i].m;
        size_t k = coax_members_dedupe(m, n, ps->alloc, report_dup, ps);
        if (k == SIZE_MAX) return nomem(ps);
        v->type = COAX_OBJECT;
        v->len = k;
        v->u.members = m;
    } else {
        coax_value *items = coax_arena_alloc(ps->arena, n * sizeof *items + 1);
        if (!items) return nomem(ps);
        for (size_t i = 0; i < n; i++) items[i] = kids[i].m.value;
        v->type = COAX_ARRAY;
        v->len = n;
        v->u.items = items;
    }
    if (o->invented) {
        v->flags |= COAX_VF_INVENTED;
        ps->inv_opens--;
    }
    ps->nslots = o->base;
    ps->nopens--;
    ps->st = ST_AFTER;
    return COAX_OK;
}

/* Skips the ')' of function-call wrappers around a finished value. */
static void close_parens(lp *ps, unsigned *paren)
{
    while (*paren) {
        skip_space(ps);
        if (ps->p < ps->e && *ps->p == ')') ps->p++;
        (*paren)--;
    }
    skip_space(ps);
    if (ps->nopens == 0 && ps->p < ps->e && *ps->p == ';') ps->p++;
}

/* A closing bracket 'c' while containers are open: closes the innermost,
** or, when 'c' matches one further out, closes everything up to it. */
static coax_code handle_close(lp *ps, char c, coax_value *v)
{
    bool want_object = c == '}';
    const char *at = ps->p;
    ps->p++;
    if (ps->opens[ps->nopens - 1].object != want_object) {
        size_t k = ps->nopens - 1;
        while (k > 0 && ps->opens[k - 1].object != want_object) k--;
        /* ["a", "b"}, "next": ...: a typo for ']' when the object goes on. */
        const char *r = ps->p;
        while (r < ps->e && ws_tab[(unsigned char)*r]) r++;
        bool object_goes_on = k == ps->nopens - 1 && r < ps->e && *r == ',' &&
                              item_ahead(r + 1, ps->e, CTX_OBJVAL);
        ps->bracket_fixed = true;
        if (k == 0 || object_goes_on) {
            note(ps, RK_MISMATCHED_BRACKET, at);
        } else {
            /* opens[k-1] matches: close everything inside it first. One
            ** level has one reading; several leave open where each ended. */
            coax_class cls = class_if(ps->nopens - k > 1);
            while (ps->nopens > k) {
                note_as(ps, RK_MISSING_BRACKET, cls, at);
                coax_value inner;
                coax_code rc = close_top(ps, &inner, false);
                if (rc) return rc;
                lopen *o = &ps->opens[ps->nopens - 1];
                if (!o->object) {
                    if ((rc = push_slot(ps, NULL, 0))) return rc;
                }
                ps->slots[ps->nslots - 1].m.value = inner;
            }
        }
    }
    return close_top(ps, v, false);
}

/* Parses one top-level value from ps->p. '*got' is false when no value
** starts there. */
static coax_code parse_one(lp *ps, coax_value *root, bool *got)
{
    coax_value v;
    coax_code rc;
    *got = false;
    ps->st = ST_VALUE;
    ps->comma = NULL;
    for (;;) {
        skip_space(ps);
        const char *p = ps->p, *e = ps->e;
        if (p >= e) {
            if (ps->nopens == 0) return COAX_OK;
            ps->truncated = true;
            /* Brackets missing at the very end after a complete member or
            ** item have one reading; after a key, a comma or a string cut
            ** off, what is closed was still being written. */
            /* After a bracket was replaced or inserted, the one missing at
            ** the end could have been missing elsewhere. */
            coax_class cls = class_if(ps->st != ST_AFTER || ps->inv_any || ps->bracket_fixed);
            while (ps->nopens) {
                if ((rc = close_top(ps, &v, true))) return rc;
                note_as(ps, RK_CLOSED_BRACKET, cls, p);
                if (cls == COAX_CLASS_INVENTED) v.flags |= COAX_VF_INVENTED;
                if (ps->nopens) {
                    if (!ps->opens[ps->nopens - 1].object && (rc = push_slot(ps, NULL, 0))) return rc;
                    ps->slots[ps->nslots - 1].m.value = v;
                }
            }
            *root = v;
            *got = true;
            return COAX_OK;
        }
        char c = *p;
        size_t ell = ellipsis_at(p, e);
        if (ell && ps->nopens && ps->st != ST_COLON) {
            note(ps, RK_ELLIPSIS, p);
            ps->p += ell;
            continue;
        }
        lopen *top = ps->nopens ? &ps->opens[ps->nopens - 1] : NULL;
        uint32_t q;
        switch (ps->st) {
        case ST_KEY:
            if (c == '}' || c == ']') {
                if (ps->comma) note(ps, RK_TRAILING_COMMA, ps->comma);
                if ((rc = handle_close(ps, c, &v))) return rc;
                goto have_value;
            }
            if (c == ',') {
                note(ps, RK_EXTRA_COMMA, p);
                ps->p++;
                continue;
            }
            if (c == '{' && ps->nopens > 1 && !ps->opens[ps->nopens - 2].object) {
                /* [{"i":1,{"i":2}]: the first object's '}' is missing */
                if (ps->comma) note(ps, RK_TRAILING_COMMA, ps->comma);
                note(ps, RK_MISSING_BRACKET, p);
                if ((rc = close_top(ps, &v, false))) return rc;
                goto have_value;
            }
            {
                coax_value key;
                size_t koff = off(ps, p);
                if (quote_at(p, e, &q)) {
                    if ((rc = parse_string(ps, CTX_KEY, &key))) return rc;
                } else {
                    int what;
                    if ((rc = parse_word(ps, CTX_KEY, &key, &what))) return rc;
                    if (what != W_VALUE) continue;
                }
                if ((rc = push_slot(ps, &key, koff))) return rc;
                ps->st = ST_COLON;
                ps->comma = NULL;
            }
            continue;
        case ST_COLON:
            if (c == ':' || c == '=') {
                if (c == '=') note_as(ps, RK_MISSING_COLON, COAX_CLASS_INFERRED, p);
                ps->p++;
                ps->st = ST_VALUE;
                continue;
            }
            if (c == ',' || c == '}' || c == ']') {
                note(ps, RK_MISSING_VALUE, p);
                fill_null(ps);
                ps->st = ST_AFTER;
                continue;
            }
            note(ps, RK_MISSING_COLON, p);
            ps->st = ST_VALUE;
            continue;
        case ST_AFTER:
            if (c == ',') {
                ps->comma = p;
                ps->p++;
                ps->st = top->object ? ST_KEY : ST_VALUE;
                continue;
            }
            if (c == '}' || c == ']') {
                if ((rc = handle_close(ps, c, &v))) return rc;
                goto have_value;
            }
            if (c == '{' && top->object && ps->nopens > 1 && !ps->opens[ps->nopens - 2].object) {
                note(ps, RK_MISSING_BRACKET, p); /* [{"i":1{"i":2}] */
                if ((rc = close_top(ps, &v, false))) return rc;
                goto have_value;
            }
            if (c == ':' || c == ';' || c == '=' || c == ')' || c == '+') {
                note(ps, RK_SKIPPED_CHARACTER, p);
                ps->p++;
                continue;
            }
            /* "a""b": a doubled quote may be an escape (CSV), not two strings;
            ** and after a string that kept an unescaped quote, where it ended
            ** was itself a guess ("a "b" c" "d": which quote closes?). */
            bool adjacent = p > ps->b && (p[-1] == '"' || p[-1] == '\'') && quote_at(p, e, &q);
            bool after_quoted = ps->quoted_end && ps->quoted_end <= p && only_space(ps->quoted_end, p);
            note_as(ps, RK_MISSING_COMMA, class_if(adjacent || after_quoted || !member_starts(p, e, top->object)), p);
            ps->st = top->object ? ST_KEY : ST_VALUE;
            ps->comma = NULL;
            continue;
        default: /* ST_VALUE */
            break;
        }
        /* ST_VALUE */
        if (c == '{' || c == '[') {
            if ((rc = push_open(ps, c == '{'))) return rc;
            ps->p++;
            ps->st = c == '{' ? ST_KEY : ST_VALUE;
            ps->comma = NULL;
            continue;
        }
        if (c == '}' || c == ']') {
            if (!top) {
                note(ps, RK_SKIPPED_CHARACTER, p);
                ps->p++;
                continue;
            }
            if (!top->object && ps->comma) note(ps, RK_TRAILING_COMMA, ps->comma);
            if ((rc = handle_close(ps, c, &v))) return rc;
            goto have_value;
        }
        if (c == ',') {
            if (top && top->object) { /* "a": , -> null */
                note(ps, RK_MISSING_VALUE, p);
                fill_null(ps);
                ps->st = ST_AFTER;
                continue;
            }
            note(ps, top ? RK_EXTRA_COMMA : RK_SKIPPED_CHARACTER, p);
            ps->p++;
            continue;
        }
        int ctx = top && top->object ? CTX_OBJVAL : CTX_OTHER;
        if (quote_at(p, e, &q)) {
            if (e - p >= 3 && p[1] == c && p[2] == c && top) { /* """...""", '''...''', ```...``` */
                bool ok;
                if ((rc = c == '`' ? parse_fenced(ps, &v, &ok) : parse_triple(ps, &v, &ok))) return rc;
                if (ok) goto have_value;
            }
            if ((rc = parse_string(ps, ctx, &v))) return rc;
            /* "a" + "b": JavaScript string concatenation, joined in one
            ** buffer (copying the growing string each time would be
            ** quadratic). */
            coax_buf joined;
            coax_buf_init(&joined, ps->alloc);
            bool concatenated = false;
            for (;;) {
                const char *save = ps->p;
                skip_space(ps);
                if (ps->p < e && *ps->p == '+') {
                    ps->p++;
                    skip_space(ps);
                    if (ps->p < e && quote_at(ps->p, e, &q)) {
                        coax_value more;
                        note(ps, RK_STRING_CONCATENATION, save);
                        if (!concatenated) coax_buf_put(&joined, v.u.text, v.len);
                        concatenated = true;
                        if ((rc = parse_string(ps, ctx, &more))) {
                            coax_buf_free(&joined);
                            return rc;
                        }
                        coax_buf_put(&joined, more.u.text, more.len);
                        if (joined.len > ps->lim.max_string) {
                            coax_buf_free(&joined);
                            return coax_fail(ps->err, COAX_ESTRING, off(ps, save), "string longer than %zu bytes",
                                             ps->lim.max_string);
                        }
                        continue;
                    }
                }
                ps->p = save;
                break;
            }
            if (concatenated) {
                char *t = joined.oom ? NULL : coax_arena_strdup(ps->arena, joined.data, joined.len);
                v.len = (uint32_t)joined.len;
                coax_buf_free(&joined);
                if (!t) return nomem(ps);
                v.u.text = t;
            }
            goto have_value;
        }
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
            bool ok;
            if ((rc = try_number(ps, ctx, &v, &ok))) return rc;
            if (ok) goto have_value;
        }
        {
            int what;
            if ((rc = parse_word(ps, ctx, &v, &what))) return rc;
            if (what == W_STOP) return COAX_OK;
            if (what == W_CALL) {
                if (top) top->paren++;
                else ps->top_paren++;
            }
            if (what != W_VALUE) continue;
        }
    have_value:
        flag_value(ps, &v);
        if (ps->nopens == 0) {
            close_parens(ps, &ps->top_paren);
            *root = v;
            *got = true;
            return COAX_OK;
        }
        top = &ps->opens[ps->nopens - 1];
        if (!top->object && (rc = push_slot(ps, NULL, 0))) return rc;
        ps->slots[ps->nslots - 1].m.value = v;
        ps->st = ST_AFTER;
        ps->comma = NULL;
        if (top->paren) close_parens(ps, &top->paren);
    }
}

bool repair_members_follow(const char *p, const char *e)
{
    const char *limit = e - p > 64 ? p + 64 : e;
    while (p < limit && ws_tab[(unsigned char)*p]) p++;
    if (p >= e) return false;
    /* A quoted key only: prose after a value ("Note: ...") is not a member. */
    return *p == ':' || (*p == ',' && key_ahead(p + 1, e)) || (*p == '"' && key_ahead(p, e));
}

bool repair_value_starts(const char *p, const char *end)
{
again:
    if (p >= end) return false;
    unsigned char c = (unsigned char)*p;
    uint32_t q;
    if (c == '{' || c == '[' || quote_at(p, end, &q)) return true;
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
        const char *d = p + (c == '-' || c == '+');
        if (d < end && *d == '.') d++;
        return (d < end && *d >= '0' && *d <= '9') || (c == '-' && end - d >= 8 && !memcmp(d, "Infinity", 8));
    }
    const char *s = p;
    while (p < end && is_ident((unsigned char)*p)) p++;
    size_t n = (size_t)(p - s);
    if (!n) return false;
    if (delimited(p, end, CTX_OTHER))
        return word_is(s, n, "true") || word_is(s, n, "false") || word_is(s, n, "null") ||
               word_is(s, n, "True") || word_is(s, n, "False") || word_is(s, n, "None") ||
               word_is(s, n, "NaN") || word_is(s, n, "Infinity") || word_is(s, n, "undefined");
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p + 1 >= end || *p != '(') return false;
    p++; /* callback(...): what is inside the call */
    goto again;
}

coax_code repair_parse(coax_arena *arena, const coax_limits *lim, const char *text, size_t start,
                       size_t end, const char *shift, rlog *log, rvalues *out, coax_error *err)
{
    lp ps;
    memset(&ps, 0, sizeof ps);
    ps.arena = arena;
    ps.alloc = coax_arena_allocator(arena);
    ps.b = shift ? shift : text + start;
    ps.p = ps.b;
    ps.e = ps.b + (end - start);
    ps.base = start;
    ps.exact = !shift;
    ps.none_from = SIZE_MAX;
    ps.lim = *lim;
    ps.log = log;
    ps.err = err;
    coax_buf_init(&ps.sb, ps.alloc);
    coax_code rc = COAX_OK;
    bool first = true;
    for (;;) {
        size_t from = log->n; /* leading comments belong to the value */
        skip_space(&ps);
        /* a, b or NDJSON; a stray closer between values ("{...}} {...}")
        ** does not hide the value after it */
        while (!first && ps.p < ps.e && (*ps.p == ',' || *ps.p == '}' || *ps.p == ']')) {
            ps.p++;
            skip_space(&ps);
        }
        if (ps.p >= ps.e) break;
        if (!first && !repair_value_starts(ps.p, ps.e)) {
            log->n = from;
            note(&ps, RK_TRAILING_TEXT, ps.p);
            out->trailing = true;
            break;
        }
        const char *vstart = ps.p;
        coax_value v;
        bool got;
        ps.truncated = false;
        ps.inv_any = ps.bracket_fixed = false;
        if ((rc = parse_one(&ps, &v, &got))) break;
        if (got && repair_members_follow(ps.p, ps.e)) { /* {"a": {"b": 1}}, "c": 2} */
            note(&ps, RK_EARLY_CLOSE, ps.p);
            v.flags |= COAX_VF_INVENTED;
        }
        if (!got) {
            if (ps.p < ps.e) {
                note(&ps, RK_TRAILING_TEXT, ps.p);
                out->trailing = true;
            }
            break;
        }
        coax_value *heap = coax_arena_alloc(arena, sizeof *heap);
        if (!heap || !grow(&ps, (void **)&out->v, &out->cap, out->n + 1, sizeof(rvalue))) {
            rc = nomem(&ps);
            break;
        }
        *heap = v;
        out->v[out->n++] = (rvalue){heap, off(&ps, vstart), off(&ps, ps.p), !ps.truncated, ps.inv_any, from, log->n};
        first = false;
    }
    if (!rc && (log->oom || ps.sb.oom)) rc = nomem(&ps);
    coax_buf_free(&ps.sb);
    coax_free_raw(ps.alloc, ps.slots, ps.cslots * sizeof(lslot));
    coax_free_raw(ps.alloc, ps.opens, ps.copens * sizeof(lopen));
    return rc;
}
