/*
 * test_backend.c - the table of store back ends (store_backend.h, store.c):
 * what kind of store a location names (a path, a PostgreSQL URL or libpq
 * conninfo, another URL), the location shown without its password, a back
 * end that lacks a function failing with MN_EUNSUPPORTED that names it (and
 * calling through the ones it has), the SQLite back end filling every slot,
 * and a PostgreSQL location refused with nothing created while this build
 * has no back end for it.
 */
#include "common.h"
#include <dirent.h>
#include <unistd.h>

#include "store/store_backend.h"
#include "store/sqlite/sqlite_internal.h"
#include "test.h"

static void test_kind_of(void)
{
    static const struct {
        const char *loc;
        mn_store_kind kind;
    } cases[] = {
        {"/home/me/.mnemo/mnemo.db", MN_STORE_FILE},
        {"mnemo.db", MN_STORE_FILE},
        {"", MN_STORE_FILE},
        {"./service=team", MN_STORE_FILE}, /* the way to name such a file */
        {"/tmp/host=db", MN_STORE_FILE},
        {"hostile=1", MN_STORE_FILE}, /* not one of libpq's keywords */
        {"postgres:", MN_STORE_FILE}, /* no "//": a file name, as SQLite would take it */
        {"Service=team", MN_STORE_FILE},
        {"postgres://u:p@db.example:5432/mnemo", MN_STORE_POSTGRES},
        {"postgresql://db.example/mnemo", MN_STORE_POSTGRES},
        {"POSTGRESQL://db/mnemo", MN_STORE_POSTGRES},
        {"postgresql:///mnemo?host=/var/run/postgresql", MN_STORE_POSTGRES},
        {"service=team", MN_STORE_POSTGRES},
        {"  host = db dbname=mnemo", MN_STORE_POSTGRES},
        {"dbname=mnemo user=me", MN_STORE_POSTGRES},
        {"https://example.com/store", MN_STORE_URL},
        {"file:///tmp/x.db", MN_STORE_URL},
        {"postgresx://db/m", MN_STORE_URL},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
        mn_store_kind k = mn_store_kind_of(cases[i].loc);
        if (k != cases[i].kind)
            fprintf(stderr, "  '%s': kind %d, want %d\n", cases[i].loc, (int)k, (int)cases[i].kind);
        CHECK(k == cases[i].kind);
    }
}

static void test_redact(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"/home/me/.mnemo/mnemo.db", "/home/me/.mnemo/mnemo.db"},
        {"./password=x", "./password=x"}, /* a file's name is its name */
        {"postgres://u:s3cret@db.example:5432/mnemo", "postgres://u:***@db.example:5432/mnemo"},
        {"postgres://u@db.example/mnemo", "postgres://u@db.example/mnemo"},
        {"postgres://db.example/mnemo", "postgres://db.example/mnemo"},
        {"postgresql://u:p%40ss@h/d?sslmode=require", "postgresql://u:***@h/d?sslmode=require"},
        /* an unescaped '@' or '/' in the password is still all hidden */
        {"postgresql://u:a@b/c@h/d", "postgresql://u:***@h/d"},
        {"postgresql://h/d?password=s3cret&application_name=x",
         "postgresql://h/d?password=***&application_name=x"},
        {"postgresql://h/d?sslmode=require&sslpassword=k3y",
         "postgresql://h/d?sslmode=require&sslpassword=***"},
        {"service=team", "service=team"},
        {"host=db dbname=mnemo password=s3cret", "host=db dbname=mnemo password=***"},
        {"password = 's3 cr\\'et' host=db", "password = *** host=db"},
        {"host=db sslpassword=k3y user=me", "host=db sslpassword=*** user=me"},
        {"https://u:s3cret@example.com/x", "https://u:***@example.com/x"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
        char *r = mn_store_redact(cases[i].in);
        CHECK_STR(r, cases[i].out);
        free(r);
    }
}

/* ---- a back end with two functions of the table ---- */

static int began, closed;

static int partial_begin(mn_store *s)
{
    (void)s;
    began++;
    return 0;
}

static void partial_close(mn_store *s)
{
    closed++;
    free(s->path);
    free(s);
}

static const mn_store_backend partial = {
    .name = "partial",
    .close = partial_close,
    .begin = partial_begin,
};

static void test_missing_function(void)
{
    mn_store *s = mn_calloc(1, sizeof(*s));
    s->backend = &partial;
    s->path = mn_strdup("partial://team");
    /* a function it has is called through */
    CHECK_OK(mn_store_begin(s));
    CHECK(began == 1);
    /* one it lacks fails with one line naming the back end, the function and the store */
    json_t *mem = json_pack("{s:s}", "title", "x");
    CHECK(mn_store_memory_insert(s, mem) == MN_EUNSUPPORTED);
    CHECK(strstr(mn_error_last(), "the partial back end cannot do mn_store_memory_insert()"));
    CHECK(strstr(mn_error_last(), "partial://team"));
    CHECK(!strchr(mn_error_last(), '\n'));
    char *v = NULL;
    CHECK(mn_store_config_get(s, &v, "k") == MN_EUNSUPPORTED);
    CHECK(strstr(mn_error_last(), "mn_store_config_get()"));
    CHECK(v == NULL);
    CHECK(mn_store_commit(s) == MN_EUNSUPPORTED);
    mn_store_rollback(s); /* no rollback in the table: nothing to undo, no crash */
    CHECK(mn_store_schema_version(s) == 0);
    CHECK_STR(mn_store_backend_name(s), "partial");
    json_decref(mem);
    mn_store_free(s);
    CHECK(closed == 1);
    mn_store_free(NULL);
    CHECK(closed == 1);
}

/* the SQLite back end has every function of the list */
static void test_sqlite_complete(void)
{
    size_t missing = 0, slots = 0;
#define COUNT_SLOT(name, params, args)                          \
    slots++;                                                    \
    if (!mn_sqlite_backend.name) {                              \
        fprintf(stderr, "  sqlite lacks mn_store_%s\n", #name); \
        missing++;                                              \
    }
    MN_STORE_FUNCTIONS(COUNT_SLOT)
#undef COUNT_SLOT
    CHECK(missing == 0);
    CHECK(slots > 100);
    CHECK(mn_sqlite_backend.open && mn_sqlite_backend.close && mn_sqlite_backend.rollback);

    char dir[] = "/tmp/mnemo-backend.XXXXXX", path[64];
    REQUIRE(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/s.db", dir);
    mn_store *s = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    REQUIRE_OK(mn_store_open(&s, path, &o));
    CHECK_STR(mn_store_backend_name(s), "sqlite");
    CHECK_STR(mn_store_path(s), path);
    CHECK(mn_store_schema_version(s) == mn_store_schema_latest());
    mn_store_free(s);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    if (!d)
        return (size_t)-1;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* a PostgreSQL server that cannot be reached: one retryable error, redacted, nothing made */
static void test_postgres_unreachable(void)
{
    static const char *const locs[] = {
        "postgres://u:s3cret@db.example/mnemo",
        "postgresql://db.example/mnemo?password=s3cret",
        "service=team",
        "host=db dbname=mnemo password=s3cret",
    };
    char dir[] = "/tmp/mnemo-backend.XXXXXX", cwd[4096];
    REQUIRE(mkdtemp(dir));
    REQUIRE(getcwd(cwd, sizeof(cwd)));
    REQUIRE(chdir(dir) == 0);
    setenv("PGCONNECT_TIMEOUT", "3", 1);
    for (size_t i = 0; i < MN_ARRAY_SIZE(locs); i++) {
        mn_store *s = (mn_store *)&s;
        mn_store_options o = MN_STORE_OPTIONS_INIT;
        CHECK(mn_store_open(&s, locs[i], &o) == MN_EUNAVAILABLE);
        CHECK(s == NULL);
        CHECK(strstr(mn_error_last(), "PostgreSQL"));
        CHECK(!strstr(mn_error_last(), "s3cret"));
    }
    mn_store *s = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    CHECK(mn_store_open(&s, "https://u:s3cret@example.com/x", &o) == MN_EINVAL);
    CHECK(!strstr(mn_error_last(), "s3cret"));
    CHECK(entries(".") == 0);
    REQUIRE(chdir(cwd) == 0);
    CHECK(rmdir(dir) == 0);
}

MN_TEST_MAIN(MN_TEST(test_kind_of), MN_TEST(test_redact), MN_TEST(test_missing_function),
             MN_TEST(test_sqlite_complete), MN_TEST(test_postgres_unreachable))
