/*
 * test_audit.c - reading the audit log and keeping its reads bounded
 * (audit_store.c): mn_store_audit_list returns rows newest first with the
 * total the filters match (since, action, actor), pages with limit and
 * offset, leaves another project's rows out and parses the detail;
 * mn_store_audit_prune_reads deletes reads (context, recall, search,
 * search_code, resource) past max_age and beyond the newest max_rows, and
 * never a row of a change nor another project's row. Both back ends run
 * it (test_store.h).
 */
#include "common.h"
#include <unistd.h>

#include "store/store.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_store.h"

#define T0     1795239445000LL
#define MINUTE 60000LL

static char tmp[64];
static char *path; /* the store: a file in tmp, or a database (test_store.h) */

/* SQL on the store with its back end's own client (sqlite3 or libpq), not through mnemo. */
static int64_t sql_int(const char *sql)
{
    return test_store_sql_int(path, sql);
}

/* One row at T0 + minute, in its own transaction. */
static int add(mn_store *s, int minute, const char *actor, const char *action, const char *target)
{
    char now[32];
    snprintf(now, sizeof(now), "%lld", T0 + minute * MINUTE);
    setenv("MNEMO_NOW_MS", now, 1);
    json_t *detail = json_pack("{s:i}", "minute", minute);
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_audit(s, actor, action, target, detail)) == 0)
        rc = mn_store_commit(s);
    else if (rc)
        mn_store_rollback(s);
    json_decref(detail);
    return rc;
}

static int list(mn_store *s, const mn_audit_filter *f, json_t **rows, int64_t *total)
{
    int rc = mn_store_begin_read(s);
    if (rc == 0 && (rc = mn_store_audit_list(s, f, rows, total)) == 0)
        return mn_store_commit(s);
    if (rc == 0)
        mn_store_rollback(s);
    return rc;
}

static int prune(mn_store *s, int64_t now, int64_t max_age, int64_t max_rows)
{
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_audit_prune_reads(s, now, max_age, max_rows, 0)) == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

static const char *row_str(const json_t *rows, size_t i, const char *key)
{
    return json_string_value(json_object_get(json_array_get(rows, i), key));
}

static void open_store(mn_store **s, mn_store **other)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-audit-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    free(path);
    path = test_store_new(tmp);
    REQUIRE(path);
    REQUIRE_OK(mn_store_open(s, path, NULL));
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    REQUIRE_OK(mn_store_open(other, path, &o));
}

static void test_list(void)
{
    mn_store *s = NULL, *other = NULL;
    open_store(&s, &other);
    /* minute 0..9: saves by cli, searches by mcp, alternately; one row in another project */
    for (int i = 0; i < 10; i++)
        REQUIRE_OK(add(s, i, i % 2 ? "mcp" : "cli", i % 2 ? "search" : "save",
                       i % 2 ? NULL : "01M8FT8G778SXMCY02NZHNBZA0"));
    REQUIRE_OK(add(other, 5, "cli", "save", "01M8FT8G778SXMCY02NZHNBZA1"));
    /* two rows of one millisecond keep the order they were written in */
    REQUIRE_OK(add(s, 9, "cli", "config", "user.name"));

    mn_audit_filter f = {0};
    json_t *rows = NULL;
    int64_t total = 0;
    REQUIRE_OK(list(s, &f, &rows, &total));
    CHECK(total == 11);
    CHECK(json_array_size(rows) == 11);
    CHECK_STR(row_str(rows, 0, "op"), "config");
    CHECK_STR(row_str(rows, 1, "op"), "search");
    CHECK_STR(row_str(rows, 10, "op"), "save");
    CHECK_STR(row_str(rows, 10, "target"), "01M8FT8G778SXMCY02NZHNBZA0");
    CHECK(json_object_get(json_array_get(rows, 1), "target") == NULL);
    CHECK(json_integer_value(
              json_object_get(json_object_get(json_array_get(rows, 10), "detail"), "minute")) == 0);
    char t0[32];
    mn_time_format(t0, T0);
    CHECK_STR(row_str(rows, 10, "time"), t0);
    json_decref(rows);

    /* filters: actor, action, since; the total counts them all, the page is a part */
    f.actor = "mcp";
    REQUIRE_OK(list(s, &f, &rows, &total));
    CHECK(total == 5);
    json_decref(rows);
    f.actor = NULL;
    f.action = "save";
    f.since_ms = T0 + 4 * MINUTE;
    REQUIRE_OK(list(s, &f, &rows, &total));
    CHECK(total == 3); /* minutes 4, 6, 8 */
    json_decref(rows);
    f.action = NULL;
    f.since_ms = 0;
    f.limit = 3;
    f.offset = 2;
    REQUIRE_OK(list(s, &f, &rows, &total));
    CHECK(total == 11);
    CHECK(json_array_size(rows) == 3);
    CHECK(json_integer_value(
              json_object_get(json_object_get(json_array_get(rows, 0), "detail"), "minute")) == 8);
    json_decref(rows);
    f.offset = 11;
    REQUIRE_OK(list(s, &f, &rows, &total));
    CHECK(json_array_size(rows) == 0);
    json_decref(rows);

    /* keyset pages, oldest first and newest first, without counting (mnemo migrate reads the
     * log so): every row once, in order, the two rows of minute 9 in the order written */
    for (int oldest = 0; oldest < 2; oldest++) {
        mn_audit_filter k = {0};
        k.oldest_first = oldest;
        k.limit = 3;
        json_t *all = json_array();
        for (;;) {
            REQUIRE_OK(list(s, &k, &rows, NULL));
            size_t n = json_array_size(rows);
            json_array_extend(all, rows);
            if (n) {
                const json_t *last = json_array_get(rows, n - 1);
                int64_t ts = 0;
                REQUIRE_OK(mn_time_parse(&ts, json_string_value(json_object_get(last, "time"))));
                k.after_ts = ts;
                k.after_id = json_integer_value(json_object_get(last, "id"));
            }
            json_decref(rows);
            if (n < 3)
                break;
        }
        CHECK(json_array_size(all) == 11);
        CHECK_STR(row_str(all, oldest ? 0 : 10, "op"), "save");
        CHECK_STR(row_str(all, oldest ? 9 : 1, "op"), "search");
        CHECK_STR(row_str(all, oldest ? 10 : 0, "op"), "config");
        for (size_t i = 1; i < json_array_size(all); i++) {
            json_int_t a = json_integer_value(json_object_get(json_array_get(all, i - 1), "id"));
            json_int_t b = json_integer_value(json_object_get(json_array_get(all, i), "id"));
            CHECK(oldest ? a < b : a > b);
        }
        json_decref(all);
    }
    mn_store_free(other);
    mn_store_free(s);
    rm_rf(tmp);
    test_store_drop_all();
    free(path);
    path = NULL;
}

static void test_prune_reads(void)
{
    mn_store *s = NULL, *other = NULL;
    open_store(&s, &other);
    static const char *const reads[] = {"context", "recall", "search", "search_code", "resource"};
    for (int i = 0; i < 20; i++) /* a read a minute, and a change every fourth */
        REQUIRE_OK(add(s, i, "cli", i % 4 ? reads[i % 5] : "save", NULL));
    for (int i = 0; i < 5; i++)
        REQUIRE_OK(add(other, i, "cli", "search", NULL));
    CHECK(mn_store_audit_is_read("search_code"));
    CHECK(mn_store_audit_is_read("resource"));
    CHECK(!mn_store_audit_is_read("save"));
    CHECK(!mn_store_audit_is_read("export"));
    CHECK(!mn_store_audit_is_read(NULL));

    int64_t now = T0 + 20 * MINUTE;
    CHECK_OK(prune(s, now, 0, 0)); /* no limits: nothing goes */
    CHECK(sql_int("SELECT count(*) FROM audit") == 25);
    /* older than 10 minutes: the reads of minutes 0..9 go, the changes stay */
    CHECK_OK(prune(s, now, 10 * MINUTE, 0));
    CHECK(sql_int("SELECT count(*) FROM audit WHERE action = 'save'") == 5);
    CHECK(sql_int("SELECT count(*) FROM audit WHERE action <> 'save' AND project_id = (SELECT id "
                  "FROM projects WHERE name = 'default')") == 8); /* 10..19 but 12 and 16 */
    CHECK(sql_int("SELECT count(*) FROM audit WHERE project_id = (SELECT id FROM projects WHERE "
                  "name = 'other')") == 5);
    /* the newest 3 reads stay (minutes 17, 18, 19) */
    CHECK_OK(prune(s, now, 0, 3));
    CHECK(sql_int("SELECT count(*) FROM audit WHERE action <> 'save' AND project_id = (SELECT id "
                  "FROM projects WHERE name = 'default')") == 3);
    CHECK(sql_int("SELECT min(ts) FROM audit WHERE action <> 'save' AND project_id = (SELECT id "
                  "FROM projects WHERE name = 'default')") == T0 + 17 * MINUTE);
    CHECK(sql_int("SELECT count(*) FROM audit WHERE action = 'save'") == 5);
    CHECK(sql_int("SELECT count(*) FROM audit") == 13);
    CHECK_OK(mn_store_check(s));
    mn_store_free(other);
    mn_store_free(s);
    rm_rf(tmp);
    test_store_drop_all();
    free(path);
    path = NULL;
}

MN_TEST_MAIN(MN_TEST(test_list), MN_TEST(test_prune_reads))
