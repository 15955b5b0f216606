/*
** engine.h: internals shared by the session layer: engine.c (the engine,
** its poll loop and timers), session.c (one extraction's state machine and
** report) and lend*.c (the functions lent to scripts).
*/
#ifndef COAX_ENGINE_H
#define COAX_ENGINE_H

#include "io/http.h"
#include "io/process.h"
#include "session/report.h"
#include "session/roots.h"
#include "session/schema_cache.h"
#include "script/vm.h"
#include "base/clock.h"
#include "stream/stream.h"

typedef enum sstate {
    SS_FIRST,   /* the first prompt is to be made */
    SS_CALL,    /* the agent is to be called */
    SS_WAIT,    /* the agent's coroutine is suspended (sleeping, on HTTP, on its host) */
    SS_DONE
} sstate;

/* A streamed reply (lend_stream.c, README "Streaming"): the recipe's stream
** options, and what this attempt received through the agent's sink. */
typedef struct session_stream {
    bool on;                /* the agent streams its reply (its option stream) */
    bool partials, stop_early;
    double every_ms;        /* at most one partial this often */
    stream_options opts;    /* the schema and the atomic pointers (in the session's arena) */
    stream_reader *reader;  /* this attempt's, when partials or stop_early want one */
    size_t received;        /* bytes of the reply's text received (since it last started over) */
    coax_buf text;          /* that text, kept for stop_early (the attempt's record) */
    coax_buf hold;          /* received text that may still begin a secret (lend_stream.c) */
    coax_buf clean;         /* the piece being fed, its secrets redacted */
    bool fed;               /* the sink was called this attempt: a streamed attempt */
    bool lost;              /* the reader passed a limit: no partials until the reply starts over */
    coax_arena *arena;      /* the last partial built, until the next */
    stream_partial part;
    bool built;             /* 'part' is newer than the last partial told */
    size_t built_at;        /* the bytes fed when it was built */
    double told_at;         /* when the last partial was told */
    double told_cost;       /* the CPU time building and telling it took (ms) */
    uint64_t told_wake;     /* the engine's wake it was told in */
    bool promised;          /* a partial of this reply was told: its complete parts are promises */
    bool told_promise;      /* the reply started over after a partial was told: no more partials */
    coax_arena *kept;       /* the complete parts told before it started over, */
    stream_partial promise; /* copied: a promise the final value must keep too */
    bool has_promise;       /* 'promise' holds them */
    bool stopped;           /* stop_early cut the reply: 'part' holds its errors */
} session_stream;

struct coax_session {
    coax_engine *engine;
    coax_session *prev, *next;
    uint64_t serial;     /* this session among the engine's, for its sinks (lend_stream.c) */
    sstate state;
    coax_outcome outcome;
    int S_ref;           /* the Lua session table (coax.runtime) */
    int co_ref;          /* the agent's coroutine while it runs */
    lua_State *co;
    long call_left;      /* the instructions the agent's call has left over its resumes (vm_resume) */
    uint64_t script_cpu_ns; /* the CPU time its scripts have spent, which their os.clock reads */
    double wake_at;      /* when sleeping: the time to resume */
    bool sleeping;
    http_req *http;      /* the agent's request in flight, or NULL */
    http_pool *pool;     /* the connections its requests keep (lend_http.c), or NULL */
    proc_req *proc;      /* the command agent's process, or NULL */
    const char *command; /* the host's command line (in the arena), or NULL */
    char host_base[256]; /* the host of the base_url the host gave (agent_json), where its secrets may go, or "" */
    bool host_base_plain; /* that base_url is http: the secrets may go there in clear text, as the host said */
    char finish[24];     /* the reply's finish reason this attempt, or "" */
    int retries;         /* the agent's transport retries this attempt, or -1 */
    int http_status;     /* the HTTP status an agent error reports, or 0 */
    /* The host agent: the request the host is asked (JSON, NUL-terminated)
    ** and its answer, a reply or a failure message. */
    enum { HOST_IDLE, HOST_ASKED, HOST_ANSWERED } host;
    coax_buf host_request, host_answer;
    /* The pieces the host handed over for this request since the reply last
    ** started over (host.c): their bytes and hash, to tell whether the whole
    ** reply is the pieces joined. */
    size_t host_piece_len;
    uint64_t host_piece_hash;
    bool host_failed;
    size_t host_over;            /* a reply past max_input: its length, not copied */
    long long host_in, host_out; /* provider usage the host reported, or -1 */
    char host_finish[24];        /* the finish the host said (coax_session_host_finish), or "" */
    /* The secret values the agent's requests carried, each NUL-terminated:
    ** lend_http.c redacts them line by line, and the session redacts the reply
    ** as a whole, where a stream may have joined a key split across lines. */
    coax_buf secrets;
    coax_arena *arena;   /* the session's strings */
    /* The schema and its document: the engine's cached ones ('shared'), or
    ** the session's own when the cache had no room ('schema' and
    ** 'schema_arena', which holds the document). */
    cached_schema *shared;
    coax_schema *schema;
    const coax_value *schema_doc;
    coax_arena *schema_arena;
    int attempt, max_attempts;
    coax_class max_class; /* the recipe's: the least certain repair a value may depend on */
    uint64_t budget_tokens; /* 0: none */
    double deadline_ms;     /* 0: none */
    /* metrics */
    double t_start, t_end, t_call, agent_ms;
    uint64_t in_est, out_est, in_prov, out_prov;
    bool have_in_prov, have_out_prov;
    /* The provider's counts beside the totals (session.c's USAGE_DETAILS:
    ** cached input, cache writes, reasoning), summed, and whether any was said. */
    uint64_t detail_prov[SESSION_USAGE_DETAILS];
    bool have_detail_prov[SESSION_USAGE_DETAILS];
    size_t repairs, coercions;
    coax_class value_class; /* the accepted value's least certain repair or coercion (coax batch says it) */
    double t_attempt;
    coax_buf messages;   /* the JSON of the messages this attempt added to the conversation */
    size_t messages_total; /* the bytes of that JSON over the attempts (record.c bounds it) */
    int messages_kept;   /* how many of the previous attempt's messages it kept before them */
    coax_buf tool_rounds; /* tools mode: this attempt's tool rounds, as JSON */
    /* The attempts' records, comma separated; once the session has ended
    ** and its report is asked for, the report, made around them in place. */
    coax_buf report;
    bool reported;       /* 'report' is the report */
    int recorded;        /* the attempts recorded in it */
    /* Where the records start in 'report' (the head's length once the report
    ** is made around them, 0 before) and where, from there, the last one's
    ** "errors" array is: a host shows it without parsing the report. */
    size_t records_at, last_errors_at, last_errors_len;
    coax_buf value;      /* the accepted value */
    coax_buf sent;       /* the last failed reply's value as sent, pretty ({{submission}}) */
    /* The last reply's and the last feedback's texts, and where 'report'
    ** holds their JSON: the next request's messages repeat them, and the
    ** report copies those bytes rather than escape the texts again. */
    struct session_said {
        coax_buf text;
        size_t at, len;
    } said[2];
    coax_session_failure failure;
    const char *error_code; /* the report's error.code: a static string */
    coax_buf error_msg;
    coax_event_fn on_event;
    void *event_ud;
    session_listener listener; /* a host inside coax (report.h) */
    coax_submit_fn on_submit;
    void *submit_ud;
    session_stream stream;
    /* coax_session_free was called inside the engine's poll (from a host
    ** callback): the session is freed when the poll returns, and hears and
    ** does nothing more until then. */
    bool free_pending;
};

struct coax_engine {
    /* Everything the engine allocates goes through 'watch' (ctx: the
    ** engine), which calls the host's allocator ('host', or the C library's
    ** when 'host_set' is false) and marks the VM when it fails: a script
    ** stopped by it ends in out_of_memory, not in the error it raised. */
    coax_allocator host;
    bool host_set;
    coax_allocator watch;
    const coax_allocator *alloc; /* &watch */
    coax_vm vm;
    coax_http *http;
    coax_limits limits;
    coax_session *sessions;
    coax_roots roots;    /* the folders a recipe may name files in */
    schema_cache schemas; /* compiled once for the sessions of one schema text */
    coax_meta_cache *meta_cache; /* the meta-schemas those were checked against; made at the first */
    uint64_t serials;     /* the sessions made so far */
    /* The poll's wakes: one for each call of coax_engine_poll and each time
    ** it waited; a session tells at most one partial per wake. */
    uint64_t wakes;
    /* Inside coax_engine_poll, coax_session_run or a session's making: the
    ** host's callbacks run there, and what they call back (a poll, a run, a
    ** free) must not pull the sessions or the running script from under it.
    ** 'free_pending': coax_engine_free was called there. */
    bool polling, free_pending;
};

/* After a poll (or a session's making): frees what the host's callbacks
** freed inside it. Returns false when that was the engine. */
bool engine_reap(coax_engine *e);

/* When 's' next needs attention (its timer or deadline), 0 if now. */
double session_next_event(const coax_session *s);

/* Advances 's' as far as it goes without waiting. */
void session_step(coax_session *s);

/* coax.host_request (lend.c): hands the request to the host (false when
** out of memory); once the host has answered, session_host_answer pushes
** the agent's results and returns how many. 'task' is the session. */
bool session_host_ask(void *task, const char *request, size_t len);
int session_host_answer(void *task, lua_State *L);

/* coax.check_reply (lend.c): checks the text at index 1 of 'L' against
** the session's schema as a reply would be, and pushes {valid = true,
** value} or the failure's context with valid = false. */
int session_check(void *task, lua_State *L);

/* Streaming (lend_stream.c). At an attempt's start: a fresh stream. After
** the agent's coroutine yielded: the partial, if one is due. After it ended:
** whether the sink stopped the reply early (the attempt then fails with the
** partial's errors, whatever the agent returned). Freeing a session: its
** stream. */
void stream_attempt_start(coax_session *s);
void stream_tell_partial(coax_session *s);
bool stream_stopped_early(const coax_session *s);
void stream_session_free(coax_session *s);

/* Takes a piece of the reply's text as it arrives (NULL: the reply starts
** over): the agent's sink (request.on_text) and the host's pieces
** (coax_session_host_piece) feed the attempt's stream through it. Returns
** COAX_OK; COAX_ECANCELED once stop_early has stopped the reply (this piece
** showed it doomed, or an earlier one); COAX_ENOMEM (the reader then sits
** this reply out: no more partials, those told still checked). */
coax_code stream_take(coax_session *s, const char *text, size_t len);

/* Why the reply was stopped early, for the agent's error or the host's
** (cap bytes, with the partial's errors). */
void stream_stop_reason(const coax_session *s, char *why, size_t cap);

/* Reads S.stream (the table at 'S' of 'L', made by coax.runtime) into
** s->stream; raises when memory runs out. */
void stream_configure(coax_session *s, lua_State *L, int S);

/* When the partial waiting to be told is due, HUGE_VAL when none is (or it
** waits for the poll's next wake). */
double stream_due(const coax_session *s);

/* Whether the accepted value 'v' keeps every promise the partials of this
** reply made: each part they listed complete is in 'v', equal. When not
** (a later JSON value in the reply took the first one's place), false with
** 'why' (cap bytes) naming the part: the attempt is refused, as the host has
** already shown what the value would contradict. */
bool stream_kept_promises(coax_session *s, const coax_value *v, char *why, size_t cap);

/* The extraction of the reply's text[0..len) with options 'xo' that this
** attempt's stream made already, or would make for the promises' check
** (stream_kept_promises) since partials were told: the same coax_extract
** call over the same text, which the attempt takes rather than make twice.
** NULL when there is none. Valid until the next attempt starts. */
const coax_extract_result *stream_reply_extract(coax_session *s, const char *text, size_t len,
                                                const coax_extract_options *xo);

/* Pushes s[0..n) with every value in 'secrets' (NUL-terminated values one
** after the other; those under 4 bytes are ignored) replaced by
** "[redacted]" (lend_http.c). */
void lend_push_redacted(lua_State *L, const coax_buf *secrets, const char *s, size_t n);

#endif
