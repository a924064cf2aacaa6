/*
 * test_keywords.c - TF-IDF keywords: corpus rarity beats frequency of common
 * words, identifiers keep their spelling and outrank their pieces, stop
 * words and numbers never come out, the limit holds, no corpus still works,
 * a redacted text's markers ("[REDACTED:github-pat]") give no keyword.
 */
#include "common.h"
#include "text/keywords.h"
#include "test.h"

/* A toy corpus of 1000 documents: df per term, anything else df 0. */
static int64_t toy_df(void *payload, const char *term, size_t len)
{
    MN_UNUSED(payload);
    static const struct {
        const char *term;
        int64_t df;
    } table[] = {{"fix", 600},  {"bug", 500},  {"cach", 40}, {"request", 300}, {"use", 700},
                 {"retri", 30}, {"time", 400}, {"out", 350}, {"forev", 200},   {"cap", 100},
                 {"key", 250},  {"url", 150},  {"fetch", 90}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(table); i++)
        if (strlen(table[i].term) == len && memcmp(table[i].term, term, len) == 0)
            return table[i].df;
    return 0;
}

static bool has(const mn_keyword *kw, size_t n, const char *text)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(kw[i].text, text) == 0)
            return true;
    return false;
}

static void test_tfidf(void)
{
    const char *text = "Fix the bug: requests time out because fetchWithRetry retries forever. "
                       "Use a cache for the requests and cap the retries at 3. "
                       "The cache key is the URL.";
    mn_df_source df = {1000, toy_df, NULL};
    mn_keyword *kw = NULL;
    size_t n = 0;
    REQUIRE_OK(mn_keywords_extract(&kw, &n, text, strlen(text), MN_LANG_UNKNOWN, &df, 5));
    REQUIRE(n == 5);
    /* The identifier: rare in the corpus, a whole, spelled as written. */
    CHECK_STR(kw[0].text, "fetchWithRetry");
    CHECK_STR(kw[0].term, "fetchwithretri");
    /* Common words of the corpus score below rare ones. */
    CHECK(!has(kw, n, "fix"));
    CHECK(!has(kw, n, "use"));
    CHECK(!has(kw, n, "the"));
    CHECK(!has(kw, n, "3"));
    CHECK_STR(kw[1].text, "retries"); /* 3 times: twice as a word, once in the identifier */
    CHECK_STR(kw[2].text, "cache");
    for (size_t i = 1; i < n; i++)
        CHECK(kw[i - 1].score >= kw[i].score);
    for (size_t i = 0; i < n; i++)
        if (strcmp(kw[i].text, "retries") == 0)
            CHECK(kw[i].count == 3);
    mn_keywords_free(kw, n);
}

static void test_display_forms(void)
{
    const char *text = "Retry the upload. retry it again; HTTP errors from parse_http_header.";
    mn_keyword *kw = NULL;
    size_t n = 0;
    REQUIRE_OK(mn_keywords_extract(&kw, &n, text, strlen(text), MN_LANG_EN, NULL, 20));
    CHECK(has(kw, n, "retry")); /* "Retry" at a sentence start is lower-cased */
    CHECK(!has(kw, n, "Retry"));
    CHECK(has(kw, n, "HTTP"));
    CHECK(has(kw, n, "parse_http_header"));
    CHECK(!has(kw, n, "the"));
    CHECK(!has(kw, n, "it"));
    mn_keywords_free(kw, n);

    /* Russian and French words come back as written, lower-cased. */
    const char *ru = "Кэширование запросов: кэширование ускоряет сборку.";
    REQUIRE_OK(mn_keywords_extract(&kw, &n, ru, strlen(ru), MN_LANG_UNKNOWN, NULL, 3));
    REQUIRE(n >= 1);
    CHECK_STR(kw[0].text, "кэширование");
    CHECK(kw[0].count == 2);
    mn_keywords_free(kw, n);
}

static void test_edges(void)
{
    mn_keyword *kw = (mn_keyword *)1;
    size_t n = 7;
    CHECK_OK(mn_keywords_extract(&kw, &n, "", 0, MN_LANG_EN, NULL, 5));
    CHECK(kw == NULL && n == 0);
    CHECK_OK(mn_keywords_extract(&kw, &n, "the and of 42", 13, MN_LANG_EN, NULL, 5));
    CHECK(kw == NULL && n == 0);
    CHECK_OK(mn_keywords_extract(&kw, &n, "alpha beta", 10, MN_LANG_EN, NULL, 0));
    CHECK(kw == NULL && n == 0);
    CHECK(mn_keywords_extract(NULL, &n, "x", 1, MN_LANG_EN, NULL, 5) == MN_EINVAL);
    mn_keywords_free(NULL, 0);
}

/* A redacted text's markers are not its words; text that only looks like a marker is. */
static void test_redaction_markers(void)
{
    mn_keyword *kw = NULL;
    size_t n = 0;
    const char *text = "Deploy token [REDACTED:github-pat] rotates; staging uses "
                       "[REDACTED:aws-access-key-id] with [REDACTED:] and [REDACTED:Odd Id] left";
    REQUIRE_OK(mn_keywords_extract(&kw, &n, text, strlen(text), MN_LANG_EN, NULL, 20));
    CHECK(has(kw, n, "deploy") && has(kw, n, "rotates") && has(kw, n, "staging"));
    CHECK(!has(kw, n, "github-pat") && !has(kw, n, "github") && !has(kw, n, "pat"));
    CHECK(!has(kw, n, "aws-access-key-id") && !has(kw, n, "aws") && !has(kw, n, "access"));
    /* "[REDACTED:]" and "[REDACTED:Odd Id]" are no markers (no id; an id is lower case) */
    CHECK(has(kw, n, "REDACTED") && has(kw, n, "odd"));
    mn_keywords_free(kw, n);
    /* the same words without the markers: the same keywords, in the same order */
    const char *plain = "Deploy token rotates; staging uses with and left";
    mn_keyword *kw2 = NULL;
    size_t n2 = 0;
    const char *marked = "Deploy token [REDACTED:github-pat] rotates; staging uses "
                         "[REDACTED:aws-access-key-id] with and left";
    REQUIRE_OK(mn_keywords_extract(&kw, &n, marked, strlen(marked), MN_LANG_EN, NULL, 20));
    REQUIRE_OK(mn_keywords_extract(&kw2, &n2, plain, strlen(plain), MN_LANG_EN, NULL, 20));
    CHECK(n == n2);
    for (size_t i = 0; i < n && i < n2; i++)
        CHECK_STR(kw[i].text, kw2[i].text);
    mn_keywords_free(kw, n);
    mn_keywords_free(kw2, n2);
}

MN_TEST_MAIN(MN_TEST(test_tfidf), MN_TEST(test_display_forms), MN_TEST(test_edges),
             MN_TEST(test_redaction_markers))
