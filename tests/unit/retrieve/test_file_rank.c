/*
 * test_file_rank.c - ranking files for an issue (kinds ["file"]) against a
 * hub module: the graph spreads the best files' evidence to their
 * neighbours, and a module every other one imports collects it from all
 * of them. fusion.c gives the graph only to the files the words missed
 * (gap = 1 - pre / max pre), so the hub does not pass the module the words
 * point to, while it keeps its graph signal, and a file with no word of
 * the issue still comes in through its imports; centrality itself adds
 * nothing; and a package's name (g.simplify after "import geo as g") is
 * the definition its __init__.py imports. Paths are searched with the
 * words that can score them, and a name's chunk count follows the index;
 * a C header ranks right after its source. Through mn_api_call on a
 * real index of a small Python package (and a few C files) written by the
 * test, without an embedder (embed.provider off).
 */
#include "common.h"
#include <math.h>
#include <unistd.h>

#include "mnemo/api.h"
#include "retrieve/retrieve_internal.h"
#include "store/store_search.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_ctx.h"

static void write_file(const char *rel, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/repo/%s", test_tmp, rel);
    char *slash = strrchr(p.ptr, '/');
    *slash = '\0';
    mn_fs_mkdir_p(p.ptr);
    *slash = '/';
    if (mn_fs_write_atomic(p.ptr, text, strlen(text)) != 0)
        abort();
    mn_buf_release(&p);
}

/*
 * geo/point.py, imported by every other module; geo/simplify.py, what the
 * issue is about; geo/eps.py, which simplify imports and which holds
 * no word of the issue.
 */
static void make_repo(void)
{
    /* the package's area_of is area.py's; legacy.py defines one too */
    write_file("geo/__init__.py", "from geo.area import area_of\n");
    write_file("geo/legacy.py", "def area_of(values):\n"
                                "    return 0\n");
    write_file("geo/point.py",
               "class Point:\n"
               "    \"\"\"A point of a path: x and y; points closer than a\n"
               "    tolerance compare equal; a path keeps its last point.\n"
               "    \"\"\"\n"
               "\n"
               "    def near(self, other, tolerance):\n"
               "        \"\"\"Whether two points of a path are within tolerance.\"\"\"\n"
               "        return abs(self.x - other.x) <= tolerance\n");
    static const char *const users[] = {"shapes", "grid", "area",  "bounds", "route",
                                        "mesh",   "hull", "tiles", "scale",  "clip"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(users); i++) {
        mn_buf p = MN_BUF_INIT, t = MN_BUF_INIT;
        mn_buf_printf(&p, "geo/%s.py", users[i]);
        mn_buf_printf(&t,
                      "from geo.point import Point\nfrom geo.units import Length\n\n\n"
                      "def %s_of(values):\n"
                      "    return [Point(v, v) for v in values]\n",
                      users[i]);
        write_file(p.ptr, t.ptr);
        mn_buf_release(&p);
        mn_buf_release(&t);
    }
    /* the same text twice: units.py, which every user imports, and measure.py, which none
     * does */
    static const char length[] = "class Length:\n"
                                 "    def furlongs(self, metres):\n"
                                 "        \"\"\"Metres as furlongs, rounded to a chain.\"\"\"\n"
                                 "        return round(metres / 201.168, 1)\n";
    write_file("geo/units.py", length);
    write_file("geo/measure.py", length);
    write_file("geo/eps.py", "def clamp_eps(eps):\n"
                             "    return max(eps, 1e-12)\n");
    write_file("geo/simplify.py", "from geo.point import Point\n"
                                  "from geo.eps import clamp_eps\n"
                                  "\n"
                                  "\n"
                                  "def simplify(points, tolerance):\n"
                                  "    \"\"\"Drop the points of a path within tolerance of the\n"
                                  "    line through their neighbours.\"\"\"\n"
                                  "    kept = [points[0]]\n"
                                  "    for p in points[1:-1]:\n"
                                  "        if not p.near(kept[-1], clamp_eps(tolerance)):\n"
                                  "            kept.append(Point(p.x, p.y))\n"
                                  "    return kept\n");
}

/* Index the repository again (what the test wrote since). */
static void reindex(void)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "{'path':'%s/repo'}", test_tmp);
    json_decref(test_call("index", J(p.ptr)));
    mn_buf_release(&p);
}

static void setup(void)
{
    test_ctx_open("filerank");
    make_repo();
    reindex();
}

static void teardown(void)
{
    test_ctx_close();
}

static const json_t *find_item(const json_t *out, const char *id)
{
    int rank;
    return test_find_item(out, id, &rank);
}

static int rank_of(const json_t *out, const char *id)
{
    int rank = -1;
    return test_find_item(out, id, &rank) ? rank : -1;
}

/* The score of the item with this id, or -1 when it is not in the answer. */
static double score_of(const json_t *out, const char *id)
{
    const json_t *it = find_item(out, id);
    return it ? json_number_value(json_object_get(it, "score")) : -1;
}

static double signal(const json_t *it, const char *name)
{
    return json_number_value(test_signal(it, name));
}

static void test_hub_stays_below(void)
{
    json_t *out =
        test_call("search", J("{'query':'Path simplify loses the last point\\nsimplifying "
                              "a path of points with a tolerance of zero drops its last "
                              "point.','kinds':['file'],'k':10}"));
    REQUIRE(out);
    CHECK(rank_of(out, "geo/simplify.py") == 0);
    const json_t *hub = find_item(out, "geo/point.py");
    CHECK(hub && rank_of(out, "geo/point.py") > 0);
    /* the hub is every seed's neighbour: the best graph signal, still */
    CHECK(hub && signal(hub, "graph") == 1.0);
    /* no word of the issue, found through simplify's import */
    const json_t *tol = find_item(out, "geo/eps.py");
    CHECK(tol && signal(tol, "graph") > 0 && signal(tol, "lexical") == 0);
    json_decref(out);
}

/*
 * Centrality is not evidence: of two files with the same text, the one
 * every module imports (a PageRank far above the other's) scores the same
 * as the one none imports.
 */
static void test_no_centrality_prior(void)
{
    json_t *out = test_call("search", J("{'query':'furlongs rounded to a chain\\nMetres as "
                                        "furlongs are rounded to a chain.','kinds':['file'],"
                                        "'k':10}"));
    REQUIRE(out);
    const json_t *hub = find_item(out, "geo/units.py"), *leaf = find_item(out, "geo/measure.py");
    REQUIRE(hub && leaf);
    double h = json_number_value(json_object_get(hub, "score")),
           l = json_number_value(json_object_get(leaf, "score"));
    if (fabs(h - l) > 1e-9)
        fprintf(stderr, "hub %.6f, leaf %.6f\n", h, l);
    CHECK(fabs(h - l) <= 1e-9);
    CHECK(rank_of(out, "geo/units.py") + rank_of(out, "geo/measure.py") == 1); /* the first two */
    json_decref(out);
}

/*
 * g.area_of after "import geo as g": no qualified name ends with it, so
 * module-level definitions of area_of stand in; of area.py's and
 * legacy.py's, the one the package's __init__.py imports is the package's
 * name. For a package the index does not hold, both count.
 */
static void test_package_name(void)
{
    json_t *out =
        test_call("search", J("{'query':'The area of a closed path is negative\\n```python\\n"
                              "import geo as g\\ng.area_of(pts)\\n```',"
                              "'kinds':['file'],'k':20}"));
    REQUIRE(out);
    const json_t *mod = find_item(out, "geo/area.py"), *old = find_item(out, "geo/legacy.py");
    REQUIRE(mod);
    CHECK(signal(mod, "names") > 0);
    CHECK(!old || signal(old, "names") == 0);
    json_decref(out);

    out = test_call("search", J("{'query':'The area of a closed path is negative\\n```python\\n"
                                "import shapely as g\\ng.area_of(pts)\\n```',"
                                "'kinds':['file'],'k':20}"));
    REQUIRE(out);
    mod = find_item(out, "geo/area.py");
    old = find_item(out, "geo/legacy.py");
    REQUIRE(mod && old);
    CHECK(signal(mod, "names") > 0 && signal(old, "names") == signal(mod, "names"));
    json_decref(out);
}

/*
 * A link to a line of the repository's code points at it as the deepest
 * frame of a traceback does; a link into another repository names none of
 * this one's files, even when its path ends like one.
 */
static void test_source_link(void)
{
    json_t *out =
        test_call("search", J("{'query':'Small tolerances are clamped\\nA path keeps "
                              "points it should drop: the clamp at "
                              "https://github.com/o/geo/blob/4f2a/geo/eps.py#L2 is too high.',"
                              "'kinds':['file'],'k':10}"));
    REQUIRE(out);
    CHECK(rank_of(out, "geo/eps.py") == 0);
    json_decref(out);
    out =
        test_call("search", J("{'query':'simplify drops points within tolerance\\nThe points of a "
                              "path are dropped, as https://github.com/o/other/blob/4f2a/lib/geo/"
                              "eps.py#L2 does.','kinds':['file'],'k':10}"));
    REQUIRE(out);
    CHECK(rank_of(out, "geo/simplify.py") == 0);
    CHECK(rank_of(out, "geo/eps.py") > rank_of(out, "geo/point.py"));
    json_decref(out);
}

static mn_store *open_store(void)
{
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/store/mnemo.db", test_tmp);
    mn_store *s = NULL;
    if (mn_store_open(&s, db.ptr, NULL) != 0)
        s = NULL;
    mn_buf_release(&db);
    return s;
}

/*
 * Every path is under geo/: bm25() gives "geo" an idf of 1e-6, so the
 * path search leaves it out, and would rank all seven paths for it
 * otherwise. A question of such words only is searched as it is.
 */
static void test_path_scoring_words(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    mn_arena arena;
    mn_arena_init(&arena);
    mn_search_ctx c = {0};
    c.store = s;
    c.arena = &arena;
    const char *text = "geo units conversion", *out = NULL;
    REQUIRE_OK(mn_query_analyse(&c.q, text, strlen(text), &arena));
    REQUIRE_OK(mn_store_begin_read(s));
    CHECK_OK(mn_lexical_scoring_match(&c, MN_FTS_FILES, false, c.q.match, &out));
    CHECK(out && out != c.q.match && !strstr(out, "geo") && strstr(out, "unit"));
    text = "geo";
    REQUIRE_OK(mn_query_analyse(&c.q, text, strlen(text), &arena));
    CHECK_OK(mn_lexical_scoring_match(&c, MN_FTS_FILES, false, c.q.match, &out));
    CHECK(out == c.q.match);
    mn_store_rollback(s);
    mn_arena_release(&arena);
    mn_store_free(s);
}

/* A name's chunk count, cached between searches, is the new one after an index. */
static void test_name_count_follows_index(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    const char *name[1] = {"zanzibar"};
    int64_t df = -1, n0 = 0, n1 = 0;
    REQUIRE_OK(mn_store_chunk_df(s, name, 1, &df, &n0));
    CHECK(df == 0 && n0 > 0);
    REQUIRE_OK(mn_store_chunk_df(s, name, 1, &df, &n0)); /* from the cache now */
    CHECK(df == 0);
    write_file("geo/zanzibar.py", "def zanzibar():\n    return 'zanzibar'\n");
    reindex();
    REQUIRE_OK(mn_store_chunk_df(s, name, 1, &df, &n1));
    CHECK(df >= 1 && n1 > n0);
    mn_store_free(s);
}

/*
 * Files that match an issue for reasons other than its subject: an issue
 * template (its headings are in every issue filed from it) and a test a
 * traceback passes through (the caller of the code at fault, named by a
 * frame, not by the reporter) stay below the module the issue is about.
 */
static void test_template_and_test_frames(void)
{
    write_file(".github/ISSUE_TEMPLATE/bug_report.md",
               "---\nname: Bug report\n---\n### Describe the bug\nWhat the path looked like.\n"
               "### Steps to reproduce\nThe points you passed.\n### Expected behaviour\n");
    write_file("tests/test_route.py", "from geo.simplify import simplify\n\n\n"
                                      "def test_route_keeps_points():\n"
                                      "    assert simplify([1, 2, 3], 0.5)\n");
    reindex();
    json_t *out = test_call(
        "search",
        J("{'query':'simplify fails on a short path\\n### Describe the bug\\nThe path looked "
          "like three points.\\n### Steps to reproduce\\n```\\nTraceback (most recent call "
          "last):\\n  File \\\"tests/test_route.py\\\", line 5, in test_route_keeps_points\\n"
          "    assert simplify([1, 2, 3], 0.5)\\n  File \\\"geo/simplify.py\\\", line 9, in "
          "simplify\\n    if not p.near(kept[-1], clamp_eps(tolerance)):\\nIndexError: list "
          "index out of range\\n```\\n### Expected behaviour\\nThe points you passed.',"
          "'kinds':['file'],'k':20}"));
    REQUIRE(out);
    double sc = score_of(out, "geo/simplify.py"), st = score_of(out, "tests/test_route.py"),
           sm = score_of(out, ".github/ISSUE_TEMPLATE/bug_report.md");
    REQUIRE(sc > 0 && st > 0 && sm > 0);
    CHECK(rank_of(out, "geo/simplify.py") == 0);
    /* the test keeps its role (0.35): a frame is no request for the test */
    CHECK(st < 0.5 * sc);
    /* the template is weighted as a marker (0.1), not as config (0.5): its
     * words give it about a fifth of the module's evidence here */
    CHECK(sm < 0.06 * sc);
    json_decref(out);
}

/*
 * A file's signals account for its score: the weighted sum of its evidence
 * (fusion.c's file formula, the graph counting for its gap) times its
 * role's factor, for every file of an answer with a traceback, a test, a
 * template and a path named in the text (no C or C++ pair, which
 * companion.c lifts afterwards). Before the file-only signals were
 * reported, the title, path words, share, fault and role of a file were
 * invisible to an agent asking why a file ranks where it does. The
 * weights are repeated here: changing one in fusion.c means changing it
 * here too.
 */
static void test_signals_read_off(void)
{
    json_t *out = test_call(
        "search",
        J("{'query':'simplify fails on a short path\\nSee geo/eps.py: the clamp.\\n```\\n"
          "Traceback (most recent call last):\\n  File \\\"tests/test_route.py\\\", line 5, in "
          "test_route_keeps_points\\n    assert simplify([1, 2, 3], 0.5)\\n  File "
          "\\\"geo/simplify.py\\\", line 9, in simplify\\n    if not p.near(kept[-1], "
          "clamp_eps(tolerance)):\\nIndexError: list index out of range\\n```',"
          "'kinds':['file'],'k':20}"));
    REQUIRE(out);
    static const struct {
        const char *name;
        double w;
    } terms[] = {{"lexical", 0.45},   {"names", 0.35}, {"named_path", 0.35}, {"title", 0.3},
                 {"path_words", 0.2}, {"share", 0.3},  {"semantic", 0.15},   {"fault", 0.3},
                 {"message", 0.3},    {"scope", 0.3},  {"history", 0.2}};
    size_t i, n = 0;
    json_t *it;
    json_array_foreach(json_object_get(out, "items"), i, it)
    {
        double sum = 0;
        for (size_t t = 0; t < MN_ARRAY_SIZE(terms); t++)
            sum += terms[t].w * signal(it, terms[t].name);
        sum += 0.3 * signal(it, "graph") * signal(it, "graph_gap");
        double want = sum * signal(it, "role"),
               got = json_number_value(json_object_get(it, "score"));
        if (fabs(want - got) > 1e-9 * (1 + got))
            fprintf(stderr, "%s: score %.9f, from its signals %.9f\n",
                    json_string_value(json_object_get(it, "id")), got, want);
        CHECK(test_signal(it, "role") && fabs(want - got) <= 1e-9 * (1 + got));
        n++;
    }
    CHECK(n >= 4);
    const json_t *mod = find_item(out, "geo/simplify.py"), *eps = find_item(out, "geo/eps.py"),
                 *tst = find_item(out, "tests/test_route.py");
    REQUIRE(mod && eps && tst);
    CHECK(signal(mod, "fault") == 1.0 && signal(mod, "role") == 1.0);
    CHECK(signal(eps, "named_path") > 0 && signal(eps, "fault") == 0);
    CHECK(signal(tst, "role") == 0.35);
    json_decref(out);
}

/*
 * The commonest words of a bounded query are set apart (lexical.c,
 * tail_cut) only when the rarer words' list excludes their rows: here the
 * rarer words ("quokka", "wombat") are in five chunks, fewer than the
 * list wants, so the whole query is ranked and the chunks holding only the
 * common word ("tally") still come. 1,100 chunks: "filler" in 900 of them
 * passes the row budget of a code search (1,000) and is left out; "tally",
 * in 400, is kept and is the tail (its bound, 2.2 x ln(700.5 / 400.5),
 * under the rarest word's idf). Without the check the answer would hold
 * the five chunks alone.
 */
static void test_common_words_tail(void)
{
    for (int f = 0; f < 22; f++) {
        mn_buf p = MN_BUF_INIT, t = MN_BUF_INIT;
        mn_buf_printf(&p, "pad/pad_%02d.py", f);
        for (int i = 0; i < 50; i++) {
            int n = f * 50 + i;
            mn_buf_printf(&t, "def pad_%d(v):\n    x = v + %d\n    return x%s%s%s\n\n\n", n, n,
                          n < 900 ? "  # filler" : "", n >= 500 && n < 900 ? " tally" : "",
                          n < 2   ? " quokka"
                          : n < 5 ? " wombat"
                                  : "");
        }
        write_file(p.ptr, t.ptr);
        mn_buf_release(&p);
        mn_buf_release(&t);
    }
    reindex();
    json_t *out = test_call("search", J("{'query':'quokka wombat tally filler','kinds':['code'],"
                                        "'k':10}"));
    REQUIRE(out);
    const json_t *items = json_object_get(out, "items");
    size_t rare = 0, common = 0, i;
    const json_t *it;
    json_array_foreach(items, i, it)
    {
        const char *title = json_string_value(json_object_get(it, "title"));
        int n = title && !strncmp(title, "pad_", 4) ? (int)strtol(title + 4, NULL, 10) : -1;
        rare += n >= 0 && n < 5;
        common += n >= 500 && n < 900;
    }
    CHECK(rare == 5);
    CHECK(common == 5);
    json_decref(out);
}

/*
 * A C++ header and its source rank together (companion.c): the issue's
 * words are in clib/ring.cpp (its code and comments) and barely in
 * clib/ring.h (declarations); clib/queue.cpp holds some of them. The
 * header comes right after its source, at 0.95 of its score; so does a
 * header of another directory when it is the only other source file among
 * the candidates with the stem (include/vec.h, src/vec.cc; tests/vec.cc is
 * a test, no companion). Of three port/<arch>/clock.h, none is lifted by
 * another directory's. A C source and its header (cdir/heap.c,
 * cdir/heap.h) keep their own scores: C fixes change the header far less
 * often.
 */
static void test_header_and_source(void)
{
    write_file("clib/ring.cpp",
               "#include \"ring.h\"\n\n"
               "/* A full ring buffer overwrites its oldest value when a push wraps around:\n"
               " * the reader then loses the oldest value silently. */\n"
               "int ring_push(struct ring *r, int v)\n{\n"
               "    if (r->len == r->cap) /* full: the push wraps around the oldest value */\n"
               "        r->head = (r->head + 1) % r->cap;\n"
               "    r->buf[(r->head + r->len) % r->cap] = v;\n"
               "    return r->len < r->cap ? ++r->len : r->len;\n}\n");
    write_file("clib/ring.h", "struct ring { int *buf, head, len, cap; };\n"
                              "int ring_push(struct ring *r, int v);\n");
    write_file("clib/queue.cpp", "/* A queue keeps every value: a push on a full queue grows it,\n"
                                 " * and the oldest value stays first. */\n"
                                 "int queue_grow(int *cap) { *cap *= 2; return *cap; }\n");
    write_file("src/vec.cc", "/* A vector doubles its capacity when an append overflows it;\n"
                             " * an overflow of the doubled size aborts. */\n"
                             "int vec_append(int *cap) { return *cap *= 2; }\n");
    write_file("include/vec.h", "int vec_append(int *cap);\n");
    write_file("tests/vec.cc", "/* an append that overflows the doubled capacity aborts */\n"
                               "int test_vec_append(void) { return 0; }\n");
    for (int a = 0; a < 3; a++) {
        static const char *const arch[] = {"x86", "arm", "mips"};
        mn_buf p = MN_BUF_INIT, t = MN_BUF_INIT;
        mn_buf_printf(&p, "port/%s/clock.h", arch[a]);
        mn_buf_printf(&t, "/* the %s clock */\nint clock_ticks_%s(void);\n", arch[a], arch[a]);
        write_file(p.ptr, t.ptr);
        mn_buf_release(&p);
        mn_buf_release(&t);
    }
    write_file("port/x86/clock.cc", "/* x86 ticks: the counter wraps, an overflow of ticks is\n"
                                    " * counted, a doubled overflow aborts the clock. */\n"
                                    "int clock_ticks_x86(void) { return 0; }\n");
    write_file("cdir/heap.c",
               "/* A heap frees a block twice when a free follows a realloc of the same\n"
               " * block: the allocator then corrupts its free list. */\n"
               "int heap_free(void *p) { return p != 0; }\n");
    write_file("cdir/heap.h", "int heap_free(void *p); /* frees a block */\n");
    reindex();

    json_t *out = test_call("search", J("{'query':'A push on a full ring buffer wraps around\\n"
                                        "The oldest value is lost silently when the ring is "
                                        "full and a push wraps around.','kinds':['file'],"
                                        "'k':10}"));
    REQUIRE(out);
    CHECK(rank_of(out, "clib/ring.cpp") == 0);
    CHECK(rank_of(out, "clib/ring.h") == 1);
    CHECK(rank_of(out, "clib/queue.cpp") > 1);
    double ss = score_of(out, "clib/ring.cpp"), sh = score_of(out, "clib/ring.h");
    REQUIRE(ss > 0 && sh > 0);
    CHECK(fabs(sh - 0.95 * ss) < 1e-9);
    json_decref(out);

    out = test_call("search", J("{'query':'An append overflows the doubled capacity\\nA vector "
                                "aborts when an append overflows its doubled capacity.',"
                                "'kinds':['file'],'k':10}"));
    REQUIRE(out);
    CHECK(rank_of(out, "src/vec.cc") == 0);
    CHECK(rank_of(out, "include/vec.h") == 1);
    /* the test named like them is no companion: it keeps its test role's score */
    double vc = score_of(out, "src/vec.cc"), vt = score_of(out, "tests/vec.cc");
    REQUIRE(vc > 0 && vt > 0);
    CHECK(vt < 0.5 * vc);
    json_decref(out);

    /* three clock.h: x86's pairs with clock.c of its directory, arm's and mips's with no one */
    out = test_call("search", J("{'query':'The clock ticks overflow when the counter wraps\\n"
                                "An overflow of ticks after a wrap of the counter aborts the "
                                "clock.','kinds':['file'],'k':20}"));
    REQUIRE(out);
    double s86 = score_of(out, "port/x86/clock.cc"), sh86 = score_of(out, "port/x86/clock.h"),
           sarm = score_of(out, "port/arm/clock.h");
    REQUIRE(s86 > 0 && sh86 > 0 && sarm > 0);
    CHECK(sh86 >= 0.95 * s86 - 1e-9);
    CHECK(sarm < 0.95 * s86);
    json_decref(out);

    /* C: the header keeps its own score, below the source */
    out = test_call("search", J("{'query':'A block freed twice after a realloc\\nThe heap "
                                "corrupts its free list when a block is freed twice after a "
                                "realloc.','kinds':['file'],'k':20}"));
    REQUIRE(out);
    double hc = score_of(out, "cdir/heap.c"), hh = score_of(out, "cdir/heap.h");
    REQUIRE(hc > 0 && hh > 0);
    CHECK(rank_of(out, "cdir/heap.c") == 0);
    CHECK(hh < 0.95 * hc - 1e-9);
    json_decref(out);
}

/*
 * A module that only declares error types holds the words in its names
 * (ProxyAuthenticationError) and nothing to fix: it weighs as documentation, below the code
 * that sends the credentials, and stays in the answer.
 */
static void test_error_types_only(void)
{
    write_file("net/errors.py",
               "class NetError(Exception):\n"
               "    \"\"\"Base of the network errors.\"\"\"\n\n"
               "class ProxyError(NetError):\n"
               "    \"\"\"The proxy failed.\"\"\"\n\n"
               "class ProxyAuthenticationError(ProxyError):\n"
               "    \"\"\"The proxy refused the credentials: 407 Proxy Authentication\n"
               "    Required.\"\"\"\n"
               "    def __init__(self, response):\n"
               "        self.response = response\n");
    write_file(
        "net/proxy.py",
        "from net.errors import ProxyAuthenticationError\n\n\n"
        "def proxy_headers(proxy):\n"
        "    \"\"\"The Proxy-Authorization header with the credentials of the proxy\n"
        "    URL.\"\"\"\n"
        "    return {'Proxy-Authorization': basic_auth(proxy.username, proxy.password)}\n\n\n"
        "def send(request, proxy):\n"
        "    response = request.send(proxy_headers(proxy))\n"
        "    if response.status == 407:\n"
        "        raise ProxyAuthenticationError(response)\n"
        "    return response\n");
    reindex();
    json_t *out = test_call("search", J("{'query':'Proxy authentication error 407\\nThe proxy "
                                        "refuses the credentials with a 407 proxy authentication "
                                        "error.','kinds':['file'],'k':10}"));
    REQUIRE(out);
    CHECK(rank_of(out, "net/proxy.py") == 0);
    CHECK(rank_of(out, "net/errors.py") > 0);
    json_decref(out);
}

static void run_all(void)
{
    setup();
    test_hub_stays_below();
    test_no_centrality_prior();
    test_package_name();
    test_source_link();
    test_path_scoring_words();
    test_name_count_follows_index(); /* it adds a file */
    test_template_and_test_frames(); /* it adds files */
    test_signals_read_off();
    test_header_and_source(); /* it adds files */
    test_error_types_only();  /* it adds files */
    test_common_words_tail(); /* it adds 1,100 chunks */
    teardown();
}

MN_TEST_MAIN(MN_TEST(run_all))
