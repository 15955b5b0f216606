/* Random recipes against the host (issue 17): the fuzzer's bytes choose a
** Lua program over the sandbox's surface (every library function, the
** tables every session shares, metatables whose metamethods are library
** functions, coroutines, <close>, load, nesting through pcall and
** coroutines, huge and odd arguments) and where it runs (a recipe's top
** level, its template, its strategy, its agent). The attacker runs in one
** engine beside a victim session whose reply and value are known. For every
** input: nothing crashes (the sanitizers watch), the attacker ends within
** its budget, and the victim gives exactly what it gives on a fresh engine,
** while the attacker runs and after it. */
#include "fuzz.h"

#include <time.h>

/* The victim reads what an attacker would change and hands it to its
** prompt; its reply's value is checked too. */
static const char VICTIM[] =
    "local coax = require('coax')\n"
    "local function check()\n"
    "  return table.concat({ string.format('%d', 7), tostring(1), coax.json.encode({ 1, { a = 2 } }),\n"
    "    coax.json.encode(coax.json.array({})), ('ab'):rep(2), tostring(pcall(error)), type(coax.http.request),\n"
    "    tostring(getmetatable('')), tostring(getmetatable(string)), tostring(#string.format('%5s', 'x')),\n"
    "    table.concat({ 'a', 'b' }, ','), tostring(select('#', table.unpack({ 1, 2, 3 }))) }, ' ')\n"
    "end\n"
    "return { schema = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } },\n"
    "  prompt = function(input) return check() .. ' ' .. input end,\n"
    "  on_submit = function(v) return v.n == 42, 'not 42' end }";
static const char VICTIM_AGENT[] = "{\"name\":\"replay\",\"replies\":[\"no JSON\",\"{\\\"n\\\": 42}\"]}";

/* Pieces the generator joins. */
static const char *const GEN_SHARED[] = {"string", "table", "math", "utf8", "os", "coroutine", "_G", "_ENV",
                                     "require('coax')", "require('coax').json", "require('coax').http",
                                     "require('cjson')", "getmetatable('')", "package"};
static const char *const GEN_FUNCS[] = {
    "string.rep", "string.format", "string.byte", "string.char", "string.sub", "string.upper", "string.reverse",
    "string.pack", "string.unpack", "string.packsize", "string.find", "string.gsub", "string.gmatch",
    "string.match", "table.concat", "table.insert", "table.remove", "table.move", "table.sort", "table.unpack",
    "table.pack", "math.floor", "math.tointeger", "math.max", "utf8.char", "utf8.codepoint", "utf8.len",
    "utf8.offset", "utf8.codes", "os.date", "os.time", "select", "tostring", "tonumber", "rawget", "rawset",
    "rawlen", "rawequal", "next", "pairs", "ipairs", "setmetatable", "getmetatable", "type", "error", "assert",
    "pcall", "xpcall", "load", "coroutine.create", "coroutine.wrap", "coroutine.resume", "coroutine.close",
    "coroutine.status", "coroutine.yield", "coroutine.running", "require", "collectgarbage",
    "require('coax').json.encode", "require('coax').json.decode", "require('coax').json.array",
    "require('coax').json.object", "require('coax').json.number", "require('coax').json.type",
    "require('coax').json.keys", "require('coax').schema", "require('coax').example", "require('coax').repair",
    "require('coax').extract", "require('coax').tokens", "require('coax').sleep", "require('coax').secret",
    "require('coax').getenv", "require('coax').check_reply", "require('cjson').encode", "require('cjson').decode",
    "require('cjson').encode_max_depth", "require('cjson').decode_max_depth", "print"};
static const char *const GEN_ATOMS[] = {"nil", "true", "0", "1", "-1", "3", "1 << 50", "math.maxinteger",
                                    "math.mininteger", "2^53", "math.huge", "-math.huge", "0/0", "1e300", "''",
                                    "'1'", "'x'", "'%d'", "'%99d'", "'(.-)%1'", "'[1,{}]'", "'{\"a\":1}'",
                                    "'i16'", "'c1000000'", "('ab'):rep(100)", "{}", "{ 1, 2, 3 }",
                                    "{ [1] = 'a', ['1'] = 'b' }", "{ n = 1 }", "_ENV", "...", "x", "t"};
static const char *const GEN_METAS[] = {"__index", "__newindex", "__len", "__call", "__close", "__tostring", "__lt",
                                    "__le", "__eq", "__concat", "__add", "__unm", "__pairs", "__name",
                                    "__metatable", "__mode", "__gc"};

typedef struct gen_state {
    const uint8_t *p, *end;
    char *out;
    size_t len, cap;
    int depth;
} gen_state;

static unsigned gen_pick(gen_state *g, unsigned n)
{
    if (g->p >= g->end || n == 0) return 0;
    return *g->p++ % n;
}

static void gen_put(gen_state *g, const char *s)
{
    size_t n = strlen(s);
    if (g->len + n + 1 > g->cap) return; /* the program is cut short */
    memcpy(g->out + g->len, s, n + 1);
    g->len += n;
}

#define COUNT(a) (sizeof a / sizeof *a)

static void gen_value(gen_state *g);
static void gen_statements(gen_state *g, unsigned n);

static void gen_function(gen_state *g)
{
    switch (gen_pick(g, 4)) {
    case 0:
    case 1: gen_put(g, GEN_FUNCS[gen_pick(g, COUNT(GEN_FUNCS))]); break;
    case 2:
        gen_put(g, "function(...) local x, t = ... ");
        g->depth++;
        gen_statements(g, gen_pick(g, 3));
        g->depth--;
        gen_put(g, " return ");
        gen_value(g);
        gen_put(g, " end");
        break;
    default: gen_put(g, "f"); break; /* the program's own function: recursion */
    }
}

static void gen_value(gen_state *g)
{
    if (g->depth > 6) {
        gen_put(g, GEN_ATOMS[gen_pick(g, COUNT(GEN_ATOMS))]);
        return;
    }
    g->depth++;
    switch (gen_pick(g, 9)) {
    case 0: gen_put(g, GEN_SHARED[gen_pick(g, COUNT(GEN_SHARED))]); break;
    case 1: gen_function(g); break;
    case 2:
        gen_put(g, "setmetatable({}, { ");
        gen_put(g, GEN_METAS[gen_pick(g, COUNT(GEN_METAS))]);
        gen_put(g, " = ");
        gen_function(g);
        gen_put(g, ", ");
        gen_put(g, GEN_METAS[gen_pick(g, COUNT(GEN_METAS))]);
        gen_put(g, " = ");
        gen_value(g);
        gen_put(g, " })");
        break;
    case 3:
        gen_put(g, "(");
        gen_function(g);
        gen_put(g, ")(");
        gen_value(g);
        gen_put(g, ", ");
        gen_value(g);
        gen_put(g, ")");
        break;
    case 4:
        gen_put(g, "coroutine.create(");
        gen_function(g);
        gen_put(g, ")");
        break;
    default: gen_put(g, GEN_ATOMS[gen_pick(g, COUNT(GEN_ATOMS))]); break;
    }
    g->depth--;
}

static void gen_statement(gen_state *g)
{
    if (g->depth > 8) {
        gen_put(g, "x = 1");
        return;
    }
    g->depth++;
    switch (gen_pick(g, 12)) {
    case 0:
    case 1:
        gen_put(g, "pcall(");
        gen_function(g);
        gen_put(g, ", ");
        gen_value(g);
        gen_put(g, ", ");
        gen_value(g);
        gen_put(g, ", ");
        gen_value(g);
        gen_put(g, ")");
        break;
    case 2:
        gen_put(g, "x = ");
        gen_value(g);
        break;
    case 3:
        gen_put(g, "t = ");
        gen_value(g);
        break;
    case 4:
        gen_put(g, "for i = 1, ");
        gen_put(g, (const char *[]){"3", "100", "100000", "1 << 40"}[gen_pick(g, 4)]);
        gen_put(g, " do ");
        gen_statements(g, 1 + gen_pick(g, 2));
        gen_put(g, " end");
        break;
    case 5:
        gen_put(g, "do local c <close> = setmetatable({}, { __close = ");
        gen_function(g);
        gen_put(g, " }) ");
        gen_statements(g, 1 + gen_pick(g, 2));
        gen_put(g, " end");
        break;
    case 6:
        gen_put(g, "pcall(function(...) ");
        gen_put(g, GEN_SHARED[gen_pick(g, COUNT(GEN_SHARED))]);
        gen_put(g, (const char *[]){".format", ".x", "[1]", ".encode", ".request"}[gen_pick(g, 5)]);
        gen_put(g, " = ");
        gen_value(g);
        gen_put(g, " end)");
        break;
    case 7:
        gen_put(g, "do local co = coroutine.create(function(...) ");
        gen_statements(g, 1 + gen_pick(g, 2));
        gen_put(g, " coroutine.yield() ");
        gen_statements(g, gen_pick(g, 2));
        gen_put(g, " end) coroutine.resume(co, ");
        gen_value(g);
        gen_put(g, ") ");
        gen_statements(g, gen_pick(g, 2));
        gen_put(g, " coroutine.close(co) end");
        break;
    case 8:
        gen_put(g, "f = ");
        gen_function(g);
        break;
    case 9:
        gen_put(g, "x = (");
        gen_function(g);
        gen_put(g, ")(");
        gen_value(g);
        gen_put(g, ", ");
        gen_value(g);
        gen_put(g, ")");
        break;
    case 10:
        gen_put(g, "pcall(load, ");
        gen_put(g, (const char *[]){"'return ...'", "function() return nil end", "function() return f() end",
                                "string.rep('(', 1000)", "'x = x + 1'"}[gen_pick(g, 5)]);
        gen_put(g, ")");
        break;
    default:
        gen_put(g, "if ");
        gen_value(g);
        gen_put(g, " then ");
        gen_statements(g, 1);
        gen_put(g, " else ");
        gen_statements(g, 1);
        gen_put(g, " end");
        break;
    }
    g->depth--;
}

static void gen_statements(gen_state *g, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        gen_statement(g);
        gen_put(g, "\n");
    }
}

/* The attacker's recipe: its program, in the place the first byte names. */
static char *attacker_recipe(const uint8_t *data, size_t size)
{
    static char program[16384];
    gen_state g = {data + (size > 0), data + size, program, 0, sizeof program, 0};
    program[0] = '\0';
    gen_put(&g, "local x, t, f = 1, {}, nil\n");
    while (g.p < g.end && g.len < sizeof program - 512) gen_statements(&g, 1);
    static char recipe[sizeof program + 1024];
    static const char *const GEN_PLACES[] = {
        "local function run(...)\n%s\nend\nlocal ok, e = pcall(run)\n"
        "return { budget = { deadline_ms = 2000 }, schema = { type = 'integer' }, prompt = 'x' }",
        "local function run(...)\n%s\nend\n"
        "return { budget = { deadline_ms = 2000 }, schema = { type = 'integer' }, prompt = function() pcall(run) return 'x' end }",
        "local function run(...)\n%s\nend\n"
        "return { budget = { deadline_ms = 2000 }, schema = { type = 'integer' }, prompt = 'x', strategy = function() pcall(run) "
        "return { { role = 'user', content = 'y' } } end }",
        "local function run(...)\n%s\nend\n"
        "return { budget = { deadline_ms = 2000 }, schema = { type = 'integer' }, prompt = 'x', agent = { call = function() run() "
        "return { text = '1' } end } }",
        "%s\nreturn { budget = { deadline_ms = 2000 }, schema = { type = 'integer' }, prompt = 'x' }",
    };
    snprintf(recipe, sizeof recipe, GEN_PLACES[size ? data[0] % COUNT(GEN_PLACES) : 0], program);
    return recipe;
}

static coax_engine *recipe_engine(void)
{
    coax_engine_options o = {0};
    o.lua_instructions = 200000;
    o.lua_memory = 32u << 20;
    coax_engine *e = NULL;
    FUZZ_CHECK(coax_engine_new(&o, &e, NULL) == COAX_OK);
    return e;
}

static coax_session *start_session(coax_engine *e, const char *recipe, const char *agent)
{
    coax_session_options so = {0};
    so.input = "victim's input";
    so.input_len = strlen(so.input);
    so.agent_json = agent;
    coax_session *s = NULL;
    FUZZ_CHECK(coax_session_from_text(e, recipe, strlen(recipe), "=recipe", &so, &s, NULL) == COAX_OK);
    return s;
}

/* What the victim gives: its outcome, value and first prompt (the report
** without its times), written into 'out'. */
static void victim_result(coax_session *s, char *out, size_t cap)
{
    size_t vlen = 0;
    const char *v = coax_session_value(s, &vlen);
    const char *r = coax_session_report(s, NULL);
    const char *p = r ? strstr(r, "\"content\":\"") : NULL;
    const char *end = p ? p + 11 : NULL;
    while (end && *end && *end != '"') end += end[0] == '\\' && end[1] ? 2 : 1;
    snprintf(out, cap, "%s|%.*s|%.*s", coax_outcome_name(coax_session_outcome(s)), (int)vlen, v ? v : "",
             end ? (int)(end - p) : 0, p ? p : "");
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static coax_engine *e;
    static char expected[512];
    if (!e) {
        coax_engine *fresh = recipe_engine();
        coax_session *v = start_session(fresh, VICTIM, VICTIM_AGENT);
        coax_session_run(v);
        victim_result(v, expected, sizeof expected);
        static const char WANT[] = "ok|{\"n\":42}|\"content\":\"7 1 [1,{\\\"a\\\":2}] [] abab false function string "
                                   "read-only 5 a,b 3 victim's input\\n";
        if (strncmp(expected, WANT, sizeof WANT - 1))
            fprintf(stderr, "the victim on a fresh engine: %s\n%s\n", expected, coax_session_report(v, NULL));
        FUZZ_CHECK(!strncmp(expected, WANT, sizeof WANT - 1));
        coax_engine_free(fresh);
        e = recipe_engine();
    }
    const char *recipe = attacker_recipe(data, size);
    if (getenv("FUZZ_SHOW")) fprintf(stderr, "%s\n----\n", recipe); /* to see what the bytes make */
    double t0 = seconds_now();
    coax_session *a = start_session(e, recipe, "{\"name\":\"replay\",\"replies\":[\"1\",\"1\"]}");
    coax_session *v = start_session(e, VICTIM, VICTIM_AGENT);
    while (coax_engine_poll(e, 10) > 0) {
    }
    double spent = seconds_now() - t0;
    char got[512];
    victim_result(v, got, sizeof got);
    if (strcmp(got, expected)) fprintf(stderr, "victim beside the attacker:\n%s\nnot\n%s\nrecipe:\n%s\n", got, expected, recipe);
    FUZZ_CHECK(!strcmp(got, expected));
    coax_session_free(v);
    coax_outcome out = coax_session_outcome(a);
    FUZZ_CHECK(out != COAX_OUTCOME_RUNNING);
    coax_session_free(a);
    /* A recipe's scripts run at most 4 times (recipe, template, strategy,
    ** agent) a budget of 200,000 instructions each: well under a second,
    ** even under the sanitizers. */
    if (spent > 5) fprintf(stderr, "the attacker ran %.1f s:\n%s\n", spent, recipe);
    FUZZ_CHECK(spent <= 5);
    v = start_session(e, VICTIM, VICTIM_AGENT); /* and after it */
    coax_session_run(v);
    victim_result(v, got, sizeof got);
    if (strcmp(got, expected)) fprintf(stderr, "victim after the attacker:\n%s\nnot\n%s\nrecipe:\n%s\n", got, expected, recipe);
    FUZZ_CHECK(!strcmp(got, expected));
    coax_session_free(v);
    return 0;
}
