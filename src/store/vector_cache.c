/*
 * vector_cache.c - the shared vector sets (vector_cache.h), for every back
 * end. A top-k needs every vector of a model in one contiguous array, and
 * reading 100,000 rows on each search would dominate its cost: the last
 * MN_VSET_CACHE sets loaded stay, and a set is handed out again while its
 * model's epoch (read before the rows by the loader, so a set is never
 * older than its epoch) has not moved. One mutex guards the table and the
 * reference counts; a set itself never changes once cached.
 */
#include "common.h"
#include <pthread.h>

#include "store/vector_cache.h"
#include "util/util.h"

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static mn_vset *cache[MN_VSET_CACHE]; /* most recently loaded first */

static void unref_locked(mn_vset *v)
{
    if (v && --v->refs == 0) {
        mn_vfile_close(&v->file);
        free(v->key);
        free(v->ids);
        free(v->data);
        free(v->scales);
        free(v);
    }
}

void mn_vector_set_release(const mn_vector_set *set)
{
    if (!set)
        return;
    pthread_mutex_lock(&cache_lock);
    unref_locked((mn_vset *)set);
    pthread_mutex_unlock(&cache_lock);
}

mn_vset *mn_vset_cache_get(const char *key, int64_t epoch)
{
    mn_vset *hit = NULL;
    pthread_mutex_lock(&cache_lock);
    for (size_t i = 0; i < MN_VSET_CACHE && !hit; i++)
        if (cache[i] && cache[i]->epoch == epoch && strcmp(cache[i]->key, key) == 0) {
            hit = cache[i];
            hit->refs++;
        }
    pthread_mutex_unlock(&cache_lock);
    return hit;
}

void mn_vset_cache_put(mn_vset *v)
{
    pthread_mutex_lock(&cache_lock);
    /* the entry it replaces (same key, older epoch), or the least recent */
    size_t slot = MN_VSET_CACHE - 1;
    for (size_t i = 0; i < MN_VSET_CACHE; i++)
        if (cache[i] && strcmp(cache[i]->key, v->key) == 0) {
            slot = i;
            break;
        }
    unref_locked(cache[slot]);
    memmove(&cache[1], &cache[0], slot * sizeof(cache[0]));
    cache[0] = v;
    v->refs++;
    pthread_mutex_unlock(&cache_lock);
}

mn_vset *mn_vset_new(size_t dim)
{
    mn_vset *v = mn_calloc(1, sizeof(*v));
    v->refs = 1;
    v->pub.dim = dim;
    v->pub.stride = (dim + MN_VECTOR_LANES - 1) / MN_VECTOR_LANES * MN_VECTOR_LANES;
    return v;
}

void mn_vset_push(mn_vset *v, size_t *cap, int64_t id, float scale, const void *q, size_t len)
{
    size_t stride = v->pub.stride;
    if (v->pub.n == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        v->ids = mn_realloc(v->ids, *cap * sizeof(*v->ids));
        v->scales = mn_realloc(v->scales, *cap * sizeof(*v->scales));
        v->data = mn_realloc(v->data, *cap * stride);
    }
    size_t i = v->pub.n++;
    v->ids[i] = id;
    v->scales[i] = scale;
    memset(v->data + i * stride, 0, stride);
    if (q && len == v->pub.dim)
        memcpy(v->data + i * stride, q, len);
    else
        v->scales[i] = 0; /* damaged: never ranks */
}
