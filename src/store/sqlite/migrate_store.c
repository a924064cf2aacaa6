/*
 * migrate_store.c - store_migrate.h on SQLite: the store's projects, and
 * audit rows written at the time they carry (`mnemo migrate`).
 *
 * The projects are read in byte order of their names (SQLite's default
 * collation), each with its count of memories, forgotten ones included, so
 * that migrate can refuse a target project that holds memories before it
 * opens any project there.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/sqlite/sqlite_internal.h"

int mn_sqlite__projects_each(mn_store *s, int (*cb)(void *payload, const mn_project_row *p),
                             void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT p.name, p.root_path, p.created_at, (SELECT count(*) FROM memories m WHERE "
           "m.project_id = p.id) FROM projects p ORDER BY p.name");
    int step, rc = 0;
    if (!st)
        return mn_error_last_code();
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_project_row p = {(const char *)sqlite3_column_text(st, 0),
                            (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2),
                            sqlite3_column_int64(st, 3)};
        if ((rc = cb(payload, &p)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the projects");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__audit_put(mn_store *s, int64_t ts, const char *actor, const char *action,
                         const char *target, const json_t *detail)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, "INSERT INTO audit(project_id, ts, actor, action, "
                                          "target, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_int64(st, 2, ts);
    sqlite3_bind_text(st, 3, actor ? actor : "unknown", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, action, -1, SQLITE_TRANSIENT);
    if (target)
        sqlite3_bind_text(st, 5, target, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 5);
    if (detail)
        sqlite3_bind_text(st, 6, json_dumps(detail, JSON_COMPACT), -1, free);
    else
        sqlite3_bind_null(st, 6);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot write the audit log");
}

int mn_sqlite__stream(mn_store *s)
{
    int rc = mn_sqlite__map_set(s, false);
    return rc ? rc : mn_sqlite__exec(s, "PRAGMA cache_size=-4096");
}
