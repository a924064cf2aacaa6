/*
 * scan_store.c - every stored text outside the memories, read and
 * rewritten for `mnemo scan`, and the purge that leaves no old copy in the
 * files (store_scan.h).
 *
 * Rewrites are collected per table and applied after its SELECT is done,
 * so that no statement updates the rows it is still reading. Content tables
 * of full-text indexes (chunks, history_docs) change under their triggers or,
 * where a table has no update trigger, are made whole again by the 'rebuild'
 * of mn_store_purge_freed.
 */
#include "common.h"
#include <glob.h>
#include <sqlite3.h>
#include <unistd.h>

#include "store/sqlite/sqlite_internal.h"
#include "store/store_scan.h"
#include "util/vec.h"

/* once: for a column a unique index covers, the statement that deletes the row (?2) when its
 * rewrite (?1) would repeat a row the table holds already (two links whose targets differed
 * only by a secret are one link once it is redacted) */
#define LINK_ONCE                                                                            \
    "DELETE FROM links WHERE rowid = ?2 AND EXISTS (SELECT 1 FROM links o WHERE o.rowid <> " \
    "links.rowid AND o.src_id = links.src_id AND o.kind = links.kind AND o.dst_ref = ?1)"

static const struct {
    const char *table, *column, *once;
} cells[] = {
    {"chunks", "text", NULL},
    {"symbols", "name", NULL},
    {"symbols", "qualified_name", NULL},
    {"symbols", "signature", NULL},
    {"symbols", "docstring", NULL},
    {"history_commits", "subject", NULL},
    {"history_docs", "subjects", NULL},
    {"git_commits", "author", NULL},
    {"git_commits", "subject", NULL},
    {"git_commits", "body", NULL},
    {"served", "query", NULL},
    {"feedback", "note", NULL},
    {"feedback", "query", NULL},
    {"audit", "detail", NULL},
    {"links", "note", NULL},
    {"links", "dst_ref", LINK_ONCE},
    {"tasks", "title", NULL},
    {"tasks", "body", NULL},
    {"tasks", "url", NULL},
    {"tasks", "author", NULL},
    {"tasks", "labels", NULL},
    {"docs", "title", NULL},
    {"docs", "body", NULL},
    {"docs", "url", NULL},
    {"dialogs", "summary", NULL},
};

/* The full-text indexes, rebuilt from their content after a rewrite. */
static const char *const fts_tables[] = {"memories_fts", "chunks_fts", "files_fts", "history_fts"};

typedef struct {
    int64_t row;
    char *text;
} rewrite;

typedef MN_VEC(rewrite) rewrite_vec;

static int apply(mn_store *s, const char *table, const char *column, const char *once,
                 rewrite_vec *v)
{
    mn_buf sql = MN_BUF_INIT;
    sqlite3_stmt *st[2] = {NULL, NULL}; /* the once statement, the update */
    int rc = 0;
    mn_buf_printf(&sql, "UPDATE %s SET %s = ?1 WHERE rowid = ?2", table, column);
    if (sqlite3_prepare_v2(sq(s)->db, sql.ptr, -1, &st[1], NULL) != SQLITE_OK ||
        (once && sqlite3_prepare_v2(sq(s)->db, once, -1, &st[0], NULL) != SQLITE_OK))
        rc = mn_sqlite__fail(s, "cannot rewrite a stored text");
    for (size_t i = 0; rc == 0 && i < v->len; i++)
        for (int k = once ? 0 : 1; rc == 0 && k < 2; k++) {
            sqlite3_bind_text(st[k], 1, v->items[i].text, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st[k], 2, v->items[i].row);
            if (sqlite3_step(st[k]) != SQLITE_DONE)
                rc = mn_sqlite__fail(s, "cannot rewrite a stored text");
            sqlite3_reset(st[k]);
        }
    sqlite3_finalize(st[0]);
    sqlite3_finalize(st[1]);
    mn_buf_release(&sql);
    return rc;
}

int mn_sqlite__texts_each(mn_store *s,
                          int (*cb)(void *payload, const mn_text_cell *c, const char *text,
                                    size_t len, char **replace),
                          void *payload)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int rc = 0;
    for (size_t t = 0; t < MN_ARRAY_SIZE(cells) && rc == 0; t++) {
        mn_buf sql = MN_BUF_INIT;
        sqlite3_stmt *st = NULL;
        rewrite_vec todo = MN_VEC_INIT;
        mn_text_cell c = {cells[t].table, cells[t].column, 0};
        mn_buf_printf(&sql, "SELECT rowid, %s FROM %s WHERE %s IS NOT NULL AND %s <> ''", c.column,
                      c.table, c.column, c.column);
        if (sqlite3_prepare_v2(sq(s)->db, sql.ptr, -1, &st, NULL) != SQLITE_OK)
            rc = mn_sqlite__fail(s, "cannot read stored texts");
        int step;
        while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
            char *repl = NULL;
            c.row = sqlite3_column_int64(st, 0);
            const char *text = (const char *)sqlite3_column_text(st, 1);
            size_t len = (size_t)sqlite3_column_bytes(st, 1);
            rc = cb(payload, &c, text ? text : "", text ? len : 0, &repl);
            if (repl) {
                rewrite r = {c.row, repl};
                mn_vec_push(&todo, r);
            }
        }
        if (rc == 0 && st && step != SQLITE_DONE)
            rc = mn_sqlite__fail(s, "cannot read stored texts");
        sqlite3_finalize(st);
        if (rc == 0 && todo.len)
            rc = apply(s, c.table, c.column, cells[t].once, &todo);
        for (size_t i = 0; i < todo.len; i++)
            free(todo.items[i].text);
        mn_vec_release(&todo);
        mn_buf_release(&sql);
    }
    return rc;
}

int mn_sqlite__purge_freed(mn_store *s)
{
    MN_ASSERT_OR(!sq(s)->in_tx, MN_EINTERNAL);
    int rc = mn_sqlite__exec(s, "PRAGMA secure_delete = ON");
    if (rc == 0)
        rc = mn_store_begin(s);
    for (size_t i = 0; rc == 0 && i < MN_ARRAY_SIZE(fts_tables); i++) {
        mn_buf sql = MN_BUF_INIT;
        mn_buf_printf(&sql, "INSERT INTO %s(%s) VALUES ('rebuild')", fts_tables[i], fts_tables[i]);
        rc = mn_sqlite__exec(s, sql.ptr);
        mn_buf_clear(&sql);
        mn_buf_printf(&sql, "INSERT INTO %s(%s) VALUES ('optimize')", fts_tables[i], fts_tables[i]);
        if (rc == 0)
            rc = mn_sqlite__exec(s, sql.ptr);
        mn_buf_release(&sql);
    }
    if (rc == 0)
        rc = mn_store_commit(s);
    else
        mn_store_rollback(s);
    /* a VACUUM writes every live page anew, so no freed page is left behind; the checkpoint
     * then copies it home and TRUNCATE leaves no old frame in the WAL */
    if (rc == 0)
        rc = mn_sqlite__exec(s, "VACUUM");
    if (rc == 0)
        rc = mn_sqlite__checkpoint_truncate(s);
    /* the caches beside the store (chunk_cache.c, vector_file.c) are keyed by row ids and
     * counts that a rewrite in place does not move: drop them, the next search rebuilds them */
    if (rc == 0)
        for (const char *const *kind = (const char *const[]){"chunks", "vectors", NULL}; *kind;
             kind++) {
            mn_buf pat = MN_BUF_INIT;
            glob_t g;
            for (const char *p = s->path; *p; p++) { /* the path itself matches literally */
                if (strchr("*?[\\", *p))
                    mn_buf_putc(&pat, '\\');
                mn_buf_putc(&pat, *p);
            }
            mn_buf_printf(&pat, "-%s-*", *kind);
            if (glob(pat.ptr, GLOB_NOSORT, NULL, &g) == 0) {
                for (size_t i = 0; i < g.gl_pathc; i++)
                    unlink(g.gl_pathv[i]);
                globfree(&g);
            }
            mn_buf_release(&pat);
        }
    return rc;
}
