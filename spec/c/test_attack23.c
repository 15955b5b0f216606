/* Attack round 23 through the C API: a host allocator that fails again and again. Round 12 failed one
** allocation of a session's life at a time; here every Nth allocation fails from the moment the engine
** is made on, so each recovery meets the next failure (Lua's emergency collection and retry, a stop's
** unwinding, the copy of a strategy's messages, the report), through sessions of a recipe with a
** strategy of its own, feedback, on_event and a reply that needs a repair. */
#include "coax.h"

#include <stdlib.h>
#include <string.h>

#include "every.h"
#include "test.h"

static const char *RECIPE =
    "local coax = require 'coax'\n"
    "return { schema = { type = 'object', properties = { n = { type = 'integer' }, s = { type = 'string' } },"
    " required = { 'n', 's' } }, prompt = function(input) return 'n of ' .. input end, max_attempts = 4,"
    " feedback = { validation = 'bad: {{errors}}' },"
    " strategy = function(ctx) local part = coax.json.object({ type = 'text', text = 'again' }, { 'type', 'text' })"
    "   return { { role = 'system', content = 'be brief' }, coax.json.object({ role = 'user', content = 'again',"
    "     parts = coax.json.array({ part, part }) }, { 'role', 'content' }) } end,"
    " on_event = function(name, data) local t = {} for k in pairs(data or {}) do t[#t + 1] = tostring(k) end end,"
    " agent = { name = 'replay', replies = { 'no json', '{\"n\": \"x\", \"s\": 1}',"
    " '```json\\n{\"n\": 2, \"s\": \"a\",}\\n```' } } }";

/* One life under 'st': three sessions polled to their end, their reports and values read, then freed.
** Returns the sessions that ended ok; any ok one must hold the one right value. */
static int life(every *st, long *engine_at)
{
    coax_allocator al = EVERY_ALLOCATOR(st);
    coax_engine_options o = {0};
    o.alloc = &al;
    coax_engine *e = NULL;
    if (coax_engine_new(&o, &e, NULL) != COAX_OK) return -1;
    if (engine_at) *engine_at = st->calls;
    coax_session_options so = {0};
    so.input = "x", so.input_len = 1;
    coax_session *s[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) coax_session_from_text(e, RECIPE, strlen(RECIPE), "=r", &so, &s[i], NULL);
    for (int round = 0; round < 50 && coax_engine_poll(e, 0) > 0; round++) continue;
    int oks = 0;
    for (int i = 0; i < 3; i++) {
        if (!s[i]) continue;
        coax_session_report(s[i], NULL);
        if (coax_session_outcome(s[i]) != COAX_OUTCOME_OK) continue;
        oks++;
        const char *v = coax_session_value(s[i], NULL);
        CHECK_STR(v, "{\"n\":2,\"s\":\"a\"}");
    }
    coax_session_free(s[1]);
    coax_engine_free(e);
    return oks;
}

static void test_every_nth_allocation_fails(void)
{
    every whole = {0};
    long engine_at = 0;
    CHECK_INT(life(&whole, &engine_at), 3);
    CHECK_INT(whole.live, 0);
    long most = getenv("ATTACK23_EVERY") ? atol(getenv("ATTACK23_EVERY")) : 300;
    for (long n = 2; n <= most; n++) {
        every st = {0, 0, 0, n, engine_at};
        life(&st, NULL);
        if (st.live || st.wrong_size)
            printf("  every %ld-th allocation failing: %ld bytes leaked, %ld wrong sizes\n", n, st.live, st.wrong_size);
        CHECK_INT(st.live, 0);
        CHECK_INT(st.wrong_size, 0);
        if (test_failed_now) break;
    }
}

#define TESTS X(test_every_nth_allocation_fails)
#include "test.h"
