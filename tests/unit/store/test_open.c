/*
 * test_open.c - what opening a store may do to a file (sqlite_store.c:
 * mn_store_open), checked on the files themselves with sqlite3 and stat:
 * another program's SQLite database (rollback journal or WAL, with or
 * without a "meta" table of its own) is refused and left byte for byte as
 * it was, with no journal, WAL or table added; `adopt` (mnemo init) makes
 * it a store; an empty file becomes a store only when creating is allowed;
 * a new store and its -wal/-shm are 0600, an older 0644 one is made so; a
 * store made before the application id gets it when opened writable (not
 * read-only); a read-only open says why writes are refused; a damaged page
 * of one table (the tokens, the memories) is MN_ECORRUPT from every part
 * of the back end that reads it, and the other tables still answer.
 */
#include "common.h"
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_search.h"
#include "store/store_tokens.h"
#include "util/digest.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"

#define APP_ID 0x6d6e6d6f /* "mnmo" */

static char tmp[64];
static int seq;

static char *new_path(void)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/f%d.db", tmp, ++seq);
    return mn_buf_detach(&p);
}

static char *side(const char *path, const char *suffix)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s%s", path, suffix);
    return mn_buf_detach(&p);
}

static bool side_exists(const char *path, const char *suffix)
{
    char *p = side(path, suffix);
    bool e = mn_fs_exists(p);
    free(p);
    return e;
}

static int mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int)(st.st_mode & 0777) : -1;
}

/* Run SQL with sqlite3 directly (another program writing its own database). */
static int sql_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

static int64_t sql_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static bool read_all(mn_buf *out, const char *path)
{
    mn_buf_clear(out);
    return mn_fs_read(out, path, 64u << 20) == 0;
}

static void test_setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-open-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    setenv("MNEMO_NOW_MS", "1795239445123", 1);
}

/* Open a foreign database every way a command may, and check nothing changed. */
static void check_refused(const char *path, const char *journal_mode)
{
    mn_buf before = MN_BUF_INIT, after = MN_BUF_INIT;
    int64_t objects = sql_int(path, "SELECT count(*) FROM sqlite_schema");
    REQUIRE(read_all(&before, path));
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    /* opened read-only (which no command does), SQLite itself leaves the -shm and an empty
     * -wal beside a WAL database it read: the file is still untouched */
    bool wal = strcmp(journal_mode, "wal") == 0;
    for (int i = 0; i < (wal ? 2 : 3); i++) {
        o.create = i != 1;
        o.read_only = i == 2;
        mn_store *s = (mn_store *)1;
        mn_error_clear();
        CHECK(mn_store_open(&s, path, &o) == MN_EINVAL);
        CHECK(s == NULL);
        CHECK(strstr(mn_error_last(), "is not a mnemo store") != NULL);
        CHECK(strstr(mn_error_last(), "untouched") != NULL);
    }
    CHECK(read_all(&after, path));
    CHECK(before.len == after.len && memcmp(before.ptr, after.ptr, before.len) == 0);
    CHECK(!side_exists(path, "-wal") && !side_exists(path, "-shm") &&
          !side_exists(path, "-journal") && !side_exists(path, "-wlock"));
    CHECK(sql_int(path, "SELECT count(*) FROM sqlite_schema") == objects);
    CHECK(sql_int(path, "PRAGMA user_version") == 0);
    CHECK(sql_int(path, "PRAGMA application_id") == 0);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    REQUIRE(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    REQUIRE(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK(strcmp((const char *)sqlite3_column_text(st, 0), journal_mode) == 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    mn_buf_release(&before);
    mn_buf_release(&after);
}

static void test_foreign_untouched(void)
{
    /* another program's database, in the default rollback-journal mode */
    char *a = new_path();
    REQUIRE(sql_exec(a, "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (2, 'y')") ==
            SQLITE_OK);
    check_refused(a, "delete");

    /* one in WAL mode (sqlite3 removed its -wal on close) */
    char *b = new_path();
    REQUIRE(sql_exec(b, "PRAGMA journal_mode=WAL; CREATE TABLE items(id INTEGER PRIMARY KEY); "
                        "INSERT INTO items VALUES (7)") == SQLITE_OK);
    check_refused(b, "wal");

    /* one with a "meta" table of its own: mnemo's name, not mnemo's rows */
    char *c = new_path();
    REQUIRE(sql_exec(c, "CREATE TABLE meta(key TEXT, value TEXT); "
                        "INSERT INTO meta VALUES ('written_by', 'someone else')") == SQLITE_OK);
    check_refused(c, "delete");
    char *d = new_path();
    REQUIRE(sql_exec(d, "CREATE TABLE meta(name, size)") == SQLITE_OK);
    check_refused(d, "delete");

    /* an empty SQLite database that is more than an empty file is someone's too */
    char *e = new_path();
    REQUIRE(sql_exec(e, "CREATE TABLE gone(a); DROP TABLE gone") == SQLITE_OK);
    struct stat st;
    CHECK(stat(e, &st) == 0 && st.st_size > 0);
    check_refused(e, "delete");

    /* mnemo init (adopt) makes one a store: its own table stays */
    mn_store *s = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.adopt = true;
    REQUIRE_OK(mn_store_open(&s, a, &o));
    mn_store_free(s);
    CHECK(sql_int(a, "PRAGMA application_id") == APP_ID);
    CHECK(sql_int(a, "PRAGMA user_version") == mn_store_schema_latest());
    CHECK(sql_int(a, "SELECT count(*) FROM t") == 2);
    /* and from then on it opens as any store */
    REQUIRE_OK(mn_store_open(&s, a, NULL));
    mn_store_free(s);
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
}

static void test_empty_file(void)
{
    char *p = new_path();
    REQUIRE(mn_fs_write_atomic(p, "", 0) == 0);
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_store *s = (mn_store *)1;
    o.create = false;
    CHECK(mn_store_open(&s, p, &o) == MN_ENOTFOUND);
    CHECK(s == NULL);
    CHECK(strstr(mn_error_last(), "empty file") != NULL);
    struct stat st;
    CHECK(stat(p, &st) == 0 && st.st_size == 0);
    CHECK(!side_exists(p, "-wal") && !side_exists(p, "-journal"));
    o.create = true;
    o.read_only = true;
    CHECK(mn_store_open(&s, p, &o) == MN_ENOTFOUND);
    CHECK(stat(p, &st) == 0 && st.st_size == 0);
    /* where creating is the command's job, it becomes a store */
    o.read_only = false;
    REQUIRE_OK(mn_store_open(&s, p, &o));
    mn_store_free(s);
    CHECK(sql_int(p, "PRAGMA application_id") == APP_ID);
    /* a missing file is not made by an open that may not create */
    char *q = new_path();
    o.create = false;
    CHECK(mn_store_open(&s, q, &o) == MN_ENOTFOUND);
    CHECK(!mn_fs_exists(q));
    free(p);
    free(q);
}

static void test_private_files(void)
{
    /* whatever the umask lets through, a new store and its -wal and -shm are the user's */
    mode_t old = umask(022);
    char *p = new_path();
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, p, NULL));
    CHECK(mode_of(p) == 0600);
    char *wal = side(p, "-wal"), *shm = side(p, "-shm");
    CHECK(mn_fs_exists(wal) && mode_of(wal) == 0600);
    CHECK(mn_fs_exists(shm) && mode_of(shm) == 0600);
    mn_store_free(s);

    /* a store an older mnemo left readable by everyone is made private when opened */
    CHECK(chmod(p, 0644) == 0);
    REQUIRE_OK(mn_store_open(&s, p, NULL));
    CHECK(mode_of(p) == 0600);
    CHECK(mode_of(wal) == 0600);
    mn_store_free(s);
    umask(old);
    free(wal);
    free(shm);
    free(p);
}

static void test_old_store_marked(void)
{
    /* a store made before the application id: known by meta, marked when opened writable */
    char *p = new_path();
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, p, NULL));
    mn_store_free(s);
    REQUIRE(sql_exec(p, "PRAGMA application_id = 0") == SQLITE_OK);
    REQUIRE(sql_int(p, "PRAGMA application_id") == 0);
    mn_store_options ro = MN_STORE_OPTIONS_INIT;
    ro.read_only = true;
    REQUIRE_OK(mn_store_open(&s, p, &ro));
    mn_store_free(s);
    CHECK(sql_int(p, "PRAGMA application_id") == 0);
    REQUIRE_OK(mn_store_open(&s, p, NULL));
    mn_store_free(s);
    CHECK(sql_int(p, "PRAGMA application_id") == APP_ID);
    free(p);
}

static void test_read_only_reason(void)
{
    char *p = new_path();
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, p, NULL));
    CHECK(!mn_store_read_only(s));
    CHECK(mn_store_read_only_reason(s) == NULL);
    mn_store_free(s);
    mn_store_options ro = MN_STORE_OPTIONS_INIT;
    ro.read_only = true;
    REQUIRE_OK(mn_store_open(&s, p, &ro));
    CHECK(mn_store_read_only(s));
    CHECK(mn_store_read_only_reason(s) && strstr(mn_store_read_only_reason(s), "read-only"));
    /* a write is refused with the reason, before SQLite is asked */
    CHECK(mn_store_begin(s) != 0);
    CHECK(strstr(mn_error_last(), "cannot be written") != NULL);
    mn_store_free(s);
    free(p);
}

/* The type byte of the first page of table `name` (2, 5, 10 or 13 in a sound file) made 0xff. */
static void damage_table(const char *path, const char *name)
{
    char sql[160];
    snprintf(sql, sizeof(sql),
             "SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = '%s'", name);
    int64_t root = sql_int(path, sql), size = sql_int(path, "PRAGMA page_size");
    REQUIRE(root > 1 && size > 0);
    FILE *f = fopen(path, "r+b");
    REQUIRE(f);
    REQUIRE(fseek(f, (long)((root - 1) * size), SEEK_SET) == 0);
    REQUIRE(fputc(0xff, f) == 0xff);
    REQUIRE(fclose(f) == 0);
}

static void test_damaged_page(void)
{
    char *path = new_path();
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_store *s = NULL;
    char hash[MN_SHA256_HEX];
    int64_t id = 0;
    memset(hash, 'a', sizeof(hash) - 1);
    hash[sizeof(hash) - 1] = '\0';
    mn_token t = {0, "reader", "p", "reader", 1000, 0, 0, 0};
    REQUIRE(mn_store_open(&s, path, &o) == 0);
    REQUIRE(mn_store_begin(s) == 0);
    REQUIRE(mn_store_token_add(s, &t, hash, &id) == 0);
    REQUIRE(mn_store_config_set(s, "k", "v") == 0);
    REQUIRE(mn_store_commit(s) == 0);
    mn_store_free(s); /* the last connection: the write-ahead log goes into the file */
    REQUIRE(!side_exists(path, "-wal"));
    damage_table(path, "tokens");

    REQUIRE(mn_store_open(&s, path, &o) == 0);
    mn_token *v = NULL;
    size_t n = 0;
    mn_token one;
    char stored[65];
    /* before one mapping served the back end, a damaged table read as an I/O error here */
    CHECK(mn_store_token_list(s, &v, &n) == MN_ECORRUPT);
    CHECK(strstr(mn_error_last(), "malformed") != NULL);
    CHECK(mn_store_token_find(s, hash, &one, stored) == MN_ECORRUPT);
    char *val = NULL;
    CHECK(mn_store_config_get(s, &val, "k") == 0); /* the other tables answer */
    CHECK(val && strcmp(val, "v") == 0);
    free(val);
    mn_store_free(s);
    free(path);
}

static void test_cleanup(void)
{
    rm_rf(tmp);
    CHECK(!mn_fs_exists(tmp));
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_foreign_untouched), MN_TEST(test_empty_file),
             MN_TEST(test_private_files), MN_TEST(test_old_store_marked),
             MN_TEST(test_read_only_reason), MN_TEST(test_damaged_page), MN_TEST(test_cleanup))
