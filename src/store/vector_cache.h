/*
 * vector_cache.h - the shared vector sets of store_vector.h's
 * mn_store_vectors_load, one cache for every back end: the last
 * MN_VSET_CACHE sets loaded stay in the process, reference counted and
 * immutable, keyed by a back end's text (its location, project, model,
 * owner kind, the model row's nonce) and served again while the model's
 * epoch is the one they were loaded at. sqlite/vector_store.c and
 * postgres/pg_vector.c fill sets and hand them out; mn_vector_set_release
 * (defined here) gives one back.
 */
#ifndef MN_STORE_VECTOR_CACHE_H
#define MN_STORE_VECTOR_CACHE_H

#include "store/sqlite/vector_file.h"
#include "store/store_vector.h"

#define MN_VSET_CACHE 4

typedef struct {
    mn_vector_set pub; /* first: a set handed out is this struct */
    char *key;
    int64_t epoch;
    int refs;
    int64_t *ids;
    int8_t *data;
    float *scales;
    mn_vfile file; /* the rows when mapped from SQLite's side file instead */
} mn_vset;

/* A new empty set of dim (one reference: the caller's). */
mn_vset *mn_vset_new(size_t dim);
/* The cached set of key at epoch with one more reference, or NULL. */
mn_vset *mn_vset_cache_get(const char *key, int64_t epoch);
/* Cache v (its key set), replacing the set of the same key or the least recent. */
void mn_vset_cache_put(mn_vset *v);
/* Append one row (amortised growth); a row whose bytes are not dim long keeps scale 0. */
void mn_vset_push(mn_vset *v, size_t *cap, int64_t id, float scale, const void *q, size_t len);

#endif
