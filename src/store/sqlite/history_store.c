/*
 * history_store.c - the repository's history (schema v7): the commits
 * index/history.c reads, and the per-path documents search ranks
 * (retrieve/history_signal.c).
 *
 * A path's document is the subjects of the commits that changed it, one a
 * line. It is rebuilt whole after each read that added commits: a few
 * thousand rows from tables the read just wrote, cheaper and simpler than
 * keeping each document in step with additions and with the pruning of
 * the oldest commits.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/store_index.h"
#include "store/store_search.h"
#include "store/sqlite/sqlite_internal.h"

int mn_sqlite__history_head(mn_store *s, char **out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT head FROM history_state WHERE project_id = ?1");
    *out = NULL;
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        *out = mn_strdup((const char *)sqlite3_column_text(st, 0));
    int rc = step == SQLITE_ROW    ? 0
             : step == SQLITE_DONE ? mn_error_set(MN_ENOTFOUND, "no history read yet")
                                   : mn_sqlite__fail(s, "cannot read the history head");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__history_add(mn_store *s, const mn_commit_rec *c)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO history_commits(project_id, hash, time, subject) VALUES (?1, ?2, ?3, ?4) "
           "ON CONFLICT(project_id, hash) DO NOTHING");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, c->hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, c->time);
    sqlite3_bind_text(st, 4, c->subject, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot store a commit");
    if (sqlite3_changes(sq(s)->db) == 0)
        return 0; /* stored by an earlier read */
    int64_t id = sqlite3_last_insert_rowid(sq(s)->db);
    st = mn_sqlite__stmt(s, "INSERT OR IGNORE INTO history_files(commit_id, path) VALUES (?1, ?2)");
    if (!st)
        return mn_error_last_code();
    for (size_t i = 0; i < c->npaths; i++) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, c->paths[i], -1, SQLITE_STATIC);
        step = sqlite3_step(st);
        sqlite3_reset(st);
        if (step != SQLITE_DONE)
            return mn_sqlite__fail(s, "cannot store a commit's paths");
    }
    return 0;
}

static int run(mn_store *s, const char *sql, int64_t arg, const char *text, const char *what)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    if (sqlite3_bind_parameter_count(st) >= 2) {
        if (text)
            sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
        else
            sqlite3_bind_int64(st, 2, arg);
    }
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, what);
}

int mn_sqlite__history_finish(mn_store *s, const char *head, size_t keep)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int rc = run(s,
                 "INSERT INTO history_state(project_id, head) VALUES (?1, ?2) "
                 "ON CONFLICT(project_id) DO UPDATE SET head = excluded.head",
                 0, head, "cannot store the history head");
    if (rc == 0)
        rc = run(s,
                 "DELETE FROM history_commits WHERE project_id = ?1 AND id NOT IN (SELECT id FROM "
                 "history_commits WHERE project_id = ?1 ORDER BY time DESC, id LIMIT ?2)",
                 (int64_t)keep, NULL, "cannot prune the history");
    if (rc == 0)
        rc = run(s, "DELETE FROM history_docs WHERE project_id = ?1", 0, NULL,
                 "cannot rebuild the history documents");
    /* newest subject first within a document: group_concat follows the inner order */
    if (rc == 0)
        rc =
            run(s,
                "INSERT INTO history_docs(project_id, path, subjects) SELECT ?1, path, "
                "group_concat(subject, char(10)) FROM (SELECT f.path AS path, c.subject AS subject "
                "FROM history_commits c JOIN history_files f ON f.commit_id = c.id WHERE "
                "c.project_id = ?1 ORDER BY f.path, c.time DESC) GROUP BY path",
                0, NULL, "cannot rebuild the history documents");
    /* the documents were all replaced: their old entries would stay in the full-text index as
     * delete markers, read by every query, one more set per read (index.c: fts_tidy) */
    if (rc == 0)
        rc = mn_sqlite__exec(s, "INSERT INTO history_fts(history_fts) VALUES('optimize')");
    return rc;
}

int mn_sqlite__history_clear(mn_store *s)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT 1 FROM history_state WHERE project_id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step == SQLITE_DONE)
        return 0; /* nothing read: nothing to write either */
    if (step != SQLITE_ROW)
        return mn_sqlite__fail(s, "cannot read the history");
    int rc = mn_store_begin(s);
    if (rc == 0)
        rc = run(s, "DELETE FROM history_docs WHERE project_id = ?1", 0, NULL,
                 "cannot forget the history");
    if (rc == 0)
        rc = run(s, "DELETE FROM history_commits WHERE project_id = ?1", 0, NULL,
                 "cannot forget the history");
    if (rc == 0)
        rc = run(s, "DELETE FROM history_state WHERE project_id = ?1", 0, NULL,
                 "cannot forget the history");
    if (rc == 0)
        rc = mn_sqlite__exec(s, "INSERT INTO history_fts(history_fts) VALUES('optimize')");
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    return mn_store_commit(s);
}

int mn_sqlite__history_rename(mn_store *s, const char *from, const char *to)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    /* OR IGNORE: a commit that changed both names keeps the one row it has for to */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "UPDATE OR IGNORE history_files SET path = ?3 WHERE path = ?2 AND commit_id IN "
           "(SELECT id FROM history_commits WHERE project_id = ?1)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, from, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, to, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot rename a path of the history");
}

int mn_sqlite__history_files(mn_store *s, const char *match, size_t limit,
                             int (*cb)(void *payload, const mn_file_hit *h), void *payload)
{
    if (!match || !*match)
        return 0;
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT f.id, f.path, f.role, -bm25(history_fts) AS score FROM history_fts "
           "JOIN history_docs d ON d.id = history_fts.rowid JOIN files f ON f.project_id = "
           "d.project_id AND f.path = d.path WHERE history_fts MATCH ?1 AND d.project_id = ?2 "
           "ORDER BY score DESC LIMIT ?3");
    if (!st)
        return mn_error_last_code();
    if (limit == 0 || limit > MN_SEARCH_MAX_CANDIDATES)
        limit = MN_SEARCH_MAX_CANDIDATES;
    return mn_sqlite__file_hits(s, st, match, limit, cb, payload, "cannot search the history");
}
