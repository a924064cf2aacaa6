/*
 * index_store.c - the SQLite side of store_index.h: files, symbols, edges
 * and chunks.
 *
 * Edges are polymorphic (a file or a symbol at either end), so SQLite's
 * foreign keys cannot clean them up; replacing or removing a file does it
 * here: the file's outgoing edges go, and incoming edges are unresolved
 * (dst_id = NULL, dst_name kept) for the resolver to point again.
 */
#include "common.h"
#include <fnmatch.h>
#include <sqlite3.h>

#include "store/store_index.h"
#include "store/sqlite/sqlite_internal.h"

static int fail(mn_store *s, const char *what)
{
    int rc = sqlite3_errcode(s->db) & 0xff;
    return mn_error_set(rc == SQLITE_BUSY ? MN_EBUSY : MN_EIO, "%s in '%s': %s", what, s->path,
                        sqlite3_errmsg(s->db));
}

static int run(mn_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : fail(s, what);
}

static void text_or_null(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

int mn_store_file_lookup(mn_store *s, int64_t *id, char hash[MN_HASH_HEX], const char *path)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT id, content_hash FROM files WHERE project_id = ?1 AND path = ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        snprintf(hash, MN_HASH_HEX, "%s", (const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_reset(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return MN_ENOTFOUND;
    return fail(s, "cannot read the index");
}

/* Drop what hangs on a file: its outgoing edges, symbols and chunks; unresolve edges into it. */
static int detach_file(mn_store *s, int64_t id)
{
    static const char *const sql[] = {
        "UPDATE edges SET dst_id = NULL WHERE dst_kind = 'file' AND dst_id = ?1",
        "UPDATE edges SET dst_id = NULL WHERE dst_kind = 'symbol' AND dst_id IN "
        "(SELECT id FROM symbols WHERE file_id = ?1)",
        "DELETE FROM edges WHERE src_kind = 'file' AND src_id = ?1",
        "DELETE FROM edges WHERE src_kind = 'symbol' AND src_id IN "
        "(SELECT id FROM symbols WHERE file_id = ?1)",
        "DELETE FROM chunks WHERE file_id = ?1",
        "DELETE FROM symbols WHERE file_id = ?1",
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql); i++) {
        sqlite3_stmt *st = mn_sqlite__stmt(s, sql[i]);
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, id);
        int rc = run(s, st, "cannot update the index");
        if (rc)
            return rc;
    }
    return 0;
}

static int put_file_row(mn_store *s, mn_file_rec *f)
{
    int64_t id;
    char old[MN_HASH_HEX];
    int rc = mn_store_file_lookup(s, &id, old, f->path);
    sqlite3_stmt *st;
    if (rc == 0) {
        if ((rc = detach_file(s, id)) != 0)
            return rc;
        st = mn_sqlite__stmt(s, "UPDATE files SET language = ?2, role = ?3, content_hash = ?4, "
                                "size = ?5, lines = ?6, mtime = ?7, indexed_at = ?8, rank = ?9 "
                                "WHERE id = ?1");
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, id);
    } else if (rc == MN_ENOTFOUND) {
        st = mn_sqlite__stmt(s, "INSERT INTO files(project_id, path, language, role, "
                                "content_hash, size, lines, mtime, indexed_at, rank) "
                                "VALUES (?1, ?10, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, s->project_id);
        sqlite3_bind_text(st, 10, f->path, -1, SQLITE_STATIC);
        id = 0;
    } else {
        return rc;
    }
    text_or_null(st, 2, f->language);
    sqlite3_bind_text(st, 3, f->role ? f->role : "source", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, f->hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, f->size);
    sqlite3_bind_int64(st, 6, f->lines);
    sqlite3_bind_int64(st, 7, f->mtime_ms);
    sqlite3_bind_int64(st, 8, mn_time_now_ms());
    sqlite3_bind_double(st, 9, f->rank);
    if ((rc = run(s, st, "cannot store a file")) != 0)
        return rc;
    f->id = id ? id : sqlite3_last_insert_rowid(s->db);
    return 0;
}

int mn_store_file_replace(mn_store *s, mn_file_rec *f, const mn_file_content *c)
{
    MN_ASSERT_OR(s->in_tx, MN_EINTERNAL);
    int rc = put_file_row(s, f);
    if (rc)
        return rc;
    int64_t *sym_ids = mn_calloc(c->nsymbols ? c->nsymbols : 1, sizeof(int64_t));
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO symbols(file_id, name, qualified_name, kind, start_line, end_line, "
           "start_byte, end_byte, signature, docstring, content_hash) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    for (size_t i = 0; st && rc == 0 && i < c->nsymbols; i++) {
        const mn_symbol_rec *y = &c->symbols[i];
        sqlite3_bind_int64(st, 1, f->id);
        sqlite3_bind_text(st, 2, y->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, y->qualified_name ? y->qualified_name : y->name, -1,
                          SQLITE_STATIC);
        sqlite3_bind_text(st, 4, y->kind, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, y->start_line);
        sqlite3_bind_int64(st, 6, y->end_line);
        sqlite3_bind_int64(st, 7, y->start_byte);
        sqlite3_bind_int64(st, 8, y->end_byte);
        text_or_null(st, 9, y->signature);
        text_or_null(st, 10, y->docstring);
        text_or_null(st, 11, y->hash[0] ? y->hash : NULL);
        if ((rc = run(s, st, "cannot store a symbol")) == 0)
            sym_ids[i] = sqlite3_last_insert_rowid(s->db);
    }
    if (!st)
        rc = mn_error_last_code();
    st = rc ? NULL
            : mn_sqlite__stmt(s, "INSERT INTO edges(project_id, src_kind, src_id, dst_kind, "
                                 "dst_name, kind, weight) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    for (size_t i = 0; st && rc == 0 && i < c->nrefs; i++) {
        const mn_ref_rec *r = &c->refs[i];
        bool from_symbol = r->src_symbol >= 0 && (size_t)r->src_symbol < c->nsymbols;
        sqlite3_bind_int64(st, 1, s->project_id);
        sqlite3_bind_text(st, 2, from_symbol ? "symbol" : "file", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, from_symbol ? sym_ids[r->src_symbol] : f->id);
        sqlite3_bind_text(st, 4, strcmp(r->kind, "import") == 0 ? "file" : "symbol", -1,
                          SQLITE_STATIC);
        sqlite3_bind_text(st, 5, r->target, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, r->kind, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 7, r->weight > 0 ? r->weight : 1.0);
        rc = run(s, st, "cannot store a reference");
    }
    st = rc ? NULL
            : mn_sqlite__stmt(s, "INSERT INTO chunks(file_id, symbol_id, start_line, end_line, "
                                 "text, content_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    for (size_t i = 0; st && rc == 0 && i < c->nchunks; i++) {
        const mn_chunk_rec *k = &c->chunks[i];
        sqlite3_bind_int64(st, 1, f->id);
        if (k->symbol >= 0 && (size_t)k->symbol < c->nsymbols)
            sqlite3_bind_int64(st, 2, sym_ids[k->symbol]);
        else
            sqlite3_bind_null(st, 2);
        sqlite3_bind_int64(st, 3, k->start_line);
        sqlite3_bind_int64(st, 4, k->end_line);
        sqlite3_bind_text(st, 5, k->text, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, k->hash, -1, SQLITE_STATIC);
        rc = run(s, st, "cannot store a chunk");
    }
    free(sym_ids);
    return rc;
}

int mn_store_file_touch(mn_store *s, int64_t id, int64_t size, int64_t mtime_ms)
{
    MN_ASSERT_OR(s->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, "UPDATE files SET size = ?2, mtime = ?3 WHERE id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, size);
    sqlite3_bind_int64(st, 3, mtime_ms);
    return run(s, st, "cannot update a file");
}

int mn_store_file_remove(mn_store *s, const char *path)
{
    MN_ASSERT_OR(s->in_tx, MN_EINTERNAL);
    int64_t id;
    char hash[MN_HASH_HEX];
    int rc = mn_store_file_lookup(s, &id, hash, path);
    if (rc == MN_ENOTFOUND)
        return mn_error_set(MN_ENOTFOUND, "file '%s' is not indexed", path);
    if (rc || (rc = detach_file(s, id)) != 0)
        return rc;
    sqlite3_stmt *st = mn_sqlite__stmt(s, "DELETE FROM files WHERE id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, id);
    return run(s, st, "cannot remove a file");
}

int mn_store_files_each(mn_store *s, const char *glob,
                        int (*cb)(void *payload, const mn_file_rec *f), void *payload)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT id, path, language, role, content_hash, size, lines, mtime, "
                           "rank FROM files WHERE project_id = ?1 ORDER BY path",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(s, "cannot list files");
    sqlite3_bind_int64(st, 1, s->project_id);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_file_rec f = {0};
        f.id = sqlite3_column_int64(st, 0);
        f.path = (const char *)sqlite3_column_text(st, 1);
        if (glob && fnmatch(glob, f.path, 0) != 0)
            continue;
        f.language = (const char *)sqlite3_column_text(st, 2);
        f.role = (const char *)sqlite3_column_text(st, 3);
        snprintf(f.hash, sizeof(f.hash), "%s", (const char *)sqlite3_column_text(st, 4));
        f.size = sqlite3_column_int64(st, 5);
        f.lines = sqlite3_column_int64(st, 6);
        f.mtime_ms = sqlite3_column_int64(st, 7);
        f.rank = sqlite3_column_double(st, 8);
        if ((rc = cb(payload, &f)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = fail(s, "cannot list files");
    sqlite3_finalize(st);
    return rc;
}

int mn_store_index_counts(mn_store *s, mn_index_counts *out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT (SELECT count(*) FROM files WHERE project_id = ?1), "
           "(SELECT count(*) FROM symbols y JOIN files f ON f.id = y.file_id "
           "WHERE f.project_id = ?1), "
           "(SELECT count(*) FROM edges WHERE project_id = ?1), "
           "(SELECT count(*) FROM edges WHERE project_id = ?1 AND dst_id IS NOT NULL), "
           "(SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id "
           "WHERE f.project_id = ?1)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->files = sqlite3_column_int64(st, 0);
        out->symbols = sqlite3_column_int64(st, 1);
        out->edges = sqlite3_column_int64(st, 2);
        out->resolved = sqlite3_column_int64(st, 3);
        out->chunks = sqlite3_column_int64(st, 4);
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : fail(s, "cannot count the index");
}

int mn_store_set_rank(mn_store *s, const char *kind, int64_t id, double rank)
{
    MN_ASSERT_OR(s->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, strcmp(kind, "file") == 0
                                              ? "UPDATE files SET rank = ?2 WHERE id = ?1"
                                              : "UPDATE symbols SET rank = ?2 WHERE id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_double(st, 2, rank);
    return run(s, st, "cannot store a rank");
}

int mn_store_edges_unresolved_each(mn_store *s, int (*cb)(void *payload, const mn_edge_rec *e),
                                   void *payload)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT e.id, e.src_kind, e.src_id, "
                           "CASE e.src_kind WHEN 'file' THEN e.src_id ELSE "
                           "(SELECT file_id FROM symbols WHERE id = e.src_id) END, "
                           "e.kind, e.dst_name FROM edges e "
                           "WHERE e.project_id = ?1 AND e.dst_id IS NULL ORDER BY e.id",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(s, "cannot read the graph");
    sqlite3_bind_int64(st, 1, s->project_id);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_edge_rec e;
        e.id = sqlite3_column_int64(st, 0);
        e.src_kind = (const char *)sqlite3_column_text(st, 1);
        e.src_id = sqlite3_column_int64(st, 2);
        e.src_file = sqlite3_column_int64(st, 3);
        e.kind = (const char *)sqlite3_column_text(st, 4);
        e.name = (const char *)sqlite3_column_text(st, 5);
        if (!e.name)
            continue;
        if ((rc = cb(payload, &e)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = fail(s, "cannot read the graph");
    sqlite3_finalize(st);
    return rc;
}

int mn_store_edge_resolve(mn_store *s, int64_t edge_id, int64_t dst_id)
{
    MN_ASSERT_OR(s->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, "UPDATE edges SET dst_id = ?2 WHERE id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, edge_id);
    sqlite3_bind_int64(st, 2, dst_id);
    return run(s, st, "cannot resolve an edge");
}

int mn_store_symbols_each(mn_store *s, const char *name,
                          int (*cb)(void *payload, const mn_symbol_row *y), void *payload)
{
    sqlite3_stmt *st;
    bool glob = name && strpbrk(name, "*?[") != NULL;
    const char *sql =
        name && !glob
            ? "SELECT y.id, y.file_id, y.name, y.qualified_name, y.kind, f.path, y.signature, "
              "y.start_line, y.end_line, y.rank FROM symbols y JOIN files f ON f.id = y.file_id "
              "WHERE f.project_id = ?1 AND y.name = ?2 ORDER BY f.path, y.start_line"
            : "SELECT y.id, y.file_id, y.name, y.qualified_name, y.kind, f.path, y.signature, "
              "y.start_line, y.end_line, y.rank FROM symbols y JOIN files f ON f.id = y.file_id "
              "WHERE f.project_id = ?1 ORDER BY f.path, y.start_line";
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(s, "cannot list symbols");
    sqlite3_bind_int64(st, 1, s->project_id);
    if (name && !glob)
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_symbol_row y;
        y.id = sqlite3_column_int64(st, 0);
        y.file_id = sqlite3_column_int64(st, 1);
        y.name = (const char *)sqlite3_column_text(st, 2);
        y.qualified_name = (const char *)sqlite3_column_text(st, 3);
        y.kind = (const char *)sqlite3_column_text(st, 4);
        y.path = (const char *)sqlite3_column_text(st, 5);
        y.signature = (const char *)sqlite3_column_text(st, 6);
        y.start_line = sqlite3_column_int64(st, 7);
        y.end_line = sqlite3_column_int64(st, 8);
        y.rank = sqlite3_column_double(st, 9);
        if (glob && fnmatch(name, y.name, 0) != 0 && fnmatch(name, y.qualified_name, 0) != 0)
            continue;
        if ((rc = cb(payload, &y)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = fail(s, "cannot list symbols");
    sqlite3_finalize(st);
    return rc;
}

int mn_store_graph_each(mn_store *s, const char *level,
                        int (*cb)(void *payload, int64_t src, int64_t dst, double weight),
                        void *payload)
{
    static const char *const file_sql =
        "SELECT src, dst, sum(w) FROM ("
        " SELECT e.src_id AS src, e.dst_id AS dst, e.weight AS w FROM edges e"
        " WHERE e.project_id = ?1 AND e.src_kind = 'file' AND e.dst_kind = 'file'"
        " AND e.dst_id IS NOT NULL"
        " UNION ALL"
        " SELECT a.file_id, b.file_id, e.weight FROM edges e"
        " JOIN symbols a ON a.id = e.src_id JOIN symbols b ON b.id = e.dst_id"
        " WHERE e.project_id = ?1 AND e.src_kind = 'symbol' AND e.dst_kind = 'symbol'"
        " AND e.dst_id IS NOT NULL"
        ") WHERE src <> dst GROUP BY src, dst";
    static const char *const symbol_sql =
        "SELECT src_id, dst_id, sum(weight) FROM edges WHERE project_id = ?1 AND "
        "src_kind = 'symbol' AND dst_kind = 'symbol' AND dst_id IS NOT NULL AND src_id <> dst_id "
        "GROUP BY src_id, dst_id";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, strcmp(level, "file") == 0 ? file_sql : symbol_sql, -1, &st,
                           NULL) != SQLITE_OK)
        return fail(s, "cannot read the graph");
    sqlite3_bind_int64(st, 1, s->project_id);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = cb(payload, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                     sqlite3_column_double(st, 2))) != 0)
            break;
    if (rc == 0 && step != SQLITE_DONE)
        rc = fail(s, "cannot read the graph");
    sqlite3_finalize(st);
    return rc;
}

int mn_store_node_ids_each(mn_store *s, const char *level, int (*cb)(void *payload, int64_t id),
                           void *payload)
{
    sqlite3_stmt *st;
    const char *sql = strcmp(level, "file") == 0
                          ? "SELECT id FROM files WHERE project_id = ?1 ORDER BY id"
                          : "SELECT y.id FROM symbols y JOIN files f ON f.id = y.file_id "
                            "WHERE f.project_id = ?1 ORDER BY y.id";
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(s, "cannot read the index");
    sqlite3_bind_int64(st, 1, s->project_id);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = cb(payload, sqlite3_column_int64(st, 0))) != 0)
            break;
    if (rc == 0 && step != SQLITE_DONE)
        rc = fail(s, "cannot read the index");
    sqlite3_finalize(st);
    return rc;
}

int mn_store_neighbours_each(mn_store *s, const char *level, int64_t id, bool incoming,
                             int (*cb)(void *payload, const mn_neighbour *n), void *payload)
{
    /* the other end, as (edge kind, path, symbol, name, line) */
    static const char *const file_out =
        "SELECT e.kind, f.path, NULL, e.dst_name, 0 FROM edges e "
        "LEFT JOIN files f ON f.id = e.dst_id AND e.dst_kind = 'file' "
        "WHERE e.src_kind = 'file' AND e.src_id = ?1 ORDER BY e.id";
    static const char *const file_in =
        "SELECT e.kind, coalesce(f.path, fs.path), y.name, e.dst_name, coalesce(y.start_line, 0) "
        "FROM edges e LEFT JOIN files f ON e.src_kind = 'file' AND f.id = e.src_id "
        "LEFT JOIN symbols y ON e.src_kind = 'symbol' AND y.id = e.src_id "
        "LEFT JOIN files fs ON fs.id = y.file_id "
        "WHERE e.dst_kind = 'file' AND e.dst_id = ?1 ORDER BY 2, 5";
    static const char *const sym_out =
        "SELECT e.kind, f.path, y.name, e.dst_name, coalesce(y.start_line, 0) FROM edges e "
        "LEFT JOIN symbols y ON y.id = e.dst_id LEFT JOIN files f ON f.id = y.file_id "
        "WHERE e.src_kind = 'symbol' AND e.src_id = ?1 ORDER BY e.id";
    static const char *const sym_in =
        "SELECT e.kind, f.path, y.name, e.dst_name, y.start_line FROM edges e "
        "JOIN symbols y ON e.src_kind = 'symbol' AND y.id = e.src_id "
        "JOIN files f ON f.id = y.file_id "
        "WHERE e.dst_kind = 'symbol' AND e.dst_id = ?1 ORDER BY f.path, y.start_line";
    bool file = strcmp(level, "file") == 0;
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, file ? (incoming ? file_in : file_out) : (incoming ? sym_in : sym_out));
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, id);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_neighbour n;
        n.edge = (const char *)sqlite3_column_text(st, 0);
        n.path = (const char *)sqlite3_column_text(st, 1);
        n.symbol = (const char *)sqlite3_column_text(st, 2);
        n.name = (const char *)sqlite3_column_text(st, 3);
        n.line = sqlite3_column_int64(st, 4);
        if ((rc = cb(payload, &n)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = fail(s, "cannot read the graph");
    sqlite3_reset(st);
    return rc;
}
