/*
** validate_run.c: coax_validate and coax_schema_run (validate.h). A run
** takes its budgets from the schema, or by default from the sizes of the
** schema and the instance (cut to what a shared pool has left), applies
** the node, and copies its errors or annotations into the caller's arena;
** everything else it used lives in scratch memory freed before it returns.
*/
#include "base/stack.h"
#include "schema/validate.h"

/* Moves the annotations collected into 'out', in 'arena'. */
static void take_annotations(vctx *c, coax_arena *arena, coax_validation *out)
{
    coax_schema_annotation *a = coax_arena_alloc(arena, c->nanns * sizeof *a);
    char *strs = coax_arena_alloc(arena, c->astrs.len);
    if (!a || !strs) {
        oom(c);
        return;
    }
    memcpy(strs, c->astrs.data, c->astrs.len);
    for (size_t i = 0; i < c->nanns; i++) {
        const vann *v = &c->anns[i];
        a[i].instance_location = strs + v->iloc;
        a[i].keyword_location = strs + v->kloc;
        a[i].absolute_keyword_location = v->aloc == SIZE_MAX ? NULL : strs + v->aloc;
        a[i].value = v->value;
    }
    out->annotations = a;
    out->nannotations = c->nanns;
}

/* The run's budgets: the schema's (or the defaults, by the sizes of the
** schema and the instance), cut to what the pool has left. Without a pool
** or budgets of the schema, the defaults' least is given first, and the
** instance measured only if a run spends it (vctx_measure). */
static bool budgets(vctx *c, const coax_value *inst, const coax_vpool *pool)
{
    uint64_t values, bytes;
    c->steps = c->s->max_steps, c->regex = c->s->max_regex_total;
    c->steps_what = "max_steps";
    c->regex_what = "max_regex_total";
    if (!pool && !c->steps && !c->regex) { /* the defaults' least first: most runs need no more */
        c->steps = c->steps_max = COAX_DEFAULT_MIN_STEPS;
        c->regex = c->regex_max = COAX_DEFAULT_MIN_REGEX_TOTAL;
        c->unsized = inst;
        return true;
    }
    if (!c->steps || !c->regex) {
        if (!vctx_instance_size(c, inst, &values, &bytes)) return false;
        if (!c->steps) c->steps = vctx_default_steps(c, values, bytes);
        if (!c->regex) c->regex = vctx_default_regex(values, bytes);
    }
    if (pool && pool->steps < c->steps) c->steps = pool->steps, c->steps_what = pool->what;
    if (pool && pool->regex < c->regex) c->regex = pool->regex, c->regex_what = pool->what;
    c->steps_max = pool && c->steps_what == pool->what ? pool->size : c->steps;
    c->regex_max = pool && c->regex_what == pool->what ? pool->size : c->regex;
    return true;
}

/* Starts the loads of the instance's memory before the run reads it. A
** run reads every key and most values, each behind the load of its
** container, so on an instance out of the cache (a batch validated after
** it was parsed) the misses came one after the other; prefetched first,
** with nothing waiting on them, they overlap. It changes nothing: a
** prefetch only warms the cache.
** An object coax_parse made lies in one span (parse.c): the arena's copy
** of its text, from its first key, then its containers' blocks, its own
** last. That span, when it looks like one (its end past its start, within
** PREFETCH_SPAN), is prefetched line by line, no load waiting on another
** (orders +40%, invoices +20%, best of 3 alternations on a loaded machine;
** about 30 and 100 instructions an instance). Any other value is walked: its
** containers' blocks and its keys' text (which a string member's value
** follows), bounded by depth (the C stack) and values. */
#define PREFETCH_SPAN 16384
#define PREFETCH_DEPTH 4
#define PREFETCH_VALUES 1024

static void prefetch_walk(const coax_value *v, unsigned depth, size_t *left)
{
    if (v->len > *left) return;
    *left -= v->len;
    if (v->type == COAX_OBJECT) {
        for (const coax_member *m = v->u.members, *e = m + v->len; m < e; m++) {
            __builtin_prefetch(m->key);
            if (m->value.type >= COAX_ARRAY && depth < PREFETCH_DEPTH) prefetch_walk(&m->value, depth + 1, left);
        }
    } else {
        for (const coax_value *x = v->u.items, *e = x + v->len; x < e; x++) {
            if (x->type == COAX_STRING) __builtin_prefetch(x->u.text);
            else if (x->type >= COAX_ARRAY && depth < PREFETCH_DEPTH) prefetch_walk(x, depth + 1, left);
        }
    }
}

static void prefetch_instance(const coax_value *v)
{
    if (v->type < COAX_ARRAY) return;
    if (v->type == COAX_OBJECT && v->len) {
        uintptr_t lo = (uintptr_t)v->u.members[0].key & ~(uintptr_t)63, hi = (uintptr_t)(v->u.members + v->len);
        if (lo < hi && hi - lo <= PREFETCH_SPAN) {
            for (; lo < hi; lo += 256) { /* four lines a turn (the last turn's may go past: harmless) */
                __builtin_prefetch((const void *)lo);
                __builtin_prefetch((const void *)(lo + 64));
                __builtin_prefetch((const void *)(lo + 128));
                __builtin_prefetch((const void *)(lo + 192));
            }
            return;
        }
    }
    size_t left = PREFETCH_VALUES;
    prefetch_walk(v, 0, &left);
}

coax_code coax_schema_run(const coax_schema *s, const snode *root, const coax_value *inst,
                          coax_arena *arena, unsigned flags, coax_vpool *pool, coax_validation *out,
                          coax_error *err)
{
    prefetch_instance(inst);
    vctx c;
    memset(&c, 0, sizeof c);
    struct { /* the first arrays of the run: most runs need no more */
        seg ipath[32], kpath[64];
        vframe frames[64];
        const sres *scope[16];
        active_ref refs[16];
    } own;
    c.own_lo = (const char *)&own;
    c.own_hi = (const char *)(&own + 1);
    c.ipath.v = own.ipath, c.ipath.cap = 32;
    c.kpath.v = own.kpath, c.kpath.cap = 64;
    c.frames = own.frames, c.cframes = 64;
    c.scope = own.scope, c.cscope = 16;
    c.refs = own.refs, c.crefs = 16;
    c.s = s;
    c.scoped = root != s->root || s->root_dynamic;
    c.alloc = coax_arena_allocator(arena);
    c.err = err;
    c.quiet = (flags & COAX_VALIDATE_FIRST) ? 1 : 0;
    c.annotate = (flags & COAX_VALIDATE_ANNOTATIONS) != 0;
    coax_buf_init(&c.astrs, c.alloc);
    coax_buf_init(&c.strs, c.alloc);
    coax_buf_init(&c.nests, c.alloc);
    coax_buf_init(&c.msg, c.alloc);
    bool valid = false;
    if (budgets(&c, inst, pool)) {
        uint64_t steps = c.steps, regex = c.regex;
        valid = vctx_validate(&c, root, inst);
        if (pool) {
            pool->steps -= steps - c.steps;
            pool->regex -= regex - c.regex;
        }
    }
    memset(out, 0, sizeof *out);
    if (!c.rc) {
        out->valid = valid;
        if (!valid && c.nerrs) {
            coax_schema_error *e = coax_arena_alloc(arena, c.nerrs * sizeof *e);
            char *strs = coax_arena_alloc(arena, c.strs.len ? c.strs.len : 1);
            uint32_t *nests = coax_arena_alloc(arena, c.nests.len ? c.nests.len : 1);
            if (!e || !strs || !nests) {
                oom(&c);
            } else {
                if (c.strs.len) memcpy(strs, c.strs.data, c.strs.len);
                if (c.nests.len) memcpy(nests, c.nests.data, c.nests.len);
                for (size_t i = 0; i < c.nerrs; i++) {
                    const verr *v = &c.errs[i];
                    e[i].instance_location = strs + v->iloc;
                    e[i].keyword_location = strs + v->kloc;
                    e[i].absolute_keyword_location = v->aloc == SIZE_MAX ? NULL : strs + v->aloc;
                    e[i].message = strs + v->msg;
                    e[i].nesting = nests + v->nest / sizeof *nests;
                    e[i].nnesting = v->nnest;
                }
                out->errors = e;
                out->nerrors = c.nerrs;
            }
        }
        if (valid && c.nanns) take_annotations(&c, arena, out);
    }
    coax_buf_free(&c.astrs);
    coax_free_raw(c.alloc, c.anns, c.canns * sizeof *c.anns);
    coax_buf_free(&c.strs);
    coax_buf_free(&c.nests);
    coax_buf_free(&c.msg);
    coax_free_raw(c.alloc, c.errs, c.cerrs * sizeof *c.errs);
    vctx_release(&c, c.ipath.v, c.ipath.cap, sizeof *c.ipath.v);
    vctx_release(&c, c.kpath.v, c.kpath.cap, sizeof *c.kpath.v);
    vctx_release(&c, c.scope, c.cscope, sizeof *c.scope);
    vctx_release(&c, c.refs, c.crefs, sizeof *c.refs);
    vctx_release(&c, c.frames, c.cframes, sizeof *c.frames);
    coax_free_raw(c.alloc, c.names.slot, c.names.cap * sizeof *c.names.slot);
    coax_regex_scratch *none = NULL; /* the match memory stays for the next run, unless one left its own */
    if (c.scratch && !atomic_compare_exchange_strong(s->spare, &none, c.scratch))
        coax_regex_scratch_free(s->re_env, c.scratch);
    if (c.rc) memset(out, 0, sizeof *out);
    return c.rc;
}

coax_code coax_validate(const coax_schema *s, const coax_value *instance, coax_arena *arena,
                        unsigned flags, coax_validation *out, coax_error *err)
{
    if (!s || !instance || !arena || !out)
        return coax_fail(err, COAX_EINVAL, 0, "schema, instance, arena and out must not be NULL");
    /* a host's max_depth may be any size: the evaluation stops at the floor of the C stack
    ** (base/stack.h), set here when no call above set one, as a script's does */
    uintptr_t before = coax_stack_arm();
    coax_code rc = coax_schema_run(s, s->root, instance, arena, flags, NULL, out, err);
    coax_stack_restore(before);
    return rc;
}
