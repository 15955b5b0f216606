/*
** lenient.h: the lenient parser's state (internal), shared by its files,
** each calling only those below it:
**   lenient.c          repair_parse: the state machine over an explicit
**                      stack of open containers, spaces and comments
**   lenient_fast.c     the state machine's fast way over well-formed
**                      stretches
**   lenient_open.c     the open containers: pushing and closing them
**   lenient_string.c   strings in any quote style, where a string really
**                      ends, escapes, block strings (triple quotes, fences)
**   lenient_word.c     numbers in other notations, literals, bare words
**                      (unquoted keys and strings, function-call wrappers),
**                      the look-ahead that tells what comes next, and text
**                      copied as valid UTF-8
** What every byte or token goes through (logging a fix, reading a quote
** character, copying a string into the arena, a plain string) is inline
** here; the plain tokens the fast way reads (numbers as JSON writes them,
** plain strings, identifier keys, literals) are inline in lenient_token.h.
*/
#ifndef COAX_REPAIR_LENIENT_H
#define COAX_REPAIR_LENIENT_H

#include "json/key_bits.h"
#include "repair/repair.h"
#include "base/bytes.h"

/* What the state machine expects next: a value, what follows one (a comma
** or a closing bracket), a key, or a key's colon. */
enum { ST_VALUE, ST_AFTER, ST_KEY, ST_COLON };
/* Where a string or word stands: an array item or top-level value, an
** object member's value, a key. */
enum { CTX_OTHER, CTX_OBJVAL, CTX_KEY };

/* The children of the open containers wait on one stack of bytes already
** in their final layout, as the strict parser keeps them (json/parse.c):
** an array's items 16 bytes each, an object's members 32, so closing a
** container copies its children as one block. A pending member keeps
** where its key starts in the 4 bytes of padding after its key's length
** (offsets fit: max_input is below 4 GiB), for a duplicate's report; the
** closed object's copy keeps them there too (no reader looks at padding,
** and the strict parser's members leave it as the stack had it). */
_Static_assert(sizeof(coax_value) == 16 && sizeof(coax_member) == 32 && offsetof(coax_member, klen) == 8 &&
                   offsetof(coax_member, value) == 16,
               "a member is its key, its key's length and 4 bytes of padding, and its value");
#define LP_KOFF_AT 12 /* the padding after klen */

typedef struct lopen {
    size_t base;   /* first child: a byte offset in the pending children */
    uint64_t keys; /* an object's key_bits: UINT64_MAX when a key may repeat */
    bool object;
    bool invented;     /* opened under an invented repair: all inside is flagged */
    bool key_invented; /* an object's last key was guessed: its value is flagged */
    bool closer_commented; /* a comment inside it held its closer: lp_closer_commented */
    unsigned paren;    /* function-call wrappers opened at this level */
    const char *at;    /* its opening bracket: lp_closer_layout */
} lopen;

/* The closers whose layout's look (lp_closer_layout) waits until its
** answer is asked, in a text's order, before they are looked at. */
#define LP_CLOSERS 16

typedef struct lp {
    coax_arena *arena;
    const coax_allocator *alloc;
    const char *b, *p, *e; /* the bytes parsed: a copy, a NUL and SCAN_PAD zero bytes after e */
    char *copy;            /* a copy of b..e and a byte more in the arena: plain tokens' text (lp_text) */
    uintptr_t to_copy;     /* copy's address less b's: lp_text */
    uintptr_t to_orig;     /* the reply's own bytes' address less b's: lp_orig */
    bool viewed;           /* b..e reads Unicode blanks as ASCII spaces (repair_read_view): lp_skip_space_slow notes them */
    size_t base;           /* offset in the text of b[0] */
    uintptr_t bias;        /* b's address less base: off() */
    bool exact;            /* false: every log offset is 'base' (repair_parse sets them at its end) */
    bool fast;             /* lp_fast_stretch may run: no string in b..e can pass max_string (it does not ask) */
    bool utf8;             /* b..e is valid UTF-8 (coax_json_copy_input): plain strings need no look at its sequences */
    coax_limits lim;
    rlog *log;
    coax_error *err;
    /* the pending children (see lopen): their stack, its top, and the last
    ** place a member fits in it (one compare for room, kid_room) */
    char *kids, *kid_top, *kid_last;
    size_t ckids;                   /* its bytes */
    lopen *opens;
    size_t nopens, copens;
    unsigned top_paren;
    coax_buf sb;     /* string being decoded */
    bool truncated;  /* something was cut off by the end of input */
    int st;
    unsigned key_indent; /* the last line break and spaces before a key, 2..16 bytes (0: none): the next one's guess */
    const char *comma; /* the comma just read, for trailing-comma reports */
    bool inv;          /* an invented repair since the last value: it flags the next */
    bool inv_any;      /* an invented repair in this top-level value */
    size_t inv_opens;  /* open containers with 'invented' set */
    bool bracket_fixed; /* a closing bracket was replaced or inserted in this value */
    bool closer_dedented; /* a closing bracket sits left of its opener's line, after a member at that line's left */
    size_t layout_look;   /* the bytes the layout's looks (lenient_open.c) may still read: twice the text's */
    unsigned closers;     /* closers_at's closers waiting for their layout's look (lp_closer_layout) */
    unsigned closers_now; /* the first of them in the value being parsed (the ones before, in values before) */
    bool at_limit;      /* this top-level value opened a container max_depth deep */
    bool inner_quote;  /* the string being decoded kept an unescaped quote */
    bool kept_escape;  /* the string being decoded kept a backslash before a letter or digit (\p, \d) */
    const char *quoted_end; /* the end of the last string that kept one */
    const char *line_item;  /* the opener of a one-line list an item on a new line, no comma, went on (lp_line_item) */
    const char *line_looked; /* the opener of the list lp_line_item looked at last: one look a list */
    const char *pair_list;   /* the opener of a list where a comma was lost after a string (lp_line_item) */
    char *pair_kids;         /* kid_top then: the item after it is the list's last while kid_top is one past */
    char *pool;             /* lp_carve's piece of the arena, what is left of it, the next piece's size */
    size_t pool_left, next_piece;
    /* Last (not cleared when the state is set up): repair_fenced_string's
    ** memo (which clears itself when first used), the first blocks of the
    ** pending children and open containers; most replies need no more. */
    repair_fence_memo fences;
    _Alignas(16) char first_kids[32 * sizeof(coax_member)];
    lopen first_opens[8];
    const char *closers_at[LP_CLOSERS][2]; /* a waiting closer's opening bracket and itself */
} lp;

/* What lp_parse_word read: a value, nothing (a character skipped), a
** function-call wrapper opened, or a word where no value can start. */
enum { W_VALUE, W_NONE, W_CALL, W_STOP };

/* ---- lenient_string.c ---------------------------------------------------- */

/* The string at 'at' (its body from 'body') that lp_parse_string's quick
** way (below) does not take: a body to decode, or a closing quote in doubt. */
coax_code lp_parse_string_slow(lp *ps, int ctx, coax_value *out, uint32_t open, const char *at, const char *body);
coax_code lp_parse_template(lp *ps, int ctx, coax_value *out, const char *at, const char *body);

#if BYTES16
/* lp_plain_string's way past the first sixteen bytes of a body, or with
** multi-byte characters in them, from 'q' (the body's start, or a block
** boundary after plain bytes; text from 'b' to 'e'): where it stops (the
** closing quote, a backslash or a control character), NULL when the body
** is not plain bytes and the UTF-8 sequences lp_plain_string takes up to
** there, or has no stop. */
const char *lp_plain_body(const char *q, const char *e, const char *b, char open);
/* lp_plain_body for a text known to be valid UTF-8 (lp's utf8): every
** sequence is one lp_plain_string takes, so only the stops are looked for,
** sixteen bytes a step, up to e, whose NUL is one (lp's copy): e when
** there is none before it. */
const char *lp_text_body(const char *q, char open);
#endif

/* Whether the string ends at a candidate closing quote (p just past it):
** the cases lp_ends_string does not answer inline. */
bool lp_ends_string_slow(const lp *ps, const char *p, int ctx);

/* A Python triple-quoted string, or a fenced code block written as a
** string value, at ps->p ('*ok' false when there is none: nothing read). */
coax_code lp_parse_triple(lp *ps, coax_value *out, bool *ok);
coax_code lp_parse_fenced(lp *ps, coax_value *out, bool *ok, bool item);
/* A fence at p on its line's start that reads as no fenced string (the
** "code": ```...``` of lp_parse_fenced): the closing fence of a block the
** reply was in, its opener lost ([{"a": 1}, {"a": 2}⏎```), which ends the
** value's text as the reply's end would; read as a string, its backticks
** were an item of their own. So does one glued to the value with nothing
** after it ({"key": "value"```). */
bool lp_fence_ends_value(lp *ps, const char *p);

/* A string with raw control characters in its body, which lp_plain_string
** does not read, as lp_parse_string reads it (NULL when it is not that). */
const char *lp_control_string(lp *ps, const char *p, const char *e, int ctx, coax_value *out);

/* lp_parse_string for a key at ps->p, out of line (for the fast way, which
** inlines it nowhere). */
coax_code lp_parse_key(lp *ps, coax_value *out);

/* Whether a quoted string that ends the way 'ctx' expects starts at p
** (after spaces): a key and its colon in an object, an item and its comma
** or bracket in an array. */
bool lp_item_ahead(const char *p, const char *e, int ctx);

/* ---- lenient_word.c ------------------------------------------------------ */

/* Tries a number at ps->p in the notations models use (+1, .5, 5., 1e):
** '*ok' true and 'out' filled when there is one. */
coax_code lp_try_number(lp *ps, int ctx, coax_value *out, bool *ok);

/* A bare word at ps->p: a literal, a function-call wrapper, an unquoted
** key or string ('*what': W_*). */
coax_code lp_parse_word(lp *ps, int ctx, coax_value *out, int *what);

/* Whether what starts at p makes a missing comma before it the one
** reading: a key and its colon in an object, a value in an array. */
bool lp_member_starts(const char *p, const char *e, bool object);
/* Whether a comma missing before the array item at p has more than one
** reading: after a scalar, a bracket (one typed for a comma?) or, after a
** number, a group of three digits (a thousands group?). */
bool lp_item_in_doubt(const lp *ps, const lopen *top, const char *p);
/* Whether a comma missing before the member or item at p has one reading
** (then logged as inferred, else as invented): parse_one's test, and the
** fast loop's before a quote or a word. */
bool lp_missing_comma_clear(const lp *ps, const lopen *top, const char *p);
/* Whether the text before p, spaces and a comma aside, ends with a string whose text ends with 'c' right before
** its quote ("Ada," "age": the quote and the comma exchanged?). */
bool lp_string_ends_with(const lp *ps, const char *p, char c);
/* Skips spaces, comments and Unicode spaces at ps->p, logging what is not
** JSON (lenient_space.c): parse_one's way past what is not a space or a
** tab, and the fast loop's at a comment before a key. */
void lp_skip_space_slow(lp *ps);
/* An ellipsis ("...", U+2026, U+2025, U+22EF, U+22EE) at p: its length, or 0. */
size_t lp_ellipsis_at(const char *p, const char *e);

/* Appends b..e to ps->sb, invalid UTF-8 replaced with U+FFFD (logged). */
void lp_put_utf8(lp *ps, const char *b, const char *e);

/* ---- lenient_expr.c ------------------------------------------------------ */

/* Whether the unquoted text s..t is code or a number in a notation JSON
** does not read, whose value is not its text: arithmetic ({"a": 0x10 + 1},
** x + 1, pi * 2), a number in Unicode's signs or another script's digits
** (−5, ١٢٣, ½, ∞), a constructor's call (new Date ( )), a literal in
** full-width letters (ｔｒｕｅ), Python's Ellipsis, a number or literal in
** one HTML element (<b>36</b>). */
bool lp_notation_in_doubt(const char *s, const char *t);
/* The unquoted word s..t as its shape's looks read it: in buf (cap bytes)
** with its Unicode spaces one writes for a space as ASCII ones, byte for
** byte ({"v": void<NBSP>0} is code as void 0 is), or s itself when it
** holds none or is too long for buf. Its value is read from s. */
const char *lp_plain_word(const char *s, const char *t, char *buf, size_t cap);

/* ---- lenient_open.c ------------------------------------------------------ */

/* Grows the pending children's stack for one more member (false when out
** of memory). */
bool lp_grow_kids(lp *ps);

/* null for a member whose value is missing: invented, so flagged. */
void lp_fill_null(lp *ps);

/* Closes the innermost container into 'v'. A key still waiting for its
** value gets null ('at_eof': the key is dropped, the value was cut off). */
coax_code lp_close_top(lp *ps, coax_value *v, bool at_eof);

/* coax_members_dedupe's report of a duplicate key of the innermost object. */
void lp_report_dup(void *ud, size_t index, bool differs);

/* A closing bracket 'c' at ps->p while containers are open: closes the
** innermost, or, when 'c' matches one further out, closes everything up
** to it. */
coax_code lp_handle_close(lp *ps, char c, coax_value *v);

/* The layout's looks of the closers waiting (lp_closer_layout), made. */
void lp_closer_looks(lp *ps);

/* Notes (closer_dedented) a closing bracket at 'closer' that closes 'o'
** from a line of its own left of the line 'o' opened on, with a member
** inside no further right than that line: the look is made when
** lp_closer_dedented asks for its answer (or when LP_CLOSERS wait), as
** only a value left open at the end asks, in the order they came. */
static inline void lp_closer_layout(lp *ps, const lopen *o, const char *closer)
{
    /* own_line_indent's answer is no unless spaces or a line break come
    ** before it: nothing to look at later */
    if (closer > ps->b && closer[-1] != ' ' && closer[-1] != '\t' && closer[-1] != '\n') return;
    if (ps->closers == LP_CLOSERS) lp_closer_looks(ps);
    ps->closers_at[ps->closers][0] = o->at;
    ps->closers_at[ps->closers][1] = closer;
    ps->closers++;
}

/* closer_dedented for the value being parsed, after the looks waiting. */
bool lp_closer_dedented(lp *ps);

/* Whether a container left open at the end, inside another, holds a
** member its layout puts outside it. */
bool lp_open_layout(lp *ps);

/* Whether the innermost container left open at the end starts over in
** its last value ({"a": 1, "b": {"a": 1, "b": 2}, [1, 2, [1, 2, 3]). */
bool lp_open_restarts(lp *ps);

/* Whether an object left open at the end opens with a quoted key and holds one without
** quotes at a line's start after it: prose after a lost brace, read as a member. */
bool lp_open_key_style(lp *ps);

/* Whether the innermost container, a list left open and closed at 'closer', may hold a '['
** typed once too often: its one value fits where the list stands ({"a": [1}, [[1, 2]), or its
** last value, a list, closed right before 'closer' ([1, [2, 3], {"a": [1, [2]}). */
bool lp_open_stray(const lp *ps, const char *closer);
/* Whether a list left open at the end holds one list only, opened right after its bracket:
** [["a", "b" is [["a", "b"]] or ["a", "b"] with its bracket typed twice. */
bool lp_open_doubled(const lp *ps);
/* Whether the text of the containers left open at the end reads two ways: a string inside them holds, after its
** text, the closers of every one open around it ({"a": ["x", "y] } (none) {", "z"): its quote may have been lost
** before them; or the last value starts a container further out over ({"a": [1, {"a": [1, 2]}). */
bool lp_open_two_ways(const lp *ps, const char *end);
/* Notes an item at p after a comma missing in the list top: on a new line when all of the list before it is on
** its opener's line ([{"id": 1}, {"id": 2}<LF>{"a": 1}: a third item, or the next document after the list's
** bracket lost?); after a string (lp_pair_closed). */
void lp_line_item(lp *ps, const lopen *top, const char *p);
/* Whether a list so noted is left open at the end: its closing is a guess. */
bool lp_open_line_item(const lp *ps);
/* Whether the innermost list, closed by a brace, ends in a string and a value with the comma between them lost:
** {"choices": ["3", "4", "answer" "4"} may be its bracket lost before a key that lost its colon. */
bool lp_pair_closed(const lp *ps);

/* Whether a container left open at the end had its closer in a comment
** inside it (lenient_space.c marks them). */
static inline bool lp_closer_commented(const lp *ps)
{
    for (size_t k = 0; k < ps->nopens; k++)
        if (ps->opens[k].closer_commented) return true;
    return false;
}

/* ---- lenient_fast.c ------------------------------------------------------ */

/* The state machine's fast way over well-formed stretches inside a
** container (containers open): see lenient_fast.c. */
coax_code lp_fast_stretch(lp *ps);

/* ---- inline: logging, quotes, bytes -------------------------------------- */

/* The offset in the text of 'at': a subtraction (it is taken for every
** key and logged fix). Where b is no place in the text ('exact' false),
** repair_parse sets the offsets this gave in the log and in an error to
** 'base' once it is done. */
static inline size_t off(const lp *ps, const char *at)
{
    return (size_t)((uintptr_t)at - ps->bias);
}

/* Logs a fix of class 'cls'; an invented one flags the value it belongs to. */
static inline void note_as(lp *ps, rkind k, coax_class cls, const char *at)
{
    rlog_add_class(ps->log, k, cls, off(ps, at));
    if (cls == COAX_CLASS_INVENTED) ps->inv = ps->inv_any = true;
}

/* Logs a fix of its kind's usual class. */
static inline void note(lp *ps, rkind k, const char *at)
{
    if (rlog_add(ps->log, k, off(ps, at)) == COAX_CLASS_INVENTED) ps->inv = ps->inv_any = true;
}

/* note with rlog_add's append written out inline: for the fixes the fast
** way logs at almost every token (single quotes), where the calls cost as
** much as the entry (GCC keeps rlog_append out of line there). */
static inline __attribute__((always_inline)) void note_inline(lp *ps, rkind k, const char *at)
{
    rlog *log = ps->log;
    size_t at_off = off(ps, at);
    const rkind_info *info = &rkind_table[k];
    if (__builtin_expect(log->n != log->cap && !log->oom, 1) || rlog_grow(log))
        log->e[log->n++] = (coax_repair_entry){info->name, info->detail, at_off, 0, 0, info->cls};
    if (info->cls == COAX_CLASS_INVENTED) ps->inv = ps->inv_any = true;
}

static inline coax_class class_if(bool invented) { return invented ? COAX_CLASS_INVENTED : COAX_CLASS_INFERRED; }

static inline coax_code nomem(lp *ps)
{
    return coax_fail(ps->err, COAX_ENOMEM, off(ps, ps->p), "out of memory");
}

/* Copies s[0..n) to d: short copies (keys, numbers, words: most of them)
** as two overlapping loads and stores, without a call to memcpy. */
static inline void lp_copy(char *d, const char *s, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n < 4) {
        if (n) {
            d[0] = s[0];
            d[n / 2] = s[n / 2];
            d[n - 1] = s[n - 1];
        }
    } else {
        memcpy(d, s, n);
    }
}

/* Arena memory for what the parser makes (strings not in the copy of the
** text, closed containers), 'align' 1 or 8 (a container's pointers): carved
** from pieces of the arena, the first as large as the text (256 bytes to
** 64 KB) and then doubling to 64 KB, as an arena call each (a broken reply
** has a string every few bytes) costs more than most of them. What is
** larger than half a piece has an arena block of its own. */
static inline __attribute__((always_inline)) void *lp_carve(lp *ps, size_t size, size_t align)
{
    size_t pad = (size_t)(-(uintptr_t)ps->pool & (align - 1));
    if (size + pad > ps->pool_left) {
        if (size > ps->next_piece / 2) return coax_arena_alloc(ps->arena, size);
        char *piece = coax_arena_alloc(ps->arena, ps->next_piece);
        if (!piece) return NULL;
        ps->pool = piece;
        ps->pool_left = ps->next_piece;
        pad = 0;
        if (ps->next_piece < ((size_t)64 << 10)) ps->next_piece *= 2;
    }
    char *p = ps->pool + pad;
    ps->pool = p + size;
    ps->pool_left -= size + pad;
    return p;
}

/* A NUL-terminated copy of s[0..n) in the arena. */
static inline char *lp_strdup(lp *ps, const char *s, size_t n)
{
    char *d = lp_carve(ps, n + 1, 1);
    if (!d) return NULL;
    lp_copy(d, s, n);
    d[n] = '\0';
    return d;
}

/* JSON's whitespace and \f, \v, as a table. */
static const uint8_t ws_tab[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1, ['\v'] = 1};

/* The end of a run of JSON whitespace (ws_tab) at p: indentation runs are
** read sixteen bytes at a time. */
static inline const char *skip_ws_run(const char *p, const char *e)
{
#if BYTES16
    while (e - p >= 16) {
        unsigned other = ~bytes16_space(bytes16_load(p)) & 0xFFFFu;
        if (other) return p + __builtin_ctz(other);
        p += 16;
    }
#endif
    while (p < e && ws_tab[(unsigned char)*p]) p++;
    return p;
}

/* Past JSON's whitespace, the Unicode blanks (coax_blank_at: U+00A0,
** U+3000, ...) and characters shown as nothing at p: a look at what
** follows a token reads a no-break space as a space ("a", U+00A0, + "b"
** joins as "a" + "b" does). */
static inline const char *lp_space_end(const char *p, const char *e)
{
    for (size_t n;; p += n) {
        p = skip_ws_run(p, e);
        n = p < e && (unsigned char)*p >= 0xC2 ? repair_viewed_space(p, e) : 0;
        if (!n) return p;
    }
}

/* ASCII letters, digits, '_' and '$', as a table: words are read a byte
** at a time. */
static const uint8_t ident_tab[256] = {
    ['$'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
    ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
    ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1,
    ['Z'] = 1, ['_'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
    ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
    ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1,
    ['z'] = 1,
};

static inline bool is_ident(unsigned char c) { return ident_tab[c]; }

static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The end of the comment at p (below e): a line comment ('//' or '#')
** stops at its new line, a block comment ends past its close. p when no
** comment starts there; *closed false when it runs to e without its new
** line or its close. */
static inline const char *lp_comment_end(const char *p, const char *e, bool *closed)
{
    *closed = true;
    if (p < e && (*p == '#' || (p + 1 < e && p[0] == '/' && p[1] == '/'))) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        *closed = nl != NULL;
        return nl ? nl : e;
    }
    if (p + 1 < e && p[0] == '/' && p[1] == '*') {
        const char *q = p + 2;
        while (q + 1 < e && !(q[0] == '*' && q[1] == '/')) q++;
        *closed = q + 1 < e;
        return *closed ? q + 2 : e;
    }
    return p;
}

/* Recognises a quote character at p: returns its length (0 if none) and
** its code point. */
static inline size_t quote_at(const char *p, const char *e, uint32_t *q)
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
static inline bool closes(uint32_t open, uint32_t c)
{
    switch (open) {
    case '"': return c == '"';
    case '\'': return c == '\'';
    case '`': return c == '`';
    case 0x201C: case 0x201D: return c == 0x201D || c == '"' || c == 0x201C;
    default: return c == 0x2019 || c == '\'' || c == 0x2018; /* U+2018, U+2019 */
    }
}

/* ---- inline: strings the quick way --------------------------------------- */

/* After a candidate closing quote (p just past it, e: ps->e, which the
** caller has at hand): does the string end? It does when structure that
** can apply here follows, or another value (a missing comma), or a line
** break; otherwise the quote is taken as an unescaped quote inside the
** string ("He said "hi" to me"). */
static inline bool lp_ends_string(const lp *ps, const char *p, const char *e, int ctx)
{
    /* p at e reads the text's NUL (the copy's, lp): no test for e first */
    if (ctx == CTX_KEY) /* "k"e"y": a key's inner quote is followed at once; mostly by its colon */
        return *p == ':' || !is_ident((unsigned char)*p);
    /* Mostly a comma or colon at once, or a closing bracket, maybe after
    ** spaces and a line break: lp_ends_string_slow's answers for them. */
    if (*p == ',' || *p == ':') return true;
    const char *r = ws_tab[(unsigned char)*p] ? skip_ws_run(p, e) : p;
    if (r >= e || *r == ',' || *r == ':') return true;
    if (*r == '}' || *r == ']') return ps->nopens > 0;
    return lp_ends_string_slow(ps, p, ctx);
}


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

/* The first byte at or after p (below e) that plain_not marks, or e. */
static inline const char *lp_plain_scan(const char *p, const char *e)
{
#if BYTES16
    while (e - p >= 16) {
        __m128i w = bytes16_load(p);
        /* signed: "below 0x20" takes the control bytes and every byte from 0x80 */
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')),
                                                 _mm_cmpeq_epi8(w, _mm_set1_epi8('\''))),
                                    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('`')),
                                                              _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))),
                                                 _mm_cmplt_epi8(w, _mm_set1_epi8(0x20))));
        unsigned m = (unsigned)_mm_movemask_epi8(stop);
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
#else
    while (e - p >= 4 && !(plain_not[(unsigned char)p[0]] | plain_not[(unsigned char)p[1]] |
                           plain_not[(unsigned char)p[2]] | plain_not[(unsigned char)p[3]]))
        p += 4;
#endif
    while (p < e && !plain_not[(unsigned char)*p]) p++;
    return p;
}

/* The length of the valid UTF-8 sequence at p (below e), or 0: the two- and
** three-byte sequences that need no range check inline, as
** coax_utf8_decode answers them. */
static inline size_t lp_utf8_len(const char *s, const char *e)
{
    const unsigned char *p = (const unsigned char *)s;
    if (e - s >= 3) {
        if (p[0] >= 0xC2 && p[0] <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
        if (p[0] >= 0xE1 && p[0] <= 0xEF && p[0] != 0xED && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80)
            return 3;
    }
    uint32_t cp;
    return coax_utf8_decode(p, (size_t)(e - s), &cp);
}

/* Where the body of a string opened with the one-byte quote 'open' stops
** being copyable as it is: its closing quote, or a byte that needs decoding
** (a backslash, a control character, invalid UTF-8), or e. Plain bytes, valid
** UTF-8 and quotes of other styles are passed over ('*plain' false after
** either of the last two). Sixteen bytes at a time, each stop in a block
** read from its bit mask. */
static inline const char *lp_quick_body(const char *q, const char *e, char open, bool *plain)
{
#if BYTES16
    while (e - q >= 16) {
        __m128i w = bytes16_load(q);
        unsigned high = (unsigned)_mm_movemask_epi8(w);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')), _mm_cmpeq_epi8(w, _mm_set1_epi8('\''))),
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('`')), _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))),
                         _mm_cmplt_epi8(w, _mm_set1_epi8(0x20))))); /* signed: controls and bytes from 0x80 */
        const char *next = q + 16;
        while (m) {
            unsigned k = (unsigned)__builtin_ctz(m);
            char b = q[k];
            if (high >> k & 1) {
                size_t n = lp_utf8_len(q + k, e);
                if (!n) return q + k;
                *plain = false;
                m &= ~(((1u << n) - 1) << k); /* its continuation bytes */
                if (q + k + n > next) next = q + k + n;
            } else if (b != open && (b == '"' || b == '\'' || b == '`')) {
                *plain = false;
                m &= m - 1;
            } else {
                return q + k; /* the closing quote, a backslash or a control character */
            }
        }
        q = next;
    }
#endif
    for (;;) {
        q = lp_plain_scan(q, e);
        if (q >= e || *q == open) return q;
        unsigned char c = (unsigned char)*q;
        size_t n = c == '"' || c == '\'' || c == '`' ? 1 /* another quote style: a character */
                   : c >= 0x80 ? lp_utf8_len(q, e)
                               : 0; /* a backslash or a control character */
        if (!n) return q;
        *plain = false;
        q += n;
    }
}

/* The reply's own byte for the one at p in the bytes parsed (which read its
** Unicode spaces outside strings as ASCII ones: repair_read_view): where a
** value's text is copied from. */
static inline const char *lp_orig(const lp *ps, const char *p) { return (const char *)((uintptr_t)p + ps->to_orig); }

/* The text of s[0..n) (within the bytes parsed, s + n at most e): its
** place in the arena's copy of them, ended there with a NUL over the byte
** after it (a closing quote, a delimiter, the copy's last byte), which no
** other token's text holds. Plain tokens cost no copy of their own. */
static inline char *lp_text(lp *ps, const char *s, size_t n)
{
    char *t = (char *)((uintptr_t)s + ps->to_copy); /* copy + (s - b), one load */
    t[n] = '\0';
    return t;
}

/* Parses a string at ps->p (on its opening quote) into 'out': inline the
** common case, plain bytes and valid UTF-8 up to a one-byte closing quote
** that ends it; lp_parse_string_slow the rest. */
static inline coax_code lp_parse_string(lp *ps, int ctx, coax_value *out)
{
    uint32_t open = 0; /* set by quote_at: the caller stands on a quote */
    size_t qn = quote_at(ps->p, ps->e, &open);
    const char *at = ps->p;
    if (open == '\'') note(ps, RK_SINGLE_QUOTES, at);
    else if (open != '"' && open != '`') note(ps, RK_TYPOGRAPHIC_QUOTES, at);
    const char *body = ps->p + qn;
    if (open == '`') return lp_parse_template(ps, ctx, out, at, body);
    if (qn == 1) {
        const char *e = ps->e;
        bool plain = true; /* nothing but plain_not's plain bytes */
        const char *q = lp_quick_body(body, e, (char)open, &plain);
        if (q < e && *q == (char)open && lp_ends_string(ps, q + 1, e, ctx)) {
            size_t n = (size_t)(q - body);
            if (n > ps->lim.max_string)
                return coax_fail(ps->err, COAX_ESTRING, off(ps, at), "string longer than %zu bytes",
                                 ps->lim.max_string);
            memset(out, 0, sizeof *out);
            out->type = COAX_STRING;
            out->len = (uint32_t)n;
            out->u.text = lp_text(ps, body, n);
            /* As the slow way does; this way took only plain double-quoted
            ** keys once, and never flagged them. */
            if (ctx == CTX_KEY && ps->inv && (open != '"' || !plain)) out->flags |= COAX_VF_INVENTED;
            ps->p = q + 1;
            return COAX_OK;
        }
    }
    return lp_parse_string_slow(ps, ctx, out, open, at, body);
}

/* ---- inline: spaces, children, flags ------------------------------------- */

/* Bytes that may begin whitespace or a comment outside strings. */
static const uint8_t space_start[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1, ['\v'] = 1, ['/'] = 1, ['#'] = 1,
    [0xC2] = 1, [0xCD] = 1, [0xD8] = 1, [0xE1] = 1, [0xE2] = 1, [0xE3] = 1, [0xEF] = 1, [0xF0] = 1, [0xF3] = 1,
}; /* the lead bytes: a Unicode blank's, a character's shown as nothing (coax_invisible_at) */

/* Whether what follows a string, past its spaces at r, may go on with it
** (mostly a comma follows): a '+' ("a" + "b", which parse_one joins) or a
** comment or a Unicode space, which parse_one's look for a '+' passes. */
static inline bool lp_string_goes_on(const char *r, const char *e)
{
    return r < e && *r != ',' && (*r == '+' || space_start[(unsigned char)*r]);
}

/* Whether the value about to start belongs to a member whose key was
** guessed (only after an invented repair in this value: the common case
** costs one test). */
static inline bool under_invented_key(const lp *ps)
{
    if (!ps->inv_any || !ps->nopens) return false;
    const lopen *top = &ps->opens[ps->nopens - 1];
    return top->object && top->key_invented;
}

/* A value just completed: flagged when an invented repair made it, or it
** lies inside an invented container or under an invented key. */
static inline void flag_value(lp *ps, coax_value *v)
{
    if (!ps->inv_any) return; /* no invented repair in this value yet */
    if (ps->inv || ps->inv_opens || under_invented_key(ps)) v->flags |= COAX_VF_INVENTED;
    ps->inv = false;
}

/* The duplicate-key filter's bits (json/key_bits.h) with a key's: NUL-terminated, so key[0] is
** there; an empty key reads it twice. */
static inline uint64_t key_bits(uint64_t bits, const char *key, size_t klen)
{
    const unsigned char *k = (const unsigned char *)key;
    return coax_key_bits_set(bits, COAX_KEY_BIT(k[0], k[klen ? klen - 1 : 0], klen));
}

/* Room for one more child, a member or an item, on the pending stack
** (false when out of memory). */
static inline __attribute__((always_inline)) bool kid_room(lp *ps)
{
    return __builtin_expect(ps->kid_top <= ps->kid_last, 1) || lp_grow_kids(ps);
}

/* The innermost container's last child: an array's last item, or the
** value of an object's last member. */
static inline coax_value *last_kid_value(lp *ps) { return (coax_value *)ps->kid_top - 1; }

/* A member whose value is to come (null until it does) for key[0..klen),
** with the offset of the key's start ('invented': the key was guessed). */
static inline __attribute__((always_inline)) coax_code push_member(lp *ps, lopen *o, const char *key, uint32_t klen,
                                                                   size_t koff, bool invented)
{
    if (!kid_room(ps)) return nomem(ps);
    coax_member *m = (coax_member *)ps->kid_top;
    uint64_t klen_koff = klen | (uint64_t)(uint32_t)koff << 32; /* one store for both */
    m->key = key;
    memcpy((char *)m + offsetof(coax_member, klen), &klen_koff, sizeof klen_koff);
    memset(&m->value, 0, sizeof m->value);
    ps->kid_top += sizeof(coax_member);
    o->key_invented = invented;
    o->keys = key_bits(o->keys, key, klen);
    return COAX_OK;
}

/* A key (a string value) read by the state machine, as push_member. */
static inline coax_code push_key(lp *ps, const coax_value *key, size_t koff)
{
    return push_member(ps, &ps->opens[ps->nopens - 1], key->u.text, key->len, koff,
                       key->flags & COAX_VF_INVENTED);
}

/* A value completed inside the innermost container 'top': an array's new
** item, or the value of the object's last member. */
static inline __attribute__((always_inline)) coax_code put_kid(lp *ps, const lopen *top, const coax_value *v)
{
    if (!top->object) {
        if (!kid_room(ps)) return nomem(ps);
        ps->kid_top += sizeof(coax_value);
    }
    *last_kid_value(ps) = *v;
    return COAX_OK;
}

/* Opens a container at ps->p (its depth checked against the limit). */
static inline coax_code lp_push_open(lp *ps, bool object)
{
    if (ps->nopens + 1 >= ps->lim.max_depth) { /* one test on the way for both */
        if (ps->nopens >= ps->lim.max_depth)
            return coax_fail(ps->err, COAX_EDEPTH, off(ps, ps->p), "nesting deeper than %zu",
                             ps->lim.max_depth);
        ps->at_limit = true; /* a list of values cannot wrap this one (repair.c) */
    }
    if (ps->nopens == ps->copens &&
        !coax_grow(ps->alloc, (void **)&ps->opens, &ps->copens, ps->nopens + 1, sizeof(lopen), ps->first_opens))
        return nomem(ps);
    bool invented = ps->inv_any && (ps->inv || ps->inv_opens || under_invented_key(ps));
    ps->opens[ps->nopens++] = (lopen){(size_t)(ps->kid_top - ps->kids), 0, object, invented, false, false, 0, ps->p};
    if (invented) {
        ps->inv = false;
        ps->inv_opens++;
    }
    return COAX_OK;
}

/* Copies a closed container's children (a multiple of 16 bytes): up to
** 48 bytes (an item or three, a member) 32 bytes a step, GCC would call
** memcpy for a plain loop, hence the empty asm; from 64 bytes memcpy,
** whose wide steps cost less than this loop's (the broken replies 14.57 ->
** 14.49 instructions a byte; from 128 bytes 14.50, from 256 14.60). */
static inline void lp_copy_kids(char *restrict d, const char *restrict s, size_t bytes)
{
#if BYTES16
    if (bytes >= 64) {
        memcpy(d, s, bytes);
        return;
    }
    size_t i = 0;
    for (; i + 32 <= bytes; i += 32) {
        __m128i lo = bytes16_load(s + i), hi = bytes16_load(s + i + 16);
        _mm_storeu_si128((__m128i *)(d + i), lo);
        _mm_storeu_si128((__m128i *)(d + i + 16), hi);
        __asm__("" : "+r"(d));
    }
    if (i < bytes) _mm_storeu_si128((__m128i *)(d + i), bytes16_load(s + i));
#else
    memcpy(d, s, bytes);
#endif
}

/* Closes the innermost container into 'v' once no key waits for its value
** (lp_close_top's way after that): its children copied into the arena
** as one block, an object's keys searched for duplicates when their key
** bits collide. */
static inline __attribute__((always_inline)) coax_code lp_close_children(lp *ps, const lopen *o, coax_value *v)
{
    /* o: the innermost, ps->opens[ps->nopens - 1] */
    const char *kids = ps->kids + o->base; /* never NULL: first_kids at the start */
    size_t bytes = (size_t)(ps->kid_top - kids);
    char *block = lp_carve(ps, bytes ? bytes : 8, 8);
    if (!block) return nomem(ps);
    lp_copy_kids(block, kids, bytes);
    memset(v, 0, sizeof *v);
    if (o->object) {
        size_t n = bytes / sizeof(coax_member);
        size_t k = o->keys == UINT64_MAX ? coax_members_dedupe((coax_member *)block, n, ps->alloc, lp_report_dup, ps)
                                         : n;
        if (k == SIZE_MAX) return nomem(ps);
        v->type = COAX_OBJECT;
        v->len = k;
        v->u.members = (coax_member *)block;
    } else {
        v->type = COAX_ARRAY;
        v->len = bytes / sizeof(coax_value);
        v->u.items = (coax_value *)block;
    }
    if (o->invented) {
        v->flags |= COAX_VF_INVENTED;
        ps->inv_opens--;
    }
    ps->kid_top = ps->kids + o->base;
    ps->nopens--;
    ps->st = ST_AFTER;
    return COAX_OK;
}

#endif
