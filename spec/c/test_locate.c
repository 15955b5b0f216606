/*
** test_locate.c: the repair log's line and column sweep (repair/locate.c,
** rlocate_entries) answers every entry as the byte-by-byte count does
** (coax_locate: a line break is '\n' alone, a column counts code points,
** an offset past the text is its end), and says whether the offsets
** ascend: texts of line breaks, lone and paired CRs, ASCII runs, UTF-8 of
** two to four bytes and stray continuation bytes; entries at every offset
** of short texts (every place in a 64-byte block, texts shorter than a
** block, the text's end at and around block ends), entries a few bytes or
** thousands of blocks apart, descending, repeated and past the end, past
** 64 KB; by AVX2 and by SSE2 (coax_bytes32_off). Each text is a buffer of
** its own length, so a read past its end is ASan's to see.
*/
#include "base/core.h"
#include "base/bytes.h"
#include "repair/repair.h"

#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Random text of len bytes: runs of ASCII, line breaks, CRs, UTF-8. */
static char *random_text(size_t len)
{
    static const char *const pieces[] = {"a", " ", "\n", "\r", "\r\n", "\xc3\xa9", "\xe6\x9d\xb1",
                                         "\xf0\x9f\x98\x80", "\x80", "\xe6", "{\"k\": 1,", "          "};
    char *t = malloc(len ? len : 1);
    size_t n = 0;
    while (n < len) {
        const char *p = pieces[rnd(sizeof pieces / sizeof *pieces)];
        unsigned run = rnd(4) ? 1 : 1 + rnd(150); /* mostly short pieces, now and then a long run */
        for (unsigned r = 0; r < run && n < len; r++)
            for (const char *q = p; *q && n < len; q++) t[n++] = *q;
    }
    return t;
}

/* rlocate_entries over the offsets against coax_locate (its counts at
** every offset, from one pass), both ways; returns the entries that
** differ. */
static size_t check(const char *t, size_t len, const size_t *offsets, size_t n)
{
    uint32_t *lines = malloc((len + 1) * sizeof *lines), *cols = malloc((len + 1) * sizeof *cols);
    lines[0] = cols[0] = 1;
    for (size_t i = 0; i < len; i++) { /* coax_locate's count, a byte on */
        bool nl = t[i] == '\n';
        lines[i + 1] = lines[i] + nl;
        cols[i + 1] = nl ? 1 : cols[i] + (((unsigned char)t[i] & 0xC0) != 0x80);
    }
    uint32_t l0, c0;
    coax_locate(t, len, len, &l0, &c0);
    size_t differ = l0 != lines[len] || c0 != cols[len];
    coax_arena *a = coax_arena_new(NULL);
    coax_repair_entry *e = malloc((n ? n : 1) * sizeof *e);
    bool ascending = true;
    for (size_t i = 1; i < n; i++) ascending &= offsets[i] >= offsets[i - 1];
    for (int way = 0; way < 2; way++) {
#if BYTES32
        coax_bytes32_off = way == 1;
#endif
        for (size_t i = 0; i < n; i++) e[i] = (coax_repair_entry){"k", "d", offsets[i], 0, 0, COAX_CLASS_INFERRED};
        rlocator l = {t, len, a, NULL};
        bool got = rlocate_entries(&l, e, n);
        if (n && got != ascending) differ++;
        for (size_t i = 0; i < n; i++) {
            size_t o = offsets[i] > len ? len : offsets[i];
            uint32_t line = lines[o], col = cols[o];
            if (e[i].line != line || e[i].column != col) {
                if (!differ) printf("  way %d, len %zu, offset %zu: %u:%u, want %u:%u\n", way, len, offsets[i],
                                    e[i].line, e[i].column, line, col);
                differ++;
            }
        }
        coax_arena_reset(a);
    }
#if BYTES32
    coax_bytes32_off = false;
#endif
    free(e);
    free(lines);
    free(cols);
    coax_arena_free(a);
    return differ;
}

/* Every offset of texts of 0..300 bytes, ascending, then in both orders
** mixed (every other one from the end). */
static void test_every_offset_of_short_texts(void)
{
    size_t differ = 0, offsets[2 * 302];
    for (size_t len = 0; len <= 300; len++) {
        char *t = random_text(len);
        size_t n = 0;
        for (size_t o = 0; o <= len + 1; o++) offsets[n++] = o; /* len + 1: past the end */
        differ += check(t, len, offsets, n);
        for (size_t o = 0; o <= len; o++) offsets[o] = o % 2 ? len - o : o;
        differ += check(t, len, offsets, len + 1);
        free(t);
    }
    CHECK_INT(differ, 0);
}

/* Long texts, entries a few bytes to thousands of blocks apart, some
** behind the last, some repeated, some past the end. */
static void test_entries_near_and_far(void)
{
    size_t differ = 0;
    static size_t offsets[4000];
    for (int round = 0; round < 300; round++) {
        size_t len = round % 10 == 0 ? 70000 + rnd(200000) : 1 + rnd(5000);
        char *t = random_text(len);
        size_t n = 1 + rnd(4000), o = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned kind = rnd(100);
            if (kind < 60) o += rnd(12);             /* dense, as a broken reply's fixes */
            else if (kind < 85) o += rnd(130);       /* one or two blocks on */
            else if (kind < 92) o += rnd(20000);     /* far: whole chunks crossed */
            else if (kind < 97) o = o ? rnd((unsigned)o) : 0; /* behind */
            else o = len + rnd(3);                   /* the end, or past it */
            offsets[i] = o > len + 2 ? len : o;
        }
        differ += check(t, len, offsets, n);
        free(t);
    }
    CHECK_INT(differ, 0);
}

/* The cases by name: CRLF and lone CR, a line break as a block's last
** byte, a four-byte character across a block's end, an entry at 64 KB. */
static void test_named_places(void)
{
    static const char crlf[] = "a\r\nb\rc\n\xc3\xa9\xe6\x9d\xb1\xf0\x9f\x98\x80x";
    size_t offs[] = {0, 2, 3, 5, 6, 7, 9, 12, 16, 17};
    CHECK_INT(check(crlf, sizeof crlf - 1, offs, sizeof offs / sizeof *offs), 0);
    coax_repair_entry e[3] = {{"k", "d", 5, 0, 0, COAX_CLASS_INFERRED}, {"k", "d", 7, 0, 0, COAX_CLASS_INFERRED},
                              {"k", "d", 16, 0, 0, COAX_CLASS_INFERRED}};
    coax_arena *a = coax_arena_new(NULL);
    rlocator l = {crlf, sizeof crlf - 1, a, NULL};
    CHECK(rlocate_entries(&l, e, 3));
    CHECK_INT(e[0].line, 2); /* "c" after a lone CR: line 2 ("b\rc"), column 3 */
    CHECK_INT(e[0].column, 3);
    CHECK_INT(e[1].line, 3); /* after the '\n': line 3, column 1 */
    CHECK_INT(e[1].column, 1);
    CHECK_INT(e[2].line, 3); /* "x" after three characters of 2, 3 and 4 bytes: column 4 */
    CHECK_INT(e[2].column, 4);
    coax_arena_free(a);

    char *t = malloc(70000);
    memset(t, ' ', 70000);
    t[63] = '\n';                    /* a block's last byte */
    memcpy(t + 126, "\xf0\x9f\x98\x80", 4); /* across the second block's end */
    t[65535] = '\n';
    size_t far[] = {63, 64, 65, 127, 128, 130, 65535, 65536, 65537, 69999, 70000};
    CHECK_INT(check(t, 70000, far, sizeof far / sizeof *far), 0);
    free(t);
}

#define TESTS                               \
    X(test_named_places)                    \
    X(test_every_offset_of_short_texts)     \
    X(test_entries_near_and_far)
#include "test.h"
