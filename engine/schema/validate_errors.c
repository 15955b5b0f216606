/*
** validate_errors.c: what a validation records (validate.h). An error is
** its instance location, its keyword location, its absolute keyword
** location once a reference was crossed, its message and the nesting of
** the nodes it was found in; an annotation is its locations and its value.
** Both are written as strings into one buffer each, charged and bounded,
** and the message pieces here quote values in a few dozen bytes, however
** large the value.
*/
#include "schema/validate.h"
#include "base/bytes.h"

#include <stdio.h>

bool vctx_fatal(vctx *c, coax_code code, const char *fmt, ...)
{
    if (c->rc) return false;
    c->rc = code;
    va_list ap;
    va_start(ap, fmt);
    coax_failv(c->err, code, 0, fmt, ap);
    va_end(ap);
    return false;
}

/* The instance's size: its values and members, and the bytes of its
** strings and keys. The containers not yet counted wait on a stack from
** the allocator (any depth); each is counted whole when taken. */
bool vctx_instance_size(vctx *c, const coax_value *v, uint64_t *values, uint64_t *bytes)
{
    segs st = {0}; /* containers, in seg's first field */
    uint64_t nv = 1, nb = v->type == COAX_STRING ? v->len : 0;
    if ((v->type == COAX_ARRAY || v->type == COAX_OBJECT) && v->len && !push(c, &st, (const char *)v, 0))
        return false;
    while (st.n) {
        const coax_value *p = (const coax_value *)st.v[--st.n].s;
        bool obj = p->type == COAX_OBJECT;
        nv += obj ? 2 * (uint64_t)p->len : p->len;
        for (size_t i = 0; i < p->len; i++) {
            const coax_value *ch = obj ? &p->u.members[i].value : &p->u.items[i];
            if (obj) nb += p->u.members[i].klen;
            if (ch->type == COAX_STRING) nb += ch->len;
            else if ((ch->type == COAX_ARRAY || ch->type == COAX_OBJECT) && ch->len &&
                     !push(c, &st, (const char *)ch, 0))
                break;
        }
    }
    *values = nv, *bytes = nb;
    coax_free_raw(c->alloc, st.v, st.cap * sizeof *st.v);
    return !c->rc;
}

static uint64_t sat_mul(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* The default budget is at most this many steps for each unit of the
** schema's size and the instance's together. Twice the product of the two
** is quadratic in the input when both come from one author: a recipe's
** anyOf of 4,000 consts over a reply of 4,000 items was a budget of 64
** million steps (1 s in one call of the session, where no script budget is
** charged), 40,000 of each 6.4 billion (100 s); now 12 million and 120
** million. A schema applying at most 512 units to each value is never held
** back by it. */
#define STEPS_PER_UNIT 1024

uint64_t vctx_default_steps(const vctx *c, uint64_t values, uint64_t bytes)
{
    uint64_t units = values + bytes / 64;
    uint64_t n = sat_mul(2 * c->s->weight, units);
    uint64_t linear = sat_mul(STEPS_PER_UNIT, c->s->weight + units);
    if (n > linear) n = linear;
    return n < COAX_DEFAULT_MIN_STEPS ? COAX_DEFAULT_MIN_STEPS : n;
}

uint64_t vctx_default_regex(uint64_t values, uint64_t bytes)
{
    uint64_t n = sat_mul(64, values + bytes);
    return n < COAX_DEFAULT_MIN_REGEX_TOTAL ? COAX_DEFAULT_MIN_REGEX_TOTAL : n;
}

bool vctx_measure(vctx *c)
{
    if (!c->unsized) return false;
    uint64_t values, bytes;
    if (!vctx_instance_size(c, c->unsized, &values, &bytes)) return false;
    c->unsized = NULL;
    c->steps_max = vctx_default_steps(c, values, bytes);
    c->regex_max = vctx_default_regex(values, bytes);
    c->steps += c->steps_max - COAX_DEFAULT_MIN_STEPS;
    c->regex += c->regex_max - COAX_DEFAULT_MIN_REGEX_TOTAL;
    return true;
}

bool vctx_out_of_steps(vctx *c, uint64_t n)
{
    if (vctx_measure(c) && c->steps >= n) {
        c->steps -= n;
        return true;
    }
    c->steps = 0;
    return vctx_fatal(c, COAX_ELIMIT, "validation used up its step budget of %llu steps (%s)",
                      (unsigned long long)c->steps_max, c->steps_what);
}

void vctx_give_back(vctx *c, vspent m)
{
    if (m.unsized && !c->unsized) {
        m.steps += c->steps_max - COAX_DEFAULT_MIN_STEPS;
        m.regex += c->regex_max - COAX_DEFAULT_MIN_REGEX_TOTAL;
    }
    c->steps = m.steps;
    c->regex = m.regex;
    c->nanns = m.nanns;
    c->astrs.len = m.astrs;
}

bool vctx_grow(vctx *c, void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return true;
    size_t nc = *cap ? *cap * 2 : 32;
    void *q;
    if ((const char *)*p >= c->own_lo && (const char *)*p < c->own_hi) { /* moves off the stack */
        if ((q = coax_alloc_raw(c->alloc, nc * size))) memcpy(q, *p, *cap * size);
    } else {
        q = coax_realloc_raw(c->alloc, *p, *cap * size, nc * size);
    }
    if (!q) return oom(c);
    *p = q;
    *cap = nc;
    return true;
}

void vctx_release(vctx *c, void *p, size_t cap, size_t size)
{
    if (!((const char *)p >= c->own_lo && (const char *)p < c->own_hi)) coax_free_raw(c->alloc, p, cap * size);
}

/* ---- evaluated sets, dynamic references ---------------------------------- */

bool vctx_eset_init(vctx *c, eset *e, size_t n)
{
    e->n = n;
    e->bits = NULL;
    if (!charge(c, n / 64)) return false;
    e->bits = coax_alloc_raw(c->alloc, ((n + 63) / 64) * sizeof *e->bits);
    if (!e->bits) return oom(c);
    memset(e->bits, 0, ((n + 63) / 64) * sizeof *e->bits);
    return true;
}

void vctx_eset_free(vctx *c, eset *e)
{
    if (e->bits) coax_free_raw(c->alloc, e->bits, ((e->n + 63) / 64) * sizeof *e->bits);
    e->bits = NULL;
}

const snode *vctx_dynamic_target(vctx *c, const skw *k)
{
    const snode *t = k->sub;
    if (k->op == OP_DYNREF && k->anchor) {
        for (size_t i = 0; i < c->nscope; i++) {
            const sres *r = c->scope[i];
            if (!charge(c, 1 + r->nanchors)) return NULL;
            for (size_t j = 0; j < r->nanchors; j++)
                if (r->anchors[j].dynamic && !strcmp(r->anchors[j].name, k->anchor)) return r->anchors[j].node;
        }
    } else if (k->op == OP_RECREF && t->res->recursive_anchor && t == t->res->root_node) {
        for (size_t i = c->nscope; i-- > 0;) {
            if (!c->scope[i]->recursive_anchor || !c->scope[i]->root_node) break;
            t = c->scope[i]->root_node;
        }
    }
    return t;
}

/* ---- locations ----------------------------------------------------------- */

static size_t escapes(const char *s, size_t n);

/* Writes the segments of 's' from 'from' on as a JSON Pointer; cut_len[i]
** gets the length written before segment cuts_at[i]. Each segment is
** written straight into room reserved for its longest escaped form: this
** runs for every error, so no call per byte; a name with nothing to escape
** (a keyword, most keys: told by its measured length or by words) is
** copied whole. */
static void put_ptr(coax_buf *b, const segs *s, size_t from, size_t *cuts_at, uint32_t *cut_len,
                    size_t ncuts)
{
    size_t ci = 0;
    for (size_t i = from; i < s->n; i++) {
        while (ci < ncuts && cuts_at[ci] == i) cut_len[ci++] = (uint32_t)b->len;
        const seg *g = &s->v[i];
        if (!coax_buf_reserve(b, g->s ? 1 + 2 * g->len : 1 + 20)) return;
        char *o = b->data + b->len;
        *o++ = '/';
        if (!g->s) {
            o += coax_decimal(o, g->len);
        } else if (g->elen == 1 + g->len || !escapes(g->s, g->len)) { /* nothing to escape: copied */
            memcpy(o, g->s, g->len);
            o += g->len;
        } else {
            for (size_t k = 0; k < g->len; k++) {
                char ch = g->s[k];
                if (ch == '~' || ch == '/') {
                    *o++ = '~';
                    *o++ = ch == '~' ? '0' : '1';
                } else {
                    *o++ = ch;
                }
            }
        }
        b->len = (size_t)(o - b->data);
    }
    while (ci < ncuts) cut_len[ci++] = (uint32_t)b->len;
}

/* The absolute keyword location, once a reference was crossed, as a
** string in 'b': its offset, or SIZE_MAX when there is none. */
static size_t put_abs(vctx *c, coax_buf *b)
{
    size_t from;
    const snode *n = vctx_node(c, &from);
    if (!c->crossed || !n) return SIZE_MAX;
    size_t at = b->len;
    coax_snode_put_abs(b, n);
    put_ptr(b, &c->kpath, from, NULL, NULL, 0);
    coax_buf_putc(b, '\0');
    return at;
}

/* Records the annotation of keyword 'k' at the current locations. Its
** locations are charged and bounded as an error's are (vctx_measure): a
** recursive schema's titles over a nested array, each annotation's
** locations as long as the depth, gave 2.8 KB of instance 193 MB of
** annotations (830 MB, 2.4 s; attack round 20). */
void vctx_annotate(vctx *c, const skw *k)
{
    if (!c->annotate || c->rc) return;
    if (!vctx_grow(c, (void **)&c->anns, &c->canns, c->nanns, sizeof *c->anns) || !push_kw(c, k->name)) return;
    size_t before = c->astrs.len;
    vann *a = &c->anns[c->nanns];
    a->iloc = c->astrs.len;
    put_ptr(&c->astrs, &c->ipath, 0, NULL, NULL, 0);
    coax_buf_putc(&c->astrs, '\0');
    a->kloc = c->astrs.len;
    put_ptr(&c->astrs, &c->kpath, 0, NULL, NULL, 0);
    coax_buf_putc(&c->astrs, '\0');
    a->aloc = put_abs(c, &c->astrs);
    a->value = k->v;
    c->kpath.n--;
    if (c->astrs.oom) {
        oom(c);
        return;
    }
    if (!charge(c, vctx_record_steps(c->astrs.len - before))) return;
    if (c->astrs.len > c->s->max_error_bytes) {
        vctx_fatal(c, COAX_ELIMIT, "validation annotations passed %zu bytes (max_error_bytes)", c->s->max_error_bytes);
        return;
    }
    c->nanns++;
}

/* Whether any byte of x is '~' or '/'. */
static inline bool has_escape(uint64_t x) { return word_eq(x, '~') | word_eq(x, '/'); }

/* How many bytes of s[0..n) are '~' or '/' (each escaped in two bytes).
** Most names have none: words of eight (or four) bytes tell, the last one
** overlapping the one before; only a name that has one is counted byte by
** byte. */
static size_t escapes(const char *s, size_t n)
{
    bool any = false;
    if (n >= 8) {
        for (size_t i = 0; i + 8 <= n && !any; i += 8) any = has_escape(coax_load8(s + i));
        any = any || has_escape(coax_load8(s + n - 8));
    } else if (n >= 4) {
        any = has_escape(coax_load4(s) | coax_load4(s + n - 4) << 32);
    } else {
        any = true;
    }
    size_t k = 0;
    if (any)
        for (size_t i = 0; i < n; i++) k += s[i] == '~' || s[i] == '/';
    return k;
}

/* The length of the JSON Pointer put_ptr writes for one segment. */
static size_t seg_len(const seg *g)
{
    size_t n = 1;
    if (g->s) return n + g->len + escapes(g->s, g->len);
    size_t x = g->len;
    do n++, x /= 10;
    while (x);
    return n;
}

/* The length of the JSON Pointer of segments [from, upto) of 's', each
** segment measured once while it stays on the path. */
static size_t ptr_len(segs *s, size_t from, size_t upto)
{
    size_t n = 0;
    for (size_t i = from; i < upto; i++) {
        seg *g = &s->v[i];
        if (g->elen) {
            n += g->elen;
            continue;
        }
        size_t k = seg_len(g);
        if (k < UINT32_MAX) g->elen = (uint32_t)k;
        n += k;
    }
    return n;
}

size_t vctx_path_len(segs *s) { return ptr_len(s, 0, s->n); }

size_t vctx_key_len(const char *s, size_t n) { return 1 + n + escapes(s, n); }

size_t vctx_index_len(size_t i)
{
    size_t n = 1;
    do n++, i /= 10;
    while (i);
    return n;
}

/* An error while silent: the bytes vctx_record would write (its strings
** and nesting), charged and bounded as they would be, and counted in
** c->vbytes, so a run that tries branches silently and then again for
** their errors spends exactly what writing them at once spends. */
static void count_silently(vctx *c)
{
    if (c->msg.oom) {
        oom(c);
        return;
    }
    size_t ncut = c->nframes < 64 ? c->nframes : 64, from;
    const snode *n = vctx_node(c, &from);
    size_t kin = ptr_len(&c->kpath, from, c->kpath.n); /* from the node's entry */
    size_t klen = ptr_len(&c->kpath, 0, from) + kin;
    size_t bytes = ptr_len(&c->ipath, 0, c->ipath.n) + 1 + klen + 1 + c->msg.len + 1 + ncut * 2 * sizeof(uint32_t);
    if (c->crossed && n) bytes += n->abslen + kin + 1;
    c->vbytes += bytes;
    if (!charge(c, vctx_record_steps(bytes))) return;
    if (c->strs.len + c->nests.len + c->vbytes > c->s->max_error_bytes)
        vctx_fatal(c, COAX_ELIMIT, "validation errors passed %zu bytes (max_error_bytes)", c->s->max_error_bytes);
}

/* Records an error at the current locations with the message in c->msg. */
void vctx_record(vctx *c)
{
    if (c->quiet || c->rc) return;
    if (c->silent) {
        count_silently(c);
        return;
    }
    size_t before = c->strs.len + c->nests.len;
    if (c->msg.oom || !vctx_grow(c, (void **)&c->errs, &c->cerrs, c->nerrs, sizeof *c->errs)) {
        oom(c);
        return;
    }
    verr *e = &c->errs[c->nerrs];
    uint32_t lens[2 * 64];
    size_t atk[64], ati[64];
    size_t ncut = c->nframes < 64 ? c->nframes : 64;
    for (size_t i = 0; i < ncut; i++) {
        atk[i] = c->frames[i].k;
        ati[i] = c->frames[i].i;
    }
    uint32_t klen[64], ilen[64];
    e->iloc = c->strs.len;
    put_ptr(&c->strs, &c->ipath, 0, ati, ilen, ncut);
    coax_buf_putc(&c->strs, '\0');
    e->kloc = c->strs.len;
    put_ptr(&c->strs, &c->kpath, 0, atk, klen, ncut);
    coax_buf_putc(&c->strs, '\0');
    for (size_t i = 0; i < ncut; i++) {
        lens[2 * i] = klen[i] - (uint32_t)e->kloc;
        lens[2 * i + 1] = ilen[i] - (uint32_t)e->iloc;
    }
    e->aloc = put_abs(c, &c->strs);
    e->msg = c->strs.len;
    coax_buf_put(&c->strs, c->msg.data ? c->msg.data : "", c->msg.len);
    coax_buf_putc(&c->strs, '\0');
    e->nest = c->nests.len;
    e->nnest = ncut;
    coax_buf_put(&c->nests, lens, ncut * 2 * sizeof *lens);
    if (c->strs.oom || c->nests.oom) {
        oom(c);
        return;
    }
    c->nerrs++;
    /* Writing the error is charged by its bytes, and their sum is bounded
    ** (max_error_bytes), which a schema fanning out over a long path meets.
    ** A step per 64 bytes, as a string's bytes read: at one per 16 a
    ** legitimate deep instance, whose every error repeats its path (200
    ** levels of 1,000-byte keys, an error a level: 20 MB of errors for a
    ** 200 KB instance), spent the default budget's floor of 1,000,000 steps,
    ** naming max_steps, at a third of the bytes the limit on them allows. */
    if (!charge(c, vctx_record_steps(c->strs.len + c->nests.len - before))) return;
    if (c->strs.len + c->nests.len + c->vbytes > c->s->max_error_bytes)
        vctx_fatal(c, COAX_ELIMIT, "validation errors passed %zu bytes (max_error_bytes)", c->s->max_error_bytes);
}

void vctx_error_at_kw(vctx *c, const char *kw)
{
    if (push_kw(c, kw)) {
        vctx_record(c);
        c->kpath.n--;
    }
}

/* ---- messages ------------------------------------------------------------ */

/* Whether s[0..n) is written in a JSON string as it is. */
static bool plain_text(const char *s, size_t n)
{
    if (n >= 8) {
        for (size_t i = 0; i + 8 <= n; i += 8)
            if (word_json_stops(coax_load8(s + i))) return false;
        return !word_json_stops(coax_load8(s + n - 8));
    }
    if (n >= 4) return !word_json_stops(coax_load4(s) | coax_load4(s + n - 4) << 32);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7f || s[i] == '"' || s[i] == '\\') return false;
    return true;
}

/* Appends s[0..n) as a JSON string, cut at 'max' bytes on a character
** boundary, with "..." inside the quotes when cut. */
void vctx_put_str(coax_buf *b, const char *s, size_t n, size_t max)
{
    if (n <= max && plain_text(s, n)) { /* quoted as it is */
        if (!coax_buf_reserve(b, n + 2)) return;
        b->data[b->len] = '"';
        memcpy(b->data + b->len + 1, s, n);
        b->data[b->len + 1 + n] = '"';
        b->len += n + 2;
        return;
    }
    if (n <= max) {
        coax_buf_put_json_string(b, s, n);
        return;
    }
    size_t k = max;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    size_t at = b->len;
    coax_buf_put_json_string(b, s, k);
    if (!b->oom && b->len > at) {
        b->len--; /* the closing quote */
        coax_buf_puts(b, "...\"");
    }
}

/* Writes the compact JSON of 'v' to 'b' until 'b' holds more than 'max'
** bytes: what it writes is the text coax_write_buf would (a longer text is
** cut anywhere past 'max', even inside a string or a number), so a message
** quoting a large enum or const costs 'max', not the value's size, per error. */
static void put_prefix(coax_buf *b, const coax_value *v, size_t max)
{
    if (b->len > max || b->oom) return;
    size_t room = max - b->len + 8; /* bytes enough to pass max, and a character's */
    switch (v->type) {
    case COAX_STRING:
        coax_buf_put_json_string(b, v->u.text, v->len < room ? v->len : room);
        return;
    case COAX_NUMBER:
        coax_buf_put(b, v->u.text, v->len < room ? v->len : room);
        return;
    case COAX_ARRAY:
        coax_buf_putc(b, '[');
        for (size_t i = 0; i < v->len && b->len <= max; i++) {
            if (i) coax_buf_putc(b, ',');
            put_prefix(b, &v->u.items[i], max);
        }
        if (b->len <= max) coax_buf_putc(b, ']');
        return;
    case COAX_OBJECT:
        coax_buf_putc(b, '{');
        for (size_t i = 0; i < v->len && b->len <= max; i++) {
            const coax_member *m = &v->u.members[i];
            if (i) coax_buf_putc(b, ',');
            coax_buf_put_json_string(b, m->key, m->klen < room ? m->klen : room);
            if (b->len > max) return;
            coax_buf_putc(b, ':');
            put_prefix(b, &m->value, max);
        }
        if (b->len <= max) coax_buf_putc(b, '}');
        return;
    default:
        coax_write_buf(b, v, 0);
    }
}

/* A short JSON rendering of a value: scalars whole (long strings cut),
** containers cut at about 'max' bytes. */
void vctx_put_json(vctx *c, coax_buf *b, const coax_value *v, size_t max)
{
    if (v->type == COAX_STRING) {
        vctx_put_str(b, v->u.text, v->len, max);
        return;
    }
    if (v->type != COAX_ARRAY && v->type != COAX_OBJECT) {
        coax_write_buf(b, v, 0);
        return;
    }
    coax_buf t;
    coax_buf_init(&t, c->alloc);
    put_prefix(&t, v, max + 8);
    if (t.oom) {
        coax_buf_puts(b, v->type == COAX_ARRAY ? "[...]" : "{...}");
    } else if (t.len <= max) {
        coax_buf_put(b, t.data, t.len);
    } else {
        size_t k = max;
        while (k > 0 && ((unsigned char)t.data[k] & 0xC0) == 0x80) k--;
        coax_buf_put(b, t.data, k);
        coax_buf_puts(b, "...");
    }
    coax_buf_free(&t);
}

/* "string \"12\"", "number 3.5", "boolean true", "null", "object", "array" */
void vctx_put_got(vctx *c, const coax_value *v)
{
    coax_buf *b = &c->msg;
    switch (v->type) {
    case COAX_NULL: coax_buf_puts(b, "null"); break;
    case COAX_BOOL: coax_buf_puts(b, v->u.boolean ? "boolean true" : "boolean false"); break;
    case COAX_NUMBER:
        coax_buf_puts(b, "number ");
        if (v->len <= 40) coax_buf_put(b, v->u.text, v->len);
        else coax_buf_printf(b, "%.40s...", v->u.text);
        break;
    case COAX_STRING:
        coax_buf_puts(b, "string ");
        vctx_put_str(b, v->u.text, v->len, 40);
        break;
    case COAX_ARRAY: coax_buf_printf(b, "array of %zu item%s", (size_t)v->len, v->len == 1 ? "" : "s"); break;
    default: coax_buf_puts(b, "object"); break;
    }
}

size_t vctx_str_len(const char *s, size_t n, size_t max) { return n <= max && plain_text(s, n) ? n + 2 : SIZE_MAX; }

size_t vctx_got_len(const coax_value *v)
{
    switch (v->type) {
    case COAX_NULL: return sizeof "null" - 1;
    case COAX_BOOL: return v->u.boolean ? sizeof "boolean true" - 1 : sizeof "boolean false" - 1;
    case COAX_NUMBER: return sizeof "number " - 1 + (v->len <= 40 ? v->len : 40 + sizeof "..." - 1);
    case COAX_STRING:
        return v->len <= 40 && plain_text(v->u.text, v->len) ? sizeof "string " - 1 + v->len + 2 : SIZE_MAX;
    case COAX_ARRAY: return sizeof "array of " - 1 + vctx_index_len(v->len) - 1 + sizeof " item" - 1 + (v->len != 1);
    default: return sizeof "object" - 1;
    }
}

void vctx_put_types(coax_buf *b, unsigned types)
{
    static const char *const names[] = {"null", "boolean", "object", "array", "number", "string", "integer"};
    size_t total = 0, k = 0;
    for (int i = 0; i < 7; i++) total += (types >> i) & 1;
    for (int i = 0; i < 7; i++) {
        if (!((types >> i) & 1)) continue;
        if (k) coax_buf_puts(b, k + 1 == total ? " or " : ", ");
        coax_buf_puts(b, names[i]);
        k++;
    }
}

void vctx_put_size(coax_buf *b, size_t n)
{
    if (!coax_buf_reserve(b, 20)) return;
    b->len += coax_decimal(b->data + b->len, n);
}

/* A false subschema reached through keyword 'kw' for the item or member
** just pushed on the instance path. */
void vctx_not_allowed_msg(vctx *c, const char *what, const char *key, size_t klen, size_t index)
{
    msg_start(c);
    if (key) {
        MSGS("property ");
        vctx_put_str(&c->msg, key, klen, 60);
    } else {
        MSGS("item ");
        vctx_put_size(&c->msg, index);
    }
    MSGS(" is not allowed");
    coax_buf_puts(&c->msg, what);
}

void vctx_not_allowed(vctx *c, const char *kw, const coax_value *v, const char *what, const char *key,
                      size_t klen, size_t index)
{
    if (c->quiet) return; /* no message, no error */
    vctx_not_allowed_msg(c, what, key, klen, index);
    (void)v;
    vctx_error_at_kw(c, kw);
}
