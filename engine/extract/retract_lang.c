/*
** retract_lang.c: prose that takes an answer back (retract.c) in the
** languages models answer in most besides English, with the matchers of
** extract/retract.h. A recipe for users of another language gets replies in it: "En fait,
** l'âge est 37.", "Me equivoqué", "我不确定年龄。" take the answer back as
** "Actually, the age is 37." does. Spanish, French, German, Portuguese,
** Italian, Russian, Chinese and Japanese, each class as in English:
** sentences opening by taking it back, remarks set off ("Corrección:"),
** phrases anywhere (a mistake in the first person, "I meant", doubt), a
** value named another ("debería ser 37"), or offered ("O 37."). Words are
** as written (a capital past ASCII, "À", is listed as one); an apology
** alone ("Desculpe a demora") takes nothing back, as "Sorry" does not. */

#include "extract/retract.h"

static const char *const other_openers[] = {
    "ignora lo anterior", "ignore lo anterior", "eso está mal", "eso es incorrecto", "déjame corregir",
    "dejame corregir", "mejor dicho", "pensándolo bien", "ignorez ce qui précède", "ignore ce qui précède",
    "c'est faux", "c'est incorrect", "laissez-moi corriger", "je corrige", "à la réflexion", "À la réflexion",
    "réflexion faite", "ignoriere das obige", "ignorieren sie das obige", "das ist falsch", "das war falsch",
    "ich korrigiere", "lass mich korrigieren", "ignore o acima", "isso está errado", "deixe-me corrigir",
    "ignora quanto sopra", "lasciami correggere", "Это неверно", "это неверно", "Поправка", "поправка"};
static const char *const other_remarks[] = {
    "en realidad", "corrección", "correccion", "espera", "fe de erratas", "en fait", "en réalité", "rectification",
    "attendez", "attends", "correction", "eigentlich", "korrektur", "berichtigung", "warte", "moment mal", "na verdade",
    "correção", "correcao", "retificação", "espere", "in realtà", "correzione", "rettifica", "aspetta",
    "На самом деле", "на самом деле", "Исправление", "исправление", "其实", "实际上", "事实上", "等等", "更正",
    "纠正", "订正", "実は", "訂正", "待って",
    /* an "Oops" set off ("Ups, la edad es 37.", "哎呀，") */
    "ups", "uy", "oups", "hoppla", "huch", "ops", "упс", "Упс", "ой", "Ой", "哎呀", "糟糕", "おっと", "しまった"};
static const char *const other_phrases[] = {
    "me equivoqué", "me equivoque", "quise decir", "quería decir", "no estoy seguro", "no estoy segura",
    "podría estar equivocado", "podría estar equivocada", "error tipográfico", "je me suis trompé",
    "je me suis trompée", "je voulais dire", "je ne suis pas sûr", "je ne suis pas sûre", "je ne suis pas certain",
    "je pourrais me tromper", "faute de frappe", "ich habe mich geirrt", "ich habe mich vertan", "ich meinte",
    "ich bin mir nicht sicher", "ich bin nicht sicher", "tippfehler", "me enganei", "eu quis dizer", "quis dizer",
    "não tenho certeza", "nao tenho certeza", "posso estar errado", "posso estar errada", "erro de digitação",
    "mi sono sbagliato", "mi sono sbagliata", "volevo dire", "non sono sicuro", "non sono sicura", "potrei sbagliarmi",
    "errore di battitura", "Я ошибся", "я ошибся", "Я ошиблась", "я ошиблась", "Я не уверен", "я не уверен",
    "Я не уверена", "я не уверена", "Я имел в виду", "я имел в виду", "Я имела в виду", "я имела в виду", "我错了",
    "我搞错了", "我弄错了", "写错了", "打错了", "说错了", "我不确定", "不太确定", "我的意思是", "間違えました", "間違いました", "間違っていました", "確信がありません",
    "自信がありません", "確かではありません", "ho sbagliato", "avevo sbagliato", "errore mio", "se non sbaglio", "se non mi sbaglio",
    "me he equivocado", "cometí un error", "error mío", "si no me equivoco", "j'ai fait une erreur",
    "erreur de ma part", "si je ne me trompe pas", "si je ne m'abuse", "ich habe einen fehler gemacht", "mein fehler",
    "wenn ich mich nicht irre", "ich lag falsch", "cometi um erro", "eu errei", "me equivoquei", "se não me engano",
    "моя ошибка", "Моя ошибка", "я допустил ошибку", "Я допустил ошибку", "если я не ошибаюсь", "Если я не ошибаюсь",
    "如果我没记错", "我犯了一个错误", "是我的错", "私の間違い", "間違っていなければ", "記憶が正しければ"};
static const char *const other_valued[] = {"debería ser", "devrait être", "deveria ser", "dovrebbe essere",
                                           "должно быть", "应该是", "应为", "正确的是", "正しくは"};
static const char *const other_offering[] = {"o", "ou", "oder", "oppure", "quizás", "quizá", "tal vez", "peut-être",
                                             "vielleicht", "talvez", "forse", "или", "Или", "probablemente",
                                             "probablement", "wahrscheinlich", "provavelmente", "probabilmente",
                                             "возможно", "Возможно", "наверное", "Наверное", "вероятно", "Вероятно",
                                             "может быть", "Может быть"};
/* anywhere before a value alone: another value offered ("La edad podría
** ser 37."), as "could be 37" is */
static const char *const other_offered[] = {"podría ser", "puede ser", "pourrait être", "poderia ser", "pode ser",
                                            "potrebbe essere", "può essere", "может быть"};
/* anywhere, in a sentence that neither supposes nor denies: the value
** called wrong, made up, a guess or sample data ("La edad es incorrecta.",
** "Los valores son inventados.", "这些数据是虚构的"), as "is wrong", "made up" */
static const char *const other_called_wrong[] = {
    "es incorrecta", "es incorrecto", "está mal", "es erróneo", "es errónea", "son incorrectos", "son incorrectas",
    "est incorrect", "est incorrecte", "est faux", "est fausse", "sont incorrects", "sont faux", "ist falsch",
    "sind falsch", "está errado", "está errada", "está incorreto", "está incorreta", "estão errados",
    "è sbagliato", "è sbagliata", "è errato", "è errata", "sono sbagliati", "sono errati", "неверен", "неверна",
    "неверно", "неверны", "неправильн*", "是错的", "是错误的", "不正确", "間違っています", "間違いです", "正しくありません",
    /* made up, not invented as a telephone is ("fue inventado por Bell") */
    "es inventado", "es inventada", "son inventados", "son inventadas", "he inventado", "ficticio", "ficticios",
    "ficticia", "ficticias", "una suposición", "datos de ejemplo", "est inventé", "est inventée", "sont inventés",
    "sont inventées", "j'ai inventé", "fictif", "fictifs", "fictive", "fictives", "une supposition",
    "données d'exemple", "ist erfunden", "sind erfunden", "frei erfunden", "fiktiv", "fiktive", "eine Vermutung",
    "Beispieldaten", "è inventato", "è inventata", "sono inventati", "sono inventate", "ho inventato", "fittizio",
    "fittizi", "fittizia", "fittizie", "dati di esempio", "é inventado", "é inventada", "são inventados",
    "são inventadas", "inventei", "fictício", "fictícios", "fictícia", "fictícias", "uma suposição",
    "dados de exemplo", "выдуман*", "вымышлен*", "предположение", "虚构", "编造",
    "捏造", "猜测", "示例数据", "架空", "推測です", "サンプルデータ"};
/* the same in Chinese and Japanese, where no space comes before the value */
static const char *const other_offering_cjk[] = {"或者", "或", "也可能是", "可能是", "もしくは", "または"};
/* before a value, in its sentence: doubt ("Probablemente {...}", "我猜"),
** as doubted_before reads "Probably", "I guess" */
static const char *const other_doubts[] = {
    "probablemente", "quizás", "quizá", "tal vez", "no estoy seguro", "no estoy segura", "probablement", "peut-être",
    "je ne suis pas sûr", "je ne suis pas sûre", "wahrscheinlich", "vielleicht", "ich bin mir nicht sicher",
    "ich bin nicht sicher", "provavelmente", "talvez", "não tenho certeza", "probabilmente", "forse",
    "non sono sicuro", "non sono sicura", "возможно", "Возможно", "наверное", "Наверное", "вероятно", "Вероятно",
    "Я не уверен", "я не уверен", "Я не уверена", "я не уверена", "也许", "大概", "我猜", "不确定", "可能是", "たぶん", "多分", "おそらく"};
/* before a value, in its clause: an example named as one ("Por ejemplo,
** {...}", "例如：{...}"), as marking_word reads "For example", "an example" */
static const char *const other_examples[] = {
    "por ejemplo", "un ejemplo", "par exemple", "un exemple", "zum beispiel", "beispielsweise", "ein beispiel",
    "por exemplo", "um exemplo", "ad esempio", "per esempio", "un esempio", "например", "Например", "пример",
    "Пример", "例如", "比如", "举例", "示例", "例えば", "たとえば",
    /* or a supposition ("Supongamos", "Angenommen", "假设"), as "Suppose", "Imagine" */
    "supongamos", "imaginemos", "imagina que", "supposons", "imaginons", "imaginez", "angenommen",
    "nehmen wir an", "stell dir vor", "suponhamos", "imagine que", "supponiamo", "immaginiamo", "immagina",
    "предположим", "Предположим", "представим", "Представим", "假设", "假如", "仮に"};


/* Whether text[p..e) opens with a set-off sign: ASCII ",:;!.", a French
** " :", or a full-width comma, colon or enumeration comma. */
static bool set_off(const char *text, size_t p, size_t e)
{
    if (p < e && coax_byte_in(",:;!.", text[p])) return true;
    size_t q = blanks_end(text, p, e);
    if (q > p && q < e && text[q] == ':') return true;
    return mark_at(text, p, e, "，：、！");
}

/* Whether a value starts at text[p], after spaces: a digit or an opening
** quote, ASCII, curly or a corner bracket. */
static bool value_next(const char *text, size_t p, size_t e)
{
    p = blanks_end(text, p, e);
    return p < e && (is_digit(text[p]) || text[p] == '"' || text[p] == '\'' || mark_at(text, p, e, "“「"));
}

/* Where, in text[b..start) before a value, one of words[0..n) stands at a
** word's start (word_start; the look starts after the last Chinese or
** Japanese sentence's end): SIZE_MAX when none does. */
static size_t other_words_before(const char *text, size_t b, size_t start, const char *const *words, size_t n)
{
    for (size_t k = start; k > b; k--)
        if (cjk_sentence_end(text, b, k)) {
            b = k;
            break;
        }
    for (size_t p = b; p < start; p++)
        if ((coax_ascii_alpha((unsigned char)text[p]) || (unsigned char)text[p] >= 0xC0) &&
            word_start(text, b, p) && matched_any(text, p, start, words, n))
            return p;
    return SIZE_MAX;
}

/* Whether the clause before text[at], from 'from' on, supposes rather than says, in another
** language: "Si me equivoqué en algo, avísame", "如果我错了，请纠正我" offer a correction, as
** "If I made a mistake, let me know" does, and take nothing back. */
static bool hedged_elsewhere(const char *text, size_t from, size_t at)
{
    static const char *const conditionals[] = {"si", "se", "falls", "wenn", "sofern", "caso", "qualora", "если", "如有",
                                               "Если", "如果", "假如", "要是", "若", "もし"};
    /* in the clause, at most three words between: "si", "se" are also
    ** pronouns ("A idade se refere a 2020, mas me enganei: é 37") */
    size_t b = at, spaces = 0;
    while (b > from && !coax_byte_in(".!?\n,;:", text[b - 1]) && !(b - from >= 3 && mark_at(text, b - 3, b, "，；："))) {
        size_t r = blanks_start(text, from, b); /* a run of blanks parts two words as one space does */
        if (r < b && ++spaces > 4) break;
        b = r < b ? r : b - 1;
    }
    return other_words_before(text, b, at, conditionals, sizeof conditionals / sizeof *conditionals) != SIZE_MAX;
}

/* Whether the word at text[at..end) is denied in its clause (from 'from' on, to e):
** "Aucune erreur", "Keine Fehler gefunden", "没有错误" say the value holds,
** as do "誤りはありません" and "間違いない" (certainly) with the denial after. */
static bool denied_elsewhere(const char *text, size_t from, size_t at, size_t end, size_t e)
{
    static const char *const denials[] = {"no", "sin", "ningún", "ninguna", "sans", "aucun", "aucune", "pas", "kein",
                                          "keine", "keinen", "nicht", "ohne", "sem", "nenhum", "nenhuma", "não",
                                          "nessun", "nessuna", "nessuno", "non", "senza", "nada", "rien", "nichts", "niente", "nulla", "ничего", "Ничего", "нет", "Нет", "не", "Не",
                                          "без", "Без", "没有", "沒有", "无", "無", "未"};
    static const char *const after[] = {"はありません", "がありません", "ありません", "はない", "がない", "ない",
                                        "なし", "無し"};
    /* "No solo la edad es incorrecta": a denial of "only", not of what follows */
    static const char *const not_only[] = {"no solo", "no sólo", "non solo", "non seulement", "pas seulement",
                                           "nicht nur", "não só", "não apenas", "не только", "Не только"};
    size_t b = at;
    while (b > from && !coax_byte_in(",.;:!?\n", text[b - 1]) && !(b >= from + 3 && mark_at(text, b - 3, b, "，；")))
        b--; /* an ASCII or a full-width comma or semicolon ends the clause */
    bool only = other_words_before(text, b, at, not_only, sizeof not_only / sizeof *not_only) != SIZE_MAX;
    return (!only && other_words_before(text, b, at, denials, sizeof denials / sizeof *denials) != SIZE_MAX) ||
           MATCHED_ANY(text, end, e, after);
}

/* Whether "actually" opening the sentence at text[at] goes on, unset off, to a subject or a
** value: "En realidad la edad es 37.", "Eigentlich ist das Alter 37.", "其实是37。", as "Actually
** the age is 37" does; not to an adverb's sentence ("Eigentlich ganz einfach", "其实很简单"),
** nor "espera" and "aspetta" (wait) to their objects ("Espera a que ..."). */
static bool actually_then(const char *text, size_t at, size_t e)
{
    static const char *const actually[] = {"en realidad", "en fait", "en réalité", "eigentlich", "na verdade",
                                           "in realtà", "на самом деле", "На самом деле", "其实", "实际上",
                                           "事实上", "実は"};
    static const char *const subject[] = {
        "en realidad el ", "en realidad la ", "en realidad los ", "en realidad las ", "en realidad eso ",
        "en fait l'", "en fait le ", "en fait la ", "en fait les ", "en fait c'est ", "en fait il ", "en fait elle ",
        "eigentlich ist das ", "eigentlich ist der ", "eigentlich ist die ", "eigentlich ist es ",
        "eigentlich sind die ", "na verdade a ", "na verdade o ", "na verdade os ", "na verdade as ",
        "na verdade é ", "in realtà l'", "in realtà il ", "in realtà la ", "in realtà lo ", "in realtà è "};
    static const char *const cjk_is[] = {"是", "为", "は"};
    if (MATCHED_ANY(text, at, e, subject)) return true;
    size_t n = MATCHED_ANY(text, at, e, actually), p = at + n;
    if (!n) return false;
    if (blank_at(text, p, e)) return value_next(text, p, e); /* "En realidad 37." */
    size_t m = MATCHED_ANY(text, p, e, cjk_is); /* "其实是37", "其实37" */
    return m ? value_next(text, p + m, e) : p < e && is_digit(text[p]);
}

/* Whether the words at text[at] take the answer back in another language
** ('start': a sentence opens there; 'from': where the look began). */
bool extract_retracting_elsewhere(const char *text, size_t from, size_t at, size_t e, bool start)
{
    size_t n;
    if (MATCHED_ANY(text, at, e, other_phrases) && !hedged_elsewhere(text, from, at)) return true;
    if ((n = MATCHED_ANY(text, at, e, other_valued)) && value_next(text, at + n, e)) return true;
    if ((n = MATCHED_ANY(text, at, e, other_offered)) && blank_at(text, at + n, e) &&
        value_alone(text, blanks_end(text, at + n, e), e))
        return true;
    if ((n = MATCHED_ANY(text, at, e, other_called_wrong)) && !hedged_elsewhere(text, from, at) &&
        !denied_elsewhere(text, from, at, at + n, e))
        return true;
    /* the verb before its subject, as German sets it after a sentence's first part ("Leider ist das Alter falsch") */
    static const char *const copulas[] = {"ist", "sind", "war", "waren"};
    static const char *const called[] = {"falsch", "fehlerhaft", "inkorrekt", "unrichtig", "erfunden"};
    size_t w = inverted_called_wrong(text, at, e, copulas, sizeof copulas / sizeof *copulas, called,
                                     sizeof called / sizeof *called);
    if (w != SIZE_MAX && !hedged_elsewhere(text, from, w) &&
        !denied_elsewhere(text, from, w, w + MATCHED_ANY(text, w, e, called), e))
        return true;
    if (!start) return false;
    if (MATCHED_ANY(text, at, e, other_openers)) return true;
    if (((n = MATCHED_ANY(text, at, e, other_remarks)) && set_off(text, at + n, e)) || actually_then(text, at, e))
        return true;
    if ((n = MATCHED_ANY(text, at, e, other_offering_cjk)) && value_alone(text, at + n, e)) return true;
    return phrase_then_value(text, at, e, other_offering, sizeof other_offering / sizeof *other_offering, true);
}

/* Where, in text[b..start) before a value, a verb of belief in the first
** person of another language has the value for its object ("Creo que es
** {...}", "Ich glaube, es ist {...}", "我觉得是{...}": nothing but a verb
** "to be" between; "Creo que esto es lo que buscas: {...}" doubts the
** need), as belief_of_value reads "I think it's {...}": SIZE_MAX when none. */
static size_t belief_elsewhere(const char *text, size_t b, size_t start)
{
    static const char *const beliefs[] = {
        "creo que", "supongo que", "creo", "supongo", "je pense que", "je crois que", "je pense", "je crois",
        "ich glaube", "ich denke", "acho que", "creio que", "penso que", "penso che", "credo che", "credo", "penso",
        "думаю", "Думаю", "полагаю", "Полагаю", "我觉得", "我认为", "我想"};
    static const char *const copulas[] = {"es", "son", "sería", "est", "c'est", "sont", "serait", "ist", "sind",
                                          "wäre", "é", "são", "seria", "è", "sia", "sono", "sarebbe", "это",
                                          "是", "为", "就是", "应该是"};
    size_t at = other_words_before(text, b, start, beliefs, sizeof beliefs / sizeof *beliefs);
    if (at == SIZE_MAX) return SIZE_MAX;
    size_t end = at + matched_any(text, at, start, beliefs, sizeof beliefs / sizeof *beliefs), q = start;
    for (;;) { /* spaces, markdown's marks, a colon or comma, ASCII or full-width, before the value */
        size_t k = coax_blank_before(text + end, text + q);
        if (k) q -= k;
        else if (q > end && coax_byte_in(":,*_`-", text[q - 1])) q--;
        else if (q >= end + 3 && mark_at(text, q - 3, q, "：，"))
            q -= 3;
        else break;
    }
    if (q == end) return at; /* "Creo: {...}" */
    for (size_t i = 0; i < sizeof copulas / sizeof *copulas; i++) {
        size_t n = strlen(copulas[i]);
        bool cjk = (unsigned char)copulas[i][0] >= 0xE3;
        if (q - end >= n && !memcmp(text + q - n, copulas[i], n) &&
            (cjk || q - n == end || coax_blank_before(text + end, text + q - n) || text[q - n - 1] == ','))
            return at;
    }
    return SIZE_MAX;
}

bool extract_conditional_elsewhere(const char *text, size_t p, size_t e)
{
    /* the words conditional_after reads in English, in the other languages */
    static const char *const other_words[] = {
        "si", "a menos que", "suponiendo", "probablemente", "quizás", "creo", "supongo", "sauf si", "à moins que",
        "en supposant", "probablement", "peut-être", "je pense", "je crois", "falls", "wenn", "sofern",
        "vorausgesetzt", "wahrscheinlich", "vielleicht", "glaube ich", "denke ich", "se", "supondo",
        "provavelmente", "talvez", "acho", "a meno che", "supponendo", "probabilmente", "forse", "credo", "penso",
        "если", "возможно", "наверное", "如果", "假设", "假如", "可能", "大概", "也许", "我想", "我觉得", "もし", "たぶん",
        "多分", "と思います", "と思う", "かもしれません"};
    size_t m = MATCHED_ANY(text, p, e, other_words); /* not an adjective's "可能的字段" (possible fields) */
    return m && !(e - p - m >= 3 && !memcmp(text + p + m, "的", 3));
}

size_t extract_doubted_elsewhere(const char *text, size_t b, size_t start)
{
    size_t other = other_words_before(text, b, start, other_doubts, sizeof other_doubts / sizeof *other_doubts);
    return other != SIZE_MAX ? other : belief_elsewhere(text, b, start);
}

size_t extract_example_elsewhere(const char *text, size_t from, size_t to)
{
    return other_words_before(text, from, to, other_examples, sizeof other_examples / sizeof *other_examples);
}

bool extract_wrong_elsewhere(const char *s, size_t n)
{
    /* the words extract_remark_takes_back reads in English, in the other languages */
    static const char *const other_words[] = {
        "incorrecto", "incorrecta", "erróneo", "errónea", "corregido", "corregida", "corrección", "faux", "fausse",
        "erreur", "corrigé", "corrigée", "falsch", "fehler", "korrigiert", "errado", "errada", "incorreto",
        "incorreta", "corrigido", "corrigida", "sbagliato", "sbagliata", "errato", "errata", "stato corretto",
        "stata corretta", "неверно", "ошибка", "исправлено", "错误", "有误", "更正", "修正", "誤り", "間違い", "訂正"};
    size_t m;
    for (size_t p = 0; p < n; p++)
        if ((coax_ascii_alpha((unsigned char)s[p]) || (unsigned char)s[p] >= 0xC0) && word_start(s, 0, p) &&
            (m = MATCHED_ANY(s, p, n, other_words)) && !denied_elsewhere(s, 0, p, p + m, n))
            return true;
    return false;
}
