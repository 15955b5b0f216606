/*
** diff.c: every estimate of the token estimator over a large, varied input
** set, one line a text, for diff.sh to compare two builds of libcoax.a
** (equal output, equal estimates: any speed work must leave it unchanged).
**
**   diff [CORPUS.jsonl...]
**
** Per text: coax_tokens under every encoding, the raw sums of both splits
** (coax_tok_scan, 1/TOK_SCALE token, finer than any rounded count) and a
** digest of every piece the calibration visitor hears. The texts: every
** "text" of the corpora given (bench/tokens builds them: calib.jsonl,
** eval.jsonl), their prefixes ending at every byte of the first few hundred
** (many inside a UTF-8 sequence), damaged copies; then generated text
** (gen_*) from a seeded generator: each Unicode plane, CJK, emoji with
** joiners and modifiers, combining marks, invalid UTF-8, long runs of
** digits, spaces and punctuation, code, JSON, mixed scripts, contractions,
** sizes 0 to 1 MB; and chat messages through coax_tokens_chat.
*/
#include "coax.h"
#include "tokens/tokens.h"
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output ---------------------------------------------------------------- */

static void visit(void *ud, const tok_piece *p)
{
    uint64_t *h = ud;
    uint64_t f[] = {p->start, p->end, p->kind, p->row, p->nchars, p->key,
                    p->hash, (uint64_t)p->hashed, p->common, p->weight};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++) *h = (*h ^ f[k]) * 0x100000001b3u;
}

/* Everything the estimator says about s[0..n); 'pieces': with the visitor
** digest too (the visitor's copy of the scan is the calibration tool's). */
static void emit(const char *s, size_t n, int pieces)
{
    for (int e = 0; e < COAX_ENC_COUNT; e++) printf("%zu ", coax_tokens((coax_encoding)e, s, n));
    for (int sp = 0; sp < 2; sp++) {
        const tok_model *m = sp == TOK_SPLIT_O200K ? &coax_tok_model_o200k : &coax_tok_model_cl100k;
        printf("%llu ", (unsigned long long)coax_tok_scan(sp, m, s, n, NULL, NULL));
        if (pieces) {
            uint64_t h = 0xcbf29ce484222325u;
            coax_tok_scan(sp, m, s, n, visit, &h);
            printf("%016llx ", (unsigned long long)h);
        }
    }
    putchar('\n');
}

/* A text, its prefixes ending at each of the first bytes, its suffix without
** the first byte, and a copy with a few bytes replaced. */
static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static size_t below(size_t k) { return k ? (size_t)(next() % k) : 0; }

static void emit_variants(const char *s, size_t n)
{
    emit(s, n, 1);
    size_t lim = n < 300 ? n : 300;
    for (size_t k = 1; k < lim; k += 1 + (k > 64) * 6) emit(s, k, 0);
    if (n > 1) emit(s + 1, n - 1, 0);
    if (n > 16) emit(s + n - 16, 16, 0);
    char *d = malloc(n + 1);
    if (!d) exit(1);
    memcpy(d, s, n);
    for (int r = 0; r < 8 && n; r++) d[below(n)] = (char)next();
    emit(d, n, 0);
    free(d);
}

/* ---- the corpora ------------------------------------------------------------ */

static size_t corpus_texts, corpus_bytes;

static void corpus_text(void *ud, const coax_value *record, const char *s, size_t n)
{
    (void)record;
    printf("c%zu: ", corpus_texts++);
    corpus_bytes += n;
    emit_variants(s, n);
    coax_arena_reset(ud);
}

static void corpus(coax_arena *a, const char *path) { records_each(a, path, corpus_text, a); }

/* ---- generated text --------------------------------------------------------- */

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *s, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) exit(1);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* UTF-8 of any value up to 0x7FFFFFFF, surrogates included (both invalid to
** a decoder, which is the point). */
static void put_cp(buf *b, uint32_t c)
{
    unsigned char u[6];
    size_t k;
    if (c < 0x80) u[0] = (unsigned char)c, k = 1;
    else if (c < 0x800) u[0] = 0xC0 | c >> 6, u[1] = 0x80 | (c & 63), k = 2;
    else if (c < 0x10000)
        u[0] = 0xE0 | c >> 12, u[1] = 0x80 | (c >> 6 & 63), u[2] = 0x80 | (c & 63), k = 3;
    else if (c < 0x200000)
        u[0] = 0xF0 | c >> 18, u[1] = 0x80 | (c >> 12 & 63), u[2] = 0x80 | (c >> 6 & 63),
        u[3] = 0x80 | (c & 63), k = 4;
    else
        u[0] = 0xF8 | (c >> 24 & 3), u[1] = 0x80 | (c >> 18 & 63), u[2] = 0x80 | (c >> 12 & 63),
        u[3] = 0x80 | (c >> 6 & 63), u[4] = 0x80 | (c & 63), k = 5;
    put(b, u, k);
}

/* Code point ranges by kind: [lo, hi] pairs. */
static const uint32_t r_latin[] = {'a', 'z', 'A', 'Z', 0xC0, 0x24F, 0x1E00, 0x1EFF};
static const uint32_t r_scripts[] = {0x370, 0x3FF, 0x400, 0x4FF, 0x530, 0x58F, 0x590, 0x5FF,
                                     0x600, 0x6FF, 0x900, 0x97F, 0x980, 0xDFF, 0xE00, 0xEFF,
                                     0x10A0, 0x10FF, 0x1200, 0x137F, 0x13A0, 0x13FF, 0x1780, 0x17FF};
static const uint32_t r_cjk[] = {0x3000, 0x303F, 0x3040, 0x309F, 0x30A0, 0x30FF, 0x4E00, 0x9FFF,
                                 0x3400, 0x4DBF, 0xAC00, 0xD7AF, 0xFF00, 0xFFEF, 0x20000, 0x2A6DF};
static const uint32_t r_emoji[] = {0x1F300, 0x1F5FF, 0x1F600, 0x1F64F, 0x1F680, 0x1F6FF,
                                   0x1F900, 0x1F9FF, 0x2600, 0x27BF, 0x1FA70, 0x1FAFF};
static const uint32_t r_marks[] = {0x300, 0x36F, 0x483, 0x489, 0x591, 0x5BD, 0x64B, 0x65F,
                                   0x93A, 0x94F, 0x1AB0, 0x1AFF, 0x20D0, 0x20FF, 0xFE20, 0xFE2F};
static const uint32_t r_digits[] = {'0', '9', 0x660, 0x669, 0x966, 0x96F, 0xFF10, 0xFF19,
                                    0x1D7CE, 0x1D7FF, 0xBC, 0xBE, 0x2160, 0x2188};
static const uint32_t r_spaces[] = {' ', ' ', '\t', '\r', 0x85, 0x85, 0xA0, 0xA0, 0x1680, 0x1680,
                                    0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x202F, 0x3000, 0x3000,
                                    0xFEFF, 0xFEFF, 0x200B, 0x200D};
static const uint32_t r_punct[] = {'!', '/', ':', '@', '[', '`', '{', '~', 0xA1, 0xBF,
                                   0x2010, 0x2027, 0x2030, 0x205E, 0x20A0, 0x20C0, 0x2190, 0x23FF};

static uint32_t pick(const uint32_t *r, size_t pairs)
{
    size_t k = below(pairs) * 2;
    return r[k] + (uint32_t)below(r[k + 1] - r[k] + 1);
}
#define PICK(r) pick(r, sizeof r / sizeof *r / 2)

static const char *const frags[] = {
    "the", " the", "The", " THE", "camelCase", "snake_case", "HTTPServer", "iPhone", "don't",
    "DON'T", "I'm", " we've", "they'll", "you'd", "it's", "'s", "'", "''", "'S", "'Re", "'ll",
    " 'll", "'llama", "x'y", "123", "4567", "1234567890", "3.14159", "-42", "1e10", "0x1F",
    "  ", "   ", "\t", "\n", "\r\n", "\n\n\n", " \n ", "\t\n", " \t \n", "\v", "\f", "\r",
    "!!!", "...", "---", "===", "***", "//", "/", "/*", "*/", "->", "=>", "::", "{", "}", "[",
    "]", "(", ")", "\"", "\\", "\\n", "?!", "#", "@", "$", "%", "^", "&", "_", "__", "~", "`",
    "```", ":\n", ";\n", ".\n", "/\n", "//\n", "!/", " ...", " !\n", "{\"a\":1}", "[1,2,3]",
    "\"key\": \"value\",\n", "null", "true", "false", "    \"x\": [\n", "int main(void) {\n",
    "    return 0;\n}\n", "for (i = 0; i < n; i++)", "local t = {}", "def f(x):\n    pass\n",
    "# Title\n", "- item\n", "**bold**", "https://example.com/a/b?c=d", "a@b.c",
    "550e8400-e29b-41d4-a716-446655440000", "SGVsbG8gV29ybGQ=", "Ünïcödé", "naïve", "café",
    "Straße", "ÆØÅ", "Привет", " мир", "ПРИВЕТ", "Γειά", "שלום", "مرحبا", "नमस्ते", "สวัสดี",
    "こんにちは", "カタカナ", "漢字", "日本語のテキスト", "中文文本", "한국어", "안녕하세요", "😀",
    "👍🏽", "👨‍👩‍👧", "❤️", "🇫🇷", "1️⃣", "é", "é", "ﬁ", "Ⅻ", "①", "٣", "१२३", "１２３",
    "\xC3", "\xE3\x81", "\xF0\x9F\x98", "\x80", "\xBF", "\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80",
    "\xFF", "\xFE", "\xF8\x88\x80\x80\x80", "\xE0\x80\xAF", "\xC2\xA0", "\xE2\x80\xAF", "\xE3\x80\x80",
    "\xC2\x85", "\0", "\x01", "\x7F", "\x1B[0m",
};

/* One unit of generated text of kind g. */
static void gen_unit(buf *b, int g)
{
    size_t nf = sizeof frags / sizeof *frags;
    switch (g) {
    case 0: /* fragments: every boundary between every kind */
        puts_(b, frags[below(nf)]);
        break;
    case 1: put_cp(b, PICK(r_latin)); break;
    case 2: put_cp(b, PICK(r_scripts)); break;
    case 3: put_cp(b, PICK(r_cjk)); break;
    case 4: /* emoji with modifiers, joiners, selectors */
        put_cp(b, PICK(r_emoji));
        if (below(4) == 0) put_cp(b, 0x1F3FB + (uint32_t)below(5));
        if (below(6) == 0) put_cp(b, 0xFE0F);
        if (below(8) == 0) put_cp(b, 0x200D);
        break;
    case 5: /* letters with combining marks */
        put_cp(b, below(2) ? PICK(r_latin) : PICK(r_scripts));
        for (size_t k = below(4); k; k--) put_cp(b, PICK(r_marks));
        break;
    case 6: put_cp(b, PICK(r_digits)); break;
    case 7: put_cp(b, PICK(r_spaces)); break;
    case 8: put_cp(b, PICK(r_punct)); break;
    case 9: { /* any byte */
        unsigned char c = (unsigned char)next();
        put(b, &c, 1);
        break;
    }
    case 10: /* any code point of any plane, surrogates and beyond included */
        put_cp(b, (uint32_t)below(0x110000 + 0x1000));
        break;
    case 11: /* a code point of plane k */
        put_cp(b, (uint32_t)(below(17) << 16 | below(0x10000)));
        break;
    case 12: /* runs of one character */
        for (size_t k = 1 + below(40); k; k--) {
            static const char rs[] = " \t\n0-=*_.'a";
            put(b, &rs[rng % (sizeof rs - 1)], 1);
        }
        break;
    default: /* ASCII of every class */
        put_cp(b, (uint32_t)below(0x80));
        break;
    }
}

#define NKINDS 14

static size_t gen_texts, gen_bytes;

/* A text of about 'size' bytes: units of kind 'g', or of random kinds
** (g < 0), 'mix' kinds a text when mixing. */
static void gen_text(buf *b, int g, size_t size)
{
    b->n = 0;
    int kinds[3] = {(int)below(NKINDS), (int)below(NKINDS), (int)below(NKINDS)};
    while (b->n < size) gen_unit(b, g >= 0 ? g : kinds[below(3)]);
    if (b->n > size && below(2)) b->n = size; /* cut, maybe inside a character */
}

static void generated(void)
{
    buf b = {0};
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33,
                                   47, 63, 64, 65, 100, 255, 256, 1000, 4096, 10000};
    for (int g = -1; g < NKINDS; g++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
            for (int rep = 0; rep < (sizes[z] < 100 ? 60 : 12); rep++) {
                gen_text(&b, g, sizes[z]);
                printf("g%zu: ", gen_texts++);
                gen_bytes += b.n;
                emit_variants(b.p, b.n);
            }
    /* large texts: 100 KB and 1 MB, mixed and per kind */
    for (int g = -1; g < NKINDS; g++)
        for (int big = 0; big < 2; big++) {
            gen_text(&b, g, big ? 1u << 20 : 100000);
            printf("G%zu: ", gen_texts++);
            gen_bytes += b.n;
            emit(b.p, b.n, 1);
        }
    /* every single byte, and every pair of a byte class */
    for (unsigned c = 0; c < 256; c++) {
        char s[2] = {(char)c, 0};
        printf("b%u: ", c);
        emit(s, 1, 1);
    }
    for (unsigned c = 0; c < 128; c++)
        for (unsigned d = 0; d < 256; d += 1 + (d >= 128) * 7) {
            char s[3] = {(char)c, (char)d, (char)c};
            printf("p%u.%u: ", c, d);
            emit(s, 3, 0);
        }
    /* chat messages */
    for (int k = 0; k < 200; k++) {
        coax_message msgs[4];
        buf parts[8] = {{0}};
        for (int m = 0; m < 4; m++) {
            for (int p = 0; p < 2; p++) gen_text(&parts[m * 2 + p], -1, below(300));
            msgs[m] = (coax_message){0};
            msgs[m].role = parts[m * 2].p ? parts[m * 2].p : "";
            msgs[m].role_len = parts[m * 2].n;
            msgs[m].content = parts[m * 2 + 1].p ? parts[m * 2 + 1].p : "";
            msgs[m].content_len = parts[m * 2 + 1].n;
            if (below(3) == 0) msgs[m].name = "bob", msgs[m].name_len = 3;
        }
        printf("m%d:", k);
        for (int e = 0; e <= COAX_ENC_COUNT; e++)
            printf(" %zu", coax_tokens_chat((coax_encoding)e, msgs, (size_t)(k % 5)));
        putchar('\n');
        for (int p = 0; p < 8; p++) free(parts[p].p);
    }
    free(b.p);
}

int main(int argc, char **argv)
{
    coax_arena *a = coax_arena_new(NULL);
    for (int k = 1; k < argc; k++) corpus(a, argv[k]);
    generated();
    fprintf(stderr, "diff: %zu corpus texts (%zu bytes), %zu generated (%zu bytes), with variants\n",
            corpus_texts, corpus_bytes, gen_texts, gen_bytes);
    coax_arena_free(a);
    return 0;
}
