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

/* The JSON Pointers of the strings made null, one after another in
** 'paths', each its length (a size_t) and its bytes (a key may hold NUL). */
typedef struct nulling {
    coax_arena *a;
    const coax_value *with; /* what each such string becomes */
    coax_buf paths;
    size_t count;
} nulling;

/* A copy of 'v', at place 'at', with every string that spells null made
** nl->with (v itself when none is under it); NULL when memory ran out. */
static const coax_value *nulled(nulling *nl, const coax_value *v, const extract_frame *at)
{
    if (spells_null(v)) {
        size_t mark = nl->paths.len, n = 0;
        coax_buf_put(&nl->paths, (const char *)&n, sizeof n);
        extract_put_pointer(&nl->paths, at);
        if (!nl->paths.oom) { /* the length, once written */
            n = nl->paths.len - mark - sizeof n;
            memcpy(nl->paths.data + mark, &n, sizeof n);
        }
        nl->count++;
        return nl->with;
    }
    if (v->type != COAX_ARRAY && v->type != COAX_OBJECT) return v;
    size_t before = nl->count;
    const coax_value **sub = coax_arena_alloc(nl->a, (v->len + 1) * sizeof *sub);
    if (!sub) return NULL;
    for (size_t i = 0; i < v->len; i++) {
        bool item = v->type == COAX_ARRAY;
        extract_frame place = {at, item ? NULL : v->u.members[i].key, item ? 0 : v->u.members[i].klen, i};
        if (!(sub[i] = nulled(nl, item ? &v->u.items[i] : &v->u.members[i].value, &place))) return NULL;
    }
    if (nl->count == before) return v;
    coax_value *copy = coax_arena_alloc(nl->a, sizeof *copy);
    if (!copy) return NULL;
    *copy = *v;
    if (v->type == COAX_ARRAY) {
        coax_value *items = coax_arena_alloc(nl->a, (v->len + 1) * sizeof *items);
        if (!items) return NULL;
        for (size_t i = 0; i < v->len; i++) items[i] = *sub[i];
        copy->u.items = items;
    } else {
        coax_member *members = coax_arena_alloc(nl->a, (v->len + 1) * sizeof *members);
        if (!members) return NULL;
        for (size_t i = 0; i < v->len; i++) members[i] = v->u.members[i], members[i].value = *sub[i];
        copy->u.members = members;
    }
    return copy;
}

/* The places of the strings that spell null in 'v' (*paths, *count) whose
** value the schema refuses once each is made 'with', in a map. */
static coax_code refused_places(coerce_ctx *c, const coax_value *v, const coax_value *with, smap *refused,
                                coax_buf *paths, size_t *count)
{
    nulling nl = {.a = c->arena, .with = with};
    coax_buf_init(&nl.paths, coax_arena_allocator(c->arena));
    const coax_value *copy = nulled(&nl, v, NULL);
    coax_code rc = !copy || nl.paths.oom ? COAX_ENOMEM : COAX_OK;
    coax_validation out;
    if (!rc && nl.count && !(rc = coax_validate(c->schema, copy, c->arena, 0, &out, c->err)))
        for (size_t i = 0; i < out.nerrors && !rc; i++) {
            const char *at = out.errors[i].instance_location;
            if (!smap_put(refused, c->arena, at, strlen(at), (void *)at)) rc = COAX_ENOMEM;
        }
    *count = nl.count;
    if (paths) *paths = nl.paths;
    else coax_buf_free(&nl.paths);
    return rc;
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
    coax_buf paths;
    size_t count = 0;
    coax_code rc = refused_places(c, v, &null_value, &nulls_refused, &paths, &count);
    bool taken = false; /* some place takes null: only then is true tried (a string-only place: one validation) */
    const char *p = paths.data;
    size_t n = 0;
    for (size_t k = 0; !rc && !taken && k < count; k++, p += sizeof n + n) {
        memcpy(&n, p, sizeof n);
        taken = !smap_get(&nulls_refused, p + sizeof n, n) || memchr(p + sizeof n, '\0', n);
    }
    if (!rc && taken) rc = refused_places(c, v, &true_value, &trues_refused, NULL, &count);
    p = taken ? paths.data : NULL;
    count = taken ? count : 0;
    for (size_t k = 0; !rc && k < count; k++, p += sizeof n + n) {
        memcpy(&n, p, sizeof n);
        /* an error's place is a C string: a key holding NUL cannot be matched, and is taken as taking null */
        bool opaque = memchr(p + sizeof n, '\0', n) != NULL;
        if (!opaque && (smap_get(&nulls_refused, p + sizeof n, n) || !smap_get(&trues_refused, p + sizeof n, n)))
            continue;
        p += sizeof n;
        if (!(*pointer = coax_arena_strdup(c->arena, p, n))) rc = COAX_ENOMEM;
        else *message = "a string that spells null where the schema takes null too (\"None\", \"null\"): the "
                        "model's null, or the text? send null or another text";
        break;
    }
    coax_buf_free(&paths);
    return rc;
}
