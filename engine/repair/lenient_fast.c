/*
** lenient_fast.c: the lenient parser's fast way (lenient.h). Most bytes
** of a broken reply are well-formed: keys, strings, numbers and literals
** written as JSON writes them (or in single quotes, or as identifiers
** before their colon), commas, matching brackets. This loop takes them
** as the state machine in lenient.c takes them, with the same log and
** the same pending children and open containers, but without its checks
** for what is broken; it stops at the first byte it does not take, where
** the state machine goes on.
*/
#include "repair/lenient_token.h"

/* The end of the spaces (ws_tab) at p: what skip_space passes without
** logging (comments and Unicode spaces are its own). The text's NUL at e
** and the zero bytes after it (lenient.h) end every run: no test for e. */
static inline __attribute__((always_inline)) const char *plain_spaces(const char *p, const char *e)
{
    /* Mostly a token follows at once, or a space or a line break: compares,
    ** not the table (whose address is one more register the loop would
    ** keep or reload). */
    if ((unsigned char)*p <= ' ' && (*p == ' ' || *p == '\n' || ws_tab[(unsigned char)*p])) {
        p++;
        if ((unsigned char)*p <= ' ') {
#if BYTES16
            /* Indentation after a line break: spaces, found with one compare
            ** of sixteen bytes (skip_ws_run's test for all six spaces
            ** costs four more, and its set-up as much again). Any other
            ** space at the run's end goes on in skip_ws_run. */
            unsigned other = ~bytes16_eq(bytes16_load(p), ' ') & 0xFFFFu;
            if (__builtin_expect(!other, 0)) return skip_ws_run(p + 16, e);
            p += __builtin_ctz(other);
            if ((unsigned char)*p > ' ') return p;
#endif
            if (ws_tab[(unsigned char)*p]) p = skip_ws_run(p + 1, e); /* a run of any spaces */
        }
    }
    return p;
}

#if BYTES16
static const char newline_spaces[16] __attribute__((aligned(16))) = {[0] = '\n', [1 ... 15] = ' '};
#endif

/* plain_spaces before a key, where pretty-printed JSON puts a line break
** and an indentation of spaces: both found with one compare of sixteen
** bytes, plain_spaces' answer without its tests for other spaces (it takes
** what this does not). Not before an item: the broken 16 KB reply's items
** follow ", " (25.53 -> 25.65 instructions a byte). The run's length is
** guessed first, as the one before the last key ('*indent', 0 for none),
** and the guess checked by a branch the predictor learns (the strict
** parser's is_indent): the cursor after it then waits for no count of the
** bytes, which every token after it waits for. */
static inline __attribute__((always_inline)) const char *line_spaces(const char *p, const char *e, unsigned *indent)
{
#if BYTES16
    if (*p == '\n') {
        unsigned n = *indent;
        unsigned off_run = ~(unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(bytes16_load(p), _mm_load_si128((const __m128i *)newline_spaces)));
        if (__builtin_expect(n && !(off_run & ((1u << n) - 1)) && (unsigned char)p[n] > ' ', 1)) return p + n;
        unsigned other = ~bytes16_eq(bytes16_load(p + 1), ' ') & 0xFFFFu;
        if (__builtin_expect(other != 0, 1)) {
            const char *q = p + 1 + __builtin_ctz(other);
            if (__builtin_expect((unsigned char)*q > ' ', 1)) {
                *indent = (unsigned)(q - p);
                return q;
            }
        }
    }
#endif
    return plain_spaces(p, e);
}

/* A quoted key lp_plain_string_next leaves (after an invented repair, or
** with escapes, other quotes, control characters): parse_one's way,
** lp_parse_string and push_key, out of the loop's way. */
static __attribute__((noinline)) coax_code slow_key(lp *ps, lopen *top, size_t koff)
{
    coax_value key;
    coax_code rc = lp_parse_string(ps, CTX_KEY, &key);
    return rc ? rc : push_member(ps, top, key.u.text, key.len, koff, key.flags & COAX_VF_INVENTED);
}

/* kid_room for the loop's top of the pending children, '*kt'. */
static inline __attribute__((always_inline)) bool kid_room_at(lp *ps, char **kt)
{
    if (__builtin_expect(*kt <= ps->kid_last, 1)) return true;
    ps->kid_top = *kt;
    bool ok = lp_grow_kids(ps);
    *kt = ps->kid_top;
    return ok;
}

/* push_member's member at 'kt', a key neither way flags as invented, but
** for its value: the loop writes it, or null where it stops before it. */
static inline __attribute__((always_inline)) void put_member(char *kt, lopen *o, const char *key, uint32_t klen,
                                                             size_t koff)
{
    coax_member *m = (coax_member *)kt;
    uint64_t klen_koff = klen | (uint64_t)(uint32_t)koff << 32;
    m->key = key;
    memcpy((char *)m + offsetof(coax_member, klen), &klen_koff, sizeof klen_koff);
    o->key_invented = false;
    o->keys = key_bits(o->keys, key, klen);
}

/* Whether the loop closes the innermost container: not the outermost
** (parse_one finishes the value there), nor one inside a function-call
** wrapper (parse_one skips its ')' after the container). */
static inline bool closes_here(const lp *ps, const lopen *top)
{
    return ps->nopens > 1 && !top[-1].paren; /* top: ps->opens[ps->nopens - 1] */
}

/* The state machine's fast way over well-formed stretches inside a
** container: plain keys (quoted, or identifiers before their colon),
** plain strings, JSON numbers, literals, brackets that match, commas and
** JSON's spaces, each taken as parse_one takes it (the same logging, the
** same pending children and open containers), with the cursor kept in a
** local. At anything else, or at the bracket that closes the outermost
** container, it stops where parse_one's loop goes on: ps->p, ps->st and
** ps->comma as the loop would have them there.
**
** Objects and arrays have their own paths (as in the strict parser's
** loop), so no step asks which one it is in: a member's value goes into
** the slot its key made, with its context known; an item is pushed; the
** comma after either leads to its container's next key or item. Only a
** container that closes asks which one its parent is. ps->p is written
** only where it is read: by the token readers that take it, and for the
** offset of an error. The likely ways are marked (__builtin_expect): GCC
** laid several of them out of line, a jump there and one back for every
** key or value. */
coax_code lp_fast_stretch(lp *ps)
{
    const char *p = ps->p, *e = ps->e, *after;
    const char *comma = ps->comma;
    lopen *top = &ps->opens[ps->nopens - 1];
    coax_value v, *slot;
    coax_code rc;
    char c;
    int st = ps->st;
    char *kt = ps->kid_top; /* the pending children's top, in a register: ps->kid_top at every call */
    unsigned key_indent = ps->key_indent;
    /* Inside a function-call wrapper's parentheses (top->paren) the values
    ** are parse_one's, which skips the wrapper's ')' after them: the loop
    ** does not start there, and nowhere else meets one (a container it
    ** opens has none, and it closes none whose parent has one). */
    if (__builtin_expect(top->paren, 0)) goto stop;
    if (st == ST_KEY) goto key;
    if (st == ST_VALUE) {
        if (top->object) goto member_value;
        goto item;
    }
    if (st == ST_AFTER) {
        if (top->object) goto member_after;
        goto item_after;
    }
    goto colon;
key: /* after '{' or ',' in an object */
    st = ST_KEY;
    p = line_spaces(p, e, &key_indent);
    c = *p; /* the NUL at e: none of the bytes below, a stop */
    if (c == '}' && closes_here(ps, top)) {
        if (comma) note_inline(ps, RK_TRAILING_COMMA, comma);
        goto close;
    }
    {
        coax_value key;
        size_t koff = off(ps, p);
        /* the cursor kept in p (ps->p is stored only where it is read):
        ** after each store through a char pointer it was loaded again;
        ** no string limit to ask (SIZE_MAX): parse_one runs this loop only
        ** on a text no longer than max_string */
        char next = 0; /* the byte after a quoted key */
        if (__builtin_expect(c == '"', 1) || c == '\'') {
            if (__builtin_expect(!(after = lp_plain_string_next(ps, p, e, SIZE_MAX, CTX_KEY, &key, &next)), 0)) {
                ps->p = p;
                ps->kid_top = kt;
                if ((rc = slow_key(ps, top, koff))) return rc;
                kt = ps->kid_top;
                p = ps->p;
                goto pushed;
            }
            p = after;
        } else if (is_ident((unsigned char)c) && !is_digit(c)) {
            ps->p = p;
            if (!lp_ident_key(ps, e, SIZE_MAX, &key)) goto stop;
            p = ps->p;
        } else if (c == '/' || c == '#') { /* a comment before a key: parse_one's skip_space, then this way again */
            ps->p = p;
            lp_skip_space_slow(ps); /* skip_space's way at a '/' or a '#' */
            if (ps->p == p) goto stop;
            p = ps->p;
            goto key;
        } else {
            goto stop;
        }
        /* a key neither way above flags as invented */
        if (__builtin_expect(kt > ps->kid_last, 0)) {
            ps->kid_top = kt;
            if (!lp_grow_kids(ps)) {
                ps->p = p; /* nomem's offset */
                return nomem(ps);
            }
            kt = ps->kid_top;
        }
        put_member(kt, top, key.u.text, key.len, koff);
        kt += sizeof(coax_member);
    pushed:
        comma = NULL;
        /* mostly the colon at once: colon's way without its spaces */
        if (__builtin_expect(next == ':', 1) || *p == ':') {
            p++;
            st = ST_VALUE;
            /* and mostly one space or none before the value: plain_spaces'
            ** answer for them, without its way through a line break */
            if (__builtin_expect(*p == ' ' && (unsigned char)p[1] > ' ', 1)) {
                p++;
                goto member_value_at;
            }
            if ((unsigned char)*p > ' ') goto member_value_at;
            goto member_value;
        }
    }
colon:
    st = ST_COLON;
    p = plain_spaces(p, e);
    if (*p != ':') goto stop;
    p++;
member_value: /* after a key's ':' */
    st = ST_VALUE;
    p = plain_spaces(p, e);
member_value_at: /* p past the spaces */
    c = *p;
    /* The value is read into its member's slot, not through 'v' (two
    ** stores and a load more a value): where the loop stops before the
    ** value is taken, 'stop' puts the slot back to null. */
    slot = (coax_value *)kt - 1;
    if (__builtin_expect(c == '"', 1) || c == '\'') { /* most values: ahead of the other tests */
        if (__builtin_expect(!(after = lp_plain_string(ps, p, e, SIZE_MAX, CTX_OBJVAL, slot)), 0) &&
            !(after = lp_control_string(ps, p, e, CTX_OBJVAL, slot)))
            goto stop;
        /* mostly a comma at once: no block string, no '+', the next key */
        if (__builtin_expect(*after == ',', 1)) {
            flag_value(ps, slot);
            comma = after;
            p = after + 1;
            goto key;
        }
        /* A block string (three quotes) read as an empty string and a
        ** third quote: parse_one's (asked here, not ahead of every
        ** string). "a" + "b": parse_one joins them; a look past spaces
        ** for the '+'. */
        const char *r = plain_spaces(after, e);
        if ((!slot->len && *after == c) || lp_string_goes_on(r, e)) {
            /* its single_quotes entry, the last one unless the log ran
            ** out of memory (then nothing was added): parse_one reads
            ** the string again. Not the log's length kept from before,
            ** which GCC kept on the stack for every string. */
            if (c == '\'' && !ps->log->oom) ps->log->n--;
            goto stop;
        }
        flag_value(ps, slot);
        comma = NULL;
        st = ST_AFTER;
        p = r; /* past its spaces already: plain_spaces would not move */
        goto member_after_spaces;
    }
    if (c == '{' || c == '[') goto open;
    if (c == 't' || c == 'f' || c == 'n' || c == 'T' || c == 'F' || c == 'N') {
        if (!(after = lp_literal(ps, p, e, slot))) goto stop;
    } else {
        if (!is_digit(c) && c != '-') goto stop; /* a ']' or '}' here is parse_one's too */
        if (!(after = lp_json_number_at(ps, p, e, CTX_OBJVAL, slot))) goto stop;
    }
    p = after;
    goto member_put;
member_have: /* v read, p just past it: the value of the object's last member */
    slot = (coax_value *)kt - 1;
    coax_copy_value(slot, &v);
member_put: /* the value in its member's slot */
    flag_value(ps, slot);
    comma = NULL;
    st = ST_AFTER;
member_after:
    if (*p == ',') { /* mostly a comma at once: the next key without the look for spaces */
        comma = p++;
        goto key;
    }
    p = plain_spaces(p, e);
member_after_spaces:
    c = *p;
    if (c == ',') {
        comma = p++;
        goto key;
    }
    if (c == '}' && closes_here(ps, top)) goto close;
    if (c == '"' || c == '\'' || is_ident((unsigned char)c)) { /* a member after a missing comma: parse_one's way */
        ps->kid_top = kt;
        note_as(ps, RK_MISSING_COMMA, class_if(!lp_missing_comma_clear(ps, top, p)), p);
        comma = NULL;
        goto key;
    }
    goto stop;
item: /* after '[' or ',' in an array */
    st = ST_VALUE;
    p = plain_spaces(p, e);
    c = *p;
    if (__builtin_expect(c == '"', 1) || c == '\'') { /* as a member's value, in an item's context */
        if (__builtin_expect(!(after = lp_plain_string(ps, p, e, SIZE_MAX, CTX_OTHER, &v)), 0) &&
            !(after = lp_control_string(ps, p, e, CTX_OTHER, &v)))
            goto stop;
        if (*after == ',') { /* as a member's value */
            flag_value(ps, &v);
            if (!kid_room_at(ps, &kt)) {
                ps->p = after;
                return nomem(ps);
            }
            kt += sizeof(coax_value);
            coax_copy_value((coax_value *)kt - 1, &v);
            comma = after;
            p = after + 1;
            goto item;
        }
        const char *r = plain_spaces(after, e);
        if ((!v.len && *after == c) || lp_string_goes_on(r, e)) {
            if (c == '\'' && !ps->log->oom) ps->log->n--;
            goto stop;
        }
        flag_value(ps, &v);
        if (!kid_room_at(ps, &kt)) {
            ps->p = after;
            return nomem(ps);
        }
        kt += sizeof(coax_value);
        coax_copy_value((coax_value *)kt - 1, &v);
        comma = NULL;
        st = ST_AFTER;
        p = r;
        goto item_after_spaces;
    }
    if (c == '{' || c == '[') goto open;
    if (c == ']') {
        if (!closes_here(ps, top)) goto stop;
        if (comma) note_inline(ps, RK_TRAILING_COMMA, comma);
        goto close;
    }
    if (c == 't' || c == 'f' || c == 'n' || c == 'T' || c == 'F' || c == 'N') {
        if (!(after = lp_literal(ps, p, e, &v))) goto stop;
    } else {
        if (!is_digit(c) && c != '-') goto stop;
        if (!(after = lp_json_number_at(ps, p, e, CTX_OTHER, &v))) goto stop;
    }
    p = after;
item_have: /* v read, p just past it: the array's new item */
    flag_value(ps, &v);
    if (!kid_room_at(ps, &kt)) {
        ps->p = p; /* nomem's offset */
        return nomem(ps);
    }
    kt += sizeof(coax_value);
    coax_copy_value((coax_value *)kt - 1, &v);
    comma = NULL;
    st = ST_AFTER;
item_after:
    if (*p == ',') {
        comma = p++;
        goto item;
    }
    p = plain_spaces(p, e);
item_after_spaces:
    c = *p;
    if (c == ',') {
        comma = p++;
        goto item;
    }
    if (c == ']' && closes_here(ps, top)) goto close;
    if (c == '"' || c == '\'' || is_ident((unsigned char)c)) { /* an item after a missing comma: parse_one's way */
        ps->kid_top = kt;
        note_as(ps, RK_MISSING_COMMA, class_if(!lp_missing_comma_clear(ps, top, p)), p);
        lp_line_item(ps, top, p);
        comma = NULL;
        goto item;
    }
    goto stop;
open: /* '{' or '[' at p, a member's value or an item */
    ps->p = p;
    ps->kid_top = kt;
    if ((rc = lp_push_open(ps, c == '{'))) return rc;
    top = &ps->opens[ps->nopens - 1];
    p++;
    comma = NULL;
    if (c == '{') goto key;
    goto item;
close: /* p on the bracket that closes 'top', not the outermost: lp_handle_close's way for a bracket that matches */
    /* only a closer after spaces or a line break can have a layout to go by */
    if (p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') lp_closer_layout(ps, top, p);
    ps->p = ++p;
    ps->st = st;
    ps->kid_top = kt;
    if ((rc = lp_close_children(ps, top, &v))) return rc; /* no key waits: lp_close_top's way after it */
    kt = ps->kid_top;
    top = &ps->opens[ps->nopens - 1];
    if (top->object) goto member_have;
    goto item_have;
stop:
    /* a member whose value is to come waits with null, as push_member leaves it */
    if ((st == ST_COLON || st == ST_VALUE) && top->object && kt > ps->kids + top->base)
        memset((coax_value *)kt - 1, 0, sizeof(coax_value));
    ps->kid_top = kt;
    ps->p = p;
    ps->st = st;
    ps->comma = comma;
    ps->key_indent = key_indent;
    return COAX_OK;
}
