/*
 * test_store.h - one store test suite, two back ends: where a store test
 * makes its stores, and how it looks at them from outside mnemo.
 *
 * Without MNEMO_TEST_PG a new store is a file in the test's scratch
 * directory (SQLite). With MNEMO_TEST_PG set to a libpq conninfo (CTest's
 * "pg" tests set it to the throwaway cluster scripts/pg_cluster.sh starts,
 * tests/CMakeLists.txt), each new store is a new, empty database on that
 * server, mnemo_t<pid>_<n>, named by the conninfo with a dbname appended
 * (libpq: the last value of a keyword wins); test_store_drop_all drops
 * them. test_store_sql_int/_text/_exec run SQL on a store with the back
 * end's own client library (sqlite3 or libpq, never through mnemo), so a
 * test checks stored facts without trusting the code it tests; SQL common
 * to both dialects (SELECT count(*) FROM links) runs on either.
 *
 * A test that checks what only SQLite has (PRAGMAs, the file, FTS5)
 * starts with TEST_SQLITE_ONLY("why"): on PostgreSQL it prints
 * "skip on postgresql: <test>: <why>" and counts as skipped, never as
 * passed silently. Include after common.h and test.h.
 */
#ifndef MN_TEST_STORE_H
#define MN_TEST_STORE_H

#include <sqlite3.h>
#include <unistd.h>

#include "store/store.h"
#include "util/libs.h"

static int test_store__seq;
static char test_store__dbs[64][48]; /* the databases made on PostgreSQL, to drop */
static int test_store__ndbs;

/* The PostgreSQL server the tests run on (a conninfo), or NULL: SQLite. */
static inline const char *test_store_pg(void)
{
    const char *v = getenv("MNEMO_TEST_PG");
    return v && *v ? v : NULL;
}

#define TEST_SQLITE_ONLY(why)                                      \
    do {                                                           \
        if (test_store_pg()) {                                     \
            printf("skip on postgresql: %s: %s\n", __func__, why); \
            return;                                                \
        }                                                          \
    } while (0)

/* Run sql on a PostgreSQL conninfo; the result (cleared by the caller) or NULL. */
static inline PGresult *test_store__pg_run(const char *conninfo, const char *sql, PGconn **conn)
{
    const mn_pq_api *pq = mn_libs_pq();
    if (!pq)
        return NULL;
    *conn = pq->connectdb(conninfo);
    if (pq->status(*conn) != CONNECTION_OK) {
        fprintf(stderr, "test_store: cannot connect: %s", pq->errorMessage(*conn));
        pq->finish(*conn);
        *conn = NULL;
        return NULL;
    }
    PGresult *r = pq->exec(*conn, sql);
    ExecStatusType st = pq->resultStatus(r);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        fprintf(stderr, "test_store: %s: %s", sql, pq->resultErrorMessage(r));
        pq->clear(r);
        pq->finish(*conn);
        *conn = NULL;
        return NULL;
    }
    return r;
}

/* Run sql on the maintenance database of MNEMO_TEST_PG; 0 or -1. */
static inline int test_store__pg_admin(const char *sql)
{
    PGconn *c;
    PGresult *r = test_store__pg_run(test_store_pg(), sql, &c);
    if (!r)
        return -1;
    mn_libs_pq()->clear(r);
    mn_libs_pq()->finish(c);
    return 0;
}

/*
 * The location of a new, not yet existing store (malloc'd): a file in dir
 * on SQLite, a new empty database on PostgreSQL (NULL if it cannot be made).
 */
static inline char *test_store_new(const char *dir)
{
    mn_buf b = MN_BUF_INIT;
    int n = ++test_store__seq;
    if (!test_store_pg()) {
        mn_buf_printf(&b, "%s/db%d.sqlite", dir ? dir : ".", n);
        return mn_buf_detach(&b);
    }
    if (test_store__ndbs == (int)MN_ARRAY_SIZE(test_store__dbs))
        return NULL;
    char *name = test_store__dbs[test_store__ndbs];
    snprintf(name, sizeof(test_store__dbs[0]), "mnemo_t%ld_%d", (long)getpid(), n);
    mn_buf_printf(&b, "CREATE DATABASE %s", name);
    int rc = test_store__pg_admin(b.ptr);
    mn_buf_release(&b);
    if (rc)
        return NULL;
    test_store__ndbs++;
    mn_buf_printf(&b, "%s dbname=%s", test_store_pg(), name);
    return mn_buf_detach(&b);
}

/* Drop every database test_store_new made (PostgreSQL); nothing on SQLite. */
static inline void test_store_drop_all(void)
{
    for (int i = 0; i < test_store__ndbs; i++) {
        mn_buf sql = MN_BUF_INIT;
        mn_buf_printf(&sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", test_store__dbs[i]);
        test_store__pg_admin(sql.ptr);
        mn_buf_release(&sql);
    }
    test_store__ndbs = 0;
}

/* The first column of the first row of sql run on the store at location, as text (malloc'd); NULL
 * for SQL NULL, no row or an error. */
static inline char *test_store_sql_text(const char *location, const char *sql)
{
    char *v = NULL;
    if (mn_store_kind_of(location) == MN_STORE_POSTGRES) {
        PGconn *c;
        PGresult *r = test_store__pg_run(location, sql, &c);
        if (!r)
            return NULL;
        if (mn_libs_pq()->ntuples(r) > 0 && !mn_libs_pq()->getisnull(r, 0, 0))
            v = mn_strdup(mn_libs_pq()->getvalue(r, 0, 0));
        mn_libs_pq()->clear(r);
        mn_libs_pq()->finish(c);
        return v;
    }
    sqlite3 *db;
    sqlite3_stmt *st;
    if (sqlite3_open_v2(location, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
            v = mn_strdup((const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    } else {
        fprintf(stderr, "test_store: %s: %s\n", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return v;
}

/* The same as an integer; -1 on error (or SQL NULL); PostgreSQL's booleans t and f are 1 and 0. */
static inline int64_t test_store_sql_int(const char *location, const char *sql)
{
    char *t = test_store_sql_text(location, sql);
    int64_t v = !t ? -1 : !strcmp(t, "t") ? 1 : !strcmp(t, "f") ? 0 : strtoll(t, NULL, 10);
    free(t);
    return v;
}

/* Run statements on the store at location (SQLite: with its triggers off); 0 or -1. */
static inline int test_store_sql_exec(const char *location, const char *sql)
{
    if (mn_store_kind_of(location) == MN_STORE_POSTGRES) {
        PGconn *c;
        PGresult *r = test_store__pg_run(location, sql, &c);
        if (!r)
            return -1;
        mn_libs_pq()->clear(r);
        mn_libs_pq()->finish(c);
        return 0;
    }
    sqlite3 *db;
    char *err = NULL;
    if (sqlite3_open(location, &db) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0);
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK)
        fprintf(stderr, "test_store: %s: %s\n", sql, err ? err : "?");
    sqlite3_free(err);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

#endif
