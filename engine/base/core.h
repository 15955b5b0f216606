/*
** core.h: internals shared by the engine's files (not installed).
** Allocation helpers, the arena, a growable byte buffer and the JSON value
** layout. Hosts use coax.h only.
*/
#ifndef COAX_CORE_H
#define COAX_CORE_H

#include "coax.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The concrete value layout behind the opaque coax_value. Arrays hold their
** items and objects their members contiguously, so a value is 16 bytes, a
** member 32, and walking a container touches one block. Lengths are 32-bit:
** coax_limits_resolve keeps max_input below 4 GiB, which bounds them all. */
typedef struct coax_member coax_member;

struct coax_value {
    uint8_t type;   /* coax_type */
    uint8_t flags;  /* COAX_VF_* */
    uint32_t len;   /* bytes of text, or items/members of a container */
    union {
        const char *text;     /* COAX_NUMBER, COAX_STRING (NUL-terminated) */
        coax_value *items;    /* COAX_ARRAY */
        coax_member *members; /* COAX_OBJECT */
        int boolean;          /* COAX_BOOL */
    } u;
};

struct coax_member {
    const char *key; /* NUL-terminated, valid UTF-8 */
    uint32_t klen;
    coax_value value;
};

/* A value in two 8-byte stores: the word of type, flags and length (its
** padding zero, as a memset would leave it) and the payload. A value read
** back whole (16 bytes, or 8) right after it was written in smaller
** stores waits for them to reach the cache: a load is forwarded from one
** store only (the parsers' children, read back when their container
** closes or, in the lenient one, copied into place at once). */
static inline void coax_put_value(coax_value *v, unsigned type, unsigned flags, uint32_t len, uint64_t payload)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t head = type | flags << 8 | (uint64_t)len << 32;
    memcpy(v, &head, 8);
    memcpy((char *)v + 8, &payload, 8);
#else
    memset(v, 0, sizeof *v);
    v->type = (uint8_t)type;
    v->flags = (uint8_t)flags;
    v->len = len;
    if (type == COAX_BOOL) v->u.boolean = (int)payload;
    else v->u.text = (const char *)(uintptr_t)payload;
#endif
}

/* *d = *s as two 8-byte words, each load forwarded from coax_put_value's
** store of it (a 16-byte copy, which GCC makes of a struct assignment,
** spans both and waits). */
static inline void coax_copy_value(coax_value *d, const coax_value *s)
{
    uint64_t head, payload;
    memcpy(&head, s, 8);
    memcpy(&payload, (const char *)s + 8, 8);
    __asm__("" : "+r"(head), "+r"(payload)); /* opaque: kept two words, not merged into one vector copy */
    memcpy(d, &head, 8);
    memcpy((char *)d + 8, &payload, 8);
}

#define COAX_VF_INT_TEXT 1u /* number text has no fraction or exponent */
/* The value, or the key of the member holding it, exists only because a
** repair of class COAX_CLASS_INVENTED guessed it: no coercion may drop,
** rename or fill it, and a candidate holding one is not accepted unless
** the caller allows invented repairs. */
#define COAX_VF_INVENTED 2u
/* A number whose text a repair rewrote (+1, .5, 5., 12,111): its JSON text
** is not what the model wrote, so it is never made a string (a phone
** number's '+' would be lost). */
#define COAX_VF_REWRITTEN 4u
/* A number read with thousands separators ("n": 1,234): its commas may as
** well separate items (1 and 234), so it is never wrapped into a list. */
#define COAX_VF_GROUPED 8u
/* A string a repair read from text without quotes (unquoted_string): the
** brackets around it may be its own text ("[insert name here]", a
** placeholder) as well as a list's, so it is never unwrapped from one. */
#define COAX_VF_UNQUOTED 0x10u
/* Private to one coercion (coerce.c): this container's items or members
** block was copied by it and may be written in place. Cleared before the
** coercion returns. */
#define COAX_VF_COERCE_OWNED 0x80u

/* Allocation through a possibly-NULL allocator. */
void *coax_alloc_raw(const coax_allocator *a, size_t size);
void *coax_realloc_raw(const coax_allocator *a, void *p, size_t old_size,
                       size_t size);
void coax_free_raw(const coax_allocator *a, void *p, size_t size);
/* Whether a host's allocator lacks one of its functions (a host that set
** malloc and free only): refused where it is handed over, not called. */
bool coax_allocator_incomplete(const coax_allocator *a);

/* Room for 'need' elements of 'elem' bytes in the array *arr of capacity
** *cap: the capacity doubles (from 32 when it is 0) until they fit. 'first'
** is the block the array started in, the caller's own (copied out of,
** never freed: most calls need no more than it holds, and no allocation),
** or NULL. false, *arr kept, when memory ran out. */
bool coax_grow(const coax_allocator *a, void **arr, size_t *cap, size_t need, size_t elem, void *first);

/* The arena. Memory comes in chunks; coax_arena_alloc never fails silently:
** it returns NULL, and callers return COAX_ENOMEM.
** coax_arena_allocator lends blocks freed one by one (scratch arrays,
** buffers) from the arena's own cache of blocks, so they are reused call
** after call too. A loan is freed through the same allocator before the
** arena is freed (or adopted, coax_arena_adopt); a reset leaves loans
** alone. */
const coax_allocator *coax_arena_allocator(const coax_arena *arena);
void *coax_arena_alloc(coax_arena *arena, size_t size); /* 8-byte aligned */
/* Room for 'size' bytes in the chunk coax_arena_alloc carves from next,
** one block taken now when it lacks them: the allocations that follow,
** up to that many bytes, cost no block each (false: out of memory). */
bool coax_arena_reserve(coax_arena *arena, size_t size);
char *coax_arena_strdup(coax_arena *arena, const char *s, size_t len);

/* Arena marks: everything allocated after a mark is freed by rewinding to
** it (a failed attempt gives its memory back). Blocks adopted after the
** mark are not covered: adopt only what the result keeps. */
typedef struct coax_arena_mark {
    size_t serial, used;
    const void *head;
} coax_arena_mark;
coax_arena_mark coax_arena_get_mark(const coax_arena *arena);
void coax_arena_rewind(coax_arena *arena, coax_arena_mark mark);

/* Hands 'block' (from the arena's allocator, 'size' bytes) to the arena,
** which frees it with everything else. Returns false when out of memory
** (the caller still owns the block). */
bool coax_arena_adopt(coax_arena *arena, void *block, size_t size);

/* A growable byte buffer. On allocation failure it sets 'oom' and keeps
** what it has; check 'oom' once after a series of appends. */
typedef struct coax_buf {
    char *data;
    size_t len, cap;
    bool oom;
    const coax_allocator *alloc;
} coax_buf;

void coax_buf_init(coax_buf *b, const coax_allocator *alloc);
void coax_buf_free(coax_buf *b);
bool coax_buf_reserve(coax_buf *b, size_t extra);
/* The growing path of coax_buf_put; callers use coax_buf_put. */
void coax_buf_put_grow(coax_buf *b, const void *data, size_t len);

/* Appends are inline when they fit: the writers put a token or two at a
** time (a key, a quote, a comma), and a call for each was a fifth of
** writing a value. The test keeps room for the NUL coax_buf_take adds. */
static inline void coax_buf_put(coax_buf *b, const void *data, size_t len)
{
    if (!b->oom && b->len + len < b->cap) {
        if (len) memcpy(b->data + b->len, data, len); /* data may be NULL when len is 0 */
        b->len += len;
    } else {
        coax_buf_put_grow(b, data, len);
    }
}

static inline void coax_buf_putc(coax_buf *b, char c)
{
    if (!b->oom && b->len + 1 < b->cap) b->data[b->len++] = c;
    else coax_buf_put_grow(b, &c, 1);
}

static inline void coax_buf_puts(coax_buf *b, const char *s) { coax_buf_put(b, s, strlen(s)); }
void coax_buf_printf(coax_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends a JSON string literal (quotes and escapes) of s[0..len). */
void coax_buf_put_json_string(coax_buf *b, const char *s, size_t len);
/* Hands the buffer's bytes (NUL-terminated) to the caller. */
char *coax_buf_take(coax_buf *b, size_t *len);

/* The value of the hexadecimal digit 'c', or -1. */
static inline int coax_hex_digit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The four hexadecimal digits at 's' (the caller made sure there are four
** bytes) as a number in '*out'; false when one is not a digit. */
static inline bool coax_hex4(const char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = coax_hex_digit(s[i]);
        if (h < 0) return false;
        v = (v << 4) | (uint32_t)h;
    }
    *out = v;
    return true;
}

/* The byte a JSON escape \c stands for, c one of " \\ / b f n r t; -1 for
** any other c (\u is the caller's: four hex digits follow). */
static inline int coax_json_escape_byte(unsigned char c)
{
    switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return -1;
    }
}

/* The code point of the UTF-16 surrogate pair hi (D800-DBFF), lo (DC00-DFFF). */
static inline uint32_t coax_utf16_pair(uint32_t hi, uint32_t lo)
{
    return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

/* Fills 'err' (which may be NULL) and returns 'code'. */
coax_code coax_fail(coax_error *err, coax_code code, size_t offset,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* coax_fail for a caller that takes the message's arguments itself. */
coax_code coax_failv(coax_error *err, coax_code code, size_t offset, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
/* Inserts 'words' into err->msg at byte 'at' (at most its length: the end
** appends), where the whole still fits; a message too long keeps its own
** words, which still say what failed. */
void coax_error_insert(coax_error *err, size_t at, const char *words);
/* Computes err->line and err->column from err->offset within text. */
void coax_error_locate(coax_error *err, const char *text, size_t len);
/* Line and code-point column (both 1-based) of 'offset' in text. */
void coax_locate(const char *text, size_t len, size_t offset, uint32_t *line,
                 uint32_t *column);

/* Resolves a possibly-NULL limits pointer and zero fields to defaults. */
coax_limits coax_limits_resolve(const coax_limits *limits);

/* UTF-8. coax_utf8_valid checks RFC 3629 (no overlongs, no surrogates).
** coax_utf8_decode reads one code point at s (n bytes available) and returns
** its length, or 0 if the sequence is invalid. */
bool coax_utf8_valid(const char *s, size_t len);
size_t coax_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
size_t coax_utf8_encode(uint32_t cp, char out[4]);
/* Copies 'len' bytes to 'out' (room for 3 * len) with every byte that does
** not begin a valid sequence replaced by U+FFFD; returns the length written. */
size_t coax_utf8_replace(const char *s, size_t len, char *out);
/* Writes the n bytes of s to f with each control character but newline and
** tab shown as \u00XX, not sent (C0, DEL and, in UTF-8, C1): the messages a
** terminal shows quote recipes, replies and providers' error bodies, and an
** escape sequence in them acted there (OSC 52 sets the clipboard). */
void coax_fput_shown(FILE *f, const char *s, size_t n);
/* Where s holds its first control character, C0 or DEL but a tab, LF or CR
** (a NUL, an ESC) or C1 (U+0080..U+009F, two bytes): no text a writer types;
** len when it holds none. */
size_t coax_control_byte(const char *s, size_t len);
/* The byte length of a character at p (below e) a text shows as nothing,
** Unicode's default ignorable code points (U+200B..U+200F, U+202A..U+202E,
** U+2060..U+206F, U+00AD, U+FEFF, U+FE00..U+FE0F, U+180B..U+180F, tags
** U+E0000..U+E0FFF and the rest), or 0: valid UTF-8 alone. */
static inline size_t coax_invisible_at(const char *p, const char *e)
{
    const unsigned char *u = (const unsigned char *)p;
    /* the lead bytes C2, CD, D8, E1, E2, E3, EF, F0, F3 as bits from 0xC0: one test for the rest */
    if (e - p < 2 || u[0] < 0xC2 || !((0x0009800E01002004ull >> (u[0] - 0xC0)) & 1)) return 0;
    size_t n = (size_t)(e - p);
    unsigned b1 = u[1], b2 = n >= 3 ? u[2] : 0;
    switch (u[0]) {
    case 0xC2: return b1 == 0xAD ? 2 : 0; /* U+00AD soft hyphen */
    case 0xCD: return b1 == 0x8F ? 2 : 0; /* U+034F combining grapheme joiner */
    case 0xD8: return b1 == 0x9C ? 2 : 0; /* U+061C Arabic letter mark */
    case 0xE1: /* U+115F, U+1160 Hangul fillers; U+17B4, U+17B5 Khmer vowels; U+180B..U+180F Mongolian */
        return (b1 == 0x85 && (b2 == 0x9F || b2 == 0xA0)) || (b1 == 0x9E && (b2 == 0xB4 || b2 == 0xB5)) ||
                       (b1 == 0xA0 && b2 >= 0x8B && b2 <= 0x8F)
                   ? 3
                   : 0;
    case 0xE2: /* U+200B..U+200F, U+202A..U+202E, U+2060..U+206F */
        return (b1 == 0x80 && ((b2 >= 0x8B && b2 <= 0x8F) || (b2 >= 0xAA && b2 <= 0xAE))) ||
                       (b1 == 0x81 && b2 >= 0xA0 && b2 <= 0xAF)
                   ? 3
                   : 0;
    case 0xE3: return b1 == 0x85 && b2 == 0xA4 ? 3 : 0; /* U+3164 Hangul filler */
    case 0xEF: /* U+FE00..U+FE0F variation selectors, U+FEFF, U+FFA0, U+FFF0..U+FFF8 */
        return (b1 == 0xB8 && b2 >= 0x80 && b2 <= 0x8F) || (b1 == 0xBB && b2 == 0xBF) ||
                       (b1 == 0xBE && b2 == 0xA0) || (b1 == 0xBF && b2 >= 0xB0 && b2 <= 0xB8)
                   ? 3
                   : 0;
    case 0xF0: /* U+1BCA0..U+1BCA3 shorthand format controls, U+1D173..U+1D17A musical format */
        if (n < 4) return 0;
        return (b1 == 0x9B && b2 == 0xB2 && u[3] >= 0xA0 && u[3] <= 0xA3) ||
                       (b1 == 0x9D && b2 == 0x85 && u[3] >= 0xB3 && u[3] <= 0xBA)
                   ? 4
                   : 0;
    case 0xF3: /* U+E0000..U+E0FFF tags, variation selectors supplement */
        return n >= 4 && b1 == 0xA0 && b2 >= 0x80 && b2 <= 0xBF && u[3] >= 0x80 && u[3] <= 0xBF ? 4 : 0;
    default: return 0;
    }
}
/* len less the characters shown as nothing that end s: where the text
** ends as one sees it ({"n": 36<U+200B> ends on the number, maybe cut). */
size_t coax_invisible_end(const char *s, size_t len);
/* Past the characters shown as nothing that start s[0..len) (a BOM). */
size_t coax_invisible_start(const char *s, size_t len);

/* The decimal digits of u in out (room for 20; no NUL), as "%llu" prints
** them; returns their count. Without printf: paths and events write many. */
static inline size_t coax_decimal(char *out, uint64_t u)
{
    char d[20];
    size_t k = 0, n = 0;
    do d[k++] = (char)('0' + u % 10), u /= 10;
    while (u);
    while (k) out[n++] = d[--k];
    return n;
}

/* ASCII classes, unlike <ctype.h>'s, which follow the host's LC_CTYPE (under
** Latin-1, tolower turns UTF-8's lead byte 0xC3 into 0xE3). */
static inline bool coax_ascii_alpha(int c) { return (unsigned)((c | 0x20) - 'a') < 26; }
static inline bool coax_ascii_alnum(int c) { return coax_ascii_alpha(c) || (unsigned)(c - '0') < 10; }
static inline bool coax_ascii_space(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static inline int coax_ascii_lower(int c) { return (unsigned)(c - 'A') < 26 ? c + 32 : c; }
/* Whether the byte c is one of set's: strchr's answer without its NUL, which
** strchr finds in every set (a reply's NUL byte read as a space or a mark). */
static inline bool coax_byte_in(const char *set, int c) { return c != 0 && strchr(set, c) != NULL; }
/* strncasecmp's 0 in ASCII (under tr_TR, strncasecmp's 'I' is not 'i'). */
static inline bool coax_ascii_casesame(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (coax_ascii_lower((unsigned char)a[i]) != coax_ascii_lower((unsigned char)b[i])) return false;
    return true;
}

/* Blanks: what parts two words on a line. A space, a tab, \f, \v, and the
** Unicode spaces a model or a copied text puts there (U+00A0 no-break,
** U+1680, U+2000-U+200A, U+202F, U+205F, U+3000 ideographic). A run of
** them reads as one space: every look that asks for "a space" between
** words asks for a run (void 0, void⇥0 and void  0 are one expression).
** Line breaks are no blanks. coax_blank_at: the byte length of the blank
** at p (below e), 0 when none; coax_blank_before: of the blank ending at
** p (from s); coax_blanks_end: past the run at p; coax_blanks_start: the
** start of the run ending at p. */
static inline size_t coax_blank_at(const char *p, const char *e)
{
    if (p >= e) return 0;
    unsigned char c = (unsigned char)*p;
    if (c == ' ' || c == '\t' || c == '\f' || c == '\v') return 1;
    if (c < 0xC2 || c > 0xE3) return 0;
    const unsigned char *u = (const unsigned char *)p;
    if (c == 0xC2) return e - p >= 2 && u[1] == 0xA0 ? 2 : 0;
    if (e - p < 3) return 0;
    if (c == 0xE2 && u[1] == 0x80) return (u[2] >= 0x80 && u[2] <= 0x8A) || u[2] == 0xAF ? 3 : 0;
    return (c == 0xE2 && u[1] == 0x81 && u[2] == 0x9F) || (c == 0xE3 && u[1] == 0x80 && u[2] == 0x80) ||
                   (c == 0xE1 && u[1] == 0x9A && u[2] == 0x80)
               ? 3
               : 0;
}
static inline size_t coax_blank_before(const char *s, const char *p)
{
    if (p <= s) return 0;
    if (coax_blank_at(p - 1, p)) return 1;
    if (p - s >= 2 && coax_blank_at(p - 2, p) == 2) return 2;
    return p - s >= 3 && coax_blank_at(p - 3, p) == 3 ? 3 : 0;
}
static inline const char *coax_blanks_end(const char *p, const char *e)
{
    for (size_t n; (n = coax_blank_at(p, e));) p += n;
    return p;
}
static inline const char *coax_blanks_start(const char *s, const char *p)
{
    for (size_t n; (n = coax_blank_before(s, p));) p -= n;
    return p;
}

/* A listed word with its length (COAX_WORD("typo")), so that a look-up
** compares lengths first: most words of a text are none of the list's. */
typedef struct coax_word {
    const char *text;
    size_t n;
} coax_word;

#define COAX_WORD(s) {s, sizeof s - 1}

/* Whether p[0..n) is one of the words, in any case. */
static inline bool coax_word_in(const char *p, size_t n, const coax_word *words, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (words[i].n == n && coax_ascii_casesame(p, words[i].text, n)) return true;
    return false;
}

/* strtod and snprintf("%g"-like fmt, d) with a '.' for the decimal point
** whatever the host's locale (dot_number.c); fmt holds one conversion. */
double coax_dot_strtod(const char *s, char **end);
int coax_dot_format(char *buf, size_t cap, const char *fmt, double d);

/* Value builders: they copy and check their input. */
coax_value *coax_new_value(coax_arena *arena, coax_type type);
coax_code coax_set_string(coax_arena *arena, coax_value *v, const char *s,
                          size_t len); /* validates UTF-8 */
coax_code coax_set_number(coax_arena *arena, coax_value *v, const char *s,
                          size_t len); /* validates JSON number grammar */
/* Exact comparison of two JSON number texts: <0, 0 or >0. */
int coax_number_compare_text(const char *a, size_t alen, const char *b,
                             size_t blen);
/* A number's power of ten as its exponent gives it, however long: adj + (neg ? -E : E), E the exponent's digits
** (exp, elen; no sign, no leading zeros), adj what the number's own digits add (below 2^40: the text's length).
** json/value.c compares numbers by it, schema/num.c divides them. */
typedef struct coax_power {
    const char *exp;
    size_t elen;
    bool neg;
    long long adj;
} coax_power;
/* Exponents of up to this many digits fit a long long, an adj beside them. */
#define COAX_EXP_DIGITS 17
/* Reads the sign and digits of an exponent at s[i..n) (past its 'e') into p (adj is the caller's); returns the
** index past them, and sets *value to the exponent when it has at most COAX_EXP_DIGITS digits. */
size_t coax_power_read(const char *s, size_t i, size_t n, coax_power *p, long long *value);
/* a's power less b's, where one exponent at least has more than COAX_EXP_DIGITS digits: exact while within
** 'far' (at most 10^15) either way, else +-far. Two signs are that far apart; of one sign, the exponents'
** difference read from the top once past 'far' only grows, and outweighs the adjs. */
long long coax_power_diff(const coax_power *a, const coax_power *b, long long far);
/* Length of the longest JSON number at s[0..n), or 0 if none starts there. */
size_t coax_number_span(const char *s, size_t n, bool *is_int);

/* Appends 'v' as JSON text to 'b' (COAX_WRITE_* flags). */
coax_code coax_write_buf(coax_buf *b, const coax_value *v, unsigned flags);
/* A string whose JSON text (quotes included) is written already: the
** writer below copies those bytes for a string value equal to it. */
typedef struct coax_escaped {
    const char *text, *json;
    size_t len, json_len;
} coax_escaped;
/* The bytes COAX_WRITE_PRETTY adds to the compact text of 'v' (its
** indentation grows with the square of the depth); SIZE_MAX without memory. */
size_t coax_pretty_extra(const coax_allocator *a, const coax_value *v);
/* coax_write_buf, reusing the JSON of the 'nknown' strings in 'known'. */
coax_code coax_write_buf_reusing(coax_buf *b, const coax_value *v, unsigned flags, const coax_escaped *known,
                                 size_t nknown);

/* Edits by path copying (json/edit.c): each returns a new root that shares
** all it can with 'root', or NULL when 'pointer' does not resolve (or names
** the wrong type) or memory ran out. 'root' is not changed. */
coax_value *coax_value_replace(coax_arena *a, const coax_value *root, const char *pointer, size_t len,
                               const coax_value *with);
coax_value *coax_value_remove_member(coax_arena *a, const coax_value *root, const char *pointer,
                                     size_t len, const char *key, size_t klen);
coax_value *coax_value_add_member(coax_arena *a, const coax_value *root, const char *pointer,
                                  size_t len, const char *key, size_t klen, const coax_value *value);
/* A deep copy of 'v' into 'a'. */
coax_value *coax_value_copy(coax_arena *a, const coax_value *v);

/* A structural hash under 'seed', consistent with coax_value_equal (equal
** values hash alike: numbers by value, objects in any member order) and
** covering every level. 0 and '*out', with the work done in '*work' (may
** be NULL): the values visited and the string and key bytes by 64; -1 when
** out of memory (deep values need a stack from 'alloc'). */
int coax_value_hash(const coax_value *v, uint64_t seed, const coax_allocator *alloc,
                    uint64_t *out, size_t *work);

/* Duplicate keys: last one wins, at the first one's position. Compacts
** m[0..n) in place and returns the new count, or SIZE_MAX when out of
** memory. 'on_dup' (may be NULL) hears the index (in the original order) of
** every member whose key repeats an earlier one, and whether it gives
** another value than the one it replaces. */
size_t coax_members_dedupe(coax_member *m, size_t n, const coax_allocator *a,
                           void (*on_dup)(void *ud, size_t index, bool differs), void *ud);

/* coax_parse, with a hook for duplicate keys (offset of the later key, and
** whether its value differs from the earlier one's). */
coax_code coax_parse_ex(coax_arena *arena, const char *text, size_t len,
                        const coax_limits *limits, coax_value **out,
                        coax_error *err,
                        void (*on_dup)(void *ud, size_t offset, bool differs), void *ud);

/* coax_parse for a value judged as it is (coax validate, validate_json): a
** key given twice with two values fails with COAX_ESYNTAX at the later key,
** since keeping the last value (as coax_parse does) would judge one of two
** readings: {"a": 9, "a": 2} is valid for a maximum of 5 one way only. */
coax_code coax_parse_unique(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                            coax_value **out, coax_error *err);

#endif
