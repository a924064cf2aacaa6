/*
 * pg_history.c - the PostgreSQL side of the repository's history
 * (store_index.h "the history"; sqlite/history_store.c): the commits
 * index/history.c reads with the paths each changed, the head the last
 * read stopped at, and one document per path (the subjects of the commits
 * that changed it, newest first, one a line), rebuilt whole after each read.
 *
 * A commit and its paths are one statement (a data-modifying CTE: the
 * paths go in only when the commit was new). SQLite's UPDATE OR IGNORE of a
 * rename is a NOT EXISTS here: a commit that changed both names keeps the
 * one row it has for the new name.
 */
#include "common.h"

#include "store/postgres/pg_index.h"
#include "store/postgres/pg_search.h"
#include "store/store_index.h"

int mn_pg__history_head(mn_store *s, char **out)
{
    *out = NULL;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s, "SELECT head FROM history_state WHERE project_id = $1", &p,
                             "cannot read the history head");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) == 1)
        *out = mn_strdup(mn_pg__col(s, r, 0, 0));
    else
        rc = mn_error_set(MN_ENOTFOUND, "no history read yet");
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__history_add(mn_store *s, const mn_commit_rec *c)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_array paths = MN_PG_ARRAY_INIT;
    for (size_t i = 0; i < c->npaths; i++)
        mn_pg__array_text(&paths, c->paths[i]);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, c->hash);
    mn_pg__int(&p, c->time);
    mn_pg__text(&p, c->subject);
    mn_pg__array_param(&p, &paths);
    mn_pg__array_release(&paths);
    return mn_pg__exec(s,
                       "WITH c AS (INSERT INTO history_commits(project_id, hash, time, subject) "
                       "VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, hash) DO NOTHING "
                       "RETURNING id) INSERT INTO history_files(commit_id, project_id, path) "
                       "SELECT c.id, $1, u.path FROM c, unnest($5::text[]) AS u(path) "
                       "ON CONFLICT DO NOTHING",
                       &p, "cannot store a commit");
}

/* One statement with the project as $1 and maybe one more parameter (arg or text). */
static int run(mn_store *s, const char *sql, int nargs, int64_t arg, const char *text,
               const char *what)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    if (nargs > 1) {
        if (text)
            mn_pg__text(&p, text);
        else
            mn_pg__int(&p, arg);
    }
    return mn_pg__exec(s, sql, &p, what);
}

int mn_pg__history_finish(mn_store *s, const char *head, size_t keep)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    int rc = run(s,
                 "INSERT INTO history_state(project_id, head) VALUES ($1, $2) "
                 "ON CONFLICT (project_id) DO UPDATE SET head = excluded.head",
                 2, 0, head, "cannot store the history head");
    if (rc == 0)
        rc = run(s,
                 "DELETE FROM history_commits WHERE project_id = $1 AND id NOT IN (SELECT id FROM "
                 "history_commits WHERE project_id = $1 ORDER BY time DESC, id LIMIT $2)",
                 2, (int64_t)keep, NULL, "cannot prune the history");
    if (rc == 0)
        rc = run(s, "DELETE FROM history_docs WHERE project_id = $1", 1, 0, NULL,
                 "cannot rebuild the history documents");
    /* newest subject first within a document */
    if (rc == 0)
        rc = run(s,
                 "INSERT INTO history_docs(project_id, path, subjects) SELECT $1, f.path, "
                 "string_agg(c.subject, E'\\n' ORDER BY c.time DESC, c.id) FROM history_commits c "
                 "JOIN history_files f ON f.commit_id = c.id WHERE c.project_id = $1 "
                 "GROUP BY f.path ORDER BY f.path",
                 1, 0, NULL, "cannot rebuild the history documents");
    /* and their postings (history_fts), rebuilt whole as the documents are */
    return rc ? rc : mn_pg__postings_history(s);
}

int mn_pg__history_clear(mn_store *s)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s, "SELECT 1 FROM history_state WHERE project_id = $1", &p,
                             "cannot read the history");
    if (!r)
        return mn_error_last_code();
    bool read = pg(s)->pq->ntuples(r) > 0;
    pg(s)->pq->clear(r);
    if (!read)
        return 0; /* nothing read: nothing to write either */
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    /* the commits' paths go with them (ON DELETE CASCADE) */
    rc = mn_pg__postings_clear(s, MN_PG_FTS_HISTORY);
    if (rc == 0)
        rc = run(s,
                 "WITH d AS (DELETE FROM history_docs WHERE project_id = $1), c AS (DELETE FROM "
                 "history_commits WHERE project_id = $1) DELETE FROM history_state WHERE "
                 "project_id = $1",
                 1, 0, NULL, "cannot forget the history");
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    return mn_store_commit(s);
}

int mn_pg__history_rename(mn_store *s, const char *from, const char *to)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, from);
    mn_pg__text(&p, to);
    return mn_pg__exec(s,
                       "UPDATE history_files h SET path = $3 WHERE h.project_id = $1 AND "
                       "h.path = $2 AND NOT EXISTS (SELECT 1 FROM history_files o WHERE "
                       "o.commit_id = h.commit_id AND o.path = $3)",
                       &p, "cannot rename a path of the history");
}
