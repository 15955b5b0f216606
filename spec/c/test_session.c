/* The session engine through the public C API: blocking and polled runs,
** the host's event callback, outcomes, reports, and allocation failure. */
#include "coax.h"

#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "counting.h"
#include "test.h"

static const char *RECIPE =
    "return { schema = { type = 'object', properties = { n = { type = 'integer' } },"
    " required = { 'n' } }, prompt = 'Give n for {{input}}' }";

typedef struct events {
    char log[1024];
} events;

static void on_event(void *ud, coax_session *s, const char *name, const char *data)
{
    (void)s;
    events *e = ud;
    size_t n = strlen(e->log);
    snprintf(e->log + n, sizeof e->log - n, "%s%s", name, data);
}

static coax_session *start(coax_engine *e, const char *replies, events *ev)
{
    coax_session_options o = {0};
    o.input = "x";
    o.input_len = 1;
    o.agent_json = replies;
    o.on_event = ev ? on_event : NULL;
    o.event_ud = ev;
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(e, RECIPE, strlen(RECIPE), "=test", &o, &s, NULL), COAX_OK);
    return s;
}

static void test_blocking_run_with_events(void)
{
    coax_engine *e;
    coax_error err;
    CHECK_INT(coax_engine_new(NULL, &e, &err), COAX_OK);
    events ev = {{0}};
    coax_session *s = start(e, "{\"name\":\"replay\",\"replies\":[\"no\",\"{\\\"n\\\": \\\"7\\\"}\"]}", &ev);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_OK);
    size_t len;
    CHECK_STR(coax_session_value(s, &len), "{\"n\":7}");
    CHECK_INT(len, 7);
    CHECK_STR(ev.log, "attempt_start{\"attempt\":1}reply{\"attempt\":1,\"bytes\":2}"
                      "parse_error{\"attempt\":1,\"error\":\"no JSON value found in 2 bytes of text\"}"
                      "attempt_start{\"attempt\":2}reply{\"attempt\":2,\"bytes\":10}success{\"attempt\":2}");
    const char *report = coax_session_report(s, &len);
    CHECK(report && strncmp(report, "{\"outcome\":\"ok\",\"value\":{\"n\":7},\"error\":null,", 45) == 0);
    coax_engine_free(e);
}

static void test_polling_never_blocks(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    coax_session *s = start(e, "{\"name\":\"replay\",\"delay_ms\":30,\"replies\":[\"{\\\"n\\\": 1}\"]}", NULL);
    /* The agent sleeps 30 ms: a poll with timeout 0 returns at once, still running. */
    CHECK_INT(coax_engine_poll(e, 0), 1);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_RUNNING);
    CHECK(coax_session_report(s, NULL) == NULL);
    const char *why = "unset";
    CHECK_INT(coax_session_error(s, &why), COAX_FAILURE_NONE); /* running: no error yet */
    CHECK(why == NULL);
    /* How many 5 ms polls find it still running depends on the machine's load (a busy one may finish
    ** the sleep before the first): the loop must end, with the session done, not a count of turns. */
    int polls = 0;
    while (coax_engine_poll(e, 5) > 0 && polls < 1000) polls++;
    CHECK(polls < 1000);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_OK);
    why = "unset";
    CHECK_INT(coax_session_error(s, &why), COAX_FAILURE_NONE); /* succeeded: none */
    CHECK(why == NULL);
    CHECK_INT(coax_session_error(NULL, &why), COAX_FAILURE_NONE);
    coax_engine_free(e);
}

static void test_failures_reach_the_host(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    events ev = {{0}};
    coax_session *s = start(e, "{\"name\":\"replay\",\"replies\":[]}", &ev);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_AGENT_ERROR);
    CHECK(strstr(ev.log, "failure{\"attempt\":1,\"outcome\":\"agent_error\",\"message\":\"replay agent: no reply left (0 given)\"}"));
    CHECK(coax_session_value(s, NULL) == NULL);
    CHECK_INT(coax_outcome_exit_status(coax_session_outcome(s)), 3);
    const char *why = NULL;
    CHECK_INT(coax_session_error(s, &why), COAX_FAILURE_AGENT_ERROR);
    CHECK_STR(why, "replay agent: no reply left (0 given)");
    CHECK_STR(coax_failure_name(coax_session_error(s, NULL)), "agent_error");
    CHECK(strstr(coax_session_report(s, NULL),
                 "\"error\":{\"code\":\"agent_error\",\"message\":\"replay agent: no reply left (0 given)\"}"));
    coax_session_free(s); /* freeing one session early is fine */
    coax_engine_free(e);
}

/* Each failure a host can meet, as coax_session_error names it: the enum
** value, its outcome, and the report's error.code (its name). */
static void test_every_failure_is_named(void)
{
#define N_SCHEMA "return { schema = { type = 'object', properties = { n = { type = 'integer' } } }, "
    static const struct {
        const char *recipe, *agent;
        coax_session_failure failure;
        coax_outcome outcome;
        const char *code, *message;
    } cases[] = {
        {N_SCHEMA "prompt = 'p', max_attempts = 1 }", "{\"replies\":[\"no\"]}", COAX_FAILURE_EXHAUSTED,
         COAX_OUTCOME_EXHAUSTED, "exhausted", "1 attempt used up; the last failed: no JSON value found in 2 bytes of text"},
        {N_SCHEMA "prompt = 'p' }", "{\"replies\":[]}", COAX_FAILURE_AGENT_ERROR, COAX_OUTCOME_AGENT_ERROR,
         "agent_error", "replay agent: no reply left (0 given)"},
        {N_SCHEMA "prompt = 'p', agent = { call = function() return { refusal = 'I will not' } end } }", NULL,
         COAX_FAILURE_REFUSAL, COAX_OUTCOME_AGENT_ERROR, "refusal", "the model refused: I will not"},
        {N_SCHEMA "prompt = 'p', budget = { tokens = 1 } }", "{\"replies\":[]}", COAX_FAILURE_TOKENS,
         COAX_OUTCOME_LIMIT, "tokens", "token budget of 1 would be passed (0 used, 30 more for this call)"},
        {N_SCHEMA "prompt = 'p', budget = { deadline_ms = 1 } }", "{\"delay_ms\":50,\"replies\":[\"{}\"]}",
         COAX_FAILURE_DEADLINE, COAX_OUTCOME_LIMIT, "deadline", "the session's deadline passed"},
        {N_SCHEMA "prompt = function() while true do end end }", NULL, COAX_FAILURE_SCRIPT_LIMIT,
         COAX_OUTCOME_LIMIT, "limit", "prompt: script stopped: Lua instruction limit (100000) reached"},
        {N_SCHEMA "prompt = 'p' }", "{\"replies\":[\"[[[[[[[[[[1]]]]]]]]]]\"]}", COAX_FAILURE_REPLY_LIMIT,
         COAX_OUTCOME_LIMIT, "COAX_EDEPTH", NULL},
        {N_SCHEMA "prompt = function() error('no prompt') end }", NULL, COAX_FAILURE_SCRIPT_ERROR,
         COAX_OUTCOME_SCRIPT_ERROR, "script_error", NULL},
        {N_SCHEMA "}", NULL, COAX_FAILURE_INVALID_RECIPE, COAX_OUTCOME_INVALID, "invalid_recipe",
         "recipe field 'prompt' is required"},
        {"return { schema = { type = 5 }, prompt = 'p' }", NULL, COAX_FAILURE_INVALID_SCHEMA, COAX_OUTCOME_INVALID,
         "invalid_schema", NULL},
        {N_SCHEMA "prompt = 'p' }", "[1]", COAX_FAILURE_INVALID_AGENT_OPTIONS, COAX_OUTCOME_INVALID,
         "invalid_agent_options", "agent options must be a JSON object"},
    };
    coax_engine_options eo = {0};
    eo.lua_instructions = 100000;
    eo.limits.max_depth = 8;
    coax_engine *e;
    CHECK_INT(coax_engine_new(&eo, &e, NULL), COAX_OK);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *recipe = cases[i].recipe;
        coax_session_options o = {0};
        o.agent_json = cases[i].agent;
        coax_session *s = NULL;
        CHECK_INT(coax_session_from_text(e, recipe, strlen(recipe), "=t", &o, &s, NULL), COAX_OK);
        CHECK_INT(coax_session_run(s), cases[i].outcome);
        const char *why = NULL;
        CHECK_INT(coax_session_error(s, &why), cases[i].failure);
        CHECK(why != NULL);
        if (cases[i].message) CHECK_STR(why, cases[i].message);
        char code[64];
        snprintf(code, sizeof code, "\"error\":{\"code\":\"%s\",", cases[i].code);
        const char *rep = coax_session_report(s, NULL);
        CHECK(rep && strstr(rep, code) != NULL);
        if (cases[i].failure != COAX_FAILURE_REPLY_LIMIT) CHECK_STR(coax_failure_name(cases[i].failure), cases[i].code);
        coax_session_free(s);
    }
    coax_engine_free(e);
    CHECK_STR(coax_failure_name(COAX_FAILURE_NONE), "none");
    CHECK_STR(coax_failure_name(COAX_FAILURE_REPLY_LIMIT), "reply_limit");
    CHECK_STR(coax_failure_name(COAX_FAILURE_OUT_OF_MEMORY), "out_of_memory");
    CHECK_STR(coax_failure_name(COAX_FAILURE_SCHEMA_LIMIT), "schema_limit");
    CHECK_STR(coax_failure_name(COAX_FAILURE_TOOL_ROUNDS), "tool_rounds");
    CHECK_STR(coax_failure_name(COAX_FAILURE_COUNT), "unknown");
    CHECK_STR(coax_failure_name((coax_session_failure)-1), "unknown");
}

static void test_invalid_recipe_ends_at_once(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    coax_session *s;
    CHECK_INT(coax_session_from_text(e, "return 42", 9, "=bad", NULL, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_INVALID);
    const char *r = coax_session_report(s, NULL);
    CHECK(r && strstr(r, "\"message\":\"a recipe must return a table, not a number\""));
    CHECK_INT(coax_engine_poll(e, 0), 0);
    coax_engine_free(e);
}

static void test_missing_scripts_are_a_clear_error(void)
{
    coax_engine_options o = {0};
    o.script_dir = "/nonexistent";
    coax_engine *e;
    coax_error err;
    CHECK_INT(coax_engine_new(&o, &e, &err), COAX_EIO);
    CHECK_STR(err.msg, "coax scripts not found in /nonexistent (name their folder with the script_dir option or $COAX_LUA_PATH)");
}


static void test_every_byte_through_the_host_allocator(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    coax_engine_options o = {0};
    o.alloc = &al;
    coax_engine *e;
    CHECK_INT(coax_engine_new(&o, &e, NULL), COAX_OK);
    coax_session *s = start(e, "{\"name\":\"replay\",\"replies\":[\"{\\\"n\\\": 1}\"]}", NULL);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_OK);
    CHECK(c.live > 0);
    coax_engine_free(e);
    CHECK_INT(c.live, 0);
}

/* curl's torture idea across a whole extraction: fail the N-th allocation
** for every N, once ('persistent' 0) or from then on (1: the host's
** allocator has run dry, and Lua's retry after a collection fails too).
** Each run ends cleanly (engine creation fails with COAX_ENOMEM or a
** script-loading error, or the session ends ok or with a limit; its report
** is JSON or NULL), never in Lua's panic (abort), and nothing leaks. */
/* The recipe of the torture below: its prompt and on_submit use coax.json,
** whose calls make arenas that finalizers free. */
static const char *TORTURE_RECIPE =
    "local coax = require('coax') local json = coax.json "
    "return { schema = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } },"
    " prompt = function(input)"
    "  assert(coax.schema('{\"type\":\"integer\"}'):validate(1) and coax.extract('{\"n\":1}', { type = 'object' }).valid"
    "    and coax.example({ type = 'integer' }) and coax.repair(\"{'a': [1,],}\"))"
    /* the resolver runs inside the compilation: a failure there must not lose it */
    "  assert(coax.schema({ ['$id'] = 'http://a/b/', ['$ref'] = 'c' .. input },"
    "    { resolver = function(u) return '{\"type\":\"integer\"}' end }):validate(1))"
    "  return 'Give n for ' .. json.encode(json.decode('{\"x\":[1,{\"y\":2}]}')) .. input end,"
    " on_submit = function(v) return json.encode(v) ~= nil end }";

/* An agent whose request raises while its header lines are being read:
** C memory a box owns at that moment (lend_http.c's pending lines). */
static const char *TORTURE_AGENT_RECIPE =
    "local coax = require('coax') "
    "return { schema = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } }, prompt = 'n',"
    " agent = { call = function(request)"
    "  local ok, err = pcall(coax.http.request, { url = 'http://127.0.0.1:9/', headers = { { 'X-A', 'a' }, { 'bad name', 'x' } } })"
    "  assert(not ok) return { text = '{\"n\": 1}' } end } }";

static void allocation_failure_at_every_step(int persistent, const char *recipe, const char *agent_json)
{
    long n;
    for (n = 1;; n++) {
        counting c = {0, 0, persistent ? -n : n};
        coax_allocator al = {c_malloc, c_realloc, c_free, &c};
        coax_engine_options o = {0};
        o.alloc = &al;
        coax_engine *e = NULL;
        coax_code rc = coax_engine_new(&o, &e, NULL);
        if (rc != COAX_OK && rc != COAX_ENOMEM) printf("  engine: %s when allocation %ld fails\n", coax_code_name(rc), n);
        CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
        coax_outcome out = COAX_OUTCOME_OK;
        if (rc == COAX_OK) {
            coax_session_options so = {0};
            so.input = "x";
            so.input_len = 1;
            so.agent_json = agent_json;
            coax_session *s = NULL;
            rc = coax_session_from_text(e, recipe, strlen(recipe), "=t", &so, &s, NULL);
            CHECK(rc == COAX_OK || rc == COAX_ENOMEM);
            if (rc == COAX_OK) {
                out = coax_session_run(s);
                /* out of memory, whatever a script did with the failure */
                const char *message = NULL;
                coax_session_failure why = coax_session_error(s, &message);
                if (out != COAX_OUTCOME_OK && why != COAX_FAILURE_OUT_OF_MEMORY)
                    printf("  %s (%s) when allocation %ld fails: %.200s\n", coax_outcome_name(out), coax_failure_name(why),
                           n, message ? message : "");
                CHECK(out == COAX_OUTCOME_OK || why == COAX_FAILURE_OUT_OF_MEMORY);
                if (out != COAX_OUTCOME_OK) {
                    const char *r = coax_session_report(s, NULL);
                    CHECK(r == NULL || r[0] == '{');
                }
            }
            coax_engine_free(e);
        }
        if (c.live) printf("  leak of %ld bytes when allocation %ld fails (engine: %s)\n", c.live, n, coax_code_name(rc));
        CHECK_INT(c.live, 0);
        if (c.live) break;
        if (rc == COAX_OK && out == COAX_OUTCOME_OK && c.allocs < n) break; /* nothing left to fail */
        if (n > 200000) {
            CHECK(!"torture did not converge");
            break;
        }
    }
    CHECK(n > 100);
}

#define TORTURE_REPLIES "{\"name\":\"replay\",\"replies\":[\"{n: '1'}\"]}"
static void test_allocation_failure_at_every_step(void)
{
    allocation_failure_at_every_step(0, TORTURE_RECIPE, TORTURE_REPLIES);
}
static void test_allocation_failure_from_every_step_on(void)
{
    allocation_failure_at_every_step(1, TORTURE_RECIPE, TORTURE_REPLIES);
}
static void test_allocation_failure_in_an_agent(void) { allocation_failure_at_every_step(1, TORTURE_AGENT_RECIPE, NULL); }

/* An allocator that refuses the first 'refusals' requests for a block
** of about 100 KB (the string the recipe below concatenates: Lua's own
** allocation, which it tries again; string.rep's buffer it does not), and
** counts. */
typedef struct refusing {
    counting c;
    int refusals;
} refusing;

static bool refused(refusing *r, size_t n)
{
    if (n < 100000 || n > 100100 || r->refusals == 0) return false;
    r->refusals--;
    return true;
}
static void *r_malloc(void *ctx, size_t n) { return refused(ctx, n) ? NULL : c_malloc(&((refusing *)ctx)->c, n); }
static void *r_realloc(void *ctx, void *p, size_t o, size_t n)
{
    return refused(ctx, n) ? NULL : c_realloc(&((refusing *)ctx)->c, p, o, n);
}
static void r_free(void *ctx, void *p, size_t n) { c_free(&((refusing *)ctx)->c, p, n); }

/* Lua tries a failed allocation again after an emergency collection. When
** the host's allocator then gives, nothing failed: the script's own error
** after it is a script error (it was out_of_memory, "the host's allocator
** failed, and then: mine"). When it refuses the retry too, out of memory. */
static void test_allocation_retried_is_no_failure(void)
{
    static const char *recipe =
        "return { schema = { type = 'integer' }, prompt = 'n',"
        " on_submit = function(v) local big = string.rep('a', 50000) .. string.rep('b', 50000) error('mine ' .. #big) end }";
    for (int refusals = 0; refusals <= 3; refusals++) {
        refusing r = {{0, 0, 0}, refusals};
        coax_allocator al = {r_malloc, r_realloc, r_free, &r};
        coax_engine_options o = {0};
        o.alloc = &al;
        coax_engine *e = NULL;
        CHECK_INT(coax_engine_new(&o, &e, NULL), COAX_OK);
        coax_session_options so = {0};
        so.agent_json = "{\"name\":\"replay\",\"replies\":[\"1\"]}";
        coax_session *s = NULL;
        CHECK_INT(coax_session_from_text(e, recipe, strlen(recipe), "=t", &so, &s, NULL), COAX_OK);
        CHECK_INT(coax_session_run(s), refusals <= 1 ? COAX_OUTCOME_SCRIPT_ERROR : COAX_OUTCOME_LIMIT);
        const char *message = NULL;
        coax_session_failure why = coax_session_error(s, &message);
        if (refusals <= 1) {
            CHECK_INT(why, COAX_FAILURE_SCRIPT_ERROR);
            CHECK(message && strstr(message, "mine 100000") && !strstr(message, "allocator"));
        } else {
            CHECK_INT(why, COAX_FAILURE_OUT_OF_MEMORY);
        }
        CHECK_INT(r.refusals, refusals > 2 ? refusals - 2 : 0); /* a request and its one retry */
        coax_engine_free(e);
        CHECK_INT(r.c.live, 0);
    }
}

/* lua-cjson's buffers come from the state's allocator (engine/vendor/README.md):
** encode with its kept buffer and without, decode, and a decode's error,
** each failing where the allocator does; stock cjson exit()ed the host. */
static const char *TORTURE_CJSON_RECIPE =
    "return { schema = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } },"
    " prompt = function(input)"
    "  local c = require('cjson')"
    "  local t = c.decode('{\"x\":[1,{\"y\":\"\\\\u00e9\"}],\"z\":\"' .. string.rep('a', 3000) .. '\"}')"
    "  local a = c.encode(t)"
    "  c.encode_keep_buffer(false)"
    "  local b = c.encode({ t, 'x\\0' })"
    "  assert(not pcall(c.decode, '[1,'))"
    "  return 'n ' .. #a .. #b .. input end }";
/* The API fed what a host should not give: a length no text has, a device
** for a recipe file, NULL where an accessor or a filler is called. */
static void test_garbage_from_the_host(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    coax_session *s = NULL;
    coax_error err;
    CHECK_INT(coax_session_from_text(e, "return {}", SIZE_MAX, "=x", NULL, &s, &err), COAX_ESIZE);
    CHECK(s == NULL);
    CHECK_INT(coax_session_from_file(e, "/dev/zero", NULL, &s, &err), COAX_EIO);
    CHECK_STR(err.msg, "cannot open recipe /dev/zero: not a regular file");
    coax_engine_free(e);
    coax_limits_default(NULL);
    coax_extract_options_default(NULL);
    CHECK_INT(coax_schema_draft(NULL), COAX_DRAFT_AUTO);
}

static void test_allocation_failure_in_cjson(void)
{
    allocation_failure_at_every_step(0, TORTURE_CJSON_RECIPE, TORTURE_REPLIES);
    allocation_failure_at_every_step(1, TORTURE_CJSON_RECIPE, TORTURE_REPLIES);
}


/* ---- the host agent ---- */

static const char *HOST = "{\"name\":\"host\",\"temperature\":0}";

static void test_host_agent_answers_later(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    events ev = {{0}};
    coax_session *s = start(e, HOST, &ev);
    coax_error err = {0};
    /* Asked for nothing yet: answering is misuse, and changes nothing. */
    CHECK_INT(coax_session_host_reply(s, "{}", 2, -1, -1, &err), COAX_EINVAL);
    CHECK_STR(err.msg, "the session is not waiting for its host");
    CHECK(coax_session_host_request(s, NULL) == NULL);
    CHECK_INT(coax_engine_poll(e, 0), 1);
    size_t len;
    const char *req = coax_session_host_request(s, &len);
    /* The schema is in the prompt (the host did not say it sends it itself) and beside it. */
    CHECK_STR(req, "{\"messages\":[{\"role\":\"user\",\"content\":\"Give n for x\\n\\nReply with JSON that matches "
                   "this JSON Schema:\\n{\\\"properties\\\":{\\\"n\\\":{\\\"type\\\":\\\"integer\\\"}},"
                   "\\\"required\\\":[\\\"n\\\"],\\\"type\\\":\\\"object\\\"}\"}],\"schema\":{\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":"
                   "[\"n\"],\"type\":\"object\"},\"options\":{\"temperature\":0}}");
    CHECK(req && strlen(req) == len);
    CHECK(strstr(ev.log, "host_request{\"attempt\":1,\"request\":{\"messages\":") != NULL);
    /* Frames go by: the session waits without blocking. */
    for (int i = 0; i < 5; i++) CHECK_INT(coax_engine_poll(e, 0), 1);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_RUNNING); /* only the host can move it */
    CHECK_INT(coax_session_host_reply(s, "{\"n\": \"x\"}", 10, 5, 3, &err), COAX_OK);
    CHECK_INT(coax_session_host_reply(s, "{\"n\": 2}", 8, 5, 3, &err), COAX_EINVAL); /* answered already */
    CHECK_INT(coax_engine_poll(e, 0), 1); /* a validation error: asked again */
    req = coax_session_host_request(s, NULL);
    CHECK(req && strstr(req, "{\"role\":\"assistant\",\"content\":\"{\\\"n\\\": \\\"x\\\"}\"}") != NULL);
    CHECK_INT(coax_session_host_reply(s, "{\"n\": 2}", 8, 6, 4, &err), COAX_OK);
    CHECK_INT(coax_engine_poll(e, 0), 0);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_OK);
    CHECK_STR(coax_session_value(s, NULL), "{\"n\":2}");
    const char *rep = coax_session_report(s, NULL);
    CHECK(rep && strstr(rep, "\"input_tokens\":11,\"output_tokens\":7") != NULL);
    CHECK_INT(coax_session_host_reply(s, "{}", 2, -1, -1, &err), COAX_EINVAL); /* ended */
    CHECK_INT(coax_session_host_reply(NULL, "{}", 2, -1, -1, &err), COAX_EINVAL);
    CHECK_INT(coax_session_host_fail(NULL, "x", &err), COAX_EINVAL);
    coax_engine_free(e);
}

static void answer_at_once(void *ud, coax_session *s, const char *name, const char *data)
{
    (void)ud;
    (void)data;
    if (!strcmp(name, "host_request")) CHECK_INT(coax_session_host_reply(s, "{\"n\": 9}", 8, -1, -1, NULL), COAX_OK);
}

static void test_host_agent_answers_inside_the_event(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    coax_session_options o = {0};
    o.agent_json = HOST;
    o.on_event = answer_at_once;
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(e, RECIPE, strlen(RECIPE), "=test", &o, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_OK); /* the blocking call works when the host answers at once */
    CHECK_STR(coax_session_value(s, NULL), "{\"n\":9}");
    coax_engine_free(e);
}

static void test_host_agent_failure_is_an_agent_error(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    coax_session *s = start(e, HOST, NULL);
    coax_engine_poll(e, 0);
    CHECK_INT(coax_session_host_fail(s, "network down", NULL), COAX_OK);
    CHECK_INT(coax_engine_poll(e, 0), 0);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_AGENT_ERROR);
    const char *rep = coax_session_report(s, NULL);
    CHECK(rep && strstr(rep, "\"error\":{\"code\":\"agent_error\",\"message\":\"network down\"}") != NULL);
    /* Freeing a session that waits on its host, then the engine: nothing leaks (valgrind, ASan). */
    coax_session *t = start(e, HOST, NULL);
    coax_engine_poll(e, 0);
    CHECK(coax_session_host_request(t, NULL) != NULL);
    coax_session_free(t);
    coax_engine_free(e);
}

static bool even_only(void *ud, coax_session *s, const char *value, size_t len, char *reason, size_t cap)
{
    (void)s;
    int *calls = ud;
    (*calls)++;
    CHECK_INT(strlen(value), len);
    if (strstr(value, "\"n\":2") || strstr(value, "\"n\":4")) return true;
    snprintf(reason, cap, "n must be even, not %s", value);
    return false;
}

static void test_c_on_submit_rejects_and_feeds_back(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    int calls = 0;
    coax_session_options o = {0};
    o.agent_json = "{\"name\":\"replay\",\"replies\":[\"{\\\"n\\\": 3}\",\"{\\\"n\\\": 4}\"]}";
    o.on_submit = even_only;
    o.submit_ud = &calls;
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(e, RECIPE, strlen(RECIPE), "=test", &o, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_OK);
    CHECK_INT(calls, 2);
    CHECK_STR(coax_session_value(s, NULL), "{\"n\":4}");
    const char *rep = coax_session_report(s, NULL);
    /* the attempt keeps the host's reason, and the feedback the model got */
    CHECK(rep && strstr(rep, "\"outcome\":\"rejected\",\"reason\":\"n must be even, not {\\\"n\\\":3}\"") != NULL);
    CHECK(rep && strstr(rep, "\"feedback\":\"Attempt 1/3: your JSON matches the schema but was rejected: n must be "
                             "even, not {\\\"n\\\":3}") != NULL);
    coax_engine_free(e);
}

static bool long_reason(void *ud, coax_session *s, const char *value, size_t len, char *reason, size_t cap)
{
    (void)ud, (void)s, (void)value, (void)len;
    /* 199 bytes, then "é" across bytes 199 and 200, then more */
    snprintf(reason, cap, "%0199d\xc3\xa9 and more", 0);
    return false;
}

/* An event's text is cut within 200 bytes at a whole character: the host
** and the recipe read valid UTF-8. */
static void test_event_texts_are_cut_at_a_character(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    events ev = {{0}};
    coax_session_options o = {0};
    o.agent_json = "{\"name\":\"replay\",\"replies\":[\"{\\\"n\\\": 3}\"]}";
    o.max_attempts = 1;
    o.on_submit = long_reason;
    o.on_event = on_event;
    o.event_ud = &ev;
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(e, RECIPE, strlen(RECIPE), "=test", &o, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_EXHAUSTED);
    char want[300];
    snprintf(want, sizeof want, "rejection{\"attempt\":1,\"reason\":\"%0199d\"}", 0);
    CHECK(strstr(ev.log, want) != NULL);
    coax_engine_free(e);
}

static void test_session_from_schema_and_prompt(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    /* Key order, big integers and [] survive; "]]" and "]=]" in the texts cannot end Lua's strings. */
    const char *schema = "{\"type\":\"object\",\"properties\":{\"z\":{\"type\":\"integer\"},\"a\":{\"enum\":[[],\"]]\",\"]=]\"]}},"
                         "\"required\":[\"z\",\"a\"]}";
    coax_session_options o = {0};
    o.input = "]==] ok";
    o.input_len = strlen(o.input);
    o.agent_json = "{\"name\":\"host\"}";
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_schema(e, schema, strlen(schema), "Find z in: {{input}} ]]", &o, &s, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    const char *req = coax_session_host_request(s, NULL);
    CHECK(req && strstr(req, "\"content\":\"Find z in: ]==] ok ]]\\n\\nReply with JSON") != NULL);
    CHECK(req && strstr(req, "\"schema\":{\"type\":\"object\",\"properties\":{\"z\":{\"type\":\"integer\"},"
                             "\"a\":{\"enum\":[[],\"]]\",\"]=]\"]}},\"required\":[\"z\",\"a\"]}") != NULL);
    CHECK_INT(coax_session_host_reply(s, "{\"z\": 12345678901234567890, \"a\": []}", 36, -1, -1, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    CHECK_STR(coax_session_value(s, NULL), "{\"z\":12345678901234567890,\"a\":[]}");
    /* Not JSON, or not a schema: invalid at once, with the reason. */
    CHECK_INT(coax_session_from_schema(e, "{nope", 5, "p", &o, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_INVALID);
    CHECK(strstr(coax_session_report(s, NULL), "the schema is not JSON") != NULL);
    const char *why = NULL;
    CHECK_INT(coax_session_error(s, &why), COAX_FAILURE_INVALID_SCHEMA);
    CHECK_STR(why, "the schema is not JSON: expected a string key (line 1, column 2)");
    CHECK_INT(coax_session_from_schema(e, "{\"type\":5}", 10, "p", &o, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_INVALID);
    CHECK_INT(coax_session_error(s, &why), COAX_FAILURE_INVALID_SCHEMA);
    /* Past a limit of the engine's: a limit, as for a schema file */
    enum { DEEP = COAX_DEFAULT_MAX_DEPTH + 1 };
    char deep[2 * DEEP];
    memset(deep, '[', DEEP);
    memset(deep + DEEP, ']', DEEP);
    CHECK_INT(coax_session_from_schema(e, deep, sizeof deep, "p", &o, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_LIMIT);
    CHECK_INT(coax_session_error(s, &why), COAX_FAILURE_SCHEMA_LIMIT);
    CHECK_INT(coax_session_from_schema(e, NULL, 3, "p", &o, &s, NULL), COAX_EINVAL);
    CHECK_INT(coax_session_from_schema(e, "{}", 2, NULL, &o, &s, NULL), COAX_EINVAL);
    coax_engine_free(e);
}

/* The command agent from C: the host names the program; the engine polls
** it without blocking; freeing the engine mid-run kills and reaps it. */
static void test_command_agent_from_c(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    coax_session_options o = {0};
    o.input = "n is 7";
    o.input_len = strlen(o.input);
    o.agent_json = "{\"name\":\"command\"}";
    o.command = "cat >/dev/null; sleep 0.2; echo '{\"n\": 7}'";
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(e, RECIPE, strlen(RECIPE), "=test", &o, &s, NULL), COAX_OK);
    int frames = 0;
    while (coax_engine_poll(e, 0) > 0) {
        frames++;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    CHECK(frames > 5); /* the poll came back while the program ran */
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_OK);
    CHECK_STR(coax_session_value(s, NULL), "{\"n\":7}");
    /* Freed while its program runs: killed and reaped, nothing leaks. */
    o.command = "sleep 30";
    CHECK_INT(coax_session_from_text(e, RECIPE, strlen(RECIPE), "=test", &o, &s, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_RUNNING);
    coax_engine_free(e);
}

/* A host that calls back into the engine from its event callback: it polls
** or runs again (nothing happens: the poll outside goes on), frees the
** session being told, another one, or the engine (when the poll returns).
** Nothing is used after it is freed (the ASan run checks) and nothing
** leaks. */
typedef struct reentry {
    coax_engine *engine;
    coax_session *other;
    const char *what;
    int events, inner_polls, inner_runs;
    size_t inner_running;
} reentry;

static void reenter(void *ud, coax_session *s, const char *name, const char *data)
{
    (void)data;
    reentry *r = ud;
    r->events++;
    if (strcmp(name, "reply")) return;
    if (!strcmp(r->what, "poll")) {
        r->inner_running = coax_engine_poll(r->engine, 1000);
        r->inner_polls++;
    } else if (!strcmp(r->what, "run")) {
        r->inner_runs += coax_session_run(s) == COAX_OUTCOME_RUNNING;
    } else if (!strcmp(r->what, "free self")) {
        coax_session_free(s);
    } else if (!strcmp(r->what, "free other") && r->other) {
        coax_session_free(r->other);
        r->other = NULL;
    } else if (!strcmp(r->what, "free engine")) {
        coax_engine_free(r->engine);
    }
}

static void test_callbacks_reenter_safely(void)
{
    const char *replies = "{\"name\":\"replay\",\"replies\":[\"no\",\"{\\\"n\\\": 1}\"]}";
    const char *whats[] = {"poll", "run", "free self", "free other", "free engine"};
    for (size_t w = 0; w < sizeof whats / sizeof *whats; w++) {
        counting c = {0, 0, 0};
        coax_allocator al = {c_malloc, c_realloc, c_free, &c};
        coax_engine_options eo = {0};
        eo.alloc = &al;
        reentry r = {NULL, NULL, whats[w], 0, 0, 0, 0};
        CHECK_INT(coax_engine_new(&eo, &r.engine, NULL), COAX_OK);
        coax_session_options o = {0};
        o.input = "x";
        o.input_len = 1;
        o.agent_json = replies;
        coax_session *other, *s;
        CHECK_INT(coax_session_from_text(r.engine, RECIPE, strlen(RECIPE), "=b", &o, &other, NULL), COAX_OK);
        r.other = other;
        o.on_event = reenter;
        o.event_ud = &r;
        CHECK_INT(coax_session_from_text(r.engine, RECIPE, strlen(RECIPE), "=a", &o, &s, NULL), COAX_OK);
        if (!strcmp(r.what, "free engine")) {
            CHECK_INT(coax_engine_poll(r.engine, 1000), 0); /* the engine is gone when it returns */
            CHECK_INT(r.events, 2);                         /* attempt_start, reply: nothing after */
            CHECK_INT(c.live, 0);
            continue;
        }
        /* a session freed inside is told nothing more; the step it was told
        ** in goes to its end, the next attempt's start (a step starts one
        ** agent call at most), and the run returns it running, freed */
        CHECK_INT(coax_session_run(s), strcmp(r.what, "free self") ? COAX_OUTCOME_OK : COAX_OUTCOME_RUNNING);
        CHECK_INT(r.events, strcmp(r.what, "free self") ? 6 : 2); /* start, reply, parse_error, start, ... */
        if (!strcmp(r.what, "poll")) {
            CHECK_INT(r.inner_polls, 2);
            CHECK_INT(r.inner_running, 2); /* counted, not moved */
        }
        if (!strcmp(r.what, "run")) CHECK_INT(r.inner_runs, 2);
        if (!strcmp(r.what, "free other")) CHECK(r.other == NULL);
        while (coax_engine_poll(r.engine, 1000) > 0) {
        }
        if (strcmp(r.what, "free other") != 0 && r.other) CHECK_INT(coax_session_outcome(other), COAX_OUTCOME_OK);
        coax_engine_free(r.engine);
        CHECK_INT(c.live, 0);
    }
}

#define TESTS                                          \
    X(test_allocation_failure_at_every_step)           \
    X(test_allocation_failure_from_every_step_on)      \
    X(test_allocation_failure_in_an_agent)             \
    X(test_allocation_failure_in_cjson)                \
    X(test_allocation_retried_is_no_failure)           \
    X(test_garbage_from_the_host)                      \
    X(test_blocking_run_with_events)                   \
    X(test_polling_never_blocks)                       \
    X(test_failures_reach_the_host)                    \
    X(test_every_failure_is_named)                     \
    X(test_invalid_recipe_ends_at_once)                \
    X(test_missing_scripts_are_a_clear_error)          \
    X(test_every_byte_through_the_host_allocator)      \
    X(test_host_agent_answers_later)                   \
    X(test_host_agent_answers_inside_the_event)        \
    X(test_host_agent_failure_is_an_agent_error)       \
    X(test_c_on_submit_rejects_and_feeds_back)         \
    X(test_event_texts_are_cut_at_a_character)         \
    X(test_session_from_schema_and_prompt)             \
    X(test_command_agent_from_c)                       \
    X(test_callbacks_reenter_safely)
#include "test.h"
