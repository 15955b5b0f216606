/* Attack round 17 through the C API: the host's callbacks that run while a
** session is made (coax_session_from_text and its kin run the recipe), not
** inside a poll. */
#include "coax.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "counting.h"
#include "test.h"

static const char *GOOD =
    "return { schema = { type = 'integer' }, prompt = 'n' }";
static const char *REPLAY = "{\"name\":\"replay\",\"replies\":[\"7\"]}";
/* Asks for a secret as it is made: the host's secret callback runs inside the recipe. */
static const char *ASKS_SECRET =
    "local coax = require('coax') local k = coax.secret('X_API_KEY') "
    "return { schema = { type = 'integer' }, prompt = 'n' }";

typedef struct host {
    coax_engine *e;
    bool free_engine, poll;
    size_t polled; /* what a poll from the callback returned */
    coax_outcome other; /* the other session's outcome the callback saw after its poll */
    coax_session *watch;
} host;

static host *secret_host;

static const char *secret_callback(void *ud, const char *name)
{
    (void)ud, (void)name;
    host *h = secret_host;
    if (h && h->poll) {
        h->polled = coax_engine_poll(h->e, 100);
        h->other = coax_session_outcome(h->watch);
    }
    if (h && h->free_engine) coax_engine_free(h->e);
    return "sekrit-value";
}

static coax_engine *engine_for(coax_allocator *al)
{
    coax_engine_options eo = {0};
    eo.alloc = al;
    eo.secret = secret_callback;
    coax_engine *e = NULL;
    CHECK_INT(coax_engine_new(&eo, &e, NULL), COAX_OK);
    return e;
}

static coax_code make(host *h, const char *recipe, coax_session **s, coax_error *err)
{
    coax_session_options o = {0};
    o.agent_json = REPLAY;
    return coax_session_from_text(h->e, recipe, strlen(recipe), "=r", &o, s, err);
}

/* The engine's callbacks are documented as called from inside a poll,
** where a session or the engine a callback frees is freed when the poll
** returns, and a poll from a callback moves nothing. Making a session calls
** the secret callback too (a recipe asking for a secret as it runs), and
** there a free took effect at once: the engine, its Lua state among it, was
** freed under the recipe still running (a segfault as the recipe went on).
** Making a session now defers them as a poll does, and the call says the
** host freed the engine it was making the session in. */
static void test_engine_freed_by_the_secret_callback_while_a_session_is_made(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    host h = {engine_for(&al), true, false, 0, COAX_OUTCOME_RUNNING, NULL};
    secret_host = &h;
    coax_session *other = NULL, *s = (coax_session *)&h;
    CHECK_INT(coax_session_from_text(h.e, GOOD, strlen(GOOD), "=o", NULL, &other, NULL), COAX_OK);
    coax_error err = {0};
    CHECK_INT(make(&h, ASKS_SECRET, &s, &err), COAX_ECANCELED);
    CHECK_STR(err.msg, "the engine was freed (coax_engine_free in a callback) while the session was made");
    CHECK(s == NULL);
    CHECK_INT(c.live, 0); /* the engine and its sessions, the other one too */
    /* the twin: a secret callback that frees nothing, and the session runs */
    h.e = engine_for(&al);
    h.free_engine = false;
    CHECK_INT(make(&h, ASKS_SECRET, &s, NULL), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_OK);
    secret_host = NULL;
    coax_engine_free(h.e);
    CHECK_INT(c.live, 0);
}

/* A poll from the secret callback while a session is made moves nothing
** (the documented "from a callback"): it ran the other sessions' agents
** inside the recipe's C call. The session made and the other run after. */
static void test_poll_from_the_secret_callback_while_a_session_is_made(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    host h = {engine_for(&al), false, true, 99, COAX_OUTCOME_INVALID, NULL};
    secret_host = &h;
    coax_session *s = NULL;
    CHECK_INT(make(&h, GOOD, &h.watch, NULL), COAX_OK);
    CHECK_INT(make(&h, ASKS_SECRET, &s, NULL), COAX_OK);
    CHECK_INT(h.polled, 2); /* the other and the one being made, both still running */
    CHECK_INT(h.other, COAX_OUTCOME_RUNNING);
    h.poll = false;
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_OK);
    CHECK_INT(coax_session_run(h.watch), COAX_OUTCOME_OK);
    secret_host = NULL;
    coax_engine_free(h.e);
    CHECK_INT(c.live, 0);
}

#define TESTS                                                          \
    X(test_engine_freed_by_the_secret_callback_while_a_session_is_made) \
    X(test_poll_from_the_secret_callback_while_a_session_is_made)
#include "test.h"
