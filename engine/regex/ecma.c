/*
** ecma.c: ECMA-262 patterns ("u" flag) checked against the grammar and
** rewritten for PCRE2 with ECMA-262's meanings:
**   .        any code point but the line terminators \n \r U+2028 U+2029
**   \d \w \b ASCII (PCRE2 without UCP says the same)
**   \s       ECMA's set: \t \n \v \f \r space U+00A0 U+1680 U+2000-200A
**            U+2028 U+2029 U+202F U+205F U+3000 U+FEFF
**   \v       vertical tab (PCRE2's \v is a class)
**   $        end of input only (\z)
**   \u0041 \u{1F432} \uD83D\uDC32 \x41 \cA \0   code points
**   [] [^]   nothing, anything
**   \p{Letter} \p{gc=Lu} \p{Script=Greek} \p{scx=Greek}   PCRE2 spellings
**   (?<n>x) \k<n>   numbered groups and \g{N} (names stay ECMA's own)
** Every literal is written as \x{H}, so no ECMA character can take on a
** PCRE2 meaning. The check is strict: what ECMA-262 rejects with the "u"
** flag (\a, \z, (?i), (?P<n>), a++, lone { } ], \- outside a class, ...)
** is an error here too. Two passes: the first counts and names the groups
** (a back reference may come before its group), the second writes.
*/
#include "regex/ecma.h"
#include "base/hash.h"

#include <stdio.h>

#define MAX_NEST 200 /* groups inside groups */

typedef struct gname {
    size_t off, len; /* the name in the pattern; len 0: unnamed */
} gname;

typedef struct ep {
    const unsigned char *p;
    size_t n, i;
    coax_buf *out;   /* where the translation goes; NULL: check only */
    bool pass2;      /* the second pass: group numbers and names known */
    coax_buf names;  /* gname per group, filled by the first pass */
    size_t ngroups;  /* groups opened so far in this pass */
    size_t total;    /* groups in the pattern (second pass) */
    size_t *byname;  /* the named groups by their name's hash: index + 1, 0 free */
    size_t cap, named;
    uint64_t seed;
    int depth;
    const char *why; /* the first error */
    size_t at;
} ep;

static bool fail(ep *e, const char *why)
{
    if (!e->why) {
        e->why = why;
        e->at = e->i;
    }
    return false;
}

static bool more(const ep *e) { return e->i < e->n; }
static int peek(const ep *e) { return e->i < e->n ? e->p[e->i] : -1; }
static int peek2(const ep *e) { return e->i + 1 < e->n ? e->p[e->i + 1] : -1; }

static void put(ep *e, const char *s)
{
    if (e->out) coax_buf_puts(e->out, s);
}

static void put_cp(ep *e, uint32_t cp)
{
    if (e->out) coax_buf_printf(e->out, "\\x{%X}", (unsigned)cp);
}

static bool is_surrogate(uint32_t cp) { return cp >= 0xD800 && cp <= 0xDFFF; }

/* Exactly 'k' hex digits. */
static bool hexn(ep *e, int k, uint32_t *cp)
{
    uint32_t v = 0;
    for (int j = 0; j < k; j++) {
        int h = coax_hex_digit(peek(e));
        if (h < 0) return fail(e, "expected a hexadecimal digit");
        v = v * 16 + (uint32_t)h;
        e->i++;
    }
    *cp = v;
    return true;
}

/* After "\u": XXXX (a surrogate pair as \uXXXX\uXXXX) or {X...}. */
static bool unicode_escape(ep *e, uint32_t *cp)
{
    if (peek(e) == '{') {
        e->i++;
        uint32_t v = 0;
        size_t digits = 0;
        int h;
        while ((h = coax_hex_digit(peek(e))) >= 0) {
            v = v * 16 + (uint32_t)h;
            if (v > 0x10FFFF) return fail(e, "code point beyond U+10FFFF");
            e->i++;
            digits++;
        }
        if (!digits || peek(e) != '}') return fail(e, "malformed \\u{...} escape");
        e->i++;
        *cp = v;
        return true;
    }
    if (!hexn(e, 4, cp)) return false;
    if (*cp >= 0xD800 && *cp <= 0xDBFF && e->i + 5 < e->n && e->p[e->i] == '\\' && e->p[e->i + 1] == 'u') {
        size_t save = e->i;
        uint32_t lo;
        e->i += 2;
        if (hexn(e, 4, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
            *cp = coax_utf16_pair(*cp, lo);
            return true;
        }
        e->why = NULL; /* not a pair: the lead surrogate stands alone */
        e->i = save;
    }
    return true;
}

static bool syntax_char(int c) { return c >= 0 && c < 128 && coax_byte_in("^$\\.*+?()[]{}|/", c); }

/* A CharacterEscape after the backslash (at e->i), inside a class or not. */
static bool char_escape(ep *e, bool in_class, uint32_t *cp)
{
    int c = peek(e);
    e->i++;
    switch (c) {
    case 'f': *cp = 0x0C; return true;
    case 'n': *cp = 0x0A; return true;
    case 'r': *cp = 0x0D; return true;
    case 't': *cp = 0x09; return true;
    case 'v': *cp = 0x0B; return true;
    case 'c': {
        int l = peek(e);
        if (!((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z'))) return fail(e, "\\c must be followed by a letter");
        e->i++;
        *cp = (uint32_t)(l % 32);
        return true;
    }
    case '0':
        if (peek(e) >= '0' && peek(e) <= '9') return fail(e, "octal escapes are not allowed");
        *cp = 0;
        return true;
    case 'x': return hexn(e, 2, cp);
    case 'u': return unicode_escape(e, cp);
    default:
        if (syntax_char(c) || (in_class && c == '-')) {
            *cp = (uint32_t)c;
            return true;
        }
        e->i--;
        return fail(e, "invalid escape");
    }
}

/* General_Category values: ECMA-262 accepts the long and short names and
** the aliases of PropertyValueAliases.txt; PCRE2 10.42 knows short ones. */
static const char *gc_short(const char *n, size_t len)
{
    static const char *const map[][2] = {
        {"Letter", "L"}, {"L", "L"}, {"Cased_Letter", "L&"}, {"LC", "L&"},
        {"Uppercase_Letter", "Lu"}, {"Lu", "Lu"}, {"Lowercase_Letter", "Ll"}, {"Ll", "Ll"},
        {"Titlecase_Letter", "Lt"}, {"Lt", "Lt"}, {"Modifier_Letter", "Lm"}, {"Lm", "Lm"},
        {"Other_Letter", "Lo"}, {"Lo", "Lo"}, {"Mark", "M"}, {"M", "M"}, {"Combining_Mark", "M"},
        {"Nonspacing_Mark", "Mn"}, {"Mn", "Mn"}, {"Spacing_Mark", "Mc"}, {"Mc", "Mc"},
        {"Enclosing_Mark", "Me"}, {"Me", "Me"}, {"Number", "N"}, {"N", "N"},
        {"Decimal_Number", "Nd"}, {"Nd", "Nd"}, {"digit", "Nd"}, {"Letter_Number", "Nl"},
        {"Nl", "Nl"}, {"Other_Number", "No"}, {"No", "No"}, {"Punctuation", "P"}, {"P", "P"},
        {"punct", "P"}, {"Connector_Punctuation", "Pc"}, {"Pc", "Pc"},
        {"Dash_Punctuation", "Pd"}, {"Pd", "Pd"}, {"Open_Punctuation", "Ps"}, {"Ps", "Ps"},
        {"Close_Punctuation", "Pe"}, {"Pe", "Pe"}, {"Initial_Punctuation", "Pi"}, {"Pi", "Pi"},
        {"Final_Punctuation", "Pf"}, {"Pf", "Pf"}, {"Other_Punctuation", "Po"}, {"Po", "Po"},
        {"Symbol", "S"}, {"S", "S"}, {"Math_Symbol", "Sm"}, {"Sm", "Sm"},
        {"Currency_Symbol", "Sc"}, {"Sc", "Sc"}, {"Modifier_Symbol", "Sk"}, {"Sk", "Sk"},
        {"Other_Symbol", "So"}, {"So", "So"}, {"Separator", "Z"}, {"Z", "Z"},
        {"Space_Separator", "Zs"}, {"Zs", "Zs"}, {"Line_Separator", "Zl"}, {"Zl", "Zl"},
        {"Paragraph_Separator", "Zp"}, {"Zp", "Zp"}, {"Other", "C"}, {"C", "C"},
        {"Control", "Cc"}, {"Cc", "Cc"}, {"cntrl", "Cc"}, {"Format", "Cf"}, {"Cf", "Cf"},
        {"Surrogate", "Cs"}, {"Cs", "Cs"}, {"Private_Use", "Co"}, {"Co", "Co"},
        {"Unassigned", "Cn"}, {"Cn", "Cn"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i][0]) == len && !memcmp(map[i][0], n, len)) return map[i][1];
    return NULL;
}

/* The binary properties ECMA-262 lists (table "Binary Unicode property
** aliases"), long and short names, with PCRE2's name. */
static const char *binary_prop(const char *n, size_t len)
{
    static const char *const map[][2] = {
        {"ASCII", "ASCII"}, {"ASCII_Hex_Digit", "ASCII_Hex_Digit"}, {"AHex", "ASCII_Hex_Digit"},
        {"Alphabetic", "Alphabetic"}, {"Alpha", "Alphabetic"}, {"Any", "Any"},
        {"Bidi_Control", "Bidi_Control"}, {"Bidi_C", "Bidi_Control"},
        {"Bidi_Mirrored", "Bidi_Mirrored"}, {"Bidi_M", "Bidi_Mirrored"},
        {"Case_Ignorable", "Case_Ignorable"}, {"CI", "Case_Ignorable"}, {"Cased", "Cased"},
        {"Changes_When_Casefolded", "CWCF"}, {"CWCF", "CWCF"},
        {"Changes_When_Casemapped", "CWCM"}, {"CWCM", "CWCM"},
        {"Changes_When_Lowercased", "CWL"}, {"CWL", "CWL"},
        {"Changes_When_NFKC_Casefolded", "CWKCF"}, {"CWKCF", "CWKCF"},
        {"Changes_When_Titlecased", "CWT"}, {"CWT", "CWT"},
        {"Changes_When_Uppercased", "CWU"}, {"CWU", "CWU"}, {"Dash", "Dash"},
        {"Default_Ignorable_Code_Point", "DI"}, {"DI", "DI"}, {"Deprecated", "Dep"}, {"Dep", "Dep"},
        {"Diacritic", "Dia"}, {"Dia", "Dia"}, {"Emoji", "Emoji"},
        {"Emoji_Component", "EComp"}, {"EComp", "EComp"}, {"Emoji_Modifier", "EMod"},
        {"EMod", "EMod"}, {"Emoji_Modifier_Base", "EBase"}, {"EBase", "EBase"},
        {"Emoji_Presentation", "EPres"}, {"EPres", "EPres"},
        {"Extended_Pictographic", "ExtPict"}, {"ExtPict", "ExtPict"}, {"Extender", "Ext"},
        {"Ext", "Ext"}, {"Grapheme_Base", "Gr_Base"}, {"Gr_Base", "Gr_Base"},
        {"Grapheme_Extend", "Gr_Ext"}, {"Gr_Ext", "Gr_Ext"}, {"Hex_Digit", "Hex"}, {"Hex", "Hex"},
        {"IDS_Binary_Operator", "IDSB"}, {"IDSB", "IDSB"},
        {"IDS_Trinary_Operator", "IDST"}, {"IDST", "IDST"}, {"ID_Continue", "IDC"},
        {"IDC", "IDC"}, {"ID_Start", "IDS"}, {"IDS", "IDS"}, {"Ideographic", "Ideo"},
        {"Ideo", "Ideo"}, {"Join_Control", "Join_C"}, {"Join_C", "Join_C"},
        {"Logical_Order_Exception", "LOE"}, {"LOE", "LOE"}, {"Lowercase", "Lower"},
        {"Lower", "Lower"}, {"Math", "Math"}, {"Noncharacter_Code_Point", "NChar"},
        {"NChar", "NChar"}, {"Pattern_Syntax", "Pat_Syn"}, {"Pat_Syn", "Pat_Syn"},
        {"Pattern_White_Space", "Pat_WS"}, {"Pat_WS", "Pat_WS"},
        {"Quotation_Mark", "QMark"}, {"QMark", "QMark"}, {"Radical", "Radical"},
        {"Regional_Indicator", "RI"}, {"RI", "RI"}, {"Sentence_Terminal", "STerm"},
        {"STerm", "STerm"}, {"Soft_Dotted", "SD"}, {"SD", "SD"},
        {"Terminal_Punctuation", "Term"}, {"Term", "Term"}, {"Unified_Ideograph", "UIdeo"},
        {"UIdeo", "UIdeo"}, {"Uppercase", "Upper"}, {"Upper", "Upper"},
        {"Variation_Selector", "VS"}, {"VS", "VS"}, {"White_Space", "WSpace"},
        {"space", "WSpace"}, {"XID_Continue", "XIDC"}, {"XIDC", "XIDC"},
        {"XID_Start", "XIDS"}, {"XIDS", "XIDS"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i][0]) == len && !memcmp(map[i][0], n, len)) return map[i][1];
    return NULL;
}

static bool name_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* After "\p" or "\P": {Name}, {gc=Value}, {Script=Value}, ... */
static bool property(ep *e, bool neg)
{
    if (peek(e) != '{') return fail(e, "\\p must be followed by {name}");
    e->i++;
    size_t s = e->i, eq = 0;
    while (name_char(peek(e)) || (peek(e) == '=' && !eq)) {
        if (peek(e) == '=') eq = e->i;
        e->i++;
    }
    if (peek(e) != '}' || e->i == s) return fail(e, "malformed \\p{...}");
    const char *n = (const char *)e->p + s;
    size_t nl = e->i - s;
    e->i++;
    char buf[96];
    if (eq) {
        const char *k = n, *v = (const char *)e->p + eq + 1;
        size_t kl = eq - s, vl = nl - kl - 1;
        if (!vl || vl > 60) return fail(e, "unknown property value");
        if ((kl == 16 && !memcmp(k, "General_Category", 16)) || (kl == 2 && !memcmp(k, "gc", 2))) {
            const char *g = gc_short(v, vl);
            if (!g) return fail(e, "unknown General_Category value");
            snprintf(buf, sizeof buf, "\\%c{%s}", neg ? 'P' : 'p', g);
        } else if ((kl == 6 && !memcmp(k, "Script", 6)) || (kl == 2 && !memcmp(k, "sc", 2))) {
            snprintf(buf, sizeof buf, "\\%c{sc:%.*s}", neg ? 'P' : 'p', (int)vl, v);
        } else if ((kl == 17 && !memcmp(k, "Script_Extensions", 17)) || (kl == 3 && !memcmp(k, "scx", 3))) {
            snprintf(buf, sizeof buf, "\\%c{scx:%.*s}", neg ? 'P' : 'p', (int)vl, v);
        } else {
            return fail(e, "unknown property name");
        }
    } else {
        const char *g = gc_short(n, nl), *b = g ? NULL : binary_prop(n, nl);
        if (!g && !b) return fail(e, "unknown property name");
        snprintf(buf, sizeof buf, "\\%c{%s}", neg ? 'P' : 'p', g ? g : b);
    }
    put(e, buf);
    return true;
}

/* ECMA's \s as class members, and its complement. */
static const char WS[] = "\\x{9}-\\x{D}\\x{20}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"
                         "\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
static const char NOT_WS[] = "\\x{0}-\\x{8}\\x{E}-\\x{1F}\\x{21}-\\x{9F}\\x{A1}-\\x{167F}"
                             "\\x{1681}-\\x{1FFF}\\x{200B}-\\x{2027}\\x{202A}-\\x{202E}"
                             "\\x{2030}-\\x{205E}\\x{2060}-\\x{2FFF}\\x{3001}-\\x{FEFE}\\x{FF00}-\\x{10FFFF}";

/* Class members for \d \D \w \W \s \S. */
static const char *class_escape_members(int c)
{
    switch (c) {
    case 'd': return "0-9";
    case 'D': return "\\x{0}-\\x{2F}\\x{3A}-\\x{10FFFF}";
    case 'w': return "0-9A-Z_a-z";
    case 'W': return "\\x{0}-\\x{2F}\\x{3A}-\\x{40}\\x{5B}-\\x{5E}\\x{60}\\x{7B}-\\x{10FFFF}";
    case 's': return WS;
    case 'S': return NOT_WS;
    default: return NULL;
    }
}

/* One class member: a code point (*cp, *single true) or a class escape
** written directly (*single false). */
static bool class_atom(ep *e, uint32_t *cp, bool *single)
{
    *single = true;
    if (peek(e) != '\\') {
        size_t k = coax_utf8_decode(e->p + e->i, e->n - e->i, cp);
        if (!k) return fail(e, "invalid UTF-8");
        e->i += k;
        return true;
    }
    e->i++;
    int c = peek(e);
    if (c < 0) return fail(e, "pattern ends with a backslash");
    const char *m = class_escape_members(c);
    if (m) {
        e->i++;
        *single = false;
        put(e, m);
        return true;
    }
    if (c == 'p' || c == 'P') {
        e->i++;
        *single = false;
        return property(e, c == 'P');
    }
    if (c == 'b') {
        e->i++;
        *cp = 0x08;
        return true;
    }
    return char_escape(e, true, cp);
}

/* Writes a class member range lo-hi, leaving out surrogates (which no
** valid UTF-8 string holds). Returns whether something was written. */
static bool put_range(ep *e, uint32_t lo, uint32_t hi)
{
    if (lo >= 0xD800 && lo <= 0xDFFF) lo = 0xE000;
    if (hi >= 0xD800 && hi <= 0xDFFF) hi = 0xD7FF;
    if (lo > hi) return false;
    put_cp(e, lo);
    if (hi != lo) {
        put(e, "-");
        put_cp(e, hi);
    }
    return true;
}

static bool char_class(ep *e)
{
    e->i++; /* [ */
    bool neg = peek(e) == '^';
    if (neg) e->i++;
    size_t start = e->out ? e->out->len : 0;
    size_t members = 0;
    put(e, neg ? "[^" : "[");
    for (;;) {
        if (!more(e)) return fail(e, "unterminated character class");
        if (peek(e) == ']') break;
        size_t at = e->i;
        uint32_t a, b;
        bool sa, sb;
        /* the range check needs the atoms before writing them */
        coax_buf *out = e->out;
        e->out = NULL;
        if (!class_atom(e, &a, &sa)) return false;
        bool range = peek(e) == '-' && peek2(e) != ']' && peek2(e) >= 0;
        if (range) {
            e->i++;
            if (!class_atom(e, &b, &sb)) return false;
            if (!sa || !sb) {
                e->i = at;
                return fail(e, "a class escape cannot bound a range");
            }
            if (a > b) {
                e->i = at;
                return fail(e, "range out of order in character class");
            }
        }
        e->out = out;
        size_t end = e->i;
        e->i = at;
        if (!range && !sa) {
            class_atom(e, &a, &sa); /* writes the escape's members */
            members++;
        } else if (range) {
            members += put_range(e, a, b);
        } else {
            members += put_range(e, a, a);
        }
        e->i = end;
    }
    e->i++; /* ] */
    if (e->out) {
        if (members) {
            put(e, "]");
        } else {
            e->out->len = start;
            put(e, neg ? "(?s:.)" : "(?!)");
        }
    }
    return true;
}

static bool disjunction(ep *e);

static bool is_quant_start(const ep *e)
{
    int c = peek(e);
    return c == '*' || c == '+' || c == '?' || c == '{';
}

static bool digits(ep *e, uint32_t *v)
{
    size_t s = e->i;
    uint64_t x = 0;
    while (peek(e) >= '0' && peek(e) <= '9') {
        x = x * 10 + (uint64_t)(peek(e) - '0');
        if (x > 0xFFFFFFFFu) x = 0xFFFFFFFFu;
        e->i++;
    }
    *v = (uint32_t)x;
    return e->i > s;
}

static bool quantifier(ep *e)
{
    int c = peek(e);
    if (c == '{') {
        e->i++;
        uint32_t lo, hi;
        if (!digits(e, &lo)) return fail(e, "lone '{' (escape it as \\{)");
        hi = lo;
        bool comma = peek(e) == ',', upper = false;
        if (comma) {
            e->i++;
            upper = digits(e, &hi);
        }
        if (peek(e) != '}') return fail(e, "incomplete quantifier");
        e->i++;
        if (upper && hi < lo) return fail(e, "numbers out of order in {} quantifier");
        if (e->out) {
            if (!comma) coax_buf_printf(e->out, "{%u}", (unsigned)lo);
            else if (upper) coax_buf_printf(e->out, "{%u,%u}", (unsigned)lo, (unsigned)hi);
            else coax_buf_printf(e->out, "{%u,}", (unsigned)lo);
        }
    } else {
        char q[2] = {(char)c, 0};
        e->i++;
        put(e, q);
    }
    if (peek(e) == '?') {
        e->i++;
        put(e, "?");
    }
    return true;
}

static bool group_name(ep *e, size_t *off, size_t *len)
{
    /* after '<' */
    *off = e->i;
    while (more(e) && peek(e) != '>') {
        int c = peek(e);
        bool first = e->i == *off;
        if (!(name_char(c) || c == '$' || c >= 0x80) || (first && c >= '0' && c <= '9'))
            return fail(e, "invalid group name");
        e->i++;
    }
    if (peek(e) != '>' || e->i == *off) return fail(e, "invalid group name");
    *len = e->i - *off;
    e->i++;
    return true;
}

static const gname *groups(const ep *e) { return (const gname *)(const void *)e->names.data; }

/* The number of the group named p[off..off+len) among those named so far,
** 0 when none; '*slot': where the name goes when it is new. A table, not
** a comparison with every name before: n names were n*n/2 comparisons. */
static size_t named_group(const ep *e, size_t off, size_t len, size_t *slot)
{
    *slot = 0;
    if (!e->cap) return 0;
    const gname *g = groups(e);
    size_t i = (size_t)coax_hash_bytes(e->p + off, len, e->seed) & (e->cap - 1);
    for (; e->byname[i]; i = (i + 1) & (e->cap - 1)) {
        const gname *k = &g[e->byname[i] - 1];
        if (k->len == len && !memcmp(e->p + k->off, e->p + off, len)) return e->byname[i];
    }
    *slot = i;
    return 0;
}

/* Adds the last group of e->names (named, new) to the table; false when out of memory. */
static bool name_group(ep *e)
{
    if ((e->named + 1) * 2 > e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 16, *old = e->byname, oldcap = e->cap;
        size_t *t = coax_alloc_raw(e->names.alloc, cap * sizeof *t);
        if (!t) return false;
        memset(t, 0, cap * sizeof *t);
        e->byname = t;
        e->cap = cap;
        if (!e->seed) e->seed = coax_hash_seed(e);
        for (size_t i = 0; i < oldcap; i++) {
            if (!old[i]) continue;
            const gname *g = &groups(e)[old[i] - 1];
            size_t at;
            named_group(e, g->off, g->len, &at);
            t[at] = old[i];
        }
        coax_free_raw(e->names.alloc, old, oldcap * sizeof *old);
    }
    const gname *g = &groups(e)[e->ngroups];
    size_t at;
    named_group(e, g->off, g->len, &at);
    e->byname[at] = e->ngroups + 1;
    e->named++;
    return true;
}

/* The group number of a name, 0 when none (second pass only). */
static size_t group_of(const ep *e, size_t off, size_t len)
{
    size_t slot;
    return named_group(e, off, len, &slot);
}

static bool group(ep *e)
{
    e->i++; /* ( */
    bool look = false;
    if (peek(e) == '?') {
        e->i++;
        int c = peek(e);
        if (c == ':') {
            e->i++;
            put(e, "(?:");
        } else if (c == '=' || c == '!') {
            e->i++;
            put(e, c == '=' ? "(?=" : "(?!");
            look = true;
        } else if (c == '<' && (peek2(e) == '=' || peek2(e) == '!')) {
            put(e, peek2(e) == '=' ? "(?<=" : "(?<!");
            e->i += 2;
            look = true;
        } else if (c == '<') {
            e->i++;
            size_t off, len;
            if (!group_name(e, &off, &len)) return false;
            if (!e->pass2) {
                size_t slot;
                if (named_group(e, off, len, &slot)) return fail(e, "duplicate group name");
                gname ng = {off, len};
                coax_buf_put(&e->names, &ng, sizeof ng);
                /* out of memory: the pass goes on and the translation fails with ENOMEM */
                if (!e->names.oom && !name_group(e)) e->names.oom = true;
            }
            e->ngroups++;
            put(e, "(");
        } else {
            return fail(e, "invalid group: (? must be followed by :, =, !, <=, <! or <name>");
        }
    } else {
        if (!e->pass2) {
            gname ng = {0, 0};
            coax_buf_put(&e->names, &ng, sizeof ng);
        }
        e->ngroups++;
        put(e, "(");
    }
    if (++e->depth > MAX_NEST) return fail(e, "groups nested too deeply");
    if (!disjunction(e)) return false;
    e->depth--;
    if (peek(e) != ')') return fail(e, "missing ')'");
    e->i++;
    put(e, ")");
    if (look && is_quant_start(e)) return fail(e, "a lookaround assertion cannot be repeated");
    return true;
}

static bool backref(ep *e, size_t k)
{
    if (e->pass2) {
        if (k == 0 || k > e->total) return fail(e, "back reference to a group that does not exist");
        if (e->out) coax_buf_printf(e->out, "\\g{%zu}", k);
    }
    return true;
}

static bool term(ep *e)
{
    int c = peek(e);
    size_t at = e->i;
    switch (c) {
    case '^':
        e->i++;
        put(e, "^");
        if (is_quant_start(e)) return fail(e, "nothing to repeat");
        return true;
    case '$':
        e->i++;
        put(e, "\\z");
        if (is_quant_start(e)) return fail(e, "nothing to repeat");
        return true;
    case '(':
        if (!group(e)) return false;
        break;
    case '[':
        if (!char_class(e)) return false;
        break;
    case '.':
        e->i++;
        put(e, "[^\\n\\r\\x{2028}\\x{2029}]");
        break;
    case '*': case '+': case '?': case '{':
        return fail(e, "nothing to repeat");
    case ']': case '}':
        return fail(e, c == ']' ? "lone ']' (escape it as \\])" : "lone '}' (escape it as \\})");
    case '\\': {
        e->i++;
        int d = peek(e);
        if (d < 0) return fail(e, "pattern ends with a backslash");
        if (d == 'b' || d == 'B') {
            e->i++;
            put(e, d == 'b' ? "\\b" : "\\B");
            if (is_quant_start(e)) return fail(e, "nothing to repeat");
            return true;
        }
        const char *m = class_escape_members(d);
        if (m) {
            e->i++;
            if (e->out) coax_buf_printf(e->out, "[%s]", m);
        } else if (d == 'p' || d == 'P') {
            e->i++;
            put(e, "[");
            if (!property(e, d == 'P')) return false;
            put(e, "]");
        } else if (d >= '1' && d <= '9') {
            uint32_t k;
            digits(e, &k);
            if (!backref(e, k)) return false;
        } else if (d == 'k') {
            e->i++;
            if (peek(e) != '<') return fail(e, "\\k must be followed by <name>");
            e->i++;
            size_t off, len;
            if (!group_name(e, &off, &len)) return false;
            if (e->pass2) {
                size_t k = group_of(e, off, len);
                if (!k) {
                    e->i = at;
                    return fail(e, "\\k names a group that does not exist");
                }
                if (!backref(e, k)) return false;
            }
        } else {
            uint32_t cp;
            if (!char_escape(e, false, &cp)) return false;
            if (is_surrogate(cp)) put(e, "(?!)");
            else put_cp(e, cp);
        }
        break;
    }
    default: {
        uint32_t cp;
        size_t k = coax_utf8_decode(e->p + e->i, e->n - e->i, &cp);
        if (!k) return fail(e, "invalid UTF-8");
        e->i += k;
        put_cp(e, cp);
        break;
    }
    }
    if (is_quant_start(e)) return quantifier(e);
    return true;
}

static bool disjunction(ep *e)
{
    for (;;) {
        while (more(e) && peek(e) != '|' && peek(e) != ')')
            if (!term(e)) return false;
        if (peek(e) != '|') return true;
        e->i++;
        put(e, "|");
    }
}

static bool run(ep *e)
{
    e->i = 0;
    e->depth = 0;
    e->ngroups = 0;
    if (!disjunction(e)) return false;
    if (more(e)) return fail(e, "unmatched ')'");
    return true;
}

coax_code coax_ecma_translate(const char *p, size_t len, coax_buf *out, const coax_allocator *alloc,
                              coax_error *err)
{
    ep e;
    memset(&e, 0, sizeof e);
    e.p = (const unsigned char *)p;
    e.n = len;
    coax_buf_init(&e.names, alloc);
    coax_code rc = COAX_OK;
    bool ok = run(&e);
    if (ok && e.names.oom) {
        rc = coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    } else if (ok) {
        e.total = e.ngroups;
        e.pass2 = true;
        e.out = out;
        ok = run(&e);
        if (out && out->oom) rc = coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    }
    if (!ok && !rc)
        rc = coax_fail(err, COAX_EINVAL, e.at, "not an ECMA-262 regular expression: %s at offset %zu", e.why,
                       e.at);
    coax_buf_free(&e.names);
    coax_free_raw(alloc, e.byname, e.cap * sizeof *e.byname);
    return rc;
}
