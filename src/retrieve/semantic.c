/*
 * semantic.c - the semantic candidates of a search (semantic.h): embed the
 * query, quantise it like the stored vectors, score every stored vector of
 * the model (mn_embed_topk), report the best.
 *
 * Score = q_scale * v_scale * dot(q8, v8), the int8 estimate of the cosine
 * of two unit vectors (|error| < 0.01 for dimensions >= 32). Rows scoring
 * <= 0 are not candidates: they share nothing with the query the model can
 * see.
 */
#include "common.h"
#include <pthread.h>

#include "retrieve/semantic.h"
#include "store/store_vector.h"

int mn_semantic_query_init(mn_semantic_query *q, mn_embedder *e, const char *text)
{
    memset(q, 0, sizeof(*q));
    float *v = NULL;
    const char *texts[1] = {text ? text : ""};
    int rc = mn_embedder_embed(e, &v, texts, 1, MN_EMBED_QUERY);
    if (rc)
        return rc;
    q->model = mn_strdup(e->model);
    q->dim = e->dim;
    q->q = mn_calloc(1, mn_embed_padded(e->dim));
    q->scale = mn_embed_quantize(q->q, v, e->dim);
    free(v);
    return 0;
}

void mn_semantic_query_release(mn_semantic_query *q)
{
    free(q->model);
    free(q->q);
    memset(q, 0, sizeof(*q));
}

#define JOB_KINDS 2

struct mn_semantic_job {
    const mn_semantic_query *q;
    size_t k, n;
    struct {
        const mn_vector_set *set;
        mn_embed_hit *hits;
        size_t nhits;
    } part[JOB_KINDS];
    pthread_t thread;
    bool running, done;
};

static void scan(mn_semantic_job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        const mn_vector_set *set = j->part[i].set;
        j->part[i].hits = mn_malloc((j->k < set->n ? j->k : set->n + 1) * sizeof(mn_embed_hit));
        j->part[i].nhits = mn_embed_topk(j->part[i].hits, j->k, j->q->q, j->q->scale, set->data,
                                         set->scales, set->n, set->stride);
    }
    j->done = true;
}

static void *scan_thread(void *arg)
{
    scan(arg);
    return NULL;
}

static void wait_job(mn_semantic_job *j)
{
    if (j->running) {
        pthread_join(j->thread, NULL);
        j->running = false;
    }
    if (!j->done)
        scan(j);
}

int mn_semantic_topk_start(mn_store *s, const mn_semantic_query *q, const char *const *owner_kinds,
                           size_t nkinds, size_t k, mn_semantic_job **out)
{
    MN_ASSERT_OR(nkinds <= JOB_KINDS, MN_EINTERNAL);
    mn_semantic_job *j = mn_calloc(1, sizeof(*j));
    int rc = 0;
    j->q = q;
    j->k = k > MN_SEMANTIC_MAX_K ? MN_SEMANTIC_MAX_K : k;
    for (size_t i = 0; i < nkinds && rc == 0; i++) {
        if ((rc = mn_store_vectors_load(s, q->model, owner_kinds[i], &j->part[i].set)) != 0)
            break;
        j->n++;
        if (j->part[i].set->n > 0 && j->part[i].set->dim != q->dim)
            rc = mn_error_set(MN_EINVAL,
                              "stored vectors of model '%s' have %zu dimensions, the query %zu",
                              q->model, j->part[i].set->dim, q->dim);
    }
    if (rc) {
        mn_semantic_job_free(j);
        return rc;
    }
    if (j->k == 0 || q->scale == 0) { /* nothing to rank: every score would be 0 */
        j->n = 0;
        j->done = true;
    } else {
        j->running = pthread_create(&j->thread, NULL, scan_thread, j) == 0;
    }
    *out = j;
    return 0;
}

int mn_semantic_topk_finish(mn_semantic_job *j, size_t i, mn_semantic_cb cb, void *payload)
{
    int rc = 0;
    wait_job(j);
    if (i >= j->n)
        return 0;
    for (size_t h = 0; h < j->part[i].nhits && rc == 0; h++) {
        const mn_embed_hit *hit = &j->part[i].hits[h];
        if (hit->score > 0)
            rc = cb(payload, j->part[i].set->ids[hit->index], hit->score > 1 ? 1.0 : hit->score);
    }
    return rc;
}

void mn_semantic_job_free(mn_semantic_job *j)
{
    if (!j)
        return;
    if (j->running)
        pthread_join(j->thread, NULL);
    for (size_t i = 0; i < JOB_KINDS; i++) {
        free(j->part[i].hits);
        if (j->part[i].set)
            mn_vector_set_release(j->part[i].set);
    }
    free(j);
}

int mn_semantic_topk(mn_store *s, const mn_semantic_query *q, const char *owner_kind, size_t k,
                     mn_semantic_cb cb, void *payload)
{
    mn_semantic_job *j = NULL;
    int rc = mn_semantic_topk_start(s, q, &owner_kind, 1, k, &j);
    if (rc == 0)
        rc = mn_semantic_topk_finish(j, 0, cb, payload);
    mn_semantic_job_free(j);
    return rc;
}

int mn_semantic_search(mn_store *s, mn_embedder *e, const char *query, const char *owner_kind,
                       size_t k, mn_semantic_cb cb, void *payload)
{
    mn_semantic_query q;
    int rc = mn_semantic_query_init(&q, e, query);
    if (rc == 0)
        rc = mn_semantic_topk(s, &q, owner_kind, k, cb, payload);
    mn_semantic_query_release(&q);
    return rc;
}
