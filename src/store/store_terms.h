/*
 * store_terms.h - how common a term is in the project's code, for TF-IDF
 * (text/keywords.h: the keywords of a memory saved without any).
 *
 * Terms are full-text index terms, normalised as the "mnemo" tokenizer
 * emits them (text/tokenize.h); the counts come from FTS5's vocabulary of
 * the code chunks (schema v3: chunks_vocab), one index lookup each.
 */
#ifndef MN_STORE_TERMS_H
#define MN_STORE_TERMS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/** The number of code chunks in the full-text index (the N of idf). */
int mn_store_chunk_count(mn_store *s, int64_t *out);

/** How many chunks hold term[0..len) (0 when none). */
int mn_store_chunk_term_df(mn_store *s, const char *term, size_t len, int64_t *out);

#endif
