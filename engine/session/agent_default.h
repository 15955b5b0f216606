/*
** agent_default.h: the default agent, the same for the coax command and
** coax.run (agent_default.c).
*/
#ifndef COAX_AGENT_DEFAULT_H
#define COAX_AGENT_DEFAULT_H

#include "base/core.h"

/* Appends the member "replies":[...] to 'm' (a comma first when 'm' is not
** empty) from a transcript's text: one JSON string a line, blank lines
** skipped. COAX_EINVAL with 'msg' naming 'path' and the line when a line is
** not a JSON string; COAX_ENOMEM. */
coax_code agent_replies_json(const char *path, const char *data, size_t len, coax_buf *m, char *msg, size_t cap);

typedef struct agent_default_choice {
    bool demo;        /* the recorded transcript, not a model */
    char notice[600]; /* which agent and why, for the host to show */
} agent_default_choice;

/* Appends to 'm' the member "fallback" for a session of 'recipe' (a file's
** path, or NULL for recipe text, which has no transcript): the provider of
** the first of OPENAI_API_KEY, ANTHROPIC_API_KEY, OLLAMA_HOST that
** 'secret' (NULL: the environment) finds, else {"name": "replay",
** "replies": [...]} from RECIPE.replies.jsonl. 'how' is what the host's
** user passes to name an agent ("--agent"), for the messages. COAX_OK;
** COAX_ENOTFOUND when there is neither, with 'msg' saying so (nothing
** appended); COAX_EINVAL for a bad transcript line; COAX_ENOMEM. */
coax_code agent_default(const char *recipe, coax_secret_fn secret, void *ud, const char *how, coax_buf *m,
                        agent_default_choice *c, char *msg, size_t cap);

#endif
