/*
** lenient_word.c: what is not a string or a bracket (lenient.h): numbers
** in the notations models use, JSON, Python and JavaScript literals, bare
** words (unquoted keys and strings, function-call wrappers), the
** bounded look-ahead that tells a key, a member or a value from prose, and
** text copied as valid UTF-8 (for bare words and block strings).
*/
#include "repair/lenient_token.h"

/* ---- numbers ------------------------------------------------------------- */

/* Whether the token ending at p is followed by a delimiter. */
static bool delimited_slow(const char *p, const char *e, int ctx);
static inline bool delimited(const char *p, const char *e, int ctx)
{
    /* mostly a comma, a space or a closing bracket */
    if (p >= e || ws_tab[(unsigned char)*p] || *p == ',' || *p == '}' || *p == ']') return true;
    return delimited_slow(p, e, ctx);
}

static bool delimited_slow(const char *p, const char *e, int ctx)
{
    uint32_t q;
    switch (*p) {
    case ',': case '}': case ']': case ')': case '#': case ';': case '{': case '[':
        return true;
    case ':':
        return ctx == CTX_KEY;
    case '/':
        return p + 1 < e && (p[1] == '/' || p[1] == '*');
    default: /* a quote, or a no-break, zero-width or other Unicode space (30, U+00A0, // seconds; 1, U+200B, 2) */
        return quote_at(p, e, &q) > 0 || repair_unicode_space(p, e) > 0;
    }
}

/* Tries a number at ps->p in the notations models use (+1, .5, 5., 1e).
** Returns true and fills 'out' if there is one. */
coax_code lp_try_number(lp *ps, int ctx, coax_value *out, bool *ok)
{
    const char *s = ps->p, *p = s, *e = ps->e;
    bool plus = false, dangling = false;
    *ok = false;
    if (lp_json_number(ps, e, ctx, out)) { /* mostly JSON as it is */
        *ok = true;
        return COAX_OK;
    }
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
    const char *text = s;
    size_t len = (size_t)(p - s);
    bool fixed = nint == 0 || (frac && fe == fd); /* "0" or ".0" added */
    if (plus || fixed || dangling || groups_end > groups) {
        /* The normalised text: it is at most the token plus two bytes.
        ** Otherwise the token is already JSON and is copied as it is. */
        coax_buf *b = &ps->sb;
        b->len = 0;
        if (!plus && *s == '-') coax_buf_putc(b, '-');
        if (nint) coax_buf_put(b, digits, nint);
        else coax_buf_putc(b, '0');
        for (const char *g = groups; g < groups_end; g += 4) coax_buf_put(b, g + 1, 3);
        if (frac) {
            coax_buf_putc(b, '.');
            if (fe == fd) coax_buf_putc(b, '0');
            else coax_buf_put(b, fd, (size_t)(fe - fd));
        }
        if (ex < p && exd > ex + 1 && !(exd == ex + 2 && (ex[1] == '+' || ex[1] == '-')))
            coax_buf_put(b, ex, (size_t)(exd - ex));
        if (b->oom) return nomem(ps);
        text = b->data;
        len = b->len;
    }
    /* "1." at the very end was cut while being written (1.5): what it says
    ** is a guess. So is "1e" anywhere ([0.3e], 1e-, 1e at the end): an
    ** exponent lost, the number off by a power of ten no one knows. */
    bool cut = dangling || (p == e && frac && fe == fd);
    if (cut) note_as(ps, RK_NUMBER_FORMAT, COAX_CLASS_INVENTED, s);
    else if (plus || fixed) note(ps, RK_NUMBER_FORMAT, s);
    if (groups_end > groups) note(ps, RK_THOUSANDS_SEPARATOR, groups);
    bool is_int;
    if (text == s) { /* copied as it is: a JSON number by the reading above */
        is_int = !frac && ex == p;
    } else if (coax_number_span(text, len, &is_int) != len) {
        return COAX_OK; /* not a number after all: a bare word */
    }
    out->type = COAX_NUMBER;
    out->flags = (is_int ? COAX_VF_INT_TEXT : 0) | (text == s ? 0 : COAX_VF_REWRITTEN) |
                 (groups_end > groups ? COAX_VF_GROUPED : 0);
    out->len = (uint32_t)len;
    out->u.text = lp_strdup(ps, text, len);
    if (!out->u.text) return nomem(ps);
    ps->p = p;
    *ok = true;
    return COAX_OK;
}

/* ---- text ---------------------------------------------------------------- */

/* Appends b..e (of the bytes parsed) to ps->sb from the reply's own bytes
** (lp_orig), invalid UTF-8 replaced with U+FFFD (logged). */
void lp_put_utf8(lp *ps, const char *b, const char *e)
{
    const char *read = b, *own = lp_orig(ps, b);
    e = lp_orig(ps, e);
    b = own;
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
            note(ps, RK_INVALID_UTF8, read + (b - own));
            coax_buf_put(&ps->sb, "\xEF\xBF\xBD", 3);
            b++;
        }
    }
}

/* ---- identifiers and keys ahead ------------------------------------------ */

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
** followed by its colon, it is the key's text ({5: "b"} is {"5": "b"});
** not with a zero that ends its fraction (1.50: JavaScript's key is 1.5)
** nor -0 (0 to JavaScript and Python). */
static bool is_number_key(const char *s, const char *t)
{
    const char *c = s + (s < t && *s == '-');
    const char *d = c;
    while (c < t && *c >= '0' && *c <= '9') c++;
    if (c == d || (c - d > 1 && *d == '0') || (c - s == 2 && *s == '-' && *d == '0' && c == t)) return false; /* -0 */
    if (c < t && *c == '.') {
        const char *f = ++c;
        while (c < t && *c >= '0' && *c <= '9') c++;
        if (c == f || c[-1] == '0') return false;
    }
    return c == t;
}

/* The first '"' or line break in r..stop, or stop: sixteen bytes at a
** time where there are as many (key_ahead runs after most values, where
** a comma may be missing or members follow, over keys and prose alike). */
static inline const char *quote_or_newline(const char *r, const char *stop)
{
#if BYTES16
    while (stop - r >= 16) {
        __m128i w = bytes16_load(r);
        unsigned m = bytes16_eq(w, '"') | bytes16_eq(w, '\n');
        if (m) return r + __builtin_ctz(m);
        r += 16;
    }
#endif
    while (r < stop && *r != '"' && *r != '\n') r++;
    return r;
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
        r = quote_or_newline(r, stop);
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
    p = coax_blanks_end(p, e);
    return p < e && *p == ':';
}

/* Whether what starts at p makes a missing comma before it the one
** reading: a key and its colon in an object, a value in an array. */
bool lp_member_starts(const char *p, const char *e, bool object)
{
    return object ? key_ahead(p, e) : repair_value_starts(p, e);
}

/* Whether the item at p may be one value with the number before it,
** the spaces between them on one line: [10 -5] is [5] to JavaScript and
** Python (a sign after a space is an operator) and [10, -5] to MATLAB or
** with a comma lost; [1 .5] and [1. 5] are 1.5 with a stray space, or two
** items. A line break between them lays them out as items. The look
** spans the spaces before p, which no other look reads again. */
static bool number_joins_next(const lp *ps, const char *p)
{
    const char *s = p;
    for (size_t k; s > ps->b && ((k = coax_blank_before(ps->b, s)) || ws_tab[(unsigned char)s[-1]]); s -= k ? k : 1)
        if (s[-1] == '\n' || s[-1] == '\r') return false;
    if (s == p) return false;
    bool digit_after = ps->e - p > 1 && (is_digit(p[1]) || (p[1] == '.' && ps->e - p > 2 && is_digit(p[2])));
    if ((*p == '-' || *p == '+') && digit_after) return true;
    if (*p == '.' && ps->e - p > 1 && is_digit(p[1])) return true;
    return s - ps->b >= 2 && s[-1] == '.' && is_digit(s[-2]) && is_digit(*p);
}

bool lp_item_in_doubt(const lp *ps, const lopen *top, const char *p)
{
    if (top->object || ps->kid_top == ps->kids + top->base) return false;
    const coax_value *prev = (const coax_value *)ps->kid_top - 1;
    bool scalar = prev->type != COAX_ARRAY && prev->type != COAX_OBJECT;
    /* [[1, 2[ 3], [4, 5]]: a bracket typed for a comma, or one item more? */
    if (scalar && (*p == '[' || *p == '{')) return true;
    /* [1 000 000]: three digits after a number are a group of it as
    ** likely as an item of their own */
    if (prev->type == COAX_NUMBER && ps->e - p >= 3 && is_digit(p[0]) && is_digit(p[1]) && is_digit(p[2]))
        return ps->e - p == 3 || !is_digit(p[3]); /* [1 299.99, 2 499.00] too */
    if (prev->type == COAX_NUMBER && number_joins_next(ps, p)) return true;
    /* ["a long " "sentence"]: a space where two strings meet is a string
    ** split in two (Python and C join adjacent literals), as likely as two
    ** items */
    uint32_t q;
    if (prev->type == COAX_STRING && quote_at(p, ps->e, &q))
        return (prev->len && ws_tab[(unsigned char)prev->u.text[prev->len - 1]]) ||
               (ps->e - p > 1 && ws_tab[(unsigned char)p[1]]);
    return false;
}

/* Whether only spaces lie between p and a closing bracket. */
static bool ws_ahead_closes(const char *p, const char *e)
{
    const char *limit = e - p > 64 ? p + 64 : e;
    while (p < limit && ws_tab[(unsigned char)*p]) p++;
    return p < e && (*p == '}' || *p == ']');
}

/* Whether the full-width sign (，：；) at p, below e, is k: the comma,
** colon and semicolon of Chinese and Japanese text, which a model may
** type for JSON's own. */
static bool full_width(const char *p, const char *e, unsigned char k)
{
    return e - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBC && (unsigned char)p[2] == k;
}
enum { FW_COMMA = 0x8C, FW_COLON = 0x9A, FW_SEMICOLON = 0x9B };

/* Whether unquoted text s..t holds a member that a separator JSON does
** not read stopped from being one: a quoted key and its colon (1，'b': 2)
** or a word and its colon after a full-width comma or a semicolon
** (1，b: 2; x; y: 3): the value would swallow the members after it. */
static bool swallows_member(const char *s, const char *t)
{
    for (const char *c = s; c < t; c++) {
        if (*c != ':' && !full_width(c, t, FW_COLON)) continue;
        const char *b = c;
        b = coax_blanks_start(s, b);
        if (b > s && (b[-1] == '\'' || b[-1] == '"' ||
                      (b - s >= 3 && (unsigned char)b[-3] == 0xE2 && (unsigned char)b[-2] == 0x80 &&
                       ((unsigned char)b[-1] == 0x99 || (unsigned char)b[-1] == 0x9D))))
            return true; /* 'b': or "b": or ’b’: */
        const char *w = b;
        while (w > s && is_ident((unsigned char)w[-1])) w--;
        if (w == b) continue;
        w = coax_blanks_start(s, w);
        bool fw = w - s >= 3 && (full_width(w - 3, t, FW_COMMA) || full_width(w - 3, t, FW_SEMICOLON));
        if (w > s && (w[-1] == ';' || fw)) return true;
    }
    return false;
}

/* Whether a member's unquoted value s..t holds, after a space, a word and
** its colon ({name: Ada Lovelace age: 36}; {a: rock: b: 2}, a colon typed
** for the comma): the comma before a key may have been left out, or the
** words be the value's own ("Ada Lovelace age: 36"); which one is a guess.
** Not "Note: see below", whose word opens the value,
** "What? No: way", whose word opens a sentence, nor 10:30 or https://x,
** whose colon has no space after it. */
static bool key_inside(const char *s, const char *t)
{
    for (const char *c = s + 1; c < t; c++) {
        if (!(is_ident((unsigned char)c[-1]) || c[-1] == ':') || !coax_blank_at(c, t)) continue;
        const char *k = coax_blanks_end(c, t), *w = k;
        while (w < t && is_ident((unsigned char)*w)) w++;
        if (w > k && w + 1 < t && *w == ':' && coax_blank_at(w + 1, t)) return true;
    }
    return false;
}

/* Whether unquoted text s..t opens with a word or a number and its colon,
** then a space: in an array ([1: 2], [a: x]) a member written where an
** item goes, the object's braces lost; as a member's value ('object'), when
** what follows is one number or literal ({a: b: 1}), a member nested in
** braces that were lost. As text it is no value the model meant (10:30
** and https://x have no space; Note: see below is a sentence). */
static bool member_shaped(const char *s, const char *t, bool object)
{
    const char *c = s + (s < t && *s == '-');
    while (c < t && (is_ident((unsigned char)*c) || *c == '.')) c++;
    if (!(c > s && c + 1 < t && *c == ':' && coax_blank_at(c + 1, t))) return false;
    if (!object) return true;
    const char *r = coax_blanks_end(c + 1, t);
    size_t n = (size_t)(t - r);
    bool is_int;
    return coax_number_span(r, n, &is_int) == n || (n == 4 && (!memcmp(r, "true", 4) || !memcmp(r, "null", 4))) ||
           (n == 5 && !memcmp(r, "false", 5));
}

/* Whether an unquoted value s..t (stopped at p) has an obvious end: a
** closing bracket, or a comma or line break followed by a key (in an
** array: a comma after a single word). A value that lost its quotes, or
** one cut at a comma or line break before text that is no member, is a
** guess: the rest would become members. */
static bool word_ends_clearly(const lp *ps, const char *s, const char *t, const char *p, int ctx)
{
    const char *e = ps->e;
    for (const char *c = t, *n; c < p; c = n) /* what was trimmed: a quote stripped, or blanks */
        if ((n = coax_blanks_end(c, p)) == c && !ws_tab[(unsigned char)*n++]) return false;
    if (*s == ':' || *s == ',') return false;         /* "a":: 1 */
    if (memchr(s, '"', (size_t)(t - s))) return false;
    if (!brackets_balance(s, t) || swallows_member(s, t)) return false;
    if (p >= e) return false;
    if (*p == '}' || *p == ']') return true;
    if (ctx == CTX_OBJVAL) return key_ahead(p + 1, e) || ws_ahead_closes(p + 1, e);
    if (*p == ',') {
        for (const char *c = s; c < t; c++)
            if (coax_blank_at(c, t)) return false;
        return true;
    }
    return ws_ahead_closes(p, e);
}

/* ---- bare words ---------------------------------------------------------- */

/* Where unquoted text stops: 1 for a key, 2 for a value (a table, not a
** strchr a byte). */
static const uint8_t word_stop[256] = {
    [':'] = 1, [','] = 3, ['{'] = 1, ['}'] = 3, ['['] = 1, [']'] = 3, ['\n'] = 3, ['\r'] = 3,
};

/* The words read as JSON's constants: JSON's own, Python's (a standard
** mapping: lossless), and other languages' spellings of true, false and
** null (SQL's and C's TRUE, NULL; Lua's, Ruby's and Go's nil): the model
** meant the constant, and a string "NULL" would pass a schema that allows
** strings. NaN, Infinity and undefined are null (no JSON number; Infinity
** by a guess). NONE is not here: an enumeration's constant as often as a
** null. */
typedef struct literal_word {
    char text[10];
    uint8_t len, type, truth, kind; /* kind RK_COUNT: JSON's own, nothing to log */
} literal_word;

static const literal_word literal_words[] = {
    {"true", 4, COAX_BOOL, 1, RK_COUNT}, {"false", 5, COAX_BOOL, 0, RK_COUNT},
    {"null", 4, COAX_NULL, 0, RK_COUNT}, {"True", 4, COAX_BOOL, 1, RK_PYTHON_LITERAL},
    {"False", 5, COAX_BOOL, 0, RK_PYTHON_LITERAL}, {"None", 4, COAX_NULL, 0, RK_PYTHON_LITERAL},
    {"TRUE", 4, COAX_BOOL, 1, RK_OTHER_LITERAL}, {"FALSE", 5, COAX_BOOL, 0, RK_OTHER_LITERAL},
    {"NULL", 4, COAX_NULL, 0, RK_OTHER_LITERAL}, {"Null", 4, COAX_NULL, 0, RK_OTHER_LITERAL},
    {"nil", 3, COAX_NULL, 0, RK_OTHER_LITERAL}, {"NIL", 3, COAX_NULL, 0, RK_OTHER_LITERAL},
    {"NaN", 3, COAX_NULL, 0, RK_NON_JSON_NUMBER}, {"Infinity", 8, COAX_NULL, 0, RK_NON_JSON_NUMBER},
    {"undefined", 9, COAX_NULL, 0, RK_NON_JSON_NUMBER},
};

/* The literal the word s[0..n) is, or NULL. */
static const literal_word *literal_of(const char *s, size_t n)
{
    /* The first letters of literal_words: most words are none of them
    ** (the "Here" and "Sure" of a reply's prose, asked for every reply). */
    static const uint8_t first[256] = {['t'] = 1, ['f'] = 1, ['n'] = 1, ['T'] = 1, ['F'] = 1,
                                       ['N'] = 1, ['I'] = 1, ['u'] = 1};
    if (n < 3 || n > 9 || !first[(unsigned char)s[0]]) return NULL;
    for (size_t i = 0; i < sizeof literal_words / sizeof *literal_words; i++)
        if (literal_words[i].len == n && literal_words[i].text[0] == s[0] && !memcmp(s, literal_words[i].text, n))
            return &literal_words[i];
    return NULL;
}

/* A bare word at ps->p: a literal, a function-call wrapper, an unquoted
** key or string. At the top level only literals and calls are values. */
/* MongoDB's shell types, whose argument is the value. */
static bool mongo_type(const char *id, size_t n)
{
    static const char *const types[] = {"NumberLong", "NumberInt", "NumberDecimal", "NumberDouble",
                                        "ISODate", "ObjectId", "Date", "Timestamp", "UUID"};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strlen(types[i]) == n && !memcmp(id, types[i], n)) return true;
    return false;
}

/* Whether s..t is made only of the signs that stand for a value not
** given or left out: ?, -, _, ~, dots and dashes of any kind, ellipses,
** parentheses around them. Others are values ("route": /, "origins": *). */
static bool placeholder_signs(const char *s, const char *t)
{
    for (const char *c = s; c < t;) {
        size_t b = coax_blank_at(c, t);
        if (b) {
            c += b;
            continue;
        }
        if (!((unsigned char)*c & 0x80)) {
            if (!coax_byte_in("?-_~.()", *c)) return false;
            c++;
            continue;
        }
        uint32_t cp;
        size_t k = coax_utf8_decode((const unsigned char *)c, (size_t)(t - c), &cp);
        /* U+00B7 middle dot, U+2010..2015 dashes, U+2024..2026 leaders and
        ** the ellipsis, U+22EE..22EF vertical and midline ellipses */
        if (!k || !(cp == 0xB7 || (cp >= 0x2010 && cp <= 0x2015) || (cp >= 0x2024 && cp <= 0x2026) ||
                    cp == 0x22EE || cp == 0x22EF))
            return false;
        c += k;
    }
    return true;
}

/* Whether s..t is true, false or null misspelt as JSON's test suites and
** cut streams write them: a head of three letters or more (tru, fals,
** nul) or the word with its last letter repeated (truee, nulll), in any
** case. The model meant the literal, not a string of its letters. */
static bool broken_literal(const char *s, const char *t)
{
    static const char *const words[] = {"true", "false", "null"};
    size_t n = (size_t)(t - s);
    if (n < 3) return false;
    for (size_t w = 0; w < 3; w++) {
        size_t len = strlen(words[w]), k = 0;
        while (k < n && k < len && (s[k] | 0x20) == words[w][k]) k++;
        if (k == n && n < len) return true; /* a head */
        if (k < len) continue;
        while (k < n && (s[k] | 0x20) == words[w][len - 1]) k++;
        if (k == n) return true; /* its last letter repeated */
    }
    /* Python's None in a case no language writes it in (noNe, nONE): the
    ** null or the word? none and NONE are values' words, None the literal. */
    return n == 4 && coax_ascii_casesame(s, "none", 4) && memcmp(s, "none", 4) && memcmp(s, "NONE", 4) &&
           memcmp(s, "None", 4);
}

/* Whether s..t is wrapped whole in quotation marks JSON's reading does not
** take as a string's quotes: «Bonjour», „Guten Tag“, 「こんにちは」, ‹x›, ＂x＂, 〝x〞, ″x″.
** The model may have quoted the value with them (its text is inside) or
** written them as part of it: which one is a guess. */
static bool quoted_by_marks(const char *s, const char *t)
{
    static const uint32_t open[] = {0xAB, 0xBB, 0x201E, 0x201A, 0x300C, 0x300E, 0x2039, 0x203A, 0xFF02, 0xFF07,
                                    0x301D, 0x2033};
    static const uint32_t close[] = {0xBB, 0xAB, 0x201C, 0x2018, 0x300D, 0x300F, 0x203A, 0x2039, 0xFF02, 0xFF07,
                                     0x301E, 0x2033};
    uint32_t a, b = 0;
    size_t n = coax_utf8_decode((const unsigned char *)s, (size_t)(t - s), &a);
    if (!n || t - s < 4) return false;
    const char *l = t - 1;
    while (l > s && ((unsigned char)*l & 0xC0) == 0x80) l--;
    if (l <= s || !coax_utf8_decode((const unsigned char *)l, (size_t)(t - l), &b)) return false;
    for (size_t i = 0; i < sizeof open / sizeof *open; i++)
        if (a == open[i]) return b == close[i] || (a == 0x201E && b == 0x201D) || (a == 0x201A && b == 0x2019);
    return false;
}

/* Whether s..t is code whose value is what it computes, not its text:
** an operator word (void 0, typeof x, await f, delete o.k, not True), a
** sign before a literal (-true), a power (2**10), a conditional (x ? 1 : 2),
** a member of this, self or a chain (this.name, user?.name),
** or a constant of a namespace (Math.PI, Number.MAX_SAFE_INTEGER,
** Color.RED: its value is elsewhere; Node.js, U.S.A and Ph.D are names). */
static bool expression_shape(const char *s, const char *t)
{
    static const char *const ops[] = {"void", "typeof", "await", "delete"};
    size_t n = (size_t)(t - s);
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        size_t k = strlen(ops[i]);
        if (n > k && !memcmp(s, ops[i], k) && coax_blank_at(s + k, t) && coax_blanks_end(s + k, t) < t) return true;
    }
    if (n >= 5 && (*s == '-' || *s == '+') && (!memcmp(s + 1, "true", 4) || !memcmp(s + 1, "null", 4) ||
                                                (n >= 6 && !memcmp(s + 1, "false", 5))))
        return true;
    /* Python's not before a literal (not True is False): "not sure" is text */
    if (n > 4 && !memcmp(s, "not", 3) && coax_blank_at(s + 3, t)) {
        const char *r = coax_blanks_end(s + 3, t);
        if (literal_of(r, (size_t)(t - r))) return true;
    }
    /* a reference to a value held elsewhere: this.name, self.name, and
    ** JavaScript's optional chaining, user?.name */
    if (n > 5 && (!memcmp(s, "this.", 5) || !memcmp(s, "self.", 5)) && is_ident((unsigned char)s[5]))
        return true;
    for (const char *c = s + 1; c + 2 < t; c++)
        if (c[0] == '?' && c[1] == '.' && is_ident((unsigned char)c[-1]) && is_ident((unsigned char)c[2])) return true;
    const char *q = NULL;
    for (const char *c = s; c < t; c++) {
        if (c > s && c + 2 < t && c[0] == '*' && c[1] == '*' && is_digit(c[-1]) && is_digit(c[2])) return true;
        if (c > s && c + 1 < t && coax_blank_before(s, c) && coax_blank_at(c + 1, t)) {
            if (*c == '?') q = c;
            else if (*c == ':' && q) return true;
        }
    }
    /* Name.CONSTANT: a capitalised name with a small letter, a dot, then
    ** capitals, digits and '_' to the end */
    if (n < 4 || *s < 'A' || *s > 'Z') return false;
    const char *d = s + 1;
    bool small = false;
    while (d < t && is_ident((unsigned char)*d)) small |= *d >= 'a' && *d <= 'z', d++;
    if (!small || d + 2 >= t || *d != '.' || d[1] < 'A' || d[1] > 'Z') return false; /* Ph.D, Mr.X: names */
    for (d++; d < t; d++)
        if (!((*d >= 'A' && *d <= 'Z') || is_digit(*d) || *d == '_')) return false;
    return true;
}

/* Whether s..t is a number written in another language's syntax: 0x1F,
** 0o17, 0b101 (31, 15 and 5 in JavaScript, Python and JSON5), 1_000
** (Python's and Rust's 1000), 017 (C's and YAML 1.1's octal 15, or a
** code whose zero counts), inf and nan (Python's, C's and R's infinity and
** no-number), full-width digits (１２, typed with a CJK keyboard), a sign
** parted from its digits (- 1) or stacked (--5, +-5), a literal's suffix (1L, 10n, 1.5f, 1j),
** a sum, product, quotient or power (1+2, 3*4, 1/2, 2^10: C's ^ is
** its exclusive or), and an
** escape written outside quotes (\n: a line break, or the two signs?).
** The writer meant a number, a code or a character: which one, and which
** number, is a guess; the text as a string is none of them. */
static bool foreign_number(const char *s, const char *t)
{
    static const char *const words[] = {"inf", "infinity", "nan"};
    if (s < t && *s == '\\') return true;
    if (s < t && (*s == '-' || *s == '+')) {
        const char *d = coax_blanks_end(s + 1, t);
        if (d > s + 1 && d < t && is_digit(*d)) return true; /* - 1 */
        while (d < t && (*d == '-' || *d == '+')) d++;
        if (d > s + 1 && d < t && (is_digit(*d) || *d == '.')) return true; /* --5, +-5 (-5, 5 or ±5?) */
        s++;
    }
    /* a number marked approximate (~6, ~ 0.5, U+2248's ≈6) or C's and
    ** JavaScript's complement (~6 is -7): about 6, -7, or the text? So is
    ** one a comparison bounds (<5, <= 5, U+2264's ≤5, U+2265's ≥5, U+2260's
    ** ≠5, as >5 is): a bound, not the value. Not a home directory's
    ** ~/projects, an HTML tag, nor words (~6 years) */
    static const char *const marks[] = {"<=", "~", "<", "\xE2\x89\x88", /* U+2248 */
                                        "\xE2\x89\xA4", "\xE2\x89\xA5", "\xE2\x89\xA0"}; /* U+2264 2265 2260 */
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
        size_t mark = strlen(marks[i]);
        if ((size_t)(t - s) <= mark || memcmp(s, marks[i], mark)) continue;
        const char *d = coax_blanks_end(s + mark, t);
        bool whole;
        if (d < t && coax_number_span(d, (size_t)(t - d), &whole) == (size_t)(t - d)) return true;
        break;
    }
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t n = strlen(words[i]), k = 0;
        while (k < n && s + k < t && (s[k] | 0x20) == words[i][k]) k++;
        if (k == n && s + n == t) return true;
    }
    /* a literal's suffix: C's and Java's 1L, 10UL, 1.5f, JavaScript's
    ** 10n, Python's complex 1j: the number, or its text? So is a mark of
    ** doubt or a footnote's (36?, 36*, 36**): the number, or its text? */
    static const char *const suffixes[] = {"L", "l", "LL", "UL", "ULL", "u", "U", "f", "F", "n", "j", "J",
                                           "?", "??", "*", "**"};
    bool is_int;
    size_t num = coax_number_span(s, (size_t)(t - s), &is_int);
    for (size_t i = 0; num && i < sizeof suffixes / sizeof *suffixes; i++)
        if (strlen(suffixes[i]) == (size_t)(t - s) - num && !memcmp(s + num, suffixes[i], (size_t)(t - s) - num))
            return true;
    const char *f = s; /* U+FF10..FF19, the full-width digits */
    while (t - f >= 3 && (unsigned char)f[0] == 0xEF && (unsigned char)f[1] == 0xBC && (unsigned char)f[2] >= 0x90 &&
           (unsigned char)f[2] <= 0x99)
        f += 3;
    if (f > s && f == t) return true;
    if (t - s < 2 || !is_digit(*s)) return false;
    bool radix = *s == '0' && coax_byte_in("xXoObB", s[1]), underscore = false, op = false;
    int slashes = 0; /* 1/2: a half, or its text; 12/31/2024 is a date */
    for (const char *c = s + (radix ? 2 : 0); c < t; c++) {
        bool between = c > s && c + 1 < t && is_ident((unsigned char)c[-1]) && is_ident((unsigned char)c[1]);
        if (*c == '_' && between) underscore = true;
        else if (coax_byte_in("+*/^", *c) && !radix && between && is_digit(c[-1]) && is_digit(c[1]))
            op = true, slashes += *c == '/';
        else if (!(is_digit(*c) || (radix ? coax_byte_in("abcdefABCDEF", *c) : *c == '.'))) return false;
    }
    /* digits and points ending in one (0.3., 1.2.3.): a number and a
    ** sentence's period, a version, or a date (24.12.)? Its text with the
    ** point is none of them; a number's own point (12.) reads as a number */
    return radix ? t - s > 2
                 : underscore || (op && slashes <= 1) || (*s == '0' && is_digit(s[1])) || (!op && t[-1] == '.');
}

/* Whether s..t is a regular expression's literal (/ab+c/i, /^\d+$/,
** /abc/g): a RegExp in JavaScript, which JSON.stringify writes as {}; its
** text, its pattern alone (ab+c) or the pattern with its flags is a guess.
** A path (/usr/bin/env, /home/ada/) has no pattern's signs and ends in no
** flags, or in letters that cannot be flags (a letter twice: /usr/sys). */
static bool regex_literal(const char *s, const char *t)
{
    const char *l = t - 1;
    while (l > s && *l != '/') l--;
    if (*s != '/' || l <= s + 1) return false;
    static const char flags[] = "dgimsuvy";
    unsigned seen = 0;
    for (const char *f = l + 1; f < t; f++) {
        const char *k = *f ? strchr(flags, *f) : NULL;
        if (!k || seen & (1u << (k - flags))) return false;
        seen |= 1u << (k - flags);
    }
    if (seen && !memchr(s + 1, '/', (size_t)(l - s - 1))) return true; /* /abc/g */
    for (const char *c = s + 1; c < l; c++)
        if (coax_byte_in("\\^$*+?()[]{}|", *c)) return true;
    return false;
}

/* Whether s..t is the words w, each space of w a run of blanks there. */
static bool words_are(const char *s, const char *t, const char *w)
{
    for (; *w; w++) {
        if (*w == ' ') {
            if (!coax_blank_at(s, t)) return false;
            s = coax_blanks_end(s, t);
        } else if (s >= t || *s++ != *w) {
            return false;
        }
    }
    return s == t;
}

/* An unquoted value that is no value: a list's "etc." or "and so on" (the
** model left items out, as with "..."), a placeholder, or text holding a comment marker
** or opening with an operator ({"a" := 5}, {"a": = 1}, !true), a format's
** placeholder (%s) or an unpacked name (*rest): read as a string,
** it would carry what the model did not mean as text. So would signs
** alone that hold a place: a value not given ({"a": ?}, -, --, _, YAML's
** null ~) or an ellipsis of another shape (. . ., ···, ⋯, (...)), and a
** literal misspelt, an expression that calls something, a number in
** another language's syntax (0x1F, 1_000, 017, inf, １２, 1+2), or an
** escape JSON reads (line1\nline2). */
static bool word_in_doubt(const char *s, const char *t)
{
    size_t n = (size_t)(t - s);
    if (coax_control_byte(s, n) < n) return true; /* {"a": <NUL>1}: a NUL or an ESC is no value's text */
    if (placeholder_signs(s, t) || broken_literal(s, t) || expression_shape(s, t) || quoted_by_marks(s, t) ||
        foreign_number(s, t) || regex_literal(s, t) || parenthesized(s, t) || lp_notation_in_doubt(s, t))
        return true;
    if ((n >= 3 && !memcmp(s, "etc", 3) && (n == 3 || (n == 4 && s[3] == '.'))) ||
        words_are(s, t, "and so on") || (n >= 2 && s[0] == '.' && s[1] == '.'))
        return true;
    if (coax_byte_in("=>|&:!", *s)) return true; /* not '<': <b>hi</b>; !true is false, !!str a YAML tag */
    if (full_width(s, t, FW_COLON) || full_width(s, t, FW_COMMA)) return true; /* {"k":：1}: a colon typed twice */
    /* markdown's bold (**Ada**, **36**): the reply's formatting around a
    ** value, not its text; without it the value's type is a guess too
    ** (__init__ is Python's name, not bold) */
    if (n >= 5 && s[0] == '*' && s[1] == '*' && t[-1] == '*' && t[-2] == '*') return true;
    /* a format's placeholder (%s, %d) or an unpacked name (*rest): no value */
    if (n >= 2 && (*s == '%' || *s == '*') && is_ident((unsigned char)s[1]) && !(*s == '%' && is_digit(s[1])))
        return true; /* not %20, a URL's escape */
    if (n >= 3 && s[0] == '<' && t[-1] == '>' && !memchr(s + 1, '<', n - 2) && !memchr(s + 1, '>', n - 2))
        return true; /* a template's placeholder, <age>, <your name>: no value was given */
    for (const char *c = s; c + 1 < t; c++) {
        if (c[0] == '/' && (c[1] == '*' || (c[1] == '/' && (c == s || c[-1] != ':')))) return true; /* not https:// */
        /* b # c: Python's, YAML's and shell's comment after the value, as
        ** after a number ({"a": 1 # one}), or its text; a # written alone
        ** between spaces, not C#, #42 or #fff */
        if (c[1] == '#' && coax_blank_before(s, c + 1) && (c + 2 == t || coax_blank_at(c + 2, t))) return true;
        /* ~~35~~ 36, <del>35</del> 36: markdown's or HTML's struck-out
        ** words, a correction: the value with them, or without? */
        if ((c[0] == '~' && c[1] == '~') ||
            (c[0] == '<' && ((t - c >= 5 && !memcmp(c, "<del>", 5)) || (t - c >= 3 && !memcmp(c, "<s>", 3)) ||
                             (t - c >= 8 && !memcmp(c, "<strike>", 8)))))
            return true;
        /* b -- c: SQL's, Lua's and Haskell's comment, or a dash in prose */
        if (c[1] == '-' && c + 2 < t && c[2] == '-' && coax_blank_before(s, c + 1) &&
            (c + 3 == t || coax_blank_at(c + 3, t)))
            return true;
        /* a call inside (new Date(), Date.now(), x.toFixed(2)) or an arrow
        ** function (() => 1): an expression, whose value is not its text;
        ** "Ada (Countess)" has a space */
        if ((c[1] == '(' && is_ident((unsigned char)c[0])) || (c[0] == '=' && c[1] == '>')) return true;
        /* line1\nline2, caf\u00e9: an escape JSON reads, so the quotes lost
        ** made it a line break or é; as text it is the two signs (C:\Users
        ** holds none JSON reads); Markdown's snake\_case is snake_case */
        if (c[0] == '\\' && (coax_byte_in("\"\\/bfnrt_*#", c[1]) ||
                              (c[1] == 'u' && t - c >= 6 && coax_hex_digit(c[2]) >= 0 && coax_hex_digit(c[3]) >= 0 &&
                               coax_hex_digit(c[4]) >= 0 && coax_hex_digit(c[5]) >= 0)))
            return true;
    }
    return false;
}

/* Whether an array's unquoted item s..t holds, after a space, a number or
** a literal standing alone (abc 2, 0.0.1 2, x true): items parted by
** spaces, as [1 2] is read, or one item's text? New York has none. */
static bool spaced_scalar(const char *s, const char *t)
{
    for (const char *c = s; c < t;) {
        if (!coax_blank_at(c, t)) {
            c++;
            continue;
        }
        const char *w = c = coax_blanks_end(c, t);
        while (c < t && !coax_blank_at(c, t)) c++;
        bool is_int;
        size_t n = (size_t)(c - w);
        if (n && (coax_number_span(w, n, &is_int) == n || strspn(w, "0123456789") >= n ||
                  (literal_of(w, n) && literal_of(w, n)->kind == RK_COUNT)))
            return true; /* 000 too: 1 000 000's groups, parted by no-break spaces */
    }
    return false;
}

coax_code lp_parse_word(lp *ps, int ctx, coax_value *out, int *what)
{
    const char *s = ps->p, *p = s, *e = ps->e;
    memset(out, 0, sizeof *out);
    *what = W_VALUE;
    /* mostly an identifier and its colon: the reading below, once */
    if (ctx == CTX_KEY && ps->nopens && !is_digit(*p) && lp_ident_key(ps, e, ps->lim.max_string, out)) return COAX_OK;
    bool neg = *p == '-';
    if (neg) p++;
    const char *id = p;
    while (p < e && is_ident((unsigned char)*p)) p++;
    size_t n = (size_t)(p - id);
    const literal_word *lit = ctx != CTX_KEY && n && delimited(p, e, ctx) ? literal_of(id, n) : NULL;
    if (lit && (!neg || (lit->kind == RK_NON_JSON_NUMBER && *id != 'u'))) { /* -NaN, -Infinity: null too */
        /* NaN and undefined say there is no number, as null does; Infinity
        ** is a number, unbounded, that null would turn into none; and a
        ** member whose value is undefined is absent (JSON.stringify leaves
        ** it out), which null is not (null may clear what absence keeps) */
        bool guess = *id == 'I' || (*id == 'u' && ctx == CTX_OBJVAL);
        if (lit->kind == RK_NON_JSON_NUMBER && guess) note_as(ps, RK_NON_JSON_NUMBER, COAX_CLASS_INVENTED, s);
        else if (lit->kind != RK_COUNT) note(ps, (rkind)lit->kind, s);
        out->type = lit->type;
        out->u.boolean = lit->truth;
        ps->p = p;
        return COAX_OK;
    }
    if (n && !neg && ctx != CTX_KEY) {
        const char *q = coax_blanks_end(p, e);
        if (q < e && *q == '(') {
            /* JSONP's callback around the whole value, and MongoDB's types
            ** (NumberLong(2), ISODate("...")), are wrappers; any other call
            ** is an expression (abs(-36), sorted([3, 1, 2]), str(5)) whose
            ** value is not what it wraps. */
            const char *r = q + 1;
            while (r < e && ws_tab[(unsigned char)*r]) r++;
            bool wrapper = ps->nopens == 0 ? r < e && *r == '{' : mongo_type(id, n);
            note_as(ps, RK_FUNCTION_CALL, wrapper ? COAX_CLASS_LOSSLESS : COAX_CLASS_INVENTED, s);
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
    for (size_t k; t > s && ((k = coax_blank_before(s, t)) || ws_tab[(unsigned char)t[-1]] || quote_at(t - 1, e, &q));)
        t -= k ? k : 1; /* blanks of any kind: Ada, U+00A0, is "Ada" */
    if (t == s) { /* nothing usable: skip one character */
        uint32_t cp;
        size_t k = coax_utf8_decode((const unsigned char *)s, (size_t)(e - s), &cp);
        note(ps, RK_SKIPPED_CHARACTER, s);
        ps->p = s + (k ? k : 1);
        *what = W_NONE;
        return COAX_OK;
    }
    /* A key is one identifier when the run of identifier bytes read above is all of it and does not
    ** start with a digit; a number before a colon is a key written without quotes too. */
    bool ident = !neg && n && t == id + n && !is_digit(*id);
    char plain[256]; /* the word's shape read with its Unicode spaces as spaces */
    const char *ws = lp_plain_word(s, t, plain, sizeof plain), *wt = ws + (t - s);
    bool guessed = ctx == CTX_KEY ? !(ident || is_identifier(s, t) || (p < e && *p == ':' && is_number_key(s, t)))
                                  : !word_ends_clearly(ps, s, t, p, ctx) || word_in_doubt(ws, wt) ||
                                        wt[-1] == ':' || /* 1: or true: then a line's end: a colon for a comma? */
                                        (ctx != CTX_KEY && member_shaped(ws, wt, ps->opens[ps->nopens - 1].object)) ||
                                        (ctx == CTX_OTHER && !ps->opens[ps->nopens - 1].object && spaced_scalar(ws, wt)) ||
                                        (ctx == CTX_OBJVAL && key_inside(ws, wt));
    note_as(ps, ctx == CTX_KEY ? RK_UNQUOTED_KEY : RK_UNQUOTED_STRING, class_if(guessed), s);
    const char *c = lp_orig(ps, s), *text = c, *own_end = lp_orig(ps, t); /* the reply's bytes: U+00A0 kept */
    while (c < own_end && (unsigned char)*c < 0x80) c++;
    size_t len = (size_t)(t - s);
    if (c < own_end) { /* keep valid UTF-8 only */
        ps->sb.len = 0;
        lp_put_utf8(ps, s, t);
        if (ps->sb.oom) return nomem(ps);
        text = ps->sb.data;
        len = ps->sb.len;
    }
    if (len > ps->lim.max_string)
        return coax_fail(ps->err, COAX_ESTRING, off(ps, s), "string longer than %zu bytes",
                         ps->lim.max_string);
    out->type = COAX_STRING;
    out->len = (uint32_t)len;
    out->u.text = lp_strdup(ps, text, len);
    if (guessed && ctx == CTX_KEY) out->flags |= COAX_VF_INVENTED;
    if (ctx != CTX_KEY) out->flags |= COAX_VF_UNQUOTED;
    ps->p = p;
    return out->u.text ? COAX_OK : nomem(ps);
}

/* ---- what follows a value ------------------------------------------------ */

/* Past spaces and comments from p, below limit; NULL when a comment runs
** past limit (what follows it is unknown: no members seen). */
static const char *skip_blank(const char *p, const char *limit)
{
    for (;;) {
        while (p < limit && ws_tab[(unsigned char)*p]) p++;
        bool closed;
        const char *end = lp_comment_end(p, limit, &closed);
        if (!closed) return NULL;
        if (end == p) return p;
        p = end;
    }
}

/* An identifier that lost its opening quote, and a colon: ", email": 1". */
static bool half_quoted_key(const char *p, const char *e)
{
    p = coax_blanks_end(p, e);
    const char *s = p;
    while (p < e && is_ident((unsigned char)*p)) p++;
    if (p == s || p >= e || (*p != '"' && *p != '\'')) return false;
    p = coax_blanks_end(p + 1, e);
    return p < e && *p == ':';
}

static bool members_follow(const char *p, const char *e)
{
    const char *limit = e - p > 64 ? p + 64 : e;
    /* Stray closers and comments first: in {"a": {"x": 1}}}, "b": 3} and
    ** {"a": 1} // c\n "b": 3} the members after them were meant to be
    ** inside the value all the same. */
    for (const char *q = NULL; q != p;) {
        q = p;
        if (!(p = skip_blank(p, limit))) return false;
        while (p < limit && (*p == '}' || *p == ']')) p++;
    }
    if (p >= e) return false;
    /* A quoted key only: prose after a value ("Note: ...") is not a member. */
    return *p == ':' || (*p == ',' && (key_ahead(p + 1, e) || half_quoted_key(p + 1, e))) ||
           (*p == '"' && key_ahead(p, e));
}

static bool value_resumes(const char *p, const char *e)
{
    /* Prose after a value is set off by a space, a new line or a
    ** sentence; a new value or a list goes on with '{', '[' or ','. */
    while (p < e && (*p == '}' || *p == ']')) p++; /* stray closers: {"a": 1}} {"b": 2} */
    if (p >= e || ws_tab[(unsigned char)*p] || *p == '{' || *p == '[' || *p == ',') return false;
    /* a word glued to the closer, then a closer or a comma and a key: {"n": 1000}000}, {"email":
    ** nu}ll,⏎ "city": "x"}: a value a stray closer split */
    const char *w = p;
    while (w < e && w - p < 64 && (is_ident((unsigned char)*w) || *w == '.')) w++; /* 2}.5 too */
    if (w > p) {
        if (w < e && *w == ',' && key_ahead(w + 1, e)) return true;
        while (w < e && w - p < 128 && ws_tab[(unsigned char)*w]) w++;
        if (w < e && (*w == '}' || *w == ']')) return true;
    }
    /* Both looks are bounded: each span of a reply asks, and the text after
    ** it may be long. A closer ends the text, or the glued text's line when
    ** prose follows ({... ]email": "x"} then "Let me know ..."); on that
    ** line, words or a token may follow the closer ({... ]email": "x"} ok,
    ** {... ]email": "x"}<|im_end|>): the members are the line's all the same. */
    const char *q = NULL, *nl = p, *nl_end = e - p > 256 ? p + 256 : e;
    while (nl < nl_end && *nl != '\n' && *nl != '\r') nl++; /* a lone CR ends a line too */
    if (nl == nl_end) nl = NULL;
    for (const char *end = nl ? nl : e; end && !q; end = end == e ? NULL : e) {
        const char *floor = end - p > 64 ? end - 64 : p;
        bool line = end == (nl ? nl : e);
        for (q = end; q > floor && (ws_tab[(unsigned char)q[-1]] || (line && q[-1] != '}' && q[-1] != ']'));) q--;
        if (q == p || (q[-1] != '}' && q[-1] != ']')) q = NULL;
    }
    if (!q) return false;
    /* a key's end ("...":) in the glued text, before a new value or line: a
    ** sentence's period and "Output: {...}" have none */
    const char *limit = q - p > 64 ? p + 64 : q;
    for (const char *c = p; c < limit && *c != '{' && *c != '[' && *c != '\n'; c++) {
        if (*c != '"') continue;
        const char *k = c + 1;
        k = coax_blanks_end(k, limit);
        if (k < limit && *k == ':') return true;
    }
    return false;
}

bool repair_closed_early(const char *p, const char *e)
{
    /* Mostly the value ends its span, or only spaces follow it: neither
    ** look has anything to find there. */
    const char *q = p;
    while (q < e && ws_tab[(unsigned char)*q]) q++;
    return q < e && (members_follow(p, e) || value_resumes(p, e) || repair_closer_splits(p, e) ||
                     repair_key_then_closer(p, e));
}

/* Whether p starts a numbered list's marker: digits, a period, spaces and
** more on the line ("1. {...}" is an item, not the number 1.0 and a value). */
static bool list_marker(const char *p, const char *end)
{
    while (p < end && *p >= '0' && *p <= '9') p++;
    if (end - p < 2 || *p != '.' || !coax_blank_at(p + 1, end)) return false;
    p = coax_blanks_end(p + 1, end);
    return p < end && *p != '\n' && *p != '\r';
}

bool repair_value_starts(const char *p, const char *end)
{
again:
    if (p >= end) return false;
    unsigned char c = (unsigned char)*p;
    uint32_t q;
    if (c == '{' || c == '[' || quote_at(p, end, &q)) return true;
    if (c >= '0' && c <= '9' && list_marker(p, end)) return false;
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
        return literal_of(s, n) != NULL;
    p = coax_blanks_end(p, end);
    if (p + 1 >= end || *p != '(') return false;
    p++; /* callback(...): what is inside the call */
    goto again;
}
