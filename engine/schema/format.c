/*
** format.c: the formats of JSON Schema, each checked against its RFC:
** dates and times (RFC 3339, leap seconds only at 23:59:60 UTC), durations
** (RFC 3339 appendix A), e-mail addresses (RFC 5321, RFC 6531), host names
** (RFC 1123, IDNA2008 through libidn2), IP addresses, URIs and IRIs
** (RFC 3986, RFC 3987), URI templates (RFC 6570), JSON Pointers (RFC 6901,
** and the relative ones), UUIDs (RFC 4122) and ECMA-262 regular
** expressions. Checks read the string once and keep no state.
*/
#include "schema/format.h"
#include "regex/ecma.h"

#include <idn2.h>

static const struct {
    const char *name;
    coax_format f;
    const char *what;
} FORMATS[] = {
    {"date-time", FMT_DATE_TIME, "an RFC 3339 date-time"},
    {"date", FMT_DATE, "an RFC 3339 full-date"},
    {"time", FMT_TIME, "an RFC 3339 full-time"},
    {"duration", FMT_DURATION, "an ISO 8601 duration"},
    {"email", FMT_EMAIL, "an e-mail address"},
    {"idn-email", FMT_IDN_EMAIL, "an internationalized e-mail address"},
    {"hostname", FMT_HOSTNAME, "a host name"},
    {"hostname", FMT_HOSTNAME_RFC1123, "a host name"},
    {"idn-hostname", FMT_IDN_HOSTNAME, "an internationalized host name"},
    {"ipv4", FMT_IPV4, "an IPv4 address"},
    {"ipv6", FMT_IPV6, "an IPv6 address"},
    {"uri", FMT_URI, "an absolute URI"},
    {"uri-reference", FMT_URI_REFERENCE, "a URI reference"},
    {"iri", FMT_IRI, "an absolute IRI"},
    {"iri-reference", FMT_IRI_REFERENCE, "an IRI reference"},
    {"uuid", FMT_UUID, "a UUID"},
    {"uri-template", FMT_URI_TEMPLATE, "a URI template"},
    {"json-pointer", FMT_JSON_POINTER, "a JSON Pointer"},
    {"relative-json-pointer", FMT_RELATIVE_JSON_POINTER, "a relative JSON Pointer"},
    {"regex", FMT_REGEX, "an ECMA-262 regular expression"},
};

coax_format coax_format_find(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof FORMATS / sizeof *FORMATS; i++)
        if (strlen(FORMATS[i].name) == len && !memcmp(FORMATS[i].name, name, len)) return FORMATS[i].f;
    return FMT_UNKNOWN;
}

const char *coax_format_describe(coax_format f)
{
    for (size_t i = 0; i < sizeof FORMATS / sizeof *FORMATS; i++)
        if (FORMATS[i].f == f) return FORMATS[i].what;
    return "a known format";
}

/* ---- helpers --------------------------------------------------------------- */

/* ASCII classes by byte (a lookup each: the checks run on every byte of
** every formatted string): */
enum {
    C_DIGIT = 1, C_ALPHA = 2, C_HEX = 4,
    C_ATEXT = 8,        /* RFC 5322 atext: letters, digits, !#$%&'*+-/=?^_`{|}~ */
    C_UNRESERVED = 16,  /* RFC 3986: letters, digits, -._~ */
    C_SUBDELIM = 32     /* RFC 3986: !$&'()*+,;= */
};
static const uint8_t char_class[256] = {
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0, 40,  0,  8, 40,  8, 40, 40, 32, 32, 40, 40, 32, 24, 16,  8,
    29, 29, 29, 29, 29, 29, 29, 29, 29, 29,  0, 32,  0, 40,  0,  8,
     0, 30, 30, 30, 30, 30, 30, 26, 26, 26, 26, 26, 26, 26, 26, 26,
    26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26,  0,  0,  0,  8, 24,
     8, 30, 30, 30, 30, 30, 30, 26, 26, 26, 26, 26, 26, 26, 26, 26,
    26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26,  8,  8,  8, 24,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
};

static bool is_class(int c, unsigned cls) { return (char_class[(unsigned char)c] & cls) != 0; }
static bool is_digit(int c) { return is_class(c, C_DIGIT); }
static bool is_alpha(int c) { return is_class(c, C_ALPHA); }
static bool is_hex(int c) { return is_class(c, C_HEX); }
static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* n ASCII digits at s as a number, or -1. */
static int num(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!is_digit((unsigned char)s[i])) return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* ---- dates and times (RFC 3339) -------------------------------------------- */

static bool leap_year(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static bool full_date(const char *s, size_t len)
{
    if (len != 10 || s[4] != '-' || s[7] != '-') return false;
    int y = num(s, 4), m = num(s + 5, 2), d = num(s + 8, 2);
    if (y < 0 || m < 1 || m > 12 || d < 1) return false;
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int max = days[m - 1] + (m == 2 && leap_year(y));
    return d <= max;
}

static bool full_time(const char *s, size_t len)
{
    if (len < 9 || s[2] != ':' || s[5] != ':') return false;
    int h = num(s, 2), m = num(s + 3, 2), sec = num(s + 6, 2);
    if (h < 0 || m < 0 || sec < 0 || h > 23 || m > 59 || sec > 60) return false;
    size_t i = 8;
    if (i < len && s[i] == '.') {
        size_t st = ++i;
        while (i < len && is_digit((unsigned char)s[i])) i++;
        if (i == st) return false;
    }
    if (i >= len) return false;
    int off = 0;
    if (s[i] == 'Z' || s[i] == 'z') {
        if (i + 1 != len) return false;
    } else if (s[i] == '+' || s[i] == '-') {
        if (len - i != 6 || s[i + 3] != ':') return false;
        int oh = num(s + i + 1, 2), om = num(s + i + 4, 2);
        if (oh < 0 || om < 0 || oh > 23 || om > 59) return false;
        off = (oh * 60 + om) * (s[i] == '+' ? 1 : -1);
    } else {
        return false;
    }
    if (sec == 60) { /* a leap second is 23:59:60 in UTC */
        int utc = ((h * 60 + m - off) % 1440 + 1440) % 1440;
        if (utc != 23 * 60 + 59) return false;
    }
    return true;
}

static bool date_time(const char *s, size_t len)
{
    return len > 11 && (s[10] == 'T' || s[10] == 't') && full_date(s, 10) && full_time(s + 11, len - 11);
}

/* RFC 3339 appendix A: P, then nW alone, or date parts in the order Y M D
** with none skipped between the first and the last (P1Y2D is not one),
** then T and time parts H M S the same way; at least one part, and T only
** with a time part. */
static bool duration(const char *s, size_t len)
{
    if (len < 2 || s[0] != 'P') return false;
    static const char units[] = "YMDHMS";
    size_t i = 1;
    int last = -1; /* index in units of the previous part */
    bool time = false, time_part = false, any = false;
    while (i < len) {
        if (s[i] == 'T') {
            if (time) return false;
            time = true;
            last = -1;
            i++;
            continue;
        }
        size_t st = i;
        while (i < len && is_digit((unsigned char)s[i])) i++;
        if (i == st || i == len) return false;
        char u = s[i++];
        if (u == 'W') return st == 1 && i == len;
        int k = time ? 3 : 0, end = time ? 6 : 3;
        while (k < end && units[k] != u) k++;
        if (k >= end || (last >= 0 && k != last + 1)) return false;
        last = k;
        any = true;
        if (time) time_part = true;
    }
    return any && (!time || time_part);
}

/* ---- IP addresses ------------------------------------------------------------ */

static bool ipv4(const char *s, size_t len)
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

static bool ipv6(const char *s, size_t len)
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
            if (!ipv4(s + st, len - st)) return false;
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

static bool hostname(const char *s, size_t len, bool rfc1123)
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

static bool idn_hostname(const char *s, size_t len)
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
    if (ascii) return hostname(d, dl, false);
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

static bool email(const char *s, size_t len, bool intl)
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
        if (dl > 7 && !memcmp(d + 1, "IPv6:", 5)) return ipv6(d + 6, dl - 7);
        return ipv4(d + 1, dl - 2);
    }
    return intl ? mail_domain_intl(d, dl) : hostname(d, dl, false);
}

/* ---- URIs and IRIs (RFC 3986, RFC 3987) -------------------------------------- */

typedef struct uri_ctx {
    const unsigned char *s;
    size_t n, i;
    bool iri;
} uri_ctx;

static bool unreserved(int c) { return is_class(c, C_UNRESERVED); }
static bool sub_delim(int c) { return is_class(c, C_SUBDELIM); }

static bool ucschar(uint32_t c)
{
    return (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFEF) ||
           (c >= 0x10000 && c <= 0xEFFFD && (c & 0xFFFF) <= 0xFFFD);
}

static bool iprivate(uint32_t c)
{
    return (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && c <= 0xFFFFD) || (c >= 0x100000 && c <= 0x10FFFD);
}

/* uri_char past its common case. */
static bool uri_char_rest(uri_ctx *u, const char *extra, bool priv)
{
    if (u->i >= u->n) return false;
    int c = u->s[u->i];
    if (c == '%') {
        if (u->i + 2 >= u->n) return false;
        if (!is_hex(u->s[u->i + 1]) || !is_hex(u->s[u->i + 2])) return false;
        u->i += 3;
        return true;
    }
    if (c < 0x80) {
        if (is_class(c, C_UNRESERVED | C_SUBDELIM) || (extra && c && strchr(extra, c))) {
            u->i++;
            return true;
        }
        return false;
    }
    if (!u->iri) return false;
    uint32_t cp;
    size_t k = coax_utf8_decode(u->s + u->i, u->n - u->i, &cp);
    if (!k || !(ucschar(cp) || (priv && iprivate(cp)))) return false;
    u->i += k;
    return true;
}

/* Consumes one character of the set: unreserved, pct-encoded, sub-delims,
** the ASCII characters in 'extra', and (for IRIs) ucschar, plus iprivate
** when 'priv'. False at the end or on any other character. Most characters
** are unreserved: those are taken here, inlined, the rest by a call. */
static inline bool uri_char(uri_ctx *u, const char *extra, bool priv)
{
    if (u->i < u->n && u->s[u->i] < 0x80 && is_class(u->s[u->i], C_UNRESERVED | C_SUBDELIM)) {
        u->i++;
        return true;
    }
    return uri_char_rest(u, extra, priv);
}

static int uri_peek(const uri_ctx *u) { return u->i < u->n ? u->s[u->i] : -1; }

/* authority = [userinfo "@"] host [":" port], up to the next / ? # */
static bool authority(uri_ctx *u)
{
    size_t st = u->i, end = st;
    while (end < u->n && u->s[end] != '/' && u->s[end] != '?' && u->s[end] != '#') end++;
    size_t at = SIZE_MAX;
    for (size_t j = st; j < end; j++)
        if (u->s[j] == '@') {
            at = j;
            break;
        }
    uri_ctx sub = *u;
    sub.n = end;
    if (at != SIZE_MAX) {
        sub.i = st;
        while (sub.i < at)
            if (!uri_char(&sub, ":", false)) return false;
        sub.i = at + 1;
    } else {
        sub.i = st;
    }
    if (uri_peek(&sub) == '[') {
        size_t close = sub.i;
        while (close < end && u->s[close] != ']') close++;
        if (close >= end) return false;
        const char *h = (const char *)u->s + sub.i + 1;
        size_t hl = close - sub.i - 1;
        if (hl && (h[0] == 'v' || h[0] == 'V')) {
            size_t j = 1;
            while (j < hl && is_hex((unsigned char)h[j])) j++;
            if (j == 1 || j >= hl || h[j] != '.' || j + 1 >= hl) return false;
            for (j++; j < hl; j++)
                if (!unreserved((unsigned char)h[j]) && !sub_delim((unsigned char)h[j]) && h[j] != ':') return false;
        } else if (!ipv6(h, hl)) {
            return false;
        }
        sub.i = close + 1;
    } else {
        while (sub.i < end && u->s[sub.i] != ':')
            if (!uri_char(&sub, NULL, false)) return false;
    }
    if (uri_peek(&sub) == ':') {
        sub.i++;
        while (sub.i < end)
            if (!is_digit(u->s[sub.i++])) return false;
    }
    if (sub.i != end) return false;
    u->i = end;
    return true;
}

/* path characters (pchar and "/") up to ? or # */
static bool path(uri_ctx *u, bool noscheme)
{
    bool first_seg = true;
    while (u->i < u->n && u->s[u->i] != '?' && u->s[u->i] != '#') {
        int c = u->s[u->i];
        if (c == '/') {
            first_seg = false;
            u->i++;
            continue;
        }
        if (c == ':' && noscheme && first_seg) return false;
        if (!uri_char(u, ":@", false)) return false;
    }
    return true;
}

static bool query_fragment(uri_ctx *u)
{
    if (uri_peek(u) == '?') {
        u->i++;
        while (u->i < u->n && u->s[u->i] != '#')
            if (!uri_char(u, ":@/?", true)) return false;
    }
    if (uri_peek(u) == '#') {
        u->i++;
        while (u->i < u->n)
            if (!uri_char(u, ":@/?", false)) return false;
    }
    return u->i == u->n;
}

/* The scheme's length, 0 when s does not start with 'scheme ":"'. */
static size_t scheme_len(const unsigned char *s, size_t n)
{
    if (!n || !is_alpha(s[0])) return 0;
    size_t i = 1;
    while (i < n && (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')) i++;
    return i < n && s[i] == ':' ? i : 0;
}

static bool uri(const char *s, size_t len, bool iri, bool reference)
{
    uri_ctx u = {(const unsigned char *)s, len, 0, iri};
    size_t sl = scheme_len(u.s, len);
    if (!sl && !reference) return false;
    if (sl) u.i = sl + 1;
    if (u.i + 1 < len && s[u.i] == '/' && s[u.i + 1] == '/') {
        u.i += 2;
        if (!authority(&u) || !path(&u, false)) return false;
    } else if (!path(&u, !sl)) {
        return false;
    }
    return query_fragment(&u);
}

/* ---- URI templates (RFC 6570) ---------------------------------------------- */

static bool uri_template(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        unsigned c = p[i];
        if (c == '{') {
            i++;
            if (i < len && strchr("+#./;?&", p[i]) && p[i]) i++;
            for (;;) { /* varspec */
                size_t st = i;
                bool dot_ok = false;
                while (i < len) {
                    if (p[i] == '%') {
                        if (i + 2 >= len || !is_hex(p[i + 1]) || !is_hex(p[i + 2])) return false;
                        i += 3;
                        dot_ok = true;
                    } else if (is_alpha(p[i]) || is_digit(p[i]) || p[i] == '_') {
                        i++;
                        dot_ok = true;
                    } else if (p[i] == '.' && dot_ok) {
                        i++;
                        dot_ok = false;
                    } else {
                        break;
                    }
                }
                if (i == st || !dot_ok) return false;
                if (i < len && p[i] == ':') {
                    i++;
                    size_t ds = i;
                    while (i < len && is_digit(p[i]) && i - ds < 4) i++;
                    if (i == ds || p[ds] == '0' || (i < len && is_digit(p[i]))) return false;
                } else if (i < len && p[i] == '*') {
                    i++;
                }
                if (i < len && p[i] == ',') {
                    i++;
                    continue;
                }
                break;
            }
            if (i >= len || p[i] != '}') return false;
            i++;
            continue;
        }
        if (c == '%') {
            if (i + 2 >= len || !is_hex(p[i + 1]) || !is_hex(p[i + 2])) return false;
            i += 3;
            continue;
        }
        if (c < 0x80) {
            if (c <= 0x20 || c == 0x7F || strchr("\"%<>\\^`{|}", (int)c)) return false;
            i++;
            continue;
        }
        uint32_t cp;
        size_t k = coax_utf8_decode(p + i, len - i, &cp);
        if (!k || !(ucschar(cp) || iprivate(cp))) return false;
        i += k;
    }
    return true;
}

/* ---- JSON Pointers (RFC 6901) ------------------------------------------------- */

static bool json_pointer(const char *s, size_t len)
{
    if (len && s[0] != '/') return false;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '~' && (i + 1 >= len || (s[i + 1] != '0' && s[i + 1] != '1'))) return false;
    return true;
}

static bool relative_json_pointer(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && is_digit((unsigned char)s[i])) i++;
    if (i == 0 || (s[0] == '0' && i > 1)) return false;
    if (i < len && s[i] == '#') return i + 1 == len;
    return json_pointer(s + i, len - i);
}

/* ---- UUIDs ------------------------------------------------------------------- */

static bool uuid(const char *s, size_t len)
{
    if (len != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') return false;
    for (size_t i = 0; i < 36; i++)
        if (!is_hex(s[i]) && i != 8 && i != 13 && i != 18 && i != 23) return false;
    return true;
}

/* "regex": a pattern ECMA-262 reads. Apart, not inlined: its error's
** buffer would make every check's frame as large. */
static __attribute__((noinline)) int regex_format(const char *s, size_t len, const coax_allocator *alloc)
{
    coax_error err;
    coax_code rc = coax_ecma_translate(s, len, NULL, alloc, &err);
    return rc == COAX_ENOMEM ? -1 : rc == COAX_OK;
}

int coax_format_check(coax_format f, const char *s, size_t len, const coax_allocator *alloc)
{
    switch (f) {
    case FMT_DATE_TIME: return date_time(s, len);
    case FMT_DATE: return full_date(s, len);
    case FMT_TIME: return full_time(s, len);
    case FMT_DURATION: return duration(s, len);
    case FMT_EMAIL: return email(s, len, false);
    case FMT_IDN_EMAIL: return email(s, len, true);
    case FMT_HOSTNAME: return hostname(s, len, false);
    case FMT_HOSTNAME_RFC1123: return hostname(s, len, true);
    case FMT_IDN_HOSTNAME: return idn_hostname(s, len);
    case FMT_IPV4: return ipv4(s, len);
    case FMT_IPV6: return ipv6(s, len);
    case FMT_URI: return uri(s, len, false, false);
    case FMT_URI_REFERENCE: return uri(s, len, false, true);
    case FMT_IRI: return uri(s, len, true, false);
    case FMT_IRI_REFERENCE: return uri(s, len, true, true);
    case FMT_UUID: return uuid(s, len);
    case FMT_URI_TEMPLATE: return uri_template(s, len);
    case FMT_JSON_POINTER: return json_pointer(s, len);
    case FMT_RELATIVE_JSON_POINTER: return relative_json_pointer(s, len);
    case FMT_REGEX: return regex_format(s, len, alloc);
    default: return 1;
    }
}
