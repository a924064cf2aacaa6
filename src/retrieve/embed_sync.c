/*
 * embed_sync.c - keeping the stored vectors in step with the corpus, and
 * opening the embedder the configuration names.
 *
 * What needs a vector is what has none for the current model: schema v5's
 * triggers delete a vector whenever its memory or chunk changes or goes
 * (src/store/schema_v5.sql), so a sync only asks the store for rows
 * without one, embeds them in batches outside any transaction (an HTTP
 * embedder may take seconds; the store stays writable meanwhile) and
 * writes each batch in a short transaction of its own. A sync that leaves
 * nothing behind records the corpus epoch it started from on the model
 * (synced_epoch); while the epoch has not moved, the next sync is one read.
 * A row changed between the read of its text and the write of its vector
 * keeps the older vector until its next change (the epoch has moved, so the
 * next sync looks again, but the row is no longer "missing"); rare, and
 * corrected by any later edit.
 *
 * A sync that finds the corpus moved on the memories' side only (its
 * chunk side, SQLite schema v19 and PostgreSQL v6, has not moved since the
 * last complete sync) does not look at the chunks.
 *
 * A model other than the embedder's (the configuration changed, or the
 * built-in model was retrained on a grown corpus) is dropped with its
 * vectors: a changed model re-embeds everything.
 */
#include "common.h"

#include "retrieve/embed.h"
#include "store/store_search.h"
#include "store/store_vector.h"
#include "util/util.h"
#include "util/vec.h"

typedef struct {
    MN_VEC(int64_t) ids;
    MN_VEC(char *) texts;
} batch;

static int collect(void *payload, int64_t owner_id, const char *text, size_t len)
{
    batch *b = payload;
    mn_vec_push(&b->ids, owner_id);
    mn_vec_push(&b->texts, mn_strndup(text, len));
    return 0;
}

static void batch_clear(batch *b)
{
    for (size_t i = 0; i < b->texts.len; i++)
        free(b->texts.items[i]);
    b->ids.len = b->texts.len = 0;
}

/* Write one batch of vectors (and the model row, the first time its dimension is known). */
static int write_batch(mn_store *s, mn_embedder *e, const char *kind, const batch *b,
                       const float *vecs)
{
    size_t dim = e->dim;
    int8_t *q = mn_malloc(dim);
    int rc = mn_store_begin(s);
    if (rc) {
        free(q);
        return rc;
    }
    mn_embed_model_rec rec = {e->model, strcmp(e->ops->kind, "builtin") == 0, dim, 0, NULL, 0, -1};
    rc = mn_store_embed_model_put(s, &rec);
    for (size_t i = 0; rc == 0 && i < b->ids.len; i++) {
        float scale = mn_embed_quantize(q, vecs + i * dim, dim);
        rc = mn_store_vector_put(s, kind, b->ids.items[i], e->model, q, dim, scale);
    }
    free(q);
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    return mn_store_commit(s);
}

typedef struct {
    const char *keep;
    bool found;
} other_model;

static int find_other(void *payload, const mn_embed_model_rec *m)
{
    other_model *o = payload;
    if (strcmp(m->model, o->keep) == 0)
        return 0;
    o->found = true;
    return 1;
}

int mn_embed_sync(mn_store *s, mn_embedder *e, size_t limit, mn_embed_sync_stats *stats)
{
    static const char *const kinds[] = {"memory", "chunk"};
    mn_embed_sync_stats local;
    stats = stats ? stats : &local;
    int64_t epoch = 0;
    mn_embed_model_rec rec;
    int rc = mn_store_embed_corpus_epoch(s, &epoch);
    if (rc)
        return rc;
    rc = mn_store_embed_model_get(s, e->model, &rec);
    if (rc == 0 && rec.synced_epoch == epoch)
        return 0; /* nothing changed since the last complete sync */
    if (rc != 0 && rc != MN_ENOTFOUND)
        return rc;
    mn_error_clear();

    /* a changed model re-embeds everything: the others' vectors go (looked for first, so
     * that the common case does not scan every vector) */
    other_model other = {e->model, false};
    if ((rc = mn_store_embed_models_each(s, "", find_other, &other)) != 0 && rc != 1)
        return rc;
    if (other.found) {
        int64_t dropped = 0;
        if ((rc = mn_store_begin(s)) != 0)
            return rc;
        if ((rc = mn_store_embed_models_drop(s, e->model, &dropped)) != 0) {
            mn_store_rollback(s);
            return rc;
        }
        if ((rc = mn_store_commit(s)) != 0)
            return rc;
        stats->dropped += dropped;
    }

    /* the corpus moved, but maybe on the memories' side only (a memory saved): then no
     * chunk lacks a vector, and looking for one reads every chunk (67,000: ~40 ms) */
    bool chunks_current = false;
    if (mn_store_embed_chunks_current(s, e->model, &chunks_current) != 0) {
        chunks_current = false; /* a back end without it looks */
        mn_error_clear();
    }

    batch b = {MN_VEC_INIT, MN_VEC_INIT};
    size_t done = 0, per = e->batch ? e->batch : 64;
    bool complete = true;
    for (size_t k = 0; k < MN_ARRAY_SIZE(kinds) && rc == 0; k++) {
        if (chunks_current && strcmp(kinds[k], "chunk") == 0)
            continue;
        for (;;) {
            size_t want = per;
            if (limit && limit - done < want)
                want = limit - done;
            if (want == 0) {
                complete = false;
                break;
            }
            batch_clear(&b);
            if ((rc = mn_store_vectors_missing(s, e->model, kinds[k], want, collect, &b)) != 0)
                break;
            if (b.ids.len == 0)
                break;
            float *vecs = NULL;
            uint64_t t0 = mn_time_mono_ns();
            rc = mn_embedder_embed(e, &vecs, (const char *const *)b.texts.items, b.texts.len, 0);
            stats->embed_seconds += (double)(mn_time_mono_ns() - t0) / 1e9;
            if (rc == 0)
                rc = write_batch(s, e, kinds[k], &b, vecs);
            free(vecs);
            if (rc)
                break;
            done += b.ids.len;
            stats->embedded += (int64_t)b.ids.len;
            if (b.ids.len < want)
                break; /* that was the last of this kind */
        }
    }
    batch_clear(&b);
    mn_vec_release(&b.ids);
    mn_vec_release(&b.texts);
    if (rc)
        return rc;

    if (!complete) {
        int64_t m = 0, c = 0;
        if ((rc = mn_store_vectors_count(s, e->model, "memory", NULL, &m)) == 0 &&
            (rc = mn_store_vectors_count(s, e->model, "chunk", NULL, &c)) == 0)
            stats->missing = m + c;
        complete = rc == 0 && stats->missing == 0;
        if (rc)
            return rc;
    }
    if (complete && e->dim) { /* nothing left */
        mn_embed_model_rec r = {e->model, strcmp(e->ops->kind, "builtin") == 0, e->dim, 0, NULL, 0,
                                -1};
        rc = mn_embed_mark_synced(s, &r, epoch);
    }
    return rc;
}

int mn_embed_mark_synced(mn_store *s, const mn_embed_model_rec *m, int64_t epoch)
{
    int64_t now = 0;
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    rc = mn_store_embed_corpus_epoch(s, &now);
    if (rc == 0 && now == epoch && (rc = mn_store_embed_model_put(s, m)) == 0)
        rc = mn_store_embed_model_synced(s, m->model, epoch);
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    return mn_store_commit(s);
}

int mn_embedder_open(mn_embedder **out, mn_store *s, const mn_embed_options *o, unsigned flags,
                     mn_embed_sync_stats *stats)
{
    *out = NULL;
    const char *provider = o && o->provider && *o->provider ? o->provider : "builtin";
    if (strcmp(provider, "off") == 0)
        return 0;
    if (strcmp(provider, "http") == 0)
        return mn_embedder_http_new(out, o);
    if (strcmp(provider, "builtin") != 0)
        return mn_error_set(MN_EINVAL, "embed.provider must be builtin, http or off (got '%s')",
                            provider);
    if ((flags & MN_EMBED_MAY_TRAIN) && !mn_store_read_only(s)) {
        /* retraining is only worth a look when the corpus moved since the last sync */
        mn_embedder *cur = NULL;
        int64_t epoch = 0;
        mn_embed_model_rec rec;
        bool look = true;
        int rc = mn_embedder_builtin_open(&cur, s);
        if (rc == 0 && mn_store_embed_corpus_epoch(s, &epoch) == 0 &&
            mn_store_embed_model_get(s, cur->model, &rec) == 0 && rec.synced_epoch == epoch)
            look = false;
        mn_embedder_free(cur);
        mn_error_clear();
        if (look) {
            mn_embed_train_stats local;
            rc = mn_embed_builtin_train(s, false, stats ? &stats->train : &local);
            if (rc)
                return rc;
            if (stats) /* training wrote the corpus's vectors: the sync finds them there */
                stats->embedded += stats->train.embedded;
        }
    }
    return mn_embedder_builtin_open(out, s);
}
