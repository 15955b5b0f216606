/* Partials frame by frame: a game polls coax with timeout 0 once per frame
** and shows the monster card as the model writes it. The "model" is the
** recipe's own agent (no network, so the example runs anywhere): it writes
** its reply a few characters at a time through request.on_text, the sink a
** streamed reply feeds, and sleeps a millisecond between pieces, as a
** streaming provider's reply arrives; an HTTP agent with stream = true feeds
** the same sink. The frame loop prints each "partial" event (the value so
** far, with what is complete and what is being written) and checks that no
** poll took more than half a frame, the frame loop's budget.
** Build: cc frame_stream.c $(pkg-config --cflags --libs coax) */
#include <coax.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define FRAME_MS 16

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct frame {
    int n;        /* the frame being run */
    int partials; /* partials told so far */
    int last;     /* the frame of the last partial */
    int twice;    /* partials told in a frame that already had one */
} frame;

static void on_event(void *ud, coax_session *s, const char *name, const char *data)
{
    frame *f = ud;
    (void)s;
    if (strcmp(name, "partial")) return;
    if (f->last == f->n) f->twice++;
    f->last = f->n;
    f->partials++;
    printf("frame %d: %s\n", f->n, data);
}

int main(void)
{
    /* The agent types the reply in pieces of 5 characters, a millisecond apart. */
    const char *recipe =
        "local coax = require 'coax'\n"
        "local reply = '{\"name\": \"Grue\", \"hp\": 40, \"moves\": [\"lurk\", \"eat\"]}'\n"
        "return { schema = { type = 'object', properties = { name = { type = 'string' },"
        " hp = { type = 'integer', minimum = 0 }, moves = { type = 'array', items = { type = 'string' } } },"
        " required = { 'name', 'hp', 'moves' }, additionalProperties = false },"
        " prompt = 'Describe the monster in: {{input}}', stream = { every_ms = 0 },"
        " agent = { stream = true, call = function(request)\n"
        "   for i = 1, #reply, 5 do request.on_text(reply:sub(i, i + 4)); coax.sleep(1) end\n"
        "   return { text = reply }\n"
        " end } }";
    coax_engine *engine;
    coax_error err;
    if (coax_engine_new(NULL, &engine, &err) != COAX_OK) {
        fprintf(stderr, "coax: %s\n", err.msg);
        return 1;
    }
    frame f = {0, 0, -1, 0};
    coax_session_options opts = {0};
    opts.input = "A grue lurks in the dark.";
    opts.input_len = strlen(opts.input);
    opts.on_event = on_event;
    opts.event_ud = &f;
    coax_session *session;
    if (coax_session_from_text(engine, recipe, strlen(recipe), "=monster", &opts, &session, &err) != COAX_OK) {
        fprintf(stderr, "coax: %s\n", err.msg);
        coax_engine_free(engine);
        return 1;
    }
    double slowest = 0; /* the longest poll, in ms */
    for (f.n = 1; f.n <= 200 && coax_session_outcome(session) == COAX_OUTCOME_RUNNING; f.n++) {
        double t0 = now_ms();
        coax_engine_poll(engine, 0); /* never waits */
        double took = now_ms() - t0;
        if (took > slowest) slowest = took;
        /* ... the rest of the frame: physics, rendering ... */
        struct timespec frame_time = {0, FRAME_MS * 1000000L};
        nanosleep(&frame_time, NULL);
    }
    coax_outcome outcome = coax_session_outcome(session);
    printf("ran %d frames, %d partials, %s: %s", f.n - 1, f.partials,
           f.twice ? "some frames had two" : "at most one a frame", coax_outcome_name(outcome));
    if (outcome == COAX_OUTCOME_OK) printf(" %s", coax_session_value(session, NULL));
    printf("\nevery poll took less than half a frame: %s\n", slowest < FRAME_MS / 2.0 ? "yes" : "no");
    coax_engine_free(engine);
    return outcome == COAX_OUTCOME_OK && !f.twice && slowest < FRAME_MS / 2.0 ? 0 : 1;
}
