/*
 * embedder.c - the configured embedder, kept in step with the store, for
 * the operations that rank (search, context, recall) and for index.
 *
 * mn_api__embedder opens the embedder config embed.* names
 * (retrieve/embed.h), training the built-in model when it is due, and then
 * embeds what has no vector yet: everything after index, and before a
 * query everything too with the built-in model (fast) but at most
 * QUERY_SYNC_HTTP rows with an HTTP model, so that an answer never waits
 * for a whole corpus (what is left is embedded by the next calls; lexical
 * and graph signals rank it meanwhile). A read-only store is never
 * written: its stored vectors still rank. When anything fails, the caller
 * gets no embedder and a note saying why, and ranks without the semantic
 * signal: semantic search is an addition, never a reason to fail.
 *
 * One training at a time per project of a store in this process. Every
 * caller looks whether the built-in model is due (the corpus grew or shrank
 * by 1.5x), and a server's workers all reach that moment at once: each of
 * them trained the same model at the same time (bench_load: 7 of 8 workers
 * in training, every client waiting 5-18 s, /healthz too, on 2 cores). The
 * first caller claims the project (trainers[]) and trains; any other caller
 * meanwhile opens the current model without looking (it still ranks: it
 * was trained on at least 1/1.5 of the corpus), or none before the first
 * model exists (lexical and graph signals rank then), and embeds nothing:
 * embedding new memories is a write, and the trainer holds the project's
 * write lock while it stores the model and the corpus's vectors (on
 * PostgreSQL, every read waited 2 s behind it); the next call after the
 * claim is released looks and embeds again. Two processes on one store may still
 * train once each. mn_api__embed_trainings counts the trainings (the
 * server's /metrics, and the test that only one of many concurrent callers
 * trains).
 */
#include "common.h"
#include <pthread.h>
#include <stdatomic.h>

#include "api/api_internal.h"
#include "retrieve/embed.h"
#include "store/store_search.h"
#include "store/store_vector.h"

#define QUERY_SYNC_HTTP 64 /* rows embedded before a query with an HTTP model, at most */
#define TRAINERS_MAX    16 /* projects in training at once in a process; more wait their turn */

static pthread_mutex_t trainers_lock = PTHREAD_MUTEX_INITIALIZER;
static char *trainers[TRAINERS_MAX]; /* "db path\nproject" of each claimed project, or NULL */
static atomic_uint_fast64_t trainings;

uint64_t mn_api__embed_trainings(void)
{
    return atomic_load_explicit(&trainings, memory_order_relaxed);
}

/* Claim the right to train this context's project: its slot + 1, or 0 (*busy: another has it;
 * else the table is full, and nobody trains until a slot is free). */
static size_t trainer_claim(const mn_ctx *ctx, bool *busy)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s\n%s", ctx->db_path ? ctx->db_path : "", ctx->project ? ctx->project : "");
    char *key = mn_buf_detach(&b);
    size_t slot = 0;
    bool taken = false;
    pthread_mutex_lock(&trainers_lock);
    for (size_t i = 0; i < TRAINERS_MAX; i++) {
        if (trainers[i] && strcmp(trainers[i], key) == 0)
            taken = true;
        else if (!trainers[i] && !slot)
            slot = i + 1;
    }
    *busy = taken;
    if (taken)
        slot = 0;
    else if (slot) {
        trainers[slot - 1] = key;
        key = NULL;
    }
    pthread_mutex_unlock(&trainers_lock);
    free(key);
    mn_buf_release(&b);
    return slot;
}

static void trainer_release(size_t slot)
{
    if (!slot)
        return;
    pthread_mutex_lock(&trainers_lock);
    free(trainers[slot - 1]);
    trainers[slot - 1] = NULL;
    pthread_mutex_unlock(&trainers_lock);
}

int mn_api__embedder(mn_ctx *ctx, bool for_query, mn_embedder **out, char **note)
{
    mn_embed_options eo = MN_EMBED_OPTIONS_INIT;
    mn_embed_sync_stats st;
    bool writable = !mn_store_read_only(ctx->store);
    *out = NULL;
    *note = NULL;
    memset(&st, 0, sizeof(st));
    int rc = mn_api__embed_options(ctx, &eo);
    if (rc) {
        mn_embed_options_release(&eo);
        return rc; /* a bad config value is the caller's error to report */
    }
    bool off = eo.provider && strcmp(eo.provider, "off") == 0;
    /* before a query: the built-in model embeds ~85,000 short texts a second, so what is
     * missing (new memories) is done at once; an HTTP model pays a round trip per batch */
    bool http = eo.provider && strcmp(eo.provider, "http") == 0;
    size_t sync_limit = for_query && http ? QUERY_SYNC_HTTP : 0;
    /* the built-in model is trained by one caller at a time (the file's comment) */
    bool training_elsewhere = false;
    size_t claim = writable && !off && !http ? trainer_claim(ctx, &training_elsewhere) : 0;
    rc = mn_embedder_open(out, ctx->store, &eo, claim ? MN_EMBED_MAY_TRAIN : 0, &st);
    trainer_release(claim);
    if (st.train.trained)
        atomic_fetch_add_explicit(&trainings, 1, memory_order_relaxed);
    if (rc == 0 && *out && writable && !training_elsewhere)
        rc = mn_embed_sync(ctx->store, *out, sync_limit, &st);
    mn_buf b = MN_BUF_INIT;
    if (rc) {
        mn_buf_printf(&b,
                      "semantic search unavailable: %s; search continues without semantic "
                      "signal",
                      mn_error_last());
        mn_error_clear();
        if (*out && st.embedded == 0 && st.missing > 0) {
            /* the embedder answered nothing: the query would fail the same way */
            mn_embedder_free(*out);
            *out = NULL;
        }
        rc = 0;
    } else if (!*out) {
        mn_buf_puts(&b, off ? "semantic search is off (config embed.provider)"
                            : "semantic search unavailable: too little text yet to learn a "
                              "built-in model from");
    }
    *note = b.len ? mn_buf_detach(&b) : NULL;
    mn_buf_release(&b);
    mn_embed_options_release(&eo);
    return rc;
}

int mn_ctx_prepare(mn_ctx *ctx)
{
    static const char *const kinds[] = {"memory", "chunk"};
    mn_embedder *e = NULL;
    char *note = NULL;
    mn_api__tidy(ctx); /* first: the memories' lengths below are read from the rebuilt index */
    int rc = mn_api__embedder(ctx, true, &e, &note);
    for (size_t i = 0; rc == 0 && e && i < MN_ARRAY_SIZE(kinds); i++) {
        const mn_vector_set *set = NULL;
        /* the process keeps the last sets loaded (vector_store.c): loading is the work */
        if ((rc = mn_store_vectors_load(ctx->store, e->model, kinds[i], &set)) == 0)
            mn_vector_set_release(set);
    }
    if (rc == 0)
        rc = mn_ctx_warm(ctx);
    if (rc)
        mn_log(MN_LOG_WARN, "preparing for the next question: %s", mn_error_last());
    else if (note)
        mn_log(MN_LOG_DEBUG, "%s", note);
    free(note);
    mn_embedder_free(e);
    return rc;
}

void mn_api__tidy(mn_ctx *ctx)
{
    bool rebuilt = false;
    /* a rebuild that fails (another writer kept the lock) is only put off: nothing depends on it */
    if (mn_store_fts_tidy(ctx->store, MN_FTS_MEMORIES, &rebuilt) != 0) {
        mn_log(MN_LOG_WARN, "rebuilding the memories' full-text index: %s", mn_error_last());
        mn_error_clear();
    } else if (rebuilt) {
        mn_log(MN_LOG_DEBUG, "rebuilt the memories' full-text index into one segment");
    }
}

int mn_ctx_warm(mn_ctx *ctx)
{
    /* the memories' lengths, for ranking them without a read per row */
    int rc = mn_store_memory_sizes_prepare(ctx->store);
    ctx->warmed = true; /* tried: a failure is not retried every request */
    return rc;
}

bool mn_ctx_warmed(const mn_ctx *ctx)
{
    return ctx->warmed;
}
