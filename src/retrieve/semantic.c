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

int mn_semantic_topk(mn_store *s, const mn_semantic_query *q, const char *owner_kind, size_t k,
                     mn_semantic_cb cb, void *payload)
{
    const mn_vector_set *set = NULL;
    mn_embed_hit *hits = NULL;
    if (k > MN_SEMANTIC_MAX_K)
        k = MN_SEMANTIC_MAX_K;
    if (k == 0 || q->scale == 0)
        return 0;
    int rc = mn_store_vectors_load(s, q->model, owner_kind, &set);
    if (rc)
        return rc;
    if (set->n > 0 && set->dim != q->dim) {
        rc = mn_error_set(MN_EINVAL,
                          "stored vectors of model '%s' have %zu dimensions, the query %zu",
                          q->model, set->dim, q->dim);
        goto out;
    }
    hits = mn_malloc((k < set->n ? k : set->n + 1) * sizeof(*hits));
    size_t n = mn_embed_topk(hits, k, q->q, q->scale, set->data, set->scales, set->n, set->stride);
    for (size_t i = 0; i < n && rc == 0; i++)
        if (hits[i].score > 0)
            rc = cb(payload, set->ids[hits[i].index], hits[i].score > 1 ? 1.0 : hits[i].score);
out:
    free(hits);
    mn_vector_set_release(set);
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
