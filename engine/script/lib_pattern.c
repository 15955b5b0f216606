/*
** script/lib_pattern.c: Lua 5.4's pattern functions (string.find, match, gmatch,
** gsub) with a step count, for the sandbox.
**
** The stock functions run in C, where the engine's instruction count never
** looks: `("a"):rep(2000):find(".-.-.-b")` runs for hours, whatever the
** script's budget, and blocks the host. These behave as the manual
** (section 6.4.1) says, and count their steps (one step: a subject position
** tried, a character of a repetition, a character of a balanced match or of
** a plain search, COPY_BYTES bytes of text searched or copied into a
** result). They hand the count to the `tick` function they were made with,
** tick(steps), every TICK steps and as they end, return or raise, so no
** call's steps go uncounted: the sandbox's tick charges a step as a Lua
** instruction, so matching is charged to the script's instruction budget
** and stops with it about as soon as a loop in Lua would (spec/host_spec.lua's
** loops of them run 0.2 to 4 times as long as `while true do end` on the same
** budget, up to 7.5 times under ASan, whose allocator makes copies dear).
**
**   coax.patterns([tick]) -> {find = f, match = f, gmatch = f, gsub = f}
*/
#include "script/lib.h"
#include "base/stack.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#define MAXCAP 32      /* captures in one pattern, as LUA_MAXCAPTURES */
#define MAXDEPTH 200   /* nested matching calls: "pattern too complex" */
#define TICK 1024      /* steps between two calls of tick */
/* Bytes searched by memchr or copied into a result, a step: a copy of a megabyte, with its
** allocation, takes the time of 2^17 instructions of Lua in a plain build and 4 times that under
** ASan's allocator; at 64 a step, a million gsubs of a megabyte ran 12 times as long as Lua. */
#define COPY_BYTES 8
#define PUSH_STEPS 8   /* a capture made a Lua value: a string interned, a number made text for gsub */
#define CAP_OPEN (-1)  /* a capture not closed yet */
#define CAP_POS (-2)   /* a position capture, () */

typedef struct pm {
    lua_State *L;
    const char *s0, *se; /* the subject */
    const char *pe;      /* the end of the pattern */
    int tick;            /* the upvalue index of tick, or 0 */
    int depth, level;
    long left; /* steps until the next tick: TICK - left were counted since the last */
    struct {
        const char *at;
        ptrdiff_t len; /* or CAP_OPEN, CAP_POS */
    } cap[MAXCAP];
} pm;

/* Hands the steps counted since the last tick to tick. Every way out of a
** call runs it first (a return, an error, a replacement function that may
** raise): a call that ended below TICK steps was free before, and a loop of
** gmatch's short matches or of finds of a thousand steps each ran 13 to 40
** times as long as a Lua loop on the same budget. */
static void settle(pm *m)
{
    long n = TICK - m->left;
    m->left = TICK;
    if (n <= 0 || !m->tick) return;
    lua_pushvalue(m->L, lua_upvalueindex(m->tick));
    lua_pushinteger(m->L, n);
    lua_call(m->L, 1, 0); /* may raise the engine's stop: nothing here needs freeing */
}

/* n steps (a size: a set of megabytes read at every step counts its bytes). */
static void charge(pm *m, size_t n)
{
    long most = TICK + (1L << 40); /* far past any budget, and no overflow below */
    m->left -= n > (size_t)most ? most : (long)n;
    if (m->left <= 0) settle(m);
}

static void step(pm *m) { charge(m, 1); }

/* Raises a pattern error (as luaL_error), the steps that led to it charged. */
static int pm_error(pm *m, const char *fmt, ...)
{
    settle(m);
    va_list ap;
    va_start(ap, fmt);
    luaL_where(m->L, 1);
    lua_pushvfstring(m->L, fmt, ap);
    va_end(ap);
    lua_concat(m->L, 2);
    return lua_error(m->L);
}

static int uc(char c) { return (unsigned char)c; }

/* What reading the item from p to ep once costs beyond its one step: a set
** is read whole (item_end, set_has), so a set of megabytes costs megabytes
** a step; it is charged a step for every SET_BYTES of it (32 undercharged
** sets of %d classes, a call each, 20 times). */
#define SET_BYTES 8
static size_t item_cost(const char *p, const char *ep) { return *p == '[' ? (size_t)(ep - p) / SET_BYTES : 0; }

/* %a, %d, ... (their upper case: the complement); any other: itself. */
static int class_has(int c, int cl)
{
    int r;
    switch (tolower(cl)) {
    case 'a': r = isalpha(c); break;
    case 'c': r = iscntrl(c); break;
    case 'd': r = isdigit(c); break;
    case 'g': r = isgraph(c); break;
    case 'l': r = islower(c); break;
    case 'p': r = ispunct(c); break;
    case 's': r = isspace(c); break;
    case 'u': r = isupper(c); break;
    case 'w': r = isalnum(c); break;
    case 'x': r = isxdigit(c); break;
    case 'z': r = c == 0; break; /* deprecated in 5.2, still in 5.4 */
    default: return cl == c;
    }
    if (isupper(cl)) r = !r;
    return r != 0;
}

/* The end of the single-character class at p. */
static const char *item_end(pm *m, const char *p)
{
    if (*p == '%') {
        if (p + 1 >= m->pe) pm_error(m, "malformed pattern (ends with '%%')");
        return p + 2;
    }
    if (*p == '[') {
        const char *q = p + 1;
        if (q < m->pe && *q == '^') q++;
        for (;;) { /* the first character is always in the set: "[]]" */
            if (q >= m->pe) break;
            if (*q++ == '%' && q < m->pe) q++;
            if (q >= m->pe) break;
            if (*q == ']') return q + 1;
        }
        charge(m, (size_t)(q - p) / SET_BYTES); /* read to the pattern's end: 4 MB a call, uncharged */
        pm_error(m, "malformed pattern (missing ']')");
    }
    return p + 1;
}

/* Whether c is in the set from '[' at p to its ']' at close. As in stock
** Lua, a '%' takes the next character as its class even when that is the
** closing ']' (item_end, which skips escapes from the set's start, can pair
** them differently: "[v-%%]" is the range v-% and then "%]", the class of
** ']'; found by spec/fuzz/fuzz_pattern.c). */
static int set_has(int c, const char *p, const char *close)
{
    int in = 1;
    if (p[1] == '^') {
        in = 0;
        p++;
    }
    while (++p < close) {
        if (*p == '%') {
            p++;
            if (class_has(c, uc(*p))) return in;
        } else if (p[1] == '-' && p + 2 < close) {
            p += 2;
            if (uc(p[-2]) <= c && c <= uc(*p)) return in;
        } else if (uc(*p) == c) {
            return in;
        }
    }
    return !in;
}

/* Whether the subject character at s is in the class from p to ep. */
static int one(const pm *m, const char *s, const char *p, const char *ep)
{
    if (s >= m->se) return 0;
    int c = uc(*s);
    switch (*p) {
    case '.': return 1;
    case '%': return class_has(c, uc(p[1]));
    case '[': return set_has(c, p, ep - 1);
    default: return uc(*p) == c;
    }
}

static const char *do_match(pm *m, const char *s, const char *p);

static const char *max_expand(pm *m, const char *s, const char *p, const char *ep)
{
    ptrdiff_t i = 0;
    size_t cost = 1 + item_cost(p, ep);
    while (one(m, s + i, p, ep)) {
        i++;
        charge(m, cost);
    }
    for (; i >= 0; i--) { /* the longest first */
        const char *r = do_match(m, s + i, ep + 1);
        if (r) return r;
        step(m);
    }
    return NULL;
}

static const char *min_expand(pm *m, const char *s, const char *p, const char *ep)
{
    size_t cost = 1 + item_cost(p, ep);
    for (;;) {
        const char *r = do_match(m, s, ep + 1);
        if (r) return r;
        if (!one(m, s, p, ep)) return NULL;
        s++;
        charge(m, cost);
    }
}

static const char *open_capture(pm *m, const char *s, const char *p, ptrdiff_t what)
{
    if (m->level >= MAXCAP) pm_error(m, "too many captures");
    m->cap[m->level].at = s;
    m->cap[m->level].len = what;
    m->level++;
    const char *r = do_match(m, s, p);
    if (!r) m->level--;
    return r;
}

static const char *close_capture(pm *m, const char *s, const char *p)
{
    int l = m->level - 1;
    while (l >= 0 && m->cap[l].len != CAP_OPEN) l--;
    if (l < 0) pm_error(m, "invalid pattern capture");
    m->cap[l].len = s - m->cap[l].at;
    const char *r = do_match(m, s, p);
    if (!r) m->cap[l].len = CAP_OPEN;
    return r;
}

/* %bxy at p (pointing at x). */
static const char *balance(pm *m, const char *s, const char *p)
{
    if (p + 1 >= m->pe) pm_error(m, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->se || *s != *p) return NULL;
    char open = p[0], close = p[1];
    int depth = 1;
    while (++s < m->se) {
        step(m);
        if (*s == close) {
            if (--depth == 0) return s + 1;
        } else if (*s == open) {
            depth++;
        }
    }
    return NULL;
}

/* %1..%9: the text of capture 'd' again. */
static const char *backref(pm *m, const char *s, int d)
{
    int l = d - '1';
    if (l < 0 || l >= m->level || m->cap[l].len == CAP_OPEN) pm_error(m, "invalid capture index %%%d", l + 1);
    ptrdiff_t len = m->cap[l].len;
    if (len < 0 || m->se - s < len) return NULL;
    charge(m, (size_t)len / SET_BYTES); /* a capture of megabytes compared at every step */
    if (memcmp(m->cap[l].at, s, (size_t)len)) return NULL;
    return s + len;
}

/* The end of the match of pattern p (to m->pe) at s, or NULL. */
static const char *do_match(pm *m, const char *s, const char *p)
{
    /* every 8 levels (a level is about 80 bytes of stack) it also stops at the VM's floor for the
    ** C stack (base/stack.h): under a script's nested C calls 200 levels may not fit */
    if (++m->depth > MAXDEPTH || (m->depth % 8 == 0 && coax_stack_short()))
        pm_error(m, "pattern too complex");
    step(m);
    const char *r = NULL;
    while (p < m->pe) {
        if (*p == '(') {
            r = p + 1 < m->pe && p[1] == ')' ? open_capture(m, s, p + 2, CAP_POS) : open_capture(m, s, p + 1, CAP_OPEN);
            goto done;
        }
        if (*p == ')') {
            r = close_capture(m, s, p + 1);
            goto done;
        }
        if (*p == '$' && p + 1 == m->pe) {
            r = s == m->se ? s : NULL;
            goto done;
        }
        if (*p == '%' && p + 1 < m->pe) {
            if (p[1] == 'b') {
                s = balance(m, s, p + 2);
                if (!s) goto done;
                p += 4;
                continue;
            }
            if (p[1] == 'f') {
                p += 2;
                if (p >= m->pe || *p != '[') pm_error(m, "missing '[' after '%%f' in pattern");
                const char *ep = item_end(m, p);
                charge(m, 1 + 3 * item_cost(p, ep)); /* the set read three times */
                int before = s == m->s0 ? 0 : uc(s[-1]);
                int here = s < m->se ? uc(*s) : 0;
                if (set_has(before, p, ep - 1) || !set_has(here, p, ep - 1)) goto done;
                p = ep;
                continue;
            }
            if (isdigit(uc(p[1]))) {
                s = backref(m, s, uc(p[1]));
                if (!s) goto done;
                p += 2;
                continue;
            }
        }
        /* a step an item: one that matches once or not at all moves on here, with
        ** no call of do_match, and a pattern of 8 million of them was 27 s a call */
        const char *ep = item_end(m, p);
        charge(m, 1 + item_cost(p, ep));
        char q = ep < m->pe ? *ep : '\0';
        if (!one(m, s, p, ep)) {
            if (q == '*' || q == '?' || q == '-') { /* zero of them */
                p = ep + 1;
                continue;
            }
            goto done;
        }
        switch (q) {
        case '?':
            r = do_match(m, s + 1, ep + 1);
            if (r) goto done;
            p = ep + 1;
            continue;
        case '+': r = max_expand(m, s + 1, p, ep); goto done;
        case '*': r = max_expand(m, s, p, ep); goto done;
        case '-': r = min_expand(m, s, p, ep); goto done;
        default:
            s++;
            p = ep;
        }
    }
    r = s;
done:
    m->depth--;
    return r;
}

static void prepare(pm *m, lua_State *L, const char *s, size_t ls, const char *p, size_t lp, int tick)
{
    m->L = L;
    m->s0 = s;
    m->se = s + ls;
    m->pe = p + lp;
    m->tick = tick;
    m->left = TICK;
}

static void restart(pm *m)
{
    m->depth = 0;
    m->level = 0;
}

/* Pushes capture i of a match from s to e (the whole match when there are
** no captures and i is 0). */
static void push_capture(pm *m, int i, const char *s, const char *e)
{
    charge(m, PUSH_STEPS);
    if (i >= m->level) {
        if (i != 0) pm_error(m, "invalid capture index %%%d", i + 1);
        lua_pushlstring(m->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t len = m->cap[i].len;
    if (len == CAP_OPEN) pm_error(m, "unfinished capture");
    if (len == CAP_POS) lua_pushinteger(m->L, (lua_Integer)(m->cap[i].at - m->s0) + 1);
    else lua_pushlstring(m->L, m->cap[i].at, (size_t)len);
}

/* Pushes every capture (or the whole match when s is not NULL and there
** are none); returns how many. */
static int push_captures(pm *m, const char *s, const char *e)
{
    int n = m->level == 0 && s ? 1 : m->level;
    luaL_checkstack(m->L, n + 2, "too many captures"); /* and settle's two */
    for (int i = 0; i < n; i++) push_capture(m, i, s, e);
    return n;
}

/* Lua 5.4's rule for a start position: negative counts from the end, 0 and
** anything before the start is 1. */
static size_t start_at(lua_Integer pos, size_t len)
{
    if (pos > 0) return (size_t)pos;
    if (pos == 0) return 1;
    if (pos < -(lua_Integer)len) return 1;
    return len + (size_t)pos + 1;
}

/* Whether pattern p has a special character: a read of it whole, charged. */
static int has_specials(pm *m, const char *p, size_t lp)
{
    charge(m, lp / COPY_BYTES); /* 4 MB read a call went uncharged */
    for (size_t i = 0; i < lp; i++)
        if (coax_byte_in("^$*+?.([%-", p[i])) return 1;
    return 0;
}

static int tick_index(lua_State *L) { return lua_isfunction(L, lua_upvalueindex(1)) ? 1 : 0; }

static int find_aux(lua_State *L, int find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_at(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init > ls) {
        luaL_pushfail(L);
        return 1;
    }
    pm m;
    prepare(&m, L, s, ls, p, lp, tick_index(L));
    if (find && (lua_toboolean(L, 4) || !has_specials(&m, p, lp))) { /* a plain search */
        if (lp == 0) {
            lua_pushinteger(L, (lua_Integer)init + 1);
            lua_pushinteger(L, (lua_Integer)init);
            return 2;
        }
        for (const char *at = s + init; lp <= (size_t)(s + ls - at);) {
            size_t span = (size_t)(s + ls - at) - lp + 1;
            const char *hit = memchr(at, *p, span);
            charge(&m, 1 + (hit ? (size_t)(hit - at) : span) / COPY_BYTES + lp / 16);
            if (!hit) break;
            if (!memcmp(hit, p, lp)) {
                settle(&m);
                lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
                lua_pushinteger(L, (lua_Integer)(hit - s) + (lua_Integer)lp);
                return 2;
            }
            at = hit + 1;
        }
        settle(&m);
        luaL_pushfail(L);
        return 1;
    }
    int anchor = lp > 0 && *p == '^';
    if (anchor) p++;
    const char *at = s + init;
    do {
        restart(&m);
        const char *e = do_match(&m, at, p);
        if (e) {
            int n = 0;
            if (find) {
                lua_pushinteger(L, (lua_Integer)(at - s) + 1);
                lua_pushinteger(L, (lua_Integer)(e - s));
                n = 2;
            }
            n += find ? push_captures(&m, NULL, NULL) : push_captures(&m, at, e);
            settle(&m);
            return n;
        }
    } while (at++ < m.se && !anchor);
    settle(&m);
    luaL_pushfail(L);
    return 1;
}

static int p_find(lua_State *L) { return find_aux(L, 1); }
static int p_match(lua_State *L) { return find_aux(L, 0); }

/* gmatch's iterator: upvalues tick, subject, pattern, {next, last}. */
static int gmatch_next(lua_State *L)
{
    size_t ls, lp;
    const char *s = lua_tolstring(L, lua_upvalueindex(2), &ls);
    const char *p = lua_tolstring(L, lua_upvalueindex(3), &lp);
    lua_Integer *state = lua_touserdata(L, lua_upvalueindex(4));
    pm m;
    prepare(&m, L, s, ls, p, lp, tick_index(L));
    for (const char *at = s + state[0]; at <= m.se; at++) {
        restart(&m);
        const char *e = do_match(&m, at, p);
        if (e && e - s != state[1]) {
            state[0] = state[1] = e - s;
            int n = push_captures(&m, at, e);
            settle(&m);
            return n;
        }
    }
    settle(&m);
    return 0;
}

static int p_gmatch(lua_State *L)
{
    size_t ls;
    luaL_checklstring(L, 1, &ls);
    luaL_checkstring(L, 2);
    size_t init = start_at(luaL_optinteger(L, 3, 1), ls) - 1;
    lua_settop(L, 2);
    lua_Integer *state = lua_newuserdatauv(L, 2 * sizeof *state, 0);
    state[0] = init > ls ? (lua_Integer)ls + 1 : (lua_Integer)init;
    state[1] = -1; /* the end of the last match: none yet */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_rotate(L, 1, 1); /* tick, s, p, state */
    lua_pushcclosure(L, gmatch_next, 4);
    return 1;
}

/* Adds n bytes at t to the result: a step every COPY_BYTES of them (a
** replacement of a megabyte at every match of a short subject, a million
** times, copies terabytes that no memory bound sees). */
static void add_text(pm *m, luaL_Buffer *b, const char *t, size_t n)
{
    charge(m, n / COPY_BYTES);
    luaL_addlstring(b, t, n);
}

/* Adds the string on top of the stack to the result, a step every
** COPY_BYTES of it; charged with the value on top, which leaves the stack
** balanced, as the buffer wants. */
static void add_top(pm *m, luaL_Buffer *b)
{
    charge(m, lua_rawlen(m->L, -1) / COPY_BYTES);
    luaL_addvalue(b);
}

/* Adds the replacement string for a match from s to e: %0-%9 and %%. */
static void add_string(pm *m, luaL_Buffer *b, const char *s, const char *e)
{
    lua_State *L = m->L;
    size_t l;
    const char *r = lua_tolstring(L, 3, &l);
    const char *end = r + l;
    while (r < end) {
        const char *pc = memchr(r, '%', (size_t)(end - r));
        if (!pc) {
            add_text(m, b, r, (size_t)(end - r));
            return;
        }
        add_text(m, b, r, (size_t)(pc - r));
        /* a step each: "%0" of an empty match adds nothing, so no memory
        ** bounds a replacement of a million of them at every position */
        step(m);
        pc++;
        if (pc < end && *pc == '%') {
            luaL_addchar(b, '%');
        } else if (pc < end && isdigit(uc(*pc))) {
            if (*pc == '0') {
                add_text(m, b, s, (size_t)(e - s));
            } else {
                push_capture(m, *pc - '1', s, e);
                luaL_tolstring(L, -1, NULL);
                lua_remove(L, -2);
                add_top(m, b);
            }
        } else {
            pm_error(m, "invalid use of '%%' in replacement string");
        }
        r = pc + 1;
    }
}

/* Adds the replacement of a match from s to e; false when the match stays. */
static void add_value(pm *m, luaL_Buffer *b, const char *s, const char *e, int type)
{
    lua_State *L = m->L;
    if (type != LUA_TFUNCTION && type != LUA_TTABLE) {
        add_string(m, b, s, e);
        return;
    }
    if (type == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = push_captures(m, s, e);
        settle(m); /* the function may raise */
        lua_call(L, n, 1);
    } else {
        push_capture(m, 0, s, e);
        settle(m); /* an __index may raise */
        lua_gettable(L, 3);
    }
    if (!lua_toboolean(L, -1)) { /* nil or false: the original text */
        lua_pop(L, 1);
        add_text(m, b, s, (size_t)(e - s));
    } else if (!lua_isstring(L, -1)) {
        pm_error(m, "invalid replacement value (a %s)", luaL_typename(L, -1));
    } else {
        lua_tolstring(L, -1, NULL); /* a number made text, as luaL_addvalue would */
        add_top(m, b);
    }
}

/* The character every match of pattern p (anchor taken off) starts with,
** when its first item is a plain character that must occur (not a class,
** a set, a capture, nor followed by '*', '?' or '-'); else -1. */
static int first_char(const char *p, size_t lp)
{
    if (lp == 0 || coax_byte_in("()%[.$", p[0])) return -1;
    if (lp > 1 && (p[1] == '*' || p[1] == '?' || p[1] == '-')) return -1;
    return uc(p[0]);
}

static int p_gsub(lua_State *L)
{
    size_t ls, lp;
    const char *src = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int type = lua_type(L, 3);
    lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L, type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION || type == LUA_TTABLE, 3,
                     "string/function/table");
    int anchor = lp > 0 && *p == '^';
    if (anchor) {
        p++;
        lp--;
    }
    pm m;
    prepare(&m, L, src, ls, p, lp, tick_index(L));
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *last = NULL;
    lua_Integer n = 0;
    /* Where the subject does not hold the pattern's first character, no
    ** match starts: a match tried there is one step, and the character is
    ** copied. Those runs go at once (a template's text between its
    ** {{placeholders}}: trying each position was most of a feedback's
    ** rendering), a step and their bytes searched and copied. */
    int first = anchor ? -1 : first_char(p, lp);
    while (n < max) {
        if (first >= 0 && src < m.se && uc(*src) != first) {
            const char *to = memchr(src, first, (size_t)(m.se - src));
            if (!to) to = m.se;
            step(&m);
            add_text(&m, &b, src, (size_t)(to - src));
            src = to;
            continue;
        }
        restart(&m);
        const char *e = do_match(&m, src, p);
        if (e && e != last) {
            n++;
            add_value(&m, &b, src, e, type);
            src = last = e;
        } else if (src < m.se) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchor) break;
    }
    add_text(&m, &b, src, (size_t)(m.se - src));
    settle(&m);
    luaL_pushresult(&b);
    lua_pushinteger(L, n);
    return 2;
}

/* coax.patterns([tick]) -> {find, match, gmatch, gsub} calling tick(steps)
** every TICK steps of matching and as each call ends. */
static int l_patterns(lua_State *L)
{
    if (!lua_isnoneornil(L, 1)) luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    static const luaL_Reg fns[] = {
        {"find", p_find}, {"match", p_match}, {"gmatch", p_gmatch}, {"gsub", p_gsub}, {NULL, NULL}};
    lua_createtable(L, 0, 4);
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_pushvalue(L, 1);
        lua_pushcclosure(L, f->func, 1);
        lua_setfield(L, -2, f->name);
    }
    return 1;
}

void lcoax_open_pattern(lua_State *L)
{
    lua_pushcfunction(L, l_patterns);
    lua_setfield(L, -2, "patterns");
}
