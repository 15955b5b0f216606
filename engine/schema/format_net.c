/*
** format_net.c: the formats that name places on a network: IP addresses,
** host names (RFC 1123, IDNA2008 through libidn2 and RFC 3492's Punycode)
** and e-mail addresses (RFC 5321 Mailbox, RFC 6531 with 'intl'), whose
** domains are host names or address literals.
*/
#include "schema/format.h"
#include "schema/format_chars.h"

#include <idn2.h>

/* ---- IP addresses ------------------------------------------------------------ */

bool format_ipv4(const char *s, size_t len)
{
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part) {
            if (i >= len || s[i] != '.') return false;
            i++;
        }
        size_t st = i;
        int v = 0;
        while (i < len && is_digit((unsigned char)s[i]) && i - st < 3) v = v * 10 + (s[i++] - '0');
        if (i == st || v > 255 || (s[st] == '0' && i - st > 1)) return false;
    }
    return i == len;
}

bool format_ipv6(const char *s, size_t len)
{
    if (len < 2 || len > 45) return false;
    int groups = 0;
    bool gap = false;
    size_t i = 0;
    if (s[0] == ':') {
        if (s[1] != ':') return false;
        gap = true;
        i = 2;
        if (i == len) return true;
    }
    while (i < len) {
        size_t st = i;
        while (i < len && is_hex((unsigned char)s[i]) && i - st < 5) i++;
        if (i < len && s[i] == '.') { /* a trailing IPv4 address */
            if (!format_ipv4(s + st, len - st)) return false;
            groups += 2;
            i = len;
            break;
        }
        if (i == st || i - st > 4) return false;
        groups++;
        if (i == len) break;
        if (s[i] != ':') return false;
        i++;
        if (i < len && s[i] == ':') {
            if (gap) return false;
            gap = true;
            i++;
            if (i == len) break;
        } else if (i == len) {
            return false;
        }
    }
    return gap ? groups < 8 : groups == 8;
}

/* ---- host names ------------------------------------------------------------- */

enum { BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, IBIAS = 72, INITIAL_N = 128 };

/* RFC 3492 section 6.1: the bias after a code point is placed. */
static uint32_t punycode_adapt(uint64_t delta, size_t points, bool first)
{
    delta = first ? delta / DAMP : delta / 2;
    delta += delta / points;
    uint32_t k = 0;
    while (delta > ((BASE - TMIN) * TMAX) / 2) {
        delta /= BASE - TMIN;
        k += BASE;
    }
    return k + (uint32_t)((BASE - TMIN + 1) * delta / (delta + SKEW));
}

/* The length of the RFC 3492 encoding of 'n' code points (the A-label
** without "xn--"), or SIZE_MAX past any label's length. */
static size_t punycode_encoded_len(const uint32_t *cp, size_t n)
{
    size_t basic = 0;
    for (size_t j = 0; j < n; j++) basic += cp[j] < 0x80;
    size_t len = basic + (basic > 0), h = basic;
    uint32_t m, nn = INITIAL_N, bias = IBIAS;
    uint64_t delta = 0;
    while (h < n) {
        m = UINT32_MAX;
        for (size_t j = 0; j < n; j++)
            if (cp[j] >= nn && cp[j] < m) m = cp[j];
        delta += (uint64_t)(m - nn) * (h + 1);
        nn = m;
        for (size_t j = 0; j < n; j++) {
            if (cp[j] < nn) delta++;
            if (cp[j] != nn) continue;
            for (uint64_t q = delta, t_k = BASE;; t_k += BASE) { /* the digits of delta */
                uint32_t t = t_k <= bias ? TMIN : t_k >= bias + TMAX ? TMAX : (uint32_t)(t_k - bias);
                len++;
                if (q < t) break;
                q = (q - t) / (BASE - t);
            }
            bias = punycode_adapt(delta, h + 1, h == basic);
            delta = 0;
            h++;
        }
        delta++;
        nn++;
        if (len > 255) return SIZE_MAX;
    }
    return len;
}

/* RFC 3492 decoding of an A-label's tail into code points; false when it is
** not valid Punycode. */
static bool punycode_decode(const char *in, size_t n, uint32_t *out, size_t *outlen, size_t cap)
{
    size_t b = 0;
    for (size_t j = 0; j < n; j++)
        if (in[j] == '-') b = j;
    size_t k = 0;
    if (b > 0 || (n && in[0] == '-')) {
        if (b == 0) return false; /* "-..." : an empty basic part with a delimiter */
        for (size_t j = 0; j < b; j++) {
            if ((unsigned char)in[j] >= 0x80 || k >= cap) return false;
            out[k++] = (unsigned char)in[j];
        }
        b++;
    }
    uint32_t nn = INITIAL_N, bias = IBIAS;
    uint64_t i = 0;
    for (size_t in_i = b; in_i < n;) {
        uint64_t oldi = i, w = 1;
        for (uint32_t t_k = BASE;; t_k += BASE) {
            if (in_i >= n) return false;
            int c = lower((unsigned char)in[in_i++]);
            uint32_t digit;
            if (c >= 'a' && c <= 'z') digit = (uint32_t)(c - 'a');
            else if (c >= '0' && c <= '9') digit = (uint32_t)(c - '0' + 26);
            else return false;
            i += digit * w;
            if (i > 0x10FFFF * 64ull) return false;
            uint32_t t = t_k <= bias ? TMIN : t_k >= bias + TMAX ? TMAX : t_k - bias;
            if (digit < t) break;
            w *= BASE - t;
            if (w > 0x10FFFF * 64ull) return false;
        }
        bias = punycode_adapt(i - oldi, k + 1, oldi == 0);
        nn += (uint32_t)(i / (k + 1));
        i %= (k + 1);
        if (nn > 0x10FFFF || (nn >= 0xD800 && nn <= 0xDFFF) || k >= cap) return false;
        memmove(out + i + 1, out + i, (k - i) * sizeof *out);
        out[i++] = nn;
        k++;
    }
    *outlen = k;
    return true;
}

/* A U-label (UTF-8, NUL-terminated) under IDNA2008 (RFC 5891 section 5.4:
** code points, CONTEXTJ, CONTEXTO, hyphens, leading marks; libidn2), with
** its A-label, when 'alabel' is not NULL, written there (up to 63 bytes). */
static bool ulabel_ok(const char *u, char *alabel)
{
    uint8_t *out = NULL;
    int rc = idn2_register_u8((const uint8_t *)u, NULL, &out, 0);
    bool ok = rc == IDN2_OK && out && strlen((char *)out) <= 63;
    if (ok && alabel) strcpy(alabel, (char *)out);
    idn2_free(out);
    return ok;
}

static bool is_rtl(uint32_t c)
{
    return (c >= 0x0590 && c <= 0x08FF) || (c >= 0xFB1D && c <= 0xFDFF) || (c >= 0xFE70 && c <= 0xFEFF) ||
           (c >= 0x10800 && c <= 0x10FFF) || (c >= 0x1E800 && c <= 0x1EFFF);
}

/* The Bidi rule's digit clause (RFC 5893, rule 4): an RTL label may not mix
** European and Arabic-Indic digits. */
static bool bidi_digits_ok(const uint32_t *cp, size_t n, bool *rtl)
{
    bool en = false, an = false;
    *rtl = false;
    for (size_t i = 0; i < n; i++) {
        if (is_rtl(cp[i]) && !(cp[i] >= 0x0660 && cp[i] <= 0x0669) && !(cp[i] >= 0x06F0 && cp[i] <= 0x06F9))
            *rtl = true;
        if ((cp[i] >= '0' && cp[i] <= '9') || (cp[i] >= 0x06F0 && cp[i] <= 0x06F9)) en = true;
        if (cp[i] >= 0x0660 && cp[i] <= 0x0669) an = true;
    }
    return !(*rtl && en && an);
}

/* An "xn--" label: valid Punycode that decodes to a valid U-label whose
** A-label is this one. */
static bool alabel_ok(const char *s, size_t len, bool *rtl)
{
    uint32_t cp[64];
    size_t n;
    if (len > 63 || !punycode_decode(s + 4, len - 4, cp, &n, 64) || n == 0) return false;
    char u[256], back[64];
    size_t k = 0;
    bool ascii = true;
    for (size_t i = 0; i < n; i++) {
        if (cp[i] >= 0x80) ascii = false;
        k += coax_utf8_encode(cp[i], u + k);
    }
    u[k] = '\0';
    if (ascii || !bidi_digits_ok(cp, n, rtl) || !ulabel_ok(u, back)) return false;
    if (strlen(back) != len) return false;
    for (size_t i = 0; i < len; i++)
        if (lower((unsigned char)back[i]) != lower((unsigned char)s[i])) return false;
    return true;
}

/* An ASCII label: letters, digits and hyphens, no hyphen at either end,
** 1 to 63 of them; "xn--" labels must be valid A-labels. */
static bool ldh_label(const char *s, size_t len, bool *rtl, bool rfc1123)
{
    *rtl = false;
    if (len == 0 || len > 63 || s[0] == '-' || s[len - 1] == '-') return false;
    for (size_t i = 0; i < len; i++)
        if (!is_alpha((unsigned char)s[i]) && !is_digit((unsigned char)s[i]) && s[i] != '-') return false;
    if (len >= 4 && s[2] == '-' && s[3] == '-' && !rfc1123) {
        if (lower((unsigned char)s[0]) != 'x' || lower((unsigned char)s[1]) != 'n') return false;
        return alabel_ok(s, len, rtl);
    }
    return true;
}

bool format_hostname(const char *s, size_t len, bool rfc1123)
{
    if (len == 0 || len > 253) return false;
    size_t st = 0;
    bool rtl_any = false, digit_first = false;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.') continue;
        bool rtl;
        if (!ldh_label(s + st, i - st, &rtl, rfc1123)) return false;
        rtl_any |= rtl;
        digit_first |= is_digit((unsigned char)s[st]);
        st = i + 1;
    }
    return !(rtl_any && digit_first);
}

/* The length of a label separator at s (. U+3002 U+FF0E U+FF61), or 0. */
static size_t label_dot(const char *s, size_t n)
{
    if (n >= 1 && s[0] == '.') return 1;
    if (n >= 3 && (!memcmp(s, "\xE3\x80\x82", 3) || !memcmp(s, "\xEF\xBC\x8E", 3) || !memcmp(s, "\xEF\xBD\xA1", 3)))
        return 3;
    return 0;
}

bool format_idn_hostname(const char *s, size_t len)
{
    if (len == 0) return false;
    size_t st = 0, total = 0, i = 0;
    bool rtl_any = false, digit_first = false;
    for (;;) {
        size_t d = i < len ? label_dot(s + i, len - i) : 0;
        if (i < len && !d) {
            i++;
            continue;
        }
        const char *l = s + st;
        size_t ll = i - st;
        bool ascii = true, rtl = false;
        for (size_t j = 0; j < ll; j++) ascii &= (unsigned char)l[j] < 0x80;
        if (ascii) {
            if (!ldh_label(l, ll, &rtl, false)) return false;
            total += ll;
        } else {
            char u[256], a[64];
            uint32_t cp[256];
            size_t n = 0;
            if (ll >= sizeof u) return false;
            memcpy(u, l, ll);
            u[ll] = '\0';
            for (size_t j = 0; j < ll && n < 256;) {
                size_t k = coax_utf8_decode((const unsigned char *)l + j, ll - j, &cp[n]);
                if (!k) return false;
                j += k;
                n++;
            }
            if (!bidi_digits_ok(cp, n, &rtl) || !ulabel_ok(u, a)) return false;
            total += strlen(a);
        }
        rtl_any |= rtl;
        digit_first |= is_digit((unsigned char)l[0]);
        total++;
        if (total - 1 > 253) return false; /* past a name's length: no more labels to ask libidn2 of */
        if (i >= len) break;
        i += d;
        st = i;
        if (i >= len) return false; /* a trailing dot */
    }
    return total - 1 <= 253 && !(rtl_any && digit_first);
}

/* ---- e-mail (RFC 5321 Mailbox, RFC 6531 with 'intl') ------------------------- */

static bool atext(int c, bool intl)
{
    return is_class(c, C_ATEXT) || (intl && c >= 0x80);
}

/* An internationalized mail domain (RFC 6531): an ASCII one is a host name,
** as for "email"; otherwise labels of letters, digits, hyphens and
** non-ASCII characters (RFC 6531 does not ask for NFC), with the limits of
** host names on their A-labels: 63 octets a label, 253 in all. */
static bool mail_domain_intl(const char *d, size_t dl)
{
    bool ascii = true;
    for (size_t j = 0; j < dl; j++) ascii &= (unsigned char)d[j] < 0x80;
    if (ascii) return format_hostname(d, dl, false);
    if (dl == 0) return false;
    size_t st = 0, total = 0;
    for (size_t j = 0; j <= dl; j++) {
        if (j < dl && d[j] != '.') {
            unsigned char c = (unsigned char)d[j];
            if (!(c >= 0x80 || is_alpha(c) || is_digit(c) || c == '-')) return false;
            continue;
        }
        if (j == st || d[st] == '-' || d[j - 1] == '-') return false;
        uint32_t cp[64];
        size_t n = 0, label;
        bool wide = false;
        for (size_t k = st; k < j;) {
            if (n == 64) return false; /* more code points than any label holds */
            size_t used = coax_utf8_decode((const unsigned char *)d + k, j - k, &cp[n]);
            if (!used) return false;
            wide |= cp[n++] >= 0x80;
            k += used;
        }
        label = wide ? punycode_encoded_len(cp, n) : n;
        if (label == SIZE_MAX || label + (wide ? 4 : 0) > 63) return false; /* "xn--" and the encoding */
        label += wide ? 4 : 0;
        total += label + 1;
        st = j + 1;
    }
    return total - 1 <= 253;
}

bool format_email(const char *s, size_t len, bool intl)
{
    size_t i = 0;
    if (len && s[0] == '"') {
        for (i = 1; i < len && s[i] != '"'; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c == '\\') {
                if (++i >= len || (unsigned char)s[i] < 32 || ((unsigned char)s[i] > 126 && !intl)) return false;
            } else if (c < 32 || (c > 126 && !intl)) {
                return false;
            }
        }
        if (i >= len) return false;
        i++;
    } else {
        bool dot_ok = false;
        for (; i < len && s[i] != '@'; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c == '.') {
                if (!dot_ok) return false;
                dot_ok = false;
            } else if (atext(c, intl)) {
                dot_ok = true;
            } else {
                return false;
            }
        }
        if (!dot_ok) return false;
    }
    if (i > 64) return false; /* octets of the local part (RFC 5321 4.5.3.1.1, kept by RFC 6531) */
    if (i >= len || s[i] != '@') return false;
    const char *d = s + i + 1;
    size_t dl = len - i - 1;
    if (dl >= 2 && d[0] == '[' && d[dl - 1] == ']') {
        if (dl > 7 && !memcmp(d + 1, "IPv6:", 5)) return format_ipv6(d + 6, dl - 7);
        return format_ipv4(d + 1, dl - 2);
    }
    return intl ? mail_domain_intl(d, dl) : format_hostname(d, dl, false);
}
