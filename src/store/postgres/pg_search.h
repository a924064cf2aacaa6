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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store_index.h"
#include "store/store_search.h"
#include "util/vec.h"

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
 * mn_pg__postings_put for nrows rows in one statement: row r's fields are
 * fields[r * nfields .. r * nfields + nfields), their lengths the same
 * slice of lens (NULL: each field's strlen). Needs a transaction.
 */
int mn_pg__postings_put_rows(mn_store *s, mn_fts_table table, size_t nrows, const int64_t *rowids,
                             const char *const *fields, const size_t *lens, size_t nfields);
/** mn_pg__postings_del for n rows in one statement. */
int mn_pg__postings_del_rows(mn_store *s, mn_fts_table table, const int64_t *rowids, size_t n);
/**
 * The postings of a file's chunks (chunks_fts_src of schema_v3.sql: the
 * file's path, the symbol's name and qualified name, signature, docstring,
 * the chunk's text), ids[i] the row id of c->chunks[i]. Needs a transaction.
 */
int mn_pg__postings_chunks(mn_store *s, const char *path, const mn_file_content *c,
                           const int64_t *ids);
/** The postings of a file's chunks out of the index, before the chunks go. */
int mn_pg__postings_del_chunks(mn_store *s, int64_t file_id);
/** The history documents' postings rebuilt from history_docs. Needs a transaction. */
int mn_pg__postings_history(mn_store *s);
/**
 * The memories of every project indexed again when the store's postings
 * were made by another tokenizer version (or none: a schema v1 store), at
 * a writable open, once, under the migration lock.
 */
int mn_pg__postings_check(mn_store *s);
/** Take every row of this project's table out of the index (history: rebuilt whole). */
int mn_pg__postings_clear(mn_store *s, mn_fts_table table);

/**
 * A memory's postings from its row as it stands now (memories_fts_src of
 * schema_v3.sql: title, keywords, body, context), or none when it is
 * soft-deleted or gone: what SQLite's triggers do on insert, update and
 * delete. Needs a transaction.
 */
int mn_pg__postings_memory(mn_store *s, int64_t rowid);

/* ---- queries (pg_fts.c) ---- */

/* An FTS5 query expression, parsed: its phrases (numbered as FTS5 numbers them) and terms. */
typedef struct mn_pg_fts mn_pg_fts;

/** Parse match (MN_EINVAL, with a message, for syntax mnemo never makes or a bad query). */
int mn_pg__fts_parse(const char *match, mn_pg_fts **out);
void mn_pg__fts_free(mn_pg_fts *q);
size_t mn_pg__fts_nphrases(const mn_pg_fts *q);

typedef struct {
    mn_fts_table table;
    int64_t from, to; /* rows with from <= rowid < to */
    bool score;       /* compute bm25 (else: only which rows match) */
    size_t ncols;     /* fields of the table */
    size_t nweights;  /* weight sets (1 or 2): one score each */
    const double *weights[2], *defaults[2];
    const double *idf; /* as mn_memory_query.idf */
    size_t nidf;
} mn_pg_fts_opts;

typedef struct {
    int64_t rowid;
    int flags;       /* fts_docs.flags (1: a memory whose title starts its body) */
    double score[2]; /* bm25 under each weight set, > 0 */
} mn_pg_fts_row;

typedef MN_VEC(mn_pg_fts_row) mn_pg_fts_rows;

/** The rows of o->table matching q, in row id order, with their scores. */
int mn_pg__fts_run(mn_store *s, const mn_pg_fts *q, const mn_pg_fts_opts *o, mn_pg_fts_rows *out);

/* A project's full-text table as fts_stats and fts_docs say (pg_search.c mn_pg__fts_stats). */
typedef struct {
    int64_t ndocs, ntok;
    int64_t top; /* the highest row id */
    int64_t gen; /* fts_stats.gen, the table's writes; -1: no stats row */
} mn_pg_fts_stats;

/**
 * This project's rows of a table, their tokens, highest row id and writes (fts_stats, fts_docs):
 * one statement, read once in a read transaction (its snapshot holds them; a search asked for them
 * five times).
 */
int mn_pg__fts_stats(mn_store *s, mn_fts_table table, mn_pg_fts_stats *out);

/** How many rows of table in [from, to) match q. */
int mn_pg__fts_count_rows(mn_store *s, const mn_pg_fts *q, mn_fts_table table, int64_t from,
                          int64_t to, int64_t *out);

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
    X(memory_body)          \
    X(search_chunks)        \
    X(chunk_df)             \
    X(term_files)           \
    X(search_files)         \
    X(history_files)        \
    X(chunk_count)          \
    X(chunk_term_df)        \
    X(code_fts_optimize)

#endif
