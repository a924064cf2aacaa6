/*
 * graph_store.c - the index lookups retrieval needs beyond store_index.h
 * (declared in store_search.h): symbol definitions by exact name, and the
 * resolved neighbours of a few files with their ids and weights.
 *
 * Both run per query on a handful of seeds, so they use the indexes
 * (symbols_name, edges_src, edges_dst, symbols_file) and never read the
 * whole graph the way mn_store_graph_each does for PageRank.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/store_search.h"
#include "store/sqlite/sqlite_internal.h"

int mn_sqlite__symbols_named(mn_store *s, const char *const *names, size_t n,
                             int (*cb)(void *payload, size_t which, const mn_symbol_def *d),
                             void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT y.id, y.file_id, y.name, y.qualified_name, y.kind, f.path, f.role, "
           "y.start_line, y.end_line FROM symbols y JOIN files f ON f.id = "
           "y.file_id WHERE y.name = ?1 AND f.project_id = ?2");
    if (!st)
        return mn_error_last_code();
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int step;
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, s->project_id);
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            mn_symbol_def d;
            d.id = sqlite3_column_int64(st, 0);
            d.file_id = sqlite3_column_int64(st, 1);
            d.name = (const char *)sqlite3_column_text(st, 2);
            d.qualified_name = (const char *)sqlite3_column_text(st, 3);
            d.kind = (const char *)sqlite3_column_text(st, 4);
            d.path = (const char *)sqlite3_column_text(st, 5);
            d.role = (const char *)sqlite3_column_text(st, 6);
            d.start_line = sqlite3_column_int64(st, 7);
            d.end_line = sqlite3_column_int64(st, 8);
            if ((rc = cb(payload, i, &d)) != 0)
                break;
        }
        if (rc == 0 && step != SQLITE_DONE)
            rc = mn_sqlite__fail(s, "cannot look up symbols");
    }
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__declared_named(mn_store *s, const char *const *names, size_t n,
                              int (*cb)(void *payload, size_t which, const mn_declared_def *d),
                              void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT d.file_id, d.line, d.kind, d.name, f.path, f.role FROM declared_names d "
           "JOIN files f ON f.id = d.file_id WHERE d.name = ?1 AND f.project_id = ?2 "
           "ORDER BY d.file_id, d.line");
    if (!st)
        return mn_error_last_code();
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int step;
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, s->project_id);
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            mn_declared_def d;
            d.file_id = sqlite3_column_int64(st, 0);
            d.line = sqlite3_column_int64(st, 1);
            d.kind = (const char *)sqlite3_column_text(st, 2);
            d.name = (const char *)sqlite3_column_text(st, 3);
            d.path = (const char *)sqlite3_column_text(st, 4);
            d.role = (const char *)sqlite3_column_text(st, 5);
            if ((rc = cb(payload, i, &d)) != 0)
                break;
        }
        if (rc == 0 && step != SQLITE_DONE)
            rc = mn_sqlite__fail(s, "cannot look up declared names");
    }
    sqlite3_reset(st);
    return rc;
}

/*
 * The four directions, each grouped by the other file (CROSS JOIN keeps
 * SQLite on the seed's symbols first; left to itself, with no statistics,
 * it scanned every edge of a kind and looked the symbol up): what the file (or
 * a symbol in it) imports, calls or inherits; and who imports it or calls
 * or inherits its symbols. A symbol's import of a file counts for the
 * symbol's file.
 */
static const char *const neighbour_sql[4] = {
    /* outgoing from the file itself */
    "SELECT other, sum(w) FROM (SELECT CASE e.dst_kind WHEN 'file' THEN e.dst_id ELSE y.file_id "
    "END AS other, e.weight AS w FROM edges e LEFT JOIN symbols y ON e.dst_kind = 'symbol' AND "
    "y.id = e.dst_id WHERE e.src_kind = 'file' AND e.src_id = ?1 AND e.dst_id IS NOT NULL "
    "LIMIT ?2) GROUP BY other",
    /* outgoing from its symbols */
    "SELECT other, sum(w) FROM (SELECT CASE e.dst_kind WHEN 'file' THEN e.dst_id ELSE y.file_id "
    "END AS other, e.weight AS w FROM symbols s CROSS JOIN edges e ON e.src_kind = 'symbol' AND "
    "e.src_id = s.id LEFT JOIN symbols y ON e.dst_kind = 'symbol' AND y.id = e.dst_id "
    "WHERE s.file_id = ?1 AND e.dst_id IS NOT NULL LIMIT ?2) GROUP BY other",
    /* incoming to the file */
    "SELECT other, sum(w) FROM (SELECT CASE e.src_kind WHEN 'file' THEN e.src_id ELSE y.file_id "
    "END AS other, e.weight AS w FROM edges e LEFT JOIN symbols y ON e.src_kind = 'symbol' AND "
    "y.id = e.src_id WHERE e.dst_kind = 'file' AND e.dst_id = ?1 LIMIT ?2) GROUP BY other",
    /* incoming to its symbols */
    "SELECT other, sum(w) FROM (SELECT CASE e.src_kind WHEN 'file' THEN e.src_id ELSE y.file_id "
    "END AS other, e.weight AS w FROM symbols s CROSS JOIN edges e ON e.dst_kind = 'symbol' AND "
    "e.dst_id = s.id LEFT JOIN symbols y ON e.src_kind = 'symbol' AND y.id = e.src_id "
    "WHERE s.file_id = ?1 LIMIT ?2) GROUP BY other",
};

int mn_sqlite__file_neighbours(mn_store *s, const int64_t *files, size_t n, size_t limit,
                               int (*cb)(void *payload, int64_t seed, int64_t other, double weight,
                                         bool outgoing),
                               void *payload)
{
    if (n == 0)
        return 0;
    /* each of a seed's four directions reads at most this many edges (the
     * first ones in index order: a sample, for the hub files whose callers
     * are everywhere) */
    size_t per = mn_store_neighbour_share(limit, n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        /* a file's outgoing pairs come from two queries (itself, its
         * symbols), as do its incoming ones; the caller sees a (seed, other,
         * direction) up to twice and sums them */
        for (int d = 0; d < 4 && rc == 0; d++) {
            sqlite3_stmt *st = mn_sqlite__stmt(s, neighbour_sql[d]);
            if (!st)
                return mn_error_last_code();
            sqlite3_bind_int64(st, 1, files[i]);
            sqlite3_bind_int64(st, 2, (sqlite3_int64)per);
            int step;
            while ((step = sqlite3_step(st)) == SQLITE_ROW) {
                if (sqlite3_column_type(st, 0) == SQLITE_NULL)
                    continue;
                int64_t other = sqlite3_column_int64(st, 0);
                if (other == files[i])
                    continue;
                if ((rc = cb(payload, files[i], other, sqlite3_column_double(st, 1), d < 2)) != 0)
                    break;
            }
            if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
                rc = mn_sqlite__fail(s, "cannot read the graph");
            sqlite3_reset(st);
        }
    }
    return rc;
}

int mn_sqlite__index_stamp(mn_store *s, mn_index_stamp *out)
{
    memset(out, 0, sizeof(*out));
    /* one statement: the aggregates read the files of the project (a few thousand rows,
     * ~0.3 ms on sympy); the highest ids are one B-tree descent each */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT count(*), coalesce(max(id), 0), coalesce(max(indexed_at), 0), "
           "(SELECT coalesce(max(id), 0) FROM symbols), (SELECT coalesce(max(id), 0) FROM edges) "
           "FROM files WHERE project_id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        out->files = sqlite3_column_int64(st, 0);
        out->max_file = sqlite3_column_int64(st, 1);
        out->indexed_at = sqlite3_column_int64(st, 2);
        out->max_symbol = sqlite3_column_int64(st, 3);
        out->max_edge = sqlite3_column_int64(st, 4);
        uint64_t h = 1469598103934665603ULL;
        for (const char *c = s->path ? s->path : ""; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ULL;
        out->store = h ^ (uint64_t)s->project_id * 0x9e3779b97f4a7c15ULL;
    } else {
        rc = mn_sqlite__fail(s, "cannot read the index");
    }
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__files_by_id(mn_store *s, const int64_t *ids, size_t n,
                           int (*cb)(void *payload, const mn_file_rec *f), void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT id, path, language, role, content_hash, size, lines, mtime, rank FROM files "
           "WHERE id = ?1 AND project_id = ?2");
    if (!st)
        return mn_error_last_code();
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, ids[i]);
        sqlite3_bind_int64(st, 2, s->project_id);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            mn_file_rec f = {0};
            f.id = sqlite3_column_int64(st, 0);
            f.path = (const char *)sqlite3_column_text(st, 1);
            f.language = (const char *)sqlite3_column_text(st, 2);
            f.role = (const char *)sqlite3_column_text(st, 3);
            snprintf(f.hash, sizeof(f.hash), "%s", (const char *)sqlite3_column_text(st, 4));
            f.size = sqlite3_column_int64(st, 5);
            f.lines = sqlite3_column_int64(st, 6);
            f.mtime_ms = sqlite3_column_int64(st, 7);
            f.rank = sqlite3_column_double(st, 8);
            rc = cb(payload, &f);
        } else if (step != SQLITE_DONE) {
            rc = mn_sqlite__fail(s, "cannot read the index");
        }
    }
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__file_imports(mn_store *s, const char *path,
                            int (*cb)(void *payload, int64_t file_id), void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT DISTINCT e.dst_id FROM files f JOIN edges e ON e.src_kind = 'file' AND "
           "e.src_id = f.id WHERE f.project_id = ?1 AND f.path = ?2 AND e.kind = 'import' AND "
           "e.dst_kind = 'file' AND e.dst_id IS NOT NULL");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = cb(payload, sqlite3_column_int64(st, 0));
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the index");
    sqlite3_reset(st);
    return rc;
}
