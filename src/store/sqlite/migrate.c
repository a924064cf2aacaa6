/*
 * migrate.c - forward migrations of the SQLite store.
 *
 * Migration N is src/store/schema_v<N>.sql, embedded at build time. The
 * store's version is PRAGMA user_version. Opening a store applies every
 * newer migration inside one write transaction (BEGIN IMMEDIATE), re-reading
 * the version after taking the lock so that two processes opening an old
 * store at once migrate it once. A store written by a newer mnemo is
 * refused rather than misread. tests/data/migrations/ keeps a store made by
 * each version; tests/unit/store/test_migrate.c opens every one.
 */
#include "common.h"

#include "store/store.h"
#include "store/sqlite/sqlite_internal.h"

extern const char *const mn_store_schemas[];
extern const size_t mn_store_schemas_count;

int mn_store_schema_latest(void)
{
    return (int)mn_store_schemas_count;
}

int mn_store_schema_version(const mn_store *s)
{
    return s->schema_version;
}

static int read_version(mn_store *s, int *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return mn_error_set(MN_EIO, "cannot read the schema version of '%s': %s", s->path,
                            sqlite3_errmsg(s->db));
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (*out < 0)
        return mn_error_set(MN_EIO, "cannot read the schema version of '%s': %s", s->path,
                            sqlite3_errmsg(s->db));
    return 0;
}

int mn_sqlite__migrate(mn_store *s)
{
    int latest = mn_store_schema_latest(), version = 0, rc;
    char sql[160];

    if ((rc = read_version(s, &version)) != 0)
        return rc;
    if (version > latest)
        goto too_new;
    if (version == latest) {
        s->schema_version = version;
        return 0;
    }
    if (s->read_only)
        return mn_error_set(MN_EVERSION,
                            "store '%s' is at schema %d and needs migrating to %d; open it "
                            "writable once",
                            s->path, version, latest);

    if ((rc = mn_store_begin(s)) != 0)
        return rc;
    if ((rc = read_version(s, &version)) != 0)
        goto fail;
    if (version > latest) {
        mn_store_rollback(s);
        goto too_new;
    }
    for (int v = version; v < latest; v++) {
        if ((rc = mn_sqlite__exec(s, mn_store_schemas[v])) != 0) {
            mn_error_prefix("migration to schema %d failed", v + 1);
            goto fail;
        }
    }
    snprintf(sql, sizeof(sql),
             "PRAGMA user_version = %d; INSERT OR REPLACE INTO meta(key, value) VALUES "
             "('schema_version', '%d'), ('written_by', 'mnemo " MNEMO_VERSION "')",
             latest, latest);
    if ((rc = mn_sqlite__exec(s, sql)) != 0)
        goto fail;
    if ((rc = mn_store_commit(s)) != 0)
        return rc;
    s->schema_version = latest;
    return 0;
fail:
    mn_store_rollback(s);
    return rc;
too_new:
    return mn_error_set(MN_EVERSION,
                        "store '%s' was written by a newer mnemo (schema %d; this mnemo knows up "
                        "to %d): upgrade mnemo",
                        s->path, version, latest);
}
