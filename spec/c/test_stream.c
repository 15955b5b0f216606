/*
** test_stream.c: the streaming reader (engine/stream/).
**
** - Splits: a reply fed in pieces of 1 byte, of 2 bytes and of random
**   sizes (1..17) gives, after each piece, the partial a reader fed the
**   same prefix in one piece gives (so the pieces never matter).
** - Monotone: every part a partial lists complete has the same value in
**   every later partial and in coax_extract's value of the whole reply.
** - Exact partials for the rules, and their twins: for each rule, a text
**   where the part must not be listed yet.
** - Limits, garbage, deep nesting, a failing allocator.
*/
#include "base/core.h"
#include "stream/stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "compile.h"
#include "counting.h"
#include "test.h"

/* The partial as the CLI writes it (malloc'd). */
static char *partial_text(stream_reader *r, coax_arena *a, stream_partial *p)
{
    if (stream_partial_get(r, a, p, NULL)) return NULL;
    coax_buf b;
    coax_buf_init(&b, NULL);
    stream_partial_write(p, &b);
    size_t n;
    return coax_buf_take(&b, &n);
}

/* The partial of text[0..n) fed in one piece. */
static char *prefix_partial(const coax_schema *s, const char *text, size_t n)
{
    stream_options o = {s, NULL, NULL, 0, NULL};
    stream_reader *r;
    if (stream_new(NULL, &o, &r, NULL)) return NULL;
    coax_arena *a = coax_arena_new(NULL);
    stream_partial p;
    char *out = stream_feed(r, text, n, NULL) ? NULL : partial_text(r, a, &p);
    coax_arena_free(a);
    stream_free(r);
    return out;
}

static char *write_value(const coax_value *v)
{
    char *s;
    size_t n;
    return v && coax_write(v, 0, NULL, &s, &n) == COAX_OK ? s : NULL;
}

/* A listed part and its value then. */
typedef struct seen {
    char *ptr, *value;
} seen;

/* Feeds 'text' in pieces cut by 'next' (the size of the next piece), checks
** every partial against the prefix one and the monotone rule; returns the
** last partial's text. */
static char *run(const coax_schema *s, const char *text, size_t (*next)(unsigned *), unsigned seed)
{
    size_t len = strlen(text);
    stream_options o = {s, NULL, NULL, 0, NULL};
    stream_reader *r;
    CHECK(stream_new(NULL, &o, &r, NULL) == COAX_OK);
    seen listed[256];
    size_t nlisted = 0;
    char *last = NULL;
    bool stopped = false;
    for (size_t at = 0; at < len;) {
        size_t n = next(&seed);
        if (n > len - at) n = len - at;
        CHECK(stream_feed(r, text + at, n, NULL) == COAX_OK);
        at += n;
        coax_arena *a = coax_arena_new(NULL);
        stream_partial p;
        char *got = partial_text(r, a, &p);
        char *want = prefix_partial(s, text, at);
        if (!got || !want || strcmp(got, want)) {
            printf("  at %zu of %s\n    pieces: %s\n    prefix: %s\n", at, text, got ? got : "(null)",
                   want ? want : "(null)");
            test_failed_now = 1;
        }
        /* every part listed before still has its value here */
        for (size_t i = 0; i < nlisted; i++) {
            const coax_value *v;
            char *now = p.value && coax_pointer_get(p.value, listed[i].ptr, strlen(listed[i].ptr), &v) == COAX_OK
                            ? write_value(v) : NULL;
            if (!now || strcmp(now, listed[i].value)) {
                printf("  %s was %s, now %s (at %zu of %s)\n", listed[i].ptr, listed[i].value, now ? now : "(none)",
                       at, text);
                test_failed_now = 1;
            }
            free(now);
        }
        for (size_t i = 0; i < p.ncomplete && nlisted < 256; i++) {
            bool known = false;
            for (size_t k = 0; k < nlisted && !known; k++) known = !strcmp(listed[k].ptr, p.complete[i]);
            const coax_value *v;
            if (known || coax_pointer_get(p.value, p.complete[i], strlen(p.complete[i]), &v)) continue;
            listed[nlisted].ptr = strdup(p.complete[i]);
            listed[nlisted++].value = write_value(v);
        }
        stopped = p.stopped;
        free(want);
        free(last);
        last = got;
        coax_arena_free(a);
    }
    /* ...and in the final value */
    coax_arena *a = coax_arena_new(NULL);
    coax_schema *any = s ? NULL : compile("{}");
    coax_extract_result x;
    if (!stopped && coax_extract(a, s ? s : any, text, len, NULL, NULL, &x, NULL) == COAX_OK) {
        for (size_t i = 0; i < nlisted; i++) {
            const coax_value *v;
            char *fin = coax_pointer_get(x.value, listed[i].ptr, strlen(listed[i].ptr), &v) == COAX_OK
                            ? write_value(v) : NULL;
            if (!fin || strcmp(fin, listed[i].value)) {
                printf("  %s listed as %s, final %s (%s)\n", listed[i].ptr, listed[i].value, fin ? fin : "(none)",
                       text);
                test_failed_now = 1;
            }
            free(fin);
        }
    }
    for (size_t i = 0; i < nlisted; i++) {
        free(listed[i].ptr);
        free(listed[i].value);
    }
    coax_schema_free(any);
    coax_arena_free(a);
    stream_free(r);
    return last;
}

static size_t one(unsigned *s) { (void)s; return 1; }
static size_t two(unsigned *s) { (void)s; return 2; }
static size_t random_size(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return 1 + (*s >> 16) % 17;
}

static const char *const person =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\"},"
    "\"color\":{\"enum\":[\"red\",\"green\"]},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
    "\"required\":[\"name\",\"age\"],\"additionalProperties\":false}";
static const char *const s1_nested =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"info\":{\"type\":\"object\","
    "\"properties\":{\"age\":{\"type\":\"integer\"}}}}}";
static const char *const envelope_schema =
    "{\"type\":\"object\",\"properties\":{\"result\":{\"type\":\"number\"},\"name\":{\"type\":\"string\"}},"
    "\"additionalProperties\":false}";
static const char *const list_schema =
    "{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/item\"}}},"
    "\"$defs\":{\"item\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":"
    "\"string\"}},\"required\":[\"id\"]}}}";
static const char *const any_of =
    "{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"a\"]},"
    "{\"type\":\"array\"}]}";

/* Parts whose subschema judges nothing ({}, annotations): shown as parsed,
** without a skeleton; "format" judges (it is not an annotation here). */
static const char *const trivial_parts =
    "{\"type\":\"object\",\"properties\":{\"meta\":{\"description\":\"anything\"},\"when\":{\"format\":\"date\"},"
    "\"list\":{\"type\":\"array\",\"items\":{}},\"n\":{\"title\":\"t\",\"type\":\"integer\"}}}";
/* "propertyNames" judges a member with an empty subschema: its error is the member's. */
static const char *const property_names =
    "{\"type\":\"object\",\"propertyNames\":{\"maxLength\":3},\"properties\":{\"abcd\":{},\"ab\":{}}}";

typedef struct reply {
    const char *schema; /* NULL: none */
    const char *text;
    const char *last;   /* the partial of the whole text */
} reply;

static const reply corpus[] = {
    {NULL, "```json\n{\"a\": [1, 2.5e3, -0, true, null], \"b\": {\"c\": \"x\\u00e9\\ud83d\\ude00y\"}}\n```",
     "{\"partial\": {\"a\":[1,2.5e3,-0,true,null],\"b\":{\"c\":\"xé😀y\"}}, \"complete\": [\"\"], \"in_progress\": null}"},
    {NULL, "<think>I think {\"x\": 1} is wrong</think>\nHere it is: {\"k\": \"v\", \"n\": [ [], {} ]} hope it helps",
     "{\"partial\": {\"k\":\"v\",\"n\":[[],{}]}, \"complete\": [\"\"], \"in_progress\": null}"},
    {NULL, "Sure! Here it is:\n[\"a\", \"b\"]",
     "{\"partial\": [\"a\",\"b\"], \"complete\": [\"\"], \"in_progress\": null}"},
    {NULL, "{\"s\": \"line\\nbreak \\\"q\\\" \\/ \\t\", \"e\": \"\", \"k~/\": {\"z\": false}}",
     "{\"partial\": {\"s\":\"line\\nbreak \\\"q\\\" / \\t\",\"e\":\"\",\"k~/\":{\"z\":false}}, \"complete\": [\"\"], "
     "\"in_progress\": null}"},
    {NULL, "<reasoning>\n```json\n{\"no\": 1}\n```\n</reasoning>\n```\n[{\"id\": 1}, {\"id\": 2}]\n```",
     "{\"partial\": [{\"id\":1},{\"id\":2}], \"complete\": [\"\"], \"in_progress\": null}"},
    {NULL, "{\"name\": \"Zoë 日本 😀\", \"n\": [10, 20",
     "{\"partial\": {\"name\":\"Zoë 日本 😀\",\"n\":[10]}, \"complete\": [\"/name\", \"/n/0\"], \"in_progress\": \"/n/1\"}"},
    {person, "```json\n{\"name\": \"Jo\", \"age\": \"40\", \"color\": \"RED\", \"tags\": [\"a\", 3]}\n```",
     "{\"partial\": {\"name\":\"Jo\",\"age\":40,\"color\":\"red\",\"tags\":[\"a\",\"3\"]}, \"complete\": [\"\"], "
     "\"in_progress\": null}"},
    {person, "{\"name\": \"Jo\", \"age\": \"forty\", \"color\": \"red\", \"tags\": []}",
     "{\"partial\": {\"name\":\"Jo\",\"age\":\"forty\",\"color\":\"red\",\"tags\":[]}, \"complete\": [\"/name\", "
     "\"/age\", \"/color\", \"/tags\"], \"in_progress\": null, \"errors\": [{\"instanceLocation\": \"/age\", "
     "\"keywordLocation\": \"/properties/age/type\", \"error\": \"expected integer, got string \\\"forty\\\"\"}], "
     "\"doomed\": true}"},
    {person, "{\"result\": {\"name\": \"Jo\", \"age\": 40}}",
     "{\"partial\": {\"name\":\"Jo\",\"age\":40}, \"complete\": [\"\"], \"in_progress\": null}"},
    {person, "{\"name\": \"Jo\", \"Age\": 40, \"x\": 1}",
     "{\"partial\": {\"name\":\"Jo\",\"age\":40}, \"complete\": [\"\"], \"in_progress\": null}"},
    {any_of, "{\"a\": \"5\", \"b\": [1, 2]}",
     "{\"partial\": {\"a\":5,\"b\":[1,2]}, \"complete\": [\"\"], \"in_progress\": null}"},
    {list_schema, "{\"items\": [{\"id\": \"1\", \"name\": \"a\"}, {\"id\": 2, \"name\": \"b\"}, {\"name\": \"c\"}]}",
     "{\"partial\": {\"items\":[{\"id\":1,\"name\":\"a\"},{\"id\":2,\"name\":\"b\"},{\"name\":\"c\"}]}, "
     "\"complete\": [\"/items\"], \"in_progress\": null, \"errors\": "
     "[{\"instanceLocation\": \"/items/2\", \"keywordLocation\": \"/properties/items/items/$ref/required\", "
     "\"error\": \"missing required property \\\"id\\\"\"}], \"doomed\": true}"},
    /* long strings (read 8 bytes at a time) with UTF-8 and escapes cut anywhere, long numbers */
    {trivial_parts,
     "{\"meta\": {\"x\": [1, \"two\"], \"y\": null}, \"list\": [1, {\"k\": \"v\"}, \"a long string with Zo\xC3\xAB "
     "\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80 and \\\"escapes\\\" \\u00e9 inside\", 12345678901234567890], \"when\": "
     "\"not a date\", \"n\": \"7\"}",
     "{\"partial\": {\"meta\":{\"x\":[1,\"two\"],\"y\":null},\"list\":[1,{\"k\":\"v\"},\"a long string with "
     "Zo\xC3\xAB \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80 and \\\"escapes\\\" \xC3\xA9 inside\",12345678901234567890],"
     "\"when\":\"not a date\",\"n\":7}, \"complete\": [\"\"], \"in_progress\": null}"},
    /* an overlong UTF-8 sequence after a run of 8 plain bytes: not JSON, stopped */
    {trivial_parts, "{\"list\": [\"abcdefgh\xC0\xAFxyz\"], \"n\": 1}",
     "{\"partial\": {\"list\":[\"abcdefgh\"]}, \"complete\": [], \"in_progress\": \"/list/0\", \"stopped\": true}"},
    /* a UTF-8 surrogate after a listed part: stopped */
    {NULL, "{\"s\": \"abcdefghijklmnop\xE6\x97\xA5qrstuvwxyz0123456789\", \"t\": \"\xED\xA0\x80\"}",
     "{\"partial\": {\"s\":\"abcdefghijklmnop\xE6\x97\xA5qrstuvwxyz0123456789\",\"t\":\"\"}, \"complete\": [\"/s\"], "
     "\"in_progress\": \"/t\", \"stopped\": true}"},
    {property_names, "{\"ab\": 1, \"abcd\": 2}",
     "{\"partial\": {\"ab\":1,\"abcd\":2}, \"complete\": [\"/ab\", \"/abcd\"], \"in_progress\": null, \"errors\": "
     "[{\"instanceLocation\": \"/abcd\", \"keywordLocation\": \"/propertyNames/maxLength\", \"error\": \"expected at "
     "most 3 characters, got 4\"}], \"doomed\": true}"},
    {property_names, "{\"ab\": 1, \"abcd\": 2, \"ab\": 3}",
     "{\"partial\": {\"ab\":1,\"abcd\":2}, \"complete\": [\"/ab\", \"/abcd\"], \"in_progress\": \"/ab\", \"errors\": "
     "[{\"instanceLocation\": \"/abcd\", \"keywordLocation\": \"/propertyNames/maxLength\", \"error\": \"expected at "
     "most 3 characters, got 4\"}], \"doomed\": true, \"stopped\": true}"},
};

static void test_splits_and_monotone(void)
{
    for (size_t i = 0; i < sizeof corpus / sizeof *corpus; i++) {
        coax_schema *s = corpus[i].schema ? compile(corpus[i].schema) : NULL;
        CHECK(!corpus[i].schema || s);
        size_t (*const cuts[])(unsigned *) = {one, two, random_size, random_size};
        for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
            char *last = run(s, corpus[i].text, cuts[k], (unsigned)(k * 7919 + i));
            if (k == 0) CHECK_STR(last, corpus[i].last);
            free(last);
        }
        coax_schema_free(s);
    }
}

/* Exact partials of prefixes: each rule, and its twin where the part is
** not complete yet. */
typedef struct exact {
    const char *schema, *text, *want;
} exact;

static const exact exacts[] = {
    /* a number needs a delimiter; a space is one */
    {NULL, "{\"a\": 12", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"/a\"}"},
    {NULL, "{\"a\": 12 ", "{\"partial\": {\"a\":12}, \"complete\": [\"/a\"], \"in_progress\": \"\"}"},
    /* in an object "12,111" is one number to the lenient parser */
    {NULL, "{\"a\": 12,", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"/a\"}"},
    {NULL, "{\"a\": 12,\"", "{\"partial\": {\"a\":12}, \"complete\": [\"/a\"], \"in_progress\": \"/\"}"},
    {NULL, "[12,", "{\"partial\": [12], \"complete\": [\"/0\"], \"in_progress\": \"\"}"},
    /* a string waits for what follows it ("a" + "b") but shows as it goes */
    {NULL, "{\"a\": \"x\" ", "{\"partial\": {\"a\":\"x\"}, \"complete\": [], \"in_progress\": \"/a\"}"},
    {NULL, "{\"a\": \"x\",", "{\"partial\": {\"a\":\"x\"}, \"complete\": [\"/a\"], \"in_progress\": \"\"}"},
    {NULL, "{\"a\": \"caf\xC3", "{\"partial\": {\"a\":\"caf\"}, \"complete\": [], \"in_progress\": \"/a\"}"},
    {NULL, "{\"a\": \"x\\u00", "{\"partial\": {\"a\":\"x\"}, \"complete\": [], \"in_progress\": \"/a\"}"},
    {NULL, "{\"a\": \"\\ud83d", "{\"partial\": {\"a\":\"\"}, \"complete\": [], \"in_progress\": \"/a\"}"},
    {NULL, "{\"a\": tru", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"/a\"}"},
    {NULL, "{\"a\": true}", "{\"partial\": {\"a\":true}, \"complete\": [\"\"], \"in_progress\": null}"},
    /* a key being written */
    {NULL, "{\"a\": 1, \"b/c", "{\"partial\": {\"a\":1}, \"complete\": [\"/a\"], \"in_progress\": \"/b~1c\"}"},
    /* before the JSON, inside reasoning, a fence's language, a prose bracket */
    {NULL, "<think>{\"a\": 1, ", "{\"partial\": null, \"complete\": [], \"in_progress\": null}"},
    {NULL, "```jso", "{\"partial\": null, \"complete\": [], \"in_progress\": null}"},
    {NULL, "See [1] and [note", "{\"partial\": null, \"complete\": [], \"in_progress\": null}"},
    {NULL, "```python\nx = [1, 2]\n```\n", "{\"partial\": null, \"complete\": [], \"in_progress\": null}"},
    /* not JSON, before or after a part was listed: stopped, never dropped (the
    ** lenient parser may read it all as one value: a search resumed inside it
    ** would take an inner container for the whole) */
    {NULL, "use {name} here {\"a\": [1", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\", \"stopped\": true}"},
    {NULL, "{\"a\": 1,b: 2}", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"/a\", \"stopped\": true}"},
    {s1_nested, "{'name': 'Jo', \"info\": {\"age\": 5}}",
     "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\", \"stopped\": true}"},
    {NULL, "{name: \"Jo\", \"info\": {\"age\": 5}}",
     "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\", \"stopped\": true}"},
    {NULL, "{\"a\": .5, \"b\": {\"c\": 1}}",
     "{\"partial\": {}, \"complete\": [], \"in_progress\": \"/a\", \"stopped\": true}"},
    {NULL, "{\"a\": /* c */ 1, \"b\": {\"c\": 1}}",
     "{\"partial\": {}, \"complete\": [], \"in_progress\": \"/a\", \"stopped\": true}"},
    {NULL, "{\"a\": \"\\q\", \"b\": {\"c\": 1}}",
     "{\"partial\": {\"a\":\"\"}, \"complete\": [], \"in_progress\": \"/a\", \"stopped\": true}"},
    {NULL, "[{\"x\": 1}, {\"y\" 2}, [3]]",
     "{\"partial\": [{\"x\":1},{}], \"complete\": [\"/0\"], \"in_progress\": \"/1/y\", \"stopped\": true}"},
    /* twins: the same in strict JSON, after prose without brackets */
    {s1_nested, "{\"name\": \"Jo\", \"info\": {\"age\": 5}}",
     "{\"partial\": {\"name\":\"Jo\",\"info\":{\"age\":5}}, \"complete\": [\"\"], \"in_progress\": null}"},
    {NULL, "Here you go: {\"a\": 0.5, \"b\": {\"c\": 1}}",
     "{\"partial\": {\"a\":0.5,\"b\":{\"c\":1}}, \"complete\": [\"\"], \"in_progress\": null}"},
    {NULL, "{\"a\": 1 , b: 2}",
     "{\"partial\": {\"a\":1}, \"complete\": [\"/a\"], \"in_progress\": \"\", \"stopped\": true}"},
    {NULL, "{\"a\": 1, \"a\": 2}",
     "{\"partial\": {\"a\":1}, \"complete\": [\"/a\"], \"in_progress\": \"/a\", \"stopped\": true}"},
    /* a duplicate key stops the reader as its key closes (the last value
    ** wins, later), before or after a part was listed, in a key table too;
    ** never a restart inside the candidate */
    {s1_nested, "{\"name\": \"Jo\", \"name\"",
     "{\"partial\": {\"name\":\"Jo\"}, \"complete\": [\"/name\"], \"in_progress\": \"/name\", \"stopped\": true}"},
    {s1_nested, "{\"x\": 1, \"x\": 2, \"info\": {\"age\": 5}}",
     "{\"partial\": {}, \"complete\": [], \"in_progress\": \"/x\", \"stopped\": true}"},
    {NULL, "{\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,\"k3\":{\"a\":1}}",
     "{\"partial\": {\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9}, "
     "\"complete\": [\"/k1\", \"/k2\", \"/k3\", \"/k4\", \"/k5\", \"/k6\", \"/k7\", \"/k8\", \"/k9\"], "
     "\"in_progress\": \"/k3\", \"stopped\": true}"},
    /* twin: keys that differ */
    {s1_nested, "{\"name\": \"Jo\", \"names\"",
     "{\"partial\": {\"name\":\"Jo\"}, \"complete\": [\"/name\"], \"in_progress\": \"/names\"}"},
    {NULL, "```json\n{'a': 1}", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\", \"stopped\": true}"},
    {NULL, "{\"a\": [1, ]}", "{\"partial\": {\"a\":[1]}, \"complete\": [\"/a/0\"], \"in_progress\": \"/a\", \"stopped\": true}"},
    {NULL, "{\"a\": 1} {\"b\": 2}",
     "{\"partial\": {\"a\":1}, \"complete\": [\"\"], \"in_progress\": null, \"stopped\": true}"},
    /* a reasoning block's closing tag none opened after the value: all
    ** before it was reasoning (the extraction refuses the first, takes
    ** the second); twins: an answer tag's closing tag, another tag */
    {NULL, "Hmm {\"a\": 1}</think>\nNo answer.",
     "{\"partial\": {\"a\":1}, \"complete\": [\"\"], \"in_progress\": null, \"stopped\": true}"},
    {NULL, "{\"a\": 1}\n</reasoning>{\"a\": 2}",
     "{\"partial\": {\"a\":1}, \"complete\": [\"\"], \"in_progress\": null, \"stopped\": true}"},
    {NULL, "<answer>{\"a\": 1}</answer>",
     "{\"partial\": {\"a\":1}, \"complete\": [\"\"], \"in_progress\": null}"},
    {NULL, "{\"a\": 1} </b> <think",
     "{\"partial\": {\"a\":1}, \"complete\": [\"\"], \"in_progress\": null}"},
    /* the harmony format's analysis channel is reasoning up to its <|end|>:
    ** no part from inside it, the final channel's value after it; twin:
    ** another channel's JSON is followed */
    {NULL, "<|channel|>analysis<|message|>{\"a\": 1, \"b\": 2}",
     "{\"partial\": null, \"complete\": [], \"in_progress\": null}"},
    {NULL, "<|channel|>analysis<|message|>{\"a\": 1}<|end|><|start|>assistant<|channel|>final<|message|>{\"a\": 2}",
     "{\"partial\": {\"a\":2}, \"complete\": [\"\"], \"in_progress\": null}"},
    {NULL, "<|channel|>final<|message|>{\"a\": 3}",
     "{\"partial\": {\"a\":3}, \"complete\": [\"\"], \"in_progress\": null}"},
    /* Kimi's reasoning markers as the scan reads them: no part from inside
    ** an opening one at the start, the value after the closing one; a
    ** closing one after a value stops the reader; twin: an opening one
    ** after prose is text */
    {NULL, "\xE2\x97\x81think\xE2\x96\xB7{\"a\": 1, \"b\": 2}",
     "{\"partial\": null, \"complete\": [], \"in_progress\": null}"},
    {NULL, " \xE2\x97\x81think\xE2\x96\xB7{\"a\": 1}\xE2\x97\x81/think\xE2\x96\xB7{\"a\": 2}",
     "{\"partial\": {\"a\":2}, \"complete\": [\"\"], \"in_progress\": null}"},
    {NULL, "{\"a\": 1}\xE2\x97\x81/think\xE2\x96\xB7No answer.",
     "{\"partial\": {\"a\":1}, \"complete\": [\"\"], \"in_progress\": null, \"stopped\": true}"},
    {NULL, "Note \xE2\x97\x81think\xE2\x96\xB7 {\"a\": 3}",
     "{\"partial\": {\"a\":3}, \"complete\": [\"\"], \"in_progress\": null}"},
    /* a candidate the extraction refuses for the words before it (hunt13's
    ** "For example,", hunt17's doubt: "Probably", "I think:" above a
    ** fence) stops the reader before anything is listed; twin: a label
    ** that introduces the answer */
    {NULL, "Probably {\"a\": 1}", "{\"partial\": null, \"complete\": [], \"in_progress\": null, \"stopped\": true}"},
    {NULL, "For example, {\"a\": 1}",
     "{\"partial\": null, \"complete\": [], \"in_progress\": null, \"stopped\": true}"},
    {NULL, "I think:\n```json\n{\"a\": 1}\n```",
     "{\"partial\": null, \"complete\": [], \"in_progress\": null, \"stopped\": true}"},
    {NULL, "Here is my answer:\n```json\n{\"a\": 1}\n```",
     "{\"partial\": {\"a\":1}, \"complete\": [\"\"], \"in_progress\": null}"},
    /* hunt25: French typography's no-break space before the label's colon
    ** is read as a space; twin: an answer's label so written */
    {NULL, "Exemple\xC2\xA0: {\"a\": 1}",
     "{\"partial\": null, \"complete\": [], \"in_progress\": null, \"stopped\": true}"},
    {NULL, "R\xC3\xA9ponse\xC2\xA0: {\"a\": 1}",
     "{\"partial\": {\"a\":1}, \"complete\": [\"\"], \"in_progress\": null}"},
    /* atomic strings are shown once complete only: below */
    /* a schema: declared keys under plain ancestors complete as they close */
    {person, "{\"name\": \"Jo\", \"age\": \"40\", ",
     "{\"partial\": {\"name\":\"Jo\",\"age\":40}, \"complete\": [\"/name\", \"/age\"], \"in_progress\": \"\"}"},
    /* twin: an undeclared key (may be renamed, dropped) */
    {person, "{\"Name\": \"Jo\", \"age\": 40, ", "{\"partial\": {\"age\":40}, \"complete\": [\"/age\"], \"in_progress\": \"\"}"},
    /* twin: an envelope's members */
    {person, "{\"result\": {\"name\": \"Jo\", \"age\": 40, ",
     "{\"partial\": {\"result\":{}}, \"complete\": [], \"in_progress\": \"/result\"}"},
    /* a container under a root key that may name an envelope: the root may
    ** be unwrapped to it, so it is neither complete nor doomed before the root */
    {envelope_schema, "{\"result\": {\"name\": \"Jo\"}, ",
     "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\"}"},
    {envelope_schema, "{\"result\": {\"name\": \"Jo\"}}",
     "{\"partial\": {\"name\":\"Jo\"}, \"complete\": [\"\"], \"in_progress\": null}"},
    {envelope_schema, "{\"x\": 1, \"result\": [{\"name\": \"Jo\"}], ",
     "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\"}"},
    /* twin: a scalar under it (an object root never unwraps to a scalar) */
    {envelope_schema, "{\"name\": \"Jo\", \"result\": 5, ",
     "{\"partial\": {\"name\":\"Jo\",\"result\":5}, \"complete\": [\"/name\", \"/result\"], \"in_progress\": \"\"}"},
    /* a root schema whose type does not pin the container: it may unwrap to a scalar */
    {"{\"properties\":{\"result\":{\"type\":\"number\"}},\"additionalProperties\":false}",
     "{\"a\": {}, \"result\": \"x\", ", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\"}"},
    {"{\"properties\":{\"result\":{\"type\":\"number\"}},\"additionalProperties\":false}",
     "{\"a\": {}, \"result\": \"x\", \"b\": 1}", "{\"partial\": \"x\", \"complete\": [\"\"], \"in_progress\": null}"},
    {"{\"type\":[\"object\",\"string\"],\"properties\":{\"result\":{\"type\":\"number\"}}}",
     "{\"result\": 5, ", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\"}"},
    /* twin: the type pins it */
    {"{\"type\":[\"object\"],\"properties\":{\"result\":{\"type\":\"number\"}},\"additionalProperties\":false}",
     "{\"result\": 5, ", "{\"partial\": {\"result\":5}, \"complete\": [\"/result\"], \"in_progress\": \"\"}"},
    /* an item in progress after hidden siblings is not shown (it would take
    ** the index of one of them); the pointer being written stays */
    {"{\"properties\":{\"A\":{}}}", "{\"name\": [\"x\",{ \"n",
     "{\"partial\": {\"name\":[]}, \"complete\": [], \"in_progress\": \"/name/1/n\"}"},
    {"{\"properties\":{\"A\":{}}}", "{\"name\": [\"x\", \"ab",
     "{\"partial\": {\"name\":[]}, \"complete\": [], \"in_progress\": \"/name/1\"}"},
    /* twins: the first item, or after complete siblings, shows at its index */
    {"{\"properties\":{\"A\":{}}}", "{\"name\": [{ \"n",
     "{\"partial\": {\"name\":[{}]}, \"complete\": [], \"in_progress\": \"/name/0/n\"}"},
    {NULL, "{\"name\": [\"x\",{ \"n",
     "{\"partial\": {\"name\":[\"x\",{}]}, \"complete\": [\"/name/0\"], \"in_progress\": \"/name/1/n\"}"},
    /* twin: under anyOf nothing is final before the root */
    {any_of, "{\"a\": 5, \"b\": 1, ", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\"}"},
    /* twin: patternProperties, a reference beside other keywords, enum on the object */
    {"{\"type\":\"object\",\"properties\":{\"a\":{}},\"patternProperties\":{\"^a\":{\"type\":\"string\"}}}",
     "{\"a\": 5, ", "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\"}"},
    {"{\"$defs\":{\"o\":{\"type\":\"object\"}},\"$ref\":\"#/$defs/o\",\"properties\":{\"a\":{}}}", "{\"a\": 5, ",
     "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\"}"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{}},\"enum\":[{\"a\":5}]}", "{\"a\": 5, ",
     "{\"partial\": {}, \"complete\": [], \"in_progress\": \"\"}"},
    /* a local reference alone is followed */
    {"{\"$defs\":{\"o\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}},\"$ref\":\"#/$defs/o\"}",
     "{\"a\": \"5\", ", "{\"partial\": {\"a\":5}, \"complete\": [\"/a\"], \"in_progress\": \"\"}"},
    /* parts whose subschema judges nothing complete as they close, as parsed */
    {trivial_parts, "{\"meta\": {\"x\": [1, \"two\"], \"y\": null}, \"list\": [1, {\"k\": \"v\"}, ",
     "{\"partial\": {\"meta\":{\"x\":[1,\"two\"],\"y\":null},\"list\":[1,{\"k\":\"v\"}]}, \"complete\": [\"/meta\", "
     "\"/list/0\", \"/list/1\"], \"in_progress\": \"/list\"}"},
    /* a wrong type once closed: doomed */
    {person, "{\"age\": [], ",
     "{\"partial\": {\"age\":[]}, \"complete\": [\"/age\"], \"in_progress\": \"\", \"errors\": [{\"instanceLocation\": "
     "\"/age\", \"keywordLocation\": \"/properties/age/type\", \"error\": \"expected integer, got array of 0 items\"}], "
     "\"doomed\": true}"},
};

static void test_exact(void)
{
    for (size_t i = 0; i < sizeof exacts / sizeof *exacts; i++) {
        coax_schema *s = exacts[i].schema ? compile(exacts[i].schema) : NULL;
        CHECK(!exacts[i].schema || s);
        char *got = prefix_partial(s, exacts[i].text, strlen(exacts[i].text));
        if (!got || strcmp(got, exacts[i].want)) {
            printf("  %s\n    got  %s\n    want %s\n", exacts[i].text, got ? got : "(null)", exacts[i].want);
            test_failed_now = 1;
        }
        free(got);
        coax_schema_free(s);
    }
}

static void test_atomic(void)
{
    const char *atomic[] = {"/price"};
    stream_options o = {NULL, NULL, atomic, 1, NULL};
    stream_reader *r;
    CHECK(stream_new(NULL, &o, &r, NULL) == COAX_OK);
    const char *t = "{\"name\": \"Jo\", \"price\": \"12.5";
    CHECK(stream_feed(r, t, strlen(t), NULL) == COAX_OK);
    coax_arena *a = coax_arena_new(NULL);
    stream_partial p;
    char *got = partial_text(r, a, &p);
    CHECK_STR(got, "{\"partial\": {\"name\":\"Jo\"}, \"complete\": [\"/name\"], \"in_progress\": \"/price\"}");
    free(got);
    CHECK(stream_feed(r, "0\"}", 3, NULL) == COAX_OK);
    got = partial_text(r, a, &p);
    CHECK_STR(got, "{\"partial\": {\"name\":\"Jo\",\"price\":\"12.50\"}, \"complete\": [\"\"], \"in_progress\": null}");
    CHECK(p.ended);
    free(got);
    coax_arena_free(a);
    stream_free(r);
}

static void test_changed(void)
{
    stream_reader *r;
    CHECK(stream_new(NULL, NULL, &r, NULL) == COAX_OK);
    CHECK(!stream_changed(r));
    CHECK(stream_feed(r, "Here: ", 6, NULL) == COAX_OK);
    CHECK(!stream_changed(r));
    CHECK(stream_feed(r, "{\"a\": 1", 7, NULL) == COAX_OK);
    CHECK(stream_changed(r));
    coax_arena *a = coax_arena_new(NULL);
    stream_partial p;
    CHECK(stream_partial_get(r, a, &p, NULL) == COAX_OK);
    CHECK(!stream_changed(r));
    CHECK(stream_feed(r, "23", 2, NULL) == COAX_OK); /* digits of a number shown nowhere */
    CHECK(!stream_changed(r));
    CHECK(stream_feed(r, "}", 1, NULL) == COAX_OK);
    CHECK(stream_changed(r));
    CHECK_INT(stream_bytes(r), 16);
    coax_arena_free(a);
    stream_free(r);
}

/* Two readers alive at once, freed in either order: each reads its own
** reply; one is lent an arena, which the next round's reader gets again
** (reset, its blocks kept) and reads its reply in as well. */
static void test_two_readers(void)
{
    coax_schema *s = compile(person);
    CHECK(s != NULL);
    const char *ta = "{\"name\": \"Jo\", \"age\": \"40\"}", *tb = "[{\"x\": \"abcdefghijklmnopq\"}, 2]";
    coax_arena *lent = coax_arena_new(NULL);
    for (int order = 0; order < 3; order++) {
        stream_options oa = {s, NULL, NULL, 0, lent};
        stream_reader *a, *b;
        CHECK(stream_new(NULL, &oa, &a, NULL) == COAX_OK);
        CHECK(stream_new(NULL, NULL, &b, NULL) == COAX_OK);
        for (size_t i = 0; i < strlen(tb); i++) {
            if (i < strlen(ta)) CHECK(stream_feed(a, ta + i, 1, NULL) == COAX_OK);
            CHECK(stream_feed(b, tb + i, 1, NULL) == COAX_OK);
        }
        coax_arena *ar = coax_arena_new(NULL);
        stream_partial p;
        char *got = partial_text(a, ar, &p);
        CHECK_STR(got, "{\"partial\": {\"name\":\"Jo\",\"age\":40}, \"complete\": [\"\"], \"in_progress\": null}");
        free(got);
        got = partial_text(b, ar, &p);
        CHECK_STR(got, "{\"partial\": [{\"x\":\"abcdefghijklmnopq\"},2], \"complete\": [\"\"], \"in_progress\": null}");
        free(got);
        coax_arena_free(ar);
        stream_free(order % 2 ? b : a);
        stream_free(order % 2 ? a : b);
        if (order == 0) CHECK(coax_arena_size(lent) > 0); /* kept for the next reader */
    }
    coax_arena_free(lent);
    coax_schema_free(s);
}

static void test_limits(void)
{
    /* 1,000,000 '[': the depth limit, in pieces, and the reader stays failed */
    size_t n = 1000000;
    char *deep = malloc(n);
    memset(deep, '[', n);
    stream_reader *r;
    coax_error err;
    CHECK(stream_new(NULL, NULL, &r, NULL) == COAX_OK);
    coax_code rc = COAX_OK;
    for (size_t at = 0; at < n && !rc; at += 1000) rc = stream_feed(r, deep + at, 1000, &err);
    CHECK_INT(rc, COAX_EDEPTH);
    CHECK_STR(err.msg, "the streamed reply nests deeper than 512 levels");
    CHECK_INT(stream_feed(r, "]", 1, NULL), COAX_EDEPTH);
    coax_arena *a = coax_arena_new(NULL);
    stream_partial p;
    CHECK_INT(stream_partial_get(r, a, &p, NULL), COAX_EDEPTH);
    stream_free(r);
    free(deep);
    /* input and string sizes */
    coax_limits lim = {4, 20, 5};
    stream_options o = {NULL, &lim, NULL, 0, NULL};
    CHECK(stream_new(NULL, &o, &r, NULL) == COAX_OK);
    CHECK_INT(stream_feed(r, "[[[[", 4, NULL), COAX_OK);
    CHECK_INT(stream_feed(r, "[", 1, &err), COAX_EDEPTH);
    stream_free(r);
    CHECK(stream_new(NULL, &o, &r, NULL) == COAX_OK);
    CHECK_INT(stream_feed(r, "{\"a\": \"12345", 12, NULL), COAX_OK);
    CHECK_INT(stream_feed(r, "6", 1, &err), COAX_ESTRING);
    CHECK_STR(err.msg, "a string of the streamed reply is longer than 5 bytes");
    stream_free(r);
    CHECK(stream_new(NULL, &o, &r, NULL) == COAX_OK);
    CHECK_INT(stream_feed(r, "0123456789", 10, NULL), COAX_OK);
    CHECK_INT(stream_feed(r, "0123456789x", 11, &err), COAX_ESIZE);
    CHECK_STR(err.msg, "the streamed reply is longer than 20 bytes");
    stream_free(r);
    coax_arena_free(a);
}

/* Garbage: any bytes, any pieces, never a crash, and no partial before
** JSON starts. */
static void test_garbage(void)
{
    unsigned seed = 42;
    char buf[512];
    const char alphabet[] = "{}[]\":,. \n\\u0123abcdefnulltrue-+eE`~<>/think\xC3\xA9\xF0\x9F";
    for (int round = 0; round < 300; round++) {
        size_t len = 0;
        while (len < sizeof buf) {
            seed = seed * 1103515245u + 12345u;
            buf[len++] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        char *whole = prefix_partial(NULL, buf, len);
        CHECK(whole != NULL);
        stream_reader *r;
        CHECK(stream_new(NULL, NULL, &r, NULL) == COAX_OK);
        for (size_t at = 0; at < len;) {
            size_t n = random_size(&seed);
            if (n > len - at) n = len - at;
            CHECK(stream_feed(r, buf + at, n, NULL) == COAX_OK);
            at += n;
        }
        coax_arena *a = coax_arena_new(NULL);
        stream_partial p;
        char *got = partial_text(r, a, &p);
        CHECK(got && whole && !strcmp(got, whole));
        free(got);
        free(whole);
        coax_arena_free(a);
        stream_free(r);
    }
}

/* Every allocation may fail: the reader fails with COAX_ENOMEM and leaks
** nothing; custom allocators carry all of its memory. */
static void test_allocator(void)
{
    coax_schema *s = compile(person);
    const char *t = "```json\n{\"name\": \"Jo\", \"age\": \"40\", \"tags\": [\"a\", \"b\"]}\n```";
    bool done = false;
    for (long fail = 1; fail < 400 && !done; fail++) {
        counting c = {0, 0, fail};
        coax_allocator al = COUNTING_ALLOCATOR(&c);
        stream_options o = {s, NULL, NULL, 0, NULL};
        stream_reader *r = NULL;
        coax_arena *a = NULL;
        coax_code rc = stream_new(&al, &o, &r, NULL);
        for (size_t at = 0; !rc && at < strlen(t); at += 5) {
            size_t n = strlen(t) - at < 5 ? strlen(t) - at : 5;
            rc = stream_feed(r, t + at, n, NULL);
            if (!rc && !(a = a ? a : coax_arena_new(&al))) rc = COAX_ENOMEM;
            stream_partial p;
            if (!rc) rc = stream_partial_get(r, a, &p, NULL);
        }
        CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
        done = rc == COAX_OK;
        stream_free(r);
        coax_arena_free(a);
        CHECK_INT(c.live, 0);
    }
    CHECK(done);
    coax_schema_free(s);
}

/* CPU time of a reply of 'n' bytes streamed in 20-byte pieces, a partial
** every 10 pieces, with a schema (the best of 3). */
static double stream_cost(const coax_schema *s, size_t n)
{
    coax_buf b;
    coax_buf_init(&b, NULL);
    coax_buf_puts(&b, "```json\n{\"items\": [");
    for (size_t i = 0; b.len < n; i++) coax_buf_printf(&b, "%s{\"id\": %zu, \"name\": \"item %zu\"}", i ? ", " : "", i, i);
    coax_buf_puts(&b, "]}\n```");
    double best = 1e9;
    for (int round = 0; round < 3; round++) {
        clock_t t0 = clock();
        stream_options o = {s, NULL, NULL, 0, NULL};
        stream_reader *r;
        coax_arena *a = coax_arena_new(NULL);
        stream_partial p;
        CHECK(stream_new(NULL, &o, &r, NULL) == COAX_OK);
        for (size_t at = 0, k = 0; at < b.len; at += 20, k++) {
            CHECK(stream_feed(r, b.data + at, b.len - at < 20 ? b.len - at : 20, NULL) == COAX_OK);
            if (k % 10 == 0) CHECK(stream_partial_get(r, a, &p, NULL) == COAX_OK);
        }
        CHECK(stream_partial_get(r, a, &p, NULL) == COAX_OK && p.ended && p.ncomplete == 1);
        stream_free(r);
        coax_arena_free(a);
        double t = (double)(clock() - t0) / CLOCKS_PER_SEC;
        if (t < best) best = t;
    }
    coax_buf_free(&b);
    return best;
}

/* 16 times the bytes cost at most 16 x 4 times the time (linear, with room
** for caches and for sanitizer builds, whose page faults and shadow memory
** weigh on a 1 MB reply; quadratic would be 16 x 16). The small side is
** 64 KB, not less: a reply of a few KB is read in tens of microseconds,
** too close to the clock's grain to divide by. */
static void test_linear(void)
{
    coax_schema *s = compile(list_schema);
    double small = stream_cost(s, 64 * 1024), big = stream_cost(s, 1024 * 1024);
    if (!(big <= small * 64 + 0.01)) {
        printf("  64 KB %.4fs, 1 MB %.4fs\n", small, big);
        test_failed_now = 1;
    }
    coax_schema_free(s);
}

#define TESTS                          \
    X(test_linear)                     \
    X(test_splits_and_monotone)        \
    X(test_exact)                      \
    X(test_atomic)                     \
    X(test_changed)                    \
    X(test_two_readers)                \
    X(test_limits)                     \
    X(test_garbage)                    \
    X(test_allocator)
#include "test.h"
