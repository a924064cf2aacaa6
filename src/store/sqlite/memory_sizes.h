/*
 * memory_sizes.h - the memories' lengths in tokens for ranking, held by a
 * long-lived process (memory_sizes.c). mn_store_memory_sizes_prepare is in
 * store_search.h.
 */
#ifndef MN_SQLITE_MEMORY_SIZES_H
#define MN_SQLITE_MEMORY_SIZES_H

#include "store/sqlite/fts_tokenizer.h"
#include "store/store.h"

/**
 * The lengths, when prepared and still those of the full-text index as the
 * caller's transaction sees it; NULL otherwise (rank without them).
 */
const mn_fts_doc_sizes *mn_memory_sizes_current(mn_store *s);
/** Drop them (mn_store_free). */
void mn_memory_sizes_free(mn_store *s);

#endif
