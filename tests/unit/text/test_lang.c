/*
 * test_lang.c - language detection on prose, code and short or mixed text,
 * stop-word lookup per language, language codes.
 */
#include "common.h"
#include "text/tokenize.h"
#include "test.h"

static mn_lang detect(const char *s)
{
    return mn_lang_detect(s, strlen(s));
}

static void test_detect_prose(void)
{
    CHECK(detect("The parser reads the headers of every request and stores them in a map.") ==
          MN_LANG_EN);
    CHECK(detect("Парсер читает заголовки каждого запроса и сохраняет их в словарь.") ==
          MN_LANG_RU);
    CHECK(detect("Le parseur lit les en-têtes de chaque requête et les garde dans une table.") ==
          MN_LANG_FR);
    CHECK(detect("Der Parser liest die Kopfzeilen jeder Anfrage und speichert sie in einer "
                 "Tabelle.") == MN_LANG_DE);
    CHECK(detect("El analizador lee las cabeceras de cada petición y las guarda en una tabla.") ==
          MN_LANG_ES);
    /* Accents alone are a hint, not a verdict; a short text without stop words is unknown. */
    CHECK(detect("parseHttpHeader") == MN_LANG_UNKNOWN);
    CHECK(detect("") == MN_LANG_UNKNOWN);
    CHECK(mn_lang_detect(NULL, 0) == MN_LANG_UNKNOWN);
    CHECK(detect("12345 !!! ...") == MN_LANG_UNKNOWN);
    CHECK(detect("日本語のテキスト") == MN_LANG_UNKNOWN);
}

static void test_detect_code_and_mixed(void)
{
    /* Code mentions "de", "la", "die" now and then; it stays English. */
    const char *py = "def parse(line, de=None, la=0):\n"
                     "    # split the header line and return the name and the value\n"
                     "    if not line or die:\n"
                     "        return None\n"
                     "    name, _, value = line.partition(':')\n"
                     "    return name.strip(), value.strip()\n";
    CHECK(detect(py) == MN_LANG_EN);
    /* A Russian note about code: Cyrillic letters outnumber Latin ones. */
    CHECK(detect("Функция parseHttpHeader разбирает заголовок и возвращает пару ключ-значение") ==
          MN_LANG_RU);
    /* An English text quoting one French phrase stays English. */
    CHECK(detect("We agreed that the cache is a pièce de résistance of the design, and that "
                 "it should be kept.") == MN_LANG_EN);
    /* Only the first 4 KiB count. */
    char big[6000];
    memset(big, ' ', sizeof(big));
    memcpy(big + 4500, "les fonctions de la table et le parseur", 39);
    CHECK(mn_lang_detect(big, sizeof(big)) == MN_LANG_UNKNOWN);
}

static void test_stopwords(void)
{
    CHECK(mn_lang_is_stopword(MN_LANG_EN, "the", 3));
    CHECK(mn_lang_is_stopword(MN_LANG_EN, "then", 4));
    CHECK(!mn_lang_is_stopword(MN_LANG_EN, "thenx", 5));
    CHECK(!mn_lang_is_stopword(MN_LANG_EN, "th", 2));
    CHECK(!mn_lang_is_stopword(MN_LANG_EN, "header", 6));
    CHECK(!mn_lang_is_stopword(MN_LANG_EN, "may", 3));     /* a month, on purpose */
    CHECK(mn_lang_is_stopword(MN_LANG_UNKNOWN, "the", 3)); /* unknown reads as English */
    CHECK(mn_lang_is_stopword(MN_LANG_FR, "les", 3));
    CHECK(!mn_lang_is_stopword(MN_LANG_EN, "les", 3));
    CHECK(mn_lang_is_stopword(MN_LANG_FR, "ete", 3)); /* été, without diacritics */
    CHECK(mn_lang_is_stopword(MN_LANG_DE, "und", 3));
    CHECK(mn_lang_is_stopword(MN_LANG_ES, "los", 3));
    /* Cyrillic words are Russian whatever the language says. */
    CHECK(mn_lang_is_stopword(MN_LANG_EN, "это", strlen("это")));
    CHECK(mn_lang_is_stopword(MN_LANG_RU, "это", strlen("это")));
    CHECK(!mn_lang_is_stopword(MN_LANG_RU, "заголовок", strlen("заголовок")));
    CHECK(mn_lang_is_stopword(MN_LANG_RU, "the", 3)); /* Latin words of a Russian text */
    CHECK(!mn_lang_is_stopword(MN_LANG_EN, "", 0));
}

static void test_codes(void)
{
    CHECK_STR(mn_lang_code(MN_LANG_EN), "en");
    CHECK_STR(mn_lang_code(MN_LANG_RU), "ru");
    CHECK_STR(mn_lang_code(MN_LANG_FR), "fr");
    CHECK_STR(mn_lang_code(MN_LANG_UNKNOWN), "");
    CHECK_STR(mn_lang_code((mn_lang)99), "");
    for (int l = 1; l < MN_LANG__COUNT; l++)
        CHECK(mn_lang_from_code(mn_lang_code((mn_lang)l)) == (mn_lang)l);
    CHECK(mn_lang_from_code("FR") == MN_LANG_FR);
    CHECK(mn_lang_from_code("xx") == MN_LANG_UNKNOWN);
    CHECK(mn_lang_from_code(NULL) == MN_LANG_UNKNOWN);
}

MN_TEST_MAIN(MN_TEST(test_detect_prose), MN_TEST(test_detect_code_and_mixed),
             MN_TEST(test_stopwords), MN_TEST(test_codes))
