/* A game-style frame loop: coax is polled with timeout 0 once per frame and
** never blocks it, while the host (standing in for an engine with its own
** networking) answers each model request itself. Its model starts writing
** three frames after a request and its text arrives a few bytes a frame: the
** host hands each piece to coax (coax_session_host_piece) and the frame loop
** prints each "partial" event (the monster card so far, what is complete and
** what is being written), at most one a frame. The first answer has a type
** error: stream.stop_early stops it as soon as "hp" is closed, the host
** cancels its request, coax feeds the error back and asks again; the second
** answer streams whole and is accepted. It prints whether every poll took
** less than half a frame, the frame loop's budget, in the CPU time of this
** thread (the wall clock would count the time other programs ran); that
** line is a measurement of this machine, not part of the exit status.
** Build: cc frame_loop.c $(pkg-config --cflags --libs coax) */
#include <coax.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define FRAME_MS 16
#define ANSWER_AFTER 3 /* frames between a request and the first piece of its answer */
#define PIECE 6        /* bytes of the answer that arrive each frame */

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct host {
    int frame;
    int asked_at;  /* the frame of the pending request, or -1 */
    int requests;
    size_t sent;   /* bytes of the answer handed over */
    int partials;  /* partial events so far */
    int last;      /* the frame of the last one */
    int twice;     /* partials in a frame that already had one */
} host;

/* stop_early stopped the reply in flight: the host stops paying for it. */
static void cancel(host *h)
{
    printf("frame %d: coax stopped the reply after %zu bytes (it cannot validate); the host cancels its request\n",
           h->frame, h->sent);
    h->asked_at = -1;
}

/* Every event of the session; a host needs "host_request", and "partial" to
** show the card as it is written. */
static void on_event(void *ud, coax_session *s, const char *name, const char *data)
{
    host *h = ud;
    (void)s;
    if (!strcmp(name, "host_request")) {
        h->asked_at = h->frame;
        h->requests++;
        h->sent = 0;
        printf("frame %d: the model is asked (request %d)\n", h->frame, h->requests);
    } else if (!strcmp(name, "partial")) {
        if (h->last == h->frame) h->twice++;
        h->last = h->frame;
        h->partials++;
        printf("frame %d: %s\n", h->frame, data);
    } else if (!strcmp(name, "validation_error") && h->asked_at >= 0) { /* stopped while a partial was built */
        cancel(h);
    } else if (!strcmp(name, "validation_error")) {
        printf("frame %d: the reply did not validate; coax asks again\n", h->frame);
    }
}

/* The host's share of a frame: the next piece of the model's answer, or the
** whole answer once every piece is in. */
static void answer(host *h, coax_session *session, const char *reply)
{
    size_t len = strlen(reply);
    coax_error err;
    if (h->sent == len) {
        printf("frame %d: the host answers %s\n", h->frame, reply);
        h->asked_at = -1;
        coax_session_host_reply(session, reply, len, 40, 12, &err);
        return;
    }
    size_t n = len - h->sent < PIECE ? len - h->sent : PIECE;
    coax_code rc = coax_session_host_piece(session, reply + h->sent, n, &err);
    h->sent += n;
    if (rc == COAX_ECANCELED) cancel(h); /* this piece showed it doomed */
}

int main(void)
{
    const char *recipe = "return { schema = { type = 'object', properties = { hp = { type = 'integer', minimum = 0 },"
                         " name = { type = 'string' } }, required = { 'hp', 'name' }, additionalProperties = false },"
                         " prompt = 'Describe the monster in: {{input}}', agent = 'host',"
                         " stream = { stop_early = true, every_ms = 0 } }";
    const char *replies[] = {"{\"hp\": \"lots\", \"name\": \"Grue\"}", "{\"name\": \"Grue\", \"hp\": 40}"};
    coax_engine *engine;
    coax_error err;
    if (coax_engine_new(NULL, &engine, &err) != COAX_OK) {
        fprintf(stderr, "coax: %s\n", err.msg);
        return 1;
    }
    host h = {0, -1, 0, 0, 0, -1, 0};
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
    double slowest = 0; /* the longest poll, in ms */
    for (h.frame = 1; h.frame <= 100 && coax_session_outcome(session) == COAX_OUTCOME_RUNNING; h.frame++) {
        double t0 = cpu_ms();
        coax_engine_poll(engine, 0); /* never waits */
        double took = cpu_ms() - t0;
        if (took > slowest) slowest = took;
        if (h.asked_at >= 0 && h.frame - h.asked_at >= ANSWER_AFTER)
            answer(&h, session, replies[h.requests - 1 < 1 ? h.requests - 1 : 1]);
        /* ... the rest of the frame: physics, rendering ... */
        struct timespec frame_time = {0, FRAME_MS * 1000000L};
        nanosleep(&frame_time, NULL);
    }
    coax_outcome outcome = coax_session_outcome(session);
    printf("ran %d frames, %d partials, %s: %s", h.frame - 1, h.partials,
           h.twice ? "some frames had two" : "at most one a frame", coax_outcome_name(outcome));
    if (outcome == COAX_OUTCOME_OK) printf(" %s", coax_session_value(session, NULL));
    printf("\nevery poll took less than half a frame: %s\n", slowest < FRAME_MS / 2.0 ? "yes" : "no");
    coax_engine_free(engine);
    return outcome == COAX_OUTCOME_OK && !h.twice ? 0 : 1;
}
