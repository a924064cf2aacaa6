/*
 * test_tokenize.c - the tokenizer's output on code, prose and odd input:
 * identifier splitting with the colocated whole, digits, paths, stems per
 * script and language, stop words, Unicode normalisation, the term length
 * cap, spans, invalid UTF-8, the callback's stop value, threads, re-entry.
 */
#include <pthread.h>

#include "common.h"
#include "text/tokenize.h"
#include "util/buf.h"
#include "util/util.h"
#include "test.h"

/* Terms joined by spaces; a colocated whole as "+term", an alternative stem as "~term". */
static int collect(void *payload, const char *tok, size_t len, size_t start, size_t end,
                   int colocated)
{
    mn_buf *b = payload;
    if (b->len)
        mn_buf_putc(b, ' ');
    if (colocated == MN_TOK_COLOC_WHOLE)
        mn_buf_putc(b, '+');
    else if (colocated == MN_TOK_COLOC_ALT)
        mn_buf_putc(b, '~');
    mn_buf_put(b, tok, len);
    MN_UNUSED(start);
    MN_UNUSED(end);
    return 0;
}

static _Thread_local char out_buf[8192];

static const char *toks(const char *text, mn_lang lang, unsigned flags)
{
    mn_buf b = MN_BUF_INIT;
    mn_tokenize(text, strlen(text), lang, flags, collect, &b);
    snprintf(out_buf, sizeof(out_buf), "%s", b.ptr);
    mn_buf_release(&b);
    return out_buf;
}

#define T(text, expect)         CHECK_STR(toks(text, MN_LANG_UNKNOWN, 0), expect)
#define TL(text, lang, expect)  CHECK_STR(toks(text, lang, 0), expect)
#define TF(text, flags, expect) CHECK_STR(toks(text, MN_LANG_UNKNOWN, flags), expect)

static void test_identifiers(void)
{
    /* Every spelling of one identifier gives the same terms. */
    T("parseHttpHeader", "pars +parsehttphead http header");
    T("parse_http_header", "pars +parsehttphead http header");
    T("ParseHTTPHeader", "pars +parsehttphead http header");
    T("PARSE_HTTP_HEADER", "pars +parsehttphead http header");
    T("parse-http-header", "pars http header"); /* kebab: separate words, no whole */
    T("XMLHttpRequest", "xml +xmlhttprequest http request");
    T("HTTPSConnection", "https +httpsconnect connect");
    /* One small letter after capitals stays with them. */
    T("getURLs", "get +geturl url");
    T("IDsList", "id +idslist list");
    T("IPv4", "ipv +ipv4 4");
    T("iOS", "i +io os");
    /* Leading, trailing and doubled underscores are only separators. */
    T("__init__", "init");
    T("_private__name_", "privat +privatenam name");
    T("__", "");
    T("self.assertEqual(foo.bar_baz, None)",
      "self assert +assertequ equal foo bar +barbaz baz none");
}

static void test_digits_and_paths(void)
{
    T("utf8", "utf +utf8 8");
    T("http2 v2", "http +http2 2 v +v2 2");
    T("x86_64", "x +x8664 86 64");
    T("sha256sum", "sha +sha256sum 256 sum");
    T("2024 3.14", "2024 3 14");
    /* Hash-like words (4+ letter/digit changes) stay whole and unsplit. */
    T("a1b2c3d4e5", "a1b2c3d4e5");
    T("5beed28", "5 +5beed28 beed 28");
    T("src/foo/bar_baz.py", "src foo bar +barbaz baz py");
    T("C:\\Users\\me\\file.txt", "c user file txt"); /* "me" is a stop word */
    T("std::vector<int>", "std vector int");
    T("os.path.join", "os path join");
}

static void test_stems_and_stopwords(void)
{
    T("running runs run", "run run run");
    T("The quick brown fox is running over the lazy dogs", "quick brown fox run over lazi dog");
    /* Pieces of identifiers keep their stop words: they are part of a name. */
    T("get_the_value", "get +getthevalu the valu");
    T("isEmpty", "is +isempti empti");
    T("the", "");
    TF("the", MN_TOK_KEEP_STOPWORDS, "the");
    TF("running dogs", MN_TOK_NO_STEM, "running dogs");
    T("The user's settings aren't saved", "user set save");
    /* Russian: any Cyrillic word, whatever the detected language; ё is е. */
    T("Парсер разбирает заголовки", "парсер разбира заголовк");
    T("заголовками ЗАГОЛОВКОВ", "заголовк заголовк");
    T("ёлка Ёлки", "елк елк");
    T("и в на это", "");
    T("Используйте parseHttpHeader для заголовков",
      "использ pars +parsehttphead http header заголовк");
    /* French: French stems, diacritics dropped after stemming, the English stem as an
     * alternative when it differs. */
    TL("analysées", MN_LANG_FR, "analys ~analyse");
    TL("têtes", MN_LANG_FR, "tet ~tete");
    TL("les fonctions", MN_LANG_FR, "fonction");
    T("Les fonctions analysées par le parseur sont très utiles",
      "fonction analys ~analyse parseur util");
    /* A French stop word is a word in English. */
    TL("les", MN_LANG_EN, "les");
    TL("les", MN_LANG_FR, "");
    TL("Häuser und Straßen", MN_LANG_DE, "haus ~hauser strass ~strassen");
    TL("las casas", MN_LANG_ES, "cas ~casa");
    /* Short words are not stemmed. */
    T("as is", "");
    T("ox", "ox");
}

static void test_unicode(void)
{
    T("café naïve Straße", "cafe naiv strass");
    T("résumé RÉSUMÉ", "resum resum");
    T("ﬁnance ＨＴＴＰ", "financ http"); /* NFKC: ligature, full width */
    T("soft\xC2\xAD"
      "hyphen",
      "softhyphen"); /* soft hyphen ignored inside the word */
    T("zero\xE2\x80\x8B"
      "width",
      "zero width");                /* zero-width space separates */
    T("e\xCC\x81t\xC3\xA9", "ete"); /* combining acute = precomposed */
    T("日本語のテキスト", "日 本 語 の テ キ ス ト");
    T("αβγ_δ Ξ", "αβγ +αβγδ δ ξ");
    T("fooБар", "foo +fooбар бар"); /* script change splits; a mixed whole is not stemmed */
    T("שלום", "שלום");
}

/* Collect spans and check each term: valid UTF-8, 1..MAX bytes, span inside the text. */
typedef struct {
    size_t len;
    size_t n;
    size_t bad;
    size_t starts[64], ends[64];
} span_check;

static int check_term(void *payload, const char *tok, size_t len, size_t start, size_t end,
                      int colocated)
{
    span_check *s = payload;
    if (len == 0 || len > MN_TOK_MAX_BYTES || !mn_utf8_valid(tok, len) || start >= end ||
        end > s->len || (s->n == 0 && colocated))
        s->bad++;
    if (s->n < 64) {
        s->starts[s->n] = start;
        s->ends[s->n] = end;
    }
    s->n++;
    return 0;
}

static void test_spans_and_caps(void)
{
    const char *text = "  parseHttpHeader(x) émigré";
    span_check s = {.len = strlen(text)};
    mn_tokenize(text, s.len, MN_LANG_UNKNOWN, 0, check_term, &s);
    CHECK(s.bad == 0);
    REQUIRE(s.n == 6);
    CHECK(s.starts[0] == 2 && s.ends[0] == 7);   /* parse */
    CHECK(s.starts[1] == 2 && s.ends[1] == 17);  /* the whole */
    CHECK(s.starts[2] == 7 && s.ends[2] == 11);  /* Http */
    CHECK(s.starts[3] == 11 && s.ends[3] == 17); /* Header */
    CHECK(s.starts[4] == 18 && s.ends[4] == 19); /* x */
    CHECK(s.starts[5] == 21 && s.ends[5] == s.len);

    /* A long identifier: pieces and whole cut to the cap; a very long word is one term. */
    char longw[400];
    memset(longw, 'a', sizeof(longw) - 1);
    longw[sizeof(longw) - 1] = '\0';
    span_check l = {.len = strlen(longw)};
    mn_tokenize(longw, l.len, MN_LANG_UNKNOWN, MN_TOK_NO_STEM, check_term, &l);
    CHECK(l.bad == 0);
    CHECK(l.n == 1);
    CHECK(strlen(toks(longw, MN_LANG_EN, MN_TOK_NO_STEM)) == MN_TOK_MAX_BYTES);
    /* Cut on a code point boundary: 40 two-byte letters are 80 bytes. */
    mn_buf cyr = MN_BUF_INIT;
    for (int i = 0; i < 40; i++)
        mn_buf_puts(&cyr, "ж");
    const char *o = toks(cyr.ptr, MN_LANG_UNKNOWN, MN_TOK_NO_STEM);
    CHECK(strlen(o) == MN_TOK_MAX_BYTES && mn_utf8_valid(o, strlen(o)));
    mn_buf_release(&cyr);
    /* A camelCase identifier of many pieces: the whole is cut, the pieces are all there. */
    const char *camel = "aVeryLongIdentifierNameThatKeepsGoingAndGoingBeyondSixtyFourBytesForSure";
    span_check c = {.len = strlen(camel)};
    mn_tokenize(camel, c.len, MN_LANG_UNKNOWN, 0, check_term, &c);
    CHECK(c.bad == 0);
    CHECK(c.n == 17); /* 16 pieces + the whole */
}

static void test_invalid_input(void)
{
    T("ab\xff"
      "cd\xc3(x\xe2\x82",
      "ab cd x");
    T("\xed\xa0\x80 surrogate", "surrog");
    CHECK(mn_tokenize(NULL, 0, MN_LANG_UNKNOWN, 0, collect, NULL) == 0);
    CHECK_STR(toks("", MN_LANG_UNKNOWN, 0), "");
    /* Random bytes: no crash, every term well formed (ASan/UBSan watch the rest). */
    uint32_t seed = 12345;
    char buf[512];
    for (int round = 0; round < 2000; round++) {
        size_t n = 1 + (seed % sizeof(buf));
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = seed >> 16;
            /* Mostly ASCII letters and UTF-8 lead/continuation bytes. */
            buf[i] = (char)(r % 3 == 0 ? 'a' + r % 26 : r % 3 == 1 ? 0x80 + r % 0x80 : r & 0xFF);
        }
        span_check s = {.len = n};
        mn_tokenize(buf, n, MN_LANG_UNKNOWN, round & 7, check_term, &s);
        CHECK(s.bad == 0);
    }
}

static int stop_after_two(void *payload, const char *tok, size_t len, size_t start, size_t end,
                          int colocated)
{
    MN_UNUSED(tok);
    MN_UNUSED(len);
    MN_UNUSED(start);
    MN_UNUSED(end);
    MN_UNUSED(colocated);
    int *n = payload;
    return ++*n == 2 ? 42 : 0;
}

/* A callback that tokenizes again with the same thread's tokenizer. */
static int reenter(void *payload, const char *tok, size_t len, size_t start, size_t end,
                   int colocated)
{
    MN_UNUSED(start);
    MN_UNUSED(end);
    MN_UNUSED(colocated);
    mn_buf *b = payload;
    mn_buf inner = MN_BUF_INIT;
    mn_tokenize("fooBar", 6, MN_LANG_EN, 0, collect, &inner);
    mn_buf_printf(b, "%.*s(%s) ", (int)len, tok, inner.ptr);
    mn_buf_release(&inner);
    return 0;
}

static void test_callback_control(void)
{
    int n = 0;
    CHECK(mn_tokenize("one two three four", 18, MN_LANG_EN, 0, stop_after_two, &n) == 42);
    CHECK(n == 2);
    mn_buf b = MN_BUF_INIT;
    CHECK(mn_tokenize("alpha beta", 10, MN_LANG_EN, 0, reenter, &b) == 0);
    CHECK_STR(b.ptr, "alpha(foo +foobar bar) beta(foo +foobar bar) ");
    mn_buf_release(&b);
    /* A tokenizer of one's own gives the same terms as the thread's. */
    mn_tokenizer *t = mn_tokenizer_new();
    mn_buf own = MN_BUF_INIT;
    const char *text = "parseHttpHeader runs Заголовки";
    CHECK(mn_tokenizer_run(t, text, strlen(text), MN_LANG_UNKNOWN, 0, collect, &own) == 0);
    CHECK_STR(own.ptr, toks(text, MN_LANG_UNKNOWN, 0));
    mn_buf_release(&own);
    mn_tokenizer_free(t);
}

static void *thread_main(void *arg)
{
    int *bad = arg;
    for (int i = 0; i < 200; i++) {
        if (strcmp(toks("parseHttpHeader running Заголовки", MN_LANG_UNKNOWN, 0),
                   "pars +parsehttphead http header run заголовк") != 0)
            (*bad)++;
        if (strcmp(toks("analysées", MN_LANG_FR, 0), "analys ~analyse") != 0)
            (*bad)++;
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t th[4];
    int bad[4] = {0};
    for (int i = 0; i < 4; i++)
        REQUIRE(pthread_create(&th[i], NULL, thread_main, &bad[i]) == 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(bad[i] == 0);
    }
}

/* FNV-1a of every term with its span and colocation. */
static int hash_term(void *payload, const char *tok, size_t len, size_t start, size_t end,
                     int colocated)
{
    uint64_t *h = payload;
    char meta[64];
    int m = snprintf(meta, sizeof(meta), "|%zu:%zu:%d|", start, end, colocated);
    for (size_t i = 0; i < len + (size_t)m; i++) {
        *h ^= (unsigned char)(i < len ? tok[i] : meta[i - len]);
        *h *= 1099511628211ull;
    }
    return 0;
}

/*
 * The terms of a fixed sample, pinned to MN_TOK_VERSION. Stores delete FTS
 * rows by tokenizing the old text again, so a rule change must bump the
 * version (stores then rebuild). When this fails after a deliberate change:
 * bump MN_TOK_VERSION in tokenize.h and put the new hash here.
 */
static void test_rules_pinned_to_version(void)
{
    static const char *const sample[] = {
        "int parseHttpHeader(const char *line); // XMLHttpRequest getURLs IPv4 utf8 x86_64",
        "src/foo/bar_baz.py __init__ a1b2c3d4e5 5beed28 ＨＴＴＰ ﬁle café Straße",
        "The quick brown fox is running over the lazy dogs; don't stop.",
        "Парсер разбирает заголовки, ёлка и Ёжик.",
        "Les fonctions analysées par le parseur sont très utiles pour les en-têtes.",
        "Der Parser liest die Kopfzeilen jeder Anfrage. El analizador lee las cabeceras.",
        "日本語のテキスト αβγ_δ fooБар",
    };
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sample); i++)
        mn_tokenize(sample[i], strlen(sample[i]), MN_LANG_UNKNOWN, 0, hash_term, &h);
    const uint64_t expected = 0xa591bfede439e682ull; /* MN_TOK_VERSION 1 */
    if (h != expected)
        fprintf(stderr, "tokenizer output changed: hash 0x%016llx; bump MN_TOK_VERSION\n",
                (unsigned long long)h);
    CHECK(MN_TOK_VERSION == 1);
    CHECK(h == expected);
}

static void test_ident_last_part(void)
{
    CHECK_STR(mn_ident_last_part("Session.refresh"), "refresh");
    CHECK_STR(mn_ident_last_part("a::b::Cart"), "Cart");
    CHECK_STR(mn_ident_last_part("pkg.mod::Type.method"), "method");
    CHECK_STR(mn_ident_last_part("plain"), "plain");
    CHECK_STR(mn_ident_last_part("trailing."), "trailing.");
    CHECK_STR(mn_ident_last_part("a::"), "a::");
    CHECK_STR(mn_ident_last_part(""), "");
}

MN_TEST_MAIN(MN_TEST(test_identifiers), MN_TEST(test_ident_last_part),
             MN_TEST(test_digits_and_paths), MN_TEST(test_stems_and_stopwords),
             MN_TEST(test_unicode), MN_TEST(test_spans_and_caps), MN_TEST(test_invalid_input),
             MN_TEST(test_callback_control), MN_TEST(test_threads),
             MN_TEST(test_rules_pinned_to_version))
