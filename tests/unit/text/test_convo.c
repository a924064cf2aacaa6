/*
 * test_convo.c - the conversation cues of text/convo.h: gotchas in English,
 * Russian and French (with the reason of "don't X, because Y") and not in
 * questions, hedges or ordinary sentences; error lines and passing lines as
 * the common runners print them; error-then-fix episodes over turns, a
 * change that did not fix it, no pass, and bad input.
 */
#include "common.h"
#include "test.h"
#include "text/convo.h"

static size_t gotchas(mn_gotcha **g, const char *text)
{
    size_t n = 0;
    *g = NULL;
    if (mn_gotchas_find(g, &n, text, strlen(text), MN_DECISION_MARKDOWN) != 0)
        return (size_t)-1;
    return n;
}

static bool span_is(const char *text, mn_text_span sp, const char *want)
{
    size_t n = strlen(want);
    bool ok = sp.end - sp.start == n && memcmp(text + sp.start, want, n) == 0;
    if (!ok)
        fprintf(stderr, "  span '%.*s' != '%s'\n", (int)(sp.end - sp.start), text + sp.start, want);
    return ok;
}

static void test_gotchas(void)
{
    mn_gotcha *g;
    const char *t = "I checked the logs. Turns out the cache key ignores the query string.";
    REQUIRE(gotchas(&g, t) == 1);
    CHECK(span_is(t, g[0].statement, "Turns out the cache key ignores the query string."));
    CHECK(g[0].lang == MN_LANG_EN);
    CHECK(g[0].confidence >= 0.6);
    mn_gotchas_free(g);

    t = "Don't run the migrations in parallel, because the lock table deadlocks.";
    REQUIRE(gotchas(&g, t) == 1);
    CHECK(span_is(t, g[0].reason, "the lock table deadlocks"));
    CHECK(g[0].confidence > 0.7);
    mn_gotchas_free(g);

    t = "Gotcha: the fixture directory is read-only in CI.";
    REQUIRE(gotchas(&g, t) == 1);
    mn_gotchas_free(g);

    t = "Оказалось, что SQLite блокирует всю базу при записи.";
    REQUIRE(gotchas(&g, t) == 1);
    CHECK(g[0].lang == MN_LANG_RU);
    mn_gotchas_free(g);
    t = "Нельзя запускать тесты параллельно, иначе они делят один порт.";
    REQUIRE(gotchas(&g, t) == 1);
    CHECK(span_is(t, g[0].reason, "они делят один порт"));
    mn_gotchas_free(g);

    t = "Attention : le cache n'est pas vidé au redémarrage.";
    REQUIRE(gotchas(&g, t) == 1);
    CHECK(g[0].lang == MN_LANG_FR);
    mn_gotchas_free(g);
    t = "Il s'avère que le proxy coupe les connexions après 60 s.";
    REQUIRE(gotchas(&g, t) == 1);
    mn_gotchas_free(g);

    static const char *const none[] = {
        "Does it turn out the same on Windows?",
        "Maybe it turns out fine after the restart.",
        "The build turns green after the fix.",
        "Оказалось ли это полезным?",
        "Ajoute un écran d'accueil.",
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(none); i++) {
        size_t n = gotchas(&g, none[i]);
        if (n != 0)
            fprintf(stderr, "  not a gotcha, but found: %s\n", none[i]);
        CHECK(n == 0);
        mn_gotchas_free(g);
    }
    size_t n = 9;
    CHECK(mn_gotchas_find(&g, &n, NULL, 4, 0) == MN_EINVAL);
    CHECK_OK(mn_gotchas_find(&g, &n, "", 0, 0));
    CHECK(n == 0 && g == NULL);
}

static void test_line_kinds(void)
{
    static const struct {
        const char *line;
        mn_line_kind kind;
    } cases[] = {
        {"Traceback (most recent call last):", MN_LINE_ERROR},
        {"ValueError: invalid literal for int() with base 10: 'x'", MN_LINE_ERROR},
        {"E       AssertionError: assert 1 == 2", MN_LINE_ERROR},
        {"FAILED tests/test_a.py::test_x - AssertionError", MN_LINE_ERROR},
        {"=========== 1 failed, 2 passed in 0.31s ===========", MN_LINE_ERROR},
        {"error[E0308]: mismatched types", MN_LINE_ERROR},
        {"src/main.c:12:5: error: 'x' undeclared (first use in this function)", MN_LINE_ERROR},
        {"npm ERR! code ELIFECYCLE", MN_LINE_ERROR},
        {"Error: Process completed with exit code 1.", MN_LINE_ERROR},
        {"make: *** [Makefile:12: all] Error 2", MN_LINE_ERROR},
        {"--- FAIL: TestParse (0.00s)", MN_LINE_ERROR},
        {"bash: rg: command not found", MN_LINE_ERROR},
        {"============ 3 passed in 0.12s ============", MN_LINE_PASS},
        {"test result: ok. 5 passed; 0 failed; 0 ignored", MN_LINE_PASS},
        {"OK (12 tests)", MN_LINE_PASS},
        {"100% tests passed, 0 tests failed out of 40", MN_LINE_PASS},
        {"PASS src/app.test.js", MN_LINE_PASS},
        {"Build succeeded.", MN_LINE_PASS},
        {"The command exited with code 0", MN_LINE_PASS},
        {"All good, let me look at the next file.", MN_LINE_OTHER},
        {"We handle the error: see below", MN_LINE_OTHER},
        {"", MN_LINE_OTHER},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
        mn_line_kind k = mn_errfix_line_kind(cases[i].line, strlen(cases[i].line));
        if (k != cases[i].kind)
            fprintf(stderr, "  '%s': %d, want %d\n", cases[i].line, k, cases[i].kind);
        CHECK(k == cases[i].kind);
    }
    CHECK(mn_errfix_line_kind(NULL, 3) == MN_LINE_OTHER);
}

#define TURN(s)          \
    {                    \
        s, sizeof(s) - 1 \
    }

static void test_errfix(void)
{
    mn_turn turns[] = {
        TURN("Please run the tests."),
        TURN("$ pytest -q\nFAILED tests/test_a.py::test_x - AssertionError\n1 failed, 2 passed"),
        TURN("The comparison used the wrong key; I changed it to compare ids."),
        TURN("$ pytest -q\n3 passed in 0.20s"),
    };
    mn_errfix *e = NULL;
    size_t n = 0;
    REQUIRE_OK(mn_errfix_find(&e, &n, turns, MN_ARRAY_SIZE(turns)));
    REQUIRE(n == 1);
    CHECK(e[0].error_turn == 1 && e[0].fix_turn == 2 && e[0].pass_turn == 3);
    CHECK(span_is(turns[1].text, e[0].error, "FAILED tests/test_a.py::test_x - AssertionError"));
    CHECK(span_is(turns[3].text, e[0].pass, "3 passed in 0.20s"));
    CHECK(e[0].confidence > 0.75); /* pytest on both sides */
    free(e);

    /* a change that did not fix it: the newer error is the one fixed */
    mn_turn again[] = {
        TURN("error[E0308]: mismatched types"),
        TURN("@@ -1,3 +1,3 @@\n-let x: u32 = y;\n+let x: u64 = y;"),
        TURN("error[E0599]: no method named `foo` found"),
        TURN("Edit(src/lib.rs) applied"),
        TURN("test result: ok. 5 passed; 0 failed"),
    };
    REQUIRE_OK(mn_errfix_find(&e, &n, again, MN_ARRAY_SIZE(again)));
    REQUIRE(n == 1);
    CHECK(e[0].error_turn == 2 && e[0].fix_turn == 3 && e[0].pass_turn == 4);
    CHECK(e[0].confidence >= 0.7 - 1e-9); /* an edit tool call: the change is shown */
    free(e);

    /* no change, or no pass: nothing */
    mn_turn nofix[] = {TURN("npm ERR! code ELIFECYCLE"), TURN("PASS src/app.test.js")};
    REQUIRE_OK(mn_errfix_find(&e, &n, nofix, MN_ARRAY_SIZE(nofix)));
    CHECK(n == 0 && e == NULL);
    mn_turn nopass[] = {TURN("Traceback (most recent call last):\nKeyError: 'a'"),
                        TURN("I fixed the lookup.")};
    REQUIRE_OK(mn_errfix_find(&e, &n, nopass, MN_ARRAY_SIZE(nopass)));
    CHECK(n == 0);

    /* bad input */
    CHECK(mn_errfix_find(&e, &n, NULL, 2) == MN_EINVAL);
    mn_turn bad[] = {{NULL, 4}};
    CHECK(mn_errfix_find(&e, &n, bad, 1) == MN_EINVAL);
    CHECK_OK(mn_errfix_find(&e, &n, NULL, 0));
    CHECK(n == 0);
    /* invalid UTF-8 in a turn is just bytes */
    mn_turn odd[] = {TURN("\xff error: \xc3 boom"), TURN("I changed \xe2\x82 it"),
                     TURN("Build succeeded \xf0")};
    REQUIRE_OK(mn_errfix_find(&e, &n, odd, MN_ARRAY_SIZE(odd)));
    CHECK(n == 0); /* "error:" is not the first word of its line */
    free(e);
}

MN_TEST_MAIN(MN_TEST(test_gotchas), MN_TEST(test_line_kinds), MN_TEST(test_errfix))
