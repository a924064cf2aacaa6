/*
 * pg_more.h - the store functions of the PostgreSQL back end defined in
 * pg_tokens.c (access tokens), pg_vector.c (embeddings), pg_ingest.c
 * (ingested git history, tasks, documents), pg_life.c (citation checks,
 * the life cycle) and pg_scan.c (the secret scan). pg_internal.h's
 * MN_PG_OTHER_FILES includes this list, so pg_store.c's table names them.
 */
#ifndef MN_PG_MORE_H
#define MN_PG_MORE_H

#include <stddef.h>

/* Strings as a PostgreSQL array literal ({"a","b"}, " and \\ escaped; malloc'd), for a
 * $n::text[] parameter: one statement for many values. */
char *mn_pg__text_array(const char *const *v, size_t n);

#define MN_PG_MORE_FNS(X)    \
    X(token_add)             \
    X(token_find)            \
    X(token_list)            \
    X(token_revoke)          \
    X(token_touch)           \
    X(embed_model_put)       \
    X(embed_model_get)       \
    X(embed_models_each)     \
    X(embed_models_drop)     \
    X(embed_model_synced)    \
    X(embed_corpus_epoch)    \
    X(embed_chunks_current)  \
    X(vector_put)            \
    X(vector_get)            \
    X(vectors_load)          \
    X(vector_search)         \
    X(vectors_count)         \
    X(vectors_missing)       \
    X(vectors_gc)            \
    X(embed_corpus_count)    \
    X(embed_corpus_each)     \
    X(embed_term_put)        \
    X(embed_terms_get)       \
    X(embed_terms_each)      \
    X(cite_dirty_any)        \
    X(cite_dirty_each)       \
    X(cite_of_memory)        \
    X(cite_set)              \
    X(cite_delete)           \
    X(cite_stale_memories)   \
    X(cite_symbols)          \
    X(cite_symbols_since)    \
    X(cite_chunks)           \
    X(cite_files_with_hash)  \
    X(life_each)             \
    X(texts_each)            \
    X(purge_freed)           \
    X(git_commit_claim)      \
    X(git_commit_unclaim)    \
    X(git_commit_finish)     \
    X(git_commits_done_each) \
    X(git_commit_counts)     \
    X(git_commit_get)        \
    X(git_commits_for_path)  \
    X(ingest_key_get)        \
    X(ingest_key_set)        \
    X(ingest_key_del)        \
    X(ingest_keys_each)      \
    X(task_upsert)           \
    X(task_get)              \
    X(task_link)             \
    X(task_links)            \
    X(task_links_of)         \
    X(doc_upsert)            \
    X(doc_find)              \
    X(ancestry_get)          \
    X(ancestry_put)          \
    X(ancestry_heads)        \
    X(ancestry_inherit)      \
    X(ancestry_prune)        \
    X(memories_origin)       \
    X(memory_commits_each)   \
    X(blame_get)             \
    X(blame_put)             \
    X(memories_linked_to)

#endif
