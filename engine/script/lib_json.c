/*
** script/lib_json.c: JSON values on the Lua side, and coax.json.
**
** lua-cjson loses [] vs {}, integers above 2^53 and key order, so values
** that must survive exactly cross here: null is coax.null (the same light
** userdata as cjson.null), arrays and objects carry marker metatables,
** objects remember their key order, integers stay integers and numbers that
** fit no Lua number stay text (coax.json.number).
*/
#include "script/lib.h"

#include "base/hash.h"
#include "base/stack.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- coax value -> Lua ------------------------------------------------- */

static void push_big_number(lua_State *L, const char *text, size_t len)
{
    lua_createtable(L, 0, 1);
    lua_pushlstring(L, text, len);
    lua_setfield(L, -2, "text");
    luaL_setmetatable(L, LCOAX_NUMBER);
}

/* Number text of at most MAX_QUICK digits, no exponent, read without
** strtoll or strtod (which took most of a number's push): an integer of 18
** digits fits any long long; a decimal of 15 digits is an exact double m
** over an exact power of ten, and one division rounds as strtod does (the
** quotient of two exact operands, correctly rounded). False for any other
** text: strtoll and strtod read it. */
static bool quick_number(const char *t, size_t len, bool integer, lua_Integer *i, double *d)
{
    static const double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    size_t k = 0;
    bool neg = len && t[0] == '-';
    k = neg;
    uint64_t m = 0;
    size_t digits = 0, frac = 0, max = integer ? 18 : 15;
    bool point = false;
    for (; k < len; k++) {
        char c = t[k];
        if (c >= '0' && c <= '9') {
            if (++digits > max) return false;
            m = m * 10 + (uint64_t)(c - '0');
            frac += point;
        } else if (c == '.' && !integer && !point && digits) {
            point = true;
        } else {
            return false;
        }
    }
    if (!digits || (point && !frac)) return false;
    if (integer) {
        *i = neg ? -(lua_Integer)m : (lua_Integer)m;
        return true;
    }
    double x = frac ? (double)m / pow10[frac] : (double)m;
    *d = neg ? -x : x;
    return true;
}

/* Whether a number's digits before its exponent hold one that is not 0:
** 1e-400 is no zero, though a double rounds it to one (as 1e400 to
** infinity), so it stays text. */
static bool nonzero_digit(const char *t, size_t len)
{
    for (size_t k = 0; k < len && t[k] != 'e' && t[k] != 'E'; k++)
        if (t[k] >= '1' && t[k] <= '9') return true;
    return false;
}

/* Whether the double 'd' read from text[0..len) holds every digit the text
** writes: printed with as many significant digits, it is the same number
** (0.1, 1.10, 1.6000000000000001, 0.30000000000000004). More digits than
** a double holds (3.14159265358979323846, 123456789012345678901234567890.5,
** 1.00000000000000001) would change on the way to Lua, silently: such a
** number stays text, as a number out of a double's range does. */
static bool double_is_text(double d, const char *text, size_t len)
{
    size_t first = SIZE_MAX, last = 0, digits = 0; /* significant digits: the first and last not 0 */
    for (size_t k = 0; k < len && text[k] != 'e' && text[k] != 'E'; k++) {
        if (text[k] < '0' || text[k] > '9') continue;
        if (text[k] != '0') {
            if (first == SIZE_MAX) first = digits;
            last = digits;
        }
        digits++;
    }
    size_t n = first == SIZE_MAX ? 1 : last - first + 1;
    if (n > 40) return false;
    char fmt[16], buf[80];
    snprintf(fmt, sizeof fmt, "%%.%zug", n);
    coax_dot_format(buf, sizeof buf, fmt, d);
    return coax_number_compare_text(buf, strlen(buf), text, len) == 0;
}

static void push_number(lua_State *L, const coax_value *v)
{
    lua_Integer qi;
    double qd;
    if (v->flags & COAX_VF_INT_TEXT) {
        if (quick_number(v->u.text, v->len, true, &qi, &qd) && coax_host_exact_integer((long long)qi)) {
            lua_pushinteger(L, qi);
            return;
        }
        errno = 0;
        char *end;
        long long n = strtoll(v->u.text, &end, 10);
        if (errno == 0 && end == v->u.text + v->len && coax_host_exact_integer(n)) {
            lua_pushinteger(L, (lua_Integer)n);
            return;
        }
    } else {
        if (quick_number(v->u.text, v->len, false, &qi, &qd)) {
            lua_pushnumber(L, qd);
            return;
        }
        double d = coax_dot_strtod(v->u.text, NULL);
        if (isfinite(d) && (d != 0 || !nonzero_digit(v->u.text, v->len)) && double_is_text(d, v->u.text, v->len)) {
            lua_pushnumber(L, d);
            return;
        }
    }
    push_big_number(L, v->u.text, v->len);
}

/* The registry's values each table pushed needs (the array and object
** metatables, the key-order table), on the stack once a push: looking them
** up by name for each table was a tenth of a value's push. */
typedef struct marks {
    int array, object, order;
} marks;

static void push_scalar(lua_State *L, const coax_value *v)
{
    switch (v->type) {
    case COAX_NULL: lua_pushlightuserdata(L, NULL); return;
    case COAX_BOOL: lua_pushboolean(L, v->u.boolean); return;
    case COAX_NUMBER: push_number(L, v); return;
    default: lua_pushlstring(L, v->u.text, v->len); return;
    }
}

/* A container being filled: its value, the next member, and whether it is
** an object (its key-order table is above it on the Lua stack). */
typedef struct push_frame {
    const coax_value *v;
    size_t next;
} push_frame;

/* Pushes the container 'v' (and an object's key-order table above it). */
static void open_container(lua_State *L, const coax_value *v, size_t depth, size_t max)
{
    if (depth >= max) luaL_error(L, "%s: nesting deeper than %d", coax_code_name(COAX_EDEPTH), (int)max);
    luaL_checkstack(L, 6, "JSON nesting");
    int n = (int)(v->len > 1u << 24 ? 0 : v->len);
    if (v->type == COAX_ARRAY) {
        lua_createtable(L, n, 0);
        return;
    }
    lua_createtable(L, 0, n);
    lua_createtable(L, n, 0); /* key order */
}

/* The container on top (an object's key-order table above it) is whole:
** marked, its order registered, the order table popped. */
static void close_container(lua_State *L, const coax_value *v, const marks *mk)
{
    if (v->type == COAX_OBJECT) {
        lua_pushvalue(L, -2); /* order[obj] = keys */
        lua_pushvalue(L, -2);
        lua_rawset(L, mk->order);
        lua_pop(L, 1);
    }
    lua_pushvalue(L, v->type == COAX_ARRAY ? mk->array : mk->object);
    lua_setmetatable(L, -2);
}

/* The value 'root' (an array or object) as Lua tables, built with a stack
** of frames in memory (the Lua state's), not C recursion: a thread with a
** small C stack ran out of it under a script's coax.json.decode of 4,000
** levels (about 200 bytes a level: 512 KB; attack round 20). */
static void push_tree(lua_State *L, const coax_value *root, size_t max, const marks *mk, int box)
{
    push_frame small[32], *frames = small;
    size_t cap = sizeof small / sizeof *small, n = 0;
    open_container(L, root, 0, max);
    frames[n++] = (push_frame){root, 0};
    while (n) {
        push_frame *f = &frames[n - 1];
        if (f->next == f->v->len) {
            close_container(L, f->v, mk);
            if (--n == 0) break;
            push_frame *up = &frames[n - 1];
            if (up->v->type == COAX_ARRAY) lua_rawseti(L, -2, (lua_Integer)up->next);
            else lua_rawset(L, -4);
            continue;
        }
        size_t i = f->next++;
        const coax_value *child = f->v->type == COAX_ARRAY ? &f->v->u.items[i] : &f->v->u.members[i].value;
        if (f->v->type == COAX_OBJECT) {
            const coax_member *m = &f->v->u.members[i];
            lua_pushlstring(L, m->key, m->klen);
            lua_pushvalue(L, -1);
            lua_rawseti(L, -3, (lua_Integer)i + 1);
        }
        if (child->type != COAX_ARRAY && child->type != COAX_OBJECT) {
            push_scalar(L, child);
            if (f->v->type == COAX_ARRAY) lua_rawseti(L, -2, (lua_Integer)f->next);
            else lua_rawset(L, -4);
            continue;
        }
        if (n == cap) { /* the frames move into a userdata kept in the slot 'box' */
            push_frame *bigger = lua_newuserdatauv(L, 2 * cap * sizeof *bigger, 0);
            memcpy(bigger, frames, n * sizeof *frames);
            lua_replace(L, box);
            frames = bigger;
            cap *= 2;
        }
        open_container(L, child, n, max);
        frames[n++] = (push_frame){child, 0};
    }
}

/* The depth a conversion takes, whatever limit the caller set: a value
** pushed is built without C recursion (push_tree), but a Lua table read
** (conv_rec) recurses, and its C stack must not run out. */
#define LUA_DEPTH_CAP 4096

void lcoax_push_value(lua_State *L, const coax_value *v, size_t max_depth)
{
    size_t max = max_depth < LUA_DEPTH_CAP ? max_depth : LUA_DEPTH_CAP;
    if (v->type != COAX_ARRAY && v->type != COAX_OBJECT) {
        push_scalar(L, v);
        return;
    }
    luaL_checkstack(L, 5, "JSON value");
    lua_pushnil(L); /* push_tree's frames, once they outgrow its own */
    int box = lua_gettop(L);
    luaL_getmetatable(L, LCOAX_ARRAY);
    luaL_getmetatable(L, LCOAX_OBJECT);
    lua_getfield(L, LUA_REGISTRYINDEX, LCOAX_ORDER);
    marks mk = {lua_absindex(L, -3), lua_absindex(L, -2), lua_absindex(L, -1)};
    push_tree(L, v, max, &mk, box);
    lua_replace(L, box); /* the value where the frames' slot began */
    lua_settop(L, box);
}

/* ---- Lua -> coax value ------------------------------------------------- */

struct order_memo;

typedef struct conv {
    lua_State *L;
    coax_arena *arena;
    size_t max;
    size_t max_bytes_total;
    size_t left;    /* bytes the value may still take (lcoax_to_value_max) */
    bool *exceeded; /* set when it took more */
    struct order_memo *orders; /* the key order lists indexed so far (order_index_of), or NULL */
} conv;

/* Takes n bytes of the value's budget: a table that holds the same table
** twice, 60 levels down, is 2^60 nodes, which a depth limit never sees. */
static void conv_take(conv *c, size_t n)
{
    if (n <= c->left) {
        c->left -= n;
        return;
    }
    if (c->exceeded) *c->exceeded = true;
    char limit[32]; /* in decimal here: Lua 5.1's luaL_error has no %I */
    snprintf(limit, sizeof limit, "%zu", c->max_bytes_total);
    luaL_error(c->L, "%s: the value is larger than the limit of %s bytes", coax_code_name(COAX_ESIZE), limit);
}

static void *conv_alloc(conv *c, size_t n)
{
    conv_take(c, n);
    void *p = coax_arena_alloc(c->arena, n);
    if (!p) lcoax_error(c->L, COAX_ENOMEM, NULL);
    return p;
}

static void format_double(char *buf, size_t size, double d)
{
    /* The shortest of %.15g..%.17g that reads back as the same double. */
    static const char *const shortest_first[] = {"%.15g", "%.16g", "%.17g"};
    for (size_t i = 0; i < sizeof shortest_first / sizeof *shortest_first; i++) {
        coax_dot_format(buf, size, shortest_first[i], d);
        if (coax_dot_strtod(buf, NULL) == d) break;
    }
    if (strspn(buf, "-0123456789") == strlen(buf)) strcat(buf, ".0");
}

static void conv_rec(conv *c, int idx, coax_value *out, size_t depth);

/* A key of a table being converted: its text (a string key's own bytes,
** which the table anchors, or an integer key's decimal, in the arena) and
** whether it is an integer key (1 and "1" are two keys). */
typedef struct tkey {
    const char *text;
    size_t len;
    lua_Integer integer;
    bool is_integer, placed;
    size_t rank; /* its first position in an indexed order list */
} tkey;

static int tkey_cmp(const void *a, const void *b)
{
    const tkey *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int r = memcmp(x->text, y->text, n);
    if (r) return r;
    if (x->len != y->len) return (x->len > y->len) - (x->len < y->len);
    return (int)x->is_integer - (int)y->is_integer;
}

/* The key at 'idx' as text: strings as they are, integers in decimal. */
static void key_of(conv *c, int idx, tkey *k)
{
    lua_State *L = c->L;
    memset(k, 0, sizeof *k);
    if (lua_type(L, idx) == LUA_TSTRING) {
        k->text = lua_tolstring(L, idx, &k->len);
        return;
    }
    if (!lua_isinteger(L, idx))
        luaL_error(L, "cannot encode a table with a %s key as JSON", luaL_typename(L, idx));
    char buf[32];
    k->integer = lua_tointeger(L, idx);
    k->is_integer = true;
    k->len = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)k->integer);
    k->text = coax_arena_strdup(c->arena, buf, k->len);
    if (!k->text) lcoax_error(L, COAX_ENOMEM, NULL);
}

static void push_key(lua_State *L, const tkey *k)
{
    if (k->is_integer) lua_pushinteger(L, k->integer);
    else lua_pushlstring(L, k->text, k->len);
}

/* The key an entry of a key order list names, for the entry on top of the
** stack: false for an entry no JSON object's key is (a boolean, 2.5). A
** string entry's bytes are the list's (it anchors them); an integer's
** decimal goes to 'buf' (32 bytes). */
static bool order_entry(lua_State *L, tkey *want, char *buf)
{
    memset(want, 0, sizeof *want);
    int type = lua_type(L, -1);
    if (type == LUA_TSTRING) {
        want->text = lua_tolstring(L, -1, &want->len);
        return true;
    }
    if (type != LUA_TNUMBER) return false;
    lua_Number d = lua_tonumber(L, -1);
    if (!lua_isinteger(L, -1) && !(d == floor(d) && d >= -0x1p63 && d < 0x1p63)) return false;
    /* 2.0 names the key 2, as t[2.0] does */
    want->integer = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : (lua_Integer)d;
    want->is_integer = true;
    want->len = (size_t)snprintf(buf, 32, "%lld", (long long)want->integer);
    want->text = buf;
    return true;
}

/* ---- key order lists much longer than their object --------------------
** A remembered order is read from its start until each of the object's keys
** is placed, so a list much longer than its object (keys removed since it
** was decoded, a script's coax.json.object list of many names) was read to
** its end for every occurrence of the object in a value, all in one C call:
** a list of 1,000,000 names on an object held 1,000 times in an array took
** 11 s to encode (8,000 times: 97 s), and no budget is charged inside a C
** call. Such a list is indexed once a conversion (each key's first position,
** in a hash keyed per conversion), so an occurrence costs its own keys. */

/* Lists at most this much longer than twice their object's keys are read. */
#define ORDER_READ_SLACK 16

typedef struct order_index {
    const void *list; /* the Lua table indexed */
    int list_idx;     /* where it is on the stack while an occurrence of it is read */
    uint32_t *slots;  /* a position in the list (1-based), 0 for none */
    size_t mask;
} order_index;

typedef struct order_memo {
    order_index **idx; /* open addressing by list */
    size_t mask, count;
    uint64_t seed;
} order_memo;

static uint64_t tkey_hash(const tkey *k, uint64_t seed)
{
    return coax_hash_bytes(k->text, k->len, seed) ^ (uint64_t)k->is_integer;
}

static bool tkey_same(const tkey *a, const tkey *b)
{
    return a->is_integer == b->is_integer && a->len == b->len && !memcmp(a->text, b->text, a->len);
}

/* The slot of 'k' in 'ix': the one holding its position, or the empty one
** where it would go. */
static uint32_t *order_slot(conv *c, order_index *ix, const tkey *k)
{
    lua_State *L = c->L;
    for (size_t h = tkey_hash(k, c->orders->seed) & ix->mask;; h = (h + 1) & ix->mask) {
        if (!ix->slots[h]) return &ix->slots[h];
        tkey there;
        char buf[32];
        lua_rawgeti(L, ix->list_idx, (lua_Integer)ix->slots[h]);
        bool same = order_entry(L, &there, buf) && tkey_same(&there, k);
        lua_pop(L, 1);
        if (same) return &ix->slots[h];
    }
}

static void memo_put(conv *c, order_index *ix);

/* The index of the list at 'list' (of length 'len'): made at its first use
** in this conversion (the value being converted anchors the list, and no
** Lua runs to change it), found in the memo after. */
static order_index *order_index_of(conv *c, int list, size_t len)
{
    lua_State *L = c->L;
    if (!c->orders) {
        c->orders = conv_alloc(c, sizeof *c->orders);
        memset(c->orders, 0, sizeof *c->orders);
        c->orders->seed = coax_hash_seed(c);
    }
    order_memo *m = c->orders;
    const void *p = lua_topointer(L, list);
    size_t h = 0;
    if (m->idx) {
        for (h = coax_hash_mix((uint64_t)(uintptr_t)p, m->seed) & m->mask; m->idx[h]; h = (h + 1) & m->mask)
            if (m->idx[h]->list == p) {
                m->idx[h]->list_idx = lua_absindex(L, list); /* this occurrence's copy on the stack */
                return m->idx[h];
            }
    }
    if (len >= UINT32_MAX / 2) luaL_error(L, "%s: a key order list is too long", coax_code_name(COAX_ESIZE));
    /* The list's entries are visited, not its positions 1..len: a list of
    ** 25 entries at 1, 2, 4, ..., 2^24 has the length 2^24 (a border), and
    ** reading every position of it took 0.54 s, 2^30: 35 s and 6 GB. */
    list = lua_absindex(L, list);
    size_t entries = 0;
    for (lua_pushnil(L); lua_next(L, list); lua_pop(L, 1)) entries++;
    order_index *ix = conv_alloc(c, sizeof *ix);
    size_t cap = 16;
    while (cap < entries + entries / 2) cap <<= 1; /* at most two thirds full */
    ix->list = p;
    ix->list_idx = list;
    ix->mask = cap - 1;
    ix->slots = conv_alloc(c, cap * sizeof *ix->slots);
    memset(ix->slots, 0, cap * sizeof *ix->slots);
    for (lua_pushnil(L); lua_next(L, list); lua_pop(L, 1)) {
        lua_Integer j = lua_isinteger(L, -2) ? lua_tointeger(L, -2) : 0;
        tkey want;
        char buf[32];
        if (j < 1 || (size_t)j > len || !order_entry(L, &want, buf)) continue; /* not read as the list */
        uint32_t *slot = order_slot(c, ix, &want);
        if (!*slot || *slot > (uint32_t)j) *slot = (uint32_t)j; /* the first position wins, as a reading's does */
    }
    memo_put(c, ix);
    return ix;
}

static void memo_put(conv *c, order_index *ix)
{
    order_memo *m = c->orders;
    if (2 * (m->count + 1) > m->mask + 1 || !m->idx) { /* at most half full */
        size_t cap = m->idx ? 2 * (m->mask + 1) : 16;
        order_index **idx = conv_alloc(c, cap * sizeof *idx);
        memset(idx, 0, cap * sizeof *idx);
        for (size_t i = 0; m->idx && i <= m->mask; i++) {
            if (!m->idx[i]) continue;
            size_t h = coax_hash_mix((uint64_t)(uintptr_t)m->idx[i]->list, m->seed) & (cap - 1);
            while (idx[h]) h = (h + 1) & (cap - 1);
            idx[h] = m->idx[i];
        }
        m->idx = idx;
        m->mask = cap - 1;
    }
    size_t h = coax_hash_mix((uint64_t)(uintptr_t)ix->list, m->seed) & m->mask;
    while (m->idx[h]) h = (h + 1) & m->mask;
    m->idx[h] = ix;
    m->count++;
}

static int rank_cmp(const void *a, const void *b)
{
    const tkey *x = *(tkey *const *)a, *y = *(tkey *const *)b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The keys of the table at 't' in the order encode writes them: the
** remembered order of a decoded object first (keys still present), then
** every other key sorted by its text. In C arrays, not Lua tables: two
** tables made for every object were most of encoding a small one. */
static tkey **ordered_keys(conv *c, int t, size_t *count)
{
    lua_State *L = c->L;
    luaL_checkstack(L, 6, "JSON keys");
    size_t n = 0;
    for (lua_pushnil(L); lua_next(L, t); lua_pop(L, 1)) n++;
    tkey *keys = conv_alloc(c, (n ? n : 1) * sizeof *keys);
    tkey **order = conv_alloc(c, (n ? n : 1) * sizeof *order);
    size_t i = 0;
    int least = 0; /* of several keys JSON has no name for, the error names the least's type */
    for (lua_pushnil(L); lua_next(L, t);) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING && !lua_isinteger(L, -1)) {
            lcoax_keep_least_key(L, &least);
            continue;
        }
        if (i == n) luaL_error(L, "a table changed while it was encoded"); /* no Lua runs here: never */
        key_of(c, lua_gettop(L), &keys[i++]);
    }
    if (least) luaL_error(L, "cannot encode a table with a %s key as JSON", luaL_typename(L, least));
    n = i;
    qsort(keys, n, sizeof *keys, tkey_cmp);
    size_t placed = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, LCOAX_ORDER);
    lua_pushvalue(L, t);
    size_t len = lua_rawget(L, -2) == LUA_TTABLE ? lua_rawlen(L, -1) : 0;
    if (n && len > 2 * n + ORDER_READ_SLACK) {
        order_index *ix = order_index_of(c, lua_gettop(L), len);
        for (size_t j = 0; j < n; j++) {
            uint32_t at = *order_slot(c, ix, &keys[j]);
            if (!at) continue;
            keys[j].placed = true;
            keys[j].rank = at;
            order[placed++] = &keys[j];
        }
        qsort(order, placed, sizeof *order, rank_cmp);
        len = 0; /* read */
    }
    for (size_t j = 1; j <= len && placed < n; j++) {
        tkey want;
        char buf[32];
        lua_rawgeti(L, -1, (lua_Integer)j);
        tkey *k = order_entry(L, &want, buf) ? bsearch(&want, keys, n, sizeof *keys, tkey_cmp) : NULL;
        lua_pop(L, 1);
        if (k && !k->placed) {
            k->placed = true;
            order[placed++] = k;
        }
    }
    lua_pop(L, 2);
    for (size_t j = 0; j < n; j++)
        if (!keys[j].placed) order[placed++] = &keys[j];
    *count = n;
    return order;
}

/* Whether the string key 'k' reads as an integer key would be written. */
static bool integer_text(const char *k, size_t len)
{
    size_t i = len && k[0] == '-';
    if (i == len || len - i > 20 || (k[i] == '0' && len - i > 1)) return false;
    for (; i < len; i++)
        if (k[i] < '0' || k[i] > '9') return false;
    return true;
}

static int member_cmp(const void *a, const void *b)
{
    const coax_member *x = a, *y = b;
    size_t n = x->klen < y->klen ? x->klen : y->klen;
    int r = memcmp(x->key, y->key, n);
    return r ? r : (x->klen > y->klen) - (x->klen < y->klen);
}

/* The integer key 1 and the string key "1" are both written "1": a JSON
** object with the key twice, whose readers keep one value or the other.
** Refused, rather than guessed. */
static void refuse_twin_keys(conv *c, const coax_member *m, size_t n)
{
    coax_member *sorted = conv_alloc(c, n * sizeof *sorted);
    memcpy(sorted, m, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, member_cmp);
    for (size_t i = 1; i < n; i++)
        if (!member_cmp(&sorted[i - 1], &sorted[i]))
            luaL_error(c->L, "cannot encode a table with both the integer key %s and the string key \"%s\" as JSON "
                       "(both are written \"%s\")", sorted[i].key, sorted[i].key, sorted[i].key);
}

static void conv_object(conv *c, int t, size_t depth, coax_value *out)
{
    lua_State *L = c->L;
    size_t n;
    tkey **keys = ordered_keys(c, t, &n);
    coax_member *m = conv_alloc(c, (n ? n : 1) * sizeof *m);
    bool integers = false, integer_strings = false;
    for (size_t i = 0; i < n; i++) {
        const tkey *k = keys[i];
        if (k->is_integer) integers = true;
        else if (integer_text(k->text, k->len)) integer_strings = true;
        if (!coax_utf8_valid(k->text, k->len)) luaL_error(L, "cannot encode a key that is not valid UTF-8");
        /* an integer's decimal is in the arena already; a string key's bytes are Lua's */
        m[i].key = k->is_integer ? k->text : coax_arena_strdup(c->arena, k->text, k->len);
        if (!m[i].key) lcoax_error(L, COAX_ENOMEM, NULL);
        m[i].klen = k->len;
        push_key(L, k);
        lua_rawget(L, t);
        conv_rec(c, lua_gettop(L), &m[i].value, depth + 1);
        lua_pop(L, 1);
    }
    if (integers && integer_strings) refuse_twin_keys(c, m, n);
    out->type = COAX_OBJECT;
    out->len = n;
    out->u.members = m;
}

static bool is_marked(lua_State *L, int idx, const char *mt)
{
    if (!lua_getmetatable(L, idx)) return false;
    luaL_getmetatable(L, mt);
    bool same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

/* A plain table is an array when its keys are exactly 1..n, n > 0. */
static bool plain_array(lua_State *L, int t, size_t *n)
{
    size_t len = lua_rawlen(L, t), count = 0;
    if (len == 0) return false;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1)) {
            lua_pop(L, 1);
            return false;
        }
        count++;
    }
    *n = len;
    return count == len;
}

/* The length of a table marked as an array, which holds nothing but its
** items 1..n: another key would be dropped from the JSON without a word.
** Of several such keys the error names the least (lcoax_key_before). */
static size_t marked_array_length(lua_State *L, int t)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    int least = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
            lcoax_keep_least_key(L, &least);
    }
    if (!least) return (size_t)n;
    if (lua_type(L, least) == LUA_TSTRING)
        luaL_error(L, "cannot encode an array (coax.json.array) with the key \"%s\" as JSON", lua_tostring(L, least));
    if (lua_isinteger(L, least)) { /* in decimal here: Lua 5.1's luaL_error has no %I */
        char len[32], key[32];
        snprintf(len, sizeof len, "%lld", (long long)n);
        snprintf(key, sizeof key, "%lld", (long long)lua_tointeger(L, least));
        luaL_error(L, "cannot encode an array (coax.json.array) of length %s with the key %s as JSON", len, key);
    }
    luaL_error(L, "cannot encode an array (coax.json.array) with a %s key as JSON", luaL_typename(L, least));
    return (size_t)n;
}

static void conv_rec(conv *c, int idx, coax_value *out, size_t depth)
{
    lua_State *L = c->L;
    memset(out, 0, sizeof *out);
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        out->type = COAX_NULL;
        return;
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == NULL) {
            out->type = COAX_NULL;
            return;
        }
        break;
    case LUA_TBOOLEAN:
        out->type = COAX_BOOL;
        out->u.boolean = lua_toboolean(L, idx);
        return;
    case LUA_TNUMBER: {
        char buf[64];
        if (lua_isinteger(L, idx)) {
            snprintf(buf, sizeof buf, "%lld", (long long)lua_tointeger(L, idx));
        } else {
            double d = lua_tonumber(L, idx);
            if (!isfinite(d)) luaL_error(L, "cannot encode %s as JSON", isnan(d) ? "NaN" : "infinity");
            format_double(buf, sizeof buf, d);
        }
        conv_take(c, strlen(buf) + 1);
        if (coax_set_number(c->arena, out, buf, strlen(buf)))
            lcoax_error(L, COAX_ENOMEM, NULL);
        return;
    }
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        conv_take(c, len + 1);
        coax_code rc = coax_set_string(c->arena, out, s, len);
        if (rc == COAX_EUTF8) { /* a model's reply, or text cut mid-character: U+FFFD, as Go's encoder does */
            if (len > SIZE_MAX / 3) lcoax_error(L, COAX_ENOMEM, NULL);
            char *fixed = conv_alloc(c, len * 3);
            rc = coax_set_string(c->arena, out, fixed, coax_utf8_replace(s, len, fixed));
        }
        if (rc) lcoax_error(L, COAX_ENOMEM, NULL);
        return;
    }
    case LUA_TTABLE: {
        if (depth >= c->max)
            luaL_error(L, "%s: nesting deeper than %d (or a cycle)", coax_code_name(COAX_EDEPTH),
                       (int)c->max);
        if (coax_stack_short()) luaL_error(L, "%s: nesting %s", coax_code_name(COAX_EDEPTH), COAX_STACK_WHY);
        luaL_checkstack(L, 8, "JSON nesting");
        if (is_marked(L, idx, LCOAX_NUMBER)) {
            lua_getfield(L, idx, "text");
            size_t len;
            const char *s = lua_tolstring(L, -1, &len);
            if (!s || coax_set_number(c->arena, out, s, len))
                luaL_error(L, "coax.json.number holds no valid JSON number");
            lua_pop(L, 1);
            return;
        }
        size_t n = 0;
        bool array = is_marked(L, idx, LCOAX_ARRAY);
        if (array) n = marked_array_length(L, idx);
        else if (!is_marked(L, idx, LCOAX_OBJECT)) array = plain_array(L, idx, &n);
        if (!array) {
            conv_object(c, idx, depth, out);
            return;
        }
        coax_value *items = conv_alloc(c, n * sizeof *items);
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, idx, (lua_Integer)i + 1);
            conv_rec(c, lua_gettop(L), &items[i], depth + 1);
            lua_pop(L, 1);
        }
        out->type = COAX_ARRAY;
        out->len = n;
        out->u.items = items;
        return;
    }
    default:
        break;
    }
    luaL_error(L, "cannot encode a %s as JSON", luaL_typename(L, idx));
}

coax_value *lcoax_to_value_max(lua_State *L, int idx, coax_arena *arena, size_t max_depth, size_t max_bytes,
                               bool *exceeded)
{
    conv c = {L, arena, max_depth < LUA_DEPTH_CAP ? max_depth : LUA_DEPTH_CAP, max_bytes, max_bytes, exceeded, NULL};
    coax_value *v = conv_alloc(&c, sizeof *v);
    conv_rec(&c, lua_absindex(L, idx), v, 0);
    return v;
}

coax_value *lcoax_to_value(lua_State *L, int idx, coax_arena *arena, size_t max_depth)
{
    return lcoax_to_value_max(L, idx, arena, max_depth, SIZE_MAX, NULL);
}

/* ---- coax.json --------------------------------------------------------- */

/** coax.json.decode(text [, limits]) -> value | nil, message, code */
static int l_decode(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    static const char *const own[] = {NULL}; /* the limits only */
    lcoax_check_keys(L, 2, "coax.json.decode", own);
    coax_limits lim = lcoax_limits(L, 2);
    coax_arena *arena = lcoax_arena(L);
    coax_value *v;
    coax_error err;
    coax_code rc = coax_parse(arena, s, len, &lim, &v, &err);
    if (rc == COAX_ENOMEM) return lcoax_error(L, rc, &err);
    if (rc) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s at line %d, column %d", err.msg, (int)err.line, (int)err.column);
        lua_pushstring(L, coax_code_name(rc));
        return 3;
    }
    lcoax_push_value(L, v, lim.max_depth);
    return 1;
}

/** coax.json.encode(value [, {pretty = true}]) -> text */
static int l_encode(lua_State *L)
{
    luaL_checkany(L, 1);
    unsigned flags = 0;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "pretty");
        if (lua_toboolean(L, -1)) flags |= COAX_WRITE_PRETTY;
        lua_pop(L, 1);
    }
    coax_arena *arena = lcoax_arena(L);
    int box = lua_gettop(L);
    coax_value *v = lcoax_to_value(L, 1, arena, COAX_DEFAULT_MAX_DEPTH);
    /* The text's block, lent by the arena, is handed back to it before the
    ** string is pushed: a push that raises (no memory left) lost it. */
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(arena));
    coax_code rc = coax_write_buf(&b, v, flags);
    if (!rc && b.data && !coax_arena_adopt(arena, b.data, b.cap)) rc = COAX_ENOMEM;
    if (rc) {
        coax_buf_free(&b);
        return lcoax_error(L, rc, NULL);
    }
    lua_pushlstring(L, b.data ? b.data : "", b.len);
    lcoax_arena_release(L, box); /* now, not when the collector gets to it */
    return 1;
}

/* Only a plain table, or one marked already, takes a mark: a metatable of
** its own may protect it (the read-only tables every script shares), and
** lua_setmetatable would replace it regardless of __metatable. */
static void check_markable(lua_State *L, const char *fn)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_getmetatable(L, 1)) return;
    luaL_getmetatable(L, LCOAX_ARRAY);
    luaL_getmetatable(L, LCOAX_OBJECT);
    bool marked = lua_rawequal(L, -3, -2) || lua_rawequal(L, -3, -1);
    lua_pop(L, 3);
    if (!marked) luaL_error(L, "%s: the table has a metatable of its own (only a plain table can be marked)", fn);
}

static int set_mark(lua_State *L, const char *mt, const char *fn)
{
    if (lua_isnoneornil(L, 1)) lua_newtable(L);
    check_markable(L, fn);
    lua_settop(L, 1);
    luaL_setmetatable(L, mt);
    return 1;
}

/** coax.json.array([t]) -> t marked as a JSON array */
static int l_array(lua_State *L) { return set_mark(L, LCOAX_ARRAY, "coax.json.array"); }

/** coax.json.object([t [, keys]]) -> t marked as a JSON object; 'keys', a
** list, is the order its keys are written in (others follow, sorted) */
static int l_object(lua_State *L)
{
    if (lua_istable(L, 2)) {
        check_markable(L, "coax.json.object");
        lua_getfield(L, LUA_REGISTRYINDEX, LCOAX_ORDER);
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 2);
        lua_rawset(L, -3);
        lua_pop(L, 1);
    }
    return set_mark(L, LCOAX_OBJECT, "coax.json.object");
}

/** coax.json.number(text) -> a number kept exactly as text */
static int l_number(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    luaL_argcheck(L, len && coax_number_span(s, len, NULL) == len, 1, "not a JSON number");
    push_big_number(L, s, len);
    return 1;
}

/** coax.json.type(v) -> "null"|"boolean"|"number"|"string"|"array"|"object"|nil */
static int l_type(lua_State *L)
{
    switch (lua_type(L, 1)) {
    case LUA_TNIL: lua_pushliteral(L, "null"); return 1;
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, 1)) break;
        lua_pushliteral(L, "null");
        return 1;
    case LUA_TBOOLEAN: lua_pushliteral(L, "boolean"); return 1;
    case LUA_TNUMBER: lua_pushliteral(L, "number"); return 1;
    case LUA_TSTRING: lua_pushliteral(L, "string"); return 1;
    case LUA_TTABLE: {
        size_t n;
        if (is_marked(L, 1, LCOAX_NUMBER)) lua_pushliteral(L, "number");
        else if (is_marked(L, 1, LCOAX_ARRAY)) lua_pushliteral(L, "array");
        else if (is_marked(L, 1, LCOAX_OBJECT)) lua_pushliteral(L, "object");
        else if (plain_array(L, 1, &n)) lua_pushliteral(L, "array");
        else lua_pushliteral(L, "object");
        return 1;
    }
    default: break;
    }
    lua_pushnil(L);
    return 1;
}

/** coax.json.keys(obj) -> its keys in encoding order (decoded order first) */
static int l_keys(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    conv c = {L, lcoax_arena(L), 1, SIZE_MAX, SIZE_MAX, NULL, NULL};
    size_t n;
    tkey **keys = ordered_keys(&c, 1, &n);
    lua_createtable(L, n < INT_MAX ? (int)n : 0, 0);
    for (size_t i = 0; i < n; i++) {
        push_key(L, keys[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static const luaL_Reg json_funcs[] = {
    {"decode", l_decode}, {"encode", l_encode}, {"array", l_array}, {"object", l_object},
    {"number", l_number}, {"type", l_type},     {"keys", l_keys},   {NULL, NULL},
};

static int number_tostring(lua_State *L)
{
    lua_getfield(L, 1, "text");
    return 1;
}

void lcoax_open_json(lua_State *L)
{
    luaL_newmetatable(L, LCOAX_ARRAY);
    lua_pushliteral(L, "coax.array");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    luaL_newmetatable(L, LCOAX_OBJECT);
    lua_pop(L, 1);
    luaL_newmetatable(L, LCOAX_NUMBER);
    lua_pushcfunction(L, number_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    if (lua_getfield(L, LUA_REGISTRYINDEX, LCOAX_ORDER) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_newtable(L);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_setfield(L, LUA_REGISTRYINDEX, LCOAX_ORDER);
    } else {
        lua_pop(L, 1);
    }
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
    luaL_newlib(L, json_funcs);
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
    lua_setfield(L, -2, "json");
}
