/*
 * pg_ingest.c - what the ingests read and remember, on PostgreSQL
 * (store_ingest.h): the commits `mnemo ingest git` claimed and finished,
 * the keys ingests save under, tasks and their links, documents, the
 * branch filter's ancestry cache, the blame cache of "why", and the
 * memories' origins and links; the semantics of sqlite/ingest_store.c.
 *
 * Every row names this handle's project. SQLite's COLLATE NOCASE (ASCII
 * letters only) is ASCII_LOWER on both sides here, and its LIKE (ASCII
 * case-insensitive) the same, so an issue or document is found by the same
 * spellings on both back ends. Lookups of many keys (ancestry, origins)
 * are one statement with an array, answered in the caller's order.
 * Results are fetched whole before any callback, so callbacks may write.
 */
#include "common.h"

#include "store/postgres/pg_internal.h"
#include "store/store_ingest.h"
#include "util/util.h"

#define ASCII_LOWER(x) \
    "translate(" x ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"

static void set_str(mn_store *s, json_t *o, const char *key, const PGresult *r, int i)
{
    const char *v = mn_pg__col(s, r, 0, i);
    if (v)
        json_object_set_new(o, key, json_string(v));
}

static void set_time(mn_store *s, json_t *o, const char *key, const PGresult *r, int i)
{
    if (!mn_pg__col_null(s, r, 0, i)) {
        char t[32];
        mn_time_format(t, mn_pg__col_int(s, r, 0, i));
        json_object_set_new(o, key, json_string(t));
    }
}

static void set_json(mn_store *s, json_t *o, const char *key, const PGresult *r, int i)
{
    const char *v = mn_pg__col(s, r, 0, i);
    json_t *j = v ? json_loads(v, 0, NULL) : NULL;
    if (j)
        json_object_set_new(o, key, j);
}

/* Run sql and give the first column of each row to cb (the rows fetched first). */
static int each_string(mn_store *s, const char *sql, mn_pg_params *p, const char *what,
                       int (*cb)(void *payload, const char *value), void *payload)
{
    PGresult *r = mn_pg__run(s, sql, p, what);
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++)
        rc = cb(payload, mn_pg__col(s, r, i, 0));
    pg(s)->pq->clear(r);
    return rc;
}

/* ---- git commits ---- */

int mn_pg__git_commit_claim(mn_store *s, const char *sha, int64_t stale_ms, bool *claimed)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    int64_t now = mn_time_now_ms();
    *claimed = false;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, sha);
    mn_pg__int(&p, now);
    mn_pg__int(&p, now - stale_ms);
    /* a claim left by a run that died is taken over; a done row never is */
    PGresult *r = mn_pg__run(s,
                             "INSERT INTO git_commits(project_id, sha, time, state, ingested_at) "
                             "VALUES ($1, $2, 0, 'claimed', $3) ON CONFLICT (project_id, sha) DO "
                             "UPDATE SET ingested_at = EXCLUDED.ingested_at WHERE "
                             "git_commits.state = 'claimed' AND git_commits.ingested_at < $4",
                             &p, "cannot claim a commit");
    if (!r)
        return mn_error_last_code();
    *claimed = mn_pg__changed(s, r) > 0;
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__git_commit_unclaim(mn_store *s, const char *sha)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, sha);
    return mn_pg__exec(s,
                       "DELETE FROM git_commits WHERE project_id = $1 AND sha = $2 AND state = "
                       "'claimed'",
                       &p, "cannot release a commit");
}

int mn_pg__git_commit_finish(mn_store *s, const mn_git_commit_rec *c)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    char *symbols = c->symbols && json_array_size(c->symbols)
                        ? json_dumps(c->symbols, JSON_COMPACT | JSON_ENSURE_ASCII)
                        : NULL;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, c->sha);
    mn_pg__text(&p, c->parents ? c->parents : "");
    mn_pg__text(&p, c->author);
    mn_pg__int(&p, c->time_ms);
    mn_pg__text(&p, c->subject ? c->subject : "");
    mn_pg__text(&p, c->body && *c->body ? c->body : NULL);
    mn_pg__take(&p, symbols);
    mn_pg__int(&p, c->candidates);
    mn_pg__int(&p, c->saved);
    mn_pg__int(&p, c->queued);
    mn_pg__int(&p, mn_time_now_ms());
    PGresult *r = mn_pg__run(s,
                             "UPDATE git_commits SET parents = $3, author = $4, time = $5, subject "
                             "= $6, body = $7, symbols = $8, candidates = $9, saved = $10, queued "
                             "= $11, state = 'done', ingested_at = $12 WHERE project_id = $1 AND "
                             "sha = $2 RETURNING id",
                             &p, "cannot store a commit");
    if (!r)
        return mn_error_last_code();
    int64_t id = pg(s)->pq->ntuples(r) == 1 ? mn_pg__col_int(s, r, 0, 0) : 0;
    pg(s)->pq->clear(r);
    if (!id)
        return mn_error_set(MN_EINTERNAL, "commit '%.12s' was not claimed", c->sha);
    if (c->npaths == 0)
        return 0;
    const char **statuses = mn_calloc(c->npaths, sizeof(*statuses));
    for (size_t i = 0; i < c->npaths; i++)
        statuses[i] = c->statuses ? c->statuses[i] : "modified";
    mn_pg__int(&p, id);
    mn_pg__int(&p, s->project_id);
    mn_pg__take(&p, mn_pg__text_array(c->paths, c->npaths));
    mn_pg__take(&p, mn_pg__text_array(statuses, c->npaths));
    free(statuses);
    /* one statement for the paths; a path given twice keeps its first status */
    return mn_pg__exec(s,
                       "INSERT INTO git_commit_files(commit_id, project_id, path, status) SELECT "
                       "$1, $2, u.path, u.status FROM unnest($3::text[], $4::text[]) WITH "
                       "ORDINALITY AS u(path, status, i) ORDER BY u.i ON CONFLICT DO NOTHING",
                       &p, "cannot store a commit's paths");
}

int mn_pg__git_commits_done_each(mn_store *s, int (*cb)(void *payload, const char *sha),
                                 void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    return each_string(s, "SELECT sha FROM git_commits WHERE project_id = $1 AND state = 'done'",
                       &p, "cannot read the commits ingested", cb, payload);
}

int mn_pg__git_commit_counts(mn_store *s, int64_t *done_n, int64_t *claimed, char **newest)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT count(*) FILTER (WHERE state = 'done'), count(*) FILTER "
                             "(WHERE state = 'claimed'), (SELECT sha FROM git_commits WHERE "
                             "project_id = $1 AND state = 'done' ORDER BY time DESC, id DESC LIMIT "
                             "1) FROM git_commits WHERE project_id = $1",
                             &p, "cannot count the commits ingested");
    if (!r)
        return mn_error_last_code();
    *done_n = mn_pg__col_int(s, r, 0, 0);
    *claimed = mn_pg__col_int(s, r, 0, 1);
    if (newest) {
        const char *v = mn_pg__col(s, r, 0, 2);
        *newest = v ? mn_strdup(v) : NULL;
    }
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__git_commit_get(mn_store *s, const char *sha, json_t **out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, sha);
    PGresult *r = mn_pg__run(s,
                             "SELECT id, sha, parents, author, time, subject, body, symbols, "
                             "candidates, saved, queued FROM git_commits WHERE project_id = $1 "
                             "AND sha = $2 AND state = 'done'",
                             &p, "cannot read a commit");
    if (!r)
        return mn_error_last_code();
    if (pg(s)->pq->ntuples(r) != 1) {
        pg(s)->pq->clear(r);
        return mn_error_set(MN_ENOTFOUND, "commit '%.40s' was not ingested", sha);
    }
    int64_t id = mn_pg__col_int(s, r, 0, 0);
    json_t *o = json_object();
    set_str(s, o, "sha", r, 1);
    set_str(s, o, "parents", r, 2);
    set_str(s, o, "author", r, 3);
    set_time(s, o, "time", r, 4);
    set_str(s, o, "subject", r, 5);
    set_str(s, o, "body", r, 6);
    set_json(s, o, "symbols", r, 7);
    for (int i = 8; i <= 10; i++)
        json_object_set_new(o,
                            i == 8   ? "candidates"
                            : i == 9 ? "saved"
                                     : "queued",
                            json_integer(mn_pg__col_int(s, r, 0, i)));
    pg(s)->pq->clear(r);
    mn_pg__int(&p, id);
    r = mn_pg__run(s,
                   "SELECT path, status FROM git_commit_files WHERE commit_id = $1 ORDER BY path",
                   &p, "cannot read a commit's files");
    if (!r) {
        json_decref(o);
        return mn_error_last_code();
    }
    json_t *files = json_array();
    int n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n; i++)
        json_array_append_new(files, json_pack("{s:s,s:s}", "path", mn_pg__col(s, r, i, 0),
                                               "status", mn_pg__col(s, r, i, 1)));
    pg(s)->pq->clear(r);
    json_object_set_new(o, "files", files);
    *out = o;
    return 0;
}

int mn_pg__git_commits_for_path(mn_store *s, const char *path, size_t limit,
                                int (*cb)(void *payload, const char *sha, int64_t time_ms),
                                void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, path);
    mn_pg__int(&p, (int64_t)limit);
    PGresult *r = mn_pg__run(s,
                             "SELECT c.sha, c.time FROM git_commit_files f JOIN git_commits c ON "
                             "c.id = f.commit_id WHERE f.project_id = $1 AND f.path = $2 AND "
                             "c.state = 'done' ORDER BY c.time DESC, c.id DESC LIMIT $3",
                             &p, "cannot read the commits of a path");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++)
        rc = cb(payload, mn_pg__col(s, r, i, 0), mn_pg__col_int(s, r, i, 1));
    pg(s)->pq->clear(r);
    return rc;
}

/* ---- ingest keys ---- */

int mn_pg__ingest_key_get(mn_store *s, const char *key, char uid[27], char **hash)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, key);
    if (hash)
        *hash = NULL;
    PGresult *r = mn_pg__run(s,
                             "SELECT memory_uid, source_hash FROM ingest_keys WHERE project_id = "
                             "$1 AND key = $2",
                             &p, "cannot read an ingest key");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) == 1) {
        snprintf(uid, 27, "%s", mn_pg__col(s, r, 0, 0));
        const char *h = mn_pg__col(s, r, 0, 1);
        if (hash && h)
            *hash = mn_strdup(h);
    } else {
        rc = mn_error_set(MN_ENOTFOUND, "no memory under '%.80s'", key);
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__ingest_key_set(mn_store *s, const char *key, const char *uid, const char *hash)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, key);
    mn_pg__text(&p, uid);
    mn_pg__text(&p, hash);
    mn_pg__int(&p, mn_time_now_ms());
    return mn_pg__exec(s,
                       "INSERT INTO ingest_keys(project_id, key, memory_uid, source_hash, "
                       "updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, key) DO "
                       "UPDATE SET memory_uid = EXCLUDED.memory_uid, source_hash = "
                       "EXCLUDED.source_hash, updated_at = EXCLUDED.updated_at",
                       &p, "cannot write an ingest key");
}

int mn_pg__ingest_key_del(mn_store *s, const char *key)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, key);
    return mn_pg__exec(s, "DELETE FROM ingest_keys WHERE project_id = $1 AND key = $2", &p,
                       "cannot remove an ingest key");
}

int mn_pg__ingest_keys_each(mn_store *s, const char *prefix,
                            int (*cb)(void *payload, const char *key, const char *uid),
                            void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, prefix);
    /* starts_with: the prefix's own % and _ mean themselves; keys in byte order */
    PGresult *r = mn_pg__run(s,
                             "SELECT key, memory_uid FROM ingest_keys WHERE project_id = $1 AND "
                             "starts_with(key, $2) ORDER BY key",
                             &p, "cannot read the ingest keys");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++)
        rc = cb(payload, mn_pg__col(s, r, i, 0), mn_pg__col(s, r, i, 1));
    pg(s)->pq->clear(r);
    return rc;
}

/* ---- tasks ---- */

int mn_pg__task_upsert(mn_store *s, const mn_task_rec *t, bool *changed)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, t->tracker);
    mn_pg__text(&p, t->external_id);
    mn_pg__text(&p, t->title ? t->title : "");
    mn_pg__text(&p, t->body);
    mn_pg__text(&p, t->state);
    mn_pg__text(&p, t->url);
    mn_pg__int(&p, t->created_ms);
    mn_pg__int(&p, t->updated_ms ? t->updated_ms : t->created_ms);
    mn_pg__text(&p, t->author);
    mn_pg__take(&p, t->labels && json_array_size(t->labels)
                        ? json_dumps(t->labels, JSON_COMPACT | JSON_ENSURE_ASCII)
                        : NULL);
    if (t->closed_ms)
        mn_pg__int(&p, t->closed_ms);
    else
        mn_pg__text(&p, NULL);
    PGresult *r = mn_pg__run(
        s,
        "INSERT INTO tasks(project_id, tracker, external_id, title, body, state, url, created_at, "
        "updated_at, author, labels, closed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
        "$11, $12::bigint) ON CONFLICT (project_id, tracker, external_id) DO UPDATE SET title = "
        "EXCLUDED.title, body = EXCLUDED.body, state = EXCLUDED.state, url = EXCLUDED.url, "
        "updated_at = EXCLUDED.updated_at, author = EXCLUDED.author, labels = EXCLUDED.labels, "
        "closed_at = EXCLUDED.closed_at WHERE tasks.updated_at IS DISTINCT FROM "
        "EXCLUDED.updated_at OR tasks.title IS DISTINCT FROM EXCLUDED.title OR tasks.body IS "
        "DISTINCT FROM EXCLUDED.body OR tasks.state IS DISTINCT FROM EXCLUDED.state OR "
        "tasks.labels IS DISTINCT FROM EXCLUDED.labels",
        &p, "cannot store a task");
    if (!r)
        return mn_error_last_code();
    if (changed)
        *changed = mn_pg__changed(s, r) > 0;
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__task_get(mn_store *s, const char *external_id, json_t **out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, external_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT tracker, external_id, title, body, state, url, author, "
                             "labels, created_at, updated_at, closed_at FROM tasks WHERE "
                             "project_id = $1 AND " ASCII_LOWER("external_id") " = " ASCII_LOWER(
                                 "$2::text") " ORDER BY updated_at DESC LIMIT 1",
                             &p, "cannot read a task");
    if (!r)
        return mn_error_last_code();
    if (pg(s)->pq->ntuples(r) != 1) {
        pg(s)->pq->clear(r);
        return mn_error_set(MN_ENOTFOUND,
                            "issue '%.80s' is not known: ingest it first (mnemo ingest issues "
                            "FILE)",
                            external_id);
    }
    json_t *o = json_object();
    static const char *const keys[] = {"tracker", "id", "title", "body", "state", "url", "author"};
    for (int i = 0; i < 7; i++)
        set_str(s, o, keys[i], r, i);
    set_json(s, o, "labels", r, 7);
    set_time(s, o, "created_at", r, 8);
    set_time(s, o, "updated_at", r, 9);
    set_time(s, o, "closed_at", r, 10);
    pg(s)->pq->clear(r);
    *out = o;
    return 0;
}

int mn_pg__task_link(mn_store *s, const char *task_key, const char *ref, const char *kind)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, task_key);
    mn_pg__text(&p, ref);
    mn_pg__text(&p, kind);
    mn_pg__int(&p, mn_time_now_ms());
    /* a kind the table refuses is an answer (MN_EINVAL) the caller may go on after */
    PGresult *r = mn_pg__run_guarded(s,
                                     "INSERT INTO task_links(project_id, task_key, ref, kind, "
                                     "created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO "
                                     "NOTHING",
                                     &p, "cannot link a task");
    if (!r)
        return mn_error_last_code();
    pg(s)->pq->clear(r);
    return 0;
}

static int links_query(mn_store *s, const char *sql, const char *arg, const char *k1,
                       const char *k2, json_t **out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, arg);
    PGresult *r = mn_pg__run(s, sql, &p, "cannot read task links");
    if (!r)
        return mn_error_last_code();
    json_t *arr = json_array();
    int n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n; i++) {
        char t[32];
        mn_time_format(t, mn_pg__col_int(s, r, i, 2));
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s}", k1, mn_pg__col(s, r, i, 0), k2,
                                             mn_pg__col(s, r, i, 1), "created_at", t));
    }
    pg(s)->pq->clear(r);
    *out = arr;
    return 0;
}

int mn_pg__task_links(mn_store *s, const char *task_key, json_t **out)
{
    return links_query(
        s,
        "SELECT ref, kind, created_at FROM task_links WHERE project_id = $1 AND " ASCII_LOWER(
            "task_key") " = " ASCII_LOWER("$2::text") " ORDER BY created_at, ref",
        task_key, "ref", "kind", out);
}

int mn_pg__task_links_of(mn_store *s, const char *ref, json_t **out)
{
    return links_query(s,
                       "SELECT task_key, kind, created_at FROM task_links WHERE project_id = $1 "
                       "AND ref = $2 ORDER BY task_key",
                       ref, "task", "kind", out);
}

/* ---- documents ---- */

int mn_pg__doc_upsert(mn_store *s, const mn_doc_rec *d)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, d->path);
    mn_pg__text(&p, d->kind ? d->kind : "doc");
    mn_pg__text(&p, d->title);
    mn_pg__text(&p, d->body);
    mn_pg__text(&p, d->hash ? d->hash : "");
    mn_pg__int(&p, mn_time_now_ms());
    mn_pg__text(&p, d->url);
    return mn_pg__exec(s,
                       "INSERT INTO docs(project_id, path, kind, title, body, content_hash, "
                       "updated_at, url) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT "
                       "(project_id, path) DO UPDATE SET kind = EXCLUDED.kind, title = "
                       "EXCLUDED.title, body = EXCLUDED.body, content_hash = "
                       "EXCLUDED.content_hash, updated_at = EXCLUDED.updated_at, url = "
                       "EXCLUDED.url WHERE docs.content_hash IS DISTINCT FROM "
                       "EXCLUDED.content_hash OR docs.url IS DISTINCT FROM EXCLUDED.url",
                       &p, "cannot store a document");
}

#define DOC_COLUMNS "path, kind, title, body, url, updated_at"

int mn_pg__doc_find(mn_store *s, const char *path, const char *url, const char *title, json_t **out)
{
    static const char *const sql[] = {
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = $1 AND path = $2",
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = $1 AND url = $2",
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = $1 AND " ASCII_LOWER(
            "title") " = " ASCII_LOWER("$2::text") " ORDER BY path LIMIT 2",
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = $1 AND " ASCII_LOWER(
            "title") " LIKE " ASCII_LOWER("$2::text") " || '%' ESCAPE '\\' ORDER BY path LIMIT 2",
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = $1 AND " ASCII_LOWER(
            "title") " LIKE '%' || " ASCII_LOWER("$2::text") " || '%' ESCAPE '\\' ORDER BY path "
                                                             "LIMIT 2",
    };
    const char *args[] = {path, url, title, title, title};
    *out = NULL;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql); i++) {
        if (!args[i])
            continue;
        mn_pg_params p = {0};
        mn_pg__int(&p, s->project_id);
        if (i >= 3) { /* LIKE: the title's own % and _ are literal */
            mn_buf b = MN_BUF_INIT;
            for (const char *c = args[i]; *c; c++) {
                if (*c == '%' || *c == '_' || *c == '\\')
                    mn_buf_putc(&b, '\\');
                mn_buf_putc(&b, *c);
            }
            mn_pg__take(&p, b.ptr ? mn_buf_detach(&b) : mn_strdup(""));
        } else {
            mn_pg__text(&p, args[i]);
        }
        PGresult *r = mn_pg__run(s, sql[i], &p, "cannot read a document");
        if (!r)
            return mn_error_last_code();
        int n = pg(s)->pq->ntuples(r);
        if (n > 1 && i >= 2) {
            pg(s)->pq->clear(r);
            return mn_error_set(MN_EAMBIGUOUS,
                                "several documents are titled '%.80s': give its path instead",
                                args[i]);
        }
        if (n >= 1) {
            json_t *o = json_object();
            set_str(s, o, "path", r, 0);
            set_str(s, o, "kind", r, 1);
            set_str(s, o, "title", r, 2);
            set_str(s, o, "body", r, 3);
            set_str(s, o, "url", r, 4);
            set_time(s, o, "updated_at", r, 5);
            pg(s)->pq->clear(r);
            *out = o;
            return 0;
        }
        pg(s)->pq->clear(r);
    }
    return mn_error_set(MN_ENOTFOUND, "no document %s '%.200s' was ingested",
                        path || url ? "at" : "titled",
                        path    ? path
                        : url   ? url
                        : title ? title
                                : "");
}

/* ---- branches ---- */

int mn_pg__ancestry_get(mn_store *s, const char *head, const char *const *shas, size_t n,
                        int (*cb)(void *payload, const char *sha, bool merged), void *payload)
{
    if (n == 0)
        return 0;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, head);
    mn_pg__take(&p, mn_pg__text_array(shas, n));
    PGresult *r = mn_pg__run(s,
                             "SELECT sha, merged FROM branch_ancestry WHERE project_id = $1 AND "
                             "head = $2 AND sha = ANY($3::text[])",
                             &p, "cannot read the ancestry cache");
    if (!r)
        return mn_error_last_code();
    /* answered in the caller's order, each sha it gave that the cache has */
    mn_map found = MN_MAP_INIT;
    int rows = pg(s)->pq->ntuples(r), rc = 0;
    for (int i = 0; i < rows; i++)
        mn_map_set(&found, mn_pg__col(s, r, i, 0),
                   (void *)(uintptr_t)(mn_pg__col_int(s, r, i, 1) != 0 ? 2 : 1));
    for (size_t i = 0; i < n && rc == 0; i++) {
        uintptr_t v = (uintptr_t)mn_map_get(&found, shas[i]);
        if (v)
            rc = cb(payload, shas[i], v == 2);
    }
    mn_map_release(&found);
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__ancestry_put(mn_store *s, const char *head, const char *sha, bool merged)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, head);
    mn_pg__text(&p, sha);
    mn_pg__int(&p, merged ? 1 : 0);
    mn_pg__int(&p, mn_time_now_ms());
    return mn_pg__exec(s,
                       "INSERT INTO branch_ancestry(project_id, head, sha, merged, checked_at) "
                       "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, head, sha) DO UPDATE "
                       "SET merged = EXCLUDED.merged, checked_at = EXCLUDED.checked_at",
                       &p, "cannot write the ancestry cache");
}

int mn_pg__ancestry_heads(mn_store *s, size_t max, int (*cb)(void *payload, const char *head),
                          void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)max);
    return each_string(s,
                       "SELECT head FROM branch_ancestry WHERE project_id = $1 GROUP BY head "
                       "ORDER BY max(checked_at) DESC LIMIT $2",
                       &p, "cannot read the ancestry cache", cb, payload);
}

int mn_pg__ancestry_inherit(mn_store *s, const char *from, const char *to)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, from);
    mn_pg__text(&p, to);
    mn_pg__int(&p, mn_time_now_ms());
    return mn_pg__exec(s,
                       "INSERT INTO branch_ancestry(project_id, head, sha, merged, checked_at) "
                       "SELECT project_id, $3, sha, 1, $4 FROM branch_ancestry WHERE project_id = "
                       "$1 AND head = $2 AND merged = 1 ON CONFLICT DO NOTHING",
                       &p, "cannot write the ancestry cache");
}

int mn_pg__ancestry_prune(mn_store *s, size_t keep)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)keep);
    return mn_pg__exec(s,
                       "DELETE FROM branch_ancestry WHERE project_id = $1 AND head NOT IN (SELECT "
                       "head FROM branch_ancestry WHERE project_id = $1 GROUP BY head ORDER BY "
                       "max(checked_at) DESC LIMIT $2)",
                       &p, "cannot prune the ancestry cache");
}

int mn_pg__memories_origin(mn_store *s, const int64_t *rowids, size_t n,
                           int (*cb)(void *payload, int64_t rowid, const char *branch,
                                     const char *commit),
                           void *payload)
{
    if (n == 0)
        return 0;
    mn_buf ids = MN_BUF_INIT;
    mn_buf_putc(&ids, '{');
    for (size_t i = 0; i < n; i++)
        mn_buf_printf(&ids, "%s%lld", i ? "," : "", (long long)rowids[i]);
    mn_buf_putc(&ids, '}');
    mn_pg_params p = {0};
    mn_pg__take(&p, mn_buf_detach(&ids));
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT id, branch, commit_sha FROM memories WHERE id = "
                             "ANY($1::bigint[]) AND project_id = $2 AND (branch IS NOT NULL OR "
                             "commit_sha IS NOT NULL)",
                             &p, "cannot read where memories were learned");
    if (!r)
        return mn_error_last_code();
    /* the caller's order: row of each id found (+1; 0: none) */
    mn_map at = MN_MAP_INIT;
    int rows = pg(s)->pq->ntuples(r), rc = 0;
    for (int i = 0; i < rows; i++)
        mn_map_set(&at, mn_pg__col(s, r, i, 0), (void *)(uintptr_t)(i + 1));
    for (size_t i = 0; i < n && rc == 0; i++) {
        char key[24];
        snprintf(key, sizeof(key), "%lld", (long long)rowids[i]);
        uintptr_t row = (uintptr_t)mn_map_get(&at, key);
        if (row)
            rc = cb(payload, rowids[i], mn_pg__col(s, r, (int)row - 1, 1),
                    mn_pg__col(s, r, (int)row - 1, 2));
    }
    mn_map_release(&at);
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__memory_commits_each(mn_store *s, int (*cb)(void *payload, const char *sha),
                               void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    return each_string(s,
                       "SELECT DISTINCT commit_sha FROM memories WHERE project_id = $1 AND "
                       "commit_sha IS NOT NULL AND deleted_at IS NULL",
                       &p, "cannot read the memories' commits", cb, payload);
}

/* ---- blame ---- */

int mn_pg__blame_get(mn_store *s, const char *path, const char *blob, int64_t first, int64_t last,
                     char **hunks_json)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, path);
    mn_pg__text(&p, blob);
    mn_pg__int(&p, first);
    mn_pg__int(&p, last);
    *hunks_json = NULL;
    PGresult *r = mn_pg__run(s,
                             "SELECT hunks FROM blame_cache WHERE project_id = $1 AND path = $2 "
                             "AND blob = $3 AND first_line = $4 AND last_line = $5",
                             &p, "cannot read the blame cache");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) == 1)
        *hunks_json = mn_strdup(mn_pg__col(s, r, 0, 0));
    else
        rc = mn_error_set(MN_ENOTFOUND, "no blame cached");
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__blame_put(mn_store *s, const char *path, const char *blob, int64_t first, int64_t last,
                     const char *hunks_json)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, path);
    mn_pg__text(&p, blob);
    mn_pg__int(&p, first);
    mn_pg__int(&p, last);
    mn_pg__text(&p, hunks_json);
    mn_pg__int(&p, mn_time_now_ms());
    int rc = mn_pg__exec(s,
                         "INSERT INTO blame_cache(project_id, path, blob, first_line, last_line, "
                         "hunks, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT "
                         "(project_id, path, blob, first_line, last_line) DO UPDATE SET hunks = "
                         "EXCLUDED.hunks, created_at = EXCLUDED.created_at",
                         &p, "cannot write the blame cache");
    /* a file's older blobs are of no use once it changed: keep the cache to today's files */
    if (rc == 0) {
        mn_pg__int(&p, s->project_id);
        mn_pg__text(&p, path);
        mn_pg__text(&p, blob);
        rc = mn_pg__exec(s,
                         "DELETE FROM blame_cache WHERE project_id = $1 AND path = $2 AND blob <> "
                         "$3",
                         &p, "cannot prune the blame cache");
    }
    return rc;
}

/* ---- memories by link ---- */

int mn_pg__memories_linked_to(mn_store *s, const char *ref, size_t limit,
                              int (*cb)(void *payload, const char *uid), void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, ref);
    mn_pg__int(&p, (int64_t)limit);
    return each_string(s,
                       "SELECT m.uid FROM memories m WHERE m.project_id = $1 AND m.deleted_at IS "
                       "NULL AND m.id IN (SELECT src_id FROM links WHERE dst_ref = $2) ORDER BY "
                       "m.id LIMIT $3",
                       &p, "cannot read linked memories", cb, payload);
}
