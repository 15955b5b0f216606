/*
** json/edit.c: new values from old ones. Values are immutable and shared,
** so an edit copies only the containers on the path from the root to the
** edited place (path copying); everything else is shared with the original.
** Depth is input-controlled, so nothing here recurses.
*/
#include "base/core.h"

typedef struct step {
    coax_value *copy; /* the copied container at this depth */
    size_t index;     /* which child the path goes through */
} step;

/* Resolves 'pointer' in 'root', copying every container on the way into
** 'steps' (steps[k].copy is the depth-k container). Returns the number of
** steps, or SIZE_MAX when the pointer does not resolve or memory ran out.
** The last copy's child at steps[n-1].index is the target. */
static size_t copy_path(coax_arena *a, const coax_value *root, const char *p, size_t len,
                        step **out, coax_value **new_root)
{
    size_t depth = 0;
    for (size_t i = 0; i < len; i++) depth += p[i] == '/';
    step *steps = coax_arena_alloc(a, (depth + 1) * sizeof *steps);
    coax_value *top = coax_new_value(a, COAX_NULL);
    if (!steps || !top) return SIZE_MAX;
    *top = *root;
    *new_root = top;
    coax_value *cur = top;
    size_t n = 0, i = 0;
    while (i < len) {
        if (p[i] != '/') return SIZE_MAX;
        size_t s = ++i;
        while (i < len && p[i] != '/') i++;
        /* Copy this container's children so the path's child can change. */
        size_t count = cur->len, size;
        if (cur->type == COAX_ARRAY) size = count * sizeof(coax_value);
        else if (cur->type == COAX_OBJECT) size = count * sizeof(coax_member);
        else return SIZE_MAX;
        void *kids = coax_arena_alloc(a, size + 1);
        if (!kids) return SIZE_MAX;
        memcpy(kids, cur->type == COAX_ARRAY ? (void *)cur->u.items : (void *)cur->u.members, size);
        size_t idx = SIZE_MAX;
        if (cur->type == COAX_ARRAY) {
            cur->u.items = kids;
            size_t v = 0;
            bool ok = i > s && (i - s == 1 || p[s] != '0');
            for (size_t k = s; ok && k < i; k++) {
                ok = p[k] >= '0' && p[k] <= '9' && v <= (SIZE_MAX - 9) / 10;
                v = v * 10 + (size_t)(p[k] - '0');
            }
            if (ok && v < count) idx = v;
        } else {
            cur->u.members = kids;
            for (size_t m = 0; m < count && idx == SIZE_MAX; m++) {
                const coax_member *mb = &cur->u.members[m];
                size_t k = s, c = 0;
                bool eq = true;
                while (k < i && eq) {
                    char ch = p[k++];
                    if (ch == '~') ch = (k < i && p[k++] == '1') ? '/' : '~';
                    eq = c < mb->klen && mb->key[c++] == ch;
                }
                if (eq && c == mb->klen) idx = m;
            }
        }
        if (idx == SIZE_MAX) return SIZE_MAX;
        steps[n++] = (step){cur, idx};
        cur = cur->type == COAX_ARRAY ? &cur->u.items[idx] : &cur->u.members[idx].value;
    }
    *out = steps;
    return n;
}

static coax_value *target_of(step *steps, size_t n, coax_value *root)
{
    if (n == 0) return root;
    step *s = &steps[n - 1];
    return s->copy->type == COAX_ARRAY ? &s->copy->u.items[s->index] : &s->copy->u.members[s->index].value;
}

coax_value *coax_value_replace(coax_arena *a, const coax_value *root, const char *pointer, size_t len,
                               const coax_value *with)
{
    step *steps;
    coax_value *r;
    size_t n = copy_path(a, root, pointer, len, &steps, &r);
    if (n == SIZE_MAX) return NULL;
    *target_of(steps, n, r) = *with;
    return r;
}

coax_value *coax_value_remove_member(coax_arena *a, const coax_value *root, const char *pointer,
                                     size_t len, const char *key, size_t klen)
{
    step *steps;
    coax_value *r;
    size_t n = copy_path(a, root, pointer, len, &steps, &r);
    if (n == SIZE_MAX) return NULL;
    coax_value *obj = target_of(steps, n, r);
    if (obj->type != COAX_OBJECT) return NULL;
    coax_member *m = coax_arena_alloc(a, obj->len * sizeof *m + 1);
    if (!m) return NULL;
    uint32_t k = 0;
    bool found = false;
    for (uint32_t i = 0; i < obj->len; i++) {
        const coax_member *x = &obj->u.members[i];
        if (x->klen == klen && memcmp(x->key, key, klen) == 0) found = true;
        else m[k++] = *x;
    }
    if (!found) return NULL;
    obj->u.members = m;
    obj->len = k;
    return r;
}

coax_value *coax_value_add_member(coax_arena *a, const coax_value *root, const char *pointer,
                                  size_t len, const char *key, size_t klen, const coax_value *value)
{
    step *steps;
    coax_value *r;
    size_t n = copy_path(a, root, pointer, len, &steps, &r);
    if (n == SIZE_MAX) return NULL;
    coax_value *obj = target_of(steps, n, r);
    if (obj->type != COAX_OBJECT || obj->len == UINT32_MAX) return NULL;
    coax_member *m = coax_arena_alloc(a, (obj->len + 1) * sizeof *m);
    char *kcopy = coax_arena_strdup(a, key, klen);
    if (!m || !kcopy) return NULL;
    memcpy(m, obj->u.members, obj->len * sizeof *m);
    m[obj->len] = (coax_member){kcopy, (uint32_t)klen, *value};
    obj->u.members = m;
    obj->len++;
    return r;
}

/* A deep copy (values from another arena, a schema's default, must not be
** shared with a result that outlives them). */
coax_value *coax_value_copy(coax_arena *a, const coax_value *v)
{
    typedef struct job {
        const coax_value *from;
        coax_value *to;
    } job;
    size_t cap = 32, n = 0;
    job *stack = coax_arena_alloc(a, cap * sizeof *stack);
    coax_value *root = coax_new_value(a, COAX_NULL);
    if (!stack || !root) return NULL;
    stack[n++] = (job){v, root};
    while (n) {
        job j = stack[--n];
        *j.to = *j.from;
        switch (j.from->type) {
        case COAX_STRING:
        case COAX_NUMBER:
            j.to->u.text = coax_arena_strdup(a, j.from->u.text, j.from->len);
            if (!j.to->u.text) return NULL;
            break;
        case COAX_ARRAY:
        case COAX_OBJECT: {
            size_t count = j.from->len;
            bool arr = j.from->type == COAX_ARRAY;
            void *kids = coax_arena_alloc(a, count * (arr ? sizeof(coax_value) : sizeof(coax_member)) + 1);
            if (!kids) return NULL;
            if (n + count > cap) {
                size_t ncap = cap;
                while (ncap < n + count) ncap *= 2;
                job *ns = coax_arena_alloc(a, ncap * sizeof *ns);
                if (!ns) return NULL;
                memcpy(ns, stack, n * sizeof *ns);
                stack = ns; /* the old stack stays in the arena until it is freed */
                cap = ncap;
            }
            if (arr) {
                j.to->u.items = kids;
                for (size_t i = 0; i < count; i++)
                    stack[n++] = (job){&j.from->u.items[i], &j.to->u.items[i]};
            } else {
                j.to->u.members = kids;
                for (size_t i = 0; i < count; i++) {
                    const coax_member *m = &j.from->u.members[i];
                    j.to->u.members[i].klen = m->klen;
                    j.to->u.members[i].key = coax_arena_strdup(a, m->key, m->klen);
                    if (!j.to->u.members[i].key) return NULL;
                    stack[n++] = (job){&m->value, &j.to->u.members[i].value};
                }
            }
            break;
        }
        default:
            break;
        }
    }
    return root;
}
