/*
 * pg_graph.c - the PostgreSQL side of the graph of store_index.h (edges,
 * resolution, symbols by name, neighbours, the weighted graph PageRank
 * reads) and of the index lookups retrieval makes (store_search.h: symbols
 * and declared names by name, a few files' neighbours, the index stamp,
 * files and chunks by id, a file's imports, a chunk's text).
 *
 * The statements and orders of sqlite/index_store.c, graph_store.c and
 * search_store.c, in this dialect. Where SQLite leaves the order of rows
 * to its plan (index order: by id), this side says ORDER BY id, so both
 * back ends give the same answers in the same order. A lookup of several
 * names or ids is one statement (unnest WITH ORDINALITY keeps the order
 * asked) where SQLite loops over one prepared statement: here each
 * statement is a round trip. Whole results are fetched before the first
 * callback, so a callback may write to the store.
 */
#include "common.h"
#include <fnmatch.h>

#include "store/postgres/pg_index.h"
#include "store/store_index.h"
#include "store/store_search.h"

static const mn_pq_api *pq(mn_store *s)
{
    return pg(s)->pq;
}

static double col_real(mn_store *s, const PGresult *r, int row, int col)
{
    const char *v = mn_pg__col(s, r, row, col);
    return v ? strtod(v, NULL) : 0;
}

/* ---- edges ---- */

/* The columns every mn_edge_rec query selects, the source file included (0 when unknown). */
#define EDGE_COLUMNS                                                                        \
    "e.id, e.src_kind, e.src_id, e.kind, e.dst_name, coalesce(e.dst_id, 0), "               \
    "coalesce(CASE e.src_kind WHEN 'file' THEN e.src_id ELSE (SELECT file_id FROM symbols " \
    "WHERE id = e.src_id) END, 0) "

static int each_edge(mn_store *s, PGresult *r, int (*cb)(void *payload, const mn_edge_rec *e),
                     void *payload)
{
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, n = pq(s)->ntuples(r); i < n && rc == 0; i++) {
        mn_edge_rec e;
        e.id = mn_pg__col_int(s, r, i, 0);
        e.src_kind = mn_pg__col(s, r, i, 1);
        e.src_id = mn_pg__col_int(s, r, i, 2);
        e.kind = mn_pg__col(s, r, i, 3);
        e.name = mn_pg__col(s, r, i, 4);
        e.dst_id = mn_pg__col_int(s, r, i, 5);
        e.src_file = mn_pg__col_int(s, r, i, 6);
        if (!e.name || !e.src_kind || !e.kind)
            continue;
        rc = cb(payload, &e);
    }
    pq(s)->clear(r);
    return rc;
}

int mn_pg__edges_unresolved_each(mn_store *s, int (*cb)(void *payload, const mn_edge_rec *e),
                                 void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    /* the source symbol's file by a join (SQLite reads a symbol -> file map instead): one
     * project's symbols only, as sym_file_of there */
    return each_edge(s,
                     mn_pg__run(s,
                                "SELECT e.id, e.src_kind, e.src_id, e.kind, e.dst_name, 0, "
                                "CASE e.src_kind WHEN 'file' THEN e.src_id ELSE "
                                "coalesce(y.file_id, 0) END FROM edges e LEFT JOIN symbols y ON "
                                "e.src_kind = 'symbol' AND y.id = e.src_id AND y.project_id = $1 "
                                "WHERE e.project_id = $1 AND e.dst_id IS NULL ORDER BY e.id",
                                &p, "cannot read the graph"),
                     cb, payload);
}

int mn_pg__edges_each(mn_store *s, const mn_edge_query *q,
                      int (*cb)(void *payload, const mn_edge_rec *e), void *payload)
{
    static const char *const by_file =
        "SELECT " EDGE_COLUMNS "FROM edges e WHERE e.src_kind = 'file' AND e.src_id = $2 "
        "AND $1::bigint IS NOT NULL UNION ALL SELECT " EDGE_COLUMNS
        "FROM symbols y JOIN edges e ON e.src_kind = 'symbol' AND e.src_id = y.id "
        "WHERE y.file_id = $2 ORDER BY 1";
    static const char *const by_file_imports =
        "SELECT " EDGE_COLUMNS "FROM edges e WHERE e.src_kind = 'file' AND e.src_id = $2 "
        "AND e.kind = 'import' AND $1::bigint IS NOT NULL UNION ALL SELECT " EDGE_COLUMNS
        "FROM symbols y JOIN edges e ON e.src_kind = 'symbol' AND e.src_id = y.id "
        "WHERE y.file_id = $2 AND e.kind = 'import' ORDER BY 1";
    static const char *const by_id =
        "SELECT " EDGE_COLUMNS "FROM edges e WHERE e.id = $2 AND e.project_id = $1";
    static const char *const by_key =
        "SELECT " EDGE_COLUMNS "FROM edges e WHERE e.dst_key = $2 AND e.project_id = $1 "
        "ORDER BY e.id";
    static const char *const imports =
        "SELECT " EDGE_COLUMNS "FROM edges e WHERE e.project_id = $1 AND e.kind = 'import' "
        "AND $2::text IS NULL ORDER BY e.id";
    const char *sql = q->file           ? by_file
                      : q->file_imports ? by_file_imports
                      : q->id           ? by_id
                      : q->key          ? by_key
                      : q->imports      ? imports
                                        : NULL;
    MN_ASSERT_OR(sql, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    if (q->file || q->file_imports || q->id)
        mn_pg__int(&p, q->file ? q->file : q->file_imports ? q->file_imports : q->id);
    else
        mn_pg__text(&p, q->key); /* NULL for every import */
    return each_edge(s, mn_pg__run(s, sql, &p, "cannot read the graph"), cb, payload);
}

int mn_pg__edge_resolve(mn_store *s, int64_t edge_id, int64_t dst_id)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, edge_id);
    if (dst_id)
        mn_pg__int(&p, dst_id);
    else
        mn_pg__text(&p, NULL);
    mn_pg__int(&p, s->project_id);
    return mn_pg__exec(s, "UPDATE edges SET dst_id = $2 WHERE id = $1 AND project_id = $3", &p,
                       "cannot resolve an edge");
}

int mn_pg__file_incoming_each(mn_store *s, int64_t file_id,
                              int (*cb)(void *payload, int64_t edge_id, const char *qualified_name),
                              void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, file_id);
    PGresult *r =
        mn_pg__run(s,
                   "SELECT e.id, NULL FROM edges e WHERE e.dst_kind = 'file' AND e.dst_id = $1 "
                   "UNION ALL SELECT e.id, y.qualified_name FROM symbols y JOIN edges e "
                   "ON e.dst_kind = 'symbol' AND e.dst_id = y.id WHERE y.file_id = $1 ORDER BY 1",
                   &p, "cannot read the graph");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, n = pq(s)->ntuples(r); i < n && rc == 0; i++)
        rc = cb(payload, mn_pg__col_int(s, r, i, 0), mn_pg__col(s, r, i, 1));
    pq(s)->clear(r);
    return rc;
}

/* ---- symbols ---- */

int mn_pg__symbols_named_each(mn_store *s, const char *name,
                              int (*cb)(void *payload, int64_t id, int64_t file_id), void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, name);
    PGresult *r = mn_pg__run(s,
                             "SELECT id, file_id FROM symbols WHERE project_id = $1 AND name = $2 "
                             "ORDER BY id",
                             &p, "cannot list symbols");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, n = pq(s)->ntuples(r); i < n && rc == 0; i++)
        rc = cb(payload, mn_pg__col_int(s, r, i, 0), mn_pg__col_int(s, r, i, 1));
    pq(s)->clear(r);
    return rc;
}

int mn_pg__file_symbol_names_each(mn_store *s, int64_t file_id,
                                  int (*cb)(void *payload, const char *name,
                                            const char *qualified_name),
                                  void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, file_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT name, qualified_name FROM symbols WHERE file_id = $1 "
                             "ORDER BY id",
                             &p, "cannot list symbols");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, n = pq(s)->ntuples(r); i < n && rc == 0; i++) {
        const char *name = mn_pg__col(s, r, i, 0), *qn = mn_pg__col(s, r, i, 1);
        if (name)
            rc = cb(payload, name, qn ? qn : name);
    }
    pq(s)->clear(r);
    return rc;
}

int mn_pg__symbols_each(mn_store *s, const char *name,
                        int (*cb)(void *payload, const mn_symbol_row *y), void *payload)
{
    bool glob = name && strpbrk(name, "*?[") != NULL;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, name && !glob ? name : NULL);
    PGresult *r = mn_pg__run(
        s,
        "SELECT y.id, y.file_id, y.name, y.qualified_name, y.kind, f.path, y.signature, "
        "y.start_line, y.end_line, y.rank FROM symbols y JOIN files f ON f.id = y.file_id "
        "WHERE y.project_id = $1 AND ($2::text IS NULL OR y.name = $2::text) "
        "ORDER BY f.path, y.start_line, y.id",
        &p, "cannot list symbols");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, n = pq(s)->ntuples(r); i < n && rc == 0; i++) {
        mn_symbol_row y;
        y.id = mn_pg__col_int(s, r, i, 0);
        y.file_id = mn_pg__col_int(s, r, i, 1);
        y.name = mn_pg__col(s, r, i, 2);
        y.qualified_name = mn_pg__col(s, r, i, 3);
        y.kind = mn_pg__col(s, r, i, 4);
        y.path = mn_pg__col(s, r, i, 5);
        y.signature = mn_pg__col(s, r, i, 6);
        y.start_line = mn_pg__col_int(s, r, i, 7);
        y.end_line = mn_pg__col_int(s, r, i, 8);
        y.rank = col_real(s, r, i, 9);
        if (glob && fnmatch(name, y.name, 0) != 0 && fnmatch(name, y.qualified_name, 0) != 0)
            continue;
        rc = cb(payload, &y);
    }
    pq(s)->clear(r);
    return rc;
}

/* ---- the whole graph ---- */

/*
 * Summed by the server (GROUP BY) where SQLite sums in memory: the pairs
 * come out in (src, dst) order either way. At the file level, imports
 * between files plus calls and inherits between the project's symbols
 * lifted to their files; self-pairs left out.
 */
int mn_pg__graph_each(mn_store *s, const char *level,
                      int (*cb)(void *payload, int64_t src, int64_t dst, double weight),
                      void *payload)
{
    static const char *const file_sql =
        "SELECT src, dst, sum(w) FROM (SELECT e.src_id AS src, e.dst_id AS dst, e.weight AS w "
        "FROM edges e WHERE e.project_id = $1 AND e.dst_id IS NOT NULL AND e.src_kind = 'file' "
        "AND e.dst_kind = 'file' UNION ALL SELECT ys.file_id, yd.file_id, e.weight FROM edges e "
        "JOIN symbols ys ON ys.id = e.src_id AND ys.project_id = $1 JOIN symbols yd ON yd.id = "
        "e.dst_id AND yd.project_id = $1 WHERE e.project_id = $1 AND e.dst_id IS NOT NULL AND "
        "e.src_kind = 'symbol' AND e.dst_kind = 'symbol') t WHERE src <> dst GROUP BY src, dst "
        "ORDER BY src, dst";
    static const char *const symbol_sql =
        "SELECT src_id, dst_id, sum(weight) FROM edges WHERE project_id = $1 AND dst_id IS NOT "
        "NULL AND src_kind = 'symbol' AND dst_kind = 'symbol' AND src_id <> dst_id "
        "GROUP BY src_id, dst_id ORDER BY src_id, dst_id";
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s, strcmp(level, "file") == 0 ? file_sql : symbol_sql, &p,
                             "cannot read the graph");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, n = pq(s)->ntuples(r); i < n && rc == 0; i++)
        rc = cb(payload, mn_pg__col_int(s, r, i, 0), mn_pg__col_int(s, r, i, 1),
                col_real(s, r, i, 2));
    pq(s)->clear(r);
    return rc;
}

int mn_pg__node_ids_each(mn_store *s, const char *level, int (*cb)(void *payload, int64_t id),
                         void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    return mn_pg__ids_each(s,
                           strcmp(level, "file") == 0
                               ? "SELECT id FROM files WHERE project_id = $1 ORDER BY id"
                               : "SELECT id FROM symbols WHERE project_id = $1 ORDER BY id",
                           &p, cb, payload);
}

int mn_pg__neighbours_each(mn_store *s, const char *level, int64_t id, bool incoming,
                           int (*cb)(void *payload, const mn_neighbour *n), void *payload)
{
    /* the other end, as (edge kind, path, symbol, name, line); ties in SQLite's order (by id) */
    static const char *const file_out =
        "SELECT e.kind, f.path, NULL, e.dst_name, 0 FROM edges e "
        "LEFT JOIN files f ON f.id = e.dst_id AND e.dst_kind = 'file' "
        "WHERE e.src_kind = 'file' AND e.src_id = $1 ORDER BY e.id";
    static const char *const file_in =
        "SELECT e.kind, coalesce(f.path, fs.path), y.name, e.dst_name, coalesce(y.start_line, 0) "
        "FROM edges e LEFT JOIN files f ON e.src_kind = 'file' AND f.id = e.src_id "
        "LEFT JOIN symbols y ON e.src_kind = 'symbol' AND y.id = e.src_id "
        "LEFT JOIN files fs ON fs.id = y.file_id "
        "WHERE e.dst_kind = 'file' AND e.dst_id = $1 ORDER BY 2, 5, e.id";
    static const char *const sym_out =
        "SELECT e.kind, f.path, y.name, e.dst_name, coalesce(y.start_line, 0) FROM edges e "
        "LEFT JOIN symbols y ON y.id = e.dst_id AND e.dst_kind = 'symbol' "
        "LEFT JOIN files f ON f.id = y.file_id "
        "WHERE e.src_kind = 'symbol' AND e.src_id = $1 ORDER BY e.id";
    static const char *const sym_in =
        "SELECT e.kind, f.path, y.name, e.dst_name, y.start_line FROM edges e "
        "JOIN symbols y ON e.src_kind = 'symbol' AND y.id = e.src_id "
        "JOIN files f ON f.id = y.file_id "
        "WHERE e.dst_kind = 'symbol' AND e.dst_id = $1 ORDER BY f.path, y.start_line, e.id";
    bool file = strcmp(level, "file") == 0;
    mn_pg_params p = {0};
    mn_pg__int(&p, id);
    PGresult *r =
        mn_pg__run(s, file ? (incoming ? file_in : file_out) : (incoming ? sym_in : sym_out), &p,
                   "cannot read the graph");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, n = pq(s)->ntuples(r); i < n && rc == 0; i++) {
        mn_neighbour nb;
        nb.edge = mn_pg__col(s, r, i, 0);
        nb.path = mn_pg__col(s, r, i, 1);
        nb.symbol = mn_pg__col(s, r, i, 2);
        nb.name = mn_pg__col(s, r, i, 3);
        nb.line = mn_pg__col_int(s, r, i, 4);
        rc = cb(payload, &nb);
    }
    pq(s)->clear(r);
    return rc;
}

/* ---- lookups by name (store_search.h, store_index.h) ---- */

/* names as one text[] parameter */
static void names_param(mn_pg_params *p, const char *const *names, size_t n)
{
    mn_pg_array a = MN_PG_ARRAY_INIT;
    for (size_t i = 0; i < n; i++)
        mn_pg__array_text(&a, names[i]);
    mn_pg__array_param(p, &a);
    mn_pg__array_release(&a);
}

int mn_pg__symbols_named(mn_store *s, const char *const *names, size_t n,
                         int (*cb)(void *payload, size_t which, const mn_symbol_def *d),
                         void *payload)
{
    if (n == 0)
        return 0;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    names_param(&p, names, n);
    PGresult *r = mn_pg__run(
        s,
        "SELECT u.ord, y.id, y.file_id, y.name, y.qualified_name, y.kind, f.path, f.role, "
        "y.start_line, y.end_line FROM unnest($2::text[]) WITH ORDINALITY AS u(name, ord) "
        "JOIN symbols y ON y.project_id = $1 AND y.name = u.name JOIN files f ON f.id = "
        "y.file_id ORDER BY u.ord, y.id",
        &p, "cannot look up symbols");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, rows = pq(s)->ntuples(r); i < rows && rc == 0; i++) {
        mn_symbol_def d;
        size_t which = (size_t)mn_pg__col_int(s, r, i, 0) - 1;
        d.id = mn_pg__col_int(s, r, i, 1);
        d.file_id = mn_pg__col_int(s, r, i, 2);
        d.name = mn_pg__col(s, r, i, 3);
        d.qualified_name = mn_pg__col(s, r, i, 4);
        d.kind = mn_pg__col(s, r, i, 5);
        d.path = mn_pg__col(s, r, i, 6);
        d.role = mn_pg__col(s, r, i, 7);
        d.start_line = mn_pg__col_int(s, r, i, 8);
        d.end_line = mn_pg__col_int(s, r, i, 9);
        rc = cb(payload, which, &d);
    }
    pq(s)->clear(r);
    return rc;
}

int mn_pg__declared_named(mn_store *s, const char *const *names, size_t n,
                          int (*cb)(void *payload, size_t which, const mn_declared_def *d),
                          void *payload)
{
    if (n == 0)
        return 0;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    names_param(&p, names, n);
    PGresult *r = mn_pg__run(
        s,
        "SELECT u.ord, d.file_id, d.line, d.kind, d.name, f.path, f.role FROM unnest($2::text[]) "
        "WITH ORDINALITY AS u(name, ord) JOIN declared_names d ON d.project_id = $1 AND d.name = "
        "u.name JOIN files f ON f.id = d.file_id ORDER BY u.ord, d.file_id, d.line",
        &p, "cannot look up declared names");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, rows = pq(s)->ntuples(r); i < rows && rc == 0; i++) {
        mn_declared_def d;
        size_t which = (size_t)mn_pg__col_int(s, r, i, 0) - 1;
        d.file_id = mn_pg__col_int(s, r, i, 1);
        d.line = mn_pg__col_int(s, r, i, 2);
        d.kind = mn_pg__col(s, r, i, 3);
        d.name = mn_pg__col(s, r, i, 4);
        d.path = mn_pg__col(s, r, i, 5);
        d.role = mn_pg__col(s, r, i, 6);
        rc = cb(payload, which, &d);
    }
    pq(s)->clear(r);
    return rc;
}

/* ---- a few files' neighbours (retrieval) ---- */

/*
 * The four directions of sqlite/graph_store.c, each grouped by the other
 * file: what the file (or a symbol in it) imports, calls or inherits, and
 * who imports it or calls or inherits its symbols. Each reads at most $2
 * edges, the first by id as SQLite's index order gives them (a sample for
 * a hub file).
 */
static const char *const neighbour_sql[4] = {
    "SELECT other, sum(w) FROM (SELECT CASE e.dst_kind WHEN 'file' THEN e.dst_id ELSE y.file_id "
    "END AS other, e.weight AS w FROM edges e LEFT JOIN symbols y ON e.dst_kind = 'symbol' AND "
    "y.id = e.dst_id WHERE e.src_kind = 'file' AND e.src_id = $1 AND e.dst_id IS NOT NULL "
    "ORDER BY e.id LIMIT $2) t WHERE other IS NOT NULL GROUP BY other ORDER BY other",
    "SELECT other, sum(w) FROM (SELECT CASE e.dst_kind WHEN 'file' THEN e.dst_id ELSE y.file_id "
    "END AS other, e.weight AS w FROM symbols s JOIN edges e ON e.src_kind = 'symbol' AND "
    "e.src_id = s.id LEFT JOIN symbols y ON e.dst_kind = 'symbol' AND y.id = e.dst_id "
    "WHERE s.file_id = $1 AND e.dst_id IS NOT NULL ORDER BY s.id, e.id LIMIT $2) t "
    "WHERE other IS NOT NULL GROUP BY other ORDER BY other",
    "SELECT other, sum(w) FROM (SELECT CASE e.src_kind WHEN 'file' THEN e.src_id ELSE y.file_id "
    "END AS other, e.weight AS w FROM edges e LEFT JOIN symbols y ON e.src_kind = 'symbol' AND "
    "y.id = e.src_id WHERE e.dst_kind = 'file' AND e.dst_id = $1 ORDER BY e.id LIMIT $2) t "
    "WHERE other IS NOT NULL GROUP BY other ORDER BY other",
    "SELECT other, sum(w) FROM (SELECT CASE e.src_kind WHEN 'file' THEN e.src_id ELSE y.file_id "
    "END AS other, e.weight AS w FROM symbols s JOIN edges e ON e.dst_kind = 'symbol' AND "
    "e.dst_id = s.id LEFT JOIN symbols y ON e.src_kind = 'symbol' AND y.id = e.src_id "
    "WHERE s.file_id = $1 ORDER BY s.id, e.id LIMIT $2) t WHERE other IS NOT NULL "
    "GROUP BY other ORDER BY other",
};

int mn_pg__file_neighbours(mn_store *s, const int64_t *files, size_t n, size_t limit,
                           int (*cb)(void *payload, int64_t seed, int64_t other, double weight,
                                     bool outgoing),
                           void *payload)
{
    if (n == 0)
        return 0;
    size_t per = mn_store_neighbour_share(limit, n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        for (int d = 0; d < 4 && rc == 0; d++) {
            mn_pg_params p = {0};
            mn_pg__int(&p, files[i]);
            mn_pg__int(&p, (int64_t)per);
            PGresult *r = mn_pg__run(s, neighbour_sql[d], &p, "cannot read the graph");
            if (!r)
                return mn_error_last_code();
            for (int j = 0, rows = pq(s)->ntuples(r); j < rows && rc == 0; j++) {
                int64_t other = mn_pg__col_int(s, r, j, 0);
                if (other != files[i])
                    rc = cb(payload, files[i], other, col_real(s, r, j, 1), d < 2);
            }
            pq(s)->clear(r);
        }
    }
    return rc;
}

/* ---- the index as retrieval reads it ---- */

int mn_pg__index_stamp(mn_store *s, mn_index_stamp *out)
{
    memset(out, 0, sizeof(*out));
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    /* the highest symbol and edge ids of any project, one index descent each (as SQLite's) */
    PGresult *r = mn_pg__run(
        s,
        "SELECT count(*), coalesce(max(id), 0), coalesce(max(indexed_at), 0), "
        "(SELECT coalesce(max(id), 0) FROM symbols), (SELECT coalesce(max(id), 0) FROM edges) "
        "FROM files WHERE project_id = $1",
        &p, "cannot read the index");
    if (!r)
        return mn_error_last_code();
    out->files = mn_pg__col_int(s, r, 0, 0);
    out->max_file = mn_pg__col_int(s, r, 0, 1);
    out->indexed_at = mn_pg__col_int(s, r, 0, 2);
    out->max_symbol = mn_pg__col_int(s, r, 0, 3);
    out->max_edge = mn_pg__col_int(s, r, 0, 4);
    pq(s)->clear(r);
    uint64_t h = 1469598103934665603ULL; /* FNV-1a of the (redacted) location, as SQLite's */
    for (const char *c = s->path ? s->path : ""; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    out->store = h ^ (uint64_t)s->project_id * 0x9e3779b97f4a7c15ULL;
    return 0;
}

static void ids_param(mn_pg_params *p, const int64_t *ids, size_t n)
{
    mn_pg_array a = MN_PG_ARRAY_INIT;
    for (size_t i = 0; i < n; i++)
        mn_pg__array_int(&a, ids[i]);
    mn_pg__array_param(p, &a);
    mn_pg__array_release(&a);
}

int mn_pg__files_by_id(mn_store *s, const int64_t *ids, size_t n,
                       int (*cb)(void *payload, const mn_file_rec *f), void *payload)
{
    if (n == 0)
        return 0;
    mn_pg_params p = {0};
    ids_param(&p, ids, n);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT f.id, f.path, f.language, f.role, f.content_hash, f.size, "
                             "f.lines, f.mtime, f.rank FROM unnest($1::bigint[]) WITH ORDINALITY "
                             "AS u(id, ord) JOIN files f ON f.id = u.id AND f.project_id = $2 "
                             "ORDER BY u.ord",
                             &p, "cannot read the index");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, rows = pq(s)->ntuples(r); i < rows && rc == 0; i++) {
        mn_file_rec f;
        mn_pg__file_row(s, r, i, &f);
        rc = cb(payload, &f);
    }
    pq(s)->clear(r);
    return rc;
}

int mn_pg__file_imports(mn_store *s, const char *path, int (*cb)(void *payload, int64_t file_id),
                        void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, path);
    PGresult *r = mn_pg__run(
        s,
        "SELECT DISTINCT e.dst_id FROM files f JOIN edges e ON e.src_kind = 'file' AND "
        "e.src_id = f.id WHERE f.project_id = $1 AND f.path = $2 AND e.kind = 'import' AND "
        "e.dst_kind = 'file' AND e.dst_id IS NOT NULL ORDER BY 1",
        &p, "cannot read the index");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, rows = pq(s)->ntuples(r); i < rows && rc == 0; i++)
        rc = cb(payload, mn_pg__col_int(s, r, i, 0));
    pq(s)->clear(r);
    return rc;
}

int mn_pg__chunks_by_id(mn_store *s, const int64_t *ids, size_t n, mn_chunk_hit_cb cb,
                        void *payload)
{
    if (n == 0)
        return 0;
    mn_pg_params p = {0};
    ids_param(&p, ids, n);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(
        s,
        "SELECT c.id, c.file_id, coalesce(c.symbol_id, 0), c.start_line, c.end_line, f.path, "
        "f.role, f.language, y.name, y.qualified_name, y.kind FROM unnest($1::bigint[]) WITH "
        "ORDINALITY AS u(id, ord) JOIN chunks c ON c.id = u.id JOIN files f ON f.id = c.file_id "
        "AND f.project_id = $2 LEFT JOIN symbols y ON y.id = c.symbol_id ORDER BY u.ord",
        &p, "cannot read chunks");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, rows = pq(s)->ntuples(r); i < rows && rc == 0; i++) {
        mn_chunk_hit h;
        h.id = mn_pg__col_int(s, r, i, 0);
        h.file_id = mn_pg__col_int(s, r, i, 1);
        h.symbol_id = mn_pg__col_int(s, r, i, 2);
        h.start_line = mn_pg__col_int(s, r, i, 3);
        h.end_line = mn_pg__col_int(s, r, i, 4);
        h.path = mn_pg__col(s, r, i, 5);
        h.role = mn_pg__col(s, r, i, 6);
        h.language = mn_pg__col(s, r, i, 7);
        h.symbol = mn_pg__col(s, r, i, 8);
        h.qualified_name = mn_pg__col(s, r, i, 9);
        h.symbol_kind = mn_pg__col(s, r, i, 10);
        h.bm25 = 0;
        rc = cb(payload, &h);
    }
    pq(s)->clear(r);
    return rc;
}

int mn_pg__chunk_text(mn_store *s, char **out, int64_t chunk_id)
{
    *out = NULL;
    mn_pg_params p = {0};
    mn_pg__int(&p, chunk_id);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s, "SELECT text FROM chunks WHERE id = $1 AND project_id = $2", &p,
                             "cannot read a chunk");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pq(s)->ntuples(r) == 1)
        *out = mn_strdup(mn_pg__col(s, r, 0, 0));
    else
        rc = mn_error_set(MN_ENOTFOUND, "chunk %lld not found", (long long)chunk_id);
    pq(s)->clear(r);
    return rc;
}
