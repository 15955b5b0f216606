/*
** contradicted.c: prose beside the answer that gives one of its members
** another value. `{"age": 36}` and then "The age is 37.", "Age: 37", "The
** correct age is 37." or, before it, "Ada's age is 37. {...}": the reply
** says two values for one thing, and which it means is a guess. No word of
** correction needs to be there; the value differing is the correction.
**
** A statement is a subject, a link and a value. The subject is the words
** just before the link in their clause, a member's name (any case, its
** parts as words: first_name is "first name"), opening the clause or after
** a determiner, a possessive or a word of correction ("the max age" names
** max_age, not age). The link is ":", "=", "is", "was" or their like in
** the other languages the prose rules read; the value a number, true,
** false or a quoted string, alone (not "37%", "36-37", "3.5.1", "15
** percent", "1.5 hours", "35 last year"). A name the answer holds with one
** value is compared with it; a subject of a word of correction and a noun
** the answer does not hold ("The correct value is 37", "La edad correcta es
** 37") with each of the answer's scalars. A sentence that supposes, asks,
** gives an example, tells another's words or another time states nothing,
** nor a value called wrong ("age: 37 would be wrong", "37 is a typo").
** The same reading tells retract.c whether words that take a value back
** settle on the answer (extract_settles_on_answer). The words statements
** are read by: statement_words.c.
*/
#include "extract/retract.h"
#include "extract/prose_table.h"
#include "extract/statement_words.h"

#include <string.h>

/* How far from the answer the look goes, as retract.c's: a restatement
** sits right beside it. */
#define CONTRADICTED_LOOK 400
/* Statements read in a window: a bound on the answer's walk, which
** compares each of its names with each statement's. */
#define STATEMENTS_MOST 16
#define NAME_MOST 48
#define WORDS_BACK 4

typedef struct word { size_t at, n; } word;

typedef struct statement {
    size_t at;                       /* where its subject starts */
    char name[3][NAME_MOST];         /* the last one, two and three words joined; "" where not a subject */
    size_t nlen[3];
    bool correcting, generic;        /* a word of correction; its noun "value", "answer" */
    coax_type type;                  /* COAX_NUMBER, COAX_STRING, COAX_BOOL, COAX_NULL */
    const char *text;                /* a string's bytes */
    size_t len;
    char num[64];                    /* a number, its group commas and '+' left out */
    bool truth;
    const coax_value *named[3];      /* per name: the member value found, its first */
    bool clash[3];                   /* per name: found with values that differ */
    bool held;                       /* its value is one of the answer's scalars */
    const char *owner;               /* a proper name it is about: "Bob's age", "Bob (age: 40)" */
    size_t olen;
    bool owned;                      /* the object of its member is the owner's, by a string or its key */
    bool names;                      /* the object of its member holds a proper name, a string in capitals */
    const coax_value *owner_seen;    /* the last object owner_in read */
    bool owner_here;                 /* whether owner_seen is the owner's (or names no one) */
    bool other;                      /* its subject is another's: "the other person's age" */
    const char *rest;                /* its sentence after the value */
    size_t rlen;
} statement;

/* Whether the comma at text[q] groups thousands: three digits after it, no fourth. */
static bool grouped(const char *text, size_t q, size_t e)
{
    if (e - q < 4) return false;
    for (size_t i = 1; i <= 3; i++)
        if (!is_digit(text[q + i])) return false;
    return q + 4 == e || !is_digit(text[q + 4]);
}

#define IN(s, n, table) coax_word_in(s, n, table, sizeof table / sizeof *table)

/* Whether the UTF-8 sequence at s[0..] is punctuation (General
** Punctuation, arrows and mathematical operators, CJK symbols, full-width
** forms) or shows nothing (a byte order mark, U+2060) rather than a letter. */
static bool wide_mark(const unsigned char *s, size_t left)
{
    if (left < 3) return true;
    return (s[0] == 0xE2 && (s[1] == 0x80 || s[1] == 0x81 || (s[1] >= 0x86 && s[1] <= 0x8B))) ||
           (s[0] == 0xE3 && s[1] == 0x80) ||
           (s[0] == 0xEF && (s[1] == 0xBC || (s[1] == 0xBB && s[2] == 0xBF)));
}

/* The length of the letter or apostrophe at text[p], 0 when none: ASCII
** letters and digits, ' and U+2019 inside a word, a letter past ASCII. */
static size_t letter(const char *text, size_t p, size_t e)
{
    unsigned char ch = (unsigned char)text[p];
    if (coax_ascii_alnum(ch) || ch == '\'') return 1;
    if (ch < 0xC0) return 0;
    size_t n = ch >= 0xF0 ? 4 : ch >= 0xE0 ? 3 : 2;
    if (p + n > e) return 0;
    if (n == 3 && !memcmp(text + p, "\xE2\x80\x99", 3)) return 3; /* ’ */
    return n == 3 && wide_mark((const unsigned char *)text + p, e - p) ? 0 : n;
}

/* s in lower case past ASCII too, as coerce_norm_key leaves it in ASCII:
** Latin-1's capitals ("Âge") and Cyrillic's ("Возраст"), their lengths the same. */
static void fold(char *s)
{
    for (unsigned char *u = (unsigned char *)s; *u; u++) {
        if (u[0] == 0xC3 && u[1] >= 0x80 && u[1] <= 0x9E && u[1] != 0x97) u[1] += 0x20; /* not × */
        else if (u[0] == 0xD0 && u[1] >= 0x90 && u[1] <= 0x9F) u[1] += 0x20;
        else if (u[0] == 0xD0 && u[1] >= 0xA0 && u[1] <= 0xAF) u[0] = 0xD1, u[1] -= 0x20;
        else if (u[0] == 0xD0 && u[1] >= 0x80 && u[1] <= 0x8F) u[0] = 0xD1, u[1] += 0x10; /* Ё */
        else continue;
        u++;
    }
}

/* The link at text[p..e): its length with the spaces after it, 0 when
** none. ":" and "=" need no space before the value. */
static size_t link_at(const char *text, size_t p, size_t e)
{
    static const char *const words[] = {
        "is equal to", "is", "was", "should be", "should read", "must be", "has to be", "needs to be", "equals", "amounts to", "comes to", "stands at", "totals",
        "es de", "es igual a", "es", "era", "est de", "est égal à", "est", "était", "ist gleich", "ist", "war",
        "beträgt", "é de", "é", "è di", "è pari a", "è", "равен", "равна", "равно", "составляет"};
    size_t n = 0;
    if (e - p >= 3 && (!memcmp(text + p, "\xE2\x86\x92", 3) || /* → */
                       ((!memcmp(text + p, "\xE2\x80\x94", 3) || !memcmp(text + p, "\xE2\x80\x93", 3)) &&
                        e - p > 3 && text[p + 3] == ' '))) /* "Возраст — 37", "Age – 37" */
        n = 3;
    else if (e - p >= 2 && (text[p] == '-' || text[p] == '=') && text[p + 1] == '>') n = 2; /* -> => */
    else if (text[p] == ':' || text[p] == '=') n = 1;
    else if (e - p >= 3 && !memcmp(text + p, "\xEF\xBC\x9A", 3)) n = 3; /* ： */
    else
        for (size_t i = 0; !n && i < sizeof words / sizeof *words; i++) {
            size_t wl = matched(text, p, e, words[i]); /* a run of blanks for each space: "amounts<NBSP>to" */
            bool spaced = wl && wl < e - p && (text[p + wl] == ' ' || text[p + wl] == '\t' || text[p + wl] == ':');
            if (spaced) n = wl + (text[p + wl] == ':'); /* "is: 37" */
        }
    if (!n) return 0;
    size_t q = p + n;
    while (q < e && (text[q] == ' ' || text[q] == '\t')) q++;
    if (n > 1 || text[p] == '=' || (unsigned char)text[p] == 0xEF) { /* an adverb after a word: "is now 37" */
        static const coax_word adverbs[] = {COAX_WORD("now"),       COAX_WORD("exactly"), COAX_WORD("really"),
                                            COAX_WORD("precisely"), COAX_WORD("indeed"),  COAX_WORD("just"),
                                            COAX_WORD("actually")};
        size_t r = q;
        while (r < e && coax_ascii_alpha((unsigned char)text[r])) r++;
        if (r < e && (text[r] == ' ' || text[r] == '\t') && IN(text + q, r - q, adverbs))
            for (q = r; q < e && (text[q] == ' ' || text[q] == '\t');) q++;
    }
    return q - p;
}

/* Whether text[p] ends a value: not a letter, digit, '%', nor '.', ',',
** '-', '/', ':' before a digit ("37%", "3.5.1", "36-37", "12:30"). */
static bool value_ends(const char *text, size_t p, size_t e)
{
    if (p >= e) return true;
    unsigned char ch = (unsigned char)text[p];
    if (ch >= 0x80) /* "37。", "37岁", "37歳", not "37°", "1万" */
        return wide_mark((const unsigned char *)text + p, e - p) ||
               (e - p >= 3 && (!memcmp(text + p, "\xE5\xB2\x81", 3) || !memcmp(text + p, "\xE6\xAD\xB3", 3) ||
                               !memcmp(text + p, "\xE5\x85\x83", 3) || !memcmp(text + p, "\xE5\x86\x86", 3) ||
                               !memcmp(text + p, "\xE4\xB8\xAA", 3) || !memcmp(text + p, "\xE4\xBA\xBA", 3)));
    if (coax_ascii_alnum(ch) || ch == '%' || ch == '_') return false;
    return !(coax_byte_in(".,-/:", ch) && p + 1 < e && is_digit(text[p + 1]));
}

/* Whether an operator follows the number ending at text[p]: "age = 2024 -
** 1988 = 36" works a value out, and its first number is none of it. */
static bool operated(const char *text, size_t p, size_t e)
{
    while (p < e && text[p] == ' ') p++;
    if (p >= e) return false;
    if (e - p >= 2 && (!memcmp(text + p, "\xC3\x97", 2) || !memcmp(text + p, "\xC3\xB7", 2))) return true; /* × ÷ */
    if ((e - p >= 3 && !memcmp(text + p, "\xE2\x86\x92", 3)) ||
        (e - p >= 2 && (text[p] == '-' || text[p] == '=') && text[p + 1] == '>'))
        return true; /* "Age: 35 → 36" tells a change */
    if (!text[p] || !coax_byte_in("+-*/x^", text[p])) return false;
    p++;
    while (p < e && text[p] == ' ') p++;
    return p < e && (is_digit(text[p]) || coax_ascii_alpha((unsigned char)text[p]) || text[p] == '(');
}

/* Whether what follows the value ending at text[p] makes it no value of
** the member as it stands: a sign or word of scale ("15 %", "15 percent",
** "1 million", "1 000", "68 °F"), a unit of a measure with several ("1.5
** hours", "5.9 feet"; a year or a currency has one), or a word that
** qualifies it, next to it or after a unit ("35 last year", "90 before
** tax", "0.15 as a fraction", "90 dollars plus tax"): another unit, time or
** part than the answer's. */
static bool qualified(const char *text, size_t p, size_t e)
{
    static const coax_word scales[] = {
        COAX_WORD("percent"),   COAX_WORD("pct"),       COAX_WORD("percentage"), COAX_WORD("hundred"),
        COAX_WORD("thousand"),  COAX_WORD("million"),   COAX_WORD("billion"),    COAX_WORD("trillion"),
        COAX_WORD("dozen"),     COAX_WORD("mil"),       COAX_WORD("millón"),     COAX_WORD("millones"),
        COAX_WORD("millions"),  COAX_WORD("milliard"),  COAX_WORD("milliards"),  COAX_WORD("millionen"),
        COAX_WORD("milliarde"), COAX_WORD("milliarden"), COAX_WORD("tausend"),   COAX_WORD("mille"),
        COAX_WORD("milione"),   COAX_WORD("milioni"),   COAX_WORD("prozent"),    COAX_WORD("percento"),
        COAX_WORD("процент"),   COAX_WORD("процента"),  COAX_WORD("процентов"),  COAX_WORD("тысяч"),
        COAX_WORD("миллион"),   COAX_WORD("миллиона"),  COAX_WORD("миллионов")};
    /* units of a measure with other scales: "1.5 hours" may be the answer's 90 minutes */
    static const coax_word units[] = {
        COAX_WORD("ms"),      COAX_WORD("sec"),     COAX_WORD("secs"),   COAX_WORD("second"), COAX_WORD("seconds"),
        COAX_WORD("min"),     COAX_WORD("mins"),    COAX_WORD("minute"), COAX_WORD("minutes"), COAX_WORD("h"),
        COAX_WORD("hr"),      COAX_WORD("hrs"),     COAX_WORD("hour"),   COAX_WORD("hours"),  COAX_WORD("day"),
        COAX_WORD("days"),    COAX_WORD("week"),    COAX_WORD("weeks"),  COAX_WORD("mm"),     COAX_WORD("cm"),
        COAX_WORD("m"),       COAX_WORD("km"),      COAX_WORD("meter"),  COAX_WORD("meters"), COAX_WORD("metre"),
        COAX_WORD("metres"),  COAX_WORD("inch"),    COAX_WORD("inches"), COAX_WORD("ft"),     COAX_WORD("foot"),
        COAX_WORD("feet"),    COAX_WORD("yd"),      COAX_WORD("yards"),  COAX_WORD("mi"),     COAX_WORD("mile"),
        COAX_WORD("miles"),   COAX_WORD("mg"),      COAX_WORD("g"),      COAX_WORD("grams"),  COAX_WORD("kg"),
        COAX_WORD("kilograms"), COAX_WORD("lb"),    COAX_WORD("lbs"),    COAX_WORD("oz"),     COAX_WORD("ounces"),
        COAX_WORD("ml"),      COAX_WORD("l"),       COAX_WORD("liters"), COAX_WORD("litres"), COAX_WORD("gallons"),
        COAX_WORD("kb"),      COAX_WORD("mb"),      COAX_WORD("gb"),     COAX_WORD("tb"),     COAX_WORD("bytes"),
        COAX_WORD("stunden"), COAX_WORD("minuten"), COAX_WORD("horas"),  COAX_WORD("minutos"), COAX_WORD("heures"),
        COAX_WORD("часа"),    COAX_WORD("часов"),   COAX_WORD("минут")};
    static const coax_word qualifiers[] = {
        COAX_WORD("next"),      COAX_WORD("last"),      COAX_WORD("ago"),        COAX_WORD("before"),
        COAX_WORD("after"),     COAX_WORD("in"),        COAX_WORD("as"),         COAX_WORD("by"),
        COAX_WORD("per"),       COAX_WORD("plus"),      COAX_WORD("minus"),      COAX_WORD("times"),
        COAX_WORD("from"),      COAX_WORD("since"),     COAX_WORD("until"),      COAX_WORD("when"),
        COAX_WORD("if"),        COAX_WORD("once"),      COAX_WORD("excluding"),  COAX_WORD("including"),
        COAX_WORD("without"),   COAX_WORD("with"),      COAX_WORD("at"),         COAX_WORD("on"),
        COAX_WORD("for"),       COAX_WORD("of"),        COAX_WORD("earlier"),    COAX_WORD("previously"),
        COAX_WORD("originally"), COAX_WORD("initially"), COAX_WORD("over"),      COAX_WORD("under"),
        COAX_WORD("out"),       COAX_WORD("than"),      COAX_WORD("to"),         COAX_WORD("antes"),
        COAX_WORD("después"),   COAX_WORD("en"),        COAX_WORD("avant"),      COAX_WORD("après"),
        COAX_WORD("vor"),       COAX_WORD("nach"),      COAX_WORD("im"),         COAX_WORD("seit"),
        COAX_WORD("prima"),     COAX_WORD("dopo"),      COAX_WORD("depois"),     COAX_WORD("em"),
        COAX_WORD("por"),       COAX_WORD("pour"),      COAX_WORD("para"),       COAX_WORD("más"),
        COAX_WORD("menos"),     COAX_WORD("moins"),     COAX_WORD("до"),         COAX_WORD("после"),
        COAX_WORD("pasado"),    COAX_WORD("anterior"),  COAX_WORD("dernière"),   COAX_WORD("dernier"),
        COAX_WORD("letztes"),   COAX_WORD("letzten"),   COAX_WORD("scorso"),     COAX_WORD("passado"),
        COAX_WORD("older"),     COAX_WORD("younger"),   COAX_WORD("more"),       COAX_WORD("less"),
        COAX_WORD("fewer"),     COAX_WORD("higher"),    COAX_WORD("lower"),      COAX_WORD("above"),
        COAX_WORD("below"),     COAX_WORD("greater"),   COAX_WORD("smaller"),    COAX_WORD("larger")};
    static const coax_word denying[] = {COAX_WORD("instead"), COAX_WORD("rather"), COAX_WORD("not")};
    /* what a parenthesis after the value says it is: "1 (default)", "30 (e.g.)" */
    static const coax_word kinds[] = {COAX_WORD("default"), COAX_WORD("example"), COAX_WORD("sample"),
                                      COAX_WORD("e"),       COAX_WORD("min"),     COAX_WORD("max"),
                                      COAX_WORD("minimum"), COAX_WORD("maximum"), COAX_WORD("typical"),
                                      COAX_WORD("average"), COAX_WORD("avg"),     COAX_WORD("original"),
                                      COAX_WORD("old"),     COAX_WORD("previous"), COAX_WORD("former"),
                                      COAX_WORD("limit"),   COAX_WORD("placeholder")};
    for (int w = 0; w < 3; w++) {
        size_t q = p;
        while (q < e && (text[q] == ' ' || text[q] == '\t')) q++;
        if (!w && q < e && text[q] == '(') { /* "1 (default)", "35 (last year)", not "37 (corrected)" */
            size_t r = ++q, l;
            while (r < e && (l = letter(text, r, e))) r += l;
            return IN(text + q, r - q, kinds) || IN(text + q, r - q, qualifiers) || IN(text + q, r - q, scales) ||
                   IN(text + q, r - q, units);
        }
        if (q == p || q >= e) return false;
        if (!w && (is_digit(text[q]) || text[q] == '%' || (e - q >= 2 && !memcmp(text + q, "\xC2\xB0", 2)) ||
                   (e - q >= 3 && (!memcmp(text + q, "\xE2\x80\xB0", 3) || !memcmp(text + q, "\xE2\x84\x83", 3) ||
                                   !memcmp(text + q, "\xE2\x84\x89", 3)))))
            return true; /* "1 000", "15 %", "68 °F", "‰", "℃", "℉" */
        size_t r = q, l;
        while (r < e && (l = letter(text, r, e))) r += l;
        if (r == q || IN(text + q, r - q, denying)) return false; /* "15 instead of 12": 15 stands */
        if (IN(text + q, r - q, qualifiers) || (!w && (IN(text + q, r - q, scales) || IN(text + q, r - q, units))))
            return true;
        p = r;
    }
    return false;
}

/* Whether number s[0..n) may be thousands grouped by a dot, as Spanish or
** German write them: "1.999" is 1999 there and 1.999 here. */
static bool dot_grouped(const char *s, size_t n)
{
    size_t i = s[0] == '-';
    if (i >= n || s[i] == '0') return false;
    size_t whole = i;
    while (whole < n && is_digit(s[whole])) whole++;
    return whole - i <= 3 && whole + 4 == n && s[whole] == '.' && is_digit(s[n - 1]) && is_digit(s[n - 2]) &&
           is_digit(s[n - 3]);
}

/* The value at text[p..e) into st: true when one is there, alone. */
static bool read_value(const char *text, size_t p, size_t e, statement *st)
{
    size_t start = p;
    while (p < e && (text[p] == '*' || text[p] == '`' || text[p] == '_')) p++; /* **37**, `37` */
    if (p > start && p < e && text[p] == ' ' && text[p - 1] == '*') /* "**Age:** 37": the markup closed the name */
        while (p < e && (text[p] == ' ' || text[p] == '*' || text[p] == '`')) p++;
    if (p >= e) return false;
    char ch = text[p];
    if (ch == '"' || (e - p >= 3 && !memcmp(text + p, "\xE2\x80\x9C", 3))) {
        size_t open = ch == '"' ? 1 : 3, q = p + open;
        while (q < e && q - p < 200 && text[q] != '\n' && text[q] != '"' &&
               !(e - q >= 3 && !memcmp(text + q, "\xE2\x80\x9D", 3)))
            q++;
        if (q >= e || text[q] == '\n' || q - p >= 200 || qualified(text, q + (text[q] == '"' ? 1 : 3), e))
            return false; /* "inactive" in the old record */
        st->type = COAX_STRING, st->text = text + p + open, st->len = q - p - open;
        return true;
    }
    if (e - p >= 4 && (coax_ascii_casesame(text + p, "true", 4) || coax_ascii_casesame(text + p, "null", 4) ||
                       (e - p >= 5 && coax_ascii_casesame(text + p, "false", 5)))) { /* Python's True, False */
        size_t n = (ch | 32) == 'f' ? 5 : 4;
        if (!value_ends(text, p + n, e) || qualified(text, p + n, e) || ((ch | 32) == 'n' && ch != 'n'))
            return false; /* "null if unknown"; "Null" is a word, "None" no literal */
        st->type = (ch | 32) == 'n' ? COAX_NULL : COAX_BOOL, st->truth = (ch | 32) == 't';
        return true;
    }
    size_t q = p, o = 0, cap = sizeof st->num - 1;
    bool dot = false, exp = false;
    if (text[q] == '-' || text[q] == '+') {
        if (text[q] == '-') st->num[o++] = '-';
        q++;
    }
    if (q >= e || !is_digit(text[q])) return false;
    while (q < e && o < cap) {
        char c = text[q];
        if (is_digit(c)) st->num[o++] = c, q++;
        else if (c == ',' && !dot && !exp && grouped(text, q, e)) q++; /* 1,234 */
        else if (c == ',' && !dot && !exp && q + 1 < e && is_digit(text[q + 1]))
            dot = true, st->num[o++] = '.', q++; /* a decimal comma, "12,50" as German writes 12.50 */
        else if (c == '.' && !dot && !exp && q + 1 < e && is_digit(text[q + 1])) dot = true, st->num[o++] = c, q++;
        else if ((c | 32) == 'e' && !exp && q + 1 < e &&
                 (is_digit(text[q + 1]) ||
                  ((text[q + 1] == '+' || text[q + 1] == '-') && q + 2 < e && is_digit(text[q + 2])))) {
            exp = true, st->num[o++] = c, q++;
            if (!is_digit(text[q])) st->num[o++] = text[q++];
        } else break;
    }
    bool is_int;
    if (o >= cap || !value_ends(text, q, e) || coax_number_span(st->num, o, &is_int) != o || operated(text, q, e) ||
        qualified(text, q, e) || dot_grouped(st->num, o))
        return false;
    st->num[o] = '\0';
    st->type = COAX_NUMBER, st->text = st->num, st->len = o, st->rest = text + q;
    return true;
}

/* A table cell's words text[p..end) as a string value into st: a cell needs no
** quotes ("| name | Bob |"); not one of digits, which read_value reads or leaves
** ("35 → 36", "36-37"), nor one longer than a name. */
static bool cell_text(const char *text, size_t p, size_t end, statement *st)
{
    while (end > p && coax_byte_in(" \t*_`", text[end - 1])) end--;
    while (p < end && coax_byte_in("*_`", text[p])) p++;
    if (p == end || end - p > 200) return false;
    for (size_t q = p; q < end; q++)
        if (is_digit(text[q])) return false;
    st->type = COAX_STRING, st->text = text + p, st->len = end - p;
    return true;
}

/* The scan's state: the words of the clause so far, the last WORDS_BACK
** of them, and whether its sentence supposes. */
typedef struct scan {
    const char *text;
    size_t e, sentence;
    word ring[WORDS_BACK];
    size_t nw, clause; /* words in the ring; words in the clause */
    bool supposed;
    statement *st;
    size_t n;
    word paren;   /* the word before an open parenthesis: "Bob (age: 40)" */
    bool chained; /* the clause follows an arrow */
    size_t cell_end; /* a table's cell holds the value: where it ends; 0 elsewhere */
} scan;

/* Where the word text[p..q) ends when it opens with an elided article
** ("l'âge", "dell’età": the article is a word of its own), else q. */
static size_t elided(const char *text, size_t p, size_t q)
{
    static const coax_word articles[] = {COAX_WORD("l"),    COAX_WORD("d"),    COAX_WORD("dell"),
                                         COAX_WORD("nell"), COAX_WORD("sull"), COAX_WORD("dall")};
    for (size_t a = p + 1; a < q && a - p <= 4; a++)
        if (text[a] == '\'' || (q - a >= 3 && !memcmp(text + a, "\xE2\x80\x99", 3)))
            return IN(text + p, a - p, articles) && a + (text[a] == '\'' ? 1 : 3) < q ? a : q;
    return q;
}

/* A character of Chinese or Japanese, a word of its own (no spaces). */
static bool cjk(const char *text, size_t p, size_t e)
{
    unsigned char ch = (unsigned char)text[p];
    return ch >= 0xE3 && ch <= 0xE9 && !wide_mark((const unsigned char *)text + p, e - p);
}

/* Whether the sentence before text[p] corrects in Chinese or Japanese ("正确的年龄是37"). */
static bool cjk_correcting(const char *text, size_t from, size_t p)
{
    static const char *const words[] = {"正确", "正確", "正しい", "实际", "実際", "真实"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t wl = strlen(words[i]);
        for (size_t q = from; q + wl <= p; q++)
            if (!memcmp(text + q, words[i], wl)) return true;
    }
    return false;
}

/* Whom statement st is about, from the words of its subject: a proper
** name's possessive ("Bob's age") or the name before its parenthesis ("Bob
** (age: 40)"); a word naming another ("the other person's age", "the second
** item's price"); and the rest of its sentence after a number. */
static void about(const scan *sc, statement *st)
{
    static const coax_word others[] = {COAX_WORD("other"),  COAX_WORD("another"),  COAX_WORD("second"),
                                       COAX_WORD("third"),  COAX_WORD("previous"), COAX_WORD("remaining"),
                                       COAX_WORD("each"),   COAX_WORD("every"),    COAX_WORD("otro"),
                                       COAX_WORD("otra"),   COAX_WORD("autre"),    COAX_WORD("andere"),
                                       COAX_WORD("anderen"), COAX_WORD("altro"),   COAX_WORD("altra")};
    /* "It's", "That's": a verb contracted, no possessive */
    static const coax_word contracted[] = {COAX_WORD("it"),    COAX_WORD("that"),  COAX_WORD("what"),
                                           COAX_WORD("here"),  COAX_WORD("there"), COAX_WORD("let"),
                                           COAX_WORD("he"),    COAX_WORD("she"),   COAX_WORD("who"),
                                           COAX_WORD("this"),  COAX_WORD("where"), COAX_WORD("how")};
    const char *t = sc->text;
    for (size_t i = 0; i + 1 < sc->nw; i++) {
        const word *w = &sc->ring[i];
        if (IN(t + w->at, w->n, others)) st->other = true;
        size_t cut = w->n > 2 && t[w->at + w->n - 2] == '\''                                  ? 2
                     : w->n > 4 && !memcmp(t + w->at + w->n - 4, "\xE2\x80\x99", 3) ? 4 /* Bob’s */
                                                                                      : 0;
        if (cut && (t[w->at + w->n - 1] | 32) == 's' && !IN(t + w->at, w->n - cut, contracted))
            st->owner = t + w->at, st->olen = w->n - cut;
    }
    if (!st->owner && sc->paren.n) st->owner = t + sc->paren.at, st->olen = sc->paren.n;
    if (st->owner && !(st->owner[0] >= 'A' && st->owner[0] <= 'Z')) st->owner = NULL; /* "the user's": no name */
    if (st->rest) {
        size_t e = (size_t)(t + sc->e - st->rest), q = 0;
        while (q < e && q < 200 && st->rest[q] != '\n' && st->rest[q] != '!' && st->rest[q] != '?' &&
               st->rest[q] != ';' && !(st->rest[q] == '.' && (q + 1 >= e || st->rest[q + 1] == ' ') &&
                                       !(q && st->rest[q - 1] == '.'))) /* "35... no, 36" goes on */
            q++;
        st->rlen = q;
    }
}

/* Where the value read into st from text[p] ends (its closing quote past). */
static size_t value_end_at(const char *text, size_t p, const statement *st)
{
    if (st->type == COAX_NUMBER) return (size_t)(st->rest - text);
    if (st->type != COAX_STRING) return p + ((text[p] | 32) == 'f' ? 5 : 4);
    size_t q = (size_t)(st->text - text) + st->len;
    return q + (text[q] == '"' ? 1 : 3);
}

/* Whether words at text[p..e), right after a value, call it wrong: "37 would be wrong", "\"37\" is a typo". */
static bool called_wrong(const char *text, size_t p, size_t e)
{
    static const char *const words[] = {"is wrong", "was wrong", "would be wrong", "is incorrect", "was incorrect",
                                        "would be incorrect", "is a typo", "was a typo", "is not right", "isn't right"};
    while (p < e && coax_byte_in(" 	*_`", text[p])) p++;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t n = strlen(words[i]);
        if (e - p >= n && coax_ascii_casesame(text + p, words[i], n) &&
            (e - p == n || !coax_ascii_alpha((unsigned char)text[p + n])))
            return true;
    }
    return false;
}

/* The statement whose link is text[link..value) and whose subject the
** ring holds, when there is one, kept in sc->st. */
static void statement_at(scan *sc, size_t link, size_t value, bool cjk_link)
{
    if (sc->n == STATEMENTS_MOST || sc->supposed) return;
    statement *st = &sc->st[sc->n];
    memset(st, 0, sizeof *st);
    if (!(read_value(sc->text, value, sc->e, st) || (sc->cell_end && cell_text(sc->text, value, sc->cell_end, st))) ||
        sentence_asks(sc->text, value, sc->e) ||
        called_wrong(sc->text, value_end_at(sc->text, value, st), sc->e))
        return;
    const char *t = sc->text;
    const word *w = sc->ring;
    size_t nw = sc->nw;
    if (cjk_link) st->correcting = cjk_correcting(t, sc->sentence, link);
    if (!nw && !st->correcting) return;
    if (nw) {
        const word *last = &w[nw - 1], *prev = nw > 1 ? &w[nw - 2] : NULL;
        /* a CJK link's words are characters: cjk_correcting read its sentence */
        if (!cjk_link && extract_correcting(t + last->at, last->n) && prev) /* "la edad correcta" */
            st->correcting = true, st->generic = extract_generic(t + prev->at, prev->n);
        else if (!cjk_link && prev && extract_correcting(t + prev->at, prev->n)) /* "the correct age" */
            st->correcting = true, st->generic = extract_generic(t + last->at, last->n);
        size_t nn = nw > 1 && extract_field_noun(t + last->at, last->n) ? nw - 1 : nw; /* "the age value" */
        for (size_t j = 1; j <= 3 && j <= nn; j++) {
            const word *pred = j < nn ? &w[nn - j - 1] : NULL;
            if (!pred && nw < sc->clause) break; /* the word before is out of the ring: unknown */
            bool of_field = pred && nn - j >= 2 && pred->n == 2 && coax_ascii_casesame(t + pred->at, "of", 2) &&
                            extract_field_noun(t + w[nn - j - 2].at, w[nn - j - 2].n); /* "the value of age" */
            if (pred && !extract_determiner(t + pred->at, pred->n) && !extract_correcting(t + pred->at, pred->n) &&
                !of_field)
                continue;
            size_t o = 0;
            for (size_t k = nn - j; k < nn && o < NAME_MOST; k++) {
                if (!coerce_norm_key(t + w[k].at, w[k].n, st->name[j - 1] + o, NAME_MOST - o)) o = NAME_MOST;
                else o += strlen(st->name[j - 1] + o);
            }
            st->nlen[j - 1] = o < NAME_MOST ? o : 0;
            fold(st->name[j - 1]);
        }
        if (!st->nlen[0] && !st->nlen[1] && !st->nlen[2] && !st->correcting) return;
    }
    st->at = cjk_link || !nw ? link : w[0].at;
    about(sc, st);
    sc->n++;
}

/* A statement whose value comes first, "37 is the age.", "37 is her correct age": the clause's one
** word a number or a literal after blanks and markup alone in its sentence or after a label's colon,
** the link "is" or "was",
** and a determiner and at most three words more up to the clause's end, its subject. */
static void value_first_at(scan *sc, size_t link, size_t after)
{
    const char *t = sc->text;
    const word v = sc->ring[sc->nw - 1];
    if (!matched(t, link, sc->e, "is") && !matched(t, link, sc->e, "was")) return;
    for (size_t b = v.at; b > sc->sentence && !(t[b - 1] == ':' && b < v.at); b--) /* "Note: 37 is ..." */
        if (!coax_byte_in(" \t*_`>-", t[b - 1])) return; /* not "37.5", "12:30", "v2": the value's start */
    scan tail = *sc;
    tail.nw = 0;
    for (size_t p = after, l; p < sc->e && !coax_byte_in(".!,;)\r\n", t[p]);) {
        if (!(l = letter(t, p, sc->e))) {
            if (!coax_byte_in(" \t*_`", t[p])) return;
            p++;
            continue;
        }
        if (tail.nw == WORDS_BACK) return;
        word *w = &tail.ring[tail.nw++];
        for (w->at = p; p < sc->e && (l = letter(t, p, sc->e));) p += l;
        w->n = p - w->at;
    }
    if (!tail.nw || !extract_determiner(t + tail.ring[0].at, tail.ring[0].n)) return;
    tail.clause = tail.nw;
    statement_at(&tail, link, v.at, false);
    if (tail.n > sc->n) sc->st[sc->n].at = v.at, sc->n = tail.n;
}

/* The link at text[p] in Chinese or Japanese: 是, 为 or は, right before a value. */
static size_t cjk_link_at(const char *text, size_t p, size_t e)
{
    static const char *const links[] = {"是", "为", "は", "為"};
    for (size_t i = 0; i < sizeof links / sizeof *links; i++)
        if (e - p > 3 && !memcmp(text + p, links[i], 3)) return 3;
    return 0;
}

/* The words of a table header's cell text[p..end) into w[]: their count; 0 when it
** holds more than WORDS_BACK or a sign other than markdown's ("| **age** |"). */
static size_t words_of(const char *text, size_t p, size_t end, word *w)
{
    size_t n = 0, l;
    while (p < end) {
        if (!(l = letter(text, p, end))) {
            if (!coax_byte_in(" \t*_`", text[p])) return 0;
            p++;
            continue;
        }
        if (n == WORDS_BACK) return 0;
        w[n].at = p;
        while (p < end && (l = letter(text, p, end))) p += l;
        w[n].n = p - w[n].at, n++;
    }
    return n;
}

/* Statements in text[from..e) into st[]: their count. */
static size_t statements(const char *text, size_t from, size_t e, statement *st)
{
    scan sc = {text, e, from, {{0, 0}}, 0, 0, false, st, 0, {0, 0}, false, 0};
    for (size_t p = from; p < e && sc.n < STATEMENTS_MOST;) {
        size_t l = letter(text, p, e), k;
        if (l && cjk(text, p, e) && (k = cjk_link_at(text, p, e)) && is_digit(text[p + k])) {
            statement_at(&sc, p, p + k, true);
            p += k;
            continue;
        }
        if (l) {
            size_t q = p + l, next;
            if (!cjk(text, p, e))
                while (q < e && (l = letter(text, q, e)) && !cjk(text, q, e)) q += l;
            next = q, q = elided(text, p, q);
            if (sc.clause && (k = link_at(text, p, e)) && q - p < k) {
                statement_at(&sc, p, p + k, false);
                if (sc.clause == 1) value_first_at(&sc, p, p + k);
            }
            if (extract_contrasting(text + p, q - p)) sc.supposed = false;
            if (extract_supposing(text + p, q - p) || extract_elsewhere(text + p, q - p) ||
                extract_time_frame(text, p, q, e) ||
                (q - p == 1 && (text[p] | 32) == 'e' && e - q >= 3 && text[q] == '.' &&
                                               (text[q + 1] | 32) == 'g' && text[q + 2] == '.'))
                sc.supposed = true; /* "e.g." is read a letter at a time */
            if (sc.nw == WORDS_BACK) memmove(sc.ring, sc.ring + 1, (WORDS_BACK - 1) * sizeof *sc.ring), sc.nw--;
            sc.ring[sc.nw++] = (word){p, q - p};
            sc.clause++;
            p = q < next ? q + (text[q] == '\'' ? 1 : 3) : q;
            continue;
        }
        unsigned char ch = (unsigned char)text[p];
        bool ascii_arrow = e - p >= 2 && (ch == '-' || ch == '=') && text[p + 1] == '>';
        bool arrow = ascii_arrow || (e - p >= 3 && !memcmp(text + p, "\xE2\x86\x92", 3));
        /* "input → count → 6 rows": a step of a chain, no statement */
        if (sc.clause && (k = link_at(text, p, e)) && !(arrow && sc.chained)) statement_at(&sc, p, p + k, false);
        if (ch == '|') { /* a table's cell: its row's first names it, or its header (both: "| field | value |") */
            scan cell = sc;
            table_cell tc;
            if (sc.clause && (k = extract_table_pair(text, from, p, e, &cell.cell_end)))
                statement_at(&cell, p, p + k, false);
            if ((k = extract_table_header(text, from, p, e, &tc)) &&
                (cell.nw = cell.clause = words_of(text, tc.name, tc.name_end, cell.ring))) {
                size_t n = cell.n;
                cell.cell_end = tc.end;
                statement_at(&cell, p, p + k, false);
                if (cell.n > n && tc.owner_end) /* the record's row, for the error to name */
                    st[n].owner = text + tc.owner, st[n].olen = tc.owner_end - tc.owner, st[n].at = tc.owner;
            }
            sc.n = cell.n;
        }
        bool stop = ch == '\n' || ch == '!' || ch == '?' || ch == ';' ||
                    /* a full stop, not a decimal point or an abbreviation's ("e.g. age: 30") */
                    (ch == '.' && (p + 1 >= e || text[p + 1] == ' ' || text[p + 1] == '\r' || text[p + 1] == '\n') &&
                     !(sc.nw && sc.ring[sc.nw - 1].n == 1)) ||
                    (e - p >= 3 && (!memcmp(text + p, "\xE3\x80\x82", 3) || !memcmp(text + p, "\xEF\xBC\x81", 3) ||
                                    !memcmp(text + p, "\xEF\xBC\x9F", 3))); /* 。！？ */
        if (stop) sc.supposed = false, sc.sentence = p + 1;
        if (ch == '(') sc.paren = sc.nw ? sc.ring[sc.nw - 1] : (word){0, 0};
        if (ch == ')' || stop) sc.paren = (word){0, 0};
        if (!ch || !coax_byte_in(" \t*_`", ch) || stop) { /* markup and spaces keep the clause */
            sc.chained = arrow;
            p += ascii_arrow; /* past its '>' */
            sc.nw = sc.clause = 0;
        }
        p += ch >= 0xF0 ? 4 : ch >= 0xE0 ? 3 : ch >= 0xC0 ? 2 : 1;
    }
    return sc.n;
}

/* Whether characters x and y run on as one word: two letters or two digits. */
static bool run_on(char x, char y)
{
    return (coax_ascii_alpha((unsigned char)x) && coax_ascii_alpha((unsigned char)y)) || (is_digit(x) && is_digit(y));
}

/* Whether text a[0..n) holds b[0..m) as whole words, in any case: "Ada" of
** "Ada Lovelace", "2" of "v2", not "Ada" of "Adam" nor "23" of "1234". */
static bool holds(const char *a, size_t n, const char *b, size_t m)
{
    for (size_t i = 0; m && m <= n && i <= n - m; i++)
        if ((!i || !run_on(a[i - 1], b[0])) && (i + m == n || !run_on(a[i + m], b[m - 1])) &&
            coax_ascii_casesame(a + i, b, m))
            return true;
    return false;
}

static bool digit_in(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (is_digit(s[i])) return true;
    return false;
}

/* Whether the digits of string s[0..n), its separators left out, are the
** number's ("5551234567" of "555-123-4567"). */
static bool same_digits(const char *s, size_t n, const char *num, size_t m)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_digit(s[i])) {
            if (j >= m || s[i] != num[j]) return false;
            j++;
        } else if (!coax_byte_in(" -.()+/", s[i]) || !s[i]) return false;
    }
    return j == m && m > 0;
}

/* Whether a[0..n) abbreviates b[0..m): a short code in one case or a word
** cut with a full stop ("US" of "United States", "en" of "English", "Dr."
** of "Doctor"), its letters b's in order from its first. */
static bool abbreviates(const char *a, size_t n, const char *b, size_t m)
{
    bool cut = n > 1 && a[n - 1] == '.';
    size_t letters = cut ? n - 1 : n, upper = 0;
    if (letters < 2 || letters > 5 || letters >= m) return false;
    for (size_t i = 0; i < letters; i++) {
        if (!coax_ascii_alpha((unsigned char)a[i])) return false;
        upper += a[i] >= 'A' && a[i] <= 'Z';
    }
    if (!cut && upper < letters && (upper || letters > 3)) return false;
    if ((a[0] | 32) != (b[0] | 32)) return false;
    size_t i = 1;
    for (size_t j = 1; i < letters && j < m; j++)
        if ((a[i] | 32) == (b[j] | 32)) i++;
    return i == letters;
}

/* Whether scalar v and the statement's value say the same: one number, one
** string (in any case, or one holding the other: "Paris" of "Paris,
** France"), one truth. */
static bool same(const coax_value *v, const statement *st)
{
    bool is_int;
    if (st->type == COAX_NULL) return v->type == COAX_NULL;
    switch ((coax_type)v->type) {
    case COAX_NUMBER:
        if (st->type == COAX_STRING && coax_number_span(st->text, st->len, &is_int) != st->len) return false;
        return st->type != COAX_BOOL && !coax_number_compare_text(v->u.text, v->len, st->text, st->len);
    case COAX_STRING:
        if (st->type == COAX_NUMBER && same_digits(v->u.text, v->len, st->text, st->len)) return true;
        if (st->type == COAX_STRING &&
            (abbreviates(v->u.text, v->len, st->text, st->len) || abbreviates(st->text, st->len, v->u.text, v->len)))
            return true;
        return st->type != COAX_BOOL && (holds(v->u.text, v->len, st->text, st->len) ||
                                         (st->type == COAX_STRING && holds(st->text, st->len, v->u.text, v->len)));
    case COAX_BOOL: return st->type == COAX_BOOL && !v->u.boolean == !st->truth;
    default: return false;
    }
}

/* Whether the rest of a statement's sentence arrives at the answer's number
** v, a word or sign of change or result right before it: "Price: 15,
** discounted to 12", "The price was 15 and is now 12", "x = 4 / 2, so x = 2".
** The answer's number cited otherwise ("36 was a mistake", "the JSON says
** 36", "not 36", "instead of 36") arrives nowhere. */
static bool arrives(const char *s, size_t n, const coax_value *v)
{
    static const coax_word cues[] = {COAX_WORD("to"),     COAX_WORD("now"),   COAX_WORD("is"),
                                     COAX_WORD("becomes"), COAX_WORD("became"), COAX_WORD("so"),
                                     COAX_WORD("then"),   COAX_WORD("gives"), COAX_WORD("giving"),
                                     COAX_WORD("equals"), COAX_WORD("makes"), COAX_WORD("hence"),
                                     COAX_WORD("thus"),   COAX_WORD("es"),    COAX_WORD("ist"),
                                     COAX_WORD("est"),    COAX_WORD("auf"),   COAX_WORD("a"),
                                     COAX_WORD("no")}; /* "35... no, 36": a draft, then the answer */
    for (size_t q = 0; q < n; q++) {
        if (!is_digit(s[q]) || (q && (coax_ascii_alnum((unsigned char)s[q - 1]) || s[q - 1] == '.'))) continue;
        char num[64];
        size_t o = 0, r = q;
        for (; r < n && o < sizeof num - 1 && (is_digit(s[r]) || ((s[r] == '.' || s[r] == ',') && r + 1 < n &&
                                                                  is_digit(s[r + 1])));
             r++)
            if (s[r] != ',') num[o++] = s[r];
        if ((r >= n || !coax_ascii_alnum((unsigned char)s[r])) && !coax_number_compare_text(v->u.text, v->len, num, o)) {
            size_t b = q, a;
            while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == ',')) b--;
            if (b > 0 && (s[b - 1] == '=' || s[b - 1] == '>' || (b >= 3 && !memcmp(s + b - 3, "\xE2\x86\x92", 3))))
                return true; /* "= 12", "→ 12" */
            for (a = b; a > 0 && coax_ascii_alpha((unsigned char)s[a - 1]);) a--;
            if (a < b && IN(s + a, b - a, cues)) return true;
        }
        q = r;
    }
    return false;
}

/* Whether two scalars of the answer are one value. */
static bool same_scalar(const coax_value *a, const coax_value *b)
{
    if (a->type != b->type) return false;
    if (a->type == COAX_BOOL) return !a->u.boolean == !b->u.boolean;
    if (a->type == COAX_NUMBER) return !coax_number_compare_text(a->u.text, a->len, b->u.text, b->len);
    return a->type == COAX_NULL || (a->len == b->len && !memcmp(a->u.text, b->u.text, a->len));
}

/* Whether object v, a member named st's subject, is the statement's owner's:
** its key ("User's age" of {"user": {...}}) or a string of it names the
** owner; and whether a string of it is a proper name, someone else's then. */
static void owner_in(const coax_value *v, const coax_member *parent, statement *st)
{
    st->owner_seen = v;
    bool names = false, owned = parent && parent->klen == st->olen &&
                                coax_ascii_casesame(parent->key, st->owner, st->olen);
    for (size_t i = 0; i < v->len; i++) {
        const coax_value *s = &v->u.members[i].value;
        if (s->type != COAX_STRING || !s->len) continue;
        names = names || (s->u.text[0] >= 'A' && s->u.text[0] <= 'Z');
        owned = owned || holds(s->u.text, s->len, st->owner, st->olen);
    }
    st->names = st->names || names, st->owned = st->owned || owned;
    st->owner_here = owned || !names; /* a list's records: "Bob's age" is the age of Bob's alone */
}

/* Each scalar of v against each statement: the members their subjects
** name, and whether their values are among the answer's. Deeper than the
** bound, a name is not read: a statement about it stands unread. */
static void visit(const coax_value *v, const coax_member *parent, statement *st, size_t n, unsigned depth)
{
    if (depth > 256) return;
    if (v->type == COAX_ARRAY) {
        for (size_t i = 0; i < v->len; i++) visit(&v->u.items[i], parent, st, n, depth + 1);
        return;
    }
    if (v->type != COAX_OBJECT) {
        for (size_t i = 0; i < n; i++) { /* only a correcting statement asks (contradicts) */
            st[i].held = st[i].held || (st[i].correcting && same(v, &st[i]));
        }
        return;
    }
    for (size_t i = 0; i < v->len; i++) {
        const coax_member *m = &v->u.members[i];
        char k[NAME_MOST];
        if (m->value.type != COAX_ARRAY && m->value.type != COAX_OBJECT && m->klen < NAME_MOST &&
            coerce_norm_key(m->key, m->klen, k, sizeof k)) {
            size_t kl = strlen(k);
            fold(k);
            for (size_t s = 0; s < n; s++)
                for (size_t j = 0; j < 3; j++) {
                    if (!kl || st[s].nlen[j] != kl || memcmp(st[s].name[j], k, kl)) continue;
                    if (st[s].owner && st[s].owner_seen != v) owner_in(v, parent, &st[s]);
                    if (st[s].owner && !st[s].owner_here) continue;
                    if (!st[s].named[j]) st[s].named[j] = &m->value;
                    else if (!same_scalar(st[s].named[j], &m->value)) st[s].clash[j] = true;
                }
        }
        visit(&m->value, m, st, n, depth + 1);
    }
}

/* Whether statement st gives the answer another value. */
static bool contradicts(const statement *st)
{
    /* "Bob's age is 40." beside Ada's; "Ada's age is 37." beside an answer naming no one is hers */
    if (st->other || (st->owner && st->names && !st->owned)) return false;
    for (size_t j = 3; j-- > 0;) { /* the longest name the answer holds */
        const coax_value *v = st->named[j];
        if (!v) continue;
        if (st->clash[j]) return false; /* a name of several values: which one, unknown */
        if (v->type == COAX_NULL || st->type == COAX_NULL) return !same(v, st); /* "name: null" beside "Ada" */
        if ((v->type == COAX_BOOL) != (st->type == COAX_BOOL)) return false;
        bool is_int;
        if (v->type == COAX_NUMBER && st->type == COAX_STRING &&
            coax_number_span(st->text, st->len, &is_int) != st->len) /* "thirty-six" */
            return false;
        if (v->type == COAX_STRING && st->type == COAX_NUMBER && !digit_in(v->u.text, v->len))
            return false; /* "Status: 200" of "ok": another kind of value */
        return !same(v, st) && !(v->type == COAX_NUMBER && arrives(st->rest, st->rlen, v));
    }
    return st->correcting && (st->generic || st->type == COAX_NUMBER) && !st->held;
}

/* Where the prose before an answer starts that states what the reply
** settled on: after a reasoning block's end ("</think>", Kimi's "◁/think▷",
** "[/THINK]", "<|end_of_thought|>", the harmony format's "<|end|>" of its
** analysis) or a "Final answer" that settles, whose drafts ("age is 35...
** no, 36") are the way to the answer, not beside it. */
static size_t past_reasoning(const char *text, size_t lo, size_t start)
{
    static const char *const ends[] = {"</think>",         "</thinking>", "</reasoning>",
                                       "</thought>",       "</scratchpad>", "\xE2\x97\x81/think\xE2\x96\xB7",
                                       "[/think]",         "<|end_of_thought|>", "<|end|>",
                                       "final answer",     "respuesta final",    "réponse finale",
                                       "最终答案"};
    for (size_t p = start; p-- > lo;) {
        if (!coax_byte_in("<[\xE2\xE6" "fFrR", text[p]) || !text[p]) continue;
        for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
            size_t n = strlen(ends[i]);
            if (n <= start - p && coax_ascii_casesame(text + p, ends[i], n)) return p + n;
        }
    }
    return lo;
}

size_t extract_contradicted(const char *text, size_t from, size_t start, size_t end, size_t to,
                            const coax_value *answer)
{
    statement st[2 * STATEMENTS_MOST]; /* before the answer and after it */
    size_t n = 0;
    if (start > from) {
        size_t lo = start - from > CONTRADICTED_LOOK ? start - CONTRADICTED_LOOK : from;
        lo = past_reasoning(text, lo, start);
        n = statements(text, lo, start, st);
    }
    if (to > end) n += statements(text, end, to - end > CONTRADICTED_LOOK ? end + CONTRADICTED_LOOK : to, st + n);
    if (!n) return SIZE_MAX;
    visit(answer, NULL, st, n, 0);
    for (size_t i = 0; i < n; i++)
        if (contradicts(&st[i])) return st[i].at;
    return SIZE_MAX;
}

/* Whether text[p] ends a sentence of a retraction: a line's end, "!", ";", or "." or "?" then
** a space; not an ellipsis's ("35... no, 36."), nor a question's that "No" answers ("age =
** 35? No — 36."), a draft and then the answer. */
static bool retraction_stop(const char *text, size_t p, size_t e)
{
    char ch = text[p];
    if (ch == '\n' || ch == '!' || ch == ';') return true;
    if ((ch != '.' && ch != '?') || (p + 1 < e && text[p + 1] != ' ' && text[p + 1] != '\r')) return false;
    if (ch == '.') return !(p && text[p - 1] == '.');
    size_t q = p + 1;
    while (q < e && text[q] == ' ') q++;
    return !(e - q >= 2 && coax_ascii_casesame(text + q, "no", 2) && (q + 2 == e || !letter(text, q + 2, e)));
}

/* The last value in text[lo..hi) at a word's start, into *v; where it starts (*end: ends), or
** SIZE_MAX when none is. */
static size_t last_value(const char *text, size_t lo, size_t hi, statement *v, size_t *end)
{
    size_t at = SIZE_MAX;
    statement st;
    for (size_t p = lo; p < hi; p++) {
        char ch = text[p];
        if (p > lo && (coax_ascii_alnum((unsigned char)text[p - 1]) || text[p - 1] == '.')) continue;
        if (!is_digit(ch) && ch != '-' && ch != '"' && !(hi - p >= 3 && !memcmp(text + p, "\xE2\x80\x9C", 3)))
            continue;
        memset(&st, 0, sizeof st);
        if (!read_value(text, p, hi, &st)) continue;
        *v = st, at = p, *end = value_end_at(text, p, &st);
        if (v->type == COAX_NUMBER) v->text = v->num; /* the copy's own digits */
        p = *end - 1;
    }
    return at;
}

/* Whether text[p..q), between a value and the words calling it wrong ('draft' false), holds
** only "is", "would be" and their like ("37 would be wrong", "“37” is a typo"); or, between a
** correction's words and its value, no second claim: no "and" nor "also", no comma but the
** one after the first word or a "no" ("Actually, the age is 35... no, 36"). */
static bool only_words(const char *text, size_t p, size_t q, bool draft)
{
    static const coax_word between[] = {COAX_WORD("is"), COAX_WORD("was"), COAX_WORD("would"), COAX_WORD("be"),
                                        COAX_WORD("a"),  COAX_WORD("an"),  COAX_WORD("which"), COAX_WORD("also")};
    static const coax_word joining[] = {COAX_WORD("and"), COAX_WORD("also"), COAX_WORD("plus"), COAX_WORD("or")};
    size_t first = p, w = p, wn = 0;
    while (first < q && coax_ascii_alpha((unsigned char)text[first])) first++;
    for (size_t k = p; k < q;) {
        if (coax_ascii_alpha((unsigned char)text[k])) {
            size_t r = k;
            while (r < q && (coax_ascii_alpha((unsigned char)text[r]) || text[r] == '\'')) r++;
            if (draft ? IN(text + k, r - k, joining) : !IN(text + k, r - k, between)) return false;
            w = k, wn = r - k, k = r;
            continue;
        }
        if (draft && text[k] == ',' && k != first && !(wn == 2 && coax_ascii_casesame(text + w, "no", 2)))
            return false;
        if (!draft && !coax_byte_in(" \t*_`\",", text[k]) && !(q - k >= 3 && !memcmp(text + k, "\xE2\x80\x9D", 3)))
            return false;
        k += !draft && (unsigned char)text[k] == 0xE2 ? 3 : 1;
    }
    return true;
}

/* Whether a scalar of v is the value of st; *count: the answer's scalars. */
static bool holds_value(const coax_value *v, const statement *st, size_t *count, unsigned depth)
{
    if (depth > 256) return true; /* unread: it may */
    if (v->type != COAX_ARRAY && v->type != COAX_OBJECT) return ++*count, same(v, st);
    bool found = false;
    for (size_t i = 0; i < v->len; i++)
        found |= holds_value(v->type == COAX_ARRAY ? &v->u.items[i] : &v->u.members[i].value, st, count, depth + 1);
    return found;
}

/* The answer's value of the member the last statement of st[0..n) naming one names: NULL when
** none names one (*clash: a statement names one of several values, or another's). */
static const coax_value *named_last(const statement *st, size_t n, bool *clash)
{
    for (size_t i = n; i-- > 0;)
        for (size_t j = 3; j-- > 0;)
            if (st[i].named[j]) {
                *clash = st[i].clash[j] || st[i].other || (st[i].owner && st[i].names && !st[i].owned);
                return st[i].named[j];
            }
    return NULL;
}

bool extract_settles_on_answer(const char *text, size_t from, size_t at, size_t e, bool correction,
                               const coax_value *answer)
{
    size_t sb = at, se = at, vend = 0, count = 0;
    while (sb > from && !retraction_stop(text, sb - 1, e)) sb--;
    while (se < e && !retraction_stop(text, se, e)) se++;
    statement v, st[STATEMENTS_MOST];
    size_t vat = last_value(text, correction ? at : sb, correction ? se : at, &v, &vend);
    if (vat == SIZE_MAX) return false;
    size_t n = statements(text, sb, correction ? se : at, st);
    visit(answer, NULL, st, n, 0);
    bool clash = false, held = holds_value(answer, &v, &count, 0);
    const coax_value *named = named_last(st, n, &clash);
    if (!correction) /* the value called wrong, right before the words, is none of the answer's */
        return only_words(text, vend, at, false) && !clash && (named ? !same(named, &v) : !held);
    if (!only_words(text, at, vat, true)) return false; /* "Actually, the name is Bob and the age is 36." */
    /* a correction: its value ends the sentence, after a link, "no" or "actually" ("is 36.", "No — 36") */
    for (size_t k = vend; k < se; k++)
        if (!coax_byte_in(" \t\r*_`.,)", text[k])) return false;
    size_t k = vat;
    bool sign = false;
    for (;;) {
        size_t d = k >= 3 && !memcmp(text + k - 3, "\xE2\x80", 2) ? 3 : 0; /* a dash, en or em */
        if (k > at && (d || coax_byte_in(" \t*_`,:=-", text[k - 1]))) {
            sign = sign || text[k - 1] == ':' || text[k - 1] == '=';
            k -= d ? d : 1;
        } else break;
    }
    static const coax_word links[] = {COAX_WORD("is"),   COAX_WORD("was"),   COAX_WORD("are"), COAX_WORD("be"),
                                      COAX_WORD("no"),   COAX_WORD("actually"), COAX_WORD("meant"),
                                      COAX_WORD("it's"), COAX_WORD("equals")};
    size_t w = k;
    while (w > at && (coax_ascii_alpha((unsigned char)text[w - 1]) || text[w - 1] == '\'')) w--;
    if (!sign && !(w < k && IN(text + w, k - w, links))) return false;
    return !clash && (named ? same(named, &v) : count == 1 && held);
}
