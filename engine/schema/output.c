/*
** output.c: validation results in the specification's output
** formats: flag, basic (a flat list of units) and detailed (units nested as
** the schema nests them, a group kept only where errors branch). A valid
** result lists its annotations, when it has any, flat in basic and
** detailed alike.
*/
#include "schema/schema.h"

int coax_output_parse(const char *name)
{
    if (!name) return -1;
    if (!strcmp(name, "flag")) return COAX_OUTPUT_FLAG;
    if (!strcmp(name, "basic")) return COAX_OUTPUT_BASIC;
    if (!strcmp(name, "detailed")) return COAX_OUTPUT_DETAILED;
    return -1;
}

/* '{["valid":...,]"instanceLocation":...,"keywordLocation":...[,"absoluteKeywordLocation":...]',
** the start of a unit. 'valid' ("true", "false") is for the detailed format,
** whose units are each a full output unit; NULL leaves it out (basic, as the
** specification's example writes it). */
static void put_locations(coax_buf *b, const char *valid, const char *iloc, const char *kloc, const char *aloc)
{
    coax_buf_putc(b, '{');
    if (valid) coax_buf_printf(b, "\"valid\":%s,", valid);
    coax_buf_puts(b, "\"instanceLocation\":");
    coax_buf_put_json_string(b, iloc, strlen(iloc));
    coax_buf_puts(b, ",\"keywordLocation\":");
    coax_buf_put_json_string(b, kloc, strlen(kloc));
    if (aloc) {
        coax_buf_puts(b, ",\"absoluteKeywordLocation\":");
        coax_buf_put_json_string(b, aloc, strlen(aloc));
    }
}

static void put_unit(coax_buf *b, const coax_schema_error *e, coax_output format)
{
    put_locations(b, format == COAX_OUTPUT_DETAILED ? "false" : NULL, e->instance_location, e->keyword_location,
                  e->absolute_keyword_location);
    coax_buf_puts(b, ",\"error\":");
    coax_buf_put_json_string(b, e->message, strlen(e->message));
    coax_buf_putc(b, '}');
}

static void put_annotation(coax_buf *b, const coax_schema_annotation *a, coax_output format)
{
    put_locations(b, format == COAX_OUTPUT_DETAILED ? "true" : NULL, a->instance_location, a->keyword_location,
                  a->absolute_keyword_location);
    coax_buf_puts(b, ",\"annotation\":");
    coax_write_buf(b, a->value, 0);
    coax_buf_putc(b, '}');
}

static void put_valid(coax_buf *b, const coax_validation *r, coax_output format)
{
    if (format == COAX_OUTPUT_FLAG || !r->nannotations) {
        coax_buf_puts(b, "{\"valid\":true}");
        return;
    }
    coax_buf_puts(b, format == COAX_OUTPUT_DETAILED
                         ? "{\"valid\":true,\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"annotations\":["
                         : "{\"valid\":true,\"annotations\":[");
    for (size_t i = 0; i < r->nannotations; i++) {
        if (i) coax_buf_putc(b, ',');
        put_annotation(b, &r->annotations[i], format);
    }
    coax_buf_puts(b, "]}");
}

/* Errors a and b are in the same subschema at nesting level 'l'. */
static bool same_at(const coax_schema_error *a, const coax_schema_error *b, size_t l)
{
    if (a->nnesting <= l || b->nnesting <= l) return false;
    uint32_t ka = a->nesting[2 * l], ia = a->nesting[2 * l + 1];
    return ka == b->nesting[2 * l] && ia == b->nesting[2 * l + 1] &&
           !memcmp(a->keyword_location, b->keyword_location, ka) &&
           !memcmp(a->instance_location, b->instance_location, ia);
}

static void put_partition(coax_buf *b, const coax_schema_error *e, size_t n, size_t level,
                          size_t depth);

/* Whether keyword location s[0..n) enters a reference. */
static bool crosses_ref(const char *s, size_t n)
{
    static const char *const refs[] = {"/$ref", "/$dynamicRef", "/$recursiveRef"};
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < 3; r++) {
            size_t l = strlen(refs[r]);
            if (i + l <= n && !memcmp(s + i, refs[r], l) && (i + l == n || s[i + l] == '/')) return true;
        }
    return false;
}

/* The absoluteKeywordLocation of a group whose keyword location is the
** first k bytes of error e's, once it crossed a reference: e's absolute
** location without the part below the group, when no reference lies in
** that part (else it cannot be told from e, and is left out). */
static void put_group_abs(coax_buf *b, const coax_schema_error *e, uint32_t k)
{
    const char *below = e->keyword_location + k, *abs = e->absolute_keyword_location;
    size_t bl = strlen(below), al = abs ? strlen(abs) : 0;
    if (!abs || !crosses_ref(e->keyword_location, k) || crosses_ref(below, bl) || al < bl ||
        strcmp(abs + al - bl, below))
        return;
    coax_buf_puts(b, ",\"absoluteKeywordLocation\":");
    coax_buf_put_json_string(b, abs, al - bl);
}

/* A group of n > 1 errors that share their subschema at 'level'. */
static void put_group(coax_buf *b, const coax_schema_error *e, size_t n, size_t level, size_t depth)
{
    for (;;) { /* skip levels where nothing branches */
        size_t i = 1;
        while (i < n && same_at(&e[0], &e[i], level + 1)) i++;
        if (i < n || e[0].nnesting <= level + 1) break;
        level++;
    }
    uint32_t k = e[0].nesting[2 * level], in = e[0].nesting[2 * level + 1];
    coax_buf_puts(b, "{\"valid\":false,\"instanceLocation\":");
    coax_buf_put_json_string(b, e[0].instance_location, in);
    coax_buf_puts(b, ",\"keywordLocation\":");
    coax_buf_put_json_string(b, e[0].keyword_location, k);
    put_group_abs(b, &e[0], k);
    coax_buf_puts(b, ",\"errors\":[");
    put_partition(b, e, n, level + 1, depth + 1);
    coax_buf_puts(b, "]}");
}

static void put_partition(coax_buf *b, const coax_schema_error *e, size_t n, size_t level,
                          size_t depth)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i + 1;
        while (j < n && same_at(&e[i], &e[j], level)) j++;
        if (i) coax_buf_putc(b, ',');
        if (j - i == 1 || depth > 256) {
            for (size_t x = i; x < j; x++) {
                if (x > i) coax_buf_putc(b, ',');
                put_unit(b, &e[x], COAX_OUTPUT_DETAILED);
            }
        } else {
            put_group(b, e + i, j - i, level, depth);
        }
        i = j;
    }
}

coax_code coax_validation_write_buf(coax_buf *b, const coax_validation *r, coax_output format)
{
    if (r->valid) {
        put_valid(b, r, format);
    } else if (format == COAX_OUTPUT_FLAG || !r->nerrors) {
        coax_buf_puts(b, "{\"valid\":false}");
    } else if (format == COAX_OUTPUT_BASIC) {
        coax_buf_puts(b, "{\"valid\":false,\"errors\":[");
        for (size_t i = 0; i < r->nerrors; i++) {
            if (i) coax_buf_putc(b, ',');
            put_unit(b, &r->errors[i], COAX_OUTPUT_BASIC);
        }
        coax_buf_puts(b, "]}");
    } else {
        coax_buf_puts(b, "{\"valid\":false,\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"errors\":[");
        put_partition(b, r->errors, r->nerrors, 1, 0);
        coax_buf_puts(b, "]}");
    }
    return b->oom ? COAX_ENOMEM : COAX_OK;
}

coax_code coax_validation_write(const coax_validation *r, coax_output format,
                                const coax_allocator *alloc, char **out, size_t *len)
{
    if (!r || !out || !len) return COAX_EINVAL;
    coax_buf b;
    coax_buf_init(&b, alloc);
    coax_code rc = coax_validation_write_buf(&b, r, format);
    if (!rc) {
        *out = coax_buf_take(&b, len);
        if (!*out) rc = COAX_ENOMEM;
    }
    coax_buf_free(&b);
    return rc;
}
