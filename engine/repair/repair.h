/*
** repair.h: internals of coax_repair, shared by repair.c (orchestration and
** choice), scan.c (candidate spans), fence.c (code fences), locate.c
** (lines and columns) and the lenient parser (lenient.c, lenient_string.c, lenient_word.c: lenient.h).
*/
#ifndef COAX_REPAIR_H
#define COAX_REPAIR_H

#include "base/core.h"

/* Every kind of fix, with a stable name (the log's "kind") and a sentence.
** The order is the table's in log.c. */
typedef enum rkind {
    RK_FENCED_BLOCK, RK_TAGGED_BLOCK, RK_PROSE_SPAN, RK_REASONING_SKIPPED,
    RK_BYTE_ORDER_MARK, RK_TRAILING_COMMA, RK_EXTRA_COMMA, RK_MISSING_COMMA,
    RK_MISSING_COLON, RK_MISSING_VALUE, RK_DANGLING_KEY, RK_UNQUOTED_KEY,
    RK_UNQUOTED_STRING, RK_SINGLE_QUOTES, RK_BACKTICK_QUOTES,
    RK_TYPOGRAPHIC_QUOTES, RK_UNESCAPED_QUOTE, RK_UNTERMINATED_STRING,
    RK_CONTROL_CHARACTER, RK_INVALID_ESCAPE, RK_INVALID_UTF8, RK_LONE_SURROGATE,
    RK_COMMENT, RK_PYTHON_LITERAL, RK_NON_JSON_NUMBER, RK_NUMBER_FORMAT,
    RK_ELLIPSIS, RK_FUNCTION_CALL, RK_ESCAPED_JSON, RK_DOUBLE_ENCODED,
    RK_STRING_CONCATENATION, RK_CLOSED_BRACKET, RK_MISMATCHED_BRACKET,
    RK_MISSING_BRACKET, RK_SKIPPED_CHARACTER, RK_TRAILING_TEXT,
    RK_DUPLICATE_KEY, RK_UNICODE_WHITESPACE, RK_TRIPLE_QUOTED_STRING,
    RK_FENCED_STRING, RK_THOUSANDS_SEPARATOR, RK_EARLY_CLOSE, RK_FRAGMENT, RK_OTHER_LITERAL, RK_OPERAND, RK_COUNT
} rkind;

const char *rkind_name(rkind k);
const char *rkind_detail(rkind k);
/* The class a kind has where its context does not say otherwise (some
** kinds are inferred in one context and invented in another: the parser
** passes the class it found with rlog_add_class). */
coax_class rkind_class(rkind k);

/* A growable log (scratch memory from the allocator). */
typedef struct rlog {
    coax_repair_entry *e;
    size_t n, cap;
    size_t first_cap; /* the capacity to start with, when more than 16 */
    const coax_allocator *alloc;
    bool oom;
    bool in_arena; /* e was carved from the arena: neither freed nor adopted, copied out to grow */
} rlog;

/* What log.c's table says of each kind; read inline, as a broken reply
** logs a fix at almost every token. */
typedef struct rkind_info {
    const char *name, *detail;
    coax_class cls;    /* where the context does not say otherwise */
    const char *guess; /* the detail when the context made it invented (NULL: 'detail') */
} rkind_info;
extern const rkind_info rkind_table[RK_COUNT];

/* Room for one more entry: false when there is none (the log is then oom). */
bool rlog_grow(rlog *log);

static inline void rlog_append(rlog *log, rkind kind, const char *detail, coax_class cls, size_t offset)
{
    if ((log->n == log->cap || log->oom) && !rlog_grow(log)) return;
    log->e[log->n++] = (coax_repair_entry){rkind_table[kind].name, detail, offset, 0, 0, cls};
}

/* Logs a fix of its kind's usual class, and returns that class. */
static inline coax_class rlog_add(rlog *log, rkind kind, size_t offset)
{
    rlog_append(log, kind, rkind_table[kind].detail, rkind_table[kind].cls, offset);
    return rkind_table[kind].cls;
}

static inline void rlog_add_class(rlog *log, rkind kind, coax_class cls, size_t offset)
{
    const char *guess = rkind_table[kind].guess;
    rlog_append(log, kind, cls == COAX_CLASS_INVENTED && guess ? guess : rkind_table[kind].detail, cls, offset);
}
/* Gives entry i (of kind 'kind') the class 'cls' and the detail that goes with it. */
void rlog_set_class(rlog *log, size_t i, rkind kind, coax_class cls);
void rlog_free(rlog *log);

/* A span of the text to parse, found by the scanner. */
typedef struct rspan {
    coax_source source;
    size_t start, end; /* the content, without fences or tags */
    bool complete;     /* closed fence/tag, or balanced brackets */
    size_t mark;       /* where the fence, tag or span begins (for the log) */
    bool fallback;     /* inside the truncated span before it: parsed only when that one
                       ** was over a limit (depth, string length), and a fragment */
} rspan;

typedef struct rspans {
    rspan *s; /* 'first' to start with (rspans_init): most replies have a few spans */
    size_t n, cap;
    const coax_allocator *alloc;
    rspan first[8];
} rspans;

/* Field by field: 'first' is written only as spans come. */
static inline void rspans_init(rspans *r, const coax_allocator *alloc)
{
    r->s = r->first;
    r->n = 0;
    r->cap = sizeof r->first / sizeof *r->first;
    r->alloc = alloc;
}

static inline void rspans_free(rspans *r)
{
    if (r->s != r->first) coax_free_raw(r->alloc, r->s, r->cap * sizeof *r->s);
}

/* Finds candidate spans: fenced blocks and tags (outside reasoning blocks),
** maximal balanced {...}/[...] spans in the remaining prose, and the whole
** text when it begins with a JSON value. In text order. Returns COAX_OK or
** COAX_ENOMEM. '*reasoning_end' is the end of the last reasoning block.
** 'lazy': when the whole text is a candidate and no block can follow, stop
** there with that candidate alone ('*partial' true): the rest of a full
** scan matters only when the whole text has text left over. */
coax_code repair_scan(const char *text, size_t len, bool lazy, rspans *out, size_t *reasoning_end, bool *partial);

/* One top-level value found by the lenient parser. */
typedef struct rvalue {
    coax_value *value;
    size_t start, end;
    bool complete;   /* nothing truncated was closed */
    bool invented;   /* an invented repair is among its entries */
    bool at_limit;   /* its parse opened a container max_depth deep (its nesting may be less) */
    size_t log_from; /* its entries in the parser's log: [log_from, log_to) */
    size_t log_to;
} rvalue;

typedef struct rvalues {
    rvalue *v;       /* 'first' to start with (rvalues_init): most spans hold one value */
    size_t n, cap;
    const coax_allocator *alloc;
    bool trailing; /* text that is not a value followed the values */
    rvalue first[2];
} rvalues;

/* Field by field: 'first' is written only as values come. */
static inline void rvalues_init(rvalues *r, const coax_allocator *alloc)
{
    r->v = r->first;
    r->n = 0;
    r->cap = sizeof r->first / sizeof *r->first;
    r->alloc = alloc;
    r->trailing = false;
}

static inline void rvalues_free(rvalues *r)
{
    if (r->v != r->first) coax_free_raw(r->alloc, r->v, r->cap * sizeof *r->v);
}

/* coax_repair, and in *rejected (code COAX_OK when none) the limit a candidate written whole
** (closed) met and was rejected for (COAX_EDEPTH, COAX_ESTRING) while others were read: it may
** have been the answer, which coax_extract cannot leave to the others. */
coax_code repair_reading(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                         coax_repair_result *out, coax_error *err, coax_error *rejected);

/* Parses text[start..end) leniently: every top-level value found, in order
** (concatenated values and NDJSON give several). Log offsets are into
** 'text'. When 'shift' is not NULL the bytes parsed are shift[0..end-start)
** (an unescaped copy of the span) and every log offset is 'start'. 'orig':
** the reply 'text' is read for (repair_read_view), where values' text is
** copied from.
** Returns COAX_OK (possibly with no values), or a limit or COAX_ENOMEM. */
coax_code repair_parse(coax_arena *arena, const coax_limits *lim, const char *text,
                       size_t start, size_t end, const char *shift, const char *orig, rlog *log,
                       rvalues *out, coax_error *err);

/* The arena memory repair_parse takes first for a span of 'span' bytes:
** a copy of it and the first piece of what it builds (coax_repair reserves
** it with the log's, one block for both). */
size_t repair_parse_memory(size_t span);

/* Line and column (code points) of byte offsets in text[0..len) (locate.c).
** 'marks' (start NULL) holds the line and column at every 64-byte block's
** start, built in the arena on the first lookup behind a sweep. */
typedef struct rlocator {
    const char *text;
    size_t len;
    coax_arena *arena;
    uint32_t *marks;
} rlocator;

/* A forward sweep's place for rlocate_next (start zeroed). */
typedef struct rsweep {
    size_t pos, line_start;
    uint32_t line, col;
} rsweep;

/* Every entry's line and column, from its offset (one forward sweep);
** returns whether the offsets ascend (never decrease). */
bool rlocate_entries(rlocator *l, coax_repair_entry *entries, size_t count);
/* Line and column of 'target' in one block's work, wherever it is. */
void rlocate_back(rlocator *l, size_t target, uint32_t *line, uint32_t *col);
/* Line and column of 'target', moving the sweep *s forward to it. */
void rlocate_next(rlocator *l, rsweep *s, size_t target, uint32_t *line, uint32_t *col);
/* A reply whose lines end in a lone CR (the old Mac way, or a transport's;
** a CR before an LF is CRLF's) as one whose lines end in LF, so that every
** rule reading lines (a label or a doubt above a value, a comment's end, a
** fence's and a fenced string's lines, indentation) reads its lines, as it
** does a CRLF reply's; the same length, so every offset holds; a lone CR
** inside a string is then that reply's line break too. A reply whose every
** lone CR is inside double-quoted strings ("hello\rworld") keeps them: the
** strings' text. The text itself then, or when it holds no lone CR; NULL
** when out of memory. */
const char *repair_cr_lines(coax_arena *arena, const char *text, size_t len);

/* What the repair reads its structure on, in *text (same length, so every
** offset holds): repair_cr_lines's text, with each Unicode blank
** (coax_blank_at: U+00A0, U+2000..U+200A, U+3000...; no line separator)
** and each character shown as nothing (coax_invisible_at: U+200B, a BOM, a
** bidi mark) outside double-quoted strings as ASCII spaces, byte for byte:
** a run of blanks of any kind reads as a space wherever a look asks for one
** (See<NBSP>[1] is a reference as See [1] is, an indentation of no-break
** spaces is one; an indentation counts columns, lenient_open.c).
** *orig: repair_cr_lines's text, which every value's text is copied from
** (a no-break space in a bare or single-quoted value stays one). False
** when out of memory. */
bool repair_read_view(coax_arena *arena, const char **text, const char **orig, size_t len);

/* t[0..len) with its Unicode blanks and characters shown as nothing
** (repair_viewed_space) outside double-quoted strings as ASCII spaces, byte
** for byte (repair_read_view's look): a copy in the arena, or t when it
** holds none; NULL when out of memory. */
const char *repair_blank_view(coax_arena *arena, const char *t, size_t len);

/* coax_parse of t[0..n) read through repair_blank_view: whether a string's
** text is JSON ('{"a":<NBSP>1}' holds the object as '{"a": 1}' does); its
** strings' text is t's own, byte for byte. */
coax_code repair_json_text(coax_arena *arena, const char *t, size_t n, const coax_limits *lim, coax_value **out);

/* A Unicode space at p: a blank past ASCII (coax_blank_at: NBSP, U+1680,
** U+2000..U+200A, U+202F, U+205F, U+3000), a line or paragraph separator
** (U+2028, U+2029), or a character shown as nothing (coax_invisible_at:
** U+200B..U+200F, U+2060, a BOM, a soft hyphen, a bidi control): its byte
** length, or 0. Outside strings the repair reads one as a space: a token
** that ends at one ends there ({"a": 1<NBSP>} holds the number 1, not the
** text "1<NBSP>"; {"age": 36<ZWSP> is cut after 36 as with a space). */
static inline size_t repair_unicode_space(const char *p, const char *e)
{
    if ((unsigned char)*p < 0x80) return 0;
    size_t n = coax_blank_at(p, e);
    if (n) return n;
    if (e - p >= 3 && (unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
        ((unsigned char)p[2] == 0xA8 || (unsigned char)p[2] == 0xA9))
        return 3;
    return coax_invisible_at(p, e);
}

/* repair_unicode_space for a space one writes for a space, not one shown
** as nothing (coax_invisible_at): its byte length, or 0. */
static inline size_t repair_visible_space(const char *p, const char *e)
{
    size_t n = repair_unicode_space(p, e);
    return n && !coax_invisible_at(p, e) ? n : 0;
}

/* The blank or the character shown as nothing at p (coax_blank_at, coax_invisible_at):
** what the read view and the prose's view read as spaces. Its byte length, or 0. */
static inline size_t repair_viewed_space(const char *p, const char *e)
{
    size_t n = coax_blank_at(p, e);
    return n ? n : coax_invisible_at(p, e);
}

/* The text with each Unicode space (NBSP, U+2000 to U+200A, U+202F,
** U+205F, U+3000: French typography's "Exemple :", a copied page's) and
** each character shown as nothing (U+200B, a BOM, a bidi mark: "The
** age<U+200B>is 37.") as ASCII spaces, byte for byte, so that every offset
** holds: what the prose's rules read (labels, words taking the answer
** back, a comment's value), never what values are read from. The text
** itself when it holds none; NULL when out of memory. */
const char *repair_plain_spaces(coax_arena *arena, const char *text, size_t len);

/* Whether a tag's name[0..n) opens a reasoning block (<think>, <reasoning>...):
** for the scan, and for the streaming reader (engine/stream/) alike. */
bool repair_is_reasoning(const char *name, size_t n);

/* A fence of three or more backticks or tildes at t[i]: its length, or 0
** (also when i is at or past len). Inline: the scan asks it at every
** candidate's start and line break, and mostly the byte is neither. */
static inline size_t repair_fence_at(const char *t, size_t i, size_t len)
{
    if (i >= len) return 0; /* a line break or its indentation ends the text */
    char c = t[i];
    if (c != '`' && c != '~') return 0;
    size_t n = 0;
    while (i + n < len && t[i + n] == c) n++;
    return n >= 3 ? n : 0;
}

/* The longest fence read as a string value's ("code": ```...```): one
** memo slot each from 3 backticks up. */
#define REPAIR_FENCE_MAX 18

/* What repair_fenced_string learned of a text, so that searching it again
** and again stays linear: for each fence length n (slot n - 3), a stretch
** of a line with no run of exactly n backticks, and a line break after
** which no line starts with n or more. 'ready' false: nothing known yet,
** and the arrays are zeroed on the first search (most texts have no fenced
** string, and every reply's scan and parse would clear them). */
typedef struct repair_fence_memo {
    bool ready;
    size_t line_from[REPAIR_FENCE_MAX - 2], line_end[REPAIR_FENCE_MAX - 2]; /* line_end 0: none */
    size_t none_after[REPAIR_FENCE_MAX - 2]; /* the line break + 1; 0: none */
} repair_fence_memo;

/* A fenced code block written as a string value ("code": ```...```) at
** t[i], of 3 to REPAIR_FENCE_MAX backticks: returns the offset just past
** its closing fence, or 0 when there is none. The content is t[*cs..*ce):
** between the fences on one line (a run exactly as long closes), else the
** lines after the opening line (whose info string is dropped) up to a line
** that starts with a fence at least as long. 'm' is the text's memo. */
size_t repair_fenced_string(const char *t, size_t i, size_t len, size_t *cs, size_t *ce, repair_fence_memo *m);

/* Whether the fence at t[i] stands where a value does: after a colon (and
** spaces) on its line. */
bool repair_value_fence(const char *t, size_t i);

/* Whether what follows a complete value at p (to end) says it was closed
** too early: members after spaces, comments and stray closers (", key:",
** "\"key\":" or ":"), or text glued to its closer with a quoted key's end in
** it, up to a closing bracket at the very end ({"name": "Ada", ]email":
** "a@b.c"}, {"1": t}ue, "a": 1}). */
bool repair_closed_early(const char *p, const char *end);

/* after_value.c: what the text after a complete value ending at p says
** about it (each look bounded). repair_closer_splits: the value's closer
** stands between two letters or digits ({"n": 1}2, {"ok": tr}ue, 0.}001): a
** stray closer split a word or number, whatever follows. repair_key_then_
** closer: a quoted key, then a closer no bracket after p opened, at p's own
** level ({"id": 1,}⏎ "v" false, "c": "x"⏎}: members broken a second way).
** repair_remark_closers: the last closers on p's line after a remark on it
** ({"a": {"b": 1}} (approx)}, words or a token after them or not), their
** length, *at their start; 0 for none. repair_comma_closer_resumes: the
** value closed where no item had ended, right after a comma or its opener, or
** a comma after it, and its line goes on to a closer no bracket after p opened
** ([apple,] banana, cherry], {]"a": 1}, [apple], banana]): typed early, the
** rest is the value's. */
bool repair_closer_splits(const char *p, const char *end);
bool repair_comma_closer_resumes(const char *p, const char *end);
bool repair_key_then_closer(const char *p, const char *end);
size_t repair_remark_closers(const char *p, const char *end, const char **at);
/* Whether p (in start..end) opens a footnote's or a reference's line: a
** number of one to three digits in brackets at the line's start, words
** after it ("[1] Source: the input.", "[2]: https://"; blanks inside or a closer typed twice, "[ 1 ] Source:",
** "[1 ]Source:", "[1]] Source:", before a label's words and colon): prose's own
** mark, no list of one number ("The answer is [1] as asked" is one). */
bool repair_footnote_at(const char *start, const char *p, const char *end);
/* A mark repair_footnote_at would read as a footnote's but for its label's colon lacking, where it is typed
** spaced or after a list's closer ("[1, 2]⏎[5] Let me know", "[5 ] Let me know"): a footnote's mark, or a row? */
bool repair_row_or_footnote_at(const char *start, const char *p, const char *end);
/* Whether p (in start..end) is a citation's mark after a value or a
** sentence on its line: a number of one to three digits in brackets after
** a blank, no comma, colon or closer after it ({"a": 1} [1], "blue." [2]
** Hope it helps; with 'after_list', after a list too: {"rows": [[1, 2] [3]⏎,
** another item or prose's?). */
bool repair_citation_at(const char *start, const char *p, const char *end, bool after_list);
/* The length of DSPy's field marker at p, "[[ ## answer ## ]]" (its ChatAdapter's section heading, no list of a
** list), or 0. */
size_t repair_field_marker_at(const char *p, const char *end);
/* Whether the text after a container v written at vs..ve, at..end, is the end of one of its strings and what
** followed it up to the container's closer ('.",⏎ "score": 3⏎}', 'muffled."⏎}', prose or a fence may follow
** the closer): the container went on,
** written again (Gemini's stray tail under a JSON response format) with other values than the ones read or
** not, a guess; not where it is the container's own last bytes again ('.",⏎ "score": 4⏎}' after
** '"clear.",⏎ "score": 4⏎}'). Bounded: a tail of 2 KB at most. */
bool repair_string_tail_after(const coax_value *v, const char *vs, const char *ve, const char *at, const char *end);
extern const char repair_string_tail_detail[];
/* Whether the span text[start..end), read as v, is prose's own mark in
** brackets rather than a list (marks.c): words in brackets that words follow
** or that come after others on their line ([INFO] Server started), a
** reference's numbers (See [1]), a footnote's or a citation's mark, or a
** list a citation's mark follows on its line ([1] [2]: a guess). */
bool repair_prose_mark(const char *text, size_t len, size_t start, size_t end, const coax_value *v);
/* The comma among stray closers and spaces that end the text after a value
** ("{...},", "[1, 2],⏎"): an item of a list followed the value, or was cut
** off, so the value is one item of a larger structure; NULL for none. */
const char *repair_comma_at_end(const char *p, const char *end);
/* Whether the values one after another are one value, or the first half
** of them, written again ("{...}⏎⏎{...}", the lines "{a}⏎{b}" twice), no
** comma where one copy meets the next (a list's "1, 1" has one): one
** answer repeated, or a list of equal items? (after_value.c) -1 when out
** of memory: no answer, never "not repeated" (the list read plain). */
int repair_repeated(const char *text, const rvalues *vals, const coax_allocator *alloc);
extern const char repair_repeated_detail[];
/* Whether the first of values read one after another as a list opens with a string whose text begins with an
** opener it never closes, right after its own bracket (["[a", "b"], ["c", "d"]]): its quote and that opener
** exchanged ([["a", "b"], ...) make them one list's items, the list's bracket moved into the string. */
bool repair_opener_exchanged(const char *text, const rvalues *vals);
extern const char repair_opener_exchanged_detail[];

/* Whether a closer that no bracket opened, among stray[0..n) after value
** v, may be one of v's own typed late: {"a": {"b": 1}, "c": 2}} is as well
** {"a": {"b": 1, "c": 2}} with the first '}' the extra one, as an object
** holding an object before another member lets either be (an array holding
** an array before another item, for ']'). Closers of one kind move only
** along levels all of that kind from v down: [{"a": {"b": 1}, "c": 2}]}
** and {"a": {"b": 1}}} have one reading (closers of both kinds: any level
** of their kinds). */
bool repair_stray_closer_moves(coax_arena *a, const coax_value *v, const char *stray, size_t n);

/* Whether a JSON value can start at p (for the whole-text candidate and
** for further values after a top-level one). */
bool repair_value_starts(const char *p, const char *end);

#endif
