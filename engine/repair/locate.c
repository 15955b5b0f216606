/*
** locate.c: line and column (code points) of byte offsets in the text, for
** the repair log and the candidates' own entries. Every caller asks in
** nearly ascending order: a forward sweep answers those, and an offset
** behind the sweep is answered from a mark kept at every 64-byte block's
** start (line and column there) and that one block's bit masks, so each
** lookup costs a bounded amount whatever the order and whatever the line's
** length: the whole is linear in the text and the number of lookups.
*/
#include "repair/repair.h"
#include "base/bytes.h"

/* Where the CPU has AVX2 (base/bytes.h's BYTES32), popcnt, lzcnt and
** BMI2 (every AVX2 CPU but the first few), the sweep reads each block's
** masks 32 bytes at a time (half the loads, compares and mask moves of
** four sixteen-byte blocks, in a sweep that reads every block of the text
** up to the log's last entry) and counts with lzcnt and bzhi, which spare
** move_over its selects. */
#if BYTES32 && BITS_HW
#define LOCATE_WIDE 1
#define WIDE_TARGET __attribute__((target("popcnt,avx2,lzcnt,bmi2")))
#include <cpuid.h>
#include <stdatomic.h>

/* Whether the CPU has lzcnt, by CPUID, asked once (it traps to the host
** in a virtual machine): clang has no "lzcnt" for __builtin_cpu_supports,
** and `make fuzz` builds with clang. */
static bool lzcnt_ok(void)
{
    static atomic_int known; /* 0 not asked yet, 1 no, 2 yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        unsigned a, b, c = 0, d;
        k = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & bit_LZCNT) ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}

static inline bool wide_ok(void)
{
    return bytes32_ok() && bits_hw_ok() && __builtin_cpu_supports("bmi2") && lzcnt_ok();
}

/* block_masks' two masks of the 64 bytes at p, by AVX2. */
static inline BYTES32_TARGET void masks_wide(const char *p, uint64_t *nls, uint64_t *conts, bool always)
{
    __m256i w0 = _mm256_loadu_si256((const __m256i *)p), w1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i nl = _mm256_set1_epi8('\n');
    *nls = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(w0, nl)) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(w1, nl)) << 32;
    uint64_t c = 0;
    if (always || _mm256_movemask_epi8(_mm256_or_si256(w0, w1))) { /* not ASCII: bytes16_cont's test, signed */
        __m256i lead = _mm256_set1_epi8((char)0xC0);
        c = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(lead, w0)) |
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(lead, w1)) << 32;
    }
    *conts = c;
}
#else
#define LOCATE_WIDE 0
#endif

/* The first k bytes of a word (k = 0..8) at 0x80, the rest 0, in memory
** order (so whatever the byte order). */
static const unsigned char first_bytes[9][8] = {
    {0}, {0x80}, {0x80, 0x80}, {0x80, 0x80, 0x80}, {0x80, 0x80, 0x80, 0x80},
    {0x80, 0x80, 0x80, 0x80, 0x80}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80},
    {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80},
};

/* How many bytes of x (each 0x80 or 0) are 0x80. */
static inline uint32_t count_high(uint64_t x) { return (uint32_t)(((x >> 7) * 0x0101010101010101ull) >> 56); }

/* Advances (pos, line, col) to 'target' over text[0..len): 64 bytes a
** step while the target is far, then sixteen (or, without SSE2 or near the
** text's end, eight) at a time, the last step cut to the bytes before
** 'target' (log entries are a few bytes apart). Columns count code points:
** UTF-8 continuation bytes are not counted. */
static inline __attribute__((always_inline)) void advance(const char *text, size_t len, size_t target, size_t *pos,
                                                          uint32_t *line, uint32_t *col, size_t *line_start)
{
    const uint64_t ones = 0x0101010101010101ull, low7 = 0x7F7F7F7F7F7F7F7Full;
    size_t p = *pos;
    uint32_t c = *col;
#if BYTES16
    while (target - p >= 64) { /* far from the target: 64 bytes a step */
        uint64_t nls = 0, conts = 0;
        for (unsigned k = 0; k < 4; k++) {
            __m128i w = bytes16_load(text + p + 16 * k);
            nls |= (uint64_t)bytes16_eq(w, '\n') << (16 * k);
            conts |= (uint64_t)bytes16_cont(w) << (16 * k);
        }
        if (!nls) {
            c += 64 - (conts ? bits64(conts) : 0);
        } else {
            unsigned last = 63u - (unsigned)__builtin_clzll(nls);
            uint64_t after = last == 63 ? 0 : conts & ~((2ull << last) - 1);
            *line += bits64(nls);
            *line_start = p + last + 1;
            c = (64 - last) - (after ? bits64(after) : 0);
        }
        p += 64;
    }
#endif
    while (p < target) {
#if BYTES16
        if (len - p >= 16) { /* the same, sixteen bytes at a time */
            size_t k16 = target - p < 16 ? target - p : 16;
            unsigned keep16 = k16 == 16 ? 0xFFFFu : (1u << k16) - 1;
            __m128i w = bytes16_load(text + p);
            unsigned nls = bytes16_eq(w, '\n') & keep16, conts = bytes16_cont(w) & keep16;
            if (!nls) {
                c += (uint32_t)k16 - (conts ? bits16(conts) : 0); /* mostly ASCII */
            } else {
                /* The column restarts after the block's last line break;
                ** mostly one break and ASCII after it. */
                unsigned last = 31u - (unsigned)__builtin_clz(nls), after = conts & ~((2u << last) - 1);
                *line += nls & (nls - 1) ? bits16(nls) : 1;
                *line_start = p + last + 1;
                c = (uint32_t)(k16 - last) - (after ? bits16(after) : 0);
            }
            p += k16;
            continue;
        }
#endif
        size_t k = target - p < 8 ? target - p : 8;
        if (len - p >= 8) {
            uint64_t w, keep = ones * 0x80;
            memcpy(&w, text + p, 8);
            if (k < 8) memcpy(&keep, first_bytes[k], 8);
            uint64_t nl = w ^ (ones * '\n'), cont = (w & (ones * 0xC0)) ^ (ones * 0x80);
            uint64_t nls = ~(((nl & low7) + low7) | nl | low7) & keep; /* 0x80 at line breaks */
            uint64_t conts = 0;                                         /* and continuation bytes */
            if (w & keep) conts = ~(((cont & low7) + low7) | cont | low7) & keep;
            if (!nls) {
                c += (uint32_t)k - count_high(conts);
                p += k;
                continue;
            }
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* The column restarts after the word's last line break. */
            unsigned last = (unsigned)(63 - __builtin_clzll(nls)) >> 3;
            uint64_t after = last == 7 ? 0 : keep & (~0ull << (8 * (last + 1)));
            *line += count_high(nls);
            *line_start = p + last + 1;
            c = 1 + count_high(after) - count_high(conts & after);
            p += k;
            continue;
#endif
        }
        for (size_t stop = p + k; p < stop;) {
            unsigned char b = (unsigned char)text[p++];
            if (b == '\n') {
                (*line)++;
                c = 1;
                *line_start = p;
            } else if ((b & 0xC0) != 0x80) {
                c++;
            }
        }
    }
    *pos = p;
    *col = c;
}

/* The line breaks and UTF-8 continuation bytes of text[at..at+64) as bit
** masks, bit k for text[at + k] (bytes from len on are neither); 'wide':
** by masks_wide (a constant, true only in a WIDE_TARGET function). */
static inline __attribute__((always_inline)) void block_masks(const char *text, size_t len, size_t at, uint64_t *nls,
                                                              uint64_t *conts, bool wide, bool always)
{
    const char *p = text + at;
    char pad[64];
    if (len - at < 64) { /* the text's last bytes */
        memset(pad, 0, sizeof pad);
        memcpy(pad, p, len - at);
        p = pad;
    }
#if LOCATE_WIDE
    if (wide) {
        masks_wide(p, nls, conts, always);
        return;
    }
#endif
    uint64_t n = 0, c = 0;
#if BYTES16
    /* written out: GCC keeps the loop over the four, a variable shift each */
    __m128i w0 = bytes16_load(p), w1 = bytes16_load(p + 16), w2 = bytes16_load(p + 32), w3 = bytes16_load(p + 48);
    n = (uint64_t)bytes16_eq(w0, '\n') | (uint64_t)bytes16_eq(w1, '\n') << 16 | (uint64_t)bytes16_eq(w2, '\n') << 32 |
        (uint64_t)bytes16_eq(w3, '\n') << 48;
    /* Most blocks are ASCII (six in ten of the bench's replies): one test
    ** of the four's high bits spares them the continuation bytes' masks. */
    if (always || _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(w0, w1), _mm_or_si128(w2, w3))))
        c = (uint64_t)bytes16_cont(w0) | (uint64_t)bytes16_cont(w1) << 16 | (uint64_t)bytes16_cont(w2) << 32 |
            (uint64_t)bytes16_cont(w3) << 48;
#else
    for (unsigned k = 0; k < 64; k++) {
        n |= (uint64_t)(p[k] == '\n') << k;
        c |= (uint64_t)(((unsigned char)p[k] & 0xC0) == 0x80) << k;
    }
#endif
    *nls = n;
    *conts = c;
}

/* Moves (line, col) from the start of a 64-byte block with masks (nls,
** conts) to the start of the next block ('hw': bits64_as's). */
static inline __attribute__((always_inline)) void step_block(uint64_t nls, uint64_t conts, uint32_t *line, uint32_t *col,
                                                             bool hw)
{
    if (!nls) {
        *col += 64 - (conts ? bits64_as(conts, hw) : 0);
    } else { /* the column restarts after the block's last line break */
        unsigned last = 63u - (unsigned)__builtin_clzll(nls);
        uint64_t after = last == 63 ? 0 : conts & ~((2ull << last) - 1);
        *line += bits64_as(nls, hw);
        *col = (64 - last) - (after ? bits64_as(after, hw) : 0);
    }
}

/* Line and column of text[at + k64] (k64 below 64), given them at text[at]
** and the block's masks ('hw': bits64_as's), for rlocate_back: the column
** counts the code points from the last line break below k64, or from the
** block's start when there is none. Without popcnt, a count is asked only
** of a mask that has bits. */
static inline __attribute__((always_inline)) void in_block(uint64_t nls, uint64_t conts, unsigned k64, uint32_t line,
                                                           uint32_t col, uint32_t *out_line, uint32_t *out_col, bool hw)
{
    uint64_t below = ((uint64_t)1 << k64) - 1;
    uint64_t n = nls & below;
    unsigned from = n ? 64u - (unsigned)__builtin_clzll(n) : 0; /* just past that line break: at most k64 */
    uint64_t after = conts & below & ~(((uint64_t)1 << from) - 1);
    *out_line = line + (hw || n ? bits64_as(n, hw) : 0);
    *out_col = (n ? 1 : col) + (k64 - from) - (hw || after ? bits64_as(after, hw) : 0);
}

/* Line and column of 'target' without moving any sweep: from the marks
** (line and column at every block's start, built once, on the first
** lookup behind a sweep) and the masks of the block that holds it. One
** block's work per lookup, so logs whose entries come back over a long
** line (duplicate keys noted when their object closes) stay linear. */
void rlocate_back(rlocator *l, size_t target, uint32_t *line, uint32_t *col)
{
    uint64_t nls, conts;
    if (target > l->len) target = l->len;
    if (!l->marks) {
        size_t nblocks = l->len / 64 + 1;
        l->marks = coax_arena_alloc(l->arena, nblocks * 2 * sizeof *l->marks);
        if (!l->marks) { /* no memory for the marks: count from the text's start */
            coax_locate(l->text, l->len, target, line, col);
            return;
        }
        uint32_t bl = 1, bc = 1;
        for (size_t b = 0; b < nblocks; b++) {
            l->marks[2 * b] = bl;
            l->marks[2 * b + 1] = bc;
            if (b + 1 == nblocks) break;
            block_masks(l->text, l->len, b * 64, &nls, &conts, false, false);
            step_block(nls, conts, &bl, &bc, false);
        }
    }
    size_t b = target / 64;
    block_masks(l->text, l->len, b * 64, &nls, &conts, false, false);
    in_block(nls, conts, (unsigned)(target - b * 64), l->marks[2 * b], l->marks[2 * b + 1], line, col, false);
}

/* The masks of text[at..at+64) as block_masks gives them, for any 'at'
** up to len: near the end of a text of 64 bytes or more, its last 64
** bytes' masks moved down to 'at' (no padded copy). */
static inline __attribute__((always_inline)) void window_masks(const char *text, size_t len, size_t at, uint64_t *nls,
                                                               uint64_t *conts, bool wide)
{
    if (len - at >= 64 || len < 64) {
        block_masks(text, len, at, nls, conts, wide, true);
        return;
    }
    block_masks(text, len, len - 64, nls, conts, wide, true);
    unsigned down = (unsigned)(at - (len - 64)) - 1; /* 0..63: at is at most len */
    *nls = *nls >> down >> 1;
    *conts = *conts >> down >> 1;
}

#if LOCATE_WIDE
/* move_over by lzcnt, which gives 64 for no line break, and bzhi, which
** keeps every bit below 64: no selects but the column's. */
static inline WIDE_TARGET void move_over_wide(uint64_t nls, uint64_t conts, unsigned count, uint32_t *line,
                                              uint32_t *col)
{
    unsigned from = 64u - (unsigned)_lzcnt_u64(nls);
    unsigned after = (unsigned)(_mm_popcnt_u64(conts) - _mm_popcnt_u64(_bzhi_u64(conts, from)));
    *line += (unsigned)_mm_popcnt_u64(nls);
    *col = (nls ? 1 : *col) + (count - from) - after;
}

/* Line and column of the byte 'k' (below 64) into a block whose masks
** are (nls, conts), given them at the block's start: move_over_wide over
** its first k bytes, where the last line break's successor is below 64. */
static inline WIDE_TARGET void in_block_wide(uint64_t nls, uint64_t conts, unsigned k, uint32_t line, uint32_t col,
                                             uint32_t *out_line, uint32_t *out_col)
{
    nls = _bzhi_u64(nls, k);
    unsigned from = 64u - (unsigned)_lzcnt_u64(nls);
    *out_line = line + (unsigned)_mm_popcnt_u64(nls);
    *out_col = (nls ? 1 : col) + (k - from) - (unsigned)_mm_popcnt_u64(_bzhi_u64(conts, k) >> from);
}
#endif

/* Moves (line, col) over 'count' bytes (at most 64) whose line breaks and
** continuation bytes are the masks' bits (none from count on), without a
** branch on what they hold: the column restarts just past the last line
** break ('from', 0 for none) and counts the code points from there.
** 'wide': by move_over_wide (a constant, true only in a WIDE_TARGET
** function); 'hw': bits64_as's. */
static inline __attribute__((always_inline)) void move_over(uint64_t nls, uint64_t conts, unsigned count,
                                                            uint32_t *line, uint32_t *col, bool hw, bool wide)
{
#if LOCATE_WIDE
    if (wide) {
        move_over_wide(nls, conts, count, line, col);
        return;
    }
#endif
    uint64_t any = (uint64_t)0 - (nls != 0);
    unsigned from = (64u - (unsigned)__builtin_clzll(nls | 1)) & (unsigned)any;
    uint64_t below = ((2ull << ((from - 1) & 63)) - 1) & any; /* the bits below from */
    *line += bits64_as(nls, hw);
    *col = ((*col & ~(uint32_t)any) | (1u & (uint32_t)any)) + (count - from) - bits64_as(conts & ~below, hw);
}

/* The blocks of 64 bytes a chunk of the sweep holds: their masks, and
** line and column at their starts, on the stack. */
#define CHUNK_BLOCKS 64

/* Line and column of every log entry, in two steps over chunks of the
** text (CHUNK_BLOCKS blocks of 64 bytes, from the chunk that holds the
** next entry to the one that holds the log's last, at most): each block's
** masks of line breaks and continuation bytes and its line and column at
** its start, then each entry in the chunk from its block's. Neither step
** branches on what the bytes hold (move_over, in_block; the continuation
** bytes' masks made whether a block is ASCII or not): whether a line
** break comes before an entry in its block, whether a block is ASCII, and
** whether the next entry is in the same block are coin tosses, and the
** sweep that did both in one loop, a block or an entry a turn,
** mispredicted some 1.5 branches an entry. An entry behind the chunk is
** answered by rlocate_back, in one block's work, so entries that come
** back to far places stay linear. Columns count code points, as advance()
** does. Returns whether the offsets ascend (never decrease), which the
** sweep sees for free and spares the log's sort a pass to check it. 'hw':
** bits64_as's; 'wide': block_masks' and move_over's. */
static inline __attribute__((always_inline)) bool sweep_entries(rlocator *l, coax_repair_entry *entries, size_t count,
                                                                bool hw, bool wide)
{
    if (!count) return true;
    const char *text = l->text;
    const size_t len = l->len;
    uint64_t nls[CHUNK_BLOCKS], conts[CHUNK_BLOCKS];
    uint32_t lines[CHUNK_BLOCKS], cols[CHUNK_BLOCKS];
    size_t first = 0, past = 0;              /* the chunk: blocks first..past-1 */
    const size_t blocks = len / 64 + 1;      /* the last one holds the offset len */
    uint32_t line = 1, col = 1;              /* at block past's start */
    size_t last = entries[count - 1].offset; /* the log's last block, where the chunks may stop */
    last = (last > len ? len : last) / 64;
    size_t prev = 0;
    bool ascending = true;
    for (coax_repair_entry *e = entries, *end = e + count; e < end; e++) {
        size_t offset = e->offset;
        size_t target = offset > len ? len : offset;
        ascending &= offset >= prev;
        prev = offset;
        size_t b = target / 64;
        if (b < first) {
            rlocate_back(l, target, &e->line, &e->column);
            continue;
        }
        if (b >= past) { /* the chunk from block past on that holds it */
            size_t stop = b > last ? b : last;
            stop = stop - past < CHUNK_BLOCKS ? stop + 1 : past + CHUNK_BLOCKS;
            uint64_t held = 0; /* the chunk's line breaks and continuation bytes */
            for (first = past; past < stop && past < blocks; past++) {
                size_t k = past - first;
                window_masks(text, len, past * 64, &nls[k], &conts[k], wide);
                held |= nls[k] | conts[k];
                lines[k] = line;
                cols[k] = col;
                move_over(nls[k], conts[k], 64, &line, &col, hw, wide);
            }
            if (b >= past) { /* far from the last chunk: blocks to cross first */
                e--;
                continue;
            }
            if (!held) { /* ASCII on one line (a compact reply's, mostly): its entries in a row */
                uint32_t col0 = cols[0] - (uint32_t)(first * 64); /* plus an offset: its column */
                for (;;) {
                    e->line = lines[0];
                    e->column = col0 + (uint32_t)target;
                    if (e + 1 == end) break;
                    offset = e[1].offset;
                    target = offset > len ? len : offset;
                    if (target / 64 < first || target / 64 >= past) break; /* the loop's way */
                    ascending &= offset >= prev;
                    prev = offset;
                    e++;
                }
                continue;
            }
        }
        size_t k = b - first;
        unsigned at = (unsigned)(target % 64);
#if LOCATE_WIDE
        if (wide) {
            in_block_wide(nls[k], conts[k], at, lines[k], cols[k], &e->line, &e->column);
            continue;
        }
#endif
        uint32_t ln = lines[k], cl = cols[k];
        uint64_t keep = ((uint64_t)1 << at) - 1;
        move_over(nls[k] & keep, conts[k] & keep, at, &ln, &cl, hw, false);
        e->line = ln;
        e->column = cl;
    }
    return ascending;
}

#if LOCATE_WIDE
static WIDE_TARGET bool sweep_entries_wide(rlocator *l, coax_repair_entry *entries, size_t count)
{
    return sweep_entries(l, entries, count, true, true);
}
#endif

static BITS_HW_TARGET bool sweep_entries_hw(rlocator *l, coax_repair_entry *entries, size_t count)
{
    return sweep_entries(l, entries, count, true, false);
}

static bool sweep_entries_sw(rlocator *l, coax_repair_entry *entries, size_t count)
{
    return sweep_entries(l, entries, count, false, false);
}

bool rlocate_entries(rlocator *l, coax_repair_entry *entries, size_t count)
{
#if LOCATE_WIDE
    if (wide_ok()) return sweep_entries_wide(l, entries, count);
#endif
    return bits_hw_ok() ? sweep_entries_hw(l, entries, count) : sweep_entries_sw(l, entries, count);
}

/* Line and column of 'target' for a sweep that moves forward (*s starts
** zeroed): advance() from where the last lookup ended, or rlocate_back
** when 'target' is behind it. */
void rlocate_next(rlocator *l, rsweep *s, size_t target, uint32_t *line, uint32_t *col)
{
    if (target > l->len) target = l->len;
    if (!s->line) { /* a new sweep: at the text's start */
        s->line = 1;
        s->col = 1;
    }
    if (target < s->pos) {
        rlocate_back(l, target, line, col);
        return;
    }
    advance(l->text, l->len, target, &s->pos, &s->line, &s->col, &s->line_start);
    *line = s->line;
    *col = s->col;
}

const char *repair_cr_lines(coax_arena *arena, const char *text, size_t len)
{
    const char *cr = len ? memchr(text, '\r', len) : NULL, *end = text + len;
    while (cr && cr + 1 < end && cr[1] == '\n') cr = memchr(cr + 2, '\r', (size_t)(end - cr - 2)); /* CRLF's */
    if (!cr) return text;
    bool quoted = false, outside = false; /* a lone CR outside double-quoted strings: lines end in it */
    for (size_t i = 0; i < len && !outside; i++) {
        if (text[i] == '"') quoted = !quoted;
        else if (text[i] == '\\' && quoted) i++;
        else outside = text[i] == '\r' && !quoted && (i + 1 == len || text[i + 1] != '\n');
    }
    if (!outside) return text; /* CRLF lines, or "hello\rworld": the string's own text */
    char *copy = coax_arena_alloc(arena, len + 1);
    if (!copy) return NULL;
    for (size_t i = 0; i < len; i++)
        copy[i] = text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n') ? '\n' : text[i];
    copy[len] = '\0';
    return copy;
}

/* The lead bytes of a blank past ASCII or of a character shown as nothing
** (repair_viewed_space): C2, CD, D8, E1, E2, E3, EF, F0, F3. */
static inline bool viewed_lead(unsigned char c)
{
    return c == 0xC2 || c == 0xCD || c == 0xD8 || (c >= 0xE1 && c <= 0xE3) || c == 0xEF || c == 0xF0 || c == 0xF3;
}

/* How far from p repair_blank_view may pass at once: the bytes before the
** first that may open a Unicode blank or a character shown as nothing
** (viewed_lead) or, with 'marks', is a double quote, a backslash or a line
** break; 16 when none of 16 is. */
static inline size_t plain_run(const char *p, const char *end, bool marks)
{
#if BYTES16
    if (end - p >= 16) {
        __m128i w = bytes16_load(p);
        unsigned m = (unsigned)_mm_movemask_epi8(w); /* no byte from 0x80: none */
        if (m) {
            __m128i e = _mm_and_si128(w, _mm_set1_epi8((char)0xF0));
            __m128i lead = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8((char)0xC2)), _mm_cmpeq_epi8(w, _mm_set1_epi8((char)0xCD))),
                _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8((char)0xD8)), _mm_cmpeq_epi8(e, _mm_set1_epi8((char)0xE0))));
            lead = _mm_or_si128(lead, _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8((char)0xF0)),
                                                   _mm_cmpeq_epi8(w, _mm_set1_epi8((char)0xF3))));
            m = (unsigned)_mm_movemask_epi8(lead); /* E0..EF: a few more than viewed_lead's, told apart after */
        }
        if (marks) m |= bytes16_eq(w, '"') | bytes16_eq(w, '\\') | bytes16_eq(w, '\n');
        return m ? (size_t)__builtin_ctz(m) : 16;
    }
#endif
    unsigned char c = (unsigned char)*p;
    return p < end && !viewed_lead(c) && !(marks && (c == '"' || c == '\\' || c == '\n'));
}

/* text[at..at+n) as ASCII spaces in a same-length copy of text[0..len), made
** in the arena at the first such change ('*copy' NULL until then): false when
** out of memory. */
static bool spaced(coax_arena *arena, const char *text, size_t len, char **copy, size_t at, size_t n)
{
    if (!*copy) {
        if (!(*copy = coax_arena_alloc(arena, len + 1))) return false;
        memcpy(*copy, text, len);
        (*copy)[len] = '\0';
    }
    memset(*copy + at, ' ', n);
    return true;
}

#if BYTES32
/* Where a blank or a character shown as nothing may start among 32 bytes,
** or a CR: a lead byte (viewed_lead) before a second byte one of its
** characters has, told by a lookup of each nibble of the byte and of the
** next, a bit a lead (C2; CD and D8; E1; E2; E3; EF; F0 and F3) and one
** for a CR, whatever follows it. A superset (E1 9A A0, C8 8F), which
** repair_viewed_space tells apart, at the cost of comparing five pairs of
** bytes. The tables are made once a call, kept in registers (opaque: GCC
** made them again in every block). */
typedef struct viewed_tables {
    __m256i lead_hi, lead_lo, next_hi, next_lo, nibble;
} viewed_tables;

static BYTES32_TARGET inline viewed_tables viewed_tables_make(void)
{
#define LANES(...) _mm256_setr_epi8(__VA_ARGS__, __VA_ARGS__)
    viewed_tables t = {
        LANES(0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0x02, 0x78, (char)0x80),
        LANES((char)0x80, 0x08, 0x11, (char)0xA0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0x06, 0, 0x40),
        LANES(0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x3E, (char)0x8E, (char)0x8D, 0x44, 0x04, 0x04, 0x04, 0x04),
        LANES((char)0xBD, 0x14, 0x04, 0x04, 0x04, 0x2C, 0x04, 0x04, 0x44, 0x04, 0x0C, (char)0xC4, 0x06, (char)0x85,
              0x4C, 0x46),
        _mm256_set1_epi8(0x0F)};
#undef LANES
    __asm__("" : "+x"(t.lead_hi), "+x"(t.lead_lo), "+x"(t.next_hi), "+x"(t.next_lo), "+x"(t.nibble));
    return t;
}

/* The candidates among w's 32 bytes (w1: the same one byte on), as bits. */
static BYTES32_TARGET inline unsigned viewed_candidates_wide(const viewed_tables *t, __m256i w, __m256i w1)
{
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), t->nibble),
            hi1 = _mm256_and_si256(_mm256_srli_epi16(w1, 4), t->nibble);
    __m256i lead = _mm256_and_si256(_mm256_shuffle_epi8(t->lead_hi, hi),
                                    _mm256_shuffle_epi8(t->lead_lo, _mm256_and_si256(w, t->nibble)));
    __m256i next = _mm256_and_si256(_mm256_shuffle_epi8(t->next_hi, hi1),
                                    _mm256_shuffle_epi8(t->next_lo, _mm256_and_si256(w1, t->nibble)));
    __m256i none = _mm256_cmpeq_epi8(_mm256_and_si256(lead, next), _mm256_setzero_si256());
    return ~(unsigned)_mm256_movemask_epi8(none);
}

/* The first Unicode blank or character shown as nothing (repair_viewed_space)
** in p..end, or where the last 33 bytes begin: blocks whose bytes are all
** ASCII cost a test. */
static BYTES32_TARGET const char *first_blank_wide(const char *p, const char *end)
{
    viewed_tables t = viewed_tables_make();
    for (; end - p >= 33; p += 32) {
        __m256i w = _mm256_loadu_si256((const __m256i *)p);
        if (!_mm256_movemask_epi8(w)) continue;
        unsigned m = viewed_candidates_wide(&t, w, _mm256_loadu_si256((const __m256i *)(p + 1)));
        for (; m; m &= m - 1)
            if (repair_viewed_space(p + __builtin_ctz(m), end)) return p + __builtin_ctz(m);
    }
    return p;
}
#endif

/* The first Unicode blank or character shown as nothing (repair_viewed_space)
** in p..end, or end: blocks whose bytes are all ASCII cost a test, others a
** look for a lead byte (viewed_lead) before any call. */
static const char *first_blank(const char *p, const char *end)
{
#if BYTES32
    if (end - p >= 64 && bytes32_ok()) p = first_blank_wide(p, end);
#endif
    for (size_t n; p < end; p += n ? n : 1) {
        if ((n = plain_run(p, end, false))) continue;
        if (repair_viewed_space(p, end)) return p;
    }
    return end;
}

const char *repair_blank_view(coax_arena *arena, const char *t, size_t len)
{
    /* most texts hold no Unicode blank, in or out of strings: no look more */
    if (first_blank(t, t + len) == t + len) return t;
    char *copy = NULL;
    bool quoted = false;
    for (size_t k = 0, n; k < len; k += n ? n : 1) {
        if ((n = plain_run(t + k, t + len, true))) continue;
        /* a line break ends a string the line left open (a lone quote, the 5" model): a quote
        ** in prose or a reasoning block before the answer must not turn its inside out */
        if (t[k] == '"') quoted = !quoted;
        else if (t[k] == '\n') quoted = false;
        else if (t[k] == '\\' && quoted) k++;
        else if (!quoted && (n = repair_viewed_space(t + k, t + len)) && !spaced(arena, t, len, &copy, k, n))
            return NULL;
    }
    return copy ? copy : t;
}

#if BYTES32
/* Whether t..end (65 bytes or more) holds a CR, a Unicode blank or a
** character shown as nothing: the looks of repair_cr_lines' memchr and of
** first_blank_wide in one pass, without the latter's test for an ASCII
** block (whether 32 bytes hold a byte from 0x80 is a coin toss in text with
** accented or CJK words: a mispredicted branch every fourth block, about
** 0.01 a byte of the bench's broken replies), and the last bytes in a block
** that overlaps the one before (no byte loop). 64 bytes a step, one test of
** both halves' candidates: half the loop's compares and branches. */
static BYTES32_TARGET bool cr_or_blank_wide(const char *p, const char *end)
{
    viewed_tables t = viewed_tables_make();
    if (end[-1] == '\r') return true; /* the blocks look at a CR up to the byte before (a blank takes two) */
    for (;; p += 64) {
        if (end - p < 65) p = end - 65; /* the last 65 bytes */
        __m256i w0 = _mm256_loadu_si256((const __m256i *)p), w0n = _mm256_loadu_si256((const __m256i *)(p + 1));
        __m256i w1 = _mm256_loadu_si256((const __m256i *)(p + 32));
        __m256i w1n = _mm256_loadu_si256((const __m256i *)(p + 33));
        uint64_t m = (uint64_t)viewed_candidates_wide(&t, w0, w0n);
        m |= (uint64_t)viewed_candidates_wide(&t, w1, w1n) << 32;
        for (; m; m &= m - 1)
            if (p[__builtin_ctzll(m)] == '\r' || repair_viewed_space(p + __builtin_ctzll(m), end)) return true;
        if (p == end - 65) return false;
    }
}
#endif

/* Whether t[0..len) holds neither a CR nor a Unicode blank nor a character
** shown as nothing: then it is its own view (repair_cr_lines and
** repair_blank_view give it back). */
static bool plain_view(const char *t, size_t len)
{
#if BYTES32
    if (len >= 65 && bytes32_ok()) return !cr_or_blank_wide(t, t + len);
    if (len && bytes32_ok()) {
        /* A short reply in 65 bytes padded with NULs, one step of the wide
        ** look: NUL is no CR and begins no blank, and no blank's bytes run
        ** on into it (first_blank's byte loop cost a short reply some 200
        ** instructions). A CR at its last byte has a NUL after it: the
        ** step's own look finds it. */
        char pad[65] = {0};
        memcpy(pad, t, len);
        return !cr_or_blank_wide(pad, pad + sizeof pad);
    }
#endif
    return !memchr(t, '\r', len) && first_blank(t, t + len) == t + len;
}

bool repair_read_view(coax_arena *arena, const char **text, const char **orig, size_t len)
{
    if (plain_view(*text, len)) { /* most replies */
        *orig = *text;
        return true;
    }
    const char *t = repair_cr_lines(arena, *text, len);
    if (!t || !(*text = repair_blank_view(arena, t, len))) return false;
    *orig = t;
    return true;
}

coax_code repair_json_text(coax_arena *arena, const char *t, size_t n, const coax_limits *lim, coax_value **out)
{
    const char *view = repair_blank_view(arena, t, n);
    return view ? coax_parse(arena, view, n, lim, out, NULL) : COAX_ENOMEM;
}

const char *repair_plain_spaces(coax_arena *arena, const char *text, size_t len)
{
    const char *end = text + len;
    char *copy = NULL;
    for (size_t i = 0, n; i < len; i += n ? n : 1) {
        if ((n = plain_run(text + i, end, false))) continue;
        if ((n = repair_unicode_space(text + i, end)) && !spaced(arena, text, len, &copy, i, n)) return NULL;
    }
    return copy ? copy : text;
}
