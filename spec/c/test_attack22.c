/*
** Attack round 22: a host's own calls and the C stack (spec/attack22_spec.lua has the rest of
** the round).
**
** A host may raise any limit: coax_limits.max_depth, a schema's max_depth. The validation
** recurses a few hundred bytes an evaluation level, and only a script's calls had a floor for the
** C stack (engine/base/stack.h): a schema max_depth of 6,000 and an instance 2,000 deep
** segfaulted a 512 KiB thread. coax_schema_compile, coax_validate and coax_extract now set the
** floor when no call above set it, 448 KiB below them; an extraction reads only the nesting the
** stack left to it holds (its looks recurse on the value). The floor also keeps 64 KiB above the
** thread's end, so a thread of 256 KiB stops early rather than running off it.
*/
#include "coax.h"
#include "base/stack.h" /* COAX_STACK_SCALE, COAX_STACK_WHY */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

static const char RECURSIVE[] =
    "{\"$defs\":{\"n\":{\"type\":[\"array\",\"integer\"],\"items\":{\"$ref\":\"#/$defs/n\"}}},\"$ref\":\"#/$defs/n\"}";

static char *brackets(size_t depth)
{
    char *t = malloc(2 * depth + 2);
    memset(t, '[', depth);
    t[depth] = '1';
    memset(t + depth + 1, ']', depth);
    t[2 * depth + 1] = '\0';
    return t;
}

typedef struct job {
    size_t depth;      /* of the instance */
    size_t max_depth;  /* the host's: of the parse (coax_limits), of the schema's evaluation */
    bool extract;      /* coax_extract under {"type":"object",...} rather than coax_validate */
    coax_code rc;
    int valid;
    char msg[192];
} job;

static void *validate_job(void *ud)
{
    job *j = ud;
    coax_arena *a = coax_arena_new(NULL);
    coax_limits lim;
    coax_limits_default(&lim);
    lim.max_depth = j->max_depth;
    char *text = brackets(j->depth);
    coax_error err = {0};
    coax_value *sv = NULL, *v = NULL;
    coax_schema *s = NULL;
    const char *schema = j->extract ? "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}" : RECURSIVE;
    CHECK_INT(coax_parse(a, schema, strlen(schema), NULL, &sv, &err), COAX_OK);
    coax_schema_options o = {.max_depth = j->max_depth};
    CHECK_INT(coax_schema_compile(sv, &o, NULL, &s, &err), COAX_OK);
    if (j->extract) {
        coax_extract_result r;
        j->rc = coax_extract(a, s, text, strlen(text), &lim, NULL, &r, &err);
        j->valid = j->rc ? -1 : r.valid;
    } else {
        CHECK_INT(coax_parse(a, text, strlen(text), &lim, &v, &err), COAX_OK);
        coax_validation r;
        j->rc = coax_validate(s, v, a, 0, &r, &err);
        j->valid = j->rc ? -1 : r.valid;
    }
    snprintf(j->msg, sizeof j->msg, "%s", j->rc ? err.msg : "");
    coax_schema_free(s);
    coax_arena_free(a);
    free(text);
    return NULL;
}

/* Runs the job on a thread of 'kb' KiB (4 times that under ASan, as its floor is). */
static void on_thread(job *j, size_t kb)
{
    pthread_attr_t attr;
    pthread_t t;
    CHECK_INT(pthread_attr_init(&attr), 0);
    CHECK_INT(pthread_attr_setstacksize(&attr, COAX_STACK_SCALE * kb * 1024u), 0);
    CHECK_INT(pthread_create(&t, &attr, validate_job, j), 0);
    CHECK_INT(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&attr);
}

static void on_512k(job *j) { on_thread(j, 512); }

static void test_a_validation_past_the_floor_stops_there(void)
{
    job j = {.depth = 2000 * COAX_STACK_SCALE, .max_depth = 6000 * COAX_STACK_SCALE};
    on_512k(&j);
    CHECK_INT(j.rc, COAX_EDEPTH);
    CHECK_STR(j.msg, "schema evaluation nested " COAX_STACK_WHY);
}

static void test_twin_a_deep_validation_under_the_floor_runs(void)
{
    job j = {.depth = 600, .max_depth = 6000};
    on_512k(&j);
    CHECK_INT(j.rc, COAX_OK);
    CHECK_INT(j.valid, 1);
}

static void test_an_extraction_past_what_the_stack_holds_is_refused(void)
{
    job j = {.depth = 20000, .max_depth = 300000, .extract = true};
    on_512k(&j);
    CHECK_INT(j.rc, COAX_EDEPTH);
    static const char why[] = " (what the C stack left to an extraction holds)";
    size_t n = strlen(j.msg);
    CHECK(n > sizeof why && !strcmp(j.msg + n - (sizeof why - 1), why));
    CHECK(!strncmp(j.msg, "nesting deeper than ", 20));
}

static void test_twin_an_extraction_under_a_raised_limit_runs(void)
{
    job j = {.depth = 1200, .max_depth = 2000, .extract = true};
    on_512k(&j);
    CHECK_INT(j.rc, COAX_OK);
    CHECK_INT(j.valid, 0); /* an array where an object is wanted */
}

/* A host's thread of less than the README's 512 KiB: the floor keeps 64 KiB above its end. */
static void test_on_a_256k_thread_the_floor_keeps_off_its_end(void)
{
    job j = {.depth = 2000 * COAX_STACK_SCALE, .max_depth = 6000 * COAX_STACK_SCALE};
    on_thread(&j, 256);
    CHECK_INT(j.rc, COAX_EDEPTH);
    CHECK_STR(j.msg, "schema evaluation nested " COAX_STACK_WHY);
    job twin = {.depth = 200, .max_depth = 6000};
    on_thread(&twin, 256);
    CHECK_INT(twin.rc, COAX_OK);
    CHECK_INT(twin.valid, 1);
    job extract = {.depth = 5000, .max_depth = 300000, .extract = true};
    on_thread(&extract, 256);
    CHECK_INT(extract.rc, COAX_EDEPTH);
}

#define TESTS                                                  \
    X(test_on_a_256k_thread_the_floor_keeps_off_its_end)       \
    X(test_a_validation_past_the_floor_stops_there)            \
    X(test_twin_a_deep_validation_under_the_floor_runs)        \
    X(test_an_extraction_past_what_the_stack_holds_is_refused) \
    X(test_twin_an_extraction_under_a_raised_limit_runs)
#include "test.h"
