/*
** placeholder.c: strings that hold a place rather than a value. A model
** that echoes its format writes them in quotes ({"name": "<name>", "email":
** "[Your Email]", "notes": "..."}): valid JSON, and valid against a schema
** that asks for strings, yet not what it meant to answer. The repair reads
** unquoted ones as guesses (<age>, ...); these are found in the value a
** candidate gives, after its coercions.
*/
#include "extract/coerce.h"

/* Whether s[0..n) is, ignoring case, one of the words that begin an
** instruction to the reader rather than a value: "Your Name", "insert date". */
static bool instruction(const char *s, size_t n)
{
    static const char *const words[] = {"your ", "insert ", "enter ", "fill in", "placeholder", "add "};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t w = strlen(words[i]);
        if (n >= w && coax_ascii_casesame(s, words[i], w)) return true;
    }
    return false;
}

/* The words that make a bracketed phrase an instruction in the other
** languages models answer in (Spanish, French, German, Portuguese, Italian,
** Russian): a verb to insert, enter or fill in wherever it stands ("[Stadt
** einfügen]"); "your" first, as English's is, or after an article ("[Su
** nombre]", "[Il tuo nome]"), not inside a phrase ("[Ana y su hermano]",
** "[Saggio su Dante]": Italian "su" is "on"); "here" last in a short one
** ("[Nombre aquí]", "[nome qui]"). */
static const coax_word other_instruction_verbs[] = {
    COAX_WORD("insertar"), COAX_WORD("inserte"), COAX_WORD("inserta"), COAX_WORD("introduce"),
    COAX_WORD("introduzca"), COAX_WORD("ingrese"), COAX_WORD("ingresa"), COAX_WORD("escriba"),
    COAX_WORD("insérer"), COAX_WORD("insérez"), COAX_WORD("entrez"), COAX_WORD("saisir"), COAX_WORD("saisissez"),
    COAX_WORD("einfügen"), COAX_WORD("eingeben"), COAX_WORD("eintragen"), COAX_WORD("inserir"), COAX_WORD("insira"),
    COAX_WORD("digite"), COAX_WORD("inserire"), COAX_WORD("inserisci"), COAX_WORD("введите"), COAX_WORD("вставьте"),
    COAX_WORD("Введите"), COAX_WORD("Вставьте")};
static const coax_word other_instruction_yours[] = {
    COAX_WORD("tu"), COAX_WORD("tus"), COAX_WORD("su"), COAX_WORD("sus"), COAX_WORD("votre"), COAX_WORD("vos"),
    COAX_WORD("ihr"), COAX_WORD("ihre"), COAX_WORD("ihren"), COAX_WORD("dein"), COAX_WORD("deine"),
    COAX_WORD("deinen"), COAX_WORD("seu"), COAX_WORD("sua"), COAX_WORD("seus"), COAX_WORD("suas"), COAX_WORD("tuo"),
    COAX_WORD("tua"), COAX_WORD("tuoi"), COAX_WORD("tue"), COAX_WORD("vostro"), COAX_WORD("vostra"),
    COAX_WORD("ваш"), COAX_WORD("ваше"), COAX_WORD("ваша"), COAX_WORD("ваши"), COAX_WORD("Ваш"), COAX_WORD("Ваше"),
    COAX_WORD("Ваша"), COAX_WORD("Ваши")};
static const coax_word other_instruction_articles[] = {COAX_WORD("el"), COAX_WORD("la"), COAX_WORD("il"),
                                                       COAX_WORD("lo"), COAX_WORD("le"), COAX_WORD("i"),
                                                       COAX_WORD("o"), COAX_WORD("a"), COAX_WORD("os"),
                                                       COAX_WORD("as")};
static const coax_word other_instruction_here[] = {COAX_WORD("aquí"), COAX_WORD("ici"), COAX_WORD("hier"),
                                                   COAX_WORD("aqui"), COAX_WORD("qui"), COAX_WORD("здесь")};
/* and in Chinese and Japanese, where words have no spaces: anywhere */
static const char *const other_instruction_cjk[] = {"在此", "在这里", "插入", "输入", "填写", "你的", "您的",
                                                    "ここに", "入力", "あなたの"};

/* Whether a word of s[0..n) (split at spaces, '_', '-') is an instruction's
** in another language, or it holds a Chinese or Japanese one. */
#define WORD_IN(w, n, words) coax_word_in(w, n, words, sizeof words / sizeof *words)

static bool instruction_elsewhere(const char *s, size_t n)
{
    bool after_article = false;
    size_t words = 0, last = 0, last_n = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && !coax_byte_in(" _-", s[j])) j++;
        if (j > i) {
            if (WORD_IN(s + i, j - i, other_instruction_verbs) ||
                ((words == 0 || (words == 1 && after_article)) && WORD_IN(s + i, j - i, other_instruction_yours)))
                return true;
            after_article = words == 0 && WORD_IN(s + i, j - i, other_instruction_articles);
            words++, last = i, last_n = j - i;
        }
        i = j + 1;
    }
    if (words && words <= 3 && WORD_IN(s + last, last_n, other_instruction_here)) return true;
    for (size_t k = 0; k < sizeof other_instruction_cjk / sizeof *other_instruction_cjk; k++) {
        size_t w = strlen(other_instruction_cjk[k]);
        for (size_t i = 0; i + w <= n; i++)
            if (!memcmp(s + i, other_instruction_cjk[k], w)) return true;
    }
    return false;
}

/* Whether s[0..n) names the member 'key' (ignoring case, spaces, '_', '-'),
** or one item of it: a list's key is a plural ("tags": ["<tag>"],
** "categories": ["<category>"]). */
static bool names_key(const char *s, size_t n, const char *key, size_t klen)
{
    char a[33], b[33];
    if (!key || !coerce_norm_key(s, n, a, sizeof a) || !coerce_norm_key(key, klen, b, sizeof b) || !a[0]) return false;
    size_t la = strlen(a), lb = strlen(b);
    if (!strcmp(a, b) || (lb == la + 1 && b[la] == 's' && !memcmp(a, b, la))) return true;
    return la >= 2 && lb == la + 2 && a[la - 1] == 'y' && !memcmp(a, b, la - 1) && !strcmp(b + la - 1, "ies");
}

/* Whether s[0..n) names a type rather than giving a value of it: the
** schema's words in brackets ("<string>", "[number]"); with 'words', the
** plain ones too ("<value>", "[text]"). */
static bool names_type(const char *s, size_t n, bool words_too)
{
    static const char *const words[] = {"string",   "str",      "number", "integer", "int",    "float", "boolean",
                                        "bool",     "array",    "object", "dict",    "double", "uuid",  "datetime",
                                        "value",    "text"};
    for (size_t i = 0; i < sizeof words / sizeof *words - (words_too ? 0 : 2); i++)
        if (strlen(words[i]) == n && coax_ascii_casesame(s, words[i], n)) return true;
    return false;
}

/* Whether s[0..n) is a format's mask rather than a value in it: runs of one
** letter of a date's (YYYY, MM, DD, HH, SS) or of X, two runs or more, with
** separators between ("YYYY-MM-DD", "HH:MM", "XXX-XXX-XXXX"). */
static bool mask(const char *s, size_t n)
{
    if (n < 5 || n > 32) return false;
    size_t runs = 0;
    for (size_t i = 0; i < n;) {
        char ch = s[i];
        if (coax_byte_in("-/:. ", ch)) {
            if (i == 0 || coax_byte_in("-/:. ", s[i - 1])) return false;
            i++;
            continue;
        }
        if (!coax_byte_in("YMDHSXymdhsx", ch) || !ch) {
            if (ch == 'T' && runs && i + 1 < n && s[i + 1] == 'H') { i++; continue; } /* YYYY-MM-DDTHH:MM */
            return false;
        }
        size_t j = i;
        while (j < n && s[j] == ch) j++;
        if (j - i < 2) return false;
        runs++;
        i = j;
    }
    return runs >= 2;
}

/* Whether s[0..n) is a word or a few: letters, digits, spaces, '_', '-'. */
static bool words_only(const char *s, size_t n)
{
    if (n == 0 || n > 48) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        bool letter = ch >= 0x80 || ((ch | 32) >= 'a' && (ch | 32) <= 'z');
        if (!letter && !(ch >= '0' && ch <= '9') && !coax_byte_in(" _-.", ch))
            return false;
    }
    return true;
}

/* Whether s[0..n) is a template's name for a value, unbracketed: one word
** joined by '_' or '-' that tells the reader to put the value in
** ("YOUR_API_KEY", "your-name", "INSERT_DATE", "email_here"). */
static bool template_name(const char *s, size_t n)
{
    static const char *const heads[] = {"your", "insert", "enter", /* and other languages' verbs, as written in names */
                                        "insertar", "ingrese", "introduzca", "inserer", "entrez", "saisir",
                                        "inserir", "digite", "inserire", "inserisci"};
    if (!words_only(s, n) || memchr(s, ' ', n) || memchr(s, '.', n)) return false;
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
        size_t w = strlen(heads[i]);
        if (n > w + 1 && coax_ascii_casesame(s, heads[i], w) && (s[w] == '_' || s[w] == '-')) return true;
    }
    return n > 5 && s[n - 5] == '_' && coax_ascii_casesame(s + n - 4, "here", 4); /* not a slug, "click-here" */
}

bool extract_is_placeholder(const char *s, size_t n, const char *key, size_t klen)
{
    while (n && (*s == ' ' || *s == '\t' || *s == '\n')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n')) n--;
    size_t asked = 0;
    while (asked < n && s[asked] == '?') asked++;
    if (n && asked == n) return true; /* "?", "???": a question where a value was due */
    if (n < 3) return false;
    if (template_name(s, n)) return true; /* YOUR_API_KEY, email_here */
    if (coax_byte_in("YMDHXymdhx", s[0])) return mask(s, n);
    if (!coax_byte_in(".<[{($\xE2", s[0])) return false; /* most strings stop here */
    static const char *const elisions[] = {"...", "....", ". . .", "\xE2\x80\xA6", "[...]", "(...)", "{...}",
                                           "<...>", "[\xE2\x80\xA6]", "(\xE2\x80\xA6)"};
    for (size_t i = 0; i < sizeof elisions / sizeof *elisions; i++)
        if (strlen(elisions[i]) == n && !memcmp(s, elisions[i], n)) return true;
    char open = s[0], close = s[n - 1];
    /* {{name}} and ${name}: a template's variable, never filled in */
    if (n > 4 && open == '{' && s[1] == '{' && close == '}' && s[n - 2] == '}') return words_only(s + 2, n - 4);
    if (n > 3 && open == '$' && s[1] == '{' && close == '}') return words_only(s + 2, n - 3);
    bool angle = open == '<' && close == '>', square = open == '[' && close == ']', brace = open == '{' && close == '}';
    if (!angle && !square && !brace) return false;
    const char *in = s + 1;
    size_t m = n - 2;
    if (!words_only(in, m)) return false;
    if (names_key(in, m, key, klen) || instruction(in, m) || instruction_elsewhere(in, m) ||
        ((angle || square) && names_type(in, m, true)))
        return true; /* "email": "<email>", "[Your Name]", "<string>" */
    /* <first name>, <user_email>: an angle-bracketed phrase is no HTML tag */
    return angle && (memchr(in, ' ', m) || memchr(in, '_', m));
}

/* The strings the schema document's "enum" and "const" name: each is an
** answer the schema allows, whatever it looks like ("insert_row", "?",
** "<first name>"), never a placeholder. Built once a schema (c->built), at
** the first placeholder found, by an explicit stack (the document's depth
** is input); NULL when out of memory. */
static const smap *named_strings(coerce_ctx *c)
{
    static const char named_strings_key; /* its address keys the set in c->built */
    smap *set = smap_getp(&c->built, &named_strings_key);
    if (set) return set;
    size_t cap = 64, n = 0;
    const coax_value **stack = coax_arena_alloc(c->arena, cap * sizeof *stack);
    if (!stack || !(set = coax_arena_alloc(c->arena, sizeof *set))) return NULL;
    *set = (smap){0};
    stack[n++] = c->doc;
    while (n) {
        const coax_value *v = stack[--n];
        if (v->type != COAX_OBJECT && v->type != COAX_ARRAY) continue;
        for (size_t i = 0; v->type == COAX_OBJECT && i < v->len; i++) {
            const coax_member *m = &v->u.members[i];
            const coax_value *w = &m->value;
            bool en = m->klen == 4 && !memcmp(m->key, "enum", 4) && w->type == COAX_ARRAY;
            for (size_t k = 0; en && k < w->len; k++)
                if (w->u.items[k].type == COAX_STRING &&
                    !smap_put(set, c->arena, w->u.items[k].u.text, w->u.items[k].len, (void *)set))
                    return NULL;
            if (m->klen == 5 && !memcmp(m->key, "const", 5) && w->type == COAX_STRING &&
                !smap_put(set, c->arena, w->u.text, w->len, (void *)set))
                return NULL;
        }
        if (!coerce_push_children(c->arena, &stack, &n, &cap, v)) return NULL;
    }
    return smap_putp(&c->built, c->arena, &named_strings_key, set) ? set : NULL;
}

typedef struct finding {
    coerce_ctx *c;
    const smap *named;  /* named_strings, once built */
    const smap *probed; /* the probe's errors by place, once it ran */
    smap branches;      /* union branch -> the one place of its probe errors, once wanted */
    bool oom, named_seen, branches_built, branches_unknown;
    coax_buf path; /* the placeholder's pointer */
} finding;

/* Whether a word of s[0..n) (split at spaces, '_', '-') is "here" or names
** the member 'key' or a word of it ("your email address" for "email",
** "your name" for "full_name"): an instruction says what to put where.
** The key's first 64 bytes are read (per item of a list, its key's). */
static bool names_field(const char *s, size_t n, const char *key, size_t klen)
{
    if (klen > 64) klen = 64;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && !coax_byte_in(" _-.", s[j])) j++;
        if (j > i && ((j - i == 4 && coax_ascii_casesame(s + i, "here", 4)) || names_key(s + i, j - i, key, klen)))
            return true;
        for (size_t k = 0; key && j > i && k < klen;) { /* the key's words: full_name, fullName */
            size_t e = k + 1;
            while (e < klen && !coax_byte_in(" _-.", key[e]) && !(key[e] >= 'A' && key[e] <= 'Z')) e++;
            if (names_key(s + i, j - i, key + k, e - k)) return true;
            for (k = e; k < klen && coax_byte_in(" _-.", key[k]); k++) {}
        }
        i = j + 1;
    }
    return false;
}

/* Whether member 'key' asks for a type's name ("type", "dtype",
** "field_type", "kind"): there a type's name is the value. */
static bool asks_type(const char *key, size_t klen)
{
    char b[33];
    if (!key || !coerce_norm_key(key, klen, b, sizeof b)) return false;
    size_t n = strlen(b);
    return (n >= 4 && !strcmp(b + n - 4, "type")) || (n >= 5 && !strcmp(b + n - 5, "types")) ||
           (n >= 4 && !strcmp(b + n - 4, "kind"));
}

/* Whether s[0..n) describes its member rather than giving its value: its
** first word (past an article) names the member or a word of its name and
** a word that links a description follows ("Name of the person", "Age in
** years", "The email for contact"); "Team Rocket" and "New York City"
** name things. */
static bool describes_field(const char *s, size_t n, const char *key, size_t klen)
{
    static const char *const articles[] = {"the ", "a ", "an "};
    for (size_t i = 0; i < sizeof articles / sizeof *articles; i++) {
        size_t k = strlen(articles[i]);
        if (n > k && coax_ascii_casesame(s, articles[i], k)) {
            s += k, n -= k;
            break;
        }
    }
    size_t w = 0;
    while (w < n && s[w] != ' ') w++;
    if (w == n || !names_field(s, w, key, klen)) return false;
    static const char *const links[] = {"of", "for", "in", "from", "as", "at", "on", "to"};
    const char *t = s + w + 1;
    size_t m = 0;
    while (m < n - w - 1 && t[m] != ' ') m++;
    for (size_t i = 0; i < sizeof links / sizeof *links; i++)
        if (m == strlen(links[i]) && coax_ascii_casesame(t, links[i], m)) return true;
    return false;
}

/* Whether string 'v', which a repair read without quotes, is a template's
** words or code's rather than a value: its member's own name, an
** instruction naming what to put there, a type's name ({"name": name,
** "age": int}, {"name": your name}, [insert name here]); without quotes
** nothing tells them apart. "value" and "text" are words of values too
** ({key: value}); so is an instruction's word naming nothing of the
** member (Your order has shipped, add user), and a type's name where the
** member asks for one ({"type": string}). */
/* Whether s[0..n) is what Node's util.inspect writes for a value it did
** not print ("[Circular *1]", "[Getter]", "[Getter/Setter]", "[class Foo
** extends Bar]"; "[Object]", "[Array]" are type names): a console.log'd
** object pasted as the answer, its brackets read as a list of one. */
static bool inspect_marker(const char *s, size_t n)
{
    static const char *const whole[] = {"Getter", "Setter", "Getter/Setter", "Circular", "Object: null prototype"};
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++)
        if (strlen(whole[i]) == n && !memcmp(s, whole[i], n)) return true;
    if (n > 10 && !memcmp(s, "Circular *", 10)) { /* s holds no terminator (a folded copy): digits to n alone */
        size_t d = 10;
        while (d < n && s[d] >= '0' && s[d] <= '9') d++;
        return d == n;
    }
    return n > 6 && !memcmp(s, "class ", 6) && words_only(s + 6, n - 6);
}

static bool unquoted_template(const coax_value *v, const char *key, size_t klen)
{
    if (!(v->flags & COAX_VF_UNQUOTED)) return false;
    /* the words as the checks read them, parted by one space: a run of
    ** blanks between them (your⇥name, insert  name  here) parts them as one
    ** space does; a template's words are few, a longer text read as it is */
    char folded[256];
    const char *s = v->u.text;
    size_t n = v->len;
    if (n <= sizeof folded) {
        const char *c = s, *e = s + n;
        size_t m = 0;
        while (c < e) {
            size_t b = coax_blank_at(c, e);
            if (b) {
                folded[m++] = ' ';
                c = coax_blanks_end(c, e);
            } else {
                folded[m++] = *c++;
            }
        }
        s = folded, n = m;
    }
    if (inspect_marker(s, n)) return true;
    /* more verbs of a template's instruction, read only with names_field
    ** (in brackets, "[type 2]" and "[put option]" may be text) */
    static const char *const verbs[] = {"type ", "write ", "provide ", "put ", "specify ", "please "};
    bool asks = instruction(s, n);
    for (size_t i = 0; !asks && i < sizeof verbs / sizeof *verbs; i++)
        asks = n > strlen(verbs[i]) && coax_ascii_casesame(s, verbs[i], strlen(verbs[i]));
    return words_only(s, n) &&
           (names_key(s, n, key, klen) || (asks && names_field(s, n, key, klen)) || describes_field(s, n, key, klen) ||
            (names_type(s, n, false) && !asks_type(key, klen)));
}

/* Whether string 'v' (a member of key 'key') is a placeholder; sets
** *named when an "enum" or "const" of the schema names it. */
static bool placeholder(finding *f, const coax_value *v, const char *key, size_t klen, bool *named)
{
    *named = false;
    if (!extract_is_placeholder(v->u.text, v->len, key, klen) && !unquoted_template(v, key, klen)) return false;
    if (!f->named && !(f->named = named_strings(f->c))) return f->oom = true;
    *named = smap_get(f->named, v->u.text, v->len) != NULL;
    return true;
}

/* Depth-first: the first placeholder under 'v' (a member of key 'key', at
** place 'at') that no enum or const of the schema names, its pointer in
** f->path (written only then); stops at one some enum or const names
** (f->named_seen): whether that one is named at its place is the probe's. */
static const coax_value *find(finding *f, const coax_value *v, const char *key, size_t klen, const extract_frame *at)
{
    bool named;
    if (v->type == COAX_STRING) {
        if (!placeholder(f, v, key, klen, &named) || (named && (f->named_seen = true))) return NULL;
        extract_put_pointer(&f->path, at);
        return v;
    }
    for (size_t i = 0; v->type == COAX_ARRAY && i < v->len && !f->named_seen; i++) {
        extract_frame item = {at, NULL, 0, i};
        const coax_value *hit = find(f, &v->u.items[i], key, klen, &item); /* an item keeps its list's name */
        if (hit) return hit;
    }
    for (size_t i = 0; v->type == COAX_OBJECT && i < v->len && !f->named_seen; i++) {
        const coax_member *m = &v->u.members[i];
        extract_frame member = {at, m->key, m->klen, 0};
        const coax_value *hit = find(f, &m->value, m->key, m->klen, &member);
        if (hit) return hit;
    }
    return NULL;
}

/* extract_probe's pick: a placeholder that some enum or const names. */
static bool pick_named(void *ctx, const coax_value *s, const char *key, size_t klen)
{
    bool named;
    return placeholder(ctx, s, key, klen, &named) && named;
}

/* Whether enum or const keyword 'value' holds string 's' (an enum by
** coerce_enum_holds: n places under one enum of m strings cost n + m). */
static bool keyword_holds(finding *f, const coax_value *value, const coax_value *s)
{
    if (value->type == COAX_STRING) return value->len == s->len && !memcmp(value->u.text, s->u.text, s->len);
    return coerce_enum_holds(f->c, value, s->u.text, s->len);
}

/* The length of instance location 'at' up to its 'steps' tokens, or
** SIZE_MAX when it has fewer. */
static size_t place_prefix(const char *at, size_t steps)
{
    size_t len = 0;
    for (size_t k = 0; k < steps; k++) {
        const char *slash = at[len] == '/' ? strchr(at + len + 1, '/') : NULL;
        if (at[len] != '/') return SIZE_MAX;
        len = slash ? (size_t)(slash - at) : strlen(at);
    }
    return len;
}

static const char many_places; /* a branch whose probe errors are at several places */

/* f->branches: each union branch (its keyword path) the probe's errors
** are under, to a map of the places it applies at (the union's), each to
** the one place of its errors there, or many_places. */
static bool map_branches(finding *f)
{
    const smap *m = f->probed;
    coax_arena *a = f->c->arena;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->e[i].hash) continue; /* an empty slot */
        for (const extract_probe_error *pe = m->e[i].val; pe; pe = pe->next) {
            const char *kl = pe->e->keyword_location, *at = pe->e->instance_location;
            size_t end[COERCE_UNION_LEVELS], steps[COERCE_UNION_LEVELS], n = coerce_unions(kl, end, steps);
            f->branches_unknown = f->branches_unknown || n > COERCE_UNION_LEVELS; /* its outer branches not kept */
            for (size_t k = 0; k < n && k < COERCE_UNION_LEVELS; k++) {
                size_t pl = place_prefix(at, steps[k]);
                if (pl == SIZE_MAX) { /* a keyword path read wrong: no branch is known alone */
                    f->branches_unknown = true;
                    continue;
                }
                smap *places = smap_get(&f->branches, kl, end[k]);
                if (!places) {
                    if (!(places = coax_arena_alloc(a, sizeof *places))) return false;
                    *places = (smap){0};
                    if (!smap_put(&f->branches, a, kl, end[k], places)) return false;
                }
                const char *was = smap_get(places, at, pl);
                if (was == &many_places || (was && !strcmp(was, at))) continue;
                if (!smap_put(places, a, at, pl, was ? (void *)&many_places : (void *)at)) return false;
            }
        }
    }
    return true;
}

/* Whether every union branch keyword path 'kl' is under failed, in the
** probe, at place 'at' only (where that union applies): a branch with
** errors elsewhere fails whatever the string at 'at' is, so an enum of
** that branch did not let it pass ({"anyOf": [{"properties": {"a":
** {"enum": ["???"]}, "b": {"const": 1}}}, {"properties": {"a": {"type":
** "string"}}}]} with {"a": "???", "b": 2}). Two named strings under one
** branch, or an error of the probe under more than COERCE_UNION_LEVELS unions,
** are taken as not named there. */
static bool branches_alone_at(finding *f, const char *kl, const char *at)
{
    size_t end[COERCE_UNION_LEVELS], steps[COERCE_UNION_LEVELS], n = coerce_unions(kl, end, steps);
    if (!n) return true;
    if (n > COERCE_UNION_LEVELS) return false;
    if (!f->branches_built && !(f->branches_built = map_branches(f))) return !(f->oom = true);
    if (f->branches_unknown) return false;
    for (size_t k = 0; k < n; k++) {
        const smap *places = smap_get(&f->branches, kl, end[k]);
        size_t pl = place_prefix(at, steps[k]);
        const char *place = places && pl != SIZE_MAX ? smap_get(places, at, pl) : NULL;
        if (!place || place == &many_places || strcmp(place, at)) return false;
    }
    return true;
}

/* Whether the probe met, at the place in f->path, an "enum" or "const"
** holding 's': a keyword of that place named it. A keyword path not read
** (through a "$dynamicRef") is taken as naming it; a place under a key
** holding NUL is not (an error's place is a C string: none is known there,
** and the reply chose the key). */
static bool named_here(finding *f, const coax_value *s)
{
    const char *at = f->path.data ? f->path.data : "";
    if (memchr(at, '\0', f->path.len)) return false;
    for (const extract_probe_error *pe = smap_get(f->probed, at, f->path.len); pe; pe = pe->next) {
        const char *kl = pe->e->keyword_location;
        size_t n = strlen(kl);
        if (!(n >= 5 && !strcmp(kl + n - 5, "/enum")) && !(n >= 6 && !strcmp(kl + n - 6, "/const"))) continue;
        const coax_value *parent, *value;
        char kw[16];
        if (!branches_alone_at(f, kl, pe->e->instance_location)) continue;
        if (!coerce_keyword_at(f->c, f->c->doc, kl, &parent, kw, sizeof kw, &value) || keyword_holds(f, value, s))
            return true;
    }
    return false;
}

/* find, once the probe ran: the pointer built as the walk goes (one per
** place was the depth times the places), a named placeholder one only
** where a keyword of its place names it. */
static const coax_value *find_probed(finding *f, const coax_value *v, const char *key, size_t klen)
{
    bool named;
    if (v->type == COAX_STRING)
        return placeholder(f, v, key, klen, &named) && (f->oom || !named || !named_here(f, v)) ? v : NULL;
    size_t mark = f->path.len;
    for (size_t i = 0; (v->type == COAX_ARRAY || v->type == COAX_OBJECT) && i < v->len; i++) {
        const coax_member *m = v->type == COAX_OBJECT ? &v->u.members[i] : NULL;
        if (m) extract_put_token(&f->path, m->key, m->klen);
        else extract_put_index(&f->path, i);
        const coax_value *hit = m ? find_probed(f, &m->value, m->key, m->klen) : find_probed(f, &v->u.items[i], key, klen);
        if (hit) return hit;
        f->path.len = mark;
    }
    return NULL;
}

coax_code extract_find_placeholder(coerce_ctx *c, const coax_value *v, const char **message, const char **pointer)
{
    coax_arena *a = c->arena;
    finding f = {c, NULL, NULL, {0}, false, false, false, false, {0}};
    coax_buf_init(&f.path, coax_arena_allocator(a));
    const coax_value *hit = find(&f, v, NULL, 0, NULL);
    *message = *pointer = NULL;
    coax_code rc = f.oom ? COAX_ENOMEM : COAX_OK;
    if (!rc && f.named_seen) {
        /* a value no enum names, refused at a place only an enum or a const lets strings through */
        static const coax_member probe_member = {"\x01", 1, {COAX_NULL, 0, 0, {0}}};
        static const coax_value probe = {COAX_OBJECT, 0, 1, {.members = (coax_member *)&probe_member}};
        smap probed = {0};
        size_t count;
        rc = extract_probe(c, v, pick_named, &f, &probe, &probed, &count);
        f.probed = &probed;
        hit = rc ? NULL : find_probed(&f, v, NULL, 0);
        if (!rc && f.oom) rc = COAX_ENOMEM;
    }
    if (hit && !f.oom) {
        *pointer = f.path.oom ? NULL : coax_arena_strdup(a, f.path.data ? f.path.data : "", f.path.len);
        coax_buf b;
        coax_buf_init(&b, coax_arena_allocator(a));
        size_t shown = hit->len > 40 ? 40 : hit->len;
        while (shown && shown < hit->len && ((unsigned char)hit->u.text[shown] & 0xC0) == 0x80)
            shown--; /* whole chars */
        coax_buf_printf(&b, "a placeholder where a value was due (\"%.*s\"): send the value itself", (int)shown,
                        hit->u.text);
        *message = b.oom || !*pointer ? NULL : coax_arena_strdup(a, b.data, b.len);
        coax_buf_free(&b);
        if (!*message) rc = COAX_ENOMEM, *pointer = NULL;
    }
    coax_buf_free(&f.path);
    return rc;
}
