/*
** lenient_open.c: the lenient parser's open containers (lenient.h): their
** frames and pending children, and closing them, with the duplicate keys,
** the invented flags and the brackets that do not match.
*/
#include "repair/lenient.h"

/* Past the first block, a stack sized for the span (a member every 32
** bytes, up to 4096), so that a long list is seldom copied as it grows. */
bool lp_grow_kids(lp *ps)
{
    size_t hint = (size_t)(ps->e - ps->b), most = 4096 * sizeof(coax_member);
    size_t used = (size_t)(ps->kid_top - ps->kids), need = used + sizeof(coax_member);
    if (ps->kids == ps->first_kids && hint > need) need = hint < most ? hint : most;
    if (!coax_grow(ps->alloc, (void **)&ps->kids, &ps->ckids, need, 1, ps->first_kids)) return false;
    ps->kid_top = ps->kids + used;
    ps->kid_last = ps->kids + ps->ckids - sizeof(coax_member);
    return true;
}

void lp_report_dup(void *ud, size_t index, bool differs)
{
    lp *ps = ud;
    uint32_t koff; /* the pending member's, kept after its key's length */
    memcpy(&koff, ps->kids + ps->opens[ps->nopens - 1].base + index * sizeof(coax_member) + LP_KOFF_AT, sizeof koff);
    note_as(ps, RK_DUPLICATE_KEY, class_if(differs), ps->b + (koff - ps->base));
}

/* null for a member whose value is missing: invented, so flagged. */
void lp_fill_null(lp *ps)
{
    coax_value *v = last_kid_value(ps);
    memset(v, 0, sizeof *v);
    v->type = COAX_NULL;
    v->flags = COAX_VF_INVENTED;
    ps->inv = false;
}

/* Closes the innermost container into 'v'. A key still waiting for its
** value gets null ('at_eof': the key is dropped, the value was cut off). */
coax_code lp_close_top(lp *ps, coax_value *v, bool at_eof)
{
    lopen *o = &ps->opens[ps->nopens - 1];
    if (o->object && (ps->st == ST_COLON || ps->st == ST_VALUE) && ps->kid_top > ps->kids + o->base) {
        if (at_eof) {
            note(ps, RK_DANGLING_KEY, ps->p);
            ps->kid_top -= sizeof(coax_member);
        } else { /* at the closing bracket just read, if it was read */
            bool read = ps->p > ps->b && (ps->p[-1] == '}' || ps->p[-1] == ']');
            note(ps, RK_MISSING_VALUE, ps->p - read);
            lp_fill_null(ps);
        }
    }
    return lp_close_children(ps, o, v);
}

/* The start of the line 'p' is on, or NULL when it lies further back than
** a bounded look (so that the cost per bracket is bounded). The parsed
** bytes' start counts as a line's. The line break is looked for sixteen
** bytes a step: a closer on its own line asks this of its opener's line,
** 14,000 times on the bench's broken replies (a byte a step cost 100
** instructions a call). */
static inline __attribute__((always_inline)) const char *line_start(const lp *ps, const char *p)
{
    enum { LOOK = 160 };
    const char *s = p;
#if BYTES16
    if (p - ps->b >= 16) { /* mostly the line break is in the first block: no bound to work out for it */
        unsigned nl = bytes16_eq(bytes16_load(p - 16), '\n');
        if (nl) return p + 16 - __builtin_clz(nl); /* just past the last line break */
        s -= 16;
    }
#endif
    const char *stop = p - ps->b > LOOK ? p - LOOK : ps->b;
#if BYTES16
    while (s - stop >= 16) {
        unsigned nl = bytes16_eq(bytes16_load(s - 16), '\n');
        if (nl) return s + 16 - __builtin_clz(nl); /* just past the last line break */
        s -= 16;
    }
#endif
    while (s > stop && s[-1] != '\n') s--;
    return s > ps->b && s[-1] != '\n' ? NULL : s;
}

/* The columns of s..t, spaces and tabs of the text read: where the read
** view made them of the reply's Unicode blanks and characters shown as
** nothing, as one sees them there, a blank one column (U+00A0, not its two
** bytes) and a character shown as nothing none (U+200B, not three). */
static long columns(const lp *ps, const char *s, const char *t)
{
    if (!ps->viewed) return (long)(t - s);
    long n = 0;
    for (const char *o = lp_orig(ps, s), *e = lp_orig(ps, t); o < e; n++) {
        size_t k;
        while ((k = coax_invisible_at(o, e))) o += k;
        if (o < e) o += (k = coax_blank_at(o, e)) ? k : 1;
        else n--;
    }
    return n;
}

/* The spaces and tabs at s, the start of p's line, up to p, in columns. */
static long indent_from(const lp *ps, const char *s, const char *p)
{
    const char *t = s;
    while (t < p && (*t == ' ' || *t == '\t')) t++;
    return columns(ps, s, t);
}

/* The indentation of the line 'p' is on (spaces and tabs at its start), or
** -1 past line_start's look. */
static long line_indent(const lp *ps, const char *p)
{
    const char *s = line_start(ps, p);
    return s ? indent_from(ps, s, p) : -1;
}

/* line_indent of a closer's line when only spaces and tabs precede it
** there, else -1: those it walks back over are the indentation. */
static long own_line_indent(const lp *ps, const char *p)
{
    enum { LOOK = 160 };
    /* the byte before it first, the look's bound only past the first block of an indentation */
    if (p == ps->b) return 0;
    if (p[-1] != ' ' && p[-1] != '\t') return p[-1] != '\n' ? -1 : 0; /* "1}": mostly */
    const char *s = p;
#if BYTES16
    if (p - ps->b >= 16) { /* an indentation: its start in one step, mostly (within the bound) */
        __m128i w = bytes16_load(s - 16);
        unsigned other = ~(bytes16_eq(w, ' ') | bytes16_eq(w, '\t')) & 0xFFFFu;
        if (other) {
            s += 16 - __builtin_clz(other); /* just past the last byte before it */
            return s[-1] == '\n' ? columns(ps, s, p) : -1;
        }
        s -= 16;
    }
#endif
    const char *stop = p - ps->b > LOOK ? p - LOOK : ps->b;
    while (s > stop && (s[-1] == ' ' || s[-1] == '\t')) s--;
    if (s > ps->b && s[-1] != '\n') return -1;
    return columns(ps, s, p);
}

/* Whether the layout of the text of a container opened at 'at', up to
** 'end', puts a member outside it: its first line of text starts further
** right than the line it opened on (the reply is indented), and a later
** one, other than a closing bracket's, no further right than that line.
** Past the bytes it may read (layout_look), the layout is taken as saying
** so. */
static bool member_outside(lp *ps, const char *at, const char *end)
{
    long open = line_indent(ps, at), first = -1;
    size_t span = (size_t)(end - at);
    if (span > ps->layout_look) return true;
    ps->layout_look -= span;
    if (open < 0) return false;
    for (const char *p = memchr(at, '\n', span); p; p = memchr(p, '\n', (size_t)(end - p))) {
        const char *t = ++p;
        while (t < end && (*t == ' ' || *t == '\t')) t++;
        if (t == end || *t == '}' || *t == ']' || *t == '\n' || *t == '\r') continue;
        if (first < 0) {
            first = columns(ps, p, t);
            if (first <= open) return false; /* not indented: no layout to go by */
        } else if (columns(ps, p, t) <= open) {
            return true;
        }
    }
    return false;
}

/* A pretty-printed reply puts a closing bracket under the line that opened
** it; one further left was written for a container further out, and when
** a member inside sits no further right than the opener's line, so was
** that member: the bracket the reply lacks at its end was lost before it,
** and the parse put it inside ({ "user": { "age": 3 ⏎ "active": true ⏎ }:
** which object holds "active"?). */
static void closer_look(lp *ps, const char *at, const char *closer)
{
    long c = own_line_indent(ps, closer);
    if (c < 0) return;
    /* the opener's line is indented further only if its byte c is a space
    ** or a tab (mostly it is the opener's key: one test, not a count; its
    ** columns are no more than its bytes) */
    const char *s = line_start(ps, at);
    if (!s || at - s <= c || (s[c] != ' ' && s[c] != '\t')) return;
    if (c < indent_from(ps, s, at) && member_outside(ps, at, closer)) ps->closer_dedented = true;
}

/* The looks waiting, in order: those of values before the one being
** parsed for their share of layout_look (their answer was the values'
** own, cleared since), then its own. Only a value left open at the end
** asks closer_dedented (lenient.c), and nothing reads layout_look after
** a parse: the looks of a parse whose values all close are never made,
** and the answers asked are the ones the looks made at once gave. */
void lp_closer_looks(lp *ps)
{
    unsigned n = ps->closers, now = ps->closers_now, i = 0;
    for (; i < now; i++) closer_look(ps, ps->closers_at[i][0], ps->closers_at[i][1]);
    if (now) ps->closer_dedented = false;
    for (; i < n; i++) closer_look(ps, ps->closers_at[i][0], ps->closers_at[i][1]);
    ps->closers = ps->closers_now = 0;
}

bool lp_closer_dedented(lp *ps)
{
    lp_closer_looks(ps);
    return ps->closer_dedented;
}

/* Whether a container left open at the end, inside another, holds a
** member the layout puts outside it (member_outside): its bracket was lost
** before that member, not at the end. The innermost first: the shortest
** looks. */
bool lp_open_layout(lp *ps)
{
    for (size_t k = ps->nopens; k-- > 1;)
        if (member_outside(ps, ps->opens[k].at, ps->e)) return true;
    return false;
}

/* Past this nesting the looks below give up (no guess named): their stacks are fixed arrays. */
#define LP_RUN_DEPTH 64
/* How many containers further out than the innermost restarts_outer compares with the last value. */
#define LP_RESTART_LEVELS 8

/* Moves *a and *b past the text they begin alike with, spaces aside, up to where one ends (ae, be) or they
** differ; *closed set where that text holds a comma or a closer: an item, a member or a value ended in it. */
static void walk_alike(const char **a, const char *ae, const char **b, const char *be, bool *closed)
{
    for (;;) {
        while (*a < ae && ws_tab[(unsigned char)**a]) (*a)++;
        while (*b < be && ws_tab[(unsigned char)**b]) (*b)++;
        if (*a >= ae || *b >= be || **a != **b) return;
        *closed |= **a == ',' || **a == '}' || **a == ']';
        (*a)++, (*b)++;
    }
}

/* Whether the text from a on, spaces aside, begins with the text of [p, pe), spaces aside. */
static bool text_begins_with(const char *a, const char *ae, const char *p, const char *pe)
{
    bool closed = false;
    walk_alike(&a, ae, &p, pe, &closed);
    return p >= pe;
}

/* Whether the last value of the innermost container left open at the end, a container closed right before the
** end, starts over one further out: its text begins with all that was written from that one's opener up to it,
** an item or member at least ({"a": [1, 2, {"a": [1, 2, 3]} is {"a": [1, 2, {"a": [1, 2, 3]}]} nested, or the
** reply started over at {"a": [1, 2, 3]}). restarts looks at the innermost container itself, member by member;
** lp_open_two_ways finds 'last', [last, last_end). */
static bool restarts_outer(const lp *ps, const char *last, const char *last_end, const char *end)
{
    if (ps->nopens < 2 || !last) return false;
    while (last_end < end && ws_tab[(unsigned char)*last_end]) last_end++;
    if (last_end != end) return false;
    size_t from = ps->nopens - 1 > LP_RESTART_LEVELS ? ps->nopens - 1 - LP_RESTART_LEVELS : 0;
    for (size_t k = from; k + 1 < ps->nopens; k++) {
        const char *o = ps->opens[k].at;
        if (*o != *last || o >= last || !memchr(o, ',', (size_t)(last - o))) continue;
        if (text_begins_with(last, end, o, last)) return true;
    }
    return false;
}

/* Whether the container o, left open at the end, ends with a value that
** starts it over: an object whose last member's value is an object whose
** first members are o's others, keys and values, and the last's key or two
** others at least ({"a": 1, "b": ⏎ {"a": 1, "b": 2}; {"a": 1, "b": 2 ⏎⏎
** Result: {"a": 1, "b": 2}, a label of the restart for its last key), or a
** list whose last item is a list that begins with o's
** other items and goes on ([1, 2, [1, 2, 3]). The reply restarted as likely
** as it nested a copy: which is the answer is a guess. */
static bool restarts(const lp *ps, const lopen *o, const char *end)
{
    const char *first = ps->kids + o->base;
    size_t n = (size_t)(end - first) / (o->object ? sizeof(coax_member) : sizeof(coax_value));
    if (n < 2) return false;
    if (o->object) {
        const coax_member *m = (const coax_member *)(const void *)first;
        const coax_value *v = &m[n - 1].value;
        if (v->type != COAX_OBJECT || v->len < n - 1) return false;
        const coax_member *last = v->len >= n ? &v->u.members[n - 1] : NULL; /* its key repeated too */
        if (n < 3 && !(last && last->klen == m[n - 1].klen && !memcmp(last->key, m[n - 1].key, last->klen)))
            return false; /* one member repeated under another key: a child may share its parent's name */
        for (size_t i = 0; i + 1 < n; i++) {
            const coax_member *c = &v->u.members[i];
            if (c->klen != m[i].klen || memcmp(c->key, m[i].key, c->klen) ||
                !coax_value_equal(&c->value, &m[i].value, ps->alloc))
                return false; /* out of memory (-1): as if it did */
        }
        return true;
    }
    const coax_value *items = (const coax_value *)(const void *)first, *v = &items[n - 1];
    if (v->type != COAX_ARRAY || v->len < n) return false;
    for (size_t i = 0; i + 1 < n; i++)
        if (!coax_value_equal(&v->u.items[i], &items[i], ps->alloc)) return false;
    return true;
}

/* Whether an object left open at the end opens with a quoted key and then holds a key
** without quotes at a line's start ({"active": true⏎Active: True): prose after a brace
** lost ("Note: ...") reads as a member there, written as none of the others was. */
bool lp_open_key_style(lp *ps)
{
    const char *unquoted = rkind_table[RK_UNQUOTED_KEY].name;
    for (size_t k = 0; k < ps->nopens; k++) {
        const lopen *o = &ps->opens[k];
        const char *q = o->at + 1;
        while (q < ps->e && ws_tab[(unsigned char)*q]) q++;
        if (!o->object || q >= ps->e || *q != '"') continue;
        for (size_t i = ps->log->n; i-- > 0 && ps->log->e[i].offset > off(ps, o->at);) {
            const char *at = (const char *)(ps->bias + ps->log->e[i].offset);
            if (ps->log->e[i].kind != unquoted) continue;
            while (at > o->at && (at[-1] == ' ' || at[-1] == '\t')) at--;
            if (at[-1] == '\n' || at[-1] == '\r') return true;
        }
    }
    return false;
}

/* Whether the innermost container left open at the end starts over in its
** last value (restarts); those further out hold an open one last. */
bool lp_open_restarts(lp *ps)
{
    return ps->nopens && restarts(ps, &ps->opens[ps->nopens - 1], ps->kid_top);
}

/* Whether the innermost container, a list left open and closed by the repair at 'closer' (its
** parent's closer, or the reply's end when it is the only one open), could instead hold a
** bracket typed once too often: its one value is then its parent's member's value or the
** whole reply, or its last value, a list closed right before 'closer', gives that list's ']'
** to it. {"a": [1} is {"a": [1]} with its ']' lost or {"a": 1} with a '[' too many; [[1, 2]
** is [[1, 2]] or [1, 2]; [1, [2, 3] is [1, [2, 3]] or [1, 2, 3], [[42.1][] [[42.1], []] or
** [[42.1]]: one slip each. ({"a": [1, 2} has one reading, "a": 1, 2 is no member; [[1, 2], [3
** is [[1, 2], 3] only with a '[' too many and a ']' lost as well.) */
bool lp_open_stray(const lp *ps, const char *closer)
{
    const lopen *o = &ps->opens[ps->nopens - 1];
    if (o->object || ps->kid_top == ps->kids + o->base) return false;
    if (ps->kid_top - (ps->kids + o->base) == (ptrdiff_t)sizeof(coax_value)) return true;
    const coax_value *last = (const coax_value *)(const void *)ps->kid_top - 1;
    while (closer > o->at && ws_tab[(unsigned char)closer[-1]]) closer--;
    return last->type == COAX_ARRAY && closer[-1] == ']';
}

/* Whether a list left open at the end holds one list only, opened right after its own
** bracket: [["a", "b" is a list of one list whose closers were lost, or ["a", "b" with its
** bracket typed twice ({"a": [[1, 2]``` too). (Two items, [[1], [2], have one reading; so
** has [ [1, 2] on its lines, as written.) */
bool lp_open_doubled(const lp *ps)
{
    for (size_t k = 0; k < ps->nopens; k++) {
        const lopen *o = &ps->opens[k];
        if (o->object || o->at[1] != '[') continue;
        const char *end = k + 1 < ps->nopens ? ps->kids + ps->opens[k + 1].base : ps->kid_top;
        size_t n = (size_t)(end - (ps->kids + o->base)) / sizeof(coax_value);
        if (k + 1 < ps->nopens ? n == 0 && ps->opens[k + 1].at == o->at + 1
                               : n == 1 && ((const coax_value *)(const void *)(ps->kids + o->base))->type == COAX_ARRAY)
            return true;
    }
    return false;
}

/* Whether the closers from r on, read as a mismatched one before them stands for the
** innermost container's, close more than is left open: {"a": 7]} leaves its '}' over, so
** the ']' stood for none; an opener lost ({"a": [7]}) or a bracket typed once too often
** ({"a": 7})? ([1, [}] closes what is left: a typo.) */
static bool closers_left_over(const lp *ps, const char *r)
{
    size_t open = ps->nopens - 1; /* what stays open once the innermost is closed */
    for (; r < ps->e && (*r == '}' || *r == ']' || ws_tab[(unsigned char)*r]); r++) {
        if (ws_tab[(unsigned char)*r]) continue;
        if (!open) return true;
        if (ps->opens[open - 1].object != (*r == '}')) return false; /* another mismatch: its own reading */
        open--;
    }
    return false;
}

/* A closing bracket 'c' while containers are open: closes the innermost,
** or, when 'c' matches one further out, closes everything up to it. */
coax_code lp_handle_close(lp *ps, char c, coax_value *v)
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
        /* an empty container in a list closed by the list's bracket: [{]
        ** holds {} whose '}' was lost, or a stray '{' ([])? ({] is read
        ** as its opener says, as the peers read it) */
        bool empty = ps->kid_top == ps->kids + ps->opens[ps->nopens - 1].base;
        if (k == 0 || object_goes_on) {
            /* {"label": "m}"]: "m}" with ']' typed for '}', or "m"} whole, its quote and brace exchanged, and a
            ** stray ']' */
            bool exchanged = k == 0 && lp_string_ends_with(ps, at, ps->opens[ps->nopens - 1].object ? '}' : ']');
            note_as(ps, RK_MISMATCHED_BRACKET, class_if(k == 0 && (closers_left_over(ps, r) || exchanged)), at);
        } else {
            /* opens[k-1] matches: close everything inside it first. One
            ** level has one reading; several leave open where each ended. */
            coax_class cls = class_if(ps->nopens - k > 1 || (empty && !ps->opens[k - 1].object) ||
                                      lp_open_stray(ps, at) ||
                                      lp_string_ends_with(ps, at, ps->opens[ps->nopens - 1].object ? '}' : ']') ||
                                      lp_pair_closed(ps));
            while (ps->nopens > k) {
                note_as(ps, RK_MISSING_BRACKET, cls, at);
                coax_value inner;
                coax_code rc = lp_close_top(ps, &inner, false);
                if (rc) return rc;
                if ((rc = put_kid(ps, &ps->opens[ps->nopens - 1], &inner))) return rc;
            }
        }
    } else {
        lp_closer_layout(ps, &ps->opens[ps->nopens - 1], at);
    }
    return lp_close_top(ps, v, false);
}


/* Whether the text from a and the text from b, spaces aside, are one the beginning of the other up to where
** the first ends (ae or be), holding a comma or a closer in that part: one item, member or value closed at least. */
static bool one_begins_other(const char *a, const char *ae, const char *b, const char *be)
{
    bool closed = false;
    walk_alike(&a, ae, &b, be, &closed);
    return (a >= ae || b >= be) && closed;
}

/* Whether a container left open at the end starts over one further out, also left open: its text to the end
** and all written from the outer one's opener up to it begin alike ([{"a": 1}, {"a": 2}⏎⏎[{"a": 1}, {"a": 2}
** is the reply written again, both copies cut, or a list holding itself?). Each looks LP_RESTART_LEVELS
** outward at most, so a byte is read LP_RESTART_LEVELS squared times at most. */
static bool open_restarts_open(const lp *ps, const char *end)
{
    for (size_t j = 1; j < ps->nopens; j++) {
        const char *inner = ps->opens[j].at;
        for (size_t i = j > LP_RESTART_LEVELS ? j - LP_RESTART_LEVELS : 0; i < j; i++)
            if (*ps->opens[i].at == *inner && one_begins_other(ps->opens[i].at, inner, inner, end)) return true;
    }
    return false;
}

/* How many containers of stack[0..depth), innermost first, the closers from q on (spaces between them) close
** inside the string ending at 'quote'; '*ends' says whether the string ends right after them. */
static size_t closer_run(const char *q, const char *quote, const char *stack, size_t depth, bool *ends,
                         const char **next)
{
    size_t n = 0;
    for (; n < depth; n++, q++) {
        while (q < quote && ws_tab[(unsigned char)*q]) q++;
        if (q >= quote || *q != (stack[depth - 1 - n] == '{' ? '}' : ']')) break;
    }
    while (q < quote && ws_tab[(unsigned char)*q]) q++;
    *ends = q >= quote;
    *next = q;
    return n;
}

/* Whether the n innermost of stack[0..depth), which closers ending a string close, are of the kinds of all
** the containers left open at the end, innermost first: the closers after the string, a level further out once
** those are the string's closers moved out of it, then close them all ({"c": {"d": "e}"}, "f": 1} is "e}" and
** the outer brace lost, or "e"} with the quote and brace exchanged, whole). */
static bool shifted_closes(const lp *ps, const char *stack, size_t depth, size_t n, const char *after,
                           const char *end)
{
    if (n != ps->nopens) return false;
    /* exchanged, the closers right after the string close what is left open; members after them would be left
    ** after a whole document ({"c": {"d": "e}"}, "f": 1): the brace lost at the end reads alone */
    size_t closers = 0;
    for (; after < end && (ws_tab[(unsigned char)*after] || *after == '}' || *after == ']'); after++)
        closers += !ws_tab[(unsigned char)*after];
    if (closers >= depth - n && after < end) return false;
    for (size_t i = 0; i < n; i++)
        if ((stack[depth - 1 - i] == '{') != ps->opens[ps->nopens - 1 - i].object) return false;
    return true;
}

/* Whether what follows a string at 'after' (past spaces) goes on a container further out, an object's ('object')
** or a list's: a comma, then a key and its colon in an object ({"tags": ["math", "poetry]", "art": the
** exchanged reading makes "art" a key with no value). */
static bool fits_further_out(const char *after, const char *end, bool object)
{
    if (after >= end || *after != ',') return false;
    if (!object) return true;
    for (after++; after < end && ws_tab[(unsigned char)*after];) after++;
    if (after >= end || *after != '"') return false;
    for (after++; after < end && *after != '"'; after++) after += *after == '\\';
    for (after++; after < end && ws_tab[(unsigned char)*after];) after++;
    return after < end && *after == ':';
}

/* Whether a key holding the closers of the n innermost of stack[0..depth) (openers at[]) then a comma ("qty: 1}],
** total": 3}) reads as two quotes lost as well: moved out of it, its closers and the ones written after it close
** all that is left open at the end (the same n, their kinds alike), as written those after it close fewer. */
static bool key_holds_ends(const lp *ps, const char *stack, const char *const *at, size_t depth, size_t n)
{
    if (n != ps->nopens || n >= depth || at[n - 1] != ps->opens[n - 1].at) return false;
    for (size_t i = 0; i < depth - n; i++)
        if (stack[depth - 1 - i] != stack[depth - n - 1 - i]) return false;
    return true;
}

/* Whether a double-quoted string between the outermost container left open at the end and 'end' holds, after
** some text and before any bracket of its own opened, the closers of every container open around it: { "guests":
** ["Ada", "Bob] }  (no guests)  { ", "guests" is a list of three strings closed at the end, or Bob's quote lost
** before the closers that ended the JSON, the rest the model's stray text. One slip each; the reading is a guess.
** So is a string the reply ends on whose text ends with closers of the innermost ones: ["math", "poetry]" is
** "poetry]" with the list's ']' lost, or its quote and ']' exchanged, the ones further out lost either way;
** and one whose closers, moved out of it, leave the closers after it closing all that is left open.
** A string whose closer an opener in it matches ("f() { return 1; }") holds no such run. Or whether the last
** value of the innermost container starts one further out over (restarts_outer): one pass over the text for
** both. Or whether a container left open starts over an outer one (open_restarts_open). */
bool lp_open_two_ways(const lp *ps, const char *end)
{
    char stack[LP_RUN_DEPTH];
    const char *at[LP_RUN_DEPTH], *last = NULL, *last_end = NULL; /* openers; the innermost open's last value */
    size_t depth = 0;
    for (const char *p = ps->opens[0].at; p < end; p++) {
        if (*p == '{' || *p == '[') {
            if (depth == LP_RUN_DEPTH) return open_restarts_open(ps, end);
            at[depth] = p;
            stack[depth++] = *p;
        } else if (*p == '}' || *p == ']') {
            if (depth && --depth == ps->nopens) last = at[depth], last_end = p + 1;
        } else if (*p == '"') {
            const char *open = p++, *run = NULL;
            unsigned inner = 0; /* brackets the string opened itself */
            for (; p < end && *p != '"'; p++) {
                if (*p == '\\') {
                    p += p + 1 < end;
                } else if (*p == '{' || *p == '[') {
                    inner++;
                } else if ((*p == '}' || *p == ']') && !inner && !run) {
                    const char *t = p;
                    while (t > open + 1 && ws_tab[(unsigned char)t[-1]]) t--;
                    if (t > open + 1) run = p; /* text before it: the first run only */
                } else if ((*p == '}' || *p == ']') && inner) {
                    inner--;
                }
            }
            if (p >= end) break; /* a string the reply ends in holds no run the text after it reads */
            bool ends;
            const char *next = NULL; /* the string's text after its closers */
            size_t n = run && depth ? closer_run(run, p, stack, depth, &ends, &next) : 0;
            const char *after = p + 1;
            while (after < end && ws_tab[(unsigned char)*after]) after++;
            if (n && (n == depth || (ends && (after >= end || shifted_closes(ps, stack, depth, n, after, end)))))
                return true;
            /* {"u": {"e": "a@b.c}", "on": true: in the object left open, or the quote and brace exchanged and
            ** "on" the outer one's; either way brackets are cut at the end */
            if (n && n < depth && ends && depth == ps->nopens && at[depth - 1] == ps->opens[depth - 1].at &&
                fits_further_out(after, end, stack[depth - n - 1] == '{'))
                return true;
            if (n && !ends && *next == ',' && after < end && *after == ':' && key_holds_ends(ps, stack, at, depth, n))
                return true;
        }
    }
    return (depth == ps->nopens && restarts_outer(ps, last, last_end, end)) || open_restarts_open(ps, end);
}


/* The bytes lp_line_item reads of a list's first line: a longer one is not noted (its cost bounded). */
#define LP_LINE_LOOK 4096

void lp_line_item(lp *ps, const lopen *top, const char *p)
{
    if (ps->kid_top > ps->kids + top->base && last_kid_value(ps)->type == COAX_STRING)
        ps->pair_list = top->at, ps->pair_kids = ps->kid_top;
    if (ps->line_looked == top->at) return;
    const char *c = p; /* the end of the item before */
    while (c > top->at && ws_tab[(unsigned char)c[-1]]) c--;
    if (!memchr(c, '\n', (size_t)(p - c))) return;
    ps->line_looked = top->at;
    if (c - top->at <= LP_LINE_LOOK && !memchr(top->at, '\n', (size_t)(c - top->at))) ps->line_item = top->at;
}

bool lp_open_line_item(const lp *ps)
{
    for (size_t k = 0; ps->line_item && k < ps->nopens; k++)
        if (ps->opens[k].at == ps->line_item) return true;
    return false;
}

bool lp_pair_closed(const lp *ps)
{
    const lopen *o = &ps->opens[ps->nopens - 1];
    return !o->object && ps->pair_list == o->at && ps->kid_top == ps->pair_kids + sizeof(coax_value);
}
