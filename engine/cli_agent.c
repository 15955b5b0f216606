/*
** cli_agent.c: the agent options `coax run` and `coax batch` share
** (--agent, --model, --base-url, --mode, --agent-options, --replay,
** --verbose), turned into the session's agent options and the engine's log.
*/
#include "cli.h"

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
    };
    int r = 0;
    for (size_t k = 0; k < sizeof opts / sizeof *opts && r == 0; k++) r = cli_opt(argc, argv, i, opts[k].name, opts[k].value);
    return r;
}

/* Appends "replies":[...] from FILE, one JSON string a line. */
static int put_replies(const char *cmd, const char *path, coax_arena *ar, coax_buf *m)
{
    char *data;
    size_t len;
    coax_error err = {0};
    coax_code rc = cli_read(path, COAX_DEFAULT_MAX_INPUT, &data, &len, &err);
    if (rc) return cli_fail(cmd, rc, &err);
    if (m->len) coax_buf_putc(m, ',');
    coax_buf_puts(m, "\"replies\":[");
    int status = 0;
    size_t n = 0, line = 0;
    for (size_t start = 0; start < len && status == 0;) {
        char *nl = memchr(data + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - data) : len;
        line++;
        coax_value *v;
        if (end > start) {
            if (coax_parse(ar, data + start, end - start, NULL, &v, &err) || coax_value_type(v) != COAX_STRING) {
                status = cli_usage(cmd, "%s line %zu: each line must be a JSON string", path, line);
            } else {
                if (n++) coax_buf_putc(m, ',');
                coax_write_buf(m, v, 0);
            }
        }
        start = end + 1;
    }
    coax_buf_putc(m, ']');
    free(data);
    return status;
}

int cli_agent_members(const char *cmd, const cli_agent *a, const char *default_name, coax_buf *m)
{
    /* The modes of the HTTP agents. --agent naming one of them: one of its
    ** modes; no --agent (the recipe's agent): a mode of any of them; another
    ** agent (replay, a module of --lua-path): the agent decides. */
    static const struct {
        const char *agent, *modes[4], *list;
    } agent_modes[] = {
        {"openai", {"json_schema", "json_object", "prompt"}, "json_schema, json_object or prompt"},
        {"anthropic", {"prompt"}, "prompt"},
        {"ollama", {"format", "json", "prompt"}, "format, json or prompt"},
    };
    if (a->mode) {
        bool known = false;
        for (size_t g = 0; g < sizeof agent_modes / sizeof *agent_modes; g++) {
            bool is = a->name && !strcmp(a->name, agent_modes[g].agent), has = false;
            for (size_t k = 0; k < 4 && agent_modes[g].modes[k]; k++) has |= !strcmp(a->mode, agent_modes[g].modes[k]);
            if (is && !has) return cli_usage(cmd, "--mode wants %s, not '%s'", agent_modes[g].list, a->mode);
            known |= has;
        }
        if (!a->name && !known)
            return cli_usage(cmd, "--mode wants a mode of openai (json_schema, json_object, prompt), anthropic "
                                  "(prompt) or ollama (format, json, prompt), not '%s'", a->mode);
    }
    if (a->base_url && strncmp(a->base_url, "http://", 7) && strncmp(a->base_url, "https://", 8))
        return cli_usage(cmd, "--base-url wants an http:// or https:// URL, not '%s'", a->base_url);
    const char *name = a->name ? a->name : a->replay ? "replay" : default_name;
    const char *keys[] = {"name", "model", "base_url", "mode"}, *vals[] = {name, a->model, a->base_url, a->mode};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        if (!vals[k]) continue;
        if (m->len) coax_buf_putc(m, ',');
        coax_buf_printf(m, "\"%s\":", keys[k]);
        coax_buf_put_json_string(m, vals[k], strlen(vals[k]));
    }
    coax_arena *ar = coax_arena_new(NULL);
    if (!ar) return cli_fail(cmd, COAX_ENOMEM, NULL);
    int status = a->replay ? put_replies(cmd, a->replay, ar, m) : 0;
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

static void log_stderr(void *ud, const char *line)
{
    fprintf(stderr, "coax %s: %s\n", (const char *)ud, line);
}

void cli_agent_engine(const char *cmd, const cli_agent *a, coax_engine_options *eo)
{
    if (!a->verbose) return;
    eo->log = log_stderr;
    eo->log_ud = (void *)cmd;
}
