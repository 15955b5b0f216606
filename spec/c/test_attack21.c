/*
** Attack round 21: what the feedback's submission costs (spec/attack21_spec.lua
** has the rest of the round).
**
** The session indents a failed reply's value for the feedback only when that
** at most doubles its text: indentation grows with the square of the depth
** (2,000 strings at the bottom of an array 400 deep, a reply of 12.8 KB, were
** 1.9 MB indented). coax_pretty_extra counts what indenting adds without
** writing it: exactly the difference of the two texts, for any value, and
** each allocation of its walk failing gives SIZE_MAX and leaks nothing.
*/
#include <stdint.h>
#include <stdlib.h>

#include "coax.h"
#include "base/core.h" /* coax_pretty_extra, coax_write_buf */
#include "counting.h"
#include "test.h"

static const char *const values[] = {
    "1", "\"x\"", "[]", "{}", "[1]", "{\"a\":1}", "[[],{},[1,[2,{\"b\":[]}]]]",
    "{\"a\":{\"b\":{\"c\":[1,2,{\"d\":null}]}},\"e\":[true,false]}",
};

static size_t written(const coax_value *v, unsigned flags)
{
    coax_buf b;
    coax_buf_init(&b, NULL);
    CHECK(coax_write_buf(&b, v, flags) == COAX_OK);
    size_t n = b.len;
    coax_buf_free(&b);
    return n;
}

static void check_text(const char *text)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v = NULL;
    CHECK(coax_parse(a, text, strlen(text), NULL, &v, NULL) == COAX_OK);
    if (v) CHECK_INT(coax_pretty_extra(NULL, v), written(v, COAX_WRITE_PRETTY) - written(v, 0));
    coax_arena_free(a);
}

static char *deep_strings(int depth, int n)
{
    size_t cap = (size_t)depth * 2 + (size_t)n * 4 + 8, at = 0;
    char *t = malloc(cap);
    for (int i = 0; i < depth; i++) t[at++] = '[';
    for (int i = 0; i < n; i++) at += (size_t)snprintf(t + at, cap - at, i ? ",\"x\"" : "\"x\"");
    for (int i = 0; i < depth; i++) t[at++] = ']';
    t[at] = '\0';
    return t;
}

static void test_the_extra_is_the_difference_of_the_texts(void)
{
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) check_text(values[i]);
    char *deep = deep_strings(400, 2000); /* past the 32 frames the walk keeps on the stack */
    check_text(deep);
    free(deep);
}

static void test_deep_strings_grow_with_the_square_of_the_depth(void)
{
    char *t = deep_strings(400, 2000);
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v = NULL;
    CHECK(coax_parse(a, t, strlen(t), NULL, &v, NULL) == COAX_OK);
    /* each string's line, a newline and 400 levels of two spaces: 2,000 x 801; each of the 399
    ** arrays' one line inside the one above it: 399 + 2 (1 + ... + 399); each closer's line at
    ** its own level: 400 + 2 (0 + ... + 399) */
    CHECK_INT(coax_pretty_extra(NULL, v), 2000 * 801 + (399 + 159600) + (400 + 159600));
    coax_arena_free(a);
    free(t);
}

static void test_each_allocation_failing_in_turn(void)
{
    char *t = deep_strings(100, 3);
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v = NULL;
    CHECK(coax_parse(a, t, strlen(t), NULL, &v, NULL) == COAX_OK);
    size_t want = coax_pretty_extra(NULL, v);
    for (long k = 1; k < 10; k++) {
        counting c = {0, 0, k};
        coax_allocator al = COUNTING_ALLOCATOR(&c);
        size_t got = coax_pretty_extra(&al, v);
        CHECK(got == SIZE_MAX || got == want);
        CHECK_INT(c.live, 0);
    }
    coax_arena_free(a);
    free(t);
}

#define TESTS                                              \
    X(test_the_extra_is_the_difference_of_the_texts)       \
    X(test_deep_strings_grow_with_the_square_of_the_depth) \
    X(test_each_allocation_failing_in_turn)
#include "test.h"
