/*
 * test_rank.c - PageRank over the stored graph: the file everyone imports
 * ranks highest, ranks average 1.0, an isolated file ranks lowest, and the
 * symbol everyone calls ranks above its callers.
 */
#include "common.h"
#include <math.h>
#include <sqlite3.h>
#include <unistd.h>

#include "index/rank.h"
#include "index/resolve.h"
#include "store/store_index.h"
#include "test.h"

static char dir[64];

static int put(mn_store *s, const char *path, const char *def, const char *import, const char *call)
{
    mn_file_rec f = {0};
    mn_symbol_rec y = {0};
    mn_ref_rec refs[2];
    size_t nr = 0;
    f.path = path;
    f.language = "python";
    f.role = "source";
    snprintf(f.hash, sizeof(f.hash), "%s", path);
    y.name = def;
    y.kind = "function";
    y.start_line = y.end_line = 1;
    if (import)
        refs[nr++] = (mn_ref_rec){-1, "import", import, 0};
    if (call)
        refs[nr++] = (mn_ref_rec){0, "call", call, 0};
    mn_file_content c = {&y, 1, refs, nr, NULL, 0, NULL, 0};
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_file_replace(s, &f, &c)) == 0)
        rc = mn_store_commit(s);
    else
        mn_store_rollback(s);
    return rc;
}

static double rank_of(const char *table, const char *where)
{
    mn_buf db = MN_BUF_INIT, sql = MN_BUF_INIT;
    sqlite3 *h;
    sqlite3_stmt *st;
    double v = -1;
    mn_buf_printf(&db, "%s/m.db", dir);
    mn_buf_printf(&sql, "SELECT rank FROM %s WHERE %s", table, where);
    if (sqlite3_open(db.ptr, &h) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql.ptr, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_double(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    mn_buf_release(&db);
    mn_buf_release(&sql);
    return v;
}

static void test_pagerank(void)
{
    mn_buf path = MN_BUF_INIT;
    mn_store *s = NULL;
    snprintf(dir, sizeof(dir), "/tmp/mnemo-rank-XXXXXX");
    REQUIRE(mkdtemp(dir));
    mn_buf_printf(&path, "%s/m.db", dir);
    REQUIRE_OK(mn_store_open(&s, path.ptr, NULL));
    mn_buf_release(&path);
    REQUIRE_OK(put(s, "core.py", "core", NULL, NULL));
    REQUIRE_OK(put(s, "a.py", "fa", "core", "core"));
    REQUIRE_OK(put(s, "b.py", "fb", "core", "core"));
    REQUIRE_OK(put(s, "c.py", "fc", "a", "fa"));
    REQUIRE_OK(put(s, "lonely.py", "lonely", NULL, NULL));
    mn_resolve_stats st;
    REQUIRE_OK(mn_resolve_all(s, &st));
    REQUIRE_OK(mn_rank_all(s));

    double core = rank_of("files", "path = 'core.py'"), a = rank_of("files", "path = 'a.py'"),
           b = rank_of("files", "path = 'b.py'"), c = rank_of("files", "path = 'c.py'"),
           lonely = rank_of("files", "path = 'lonely.py'");
    CHECK(core > a && a > b && b > 0);
    CHECK(c <= b + 1e-12 && lonely <= b + 1e-12);
    /* scaled: the mean is 1, up to the rounding to 4 significant digits */
    CHECK(fabs((core + a + b + c + lonely) / 5 - 1.0) < 1e-3);
    char text[32];
    snprintf(text, sizeof(text), "%.3e", core);
    CHECK(strtod(text, NULL) == core); /* stored rounded: an unchanged rank is not rewritten */
    CHECK(rank_of("symbols", "name = 'core'") > rank_of("symbols", "name = 'fa'"));
    CHECK(rank_of("symbols", "name = 'fa'") > rank_of("symbols", "name = 'fc'"));
    mn_store_free(s);
    mn_buf cmd = MN_BUF_INIT;
    mn_buf_printf(&cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd.ptr) == 0);
    mn_buf_release(&cmd);
}

MN_TEST_MAIN(MN_TEST(test_pagerank))
