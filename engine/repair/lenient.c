/*
** lenient.c: the lenient parser (lenient.h; strings are read by
** lenient_string.c, numbers and bare words by lenient_word.c).
**
** A state machine over an explicit stack (nesting is input-controlled), in
** the shape of the strict parser, that accepts what language models write
** instead of JSON and logs every fix: comments, trailing/missing commas and
** colons, unquoted keys and strings, other quote styles, unescaped inner
** quotes, raw control characters, Python and JavaScript literals, numbers in
** other notations, ellipses, JSONP wrappers, truncation (open strings,
** arrays and objects are closed; a dangling key is dropped), mismatched
** brackets and invalid UTF-8. Each byte is looked at a bounded number of
** times, so time is linear in the input.
*/
#include "repair/lenient.h"
#include "repair/bytes.h"

/* ---- spaces and comments ------------------------------------------------- */

/* A Unicode space outside strings: returns its byte length, or 0. */
static size_t unicode_space(const char *p, const char *e, bool *bom)
{
    uint32_t cp;
    size_t n = coax_utf8_decode((const unsigned char *)p, (size_t)(e - p), &cp);
    if (!n) return 0;
    *bom = cp == 0xFEFF;
    if (cp == 0xA0 || cp == 0x1680 || cp == 0x180E || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x2028 ||
        cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF)
        return n;
    return 0;
}

/* Bytes that may begin whitespace or a comment outside strings. */
static const uint8_t space_start[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1, ['\v'] = 1, ['/'] = 1, ['#'] = 1,
    [0xC2] = 1, [0xE1] = 1, [0xE2] = 1, [0xE3] = 1, [0xEF] = 1,
};

/* The end of a run of JSON whitespace (ws_tab) at p: indentation runs are
** read sixteen bytes at a time. */
static inline const char *skip_ws_run(const char *p, const char *e)
{
#if BYTES16
    while (e - p >= 16) {
        unsigned other = ~bytes16_space(bytes16_load(p)) & 0xFFFFu;
        if (other) return p + __builtin_ctz(other);
        p += 16;
    }
#endif
    while (p < e && ws_tab[(unsigned char)*p]) p++;
    return p;
}

/* Skips whitespace, comments and Unicode spaces, logging what is not JSON. */
static void skip_space_slow(lp *ps);
static inline void skip_space(lp *ps)
{
    const char *p = ps->p, *e = ps->e;
    if (p < e && !space_start[(unsigned char)*p]) return; /* the common case: no space */
    if (p < e && ws_tab[(unsigned char)*p]) { /* or a space or two */
        p++;
        if (p < e && ws_tab[(unsigned char)*p]) p = skip_ws_run(p + 1, e);
        ps->p = p;
        if (p < e && !space_start[(unsigned char)*p]) return;
    }
    skip_space_slow(ps);
}

static void skip_space_slow(lp *ps)
{
    const char *p = ps->p, *e = ps->e;
    for (;;) {
        p = skip_ws_run(p, e);
        if (p >= e) break;
        if (*p == '/' && p + 1 < e && (p[1] == '/' || p[1] == '*')) {
            note(ps, RK_COMMENT, p);
            if (p[1] == '/') {
                const char *nl = memchr(p, '\n', (size_t)(e - p));
                p = nl ? nl : e;
            } else {
                const char *q = p + 2;
                while (q + 1 < e && !(q[0] == '*' && q[1] == '/')) q++;
                p = q + 1 < e ? q + 2 : e;
            }
            continue;
        }
        if (*p == '#') {
            note(ps, RK_COMMENT, p);
            const char *nl = memchr(p, '\n', (size_t)(e - p));
            p = nl ? nl : e;
            continue;
        }
        if ((unsigned char)*p >= 0x80) {
            bool bom;
            size_t n = unicode_space(p, e, &bom);
            if (n) {
                note(ps, bom ? RK_BYTE_ORDER_MARK : RK_UNICODE_WHITESPACE, p);
                p += n;
                continue;
            }
        }
        break;
    }
    ps->p = p;
}

/* Whether s..t holds nothing but whitespace. */
static bool only_space(const char *s, const char *t)
{
    for (; s < t; s++)
        if (!ws_tab[(unsigned char)*s]) return false;
    return true;
}

/* An ellipsis ("..." or U+2026) at p: its length, or 0. */
static size_t ellipsis_at(const char *p, const char *e)
{
    if (e - p >= 3 && p[0] == '.' && p[1] == '.' && p[2] == '.') {
        size_t n = 3;
        while (p + n < e && p[n] == '.') n++;
        return n;
    }
    if (e - p >= 3 && (unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
        (unsigned char)p[2] == 0xA6)
        return 3;
    return 0;
}

/* ---- containers ---------------------------------------------------------- */

/* Room for 'need' elements of *arr; 'first' is the block it started in
** (inside the parser's state, never freed), or NULL. */
static bool grow(lp *ps, void **arr, size_t *cap, size_t need, size_t elem, void *first)
{
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 32;
    while (ncap < need) ncap *= 2;
    void *p;
    if (*arr && *arr == first) {
        p = coax_alloc_raw(ps->alloc, ncap * elem);
        if (p) memcpy(p, first, *cap * elem);
    } else {
        p = coax_realloc_raw(ps->alloc, *arr, *cap * elem, ncap * elem);
    }
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

static void report_dup(void *ud, size_t index)
{
    lp *ps = ud;
    note(ps, RK_DUPLICATE_KEY, ps->b + (ps->slots[ps->opens[ps->nopens - 1].base + index].koff - ps->base));
}

/* Whether the value about to start belongs to a member whose key was
** guessed (only after an invented repair in this value: the common case
** costs one test). */
static inline bool under_invented_key(const lp *ps)
{
    if (!ps->inv_any || !ps->nopens || !ps->opens[ps->nopens - 1].object) return false;
    return ps->nslots > ps->opens[ps->nopens - 1].base && ps->slots[ps->nslots - 1].invented;
}

/* A value just completed: flagged when an invented repair made it, or it
** lies inside an invented container or under an invented key. */
static inline void flag_value(lp *ps, coax_value *v)
{
    if (!ps->inv_any) return; /* no invented repair in this value yet */
    if (ps->inv || ps->inv_opens || under_invented_key(ps)) v->flags |= COAX_VF_INVENTED;
    ps->inv = false;
}

static coax_code push_open(lp *ps, bool object)
{
    if (ps->nopens >= ps->lim.max_depth)
        return coax_fail(ps->err, COAX_EDEPTH, off(ps, ps->p), "nesting deeper than %zu",
                         ps->lim.max_depth);
    if (!grow(ps, (void **)&ps->opens, &ps->copens, ps->nopens + 1, sizeof(lopen), ps->first_opens))
        return nomem(ps);
    bool invented = ps->inv_any && (ps->inv || ps->inv_opens || under_invented_key(ps));
    ps->opens[ps->nopens++] = (lopen){ps->nslots, object, invented, 0};
    if (invented) {
        ps->inv = false;
        ps->inv_opens++;
    }
    return COAX_OK;
}

static inline coax_code push_slot(lp *ps, const coax_value *key, size_t koff)
{
    /* Past the first block, one sized for the span (a member every 32
    ** bytes, up to 4096), so that a long list is seldom copied as it grows. */
    size_t hint = (size_t)(ps->e - ps->b) / 32;
    if (ps->nslots == ps->cslots &&
        !grow(ps, (void **)&ps->slots, &ps->cslots,
              ps->slots == ps->first_slots && hint > ps->nslots ? (hint < 4096 ? hint : 4096) : ps->nslots + 1,
              sizeof(lslot), ps->first_slots))
        return nomem(ps);
    lslot *s = &ps->slots[ps->nslots++];
    memset(s, 0, sizeof *s);
    if (key) {
        s->m.key = key->u.text;
        s->m.klen = key->len;
        if (key->flags & COAX_VF_INVENTED) s->invented = true;
    }
    s->koff = (uint32_t)koff;
    return COAX_OK;
}

/* null for a member whose value is missing: invented, so flagged. */
static void fill_null(lp *ps)
{
    coax_value *v = &ps->slots[ps->nslots - 1].m.value;
    memset(v, 0, sizeof *v);
    v->type = COAX_NULL;
    v->flags = COAX_VF_INVENTED;
    ps->inv = false;
}

/* Closes the innermost container into 'v'. A key still waiting for its
** value gets null ('at_eof': the key is dropped, the value was cut off). */
static coax_code close_top(lp *ps, coax_value *v, bool at_eof)
{
    lopen *o = &ps->opens[ps->nopens - 1];
    if (o->object && (ps->st == ST_COLON || ps->st == ST_VALUE) && ps->nslots > o->base) {
        if (at_eof) {
            note(ps, RK_DANGLING_KEY, ps->p);
            ps->nslots--;
        } else { /* at the closing bracket just read, if it was read */
            bool read = ps->p > ps->b && (ps->p[-1] == '}' || ps->p[-1] == ']');
            note(ps, RK_MISSING_VALUE, ps->p - read);
            fill_null(ps);
        }
    }
    size_t n = ps->nslots - o->base;
    lslot *kids = ps->slots ? ps->slots + o->base : NULL; /* no slots yet: n is 0 */
    memset(v, 0, sizeof *v);
    if (o->object) {
        coax_member *m = coax_arena_alloc(ps->arena, n * sizeof *m + 1);
        if (!m) return nomem(ps);
        for (size_t i = 0; i < n; i++) m[i] = kids[i].m;
        size_t k = coax_members_dedupe(m, n, ps->alloc, report_dup, ps);
        if (k == SIZE_MAX) return nomem(ps);
        v->type = COAX_OBJECT;
        v->len = k;
        v->u.members = m;
    } else {
        coax_value *items = coax_arena_alloc(ps->arena, n * sizeof *items + 1);
        if (!items) return nomem(ps);
        for (size_t i = 0; i < n; i++) items[i] = kids[i].m.value;
        v->type = COAX_ARRAY;
        v->len = n;
        v->u.items = items;
    }
    if (o->invented) {
        v->flags |= COAX_VF_INVENTED;
        ps->inv_opens--;
    }
    ps->nslots = o->base;
    ps->nopens--;
    ps->st = ST_AFTER;
    return COAX_OK;
}

/* Skips the ')' of function-call wrappers around a finished value. */
static void close_parens(lp *ps, unsigned *paren)
{
    while (*paren) {
        skip_space(ps);
        if (ps->p < ps->e && *ps->p == ')') ps->p++;
        (*paren)--;
    }
    skip_space(ps);
    if (ps->nopens == 0 && ps->p < ps->e && *ps->p == ';') ps->p++;
}

/* A closing bracket 'c' while containers are open: closes the innermost,
** or, when 'c' matches one further out, closes everything up to it. */
static coax_code handle_close(lp *ps, char c, coax_value *v)
{
    bool want_object = c == '}';
    const char *at = ps->p;
    ps->p++;
    if (ps->opens[ps->nopens - 1].object != want_object) {
        size_t k = ps->nopens - 1;
        while (k > 0 && ps->opens[k - 1].object != want_object) k--;
        /* ["a", "b"}, "next": ...: a typo for ']' when the object goes on. */
        const char *r = ps->p;
        while (r < ps->e && ws_tab[(unsigned char)*r]) r++;
        bool object_goes_on = k == ps->nopens - 1 && r < ps->e && *r == ',' &&
                              lp_item_ahead(r + 1, ps->e, CTX_OBJVAL);
        ps->bracket_fixed = true;
        if (k == 0 || object_goes_on) {
            note(ps, RK_MISMATCHED_BRACKET, at);
        } else {
            /* opens[k-1] matches: close everything inside it first. One
            ** level has one reading; several leave open where each ended. */
            coax_class cls = class_if(ps->nopens - k > 1);
            while (ps->nopens > k) {
                note_as(ps, RK_MISSING_BRACKET, cls, at);
                coax_value inner;
                coax_code rc = close_top(ps, &inner, false);
                if (rc) return rc;
                lopen *o = &ps->opens[ps->nopens - 1];
                if (!o->object) {
                    if ((rc = push_slot(ps, NULL, 0))) return rc;
                }
                ps->slots[ps->nslots - 1].m.value = inner;
            }
        }
    }
    return close_top(ps, v, false);
}

/* ---- the state machine --------------------------------------------------- */

/* Whether ST_KEY reads a key at byte c (the loop's checks before it: a
** closing bracket, a comma, an opening brace, an ellipsis). */
static inline bool key_starts(char c)
{
    return c != '}' && c != ']' && c != ',' && c != '{' && c != '.' && c != '\xE2';
}

/* Parses one top-level value from ps->p. '*got' is false when no value
** starts there. */
static coax_code parse_one(lp *ps, coax_value *root, bool *got)
{
    coax_value v;
    coax_code rc;
    const char *p, *e = ps->e;
    char c;
    lopen *top;
    uint32_t q;
    *got = false;
    ps->st = ST_VALUE;
    ps->comma = NULL;
    for (;;) {
        skip_space(ps);
        p = ps->p;
        if (p >= e) {
            if (ps->nopens == 0) return COAX_OK;
            ps->truncated = true;
            /* Brackets missing at the very end after a complete member or
            ** item have one reading; after a key, a comma or a string cut
            ** off, what is closed was still being written. */
            /* After a bracket was replaced or inserted, the one missing at
            ** the end could have been missing elsewhere. */
            coax_class cls = class_if(ps->st != ST_AFTER || ps->inv_any || ps->bracket_fixed);
            while (ps->nopens) {
                if ((rc = close_top(ps, &v, true))) return rc;
                note_as(ps, RK_CLOSED_BRACKET, cls, p);
                if (cls == COAX_CLASS_INVENTED) v.flags |= COAX_VF_INVENTED;
                if (ps->nopens) {
                    if (!ps->opens[ps->nopens - 1].object && (rc = push_slot(ps, NULL, 0))) return rc;
                    ps->slots[ps->nslots - 1].m.value = v;
                }
            }
            *root = v;
            *got = true;
            return COAX_OK;
        }
        c = *p;
        size_t ell = c == '.' || c == '\xE2' ? ellipsis_at(p, e) : 0;
        if (ell && ps->nopens && ps->st != ST_COLON) {
            note(ps, RK_ELLIPSIS, p);
            ps->p += ell;
            continue;
        }
        top = ps->nopens ? &ps->opens[ps->nopens - 1] : NULL;
        switch (ps->st) {
        case ST_KEY:
            if (c == '}' || c == ']') {
                if (ps->comma) note(ps, RK_TRAILING_COMMA, ps->comma);
                if ((rc = handle_close(ps, c, &v))) return rc;
                goto have_value;
            }
            if (c == ',') {
                note(ps, RK_EXTRA_COMMA, p);
                ps->p++;
                continue;
            }
            if (c == '{' && ps->nopens > 1 && !ps->opens[ps->nopens - 2].object) {
                /* [{"i":1,{"i":2}]: the first object's '}' is missing */
                if (ps->comma) note(ps, RK_TRAILING_COMMA, ps->comma);
                note(ps, RK_MISSING_BRACKET, p);
                if ((rc = close_top(ps, &v, false))) return rc;
                goto have_value;
            }
        key: /* p on a key's first byte, top its object */
            {
                coax_value key;
                size_t koff = off(ps, p);
                if (quote_at(p, e, &q)) {
                    if ((rc = lp_parse_string(ps, CTX_KEY, &key))) return rc;
                } else {
                    int what;
                    if ((rc = lp_parse_word(ps, CTX_KEY, &key, &what))) return rc;
                    if (what != W_VALUE) continue;
                }
                if ((rc = push_slot(ps, &key, koff))) return rc;
                ps->st = ST_COLON;
                ps->comma = NULL;
            }
            /* Mostly the colon and the value follow: straight to the value,
            ** as the loop would take them. */
            skip_space(ps);
            p = ps->p;
            if (p < e && *p == ':') {
                ps->p = p + 1;
                ps->st = ST_VALUE;
                skip_space(ps);
                p = ps->p;
                if (p < e && (c = *p) != '.' && c != '\xE2') goto value;
            }
            continue;
        case ST_COLON:
            if (c == ':' || c == '=') {
                if (c == '=') note_as(ps, RK_MISSING_COLON, COAX_CLASS_INFERRED, p);
                ps->p++;
                ps->st = ST_VALUE;
                continue;
            }
            if (c == ',' || c == '}' || c == ']') {
                note(ps, RK_MISSING_VALUE, p);
                fill_null(ps);
                ps->st = ST_AFTER;
                continue;
            }
            note(ps, RK_MISSING_COLON, p);
            ps->st = ST_VALUE;
            continue;
        case ST_AFTER:
            if (c == ',') {
                ps->comma = p;
                ps->p++;
                ps->st = top->object ? ST_KEY : ST_VALUE;
                continue;
            }
            if (c == '}' || c == ']') {
                if ((rc = handle_close(ps, c, &v))) return rc;
                goto have_value;
            }
            if (c == '{' && top->object && ps->nopens > 1 && !ps->opens[ps->nopens - 2].object) {
                note(ps, RK_MISSING_BRACKET, p); /* [{"i":1{"i":2}] */
                if ((rc = close_top(ps, &v, false))) return rc;
                goto have_value;
            }
            if (c == ':' || c == ';' || c == '=' || c == ')' || c == '+') {
                note(ps, RK_SKIPPED_CHARACTER, p);
                ps->p++;
                continue;
            }
            /* "a""b": a doubled quote may be an escape (CSV), not two strings;
            ** and after a string that kept an unescaped quote, where it ended
            ** was itself a guess ("a "b" c" "d": which quote closes?). */
            bool adjacent = p > ps->b && (p[-1] == '"' || p[-1] == '\'') && quote_at(p, e, &q);
            bool after_quoted = ps->quoted_end && ps->quoted_end <= p && only_space(ps->quoted_end, p);
            bool clear = !adjacent && !after_quoted && lp_member_starts(p, e, top->object);
            note_as(ps, RK_MISSING_COMMA, class_if(!clear), p);
            ps->st = top->object ? ST_KEY : ST_VALUE;
            ps->comma = NULL;
            continue;
        default: /* ST_VALUE */
            break;
        }
    value: /* ST_VALUE: p on the value's first byte, top its container (NULL: none) */
        if (c == '{' || c == '[') {
            if ((rc = push_open(ps, c == '{'))) return rc;
            ps->p++;
            ps->st = c == '{' ? ST_KEY : ST_VALUE;
            ps->comma = NULL;
            /* Mostly a key or an item follows at once. */
            top = &ps->opens[ps->nopens - 1];
            skip_space(ps);
            p = ps->p;
            if (p < e && c == '{' && key_starts(*p)) goto key;
            if (p < e && c == '[' && (c = *p) != '.' && c != '\xE2') goto value;
            continue;
        }
        if (c == '}' || c == ']') {
            if (!top) {
                note(ps, RK_SKIPPED_CHARACTER, p);
                ps->p++;
                continue;
            }
            if (!top->object && ps->comma) note(ps, RK_TRAILING_COMMA, ps->comma);
            if ((rc = handle_close(ps, c, &v))) return rc;
            goto have_value;
        }
        if (c == ',') {
            if (top && top->object) { /* "a": , -> null */
                note(ps, RK_MISSING_VALUE, p);
                fill_null(ps);
                ps->st = ST_AFTER;
                continue;
            }
            note(ps, top ? RK_EXTRA_COMMA : RK_SKIPPED_CHARACTER, p);
            ps->p++;
            continue;
        }
        int ctx = top && top->object ? CTX_OBJVAL : CTX_OTHER;
        if (quote_at(p, e, &q)) {
            if (e - p >= 3 && p[1] == c && p[2] == c && top) { /* """...""", '''...''', ```...``` */
                bool ok;
                if ((rc = c == '`' ? lp_parse_fenced(ps, &v, &ok) : lp_parse_triple(ps, &v, &ok))) return rc;
                if (ok) goto have_value;
            }
            if ((rc = lp_parse_string(ps, ctx, &v))) return rc;
            /* "a" + "b": JavaScript string concatenation, joined in one
            ** buffer (copying the growing string each time would be
            ** quadratic). */
            coax_buf joined; /* set up at the first '+' */
            bool concatenated = false;
            for (;;) {
                /* a look past spaces and comments for a '+': when none
                ** follows, the position and the log go back, so the
                ** comments are logged once, where they are skipped */
                const char *save = ps->p;
                size_t logged = ps->log->n;
                skip_space(ps);
                if (ps->p < e && *ps->p == '+') {
                    ps->p++;
                    skip_space(ps);
                    if (ps->p < e && quote_at(ps->p, e, &q)) {
                        coax_value more;
                        note(ps, RK_STRING_CONCATENATION, save);
                        if (!concatenated) {
                            coax_buf_init(&joined, ps->alloc);
                            coax_buf_put(&joined, v.u.text, v.len);
                        }
                        concatenated = true;
                        if ((rc = lp_parse_string(ps, ctx, &more))) {
                            coax_buf_free(&joined);
                            return rc;
                        }
                        coax_buf_put(&joined, more.u.text, more.len);
                        if (joined.len > ps->lim.max_string) {
                            coax_buf_free(&joined);
                            return coax_fail(ps->err, COAX_ESTRING, off(ps, save), "string longer than %zu bytes",
                                             ps->lim.max_string);
                        }
                        continue;
                    }
                }
                ps->p = save;
                ps->log->n = logged;
                break;
            }
            if (concatenated) {
                char *t = joined.oom ? NULL : lp_strdup(ps, joined.data, joined.len);
                v.len = (uint32_t)joined.len;
                coax_buf_free(&joined);
                if (!t) return nomem(ps);
                v.u.text = t;
            }
            goto have_value;
        }
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
            bool ok;
            if ((rc = lp_try_number(ps, ctx, &v, &ok))) return rc;
            if (ok) goto have_value;
        }
        {
            int what;
            if ((rc = lp_parse_word(ps, ctx, &v, &what))) return rc;
            if (what == W_STOP) return COAX_OK;
            if (what == W_CALL) {
                if (top) top->paren++;
                else ps->top_paren++;
            }
            if (what != W_VALUE) continue;
        }
    have_value:
        flag_value(ps, &v);
        if (ps->nopens == 0) {
            close_parens(ps, &ps->top_paren);
            *root = v;
            *got = true;
            return COAX_OK;
        }
        top = &ps->opens[ps->nopens - 1];
        if (!top->object && (rc = push_slot(ps, NULL, 0))) return rc;
        ps->slots[ps->nslots - 1].m.value = v;
        ps->st = ST_AFTER;
        ps->comma = NULL;
        if (top->paren) close_parens(ps, &top->paren);
        /* Mostly a comma and the next key or item follow: straight to
        ** them, as the loop would take them. */
        skip_space(ps);
        p = ps->p;
        if (p < e && *p == ',') {
            ps->comma = p;
            ps->p = p + 1;
            ps->st = top->object ? ST_KEY : ST_VALUE;
            skip_space(ps);
            p = ps->p;
            if (p < e && top->object && key_starts(*p)) goto key;
            if (p < e && !top->object && (c = *p) != '.' && c != '\xE2') goto value;
        }
    }
}

coax_code repair_parse(coax_arena *arena, const coax_limits *lim, const char *text, size_t start,
                       size_t end, const char *shift, rlog *log, rvalues *out, coax_error *err)
{
    lp ps;
    memset(&ps, 0, offsetof(lp, first_slots));
    ps.slots = ps.first_slots;
    ps.cslots = sizeof ps.first_slots / sizeof *ps.first_slots;
    ps.opens = ps.first_opens;
    ps.copens = sizeof ps.first_opens / sizeof *ps.first_opens;
    ps.arena = arena;
    ps.alloc = coax_arena_allocator(arena);
    ps.b = shift ? shift : text + start;
    ps.p = ps.b;
    ps.e = ps.b + (end - start);
    ps.base = start;
    ps.exact = !shift;
    ps.none_from = SIZE_MAX;
    ps.lim = *lim;
    ps.log = log;
    ps.err = err;
    coax_buf_init(&ps.sb, ps.alloc);
    coax_code rc = COAX_OK;
    bool first = true;
    for (;;) {
        size_t from = log->n; /* leading comments belong to the value */
        skip_space(&ps);
        /* a, b or NDJSON; a stray closer between values ("{...}} {...}")
        ** does not hide the value after it */
        while (!first && ps.p < ps.e && (*ps.p == ',' || *ps.p == '}' || *ps.p == ']')) {
            ps.p++;
            skip_space(&ps);
        }
        if (ps.p >= ps.e) break;
        if (!first && !repair_value_starts(ps.p, ps.e)) {
            log->n = from;
            note(&ps, RK_TRAILING_TEXT, ps.p);
            out->trailing = true;
            break;
        }
        const char *vstart = ps.p;
        coax_value v;
        bool got;
        ps.truncated = false;
        ps.inv_any = ps.bracket_fixed = false;
        if ((rc = parse_one(&ps, &v, &got))) break;
        if (got && repair_members_follow(ps.p, ps.e)) { /* {"a": {"b": 1}}, "c": 2} */
            note(&ps, RK_EARLY_CLOSE, ps.p);
            v.flags |= COAX_VF_INVENTED;
        }
        if (!got) {
            if (ps.p < ps.e) {
                note(&ps, RK_TRAILING_TEXT, ps.p);
                out->trailing = true;
            }
            break;
        }
        coax_value *heap = coax_arena_alloc(arena, sizeof *heap);
        if (!heap || !grow(&ps, (void **)&out->v, &out->cap, out->n + 1, sizeof(rvalue), NULL)) {
            rc = nomem(&ps);
            break;
        }
        *heap = v;
        out->v[out->n++] = (rvalue){heap, off(&ps, vstart), off(&ps, ps.p), !ps.truncated, ps.inv_any, from, log->n};
        first = false;
    }
    if (!rc && (log->oom || ps.sb.oom)) rc = nomem(&ps);
    coax_buf_free(&ps.sb);
    if (ps.slots != ps.first_slots) coax_free_raw(ps.alloc, ps.slots, ps.cslots * sizeof(lslot));
    if (ps.opens != ps.first_opens) coax_free_raw(ps.alloc, ps.opens, ps.copens * sizeof(lopen));
    return rc;
}
