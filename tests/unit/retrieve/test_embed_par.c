/*
 * test_embed_par.c - the built-in model trains on several threads and is
 * the same bit for bit whatever their number (embed_par.h).
 *
 * mn_par_run, and a run started and then finished by its caller
 * (mn_par_start, mn_par_finish), must run every part once, on thread
 * indices below the count asked for. Training is then run on one corpus
 * with 1 and 3 threads: the stored model (name, every term's idf, scale and int8 vector) and
 * every document's vector must be byte-identical, with every window in
 * the SVD and with a sample (the rest folded in). The corpus is ~560
 * generated memories (topics of their own words, drawn by a fixed LCG), so
 * that the reading takes two batches of documents (one tokenized while the
 * next is read), the SVD's loops several
 * parts each, and terms first occur in documents different workers read.
 * Training also drops the store's memory map, and reads map it again.
 */
#include "common.h"
#include <sqlite3.h>
#include <stdatomic.h>

#include "retrieve/embed.h"
#include "retrieve/embed_par.h"
#include "store/store.h"
#include "store/store_vector.h"
#include "util/buf.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"

#define DOCS 560

static char tmp[64];

typedef struct {
    atomic_int hits[200];
    atomic_int bad_thread;
    int threads;
} par_check;

static void count_part(void *arg, size_t part, int thread)
{
    par_check *c = arg;
    atomic_fetch_add(&c->hits[part], 1);
    if (thread < 0 || thread >= c->threads)
        atomic_fetch_add(&c->bad_thread, 1);
}

static void test_par_run(void)
{
    static const size_t parts[] = {0, 1, 2, 7, 200};
    for (int threads = 1; threads <= 5; threads++)
        for (size_t i = 0; i < MN_ARRAY_SIZE(parts); i++) {
            par_check *c = mn_calloc(1, sizeof(*c));
            c->threads = threads;
            mn_par_run(threads, parts[i], count_part, c);
            for (size_t p = 0; p < 200; p++)
                CHECK(atomic_load(&c->hits[p]) == (p < parts[i] ? 1 : 0));
            CHECK(atomic_load(&c->bad_thread) == 0);
            /* started, then finished by the caller: the same, once more each */
            mn_par_async a;
            mn_par_start(&a, threads, parts[i], count_part, c);
            mn_par_finish(&a);
            for (size_t p = 0; p < 200; p++)
                CHECK(atomic_load(&c->hits[p]) == (p < parts[i] ? 2 : 0));
            CHECK(atomic_load(&c->bad_thread) == 0);
            free(c);
        }
    mn_embed_set_threads(3);
    CHECK(mn_embed_threads() == 3);
    mn_embed_set_threads(0);
    CHECK(mn_embed_threads() >= 1);
}

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x >> 8;
}

/* A pronounceable word for number w: three syllables. */
static void word(mn_buf *b, uint32_t w)
{
    static const char cons[] = "bdfgklmnprstvz", vow[] = "aeiou";
    for (int i = 0; i < 3; i++) {
        mn_buf_putc(b, cons[w % 14]);
        w /= 14;
        mn_buf_putc(b, vow[w % 5]);
        w /= 5;
    }
    mn_buf_putc(b, ' ');
}

static int insert_corpus(mn_store *s)
{
    uint32_t x = 12345;
    int rc = mn_store_begin(s);
    for (int d = 0; d < DOCS && rc == 0; d++) {
        char id[MN_ID_LEN + 1];
        mn_buf text = MN_BUF_INIT;
        uint32_t topic = (uint32_t)(d / 12) % 25, n = 6 + lcg(&x) % 20;
        for (uint32_t i = 0; i < n; i++) /* 70% the topic's 40 words, else any of 4,000 */
            word(&text, lcg(&x) % 10 < 7 ? 1000 + topic * 40 + lcg(&x) % 40 : lcg(&x) % 4000);
        mn_id_new(id);
        json_t *m = J("{'id':'','kind':'episode','level':'L1','title':'','body':'',"
                      "'provenance':{'source':'import'},'status':'active','confidence':0.9,"
                      "'created_at':'2026-01-01T00:00:00.000Z',"
                      "'updated_at':'2026-01-01T00:00:00.000Z',"
                      "'counters':{'hits':0,'used':0,'ignored':0}}");
        json_object_set_new(m, "id", json_string(id));
        json_object_set_new(m, "title", json_string("note"));
        json_object_set_new(m, "body", json_string(text.ptr));
        rc = mn_store_memory_insert(s, m);
        json_decref(m);
        mn_buf_release(&text);
    }
    if (rc == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

/* Every stored byte of the model and of the vectors, in a fixed order. */
static void dump(const char *path, char **out)
{
    static const char *const sql[] = {
        "SELECT model, dim, docs FROM embed_models",
        "SELECT term, idf, scale, hex(vec) FROM embed_terms ORDER BY term",
        "SELECT owner_kind, owner_id, model, scale, hex(data) FROM vectors ORDER BY 1, 2",
    };
    mn_buf b = MN_BUF_INIT;
    sqlite3 *db = NULL;
    REQUIRE(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql); i++) {
        sqlite3_stmt *st = NULL;
        REQUIRE(sqlite3_prepare_v2(db, sql[i], -1, &st, NULL) == SQLITE_OK);
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                if (sqlite3_column_type(st, c) == SQLITE_FLOAT) /* every bit of a double */
                    mn_buf_printf(&b, "%a|", sqlite3_column_double(st, c));
                else
                    mn_buf_printf(&b, "%s|", (const char *)sqlite3_column_text(st, c));
            }
            mn_buf_putc(&b, '\n');
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    *out = mn_buf_detach(&b);
}

/* The rows of embed_terms: the terms that got a vector. */
static long long stored_terms(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM embed_terms", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* With every window in the SVD, and with a sample of 80 windows of the 560 (a window spans
 * five documents: about a third of them are then in no sampled window, and their terms get
 * their vectors from the fold-in) */
static void test_same_model_any_threads(void)
{
    mn_buf path = MN_BUF_INIT;
    mn_store *s = NULL;
    mn_embed_train_stats ts;
    mn_buf_printf(&path, "%s/db.sqlite", tmp);
    REQUIRE_OK(mn_store_open(&s, path.ptr, NULL));
    REQUIRE_OK(insert_corpus(s));
    for (size_t sample = 0; sample <= 80; sample += 80) {
        char *one = NULL;
        mn_embed_set_sample(sample);
        for (int threads = 1; threads <= 3; threads += 2) {
            mn_embed_set_threads(threads);
            REQUIRE_OK(mn_embed_builtin_train(s, true, &ts));
            CHECK(ts.trained && ts.docs == DOCS && ts.embedded == DOCS);
            CHECK(ts.dim == 64 && ts.terms > 1000);
            /* every term has a vector, the ones only unsampled windows hold included */
            CHECK(stored_terms(path.ptr) == ts.terms);
            char *d = NULL;
            dump(path.ptr, &d);
            REQUIRE(d != NULL);
            CHECK(strlen(d) > 100000);
            if (!one)
                one = d;
            else {
                CHECK_STR(d, one);
                free(d);
            }
        }
        free(one);
    }
    mn_embed_set_sample(0);
    mn_embed_set_threads(0);
    mn_store_free(s);
    mn_buf_release(&path);
}

/* Training drops the store's memory map (the pages `index` read through it stayed resident
 * on top of training's heap: ~83 MB on sympy) and turns it back on for the reads after. */
static void test_training_drops_the_map(void)
{
    mn_buf path = MN_BUF_INIT;
    mn_store *s = NULL;
    mn_embed_train_stats ts;
    int64_t n = 0;
    mn_buf_printf(&path, "%s/db.sqlite", tmp);
    /* the store of the test before, closed: its pages are in the file, not the WAL */
    REQUIRE_OK(mn_store_open(&s, path.ptr, NULL));
    REQUIRE_OK(mn_store_embed_corpus_count(s, &n));
    CHECK(n == DOCS);
    CHECK(file_mapped(path.ptr)); /* a read maps the file */
    REQUIRE_OK(mn_embed_builtin_train(s, true, &ts));
    CHECK(ts.trained && ts.embedded == DOCS);
    CHECK(!file_mapped(path.ptr)); /* dropped by training, not mapped again until a read */
    REQUIRE_OK(mn_store_embed_corpus_count(s, &n));
    CHECK(file_mapped(path.ptr));
    /* off and on directly */
    REQUIRE_OK(mn_store_map_set(s, false));
    CHECK(!file_mapped(path.ptr));
    REQUIRE_OK(mn_store_embed_corpus_count(s, &n));
    CHECK(!file_mapped(path.ptr) && n == DOCS); /* read through the page cache */
    REQUIRE_OK(mn_store_map_set(s, true));
    REQUIRE_OK(mn_store_embed_corpus_count(s, &n));
    CHECK(file_mapped(path.ptr));
    mn_store_free(s);
    mn_buf_release(&path);
}

static void setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-embed-par-XXXXXX");
    if (!mkdtemp(tmp))
        abort();
}

static void teardown(void)
{
    rm_rf(tmp);
    CHECK(!mn_fs_exists(tmp));
}

MN_TEST_MAIN(MN_TEST(setup), MN_TEST(test_par_run), MN_TEST(test_same_model_any_threads),
             MN_TEST(test_training_drops_the_map), MN_TEST(teardown))
