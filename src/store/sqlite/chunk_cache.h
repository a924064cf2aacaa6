/*
 * chunk_cache.h - what searches need to know of every code chunk, held in
 * memory (chunk_cache.c): the file it is in, for reading a word's posting
 * list as files, and its length in tokens, for ranking without a read of
 * the full-text index's docsize table per row.
 */
#ifndef MN_SQLITE_CHUNK_CACHE_H
#define MN_SQLITE_CHUNK_CACHE_H

#include <stdint.h>

#include "store/sqlite/fts_tokenizer.h"
#include "store/store.h"
#include "store/sqlite/sqlite_internal.h"

typedef struct mn_chunk_cache mn_chunk_cache;

/*
 * The cache of the store's project: shared when one is held for the same
 * store file (path_hash) and state of the chunk index (top: its highest
 * row id, ndocs: its number of rows), else built (get: the file map) or
 * NULL (peek). Peek adds the chunks' lengths to a cache that has none yet.
 * Release it with mn_chunk_cache_release.
 */
int mn_chunk_cache_get(mn_store *s, uint64_t path_hash, int64_t top, int64_t ndocs,
                       mn_chunk_cache **out);
mn_chunk_cache *mn_chunk_cache_peek(mn_store *s, uint64_t path_hash, int64_t top, int64_t ndocs);
void mn_chunk_cache_release(mn_chunk_cache *c);

/* The file of a chunk, 0 when it is none of the project's files. */
int64_t mn_chunk_cache_file(const mn_chunk_cache *c, int64_t chunk);

/* The chunks' lengths, as mnemo_bm25 takes them (NULL: not held). */
const mn_fts_doc_sizes *mn_chunk_cache_sizes(const mn_chunk_cache *c);

#endif
