/*
 * semantic.h - the semantic candidates of a search: the stored memories or
 * chunks whose vectors are nearest the query's, for the fusion to combine
 * with the lexical and graph signals (docs/internals/embeddings.md says
 * how, with the measurements behind it).
 *
 * The query is embedded once (mn_semantic_query_init) and can then rank
 * memories and chunks (mn_semantic_topk, one call per owner kind). The
 * ranking is exact over every vector of the embedder's model
 * (mn_store_vectors_load: loaded once per change of the vectors, then
 * shared), so what it returns depends only on the vectors, never on an
 * index's approximations. Rows without a vector yet (not synced) are not
 * candidates: call mn_embed_sync first (embed.h).
 */
#ifndef MN_RETRIEVE_SEMANTIC_H
#define MN_RETRIEVE_SEMANTIC_H

#include <stddef.h>
#include <stdint.h>

#include "retrieve/embed.h"

/** Most candidates one call returns. */
#define MN_SEMANTIC_MAX_K 2000

typedef struct {
    char *model; /* the embedder's model the query was embedded with */
    size_t dim;  /* the model's dimension */
    int8_t *q;   /* padded to a multiple of MN_EMBED_LANES */
    float scale; /* 0: the query has nothing the model knows (every score would be 0) */
} mn_semantic_query;

/** Embed a query (MN_EMBED_QUERY); release with mn_semantic_query_release. */
int mn_semantic_query_init(mn_semantic_query *q, mn_embedder *e, const char *text);
void mn_semantic_query_release(mn_semantic_query *q);

/** Receives one candidate: the memory's row id or the chunk's id, and its cosine in (0, 1]. */
typedef int (*mn_semantic_cb)(void *payload, int64_t owner_id, double score);

/**
 * The at most k (<= MN_SEMANTIC_MAX_K) live rows of owner_kind ("memory" or
 * "chunk") of the store's project nearest to q, best first (ties: lower
 * id first), through cb; rows scoring 0 or less are left out. Memories of
 * every status come back (the caller filters them, as it does lexical
 * hits); forgotten ones never do. A non-zero return of cb stops and is
 * returned. MN_EINVAL when the stored vectors of the model have another
 * dimension than q.
 */
int mn_semantic_topk(mn_store *s, const mn_semantic_query *q, const char *owner_kind, size_t k,
                     mn_semantic_cb cb, void *payload);

/*
 * The same ranking on a thread of its own, while the caller goes on (a
 * search does its full-text work meanwhile: the two use different cores,
 * and the vectors' scan is bound by memory bandwidth, SQLite's work by
 * lookups). Start reads the stored vectors of each owner kind through the
 * store, on the caller's thread (the store is not shared with the job),
 * and starts the scan; finish waits for it and reports kind i's rows as
 * mn_semantic_topk would. q must outlive the job. When no thread can be
 * started, finish does the scan itself. Free waits for a job not finished.
 */
typedef struct mn_semantic_job mn_semantic_job;

int mn_semantic_topk_start(mn_store *s, const mn_semantic_query *q, const char *const *owner_kinds,
                           size_t nkinds, size_t k, mn_semantic_job **out);
int mn_semantic_topk_finish(mn_semantic_job *job, size_t i, mn_semantic_cb cb, void *payload);
void mn_semantic_job_free(mn_semantic_job *job);

/** mn_semantic_query_init + mn_semantic_topk + release, for one owner kind. */
int mn_semantic_search(mn_store *s, mn_embedder *e, const char *query, const char *owner_kind,
                       size_t k, mn_semantic_cb cb, void *payload);

#endif
