/*
 * pg_index.c - the PostgreSQL side of store_index.h's files: a file and
 * everything its content produced (symbols, references, chunks, declared
 * names), replaced or removed as one; the listing, counts and ranks.
 *
 * The same semantics as sqlite/index_store.c (read its header): a replaced
 * file keeps its id and its rank; each of its symbols whose qualified name
 * is still there keeps its row (id, rank), the n-th old symbol of a name
 * going to the n-th new one, so the edges into it stay resolved; the edges
 * into symbols that went away, and into a removed file and its symbols, are
 * unresolved (dst_id NULL, dst_name kept); outgoing edges, chunks and
 * declared names are dropped and written again. Edges have no foreign key
 * (either end is a file or a symbol): this file keeps them consistent.
 *
 * Round trips, not rows, are what a replace costs here: each kind of row
 * of a file goes in one statement whatever its number (arrays unnest()ed:
 * pg_index.h), and the ids of the new symbols and chunks are taken from
 * their sequences first (one statement for both), so that the edges and
 * chunks can name them in the same batch. Ids are given in ascending order
 * in the order of the file's records, as SQLite's rowids are, so that
 * anything ordered by id (edges, symbols of a name) comes in the same order
 * on both back ends. A replace is about ten statements whatever the size
 * of the file.
 */
#include "common.h"
#include <fnmatch.h>

#include "store/postgres/pg_index.h"
#include "store/postgres/pg_search.h"
#include "store/store_index.h"
#include "util/map.h"
#include "util/vec.h"

/* ---- array parameters ---- */

static void array_sep(mn_pg_array *a)
{
    if (a->n++)
        mn_buf_putc(&a->b, ',');
}

void mn_pg__array_text(mn_pg_array *a, const char *v)
{
    array_sep(a);
    if (!v) {
        mn_buf_puts(&a->b, "NULL");
        return;
    }
    /* quoted always ("NULL" as text, empty strings, braces, commas); \ and " escaped */
    mn_buf_putc(&a->b, '"');
    for (const char *c = v; *c; c++) {
        if (*c == '"' || *c == '\\')
            mn_buf_putc(&a->b, '\\');
        mn_buf_putc(&a->b, *c);
    }
    mn_buf_putc(&a->b, '"');
}

void mn_pg__array_int(mn_pg_array *a, int64_t v)
{
    array_sep(a);
    mn_buf_printf(&a->b, "%lld", (long long)v);
}

void mn_pg__array_real(mn_pg_array *a, double v)
{
    array_sep(a);
    mn_buf_printf(&a->b, "%.17g", v); /* every double converts back to itself */
}

void mn_pg__array_param(mn_pg_params *p, mn_pg_array *a)
{
    mn_buf out = MN_BUF_INIT;
    mn_buf_grow(&out, a->b.len + 2);
    mn_buf_putc(&out, '{');
    mn_buf_put(&out, a->b.ptr, a->b.len);
    mn_buf_putc(&out, '}');
    mn_pg__take(p, mn_buf_detach(&out));
    mn_buf_clear(&a->b);
    a->n = 0;
}

void mn_pg__array_release(mn_pg_array *a)
{
    mn_buf_release(&a->b);
    a->n = 0;
}

/* ---- files ---- */

static const mn_pq_api *pq(mn_store *s)
{
    return pg(s)->pq;
}

int mn_pg__file_lookup(mn_store *s, int64_t *id, char hash[MN_HASH_HEX], const char *path)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, path);
    PGresult *r = mn_pg__run(s,
                             "SELECT id, content_hash FROM files WHERE project_id = $1 AND "
                             "path = $2",
                             &p, "cannot read the index");
    if (!r)
        return mn_error_last_code();
    int rc = MN_ENOTFOUND;
    if (pq(s)->ntuples(r) == 1) {
        const char *h = mn_pg__col(s, r, 0, 1);
        *id = mn_pg__col_int(s, r, 0, 0);
        snprintf(hash, MN_HASH_HEX, "%s", h ? h : "");
        rc = 0;
    }
    pq(s)->clear(r);
    return rc;
}

void mn_pg__file_row(mn_store *s, const PGresult *r, int row, mn_file_rec *f)
{
    const char *h = mn_pg__col(s, r, row, 4), *rank = mn_pg__col(s, r, row, 8);
    memset(f, 0, sizeof(*f));
    f->id = mn_pg__col_int(s, r, row, 0);
    f->path = mn_pg__col(s, r, row, 1);
    f->language = mn_pg__col(s, r, row, 2);
    f->role = mn_pg__col(s, r, row, 3);
    snprintf(f->hash, sizeof(f->hash), "%s", h ? h : "");
    f->size = mn_pg__col_int(s, r, row, 5);
    f->lines = mn_pg__col_int(s, r, row, 6);
    f->mtime_ms = mn_pg__col_int(s, r, row, 7);
    f->rank = rank ? strtod(rank, NULL) : 0;
}

/*
 * Drop what a file's content produced before it is stored again: its
 * outgoing edges (of the file and of its symbols), chunks and declared
 * names, in one statement (data-modifying CTEs all run, read or not).
 * The dropped chunks leave the full-text index first (pg_postings.c).
 */
static int clear_file(mn_store *s, int64_t id)
{
    int rc = mn_pg__postings_del_chunks(s, id);
    if (rc)
        return rc;
    mn_pg_params p = {0};
    mn_pg__int(&p, id);
    return mn_pg__exec(s,
                       "WITH e1 AS (DELETE FROM edges WHERE src_kind = 'file' AND src_id = $1), "
                       "e2 AS (DELETE FROM edges WHERE src_kind = 'symbol' AND src_id IN "
                       "(SELECT id FROM symbols WHERE file_id = $1)), "
                       "d AS (DELETE FROM declared_names WHERE file_id = $1) "
                       "DELETE FROM chunks WHERE file_id = $1",
                       &p, "cannot update the index");
}

/* The old symbols of one qualified name, in id order, and how many were reused. */
typedef struct {
    MN_VEC(int64_t) ids;
    size_t used;
} old_syms;

/* qualified name -> old_syms* of a file about to be replaced. */
static int old_symbols_load(mn_store *s, int64_t file_id, mn_map *out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, file_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT id, qualified_name FROM symbols WHERE file_id = $1 "
                             "ORDER BY id",
                             &p, "cannot read the index");
    if (!r)
        return mn_error_last_code();
    for (int i = 0, n = pq(s)->ntuples(r); i < n; i++) {
        const char *qn = mn_pg__col(s, r, i, 1);
        old_syms *o = mn_map_get(out, qn ? qn : "");
        if (!o) {
            o = mn_calloc(1, sizeof(*o));
            mn_map_set(out, qn ? qn : "", o);
        }
        mn_vec_push(&o->ids, mn_pg__col_int(s, r, i, 0));
    }
    pq(s)->clear(r);
    return 0;
}

/* Unresolve the edges into the old symbols nobody reused and delete them (if rc is 0); free
 * the map. */
static int old_symbols_finish(mn_store *s, mn_map *old, int rc)
{
    mn_pg_array ids = MN_PG_ARRAY_INIT;
    size_t pos = 0;
    const char *k;
    void *v;
    while (mn_map_next(old, &pos, &k, &v)) {
        old_syms *o = v;
        for (size_t i = o->used; i < o->ids.len; i++)
            mn_pg__array_int(&ids, o->ids.items[i]);
        mn_vec_release(&o->ids);
        free(o);
    }
    mn_map_release(old);
    if (rc == 0 && ids.n) {
        mn_pg_params p = {0};
        mn_pg__array_param(&p, &ids);
        rc = mn_pg__exec(s,
                         "WITH u AS (UPDATE edges SET dst_id = NULL WHERE dst_kind = 'symbol' AND "
                         "dst_id = ANY($1::bigint[])) DELETE FROM symbols WHERE id = "
                         "ANY($1::bigint[])",
                         &p, "cannot update the index");
    }
    mn_pg__array_release(&ids);
    return rc;
}

/*
 * Insert or update the file's row; f->id is set, *replaced says whether it
 * was there (its rank is kept then: sqlite/index_store.c says why).
 */
static int put_file_row(mn_store *s, mn_file_rec *f, bool *replaced)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, f->path);
    mn_pg__text(&p, f->language);
    mn_pg__text(&p, f->role ? f->role : "source");
    mn_pg__text(&p, f->hash);
    mn_pg__int(&p, f->size);
    mn_pg__int(&p, f->lines);
    mn_pg__int(&p, f->mtime_ms);
    mn_pg__int(&p, mn_time_now_ms());
    mn_pg__real(&p, f->rank);
    mn_pg__int(&p, f->decl_only);
    /* xmax is 0 on a row this statement inserted, the updating transaction's id on one it
     * updated */
    PGresult *r = mn_pg__run(
        s,
        "INSERT INTO files(project_id, path, language, role, content_hash, size, lines, mtime, "
        "indexed_at, rank, decl_only) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
        "$11::int <> 0) "
        "ON CONFLICT (project_id, path) DO UPDATE SET language = excluded.language, "
        "role = excluded.role, content_hash = excluded.content_hash, size = excluded.size, "
        "lines = excluded.lines, mtime = excluded.mtime, indexed_at = excluded.indexed_at, "
        "decl_only = excluded.decl_only "
        "RETURNING id, xmax <> 0",
        &p, "cannot store a file");
    if (!r)
        return mn_error_last_code();
    f->id = mn_pg__col_int(s, r, 0, 0);
    const char *u = mn_pg__col(s, r, 0, 1);
    *replaced = u && *u == 't';
    pq(s)->clear(r);
    return 0;
}

/* n new ids of table's id column, ascending, into out (one statement for both tables). */
static int new_ids(mn_store *s, size_t nsym, int64_t *sym, size_t nchunk, int64_t *chunk)
{
    if (!nsym && !nchunk)
        return 0;
    mn_pg_params p = {0};
    mn_pg__int(&p, (int64_t)nsym);
    mn_pg__int(&p, (int64_t)nchunk);
    PGresult *r = mn_pg__run(
        s,
        "SELECT 's', id FROM (SELECT nextval(pg_get_serial_sequence('symbols', 'id')) AS id "
        "FROM generate_series(1, $1::bigint)) a UNION ALL SELECT 'c', id FROM (SELECT "
        "nextval(pg_get_serial_sequence('chunks', 'id')) AS id FROM generate_series(1, "
        "$2::bigint)) b ORDER BY 1 DESC, 2",
        &p, "cannot store a file");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pq(s)->ntuples(r);
    if ((size_t)n != nsym + nchunk) {
        rc = mn_error_set(MN_EIO, "cannot store a file in '%s': %d ids for %zu rows", s->path, n,
                          nsym + nchunk);
    } else {
        for (size_t i = 0; i < nsym; i++)
            sym[i] = mn_pg__col_int(s, r, (int)i, 1);
        for (size_t i = 0; i < nchunk; i++)
            chunk[i] = mn_pg__col_int(s, r, (int)(nsym + i), 1);
    }
    pq(s)->clear(r);
    return rc;
}

/*
 * The symbols, new and reused in one statement: a reused id is there
 * already and takes the new values (its rank stays), a new one is inserted.
 */
static int put_symbols(mn_store *s, int64_t file_id, const mn_file_content *c, const int64_t *ids)
{
    mn_pg_array a[11];
    for (size_t j = 0; j < MN_ARRAY_SIZE(a); j++)
        a[j] = (mn_pg_array)MN_PG_ARRAY_INIT;
    for (size_t i = 0; i < c->nsymbols; i++) {
        const mn_symbol_rec *y = &c->symbols[i];
        mn_pg__array_int(&a[0], ids[i]);
        mn_pg__array_text(&a[1], y->name);
        mn_pg__array_text(&a[2], y->qualified_name ? y->qualified_name : y->name);
        mn_pg__array_text(&a[3], y->kind);
        mn_pg__array_int(&a[4], y->start_line);
        mn_pg__array_int(&a[5], y->end_line);
        mn_pg__array_int(&a[6], y->start_byte);
        mn_pg__array_int(&a[7], y->end_byte);
        mn_pg__array_text(&a[8], y->signature);
        mn_pg__array_text(&a[9], y->docstring);
        mn_pg__array_text(&a[10], y->hash[0] ? y->hash : NULL);
    }
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, file_id);
    for (size_t j = 0; j < MN_ARRAY_SIZE(a); j++) {
        mn_pg__array_param(&p, &a[j]);
        mn_pg__array_release(&a[j]);
    }
    return mn_pg__exec(
        s,
        "INSERT INTO symbols(id, project_id, file_id, name, qualified_name, kind, start_line, "
        "end_line, start_byte, end_byte, signature, docstring, content_hash) "
        "SELECT u.id, $1, $2, u.name, u.qn, u.kind, u.sl, u.el, u.sb, u.eb, u.sig, u.doc, u.h "
        "FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[], "
        "$8::bigint[], $9::bigint[], $10::bigint[], $11::text[], $12::text[], $13::text[]) "
        "AS u(id, name, qn, kind, sl, el, sb, eb, sig, doc, h) "
        "ON CONFLICT (id) DO UPDATE SET file_id = excluded.file_id, name = excluded.name, "
        "qualified_name = excluded.qualified_name, kind = excluded.kind, start_line = "
        "excluded.start_line, end_line = excluded.end_line, start_byte = excluded.start_byte, "
        "end_byte = excluded.end_byte, signature = excluded.signature, docstring = "
        "excluded.docstring, content_hash = excluded.content_hash",
        &p, "cannot store a symbol");
}

/* The references, as edges (unresolved), in the file's order (their ids ascending). */
static int put_edges(mn_store *s, int64_t file_id, const mn_file_content *c, const int64_t *sym_ids)
{
    mn_pg_array a[7];
    for (size_t j = 0; j < MN_ARRAY_SIZE(a); j++)
        a[j] = (mn_pg_array)MN_PG_ARRAY_INIT;
    for (size_t i = 0; i < c->nrefs; i++) {
        const mn_ref_rec *r = &c->refs[i];
        bool from_symbol = r->src_symbol >= 0 && (size_t)r->src_symbol < c->nsymbols;
        bool import = strcmp(r->kind, "import") == 0;
        mn_pg__array_text(&a[0], from_symbol ? "symbol" : "file");
        mn_pg__array_int(&a[1], from_symbol ? sym_ids[r->src_symbol] : file_id);
        mn_pg__array_text(&a[2], import ? "file" : "symbol");
        mn_pg__array_text(&a[3], r->target);
        mn_pg__array_text(&a[4], r->kind);
        mn_pg__array_real(&a[5], r->weight > 0 ? r->weight : 1.0);
        mn_pg__array_text(&a[6], !import && r->target ? mn_store_ref_key(r->target) : NULL);
    }
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    for (size_t j = 0; j < MN_ARRAY_SIZE(a); j++) {
        mn_pg__array_param(&p, &a[j]);
        mn_pg__array_release(&a[j]);
    }
    return mn_pg__exec(
        s,
        "INSERT INTO edges(project_id, src_kind, src_id, dst_kind, dst_name, kind, weight, "
        "dst_key) SELECT $1, u.sk, u.sid, u.dk, u.name, u.kind, u.w, u.k FROM unnest($2::text[], "
        "$3::bigint[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::text[]) WITH "
        "ORDINALITY AS u(sk, sid, dk, name, kind, w, k, ord) ORDER BY u.ord",
        &p, "cannot store a reference");
}

/* The chunks, with the ids new_ids gave them, and their postings (pg_postings.c). */
static int put_chunks(mn_store *s, const mn_file_rec *f, const mn_file_content *c,
                      const int64_t *sym_ids, const int64_t *ids)
{
    int64_t file_id = f->id;
    mn_pg_array a[6];
    for (size_t j = 0; j < MN_ARRAY_SIZE(a); j++)
        a[j] = (mn_pg_array)MN_PG_ARRAY_INIT;
    for (size_t i = 0; i < c->nchunks; i++) {
        const mn_chunk_rec *k = &c->chunks[i];
        mn_pg__array_int(&a[0], ids[i]);
        if (k->symbol >= 0 && (size_t)k->symbol < c->nsymbols)
            mn_pg__array_int(&a[1], sym_ids[k->symbol]);
        else
            mn_pg__array_text(&a[1], NULL);
        mn_pg__array_int(&a[2], k->start_line);
        mn_pg__array_int(&a[3], k->end_line);
        mn_pg__array_text(&a[4], k->text ? k->text : "");
        mn_pg__array_text(&a[5], k->hash);
    }
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, file_id);
    for (size_t j = 0; j < MN_ARRAY_SIZE(a); j++) {
        mn_pg__array_param(&p, &a[j]);
        mn_pg__array_release(&a[j]);
    }
    int rc = mn_pg__exec(s,
                         "INSERT INTO chunks(id, project_id, file_id, symbol_id, start_line, "
                         "end_line, text, content_hash) SELECT u.id, $1, $2, u.sym, u.sl, u.el, "
                         "u.t, u.h FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], "
                         "$6::bigint[], $7::text[], $8::text[]) AS u(id, sym, sl, el, t, h)",
                         &p, "cannot store a chunk");
    return rc ? rc : mn_pg__postings_chunks(s, f->path, c, ids);
}

static int put_decls(mn_store *s, int64_t file_id, const mn_file_content *c)
{
    mn_pg_array a[3] = {MN_PG_ARRAY_INIT, MN_PG_ARRAY_INIT, MN_PG_ARRAY_INIT};
    for (size_t i = 0; i < c->ndecls; i++) {
        mn_pg__array_int(&a[0], c->decls[i].line);
        mn_pg__array_text(&a[1], c->decls[i].kind);
        mn_pg__array_text(&a[2], c->decls[i].name);
    }
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, file_id);
    for (size_t j = 0; j < MN_ARRAY_SIZE(a); j++) {
        mn_pg__array_param(&p, &a[j]);
        mn_pg__array_release(&a[j]);
    }
    return mn_pg__exec(s,
                       "INSERT INTO declared_names(project_id, file_id, line, kind, name) "
                       "SELECT $1, $2, u.l, u.k, u.n FROM unnest($3::bigint[], $4::text[], "
                       "$5::text[]) WITH ORDINALITY AS u(l, k, n, ord) ORDER BY u.ord",
                       &p, "cannot store a declared name");
}

int mn_pg__file_replace(mn_store *s, mn_file_rec *f, const mn_file_content *c)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_map old = MN_MAP_INIT;
    bool replaced = false;
    int64_t *sym_ids = mn_calloc(c->nsymbols ? c->nsymbols : 1, sizeof(int64_t));
    int64_t *chunk_ids = mn_calloc(c->nchunks ? c->nchunks : 1, sizeof(int64_t));
    int64_t *fresh = mn_calloc(c->nsymbols ? c->nsymbols : 1, sizeof(int64_t));
    size_t nfresh = 0;
    int rc = put_file_row(s, f, &replaced);
    if (rc == 0 && replaced && (rc = clear_file(s, f->id)) == 0)
        rc = old_symbols_load(s, f->id, &old);
    /* which symbols reuse an old row: the n-th of a qualified name the n-th old one */
    bool *reused = mn_calloc(c->nsymbols ? c->nsymbols : 1, sizeof(bool));
    for (size_t i = 0; rc == 0 && i < c->nsymbols; i++) {
        const mn_symbol_rec *y = &c->symbols[i];
        old_syms *o =
            old.len ? mn_map_get(&old, y->qualified_name ? y->qualified_name : y->name) : NULL;
        if (o && o->used < o->ids.len) {
            sym_ids[i] = o->ids.items[o->used++];
            reused[i] = true;
        } else {
            nfresh++;
        }
    }
    if (rc == 0)
        rc = new_ids(s, nfresh, fresh, c->nchunks, chunk_ids);
    for (size_t i = 0, j = 0; rc == 0 && i < c->nsymbols; i++)
        if (!reused[i])
            sym_ids[i] = fresh[j++];
    free(reused);
    if (rc == 0 && c->nsymbols)
        rc = put_symbols(s, f->id, c, sym_ids);
    rc = old_symbols_finish(s, &old, rc);
    if (rc == 0 && c->nrefs)
        rc = put_edges(s, f->id, c, sym_ids);
    if (rc == 0 && c->nchunks)
        rc = put_chunks(s, f, c, sym_ids, chunk_ids);
    if (rc == 0 && c->ndecls)
        rc = put_decls(s, f->id, c);
    /* the path's postings (files_fts) */
    if (rc == 0) {
        size_t len = strlen(f->path);
        rc = mn_pg__postings_put(s, MN_FTS_FILES, f->id, &f->path, &len, 1);
    }
    free(fresh);
    free(chunk_ids);
    free(sym_ids);
    return rc;
}

int mn_pg__file_touch(mn_store *s, int64_t id, int64_t size, int64_t mtime_ms)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, id);
    mn_pg__int(&p, size);
    mn_pg__int(&p, mtime_ms);
    mn_pg__int(&p, s->project_id);
    return mn_pg__exec(s,
                       "UPDATE files SET size = $2, mtime = $3 WHERE id = $1 AND project_id = $4",
                       &p, "cannot update a file");
}

int mn_pg__file_remove(mn_store *s, const char *path)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    int64_t id;
    char hash[MN_HASH_HEX];
    int rc = mn_pg__file_lookup(s, &id, hash, path);
    if (rc == MN_ENOTFOUND)
        return mn_error_set(MN_ENOTFOUND, "file '%s' is not indexed", path);
    if (rc || (rc = clear_file(s, id)) != 0)
        return rc;
    if ((rc = mn_pg__postings_del(s, MN_FTS_FILES, id)) != 0)
        return rc;
    mn_pg_params p = {0};
    mn_pg__int(&p, id);
    /* edges into the file and its symbols unresolved; the cascade takes symbols and the rest */
    return mn_pg__exec(
        s,
        "WITH e1 AS (UPDATE edges SET dst_id = NULL WHERE dst_kind = 'file' AND dst_id = $1), "
        "e2 AS (UPDATE edges SET dst_id = NULL WHERE dst_kind = 'symbol' AND dst_id IN "
        "(SELECT id FROM symbols WHERE file_id = $1)) DELETE FROM files WHERE id = $1",
        &p, "cannot remove a file");
}

int mn_pg__ids_each(mn_store *s, const char *sql, mn_pg_params *p,
                    int (*cb)(void *payload, int64_t id), void *payload)
{
    PGresult *r = mn_pg__run(s, sql, p, "cannot read the index");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, n = pq(s)->ntuples(r); i < n && rc == 0; i++)
        rc = cb(payload, mn_pg__col_int(s, r, i, 0));
    pq(s)->clear(r);
    return rc;
}

int mn_pg__decl_only_files(mn_store *s, int (*cb)(void *payload, int64_t file_id), void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    return mn_pg__ids_each(s, "SELECT id FROM files WHERE project_id = $1 AND decl_only", &p, cb,
                           payload);
}

int mn_pg__files_each(mn_store *s, const char *glob, int (*cb)(void *payload, const mn_file_rec *f),
                      void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT id, path, language, role, content_hash, size, lines, mtime, "
                             "rank FROM files WHERE project_id = $1 ORDER BY path",
                             &p, "cannot list files");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    for (int i = 0, n = pq(s)->ntuples(r); i < n && rc == 0; i++) {
        mn_file_rec f;
        mn_pg__file_row(s, r, i, &f);
        if (glob && fnmatch(glob, f.path, 0) != 0)
            continue;
        rc = cb(payload, &f);
    }
    pq(s)->clear(r);
    return rc;
}

int mn_pg__index_counts(mn_store *s, mn_index_counts *out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r =
        mn_pg__run(s,
                   "SELECT (SELECT count(*) FROM files WHERE project_id = $1), "
                   "(SELECT count(*) FROM symbols WHERE project_id = $1), "
                   "(SELECT count(*) FROM edges WHERE project_id = $1), "
                   "(SELECT count(*) FROM edges WHERE project_id = $1 AND dst_id IS NOT NULL), "
                   "(SELECT count(*) FROM chunks WHERE project_id = $1 AND file_id IS NOT NULL)",
                   &p, "cannot count the index");
    if (!r)
        return mn_error_last_code();
    out->files = mn_pg__col_int(s, r, 0, 0);
    out->symbols = mn_pg__col_int(s, r, 0, 1);
    out->edges = mn_pg__col_int(s, r, 0, 2);
    out->resolved = mn_pg__col_int(s, r, 0, 3);
    out->chunks = mn_pg__col_int(s, r, 0, 4);
    pq(s)->clear(r);
    return 0;
}

int mn_pg__set_rank(mn_store *s, const char *kind, int64_t id, double rank)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, id);
    mn_pg__real(&p, rank);
    /* a rank that did not change is not written (sqlite/index_store.c says why) */
    return mn_pg__exec(s,
                       strcmp(kind, "file") == 0
                           ? "UPDATE files SET rank = $2 WHERE id = $1 AND rank <> $2"
                           : "UPDATE symbols SET rank = $2 WHERE id = $1 AND rank <> $2",
                       &p, "cannot store a rank");
}
