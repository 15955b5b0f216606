/*
** cli_run.c: coax run RECIPE [--input FILE|-] [--agent NAME] [--replay FILE]
**            [--max-attempts N] [--report FILE] [--lua-path DIR]
*/
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: coax run RECIPE [--input FILE|-] [--agent NAME] [--replay FILE] [--max-attempts N]\n"
    "                [--report FILE] [--lua-path DIR]\n"
    "Runs one extraction: prompts the recipe's agent, recovers and validates each reply,\n"
    "feeds errors back and asks again, within the attempt budget.\n"
    "  --input FILE   the input the prompt is made from (default: none; - is stdin)\n"
    "  --replay FILE  replies for the replay agent, one JSON string a line\n"
    "  --report FILE  write the session report (outcome, metrics, every attempt)\n"
    "Exit: 0 ok, 1 exhausted, 2 invalid recipe or schema, 3 agent error, 4 limit,\n"
    "5 script error.\n";

/* The replay file as the agent options {"name":"replay","replies":[...]}:
** each line must be a JSON string. */
static int replay_options(const char *path, const char *agent, coax_buf *json)
{
    char *data;
    size_t len;
    coax_error err;
    coax_code rc = cli_read(path, COAX_DEFAULT_MAX_INPUT, &data, &len, &err);
    if (rc) return cli_fail("run", rc, &err);
    coax_arena *a = coax_arena_new(NULL);
    coax_buf_puts(json, "{\"name\":");
    coax_buf_put_json_string(json, agent ? agent : "replay", strlen(agent ? agent : "replay"));
    coax_buf_puts(json, ",\"replies\":[");
    int status = a ? 0 : 4;
    size_t n = 0, line = 0;
    for (size_t start = 0; start < len && status == 0;) {
        char *nl = memchr(data + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - data) : len;
        line++;
        if (end > start) {
            coax_value *v;
            if (coax_parse(a, data + start, end - start, NULL, &v, &err) || coax_value_type(v) != COAX_STRING) {
                status = cli_usage("run", "%s line %zu: each line must be a JSON string", path, line);
            } else {
                if (n++) coax_buf_putc(json, ',');
                coax_buf_put(json, data + start, end - start);
            }
        }
        start = end + 1;
    }
    coax_buf_puts(json, "]}");
    coax_buf_putc(json, '\0');
    coax_arena_free(a);
    free(data);
    return json->oom ? 4 : status;
}

int cli_run(int argc, char **argv)
{
    const char *recipe = NULL, *input_path = NULL, *agent = NULL, *replay = NULL, *report = NULL, *attempts = NULL,
               *lua_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_opt(argc, argv, &i, "input", &input_path);
        if (r == 0) r = cli_opt(argc, argv, &i, "agent", &agent);
        if (r == 0) r = cli_opt(argc, argv, &i, "replay", &replay);
        if (r == 0) r = cli_opt(argc, argv, &i, "report", &report);
        if (r == 0) r = cli_opt(argc, argv, &i, "max-attempts", &attempts);
        if (r == 0) r = cli_opt(argc, argv, &i, "lua-path", &lua_path);
        if (r < 0) return 2;
        if (r > 0) continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage("run", "unknown option '%s' (try --help)", a);
        } else if (recipe) {
            return cli_usage("run", "one recipe at a time ('%s' and '%s')", recipe, a);
        } else {
            recipe = a;
        }
    }
    if (!recipe) return cli_usage("run", "a RECIPE is required (try --help)");
    coax_session_options so = {0};
    if (attempts) {
        char *end;
        long n = strtol(attempts, &end, 10);
        if (*end || n < 1 || n > 1000000) return cli_usage("run", "--max-attempts wants a positive integer");
        so.max_attempts = (int)n;
    }
    char *input = NULL;
    size_t input_len = 0;
    coax_error err = {0};
    if (input_path) {
        coax_code rc = cli_read(input_path, COAX_DEFAULT_MAX_INPUT, &input, &input_len, &err);
        if (rc) return cli_fail("run", rc, &err);
        so.input = input;
        so.input_len = input_len;
    }
    coax_buf agent_json;
    coax_buf_init(&agent_json, NULL);
    int status = 0;
    if (replay) {
        status = replay_options(replay, agent, &agent_json);
    } else if (agent) {
        coax_buf_puts(&agent_json, "{\"name\":");
        coax_buf_put_json_string(&agent_json, agent, strlen(agent));
        coax_buf_puts(&agent_json, "}");
        coax_buf_putc(&agent_json, '\0');
    }
    so.agent_json = agent_json.len ? agent_json.data : NULL;
    coax_engine *engine = NULL;
    if (status == 0) {
        coax_engine_options eo = {0};
        eo.script_dir = lua_path;
        coax_code rc = coax_engine_new(&eo, &engine, &err);
        if (rc) status = cli_fail("run", rc, &err);
    }
    coax_session *s = NULL;
    if (status == 0) {
        coax_code rc = coax_session_from_file(engine, recipe, &so, &s, &err);
        if (rc) status = cli_fail("run", rc, &err);
    }
    if (status == 0) {
        coax_outcome outcome = coax_session_run(s);
        size_t rlen;
        const char *rep = coax_session_report(s, &rlen);
        if (report && rep) {
            FILE *f = fopen(report, "wb");
            if (!f || fwrite(rep, 1, rlen, f) != rlen || fputc('\n', f) == EOF || fclose(f)) {
                fprintf(stderr, "coax run: cannot write the report to %s\n", report);
                if (f) fclose(f);
            }
        }
        size_t vlen;
        const char *value = coax_session_value(s, &vlen);
        if (value) {
            fwrite(value, 1, vlen, stdout);
            fputc('\n', stdout);
        } else {
            /* The reason, from the report's error (traceback included). */
            coax_arena *a = coax_arena_new(NULL);
            coax_value *r;
            const coax_value *msg = NULL;
            if (a && rep && coax_parse(a, rep, rlen, NULL, &r, NULL) == COAX_OK)
                coax_pointer_get(r, "/error/message", 14, &msg);
            fprintf(stderr, "coax run: %s: %s\n", coax_outcome_name(outcome),
                    msg && coax_value_type(msg) == COAX_STRING ? coax_value_text(msg, NULL) : "(no detail)");
            coax_arena_free(a);
        }
        status = coax_outcome_exit_status(outcome);
    }
    coax_engine_free(engine);
    coax_buf_free(&agent_json);
    free(input);
    return status;
}
