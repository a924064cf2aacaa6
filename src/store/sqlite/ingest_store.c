/*
 * ingest_store.c - the SQLite side of store_ingest.h (schema v12): commits
 * read by the git ingest, the keys ingests save under, tasks and their
 * links, documents, the ancestry cache of the branch filter and the blame
 * cache of "why".
 *
 * Every statement is prepared once per handle (mn_sqlite__stmt) and reset
 * before returning; every write checks that a transaction is open.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/store_ingest.h"
#include "store/sqlite/sqlite_internal.h"

static int done(mn_store *s, sqlite3_stmt *st, const char *what)
{
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    return step == SQLITE_DONE || step == SQLITE_ROW ? 0 : mn_sqlite__fail(s, what);
}

static void bind_str(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static const char *col(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

static void set_str(json_t *o, const char *key, sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) != SQLITE_NULL)
        json_object_set_new(o, key, json_string(col(st, i)));
}

static void set_time(json_t *o, const char *key, sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) != SQLITE_NULL) {
        char t[32];
        mn_time_format(t, sqlite3_column_int64(st, i));
        json_object_set_new(o, key, json_string(t));
    }
}

static void set_json(json_t *o, const char *key, sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return;
    json_t *v = json_loads(col(st, i), 0, NULL);
    if (v)
        json_object_set_new(o, key, v);
}

/* ---- git commits ---- */

int mn_sqlite__git_commit_claim(mn_store *s, const char *sha, int64_t stale_ms, bool *claimed)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int64_t now = mn_time_now_ms();
    *claimed = false;
    /* a claim left by a run that died is taken over; a done row never is */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO git_commits(project_id, sha, time, state, ingested_at) "
           "VALUES (?1, ?2, 0, 'claimed', ?3) ON CONFLICT(project_id, sha) DO UPDATE SET "
           "ingested_at = excluded.ingested_at WHERE state = 'claimed' AND ingested_at < ?4");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, now);
    sqlite3_bind_int64(st, 4, now - stale_ms);
    int rc = done(s, st, "cannot claim a commit");
    if (rc == 0)
        *claimed = sqlite3_changes(sq(s)->db) > 0;
    return rc;
}

int mn_sqlite__git_commit_unclaim(mn_store *s, const char *sha)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "DELETE FROM git_commits WHERE project_id = ?1 AND sha = ?2 AND state = 'claimed'");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
    return done(s, st, "cannot release a commit");
}

int mn_sqlite__git_commit_finish(mn_store *s, const mn_git_commit_rec *c)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "UPDATE git_commits SET parents = ?3, author = ?4, time = ?5, subject = ?6, body = ?7, "
           "symbols = ?8, candidates = ?9, saved = ?10, queued = ?11, state = 'done', "
           "ingested_at = ?12 WHERE project_id = ?1 AND sha = ?2 RETURNING id");
    if (!st)
        return mn_error_last_code();
    char *symbols = c->symbols && json_array_size(c->symbols)
                        ? json_dumps(c->symbols, JSON_COMPACT | JSON_ENSURE_ASCII)
                        : NULL;
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, c->sha, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, c->parents ? c->parents : "", -1, SQLITE_TRANSIENT);
    bind_str(st, 4, c->author);
    sqlite3_bind_int64(st, 5, c->time_ms);
    sqlite3_bind_text(st, 6, c->subject ? c->subject : "", -1, SQLITE_TRANSIENT);
    bind_str(st, 7, c->body && *c->body ? c->body : NULL);
    bind_str(st, 8, symbols);
    sqlite3_bind_int(st, 9, c->candidates);
    sqlite3_bind_int(st, 10, c->saved);
    sqlite3_bind_int(st, 11, c->queued);
    sqlite3_bind_int64(st, 12, mn_time_now_ms());
    free(symbols);
    int step = sqlite3_step(st);
    int64_t id = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (step == SQLITE_ROW)
        step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot store a commit");
    if (!id)
        return mn_error_set(MN_EINTERNAL, "commit '%.12s' was not claimed", c->sha);
    st = mn_sqlite__stmt(s, "INSERT OR IGNORE INTO git_commit_files(commit_id, path, status) "
                            "VALUES (?1, ?2, ?3)");
    if (!st)
        return mn_error_last_code();
    for (size_t i = 0; i < c->npaths; i++) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, c->paths[i], -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, c->statuses ? c->statuses[i] : "modified", -1, SQLITE_TRANSIENT);
        int rc = done(s, st, "cannot store a commit's paths");
        if (rc)
            return rc;
    }
    return 0;
}

int mn_sqlite__git_commits_done_each(mn_store *s, int (*cb)(void *payload, const char *sha),
                                     void *payload)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT sha FROM git_commits WHERE project_id = ?1 AND state = 'done'");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = cb(payload, col(st, 0));
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the commits ingested");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__git_commit_counts(mn_store *s, int64_t *done_n, int64_t *claimed, char **newest)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE state = "
           "'claimed'), (SELECT sha FROM git_commits WHERE project_id = ?1 AND state = 'done' "
           "ORDER BY time DESC, id DESC LIMIT 1) FROM git_commits WHERE project_id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *done_n = sqlite3_column_int64(st, 0);
        *claimed = sqlite3_column_int64(st, 1);
        if (newest)
            *newest = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL : mn_strdup(col(st, 2));
    }
    sqlite3_reset(st);
    return step == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot count the commits ingested");
}

int mn_sqlite__git_commit_get(mn_store *s, const char *sha, json_t **out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT id, sha, parents, author, time, subject, body, symbols, candidates, saved, "
           "queued FROM git_commits WHERE project_id = ?1 AND sha = ?2 AND state = 'done'");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW) {
        sqlite3_reset(st);
        return step == SQLITE_DONE
                   ? mn_error_set(MN_ENOTFOUND, "commit '%.40s' was not ingested", sha)
                   : mn_sqlite__fail(s, "cannot read a commit");
    }
    int64_t id = sqlite3_column_int64(st, 0);
    json_t *o = json_object();
    set_str(o, "sha", st, 1);
    set_str(o, "parents", st, 2);
    set_str(o, "author", st, 3);
    set_time(o, "time", st, 4);
    set_str(o, "subject", st, 5);
    set_str(o, "body", st, 6);
    set_json(o, "symbols", st, 7);
    json_object_set_new(o, "candidates", json_integer(sqlite3_column_int64(st, 8)));
    json_object_set_new(o, "saved", json_integer(sqlite3_column_int64(st, 9)));
    json_object_set_new(o, "queued", json_integer(sqlite3_column_int64(st, 10)));
    sqlite3_reset(st);
    st = mn_sqlite__stmt(s, "SELECT path, status FROM git_commit_files WHERE commit_id = ?1 "
                            "ORDER BY path");
    if (!st) {
        json_decref(o);
        return mn_error_last_code();
    }
    sqlite3_bind_int64(st, 1, id);
    json_t *files = json_array();
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        json_array_append_new(files,
                              json_pack("{s:s,s:s}", "path", col(st, 0), "status", col(st, 1)));
    sqlite3_reset(st);
    json_object_set_new(o, "files", files);
    if (step != SQLITE_DONE) {
        json_decref(o);
        return mn_sqlite__fail(s, "cannot read a commit's files");
    }
    *out = o;
    return 0;
}

int mn_sqlite__git_commits_for_path(mn_store *s, const char *path, size_t limit,
                                    int (*cb)(void *payload, const char *sha, int64_t time_ms),
                                    void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT c.sha, c.time FROM git_commit_files f JOIN git_commits c ON c.id = "
           "f.commit_id WHERE f.path = ?2 AND c.project_id = ?1 AND c.state = 'done' ORDER BY "
           "c.time DESC, c.id DESC LIMIT ?3");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)limit);
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = cb(payload, col(st, 0), sqlite3_column_int64(st, 1));
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the commits of a path");
    sqlite3_reset(st);
    return rc;
}

/* ---- ingest keys ---- */

int mn_sqlite__ingest_key_get(mn_store *s, const char *key, char uid[27], char **hash)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT memory_uid, source_hash FROM ingest_keys WHERE project_id = ?1 AND key = ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
    if (hash)
        *hash = NULL;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        snprintf(uid, 27, "%s", col(st, 0));
        if (hash && sqlite3_column_type(st, 1) != SQLITE_NULL)
            *hash = mn_strdup(col(st, 1));
    }
    sqlite3_reset(st);
    if (step == SQLITE_ROW)
        return 0;
    return step == SQLITE_DONE ? mn_error_set(MN_ENOTFOUND, "no memory under '%.80s'", key)
                               : mn_sqlite__fail(s, "cannot read an ingest key");
}

int mn_sqlite__ingest_key_set(mn_store *s, const char *key, const char *uid, const char *hash)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO ingest_keys(project_id, key, memory_uid, source_hash, updated_at) VALUES "
           "(?1, ?2, ?3, ?4, ?5) ON CONFLICT(project_id, key) DO UPDATE SET memory_uid = "
           "excluded.memory_uid, source_hash = excluded.source_hash, updated_at = "
           "excluded.updated_at");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, uid, -1, SQLITE_TRANSIENT);
    bind_str(st, 4, hash);
    sqlite3_bind_int64(st, 5, mn_time_now_ms());
    return done(s, st, "cannot write an ingest key");
}

int mn_sqlite__ingest_key_del(mn_store *s, const char *key)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "DELETE FROM ingest_keys WHERE project_id = ?1 AND key = ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
    return done(s, st, "cannot remove an ingest key");
}

int mn_sqlite__ingest_keys_each(mn_store *s, const char *prefix,
                                int (*cb)(void *payload, const char *key, const char *uid),
                                void *payload)
{
    /* a range scan: prefix <= key < prefix + U+10FFFF-ish (0xF4 0x8F 0xBF 0xBF) */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT key, memory_uid FROM ingest_keys WHERE project_id = ?1 AND key >= ?2 AND key "
           "< ?2 || char(1114111) ORDER BY key");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, prefix, -1, SQLITE_TRANSIENT);
    /* the rows are copied first: cb may write (and a write would reset this statement) */
    json_t *rows = json_array();
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        json_array_append_new(rows, json_pack("[s,s]", col(st, 0), col(st, 1)));
    sqlite3_reset(st);
    int rc = step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot read the ingest keys");
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        if (rc)
            break;
        rc = cb(payload, json_string_value(json_array_get(r, 0)),
                json_string_value(json_array_get(r, 1)));
    }
    json_decref(rows);
    return rc;
}

/* ---- tasks ---- */

int mn_sqlite__task_upsert(mn_store *s, const mn_task_rec *t, bool *changed)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    char *labels = t->labels && json_array_size(t->labels)
                       ? json_dumps(t->labels, JSON_COMPACT | JSON_ENSURE_ASCII)
                       : NULL;
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO tasks(project_id, tracker, external_id, title, body, state, url, "
           "created_at, updated_at, author, labels, closed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
           "?8, ?9, ?10, ?11, ?12) ON CONFLICT(project_id, tracker, external_id) DO UPDATE SET "
           "title = excluded.title, body = excluded.body, state = excluded.state, url = "
           "excluded.url, updated_at = excluded.updated_at, author = excluded.author, labels = "
           "excluded.labels, closed_at = excluded.closed_at WHERE tasks.updated_at IS NOT "
           "excluded.updated_at OR tasks.title IS NOT excluded.title OR tasks.body IS NOT "
           "excluded.body OR tasks.state IS NOT excluded.state OR tasks.labels IS NOT "
           "excluded.labels");
    if (!st) {
        free(labels);
        return mn_error_last_code();
    }
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, t->tracker, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, t->external_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, t->title ? t->title : "", -1, SQLITE_TRANSIENT);
    bind_str(st, 5, t->body);
    bind_str(st, 6, t->state);
    bind_str(st, 7, t->url);
    sqlite3_bind_int64(st, 8, t->created_ms);
    sqlite3_bind_int64(st, 9, t->updated_ms ? t->updated_ms : t->created_ms);
    bind_str(st, 10, t->author);
    bind_str(st, 11, labels);
    if (t->closed_ms)
        sqlite3_bind_int64(st, 12, t->closed_ms);
    else
        sqlite3_bind_null(st, 12);
    free(labels);
    int rc = done(s, st, "cannot store a task");
    if (rc == 0 && changed)
        *changed = sqlite3_changes(sq(s)->db) > 0;
    return rc;
}

int mn_sqlite__task_get(mn_store *s, const char *external_id, json_t **out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT tracker, external_id, title, body, state, url, author, labels, created_at, "
           "updated_at, closed_at FROM tasks WHERE project_id = ?1 AND external_id = ?2 COLLATE "
           "NOCASE ORDER BY updated_at DESC LIMIT 1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, external_id, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW) {
        sqlite3_reset(st);
        return step == SQLITE_DONE
                   ? mn_error_set(MN_ENOTFOUND,
                                  "issue '%.80s' is not known: ingest it first (mnemo ingest "
                                  "issues FILE)",
                                  external_id)
                   : mn_sqlite__fail(s, "cannot read a task");
    }
    json_t *o = json_object();
    set_str(o, "tracker", st, 0);
    set_str(o, "id", st, 1);
    set_str(o, "title", st, 2);
    set_str(o, "body", st, 3);
    set_str(o, "state", st, 4);
    set_str(o, "url", st, 5);
    set_str(o, "author", st, 6);
    set_json(o, "labels", st, 7);
    set_time(o, "created_at", st, 8);
    set_time(o, "updated_at", st, 9);
    set_time(o, "closed_at", st, 10);
    sqlite3_reset(st);
    *out = o;
    return 0;
}

int mn_sqlite__task_link(mn_store *s, const char *task_key, const char *ref, const char *kind)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO task_links(project_id, task_key, ref, kind, created_at) VALUES (?1, ?2, "
           "?3, ?4, ?5) ON CONFLICT DO NOTHING");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, task_key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, ref, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 5, mn_time_now_ms());
    return done(s, st, "cannot link a task");
}

static int links_query(mn_store *s, const char *sql, const char *arg, const char *k1,
                       const char *k2, json_t **out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, arg, -1, SQLITE_TRANSIENT);
    json_t *arr = json_array();
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_pack("{s:s,s:s}", k1, col(st, 0), k2, col(st, 1));
        set_time(o, "created_at", st, 2);
        json_array_append_new(arr, o);
    }
    sqlite3_reset(st);
    if (step != SQLITE_DONE) {
        json_decref(arr);
        return mn_sqlite__fail(s, "cannot read task links");
    }
    *out = arr;
    return 0;
}

int mn_sqlite__task_links(mn_store *s, const char *task_key, json_t **out)
{
    return links_query(s,
                       "SELECT ref, kind, created_at FROM task_links WHERE project_id = ?1 AND "
                       "task_key = ?2 COLLATE NOCASE ORDER BY created_at, ref",
                       task_key, "ref", "kind", out);
}

int mn_sqlite__task_links_of(mn_store *s, const char *ref, json_t **out)
{
    return links_query(s,
                       "SELECT task_key, kind, created_at FROM task_links WHERE project_id = ?1 "
                       "AND ref = ?2 ORDER BY task_key",
                       ref, "task", "kind", out);
}

/* ---- documents ---- */

int mn_sqlite__doc_upsert(mn_store *s, const mn_doc_rec *d)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO docs(project_id, path, kind, title, body, content_hash, updated_at, url) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT(project_id, path) DO UPDATE SET "
           "kind = excluded.kind, title = excluded.title, body = excluded.body, content_hash = "
           "excluded.content_hash, updated_at = excluded.updated_at, url = excluded.url WHERE "
           "docs.content_hash IS NOT excluded.content_hash OR docs.url IS NOT excluded.url");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, d->path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, d->kind ? d->kind : "doc", -1, SQLITE_TRANSIENT);
    bind_str(st, 4, d->title);
    bind_str(st, 5, d->body);
    sqlite3_bind_text(st, 6, d->hash ? d->hash : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 7, mn_time_now_ms());
    bind_str(st, 8, d->url);
    return done(s, st, "cannot store a document");
}

static int doc_row(mn_store *s, sqlite3_stmt *st, json_t **out, bool *ambiguous)
{
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        json_t *o = json_object();
        set_str(o, "path", st, 0);
        set_str(o, "kind", st, 1);
        set_str(o, "title", st, 2);
        set_str(o, "body", st, 3);
        set_str(o, "url", st, 4);
        set_time(o, "updated_at", st, 5);
        *out = o;
        if (ambiguous)
            *ambiguous = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_reset(st);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0
                                                     : mn_sqlite__fail(s, "cannot read a document");
}

#define DOC_COLUMNS "path, kind, title, body, url, updated_at"

int mn_sqlite__doc_find(mn_store *s, const char *path, const char *url, const char *title,
                        json_t **out)
{
    static const char *const sql[] = {
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = ?1 AND path = ?2",
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = ?1 AND url = ?2",
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = ?1 AND title = ?2 COLLATE NOCASE "
        "ORDER BY path LIMIT 2",
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = ?1 AND title LIKE ?2 || '%' "
        "ESCAPE '\\' ORDER BY path LIMIT 2",
        "SELECT " DOC_COLUMNS " FROM docs WHERE project_id = ?1 AND title LIKE '%' || ?2 || '%' "
        "ESCAPE '\\' ORDER BY path LIMIT 2",
    };
    const char *args[] = {path, url, title, title, title};
    *out = NULL;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql); i++) {
        if (!args[i])
            continue;
        sqlite3_stmt *st = mn_sqlite__stmt(s, sql[i]);
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, s->project_id);
        char *arg = NULL;
        if (i >= 3) { /* LIKE: the title's own % and _ are literal */
            mn_buf b = MN_BUF_INIT;
            for (const char *p = args[i]; *p; p++) {
                if (*p == '%' || *p == '_' || *p == '\\')
                    mn_buf_putc(&b, '\\');
                mn_buf_putc(&b, *p);
            }
            arg = b.ptr ? mn_buf_detach(&b) : mn_strdup("");
        }
        sqlite3_bind_text(st, 2, arg ? arg : args[i], -1, SQLITE_TRANSIENT);
        free(arg);
        bool ambiguous = false;
        int rc = doc_row(s, st, out, i >= 2 ? &ambiguous : NULL);
        if (rc)
            return rc;
        if (*out && ambiguous) {
            json_decref(*out);
            *out = NULL;
            return mn_error_set(MN_EAMBIGUOUS,
                                "several documents are titled '%.80s': give its path instead",
                                args[i]);
        }
        if (*out)
            return 0;
    }
    return mn_error_set(MN_ENOTFOUND, "no document %s '%.200s' was ingested",
                        path  ? "at"
                        : url ? "at"
                              : "titled",
                        path    ? path
                        : url   ? url
                        : title ? title
                                : "");
}

/* ---- branches ---- */

int mn_sqlite__ancestry_get(mn_store *s, const char *head, const char *const *shas, size_t n,
                            int (*cb)(void *payload, const char *sha, bool merged), void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT merged FROM branch_ancestry WHERE project_id = ?1 AND head = ?2 AND sha = ?3");
    if (!st)
        return mn_error_last_code();
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_bind_int64(st, 1, s->project_id);
        sqlite3_bind_text(st, 2, head, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, shas[i], -1, SQLITE_TRANSIENT);
        int step = sqlite3_step(st);
        bool merged = step == SQLITE_ROW && sqlite3_column_int(st, 0) != 0;
        sqlite3_reset(st);
        if (step == SQLITE_ROW)
            rc = cb(payload, shas[i], merged);
        else if (step != SQLITE_DONE)
            rc = mn_sqlite__fail(s, "cannot read the ancestry cache");
    }
    return rc;
}

int mn_sqlite__ancestry_put(mn_store *s, const char *head, const char *sha, bool merged)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT OR REPLACE INTO branch_ancestry(project_id, head, sha, merged, checked_at) "
           "VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, head, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, sha, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 4, merged ? 1 : 0);
    sqlite3_bind_int64(st, 5, mn_time_now_ms());
    return done(s, st, "cannot write the ancestry cache");
}

/*
 * The first column of st's rows, each given to cb once st is reset: the
 * rows are read whole first, so that cb may use the store (a statement
 * stepping meanwhile would see its writes).
 */
static int each_string(mn_store *s, sqlite3_stmt *st, const char *what,
                       int (*cb)(void *payload, const char *value), void *payload)
{
    json_t *values = json_array();
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        json_array_append_new(values, json_string(col(st, 0)));
    sqlite3_reset(st);
    int rc = step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, what);
    size_t i;
    json_t *v;
    json_array_foreach(values, i, v) if (rc == 0) rc = cb(payload, json_string_value(v));
    json_decref(values);
    return rc;
}

int mn_sqlite__ancestry_heads(mn_store *s, size_t max, int (*cb)(void *payload, const char *head),
                              void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT head FROM branch_ancestry WHERE project_id = ?1 GROUP BY head ORDER BY "
           "max(checked_at) DESC LIMIT ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
    return each_string(s, st, "cannot read the ancestry cache", cb, payload);
}

int mn_sqlite__ancestry_inherit(mn_store *s, const char *from, const char *to)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT OR IGNORE INTO branch_ancestry(project_id, head, sha, merged, checked_at) "
           "SELECT project_id, ?3, sha, 1, ?4 FROM branch_ancestry WHERE project_id = ?1 AND "
           "head = ?2 AND merged = 1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, from, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, to, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, mn_time_now_ms());
    return done(s, st, "cannot write the ancestry cache");
}

int mn_sqlite__ancestry_prune(mn_store *s, size_t keep)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "DELETE FROM branch_ancestry WHERE project_id = ?1 AND head NOT IN (SELECT head FROM "
           "branch_ancestry WHERE project_id = ?1 GROUP BY head ORDER BY max(checked_at) DESC "
           "LIMIT ?2)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)keep);
    return done(s, st, "cannot prune the ancestry cache");
}

int mn_sqlite__memories_origin(mn_store *s, const int64_t *rowids, size_t n,
                               int (*cb)(void *payload, int64_t rowid, const char *branch,
                                         const char *commit),
                               void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT branch, commit_sha FROM memories WHERE id = ?1 AND project_id = ?2 AND "
           "(branch IS NOT NULL OR commit_sha IS NOT NULL)");
    if (!st)
        return mn_error_last_code();
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_bind_int64(st, 1, rowids[i]);
        sqlite3_bind_int64(st, 2, s->project_id);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            char *branch = sqlite3_column_type(st, 0) == SQLITE_NULL ? NULL : mn_strdup(col(st, 0));
            char *commit = sqlite3_column_type(st, 1) == SQLITE_NULL ? NULL : mn_strdup(col(st, 1));
            sqlite3_reset(st);
            rc = cb(payload, rowids[i], branch, commit);
            free(branch);
            free(commit);
        } else {
            sqlite3_reset(st);
            if (step != SQLITE_DONE)
                rc = mn_sqlite__fail(s, "cannot read where memories were learned");
        }
    }
    return rc;
}

int mn_sqlite__memory_commits_each(mn_store *s, int (*cb)(void *payload, const char *sha),
                                   void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT DISTINCT commit_sha FROM memories WHERE project_id = ?1 AND commit_sha IS NOT "
           "NULL AND deleted_at IS NULL");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    return each_string(s, st, "cannot read the memories' commits", cb, payload);
}

/* ---- blame ---- */

int mn_sqlite__blame_get(mn_store *s, const char *path, const char *blob, int64_t first,
                         int64_t last, char **hunks_json)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT hunks FROM blame_cache WHERE project_id = ?1 AND path = ?2 AND blob = ?3 AND "
           "first_line = ?4 AND last_line = ?5");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, blob, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, first);
    sqlite3_bind_int64(st, 5, last);
    int step = sqlite3_step(st);
    *hunks_json = step == SQLITE_ROW ? mn_strdup(col(st, 0)) : NULL;
    sqlite3_reset(st);
    if (step == SQLITE_ROW)
        return 0;
    return step == SQLITE_DONE ? mn_error_set(MN_ENOTFOUND, "no blame cached")
                               : mn_sqlite__fail(s, "cannot read the blame cache");
}

int mn_sqlite__blame_put(mn_store *s, const char *path, const char *blob, int64_t first,
                         int64_t last, const char *hunks_json)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT OR REPLACE INTO blame_cache(project_id, path, blob, first_line, last_line, "
           "hunks, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, blob, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, first);
    sqlite3_bind_int64(st, 5, last);
    sqlite3_bind_text(st, 6, hunks_json, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 7, mn_time_now_ms());
    int rc = done(s, st, "cannot write the blame cache");
    /* a file's older blobs are of no use once it changed: keep the cache to today's files */
    if (rc == 0) {
        st = mn_sqlite__stmt(s, "DELETE FROM blame_cache WHERE project_id = ?1 AND path = ?2 AND "
                                "blob <> ?3");
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, s->project_id);
        sqlite3_bind_text(st, 2, path, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, blob, -1, SQLITE_TRANSIENT);
        rc = done(s, st, "cannot prune the blame cache");
    }
    return rc;
}

/* ---- memories by link ---- */

int mn_sqlite__memories_linked_to(mn_store *s, const char *ref, size_t limit,
                                  int (*cb)(void *payload, const char *uid), void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT DISTINCT m.uid FROM links l JOIN memories m ON m.id = l.src_id WHERE "
           "l.dst_ref = ?2 AND m.project_id = ?1 AND m.deleted_at IS NULL ORDER BY m.id LIMIT ?3");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, ref, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)limit);
    return each_string(s, st, "cannot read linked memories", cb, payload);
}
