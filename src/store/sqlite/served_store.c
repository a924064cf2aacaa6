/*
 * served_store.c - answers served to an agent session, and the feedback
 * that finds them (schema v8; store_search.h, "served answers and
 * feedback"). The rows themselves are written by search_store.c
 * (mn_store_served_add, mn_store_feedback_add).
 *
 * An answer served through a hook carries the agent's session id. The
 * context op asks whether the session has had one (the overview is given
 * once); implicit feedback reads the session's answers not yet settled
 * (the files the agent opens mark their items used), and settles them at
 * the session's Stop (what was never touched counts as ignored). Answers
 * are read newest first when feedback names an item without naming its
 * answer.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/store_search.h"
#include "store/sqlite/sqlite_internal.h"
#include "util/util.h"

int mn_sqlite__served_set_session(mn_store *s, int64_t id, const char *session)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "UPDATE served SET session = ?1 WHERE id = ?2 AND project_id = ?3");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, session, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_int64(st, 3, s->project_id);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot record the session of an answer");
}

int mn_sqlite__served_session_seen(mn_store *s, const char *session, const char *op, bool *out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT 1 FROM served WHERE project_id = ?1 AND "
                                          "session = ?2 AND op = ?3 LIMIT 1");
    *out = false;
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, session, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, op, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot read what was served");
    *out = step == SQLITE_ROW;
    return 0;
}

/* Each row of st (id, op, query, ts, items, session) as {id, op, query, ts, items, session}. */
static int each_answer(mn_store *s, sqlite3_stmt *st, int (*cb)(void *, json_t *), void *payload)
{
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *items = json_loads((const char *)sqlite3_column_text(st, 4), 0, NULL);
        if (!json_is_array(items)) { /* a damaged row rates nothing; the others still do */
            json_decref(items);
            continue;
        }
        char t[32];
        mn_time_format(t, sqlite3_column_int64(st, 3));
        json_t *a =
            json_pack("{s:I,s:s,s:s?,s:s,s:o,s:s?}", "id", (json_int_t)sqlite3_column_int64(st, 0),
                      "op", (const char *)sqlite3_column_text(st, 1), "query",
                      (const char *)sqlite3_column_text(st, 2), "ts", t, "items", items, "session",
                      (const char *)sqlite3_column_text(st, 5));
        rc = cb(payload, a);
        json_decref(a);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read what was served");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__served_open(mn_store *s, const char *session, int (*cb)(void *payload, json_t *a),
                           void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT id, op, query, ts, items, session FROM served WHERE project_id = ?1 AND "
           "session = ?2 AND settled_at IS NULL ORDER BY id");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, session, -1, SQLITE_STATIC);
    return each_answer(s, st, cb, payload);
}

int mn_sqlite__served_recent(mn_store *s, size_t limit, int (*cb)(void *payload, json_t *a),
                             void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT id, op, query, ts, items, session FROM served "
                                          "WHERE project_id = ?1 ORDER BY id DESC LIMIT ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)limit);
    return each_answer(s, st, cb, payload);
}

int mn_sqlite__served_settle(mn_store *s, int64_t id, int64_t now_ms)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "UPDATE served SET settled_at = ?1 WHERE id = ?2 AND project_id = ?3");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, now_ms);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_int64(st, 3, s->project_id);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot settle an answer");
}

int mn_sqlite__feedback_has(mn_store *s, int64_t served_id, const char *item_kind,
                            const char *item_id, bool *out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT 1 FROM feedback WHERE served_id = ?1 AND "
                                          "item_kind = ?2 AND item_id = ?3 LIMIT 1");
    *out = false;
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, served_id);
    sqlite3_bind_text(st, 2, item_kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, item_id, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot read feedback");
    *out = step == SQLITE_ROW;
    return 0;
}
