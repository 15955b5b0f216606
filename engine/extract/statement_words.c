/*
** statement_words.c: the words contradicted.c reads a statement by: what a
** subject's name may follow, a word of correction and its general nouns,
** the words that make a sentence suppose, tell another's words or another
** time, and the one that opens a clause stating in its own right.
*/
#include "extract/statement_words.h"

#include <string.h>

#define IN(s, n, table) coax_word_in(s, n, table, sizeof table / sizeof *table)

/* Words a subject's name may follow: a determiner or a possessive. */
bool extract_determiner(const char *s, size_t n)
{
    static const coax_word words[] = {
        COAX_WORD("the"), COAX_WORD("a"),     COAX_WORD("an"),   COAX_WORD("his"),  COAX_WORD("her"),
        COAX_WORD("its"), COAX_WORD("their"), COAX_WORD("my"),   COAX_WORD("your"), COAX_WORD("our"),
        COAX_WORD("el"),  COAX_WORD("la"),    COAX_WORD("los"),  COAX_WORD("las"),  COAX_WORD("le"),
        COAX_WORD("les"), COAX_WORD("der"),   COAX_WORD("die"),  COAX_WORD("das"),  COAX_WORD("o"),
        COAX_WORD("il"),  COAX_WORD("lo"),    COAX_WORD("su"),   COAX_WORD("sein"), COAX_WORD("seine"),
        COAX_WORD("ihr"), COAX_WORD("ihre"),  COAX_WORD("son"),  COAX_WORD("sa"),   COAX_WORD("ses"),
        COAX_WORD("l"),   COAX_WORD("dell"),  COAX_WORD("nell"), COAX_WORD("sull"), COAX_WORD("dall"),
        COAX_WORD("的"),  COAX_WORD("の")}; /* l'âge, dell'età; 用户的年龄 */
    if (IN(s, n, words)) return true;
    return (n > 2 && (s[n - 1] | 32) == 's' && s[n - 2] == '\'') ||
           (n > 4 && (s[n - 1] | 32) == 's' && !memcmp(s + n - 4, "\xE2\x80\x99", 3)); /* Ada's, Ada’s */
}

/* A word that says the value after it corrects one ("the correct age",
** "la edad correcta", "das richtige Alter"). */
bool extract_correcting(const char *s, size_t n)
{
    static const coax_word words[] = {
        COAX_WORD("correct"),    COAX_WORD("right"),     COAX_WORD("actual"),    COAX_WORD("real"),
        COAX_WORD("true"),       COAX_WORD("proper"),    COAX_WORD("exact"),     COAX_WORD("corrected"),
        COAX_WORD("updated"),    COAX_WORD("revised"),   COAX_WORD("final"),     COAX_WORD("finale"),   COAX_WORD("correcto"),  COAX_WORD("correcta"),
        COAX_WORD("verdadero"),  COAX_WORD("verdadera"), COAX_WORD("correcte"),  COAX_WORD("vrai"),
        COAX_WORD("vraie"),      COAX_WORD("véritable"), COAX_WORD("richtig"),   COAX_WORD("richtige"),
        COAX_WORD("richtigen"),  COAX_WORD("richtiger"), COAX_WORD("richtiges"), COAX_WORD("korrekt"),
        COAX_WORD("korrekte"),   COAX_WORD("korrekten"), COAX_WORD("korrekter"), COAX_WORD("korrektes"),
        COAX_WORD("tatsächliche"), COAX_WORD("correto"), COAX_WORD("correta"),   COAX_WORD("corretto"),
        COAX_WORD("corretta"),   COAX_WORD("verdadeiro"), COAX_WORD("verdadeira"), COAX_WORD("vero"),
        COAX_WORD("vera"),       COAX_WORD("esatto"),    COAX_WORD("esatta"),    COAX_WORD("правильный"),
        COAX_WORD("правильное"), COAX_WORD("правильная"), COAX_WORD("верный"),   COAX_WORD("верное"),
        COAX_WORD("Правильный"), COAX_WORD("Правильное"), COAX_WORD("Правильная"), COAX_WORD("Верный")};
    return IN(s, n, words);
}

/* A noun that names the answer or a value of it in general. */
bool extract_generic(const char *s, size_t n)
{
    static const coax_word words[] = {
        COAX_WORD("value"),  COAX_WORD("answer"),    COAX_WORD("one"),    COAX_WORD("number"), COAX_WORD("figure"),
        COAX_WORD("result"), COAX_WORD("amount"),    COAX_WORD("valor"),  COAX_WORD("respuesta"),
        COAX_WORD("valeur"), COAX_WORD("réponse"),   COAX_WORD("wert"),   COAX_WORD("antwort"),
        COAX_WORD("resposta"), COAX_WORD("valore"),  COAX_WORD("risposta"), COAX_WORD("значение"),
        COAX_WORD("ответ")};
    return IN(s, n, words);
}

/* A noun naming a member, after its name or before "of" it: "the age
** value", "the `age` field", "the value of age". */
bool extract_field_noun(const char *s, size_t n)
{
    static const coax_word words[] = {COAX_WORD("value"),  COAX_WORD("field"),    COAX_WORD("property"),
                                      COAX_WORD("key"),    COAX_WORD("attribute"), COAX_WORD("member"),
                                      COAX_WORD("valor"),  COAX_WORD("valeur"),   COAX_WORD("wert"),
                                      COAX_WORD("valore"), COAX_WORD("campo"),    COAX_WORD("feld")};
    return IN(s, n, words);
}

/* Words that make a sentence suppose, ask or give an example: "If the age
** is 37, ...", "For example, age: 30". */
bool extract_supposing(const char *s, size_t n)
{
    static const coax_word words[] = {
        COAX_WORD("if"),       COAX_WORD("when"),     COAX_WORD("whenever"), COAX_WORD("whether"),
        COAX_WORD("unless"),   COAX_WORD("suppose"),  COAX_WORD("supposing"), COAX_WORD("assuming"),
        COAX_WORD("assume"),   COAX_WORD("example"),  COAX_WORD("eg"),       COAX_WORD("instance"),
        COAX_WORD("such"),     COAX_WORD("say"),      COAX_WORD("imagine"),  COAX_WORD("would"),
        COAX_WORD("were"),     COAX_WORD("not"),      COAX_WORD("never"),    COAX_WORD("no"),
        COAX_WORD("si"),       COAX_WORD("se"),       COAX_WORD("wenn"),     COAX_WORD("falls"),
        COAX_WORD("ejemplo"),  COAX_WORD("exemple"),  COAX_WORD("beispiel"), COAX_WORD("exemplo"),
        COAX_WORD("esempio"),  COAX_WORD("если"),     COAX_WORD("например")};
    return IN(s, n, words);
}

/* Words that give the sentence's statement to another or to another time:
** "The text says the age is 37, but ...", "According to the bio, ...",
** "Previously the age was 35": what was said or was, not what the reply
** says is. */
bool extract_elsewhere(const char *s, size_t n)
{
    static const coax_word words[] = {
        COAX_WORD("says"),      COAX_WORD("said"),       COAX_WORD("states"),    COAX_WORD("stated"),
        COAX_WORD("claims"),    COAX_WORD("claimed"),    COAX_WORD("mentions"),  COAX_WORD("mentioned"),
        COAX_WORD("reports"),   COAX_WORD("reported"),   COAX_WORD("according"), COAX_WORD("wrote"),
        COAX_WORD("writes"),    COAX_WORD("lists"),      COAX_WORD("listed"),    COAX_WORD("previously"),
        COAX_WORD("originally"), COAX_WORD("initially"), COAX_WORD("formerly"),  COAX_WORD("earlier"),
        COAX_WORD("yesterday"), COAX_WORD("tomorrow"),   COAX_WORD("ago"),       COAX_WORD("según"),
        COAX_WORD("dijo"),      COAX_WORD("dice"),       COAX_WORD("selon"),     COAX_WORD("dit"),
        COAX_WORD("laut"),      COAX_WORD("sagt"),       COAX_WORD("sagte"),     COAX_WORD("segundo"),
        COAX_WORD("disse"),     COAX_WORD("secondo"),    COAX_WORD("согласно"),  COAX_WORD("сказал"),
        COAX_WORD("pasado"),    COAX_WORD("anteriormente"), COAX_WORD("antes"),  COAX_WORD("früher"),
        COAX_WORD("vorher"),    COAX_WORD("auparavant"), COAX_WORD("précédemment"), COAX_WORD("dernière"),
        COAX_WORD("dernier"),   COAX_WORD("letztes"),    COAX_WORD("letzten"),   COAX_WORD("scorso"),
        COAX_WORD("precedentemente"), COAX_WORD("passado"), COAX_WORD("раньше"), COAX_WORD("ранее"),
        COAX_WORD("thought"),   COAX_WORD("assumed"),    COAX_WORD("guessed")};
    return IN(s, n, words);
}

/* Whether the word text[p..q) with the one after it frames a time: "last
** year", "next month", "in 2023". */
bool extract_time_frame(const char *text, size_t p, size_t q, size_t e)
{
    static const coax_word turns[] = {COAX_WORD("last"), COAX_WORD("next")};
    static const coax_word spans[] = {COAX_WORD("year"),    COAX_WORD("month"), COAX_WORD("week"),
                                      COAX_WORD("day"),     COAX_WORD("time"),  COAX_WORD("quarter"),
                                      COAX_WORD("season"),  COAX_WORD("decade")};
    if (q >= e || text[q] != ' ') return false;
    size_t r = q + 1, t = r;
    while (t < e && coax_ascii_alnum((unsigned char)text[t])) t++;
    if (IN(text + p, q - p, turns)) return IN(text + r, t - r, spans);
    return q - p == 2 && coax_ascii_casesame(text + p, "in", 2) && t - r == 4 && text[r] >= '0' && text[r] <= '9' &&
           text[r + 3] >= '0' && text[r + 3] <= '9';
}

/* A word that opens a clause stating in its own right: "The text says 37,
** but the age is 38." */
bool extract_contrasting(const char *s, size_t n)
{
    static const coax_word words[] = {COAX_WORD("but"),  COAX_WORD("however"), COAX_WORD("pero"),
                                      COAX_WORD("aber"), COAX_WORD("mais"),    COAX_WORD("ma"),
                                      COAX_WORD("mas"),  COAX_WORD("но"),      COAX_WORD("однако")};
    return IN(s, n, words);
}
