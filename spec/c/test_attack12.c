/* Attack round 12 through the C API: the promise that a recipe or a reply never hurts its host, seen from
** the host's side: its allocator's contract. */
#include "coax.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sized.h"
#include "test.h"

static const char *HOST_RECIPE =
    "return { schema = { type = 'object', properties = { n = { type = 'integer' }, s = { type = 'string' } },"
    " required = { 'n' } }, prompt = 'n of {{input}}', agent = 'host', max_attempts = 3,"
    " stream = { every_ms = 0 } }";
static const char *REPLAY_RECIPE =
    "return { schema = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } },"
    " prompt = 'n of {{input}}', agent = { name = 'replay', replies = { '{\"n\": \"x\"}', '```json\\n{\"n\": 2,}\\n```' } } }";

static void count_event(void *ud, coax_session *s, const char *name, const char *data)
{
    (void)s, (void)name, (void)data;
    ++*(int *)ud;
}

/* One whole life of an engine under 'st': a host-agent session fed in pieces (partials told), answered
** wrong then right, beside a replay session whose reply needs a repair, an extraction in an arena, then
** everything freed. Returns the number of sessions that ended ok. */
static int whole_life(sized *st)
{
    coax_allocator al = SIZED_ALLOCATOR(st);
    coax_engine_options o = {0};
    o.alloc = &al;
    coax_engine *e = NULL;
    coax_code rc = coax_engine_new(&o, &e, NULL);
    CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
    if (rc) return 0;
    int events = 0, oks = 0;
    coax_session_options so = {0};
    so.input = "x", so.input_len = 1, so.on_event = count_event, so.event_ud = &events;
    coax_session *s[2] = {NULL, NULL};
    rc = coax_session_from_text(e, HOST_RECIPE, strlen(HOST_RECIPE), "=host", &so, &s[0], NULL);
    CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
    rc = coax_session_from_text(e, REPLAY_RECIPE, strlen(REPLAY_RECIPE), "=replay", &so, &s[1], NULL);
    CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
    static const char *const pieces[] = {"{\"s\": \"ab", "c\", \"n\": \"se", "ven\"}"};
    int answered = 0;
    for (int round = 0; round < 12 && coax_engine_poll(e, 0) > 0; round++) {
        if (!s[0] || !coax_session_host_request(s[0], NULL)) continue;
        if (answered++ == 0) {
            for (size_t i = 0; i < 3; i++) {
                coax_session_host_piece(s[0], pieces[i], strlen(pieces[i]), NULL);
                coax_engine_poll(e, 0);
            }
            coax_session_host_reply(s[0], "{\"s\": \"abc\", \"n\": \"seven\"}", 27, 5, 3, NULL);
        } else {
            coax_session_host_reply(s[0], "{\"s\": \"abc\", \"n\": 7}", 20, 5, 3, NULL);
        }
    }
    for (int i = 0; i < 2; i++) {
        if (!s[i]) continue;
        coax_session_report(s[i], NULL);
        oks += coax_session_outcome(s[i]) == COAX_OUTCOME_OK;
    }
    coax_session_free(s[1]);
    /* once the failure is behind it, the engine serves the next session as if nothing happened */
    if (st->fail_at && st->calls >= st->fail_at) {
        coax_session *again = NULL;
        CHECK_INT(coax_session_from_text(e, REPLAY_RECIPE, strlen(REPLAY_RECIPE), "=again", &so, &again, NULL),
                  COAX_OK);
        CHECK_INT(coax_session_run(again), COAX_OUTCOME_OK);
        if (test_failed_now) printf("  the engine after allocation %ld failed: %s\n", st->fail_at,
                                    coax_session_report(again, NULL));
    }
    coax_engine_free(e);
    coax_arena *a = coax_arena_new(&al);
    if (a) {
        coax_value *sv = NULL;
        coax_schema *schema = NULL;
        coax_extract_result xr;
        if (coax_parse(a, "{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}", 43, NULL, &sv, NULL) == COAX_OK &&
            coax_schema_compile(sv, NULL, &al, &schema, NULL) == COAX_OK) {
            if (coax_extract(a, schema, "text [1, \"2\", 3,] more", 22, NULL, NULL, &xr, NULL) == COAX_OK &&
                xr.valid)
                oks++;
            coax_schema_free(schema);
        }
        coax_arena_free(a);
    }
    return oks;
}

/* The allocator's contract (coax.h): free and realloc get the size the block was allocated with. A host
** that accounts without headers (as Lua's own allocator interface allows) was told other sizes. */
static void test_host_allocator_contract(void)
{
    sized st = {0};
    CHECK_INT(whole_life(&st), 3);
    CHECK_INT(st.wrong_size, 0);
    CHECK_INT(st.zero, 0);
    CHECK_INT(st.live, 0);
}

/* The same life failing its k-th allocation, for every k, each block moved at every realloc: clean codes,
** nothing leaked, every size right. */
static void test_each_allocation_fails_in_turn(void)
{
    sized whole = {0};
    whole_life(&whole);
    long step = getenv("ATTACK12_STEP") ? atol(getenv("ATTACK12_STEP")) : 1;
    for (long k = 1; k <= whole.calls; k += step) {
        sized st = {.fail_at = k};
        whole_life(&st);
        if (st.live || st.wrong_size || st.zero)
            printf("  allocation %ld failing: %ld bytes leaked, %ld wrong sizes\n", k, st.live, st.wrong_size);
        CHECK_INT(st.live, 0);
        CHECK_INT(st.wrong_size, 0);
        if (test_failed_now) break;
    }
    printf("  %ld allocations\n", whole.calls);
}

/* An allocator with a NULL function (a host that set malloc and free only) was called through NULL at the
** first realloc: a segfault inside coax_engine_new. Each function handed one refuses it. */
static void test_allocator_missing_a_function(void)
{
    sized st = {0};
    coax_allocator whole = SIZED_ALLOCATOR(&st);
    coax_allocator no_realloc = {s_malloc, NULL, s_free, &st}, no_malloc = {NULL, s_realloc, s_free, &st},
                   no_free = {s_malloc, s_realloc, NULL, &st};
    const coax_allocator *incomplete[] = {&no_realloc, &no_malloc, &no_free};
    coax_arena *a = coax_arena_new(&whole);
    coax_value *v = NULL;
    CHECK_INT(coax_parse(a, "{\"type\":\"integer\"}", 18, NULL, &v, NULL), COAX_OK);
    for (size_t i = 0; i < 3; i++) {
        const coax_allocator *bad = incomplete[i];
        coax_engine_options o = {0};
        o.alloc = bad;
        coax_engine *e = (coax_engine *)1;
        coax_error err = {0};
        CHECK_INT(coax_engine_new(&o, &e, &err), COAX_EINVAL);
        CHECK(e == NULL);
        CHECK_STR(err.msg, "coax_engine_new: the allocator lacks a function");
        CHECK(coax_arena_new(bad) == NULL);
        CHECK(coax_meta_cache_new(bad) == NULL);
        coax_schema *schema = (coax_schema *)1;
        CHECK_INT(coax_schema_compile(v, NULL, bad, &schema, &err), COAX_EINVAL);
        CHECK(schema == NULL);
        CHECK_STR(err.msg, "coax_schema_compile: the allocator lacks a function");
        char *text = NULL;
        size_t len = 0;
        CHECK_INT(coax_write(v, 0, bad, &text, &len), COAX_EINVAL);
        CHECK_INT(coax_value_equal(v, v, bad), -1);
        coax_free(bad, &st, 1); /* not called: nothing to free it with */
    }
    /* the twin: the whole allocator still serves each of them */
    coax_schema *schema = NULL;
    CHECK_INT(coax_schema_compile(v, NULL, &whole, &schema, NULL), COAX_OK);
    char *text = NULL;
    size_t len = 0;
    CHECK_INT(coax_write(v, 0, &whole, &text, &len), COAX_OK);
    CHECK_STR(text, "{\"type\":\"integer\"}");
    coax_free(&whole, text, len + 1);
    CHECK_INT(coax_value_equal(v, v, &whole), 1);
    coax_meta_cache *mc = coax_meta_cache_new(&whole);
    CHECK(mc != NULL);
    coax_meta_cache_free(mc);
    coax_schema_free(schema);
    coax_arena_free(a);
    CHECK_INT(st.live, 0);
    CHECK_INT(st.wrong_size, 0);
}

#define TESTS X(test_host_allocator_contract) X(test_each_allocation_fails_in_turn) \
    X(test_allocator_missing_a_function)
#include "test.h"
