/*
** example.c: coax_example, an instance that validates against a schema.
**
** The generator walks the compiled schema, where references already point
** at their targets, so local, $id-based, anchored and remote references all
** work alike. It builds for a *conjunction* of subschemas (the schema, its
** allOf members and reference targets): anyOf, oneOf and if/then/else are
** choice points tried branch by branch; then the schema's own values
** (examples, default, const, enum) are tried, then each allowed type is
** synthesized from the keywords (bounds, lengths, formats, patterns,
** required, dependencies, contains, uniqueItems...). Every candidate is
** validated against the subschemas it was made for before it is kept, so
** a wrong guess only costs the next candidate, and the whole instance is
** validated once more at the end: nothing that fails is ever returned as
** valid.
**
** Termination: the instance's nesting is bounded (max_depth), the number
** of subschemas visited is bounded (max_steps), and once a subschema
** recurs inside itself (a tree, a linked list) generation turns minimal:
** required properties only, minItems items, branches that do not recur
** first.
*/
#include "example/example.h"
#include "base/stack.h"
#include "schema/compiled.h" /* coax_schema_run: validation from a subschema */

#define EX_DEFAULT_DEPTH 32
#define EX_MAX_DEPTH 256 /* max_depth is capped here */
#define EX_DEFAULT_STEPS 20000
#define EX_CHECK_STEPS 500 /* validation steps (and regex steps) per generation step */
#define EX_CHECK_STEPS_TEXT "500"
/* Nested generation calls (instance levels and choices within them): the
** bound on the C stack, whatever the options say. */
#define EX_MAX_NEST 2000

/* ---- conjunctions ----------------------------------------------------- */

static void conj_add(ex_conj *L, const snode *n)
{
    if (!n || n->kind == N_TRUE) return;
    if (n->kind == N_FALSE) {
        L->bottom = true;
        return;
    }
    for (size_t i = 0; i < L->len; i++)
        if (L->n[i] == n) return;
    if (L->len < EX_MAXCONJ) L->n[L->len++] = n; /* beyond: the validator still checks */
}

/* Adds allOf members and reference targets until nothing new appears. */
static void flatten(ex_conj *L)
{
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (w->op == OP_REF || w->op == OP_DYNREF || w->op == OP_RECREF) conj_add(L, w->sub);
            else if (w->op == OP_ALLOF)
                for (size_t j = 0; j < w->nsubs; j++) conj_add(L, w->subs[j]);
        }
    }
}

static ex_conj *conj_new(ex_ctx *c)
{
    ex_conj *L = coax_arena_alloc(c->work, sizeof *L);
    if (!L) {
        c->rc = COAX_ENOMEM;
        return NULL;
    }
    L->len = L->nbase = L->ndecided = 0;
    L->bottom = false;
    return L;
}

/* A conjunction of 'n' subschemas (NULLs skipped), flattened. */
static ex_conj *conj_of(ex_ctx *c, const snode *const *nodes, size_t n)
{
    ex_conj *L = conj_new(c);
    if (!L) return NULL;
    for (size_t i = 0; i < n; i++) conj_add(L, nodes[i]);
    L->nbase = L->len;
    flatten(L);
    return L;
}

/* ---- checking --------------------------------------------------------- */

/* True when 'v' validates against every subschema the caller asked for. */
static bool check(ex_ctx *c, const ex_conj *L, const coax_value *v)
{
    if (!v || c->rc) return false;
    if (L->bottom || !c->pool.steps) return false; /* a dry pool fails every run (validate_run.c) */
    for (size_t i = 0; i < L->nbase; i++) {
        coax_arena_mark m = coax_arena_get_mark(c->scratch);
        coax_validation r;
        coax_error e;
        coax_code rc = coax_schema_run(c->s, L->n[i], v, c->scratch, COAX_VALIDATE_FIRST, &c->pool, &r, &e);
        coax_arena_rewind(c->scratch, m);
        c->checks++;
        if (rc == COAX_ENOMEM) c->rc = rc;
        if (rc || !r.valid) return false;
    }
    return true;
}

/* ---- the path: subschemas of the enclosing instances -------------------- */

static bool on_path(const ex_ctx *c, const snode *n)
{
    for (size_t i = 0; i < c->npath; i++)
        if (c->path[i] == n) return true;
    return false;
}

static bool conj_recurs(const ex_ctx *c, const ex_conj *L)
{
    for (size_t i = 0; i < L->len; i++)
        if (on_path(c, L->n[i])) return true;
    return false;
}

/* The path is outside the work arena, which failed attempts rewind. */
static bool path_push(ex_ctx *c, const ex_conj *L)
{
    if (c->npath + L->len > c->cpath) {
        size_t cap = (c->cpath ? c->cpath * 2 : 64) + L->len;
        const snode **p = coax_realloc_raw(c->alloc, (void *)c->path, c->cpath * sizeof *p, cap * sizeof *p);
        if (!p) {
            c->rc = COAX_ENOMEM;
            return false;
        }
        c->path = p, c->cpath = cap;
    }
    for (size_t i = 0; i < L->len; i++) c->path[c->npath++] = L->n[i];
    return true;
}

/* ---- generation ------------------------------------------------------- */

static coax_value *gen(ex_ctx *c, const ex_conj *L, size_t depth, size_t variant, bool minimal,
                       bool *ok);

static coax_value *new_value(ex_ctx *c, coax_type t)
{
    coax_value *v = coax_new_value(c->work, t);
    if (!v) c->rc = COAX_ENOMEM;
    return v;
}

/* The first anyOf, oneOf or if keyword whose branch is not chosen yet. */
static const skw *next_choice(const ex_conj *L)
{
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            bool choice = w->op == OP_ANYOF || w->op == OP_ONEOF ||
                          (w->op == OP_IF && w->nsubs == 2 && (w->subs[0] || w->subs[1]));
            if (!choice) continue;
            bool done = false;
            for (size_t d = 0; d < L->ndecided && !done; d++) done = L->decided[d] == w;
            if (!done) return w;
        }
    }
    return NULL;
}

/* 'L' with branch 'opt' of choice 'w' added (if/then is branch 0, else 1). */
static ex_conj *with_branch(ex_ctx *c, const ex_conj *L, const skw *w, size_t opt)
{
    ex_conj *M = conj_new(c);
    if (!M) return NULL;
    for (size_t i = 0; i < L->nbase; i++) conj_add(M, L->n[i]);
    if (w->op == OP_IF) {
        if (opt == 0) {
            conj_add(M, w->sub);
            conj_add(M, w->subs[0]);
        } else {
            conj_add(M, w->subs[1]);
        }
    } else {
        conj_add(M, w->subs[opt]);
    }
    M->nbase = M->len;
    memcpy(M->decided, L->decided, L->ndecided * sizeof *L->decided);
    M->ndecided = L->ndecided;
    if (M->ndecided < EX_MAXCONJ) M->decided[M->ndecided++] = w;
    M->bottom = M->bottom || L->bottom;
    flatten(M);
    return M;
}

/* Does branch 'opt' of choice 'w' (with what it references) lead back
** into an enclosing subschema? */
static bool branch_recurs(ex_ctx *c, const skw *w, size_t opt)
{
    const snode *nodes[2] = {NULL, NULL};
    if (w->op != OP_IF) nodes[0] = w->subs[opt];
    else if (opt == 0) nodes[0] = w->sub, nodes[1] = w->subs[0];
    else nodes[0] = w->subs[1];
    ex_conj *B = conj_of(c, nodes, 2);
    return B && conj_recurs(c, B);
}

/* Tries each branch of choice 'w'. In minimal mode branches that lead back
** into an enclosing subschema go last, so recursion ends early. */
static coax_value *choose(ex_ctx *c, const ex_conj *L, const skw *w, size_t depth, size_t variant,
                          bool minimal, bool *ok)
{
    size_t nopt = w->op == OP_IF ? 2 : w->nsubs;
    coax_value *best = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t o = 0; o < nopt && !c->rc; o++) {
            coax_arena_mark mark = coax_arena_get_mark(c->work);
            bool recurs = minimal && branch_recurs(c, w, o);
            if (c->rc) return NULL;
            if (minimal ? (pass == 0) == recurs : pass == 1) continue;
            ex_conj *M = with_branch(c, L, w, o);
            if (!M) return NULL;
            bool sub_ok = false;
            coax_value *v = gen(c, M, depth, variant, minimal, &sub_ok);
            if (v && sub_ok && (w->op == OP_ANYOF || check(c, L, v))) {
                *ok = true;
                return v;
            }
            if (!best && v) best = v;
            else coax_arena_rewind(c->work, mark); /* a failed branch's memory */
        }
    }
    *ok = false;
    return best;
}

/* Type slots, in the order tried when nothing else decides. */
enum { S_NULL, S_BOOL, S_NUM, S_STRING, S_ARRAY, S_OBJECT, S_COUNT };

static int slot_of_name(const coax_value *v)
{
    static const struct {
        const char *name;
        int slot;
    } t[] = {{"null", S_NULL},     {"boolean", S_BOOL}, {"integer", S_NUM}, {"number", S_NUM},
             {"string", S_STRING}, {"array", S_ARRAY},  {"object", S_OBJECT}};
    if (!v || v->type != COAX_STRING) return -1;
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(v->u.text, t[i].name)) return t[i].slot;
    return -1;
}

/* Fills order[] with the type slots to try; returns how many. 'integer'
** says whether numbers must be integers. */
static size_t type_order(const ex_conj *L, int *order, bool *integer)
{
    unsigned allowed = T_NULL | T_BOOLEAN | T_OBJECT | T_ARRAY | T_NUMBER | T_STRING | T_INTEGER;
    const coax_value *names = NULL;
    bool hint[S_COUNT] = {false};
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            switch (w->op) {
            case OP_TYPE:
                allowed &= w->types | ((w->types & T_NUMBER) ? T_INTEGER : 0);
                if (!names) names = w->v;
                break;
            case OP_PROPS: case OP_REQUIRED: case OP_MINPROPS: case OP_MAXPROPS:
            case OP_PROPNAMES: case OP_UNEVAL_PROPS: case OP_DEPENDENCIES:
                hint[S_OBJECT] = true;
                break;
            case OP_ITEMS: case OP_CONTAINS: case OP_MINITEMS: case OP_MAXITEMS:
            case OP_UNIQUE: case OP_UNEVAL_ITEMS:
                hint[S_ARRAY] = true;
                break;
            case OP_MINLENGTH: case OP_MAXLENGTH: case OP_PATTERN:
                hint[S_STRING] = true;
                break;
            case OP_MULTIPLEOF: case OP_MINIMUM: case OP_MAXIMUM: case OP_EXMINIMUM:
            case OP_EXMAXIMUM:
                hint[S_NUM] = true;
                break;
            default:
                break;
            }
        }
        const coax_value *f = ex_member(n, "format");
        if (f && f->type == COAX_STRING) hint[S_STRING] = true;
    }
    *integer = !(allowed & T_NUMBER);
    bool ok[S_COUNT] = {false}, used[S_COUNT] = {false};
    static const unsigned bits[S_COUNT] = {T_NULL, T_BOOLEAN, T_NUMBER | T_INTEGER, T_STRING, T_ARRAY, T_OBJECT};
    for (int s = 0; s < S_COUNT; s++) ok[s] = (allowed & bits[s]) != 0;
    size_t n = 0;
    static const int hinted[] = {S_OBJECT, S_ARRAY, S_STRING, S_NUM};
    for (size_t i = 0; i < 4; i++) {
        int s = hinted[i];
        if (hint[s] && ok[s] && !used[s]) used[s] = true, order[n++] = s;
    }
    if (names) {
        size_t m = names->type == COAX_ARRAY ? names->len : 1;
        for (size_t i = 0; i < m; i++) {
            int s = slot_of_name(names->type == COAX_ARRAY ? &names->u.items[i] : names);
            if (s >= 0 && ok[s] && !used[s]) used[s] = true, order[n++] = s;
        }
    }
    for (int s = 0; s < S_COUNT; s++)
        if (ok[s] && !used[s]) used[s] = true, order[n++] = s;
    return n;
}

/* ---- objects ---------------------------------------------------------- */

/* Property names: declared ones in order, then required ones, with the
** bounds on their count. */
static void collect_names(ex_ctx *c, const ex_conj *L, ex_names *ns, size_t *minp, size_t *maxp)
{
    *minp = 0, *maxp = SIZE_MAX;
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (w->op == OP_PROPS && w->v && w->v->type == COAX_OBJECT)
                for (size_t j = 0; j < w->v->len; j++)
                    ex_name_add(c, ns, w->v->u.members[j].key, w->v->u.members[j].klen);
            if (w->op == OP_MINPROPS && w->n > *minp) *minp = w->n;
            if (w->op == OP_MAXPROPS && w->n < *maxp) *maxp = w->n;
        }
    }
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (w->op != OP_REQUIRED) continue;
            for (size_t j = 0; j < w->v->len; j++) {
                ex_name *p = ex_name_add(c, ns, w->v->u.items[j].u.text, w->v->u.items[j].len);
                if (p) p->required = true, ex_include(ns, p, true);
            }
        }
    }
}

/* dependentRequired (and the array form of dependencies): names that must
** come along with an included one. Returns true when something changed. */
static bool apply_dep_required(ex_ctx *c, const ex_conj *L, ex_names *ns)
{
    bool changed = false;
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (w->op != OP_DEPENDENCIES || !w->v || w->v->type != COAX_OBJECT) continue;
            for (size_t j = 0; j < w->v->len && j < w->nsubs; j++) {
                const coax_member *m = &w->v->u.members[j];
                if (w->subs[j] || m->value.type != COAX_ARRAY) continue;
                ex_name *p = ex_name_find(ns, m->key, m->klen);
                if (!p || !p->include) continue;
                for (size_t d = 0; d < m->value.len; d++) {
                    const coax_value *x = &m->value.u.items[d];
                    ex_name *q = ex_name_add(c, ns, x->u.text, x->len);
                    if (q && !q->include) q->required = changed = true, ex_include(ns, q, true);
                }
            }
        }
    }
    return changed;
}

/* dependentSchemas (and the schema form of dependencies) of included
** names not yet in 'L': added to a copy of 'L'. NULL when none. */
static ex_conj *apply_dep_schemas(ex_ctx *c, const ex_conj *L, const ex_names *ns)
{
    ex_conj *M = NULL;
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (w->op != OP_DEPENDENCIES || !w->v || w->v->type != COAX_OBJECT) continue;
            for (size_t j = 0; j < w->v->len && j < w->nsubs; j++) {
                const snode *d = w->subs[j];
                if (!d) continue;
                ex_name *p = ex_name_find(ns, w->v->u.members[j].key, w->v->u.members[j].klen);
                if (!p || !p->include) continue;
                bool have = d->kind == N_TRUE;
                for (size_t x = 0; x < L->len && !have; x++) have = L->n[x] == d;
                if (M) for (size_t x = 0; x < M->len && !have; x++) have = M->n[x] == d;
                if (have) continue;
                if (!M) {
                    if (!(M = conj_new(c))) return NULL;
                    *M = *L;
                    M->len = M->nbase; /* re-flatten with the new base */
                }
                if (M->len < EX_MAXCONJ || d->kind == N_FALSE) conj_add(M, d);
            }
        }
    }
    if (M) {
        M->nbase = M->len;
        flatten(M);
    }
    return M;
}

/* Does a regex of patternProperties match the key? The match draws on the
** pool's regex budget; when that runs dry the key counts as unmatched (the
** final check then reports the limit). */
static bool pat_match(ex_ctx *c, const coax_regex *re, const char *k, size_t kl)
{
    if (!c->re_scratch && !(c->re_scratch = coax_regex_scratch_new(c->s->re_env))) {
        c->rc = COAX_ENOMEM;
        return false;
    }
    int r = coax_regex_match_in(c->s->re_env, re, k, kl, c->re_scratch, &c->pool.regex);
    if (r == -2) c->rc = COAX_ENOMEM;
    return r == 1;
}

/* The subschemas that apply to member 'key' of an object of 'L' ('indexes':
** prop_next's, one object's). */
static ex_conj *member_conj(ex_ctx *c, const ex_conj *L, smap *indexes, const char *key, size_t kl)
{
    ex_conj *M = conj_new(c);
    if (!M) return NULL;
    bool evaluated = false;
    for (size_t i = 0; i < L->len; i++) {
        const snode *n = L->n[i];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (w->op != OP_PROPS) continue;
            bool matched = false;
            if (w->v && w->v->type == COAX_OBJECT)
                for (size_t j = 0; ex_prop_next(c, indexes, w->v, key, kl, &j) && j < w->nsubs; j++)
                    conj_add(M, w->subs[j]), matched = true;
            for (size_t j = 0; j < w->npat; j++)
                if (pat_match(c, w->res[j], key, kl)) conj_add(M, w->patsubs[j]), matched = true;
            if (!matched && w->add) conj_add(M, w->add), matched = true;
            evaluated = evaluated || matched;
        }
    }
    if (!evaluated)
        for (size_t i = 0; i < L->len; i++)
            for (size_t k = 0; k < L->n[i]->nkw; k++)
                if (L->n[i]->kw[k].op == OP_UNEVAL_PROPS) conj_add(M, L->n[i]->kw[k].sub);
    M->nbase = M->len;
    flatten(M);
    return M;
}

/* The propertyNames subschemas of 'L' (a conjunction, possibly empty). */
static ex_conj *names_conj(ex_ctx *c, const ex_conj *L)
{
    ex_conj *M = conj_new(c);
    if (!M) return NULL;
    for (size_t i = 0; i < L->len; i++)
        for (size_t k = 0; k < L->n[i]->nkw; k++)
            if (L->n[i]->kw[k].op == OP_PROPNAMES) conj_add(M, L->n[i]->kw[k].sub);
    M->nbase = M->len;
    flatten(M);
    return M;
}

static bool key_ok(ex_ctx *c, const ex_conj *P, const char *k, size_t kl)
{
    if (!P->len && !P->bottom) return true;
    coax_value *s = new_value(c, COAX_STRING);
    if (!s) return false;
    coax_code rc = coax_set_string(c->work, s, k, kl);
    if (rc == COAX_ENOMEM) c->rc = rc;
    return !rc && check(c, P, s);
}

/* Adds names beyond the declared ones until 'want' are included: from
** patternProperties, from propertyNames, else "key1", "key2", ... */
static void add_extra_names(ex_ctx *c, const ex_conj *L, const ex_conj *P, ex_names *ns, size_t want)
{
    for (size_t i = 0; i < ns->n && ns->included < want; i++) ex_include(ns, &ns->v[i], true);
    for (size_t tries = 0; ns->included < want && tries < 64 && !c->rc; tries++) {
        coax_buf b;
        coax_buf_init(&b, coax_arena_allocator(c->work));
        bool made = false;
        /* a key a patternProperties pattern matches, then a propertyNames string */
        for (size_t i = 0; i < L->len && !made; i++)
            for (size_t k = 0; k < L->n[i]->nkw && !made; k++) {
                const skw *w = &L->n[i]->kw[k];
                if (w->op != OP_PROPS || !w->npat) continue;
                const coax_member *m = &w->pat->u.members[tries % w->npat];
                b.len = 0;
                made = ex_regex_string(&b, m->key, m->klen, 0, tries / w->npat) && b.len;
            }
        if (!made && P->len) {
            bool ok = false;
            coax_value *v = gen(c, P, 0, tries, true, &ok);
            if (v && ok && v->type == COAX_STRING) {
                b.len = 0;
                coax_buf_put(&b, v->u.text, v->len);
                made = true;
            }
        }
        if (!made) {
            b.len = 0;
            coax_buf_printf(&b, "key%zu", tries + 1);
            made = true;
        }
        if (b.oom) c->rc = COAX_ENOMEM;
        if (made && !c->rc && !ex_name_find(ns, b.data, b.len) && key_ok(c, P, b.data, b.len)) {
            char *k = coax_arena_strdup(c->work, b.data, b.len);
            ex_name *p = k ? ex_name_add(c, ns, k, b.len) : NULL;
            if (!k) c->rc = COAX_ENOMEM;
            if (p) ex_include(ns, p, true);
        }
        coax_buf_free(&b);
    }
}

static coax_value *make_object(ex_ctx *c, const ex_conj *L, size_t depth, size_t variant,
                               bool minimal)
{
    if (depth >= c->max_depth) {
        c->limited |= COAX_EXAMPLE_HIT_DEPTH;
        return NULL;
    }
    ex_names ns = {0};
    size_t minp, maxp;
    for (int round = 0; round < 4; round++) {
        ex_names_reset(&ns);
        collect_names(c, L, &ns, &minp, &maxp);
        for (size_t i = 0; i < ns.n; i++)
            if (!minimal) ex_include(&ns, &ns.v[i], true);
        while (apply_dep_required(c, L, &ns)) {}
        ex_conj *M = apply_dep_schemas(c, L, &ns);
        if (!M) break;
        L = M;
    }
    if (c->rc) return NULL;
    ex_conj *P = names_conj(c, L);
    if (!P) return NULL;
    for (size_t i = 0; i < ns.n; i++) /* names propertyNames refuses */
        if (ns.v[i].include && !ns.v[i].required && !key_ok(c, P, ns.v[i].key, ns.v[i].klen))
            ex_include(&ns, &ns.v[i], false);
    for (size_t i = ns.n; i-- > 0 && ns.included > maxp;)
        if (!ns.v[i].required) ex_include(&ns, &ns.v[i], false);
    if (ns.included < minp) add_extra_names(c, L, P, &ns, minp);
    size_t count = ns.included;
    coax_member *m = coax_arena_alloc(c->work, (count ? count : 1) * sizeof *m);
    if (!m || !path_push(c, L)) {
        c->rc = COAX_ENOMEM;
        return NULL;
    }
    size_t saved = c->npath - L->len, k = 0;
    bool failed = false;
    smap indexes = {0};
    for (size_t i = 0; i < ns.n && !failed && !c->rc; i++) {
        const ex_name *p = &ns.v[i];
        if (!p->include) continue;
        ex_conj *M = member_conj(c, L, &indexes, p->key, p->klen);
        if (!M) break;
        bool ok = false;
        coax_value *v = gen(c, M, depth + 1, variant, minimal, &ok);
        if (!v || !ok) {
            if (!p->required) continue;
            if (!v) {
                failed = true;
                break;
            }
        }
        m[k].key = p->key;
        m[k].klen = (uint32_t)p->klen;
        m[k].value = *v;
        k++;
    }
    c->npath = saved;
    if (failed || c->rc) return NULL;
    coax_value *o = new_value(c, COAX_OBJECT);
    if (!o) return NULL;
    o->len = (uint32_t)k;
    o->u.members = m;
    return o;
}

/* ---- arrays ----------------------------------------------------------- */

/* The subschemas for item 'i' of an array of 'L' (plus 'extra', a
** contains subschema, when not NULL). */
static ex_conj *item_conj(ex_ctx *c, const ex_conj *L, size_t i, const snode *extra)
{
    ex_conj *M = conj_new(c);
    if (!M) return NULL;
    bool evaluated = false;
    for (size_t j = 0; j < L->len; j++) {
        const snode *n = L->n[j];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (w->op != OP_ITEMS) continue;
            if (i < w->nsubs) conj_add(M, w->subs[i]), evaluated = true;
            else if (w->sub) conj_add(M, w->sub), evaluated = true;
        }
    }
    if (!evaluated)
        for (size_t j = 0; j < L->len; j++)
            for (size_t k = 0; k < L->n[j]->nkw; k++)
                if (L->n[j]->kw[k].op == OP_UNEVAL_ITEMS) conj_add(M, L->n[j]->kw[k].sub);
    conj_add(M, extra);
    M->nbase = M->len;
    flatten(M);
    return M;
}

static coax_value *make_array(ex_ctx *c, const ex_conj *L, size_t depth, size_t variant,
                              bool minimal)
{
    if (depth >= c->max_depth) {
        c->limited |= COAX_EXAMPLE_HIT_DEPTH;
        return NULL;
    }
    size_t mini = 0, maxi = SIZE_MAX, prefix = 0, need = 0;
    bool unique = false;
    const skw *contains[8];
    size_t ncontains = 0;
    for (size_t j = 0; j < L->len; j++) {
        const snode *n = L->n[j];
        for (size_t k = 0; k < n->nkw; k++) {
            const skw *w = &n->kw[k];
            if (w->op == OP_MINITEMS && w->n > mini) mini = w->n;
            if (w->op == OP_MAXITEMS && w->n < maxi) maxi = w->n;
            if (w->op == OP_UNIQUE) unique = true;
            if (w->op == OP_ITEMS && w->nsubs > prefix) prefix = w->nsubs;
            if (w->op == OP_CONTAINS && ncontains < 8 && w->n) {
                contains[ncontains++] = w;
                need += w->n;
            }
        }
    }
    size_t total = minimal ? mini : (mini > prefix ? mini : prefix);
    if (!minimal && total == 0) total = 1;
    if (total < need) total = need;
    if (total > maxi) total = maxi;
    /* each item takes a step at least: past the budget, say so now; and
    ** past a cap whatever the budget (a minItems of 2^60 under as many
    ** steps wrapped the items' size, 10^8 took 8.8 GB, and 2^20 items take
    ** 1.1 GB: about 1 KB an item made and checked) */
    if (total > COAX_EXAMPLE_MAX_ITEMS || total > c->steps) {
        c->limited |= total > COAX_EXAMPLE_MAX_ITEMS ? COAX_EXAMPLE_HIT_SIZE : COAX_EXAMPLE_HIT_STEPS;
        return NULL;
    }
    coax_value *items = coax_arena_alloc(c->work, (total ? total : 1) * sizeof *items);
    if (!items || !path_push(c, L)) {
        c->rc = COAX_ENOMEM;
        return NULL;
    }
    ex_items set;
    if (unique && !ex_items_init(c->work, &set, total)) {
        c->rc = COAX_ENOMEM;
        return NULL;
    }
    size_t saved = c->npath - L->len, n = 0;
    size_t first_contains = total > need ? total - need : 0;
    bool failed = false;
    for (size_t i = 0; i < total && !c->rc; i++) {
        const snode *extra = NULL;
        if (i >= first_contains) { /* the last 'need' items satisfy contains */
            size_t slot = i - first_contains;
            for (size_t q = 0; q < ncontains; q++) {
                if (slot < contains[q]->n) {
                    extra = contains[q]->sub;
                    break;
                }
                slot -= contains[q]->n;
            }
        }
        ex_conj *M = item_conj(c, L, i, extra);
        if (!M) break;
        if (M->bottom && !extra) { /* no item may stand here: stop if allowed */
            if (i < mini) failed = true;
            break;
        }
        coax_value *v = NULL;
        bool ok = false;
        size_t var = unique ? variant + i : variant, slot = 0;
        uint64_t h = 0;
        int dup = 1;
        for (int t = 0; t < 4 && !c->rc; t++, var += total) {
            v = gen(c, M, depth + 1, var, minimal, &ok);
            if (!v || !unique) break;
            dup = ex_items_has(c->work, &set, items, v, &h, &slot);
            if (dup < 0) c->rc = COAX_ENOMEM;
            if (!dup) break;
        }
        if (!v) {
            failed = true;
            break;
        }
        if (unique && !dup) { /* a duplicate left after the tries is kept unfiled: the check names it */
            set.hashes[n] = h;
            set.slots[slot] = (uint32_t)n + 1;
        }
        items[n++] = *v;
    }
    c->npath = saved;
    if (failed || c->rc) return NULL;
    coax_value *a = new_value(c, COAX_ARRAY);
    if (!a) return NULL;
    a->len = (uint32_t)n;
    a->u.items = items;
    return a;
}

/* ---- one conjunction -------------------------------------------------- */

/* Values the schema itself offers: examples, default, const, enum. Sets
** *closed when const or enum limit the instance to them. */
static coax_value *offered(ex_ctx *c, const ex_conj *L, size_t *variant, bool *closed, bool *ok)
{
    const coax_value *first = NULL;
    size_t skip = *variant, seen = 0;
    *closed = false;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < L->len; i++) {
            const snode *n = L->n[i];
            const coax_value *list = NULL, *one = NULL;
            if (pass == 0) {
                const coax_value *ex = ex_member(n, "examples"), *def = ex_member(n, "default");
                if (ex && ex->type == COAX_ARRAY) list = ex;
                one = def;
            } else {
                for (size_t k = 0; k < n->nkw; k++) {
                    if (n->kw[k].op == OP_CONST) one = n->kw[k].v, *closed = true;
                    if (n->kw[k].op == OP_ENUM) list = n->kw[k].v, *closed = true;
                }
            }
            size_t m = list ? (list->len < 64 ? list->len : 64) : 0;
            for (size_t j = 0; j <= m; j++) {
                const coax_value *v = j < m ? &list->u.items[j] : one;
                if (!v) continue;
                if (seen++ < skip) continue;
                if (!first && pass == 1) first = v;
                if (check(c, L, v)) {
                    *ok = true;
                    return (coax_value *)v;
                }
                if (c->rc) return NULL;
            }
        }
    }
    *variant = skip > seen ? skip - seen : 0;
    *ok = false;
    return (coax_value *)first;
}

static coax_value *synth(ex_ctx *c, const ex_conj *L, int slot, bool integer, size_t depth,
                         size_t variant, bool minimal, size_t attempt)
{
    coax_value *v;
    switch (slot) {
    case S_NULL:
        return attempt ? NULL : new_value(c, COAX_NULL);
    case S_BOOL:
        if (attempt > 1) return NULL;
        if ((v = new_value(c, COAX_BOOL))) v->u.boolean = ((variant + attempt) % 2) == 0;
        return v;
    case S_NUM:
        return ex_number(c, L, integer, variant, attempt);
    case S_STRING:
        return ex_string(c, L, variant, attempt);
    case S_ARRAY:
        if (attempt > 1 || (attempt == 1 && minimal)) return NULL;
        return make_array(c, L, depth, variant, minimal || attempt == 1);
    default:
        if (attempt > 1 || (attempt == 1 && minimal)) return NULL;
        return make_object(c, L, depth, variant, minimal || attempt == 1);
    }
}

static coax_value *gen_conj(ex_ctx *c, const ex_conj *L, size_t depth, size_t variant, bool minimal,
                            bool *ok);

static coax_value *gen(ex_ctx *c, const ex_conj *L, size_t depth, size_t variant, bool minimal,
                       bool *ok)
{
    *ok = false;
    if (c->nest >= EX_MAX_NEST) {
        c->limited |= COAX_EXAMPLE_HIT_DEPTH;
        return NULL;
    }
    c->nest++;
    coax_value *v = gen_conj(c, L, depth, variant, minimal, ok);
    c->nest--;
    return v;
}

static coax_value *gen_conj(ex_ctx *c, const ex_conj *L, size_t depth, size_t variant, bool minimal,
                            bool *ok)
{
    if (c->rc || L->bottom) return NULL;
    if (depth > c->max_depth || coax_stack_short()) { /* the stack's floor: base/stack.h */
        c->limited |= COAX_EXAMPLE_HIT_DEPTH;
        return NULL;
    }
    /* once the checks' pool is dry no candidate can pass (the example ends with its limit): the
    ** generation went on to the end of max_steps, up to 6,240 checks a step (16,000 branches
    ** that each offer 40 x 64 examples: 4.2 s) */
    if (c->steps == 0 || !c->pool.steps) {
        c->limited |= COAX_EXAMPLE_HIT_STEPS;
        return NULL;
    }
    c->steps--;
    if (!minimal && conj_recurs(c, L)) minimal = true;
    const skw *w = next_choice(L);
    if (w) return choose(c, L, w, depth, variant, minimal, ok);

    bool closed;
    coax_value *best = offered(c, L, &variant, &closed, ok);
    if (*ok || closed || c->rc) return best;

    int order[S_COUNT];
    bool integer;
    size_t ntypes = type_order(L, order, &integer);
    for (size_t t = 0; t < ntypes && !c->rc; t++) {
        /* scalars: a few variants too, for "not", uniqueness and the like */
        bool scalar = order[t] == S_NUM || order[t] == S_STRING;
        for (size_t var = variant; var < variant + (scalar ? 4 : 1) && !c->rc; var++) {
            for (size_t a = 0; a < 8 && !c->rc; a++) {
                coax_arena_mark mark = coax_arena_get_mark(c->work);
                coax_value *v = synth(c, L, order[t], integer, depth, var, minimal, a);
                if (!v) {
                    coax_arena_rewind(c->work, mark);
                    if (scalar) continue;
                    break;
                }
                if (check(c, L, v)) {
                    *ok = true;
                    return v;
                }
                if (!best) best = v;
                else coax_arena_rewind(c->work, mark);
            }
        }
    }
    return best;
}

/* ---- the public call -------------------------------------------------- */

/* Copies 'v' into 'arena' (through text: no recursion, any depth). */
static coax_code copy_out(coax_arena *arena, const coax_value *v, coax_value **out, coax_error *err)
{
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(arena));
    coax_code rc = coax_write_buf(&b, v, 0);
    if (!rc && b.oom) rc = COAX_ENOMEM;
    if (!rc) {
        coax_limits lim;
        coax_limits_default(&lim);
        lim.max_depth = SIZE_MAX;
        lim.max_input = COAX_MAX_INPUT_CAP;
        lim.max_string = COAX_MAX_INPUT_CAP;
        rc = coax_parse(arena, b.data, b.len, &lim, out, err);
    }
    coax_buf_free(&b);
    return rc ? coax_fail(err, rc, 0, "copying the example: %s", coax_strerror(rc)) : COAX_OK;
}

/* Validates a whole candidate; *valid tells. Limits and memory are codes. */
static coax_code final_check(ex_ctx *c, const coax_value *v, bool *valid, coax_error *err)
{
    coax_arena_mark m = coax_arena_get_mark(c->scratch);
    coax_validation r;
    coax_code rc = coax_schema_run(c->s, c->s->root, v, c->scratch, COAX_VALIDATE_FIRST, &c->pool, &r, err);
    coax_arena_rewind(c->scratch, m);
    c->checks++;
    *valid = !rc && r.valid;
    return rc;
}

/* Plain values tried last, when the schema's keywords led nowhere. */
static const char *const fallbacks[] = {"null", "true", "false", "0", "1", "-1", "0.5", "\"\"",
                                        "\"string\"", "[]", "{}", "[null]", "{\"key\":null}"};

coax_code coax_example(const coax_schema *schema, const coax_example_options *options,
                       coax_arena *arena, coax_example_result *out, coax_error *err)
{
    if (!schema || !arena || !out)
        return coax_fail(err, COAX_EINVAL, 0, "schema, arena and out must not be NULL");
    memset(out, 0, sizeof *out);
    ex_ctx c;
    memset(&c, 0, sizeof c);
    c.s = schema;
    c.alloc = coax_arena_allocator(arena);
    c.max_depth = options && options->max_depth ? options->max_depth : EX_DEFAULT_DEPTH;
    if (c.max_depth > EX_MAX_DEPTH) c.max_depth = EX_MAX_DEPTH;
    c.steps = options && options->max_steps ? options->max_steps : EX_DEFAULT_STEPS;
    /* the validations of candidates draw on one pool, sized by max_steps:
    ** a schema that fans out cannot make them take longer than that */
    c.pool.size = c.steps > UINT64_MAX / EX_CHECK_STEPS ? UINT64_MAX : c.steps * EX_CHECK_STEPS;
    c.pool.steps = c.pool.regex = c.pool.size;
    c.pool.what = "the example's max_steps x " EX_CHECK_STEPS_TEXT;
    bool minimal = options && (options->flags & COAX_EXAMPLE_MINIMAL);
    const coax_allocator *alloc = coax_arena_allocator(arena);
    c.work = coax_arena_new(alloc);
    c.scratch = coax_arena_new(alloc);
    coax_code rc = COAX_OK, limit = COAX_OK;
    coax_error limit_err;
    memset(&limit_err, 0, sizeof limit_err);
    const coax_value *found = NULL, *first = NULL;
    if (!c.work || !c.scratch) rc = COAX_ENOMEM;

    const snode *root = schema->root;
    ex_conj *L = rc ? NULL : conj_of(&c, &root, 1);
    for (int pass = 0; L && pass < 2 && !found && !c.rc; pass++) {
        if (pass == 1 && minimal) break;
        bool ok = false;
        coax_value *v = gen(&c, L, 0, 0, minimal || pass == 1, &ok);
        if (!v) continue;
        if (!first) first = v;
        bool valid;
        coax_error e;
        coax_code r = final_check(&c, v, &valid, &e);
        if (r == COAX_ENOMEM) c.rc = r;
        else if (r && !limit) limit = r, limit_err = e;
        if (valid) found = v;
    }
    for (size_t i = 0; L && !found && !c.rc && i < sizeof fallbacks / sizeof *fallbacks; i++) {
        coax_value *v;
        coax_error e;
        if (coax_parse(c.work, fallbacks[i], strlen(fallbacks[i]), NULL, &v, &e)) {
            c.rc = COAX_ENOMEM;
            break;
        }
        if (!first && !c.limited) first = v; /* a stand-in is no closest attempt when a limit cut the real one */
        bool valid;
        coax_code r = final_check(&c, v, &valid, &e);
        if (r == COAX_ENOMEM) c.rc = r;
        else if (r && !limit) limit = r, limit_err = e;
        if (valid) found = v;
    }
    if (!rc) rc = c.rc;
    out->checks = c.checks;
    out->limited = found ? 0 : c.limited;
    if (!rc && found) {
        coax_value *v;
        if (!(rc = copy_out(arena, found, &v, err))) {
            out->value = v;
            out->valid = 1;
        }
    } else if (!rc && limit) {
        rc = limit;
        if (err) *err = limit_err;
    } else if (!rc && first) {
        coax_value *v;
        if (!(rc = copy_out(arena, first, &v, err))) {
            out->value = v;
            rc = coax_validate(schema, v, arena, 0, &out->validation, err);
        }
    }
    if (rc == COAX_ENOMEM) coax_fail(err, rc, 0, "out of memory");
    if (rc) memset(out, 0, sizeof *out);
    coax_free_raw(c.alloc, (void *)c.path, c.cpath * sizeof *c.path);
    coax_regex_scratch_free(schema->re_env, c.re_scratch);
    coax_arena_free(c.work);
    coax_arena_free(c.scratch);
    return rc;
}
