/*
 * test_pg_blocks.c - the PostgreSQL back end's postings in compact blocks
 * (pg_blocks.c, schema_v4.sql; registered as pg/pg_blocks, label pg): a
 * block's bytes round-trip; a term over several blocks, folded by the
 * writers themselves past MN_PG_FOLD_AT, ranks as SQLite's FTS5 does, also
 * after rows in the middle of blocks are edited, forgotten and purged and
 * folded again; a store of schema 3 (all its postings a row each) has them
 * folded at its first writable open and counts the same.
 */
#include "common.h"
#include <math.h>

#include "store/postgres/pg_blocks.h"
#include "store/store.h"
#include "store/store_search.h"
#include "store/store_terms.h"
#include "text/tokenize.h"
#include "test.h"
#include "test_json.h"
#include "test_store.h"
#include "pg_same.h"

extern const char *const mn_pg_schemas[];
extern const size_t mn_pg_schemas_count;

static void test_block_round_trip(void)
{
    int32_t pool[] = {0, 3, 9, 4, 70000, 1, 2};
    /* rows far apart, a row with two fields, a large position and row id */
    mn_pg_block_ent e[] = {{5, 0, 3, 12, 1, 0},
                           {5, 2, 1, 12, 1, 3},
                           {900, 1, 1, 4000, 0, 4},
                           {(int64_t)1 << 40, 3, 2, 7, 0, 5}};
    mn_buf b = MN_BUF_INIT;
    mn_pg__block_encode(&b, e, MN_ARRAY_SIZE(e), pool);
    CHECK(b.len < 40); /* varints: a few bytes a posting */
    mn_pg_block_it it;
    mn_pg__block_init(&it, (const unsigned char *)b.ptr, b.len);
    size_t n = 0;
    while (mn_pg__block_next(&it)) {
        REQUIRE(n < MN_ARRAY_SIZE(e));
        CHECK(it.rowid == e[n].rowid && it.field == e[n].field && it.tf == e[n].tf &&
              it.ntok == e[n].ntok && it.flags == e[n].flags);
        int32_t pos[4];
        mn_pg__block_positions(&it, pos);
        for (int32_t k = 0; k < it.tf; k++)
            CHECK(pos[k] == pool[e[n].pos + (uint32_t)k]);
        n++;
    }
    CHECK(n == MN_ARRAY_SIZE(e) && !it.bad);
    /* cut short: what was read stands, the rest is refused, nothing read past the end */
    mn_pg__block_init(&it, (const unsigned char *)b.ptr, b.len - 1);
    n = 0;
    while (mn_pg__block_next(&it))
        n++;
    CHECK(n == MN_ARRAY_SIZE(e) - 1 && it.bad);
    mn_buf_release(&b);
}

/* Memory i: words every memory has, words of some, one of its own; ~60 distinct terms. */
static json_t *memory_json(size_t i, const char *extra)
{
    char id[32];
    snprintf(id, sizeof(id), "01J0000000000000000000%04zu", i);
    mn_buf body = MN_BUF_INIT;
    mn_buf_printf(&body, "common words of note %zu%s%s%s", i, i % 2 ? " even" : "",
                  i % 3 ? "" : " third retry backoff", extra ? extra : "");
    for (size_t k = 0; k < 50; k++)
        mn_buf_printf(&body, " w%zu", (i * 7 + k) % 120);
    json_t *j = J("{'kind':'fact','level':'L1','title':'','body':'',"
                  "'provenance':{'source':'manual'},'status':'active','confidence':0.9,"
                  "'created_at':'2026-01-01T00:00:00.000Z','updated_at':'2026-01-01T00:00:00.000Z',"
                  "'counters':{'hits':0,'used':0,'ignored':0},'context':{},'scope':{}}");
    char title[64];
    snprintf(title, sizeof(title), "Note %zu on retry", i);
    json_object_set_new(j, "id", json_string(id));
    json_object_set_new(j, "title", json_string(title));
    json_object_set_new(j, "body", json_string(body.ptr));
    mn_buf_release(&body);
    return j;
}

#define NMEM 420 /* ~25,000 postings: the writers fold once */

static int write_all(mn_store *s)
{
    int rc = 0;
    for (size_t i = 0; i < NMEM && rc == 0; i++) {
        if ((rc = mn_store_begin(s)) != 0)
            break;
        json_t *j = memory_json(i, NULL);
        rc = mn_store_memory_insert(s, j);
        json_decref(j);
        if (rc == 0)
            rc = mn_store_commit(s);
        else
            mn_store_rollback(s);
    }
    return rc;
}

/* Rows in the middle of blocks: one edited (its row id again, in the tail), forgotten,
 * restored, purged. */
static int change_some(mn_store *s)
{
    int rc = mn_store_begin(s);
    if (rc == 0) {
        json_t *j = memory_json(60, " lazily rewritten");
        rc = mn_store_memory_replace(s, j);
        json_decref(j);
    }
    if (rc == 0)
        rc = mn_store_memory_set_deleted(s, "01J00000000000000000000100", 1000);
    if (rc == 0)
        rc = mn_store_memory_set_deleted(s, "01J00000000000000000000150", 1000);
    if (rc == 0)
        rc = mn_store_memory_set_deleted(s, "01J00000000000000000000150", 0);
    if (rc == 0)
        rc = mn_store_memory_purge(s, "01J00000000000000000000200");
    if (rc == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

/* The hits compared on both stores. */
static size_t compare(mn_store *lite, mn_store *pg, const char *what, const mn_memory_query *q,
                      bool counts)
{
    pg_hits a = {0}, b = {0};
    CHECK_OK(mn_store_search_memories(lite, q, pg_hits_collect, &a));
    CHECK_OK(mn_store_search_memories(pg, q, pg_hits_collect, &b));
    CHECK(pg_hits_same(what, &a, &b));
    if (!counts) /* search_store.c caches its counts a while (a little stale is allowed) */
        return a.n;
    int64_t ca = -1, cb = -2;
    CHECK_OK(mn_store_fts_count(lite, MN_FTS_MEMORIES, q->match, &ca, NULL));
    CHECK_OK(mn_store_fts_count(pg, MN_FTS_MEMORIES, q->match, &cb, NULL));
    if (ca != cb)
        fprintf(stderr, "%s: counts %lld vs %lld\n", what, (long long)ca, (long long)cb);
    CHECK(ca == cb);
    return a.n;
}

static size_t compare_all(mn_store *lite, mn_store *pg, bool counts)
{
    static const char *const texts[] = {"common note",      "even third",  "retry backoff",
                                        "lazily rewritten", "w5 w17 w99",  "note 60",
                                        "retry_backoff",    "common words"};
    static const double shares[] = {0, 0.5, 0.1};
    mn_buf m = MN_BUF_INIT;
    size_t n = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(texts); i++) {
        mn_buf_truncate(&m, 0);
        mn_store_fts_text_query(&m, texts[i], strlen(texts[i]), 0);
        for (size_t k = 0; k < MN_ARRAY_SIZE(shares); k++) {
            mn_memory_query q = {.match = m.ptr, .limit = 10, .newest = shares[k]};
            n += compare(lite, pg, texts[i], &q, counts);
        }
    }
    double idf[2] = {0.7, 1.9};
    mn_memory_query a = {.match = "\"even\" AND \"third\"", .limit = 10, .idf = idf, .nidf = 2};
    n += compare(lite, pg, "and idf", &a, counts);
    a.newest = 0.3;
    n += compare(lite, pg, "and idf newest", &a, counts);
    mn_buf_release(&m);
    return n;
}

/* The invariants of pg_blocks.c over the whole store. */
static void check_blocks(const char *loc)
{
    /* a term's blocks never overlap */
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM fts_blocks a JOIN fts_blocks b ON "
                                  "b.project_id = a.project_id AND b.tbl = a.tbl AND b.term = "
                                  "a.term AND b.last > a.last AND b.first <= a.last") == 0);
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM fts_blocks WHERE first > last OR ndocs "
                                  "< 1 OR ndocs > 128") == 0);
    /* every row holding a term is in its blocks or its tail, once */
    CHECK(test_store_sql_int(
              loc,
              "SELECT count(*) FROM (SELECT d.project_id, d.tbl, t, count(*) AS n FROM "
              "fts_docs d, unnest(d.terms) AS t GROUP BY 1, 2, 3) x WHERE n <> coalesce((SELECT "
              "sum(ndocs) FROM fts_blocks b WHERE b.project_id = x.project_id AND b.tbl = "
              "x.tbl AND b.term = x.t), 0) + (SELECT count(DISTINCT rowid) FROM fts_postings p "
              "WHERE p.project_id = x.project_id AND p.tbl = x.tbl AND p.term = x.t)") == 0);
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM fts_stats s WHERE tail <> (SELECT "
                                  "count(*) FROM fts_postings p WHERE p.project_id = "
                                  "s.project_id AND p.tbl = s.tbl)") == 0);
}

static void test_blocks_rank_like_sqlite(void)
{
    char dir[] = "/tmp/mnemo_pgblocks_XXXXXX";
    REQUIRE(test_store_pg() != NULL);
    REQUIRE(mkdtemp(dir) != NULL);
    mn_buf path = MN_BUF_INIT;
    mn_buf_printf(&path, "%s/lite.db", dir);
    char *loc = test_store_new(NULL);
    REQUIRE(loc);
    mn_store *lite = NULL, *pg = NULL;
    REQUIRE_OK(mn_store_open(&lite, path.ptr, NULL));
    REQUIRE_OK(mn_store_open(&pg, loc, NULL));
    REQUIRE_OK(write_all(lite));
    REQUIRE_OK(write_all(pg));
    /* the writers folded their tail once it passed the bound: "common" (in every row) over
     * several blocks, the rows since in the tail */
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM fts_blocks WHERE term = 'common'") >= 3);
    CHECK(test_store_sql_int(loc, "SELECT max(tail) FROM fts_stats") <= MN_PG_FOLD_AT);
    check_blocks(loc);
    size_t n = compare_all(lite, pg, true);
    CHECK(n > 100);
    /* rows in the middle of blocks change; then all of it folded again */
    REQUIRE_OK(change_some(lite));
    REQUIRE_OK(change_some(pg));
    check_blocks(loc);
    compare_all(lite, pg, false);
    REQUIRE_OK(mn_store_begin(pg));
    CHECK_OK(mn_pg__blocks_fold(pg, MN_FTS_MEMORIES));
    CHECK_OK(mn_store_commit(pg));
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM fts_postings") == 0);
    check_blocks(loc);
    /* the purged row is in no block, the edited one in its old place with its new words */
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM fts_blocks WHERE term = 'lazili'") == 1);
    n = compare_all(lite, pg, false);
    printf("%zu hits compared\n", n);
    CHECK(n > 100);
    mn_store_free(lite);
    mn_store_free(pg);
    free(loc);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    mn_buf_release(&path);
}

/* A store of schema 3 keeps every posting a row: its first writable open folds them into
 * blocks, and they count as before. */
static void test_migrates_v3(void)
{
    char *loc = test_store_new(NULL);
    REQUIRE(loc);
    REQUIRE(mn_pg_schemas_count >= 4);
    for (size_t v = 0; v < 3; v++)
        REQUIRE(test_store_sql_exec(loc, mn_pg_schemas[v]) == 0);
    char sql[1024];
    snprintf(sql, sizeof(sql),
             "INSERT INTO meta(key, value) VALUES ('schema_version', '3'), ('written_by', "
             "'mnemo 0.27'), ('fts_tokenizer_version', '%d'); "
             "INSERT INTO projects(name, created_at) VALUES ('default', 1)",
             MN_TOK_VERSION);
    REQUIRE(test_store_sql_exec(loc, sql) == 0);
    /* 300 rows each holding 100 terms in its body, term k at position k: 30,000 postings,
     * past the bound; the terms are stems as the tokenizer leaves them (q and two consonants:
     * term 7 qjb, 8 qkb, 9 qlb) */
    REQUIRE(
        test_store_sql_exec(
            loc,
            "INSERT INTO fts_postings(project_id, tbl, term, rowid, field, tf, ntok, "
            "flags, pos) SELECT 1, 0, 'q' || substr('bcdfghjklmnpqrtvwxz', g % 100 % 19 + 1, 1) || "
            "substr('bcdfghjklmnpqrtvwxz', g % 100 / 19 + 1, 1), g / 100 + 1, 2, 1, 100, 0, "
            "ARRAY[g % 100] FROM generate_series(0, 29999) g; "
            "INSERT INTO fts_docs(project_id, tbl, rowid, ntok, lens, flags, terms) "
            "SELECT 1, 0, r, 100, '{0,0,100,0}', 0, (SELECT array_agg('q' || "
            "substr('bcdfghjklmnpqrtvwxz', k % 19 + 1, 1) || "
            "substr('bcdfghjklmnpqrtvwxz', k / 19 + 1, 1)) FROM generate_series(0, 99) k) FROM "
            "generate_series(1, 300) r; "
            "INSERT INTO fts_stats(project_id, tbl, ndocs, ntok) VALUES (1, 0, 300, "
            "30000)") == 0);
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, loc, NULL));
    CHECK(mn_store_schema_version(s) == (int)mn_pg_schemas_count);
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM fts_postings") == 0);
    CHECK(test_store_sql_int(loc, "SELECT count(*) FROM fts_blocks WHERE term = 'qjb'") == 3);
    check_blocks(loc);
    int64_t n = 0;
    CHECK_OK(mn_store_fts_count(s, MN_FTS_MEMORIES, "\"qjb\"", &n, NULL));
    CHECK(n == 300);
    /* positions kept: term 7 stands right before term 8 in every row, never before 9 */
    CHECK_OK(mn_store_fts_count(s, MN_FTS_MEMORIES, "\"qjb qkb\"", &n, NULL));
    CHECK(n == 300);
    CHECK_OK(mn_store_fts_count(s, MN_FTS_MEMORIES, "\"qjb qlb\"", &n, NULL));
    CHECK(n == 0);
    mn_store_free(s);
    free(loc);
}

static void test_cleanup(void)
{
    test_store_drop_all();
}

MN_TEST_MAIN(MN_TEST(test_block_round_trip), MN_TEST(test_blocks_rank_like_sqlite),
             MN_TEST(test_migrates_v3), MN_TEST(test_cleanup))
