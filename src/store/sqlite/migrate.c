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
 *
 * The full-text indexes (schema v3) hold the terms the "mnemo" tokenizer
 * made when rows were written, and removing a row re-tokenizes its old
 * text: an index built by another version of the tokenizer would be
 * damaged by the first update. meta 'tokenizer_version' records the
 * version the indexes were built with (absent: 1, the first); a store
 * opened writable by a build of another MN_TOK_VERSION rebuilds them, once.
 *
 * A migration that rebuilds a table others reference (schema v16:
 * memories) says so with the line "-- mnemo-migration: foreign_keys off":
 * the run then happens with foreign keys off (the pragma is a no-op inside
 * a transaction, so it is set before BEGIN), since dropping the old table
 * would otherwise delete every row that references it; PRAGMA
 * foreign_key_check must find nothing before the commit, and the keys are
 * on again afterwards whatever happened.
 *
 * The first migration also sets PRAGMA application_id (sqlite_internal.h),
 * by which a mnemo store is known before anything is written to it; a
 * store made before that is known by meta 'written_by' and is given the id
 * the first time it is opened writable (one header write, once).
 */
#include "common.h"

#include "store/store.h"
#include "store/sqlite/sqlite_internal.h"
#include "text/tokenize.h"

extern const char *const mn_store_schemas[];
extern const size_t mn_store_schemas_count;

int mn_store_schema_latest(void)
{
    return (int)mn_store_schemas_count;
}

static int read_version(mn_store *s, int *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sq(s)->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return mn_error_set(MN_EIO, "cannot read the schema version of '%s': %s", s->path,
                            sqlite3_errmsg(sq(s)->db));
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (*out < 0)
        return mn_error_set(MN_EIO, "cannot read the schema version of '%s': %s", s->path,
                            sqlite3_errmsg(sq(s)->db));
    return 0;
}

/* Rebuild the full-text indexes when the tokenizer changed since they were built. */
static int check_tokenizer(mn_store *s)
{
    sqlite3_stmt *st;
    int built = 1, rc;
    char sql[400];
    if (s->read_only)
        return 0;
    if (sqlite3_prepare_v2(sq(s)->db, "SELECT value FROM meta WHERE key = 'tokenizer_version'", -1,
                           &st, NULL) != SQLITE_OK)
        return mn_error_set(MN_EIO, "cannot read '%s': %s", s->path, sqlite3_errmsg(sq(s)->db));
    if (sqlite3_step(st) == SQLITE_ROW)
        built = (int)strtol((const char *)sqlite3_column_text(st, 0), NULL, 10);
    sqlite3_finalize(st);
    if (built == MN_TOK_VERSION)
        return 0;
    if ((rc = mn_store_begin(s)) != 0)
        return rc;
    snprintf(sql, sizeof(sql),
             "INSERT INTO memories_fts(memories_fts) VALUES ('rebuild'); "
             "INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild'); "
             "INSERT INTO files_fts(files_fts) VALUES ('rebuild'); "
             "INSERT INTO history_fts(history_fts) VALUES ('rebuild'); "
             "INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer_version', '%d')",
             MN_TOK_VERSION);
    if ((rc = mn_sqlite__exec(s, sql)) != 0) {
        mn_store_rollback(s);
        return mn_error_prefix("cannot rebuild the full-text index of '%s'", s->path);
    }
    return mn_store_commit(s);
}

#define FK_OFF_MARK "-- mnemo-migration: foreign_keys off"

/* Does any migration from version to latest rebuild a referenced table? */
static int needs_fk_off(int version, int latest)
{
    for (int v = version; v < latest; v++)
        if (strstr(mn_store_schemas[v], FK_OFF_MARK))
            return 1;
    return 0;
}

/* The rows PRAGMA foreign_key_check reports: 0 when every reference holds. */
static int fk_check(mn_store *s)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sq(s)->db, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK)
        return mn_error_set(MN_EIO, "cannot check the references of '%s': %s", s->path,
                            sqlite3_errmsg(sq(s)->db));
    int rc = sqlite3_step(st);
    char table[64] = "";
    if (rc == SQLITE_ROW)
        snprintf(table, sizeof(table), "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return mn_error_set(MN_ECORRUPT, "store '%s': a row of '%s' references nothing", s->path,
                            table);
    if (rc != SQLITE_DONE)
        return mn_error_set(MN_EIO, "cannot check the references of '%s': %s", s->path,
                            sqlite3_errmsg(sq(s)->db));
    return 0;
}

/* Mark a store of the latest schema made before stores carried the application id. */
static int mark_ours(mn_store *s, int application_id)
{
    char sql[80];
    if (s->read_only || application_id == MN_STORE_APPLICATION_ID)
        return 0;
    snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", MN_STORE_APPLICATION_ID);
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_sqlite__exec(s, sql)) == 0)
        return mn_store_commit(s);
    if (rc)
        mn_store_rollback(s);
    return rc;
}

static int too_new(mn_store *s, int version, int latest)
{
    return mn_error_set(MN_EVERSION,
                        "store '%s' was written by a newer mnemo (schema %d; this mnemo knows up "
                        "to %d): upgrade mnemo",
                        s->path, version, latest);
}

int mn_sqlite__migrate(mn_store *s, int application_id)
{
    int latest = mn_store_schema_latest(), version = 0, rc, fk_off = 0;
    char sql[240];

    if ((rc = read_version(s, &version)) != 0)
        return rc;
    if (version > latest)
        return too_new(s, version, latest);
    if (version == latest) {
        s->schema_version = version;
        if ((rc = mark_ours(s, application_id)) != 0) {
            /* known by meta until a later open can write the header: not worth failing for */
            mn_log(MN_LOG_DEBUG, "cannot mark '%s' as a mnemo store: %s", s->path, mn_error_last());
            mn_error_clear();
        }
        if ((rc = check_tokenizer(s)) != 0)
            return rc;
        return mn_sqlite__fingerprints_check(s);
    }
    if (s->read_only)
        return mn_error_set(MN_EVERSION,
                            "store '%s' is at schema %d and needs migrating to %d; open it "
                            "writable once",
                            s->path, version, latest);

    fk_off = needs_fk_off(version, latest);
    if (fk_off && (rc = mn_sqlite__exec(s, "PRAGMA foreign_keys = OFF")) != 0)
        return rc;
    if ((rc = mn_store_begin(s)) != 0)
        goto out;
    if ((rc = read_version(s, &version)) != 0)
        goto fail;
    if (version > latest) {
        mn_store_rollback(s);
        rc = too_new(s, version, latest);
        goto out;
    }
    for (int v = version; v < latest; v++) {
        if ((rc = mn_sqlite__exec(s, mn_store_schemas[v])) != 0) {
            mn_error_prefix("migration to schema %d failed", v + 1);
            goto fail;
        }
    }
    snprintf(
        sql, sizeof(sql),
        "PRAGMA user_version = %d; PRAGMA application_id = %d; INSERT OR REPLACE INTO "
        "meta(key, value) VALUES ('schema_version', '%d'), ('written_by', 'mnemo " MNEMO_VERSION
        "')",
        latest, MN_STORE_APPLICATION_ID, latest);
    if ((rc = mn_sqlite__exec(s, sql)) != 0)
        goto fail;
    /* a migration through v3 built the full-text indexes with this tokenizer */
    snprintf(sql, sizeof(sql),
             "INSERT OR REPLACE INTO meta(key, value) SELECT 'tokenizer_version', '%d' WHERE %d",
             MN_TOK_VERSION, version < 3);
    if ((rc = mn_sqlite__exec(s, sql)) != 0)
        goto fail;
    if (fk_off && (rc = fk_check(s)) != 0)
        goto fail;
    if ((rc = mn_store_commit(s)) != 0)
        goto out;
    if (fk_off && (rc = mn_sqlite__exec(s, "PRAGMA foreign_keys = ON")) != 0)
        return rc;
    fk_off = 0;
    s->schema_version = latest;
    if ((rc = check_tokenizer(s)) != 0)
        return rc;
    return mn_sqlite__fingerprints_check(s);
fail:
    mn_store_rollback(s);
out:
    if (fk_off && mn_sqlite__exec(s, "PRAGMA foreign_keys = ON") != 0)
        mn_log(MN_LOG_WARN, "cannot turn the foreign keys of '%s' back on", s->path);
    return rc;
}
