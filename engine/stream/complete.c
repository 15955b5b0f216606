/*
** complete.c: with a schema, which closed parts are final, and the values
** they will have in the final value.
*/
#include "stream/reader.h"

#include "extract/coerce.h"
#include "schema/schema.h"

struct spending {
    size_t depth, index;
};

void complete_frame(stream_reader *r, sframe *f, const sframe *parent)
{
    (void)r;
    (void)parent;
    f->sub = NULL;
    f->children_final = false;
}

bool complete_child_final(const stream_reader *r, const sframe *f)
{
    (void)r;
    return f->children_final;
}

coax_code complete_pend(stream_reader *r, size_t d, size_t index)
{
    if (!stream_grow(r, (void **)&r->pending, &r->pendingcap, r->npending + 1, sizeof *r->pending))
        return stream_oom(r, NULL);
    r->pending[r->npending++] = (struct spending){d, index};
    return COAX_OK;
}

void complete_unpend(stream_reader *r, size_t d)
{
    while (r->npending && r->pending[r->npending - 1].depth >= d) r->npending--;
}

coax_code complete_settle(stream_reader *r, coax_error *err)
{
    (void)err;
    r->npending = 0;
    return COAX_OK;
}

coax_code complete_root(stream_reader *r, coax_error *err)
{
    coax_extract_result x;
    coax_error e;
    coax_code rc = coax_extract(r->ar, r->o.schema, r->cand.data, r->cand.len, &r->lim, NULL, &x, &e);
    if (rc == COAX_ENOMEM) return stream_oom(r, err);
    if (rc) return COAX_OK; /* not read: the root is not complete */
    if (!x.valid) {
        for (size_t i = 0; i < x.validation.nerrors; i++) {
            if (!stream_grow(r, (void **)&r->errors, &r->errorcap, r->nerrors + 1, sizeof *r->errors))
                return stream_oom(r, err);
            r->errors[r->nerrors++] = x.validation.errors[i];
        }
        return COAX_OK;
    }
    r->root = (coax_value *)x.value;
    r->nentries = 0;
    r->npending = 0;
    if (!stream_grow(r, (void **)&r->entries, &r->entrycap, 1, sizeof *r->entries)) return stream_oom(r, err);
    r->entries[r->nentries++] = (sentry){NULL, 0, NULL, 0, 0, NULL};
    r->root_listed = true;
    return COAX_OK;
}
