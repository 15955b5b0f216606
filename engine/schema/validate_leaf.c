/*
** validate_leaf.c: most subschemas are leaves, tests of the value alone
** ("type", "maxLength", "enum", "pattern", "format", bounds), and most
** values pass them. Such a node (n->leaf, program.c) is first tested
** here without entering it: no frame, no charge per keyword. When every
** test passes, its steps are taken at once, if the budget holds them all
** (then nothing else happens between its charges and no budget could run
** out inside it), and its patterns' regex steps, counted on a copy of the
** regex budget, are taken with them. Anything else (a test that fails or
** cannot tell here, a budget that might run out, the depth limit, a run
** collecting annotations) leaves the node to validate.c from its start:
** the tests here take nothing and record nothing.
*/
#include "schema/format.h"
#include "schema/num.h"
#include "schema/validate.h"

/* The tests of a LEAF_TESTS node: true when 'inst' passes them all, with
** the steps by its size added to '*extra' and the regex steps taken from
** '*regex'. */
static bool tests_pass(vctx *c, const snode *n, const coax_value *inst, uint64_t *extra, uint64_t *regex)
{
    bool str = inst->type == COAX_STRING;
    uint64_t bytes = str ? inst->len / 64 : 0; /* the steps of each keyword that reads a string */
    for (const skw *k = n->run, *end = k + n->nrun; k < end; k++) {
        switch (k->op) {
        case OP_TYPE:
            if (!((k->tmask >> inst->type) & 1) && !vctx_type_ok(n, k, inst)) return false;
            break;
        case OP_MAXLENGTH:
        case OP_MINLENGTH:
            if (!str) break;
            *extra += bytes;
            if (!vctx_length_ok(k, inst)) return false;
            break;
        case OP_ENUM: /* of strings (n->leaf): a hashed one charges the string's hash and a lookup */
            if (!str) return false;
            if (k->vset) *extra += 2 + bytes;
            if (coax_names_find(k->names, inst->u.text, inst->len) < 0) return false;
            break;
        case OP_CONST:
            if (inst->type == COAX_ARRAY || inst->type == COAX_OBJECT) return false; /* compared by validate.c */
            if (coax_value_equal(k->v, inst, c->alloc) != 1) return false;
            break;
        case OP_MAXIMUM:
        case OP_EXMAXIMUM:
        case OP_MINIMUM:
        case OP_EXMINIMUM:
            if (inst->type == COAX_NUMBER && !vctx_cmp_ok(k, inst)) return false;
            break;
        case OP_MULTIPLEOF:
            if (inst->type == COAX_NUMBER && !coax_num_multiple(inst->u.text, inst->len, k->v->u.text, k->v->len))
                return false;
            break;
        case OP_FORMAT:
            if (!str) break;
            *extra += bytes;
            if (coax_format_check((coax_format)k->n, inst->u.text, inst->len, c->alloc) != 1) return false;
            break;
        case OP_PATTERN:
            if (!str) break;
            *extra += bytes;
            if (vctx_match_in(c, k->re, k->decimal, inst->u.text, inst->len, regex) != 1) return false;
            break;
        case OP_MAXITEMS:
        case OP_MINITEMS:
            if (inst->type == COAX_ARRAY && !(k->op == OP_MAXITEMS ? inst->len <= k->n : inst->len >= k->n))
                return false;
            break;
        case OP_MAXPROPS:
        case OP_MINPROPS:
            if (inst->type == COAX_OBJECT && !(k->op == OP_MAXPROPS ? inst->len <= k->n : inst->len >= k->n))
                return false;
            break;
        default:
            return false;
        }
    }
    return true;
}

bool vctx_leaf_passes(vctx *c, const snode *n, const coax_value *inst, const eset *ev)
{
    if (c->rc || c->annotate || c->nframes + n->leaf_depth > c->s->max_depth) return false;
    /* along the chain: a reference charges a step per 16 references active on the value (validate.c),
    ** those active now and the chain's own; an anyOf tracking evaluated members is left to validate.c */
    uint64_t steps = 0, extra = 0, regex = c->regex;
    size_t refs = SIZE_MAX;
    for (;;) {
        steps += n->leaf_charge;
        if (n->leaf == LEAF_TESTS) break;
        if (n->leaf == LEAF_ANYOF) {
            if (ev) return false;
        } else {
            if (refs == SIZE_MAX)
                for (refs = 0; refs < c->nrefs && c->refs[c->nrefs - 1 - refs].inst == inst;) refs++;
            extra += refs++ / 16;
        }
        n = n->leaf == LEAF_REF ? n->run[0].sub : n->run[0].subs[0];
    }
    if (c->steps < steps || !tests_pass(c, n, inst, &extra, &regex) || c->steps - steps < extra) return false;
    c->steps -= steps + extra;
    c->regex = regex;
    return true;
}
