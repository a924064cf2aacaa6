/*
 * pg_more.h - the store functions of the PostgreSQL back end defined in
 * pg_tokens.c (access tokens), pg_vector.c (embeddings), pg_ingest.c
 * (ingested git history, tasks, documents), pg_life.c (citation checks,
 * the life cycle) and pg_scan.c (the secret scan). pg_internal.h's
 * MN_PG_OTHER_FILES includes this list, so pg_store.c's table names them.
 */
#ifndef MN_PG_MORE_H
#define MN_PG_MORE_H

#define MN_PG_MORE_FNS(X)   \
    X(token_add)            \
    X(token_find)           \
    X(token_list)           \
    X(token_revoke)         \
    X(token_touch)          \
    X(embed_model_put)      \
    X(embed_model_get)      \
    X(embed_models_each)    \
    X(embed_models_drop)    \
    X(embed_model_synced)   \
    X(embed_corpus_epoch)   \
    X(vector_put)           \
    X(vector_get)           \
    X(vectors_load)         \
    X(vectors_count)        \
    X(vectors_missing)      \
    X(vectors_gc)           \
    X(embed_corpus_count)   \
    X(embed_corpus_each)    \
    X(embed_term_put)       \
    X(embed_terms_get)      \
    X(embed_terms_each)     \
    X(cite_dirty_any)       \
    X(cite_dirty_each)      \
    X(cite_of_memory)       \
    X(cite_set)             \
    X(cite_delete)          \
    X(cite_stale_memories)  \
    X(cite_symbols)         \
    X(cite_symbols_since)   \
    X(cite_chunks)          \
    X(cite_files_with_hash) \
    X(life_each)            \
    X(texts_each)           \
    X(purge_freed)

#endif
