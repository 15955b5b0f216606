/* Attack round 9 through the C API: what sessions of one engine share, and
** calls the host makes from inside its callbacks. */
#include "coax.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "counting.h"
#include "test.h"

static const char *RECIPE =
    "return { schema = { type = 'object', properties = { n = { type = 'integer' } },"
    " required = { 'n' } }, prompt = 'Give n for {{input}}' }";
static const char *REPLAY = "{\"name\":\"replay\",\"replies\":[\"{\\\"n\\\": 1}\"]}";

/* An agent that spins, then asks for a secret: the secret callback runs
** inside the agent's call. */
static const char *SECRET_RECIPE =
    "local coax = require('coax') "
    "return { schema = { type = 'integer' }, prompt = 'n',"
    " agent = { call = function(request)"
    "  local n = 0 for i = 1, %d do n = n + 1 end"
    "  local k = coax.secret('X_API_KEY')"
    "  for i = 1, %d do n = n + 1 end"
    "  return { text = tostring(n) } end } }";

typedef struct inside {
    coax_engine *e;
    bool make;
    const char *recipe; /* what the session started inside runs: RECIPE when NULL */
    int calls;
    coax_session *made[8];
    int nmade;
    coax_code rc[8];
} inside;

static const char *secret_makes_session(void *ud, const char *name)
{
    inside *in = ud;
    (void)name;
    in->calls++;
    if (in->make && in->nmade < 8) {
        coax_session_options o = {0};
        o.agent_json = REPLAY;
        o.input = "x", o.input_len = 1;
        const char *r = in->recipe ? in->recipe : RECIPE;
        in->rc[in->nmade] = coax_session_from_text(in->e, r, strlen(r), "=inner", &o, &in->made[in->nmade], NULL);
        in->nmade++;
    }
    return "sekrit-value";
}

/* A session the host starts from a callback made inside a script's C call
** (here its secret callback, inside coax.secret) ran its recipe with the
** VM armed afresh, and the script went on with that fresh budget: an agent
** of 1.2 million instructions under a budget of 1 million ended ok when the
** host started a session in between, and at the limit when it did not.
** The VM now keeps the outer script's budget, stop and memory flags across
** the nested call (engine/script/vm.c, enter and leave). */
static coax_outcome made_inside(bool make, int loop, int *made, coax_outcome *inner, const char **message)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    inside in = {0};
    in.make = make;
    coax_engine_options eo = {0};
    eo.alloc = &al;
    eo.secret = secret_makes_session;
    eo.secret_ud = &in;
    eo.lua_instructions = 1000000;
    CHECK_INT(coax_engine_new(&eo, &in.e, NULL), COAX_OK);
    char recipe[1024];
    snprintf(recipe, sizeof recipe, SECRET_RECIPE, loop, loop);
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(in.e, recipe, strlen(recipe), "=outer", NULL, &s, NULL), COAX_OK);
    coax_outcome out = coax_session_run(s);
    static char msg[256];
    const char *m = NULL;
    coax_session_error(s, &m);
    snprintf(msg, sizeof msg, "%s", m ? m : "");
    *message = msg;
    CHECK_INT(in.calls, 1);
    *made = in.nmade;
    *inner = COAX_OUTCOME_INVALID;
    if (in.nmade) {
        CHECK_INT(in.rc[0], COAX_OK);
        *inner = coax_session_run(in.made[0]);
    }
    coax_engine_free(in.e);
    CHECK_INT(c.live, 0);
    return out;
}

#define STOPPED "agent: script stopped: Lua instruction limit (1000000) reached"

static void test_session_made_inside_a_script_keeps_its_budget(void)
{
    int made;
    coax_outcome inner;
    const char *msg;
    CHECK_INT(made_inside(true, 300000, &made, &inner, &msg), COAX_OUTCOME_LIMIT);
    CHECK_STR(msg, STOPPED);
    CHECK_INT(made, 1);
    CHECK_INT(inner, COAX_OUTCOME_OK); /* the session started inside runs as any other */
    /* twins: the same agent stopped without the session; a smaller one ends ok, with it or without */
    CHECK_INT(made_inside(false, 300000, &made, &inner, &msg), COAX_OUTCOME_LIMIT);
    CHECK_STR(msg, STOPPED);
    CHECK_INT(made_inside(true, 100000, &made, &inner, &msg), COAX_OUTCOME_OK);
    CHECK_INT(inner, COAX_OUTCOME_OK);
    CHECK_INT(made_inside(false, 100000, &made, &inner, &msg), COAX_OUTCOME_OK);
    CHECK_INT(made, 0);
}
/* The session started inside ran its recipe as if it were the outer
** session's agent (the VM's current task, which the functions lent to
** agents act on): its coax.check_reply checked a text against the other
** session's schema and handed back its verdict. Now a nested call runs as
** no agent's. */
static void test_session_made_inside_a_script_is_no_agent(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    inside in = {0};
    in.make = true;
    in.recipe = "local coax = require('coax') local ok, r = pcall(coax.check_reply, '5') "
                "return { schema = { type = 'string' }, prompt = 'inner ' .. tostring(ok) .. ' ' "
                ".. (ok and tostring(r.valid) or r) .. ' ' .. tostring(pcall(coax.stream_sink)) }";
    coax_engine_options eo = {0};
    eo.alloc = &al;
    eo.secret = secret_makes_session;
    eo.secret_ud = &in;
    CHECK_INT(coax_engine_new(&eo, &in.e, NULL), COAX_OK);
    char recipe[1024];
    snprintf(recipe, sizeof recipe, SECRET_RECIPE, 1, 1);
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(in.e, recipe, strlen(recipe), "=outer", NULL, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_OK);
    CHECK_STR(coax_session_value(s, NULL), "2");
    CHECK_INT(in.nmade, 1);
    coax_session_run(in.made[0]);
    const char *report = coax_session_report(in.made[0], NULL);
    const char *want = "inner false coax.check_reply: only an agent's call can check a reply false";
    if (!report || !strstr(report, want)) printf("  report: %.300s\n", report ? report : "(null)");
    CHECK(report && strstr(report, want));
    coax_engine_free(in.e);
    CHECK_INT(c.live, 0);
}

/* The VM charges a script's time at 250 ns an instruction, and charged
** time the thread did not run: a loaded machine that kept the script off
** its core for 25 ms charged it 100,000 instructions, so a script near its
** budget ended ok or limit from run to run (test_attack9's own agent of
** 600,000 instructions under 1,000,000 above; 78 runs in 1,000 of a script
** at 90% of its budget beside two busy loops). A secret callback that
** sleeps 60 ms (240,000 instructions of the clock) in the script's call
** stands in for that wait: not charged now; one that spins 60 ms of CPU
** still is (the callback's work is the script's call's). */
static int pause_kind; /* 0: none, 1: sleep, 2: spin */

static const char *secret_after_a_pause(void *ud, const char *name)
{
    (void)ud, (void)name;
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    if (pause_kind == 1) nanosleep(&(struct timespec){0, 60000000}, NULL);
    while (pause_kind == 2) {
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) >= 60000000L) break;
    }
    return "sekrit-value";
}

static coax_outcome paused(int kind, const char **message)
{
    pause_kind = kind;
    coax_engine_options eo = {0};
    eo.secret = secret_after_a_pause;
    eo.lua_instructions = 100000; /* 25 ms of time */
    coax_engine *e = NULL;
    CHECK_INT(coax_engine_new(&eo, &e, NULL), COAX_OK);
    char recipe[1024];
    snprintf(recipe, sizeof recipe, SECRET_RECIPE, 1000, 1000);
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(e, recipe, strlen(recipe), "=paused", NULL, &s, NULL), COAX_OK);
    coax_outcome out = coax_session_run(s);
    static char msg[256];
    const char *m = NULL;
    coax_session_error(s, &m);
    snprintf(msg, sizeof msg, "%s", m ? m : "");
    *message = msg;
    coax_engine_free(e);
    return out;
}

static void test_time_the_script_did_not_run_is_not_charged(void)
{
    const char *msg;
    CHECK_INT(paused(1, &msg), COAX_OUTCOME_OK);
    CHECK_STR(msg, "");
    CHECK_INT(paused(2, &msg), COAX_OUTCOME_LIMIT);
    CHECK_STR(msg, "agent: script stopped: Lua instruction limit (100000) reached");
    CHECK_INT(paused(0, &msg), COAX_OUTCOME_OK); /* twin: no pause */
}

/* curl's torture idea (test_session.c) over the paths it does not take:
** two sessions of one engine sharing a cached schema (from a schema's text
** and from a recipe), the host agent's question and answer, a session freed
** while the other waits, reports and values read after each step. Each
** allocation fails in turn, once or from then on: every call returns a
** code, every session ends ok or out of memory, nothing leaks. */
static const char *SCHEMA = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}";
static const char *HOST = "{\"name\":\"host\"}";

static bool ended_right(coax_session *s, long n)
{
    coax_outcome out = coax_session_outcome(s);
    const char *message = NULL;
    coax_session_failure why = coax_session_error(s, &message);
    bool right = out == COAX_OUTCOME_OK || out == COAX_OUTCOME_RUNNING || why == COAX_FAILURE_OUT_OF_MEMORY;
    if (!right)
        printf("  %s (%s) when allocation %ld fails: %.200s\n", coax_outcome_name(out), coax_failure_name(why), n,
               message ? message : "");
    const char *r = coax_session_report(s, NULL);
    if (r && r[0] != '{') right = false;
    return right;
}

static void answer(coax_session *s, int k)
{
    coax_error err = {0};
    /* first a reply to coerce and a piece of one, then one that fails validation */
    coax_code rc = k % 2 ? coax_session_host_reply(s, "{\"n\": \"7\"}", 10, 3, 2, &err)
                         : coax_session_host_piece(s, "{\"n\"", 4, &err);
    if (rc == COAX_OK && k % 2 == 0) rc = coax_session_host_reply(s, "{\"n\": 1.5}", 10, -1, -1, &err);
    CHECK(rc == COAX_OK || rc == COAX_ENOMEM || rc == COAX_EINVAL);
}

static bool shared_torture(long n, int persistent, long *allocs, int *oks)
{
    counting c = {0, 0, persistent ? -n : n};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    coax_engine_options o = {0};
    o.alloc = &al;
    coax_engine *e = NULL;
    coax_code rc = coax_engine_new(&o, &e, NULL);
    CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
    bool all_ok = rc == COAX_OK;
    if (rc == COAX_OK) {
        coax_session_options so = {0};
        so.input = "x", so.input_len = 1, so.agent_json = HOST;
        coax_session *s[3] = {NULL, NULL, NULL};
        for (int i = 0; i < 2; i++) {
            rc = coax_session_from_schema(e, SCHEMA, strlen(SCHEMA), "n in {{input}}", &so, &s[i], NULL);
            CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
        }
        so.agent_json = REPLAY;
        rc = coax_session_from_text(e, RECIPE, strlen(RECIPE), "=t", &so, &s[2], NULL);
        CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
        for (int round = 0; round < 6 && coax_engine_poll(e, 0) > 0; round++) {
            for (int i = 0; i < 3; i++) {
                if (!s[i]) continue;
                if (coax_session_host_request(s[i], NULL)) answer(s[i], round + i);
                coax_session_value(s[i], NULL);
                coax_session_report(s[i], NULL);
            }
            if (round == 1 && s[0]) { /* freed while its twin shares its schema and waits */
                coax_session_free(s[0]);
                s[0] = NULL;
            }
        }
        for (int i = 0; i < 3; i++) {
            if (!s[i]) continue;
            CHECK(ended_right(s[i], n));
            *oks += coax_session_outcome(s[i]) == COAX_OUTCOME_OK;
            all_ok &= coax_session_outcome(s[i]) != COAX_OUTCOME_LIMIT;
        }
        coax_engine_free(e);
    }
    if (c.live) printf("  leak of %ld bytes when allocation %ld fails\n", c.live, n);
    CHECK_INT(c.live, 0);
    *allocs = c.allocs;
    return all_ok && !c.live;
}

static void test_allocation_failure_across_shared_sessions(void)
{
    for (int persistent = 0; persistent <= 1; persistent++) {
        long n, allocs = 0;
        int oks = 0;
        for (n = 1; n < 100000; n++) {
            bool ok = shared_torture(n, persistent, &allocs, &oks);
            if (test_failed_now) break;
            if (ok && allocs < n) break; /* nothing left to fail */
        }
        CHECK(n > 100 && n < 100000);
    }
    /* the twin: nothing fails, the two left end ok (the freed one's twin after a retry) */
    long allocs = 0;
    int oks = 0;
    CHECK(shared_torture(0, 0, &allocs, &oks));
    CHECK_INT(oks, 2);
}

/* The host agent's request was parsed under the limits of replies: an
** engine whose max_input (1,000 bytes) or max_string (100) is below its own
** request could never ask its host (the session ended script_error, "the
** request is not JSON: input of 1623 bytes exceeds the limit of 1000"). The
** limits of a reply still apply to the reply. */
static void test_host_request_is_no_reply(void)
{
    coax_engine_options eo = {0};
    eo.limits.max_input = 1000;
    eo.limits.max_string = 100;
    coax_engine *e;
    CHECK_INT(coax_engine_new(&eo, &e, NULL), COAX_OK);
    char prompt[1600];
    memset(prompt, 'p', sizeof prompt - 1);
    prompt[sizeof prompt - 1] = '\0';
    coax_session_options o = {0};
    o.agent_json = HOST;
    const char *schema = "{\"type\":\"integer\"}";
    coax_session *s[2];
    for (int i = 0; i < 2; i++)
        CHECK_INT(coax_session_from_schema(e, schema, strlen(schema), prompt, &o, &s[i], NULL), COAX_OK);
    coax_engine_poll(e, 0);
    size_t len = 0;
    CHECK(coax_session_host_request(s[0], &len) != NULL);
    CHECK(len > 1600);
    /* a length no reply has: ESIZE, not out of memory (which the host tries again) */
    coax_error err = {0};
    CHECK_INT(coax_session_host_reply(s[0], "5", SIZE_MAX, -1, -1, &err), COAX_ESIZE);
    CHECK_STR(err.msg, "a reply of 18446744073709551615 bytes: longer than any text coax reads (4 GiB)");
    CHECK_INT(coax_session_host_piece(s[0], "5", SIZE_MAX, &err), COAX_ESIZE);
    CHECK_INT(coax_session_host_reply(s[0], "5", 1, -1, -1, NULL), COAX_OK);
    char big[1200];
    memset(big, ' ', sizeof big);
    big[0] = '7';
    CHECK_INT(coax_session_host_reply(s[1], big, sizeof big, -1, -1, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    CHECK_STR(coax_session_value(s[0], NULL), "5");
    const char *why = NULL;
    CHECK_INT(coax_session_outcome(s[1]), COAX_OUTCOME_LIMIT); /* the twin: a reply past max_input */
    coax_session_error(s[1], &why);
    CHECK_STR(why, "agent: the host's reply of 1200 bytes passes max_input (1000 bytes)"); /* not copied */
    coax_engine_free(e);
}

/* A session started from a callback after the host freed the engine in it
** (the engine is freed when the poll returns) was made, its recipe run in
** the interrupted VM, and freed with the engine: the host held a session
** freed behind its back. Now it is refused. */
typedef struct after_free {
    coax_engine *e;
    coax_code rc;
    coax_session *made;
    int events;
} after_free;

static void free_then_start(void *ud, coax_session *s, const char *name, const char *data)
{
    (void)s, (void)name, (void)data;
    after_free *a = ud;
    if (a->events++) return;
    coax_engine_free(a->e);
    coax_error err = {0};
    a->rc = coax_session_from_text(a->e, RECIPE, strlen(RECIPE), "=late", NULL, &a->made, &err);
    CHECK_STR(err.msg, "the engine is being freed (coax_engine_free in a callback)");
    CHECK_INT(coax_session_from_schema(a->e, "{}", 2, "p", NULL, &a->made, NULL), COAX_EINVAL);
    CHECK_INT(coax_session_from_file(a->e, "/nonexistent", NULL, &a->made, NULL), COAX_EINVAL);
}

static void test_no_session_once_the_engine_is_freed(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    coax_engine_options eo = {0};
    eo.alloc = &al;
    after_free a = {NULL, COAX_OK, NULL, 0};
    CHECK_INT(coax_engine_new(&eo, &a.e, NULL), COAX_OK);
    coax_session_options o = {0};
    o.agent_json = REPLAY;
    o.on_event = free_then_start;
    o.event_ud = &a;
    coax_session *s;
    CHECK_INT(coax_session_from_text(a.e, RECIPE, strlen(RECIPE), "=a", &o, &s, NULL), COAX_OK);
    CHECK_INT(coax_engine_poll(a.e, 1000), 0);
    CHECK_INT(a.rc, COAX_EINVAL);
    CHECK(a.made == NULL);
    CHECK_INT(c.live, 0);
    /* the twin: a session started from a callback of a live engine runs */
    CHECK_INT(coax_engine_new(&eo, &a.e, NULL), COAX_OK);
    inside in = {0};
    in.make = true;
    in.e = a.e;
    secret_makes_session(&in, "X");
    CHECK_INT(in.rc[0], COAX_OK);
    CHECK_INT(coax_session_run(in.made[0]), COAX_OUTCOME_OK);
    coax_engine_free(a.e);
    CHECK_INT(c.live, 0);
}

#define TESTS                                                 \
    X(test_session_made_inside_a_script_keeps_its_budget)     \
    X(test_session_made_inside_a_script_is_no_agent)      \
    X(test_time_the_script_did_not_run_is_not_charged)    \
    X(test_allocation_failure_across_shared_sessions)     \
    X(test_host_request_is_no_reply)                      \
    X(test_no_session_once_the_engine_is_freed)
#include "test.h"
