/*
 * test_wal_guard.c - the WAL guard (store/sqlite/wal_guard.h), on real
 * SQLite connections: without it (the control) a checkpoint runs while
 * another connection writes; with it, it is "busy" until the write
 * commits; a writer waits while anyone else (another open file: another
 * process, or a connection of this one) holds the guard's lock; a
 * database opened through the guard's VFS but never enabled (another
 * program's) gets no -wlock; a store opened by mnemo gets a private one;
 * the purge's TRUNCATE checkpoint waits for another connection's writes
 * instead of failing beside them.
 */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_scan.h"
#include "store/sqlite/wal_guard.h"
#include "util/util.h"
#include "test.h"

static char tmp[64];
static int seq;

static void test_setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-walguard-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    REQUIRE(mn_wal_guard_register() == SQLITE_OK);
}

static char *new_path(void)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/g%d.db", tmp, ++seq);
    return mn_buf_detach(&p);
}

static char *lock_of(const char *path)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s-wlock", path);
    return mn_buf_detach(&p);
}

/* A connection in WAL mode, through the guard (enabled) or the default VFS. */
static sqlite3 *connect(const char *path, bool guard)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        guard ? MN_WAL_GUARD_VFS : NULL) != SQLITE_OK)
        return NULL;
    if (guard) {
        char *lock = lock_of(path);
        int rc = mn_wal_guard_enable(db, lock);
        free(lock);
        if (rc != SQLITE_OK) {
            sqlite3_close(db);
            return NULL;
        }
    }
    if (sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0", NULL, NULL,
                     NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

static int exec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

static int checkpoint(sqlite3 *db)
{
    int log = -1, done = -1;
    return sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
}

/* While a writes (its transaction open, frames in the log), b checkpoints: what b gets. */
static int checkpoint_beside_a_write(bool guard)
{
    char *path = new_path();
    sqlite3 *a = connect(path, guard), *b = connect(path, guard);
    int rc = -1;
    if (a && b && exec(a, "CREATE TABLE t(x); INSERT INTO t VALUES (randomblob(9000))") == 0 &&
        exec(a, "BEGIN IMMEDIATE; INSERT INTO t VALUES (randomblob(9000))") == 0) {
        rc = checkpoint(b);
        if (exec(a, "COMMIT") != SQLITE_OK)
            rc = -2;
        /* after the commit the checkpoint runs, guarded or not */
        if (rc != -2 && checkpoint(b) != SQLITE_OK)
            rc = -3;
    }
    sqlite3_close(a);
    sqlite3_close(b);
    free(path);
    return rc;
}

static void test_checkpoint_waits_for_the_write(void)
{
    CHECK(checkpoint_beside_a_write(false) == SQLITE_OK); /* SQLite alone lets them overlap */
    CHECK(checkpoint_beside_a_write(true) == SQLITE_BUSY);
}

static void test_writer_waits_for_the_lock(void)
{
    char *path = new_path(), *lock = lock_of(path);
    sqlite3 *a = connect(path, true);
    REQUIRE(a);
    REQUIRE(exec(a, "CREATE TABLE t(x)") == SQLITE_OK);
    sqlite3_busy_timeout(a, 50);
    /* someone else holds the guard's lock (a checkpoint of another process, say) */
    int fd = open(lock, O_RDWR | O_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(flock(fd, LOCK_EX | LOCK_NB) == 0);
    CHECK((exec(a, "BEGIN IMMEDIATE") & 0xff) == SQLITE_BUSY);
    exec(a, "ROLLBACK");
    CHECK((exec(a, "INSERT INTO t VALUES (1)") & 0xff) == SQLITE_BUSY); /* autocommit too */
    close(fd);
    CHECK(exec(a, "BEGIN IMMEDIATE; INSERT INTO t VALUES (2); COMMIT") == SQLITE_OK);
    /* the lock is given back with the write: another can take it */
    fd = open(lock, O_RDWR | O_CLOEXEC);
    CHECK(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
    if (fd >= 0)
        close(fd);
    struct stat st;
    CHECK(stat(lock, &st) == 0 && (st.st_mode & 0777) == 0600);
    sqlite3_close(a);
    free(lock);
    free(path);
}

static void test_not_enabled_untouched(void)
{
    char *path = new_path(), *lock = lock_of(path);
    sqlite3 *db = NULL;
    REQUIRE(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                            MN_WAL_GUARD_VFS) == SQLITE_OK);
    CHECK(exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)") ==
          SQLITE_OK);
    CHECK(checkpoint(db) == SQLITE_OK);
    CHECK(access(lock, F_OK) != 0);
    sqlite3_close(db);
    free(lock);
    free(path);
}

/* A store at path, opened by mnemo, with one setting written (its -wlock made). */
static mn_store *written_store(const char *path)
{
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_store *s = NULL;
    if (mn_store_open(&s, path, &o) != 0)
        return NULL;
    if (mn_store_begin(s) != 0 || mn_store_config_set(s, "k", "v") != 0 ||
        mn_store_commit(s) != 0) {
        mn_store_free(s);
        return NULL;
    }
    return s;
}

static void test_store_guarded(void)
{
    char *path = new_path(), *lock = lock_of(path);
    mn_store *s = written_store(path);
    REQUIRE(s);
    struct stat st;
    CHECK(stat(lock, &st) == 0 && (st.st_mode & 0777) == 0600);
    /* a writer of the store waits while the lock is held elsewhere */
    int fd = open(lock, O_RDWR | O_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(flock(fd, LOCK_EX | LOCK_NB) == 0);
    mn_store_options quick = MN_STORE_OPTIONS_INIT;
    quick.busy_timeout_ms = 30;
    mn_store *s2 = NULL;
    REQUIRE(mn_store_open(&s2, path, &quick) == 0);
    CHECK(mn_store_begin(s2) == MN_EBUSY);
    close(fd);
    CHECK_OK(mn_store_begin(s2));
    mn_store_rollback(s2);
    mn_store_free(s2);
    mn_store_free(s);
    free(lock);
    free(path);
}

/* Another connection of the store writing, a few ms per transaction, until told to stop. */
typedef struct {
    const char *path;
    atomic_int stop, writes, failed;
} writer_arg;

static void *keep_writing(void *p)
{
    writer_arg *w = p;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_store *s = NULL;
    if (mn_store_open(&s, w->path, &o) != 0) {
        w->failed++;
        return NULL;
    }
    while (!w->stop) {
        if (mn_store_begin(s) != 0) {
            w->failed++;
            mn_error_clear();
            continue;
        }
        char v[32];
        snprintf(v, sizeof(v), "%d", atomic_load(&w->writes));
        int rc = mn_store_config_set(s, "beside", v);
        usleep(3000); /* the write transaction stays open: the guard's lock is held */
        if (rc == 0 && mn_store_commit(s) == 0)
            w->writes++;
        else {
            mn_store_rollback(s);
            w->failed++;
            mn_error_clear();
        }
        usleep(1000);
    }
    mn_store_free(s);
    return NULL;
}

/*
 * SQLite tries a checkpoint's lock once, and the guard holds it for every
 * write: the purge (`mnemo scan --fix`: VACUUM, then a TRUNCATE checkpoint
 * so that no old frame keeps a secret) failed at once with "cannot
 * checkpoint" whenever another process wrote beside it.
 */
static void test_purge_beside_writes(void)
{
    char *path = new_path();
    mn_store *s = written_store(path);
    REQUIRE(s);
    writer_arg w = {.path = path};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, keep_writing, &w) == 0);
    while (w.writes < 3 && !w.failed)
        usleep(1000);
    int purged = 0;
    for (int i = 0; i < 10; i++)
        if (mn_store_purge_freed(s) == 0)
            purged++;
        else
            mn_error_clear();
    w.stop = 1;
    pthread_join(t, NULL);
    CHECK(purged == 10);
    CHECK(w.failed == 0 && w.writes > 3);
    mn_store_free(s);
    free(path);
}

static void test_cleanup(void)
{
    mn_buf cmd = MN_BUF_INIT;
    mn_buf_printf(&cmd, "rm -rf '%s'", tmp);
    CHECK(system(cmd.ptr) == 0);
    mn_buf_release(&cmd);
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_checkpoint_waits_for_the_write),
             MN_TEST(test_writer_waits_for_the_lock), MN_TEST(test_not_enabled_untouched),
             MN_TEST(test_store_guarded), MN_TEST(test_purge_beside_writes), MN_TEST(test_cleanup))
