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
 */
#include "common.h"

#include "api/api_internal.h"
#include "retrieve/embed.h"
#include "store/store_search.h"
#include "store/store_vector.h"

#define QUERY_SYNC_HTTP 64 /* rows embedded before a query with an HTTP model, at most */

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
    rc = mn_embedder_open(out, ctx->store, &eo, writable ? MN_EMBED_MAY_TRAIN : 0, &st);
    if (rc == 0 && *out && writable)
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
