/* Attack round 24 through the C API (spec/attack24_spec.lua has the Lua host's side): one poll of the host's
** frame past its timeout, an instruction budget smaller than the engine's own setup, and a host allocator that
** fails every Nth allocation from the engine's making on, through sessions of the host agent streaming its
** pieces (partials, stop_early, a finish, a failure), which round 23's every-Nth walk (a replay agent, failures
** from the engine's making on) did not reach. */
#include "coax.h"

#include <stdlib.h>
#include <string.h>

#include "sized.h"
#include "test.h"

/* ---- a poll past its timeout ------------------------------------------------------------------------------ */

static int started; /* attempt_start events */

static void count_starts(void *ud, coax_session *s, const char *name, const char *data)
{
    (void)ud, (void)s, (void)data;
    if (!strcmp(name, "attempt_start")) started++;
}

/* A recipe whose agent, attempt_start and validation_error handlers and strategy each run 'turns' loop turns
** (two instructions each), never answering right. */
static const char *burning(int turns, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "local function burn() local x = 0 for i = 1, %d do x = x + i end return x end\n"
             "return { schema = { type = 'object', required = { 'q' } }, prompt = 'hi', max_attempts = 100,\n"
             "  on_event = function(n) if n == 'attempt_start' or n == 'validation_error' then burn() end end,\n"
             "  strategy = function() burn() return { { role = 'user', content = 'again' } } end,\n"
             "  agent = { call = function() burn() return { text = '{}' } end } }",
             turns);
    return buf;
}

/* The attempts the first coax_engine_poll(e, 0) starts. */
static int first_poll(int turns)
{
    char recipe[1024];
    coax_engine *e = NULL;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    coax_session_options so = {0};
    so.input = "x", so.input_len = 1;
    so.on_event = count_starts;
    coax_session *s = NULL;
    burning(turns, recipe, sizeof recipe);
    CHECK_INT(coax_session_from_text(e, recipe, strlen(recipe), "=burn", &so, &s, NULL), COAX_OK);
    started = 0;
    coax_engine_poll(e, 0);
    int n = started;
    coax_engine_free(e);
    return n;
}

/* Each pass of a poll past its timeout may start an attempt, whose four calls here ran 6 million instructions
** each: 64 attempts in one poll(0), 14.2 s. Past its timeout a poll takes another pass only while the passes
** cost less than one call's budget (10 million). */
static void test_a_poll_past_its_timeout_stops_at_a_budget(void)
{
    CHECK_INT(first_poll(3000000), 1);
    CHECK_INT(first_poll(10), 64); /* twin: attempts that cost next to nothing */
}

/* ---- a budget smaller than the engine's setup ------------------------------------------------------------- */

/* The setup (the sandbox, the runtime) ran under the host's lua_instructions: 2,000 made coax_engine_new fail
** with COAX_ENOMEM. It is trusted and bounded, and runs without the scripts' budget. */
static void test_a_small_budget_makes_the_engine(void)
{
    coax_engine_options o = {0};
    o.lua_instructions = 1;
    coax_engine *e = NULL;
    coax_error err = {0};
    CHECK_INT(coax_engine_new(&o, &e, &err), COAX_OK);
    if (!e) {
        printf("  %s\n", err.msg);
        return;
    }
    const char *recipe = "return { schema = { type = 'object' }, prompt = 'hi' }";
    coax_session_options so = {0};
    so.agent_json = "{\"name\": \"replay\", \"replies\": [\"{}\"]}";
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(e, recipe, strlen(recipe), "=r", &so, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_LIMIT);
    const char *why = NULL;
    CHECK_INT(coax_session_error(s, &why), COAX_FAILURE_SCRIPT_LIMIT);
    CHECK_STR(why, "recipe: script stopped: Lua instruction limit (1) reached");
    coax_engine_free(e);
}

/* ---- every Nth allocation, through the host agent ------------------------------------------------------- */

static const char *HOST_RECIPE =
    "return { schema = { type = 'object', properties = { name = { type = 'string' }, hp = { type = 'integer' } },"
    " required = { 'name', 'hp' } }, prompt = 'Describe {{input}}', agent = 'host', max_attempts = 3,"
    " stream = { partials = true, stop_early = true, every_ms = 0 } }";
static const char *HOST_SCHEMA = "{\"type\":\"object\",\"required\":[\"name\",\"hp\"]}";
static const char *const PIECES[] = {"{\"na", "me\": \"Gr", "ue\", \"hp", "\": 4", "0}"};
#define NPIECES (sizeof PIECES / sizeof *PIECES)

static void read_request(void *ud, coax_session *s, const char *name, const char *data)
{
    (void)ud, (void)data;
    if (!strcmp(name, "host_request")) coax_session_host_request(s, NULL);
}

static bool accept(void *ud, coax_session *s, const char *v, size_t len, char *reason, size_t cap)
{
    (void)ud, (void)s, (void)v, (void)len, (void)reason, (void)cap;
    return true;
}

/* The host answers each request piece by piece, polling between them, then whole (every third round it fails
** instead). Returns the sessions that ended ok, or -1 when the engine could not be made. */
static int host_life(sized *st, bool from_schema)
{
    coax_allocator al = SIZED_ALLOCATOR(st);
    coax_engine_options o = {0};
    o.alloc = &al;
    coax_engine *e = NULL;
    if (coax_engine_new(&o, &e, NULL) != COAX_OK) return -1;
    coax_session_options so = {0};
    so.input = "the grue", so.input_len = 8;
    so.on_event = read_request;
    so.on_submit = accept;
    coax_session *s[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        if (from_schema) {
            so.agent_json = "{\"name\": \"host\"}";
            coax_session_from_schema(e, HOST_SCHEMA, strlen(HOST_SCHEMA), "Describe {{input}}", &so, &s[i], NULL);
        } else {
            coax_session_from_text(e, HOST_RECIPE, strlen(HOST_RECIPE), "=host", &so, &s[i], NULL);
        }
    }
    char whole[64] = "";
    for (size_t k = 0; k < NPIECES; k++) strcat(whole, PIECES[k]);
    for (int round = 0; round < 60 && coax_engine_poll(e, 0) > 0; round++) {
        for (int i = 0; i < 2; i++) {
            if (!s[i] || !coax_session_host_request(s[i], NULL)) continue;
            bool cancelled = false;
            for (size_t k = 0; k < NPIECES && !cancelled; k++) {
                cancelled = coax_session_host_piece(s[i], PIECES[k], strlen(PIECES[k]), NULL) == COAX_ECANCELED;
                coax_engine_poll(e, 0);
            }
            if (cancelled) continue;
            coax_session_host_finish(s[i], "stop", NULL);
            if (round % 3 == 2) coax_session_host_fail(s[i], "the host failed", NULL);
            else coax_session_host_reply(s[i], whole, strlen(whole), 10, 20, NULL);
        }
    }
    int oks = 0;
    for (int i = 0; i < 2; i++) {
        if (!s[i]) continue;
        coax_session_report(s[i], NULL);
        if (coax_session_outcome(s[i]) != COAX_OUTCOME_OK) continue;
        oks++;
        CHECK_STR(coax_session_value(s[i], NULL), "{\"name\":\"Grue\",\"hp\":40}");
    }
    coax_session_free(s[0]);
    coax_engine_free(e);
    return oks;
}

static void test_every_nth_allocation_fails_through_the_host_agent(void)
{
    long most = getenv("ATTACK24_EVERY") ? atol(getenv("ATTACK24_EVERY")) : 60;
    for (int mode = 0; mode < 2 && !test_failed_now; mode++) {
        sized whole = {0};
        CHECK_INT(host_life(&whole, mode == 1), 2);
        CHECK_INT(whole.live, 0);
        for (long n = 2; n <= most && !test_failed_now; n++) {
            for (int late = 0; late < 2; late++) { /* from the engine's making on, and from a third of a life on */
                sized st = {.every = n, .from = late ? whole.calls / 3 : 0};
                host_life(&st, mode == 1);
                if (st.live || st.wrong_size)
                    printf("  mode %d, every %ld-th from %ld: %ld bytes leaked, %ld wrong sizes\n", mode, n, st.from,
                           st.live, st.wrong_size);
                CHECK_INT(st.live, 0);
                CHECK_INT(st.wrong_size, 0);
            }
        }
    }
}

#define TESTS                                                                                                     \
    X(test_a_poll_past_its_timeout_stops_at_a_budget)                                                             \
    X(test_a_small_budget_makes_the_engine)                                                                       \
    X(test_every_nth_allocation_fails_through_the_host_agent)
#include "test.h"
