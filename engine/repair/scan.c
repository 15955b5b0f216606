/*
** scan.c: where JSON may be in a model's reply.
**
** One pass over the text finds reasoning blocks (<think>...</think>, skipped;
** a reply holding only the closing tag began inside one),
** fenced code blocks (``` or ~~~, JSON-like languages only), tagged blocks
** (<json>{...}</json>, any tag whose content starts with { or [), and the
** maximal balanced {...} / [...] spans of the remaining prose (a bracket
** inside a "string" does not count). An unclosed span is kept as one
** truncated candidate when it looks like JSON; a stray "[" in prose does not
** hide a complete object inside it. When the text itself begins with a value
** (after any reasoning) and holds no blocks, the whole text is a candidate
** too: it sees concatenated values and NDJSON.
*/
#include "repair/repair.h"

#include "base/bytes.h"


static inline bool add(rspans *out, coax_source src, size_t start, size_t end, bool complete, size_t mark)
{
    if (out->n == out->cap && !coax_grow(out->alloc, (void **)&out->s, &out->cap, out->n + 1, sizeof *out->s, out->first))
        return false;
    out->s[out->n++] = (rspan){src, start, end, complete, mark, false};
    return true;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static size_t skip_spaces(const char *t, size_t i, size_t len)
{
    while (i < len && is_space(t[i])) i++;
    return i;
}

/* Finds 'needle' in t[from..len); returns its offset or len. Inline: the
** needles are constants (Kimi's marker is looked for in every reply), and
** the memcmp of a known length then is a compare or two, not a call. */
static inline __attribute__((always_inline)) size_t find(const char *t, size_t from, size_t len, const char *needle,
                                                         size_t n)
{
    while (from + n <= len) {
        const char *hit = memchr(t + from, needle[0], len - from - n + 1);
        if (!hit) return len;
        size_t at = (size_t)(hit - t);
        if (memcmp(hit, needle, n) == 0) return at;
        from = at + 1;
    }
    return len;
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

bool repair_is_reasoning(const char *name, size_t n)
{
    static const char *const names[] = {"think", "thinking", "reasoning", "reflection", "scratchpad", "analysis"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == n && coax_ascii_casesame(name, names[i], n)) return true;
    return false;
}

static bool json_language(const char *lang, size_t n)
{
    static const char *const langs[] = {"json", "jsonc", "json5", "jsonl", "ndjson", "javascript", "js"};
    if (n == 0) return true;
    for (size_t i = 0; i < sizeof langs / sizeof *langs; i++)
        if (strlen(langs[i]) == n && coax_ascii_casesame(lang, langs[i], n)) return true;
    return false;
}

/* The prose bracket tracker. */
typedef struct prose {
    size_t *open; /* offsets of open brackets ('first_open' to start with) */
    size_t n, cap;
    bool in_string;
    rspans done; /* maximal complete spans, in text order */
    size_t first_open[16];
} prose;

/* Field by field: the first blocks are written only as brackets and spans come. */
static void prose_init(prose *pr, const coax_allocator *a)
{
    pr->open = pr->first_open;
    pr->n = 0;
    pr->cap = sizeof pr->first_open / sizeof *pr->first_open;
    pr->in_string = false;
    rspans_init(&pr->done, a);
}

static void prose_free(prose *pr, const coax_allocator *a)
{
    if (pr->open != pr->first_open) coax_free_raw(a, pr->open, pr->cap * sizeof *pr->open);
    rspans_free(&pr->done);
}

static inline __attribute__((always_inline)) bool prose_push(prose *pr, size_t at, const coax_allocator *a)
{
    if (pr->n == pr->cap && !coax_grow(a, (void **)&pr->open, &pr->cap, pr->n + 1, sizeof *pr->open, pr->first_open))
        return false;
    pr->open[pr->n++] = at;
    return true;
}

/* A span closed: it replaces the spans it contains. */
static inline __attribute__((always_inline)) bool prose_close(prose *pr, size_t start, size_t end)
{
    while (pr->done.n && pr->done.s[pr->done.n - 1].start > start) pr->done.n--;
    return add(&pr->done, COAX_SOURCE_PROSE, start, end, true, start);
}

/* An open span at the end of the prose (truncated) replaces the complete
** spans found inside it, and they stay behind it as its fallbacks: if it is
** over a limit, it is a rejected candidate and they are tried instead (as
** fragments of it, so never accepted as certain). */
static bool prose_truncated(prose *pr, size_t start, size_t end)
{
    rspans *d = &pr->done;
    size_t k = d->n;
    while (k && d->s[k - 1].start > start) k--;
    size_t m = d->n - k;
    if (!add(d, COAX_SOURCE_PROSE, start, end, false, start)) return false;
    memmove(d->s + k + 1, d->s + k, m * sizeof *d->s);
    d->s[k] = (rspan){COAX_SOURCE_PROSE, start, end, false, start, false};
    for (size_t r = k + 1; r <= k + m; r++) d->s[r].fallback = true;
    return true;
}

/* Whether t[from..end), after a list's opening bracket the reply ends inside, is items of numbers, true, false
** or null ("[1, 2", "[-1", "[true"): a list cut off, no citation's "[1" nor prose's words. */
static bool scalar_items(const char *t, size_t from, size_t end)
{
    static const uint8_t item[256] = {['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
                                      ['7'] = 1, ['8'] = 1, ['9'] = 1, ['.'] = 1, ['-'] = 1, ['+'] = 1, ['e'] = 1,
                                      ['E'] = 1, [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1, [','] = 1,
                                      ['t'] = 1, ['r'] = 1, ['u'] = 1, ['f'] = 1, ['a'] = 1, ['l'] = 1, ['s'] = 1,
                                      ['n'] = 1};
    bool citation = true; /* digits alone, "[1" */
    if (from >= end || !coax_byte_in("0123456789-tfn", t[from])) return false;
    for (size_t k = from; k < end; k++) {
        if (!item[(unsigned char)t[k]]) return false;
        citation = citation && (t[k] >= '0' && t[k] <= '9');
    }
    return !citation;
}

/* Whether t[from..end), after a list's opening bracket the reply ends inside, is two words or more, each one
** word, parted by commas ("[red, blue", "[red, blue,"): a list of bare words cut off, as "[1, 2" is; prose's
** open bracket holds words with spaces between them ("[see below", "[red, blue are the colors"). */
static bool word_items(const char *t, size_t from, size_t end)
{
    size_t commas = 0, len = 0; /* the commas, the bytes of the item so far */
    for (size_t k = from; k < end; k++) {
        unsigned char c = (unsigned char)t[k];
        if (c == ',') {
            if (!len) return false;
            commas++, len = 0;
            k = skip_spaces(t, k + 1, end) - 1;
        } else if ((unsigned)((c | 0x20) - 'a') < 26u || (unsigned)(c - '0') < 10u || coax_byte_in("-_", (char)c) ||
                   c >= 0x80) {
            len++;
        } else {
            return false;
        }
    }
    return commas > 0;
}

/* Moves the prose spans found so far to 'out'; an open span becomes a
** truncated candidate when it looks like JSON (an object, or an array of
** containers or strings), replacing the spans inside it. */
static bool prose_flush(prose *pr, const char *t, size_t end, rspans *out)
{
    bool ok = true;
    if (pr->n) {
        size_t at = pr->open[0];
        size_t next = skip_spaces(t, at + 1, end);
        bool jsonish = t[at] == '{' || (next < end && (t[next] == '{' || t[next] == '[' || t[next] == '"')) ||
                       scalar_items(t, next, end) || word_items(t, next, end);
        if (jsonish) ok = prose_truncated(pr, at, end);
    }
    for (size_t i = 0; ok && i < pr->done.n; i++) {
        ok = add(out, COAX_SOURCE_PROSE, pr->done.s[i].start, pr->done.s[i].end, pr->done.s[i].complete,
                 pr->done.s[i].mark);
        if (ok) out->s[out->n - 1].fallback = pr->done.s[i].fallback;
    }
    pr->done.n = 0;
    pr->n = 0;
    pr->in_string = false;
    return ok;
}

/* The closing fence of a block whose content starts at 'body': the next
** fence of 'c', passing over fenced strings inside ("code": ```...```). */
static size_t fence_close_first(const char *t, size_t body, size_t len, char c, repair_fence_memo *fences)
{
    char marker[3] = {c, c, c};
    for (size_t from = body;;) {
        size_t k = find(t, from, len, marker, 3);
        size_t cs, ce, end;
        if (k < len && c == '`' && repair_value_fence(t, k) &&
            (end = repair_fenced_string(t, k, len, &cs, &ce, fences)))
            from = end;
        else
            return k;
    }
}

/* The bytes fence_close looks at. */
static const uint8_t fence_bytes[256] = {['"'] = 1, ['\\'] = 1, ['`'] = 1, ['~'] = 1};

/* Whether the fence at t[k] (of length n) is alone on its line. */
static bool fence_alone(const char *t, size_t k, size_t n, size_t len)
{
    size_t b = k;
    while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    if (b > 0 && t[b - 1] != '\n') return false;
    size_t a = k + n;
    while (a < len && (t[a] == ' ' || t[a] == '\t' || t[a] == '\r')) a++;
    return a == len || t[a] == '\n';
}

/* The closing fence, passing over fences inside the block's JSON strings
** ("code": "```\nx = 1\n```" with raw new lines): a fence in a string
** closes the block only when it is alone on its line. A block whose
** strings never settle (an odd quote in prose) falls back to the first
** fence; '*loose_from' remembers where that happened, so that later blocks
** do not scan to the end again. */
static size_t fence_close(const char *t, size_t body, size_t len, char c, repair_fence_memo *fences,
                          size_t *loose_from)
{
    size_t first = fence_close_first(t, body, len, c, fences);
    /* A first fence alone on its line closes the block in any reading. */
    if (first >= len || body >= *loose_from || fence_alone(t, first, repair_fence_at(t, first, len), len)) return first;
    bool in_string = false;
    for (size_t k = body; k < len; k++) {
        while (len - k >= 4 && !(fence_bytes[(unsigned char)t[k]] | fence_bytes[(unsigned char)t[k + 1]] |
                                 fence_bytes[(unsigned char)t[k + 2]] | fence_bytes[(unsigned char)t[k + 3]]))
            k += 4; /* only quotes, backslashes and fence characters matter */
        while (k < len && !fence_bytes[(unsigned char)t[k]]) k++;
        if (k >= len) break;
        if (in_string && t[k] == '\\') {
            k++;
            continue;
        }
        if (t[k] == '"') {
            in_string = !in_string;
            continue;
        }
        size_t n = t[k] == c ? repair_fence_at(t, k, len) : 0;
        if (!n) continue;
        size_t cs, ce, end;
        if (!in_string && c == '`' && repair_value_fence(t, k) &&
            (end = repair_fenced_string(t, k, len, &cs, &ce, fences))) {
            k = end - 1;
            continue;
        }
        if (!in_string || fence_alone(t, k, n, len)) return k;
        k += n - 1;
    }
    *loose_from = body;
    return first;
}

/* The end of the info string (c++, json) from 'i' after a fence. */
static size_t info_string_end(const char *t, size_t i, size_t len)
{
    while (i < len && (is_name_char(t[i]) || t[i] == '+')) i++;
    return i;
}

/* The line break ending the line from 'i' when only blanks come before it,
** else SIZE_MAX. */
static size_t blank_line_end(const char *t, size_t i, size_t len)
{
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r')) i++;
    return i < len && t[i] == '\n' ? i : SIZE_MAX;
}

/* The line break ending an info string's attributes after its language, a title or a file name (```json
** title="answer.json", ```json:answer.json), when the line holds no bracket that could open a value on it; else SIZE_MAX. */
static size_t info_attributes_end(const char *t, size_t i, size_t len)
{
    for (; i < len && t[i] != '\n'; i++)
        if (t[i] == '{' || t[i] == '[' || t[i] == '`' || t[i] == '~') return SIZE_MAX;
    return i < len ? i : SIZE_MAX;
}

/* Whether the fence ending at 'i' is followed by an info string alone on
** its line and then by more text. */
static bool fence_opens_too(const char *t, size_t i, size_t len)
{
    size_t k = info_string_end(t, i, len), nl;
    return k != i && (nl = blank_line_end(t, k, len)) != SIZE_MAX && skip_spaces(t, nl, len) < len;
}

/* Bytes the scanner stops at: 1 in prose, 2 inside a string too. */
static const uint8_t stops[256] = {
    ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, ['`'] = 1, ['~'] = 1, ['<'] = 1,
    ['"'] = 3, ['\\'] = 2, ['\n'] = 2,
};

/* Where the stops of the sixteen bytes at 'at' are, once worked out:
** bit k of 'prose' (of 'string') is set when t[at + k] stops the scanner
** in prose (inside a string). Stops come every few bytes in JSON, so one
** block serves several. */
typedef struct stop_block {
    size_t at, end; /* end == at: none yet */
    unsigned prose, string;
} stop_block;

#if BYTES16
/* '[' and '{' (0x5B, 0x7B) are the bytes that are '{' once bit 5 is set;
** ']' and '}' alike. */
static inline __m128i opens16(__m128i w) { return _mm_cmpeq_epi8(_mm_or_si128(w, _mm_set1_epi8(0x20)), _mm_set1_epi8('{')); }
static inline __m128i closes16(__m128i w) { return _mm_cmpeq_epi8(_mm_or_si128(w, _mm_set1_epi8(0x20)), _mm_set1_epi8('}')); }
#endif

/* The next byte at or after i that matters ('mask': 1 prose, 2 string). */
static inline size_t next_stop(const char *t, size_t i, size_t len, uint8_t mask, stop_block *sb)
{
#ifdef __SSE2__
    for (;;) {
        if (i >= sb->at && i < sb->end) {
            unsigned m = (mask == 1 ? sb->prose : sb->string) >> (i - sb->at);
            if (m) return i + (size_t)__builtin_ctz(m);
            i = sb->end;
        }
        if (len - i < 16) break;
        __m128i w = _mm_loadu_si128((const __m128i *)(t + i));
#define STOP_EQ(c) _mm_cmpeq_epi8(w, _mm_set1_epi8(c))
        __m128i quote = STOP_EQ('"');
        __m128i brackets = _mm_or_si128(opens16(w), closes16(w)); /* two compares for the four */
        __m128i prose = _mm_or_si128(
            brackets, _mm_or_si128(_mm_or_si128(STOP_EQ('`'), STOP_EQ('~')), _mm_or_si128(STOP_EQ('<'), quote)));
        __m128i string = _mm_or_si128(quote, _mm_or_si128(STOP_EQ('\\'), STOP_EQ('\n')));
#undef STOP_EQ
        sb->at = i;
        sb->end = i + 16;
        sb->prose = (unsigned)_mm_movemask_epi8(prose);
        sb->string = (unsigned)_mm_movemask_epi8(string);
    }
#else
    (void)sb;
#endif
    while (len - i >= 4 && !((stops[(unsigned char)t[i]] | stops[(unsigned char)t[i + 1]] |
                              stops[(unsigned char)t[i + 2]] | stops[(unsigned char)t[i + 3]]) & mask))
        i += 4;
    while (i < len && !(stops[(unsigned char)t[i]] & mask)) i++;
    return i;
}

#if BYTES16
/* The 64-bit mask of four sixteen-byte comparisons, in text order. */
static inline uint64_t mask64(__m128i m0, __m128i m1, __m128i m2, __m128i m3)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(m0) | (uint64_t)(unsigned)_mm_movemask_epi8(m1) << 16 |
           (uint64_t)(unsigned)_mm_movemask_epi8(m2) << 32 | (uint64_t)(unsigned)_mm_movemask_epi8(m3) << 48;
}

/* Whether one of the sixteen bytes in w asks the byte loop to look: a
** fence or tag byte (` ~ <) or a backslash. */
static inline __m128i block_bytes(__m128i w)
{
    return _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('`')), _mm_cmpeq_epi8(w, _mm_set1_epi8('~'))),
                        _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('<')), _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))));
}

/* Where the sixteen bytes in w hold a fence or tag byte (` ~ <). */
static inline __m128i fence_tag_bytes(__m128i w)
{
    return _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('`')), _mm_cmpeq_epi8(w, _mm_set1_epi8('~'))),
                        _mm_cmpeq_epi8(w, _mm_set1_epi8('<')));
}

static inline __m128i eq16(__m128i w, char c) { return _mm_cmpeq_epi8(w, _mm_set1_epi8(c)); }

/* Bit k of the result: the parity of bits 0..k of x. */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* What prose_block64 reads of 64 bytes, bit k for byte k: whether any
** asks the byte loop to look (block_bytes), the quotes, the line breaks,
** the opening and the closing brackets. */
typedef struct block_bits {
    bool look;
    uint64_t quotes, nls, opens, closes;
} block_bits;

/* The masks from four sixteen-byte blocks (the quotes, line breaks and
** brackets only when no byte asks the byte loop to look). */
static inline __attribute__((always_inline)) void bits16x4(const char *p, block_bits *b)
{
    __m128i w0 = bytes16_load(p), w1 = bytes16_load(p + 16), w2 = bytes16_load(p + 32), w3 = bytes16_load(p + 48);
    b->look = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(block_bytes(w0), block_bytes(w1)),
                                             _mm_or_si128(block_bytes(w2), block_bytes(w3))));
    if (b->look) return;
    b->quotes = mask64(eq16(w0, '"'), eq16(w1, '"'), eq16(w2, '"'), eq16(w3, '"'));
    b->nls = mask64(eq16(w0, '\n'), eq16(w1, '\n'), eq16(w2, '\n'), eq16(w3, '\n'));
    b->opens = mask64(opens16(w0), opens16(w1), opens16(w2), opens16(w3));
    b->closes = mask64(closes16(w0), closes16(w1), closes16(w2), closes16(w3));
}

#if BYTES32
/* The fence and tag bytes (` ~ <: 0x60, 0x7E, 0x3C) of w, as 0xFF: each
** is looked up by its low nibble (0, E, C) in a table that holds 0 under
** the other nibbles, which no byte with such a nibble equals, and a byte
** is one of them when the table gives it back (a byte from 0x80 gets 0):
** a shuffle and a compare, not three compares and two ors. */
static inline BYTES32_TARGET __m256i fence_tag_wide(__m256i w)
{
    const __m256i by_low = _mm256_setr_epi8('`', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '<', 0, '~', 0, '`', 0, 0, 0, 0, 0,
                                            0, 0, 0, 0, 0, 0, '<', 0, '~', 0);
    return _mm256_cmpeq_epi8(_mm256_shuffle_epi8(by_low, w), w);
}

/* bits16x4 by AVX2. */
static inline BYTES32_TARGET void bits32x2(const char *p, block_bits *b)
{
    __m256i w0 = _mm256_loadu_si256((const __m256i *)p), w1 = _mm256_loadu_si256((const __m256i *)(p + 32));
#define EQ32(w, c) _mm256_cmpeq_epi8(w, _mm256_set1_epi8(c))
#define MASK32(m0, m1) \
    ((uint64_t)(uint32_t)_mm256_movemask_epi8(m0) | (uint64_t)(uint32_t)_mm256_movemask_epi8(m1) << 32)
    /* the backslash (0x5C) has '<''s low nibble: a compare of its own */
    __m256i look = _mm256_or_si256(_mm256_or_si256(fence_tag_wide(w0), EQ32(w0, '\\')),
                                   _mm256_or_si256(fence_tag_wide(w1), EQ32(w1, '\\')));
    b->look = _mm256_movemask_epi8(look);
    if (b->look) return;
    __m256i x0 = _mm256_or_si256(w0, _mm256_set1_epi8(0x20)), x1 = _mm256_or_si256(w1, _mm256_set1_epi8(0x20));
    b->quotes = MASK32(EQ32(w0, '"'), EQ32(w1, '"'));
    b->nls = MASK32(EQ32(w0, '\n'), EQ32(w1, '\n'));
    b->opens = MASK32(EQ32(x0, '{'), EQ32(x1, '{')); /* as opens16 and closes16 */
    b->closes = MASK32(EQ32(x0, '}'), EQ32(x1, '}'));
#undef EQ32
#undef MASK32
}
#endif

/* Inside brackets, the 64 bytes at t[*ip] read from bit masks, as the byte
** loop would read them: a quote toggles a string, brackets outside strings
** open and close spans. Only a block with nothing else that matters: no
** fence or tag byte (` ~ <), no backslash, no line break inside a string
** (the loop looks for a fence after one). '*ip' is left as it is when the
** block is not for this way, and stops after a bracket that closes the
** outermost span (quotes in prose around spans open no string). Returns
** false when memory ran out. 'wide': bits32x2 reads the masks (a
** constant, true only in a BYTES32_TARGET function). */
static inline __attribute__((always_inline)) bool prose_block64(prose *pr, const char *t, size_t *ip,
                                                                const coax_allocator *a, bool wide)
{
    size_t i = *ip;
    block_bits b;
#if BYTES32
    if (wide) bits32x2(t + i, &b);
    else
#endif
        bits16x4(t + i, &b);
    if (b.look) return true;
    uint64_t quotes = b.quotes, parity = prefix_xor(quotes);
    uint64_t in_string = (pr->in_string ? ~parity : parity) & ~quotes; /* bytes inside strings, but quotes */
    if (b.nls & in_string) return true;
    uint64_t opens = b.opens;
    uint64_t brackets = (opens | b.closes) & ~in_string;
    for (; brackets; brackets &= brackets - 1) {
        unsigned k = (unsigned)__builtin_ctzll(brackets);
        if (opens >> k & 1) {
            if (!prose_push(pr, i + k, a)) return false;
            continue;
        }
        size_t start = pr->open[--pr->n];
        if (t[start] == (t[i + k] == '}' ? '{' : '[') && !prose_close(pr, start, i + k + 1)) return false;
        if (pr->n == 0) { /* outside a string there */
            pr->in_string = false;
            *ip = i + k + 1;
            return true;
        }
    }
    pr->in_string ^= (bool)(parity >> 63);
    *ip = i + 64;
    return true;
}

/* prose_block64 block after block while brackets are open and 64 bytes
** are left; '*retry' is set past a block it left to the byte loop. False
** when memory ran out. A call for a run of blocks, each way compiled
** apart (prose_blocks16, prose_blocks32): a call for each block saved six
** registers and loaded the block's constants again every 64 bytes. */
static inline __attribute__((always_inline)) bool prose_blocks(prose *pr, const char *t, size_t *ip, size_t len,
                                                               size_t *retry, const coax_allocator *a, bool wide)
{
    while (pr->n && len - *ip >= 64) {
        size_t from = *ip;
        if (!prose_block64(pr, t, ip, a, wide)) return false;
        if (*ip == from) {
            *retry = from + 64;
            break;
        }
    }
    return true;
}

static bool prose_blocks16(prose *pr, const char *t, size_t *ip, size_t len, size_t *retry, const coax_allocator *a)
{
    return prose_blocks(pr, t, ip, len, retry, a, false);
}

#if BYTES32
static BYTES32_TARGET bool prose_blocks32(prose *pr, const char *t, size_t *ip, size_t len, size_t *retry,
                                          const coax_allocator *a)
{
    return prose_blocks(pr, t, ip, len, retry, a, true);
}
#endif
#endif

/* Where the whole text's candidate starts (after reasoning, spaces and
** byte order marks), or SIZE_MAX when no value starts there. */
static size_t whole_start(const char *t, size_t len, size_t reasoning_end)
{
    size_t s = reasoning_end;
    for (;;) { /* spaces, a byte order mark */
        s = skip_spaces(t, s, len);
        if (len - s >= 3 && !memcmp(t + s, "\xEF\xBB\xBF", 3)) s += 3;
        else break;
    }
    return repair_value_starts(t + s, t + len) && !repair_fence_at(t, s, len) && !repair_field_marker_at(t + s, t + len)
               ? s
               : SIZE_MAX;
}

#if BYTES32
/* quiet_from's look for 64 bytes with none of its bytes, by AVX2 (where
** the CPU has it): from len back, the offset of the 64 bytes where one is,
** or the offset below 64 that is left. */
static BYTES32_TARGET size_t quiet_wide(const char *t, size_t i)
{
    for (; i >= 64; i -= 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(t + i - 64));
        __m256i b = _mm256_loadu_si256((const __m256i *)(t + i - 32));
        if (_mm256_movemask_epi8(_mm256_or_si256(fence_tag_wide(a), fence_tag_wide(b)))) break;
    }
    return i;
}
#endif

/* The offset just past the last byte that can begin a block or a reasoning
** block (a fence's ` or ~, a tag's <), 0 when there is none: from there on
** the scan finds prose spans only. Read from the end, sixteen bytes at a
** time. */
static size_t quiet_from(const char *t, size_t len)
{
    size_t i = len;
#if BYTES32
    if (len >= 64 && bytes32_ok()) i = quiet_wide(t, i);
#endif
#if BYTES16
    for (; i >= 64; i -= 64) { /* none in 64 bytes: mostly */
        const char *b = t + i - 64;
        __m128i x = _mm_or_si128(
            _mm_or_si128(fence_tag_bytes(bytes16_load(b)), fence_tag_bytes(bytes16_load(b + 16))),
            _mm_or_si128(fence_tag_bytes(bytes16_load(b + 32)), fence_tag_bytes(bytes16_load(b + 48))));
        if (_mm_movemask_epi8(x)) break; /* the loop below finds the last one */
    }
    for (; i >= 16; i -= 16) {
        __m128i w = bytes16_load(t + i - 16);
        unsigned m = bytes16_eq(w, '`') | bytes16_eq(w, '~') | bytes16_eq(w, '<');
        if (m) return i - 16 + (size_t)(32 - __builtin_clz(m));
    }
#endif
    while (i > 0 && t[i - 1] != '`' && t[i - 1] != '~' && t[i - 1] != '<') i--;
    return i;
}

/* Where Kimi's reasoning (◁think▷ ... ◁/think▷, in no tag the scan
** reads) ends: after its closing marker, all before it reasoning as
** before a stray </think>; at the end for an opening one at the start
** left open (the JSON in it a draft); 0 for none. A closing marker after
** an odd count of quotes is in a string ({"note": "◁/think▷", ...}):
** text, not the end of reasoning. */
static size_t kimi_reasoning_end(const char *t, size_t len)
{
    static const char open[] = "\xE2\x97\x81think\xE2\x96\xB7", close[] = "\xE2\x97\x81/think\xE2\x96\xB7";
    size_t quotes = 0, counted = 0; /* the quotes not escaped in t[0..counted) */
    for (size_t c = find(t, 0, len, close, sizeof close - 1); c < len;
         c = find(t, c + sizeof close - 1, len, close, sizeof close - 1)) {
        for (; counted < c; counted++)
            if (t[counted] == '"' && !(counted && t[counted - 1] == '\\')) quotes++;
        if (quotes % 2 == 0) return c + sizeof close - 1;
    }
    size_t s = skip_spaces(t, 0, len);
    return len - s >= sizeof open - 1 && !memcmp(t + s, open, sizeof open - 1) ? len : 0;
}

coax_code repair_scan(const char *t, size_t len, bool lazy, rspans *out, size_t *reasoning_end, bool *partial)
{
    const coax_allocator *a = out->alloc;
    size_t quiet = SIZE_MAX; /* quiet_from's answer, worked out when a value starts */
    *partial = false;
    prose pr;
    prose_init(&pr, a);
    bool ok = true;
    size_t blocks = 0; /* fenced and tagged candidates found */
    repair_fence_memo fences; /* repair_fenced_string's */
    fences.ready = false;
    size_t loose_from = SIZE_MAX; /* fence_close's cache */
    stop_block blk = {0, 0, 0, 0};
    *reasoning_end = 0;
    size_t i = kimi_reasoning_end(t, len), whole = SIZE_MAX;
    *reasoning_end = i;
    /* Lazily, the text that begins with a value past its last block byte
    ** gives the whole text's candidate alone: the spans of its prose count
    ** only when that candidate has text left over, and the caller then
    ** scans again in full. */
    bool whole0 = lazy && !i; /* whole holds whole_start(t, len, 0): the end asks it again when no reasoning came first */
    if (whole0 && (whole = whole_start(t, len, 0)) != SIZE_MAX && (quiet = quiet_from(t, len)) == 0) goto whole_only;
#if BYTES16
    size_t retry = 0; /* where prose_block64 is tried again after a block it left */
#if BYTES32
    bool wide = bytes32_ok();
#endif
#endif
    while (ok && i < len) {
#if BYTES16
        if (pr.n && i >= retry && len - i >= 64) {
#if BYTES32
            if (wide) ok = prose_blocks32(&pr, t, &i, len, &retry, a);
            else
#endif
                ok = prose_blocks16(&pr, t, &i, len, &retry, a);
            if (!ok) break;
        }
#endif
        i = next_stop(t, i, len, pr.in_string ? 2 : 1, &blk);
        if (i >= len) break;
        char c = t[i];
        if (pr.in_string) {
            if (c == '\n') { /* a fence at a line start ends a stray string */
                size_t k = i + 1;
                while (k < len && (t[k] == ' ' || t[k] == '\t')) k++;
                if (repair_fence_at(t, k, len)) {
                    ok = prose_flush(&pr, t, i, out);
                    i = k;
                    continue;
                }
                i++;
                continue;
            }
            if (c == '\\') i += 2;
            else {
                if (c == '"') pr.in_string = false;
                i++;
            }
            continue;
        }
        switch (c) {
        case '[': {
            size_t m = pr.n ? 0 : repair_field_marker_at(t + i, t + len);
            if (m) {
                i += m;
                continue;
            }
        }
        /* fallthrough */
        case '{':
            ok = prose_push(&pr, i, a);
            i++;
            continue;
        case '}': case ']':
            if (pr.n) {
                size_t start = pr.open[--pr.n];
                if (t[start] == (c == '}' ? '{' : '[')) ok = prose_close(&pr, start, i + 1);
            }
            i++;
            continue;
        case '"':
            if (pr.n) pr.in_string = true;
            i++;
            continue;
        case '`': case '~': {
            size_t fn = repair_fence_at(t, i, len);
            if (!fn) break;
            if (pr.n && repair_value_fence(t, i)) { /* "code": ```...```: a string, not a block */
                size_t cs, ce, end = repair_fenced_string(t, i, len, &cs, &ce, &fences);
                i = end ? end : i + fn;
                continue;
            }
            ok = prose_flush(&pr, t, i, out);
            size_t lang = i + fn, le = info_string_end(t, lang, len), nl = blank_line_end(t, le, len);
            if (nl == SIZE_MAX && le > lang && le < len && (t[le] == ' ' || t[le] == '\t' || t[le] == ':'))
                nl = info_attributes_end(t, le, len);
            size_t body = nl != SIZE_MAX ? nl + 1 : le;
            size_t close = fence_close(t, body, len, t[i], &fences, &loose_from);
            size_t first = skip_spaces(t, body, close);
            size_t marker = first < close ? repair_field_marker_at(t + first, t + close) : 0;
            if (marker) body = first = skip_spaces(t, first + marker, close); /* DSPy's field heading: the value next */
            /* Other languages count when the block holds a literal. */
            /* A fence with nothing after it but spaces is no block, nor one with no language never
            ** closed before prose: a closing fence whose opener the reply lacks ({...}⏎```, then
            ** "Hope it helps") would hide the whole text's reading. */
            bool json = le > lang ? json_language(t + lang, le - lang)
                                  : close < len || repair_value_starts(t + first, t + close);
            if (ok && first < close && (json || t[first] == '{' || t[first] == '[')) {
                ok = add(out, COAX_SOURCE_FENCED, body, close, close < len, i);
                blocks++;
            }
            /* A closing fence with an info string (```json) opens the next
            ** block as well: read only as a closer, it would hide a second
            ** answer behind the first. */
            i = close < len ? close + repair_fence_at(t, close, len) : len;
            if (close < len && fence_opens_too(t, i, len)) i = close;
            continue;
        }
        case '<': {
            size_t rn = i + 2;
            while (i + 1 < len && t[i + 1] == '/' && rn < len && is_name_char(t[rn]) && rn - i < 36) rn++;
            /* A reasoning block's closing tag with none opened before it:
            ** the reply began inside it (a template that writes "<think>"
            ** into the prompt), so all before it is reasoning, the JSON
            ** there a draft as in any reasoning block. Not inside a span. */
            if (rn > i + 2 && rn < len && t[rn] == '>' && !*reasoning_end && !pr.n &&
                repair_is_reasoning(t + i + 2, rn - i - 2)) {
                out->n = 0;
                pr.done.n = 0;
                blocks = 0;
                *reasoning_end = i = rn + 1;
                if (lazy && (whole = whole_start(t, len, i)) != SIZE_MAX &&
                    i >= (quiet != SIZE_MAX ? quiet : (quiet = quiet_from(t, len))))
                    goto whole_only;
                continue;
            }
            /* The harmony format's analysis channel (gpt-oss's raw reply)
            ** is reasoning up to its <|end|>: the final channel follows. */
            static const char analysis[] = "<|channel|>analysis<|message|>";
            if (len - i >= sizeof analysis - 1 && !memcmp(t + i, analysis, sizeof analysis - 1)) {
                ok = prose_flush(&pr, t, i, out);
                size_t end = find(t, i + sizeof analysis - 1, len, "<|end|>", 7);
                *reasoning_end = i = end < len ? end + 7 : len;
                if (ok && lazy && blocks == 0 && (whole = whole_start(t, len, i)) != SIZE_MAX &&
                    i >= (quiet != SIZE_MAX ? quiet : (quiet = quiet_from(t, len))))
                    goto whole_only;
                continue;
            }
            size_t n = i + 1;
            while (n < len && is_name_char(t[n])) n++;
            size_t nlen = n - i - 1;
            if (nlen == 0 || n >= len || t[n] != '>' || nlen > 32) break;
            char closing[40];
            closing[0] = '<';
            closing[1] = '/';
            memcpy(closing + 2, t + i + 1, nlen);
            closing[nlen + 2] = '>';
            size_t body = n + 1;
            bool reasoning = repair_is_reasoning(t + i + 1, nlen);
            /* Look for the closing tag only for a tag that matters: a
            ** reasoning block, or content that starts like JSON (a search
            ** per ordinary tag would be quadratic in tag soup). */
            size_t first = skip_spaces(t, body, len);
            if (!reasoning && !(first < len && (t[first] == '{' || t[first] == '['))) break;
            size_t end = find(t, body, len, closing, nlen + 3);
            if (reasoning) {
                ok = prose_flush(&pr, t, i, out);
                *reasoning_end = end < len ? end + nlen + 3 : len;
                i = *reasoning_end;
                if (ok && lazy && blocks == 0 && (whole = whole_start(t, len, i)) != SIZE_MAX &&
                    i >= (quiet != SIZE_MAX ? quiet : (quiet = quiet_from(t, len))))
                    goto whole_only;
                continue;
            }
            if (first < end) {
                ok = prose_flush(&pr, t, i, out) &&
                     add(out, COAX_SOURCE_TAGGED, body, end, end < len, i);
                blocks++;
                i = end < len ? end + nlen + 3 : len;
                continue;
            }
            break;
        }
        default:
            break;
        }
        i++;
    }
    if (ok) ok = prose_flush(&pr, t, len, out);
    prose_free(&pr, a);
    if (!ok) return COAX_ENOMEM;
    /* The whole text, when it begins with a value and holds no blocks. It
    ** comes first; a prose span that is the same text is dropped. */
    if (blocks == 0) {
        size_t s = whole0 && !*reasoning_end ? whole : whole_start(t, len, *reasoning_end);
        if (s != SIZE_MAX) {
            if (out->n && out->s[0].start == s && skip_spaces(t, out->s[0].end, len) == len) {
                out->s[0] = (rspan){COAX_SOURCE_WHOLE, *reasoning_end, len, true, s, false};
            } else {
                if (!add(out, COAX_SOURCE_WHOLE, 0, 0, true, 0)) return COAX_ENOMEM;
                memmove(out->s + 1, out->s, (out->n - 1) * sizeof *out->s);
                out->s[0] = (rspan){COAX_SOURCE_WHOLE, *reasoning_end, len, true, s, false};
            }
        }
    }
    return COAX_OK;
whole_only:
    prose_free(&pr, a);
    out->n = 0;
    if (!add(out, COAX_SOURCE_WHOLE, *reasoning_end, len, true, whole)) return COAX_ENOMEM;
    *partial = true;
    return COAX_OK;
}
