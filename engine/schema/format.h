/*
** format.h: the "format" keyword's checks (internal). Each check reads a
** UTF-8 string and answers valid or not; nothing is allocated except by
** libidn2 for the idn-* formats (its own buffers, freed before returning).
*/
#ifndef COAX_FORMAT_H
#define COAX_FORMAT_H

#include "base/core.h"

typedef enum coax_format {
    FMT_UNKNOWN = 0, /* not a format coax checks: annotation only */
    FMT_DATE_TIME, FMT_DATE, FMT_TIME, FMT_DURATION,
    FMT_EMAIL, FMT_IDN_EMAIL, FMT_HOSTNAME, FMT_IDN_HOSTNAME,
    FMT_IPV4, FMT_IPV6,
    FMT_URI, FMT_URI_REFERENCE, FMT_IRI, FMT_IRI_REFERENCE, FMT_UUID,
    FMT_URI_TEMPLATE, FMT_JSON_POINTER, FMT_RELATIVE_JSON_POINTER, FMT_REGEX,
    FMT_HOSTNAME_RFC1123 /* drafts 4 and 6: RFC 1123 only, "ab--cd" is a name */
} coax_format;

/* The format named name[0..len), FMT_UNKNOWN for any other name. */
coax_format coax_format_find(const char *name, size_t len);

/* 1 when s[0..len) (valid UTF-8) is a valid 'f' (FMT_UNKNOWN: always), 0
** when not, -1 when out of memory ("regex" allocates through 'alloc'). */
int coax_format_check(coax_format f, const char *s, size_t len, const coax_allocator *alloc);

/* What a format is, for messages: "an RFC 3339 date-time". */
const char *coax_format_describe(coax_format f);

/* format_net.c: each true when s[0..len) is one ('rfc1123': drafts 4 and
** 6, where "ab--cd" is a name; 'intl': idn-email). */
bool format_ipv4(const char *s, size_t len);
bool format_ipv6(const char *s, size_t len);
bool format_hostname(const char *s, size_t len, bool rfc1123);
bool format_idn_hostname(const char *s, size_t len);
bool format_email(const char *s, size_t len, bool intl);

#endif
