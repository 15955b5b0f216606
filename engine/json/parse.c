/*
** json/parse.c: the strict RFC 8259 parser, coax's fast path.
**
** Iterative with an explicit stack, so input-controlled nesting can never
** overflow the C stack. The children of the open containers wait on one
** stack of bytes already in their final layout (an array's items 16 bytes
** each, an object's members 32), so closing a container copies its
** children into the arena as one block. The input is copied into the arena
** once and strings are decoded in place there (decoding never grows a
** string; its closing quote becomes its NUL), and a number's NUL goes over
** the byte after it (read first), so neither costs an allocation. The copy
** also checks the whole input for valid UTF-8, 64 bytes a step that mostly
** have no byte >= 0x80: when it is, the strings' scanner crosses multi-byte
** sequences instead of stopping at each for the slow path (prose in other
** scripts made a quarter of the time on the replies document).
*/
#include "base/core.h"
#include "json/key_bits.h"
#include "json/parse_scan.h"

#include <stddef.h>

/* The stores below write a value as two 8-byte words and read a member's
** value as the last 16 bytes of the member. */
_Static_assert(sizeof(coax_value) == 16 && offsetof(coax_value, len) == 4 &&
                   offsetof(coax_value, u) == 8,
               "coax_value is a header word and a payload word");
_Static_assert(sizeof(coax_member) == 32 && offsetof(coax_member, value) == 16,
               "a member's value is its last 16 bytes");

/* An open container remembers its parent: where the parent's children
** start on the pending stack, the parent's key_bits and its children's
** indentation (see indent_run). 'first' outlives it: the run before the
** first child of the last container opened at its depth, the guess for
** the next one's. */
typedef struct frame {
    uintptr_t base;
    uint64_t keys;
    size_t indent;
    size_t first;
} frame;

typedef struct parser {
    coax_arena *arena;
    const coax_allocator *alloc;
    char *start, *end; /* the arena's copy of the input */
    coax_limits lim;
    coax_error *err;
    coax_code rc; /* the error of a part that returns NULL */
    bool utf8;    /* the input is valid UTF-8: strings need no check of it */
    /* The pending children. The root's slot is its first 16 bytes; the
    ** value being parsed is always the 16 bytes under the top (an item, or
    ** a member's value), and an open container's own slot the 16 bytes
    ** under its first child. */
    char *stack;
    char *room;    /* the highest top at which a member still fits */
    size_t cstack; /* bytes */
    frame *frames;
    frame *frames_room; /* one past the last frame both max_depth and the array allow */
    frame *fresh;       /* the first frame whose 'first' is not set: where no container has been */
    size_t cframes;
    void (*on_dup)(void *, size_t, bool);
    void *ud;
    const coax_member *dup_members; /* the pending members being deduplicated */
    char *region, *region_end; /* see bump() */
    /* The length of the key after one whose key_bits bit is i (64: an
    ** object's first), up to 16 (no guess): in an array of objects of one
    ** shape, each key follows the one it followed before. */
    uint8_t next_klen[65];
    size_t next_region;
    /* the scratch arrays' first room, in the parser itself: most documents
    ** need no more, and no allocation */
    _Alignas(16) char first_stack[2048];
    frame first_frames[32];
} parser;

/* bump()'s pieces: the first as large as the input (at least 256 bytes, at
** most 64 KB) and taken with the input's copy, then doubling to 64 KB, so a
** small reply needs one allocation and leaves at most its size unused. */
#define REGION_FIRST 256
#define REGION_MAX ((size_t)64 << 10)

static coax_code fail(parser *ps, coax_code code, const char *at, const char *what)
{
    return coax_json_fail(ps->err, ps->start, ps->end, code, at, what);
}

/* Parses the string whose body starts at s (after its opening quote), in
** place ('text': the input is valid UTF-8, see text_scan), and returns the byte after its closing quote (NULL and the error
** in ps->rc). Inlined in its uses: strings are most of a document's values
** and keys, and most are plain ASCII the scanner crosses in one step. */
static inline __attribute__((always_inline)) char *parse_string(parser *ps, char *s, const char **out,
                                                                 size_t *outlen, bool text)
{
    size_t n = text ? text_scan(s) : string_scan(s);
    string_end e = {s + n, n};
    if (__builtin_expect(*e.quote != '"', 0)) {
        e = coax_json_string_rest(ps->start, ps->end, ps->err, s, e.quote);
        if (!e.quote) {
            ps->rc = (coax_code)e.len;
            return NULL;
        }
    }
    if (e.len > ps->lim.max_string) {
        ps->rc = fail(ps, COAX_ESTRING, s, "string longer than the string limit");
        return NULL;
    }
    s[e.len] = '\0'; /* over the closing quote, or inside the shrunk escapes */
    *out = s;
    *outlen = e.len;
    return e.quote + 1;
}

/* Copies n bytes, 64 at a time: the C library's memcpy moves large blocks
** with 'rep movsb', one counted instruction a byte under callgrind, and the
** input and the pending children are the parser's only large copies. */
static void copy_bytes(char *restrict d, const char *restrict s, size_t n)
{
#ifdef __SSE2__
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_storeu_si128((__m128i *)d, a);
        _mm_storeu_si128((__m128i *)(d + 16), b);
        _mm_storeu_si128((__m128i *)(d + 32), c);
        _mm_storeu_si128((__m128i *)(d + 48), e);
    }
#endif
    if (n) memcpy(d, s, n);
}

/* The arena memory of closed containers, bumped from a region the parser
** takes from the arena in growing pieces (a call per container costs more
** than the container): 8-byte aligned, 8 bytes for an empty container as
** coax_arena_alloc gives. */
static inline void *bump(parser *ps, size_t size)
{
    if (size == 0) size = 8;
    if ((size_t)(ps->region_end - ps->region) < size) {
        size_t piece = ps->next_region > size ? ps->next_region : size;
        char *r = coax_arena_alloc(ps->arena, piece);
        if (!r) return NULL;
        ps->region = r;
        ps->region_end = r + piece;
        if (ps->next_region < REGION_MAX) ps->next_region *= 2;
    }
    void *p = ps->region;
    ps->region += size;
    return p;
}

/* Doubles the pending stack (false when out of memory); the frames'
** pointers into it move with it. */
static bool grow_stack(parser *ps, frame *fp)
{
    size_t ncap = ps->cstack * 2;
    char *n = coax_alloc_raw(ps->alloc, ncap);
    if (!n) return false;
    copy_bytes(n, ps->stack, ps->cstack);
    for (frame *f = ps->frames; f < fp; f++) f->base = f->base - (uintptr_t)ps->stack + (uintptr_t)n;
    if (ps->stack != ps->first_stack) coax_free_raw(ps->alloc, ps->stack, ps->cstack);
    ps->stack = n;
    ps->cstack = ncap;
    ps->room = n + ncap - sizeof(coax_member);
    return true;
}

static void set_frames_room(parser *ps)
{
    ps->frames_room = ps->frames + (ps->cframes < ps->lim.max_depth ? ps->cframes : ps->lim.max_depth);
}

/* Doubles the frames (false when out of memory). */
static bool grow_frames(parser *ps)
{
    size_t ncap = ps->cframes * 2;
    frame *n = coax_alloc_raw(ps->alloc, ncap * sizeof *n);
    if (!n) return false;
    copy_bytes((char *)n, (const char *)ps->frames, ps->cframes * sizeof *n);
    if (ps->frames != ps->first_frames) coax_free_raw(ps->alloc, ps->frames, ps->cframes * sizeof *n);
    ps->frames = n;
    ps->cframes = ncap;
    set_frames_room(ps);
    return true;
}

/* Grows the pending stack under the loop of run(), which keeps its top and
** the innermost container's base in locals; false when out of memory. */
static inline __attribute__((always_inline)) bool make_room(parser *ps, frame *fp, char **top, char **base,
                                                            const char *p)
{
    char *old = ps->stack;
    if (!grow_stack(ps, fp)) {
        ps->rc = fail(ps, COAX_ENOMEM, p, "out of memory");
        return false;
    }
    *top = ps->stack + (*top - old);
    *base = ps->stack + (*base - old);
    return true;
}

static void report_dup(void *ud, size_t index, bool differs)
{
    parser *ps = ud;
    if (ps->on_dup) ps->on_dup(ps->ud, (size_t)(ps->dup_members[index].key - 1 - ps->start), differs);
}

/* Builds the container whose children wait in [base, top) into its slot,
** the 16 bytes under base; 'at' is where an allocation failure is
** reported. An object's keys are searched for duplicates when key_bits
** says they may repeat. */
static __attribute__((noinline)) coax_code close_container(parser *ps, bool object, bool maybe_dup, char *base,
                                                           char *top, const char *at)
{
    size_t bytes = (size_t)(top - base);
    char *block = bump(ps, bytes);
    if (!block && bytes) return fail(ps, COAX_ENOMEM, at, "out of memory");
    if (bytes) copy_bytes(block, base, bytes);
    size_t n = object ? bytes / sizeof(coax_member) : bytes / sizeof(coax_value);
    if (maybe_dup) {
        /* the reports read the pending keys: dedupe clears a repeated key */
        ps->dup_members = (const coax_member *)base;
        n = coax_members_dedupe((coax_member *)block, n, ps->alloc, report_dup, ps);
        if (n == SIZE_MAX) return fail(ps, COAX_ENOMEM, at, "out of memory");
    }
    coax_put_value((coax_value *)(base - 16), object ? COAX_OBJECT : COAX_ARRAY, 0, (uint32_t)n,
                   (uint64_t)(uintptr_t)block);
    return COAX_OK;
}

/* close_container's common case, inline in run(): room in the region, no
** key that may repeat. The children are copied 32 bytes at a time, so an
** array's last 16 may bring 16 more: the region has room for those too,
** and the pending stack always has (see ps->room). False when
** close_container must do it. */
static inline __attribute__((always_inline)) bool close_small(parser *ps, unsigned type, char *base, char *top)
{
    size_t bytes = (size_t)(top - base);
    char *block = ps->region;
    if ((size_t)(ps->region_end - block) < bytes + 16) return false;
    ps->region = block + (bytes ? bytes : 8); /* 8 bytes for an empty container, as bump() */
#ifdef __SSE2__
    for (size_t i = 0; i < bytes; i += 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(base + i)), b = _mm_loadu_si128((const __m128i *)(base + i + 16));
        _mm_storeu_si128((__m128i *)(block + i), a);
        _mm_storeu_si128((__m128i *)(block + i + 16), b);
        __asm__("" : "+r"(block)); /* opaque: GCC would turn the loop into a memcpy call */
    }
#else
    memcpy(block, base, bytes);
#endif
    size_t n = type == COAX_OBJECT ? bytes / sizeof(coax_member) : bytes / sizeof(coax_value);
    coax_put_value((coax_value *)(base - 16), type, 0, (uint32_t)n, (uint64_t)(uintptr_t)block);
    return true;
}

/* A literal or a number at p into v; returns the byte after it (NULL and
** the error in ps->rc). The NUL after the input fails every comparison,
** so no length is checked. The caller puts the number's NUL over the byte
** after it, once it has read that byte. */
static inline __attribute__((always_inline)) char *parse_word(parser *ps, char *p, coax_value *v)
{
    char *q = p;
    unsigned flags = COAX_VF_INT_TEXT;
    if (is_digit(*p) && *p != '0') goto digits; /* the most common first */
    switch (*p) {
    case 't':
        if (memcmp(p, "true", 4) == 0) {
            coax_put_value(v, COAX_BOOL, 0, 0, 1);
            return p + 4;
        }
        break;
    case 'f':
        if (memcmp(p + 1, "alse", 4) == 0) {
            coax_put_value(v, COAX_BOOL, 0, 0, 0);
            return p + 5;
        }
        break;
    case 'n':
        if (memcmp(p, "null", 4) == 0) {
            coax_put_value(v, COAX_NULL, 0, 0, 0);
            return p + 4;
        }
        break;
    default: { /* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, not followed by '.' or a digit */
        q += *p == '-';
        if (*q == '0') {
            if (is_digit(*++q)) break; /* "01" */
        } else if (is_digit(*q)) {
        digits:
            q = skip_digits(q + 1);
        } else {
            break; /* "-" */
        }
        if (*q == '.' || (*q | 0x20) == 'e') {
            if (*q == '.') {
                if (!is_digit(q[1])) break; /* "1." */
                q += 2;
                while (is_digit(*q)) q++;
                flags = 0;
            }
            if ((*q | 0x20) == 'e') { /* without digits after it, not part of the number */
                char *e = q + 1;
                if (*e == '+' || *e == '-') e++;
                if (is_digit(*e)) {
                    while (is_digit(*++e)) {}
                    q = e;
                    flags = 0;
                }
            }
            if (*q == '.') break; /* "1.5.3", "1e5.3" */
        }
        coax_put_value(v, COAX_NUMBER, flags, (uint32_t)(q - p), (uint64_t)(uintptr_t)p);
        return q;
    }
    }
    ps->rc = fail(ps, COAX_ESYNTAX, p, "a JSON value");
    return NULL;
}

/* A string value at p (its opening quote) into v; as parse_word. */
static inline __attribute__((always_inline)) char *parse_string_value(parser *ps, char *p, coax_value *v, bool text)
{
    const char *s = NULL;
    size_t n = 0;
    p = parse_string(ps, p + 1, &s, &n, text);
    if (p) coax_put_value(v, COAX_STRING, 0, (uint32_t)n, (uint64_t)(uintptr_t)s);
    return p;
}

/* The whitespace at p before a container's next child, where 'indent' is
** the length of the run before its first (a newline and its indentation,
** in a pretty-printed document; 0 when that was longer than 16 bytes): the
** same run is crossed by its length (is_indent), else by skip_ws. */
static inline __attribute__((always_inline)) char *indent_run(char *p, size_t indent)
{
    return is_indent(p, indent, 0) ? p + indent : skip_ws(p);
}

/* The length of the run from p to q, as indent_run's guess. */
static inline size_t indent_of(const char *p, const char *q)
{
    return q - p <= 16 ? (size_t)(q - p) : 0;
}

/* What parse_value found. */
enum { VALUE_SCALAR, VALUE_OPEN, VALUE_FAILED };

/* The value at '*pp' (or after whitespace there, guessed 'guess' bytes
** long, see indent_run: an array's items stand each on its line, a
** member's value after one space) into v: a scalar, and '*pp' receives
** the byte after it, '*cp' that byte's value and the byte a NUL (which
** ends a number; after a string or a literal it is harmless, as nothing
** reads that byte again); or a bracket, and '*pp' its place. */
static inline __attribute__((always_inline)) int parse_value(parser *ps, char **pp, unsigned *cp, coax_value *v,
                                                            bool text, size_t guess)
{
    char *p = *pp;
    if (*p == '"') { /* most values are strings */
        p = parse_string_value(ps, p, v, text);
    } else {
        if ((unsigned char)*p <= ' ') {
            p = indent_run(p, guess);
            *pp = p;
        }
        if (*p == '"') p = parse_string_value(ps, p, v, text);
        else if (*p == '{' || *p == '[') return VALUE_OPEN;
        else p = parse_word(ps, p, v);
    }
    if (!p) return VALUE_FAILED;
    *pp = p;
    *cp = (unsigned char)*p;
    *p = '\0';
    return VALUE_SCALAR;
}

/* What follows a child of a container. */
enum { NEXT_CHILD, NEXT_CLOSE, NEXT_FAILED };

/* The byte after a child is c, at '*pp' (a NUL may have gone over it): ','
** before the next child, or 'closer', the container's closing bracket,
** maybe after whitespace, guessed as long as the run before the
** container's parent's children ('outer', see indent_run): the closing
** bracket of a pretty-printed container stands where they do. '*pp'
** receives the byte after it. */
static inline __attribute__((always_inline)) int next_child(parser *ps, char **pp, unsigned c, unsigned closer,
                                                            const size_t *outer)
{
    char *p = *pp;
    if (c != ',' && c != closer && is_ws[c]) {
        p = c == '\n' && is_indent(p, *outer, 1) ? p + *outer : skip_ws(p + 1);
        c = (unsigned char)*p;
    }
    if (c == ',') {
        *pp = p + 1;
        return NEXT_CHILD;
    }
    if (c == closer) {
        *pp = p + 1;
        return NEXT_CLOSE;
    }
    ps->rc = fail(ps, COAX_ESYNTAX, p,
                  p >= ps->end ? "',' or a closing bracket" : closer == '}' ? "',' or '}'" : "',' or ']'");
    return NEXT_FAILED;
}

/* A key's bit in the duplicate-key filter (key_bits.h): key[-1] is its
** opening quote, so an empty key reads that. */
static inline unsigned key_bit(const char *key, size_t klen)
{
    const unsigned char *k = (const unsigned char *)key;
    return COAX_KEY_BIT(k[0], k[(ptrdiff_t)klen - 1], klen);
}

/* The parser's loop over a root container, p at its bracket; returns the
** byte after it (NULL and the error in ps->rc). Objects and arrays have
** their own paths, so no step asks which one it is in; a closed container
** goes back to its parent's: an object's key_bits are never 0 once it has
** a member, and an array's always are. The cursor, the top of the stack
** and the innermost container live in locals: the parser writes the text
** it decodes in place, and through a char pointer every write could alias
** a field of 'ps'. After a scalar, 'c' is the byte at p, read before a NUL
** went over it (see parse_value). Written once for each string scanner
** ('text': the input is valid UTF-8), so no string asks which. */
static inline __attribute__((always_inline)) char *run(parser *ps, char *p, bool text)
{
    char *top = ps->stack + sizeof(coax_value), *base = top; /* under them, the root's slot */
    frame *fp = ps->frames; /* the next free frame */
    uint64_t keys = 0;      /* key_bits of the innermost object */
    size_t indent = 0;      /* the run before the innermost container's first child (indent_run) */
    unsigned prev = 64;     /* the last key's bit (key_bits), or 64 at an object's first key: next_klen */
    unsigned c;
    int kind, next;
    coax_code rc;
    goto open;
member: /* after '{' or ',' */
    if (top > ps->room && !make_room(ps, fp, &top, &base, p)) return NULL;
    if (*p != '"') {
        p = indent_run(p, indent);
        if (*p != '"') {
            ps->rc = fail(ps, COAX_ESYNTAX, p, "a string key");
            return NULL;
        }
    }
    {
        /* The key's length guessed (see next_klen) and checked by a
        ** branch the predictor learns: the cursor after the key then waits
        ** for no count of its bytes. */
        coax_member *m = (coax_member *)top;
        char *s = p + 1;
        const char *key = s;
        size_t klen = ps->next_klen[prev];
        /* the first stop at klen (16: none before it), and a quote */
        if (__builtin_expect((size_t)__builtin_ctz(stops_at(s, text) | 0x10000u) == klen && s[klen] == '"', 1)) {
            if (klen > ps->lim.max_string) {
                ps->rc = fail(ps, COAX_ESTRING, s, "string longer than the string limit");
                return NULL;
            }
            s[klen] = '\0';
            p = s + klen + 1;
        } else {
            if (!(p = parse_string(ps, s, &key, &klen, text))) return NULL;
            ps->next_klen[prev] = (uint8_t)(klen < 16 ? klen : 16);
        }
        m->key = key;
        m->klen = (uint32_t)klen;
        unsigned bit = key_bit(key, klen);
        keys = coax_key_bits_set(keys, bit);
        prev = bit & 63;
    }
    top += sizeof(coax_member);
    if (*p != ':') {
        p = skip_ws(p);
        if (*p != ':') {
            ps->rc = fail(ps, COAX_ESYNTAX, p, "':' after the key");
            return NULL;
        }
    }
    p++;
    kind = parse_value(ps, &p, &c, (coax_value *)(top - sizeof(coax_value)), text, 0);
    if (kind == VALUE_OPEN) goto open;
    if (kind == VALUE_FAILED) return NULL;
member_end: /* c: the byte after a member */
    next = next_child(ps, &p, c, '}', &fp[-1].indent);
    if (next == NEXT_CHILD) goto member;
    if (next == NEXT_CLOSE) goto close_object;
    return NULL;
item: /* after '[' or ',' */
    if (top > ps->room && !make_room(ps, fp, &top, &base, p)) return NULL;
    top += sizeof(coax_value);
    kind = parse_value(ps, &p, &c, (coax_value *)(top - sizeof(coax_value)), text, indent);
    if (kind == VALUE_OPEN) goto open;
    if (kind == VALUE_FAILED) return NULL;
item_end: /* c: the byte after an item */
    next = next_child(ps, &p, c, ']', &fp[-1].indent);
    if (next == NEXT_CHILD) goto item;
    if (next == NEXT_CLOSE) goto close_array;
    return NULL;
open: /* '{' or '[' at p opens a container in the 16 bytes under top */
    if (fp == ps->frames_room) {
        size_t depth = (size_t)(fp - ps->frames);
        if (depth >= ps->lim.max_depth) {
            ps->rc = coax_fail(ps->err, COAX_EDEPTH, (size_t)(p - ps->start), "nesting deeper than %zu",
                               ps->lim.max_depth);
            return NULL;
        }
        size_t had = (size_t)(ps->fresh - ps->frames);
        if (!grow_frames(ps)) {
            ps->rc = fail(ps, COAX_ENOMEM, p, "out of memory");
            return NULL;
        }
        fp = ps->frames + depth;
        ps->fresh = ps->frames + had;
    }
    fp->base = (uintptr_t)base; /* the parent's */
    fp->keys = keys;
    fp->indent = indent;
    {
        char *first = p + 1;
        indent = 0;
        if ((unsigned char)*first <= ' ') { /* a compact document asks no more */
            while (ps->fresh <= fp) (ps->fresh++)->first = 0;
            size_t guess = fp->first;
            first = is_indent(first, guess, 0) ? first + guess : skip_ws(first);
            indent = indent_of(p + 1, first);
            fp->first = indent;
        }
        fp++;
        base = top;
        keys = 0;
        if (*p == '{') {
            p = first;
            prev = 64;
            if (*p != '}') goto member;
            p++;
            goto close_object;
        }
        p = first;
    }
    if (*p != ']') goto item;
    p++;
    goto close_array;
close_object:
    if (keys != UINT64_MAX && close_small(ps, COAX_OBJECT, base, top)) goto closed;
    if ((rc = close_container(ps, true, keys == UINT64_MAX, base, top, p))) goto failed;
    goto closed;
close_array:
    if (close_small(ps, COAX_ARRAY, base, top)) goto closed;
    if ((rc = close_container(ps, false, false, base, top, p))) goto failed;
closed:
    top = base;
    fp--;
    base = (char *)fp->base;
    keys = fp->keys;
    indent = fp->indent;
    if (fp == ps->frames) return p;
    c = (unsigned char)*p;
    if (keys) goto member_end;
    goto item_end;
failed:
    ps->rc = rc;
    return NULL;
}

static __attribute__((noinline)) char *run_text(parser *ps, char *p) { return run(ps, p, true); }
static __attribute__((noinline)) char *run_strict(parser *ps, char *p) { return run(ps, p, false); }

coax_code coax_parse_ex(coax_arena *arena, const char *text, size_t len,
                        const coax_limits *limits, coax_value **out,
                        coax_error *err, void (*on_dup)(void *, size_t, bool),
                        void *ud)
{
    if (!arena || !out || (!text && len))
        return coax_fail(err, COAX_EINVAL, 0, "coax_parse: NULL argument");
    *out = NULL;
    parser ps; /* field by field: the first arrays need no zeroing */
    ps.stack = ps.first_stack;
    ps.cstack = sizeof ps.first_stack;
    ps.room = ps.stack + ps.cstack - sizeof(coax_member);
    ps.frames = ps.fresh = ps.first_frames;
    ps.cframes = sizeof ps.first_frames / sizeof *ps.first_frames;
    ps.dup_members = NULL;
    memset(ps.next_klen, 16, sizeof ps.next_klen);
    ps.rc = COAX_OK;
    ps.arena = arena;
    ps.alloc = coax_arena_allocator(arena);
    ps.lim = coax_limits_resolve(limits);
    set_frames_room(&ps);
    if (len > ps.lim.max_input)
        return coax_fail(err, COAX_ESIZE, 0, "input of %zu bytes exceeds the limit of %zu", len,
                         ps.lim.max_input);
    /* The scanners' padding after the NUL, and the first region of
    ** container memory with it. */
    size_t first = len < REGION_FIRST ? REGION_FIRST : len < REGION_MAX ? (len + 7) & ~(size_t)7 : REGION_MAX;
    size_t copy_size = (len + 1 + SCAN_PAD + 7) & ~(size_t)7;
    if (len > SIZE_MAX - 2 * REGION_MAX) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    char *copy = coax_arena_alloc(arena, copy_size + first);
    if (!copy) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    ps.region = copy + copy_size;
    ps.region_end = ps.region + first;
    ps.next_region = first * 2 < REGION_MAX ? first * 2 : REGION_MAX;
    ps.utf8 = coax_json_copy_input(copy, text, len);
    ps.start = copy;
    ps.end = copy + len;
    ps.err = err;
    ps.on_dup = on_dup;
    ps.ud = ud;
    /* A UTF-8 byte order mark is not JSON; strict parsing rejects it. */
    char *p = skip_ws(copy);
    coax_value scalar, *root = &scalar;
    if (*p == '{' || *p == '[') {
        p = ps.utf8 ? run_text(&ps, p) : run_strict(&ps, p);
        root = (coax_value *)ps.stack;
    } else {
        p = *p == '"' ? parse_string_value(&ps, p, &scalar, ps.utf8) : parse_word(&ps, p, &scalar);
        if (p) { /* as in run(): the byte after a scalar gets its NUL */
            unsigned c = (unsigned char)*p;
            *p = '\0';
            if (is_ws[c]) p = skip_ws(p + 1);
        }
    }
    if (p) {
        p = skip_ws(p);
        if (p < ps.end) ps.rc = fail(&ps, COAX_ESYNTAX, p, "end of input after the value");
    }
    if (!ps.rc) {
        coax_value *v = bump(&ps, sizeof *v);
        if (!v) ps.rc = fail(&ps, COAX_ENOMEM, p, "out of memory");
        else {
            *v = *root;
            *out = v;
        }
    }
    if (ps.stack != ps.first_stack) coax_free_raw(ps.alloc, ps.stack, ps.cstack);
    if (ps.frames != ps.first_frames) coax_free_raw(ps.alloc, ps.frames, ps.cframes * sizeof(frame));
    if (ps.rc) coax_error_locate(err, text ? text : "", len); /* the copy has changed */
    return ps.rc;
}

coax_code coax_parse(coax_arena *arena, const char *text, size_t len,
                     const coax_limits *limits, coax_value **out,
                     coax_error *err)
{
    return coax_parse_ex(arena, text, len, limits, out, err, NULL, NULL);
}

/* The first key given twice with two values. */
static void first_other_dup(void *ud, size_t offset, bool differs)
{
    size_t *at = ud;
    if (differs && *at == SIZE_MAX) *at = offset;
}

coax_code coax_parse_unique(coax_arena *arena, const char *text, size_t len, const coax_limits *limits,
                            coax_value **out, coax_error *err)
{
    size_t dup = SIZE_MAX;
    coax_code rc = coax_parse_ex(arena, text, len, limits, out, err, first_other_dup, &dup);
    if (rc || dup == SIZE_MAX) return rc;
    *out = NULL;
    coax_fail(err, COAX_ESYNTAX, dup, "a key given twice with two values: which one is meant is a guess");
    coax_error_locate(err, text, len);
    return COAX_ESYNTAX;
}
