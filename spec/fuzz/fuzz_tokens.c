/* Token estimation: any bytes, every encoding. The estimate is 0 for no
** text and between 1 and the byte count otherwise; the pre-tokenizer's
** pieces cover the text exactly, in order, and add up to the estimate's
** sum; a chat's count is its messages' counts plus the framing. */
#include "fuzz.h"
#include "tokens/tokens.h"

typedef struct cover {
    size_t next;   /* where the next piece must start */
    uint64_t sum;  /* what the pieces added */
    size_t size;
} cover;

static void visit(void *ud, const tok_piece *p)
{
    cover *c = ud;
    FUZZ_CHECK(p->start == c->next);
    FUZZ_CHECK(p->end > p->start && p->end <= c->size);
    FUZZ_CHECK(p->nchars >= 1 && p->nchars <= p->end - p->start);
    c->next = p->end;
    c->sum += p->weight;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    for (int e = 0; e < COAX_ENC_COUNT; e++) {
        size_t n = coax_tokens((coax_encoding)e, text, size);
        if (size == 0) FUZZ_CHECK(n == 0);
        else FUZZ_CHECK(n >= 1 && n <= size);
    }
    for (int split = TOK_SPLIT_O200K; split <= TOK_SPLIT_CL100K; split++) {
        const tok_model *m = split == TOK_SPLIT_CL100K ? &coax_tok_model_cl100k : &coax_tok_model_o200k;
        cover c = {0, 0, size};
        uint64_t sum = coax_tok_scan(split, m, text, size, visit, &c);
        FUZZ_CHECK(c.next == size);
        FUZZ_CHECK(c.sum == sum);
    }

    /* The input as a chat: three messages cut at the first two '\n'. */
    const char *nl1 = size ? memchr(text, '\n', size) : NULL;
    size_t a = nl1 ? (size_t)(nl1 - text) : size;
    const char *nl2 = a < size ? memchr(text + a + 1, '\n', size - a - 1) : NULL;
    size_t b = nl2 ? (size_t)(nl2 - text) : size;
    coax_message msgs[3] = {
        {"system", 6, text, a, NULL, 0},
        {"user", 4, a < size ? text + a + 1 : NULL, a < size ? b - a - 1 : 0, "n", 1},
        {"assistant", 9, b < size ? text + b + 1 : NULL, b < size ? size - b - 1 : 0, NULL, 0},
    };
    for (int e = 0; e < COAX_ENC_COUNT; e++) {
        size_t want = coax_tokens_chat((coax_encoding)e, NULL, 0);
        for (int i = 0; i < 3; i++)
            want += coax_tokens((coax_encoding)e, msgs[i].role, msgs[i].role_len) +
                    coax_tokens((coax_encoding)e, msgs[i].content, msgs[i].content_len);
        size_t got = coax_tokens_chat((coax_encoding)e, msgs, 3);
        size_t framing = got - want;
        FUZZ_CHECK(got >= want);
        FUZZ_CHECK(framing == coax_tokens_chat((coax_encoding)e, msgs, 3) - want);
        FUZZ_CHECK(framing < 32);
    }
    return 0;
}
