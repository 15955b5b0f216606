/* Token estimation: the pre-tokenizer's pieces, exact estimates for fixed
** strings (they change only when the fitted weights do), the chars/4
** baseline, chat framing, hostile input, and accuracy on a held-out sample
** with exact counts (spec/fixtures/tokens/heldout.jsonl, from gpt-tokenizer). */
#include "coax.h"
#include "tokens/tokens.h"
#include "tokens/chars.h"

#include <stdlib.h>

#include "test.h"

/* The accuracy figure README ("Token estimation") states is this one
** measurement: the held-out sample below, each text's absolute error
** relative to its exact count, its mean and 95th percentile. The bounds
** are a little above what the fitted weights measure (o200k mean 4.44%,
** p95 16.19%; cl100k 4.68%, 14.97%): a refit that does worse fails here. */
#define HELD_MEAN_O200K 0.048
#define HELD_MEAN_CL100K 0.050
#define HELD_P95_O200K 0.175
#define HELD_P95_CL100K 0.16

/* ---- pieces ------------------------------------------------------------- */

typedef struct joined {
    char buf[512];
    size_t len;
    const char *text;
} joined;

static void join_piece(void *ud, const tok_piece *p)
{
    joined *j = ud;
    if (j->len && j->len < sizeof j->buf - 1) j->buf[j->len++] = '|';
    for (size_t i = p->start; i < p->end && j->len < sizeof j->buf - 1; i++) j->buf[j->len++] = j->text[i];
    j->buf[j->len] = '\0';
}

static const char *pieces(int split, const char *text)
{
    static joined j;
    j.len = 0;
    j.buf[0] = '\0';
    j.text = text;
    coax_tok_scan(split, split == TOK_SPLIT_O200K ? &coax_tok_model_o200k : &coax_tok_model_cl100k, text,
                  strlen(text), join_piece, &j);
    return j.buf;
}

/* Expected splits are the real pre-tokenizer regular expressions' (run in
** Node on the same strings). */
static void test_pieces_follow_the_o200k_pre_tokenizer(void)
{
    int o = TOK_SPLIT_O200K;
    CHECK_STR(pieces(o, "Hello world's JSONParser getElementById"),
              "Hello| world's| JSONParser| get|Element|By|Id");
    CHECK_STR(pieces(o, "  indented\n\n\tcode();\r\n  "), " | indented|\n\n|\tcode|();\r\n|  ");
    CHECK_STR(pieces(o, "日本語のテキストです。"), "日本語のテキストです|。");
    CHECK_STR(pieces(o, "don't 'sound' I'LL"), "don't| '|sound|'| I'LL");
    CHECK_STR(pieces(o, "😀👍🏽 ❤️ done"), "😀👍🏽| ❤️| done");
    CHECK_STR(pieces(o, "x=1234567;//ok\n"), "x|=|123|456|7|;//|ok|\n");
    CHECK_STR(pieces(o, "HTTPServer ABCdef aBC नमस्ते"), "HTTPServer| ABCdef| a|BC| नमस्ते");
}

static void test_pieces_follow_the_cl100k_pre_tokenizer(void)
{
    int c = TOK_SPLIT_CL100K;
    CHECK_STR(pieces(c, "Hello world's JSONParser getElementById"),
              "Hello| world|'s| JSONParser| getElementById");
    CHECK_STR(pieces(c, "  indented\n\n\tcode();\r\n  "), " | indented|\n\n|\tcode|();\r\n|  ");
    CHECK_STR(pieces(c, "don't 'sound' I'LL"), "don|'t| '|sound|'| I|'LL");
    CHECK_STR(pieces(c, "x=1234567;//ok\n"), "x|=|123|456|7|;//|ok|\n");
    CHECK_STR(pieces(c, "HTTPServer ABCdef aBC नमस्ते"), "HTTPServer| ABCdef| aBC| नमस|्त|े");
}

/* Words of two-byte letters have a loop of their own for the shapes most
** take (tokens.c, scan_word_two); every other shape is the general loop's.
** Both must give the pieces, rows and lengths the general loop gave before
** the fast loop existed (these expectations are its output): lowercase,
** capitalised, all capitals and case splits (the general loop's), caseless
** Arabic and Hebrew, marks after a capital with and without lowercase, a
** contraction, an ASCII letter, a longer letter or punctuation, a cut or
** invalid sequence and a no-break space after the letters, Greek, titlecase,
** an ASCII first letter. Each piece: its end, row and length. */
static const struct {
    const char *text, *o200k, *cl100k;
} two_byte_words[] = {
    {"привет мир", "12:48:6 19:50:3", "12:48:6 19:50:3"},
    {"Привет, мир", "12:52:6 13:336:1 20:50:3", "12:52:6 13:336:1 20:50:3"},
    {"ПРИВЕТ", "12:56:6", "12:56:6"},
    {"МосКва", "6:52:3 12:53:3", "12:60:6"},
    {"мОСКВА", "2:48:1 12:57:5", "12:60:6"},
    {"كتاب العربية", "8:96:4 23:98:7", "8:96:4 23:98:7"},
    {" Ελληνικά γλώσσα", "17:38:8 30:34:6", "17:38:8 30:34:6"},
    {"caf\xc3\xa9 e\xcc\x81t\xc3\xa9", "5:16:4 12:18:4", "5:16:4 7:2:1 12:19:2"},
    {"\xc3\x84\xcc\x81x", "5:20:3", "2:20:1 5:3:1"},
    {"\xd7\x90\xd7\x91\xd7\x92", "6:80:3", "6:80:3"},
    {"кот's кот'S котs", "8:48:5 17:50:5 25:50:4", "6:48:3 8:531:2 15:50:3 17:531:2 25:50:4"},
    {"слово\xe2\x80\xa6", "10:48:5 13:472:1", "10:48:5 13:472:1"},
    {"слово\xe4\xb8\xad", "13:48:6", "13:48:6"},
    {"словоabc", "13:48:8", "13:48:8"},
    {"сл\xd0", "4:48:2 5:496:1", "4:48:2 5:496:1"},
    {"\xd0 \xd0\xbf", "1:496:1 4:50:1", "1:496:1 4:50:1"},
    {"Ωmega", "6:36:5", "6:36:5"},
    {"ǅemal", "6:20:5", "6:20:5"},
    {"\xc2\xaa\xd0\x91", "2:16:1 4:53:1", "4:24:2"},
    {"\xd0\x91\xcc\x81", "4:52:2", "2:52:1 4:488:1"},
    {"\xd0\x91\xcc\x81\xd0\xb1", "6:52:3", "2:52:1 6:51:1"},
    {"\xd0\x91\xcc\x81\xd0\x91", "4:52:2 6:53:1", "2:52:1 6:55:1"},
    {"я\xe0\xa4\x95", "5:48:2", "5:48:2"},
    {"Я", "2:52:1", "2:52:1"},
    {"я", "2:48:1", "2:48:1"},
    {"\xd9\x8e\xd8\xa8", "4:304:2", "4:99:1"},
    {"\xd0\xb1\xc2\xa0\xd0\xb1", "2:48:1 6:51:1", "2:48:1 6:51:1"},
    {"Ǆ\xc7\x86", "4:20:2", "4:20:2"},
};

static void piece_key(void *ud, const tok_piece *p)
{
    joined *j = ud;
    int w = snprintf(j->buf + j->len, sizeof j->buf - j->len, "%s%zu:%u:%u", j->len ? " " : "", p->end,
                     p->row, p->nchars);
    if (w > 0 && (size_t)w < sizeof j->buf - j->len) j->len += (size_t)w;
}

static void test_two_byte_words_keep_their_keys(void)
{
    for (size_t k = 0; k < sizeof two_byte_words / sizeof *two_byte_words; k++)
        for (int sp = 0; sp < 2; sp++) {
            joined j = {.len = 0};
            const char *t = two_byte_words[k].text;
            coax_tok_scan(sp, sp ? &coax_tok_model_cl100k : &coax_tok_model_o200k, t, strlen(t), piece_key, &j);
            CHECK_STR(j.buf, sp ? two_byte_words[k].cl100k : two_byte_words[k].o200k);
        }
}

/* ---- estimates ------------------------------------------------------------ */

static size_t est(coax_encoding e, const char *s) { return coax_tokens(e, s, strlen(s)); }

static void test_fixed_strings_have_fixed_estimates(void)
{
    /* exact o200k/cl100k counts in comments */
    CHECK_INT(est(COAX_ENC_O200K, "Hello, world!"), 4);                               /* 4 */
    CHECK_INT(est(COAX_ENC_CL100K, "Hello, world!"), 4);                              /* 4 */
    CHECK_INT(est(COAX_ENC_O200K, "The quick brown fox jumps over the lazy dog."), 11); /* 10 */
    CHECK_INT(est(COAX_ENC_O200K, "{\"name\": \"Ada\", \"age\": 36}"), 12);            /* 12 */
    CHECK_INT(est(COAX_ENC_CL100K, "{\"name\": \"Ada\", \"age\": 36}"), 12);           /* 12 */
    CHECK_INT(est(COAX_ENC_O200K, "def f(x):\n    return x * 2\n"), 11);             /* 11 */
    CHECK_INT(est(COAX_ENC_O200K, "日本語のテキストです。"), 9);  /* 8 */
    CHECK_INT(est(COAX_ENC_CL100K, "日本語のテキストです。"), 11); /* 10 */
    CHECK_INT(est(COAX_ENC_O200K, "Привет, как дела?"), 7);       /* 6 */
    CHECK_INT(est(COAX_ENC_CL100K, "Привет, как дела?"), 10);     /* 8 */
    /* llama3 is cl100k's estimate; claude is o200k's x 1.2, rounded up */
    CHECK_INT(est(COAX_ENC_LLAMA3, "Привет, как дела?"), 10);
    CHECK_INT(est(COAX_ENC_CLAUDE, "The quick brown fox jumps over the lazy dog."), 14);
}

static void test_chars4_counts_code_points_not_bytes(void)
{
    CHECK_INT(est(COAX_ENC_CHARS4, ""), 0);
    CHECK_INT(est(COAX_ENC_CHARS4, "abcd"), 1);
    CHECK_INT(est(COAX_ENC_CHARS4, "abcde"), 2);
    CHECK_INT(est(COAX_ENC_CHARS4, "日本語"), 1);         /* 9 bytes, 3 code points */
    CHECK_INT(est(COAX_ENC_CHARS4, "日本語のテ"), 2);     /* 5 code points */
    CHECK_INT(est(COAX_ENC_CHARS4, "😀😀😀😀😀"), 2);     /* 20 bytes, 5 code points */
    CHECK_INT(coax_tokens(COAX_ENC_CHARS4, "\xff\xfe\xfd\xfc\xfb", 5), 2); /* invalid: a byte each */
}

static void test_empty_and_null_give_zero_nonempty_at_least_one(void)
{
    for (int e = 0; e < COAX_ENC_COUNT; e++) {
        CHECK_INT(coax_tokens((coax_encoding)e, NULL, 0), 0);
        CHECK_INT(coax_tokens((coax_encoding)e, NULL, 10), 0);
        CHECK_INT(coax_tokens((coax_encoding)e, "", 0), 0);
        CHECK(coax_tokens((coax_encoding)e, " ", 1) >= 1);
        CHECK(coax_tokens((coax_encoding)e, "\n", 1) >= 1);
    }
    /* an encoding outside the enum is o200k */
    CHECK_INT(coax_tokens((coax_encoding)99, "Hello, world!", 13), est(COAX_ENC_O200K, "Hello, world!"));
}

static void test_any_bytes_are_estimated_without_crashing(void)
{
    unsigned char all[256 * 3];
    for (int i = 0; i < 256; i++) all[3 * i] = (unsigned char)i, all[3 * i + 1] = 0x80, all[3 * i + 2] = (unsigned char)(255 - i);
    for (int e = 0; e < COAX_ENC_COUNT; e++) {
        size_t n = coax_tokens((coax_encoding)e, (const char *)all, sizeof all);
        CHECK(n >= 1 && n <= sizeof all);
        /* every truncation of a multi-byte sequence */
        const char *s = "a\xf0\x9f\x98\x80" "b\xe6\x97\xa5" "c\xd0\x9f";
        for (size_t k = 0; k <= strlen(s); k++) CHECK(coax_tokens((coax_encoding)e, s, k) <= k);
    }
    /* surrogates and overlongs are invalid bytes, not code points */
    CHECK_INT(coax_tokens(COAX_ENC_CHARS4, "\xed\xa0\x80\xc0\xaf", 5), 2);
}

/* The scan asks the table whether a non-ASCII character after whitespace
** is whitespace too only when its lead byte may start one (chars.h): every
** code point the table calls whitespace must have such a lead byte. */
static void test_space_lead_bytes_cover_the_table(void)
{
    for (uint32_t cp = 0x80; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        if (!is_space(CLS(table_byte(cp)))) continue;
        unsigned lead = cp < 0x800 ? 0xC0 | cp >> 6 : cp < 0x10000 ? 0xE0 | cp >> 12 : 0xF0 | cp >> 18;
        CHECK(may_start_space(lead));
    }
    CHECK(!may_start_space('a') && !may_start_space(0x80) && !may_start_space(0xD0));
}

/* The scan skips the clamp to a token a byte for the rows TOK_ROW_CAPPED
** names, as their weights are at most a token a character: a refit that
** breaks it fails here (then pass 'capped' false for the row in tokens.c).
** Numbers have at most three characters; longer whitespace takes the slope. */
static void test_capped_rows_stay_within_a_token_a_character(void)
{
    const tok_model *models[] = {&coax_tok_model_o200k, &coax_tok_model_cl100k};
    unsigned capped = 0;
    for (int e = 0; e < 2; e++)
        for (unsigned row = 0; row < TOK_NROWS; row++) {
            if (!TOK_ROW_CAPPED(row)) continue;
            capped++;
            unsigned maxlen = row < TOK_ROW_SPACE ? 3 : TOK_MAXLEN;
            for (unsigned k = 1; k <= maxlen; k++) CHECK(models[e]->weight[row * TOK_MAXLEN + k - 1] <= k * TOK_SCALE);
            if (maxlen == TOK_MAXLEN) CHECK(models[e]->slope[row] <= TOK_SCALE);
        }
    CHECK_INT(capped, 2 * (1 + TOK_ROWS_SPACE + TOK_ROWS_NEWLINE));
    /* rows some of whose weights pass a token a character stay out */
    CHECK(!TOK_ROW_CAPPED(TOK_ROW_WORD) && !TOK_ROW_CAPPED(TOK_ROW_NUM + TOK_S_ARABIC) &&
          !TOK_ROW_CAPPED(TOK_ROW_CONTR) && !TOK_ROW_CAPPED(TOK_ROW_PUNCT));
}

static void test_large_inputs_are_linear_and_exact_for_repeats(void)
{
    size_t n = 8u << 20;
    char *big = malloc(n);
    CHECK(big != NULL);
    if (!big) return;
    memset(big, ' ', n); /* one whitespace run of 8 MiB: no token holds more than 128 spaces */
    size_t spaces = coax_tokens(COAX_ENC_O200K, big, n);
    CHECK(spaces >= n / 128 && spaces <= n / 128 + 2);
    memset(big, 'a', n); /* one letter piece of 8 MiB */
    CHECK(coax_tokens(COAX_ENC_CL100K, big, n) > 1000);
    for (size_t i = 0; i < n; i++) big[i] = "0123456789"[i % 10];
    /* digits go three to a token in both encodings */
    CHECK_INT(coax_tokens(COAX_ENC_O200K, big, n), (n + 2) / 3);
    CHECK_INT(coax_tokens(COAX_ENC_CL100K, big, n), (n + 2) / 3);
    free(big);
}

/* A piece longer than TOK_MAXLEN code points in a row the fit saw no longer
** piece of (punctuation, spaces) was held to its last weight: 10,000 spaces
** were 1 token (79 exact), "!?" x 5,000 26 (2,502), 100 KB of one symbol 24.
** No token holds more than 128 code points of a piece, so each 128 past the
** first 24 add one at least. */
static void test_long_runs_grow_a_token_per_128_code_points_at_least(void)
{
    static const char *const units[] = {" ", "-", "!?", ".-", "}]", "\xe2\x80\xa6", "\xef\xbf\xbd", "\xc2\xa0"};
    static char s[4 * 10000 + 1];
    for (int e = COAX_ENC_O200K; e <= COAX_ENC_CL100K; e++) {
        for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
            size_t ulen = strlen(units[u]), cps = u == 2 || u == 3 || u == 4 ? 2 : 1, k = 10000 / cps;
            for (size_t i = 0; i < k; i++) memcpy(s + i * ulen, units[u], ulen);
            size_t t10k = coax_tokens((coax_encoding)e, s, k * ulen);
            size_t t1k = coax_tokens((coax_encoding)e, s, k * ulen / 10);
            CHECK(t10k >= 10000 / 128);
            CHECK(t10k >= t1k + 9000 / 128 - 1);
        }
    }
    memset(s, ' ', 10000); /* exact: 9 and 79 in both */
    CHECK_INT(coax_tokens(COAX_ENC_O200K, s, 1000), 9);
    CHECK_INT(coax_tokens(COAX_ENC_CL100K, s, 10000), 79);
}

/* Runs of one punctuation mark (engine/tokens/runs.c): the rows of mixed
** punctuation gave 80 dashes 20 tokens (1 exact), 300 closing braces 22
** (150), 100 stars 21 (2). Exact from gpt-tokenizer, within the table and
** past it, alone and after a space. */
static void test_runs_of_one_mark_are_exact(void)
{
    static const struct {
        char mark;
        size_t n;
        const char *lead, *trail;
        size_t o200k, cl100k;
    } runs[] = {
        {'-', 80, "", "", 1, 1},       {'-', 1000, "", "", 16, 16}, {'=', 1000, "", "", 16, 17},
        {'}', 300, "", "", 150, 150},  {'*', 100, "", "", 2, 3},    {'|', 300, "", "", 75, 75},
        {'~', 60, "", "", 4, 4},       {'#', 40, "", "", 2, 1},     {'.', 600, "", "", 10, 10},
        {'-', 4, " ", "", 1, 1},
    };
    static char s[2048];
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        size_t ll = strlen(runs[r].lead), tl = strlen(runs[r].trail), len = ll + runs[r].n + tl;
        memcpy(s, runs[r].lead, ll);
        memset(s + ll, runs[r].mark, runs[r].n);
        memcpy(s + ll + runs[r].n, runs[r].trail, tl);
        CHECK_INT(coax_tokens(COAX_ENC_O200K, s, len), runs[r].o200k);
        CHECK_INT(coax_tokens(COAX_ENC_CL100K, s, len), runs[r].cl100k);
    }
    /* before a line break: the run's tokens and one (3 and 2 exact) */
    memset(s, '=', 40);
    s[40] = '\n';
    CHECK_INT(coax_tokens(COAX_ENC_O200K, s, 41), 3);
    CHECK_INT(coax_tokens(COAX_ENC_CL100K, s, 41), 3);
    /* a Markdown reply with rules under a title and between parts: 32 exact
    ** in both (the rows said 67 and 82) */
    const char *md = "# Title\n\n========================================\n\nSome text -- here.\n\n"
                     "------------------------------------------------------------------------\n```json\n"
                     "{\"a\": [1, {\"b\": [[2]]}]}\n```\n";
    size_t o = coax_tokens(COAX_ENC_O200K, md, strlen(md)), c = coax_tokens(COAX_ENC_CL100K, md, strlen(md));
    CHECK(o >= 30 && o <= 34);
    CHECK(c >= 30 && c <= 34);
    /* runs of one mark each, side by side: their sum (511 and 511 exact; the
    ** rows said 28 and 35), 6 for "}}}]]]}}}]]]" (6 exact) */
    memset(s, '[', 511);
    memset(s + 511, ']', 511);
    CHECK_INT(coax_tokens(COAX_ENC_O200K, s, 1022), 511);
    CHECK_INT(coax_tokens(COAX_ENC_CL100K, s, 1022), 512);
    CHECK_INT(coax_tokens(COAX_ENC_O200K, "}}}]]]}}}]]]", 12), 6);
    /* a mark and 40 line feeds: 4 and 3 exact (the rows said 24 and 32) */
    s[0] = '}';
    memset(s + 1, '\n', 40);
    CHECK_INT(coax_tokens(COAX_ENC_O200K, s, 41), 6);
    CHECK_INT(coax_tokens(COAX_ENC_CL100K, s, 41), 6);
    /* mixed punctuation past 10 marks: about 0.6 a mark (alternations 0.5) */
    for (size_t i = 0; i < 300; i++) s[i] = "]}"[i % 2];
    CHECK_INT(coax_tokens(COAX_ENC_O200K, s, 300), 178); /* 150 exact */
}

/* Control characters (punctuation to the split) are a token each in both
** encodings, NULs two a token in o200k, and the marks between them runs of
** their own: the rows read them as punctuation, 56 for 100 \x01 and 3 for 8.
** Exact counts from gpt-tokenizer. */
static void test_control_characters_are_a_token_each(void)
{
    static const struct {
        const char *text;
        size_t len, o200k, cl100k;
    } cases[] = {
        {"\x01\x01\x01\x01\x01\x01\x01\x01", 8, 8, 8},
        {"\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x1f\x7f", 12, 12, 12},
        {"\0\0\0\0\0\0\0", 7, 4, 7},
        {"\0\0\0\x01\0\0\0\x01", 8, 6, 8},
        {"\x01}}}}\x01}}}}", 10, 6, 6},         /* "}}}}" is 2 */
        {"\x01--\x01--\x01--", 9, 6, 6},       /* "--" is 1 */
        {" \x01\x01\x01\x01\x01", 6, 6, 6},     /* the space alone */
        {" --\x01\x01--", 7, 4, 4},             /* " --" a run after a space */
        {"\x01\x01\x01\x01\n\n\n", 7, 5, 5},    /* and the breaks, a token */
        {"a \x01\x01\x01\x01 b", 8, 7, 7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK_INT(coax_tokens(COAX_ENC_O200K, cases[i].text, cases[i].len), cases[i].o200k);
        CHECK_INT(coax_tokens(COAX_ENC_CL100K, cases[i].text, cases[i].len), cases[i].cl100k);
    }
    static char s[1000];
    memset(s, 1, 100);
    CHECK_INT(coax_tokens(COAX_ENC_O200K, s, 100), 100);
    for (size_t i = 0; i < 100; i++) s[i] = (char)(1 + i % 8);
    CHECK_INT(coax_tokens(COAX_ENC_CL100K, s, 100), 100);
    memset(s, 0, 100);
    CHECK_INT(coax_tokens(COAX_ENC_O200K, s, 100), 50);
    CHECK_INT(coax_tokens(COAX_ENC_CL100K, s, 100), 100);
    /* a control before 80 dashes: 2, the dashes a run (1) */
    s[0] = 1;
    memset(s + 1, '-', 80);
    CHECK_INT(coax_tokens(COAX_ENC_O200K, s, 81), 2);
    /* twins: a piece of no control keeps its weight ("}}}]]]}}}]]]", 6
    ** exact, above), and one with a character past ASCII is the row's */
    CHECK_INT(coax_tokens(COAX_ENC_O200K, "}}}]]]}}}]]]", 12), 6);
    size_t arrow = coax_tokens(COAX_ENC_O200K, "\x01\x01\x01\xe2\x86\x92\x01", 7); /* 5 exact */
    CHECK(arrow >= 4 && arrow <= 8);
}

static void test_encoding_names_round_trip(void)
{
    static const char *const names[] = {"o200k", "cl100k", "llama3", "claude", "chars4"};
    for (int e = 0; e < COAX_ENC_COUNT; e++) {
        coax_encoding got;
        CHECK_STR(coax_encoding_name((coax_encoding)e), names[e]);
        CHECK_INT(coax_encoding_parse(names[e], strlen(names[e]), &got), COAX_OK);
        CHECK_INT(got, e);
    }
    coax_encoding got = COAX_ENC_CL100K;
    CHECK_INT(coax_encoding_parse("gpt2", 4, &got), COAX_EINVAL);
    CHECK_INT(coax_encoding_parse("o200", 4, &got), COAX_EINVAL);
    CHECK_INT(coax_encoding_parse(NULL, 0, &got), COAX_EINVAL);
    CHECK_INT(got, COAX_ENC_CL100K);
    CHECK_STR(coax_encoding_name((coax_encoding)-1), "unknown");
}

/* ---- chat --------------------------------------------------------------- */

static void test_chat_adds_openai_framing(void)
{
    /* gpt-tokenizer's encodeChat gives 8 for this request (gpt-4o and gpt-4):
    ** 3 framing + "user" + "Hello" + 3 priming the reply. */
    coax_message one = {"user", 4, "Hello", 5, NULL, 0};
    CHECK_INT(coax_tokens_chat(COAX_ENC_O200K, &one, 1), 8);
    CHECK_INT(coax_tokens_chat(COAX_ENC_CL100K, &one, 1), 8);
    CHECK_INT(coax_tokens_chat(COAX_ENC_O200K, NULL, 0), 3);
    /* a name costs its tokens and one more */
    coax_message named = {"user", 4, "Hello", 5, "bob", 3};
    CHECK_INT(coax_tokens_chat(COAX_ENC_O200K, &named, 1), 10);
    /* llama3: 4 a message, 5 for the start and the reply header */
    CHECK_INT(coax_tokens_chat(COAX_ENC_LLAMA3, &one, 1), 11);
    /* chars4 has no framing */
    CHECK_INT(coax_tokens_chat(COAX_ENC_CHARS4, &one, 1), 1 + 2);
    /* NULL role and content count as empty */
    coax_message empty = {NULL, 7, NULL, 9, NULL, 0};
    CHECK_INT(coax_tokens_chat(COAX_ENC_O200K, &empty, 1), 6);
}

/* ---- accuracy on the held-out sample ------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_held_out_sample_accuracy(void)
{
    FILE *f = fopen("spec/fixtures/tokens/heldout.jsonl", "rb");
    CHECK(f != NULL);
    if (!f) return;
    double err[2][64], chars4[2] = {0, 0}; /* the chars/4 rule's mean, for comparison */
    size_t n = 0;
    double worst_cat[2] = {0, 0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    char cat[32] = "";
    double cat_sum[2] = {0, 0};
    int cat_n = 0;
    while ((len = getline(&line, &cap, f)) > 0 && n < 64) {
        coax_arena *a = coax_arena_new(NULL);
        coax_value *v;
        CHECK_INT(coax_parse(a, line, (size_t)len, NULL, &v, NULL), COAX_OK);
        size_t tl, cl;
        const char *text = coax_value_text(coax_object_get(v, "text", 4), &tl);
        const char *c = coax_value_text(coax_object_get(v, "cat", 3), &cl);
        if (strcmp(c, cat)) {
            for (int e = 0; e < 2 && cat_n; e++)
                if (cat_sum[e] / cat_n > worst_cat[e]) worst_cat[e] = cat_sum[e] / cat_n;
            snprintf(cat, sizeof cat, "%s", c);
            cat_sum[0] = cat_sum[1] = 0;
            cat_n = 0;
        }
        static const char *const keys[2] = {"o200k", "cl100k"};
        for (int e = 0; e < 2; e++) {
            double exact = coax_value_double(coax_object_get(v, keys[e], strlen(keys[e])));
            double got = (double)coax_tokens(e ? COAX_ENC_CL100K : COAX_ENC_O200K, text, tl);
            err[e][n] = (got > exact ? got - exact : exact - got) / exact;
            cat_sum[e] += err[e][n];
            double c4 = (double)coax_tokens(COAX_ENC_CHARS4, text, tl);
            chars4[e] += (c4 > exact ? c4 - exact : exact - c4) / exact;
        }
        cat_n++;
        n++;
        coax_arena_free(a);
    }
    for (int e = 0; e < 2 && cat_n; e++)
        if (cat_sum[e] / cat_n > worst_cat[e]) worst_cat[e] = cat_sum[e] / cat_n;
    free(line);
    fclose(f);
    CHECK_INT(n, 60); /* 20 categories, 3 texts of 200-2000 characters each */
    for (int e = 0; e < 2; e++) {
        double sum = 0;
        for (size_t i = 0; i < n; i++) sum += err[e][i];
        qsort(err[e], n, sizeof err[e][0], cmp_double);
        double mean = sum / (double)n, p95 = err[e][(n * 95 + 99) / 100 - 1];
        printf("  token accuracy, held-out sample (README, \"Token estimation\"), %s: mean %.2f%%, p95 %.2f%%, "
               "worst category mean %.2f%%; chars/4 mean %.2f%%\n",
               e ? "cl100k" : "o200k", 100 * mean, 100 * p95, 100 * worst_cat[e], 100 * chars4[e] / (double)n);
        /* chars/4 is off by 30-35% on this sample and tokenx by 17-23% */
        CHECK(mean < (e ? HELD_MEAN_CL100K : HELD_MEAN_O200K));
        CHECK(p95 < (e ? HELD_P95_CL100K : HELD_P95_O200K));
    }
}

#define TESTS                                              \
    X(test_pieces_follow_the_o200k_pre_tokenizer)          \
    X(test_pieces_follow_the_cl100k_pre_tokenizer)         \
    X(test_two_byte_words_keep_their_keys)                 \
    X(test_fixed_strings_have_fixed_estimates)             \
    X(test_chars4_counts_code_points_not_bytes)            \
    X(test_empty_and_null_give_zero_nonempty_at_least_one) \
    X(test_any_bytes_are_estimated_without_crashing)       \
    X(test_space_lead_bytes_cover_the_table)               \
    X(test_capped_rows_stay_within_a_token_a_character)    \
    X(test_large_inputs_are_linear_and_exact_for_repeats)  \
    X(test_long_runs_grow_a_token_per_128_code_points_at_least) \
    X(test_runs_of_one_mark_are_exact)                     \
    X(test_control_characters_are_a_token_each)            \
    X(test_encoding_names_round_trip)                      \
    X(test_chat_adds_openai_framing)                       \
    X(test_held_out_sample_accuracy)
#include "test.h"
