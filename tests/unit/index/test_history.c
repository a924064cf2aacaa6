/*
 * test_history.c - the git history in the index (index/history.c) and in
 * file ranking (retrieve/history_signal.c), on a repository the test makes
 * with git: a merge and a commit of 51 files (both left out), a rename
 * (older commits count for the new name), an incremental read that reads
 * only the commits after the head it stored, a copy without .git, a
 * shallow clone (read down to its boundary, again when its HEAD moves, whole
 * once deepened), a copy that lacks a blob a rename
 * needs (every commit read, that one without its rename), and an issue whose words only a
 * past commit's subject shares with the file it changed. The copy and the
 * clone have stores of their own: a store indexes one root. The read leaves
 * libgit2's pack windows and object cache bounded (history.c "Memory") and
 * drops the store's memory map while it reads.
 */
#include "common.h"
#include <sqlite3.h>
#include <stdarg.h>

#include "index/history.h"
#include "mnemo/api.h"
#include "store/store.h"
#include "store/store_index.h"
#include "store/store_vector.h"
#include "util/libs.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_ctx.h"

#define GIT "git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main"

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    mn_buf cmd = MN_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    mn_buf_vprintf(&cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd.ptr);
    if (rc != 0)
        fprintf(stderr, "command failed (%d): %s\n", rc, cmd.ptr);
    mn_buf_release(&cmd);
    return rc;
}

static void write_file(const char *dir, const char *rel, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s/%s", test_tmp, dir, rel);
    char *slash = strrchr(p.ptr, '/');
    *slash = '\0';
    mn_fs_mkdir_p(p.ptr);
    *slash = '/';
    if (mn_fs_write_atomic(p.ptr, text, strlen(text)) != 0)
        abort();
    mn_buf_release(&p);
}

static int commit(const char *msg)
{
    return run("cd '%s/repo' && " GIT " add -A && " GIT " commit -q -m '%s'", test_tmp, msg);
}

static const char *store = "store"; /* the directory of the store in use, in test_tmp */

/* Work on the store in test_tmp/<name>/ from now on (made when new; a store indexes one root). */
static void use_store(const char *name)
{
    mn_buf db = MN_BUF_INIT;
    mn_ctx_free(test_ctx);
    store = name;
    mn_buf_printf(&db, "%s/%s/mnemo.db", test_tmp, name);
    if ((test_ctx = test_ctx_at(db.ptr, test_tmp, MN_FRONT_RELAYED)) == NULL)
        abort();
    mn_buf_release(&db);
    json_decref(test_call("config", J("{'action':'set','key':'embed.provider','value':'off'}")));
    json_decref(test_call("config", J("{'action':'set','key':'memory.dedup','value':'false'}")));
}

/* One number from the store, by SQL. */
static long long query_int(const char *sql)
{
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/%s/mnemo.db", test_tmp, store);
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_open_v2(db.ptr, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    mn_buf_release(&db);
    return n;
}

/* A write to the store behind the index's back. */
static int exec_sql(const char *sql)
{
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/%s/mnemo.db", test_tmp, store);
    sqlite3 *h = NULL;
    int rc = sqlite3_open_v2(db.ptr, &h, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
    sqlite3_close(h);
    mn_buf_release(&db);
    return rc;
}

static long long commits_with(const char *subject)
{
    mn_buf sql = MN_BUF_INIT;
    mn_buf_printf(&sql, "SELECT count(*) FROM history_commits WHERE subject = '%s'", subject);
    long long n = query_int(sql.ptr);
    mn_buf_release(&sql);
    return n;
}

static void index_dir(const char *dir)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "{'path':'%s/%s'}", test_tmp, dir);
    json_t *out = test_call("index", J(p.ptr));
    CHECK(out != NULL);
    json_decref(out);
    mn_buf_release(&p);
}

static const char issue[] = "{'query':'Empty polygon raises IndexError\\nA polygon with no "
                            "points raises IndexError.','kinds':['file'],'k':10}";

/*
 * geo/fill.py and geo/clip.py both hold the issue's "points", fill.py
 * its "polygon" once more: the words alone rank fill.py first, closely
 * (the history signal, 0.2 at most, is what a test of it can move). Only a past commit's subject
 * ties the issue's IndexError to clip.py.
 */
static void make_repo(void)
{
    REQUIRE(run(GIT " init -q '%s/repo'", test_tmp) == 0);
    write_file("repo", "geo/clip.py",
               "def clip_polygon(polygon, window):\n"
               "    \"\"\"Clip the points of a shape to a window.\"\"\"\n"
               "    first = polygon[0]\n"
               "    return [first] + [p for p in polygon[1:] if window.contains(p)]\n");
    write_file("repo", "geo/fill.py",
               "def fill_polygon(polygon, colour):\n"
               "    \"\"\"Fill the points of a polygon with a colour.\"\"\"\n"
               "    return [(p, colour) for p in polygon]\n");
    REQUIRE(commit("Add geometry helpers") == 0);
    write_file("repo", "geo/area.py", "def area(shape):\n    return 0.0\n");
    REQUIRE(commit("Add area helper") == 0);
    write_file("repo", "geo/clip.py",
               "def clip_polygon(polygon, window):\n"
               "    \"\"\"Clip the points of a shape to a window.\"\"\"\n"
               "    return [p for p in polygon if window.contains(p)]\n");
    REQUIRE(commit("Fix IndexError on empty input to clip") == 0);
    /* a side branch merged: its commit counts, the merge does not */
    REQUIRE(run("cd '%s/repo' && " GIT " checkout -q -b side", test_tmp) == 0);
    write_file("repo", "geo/fill.py",
               "def fill_polygon(polygon, colour):\n"
               "    \"\"\"Fill the points of a polygon with a colour, in order.\"\"\"\n"
               "    return [(p, colour) for p in polygon]\n");
    REQUIRE(commit("Side change of fill") == 0);
    REQUIRE(run("cd '%s/repo' && " GIT " checkout -q main", test_tmp) == 0);
    write_file("repo", "README.md", "Geometry helpers.\n");
    REQUIRE(commit("Add readme") == 0);
    REQUIRE(run("cd '%s/repo' && " GIT " merge -q --no-ff -m 'Merge branch side' side", test_tmp) ==
            0);
    /* 51 files at once: says nothing of any one of them */
    for (int i = 0; i < 51; i++) {
        char rel[32];
        snprintf(rel, sizeof(rel), "data/d%02d.txt", i);
        write_file("repo", rel, "x\n");
    }
    REQUIRE(commit("Add data files") == 0);
    REQUIRE(run("cd '%s/repo' && " GIT " mv geo/area.py geo/surface.py", test_tmp) == 0);
    REQUIRE(commit("Rename area to surface") == 0);
}

static int rank_of(const json_t *out, const char *id)
{
    int rank = -1;
    return test_find_item(out, id, &rank) ? rank : -1;
}

static double history_of(const json_t *out, const char *id)
{
    int rank;
    const json_t *it = test_find_item(out, id, &rank);
    return it ? json_number_value(test_signal(it, "history")) : -1;
}

/* The read drops the store's memory map (the pages `index` read through it stayed resident
 * beside libgit2's: ~70 MB of sympy's peak) and sets it on again for the reads after. */
static void read_drops_the_map(void)
{
    mn_buf db = MN_BUF_INIT, root = MN_BUF_INIT;
    mn_store *s = NULL;
    char *head = NULL;
    size_t n = 0;
    int64_t docs = 0;
    mn_buf_printf(&db, "%s/store/mnemo.db", test_tmp);
    mn_buf_printf(&root, "%s/repo", test_tmp);
    REQUIRE_OK(mn_store_open(&s, db.ptr, NULL)); /* no other connection: the context is elsewhere */
    REQUIRE_OK(mn_store_history_head(s, &head));
    free(head);
    CHECK(file_mapped(db.ptr)); /* a read maps the file */
    write_file("repo", "README.md", "Geometry helpers, mapped.\n");
    REQUIRE(commit("Note the map") == 0);
    REQUIRE_OK(mn_history_ingest(s, root.ptr, NULL, 0, &n));
    CHECK(n == 1);
    CHECK(!file_mapped(db.ptr)); /* dropped by the read, not mapped again until a read */
    /* the chunks' pages (the history's writes are in the WAL and the page cache) */
    REQUIRE_OK(mn_store_embed_corpus_count(s, &docs));
    CHECK(docs > 0 && file_mapped(db.ptr));
    CHECK(commits_with("Note the map") == 1);
    /* nothing new to read: the map stays */
    REQUIRE_OK(mn_history_ingest(s, root.ptr, NULL, 0, &n));
    CHECK(n == 0 && file_mapped(db.ptr));
    mn_store_free(s);
    mn_buf_release(&db);
    mn_buf_release(&root);
}

static void test_history(void)
{
    test_ctx_open("history");
    /* keep the user's and the system's git configuration out of the test */
    mn_buf home = MN_BUF_INIT;
    mn_buf_printf(&home, "%s/home", test_tmp);
    mn_fs_mkdir_p(home.ptr);
    setenv("HOME", home.ptr, 1);
    setenv("XDG_CONFIG_HOME", home.ptr, 1);
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    mn_buf_release(&home);
    make_repo();

    /* the same files without .git first: no history, no error; the words rank fill.py first */
    REQUIRE(run("cp -r '%s/repo' '%s/plain' && rm -rf '%s/plain/.git'", test_tmp, test_tmp,
                test_tmp) == 0);
    use_store("plain-store");
    index_dir("plain");
    CHECK(query_int("SELECT count(*) FROM history_commits") == 0);
    json_t *out = test_call("search", J(issue));
    REQUIRE(out);
    CHECK(rank_of(out, "geo/fill.py") == 0);
    CHECK(rank_of(out, "geo/clip.py") > 0);
    CHECK(history_of(out, "geo/clip.py") == 0);
    json_decref(out);

    /* the repository: six commits (not the merge, not the 51 files) */
    use_store("store");
    index_dir("repo");
    CHECK(query_int("SELECT count(*) FROM history_commits") == 6);
    long long fts_first = query_int("SELECT sum(length(block)) FROM history_fts_data");
    CHECK(commits_with("Merge branch side") == 0);
    CHECK(commits_with("Add data files") == 0);
    CHECK(commits_with("Side change of fill") == 1);
    /* the rename: the commit that added area.py counts for surface.py */
    CHECK(query_int("SELECT count(*) FROM history_files f JOIN history_commits c ON c.id = "
                    "f.commit_id WHERE c.subject = 'Add area helper' AND "
                    "f.path = 'geo/surface.py'") == 1);
    CHECK(query_int("SELECT count(*) FROM history_docs WHERE path = 'geo/area.py'") == 0);

    /* the read left libgit2 bounded: pack windows and object cache well below its defaults
     * (8 GB mapped, 256 MB cached), which held ~130 MB of sympy's 5,000 commits in RSS */
    const mn_git_api *git = mn_libs_git();
    REQUIRE(git && git->libgit2_init() >= 0);
    size_t mapped_limit = 0, window = 0;
    ssize_t cached = -1, cache_max = -1;
    CHECK(git->libgit2_opts(GIT_OPT_GET_MWINDOW_MAPPED_LIMIT, &mapped_limit) == 0);
    CHECK(git->libgit2_opts(GIT_OPT_GET_MWINDOW_SIZE, &window) == 0);
    CHECK(git->libgit2_opts(GIT_OPT_GET_CACHED_MEMORY, &cached, &cache_max) == 0);
    CHECK(mapped_limit > 0 && mapped_limit <= ((size_t)64 << 20));
    CHECK(window > 0 && window <= mapped_limit);
    CHECK(cache_max > 0 && cache_max <= ((ssize_t)64 << 20));
    git->libgit2_shutdown();

    /* the commit's subject lifts clip.py above fill.py */
    out = test_call("search", J(issue));
    REQUIRE(out);
    CHECK(rank_of(out, "geo/clip.py") == 0);
    CHECK(history_of(out, "geo/clip.py") == 1.0);
    CHECK(history_of(out, "geo/fill.py") == 0);
    json_decref(out);

    /* incremental: a commit gone from the store is not read again; the new one is */
    REQUIRE(exec_sql("DELETE FROM history_commits WHERE subject = 'Add readme'") == 0);
    index_dir("repo"); /* nothing new */
    CHECK(query_int("SELECT count(*) FROM history_commits") == 5);
    write_file("repo", "README.md", "Geometry helpers: clip, fill, surface.\n");
    REQUIRE(commit("Document the helpers") == 0);
    index_dir("repo");
    CHECK(query_int("SELECT count(*) FROM history_commits") == 6);
    CHECK(commits_with("Add readme") == 0);
    CHECK(commits_with("Document the helpers") == 1);
    /* a rename read incrementally carries the stored commits to the new name */
    REQUIRE(run("cd '%s/repo' && " GIT " mv geo/surface.py geo/measure.py", test_tmp) == 0);
    REQUIRE(commit("Rename surface to measure") == 0);
    index_dir("repo");
    CHECK(query_int("SELECT count(*) FROM history_files f JOIN history_commits c ON c.id = "
                    "f.commit_id WHERE c.subject = 'Add area helper' AND "
                    "f.path = 'geo/measure.py'") == 1);
    CHECK(query_int("SELECT count(*) FROM history_files WHERE path = 'geo/surface.py'") == 0);
    /* a subject in latin-1 (git keeps the bytes when told the encoding): stored as valid UTF-8 */
    write_file("repo", "README.md", "Geometry helpers.\n");
    write_file("repo", "msg.txt", "Caf\xe9 fix\n");
    REQUIRE(run("cd '%s/repo' && " GIT " add README.md && " GIT
                " -c i18n.commitEncoding=ISO-8859-1 commit -q -F msg.txt",
                test_tmp) == 0);
    index_dir("repo");
    CHECK(commits_with("Caf? fix") == 1);
    /* four reads rebuilt the documents four times: the full-text index is rebuilt with them,
     * not left holding each old set as delete markers (211 -> 243 bytes; 1,414 without) */
    long long fts_last = query_int("SELECT sum(length(block)) FROM history_fts_data");
    CHECK(fts_first > 0 && fts_last <= fts_first + fts_first / 2);
    /* HEAD moved back (an older commit checked out): the commits after it are forgotten and
     * the history is read again from there (the deleted "Add readme" comes back with it) */
    REQUIRE(run("cd '%s/repo' && " GIT " checkout -q HEAD~2", test_tmp) == 0);
    index_dir("repo");
    CHECK(commits_with("Caf? fix") == 0);
    CHECK(commits_with("Rename surface to measure") == 0);
    CHECK(commits_with("Document the helpers") == 1);
    CHECK(commits_with("Add readme") == 1);
    /* and forward again: only the two newer ones are read */
    REQUIRE(run("cd '%s/repo' && " GIT " checkout -q main", test_tmp) == 0);
    index_dir("repo");
    CHECK(commits_with("Caf? fix") == 1);
    CHECK(commits_with("Rename surface to measure") == 1);

    /* a copy that lacks a blob (a partial clone, a size-limited snapshot without its large
     * files): finding the renames of the commit that needs it fails; its paths are read all
     * the same, and so are the other commits (none was, a warning said so) */
    REQUIRE(run("cp -r '%s/repo' '%s/holed'", test_tmp, test_tmp) == 0);
    write_file("holed", "geo/big.py",
               "def big_hull(points):\n    \"\"\"The hull of many points.\"\"\"\n"
               "    hull = sorted(points)\n    return hull[:3]\n");
    REQUIRE(run("cd '%s/holed' && " GIT " add -A && " GIT " commit -q -m 'Add big hull'",
                test_tmp) == 0);
    write_file("holed", "geo/large.py",
               "def big_hull(points):\n    \"\"\"The hull of many points.\"\"\"\n"
               "    hull = sorted(points)\n    return hull[:4]\n");
    REQUIRE(run("cd '%s/holed' && rm geo/big.py && blob=$(" GIT
                " rev-parse HEAD:geo/big.py) && " GIT " add -A && " GIT
                " commit -q -m 'Rename big hull to large' && "
                "rm .git/objects/$(echo $blob | cut -c1-2)/$(echo $blob | cut -c3-)",
                test_tmp) == 0);
    use_store("holed-store");
    index_dir("holed");
    CHECK(query_int("SELECT count(*) FROM history_commits") == 11);
    CHECK(commits_with("Rename big hull to large") == 1);
    CHECK(query_int("SELECT count(*) FROM history_files f JOIN history_commits c ON c.id = "
                    "f.commit_id WHERE c.subject = 'Rename big hull to large'") == 2);
    CHECK(commits_with("Add area helper") == 1);

    /* a shallow clone (libgit2 1.5's revwalk stops at its boundary with an error): its commits
     * down to the boundary are read; the boundary commit, whose parent it lacks, is not */
    REQUIRE(run(GIT " clone -q --depth 3 'file://%s/repo' '%s/shallow'", test_tmp, test_tmp) == 0);
    use_store("shallow-store");
    index_dir("shallow");
    CHECK(query_int("SELECT count(*) FROM history_commits") == 2);
    CHECK(commits_with("Caf? fix") == 1);
    CHECK(commits_with("Rename surface to measure") == 1);
    CHECK(commits_with("Document the helpers") == 0); /* the boundary */
    /* a new commit: the shallow history is read again, from the new head */
    write_file("shallow", "README.md", "Geometry helpers, shallow.\n");
    REQUIRE(run("cd '%s/shallow' && " GIT " add -A && " GIT " commit -q -m 'Shallow note'",
                test_tmp) == 0);
    index_dir("shallow");
    CHECK(query_int("SELECT count(*) FROM history_commits") == 3);
    CHECK(commits_with("Shallow note") == 1);
    /* deepened to the whole history: the older commits are read too */
    REQUIRE(run("cd '%s/shallow' && " GIT " fetch -q --unshallow", test_tmp) == 0);
    index_dir("shallow");
    CHECK(query_int("SELECT count(*) FROM history_commits") == 10);
    CHECK(commits_with("Document the helpers") == 1);
    CHECK(commits_with("Add geometry helpers") == 1);
    /* a clone of depth 1 is its boundary alone: nothing to read, no error */
    REQUIRE(run(GIT " clone -q --depth 1 'file://%s/repo' '%s/shallow1'", test_tmp, test_tmp) == 0);
    use_store("shallow1-store");
    index_dir("shallow1");
    CHECK(query_int("SELECT count(*) FROM history_commits") == 0);
    store = "store";
    read_drops_the_map();
    test_ctx_close();
}

MN_TEST_MAIN(MN_TEST(test_history))
