/*
** json/write.c: compact and pretty JSON text from a value.
** Iterative (values can be nested as deep as the host allowed) and exact:
** numbers are written as their text, strings escaped minimally.
*/
#include "base/bytes.h"
#include "base/core.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static const char hex[] = "0123456789abcdef";

/* 0: copy as is; otherwise the character after the backslash ('u': \u00XX),
** or 'x' for a byte >= 0x80, which may begin an invalid UTF-8 sequence. */
#define X16 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x'
static const char escape_of[256] = {
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
    ['"'] = '"', ['\\'] = '\\',
    [0x80] = X16, X16, X16, X16, X16, X16, X16, X16,
};
#undef X16

/* The first byte at or after i in s[0..len) that is not copied as is: a
** control byte, '"', '\\' or a byte >= 0x80 (it may begin an invalid
** sequence). Text written into reports and messages is mostly plain ASCII
** (replies, feedback, schema text), and looking at it a byte at a time was
** the largest cost of a failed attempt after the reply: sixteen bytes a
** compare with SSE2 (the kernel json/parse_scan.h describes: xoring 0x02
** puts '"' beside the control bytes, a signed compare with 0x21 takes them
** and the bytes >= 0x80), eight a word without it. Reads only s[0..len). */
static inline __attribute__((always_inline)) size_t plain_run(const char *s, size_t i, size_t len)
{
#ifdef __SSE2__
    const __m128i flip = _mm_set1_epi8(0x02), limit = _mm_set1_epi8(0x21), bs = _mm_set1_epi8('\\');
    while (len - i >= 16) {
        __m128i w = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i stop = _mm_or_si128(_mm_cmpgt_epi8(limit, _mm_xor_si128(w, flip)), _mm_cmpeq_epi8(w, bs));
        unsigned m = (unsigned)_mm_movemask_epi8(stop);
        if (m) return i + (unsigned)__builtin_ctz(m);
        i += 16;
    }
#else
    /* a word's bytes: none >= 0x80, none below 0x20, none '"' or '\\' */
    while (len - i >= 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (word_json_stops(w)) break;
        i += 8;
    }
#endif
    while (i < len && !escape_of[(unsigned char)s[i]]) i++;
    return i;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* How many of a little-endian word's bytes, from its first, are copied as
** is. A borrow of the subtractions starts only at a byte that stops, so it
** can flag bytes after the first that stops, never one before it. */
static inline unsigned plain_bytes(uint64_t w)
{
    uint64_t stop = word_json_stops(w);
    return stop ? (unsigned)__builtin_ctzll(stop) / 8 : 8;
}
#endif

/* Appends the JSON text of the byte at s[*i] (a byte plain_run stopped at)
** to o and moves *i past what it took. A byte that does not begin a valid
** UTF-8 sequence (a raw model reply, a script's text cut mid-character) is
** written as U+FFFD, one for each such byte, as repair logs invalid_utf8.
** Writes at most 6 bytes a byte taken. */
static inline char *put_special(const char *s, size_t len, size_t *i, char *o)
{
    unsigned char c = (unsigned char)s[*i];
    if (c >= 0x80) {
        uint32_t cp;
        size_t n = coax_utf8_decode((const unsigned char *)s + *i, len - *i, &cp);
        if (!n) {
            memcpy(o, "\xef\xbf\xbd", 3);
            *i += 1;
            return o + 3;
        }
        for (size_t k = 0; k < n; k++) o[k] = s[*i + k];
        *i += n;
        return o + n;
    }
    *i += 1;
    o[0] = '\\';
    if (escape_of[c] != 'u') {
        o[1] = escape_of[c];
        return o + 2;
    }
    o[1] = 'u', o[2] = '0', o[3] = '0', o[4] = hex[c >> 4], o[5] = hex[c & 15];
    return o + 6;
}

/* Input escaped per reservation. Each piece reserves its worst case (six
** bytes a byte, \u00XX) so the loop writes through a pointer with no test
** a byte; a small piece keeps what a buffer holds beyond its text small (a
** 4 KB piece grew a waiting session's buffers by 18 KB). */
#define ESCAPE_PIECE 256

/* Always valid JSON, whatever the bytes (put_special). Plain text, most of
** what reports and messages hold, goes sixteen bytes a store: each block is
** stored whole, then the output moves on by its plain bytes only, so a run
** between two quotes costs no copy call of its own. */
void coax_buf_put_json_string(coax_buf *b, const char *s, size_t len)
{
    coax_buf_putc(b, '"');
    size_t i = 0;
    while (i < len) {
        size_t end = len - i > ESCAPE_PIECE ? i + ESCAPE_PIECE : len;
        /* + 3 * 6: a UTF-8 sequence may end past 'end'; + 16: a block store past the last byte */
        size_t worst = (end - i) * 6 + 3 * 6 + 16;
        bool room = !b->oom && worst < b->cap && b->len + worst < b->cap; /* coax_buf_reserve's test */
        if (!room && !coax_buf_reserve(b, worst)) return;
        char *o = b->data + b->len;
        while (i < end) {
#ifdef __SSE2__
            if (end - i >= 16) {
                __m128i w = _mm_loadu_si128((const __m128i *)(s + i));
                _mm_storeu_si128((__m128i *)o, w);
                size_t plain = plain_run(s, i, i + 16) - i;
                i += plain, o += plain;
                if (plain == 16) continue;
            } else
#endif
            if (end - i < 16) { /* a short string or a piece's tail: no copy call for a few bytes */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                /* a word a store, as the blocks above: eight bytes, then the
                ** last eight of the piece shifted down past what is done
                ** (the zeros shifted in stop the count at the piece's end) */
                size_t plain = 8;
                if (end - i >= 8) {
                    uint64_t w;
                    memcpy(&w, s + i, 8);
                    memcpy(o, &w, 8);
                    plain = plain_bytes(w);
                    i += plain, o += plain;
                }
                if (plain == 8 && i < end && end >= 8) {
                    uint64_t w;
                    memcpy(&w, s + end - 8, 8);
                    w >>= 8 * (8 - (end - i));
                    memcpy(o, &w, 8);
                    plain = plain_bytes(w);
                    i += plain, o += plain;
                }
#endif
                while (i < end && !escape_of[(unsigned char)s[i]]) *o++ = s[i++];
                if (i == end) break;
            } else { /* without SSE2 */
                size_t j = plain_run(s, i, end);
                memcpy(o, s + i, j - i);
                o += j - i, i = j;
                if (i == end) break;
            }
            o = put_special(s, len, &i, o);
        }
        b->len = (size_t)(o - b->data);
    }
    coax_buf_putc(b, '"');
}

static void newline(coax_buf *b, unsigned flags, size_t depth)
{
    if (!(flags & COAX_WRITE_PRETTY)) return;
    coax_buf_putc(b, '\n');
    for (size_t i = 0; i < depth; i++) coax_buf_put(b, "  ", 2);
}

static void string_value(coax_buf *b, const coax_value *v, const coax_escaped *known, size_t nknown)
{
    for (size_t i = 0; i < nknown; i++) {
        if (known[i].len == v->len && !memcmp(known[i].text, v->u.text, v->len)) {
            coax_buf_put(b, known[i].json, known[i].json_len);
            return;
        }
    }
    coax_buf_put_json_string(b, v->u.text, v->len);
}

static void scalar(coax_buf *b, const coax_value *v, const coax_escaped *known, size_t nknown)
{
    switch (v->type) {
    case COAX_NULL: coax_buf_put(b, "null", 4); break;
    case COAX_BOOL: v->u.boolean ? coax_buf_put(b, "true", 4) : coax_buf_put(b, "false", 5); break;
    case COAX_NUMBER: coax_buf_put(b, v->u.text, v->len); break;
    case COAX_STRING: string_value(b, v, known, nknown); break;
    default: break;
    }
}

typedef struct wframe {
    const coax_value *v;
    size_t i;
} wframe;

/* Appends 'v' to 'b'. Returns COAX_ENOMEM if 'b' ran out of memory. */
coax_code coax_write_buf(coax_buf *b, const coax_value *v, unsigned flags)
{
    return coax_write_buf_reusing(b, v, flags, NULL, 0);
}

coax_code coax_write_buf_reusing(coax_buf *b, const coax_value *v, unsigned flags, const coax_escaped *known,
                                 size_t nknown)
{
    wframe small[32], *st = small;
    size_t n = 0, cap = 32;
    const coax_allocator *a = b->alloc;
    const coax_value *cur = v;
    for (;;) {
        if (cur) {
            bool container = cur->type == COAX_ARRAY || cur->type == COAX_OBJECT;
            if (!container) {
                scalar(b, cur, known, nknown);
            } else if (cur->len == 0) {
                coax_buf_put(b, cur->type == COAX_ARRAY ? "[]" : "{}", 2);
            } else {
                if (n == cap) {
                    wframe *ns = st == small ? coax_alloc_raw(a, 2 * cap * sizeof *ns)
                                             : coax_realloc_raw(a, st, cap * sizeof *ns,
                                                                2 * cap * sizeof *ns);
                    if (!ns) {
                        b->oom = true;
                        break;
                    }
                    if (st == small) memcpy(ns, small, sizeof small);
                    st = ns;
                    cap *= 2;
                }
                coax_buf_putc(b, cur->type == COAX_ARRAY ? '[' : '{');
                st[n++] = (wframe){cur, 0};
            }
            cur = NULL;
        }
        if (n == 0 || b->oom) break;
        wframe *f = &st[n - 1];
        if (f->i == f->v->len) {
            n--;
            newline(b, flags, n);
            coax_buf_putc(b, f->v->type == COAX_ARRAY ? ']' : '}');
            continue;
        }
        if (f->i) coax_buf_putc(b, ',');
        newline(b, flags, n);
        if (f->v->type == COAX_ARRAY) {
            cur = &f->v->u.items[f->i];
        } else {
            const coax_member *m = &f->v->u.members[f->i];
            coax_buf_put_json_string(b, m->key, m->klen);
            coax_buf_put(b, ": ", (flags & COAX_WRITE_PRETTY) ? 2 : 1);
            cur = &m->value;
        }
        f->i++;
    }
    if (st != small) coax_free_raw(a, st, cap * sizeof *st);
    return b->oom ? COAX_ENOMEM : COAX_OK;
}

size_t coax_pretty_extra(const coax_allocator *a, const coax_value *v)
{
    wframe small[32], *st = small;
    size_t n = 0, cap = 32, extra = 0;
    const coax_value *cur = v;
    for (;;) {
        if (cur && (cur->type == COAX_ARRAY || cur->type == COAX_OBJECT) && cur->len) {
            if (n == cap) {
                wframe *ns = st == small ? coax_alloc_raw(a, 2 * cap * sizeof *ns)
                                         : coax_realloc_raw(a, st, cap * sizeof *ns, 2 * cap * sizeof *ns);
                if (!ns) {
                    extra = SIZE_MAX;
                    break;
                }
                if (st == small) memcpy(ns, small, sizeof small);
                st = ns;
                cap *= 2;
            }
            st[n++] = (wframe){cur, 0};
            extra += 1 + 2 * (n - 1); /* the closer's line */
        }
        cur = NULL;
        if (n == 0) break;
        wframe *f = &st[n - 1];
        if (f->i == f->v->len) {
            n--;
            continue;
        }
        extra += 1 + 2 * n + (f->v->type == COAX_OBJECT); /* the item's line; ": " for ":" */
        cur = f->v->type == COAX_ARRAY ? &f->v->u.items[f->i] : &f->v->u.members[f->i].value;
        f->i++;
    }
    if (st != small) coax_free_raw(a, st, cap * sizeof *st);
    return extra;
}

coax_code coax_write(const coax_value *v, unsigned flags,
                     const coax_allocator *alloc, char **out, size_t *len)
{
    if (!v || !out || coax_allocator_incomplete(alloc)) return COAX_EINVAL;
    coax_buf b;
    coax_buf_init(&b, alloc);
    coax_code rc = coax_write_buf(&b, v, flags);
    char *s = rc ? NULL : coax_buf_take(&b, len);
    if (!s) {
        coax_buf_free(&b);
        return COAX_ENOMEM;
    }
    *out = s;
    return COAX_OK;
}
