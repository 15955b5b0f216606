/* Every entry point of coax.h given what a careless host passes: NULL, 0,
** SIZE_MAX, invalid UTF-8, values outside an enum, and calls from inside a
** callback. Where the header says a NULL is allowed or an argument is
** checked, the call returns its error code; nothing crashes, nothing leaks
** (the ASan run and the counting allocator check). Arguments the header
** says must be valid (a length longer than its text, a freed pointer) are
** the host's bug and are not tried here. */
#include "coax.h"

#include <stdint.h>
#include <stdlib.h>

#include "counting.h"
#include "test.h"

static const char *RECIPE =
    "return { schema = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } },"
    " prompt = 'n?' }";

static void test_names_outside_their_enums(void)
{
    CHECK_STR(coax_strerror((coax_code)-1), "unknown error code");
    CHECK_STR(coax_code_name((coax_code)999), "COAX_UNKNOWN");
    CHECK_INT(coax_exit_status((coax_code)-5), 2);
    CHECK_STR(coax_type_name((coax_type)77), "unknown");
    CHECK_STR(coax_source_name((coax_source)99), "unknown");
    CHECK_STR(coax_outcome_name((coax_outcome)99), "unknown");
    CHECK_STR(coax_failure_name((coax_session_failure)-1), "unknown");
    CHECK_STR(coax_encoding_name((coax_encoding)-1), "unknown");
    CHECK_STR(coax_class_name((coax_class)-1), "unknown");
    CHECK_STR(coax_class_name((coax_class)3), "unknown");
    CHECK_STR(coax_draft_name((coax_draft)3), "unknown");
    CHECK_STR(coax_draft_name(COAX_DRAFT_AUTO), "auto");
}

/* coax_class_parse stored through a NULL 'out' (a segfault; UBSan: store to
** null pointer) where coax_encoding_parse returns an error. */
static void test_name_parsers_take_null(void)
{
    coax_class cls = COAX_CLASS_INVENTED;
    CHECK_INT(coax_class_parse(NULL, &cls), 0);
    CHECK_INT(coax_class_parse("lossless", NULL), 0);
    CHECK_INT(coax_class_parse("lossless", &cls), 1); /* twin */
    CHECK_INT(cls, COAX_CLASS_LOSSLESS);
    CHECK_INT(coax_draft_parse(NULL), COAX_DRAFT_AUTO);
    CHECK_INT(coax_output_parse(NULL), -1);
    coax_encoding enc;
    CHECK_INT(coax_encoding_parse(NULL, 5, &enc), COAX_EINVAL);
    CHECK_INT(coax_encoding_parse("o200k", 5, NULL), COAX_EINVAL);
    CHECK_INT(coax_encoding_parse("o200k", SIZE_MAX, &enc), COAX_EINVAL);
    coax_limits_default(NULL);
    coax_extract_options_default(NULL);
}

static void test_readers_take_null(void)
{
    size_t len = 7;
    CHECK_INT(coax_value_type(NULL), COAX_NULL);
    CHECK_INT(coax_value_bool(NULL), 0);
    CHECK_INT(coax_number_is_int_text(NULL), 0);
    CHECK(coax_value_double(NULL) == 0);
    CHECK(coax_value_text(NULL, &len) == NULL);
    CHECK_INT(coax_value_len(NULL), 0);
    CHECK(coax_array_get(NULL, 0) == NULL);
    CHECK(coax_object_key(NULL, 0, NULL) == NULL);
    CHECK(coax_object_value(NULL, 0) == NULL);
    CHECK(coax_object_get(NULL, "a", 1) == NULL);
    const coax_value *out;
    CHECK_INT(coax_pointer_get(NULL, "", 0, &out), COAX_EINVAL);
    CHECK_INT(coax_arena_size(NULL), 0);
    coax_arena_free(NULL);
    coax_arena_reset(NULL);
    coax_arena_trim(NULL);
    coax_free(NULL, NULL, 0);
    CHECK_INT(coax_schema_draft(NULL), COAX_DRAFT_AUTO);
    coax_schema_free(NULL);
    coax_meta_cache_free(NULL);
}

static void test_texts_and_values(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    coax_arena *a = coax_arena_new(&al);
    coax_value *v = NULL;
    coax_error err;
    CHECK_INT(coax_parse(a, NULL, 0, NULL, &v, &err), COAX_ESYNTAX);
    CHECK_INT(coax_parse(a, NULL, 5, NULL, &v, &err), COAX_EINVAL);
    CHECK_INT(coax_parse(a, "1", SIZE_MAX, NULL, &v, &err), COAX_ESIZE);
    CHECK_INT(coax_parse(NULL, "1", 1, NULL, &v, &err), COAX_EINVAL);
    CHECK_INT(coax_parse(a, "1", 1, NULL, NULL, &err), COAX_EINVAL);
    CHECK_INT(coax_parse(a, "\"\xff\"", 3, NULL, &v, &err), COAX_EUTF8);
    coax_limits huge = {SIZE_MAX, SIZE_MAX, SIZE_MAX}; /* lowered to their caps */
    CHECK_INT(coax_parse(a, "[[[[1]]]]", 9, &huge, &v, NULL), COAX_OK);
    CHECK_INT(coax_parse(a, "{\"a\":[1,2,{\"b\":null}]}", 22, NULL, &v, NULL), COAX_OK);
    const coax_value *out;
    CHECK(coax_object_get(v, NULL, 5) == NULL);
    CHECK(coax_object_key(v, SIZE_MAX, NULL) == NULL);
    CHECK(coax_array_get(coax_object_get(v, "a", 1), SIZE_MAX) == NULL);
    CHECK_INT(coax_pointer_get(v, "/a/2/b", 6, NULL), COAX_EINVAL);
    CHECK_INT(coax_pointer_get(v, NULL, 3, &out), COAX_EINVAL);
    CHECK_INT(coax_pointer_get(v, "/a/99999999999999999999999", 26, &out), COAX_ENOTFOUND);
    CHECK_INT(coax_pointer_get(v, "/a/~2", 5, &out), COAX_EINVAL);
    CHECK_INT(coax_value_equal(v, NULL, NULL), 0);
    char *text = NULL;
    size_t len = 0;
    CHECK_INT(coax_write(NULL, 0, &al, &text, &len), COAX_EINVAL);
    CHECK_INT(coax_write(v, 0, &al, NULL, &len), COAX_EINVAL);
    CHECK_INT(coax_write(v, ~0u, &al, &text, &len), COAX_OK); /* unknown flags are ignored */
    coax_free(&al, text, len + 1);
    coax_repair_result rr;
    CHECK_INT(coax_repair(a, NULL, 0, NULL, &rr, &err), COAX_ENOJSON);
    CHECK_INT(coax_repair(a, NULL, 3, NULL, &rr, &err), COAX_EINVAL);
    CHECK_INT(coax_repair(NULL, "{", 1, NULL, &rr, &err), COAX_EINVAL);
    CHECK_INT(coax_repair(a, "{", 1, NULL, NULL, &err), COAX_EINVAL);
    CHECK_INT(coax_repair(a, "{", SIZE_MAX, NULL, &rr, &err), COAX_ESIZE);
    CHECK_INT(coax_repair(a, "{\"a\":\xff\xfe", 7, NULL, &rr, &err), COAX_OK);
    CHECK_INT(coax_repair(a, "[[[[1", 5, &huge, &rr, &err), COAX_OK);
    coax_arena_free(a);
    CHECK_INT(c.live, 0);
}

static void test_schemas_extract_and_example(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    coax_arena *a = coax_arena_new(&al);
    coax_value *sv, *v;
    coax_error err;
    CHECK_INT(coax_parse(a, "{\"type\":\"object\"}", 17, NULL, &sv, NULL), COAX_OK);
    CHECK_INT(coax_parse(a, "{}", 2, NULL, &v, NULL), COAX_OK);
    coax_schema *s = NULL;
    CHECK_INT(coax_schema_compile(NULL, NULL, &al, &s, &err), COAX_EINVAL);
    CHECK_INT(coax_schema_compile(sv, NULL, &al, NULL, &err), COAX_EINVAL);
    coax_schema_options so = {0};
    so.draft = (coax_draft)12345;
    CHECK_INT(coax_schema_compile(sv, &so, &al, &s, &err), COAX_EINVAL);
    so.draft = COAX_DRAFT_AUTO;
    so.max_depth = SIZE_MAX, so.max_regex_steps = UINT32_MAX, so.max_steps = UINT64_MAX;
    so.max_regex_total = UINT64_MAX, so.max_error_bytes = SIZE_MAX, so.max_uri_bytes = SIZE_MAX;
    so.remote_base = "http://x/"; /* without remote_dir: nothing to read */
    CHECK_INT(coax_schema_compile(sv, &so, &al, &s, &err), COAX_OK);
    coax_validation val;
    CHECK_INT(coax_validate(NULL, v, a, 0, &val, &err), COAX_EINVAL);
    CHECK_INT(coax_validate(s, NULL, a, 0, &val, &err), COAX_EINVAL);
    CHECK_INT(coax_validate(s, v, NULL, 0, &val, &err), COAX_EINVAL);
    CHECK_INT(coax_validate(s, v, a, 0, NULL, &err), COAX_EINVAL);
    CHECK_INT(coax_validate(s, v, a, ~0u, &val, &err), COAX_OK);
    char *text;
    size_t len;
    CHECK_INT(coax_validation_write(NULL, COAX_OUTPUT_BASIC, &al, &text, &len), COAX_EINVAL);
    CHECK_INT(coax_validation_write(&val, COAX_OUTPUT_BASIC, &al, NULL, NULL), COAX_EINVAL);
    CHECK_INT(coax_validation_write(&val, (coax_output)77, &al, &text, &len), COAX_OK);
    coax_free(&al, text, len + 1);
    coax_extract_result er;
    coax_extract_options eo = {~0u, (coax_class)77};
    CHECK_INT(coax_extract(a, s, NULL, 0, NULL, NULL, &er, &err), COAX_ENOJSON);
    CHECK_INT(coax_extract(a, NULL, "{}", 2, NULL, NULL, &er, &err), COAX_EINVAL);
    CHECK_INT(coax_extract(NULL, s, "{}", 2, NULL, NULL, &er, &err), COAX_EINVAL);
    CHECK_INT(coax_extract(a, s, "{}", 2, NULL, NULL, NULL, &err), COAX_EINVAL);
    CHECK_INT(coax_extract(a, s, "{}", 2, NULL, &eo, &er, &err), COAX_OK);
    /* a length past max_input is refused before a byte is read (the control and invisible looks read from the end) */
    CHECK_INT(coax_extract(a, s, "{", SIZE_MAX, NULL, NULL, &er, &err), COAX_ESIZE);
    CHECK_INT(coax_extract(a, s, "{}\0\0", 4, NULL, NULL, &er, &err), COAX_OK); /* NULs ending it: padding */
    coax_limits huge = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    CHECK_INT(coax_extract(a, s, "{\xff}", 3, &huge, NULL, &er, &err), COAX_OK);
    coax_example_result xr;
    coax_example_options xo = {SIZE_MAX, SIZE_MAX, ~0u}; /* depth capped at 256; steps as given */
    CHECK_INT(coax_example(NULL, NULL, a, &xr, &err), COAX_EINVAL);
    CHECK_INT(coax_example(s, NULL, NULL, &xr, &err), COAX_EINVAL);
    CHECK_INT(coax_example(s, NULL, a, NULL, &err), COAX_EINVAL);
    CHECK_INT(coax_example(s, &xo, a, &xr, &err), COAX_OK);
    CHECK_INT(coax_tokens(COAX_ENC_COUNT, NULL, 5), 0);
    CHECK_INT(coax_tokens((coax_encoding)-7, "\xff\xfe\xf0\x9f", 4), 3);
    coax_message m = {NULL, 5, NULL, 5, NULL, 7}; /* NULL texts count as empty, whatever their lengths */
    CHECK_INT(coax_tokens_chat(COAX_ENC_O200K, &m, 1), coax_tokens_chat(COAX_ENC_O200K, NULL, 0) + 3);
    coax_schema_free(s);
    coax_arena_free(a);
    CHECK_INT(c.live, 0);
}

static void test_engines_and_sessions(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = {c_malloc, c_realloc, c_free, &c};
    coax_engine_options eo = {0};
    eo.alloc = &al;
    coax_engine *e = NULL;
    coax_error err;
    CHECK_INT(coax_engine_new(NULL, NULL, &err), COAX_EINVAL);
    coax_engine_free(NULL);
    coax_engine_interrupt(NULL);
    CHECK_INT(coax_engine_poll(NULL, -1), 0);
    CHECK_INT(coax_engine_new(&eo, &e, &err), COAX_OK);
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(NULL, "return {}", 9, NULL, NULL, &s, &err), COAX_EINVAL);
    CHECK_INT(coax_session_from_text(e, NULL, 5, NULL, NULL, &s, &err), COAX_EINVAL);
    CHECK_INT(coax_session_from_text(e, "return {}", 9, NULL, NULL, NULL, &err), COAX_EINVAL);
    CHECK_INT(coax_session_from_file(e, NULL, NULL, &s, &err), COAX_EINVAL);
    CHECK_INT(coax_session_from_file(e, "/dev/zero", NULL, &s, &err), COAX_EIO);
    CHECK_INT(coax_session_from_schema(e, NULL, 0, "p", NULL, &s, &err), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_INVALID); /* no schema text: not JSON */
    coax_session_free(s);
    CHECK_INT(coax_session_from_schema(e, "{}", 2, NULL, NULL, &s, &err), COAX_EINVAL);
    coax_session_options o = {0};
    o.input = NULL, o.input_len = 100; /* no input: none, whatever its length */
    o.max_attempts = -5;
    o.agent_json = "[1,2";
    CHECK_INT(coax_session_from_schema(e, "{}", 2, "p {{input}}", &o, &s, &err), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_INVALID);
    coax_session_free(s);
    o.input = "\xff\x00zz", o.input_len = 4, o.max_attempts = INT32_MAX;
    o.agent_json = "{\"name\":\"host\"}";
    CHECK_INT(coax_session_from_text(e, RECIPE, strlen(RECIPE), NULL, &o, &s, &err), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_RUNNING);
    CHECK_INT(coax_session_run(NULL), COAX_OUTCOME_INVALID);
    CHECK_INT(coax_session_outcome(NULL), COAX_OUTCOME_INVALID);
    CHECK_INT(coax_session_error(NULL, NULL), COAX_FAILURE_NONE);
    CHECK(coax_session_value(NULL, NULL) == NULL);
    CHECK(coax_session_report(NULL, NULL) == NULL);
    CHECK(coax_session_host_request(NULL, NULL) == NULL);
    CHECK_INT(coax_session_host_piece(NULL, "x", 1, &err), COAX_EINVAL);
    CHECK_INT(coax_session_host_reply(NULL, "x", 1, -1, -1, &err), COAX_EINVAL);
    CHECK_INT(coax_session_host_fail(NULL, NULL, &err), COAX_EINVAL);
    CHECK_INT(coax_session_host_finish(NULL, "stop", &err), COAX_EINVAL);
    coax_session_free(NULL);
    CHECK_INT(coax_session_host_piece(s, "\xff", 1, &err), COAX_OK);
    CHECK_INT(coax_session_host_piece(s, NULL, 5, &err), COAX_EINVAL);
    CHECK_INT(coax_session_host_reply(s, NULL, 5, -1, -1, &err), COAX_EINVAL);
    CHECK_INT(coax_session_host_fail(s, NULL, &err), COAX_OK);
    CHECK_INT(coax_session_run(s), COAX_OUTCOME_AGENT_ERROR);
    CHECK_INT(coax_session_host_reply(s, "{\"n\":1}", 7, -1, -1, &err), COAX_EINVAL); /* answered */
    CHECK_INT(coax_session_host_finish(s, "stop", &err), COAX_EINVAL);
    coax_engine_free(e);
    CHECK_INT(c.live, 0);
}

/* A copy of text[0..len) in a block of exactly 'len' bytes, no NUL after
** it: under ASan a read past the end is an error. */
static char *exact(const char *text, size_t len)
{
    char *p = malloc(len ? len : 1);
    memcpy(p, text, len);
    return p;
}

/* Text given with its length is never read past that length, NUL or not
** ("coax never requires NUL termination of input"). */
static void test_unterminated_buffers(void)
{
    static const char *const texts[] = {"{\"a\": [1, 2", "```json\n{\"a\": 1}\n```", "\"\\u00", "tru", "-", "{\"a\":1}",
        /* attack round 19: each ending on one of hunt23's, repair12's and the phrase tables' constructs (a
        ** lone CR, a BOM, a zero-width space, half a CJK character, "{...},", an unquoted key's end) */
        "Here:\r{\"a\": 1}\r", "Answer:\xEF\xBB\xBF", "Example\xE2\x80\x8B", "{\"a\": 1}\xE6\x88",
        "{\"a\": 1},", "{\"a\": 1}\n{\"a\": 1}", "{abcdefghijklmnopq", "[1,,", "{\"a\": [Circular *1"};
    coax_arena *a = coax_arena_new(NULL);
    coax_value *sv, *v;
    CHECK_INT(coax_parse(a, "{\"type\":\"object\"}", 17, NULL, &sv, NULL), COAX_OK);
    coax_schema *s;
    CHECK_INT(coax_schema_compile(sv, NULL, NULL, &s, NULL), COAX_OK);
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        size_t len = strlen(texts[i]);
        char *t = exact(texts[i], len);
        coax_repair_result rr;
        coax_extract_result er;
        coax_parse(a, t, len, NULL, &v, NULL);
        coax_repair(a, t, len, NULL, &rr, NULL);
        coax_extract(a, s, t, len, NULL, NULL, &er, NULL);
        CHECK(coax_tokens(COAX_ENC_O200K, t, len) > 0);
        const coax_value *out;
        coax_pointer_get(sv, t, len, &out);
        coax_object_get(sv, t, len);
        free(t);
    }
    char *name = exact("o200k", 5);
    coax_encoding enc;
    CHECK_INT(coax_encoding_parse(name, 5, &enc), COAX_OK);
    CHECK_INT(coax_encoding_parse(name, 4, &enc), COAX_EINVAL);
    free(name);
    char *key = exact("type", 4);
    CHECK(coax_object_get(sv, key, 4) != NULL);
    CHECK(coax_object_get(sv, key, 3) == NULL);
    free(key);
    coax_engine *e;
    CHECK_INT(coax_engine_new(NULL, &e, NULL), COAX_OK);
    coax_session_options o = {0};
    o.input = exact("xyz", 3), o.input_len = 3;
    o.agent_json = "{\"name\":\"host\"}";
    char *recipe = exact(RECIPE, strlen(RECIPE)), *schema = exact("{\"type\":\"integer\"}", 18);
    coax_session *r, *sc;
    CHECK_INT(coax_session_from_text(e, recipe, strlen(RECIPE), "=r", &o, &r, NULL), COAX_OK);
    CHECK_INT(coax_session_from_schema(e, schema, 18, "p {{input}}", &o, &sc, NULL), COAX_OK);
    free(recipe);
    free(schema);
    free((char *)o.input);
    for (int i = 0; i < 50 && !(coax_session_host_request(r, NULL) && coax_session_host_request(sc, NULL)); i++)
        coax_engine_poll(e, 10);
    char *piece = exact("{\"n\": 1", 7), *reply = exact("{\"n\": 1}", 8), *whole = exact("7", 1);
    CHECK_INT(coax_session_host_piece(r, piece, 7, NULL), COAX_OK);
    CHECK_INT(coax_session_host_reply(r, reply, 8, -1, -1, NULL), COAX_OK);
    CHECK_INT(coax_session_host_reply(sc, whole, 1, -1, -1, NULL), COAX_OK);
    free(piece);
    free(reply);
    free(whole);
    CHECK_INT(coax_session_run(r), COAX_OUTCOME_OK);
    CHECK_INT(coax_session_run(sc), COAX_OUTCOME_OK);
    coax_engine_free(e);
    coax_schema_free(s);
    coax_arena_free(a);
}

/* What the host's on_submit does inside the poll that asked it: the
** session, another one, or the engine, as test_session.c's on_event. */
typedef struct submitter {
    coax_engine *engine;
    coax_session *waiting; /* a host-agent session waiting for its reply */
    const char *what;
    int calls;
} submitter;

static bool on_submit(void *ud, coax_session *s, const char *value, size_t len, char *reason, size_t cap)
{
    (void)value, (void)len;
    submitter *t = ud;
    t->calls++;
    if (!strcmp(t->what, "free self")) coax_session_free(s);
    else if (!strcmp(t->what, "free engine")) coax_engine_free(t->engine);
    else if (!strcmp(t->what, "run")) CHECK_INT(coax_session_run(s), COAX_OUTCOME_RUNNING);
    else if (!strcmp(t->what, "poll")) coax_engine_poll(t->engine, 10);
    else if (!strcmp(t->what, "answer another")) {
        CHECK_INT(coax_session_host_reply(t->waiting, "{\"n\":5}", 7, -1, -1, NULL), COAX_OK);
    } else if (!strcmp(t->what, "reject")) {
        memset(reason, 0xff, cap - 1); /* not UTF-8: the report holds U+FFFD instead */
        reason[cap - 1] = 0;
        return false;
    }
    return true;
}

static void test_on_submit_reenters_safely(void)
{
    const char *whats[] = {"free self", "free engine", "run", "poll", "answer another", "reject"};
    for (size_t w = 0; w < sizeof whats / sizeof *whats; w++) {
        counting c = {0, 0, 0};
        coax_allocator al = {c_malloc, c_realloc, c_free, &c};
        coax_engine_options eo = {0};
        eo.alloc = &al;
        submitter t = {NULL, NULL, whats[w], 0};
        CHECK_INT(coax_engine_new(&eo, &t.engine, NULL), COAX_OK);
        coax_session_options o = {0};
        o.agent_json = "{\"name\":\"host\"}";
        CHECK_INT(coax_session_from_text(t.engine, RECIPE, strlen(RECIPE), "=w", &o, &t.waiting, NULL), COAX_OK);
        for (int i = 0; i < 50 && !coax_session_host_request(t.waiting, NULL); i++) coax_engine_poll(t.engine, 10);
        o.agent_json = "{\"name\":\"replay\",\"replies\":[\"{\\\"n\\\":1}\",\"{\\\"n\\\":1}\"]}";
        o.max_attempts = 2;
        o.on_submit = on_submit;
        o.submit_ud = &t;
        coax_session *s;
        CHECK_INT(coax_session_from_text(t.engine, RECIPE, strlen(RECIPE), "=s", &o, &s, NULL), COAX_OK);
        for (int i = 0; i < 50 && coax_engine_poll(t.engine, 10) > 1;) i++;
        if (!strcmp(t.what, "free engine")) {
            CHECK_INT(t.calls, 1);
            CHECK_INT(c.live, 0);
            continue;
        }
        if (strcmp(t.what, "free self")) {
            CHECK_INT(coax_session_outcome(s), strcmp(t.what, "reject") ? COAX_OUTCOME_OK : COAX_OUTCOME_EXHAUSTED);
            CHECK_INT(t.calls, strcmp(t.what, "reject") ? 1 : 2);
        }
        if (!strcmp(t.what, "reject")) {
            const char *why;
            CHECK_INT(coax_session_error(s, &why), COAX_FAILURE_EXHAUSTED);
            CHECK(strstr(why, "\xef\xbf\xbd\xef\xbf\xbd") != NULL);
        }
        if (!strcmp(t.what, "answer another")) {
            for (int i = 0; i < 50 && coax_engine_poll(t.engine, 10) > 0;) i++;
            CHECK_INT(coax_session_outcome(t.waiting), COAX_OUTCOME_OK);
        }
        coax_engine_free(t.engine);
        CHECK_INT(c.live, 0);
    }
}

/* The finish a host says for its reply: "stop" takes a number an open reply
** ends on as written, as a provider's "stop" does; none (each request
** starts with none) refuses it, the number may be cut; a finish longer
** than 23 bytes, or not printable ASCII, is refused and changes nothing. */
static void test_host_finish(void)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    coax_engine_options eo = {0};
    eo.alloc = &al;
    coax_engine *e;
    coax_error err = {0};
    CHECK_INT(coax_engine_new(&eo, &e, NULL), COAX_OK);
    const char *finishes[] = {"stop", NULL};
    for (int k = 0; k < 2; k++) {
        coax_session_options o = {0};
        o.agent_json = "{\"name\":\"host\"}";
        o.max_attempts = 1;
        coax_session *s;
        CHECK_INT(coax_session_from_text(e, RECIPE, strlen(RECIPE), NULL, &o, &s, NULL), COAX_OK);
        CHECK_INT(coax_session_run(s), COAX_OUTCOME_RUNNING);
        CHECK_INT(coax_session_host_finish(s, "a_finish_of_twenty_four_", &err), COAX_EINVAL);
        CHECK_STR(err.msg, "a finish of 24 bytes: at most 23");
        CHECK_INT(coax_session_host_finish(s, "st\nop", &err), COAX_EINVAL);
        CHECK_STR(err.msg, "a finish is printable ASCII: byte 2 is 0x0a");
        CHECK_INT(coax_session_host_finish(s, "length", NULL), COAX_OK);
        CHECK_INT(coax_session_host_finish(s, finishes[k], NULL), COAX_OK); /* the last one said counts */
        CHECK_INT(coax_session_host_reply(s, "{\"n\": 12", 8, -1, -1, NULL), COAX_OK);
        CHECK_INT(coax_session_run(s), finishes[k] ? COAX_OUTCOME_OK : COAX_OUTCOME_EXHAUSTED);
        const char *report = coax_session_report(s, NULL);
        CHECK(report && strstr(report, finishes[k] ? "\"finish\":\"stop\"" : "\"finish\":null"));
        if (finishes[k]) CHECK_STR(coax_session_value(s, NULL), "{\"n\":12}");
        coax_session_free(s);
    }
    coax_engine_free(e);
    CHECK_INT(c.live, 0);
}

#define TESTS                               \
    X(test_names_outside_their_enums)       \
    X(test_name_parsers_take_null)          \
    X(test_readers_take_null)               \
    X(test_texts_and_values)                \
    X(test_schemas_extract_and_example)     \
    X(test_engines_and_sessions)            \
    X(test_unterminated_buffers)            \
    X(test_on_submit_reenters_safely)       \
    X(test_host_finish)
#include "test.h"
