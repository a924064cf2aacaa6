/*
 * pg_life.c - citations and the life cycle on PostgreSQL (store_life.h),
 * with the semantics of sqlite/life_store.c: citations read into records
 * and written back by row id; the lookups memory/citations.c checks them
 * with (symbols by name, symbols of files indexed since a time, a file's
 * chunks overlapping some lines, files by content hash) over the code
 * index's tables (schema_v2.sql's files, symbols, chunks, which carry
 * their project); and the sets gc works on.
 *
 * Every record handed to a callback points into a result fetched whole, so
 * a callback may use the store (memory/citations.c writes as it reads).
 * Orders are SQLite's: paths and ids in byte order (COLLATE "C").
 */
#include "common.h"

#include "store/postgres/pg_internal.h"
#include "store/store_life.h"
#include "text/tokenize.h"
#include "util/util.h"

static void int_or_null(mn_pg_params *p, int64_t v)
{
    if (v > 0)
        mn_pg__int(p, v);
    else
        mn_pg__text(p, NULL);
}

/* LIMIT $n: a number, or NULL for all. */
static void limit_param(mn_pg_params *p, size_t limit)
{
    if (limit)
        mn_pg__int(p, (int64_t)limit);
    else
        mn_pg__text(p, NULL);
}

/* ---- citations ---- */

#define CITE_COLUMNS                                                                     \
    "c.id, c.memory_id, m.uid, c.path, c.symbol, c.content_hash, c.text, c.start_line, " \
    "c.end_line, c.checked_at, c.stale"

/* Run sql and hand each citation to cb. */
static int cite_rows(mn_store *s, const char *sql, mn_pg_params *p, mn_cite_cb cb, void *payload)
{
    PGresult *r = mn_pg__run(s, sql, p, "cannot read citations");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++) {
        mn_cite_rec c = {
            mn_pg__col_int(s, r, i, 0), mn_pg__col_int(s, r, i, 1),      mn_pg__col(s, r, i, 2),
            mn_pg__col(s, r, i, 3),     mn_pg__col(s, r, i, 4),          mn_pg__col(s, r, i, 5),
            mn_pg__col(s, r, i, 6),     mn_pg__col_int(s, r, i, 7),      mn_pg__col_int(s, r, i, 8),
            mn_pg__col_int(s, r, i, 9), (int)mn_pg__col_int(s, r, i, 10)};
        rc = cb(payload, &c);
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__cite_dirty_any(mn_store *s, bool *out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    /* the partial index citations_dirty holds the few dirty rows */
    PGresult *r = mn_pg__run(s,
                             "SELECT 1 FROM citations c JOIN memories m ON m.id = c.memory_id "
                             "WHERE c.dirty <> 0 AND m.project_id = $1 AND m.deleted_at IS NULL "
                             "LIMIT 1",
                             &p, "cannot read citations");
    if (!r)
        return mn_error_last_code();
    *out = pg(s)->pq->ntuples(r) > 0;
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__cite_dirty_each(mn_store *s, size_t limit, mn_cite_cb cb, void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    limit_param(&p, limit);
    return cite_rows(s,
                     "SELECT " CITE_COLUMNS " FROM citations c JOIN memories m ON m.id = "
                     "c.memory_id WHERE c.dirty <> 0 AND m.project_id = $1 AND m.deleted_at IS "
                     "NULL ORDER BY c.id LIMIT $2::bigint",
                     &p, cb, payload);
}

int mn_pg__cite_of_memory(mn_store *s, const char *memory_id, mn_cite_cb cb, void *payload)
{
    mn_pg_params p = {0};
    mn_pg__text(&p, memory_id);
    mn_pg__int(&p, s->project_id);
    return cite_rows(s,
                     "SELECT " CITE_COLUMNS " FROM citations c JOIN memories m ON m.id = "
                     "c.memory_id WHERE m.uid = $1 AND m.project_id = $2 ORDER BY c.seq",
                     &p, cb, payload);
}

int mn_pg__cite_set(mn_store *s, const mn_cite_rec *c)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, c->id);
    mn_pg__text(&p, c->path);
    mn_pg__text(&p, c->symbol);
    mn_pg__text(&p, c->hash);
    mn_pg__text(&p, c->text);
    int_or_null(&p, c->start_line);
    int_or_null(&p, c->end_line);
    mn_pg__int(&p, c->checked_at);
    mn_pg__int(&p, c->stale);
    /* the citation of a memory of this project only (ids are global on a server) */
    mn_pg__int(&p, s->project_id);
    return mn_pg__exec(s,
                       "UPDATE citations SET path = $2, symbol = $3, content_hash = $4, text = $5, "
                       "start_line = $6::bigint, end_line = $7::bigint, checked_at = $8, stale = "
                       "$9, dirty = 0 WHERE id = $1 AND memory_id IN (SELECT id FROM memories "
                       "WHERE project_id = $10)",
                       &p, "cannot update a citation");
}

int mn_pg__cite_delete(mn_store *s, int64_t id)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, id);
    mn_pg__int(&p, s->project_id);
    return mn_pg__exec(s,
                       "DELETE FROM citations WHERE id = $1 AND memory_id IN (SELECT id FROM "
                       "memories WHERE project_id = $2)",
                       &p, "cannot remove a citation");
}

int mn_pg__cite_stale_memories(mn_store *s, size_t limit, size_t offset,
                               int (*cb)(void *payload, const char *memory_id), void *payload,
                               int64_t *total)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT count(*) FROM memories m WHERE m.project_id = $1 AND "
                             "m.deleted_at IS NULL AND m.id IN (SELECT memory_id FROM citations "
                             "WHERE stale <> 0)",
                             &p, "cannot count stale memories");
    if (!r)
        return mn_error_last_code();
    *total = mn_pg__col_int(s, r, 0, 0);
    pg(s)->pq->clear(r);
    mn_pg__int(&p, s->project_id);
    limit_param(&p, limit);
    mn_pg__int(&p, (int64_t)offset);
    r = mn_pg__run(s,
                   "SELECT m.uid FROM memories m WHERE m.project_id = $1 AND m.deleted_at IS NULL "
                   "AND m.id IN (SELECT memory_id FROM citations WHERE stale <> 0) ORDER BY "
                   "m.updated_at DESC, m.uid COLLATE \"C\" DESC LIMIT $2::bigint OFFSET $3",
                   &p, "cannot list stale memories");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++)
        rc = cb(payload, mn_pg__col(s, r, i, 0));
    pg(s)->pq->clear(r);
    return rc;
}

/* ---- the index ---- */

#define SYMBOL_COLUMNS                                                                          \
    "y.id, y.file_id, f.path, y.name, y.qualified_name, y.kind, y.content_hash, y.start_line, " \
    "y.end_line"

/* Run sql and hand each symbol to cb; whole (not NULL): only the symbols it names whole. */
static int symbol_rows(mn_store *s, const char *sql, mn_pg_params *p, const char *whole,
                       mn_cite_symbol_cb cb, void *payload)
{
    PGresult *r = mn_pg__run(s, sql, p, "cannot read symbols");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++) {
        mn_cite_symbol y = {
            mn_pg__col_int(s, r, i, 0), mn_pg__col_int(s, r, i, 1), mn_pg__col(s, r, i, 2),
            mn_pg__col(s, r, i, 3),     mn_pg__col(s, r, i, 4),     mn_pg__col(s, r, i, 5),
            mn_pg__col(s, r, i, 6),     mn_pg__col_int(s, r, i, 7), mn_pg__col_int(s, r, i, 8)};
        if (whole && strcmp(whole, y.name) != 0 && strcmp(whole, y.qualified_name) != 0)
            continue;
        rc = cb(payload, &y);
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__cite_symbols(mn_store *s, const char *name, const char *path, const char *hash,
                        mn_cite_symbol_cb cb, void *payload)
{
    mn_pg_params p = {0};
    mn_pg__text(&p, mn_ident_last_part(name));
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, path);
    mn_pg__text(&p, hash);
    return symbol_rows(s,
                       "SELECT " SYMBOL_COLUMNS " FROM symbols y JOIN files f ON f.id = y.file_id "
                       "WHERE y.name = $1 AND y.project_id = $2 AND ($3::text IS NULL OR f.path = "
                       "$3::text) AND ($4::text IS NULL OR y.content_hash = $4::text) ORDER BY "
                       "f.path, y.start_line",
                       &p, name, cb, payload);
}

int mn_pg__cite_symbols_since(mn_store *s, int64_t since_ms, const char *kind, int64_t lines,
                              size_t limit, mn_cite_symbol_cb cb, void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, since_ms);
    mn_pg__text(&p, kind);
    mn_pg__int(&p, lines - 1);
    limit_param(&p, limit);
    return symbol_rows(s,
                       "SELECT " SYMBOL_COLUMNS " FROM files f JOIN symbols y ON y.file_id = f.id "
                       "WHERE f.project_id = $1 AND f.indexed_at >= $2 AND ($3::text IS NULL OR "
                       "y.kind = $3::text) AND y.end_line - y.start_line = $4 ORDER BY f.path, "
                       "y.start_line LIMIT $5::bigint",
                       &p, NULL, cb, payload);
}

int mn_pg__cite_chunks(mn_store *s, int64_t file_id, int64_t start, int64_t end,
                       int (*cb)(void *payload, int64_t start_line, const char *text, size_t len),
                       void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, file_id);
    mn_pg__int(&p, start);
    mn_pg__int(&p, end);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT start_line, text FROM chunks WHERE file_id = $1 AND end_line "
                             ">= $2 AND start_line <= $3 AND project_id = $4 ORDER BY start_line, "
                             "id",
                             &p, "cannot read code chunks");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++) {
        const char *text = mn_pg__col(s, r, i, 1);
        if (text)
            rc = cb(payload, mn_pg__col_int(s, r, i, 0), text, strlen(text));
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__cite_files_with_hash(mn_store *s, const char *hash,
                                int (*cb)(void *payload, const char *path), void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, hash);
    PGresult *r = mn_pg__run(s,
                             "SELECT path FROM files WHERE project_id = $1 AND content_hash = $2 "
                             "ORDER BY path",
                             &p, "cannot read files");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++)
        rc = cb(payload, mn_pg__col(s, r, i, 0));
    pg(s)->pq->clear(r);
    return rc;
}

/* ---- gc ---- */

int mn_pg__life_each(mn_store *s, mn_life_set set, const mn_expiry *e, int64_t before,
                     int (*cb)(void *payload, const mn_life_row *r), void *payload)
{
    mn_buf sql = MN_BUF_INIT;
    mn_pg_params p = {0};
    int rc = 0;
    mn_pg__int(&p, s->project_id);
    mn_buf_puts(&sql, "SELECT uid, kind, status, title, since FROM (SELECT uid, kind, status, "
                      "title, ");
    switch (set) {
    case MN_LIFE_EXPIRED:
        /* when it expired: its own expires_at, else the end of its kind's time to live; the
         * test is life_store.c's (only a live status expires) */
        mn_pg__int(&p, e->at);
        mn_buf_puts(&sql, "CASE WHEN expires_at IS NOT NULL AND expires_at <= $2 THEN expires_at "
                          "ELSE greatest(coalesce(saved_at, 0), updated_at, coalesce(accessed_at, "
                          "0)) + CASE kind");
        for (size_t k = 0; k < MN_MEMORY_KINDS; k++)
            mn_buf_printf(&sql, " WHEN '%s' THEN %lld", mn_memory_kinds[k],
                          (long long)e->kind_ttl_ms[k]);
        mn_buf_puts(&sql, " ELSE 0 END END AS since FROM memories WHERE project_id = $1 AND "
                          "deleted_at IS NULL AND (status IN ('active', 'pending') AND "
                          "((expires_at IS NOT NULL AND expires_at <= $2)");
        for (size_t k = 0; k < MN_MEMORY_KINDS; k++)
            if (e->kind_ttl_ms[k] > 0) {
                mn_pg__int(&p, e->at - e->kind_ttl_ms[k]);
                mn_buf_printf(&sql,
                              " OR (kind = '%s' AND greatest(coalesce(saved_at, 0), updated_at, "
                              "coalesce(accessed_at, 0)) <= $%d)",
                              mn_memory_kinds[k], p.n);
            }
        mn_buf_puts(&sql, "))) x");
        break;
    case MN_LIFE_SUPERSEDED:
        mn_pg__int(&p, before);
        mn_buf_puts(&sql, "coalesce((SELECT max(l.created_at) FROM links l WHERE "
                          "l.dst_memory_id = memories.id AND l.kind = 'supersedes'), updated_at) "
                          "AS since FROM memories WHERE project_id = $1 AND deleted_at IS NULL "
                          "AND status = 'superseded') x WHERE since < $2");
        break;
    case MN_LIFE_ARCHIVED:
        mn_pg__int(&p, before);
        mn_buf_puts(&sql, "updated_at AS since FROM memories WHERE project_id = $1 AND "
                          "deleted_at IS NULL AND status = 'archived' AND updated_at < $2) x");
        break;
    case MN_LIFE_FORGOTTEN:
        mn_pg__int(&p, before);
        mn_buf_puts(&sql, "deleted_at AS since FROM memories WHERE project_id = $1 AND "
                          "deleted_at IS NOT NULL AND deleted_at < $2) x");
        break;
    }
    mn_buf_puts(&sql, " ORDER BY since, uid COLLATE \"C\"");
    PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot list memories");
    mn_buf_release(&sql);
    if (!r)
        return mn_error_last_code();
    int n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++) {
        mn_life_row row = {mn_pg__col(s, r, i, 0), mn_pg__col(s, r, i, 1), mn_pg__col(s, r, i, 2),
                           mn_pg__col(s, r, i, 3), mn_pg__col_int(s, r, i, 4)};
        rc = cb(payload, &row);
    }
    pg(s)->pq->clear(r);
    return rc;
}
