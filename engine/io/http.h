/*
** http.h: the engine's HTTP transport (http.c) on libcurl's multi
** interface, and coax.http.request / coax.secret for its scripts.
**
** One coax_http per engine, one request at most per session. A script's
** coax.http.request adds an easy handle to the multi and yields its
** coroutine; the engine's poll drives curl (http_perform, never blocking)
** and waits on curl's sockets (http_wait, bounded by the poll's timeout);
** the session is resumed when its request has news: lines of a streamed
** body (when the script gave on_line), or the end.
*/
#ifndef COAX_HTTP_H
#define COAX_HTTP_H

#include "script/vm.h"

#include <poll.h>

typedef struct coax_http coax_http;
typedef struct http_req http_req;

/* Creates the transport; nothing of curl's is made until the first
** request. 'o' is copied (its strings too); NULL on out of memory. */
coax_http *http_new(const coax_allocator *alloc, const coax_engine_options *o);
void http_free(coax_http *h);

/* Moves every transfer as far as it goes without waiting. */
void http_perform(coax_http *h);

/* Whether any transfer is in flight. */
bool http_active(const coax_http *h);

/* Waits at most 'ms' for activity on curl's sockets or its timers, or on
** the 'n' extra descriptors 'fds' (the commands' pipes). */
void http_wait(coax_http *h, const struct pollfd *fds, unsigned n, int ms);

/* Whether the script waiting on 'r' can be resumed: lines or the end. */
bool http_ready(const http_req *r);

/* Removes the request from the multi and frees it. NULL: no-op. */
void http_cancel(http_req *r);

/* Pushes s[0..n) with every value in 'secrets' (NUL-terminated values one
** after the other; those under 4 bytes are ignored) replaced by
** "[redacted]". */
void http_push_redacted(lua_State *L, const coax_buf *secrets, const char *s, size_t n);

/* The functions sandbox.lua wraps: a table {start, wait, secret}, pushed. */
void http_push_lua(lua_State *L);

#endif
