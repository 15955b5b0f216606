/*
** format.c: the formats of JSON Schema, each checked against its RFC:
** dates and times (RFC 3339, leap seconds only at 23:59:60 UTC), durations
** (RFC 3339 appendix A), URIs and IRIs (RFC 3986, RFC 3987), URI templates
** (RFC 6570), JSON Pointers (RFC 6901, and the relative ones), UUIDs
** (RFC 4122) and ECMA-262 regular expressions; e-mail addresses, host
** names and IP addresses are format_net.c's. Checks read the string once
** and keep no state.
*/
#include "schema/format.h"
#include "regex/ecma.h"
#include "schema/format_chars.h"
#include "schema/schema.h"

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
        } else if (!format_ipv6(h, hl)) {
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
            if (i < len && coax_byte_in("+#./;?&", p[i])) i++;
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
            if (c <= 0x20 || c == 0x7F || coax_byte_in("\"%<>\\^`{|}", (int)c)) return false;
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

/* Whether the eight bytes of x are all hex digits, tested at once: a byte
** below 0x80 plus 0x80 - lo has its high bit set when it is lo or more,
** plus 0x7f - hi when it is above hi (no carry leaves a byte). */
static bool hex8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    if (x & highs) return false;
    uint64_t y = x | ones * 0x20; /* letters in lower case */
    uint64_t digit = (x + ones * (0x80 - '0')) & ~(x + ones * (0x7f - '9'));
    uint64_t letter = (y + ones * (0x80 - 'a')) & ~(y + ones * (0x7f - 'f'));
    return ((digit | letter) & highs) == highs;
}

static bool uuid(const char *s, size_t len)
{
    if (len != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') return false;
    /* the 32 digits in four words: 8, 4 and 4, 4 and 4, 8 */
    return hex8(coax_load8(s)) && hex8(coax_load4(s + 9) | coax_load4(s + 14) << 32) &&
           hex8(coax_load4(s + 19) | coax_load4(s + 24) << 32) && hex8(coax_load8(s + 28));
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
    case FMT_EMAIL: return format_email(s, len, false);
    case FMT_IDN_EMAIL: return format_email(s, len, true);
    case FMT_HOSTNAME: return format_hostname(s, len, false);
    case FMT_HOSTNAME_RFC1123: return format_hostname(s, len, true);
    case FMT_IDN_HOSTNAME: return format_idn_hostname(s, len);
    case FMT_IPV4: return format_ipv4(s, len);
    case FMT_IPV6: return format_ipv6(s, len);
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
