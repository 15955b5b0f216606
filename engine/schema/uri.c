/*
** uri.c: RFC 3986 reference resolution (section 5.2) for schema identifiers.
** Bases may be relative ("" or "folder/") when a schema has no retrieval
** URI; resolution then still merges paths the same way.
*/
#include "schema/uri.h"


typedef struct part {
    const char *p;
    size_t n;
    bool has;
} part;

typedef struct uri {
    part scheme, auth, path, query, frag;
} uri;

static void uri_parse(const char *s, size_t n, uri *u)
{
    memset(u, 0, sizeof *u);
    size_t i = 0;
    /* scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
    if (n && coax_ascii_alpha((unsigned char)s[0])) {
        size_t j = 1;
        while (j < n && (coax_ascii_alnum((unsigned char)s[j]) || s[j] == '+' || s[j] == '-' || s[j] == '.'))
            j++;
        if (j < n && s[j] == ':') {
            u->scheme = (part){s, j, true};
            i = j + 1;
        }
    }
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
        size_t j = i + 2;
        while (j < n && s[j] != '/' && s[j] != '?' && s[j] != '#') j++;
        u->auth = (part){s + i + 2, j - i - 2, true};
        i = j;
    }
    size_t j = i;
    while (j < n && s[j] != '?' && s[j] != '#') j++;
    u->path = (part){s + i, j - i, true};
    i = j;
    if (i < n && s[i] == '?') {
        j = i + 1;
        while (j < n && s[j] != '#') j++;
        u->query = (part){s + i + 1, j - i - 1, true};
        i = j;
    }
    if (i < n && s[i] == '#') u->frag = (part){s + i + 1, n - i - 1, true};
}

/* RFC 3986 5.2.4, in place on p[0..n); returns the new length. The output
** never overtakes the input, so one buffer serves both. */
static size_t remove_dots(char *p, size_t n)
{
    size_t out = 0, i = 0;
#define AT(lit) (n - i >= sizeof lit - 1 && !memcmp(p + i, lit, sizeof lit - 1))
#define IS(lit) (n - i == sizeof lit - 1 && !memcmp(p + i, lit, sizeof lit - 1))
    while (i < n) {
        if (AT("../")) {
            i += 3;
        } else if (AT("./")) {
            i += 2;
        } else if (AT("/./")) {
            i += 2;
        } else if (IS("/.")) {
            i += 1;
            p[i] = '/';
        } else if (AT("/../") || IS("/..")) { /* replaced by "/", and the last segment out goes */
            if (AT("/../")) {
                i += 3;
            } else {
                i += 2;
                p[i] = '/';
            }
            while (out > 0 && p[out - 1] != '/') out--;
            if (out > 0) out--;
        } else if (IS(".") || IS("..")) {
            i = n;
        } else {
            size_t j = i + (p[i] == '/' ? 1 : 0);
            while (j < n && p[j] != '/') j++;
            memmove(p + out, p + i, j - i);
            out += j - i;
            i = j;
        }
    }
#undef AT
#undef IS
    return out;
}

static void put_part(coax_buf *b, const part *x) { coax_buf_put(b, x->p, x->n); }

static void put_lower(coax_buf *b, const part *x)
{
    for (size_t i = 0; i < x->n; i++) coax_buf_putc(b, (char)coax_ascii_lower((unsigned char)x->p[i]));
}

/* Appends 'path' with dot segments removed. */
static void put_path(coax_buf *b, const char *p, size_t n)
{
    size_t at = b->len;
    coax_buf_put(b, p, n);
    if (b->oom) return;
    b->len = at + remove_dots(b->data + at, n);
}

char *coax_uri_resolve(coax_arena *arena, const char *base, const char *ref, size_t len)
{
    uri r, bs, t;
    uri_parse(ref, len, &r);
    uri_parse(base, strlen(base), &bs);
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(arena));
    bool merged = false;
    if (r.scheme.has) {
        t = r;
    } else {
        t.scheme = bs.scheme;
        if (r.auth.has) {
            t.auth = r.auth;
            t.query = r.query;
        } else {
            t.auth = bs.auth;
            if (r.path.n == 0) {
                t.query = r.query.has ? r.query : bs.query;
            } else {
                t.query = r.query;
                merged = r.path.p[0] != '/';
            }
        }
        t.frag = r.frag;
    }
    if (t.scheme.has) {
        put_lower(&b, &t.scheme);
        coax_buf_putc(&b, ':');
    }
    if (t.auth.has) {
        coax_buf_puts(&b, "//");
        put_lower(&b, &t.auth);
    }
    if (r.scheme.has || r.auth.has) {
        put_path(&b, r.path.p, r.path.n);
    } else if (r.path.n == 0) {
        put_path(&b, bs.path.p, bs.path.n);
    } else if (!merged) {
        put_path(&b, r.path.p, r.path.n);
    } else {
        /* merge: the base path up to its last '/', then the reference */
        coax_buf m;
        coax_buf_init(&m, coax_arena_allocator(arena));
        if (bs.auth.has && bs.path.n == 0) {
            coax_buf_putc(&m, '/');
        } else {
            size_t k = bs.path.n;
            while (k > 0 && bs.path.p[k - 1] != '/') k--;
            coax_buf_put(&m, bs.path.p, k);
        }
        coax_buf_put(&m, r.path.p, r.path.n);
        if (m.oom) b.oom = true;
        else put_path(&b, m.data, m.len);
        coax_buf_free(&m);
    }
    if (t.query.has) {
        coax_buf_putc(&b, '?');
        put_part(&b, &t.query);
    }
    if (t.frag.has && t.frag.n) {
        coax_buf_putc(&b, '#');
        put_part(&b, &t.frag);
    }
    char *out = NULL;
    if (!b.oom) out = coax_arena_strdup(arena, b.data ? b.data : "", b.len);
    coax_buf_free(&b);
    return out;
}

size_t coax_uri_doc_len(const char *uri)
{
    const char *h = strchr(uri, '#');
    return h ? (size_t)(h - uri) : strlen(uri);
}

char *coax_uri_unescape(coax_arena *arena, const char *s, size_t len, size_t *out_len)
{
    char *o = coax_arena_alloc(arena, len + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        int h, l;
        if (s[i] == '%' && i + 2 < len && (h = coax_hex_digit(s[i + 1])) >= 0 &&
            (l = coax_hex_digit(s[i + 2])) >= 0) {
            o[k++] = (char)(h * 16 + l);
            i += 2;
        } else {
            o[k++] = s[i];
        }
    }
    o[k] = '\0';
    *out_len = k;
    return o;
}
