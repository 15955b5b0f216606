/*
** http.c: the engine's HTTP transport on libcurl's multi interface (see
** http.h). The session layer turns it into coax.http.request and
** coax.secret for scripts (session/lend_http.c).
**
** Secrets: a header may carry a host's secret (http_secret); the request
** keeps the values it carries, so that its owner can replace every
** occurrence of them in the response by "[redacted]" before a script sees
** it (http_secret_at), and the log names URLs with their credentials
** redacted.
**
** Memory: requests, bodies and headers come from the engine's allocator;
** curl keeps its own (the easy handles, the header list it is given).
*/
#include "io/http.h"
#include "base/clock.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

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
            coax_buf_puts(b, HTTP_REDACTED "@");
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
            coax_buf_puts(b, HTTP_REDACTED);
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

bool http_url_host(const char *url, char *out, size_t cap)
{
    const char *p = strstr(url, "://");
    if (!p) return false;
    p += 3;
    const char *end = p + strcspn(p, "/?#");
    const char *at = memchr(p, '@', (size_t)(end - p)); /* user information */
    if (at) p = at + 1;
    const char *stop;
    if (*p == '[') { /* [::1]:8080 */
        stop = memchr(p, ']', (size_t)(end - p));
        if (!stop) return false;
        p++;
    } else {
        stop = memchr(p, ':', (size_t)(end - p));
        if (!stop) stop = end;
    }
    size_t n = (size_t)(stop - p);
    if (!n || n >= cap) return false;
    for (size_t i = 0; i < n; i++) out[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]);
    out[n] = '\0';
    return true;
}

bool http_host_is_loopback(const char *host)
{
    return !strcmp(host, "localhost") || !strcmp(host, "::1") ||
           (!strncmp(host, "127.", 4) && !host[strspn(host, "0123456789.")]); /* 127.evil.com is not */
}

bool http_secret_may_go(const char *name, const char *host, bool tls, const char *allowed, bool allowed_plain)
{
    static const struct {
        const char *name, *host;
    } providers[] = {
        {"OPENAI_API_KEY", "api.openai.com"},
        {"ANTHROPIC_API_KEY", "api.anthropic.com"},
        {"GEMINI_API_KEY", "generativelanguage.googleapis.com"},
    };
    if (http_host_is_loopback(host)) return true;
    if (allowed && !strcmp(host, allowed)) return tls || allowed_plain;
    if (!tls) return false;
    for (size_t i = 0; i < sizeof providers / sizeof *providers; i++)
        if (!strcmp(name, providers[i].name) && !strcmp(host, providers[i].host)) return true;
    return false;
}

const char *http_secret(const coax_http *h, const char *name)
{
    if (h->secret) return h->secret(h->secret_ud, name);
    size_t n = strlen(name);
    if (n <= 8 || strcmp(name + n - 8, "_API_KEY")) return NULL;
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

size_t http_secret_at(const coax_buf *secrets, const char *s, size_t n)
{
    for (const char *v = secrets->data; v && v < secrets->data + secrets->len; v += strlen(v) + 1) {
        size_t vl = strlen(v);
        if (vl >= HTTP_SECRET_MIN && vl <= n && !memcmp(s, v, vl)) return vl;
    }
    return 0;
}

/* ---- starting a request --------------------------------------------------------- */

bool http_header_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > 256) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 32 || c >= 127 || c == ':') return false;
    }
    return true;
}

bool http_header_frames(const char *s, size_t n)
{
    static const char *const framing[] = {"content-length", "transfer-encoding", "connection", "keep-alive",
                                          "proxy-connection", "upgrade", "te", "trailer"};
    for (size_t i = 0; i < sizeof framing / sizeof *framing; i++)
        if (strlen(framing[i]) == n && !strncasecmp(framing[i], s, n)) return true;
    return false;
}

bool http_header_value_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\r' || s[i] == '\n' || s[i] == '\0') return false;
    return true;
}

#define SETOPT(easy, opt, val)                                                                                     \
    do {                                                                                                           \
        if (curl_easy_setopt(easy, opt, val) != CURLE_OK) bad = true;                                              \
    } while (0)

/* Hands the request's options to its easy handle: false when curl refuses one. */
static bool set_options(http_req *r, const http_options *o)
{
    coax_http *h = r->h;
    CURL *c = r->easy;
    bool bad = false;
    SETOPT(c, CURLOPT_URL, url_of(r));
    SETOPT(c, CURLOPT_PROTOCOLS_STR, "http,https");
    if (o->pool) SETOPT(c, CURLOPT_SHARE, (CURLSH *)o->pool);
    SETOPT(c, CURLOPT_FOLLOWLOCATION, 0L);
    SETOPT(c, CURLOPT_NOSIGNAL, 1L);
    SETOPT(c, CURLOPT_SSL_VERIFYPEER, 1L);
    SETOPT(c, CURLOPT_SSL_VERIFYHOST, 2L);
    SETOPT(c, CURLOPT_CONNECTTIMEOUT_MS, h->connect_ms);
    SETOPT(c, CURLOPT_TIMEOUT_MS, o->timeout_ms > 0 ? o->timeout_ms : h->timeout_ms);
    SETOPT(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)h->max_response);
    SETOPT(c, CURLOPT_USERAGENT, "coax/" COAX_VERSION);
    SETOPT(c, CURLOPT_HTTPHEADER, r->headers);
    SETOPT(c, CURLOPT_WRITEFUNCTION, on_body);
    SETOPT(c, CURLOPT_WRITEDATA, r);
    SETOPT(c, CURLOPT_HEADERFUNCTION, on_header);
    SETOPT(c, CURLOPT_HEADERDATA, r);
    SETOPT(c, CURLOPT_ERRORBUFFER, r->errbuf);
    SETOPT(c, CURLOPT_PRIVATE, (char *)r);
    /* This machine is reached directly, whatever proxy the host or the
    ** environment names (curl sends localhost to it too): a secret may go
    ** to this machine in clear text, and a proxy elsewhere is not this
    ** machine (nor is its own localhost ours). */
    char host[256];
    if (http_url_host(url_of(r), host, sizeof host) && http_host_is_loopback(host)) SETOPT(c, CURLOPT_PROXY, "");
    else if (h->proxy) SETOPT(c, CURLOPT_PROXY, h->proxy);
    if (h->ca_file) SETOPT(c, CURLOPT_CAINFO, h->ca_file);
    if (!strcmp(o->method, "GET") && !o->body) {
        SETOPT(c, CURLOPT_HTTPGET, 1L);
    } else if (!strcmp(o->method, "HEAD")) {
        SETOPT(c, CURLOPT_NOBODY, 1L);
    } else {
        if (strcmp(o->method, "POST")) SETOPT(c, CURLOPT_CUSTOMREQUEST, method_of(r));
        SETOPT(c, CURLOPT_POSTFIELDS, r->body.data);
        SETOPT(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)o->body_len);
    }
    return !bad;
}

static bool global_init(coax_http *h)
{
    if (!h->global && curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK) h->global = true;
    return h->global;
}

http_pool *http_pool_new(coax_http *h)
{
    CURLSH *share = global_init(h) ? curl_share_init() : NULL;
    if (share && curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT) != CURLSHE_OK) {
        curl_share_cleanup(share);
        share = NULL;
    }
    return (http_pool *)share;
}

void http_pool_free(http_pool *p)
{
    if (p) curl_share_cleanup((CURLSH *)p);
}

/* The connections a session's pool keeps idle. libcurl's default keeps 4 for each request in
** flight in the multi, in every pool: a session asking 40 servers in turn beside 12 others' requests
** kept all 40 open while it lived (attack round 17). A session makes one request at a time; a few
** servers' connections are all it reuses. */
#define HTTP_POOL_KEEP 4

static CURLM *multi_new(void)
{
    CURLM *m = curl_multi_init();
    if (m && curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, (long)HTTP_POOL_KEEP) != CURLM_OK) {
        curl_multi_cleanup(m);
        m = NULL;
    }
    return m;
}

/* Builds the request and attaches it; what went wrong, or NULL. */
static const char *start(coax_http *h, const http_options *o, http_req *r)
{
    coax_buf_puts(&r->url, o->method);
    coax_buf_putc(&r->url, '\0');
    coax_buf_puts(&r->url, o->url);
    coax_buf_putc(&r->url, '\0');
    if (o->body) coax_buf_put(&r->body, o->body, o->body_len);
    coax_buf_putc(&r->body, '\0');
    coax_buf_put(&r->secrets, o->secrets, o->secrets_len);
    if (r->url.oom || r->body.oom || r->secrets.oom) return "out of memory";
    for (const char *l = o->headers; l && l < o->headers + o->headers_len; l += strlen(l) + 1) {
        struct curl_slist *next = curl_slist_append(r->headers, l);
        if (!next) return "out of memory";
        r->headers = next;
    }
    /* No "Expect: 100-continue" round trip for large bodies. */
    struct curl_slist *next = curl_slist_append(r->headers, "Expect:");
    if (!next) return "out of memory";
    r->headers = next;

    if (!global_init(h)) return "coax.http: curl failed to start";
    if (!h->multi && !(h->multi = multi_new())) return "out of memory";
    if (!(r->easy = curl_easy_init())) return "out of memory";
    if (!set_options(r, o)) return "coax.http.request: curl refused an option";
    if (curl_multi_add_handle(h->multi, r->easy) != CURLM_OK) return "coax.http.request: curl refused the request";
    r->attached = true;
    h->attached++;
    return NULL;
}

const char *http_start(coax_http *h, const http_options *o, http_req **out)
{
    *out = NULL;
    http_req *r = coax_alloc_raw(h->alloc, sizeof *r);
    if (!r) return "out of memory";
    memset(r, 0, sizeof *r);
    r->h = h;
    r->want_lines = o->want_lines;
    coax_buf *bufs[] = {&r->body, &r->url, &r->secrets, &r->resp, &r->head};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) coax_buf_init(bufs[i], h->alloc);
    const char *why = start(h, o, r);
    if (why) {
        req_free(r);
        return why;
    }
    r->id = ++h->serial;
    r->t0 = coax_now_ms();
    if (h->log) {
        coax_buf b;
        coax_buf_init(&b, h->alloc);
        put_redacted_url(&b, url_of(r));
        coax_buf_putc(&b, '\0');
        log_line(h, "http #%lu > %s %s (%zu bytes)", r->id, o->method, b.oom ? "(url)" : b.data, o->body_len);
        coax_buf_free(&b);
    }
    *out = r;
    return NULL;
}

/* ---- what a request brings -------------------------------------------------------- */

bool http_ended(const http_req *r) { return r->done; }

const coax_buf *http_secrets(const http_req *r) { return &r->secrets; }

static bool failed(const http_req *r) { return r->rc != CURLE_OK || r->too_large || r->oom; }

const char *http_take_lines(http_req *r, size_t *len)
{
    size_t end = 0;
    if (r->want_lines && r->lines_end > r->delivered) end = r->lines_end;
    else if (r->want_lines && r->done && !failed(r) && r->delivered < r->resp.len) end = r->resp.len;
    if (!end) return NULL;
    const char *s = r->resp.data + r->delivered;
    *len = end - r->delivered;
    r->delivered = end;
    return s;
}

const char *http_result(const http_req *r, http_response *resp, const char **kind, char *buf)
{
    *kind = NULL;
    if (r->too_large || r->oom || r->rc == CURLE_FILESIZE_EXCEEDED || headers_too_large(r)) {
        if (r->oom) snprintf(buf, HTTP_MESSAGE_MAX, "coax.http: out of memory reading the response");
        else if (!r->too_large && r->rc != CURLE_FILESIZE_EXCEEDED)
            snprintf(buf, HTTP_MESSAGE_MAX, "coax.http: the response headers are larger than libcurl accepts (%s)",
                     error_text(r));
        else snprintf(buf, HTTP_MESSAGE_MAX, "coax.http: the response is larger than the limit of %zu bytes", r->h->max_response);
        return buf;
    }
    if (r->rc != CURLE_OK) {
        *kind = kind_of(r->rc);
        return error_text(r);
    }
    resp->status = r->status;
    resp->head = r->head.data ? r->head.data : "";
    resp->head_len = r->head.len;
    resp->body = r->resp.data ? r->resp.data : "";
    resp->body_len = r->resp.len;
    resp->elapsed_ms = r->ms;
    return NULL;
}
