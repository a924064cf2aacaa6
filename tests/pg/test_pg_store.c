/*
 * test_pg_store.c - what only the PostgreSQL back end has, on the throwaway
 * cluster MNEMO_TEST_PG names (registered only as the CTest test pg/pg_store,
 * label pg): opening makes the schema (meta's version, written_by, the
 * project), a second project in one database sees nothing of the first, a
 * database of another program and one of a newer mnemo are refused and left
 * as they were, a missing store is not made by a read-only open, the
 * password never shows, a broken connection is opened again between
 * transactions while inside one the statement fails as retryable and the
 * transaction is lost whole, two handles on one project write one after
 * the other (the advisory lock), and a read transaction sees one snapshot;
 * a store of schema 2 (the released migrations, run as the code of that
 * version ran them) migrates with every memory and link kept, and its ids
 * are then unique per project (schema v3).
 * Every fact about the database is read with libpq directly.
 */
#include "common.h"

#include "store/store.h"
#include "test.h"
#include "test_json.h"
#include "test_store.h"

extern const char *const mn_pg_schemas[];
extern const size_t mn_pg_schemas_count;

#define ID_A "01J0000000000000000000000A"
#define ID_B "01J0000000000000000000000B"

static json_t *memory(const char *id, const char *title)
{
    json_t *m = J("{'id':'','kind':'fact','level':'L1','title':'','body':'',"
                  "'provenance':{'source':'manual'},'status':'active','confidence':0.9,"
                  "'created_at':'2026-01-01T00:00:00.000Z','updated_at':'2026-01-01T00:00:00.000Z',"
                  "'counters':{'hits':0,'used':0,'ignored':0}}");
    json_object_set_new(m, "id", json_string(id));
    json_object_set_new(m, "title", json_string(title));
    return m;
}

static int insert(mn_store *s, const char *id, const char *title)
{
    json_t *m = memory(id, title);
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_memory_insert(s, m)) == 0)
        rc = mn_store_commit(s);
    else if (rc)
        mn_store_rollback(s);
    json_decref(m);
    return rc;
}

static void test_requires_server(void)
{
    /* this file is only registered with the cluster; without it, it fails rather than pass */
    REQUIRE(test_store_pg() != NULL);
}

static void test_open_creates_schema(void)
{
    char *loc = test_store_new(NULL);
    REQUIRE(loc);
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, loc, NULL));
    CHECK_STR(mn_store_backend_name(s), "postgresql");
    CHECK(mn_store_schema_version(s) == (int)mn_pg_schemas_count);
    CHECK_STR(mn_store_path(s), loc);
    CHECK_OK(insert(s, ID_A, "survives reopening"));
    CHECK_OK(mn_store_check(s));
    mn_store_free(s);

    char want[16];
    snprintf(want, sizeof(want), "%zu", mn_pg_schemas_count);
    char *v = test_store_sql_text(loc, "SELECT value FROM meta WHERE key = 'schema_version'");
    CHECK_STR(v, want);
    free(v);
    v = test_store_sql_text(loc, "SELECT value FROM meta WHERE key = 'written_by'");
    CHECK(v && strncmp(v, "mnemo ", 6) == 0);
    free(v);
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM projects WHERE name = 'default'") == 1);

    /* reopening migrates nothing and sees what was written */
    REQUIRE_OK(mn_store_open(&s, loc, NULL));
    json_t *got = NULL;
    CHECK_OK(mn_store_memory_get(s, &got, ID_A));
    CHECK_STR(json_string_value(json_object_get(got, "title")), "survives reopening");
    json_decref(got);
    mn_store_free(s);

    /* a second project in the same database sees none of the first one's memories */
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    REQUIRE_OK(mn_store_open(&s, loc, &o));
    CHECK(mn_store_memory_get(s, &got, ID_A) == MN_ENOTFOUND);
    char out[MN_ID_LEN + 1];
    CHECK(mn_store_memory_resolve(s, out, "01J") == MN_ENOTFOUND);
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    int64_t n = -1;
    CHECK_OK(mn_store_memory_count(s, &f, &n));
    CHECK(n == 0);
    mn_store_free(s);
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM projects") == 2);
    free(loc);
}

static void test_refusals(void)
{
    mn_store *s = (mn_store *)1;
    mn_store_options o = MN_STORE_OPTIONS_INIT;

    /* an empty database is not made a store by an open that may not create */
    char *empty = test_store_new(NULL);
    REQUIRE(empty);
    o.create = false;
    CHECK(mn_store_open(&s, empty, &o) == MN_ENOTFOUND);
    CHECK(s == NULL);
    CHECK(strstr(mn_error_last(), "mnemo init") != NULL);
    CHECK(test_store_sql_int(empty, "SELECT count(*) FROM pg_tables WHERE schemaname = "
                                    "current_schema()") == 0);
    o = (mn_store_options)MN_STORE_OPTIONS_INIT;
    o.read_only = true;
    CHECK(mn_store_open(&s, empty, &o) != 0);
    CHECK(test_store_sql_int(empty, "SELECT count(*) FROM pg_tables WHERE schemaname = "
                                    "current_schema()") == 0);

    /* another program's database: refused, untouched */
    char *foreign = test_store_new(NULL);
    REQUIRE(foreign);
    REQUIRE(test_store_sql_exec(foreign, "CREATE TABLE orders(id int); INSERT INTO orders "
                                         "VALUES (1)") == 0);
    CHECK(mn_store_open(&s, foreign, NULL) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "is not a mnemo store") != NULL);
    CHECK(test_store_sql_int(foreign, "SELECT count(*) FROM pg_tables WHERE schemaname = "
                                      "current_schema()") == 1);
    /* mnemo init adopts it: mnemo's tables beside the program's */
    o = (mn_store_options)MN_STORE_OPTIONS_INIT;
    o.adopt = true;
    REQUIRE_OK(mn_store_open(&s, foreign, &o));
    mn_store_free(s);
    CHECK(test_store_sql_int(foreign, "SELECT count(*) FROM orders") == 1);

    /* a store of a newer mnemo: refused, read-only too, and left at its version */
    char *newer = test_store_new(NULL);
    REQUIRE(newer);
    REQUIRE_OK(mn_store_open(&s, newer, NULL));
    mn_store_free(s);
    char sql[128];
    snprintf(sql, sizeof(sql), "UPDATE meta SET value = '%zu' WHERE key = 'schema_version'",
             mn_pg_schemas_count + 1);
    REQUIRE(test_store_sql_exec(newer, sql) == 0);
    CHECK(mn_store_open(&s, newer, NULL) == MN_EVERSION);
    CHECK(strstr(mn_error_last(), "newer") != NULL);
    o = (mn_store_options)MN_STORE_OPTIONS_INIT;
    o.read_only = true;
    CHECK(mn_store_open(&s, newer, &o) == MN_EVERSION);
    CHECK(test_store_sql_int(newer, "SELECT value FROM meta WHERE key = 'schema_version'") ==
          (int64_t)mn_pg_schemas_count + 1);

    /* a database that does not exist: one error, retryable, without the password */
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s dbname=mnemo_no_such_db password=s3cret", test_store_pg());
    CHECK(mn_store_open(&s, b.ptr, NULL) == MN_EUNAVAILABLE);
    CHECK(strstr(mn_error_last(), "mnemo_no_such_db") != NULL);
    CHECK(strstr(mn_error_last(), "s3cret") == NULL);
    CHECK(strstr(mn_error_last(), "password=***") != NULL);
    mn_buf_release(&b);
    free(empty);
    free(foreign);
    free(newer);
}

/* Terminate the store's server session from another connection, as a server restart does. */
static int kill_sessions(const char *loc)
{
    /* this test's database only: the other tests' sessions on the cluster run on */
    return test_store_sql_exec(loc, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    "WHERE application_name = 'mnemo' AND datname = "
                                    "current_database() AND pid <> pg_backend_pid()");
}

static void test_broken_connection(void)
{
    char *loc = test_store_new(NULL);
    REQUIRE(loc);
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, loc, NULL));
    CHECK_OK(insert(s, ID_A, "before"));

    /* between transactions: the statement that finds the connection gone opens it again and
     * runs once more (outside a transaction every statement is a read, or BEGIN) */
    REQUIRE(kill_sessions(loc) == 0);
    json_t *got = NULL;
    CHECK_OK(mn_store_memory_get(s, &got, ID_A));
    json_decref(got);
    REQUIRE(kill_sessions(loc) == 0);
    CHECK_OK(insert(s, ID_B, "between"));
    REQUIRE_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_purge(s, ID_B));
    CHECK_OK(mn_store_commit(s));

    /* inside a transaction: retryable error, nothing half-written, and the handle recovers */
    REQUIRE_OK(mn_store_begin(s));
    json_t *m = memory(ID_B, "half");
    CHECK_OK(mn_store_memory_insert(s, m));
    REQUIRE(kill_sessions(loc) == 0);
    CHECK(mn_store_config_set(s, "k", "v") == MN_EUNAVAILABLE);
    CHECK(strstr(mn_error_last(), "retry") != NULL);
    mn_store_rollback(s);
    json_decref(m);
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM memories") == 1);
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM config") == 0);
    CHECK_OK(insert(s, ID_B, "after"));
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM memories") == 2);
    mn_store_free(s);
    free(loc);
}

static void test_writers_and_snapshots(void)
{
    char *loc = test_store_new(NULL);
    REQUIRE(loc);
    mn_store *a = NULL, *b = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.busy_timeout_ms = 300;
    REQUIRE_OK(mn_store_open(&a, loc, &o));
    REQUIRE_OK(mn_store_open(&b, loc, &o));

    /* one writer per project: the second waits past its busy timeout, then is told to retry */
    REQUIRE_OK(mn_store_begin(a));
    CHECK(mn_store_begin(b) == MN_EBUSY);
    CHECK(strstr(mn_error_last(), "busy timeout") != NULL);
    /* a reader is never blocked, and does not see the writer's uncommitted row */
    json_t *m = memory(ID_A, "pending");
    CHECK_OK(mn_store_memory_insert(a, m));
    json_decref(m);
    REQUIRE_OK(mn_store_begin_read(b));
    json_t *got = NULL;
    CHECK(mn_store_memory_get(b, &got, ID_A) == MN_ENOTFOUND);
    CHECK_OK(mn_store_commit(a));
    /* one snapshot for the whole read transaction (REPEATABLE READ) */
    CHECK(mn_store_memory_get(b, &got, ID_A) == MN_ENOTFOUND);
    CHECK_OK(mn_store_commit(b));
    CHECK_OK(mn_store_memory_get(b, &got, ID_A));
    json_decref(got);
    /* a read transaction cannot write */
    REQUIRE_OK(mn_store_begin_read(b));
    CHECK(mn_store_config_set(b, "k", "v") != 0);
    mn_store_rollback(b);
    /* the lock went with the commit: b writes now */
    REQUIRE_OK(mn_store_begin(b));
    CHECK_OK(mn_store_config_set(b, "k", "v"));
    CHECK_OK(mn_store_commit(b));

    /* another project's writer is not held up by this one's */
    mn_store *c = NULL;
    mn_store_options oc = o;
    oc.project = "other";
    REQUIRE_OK(mn_store_open(&c, loc, &oc));
    REQUIRE_OK(mn_store_begin(a));
    CHECK_OK(mn_store_begin(c));
    mn_store_rollback(c);
    mn_store_rollback(a);
    mn_store_free(a);
    mn_store_free(b);
    mn_store_free(c);
    free(loc);
}

/* A v2 store: the released schema_v1 and v2 as they ran, meta as they left it, rows by SQL. */
static void test_migrates_v2(void)
{
    char *loc = test_store_new(NULL);
    REQUIRE(loc);
    REQUIRE(mn_pg_schemas_count >= 3);
    REQUIRE(test_store_sql_exec(loc, mn_pg_schemas[0]) == 0);
    REQUIRE(test_store_sql_exec(loc, mn_pg_schemas[1]) == 0);
    REQUIRE(test_store_sql_exec(
                loc, "INSERT INTO meta(key, value) VALUES ('schema_version', '2'), "
                     "('written_by', 'mnemo 0.26'); "
                     "INSERT INTO projects(name, created_at) VALUES ('default', 1), ('other', 1); "
                     "INSERT INTO memories(uid, project_id, kind, level, title, source, status, "
                     "confidence, created_at, updated_at, content_hash) VALUES "
                     "('" ID_A "', 1, 'fact', 1, 'kept A', 'manual', 'active', 0.9, 1, 1, 'h1'), "
                     "('" ID_B "', 1, 'fact', 1, 'kept B', 'manual', 'active', 0.9, 1, 1, 'h2'); "
                     "INSERT INTO links(src_id, kind, dst_memory_id, created_at) SELECT a.id, "
                     "'relates_to', b.id, 1 FROM memories a, memories b WHERE a.uid = '" ID_A
                     "' AND b.uid = '" ID_B "'") == 0);
    /* schema 2's key: the id is taken in the whole database */
    CHECK(test_store_sql_exec(loc, "INSERT INTO memories(uid, project_id, kind, level, title, "
                                   "source, status, confidence, created_at, updated_at, "
                                   "content_hash) VALUES ('" ID_A "', 2, 'fact', 1, 'x', "
                                   "'manual', 'active', 0.9, 1, 1, 'h3')") != 0);

    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, loc, NULL));
    CHECK(mn_store_schema_version(s) == (int)mn_pg_schemas_count);
    json_t *got = NULL;
    CHECK_OK(mn_store_memory_get(s, &got, ID_A));
    CHECK_STR(json_string_value(json_object_get(got, "title")), "kept A");
    CHECK(json_array_size(json_object_get(got, "links")) == 1);
    json_decref(got);
    got = NULL;
    CHECK_OK(mn_store_memory_get(s, &got, ID_B));
    CHECK_STR(json_string_value(json_object_get(got, "title")), "kept B");
    json_decref(got);
    got = NULL;
    CHECK_OK(mn_store_check(s));
    mn_store_free(s);

    /* the other project takes the same id for a memory of its own */
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    s = NULL;
    REQUIRE_OK(mn_store_open(&s, loc, &o));
    CHECK_OK(insert(s, ID_A, "the other's own"));
    CHECK(insert(s, ID_A, "twice") == MN_EEXISTS);
    CHECK_OK(mn_store_memory_get(s, &got, ID_A));
    CHECK_STR(json_string_value(json_object_get(got, "title")), "the other's own");
    json_decref(got);
    mn_store_free(s);
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM memories") == 3);
    free(loc);
}

static void test_cleanup(void)
{
    test_store_drop_all();
}

MN_TEST_MAIN(MN_TEST(test_requires_server), MN_TEST(test_open_creates_schema),
             MN_TEST(test_refusals), MN_TEST(test_broken_connection),
             MN_TEST(test_writers_and_snapshots), MN_TEST(test_migrates_v2), MN_TEST(test_cleanup))
