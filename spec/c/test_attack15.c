/* Attack round 15 through the C API: engines made at once on several threads share the one key the
** process draws for the Lua hashes of strings, numbers and addresses (the vendored lstring.c), and
** each engine's tables find every key. The key is drawn by one thread while the others wait: two
** states made at once must never hash with halves of two keys (spec/attack15_spec.lua has the rest). */
#include "coax.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "test.h"

#define THREADS 8

static const char RECIPE[] =
    "local t, n = {}, 0 "
    "for i = 1, 20000 do t['k' .. i], t[-i], t[i + 0.5], t[('x'):rep(50) .. i] = i, i, i, i end "
    "for i = 1, 20000 do "
    "  if t['k' .. i] == i and t[-i] == i and t[i + 0.5] == i and t[('x'):rep(50) .. i] == i then n = n + 1 end "
    "end "
    "error(('%d found, %s'):format(n, tostring(t):match('^table: 0x%x+$') and 'hidden' or '?'), 0)";

typedef struct run {
    coax_code made;
    coax_outcome outcome;
    char message[256];
} run;

static void *one_engine(void *arg)
{
    run *r = arg;
    coax_engine_options eo = {0};
    coax_engine *e = NULL;
    r->made = coax_engine_new(&eo, &e, NULL);
    if (r->made != COAX_OK) return NULL;
    coax_session *s = NULL;
    r->made = coax_session_from_text(e, RECIPE, strlen(RECIPE), "=threads", NULL, &s, NULL);
    if (r->made == COAX_OK) {
        r->outcome = coax_session_run(s);
        const char *m = NULL;
        coax_session_error(s, &m);
        snprintf(r->message, sizeof r->message, "%s", m ? m : "");
    }
    coax_engine_free(e);
    return NULL;
}

static void test_engines_made_at_once_on_threads_find_every_key(void)
{
    pthread_t threads[THREADS];
    run runs[THREADS];
    memset(runs, 0, sizeof runs);
    for (int i = 0; i < THREADS; i++) CHECK_INT(pthread_create(&threads[i], NULL, one_engine, &runs[i]), 0);
    for (int i = 0; i < THREADS; i++) CHECK_INT(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        CHECK_INT(runs[i].made, COAX_OK);
        CHECK_INT(runs[i].outcome, COAX_OUTCOME_INVALID);
        CHECK_STR(runs[i].message, "20000 found, hidden");
    }
}

#define TESTS X(test_engines_made_at_once_on_threads_find_every_key)
#include "test.h"
