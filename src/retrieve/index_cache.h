/*
 * index_cache.h - what plan reads of the index on every call and what stays
 * the same from one call to the next while the index does: the file table
 * (each file's id, path, role, lines, rank and path components) and the
 * neighbours of files over imports and calls (index_cache.c).
 *
 * One cache per process, for the store and index state of the last get
 * (mn_index_stamp): a get whose stamp differs builds a new one; holders of
 * the old one keep it valid until they release it. Thread-safe.
 */
#ifndef MN_RETRIEVE_INDEX_CACHE_H
#define MN_RETRIEVE_INDEX_CACHE_H

#include "common.h"
#include "store/store_search.h"

typedef struct {
    int64_t id;
    const char *path, *role; /* role never NULL ("source" when the index has none) */
    int64_t lines;
    double rank;
    uint32_t comp0, ncomp; /* path components: mn_index_cache_comp(c, k) for k in [comp0,
                              comp0 + ncomp); the last is the file name */
} mn_icache_file;

typedef struct mn_index_cache mn_index_cache;

/** The cache for the store's index as it is now (built when it changed); release it after. */
int mn_index_cache_get(mn_store *s, mn_index_cache **out);
void mn_index_cache_release(mn_index_cache *c);

/** The files of the project, in path order (mn_store_files_each's order). */
size_t mn_index_cache_nfiles(const mn_index_cache *c);
const mn_icache_file *mn_index_cache_files(const mn_index_cache *c);
/** The index into the files of the file with this id, or -1. */
ptrdiff_t mn_index_cache_find(const mn_index_cache *c, int64_t id);
/** Distinct path components: their number, and the component a file's list names. */
size_t mn_index_cache_ncomps(const mn_index_cache *c);
uint32_t mn_index_cache_file_comp(const mn_index_cache *c, size_t k);
const char *mn_index_cache_comp(const mn_index_cache *c, uint32_t comp);

/**
 * mn_store_file_neighbours, each seed's answer kept: the same calls of cb in
 * the same order (a seed's rows are read once per index state and limit
 * share, then replayed).
 */
int mn_index_cache_neighbours(mn_index_cache *c, mn_store *s, const int64_t *files, size_t n,
                              size_t limit,
                              int (*cb)(void *payload, int64_t seed, int64_t other, double weight,
                                        bool outgoing),
                              void *payload);

#endif
