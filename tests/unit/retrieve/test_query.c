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

/*
 * The title's own terms (lexical.c counts them one by one to bound the
 * title's query): each term of title_match, in order, a group of forms
 * whole, a quote inside a phrase kept; title words that are none of the
 * query's terms among them (a title of words none counted was ranked whole).
 */
static void test_title_terms(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    /* the title's prose words, under more than MN_QUERY_MAX_WORDS identifiers of code */
    mn_buf t = MN_BUF_INIT;
    mn_buf_puts(&t, "PairGrid errors with hue assigned in map\n```\n");
    for (int i = 0; i < MN_QUERY_MAX_WORDS + 16; i++)
        mn_buf_printf(&t, "grid_value_%c%c = lookup_single_%c%c(key)\n", 'a' + i / 26, 'a' + i % 26,
                      'a' + i / 26, 'a' + i % 26);
    mn_buf_puts(&t, "```\n");
    const char *text = mn_arena_strndup(&a, t.ptr, t.len);
    mn_buf_release(&t);
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    REQUIRE(q.title_match != NULL);
    REQUIRE(q.ntitle_terms >= 4);
    /* joined again they are the title's expression */
    mn_buf j = MN_BUF_INIT;
    for (size_t i = 0; i < q.ntitle_terms; i++)
        mn_buf_printf(&j, "%s%s", i ? " OR " : "", q.title_terms[i]);
    CHECK(strcmp(j.ptr, q.title_match) == 0);
    mn_buf_release(&j);
    CHECK(strcmp(q.title_terms[0], "(\"PairGrid\" OR \"pairgrid\")") == 0);
    /* a title word the query's terms lack is still one of the title's terms */
    bool outside = false;
    for (size_t i = 0; i < q.ntitle_terms; i++) {
        CHECK(strstr(q.title_terms[i], " OR ") == NULL || q.title_terms[i][0] == '(');
        bool in_terms = false;
        for (size_t k = 0; k < q.nterms; k++)
            in_terms = in_terms || strcmp(q.terms[k].match, q.title_terms[i]) == 0;
        outside = outside || !in_terms;
    }
    CHECK(outside);
    /* a phrase holding a doubled quote splits at the separators only */
    const char *quoted = "Say \"x OR y\" here\nmore text below the title\n";
    REQUIRE_OK(mn_query_analyse(&q, quoted, strlen(quoted), &a));
    REQUIRE(q.title_match != NULL);
    mn_buf k = MN_BUF_INIT;
    for (size_t i = 0; i < q.ntitle_terms; i++)
        mn_buf_printf(&k, "%s%s", i ? " OR " : "", q.title_terms[i]);
    CHECK(strcmp(k.ptr, q.title_match) == 0);
    mn_buf_release(&k);
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
/* The mention of a frame's path, by its text; its frame number, -1 when absent. */
static int frame_of(const mn_query_info *q, mn_mention_kind kind, const char *text)
{
    const mn_mention *m = find(q, kind, text);
    return m ? m->frame : -1;
}

static bool has_message(const mn_query_info *q, const char *words)
{
    for (size_t i = 0; i < q->nmessages; i++)
        if (strstr(q->messages[i], words))
            return true;
    return false;
}

/* Java: frames innermost first, the package as the file's directory, Caused by. */
static void test_java_trace(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text =
        "Enum sets fail\n"
        "com.alibaba.fastjson2.JSONException: create instance error class "
        "java.util.RegularEnumSet\n"
        "\tat "
        "com.alibaba.fastjson2.reader.ObjectReaderImplList.readJSONBObject(ObjectReaderImplList."
        "java:395)\n"
        "\tat com.alibaba.fastjson2.dubbo.DubboTest6.testEnumSet(DubboTest6.java:81)\n"
        "Caused by: java.lang.InstantiationException: cannot make the instance of an enum set\n"
        "\tat java.lang.Class.newInstance(Class.java:427)\n"
        "\tat org.x.Outer$Inner.lambda$run$0 (Outer.java:12)\n"
        "\t... 73 more\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    int list =
        frame_of(&q, MN_MENTION_PATH, "com/alibaba/fastjson2/reader/ObjectReaderImplList.java");
    int test = frame_of(&q, MN_MENTION_PATH, "com/alibaba/fastjson2/dubbo/DubboTest6.java");
    int cls = frame_of(&q, MN_MENTION_PATH, "java/lang/Class.java");
    int outer = frame_of(&q, MN_MENTION_PATH, "org/x/Outer.java");
    CHECK(q.nframes == 4);
    /* the innermost frame of each block is the deepest; the cause's block is deeper */
    CHECK(list == 2 && test == 1);
    CHECK(cls == 4 && outer == 3);
    CHECK(strength(&q, MN_MENTION_PATH, "com/alibaba/fastjson2/reader/ObjectReaderImplList.java") ==
          2.0);
    CHECK(frame_of(&q, MN_MENTION_NAME, "readJSONBObject") == 2);
    CHECK(frame_of(&q, MN_MENTION_QUALIFIED, "ObjectReaderImplList.readJSONBObject") == 2);
    CHECK(find(&q, MN_MENTION_QUALIFIED, "Outer.run") != NULL); /* lambda$run$0: run */
    /* the messages of both exception lines */
    CHECK(has_message(&q, "create instance error class"));
    CHECK(has_message(&q, "cannot make the instance of an enum set"));
    /* "Exception in thread" and C#'s " in path:line N" */
    text = "Crash\nException in thread \"main\" java.lang.IllegalStateException: the pool is "
           "already closed now\n"
           "   at Acme.Pool.Rent(Int32 n) in C:\\src\\Acme\\Pool.cs:line 42\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(has_message(&q, "the pool is already closed now"));
    CHECK(frame_of(&q, MN_MENTION_PATH, "C:/src/Acme/Pool.cs") == 1 ||
          frame_of(&q, MN_MENTION_PATH, "src/Acme/Pool.cs") == 1);
    CHECK(find(&q, MN_MENTION_QUALIFIED, "Pool.Rent") != NULL);
    mn_arena_release(&a);
}

/* JavaScript and TypeScript: a bare Error line, frames with URLs, node's own left out. */
static void test_js_trace(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text =
        "Large bodies fail\n"
        "Error: Cannot create a string longer than 0x1fffffe8 characters\n"
        "at Buffer.toString (node:buffer:798:17)\n"
        "at Object.isFormData (file:///mytest/node_modules/axios/lib/utils.js:195:42)\n"
        "at transform (webpack:///./src/core/transformData.ts:22:15)\n"
        "at async Promise.all (index 0)\n"
        "Uncaught (in promise) TypeError: cannot read properties of undefined reading\n"
        "    at new Parser (src/parse.ts:3:1)\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(q.nframes == 3);
    CHECK(frame_of(&q, MN_MENTION_PATH, "axios/lib/utils.js") == 2);
    CHECK(frame_of(&q, MN_MENTION_PATH, "src/core/transformData.ts") == 1);
    CHECK(frame_of(&q, MN_MENTION_PATH, "src/parse.ts") == 3);
    CHECK(frame_of(&q, MN_MENTION_NAME, "isFormData") == 2);
    CHECK(find(&q, MN_MENTION_QUALIFIED, "Object.isFormData") == NULL); /* no type */
    CHECK(find(&q, MN_MENTION_NAME, "Parser") != NULL);
    CHECK(has_message(&q, "Cannot create a string longer than"));
    CHECK(has_message(&q, "cannot read properties of undefined reading"));
    mn_arena_release(&a);
}

/* Go: panic, goroutine frames (function line, then file line), module cache, vendor. */
static void test_go_trace(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text =
        "nil pointer in balancer\n"
        "panic: grpc: the client connection is closing now\n"
        "\n"
        "goroutine 5513264 [running]:\n"
        "myapp/vendor/google.golang.org/grpc.(*ccBalancerWrapper).handleResolvedAddrs(0x0, 0x1)\n"
        "        /opt/gopath/src/myapp/vendor/google.golang.org/grpc/balancer_conn_wrappers.go:182 "
        "+0x26\n"
        "google.golang.org/grpc.newCCResolverWrapper.func1()\n"
        "        /home/u/go/pkg/mod/google.golang.org/grpc@v1.20.0/resolver_conn_wrapper.go:90 "
        "+0x1d\n"
        "created by main.main in goroutine 1\n"
        "        /home/u/app/main.go:12 +0x5\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(q.nframes == 3);
    CHECK(frame_of(&q, MN_MENTION_PATH, "google.golang.org/grpc/balancer_conn_wrappers.go") == 3);
    CHECK(frame_of(&q, MN_MENTION_PATH, "resolver_conn_wrapper.go") == 2);
    CHECK(frame_of(&q, MN_MENTION_PATH, "home/u/app/main.go") == 1);
    CHECK(frame_of(&q, MN_MENTION_NAME, "handleResolvedAddrs") == 3);
    CHECK(find(&q, MN_MENTION_QUALIFIED, "ccBalancerWrapper.handleResolvedAddrs") != NULL);
    CHECK(frame_of(&q, MN_MENTION_NAME, "newCCResolverWrapper") == 2); /* func1: its function */
    CHECK(has_message(&q, "the client connection is closing now"));
    mn_arena_release(&a);
}

/* Rust: both panic forms, rustc's error and its location, backtrace locations. */
static void test_rust_trace(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text = "Panics on advance\n"
                       "thread 'main' panicked at 'cannot advance past the remaining bytes', "
                       "src/buf/buf_impl.rs:10:5\n"
                       "thread 'main' panicked at tokio/src/runtime/park.rs:7:9:\n"
                       "error[E0425]: cannot find value body in this scope\n"
                       "  --> tokio-macros/src/entry.rs:74:20\n"
                       "error: unknown serde variant attribute here\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(frame_of(&q, MN_MENTION_PATH, "src/buf/buf_impl.rs") == 1);
    CHECK(frame_of(&q, MN_MENTION_PATH, "tokio/src/runtime/park.rs") == 2);
    CHECK(frame_of(&q, MN_MENTION_PATH, "tokio-macros/src/entry.rs") == 3);
    CHECK(has_message(&q, "cannot advance past the remaining bytes"));
    CHECK(has_message(&q, "cannot find value body in this scope"));
    CHECK(has_message(&q, "unknown serde variant attribute here"));
    mn_arena_release(&a);
}

/* C and C++: compiler errors and sanitizer / gdb frames. */
static void test_native_trace(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text =
        "Build breaks\n"
        "include/internal/catch_message.cpp:42:5: error: no matching function for call to capture\n"
        "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602\n"
        "    #0 0x4f2a3c in simdjson::dom::element::get_string() const "
        "/src/simdjson/include/simdjson/dom/element-inl.h:120:7\n"
        "    #1 0x4f2b00 in main /src/app/main.cpp:9:3\n"
        "    #2 0x7f00 in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x21b96)\n"
        "#0  parse_number (src=0x1) at src/numberparsing.cpp:88\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(frame_of(&q, MN_MENTION_PATH, "include/internal/catch_message.cpp") >= 1);
    int deep = frame_of(&q, MN_MENTION_PATH, "src/simdjson/include/simdjson/dom/element-inl.h");
    int outer = frame_of(&q, MN_MENTION_PATH, "src/app/main.cpp");
    CHECK(deep > outer && outer >= 1);
    CHECK(find(&q, MN_MENTION_QUALIFIED, "element.get_string") != NULL);
    CHECK(frame_of(&q, MN_MENTION_PATH, "src/numberparsing.cpp") >= 1);
    CHECK(find(&q, MN_MENTION_NAME, "parse_number") != NULL);
    CHECK(has_message(&q, "no matching function for call to capture"));
    mn_arena_release(&a);
}

/*
 * An error line without a message takes the next line's, as Mockito's
 * exceptions, a "Caused by: x.Y:" alone and Rust's panics since 1.73 print
 * them; a frame or another error line next means it has none (blank lines
 * are passed over).
 */
static void test_message_below(void)
{
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    const char *text = "Deep stubs fail\n"
                       "```\n"
                       "org.mockito.exceptions.base.MockitoException: \n"
                       "Mockito cannot mock this class: class com.x.PieceType\n"
                       "\n"
                       "If you're not sure why, open an issue.\n"
                       "```\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(q.nmessages == 1 && has_message(&q, "Mockito cannot mock this class"));

    text = "Caused by: java.lang.IllegalStateException:\n"
           "the connection pool was closed before the lease\n"
           "\tat com.x.Pool.lease(Pool.java:10)\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(has_message(&q, "the connection pool was closed before the lease"));

    text = "thread 'main' panicked at src/drain.rs:10:5:\n"
           "range end index out of range for slice of length\n"
           "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(q.nmessages == 1 && has_message(&q, "range end index out of range for slice"));

    /* a frame next: the exception has no message, and the frame's words are none */
    text = "java.lang.NullPointerException:\n"
           "\tat com.x.pool.Pool.lease(Pool.java:10)\n"
           "and then the whole service went down for good\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(q.nmessages == 0);
    /* an error line next is no message of the one above: its own is kept once */
    text = "java.lang.IllegalStateException:\n"
           "Caused by: java.io.IOException: the stream was closed before the end\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(q.nmessages == 1 && has_message(&q, "the stream was closed before the end"));
    /* a line of prose ending in a colon is no error line */
    text = "Steps to reproduce the crash:\nopen the file and save it twice over\n";
    REQUIRE_OK(mn_query_analyse(&q, text, strlen(text), &a));
    CHECK(q.nmessages == 0);
    mn_arena_release(&a);
}

/*
 * Trace lines cut anywhere and mixed at random (the sanitizer build reads
 * past no end): every prefix of each form, then random lines of their
 * characters.
 */
static void test_trace_fragments(void)
{
    static const char *const forms[] = {
        "\tat com.x.Y$Z.lambda$m$0(Y.java:12)",
        "Caused by: x.y.ZException: a message of words",
        "Exception in thread \"main\" x.Y: msg here now",
        "   at N.C.M(Int32 n) in C:\\p\\C.cs:line 42",
        "at async Object.f (file:///p/node_modules/a/b.js:1:2) {",
        "goroutine 7 [running]:",
        "a/b.(*T).M(0x0, 0x1)",
        "\t/home/u/go/pkg/mod/m@v1.2.3/vendor/x/f.go:123 +0x1d",
        "created by a.b in goroutine 1",
        "thread 'main' panicked at 'msg of words', src/x.rs:10:5",
        "thread 'main' panicked at src/x.rs:10:5:",
        "error[E0308]: mismatched types here",
        "  --> src/x.rs:3:5",
        "a.cpp:12:5: error: no match for call",
        "    #0 0x4f in ns::C<int>::f(int) const /p/a.cpp:12:5",
        "#1  g (a=1) at b.cc:3",
    };
    mn_arena a = MN_ARENA_INIT;
    mn_query_info q;
    mn_buf text = MN_BUF_INIT;
    for (size_t f = 0; f < MN_ARRAY_SIZE(forms); f++)
        for (size_t cut = 0; cut <= strlen(forms[f]); cut++) {
            /* exactly the prefix, in a buffer of its own size: no terminator to lean on */
            char *t = mn_malloc(cut ? cut : 1);
            memcpy(t, forms[f], cut);
            REQUIRE_OK(mn_query_analyse(&q, t, cut, &a));
            free(t);
            mn_arena_release(&a);
        }
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    static const char alphabet[] = "at ()$.:/\\#'\"*+0x9Eerror[]->panic: in\t\nCaused by";
    for (int round = 0; round < 300; round++) {
        mn_buf_clear(&text);
        for (int i = 0; i < 200; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            if ((seed >> 60) < 3) {
                const char *form = forms[(seed >> 33) % MN_ARRAY_SIZE(forms)];
                mn_buf_put(&text, form, (seed >> 20) % (strlen(form) + 1));
            } else {
                mn_buf_putc(&text, alphabet[(seed >> 33) % (sizeof(alphabet) - 1)]);
            }
        }
        char *t = mn_malloc(text.len ? text.len : 1);
        memcpy(t, text.ptr, text.len);
        REQUIRE_OK(mn_query_analyse(&q, t, text.len, &a));
        for (size_t i = 0; i < q.nmentions; i++)
            CHECK(q.mentions[i].frame >= 0 && q.mentions[i].frame <= q.nframes);
        free(t);
        mn_arena_release(&a);
    }
    mn_buf_release(&text);
}

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
             MN_TEST(test_title_terms), MN_TEST(test_about_tests), MN_TEST(test_nothing_to_search),
             MN_TEST(test_fts_query_quoting), MN_TEST(test_template_left_out),
             MN_TEST(test_and_plan), MN_TEST(test_java_trace), MN_TEST(test_message_below),
             MN_TEST(test_js_trace), MN_TEST(test_go_trace), MN_TEST(test_rust_trace),
             MN_TEST(test_native_trace), MN_TEST(test_trace_fragments))
