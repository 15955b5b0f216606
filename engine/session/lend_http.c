/*
** lend_http.c: what scripts see of the engine's HTTP transport (io/http.c):
**
**   coax.http.request{method, url, headers, body, timeout_ms, on_line}
**     -> {status, headers, body, elapsed_ms} | nil, message, kind
**   coax.secret(name) -> an opaque header value, or nil
**
** request is a Lua wrapper (sandbox.lua) around coax.http_start and
** coax.http_wait below: start checks the options and hands the request to
** the transport; wait yields the agent's coroutine until the request has
** news (lines of a streamed body, or its end). The engine's poll loop
** drives curl and resumes the session.
**
** Secrets: a script names a secret (coax.secret "OPENAI_API_KEY") and puts
** the object in a header value ("Bearer " .. key); its value is looked up
** only here, when the request is made, and every occurrence of it in the
** response is replaced by "[redacted]" before Lua sees it. So no value
** reaches the Lua state, and with it reports, history, logs or errors.
*/
#include "session/lend.h"
#include "script/lib.h"

#include <stdlib.h>

#define SECRET_MT "coax.secret"
#define MAX_HEADERS 64

void lend_push_redacted(lua_State *L, const coax_buf *secrets, const char *s, size_t n)
{
    if (!secrets->len) {
        lua_pushlstring(L, s, n);
        return;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t i = 0;
    while (i < n) {
        size_t hit = http_secret_at(secrets, s + i, n - i);
        if (hit) {
            luaL_addstring(&b, HTTP_REDACTED);
            i += hit;
        } else {
            luaL_addchar(&b, s[i++]);
        }
    }
    luaL_pushresult(&b);
}

/* ---- coax.secret ---------------------------------------------------------------- */

static bool valid_name(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

static int secret_concat(lua_State *L);
static int secret_tostring(lua_State *L);

/* Pushes the secrets' metatable, made on first use: whole before it is
** registered, so a memory error on the way leaves none rather than one
** without its methods. */
static void push_secret_metatable(lua_State *L)
{
    if (luaL_getmetatable(L, SECRET_MT) == LUA_TTABLE) return;
    lua_pop(L, 1);
    lua_createtable(L, 0, 4);
    lua_pushliteral(L, SECRET_MT);
    lua_setfield(L, -2, "__name");
    lua_pushcfunction(L, secret_concat);
    lua_setfield(L, -2, "__concat");
    lua_pushcfunction(L, secret_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "secret");
    lua_setfield(L, -2, "__metatable");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, SECRET_MT);
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
    push_secret_metatable(L);
    lua_setmetatable(L, -2);
}

/** coax.secret(name) -> a secret to put in a header value, or nil when the
** host has no such secret (or does not let scripts use it). */
int lend_secret(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    luaL_argcheck(L, valid_name(name), 1, "not a secret's name");
    coax_engine *e = lend_engine(L);
    if (!e || !e->http || !http_secret(e->http, name)) {
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

/* ---- coax.http_start -------------------------------------------------------------- */

/* The header lines being read from the options, and the secret values they
** carry: C memory, outside the Lua state, owned by a box (lcoax_own) until
** the request is handed on, so a raised error frees them. */
#define PENDING_MT "coax.http.pending"

typedef struct pending {
    coax_buf headers; /* "Name: value" lines, each NUL-terminated */
    coax_buf secrets; /* each NUL-terminated */
    const coax_allocator *alloc; /* the struct's own */
} pending;

static void release_pending(void *p_)
{
    pending *p = p_;
    coax_buf *bufs[] = {&p->headers, &p->secrets};
    for (size_t i = 0; i < 2; i++) {
        if (bufs[i]->data) memset(bufs[i]->data, 0, bufs[i]->cap);
        coax_buf_free(bufs[i]);
    }
    coax_free_raw(p->alloc, p, sizeof *p);
}

/* Where the request goes: its host, and the one the session's host named. */
typedef struct destination {
    char host[256];
    bool tls; /* https */
    const char *allowed;
    bool allowed_plain;
} destination;

/* Adds "name: value" (the value at 'vi', a string or a secret) to the
** request's header lines; raises on bad input, and for a secret that may
** not go to the request's host. */
static void add_header(lua_State *L, coax_http *h, pending *pd, int ni, int vi, const destination *to)
{
    ni = lua_absindex(L, ni);
    vi = lua_absindex(L, vi);
    size_t nlen;
    const char *name = lua_tolstring(L, ni, &nlen);
    if (!name || lua_type(L, ni) != LUA_TSTRING || !http_header_name_ok(name, nlen))
        luaL_error(L, "coax.http.request: bad header name");
    if (http_header_frames(name, nlen))
        luaL_error(L, "coax.http.request: header '%s' frames the request or its connection: the transport sets it",
                   name);
    coax_buf *line = &pd->headers;
    coax_buf_put(line, name, nlen);
    coax_buf_puts(line, ": ");
    if (luaL_testudata(L, vi, SECRET_MT)) {
        lua_getiuservalue(L, vi, 1);
        lua_getiuservalue(L, vi, 2);
        lua_getiuservalue(L, vi, 3);
        const char *secret = lua_tostring(L, -2);
        if (!http_secret_may_go(secret, to->host, to->tls, to->allowed, to->allowed_plain)) {
            bool host_ok = http_secret_may_go(secret, to->host, true, to->allowed, to->allowed_plain);
            luaL_error(L, "coax.http.request: the secret %s does not go to %s%s (only to its provider's host, "
                          "this machine, or a base_url the host gave: --base-url, agent_options)", secret, to->host,
                       host_ok ? " over plain http" : "");
        }
        const char *value = http_secret(h, secret);
        if (!value) luaL_error(L, "coax.http.request: the secret %s is not available", secret);
        size_t plen, slen, vlen = strlen(value);
        /* one that short could not be kept out of the record: it was sent and left in the log */
        if (vlen < HTTP_SECRET_MIN)
            luaL_error(L, "coax.http.request: the secret %s is %d bytes, too short to keep out of the session's record "
                          "(at least %d)", secret, (int)vlen, HTTP_SECRET_MIN);
        const char *pre = lua_tolstring(L, -3, &plen), *suf = lua_tolstring(L, -1, &slen);
        if (!http_header_value_ok(pre, plen) || !http_header_value_ok(suf, slen) || !http_header_value_ok(value, vlen))
            luaL_error(L, "coax.http.request: a header value holds a line break");
        coax_buf_put(line, pre, plen);
        coax_buf_put(line, value, vlen);
        coax_buf_put(line, suf, slen);
        coax_buf_put(&pd->secrets, value, vlen + 1);
        lua_pop(L, 3);
    } else {
        size_t vlen;
        const char *value = lua_tolstring(L, vi, &vlen);
        if (!value || !http_header_value_ok(value, vlen))
            luaL_error(L, "coax.http.request: header '%s' needs a string value without line breaks", name);
        coax_buf_put(line, value, vlen);
    }
    coax_buf_putc(line, '\0');
    if (line->oom) luaL_error(L, "out of memory");
    /* Copied into the host's memory, past the Lua cap: 60 headers sharing
    ** one 16 MiB value took 2 GB of it. Together they may take the cap. */
    if (line->len > lend_engine(L)->vm.mem_cap) vm_over_memory_cap(L, "coax.http.request: the headers are", "");
}

/* Pushes the option 'k' of the options table (index 1), raw: an __index
** would run the script in the middle of the request's making, and could hand
** out a string that only the stack holds, which opt_field pops while its
** pointer is still to be read (a collection in between frees it). */
static int raw_option(lua_State *L, const char *k)
{
    lua_pushstring(L, k);
    return lua_rawget(L, 1);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The headers table at index 1's "headers": a map (sent sorted by name) or
** a list of {name, value} pairs (sent in order). */
static void read_headers(lua_State *L, coax_http *h, pending *pd, const destination *to)
{
    if (raw_option(L, "headers") == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    luaL_argcheck(L, lua_istable(L, -1), 1, "headers must be a table");
    int t = lua_gettop(L);
    if (lua_rawlen(L, t) > 0) {
        for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, t) && i <= MAX_HEADERS; i++) {
            lua_rawgeti(L, t, i);
            luaL_argcheck(L, lua_istable(L, -1), 1, "a header list holds {name, value} pairs");
            lua_rawgeti(L, -1, 1);
            lua_rawgeti(L, -2, 2);
            add_header(L, h, pd, -2, -1, to);
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
            add_header(L, h, pd, -2, -1, to);
            lua_pop(L, 2);
        }
    }
    lua_pop(L, 1);
}

static const char *opt_field(lua_State *L, const char *k, size_t *len)
{
    raw_option(L, k);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "coax.http.request: '%s' must be a string", k);
    const char *s = lua_tolstring(L, -1, len);
    lua_pop(L, 1); /* the options table keeps it */
    return s;
}

/* Adds the secret values of 'pd' the session has not met yet to those it
** redacts in the reply. */
static bool remember_secrets(coax_session *s, const pending *pd)
{
    const coax_buf *b = &pd->secrets;
    for (const char *v = b->data; v && v < b->data + b->len; v += strlen(v) + 1) {
        bool known = false;
        for (const char *k = s->secrets.data; k && k < s->secrets.data + s->secrets.len; k += strlen(k) + 1)
            known |= !strcmp(k, v);
        if (!known) coax_buf_put(&s->secrets, v, strlen(v) + 1);
    }
    return !s->secrets.oom;
}

int lend_http_start(lua_State *L)
{
    coax_engine *e = lend_engine(L);
    coax_session *s = lend_session(L);
    if (!e || !s || !lua_isyieldable(L)) return luaL_error(L, "coax.http.request: only an agent's call can make requests");
    luaL_checktype(L, 1, LUA_TTABLE);
    http_options o = {0};
    size_t url_len, method_len = 0;
    o.url = opt_field(L, "url", &url_len);
    o.body = opt_field(L, "body", &o.body_len);
    o.method = opt_field(L, "method", &method_len);
    if (!o.url) return luaL_error(L, "coax.http.request: 'url' is required");
    if (strncmp(o.url, "http://", 7) && strncmp(o.url, "https://", 8))
        return luaL_error(L, "coax.http.request: only http:// and https:// URLs");
    destination to = {{0}, !strncmp(o.url, "https://", 8), s->host_base[0] ? s->host_base : NULL, s->host_base_plain};
    if (strlen(o.url) != url_len || !http_header_value_ok(o.url, url_len) || !http_url_host(o.url, to.host, sizeof to.host))
        return luaL_error(L, "coax.http.request: bad URL");
    if (!o.method) o.method = o.body ? "POST" : "GET";
    for (const char *p = o.method; *p; p++)
        if (*p < 'A' || *p > 'Z' || p - o.method > 16) return luaL_error(L, "coax.http.request: bad method");
    if (!*o.method) return luaL_error(L, "coax.http.request: bad method");
    if (raw_option(L, "timeout_ms") != LUA_TNIL) {
        lua_Integer timeout = lua_tointeger(L, -1);
        if (!lua_isinteger(L, -1) || timeout <= 0) return luaL_error(L, "coax.http.request: timeout_ms must be a positive integer");
        o.timeout_ms = (long)timeout;
    }
    lua_pop(L, 1);
    raw_option(L, "on_line");
    o.want_lines = !lua_isnil(L, -1);
    lua_pop(L, 1);

    http_cancel(s->http); /* an earlier request the script gave up on */
    s->http = NULL;
    lcoax_owned *node = lcoax_own(L, PENDING_MT, release_pending);
    int box = lua_gettop(L);
    pending *pd = coax_alloc_raw(lcoax_owned_allocator(node), sizeof *pd);
    if (!pd) return luaL_error(L, "out of memory");
    pd->alloc = lcoax_owned_allocator(node);
    coax_buf_init(&pd->headers, e->alloc);
    coax_buf_init(&pd->secrets, e->alloc);
    lcoax_owned_set(node, pd);
    read_headers(L, e->http, pd, &to);
    if (pd->secrets.oom || !remember_secrets(s, pd)) return luaL_error(L, "out of memory");
    o.headers = pd->headers.data;
    o.headers_len = pd->headers.len;
    o.secrets = pd->secrets.data;
    o.secrets_len = pd->secrets.len;
    if (!s->pool && !(s->pool = http_pool_new(e->http))) return luaL_error(L, "out of memory");
    o.pool = s->pool;
    const char *why = http_start(e->http, &o, &s->http);
    lcoax_own_release(L, box, PENDING_MT); /* copied by the transport, or not needed */
    if (why) return luaL_error(L, "%s", why);
    return 0;
}

/* ---- coax.http_wait ----------------------------------------------------------------- */

static void push_lines(lua_State *L, const http_req *r, const char *d, size_t end)
{
    lua_createtable(L, 4, 0);
    lua_Integer k = 0;
    for (size_t i = 0; i < end;) {
        const char *nl = memchr(d + i, '\n', end - i);
        size_t stop = nl ? (size_t)(nl - d) : end;
        size_t len = stop - i;
        if (len && d[i + len - 1] == '\r') len--;
        lend_push_redacted(L, http_secrets(r), d + i, len);
        lua_rawseti(L, -2, ++k);
        i = stop + 1;
    }
}

/* The header lines of the response as a table, names lower-cased. A name
** repeated is its values joined with ", ", once at the end: joined as they
** came, each line copied all before it (a server's 50,000 lines "x-a:" were
** 0.6 s of C, quadratic, bounded only by libcurl's own header limit). */
static void push_headers(lua_State *L, const http_req *r, const http_response *resp)
{
    lua_newtable(L);
    lua_newtable(L); /* the values of each name met twice: name -> {value, ...} */
    int headers = lua_gettop(L) - 1, repeated = headers + 1;
    const char *d = resp->head;
    for (size_t i = 0; i < resp->head_len;) {
        const char *nl = memchr(d + i, '\n', resp->head_len - i);
        size_t stop = nl ? (size_t)(nl - d) : resp->head_len;
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
            if (lua_rawget(L, headers) == LUA_TSTRING) { /* repeated: its values listed */
                lua_pushvalue(L, -2);
                if (lua_rawget(L, repeated) != LUA_TTABLE) {
                    lua_pop(L, 1);
                    lua_createtable(L, 2, 0);
                    lua_pushvalue(L, -2);
                    lua_rawseti(L, -2, 1); /* the first value */
                    lua_pushvalue(L, -3);
                    lua_pushvalue(L, -2);
                    lua_rawset(L, repeated);
                }
                lend_push_redacted(L, http_secrets(r), v, (size_t)(ve - v));
                lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
                lua_pop(L, 3); /* the list, the first value, the name */
            } else {
                lua_pop(L, 1);
                lend_push_redacted(L, http_secrets(r), v, (size_t)(ve - v));
                lua_rawset(L, headers);
            }
        }
        i = stop + 1;
    }
    lua_pushnil(L);
    while (lua_next(L, repeated)) { /* name, list */
        int list = lua_gettop(L);
        lua_pushvalue(L, list - 1);
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        lua_Integer n = (lua_Integer)lua_rawlen(L, list);
        for (lua_Integer k = 1; k <= n; k++) {
            if (k > 1) luaL_addstring(&b, ", ");
            lua_rawgeti(L, list, k);
            luaL_addvalue(&b);
        }
        luaL_pushresult(&b);
        lua_rawset(L, headers); /* headers[name] = joined */
        lua_pop(L, 1);          /* the list; the name stays for lua_next */
    }
    lua_pop(L, 1); /* the lists */
}

/* Frees the session's request, which has given all it had. */
static void drop(coax_session *s)
{
    http_cancel(s->http);
    s->http = NULL;
}

/* The news of the session's request: ("lines", {...}), or ("done", response)
** or ("done", nil, message, kind); -1 when there is none yet. The end of a
** request frees it; a response past a limit raises a limit error. */
static int push_news(lua_State *L, coax_session *s)
{
    http_req *r = s->http;
    size_t n;
    const char *lines = http_take_lines(r, &n);
    if (lines) {
        lua_pushliteral(L, "lines");
        push_lines(L, r, lines, n);
        return 2;
    }
    if (!http_ended(r)) return -1;
    http_response resp;
    const char *kind;
    char buf[HTTP_MESSAGE_MAX];
    const char *why = http_result(r, &resp, &kind, buf);
    if (why && !kind) {
        drop(s);
        return vm_stop_response(L, why);
    }
    lua_pushliteral(L, "done");
    if (why) {
        lua_pushnil(L);
        lua_pushstring(L, why);
        lua_pushstring(L, kind);
        drop(s);
        return 4;
    }
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, resp.status);
    lua_setfield(L, -2, "status");
    push_headers(L, r, &resp);
    lua_setfield(L, -2, "headers");
    lend_push_redacted(L, http_secrets(r), resp.body, resp.body_len);
    lua_setfield(L, -2, "body");
    lua_pushnumber(L, resp.elapsed_ms);
    lua_setfield(L, -2, "elapsed_ms");
    drop(s);
    return 2;
}

static int wait_k(lua_State *L, int status, lua_KContext ctx);

int lend_http_wait(lua_State *L)
{
    coax_session *s = lend_session(L);
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
    return lend_http_wait(L);
}
