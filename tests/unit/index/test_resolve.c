/*
 * test_resolve.c - import candidates per language, and resolution of
 * imports, calls and base classes in a real store: unique names resolve,
 * ambiguous ones stay unresolved, a replaced file's incoming edges are
 * resolved again.
 */
#include "common.h"
#include <sqlite3.h>
#include <unistd.h>

#include "index/resolve.h"
#include "store/store_index.h"
#include "test.h"

/* The candidates joined with '|'. */
static char *cands(const char *language, const char *src, const char *target)
{
    char *c[32];
    size_t n = mn_resolve_import_candidates(c, 32, language, src, target);
    mn_buf b = MN_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        mn_buf_printf(&b, "%s%s", i ? "|" : "", c[i]);
        free(c[i]);
    }
    return mn_buf_detach(&b);
}

#define CANDS(lang, src, target, want)        \
    do {                                      \
        char *got = cands(lang, src, target); \
        CHECK_STR(got, want);                 \
        free(got);                            \
    } while (0)

static void test_candidates(void)
{
    CANDS("python", "pkg/sub/m.py", "..utils",
          "pkg/utils.py|pkg/utils/__init__.py|pkg/utils.pyi|pkg/__init__.py");
    CANDS("python", "pkg/sub/m.py", ".a.b",
          "pkg/sub/a/b.py|pkg/sub/a/b/__init__.py|pkg/sub/a/b.pyi");
    CANDS("python", "pkg/sub/m.py", ".", "pkg/sub/__init__.py");
    CANDS("python", "pkg/m.py", "requests.adapters",
          "*/requests/adapters.py|*/requests/adapters/__init__.py|*/requests/adapters.pyi");
    CANDS("python", "m.py", "...too.far", "");
    CANDS("typescript", "src/a.ts", "./lib/x",
          "src/lib/x|src/lib/x.ts|src/lib/x.tsx|src/lib/x.d.ts|src/lib/x.js|src/lib/x.jsx|"
          "src/lib/x.mjs|src/lib/x.cjs|src/lib/x/index.ts|src/lib/x/index.tsx|"
          "src/lib/x/index.js|src/lib/x/index.jsx");
    CANDS("javascript", "src/a.js", "react", "");
    CANDS("c", "src/a.c", "\"util.h\"", "src/util.h|*/util.h");
    CANDS("cpp", "src/a.cc", "<vector>", "*/vector");
    CANDS("go", "cmd/main.go", "example.com/m/pkg/x",
          "*dir:example.com/m/pkg/x|*dir:m/pkg/x|*dir:pkg/x|*dir:x");
    CANDS("rust", "src/x.rs", "crate::a::b", "src/a/b.rs|src/a/b/mod.rs|src/a.rs|src/a/mod.rs");
    CANDS("rust", "src/x.rs", "util", "src/util.rs|src/util/mod.rs");
    CANDS("java", "src/A.java", "com.acme.Thing", "*/com/acme/Thing.java");
    CANDS("ruby", "lib/a.rb", "./b", "lib/b.rb|lib/b");
    CANDS("php", "src/a.php", "App\\Models\\User", "*/App/Models/User.php");
    CANDS("bash", "bin/run.sh", "./lib.sh", "bin/lib.sh");
    CANDS(NULL, "x", "y", "");
}

static char dir[64];

static int put(mn_store *s, const char *path, const char *lang, const char *const *defs,
               const char *const *imports, const char *const *calls)
{
    mn_file_rec f = {0};
    mn_symbol_rec syms[8] = {{0}};
    mn_ref_rec refs[16] = {{0}};
    size_t ns = 0, nr = 0;
    f.path = path;
    f.language = lang;
    f.role = "source";
    snprintf(f.hash, sizeof(f.hash), "%s", path);
    for (; defs && defs[ns]; ns++) {
        syms[ns].name = defs[ns];
        syms[ns].kind = "function";
        syms[ns].start_line = (int64_t)ns + 1;
        syms[ns].end_line = (int64_t)ns + 1;
    }
    for (size_t i = 0; imports && imports[i]; i++)
        refs[nr++] = (mn_ref_rec){-1, "import", imports[i], 0};
    for (size_t i = 0; calls && calls[i]; i++)
        refs[nr++] = (mn_ref_rec){ns ? 0 : -1, "call", calls[i], 0};
    mn_file_content c = {syms, ns, refs, nr, NULL, 0, NULL, 0};
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_file_replace(s, &f, &c)) == 0)
        rc = mn_store_commit(s);
    else
        mn_store_rollback(s);
    return rc;
}

/* Where an edge named `name` from `path` points, as "path" or "path:symbol", or "". */
static char *target_of(const char *path, const char *name)
{
    mn_buf db = MN_BUF_INIT, out = MN_BUF_INIT;
    sqlite3 *h;
    sqlite3_stmt *st;
    mn_buf_printf(&db, "%s/m.db", dir);
    if (sqlite3_open(db.ptr, &h) == SQLITE_OK &&
        sqlite3_prepare_v2(h,
                           "SELECT coalesce((SELECT path FROM files WHERE e.dst_kind = 'file' "
                           "AND id = e.dst_id), (SELECT f.path || ':' || y.name FROM symbols y "
                           "JOIN files f ON f.id = y.file_id WHERE e.dst_kind = 'symbol' AND "
                           "y.id = e.dst_id), '') FROM edges e WHERE e.dst_name = ?2 AND "
                           "((e.src_kind = 'file' AND e.src_id = (SELECT id FROM files WHERE "
                           "path = ?1)) OR (e.src_kind = 'symbol' AND e.src_id IN (SELECT y.id "
                           "FROM symbols y JOIN files f ON f.id = y.file_id WHERE f.path = ?1)))",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            mn_buf_puts(&out, (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    mn_buf_release(&db);
    return mn_buf_detach(&out);
}

#define TARGET(path, name, want)           \
    do {                                   \
        char *got = target_of(path, name); \
        CHECK_STR(got, want);              \
        free(got);                         \
    } while (0)

static void test_resolve_in_store(void)
{
    mn_buf path = MN_BUF_INIT;
    mn_store *s = NULL;
    snprintf(dir, sizeof(dir), "/tmp/mnemo-res-XXXXXX");
    REQUIRE(mkdtemp(dir));
    mn_buf_printf(&path, "%s/m.db", dir);
    REQUIRE_OK(mn_store_open(&s, path.ptr, NULL));
    mn_buf_release(&path);

    REQUIRE_OK(put(s, "src/app/__init__.py", "python", NULL, NULL, NULL));
    REQUIRE_OK(put(s, "src/app/models.py", "python", (const char *const[]){"save", "load", NULL},
                   (const char *const[]){".utils", NULL}, (const char *const[]){"helper", NULL}));
    REQUIRE_OK(put(s, "src/app/utils.py", "python", (const char *const[]){"helper", "load", NULL},
                   NULL, NULL));
    REQUIRE_OK(put(s, "src/app/views.py", "python", (const char *const[]){"index", NULL},
                   (const char *const[]){"app.models", "os.path", NULL},
                   (const char *const[]){"self.save", "load", "missing", NULL}));
    REQUIRE_OK(put(s, "web/main.ts", "typescript", (const char *const[]){"main", NULL},
                   (const char *const[]){"./lib/util", "react", NULL}, NULL));
    REQUIRE_OK(put(s, "web/lib/util/index.ts", "typescript", NULL, NULL, NULL));

    mn_resolve_stats st;
    REQUIRE_OK(mn_resolve_all(s, &st));
    CHECK(st.imports == 5 && st.imports_resolved == 3);
    TARGET("src/app/models.py", ".utils", "src/app/utils.py");
    TARGET("src/app/views.py", "app.models", "src/app/models.py");
    TARGET("src/app/views.py", "os.path", "");
    TARGET("web/main.ts", "./lib/util", "web/lib/util/index.ts");
    TARGET("web/main.ts", "react", "");
    /* unique name anywhere */
    TARGET("src/app/models.py", "helper", "src/app/utils.py:helper");
    TARGET("src/app/views.py", "self.save", "src/app/models.py:save");
    /* "load" is defined twice; views imports models only, so it is models' */
    TARGET("src/app/views.py", "load", "src/app/models.py:load");
    TARGET("src/app/views.py", "missing", "");
    CHECK(st.calls == 4 && st.calls_resolved == 3);

    /* a replaced file keeps its id and the rows of the symbols still there: edges into
     * them stay; edges into a symbol that went away are unresolved, and resolving
     * again after it is back restores them */
    REQUIRE_OK(
        put(s, "src/app/utils.py", "python", (const char *const[]){"load", NULL}, NULL, NULL));
    TARGET("src/app/models.py", ".utils", "src/app/utils.py");
    TARGET("src/app/models.py", "helper", "");
    REQUIRE_OK(put(s, "src/app/utils.py", "python", (const char *const[]){"helper", "load", NULL},
                   NULL, NULL));
    REQUIRE_OK(mn_resolve_all(s, &st));
    TARGET("src/app/models.py", ".utils", "src/app/utils.py");
    TARGET("src/app/models.py", "helper", "src/app/utils.py:helper");
    CHECK_OK(mn_store_check(s));
    mn_store_free(s);
    mn_buf cmd = MN_BUF_INIT;
    mn_buf_printf(&cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd.ptr) == 0);
    mn_buf_release(&cmd);
}

/*
 * Python's absolute imports count only from a root that is not a package:
 * `import pathlib` inside src/_pytest/ is the standard library, not
 * src/_pytest/pathlib.py; `import flask` is src/flask/, not a test fixture
 * tests/apps/inner/flask.py whose directory is a package. The importer's
 * own base directory comes first (a script's sibling module), and
 * `from . import name` falls back to the package's __init__.py when name is
 * not a module.
 */
static void test_python_roots(void)
{
    mn_buf path = MN_BUF_INIT;
    mn_store *s = NULL;
    snprintf(dir, sizeof(dir), "/tmp/mnemo-res-XXXXXX");
    REQUIRE(mkdtemp(dir));
    mn_buf_printf(&path, "%s/m.db", dir);
    REQUIRE_OK(mn_store_open(&s, path.ptr, NULL));
    mn_buf_release(&path);

    REQUIRE_OK(put(s, "src/_pytest/__init__.py", "python", NULL, NULL, NULL));
    REQUIRE_OK(put(s, "src/_pytest/pathlib.py", "python", NULL, NULL, NULL));
    REQUIRE_OK(put(s, "src/_pytest/main.py", "python", NULL,
                   (const char *const[]){"pathlib", "_pytest.pathlib", ".Flag", NULL}, NULL));
    REQUIRE_OK(put(s, "src/flask/__init__.py", "python", NULL, NULL, NULL));
    REQUIRE_OK(put(s, "tests/apps/__init__.py", "python", NULL, NULL, NULL));
    REQUIRE_OK(put(s, "tests/apps/inner/__init__.py", "python", NULL, NULL, NULL));
    REQUIRE_OK(put(s, "tests/apps/inner/flask.py", "python", NULL, NULL, NULL));
    REQUIRE_OK(put(s, "tests/conftest.py", "python", NULL,
                   (const char *const[]){"flask", "helper", NULL}, NULL));
    REQUIRE_OK(put(s, "tests/helper.py", "python", NULL, NULL, NULL));
    REQUIRE_OK(put(s, "scripts/helper.py", "python", NULL, NULL, NULL));
    REQUIRE_OK(
        put(s, "scripts/run.py", "python", NULL, (const char *const[]){"helper", NULL}, NULL));

    mn_resolve_stats st;
    REQUIRE_OK(mn_resolve_all(s, &st));
    TARGET("src/_pytest/main.py", "pathlib", "");
    TARGET("src/_pytest/main.py", "_pytest.pathlib", "src/_pytest/pathlib.py");
    TARGET("src/_pytest/main.py", ".Flag", "src/_pytest/__init__.py");
    TARGET("tests/conftest.py", "flask", "src/flask/__init__.py");
    TARGET("tests/conftest.py", "helper", "tests/helper.py");
    TARGET("scripts/run.py", "helper", "scripts/helper.py");
    CHECK(st.imports == 6 && st.imports_resolved == 5);
    CHECK_OK(mn_store_check(s));
    mn_store_free(s);
    mn_buf cmd = MN_BUF_INIT;
    mn_buf_printf(&cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd.ptr) == 0);
    mn_buf_release(&cmd);
}

MN_TEST_MAIN(MN_TEST(test_candidates), MN_TEST(test_resolve_in_store), MN_TEST(test_python_roots))
