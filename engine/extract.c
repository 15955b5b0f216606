/*
** extract.c: coax_extract. Repair finds the candidates; each is validated
** and coerced (coerce.c); the best one wins by score (see coax.h).
*/
#include "coerce.h"

/* At most this many candidates are scored: the repair's own choice and the
** last ones (a reply holding thousands of NDJSON lines also has the whole
** sequence as one candidate, which is scored). */
#define MAX_SCORED 64

typedef struct scored {
    bool valid, complete;
    size_t nerrors, ncoercions, index;
    const coax_value *value;
    coax_validation validation;
    coax_coercion *coercions;
} scored;

/* Whether 'a' beats 'b' (b may be unset: index SIZE_MAX). */
static bool better(const scored *a, const scored *b)
{
    if (b->index == SIZE_MAX) return true;
    if (a->valid != b->valid) return a->valid;
    if (a->nerrors != b->nerrors) return a->nerrors < b->nerrors;
    if (a->complete != b->complete) return a->complete;
    if (a->ncoercions != b->ncoercions) return a->ncoercions < b->ncoercions;
    return a->index > b->index;
}

/* {"result": {...}} when only the inner value fits, and the key names the
** whole answer: {"greeting": "hello"} is content, not an envelope. */
static coax_code try_envelope(coerce_ctx *c, scored *s)
{
    const coax_value *v = s->value;
    if (s->valid || v->type != COAX_OBJECT || v->len != 1) return COAX_OK;
    const coax_member *m = &v->u.members[0];
    if ((m->value.flags & COAX_VF_INVENTED) || !coerce_wrapper_key(c->arena, c->doc, m->key, m->klen, &m->value))
        return COAX_OK;
    coax_arena_mark mark = coax_arena_get_mark(c->arena);
    size_t before = c->n, cap = c->cap;
    coax_coercion *log = c->log; /* the log may move into memory the rewind frees */
    const coax_value *inner;
    coax_validation val;
    coax_code rc = coerce_candidate(c, &v->u.members[0].value, &inner, &val);
    if (rc) return rc;
    if (!val.valid) {
        c->log = log;
        c->n = before;
        c->cap = cap;
        coax_arena_rewind(c->arena, mark);
        return COAX_OK;
    }
    /* The earlier coercions were of the envelope: only the inner ones stay,
    ** and the unwrapping goes first. */
    size_t inner_n = c->n - before;
    coax_coercion *unwrapped = coax_arena_alloc(c->arena, (inner_n + 1) * sizeof *unwrapped);
    if (!unwrapped) return COAX_ENOMEM;
    unwrapped[0] = (coax_coercion){"envelope_unwrapped", "", "took the value inside a single-key envelope",
                                   coerce_class("envelope_unwrapped")};
    if (inner_n) memcpy(unwrapped + 1, c->log + before, inner_n * sizeof *unwrapped);
    c->log = unwrapped;
    c->n = c->cap = inner_n + 1;
    s->value = inner;
    s->valid = true;
    s->nerrors = 0;
    s->validation = val;
    return COAX_OK;
}

/* An error at the root that no schema keyword reports, put first. */
static coax_code add_root_error(coax_arena *a, coax_validation *v, const char *message)
{
    coax_schema_error *e = coax_arena_alloc(a, (v->nerrors + 1) * sizeof *e);
    if (!e) return COAX_ENOMEM;
    e[0] = (coax_schema_error){"", "", NULL, message, NULL, 0};
    if (v->nerrors) memcpy(e + 1, v->errors, v->nerrors * sizeof *e);
    v->errors = e;
    v->nerrors++;
    v->valid = 0;
    return COAX_OK;
}

static coax_code score(coerce_ctx *c, const char *text, size_t len, const coax_candidate *cand, size_t index,
                       bool strict, scored *s)
{
    c->log = NULL;
    c->n = c->cap = 0;
    coax_code rc;
    if (strict) {
        s->value = cand->value;
        rc = coax_validate(c->schema, cand->value, c->arena, 0, &s->validation, c->err);
    } else {
        rc = coerce_candidate(c, cand->value, &s->value, &s->validation);
    }
    if (rc) return rc;
    s->complete = cand->complete;
    /* A value closed at the end of a cut-off reply may not be what the
    ** model meant ("tags": ["a", "b" may have had more; "bo" may have been
    ** "bob"), so it never counts as valid: the session asks again instead. */
    if (!s->complete && (rc = add_root_error(c->arena, &s->validation, "the reply was cut off: the JSON is incomplete")))
        return rc;
    if (!extract_scalar_alone(text, len, cand) &&
        (rc = add_root_error(c->arena, &s->validation,
                             "the value is one part of a sentence: send the value alone")))
        return rc;
    s->valid = s->validation.valid;
    s->nerrors = s->validation.nerrors;
    s->index = index;
    if (!strict && c->doc && (rc = try_envelope(c, s))) return rc;
    s->coercions = c->log;
    s->ncoercions = c->n;
    return COAX_OK;
}

/* A bare scalar reply ("TWO", "**42**") for a schema that asks for one
** scalar, tried when no candidate is valid: kept only when valid, as one
** more candidate (the whole text). */
static coax_code try_bare(coerce_ctx *c, const char *text, size_t len, bool literal_only, coax_repair_result *r,
                          scored *best)
{
    coax_arena_mark mark = coax_arena_get_mark(c->arena);
    coax_value *v = extract_bare_scalar(c->arena, text, len, literal_only);
    if (!v) return COAX_OK;
    c->log = NULL;
    c->n = c->cap = 0;
    scored s = {.complete = true, .index = r->ncandidates};
    coax_code rc = coerce_log(c, "bare_scalar", "read the whole reply as one value", "", 0);
    if (!rc) rc = coerce_candidate(c, v, &s.value, &s.validation);
    if (rc) return rc;
    if (!s.validation.valid) {
        coax_arena_rewind(c->arena, mark);
        return COAX_OK;
    }
    coax_candidate *cands = coax_arena_alloc(c->arena, (r->ncandidates + 1) * sizeof *cands);
    if (!cands) return COAX_ENOMEM;
    if (r->ncandidates) memcpy(cands, r->candidates, r->ncandidates * sizeof *cands);
    cands[r->ncandidates] = (coax_candidate){v, COAX_SOURCE_WHOLE, 0, len, 1, NULL, 0};
    r->candidates = cands;
    r->ncandidates++;
    s.valid = true;
    s.coercions = c->log;
    s.ncoercions = c->n;
    *best = s;
    return COAX_OK;
}

coax_code coax_extract(coax_arena *arena, const coax_schema *schema, const coax_value *schema_doc,
                       const char *text, size_t len, const coax_limits *limits, unsigned flags,
                       coax_extract_result *out, coax_error *err)
{
    if (!arena || !schema || !out || (!text && len))
        return coax_fail(err, COAX_EINVAL, 0, "coax_extract: NULL argument");
    memset(out, 0, sizeof *out);
    bool strict = (flags & COAX_EXTRACT_STRICT) || !schema_doc;
    coerce_root root = strict ? ROOT_OTHER : coerce_scalar_root(schema_doc);
    bool bare = root != ROOT_OTHER;
    coax_code rc = coax_repair(arena, text, len, limits, &out->repair, err);
    if (rc == COAX_ENOJSON && bare) memset(&out->repair, 0, sizeof out->repair); /* 'err' keeps the reason */
    else if (rc) return rc;
    coax_repair_result *r = &out->repair;
    coerce_ctx c = {arena, schema, schema_doc, coax_schema_draft(schema), err, NULL, 0, 0};
    scored best = {.index = SIZE_MAX};
    size_t first = r->ncandidates > MAX_SCORED ? r->ncandidates - MAX_SCORED : 0;
    for (size_t i = 0; i < r->ncandidates; i++) {
        if (i < first && i != r->chosen && r->candidates[i].source != COAX_SOURCE_SEQUENCE) continue;
        coax_arena_mark mark = coax_arena_get_mark(arena);
        scored s;
        if ((rc = score(&c, text, len, &r->candidates[i], i, strict, &s))) return rc;
        if (better(&s, &best)) best = s;
        else coax_arena_rewind(arena, mark); /* a loser's trials and errors */
    }
    /* A valid whole-text candidate that needed repairs yields to the reply
    ** read as a JSON scalar once its decorations are off: `"hi"` is "hi",
    ** not a string holding quotes. */
    bool repaired = best.index != SIZE_MAX && r->candidates[best.index].nlog &&
                    r->candidates[best.index].source == COAX_SOURCE_WHOLE;
    if (bare && (!best.valid || repaired) &&
        (rc = try_bare(&c, text, len, root == ROOT_STRING || best.valid, r, &best)))
        return rc;
    if (best.index == SIZE_MAX) return COAX_ENOJSON;
    out->valid = best.valid;
    out->value = best.value;
    out->candidate = best.index;
    out->coercions = best.coercions;
    out->ncoercions = best.ncoercions;
    out->validation = best.validation;
    out->repair.chosen = best.index;
    out->repair.value = r->candidates[best.index].value;
    out->repair.log = r->candidates[best.index].log;
    out->repair.nlog = r->candidates[best.index].nlog;
    return COAX_OK;
}
