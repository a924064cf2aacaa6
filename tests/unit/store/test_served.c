/*
 * test_served.c - how long the served table keeps what was asked
 * (mn_store_served_prune): the newest max_rows rows stay, rows older than
 * max_age go, 0 means no limit, another project's rows are not touched,
 * pruned with every add the count stays within max_rows / 256 of the cap,
 * and feedback on a forgotten answer stays with served_id NULL (the
 * foreign key's ON DELETE SET NULL), and that serving a memory counts a hit
 * per time it was served (mn_store_memories_touch: a row named twice counts
 * twice, another project's row not at all), checked with the back end's own client
 * (sqlite3 or libpq: both back ends run it, test_store.h).
 */
#include "common.h"
#include <unistd.h>

#include "store/store.h"
#include "store/store_search.h"
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

/* n answers to "question <i>", one a minute from T0 + first minutes; ids into ids. */
static int add_rows(mn_store *s, int first, int n, int64_t *ids)
{
    char now[32], q[32];
    int rc = mn_store_begin(s);
    json_t *items = json_pack("[{s:s,s:s,s:f}]", "kind", "memory", "id", "01ABC", "score", 0.5);
    for (int i = 0; rc == 0 && i < n; i++) {
        snprintf(now, sizeof(now), "%lld", T0 + (first + i) * MINUTE);
        setenv("MNEMO_NOW_MS", now, 1);
        snprintf(q, sizeof(q), "question %d", first + i);
        rc = mn_store_served_add(s, &ids[i], "search", q, items);
    }
    json_decref(items);
    if (rc == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

static int prune(mn_store *s, int64_t now, int64_t max_age, int64_t max_rows)
{
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_served_prune(s, now, max_age, max_rows, 0)) == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

static void test_prune(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-served-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    free(path);
    path = test_store_new(tmp);
    REQUIRE(path);
    mn_store *s = NULL, *other = NULL;
    int64_t ids[30], oids[5];
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    REQUIRE_OK(add_rows(s, 0, 30, ids));
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    REQUIRE_OK(mn_store_open(&other, path, &o));
    REQUIRE_OK(add_rows(other, 0, 5, oids));

    /* feedback on the oldest answer and on the newest */
    REQUIRE_OK(mn_store_begin(s));
    CHECK_OK(mn_store_feedback_add(s, ids[0], "test", "file", "a.py", "used", NULL, NULL, NULL));
    CHECK_OK(mn_store_feedback_add(s, ids[29], "test", "file", "b.py", "used", NULL, NULL, NULL));
    REQUIRE_OK(mn_store_commit(s));

    /* no limits: nothing goes */
    int64_t now = T0 + 30 * MINUTE;
    CHECK_OK(prune(s, now, 0, 0));
    CHECK(sql_int("SELECT count(*) FROM served") == 35);

    /* at most 10: the newest 10 of this project stay */
    CHECK_OK(prune(s, now, 0, 10));
    CHECK(sql_int("SELECT count(*) FROM served WHERE project_id = (SELECT id FROM projects WHERE "
                  "name = 'default')") == 10);
    CHECK(sql_int("SELECT min(ts) FROM served WHERE query LIKE 'question %' AND project_id = "
                  "(SELECT id FROM projects WHERE name = 'default')") == T0 + 20 * MINUTE);
    json_t *got = NULL;
    CHECK(mn_store_served_get(s, &got, ids[19]) == MN_ENOTFOUND);
    CHECK_OK(mn_store_served_get(s, &got, ids[20]));
    json_decref(got);
    /* the other project's five are its own */
    CHECK(sql_int("SELECT count(*) FROM served") == 15);
    /* feedback stays, the forgotten answer's reference is NULL */
    CHECK(sql_int("SELECT count(*) FROM feedback") == 2);
    CHECK(sql_int("SELECT count(*) FROM feedback WHERE item_id = 'a.py' AND served_id IS NULL") ==
          1);
    CHECK(sql_int("SELECT served_id FROM feedback WHERE item_id = 'b.py'") == ids[29]);
    /* again: nothing more goes */
    CHECK_OK(prune(s, now, 0, 10));
    CHECK(sql_int("SELECT count(*) FROM served") == 15);

    /* older than 5 minutes at T0 + 30 min: the rows of minutes 25..29 stay */
    CHECK_OK(prune(s, now, 5 * MINUTE, 0));
    CHECK(sql_int("SELECT count(*) FROM served WHERE project_id = (SELECT id FROM projects WHERE "
                  "name = 'default')") == 5);
    CHECK(sql_int("SELECT min(ts) FROM served WHERE project_id = (SELECT id FROM projects WHERE "
                  "name = 'default')") == T0 + 25 * MINUTE);
    CHECK(sql_int("SELECT count(*) FROM served") == 10);

    /* one row kept: the newest */
    CHECK_OK(prune(s, now, 0, 1));
    CHECK_OK(mn_store_served_get(s, &got, ids[29]));
    json_decref(got);
    CHECK(sql_int("SELECT count(*) FROM served") == 6);
    CHECK_OK(mn_store_check(s));
    mn_store_free(other);
    mn_store_free(s);
    rm_rf(tmp);
    test_store_drop_all();
    free(path);
    path = NULL;
}

/* With every add: the count is checked on one add in max_rows / 256, and never let far past. */
static void test_prune_as_added(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-served-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    free(path);
    path = test_store_new(tmp);
    REQUIRE(path);
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    int64_t most = 0, id;
    for (int i = 0; i < 1200; i++) {
        REQUIRE_OK(add_rows(s, i, 1, &id));
        REQUIRE_OK(mn_store_begin(s));
        CHECK_OK(mn_store_served_prune(s, T0 + i * MINUTE, 0, 512, id));
        REQUIRE_OK(mn_store_commit(s));
        if (i >= 500 && i % 3 == 0) { /* the peaks come and go with the step of 2 */
            int64_t n = sql_int("SELECT count(*) FROM served");
            most = n > most ? n : most;
        }
    }
    CHECK(most <= 512 + 2);
    CHECK(sql_int("SELECT count(*) FROM served") >= 512);
    CHECK(sql_int("SELECT count(*) FROM served WHERE query = 'question 1199'") == 1);
    CHECK(sql_int("SELECT count(*) FROM served WHERE query = 'question 600'") == 0);
    mn_store_free(s);
    rm_rf(tmp);
    test_store_drop_all();
    free(path);
    path = NULL;
}

static json_t *fact(const char *id)
{
    json_t *m = json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:s},s:s,s:f,s:s,s:s}", "id", id, "kind", "fact",
                          "level", "L1", "title", "A fact", "body", "", "provenance", "source",
                          "manual", "status", "active", "confidence", 0.9, "created_at",
                          "2026-01-01T00:00:00.000Z", "updated_at", "2026-01-01T00:00:00.000Z");
    return m;
}

static int64_t hits(const char *project, const char *uid)
{
    char sql[256];
    snprintf(sql, sizeof(sql),
             "SELECT m.hit_count FROM memories m JOIN projects p ON p.id = m.project_id WHERE "
             "p.name = '%s' AND m.uid = '%s'",
             project, uid);
    return sql_int(sql);
}

static void test_touch(void)
{
    static const char *const A = "01M8FT8G778SXMCY02NZHNBZA0", *const B =
                                                                   "01M8FT8G778SXMCY02NZHNBZA1";
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-served-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    free(path);
    path = test_store_new(tmp);
    REQUIRE(path);
    mn_store *s = NULL, *other = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    REQUIRE_OK(mn_store_open(&other, path, &o));
    mn_store *both[2] = {s, other};
    for (int i = 0; i < 2; i++) {
        json_t *a = fact(A), *b = fact(B);
        REQUIRE_OK(mn_store_begin(both[i]));
        REQUIRE_OK(mn_store_memory_insert(both[i], a));
        REQUIRE_OK(mn_store_memory_insert(both[i], b));
        REQUIRE_OK(mn_store_commit(both[i]));
        json_decref(a);
        json_decref(b);
    }
    char sql[160];
    snprintf(sql, sizeof(sql), "SELECT min(id) FROM memories WHERE uid = '%s'", A);
    int64_t ra = sql_int(sql); /* the default project's, made first */
    snprintf(sql, sizeof(sql), "SELECT max(id) FROM memories WHERE uid = '%s'", B);
    int64_t rb_other = sql_int(sql);
    /* A twice, and the other project's B: A counts 2, the other's B nothing */
    int64_t rows[3] = {ra, rb_other, ra};
    REQUIRE_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memories_touch(s, rows, 3, T0));
    CHECK_OK(mn_store_memories_touch(s, rows, 0, T0));
    REQUIRE_OK(mn_store_commit(s));
    CHECK(hits("default", A) == 2);
    CHECK(hits("default", B) == 0);
    CHECK(hits("other", A) == 0);
    CHECK(hits("other", B) == 0);
    /* a read's record (a log transaction): PostgreSQL counts after its COMMIT, the same */
    REQUIRE_OK(mn_store_begin_log(s));
    CHECK_OK(mn_store_memories_touch(s, rows, 3, T0));
    REQUIRE_OK(mn_store_commit(s));
    CHECK(hits("default", A) == 4);
    CHECK(hits("other", B) == 0);
    /* forgotten with a rollback */
    REQUIRE_OK(mn_store_begin_log(s));
    CHECK_OK(mn_store_memories_touch(s, rows, 3, T0));
    mn_store_rollback(s);
    CHECK(hits("default", A) == 4);
    mn_store_free(s);
    mn_store_free(other);
    rm_rf(tmp);
    test_store_drop_all();
    free(path);
    path = NULL;
}

MN_TEST_MAIN(MN_TEST(test_prune), MN_TEST(test_prune_as_added), MN_TEST(test_touch))
