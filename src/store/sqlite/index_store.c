/*
 * index_store.c - the SQLite side of store_index.h: files, symbols, edges
 * and chunks.
 *
 * Edges are polymorphic (a file or a symbol at either end), so SQLite's
 * foreign keys cannot clean them up; replacing or removing a file does it
 * here: the file's outgoing edges go, and incoming edges are unresolved
 * (dst_id = NULL, dst_name kept) for the resolver to point again.
 *
 * A replaced file keeps its id, and each of its symbols whose qualified
 * name is still there keeps its row (id, rank) and is updated in place
 * (the n-th old symbol of a name to the n-th new one): edges into them stay
 * resolved, and only the edges into symbols that went away are unresolved.
 * Editing a file that half the repository calls then costs the resolver
 * nothing for those callers, and ranks survive until PageRank runs again
 * (index/rank.h: not after every small change). A new symbol starts at
 * rank 0.
 */
#include "common.h"
#include <fnmatch.h>
#include <sqlite3.h>

#include "store/store_index.h"
#include "store/sqlite/sqlite_internal.h"
#include "util/map.h"
#include "util/vec.h"

static int run(mn_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : mn_sqlite__fail(s, what);
}

static void text_or_null(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

int mn_sqlite__file_lookup(mn_store *s, int64_t *id, char hash[MN_HASH_HEX], const char *path)
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
    return mn_sqlite__fail(s, "cannot read the index");
}

static int run_for_id(mn_store *s, const char *const *sql, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++) {
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

/* Drop what a file's content produced, before it is stored again: its outgoing edges and chunks. */
static int clear_file(mn_store *s, int64_t id)
{
    static const char *const sql[] = {
        "DELETE FROM edges WHERE src_kind = 'file' AND src_id = ?1",
        ("DELETE FROM edges WHERE src_kind = 'symbol' AND src_id IN "
         "(SELECT id FROM symbols WHERE file_id = ?1)"),
        "DELETE FROM chunks WHERE file_id = ?1",
        "DELETE FROM declared_names WHERE file_id = ?1",
    };
    return run_for_id(s, sql, MN_ARRAY_SIZE(sql), id);
}

/* Drop what hangs on a file: its outgoing edges, symbols and chunks; unresolve edges into it. */
static int detach_file(mn_store *s, int64_t id)
{
    static const char *const sql[] = {
        "UPDATE edges SET dst_id = NULL WHERE dst_kind = 'file' AND dst_id = ?1",
        ("UPDATE edges SET dst_id = NULL WHERE dst_kind = 'symbol' AND dst_id IN "
         "(SELECT id FROM symbols WHERE file_id = ?1)"),
        "DELETE FROM symbols WHERE file_id = ?1",
    };
    int rc = clear_file(s, id);
    return rc ? rc : run_for_id(s, sql, MN_ARRAY_SIZE(sql), id);
}

/* A symbol that went away: unresolve the edges into it, then delete it. */
static int drop_symbol(mn_store *s, int64_t id)
{
    static const char *const sql[] = {
        "UPDATE edges SET dst_id = NULL WHERE dst_kind = 'symbol' AND dst_id = ?1",
        "DELETE FROM symbols WHERE id = ?1",
    };
    return run_for_id(s, sql, MN_ARRAY_SIZE(sql), id);
}

/* The old symbols of one qualified name, in id order, and how many were reused. */
typedef struct {
    MN_VEC(int64_t) ids;
    size_t used;
} old_syms;

/* qualified name -> old_syms* of a file about to be replaced. */
static int old_symbols_load(mn_store *s, int64_t file_id, mn_map *out)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT id, qualified_name FROM symbols WHERE file_id = ?1 ORDER BY id");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, file_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *qn = (const char *)sqlite3_column_text(st, 1);
        old_syms *o = mn_map_get(out, qn ? qn : "");
        if (!o) {
            o = mn_calloc(1, sizeof(*o));
            mn_map_set(out, qn ? qn : "", o);
        }
        mn_vec_push(&o->ids, sqlite3_column_int64(st, 0));
    }
    sqlite3_reset(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot read the index");
}

/* Delete the old symbols nobody reused; free the map. */
static int old_symbols_finish(mn_store *s, mn_map *old, int rc)
{
    size_t pos = 0;
    const char *k;
    void *v;
    while (mn_map_next(old, &pos, &k, &v)) {
        old_syms *o = v;
        for (size_t i = o->used; rc == 0 && i < o->ids.len; i++)
            rc = drop_symbol(s, o->ids.items[i]);
        mn_vec_release(&o->ids);
        free(o);
    }
    mn_map_release(old);
    return rc;
}

static int put_file_row(mn_store *s, mn_file_rec *f, mn_map *old_symbols)
{
    int64_t id;
    char old[MN_HASH_HEX];
    int rc = mn_store_file_lookup(s, &id, old, f->path);
    sqlite3_stmt *st;
    if (rc == 0) {
        if ((rc = clear_file(s, id)) != 0 || (rc = old_symbols_load(s, id, old_symbols)) != 0)
            return rc;
        /* the rank is kept: see the top of the file */
        st = mn_sqlite__stmt(s, "UPDATE files SET language = ?2, role = ?3, content_hash = ?4, "
                                "size = ?5, lines = ?6, mtime = ?7, indexed_at = ?8, "
                                "decl_only = ?11 WHERE id = ?1");
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, id);
    } else if (rc == MN_ENOTFOUND) {
        st = mn_sqlite__stmt(s, "INSERT INTO files(project_id, path, language, role, "
                                "content_hash, size, lines, mtime, indexed_at, rank, decl_only) "
                                "VALUES (?1, ?10, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?11)");
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
    if (!id)
        sqlite3_bind_double(st, 9, f->rank);
    sqlite3_bind_int(st, 11, f->decl_only);
    if ((rc = run(s, st, "cannot store a file")) != 0)
        return rc;
    f->id = id ? id : sqlite3_last_insert_rowid(sq(s)->db);
    return 0;
}

int mn_sqlite__file_replace(mn_store *s, mn_file_rec *f, const mn_file_content *c)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    mn_map old = MN_MAP_INIT;
    int rc = put_file_row(s, f, &old);
    if (rc)
        return old_symbols_finish(s, &old, rc);
    int64_t *sym_ids = mn_calloc(c->nsymbols ? c->nsymbols : 1, sizeof(int64_t));
    sqlite3_stmt *ins = mn_sqlite__stmt(
        s, "INSERT INTO symbols(file_id, name, qualified_name, kind, start_line, end_line, "
           "start_byte, end_byte, signature, docstring, content_hash, id) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    sqlite3_stmt *upd = mn_sqlite__stmt(
        s, "UPDATE symbols SET file_id = ?1, name = ?2, qualified_name = ?3, kind = ?4, "
           "start_line = ?5, end_line = ?6, start_byte = ?7, end_byte = ?8, signature = ?9, "
           "docstring = ?10, content_hash = ?11 WHERE id = ?12");
    sqlite3_stmt *st = ins && upd ? ins : NULL;
    for (size_t i = 0; st && rc == 0 && i < c->nsymbols; i++) {
        const mn_symbol_rec *y = &c->symbols[i];
        const char *qn = y->qualified_name ? y->qualified_name : y->name;
        old_syms *o = old.len ? mn_map_get(&old, qn) : NULL;
        int64_t reuse = o && o->used < o->ids.len ? o->ids.items[o->used++] : 0;
        st = reuse ? upd : ins;
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
        if (reuse)
            sqlite3_bind_int64(st, 12, reuse);
        else
            sqlite3_bind_null(st, 12);
        if ((rc = run(s, st, "cannot store a symbol")) == 0)
            sym_ids[i] = reuse ? reuse : sqlite3_last_insert_rowid(sq(s)->db);
    }
    if (!st)
        rc = mn_error_last_code();
    rc = old_symbols_finish(s, &old, rc);
    st = rc ? NULL
            : mn_sqlite__stmt(s, "INSERT INTO edges(project_id, src_kind, src_id, dst_kind, "
                                 "dst_name, kind, weight, dst_key) "
                                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
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
        if (strcmp(r->kind, "import") != 0 && r->target)
            sqlite3_bind_text(st, 8, mn_store_ref_key(r->target), -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 8);
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
    st = rc || !c->ndecls ? NULL
                          : mn_sqlite__stmt(s, "INSERT INTO declared_names(file_id, line, kind, "
                                               "name) VALUES (?1, ?2, ?3, ?4)");
    if (rc == 0 && c->ndecls && !st)
        rc = mn_error_last_code();
    for (size_t i = 0; st && rc == 0 && i < c->ndecls; i++) {
        const mn_decl_rec *d = &c->decls[i];
        sqlite3_bind_int64(st, 1, f->id);
        sqlite3_bind_int64(st, 2, d->line);
        sqlite3_bind_text(st, 3, d->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, d->name, -1, SQLITE_STATIC);
        rc = run(s, st, "cannot store a declared name");
    }
    free(sym_ids);
    return rc;
}

int mn_sqlite__file_touch(mn_store *s, int64_t id, int64_t size, int64_t mtime_ms)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, "UPDATE files SET size = ?2, mtime = ?3 WHERE id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, size);
    sqlite3_bind_int64(st, 3, mtime_ms);
    return run(s, st, "cannot update a file");
}

int mn_sqlite__file_remove(mn_store *s, const char *path)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
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

/* cb with the first column of each row of st, bound and ready; the caller resets or finalizes it */
static int each_id(mn_store *s, sqlite3_stmt *st, int (*cb)(void *payload, int64_t id),
                   void *payload)
{
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = cb(payload, sqlite3_column_int64(st, 0))) != 0)
            break;
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the index");
    return rc;
}

int mn_sqlite__decl_only_files(mn_store *s, int (*cb)(void *payload, int64_t file_id),
                               void *payload)
{
    /* the partial index files_decl_only (schema v18): only the flagged rows are read */
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT id FROM files WHERE project_id = ?1 AND decl_only = 1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int rc = each_id(s, st, cb, payload);
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__files_each(mn_store *s, const char *glob,
                          int (*cb)(void *payload, const mn_file_rec *f), void *payload)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sq(s)->db,
                           "SELECT id, path, language, role, content_hash, size, lines, mtime, "
                           "rank FROM files WHERE project_id = ?1 ORDER BY path",
                           -1, &st, NULL) != SQLITE_OK)
        return mn_sqlite__fail(s, "cannot list files");
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
        rc = mn_sqlite__fail(s, "cannot list files");
    sqlite3_finalize(st);
    return rc;
}

int mn_sqlite__index_counts(mn_store *s, mn_index_counts *out)
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
    return rc == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot count the index");
}

int mn_sqlite__set_rank(mn_store *s, const char *kind, int64_t id, double rank)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    /* a row whose rank is the same is not written: after a small change most
     * ranks (rounded by rank.c) are, and rewriting every symbol row would
     * dirty the whole table */
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, strcmp(kind, "file") == 0
                               ? "UPDATE files SET rank = ?2 WHERE id = ?1 AND rank IS NOT ?2"
                               : "UPDATE symbols SET rank = ?2 WHERE id = ?1 AND rank IS NOT ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_double(st, 2, rank);
    return run(s, st, "cannot store a rank");
}

/*
 * Symbol id -> file id for every symbol of the project, sorted by symbol id.
 * Reading it whole (a scan of the small symbols_file index) and searching it
 * in memory is much cheaper than looking each symbol up in the symbols table
 * (wide rows: signatures, docstrings) once per edge: on sympy/sympy the
 * graph's joins took 160 ms, this 5 ms.
 */
typedef struct {
    int64_t symbol, file;
} sym_file;

typedef struct {
    sym_file *items;
    size_t len;
} sym_file_map;

static int cmp_sym_file(const void *a, const void *b)
{
    int64_t x = ((const sym_file *)a)->symbol, y = ((const sym_file *)b)->symbol;
    return x < y ? -1 : x > y;
}

static int sym_file_load(mn_store *s, sym_file_map *m)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT y.id, y.file_id FROM symbols y JOIN files f ON "
                                          "f.id = y.file_id WHERE f.project_id = ?1");
    size_t cap = 0;
    m->items = NULL;
    m->len = 0;
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (m->len == cap) {
            cap = cap ? cap * 2 : 4096;
            m->items = mn_realloc(m->items, cap * sizeof(*m->items));
        }
        m->items[m->len].symbol = sqlite3_column_int64(st, 0);
        m->items[m->len].file = sqlite3_column_int64(st, 1);
        m->len++;
    }
    sqlite3_reset(st);
    if (step != SQLITE_DONE) {
        free(m->items);
        m->items = NULL;
        m->len = 0;
        return mn_sqlite__fail(s, "cannot read the index");
    }
    if (m->len > 1)
        qsort(m->items, m->len, sizeof(*m->items), cmp_sym_file);
    return 0;
}

/* The file of a symbol, or 0 when the project has no such symbol. */
static int64_t sym_file_of(const sym_file_map *m, int64_t symbol)
{
    size_t lo = 0, hi = m->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->items[mid].symbol < symbol)
            lo = mid + 1;
        else if (m->items[mid].symbol > symbol)
            hi = mid;
        else
            return m->items[mid].file;
    }
    return 0;
}

int mn_sqlite__edges_unresolved_each(mn_store *s, int (*cb)(void *payload, const mn_edge_rec *e),
                                     void *payload)
{
    sym_file_map map;
    sqlite3_stmt *st;
    int rc = sym_file_load(s, &map);
    if (rc)
        return rc;
    /* a scan of the table in id order: cheaper than the edges_dst index and
     * a row lookup per edge, most edges of a project being unresolved calls */
    if (sqlite3_prepare_v2(sq(s)->db,
                           "SELECT e.id, e.src_kind, e.src_id, e.kind, e.dst_name "
                           "FROM edges e NOT INDEXED "
                           "WHERE e.project_id = ?1 AND e.dst_id IS NULL ORDER BY e.id",
                           -1, &st, NULL) != SQLITE_OK) {
        free(map.items);
        return mn_sqlite__fail(s, "cannot read the graph");
    }
    sqlite3_bind_int64(st, 1, s->project_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_edge_rec e;
        e.id = sqlite3_column_int64(st, 0);
        e.src_kind = (const char *)sqlite3_column_text(st, 1);
        e.src_id = sqlite3_column_int64(st, 2);
        e.src_file = strcmp(e.src_kind, "file") == 0 ? e.src_id : sym_file_of(&map, e.src_id);
        e.kind = (const char *)sqlite3_column_text(st, 3);
        e.name = (const char *)sqlite3_column_text(st, 4);
        e.dst_id = 0;
        if (!e.name)
            continue;
        if ((rc = cb(payload, &e)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the graph");
    sqlite3_finalize(st);
    free(map.items);
    return rc;
}

int mn_sqlite__edge_resolve(mn_store *s, int64_t edge_id, int64_t dst_id)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, "UPDATE edges SET dst_id = ?2 WHERE id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, edge_id);
    if (dst_id)
        sqlite3_bind_int64(st, 2, dst_id);
    else
        sqlite3_bind_null(st, 2);
    return run(s, st, "cannot resolve an edge");
}

/* The columns every mn_edge_rec query selects, the source file included. */
#define EDGE_COLUMNS                                                                     \
    "e.id, e.src_kind, e.src_id, e.kind, e.dst_name, coalesce(e.dst_id, 0), "            \
    "CASE e.src_kind WHEN 'file' THEN e.src_id ELSE (SELECT file_id FROM symbols WHERE " \
    "id = e.src_id) END "

int mn_sqlite__edges_each(mn_store *s, const mn_edge_query *q,
                          int (*cb)(void *payload, const mn_edge_rec *e), void *payload)
{
    /* CROSS JOIN fixes the loop order (symbols of the file, then their
     * edges): without statistics SQLite would rather scan every edge. */
    static const char *const by_file =
        "SELECT " EDGE_COLUMNS "FROM edges e WHERE e.src_kind = 'file' AND e.src_id = ?2 "
        "UNION ALL SELECT " EDGE_COLUMNS "FROM symbols y CROSS JOIN edges e "
        "ON e.src_kind = 'symbol' AND e.src_id = y.id WHERE y.file_id = ?2";
    static const char *const by_file_imports =
        "SELECT " EDGE_COLUMNS "FROM edges e WHERE e.src_kind = 'file' AND e.src_id = ?2 "
        "AND e.kind = 'import' UNION ALL SELECT " EDGE_COLUMNS "FROM symbols y CROSS JOIN "
        "edges e ON e.src_kind = 'symbol' AND e.src_id = y.id WHERE y.file_id = ?2 "
        "AND e.kind = 'import'";
    static const char *const by_id = "SELECT " EDGE_COLUMNS "FROM edges e WHERE e.id = ?2";
    static const char *const by_key =
        "SELECT " EDGE_COLUMNS "FROM edges e WHERE e.dst_key = ?2 AND e.project_id = ?1";
    static const char *const imports =
        "SELECT " EDGE_COLUMNS "FROM edges e NOT INDEXED WHERE e.project_id = ?1 AND "
        "e.kind = 'import' AND ?2 IS NULL";
    const char *sql = q->file           ? by_file
                      : q->file_imports ? by_file_imports
                      : q->id           ? by_id
                      : q->key          ? by_key
                      : q->imports      ? imports
                                        : NULL;
    MN_ASSERT_OR(sql, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    if (q->file || q->file_imports || q->id)
        sqlite3_bind_int64(st, 2, q->file ? q->file : q->file_imports ? q->file_imports : q->id);
    else if (q->key)
        sqlite3_bind_text(st, 2, q->key, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 2);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_edge_rec e;
        e.id = sqlite3_column_int64(st, 0);
        e.src_kind = (const char *)sqlite3_column_text(st, 1);
        e.src_id = sqlite3_column_int64(st, 2);
        e.kind = (const char *)sqlite3_column_text(st, 3);
        e.name = (const char *)sqlite3_column_text(st, 4);
        e.dst_id = sqlite3_column_int64(st, 5);
        e.src_file = sqlite3_column_int64(st, 6);
        if (!e.name || !e.src_kind || !e.kind)
            continue;
        if ((rc = cb(payload, &e)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the graph");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__file_incoming_each(mn_store *s, int64_t file_id,
                                  int (*cb)(void *payload, int64_t edge_id,
                                            const char *qualified_name),
                                  void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT e.id, NULL FROM edges e WHERE e.dst_kind = 'file' AND e.dst_id = ?1 "
           "UNION ALL SELECT e.id, y.qualified_name FROM symbols y CROSS JOIN edges e "
           "ON e.dst_kind = 'symbol' AND e.dst_id = y.id WHERE y.file_id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, file_id);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = cb(payload, sqlite3_column_int64(st, 0),
                     (const char *)sqlite3_column_text(st, 1))) != 0)
            break;
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the graph");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__symbols_named_each(mn_store *s, const char *name,
                                  int (*cb)(void *payload, int64_t id, int64_t file_id),
                                  void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT y.id, y.file_id FROM symbols y JOIN files f ON "
                                          "f.id = y.file_id WHERE f.project_id = ?1 AND "
                                          "y.name = ?2 ORDER BY y.id");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = cb(payload, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1))) != 0)
            break;
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot list symbols");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__file_symbol_names_each(mn_store *s, int64_t file_id,
                                      int (*cb)(void *payload, const char *name,
                                                const char *qualified_name),
                                      void *payload)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT name, qualified_name FROM symbols WHERE file_id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, file_id);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *qn = (const char *)sqlite3_column_text(st, 1);
        if (name && (rc = cb(payload, name, qn ? qn : name)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot list symbols");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__symbols_each(mn_store *s, const char *name,
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
    if (sqlite3_prepare_v2(sq(s)->db, sql, -1, &st, NULL) != SQLITE_OK)
        return mn_sqlite__fail(s, "cannot list symbols");
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
        rc = mn_sqlite__fail(s, "cannot list symbols");
    sqlite3_finalize(st);
    return rc;
}

typedef struct {
    int64_t src, dst;
    double w;
} weighted_pair;

static int cmp_pair(const void *a, const void *b)
{
    const weighted_pair *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

typedef struct {
    weighted_pair *items;
    size_t len, cap;
} pair_vec;

static void pair_push(pair_vec *v, int64_t src, int64_t dst, double w)
{
    if (v->len == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 4096;
        v->items = mn_realloc(v->items, v->cap * sizeof(*v->items));
    }
    v->items[v->len++] = (weighted_pair){src, dst, w};
}

/*
 * The resolved graph is summed in memory rather than with GROUP BY and a
 * join to symbols per edge: one scan of the edges table (in rowid order,
 * no index) and the symbol -> file map. Pairs come out in (src, dst) order.
 */
int mn_sqlite__graph_each(mn_store *s, const char *level,
                          int (*cb)(void *payload, int64_t src, int64_t dst, double weight),
                          void *payload)
{
    bool file = strcmp(level, "file") == 0;
    sym_file_map map = {NULL, 0};
    pair_vec v = {NULL, 0, 0};
    sqlite3_stmt *st = NULL;
    int rc = 0, step;
    if (file && (rc = sym_file_load(s, &map)) != 0)
        return rc;
    if (sqlite3_prepare_v2(
            sq(s)->db,
            "SELECT src_kind, src_id, dst_kind, dst_id, weight FROM edges NOT INDEXED "
            "WHERE project_id = ?1 AND dst_id IS NOT NULL",
            -1, &st, NULL) != SQLITE_OK) {
        rc = mn_sqlite__fail(s, "cannot read the graph");
        goto out;
    }
    sqlite3_bind_int64(st, 1, s->project_id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *sk = (const char *)sqlite3_column_text(st, 0);
        const char *dk = (const char *)sqlite3_column_text(st, 2);
        int64_t src = sqlite3_column_int64(st, 1), dst = sqlite3_column_int64(st, 3);
        double w = sqlite3_column_double(st, 4);
        bool sym_src = sk && strcmp(sk, "symbol") == 0, sym_dst = dk && strcmp(dk, "symbol") == 0;
        if (file && !sym_src && !sym_dst) {
            /* file -> file: an import */
        } else if (sym_src && sym_dst) {
            if (file) { /* a call or inherit, lifted to the files; unknown ids are left out */
                src = sym_file_of(&map, src);
                dst = sym_file_of(&map, dst);
                if (!src || !dst)
                    continue;
            }
        } else {
            continue;
        }
        if (src != dst)
            pair_push(&v, src, dst, w);
    }
    if (step != SQLITE_DONE) {
        rc = mn_sqlite__fail(s, "cannot read the graph");
        goto out;
    }
    if (v.len > 1)
        qsort(v.items, v.len, sizeof(*v.items), cmp_pair);
    for (size_t i = 0; i < v.len && rc == 0;) {
        size_t j = i;
        double sum = 0;
        for (; j < v.len && v.items[j].src == v.items[i].src && v.items[j].dst == v.items[i].dst;
             j++)
            sum += v.items[j].w;
        rc = cb(payload, v.items[i].src, v.items[i].dst, sum);
        i = j;
    }
out:
    sqlite3_finalize(st);
    free(v.items);
    free(map.items);
    return rc;
}

int mn_sqlite__node_ids_each(mn_store *s, const char *level, int (*cb)(void *payload, int64_t id),
                             void *payload)
{
    sqlite3_stmt *st;
    const char *sql = strcmp(level, "file") == 0
                          ? "SELECT id FROM files WHERE project_id = ?1 ORDER BY id"
                          : "SELECT y.id FROM symbols y JOIN files f ON f.id = y.file_id "
                            "WHERE f.project_id = ?1 ORDER BY y.id";
    if (sqlite3_prepare_v2(sq(s)->db, sql, -1, &st, NULL) != SQLITE_OK)
        return mn_sqlite__fail(s, "cannot read the index");
    sqlite3_bind_int64(st, 1, s->project_id);
    int rc = each_id(s, st, cb, payload);
    sqlite3_finalize(st);
    return rc;
}

int mn_sqlite__neighbours_each(mn_store *s, const char *level, int64_t id, bool incoming,
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
        rc = mn_sqlite__fail(s, "cannot read the graph");
    sqlite3_reset(st);
    return rc;
}
