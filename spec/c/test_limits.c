/* Every limit through the C API, hit on purpose: the code each call
** returns (or the session's outcome), and nothing leaked on the way (the
** counting allocator). spec/limits_spec.lua does the same for the command
** and Lua; spec/c/test_json.c has 1,000,000 '[' for coax_parse. */
#include "coax.h"

#include <stdbool.h>
#include <stdlib.h>

#include "counting.h"
#include "test.h"

/* ---- parsing, repair, extract -------------------------------------------- */

static const char PERSON[] = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}";

/* Compiles 'text' (parsed in 'a') with 'opt'; NULL when it does not compile. */
static coax_schema *compile(coax_arena *a, const char *text, const coax_schema_options *opt)
{
    coax_value *v;
    coax_schema *s = NULL;
    if (coax_parse(a, text, strlen(text), NULL, &v, NULL) != COAX_OK) return NULL;
    return coax_schema_compile(v, opt, NULL, &s, NULL) == COAX_OK ? s : NULL;
}

/* The code coax_repair, coax_parse and coax_extract give for 'text'. */
typedef struct codes {
    coax_code parse, repair, extract;
} codes;

static codes all_codes(const char *text, size_t len, const coax_limits *lim)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    coax_arena *a = coax_arena_new(&al);
    coax_value *v;
    coax_repair_result r;
    coax_extract_result x;
    coax_schema *s = compile(a, PERSON, NULL);
    codes out = {coax_parse(a, text, len, lim, &v, NULL), coax_repair(a, text, len, lim, &r, NULL),
                 s ? coax_extract(a, s, text, len, lim, NULL, &x, NULL) : COAX_EINVAL};
    coax_schema_free(s);
    coax_arena_free(a);
    CHECK_INT(c.live, 0);
    return out;
}

static void test_nesting_depth(void)
{
    size_t n = 1000000;
    char *deep = malloc(n);
    memset(deep, '[', n);
    codes c = all_codes(deep, n, NULL);
    CHECK_INT(c.parse, COAX_EDEPTH);
    CHECK_INT(c.repair, COAX_EDEPTH);
    CHECK_INT(c.extract, COAX_EDEPTH);
    /* at the limit exactly, and one past it */
    coax_limits lim = {.max_depth = 3};
    c = all_codes("{\"name\":[[\"x\"]]}", 16, &lim);
    CHECK_INT(c.parse, COAX_OK);
    CHECK_INT(c.extract, COAX_OK);
    c = all_codes("{\"name\":[[[\"x\"]]]}", 18, &lim);
    CHECK_INT(c.parse, COAX_EDEPTH);
    CHECK_INT(c.repair, COAX_EDEPTH);
    CHECK_INT(c.extract, COAX_EDEPTH);
    free(deep);
}

static void test_input_size(void)
{
    coax_limits lim = {.max_input = 15};
    codes c = all_codes("{\"name\":\"Ada\"}", 14, &lim);
    CHECK_INT(c.parse, COAX_OK);
    CHECK_INT(c.repair, COAX_OK);
    CHECK_INT(c.extract, COAX_OK);
    c = all_codes("{\"name\": \"Ada\"}", 15, &lim);
    CHECK_INT(c.extract, COAX_OK);
    c = all_codes("{\"name\":  \"Ada\"}", 16, &lim);
    CHECK_INT(c.parse, COAX_ESIZE);
    CHECK_INT(c.repair, COAX_ESIZE);
    CHECK_INT(c.extract, COAX_ESIZE);
}

static void test_string_length(void)
{
    coax_limits lim = {.max_string = 4};
    codes c = all_codes("{\"name\":\"Adam\"}", 15, &lim);
    CHECK_INT(c.parse, COAX_OK);
    CHECK_INT(c.extract, COAX_OK);
    c = all_codes("{\"name\":\"Adams\"}", 16, &lim);
    CHECK_INT(c.parse, COAX_ESTRING);
    CHECK_INT(c.repair, COAX_ESTRING);
    CHECK_INT(c.extract, COAX_ESTRING);
    /* escapes count decoded: \u00e9 is 2 bytes, so 2 of them fit in 4 */
    c = all_codes("[\"\\u00e9\\u00e9\"]", 16, &lim);
    CHECK_INT(c.parse, COAX_OK);
    c = all_codes("{name: 'Adams'}", 15, &lim); /* the lenient parser too */
    CHECK_INT(c.repair, COAX_ESTRING);
}

/* ---- schemas --------------------------------------------------------------- */

/* {"$defs": {"a0": {"$ref": "#/$defs/a1"}, ..., "aN": {"type": "integer"}},
** "$ref": "#/$defs/a0"}: n references in a row. */
static char *ref_chain(size_t n)
{
    size_t cap = 64 + n * 48;
    char *s = malloc(cap);
    size_t len = (size_t)snprintf(s, cap, "{\"$defs\":{");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "\"a%zu\":{\"$ref\":\"#/$defs/a%zu\"},", i, i + 1);
    snprintf(s + len, cap - len, "\"a%zu\":{\"type\":\"integer\"}},\"$ref\":\"#/$defs/a0\"}", n);
    return s;
}

/* Validates 'instance' against 'schema' text; the code, and '*valid'. */
static coax_code validate(const char *schema, const coax_schema_options *opt, const char *instance, int *valid)
{
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    coax_arena *a = coax_arena_new(&al);
    coax_value *iv;
    coax_validation out = {0};
    coax_error err;
    coax_schema *s = compile(a, schema, opt);
    CHECK(s != NULL);
    coax_code rc = COAX_EINVAL;
    if (s && coax_parse(a, instance, strlen(instance), NULL, &iv, NULL) == COAX_OK) {
        rc = coax_validate(s, iv, a, 0, &out, &err);
        if (rc != COAX_OK) CHECK_INT(err.code, rc);
    }
    *valid = out.valid;
    coax_schema_free(s);
    coax_arena_free(a);
    CHECK_INT(c.live, 0);
    return rc;
}

static void test_schema_reference_depth(void)
{
    int valid = -1;
    char *chain = ref_chain(1100);
    CHECK_INT(validate(chain, NULL, "1", &valid), COAX_EDEPTH);
    coax_schema_options deeper = {.max_depth = 2000};
    CHECK_INT(validate(chain, &deeper, "1", &valid), COAX_OK);
    CHECK_INT(valid, 1);
    CHECK_INT(validate(chain, &deeper, "\"x\"", &valid), COAX_OK);
    CHECK_INT(valid, 0);
    free(chain);
    chain = ref_chain(1000);
    CHECK_INT(validate(chain, NULL, "1", &valid), COAX_OK);
    CHECK_INT(valid, 1);
    free(chain);
    /* a recursive schema on a deep instance: the depth counts per level */
    coax_schema_options shallow = {.max_depth = 40};
    char deep[128];
    snprintf(deep, sizeof deep, "%.30s1%.30s", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
    CHECK_INT(validate("{\"items\":{\"$ref\":\"#\"}}", &shallow, deep, &valid), COAX_EDEPTH);
    snprintf(deep, sizeof deep, "%.10s1%.10s", "[[[[[[[[[[", "]]]]]]]]]]");
    CHECK_INT(validate("{\"items\":{\"$ref\":\"#\"}}", &shallow, deep, &valid), COAX_OK);
    CHECK_INT(valid, 1);
}

static void test_regex_steps(void)
{
    int valid = -1;
    char hostile[64];
    snprintf(hostile, sizeof hostile, "\"%s\"", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab");
    CHECK_INT(validate("{\"pattern\":\"^(a+)+$\"}", NULL, hostile, &valid), COAX_ELIMIT);
    CHECK_INT(validate("{\"pattern\":\"^(a+)+$\"}", NULL, "\"aaaa\"", &valid), COAX_OK);
    CHECK_INT(valid, 1);
    /* the limit is the host's: 20 steps are too few even for a short string */
    coax_schema_options few = {.max_regex_steps = 20};
    CHECK_INT(validate("{\"pattern\":\"^(a+)+$\"}", &few, "\"aaaaaaaab\"", &valid), COAX_ELIMIT);
    /* patternProperties too */
    CHECK_INT(validate("{\"patternProperties\":{\"^(a+)+$\":true}}", NULL,
                       "{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\":1}", &valid), COAX_ELIMIT);
}

/* ---- sessions: scripts, tokens, time ---------------------------------------- */

typedef struct ran {
    coax_outcome outcome;
    char report[4096];
} ran;

/* Runs 'recipe' on an engine with the given Lua caps and a counting
** allocator; the replies fail twice, then succeed. */
static ran run(const char *recipe, size_t lua_memory, uint32_t lua_instructions)
{
    ran r = {COAX_OUTCOME_RUNNING, {0}};
    counting c = {0, 0, 0};
    coax_allocator al = COUNTING_ALLOCATOR(&c);
    coax_engine_options eo = {.alloc = &al, .lua_memory = lua_memory, .lua_instructions = lua_instructions};
    coax_engine *e = NULL;
    CHECK_INT(coax_engine_new(&eo, &e, NULL), COAX_OK);
    if (!e) return r;
    coax_session_options so = {0};
    so.input = "Ada";
    so.input_len = 3;
    so.agent_json = "{\"name\":\"replay\",\"replies\":[\"no\",\"none\",\"{\\\"name\\\":\\\"Ada\\\"}\"]}";
    coax_session *s = NULL;
    CHECK_INT(coax_session_from_text(e, recipe, strlen(recipe), "=limits", &so, &s, NULL), COAX_OK);
    if (s) {
        r.outcome = coax_session_run(s);
        const char *rep = coax_session_report(s, NULL);
        snprintf(r.report, sizeof r.report, "%s", rep ? rep : "");
    }
    coax_engine_free(e);
    CHECK_INT(c.live, 0);
    return r;
}

#define RECIPE(extra)                                                                       \
    "return { schema = { type = 'object', properties = { name = { type = 'string' } },"   \
    " required = { 'name' } }" extra " }"

/* The error of a report: {"outcome":"limit",...,"error":{"code":"limit","message":"..."}}. */
static bool error_says(const ran *r, const char *text) { return strstr(r->report, text) != NULL; }

static void test_lua_instructions(void)
{
    static const char *const recipes[] = {
        "while true do end",
        "pcall(function() while true do end end) return {}",
        RECIPE(", prompt = function() while true do end end"),
        RECIPE(", prompt = function() pcall(function() while true do end end) return 'x' end"),
        RECIPE(", prompt = 'x', strategy = function() while true do end end"),
        RECIPE(", prompt = 'x', strategy = function() pcall(function() while true do end end) end"),
        RECIPE(", prompt = 'x', on_submit = function() xpcall(function() while true do end end, print) end"),
        RECIPE(", prompt = 'x', on_submit = function() coroutine.wrap(function() while true do end end)() end"),
    };
    for (size_t i = 0; i < sizeof recipes / sizeof recipes[0]; i++) {
        ran r = run(recipes[i], 0, 100000);
        CHECK_INT(r.outcome, COAX_OUTCOME_LIMIT);
        CHECK(error_says(&r, "script stopped: Lua instruction limit (100000) reached"));
        if (r.outcome != COAX_OUTCOME_LIMIT) printf("  recipe %zu: %s\n", i, r.report);
    }
}

/* A recipe's text whose names are looked up through 190 nested functions
** of 199 locals each ('uses' of them): its parse, one call in C, ran 11.5 s
** for 1.7 MB (400,000 uses) before any instruction was counted. The parser
** runs the count hook (the vendored llex.c), and the parse stops at the
** budget: outcome limit, not an invalid recipe. (spec/attack8_spec.lua
** compares the work at two sizes.) */
static char *nested_recipe(size_t uses)
{
    static const char tail[] = " return { schema = { type = 'object' }, prompt = 'x' }";
    size_t cap = 190 * 1700 + uses * 4 + 190 * 5 + sizeof tail;
    char *text = malloc(cap), *p = text;
    for (int d = 0; d < 190; d++) {
        p += sprintf(p, "local v1");
        for (int i = 2; i < 200; i++) p += sprintf(p, ",v%d", i);
        p += sprintf(p, " local function f() ");
    }
    for (size_t i = 0; i < uses; i++) p += sprintf(p, "y=y ");
    for (int d = 0; d < 190; d++) p += sprintf(p, " end ");
    memcpy(p, tail, sizeof tail);
    return text;
}

static void test_lua_instructions_in_the_parser(void)
{
    char *text = nested_recipe(400000);
    ran r = run(text, 0, 1000000);
    CHECK_INT(r.outcome, COAX_OUTCOME_LIMIT);
    CHECK(error_says(&r, "\"error\":{\"code\":\"limit\",\"message\":\"recipe: script stopped: Lua instruction limit "
                         "(1000000) reached\"}"));
    free(text);
    text = nested_recipe(100); /* twin: the same shape, short, runs */
    r = run(text, 0, 0);
    CHECK_INT(r.outcome, COAX_OUTCOME_OK);
    free(text);
}

static void test_lua_memory(void)
{
    static const char *const recipes[] = {
        "local s = string.rep('x', 2^30) return {}",
        "pcall(string.rep, 'x', 2^30) return {}",
        RECIPE(", prompt = function() return string.rep('x', 2^30) end"),
        RECIPE(", prompt = 'x', strategy = function() pcall(string.rep, 'x', 2^30) end"),
        "local t = {} pcall(function() while true do t[#t + 1] = string.rep('x', 1 << 20) .. #t end end) return {}",
    };
    for (size_t i = 0; i < sizeof recipes / sizeof recipes[0]; i++) {
        ran r = run(recipes[i], (size_t)16 << 20, 0);
        CHECK_INT(r.outcome, COAX_OUTCOME_LIMIT);
        CHECK(error_says(&r, "not enough memory\"}"));
        if (r.outcome != COAX_OUTCOME_LIMIT) printf("  recipe %zu: %s\n", i, r.report);
    }
}

/* What a script's coax.schema, coax.extract and coax.example compile goes
** through the state's allocator, so the Lua memory cap covers it: a schema
** of 30,000 alternatives (1 MB of text, ~50 MB compiled) passes a 16 MB cap
** only by being refused, and one of 3,000 fits. (coax.extract and
** coax.example compiled with the C library's malloc, so the first passed.)
** The refusal is the script's memory stop: raised as a C function the
** compilation calls returns, if the coarse clock moved (script/vm.c's hook:
** attack round 11), or else by the compiler's own COAX_ENOMEM, whose
** lcoax_error runs the engine's stop check first. (It said COAX_ENOMEM's
** own text in about 1 run in 10, when no tick came between: CI went red.) */
#define ALTERNATIVES(n, call)                                                                            \
    "local coax = require('coax') "                                                                      \
    "local text = '{\"anyOf\":[' .. string.rep('{\"type\":\"string\",\"minLength\":1},', " #n ") .. '{}]}' " \
    "return { schema = { type = 'object', properties = { name = { type = 'string' } }, required = { 'name' } },"  \
    " prompt = function() assert(" call ") return 'x' end }"

/* The budget of these recipes: the engine charges a script's time in C
** (250 ns an instruction), and the sanitizers' build compiles these
** schemas ten times slower than the default budget's 2.5 s allow. */
#define BIG_BUDGET 4000000000u

static void test_script_schemas_within_lua_memory(void)
{
    static const char *const calls[] = {
        "coax.extract('\"x\"', text).valid",
        "type(coax.example(text)) == 'string'",
        "coax.schema(text):validate('x')",
    };
    for (size_t i = 0; i < 3; i++) {
        char recipe[1024];
        snprintf(recipe, sizeof recipe, ALTERNATIVES(30000, "%s"), calls[i]);
        ran r = run(recipe, (size_t)16 << 20, BIG_BUDGET);
        CHECK_INT(r.outcome, COAX_OUTCOME_LIMIT);
        CHECK(error_says(&r, "\"message\":\"prompt: not enough memory\""));
        if (r.outcome != COAX_OUTCOME_LIMIT) printf("  call %zu: %s\n", i, r.report);
        snprintf(recipe, sizeof recipe, ALTERNATIVES(3000, "%s"), calls[i]);
        r = run(recipe, (size_t)16 << 20, BIG_BUDGET);
        CHECK_INT(r.outcome, COAX_OUTCOME_OK);
        if (r.outcome != COAX_OUTCOME_OK) printf("  call %zu: %s\n", i, r.report);
    }
}

/* A call frees what it made when it returns, not when the collector gets
** to it (the collector does not see that memory): a hundred calls on a
** 3,000-alternative schema fit in 16 MB. (coax.extract's arenas and
** coax.example's schemas waited for the collector and passed the cap.) */
static void test_script_calls_free_what_they_made(void)
{
    static const char *const calls[] = {
        "coax.extract('\"x\"', text).valid",
        "type(coax.example(text)) == 'string'",
        "coax.repair(text)",
        "coax.schema('{\"type\":\"integer\"}'):validate(text, 'json') == false",
        /* each ~5 MB compiled, dropped: the collector is told of the memory */
        "coax.schema(text):validate('x')",
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        char call[256], recipe[1024];
        snprintf(call, sizeof call, "(function() for _ = 1, 100 do assert(%s) end return true end)()", calls[i]);
        snprintf(recipe, sizeof recipe, ALTERNATIVES(3000, "%s"), call);
        ran r = run(recipe, (size_t)16 << 20, BIG_BUDGET);
        CHECK_INT(r.outcome, COAX_OUTCOME_OK);
        if (r.outcome != COAX_OUTCOME_OK) printf("  call %zu: %s\n", i, r.report);
    }
}

static void test_token_budget_and_deadline(void)
{
    ran r = run(RECIPE(", prompt = 'x {{input}}', budget = { tokens = 20 }"), 0, 0);
    CHECK_INT(r.outcome, COAX_OUTCOME_LIMIT);
    CHECK(error_says(&r, "\"error\":{\"code\":\"tokens\",\"message\":\"token budget of 20 would be passed"));
    r = run(RECIPE(", prompt = 'x', budget = { deadline_ms = 20 }, agent = { name = 'replay', delay_ms = 40 }"), 0,
            0);
    CHECK_INT(r.outcome, COAX_OUTCOME_LIMIT);
    CHECK(error_says(&r, "\"error\":{\"code\":\"deadline\",\"message\":\"the session's deadline passed\"}"));
    /* a budget large enough is no limit */
    r = run(RECIPE(", prompt = 'x', budget = { tokens = 100000, deadline_ms = 60000 }"), 0, 0);
    CHECK_INT(r.outcome, COAX_OUTCOME_OK);
}

#define TESTS                          \
    X(test_nesting_depth)              \
    X(test_input_size)                 \
    X(test_string_length)              \
    X(test_schema_reference_depth)     \
    X(test_regex_steps)                \
    X(test_lua_instructions)           \
    X(test_lua_instructions_in_the_parser) \
    X(test_lua_memory)                 \
    X(test_script_schemas_within_lua_memory) \
    X(test_script_calls_free_what_they_made) \
    X(test_token_budget_and_deadline)
#include "test.h"
