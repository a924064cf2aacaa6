/*
 * test_neardup_store.c - the near-duplicate lookup of the SQLite store
 * (neardup_store.c) across the mark below which memories have key rows:
 * the newest memories' keys wait in their fingerprints and are found from
 * there; past RECENT_MAX (256) waiting, one save writes them all and moves
 * the mark (checked with sqlite3 on the file: key rows, meta); a near copy
 * is found whether its original sits above the mark or below it; an edit
 * of a memory below the mark moves its keys at once; a store whose keys
 * were all written before the mark existed (no meta row) is read as marked
 * at its highest keyed memory.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/store.h"
#include "text/neardup.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"

#define RECENT_MAX 256

static char tmp[64];
static char path[96];

static int64_t sql_int(const char *sql)
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

static int sql_exec(const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db) == SQLITE_OK ? sqlite3_exec(db, sql, NULL, NULL, NULL) : -1;
    sqlite3_close(db);
    return rc;
}

/* Memory i: ten made-up words of its own (no two memories share a band but by chance). */
static void text_of(char *out, size_t n, int i)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
    size_t len = 0;
    for (int w = 0; w < 10 && len + 9 < n; w++) {
        for (int c = 0; c < 7; c++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            out[len++] = (char)('a' + x % 26);
        }
        out[len++] = ' ';
    }
    out[len - 1] = '\0';
}

static void id_of(char *out, int i)
{
    snprintf(out, MN_ID_LEN + 1, "01J%023d", i);
}

static int save(mn_store *s, const char *id, const char *title)
{
    json_t *m = json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:s},s:s,s:f,s:s,s:s,s:{s:i,s:i,s:i}}", "id", id,
                          "kind", "fact", "level", "L1", "title", title, "body", "", "provenance",
                          "source", "manual", "status", "active", "confidence", 0.9, "created_at",
                          "2026-01-01T00:00:00.000Z", "updated_at", "2026-01-01T00:00:00.000Z",
                          "counters", "hits", 0, "used", 0, "ignored", 0);
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_memory_insert(s, m)) != 0)
        mn_store_rollback(s);
    else if (rc == 0)
        rc = mn_store_commit(s);
    json_decref(m);
    return rc;
}

typedef struct {
    char first[MN_ID_LEN + 1];
    size_t n;
} found;

static int first_found(void *payload, const mn_memory_neighbour *n)
{
    found *f = payload;
    if (!f->n++)
        snprintf(f->first, sizeof(f->first), "%s", n->uid);
    return 0;
}

/* The nearest memory the store finds for text ("" when none). */
static const char *nearest(mn_store *s, const char *text, found *f)
{
    mn_fingerprint fp;
    memset(f, 0, sizeof(*f));
    if (mn_fingerprint_compute(&fp, text, strlen(text)) != 0 ||
        mn_store_memory_neighbours(s, &fp, 8, first_found, f) != 0)
        return "(error)";
    return f->first;
}

static void test_setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-neardup-XXXXXX");
    REQUIRE(mkdtemp(tmp) != NULL);
    snprintf(path, sizeof(path), "%s/m.db", tmp);
}

static void test_keys_wait_then_flush(void)
{
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    char id[MN_ID_LEN + 1], text[256], copy[300];
    found f;
    for (int i = 1; i <= RECENT_MAX; i++) {
        id_of(id, i);
        text_of(text, sizeof(text), i);
        REQUIRE_OK(save(s, id, text));
    }
    /* all wait in their fingerprints: no key rows, yet every one is found by a near copy */
    CHECK(sql_int("SELECT count(*) FROM memory_keys") == 0);
    CHECK(sql_int("SELECT count(*) FROM memory_fingerprints") == RECENT_MAX);
    for (int i = 1; i <= RECENT_MAX; i += 51) {
        id_of(id, i);
        text_of(text, sizeof(text), i);
        snprintf(copy, sizeof(copy), "%s.", text);
        CHECK_STR(nearest(s, copy, &f), id);
    }
    text_of(text, sizeof(text), 9999);
    CHECK_STR(nearest(s, text, &f), "");

    /* one more: the save that finds RECENT_MAX + 1 waiting writes their keys */
    id_of(id, RECENT_MAX + 1);
    text_of(text, sizeof(text), RECENT_MAX + 1);
    REQUIRE_OK(save(s, id, text));
    CHECK(sql_int("SELECT count(DISTINCT memory_id) FROM memory_keys") == RECENT_MAX + 1);
    CHECK(sql_int("SELECT CAST(value AS INTEGER) FROM meta WHERE key = "
                  "'fingerprint_keys_through'") == sql_int("SELECT max(id) FROM memories"));
    /* the next one waits again, and both sides of the mark are found */
    id_of(id, RECENT_MAX + 2);
    text_of(text, sizeof(text), RECENT_MAX + 2);
    REQUIRE_OK(save(s, id, text));
    CHECK(sql_int("SELECT count(DISTINCT memory_id) FROM memory_keys") == RECENT_MAX + 1);
    for (int i = RECENT_MAX - 1; i <= RECENT_MAX + 2; i++) {
        id_of(id, i);
        text_of(text, sizeof(text), i);
        snprintf(copy, sizeof(copy), "%s!", text);
        CHECK_STR(nearest(s, copy, &f), id);
        CHECK(f.n == 1);
    }
    mn_store_free(s);
}

/* An edit below the mark moves the memory's keys at once: found by its new text, not its old. */
static void test_edit_below_mark(void)
{
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    char id[MN_ID_LEN + 1], old_text[256], new_text[256];
    found f;
    id_of(id, 3);
    text_of(old_text, sizeof(old_text), 3);
    text_of(new_text, sizeof(new_text), 7777);
    json_t *m = NULL;
    REQUIRE_OK(mn_store_memory_get(s, &m, id));
    json_object_set_new(m, "title", json_string(new_text));
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_replace(s, m));
    CHECK_OK(mn_store_commit(s));
    json_decref(m);
    CHECK_STR(nearest(s, new_text, &f), id);
    CHECK_STR(nearest(s, old_text, &f), "");
    mn_store_free(s);
}

/* Without the meta row (a store written before it), the mark is the highest keyed memory. */
static void test_store_without_mark(void)
{
    REQUIRE(sql_exec("DELETE FROM meta WHERE key = 'fingerprint_keys_through'") == SQLITE_OK);
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    char id[MN_ID_LEN + 1], text[256];
    found f;
    for (int i = RECENT_MAX + 1; i <= RECENT_MAX + 2; i++) {
        id_of(id, i);
        text_of(text, sizeof(text), i);
        CHECK_STR(nearest(s, text, &f), id);
    }
    id_of(id, 1);
    text_of(text, sizeof(text), 1);
    CHECK_STR(nearest(s, text, &f), id);
    mn_store_free(s);
}

static void test_cleanup(void)
{
    rm_rf(tmp);
    CHECK(!mn_fs_exists(tmp));
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_keys_wait_then_flush), MN_TEST(test_edit_below_mark),
             MN_TEST(test_store_without_mark), MN_TEST(test_cleanup))
