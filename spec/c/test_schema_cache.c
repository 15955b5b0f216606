/* The engine's schema cache (engine/session/schema_cache.h): sessions of
** one schema text share one compiled schema, owned by the engine; a
** session never frees it; an entry is replaced only when no live session
** uses it; the engine frees it, and nothing leaks. Internal: the test looks
** inside the session (engine.h). */
#include "session/engine.h"

#include <stdio.h>
#include <stdlib.h>

#include "counting.h"
#include "test.h"

static const char *REPLY = "{\"name\":\"replay\",\"replies\":[\"{\\\"n\\\": \\\"2\\\"}\"]}";

/* A session of 'schema' (JSON text) answered by REPLY. */
static coax_session *session_of(coax_engine *e, const char *schema)
{
    coax_session_options o = {0};
    o.agent_json = REPLY;
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_schema(e, schema, strlen(schema), "n?", &o, &s, NULL), COAX_OK);
    return s;
}

/* An engine whose every byte goes through 'al' (counting.h). */
static coax_engine *counted_engine(const coax_allocator *al)
{
    coax_engine_options eo = {0};
    eo.alloc = al;
    coax_engine *e = NULL;
    CHECK_INT(coax_engine_new(&eo, &e, NULL), COAX_OK);
    return e;
}

static const char *N_SCHEMA = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}";

static void test_sessions_of_one_schema_share_it(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    coax_engine *e = counted_engine(&al);
    coax_session *a = session_of(e, N_SCHEMA), *b = session_of(e, N_SCHEMA);
    CHECK(a->shared != NULL);
    CHECK(a->shared == b->shared);
    CHECK(a->schema == b->schema && a->schema == a->shared->schema);
    CHECK(a->schema_doc == b->schema_doc);
    CHECK(a->schema_arena == NULL && b->schema_arena == NULL);
    CHECK_INT(a->shared->users, 2);
    cached_schema *shared = a->shared;
    coax_session_free(a); /* the schema stays: b uses it, and the engine owns it */
    CHECK_INT(shared->users, 1);
    CHECK_INT(coax_session_run(b), COAX_OUTCOME_OK);
    CHECK_STR(coax_session_value(b, NULL), "{\"n\":2}");
    coax_session_free(b);
    CHECK_INT(shared->users, 0);
    CHECK(shared->schema != NULL); /* cached for the next session of the batch */
    coax_session *d = session_of(e, N_SCHEMA);
    CHECK(d->shared == shared);
    CHECK_INT(shared->users, 1);
    coax_engine_free(e); /* with d still open: the sessions first, then the cache */
    CHECK_INT(c.live, 0);
}

/* Another text is another entry (one byte differs: a space); the same text
** from a file a recipe names is the same entry as the host's, both read
** within the engine's limits. */
static void test_another_text_is_another_schema(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    coax_session *a = session_of(e, N_SCHEMA);
    coax_session *b = session_of(e, "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}");
    CHECK(a->shared && b->shared && a->shared != b->shared);
    CHECK(a->schema != b->schema);
    /* The same text in a file the recipe names */
    char dir[] = "/tmp/coax_schema_cache_XXXXXX", path[128], recipe[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/n.json", dir);
    snprintf(recipe, sizeof recipe, "%s/n.lua", dir);
    FILE *f = fopen(path, "w");
    fputs(N_SCHEMA, f);
    fclose(f);
    f = fopen(recipe, "w");
    fputs("return { schema = 'n.json', prompt = 'n?' }", f);
    fclose(f);
    coax_session_options o = {0};
    o.agent_json = REPLY;
    coax_session *c = NULL, *d = NULL;
    CHECK_INT(coax_session_from_file(e, recipe, &o, &c, NULL), COAX_OK);
    CHECK_INT(coax_session_from_file(e, recipe, &o, &d, NULL), COAX_OK);
    CHECK(c->shared && c->shared == a->shared && c->shared == d->shared);
    CHECK_INT(a->shared->users, 3);
    CHECK_INT(coax_session_run(c), COAX_OUTCOME_OK);
    remove(path);
    remove(recipe);
    remove(dir);
    coax_engine_free(e);
}

/* Every slot in use: the next schema is the session's own (and freed with
** it); an entry no session uses is the one replaced. */
static void test_a_full_cache_replaces_only_unused_entries(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    coax_engine *e = counted_engine(&al);
    coax_session *s[SCHEMA_CACHE_SIZE + 2];
    char schema[SCHEMA_CACHE_SIZE + 2][128];
    for (int i = 0; i < SCHEMA_CACHE_SIZE + 2; i++)
        snprintf(schema[i], sizeof schema[i], "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},"
                 "\"maxProperties\":%d}", i + 1);
    for (int i = 0; i < SCHEMA_CACHE_SIZE; i++) {
        s[i] = session_of(e, schema[i]);
        CHECK(s[i]->shared != NULL);
    }
    s[SCHEMA_CACHE_SIZE] = session_of(e, schema[SCHEMA_CACHE_SIZE]);
    CHECK(s[SCHEMA_CACHE_SIZE]->shared == NULL); /* no room: its own */
    CHECK(s[SCHEMA_CACHE_SIZE]->schema != NULL && s[SCHEMA_CACHE_SIZE]->schema_arena != NULL);
    CHECK_INT(coax_session_run(s[SCHEMA_CACHE_SIZE]), COAX_OUTCOME_OK);
    coax_session_free(s[SCHEMA_CACHE_SIZE]);
    cached_schema *third = s[2]->shared;
    coax_session_free(s[2]); /* its entry is unused now, and the only one */
    s[SCHEMA_CACHE_SIZE + 1] = session_of(e, schema[SCHEMA_CACHE_SIZE + 1]);
    CHECK(s[SCHEMA_CACHE_SIZE + 1]->shared == third); /* the unused entry replaced */
    for (int i = 0; i < SCHEMA_CACHE_SIZE; i++) {
        if (i == 2) continue;
        CHECK_INT(s[i]->shared->users, 1); /* the others untouched, still in use */
        CHECK_INT(coax_session_run(s[i]), COAX_OUTCOME_OK);
    }
    CHECK_INT(coax_session_run(s[SCHEMA_CACHE_SIZE + 1]), COAX_OUTCOME_OK);
    coax_session *again = session_of(e, schema[2]); /* replaced: compiled anew, into no slot */
    CHECK(again->shared == NULL);
    coax_engine_free(e);
    CHECK_INT(c.live, 0);
}

/* A schema that fails to compile is never cached: each session says why. */
static void test_an_invalid_schema_is_not_cached(void)
{
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    for (int i = 0; i < 2; i++) {
        coax_session *s = session_of(e, "{\"type\":5}");
        const char *why;
        CHECK_INT(coax_session_error(s, &why), COAX_FAILURE_INVALID_SCHEMA);
        CHECK(s->shared == NULL && s->schema == NULL);
    }
    for (int i = 0; i < SCHEMA_CACHE_SIZE; i++) CHECK(e->schemas.slots[i].schema == NULL);
    coax_engine_free(e);
}

#define TESTS                                          \
    X(test_sessions_of_one_schema_share_it)            \
    X(test_another_text_is_another_schema)             \
    X(test_a_full_cache_replaces_only_unused_entries)  \
    X(test_an_invalid_schema_is_not_cached)
#include "test.h"
