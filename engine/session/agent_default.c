/*
** agent_default.c: the agent a recipe gets when nobody names one, for
** every host alike (the coax command and coax.run; README, "The default
** agent"): the provider of the first of OPENAI_API_KEY, ANTHROPIC_API_KEY,
** GEMINI_API_KEY and OLLAMA_HOST that is set, else the replay agent with the recipe's
** recorded transcript (RECIPE.replies.jsonl beside RECIPE.lua). The host
** passes it to the session as the agent option "fallback", which
** lua/coax/runtime.lua uses only when the recipe names no agent either.
*/
#include "session/agent_default.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The variables that choose a provider, in the order they are checked. */
static const struct {
    const char *var, *agent;
} providers[] = {
    {"OPENAI_API_KEY", "openai"},
    {"ANTHROPIC_API_KEY", "anthropic"},
    {"GEMINI_API_KEY", "gemini"},
    {"OLLAMA_HOST", "ollama"},
};

static char *read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    coax_buf b;
    coax_buf_init(&b, NULL);
    char chunk[8192];
    size_t n;
    while (!b.oom && b.len <= max && (n = fread(chunk, 1, sizeof chunk, f)) > 0) coax_buf_put(&b, chunk, n);
    bool failed = ferror(f) || b.oom || b.len > max;
    fclose(f);
    if (failed) {
        coax_buf_free(&b);
        return NULL;
    }
    coax_buf_putc(&b, '\0');
    char *s = coax_buf_take(&b, len);
    if (s) (*len)--;
    coax_buf_free(&b);
    return s;
}

coax_code agent_replies_json(const char *path, const char *data, size_t len, coax_buf *m, char *msg, size_t cap)
{
    coax_arena *ar = coax_arena_new(NULL);
    coax_code rc = ar ? COAX_OK : COAX_ENOMEM;
    if (m->len) coax_buf_putc(m, ',');
    coax_buf_puts(m, "\"replies\":[");
    size_t n = 0, line = 0;
    for (size_t start = 0; start < len && rc == COAX_OK;) {
        const char *nl = memchr(data + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - data) : len;
        line++;
        coax_value *v;
        if (end > start) {
            if (coax_parse(ar, data + start, end - start, NULL, &v, NULL) || coax_value_type(v) != COAX_STRING) {
                snprintf(msg, cap, "%s line %zu: each line must be a JSON string", path, line);
                rc = COAX_EINVAL;
            } else {
                if (n++) coax_buf_putc(m, ',');
                coax_write_buf(m, v, 0);
            }
        }
        start = end + 1;
    }
    coax_buf_putc(m, ']');
    coax_arena_free(ar);
    if (rc == COAX_OK && m->oom) rc = COAX_ENOMEM;
    if (rc == COAX_ENOMEM) snprintf(msg, cap, "out of memory");
    return rc;
}

static const char *env_secret(void *ud, const char *name)
{
    (void)ud;
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

coax_code agent_default(const char *recipe, coax_secret_fn secret, void *ud, const char *how, coax_buf *m,
                        agent_default_choice *c, char *msg, size_t cap)
{
    memset(c, 0, sizeof *c);
    if (!secret) secret = env_secret;
    for (size_t k = 0; k < sizeof providers / sizeof *providers; k++) {
        /* keys as the agents find them (coax.secret); OLLAMA_HOST is no secret */
        const char *v = strstr(providers[k].var, "_API_KEY") ? secret(ud, providers[k].var)
                                                             : env_secret(NULL, providers[k].var);
        if (!v || !*v) continue;
        if (m->len) coax_buf_putc(m, ',');
        coax_buf_printf(m, "\"fallback\":{\"name\":\"%s\"}", providers[k].agent);
        snprintf(c->notice, sizeof c->notice, "no agent named; using %s, since %s is set (%s chooses another)",
                 providers[k].agent, providers[k].var, how);
        return m->oom ? COAX_ENOMEM : COAX_OK;
    }
    /* The demo: RECIPE.replies.jsonl beside the recipe (none for recipe text). */
    coax_buf path;
    coax_buf_init(&path, NULL);
    if (recipe) {
        size_t n = strlen(recipe);
        if (n > 4 && !strcmp(recipe + n - 4, ".lua")) n -= 4;
        coax_buf_put(&path, recipe, n);
        coax_buf_puts(&path, ".replies.jsonl");
        coax_buf_putc(&path, '\0');
    }
    coax_code rc = COAX_OK;
    size_t len = 0;
    char *data = recipe && !path.oom ? read_file(path.data, COAX_DEFAULT_MAX_INPUT, &len) : NULL;
    if (recipe && path.oom) {
        rc = COAX_ENOMEM;
        snprintf(msg, cap, "out of memory");
    } else if (!data) {
        /* The command line has two more ways to answer: recorded replies
        ** and a local program. */
        bool cli = !strcmp(how, "--agent");
        snprintf(msg, cap,
                 "%s names no agent%s%s: pass %s (openai, anthropic, gemini, ollama)%s or set OPENAI_API_KEY, "
                 "ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST",
                 recipe ? recipe : "the recipe", recipe ? " and has no recorded transcript " : "",
                 recipe ? path.data : "", how,
                 cli ? ", --replay FILE (replies, one JSON string a line) or --command CMD (a local program)," : "");
        rc = COAX_ENOTFOUND;
    } else {
        if (m->len) coax_buf_putc(m, ',');
        coax_buf_puts(m, "\"fallback\":{\"name\":\"replay\"");
        rc = agent_replies_json(path.data, data, len, m, msg, cap);
        coax_buf_putc(m, '}');
        free(data);
        c->demo = true;
        snprintf(c->notice, sizeof c->notice,
                 "no agent named; replaying the recorded transcript %s (set OPENAI_API_KEY, ANTHROPIC_API_KEY, "
                 "GEMINI_API_KEY or OLLAMA_HOST, or pass %s, to use a model)",
                 path.data, how);
        if (rc == COAX_OK && m->oom) rc = COAX_ENOMEM;
    }
    coax_buf_free(&path);
    return rc;
}
