/*
 * test_query.c - what the query analysis (src/retrieve/query.c) finds in a
 * question: identifiers by shape and context, dotted names and their
 * module paths, file paths (site-packages prefixes dropped), links to a
 * repository's files (the path after the ref, a line anchor), traceback
 * frames in order, environment dumps, their headings and HTML comments
 * skipped, the title of an issue, and
 * the FTS5 expressions built from it, which must stay valid FTS5 whatever
 * the text holds.
 */
#include "common.h"

#include "retrieve/retrieve_internal.h"
#include "util/arena.h"
#include "test.h"

/* The mention of this kind and text, or NULL. */
static const mn_mention *find(const mn_query_info *q, mn_mention_kind kind, const char *text)
{
    for (size_t i = 0; i < q->nmentions; i++)
        if (q->mentions[i].kind == kind && strcmp(q->mentions[i].text, text) == 0)
            return &q->mentions[i];
    return NULL;
}

static double strength(const mn_query_info *q, mn_mention_kind kind, const char *text)
{
    const mn_mention *m = find(q, kind, text);
    return m ? m->strength : -1;
}

static void test_code_shape(void)
{
    CHECK(mn_query_code_shape("parse_header", 12) == 1.0);
    CHECK(mn_query_code_shape("parseHeader", 11) == 1.0);
    CHECK(mn_query_code_shape("PairGrid", 8) == 1.0);
    CHECK(mn_query_code_shape("HTTPServer", 10) == 1.0);
    CHECK(mn_query_code_shape("int64", 5) > 0.5);
    CHECK(mn_query_code_shape("__init__", 8) < 0.5);
    CHECK(mn_query_code_shape("session", 7) == 0);
    CHECK(mn_query_code_shape("Session", 7) == 0);
    CHECK(mn_query_code_shape("_private", 8) == 0);
    CHECK(mn_query_code_shape("\xc3\xa9t\xc3\xa9", 6) == 0);
}

static void test_names(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text = "Session expires when `refresh` gets delay=None; see parse_header() and "
                       "PairGrid. The session is gone, the session!";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(strength(&q, MN_MENTION_NAME, "parse_header") == 1.0); /* shape */
    CHECK(strength(&q, MN_MENTION_NAME, "PairGrid") == 1.0);
    CHECK(strength(&q, MN_MENTION_NAME, "refresh") == 0.8);  /* backticks */
    CHECK(strength(&q, MN_MENTION_NAME, "Session") == 0.6);  /* capitalised prose */
    CHECK(strength(&q, MN_MENTION_NAME, "session") == 0.25); /* prose */
    CHECK(find(&q, MN_MENTION_NAME, "session")->count == 2);
    CHECK(find(&q, MN_MENTION_NAME, "None") == NULL); /* a keyword */
    CHECK(find(&q, MN_MENTION_NAME, "the") == NULL);
    CHECK(find(&q, MN_MENTION_NAME, "see") == NULL); /* too short for prose */
    /* one line: no title */
    CHECK(q.title_match == NULL);
    CHECK(q.match != NULL && strstr(q.match, "\"refresh\"") != NULL);
    CHECK(q.nterms > 0);
    mn_arena_release(&a);
}

static void test_dotted_and_paths(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text = "Calling xr.Dataset.interp fails, also requests.sessions.Session; "
                       "see src/flask/app.py and setup.cfg. Version 0.11.1, "
                       "https://github.com/org/repo/issues/12.";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(strength(&q, MN_MENTION_QUALIFIED, "Dataset.interp") == 1.5);
    CHECK(strength(&q, MN_MENTION_MODULE, "xr/Dataset/interp") == 1.2);
    CHECK(strength(&q, MN_MENTION_MODULE, "requests/sessions") == 1.0);
    CHECK(strength(&q, MN_MENTION_NAME, "interp") == 0.8);
    CHECK(strength(&q, MN_MENTION_PATH, "src/flask/app.py") == 1.5);
    CHECK(strength(&q, MN_MENTION_PATH, "setup.cfg") == 1.5);
    /* a version is not a dotted name, a URL not a file */
    CHECK(find(&q, MN_MENTION_MODULE, "0/11/1") == NULL);
    for (size_t i = 0; i < q.nmentions; i++)
        CHECK(q.mentions[i].kind != MN_MENTION_PATH || !strstr(q.mentions[i].text, "github"));
    mn_arena_release(&a);
}

/* Links to a repository's files: the path after the ref, the file's path in the repository. */
static void test_source_links(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text =
        "Handled [here](https://github.com/pydata/xarray/blob/df052e7/xarray/coding/"
        "variables.py#L311), and see https://gitlab.com/g/p/-/blob/main/src/app/cli.py too; "
        "https://github.com/org/repo/blob/main/docs is a directory.";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    const mn_mention *line = find(&q, MN_MENTION_PATH, "xarray/coding/variables.py");
    REQUIRE(line != NULL);
    CHECK(line->link == 2 && line->strength == 2.0 && line->frame == 0);
    const mn_mention *file = find(&q, MN_MENTION_PATH, "src/app/cli.py");
    REQUIRE(file != NULL);
    CHECK(file->link == 1);
    for (size_t i = 0; i < q.nmentions; i++) {
        const mn_mention *m = &q.mentions[i];
        CHECK(m->kind != MN_MENTION_PATH ||
              (!strstr(m->text, "github") && !strstr(m->text, "blob") && !strstr(m->text, "docs")));
    }
    /* a path written out is no link */
    text = "see src/flask/app.py";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(find(&q, MN_MENTION_PATH, "src/flask/app.py")->link == 0);
    mn_arena_release(&a);
}

static void test_traceback(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text =
        "KeyError on save\n"
        "Traceback (most recent call last):\n"
        "  File \"/home/u/app/main.py\", line 3, in <module>\n"
        "    run()\n"
        "  File \"/usr/lib/python3/site-packages/cart/store.py\", line 12, in save_cart\n"
        "    db[key]\n"
        "KeyError: 'cart'\n"
        "~/env/lib/python3.9/site-packages/seaborn/_core.py in _lookup_single(self, key)\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    const mn_mention *first = find(&q, MN_MENTION_PATH, "home/u/app/main.py");
    const mn_mention *second = find(&q, MN_MENTION_PATH, "cart/store.py");
    const mn_mention *third = find(&q, MN_MENTION_PATH, "seaborn/_core.py");
    REQUIRE(first && second && third);
    CHECK(first->frame == 1 && second->frame == 2 && third->frame == 3);
    CHECK(q.nframes == 3);
    CHECK(second->strength == 2.0);
    CHECK(find(&q, MN_MENTION_NAME, "save_cart")->frame == 2);
    CHECK(find(&q, MN_MENTION_NAME, "_lookup_single")->frame == 3);
    CHECK(find(&q, MN_MENTION_NAME, "<module>") == NULL);
    /* a title over more text */
    CHECK(q.title_match != NULL && strstr(q.title_match, "\"save\"") != NULL);
    CHECK(strstr(q.title_match, "cart") == NULL);
    mn_arena_release(&a);
}

static void test_env_dump_skipped(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text = "Plot fails\n"
                       "INSTALLED VERSIONS\n"
                       "commit: None\n"
                       "libhdf5: 1.10.5\n"
                       "OS: Linux\n"
                       "numpy==1.18.1\n"
                       "  \"cryptography\": {\n"
                       "    \"version\": \"3.3\",\n"
                       "  \"using_pyopenssl\": false\n"
                       "Note: this matters because of the colormap\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(q.match && strstr(q.match, "libhdf5") == NULL);
    CHECK(strstr(q.match, "numpy") == NULL);
    CHECK(strstr(q.match, "Linux") == NULL);
    CHECK(strstr(q.match, "cryptography") == NULL);
    CHECK(strstr(q.match, "pyopenssl") == NULL);
    CHECK(strstr(q.match, "colormap") != NULL); /* prose after a colon stays */
    CHECK(strstr(q.match, "Plot") != NULL);     /* the title is no heading of the dump */
    CHECK(strstr(q.match, "INSTALLED") == NULL);
    mn_arena_release(&a);
}

static void test_about_tests(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *t1 = "the refresh tests fail on CI";
    REQUIRE_OK(mn_query_analyse(&q, t1, strlen(t1), &a));
    CHECK(q.about_tests);
    const char *t2 = "refresh fails\n```\ndef test_refresh(): pass\n```\n";
    REQUIRE_OK(mn_query_analyse(&q, t2, strlen(t2), &a));
    CHECK(!q.about_tests); /* a test in a code block is an example, not the topic */
    mn_arena_release(&a);
}

static void test_nothing_to_search(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *texts[] = {"", "the of and", "!!! ??? ...", "\"\"\"", "\xff\xfe\x80"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(texts); i++) {
        REQUIRE_OK(mn_query_analyse(&q, texts[i], strlen(texts[i]), &a));
        CHECK(q.match == NULL);
        CHECK(q.nterms == 0);
    }
    mn_arena_release(&a);
}

/* The FTS5 expression of a term list quotes everything: operators are text. */
static void test_fts_query_quoting(void)
{
    const char *terms[] = {"a\"b", "NEAR(x y)", "AND", "col:term", "*", "", "(((", "^start"};
    mn_buf b = MN_BUF_INIT;
    size_t n = mn_store_fts_query(&b, terms, MN_ARRAY_SIZE(terms));
    CHECK(n == 7); /* the empty one is left out */
    CHECK_STR(b.ptr,
              "\"a\"\"b\" OR \"NEAR(x y)\" OR \"AND\" OR \"col:term\" OR \"*\" OR \"(((\" OR "
              "\"^start\"");
    mn_buf_clear(&b);
    char longterm[MN_SEARCH_TERM_MAX + 2];
    memset(longterm, 'x', sizeof(longterm) - 1);
    longterm[sizeof(longterm) - 1] = '\0';
    const char *one[] = {longterm};
    CHECK(mn_store_fts_query(&b, one, 1) == 0);
    mn_buf_release(&b);
}

/* IPython 8 frames, the exception's message, issue-template checklists. */
/*
 * A template's HTML comments are not shown and say the same in every
 * issue; the lines that introduce a dump name the project's version
 * printer. Neither reaches the query; a line that only precedes two
 * version-like lines (no dump) stays, and so does the text after a
 * comment on its line, with offsets unchanged (the title is still found).
 */
static void test_template_left_out(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text = "xr.where drops the attrs\n"
                       "<!-- Please include a minimal example: see mcve guidelines -->\n"
                       "Using `xr.where` on a DataArray loses its attributes.\n"
                       "<!-- a comment\n"
                       "over lines --> the dtype changes too\n"
                       "**Environment**:\n"
                       "\n"
                       "<details><summary>Output of <tt>xr.show_versions()</tt></summary>\n"
                       "\n"
                       "<!-- Paste the output here xr.show_versions() here -->\n"
                       "INSTALLED VERSIONS\n"
                       "------------------\n"
                       "commit: None\n"
                       "python: 3.7.8 | packaged by conda-forge\n"
                       "OS: Linux\n"
                       "xarray: 0.16.0\n"
                       "</details>\n"
                       "Also seen with the squeeze option\n"
                       "numpy: 1.19\n"
                       "pandas: 1.1\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    REQUIRE(q.match != NULL);
    CHECK(strstr(q.match, "mcve") == NULL && strstr(q.match, "guidelines") == NULL);
    CHECK(strstr(q.match, "Paste") == NULL);
    CHECK(strstr(q.match, "INSTALLED") == NULL && strstr(q.match, "Environment") == NULL);
    CHECK(find(&q, MN_MENTION_NAME, "show_versions") == NULL);
    CHECK(find(&q, MN_MENTION_NAME, "where") != NULL);
    CHECK(strstr(q.match, "attributes") != NULL);
    CHECK(strstr(q.match, "dtype") != NULL);   /* after the comment, on its line */
    CHECK(strstr(q.match, "squeeze") != NULL); /* before two version lines: no dump */
    CHECK(q.title_match && strstr(q.title_match, "attrs") != NULL);
    mn_arena_release(&a);

    /* an unclosed comment runs to the end */
    const char *open = "Plot legend is wrong\nThe legend has no title <!-- hidden words";
    REQUIRE_OK(mn_query_analyse(&q, open, strlen(open), &a));
    CHECK(q.match && strstr(q.match, "legend") != NULL && strstr(q.match, "hidden") == NULL);
    mn_arena_release(&a);
}

static void test_ipython_message_checklist(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text =
        "Plot fails on nullable ints\r\n"
        "- [x] I have confirmed this bug exists on the latest version\r\n"
        "* [ ] closes #1234\r\n"
        "File ~/work/seaborn/_core/plot.py:265, in Plot._repr_png_(self)\r\n"
        "    return self.plot()._repr_png_()\r\n"
        "ValueError: Could not interpret value `cnt` for parameter `hue`\r\n"
        "E   TypeError: unsupported operand type for the grouping of Int64 columns\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    const mn_mention *frame = find(&q, MN_MENTION_PATH, "work/seaborn/_core/plot.py");
    REQUIRE(frame != NULL);
    CHECK(frame->frame == 1 && q.nframes == 1);
    CHECK(find(&q, MN_MENTION_NAME, "_repr_png_") != NULL);
    /* the checklists are left out of the words searched */
    CHECK(q.match && strstr(q.match, "confirmed") == NULL && strstr(q.match, "closes") == NULL);
    /* the messages, for an exact phrase search over the code */
    CHECK(q.nmessages == 2);
    bool interpret = false, operand = false;
    for (size_t i = 0; i < q.nmessages; i++) {
        interpret |= strstr(q.messages[i], "Could not interpret value") != NULL;
        operand |= strstr(q.messages[i], "unsupported operand type") != NULL;
        CHECK(strchr(q.messages[i], '\r') == NULL);
    }
    CHECK(interpret && operand);
    mn_arena_release(&a);
}

/*
 * The AND of common words (lexical.c): read over the newest rows, its
 * posting lists stay within the budget however many words are common, and
 * it still matches enough rows; without the newest share (chunks) every
 * word is AND-ed while the matches stay above the floor.
 */
static void test_and_plan(void)
{
    /* the bench's memory questions: six words in 29-45% of 100,000 memories */
    const int64_t counts[] = {29000, 45000, 45000, 45000, 45000, 45000};
    mn_and_plan p = mn_lexical_and_plan(counts, 6, 100000, 1000, true);
    double postings = 0;
    for (size_t i = 0; i < p.words; i++)
        postings += (double)counts[i];
    CHECK(p.words >= 2 && p.words < 6);
    CHECK(p.share > 0 && p.share < 1);
    CHECK(p.share * postings <= MN_AND_POSTING_BUDGET);
    CHECK(p.share * p.est >= MN_AND_MIN_ROWS * 0.999);
    /* the same words as chunks: all of them (est 29000 x 0.45^5 = 535 rows) */
    mn_and_plan q = mn_lexical_and_plan(counts, 6, 100000, 1000, false);
    CHECK(q.words == 6 && q.share == 0);
    CHECK(q.est > MN_AND_MIN_ROWS && q.est < 1000);
    /* rarer words: the AND ends once the matches fall to the budget */
    const int64_t rare[] = {2000, 4000, 5000, 5000}; /* 2000 x 0.4 = 800 */
    mn_and_plan r = mn_lexical_and_plan(rare, 4, 10000, 1000, true);
    CHECK(r.words == 2 && r.est <= 1000 && r.share == 0);
}

MN_TEST_MAIN(MN_TEST(test_code_shape), MN_TEST(test_names), MN_TEST(test_dotted_and_paths),
             MN_TEST(test_source_links), MN_TEST(test_traceback),
             MN_TEST(test_ipython_message_checklist), MN_TEST(test_env_dump_skipped),
             MN_TEST(test_about_tests), MN_TEST(test_nothing_to_search),
             MN_TEST(test_fts_query_quoting), MN_TEST(test_template_left_out),
             MN_TEST(test_and_plan))
