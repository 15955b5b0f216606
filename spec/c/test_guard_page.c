/*
** test_guard_page.c: no reader of a reply looks past its last byte.
**
** The scanners read 16 or 32 bytes a load (engine/base/bytes.h: SSE2, and
** AVX2 chosen per call) and the token tables four bytes a load; a load
** that runs past 'len' is invisible under ASan when the buffer has slack
** after it (an arena block, a malloc rounding). Here every reply ends
** exactly at a page whose next page is PROT_NONE, so one byte too far is a
** crash: every length 0..300 of texts ending in each byte class a reply
** can end on (a quote, a backslash, a bracket, UTF-8 cut in the middle, a
** fence, a tag), and the same texts starting one byte after a page start.
*/
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "base/core.h"
#include "base/bytes.h"
#include "stream/stream.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compile.h"
#include "test.h"

#define MAXLEN 300

static char *pages;  /* three pages: [page 0][page 1][PROT_NONE] */
static size_t page;

static int guard_init(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 0;
    pages = p;
    return mprotect(pages + 2 * page, page, PROT_NONE) == 0;
}

/* Every reader of coax's surface on text[0..len). */
static void read_all(const coax_schema *s, const char *t, size_t len)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    coax_repair_result rr;
    coax_extract_result er;
    coax_parse(a, t, len, NULL, &v, NULL);
    coax_repair(a, t, len, NULL, &rr, NULL);
    coax_extract(a, s, t, len, NULL, NULL, &er, NULL);
    for (int e = 0; e < COAX_ENC_COUNT; e++) coax_tokens((coax_encoding)e, t, len);
    coax_message m = {t, len, t, len, t, len};
    coax_tokens_chat(COAX_ENC_O200K, &m, 1);
    stream_options o = {s, NULL, NULL, 0, NULL};
    stream_reader *r;
    if (stream_new(NULL, &o, &r, NULL) == COAX_OK) {
        stream_partial p;
        stream_feed(r, t, len, NULL);
        stream_partial_get(r, a, &p, NULL);
        stream_free(r);
    }
    coax_arena_free(a);
}

/* The text of 'len' bytes made of 'body' repeated, then 'tail', placed to
** end exactly at the guard page. */
static const char *place(const char *body, const char *tail, size_t len)
{
    size_t tl = strlen(tail), bl = strlen(body);
    if (tl > len) tl = len;
    char *t = pages + 2 * page - len;
    for (size_t i = 0; i < len - tl; i++) t[i] = body[i % bl];
    memcpy(t + len - tl, tail + strlen(tail) - tl, tl);
    return t;
}

static const char *const bodies[] = {
    "{\"a\": [1, \"x\\\"y\", {\"b\": null}], ",
    "Here is the JSON:\n```json\n{\"k\": \"v\"}\n```\n",
    "<json>[1,2]</json> text ",
    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xf0\x9f\x98\x80 ",
    "    \t\n",
    "a",
    "{\"a\":\xc2\xa0[1,\xe3\x80\x80\"b\xc2\xa0" "c\"], d: e\xc2\xa0" "f}\xe2\x80\x83", /* Unicode blanks (the repair's view) */
};

static const char *const tails[] = {
    "\"", "\\", "\\\"", "{", "[", "}", "]", ",", ":", "{\"a\": \"\\u00", "\xe6", "\xe6\x97", "\xf0\x9f\x98",
    "\xf0", "```", "```json\n{", "~~~", "<json>", "</json", "<", "/*", "//", "-", "1e", "tru", "nul", " ",
    "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "'", "`", "\xe3\x80",
};

static void test_no_reader_reads_past_the_end(void)
{
    coax_schema *s = compile("{\"type\":\"object\"}");
    CHECK(s != NULL);
    size_t runs = 0;
    for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++)
        for (size_t k = 0; k < sizeof tails / sizeof *tails; k++)
            for (size_t len = 0; len <= MAXLEN; len += (len < 70 ? 1 : 7)) {
                read_all(s, place(bodies[b], tails[k], len), len);
                runs++;
            }
    CHECK(runs > 1000);
    coax_schema_free(s);
}

/* A text at a page's start, and one byte after it, the page before it
** PROT_NONE: a load aligned down, or a backward scan, must stop at the
** text's first byte. */
static void test_no_reader_reads_before_the_start(void)
{
    coax_schema *s = compile("true");
    CHECK(s != NULL);
    char *copy = malloc(MAXLEN);
    CHECK(mprotect(pages, page, PROT_NONE) == 0);
    for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++)
        for (size_t k = 0; k < sizeof tails / sizeof *tails; k++)
            for (size_t len = 0; len <= MAXLEN; len += 11)
                for (size_t off = 0; off < 2; off++) {
                    memcpy(copy, place(bodies[b], tails[k], len), len);
                    memcpy(pages + page + off, copy, len);
                    read_all(s, pages + page + off, len);
                }
    CHECK(mprotect(pages, page, PROT_READ | PROT_WRITE) == 0);
    free(copy);
    coax_schema_free(s);
}

/* The stream reader fed a text in pieces of 1..17 bytes, each piece moved
** to end at the guard page: a piece cut inside a UTF-8 character, an
** escape or a fence is read to its end and no further. */
static void test_stream_pieces_end_at_the_guard(void)
{
    coax_schema *s = compile("{\"type\":\"object\"}");
    char *text = malloc(MAXLEN);
    for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++)
        for (size_t k = 0; k < sizeof tails / sizeof *tails; k++) {
            size_t len = 77 + 7 * k;
            memcpy(text, place(bodies[b], tails[k], len), len);
            stream_options o = {s, NULL, NULL, 0, NULL};
            stream_reader *r;
            if (stream_new(NULL, &o, &r, NULL) != COAX_OK) continue;
            coax_arena *a = coax_arena_new(NULL);
            for (size_t at = 0, n; at < len; at += n) {
                n = 1 + (at * 7 + k) % 17;
                if (n > len - at) n = len - at;
                char *piece = pages + 2 * page - n;
                memcpy(piece, text + at, n);
                CHECK_INT(stream_feed(r, piece, n, NULL), COAX_OK);
                stream_partial p;
                stream_partial_get(r, a, &p, NULL);
            }
            coax_arena_free(a);
            stream_free(r);
        }
    free(text);
    coax_schema_free(s);
}

/* ---- the AVX2 way and the 16-byte way give the same results ------------ */

typedef struct print {
    char buf[1 << 16];
    size_t len;
} print;

static void say(print *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(print *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p->buf + p->len, sizeof p->buf - p->len, fmt, ap);
    va_end(ap);
    if (n > 0) p->len += (size_t)n < sizeof p->buf - p->len ? (size_t)n : sizeof p->buf - p->len - 1;
}

static void say_value(print *p, const coax_value *v)
{
    char *out;
    size_t n;
    if (!v || coax_write(v, 0, NULL, &out, &n)) {
        say(p, "-;");
        return;
    }
    say(p, "%s;", out);
    coax_free(NULL, out, n + 1);
}

static void say_log(print *p, const coax_repair_entry *log, size_t n)
{
    for (size_t i = 0; i < n; i++)
        say(p, "%s@%zu:%u:%u/%d ", log[i].kind, log[i].offset, log[i].line, log[i].column, (int)log[i].cls);
}

/* Everything a reader of text[0..len) reports: values, logs, positions,
** candidates, errors, estimates. */
static void fingerprint(print *p, const coax_schema *s, const char *t, size_t len)
{
    p->len = 0;
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v = NULL;
    coax_error e = {0};
    say(p, "parse %d %zu:%u:%u;", (int)coax_parse(a, t, len, NULL, &v, &e), e.offset, e.line, e.column);
    say_value(p, v);
    coax_repair_result rr;
    memset(&rr, 0, sizeof rr);
    say(p, "repair %d %zu;", (int)coax_repair(a, t, len, NULL, &rr, &e), e.offset);
    for (size_t i = 0; i < rr.ncandidates; i++) {
        const coax_candidate *c = &rr.candidates[i];
        say(p, "c%zu %d %zu-%zu %d ", i, (int)c->source, c->start, c->end, c->complete);
        say_log(p, c->log, c->nlog);
        say_value(p, c->value);
    }
    coax_extract_result er;
    memset(&er, 0, sizeof er);
    say(p, "extract %d;", (int)coax_extract(a, s, t, len, NULL, NULL, &er, &e));
    say(p, "%d %zu %zu;", er.valid, er.candidate, er.validation.nerrors);
    say_value(p, er.value);
    say_log(p, er.repair.log, er.repair.nlog);
    for (int k = 0; k < COAX_ENC_COUNT; k++) say(p, "t%zu ", coax_tokens((coax_encoding)k, t, len));
    coax_arena_free(a);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void compare_ways(const coax_schema *s, const char *t, size_t len, size_t *differ)
{
    static print wide, narrow;
    coax_bytes32_off = false;
    fingerprint(&wide, s, t, len);
    coax_bytes32_off = true;
    fingerprint(&narrow, s, t, len);
    coax_bytes32_off = false;
    if (wide.len != narrow.len || memcmp(wide.buf, narrow.buf, wide.len)) {
        if (!*differ) printf("  differs on %.*s\n  avx2: %.300s\n  sse2: %.300s\n", (int)len, t, wide.buf, narrow.buf);
        ++*differ;
    }
}

static void test_avx2_and_sse2_agree(void)
{
#if BYTES32
    static const char alphabet[] = "{}[]\"\\,:  \n\t`~<>/*#'abn01-.e\xe6\x97\xa5\xf0\x9f\x98\x80\x80";
    coax_schema *s = compile("{\"type\":\"object\"}");
    size_t differ = 0;
    char *t = malloc(1200);
    for (int round = 0; round < 3000; round++) {
        size_t len = 1 + rnd(1000);
        for (size_t i = 0; i < len; i++) t[i] = alphabet[rnd(sizeof alphabet - 1)];
        compare_ways(s, t, len, &differ);
    }
    for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++)
        for (size_t k = 0; k < sizeof tails / sizeof *tails; k++)
            for (size_t len = 60; len <= MAXLEN; len += 5)
                compare_ways(s, place(bodies[b], tails[k], len), len, &differ);
    CHECK_INT(differ, 0);
    free(t);
    coax_schema_free(s);
#endif
}

static void test_guard_setup(void) { CHECK(pages != NULL); }

#define TESTS                                    \
    X(test_guard_setup)                          \
    X(test_no_reader_reads_past_the_end)         \
    X(test_no_reader_reads_before_the_start)     \
    X(test_stream_pieces_end_at_the_guard)       \
    X(test_avx2_and_sse2_agree)

int main_guard(void);
#define main main_guard
#include "test.h"
#undef main

int main(void)
{
    if (!guard_init()) {
        printf("mmap/mprotect failed\n");
        return 1;
    }
    return main_guard();
}
