/*
** labels.c: what the coercions read in a member's name: its loose form, a
** name close enough to be another misspelt, a label saying it holds no
** answer, and which JSON types a property's "type" admits; and the labels
** and comments before a candidate, or its block's tag, that say it holds no answer;
** and more JSON after the answer inside its own fence or tag; a list item's
** marker before a span.
*/
#include "extract/coerce.h"
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

bool coerce_not_answer_label(const char *key, size_t klen)
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
    char norm[257];
    if (!coerce_norm_key(key, klen, norm, sizeof norm)) return true; /* too long to read: it may say so */
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) /* a short stem whole: "old", not "oldest" */
        if (strlen(stems[i]) > 3 ? strstr(norm, stems[i]) != NULL : !strcmp(norm, stems[i])) return true;
    return false;
}

bool coerce_not_answer_tag(const char *name, size_t n)
{
    static const char *const others[] = {"user", "system", "human", "context", "document", "documents", "observation",
                                         "source", "sources", "reference", "references", "retrieved", "quote"};
    static const char *const stems[] = {"toolresult", "toolresponse", "tooloutput", "functionresult",
                                        "functionresponse", "functionoutput", "searchresult"};
    char norm[257];
    if (coerce_not_answer_label(name, n)) return true;
    if (!coerce_norm_key(name, n, norm, sizeof norm)) return true;
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (!strcmp(norm, others[i])) return true;
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++)
        if (strstr(norm, stems[i])) return true;
    return false;
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
    while (*n && strchr(" \t\r\n", (*s)[0])) (*s)++, (*n)--;
    while (*n && strchr(" \t\r\n", (*s)[*n - 1])) (*n)--;
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
    for (size_t k; e > b && ((k = coax_blank_before(text + b, text + e)) || (marks && strchr("\r*", text[e - 1])));)
        e -= k ? k : 1;
    return e;
}

static bool unanswering_label(const char *text, size_t b, size_t e)
{
    size_t words = 0;
    bool unanswering = false, echo = false, for_it = false;
    for (size_t p = b, k; p < e - 1;) {
        if ((k = coax_blank_at(text + p, text + e - 1))) {
            p += k;
            continue;
        }
        unsigned char ch = (unsigned char)text[p];
        if (!coax_ascii_alpha(ch) && ch < 0x80) {
            if (!ch || !strchr(" \t*_#>-()'0123456789", ch)) return false; /* markdown's marks, "Example 2" */
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
    return unanswering || (echo && !for_it);
}

/* The length of the colon text[..e) ends with: 1 for ':', 3 for a
** full-width one ('：', Chinese and Japanese labels), 0 for none. */
static size_t colon_at_end(const char *text, size_t b, size_t e)
{
    if (e > b && text[e - 1] == ':') return 1;
    return e - b >= 3 && !memcmp(text + e - 3, "\xEF\xBC\x9A", 3) ? 3 : 0;
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
    size_t e = end, b = line;
    e = blanks_start(text, line, e, true);
    b = extract_past_invisible(text, blanks_end(text, b, e), e);
    size_t colon = colon_at_end(text, b, e);
    if (e > b && !colon && text[b] == '#') /* a markdown heading, "## Reasoning", needs no colon */
        return unanswering_label(text, b, e + 1);
    return colon && unanswering_label(text, b, e - colon + 1);
}

/* Whether a span of prose or a fenced block is marked as no answer by what stands before it: on its line, a comment
** that opens there (<!-- {...} -->, a block comment, // {...}: text taken out) or a label that is the whole line
** before it (unanswering_label); for a value that starts its line, a label that is the whole of the line above,
** past blank lines and a fence's opening ("Wrong answer:\n```json\n{...}```" is the same label as "Wrong answer:
** {...}"). A word before a colon inside a sentence ("That was wrong; corrected: {...}") labels nothing. */
bool extract_unanswering_prose(const char *text, size_t len, const coax_candidate *cand)
{
    if ((cand->source != COAX_SOURCE_PROSE && cand->source != COAX_SOURCE_FENCED) || cand->start > len) return false;
    size_t origin = extract_text_origin(text, cand->start), line = cand->start;
    size_t stop = cand->start > 64 ? cand->start - 64 : 0;
    if (stop < origin) stop = origin;
    while (line > stop && text[line - 1] != '\n') line--;
    size_t e = blanks_start(text, line, cand->start, false);
    if (e == line && (line == origin || text[line - 1] == '\n')) { /* the value starts its line: the label is above */
        bool fence = false;
        while (line > origin) {
            size_t above = line - 1, b = above; /* above: the '\n' ending the line above */
            while (b > origin && text[b - 1] != '\n' && above - b < 64) b--;
            b = blanks_end(text, b, above);
            bool blank = blanks_start(text, b, above, true) == b && !memchr(text + b, '*', above - b);
            bool opens = !fence && above - b >= 3 && (!memcmp(text + b, "```", 3) || !memcmp(text + b, "~~~", 3));
            if (!blank && !opens) return label_line(text, above);
            fence = fence || opens;
            line = b;
            while (line > origin && text[line - 1] != '\n') line--;
        }
        return false;
    }
    if (cand->source != COAX_SOURCE_PROSE) return false;
    if ((e - line >= 4 && !memcmp(text + e - 4, "<!--", 4)) || (e - line >= 2 && !memcmp(text + e - 2, "/*", 2)))
        return true;
    e = blanks_start(text, line, e, true); /* **Example:** */
    size_t b = extract_past_invisible(text, blanks_end(text, line, e), e);
    if (e - b >= 2 && text[b] == '/' && text[b + 1] == '/') return true;
    size_t colon = colon_at_end(text, line, e);
    if (!colon || (line > origin && text[line - 1] != '\n')) return false;
    return unanswering_label(text, b, e - colon + 1);
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
