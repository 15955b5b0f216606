/*
** extract/bare.c: replies that are one scalar, and scalars that are not.
**
** A schema that asks for one scalar (an enum, a const, an integer, a
** boolean) may get it as bare text: TWO, **Two**, "two". or `42`. That is
** the model's whole answer, so it is read as one value. But a scalar found
** inside prose ("2 or 3", "1 cup of flour") is a guess at which word was
** meant: a scalar counts only when it is the whole reply, or the whole of
** its fenced block or tag, after trimming spaces, a final period and
** surrounding quotes, backticks or "**".
*/
#include "extract/coerce.h"

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
static bool is_decoration(char c) { return is_space(c) || c == '"' || c == '\'' || c == '`' || c == '*'; }

/* Whether text[from..) up to a line break is a fence opener (``` or ~~~
** and an optional language word). */
static bool fence_line_before(const char *text, size_t at)
{
    /* 'at' is just after a '\n': find the start of the line before it. */
    if (at == 0) return false;
    size_t end = at - 1, s = end;
    while (s > 0 && text[s - 1] != '\n') s--;
    while (s < end && is_space(text[s])) s++;
    return end - s >= 3 && (!memcmp(text + s, "```", 3) || !memcmp(text + s, "~~~", 3));
}

static bool at_fence(const char *text, size_t len, size_t at)
{
    return len - at >= 3 && (!memcmp(text + at, "```", 3) || !memcmp(text + at, "~~~", 3));
}

bool extract_scalar_alone(const char *text, size_t len, const coax_candidate *cand)
{
    const coax_value *v = cand->value;
    if (v->type == COAX_OBJECT || v->type == COAX_ARRAY || cand->start > cand->end || cand->end > len) return true;
    bool block = cand->source == COAX_SOURCE_FENCED || cand->source == COAX_SOURCE_TAGGED;
    size_t s = cand->start;
    while (s > 0 && is_decoration(text[s - 1]) && !(block && text[s - 1] == '\n')) s--;
    bool left = s == 0 || (block && (text[s - 1] == '>' || (text[s - 1] == '\n' && fence_line_before(text, s))));
    size_t e = cand->end;
    bool period = false;
    for (; e < len; e++) {
        if (block && (text[e] == '\n' || at_fence(text, len, e))) break; /* the block's own end */
        if (is_decoration(text[e])) continue;
        if (text[e] == '.' && !period) {
            period = true;
            continue;
        }
        break;
    }
    if (block)
        while (e < len && is_space(text[e])) e++;
    bool right = e == len || (block && (text[e] == '<' || at_fence(text, len, e)));
    return left && right;
}

/* Takes one pair of surrounding decorations off t[0..*n): emphasis,
** backticks, straight or typographic quotes; *quoted set when the pair
** was quotes (what they hold is a text), left alone otherwise. */
static bool strip_pair(const char **t, size_t *n, bool *quoted)
{
    static const char *const pairs[][2] = {{"**", "**"}, {"`", "`"}, {"\"", "\""}, {"'", "'"}, {"*", "*"},
                                           {"\u201c", "\u201d"}, {"\u2018", "\u2019"}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        size_t k = strlen(pairs[i][0]), m = strlen(pairs[i][1]);
        if (*n >= k + m + 1 && !memcmp(*t, pairs[i][0], k) && !memcmp(*t + *n - m, pairs[i][1], m)) {
            *t += k;
            *n -= k + m;
            if (pairs[i][0][0] != '*' && pairs[i][0][0] != '`') *quoted = true;
            return true;
        }
    }
    return false;
}

/* The inside of a fenced block that is the whole of t[0..*n) (```lang
** ... ```), or false. */
static bool strip_fence(const char **t, size_t *n)
{
    const char *s = *t;
    size_t k = *n;
    if (k < 7 || (memcmp(s, "```", 3) && memcmp(s, "~~~", 3)) || memcmp(s + k - 3, s, 3)) return false;
    const char *nl = memchr(s, '\n', k - 3);
    if (!nl) return false;
    for (const char *p = s + 3; p < nl; p++)
        if (is_space(*p) && *p != '\r' && p + 1 < nl) return false; /* an info string is one word */
    *t = nl + 1;
    *n = (size_t)(s + k - 3 - *t);
    return true;
}

/* A number written with thousands separators ("12,111", "-2,000.00") as
** the whole reply: the same rule as in a member's value, every group after
** the first exactly three digits. NULL when t[0..n) is not one. */
static coax_value *grouped_number(coax_arena *a, const char *t, size_t n)
{
    size_t i = n && t[0] == '-', first = i;
    while (i < n && i - first < 3 && t[i] >= '0' && t[i] <= '9') i++;
    if (i == first || t[first] == '0' || i >= n || t[i] != ',') return NULL;
    char buf[64];
    size_t k = 0;
    memcpy(buf, t, i);
    k = i;
    while (i < n && t[i] == ',') {
        if (n - i < 4 || k + 3 >= sizeof buf) return NULL;
        for (size_t d = 1; d <= 3; d++)
            if (t[i + d] < '0' || t[i + d] > '9') return NULL;
        memcpy(buf + k, t + i + 1, 3);
        k += 3;
        i += 4;
    }
    if (i < n && t[i] == '.') {
        size_t f = i + 1;
        while (f < n && t[f] >= '0' && t[f] <= '9') f++;
        if (f == i + 1 || f != n || k + (f - i) >= sizeof buf) return NULL;
        memcpy(buf + k, t + i, f - i);
        k += f - i;
        i = f;
    }
    if (i != n) return NULL;
    coax_value *v = coax_new_value(a, COAX_NUMBER);
    return v && !coax_set_number(a, v, buf, k) ? v : NULL;
}

coax_value *extract_bare_scalar(coax_arena *a, const char *text, size_t len, bool literal_only)
{
    const char *t = text;
    size_t n = len;
    bool period = false, quoted = false;
    for (int round = 0; round < 8; round++) {
        while (n && is_space(t[0])) t++, n--;
        while (n && is_space(t[n - 1])) n--;
        if (!period && n > 1 && t[n - 1] == '.') {
            period = true;
            n--;
            continue;
        }
        coax_value *v;
        coax_arena_mark mark = coax_arena_get_mark(a);
        if (n && !coax_parse(a, t, n, NULL, &v, NULL)) {
            if (v->type == COAX_OBJECT || v->type == COAX_ARRAY) return NULL;
            /* 'null', '2' and \u201ctrue\u201d are texts as "null", "2" and "true" are: a quoted
            ** scalar is read as its double-quoted twin, never as the literal it spells */
            if (!quoted || v->type == COAX_STRING) return v;
            coax_arena_rewind(a, mark);
            if (!(v = coax_new_value(a, COAX_STRING)) || coax_set_string(a, v, t, n)) return NULL;
            return v;
        }
        coax_arena_rewind(a, mark);
        if (!literal_only && !quoted && (v = grouped_number(a, t, n))) return v;
        if (!strip_fence(&t, &n) && !strip_pair(&t, &n, &quoted)) break;
    }
    if (literal_only || n == 0 || memchr(t, '\n', n)) return NULL; /* one line: a bare scalar is short */
    coax_value *v = coax_new_value(a, COAX_STRING);
    return v && !coax_set_string(a, v, t, n) ? v : NULL;
}

/* What schema 's' of document 'doc' asks for, as bare text can name it:
** one scalar (an enum or const, or only integer, number, boolean or null),
** a string (any prose is one), or something else. 'depth' bounds the
** branches of anyOf and oneOf looked into: {"anyOf": [{"const": 2},
** {"const": 3}]} asks for a scalar when every branch does. */
static coerce_root scalar_schema(const coax_value *doc, const coax_value *s, int depth, size_t *work)
{
    s = coerce_deref(NULL, doc, s);
    if (!s || s->type != COAX_OBJECT || *work < s->len + 1) return ROOT_OTHER;
    *work -= s->len + 1;
    if (coerce_member(s, "enum") || coerce_member(s, "const")) return ROOT_SCALAR;
    static const char *const unions[] = {"anyOf", "oneOf"};
    for (size_t u = 0; u < 2; u++) {
        const coax_value *b = coerce_member(s, unions[u]);
        if (!b || coerce_member(s, "type")) continue;
        if (b->type != COAX_ARRAY || !b->len || depth >= 8) return ROOT_OTHER;
        coerce_root all = ROOT_SCALAR;
        for (size_t i = 0; i < b->len; i++) {
            coerce_root k = scalar_schema(doc, &b->u.items[i], depth + 1, work);
            if (k == ROOT_OTHER) return ROOT_OTHER;
            if (k == ROOT_STRING) all = ROOT_STRING;
        }
        return all;
    }
    const coax_value *t = coerce_member(s, "type");
    size_t n = t && t->type == COAX_ARRAY ? t->len : t ? 1 : 0;
    bool string = false;
    for (size_t i = 0; i < n; i++) {
        const coax_value *x = t->type == COAX_ARRAY ? &t->u.items[i] : t;
        if (x->type != COAX_STRING) return ROOT_OTHER;
        if (!strcmp(x->u.text, "string")) string = true;
        else if (strcmp(x->u.text, "integer") && strcmp(x->u.text, "number") && strcmp(x->u.text, "boolean") &&
                 strcmp(x->u.text, "null"))
            return ROOT_OTHER;
    }
    return n == 0 ? ROOT_OTHER : string ? ROOT_STRING : ROOT_SCALAR;
}

/* Members of the schema objects scalar_schema reads, at most: w branches referring to
** the next level's union ({"anyOf": [{"$ref": "#/$defs/a"}, ...]}) at each of 8 levels
** are w^8 visits; past it bare text is not read. A flat union of 100,000 consts fits. */
#define SCALAR_WORK (1u << 20)

coerce_root coerce_scalar_root(const coax_value *doc)
{
    size_t work = SCALAR_WORK;
    return scalar_schema(doc, doc, 0, &work);
}

/* Whether 'key' names the whole answer rather than being content: a
** wrapper word, or the schema's title (ignoring case, spaces, '_' and '-');
** or, for an object or array inside, any key the schema names as no
** property, not even re-cased, misspelt or through a pattern
** ({"invoice": {...}}: a scalar's key says what the scalar is,
** {"greeting": "hello"}, but a whole structure's key only labels it;
** {"FOO": [1, 2]} beside a property "foo" is that property). */
bool coerce_wrapper_key(coax_arena *a, const coax_value *doc, const coax_schema *schema, const char *key, size_t klen,
                        const coax_value *inner, uint64_t *spent)
{
    char norm[32], title[32];
    bool short_key = coerce_norm_key(key, klen, norm, sizeof norm);
    const coax_value *t = coerce_member(coerce_deref(NULL, doc, doc), "title");
    bool titled = t && t->type == COAX_STRING && coerce_norm_key(t->u.text, t->len, title, sizeof title) && title[0];
    if (short_key && titled && !strcmp(norm, title)) return true;
    /* A label saying what it holds is not the answer takes nothing out of it. */
    if (coerce_not_answer_label(key, klen)) return false;
    if ((inner->type == COAX_OBJECT || inner->type == COAX_ARRAY) && !coerce_named_in_doc(a, doc, schema, key, klen, spent))
        return true;
    static const char *const words[] = {"result", "results", "data", "output", "answer", "response", "value",
                                        "json", "reply", "payload", "return", "returnvalue"};
    for (size_t i = 0; short_key && i < sizeof words / sizeof *words; i++)
        if (!strcmp(norm, words[i])) return true;
    return titled && coerce_loose_equal(a, key, klen, t->u.text, t->len);
}
