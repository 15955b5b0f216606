/*
** cli/batch.c: coax batch RECIPE [--input IN.jsonl|-] [--output OUT.jsonl|-]
**              [--concurrency N] [--rpm N] [--resume] [agent options] ...
**
** One output line per input line, written whole as each extraction ends, with
** up to N sessions in flight on this one thread: the loop starts sessions for
** the lines it can read without waiting, polls the engine in short slices,
** and writes what ended. Input is read as it comes, never ahead of a free
** slot, so `-` makes the command a streaming filter.
*/
#include "cli/batch.h"
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: coax batch RECIPE [OPTIONS]\n"
    "Runs the recipe once for every input line {\"id\": ..., \"input\": \"...\"}, many at once, and\n"
    "writes one line {\"id\", \"outcome\", \"value\"?, \"error\"?, \"errors\"?, \"metrics\"} for each as\n"
    "it ends. The agent is chosen as in coax run.\n"
    "Options:\n"
    "  --input FILE          JSON lines to read (default and -: standard input, as they come)\n"
    "  --output FILE         where output lines go (default and -: standard output)\n"
    "  --concurrency N       extractions in flight at once (default 8)\n"
    "  --rpm N               at most N model requests a minute, evenly spaced\n"
    "  --resume              skip the ids already in OUT (a torn last line is cut away)\n"
    "  --agent NAME          openai (key from OPENAI_API_KEY), anthropic (ANTHROPIC_API_KEY),\n"
    "                        gemini (GEMINI_API_KEY), ollama (OLLAMA_HOST), replay or command;\n"
    "                        wins over the recipe's\n"
    "  --command CMD         the command agent: CMD (sh -c) gets the conversation on stdin\n"
    "                        and prints the reply, once an attempt\n"
    "  --model M             the model (openai default: gpt-4o-mini)\n"
    "  --base-url URL        the server (openai default: https://api.openai.com/v1)\n"
    "  --mode M              openai: json_schema (default), json_object, prompt or tools;\n"
    "                        anthropic: prompt (default) or tools; gemini: json_schema\n"
    "                        (default), json, prompt or tools; ollama: format (default),\n"
    "                        json or prompt\n"
    "  --agent-options JSON  any other agent option, as in '{\"temperature\": 0}'\n"
    "  --replay FILE         the replay agent, with these replies for every line\n"
    "  --replies-field F     the replay agent, with each line's replies (strings in field F)\n"
    "  --verbose, -v         log each HTTP request and response on stderr (keys redacted)\n"
    "  --id-field F          the field of the id (default id)\n"
    "  --input-field F       the field of the input (default input)\n"
    "  --max-attempts N      attempts before a line gives up (default: the recipe's, else " CLI_TEXT(COAX_DEFAULT_MAX_ATTEMPTS) ")\n"
    "  --max-agent-errors N  stop after N agent_errors in a row (default 10; 0: never)\n"
    "  --allow-failed        exit 0 even when lines failed (for Hadoop, Spark, parallel)\n"
    "  --quiet, -q           no progress and no summary on stderr\n"
    "  --lua-path DIR        the coax scripts (default: $COAX_LUA_PATH, else lua/ beside the\n"
    "                        coax executable or its installed share/coax/lua, ./lua)\n"
    "  --allow-dir DIR       a folder the recipe may name files in (its schema), besides its\n"
    "                        own and the project's schemas/; repeatable\n"
    "  --max-depth N         nesting of arrays and objects (default 512)\n"
    "  --max-input N         bytes of one input line (default 256M; longer: an invalid line)\n"
    "  --max-string N        bytes of one decoded string (default 64M)\n"
    "  --help, -h            this help\n"
    "Exit: 0 every line ok, 1 some failed (each has its line), 2 usage or an invalid recipe\n"
    "or schema (before any call), 3 the agent failed for good, 4 out of memory, or no room\n"
    "to write OUT (disk full, file size limit: the lines written are whole; --resume\n"
    "finishes).\n"
    "Examples:\n"
    "  coax batch lua/recipes/contact.lua --input in.jsonl --output out.jsonl\n"
    "  coax batch invoice.lua --agent openai --concurrency 16 < in.jsonl > out.jsonl\n";

#define DEFAULT_CONCURRENCY 8
#define MAX_CONCURRENCY 100000
#define DEFAULT_MAX_AGENT_ERRORS 10
#define POLL_SLICE_MS 10    /* how long one engine poll may wait for timers */
#define TTY_REDRAW_MS 250   /* progress redraw on a terminal */
#define PLAIN_EVERY_MS 5000 /* progress lines otherwise */
#define HIST 16             /* attempts histogram: 0..HIST-1, then "more" */
#define N_OUTCOMES (COAX_OUTCOME_INVALID + 1)

typedef struct batch_opts {
    const char *recipe, *input, *output;
    cli_agent agent;
    const char *id_field, *input_field, *replies_field;
    cli_engine engine; /* --lua-path, --allow-dir */
    size_t concurrency;
    double rpm;
    int max_attempts;
    unsigned long max_agent_errors;
    bool resume, quiet, allow_failed;
    coax_limits limits;
} batch_opts;

/* A session in flight, with the compact JSON of its line's id. */
typedef struct slot {
    coax_session *s;
    char *id;
    size_t id_len;
} slot;

typedef struct batch_stats {
    uint64_t lines, skipped, ok;
    uint64_t outcome[N_OUTCOMES];
    uint64_t attempts[HIST + 1];
    uint64_t in_est, out_est, in_prov, out_prov;
    bool provider;
} batch_stats;

typedef struct batch {
    const batch_opts *o;
    coax_engine *engine;
    coax_buf agent; /* the agent options' members, without the braces */
    slot *slots;
    size_t inflight;
    batch_reader in;
    int in_fd, out_fd;
    bool in_done;
    batch_ids done; /* --resume: ids OUT already has */
    batch_stats st;
    double t0, next_request, interval, last_progress;
    bool tty, drawn;
    uint64_t total; /* lines of the input file, 0 unknown */
    unsigned long agent_errors_in_a_row;
    bool stop;
    char stop_msg[200];
    coax_buf line, text;
    int fatal; /* the exit status of a fatal error; 0: none */
} batch;

/* ---- options ------------------------------------------------------------- */

static int parse_count(const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < lo || n > hi)
        return cli_usage("batch", "--%s wants an integer from %ld to %ld, not '%s'", opt, lo, hi, v);
    *out = n;
    return 0;
}

/* Returns 0, -1 for --help, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, batch_opts *o)
{
    const char *conc = NULL, *rpm = NULL, *attempts = NULL, *agent_errors = NULL;
    struct {
        const char *name;
        const char **value;
    } const opts[] = {
        {"input", &o->input},       {"output", &o->output},         {"concurrency", &conc},
        {"rpm", &rpm},
        {"id-field", &o->id_field}, {"input-field", &o->input_field}, {"replies-field", &o->replies_field},
        {"max-attempts", &attempts}, {"max-agent-errors", &agent_errors},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = 0;
        for (size_t k = 0; k < sizeof opts / sizeof *opts && r == 0; k++) r = cli_opt(argc, argv, &i, opts[k].name, opts[k].value);
        if (r == 0) r = cli_agent_opt(argc, argv, &i, &o->agent);
        if (r == 0) r = cli_engine_opt(argc, argv, &i, &o->engine);
        if (r == 0) r = cli_limit_opt("batch", argc, argv, &i, &o->limits);
        if (r < 0) return 2;
        if (r > 0) continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return -1;
        if (!strcmp(a, "--resume")) o->resume = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) o->quiet = true;
        else if (!strcmp(a, "--allow-failed")) o->allow_failed = true;
        else if (a[0] == '-' && a[1] != '\0') return cli_usage("batch", "unknown option '%s' (try --help)", a);
        else if (o->recipe) return cli_usage("batch", "one recipe at a time ('%s' and '%s')", o->recipe, a);
        else o->recipe = a;
    }
    if (!o->recipe) return cli_usage("batch", "a RECIPE is required (try --help)");
    long n;
    o->concurrency = DEFAULT_CONCURRENCY;
    if (conc) {
        if (parse_count("concurrency", conc, 1, MAX_CONCURRENCY, &n)) return 2;
        o->concurrency = (size_t)n;
    }
    if (attempts) {
        if (parse_count("max-attempts", attempts, 1, 1000000, &n)) return 2;
        o->max_attempts = (int)n;
    }
    o->max_agent_errors = DEFAULT_MAX_AGENT_ERRORS;
    if (agent_errors) {
        if (parse_count("max-agent-errors", agent_errors, 0, 1000000000, &n)) return 2;
        o->max_agent_errors = (unsigned long)n;
    }
    if (rpm) {
        char *end;
        errno = 0;
        o->rpm = strtod(rpm, &end);
        if (errno || end == rpm || *end || !(o->rpm > 0) || o->rpm > 1e9)
            return cli_usage("batch", "--rpm wants a positive number of requests a minute, not '%s'", rpm);
    }
    if (!o->input) o->input = "-";
    if (!o->output) o->output = "-";
    if (o->resume && !strcmp(o->output, "-"))
        return cli_usage("batch", "--resume needs --output FILE (it reads back what the file holds)");
    if (o->agent.replay && o->replies_field)
        return cli_usage("batch", "--replay and --replies-field both give the replies: choose one");
    if ((o->id_field && !*o->id_field) || (o->input_field && !*o->input_field) ||
        (o->replies_field && !*o->replies_field))
        return cli_usage("batch", "a field name must not be empty");
    if (!o->id_field) o->id_field = "id";
    if (!o->input_field) o->input_field = "input";
    return 0;
}


/* ---- output lines ----------------------------------------------------------- */

static void write_line(batch *b)
{
    if (b->fatal) return;
    if (b->line.oom) {
        b->fatal = cli_fail("batch", COAX_ENOMEM, NULL);
        return;
    }
    /* OUT's size before the line, to cut a part written before a failure
    ** (a full disk, a file size limit): what OUT holds stays whole lines. */
    bool own = strcmp(b->o->output, "-") != 0;
    struct stat st;
    bool cut = own && fstat(b->out_fd, &st) == 0 && S_ISREG(st.st_mode);
    size_t written;
    int e = batch_write_all(b->out_fd, b->line.data, b->line.len, &written);
    if (e) {
        const char *after = "";
        if (own) after = !written || (cut && ftruncate(b->out_fd, st.st_size) == 0)
                             ? "; the lines before are whole: rerun with --resume to finish"
                             : "; rerun with --resume to finish (it cuts the torn last line)";
        cli_errf("coax batch: cannot write to %s: %s%s\n", own ? b->o->output : "standard output",
                 strerror(e), after);
        b->fatal = cli_write_status(e);
    }
    b->line.len = 0;
}

/* A line that never became a session: outcome invalid, with the reason. */
static void emit_invalid(batch *b, const char *id, size_t id_len, uint64_t line_no, const char *reason)
{
    coax_buf *L = &b->line;
    L->len = 0;
    coax_buf_puts(L, "{\"id\":");
    if (id) coax_buf_put(L, id, id_len);
    else coax_buf_printf(L, "null,\"line\":%llu", (unsigned long long)line_no);
    coax_buf_puts(L, ",\"outcome\":\"invalid\",\"error\":{\"code\":\"invalid_input\",\"message\":");
    coax_buf_put_json_string(L, reason, strlen(reason));
    coax_buf_printf(L, "},\"metrics\":%s}\n", batch_zero_metrics);
    write_line(b);
    b->st.lines++;
    b->st.outcome[COAX_OUTCOME_INVALID]++;
    b->st.attempts[0]++;
}

/* The output line of a session that ended, and its counts in the summary. */
static void emit_result(batch *b, slot *sl)
{
    coax_outcome oc = coax_session_outcome(sl->s);
    session_metrics m;
    b->line.len = 0;
    batch_result_line(&b->line, sl->s, sl->id, sl->id_len, &m);
    write_line(b);

    batch_stats *st = &b->st;
    st->lines++;
    st->outcome[(unsigned)oc < N_OUTCOMES ? oc : COAX_OUTCOME_INVALID]++;
    st->attempts[m.attempts < HIST ? m.attempts : HIST]++;
    st->in_est += m.input_tokens_est;
    st->out_est += m.output_tokens_est;
    st->in_prov += m.input_tokens;
    st->out_prov += m.output_tokens;
    if (m.have_input_tokens || m.have_output_tokens) st->provider = true;

    /* The agent failed for good when line after line ends in agent_error. */
    if (oc == COAX_OUTCOME_AGENT_ERROR) {
        b->agent_errors_in_a_row++;
        if (b->o->max_agent_errors && b->agent_errors_in_a_row >= b->o->max_agent_errors && !b->stop) {
            const char *why;
            coax_session_error(sl->s, &why);
            b->stop = true;
            snprintf(b->stop_msg, sizeof b->stop_msg, "%s", why ? why : "(no detail)");
        }
    } else {
        b->agent_errors_in_a_row = 0;
    }
}

/* Writes and frees every session that ended. */
static void harvest(batch *b)
{
    for (size_t i = 0; i < b->o->concurrency && b->inflight; i++) {
        slot *sl = &b->slots[i];
        if (!sl->s || coax_session_outcome(sl->s) == COAX_OUTCOME_RUNNING) continue;
        emit_result(b, sl);
        coax_session_free(sl->s);
        free(sl->id);
        memset(sl, 0, sizeof *sl);
        b->inflight--;
    }
}

/* ---- starting sessions ------------------------------------------------------- */

/* --rpm: every retry is a request too, which pushes the next free request slot. */
static void on_event(void *ud, coax_session *s, const char *name, const char *data)
{
    batch *b = ud;
    (void)s;
    if (strcmp(name, "attempt_start")) return;
    const char *at = strstr(data, "\"attempt\":");
    if (!at || strtol(at + 10, NULL, 10) <= 1) return; /* the first was counted at the start */
    double now = coax_now_ms();
    b->next_request = (b->next_request > now ? b->next_request : now) + b->interval;
}

static coax_code new_session(batch *b, const char *input, size_t input_len, const coax_value *replies, coax_session **out,
                             coax_error *err)
{
    coax_session_options so = {0};
    so.input = input;
    so.input_len = input_len;
    so.max_attempts = b->o->max_attempts;
    if (b->interval > 0) { /* else no event is heard: the session writes none of their texts */
        so.on_event = on_event;
        so.event_ud = b;
    }
    so.command = b->o->agent.command;
    coax_buf aj;
    coax_buf_init(&aj, NULL);
    if (b->agent.len || replies) {
        coax_buf_putc(&aj, '{');
        coax_buf_put(&aj, b->agent.data, b->agent.len);
        if (replies) {
            coax_buf_puts(&aj, b->agent.len ? ",\"replies\":" : "\"replies\":");
            coax_write_buf(&aj, replies, 0);
        }
        coax_buf_putc(&aj, '}');
        coax_buf_putc(&aj, '\0');
        so.agent_json = aj.data;
    }
    coax_code rc = aj.oom ? coax_fail(err, COAX_ENOMEM, 0, "out of memory") : coax_session_from_file(b->engine, b->o->recipe, &so, out, err);
    coax_buf_free(&aj);
    return rc;
}

static void start(batch *b, const char *id, size_t id_len, const char *input, size_t input_len, const coax_value *replies)
{
    slot *sl = NULL;
    for (size_t i = 0; i < b->o->concurrency && !sl; i++)
        if (!b->slots[i].s) sl = &b->slots[i];
    coax_error err = {0};
    char *idc = malloc(id_len);
    coax_session *s = NULL;
    coax_code rc = idc ? new_session(b, input, input_len, replies, &s, &err) : coax_fail(&err, COAX_ENOMEM, 0, "out of memory");
    if (rc) {
        free(idc);
        b->fatal = cli_fail("batch", rc, &err);
        return;
    }
    memcpy(idc, id, id_len);
    *sl = (slot){s, idc, id_len};
    b->inflight++;
    if (b->interval > 0) {
        double now = coax_now_ms();
        b->next_request = (b->next_request > now ? b->next_request : now) + b->interval;
    }
}

/* One input line, parsed: what a session needs, or why there is none. */
typedef struct record {
    bool blank;
    const coax_value *id, *input, *replies; /* id NULL unless a string or a number */
    char reason[300];                       /* empty when the line is good */
} record;

/* Reads 'line' into 'rec', its values in 'a'. False when out of memory. */
static bool read_record(const batch_opts *o, coax_arena *a, const char *line, size_t len, record *rec)
{
    memset(rec, 0, sizeof *rec);
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t')) len--;
    size_t lead = 0;
    while (lead < len && (line[lead] == ' ' || line[lead] == '\t')) lead++;
    if (lead == len) return (rec->blank = true);
    coax_value *v = NULL;
    coax_error err = {0};
    coax_code rc = coax_parse(a, line, len, &o->limits, &v, &err);
    if (rc == COAX_ENOMEM) return false;
    if (rc) {
        snprintf(rec->reason, sizeof rec->reason, "not JSON: %s (column %u)", err.msg, err.column);
        return true;
    }
    coax_type t = coax_value_type(v);
    if (t != COAX_OBJECT) {
        snprintf(rec->reason, sizeof rec->reason, "not a JSON object but %s %s", t == COAX_ARRAY ? "an" : "a",
                 coax_type_name(t));
        return true;
    }
    const coax_value *id = coax_object_get(v, o->id_field, strlen(o->id_field));
    rec->input = coax_object_get(v, o->input_field, strlen(o->input_field));
    rec->replies = o->replies_field ? coax_object_get(v, o->replies_field, strlen(o->replies_field)) : NULL;
    t = id ? coax_value_type(id) : COAX_NULL;
    if (t == COAX_STRING || t == COAX_NUMBER) rec->id = id;
    if (id && !rec->id && t != COAX_NULL) {
        snprintf(rec->reason, sizeof rec->reason, "\"%.100s\" must be a string or a number, not %s %s", o->id_field,
                 t == COAX_ARRAY || t == COAX_OBJECT ? "an" : "a", coax_type_name(t));
    } else if (!rec->id) {
        snprintf(rec->reason, sizeof rec->reason, "no \"%.100s\" (a string or a number)", o->id_field);
    } else if (!rec->input) {
        snprintf(rec->reason, sizeof rec->reason, "no \"%.100s\"", o->input_field);
    } else if (coax_value_type(rec->input) == COAX_NULL) {
        snprintf(rec->reason, sizeof rec->reason, "\"%.100s\" is null", o->input_field);
    } else if (rec->replies) {
        bool strings = coax_value_type(rec->replies) == COAX_ARRAY;
        for (size_t i = 0; strings && i < coax_value_len(rec->replies); i++)
            strings = coax_value_type(coax_array_get(rec->replies, i)) == COAX_STRING;
        if (!strings) snprintf(rec->reason, sizeof rec->reason, "\"%.100s\" must be an array of strings", o->replies_field);
    }
    return true;
}

/* The text a session gets: a string as it is; objects, arrays and numbers
** as their JSON text, appended to 'b' (check b->oom). */
static void record_input(const record *rec, coax_buf *b, const char **text, size_t *len)
{
    if (coax_value_type(rec->input) == COAX_STRING) {
        *text = coax_value_text(rec->input, len);
        return;
    }
    size_t from = b->len;
    coax_write_buf(b, rec->input, 0);
    *text = b->data ? b->data + from : "";
    *len = b->len - from;
}

/* One input line: an output line at once when it is malformed or done
** already (--resume), else a session. */
static void take_line(batch *b, const char *line, size_t len)
{
    uint64_t no = b->in.line_no;
    coax_arena *a = coax_arena_new(NULL);
    record rec;
    if (!a || !read_record(b->o, a, line, len, &rec)) {
        coax_arena_free(a);
        b->fatal = cli_fail("batch", COAX_ENOMEM, NULL);
        return;
    }
    coax_buf *key = &b->text;
    key->len = 0;
    if (!rec.blank) batch_key(key, rec.id, no);
    if (rec.blank) {
        /* blank lines are not records */
    } else if (key->oom) {
        b->fatal = cli_fail("batch", COAX_ENOMEM, NULL);
    } else if (b->o->resume && ids_take(&b->done, key->data, key->len)) {
        b->st.skipped++;
    } else if (rec.reason[0]) {
        emit_invalid(b, rec.id ? key->data : NULL, key->len, no, rec.reason);
    } else {
        size_t id_end = key->len, ilen;
        const char *text;
        record_input(&rec, key, &text, &ilen);
        if (key->oom) b->fatal = cli_fail("batch", COAX_ENOMEM, NULL);
        else start(b, key->data, id_end, text, ilen, rec.replies);
    }
    coax_arena_free(a);
}

/* ---- progress and summary ---------------------------------------------------- */

static void human(char *out, size_t cap, double n)
{
    if (n >= 1e9) snprintf(out, cap, "%.1fG", n / 1e9);
    else if (n >= 1e6) snprintf(out, cap, "%.1fM", n / 1e6);
    else if (n >= 1e4) snprintf(out, cap, "%.1fk", n / 1e3);
    else snprintf(out, cap, "%.0f", n);
}

static void duration(char *out, size_t cap, double s)
{
    if (s >= 3600) snprintf(out, cap, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else if (s >= 60) snprintf(out, cap, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else snprintf(out, cap, "%.1fs", s);
}

static void progress(batch *b, bool final)
{
    if (b->o->quiet) return;
    double now = coax_now_ms();
    if (final) {
        if (b->drawn) fputs("\r\033[K", stderr);
        return;
    }
    if (now - b->last_progress < (b->tty ? TTY_REDRAW_MS : PLAIN_EVERY_MS)) return;
    b->last_progress = now;
    const batch_stats *st = &b->st;
    double secs = (now - b->t0) / 1e3, rate = secs > 0 ? (double)st->lines / secs : 0;
    uint64_t done = st->lines + st->skipped;
    char msg[300], in[16], out[16], eta[32] = "";
    size_t n = 0;
    if (b->total) n += (size_t)snprintf(msg, sizeof msg, "%llu/%llu lines (%.0f%%)", (unsigned long long)done,
                                        (unsigned long long)b->total, 100.0 * (double)done / (double)b->total);
    else n += (size_t)snprintf(msg, sizeof msg, "%llu lines", (unsigned long long)done);
    if (b->total && rate > 0 && b->total > done) duration(eta, sizeof eta, (double)(b->total - done) / rate);
    human(in, sizeof in, (double)(st->provider ? st->in_prov : st->in_est));
    human(out, sizeof out, (double)(st->provider ? st->out_prov : st->out_est));
    snprintf(msg + n, sizeof msg - n, ", %.1f/s%s%s, ok %.1f%%, tokens %s in %s out, %zu in flight", rate,
             eta[0] ? ", ETA " : "", eta, st->lines ? 100.0 * (double)st->outcome[COAX_OUTCOME_OK] / (double)st->lines : 100.0,
             in, out, b->inflight);
    if (b->tty) {
        fputs("\r\033[K", stderr); /* the line drawn before is cleared: the one escape coax writes */
        cli_errf("%s", msg);
        b->drawn = true;
    } else {
        cli_errf("coax batch: %s\n", msg);
    }
    fflush(stderr);
}

static void summary(const batch *b)
{
    if (b->o->quiet) return;
    const batch_stats *st = &b->st;
    double secs = (coax_now_ms() - b->t0) / 1e3;
    cli_errf("coax batch: %llu lines in %.3f s (%.1f lines/s)", (unsigned long long)st->lines, secs,
             secs > 0 ? (double)st->lines / secs : 0.0);
    if (st->skipped) cli_errf(", %llu skipped as done (--resume)", (unsigned long long)st->skipped);
    fputs("\n  outcomes:", stderr);
    const char *sep = " ";
    for (int k = COAX_OUTCOME_OK; k < N_OUTCOMES; k++) {
        if (!st->outcome[k]) continue;
        cli_errf("%s%s %llu", sep, coax_outcome_name((coax_outcome)k), (unsigned long long)st->outcome[k]);
        sep = ", ";
    }
    if (!st->lines) fputs(" none", stderr);
    fputs("\n  attempts:", stderr);
    sep = " ";
    for (int k = 0; k <= HIST; k++) {
        if (!st->attempts[k]) continue;
        cli_errf("%s%s%d: %llu", sep, k == HIST ? ">=" : "", k, (unsigned long long)st->attempts[k]);
        sep = ", ";
    }
    if (!st->lines) fputs(" none", stderr);
    cli_errf("\n  tokens: %llu in, %llu out (estimated)", (unsigned long long)st->in_est,
             (unsigned long long)st->out_est);
    if (st->provider)
        cli_errf("; %llu in, %llu out (provider)", (unsigned long long)st->in_prov,
                 (unsigned long long)st->out_prov);
    fputc('\n', stderr);
}

/* ---- the loop ---------------------------------------------------------------- */

/* Reads and starts lines while a slot is free and the request rate allows,
** waiting for input only when nothing is in flight. */
static void fill(batch *b)
{
    while (!b->in_done && !b->stop && !b->fatal && b->inflight < b->o->concurrency) {
        if (b->interval > 0 && coax_now_ms() < b->next_request) return;
        const char *line;
        size_t len;
        int wait = b->inflight ? 0 : b->o->quiet ? 1000 : TTY_REDRAW_MS;
        switch (br_next(&b->in, wait, &line, &len)) {
        case BR_LINE: take_line(b, line, len); break;
        case BR_NONE: return;
        case BR_EOF: b->in_done = true; return;
        case BR_TOOLONG: {
            char reason[96];
            snprintf(reason, sizeof reason, "longer than --max-input (%zu bytes)", b->in.max_line);
            coax_buf *key = &b->text;
            key->len = 0;
            batch_key(key, NULL, b->in.line_no);
            if (b->o->resume && ids_take(&b->done, key->data, key->len)) b->st.skipped++;
            else emit_invalid(b, NULL, 0, b->in.line_no, reason);
            break;
        }
        case BR_ERROR:
            cli_errf("coax batch: cannot read %s: %s\n", strcmp(b->o->input, "-") ? b->o->input : "standard input",
                     strerror(b->in.err));
            b->fatal = 2;
            return;
        }
    }
}

static void run(batch *b)
{
    for (;;) {
        if (cli_signalled()) { /* lines written so far are whole; --resume does the rest */
            coax_engine_free(b->engine); /* kills the commands still running */
            cli_die_of(cli_signalled());
        }
        harvest(b);
        fill(b);
        if (b->fatal) return;
        if (b->inflight == 0 && (b->in_done || b->stop)) return;
        double wait = POLL_SLICE_MS;
        if (b->interval > 0 && !b->in_done && !b->stop && b->inflight < b->o->concurrency) {
            double until = b->next_request - coax_now_ms();
            if (until < wait) wait = until > 0 ? until : 0;
        }
        if (b->inflight) coax_engine_poll(b->engine, (int)(wait + 0.999));
        else if (wait > 0) poll(NULL, 0, (int)(wait + 0.999)); /* the rate limit, nothing in flight */
        progress(b, false);
    }
}

/* A session that is never polled calls nothing: 0 when it starts, 2 (with
** the reason in 'msg') when the recipe, its schema or the agent options are
** invalid, another exit status (or 2 with 'msg' empty: an unreadable recipe)
** after a message when it cannot be created. */
static int probe_with(batch *b, const char *input, size_t len, const coax_value *replies, char *msg, size_t cap)
{
    coax_session *s;
    coax_error err = {0};
    msg[0] = '\0';
    coax_code rc = new_session(b, input, len, replies, &s, &err);
    if (rc) return cli_fail("batch", rc, &err);
    int status = 0;
    coax_outcome o = coax_session_outcome(s);
    const char *why;
    coax_session_failure f = coax_session_error(s, &why);
    /* A schema over a limit ends every line alike: stop before any (exit 4). */
    if (o == COAX_OUTCOME_INVALID || f == COAX_FAILURE_SCHEMA_LIMIT) {
        snprintf(msg, cap, "%s", why ? why : "invalid recipe");
        status = o == COAX_OUTCOME_INVALID ? 2 : 4;
    }
    coax_session_free(s);
    return status;
}

/* Checks the recipe, its schema and the agent options before any output
** and any model call. A recipe that is invalid for an empty input only is
** tried with the first line's input, and the line is put back to be read
** again. (A prompt function runs when a session runs: its errors are the
** line's script errors.) */
static int check_recipe(batch *b)
{
    char msg[400];
    int status = probe_with(b, "", 0, NULL, msg, sizeof msg);
    if (status == 4 && msg[0]) cli_errf("coax batch: %s: %s\n", b->o->recipe, msg);
    if (status != 2 || !msg[0]) return status;
    const char *line;
    size_t len;
    record rec = {.blank = true};
    coax_arena *a = coax_arena_new(NULL);
    while (a && rec.blank && br_next(&b->in, -1, &line, &len) == BR_LINE) {
        coax_arena_free(a);
        a = coax_arena_new(NULL);
        if (a && !read_record(b->o, a, line, len, &rec)) break;
    }
    if (a && !rec.blank && !rec.reason[0]) {
        coax_buf text;
        coax_buf_init(&text, NULL);
        const char *in;
        size_t ilen;
        record_input(&rec, &text, &in, &ilen);
        if (!text.oom) status = probe_with(b, in, ilen, rec.replies, msg, sizeof msg);
        coax_buf_free(&text);
    }
    coax_arena_free(a);
    if (status == 0) br_unread(&b->in);
    else if (status == 2 && msg[0]) cli_usage("batch", "%s: %s", b->o->recipe, msg);
    return status;
}

static int open_input(batch *b)
{
    const batch_opts *o = b->o;
    b->in_fd = strcmp(o->input, "-") ? open(o->input, O_RDONLY) : STDIN_FILENO;
    if (b->in_fd < 0) return cli_usage("batch", "cannot open %s: %s", o->input, strerror(errno));
    coax_limits lim = coax_limits_resolve(&o->limits);
    br_init(&b->in, b->in_fd, lim.max_input);
    return 0;
}

static int open_output(batch *b)
{
    const batch_opts *o = b->o;
    if (o->resume) {
        uint64_t lines;
        size_t torn;
        int status = batch_resume_scan(o->output, &b->done, &lines, &torn);
        if (status) return status;
        if (torn && !o->quiet)
            cli_errf("coax batch: cut a torn last line (%zu bytes) from %s\n", torn, o->output);
    }
    if (strcmp(o->output, "-")) {
        b->out_fd = open(o->output, O_WRONLY | O_CREAT | O_APPEND | (o->resume ? 0 : O_TRUNC), 0644);
        if (b->out_fd < 0) return cli_usage("batch", "cannot open %s: %s", o->output, strerror(errno));
    } else {
        b->out_fd = STDOUT_FILENO;
    }
    return 0;
}

int cli_batch(int argc, char **argv)
{
    batch_opts o = {0};
    int status = parse_args(argc, argv, &o);
    if (status < 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (status) return status;
    /* Past a file size limit (ulimit -f) a write fails with EFBIG, reported
    ** like a full disk, instead of the signal killing the batch mid-line. */
    signal(SIGXFSZ, SIG_IGN);
    cli_trap_signals(NULL);
    batch b = {0};
    b.o = &o;
    b.in_fd = b.out_fd = -1;
    b.tty = isatty(STDERR_FILENO);
    b.interval = o.rpm > 0 ? 60000.0 / o.rpm : 0;
    coax_buf_init(&b.agent, NULL);
    coax_buf_init(&b.line, NULL);
    coax_buf_init(&b.text, NULL);
    coax_engine_options eo = {0};
    cli_engine_options(&o.engine, &eo);
    eo.limits = o.limits;
    cli_agent_engine("batch", &o.agent, &eo);
    coax_error err = {0};
    coax_code rc = coax_engine_new(&eo, &b.engine, &err);
    if (rc) status = cli_engine_fail("batch", rc, &err);
    else cli_trap_signals(b.engine);
    if (status == 0) status = open_input(&b);
    cli_agent_choice choice = {0};
    if (status == 0)
        status = cli_agent_choose("batch", &o.agent, o.replies_field ? "replay" : NULL, b.engine, o.recipe, &b.agent,
                                  &choice);
    if (status == 0) status = check_recipe(&b);
    if (status == 0) status = open_output(&b);
    if (status == 0 && choice.notice[0] && !o.quiet) cli_errf("coax batch: %s\n", choice.notice);
    if (status == 0 && !(b.slots = calloc(o.concurrency, sizeof *b.slots))) status = cli_fail("batch", COAX_ENOMEM, NULL);
    if (status == 0) {
        if (!o.quiet && strcmp(o.input, "-")) b.total = batch_count_lines(o.input);
        b.t0 = coax_now_ms();
        b.last_progress = b.t0;
        run(&b);
        progress(&b, true);
        status = b.fatal;
        if (!status) {
            summary(&b);
            if (b.stop) {
                cli_errf("coax batch: stopped: %lu lines in a row ended in agent_error (the last: %s); "
                         "the rest is unread: rerun with --resume\n", b.agent_errors_in_a_row, b.stop_msg);
                status = 3;
            } else if (b.st.outcome[COAX_OUTCOME_OK] < b.st.lines && !o.allow_failed) {
                status = 1;
            }
        }
    }
    for (size_t i = 0; b.slots && i < o.concurrency; i++) free(b.slots[i].id);
    free(b.slots);
    coax_engine_free(b.engine); /* frees the sessions still in flight after a fatal error */
    ids_free(&b.done);
    br_free(&b.in);
    if (b.in_fd > STDIN_FILENO) close(b.in_fd);
    if (b.out_fd > STDOUT_FILENO) close(b.out_fd);
    coax_buf_free(&b.agent);
    coax_buf_free(&b.line);
    coax_buf_free(&b.text);
    return status;
}
