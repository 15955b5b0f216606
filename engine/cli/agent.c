/*
** cli/agent.c: the agent options `coax run` and `coax batch` share
** (--agent, --model, --base-url, --mode, --agent-options, --replay,
** --verbose), turned into the session's agent options and the engine's log,
** and the default agent when none is named.
*/
#include "session/agent_default.h"
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

int cli_agent_opt(int argc, char **argv, int *i, cli_agent *a)
{
    if (!strcmp(argv[*i], "--verbose") || !strcmp(argv[*i], "-v")) {
        a->verbose = true;
        return 1;
    }
    struct {
        const char *name;
        const char **value;
    } const opts[] = {
        {"agent", &a->name}, {"model", &a->model}, {"base-url", &a->base_url},
        {"mode", &a->mode},  {"agent-options", &a->options}, {"replay", &a->replay},
        {"command", &a->command},
    };
    int r = 0;
    for (size_t k = 0; k < sizeof opts / sizeof *opts && r == 0; k++) r = cli_opt(argc, argv, i, opts[k].name, opts[k].value);
    return r;
}

/* Appends "replies":[...] from FILE, one JSON string a line. */
static int put_replies(const char *cmd, const char *path, coax_buf *m)
{
    char *data;
    size_t len;
    coax_error err = {0};
    coax_code rc = cli_read(path, COAX_DEFAULT_MAX_INPUT, &data, &len, &err);
    if (rc) return cli_fail(cmd, rc, &err);
    char msg[400];
    rc = agent_replies_json(path, data, len, m, msg, sizeof msg);
    free(data);
    return rc == COAX_EINVAL ? cli_usage(cmd, "%s", msg) : rc ? cli_fail(cmd, rc, NULL) : 0;
}

/* True when --agent-options (a JSON object) has the member 'key'. */
static bool options_have(const char *options, const char *key)
{
    if (!options) return false;
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    bool has = a && coax_parse(a, options, strlen(options), NULL, &v, NULL) == COAX_OK &&
               coax_value_type(v) == COAX_OBJECT && coax_object_get(v, key, strlen(key));
    coax_arena_free(a);
    return has;
}

/* True when --agent-options names the agent itself ({"name": ...}). */
static bool options_name_agent(const char *options)
{
    return options_have(options, "name") || options_have(options, "call");
}

/* Agent flags that would be dropped or would silently do something else
** are usage errors, before anything runs: each flag belongs to an agent, and
** flags of two agents, or an agent without what it needs, conflict.
** 'default_name': the agent when none is named ("replay" for batch's
** --replies-field, which gives the replay agent its replies), or NULL. */
static int agent_conflict(const char *cmd, const cli_agent *a, const char *default_name)
{
    bool replies_given = default_name && !strcmp(default_name, "replay");
    const char *http = a->model ? "--model" : a->base_url ? "--base-url" : a->mode ? "--mode" : NULL;
    if (a->replay && a->command) return cli_usage(cmd, "--replay and --command name two agents: pass one");
    const char *named = a->name;
    if (named && a->replay && strcmp(named, "replay"))
        return cli_usage(cmd, "--replay plays recorded replies, which the %s agent would drop: pass --agent replay "
                              "or leave --replay out", named);
    if (named && a->command && strcmp(named, "command"))
        return cli_usage(cmd, "--command runs a program as the agent, which the %s agent would drop: pass --agent "
                              "command or leave --command out", named);
    if (named && !strcmp(named, "replay") && !a->replay && !replies_given && !options_have(a->options, "replies"))
        return cli_usage(cmd, "--agent replay needs --replay FILE (replies, one JSON string a line)");
    if (named && !strcmp(named, "command") && !a->command)
        return cli_usage(cmd, "--agent command needs --command CMD (the program that answers)");
    const char *agent = a->replay ? "replay" : a->command ? "command" : named ? named : default_name;
    if (http && agent && (!strcmp(agent, "replay") || !strcmp(agent, "command")))
        return cli_usage(cmd, "%s is an option of the HTTP agents (openai, anthropic, gemini, ollama), not of the %s agent",
                         http, agent);
    return 0;
}

int cli_agent_members(const char *cmd, const cli_agent *a, const char *default_name, coax_buf *m)
{
    int conflict = agent_conflict(cmd, a, default_name);
    if (conflict) return conflict;
    /* The modes of the HTTP agents. --agent naming one of them: one of its
    ** modes; no --agent (the recipe's agent): a mode of any of them; another
    ** agent (replay, a module of --lua-path): the agent decides. */
    static const struct {
        const char *agent, *modes[5], *list;
    } agent_modes[] = {
        {"openai", {"json_schema", "json_object", "prompt", "tools"}, "json_schema, json_object, prompt or tools"},
        {"anthropic", {"prompt", "tools"}, "prompt or tools"},
        {"gemini", {"json_schema", "json", "prompt", "tools"}, "json_schema, json, prompt or tools"},
        {"ollama", {"format", "json", "prompt"}, "format, json or prompt"},
    };
    if (a->mode) {
        bool known = false;
        for (size_t g = 0; g < sizeof agent_modes / sizeof *agent_modes; g++) {
            bool is = a->name && !strcmp(a->name, agent_modes[g].agent), has = false;
            for (size_t k = 0; k < 5 && agent_modes[g].modes[k]; k++) has |= !strcmp(a->mode, agent_modes[g].modes[k]);
            if (is && !has) return cli_usage(cmd, "--mode wants %s, not '%s'", agent_modes[g].list, a->mode);
            known |= has;
        }
        if (!a->name && !known)
            return cli_usage(cmd, "--mode wants a mode of openai (json_schema, json_object, prompt, tools), anthropic "
                                  "(prompt, tools), gemini (json_schema, json, prompt, tools) or ollama (format, json, "
                                  "prompt), not '%s'", a->mode);
    }
    if (a->base_url && strncmp(a->base_url, "http://", 7) && strncmp(a->base_url, "https://", 8))
        return cli_usage(cmd, "--base-url wants an http:// or https:// URL, not '%s'", a->base_url);
    const char *name = a->name ? a->name : a->replay ? "replay" : a->command ? "command" : default_name;
    const char *keys[] = {"name", "model", "base_url", "mode"}, *vals[] = {name, a->model, a->base_url, a->mode};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        if (!vals[k]) continue;
        if (m->len) coax_buf_putc(m, ',');
        coax_buf_printf(m, "\"%s\":", keys[k]);
        coax_buf_put_json_string(m, vals[k], strlen(vals[k]));
    }
    coax_arena *ar = coax_arena_new(NULL);
    if (!ar) return cli_fail(cmd, COAX_ENOMEM, NULL);
    int status = a->replay ? put_replies(cmd, a->replay, m) : 0;
    if (status == 0 && a->options) {
        /* JSON objects keep the last of a repeated key, so these win. */
        coax_value *v;
        if (coax_parse(ar, a->options, strlen(a->options), NULL, &v, NULL) || coax_value_type(v) != COAX_OBJECT) {
            status = cli_usage(cmd, "--agent-options wants a JSON object, as in '{\"delay_ms\": 200}'");
        } else {
            for (size_t i = 0; i < coax_value_len(v); i++) {
                size_t klen;
                const char *k = coax_object_key(v, i, &klen);
                if (m->len) coax_buf_putc(m, ',');
                coax_buf_put_json_string(m, k, klen);
                coax_buf_putc(m, ':');
                coax_write_buf(m, coax_object_value(v, i), 0);
            }
        }
    }
    coax_arena_free(ar);
    if (status == 0 && m->oom) status = cli_fail(cmd, COAX_ENOMEM, NULL);
    return status;
}

/* What the probe's fallback says: runtime.lua raises it only when neither
** the recipe nor the host names an agent. */
#define NAMES_NONE "coax: the recipe names no agent"

/* 1 when RECIPE names no agent; 0 when it names one, or when that cannot be
** told (an unreadable or invalid recipe, which the session itself reports).
** runtime.lua picks the agent before it makes the prompt, so a prompt
** function is not run. */
static int names_none(coax_engine *e, const char *recipe)
{
    coax_session_options so = {0};
    so.agent_json = "{\"fallback\":\"" NAMES_NONE "\"}";
    coax_session *s;
    coax_error err = {0};
    if (coax_session_from_file(e, recipe, &so, &s, &err)) return 0;
    const char *msg;
    int none = coax_session_error(s, &msg) == COAX_FAILURE_INVALID_RECIPE && !strcmp(msg, NAMES_NONE);
    coax_session_free(s);
    return none;
}


int cli_agent_choose(const char *cmd, const cli_agent *a, const char *default_name, coax_engine *e,
                     const char *recipe, coax_buf *m, cli_agent_choice *c)
{
    memset(c, 0, sizeof *c);
    int status = cli_agent_members(cmd, a, default_name, m);
    if (status || a->name || a->replay || a->command || default_name || options_name_agent(a->options) ||
        !names_none(e, recipe))
        return status;
    char msg[700];
    agent_default_choice d;
    coax_code rc = agent_default(recipe, NULL, NULL, "--agent", m, &d, msg, sizeof msg);
    if (rc == COAX_ENOTFOUND || rc == COAX_EINVAL) return cli_usage(cmd, "%s", msg);
    if (rc) return cli_fail(cmd, rc, NULL);
    /* The demo plays the recorded transcript, which would ignore the HTTP
    ** agents' options. */
    const char *http = a->model ? "--model" : a->base_url ? "--base-url" : a->mode ? "--mode" : NULL;
    if (d.demo && http)
        return cli_usage(cmd, "%s names no agent and none is chosen by the environment, so %s would be ignored "
                              "(the recorded transcript would play): pass --agent openai, anthropic, gemini or ollama",
                         recipe, http);
    c->demo = d.demo;
    snprintf(c->notice, sizeof c->notice, "%s", d.notice);
    return 0;
}

static void log_stderr(void *ud, const char *line)
{
    cli_errf("coax %s: %s\n", (const char *)ud, line);
}

void cli_agent_engine(const char *cmd, const cli_agent *a, coax_engine_options *eo)
{
    if (!a->verbose) return;
    eo->log = log_stderr;
    eo->log_ud = (void *)cmd;
}
