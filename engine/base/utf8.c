/*
** utf8.c: RFC 3629 decoding, validation and encoding.
*/
#include "base/core.h"
#include "base/bytes.h"

#if BYTES32
/* base/bytes.h's switch: false, the AVX2 way wherever the CPU has it. */
bool coax_bytes32_off = false;
#endif

size_t coax_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (n == 0) return 0;
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2; v = c & 0x1F; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3; v = c & 0x0F; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4; v = c & 0x07; min = 0x10000;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return len;
}

bool coax_utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str, *end = s + len;
    while (s < end) {
        /* Skip ASCII eight bytes at a time where possible. */
        while (end - s >= 8) {
            uint64_t w;
            memcpy(&w, s, 8);
            if (w & 0x8080808080808080ull) break;
            s += 8;
        }
        if (s >= end) break;
        if (*s < 0x80) {
            s++;
            continue;
        }
        uint32_t cp;
        size_t n = coax_utf8_decode(s, (size_t)(end - s), &cp);
        if (!n) return false;
        s += n;
    }
    return true;
}

size_t coax_utf8_replace(const char *str, size_t len, char *out)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = s[i] < 0x80 ? 1 : coax_utf8_decode(s + i, len - i, &cp);
        if (n) {
            memcpy(out + o, s + i, n);
            o += n;
            i += n;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    return o;
}

size_t coax_utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* In one write a kilobyte: stderr is unbuffered, and a byte a write was a
** system call a byte. */
void coax_fput_shown(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    char out[1024];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (len > sizeof out - 8) {
            fwrite(out, 1, len, f);
            len = 0;
        }
        unsigned c = p[i];
        if (c == 0xC2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) /* U+0080..U+009F */
            c = p[++i];
        else if ((c >= 0x20 && c != 0x7F) || c == '\n' || c == '\t') {
            out[len++] = (char)c;
            continue;
        }
        len += (size_t)snprintf(out + len, sizeof out - len, "\\u%04x", c);
    }
    fwrite(out, 1, len, f);
}

size_t coax_control_byte(const char *s, size_t len)
{
    size_t i = 0;
#if BYTES16
    /* 16 printable ASCII bytes a test: most replies hold nothing else but line breaks */
    for (; len - i >= 16; i += 16) {
        __m128i w = bytes16_load(s + i);
        unsigned odd = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(w, _mm_set1_epi8(0x20))) | bytes16_eq(w, 0x7F);
        odd &= ~(bytes16_eq(w, '\n') | bytes16_eq(w, '\t') | bytes16_eq(w, '\r'));
        if (odd) break; /* a control byte, or a byte from 0x80 (signed, below 0x20): the byte loop tells */
    }
#endif
    for (; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7F) {
            /* U+0080..U+009F, C1: a text decoded as Latin-1 (cp1252's quotes and dash), a terminal's CSI */
            if (c == 0xC2 && i + 1 < len && (unsigned char)s[i + 1] < 0xA0 && (unsigned char)s[i + 1] >= 0x80) break;
            continue;
        }
        if (!coax_byte_in("\t\n\r", (char)c)) break;
    }
    return i;
}

size_t coax_invisible_end(const char *s, size_t len)
{
    for (;;) {
        size_t n = 2;
        while (n <= 4 && !(len >= n && coax_invisible_at(s + len - n, s + len) == n)) n++;
        if (n > 4) return len;
        len -= n;
    }
}

size_t coax_invisible_start(const char *s, size_t len)
{
    size_t at = 0;
    for (size_t n; (n = coax_invisible_at(s + at, s + len));) at += n;
    return at;
}
