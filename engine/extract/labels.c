/*
** labels.c: what the coercions read in a member's name: its loose form, a
** name close enough to be another misspelt, a label saying it holds no
** answer, and which JSON types a property's "type" admits; and the labels
** and comments before a candidate, or its block's tag, that say it holds no answer;
** and more JSON after the answer inside its own fence or tag; a list item's
** marker before a span.
*/
#include "extract/coerce.h"
#include "repair/repair.h"
#include "base/unicode_nfc.h"

#include <string.h>

/* 'key' lowercased with only its letters, digits and bytes past ASCII, in
** 'out' (false: too long): one name however its words are joined. */
bool coerce_norm_key(const char *key, size_t klen, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < klen; i++) {
        unsigned char ch = (unsigned char)key[i];
        if (ch < 0x80 && !coax_ascii_alnum(ch)) continue; /* "first_name", "age (corrected)", "user.email" */
        if (n + 1 >= cap) return false;
        out[n++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    out[n] = '\0';
    return true;
}

char *coerce_joined(coax_arena *a, const char *s, size_t n)
{
    char *out = coax_arena_alloc(a, n + 1);
    if (out) coerce_norm_key(s, n, out, n + 1);
    return out;
}

/* Whether a[0..n) and b[0..m) are at most 'most' edits apart (a letter
** added, lost, changed, or two swapped): at most 4^most steps a letter. */
static bool within_edits(const char *a, size_t n, const char *b, size_t m, unsigned most)
{
    while (n && m && *a == *b) a++, b++, n--, m--;
    if (!n || !m) return (n > m ? n : m) <= most;
    if (!most) return false;
    return within_edits(a + 1, n - 1, b + 1, m - 1, most - 1) || within_edits(a + 1, n - 1, b, m, most - 1) ||
           within_edits(a, n, b + 1, m - 1, most - 1) ||
           (n > 1 && m > 1 && a[0] == b[1] && a[1] == b[0] && within_edits(a + 2, n - 2, b + 2, m - 2, most - 1));
}

/* Whether b[0..m) is a[0..n) (n <= m) with a typing slip that makes no
** other word: its plural ("ages"), a letter doubled ("agee"), two
** neighbours swapped ("aeg"). */
static bool short_slip(const char *a, size_t n, const char *b, size_t m)
{
    if (m == n + 1) {
        size_t i = 0;
        while (i < n && a[i] == b[i]) i++; /* b[i] is the added letter */
        if (memcmp(a + i, b + i + 1, n - i)) return false;
        return (i == n && b[i] == 's') || (i > 0 && b[i] == b[i - 1]);
    }
    size_t i = 0;
    while (i < n && a[i] == b[i]) i++;
    return m == n && n >= 3 && i + 1 < n && a[i] == b[i + 1] && a[i + 1] == b[i] && !memcmp(a + i + 2, b + i + 2, n - i - 2);
}

bool coerce_names_near(const char *x, size_t xn, const char *y, size_t yn, bool holding)
{
    char a[257], b[257];
    /* a name too long to compare may be the other misspelt: dropping it, or
    ** filling a default beside it, would be the guess */
    if (!coerce_norm_key(x, xn, a, sizeof a) || !coerce_norm_key(y, yn, b, sizeof b)) return true;
    size_t n = strlen(a), m = strlen(b);
    if (n < 2 || m < 2) return false;
    /* beside a present one, a short name a letter from it is as often
    ** another name (id and ip, en and es, url and uri, cc and bcc) as it
    ** misspelt: only a slip that makes no other is it again */
    if (!holding && (n < 4 || m < 4)) return n < m ? short_slip(a, n, b, m) : short_slip(b, m, a, n);
    if (holding && ((n >= 3 && strstr(b, a)) || (m >= 3 && strstr(a, b)))) return true;
    size_t most = (n < m ? n : m) > 5 ? 2 : 1;
    return (n > m ? n - m : m - n) <= most && within_edits(a, n, b, m, (unsigned)most);
}

/* Whether two keys may be one name misspelt: ignoring case, spaces, '_'
** and '-', one holds the other ("age_years", "age") or they are one edit
** apart, two for longer names (a letter added, lost, changed or two
** swapped: "aeg", "adress", "emial"). */
bool coerce_names_close(const char *x, size_t xn, const char *y, size_t yn)
{
    return coerce_names_near(x, xn, y, yn, true);
}

/* A value's bit among those of types_taken: integers apart from other numbers. */
unsigned coerce_type_bit(const coax_value *v)
{
    if (v->type == COAX_NUMBER && (v->flags & COAX_VF_INT_TEXT)) return 1u << 7;
    return 1u << v->type;
}

/* The bits (type_bit) of the values a property schema's "type" admits;
** every bit when it states none (an enum, a $ref elsewhere, any value). */
unsigned coerce_types_taken(const coax_value *t)
{
    if (!t) return ~0u;
    unsigned bits = 0;
    size_t nt = t->type == COAX_ARRAY ? t->len : 1;
    for (size_t i = 0; i < nt; i++) {
        const coax_value *one = t->type == COAX_ARRAY ? &t->u.items[i] : t;
        if (one->type != COAX_STRING) return ~0u;
        const char *w = one->u.text;
        if (!strcmp(w, "integer")) bits |= 1u << 7;
        else if (!strcmp(w, "number")) bits |= 1u << 7 | 1u << COAX_NUMBER;
        else if (!strcmp(w, "string")) bits |= 1u << COAX_STRING;
        else if (!strcmp(w, "boolean")) bits |= 1u << COAX_BOOL;
        else if (!strcmp(w, "object")) bits |= 1u << COAX_OBJECT;
        else if (!strcmp(w, "array")) bits |= 1u << COAX_ARRAY;
        else if (!strcmp(w, "null")) bits |= 1u << COAX_NULL;
    }
    return bits;
}

/* A label lowercased as coerce_norm_key writes it, with the byte pairs it
** holds hashed into 1,024 bits: a stem whose first two bytes are not among
** them is not in it, so each of the ~170 stems costs a bit test where it
** cost a strstr (11,000 instructions a label, twice an extraction). */
typedef struct norm_label {
    char text[257];
    uint64_t pairs[16];
} norm_label;

static unsigned pair_bit(unsigned char a, unsigned char b)
{
    return (a * 33u + b) & 1023u;
}

static bool norm_label_of(const char *key, size_t klen, norm_label *l)
{
    if (!coerce_norm_key(key, klen, l->text, sizeof l->text)) return false;
    memset(l->pairs, 0, sizeof l->pairs);
    for (const unsigned char *p = (const unsigned char *)l->text; p[0] && p[1]; p++) {
        unsigned h = pair_bit(p[0], p[1]);
        l->pairs[h >> 6] |= (uint64_t)1 << (h & 63);
    }
    return true;
}

/* Whether the label holds 'stem': a short stem whole ("old", not
** "oldest"), a longer one anywhere ("incorrect_value"). */
static bool label_has_stem(const norm_label *l, const char *stem)
{
    if (!stem[1] || !stem[2] || !stem[3]) return !strcmp(l->text, stem);
    unsigned h = pair_bit((unsigned char)stem[0], (unsigned char)stem[1]);
    return (l->pairs[h >> 6] >> (h & 63) & 1) && strstr(l->text, stem);
}

static bool label_has_any(const norm_label *l, const char *const *stems, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (label_has_stem(l, stems[i])) return true;
    return false;
}

static bool label_says_no_answer(const norm_label *l)
{
    static const char *const stems[] = {"error", "warning", "example", "sample", "template", "schema", "draft",
                                        "previous", "old", "before", "wrong", "incorrect", "invalid", "reject",
                                        "exclud", "fail", "missing", "removed", "input", "question",
                                        /* a stand-in, another choice, or what was there first */
                                        "mock", "dummy", "fake", "placeholder", "hypothetic", "alternativ",
                                        "original", "deprecat", "obsolete", "outdated", "unused", "discard",
                                        "ignor", "skipped", "delet", "duplicat", "unmatch", "not",
                                        /* the user's words echoed (as extract.c's echo_word reads a label) */
                                        "query", "request", "prompt",
                                        /* one choice of several, a try before the answer, a part of it */
                                        "hypothes", "counterfact", "option", "candidate", "attempt", "initial",
                                        "firsttry", "partial", "fallback", "oldvalue",
                                        /* the same in the languages models answer in most besides English
                                        ** (a stem past ASCII is as written: Cyrillic in both cases) */
                                        "ejemplo", "exemple", "beispiel", "exemplo", "esempio", "пример", "Пример",
                                        "示例", "例子", "范例", "例", "サンプル", "erroneo", "erróneo", "falsch",
                                        "faux", "fausse", "falso", "errado", "errada", "equivocad", "sbagliat", "errat", "неправильн", "Неправильн",
                                        "неверн", "Неверн", "错误", "誤り", "間違", "anterior", "vorherig",
                                        "précédent", "precedent", "предыдущ", "Предыдущ", "之前", "以前", "前回",
                                        "borrador", "brouillon", "entwurf", "rascunho", "bozza", "черновик",
                                        "Черновик", "草稿", "下書き", "plantilla", "vorlage", "шаблон", "Шаблон",
                                        "模板", "テンプレート", "opción", "opcion", "opção", "opcao", "opzione",
                                        "вариант", "Вариант", "选项", "候補", "pregunta", "frage", "pergunta",
                                        "domanda", "вопрос", "Вопрос", "问题", "質問", "requête",
                                        "requete", "anfrage", "richiesta", "запрос", "Запрос", "请求", "hipotetic",
                                        "hipotétic", "ipotetic", "hypothétique", "ficticio", "fictif", "fittizi",
                                        "fiktiv"};
    return label_has_any(l, stems, sizeof stems / sizeof *stems);
}

bool coerce_not_answer_label(const char *key, size_t klen)
{
    norm_label l;
    return !norm_label_of(key, klen, &l) || label_says_no_answer(&l); /* too long to read: it may say so */
}

bool coerce_not_answer_tag(const char *name, size_t n)
{
    static const char *const others[] = {"user", "system", "human", "context", "document", "documents", "observation",
                                         "source", "sources", "reference", "references", "retrieved", "quote",
                                         /* struck out: text the model deleted (HTML's <del>, <s>, <strike>) */
                                         "del", "s", "strike",
                                         /* a guess named as one, as "My guess:" (<guess> alone, as "Guess:",
                                         ** names a game's answer) */
                                         "myguess", "bestguess"};
    static const char *const stems[] = {"toolresult", "toolresponse", "tooloutput", "functionresult",
                                        "functionresponse", "functionoutput", "searchresult"};
    norm_label l;
    if (!norm_label_of(name, n, &l) || label_says_no_answer(&l)) return true;
    /* the whole names compared whole, the stems anywhere */
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (!strcmp(l.text, others[i])) return true;
    return label_has_any(&l, stems, sizeof stems / sizeof *stems);
}

bool coerce_joined_equal(coax_arena *a, const char *joined, const char *y, size_t yn)
{
    char buf[256];
    char *jy = yn < sizeof buf ? buf : coax_arena_alloc(a, yn + 1);
    bool oom = false;
    if (!jy) return true;
    coerce_norm_key(y, yn, jy, yn + 1);
    bool eq = coax_nfc_fold_equal(coax_arena_allocator(a), joined, strlen(joined), jy, strlen(jy), &oom);
    return eq || oom;
}

void coerce_trim(const char **s, size_t *n)
{
    while (*n && coax_byte_in(" \t\r\n", (*s)[0])) (*s)++, (*n)--;
    while (*n && coax_byte_in(" \t\r\n", (*s)[*n - 1])) (*n)--;
}

bool coerce_loose_equal(coax_arena *a, const char *x, size_t xn, const char *y, size_t yn)
{
    bool oom;
    coerce_trim(&x, &xn);
    coerce_trim(&y, &yn);
    return coax_nfc_fold_equal(coax_arena_allocator(a), x, xn, y, yn, &oom);
}

bool coerce_same_trimmed(const char *s, size_t n, const char *name, size_t nn)
{
    coerce_trim(&s, &n);
    return n == nn && !memcmp(s, name, n);
}

/* Whether a tagged candidate's tag says it holds no answer (<example>,
** <draft>, <wrong_answer>, <tool_result>): read at its tagged_block entry,
** the tag's start. */
bool extract_unanswering_tag(const char *text, size_t len, const coax_candidate *cand)
{
    if (cand->source != COAX_SOURCE_TAGGED) return false;
    for (size_t i = 0; i < cand->nlog; i++) {
        size_t at = cand->log[i].offset + 1, n = 0;
        if (strcmp(cand->log[i].kind, "tagged_block") || at >= len) continue;
        while (at + n < len && text[at + n] != '>' && !coax_ascii_space((unsigned char)text[at + n]))
            n++; /* the name */
        return coerce_not_answer_tag(text + at, n);
    }
    return false;
}

/* Whether w[0..n) is one of the words (coax_word_in: lengths compared first). */
#define WORD_IN(w, n, words) coax_word_in(w, n, words, sizeof words / sizeof *words)

/* Whether the word w[0..n) (ignoring case, a plural's 's') says what
** follows is no answer: "Example:", "Wrong answer:", "Before:". Narrower
** than a tag's list: "For your input:" introduces the answer. */
static bool unanswering_word(const char *w, size_t n)
{
    static const coax_word words[] = {
        COAX_WORD("example"), COAX_WORD("sample"), COAX_WORD("wrong"), COAX_WORD("incorrect"), COAX_WORD("invalid"),
        COAX_WORD("previous"), COAX_WORD("before"), COAX_WORD("template"), COAX_WORD("schema"), COAX_WORD("mock"),
        COAX_WORD("dummy"), COAX_WORD("placeholder"), COAX_WORD("hypothetical"), COAX_WORD("rejected"),
        COAX_WORD("bad"), COAX_WORD("old"), COAX_WORD("original"), COAX_WORD("counterexample"), COAX_WORD("thought"),
        COAX_WORD("thinking"), COAX_WORD("reasoning"), COAX_WORD("analysis"), COAX_WORD("attempt"),
        COAX_WORD("initial"), COAX_WORD("option"), COAX_WORD("candidate"), COAX_WORD("hypothesis"),
        COAX_WORD("partial"), COAX_WORD("ejemplo"), COAX_WORD("exemple"), COAX_WORD("beispiel"),
        COAX_WORD("exemplo"), COAX_WORD("esempio"), COAX_WORD("borrador"), COAX_WORD("brouillon"),
        COAX_WORD("entwurf"), COAX_WORD("rascunho"), COAX_WORD("bozza"), COAX_WORD("plantilla"),
        COAX_WORD("vorlage"),
        /* a supposition ("Suppose:", "Hypothetically:"), as "Suppose {...}" on the value's own line */
        COAX_WORD("suppose"), COAX_WORD("supposing"), COAX_WORD("assume"), COAX_WORD("assuming"),
        COAX_WORD("imagine"), COAX_WORD("hypothetically"), COAX_WORD("illustration"), COAX_WORD("supongamos"),
        COAX_WORD("imaginemos"), COAX_WORD("supposons"), COAX_WORD("imaginons"), COAX_WORD("angenommen"),
        COAX_WORD("suponhamos"), COAX_WORD("supponiamo"), COAX_WORD("immaginiamo")};
    size_t singular = n > 1 && (w[n - 1] | 32) == 's' ? n - 1 : n; /* "Examples:"; "Analysis:" ends in s */
    return WORD_IN(w, n, words) || (singular != n && WORD_IN(w, singular, words));
}

/* Whether the word w[0..n) says what follows is the answer after all
** ("Wrong; corrected:", "Bad example, fixed:"): a label holding one is no
** label of a non-answer. */
static bool answering_word(const char *w, size_t n)
{
    static const coax_word words[] = {
        COAX_WORD("correct"), COAX_WORD("corrected"), COAX_WORD("correction"), COAX_WORD("fixed"),
        COAX_WORD("final"), COAX_WORD("updated"), COAX_WORD("filled"), COAX_WORD("completed"), COAX_WORD("revised"),
        COAX_WORD("instead"), COAX_WORD("right"), COAX_WORD("actual"), COAX_WORD("new"), COAX_WORD("chosen"),
        COAX_WORD("selected"), COAX_WORD("best"), COAX_WORD("recommended"), COAX_WORD("preferred"),
        COAX_WORD("correcto"), COAX_WORD("corregido"), COAX_WORD("correto"), COAX_WORD("corrigido"),
        COAX_WORD("richtig"), COAX_WORD("korrigiert"), COAX_WORD("corretto")};
    return WORD_IN(w, n, words);
}

/* Whether the word w[0..n) names what the user or a tool gave ("Input:",
** "User request:", "Observation:" in a ReAct trace): JSON after it echoes
** the question, unless the label says the answer is for it ("For your
** input:"). */
static bool echo_word(const char *w, size_t n)
{
    static const coax_word words[] = {
        COAX_WORD("input"), COAX_WORD("request"), COAX_WORD("query"), COAX_WORD("prompt"), COAX_WORD("question"),
        COAX_WORD("user"), COAX_WORD("human"), COAX_WORD("system"), COAX_WORD("observation"), COAX_WORD("context")};
    return WORD_IN(w, n, words);
}

/* Whether text[b..e), e just past a colon, is a label of a non-answer: at
** most four words, one of them of unanswering_word (or of echo_word, with
** no "for") and none of answering_word ("For example:", "**Wrong
** answer:**", "Input:"). */
/* Whether w[0..n), a word holding letters past ASCII, is one of 'words':
** as a whole word (Cyrillic, listed in both cases), or anywhere in it for
** an entry of Chinese or Japanese, which write no spaces ("错误示例"). */
static bool other_word_in(const char *w, size_t n, const char *const *words, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        size_t k = strlen(words[i]);
        if ((unsigned char)words[i][0] < 0xE3 || (unsigned char)words[i][0] > 0xE9) {
            if (k == n && !memcmp(w, words[i], k)) return true;
            continue;
        }
        for (size_t j = 0; j + k <= n; j++)
            if (!memcmp(w + j, words[i], k)) return true;
    }
    return false;
}

/* The label words of unanswering_word, echo_word and answering_word in
** the languages past ASCII that retract.c reads (Russian, Chinese,
** Japanese): "Пример:", "示例：", "错误答案：", "問題：", "最终答案：". */
static const char *const other_unanswering[] = {"пример", "Пример", "примеры", "Примеры", "черновик",
                                                "Черновик", "неверный", "Неверный", "неправильный",
                                                "Неправильный", "示例", "例子", "范例", "错误", "草稿", "旧",
                                                "例", "サンプル", "下書き", "間違", "誤り", "思考", "推理",
                                                "предположим", "Предположим", "假设", "假如", "仮に"};
static const char *const other_echo[] = {"вопрос", "Вопрос", "запрос", "Запрос", "问题", "输入", "入力", "質問"};
static const char *const other_answering[] = {"исправленный", "Исправленный", "最终", "更正后", "修正後", "正解"};
#define OTHER_WORD(w, n, words) other_word_in(w, n, words, sizeof words / sizeof *words)

/* Past the blanks (coax_blank_at) at text[b..e); before those ending at
** text[e], or '\r' or '*' too with 'marks': a no-break space parts a
** label's words as a space does ("Wrong answer:", U+00A0 between). */
static size_t blanks_end(const char *text, size_t b, size_t e)
{
    return (size_t)(coax_blanks_end(text + b, text + e) - text);
}
static size_t blanks_start(const char *text, size_t b, size_t e, bool marks)
{
    for (size_t k; e > b && ((k = coax_blank_before(text + b, text + e)) || (marks && coax_byte_in("\r*", text[e - 1])));)
        e -= k ? k : 1;
    return e;
}

/* echoes: whether a word of echo_word counts (not in a comment line's words: "// The user's profile") */
/* The length of an inline HTML tag at text[p..e) (<b>, </strong>, <h3>), or 0: markup around a label's words. */
static size_t inline_tag_at(const char *text, size_t p, size_t e)
{
    if (text[p] != '<') return 0;
    size_t name = p + 1 < e && text[p + 1] == '/' ? p + 2 : p + 1, q = name;
    while (q < e && q - name < 10 && coax_ascii_alpha((unsigned char)text[q])) q++;
    while (q < e && q - name < 10 && text[q] >= '1' && text[q] <= '6') q++; /* <h3> */
    return q > name && q < e && text[q] == '>' ? q + 1 - p : 0;
}

/* Where text[b..e) ends before the markup that closes a label after its words or colon: blanks, '\r', markdown's
** '*' and '_', inline HTML's closing tags ("**Wrong answer:**", "__Example:__", "<b>Example:</b>"). */
static size_t label_marks_start(const char *text, size_t b, size_t e)
{
    for (size_t k;; e = k) {
        k = blanks_start(text, b, e, true);
        while (k > b && (text[k - 1] == '_' || text[k - 1] == '|')) k--; /* __Example:__, a table's cell */
        for (size_t j = k > 12 + b ? k - 12 : b; k > b && text[k - 1] == '>' && j + 1 < k; j++)
            if (text[j] == '<' && text[j + 1] == '/' && inline_tag_at(text, j, k) == k - j) {
                k = j;
                break;
            }
        if (k == e) return e;
    }
}

static bool unanswering_words(const char *text, size_t b, size_t e, bool echoes)
{
    size_t words = 0;
    bool unanswering = false, echo = false, for_it = false;
    for (size_t p = b, k; p < e - 1;) {
        if ((k = coax_blank_at(text + p, text + e - 1))) {
            p += k;
            continue;
        }
        unsigned char ch = (unsigned char)text[p];
        if ((k = inline_tag_at(text, p, e - 1))) { /* <b>Example</b> */
            p += k;
            continue;
        }
        if (!coax_ascii_alpha(ch) && ch < 0x80) {
            /* markdown's marks, "Example 2", a list item's number, "1. Example:", DSPy's "[[ ## example ## ]]" */
            bool ordinal = ch == '.' && p > b && text[p - 1] >= '0' && text[p - 1] <= '9';
            if (!ordinal && !coax_byte_in(" \t*_#>-()[]'|0123456789", ch)) return false;
            p++;
            continue;
        }
        size_t w = p;
        bool past_ascii = false;
        for (; p < e - 1 && (coax_ascii_alpha((unsigned char)text[p]) || (unsigned char)text[p] >= 0x80) &&
               !coax_blank_at(text + p, text + e - 1);
             p++)
            if ((unsigned char)text[p] >= 0x80) past_ascii = true;
        if (++words > 4) return false;
        if (past_ascii) {
            if (OTHER_WORD(text + w, p - w, other_answering)) return false;
            unanswering = unanswering || OTHER_WORD(text + w, p - w, other_unanswering);
            echo = echo || OTHER_WORD(text + w, p - w, other_echo);
            continue;
        }
        if (answering_word(text + w, p - w)) return false;
        unanswering = unanswering || unanswering_word(text + w, p - w);
        echo = echo || echo_word(text + w, p - w);
        for_it = for_it || (p - w == 3 && coax_ascii_casesame(text + w, "for", 3));
    }
    return unanswering || (echoes && echo && !for_it);
}

static bool unanswering_label(const char *text, size_t b, size_t e)
{
    return unanswering_words(text, b, e, true);
}

/* The length of the colon text[..e) ends with: 1 for ':', 3 for a
** full-width one ('：', Chinese and Japanese labels), 0 for none. */
static size_t colon_at_end(const char *text, size_t b, size_t e)
{
    if (e > b && text[e - 1] == ':') return 1;
    return e - b >= 3 && !memcmp(text + e - 3, "\xEF\xBC\x9A", 3) ? 3 : 0;
}

/* colon_at_end's, or the length of an arrow or a dash that stands for a colon after a label's words, a blank
** before it ("Example -> {...}", "Example - {...}", "Example \u2014 {...}"): 0 for none. */
static size_t separator_at_end(const char *text, size_t b, size_t e)
{
    size_t n = colon_at_end(text, b, e);
    if (n) return n;
    static const char *const signs[] = {"->", "=>", "-", "\xE2\x86\x92", "\xE2\x80\x94", "\xE2\x80\x93"};
    for (size_t i = 0; i < sizeof signs / sizeof *signs; i++) {
        size_t k = strlen(signs[i]);
        if (e - b > k && !memcmp(text + e - k, signs[i], k) && coax_blank_before(text + b, text + e - k))
            return k;
    }
    return 0;
}

/* Whether the line ending at 'end' (its '\n' or the text's start) is a
** label of a non-answer that is the whole line: a colon last, after
** markdown's closing marks, or a markdown heading. The look back stops at 64 bytes: a longer
** line is no label. */
static bool label_line(const char *text, size_t end)
{
    size_t origin = extract_text_origin(text, end), line = end, stop = end > 64 ? end - 64 : 0;
    if (stop < origin) stop = origin;
    while (line > stop && text[line - 1] != '\n') line--;
    if (line > origin && text[line - 1] != '\n') return false;
    size_t e = label_marks_start(text, line, end), b = line;
    b = extract_past_invisible(text, blanks_end(text, b, e), e);
    if (e - b >= 2 && text[b] == '/' && text[b + 1] == '/') b = blanks_end(text, b + 2, e); /* "// Example" */
    size_t colon = colon_at_end(text, b, e);
    if (e > b && !colon && text[b] == '#') /* a markdown heading, "## Reasoning", needs no colon */
        return unanswering_label(text, b, e + 1);
    /* nor does a line of a label's words alone in any markup ("Example", "**Example**", "<h3>Example</h3>",
    ** "// example"), the user's words aside ("// The user's profile" names the answer's) */
    if (e > b && !colon) return unanswering_words(text, b, e + 1, false);
    return colon && unanswering_label(text, b, e - colon + 1);
}

/* Where the line above ends (its '\n') when text[b..e), a line that starts at 'start', is a setext heading's
** underline ("-------", "=======") under a line that is no blank one: that line is a heading (label_line reads it);
** else 0. */
static size_t setext_heading_end(const char *text, size_t origin, size_t start, size_t b, size_t e)
{
    e = blanks_start(text, b, e, true);
    if (e - b < 3 || (text[b] != '-' && text[b] != '=') || start < origin + 2 || text[start - 2] == '\n') return 0;
    for (size_t k = b; k < e; k++)
        if (text[k] != text[b]) return 0;
    return start - 1;
}

static bool tag_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Whether the value at 'start' sits in an element whose opening tag, the nearest one before it with no closing tag
** between, says it holds no answer, where the scan took no tagged block: the tag holds a fence
** (<example>\n```json\n{...}```), attributes (<example id="1">{...}) or text before the value. Bounded, as a
** label's look is. */
static bool in_unanswering_element(const char *text, size_t origin, size_t start)
{
    size_t stop = start > 160 ? start - 160 : 0;
    if (stop < origin) stop = origin;
    for (size_t p = start; p > stop;) {
        if (text[--p] != '<' || p + 1 >= start) continue;
        if (text[p + 1] == '/') return false; /* past an element closed: in none */
        size_t n = 0;
        while (p + 1 + n < start && tag_name_char(text[p + 1 + n])) n++;
        size_t after = p + 1 + n;
        if (!n || after >= start || (text[after] != '>' && !coax_ascii_space((unsigned char)text[after])) ||
            !memchr(text + after, '>', start - after))
            continue; /* no tag: "x < 5", "List<T" */
        return coerce_not_answer_tag(text + p + 1, n);
    }
    return false;
}

/* Whether the info string of the fence opening at text[b..e) names no answer as a tag would (```example, ```wrong):
** no language is so named; or its title's or file name's words do as a label's (```json title="example.json"). */
static bool fence_info_unanswering(const char *text, size_t b, size_t e)
{
    while (b < e && (text[b] == '`' || text[b] == '~')) b++;
    size_t w = b;
    while (w < e && tag_name_char(text[w])) w++;
    if (w > b && coerce_not_answer_tag(text + b, w - b)) return true;
    for (b = w; b < e; b = w) { /* a title's or a file name's words, as a label's (title="example.json") */
        for (w = b; w < e && tag_name_char(text[w]);) w++;
        if (w > b && coerce_not_answer_label(text + b, w - b)) return true;
        if (w == b) w++;
    }
    return false;
}

/* Whether text[line..e), before a value on its line, assigns it to a variable named as a label or a tag of no answer
** would be ("example = {...}", "const bad_example = {...}", "EXAMPLE_RESPONSE := {...}"): the code names it so. */
static bool assigned_to_label(const char *text, size_t line, size_t e)
{
    if (e == line || text[e - 1] != '=' || (e - line >= 2 && coax_byte_in("=!<>", text[e - 2]))) return false;
    size_t v = e - 1;
    if (v > line && text[v - 1] == ':') v--; /* := */
    v = blanks_start(text, line, v, false);
    size_t i = v;
    while (i > line && tag_name_char(text[i - 1])) i--;
    return i < v && coerce_not_answer_label(text + i, v - i);
}

/* Whether a span of prose or a fenced block is marked as no answer by what stands before it: on its line, a comment
** that opens there (<!-- {...} -->, a block comment, // {...}: text taken out) or a label that is the whole line
** before it (unanswering_label); for a value that starts its line, a label that is the whole of the line above,
** past blank lines and a fence's opening ("Wrong answer:\n```json\n{...}```" is the same label as "Wrong answer:
** {...}"). A word before a colon inside a sentence ("That was wrong; corrected: {...}") labels nothing. */
static bool remarked_no_answer(const char *text, size_t len, const coax_candidate *cand);
bool extract_unanswering_prose(const char *text, size_t len, const coax_candidate *cand)
{
    if (cand->source == COAX_SOURCE_WHOLE && remarked_no_answer(text, len, cand)) return true; /* {...} (example) */
    if ((cand->source != COAX_SOURCE_PROSE && cand->source != COAX_SOURCE_FENCED) || cand->start > len) return false;
    if (remarked_no_answer(text, len, cand)) return true;
    size_t origin = extract_text_origin(text, cand->start), line = cand->start;
    if (in_unanswering_element(text, origin, cand->start)) return true;
    size_t stop = cand->start > 64 ? cand->start - 64 : 0;
    if (stop < origin) stop = origin;
    while (line > stop && text[line - 1] != '\n') line--;
    size_t e = blanks_start(text, line, cand->start, false), quote = line;
    while (quote < e && (text[quote] == '>' || text[quote] == ' ')) quote++; /* a quotation's "> " */
    if (quote == e && (line == origin || text[line - 1] == '\n')) { /* the value starts its line: the label is above */
        bool fence = false;
        while (line > origin) {
            size_t above = line - 1, b = above; /* above: the '\n' ending the line above */
            while (b > origin && text[b - 1] != '\n' && above - b < 64) b--;
            size_t start = b;
            b = blanks_end(text, b, above);
            size_t q = b; /* a quotation's empty line, ">", is blank too */
            while (q < above && (text[q] == '>' || text[q] == ' ')) q++;
            bool blank = blanks_start(text, q, above, true) == q && !memchr(text + q, '*', above - q);
            bool opens = !fence && above - b >= 3 && (!memcmp(text + b, "```", 3) || !memcmp(text + b, "~~~", 3));
            if (opens && fence_info_unanswering(text, b, above)) return true;
            /* a label before the fence on its line ("Example: ```json"): the line up to the fence */
            size_t f = blank || opens || fence ? above : b + 1;
            while (f + 3 <= above && memcmp(text + f, "```", 3) && memcmp(text + f, "~~~", 3)) f++;
            if (f + 3 <= above) return label_line(text, blanks_start(text, b, f, false));
            if (!blank && !opens) {
                size_t heading = setext_heading_end(text, origin, start, b, above);
                return label_line(text, heading ? heading : above);
            }
            fence = fence || opens;
            line = b;
            while (line > origin && text[line - 1] != '\n') line--;
        }
        return false;
    }
    if (cand->source != COAX_SOURCE_PROSE) return false;
    if ((e - line >= 4 && !memcmp(text + e - 4, "<!--", 4)) || (e - line >= 2 && !memcmp(text + e - 2, "/*", 2)))
        return true;
    /* struck out, markdown's ~~{...}~~: text the model deleted (not a fence's ~~~) */
    if (e - line >= 2 && !memcmp(text + e - 2, "~~", 2) && (e - line == 2 || text[e - 3] != '~')) return true;
    if (assigned_to_label(text, line, e)) return true;
    size_t plain = blanks_start(text, line, e, false);
    e = label_marks_start(text, line, plain); /* **Example:**, <b>Example:</b> */
    size_t b = extract_past_invisible(text, blanks_end(text, line, e), e);
    if (e - b >= 2 && text[b] == '/' && text[b + 1] == '/') return true;
    size_t colon = separator_at_end(text, line, e);
    if (line > origin && text[line - 1] != '\n') return false;
    /* a label set off by its markup alone needs no colon: "**Example** {...}", "<b>Example</b> {...}",
    ** "(example) {...}" */
    bool bracketed = e - b >= 2 && text[b] == '(' && text[e - 1] == ')';
    if (!colon) return (e < plain || bracketed) && e > b && unanswering_words(text, b, e + 1, false);
    return unanswering_label(text, b, e - colon + 1);
}

/* Whether w[0..n), a word of a remark after the value, doubts it or calls it made up: the labels' words aside. */
static bool remark_doubt_word(const char *w, size_t n)
{
    static const coax_word words[] = {
        COAX_WORD("guess"),       COAX_WORD("guessed"),   COAX_WORD("estimate"),   COAX_WORD("estimated"),
        COAX_WORD("approx"),      COAX_WORD("approximate"), COAX_WORD("approximately"), COAX_WORD("fictional"),
        COAX_WORD("fictitious"),  COAX_WORD("fake"),      COAX_WORD("draft"),      COAX_WORD("unverified")};
    return WORD_IN(w, n, words);
}

/* A remark's letter: ASCII's, or a byte of a character past it ("(例)", "(пример)"). */
static bool remark_letter(char c)
{
    return coax_ascii_alpha((unsigned char)c) || (unsigned char)c >= 0x80;
}

/* The end of the remark opening at text[r..e) (its closing mark's start), *past its closing mark; SIZE_MAX when
** none is set off there. A remark ends at its line's end but for its closing mark. */
static size_t remark_end(const char *text, size_t r, size_t e, bool own_line, size_t *body, size_t *past)
{
    static const struct { const char *open, *close; } marks[] = {
        {"<!--", "-->"}, {"/*", "*/"}, {"//", ""}, {"#", ""}, {"(", ")"}, {"[", "]"}, {"<--", ""}, {"<-", ""},
        {"\xE2\x86\x90", ""}, {"\xE2\x80\x94", ""}, {"\xE2\x80\x93", ""}, {"--", ""}, {"-", ""}, {"**", "**"},
        {"*", "*"}, {"__", "__"}, {"_", "_"}};
    size_t line = r;
    while (line < e && text[line] != '\n') line++;
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
        size_t on = strlen(marks[i].open), cn = strlen(marks[i].close);
        if (line - r < on || memcmp(text + r, marks[i].open, on)) continue;
        *body = r + on;
        if (!cn) return *past = line, line;
        for (size_t k = *body; k + cn <= line; k++)
            if (!memcmp(text + k, marks[i].close, cn)) return *past = k + cn, k;
        return SIZE_MAX;
    }
    *body = r; /* words alone on the line after the value's */
    return own_line ? (*past = line, line) : SIZE_MAX;
}

/* extract_labelling_remark's look; *labels: the remark's words say no answer ("(example)", "(wrong)"), no doubt. */
static size_t labelling_remark(const char *text, size_t from, size_t e, bool *labels)
{
    *labels = false;
    size_t r = from, lines = 0;
    for (bool fence = false;;) { /* past blanks, a line break, and a fenced value's closing fence */
        size_t k = coax_blank_at(text + r, text + e);
        if (k) r += k;
        else if (r < e && (text[r] == '\n' || text[r] == '\r')) lines += text[r++] == '\n';
        else if (!fence && e - r >= 3 && (!memcmp(text + r, "```", 3) || !memcmp(text + r, "~~~", 3))) {
            fence = true;
            lines = 0;
            while (r < e && (text[r] == '`' || text[r] == '~')) r++;
        } else break;
    }
    /* a paragraph of its own after blank lines ("{...}\n\n(wrong)") is the remark alone on the next line, when
    ** nothing follows it: a heading over more text, or a label's colon, opens what comes next */
    bool paragraph = lines > 1;
    size_t body, past, end = r < e ? remark_end(text, r, e, lines >= 1, &body, &past) : SIZE_MAX;
    if (end == SIZE_MAX || end - body > 48) return SIZE_MAX;
    size_t stop = e; /* a paragraph's remark: prose after a blank line heads no JSON ("Let me know ..."); JSON it may */
    for (size_t k = past, q; paragraph && k < e; k++) {
        for (q = k + 1; text[k] == '\n' && q < e && (text[q] == ' ' || text[q] == '\t' || text[q] == '\r');) q++;
        if (text[k] != '\n' || q >= e || text[q] != '\n') continue;
        if (!memchr(text + q, '{', e - q) && !memchr(text + q, '[', e - q) && !memchr(text + q, '`', e - q)) stop = k;
        break;
    }
    for (size_t k = past, n; k < stop && (paragraph || text[k] != '\n'); k += n ? n : 1) /* nothing more but a stop */
        if (!(n = coax_blank_at(text + k, text + e)) && !coax_byte_in(paragraph ? "\r\n.!" : "\r.!", text[k]))
            return SIZE_MAX;
    for (size_t k; end > body && ((k = coax_blank_before(text + body, text + end)) || coax_byte_in("\r.!:", text[end - 1]));) {
        if (paragraph && text[end - 1] == ':') return SIZE_MAX;
        end -= k ? k : 1;
    }
    body = blanks_end(text, body, end);
    if (end == body) return SIZE_MAX;
    size_t words = 0; /* a remark is a few words: a sentence is retract.c's to read */
    for (size_t p = body, k; p < end; p += k ? k : 1) {
        bool letter = remark_letter(text[p]);
        if (!(k = coax_blank_at(text + p, text + end)) && !letter && !coax_byte_in("'-.", text[p])) return SIZE_MAX;
        words += letter && (p == body || !remark_letter(text[p - 1]));
    }
    if (words > 4) return SIZE_MAX;
    static const coax_word pointing[] = {COAX_WORD("see"), COAX_WORD("from"), COAX_WORD("based"), COAX_WORD("like"),
                                         COAX_WORD("per"), COAX_WORD("as"), COAX_WORD("than"), COAX_WORD("unlike"),
                                         COAX_WORD("vs"), COAX_WORD("above"), COAX_WORD("below")};
    for (size_t p = body, q; p < end; p = q + 1) { /* "(see the example above)" points at another value */
        for (q = p; q < end && coax_ascii_alpha((unsigned char)text[q]);) q++;
        if (q > p && WORD_IN(text + p, q - p, pointing)) return SIZE_MAX;
    }
    /* "(my guess)", "(estimated)", "My guess.", "Wrong answer."; a sentence alone in plain words ("The age is
    ** approximate.", "This is sample data.") is retract.c's to read */
    if (body == r && words > 2) return SIZE_MAX;
    if (unanswering_words(text, body, end + 1, false)) return *labels = true, r;
    for (size_t p = body, q; p < end; p = q + 1) {
        for (q = p; q < end && coax_ascii_alpha((unsigned char)text[q]);) q++;
        if (q > p && remark_doubt_word(text + p, q - p)) return r;
    }
    return SIZE_MAX;
}

size_t extract_labelling_remark(const char *text, size_t from, size_t e)
{
    bool labels;
    return labelling_remark(text, from, e, &labels);
}

/* Whether a remark on the value's own line, after it, labels it as no answer ("{...} (example)" then "Answer:
** {...}"): the label's words after the value, as "Example: {...}" has them before. A doubt ("(my guess)") labels
** no other value as the answer; alone, the remark takes its value back (extract_taken_back). */
static bool remarked_no_answer(const char *text, size_t len, const coax_candidate *cand)
{
    if (cand->end <= cand->start || cand->end > len) return false;
    size_t e = len - cand->end > 256 ? cand->end + 256 : len;
    bool labels;
    size_t r = labelling_remark(text, cand->end, e, &labels);
    return r != SIZE_MAX && labels && !memchr(text + cand->end, '\n', r - cand->end);
}

bool extract_labelled_no_answer(const char *before, size_t len, coax_source source)
{
    coax_candidate c = {.source = source, .start = len};
    return extract_unanswering_prose(before, len, &c);
}

/* Where a fenced block or a tag that holds the answer ends: its closing
** fence's line, or its closing tag; the text's end when it never closes. */
static size_t block_end(const char *text, size_t len, const coax_candidate *b)
{
    for (size_t p = b->end; p < len; p++) {
        if (b->source == COAX_SOURCE_TAGGED) {
            if (text[p] == '<' && p + 1 < len && text[p + 1] == '/') return p;
            continue;
        }
        if (text[p] != '\n') continue;
        size_t q = p + 1;
        while (q < len && (text[q] == ' ' || text[q] == '\t')) q++;
        if (len - q >= 3 && (!memcmp(text + q, "```", 3) || !memcmp(text + q, "~~~", 3))) return p;
    }
    return len;
}

size_t extract_more_in_block(coax_arena *arena, const coax_limits *limits, const char *text, size_t len,
                             const coax_candidate *b)
{
    if ((b->source != COAX_SOURCE_FENCED && b->source != COAX_SOURCE_TAGGED) || b->end >= len) return SIZE_MAX;
    size_t end = block_end(text, len, b), from = b->end;
    if (!memchr(text + from, '{', end - from) && !memchr(text + from, '[', end - from)) return SIZE_MAX;
    coax_repair_result r; /* no rewind after: coax_repair lends blocks of the arena back to it */
    coax_error err;
    coax_code rc = coax_repair(arena, text + from, end - from, limits, &r, &err);
    size_t at = rc == COAX_ENOMEM ? from : SIZE_MAX; /* a look that could not be made finds no answer alone */
    for (size_t i = 0; !rc && at == SIZE_MAX && i < r.ncandidates; i++) {
        const coax_value *v = r.candidates[i].value;
        if (v->type != COAX_OBJECT && v->type != COAX_ARRAY) continue;
        int eq = coax_value_equal(v, b->value, coax_arena_allocator(arena));
        if (eq <= 0) at = from + r.candidates[i].start; /* another value, or out of memory */
    }
    return at;
}

/* Where the fence opening the block text[start..] holds stands, when on its line a key, a
** list's bracket or a comma comes before it ({"code" ```json ⏎ {...} ⏎ ```}: the block is a
** value inside JSON the repair could not read, no answer of its own; [```...```], the list
** of it or the block alone, the peers read both ways); SIZE_MAX when not so. */
static size_t fence_inside_json(const char *text, size_t from, size_t start)
{
    size_t p = start;
    if (p > from && text[p - 1] == '\n') p--;
    if (p > from && text[p - 1] == '\r') p--;
    size_t line = p;
    while (line > from && text[line - 1] != '\n') line--;
    size_t fence = line;
    while (fence < p && !repair_fence_at(text, fence, p)) fence++;
    if (fence == p) return SIZE_MAX;
    size_t b = fence;
    while (b > line && (text[b - 1] == ' ' || text[b - 1] == '\t')) b--;
    if (b == line) return SIZE_MAX;
    char c = text[b - 1];
    bool keyed = c == ':' && b - 1 > line && text[b - 2] == '"'; /* "code": ```: a key's, not a label's colon */
    return c == '"' || c == '[' || c == ',' || keyed ? fence : SIZE_MAX; /* {```...```}: no member, one reading */
}

size_t extract_members_unopened(const char *text, size_t from, size_t start, size_t end, size_t to)
{
    size_t fence = fence_inside_json(text, from, start);
    if (fence != SIZE_MAX) return fence;
    size_t key = SIZE_MAX, open = 0, depth = 0;
    for (size_t p = from; p < to; p++) {
        if (p == start) p = end; /* the answer, whole */
        if (p >= to) break;
        char ch = text[p];
        if (open) { /* in a string (opened at open - 1), which a line's end closes in prose */
            if (ch == '\\') p++;
            else if (ch == '\n') open = 0;
            else if (ch == '"') {
                size_t q = p + 1;
                while (q < to && (text[q] == ' ' || text[q] == '\t')) q++;
                if (q < to && text[q] == ':' && !depth && key != SIZE_MAX && p > start) return key; /* and after */
                if (q < to && text[q] == ':' && !depth && key == SIZE_MAX && p < start) key = open - 1;
                open = 0;
            }
            continue;
        }
        if (ch == '"') open = p + 1;
        else if (ch == '{') depth++;
        else if (ch == '}' && depth) depth--;
        else if (ch == '}' && key != SIZE_MAX) return key;
        else if (ch == ']' && depth && p > from && text[p - 1] == '{') depth--; /* {]"name": ...: closed at once */
    }
    return SIZE_MAX;
}

bool extract_item_marker_before(const char *text, size_t b)
{
    if (b == 0) return false;
    size_t m = b - 1;
    if (text[m] == '.' || text[m] == ')') {
        size_t d = m;
        while (d > 0 && m - d < 9 && text[d - 1] >= '0' && text[d - 1] <= '9') d--;
        if (d == m) return false;
        m = d;
    } else if (text[m] != '-' && text[m] != '*' && text[m] != '+') {
        return false;
    }
    for (;;) { /* indentation and byte order marks, one after blank lines too */
        while (m > 0 && (text[m - 1] == ' ' || text[m - 1] == '\t')) m--;
        if (m < 3 || memcmp(text + m - 3, "\xEF\xBB\xBF", 3)) break;
        m -= 3;
    }
    return m == 0 || text[m - 1] == '\n' || text[m - 1] == '\r';
}

/* Whether the text from s to e holds a quoted key ("name": ..., {"name" ...): JSON, not LaTeX's \frac{1}{2}. */
static bool quoted_key_in(const char *t, size_t s, size_t e)
{
    for (size_t i = s; i + 1 < e; i++) {
        if (t[i] != '"') continue;
        size_t k = i + 1, b = i;
        while (k < e && (t[k] == ' ' || t[k] == '\t')) k++;
        while (b > s && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
        if ((k < e && t[k] == ':') || (b > s && t[b - 1] == '{')) return true; /* {"a" 1}: its colon lost */
    }
    return false;
}

/* Whether the candidate needed an invented repair: for a span of prose, one other than being
** closed before members that a colon opens (Schema {"name": "string"}: the answer follows.
** {"name": "Ada"}: the schema's text, closed where it ends, is no unread answer). Members a comma
** glues to it ({"a": 1}, then: {"a": 2}) hold the value after it in one reading, and it is a
** rival of that value in the other. */
static bool invented_log(const char *text, size_t len, const coax_candidate *cand)
{
    size_t after = cand->end;
    while (after < len && coax_ascii_space((unsigned char)text[after])) after++;
    bool glued = after < len && text[after] == ',';
    for (size_t i = 0; i < cand->nlog; i++)
        if (cand->log[i].cls == COAX_CLASS_INVENTED &&
            !(cand->source == COAX_SOURCE_PROSE && !strcmp(cand->log[i].kind, "early_close") && !glued))
            return true;
    return false;
}

bool extract_unread_json(const char *text, size_t len, const coax_candidate *o, bool guessed)
{
    /* a list the reply ends inside ("then: [1, 2", "[\"x") is JSON as a quoted key is; a reference's numbers
    ** ("See [1, 2") are prose's, as when closed */
    bool cut_list = !o->complete && o->end == len && o->start < len && text[o->start] == '[' &&
                    !(o->value && repair_prose_mark(text, len, o->start, o->end, o->value));
    return (guessed || invented_log(text, len, o)) && (cut_list || quoted_key_in(text, o->start, o->end));
}
