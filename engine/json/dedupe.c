/*
** json/dedupe.c: duplicate keys in an object, in linear time.
** Small objects compare pairwise; larger ones use a temporary hash table.
*/
#include "base/core.h"
#include "base/hash.h"

static bool same_key(const coax_member *a, const coax_member *b)
{
    /* keys are NUL-terminated: the first bytes settle most pairs without a call */
    return a->klen == b->klen && a->key[0] == b->key[0] && memcmp(a->key, b->key, a->klen) == 0;
}

/* Whether the later member j of a repeated key gives another value than
** the earlier i (out of memory counts as another: the caller then treats
** the choice as a guess, the safe side). */
static bool other_value(const coax_member *i, const coax_member *j, const coax_allocator *a)
{
    return coax_value_equal(&i->value, &j->value, a) != 1;
}

size_t coax_members_dedupe(coax_member *m, size_t n, const coax_allocator *a,
                           void (*on_dup)(void *ud, size_t index, bool differs), void *ud)
{
    if (n < 2) return n;
    /* 'gone' marks a member merged into an earlier one: key set to NULL. */
    size_t removed = 0;
    if (n <= 16) {
        for (size_t j = 1; j < n; j++)
            for (size_t i = 0; i < j; i++)
                if (m[i].key && same_key(&m[i], &m[j])) {
                    if (on_dup) on_dup(ud, j, other_value(&m[i], &m[j], a));
                    m[i].value = m[j].value;
                    m[j].key = NULL;
                    removed++;
                    break;
                }
    } else {
        size_t size = 32;
        while (size < 2 * n) size *= 2;
        size_t *slots = coax_alloc_raw(a, size * sizeof *slots);
        if (!slots) return SIZE_MAX;
        memset(slots, 0xff, size * sizeof *slots); /* SIZE_MAX: empty */
        /* keyed per call, so colliding keys cannot be prepared in advance
        ** to make an object quadratic to read */
        uint64_t seed = coax_hash_seed(slots);
        for (size_t j = 0; j < n; j++) {
            size_t h = (size_t)coax_hash_bytes(m[j].key, m[j].klen, seed) & (size - 1);
            while (slots[h] != SIZE_MAX && !same_key(&m[slots[h]], &m[j]))
                h = (h + 1) & (size - 1);
            if (slots[h] == SIZE_MAX) {
                slots[h] = j;
            } else {
                if (on_dup) on_dup(ud, j, other_value(&m[slots[h]], &m[j], a));
                m[slots[h]].value = m[j].value;
                m[j].klen = 0;
                m[j].key = NULL;
                removed++;
            }
        }
        coax_free_raw(a, slots, size * sizeof *slots);
    }
    if (!removed) return n;
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (m[j].key) m[k++] = m[j];
    return k;
}
