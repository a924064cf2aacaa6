/*
 * review_store.c - store_review.h on SQLite: many memories' stored
 * fingerprints at once, for consolidation (memory/consolidate.c).
 *
 * One fixed SQL text (optional filters are "?n IS NULL OR ..." and lists
 * are bound as one JSON array read with json_each), so the statement cache
 * (mn_sqlite__stmt) holds one statement whatever the filters.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/sqlite/sqlite_internal.h"
#include "store/store_review.h"

/* A list of strings as the JSON array text json_each reads; NULL for an empty list. */
static char *json_list(const char *const *v, size_t n)
{
    if (!n)
        return NULL;
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    char *s = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return s;
}

int mn_sqlite__fingerprints_each(mn_store *s, const mn_fingerprint_filter *f,
                                 int (*cb)(void *payload, const char *uid,
                                           const mn_fingerprint *fp),
                                 void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT m.uid, f.fp FROM memories m JOIN memory_fingerprints f ON f.memory_id = m.id "
           "WHERE m.project_id = ?1 AND m.deleted_at IS NULL "
           "AND (?2 IS NULL OR m.kind IN (SELECT value FROM json_each(?2))) "
           "AND (?3 IS NULL OR m.status IN (SELECT value FROM json_each(?3))) "
           "AND m.updated_at >= ?4 ORDER BY m.updated_at DESC, m.id DESC LIMIT ?5");
    if (!st)
        return mn_error_last_code();
    char *kinds = json_list(f->kinds, f->nkinds), *statuses = json_list(f->statuses, f->nstatuses);
    sqlite3_bind_int64(st, 1, s->project_id);
    if (kinds)
        sqlite3_bind_text(st, 2, kinds, -1, free);
    if (statuses)
        sqlite3_bind_text(st, 3, statuses, -1, free);
    sqlite3_bind_int64(st, 4, f->since);
    sqlite3_bind_int64(st, 5, f->limit > 0 ? f->limit : -1);
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_fingerprint fp;
        if (sqlite3_column_bytes(st, 1) != (int)sizeof(fp))
            continue; /* made by another build: recomputed when the store is next opened */
        memcpy(&fp, sqlite3_column_blob(st, 1), sizeof(fp));
        rc = cb(payload, (const char *)sqlite3_column_text(st, 0), &fp);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the memories' fingerprints");
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}
