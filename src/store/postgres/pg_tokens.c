/*
 * pg_tokens.c - the tokens table on PostgreSQL (store_tokens.h): the access
 * tokens of the team server, with the semantics of sqlite/token_store.c.
 *
 * Rows are global, not per project (the server looks a token up before it
 * knows the project; the token names the project it opens). A secret is
 * found by its SHA-256 through the UNIQUE index on secret_hash; the caller
 * compares the stored hash in constant time. Rows are never deleted: a
 * revoked token keeps its name for `mnemo token list` and the audit log.
 * A name taken is an answer (MN_EEXISTS), not a failed statement: the
 * insert says ON CONFLICT (name) DO NOTHING, so the caller's transaction
 * goes on as SQLite's does.
 */
#include "common.h"

#include "store/postgres/pg_internal.h"
#include "store/store_tokens.h"
#include "util/util.h"

#define COLUMNS "id, name, project, role, created_at, expires_at, revoked_at, last_used_at"

static char *col_text(mn_store *s, const PGresult *r, int row, int col)
{
    const char *t = mn_pg__col(s, r, row, col);
    return mn_strdup(t ? t : "");
}

/* Row `row` of r (COLUMNS) into t; NULL times read as 0. */
static void read_row(mn_store *s, const PGresult *r, int row, mn_token *t)
{
    t->id = mn_pg__col_int(s, r, row, 0);
    t->name = col_text(s, r, row, 1);
    t->project = col_text(s, r, row, 2);
    t->role = col_text(s, r, row, 3);
    t->created_at = mn_pg__col_int(s, r, row, 4);
    t->expires_at = mn_pg__col_int(s, r, row, 5);
    t->revoked_at = mn_pg__col_int(s, r, row, 6);
    t->last_used_at = mn_pg__col_int(s, r, row, 7);
}

static void time_param(mn_pg_params *p, int64_t ms)
{
    if (ms > 0)
        mn_pg__int(p, ms);
    else
        mn_pg__text(p, NULL);
}

int mn_pg__token_add(mn_store *s, const mn_token *t, const char *hash_hex, int64_t *id)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__text(&p, t->name);
    mn_pg__text(&p, t->project);
    mn_pg__text(&p, t->role);
    mn_pg__text(&p, hash_hex);
    mn_pg__int(&p, t->created_at);
    time_param(&p, t->expires_at);
    PGresult *r = mn_pg__run(s,
                             "INSERT INTO tokens(name, project, role, secret_hash, created_at, "
                             "expires_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO "
                             "NOTHING RETURNING id",
                             &p, "cannot add a token");
    if (!r)
        return mn_error_last_code();
    int rows = pg(s)->pq->ntuples(r);
    if (rows == 1)
        *id = mn_pg__col_int(s, r, 0, 0);
    pg(s)->pq->clear(r);
    if (rows == 0)
        return mn_error_set(MN_EEXISTS,
                            "a token named '%s' exists already: choose another --name, or revoke "
                            "it first",
                            t->name);
    return 0;
}

int mn_pg__token_find(mn_store *s, const char *hash_hex, mn_token *out, char stored_hash[65])
{
    mn_pg_params p = {0};
    memset(out, 0, sizeof(*out));
    mn_pg__text(&p, hash_hex);
    PGresult *r =
        mn_pg__run(s, "SELECT " COLUMNS ", secret_hash FROM tokens WHERE secret_hash = $1", &p,
                   "cannot read the tokens");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) == 1) {
        const char *h = mn_pg__col(s, r, 0, 8);
        read_row(s, r, 0, out);
        snprintf(stored_hash, 65, "%s", h ? h : "");
    } else {
        rc = mn_error_set(MN_ENOTFOUND, "no such token");
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__token_list(mn_store *s, mn_token **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    PGresult *r =
        mn_pg__run(s, "SELECT " COLUMNS " FROM tokens ORDER BY id", NULL, "cannot read the tokens");
    if (!r)
        return mn_error_last_code();
    int rows = pg(s)->pq->ntuples(r);
    mn_token *v = rows ? mn_calloc((size_t)rows, sizeof(*v)) : NULL;
    for (int i = 0; i < rows; i++)
        read_row(s, r, i, &v[i]);
    pg(s)->pq->clear(r);
    *out = v;
    *n = (size_t)rows;
    return 0;
}

int mn_pg__token_revoke(mn_store *s, const char *which, int64_t now_ms, mn_token *out)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    /* a name made of digits wins over the id it looks like (ORDER BY) */
    bool digits = *which && strspn(which, "0123456789") == strlen(which) && strlen(which) < 19;
    mn_pg_params p = {0};
    memset(out, 0, sizeof(*out));
    mn_pg__text(&p, which);
    mn_pg__int(&p, digits ? strtoll(which, NULL, 10) : -1);
    mn_pg__int(&p, now_ms);
    PGresult *r = mn_pg__run(s,
                             "UPDATE tokens SET revoked_at = coalesce(revoked_at, $3) WHERE id = "
                             "(SELECT id FROM tokens WHERE name = $1 OR id = $2 ORDER BY name = $1 "
                             "DESC LIMIT 1) RETURNING " COLUMNS,
                             &p, "cannot revoke the token");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) == 1)
        read_row(s, r, 0, out);
    else
        rc = mn_error_set(MN_ENOTFOUND,
                          "no token named '%.80s' (nor with that id): `mnemo token list` shows "
                          "them",
                          which);
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__token_touch(mn_store *s, int64_t id, int64_t now_ms)
{
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    mn_pg_params p = {0};
    mn_pg__int(&p, now_ms);
    mn_pg__int(&p, id);
    rc = mn_pg__exec(s, "UPDATE tokens SET last_used_at = $1 WHERE id = $2", &p,
                     "cannot note the token's use");
    if (rc)
        mn_store_rollback(s);
    else
        rc = mn_store_commit(s);
    return rc;
}
