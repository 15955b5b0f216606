/*
** extract.c: coax_extract. Repair finds the candidates; each is validated
** and coerced (coerce.c); the best one wins by score (see coax.h).
*/
#include "extract/coerce.h"
#include "repair/repair.h"
#include "schema/schema.h"

#include <stdlib.h>

/* At most this many candidates are scored: the repair's own choice and the
** last ones (a reply holding thousands of NDJSON lines also has the whole
** sequence as one candidate, which is scored). */
#define MAX_SCORED 64

typedef struct scored {
    bool valid, complete;
    size_t ninvented, ninferred; /* repairs of each class in the candidate's log */
    size_t nerrors, ncoercions, index;
    const coax_value *value;
    coax_validation validation;
    coax_coercion *coercions;
    const coax_repair_entry *refused; /* the repair its first error names, or NULL */
    bool fragment_answer; /* valid and complete but for being one value of several */
    bool cut_answer;      /* valid but for its block's end, cut off or never written */
    bool cut_after;       /* complete, but the cut-off reply ends right after it */
    bool part_answer;     /* an object whose members are all valid, short of the whole */
    bool misfit_answer;   /* an object wrong only in its members' values */
    bool format_answer;   /* valid and plain but for a placeholder ("<name>", "...") in it */
    bool gated_answer;    /* valid and plain but for a repair or coercion less certain than max_class */
    bool wrapped_answer;  /* valid but for its items wrapped each in a list: two readings, both fitting */
    const coax_value *reading; /* strict: the value coerced, where only a coercion kept it from fitting */
    size_t nreading;           /* the coercions it took */
} scored;

/* What every candidate is scored with. */
typedef struct extract_job {
    const coax_repair_result *repair;
    const char *text;
    size_t len;
    bool strict, cut_off, finished; /* finished: the provider said the model stopped */
    coax_class max_class;
    const coax_repair_entry *whole_guess; /* an invented repair in the whole text's values, or NULL */
    const coax_limits *limits;
    const coax_repair_entry *tail_guess; /* whole_guess of the text from its first span of prose on, or NULL */
    size_t tail_from;
    const char *raw; /* the reply as written; text is it with Unicode spaces as ASCII ones, for the prose's rules */
} extract_job;

/* The first invented repair among the values the whole text was read as.
** Where the text is nothing but values and one of them needed a guess, the
** places it was cut into values are guesses too: '{"k": "v"}, "k2" "v2"}'
** is one object closed early, and '[7, 8, 9]' after a broken object is a
** piece of it, so none of those values stands alone. */
static const coax_repair_entry *whole_guess(const coax_repair_result *r)
{
    for (size_t i = 0; i < r->ncandidates; i++) {
        const coax_candidate *c = &r->candidates[i];
        if (c->source != COAX_SOURCE_WHOLE && c->source != COAX_SOURCE_SEQUENCE) continue;
        /* A fragment (one value of several) says which value was taken,
        ** not that the reading of the text needed a guess. */
        for (size_t k = 0; k < c->nlog; k++)
            if (c->log[k].cls == COAX_CLASS_INVENTED && strcmp(c->log[k].kind, "fragment")) return &c->log[k];
    }
    return NULL;
}

/* whole_guess for the text from its first span of prose on, read as the
** whole reply is where nothing comes before its JSON: words before it
** ("Here is the JSON:") must not let a span stand alone where that text,
** read whole, needs a guess ('{"a": 1}⏎"a": 2}⏎{"a": 3}' after them gave
** [{"a": 3}]). Set in x only when one is
** needed, the entry copied, its place the reply's; a fenced or tagged
** block holds the answer, and a whole reading has its own. */
static coax_code prose_tail_guess(coax_arena *a, extract_job *x)
{
    const coax_repair_result *r = x->repair;
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < r->ncandidates; i++) {
        coax_source src = r->candidates[i].source;
        if (src != COAX_SOURCE_PROSE && src != COAX_SOURCE_SEQUENCE) return COAX_OK;
        size_t at = r->candidates[i].start, b = at;
        while (b > 0 && (x->text[b - 1] == ' ' || x->text[b - 1] == '\t')) b--;
        /* where the JSON begins: a span that starts its line, a list item's ("1. {...}") or ends an
        ** introduction's colon (not LaTeX's {1}) */
        if (src == COAX_SOURCE_PROSE && at < first && at < x->len &&
            (b == 0 || coax_byte_in("\n\r:", x->text[b - 1]) || (b < at && extract_item_marker_before(x->text, b))))
            first = at;
    }
    if (first == SIZE_MAX || first == 0 || first >= x->len) return COAX_OK;
    /* One span with only spaces after it: the tail read whole is that span,
    ** whose own repairs are its reading's already (no second repair for
    ** the common "Here is the JSON:\n{...}"). */
    size_t end = r->ncandidates == 1 ? r->candidates[0].end : 0;
    while (end && end < x->len && coax_ascii_space((unsigned char)x->text[end])) end++;
    if (end == x->len && r->candidates[0].start == first) return COAX_OK;
    /* no rewind after: coax_repair lends blocks of the arena back to it */
    coax_repair_result tail;
    coax_error err;
    coax_code rc = coax_repair(a, x->raw + first, x->len - first, x->limits, &tail, &err);
    const coax_repair_entry *g = rc ? NULL : whole_guess(&tail);
    if (rc == COAX_ENOMEM) return rc;
    if (!g) return COAX_OK;
    coax_repair_entry *out = coax_arena_alloc(a, sizeof *out); /* the result's 'refused' may name it */
    if (!out) return COAX_ENOMEM;
    *out = *g;
    out->offset += first;
    uint32_t line, column;
    coax_locate(x->raw, x->len, out->offset, &line, &column);
    out->line = line, out->column = column;
    x->tail_guess = out;
    x->tail_from = first;
    return COAX_OK;
}

/* Whether 'a' beats 'b' (b may be unset: index SIZE_MAX). */
static bool better(const scored *a, const scored *b)
{
    if (b->index == SIZE_MAX) return true;
    if (a->valid != b->valid) return a->valid;
    if (a->ninvented != b->ninvented) return a->ninvented < b->ninvented;
    if (a->nerrors != b->nerrors) return a->nerrors < b->nerrors;
    if (a->complete != b->complete) return a->complete;
    if (a->ninferred != b->ninferred) return a->ninferred < b->ninferred;
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
    if ((m->value.flags & COAX_VF_INVENTED) || !coerce_wrapper_key(c->arena, c->doc, c->schema, m->key, m->klen, &m->value,
                                                             &c->names_regex))
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
        coerce_rewind(c, mark);
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

/* Makes 'v' invalid with 'message' as its first error, at the root. */
static coax_code prepend_error(coax_arena *a, coax_validation *v, const char *message)
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

/* A value valid against the schema that is no answer as it stands gets an
** error at the place saying why: a placeholder in it ("<name>", "[Your
** Email]", "...": '*placeholder', the reply's format rather than its
** answer), a member giving a property a second value ("corrected_age") or
** null written as text ("None"). Every valid candidate passes here, the
** whole reply read as a bare scalar too. */
static coax_code unmeant_error(coerce_ctx *c, scored *s, bool *placeholder)
{
    const char *msg = NULL, *ptr = NULL;
    coax_code rc = s->valid ? extract_find_placeholder(c, s->value, &msg, &ptr) : COAX_OK;
    *placeholder = msg != NULL;
    if (!rc && s->valid && !msg) rc = extract_find_restated(c, s->value, &msg, &ptr);
    if (rc || !msg) return rc;
    if (prepend_error(c->arena, &s->validation, msg)) return COAX_ENOMEM;
    s->validation.errors[0].instance_location = ptr;
    s->valid = false;
    s->nerrors = s->validation.nerrors;
    return COAX_OK;
}

/* The text a repair was made at, for its error: up to the next delimiter
** on its line, at most 32 bytes, cut at a character boundary. */
static size_t snippet(const char *text, size_t len, size_t at, const char **out)
{
    size_t n = 0;
    if (at > len) at = len;
    while (at + n < len && n < 32 && text[at + n] != '\n' && text[at + n] != '\r' &&
           !(n && coax_byte_in(",:{}[]\"", text[at + n])))
        n++;
    while (n && at + n < len && ((unsigned char)text[at + n] & 0xC0) == 0x80) n--;
    *out = text + at;
    return n;
}

/* "unreadable text at line 1, column 40 (a key was guessed from text not
** written as one: '000.00'); send valid JSON" for the repair 'e'. */
static const char *repair_error(coax_arena *a, const char *text, size_t len, const coax_repair_entry *e)
{
    const char *s;
    size_t n = snippet(text, len, e->offset, &s);
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(a));
    coax_buf_printf(&b, "%s at line %u, column %u (%s: '%.*s'); send valid JSON",
                    e->cls == COAX_CLASS_INVENTED ? "unreadable text" : "text that is not strict JSON", e->line,
                    e->column, e->detail, (int)n, s);
    char *msg = b.oom ? NULL : coax_arena_strdup(a, b.data, b.len);
    coax_buf_free(&b);
    return msg;
}

/* What the candidate's repairs allow: counts by class, the first repair less certain than 'max' (NULL: none), in
** 'doubt' the first the default class would refuse (past 'max' if that is invented), and
** whether its being incomplete is excused: brackets closed at the end after a complete member (inferred
** closed_bracket), and nothing closed while it was still being written. An unclosed fence or tag around a complete
** value is not excused: the reply stopped before its end. Nor is a number the text ends on, brackets open ({"n": 12
** may have been cut from 1234: only a space after it, or the provider saying the model stopped, says it ended). */
static const coax_repair_entry *classify(const extract_job *x, const coax_candidate *cand, scored *s,
                                         bool *excused, const coax_repair_entry **doubt)
{
    coax_class max = x->max_class, rival = max > COAX_CLASS_INFERRED ? max : COAX_CLASS_INFERRED;
    const coax_repair_entry *gate = NULL;
    *doubt = NULL;
    s->ninvented = s->ninferred = 0;
    bool closed = false, closed_invented = false;
    for (size_t i = 0; i < cand->nlog; i++) {
        const coax_repair_entry *e = &cand->log[i];
        s->ninvented += e->cls == COAX_CLASS_INVENTED;
        s->ninferred += e->cls == COAX_CLASS_INFERRED;
        if (e->cls > max && !gate) gate = e;
        if (e->cls > rival && !*doubt) *doubt = e;
        if (e->cls == COAX_CLASS_INVENTED && e->offset >= cand->end) closed_invented = true;
        if (e->cls == COAX_CLASS_INFERRED && !strcmp(e->kind, "closed_bracket")) {
            closed = true;
            if (!x->finished && e->offset == x->len && x->len && x->text[x->len - 1] >= '0' &&
                x->text[x->len - 1] <= '9')
                closed_invented = true; /* a number the end touches: it may have been cut */
        }
    }
    *excused = closed && !closed_invented;
    return gate;
}

/* A coercion less certain than 'max' (string_to_integer, an envelope
** unwrapped, a bare scalar: inferred) is as much a reading the caller did
** not allow as a repair of that class: the value is refused at the
** coercion's place, with the rule it broke. */
static const coax_coercion *coercion_above(const coerce_ctx *c, coax_class max)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->log[i].cls > max) return &c->log[i];
    return NULL;
}

static coax_code coercion_gate(coerce_ctx *c, coax_class max, scored *s)
{
    const coax_coercion *e = coercion_above(c, max);
    if (e) {
        coax_buf b;
        coax_buf_init(&b, coax_arena_allocator(c->arena));
        coax_buf_printf(&b, "a coercion less certain than the class allowed (%s: %s); send the value as the "
                            "schema asks for it", e->kind, e->detail);
        char *msg = b.oom ? NULL : coax_arena_strdup(c->arena, b.data, b.len);
        coax_buf_free(&b);
        if (!msg || prepend_error(c->arena, &s->validation, msg)) return COAX_ENOMEM;
        s->validation.errors[0].instance_location = e->pointer;
        s->valid = false;
        s->nerrors = s->validation.nerrors;
    }
    return COAX_OK;
}

/* "a value was taken out of prose at line 1, column 5 ('2 or 3'): send the
** value alone", for a scalar candidate that is not the whole reply. */
static const char *prose_error(coax_arena *a, const char *text, size_t len, size_t at)
{
    const char *s;
    size_t n = snippet(text, len, at, &s);
    uint32_t line, column;
    coax_locate(text, len, at, &line, &column);
    coax_buf b;
    coax_buf_init(&b, coax_arena_allocator(a));
    coax_buf_printf(&b, "a value was taken out of prose at line %u, column %u ('%.*s'): send the value alone", line,
                    column, (int)n, s);
    char *msg = b.oom ? NULL : coax_arena_strdup(a, b.data, b.len);
    coax_buf_free(&b);
    return msg;
}

/* An error at the list at 'at' (NULL: out of memory) saying why the value is not taken. */
static coax_code list_error(coerce_ctx *c, scored *s, const char *at, const char *message)
{
    if (!at || prepend_error(c->arena, &s->validation, message)) return COAX_ENOMEM;
    s->validation.errors[0].instance_location = at;
    s->valid = false, s->nerrors = s->validation.nerrors;
    return COAX_OK;
}

/* An error at the list where the coercion wrapped or unwrapped items as the reply may not have meant
** (coerce_wrapped_items_place), saying why. */
static coax_code wrapped_items_error(coerce_ctx *c, const coax_candidate *cand, scored *s)
{
    if (!s->valid) return COAX_OK;
    const char *at, *why;
    coax_code rc = coerce_wrapped_items_place(c, s->value, cand, &at, &why);
    return rc || !at ? rc : list_error(c, s, at, why);
}

/* A reply that is a string holding JSON ("{\"a\": 1}", '[1, 2]') was
** decoded (repair.c, double_encoded): where the schema takes the string as written too ({}, a string
** or an object), the string and the value it holds are two readings. The
** string is checked as its text between the quotes (escapes as written:
** the schema's type decides, its pattern or length nearly so). */
static coax_code double_encoded_error(coerce_ctx *c, const extract_job *x, const coax_candidate *cand, scored *s)
{
    bool decoded = false;
    for (size_t i = 0; i < cand->nlog && !decoded; i++) decoded = !strcmp(cand->log[i].kind, "double_encoded");
    size_t from = cand->start, to = cand->end < x->len ? cand->end : x->len;
    while (from < to && coax_byte_in(" \t\r\n", x->text[from])) from++;
    while (to > from && coax_byte_in(" \t\r\n", x->text[to - 1])) to--;
    /* `{"a": 1}` is Markdown's code span around the value, no string */
    if (!s->valid || !decoded || to < from + 2 || (x->text[from] != '"' && x->text[from] != '\''))
        return COAX_OK;
    coax_value *str = coax_new_value(c->arena, COAX_STRING);
    if (!str || coax_set_string(c->arena, str, x->raw + from + 1, to - from - 2)) return COAX_ENOMEM;
    coax_validation v;
    coax_code rc = coax_validate(c->schema, str, c->arena, 0, &v, c->err);
    if (rc || !v.valid) return rc;
    s->valid = false;
    return prepend_error(c->arena, &s->validation,
                         "the reply is a string holding JSON: the string and the value it holds are two "
                         "readings the schema both takes; send the value alone");
}

/* Strict, a candidate the coercion would make fit ({"a": "5"} for an integer, 2 for a list) is no
** draft that an answer after it corrects, as {"a": "five"} is: it is the answer 5, refused only for
** being strict, so beside another that differs it is a rival, read as the default reads it. */
static coax_code strict_reading(coerce_ctx *c, const coax_candidate *cand, scored *s)
{
    coax_validation val;
    const coax_value *v;
    coax_code rc = coerce_candidate(c, cand->value, &v, &val);
    s->nreading = c->n;
    c->n = 0; /* strict takes no coercion: none is logged */
    if (!rc && val.valid) s->reading = v;
    return rc;
}

/* Whether every guess made for 'cand' is about a byte glued outside it, its text read as written: a
** stray byte before its opener ('][1, 2]'), members that may follow its closer ('[1, 2]:'). Words
** glued after it ('[1 ]Source:', a footnote's mark) make it something else. */
static bool guessed_only_outside(const coax_candidate *cand)
{
    size_t n = 0;
    for (size_t i = 0; i < cand->nlog; i++) {
        const coax_repair_entry *e = &cand->log[i];
        if (e->cls != COAX_CLASS_INVENTED) continue;
        if (e->offset >= cand->start && (e->offset < cand->end || strcmp(e->kind, "early_close"))) return false;
        n++;
    }
    return n && cand->complete;
}

static coax_code score(coerce_ctx *c, const extract_job *x, size_t index, scored *s)
{
    const coax_candidate *cand = &x->repair->candidates[index];
    bool strict = x->strict, glued = !strict && guessed_only_outside(cand);
    c->log = NULL;
    c->n = c->cap = 0;
    coax_code rc;
    if (strict) {
        s->value = cand->value;
        rc = coax_validate(c->schema, cand->value, c->arena, 0, &s->validation, c->err);
    } else {
        /* guessed only for what is glued outside it: coerced as written, to judge it beside the others */
        coax_value *written = glued ? coax_arena_alloc(c->arena, sizeof *written) : cand->value;
        if (!written) return COAX_ENOMEM;
        if (glued) *written = *cand->value, written->flags &= (uint8_t)~COAX_VF_INVENTED;
        rc = coerce_candidate(c, written, &s->value, &s->validation);
    }
    if (rc) return rc;
    bool written_fits = s->validation.valid; /* strict: as written, before the looks for what no one meant */
    s->valid = s->validation.valid;
    s->nerrors = s->validation.nerrors;
    s->index = index;
    if (!strict && (rc = try_envelope(c, s))) return rc;
    bool fitted = s->valid; /* [1, 2] for a list of lists: [[1, 2]] or [[1], [2]], an answer all the same */
    if (!strict && (rc = wrapped_items_error(c, cand, s))) return rc;
    s->wrapped_answer = fitted && !s->valid;
    if ((rc = double_encoded_error(c, x, cand, s))) return rc;
    bool valid_but_placeholder;
    if ((rc = unmeant_error(c, s, &valid_but_placeholder))) return rc;
    /* After every coercion and the envelope: nothing may make valid what
    ** the repairs do not allow. Whether the value is another answer beside
    ** the best is read as the default class reads it ('fits', 'doubt'): a
    ** stricter class refuses more, and must not leave the other as the one. */
    s->reading = NULL;
    if (strict && !written_fits && !valid_but_placeholder && (rc = strict_reading(c, cand, s))) return rc;
    bool fits = (s->validation.valid || s->reading) &&
                (strict || !coercion_above(c, x->max_class > COAX_CLASS_INFERRED ? x->max_class : COAX_CLASS_INFERRED));
    bool was_valid = s->validation.valid;
    if (!strict && (rc = coercion_gate(c, x->max_class, s))) return rc;
    bool coercion_gated = was_valid && !s->validation.valid;
    bool excused;
    const coax_repair_entry *doubt, *gate = classify(x, cand, s, &excused, &doubt);
    if (x->whole_guess && !s->ninvented &&
        (cand->source == COAX_SOURCE_WHOLE || cand->source == COAX_SOURCE_SEQUENCE)) {
        s->ninvented = 1; /* a piece of a broken reading */
        if (!gate && x->max_class < COAX_CLASS_INVENTED) gate = x->whole_guess;
        if (!doubt && x->max_class < COAX_CLASS_INVENTED) doubt = x->whole_guess;
    } else if (x->tail_guess && !s->ninvented && cand->start >= x->tail_from) {
        s->ninvented = 1; /* the same, after words before the JSON */
        if (!gate && x->max_class < COAX_CLASS_INVENTED) gate = x->tail_guess;
        if (!doubt && x->max_class < COAX_CLASS_INVENTED) doubt = x->tail_guess;
    }
    /* A value closed at the end of a cut-off reply may not be what the
    ** model meant ("tags": ["a", "b" may have had more; "bo" may have been
    ** "bob"), so it never counts as valid: the session asks again. */
    s->complete = cand->complete || (excused && !x->cut_off);
    /* Nor is one the cut-off reply ends on, spaces aside: what came next (more items, "Actually") is lost. */
    size_t after = cand->end;
    while (x->cut_off && after < x->len && coax_ascii_space((unsigned char)x->text[after])) after++;
    bool whole = s->complete, cut_after = s->cut_after = x->cut_off && after >= x->len && s->complete;
    if (cut_after) s->complete = false; /* and yet an answer, as it stands ('whole'): beside another, a rival */
    s->refused = NULL;
    /* One value of several, otherwise plain, or guessed only for a byte glued outside it ('][1, 2]'):
    ** refused alone, yet another reading of the reply, so a plain one beside it is no surer. */
    glued = glued && whole;
    s->fragment_answer = fits && ((whole && s->ninvented == 1 && doubt && !strcmp(doubt->kind, "fragment")) || glued);
    /* A block whose fence or tag never closed, around a value read whole:
    ** refused alone (the reply was cut), yet beside another answer it is
    ** another reading ("Corrected:" and a block cut before its fence). */
    s->cut_answer = fits && !s->complete && !doubt;
    /* An object read plainly whose members all fit, wrong only as a whole
    ** (a required member missing): {"age": 37} after {"name": "Ada", "age":
    ** 36} is a correction, or a draft the answer corrects. */
    s->part_answer = !fits && whole && !doubt && s->ninvented == 0 && s->value->type == COAX_OBJECT &&
                     s->value->len > 0;
    /* One wrong only in its members' values ({"age": "thirty"}): after an
    ** answer, a correction that gives a member another value, in words the
    ** schema does not take; before it, a draft the answer corrects. */
    s->misfit_answer = s->part_answer && !valid_but_placeholder; /* a placeholder's error is no wrong value */
    for (size_t i = 0; i < s->validation.nerrors && (s->part_answer || s->misfit_answer); i++) {
        s->part_answer = s->part_answer && !s->validation.errors[i].instance_location[0];
        s->misfit_answer = s->misfit_answer && s->validation.errors[i].instance_location[0];
    }
    /* A value that fills the reply's format but for a placeholder: the format
    ** echoed before the answer, or a correction after it whose notes say
    ** "..." (it corrects what it does write). */
    s->format_answer = valid_but_placeholder && whole && !doubt && s->ninvented == 0;
    /* Plain at the default class, refused only for a repair or coercion
    ** the class did not allow (an unquoted key at lossless): an answer the
    ** reply gives all the same. */
    s->gated_answer = fits && whole && s->ninvented == 0 && (gate || coercion_gated || s->reading);
    s->wrapped_answer = s->wrapped_answer && whole && (s->ninvented == 0 || glued);
    if (gate && !(gate->offset >= cand->end && !s->complete)) {
        s->refused = gate;
        const char *msg = repair_error(c->arena, x->raw, x->len, gate);
        if (!msg || (rc = prepend_error(c->arena, &s->validation, msg))) return COAX_ENOMEM;
    }
    /* "Cut off" only where the provider said so: a model that stopped with
    ** a bracket left open (or whose layout says one was lost) is told what
    ** is wrong with its JSON, not that its reply was cut. */
    if (!s->complete && (rc = prepend_error(c->arena, &s->validation,
                                            cut_after ? "the reply was cut off right after its JSON: what came next "
                                                        "(more items, a correction) is lost"
                                            : x->cut_off ? "the reply was cut off: the JSON is incomplete"
                                                         : "the JSON is incomplete: the reply ends inside it")))
        return rc;
    if (!extract_scalar_alone(x->text, x->len, cand)) {
        const char *msg = prose_error(c->arena, x->raw, x->len, cand->start);
        if (!msg || (rc = prepend_error(c->arena, &s->validation, msg))) return COAX_ENOMEM;
    }
    s->valid = s->validation.valid;
    s->nerrors = s->validation.nerrors;
    s->coercions = c->log;
    s->ncoercions = c->n;
    return COAX_OK;
}

/* The valid, complete candidates that needed no invented repair: each is
** an answer the reply plainly gives. */
typedef struct plain_set {
    scored *s;
    size_t n;
} plain_set;

static bool is_plain(const scored *s) { return s->valid && s->complete && s->ninvented == 0; }

/* A rival of the best: a plain answer; or one that would be plain alone
** but for being one value of several, in a block cut off, or a repair the
** class did not allow; or an object whose members all fit, short only of
** the whole (a correction, a draft). */
static bool is_rival(const scored *s)
{
    return is_plain(s) || s->fragment_answer || s->cut_answer || s->part_answer || s->misfit_answer ||
           s->format_answer || s->gated_answer || s->wrapped_answer;
}

/* Whether candidate a's span holds b's (an NDJSON array holds its lines). */
static bool holds(const coax_candidate *a, const coax_candidate *b)
{
    return a->start <= b->start && b->end <= a->end;
}

/* Whether candidate o (scored p) is a part of candidate h (scored hs), not
** another answer: inside its span, and, when h is the array made of the
** values one after the other, fitting the schema only with more coercions
** than h ({"a": 1}\n{"a": 2} for an array of objects is one list; for any
** value at all, a list and two objects are three readings). */
static bool part_of(const coax_candidate *h, const scored *hs, const coax_candidate *o, const scored *p)
{
    if (!holds(h, o)) return false;
    return h->source != COAX_SOURCE_SEQUENCE ||
           (p->reading ? p->nreading : p->ncoercions) > (hs->reading ? hs->nreading : hs->ncoercions);
}

/* Refuses the best with an error naming two places of the reply: 'fmt'
** takes the line and column of each. */
static coax_code refuse_at(coerce_ctx *c, const extract_job *x, scored *best, const char *fmt, size_t at1,
                           size_t at2)
{
    uint32_t l1, c1, l2, c2;
    coax_locate(x->raw, x->len, at1, &l1, &c1);
    coax_locate(x->raw, x->len, at2, &l2, &c2);
    coax_buf buf;
    coax_buf_init(&buf, coax_arena_allocator(c->arena));
    coax_buf_printf(&buf, fmt, l1, c1, l2, c2);
    char *msg = buf.oom ? NULL : coax_arena_strdup(c->arena, buf.data, buf.len);
    coax_buf_free(&buf);
    if (!msg) return COAX_ENOMEM;
    coax_code rc = prepend_error(c->arena, &best->validation, msg);
    if (rc) return rc;
    best->valid = false;
    best->nerrors = best->validation.nerrors;
    return COAX_OK;
}

/* Where the second of two rival readings starts, for an error to name: its
** start, unless both start at one place (a list of values one after the
** other, and its first value), where it is the list's next value. */
static size_t second_place(const coax_repair_result *r, const coax_candidate *first, const coax_candidate *second)
{
    if (second->start != first->start) return second->start;
    const coax_candidate *list = first->end >= second->end ? first : second;
    size_t at = list->end;
    for (size_t i = 0; i < r->ncandidates; i++) {
        const coax_candidate *c = &r->candidates[i];
        if (c->start > list->start && c->start < at && holds(list, c)) at = c->start;
    }
    return at;
}

static int key_then_place(const void *pa, const void *pb)
{
    const coax_member *x = *(const coax_member *const *)pa, *y = *(const coax_member *const *)pb;
    int r = memcmp(x->key, y->key, x->klen < y->klen ? x->klen : y->klen);
    if (r || x->klen != y->klen) return r ? r : x->klen < y->klen ? -1 : 1;
    return (x > y) - (x < y); /* one array: the first of equal keys first, as coax_object_get finds */
}

/* The value of member 'm' (the i-th of its object) in object 'v', or NULL;
** 'oom' set when out of memory. By position while the two objects' keys
** line up, else by binary search in v's members sorted once ('*sorted',
** NULL at first): a scan per member made fills and agrees quadratic (a
** reply with a format of 16,000 members and its answer took 0.33 s, 65
** times 2,000's). */
static const coax_value *member_of(coax_arena *a, const coax_value *v, size_t i, const coax_member *m,
                                   const coax_member ***sorted, bool *oom)
{
    const coax_member *p = i < v->len ? &v->u.members[i] : NULL;
    if (p && p->klen == m->klen && !memcmp(p->key, m->key, m->klen)) return &p->value;
    if (!*sorted) {
        const coax_member **st = coax_arena_alloc(a, (v->len ? v->len : 1) * sizeof *st);
        if (!st) {
            *oom = true;
            return NULL;
        }
        for (size_t k = 0; k < v->len; k++) st[k] = &v->u.members[k];
        qsort(st, v->len, sizeof *st, key_then_place);
        *sorted = st;
    }
    size_t lo = 0, hi = v->len; /* the first member whose key is not below m's */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const coax_member *q = (*sorted)[mid];
        int r = memcmp(q->key, m->key, q->klen < m->klen ? q->klen : m->klen);
        if (!r) r = q->klen < m->klen ? -1 : q->klen > m->klen;
        if (r < 0) lo = mid + 1;
        else hi = mid;
    }
    const coax_member *q = lo < v->len ? (*sorted)[lo] : NULL;
    return q && q->klen == m->klen && !memcmp(q->key, m->key, m->klen) ? &q->value : NULL;
}

/* Whether 'format' (a value holding placeholders) and 'v' are one value
** but where 'format' holds a placeholder (the value of member 'key'): 1,
** 0, or -1 out of memory. */
static int fills(coax_arena *a, const coax_value *format, const coax_value *v, const char *key, size_t klen)
{
    if (format->type == COAX_STRING && extract_is_placeholder(format->u.text, format->len, key, klen)) return 1;
    if (format->type != v->type || format->len != v->len) return 0;
    if (format->type == COAX_ARRAY) {
        for (size_t i = 0; i < format->len; i++) {
            int eq = fills(a, &format->u.items[i], &v->u.items[i], key, klen); /* items go by the array's key */
            if (eq <= 0) return eq;
        }
        return 1;
    }
    if (format->type == COAX_OBJECT) {
        const coax_member **sorted = NULL;
        bool oom = false;
        for (size_t i = 0; i < format->len; i++) {
            const coax_member *m = &format->u.members[i];
            const coax_value *w = member_of(a, v, i, m, &sorted, &oom);
            int eq = oom ? -1 : w ? fills(a, &m->value, w, m->key, m->klen) : 0;
            if (eq <= 0) return eq;
        }
        return 1;
    }
    return coax_value_equal(format, v, coax_arena_allocator(a));
}

/* Whether the object 'part' agrees with 'whole': no member of it is in
** 'whole' with another value (1), or one is (0); -1 out of memory. A part
** that shares nothing is no correction of it. */
static int agrees(coax_arena *a, const coax_value *part, const coax_value *whole)
{
    if (whole->type != COAX_OBJECT) return 1;
    const coax_member **sorted = NULL;
    bool oom = false;
    for (size_t i = 0; i < part->len; i++) {
        const coax_member *m = &part->u.members[i];
        const coax_value *w = member_of(a, whole, i, m, &sorted, &oom);
        int eq = oom ? -1 : w ? fills(a, &m->value, w, m->key, m->klen) : 1; /* a placeholder agrees with any value */
        if (eq <= 0) return eq;
    }
    return 1;
}

/* Whether every scalar in 'v' is a string naming a JSON type ({"age":
** "integer"}): the reply's format echoed, not a value for its members. */
static bool type_names(const coax_value *v)
{
    static const char *const names[] = {"string", "integer", "number", "boolean", "array", "object", "null"};
    if (v->type == COAX_OBJECT || v->type == COAX_ARRAY) {
        for (size_t i = 0; i < v->len; i++)
            if (!type_names(v->type == COAX_OBJECT ? &v->u.members[i].value : &v->u.items[i])) return false;
        return v->len > 0;
    }
    for (size_t i = 0; v->type == COAX_STRING && i < sizeof names / sizeof *names; i++)
        if (v->len == strlen(names[i]) && coax_ascii_casesame(v->u.text, names[i], v->len)) return true;
    return false;
}

/* Two plain answers that differ ({"key": "value1"} ... {"key": "value2"})
** leave no way to tell which one the model meant: whether the first (a
** draft?) or the last (a correction?), picking one is a guess, so the best
** is refused with an error naming both places. Answers equal after
** coercion, or one inside the other, are one answer. */
static coax_code refuse_rivals(coerce_ctx *c, const extract_job *x, const plain_set *plain, scored *best)
{
    if (!is_plain(best)) return COAX_OK;
    const coax_candidate *b = &x->repair->candidates[best->index];
    for (size_t i = 0; i < plain->n; i++) {
        const scored *p = &plain->s[i];
        const coax_candidate *o = &x->repair->candidates[p->index];
        if (p->index == best->index || part_of(b, best, o, p) || part_of(o, p, b, best) ||
            (p->misfit_answer && (o->start < b->start || type_names(p->value))))
            continue;
        int eq = p->part_answer || p->misfit_answer ? agrees(c->arena, p->value, best->value)
                 : p->format_answer ? fills(c->arena, p->value, best->value, NULL, 0)
                                    : coax_value_equal(p->reading ? p->reading : p->value, best->value,
                                                       coax_arena_allocator(c->arena));
        if (eq < 0) return COAX_ENOMEM;
        /* The same answer again, the cut-off reply ending right after the
        ** copy: what came after it (a correction) is lost for both. */
        if (eq && p->cut_after && o->start > b->start)
            return refuse_at(c, x, best,
                             "the reply was cut off right after its JSON written again, at line %u, column %u and "
                             "at line %u, column %u: what came next (more items, a correction) is lost",
                             b->start, o->start);
        if (eq) continue;
        const coax_candidate *first = o->start < b->start ? o : b, *second = first == o ? b : o;
        /* The values one after another, read as one list, against one of
        ** them: they need not differ from each other ({"a":1} {"a":1}). */
        if (o->source == COAX_SOURCE_SEQUENCE || b->source == COAX_SOURCE_SEQUENCE)
            return refuse_at(c, x, best,
                             "the reply holds several values one after another, at line %u, column %u and at line "
                             "%u, column %u: send one value (a list, if they are one answer)",
                             first->start, second_place(x->repair, first, second));
        return refuse_at(c, x, best,
                         "the reply holds two different answers, at line %u, column %u and at line %u, column %u: "
                         "send one value",
                         first->start, second_place(x->repair, first, second));
    }
    return COAX_OK;
}

/* Whether candidate i is scored: the repair's own choice, sequences, and
** the last MAX_SCORED from 'first' on; never a block whose tag says it
** holds no answer, nor prose a label or a comment marks so. */
static bool is_scored(const extract_job *x, size_t i, size_t first)
{
    const coax_repair_result *r = x->repair;
    return (i >= first || i == r->chosen || r->candidates[i].source == COAX_SOURCE_SEQUENCE) &&
           !extract_unanswering_tag(x->text, x->len, &r->candidates[i]) &&
           !extract_unanswering_prose(x->text, x->len, &r->candidates[i]);
}

/* A plain answer beside JSON coax could only read by a guess ("Example: {...}\nAnswer:
** {\"name\": \"Ada\", \"age\": 36,", a broken answer and then its format, {\"name\":
** \"string\"}, members before it whose brace is lost): which one the model meant is a
** guess too, and the best is refused. Text that holds no quoted key (LaTeX's
** \frac{1}{2} after a value) is no answer. */
static coax_code refuse_beside_unread(coerce_ctx *c, const extract_job *x, bool blocks, size_t first, scored *best)
{
    if (!is_plain(best)) return COAX_OK;
    const coax_repair_result *r = x->repair;
    const coax_candidate *b = &r->candidates[best->index];
    for (size_t i = 0; i < r->ncandidates; i++) {
        const coax_candidate *o = &r->candidates[i];
        bool apart = o->start >= b->end || o->end <= b->start;
        /* JSON the reply ends inside is a rival cut off, after a block too; a span in the text that, read from
        ** its first span starting a line on, needs a guess, where the best comes before that text ("First
        ** {\"age\": 35}.\n\n{...}\n\n[# done #]"), is unread as that text is */
        bool cut = !o->complete && o->end == x->len;
        bool tail = x->tail_guess && b->end <= x->tail_from && o->start >= x->tail_from;
        if (!is_scored(x, i, first) || (blocks && o->source == COAX_SOURCE_PROSE && !cut) || !apart ||
            !extract_unread_json(x->text, x->len, o, tail))
            continue;
        return refuse_at(c, x, best,
                         "the reply holds a value at line %u, column %u and one that could not be read at line %u, "
                         "column %u: send one valid value",
                         b->start, o->start);
    }
    size_t origin = extract_text_origin(x->text, b->start);
    size_t lost = extract_members_unopened(x->text, origin, b->start, b->end, x->len);
    return lost == SIZE_MAX ? COAX_OK : refuse_at(c, x, best, "the reply holds a value at line %u, column %u "
                                                  "in or beside JSON unread at line %u, column %u (a brace lost, a "
                                                  "block after a key): send one valid value", b->start, lost);
}

/* Whether candidate o is a scalar, which a reply's prose may hold as a word of its own: "36 is
** wrong." after the answer reads as a second value, 36, whose start bounds no look. */
static bool scalar_read(const coax_candidate *o)
{
    return o->value && o->value->type != COAX_OBJECT && o->value->type != COAX_ARRAY;
}

/* Prose after the answer, up to the next candidate, that takes it back
** ("```json {...}``` Actually, the age is 37."): the value written or the
** one the words give? Or, for a span of prose, words before it in its
** sentence that mark it as no answer ("For example, {...} would do"). The
** best is refused, not passed over for another candidate: which one the
** words are about is a guess. */
static coax_code refuse_taken_back(coerce_ctx *c, const extract_job *x, scored *best)
{
    if (!is_plain(best)) return COAX_OK;
    const coax_repair_result *r = x->repair;
    const coax_candidate *b = &r->candidates[best->index];
    size_t to = x->len;
    for (size_t i = 0; i < r->ncandidates; i++) /* a scalar read from prose is its word: "{...}\n\n36 is wrong." */
        if (r->candidates[i].start >= b->end && r->candidates[i].start < to && !scalar_read(&r->candidates[i]))
            to = r->candidates[i].start;
    size_t at = extract_marked_before(x->text, b->start, b->source == COAX_SOURCE_PROSE);
    if (at != SIZE_MAX)
        return refuse_at(c, x, best,
                         "the reply's JSON at line %u, column %u sits in a sentence that marks it as no answer, at "
                         "line %u, column %u (For example, Suppose, Instead of, Not, Probably): send the answer alone",
                         b->start, at);
    at = b->end < to ? extract_taken_back(x->text, b->end, to, best->value) : SIZE_MAX;
    size_t more = at == SIZE_MAX ? extract_more_in_block(c->arena, x->limits, x->text, x->len, b) : SIZE_MAX;
    if (more != SIZE_MAX)
        return refuse_at(c, x, best,
                         "the reply's answer at line %u, column %u is followed in its block by another value, at "
                         "line %u, column %u: which one was meant is a guess; send one value",
                         b->start, more);
    if (at != SIZE_MAX)
        return refuse_at(c, x, best,
                         "the reply's answer at line %u, column %u is taken back by the text after it, at line %u, "
                         "column %u (Actually, Oops, I meant, a typo, not sure, another value offered, made up): "
                         "which value was meant is a guess; send it alone",
                         b->start, at);
    size_t from = 0; /* the prose before it, after any other candidate */
    for (size_t i = 0; i < r->ncandidates; i++)
        if (r->candidates[i].end <= b->start && r->candidates[i].end > from && !scalar_read(&r->candidates[i]))
            from = r->candidates[i].end;
    size_t said = extract_contradicted(x->text, from, b->start, b->end, to, best->value);
    if (said == SIZE_MAX) return COAX_OK;
    return refuse_at(c, x, best,
                     "the reply's answer at line %u, column %u is given another value by the text at line %u, "
                     "column %u (\"The age is 37.\" beside {\"age\": 36}): which value was meant is a guess; "
                     "send it alone",
                     b->start, said);
}

/* A bare scalar reply ("TWO", "**42**") for a schema that asks for one scalar, tried when no
** candidate is valid: kept only when valid, as one more candidate (the whole text). */
static coax_code try_bare(coerce_ctx *c, const char *text, size_t len, bool literal_only, coax_class max,
                          coax_repair_result *r, scored *best)
{
    coax_arena_mark mark = coax_arena_get_mark(c->arena);
    size_t from = coax_invisible_start(text, len); /* a BOM before the reply is none of its text: TWO */
    coax_value *v = extract_bare_scalar(c->arena, text + from, len - from, literal_only);
    if (!v) return COAX_OK;
    c->log = NULL;
    c->n = c->cap = 0;
    scored s = {.complete = true, .index = r->ncandidates};
    coax_code rc = coerce_log(c, "bare_scalar", "read the whole reply as one value", "", 0);
    if (!rc) rc = coerce_candidate(c, v, &s.value, &s.validation);
    bool fits = !rc && s.validation.valid, placeholder;
    if (fits) rc = coercion_gate(c, max, &s);
    s.valid = s.validation.valid;
    if (rc || (rc = unmeant_error(c, &s, &placeholder))) return rc; /* `"..."` read bare is no answer either */
    /* refused by the gate alone, it is the answer's reason when nothing else was read */
    if (!s.validation.valid && !(fits && best->index == SIZE_MAX)) {
        coerce_rewind(c, mark);
        return COAX_OK;
    }
    coax_candidate *cands = coax_arena_alloc(c->arena, (r->ncandidates + 1) * sizeof *cands);
    if (!cands) return COAX_ENOMEM;
    if (r->ncandidates) memcpy(cands, r->candidates, r->ncandidates * sizeof *cands);
    cands[r->ncandidates] = (coax_candidate){v, COAX_SOURCE_WHOLE, from, len, 1, NULL, 0};
    r->candidates = cands;
    r->ncandidates++;
    s.valid = s.validation.valid;
    s.nerrors = s.validation.nerrors;
    s.coercions = c->log;
    s.ncoercions = c->n;
    *best = s;
    return COAX_OK;
}

void coax_extract_options_default(coax_extract_options *o)
{
    if (!o) return;
    o->flags = 0;
    o->max_class = COAX_CLASS_INFERRED;
}

/* The limit a candidate written whole met beside the ones read (repair_reading's 'rejected'), as
** the extraction's error: that candidate may have been the answer. */
static coax_code rejected_limit(const coax_error *rejected, coax_error *err)
{
    if (err) {
        *err = *rejected;
        coax_error_insert(err, strlen(err->msg),
                          ": JSON over it beside the value read may be the answer; send a smaller one");
    }
    return rejected->code;
}

coax_code extract_within(coax_arena *arena, const coax_schema *schema, const char *text, size_t len,
                         const coax_limits *limits, const coax_extract_options *options, coax_extract_result *out,
                         coax_error *err)
{
    coax_extract_options o;
    if (options) o = *options;
    else coax_extract_options_default(&o);
    bool strict = (o.flags & COAX_EXTRACT_STRICT) != 0;
    coerce_root root = strict ? ROOT_OTHER : coerce_scalar_root(schema->doc);
    bool bare = root != ROOT_OTHER;
    len = coax_invisible_end(text, len); /* {"age": 36<U+200B> ends on 36 as coax_repair reads it */
    /* lines ending in a lone CR read as coax_repair reads them (repair_cr_lines), the look for labels too */
    if (len && len <= coax_limits_resolve(limits).max_input && !(text = repair_cr_lines(arena, text, len)))
        return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    coax_error rejected; /* a candidate over a limit: it may be the answer, whatever the others are */
    coax_code rc = repair_reading(arena, text, len, limits, &out->repair, err, &rejected);
    if (!rc && rejected.code) return rejected_limit(&rejected, err);
    if (rc == COAX_ENOJSON && bare) memset(&out->repair, 0, sizeof out->repair); /* 'err' keeps the reason */
    else if (rc) return rc;
    coax_repair_result *r = &out->repair;
    const char *prose = repair_plain_spaces(arena, text, len); /* "Exemple<NBSP>:" read as "Exemple :" */
    if (!prose) return COAX_ENOMEM;
    extract_job x = {r, prose, len, strict, (o.flags & COAX_EXTRACT_CUT_OFF) != 0,
                     (o.flags & COAX_EXTRACT_FINISHED) != 0, o.max_class, whole_guess(r), limits, NULL, 0, text};
    if ((rc = prose_tail_guess(arena, &x))) return rc; /* strict turns coercion off, no look */
    coerce_ctx c = {
        .arena = arena, .schema = schema, .doc = schema->doc, .draft = coax_schema_draft(schema), .err = err};
    scored best = {.index = SIZE_MAX};
    size_t first = r->ncandidates > MAX_SCORED ? r->ncandidates - MAX_SCORED : 0;
    /* A reply that fences or tags its answer holds it there: spans of the
    ** prose around are examples and explanations, never the value. */
    bool blocks = false;
    size_t blocks_end = 0; /* where the last block ends */
    for (size_t i = 0; i < r->ncandidates; i++) {
        const coax_candidate *k = &r->candidates[i];
        if (!is_scored(&x, i, first) || (k->source != COAX_SOURCE_FENCED && k->source != COAX_SOURCE_TAGGED)) continue;
        blocks = true;
        if (k->end > blocks_end) blocks_end = k->end;
    }
    plain_set plain = {coax_arena_alloc(arena, (r->ncandidates + 1) * sizeof *plain.s), 0};
    if (!plain.s) return COAX_ENOMEM;
    for (size_t i = 0; i < r->ncandidates; i++) {
        bool aside = blocks && r->candidates[i].source == COAX_SOURCE_PROSE;
        /* Beside a block, a span of prose is never the value, but a plain
        ** answer after the last block that differs is a rival ("```{...}```
        ** Actually it should be {...}"): which one the model meant is a
        ** guess. Before a block it is an example ("For example {...}"). */
        if (!is_scored(&x, i, first) || (aside && r->candidates[i].start < blocks_end)) continue;
        coax_arena_mark mark = coax_arena_get_mark(arena);
        scored s;
        if ((rc = score(&c, &x, i, &s))) return rc;
        bool kept = aside ? is_plain(&s) || s.part_answer || s.misfit_answer || s.gated_answer ||
                                (s.cut_answer && s.cut_after) /* plain but for the reply cut after it */
                          : is_rival(&s);
        if (kept) plain.s[plain.n++] = s;
        if (!aside && better(&s, &best)) best = s;
        else if (!kept) coerce_rewind(&c, mark); /* a loser's trials and errors */
    }
    if (best.valid && (rc = refuse_rivals(&c, &x, &plain, &best))) return rc;
    if (best.valid && (rc = refuse_beside_unread(&c, &x, blocks, first, &best))) return rc;
    if (best.valid && (rc = refuse_taken_back(&c, &x, &best))) return rc;
    /* A valid whole-text candidate that needed repairs yields to the reply read as a JSON scalar
    ** once its decorations are off: `"hi"` is "hi", not a string holding quotes. */
    bool repaired = best.index != SIZE_MAX && r->candidates[best.index].nlog &&
                    r->candidates[best.index].source == COAX_SOURCE_WHOLE;
    if (bare && (!best.valid || repaired) &&
        (rc = try_bare(&c, text, len, root == ROOT_STRING || best.valid, o.max_class, r, &best)))
        return rc;
    /* No JSON, and the reply no scalar the schema takes ("Yes" for a boolean): 'err' keeps the answer */
    if (best.index == SIZE_MAX && !r->ncandidates) return COAX_ENOJSON;
    if (best.index == SIZE_MAX) { /* every candidate was in a block whose tag says it holds no answer */
        uint32_t line, column;
        size_t at = r->ncandidates ? r->candidates[0].start : 0;
        coax_locate(text, len, at, &line, &column);
        return coax_fail(err, COAX_ENOJSON, at, "the only JSON is %s, at line %u, column %u: send the answer itself",
                         r->candidates[0].source == COAX_SOURCE_TAGGED ? "in a block whose tag says it holds no answer (<example>, <draft>)"
                                : "marked as no answer by a label or a comment before it or a remark after it "
                                  "(Example:, <!--, (example))",
                         line, column);
    }
    out->valid = best.valid;
    out->value = best.value;
    out->candidate = best.index;
    out->coercions = best.coercions;
    out->ncoercions = best.ncoercions;
    out->validation = best.validation;
    out->refused = best.refused;
    out->repair.chosen = best.index;
    out->repair.value = r->candidates[best.index].value;
    out->repair.log = r->candidates[best.index].log;
    out->repair.nlog = r->candidates[best.index].nlog;
    return COAX_OK;
}
