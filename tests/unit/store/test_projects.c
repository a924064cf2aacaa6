/*
 * test_projects.c - what `mnemo migrate` asks of a store
 * (store_migrate.h): mn_store_projects_each lists every project by name
 * with its count of memories (forgotten ones too) on a store opened with
 * any_project, which creates no project of its own and reads none of a
 * project's rows; mn_store_audit_put writes a row at the time it carries,
 * into the store's project only; a memory id is unique per project, not
 * per store (SQLite schema v16, PostgreSQL v3): two projects hold the same
 * id each for a memory of its own, and every write by id (replace, links
 * and their removal, forget, purge) touches its own project's only. Both
 * back ends run it (test_store.h).
 */
#include "common.h"
#include <unistd.h>

#include "store/store_migrate.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_store.h"

static char tmp[64];
static char *path;

static json_t *small_memory(const char *id)
{
    json_t *m = J("{'id':'','kind':'fact','level':'L1','title':'A fact','body':'',"
                  "'provenance':{'source':'manual'},'status':'active','confidence':0.9,"
                  "'created_at':'2026-01-01T00:00:00.000Z','updated_at':'2026-01-01T00:00:00.000Z',"
                  "'deleted_at':'2026-01-02T00:00:00.000Z'}");
    json_object_set_new(m, "id", json_string(id));
    return m;
}

static int collect(void *payload, const mn_project_row *p)
{
    json_array_append_new(
        payload, json_pack("{s:s,s:I}", "name", p->name, "memories", (json_int_t)p->memories));
    return 0;
}

static void test_projects_each(void)
{
    mn_store *a = NULL, *b = NULL, *any = NULL;
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-projects-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    path = test_store_new(tmp);
    REQUIRE(path);
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "zeta";
    REQUIRE_OK(mn_store_open(&a, path, &o));
    o.project = "Alpha";
    REQUIRE_OK(mn_store_open(&b, path, &o));
    json_t *m = small_memory("01M8FT8G778SXMCY02NZHNBZA0");
    REQUIRE_OK(mn_store_begin(a));
    REQUIRE_OK(mn_store_memory_insert(a, m));
    REQUIRE_OK(mn_store_commit(a));
    json_decref(m);

    mn_store_options any_o = MN_STORE_OPTIONS_INIT;
    any_o.any_project = true;
    any_o.read_only = true;
    any_o.create = false;
    REQUIRE_OK(mn_store_open(&any, path, &any_o));
    json_t *rows = json_array();
    CHECK_OK(mn_store_projects_each(any, collect, rows));
    /* byte order ('A' < 'z'), the forgotten memory counted, no "default" made by opening */
    json_t *want = J("[{'name':'Alpha','memories':0},{'name':'zeta','memories':1}]");
    CHECK(json_equal(rows, want));
    json_decref(want);
    json_decref(rows);
    /* a project's rows: none */
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.include_deleted = true;
    int64_t n = -1;
    CHECK_OK(mn_store_memory_count(any, &f, &n));
    CHECK(n == 0);
    CHECK(test_store_sql_int(path, "SELECT count(*) FROM projects") == 2);
    mn_store_free(any);
    mn_store_free(a);
    mn_store_free(b);
    rm_rf(tmp);
    test_store_drop_all();
    free(path);
    path = NULL;
}

static void test_audit_put(void)
{
    mn_store *a = NULL, *b = NULL;
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-projects-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    path = test_store_new(tmp);
    REQUIRE(path);
    REQUIRE_OK(mn_store_open(&a, path, NULL));
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    REQUIRE_OK(mn_store_open(&b, path, &o));
    json_t *detail = J("{'b':1,'a':[2,'x']}");
    REQUIRE_OK(mn_store_begin(a));
    CHECK_OK(mn_store_audit_put(a, 1795239445123LL, "token:laptop", "save",
                                "01M8FT8G778SXMCY02NZHNBZA0", detail));
    CHECK_OK(mn_store_audit_put(a, 1000, "cli", "config", NULL, NULL));
    REQUIRE_OK(mn_store_commit(a));
    json_decref(detail);
    mn_audit_filter af = {0};
    json_t *rows = NULL;
    int64_t total = 0;
    CHECK_OK(mn_store_audit_list(a, &af, &rows, &total));
    CHECK(total == 2);
    const json_t *r = json_array_get(rows, 0);
    CHECK_STR(json_string_value(json_object_get(r, "time")), "2026-11-21T05:37:25.123Z");
    CHECK_STR(json_string_value(json_object_get(r, "actor")), "token:laptop");
    CHECK_STR(json_string_value(json_object_get(r, "target")), "01M8FT8G778SXMCY02NZHNBZA0");
    char *d = json_dumps(json_object_get(r, "detail"), JSON_COMPACT);
    CHECK_STR(d, "{\"b\":1,\"a\":[2,\"x\"]}");
    free(d);
    r = json_array_get(rows, 1);
    CHECK_STR(json_string_value(json_object_get(r, "time")), "1970-01-01T00:00:01.000Z");
    CHECK(json_object_get(r, "target") == NULL && json_object_get(r, "detail") == NULL);
    json_decref(rows);
    CHECK_OK(mn_store_audit_list(b, &af, &rows, &total));
    CHECK(total == 0); /* the other project's log has none of them */
    json_decref(rows);
    mn_store_free(a);
    mn_store_free(b);
    rm_rf(tmp);
    test_store_drop_all();
    free(path);
    path = NULL;
}

static json_t *titled(const char *id, const char *title)
{
    json_t *m = small_memory(id);
    json_object_del(m, "deleted_at");
    json_object_set_new(m, "title", json_string(title));
    return m;
}

static char *title_of(mn_store *s, const char *id)
{
    json_t *got = NULL;
    if (mn_store_memory_get(s, &got, id) != 0)
        return NULL;
    char *t = mn_strdup(json_string_value(json_object_get(got, "title")));
    json_decref(got);
    return t;
}

static size_t count_links(mn_store *s, const char *id)
{
    json_t *got = NULL;
    if (mn_store_memory_get(s, &got, id) != 0)
        return (size_t)-1;
    size_t n = json_array_size(json_object_get(got, "links"));
    json_decref(got);
    return n;
}

#define X_ID "01M8FT8G778SXMCY02NZHNBZA1"
#define Y_ID "01M8FT8G778SXMCY02NZHNBZA2"

static void test_same_id(void)
{
    mn_store *a = NULL, *b = NULL;
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-projects-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    path = test_store_new(tmp);
    REQUIRE(path);
    /* beta first, its project and its rows: a lookup by id that forgets the
     * project finds beta's row first, in rowid order and in the key's order */
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "beta";
    REQUIRE_OK(mn_store_open(&b, path, &o));
    o.project = "alpha";
    REQUIRE_OK(mn_store_open(&a, path, &o));
    mn_store *both[2] = {a, b};
    const char *names[2] = {"alpha's", "beta's"};
    for (int i = 1; i >= 0; i--) {
        json_t *x = titled(X_ID, names[i]), *y = titled(Y_ID, "the other one");
        REQUIRE_OK(mn_store_begin(both[i]));
        CHECK_OK(mn_store_memory_insert(both[i], x));
        CHECK_OK(mn_store_memory_insert(both[i], y));
        CHECK(mn_store_memory_insert(both[i], x) == MN_EEXISTS); /* taken in its own project */
        CHECK_OK(mn_store_link_add(both[i], Y_ID, "relates_to", X_ID, NULL, 1000));
        REQUIRE_OK(mn_store_commit(both[i]));
        json_decref(x);
        json_decref(y);
    }
    char *t = title_of(a, X_ID);
    CHECK_STR(t, "alpha's");
    free(t);
    t = title_of(b, X_ID);
    CHECK_STR(t, "beta's");
    free(t);
    char full[MN_ID_LEN + 1];
    CHECK_OK(mn_store_memory_resolve(b, full, "01M8FT8G778SXMCY02NZHNBZA1"));
    CHECK_OK(mn_store_memory_resolve(a, full, "01m8ft8g778sxmcy02nzhnbza1"));
    CHECK_STR(full, X_ID);

    /* alpha's writes by id touch alpha's rows only */
    json_t *x = titled(X_ID, "alpha's, replaced");
    REQUIRE_OK(mn_store_begin(a));
    CHECK_OK(mn_store_memory_replace(a, x));
    CHECK_OK(mn_store_link_remove(a, Y_ID, "relates_to", X_ID));
    CHECK_OK(mn_store_memory_set_deleted(a, X_ID, 1795239445123LL));
    REQUIRE_OK(mn_store_commit(a));
    json_decref(x);
    CHECK(count_links(a, Y_ID) == 0);
    CHECK(count_links(b, Y_ID) == 1);
    json_t *back = NULL;
    CHECK_OK(mn_store_memory_backlinks(b, &back, X_ID));
    CHECK(json_array_size(back) == 1);
    json_decref(back);
    json_t *got = NULL;
    CHECK_OK(mn_store_memory_get(b, &got, X_ID));
    CHECK_STR(json_string_value(json_object_get(got, "title")), "beta's");
    CHECK(json_object_get(got, "deleted_at") == NULL);
    json_decref(got);
    REQUIRE_OK(mn_store_begin(a));
    CHECK_OK(mn_store_memory_purge(a, X_ID));
    REQUIRE_OK(mn_store_commit(a));
    CHECK(mn_store_memory_get(a, &got, X_ID) == MN_ENOTFOUND);
    t = title_of(b, X_ID);
    CHECK_STR(t, "beta's");
    free(t);
    CHECK(count_links(b, Y_ID) == 1);
    CHECK_OK(mn_store_check(b));
    mn_store_free(a);
    mn_store_free(b);
    rm_rf(tmp);
    test_store_drop_all();
    free(path);
    path = NULL;
}

MN_TEST_MAIN(MN_TEST(test_projects_each), MN_TEST(test_audit_put), MN_TEST(test_same_id))
