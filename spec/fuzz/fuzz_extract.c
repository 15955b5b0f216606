/* Extract with a fixed, realistic schema (an invoice with references,
** enums, patterns, formats, anyOf, defaults, additionalProperties false):
** any bytes as the reply. Either a clean code, or a best value that
** survives the writer round trip and is valid exactly when the validator,
** run again on it alone, says so; coercions name places inside it. */
#include "fuzz.h"

static const char SCHEMA[] =
    "{\"$defs\": {"
    "  \"Address\": {\"type\": \"object\", \"required\": [\"street\", \"postal_code\"],"
    "    \"properties\": {\"street\": {\"type\": \"string\"},"
    "      \"postal_code\": {\"type\": \"string\", \"pattern\": \"^[0-9]{5}(-[0-9]{4})?$\"},"
    "      \"country\": {\"type\": \"string\", \"minLength\": 2, \"maxLength\": 2, \"default\": \"US\"}}},"
    "  \"Item\": {\"type\": \"object\", \"required\": [\"description\", \"quantity\", \"unit_price\"],"
    "    \"additionalProperties\": false,"
    "    \"properties\": {\"description\": {\"type\": \"string\", \"minLength\": 1},"
    "      \"quantity\": {\"type\": \"integer\", \"exclusiveMinimum\": 0},"
    "      \"unit_price\": {\"type\": \"number\", \"minimum\": 0, \"multipleOf\": 0.01}}}},"
    " \"type\": \"object\","
    " \"required\": [\"invoice_number\", \"issue_date\", \"currency\", \"items\", \"total\"],"
    " \"additionalProperties\": false,"
    " \"properties\": {"
    "  \"invoice_number\": {\"type\": \"string\", \"pattern\": \"^INV-\\\\d{4,}$\"},"
    "  \"issue_date\": {\"type\": \"string\", \"format\": \"date\"},"
    "  \"due_date\": {\"anyOf\": [{\"type\": \"string\", \"format\": \"date\"}, {\"type\": \"null\"}]},"
    "  \"vendor_email\": {\"type\": \"string\", \"format\": \"email\"},"
    "  \"billing_address\": {\"$ref\": \"#/$defs/Address\"},"
    "  \"currency\": {\"enum\": [\"USD\", \"EUR\", \"GBP\", \"JPY\"]},"
    "  \"status\": {\"const\": \"open\", \"default\": \"open\"},"
    "  \"items\": {\"type\": \"array\", \"minItems\": 1, \"items\": {\"$ref\": \"#/$defs/Item\"}},"
    "  \"tags\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}, \"uniqueItems\": true},"
    "  \"total\": {\"type\": \"number\", \"minimum\": 0},"
    "  \"paid\": {\"type\": \"boolean\", \"default\": false}}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    coax_arena *a = coax_arena_new(NULL);
    FUZZ_CHECK(a != NULL);
    coax_value *doc;
    coax_schema *s;
    coax_error err;
    FUZZ_CHECK(coax_parse(a, SCHEMA, sizeof SCHEMA - 1, NULL, &doc, &err) == COAX_OK);
    coax_schema_options so = {.flags = COAX_SCHEMA_NO_META, .max_regex_steps = 100000};
    FUZZ_CHECK(coax_schema_compile(doc, &so, NULL, &s, &err) == COAX_OK);

    for (unsigned flags = 0; flags <= COAX_EXTRACT_STRICT; flags++) {
        coax_extract_result r;
        coax_extract_options xo = {flags, flags ? COAX_CLASS_INVENTED : COAX_CLASS_INFERRED};
        coax_code rc = coax_extract(a, s, (const char *)data, size, NULL, &xo, &r, &err);
        if (rc != COAX_OK) {
            FUZZ_CHECK(rc == COAX_ENOJSON || rc == COAX_EDEPTH || rc == COAX_ESTRING ||
                       rc == COAX_ELIMIT);
            continue;
        }
        FUZZ_CHECK(r.value != NULL && r.candidate < r.repair.ncandidates);
        FUZZ_CHECK(r.valid == r.validation.valid);
        FUZZ_CHECK(r.valid || r.validation.nerrors > 0);
        if (flags & COAX_EXTRACT_STRICT) FUZZ_CHECK(r.ncoercions == 0);
        fuzz_roundtrip(r.value);
        for (size_t i = 0; i < r.ncoercions; i++) {
            const coax_coercion *c = &r.coercions[i];
            FUZZ_CHECK(c->kind && c->pointer && c->detail);
        }
        coax_validation v;
        coax_code vr = coax_validate(s, r.value, a, 0, &v, &err);
        FUZZ_CHECK(vr == COAX_OK || vr == COAX_ELIMIT);
        /* A truncated candidate is never valid, whatever its value, nor is
        ** one that rests on a repair less certain than max_class, nor one the
        ** extraction refuses with an error of its own (no keyword: two
        ** answers, one taken back, one beside a value it could not read). */
        bool own = r.validation.nerrors && !r.validation.errors[0].keyword_location[0];
        if (vr == COAX_OK && r.repair.candidates[r.candidate].complete && !r.refused && !own)
            FUZZ_CHECK(v.valid == r.valid);
        if (r.refused) FUZZ_CHECK(!r.valid && r.refused->cls > xo.max_class);
        if (r.valid) FUZZ_CHECK(vr == COAX_OK && v.valid);
    }
    coax_schema_free(s);
    coax_arena_free(a);
    return 0;
}
