/*
 * test_testpaths.c - the test code a project declares (src/index/testpaths.c)
 * and the roles the index gives it: real manifests written to a temporary
 * tree (pytest's testpaths in pytest.ini, pyproject.toml, setup.cfg and
 * tox.ini, test trees only when python_files takes every file, so that
 * sympy's `testpaths = sympy` leaves its sources source; Jest's testMatch, testRegex and roots in
 * package.json; Maven's testSourceDirectory; a Gradle test source set, block and dotted; Cargo's
 * [[test]] path), paths normalised and kept inside the tree, broken
 * manifests adding nothing; then an index whose files under a declared
 * path are tests while the same tree without the declaration keeps them
 * source, and a changed declaration re-classifying the stored files.
 */
#include "common.h"
#include <sys/stat.h>
#include <unistd.h>

#include "index/index.h"
#include "index/testpaths.h"
#include "store/store_index.h"
#include "test.h"
#include "test_roles.h"

static char base[64];
static int seq;

static void mkdirs(const char *path)
{
    char *p = mn_strdup(path);
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            mkdir(p, 0755);
            *c = '/';
        }
    mkdir(p, 0755);
    free(p);
}

static void put(const char *root, const char *rel, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", root, rel);
    char *dir = mn_strdup(p.ptr);
    *strrchr(dir, '/') = '\0';
    mkdirs(dir);
    free(dir);
    FILE *f = fopen(p.ptr, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    mn_buf_release(&p);
}

static void new_root(char *root, size_t size)
{
    snprintf(root, size, "%s/r%d", base, ++seq);
    mkdirs(root);
}

static bool has(const mn_test_paths *tp, const char *path)
{
    for (size_t i = 0; i < tp->n; i++)
        if (!strcmp(tp->paths[i], path))
            return true;
    return false;
}

static void test_pytest(void)
{
    char root[256];
    mn_test_paths tp;
    new_root(root, sizeof(root));
    /* python_files takes every file: the testpaths are test trees */
    put(root, "pytest.ini", "[pytest]\ntestpaths = testing doc/en\npython_files = *.py\n");
    put(root, "pyproject.toml",
        "[tool.pytest.ini_options]\ntestpaths = [\"./checks/\", \"../outside\"]\n"
        "python_files = [\"*.py\"]\n");
    put(root, "setup.cfg",
        "[tool:pytest]\ntestpaths =\n    \"suite\"\n    more\npython_files = '*.py'\n");
    put(root, "tox.ini",
        "[pytest]\ntestpaths = tox_tests\npython_files = check_*.py\n[testenv]\ncommands = "
        "pytest\n");
    mn_test_paths_read(&tp, root);
    CHECK(has(&tp, "testing") && has(&tp, "doc/en") && has(&tp, "checks"));
    CHECK(has(&tp, "suite") && has(&tp, "more") && has(&tp, "tox_tests"));
    CHECK(!has(&tp, "../outside") && !has(&tp, "outside"));
    CHECK(tp.n == 6 && tp.hash != 0);
    CHECK(mn_test_paths_has(&tp, "testing/python/fixtures.py"));
    CHECK(mn_test_paths_has(&tp, "testing"));
    CHECK(!mn_test_paths_has(&tp, "testing2/x.py"));
    CHECK(!mn_test_paths_has(&tp, "src/testing/x.py"));
    mn_test_paths_release(&tp);

    /* sympy: the package is the testpath and python_files the default; its
     * sources are no tests (everything under sympy/ was, before) */
    new_root(root, sizeof(root));
    put(root, "pytest.ini", "[pytest]\ntestpaths = sympy doc/src\nnorecursedirs = x\n");
    mn_test_paths_read(&tp, root);
    CHECK(tp.n == 0 && tp.hash == 0);
    CHECK(!mn_test_paths_has(&tp, "sympy/core/mul.py"));
    mn_test_paths_release(&tp);
    /* patterns that name test files: the roots hold sources too (scikit-learn,
     * matplotlib); pytest's own, a pattern with a directory, names that directory */
    new_root(root, sizeof(root));
    put(root, "setup.cfg", "[tool:pytest]\ntestpaths = sklearn\npython_files = test_*.py\n");
    put(root, "pyproject.toml",
        "[tool.pytest.ini_options]\ntestpaths = [\"testing\"]\n"
        "python_files = [\"test_*.py\", \"*_test.py\", \"testing/python/*.py\"]\n");
    mn_test_paths_read(&tp, root);
    CHECK(tp.n == 1 && has(&tp, "testing/python"));
    CHECK(!mn_test_paths_has(&tp, "sklearn/linear_model/_base.py"));
    CHECK(mn_test_paths_has(&tp, "testing/python/fixtures.py"));
    CHECK(!mn_test_paths_has(&tp, "testing/helpers.py")); /* classify.c's top-level testing/ */
    mn_test_paths_release(&tp);
}

static void test_jest(void)
{
    char root[256];
    mn_test_paths tp;
    new_root(root, sizeof(root));
    /* the patterns take every file under the roots: the roots are tests */
    put(root, "package.json",
        "{\"name\": \"x\", \"jest\": {\"roots\": [\"<rootDir>/qa\"], "
        "\"testMatch\": [\"<rootDir>/checks/**/*.js\", \"**/*.mjs\"], "
        "\"testRegex\": \"/suite/.*\\\\.js$\"}}");
    mn_test_paths_read(&tp, root);
    CHECK(has(&tp, "checks") && has(&tp, "suite") && has(&tp, "qa"));
    CHECK(tp.n == 3);
    mn_test_paths_release(&tp);
    /* patterns that name test files: the roots hold sources too */
    new_root(root, sizeof(root));
    put(root, "package.json",
        "{\"jest\": {\"roots\": [\"<rootDir>/src\"], \"testMatch\": "
        "[\"**/?(*.)+(spec|test).js\"]}}");
    put(root, "jest.config.json", "{\"testRegex\": [\"^e2e-suite/.*\"]}");
    mn_test_paths_read(&tp, root);
    CHECK(!has(&tp, "src") && has(&tp, "e2e-suite") && tp.n == 1);
    mn_test_paths_release(&tp);
    /* create-react-app's testMatch and a testRegex that name the test files under src/: src
     * holds the sources too */
    new_root(root, sizeof(root));
    put(root, "package.json",
        "{\"jest\": {\"roots\": [\"<rootDir>/src\"], \"testMatch\": "
        "[\"<rootDir>/src/**/__tests__/**/*.{js,jsx}\", "
        "\"<rootDir>/src/**/*.{spec,test}.{js,jsx}\"], "
        "\"testRegex\": \"^lib/.*\\\\.test\\\\.js$\"}}");
    mn_test_paths_read(&tp, root);
    CHECK(tp.n == 0 && !mn_test_paths_has(&tp, "src/App.js"));
    mn_test_paths_release(&tp);
    /* broken JSON adds nothing */
    new_root(root, sizeof(root));
    put(root, "package.json", "{\"jest\": {\"testMatch\": [\"<rootDir>/x/**\"");
    mn_test_paths_read(&tp, root);
    CHECK(tp.n == 0 && tp.hash == 0);
    mn_test_paths_release(&tp);
}

static void test_jvm_and_cargo(void)
{
    char root[256];
    mn_test_paths tp;
    new_root(root, sizeof(root));
    put(root, "pom.xml",
        "<project><build><sourceDirectory>src/java</sourceDirectory>"
        "<testSourceDirectory>src/unit/java</testSourceDirectory>"
        "<testSourceDirectory>${project.basedir}/x</testSourceDirectory></build></project>\n");
    put(root, "build.gradle",
        "plugins { id 'java' }\n"
        "sourceSets {\n"
        "    main {\n        java { srcDirs = ['src/java'] }\n    }\n"
        "    test {\n        java {\n            srcDirs = ['src/it/java', \"src/fn/java\"]\n"
        "        }\n    }\n"
        "}\n"
        "sourceSets.test.java.srcDir 'extra/checks'\n");
    put(root, "Cargo.toml",
        "[package]\nname = \"x\"\n\n[[test]]\nname = \"integ\"\npath = \"checks/integ.rs\"\n");
    mn_test_paths_read(&tp, root);
    CHECK(has(&tp, "src/unit/java") && has(&tp, "src/it/java") && has(&tp, "src/fn/java"));
    CHECK(has(&tp, "extra/checks") && has(&tp, "checks/integ.rs"));
    CHECK(!has(&tp, "src/java")); /* the main source set */
    CHECK(tp.n == 5);
    CHECK(mn_test_paths_has(&tp, "checks/integ.rs") && !mn_test_paths_has(&tp, "checks/lib.rs"));
    mn_test_paths_release(&tp);
}

/* The index: declared paths are tests; the declaration changed, the files follow. */
static void test_index_roles(void)
{
    char root[256];
    new_root(root, sizeof(root));
    put(root, "src/pkg/core.py", "def parse():\n    return 1\n");
    put(root, "testing/python/fixtures.py", "def fixture_value():\n    return 2\n");
    put(root, "checks/run_all.py", "def run_all():\n    return 3\n");
    mn_store *s = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/db%d.sqlite", base, seq);
    REQUIRE_OK(mn_store_open(&s, db.ptr, &o));
    mn_buf_release(&db);
    mn_index_options io = MN_INDEX_OPTIONS_INIT;
    mn_index_stats is;
    io.threads = 1;
    io.history = false;
    test_role_query r;
    /* nothing declared: names alone (checks/ is no test directory) */
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(!strcmp(stored_role(s, "checks/run_all.py", &r), "source"));
    /* a collection root under the default python_files: its files keep their roles */
    put(root, "pytest.ini", "[pytest]\ntestpaths = checks src\n");
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(!strcmp(stored_role(s, "checks/run_all.py", &r), "source"));
    CHECK(!strcmp(stored_role(s, "src/pkg/core.py", &r), "source"));
    /* declared, every file under it collected: a test, on the next run, though the file did
     * not change */
    put(root, "pytest.ini", "[pytest]\ntestpaths = checks\npython_files = *.py\n");
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(!strcmp(stored_role(s, "checks/run_all.py", &r), "test"));
    CHECK(!strcmp(stored_role(s, "src/pkg/core.py", &r), "source"));
    CHECK(!strcmp(stored_role(s, "pytest.ini", &r), "config") ||
          !strcmp(stored_role(s, "pytest.ini", &r), "build"));
    /* the declaration gone: source again */
    put(root, "pytest.ini", "[pytest]\naddopts = -q\n");
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(!strcmp(stored_role(s, "checks/run_all.py", &r), "source"));
    mn_store_free(s);
}

static void setup(void)
{
    snprintf(base, sizeof(base), "/tmp/mnemo-test-testpaths-XXXXXX");
    if (!mkdtemp(base))
        abort();
}

static void teardown(void)
{
    mn_buf cmd = MN_BUF_INIT;
    mn_buf_printf(&cmd, "rm -rf '%s'", base);
    if (system(cmd.ptr) != 0)
        fprintf(stderr, "cannot remove %s\n", base);
    mn_buf_release(&cmd);
}

MN_TEST_MAIN(MN_TEST(setup), MN_TEST(test_pytest), MN_TEST(test_jest), MN_TEST(test_jvm_and_cargo),
             MN_TEST(test_index_roles), MN_TEST(teardown))
