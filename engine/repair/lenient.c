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
#include "repair/lenient_token.h"
#include "base/bytes.h"

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

/* skip_space for the fast loop (lenient_fast.c), at a comment before a key. */
void lp_skip_space(lp *ps) { skip_space(ps); }

/* A comment from 'at' to 'end'. One that runs into the end of the text
** inside a value may have swallowed what was meant to follow
** ({"id": 7, "priority": 2 # high, "owner": "bob"}: the owner, and the
** closing brace, were text of the comment): closing what is open after it
** is then a guess. */
static bool only_space(const char *s, const char *t);
static size_t ellipsis_at(const char *p, const char *e);

static inline bool is_alpha_ascii(char c) { return (unsigned)((c | 0x20) - 'a') < 26u; }

/* Whether the n letters at p are the lowercase word w, in any case. */
static bool letters_are(const char *p, const char *w, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if ((p[k] | 0x20) != w[k]) return false;
    return true;
}

/* Whether the word p[0..len) says something was left out; after_so: the
** word before it was "so". */
static bool elision_word(const char *p, size_t len, bool after_so)
{
    switch (len) {
    case 2: return after_so && letters_are(p, "on", 2);
    case 3: return letters_are(p, "etc", 3);
    case 4: return letters_are(p, "more", 4) || letters_are(p, "omit", 4) || letters_are(p, "rest", 4) ||
                   letters_are(p, "snip", 4) || letters_are(p, "todo", 4);
    case 5: return after_so && letters_are(p, "forth", 5);
    case 6: return letters_are(p, "elided", 6) || letters_are(p, "others", 6) || letters_are(p, "repeat", 6);
    case 7: return letters_are(p, "omitted", 7) || letters_are(p, "similar", 7) || letters_are(p, "snipped", 7) ||
                   letters_are(p, "skipped", 7) || letters_are(p, "brevity", 7) || letters_are(p, "partial", 7) ||
                   letters_are(p, "excerpt", 7);
    case 8: return letters_are(p, "abridged", 8) || letters_are(p, "continue", 8);
    case 9: return letters_are(p, "truncated", 9) || letters_are(p, "remaining", 9) || letters_are(p, "shortened", 9) ||
                   letters_are(p, "continues", 9) || letters_are(p, "continued", 9);
    case 11: return letters_are(p, "abbreviated", 11) || letters_are(p, "placeholder", 11);
    default: return false;
    }
}

/* A comment that says the model left content out, as an ellipsis does
** ([1, 2 // and 20 more], {"a": 1 # other fields omitted}): removing it
** would accept the part as the whole. Whole words, any case ("so on" and
** "so forth" as "so" then the word); two dots or U+2026 anywhere. Such a
** remark is short: the look is bounded, as comments are common and one may
** run to the end of a one-line reply (a sentence's worth: "the full list
** goes on with many other identifiers, omitted here"). 'e': the text's end. */
#if BYTES16
/* The letters (is_alpha_ascii's), dots and 0xE2 bytes of s[0..n) (n at
** most 120, the text ending at e) as bit masks, bytes 0-63 in word 0 and
** 64-127 in word 1: the look asks about a comment's words, which a byte at
** a time cost seven instructions a byte. */
static void comment_masks(const char *s, size_t n, const char *e, uint64_t alpha[2], uint64_t dot[2],
                          uint64_t e2[2])
{
    alpha[0] = alpha[1] = dot[0] = dot[1] = e2[0] = e2[1] = 0;
    for (size_t k = 0; k < n; k += 16) {
        __m128i w;
        if (e - (s + k) >= 16) {
            w = bytes16_load(s + k);
        } else { /* the text's last bytes */
            char pad[16] = {0};
            memcpy(pad, s + k, (size_t)(e - (s + k)));
            w = bytes16_load(pad);
        }
        /* (c | 0x20) - 'a' below 26, unsigned */
        __m128i l = _mm_sub_epi8(_mm_or_si128(w, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
        unsigned h = (unsigned)(k >> 6), at = (unsigned)(k & 63);
        alpha[h] |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(25)), l)) << at;
        dot[h] |= (uint64_t)bytes16_eq(w, '.') << at;
        e2[h] |= (uint64_t)bytes16_eq(w, (char)0xE2) << at;
    }
    unsigned h = n >= 64, cut = (unsigned)(n - 64 * h); /* bits from n on: none (cut is below 64) */
    uint64_t keep = ((uint64_t)1 << cut) - 1;
    alpha[h] &= keep;
    dot[h] &= keep;
    e2[h] &= keep;
}

/* The byte loop's answer (below, for builds without SSE2): any of the
** events it returns on, wherever they are, from the masks. */
static bool comment_elides(const char *s, const char *t, const char *e)
{
    size_t n = t - s > 120 ? 120 : (size_t)(t - s);
    uint64_t a[2], d[2], x[2];
    comment_masks(s, n, e, a, d, x);
    if ((d[0] & (d[0] >> 1 | d[1] << 63)) | (d[1] & d[1] >> 1)) return true; /* two dots, both before t */
    for (unsigned h = 0; h < 2; h++)
        for (uint64_t m = x[h]; m; m &= m - 1)
            if (ellipsis_at(s + 64 * h + (unsigned)__builtin_ctzll(m), s + n)) return true;
    bool after_so = false; /* the last word was "so" */
    size_t prev_end = 0;   /* just past the last word */
    for (unsigned h = 0; h < 2; h++) {
        /* a word starts at a letter after a byte that is none (the last
        ** byte of word 0 comes before word 1's first) */
        uint64_t starts = a[h] & ~(a[h] << 1 | (h ? a[0] >> 63 : 0));
        for (; starts; starts &= starts - 1) {
            unsigned k = (unsigned)__builtin_ctzll(starts);
            size_t i = 64 * h + k;
            uint64_t rest = ~(a[h] >> k);
            size_t len = rest ? (size_t)__builtin_ctzll(rest) : 64;
            if (!h && len == 64 - k) len += (size_t)__builtin_ctzll(~a[1]); /* on into word 1 (never all letters) */
            bool so = after_so;
            for (size_t j = prev_end; so && j < i; j++) so = s[j] == ' '; /* only spaces since "so" */
            if (elision_word(s + i, len, so)) return true;
            after_so = len == 2 && letters_are(s + i, "so", 2);
            prev_end = i + len;
        }
    }
    return false;
}
#else
static bool comment_elides(const char *s, const char *t, const char *e)
{
    if (t - s > 120) t = s + 120;
    bool after_so = false;
    for (const char *p = s; p < t;) {
        unsigned char c = (unsigned char)*p;
        if (!is_alpha_ascii((char)c)) {
            if ((c == '.' && t - p >= 2 && p[1] == '.') || (c == 0xE2 && ellipsis_at(p, t))) return true;
            after_so &= c == ' ';
            p++;
            continue;
        }
        const char *q = p + 1;
        while (q < t && is_alpha_ascii(*q)) q++;
        size_t len = (size_t)(q - p);
        if (elision_word(p, len, after_so)) return true;
        after_so = len == 2 && letters_are(p, "so", 2);
        p = q;
    }
    return false;
}
#endif

static void note_comment(lp *ps, const char *at, const char *end)
{
    /* only spaces after it (a reply's last new line): its first non-space
    ** ends the look, so the looks of all comments are linear together */
    bool swallowed = ps->nopens && only_space(end, ps->e) &&
                     memchr(at, ps->opens[ps->nopens - 1].object ? '}' : ']', (size_t)(end - at));
    bool elides = ps->nopens && comment_elides(at, end, ps->e);
    note_as(ps, RK_COMMENT, swallowed || elides ? COAX_CLASS_INVENTED : COAX_CLASS_LOSSLESS, at);
}

static void skip_space_slow(lp *ps)
{
    const char *p = ps->p, *e = ps->e;
    for (;;) {
        p = skip_ws_run(p, e);
        if (p >= e) break;
        bool closed;
        const char *end = lp_comment_end(p, e, &closed);
        if (end != p) {
            note_comment(ps, p, end);
            p = end;
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

/* An ellipsis ("...", U+2026, or the two-dot leader U+2025 and the
** midline and vertical ellipses U+22EF, U+22EE) at p: its length, or 0. */
static size_t ellipsis_at(const char *p, const char *e)
{
    if (e - p >= 3 && p[0] == '.' && p[1] == '.' && p[2] == '.') {
        size_t n = 3;
        while (p + n < e && p[n] == '.') n++;
        return n;
    }
    if (e - p < 3 || (unsigned char)p[0] != 0xE2) return 0;
    unsigned char b1 = (unsigned char)p[1], b2 = (unsigned char)p[2];
    return (b1 == 0x80 && (b2 == 0xA6 || b2 == 0xA5)) || (b1 == 0x8B && (b2 == 0xAF || b2 == 0xAE)) ? 3 : 0;
}

/* Whether a comma missing before p, in the container top, has one
** reading. Not where two quotes meet ("a""b": a doubled quote may be an
** escape, as in CSV, not two strings), nor after a string that kept an
** unescaped quote (where it ended was itself a guess: "a "b" c" "d", which
** quote closes?), nor before an item in doubt; and a member or an item
** starts at p. */
bool lp_missing_comma_clear(const lp *ps, const lopen *top, const char *p)
{
    uint32_t q;
    bool adjacent = p > ps->b && (p[-1] == '"' || p[-1] == '\'') && quote_at(p, ps->e, &q);
    bool after_quoted = ps->quoted_end && ps->quoted_end <= p && only_space(ps->quoted_end, p);
    return !adjacent && !after_quoted && !lp_item_in_doubt(ps, top, p) && lp_member_starts(p, ps->e, top->object);
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
        if (p >= e) {
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
            ** reply's restart, not nested. */
            coax_class cls = class_if(ps->st != ST_AFTER || ps->inv_any || ps->bracket_fixed || ps->closer_dedented ||
                                      lp_open_layout(ps) || lp_open_restarts(ps));
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
                note_as(ps, RK_MISSING_BRACKET, class_if(empty), p);
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
                note(ps, RK_MISSING_BRACKET, p); /* [{"i":1{"i":2}] */
                if ((rc = lp_close_top(ps, &v, false))) return rc;
                goto have_value;
            }
            if (c == ':' || c == ';' || c == '=' || c == ')' || c == '+') {
                note(ps, RK_SKIPPED_CHARACTER, p);
                ps->p++;
                continue;
            }
            note_as(ps, RK_MISSING_COMMA, class_if(!lp_missing_comma_clear(ps, top, p)), p);
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
                /* [1,,2] and [,1]: a hole, where an item was left out (as
                ** JavaScript reads it) or a comma typed twice: which item
                ** sits at which place is a guess; before the closing
                ** bracket ([1, 2,,]) no item moves. The look is bounded. */
                const char *n = p + 1, *limit = e - n > 64 ? n + 64 : e;
                while (n < limit && (ws_tab[(unsigned char)*n] || *n == ',')) n++;
                note_as(ps, RK_EXTRA_COMMA, class_if(n == limit || *n != ']'), p);
            }
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

#if BYTES32
/* copy_span's 64-byte steps by AVX2, where the CPU has it (base/bytes.h):
** two loads and two stores a step. Returns what is left, below 64 bytes. */
static BYTES32_TARGET size_t copy_wide(char *restrict d, const char *restrict s, size_t n)
{
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)s), b = _mm256_loadu_si256((const __m256i *)(s + 32));
        _mm256_storeu_si256((__m256i *)d, a);
        _mm256_storeu_si256((__m256i *)(d + 32), b);
        __asm__("" : "+r"(d));
    }
    return n;
}
#endif

/* Copies n bytes, 64 at a time (the C library's memcpy moves large blocks
** with 'rep movsb', an instruction a byte under callgrind; GCC would turn
** a plain loop into a call to it, hence the empty asm). */
static void copy_span(char *restrict d, const char *restrict s, size_t n)
{
#if BYTES32
    if (n >= 64 && bytes32_ok()) {
        size_t left = copy_wide(d, s, n);
        d += n - left;
        s += n - left;
        n = left;
    }
#endif
#if BYTES16
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = bytes16_load(s), b = bytes16_load(s + 16), c = bytes16_load(s + 32), e = bytes16_load(s + 48);
        _mm_storeu_si128((__m128i *)d, a);
        _mm_storeu_si128((__m128i *)(d + 16), b);
        _mm_storeu_si128((__m128i *)(d + 32), c);
        _mm_storeu_si128((__m128i *)(d + 48), e);
        __asm__("" : "+r"(d));
    }
    for (; n >= 16; n -= 16, d += 16, s += 16) _mm_storeu_si128((__m128i *)d, bytes16_load(s));
#endif
    if (n) memcpy(d, s, n);
}

coax_code repair_parse(coax_arena *arena, const coax_limits *lim, const char *text, size_t start,
                       size_t end, const char *shift, rlog *log, rvalues *out, coax_error *err)
{
    lp ps;
    memset(&ps, 0, offsetof(lp, fences));
    ps.fences.ready = false;
    ps.kids = ps.kid_top = ps.first_kids;
    ps.ckids = sizeof ps.first_kids;
    ps.kid_end = ps.kids + ps.ckids;
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
    /* lp_carve's first piece, taken with the copy of the text (an arena
    ** call less): twice the text, 256 bytes to 64 KB, as the containers a
    ** broken reply makes take more than its text (a member of 32 bytes
    ** every 27 bytes of the bench's replies) and a second piece would cost
    ** a call more and as much memory again. */
    size_t span = end - start, piece = span < 128 ? 256 : span < ((size_t)32 << 10) ? 2 * span : (size_t)64 << 10;
    ps.lim = *lim;
    ps.log = log;
    ps.err = err;
    coax_buf_init(&ps.sb, ps.alloc);
    coax_code rc = COAX_OK;
    bool first = true;
    size_t log_from = log->n; /* the entries this parse adds */
    size_t copy_size = (span + 1 + 7) & ~(size_t)7; /* the piece after it 8-byte aligned */
    ps.copy = coax_arena_alloc(arena, copy_size + piece);
    if (ps.copy) {
        copy_span(ps.copy, ps.b, span);
        ps.to_copy = (uintptr_t)ps.copy - (uintptr_t)ps.b;
        ps.pool = ps.copy + copy_size;
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
                note(&ps, RK_TRAILING_TEXT, stray);
                out->v[out->n - 1].log_to = log->n;
            }
            break;
        }
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
        ps.inv_any = ps.bracket_fixed = ps.closer_dedented = ps.at_limit = false;
        if ((rc = parse_one(&ps, &v, &got))) break;
        if (got && repair_closed_early(ps.p, ps.e)) { /* {"a": {"b": 1}}, "c": 2} */
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
        if (!heap || !coax_grow(ps.alloc, (void **)&out->v, &out->cap, out->n + 1, sizeof(rvalue), out->first)) {
            rc = nomem(&ps);
            break;
        }
        *heap = v;
        size_t vs = ps.exact ? off(&ps, vstart) : start, ve = ps.exact ? off(&ps, ps.p) : start;
        out->v[out->n++] = (rvalue){heap, vs, ve, !ps.truncated, ps.inv_any, ps.at_limit, from, log->n};
        first = false;
    }
    if (!rc && (log->oom || ps.sb.oom)) rc = nomem(&ps);
    if (!ps.exact) { /* off()'s offsets are in the unescaped copy: its span's start stands for all of them */
        for (size_t i = log_from; i < log->n; i++) log->e[i].offset = start;
        if (rc && err) err->offset = start;
    }
    coax_buf_free(&ps.sb);
    if (ps.kids != ps.first_kids) coax_free_raw(ps.alloc, ps.kids, ps.ckids);
    if (ps.opens != ps.first_opens) coax_free_raw(ps.alloc, ps.opens, ps.copens * sizeof(lopen));
    return rc;
}
