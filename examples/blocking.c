/* The minimal blocking extraction: a recipe, an input, a reply, the value.
** The replay agent stands in for a model here; with a real agent only the
** agent options change. Build: cc blocking.c $(pkg-config --cflags --libs coax) */
#include <coax.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    const char *recipe = "return { schema = { type = 'object', properties = { total = { type = 'integer' } },"
                         " required = { 'total' } }, prompt = 'Find the total in: {{input}}' }";
    coax_engine *engine;
    coax_error err;
    if (coax_engine_new(NULL, &engine, &err) != COAX_OK) {
        fprintf(stderr, "coax: %s\n", err.msg);
        return 1;
    }
    coax_session_options opts = {0};
    opts.input = "Total due: 1250 USD";
    opts.input_len = strlen(opts.input);
    opts.agent_json = "{\"name\": \"replay\", \"replies\": [\"Sure! {\\\"total\\\": \\\"1250\\\"}\"]}";
    coax_session *session;
    if (coax_session_from_text(engine, recipe, strlen(recipe), "=example", &opts, &session, &err) != COAX_OK) {
        fprintf(stderr, "coax: %s\n", err.msg);
        coax_engine_free(engine);
        return 1;
    }
    coax_outcome outcome = coax_session_run(session);
    if (outcome == COAX_OUTCOME_OK) {
        printf("%s\n", coax_session_value(session, NULL));
    } else {
        const char *why;
        coax_session_failure failure = coax_session_error(session, &why); /* the report's error, without parsing it */
        fprintf(stderr, "coax: %s (%s): %s\n", coax_outcome_name(outcome), coax_failure_name(failure), why ? why : "");
    }
    coax_engine_free(engine);
    return coax_outcome_exit_status(outcome);
}
