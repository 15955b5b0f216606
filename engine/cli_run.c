/*
** cli_run.c: coax run RECIPE [--input FILE|-] [agent options] [--max-attempts N]
**            [--report FILE] [--lua-path DIR]
*/
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: coax run RECIPE [--input FILE|-] [--agent NAME] [--model M] [--base-url URL]\n"
    "                [--mode M] [--agent-options JSON] [--replay FILE] [--verbose]\n"
    "                [--max-attempts N] [--report FILE] [--lua-path DIR]\n"
    "Runs one extraction: prompts the recipe's agent, recovers and validates each reply,\n"
    "feeds errors back and asks again, within the attempt budget.\n"
    "  --input FILE          the input the prompt is made from (default: none; - is stdin)\n"
    "  --agent NAME          the agent instead of the recipe's: openai (any Chat Completions\n"
    "                        server; key from OPENAI_API_KEY), anthropic (key from\n"
    "                        ANTHROPIC_API_KEY), ollama (server from OLLAMA_HOST) or replay\n"
    "  --model M             the model (openai default: gpt-4o-mini)\n"
    "  --base-url URL        the server (openai default: https://api.openai.com/v1)\n"
    "  --mode M              openai: json_schema (default), json_object or prompt;\n"
    "                        anthropic: prompt; ollama: format (default), json or prompt\n"
    "  --agent-options JSON  any other agent option, as in '{\"temperature\": 0}'\n"
    "  --replay FILE         replies for the replay agent, one JSON string a line\n"
    "  --verbose             log each HTTP request and response on stderr (keys redacted)\n"
    "  --max-attempts N      attempts before giving up (default: the recipe's, else 3)\n"
    "  --report FILE         write the session report (outcome, metrics, every attempt)\n"
    "Example: coax run invoice.lua --input invoice.txt --agent openai --model gpt-4o-mini\n"
    "Exit: 0 ok, 1 exhausted, 2 invalid recipe or schema, 3 agent error, 4 limit,\n"
    "5 script error.\n";

int cli_run(int argc, char **argv)
{
    const char *recipe = NULL, *input_path = NULL, *report = NULL, *attempts = NULL, *lua_path = NULL;
    cli_agent agent = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_opt(argc, argv, &i, "input", &input_path);
        if (r == 0) r = cli_agent_opt(argc, argv, &i, &agent);
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
    coax_buf members, agent_json;
    coax_buf_init(&members, NULL);
    coax_buf_init(&agent_json, NULL);
    int status = cli_agent_members("run", &agent, NULL, &members);
    if (status == 0 && members.len) {
        coax_buf_putc(&agent_json, '{');
        coax_buf_put(&agent_json, members.data, members.len);
        coax_buf_puts(&agent_json, "}");
        coax_buf_putc(&agent_json, '\0');
        if (agent_json.oom) status = cli_fail("run", COAX_ENOMEM, NULL);
        so.agent_json = agent_json.data;
    }
    coax_buf_free(&members);
    coax_engine *engine = NULL;
    if (status == 0) {
        coax_engine_options eo = {0};
        eo.script_dir = lua_path;
        cli_agent_engine("run", &agent, &eo);
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
