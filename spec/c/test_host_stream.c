/* The host agent streams (README, "Streaming"; issue 22): the host hands
** the reply's text over in pieces with coax_session_host_piece and the
** session tells "partial" events on the following polls, exactly as it does
** for an HTTP agent's streamed reply (the same code, lend_stream.c). Exact
** partial sequences for pieces of 1 and 7 bytes, monotone; stop_early cuts
** a doomed reply and asks again; calls at the wrong time; a piece that ends
** inside a UTF-8 character; a secret cut across pieces; a piece past
** max_input; a whole reply that is not its pieces. */
#include "coax.h"

#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "test.h"

/* The host agent's recipes: a schema, and the stream options. */
#define HOST(schema, stream) "return { " schema ", agent = 'host', stream = { " stream " } }"

#define MONSTER_SCHEMA                                                                                       \
    "schema = { type = 'object', properties = { name = { type = 'string' }, hp = { type = 'integer' },"    \
    " moves = { type = 'array', items = { type = 'string' } } }, required = { 'name', 'hp' } },"          \
    " prompt = 'Describe {{input}}'"

static const char *REPLY = "{\"name\": \"Grue\", \"hp\": 40, \"moves\": [\"lurk\", \"eat\"]}";

#define MAX_PARTIALS 64

typedef struct seen {
    char partial[MAX_PARTIALS][256]; /* the data of each partial event, in order */
    int npartials;
    int requests;                    /* host_request events */
    char log[1024];                  /* the other events' names */
} seen;

static void nap_ms(double ms);
static double partial_nap_ms; /* how long the host sleeps in each partial it is told */

static void on_event(void *ud, coax_session *s, const char *name, const char *data)
{
    (void)s;
    seen *sn = ud;
    if (!strcmp(name, "partial")) {
        if (sn->npartials < MAX_PARTIALS) snprintf(sn->partial[sn->npartials], sizeof sn->partial[0], "%s", data);
        sn->npartials++;
        if (partial_nap_ms > 0) nap_ms(partial_nap_ms);
        return;
    }
    if (!strcmp(name, "host_request")) sn->requests++;
    size_t n = strlen(sn->log);
    snprintf(sn->log + n, sizeof sn->log - n, "%s%s", n ? " " : "", name);
}

/* A new engine (options 'eo', NULL: defaults) and a session of 'recipe' on it. */
static coax_session *start(coax_engine **e, const coax_engine_options *eo, const char *recipe, seen *sn)
{
    memset(sn, 0, sizeof *sn);
    CHECK_INT(coax_engine_new(eo, e, NULL), COAX_OK);
    coax_session_options o = {0};
    o.input = "the grue";
    o.input_len = strlen(o.input);
    o.on_event = on_event;
    o.event_ud = sn;
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(*e, recipe, strlen(recipe), "=host", &o, &s, NULL), COAX_OK);
    return s;
}

/* The host answers the whole reply; the next poll takes it, to 'outcome'. */
static void answer(coax_engine *e, coax_session *s, const char *text, coax_outcome outcome)
{
    CHECK_INT(coax_session_host_reply(s, text, strlen(text), -1, -1, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    CHECK_INT(coax_session_outcome(s), outcome);
}

static void nap_ms(double ms)
{
    struct timespec ts = {0, (long)(ms * 1e6)};
    nanosleep(&ts, NULL);
}

/* The frames after a piece: polled until a partial is told, or for 40 ms
** when the piece changed nothing shown (a partial also waits four times
** what the last one cost: the polls give it that time). */
static void frames(coax_engine *e, seen *sn)
{
    int before = sn->npartials;
    for (int i = 0; i < 80 && sn->npartials == before; i++) {
        coax_engine_poll(e, 0);
        if (sn->npartials == before) nap_ms(0.5);
    }
}

/* Feeds 'text' in pieces of 'size' bytes, a frame after each. */
static void feed(coax_engine *e, coax_session *s, seen *sn, const char *text, size_t size)
{
    size_t len = strlen(text);
    for (size_t at = 0; at < len; at += size) {
        coax_error err = {0};
        CHECK_INT(coax_session_host_piece(s, text + at, len - at < size ? len - at : size, &err), COAX_OK);
        frames(e, sn);
    }
}

/* Every part a partial lists complete has the same value in every later
** partial and in the final value. */
static void check_monotone(const seen *sn, const char *final)
{
    coax_arena *a = coax_arena_new(NULL);
    int n = sn->npartials < MAX_PARTIALS ? sn->npartials : MAX_PARTIALS;
    const coax_value *values[MAX_PARTIALS + 1], *complete[MAX_PARTIALS];
    for (int i = 0; i <= n; i++) {
        const char *text = i < n ? sn->partial[i] : final;
        coax_value *v = NULL;
        CHECK_INT(coax_parse(a, text, strlen(text), NULL, &v, NULL), COAX_OK);
        values[i] = i < n && v ? coax_object_get(v, "value", 5) : v;
        if (i < n) complete[i] = v ? coax_object_get(v, "complete", 8) : NULL;
    }
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < coax_value_len(complete[i]); k++) {
            size_t len;
            const char *ptr = coax_value_text(coax_array_get(complete[i], k), &len);
            const coax_value *told = NULL;
            CHECK_INT(coax_pointer_get(values[i], ptr, len, &told), COAX_OK);
            for (int j = i + 1; j <= n && told; j++) {
                const coax_value *later = NULL;
                CHECK_INT(coax_pointer_get(values[j], ptr, len, &later), COAX_OK);
                CHECK_INT(later ? coax_value_equal(told, later, NULL) : 0, 1);
            }
        }
    coax_arena_free(a);
}

/* The expected partials, each {"value": V, "complete": [C], "in_progress": P, "attempt": 1}. */
typedef struct want {
    const char *value, *complete, *in_progress;
} want;

static void check_partials(const seen *sn, const want *w, int n, int attempt)
{
    CHECK_INT(sn->npartials, n);
    for (int i = 0; i < n && i < sn->npartials; i++) {
        char text[256];
        snprintf(text, sizeof text, "{\"value\":%s,\"complete\":[%s],\"in_progress\":%s,\"attempt\":%d}", w[i].value,
                 w[i].complete, w[i].in_progress, attempt);
        CHECK_STR(sn->partial[i], text);
    }
}

/* One session fed REPLY in pieces of 'size' bytes, then answered whole. */
static void run_pieces(size_t size, const want *w, int n)
{
    coax_engine *e;
    seen sn;
    coax_session *s = start(&e, NULL, HOST(MONSTER_SCHEMA, "every_ms = 0"), &sn);
    coax_engine_poll(e, 0);
    CHECK_INT(sn.requests, 1);
    feed(e, s, &sn, REPLY, size);
    check_partials(&sn, w, n, 1);
    answer(e, s, REPLY, COAX_OUTCOME_OK);
    const char *value = coax_session_value(s, NULL);
    CHECK_STR(value, "{\"name\":\"Grue\",\"hp\":40,\"moves\":[\"lurk\",\"eat\"]}");
    if (value) check_monotone(&sn, value);
    CHECK(strstr(coax_session_report(s, NULL), "\"bytes_received\":52") != NULL);
    CHECK(strstr(coax_session_report(s, NULL), "stopped_early") == NULL);
    coax_engine_free(e);
}

#define NH40 "{\"name\":\"Grue\",\"hp\":40," /* the value's start once "hp" is complete */

/* Every piece that changes what is shown is told the next frame: a key
** as it is written, a string as far as it goes, a number once a delimiter
** closed it; a part complete once nothing later can change it. */
static void test_partials_of_one_byte_pieces(void)
{
    static const want w[] = {
        {"{}", "", "\"\""},
        {"{}", "", "\"/\""},
        {"{}", "", "\"/n\""},
        {"{}", "", "\"/na\""},
        {"{}", "", "\"/nam\""},
        {"{}", "", "\"/name\""},
        {"{}", "", "\"/name\""},
        {"{\"name\":\"\"}", "", "\"/name\""},
        {"{\"name\":\"G\"}", "", "\"/name\""},
        {"{\"name\":\"Gr\"}", "", "\"/name\""},
        {"{\"name\":\"Gru\"}", "", "\"/name\""},
        {"{\"name\":\"Grue\"}", "", "\"/name\""},
        {"{\"name\":\"Grue\"}", "", "\"/name\""},
        {"{\"name\":\"Grue\"}", "\"/name\"", "\"\""},
        {"{\"name\":\"Grue\"}", "\"/name\"", "\"/\""},
        {"{\"name\":\"Grue\"}", "\"/name\"", "\"/h\""},
        {"{\"name\":\"Grue\"}", "\"/name\"", "\"/hp\""},
        {"{\"name\":\"Grue\"}", "\"/name\"", "\"/hp\""},
        {"{\"name\":\"Grue\"}", "\"/name\"", "\"/hp\""},
        {"{\"name\":\"Grue\"}", "\"/name\"", "\"/hp\""},
        {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"\""},
        {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"/\""},
        {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"/m\""},
        {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"/mo\""},
        {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"/mov\""},
        {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"/move\""},
        {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"/moves\""},
        {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"/moves\""},
        {NH40 "\"moves\":[]}", "\"/name\",\"/hp\"", "\"/moves\""},
        {NH40 "\"moves\":[\"\"]}", "\"/name\",\"/hp\"", "\"/moves/0\""},
        {NH40 "\"moves\":[\"l\"]}", "\"/name\",\"/hp\"", "\"/moves/0\""},
        {NH40 "\"moves\":[\"lu\"]}", "\"/name\",\"/hp\"", "\"/moves/0\""},
        {NH40 "\"moves\":[\"lur\"]}", "\"/name\",\"/hp\"", "\"/moves/0\""},
        {NH40 "\"moves\":[\"lurk\"]}", "\"/name\",\"/hp\"", "\"/moves/0\""},
        {NH40 "\"moves\":[\"lurk\"]}", "\"/name\",\"/hp\"", "\"/moves/0\""},
        {NH40 "\"moves\":[\"lurk\"]}", "\"/name\",\"/hp\",\"/moves/0\"", "\"/moves\""},
        {NH40 "\"moves\":[\"lurk\",\"\"]}", "\"/name\",\"/hp\",\"/moves/0\"", "\"/moves/1\""},
        {NH40 "\"moves\":[\"lurk\",\"e\"]}", "\"/name\",\"/hp\",\"/moves/0\"", "\"/moves/1\""},
        {NH40 "\"moves\":[\"lurk\",\"ea\"]}", "\"/name\",\"/hp\",\"/moves/0\"", "\"/moves/1\""},
        {NH40 "\"moves\":[\"lurk\",\"eat\"]}", "\"/name\",\"/hp\",\"/moves/0\"", "\"/moves/1\""},
        {NH40 "\"moves\":[\"lurk\",\"eat\"]}", "\"/name\",\"/hp\",\"/moves/0\"", "\"/moves/1\""},
        {NH40 "\"moves\":[\"lurk\",\"eat\"]}", "\"/name\",\"/hp\",\"/moves\"", "\"\""},
        {NH40 "\"moves\":[\"lurk\",\"eat\"]}", "\"\"", "null"},
    };
    run_pieces(1, w, (int)(sizeof w / sizeof *w));
}

static const want SEVEN[] = {
    {"{}", "", "\"/name\""},
    {"{\"name\":\"Grue\"}", "", "\"/name\""},
    {"{\"name\":\"Grue\"}", "\"/name\"", "\"/hp\""},
    {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"/\""},
    {"{\"name\":\"Grue\",\"hp\":40}", "\"/name\",\"/hp\"", "\"/moves\""},
    {NH40 "\"moves\":[\"lurk\"]}", "\"/name\",\"/hp\"", "\"/moves/0\""},
    {NH40 "\"moves\":[\"lurk\",\"eat\"]}", "\"/name\",\"/hp\",\"/moves/0\"", "\"/moves/1\""},
    {NH40 "\"moves\":[\"lurk\",\"eat\"]}", "\"\"", "null"},
};

static void test_partials_of_seven_byte_pieces(void) { run_pieces(7, SEVEN, (int)(sizeof SEVEN / sizeof *SEVEN)); }

/* The next partial waits four times what the last one cost, and that cost
** was read on the monotonic clock, which also counts a wait for a core: on
** a loaded machine a partial that took 10 ms to get the CPU back made the
** next wait 40 ms, past the frames above, and the pieces told changed from
** run to run. The cost is the thread's CPU time now: a host that sleeps
** 15 ms in each partial (standing in for that wait) sees the same partials. */
static void test_partials_whatever_the_host_waits_in_them(void)
{
    partial_nap_ms = 15;
    run_pieces(7, SEVEN, (int)(sizeof SEVEN / sizeof *SEVEN));
    partial_nap_ms = 0;
}


#define COUNT_SCHEMA                                                                                            \
    "schema = { type = 'object', properties = { count = { type = 'integer' }, items = { type = 'array',"      \
    " items = { type = 'string' } } }, required = { 'count', 'items' } }, prompt = 'Count {{input}}'"

static const char *BAD = "{\"count\": \"abc\", \"items\": [\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"]}";
static const char *GOOD = "{\"count\": 2, \"items\": [\"a\", \"b\"]}";

/* Feeds 'text' in pieces of 'size' bytes until a call fails; returns its code. */
static coax_code feed_until(coax_session *s, const char *text, size_t size, size_t *fed, coax_error *err)
{
    size_t len = strlen(text);
    for (*fed = 0; *fed < len;) {
        size_t n = len - *fed < size ? len - *fed : size;
        coax_code rc = coax_session_host_piece(s, text + *fed, n, err);
        *fed += n;
        if (rc) return rc;
    }
    return COAX_OK;
}

/* The doomed part closes at byte 15; the pieces check the reply each time
** the bytes have doubled (7, 14, 28): the piece that ends at byte 28 gets
** COAX_ECANCELED, and so does every answer to that request after it. The
** next poll fails the attempt, stopped early, and asks again. */
static void test_stop_early_cancels_the_hosts_request(void)
{
    coax_engine *e;
    seen sn;
    coax_session *s = start(&e, NULL, HOST(COUNT_SCHEMA, "partials = false, stop_early = true"), &sn);
    coax_engine_poll(e, 0);
    size_t fed;
    coax_error err = {0};
    CHECK_INT(feed_until(s, BAD, 7, &fed, &err), COAX_ECANCELED);
    CHECK_INT(fed, 28);
    const char *why = "the reply was stopped early (stream.stop_early): 1 validation error, the first at '/count': "
                      "expected integer, got string \"abc\"; cancel the request: the next host_request asks again";
    CHECK_STR(err.msg, why);
    memset(&err, 0, sizeof err);
    CHECK_INT(coax_session_host_piece(s, "\"", 1, &err), COAX_ECANCELED);
    CHECK_STR(err.msg, why);
    CHECK_INT(coax_session_host_reply(s, BAD, strlen(BAD), -1, -1, NULL), COAX_ECANCELED);
    CHECK_INT(coax_session_host_fail(s, "gave up", NULL), COAX_ECANCELED);
    CHECK(coax_session_host_request(s, NULL) == NULL);
    CHECK_INT(sn.requests, 1);
    coax_engine_poll(e, 0);
    CHECK_INT(sn.requests, 2);
    CHECK_STR(sn.log, "attempt_start host_request reply validation_error attempt_start host_request");
    CHECK(coax_session_host_request(s, NULL) != NULL);
    CHECK_INT(feed_until(s, GOOD, 7, &fed, NULL), COAX_OK);
    answer(e, s, GOOD, COAX_OUTCOME_OK);
    const char *report = coax_session_report(s, NULL);
    CHECK(strstr(report, "\"outcome\":\"invalid\",\"reason\":\"1 validation error, the first at '/count': expected "
                         "integer, got string \\\"abc\\\"\"") != NULL);
    CHECK(strstr(report, "\"bytes_received\":28,\"stopped_early\":true") != NULL);
    CHECK(strstr(report, "\"bytes_received\":33") != NULL);
    /* the feedback went back with the errors */
    const char *request = coax_session_host_request(s, NULL);
    CHECK(request == NULL);
    coax_engine_free(e);
}

/* With partials on, a partial built for telling finds the reply doomed: the
** poll stops it and asks again at once; the host hears the new request. */
static void test_stop_early_found_by_a_poll(void)
{
    coax_engine *e;
    seen sn;
    coax_session *s = start(&e, NULL, HOST(COUNT_SCHEMA, "stop_early = true, every_ms = 0"), &sn);
    coax_engine_poll(e, 0);
    size_t fed;
    /* checked at 13 bytes ("abc" still open), not again before 26 */
    CHECK_INT(feed_until(s, "{\"count\": \"ab", 13, &fed, NULL), COAX_OK);
    CHECK_INT(feed_until(s, "c\", \"it", 7, &fed, NULL), COAX_OK);
    frames(e, &sn);
    CHECK_INT(sn.npartials, 0);
    CHECK_INT(sn.requests, 2);
    CHECK_STR(sn.log, "attempt_start host_request reply validation_error attempt_start host_request");
    CHECK_INT(feed_until(s, GOOD, 34, &fed, NULL), COAX_OK);
    answer(e, s, GOOD, COAX_OUTCOME_OK);
    CHECK(strstr(coax_session_report(s, NULL), "\"bytes_received\":20,\"stopped_early\":true") != NULL);
    coax_engine_free(e);
}

/* Calls at the wrong time are errors that say so, never a crash. */
static void test_pieces_at_the_wrong_time(void)
{
    coax_engine *e;
    seen sn;
    coax_session *s = start(&e, NULL, HOST(MONSTER_SCHEMA, ""), &sn);
    coax_error err = {0};
    CHECK_INT(coax_session_host_piece(NULL, "{", 1, &err), COAX_EINVAL);
    CHECK_STR(err.msg, "coax_session_host_piece: NULL argument");
    CHECK_INT(coax_session_host_piece(s, NULL, 3, &err), COAX_EINVAL);
    CHECK_INT(coax_session_host_piece(s, "{", 1, &err), COAX_EINVAL); /* not polled: nothing asked yet */
    CHECK_STR(err.msg, "the session is not waiting for its host");
    coax_engine_poll(e, 0);
    CHECK_INT(coax_session_host_piece(s, "{\"name\": \"Grue\", ", 17, NULL), COAX_OK);
    CHECK_INT(coax_session_host_piece(s, "", 0, NULL), COAX_OK); /* an empty piece is a piece */
    CHECK_INT(coax_session_host_piece(s, "\"hp\": 4}", 8, NULL), COAX_OK);
    CHECK_INT(coax_session_host_reply(s, "{\"name\": \"Grue\", \"hp\": 4}", 25, -1, -1, NULL), COAX_OK);
    CHECK_INT(coax_session_host_piece(s, "x", 1, &err), COAX_EINVAL); /* answered */
    CHECK_STR(err.msg, "the session is not waiting for its host");
    coax_engine_poll(e, 0);
    CHECK_INT(coax_session_outcome(s), COAX_OUTCOME_OK);
    CHECK_INT(coax_session_host_piece(s, "x", 1, &err), COAX_EINVAL); /* ended */
    CHECK_STR(err.msg, "the session is not waiting for its host");
    /* another agent never waits for its host */
    coax_session_options o = {0};
    o.agent_json = "{\"name\": \"replay\", \"replies\": [\"{\\\"name\\\": \\\"a\\\", \\\"hp\\\": 1}\"]}";
    const char *recipe = "return { " MONSTER_SCHEMA " }";
    CHECK_INT(coax_session_from_text(e, recipe, strlen(recipe), "=replay", &o, &s, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    CHECK_INT(coax_session_host_piece(s, "x", 1, &err), COAX_EINVAL);
    coax_engine_free(e);
}

/* Pieces that end inside a character: no partial shows half of one. */
static void test_pieces_inside_a_character(void)
{
    coax_engine *e;
    seen sn;
    coax_session *s = start(&e, NULL, HOST(MONSTER_SCHEMA, "every_ms = 0"), &sn);
    coax_engine_poll(e, 0);
    const char *reply = "{\"name\": \"Zo\xc3\xab \xf0\x9f\x98\x80!\", \"hp\": 1}";
    feed(e, s, &sn, reply, 1);
    CHECK_INT(coax_session_host_reply(s, reply, strlen(reply), -1, -1, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    CHECK_STR(coax_session_value(s, NULL), "{\"name\":\"Zo\xc3\xab \xf0\x9f\x98\x80!\",\"hp\":1}");
    /* the names shown, each once in order: whole characters only */
    char names[512] = "";
    coax_arena *a = coax_arena_new(NULL);
    for (int i = 0; i < sn.npartials && i < MAX_PARTIALS; i++) {
        coax_value *v = NULL;
        CHECK_INT(coax_parse(a, sn.partial[i], strlen(sn.partial[i]), NULL, &v, NULL), COAX_OK); /* valid UTF-8 */
        size_t n = 0;
        const coax_value *value = coax_object_get(v, "value", 5);
        const coax_value *shown = value ? coax_object_get(value, "name", 4) : NULL;
        const char *name = shown ? coax_value_text(shown, &n) : NULL;
        char item[64];
        if (name) snprintf(item, sizeof item, "|%.*s", (int)n, name);
        else snprintf(item, sizeof item, "|-");
        size_t have = strlen(names), m = strlen(item);
        if (have < m || strcmp(names + have - m, item)) snprintf(names + have, sizeof names - have, "%s", item);
    }
    coax_arena_free(a);
    CHECK_STR(names, "|-||Z|Zo|Zo\xc3\xab|Zo\xc3\xab |Zo\xc3\xab \xf0\x9f\x98\x80|Zo\xc3\xab \xf0\x9f\x98\x80!");
    coax_engine_free(e);
}

static const char *secret(void *ud, const char *name)
{
    (void)ud;
    return strcmp(name, "OPENAI_API_KEY") ? NULL : "sk-host-piece-secret";
}

/* A recipe's own agent that sent a secret (a request that fails: nothing
** listens on port 9) and then asks its host: the secret is redacted from
** the host's pieces as from the whole reply, even cut across pieces. */
static void test_a_secret_cut_across_pieces(void)
{
    coax_engine_options eo = {0};
    eo.secret = secret;
    coax_engine *e;
    seen sn;
    coax_session *s = start(&e, &eo,
                            "local coax = require 'coax'\n"
                            "return { " MONSTER_SCHEMA ", stream = { every_ms = 0 }, agent = { stream = true,"
                            " call = function(request)\n"
                            "  coax.http.request { url = 'http://127.0.0.1:9/', timeout_ms = 2000,"
                            " headers = { authorization = 'Bearer ' .. coax.secret 'OPENAI_API_KEY' } }\n"
                            "  return coax.host_request('{\"ask\": 1}')\n"
                            " end } }",
                            &sn);
    for (int i = 0; i < 400 && !sn.requests; i++) coax_engine_poll(e, 5);
    CHECK_INT(sn.requests, 1);
    const char *reply = "{\"name\": \"sk-host-piece-secret\", \"hp\": 1, \"moves\": [\"sk-host-piece\"]}";
    feed(e, s, &sn, reply, 3);
    CHECK_INT(coax_session_host_reply(s, reply, strlen(reply), -1, -1, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    CHECK_STR(coax_session_value(s, NULL), "{\"name\":\"[redacted]\",\"hp\":1,\"moves\":[\"sk-host-piece\"]}");
    CHECK(sn.npartials >= 5);
    for (int i = 0; i < sn.npartials && i < MAX_PARTIALS; i++) {
        CHECK(strstr(sn.partial[i], "sk-host-piece-") == NULL);
        CHECK(strstr(sn.partial[i], "\"name\":\"sk") == NULL);
    }
    coax_engine_free(e);
}

/* Pieces past max_input are refused (the whole reply would be too); the
** reply then ends the session as a reply past the limit does. */
static void test_a_piece_past_max_input(void)
{
    coax_engine_options eo = {0};
    eo.limits.max_input = 2048; /* the request is JSON read under the limits too */
    coax_engine *e;
    seen sn;
    coax_session *s = start(&e, &eo, HOST(MONSTER_SCHEMA, "every_ms = 0"), &sn);
    coax_engine_poll(e, 0);
    static char big[3000];
    memset(big, 'y', sizeof big - 1);
    coax_error err = {0};
    CHECK_INT(coax_session_host_piece(s, "{\"name\": \"", 10, NULL), COAX_OK);
    CHECK_INT(coax_session_host_piece(s, big, 2039, &err), COAX_ESIZE);
    CHECK_STR(err.msg, "the reply would pass max_input (2048 bytes): piece not taken");
    CHECK_INT(coax_session_host_piece(s, big, 2038, NULL), COAX_OK); /* exactly 2048 */
    CHECK_INT(coax_session_host_piece(s, big, (size_t)-1, &err), COAX_ESIZE);
    char whole[3100];
    snprintf(whole, sizeof whole, "{\"name\": \"%s\", \"hp\": 1}", big);
    answer(e, s, whole, COAX_OUTCOME_LIMIT);
    CHECK(strstr(coax_session_report(s, NULL), "\"bytes_received\":3020") != NULL);
    /* the whole reply is not copied: the session ends as an agent's
    ** response past its cap does */
    const char *why = NULL;
    coax_session_error(s, &why);
    CHECK_STR(why, "agent: the host's reply of 3020 bytes passes max_input (2048 bytes)");
    coax_engine_free(e);
}

/* A whole reply that is not its pieces counts as the reply started over:
** the partials told stay promises. One that keeps them is taken; one that
** contradicts them is refused and asked again. */
static void test_a_reply_that_is_not_its_pieces(void)
{
    coax_engine *e;
    seen sn;
    coax_session *s = start(&e, NULL, HOST(MONSTER_SCHEMA, "every_ms = 0"), &sn);
    coax_engine_poll(e, 0);
    feed(e, s, &sn, "{\"name\": \"Grue\", \"hp\": 4", 100);
    feed(e, s, &sn, "0, ", 100);
    CHECK_STR(sn.partial[sn.npartials - 1], "{\"value\":{\"name\":\"Grue\",\"hp\":40},\"complete\":[\"/name\",\"/hp\"],"
                                            "\"in_progress\":\"\",\"attempt\":1}");
    const char *other = "{\"name\": \"Grue\", \"hp\": 41}";
    CHECK_INT(coax_session_host_reply(s, other, strlen(other), -1, -1, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    CHECK_INT(sn.requests, 2);
    /* the second: pieces with a start over between them, then the whole of the last */
    int told = sn.npartials;
    CHECK_INT(coax_session_host_piece(s, "{\"name\": \"Bob\"", 14, NULL), COAX_OK);
    frames(e, &sn);
    CHECK_INT(coax_session_host_piece(s, NULL, 0, NULL), COAX_OK);
    CHECK_INT(coax_session_host_piece(s, "{\"name\": \"Grue\", \"hp\": 3}", 25, NULL), COAX_OK);
    frames(e, &sn);
    CHECK_INT(sn.npartials, told + 1); /* none after the start over */
    answer(e, s, "{\"name\": \"Grue\", \"hp\": 3}", COAX_OUTCOME_OK);
    const char *report = coax_session_report(s, NULL);
    CHECK(strstr(report, "\"outcome\":\"rejected\",\"reason\":\"the reply started over while it streamed: the "
                         "value taken differs at '/hp' from the part shown as complete while it streamed; send "
                         "exactly one JSON value\"") != NULL);
    CHECK(strstr(report, "\"bytes_received\":26") != NULL); /* the whole reply, not the pieces */
    CHECK(strstr(report, "\"bytes_received\":25") != NULL);
    CHECK_STR(coax_session_value(s, NULL), "{\"name\":\"Grue\",\"hp\":3}");
    coax_engine_free(e);
}

/* The record of attempt 1 of 'recipe' (max_attempts = 1) answered with
** 'reply': its members but the times and the bytes received, as JSON;
** streamed in pieces of 7 bytes (a partial told after each that changes
** what is shown) or answered whole. */
static void first_record(const char *recipe, const char *reply, bool streamed, char *out, size_t cap)
{
    coax_engine *e;
    seen sn;
    coax_session *s = start(&e, NULL, recipe, &sn);
    coax_engine_poll(e, 0);
    if (streamed) {
        feed(e, s, &sn, reply, 7);
        CHECK(sn.npartials > 0);
    }
    CHECK_INT(coax_session_host_reply(s, reply, strlen(reply), -1, -1, NULL), COAX_OK);
    coax_engine_poll(e, 0);
    size_t len = 0;
    const char *report = coax_session_report(s, &len);
    coax_arena *a = coax_arena_new(NULL);
    coax_value *r = NULL;
    CHECK(report && coax_parse(a, report, len, NULL, &r, NULL) == COAX_OK);
    const coax_value *attempt = coax_array_get(coax_object_get(r, "attempts", 8), 0);
    CHECK(attempt != NULL);
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < coax_value_len(attempt); i++) {
        const char *key = coax_object_key(attempt, i, NULL);
        if (!strcmp(key, "elapsed_ms") || !strcmp(key, "bytes_received")) continue;
        char *json = NULL;
        size_t jlen = 0;
        CHECK_INT(coax_write(coax_object_value(attempt, i), 0, NULL, &json, &jlen), COAX_OK);
        if (json && n < cap) n += (size_t)snprintf(out + n, cap - n, "\"%s\":%s,", key, json);
        coax_free(NULL, json, jlen + 1);
    }
    CHECK(n < cap);
    coax_arena_free(a);
    coax_engine_free(e);
}

/* A reply whose partials were told is extracted once (the reader's
** extraction of the root, the same call over the same text, is the
** attempt's): its record is the one of the same reply answered whole,
** valid, coerced or invalid; and when the reader has no extraction to
** give (a repair it cannot follow, which a recipe's max_class may refuse;
** a fenced reply), the attempt's own extraction. */
static void test_a_streamed_reply_is_judged_as_a_whole_one(void)
{
#define KIND_SCHEMA                                                                                         \
    "schema = { type = 'object', properties = { name = { type = 'string' }, hp = { type = 'integer' },"    \
    " kind = { enum = { 'troll', 'grue' } } }, required = { 'name', 'hp' } }, prompt = 'Describe {{input}}'"
    static const char *const recipes[] = {
        "return { " KIND_SCHEMA ", agent = 'host', max_attempts = 1, stream = { every_ms = 0 } }",
        "return { " KIND_SCHEMA ", agent = 'host', max_attempts = 1, max_class = 'lossless',"
        " stream = { every_ms = 0 } }",
    };
    static const char *const replies[] = {
        "{\"name\": \"Grue\", \"hp\": 40, \"kind\": \"grue\"}",
        "{\"name\": \"Grue\", \"hp\": \"40\", \"kind\": \"Grue\"}",
        "{\"name\": \"Grue\", \"hp\": \"forty\"}",
        "{\"name\": \"Grue\" \"hp\": 40}",               /* a comma inferred: the reader stops there */
        "```json\n{\"name\": \"Grue\", \"hp\": 40}\n```", /* the candidate is not the whole reply */
    };
    /* the outcomes, recipe by recipe and reply by reply */
    static const char *const outcomes[2][5] = {{"ok", "ok", "invalid", "ok", "ok"},
                                               {"ok", "invalid", "invalid", "invalid", "ok"}}; /* lossless: no coercion */
    for (size_t i = 0; i < 2; i++)
        for (size_t k = 0; k < 5; k++) {
            char whole[4096], streamed[4096], outcome[32];
            first_record(recipes[i], replies[k], false, whole, sizeof whole);
            first_record(recipes[i], replies[k], true, streamed, sizeof streamed);
            CHECK_STR(streamed, whole);
            snprintf(outcome, sizeof outcome, "\"outcome\":\"%s\",", outcomes[i][k]);
            CHECK(strstr(whole, outcome) != NULL);
        }
#undef KIND_SCHEMA
}

#define TESTS                                     \
    X(test_partials_of_one_byte_pieces)           \
    X(test_partials_of_seven_byte_pieces)         \
    X(test_partials_whatever_the_host_waits_in_them) \
    X(test_stop_early_cancels_the_hosts_request)  \
    X(test_stop_early_found_by_a_poll)            \
    X(test_pieces_at_the_wrong_time)              \
    X(test_pieces_inside_a_character)             \
    X(test_a_secret_cut_across_pieces)            \
    X(test_a_piece_past_max_input)                \
    X(test_a_reply_that_is_not_its_pieces)       \
    X(test_a_streamed_reply_is_judged_as_a_whole_one)
#include "test.h"
