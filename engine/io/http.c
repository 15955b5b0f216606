/*
** http.c: the engine's HTTP transport on libcurl's multi interface, and
** what its scripts see of it:
**
**   coax.http.request{method, url, headers, body, timeout_ms, on_line}
**     -> {status, headers, body, elapsed_ms} | nil, message, kind
**   coax.secret(name) -> an opaque header value, or nil
**
** request is a Lua wrapper (sandbox.lua) around start and wait below:
** start adds an easy handle to the engine's multi handle; wait yields the
** agent's coroutine until the request has news (lines of a streamed body,
** or its end). The engine's poll loop drives curl and resumes the session.
**
** Secrets: a script names a secret (coax.secret "OPENAI_API_KEY") and puts
** the object in a header value ("Bearer " .. key); its value is looked up
** only here, when the request is made, and every occurrence of it in the
** response is replaced by "[redacted]" before Lua sees it. So no value
** reaches the Lua state, and with it reports, history, logs or errors.
**
** Memory: requests, bodies and headers come from the engine's allocator;
** curl keeps its own (the easy handles, the header list it is given).
*/
#include "io/http.h"
#include "session/engine.h"

#include <curl/curl.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>

#define SECRET_MT "coax.secret"
#define REDACTED "[redacted]"
#define MAX_HEADERS 64

struct coax_http {
    const coax_allocator *alloc;
    CURLM *multi;
    bool global;            /* curl_global_init was called */
    size_t attached;        /* easy handles in the multi */
    long connect_ms, timeout_ms;
    size_t max_response;
    char *proxy, *ca_file;  /* owned copies, or NULL */
    coax_log_fn log;
    void *log_ud;
    coax_secret_fn secret;
    void *secret_ud;
    unsigned long serial;   /* request numbers, for the log */
};

struct http_req {
    coax_http *h;
    coax_session *s;
    CURL *easy;
    struct curl_slist *headers; /* curl's memory */
    coax_buf body;              /* the request body */
    coax_buf url;               /* method, NUL, the URL as logged */
    coax_buf secrets;           /* the secret values used, each NUL-terminated */
    coax_buf resp, head;        /* the response body and header lines */
    size_t received;            /* bytes of headers and body */
    size_t delivered, lines_end;/* lines handed to the script; complete ones */
    bool want_lines, attached, done, too_large, oom;
    CURLcode rc;
    long status;
    double t0, ms;
    unsigned long id;
    char errbuf[CURL_ERROR_SIZE];
};

static char *dup_str(const coax_allocator *a, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s);
    char *p = coax_alloc_raw(a, n + 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

static void free_str(const coax_allocator *a, char *s)
{
    if (s) coax_free_raw(a, s, strlen(s) + 1);
}

coax_http *http_new(const coax_allocator *alloc, const coax_engine_options *o)
{
    coax_http *h = coax_alloc_raw(alloc, sizeof *h);
    if (!h) return NULL;
    memset(h, 0, sizeof *h);
    h->alloc = alloc;
    h->connect_ms = o && o->http_connect_timeout_ms > 0 ? o->http_connect_timeout_ms
                                                         : COAX_DEFAULT_HTTP_CONNECT_TIMEOUT_MS;
    h->timeout_ms = o && o->http_timeout_ms > 0 ? o->http_timeout_ms : COAX_DEFAULT_HTTP_TIMEOUT_MS;
    h->max_response = o && o->http_max_response ? o->http_max_response : COAX_DEFAULT_HTTP_MAX_RESPONSE;
    if (o) {
        h->log = o->log;
        h->log_ud = o->log_ud;
        h->secret = o->secret;
        h->secret_ud = o->secret_ud;
        h->proxy = dup_str(alloc, o->proxy);
        h->ca_file = dup_str(alloc, o->ca_file);
        if ((o->proxy && !h->proxy) || (o->ca_file && !h->ca_file)) {
            http_free(h);
            return NULL;
        }
    }
    return h;
}

void http_free(coax_http *h)
{
    if (!h) return;
    if (h->multi) curl_multi_cleanup(h->multi);
    if (h->global) curl_global_cleanup();
    free_str(h->alloc, h->proxy);
    free_str(h->alloc, h->ca_file);
    coax_free_raw(h->alloc, h, sizeof *h);
}

/* ---- the log ------------------------------------------------------------- */

/* Appends 'url' with its user information and key-like query values
** (key, token, secret, sig, auth, password in the name) redacted. */
static void put_redacted_url(coax_buf *b, const char *url)
{
    const char *scheme = strstr(url, "://");
    const char *p = url;
    if (scheme) {
        const char *host = scheme + 3;
        size_t auth_len = strcspn(host, "/?#");
        const char *at = memchr(host, '@', auth_len);
        coax_buf_put(b, url, (size_t)(host - url));
        if (at) {
            coax_buf_puts(b, REDACTED "@");
            host = at + 1;
        }
        p = host;
    }
    const char *q = strchr(p, '?');
    if (!q) {
        coax_buf_puts(b, p);
        return;
    }
    coax_buf_put(b, p, (size_t)(q - p) + 1);
    static const char *const keyish[] = {"key", "token", "secret", "sig", "auth", "password"};
    for (const char *k = q + 1; *k;) {
        size_t n = strcspn(k, "&#");
        const char *eq = memchr(k, '=', n);
        bool hide = false;
        if (eq) {
            char name[64];
            size_t m = (size_t)(eq - k) < sizeof name - 1 ? (size_t)(eq - k) : sizeof name - 1;
            for (size_t i = 0; i < m; i++) name[i] = (char)((k[i] >= 'A' && k[i] <= 'Z') ? k[i] + 32 : k[i]);
            name[m] = '\0';
            for (size_t i = 0; i < sizeof keyish / sizeof *keyish; i++)
                if (strstr(name, keyish[i])) hide = true;
        }
        if (hide) {
            coax_buf_put(b, k, (size_t)(eq - k) + 1);
            coax_buf_puts(b, REDACTED);
        } else {
            coax_buf_put(b, k, n);
        }
        k += n;
        if (*k == '#') {
            coax_buf_puts(b, k);
            break;
        }
        if (*k == '&') coax_buf_putc(b, *k++);
    }
}

static void log_line(coax_http *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_line(coax_http *h, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    h->log(h->log_ud, line);
}

static const char *method_of(const http_req *r) { return r->url.data; }
static const char *url_of(const http_req *r) { return r->url.data + strlen(r->url.data) + 1; }

static const char *kind_of(CURLcode rc)
{
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        return "timeout";
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
        return "connect";
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
        return "url";
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
        return "tls";
    default:
        return "connection"; /* reset, nothing received, a partial body */
    }
}

static const char *error_text(const http_req *r)
{
    return r->errbuf[0] ? r->errbuf : curl_easy_strerror(r->rc);
}

/* Whether libcurl gave up on headers too large for it, before the size cap
** could count them: a header line past 100 KB is CURLE_OUT_OF_MEMORY in
** libcurl 7.x, all headers past 300 KB "Too large response headers" (since
** 8.6 both are CURLE_TOO_LARGE). Like the cap, a limit: sending again would
** get the same headers. */
static bool headers_too_large(const http_req *r)
{
#if LIBCURL_VERSION_NUM >= 0x080600
    if (r->rc == CURLE_TOO_LARGE) return true;
#endif
    return r->rc == CURLE_OUT_OF_MEMORY ||
           (r->rc == CURLE_RECV_ERROR && !strncmp(r->errbuf, "Too large response headers", 26));
}

/* ---- curl's callbacks -------------------------------------------------------- */

static bool over_cap(http_req *r, size_t len)
{
    if (r->received + len > r->h->max_response) {
        r->too_large = true;
        return true;
    }
    r->received += len;
    return false;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    http_req *r = ud;
    size_t len = size * n;
    if (over_cap(r, len)) return 0;
    size_t old = r->resp.len;
    coax_buf_put(&r->resp, p, len);
    if (r->resp.oom) {
        r->oom = true;
        return 0;
    }
    if (r->want_lines) {
        for (size_t i = len; i > 0; i--) {
            if (p[i - 1] == '\n') {
                r->lines_end = old + i;
                break;
            }
        }
    }
    return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    http_req *r = ud;
    size_t len = size * n;
    if (over_cap(r, len)) return 0;
    if (len >= 5 && !memcmp(p, "HTTP/", 5)) r->head.len = 0; /* a new response: 1xx, a proxy's CONNECT */
    coax_buf_put(&r->head, p, len);
    if (r->head.oom) {
        r->oom = true;
        return 0;
    }
    return len;
}

/* ---- requests ------------------------------------------------------------- */

static void req_free(http_req *r)
{
    coax_http *h = r->h;
    if (r->easy) {
        if (r->attached) {
            curl_multi_remove_handle(h->multi, r->easy);
            h->attached--;
        }
        curl_easy_cleanup(r->easy);
    }
    curl_slist_free_all(r->headers);
    if (r->secrets.data) memset(r->secrets.data, 0, r->secrets.cap);
    coax_buf *bufs[] = {&r->body, &r->url, &r->secrets, &r->resp, &r->head};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) coax_buf_free(bufs[i]);
    if (r->s && r->s->http == r) r->s->http = NULL;
    coax_free_raw(h->alloc, r, sizeof *r);
}

void http_cancel(http_req *r)
{
    if (!r) return;
    if (!r->done && r->h->log)
        log_line(r->h, "http #%lu < cancelled (%.1f ms)", r->id, coax_now_ms() - r->t0);
    req_free(r);
}

bool http_ready(const http_req *r)
{
    return r->done || (r->want_lines && r->lines_end > r->delivered);
}

bool http_active(const coax_http *h) { return h && h->attached > 0; }

void http_perform(coax_http *h)
{
    if (!h || !h->multi || !h->attached) return;
    int running;
    curl_multi_perform(h->multi, &running);
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(h->multi, &left))) {
        if (m->msg != CURLMSG_DONE) continue;
        http_req *r = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        if (!r) continue;
        r->rc = m->data.result;
        r->done = true;
        r->ms = coax_now_ms() - r->t0;
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &r->status);
        curl_multi_remove_handle(h->multi, r->easy);
        r->attached = false;
        h->attached--;
        if (!h->log) continue;
        if (r->too_large)
            log_line(h, "http #%lu < too large (%.1f ms): more than %zu bytes", r->id, r->ms, h->max_response);
        else if (r->rc != CURLE_OK)
            log_line(h, "http #%lu < error %s (%.1f ms): %s", r->id, kind_of(r->rc), r->ms, error_text(r));
        else
            log_line(h, "http #%lu < %ld (%.1f ms, %zu bytes)", r->id, r->status, r->ms, r->resp.len);
    }
}

void http_wait(coax_http *h, const struct pollfd *fds, unsigned n, int ms)
{
    if (!h || !h->multi) return;
    struct curl_waitfd extra[64];
    if (n > sizeof extra / sizeof *extra) n = sizeof extra / sizeof *extra;
    for (unsigned i = 0; i < n; i++) {
        extra[i].fd = fds[i].fd;
        extra[i].events = (short)((fds[i].events & POLLIN ? CURL_WAIT_POLLIN : 0) |
                                  (fds[i].events & POLLOUT ? CURL_WAIT_POLLOUT : 0));
        extra[i].revents = 0;
    }
    curl_multi_poll(h->multi, extra, n, ms < 0 ? 0 : ms, NULL);
}

/* ---- secrets ------------------------------------------------------------------ */

/* The default lookup: environment variables whose names end in _API_KEY. */
static const char *lookup(coax_http *h, const char *name)
{
    if (h->secret) return h->secret(h->secret_ud, name);
    size_t n = strlen(name);
    if (n <= 8 || strcmp(name + n - 8, "_API_KEY")) return NULL;
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static coax_engine *engine_of(lua_State *L) { return vm_of(L)->host; }

static bool valid_name(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* A secret object: user values 1 prefix, 2 name, 3 suffix. */
static void push_secret(lua_State *L, int prefix, int name, int suffix)
{
    lua_newuserdatauv(L, 0, 3);
    lua_pushvalue(L, prefix < 0 ? prefix - 1 : prefix);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, name < 0 ? name - 1 : name);
    lua_setiuservalue(L, -2, 2);
    lua_pushvalue(L, suffix < 0 ? suffix - 1 : suffix);
    lua_setiuservalue(L, -2, 3);
    luaL_setmetatable(L, SECRET_MT);
}

/** coax.secret(name) -> a secret to put in a header value, or nil when the
** host has no such secret (or does not let scripts use it). */
static int l_secret(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    luaL_argcheck(L, valid_name(name), 1, "not a secret's name");
    coax_engine *e = engine_of(L);
    if (!e || !e->http || !lookup(e->http, name)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushliteral(L, "");
    push_secret(L, -1, 1, -1);
    return 1;
}

/* "Bearer " .. secret, secret .. "x": the text around the secret grows. */
static int secret_concat(lua_State *L)
{
    bool left = luaL_testudata(L, 1, SECRET_MT) != NULL;
    int sec = left ? 1 : 2, other = left ? 2 : 1;
    if (luaL_testudata(L, other, SECRET_MT)) return luaL_error(L, "cannot join two secrets");
    if (!lua_isstring(L, other)) return luaL_error(L, "a secret joins strings only");
    lua_getiuservalue(L, sec, 1);
    lua_getiuservalue(L, sec, 2);
    lua_getiuservalue(L, sec, 3);
    int p = lua_gettop(L) - 2;
    if (left) {
        lua_pushvalue(L, p + 2);
        lua_pushvalue(L, other);
        lua_concat(L, 2);
        lua_replace(L, p + 2);
    } else {
        lua_pushvalue(L, other);
        lua_pushvalue(L, p);
        lua_concat(L, 2);
        lua_replace(L, p);
    }
    push_secret(L, p, p + 1, p + 2);
    return 1;
}

static int secret_tostring(lua_State *L)
{
    luaL_checkudata(L, 1, SECRET_MT);
    lua_getiuservalue(L, 1, 2);
    lua_pushfstring(L, "[secret %s]", lua_tostring(L, -1));
    return 1;
}

/* ---- coax.http.request: start ----------------------------------------------- */

static bool header_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > 256) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 32 || c >= 127 || c == ':') return false;
    }
    return true;
}

static bool header_value_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\r' || s[i] == '\n' || s[i] == '\0') return false;
    return true;
}

/* Adds "name: value" (the value at 'vi', a string or a secret) to the
** request's header list; raises on bad input. */
static void add_header(lua_State *L, http_req *r, int ni, int vi, coax_buf *line)
{
    ni = lua_absindex(L, ni);
    vi = lua_absindex(L, vi);
    size_t nlen;
    const char *name = lua_tolstring(L, ni, &nlen);
    if (!name || lua_type(L, ni) != LUA_TSTRING || !header_name_ok(name, nlen))
        luaL_error(L, "coax.http.request: bad header name");
    line->len = 0;
    coax_buf_put(line, name, nlen);
    coax_buf_puts(line, ": ");
    if (luaL_testudata(L, vi, SECRET_MT)) {
        lua_getiuservalue(L, vi, 1);
        lua_getiuservalue(L, vi, 2);
        lua_getiuservalue(L, vi, 3);
        const char *value = lookup(r->h, lua_tostring(L, -2));
        if (!value) luaL_error(L, "coax.http.request: the secret %s is not available", lua_tostring(L, -2));
        size_t plen, slen, vlen = strlen(value);
        const char *pre = lua_tolstring(L, -3, &plen), *suf = lua_tolstring(L, -1, &slen);
        if (!header_value_ok(pre, plen) || !header_value_ok(suf, slen) || !header_value_ok(value, vlen))
            luaL_error(L, "coax.http.request: a header value holds a line break");
        coax_buf_put(line, pre, plen);
        coax_buf_put(line, value, vlen);
        coax_buf_put(line, suf, slen);
        coax_buf_put(&r->secrets, value, vlen + 1);
        lua_pop(L, 3);
    } else {
        size_t vlen;
        const char *value = lua_tolstring(L, vi, &vlen);
        if (!value || !header_value_ok(value, vlen))
            luaL_error(L, "coax.http.request: header '%s' needs a string value without line breaks", name);
        coax_buf_put(line, value, vlen);
    }
    coax_buf_putc(line, '\0');
    if (line->oom) luaL_error(L, "out of memory");
    struct curl_slist *next = curl_slist_append(r->headers, line->data);
    if (!next) luaL_error(L, "out of memory");
    r->headers = next;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The headers table at index 1's "headers": a map (sent sorted by name) or
** a list of {name, value} pairs (sent in order). */
static void read_headers(lua_State *L, http_req *r)
{
    if (lua_getfield(L, 1, "headers") == LUA_TNIL) {
        lua_pop(L, 1);
    } else {
        luaL_argcheck(L, lua_istable(L, -1), 1, "headers must be a table");
        int t = lua_gettop(L);
        coax_buf line;
        coax_buf_init(&line, r->h->alloc);
        if (lua_rawlen(L, t) > 0) {
            for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, t) && i <= MAX_HEADERS; i++) {
                lua_rawgeti(L, t, i);
                luaL_argcheck(L, lua_istable(L, -1), 1, "a header list holds {name, value} pairs");
                lua_rawgeti(L, -1, 1);
                lua_rawgeti(L, -2, 2);
                add_header(L, r, -2, -1, &line);
                lua_pop(L, 3);
            }
        } else {
            const char *names[MAX_HEADERS];
            size_t n = 0;
            lua_pushnil(L);
            while (lua_next(L, t)) {
                lua_pop(L, 1);
                if (lua_type(L, -1) != LUA_TSTRING || n == MAX_HEADERS)
                    luaL_error(L, "coax.http.request: header names must be strings (at most %d)", MAX_HEADERS);
                names[n++] = lua_tostring(L, -1);
            }
            qsort(names, n, sizeof *names, cmp_names);
            for (size_t i = 0; i < n; i++) {
                lua_pushstring(L, names[i]);
                lua_pushvalue(L, -1);
                lua_rawget(L, t);
                add_header(L, r, -2, -1, &line);
                lua_pop(L, 2);
            }
        }
        coax_buf_free(&line);
        lua_pop(L, 1);
    }
    /* No "Expect: 100-continue" round trip for large bodies. */
    struct curl_slist *next = curl_slist_append(r->headers, "Expect:");
    if (!next) luaL_error(L, "out of memory");
    r->headers = next;
}

static const char *opt_field(lua_State *L, const char *k, size_t *len)
{
    lua_getfield(L, 1, k);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "coax.http.request: '%s' must be a string", k);
    const char *s = lua_tolstring(L, -1, len);
    lua_pop(L, 1); /* the options table keeps it */
    return s;
}

/* The request being built lives in a userdata until it is attached, so a
** raised error frees it (its __gc). */
static int pending_gc(lua_State *L)
{
    http_req **box = lua_touserdata(L, 1);
    if (*box) req_free(*box);
    *box = NULL;
    return 0;
}

#define SETOPT(easy, opt, val)                                                                                     \
    do {                                                                                                           \
        if (curl_easy_setopt(easy, opt, val) != CURLE_OK) bad = true;                                              \
    } while (0)

static int l_start(lua_State *L)
{
    coax_vm *vm = vm_of(L);
    coax_engine *e = vm->host;
    coax_session *s = vm->current;
    if (!e || !s || !lua_isyieldable(L)) return luaL_error(L, "coax.http.request: only an agent's call can make requests");
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t url_len, body_len = 0, method_len = 0;
    const char *url = opt_field(L, "url", &url_len);
    const char *body = opt_field(L, "body", &body_len);
    const char *method = opt_field(L, "method", &method_len);
    if (!url) return luaL_error(L, "coax.http.request: 'url' is required");
    if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
        return luaL_error(L, "coax.http.request: only http:// and https:// URLs");
    if (strlen(url) != url_len || !header_value_ok(url, url_len))
        return luaL_error(L, "coax.http.request: bad URL");
    if (!method) method = body ? "POST" : "GET";
    for (const char *p = method; *p; p++)
        if (*p < 'A' || *p > 'Z' || p - method > 16) return luaL_error(L, "coax.http.request: bad method");
    if (!*method) return luaL_error(L, "coax.http.request: bad method");
    lua_Integer timeout = e->http->timeout_ms;
    if (lua_getfield(L, 1, "timeout_ms") != LUA_TNIL) {
        timeout = lua_tointeger(L, -1);
        if (!lua_isinteger(L, -1) || timeout <= 0) return luaL_error(L, "coax.http.request: timeout_ms must be a positive integer");
    }
    lua_pop(L, 1);
    lua_getfield(L, 1, "on_line");
    bool want_lines = !lua_isnil(L, -1);
    lua_pop(L, 1);

    http_cancel(s->http); /* an earlier request the script gave up on */
    coax_http *h = e->http;
    http_req **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, pending_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    http_req *r = coax_alloc_raw(h->alloc, sizeof *r);
    if (!r) return luaL_error(L, "out of memory");
    memset(r, 0, sizeof *r);
    *box = r;
    r->h = h;
    r->want_lines = want_lines;
    coax_buf *bufs[] = {&r->body, &r->url, &r->secrets, &r->resp, &r->head};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) coax_buf_init(bufs[i], h->alloc);
    coax_buf_puts(&r->url, method);
    coax_buf_putc(&r->url, '\0');
    coax_buf_put(&r->url, url, url_len);
    coax_buf_putc(&r->url, '\0');
    if (body) coax_buf_put(&r->body, body, body_len);
    coax_buf_putc(&r->body, '\0');
    if (r->url.oom || r->body.oom) return luaL_error(L, "out of memory");
    read_headers(L, r);
    if (r->secrets.oom) return luaL_error(L, "out of memory");
    for (const char *v = r->secrets.data; v && v < r->secrets.data + r->secrets.len; v += strlen(v) + 1) {
        bool known = false;
        for (const char *k = s->secrets.data; k && k < s->secrets.data + s->secrets.len; k += strlen(k) + 1)
            known |= !strcmp(k, v);
        if (!known) coax_buf_put(&s->secrets, v, strlen(v) + 1);
    }
    if (s->secrets.oom) return luaL_error(L, "out of memory");

    if (!h->global) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return luaL_error(L, "coax.http: curl failed to start");
        h->global = true;
    }
    if (!h->multi && !(h->multi = curl_multi_init())) return luaL_error(L, "out of memory");
    CURL *c = r->easy = curl_easy_init();
    if (!c) return luaL_error(L, "out of memory");
    bool bad = false;
    SETOPT(c, CURLOPT_URL, url_of(r));
    SETOPT(c, CURLOPT_PROTOCOLS_STR, "http,https");
    SETOPT(c, CURLOPT_FOLLOWLOCATION, 0L);
    SETOPT(c, CURLOPT_NOSIGNAL, 1L);
    SETOPT(c, CURLOPT_SSL_VERIFYPEER, 1L);
    SETOPT(c, CURLOPT_SSL_VERIFYHOST, 2L);
    SETOPT(c, CURLOPT_CONNECTTIMEOUT_MS, h->connect_ms);
    SETOPT(c, CURLOPT_TIMEOUT_MS, (long)timeout);
    SETOPT(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)h->max_response);
    SETOPT(c, CURLOPT_USERAGENT, "coax/" COAX_VERSION);
    SETOPT(c, CURLOPT_HTTPHEADER, r->headers);
    SETOPT(c, CURLOPT_WRITEFUNCTION, on_body);
    SETOPT(c, CURLOPT_WRITEDATA, r);
    SETOPT(c, CURLOPT_HEADERFUNCTION, on_header);
    SETOPT(c, CURLOPT_HEADERDATA, r);
    SETOPT(c, CURLOPT_ERRORBUFFER, r->errbuf);
    SETOPT(c, CURLOPT_PRIVATE, (char *)r);
    if (h->proxy) SETOPT(c, CURLOPT_PROXY, h->proxy);
    if (h->ca_file) SETOPT(c, CURLOPT_CAINFO, h->ca_file);
    if (!strcmp(method, "GET") && !body) {
        SETOPT(c, CURLOPT_HTTPGET, 1L);
    } else if (!strcmp(method, "HEAD")) {
        SETOPT(c, CURLOPT_NOBODY, 1L);
    } else {
        if (strcmp(method, "POST")) SETOPT(c, CURLOPT_CUSTOMREQUEST, method_of(r));
        SETOPT(c, CURLOPT_POSTFIELDS, r->body.data);
        SETOPT(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    }
    if (bad) return luaL_error(L, "coax.http.request: curl refused an option");
    if (curl_multi_add_handle(h->multi, c) != CURLM_OK) return luaL_error(L, "coax.http.request: curl refused the request");
    r->attached = true;
    h->attached++;
    r->id = ++h->serial;
    r->t0 = coax_now_ms();
    r->s = s;
    s->http = r;
    *box = NULL; /* the session owns it now */
    if (h->log) {
        coax_buf b;
        coax_buf_init(&b, h->alloc);
        put_redacted_url(&b, url_of(r));
        coax_buf_putc(&b, '\0');
        log_line(h, "http #%lu > %s %s (%zu bytes)", r->id, method, b.oom ? "(url)" : b.data, body_len);
        coax_buf_free(&b);
    }
    return 0;
}

/* ---- coax.http.request: wait ------------------------------------------------ */

void http_push_redacted(lua_State *L, const coax_buf *secrets, const char *s, size_t n)
{
    if (!secrets->len) {
        lua_pushlstring(L, s, n);
        return;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t i = 0;
    while (i < n) {
        size_t hit = 0;
        for (const char *v = secrets->data; v < secrets->data + secrets->len; v += strlen(v) + 1) {
            size_t vl = strlen(v);
            if (vl >= 4 && vl <= n - i && !memcmp(s + i, v, vl)) {
                hit = vl;
                break;
            }
        }
        if (hit) {
            luaL_addstring(&b, REDACTED);
            i += hit;
        } else {
            luaL_addchar(&b, s[i++]);
        }
    }
    luaL_pushresult(&b);
}

/* Pushes s[0..n) with every secret value used by the request replaced. */
static void push_clean(lua_State *L, const http_req *r, const char *s, size_t n)
{
    http_push_redacted(L, &r->secrets, s, n);
}

static void push_lines(lua_State *L, http_req *r, size_t end)
{
    lua_createtable(L, 4, 0);
    lua_Integer k = 0;
    const char *d = r->resp.data;
    for (size_t i = r->delivered; i < end;) {
        const char *nl = memchr(d + i, '\n', end - i);
        size_t stop = nl ? (size_t)(nl - d) : end;
        size_t len = stop - i;
        if (len && d[i + len - 1] == '\r') len--;
        push_clean(L, r, d + i, len);
        lua_rawseti(L, -2, ++k);
        i = stop + 1;
    }
    r->delivered = end;
}

static void push_headers(lua_State *L, const http_req *r)
{
    lua_newtable(L);
    const char *d = r->head.data;
    for (size_t i = 0; i < r->head.len;) {
        const char *nl = memchr(d + i, '\n', r->head.len - i);
        size_t stop = nl ? (size_t)(nl - d) : r->head.len;
        const char *colon = memchr(d + i, ':', stop - i);
        if (colon && (size_t)(colon - d) > i) {
            luaL_Buffer name;
            luaL_buffinit(L, &name);
            for (const char *p = d + i; p < colon; p++) luaL_addchar(&name, (char)((*p >= 'A' && *p <= 'Z') ? *p + 32 : *p));
            luaL_pushresult(&name);
            const char *v = colon + 1, *ve = d + stop;
            while (v < ve && (*v == ' ' || *v == '\t')) v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t')) ve--;
            lua_pushvalue(L, -1);
            if (lua_rawget(L, -3) == LUA_TSTRING) { /* repeated: joined with ", " */
                lua_pushliteral(L, ", ");
                push_clean(L, r, v, (size_t)(ve - v));
                lua_concat(L, 3);
            } else {
                lua_pop(L, 1);
                push_clean(L, r, v, (size_t)(ve - v));
            }
            lua_rawset(L, -3);
        }
        i = stop + 1;
    }
}

/* The news of the session's request: ("lines", {...}), or ("done", response)
** or ("done", nil, message, kind); -1 when there is none yet. The end of a
** request frees it; a response past the size cap raises a limit error. */
static int push_news(lua_State *L, coax_session *s)
{
    http_req *r = s->http;
    if (r->want_lines && r->lines_end > r->delivered) {
        lua_pushliteral(L, "lines");
        push_lines(L, r, r->lines_end);
        return 2;
    }
    if (!r->done) return -1;
    bool failed = r->rc != CURLE_OK || r->too_large || r->oom;
    if (r->want_lines && !failed && r->delivered < r->resp.len) { /* the last line, unterminated */
        lua_pushliteral(L, "lines");
        push_lines(L, r, r->resp.len);
        return 2;
    }
    if (r->too_large || r->oom || r->rc == CURLE_FILESIZE_EXCEEDED || headers_too_large(r)) {
        char msg[160 + CURL_ERROR_SIZE];
        if (r->oom) snprintf(msg, sizeof msg, "coax.http: out of memory reading the response");
        else if (!r->too_large && r->rc != CURLE_FILESIZE_EXCEEDED)
            snprintf(msg, sizeof msg, "coax.http: the response headers are larger than libcurl accepts (%s)",
                     error_text(r));
        else snprintf(msg, sizeof msg, "coax.http: the response is larger than the limit of %zu bytes", r->h->max_response);
        req_free(r);
        vm_of(L)->limit = LIMIT_RESPONSE;
        lua_pushstring(L, msg); /* no position: the message is the same from any agent */
        return lua_error(L);
    }
    lua_pushliteral(L, "done");
    if (r->rc != CURLE_OK) {
        lua_pushnil(L);
        lua_pushstring(L, error_text(r));
        lua_pushstring(L, kind_of(r->rc));
        req_free(r);
        return 4;
    }
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, r->status);
    lua_setfield(L, -2, "status");
    push_headers(L, r);
    lua_setfield(L, -2, "headers");
    push_clean(L, r, r->resp.data ? r->resp.data : "", r->resp.len);
    lua_setfield(L, -2, "body");
    lua_pushnumber(L, r->ms);
    lua_setfield(L, -2, "elapsed_ms");
    req_free(r);
    return 2;
}

static int wait_k(lua_State *L, int status, lua_KContext ctx);

static int l_wait(lua_State *L)
{
    coax_vm *vm = vm_of(L);
    coax_session *s = vm->current;
    if (!s || !s->http) return luaL_error(L, "coax.http: no request in flight");
    lua_settop(L, 0);
    int n = push_news(L, s);
    if (n >= 0) return n;
    return lua_yieldk(L, 0, 0, wait_k);
}

static int wait_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    return l_wait(L);
}

void http_push_lua(lua_State *L)
{
    if (luaL_newmetatable(L, SECRET_MT)) {
        lua_pushcfunction(L, secret_concat);
        lua_setfield(L, -2, "__concat");
        lua_pushcfunction(L, secret_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushliteral(L, "secret");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"start", l_start}, {"wait", l_wait}, {"secret", l_secret}, {NULL, NULL}};
    luaL_newlib(L, fns);
}
