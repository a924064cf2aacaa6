/*
 * test_decision.c - the decision detector (text/decision.h) and what it
 * stands on (text/sentences.h, text/cues.h): decisions with their reasons,
 * alternatives and what they supersede in English, Russian and French;
 * the negatives that share their words (questions, hedges, wrong output
 * described with "instead of", "решил проблему", version bumps, typos);
 * cues inside code spans, URLs and quotes; commit trailers and quoted
 * replies; sentences around abbreviations, versions, paths and bullets;
 * long and invalid input.
 */
#include "common.h"
#include "test.h"
#include "text/cues.h"
#include "text/decision.h"
#include "text/sentences.h"

/* The decisions of text (a commit message unless flags say otherwise), threshold min. */
static size_t find(mn_decision **d, const char *text, unsigned flags, double min)
{
    mn_decision_opts o = MN_DECISION_OPTS_INIT;
    o.flags = flags;
    o.min_confidence = min;
    size_t n = 0;
    *d = NULL;
    int rc = mn_decisions_find(d, &n, text, strlen(text), &o);
    if (rc != 0) {
        fprintf(stderr, "mn_decisions_find: %s\n", mn_error_last());
        return (size_t)-1;
    }
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

/* Does one of the spans contain want? */
static bool spans_have(const char *text, const mn_text_span *sp, size_t n, const char *want)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = sp[i].end - sp[i].start;
        if (memmem(text + sp[i].start, len, want, strlen(want)))
            return true;
    }
    fprintf(stderr, "  no span holds '%s' (of %zu)\n", want, n);
    return false;
}

static void test_english(void)
{
    mn_decision *d;
    const char *t = "Use pathlib instead of os.path because it handles Windows drive letters";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].kind == MN_DECISION_CONTRAST);
    CHECK(d[0].lang == MN_LANG_EN);
    CHECK(span_is(t, d[0].statement, "Use pathlib instead of os.path"));
    CHECK(d[0].n_alternatives == 1 && span_is(t, d[0].alternatives[0], "os.path"));
    CHECK(d[0].n_reasons == 1 && span_is(t, d[0].reasons[0], "it handles Windows drive letters"));
    CHECK((d[0].why & MN_DECISION_WHY_ADOPT) && (d[0].why & MN_DECISION_WHY_REASON));
    CHECK(d[0].confidence >= 0.7 && d[0].confidence <= 1.0);
    mn_decisions_free(d);

    /* the issue's own counter-example: a fix, not a decision */
    REQUIRE(find(&d, "Fix typo instead of the old one", MN_DECISION_COMMIT, 0.5) == 0);

    t = "Switched from Jenkins to GitHub Actions so that builds run on every pull request.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].kind == MN_DECISION_TRANSITION);
    CHECK(d[0].n_supersedes == 1 && span_is(t, d[0].supersedes[0], "Jenkins"));
    CHECK(span_is(t, d[0].chosen, "GitHub Actions"));
    CHECK(d[0].n_reasons == 1 &&
          spans_have(t, d[0].reasons, 1, "builds run on every pull request"));
    mn_decisions_free(d);

    t = "We decided to drop Python 2 support.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].kind == MN_DECISION_EXPLICIT);
    CHECK(d[0].why & MN_DECISION_WHY_FIRST_PERSON);
    CHECK(d[0].confidence >= 0.7);
    mn_decisions_free(d);

    t = "net: replace winapi with windows-sys (#5204)";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].kind == MN_DECISION_REPLACE);
    CHECK(d[0].n_supersedes == 1 && span_is(t, d[0].supersedes[0], "winapi"));
    mn_decisions_free(d);

    t = "Delete `MockTask` in favor of `task::spawn`.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].kind == MN_DECISION_DROP);
    CHECK(d[0].n_supersedes == 1 && span_is(t, d[0].supersedes[0], "`MockTask`"));
    CHECK(span_is(t, d[0].chosen, "`task::spawn`"));
    mn_decisions_free(d);

    /* "use X in favour of Y" sets Y aside */
    t = "Use int64_t in favour of __int64 for curl_off_t.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].n_alternatives == 1 && spans_have(t, d[0].alternatives, 1, "__int64"));
    mn_decisions_free(d);

    /* the reason in the next sentence, and before the decision */
    t = "Use a per-resource tick instead of a single global tick counter. This prevents the hang "
        "described by #6133.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].n_reasons == 1 && spans_have(t, d[0].reasons, 1, "This prevents the hang"));
    CHECK(d[0].n_alternatives == 1 &&
          span_is(t, d[0].alternatives[0], "a single global tick counter"));
    mn_decisions_free(d);
    t = "Because Interest and Ready are public APIs, they were moved to io instead of runtime.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].n_reasons == 1 && span_is(t, d[0].reasons[0], "Interest and Ready are public APIs"));
    mn_decisions_free(d);
}

static void test_english_negatives(void)
{
    mn_decision *d;
    static const char *const none[] = {
        "Should we switch to pnpm instead of yarn?",
        "Why did you stop using NPS?",
        "We could use SQLite instead of Postgres for the tests.",
        "Fix: return empty list instead of null for documentHighlight per LSP spec",
        "fix: show deleted users instead of 404",
        "Switch to Python 3.12",
        "ci: use ubuntu-24.04-arm instead of ubuntu-22.04-arm (#7470)",
        "Decide which DB to use after all",
        "added -t switch to make text info of CAs optional",
        "fix: use image icon instead of paperclip",
        "The curldown conversion accidentally replaced daniel@haxx.se with daniel.se.",
        "This is more fixing-the-symptom rather than the underlying problem though.",
        "tests: test IMAP, POP3 and SMTP over HTTP proxy tunnel",
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(none); i++) {
        size_t n = find(&d, none[i], MN_DECISION_COMMIT, 0.5);
        if (n != 0)
            fprintf(stderr, "  not a decision, but found: %s\n", none[i]);
        CHECK(n == 0);
        mn_decisions_free(d);
    }
    /* below the threshold they still come out when asked, with the doubt named */
    REQUIRE(find(&d, "We could use SQLite instead of Postgres for the tests.", MN_DECISION_COMMIT,
                 0) == 1);
    CHECK(d[0].why & MN_DECISION_WHY_HEDGED);
    CHECK(d[0].confidence < 0.5);
    mn_decisions_free(d);
    REQUIRE(find(&d, "fix: show deleted users instead of 404", MN_DECISION_COMMIT, 0) == 1);
    CHECK(d[0].why & MN_DECISION_WHY_BEHAVIOUR);
    mn_decisions_free(d);
    REQUIRE(find(&d, "Switch to Python 3.12", MN_DECISION_COMMIT, 0) == 1);
    CHECK(d[0].why & MN_DECISION_WHY_VERSION);
    mn_decisions_free(d);
    /* a question never comes out, even at 0 */
    REQUIRE(find(&d, "Should we switch to pnpm instead of yarn?", MN_DECISION_MARKDOWN, 0) == 0);
}

static void test_russian(void)
{
    mn_decision *d;
    const char *t = "Заменил ТаблицыЗначений на массивы, так как они быстрее";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].lang == MN_LANG_RU);
    CHECK(d[0].kind == MN_DECISION_REPLACE);
    CHECK(d[0].n_supersedes == 1 && span_is(t, d[0].supersedes[0], "ТаблицыЗначений"));
    CHECK(span_is(t, d[0].chosen, "массивы"));
    CHECK(d[0].n_reasons == 1 && span_is(t, d[0].reasons[0], "они быстрее"));
    mn_decisions_free(d);

    t = "Решили перейти на PostgreSQL, потому что SQLite не держит нагрузку.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].kind == MN_DECISION_EXPLICIT);
    CHECK(d[0].n_reasons == 1 && span_is(t, d[0].reasons[0], "SQLite не держит нагрузку"));
    mn_decisions_free(d);

    t = "Отказ от предварительной компиляции в ModuleImage";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].kind == MN_DECISION_DROP);
    CHECK(d[0].n_supersedes == 1 &&
          span_is(t, d[0].supersedes[0], "предварительной компиляции в ModuleImage"));
    mn_decisions_free(d);

    t = "Использован Costura.Fody вместо ручного встраивания сборок";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].n_alternatives == 1 &&
          span_is(t, d[0].alternatives[0], "ручного встраивания сборок"));
    mn_decisions_free(d);

    /* a passive: what is replaced is the subject */
    t = "Прикрепление файлов в формате xlsx заменено на mxl, т.к. не всегда гарантируется "
        "конвертация.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].n_supersedes == 1 &&
          span_is(t, d[0].supersedes[0], "Прикрепление файлов в формате xlsx"));
    CHECK(d[0].n_reasons == 1 && spans_have(t, d[0].reasons, 1, "не всегда гарантируется"));
    mn_decisions_free(d);

    static const char *const none[] = {
        "#282. Решил проблему.",
        "Решение проблем с FP на вложенных запросах",
        "Исправлена ошибка при рекурсивном обходе каталогов в режиме отказа от синхронных вызовов.",
        "fixed #224 Формат(0, \"ЧН=\") возвращает пустую строку вместо строки \"0\"",
        "Добавлен параметр \"Отказ\" в обработчик",
        "#352 Возможность отказа от выполнения тестов",
        "Заменил поставляемый opm на версию 13",
        "Слетело имя сборки после перехода на новый формат проекта",
        "Может пора уже всё новое только в 2.х делать?",
        "В будущем хотелось бы полностью отказаться от Guava",
        "Заменить минимальную поддержку bsl на готовый проект bsl-language-server",
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(none); i++) {
        size_t n = find(&d, none[i], MN_DECISION_COMMIT, 0.5);
        if (n != 0)
            fprintf(stderr, "  not a decision, but found: %s\n", none[i]);
        CHECK(n == 0);
        mn_decisions_free(d);
    }
}

static void test_french(void)
{
    mn_decision *d;
    const char *t = "Remplace uglify-js par terser-js pour pouvoir utiliser ES6";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].lang == MN_LANG_FR);
    CHECK(d[0].kind == MN_DECISION_REPLACE);
    CHECK(d[0].n_supersedes == 1 && span_is(t, d[0].supersedes[0], "uglify-js"));
    CHECK(span_is(t, d[0].chosen, "terser-js"));
    CHECK(d[0].n_reasons == 1 && spans_have(t, d[0].reasons, 1, "pouvoir utiliser ES6"));
    mn_decisions_free(d);

    t = "Utilise des espaces au lieu des tabulations";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].n_alternatives == 1 && span_is(t, d[0].alternatives[0], "tabulations"));
    mn_decisions_free(d);

    t = "Nous avons décidé d'abandonner Travis car les builds étaient trop lents.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].kind == MN_DECISION_EXPLICIT);
    CHECK(d[0].n_reasons == 1 && span_is(t, d[0].reasons[0], "les builds étaient trop lents"));
    mn_decisions_free(d);

    /* the reason is the sentence before "donc" */
    t = "Depuis la version 4, l'action a besoin d'un dépôt Git. On remplace donc cette action par "
        "actions/deploy-pages.";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].n_reasons == 1 && spans_have(t, d[0].reasons, 1, "a besoin d'un dépôt Git"));
    mn_decisions_free(d);

    static const char *const none[] = {
        "Passage à l'heure d'hiver",
        "[TRA-15365] On affiche les révisions jusqu'à 18 mois (au lieu de 6)",
        "Passage à Python 3.9 et mise à jour des dépendances",
        "correctif(typo): étendre plutôt que entendre pour la durée de conservation",
        "permet de choisir un niveau de titre",
        "Il faudrait idéalement renvoyer des 403 au lieu de 200.",
        "Corrige un déchet du passage à black",
        "allège l'affichage des décisions rendues",
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(none); i++) {
        size_t n = find(&d, none[i], MN_DECISION_COMMIT, 0.5);
        if (n != 0)
            fprintf(stderr, "  not a decision, but found: %s\n", none[i]);
        CHECK(n == 0);
        mn_decisions_free(d);
    }
}

static void test_code_urls_quotes(void)
{
    mn_decision *d;
    /* cue words inside code spans and URLs are no cue */
    REQUIRE(find(&d, "Document the `instead of` keyword, see https://example.com/switch-to-x",
                 MN_DECISION_MARKDOWN, 0) == 0);
    /* quoted names are no cue either ("Отказ" is a parameter) */
    REQUIRE(find(&d, "Ссылка на «Отказ от» в справке", MN_DECISION_MARKDOWN, 0) == 0);
    const char *t = "Use `fetch()` instead of `XMLHttpRequest` in src/net/http.js (see "
                    "https://developer.mozilla.org/docs/Web/API/Fetch_API).";
    REQUIRE(find(&d, t, MN_DECISION_MARKDOWN, 0.5) == 1);
    CHECK(d[0].n_alternatives == 1 && span_is(t, d[0].alternatives[0], "`XMLHttpRequest`"));
    CHECK(d[0].why & MN_DECISION_WHY_NAMED);
    mn_decisions_free(d);
    /* a quoted reply and a fenced block say nothing; the reply below does */
    t = "> We decided to use Redis instead of Memcached.\n"
        "\n"
        "```\n"
        "switched from A to B\n"
        "```\n"
        "\n"
        "We went with Memcached because it is already deployed.\n";
    REQUIRE(find(&d, t, MN_DECISION_MARKDOWN, 0.5) == 1);
    CHECK(memmem(t + d[0].statement.start, d[0].statement.end - d[0].statement.start, "went with",
                 9) != NULL);
    mn_decisions_free(d);
    /* commit trailers are ignored */
    t = "Update the changelog\n"
        "\n"
        "Co-authored-by: We decided to switch from X to Y <a@example.com>\n"
        "Signed-off-by: Alice <alice@example.com>\n";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0) == 0);
}

static void test_mixed_languages(void)
{
    mn_decision *d;
    const char *t = "Use ripgrep instead of grep.\n"
                    "\n"
                    "Перешли на ripgrep, так как он быстрее.\n"
                    "\n"
                    "On utilise ripgrep plutôt que grep.\n";
    REQUIRE(find(&d, t, MN_DECISION_MARKDOWN, 0.5) == 3);
    CHECK(d[0].lang == MN_LANG_EN);
    CHECK(d[1].lang == MN_LANG_RU);
    CHECK(d[1].kind == MN_DECISION_TRANSITION);
    CHECK(d[2].lang == MN_LANG_FR);
    CHECK(d[0].statement.start < d[1].statement.start &&
          d[1].statement.start < d[2].statement.start);
    mn_decisions_free(d);
}

static size_t count_sentences(const char *t, unsigned flags, mn_sentence **out)
{
    size_t n = 0;
    mn_sentences_split(out, &n, t, strlen(t), flags);
    return n;
}

static bool sent_is(const char *t, const mn_sentence *s, const char *want)
{
    return span_is(t, (mn_text_span){s->start, s->end}, want);
}

static void test_sentences(void)
{
    mn_sentence *s;
    const char *t = "Bump libfoo to v1.2.3, e.g. for src/a.b/c.py. Then run `make check. Now` "
                    "again. Т.к. это быстрее, см. https://example.com/a. b. Done!";
    REQUIRE(count_sentences(t, 0, &s) == 4);
    CHECK(sent_is(t, &s[0], "Bump libfoo to v1.2.3, e.g. for src/a.b/c.py."));
    CHECK(sent_is(t, &s[1], "Then run `make check. Now` again."));
    CHECK(sent_is(t, &s[2], "Т.к. это быстрее, см. https://example.com/a. b."));
    CHECK(sent_is(t, &s[3], "Done!"));
    free(s);

    /* a subject wrapped over two lines is one sentence; bullets without full stops split */
    t = "Nah, we refer people to the generic site instead of\n"
        "keeping a list here\n"
        "\n"
        "- use spaces\n"
        "- drop tabs\n"
        "  in the templates\n"
        "1. first\n"
        "\n"
        "Signed-off-by: A <a@example.com>\n";
    REQUIRE(count_sentences(t, MN_SENT_COMMIT, &s) == 4);
    CHECK(sent_is(t, &s[0],
                  "Nah, we refer people to the generic site instead of\nkeeping a list here"));
    CHECK(s[0].flags & MN_SENT_SUBJECT);
    CHECK(sent_is(t, &s[1], "use spaces"));
    CHECK(s[1].flags & MN_SENT_BULLET);
    CHECK(sent_is(t, &s[2], "drop tabs\n  in the templates"));
    CHECK(sent_is(t, &s[3], "first"));
    free(s);

    /* one-line items without bullets, and Markdown headings, quotes, tables */
    t = "Поддержка Try/Except #1050\n"
        "Прикрепление xlsx заменено на mxl #1052\n"
        "\n"
        "## Why\n"
        "> quoted\n"
        "| a | b |\n"
        "<!-- hidden\n"
        "still hidden -->\n"
        "Because.";
    REQUIRE(count_sentences(t, MN_SENT_MARKDOWN, &s) == 4);
    CHECK(sent_is(t, &s[0], "Поддержка Try/Except #1050"));
    CHECK(sent_is(t, &s[1], "Прикрепление xlsx заменено на mxl #1052"));
    CHECK(sent_is(t, &s[2], "Why") && (s[2].flags & MN_SENT_HEADING));
    CHECK(sent_is(t, &s[3], "Because."));
    free(s);

    REQUIRE(count_sentences("", 0, &s) == 0);
    REQUIRE(count_sentences("  \n\n \n", MN_SENT_COMMIT, &s) == 0);
}

static void test_cue_patterns(void)
{
    mn_cue_words w = MN_CUE_WORDS_INIT;
    const char *t = "Replace the old `Foo::bar()` helper with getChild(i) – then décidé, Ёлка";
    mn_cue_words_scan(&w, t, 0, strlen(t));
    mn_cue_pat *p = mn_cue_pat_compile("replac* {S} with|by {C}");
    REQUIRE(p != NULL);
    mn_cue_match m;
    REQUIRE(mn_cue_pat_find(p, &w, 0, w.n, NULL, &m));
    CHECK(span_is(
        t,
        (mn_text_span){w.toks[m.slot_first[MN_SLOT_S]].start, w.toks[m.slot_last[MN_SLOT_S]].end},
        "the old `Foo::bar()` helper"));
    CHECK(span_is(
        t,
        (mn_text_span){w.toks[m.slot_first[MN_SLOT_C]].start, w.toks[m.slot_last[MN_SLOT_C]].end},
        "getChild(i)"));
    mn_cue_pat_free(p);
    /* normalisation: diacritics dropped from Latin, ё -> е, й kept */
    p = mn_cue_pat_compile("then decide , елка");
    REQUIRE(p != NULL);
    CHECK(mn_cue_pat_find(p, &w, 0, w.n, NULL, &m));
    mn_cue_pat_free(p);
    CHECK(mn_cue_is(&w, 0, "replace"));
    CHECK(mn_cue_is(&w, 0, "repl*"));
    /* suffixes, gaps, infinitives */
    mn_cue_words_scan(&w, "решили всё-таки не использовать", 0,
                      strlen("решили всё-таки не использовать"));
    p = mn_cue_pat_compile("решил* ~2 @inf");
    REQUIRE(p != NULL);
    CHECK(mn_cue_pat_find(p, &w, 0, w.n, NULL, &m));
    mn_cue_pat_free(p);
    /* -ость nouns and "путь" end like infinitives but are none */
    mn_cue_words_scan(&w, "скорость путь", 0, strlen("скорость путь"));
    p = mn_cue_pat_compile("@inf");
    REQUIRE(p != NULL);
    CHECK(!mn_cue_pat_find(p, &w, 0, w.n, NULL, &m));
    mn_cue_pat_free(p);
    mn_cue_words_scan(&w, "решили всё-таки не использовать", 0,
                      strlen("решили всё-таки не использовать"));
    p = mn_cue_pat_compile("*ать");
    REQUIRE(p != NULL);
    CHECK(mn_cue_pat_find(p, &w, 0, w.n, NULL, &m) && m.first == 3);
    mn_cue_pat_free(p);
    /* patterns that do not parse */
    CHECK(mn_cue_pat_compile("") == NULL);
    CHECK(mn_cue_pat_compile("a ~0 b") == NULL);
    CHECK(mn_cue_pat_compile("{X}") == NULL);
    mn_cue_words_release(&w);
}

static void test_long_input(void)
{
    /* 1,500 decisions in one text: capped at MN_DECISION_MAX_OUT, each span inside the text */
    mn_buf b = MN_BUF_INIT;
    for (int i = 0; i < 1500; i++) {
        /* names without digits (lib12 would read as a version) */
        char name[8] = {(char)('a' + i % 26), (char)('a' + i / 26 % 26), (char)('a' + i / 676), 0};
        mn_buf_printf(&b, "Use lib%s instead of old%s because it is faster.\n\n", name, name);
    }
    mn_decision *d;
    size_t n = find(&d, b.ptr, MN_DECISION_MARKDOWN, 0.5);
    CHECK(n == MN_DECISION_MAX_OUT);
    for (size_t i = 0; i < n && i < MN_DECISION_MAX_OUT; i++)
        CHECK(d[i].statement.end <= b.len && d[i].statement.start < d[i].statement.end);
    mn_decisions_free(d);
    /* one enormous sentence without punctuation is cut and still read */
    mn_buf_clear(&b);
    for (int i = 0; i < 20000; i++)
        mn_buf_puts(&b, "lorem ");
    mn_buf_puts(&b, "use foo instead of bar");
    n = find(&d, b.ptr, 0, 0.5);
    CHECK(n == 1);
    mn_decisions_free(d);
    mn_buf_release(&b);
    /* over the limit: refused with a clear error */
    size_t big = (size_t)MN_DECISION_MAX_INPUT + 1;
    char *huge = mn_malloc(big);
    memset(huge, 'a', big);
    size_t nn = 7;
    mn_decision *dd = (mn_decision *)1;
    CHECK(mn_decisions_find(&dd, &nn, huge, big, NULL) == MN_ETOOBIG);
    CHECK(dd == NULL && nn == 0);
    CHECK(strstr(mn_error_last(), "limit") != NULL);
    free(huge);
}

static void test_invalid_input(void)
{
    mn_decision *d;
    /* invalid UTF-8 bytes separate words and never fail */
    const char *t = "Use \xff\xfe ripgrep instead of grep \xc3 because \xe2\x82 it is fast\xf0\x9f";
    REQUIRE(find(&d, t, MN_DECISION_COMMIT, 0.5) == 1);
    CHECK(d[0].n_alternatives == 1 && spans_have(t, d[0].alternatives, 1, "grep"));
    CHECK(d[0].n_reasons == 1);
    mn_decisions_free(d);
    /* lone continuation bytes and a NUL inside the span */
    const char raw[] = "\x80\x80 switch from \x00A to B";
    mn_decision_opts o = MN_DECISION_OPTS_INIT;
    size_t n = 0;
    CHECK_OK(mn_decisions_find(&d, &n, raw, sizeof(raw) - 1, &o));
    mn_decisions_free(d);
    /* empty text, NULL text, bad options */
    CHECK_OK(mn_decisions_find(&d, &n, "", 0, NULL));
    CHECK(n == 0 && d == NULL);
    CHECK_OK(mn_decisions_find(&d, &n, NULL, 0, NULL));
    CHECK(mn_decisions_find(&d, &n, NULL, 3, NULL) == MN_EINVAL);
    o.version = 99;
    CHECK(mn_decisions_find(&d, &n, "use a instead of b", 18, &o) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "MN_DECISION_OPTS_INIT") != NULL);
}

static void test_names(void)
{
    CHECK_STR(mn_decision_kind_name(MN_DECISION_REPLACE), "replace");
    CHECK_STR(mn_decision_kind_name((mn_decision_kind)99), "");
    mn_buf b = MN_BUF_INIT;
    mn_decision_why_format(&b,
                           MN_DECISION_WHY_CUE | MN_DECISION_WHY_REASON | MN_DECISION_WHY_VERSION);
    CHECK_STR(b.ptr, "cue,reason,version");
    mn_buf_release(&b);
}

MN_TEST_MAIN(MN_TEST(test_english), MN_TEST(test_english_negatives), MN_TEST(test_russian),
             MN_TEST(test_french), MN_TEST(test_code_urls_quotes), MN_TEST(test_mixed_languages),
             MN_TEST(test_sentences), MN_TEST(test_cue_patterns), MN_TEST(test_long_input),
             MN_TEST(test_invalid_input), MN_TEST(test_names))
