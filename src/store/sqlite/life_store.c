/*
 * life_store.c - the SQLite side of store_life.h: citations, statuses set
 * on their own, the sets gc works on; and the expiry test every memory
 * query shares (mn_sqlite__expired_sql).
 *
 * Citations are read into records and written back by row id; the checks
 * themselves (is the span still there, did it move) are in
 * memory/citations.c, which asks the index through the lookups below:
 * symbols by name (symbols_name), the symbols of files indexed since a
 * time (a scan of the files table, then symbols_file), a file's chunks
 * overlapping some lines (chunks_file). None reads a file of the
 * repository: the check compares hashes and texts the index keeps.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/store_life.h"
#include "store/sqlite/sqlite_internal.h"
#include "util/util.h"
#include "util/vec.h"
#include "text/tokenize.h"

static void text_or_null(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

/* ---- expiry, shared by every memory query ---- */

void mn_sqlite__expired_sql(mn_buf *b, const char *p, const mn_expiry *e, int *next)
{
    /* only a live status expires: archived, superseded and quarantined ones are what they are */
    mn_buf_printf(b,
                  "(%sstatus IN ('active', 'pending') AND ((%sexpires_at IS NOT NULL AND "
                  "%sexpires_at <= ?%d)",
                  p, p, p, (*next)++);
    for (size_t k = 0; k < MN_MEMORY_KINDS; k++)
        if (e->kind_ttl_ms[k] > 0)
            mn_buf_printf(b,
                          " OR (%skind = '%s' AND max(coalesce(%ssaved_at, 0), %supdated_at, "
                          "coalesce(%saccessed_at, 0)) <= ?%d)",
                          p, mn_memory_kinds[k], p, p, p, (*next)++);
    mn_buf_puts(b, "))");
}

void mn_sqlite__expired_bind(sqlite3_stmt *st, const mn_expiry *e, int *next)
{
    sqlite3_bind_int64(st, (*next)++, e->at);
    for (size_t k = 0; k < MN_MEMORY_KINDS; k++)
        if (e->kind_ttl_ms[k] > 0)
            sqlite3_bind_int64(st, (*next)++, e->at - e->kind_ttl_ms[k]);
}

/* ---- citations ---- */

#define CITE_COLUMNS                                                                     \
    "c.id, c.memory_id, m.uid, c.path, c.symbol, c.content_hash, c.text, c.start_line, " \
    "c.end_line, c.checked_at, c.stale"

static void read_cite(sqlite3_stmt *st, mn_cite_rec *c)
{
    c->id = sqlite3_column_int64(st, 0);
    c->memory_rowid = sqlite3_column_int64(st, 1);
    c->memory_id = col_text(st, 2);
    c->path = col_text(st, 3);
    c->symbol = col_text(st, 4);
    c->hash = col_text(st, 5);
    c->text = col_text(st, 6);
    c->start_line = sqlite3_column_int64(st, 7);
    c->end_line = sqlite3_column_int64(st, 8);
    c->checked_at = sqlite3_column_int64(st, 9);
    c->stale = sqlite3_column_int(st, 10);
}

static int cite_rows(mn_store *s, sqlite3_stmt *st, mn_cite_cb cb, void *payload)
{
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_cite_rec c;
        read_cite(st, &c);
        if ((rc = cb(payload, &c)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, "cannot read citations");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__cite_dirty_any(mn_store *s, bool *out)
{
    /* citations_dirty holds the few dirty rows; each is checked for this project. CROSS JOIN
     * keeps that order: left to itself the planner walked every memory of the project and
     * probed the index for each (100k memories: a third of a context call's time) */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT 1 FROM citations c CROSS JOIN memories m ON m.id = c.memory_id "
           "WHERE c.dirty <> 0 AND m.project_id = ?1 AND m.deleted_at IS NULL LIMIT 1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int step = sqlite3_step(st);
    *out = step == SQLITE_ROW;
    sqlite3_reset(st);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0
                                                     : mn_sqlite__fail(s, "cannot read citations");
}

int mn_sqlite__cite_dirty_each(mn_store *s, size_t limit, mn_cite_cb cb, void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT " CITE_COLUMNS " FROM citations c CROSS JOIN memories m ON m.id = c.memory_id "
           "WHERE c.dirty <> 0 AND m.project_id = ?1 AND m.deleted_at IS NULL ORDER BY c.id "
           "LIMIT ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_int64(st, 2, limit ? (int64_t)limit : -1);
    return cite_rows(s, st, cb, payload);
}

int mn_sqlite__cite_of_memory(mn_store *s, const char *memory_id, mn_cite_cb cb, void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT " CITE_COLUMNS
                                          " FROM citations c JOIN memories m ON m.id = c.memory_id "
                                          "WHERE m.uid = ?1 AND m.project_id = ?2 ORDER BY c.seq");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, memory_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    return cite_rows(s, st, cb, payload);
}

int mn_sqlite__cite_set(mn_store *s, const mn_cite_rec *c)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "UPDATE citations SET path = ?2, symbol = ?3, content_hash = ?4, text = ?5, "
           "start_line = ?6, end_line = ?7, checked_at = ?8, stale = ?9, dirty = 0 WHERE id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, c->id);
    text_or_null(st, 2, c->path);
    text_or_null(st, 3, c->symbol);
    text_or_null(st, 4, c->hash);
    text_or_null(st, 5, c->text);
    if (c->start_line > 0)
        sqlite3_bind_int64(st, 6, c->start_line);
    else
        sqlite3_bind_null(st, 6);
    if (c->end_line > 0)
        sqlite3_bind_int64(st, 7, c->end_line);
    else
        sqlite3_bind_null(st, 7);
    sqlite3_bind_int64(st, 8, c->checked_at);
    sqlite3_bind_int(st, 9, c->stale);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot update a citation");
}

int mn_sqlite__cite_delete(mn_store *s, int64_t id)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, "DELETE FROM citations WHERE id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot remove a citation");
}

int mn_sqlite__cite_stale_memories(mn_store *s, size_t limit, size_t offset,
                                   int (*cb)(void *payload, const char *memory_id), void *payload,
                                   int64_t *total)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT count(*) FROM memories m WHERE m.project_id = ?1 AND m.deleted_at IS NULL "
           "AND m.id IN (SELECT memory_id FROM citations WHERE stale <> 0)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int step = sqlite3_step(st);
    *total = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (step != SQLITE_ROW)
        return mn_sqlite__fail(s, "cannot count stale memories");
    st = mn_sqlite__stmt(
        s, "SELECT m.uid FROM memories m WHERE m.project_id = ?1 AND m.deleted_at IS NULL "
           "AND m.id IN (SELECT memory_id FROM citations WHERE stale <> 0) "
           "ORDER BY m.updated_at DESC, m.uid DESC LIMIT ?2 OFFSET ?3");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_int64(st, 2, limit ? (int64_t)limit : -1);
    sqlite3_bind_int64(st, 3, (int64_t)offset);
    /* the ids first: the callback reads the store */
    MN_VEC(char *) ids = MN_VEC_INIT;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        mn_vec_push(&ids, mn_strdup(col_text(st, 0)));
    sqlite3_reset(st);
    int rc = step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot list stale memories");
    for (size_t i = 0; i < ids.len; i++) {
        if (rc == 0)
            rc = cb(payload, ids.items[i]);
        free(ids.items[i]);
    }
    mn_vec_release(&ids);
    return rc;
}

/* ---- the index ---- */

#define SYMBOL_COLUMNS                                                                          \
    "y.id, y.file_id, f.path, y.name, y.qualified_name, y.kind, y.content_hash, y.start_line, " \
    "y.end_line"

static int symbol_rows(mn_store *s, sqlite3_stmt *st, const char *whole, mn_cite_symbol_cb cb,
                       void *payload)
{
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_cite_symbol y;
        y.id = sqlite3_column_int64(st, 0);
        y.file_id = sqlite3_column_int64(st, 1);
        y.path = col_text(st, 2);
        y.name = col_text(st, 3);
        y.qualified_name = col_text(st, 4);
        y.kind = col_text(st, 5);
        y.hash = col_text(st, 6);
        y.start_line = sqlite3_column_int64(st, 7);
        y.end_line = sqlite3_column_int64(st, 8);
        if (whole && strcmp(whole, y.name) != 0 && strcmp(whole, y.qualified_name) != 0)
            continue;
        if ((rc = cb(payload, &y)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, "cannot read symbols");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__cite_symbols(mn_store *s, const char *name, const char *path, const char *hash,
                            mn_cite_symbol_cb cb, void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT " SYMBOL_COLUMNS " FROM symbols y JOIN files f ON f.id = y.file_id "
           "WHERE y.name = ?1 AND f.project_id = ?2 AND (?3 IS NULL OR f.path = ?3) "
           "AND (?4 IS NULL OR y.content_hash = ?4) ORDER BY f.path, y.start_line");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, mn_ident_last_part(name), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    text_or_null(st, 3, path);
    text_or_null(st, 4, hash);
    return symbol_rows(s, st, name, cb, payload);
}

int mn_sqlite__cite_symbols_since(mn_store *s, int64_t since_ms, const char *kind, int64_t lines,
                                  size_t limit, mn_cite_symbol_cb cb, void *payload)
{
    /* CROSS JOIN: the few files indexed since first, then their symbols (symbols_file) */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT " SYMBOL_COLUMNS " FROM files f CROSS JOIN symbols y ON y.file_id = f.id "
           "WHERE f.project_id = ?1 AND f.indexed_at >= ?2 AND (?3 IS NULL OR y.kind = ?3) "
           "AND y.end_line - y.start_line = ?4 ORDER BY f.path, y.start_line LIMIT ?5");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_int64(st, 2, since_ms);
    text_or_null(st, 3, kind);
    sqlite3_bind_int64(st, 4, lines - 1);
    sqlite3_bind_int64(st, 5, limit ? (int64_t)limit : -1);
    return symbol_rows(s, st, NULL, cb, payload);
}

int mn_sqlite__cite_chunks(mn_store *s, int64_t file_id, int64_t start, int64_t end,
                           int (*cb)(void *payload, int64_t start_line, const char *text,
                                     size_t len),
                           void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT start_line, text FROM chunks WHERE file_id = ?1 AND end_line >= ?2 "
           "AND start_line <= ?3 ORDER BY start_line, id");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, file_id);
    sqlite3_bind_int64(st, 2, start);
    sqlite3_bind_int64(st, 3, end);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = col_text(st, 1);
        if (text && (rc = cb(payload, sqlite3_column_int64(st, 0), text,
                             (size_t)sqlite3_column_bytes(st, 1))) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, "cannot read code chunks");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__cite_files_with_hash(mn_store *s, const char *hash,
                                    int (*cb)(void *payload, const char *path), void *payload)
{
    /* no index on content_hash: a scan of the project's files, only when a cited file is gone */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT path FROM files WHERE project_id = ?1 AND content_hash = ?2 ORDER BY path");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, hash, -1, SQLITE_TRANSIENT);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = cb(payload, col_text(st, 0))) != 0)
            break;
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, "cannot read files");
    sqlite3_reset(st);
    return rc;
}

/* ---- statuses and gc ---- */

int mn_sqlite__memory_set_status(mn_store *s, const char *id, const char *status, int64_t ms)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "UPDATE memories SET status = ?1, updated_at = CASE WHEN ?2 > 0 THEN ?2 ELSE "
           "updated_at END WHERE uid = ?3 AND project_id = ?4");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, ms);
    sqlite3_bind_text(st, 3, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, s->project_id);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot change a memory's status");
    if (sqlite3_changes(sq(s)->db) == 0)
        return mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    return 0;
}

int mn_sqlite__life_each(mn_store *s, mn_life_set set, const mn_expiry *e, int64_t before,
                         int (*cb)(void *payload, const mn_life_row *r), void *payload)
{
    mn_buf sql = MN_BUF_INIT;
    sqlite3_stmt *st = NULL;
    int next = 2, rc = 0, step;
    mn_buf_puts(&sql, "SELECT uid, kind, status, title, ");
    switch (set) {
    case MN_LIFE_EXPIRED:
        /* when it expired: its own expires_at, else the end of its kind's time to live */
        mn_buf_puts(&sql, "CASE WHEN expires_at IS NOT NULL AND expires_at <= ?2 THEN expires_at "
                          "ELSE max(coalesce(saved_at, 0), updated_at, coalesce(accessed_at, 0)) + "
                          "CASE kind");
        for (size_t k = 0; k < MN_MEMORY_KINDS; k++)
            mn_buf_printf(&sql, " WHEN '%s' THEN %lld", mn_memory_kinds[k],
                          (long long)e->kind_ttl_ms[k]);
        mn_buf_puts(&sql, " ELSE 0 END END AS since FROM memories WHERE project_id = ?1 AND "
                          "deleted_at IS NULL AND ");
        mn_sqlite__expired_sql(&sql, "", e, &next);
        break;
    case MN_LIFE_SUPERSEDED:
        mn_buf_puts(&sql, "coalesce((SELECT max(l.created_at) FROM links l WHERE "
                          "l.dst_memory_id = memories.id AND l.kind = 'supersedes'), updated_at) "
                          "AS since FROM memories WHERE project_id = ?1 AND deleted_at IS NULL "
                          "AND status = 'superseded' AND since < ?2");
        break;
    case MN_LIFE_ARCHIVED:
        mn_buf_puts(&sql, "updated_at AS since FROM memories WHERE project_id = ?1 AND "
                          "deleted_at IS NULL AND status = 'archived' AND updated_at < ?2");
        break;
    case MN_LIFE_FORGOTTEN:
        mn_buf_puts(&sql, "deleted_at AS since FROM memories WHERE project_id = ?1 AND "
                          "deleted_at IS NOT NULL AND deleted_at < ?2");
        break;
    }
    mn_buf_puts(&sql, " ORDER BY since, uid");
    if (sqlite3_prepare_v2(sq(s)->db, sql.ptr, -1, &st, NULL) != SQLITE_OK) {
        rc = mn_sqlite__fail(s, "cannot list memories");
        goto out;
    }
    sqlite3_bind_int64(st, 1, s->project_id);
    if (set == MN_LIFE_EXPIRED) {
        next = 2;
        mn_sqlite__expired_bind(st, e, &next);
    } else {
        sqlite3_bind_int64(st, 2, before);
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_life_row r = {col_text(st, 0), col_text(st, 1), col_text(st, 2), col_text(st, 3),
                         sqlite3_column_int64(st, 4)};
        if ((rc = cb(payload, &r)) != 0)
            goto out;
    }
    if (step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot list memories");
out:
    sqlite3_finalize(st);
    mn_buf_release(&sql);
    return rc;
}
