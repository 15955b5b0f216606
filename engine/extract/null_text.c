/*
** null_text.c: null written as text. A model trained on Python or code
** writes "None", "null" or "undefined" in quotes where it means no value:
** {"middle_name": "None"}. Where the schema takes null at that place too,
** the reply has two readings, the null it meant or the text it wrote, and
** the caller would store the word "None" as a name. Where the schema takes
** a string only, the text is the one reading the schema leaves.
*/
#include "extract/coerce.h"

/* Whether a string is null spelled in a language's syntax. "none" and
** "N/A" are words people write as values; these are not. */
static bool spells_null(const coax_value *v)
{
    static const coax_word words[] = {COAX_WORD("null"), COAX_WORD("NULL"), COAX_WORD("Null"), COAX_WORD("None"),
                                      COAX_WORD("nil"),  COAX_WORD("undefined")};
    if (v->type != COAX_STRING) return false;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (v->len == words[i].n && !memcmp(v->u.text, words[i].text, words[i].n)) return true;
    return false;
}

/* extract_probe's pick: the strings that spell null. */
static bool pick_null(void *ctx, const coax_value *s, const char *key, size_t klen)
{
    return spells_null(s);
}

/* The refusals of the places made null and made true; 'trues' NULL: not
** yet known. */
typedef struct refusals {
    const smap *nulls, *trues;
} refusals;

/* Depth-first in the order of extract_probe's walk: true at the first string spelling
** null whose place (its JSON Pointer in 'path', built as the walk goes: a
** pointer written whole per place was the depth times the places, 512
** times a reply of "None"s) takes null (trues NULL), or takes null and
** refuses true (trues given). An error's place is a C string: a key
** holding NUL cannot be matched, and is taken as taking null. */
static bool first_place(const coax_value *v, coax_buf *path, const refusals *rf)
{
    if (spells_null(v)) {
        if (path->oom) return true; /* the caller tells memory ran out */
        bool opaque = memchr(path->data ? path->data : "", '\0', path->len) != NULL;
        if (opaque || !smap_get(rf->nulls, path->data ? path->data : "", path->len))
            return opaque || !rf->trues || smap_get(rf->trues, path->data ? path->data : "", path->len);
        return false;
    }
    if (v->type != COAX_ARRAY && v->type != COAX_OBJECT) return false;
    size_t mark = path->len;
    for (size_t i = 0; i < v->len; i++) {
        if (v->type == COAX_ARRAY) extract_put_index(path, i);
        else extract_put_token(path, v->u.members[i].key, v->u.members[i].klen);
        if (first_place(v->type == COAX_ARRAY ? &v->u.items[i] : &v->u.members[i].value, path, rf)) return true;
        path->len = mark;
    }
    return false;
}

coax_code extract_find_null_text(coerce_ctx *c, const coax_value *v, const char **message, const char **pointer)
{
    static const coax_value null_value = {COAX_NULL, 0, 0, {0}}, true_value = {COAX_BOOL, 0, 0, {.boolean = 1}};
    *message = *pointer = NULL;
    /* A place with no error of its own once null takes null (an error above
    ** it, a parent's oneOf, cannot tell: taken as taking it); a place that
    ** takes true as well takes any value ({"type": "object"} with no
    ** properties): it says nothing of null, and the text stays. One
    ** validation each, and maps: n places, n errors. */
    smap nulls_refused = {0}, trues_refused = {0};
    size_t count = 0;
    coax_code rc = extract_probe(c, v, pick_null, NULL, &null_value, &nulls_refused, &count);
    if (rc || !count) return rc;
    coax_buf path;
    coax_buf_init(&path, coax_arena_allocator(c->arena));
    refusals rf = {&nulls_refused, NULL};
    /* some place takes null: only then is true tried (a string-only place: one validation) */
    bool taken = first_place(v, &path, &rf);
    if (taken && !path.oom) {
        path.len = 0;
        rc = extract_probe(c, v, pick_null, NULL, &true_value, &trues_refused, &count);
        rf.trues = &trues_refused;
        if (!rc && first_place(v, &path, &rf) && !path.oom) {
            if (!(*pointer = coax_arena_strdup(c->arena, path.data ? path.data : "", path.len))) rc = COAX_ENOMEM;
            else *message = "a string that spells null where the schema takes null too (\"None\", \"null\"): the "
                            "model's null, or the text? send null or another text";
        }
    }
    if (path.oom) rc = COAX_ENOMEM;
    coax_buf_free(&path);
    return rc;
}
