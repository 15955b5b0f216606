/*
** lenient.c: the lenient parser (lenient.h; strings are read by
** lenient_string.c, numbers and bare words by lenient_word.c, spaces and
** comments by lenient_space.c).
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
#include "repair/lenient_token.h"
#include "json/copy_input.h"
#include "base/bytes.h"

/* ---- spaces ------------------------------------------------------------- */

/* Skips whitespace, comments and Unicode spaces, logging what is not JSON. */
static inline void skip_space(lp *ps)
{
    const char *p = ps->p, *e = ps->e;
    /* the common case: no space (or the text's end, where the slow way
    ** has nothing to skip either) */
    if (p >= e || !space_start[(unsigned char)*p]) return;
    if (ws_tab[(unsigned char)*p] && !ps->viewed) { /* or a space or two */
        p++;
        if (p < e && ws_tab[(unsigned char)*p]) p = skip_ws_run(p + 1, e);
        ps->p = p;
        if (p >= e || !space_start[(unsigned char)*p]) return;
    }
    lp_skip_space_slow(ps);
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

/* The depth is input: an explicit stack; out of memory, no sure reading.
** A scalar holds no container a closer could end: its text is no list of
** values to walk (a number's, read as items, ran past it: [1] 2 }). */
bool repair_stray_closer_moves(coax_arena *a, const coax_value *v, const char *stray, size_t n)
{
    bool obj = memchr(stray, '}', n) != NULL, arr = memchr(stray, ']', n) != NULL;
    if ((!obj && !arr) || (v->type != COAX_OBJECT && v->type != COAX_ARRAY)) return false;
    /* Closers of one kind: the brackets of the other kind still pair, so a
    ** closer moved is one no bracket of the other kind holds, on a path of
    ** its kind from v (v's own last closer among them). */
    bool chain = obj != arr;
    if (chain && (v->type == COAX_OBJECT) != obj) return false;
    size_t cap = 16, depth = 0;
    const coax_value **stack = coax_arena_alloc(a, cap * sizeof *stack);
    if (!stack) return true;
    stack[depth++] = v;
    while (depth) {
        const coax_value *c = stack[--depth];
        bool same = c->type == COAX_OBJECT ? obj : arr;
        if (chain && !same) continue;
        for (size_t i = 0; i < c->len; i++) {
            const coax_value *k = c->type == COAX_OBJECT ? &c->u.members[i].value : &c->u.items[i];
            if (k->type != COAX_OBJECT && k->type != COAX_ARRAY) continue;
            if (same && k->type == c->type && i + 1 < c->len) return true;
            if (depth == cap) {
                const coax_value **grown = coax_arena_alloc(a, 2 * cap * sizeof *grown);
                if (!grown) return true;
                memcpy(grown, stack, depth * sizeof *grown);
                stack = grown, cap *= 2;
            }
            stack[depth++] = k;
        }
    }
    return false;
}

static const char citation_detail[] =
    "a number in brackets after a list, the line's last: a citation's mark, or another list? which is a guess";
static const char row_or_footnote_detail[] =
    "a number in brackets starting a line, words but no label after it: a footnote's mark, or another row?";
static const char trailing_comma_detail[] =
    "a comma after the value at the end of the reply or its block: an item of a list followed it, or was cut "
    "off, so the value is one item of a larger structure";

/* Logs the text ignored after the last value, from 'at'; closers among
** stray[0..end) that could be the value's own make it a guess, as the end
** of one of its strings with its closer after it does (repair_string_tail_after). */
static void note_trailing(lp *ps, rvalues *out, const char *at, const char *stray, const char *end,
                          const char *vs)
{
    rvalue *last = &out->v[out->n - 1];
    bool tail = vs && repair_string_tail_after(last->value, vs, at, at, ps->e);
    if (tail || repair_stray_closer_moves(ps->arena, last->value, stray, (size_t)(end - stray))) {
        if (tail) rlog_append(ps->log, RK_TRAILING_TEXT, repair_string_tail_detail, COAX_CLASS_INVENTED, off(ps, at));
        else rlog_add_class(ps->log, RK_TRAILING_TEXT, COAX_CLASS_INVENTED, off(ps, stray));
        last->log_to = ps->log->n; /* the value's own log: the guess is its */
        last->invented = true;
        last->value->flags |= COAX_VF_INVENTED;
    } else {
        note(ps, RK_TRAILING_TEXT, at);
    }
}

/* Whether the brace at p, in an object 'top' inside a list, opens a member whose key the object holds
** already ([{"i": 1, {"i": 2}]): a record after one whose '}' was lost, the one reading. A new key
** ([{"k": "x",{ "note": "y"}]) is that, or the object's own member behind a brace typed once too often. */
static bool brace_repeats_key(const lp *ps, const lopen *top, const char *p)
{
    const char *k = p + 1, *e = ps->e;
    while (k < e && k - p < 64 && ws_tab[(unsigned char)*k]) k++;
    if (k >= e || *k != '"') return false;
    const char *name = ++k;
    while (k < e && k - name < 256 && *k != '"' && *k != '\\') k++;
    if (k >= e || *k != '"') return false;
    size_t n = (size_t)(k - name);
    for (const char *m = ps->kids + top->base; m < ps->kid_top; m += sizeof(coax_member)) {
        const coax_member *mm = (const coax_member *)m;
        if (mm->klen == n && !memcmp(mm->key, name, n)) return true;
    }
    return false;
}

/* ---- the state machine --------------------------------------------------- */

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
        if (ps->nopens && ps->fast && (rc = lp_fast_stretch(ps))) return rc;
        p = ps->p;
        skip_space(ps);
        /* Past a comment (the fast way stops at one), mostly a key or a
        ** value it takes follows: its way again. */
        if (ps->p != p && ps->nopens && ps->fast) continue;
        p = ps->p;
        if (p >= e || ((*p == '`' || *p == '~') && ps->nopens && lp_fence_ends_value(ps, p))) {
        text_ends: /* p: the text's end, or a fence that ends the value */
            if (ps->nopens == 0) return COAX_OK;
            ps->truncated = true;
            /* Brackets missing at the very end after a complete member or
            ** item have one reading; after a key, a comma or a string cut
            ** off, what is closed was still being written. */
            /* After a bracket was replaced or inserted, the one missing at
            ** the end could have been missing elsewhere. */
            /* So could one that a closing bracket's layout places
            ** further in than the bracket it closed, or one whose
            ** container the layout ends before a member; and a
            ** container whose last value starts it over may be the
            ** reply's restart, not nested; and a key unquoted on its
            ** own line after quoted ones may be prose past the brace. */
            /* And so could one whose closer a comment inside it held, or a list
            ** whose bracket may have been typed once too often: the only one
            ** open, holding one value, or one holding a list opened right
            ** after its bracket. Or a string inside held their closers
            ** after its text: its quote may have been lost before them. */
            coax_class cls = class_if(ps->st != ST_AFTER || ps->inv_any || ps->bracket_fixed ||
                                      lp_closer_commented(ps) || lp_closer_dedented(ps) || lp_open_layout(ps) ||
                                      lp_open_restarts(ps) || lp_open_key_style(ps) ||
                                      (ps->nopens == 1 && lp_open_stray(ps, p)) || lp_open_doubled(ps) ||
                                      lp_open_two_ways(ps, p) || lp_open_line_item(ps));
            while (ps->nopens) {
                if ((rc = lp_close_top(ps, &v, true))) return rc;
                note_as(ps, RK_CLOSED_BRACKET, cls, p);
                if (cls == COAX_CLASS_INVENTED) v.flags |= COAX_VF_INVENTED;
                if (ps->nopens && (rc = put_kid(ps, &ps->opens[ps->nopens - 1], &v))) return rc;
            }
            *root = v;
            *got = true;
            return COAX_OK;
        }
        c = *p;
        size_t ell = c == '.' || c == '\xE2' ? lp_ellipsis_at(p, e) : 0;
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
                if ((rc = lp_handle_close(ps, c, &v))) return rc;
                goto have_value;
            }
            if (c == ',') {
                note(ps, RK_EXTRA_COMMA, p);
                ps->p++;
                continue;
            }
            if (c == '{' && ps->nopens > 1 && !ps->opens[ps->nopens - 2].object) {
                /* [{"i":1,{"i":2}]: the first object's '}' is missing; but
                ** closing one with nothing in it ([{ {"i":2}]: a doubled
                ** brace?) makes up an empty object */
                bool empty = ps->kid_top == ps->kids + top->base;
                if (ps->comma) note(ps, RK_TRAILING_COMMA, ps->comma);
                note_as(ps, RK_MISSING_BRACKET,
                        class_if(empty || lp_string_ends_with(ps, p, '}') || !brace_repeats_key(ps, top, p)), p);
                if ((rc = lp_close_top(ps, &v, false))) return rc;
                if (empty) v.flags |= COAX_VF_INVENTED;
                goto have_value;
            }
            /* a key: p on its first byte, top its object */
            {
                coax_value key;
                size_t koff = off(ps, p);
                const char *after;
                if ((*p == '"' || *p == '\'') &&
                    (after = lp_plain_string(ps, p, e, ps->lim.max_string, CTX_KEY, &key))) {
                    ps->p = after;
                } else if (quote_at(p, e, &q)) {
                    if ((rc = lp_parse_string(ps, CTX_KEY, &key))) return rc;
                } else {
                    int what;
                    if ((rc = lp_parse_word(ps, CTX_KEY, &key, &what))) return rc;
                    if (what != W_VALUE) continue;
                }
                if ((rc = push_key(ps, &key, koff))) return rc;
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
                lp_fill_null(ps);
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
                if ((rc = lp_handle_close(ps, c, &v))) return rc;
                goto have_value;
            }
            if (c == '{' && top->object && ps->nopens > 1 && !ps->opens[ps->nopens - 2].object) {
                /* [{"i":1{"i":2}]; but an empty one next ([{"i":1{} {"i":2}]) may be a brace
                ** typed once too often, its '}' the first object's */
                const char *r = p + 1;
                while (r < e && r - p < 64 && ws_tab[(unsigned char)*r]) r++;
                bool empty = r < e && *r == '}';
                note_as(ps, RK_MISSING_BRACKET, class_if(empty), p);
                if ((rc = lp_close_top(ps, &v, false))) return rc;
                if (empty) v.flags |= COAX_VF_INVENTED;
                goto have_value;
            }
            if (c == ':' || c == ';' || c == '=' || c == ')' || c == '+') {
                note(ps, RK_SKIPPED_CHARACTER, p);
                ps->p++;
                continue;
            }
            note_as(ps, RK_MISSING_COMMA, class_if(!lp_missing_comma_clear(ps, top, p)), p);
            if (!top->object) lp_line_item(ps, top, p);
            ps->st = top->object ? ST_KEY : ST_VALUE;
            ps->comma = NULL;
            continue;
        default: /* ST_VALUE */
            break;
        }
    value: /* ST_VALUE: p on the value's first byte, top its container (NULL: none) */
        if (c == '{' || c == '[') {
            if ((rc = lp_push_open(ps, c == '{'))) return rc;
            ps->p++;
            ps->st = c == '{' ? ST_KEY : ST_VALUE;
            ps->comma = NULL;
            continue; /* mostly a key or an item follows: fast_stretch's */
        }
        if (c == '}' || c == ']') {
            if (!top) {
                note(ps, RK_SKIPPED_CHARACTER, p);
                ps->p++;
                continue;
            }
            if (!top->object && ps->comma) note(ps, RK_TRAILING_COMMA, ps->comma);
            if ((rc = lp_handle_close(ps, c, &v))) return rc;
            goto have_value;
        }
        if (c == ',') {
            if (top && top->object) { /* "a": , -> null */
                note(ps, RK_MISSING_VALUE, p);
                lp_fill_null(ps);
                ps->st = ST_AFTER;
                continue;
            }
            if (!top) {
                note(ps, RK_SKIPPED_CHARACTER, p);
            } else {
                /* [1,,2], [,1] and [1,,]: a hole, where an item was left
                ** out (as JavaScript reads it: [1,,] has two items) or a
                ** comma typed twice: which item sits at which place, or
                ** how many items the list has, is a guess. */
                note_as(ps, RK_EXTRA_COMMA, COAX_CLASS_INVENTED, p);
            }
            ps->p++;
            continue;
        }
        int ctx = top && top->object ? CTX_OBJVAL : CTX_OTHER;
        if (quote_at(p, e, &q)) {
            if (e - p >= 3 && p[1] == c && p[2] == c && top) { /* """...""", '''...''', ```...``` */
                bool ok;
                if ((rc = c == '`' ? lp_parse_fenced(ps, &v, &ok, !top->object) : lp_parse_triple(ps, &v, &ok))) return rc;
                if (ok) goto have_value;
                if (c == '`' && lp_fence_ends_value(ps, p)) goto text_ends; /* {"b":⍽``` straight from the colon */
            }
            const char *after;
            if ((c == '"' || c == '\'') && (after = lp_plain_string(ps, p, e, ps->lim.max_string, ctx, &v)))
                ps->p = after;
            else if ((rc = lp_parse_string(ps, ctx, &v))) return rc;
            /* No '+' can follow: what the look for one below would find. */
            if (ps->p >= e || (!space_start[(unsigned char)*ps->p] && *ps->p != '+')) goto have_value;
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
            if (lp_json_number(ps, e, ctx, &v)) goto have_value;
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
        if ((rc = put_kid(ps, top, &v))) return rc;
        ps->st = ST_AFTER;
        ps->comma = NULL;
        if (top->paren) close_parens(ps, &top->paren);
        /* mostly a comma and the next key or item follow: fast_stretch's */
    }
}

/* lp_carve's first piece, taken with the copy of the text (an arena call
** less): twice the text, 256 bytes to 64 KB, as the containers a broken
** reply makes take more than its text (a member of 32 bytes every 27 bytes
** of the bench's replies) and a second piece would cost a call more and as
** much memory again. */
static size_t first_piece(size_t span)
{
    return span < 128 ? 256 : span < ((size_t)32 << 10) ? 2 * span : (size_t)64 << 10;
}

/* The second copy of the text (lp_text's), its NUL and padding, the piece
** after it 8-byte aligned. */
static size_t copy_size(size_t span)
{
    return (span + 1 + SCAN_PAD + 7) & ~(size_t)7;
}

size_t repair_parse_memory(size_t span)
{
    return copy_size(span) + first_piece(span);
}

coax_code repair_parse(coax_arena *arena, const coax_limits *lim, const char *text, size_t start,
                       size_t end, const char *shift, const char *orig, rlog *log, rvalues *out, coax_error *err)
{
    lp ps;
    memset(&ps, 0, offsetof(lp, fences));
    ps.fences.ready = false;
    ps.kids = ps.kid_top = ps.first_kids;
    ps.ckids = sizeof ps.first_kids;
    ps.kid_last = ps.kids + ps.ckids - sizeof(coax_member);
    ps.opens = ps.first_opens;
    ps.copens = sizeof ps.first_opens / sizeof *ps.first_opens;
    ps.arena = arena;
    ps.alloc = coax_arena_allocator(arena);
    ps.b = shift ? shift : text + start;
    ps.p = ps.b;
    ps.e = ps.b + (end - start);
    ps.base = start;
    ps.bias = (uintptr_t)ps.b - start;
    ps.exact = !shift;
    ps.fast = end - start <= lim->max_string;
    ps.layout_look = 2 * (size_t)(end - start);
    size_t span = end - start, piece = first_piece(span);
    ps.lim = *lim;
    ps.log = log;
    ps.err = err;
    coax_buf_init(&ps.sb, ps.alloc);
    coax_code rc = COAX_OK;
    bool first = true;
    const char *last_start = NULL; /* where the last value read starts */
    size_t log_from = log->n; /* the entries this parse adds */
    /* The text the parser reads: the strict parser's copy, its NUL and
    ** padding (the fast way's readers look a byte or a block past a token
    ** without asking for the end: they read the NUL there), and whether
    ** the text is valid UTF-8 in the same pass; on the stack for most
    ** replies, else a loan (a call each way, some 150 instructions), given
    ** back at the end: a text's worth of the arena more for every parse
    ** kept a large text's working set out of the caches. A second copy of
    ** it, in the arena, takes the tokens' texts (lp_text), whose NULs would
    ** hide the delimiters read after them (copy_size). */
    size_t copied = copy_size(span);
    _Alignas(16) char small[4096];
    char *read = copied <= sizeof small ? small : coax_alloc_raw(ps.alloc, copied);
    ps.copy = read ? coax_arena_alloc(arena, copied + piece) : NULL;
    if (ps.copy) {
        ps.utf8 = coax_json_copy_input_twin(read, ps.copy, ps.b, span);
        const char *own = shift ? shift : orig + start; /* the reply's bytes: plain tokens' text (lp_text) */
        if ((ps.viewed = own != ps.b)) { /* the fast way passes spaces without a look at what they were */
            memcpy(ps.copy, own, span);
            ps.fast = false;
        }
        ps.to_orig = (uintptr_t)own - (uintptr_t)read;
        ps.b = ps.p = read;
        ps.e = read + span;
        ps.bias = (uintptr_t)read - start;
        ps.to_copy = (uintptr_t)ps.copy - (uintptr_t)read;
        ps.pool = ps.copy + copied;
        ps.pool_left = piece;
    } else {
        rc = nomem(&ps);
    }
    ps.next_piece = piece < ((size_t)64 << 10) ? 2 * piece : piece;
    while (!rc) {
        size_t from = log->n; /* leading comments belong to the value */
        skip_space(&ps);
        /* a, b or NDJSON; a stray closer between values ("{...}} {...}")
        ** does not hide the value after it */
        const char *stray = ps.p;
        while (!first && ps.p < ps.e && (*ps.p == ',' || *ps.p == '}' || *ps.p == ']')) {
            ps.p++;
            skip_space(&ps);
        }
        if (ps.p >= ps.e) {
            if (!first && stray < ps.e) { /* {"a": 1}}: dropped, and said so in the value's log */
                log->n = from;
                const char *comma = repair_comma_at_end(stray, ps.e);
                rvalue *last = &out->v[out->n - 1];
                if (comma) { /* {"a": 1},: one item of a list, the rest after it lost */
                    rlog_append(log, RK_TRAILING_TEXT, trailing_comma_detail, COAX_CLASS_INVENTED, off(&ps, comma));
                    last->invented = true;
                    last->value->flags |= COAX_VF_INVENTED;
                } else {
                    note_trailing(&ps, out, stray, stray, ps.e, NULL);
                }
                last->log_to = log->n;
            }
            break;
        }
        /* a fence after the values closes a block never opened ({...}⏎```): the reply's end, not a
        ** template literal that fails the whole text */
        /* {...} [1], a line's [1] Source: ...: a citation's or a footnote's mark, prose; [1, 2] [3] on
        ** one line: that or a second list, a guess */
        bool cited = !first && *ps.p == '[' &&
                     (repair_citation_at(ps.b, ps.p, ps.e, true) || repair_footnote_at(ps.b, ps.p, ps.e) ||
                      repair_field_marker_at(ps.p, ps.e)); /* {...}⏎[[ ## completed ## ]]: DSPy's next field */
        bool cited_list = cited && coax_blanks_start(ps.b, ps.p)[-1] == ']';
        bool row_or_mark = !first && *ps.p == '[' && repair_row_or_footnote_at(ps.b, ps.p, ps.e);
        cited = cited && !cited_list;
        if (!first && (!repair_value_starts(ps.p, ps.e) || repair_fence_at(ps.p, 0, (size_t)(ps.e - ps.p)) || cited)) {
            log->n = from;
            const char *closers = stray, *closers_end = ps.p; /* or those a remark ends with: {...}} (approx)} */
            if (stray == ps.p) {
                size_t n = repair_remark_closers(ps.p, ps.e, &closers);
                closers_end = closers + n;
            }
            note_trailing(&ps, out, ps.p, closers, closers_end, last_start);
            out->trailing = true;
            break;
        }
        const char *vstart = ps.p;
        coax_value v;
        bool got;
        ps.truncated = false;
        ps.inv_any = ps.bracket_fixed = ps.closer_dedented = ps.at_limit = false;
        ps.line_item = ps.line_looked = ps.pair_list = NULL;
        ps.closers_now = ps.closers; /* the closers waiting are those of the values before */
        if ((rc = parse_one(&ps, &v, &got))) break;
        if (got && repair_closed_early(ps.p, ps.e)) { /* {"a": {"b": 1}}, "c": 2} */
            note(&ps, RK_EARLY_CLOSE, ps.p);
            v.flags |= COAX_VF_INVENTED;
        }
        if (!got) {
            if (ps.p < ps.e) {
                if (first) note(&ps, RK_TRAILING_TEXT, ps.p);
                else note_trailing(&ps, out, ps.p, ps.p, ps.p, last_start);
                out->trailing = true;
            }
            break;
        }
        /* from the parser's pieces, and the list grown only when full: a
        ** call each for every value (some 45 instructions) before */
        coax_value *heap = lp_carve(&ps, sizeof *heap, 8);
        if (!heap || (out->n == out->cap &&
                      !coax_grow(ps.alloc, (void **)&out->v, &out->cap, out->n + 1, sizeof(rvalue), out->first))) {
            rc = nomem(&ps);
            break;
        }
        *heap = v;
        size_t vs = ps.exact ? off(&ps, vstart) : start, ve = ps.exact ? off(&ps, ps.p) : start;
        out->v[out->n++] = (rvalue){heap, vs, ve, !ps.truncated, ps.inv_any, ps.at_limit, from, log->n};
        last_start = vstart;
        if (cited_list || row_or_mark) {
            rlog_append(log, RK_TRAILING_TEXT, row_or_mark ? row_or_footnote_detail : citation_detail,
                        COAX_CLASS_INVENTED, off(&ps, vstart));
            out->v[out->n - 1].invented = true;
            heap->flags |= COAX_VF_INVENTED;
            out->v[out->n - 1].log_to = log->n;
        }
        first = false;
    }
    if (!rc && (log->oom || ps.sb.oom)) rc = nomem(&ps);
    if (!ps.exact) { /* off()'s offsets are in the unescaped copy: its span's start stands for all of them */
        for (size_t i = log_from; i < log->n; i++) log->e[i].offset = start;
        if (rc && err) err->offset = start;
    }
    if (ps.sb.data) coax_buf_free(&ps.sb); /* most parses decode no string: nothing to free, no call */
    if (ps.kids != ps.first_kids) coax_free_raw(ps.alloc, ps.kids, ps.ckids);
    if (ps.opens != ps.first_opens) coax_free_raw(ps.alloc, ps.opens, ps.copens * sizeof(lopen));
    if (read != small) coax_free_raw(ps.alloc, read, copied);
    return rc;
}
