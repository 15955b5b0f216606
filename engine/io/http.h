/*
** http.h: the engine's HTTP transport (http.c), a C API over libcurl's
** multi interface. It knows neither sessions nor Lua: what scripts see of
** it (coax.http.request, coax.secret) is lent by the session layer
** (session/lend_http.c).
**
** One coax_http per engine. A request is started from plain C options
** (http_start) and added to the multi; the engine's poll drives curl
** (http_perform, never blocking) and waits on curl's sockets (http_wait,
** bounded by the poll's timeout). A request is ready when it has news:
** lines of a streamed body (want_lines), or its end; its owner reads them
** (http_take_lines, http_result) and frees it (http_cancel).
*/
#ifndef COAX_HTTP_H
#define COAX_HTTP_H

#include "base/core.h"

#include <poll.h>

typedef struct coax_http coax_http;
typedef struct http_req http_req;

/* What a secret's value becomes wherever it could be seen. */
#define HTTP_REDACTED "[redacted]"

/* Room for any message http_result makes. */
#define HTTP_MESSAGE_MAX 512

/* Creates the transport; nothing of curl's is made until the first
** request. 'o' is copied (its strings too); NULL on out of memory. */
coax_http *http_new(const coax_allocator *alloc, const coax_engine_options *o);
void http_free(coax_http *h);

/* The host's secret 'name' (its coax_secret_fn, or by default environment
** variables whose names end in _API_KEY), or NULL. */
const char *http_secret(const coax_http *h, const char *name);

/* The host of an http:// or https:// URL, lowercase, into 'out' (at most
** 'cap' bytes with the NUL; an IPv6 address without its brackets); false
** when the URL has none or it does not fit. */
bool http_url_host(const char *url, char *out, size_t cap);

/* Whether 'host' (http_url_host) is this machine: localhost, 127.0.0.0/8, ::1. */
bool http_host_is_loopback(const char *host);

/* Whether the host's secret 'name' may travel to 'host' (http_url_host):
** its provider's own host (api.openai.com for OPENAI_API_KEY,
** api.anthropic.com, generativelanguage.googleapis.com), this machine
** (localhost, 127.0.0.0/8, ::1), or 'allowed' (a host the host itself named;
** NULL: none). A recipe names its URLs: without this, its agent could send
** the host's key to a server of its own. Off this machine it goes over TLS
** ('tls': the URL is https) unless the host named 'allowed' with an http
** URL ('allowed_plain'): a recipe that wrote http://api.openai.com/ sent the
** key in clear text across the network (and to any proxy on the way). */
bool http_secret_may_go(const char *name, const char *host, bool tls, const char *allowed, bool allowed_plain);

/* Whether a header name (printable ASCII, no colon, at most 256 bytes) or
** value (no CR, LF or NUL) may be sent as it is. */
bool http_header_name_ok(const char *s, size_t n);
bool http_header_value_ok(const char *s, size_t n);

/* Whether a header name is one that frames the message or rules its
** connection (Content-Length, Transfer-Encoding, Connection, ...): the
** transport's alone. A caller's "Content-Length: 0" over a body that is a
** second request made the server answer twice, and the second answer was
** read by the next request on that kept connection, another session's. */
bool http_header_frames(const char *s, size_t n);

/* The kept connections a request may go on, and be kept in for the next: a
** session's own. One pool for the engine let a late answer to one
** session's request (a server's to a second request in its body) be read
** by another session's next request on that connection. */
typedef struct http_pool http_pool;

/* A pool of its own (curl's connection cache in a share); NULL: out of
** memory. */
http_pool *http_pool_new(coax_http *h);

/* Closes its connections; every request that used it was cancelled first.
** NULL: no-op. */
void http_pool_free(http_pool *p);

/* One request. Its caller has checked it: an http:// or https:// URL and
** header values without line breaks (http_header_*_ok), a method of
** capital letters. Everything is copied. */
typedef struct http_options {
    const char *method;      /* "GET", "POST", ... */
    const char *url;         /* NUL-terminated */
    const char *body;        /* NULL: none */
    size_t body_len;
    const char *headers;     /* "Name: value" lines, each NUL-terminated, one after the other */
    size_t headers_len;
    const char *secrets;     /* the secret values the headers carry, each NUL-terminated */
    size_t secrets_len;
    long timeout_ms;         /* 0: the transport's */
    bool want_lines;         /* the body is handed out line by line as it comes */
    http_pool *pool;         /* its session's connections (NULL: the transport's) */
} http_options;

/* Adds the request to the multi: NULL, with it in '*out'; or what went
** wrong ("out of memory", curl refusing it). */
const char *http_start(coax_http *h, const http_options *o, http_req **out);

/* Moves every transfer as far as it goes without waiting. */
void http_perform(coax_http *h);

/* Whether any transfer is in flight. */
bool http_active(const coax_http *h);

/* Waits at most 'ms' for activity on curl's sockets or its timers, or on
** the 'n' extra descriptors 'fds' (the commands' pipes). */
void http_wait(coax_http *h, const struct pollfd *fds, unsigned n, int ms);

/* Whether the request has news for its owner: lines, or its end. */
bool http_ready(const http_req *r);

/* Whether the transfer is over (lines may still be there to take). */
bool http_ended(const http_req *r);

/* With want_lines: the body's lines not handed out yet, s[0..*len) with
** their line breaks: the complete ones, and once the transfer has ended
** well the last one without a line break. NULL when there are none. */
const char *http_take_lines(http_req *r, size_t *len);

/* The secret values the request carries (each NUL-terminated), which its
** owner redacts in what it hands on (http_secret_at). */
const coax_buf *http_secrets(const http_req *r);

/* A response, as http_result reads it: valid until the request is freed. */
typedef struct http_response {
    long status;
    const char *head, *body; /* the last response's header lines, its body (never NULL) */
    size_t head_len, body_len;
    double elapsed_ms;
} http_response;

/* Once ended: NULL with the response in '*resp'; or why there is none:
** the transfer failed (a message, '*kind' "timeout", "connect", "url",
** "tls" or "connection"), or the response passed a limit ('*kind' NULL:
** the size cap, memory, libcurl's bound on headers; sending again would
** meet it again). 'buf' (HTTP_MESSAGE_MAX bytes) may hold the message. */
const char *http_result(const http_req *r, http_response *resp, const char **kind, char *buf);

/* Removes the request from the multi and frees it (logged as cancelled
** when it had not ended). NULL: no-op. */
void http_cancel(http_req *r);

/* Redaction: the length of the secret value that s[0..n) starts with
** ('secrets': NUL-terminated values one after the other), or 0. A value
** under HTTP_SECRET_MIN bytes is never sent (redacting "k" would hide every
** k of a record), so never looked for. */
#define HTTP_SECRET_MIN 4
size_t http_secret_at(const coax_buf *secrets, const char *s, size_t n);

#endif
