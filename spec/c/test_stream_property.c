/*
** test_stream_property.c: the streaming reader's promises (README,
** "Streaming"), checked on every prefix of many replies, valid and broken
** in the ways the repair handles, generated from a fixed seed.
**
** - Monotone: a part a partial lists as complete keeps its value in every
**   later partial (itself or through an ancestor).
** - Final: when coax_extract accepts the whole reply, every part listed
**   holds the value the extraction took, and no partial was doomed, unless
**   the reader stopped (another value or block followed: the session then
**   refuses a value that contradicts a partial it told, by design).
** - The reader's extraction of the root (stream_root_extract, taken by
**   the session when the reply is nothing but the candidate) is the one
**   coax_extract gives the whole reply.
*/
#include "base/core.h"
#include "stream/stream.h"

#include <stdio.h>
#include <stdlib.h>

#include "compile.h"
#include "test.h"

static const char *const schema_text =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\"},"
    "\"price\":{\"type\":\"number\"},\"ok\":{\"type\":\"boolean\"},\"tags\":{\"type\":\"array\",\"items\":"
    "{\"type\":\"string\"}},\"info\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
    "\"n\":{\"type\":\"integer\"}}},\"color\":{\"enum\":[\"red\",\"green\"]}},\"required\":[\"name\",\"age\"]}";

/* Bodies: valid, and broken as replies are (quotes, keys, commas,
** comments, numbers, literals, escapes, UTF-8, duplicates, cut off). */
static const char *const bodies[] = {
    "{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"a\", \"b\"]}",
    "{\"name\": \"Ada\", \"age\": 1234, \"price\": 12.5e1, \"ok\": true, \"info\": {\"city\": \"Lon\", \"n\": 5}}",
    "{\"name\": \"A\\\"d\\u00e9\\ud83d\\ude00\\n\", \"age\": 36}",
    "{\"name\": \"Zo\xC3\xAB \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80\", \"age\": -0, \"ok\": false, \"color\": \"red\"}",
    "{'name': 'Ada', 'age': 36}",
    "{name: \"Ada\", age: 36}",
    "{\"name\": \"Ada\", \"age\": 36,}",
    "{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"a\", \"b\",],}",
    "{\"name\": \"Ada\", // c\n \"age\": 36}",
    "{\"name\": \"Ada\", \"age\": 36 /* years */}",
    "{\"name\": \"Ada\" \"age\": 36}",
    "{\"name\": \"Ada\", \"age\": 1,234}",
    "{\"name\": \"Ada\", \"age\": 1,234, \"ok\": true}",
    "{\"name\": \"Ada\", \"age\": \"1,234\"}",
    "{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"a\" \"b\"]}",
    "{\"name\": \"Ada\", \"age\": 36, \"price\": 1 000}",
    "{\"name\": \"Ada\", \"age\": 36, \"tags\": [1 000, 2]}",
    "{\"name\": \"Ada\", \"age\": 36, \"ok\": True}",
    "{\"name\": \"Ada\", \"age\": 36, \"ok\": tr}",
    "{\"name\": \"Ada\", \"age\": 3",
    "{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"a\", \"b\"",
    "{\"name\": \"Ada\", \"age\": 36, \"name\": \"Bob\"}",
    "{\"name\": \"Ada\", \"age\": 36, \"color\": \"RED\"}",
    "{\"name\": \"Ada\", \"age\": 36, \"color\": \"blue\"}",
    "{\"name\": \"Ada\", \"age\": \"36\", \"price\": \"1.5\"}",
    "{\"result\": {\"name\": \"Ada\", \"age\": 36}}",
    "{\"name\": \"Ada\" + \" Lovelace\", \"age\": 36}",
    "[{\"name\": \"Ada\", \"age\": 36}]",
    "{\"name\": \"Ada\", \"age\": 36}{\"name\": \"Bob\", \"age\": 2}",
    "{\"name\": \"Ada\", \"age\": 36, \"price\": .5}",
    "{\"name\": \"Ada\", \"age\": 36, \"price\": 12345678901234567890123}",
    "{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"\\ud800\"]}",
    "{\"name\": \"Ada\", \"age\": 36, \"info\": {\"city\": \"Lon\" \"n\": 1}}",
    "{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"a\", \"b\" c\", \"d\"]}",
    "{\xE2\x80\x9Cname\xE2\x80\x9D: \xE2\x80\x9C" "Ada\xE2\x80\x9D, \"age\": 36}",
};

/* Around the body: prose, fences, tags, reasoning, quotes, and a second
** answer after it. */
static const char *const before[] = {
    "", "Here it is: ", "```json\n", "<think>{\"name\": 1}</think>", "Sure! [1] ", "<json>", "The value {x} is: ",
    "'", "`", "``", "\xE2\x80\x98", "'Sure,' ", "x `", "\xE2\x80\x9C",
    "<example>{\"name\": 1}</example>", "Example: {\"name\": \"x\", \"age\": \"y\"}\nAnswer: ",
    "Wrong answer:\n```json\n{\"age\": \"x\"}\n```\nRight:\n```json\n", "<!-- {\"age\": \"x\"} -->",
};
static const char *const after[] = {
    "", "\n```", " Hope this helps.", " Sorry, corrected: {\"name\": \"Bob\", \"age\": 2}",
    "\n```json\n{\"name\": \"Bob\", \"age\": 2}\n```", "</json>", " [2]", "'", "` and more", "``", "\xE2\x80\x99",
    " \"x\"", "\n5", " true", " `x`", " truly", " - done",
};

static char *write_value(const coax_value *v)
{
    char *s;
    size_t n;
    return v && coax_write(v, 0, NULL, &s, &n) == COAX_OK ? s : NULL;
}

static char *value_at(const coax_value *root, const char *ptr)
{
    const coax_value *v;
    return root && coax_pointer_get(root, ptr, strlen(ptr), &v) == COAX_OK ? write_value(v) : NULL;
}

typedef struct listed {
    char *ptr, *value;
} listed;

static size_t nclaims, nfinal; /* the checks made: the property is not vacuous */

/* Feeds 'text' a byte at a time and checks the promises above. */
static void check(const coax_schema *s, const coax_schema *any, const char *text)
{
    size_t len = strlen(text);
    stream_options o = {s, NULL, NULL, 0, NULL};
    stream_reader *r;
    CHECK(stream_new(NULL, &o, &r, NULL) == COAX_OK);
    listed seen[64];
    size_t nseen = 0;
    bool doomed = false, stopped = false;
    coax_arena *a = coax_arena_new(NULL);
    for (size_t at = 0; at < len; at++) {
        CHECK(stream_feed(r, text + at, 1, NULL) == COAX_OK);
        coax_arena_reset(a);
        stream_partial p;
        CHECK(stream_partial_get(r, a, &p, NULL) == COAX_OK);
        for (size_t i = 0; i < nseen; i++) {
            char *now = value_at(p.value, seen[i].ptr);
            if (!now || strcmp(now, seen[i].value)) {
                printf("  %s was %s, then %s at byte %zu of %s\n", seen[i].ptr, seen[i].value, now ? now : "(none)",
                       at + 1, text);
                test_failed_now = 1;
            }
            free(now);
        }
        for (size_t i = 0; i < p.ncomplete && nseen < 64; i++) {
            bool known = false;
            for (size_t k = 0; k < nseen && !known; k++) known = !strcmp(seen[k].ptr, p.complete[i]);
            if (known) continue;
            seen[nseen].ptr = strdup(p.complete[i]);
            seen[nseen++].value = value_at(p.value, p.complete[i]);
            nclaims++;
        }
        doomed |= p.doomed;
        stopped = p.stopped;
    }
    coax_extract_result x;
    coax_arena *b = coax_arena_new(NULL);
    if (coax_extract(b, s ? s : any, text, len, NULL, NULL, &x, NULL) == COAX_OK && x.valid) {
        nfinal++;
        for (size_t i = 0; i < nseen && !stopped; i++) {
            char *fin = value_at(x.value, seen[i].ptr);
            if (!fin || strcmp(fin, seen[i].value)) {
                printf("  %s listed as %s, taken as %s: %s\n", seen[i].ptr, seen[i].value, fin ? fin : "(none)", text);
                test_failed_now = 1;
            }
            free(fin);
        }
        if (doomed && !stopped) {
            printf("  doomed, but the whole reply is accepted: %s\n", text);
            test_failed_now = 1;
        }
    }
    const coax_extract_result *root = s ? stream_root_extract(r, text, len, true) : NULL;
    if (root) {
        char *mine = write_value(root->value), *theirs = write_value(x.value);
        if (!mine || !theirs || strcmp(mine, theirs) || root->valid != x.valid) {
            printf("  the reader's root %s, the extraction's %s: %s\n", mine ? mine : "-", theirs ? theirs : "-", text);
            test_failed_now = 1;
        }
        free(mine);
        free(theirs);
    }
    for (size_t i = 0; i < nseen; i++) {
        free(seen[i].ptr);
        free(seen[i].value);
    }
    coax_arena_free(b);
    coax_arena_free(a);
    stream_free(r);
}

static void test_arranged(void)
{
    coax_schema *s = compile(schema_text), *any = compile("{}"), *list = compile("{\"type\":\"array\"}");
    CHECK(s && any && list);
    char text[640];
    nclaims = nfinal = 0;
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++)
        for (size_t b = 0; b < sizeof before / sizeof *before; b++)
            for (size_t e = 0; e < sizeof after / sizeof *after; e++) {
                snprintf(text, sizeof text, "%s%s%s", before[b], bodies[i], after[e]);
                check(NULL, any, text);
                check(s, any, text);
                check(list, any, text); /* values one after another: an array */
            }
    printf("  %zu parts listed, %zu replies accepted\n", nclaims, nfinal);
    CHECK(nclaims > 20000 && nfinal > 5000);
    coax_schema_free(list);
    coax_schema_free(s);
    coax_schema_free(any);
}

/* Valid replies with bytes inserted, removed and replaced at random (a
** fixed seed): JSON's punctuation, quotes, escapes, digits, UTF-8 cut. */
static void test_mutated(void)
{
    static const char *const bases[] = {
        "{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"a\", \"b\"], \"info\": {\"city\": \"Lon\", \"n\": 5}, "
        "\"price\": 1.5, \"ok\": true}",
        "{\"name\": \"A\\\"d\\u00e9\\ud83d\\ude00\", \"age\": 1234, \"color\": \"red\", \"tags\": []}",
        "```json\n{\"name\": \"Zo\xC3\xAB \xE6\x97\xA5\xE6\x9C\xAC\", \"age\": 7, \"ok\": false}\n```",
        "Sure: {\"name\": \"Ada\", \"age\": 36} hope it helps",
    };
    static const char *const bits[] = {
        "\"", "'", ",", ":", "{", "}", "[", "]", " ", "\n", "1", "0", ".", "e", "-", "+", "\\", "u", "t", "n", "/",
        "*", "#", "`", "<", ">", "\xC3\xA9", "\\u", "\\ud83d", "000", ",000", " 000", "true", "//", "```", "\xC3",
        "\xF0\x9F", "\"x\"", "\"age\"", ": 5", ", \"age\": 3", "\xE2\x80\x98", "null", "Example:\n", "<draft>",
    };
    coax_schema *s = compile(schema_text), *any = compile("{}"), *list = compile("{\"type\":\"array\"}");
    CHECK(s && any && list);
    unsigned seed = 11;
#define NEXT(n) ((seed = seed * 1103515245u + 12345u), (size_t)((seed >> 16) % (n)))
    char text[512], tmp[512];
    for (int round = 0; round < 3000; round++) {
        snprintf(text, sizeof text, "%s", bases[NEXT(sizeof bases / sizeof *bases)]);
        for (size_t k = 1 + NEXT(3); k > 0; k--) {
            size_t len = strlen(text), at = NEXT(len + 1);
            const char *bit = bits[NEXT(sizeof bits / sizeof *bits)];
            size_t cut = NEXT(3) == 0 ? 0 : 1 + NEXT(3); /* an insertion, or bytes replaced */
            if (at + cut > len) cut = len - at;
            snprintf(tmp, sizeof tmp, "%.*s%s%s", (int)at, text, bit, text + at + cut);
            memcpy(text, tmp, sizeof text);
        }
        check(NULL, any, text);
        check(s, any, text);
        check(list, any, text);
    }
#undef NEXT
    coax_schema_free(list);
    coax_schema_free(s);
    coax_schema_free(any);
}

#define TESTS            \
    X(test_arranged)     \
    X(test_mutated)
#include "test.h"
