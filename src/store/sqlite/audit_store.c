/*
 * audit_store.c - reading the audit log, and keeping its reads bounded
 * (store.h, "audit"). Rows are written by mn_store_audit (sqlite_store.c),
 * one per change and one per answer served.
 *
 * Reading: newest first (ts, then id: two rows of one millisecond keep the
 * order they were written in), filtered by a time, an action and an actor,
 * a page at a time; the total counts every row the filters match, so a
 * reader knows how many pages there are. The detail column holds compact
 * JSON written by mnemo; a row whose detail does not parse (never written
 * so, but the file is the user's) is returned without it rather than
 * failing the whole page.
 *
 * Pruning: rows of reads (context, recall, search, search_code, resource)
 * grow with every answer, like the served table, so they are kept under the
 * same limits (config served.max_age and served.max_rows) and pruned in the
 * transaction that adds one. Rows of changes are the history of the
 * memories and are never pruned here (their number grows with what is
 * saved, not with what is read). The age limit is a range delete per read
 * action on audit_action (project_id, action, ts; schema v11), which never
 * steps over rows of changes. The row cap, like served's, runs on one add
 * in max_rows / 256: it finds the max_rows-th newest read by sorting the
 * project's read rows (at most max_rows plus that slack: the five ranges
 * of the index merged in a temporary b-tree), so its cost per add stays
 * that of sorting ~256 rows.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/store.h"
#include "store/sqlite/sqlite_internal.h"
#include "util/util.h"

/* The actions of reads: the rows mn_store_audit_prune_reads may delete. */
#define READ_ACTIONS MN_STORE_READ_ACTIONS

/* The filters, bound the same way in the count and the page (?1 project ... ?4 actor). */
#define WHERE                                                                                  \
    " WHERE project_id = ?1 AND (?2 IS NULL OR ts >= ?2) AND (?3 IS NULL OR action = ?3) AND " \
    "(?4 IS NULL OR actor = ?4)"

static void bind_filter(sqlite3_stmt *st, mn_store *s, const mn_audit_filter *f)
{
    sqlite3_bind_int64(st, 1, s->project_id);
    if (f->since_ms > 0)
        sqlite3_bind_int64(st, 2, f->since_ms);
    else
        sqlite3_bind_null(st, 2);
    if (f->action)
        sqlite3_bind_text(st, 3, f->action, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 3);
    if (f->actor)
        sqlite3_bind_text(st, 4, f->actor, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 4);
}

static json_t *row_json(sqlite3_stmt *st)
{
    char when[32];
    mn_time_format(when, sqlite3_column_int64(st, 1));
    json_t *o = json_pack("{s:I,s:s,s:s,s:s}", "id", (json_int_t)sqlite3_column_int64(st, 0),
                          "time", when, "actor", (const char *)sqlite3_column_text(st, 2), "op",
                          (const char *)sqlite3_column_text(st, 3));
    if (!o) /* not UTF-8: the store was written by something else */
        return NULL;
    const char *target = (const char *)sqlite3_column_text(st, 4);
    if (target)
        json_object_set_new(o, "target", json_string(target));
    const char *detail = (const char *)sqlite3_column_text(st, 5);
    json_t *d = detail ? json_loads(detail, 0, NULL) : NULL;
    if (d)
        json_object_set_new(o, "detail", d);
    return o;
}

/* The page's statement: ?5 limit, ?6 offset, ?7 ?8 the keyset row (ts, id). */
static const char *page_sql(const mn_audit_filter *f)
{
#define PAGE(keyset, order)                                                                   \
    "SELECT id, ts, actor, action, target, detail FROM audit" WHERE keyset " ORDER BY " order \
    " LIMIT ?5 OFFSET ?6"
    /* ts alone bounds the range on audit_ts, id breaks the ties of one millisecond */
    if (!f->after_id)
        return f->oldest_first ? PAGE("", "ts, id") : PAGE("", "ts DESC, id DESC");
    return f->oldest_first ? PAGE(" AND ts >= ?7 AND (ts > ?7 OR id > ?8)", "ts, id")
                           : PAGE(" AND ts <= ?7 AND (ts < ?7 OR id < ?8)", "ts DESC, id DESC");
#undef PAGE
}

int mn_sqlite__audit_list(mn_store *s, const mn_audit_filter *f, json_t **rows, int64_t *total)
{
    int step;
    sqlite3_stmt *st;
    *rows = NULL;
    if (total) {
        *total = 0;
        if (!(st = mn_sqlite__stmt(s, "SELECT count(*) FROM audit" WHERE)))
            return mn_error_last_code();
        bind_filter(st, s, f);
        step = sqlite3_step(st);
        if (step == SQLITE_ROW)
            *total = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
        if (step != SQLITE_ROW)
            return mn_sqlite__fail(s, "cannot read the audit log");
    }
    if (!(st = mn_sqlite__stmt(s, page_sql(f))))
        return mn_error_last_code();
    bind_filter(st, s, f);
    sqlite3_bind_int64(st, 5, f->limit > 0 ? f->limit : -1);
    sqlite3_bind_int64(st, 6, f->offset > 0 ? f->offset : 0);
    if (f->after_id) {
        sqlite3_bind_int64(st, 7, f->after_ts);
        sqlite3_bind_int64(st, 8, f->after_id);
    }
    json_t *arr = json_array();
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = row_json(st);
        if (o)
            json_array_append_new(arr, o);
    }
    sqlite3_reset(st);
    if (step != SQLITE_DONE) {
        json_decref(arr);
        return mn_sqlite__fail(s, "cannot read the audit log");
    }
    *rows = arr;
    return 0;
}

int mn_sqlite__audit_prune_reads(mn_store *s, int64_t now_ms, int64_t max_age_ms, int64_t max_rows,
                                 int64_t added)
{
    return mn_sqlite__prune(
        s, "DELETE FROM audit WHERE project_id = ?1 AND ts < ?2 AND action IN " READ_ACTIONS,
        "DELETE FROM audit WHERE project_id = ?1 AND action IN " READ_ACTIONS
        " AND (ts, id) < (SELECT ts, id FROM audit WHERE project_id = ?1 AND action "
        "IN " READ_ACTIONS " ORDER BY ts DESC, id DESC LIMIT 1 OFFSET ?2 - 1)",
        now_ms, max_age_ms, max_rows, added, "cannot forget old reads of the audit log");
}
