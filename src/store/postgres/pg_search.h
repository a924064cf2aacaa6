/*
 * pg_search.h - full-text search on PostgreSQL: the postings that stand
 * for SQLite's FTS5 tables (pg_postings.c) and the searches of
 * store_search.h over them (pg_search.c).
 *
 * A row of a full-text table (a memory, a code chunk, a file path, a
 * file's history) is indexed by mn_pg__postings_put with its fields in the
 * order of the FTS5 table's columns (schema_v3.sql, v7: memories_fts's
 * title, keywords, body, context; chunks_fts's path, names, signature,
 * doc, body; files_fts's path; history_fts's subjects). Terms and
 * positions come from text/tokenize.h exactly as the "mnemo" FTS5
 * tokenizer makes them (sqlite/fts_tokenizer.c), so a query finds the
 * same rows on both back ends and BM25 sees the same counts. Every write
 * runs in the caller's transaction; the table's N and total length
 * (fts_stats) move in it too.
 */
#ifndef MN_PG_SEARCH_H
#define MN_PG_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "store/store_search.h"

/* The history of files (SQLite's history_fts, schema v7): a table of its own here. */
#define MN_PG_FTS_HISTORY ((mn_fts_table)3)
#define MN_PG_FTS_TABLES  4

/**
 * Index one row: (re)write its postings from nfields fields (fields[i]
 * NULL or lens[i] 0: an empty field), replacing what the row had. Needs a
 * transaction.
 */
int mn_pg__postings_put(mn_store *s, mn_fts_table table, int64_t rowid, const char *const *fields,
                        const size_t *lens, size_t nfields);

/** Take a row out of the index (nothing when it is not in). Needs a transaction. */
int mn_pg__postings_del(mn_store *s, mn_fts_table table, int64_t rowid);

/**
 * A memory's postings from its row as it stands now (memories_fts_src of
 * schema_v3.sql: title, keywords, body, context), or none when it is
 * soft-deleted or gone: what SQLite's triggers do on insert, update and
 * delete. Needs a transaction.
 */
int mn_pg__postings_memory(mn_store *s, int64_t rowid);

/* The functions of store_fns.h that pg_search.c implements (pg_internal.h's MN_PG_OTHER_FILES). */
#define MN_PG_SEARCH_FNS(X) \
    X(fts_count)            \
    X(fts_tidy)             \
    X(memory_sizes_prepare) \
    X(search_memories)      \
    X(conversation_counts)  \
    X(memories_at_paths)    \
    X(memories_created)     \
    X(memories_by_rowid)    \
    X(episode_neighbours)   \
    X(memory_body)

#endif
