/*
** lenient.h: the lenient parser's state (internal), shared by its files,
** each calling only those below it:
**   lenient.c          repair_parse: the state machine over an explicit
**                      stack of open containers, spaces and comments
**   lenient_string.c   strings in any quote style, where a string really
**                      ends, escapes, block strings (triple quotes, fences)
**   lenient_word.c     numbers in other notations, literals, bare words
**                      (unquoted keys and strings, function-call wrappers),
**                      the look-ahead that tells what comes next, and text
**                      copied as valid UTF-8
** What every byte or token goes through (logging a fix, reading a quote
** character, copying a string into the arena) is inline here.
*/
#ifndef COAX_REPAIR_LENIENT_H
#define COAX_REPAIR_LENIENT_H

#include "repair/repair.h"

/* What the state machine expects next: a value, what follows one (a comma
** or a closing bracket), a key, or a key's colon. */
enum { ST_VALUE, ST_AFTER, ST_KEY, ST_COLON };
/* Where a string or word stands: an array item or top-level value, an
** object member's value, a key. */
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
    char *pool;             /* lp_strdup's block of the arena, and what is left of it */
    size_t pool_left;
    /* Last (not cleared when the state is set up): the first blocks of the
    ** slots and open containers; most replies need no more. */
    lslot first_slots[32];
    lopen first_opens[8];
} lp;

/* What lp_parse_word read: a value, nothing (a character skipped), a
** function-call wrapper opened, or a word where no value can start. */
enum { W_VALUE, W_NONE, W_CALL, W_STOP };

/* ---- lenient_string.c ---------------------------------------------------- */

/* Parses a string at ps->p (on its opening quote) into 'out'. */
coax_code lp_parse_string(lp *ps, int ctx, coax_value *out);

/* A Python triple-quoted string, or a fenced code block written as a
** string value, at ps->p ('*ok' false when there is none: nothing read). */
coax_code lp_parse_triple(lp *ps, coax_value *out, bool *ok);
coax_code lp_parse_fenced(lp *ps, coax_value *out, bool *ok);

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

/* Appends b..e to ps->sb, invalid UTF-8 replaced with U+FFFD (logged). */
void lp_put_utf8(lp *ps, const char *b, const char *e);

/* ---- inline: logging, quotes, bytes -------------------------------------- */

static inline size_t off(const lp *ps, const char *at)
{
    return ps->exact ? ps->base + (size_t)(at - ps->b) : ps->base;
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

/* A NUL-terminated copy of s[0..n) in the arena: short strings are carved
** from blocks of LP_POOL bytes, as one arena call per string (a broken
** reply has one every few bytes) cost more than the copy. */
enum { LP_POOL = 256 };
static inline char *lp_strdup(lp *ps, const char *s, size_t n)
{
    if (n >= ps->pool_left) {
        if (n >= LP_POOL / 4) return coax_arena_strdup(ps->arena, n ? s : "", n);
        ps->pool = coax_arena_alloc(ps->arena, LP_POOL);
        ps->pool_left = ps->pool ? LP_POOL : 0;
        if (!ps->pool) return NULL;
    }
    char *d = ps->pool;
    lp_copy(d, s, n);
    d[n] = '\0';
    ps->pool += n + 1;
    ps->pool_left -= n + 1;
    return d;
}

/* JSON's whitespace and \f, \v, as a table. */
static const uint8_t ws_tab[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1, ['\v'] = 1};

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

#endif
