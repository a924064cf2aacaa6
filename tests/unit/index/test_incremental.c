/*
 * test_incremental.c - an index kept up to date run after run ends with the
 * same graph as a new index of the same tree.
 *
 * A small Python repository goes through edits that each touch a different
 * rule of the incremental resolver (index/resolve.c): a second definition
 * making a resolved call ambiguous, a definition going away and one
 * becoming unique, a new file defining a name that unresolved calls
 * waited for, a deleted file, a renamed file breaking an import, an edit
 * that keeps every name, a method moved from one class to another (calls
 * through a typed receiver). After each, the store indexed incrementally and a
 * new store indexed from scratch must hold the same edges (compared by
 * paths and qualified names, since row ids differ), and no edge may point
 * at a row that is gone. A few resolutions are also checked by hand, so
 * that two equally wrong graphs cannot pass.
 *
 * And a new index is the same in every run, row ids included, whatever
 * order its worker threads finish files in: files, symbols and chunks get
 * their ids in walk order (a large file first, many small ones after, four
 * threads: the small ones are parsed before the large one is).
 */
#include "common.h"
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/index.h"
#include "store/store_index.h"
#include "test.h"
#include "test_fs.h"

static char base[64];
static char root[96];
static int64_t clock_s = 1700000000;

static void write_file(const char *rel, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", root, rel);
    char *slash = strrchr(p.ptr, '/');
    *slash = '\0';
    mkdir(p.ptr, 0755);
    *slash = '/';
    FILE *f = fopen(p.ptr, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    /* a new time each write: freshness is judged by size and mtime first */
    struct timespec ts[2] = {{clock_s, 0}, {clock_s, 0}};
    clock_s += 10;
    utimensat(AT_FDCWD, p.ptr, ts, 0);
    mn_buf_release(&p);
}

static void remove_file(const char *rel)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", root, rel);
    unlink(p.ptr);
    mn_buf_release(&p);
}

static int index_into(const char *db, mn_index_stats *st)
{
    mn_store *s = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_index_options io = MN_INDEX_OPTIONS_INIT;
    io.threads = 1;
    int rc = mn_store_open(&s, db, &o);
    if (rc == 0)
        rc = mn_index_run(s, root, &io, st);
    mn_store_free(s);
    return rc;
}

/* Every edge as "src path|src symbol|kind|name|dst path|dst symbol", sorted. */
static char *dump(const char *db)
{
    static const char *const sql =
        "SELECT coalesce(fs.path, fy.path), coalesce(ys.qualified_name, ''), e.kind, e.dst_name, "
        "coalesce(fd.path, fyd.path, ''), coalesce(yd.qualified_name, '') FROM edges e "
        "LEFT JOIN files fs ON e.src_kind = 'file' AND fs.id = e.src_id "
        "LEFT JOIN symbols ys ON e.src_kind = 'symbol' AND ys.id = e.src_id "
        "LEFT JOIN files fy ON fy.id = ys.file_id "
        "LEFT JOIN files fd ON e.dst_kind = 'file' AND fd.id = e.dst_id "
        "LEFT JOIN symbols yd ON e.dst_kind = 'symbol' AND yd.id = e.dst_id "
        "LEFT JOIN files fyd ON fyd.id = yd.file_id ORDER BY 1, 2, 3, 4, 5, 6";
    mn_buf b = MN_BUF_INIT;
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int i = 0; i < 6; i++)
                mn_buf_printf(&b, "%s%s", i ? "|" : "", (const char *)sqlite3_column_text(st, i));
            mn_buf_puts(&b, "\n");
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return mn_buf_detach(&b);
}

/* Edges whose target id names no row: must be none. */
static long long dangling(const char *db)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h,
                           "SELECT count(*) FROM edges e WHERE e.dst_id IS NOT NULL AND "
                           "((e.dst_kind = 'file' AND e.dst_id NOT IN (SELECT id FROM files)) OR "
                           "(e.dst_kind = 'symbol' AND e.dst_id NOT IN (SELECT id FROM symbols)))",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

static int64_t symbol_id(const char *db, const char *qualified_name)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int64_t id = 0;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "SELECT id FROM symbols WHERE qualified_name = ?1", -1, &st, NULL) ==
            SQLITE_OK) {
        sqlite3_bind_text(st, 1, qualified_name, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            id = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return id;
}

static int step_no;
static char *last_fresh;

/* Index incrementally and from scratch; both graphs must be the same. */
static void check_step(const char *what, size_t want_parsed)
{
    mn_buf inc = MN_BUF_INIT, fresh = MN_BUF_INIT;
    mn_index_stats st;
    mn_buf_printf(&inc, "%s/inc.db", base);
    mn_buf_printf(&fresh, "%s/fresh%d.db", base, ++step_no);
    CHECK_OK(index_into(inc.ptr, &st));
    if (want_parsed != (size_t)-1) {
        CHECK(st.parsed == want_parsed);
        if (st.parsed != want_parsed)
            fprintf(stderr, "  step '%s': parsed %zu, want %zu\n", what, st.parsed, want_parsed);
    }
    CHECK_OK(index_into(fresh.ptr, &st));
    char *a = dump(inc.ptr), *b = dump(fresh.ptr);
    CHECK(strlen(b) > 0);
    CHECK_STR(a, b);
    if (strcmp(a, b) != 0)
        fprintf(stderr, "  step '%s': incremental and fresh graphs differ\n", what);
    CHECK(dangling(inc.ptr) == 0);
    free(a);
    free(last_fresh);
    last_fresh = b;
    mn_buf_release(&inc);
    mn_buf_release(&fresh);
}

/* Whether the last fresh graph has this edge line. */
static bool has_edge(const char *line)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s\n", line);
    bool yes = last_fresh && strstr(last_fresh, b.ptr) != NULL;
    if (!yes)
        fprintf(stderr, "  missing edge: %s\n", line);
    mn_buf_release(&b);
    return yes;
}

static void test_incremental_equals_fresh(void)
{
    snprintf(base, sizeof(base), "/tmp/mnemo-incr-XXXXXX");
    REQUIRE(mkdtemp(base) != NULL);
    snprintf(root, sizeof(root), "%s/repo", base);
    mkdir(root, 0755);
    write_file("pkg/__init__.py", "");
    write_file("pkg/a.py", "from pkg import b\n"
                           "from . import c\n"
                           "\n"
                           "def run():\n"
                           "    helper()\n"
                           "    b.save()\n"
                           "    shared()\n"
                           "\n"
                           "class Thing(Base):\n"
                           "    def go(self):\n"
                           "        self.save()\n");
    write_file("pkg/b.py", "def save():\n    pass\n\ndef shared():\n    pass\n");
    write_file("pkg/c.py", "class Base:\n"
                           "    def save(self):\n"
                           "        pass\n"
                           "\n"
                           "def helper():\n"
                           "    pass\n");
    write_file("util/x.py", "import pkg.a\n"
                            "\n"
                            "def use():\n"
                            "    pkg.a.run()\n"
                            "    helper()\n"
                            "    later()\n");
    check_step("first index", 5);
    CHECK(has_edge("util/x.py||import|pkg.a|pkg/a.py|"));
    CHECK(has_edge("util/x.py|use|call|helper|pkg/c.py|helper"));
    CHECK(has_edge("pkg/a.py|Thing|inherit|Base|pkg/c.py|Base"));
    CHECK(has_edge("util/x.py|use|call|later||"));

    /* a second helper: x.py's call becomes ambiguous (x imports neither) */
    write_file("pkg/b.py", "def save():\n    pass\n\ndef shared():\n    pass\n\n"
                           "def helper():\n    pass\n");
    check_step("second definition", 1);
    CHECK(has_edge("util/x.py|use|call|helper||"));
    /* a.py imports c (and the package), not b: the one among its imports wins */
    CHECK(has_edge("pkg/a.py|run|call|helper|pkg/c.py|helper"));

    /* save leaves b.py: Base.save is the only one left */
    write_file("pkg/b.py", "def shared():\n    pass\n\ndef helper():\n    pass\n");
    check_step("definition removed", 1);
    CHECK(has_edge("pkg/a.py|run|call|b.save|pkg/c.py|Base.save"));

    /* a new file defines what x.py called all along, and a second shared */
    write_file("util/y.py", "def later():\n    pass\n\ndef shared():\n    pass\n");
    check_step("new file", 1);
    CHECK(has_edge("util/x.py|use|call|later|util/y.py|later"));
    CHECK(has_edge("pkg/a.py|run|call|shared||")); /* was b.shared: now ambiguous */

    /* an edit that keeps every name: symbol rows are kept */
    mn_buf inc = MN_BUF_INIT;
    mn_buf_printf(&inc, "%s/inc.db", base);
    int64_t before = symbol_id(inc.ptr, "Thing.go");
    write_file("pkg/a.py", "from pkg import b\n"
                           "from . import c\n"
                           "\n"
                           "class Thing(Base):\n"
                           "    \"\"\"Moved up.\"\"\"\n"
                           "    def go(self):\n"
                           "        self.save()\n"
                           "\n"
                           "def run():\n"
                           "    helper()\n"
                           "    b.save()\n"
                           "    shared()\n");
    check_step("same names", 1);
    CHECK(before != 0 && symbol_id(inc.ptr, "Thing.go") == before);
    CHECK(has_edge("util/x.py|use|call|pkg.a.run|pkg/a.py|run"));

    /* c.py goes: Base, Base.save and helper with it */
    remove_file("pkg/c.py");
    check_step("file deleted", 0);
    CHECK(has_edge("pkg/a.py|Thing|inherit|Base||"));
    CHECK(has_edge("util/x.py|use|call|helper|pkg/b.py|helper"));
    /* "from . import c" now names an attribute of the package */
    CHECK(has_edge("pkg/a.py||import|.c|pkg/__init__.py|"));

    /* b.py renamed: the import of b breaks, its definitions move */
    write_file("pkg/bb.py", "def shared():\n    pass\n\ndef helper():\n    pass\n");
    remove_file("pkg/b.py");
    check_step("file renamed", 1);
    CHECK(has_edge("pkg/a.py|run|call|helper|pkg/bb.py|helper"));

    /* c.py comes back */
    write_file("pkg/c.py", "class Base:\n    def save(self):\n        pass\n");
    check_step("file restored", 1);
    CHECK(has_edge("pkg/a.py|Thing|inherit|Base|pkg/c.py|Base"));
    CHECK(has_edge("pkg/a.py||import|.c|pkg/c.py|"));

    /* a method moves to another class, its name defined as many times as before: a call
     * through a receiver of that class resolves now (and one through the old class no more) */
    write_file("pkg/d.py", "class P:\n"
                           "    def ping(self):\n"
                           "        pass\n"
                           "\n"
                           "class Q:\n"
                           "    pass\n");
    write_file("util/z.py", "from pkg.d import P, Q\n"
                            "\n"
                            "def call(q: Q, p: P):\n"
                            "    q.ping()\n"
                            "    p.ping()\n");
    check_step("typed receivers", 2);
    CHECK(has_edge("util/z.py|call|call|p:P.ping|pkg/d.py|P.ping"));
    CHECK(has_edge("util/z.py|call|call|q:Q.ping||"));
    write_file("pkg/d.py", "class P:\n"
                           "    pass\n"
                           "\n"
                           "class Q:\n"
                           "    def ping(self):\n"
                           "        pass\n");
    check_step("method moved to another class", 1);
    CHECK(has_edge("util/z.py|call|call|q:Q.ping|pkg/d.py|Q.ping"));
    CHECK(has_edge("util/z.py|call|call|p:P.ping||"));

    /* nothing changed: nothing parsed, same graph */
    check_step("no change", 0);
    mn_buf_release(&inc);
    free(last_fresh);
    last_fresh = NULL;
    rm_rf(base);
}

/* "path|chunk id|symbol id" of every chunk, in chunk id order. */
static char *dump_ids(const char *db)
{
    mn_buf b = MN_BUF_INIT;
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h,
                           "SELECT f.path, f.id, c.id, coalesce(c.symbol_id, 0) FROM chunks c JOIN "
                           "files f ON f.id = c.file_id ORDER BY c.id",
                           -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW)
            mn_buf_printf(&b, "%s|%lld|%lld|%lld\n", (const char *)sqlite3_column_text(st, 0),
                          (long long)sqlite3_column_int64(st, 1),
                          (long long)sqlite3_column_int64(st, 2),
                          (long long)sqlite3_column_int64(st, 3));
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return mn_buf_detach(&b);
}

/* Whether file ids ascend with the paths (the walk's order: sorted, parents first). */
static bool ids_in_walk_order(const char *db)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    bool ok = true;
    int64_t last = 0;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h, "SELECT id FROM files ORDER BY path", -1, &st, NULL) != SQLITE_OK)
        ok = false;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        ok = id > last;
        last = id;
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return ok;
}

static void test_same_ids_every_run(void)
{
    snprintf(base, sizeof(base), "/tmp/mnemo-ids-XXXXXX");
    REQUIRE(mkdtemp(base));
    snprintf(root, sizeof(root), "%s/repo", base);
    mkdir(root, 0755);
    mn_buf big = MN_BUF_INIT;
    for (int i = 0; i < 3000; i++)
        mn_buf_printf(&big, "def big_%d(x):\n    return x + %d\n\n\n", i, i);
    write_file("a_big.py", big.ptr);
    mn_buf_release(&big);
    for (int i = 0; i < 60; i++) {
        char rel[32], text[96];
        snprintf(rel, sizeof(rel), "b%02d.py", i);
        snprintf(text, sizeof(text), "def small_%d():\n    return %d\n", i, i);
        write_file(rel, text);
    }
    char *first = NULL;
    for (int run = 0; run < 3; run++) {
        mn_buf db = MN_BUF_INIT;
        mn_buf_printf(&db, "%s/run%d.db", base, run);
        mn_store *s = NULL;
        mn_store_options o = MN_STORE_OPTIONS_INIT;
        mn_index_options io = MN_INDEX_OPTIONS_INIT;
        mn_index_stats st;
        io.threads = 4;
        REQUIRE_OK(mn_store_open(&s, db.ptr, &o));
        CHECK_OK(mn_index_run(s, root, &io, &st));
        mn_store_free(s);
        CHECK(ids_in_walk_order(db.ptr));
        char *d = dump_ids(db.ptr);
        CHECK(strlen(d) > 0);
        if (!first)
            first = d;
        else {
            CHECK_STR(d, first);
            free(d);
        }
        mn_buf_release(&db);
    }
    free(first);
    rm_rf(base);
}

/* One integer of the store: the first column of the first row of sql. */
static long long db_int(const char *db, const char *sql)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

static void write_module(int i, int version)
{
    char rel[32];
    mn_buf text = MN_BUF_INIT;
    snprintf(rel, sizeof(rel), "m%02d.py", i);
    for (int f = 0; f < 40; f++)
        mn_buf_printf(&text, "def f%d_%d(x):\n    return x * %d + %d\n\n\n", i, f, version, f);
    write_file(rel, text.ptr);
    mn_buf_release(&text);
}

/*
 * Files re-indexed leave delete markers in the full-text index until it is
 * rebuilt (index.c: fts_tidy): rewriting a fifth of the tree or more
 * rebuilds it, so after every file changed twice the chunks' full-text
 * index is no bigger than a new index's; a smaller change is only counted.
 */
static void test_fulltext_tidied(void)
{
    snprintf(base, sizeof(base), "/tmp/mnemo-tidy-XXXXXX");
    REQUIRE(mkdtemp(base));
    snprintf(root, sizeof(root), "%s/repo", base);
    mkdir(root, 0755);
    for (int i = 0; i < 20; i++)
        write_module(i, 1);
    mn_buf db = MN_BUF_INIT, fresh = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/kept.db", base);
    mn_buf_printf(&fresh, "%s/fresh.db", base);
    mn_index_stats st;
    REQUIRE_OK(index_into(db.ptr, &st));
    static const char *const size_sql = "SELECT sum(length(block)) FROM chunks_fts_data";
    static const char *const churn_sql =
        "SELECT CAST(value AS INTEGER) FROM config WHERE key = 'index.fts_churn'";
    for (int version = 2; version <= 3; version++) {
        for (int i = 0; i < 20; i++)
            write_module(i, version);
        REQUIRE_OK(index_into(db.ptr, &st));
        CHECK(st.parsed == 20);
        CHECK(db_int(db.ptr, churn_sql) == 0); /* rebuilt: nothing counted */
    }
    REQUIRE_OK(index_into(fresh.ptr, &st));
    long long kept = db_int(db.ptr, size_sql), anew = db_int(fresh.ptr, size_sql);
    CHECK(kept > 0 && anew > 0);
    CHECK(kept <= anew + anew / 20);
    /* one file of twenty: counted, not rebuilt */
    write_module(7, 4);
    REQUIRE_OK(index_into(db.ptr, &st));
    CHECK(st.parsed == 1);
    CHECK(db_int(db.ptr, churn_sql) == 1);
    mn_buf_release(&db);
    mn_buf_release(&fresh);
    rm_rf(base);
}

MN_TEST_MAIN(MN_TEST(test_incremental_equals_fresh), MN_TEST(test_same_ids_every_run),
             MN_TEST(test_fulltext_tidied))
