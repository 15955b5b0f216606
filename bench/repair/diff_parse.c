/*
** diff_parse.c: the differential check of the parser and the repairer. Built twice,
** against an old and a new libcoax.a (bench/repair/diff.sh), it prints the
** full outcome of coax_parse (default and tight limits, duplicate-key
** offsets) and of coax_repair (default and tight limits) for every input,
** so the two outputs must be byte-identical when a change to the parser or
** the repairer is an optimisation only.
**   diff_parse files FILE...   each file whole; a .jsonl file also line by
**                              line, and a line that is a JSON string also
**                              as the text it holds (the bench's replies)
**   diff_parse gen SEED N      N generated documents: random JSON with
**                              escapes, surrogates, invalid UTF-8, huge
**                              numbers and deep nesting, then mutations of it
**   diff_parse model SEED N    N replies broken the ways models break JSON
**                              (quote styles, unquoted keys, comments,
**                              Python literals, inner quotes, raw new
**                              lines, odd numbers and spaces, fences,
**                              reasoning and tags, truncation), for the
**                              lenient parser's paths
** The generator is the same source in both builds, so both see the same
** documents.
*/
#include "base/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/slurp.h"

static void put_bytes(FILE *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') fputc(c, o);
        else fprintf(o, "\\x%02x", c);
    }
}

static void dump(FILE *o, const coax_value *v)
{
    fprintf(o, "%d/%d:", v->type, v->flags);
    switch (v->type) {
    case COAX_NULL: fputs("null", o); break;
    case COAX_BOOL: fputs(v->u.boolean ? "true" : "false", o); break;
    case COAX_NUMBER:
    case COAX_STRING:
        fprintf(o, "%u'", v->len);
        put_bytes(o, v->u.text, v->len);
        /* every returned string is NUL-terminated */
        fputs(v->u.text[v->len] ? "'!nonul" : "'", o);
        break;
    case COAX_ARRAY:
        fprintf(o, "[%u", v->len);
        for (uint32_t i = 0; i < v->len; i++) {
            fputc(' ', o);
            dump(o, &v->u.items[i]);
        }
        fputc(']', o);
        break;
    case COAX_OBJECT:
        fprintf(o, "{%u", v->len);
        for (uint32_t i = 0; i < v->len; i++) {
            const coax_member *m = &v->u.members[i];
            fprintf(o, " %u'", m->klen);
            put_bytes(o, m->key, m->klen);
            fputs(m->key[m->klen] ? "'!nonul=" : "'=", o);
            dump(o, &m->value);
        }
        fputc('}', o);
        break;
    default: fputs("?", o);
    }
}

static void put_error(FILE *o, coax_code rc, const coax_error *e)
{
    fprintf(o, " rc=%d", rc);
    if (rc) fprintf(o, " at=%zu %u:%u %s", e->offset, e->line, e->column, e->msg);
    fputc('\n', o);
}

/* Only the offset: a library before the flag 'differs' passes no third argument. */
static void on_dup(void *ud, size_t offset, bool differs)
{
    (void)differs;
    fprintf(ud, " dup@%zu", offset);
}

static void check(FILE *o, coax_arena *a, const char *text, size_t len)
{
    static const coax_limits tight = {4, (size_t)256 << 20, 8};
    for (int k = 0; k < 2; k++) {
        coax_value *v = NULL;
        coax_error e;
        memset(&e, 0, sizeof e);
        fprintf(o, k ? "  tight" : "  parse");
        coax_code rc = coax_parse_ex(a, text, len, k ? &tight : NULL, &v, &e, on_dup, o);
        put_error(o, rc, &e);
        if (!rc) {
            fputs("   ", o);
            dump(o, v);
            fputc('\n', o);
        }
        coax_arena_reset(a);
    }
    /* repair with the default limits, then with tight ones (depth 4,
    ** strings of 8 bytes: the limit paths) */
    for (int k = 0; k < 2; k++) {
        coax_repair_result r;
        coax_error e;
        memset(&e, 0, sizeof e);
        coax_code rc = coax_repair(a, text, len, k ? &tight : NULL, &r, &e);
        fprintf(o, k ? "  rtight" : "  repair");
        put_error(o, rc, &e);
        if (!rc) {
            fprintf(o, "   chosen %zu of %zu\n", r.chosen, r.ncandidates);
            for (size_t i = 0; i < r.ncandidates; i++) {
                const coax_candidate *c = &r.candidates[i];
                fprintf(o, "   cand %d %zu-%zu %d", c->source, c->start, c->end, c->complete);
                for (size_t j = 0; j < c->nlog; j++)
                    fprintf(o, " [%s %zu %u:%u %d]", c->log[j].kind, c->log[j].offset, c->log[j].line,
                            c->log[j].column, c->log[j].cls);
                fputs("\n    ", o);
                dump(o, c->value);
                fputc('\n', o);
            }
        }
        coax_arena_reset(a);
    }
}

static void files(FILE *o, coax_arena *a, int n, char **paths)
{
    for (int i = 0; i < n; i++) {
        size_t len;
        char *s = slurp(paths[i], &len);
        if (!s) continue;
        fprintf(o, "file %s\n", paths[i]);
        check(o, a, s, len);
        size_t pl = strlen(paths[i]);
        if (pl > 6 && !strcmp(paths[i] + pl - 6, ".jsonl")) {
            coax_arena *keep = coax_arena_new(NULL);
            size_t lineno = 0;
            for (char *p = s, *end = s + len; p < end; lineno++) {
                char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
                fprintf(o, "line %zu\n", lineno);
                check(o, a, p, l);
                coax_value *v;
                if (coax_parse(keep, p, l, NULL, &v, NULL) == COAX_OK && v->type == COAX_STRING) {
                    fprintf(o, "line %zu text\n", lineno);
                    check(o, a, v->u.text, v->len);
                }
                coax_arena_reset(keep);
                p += l + 1;
            }
            coax_arena_free(keep);
        }
        free(s);
    }
}

/* ---- generated documents ---------------------------------------------- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? (uint32_t)(rng_state % n) : 0;
}

typedef struct buf {
    char *s;
    size_t n, cap;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        while (b->n + n + 1 > b->cap) b->cap = b->cap ? b->cap * 2 : 256;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

static void gen_ws(buf *b)
{
    static const char *ws[] = {"", "", "", " ", "\n  ", "\t", "\r\n", "    ", "                  "};
    puts_(b, ws[rnd(9)]);
}

/* A pretty-printed document's indentation a level (0: gen_ws everywhere).
** The strict parser guesses a run before a child from the one before the
** last (json/parse.c, indent_run): runs mostly as long as the guess,
** sometimes a space longer or shorter, a tab, a CRLF or random, make it
** check both ways. */
static int pretty_step;

/* The whitespace before a child at 'depth' (or a closing bracket, at its
** container's depth), or between tokens of a line (depth -1). */
static void gen_line(buf *b, int depth)
{
    if (!pretty_step || rnd(25) == 0) {
        gen_ws(b);
        return;
    }
    if (depth < 0) {
        if (rnd(10) == 0) puts_(b, " ");
        return;
    }
    puts_(b, rnd(30) ? "\n" : "\r\n");
    int n = pretty_step * depth + (rnd(15) == 0 ? (int)rnd(3) - 1 : 0) + (rnd(40) == 0 ? (int)rnd(20) : 0);
    for (int i = 0; i < n; i++) put(b, rnd(60) ? " " : "\t", 1);
}

static void gen_string_body(buf *b)
{
    static const char *pieces[] = {
        "a", "key", "hello world", "é", "東京", "😀", "\\n", "\\\"", "\\\\", "\\/", "\\b\\f\\r\\t",
        "\\u0041", "\\u00e9", "\\u6771", "\\ud83d\\ude00", "\\uD83D\\uDE00", "\\ud800", "\\udc00",
        "\\ud800\\u0041", "\\ud800x", "\\u12", "\\x", "\\", "\x01", "\x7f", "\xc3", "\xc3\xa9",
        "\xe2\x82", "\xed\xa0\x80", "\xf0\x9f\x98\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\xff",
        "\xe0\x80\xaf", "\xf0\x80\x80\x80", "0123456789abcdef0123456789", "\\u0000", "\"",
    };
    int n = (int)rnd(6);
    for (int i = 0; i < n; i++) {
        /* mostly plain text, sometimes one of the hard pieces */
        if (rnd(3)) {
            size_t len = rnd(40);
            for (size_t j = 0; j < len; j++) {
                char c = (char)('a' + rnd(26));
                put(b, &c, 1);
            }
        } else {
            puts_(b, pieces[rnd(sizeof pieces / sizeof *pieces)]);
        }
    }
}

static void gen_number(buf *b)
{
    static const char *nums[] = {
        "0", "-0", "1", "-1", "42", "123456789", "12345678901234567890123456789", "1.5", "-0.25",
        "1e10", "1E+2", "2e-3", "1.7976931348623157e309", "4.9e-330", "01", "1.", ".5", "-",
        "1e", "1e+", "--1", "+1", "0x10", "1.0e0", "-12.5e-7", "9007199254740993", "00", "-01",
        "123abc", "1.2.3", "1e5e5", "0.000000000000000000000000001",
    };
    if (rnd(2)) {
        char t[32];
        snprintf(t, sizeof t, rnd(2) ? "%u" : "-%u.%u", rnd(100000), rnd(1000));
        puts_(b, t);
    } else {
        puts_(b, nums[rnd(sizeof nums / sizeof *nums)]);
    }
}

static void gen_value(buf *b, int depth)
{
    uint32_t k = rnd(depth > 6 ? 6 : 10);
    switch (k) {
    case 0: puts_(b, "null"); break;
    case 1: puts_(b, rnd(2) ? "true" : "false"); break;
    case 2:
    case 3: gen_number(b); break;
    case 4:
    case 5:
        puts_(b, "\"");
        gen_string_body(b);
        puts_(b, "\"");
        break;
    case 6:
    case 7: {
        puts_(b, "[");
        int n = (int)rnd(8);
        for (int i = 0; i < n; i++) {
            gen_line(b, -1);
            if (i) puts_(b, ",");
            gen_line(b, depth + 1);
            gen_value(b, depth + 1);
        }
        gen_line(b, depth);
        puts_(b, "]");
        break;
    }
    default: {
        puts_(b, "{");
        int n = (int)rnd(22); /* past 16 members dedupe takes its hash table */
        static const char *keys[] = {"a", "b", "id", "name", "é", "\\u0061", "a\\u0000b", "k"};
        for (int i = 0; i < n; i++) {
            gen_line(b, -1);
            if (i) puts_(b, ",");
            gen_line(b, depth + 1);
            puts_(b, "\"");
            if (rnd(4)) puts_(b, keys[rnd(8)]);
            else gen_string_body(b);
            puts_(b, "\"");
            gen_line(b, -1);
            puts_(b, ":");
            if (pretty_step) puts_(b, " ");
            gen_line(b, -1);
            gen_value(b, depth + 1);
        }
        gen_line(b, depth);
        puts_(b, "}");
    }
    }
}

static void gen_deep(buf *b)
{
    int depth = (int)rnd(700);
    char open[700];
    for (int i = 0; i < depth; i++) {
        open[i] = rnd(2) ? '[' : '{';
        puts_(b, open[i] == '[' ? "[" : "{\"k\":");
    }
    gen_value(b, 7);
    for (int i = depth; i-- > 0;) puts_(b, open[i] == '[' ? "]" : "}");
}

static void mutate(buf *b)
{
    static const char bytes[] = "{}[]\",:\\ \n0123456789eE.-+tfnu\x80\xff\x01";
    int n = 1 + (int)rnd(3);
    for (int i = 0; i < n && b->n; i++) {
        size_t at = rnd((uint32_t)b->n);
        switch (rnd(4)) {
        case 0: b->s[at] = bytes[rnd(sizeof bytes - 1)]; break;
        case 1: memmove(b->s + at, b->s + at + 1, b->n - at - 1); b->n--; break;
        case 2:
            put(b, " ", 1);
            memmove(b->s + at + 1, b->s + at, b->n - at - 1);
            b->s[at] = bytes[rnd(sizeof bytes - 1)];
            break;
        default: b->n = at; /* truncated */
        }
    }
}

static void gen(FILE *o, coax_arena *a, uint64_t seed, long n)
{
    rng_state = seed * 2654435761u + 1;
    buf b = {0};
    for (long i = 0; i < n; i++) {
        b.n = 0;
        pretty_step = rnd(2) ? 0 : 1 + (int)rnd(4); /* half pretty-printed, 1 to 4 spaces a level */
        gen_ws(&b);
        if (rnd(20) == 0) gen_deep(&b);
        else gen_value(&b, 0);
        gen_ws(&b);
        if (rnd(2)) mutate(&b);
        fprintf(o, "gen %ld %zu\n", i, b.n);
        check(o, a, b.s, b.n);
    }
    free(b.s);
}

/* ---- replies written the ways models break JSON ------------------------ */

/* Which breakages a reply uses (each token then rolls its own dice). */
typedef struct how {
    bool pretty, trailing, single, unquoted, python, comment, inner_quote, raw_newline, missing_comma,
        odd_quotes, odd_numbers, odd_spaces, odd_structure;
} how;

static void model_pad(buf *b, const how *h, int depth)
{
    if (h->odd_spaces && rnd(6) == 0) {
        static const char *odd[] = {"\xc2\xa0", "\xe2\x80\x83", "\xe3\x80\x80", "\xef\xbb\xbf", "\f", "\v",
                                    "\r\n", "\t\t", "\xe2\x80\xa8", "\xe1\x9a\x80"};
        puts_(b, odd[rnd(sizeof odd / sizeof *odd)]);
    }
    if (!h->pretty) {
        if (rnd(4) == 0) puts_(b, " ");
        return;
    }
    puts_(b, rnd(8) ? "\n" : "\r\n");
    int n = 2 * depth + (rnd(10) == 0 ? (int)rnd(40) : 0); /* long indentation now and then */
    for (int i = 0; i < n; i++) put(b, rnd(30) ? " " : "\t", 1);
}

static void model_comment(buf *b)
{
    static const char *c[] = {"// the model explains itself\n", "/* a block comment */", "# a hash comment\n",
                              "/* unclosed", "//", "/**/", "/* a * star */ "};
    puts_(b, c[rnd(sizeof c / sizeof *c)]);
}

/* Text for a string: words, multi-byte characters, escapes, and now and
** then something a string cannot hold as it is. */
static void model_text(buf *b, const how *h, char quote)
{
    static const char *words[] = {"alpha", "widget", "café", "naïve", "東京", "データ", "😀", "steel",
                                  "a", "SKU-12345", "x,y", "a: b", "{not}", "[no]", "don't", "it's"};
    int n = (int)rnd(rnd(8) ? 8 : 60);
    for (int i = 0; i < n; i++) {
        if (i) puts_(b, " ");
        uint32_t k = rnd(40);
        if (k == 0 && h->inner_quote) put(b, &quote, 1);
        else if (k == 1 && h->raw_newline) puts_(b, rnd(2) ? "\n" : "\n  \"k\": ");
        else if (k == 2) puts_(b, rnd(2) ? "\\n" : "\\\"");
        else if (k == 3) puts_(b, rnd(2) ? "\\u00e9" : "\\ud83d\\ude00");
        else if (k == 4 && h->odd_quotes) puts_(b, rnd(2) ? "\\x" : "\\ud800");
        else if (k == 5 && h->odd_quotes) puts_(b, rnd(2) ? "\t" : "\xff");
        else if (k == 6 && h->odd_quotes) puts_(b, rnd(2) ? "\xe2\x80\x9c" : "'");
        else if (k == 7) puts_(b, ",");
        else if (k == 8) puts_(b, rnd(2) ? "\\" : "\"");
        else puts_(b, words[rnd(sizeof words / sizeof *words)]);
    }
    if (rnd(30) == 0) /* a long plain run */
        for (int i = 0, m = (int)rnd(300); i < m; i++) put(b, &"abcdefghij klmno"[rnd(16)], 1);
}

/* Text between an opening and a closing quote ('inner': the quote a
** stray one inside would be). */
static void model_quoted(buf *b, const how *h, const char *open, char inner, const char *close)
{
    puts_(b, open);
    model_text(b, h, inner);
    puts_(b, close);
}

static void model_string(buf *b, const how *h)
{
    uint32_t k = h->odd_quotes ? rnd(40) : 40;
    const char *triple = rnd(2) ? "\"\"\"" : "'''";
    switch (k) {
    case 0: model_quoted(b, h, "\xe2\x80\x9c", '"', rnd(2) ? "\xe2\x80\x9d" : "\""); return;
    case 1: model_quoted(b, h, "`", '`', "`"); return;
    case 2: model_quoted(b, h, triple, '"', triple); return;
    case 3: puts_(b, rnd(2) ? "```python\nx = 1\n  y = 2\n```" : "```print(1)```"); return;
    case 4: puts_(b, rnd(2) ? "\"a\" + \"b\"" : "\"a\" + /* c */ 'c'"); return;
    case 5: model_quoted(b, h, "\xe2\x80\x98", '\'', "\xe2\x80\x99"); return;
    case 6: model_quoted(b, h, "'''", '"', "\n  more\n'''"); return;
    default: break;
    }
    char q = h->single && rnd(4) ? '\'' : '"';
    put(b, &q, 1);
    model_text(b, h, q);
    if (rnd(60)) put(b, &q, 1); /* now and then the closing quote is lost */
}

static void model_number(buf *b, const how *h)
{
    static const char *odd[] = {"+1", ".5", "5.", "1e", "12,111", "1,234,567", "-.5", "NaN", "Infinity",
                                "-Infinity", "undefined", "0x1F", "007", "1e+", "1_000", "- 5", "1.2.3"};
    if (h->odd_numbers && rnd(5) == 0) {
        puts_(b, odd[rnd(sizeof odd / sizeof *odd)]);
        return;
    }
    char t[48];
    switch (rnd(4)) {
    case 0: snprintf(t, sizeof t, "%u", rnd(100000)); break;
    case 1: snprintf(t, sizeof t, "-%u.%02u", rnd(1000), rnd(100)); break;
    case 2: snprintf(t, sizeof t, "%u.%u", rnd(10), rnd(100000)); break;
    default: snprintf(t, sizeof t, "%ue%d", rnd(10), (int)rnd(20) - 10); break;
    }
    puts_(b, t);
}

static void model_key(buf *b, const how *h)
{
    static const char *keys[] = {"name", "id", "price", "in_stock", "tags", "items", "desc", "名前",
                                 "first name", "$ref", "_x", "2", "a-b", "key\"q", "k"};
    const char *k = keys[rnd(sizeof keys / sizeof *keys)];
    if (h->unquoted && rnd(2)) {
        puts_(b, k);
    } else {
        const char *q = h->single && rnd(3) == 0 ? "'" : "\"";
        puts_(b, q);
        puts_(b, k);
        puts_(b, q);
    }
}

static void model_value(buf *b, const how *h, int depth)
{
    uint32_t k = rnd(depth > 4 ? 7 : 11);
    switch (k) {
    case 0:
        puts_(b, h->python && rnd(2) ? "None" : "null");
        break;
    case 1:
        if (h->python && rnd(2)) puts_(b, rnd(2) ? "True" : "False");
        else puts_(b, rnd(2) ? "true" : "false");
        break;
    case 2:
    case 3:
        model_number(b, h);
        break;
    case 4:
    case 5:
    case 6:
        if (h->odd_structure && rnd(25) == 0) {
            static const char *odd[] = {"...", "\xe2\x80\xa6", "unquoted words here", "f(1)", "Date(5)", "-"};
            puts_(b, odd[rnd(sizeof odd / sizeof *odd)]);
        } else {
            model_string(b, h);
        }
        break;
    case 7:
    case 8: {
        puts_(b, "[");
        int n = (int)rnd(6);
        for (int i = 0; i < n; i++) {
            model_pad(b, h, depth + 1);
            if (h->comment && rnd(8) == 0) model_comment(b);
            model_value(b, h, depth + 1);
            if ((i < n - 1 || (h->trailing && rnd(2))) && !(h->missing_comma && rnd(5) == 0))
                puts_(b, h->odd_structure && rnd(20) == 0 ? ",," : ",");
        }
        model_pad(b, h, depth);
        puts_(b, h->odd_structure && rnd(20) == 0 ? "}" : "]");
        break;
    }
    default: {
        puts_(b, "{");
        int n = (int)rnd(rnd(5) ? 7 : 20);
        for (int i = 0; i < n; i++) {
            model_pad(b, h, depth + 1);
            if (h->comment && rnd(6) == 0) {
                model_comment(b);
                model_pad(b, h, depth + 1);
            }
            model_key(b, h);
            if (h->odd_structure && rnd(20) == 0) puts_(b, rnd(2) ? " = " : " ");
            else puts_(b, h->pretty ? ": " : ":");
            if (!(h->odd_structure && rnd(40) == 0)) model_value(b, h, depth + 1);
            if ((i < n - 1 || (h->trailing && rnd(2))) && !(h->missing_comma && rnd(5) == 0)) puts_(b, ",");
        }
        model_pad(b, h, depth);
        if (!(h->odd_structure && rnd(25) == 0)) puts_(b, h->odd_structure && rnd(25) == 0 ? "]" : "}");
        if (h->odd_structure && rnd(30) == 0) puts_(b, "}");
    }
    }
}

/* The reply around the value: fences, reasoning, tags, prose, a call. */
static void model_reply(buf *b, const buf *json)
{
    static const char *before[] = {"", "```json\n", "Sure! Here is the data:\n\n```json\n",
                                   "<think>The user wants JSON. {draft} I will list it.</think>\n",
                                   "Here is the JSON you asked for: ", "<json>", "```\n", "~~~json\n",
                                   "<think>unclosed reasoning {\"a\": 1}", "```js\n", "Result:\n```python\n",
                                   "callback(", "\xef\xbb\xbf", "<reasoning>hmm</reasoning>```json\n",
                                   "He said \"see [1]\" and {\"a\": \"}\"} then: "};
    static const char *after[] = {"", "\n```", "\n```\n\nLet me know if you need anything else.", "",
                                  " I hope this helps!", "</json>", "\n```", "\n~~~", "", "\n```", "\n```",
                                  ");", "", "\n```", " and \"more\" [\"x]\", {\"y\": [2]}] \"end"};
    uint32_t w = rnd(sizeof before / sizeof *before);
    puts_(b, before[w]);
    put(b, json->s, json->n);
    if (rnd(8) == 0) /* a second value: NDJSON, or an example after the answer */
        puts_(b, rnd(2) ? "\n{\"second\": 2}" : "\n\nFor example: {\"id\": 1, \"x\": [1, 2]} or [3]");
    puts_(b, after[w]);
}

static void model(FILE *o, coax_arena *a, uint64_t seed, long n)
{
    rng_state = seed * 2654435761u + 7;
    buf b = {0}, j = {0}, e = {0};
    for (long i = 0; i < n; i++) {
        how h;
        bool *f = &h.pretty;
        for (size_t k = 0; k < sizeof h / sizeof(bool); k++) f[k] = rnd(10) < (k == 0 ? 6 : 2);
        j.n = 0;
        do { /* mostly an object, as extraction replies are */
            j.n = 0;
            model_value(&j, &h, 0);
        } while (rnd(10) && j.s[0] != '{');
        if (rnd(16) == 0) { /* written with escaped quotes, or double-encoded */
            e.n = 0;
            bool quoted = rnd(2);
            if (quoted) puts_(&e, "\"");
            for (size_t k = 0; k < j.n; k++) {
                if (j.s[k] == '"' || j.s[k] == '\\') put(&e, "\\", 1);
                put(&e, j.s + k, 1);
            }
            if (quoted) puts_(&e, "\"");
            j.n = 0;
            put(&j, e.s, e.n);
        }
        b.n = 0;
        if (rnd(10) == 0) { /* a soup of the bytes the scan and the parser stop at, and words */
            static const char *bits[] = {"{", "}", "[", "]", "\"", "\\", "\n", "```", "~~~", "<think>", "</think>",
                                         "<json>", " ", ",", ":", "a", "word", "'", "1", "\xe2\x80\x9c", "//", "\t"};
            for (int k = 0, m = (int)rnd(200); k < m; k++) puts_(&b, bits[rnd(sizeof bits / sizeof *bits)]);
        }
        model_reply(&b, &j);
        if (rnd(7) == 0 && b.n) b.n = rnd((uint32_t)b.n); /* cut off */
        if (rnd(5) == 0) mutate(&b);
        fprintf(o, "model %ld %zu\n", i, b.n);
        check(o, a, b.s, b.n);
    }
    free(b.s);
    free(j.s);
    free(e.s);
}

int main(int argc, char **argv)
{
    coax_arena *a = coax_arena_new(NULL);
    FILE *o = stdout;
    if (argc > 1 && !strcmp(argv[1], "files")) files(o, a, argc - 2, argv + 2);
    else if (argc > 3 && !strcmp(argv[1], "gen")) gen(o, a, strtoull(argv[2], NULL, 10), atol(argv[3]));
    else if (argc > 3 && !strcmp(argv[1], "model")) model(o, a, strtoull(argv[2], NULL, 10), atol(argv[3]));
    else {
        fprintf(stderr, "usage: diff_parse files FILE... | gen SEED N | model SEED N\n");
        return 2;
    }
    coax_arena_free(a);
    return 0;
}
