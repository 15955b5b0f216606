/* A game-style frame loop: coax is polled with timeout 0 once per frame and
** never blocks it, while the host (standing in for an engine with its own
** networking) answers each model request a few frames later. The first
** answer has a type error; coax feeds the error back and asks again; the
** second answer is accepted. Build: cc frame_loop.c $(pkg-config --cflags --libs coax) */
#include <coax.h>
#include <stdio.h>
#include <string.h>

#define ANSWER_AFTER 3 /* frames between a request and its answer */

typedef struct host {
    int asked_at;   /* the frame of the pending request, or -1 */
    int requests;
    int frame;
} host;

/* Every event of the session; a host only needs "host_request". */
static void on_event(void *ud, coax_session *s, const char *name, const char *data)
{
    host *h = ud;
    (void)s;
    (void)data;
    if (!strcmp(name, "host_request")) {
        h->asked_at = h->frame;
        h->requests++;
        printf("frame %d: the model is asked (request %d)\n", h->frame, h->requests);
    } else if (!strcmp(name, "validation_error")) {
        printf("frame %d: the reply did not validate; coax asks again\n", h->frame);
    }
}

int main(void)
{
    const char *recipe = "return { schema = { type = 'object', properties = { hp = { type = 'integer', minimum = 0 },"
                         " name = { type = 'string' } }, required = { 'hp', 'name' }, additionalProperties = false },"
                         " prompt = 'Describe the monster in: {{input}}', agent = 'host' }";
    const char *replies[] = {"{\"name\": \"Grue\", \"hp\": \"lots\"}", "{\"name\": \"Grue\", \"hp\": 40}"};
    coax_engine *engine;
    coax_error err;
    if (coax_engine_new(NULL, &engine, &err) != COAX_OK) {
        fprintf(stderr, "coax: %s\n", err.msg);
        return 1;
    }
    host h = {-1, 0, 0};
    coax_session_options opts = {0};
    opts.input = "A grue lurks in the dark. It is very hard to kill.";
    opts.input_len = strlen(opts.input);
    opts.on_event = on_event;
    opts.event_ud = &h;
    coax_session *session;
    if (coax_session_from_text(engine, recipe, strlen(recipe), "=monster", &opts, &session, &err) != COAX_OK) {
        fprintf(stderr, "coax: %s\n", err.msg);
        coax_engine_free(engine);
        return 1;
    }
    for (h.frame = 1; h.frame <= 100 && coax_session_outcome(session) == COAX_OUTCOME_RUNNING; h.frame++) {
        coax_engine_poll(engine, 0); /* never waits */
        if (h.asked_at >= 0 && h.frame - h.asked_at >= ANSWER_AFTER) {
            const char *reply = replies[h.requests - 1 < 1 ? h.requests - 1 : 1];
            printf("frame %d: the host answers %s\n", h.frame, reply);
            h.asked_at = -1;
            coax_session_host_reply(session, reply, strlen(reply), 40, 12, &err);
        }
        /* ... the rest of the frame: physics, rendering ... */
    }
    coax_outcome outcome = coax_session_outcome(session);
    printf("ran %d frames: %s", h.frame - 1, coax_outcome_name(outcome));
    if (outcome == COAX_OUTCOME_OK) printf(" %s", coax_session_value(session, NULL));
    printf("\n");
    coax_engine_free(engine);
    return outcome == COAX_OUTCOME_OK ? 0 : 1;
}
