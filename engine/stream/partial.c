/*
** partial.c: the parts the parser reports (open containers, keys, closed
** scalars and containers), which of them are complete, and the partial a
** caller gets.
**
** The list of complete parts is kept top-most: when a container completes,
** the entries of its children (the tail of the list since it opened) give
** way to its own. Without a schema a part is complete once closed; with
** one, complete.c decides, and gives its coerced value.
**
** A partial shares what the reader keeps: the values of complete parts
** and the arrays of open containers live in the reader's arena, each open
** container with one slot past its complete children where the partial
** puts the child in progress. So building a partial costs the depth of
** the value and the pointers not built yet, not the size of the value.
*/
#include "stream/reader.h"

#include "base/hash.h"
#include "json/key_bits.h"
#include "schema/schema.h"

/* Room for one more child (and, without a schema, where 'shown' is 'raw',
** the slot past the complete ones). */
static inline bool frame_room(stream_reader *r, sframe *f)
{
    size_t size = f->object ? sizeof(coax_member) : sizeof(coax_value);
    if (!stream_grow(r, &f->raw, &f->rawcap, f->nraw + 2, size)) return false;
    if (!r->o.schema) {
        f->shown = f->raw;
        f->showncap = f->rawcap;
    }
    return true;
}

/* With a schema: room in 'shown' for 'need' children (grown only when a
** partial shows them: a reply read without partials never fills it). */
static bool shown_room(stream_reader *r, sframe *f, size_t need)
{
    if (!r->o.schema) return true;
    return stream_grow(r, &f->shown, &f->showncap, need, f->object ? sizeof(coax_member) : sizeof(coax_value));
}

/* The list shrank to 'n' entries: the pointers a partial gave past them
** are no longer its. */
static void entries_cut(stream_reader *r, size_t n)
{
    r->nentries = n;
    if (r->nptrs > n) r->nptrs = n;
}

/* Objects with fewer members than this look duplicates up by a scan; past
** it, by a hash table. */
#define KEY_TABLE_FROM 8

static bool add_entry(stream_reader *r, const char *parent, size_t plen, const char *key, size_t klen,
                      size_t index)
{
    if (!stream_grow(r, (void **)&r->entries, &r->entrycap, r->nentries + 1, sizeof *r->entries)) return false;
    r->entries[r->nentries++] = (sentry){parent, plen, key, klen, index, NULL};
    return true;
}

/* Member f->nraw (just written) joins the table of keys, for duplicates,
** once the object has a few (tree_key searches the first ones itself). */
static bool remember_key(stream_reader *r, sframe *f)
{
    const coax_member *m = (const coax_member *)f->raw + f->nraw;
    if (f->nraw * 2 + 2 > f->keymask) {
        size_t cap = f->keymask ? (f->keymask + 1) * 2 : 16;
        uint32_t *slots = coax_alloc_raw(r->alloc, cap * sizeof *slots);
        if (!slots) return false;
        memset(slots, 0, cap * sizeof *slots);
        for (size_t i = 0; i <= f->nraw; i++) {
            const coax_member *o = (const coax_member *)f->raw + i;
            size_t h = (size_t)coax_hash_bytes(o->key, o->klen, r->seed) & (cap - 1);
            while (slots[h]) h = (h + 1) & (cap - 1);
            slots[h] = (uint32_t)(i + 1);
        }
        coax_free_raw(r->alloc, f->keyslots, f->keymask ? (f->keymask + 1) * sizeof *slots : 0);
        f->keyslots = slots;
        f->keymask = cap - 1;
    } else {
        size_t h = (size_t)coax_hash_bytes(m->key, m->klen, r->seed) & f->keymask;
        while (f->keyslots[h]) h = (h + 1) & f->keymask;
        f->keyslots[h] = (uint32_t)(f->nraw + 1);
    }
    return true;
}

/* Appends child 'v' to f's raw children (under the current key). Inline:
** every scalar and container that closes comes here. */
static inline bool append_raw(stream_reader *r, sframe *f, const coax_value *v)
{
    if (!frame_room(r, f)) return false;
    if (f->object) {
        coax_member *m = (coax_member *)f->raw + f->nraw;
        m->key = f->key;
        m->klen = (uint32_t)f->klen;
        m->value = *v;
        if (f->nraw + 1 >= KEY_TABLE_FROM && !remember_key(r, f)) return false;
    } else {
        ((coax_value *)f->raw)[f->nraw] = *v;
    }
    f->nraw++;
    return true;
}

/* Child f->nraw - 1 just closed: without a schema it is complete now. */
static inline coax_code child_closed(stream_reader *r, size_t d)
{
    sframe *f = &r->frames[d];
    size_t index = f->nraw - 1;
    if (!r->o.schema) {
        f->nshown = f->nraw;
        const coax_member *m = f->object ? (const coax_member *)f->raw + index : NULL;
        const char *ptr = frame_ptr(r, d);
        if (!ptr || !add_entry(r, ptr, f->plen, m ? m->key : NULL, m ? m->klen : 0, index)) return stream_oom(r, NULL);
        return COAX_OK;
    }
    if (complete_child_final(f)) return complete_pend(r, d, index);
    return COAX_OK;
}

/* Pending child 'index' of frames[d] is complete with 'v' (its final value,
** in the reader's arena) at pointer 'ptr': it is shown and listed. */
static coax_code show(stream_reader *r, size_t d, size_t index, const coax_value *v, const char *ptr)
{
    sframe *f = &r->frames[d];
    const char *fp = frame_ptr(r, d);
    if (!fp || !shown_room(r, f, f->nshown + 2)) return COAX_ENOMEM;
    const coax_member *m = f->object ? (const coax_member *)f->raw + index : NULL;
    if (m) ((coax_member *)f->shown)[f->nshown] = (coax_member){m->key, m->klen, *v};
    else ((coax_value *)f->shown)[f->nshown] = *v;
    f->nshown++;
    if (!add_entry(r, fp, f->plen, m ? m->key : NULL, m ? m->klen : 0, index)) return COAX_ENOMEM;
    /* The open containers below: their children come after it in the list. */
    for (size_t k = d + 1; k < r->depth; k++) r->frames[k].entries_from = r->nentries;
    r->entries[r->nentries - 1].text = ptr;
    return COAX_OK;
}

coax_code tree_open(stream_reader *r, bool object)
{
    if (r->depth == r->framecap) {
        size_t cap = r->framecap ? r->framecap * 2 : 16;
        void *p = coax_realloc_raw(r->alloc, r->frames, r->framecap * sizeof *r->frames, cap * sizeof *r->frames);
        if (!p) return stream_oom(r, NULL);
        r->frames = p;
        r->framecap = cap;
    }
    if (!r->seed) r->seed = coax_hash_seed(r) | 1;
    sframe *parent = r->depth ? &r->frames[r->depth - 1] : NULL;
    sframe *f = &r->frames[r->depth];
    memset(f, 0, sizeof *f);
    f->object = object;
    f->entries_from = r->nentries;
    if (!parent) f->ptr = ""; /* else built when asked for (frame_ptr) */
    if (!frame_room(r, f)) return stream_oom(r, NULL);
    if (r->o.schema) complete_frame(r, f, parent);
    r->depth++;
    return COAX_OK;
}

/* The bit of a key in sframe.keybits (an empty key: its length's alone). */
static unsigned key_bit(const char *key, size_t klen)
{
    return klen ? COAX_KEY_BIT((unsigned char)key[0], (unsigned char)key[klen - 1], klen) : 0;
}

coax_code tree_key(stream_reader *r, const char *key, size_t klen, bool *dup)
{
    sframe *f = &r->frames[r->depth - 1];
    *dup = false;
    if (f->keyslots) {
        size_t h = (size_t)coax_hash_bytes(key, klen, r->seed) & f->keymask;
        for (; f->keyslots[h]; h = (h + 1) & f->keymask) {
            const coax_member *m = (const coax_member *)f->raw + (f->keyslots[h] - 1);
            if (m->klen == klen && coax_same_bytes(m->key, key, klen)) {
                *dup = true;
                break;
            }
        }
    } else if ((f->keybits = coax_key_bits_set(f->keybits, key_bit(key, klen))) == UINT64_MAX) {
        const coax_member *m = f->raw;
        for (size_t i = 0; i < f->nraw && !*dup; i++)
            *dup = m[i].klen == klen && coax_same_bytes(m[i].key, key, klen);
    }
    /* A declared key is the schema's (it outlives the reader), else a copy. */
    const char *k = r->o.schema ? complete_key(r, f, key, klen) : NULL;
    if (!k && !(k = coax_arena_strdup(r->ar, key, klen))) return stream_oom(r, NULL);
    f->key = k;
    f->klen = klen;
    f->key_ready = true;
    return COAX_OK;
}

coax_code tree_scalar(stream_reader *r, const coax_value *v)
{
    sframe *f = &r->frames[r->depth - 1];
    if (!append_raw(r, f, v)) return stream_oom(r, NULL);
    f->key_ready = false;
    return child_closed(r, r->depth - 1);
}

coax_code tree_close(stream_reader *r)
{
    sframe *f = &r->frames[r->depth - 1];
    coax_value v = {.type = (uint8_t)(f->object ? COAX_OBJECT : COAX_ARRAY), .len = (uint32_t)f->nraw};
    if (f->object) v.u.members = f->raw;
    else v.u.items = f->raw;
    coax_free_raw(r->alloc, f->keyslots, f->keymask ? (f->keymask + 1) * sizeof *f->keyslots : 0);
    f->keyslots = NULL;
    f->keymask = 0;
    r->depth--;
    if (r->depth == 0) {
        r->root_raw = v;
        r->root_shown = (coax_value){.type = v.type, .len = (uint32_t)f->nshown};
        if (f->object) r->root_shown.u.members = f->shown;
        else r->root_shown.u.items = f->shown;
        if (!r->o.schema) { /* the root is complete: the only entry */
            r->root = &r->root_raw;
            entries_cut(r, 0);
            if (!add_entry(r, NULL, 0, NULL, 0, 0)) return stream_oom(r, NULL);
            r->root_listed = true;
        }
        return COAX_OK;
    }
    sframe *parent = &r->frames[r->depth - 1];
    /* Its pointer (the errors under it give way), before the parent counts it. */
    const char *ptr = NULL;
    if (r->o.schema && r->nerrors && !(ptr = frame_ptr(r, r->depth))) return stream_oom(r, NULL);
    if (!append_raw(r, parent, &v)) return stream_oom(r, NULL);
    parent->key_ready = false;
    /* Its children's entries give way to its own (with a schema, once its
    ** coerced value is known, before any partial shows the list). */
    if (!r->o.schema || complete_child_final(parent)) entries_cut(r, f->entries_from);
    if (r->o.schema) complete_unpend(r, r->depth, ptr, f->plen);
    return child_closed(r, r->depth - 1);
}

void tree_free(stream_reader *r)
{
    for (size_t d = 0; d < r->depth; d++) {
        sframe *f = &r->frames[d];
        coax_free_raw(r->alloc, f->keyslots, f->keymask ? (f->keymask + 1) * sizeof *f->keyslots : 0);
    }
    r->depth = 0;
    coax_free_raw(r->alloc, r->frames, r->framecap * sizeof *r->frames);
    r->frames = NULL;
    r->framecap = 0;
}

/* ---- the partial ---------------------------------------------------------- */

/* The pointer of child 'key' (NULL: item 'index') of the container at
** 'parent' (plen bytes), in r->ip: the last one built when it points to the
** same part; for the key being read ('reading'), the last one with the key's
** bytes read since escaped after it. NULL without memory. */
static const char *ip_pointer(stream_reader *r, const char *parent, size_t plen, const char *key, size_t klen,
                              size_t index, bool reading)
{
    coax_buf *b = &r->ip;
    bool same = r->ip_parent == parent && r->ip_plen == plen && r->ip_scalar == (reading ? r->scalars : 0);
    if (same && !reading)
        same = key ? r->ip_key == key && r->ip_klen == klen : !r->ip_key && r->ip_index == index;
    if (same && reading && r->ip_klen > klen) same = false; /* cannot happen: a key only grows */
    if (!same) {
        b->len = 0;
        coax_buf_put(b, parent, plen);
        coax_buf_putc(b, '/');
        if (!key) {
            char num[24];
            coax_buf_put(b, num, coax_decimal(num, index));
        }
        r->ip_parent = parent, r->ip_plen = plen, r->ip_key = reading ? NULL : key, r->ip_index = index;
        r->ip_scalar = reading ? r->scalars : 0;
        r->ip_klen = 0;
    }
    if (key) {
        for (size_t i = r->ip_klen; i < klen; i++) {
            if (key[i] == '~' || key[i] == '/') {
                coax_buf_putc(b, '~');
                coax_buf_putc(b, key[i] == '~' ? '0' : '1');
            } else {
                coax_buf_putc(b, key[i]);
            }
        }
        r->ip_klen = klen;
    }
    if (!coax_buf_reserve(b, 1) || b->oom) {
        r->ip_parent = NULL; /* built again next time */
        return NULL;
    }
    b->data[b->len] = '\0';
    return b->data;
}

/* r->ip_scalar when r->ip holds a frame's pointer whole. */
#define IP_WHOLE UINT64_MAX

/* Frame pointer 'fp' (plen bytes) as a string of its own: it may be a
** prefix of its child's (frame_ptr). In r->ip, copied once for partials
** that wait at the same place, or NULL without memory. */
static const char *whole(stream_reader *r, const char *fp, size_t plen)
{
    if (!fp[plen]) return fp;
    coax_buf *b = &r->ip;
    if (r->ip_parent == fp && r->ip_plen == plen && r->ip_scalar == IP_WHOLE) return b->data;
    b->len = 0;
    coax_buf_put(b, fp, plen);
    r->ip_parent = NULL; /* built again next time */
    if (!coax_buf_reserve(b, 1) || b->oom) return NULL;
    b->data[b->len] = '\0';
    r->ip_parent = fp, r->ip_plen = plen, r->ip_scalar = IP_WHOLE;
    return b->data;
}

/* The pointer of the part being written, or NULL (r->ip: valid until the
** next partial). */
static const char *in_progress(stream_reader *r, bool *is_string)
{
    *is_string = false;
    if (r->depth == 0 || r->ended) return NULL;
    sframe *f = &r->frames[r->depth - 1];
    bool held = r->held.type != 0xFF;
    const char *fp = frame_ptr(r, r->depth - 1);
    if (!fp) return NULL;
    if (r->scalar == SC_KEY) return ip_pointer(r, fp, f->plen, r->text.data ? r->text.data : "", r->text.len, 0, true);
    if (r->scalar == SC_NONE && !held && !(f->object && f->key_ready)) return whole(r, fp, f->plen);
    *is_string = r->scalar == SC_STRING || (held && r->held.type == COAX_STRING);
    return ip_pointer(r, fp, f->plen, f->object ? f->key : NULL, f->klen, f->nraw, false);
}

static bool is_atomic(const stream_reader *r, const char *ptr)
{
    for (size_t i = 0; i < r->o.natomic; i++)
        if (r->o.atomic[i] && strcmp(r->o.atomic[i], ptr) == 0) return true;
    return false;
}

/* The value shown: the open containers, each with its complete children
** and the one in progress (an item only when every item before it shows). */
static coax_value *spine(stream_reader *r, coax_arena *a, bool show_string)
{
    coax_value child;
    bool have = false;
    if (show_string) {
        if (r->held.type == COAX_STRING) {
            child = r->held;
        } else {
            if (!coax_buf_reserve(&r->text, 1)) return NULL;
            r->text.data[r->text.len] = '\0';
            child = (coax_value){.type = COAX_STRING, .len = (uint32_t)r->text.len, .u.text = r->text.data};
        }
        have = true;
    }
    for (size_t d = r->depth; d-- > 0;) {
        sframe *f = &r->frames[d];
        /* An item shows only at its own index: after hidden siblings (not
        ** complete yet) it would take the place of one of them. */
        if (have && !f->object && f->nshown != f->nraw) have = false;
        if (have && !shown_room(r, f, f->nshown + 1)) return NULL;
        if (have) {
            if (f->object)
                ((coax_member *)f->shown)[f->nshown] = (coax_member){f->key, (uint32_t)f->klen, child};
            else
                ((coax_value *)f->shown)[f->nshown] = child;
        }
        coax_value v = {.type = (uint8_t)(f->object ? COAX_OBJECT : COAX_ARRAY),
                        .len = (uint32_t)(f->nshown + (have ? 1 : 0))};
        if (f->object) v.u.members = f->shown;
        else v.u.items = f->shown;
        child = v;
        have = true;
    }
    coax_value *out = coax_arena_alloc(a, sizeof *out);
    if (out) *out = child;
    return out;
}

/* The bytes of the pointer of child 'index' (member 'key', else the item)
** under a parent pointer of 'plen' bytes, escapes aside. */
static size_t pointer_len(size_t plen, const char *key, size_t klen, size_t index)
{
    char num[24];
    return plen + 1 + (key ? klen : coax_decimal(num, index));
}

/* The pointers this partial builds (the parts listed since the last one),
** with those built before, are held to max_input: each repeats its part's
** whole path, so n parts under a long key took n times its length (8,000
** items under an 8,000-byte key, a reply of 32 KB: a list of 64 MB). */
static coax_code list_within(stream_reader *r, coax_error *err)
{
    size_t n = 0, parts = 0, longest = 0;
    for (size_t i = 0; i < r->npending; i++) {
        const spending *p = &r->pending[i];
        const sframe *f = &r->frames[p->depth];
        if (!frame_ptr(r, p->depth)) return stream_oom(r, err);
        const coax_member *m = f->object ? (const coax_member *)f->raw + p->index : NULL;
        size_t len = pointer_len(f->plen, m ? m->key : NULL, m ? m->klen : 0, p->index);
        n += len, parts++, longest = len > longest ? len : longest;
    }
    for (size_t i = r->nptrs; i < r->nentries; i++) {
        const sentry *e = &r->entries[i];
        if (e->text || !e->parent) continue;
        size_t len = pointer_len(e->plen, e->key, e->klen, e->index);
        n += len, parts++, longest = len > longest ? len : longest;
    }
    if (n > r->lim.max_input - r->list_bytes)
        return stream_limit(r, COAX_ESIZE, err, "the complete list's JSON Pointers passed %zu bytes (max_input): "
                            "each repeats its part's path (%zu parts new in this partial, pointers up to %zu bytes)",
                            r->lim.max_input, parts, longest);
    r->list_bytes += n;
    return COAX_OK;
}

coax_code stream_partial_get(stream_reader *r, coax_arena *arena, stream_partial *out, coax_error *err)
{
    if (!r || !arena || !out) return coax_fail(err, COAX_EINVAL, 0, "stream_partial_get: NULL argument");
    memset(out, 0, sizeof *out);
    if (r->failed) {
        if (err) *err = r->fail_err;
        return r->failed;
    }
    /* The root first: when it is valid, the parts pending need no values
    ** of their own (its extraction gives them). */
    if (list_within(r, err)) return r->failed;
    if (r->root_pending) {
        r->root_pending = false;
        coax_code rc = complete_root(r, err);
        if (rc) return rc;
    }
    if (r->o.schema && r->npending) {
        coax_code rc = complete_settle(r, err);
        if (rc) return rc;
        for (size_t i = 0; i < r->npending; i++) {
            const spending *p = &r->pending[i];
            if (show(r, p->depth, p->index, p->value, p->ptr)) return stream_oom(r, err);
        }
        r->npending = 0;
    }
    if (r->root_errors_pending) {
        coax_code rc = complete_root_errors(r, err);
        if (rc) return rc;
    }
    bool is_string = false;
    const char *ip = in_progress(r, &is_string);
    if (r->depth && r->ended == false && r->depth && !ip) return stream_oom(r, err);
    if (r->ended && !r->root_listed) { /* the root as its complete members show it */
        sframe *f = &r->frames[0];
        r->root_shown.len = (uint32_t)f->nshown;
        if (f->object) r->root_shown.u.members = f->shown;
        else r->root_shown.u.items = f->shown;
    }
    if (r->ended) out->value = r->root_listed ? r->root : &r->root_shown;
    else if (r->depth) {
        out->value = spine(r, arena, is_string && !is_atomic(r, ip));
        if (!out->value) return stream_oom(r, err);
    }
    /* The complete list: pointers are built the first time they are shown;
    ** the ones a partial listed before are in place already. */
    if (!stream_grow(r, (void **)&r->ptrs, &r->ptrcap, r->nentries + 1, sizeof *r->ptrs)) return stream_oom(r, err);
    for (size_t i = r->nptrs; i < r->nentries; i++) {
        sentry *e = &r->entries[i];
        if (!e->text) {
            e->text = e->parent ? stream_pointer(r->ar, e->parent, e->plen, e->key, e->klen, e->index, NULL) : "";
            if (!e->text) return stream_oom(r, err);
        }
        r->ptrs[i] = e->text;
    }
    r->nptrs = r->nentries;
    out->complete = r->ptrs;
    out->ncomplete = r->nentries;
    out->in_progress = ip;
    out->errors.valid = r->nerrors == 0;
    out->errors.errors = r->errors;
    out->errors.nerrors = r->nerrors;
    out->doomed = r->doomed;
    out->stopped = r->stopped;
    out->ended = r->ended;
    r->changed = false;
    return COAX_OK;
}

coax_code stream_partial_write(const stream_partial *p, coax_buf *out)
{
    if (!p || !out) return COAX_EINVAL;
    coax_buf_puts(out, "{\"partial\": ");
    if (p->value) {
        coax_code rc = coax_write_buf(out, p->value, 0);
        if (rc) return rc;
    } else {
        coax_buf_puts(out, "null");
    }
    coax_buf_puts(out, ", \"complete\": [");
    for (size_t i = 0; i < p->ncomplete; i++) {
        if (i) coax_buf_puts(out, ", ");
        coax_buf_put_json_string(out, p->complete[i], strlen(p->complete[i]));
    }
    coax_buf_puts(out, "], \"in_progress\": ");
    if (p->in_progress) coax_buf_put_json_string(out, p->in_progress, strlen(p->in_progress));
    else coax_buf_puts(out, "null");
    if (p->errors.nerrors) {
        coax_buf_puts(out, ", \"errors\": [");
        for (size_t i = 0; i < p->errors.nerrors; i++) {
            const coax_schema_error *e = &p->errors.errors[i];
            if (i) coax_buf_puts(out, ", ");
            coax_buf_puts(out, "{\"instanceLocation\": ");
            coax_buf_put_json_string(out, e->instance_location, strlen(e->instance_location));
            coax_buf_puts(out, ", \"keywordLocation\": ");
            coax_buf_put_json_string(out, e->keyword_location, strlen(e->keyword_location));
            coax_buf_puts(out, ", \"error\": ");
            coax_buf_put_json_string(out, e->message, strlen(e->message));
            coax_buf_putc(out, '}');
        }
        coax_buf_putc(out, ']');
    }
    if (p->doomed) coax_buf_puts(out, ", \"doomed\": true");
    if (p->stopped) coax_buf_puts(out, ", \"stopped\": true");
    coax_buf_putc(out, '}');
    return out->oom ? COAX_ENOMEM : COAX_OK;
}
