/*
** diff.c: everything the streaming reader lets a caller observe, for a
** corpus of replies fed in pieces of every size, so that two builds of the
** reader can be compared byte for byte (diff.sh builds this file against
** each libcoax.a and compares the outputs' md5).
**
**   diff [quick]
**
** The corpus (made here, the same every run: a fixed seed): valid JSON,
** fenced, in tags and prose, after reasoning blocks; broken JSON of many
** kinds; unicode (valid, invalid, cut); escapes (\uXXXX, surrogate pairs,
** lone halves); long strings; numbers; deep nesting; random documents and
** random mutations of them. Each reply is read under several options (no
** schema; schemas that judge and coerce; atomic pointers; small limits)
** and split in pieces of 1..64 bytes and at random points, with partials
** asked for after every piece, every few pieces or only at the end. For
** each feed: its code and message, the bytes, whether it changed; for each
** partial: its JSON (hashed when long); at the end, stream_root_extract.
*/
#include "base/core.h"
#include "stream/stream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output -------------------------------------------------------------- */

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* A text as a line: whole when short, else its length and hash. */
static void put_text(const char *tag, const char *s, size_t n)
{
    if (n <= 400) {
        printf("%s %zu ", tag, n);
        fwrite(s, 1, n, stdout);
        putchar('\n');
    } else {
        printf("%s %zu #%016llx\n", tag, n, (unsigned long long)fnv(s, n));
    }
}

/* ---- the corpus ---------------------------------------------------------- */

typedef struct corpus {
    char **text;
    size_t *len;
    size_t n, cap;
} corpus;

static void add(corpus *c, const char *s, size_t n)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->text = realloc(c->text, c->cap * sizeof *c->text);
        c->len = realloc(c->len, c->cap * sizeof *c->len);
    }
    c->text[c->n] = malloc(n + 1);
    memcpy(c->text[c->n], s, n);
    c->text[c->n][n] = 0;
    c->len[c->n++] = n;
}

static void adds(corpus *c, const char *s) { add(c, s, strlen(s)); }

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
static size_t rndn(size_t n) { return n ? rnd() % n : 0; }

static const char *const keys[] = {"id", "name", "price", "tags", "ok", "items", "a", "b", "count", "n\\u00e9"};
static const char *const strs[] = {
    "", "x", "item number 7", "caf\\u00e9", "\\ud83d\\ude00", "\xc3\xa9t\xc3\xa9", "\xe4\xb8\xad\xe6\x96\x87",
    "\xf0\x9f\x98\x80!", "tab\\there", "q\\\"uote\\\\", "sl\\/ash\\b\\f\\n\\r", "12", "true", "a b c d e f g h i j",
    "\\u0041\\u00e9\\u4e2d\\ud800\\udc00"};
static const char *const nums[] = {"0", "-0", "7", "-12", "12.5", "0.25", "1e5", "1E+5", "-1.5e-3", "123456789012345678901",
                                   "3.14159", "100"};

/* A random JSON value into 'b', 'depth' levels at most; 'pretty' spaces. */
static void gen_value(coax_buf *b, int depth, bool pretty, int indent)
{
    size_t k = rndn(depth > 0 ? 10 : 6);
    const char *nl = pretty ? "\n" : "";
    switch (k) {
    case 0: case 1: coax_buf_printf(b, "\"%s\"", strs[rndn(sizeof strs / sizeof *strs)]); break;
    case 2: case 3: coax_buf_puts(b, nums[rndn(sizeof nums / sizeof *nums)]); break;
    case 4: coax_buf_puts(b, rndn(2) ? "true" : rndn(2) ? "false" : "null"); break;
    case 5: { /* a long string */
        size_t n = 50 + rndn(3000);
        coax_buf_putc(b, '"');
        for (size_t i = 0; i < n; i++) {
            size_t t = rndn(40);
            if (t == 0) coax_buf_puts(b, "\\n");
            else if (t == 1) coax_buf_puts(b, "\xc3\xa9");
            else if (t == 2) coax_buf_puts(b, "\\u00e9");
            else if (t == 3) coax_buf_puts(b, "\xf0\x9f\x98\x80");
            else coax_buf_putc(b, (char)('a' + rndn(26)));
        }
        coax_buf_putc(b, '"');
        break;
    }
    case 6: case 7: { /* an array */
        size_t n = rndn(5);
        coax_buf_putc(b, '[');
        for (size_t i = 0; i < n; i++) {
            if (i) coax_buf_puts(b, pretty ? ", " : ",");
            gen_value(b, depth - 1, pretty, indent + 1);
        }
        coax_buf_putc(b, ']');
        break;
    }
    default: { /* an object */
        size_t n = rndn(5);
        coax_buf_putc(b, '{');
        for (size_t i = 0; i < n; i++) {
            if (i) coax_buf_putc(b, ',');
            coax_buf_puts(b, nl);
            for (int s = 0; pretty && s <= indent; s++) coax_buf_puts(b, "  ");
            coax_buf_printf(b, "\"%s\":%s", keys[rndn(sizeof keys / sizeof *keys)], pretty ? " " : "");
            gen_value(b, depth - 1, pretty, indent + 1);
        }
        if (n) coax_buf_puts(b, nl);
        coax_buf_putc(b, '}');
        break;
    }
    }
}

static const char *const wrappers[][2] = {
    {"", ""},
    {"Here is the JSON:\n```json\n", "\n```\nDone."},
    {"```\n", "\n```"},
    {"<think>maybe {\"a\": 1} or [2]</think>\n", ""},
    {"Sure! ", " Hope it helps."},
    {"<answer>", "</answer>"},
    {"see [1] and [note]: ", "\n"},
    {"~~~json\n", "\n~~~\n"},
    {"```python\nx = {'a': 1}\n```\nthen ", ""},
};

/* The replies that follow a rule or break one, written by hand. */
static void hand_written(corpus *c)
{
    static const char *const t[] = {
        "{\"id\": 1, \"name\": \"Jo\", \"price\": 2.5, \"tags\": [\"a\", \"b\"], \"ok\": true}",
        "[1, 2, 3]", "[]", "{}", "[[]]", "[{}]", "{\"a\": {}}", "{\"a\": []}", "  \n\t{ \"a\" : 1 , \"b\" : [ 1 , 2 ] }  ",
        "{\"a\":1,\"b\":2}", "[1,2,3]", "[true,false,null]", "[true ,false ,null ]", "[tru]", "[nul]", "[True]",
        "[01]", "[1.]", "[-]", "[1e]", "[+1]", "[.5]", "[1.5e+]", "[-0.0e-0]", "{\"n\": 12,111, \"m\": 1}",
        "{\"n\": 12,\"m\": 1}", "{\"n\": 12 ,\"m\": 1}", "{\"n\": 12, 111}", "[12,111]", "{\"a\": 1,}", "[1,]",
        "{'a': 1}", "{a: 1}", "{\"a\" 1}", "{\"a\": 1 \"b\": 2}", "[1 2]", "{\"a\": 1} {\"b\": 2}", "[1] [2]",
        "{\"a\": \"x\" + \"y\"}", "[\"a\" \"b\"]", "{\"a\": NaN}", "{\"a\": // c\n 1}", "{\"a\": /* c */ 1}",
        "{\"a\": 1, \"a\": 2}", "{\"a\": {\"b\": 1, \"b\": 2}}", "{\"a\": 1}}", "[1]]", "{\"a\": 1]", "[1}",
        "{\"a\": \"\\u0041\\u00e9\\u4e2d\"}", "[\"\\ud83d\\ude00\"]", "[\"\\ud83d\"]", "[\"\\ude00\"]",
        "[\"\\ud83dx\"]", "[\"\\ud83d\\u0041\"]", "[\"\\ud83d\\\\\"]", "[\"\\x\"]", "[\"\\u12G4\"]", "[\"\\u\"]",
        "[\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"]", "[\"tab\there\"]", "[\"nl\nhere\"]", "[\"\x01\"]",
        "[\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"]", "[\"\xc0\x80\"]", "[\"\xed\xa0\x80\"]", "[\"\xf5\x80\x80\x80\"]",
        "[\"\x80\"]", "[\"\xe0\x80\x80\"]", "[\"\xf4\x90\x80\x80\"]", "[\"\xf0\x8f\xbf\xbf\"]", "[\"\xe0\xa0\"]",
        "[\"\xc3\"]", "[\"\xc3", "[\"\xf0\x9f\x98", "[\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\xed\x9f\xbf\"]", "[\"\xff\"]",
        "{\"name\": \"unterminated", "{\"name\": \"x\", \"items\": [1, 2", "{\"a\": tr", "[12", "[12 ", "[-",
        "{\"a\"", "{\"a\":", "{\"a\" :  ", "{", "[", "\"just a string\"", "42", "true", "null",
        "prose with no json at all", "a { b", "[1] is a note", "[ note ]", "[\"x\"] ok", "[{\"a\":1}]", "[[1]]",
        "<think>{\"no\": 1}</think>{\"yes\": 2}", "<think>unclosed {\"a\": 1}", "<reasoning>x</reasoning>[1]",
        "```json\n{\"a\": 1}\n```", "```json\n{\"a\": 1}", "```json\n[1, 2]\n```\n```json\n{\"b\": 2}\n```",
        "```\nnot json\n```\n{\"a\": 1}", "````json\n{\"a\": 1}\n````", "```JSON\n {\"a\": 1}\n```",
        "```json   \n{\"a\": 1}\n```", "```jsonc\n{\"a\": 1}\n```", "``` json\n{\"a\": 1}\n```", "``json\n{}\n``",
        "<json>{\"a\": 1}</json>", "<tag attr=\"x\">[1]</tag>", "< {\"a\": 1}", "<>{\"a\":1}", "<a/>[1]",
        "{\"items\": [{\"id\": \"7\", \"name\": 5, \"price\": \"2.5\", \"ok\": \"true\", \"tags\": \"a\"}]}",
        "{\"items\": [{\"id\": 1.0, \"name\": \"x\"}, {\"id\": 2}, {\"name\": \"y\"}]}",
        "{\"items\": [{\"id\": 1, \"name\": \"x\", \"extra\": {\"deep\": [1, {\"e\": 2}]}}], \"other\": 3}",
        "{\"result\": {\"items\": [{\"id\": 1, \"name\": \"x\"}]}}", "{\"data\": [1, 2]}", "{\"items\": {}}",
        "{\"name\": \"atomic string here\", \"items\": [{\"name\": \"inner atomic\"}]}",
        "{\"count\": \"12\", \"name\": null, \"ok\": 1}", "{\"count\": 1e400, \"price\": -0}",
        "{\"id\":1}\n\n{\"id\":2}", "[1]\n[2]", "{\"a\": 1}\r\n", "\xef\xbb\xbf{\"a\": 1}", "{\"\": \"\"}",
        "{\"a~b/c\": {\"d/e\": 1}}", "{\"n\\u00e9\": 1, \"n\xc3\xa9\": 2}", "{\"a\\u0000b\": 1}",
        "{\"k\": \"v\"}, and {\"k2\": \"v2\"}", "[1, [2, [3, [4, [5]]]]]", "{\"a\": {\"b\": {\"c\": {\"d\": 1}}}}",
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) adds(c, t[i]);
}

/* Nesting, long strings, many spaces, and the bench's kind of reply. */
static void made(corpus *c)
{
    coax_buf b;
    coax_buf_init(&b, NULL);
    size_t depths[] = {15, 16, 17, 40, 100};
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
        for (int kind = 0; kind < 3; kind++) {
            b.len = 0;
            for (size_t i = 0; i < depths[d]; i++) coax_buf_puts(&b, kind == 0 ? "[" : kind == 1 ? "{\"a\": " : "[{\"b\":");
            coax_buf_puts(&b, "1");
            for (size_t i = 0; i < depths[d]; i++) coax_buf_puts(&b, kind == 0 ? "]" : kind == 1 ? "}" : "}]");
            add(c, b.data, b.len);
            add(c, b.data, b.len - depths[d] / 2); /* cut */
        }
    }
    size_t lens[] = {63, 64, 65, 200, 5000, 70000};
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
        for (int kind = 0; kind < 4; kind++) {
            b.len = 0;
            coax_buf_puts(&b, "{\"name\": \"");
            for (size_t i = 0; i < lens[l]; i++) {
                if (kind == 1 && i % 37 == 5) coax_buf_puts(&b, "\\u00e9");
                else if (kind == 2 && i % 11 == 3) coax_buf_puts(&b, "\xe4\xb8\xad");
                else if (kind == 3 && i % 29 == 1) coax_buf_puts(&b, "\\ud83d\\ude00");
                else coax_buf_putc(&b, (char)('a' + i % 26));
            }
            coax_buf_puts(&b, "\", \"id\": 1}");
            add(c, b.data, b.len);
        }
    }
    b.len = 0; /* long runs of spaces and digits */
    coax_buf_puts(&b, "{");
    for (int i = 0; i < 40; i++) coax_buf_puts(&b, " \t\r\n ");
    coax_buf_puts(&b, "\"count\"  \n\n  :   \t 1234567890123456789012345678901234567890   ,   \"price\" :   -0.000000000001e-000010  }   ");
    add(c, b.data, b.len);
    b.len = 0;
    coax_buf_puts(&b, "Here is the list:\n```json\n{\"items\": [\n");
    for (size_t i = 0; i < 60; i++)
        coax_buf_printf(&b, "%s  {\"id\": %zu, \"name\": \"item number %zu \\u00e9\", \"price\": %zu.25, "
                            "\"tags\": [\"a\", \"b\"], \"ok\": true}",
                        i ? ",\n" : "", i, i, i % 1000);
    coax_buf_puts(&b, "\n]}\n```\n");
    add(c, b.data, b.len);
    coax_buf_free(&b);
}

/* Random documents, wrapped, and random mutations of them. */
static void random_docs(corpus *c, size_t n)
{
    coax_buf b;
    coax_buf_init(&b, NULL);
    for (size_t k = 0; k < n; k++) {
        b.len = 0;
        size_t w = rndn(sizeof wrappers / sizeof *wrappers);
        coax_buf_puts(&b, wrappers[w][0]);
        size_t from = b.len;
        if (rndn(4)) {
            coax_buf_puts(&b, "{\"items\": [");
            size_t m = 1 + rndn(4);
            for (size_t i = 0; i < m; i++) {
                if (i) coax_buf_puts(&b, ", ");
                gen_value(&b, 4, rndn(2), 1);
            }
            coax_buf_puts(&b, "], \"name\": ");
            gen_value(&b, 2, false, 0);
            coax_buf_putc(&b, '}');
        } else {
            gen_value(&b, 5, rndn(2), 0);
        }
        size_t to = b.len;
        coax_buf_puts(&b, wrappers[w][1]);
        add(c, b.data, b.len);
        /* mutations: a byte deleted, replaced, inserted; the text cut */
        for (int m = 0; m < 3; m++) {
            coax_buf t;
            coax_buf_init(&t, NULL);
            coax_buf_put(&t, b.data, b.len);
            size_t at = from + rndn(to - from);
            static const char junk[] = "{}[]\",:\\ \n0-.eEtfnu'/\x80\xc3\xed\xf0";
            char j = junk[rndn(sizeof junk - 1)];
            switch (rndn(4)) {
            case 0: memmove(t.data + at, t.data + at + 1, t.len - at - 1); t.len--; break;
            case 1: t.data[at] = j; break;
            case 2: coax_buf_putc(&t, 0); memmove(t.data + at + 1, t.data + at, t.len - at - 1); t.data[at] = j; break;
            default: t.len = at; break;
            }
            add(c, t.data, t.len);
            coax_buf_free(&t);
        }
    }
    coax_buf_free(&b);
}

/* ---- reading ------------------------------------------------------------- */

static const char *const schema_texts[] = {
    /* the bench's: records judged one by one */
    "{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},\"price\":{\"type\":\"number\"},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"ok\":{\"type\":\"boolean\"}},"
    "\"required\":[\"id\",\"name\"]}}},\"required\":[\"items\"]}",
    /* strict, with a length, a pattern and coercions to make */
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":40},"
    "\"count\":{\"type\":\"integer\",\"minimum\":0},\"ok\":{\"type\":\"boolean\"},"
    "\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
    "\"name\":{\"type\":\"string\",\"pattern\":\"^[a-z ]*$\"}},\"additionalProperties\":false}}},"
    "\"additionalProperties\":{\"type\":\"number\"}}",
    /* an array root */
    "{\"type\":\"array\",\"items\":{}}",
};

typedef struct config {
    int schema;           /* -1: none */
    bool atomic;          /* "/name", "/items/0/name" shown only once complete */
    coax_limits lim;      /* zeros: defaults */
} config;

static const char *const atomic_ptrs[] = {"/name", "/items/0/name"};

static void show_partial(stream_reader *r, coax_arena *a, coax_buf *b)
{
    stream_partial p;
    coax_error e = {0};
    coax_code rc = stream_partial_get(r, a, &p, &e);
    if (rc) {
        printf("P! %d %s\n", rc, e.msg);
        return;
    }
    b->len = 0;
    coax_code wc = stream_partial_write(&p, b);
    printf("p %d %d %d %zu %zu %d %d ", wc, p.doomed, p.stopped, p.ncomplete, p.errors.nerrors, p.ended,
           p.in_progress != NULL);
    put_text("", b->data ? b->data : "", b->len);
}

/* Feeds 'text' in the pieces 'cuts' gives (piece k is [cuts[k], cuts[k+1])),
** asking for a partial after every 'every' pieces (0: only at the end). */
static void read_reply(const coax_schema *s, const config *cf, const char *text, size_t len, const size_t *cuts,
                       size_t ncuts, size_t every)
{
    stream_options o = {s, cf->lim.max_depth ? &cf->lim : NULL, cf->atomic ? atomic_ptrs : NULL,
                        cf->atomic ? 2 : 0, NULL};
    stream_reader *r;
    coax_error e = {0};
    if (stream_new(NULL, &o, &r, &e)) {
        printf("new! %s\n", e.msg);
        return;
    }
    coax_arena *a = coax_arena_new(NULL);
    coax_buf b;
    coax_buf_init(&b, NULL);
    for (size_t k = 0; k + 1 < ncuts; k++) {
        memset(&e, 0, sizeof e);
        coax_code rc = stream_feed(r, text + cuts[k], cuts[k + 1] - cuts[k], &e);
        printf("f %zu %d %zu %d", cuts[k + 1] - cuts[k], rc, stream_bytes(r), stream_changed(r));
        if (rc) printf(" %s", e.msg);
        putchar('\n');
        if (rc && k + 2 < ncuts) { /* once more: the reader stays failed */
            rc = stream_feed(r, text + cuts[k + 1], cuts[k + 2] - cuts[k + 1], &e);
            printf("F %d %zu %s\n", rc, stream_bytes(r), e.msg);
            break;
        }
        if (every && (k + 1) % every == 0) {
            coax_arena_reset(a);
            show_partial(r, a, &b);
        }
    }
    coax_arena_reset(a);
    show_partial(r, a, &b);
    const coax_extract_result *x = stream_root_extract(r, text, len, true);
    if (x) {
        b.len = 0;
        coax_write_buf(&b, x->value, 0);
        printf("x %d %zu %zu ", x->valid, x->ncoercions, x->validation.nerrors);
        put_text("", b.data ? b.data : "", b.len);
    } else {
        printf("x none\n");
    }
    coax_buf_free(&b);
    coax_arena_free(a);
    stream_free(r);
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && !strcmp(argv[1], "quick");
    corpus c = {0};
    hand_written(&c);
    size_t nhand = c.n;
    /* every hand-written reply also wrapped */
    for (size_t i = 0; i < nhand; i++) {
        for (size_t w = 1; w < sizeof wrappers / sizeof *wrappers; w += 1 + (i % 3)) {
            coax_buf b;
            coax_buf_init(&b, NULL);
            coax_buf_printf(&b, "%s%s%s", wrappers[w][0], c.text[i], wrappers[w][1]);
            add(&c, b.data, b.len);
            coax_buf_free(&b);
        }
    }
    made(&c);
    random_docs(&c, quick ? 60 : 400);

    coax_arena *sa = coax_arena_new(NULL);
    size_t nschemas = sizeof schema_texts / sizeof *schema_texts;
    coax_schema *schemas[8];
    for (size_t i = 0; i < nschemas; i++) {
        coax_value *v;
        if (coax_parse(sa, schema_texts[i], strlen(schema_texts[i]), NULL, &v, NULL) ||
            coax_schema_compile(v, NULL, NULL, &schemas[i], NULL)) {
            fprintf(stderr, "diff: schema %zu does not compile\n", i);
            return 1;
        }
    }
    config configs[] = {
        {-1, false, {0}},
        {0, false, {0}},
        {1, true, {0}},
        {2, false, {0}},
        {-1, false, {16, 4096, 64}},
        {1, false, {16, 100000, 100}},
    };
    size_t nconfigs = sizeof configs / sizeof *configs;
    size_t *cuts = malloc(sizeof *cuts * 200000);
    size_t runs = 0;
    for (size_t i = 0; i < c.n; i++) {
        const char *t = c.text[i];
        size_t len = c.len[i];
        for (size_t ci = 0; ci < nconfigs; ci++) {
            const config *cf = &configs[ci];
            const coax_schema *s = cf->schema >= 0 ? schemas[cf->schema] : NULL;
            bool big = len > 4000;
            /* piece sizes: all of 1..64 for the first config, some for the others */
            for (size_t piece = 1; piece <= 64; piece++) {
                if ((ci || big || quick) && piece != 1 && piece != 2 && piece != 3 && piece != 5 && piece != 7 &&
                    piece != 13 && piece != 20 && piece != 64)
                    continue;
                if (big && piece < 5 && ci) continue;
                size_t n = 0;
                for (size_t at = 0; at < len; at += piece) cuts[n++] = at;
                cuts[n++] = len;
                size_t pieces = n - 1;
                size_t every = pieces <= 300 ? 1 + piece % 3 : pieces / 50;
                if (piece % 4 == 3) every = 0;
                printf("== %zu %zu %zu %zu\n", i, ci, piece, every);
                read_reply(s, cf, t, len, cuts, n, every);
                runs++;
            }
            for (int rs = 0; rs < (quick ? 2 : 4); rs++) { /* random splits */
                size_t n = 0;
                cuts[n++] = 0;
                for (size_t at = 0; at < len;) {
                    at += 1 + rndn(rs & 1 ? 6 : 80);
                    if (at > len) at = len;
                    cuts[n++] = at;
                }
                if (len == 0) cuts[n++] = 0;
                size_t every = n <= 300 ? 1 + (size_t)rs : n / 40;
                printf("== %zu %zu r%d %zu\n", i, ci, rs, every);
                read_reply(s, cf, t, len, cuts, n, every);
                runs++;
            }
        }
    }
    fprintf(stderr, "diff: %zu replies, %zu runs\n", c.n, runs);
    for (size_t i = 0; i < nschemas; i++) coax_schema_free(schemas[i]);
    coax_arena_free(sa);
    for (size_t i = 0; i < c.n; i++) free(c.text[i]);
    free(c.text);
    free(c.len);
    free(cuts);
    return 0;
}
