/*
** report.h: parts of a session's report (README, "The report") written from
** the session's own state (record.c), for the report itself and for a host
** inside coax that shows only those parts (the lines of `coax batch` and of
** `coax run --stream`): they take them from here, never by building the
** report's text and parsing it back.
*/
#ifndef COAX_SESSION_REPORT_H
#define COAX_SESSION_REPORT_H

#include "base/core.h"

#define SESSION_USAGE_DETAILS 3 /* the usage counts kept beside the totals */

/* The report's "metrics" of a session that ended. */
typedef struct session_metrics {
    int attempts;                 /* 0 when no attempt was recorded */
    double wall_ms, engine_ms, agent_ms;
    uint64_t input_tokens_est, output_tokens_est;
    uint64_t input_tokens, output_tokens; /* the provider's, where 'have_' says it said them */
    bool have_input_tokens, have_output_tokens;
    uint64_t detail[SESSION_USAGE_DETAILS]; /* record.c's USAGE_DETAILS, summed */
    bool have_detail[SESSION_USAGE_DETAILS];
    size_t repairs, coercions;
} session_metrics;

/* The metrics of 's', which has ended. */
void session_metrics_read(const coax_session *s, session_metrics *m);

/* Appends the report's "metrics" object. */
void session_metrics_write(coax_buf *b, const session_metrics *m);

/* Appends the report's "error": {"code", "message", "http_status"?}, or null
** for a session that succeeded. */
void session_error_write(coax_buf *b, const coax_session *s);

/* Whether 's' (ended) has its report: false when memory ran out while its
** attempts were recorded (coax_session_report is then NULL). */
bool session_has_report(const coax_session *s);

/* The least certain class the accepted value rests on (its repairs' and
** coercions'), for a line that shows the value without its log. */
coax_class session_value_class(const coax_session *s);

/* The JSON text of the last attempt's "errors" in the report (an array,
** "[]" when it had none), or NULL when no attempt was recorded or the
** session has no report. Points into the session, '*len' bytes. */
const char *session_last_errors(const coax_session *s, size_t *len);

/* ---- hearing a session as it goes ------------------------------------------
** A host inside coax that tells each attempt as it is recorded (the
** narration of `coax run`) or shows each partial as it is told (`coax run
** --stream`) hears them as values, never as JSON text it would parse back. */

/* An attempt as its record says it, valid during the call. */
typedef struct session_attempt {
    const char *outcome;          /* the record's: "ok", "invalid", "rejected", "no_json", ... */
    const char *reason;           /* why it failed, as its event told it (cut to a whole character within
                                  ** EVENT_TEXT_CAP bytes, valid UTF-8), or NULL */
    const coax_extract_result *r; /* what extraction made of the reply, or NULL when nothing */
} session_attempt;

typedef struct session_listener {
    void (*attempt)(void *ud, const session_attempt *a); /* after each attempt is recorded; NULL: none */
    void (*partial)(void *ud, const coax_value *data);    /* each "partial" event's data; NULL: none */
    void *ud;
} session_listener;

/* 's' tells 'l' (copied; NULL: no one) from now on, from inside
** coax_engine_poll as it tells events: a listener must not free the session. */
void session_listen(coax_session *s, const session_listener *l);

#endif
