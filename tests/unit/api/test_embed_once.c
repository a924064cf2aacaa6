/*
 * test_embed_once.c - the built-in model is retrained by one caller at a
 * time (src/api/embedder.c). A served store's workers each hold a context
 * of their own and all reach the moment a retraining is due together: every
 * one of them used to train the same model at once (the stall of every
 * client under bench_load, docs/internals/load.md). Here THREADS contexts on
 * one store, each on its own thread, search together (a barrier) right
 * after the corpus passed 1.5x the model's: exactly one training happens
 * (mn_api__embed_trainings), every search answers, the others with the
 * model the store already had, and the next search after finds the new
 * model in place (no second training).
 */
#include "common.h"
#include <pthread.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "test.h"
#include "test_fs.h"
#include "test_ctx.h"
#include "test_json.h"

#define THREADS 8
#define FIRST   400 /* memories of the first model */
#define SECOND  700 /* > 1.5 x FIRST: the model is due again */

static char tmp[64];
static char db[96];
static pthread_barrier_t start;

static const char *const words[] = {
    "index",   "schema", "migration", "query",  "latency", "lock",    "deadlock", "cache",
    "token",   "server", "worker",    "thread", "socket",  "timeout", "retry",    "commit",
    "branch",  "merge",  "review",    "deploy", "config",  "parser",  "vector",   "model",
    "journal", "backup", "replica",   "quota",  "budget",  "planner", "sampler",  "buffer"};

static mn_ctx *open_ctx(void)
{
    mn_ctx *ctx = test_ctx_at(db, tmp, MN_FRONT_LOCAL_CLI);
    if (!ctx) {
        fprintf(stderr, "cannot open %s: %s\n", db, mn_error_last());
        abort();
    }
    return ctx;
}

static int call(mn_ctx *ctx, const char *op, json_t *args)
{
    json_t *out = NULL;
    int rc = mn_api_call(ctx, op, args, &out);
    if (rc)
        fprintf(stderr, "%s failed: %s\n", op, mn_error_last());
    json_decref(args);
    json_decref(out);
    return rc;
}

/* Memories from..to-1: a few words each, so that the model has terms and windows to learn. */
static void save_range(mn_ctx *ctx, int from, int to)
{
    size_t n = MN_ARRAY_SIZE(words);
    for (int i = from; i < to; i++) {
        char title[160], body[200];
        snprintf(title, sizeof(title), "note %d: %s %s %s", i, words[(size_t)i % n],
                 words[(size_t)(i * 7 + 3) % n], words[(size_t)(i * 13 + 5) % n]);
        snprintf(body, sizeof(body), "the %s of the %s waits on the %s (case %d)",
                 words[(size_t)(i * 3 + 1) % n], words[(size_t)(i * 5 + 2) % n],
                 words[(size_t)(i * 11 + 7) % n], i);
        REQUIRE(call(ctx, "save",
                     json_pack("{s:s,s:s,s:s}", "kind", "fact", "title", title, "body", body)) ==
                0);
    }
}

typedef struct {
    mn_ctx *ctx;
    int rc;
} worker;

static void *search_together(void *arg)
{
    worker *w = arg;
    pthread_barrier_wait(&start);
    w->rc = call(w->ctx, "search", json_pack("{s:s}", "query", "lock timeout worker"));
    return NULL;
}

static void test_one_training(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-embedonce-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    snprintf(db, sizeof(db), "%s/mnemo.db", tmp);
    setenv("MNEMO_NOW_MS", "1795239445123", 1);
    unsetenv("MNEMO_DB");
    unsetenv("MNEMO_PROJECT");
    mn_ctx *main_ctx = open_ctx();
    REQUIRE(call(main_ctx, "config",
                 json_pack("{s:s,s:s,s:s}", "action", "set", "key", "memory.dedup", "value",
                           "false")) == 0);
    save_range(main_ctx, 0, FIRST);
    uint64_t t0 = mn_api__embed_trainings();
    REQUIRE(call(main_ctx, "search", json_pack("{s:s}", "query", "index schema")) == 0);
    CHECK(mn_api__embed_trainings() == t0 + 1); /* the first model */
    save_range(main_ctx, FIRST, SECOND);

    worker w[THREADS];
    pthread_t th[THREADS];
    REQUIRE(pthread_barrier_init(&start, NULL, THREADS) == 0);
    for (int i = 0; i < THREADS; i++) {
        w[i].ctx = open_ctx();
        w[i].rc = -1;
    }
    uint64_t t1 = mn_api__embed_trainings();
    for (int i = 0; i < THREADS; i++)
        REQUIRE(pthread_create(&th[i], NULL, search_together, &w[i]) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++)
        CHECK(w[i].rc == 0);
    /* one of them retrained; the others ranked with the model there was */
    uint64_t t2 = mn_api__embed_trainings();
    if (t2 != t1 + 1)
        fprintf(stderr, "%d searches together trained %llu models\n", THREADS,
                (unsigned long long)(t2 - t1));
    CHECK(t2 == t1 + 1);
    /* and the model they left fits the corpus: nobody trains it again */
    REQUIRE(call(main_ctx, "search", json_pack("{s:s}", "query", "deploy backup")) == 0);
    CHECK(mn_api__embed_trainings() == t2);

    for (int i = 0; i < THREADS; i++)
        mn_ctx_free(w[i].ctx);
    pthread_barrier_destroy(&start);
    mn_ctx_free(main_ctx);
    unsetenv("MNEMO_NOW_MS");
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_one_training))
