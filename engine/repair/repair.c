/*
** repair.c: coax_repair. Valid JSON takes the strict parser's fast path;
** anything else is scanned for candidates (scan.c), each parsed
** leniently (lenient.c), and one is chosen:
**
**   1. the last fenced or tagged block (complete ones before truncated);
**   2. else the whole text, when it is nothing but values (the last one);
**      in both, an object or array wins over a bare scalar beside it;
**   3. else the last complete object in prose, else the last complete
**      array, else a truncated span;
**   4. else whatever the whole text gave.
**
** Candidates that needed an invented repair (a guessed key, a string ended
** at a guess) take part only when no other candidate exists: LaTeX in
** prose (\frac{1}{2}) does not beat the value before it. When the reply
** has fenced or tagged blocks, spans of the prose around them never take
** part (they are examples and explanations).
**
** Every candidate is kept, with its own log, for schema-aware scoring.
*/
#include "repair/repair.h"
#include "base/bytes.h"


/* A candidate under construction: its value and two slices of the log. */
typedef struct pending {
    coax_value *value;
    coax_source source;
    size_t start, end;
    bool complete, sequence;
    size_t pre_from, pre_to; /* span-level entries (block, reasoning) */
    size_t from, to;         /* the value's own entries */
    bool whole_clean;        /* from the whole text with nothing left over */
    bool double_encoded;     /* the value was JSON inside a string */
    bool invented;           /* some entry of its log is of class invented */
    bool fragment;           /* one item of a larger structure (logs RK_FRAGMENT) */
    uint32_t sline, scol;    /* where a fragment or double-encoded value starts (locate_starts) */
    bool read_twice;         /* double-encoded, and its text as written reads another way (escapes_read_twice) */
} pending;

typedef struct job {
    coax_arena *arena;
    const coax_allocator *alloc;
    const char *text, *orig; /* the text read (repair_read_view) and the reply's own, which values are from */
    size_t len;
    coax_limits lim;
    coax_error *err;
    coax_error *rejected; /* repair_reading's: the limit a candidate met beside the ones read, or NULL */
    rlog log;
    pending *c;
    size_t n, cap;
    rlocator where;          /* line and column of offsets (the log's, the candidates') */
    bool log_ascends;        /* the log's offsets never decrease (rlocate_entries saw): its slices need no sort */
    /* Last (not cleared when the job is set up): the candidates' first
    ** block, which most replies do not outgrow. */
    pending first_c[4];
} job;

static coax_code nomem(job *j) { return coax_fail(j->err, COAX_ENOMEM, 0, "out of memory"); }

/* The bytes the looks around a value pass over: JSON's spaces and NUL
** (they were strchr over " \t\r\n", which finds its terminator too),
** compared inline: they run for every candidate of every reply. */
static inline bool around_value(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; }

/* Inline: a candidate waiting is some hundred bytes, which a call copied
** twice (onto the stack, then into the list), for every candidate. */
static inline __attribute__((always_inline)) bool add_pending(job *j, pending p)
{
    if (j->n == j->cap && !coax_grow(j->alloc, (void **)&j->c, &j->cap, j->n + 1, sizeof *j->c, j->first_c))
        return false;
    j->c[j->n++] = p;
    return true;
}

/* Why JSON in quotes that need no escape of its own is a guess when a
** backslash in it reads two ways (escapes_read_twice, literal_reads_otherwise). */
static const char read_twice_detail[] = "JSON in quotes that need no escape of its own: read as written, or its"
                                        " escapes decoded first (`{\"p\": \"C:\\\\\\\\x\"}`: C:\\\\x or C:\\x?)";

/* Whether t[0..n) is a quote mark: `, ', ", or a typographic one (UTF-8's
** ‘ ’ “ ”). */
static bool quote_mark(const char *t, size_t n)
{
    const unsigned char *u = (const unsigned char *)t;
    if (n == 1) return u[0] == '`' || u[0] == '\'' || u[0] == '"';
    return n == 3 && u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0x98 || u[2] == 0x99 || u[2] == 0x9C || u[2] == 0x9D);
}

/* Whether the text between a double-encoded value's quotes, p's span, is
** JSON as written that reads another way than the string's decoded text
** 'inner': in backticks or single quotes (typographic ones too) JSON needs
** no escape of its own, so both are readings (Markdown's code span or a
** shell's quotes keep the text as written; JavaScript's or Python's literal
** decodes it first), and a backslash makes them differ (`{"p": "C:\\\\x"}`:
** C:\\x as written, C:\x decoded first; "\\n" a backslash and an n, or a
** line break). */
static bool escapes_read_twice(job *j, const pending *p, const coax_value *inner)
{
    size_t s = p->start, e = p->end;
    while (s < e && around_value(j->text[s])) s++;
    while (e > s && around_value(j->text[e - 1])) e--;
    size_t open = e - s >= 1 && quote_mark(j->text + s, 1) ? 1 : e - s >= 3 && quote_mark(j->text + s, 3) ? 3 : 0;
    size_t close = e - s >= open + 1 && quote_mark(j->text + e - 1, 1)   ? 1
                   : e - s >= open + 3 && quote_mark(j->text + e - 3, 3) ? 3
                                                                          : 0;
    const char *t = j->text + s + open;
    size_t n = e - s - open - close;
    if (!open || !close || !memchr(t, '\\', n)) return false;
    coax_value *raw; /* left in the arena, as the decoded value is: a rewind walks every block, n of them */
    return coax_parse(j->arena, t, n, &j->lim, &raw, NULL) == COAX_OK && coax_value_equal(raw, inner, j->alloc) != 1;
}

/* "{\"a\":1}" as a whole reply is JSON inside a string: decode it. */
static void undo_double_encoding(job *j, pending *p)
{
    coax_value *v = p->value, *inner;
    if (v->type != COAX_STRING) return;
    size_t i = 0;
    while (i < v->len && around_value(v->u.text[i])) i++;
    if (i >= v->len || (v->u.text[i] != '{' && v->u.text[i] != '[')) return;
    if (repair_json_text(j->arena, v->u.text, v->len, &j->lim, &inner)) return;
    p->read_twice = escapes_read_twice(j, p, inner);
    p->invented = p->invented || p->read_twice;
    p->value = inner;
    p->double_encoded = true;
}

/* Whether values i-1 and i of a bare list are one number written with a
** thousands separator as well as two items: 1,234 is 1234 as much as
** [1, 234] (a comma with no space, then a group of three digits). */
static bool grouped_pair(const job *j, const rvalues *vals, size_t i)
{
    const rvalue *a = &vals->v[i - 1], *b = &vals->v[i];
    const char *t = j->text;
    /* a value's end takes the spaces after it: "1,234\n" is as grouped as "1,234" */
    size_t digits = b->end - b->start, k;
    while (digits > 3 && ((k = coax_blank_before(t + b->start, t + b->start + digits)) ||
                          around_value(t[b->start + digits - 1])))
        digits -= k ? k : 1; /* a no-break space too */
    return a->value->type == COAX_NUMBER && b->value->type == COAX_NUMBER && b->start == a->end + 1 &&
           t[a->end] == ',' && digits == 3 && t[b->start] >= '0' && t[b->start] <= '9' &&
           t[b->start + 1] >= '0' && t[b->start + 1] <= '9' && t[b->start + 2] >= '0' && t[b->start + 2] <= '9';
}

/* A key given twice with two values leaves which one the model meant a
** guess; given twice with one value, nothing is lost. */
static void on_dup(void *ud, size_t offset, bool differs)
{
    rlog_add_class(ud, RK_DUPLICATE_KEY, differs ? COAX_CLASS_INVENTED : COAX_CLASS_INFERRED, offset);
}

/* JSON written with escaped quotes ({\"a\":1}): returns an unescaped copy
** of t[s..e) (one level: \" and \\), or NULL when the span is not that. */
static char *unescape_span(job *j, size_t s, size_t e, size_t *n)
{
    const char *t = j->text;
    size_t i = s;
    while (i < e && around_value(t[i])) i++;
    if (i >= e || (t[i] != '{' && t[i] != '[')) return NULL;
    i++;
    while (i < e && around_value(t[i])) i++;
    if (e - i < 2 || t[i] != '\\' || t[i + 1] != '"') return NULL;
    char *copy = coax_arena_alloc(j->arena, e - s + 1);
    if (!copy) return NULL;
    size_t k = 0;
    for (i = s; i < e; i++) {
        if (t[i] == '\\' && i + 1 < e && (t[i + 1] == '"' || t[i + 1] == '\\')) i++;
        copy[k++] = t[i];
    }
    *n = k;
    return copy;
}

static bool ident_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Whether the colon at t[colon] ends a member's key: a quoted key opened after '{' or ','
** ({"a": 1, "manager": ...), or after a closer that no bracket may have opened ({"a": 1,
** }"note": {...}}), or such a key that lost one of its quotes (, "tags: [...], "x", c": {...}), not a quoted
** phrase in prose (Here is the JSON for "Ada": ...). The look back is bounded to the line and 256 bytes. */
static bool member_key_before(const char *t, size_t colon)
{
    size_t c = colon;
    while (c > 0 && (around_value(t[c - 1]) || ((t[c - 1] == '}' || t[c - 1] == ']') && colon - c < 8)))
        c--; /* a stray closer between the key and its colon: {"ok"]: [...]} */
    size_t w = c, stop = c > 256 ? c - 256 : 0;
    while (w > stop && ident_byte(t[w - 1])) w--;
    if (w < c && w > 0 && t[w - 1] == '"') { /* a key whose closing quote was lost: , "tags: [...] */
        while (w > 1 && around_value(t[w - 2])) w--;
        return w > 1 && (t[w - 2] == '{' || t[w - 2] == ',');
    }
    if (c == 0 || t[c - 1] != '"') return false;
    size_t q = c - 1;
    while (q > stop && t[q - 1] != '"' && t[q - 1] != '\n') q--;
    if (q == stop || t[q - 1] != '"') return false;
    /* a key whose opening quote was lost: "x", c": {...}, the quotes around ', c' the value's closing one and the
    ** key's */
    size_t k = q;
    while (k < c - 1 && (around_value(t[k]) || t[k] == ']' || t[k] == '}')) k++; /* "z"], c": a list's closer */
    if (k < c - 1 && (t[k] == ',' || t[k] == '{')) {
        for (k++; k < c - 1 && around_value(t[k]); k++) {}
        size_t id = k;
        while (k < c - 1 && ident_byte(t[k])) k++;
        if (k > id && k == c - 1) return true;
    }
    q--; /* on the key's opening quote */
    while (q > 0 && around_value(t[q - 1])) q--;
    return q > 0 && (t[q - 1] == '{' || t[q - 1] == ',' || t[q - 1] == '}' || t[q - 1] == ']');
}


/* Whether the quoted text t[open..close] (its quotes) stands where a
** structure's string does: a member's value after a quoted key's colon
** ({"name": "{}", ... with the object's brace lost), or between JSON's
** punctuation, an opener, a comma or a closer before it and a comma or a
** closer after it. A quoted span in prose (The JSON is "{...}".) has
** neither. */
static bool quoted_in_structure(const char *t, size_t len, size_t open, size_t close)
{
    size_t b = open, a = close + 1;
    while (b > 0 && around_value(t[b - 1])) b--;
    while (a < len && around_value(t[a])) a++;
    if (b > 0 && t[b - 1] == ':') {
        size_t k = b - 1;
        while (k > 0 && around_value(t[k - 1])) k--;
        if (k > 0 && t[k - 1] == '"') return true; /* "key": "{...}" */
    }
    return b > 0 && coax_byte_in("[{,]}", t[b - 1]) && a < len && coax_byte_in(",]}", t[a]);
}

/* Whether t[a..len) goes on with another value after a comma: '{', '[',
** '"', or a number or a literal that a comma, a closer or the end follows
** ({...}, false]: an item of a list). A number or a word that prose goes on
** from is no item ({...}, 2 items were skipped. {...}, true to the schema). */
static bool value_after_comma(const char *t, size_t a, size_t len)
{
    if (a >= len || t[a] != ',') return false;
    a++;
    while (a < len && around_value(t[a])) a++;
    if (a >= len) return false;
    if (coax_byte_in("{[\"", t[a])) return true;
    size_t end = a;
    if (t[a] == '-' || (t[a] >= '0' && t[a] <= '9')) {
        end++;
        while (end < len && ((t[end] >= '0' && t[end] <= '9') || coax_byte_in("eE+-", t[end]) ||
                             (t[end] == '.' && end + 1 < len && t[end + 1] >= '0' && t[end + 1] <= '9')))
            end++;
    } else {
        static const char *const literals[] = {"true", "false", "null"};
        for (size_t k = 0; k < 3 && end == a; k++) {
            size_t n = strlen(literals[k]);
            if (len - a >= n && !memcmp(t + a, literals[k], n)) end = a + n;
        }
    }
    if (end == a || (end < len && ident_byte(t[end]))) return false;
    while (end < len && around_value(t[end])) end++;
    return end == len || t[end] == ',' || t[end] == ']' || t[end] == '}';
}

/* Whether the prose span sp sits in a broken list or object: after an
** unmatched '[', or after a ',' that follows a value, or before a ',' and
** another value ("[{...}}, {...}", "[[1], ]{...}, false]": neither object
** is the answer), between closers on lines of their own, or as the value
** of a quoted key ({"name": "Ada", ...]], "manager": {...}}: a member's
** value, not the answer, whatever broke the object around it), or as the
** text of a structure's string ("name": "{}", "value": "[1]"}). Values one after
** the other without a comma are not a list in prose: an echoed schema and
** then the answer; nor is a span after a colon in prose ("Here it is:
** {...}"). */
static bool prose_fragment(const job *j, const rspan *sp)
{
    const char *t = j->text;
    size_t b = sp->start, a = sp->end;
    if (b > 0 && t[b - 1] == '"' && a < j->len && t[a] == '"' && quoted_in_structure(t, j->len, b - 1, a))
        return true;
    while (b > 0 && around_value(t[b - 1])) b--;
    if (b > 0 && t[b - 1] == '[') return true;
    size_t after = a; /* the first byte after the span that is no space */
    while (after < j->len && around_value(t[after])) after++;
    if (b > 0 && (t[b - 1] == ']' || t[b - 1] == '}') && after < j->len && (t[after] == ']' || t[after] == '}'))
        return true; /* between closers on lines of their own: an item of what they close */
    if (b > 0 && t[b - 1] == ':' && member_key_before(t, b - 1)) return true;
    if (b > 0 && t[b - 1] == ',') {
        size_t c = b - 1;
        while (c > 0 && around_value(t[c - 1])) c--;
        if (c > 0 && (coax_byte_in("}]\"", t[c - 1]) || (t[c - 1] >= '0' && t[c - 1] <= '9'))) return true;
    }
    return value_after_comma(t, after, j->len);
}

/* Where the value val, a span of prose or a reply's value before its
** trailing text, is an expression's operand or text's part, or SIZE_MAX: the
** argument of a call (sorted([3, 1, 2]), list(reversed([1, 2]))), but
** for an object's, which a call wraps (callback({...}), print({...}), as
** in a whole reply); or after an operand and an operator on its line
** ([1, 2] + [3]); or followed on its line by an operator and another
** operand ([0] * 5, ["x"] * 3) or by a member access ({...}.keys(),
** [1, 2].length). The expression's value is not the span's; a sentence's
** period, a parenthesis after a space and prose after an operator are no
** expression. */
static size_t operand_at(const job *j, const rvalue *val)
{
    const char *t = j->text;
    size_t b = val->start, a = val->end;
    /* a bracket glued to the text before or after it: a subscript (arr[0],
    ** f()[1]), a markdown link or image ([docs](url), ![alt](a.png),
    ** [text][1]) or a pattern's class ([a-z]+, /[a-z]/): text, not a list;
    ** but for markdown's emphasis around it (**[1, 2]**, _[1, 2]_) */
    if (t[b] == '[' && a > b && t[a - 1] == ']') {
        char before = b > 0 ? t[b - 1] : ' ', after = a < j->len ? t[a] : ' ';
        bool emphasis = (before == '*' || before == '_') && after == before;
        if (!emphasis && (ident_byte(before) || coax_byte_in("!)]/\\", before))) return b - 1;
        if (!emphasis && (ident_byte(after) || coax_byte_in("([+*?{", after))) return a;
    }
    b = (size_t)(coax_blanks_start(t, t + b) - t);
    if (t[val->start] != '{' && b > 1 && t[b - 1] == '(' && ident_byte(t[b - 2])) return b - 1;
    /* the right operand of an operator after another on its line ([1, 2] +
    ** [3] is [1, 2, 3] to Python, "1,23" to JavaScript; 5 * [0]) */
    if (b > 1 && (t[b - 1] == '*' || t[b - 1] == '+' || t[b - 1] == '/')) { /* not 50% [1, 2] */
        size_t o = b - 1;
        if (o > 0 && t[o - 1] == t[b - 1]) o--; /* ** and // */
        o = (size_t)(coax_blanks_start(t, t + o) - t);
        if (o > 0 && ((t[o - 1] >= '0' && t[o - 1] <= '9') || coax_byte_in("]})\"'", t[o - 1]))) return b - 1;
    }
    a = (size_t)(coax_blanks_end(t + a, t + j->len) - t);
    if (a + 1 < j->len && t[a] == '.' && ident_byte(t[a + 1]) && !(t[a + 1] >= '0' && t[a + 1] <= '9')) return a;
    if (a < j->len && (t[a] == '*' || t[a] == '+' || t[a] == '/' || t[a] == '%')) {
        size_t o = a + 1;
        if (o < j->len && t[o] == t[a]) o++; /* ** and // */
        o = (size_t)(coax_blanks_end(t + o, t + j->len) - t);
        if (o < j->len && ((t[o] >= '0' && t[o] <= '9') || coax_byte_in("[{(\"'", t[o]))) return a;
    }
    return SIZE_MAX;
}

/* Whether v nests 'limit' arrays and objects deep (v itself is one): the list that wraps several
** values must not go past max_depth, as no other candidate does. Walked without recursion, only
** for a value whose parse reached that depth (a key given twice may have dropped the deep one). */
static bool nests_to(job *j, const coax_value *v, size_t limit)
{
    typedef struct level {
        const coax_value *c;
        size_t next; /* the child to look at next */
    } level;
    if (v->type != COAX_OBJECT && v->type != COAX_ARRAY) return false;
    if (limit <= 1) return true;
    level *stack = coax_arena_alloc(j->arena, limit * sizeof *stack);
    if (!stack) return true; /* no memory to look: as if it did (no list) */
    size_t depth = 0;
    stack[depth++] = (level){v, 0};
    while (depth) {
        level *l = &stack[depth - 1];
        if (l->next == l->c->len) {
            depth--;
            continue;
        }
        const coax_value *child =
            l->c->type == COAX_ARRAY ? &l->c->u.items[l->next] : &l->c->u.members[l->next].value;
        l->next++;
        if (child->type != COAX_OBJECT && child->type != COAX_ARRAY) continue;
        if (depth + 1 >= limit) return true;
        stack[depth++] = (level){child, 0};
    }
    return false;
}

/* Whether closers no bracket opened follow a balanced span of prose
** (t[end..], after spaces and line breaks), of which one of the span's
** own, in v, may be the extra one ({"a": {"b": 1}, "c": 2}} Hope this
** helps). */
static bool stray_closer_after(job *j, size_t end, const coax_value *v)
{
    const char *t = j->text;
    size_t a = end;
    while (a < j->len && around_value(t[a]) && a - end < 128) a++;
    size_t from = a;
    while (a < j->len && a - from < 128 && (t[a] == '}' || t[a] == ']')) a++;
    const char *closers = t + from; /* or those a remark ends with: {...}} (approx)} */
    size_t n = a > from ? a - from : repair_remark_closers(t + end, t + j->len, &closers);
    return repair_stray_closer_moves(j->arena, v, closers, n);
}

/* Whether t[0..3) is a typographic single quote, ‘ or ’ (“ ” quote prose). */
static bool single_typographic(const char *t)
{
    return quote_mark(t, 3) && ((const unsigned char *)t)[2] <= 0x99;
}

/* Whether a value of prose, v, sits right inside quotes of a string
** literal ('...', ‘...’, """...""", not Python's raw r'...') and holds a backslash that reads
** two ways: as written, or decoded first as the literal's text (\\ one
** backslash, \' and \" their quotes) and then as JSON (json.loads('{"p":
** "C:\\\\x"}') is C:\x to Python, the span as written C:\\x). */
static bool literal_reads_otherwise(job *j, const rvalue *v)
{
    const char *t = j->text;
    size_t s = v->start, e = v->end;
    if (s < 1 || e >= j->len || !memchr(t + s, '\\', e - s)) return false;
    bool single = (t[s - 1] == '\'' && t[e] == '\'') ||
                  (s >= 3 && e + 3 <= j->len && single_typographic(t + s - 3) && single_typographic(t + e));
    bool triple = s >= 3 && e + 3 <= j->len && !memcmp(t + s - 3, "\"\"\"", 3) && !memcmp(t + e, "\"\"\"", 3);
    size_t q = triple ? s - 3 : t[s - 1] == '\'' ? s - 1 : s - 3; /* the opening quote */
    if ((!single && !triple) || (q && (t[q - 1] == 'r' || t[q - 1] == 'R'))) return false; /* r'...': Python's raw */
    char *copy = coax_arena_alloc(j->arena, e - s + 1); /* kept, with its parse: see escapes_read_twice */
    size_t k = 0;
    for (size_t i = s; copy && i < e; i++) {
        if (t[i] == '\\' && i + 1 < e && (t[i + 1] == '\\' || t[i + 1] == '\'' || t[i + 1] == '"')) i++;
        copy[k++] = t[i];
    }
    coax_value *decoded;
    return copy && coax_parse(j->arena, copy, k, &j->lim, &decoded, NULL) == COAX_OK &&
           coax_value_equal(v->value, decoded, j->alloc) != 1;
}

/* The entry just logged is a guess about value v: v's log takes it, and v
** is invented. */
static void guessed(const job *j, rvalue *v)
{
    v->log_to = j->log.n;
    v->invented = true;
    v->value->flags |= COAX_VF_INVENTED;
}

static coax_code parse_span(job *j, const rspan *sp, size_t reasoning_end)
{
    static const rkind block_kind[] = {
        [COAX_SOURCE_FENCED] = RK_FENCED_BLOCK,
        [COAX_SOURCE_TAGGED] = RK_TAGGED_BLOCK,
        [COAX_SOURCE_PROSE] = RK_PROSE_SPAN,
    };
    size_t pre_from = j->log.n;
    if (reasoning_end && sp->start >= reasoning_end) rlog_add(&j->log, RK_REASONING_SKIPPED, 0);
    if (sp->source != COAX_SOURCE_WHOLE) rlog_add(&j->log, block_kind[sp->source], sp->mark);
    size_t n = 0;
    char *shift = unescape_span(j, sp->start, sp->end, &n);
    if (shift) rlog_add(&j->log, RK_ESCAPED_JSON, sp->start);
    size_t pre_to = j->log.n;
    rvalues vals;
    rvalues_init(&vals, j->alloc);
    coax_code rc = repair_parse(j->arena, &j->lim, j->text, sp->start, shift ? sp->start + n : sp->end,
                                shift, j->orig, &j->log, &vals, j->err);
    /* A block never closed: the reply stopped inside it, so brackets it
    ** closed at the end were not merely forgotten. */
    bool open_block = !sp->complete && (sp->source == COAX_SOURCE_FENCED || sp->source == COAX_SOURCE_TAGGED);
    for (size_t i = 0; !rc && open_block && i < vals.n; i++)
        for (size_t k = vals.v[i].log_from; k < vals.v[i].log_to; k++)
            if (j->log.e[k].kind == rkind_name(RK_CLOSED_BRACKET) && j->log.e[k].cls != COAX_CLASS_INVENTED) {
                rlog_set_class(&j->log, k, RK_CLOSED_BRACKET, COAX_CLASS_INVENTED);
                vals.v[i].invented = true;
                vals.v[i].value->flags |= COAX_VF_INVENTED;
            }
    /* A balanced span in prose followed by members, or by the rest of what
    ** it was meant to hold, was closed too early; so was any span closed
    ** right after a comma whose line goes on to a closer ([apple,] banana, cherry]). */
    bool last = !rc && vals.n && !shift && vals.v[vals.n - 1].log_to == j->log.n; /* its log the last */
    bool prose_last = last && sp->source == COAX_SOURCE_PROSE;
    if (prose_last ? repair_closed_early(j->text + sp->end, j->text + j->len) /* which asks both */
                   : last && repair_comma_closer_resumes(j->text + sp->end, j->text + j->len)) {
        rlog_add(&j->log, RK_EARLY_CLOSE, sp->end);
        guessed(j, &vals.v[vals.n - 1]);
    } else if (prose_last && stray_closer_after(j, sp->end, vals.v[vals.n - 1].value)) {
        rlog_add_class(&j->log, RK_TRAILING_TEXT, COAX_CLASS_INVENTED, sp->end);
        guessed(j, &vals.v[vals.n - 1]);
    } else if (prose_last && repair_string_tail_after(vals.v[vals.n - 1].value, j->text + sp->start,
                                                      j->text + sp->end, j->text + sp->end, j->text + j->len)) {
        size_t tail = sp->end; /* the log names the tail's first bytes */
        while (tail < j->len && coax_ascii_space((unsigned char)j->text[tail])) tail++;
        rlog_append(&j->log, RK_TRAILING_TEXT, repair_string_tail_detail, COAX_CLASS_INVENTED, tail);
        guessed(j, &vals.v[vals.n - 1]);
    }
    /* A value an expression applies to: its log takes the text ignored
    ** after it, if any, with the guess. */
    bool before_text = vals.trailing; /* a whole reply's value, or a block's */
    bool own_log = vals.n == 1 && (vals.v[0].log_to == j->log.n || (before_text && vals.v[0].log_to + 1 == j->log.n));
    size_t operand = !rc && own_log && (sp->source == COAX_SOURCE_PROSE || before_text) && !shift
                         ? operand_at(j, &vals.v[0])
                         : SIZE_MAX;
    if (operand != SIZE_MAX) {
        rlog_add(&j->log, RK_OPERAND, operand);
        guessed(j, &vals.v[0]);
    } else if (!rc && own_log && (sp->source == COAX_SOURCE_PROSE || before_text) && !shift &&
               repair_prose_mark(j->text, j->len, vals.v[0].start, vals.v[0].end, vals.v[0].value)) {
        rlog_add_class(&j->log, RK_PROSE_SPAN, COAX_CLASS_INVENTED, vals.v[0].start);
        guessed(j, &vals.v[0]);
    } else if (!rc && own_log && sp->source == COAX_SOURCE_PROSE && !shift && literal_reads_otherwise(j, &vals.v[0])) {
        rlog_append(&j->log, RK_ESCAPED_JSON, read_twice_detail, COAX_CLASS_INVENTED, vals.v[0].start);
        guessed(j, &vals.v[0]);
    }
    bool all_complete = true, any_invented = false;
    for (size_t i = 0; !rc && i < vals.n; i++) {
        rvalue *v = &vals.v[i];
        pending p = {v->value, sp->source, v->start, v->end, sp->complete && v->complete, false,
                     pre_from, pre_to, v->log_from, v->log_to,
                     sp->source == COAX_SOURCE_WHOLE && !vals.trailing, false, v->invented, false, 0, 0, false};
        /* Several values in one span give the list (NDJSON, "a, b"); each
        ** alone is a fragment of it (which one was meant?), and so is a span
        ** of prose that a list or an unclosed bracket holds. */
        p.fragment = vals.n > 1 || sp->fallback || (sp->source == COAX_SOURCE_PROSE && prose_fragment(j, sp));
        p.invented = p.invented || p.fragment;
        all_complete = all_complete && p.complete;
        any_invented = any_invented || v->invented;
        if (!add_pending(j, p)) rc = nomem(j);
        else undo_double_encoding(j, &j->c[j->n - 1]);
    }
    /* Concatenated values or NDJSON, as one array: one level more than the
    ** deepest of them, so not when that one is at max_depth already. */
    bool wraps = !rc && vals.n > 1;
    size_t grouped = 0; /* where a comma may part a number's digits, or 0 */
    for (size_t i = 0; wraps && i < vals.n; i++) {
        if (vals.v[i].at_limit && nests_to(j, vals.v[i].value, j->lim.max_depth)) wraps = false;
        if (i && !grouped && grouped_pair(j, &vals, i)) grouped = vals.v[i - 1].end;
    }
    int repeated = wraps && !grouped ? repair_repeated(j->text, &vals, j->alloc) : 0;
    if (repeated < 0) rc = nomem(j), wraps = false, repeated = 0;
    bool exchanged = wraps && !grouped && !repeated && repair_opener_exchanged(j->text, &vals);
    /* the list is a guess: its log says so (and takes the text ignored after it, as an operand's does) */
    size_t last_to = vals.n ? vals.v[vals.n - 1].log_to : 0;
    if ((grouped || repeated || exchanged) && (last_to == j->log.n || (vals.trailing && last_to + 1 == j->log.n))) {
        if (grouped) rlog_add_class(&j->log, RK_THOUSANDS_SEPARATOR, COAX_CLASS_INVENTED, grouped);
        else if (exchanged)
            rlog_append(&j->log, RK_FRAGMENT, repair_opener_exchanged_detail, COAX_CLASS_INVENTED, vals.v[0].start);
        else rlog_append(&j->log, RK_FRAGMENT, repair_repeated_detail, COAX_CLASS_INVENTED, vals.v[1].start);
        vals.v[vals.n - 1].log_to = j->log.n;
        any_invented = true;
    }
    if (wraps) {
        coax_value *arr = coax_new_value(j->arena, COAX_ARRAY);
        coax_value *items = coax_arena_alloc(j->arena, vals.n * sizeof *items);
        if (!arr || !items) rc = nomem(j);
        for (size_t i = 0; !rc && i < vals.n; i++) items[i] = *vals.v[i].value;
        if (!rc) {
            arr->len = vals.n;
            arr->u.items = items;
            pending p = {arr, COAX_SOURCE_SEQUENCE, vals.v[0].start, vals.v[vals.n - 1].end, all_complete,
                         true, pre_from, pre_to, vals.v[0].log_from, vals.v[vals.n - 1].log_to, false, false,
                         any_invented, false, 0, 0, false};
            if (!add_pending(j, p)) rc = nomem(j);
        }
    }
    rvalues_free(&vals);
    return rc;
}

/* The rule in the header comment, among candidates with or without
** invented repairs. Returns an index into j->c, or SIZE_MAX. */
static size_t choose_among(const job *j, bool with_invented, bool blocks)
{
    /* Per group, the best so far by rank: complete container 3, complete
    ** scalar 2, truncated container 1, truncated scalar 0. */
    enum { BLOCK, WHOLE, WHOLE_ANY, NGROUPS };
    size_t best[NGROUPS] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    int rank[NGROUPS] = {-1, -1, -1};
    size_t object = SIZE_MAX, array = SIZE_MAX, truncated = SIZE_MAX;
    for (size_t i = 0; i < j->n; i++) {
        const pending *p = &j->c[i];
        if (p->sequence || (p->invented && !with_invented) || (blocks && p->source == COAX_SOURCE_PROSE)) continue;
        bool container = p->value->type == COAX_OBJECT || p->value->type == COAX_ARRAY;
        int r = (p->complete ? 2 : 0) + container;
        int groups[2] = {-1, -1};
        switch (p->source) {
        case COAX_SOURCE_FENCED:
        case COAX_SOURCE_TAGGED:
            groups[0] = BLOCK;
            break;
        case COAX_SOURCE_WHOLE:
            groups[0] = WHOLE_ANY;
            if (p->whole_clean) groups[1] = WHOLE;
            break;
        default:
            if (!p->complete) truncated = i;
            else if (p->value->type == COAX_OBJECT) object = i;
            else array = i;
            break;
        }
        for (int g = 0; g < 2; g++)
            if (groups[g] >= 0 && r >= rank[groups[g]]) {
                rank[groups[g]] = r;
                best[groups[g]] = i;
            }
    }
    if (best[BLOCK] != SIZE_MAX) return best[BLOCK];
    if (best[WHOLE] != SIZE_MAX) return best[WHOLE];
    if (object != SIZE_MAX) return object;
    if (array != SIZE_MAX) return array;
    if (truncated != SIZE_MAX) return truncated;
    return best[WHOLE_ANY];
}

static size_t choose(const job *j)
{
    /* one candidate (most replies) and no sequence: every rule takes it */
    if (j->n == 1 && !j->c[0].sequence) return 0;
    bool blocks = false; /* a reply with blocks holds its answer there, not in the prose around */
    for (size_t i = 0; i < j->n && !blocks; i++)
        blocks = j->c[i].source == COAX_SOURCE_FENCED || j->c[i].source == COAX_SOURCE_TAGGED;
    size_t best = choose_among(j, false, blocks);
    return best != SIZE_MAX ? best : choose_among(j, true, blocks);
}


/* Line and column of the start of every candidate that logs it (a
** fragment, a double-encoded value): one forward sweep, as the candidates
** come in text order (NDJSON gives one per line). */
static void locate_starts(job *j)
{
    rsweep s = {0};
    for (size_t i = 0; i < j->n; i++) {
        pending *p = &j->c[i];
        if (p->fragment || p->double_encoded) rlocate_next(&j->where, &s, p->start, &p->sline, &p->scol);
    }
}

/* Sorts entries by offset, keeping the parser's order among equal offsets
** (a stable merge sort; logs come out nearly sorted, so this is cheap). */
static bool sort_entries(job *j, coax_repair_entry *e, size_t n)
{
    size_t i = 1;
    for (size_t prev = n ? e[0].offset : 0; i < n && e[i].offset >= prev; i++) prev = e[i].offset;
    if (i >= n) return true; /* sorted */
    coax_repair_entry *tmp = coax_arena_alloc(j->arena, n * sizeof *tmp);
    if (!tmp) return false;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) tmp[k++] = e[b].offset < e[a].offset ? e[b++] : e[a++];
            while (a < mid) tmp[k++] = e[a++];
            while (b < hi) tmp[k++] = e[b++];
        }
        memcpy(e, tmp, n * sizeof *e);
    }
    return true;
}

/* An entry a candidate gets beside its slice of the log. */
static coax_repair_entry extra_entry(rkind kind, size_t offset, uint32_t line, uint32_t col)
{
    return (coax_repair_entry){rkind_name(kind), rkind_detail(kind), offset, line, col, rkind_class(kind)};
}

/* A candidate's log: its slice of the (adopted) log when its entries are
** contiguous there, else a copy; sorted by offset either way. */
static coax_code finish_candidate(job *j, const pending *p, coax_candidate *c)
{
    size_t npre = p->pre_to - p->pre_from, nval = p->to - p->from;
    size_t n = npre + nval + p->double_encoded + p->fragment;
    coax_repair_entry *e;
    bool slice = !p->double_encoded && !p->fragment && (npre == 0 || p->pre_to == p->from);
    if (slice) {
        e = j->log.e ? j->log.e + (npre ? p->pre_from : p->from) : NULL; /* NULL: no entries */
    } else {
        e = coax_arena_alloc(j->arena, n * sizeof *e + 1);
        if (!e) return nomem(j);
        size_t k = 0;
        for (size_t i = p->pre_from; i < p->pre_to; i++) e[k++] = j->log.e[i];
        if (p->double_encoded) {
            e[k++] = extra_entry(RK_DOUBLE_ENCODED, p->start, p->sline, p->scol);
            if (p->read_twice) {
                e[k - 1].detail = read_twice_detail;
                e[k - 1].cls = COAX_CLASS_INVENTED;
            }
        }
        if (p->fragment) e[k++] = extra_entry(RK_FRAGMENT, p->start, p->sline, p->scol);
        for (size_t i = p->from; i < p->to; i++) e[k++] = j->log.e[i];
    }
    /* Sorting a slice in place is safe: value candidates come before the
    ** sequence that spans them, and sorted slices concatenate sorted. */
    if (!(slice && j->log_ascends) && !sort_entries(j, e, n)) return nomem(j);
    *c = (coax_candidate){p->value, p->source, p->start, p->end, p->complete, n ? e : NULL, n};
    return COAX_OK;
}

/* Whether the strict parser, on the text from 'at' (a '{' or a '['), stops
** with a syntax error before it reads anything but brackets and spaces:
** the innermost of the brackets it opens first holds no key ({name: ...},
** {'a': ...}, { // ...) or no value ([True, ...]). Its first fault comes
** before any limit it checks could (a string, a number, or a depth: the
** look stops below max_depth and below the parser's first frames, which
** it takes without an allocation), so its copy of the text and its parse
** are spared; most broken replies that begin with a bracket break there. */
static bool strict_breaks_at_once(const job *j, size_t at)
{
    static const uint8_t json_space[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};
    static const uint8_t item_start[256] = {
        ['{'] = 1, ['['] = 1, [']'] = 1, ['"'] = 1, ['-'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
        ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['t'] = 1, ['f'] = 1, ['n'] = 1,
    };
    const unsigned char *t = (const unsigned char *)j->text;
    for (size_t depth = 0; depth < j->lim.max_depth && depth < 16; depth++) {
        bool object = t[at] == '{';
        at++;
        while (at < j->len && json_space[t[at]]) at++;
        if (at >= j->len) return false;
        if (object) return t[at] != '"' && t[at] != '}';
        if (!item_start[t[at]]) return true;
        if (t[at] != '{' && t[at] != '[') return false;
    }
    return false;
}

/* Whether the strict parser must fail on the text from 'at' (a '{', a '['
** or a '"'): the last byte that is no JSON space is not the one that
** closes it (a reply cut off, most often), or, after a bracket, a comma
** comes before that closer (a trailing comma: in a string it would leave
** the closer in it too). Unlike strict_breaks_at_once, a limit may come
** first: run says what the parser would have. */
static bool strict_cannot_end(const job *j, size_t at)
{
    static const uint8_t json_space[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};
    const unsigned char *t = (const unsigned char *)j->text;
    size_t end = j->len;
    while (end > at + 1 && json_space[t[end - 1]]) end--;
    char open = (char)t[at], close = open == '{' ? '}' : open == '[' ? ']' : '"';
    if (end == at + 1 || t[end - 1] != (unsigned char)close) return true;
    if (open == '"') return false;
    for (end--; end > at + 1 && json_space[t[end - 1]];) end--;
    return t[end - 1] == ',';
}

/* The strict parser on the whole text, into *v: COAX_OK, or its error,
** with what it made given back to 'mark'. A limit's or no memory's error
** is filled in by a second try (the first fills none: a broken reply's
** message is never read, and writing it costs more than a small reply's
** parse); the duplicate keys it meets are logged when 'log_dups'. */
static inline __attribute__((always_inline)) coax_code strict_attempt(job *j, coax_arena_mark mark, coax_value **v,
                                                                      coax_error *perr, bool log_dups)
{
    void (*dup)(void *, size_t, bool) = log_dups ? on_dup : NULL;
    coax_code rc = coax_parse_ex(j->arena, j->text, j->len, &j->lim, v, NULL, dup, &j->log);
    if (rc) coax_arena_rewind(j->arena, mark); /* the attempt's copy and values */
    if (rc == COAX_EDEPTH || rc == COAX_ESTRING || rc == COAX_ENOMEM) {
        coax_code again = coax_parse_ex(j->arena, j->text, j->len, &j->lim, v, perr, dup, &j->log);
        coax_arena_rewind(j->arena, mark);
        if (again == COAX_ENOMEM) rc = again; /* memory ran out: perr says where */
        else if (rc == COAX_ENOMEM) coax_fail(perr, rc, 0, "out of memory"); /* it came back in between */
    }
    return rc;
}

static coax_code run(job *j, coax_repair_result *out)
{
    coax_value *v;
    coax_error perr;
    /* Broken replies log a fix every 10 to 100 bytes: a log sized for one
    ** every 8 (up to 160 KB) is seldom copied as it grows. Its memory and
    ** the first parse's are one block, which the strict attempt uses first
    ** and gives back (three blocks a reply before, about 90 instructions
    ** each). */
    size_t log_cap = j->len / 8 < 16 ? 16 : j->len / 8 < 4096 ? j->len / 8 : 4096;
    coax_arena_reserve(j->arena, log_cap * sizeof *j->log.e + repair_parse_memory(j->len));
    coax_arena_mark mark = coax_arena_get_mark(j->arena);
    /* Not at all when no JSON value can start the text (prose, a fence, a
    ** tag): the strict parser would copy it only to stop at its start; nor
    ** where it must fail (a reply cut off: a whole parse for nothing), but
    ** a limit it would meet first is its answer when nothing else is. */
    static const uint8_t starts_value[256] = {
        ['{'] = 1, ['['] = 1, ['"'] = 1, ['-'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
        ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['t'] = 1, ['f'] = 1, ['n'] = 1,
        [' '] = 2, ['\t'] = 2, ['\n'] = 2, ['\r'] = 2, /* JSON's spaces before it */
    };
    size_t first = 0;
    while (first < j->len && starts_value[(unsigned char)j->text[first]] == 2) first++;
    coax_code rc = COAX_ESYNTAX;
    bool spared = false; /* the strict attempt, which must fail */
    if (first < j->len && starts_value[(unsigned char)j->text[first]] == 1) {
        char c = j->text[first];
        bool breaks = (c == '{' || c == '[') && strict_breaks_at_once(j, first); /* before any limit */
        spared = !breaks && (c == '{' || c == '[' || c == '"') && strict_cannot_end(j, first);
        if (!breaks && !spared) rc = strict_attempt(j, mark, &v, &perr, true);
    }
    /* Lines that end in a lone CR are read as LF's from here on. Not before
    ** a strict attempt that passes and logs nothing: the strict parser reads
    ** CR and LF alike (spaces outside strings, no string holds either), and
    ** the whole text's candidate starts at line 1 whichever it is, so valid
    ** JSON pays no look for a CR. */
    if (rc != COAX_OK || j->log.n) {
        if (!repair_read_view(j->arena, &j->text, &j->orig, j->len)) return nomem(j);
        j->where.text = j->orig; /* columns count the reply's own characters */
    }
    if (rc == COAX_OK) {
        pending p = {v, COAX_SOURCE_WHOLE, 0, j->len, true, false, 0, 0, 0, j->log.n, true, false, false, false,
                     0, 0, false};
        if (!add_pending(j, p)) return nomem(j);
        undo_double_encoding(j, &j->c[0]);
    } else if (rc == COAX_ENOMEM) {
        if (j->err) *j->err = perr;
        return rc;
    } else {
        /* A span over a limit (depth, string length) is a rejected
        ** candidate: the limit is the answer only when nothing else is. */
        coax_code limit = rc == COAX_EDEPTH || rc == COAX_ESTRING ? rc : COAX_OK;
        coax_error limit_err; /* perr is filled only for a limit (or no memory) */
        if (limit) limit_err = perr;
        j->log.n = 0;
        j->log.first_cap = log_cap;
        if (!j->log.e) { /* from the arena, which keeps it: no loan to take, then adopt */
            if ((j->log.e = coax_arena_alloc(j->arena, log_cap * sizeof *j->log.e))) {
                j->log.cap = log_cap;
                j->log.in_arena = true;
            }
        }
        rspans spans;
        rspans_init(&spans, j->alloc);
        size_t reasoning_end, from = 0;
        bool partial, covered = false;
        /* Lazily: a whole text that is nothing but values covers every
        ** span, so the prose's spans are looked for only when it is not. */
        rc = repair_scan(j->text, j->len, true, &spans, &reasoning_end, &partial);
        bool enclosing_over_limit = false; /* the last span that is not a fallback */
        for (;;) {
            if (rc) {
                rc = nomem(j);
                break;
            }
            for (size_t i = from; !rc && i < spans.n; i++) {
                if (spans.s[i].fallback && !enclosing_over_limit) continue;
                rc = parse_span(j, &spans.s[i], reasoning_end);
                if (!spans.s[i].fallback) enclosing_over_limit = rc == COAX_EDEPTH || rc == COAX_ESTRING;
                if (rc == COAX_EDEPTH || rc == COAX_ESTRING) {
                    if (!limit) {
                        limit = rc;
                        if (j->err) limit_err = *j->err;
                    }
                    /* a value written whole over it, beside the others read: perhaps the answer (a
                    ** span left open is tried through its fragments, each a guess) */
                    if (j->rejected && !j->rejected->code && spans.s[i].complete && !spans.s[i].fallback)
                        *j->rejected = *j->err;
                    rc = COAX_OK;
                    continue;
                }
                if (spans.s[i].source == COAX_SOURCE_WHOLE && j->n && j->c[0].whole_clean) {
                    covered = true;
                    break;
                }
            }
            if (rc || covered || !partial) break;
            /* The full scan gives the same whole-text span first: the
            ** spans after it are the ones still to parse. */
            spans.n = 0;
            from = 1;
            rc = repair_scan(j->text, j->len, false, &spans, &reasoning_end, &partial);
        }
        rspans_free(&spans);
        if (rc) return rc;
        if (spared && j->n == 0) { /* the answer is a limit's, the strict parser's first */
            coax_code strict = strict_attempt(j, coax_arena_get_mark(j->arena), &v, &perr, false);
            if (strict == COAX_ENOMEM) {
                if (j->err) *j->err = perr;
                return strict;
            }
            if (strict == COAX_EDEPTH || strict == COAX_ESTRING) {
                limit = strict;
                limit_err = perr;
            }
        }
        if (limit && j->n == 0) {
            if (j->err) *j->err = limit_err;
            return limit;
        }
    }
    if (j->log.oom) return nomem(j);
    size_t best = choose(j);
    if (best == SIZE_MAX)
        return coax_fail(j->err, COAX_ENOJSON, 0, "no JSON value found in %zu bytes of text", j->len);
    if (j->log.n) j->log_ascends = rlocate_entries(&j->where, j->log.e, j->log.n);
    locate_starts(j);
    if (j->log.e && !j->log.in_arena) { /* the arena owns the log from here on */
        if (!coax_arena_adopt(j->arena, j->log.e, j->log.cap * sizeof *j->log.e)) return nomem(j);
        j->log.cap = 0;
    }
    coax_candidate *cands = coax_arena_alloc(j->arena, j->n * sizeof *cands);
    if (!cands) return nomem(j);
    for (size_t i = 0; i < j->n; i++)
        if ((rc = finish_candidate(j, &j->c[i], &cands[i]))) return rc;
    out->candidates = cands;
    out->ncandidates = j->n;
    out->chosen = best;
    out->value = cands[best].value;
    out->log = cands[best].log;
    out->nlog = cands[best].nlog;
    return COAX_OK;
}

coax_code coax_repair(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                      coax_repair_result *out, coax_error *err)
{
    return repair_reading(arena, text, len, limits, out, err, NULL);
}

coax_code repair_reading(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                         coax_repair_result *out, coax_error *err, coax_error *rejected)
{
    coax_error own; /* the limit's message is wanted even where the caller's error is not */
    if (rejected) rejected->code = COAX_OK, err = err ? err : &own;
    if (!arena || !out || (!text && len)) return coax_fail(err, COAX_EINVAL, 0, "coax_repair: NULL argument");
    /* A text out of the caches: its first 4 KB asked for at once, not a miss at a time as the scans reach
    ** them (the first byte's was a fifteenth of the bench's replies); past that the hardware prefetches. */
    /* Four lines a turn (a prefetch never faults, past the text's end too; the address an integer, as
    ** no pointer may point there): the loop's own compares and adds were most of its cost, a turn a line. */
    for (uintptr_t at = (uintptr_t)text, n = at + (len < 4096 ? len : 4096); at < n; at += 256) {
        __builtin_prefetch((const void *)at);
        __builtin_prefetch((const void *)(at + 64));
        __builtin_prefetch((const void *)(at + 128));
        __builtin_prefetch((const void *)(at + 192));
    }
    memset(out, 0, sizeof *out);
    job j;
    memset(&j, 0, offsetof(job, first_c));
    j.c = j.first_c;
    j.cap = sizeof j.first_c / sizeof *j.first_c;
    j.arena = arena;
    j.alloc = coax_arena_allocator(arena);
    j.text = j.orig = text ? text : "";
    j.lim = coax_limits_resolve(limits);
    if (len > j.lim.max_input) /* before any read of the text: its length may be anything */
        return coax_fail(err, COAX_ESIZE, 0, "input of %zu bytes exceeds the limit of %zu", len,
                         j.lim.max_input);
    j.len = len = coax_invisible_end(j.text, len); /* a number before U+200B alone at the end may be cut */
    j.err = err;
    j.rejected = rejected;
    j.log.alloc = j.alloc;
    j.where = (rlocator){j.text, len, arena, NULL};
    coax_code rc = run(&j, out);
    if (rc && err && err->offset) coax_error_locate(err, j.orig, len);
    if (!rc && rejected && rejected->code && rejected->offset) coax_error_locate(rejected, j.orig, len);
    if (j.log.cap) rlog_free(&j.log); /* not adopted: an error came first */
    if (j.c != j.first_c) coax_free_raw(j.alloc, j.c, j.cap * sizeof *j.c);
    return rc;
}

const char *coax_source_name(coax_source s)
{
    static const char *const names[] = {"whole", "fenced", "tagged", "prose", "sequence"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "unknown";
}

const char *coax_class_name(coax_class cls)
{
    switch (cls) {
    case COAX_CLASS_LOSSLESS: return "lossless";
    case COAX_CLASS_INFERRED: return "inferred";
    case COAX_CLASS_INVENTED: return "invented";
    }
    return "unknown";
}

int coax_class_parse(const char *name, coax_class *out)
{
    /* NULL 'out' is a NULL argument, as coax_encoding_parse's: 0, not a store through it */
    for (int c = COAX_CLASS_LOSSLESS; name && out && c <= COAX_CLASS_INVENTED; c++)
        if (!strcmp(name, coax_class_name((coax_class)c))) {
            *out = (coax_class)c;
            return 1;
        }
    return 0;
}
