/*
 * token_store.c - the tokens table (schema v15) on SQLite: the access
 * tokens of the team server (store_tokens.h).
 *
 * Rows are global, not per project: the server looks a token up before it
 * knows the project, and the token says which project it opens. A secret
 * is found by its SHA-256 (the UNIQUE index on secret_hash); the caller
 * compares the stored hash with the one it computed in constant time, so
 * the index lookup is the only thing that depends on the secret's bytes,
 * and it sees a hash, not the secret. Rows are never deleted: a revoked
 * token keeps its name, so `mnemo token list` and the audit log still say
 * whose it was.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/store_tokens.h"
#include "store/sqlite/sqlite_internal.h"
#include "util/util.h"

#define COLUMNS "id, name, project, role, created_at, expires_at, revoked_at, last_used_at"

void mn_token_release(mn_token *t)
{
    if (!t)
        return;
    free(t->name);
    free(t->project);
    free(t->role);
    memset(t, 0, sizeof(*t));
}

void mn_tokens_free(mn_token *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        mn_token_release(&v[i]);
    free(v);
}

static char *column_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return mn_strdup(t ? (const char *)t : "");
}

/* The row at st's COLUMNS into t. */
static void read_row(sqlite3_stmt *st, mn_token *t)
{
    t->id = sqlite3_column_int64(st, 0);
    t->name = column_text(st, 1);
    t->project = column_text(st, 2);
    t->role = column_text(st, 3);
    t->created_at = sqlite3_column_int64(st, 4);
    t->expires_at = sqlite3_column_int64(st, 5); /* NULL reads as 0: never */
    t->revoked_at = sqlite3_column_int64(st, 6);
    t->last_used_at = sqlite3_column_int64(st, 7);
}

static void bind_time(sqlite3_stmt *st, int i, int64_t ms)
{
    if (ms > 0)
        sqlite3_bind_int64(st, i, ms);
    else
        sqlite3_bind_null(st, i);
}

int mn_sqlite__token_add(mn_store *s, const mn_token *t, const char *hash_hex, int64_t *id)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO tokens(name, project, role, secret_hash, created_at, expires_at) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(name) DO NOTHING");
    int step;
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, t->project, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, t->role, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, hash_hex, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 5, t->created_at);
    bind_time(st, 6, t->expires_at);
    step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot add a token");
    if (sqlite3_changes(sq(s)->db) == 0)
        return mn_error_set(MN_EEXISTS,
                            "a token named '%s' exists already: choose another --name, or revoke "
                            "it first",
                            t->name);
    *id = sqlite3_last_insert_rowid(sq(s)->db);
    return 0;
}

int mn_sqlite__token_find(mn_store *s, const char *hash_hex, mn_token *out, char stored_hash[65])
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT " COLUMNS ", secret_hash FROM tokens WHERE secret_hash = ?1");
    int step, rc = 0;
    memset(out, 0, sizeof(*out));
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, hash_hex, -1, SQLITE_TRANSIENT);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        const unsigned char *h = sqlite3_column_text(st, 8);
        read_row(st, out);
        snprintf(stored_hash, 65, "%s", h ? (const char *)h : "");
    } else if (step == SQLITE_DONE) {
        rc = mn_error_set(MN_ENOTFOUND, "no such token");
    } else {
        rc = mn_sqlite__fail(s, "cannot read the tokens");
    }
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__token_list(mn_store *s, mn_token **out, size_t *n)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT " COLUMNS " FROM tokens ORDER BY id");
    mn_token *v = NULL;
    size_t len = 0, cap = 0;
    int step;
    *out = NULL;
    *n = 0;
    if (!st)
        return mn_error_last_code();
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (len == cap) {
            cap = cap ? 2 * cap : 8;
            v = mn_realloc(v, cap * sizeof(*v));
        }
        memset(&v[len], 0, sizeof(v[len]));
        read_row(st, &v[len++]);
    }
    sqlite3_reset(st);
    if (step != SQLITE_DONE) {
        mn_tokens_free(v, len);
        return mn_sqlite__fail(s, "cannot read the tokens");
    }
    *out = v;
    *n = len;
    return 0;
}

/* The row named `which` (or with that id) into out; MN_ENOTFOUND. */
static int find_named(mn_store *s, const char *which, mn_token *out)
{
    bool digits = *which && strspn(which, "0123456789") == strlen(which) && strlen(which) < 19;
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT " COLUMNS " FROM tokens WHERE name = ?1 OR (?2 AND id = ?3) "
                           "ORDER BY name = ?1 DESC LIMIT 1");
    int step, rc = 0;
    memset(out, 0, sizeof(*out));
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, which, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, digits);
    sqlite3_bind_int64(st, 3, digits ? strtoll(which, NULL, 10) : 0);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        read_row(st, out);
    else if (step == SQLITE_DONE)
        rc = mn_error_set(MN_ENOTFOUND,
                          "no token named '%.80s' (nor with that id): `mnemo token list` shows "
                          "them",
                          which);
    else
        rc = mn_sqlite__fail(s, "cannot read the tokens");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__token_revoke(mn_store *s, const char *which, int64_t now_ms, mn_token *out)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    mn_token t;
    int rc = find_named(s, which, &t);
    if (rc)
        return rc;
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "UPDATE tokens SET revoked_at = coalesce(revoked_at, ?1) WHERE id = ?2");
    if (!st) {
        mn_token_release(&t);
        return mn_error_last_code();
    }
    sqlite3_bind_int64(st, 1, now_ms);
    sqlite3_bind_int64(st, 2, t.id);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step != SQLITE_DONE) {
        mn_token_release(&t);
        return mn_sqlite__fail(s, "cannot revoke the token");
    }
    if (!t.revoked_at)
        t.revoked_at = now_ms;
    *out = t;
    return 0;
}

int mn_sqlite__token_touch(mn_store *s, int64_t id, int64_t now_ms)
{
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    sqlite3_stmt *st = mn_sqlite__stmt(s, "UPDATE tokens SET last_used_at = ?1 WHERE id = ?2");
    if (!st) {
        rc = mn_error_last_code();
        goto out;
    }
    sqlite3_bind_int64(st, 1, now_ms);
    sqlite3_bind_int64(st, 2, id);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot note the token's use");
    sqlite3_reset(st);
out:
    if (rc)
        mn_store_rollback(s);
    else
        rc = mn_store_commit(s);
    return rc;
}
