/*
 * test_vector_batch.c - on PostgreSQL the vectors and the built-in model's
 * terms are written in batches (pg_vector.c: a statement for many rows,
 * not a round trip each, so that the model's trainer holds the project's
 * write lock briefly; docs/internals/store-postgres.md). Registered as
 * pg/vector_batch (label pg). What it holds the batches to:
 * - one statement for a transaction's vectors: the model's epoch (moved by
 *   a statement trigger per statement that writes its vectors) moves once
 *   for 300 vectors (it moved 300 times before);
 * - the same rows as one put at a time: the last put of a key wins, the
 *   bytes and scales read back exactly, terms with quotes and backslashes;
 * - a read in the transaction sees the rows put before it, a rollback
 *   forgets them, and an unrecorded model fails the put at once.
 */
#include "common.h"

#include "store/store.h"
#include "store/store_vector.h"
#include "test.h"
#include "test_store.h"

#define DIM   8
#define N     300
#define MODEL "http:batch"

static void fill(int8_t *q, int64_t id, int salt)
{
    for (int i = 0; i < DIM; i++)
        q[i] = (int8_t)((id * 7 + i * 13 + salt) % 255 - 127);
}

typedef struct {
    double idf[2];
    float scale[2];
    int8_t q[2][DIM];
    int seen;
} terms_got;

static int on_term(void *payload, size_t which, double idf, const int8_t *q, size_t qlen,
                   float scale)
{
    terms_got *g = payload;
    if (which > 1 || qlen != DIM)
        return -1;
    g->idf[which] = idf;
    g->scale[which] = scale;
    memcpy(g->q[which], q, DIM);
    g->seen++;
    return 0;
}

static void test_batches(void)
{
    if (!test_store_pg()) {
        printf("skip: %s: needs MNEMO_TEST_PG (a PostgreSQL server)\n", __func__);
        return;
    }
    char *db = test_store_new(NULL);
    REQUIRE(db);
    mn_store *s = NULL;
    REQUIRE(mn_store_open(&s, db, NULL) == 0);
    mn_embed_model_rec rec = {MODEL, false, DIM, 0, NULL, 0, -1};
    REQUIRE(mn_store_begin(s) == 0);
    REQUIRE(mn_store_embed_model_put(s, &rec) == 0);
    REQUIRE(mn_store_commit(s) == 0);
    int64_t e0 = test_store_sql_int(db, "SELECT epoch FROM embed_models WHERE model = '" MODEL "'");

    /* N vectors and one of them again: one statement, the last put wins */
    int8_t q[DIM], want7[DIM];
    REQUIRE(mn_store_begin(s) == 0);
    for (int64_t id = 1; id <= N; id++) {
        fill(q, id, 0);
        REQUIRE(mn_store_vector_put(s, id % 2 ? "memory" : "chunk", id, MODEL, q, DIM,
                                    (float)id / 1024) == 0);
    }
    fill(want7, 7, 1);
    REQUIRE(mn_store_vector_put(s, "memory", 7, MODEL, want7, DIM, 0.125f) == 0);
    REQUIRE(mn_store_commit(s) == 0);
    int64_t e1 = test_store_sql_int(db, "SELECT epoch FROM embed_models WHERE model = '" MODEL "'");
    if (e1 - e0 != 1)
        fprintf(stderr, "%d vectors in one transaction moved the epoch %lld times\n", N + 1,
                (long long)(e1 - e0));
    CHECK(e1 - e0 == 1);
    CHECK(test_store_sql_int(db, "SELECT count(*) FROM vectors") == N);
    CHECK(test_store_sql_int(db, "SELECT count(*) FROM vectors WHERE owner_kind = 'chunk'") ==
          N / 2);
    int8_t *got = NULL;
    size_t dim = 0;
    float scale = 0;
    CHECK(mn_store_vector_get(s, "memory", 7, MODEL, &got, &dim, &scale) == 0);
    CHECK(dim == DIM && scale == 0.125f && got && memcmp(got, want7, DIM) == 0);
    free(got);
    got = NULL;
    fill(q, 200, 0);
    CHECK(mn_store_vector_get(s, "chunk", 200, MODEL, &got, &dim, &scale) == 0);
    CHECK(dim == DIM && scale == 200.0f / 1024 && got && memcmp(got, q, DIM) == 0);
    free(got);
    got = NULL;

    /* a read in the transaction sees what was put; a rollback forgets it */
    REQUIRE(mn_store_begin(s) == 0);
    fill(q, 1000, 2);
    CHECK(mn_store_vector_put(s, "memory", 1000, MODEL, q, DIM, 0.5f) == 0);
    CHECK(mn_store_vector_get(s, "memory", 1000, MODEL, &got, &dim, &scale) == 0);
    CHECK(got && memcmp(got, q, DIM) == 0);
    free(got);
    got = NULL;
    CHECK(mn_store_vector_put(s, "memory", 1001, MODEL, q, DIM, 0.5f) == 0);
    mn_store_rollback(s);
    CHECK(test_store_sql_int(db, "SELECT count(*) FROM vectors WHERE owner_id >= 1000") == 0);
    CHECK(mn_store_vector_get(s, "memory", 1001, MODEL, &got, &dim, &scale) == MN_ENOTFOUND);
    mn_error_clear();

    /* an unrecorded model, or another dimension, fails the put at once */
    REQUIRE(mn_store_begin(s) == 0);
    CHECK(mn_store_vector_put(s, "memory", 1, "http:none", q, DIM, 0.5f) == MN_EINVAL);
    CHECK(mn_store_vector_put(s, "memory", 1, MODEL, q, DIM - 1, 0.5f) == MN_EINVAL);
    mn_store_rollback(s);
    mn_error_clear();

    /* terms: quotes and backslashes, the last put of a term wins */
    const char *const terms[] = {"alpha", "be\"ta\\{x,y}"};
    int8_t t0[DIM], t1[DIM];
    fill(t0, 1, 3);
    fill(t1, 2, 4);
    REQUIRE(mn_store_begin(s) == 0);
    CHECK(mn_store_embed_term_put(s, MODEL, "alpha", 5, 1.5, t1, DIM, 0.25f) == 0);
    CHECK(mn_store_embed_term_put(s, MODEL, terms[1], strlen(terms[1]), 0.1, t1, DIM, 0.75f) == 0);
    CHECK(mn_store_embed_term_put(s, MODEL, "alpha", 5, 2.5, t0, DIM, 0.5f) == 0);
    CHECK(mn_store_commit(s) == 0);
    terms_got g = {0};
    CHECK(mn_store_embed_terms_get(s, MODEL, terms, 2, on_term, &g) == 0);
    CHECK(g.seen == 2);
    CHECK(g.idf[0] == 2.5 && g.scale[0] == 0.5f && memcmp(g.q[0], t0, DIM) == 0);
    CHECK(g.idf[1] == 0.1 && g.scale[1] == 0.75f && memcmp(g.q[1], t1, DIM) == 0);

    mn_store_free(s);
    free(db);
    test_store_drop_all();
}

MN_TEST_MAIN(MN_TEST(test_batches))
