/*
 * pg_index.h - the code index of the PostgreSQL back end (pg_index.c: files
 * and what a file holds, pg_graph.c: the graph and the lookups retrieval
 * makes, pg_history.c: the history), and the array parameters they write
 * many rows with.
 *
 * A file of a thousand symbols is a few statements, not a thousand: its
 * rows go as PostgreSQL arrays (one text parameter "{...}" per column,
 * unnest()ed into a multi-row INSERT), built here element by element.
 */
#ifndef MN_PG_INDEX_H
#define MN_PG_INDEX_H

#include "store/postgres/pg_internal.h"
#include "util/buf.h"

/* The store functions these files define (mn_pg__<name>), for MN_PG_OTHER_FILES. */
#define MN_PG_INDEX_FNS(X)    \
    X(file_lookup)            \
    X(file_replace)           \
    X(file_touch)             \
    X(file_remove)            \
    X(files_each)             \
    X(decl_only_files)        \
    X(declared_named)         \
    X(index_counts)           \
    X(edges_unresolved_each)  \
    X(edges_each)             \
    X(edge_resolve)           \
    X(symbols_named_each)     \
    X(file_symbol_names_each) \
    X(file_incoming_each)     \
    X(symbols_each)           \
    X(graph_each)             \
    X(node_ids_each)          \
    X(neighbours_each)        \
    X(set_rank)               \
    X(history_head)           \
    X(history_add)            \
    X(history_finish)         \
    X(history_clear)          \
    X(history_rename)         \
    X(chunks_by_id)           \
    X(chunk_text)             \
    X(symbols_named)          \
    X(file_neighbours)        \
    X(index_stamp)            \
    X(files_by_id)            \
    X(file_imports)

/* An array literal being built: "{" elements "}" (n of them so far). */
typedef struct {
    mn_buf b;
    size_t n;
} mn_pg_array;

#define MN_PG_ARRAY_INIT \
    {                    \
        MN_BUF_INIT, 0   \
    }

void mn_pg__array_text(mn_pg_array *a, const char *v); /* NULL: an SQL NULL element */
void mn_pg__array_int(mn_pg_array *a, int64_t v);
void mn_pg__array_real(mn_pg_array *a, double v);
/* Add the array to p as one text parameter (cast it in the SQL: $n::text[]); a is emptied. */
void mn_pg__array_param(mn_pg_params *p, mn_pg_array *a);
void mn_pg__array_release(mn_pg_array *a);

/* A file row of a result (columns id, path, language, role, content_hash, size, lines, mtime,
 * rank from col 0): pg_graph.c's files_by_id reads them as files_each does. */
void mn_pg__file_row(mn_store *s, const PGresult *r, int row, mn_file_rec *f);
/* Run sql (its parameters p, taken) and call cb with the first column of each row, an id. */
int mn_pg__ids_each(mn_store *s, const char *sql, mn_pg_params *p,
                    int (*cb)(void *payload, int64_t id), void *payload);

#endif
