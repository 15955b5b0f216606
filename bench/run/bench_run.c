/*
** bench_run.c: the engine's overhead per attempt and memory per session.
**
** Overhead: from a reply received (the "reply" event) to the next request
** ready (the next "attempt_start"): extract, repair, coerce, validate, the
** feedback template and the strategy in Lua. The reply is ~2 KB, invalid
** against schemas/invoice.schema.json, so every attempt fails and retries.
** The "reply" event is told on the reply's arrival, before extraction.
** Times are medians over the attempts; when valgrind is installed, the
** instructions of the same windows follow (the program runs itself under
** callgrind with "--count"), which do not depend on the machine's load.
** Memory: bytes the engine's allocator holds per session waiting on its
** agent (a replay agent sleeping), beyond the engine's own.
*/
#include "coax.h"
#include "../common/measure.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Under callgrind (the program runs itself with "--count"), collection is
** on from each reply to the next request only; the macros do nothing when
** the program runs natively. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_TOGGLE_COLLECT
#define NO_CALLGRIND 1
#endif

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

typedef struct timing {
    double reply_at;
    double *gaps;
    size_t n, cap;
    int last;        /* the last attempt, whose reply ends the session: not counted */
    bool collecting; /* under callgrind: inside a window */
} timing;

static void on_event(void *ud, coax_session *s, const char *name, const char *data)
{
    (void)s;
    (void)data;
    timing *t = ud;
    const char *at = strstr(data, "\"attempt\":");
    if (!strcmp(name, "reply") && at && atoi(at + 10) < t->last) {
        t->reply_at = now_us();
        CALLGRIND_TOGGLE_COLLECT; /* on */
        t->collecting = true;
    } else if (!strcmp(name, "attempt_start") && t->collecting) {
        CALLGRIND_TOGGLE_COLLECT; /* off */
        t->collecting = false;
        if (t->n < t->cap) t->gaps[t->n++] = now_us() - t->reply_at;
    }
}

/* Instructions an attempt from reply to next request, by running this
** program under callgrind with collection off but in those windows; 0
** when valgrind or its header is missing. */
static double count_instructions(const char *self, const char *schema, int attempts)
{
#ifdef NO_CALLGRIND
    (void)self, (void)schema, (void)attempts;
    return 0;
#else
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no '%s' '%s' %d --count 2>&1",
             self, schema, attempts);
    double ir = measure_callgrind(cmd);
    return ir / (attempts - 1); /* the first attempt has no reply before it */
#endif
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct counting {
    size_t live;
} counting;
static void *c_malloc(void *ctx, size_t n)
{
    ((counting *)ctx)->live += n;
    return malloc(n);
}
static void *c_realloc(void *ctx, void *p, size_t o, size_t n)
{
    void *q = realloc(p, n);
    if (q) ((counting *)ctx)->live += n - o;
    return q;
}
static void c_free(void *ctx, void *p, size_t n)
{
    ((counting *)ctx)->live -= n;
    free(p);
}

/* A ~2 KB reply: an invoice in prose and a fence, with one wrong field. */
static void reply_json(char *out, size_t cap)
{
    char items[2400] = "";
    for (int i = 0; i < 16; i++) {
        char one[160];
        snprintf(one, sizeof one,
                 "%s{\\\"description\\\": \\\"Torque wrench model %d, chrome vanadium\\\", \\\"quantity\\\": %d, "
                 "\\\"unit_price\\\": 49.5}",
                 i ? ", " : "", i, i + 1);
        strcat(items, one);
    }
    snprintf(out, cap,
             "\"Sure! Here is the invoice you asked for:\\n```json\\n{\\\"invoice_number\\\": \\\"INV-2041\\\", "
             "\\\"issue_date\\\": \\\"2026-11-02\\\", \\\"vendor\\\": \\\"ACME Tools Inc.\\\", "
             "\\\"billing_address\\\": {\\\"street\\\": \\\"12 Analytical Way\\\", \\\"city\\\": \\\"Springfield\\\", "
             "\\\"postal_code\\\": \\\"62701\\\"}, \\\"items\\\": [%s], \\\"currency\\\": \\\"USD\\\", "
             "\\\"total\\\": \\\"about 3900\\\"}\\n```\\nLet me know if you need anything else!\"",
             items);
}

int main(int argc, char **argv)
{
    const char *schema = argc > 1 ? argv[1] : "../schemas/invoice.schema.json";
    int attempts = argc > 2 ? atoi(argv[2]) : 500;
    char recipe[512];
    snprintf(recipe, sizeof recipe,
             "return { schema = '%s', prompt = 'Extract the invoice: {{input}}', max_attempts = %d,"
             " strategy = 'last' }",
             schema, attempts);
    char reply[4096];
    reply_json(reply, sizeof reply);
    size_t rlen = strlen(reply) - 2;
    /* agent options: the same reply for every attempt */
    size_t cap = (size_t)attempts * (strlen(reply) + 1) + 64;
    char *agent = malloc(cap);
    strcpy(agent, "{\"name\":\"replay\",\"replies\":[");
    for (int i = 0; i < attempts; i++) {
        if (i) strcat(agent, ",");
        strcat(agent, reply);
    }
    strcat(agent, "]}");

    coax_engine_options eo = {0};
    eo.script_dir = getenv("COAX_LUA_PATH") ? getenv("COAX_LUA_PATH") : "../lua";
    coax_engine *e;
    coax_error err;
    if (coax_engine_new(&eo, &e, &err)) {
        fprintf(stderr, "bench_run: %s\n", err.msg);
        return 1;
    }
    bool count_only = argc > 3 && !strcmp(argv[3], "--count"); /* under callgrind: the windows only */
    timing t = {0, calloc((size_t)attempts, sizeof(double)), 0, (size_t)attempts, attempts, false};
    coax_session_options so = {0};
    so.input = "x";
    so.input_len = 1;
    so.agent_json = agent;
    so.on_event = on_event;
    so.event_ud = &t;
    coax_session *s;
    coax_session_from_text(e, recipe, strlen(recipe), "=bench", &so, &s, &err);
    coax_outcome out = coax_session_run(s);
    if (count_only) {
        coax_engine_free(e);
        free(agent);
        free(t.gaps);
        return 0;
    }
    qsort(t.gaps, t.n, sizeof *t.gaps, cmp);
    printf("engine overhead per attempt (reply %zu bytes, %zu retries, outcome %s):\n", rlen, t.n,
           coax_outcome_name(out));
    if (t.n)
        printf("  median %.1f us   p90 %.1f us   min %.1f us   target: median at most 80 us (issue 21)\n", t.gaps[t.n / 2],
               t.gaps[t.n * 9 / 10], t.gaps[0]);
    coax_engine_free(e);
    double ir = count_instructions(argv[0], schema, 100);
    if (ir > 0) printf("  instructions an attempt, reply to next request (callgrind, 99 attempts): %.0f\n", ir);

    /* memory per session waiting on its agent */
    counting c = {0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    eo.alloc = &al;
    if (coax_engine_new(&eo, &e, &err)) return 1;
    so.on_event = NULL;
    so.agent_json = "{\"name\":\"replay\",\"delay_ms\":60000,\"replies\":[\"{}\"]}";
    const int N = 200;
    for (int i = 0; i < 3; i++) coax_engine_poll(e, 0);
    size_t base = c.live;
    for (int i = 0; i < N; i++) coax_session_from_text(e, recipe, strlen(recipe), "=bench", &so, &s, &err);
    coax_engine_poll(e, 0); /* every session sends its first prompt and waits */
    size_t per = (c.live - base) / N;
    size_t prompt = 0;
    const char *r = NULL;
    (void)r;
    printf("memory per session waiting on its agent: %zu bytes (%d sessions), target: under 64 KB plus its "
           "conversation\n",
           per, N);
    (void)prompt;
    coax_engine_free(e);
    free(agent);
    free(t.gaps);
    return 0;
}
