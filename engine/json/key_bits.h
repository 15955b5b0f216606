/*
** key_bits.h: the filter before a search for duplicate keys, shared by the
** strict parser (parse.c) and the lenient one (repair/lenient.h).
**
** Objects seldom repeat a key, and comparing every pair at the close costs
** more than the keys took to read: each key sets one of 64 bits chosen by
** its length and its first and last bytes, and only an object where a bit
** was already set (then all bits are: UINT64_MAX) is searched. Each parser
** chooses the bit itself, since only it knows what an empty key may read.
*/
#ifndef COAX_JSON_KEY_BITS_H
#define COAX_JSON_KEY_BITS_H

#include <stdbool.h>
#include <stdint.h>

/* The bit of a key from its first and last bytes and its length. */
#define COAX_KEY_BIT(first, last, klen) ((unsigned)(first) + 9u * (last) + 5u * (unsigned)(klen))

/* bits with bit 'bit' (mod 64) set, or UINT64_MAX when it was set already. */
static inline uint64_t coax_key_bits_set(uint64_t bits, unsigned bit)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
    /* bts takes the bit's number mod 64, sets it and reports its old value:
    ** two instructions for the seven GCC makes of the C below */
    bool was_set;
    __asm__("btsq %[bit], %[bits]" : [bits] "+r"(bits), "=@ccc"(was_set) : [bit] "r"((uint64_t)bit));
    return was_set ? UINT64_MAX : bits;
#else
    bit &= 63;
    return bits >> bit & 1 ? UINT64_MAX : bits | (uint64_t)1 << bit;
#endif
}

#endif
