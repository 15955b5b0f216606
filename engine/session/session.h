/*
** session.h: what the files of a session share (struct coax_session is in
** engine.h). They are layered, each calling only those above it:
**
**   session.c   ending a session, calling coax.runtime, events, the
**               context a failure gives scripts
**   record.c    the attempt's record (usage, finish, tool rounds) and the
**               report, with the accessors that read them
**   host.c      the host agent (coax.host_request) and coax.check_reply
**   machine.c   the state machine: a step, the agent's call, its reply
**   create.c    a session from a recipe (its schema from the engine's
**               schema_cache.c), and freeing it
*/
#ifndef COAX_SESSION_H
#define COAX_SESSION_H

#include "session/engine.h"
#include "script/lib.h"

/* ---- session.c ------------------------------------------------------------ */

/* Tokens of text not yet sent: the calibrated o200k estimate (README,
** "Token estimation"); providers' reported usage replaces it when given. */
uint64_t session_estimate_tokens(const char *s, size_t n);

/* The estimate of the string at 'str' through the table at 'cache' (string
** -> count, filled as strings are met), so a message kept from attempt to
** attempt is estimated once, not once per attempt; 'cache' 0: no cache.
** Raw accesses only; allocates, so inside a protected call. */
uint64_t session_estimate_cached(lua_State *L, int cache, int str);

/* session_estimate_cached through the session's own cache (S.token_counts):
** a reply estimated on arrival is found again when the next attempt's
** messages carry it. */
uint64_t session_estimate_kept(coax_session *s, lua_State *L, int str);

/* Pushes t[k] of the table at 'idx', raw: tables an agent returns are read
** outside any protected call, so no metamethod of theirs may run. */
int session_raw_field(lua_State *L, int idx, const char *k);

/* Appends to 'b' the JSON of the Lua value at 'idx' of 'L', converted in
** the session's arena and rewound after (a string equal to one of the
** 'nknown' in 'known' copies its JSON). Raises on a value JSON cannot hold
** or a lack of memory: call it protected. Such an error leaves its values
** in the arena, which the session frees: an arena of Lua's own, freed by a
** finalizer, leaked when the allocator had run dry and the finalizer
** failed to run. */
void session_write_json(coax_session *s, lua_State *L, int idx, coax_buf *b, const coax_escaped *known,
                        size_t nknown);

/* Appends the JSON of the Lua value at the top of the main stack (popped)
** to 'b', protected; VM_OK or the failure. */
int session_append_json(coax_session *s, coax_buf *b);

/* Ends 's' with 'failure' (COAX_FAILURE_NONE: it succeeded) and its
** outcome; 'msg' says why it failed. */
void session_end(coax_session *s, coax_session_failure failure, const char *msg);

/* Drops an ended session's Lua table S (after its step or start). */
void session_release_lua(coax_session *s);

/* A failed call into Lua ends the session: a limit, or a script error. */
void session_script_failed(coax_session *s, int rc, const char *what);

/* Pushes a runtime function's arguments after S; returns how many. */
typedef int (*arg_pusher)(lua_State *L, const void *ud);

/* Calls coax.runtime[fn](S, ...), the arguments pushed by 'push' (or
** none), with its 'nresults' results left on the stack; protected, the
** pushing too. */
int session_runtime_call(coax_session *s, const char *fn, arg_pusher push, const void *ud, int nresults);

/* A member of an event's data beside "attempt": a count, a text, or JSON
** text (the host's request). */
typedef struct event_member {
    const char *key;
    enum { EVENT_COUNT, EVENT_TEXT, EVENT_JSON } kind;
    size_t count;     /* EVENT_COUNT */
    const char *text; /* EVENT_TEXT: valid UTF-8, NUL-terminated; EVENT_JSON: JSON */
    size_t len;       /* of 'text' */
} event_member;

/* Tells the host's callback (the data as JSON text, written only for it)
** and the recipe's on_event (the data as a value): 'name' with data
** {"attempt": n} and 'member' (NULL: none). */
void session_event(coax_session *s, const char *name, const event_member *member);

/* Tells the host's callback (as JSON text) and the recipe's on_event (as a
** value) 'name' with 'data', an object built whole by the caller (a partial). */
void session_event_value(coax_session *s, const char *name, const coax_value *data);

/* Event texts (a parse error, a reason, a message) are cut at a whole
** character within EVENT_TEXT_CAP bytes, invalid UTF-8 replaced by U+FFFD. */
#define EVENT_TEXT_CAP 200
#define EVENT_TEXT_BUF (3 * EVENT_TEXT_CAP + 1)

/* The member 'key' of text 'text', cut and made valid in 'buf' (cap bytes:
** EVENT_TEXT_BUF). */
event_member session_event_text(const char *key, const char *text, char *buf, size_t cap);

/* The context table of a failure or a submission, pushed on 'L'. */
void session_push_info(coax_session *s, lua_State *L, const char *kind);

/* What templates and strategies read about a failed reply, pushed on 'L':
** the info table with the value read, the errors, the reply and 'detail'
** (the parse error, the rejection's reason or the errors' summary).
** 'values_unread': no Lua code that will see the table reads its 'value'
** and 'coerced_value', which are then left out (pushing them was a seventh
** of a failed attempt); reading either raises instead of giving nil. */
void session_push_failure(coax_session *s, lua_State *L, const char *kind, const coax_extract_result *r, bool have_r,
                          const char *detail, const char *reply, size_t rlen, bool values_unread);

/* The one-line summary of an invalid value's errors. */
void session_summarize(char *buf, size_t cap, const coax_validation *v);

/* ---- record.c ------------------------------------------------------------- */

#define SESSION_USAGE_JSON_CAP 256

/* How many of the previous request's messages (S.previous) this one kept
** at its start, and the JSON of those it added: the report holds each
** message once. */
void session_record_messages(coax_session *s);

/* Ends 's' as session_record_messages does when the messages an attempt
** adds pass the Lua memory cap (outcome limit), for C that finds so first. */
void session_messages_over_cap(coax_session *s);

/* The message the session ended with (NUL-terminated), or "". */
const char *session_ended_reason(coax_session *s);

/* Appends this attempt's record to the report; 'reason' says why it failed
** (NULL for an attempt that succeeded). */
void session_record_attempt(coax_session *s, const char *outcome, const char *reason, const char *reply, size_t rlen,
                            const coax_extract_result *r, bool have_r, const char *usage_json);

/* Reads provider usage from the reply table on top of the main stack into
** the session's sums and 'json', the attempt's usage object (SESSION_USAGE_JSON_CAP
** bytes): the totals (null when not said) and each detail the provider gave. */
void session_take_usage(coax_session *s, char *json, size_t cap);

/* a + b, or UINT64_MAX past it: token counts come from providers and
** hosts (each up to 2^63 - 1), and a sum that wrapped made the report's
** total small and let the token budget pass. */
static inline uint64_t session_add_tokens(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* Reads what the agent says about its call from the table at 'idx' of
** 'L': the finish reason ("stop", "length", ...), its transport retries
** and, when it failed, the HTTP status of the last response. */
void session_take_meta(coax_session *s, lua_State *L, int idx);

/* Reads the tool rounds of an attempt in tools mode (the list at field
** "tool_rounds" of the table at 'idx' of 'L') into s->tool_rounds as JSON,
** with the request's secrets redacted. */
void session_take_tool_rounds(coax_session *s, lua_State *L, int idx);

/* Adds to the record of the attempt just recorded the feedback sent after it. */
void session_record_feedback(coax_session *s, const char *text, size_t len);

#endif
