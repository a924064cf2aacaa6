/*
 * pg_log.c - the PostgreSQL back end's logs of use: reading and pruning the
 * audit log, the answers served and the feedback on them (store.h "audit",
 * store_search.h "served answers and feedback"). The same statements as
 * sqlite/audit_store.c, served_store.c and search_store.c, in this dialect,
 * with the same orders (newest first by ts then id) and the same bounds.
 *
 * Pruning (config served.max_age, served.max_rows): a range delete of the
 * rows older than the cutoff (served_ts, audit_action), then, on one add in
 * max_rows / 256, the rows before the max_rows-th newest, so that a project
 * holds at most max_rows + max_rows / 256 of them (sqlite/search_store.c,
 * mn_sqlite__prune, says why).
 */
#include "common.h"

#include "store/postgres/pg_internal.h"
#include "store/store_search.h"
#include "util/util.h"

/* The actions of reads: the rows mn_store_audit_prune_reads may delete. */
#define READ_ACTIONS MN_STORE_READ_ACTIONS

/* ---- audit ---- */

/* The filters, the same in the count and the page ($1 project ... $4 actor). */
#define WHERE                                                                  \
    " WHERE project_id = $1 AND ($2::bigint IS NULL OR ts >= $2::bigint) AND " \
    "($3::text IS NULL OR action = $3::text) AND ($4::text IS NULL OR actor = $4::text)"

static void filter_params(mn_store *s, mn_pg_params *p, const mn_audit_filter *f)
{
    mn_pg__int(p, s->project_id);
    if (f->since_ms > 0)
        mn_pg__int(p, f->since_ms);
    else
        mn_pg__text(p, NULL);
    mn_pg__text(p, f->action);
    mn_pg__text(p, f->actor);
}

/* The page's statement: $5 limit, $6 offset, $7 $8 the keyset row (sqlite/audit_store.c's). */
static const char *page_sql(const mn_audit_filter *f)
{
#define PAGE(keyset, order)                                                                   \
    "SELECT id, ts, actor, action, target, detail FROM audit" WHERE keyset " ORDER BY " order \
    " LIMIT $5::bigint OFFSET $6::bigint"
    if (!f->after_id)
        return f->oldest_first ? PAGE("", "ts, id") : PAGE("", "ts DESC, id DESC");
    return f->oldest_first ? PAGE(" AND (ts, id) > ($7::bigint, $8::bigint)", "ts, id")
                           : PAGE(" AND (ts, id) < ($7::bigint, $8::bigint)", "ts DESC, id DESC");
#undef PAGE
}

int mn_pg__audit_list(mn_store *s, const mn_audit_filter *f, json_t **rows, int64_t *total)
{
    mn_pg_params p = {0};
    PGresult *r;
    *rows = NULL;
    if (total) {
        *total = 0;
        filter_params(s, &p, f);
        r = mn_pg__run(s, "SELECT count(*) FROM audit" WHERE, &p, "cannot read the audit log");
        if (!r)
            return mn_error_last_code();
        *total = mn_pg__col_int(s, r, 0, 0);
        pg(s)->pq->clear(r);
    }
    filter_params(s, &p, f);
    if (f->limit > 0)
        mn_pg__int(&p, f->limit);
    else
        mn_pg__text(&p, NULL); /* LIMIT NULL: no limit */
    mn_pg__int(&p, f->offset > 0 ? f->offset : 0);
    if (f->after_id) {
        mn_pg__int(&p, f->after_ts);
        mn_pg__int(&p, f->after_id);
    }
    r = mn_pg__run(s, page_sql(f), &p, "cannot read the audit log");
    if (!r)
        return mn_error_last_code();
    json_t *arr = json_array();
    int n = pg(s)->pq->ntuples(r);
    for (int row = 0; row < n; row++) {
        char when[32];
        mn_time_format(when, mn_pg__col_int(s, r, row, 1));
        json_t *o =
            json_pack("{s:I,s:s,s:s,s:s}", "id", (json_int_t)mn_pg__col_int(s, r, row, 0), "time",
                      when, "actor", mn_pg__col(s, r, row, 2), "op", mn_pg__col(s, r, row, 3));
        if (!o)
            continue;
        const char *target = mn_pg__col(s, r, row, 4), *detail = mn_pg__col(s, r, row, 5);
        if (target)
            json_object_set_new(o, "target", json_string(target));
        /* a detail that does not parse (never written so) leaves the row without it */
        json_t *d = detail ? json_loads(detail, 0, NULL) : NULL;
        if (d)
            json_object_set_new(o, "detail", d);
        json_array_append_new(arr, o);
    }
    pg(s)->pq->clear(r);
    *rows = arr;
    return 0;
}

static int prune(mn_store *s, const char *by_age, const char *by_count, int64_t now_ms,
                 int64_t max_age_ms, int64_t max_rows, int64_t added, const char *what)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    int64_t every = max_rows / 256 > 1 ? max_rows / 256 : 1;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0 ? max_age_ms <= 0 : max_rows <= 0 || added % every != 0)
            continue;
        mn_pg_params p = {0};
        mn_pg__int(&p, s->project_id);
        mn_pg__int(&p, pass == 0 ? now_ms - max_age_ms : max_rows);
        int rc = mn_pg__exec(s, pass == 0 ? by_age : by_count, &p, what);
        if (rc)
            return rc;
    }
    return 0;
}

int mn_pg__audit_prune_reads(mn_store *s, int64_t now_ms, int64_t max_age_ms, int64_t max_rows,
                             int64_t added)
{
    return prune(s,
                 "DELETE FROM audit WHERE project_id = $1 AND ts < $2 AND action IN " READ_ACTIONS,
                 "DELETE FROM audit WHERE project_id = $1 AND action IN " READ_ACTIONS
                 " AND (ts, id) < (SELECT ts, id FROM audit WHERE project_id = $1 AND action "
                 "IN " READ_ACTIONS " ORDER BY ts DESC, id DESC LIMIT 1 OFFSET $2::bigint - 1)",
                 now_ms, max_age_ms, max_rows, added, "cannot forget old reads of the audit log");
}

/* ---- served answers ---- */

int mn_pg__served_add(mn_store *s, int64_t *out, const char *op, const char *query,
                      const json_t *items)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, mn_time_now_ms());
    mn_pg__text(&p, op);
    mn_pg__text(&p, query);
    mn_pg__take(&p, json_dumps(items, JSON_COMPACT));
    PGresult *r = mn_pg__run(s,
                             "INSERT INTO served(project_id, ts, op, query, items) VALUES ($1, "
                             "$2, $3, $4, $5) RETURNING id",
                             &p, "cannot record what was served");
    if (!r)
        return mn_error_last_code();
    *out = mn_pg__col_int(s, r, 0, 0);
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__served_prune(mn_store *s, int64_t now_ms, int64_t max_age_ms, int64_t max_rows,
                        int64_t added)
{
    return prune(s, "DELETE FROM served WHERE project_id = $1 AND ts < $2",
                 "DELETE FROM served WHERE project_id = $1 AND (ts, id) < (SELECT ts, id FROM "
                 "served WHERE project_id = $1 ORDER BY ts DESC, id DESC LIMIT 1 OFFSET "
                 "$2::bigint - 1)",
                 now_ms, max_age_ms, max_rows, added, "cannot forget old served answers");
}

/* Row `row` of (id, op, query, ts, items, session) as {id, op, query, ts, items, session}; NULL
 * when its items are damaged. */
static json_t *answer(mn_store *s, const PGresult *r, int row)
{
    json_t *items = json_loads(mn_pg__col(s, r, row, 4), 0, NULL);
    if (!json_is_array(items)) {
        json_decref(items);
        return NULL;
    }
    char t[32];
    mn_time_format(t, mn_pg__col_int(s, r, row, 3));
    return json_pack("{s:I,s:s,s:s?,s:s,s:o,s:s?}", "id", (json_int_t)mn_pg__col_int(s, r, row, 0),
                     "op", mn_pg__col(s, r, row, 1), "query", mn_pg__col(s, r, row, 2), "ts", t,
                     "items", items, "session", mn_pg__col(s, r, row, 5));
}

int mn_pg__served_get(mn_store *s, json_t **out, int64_t id)
{
    mn_pg_params p = {0};
    *out = NULL;
    mn_pg__int(&p, id);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT id, op, query, ts, items, session FROM served WHERE id = $1 "
                             "AND project_id = $2",
                             &p, "cannot read what was served");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) == 0)
        rc = mn_error_set(MN_ENOTFOUND, "served answer %lld not found", (long long)id);
    else if (!(*out = answer(s, r, 0)))
        rc = mn_error_set(MN_ECORRUPT, "database '%s': served answer %lld is damaged", s->path,
                          (long long)id);
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__served_set_session(mn_store *s, int64_t id, const char *session)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__text(&p, session);
    mn_pg__int(&p, id);
    mn_pg__int(&p, s->project_id);
    return mn_pg__exec(s, "UPDATE served SET session = $1 WHERE id = $2 AND project_id = $3", &p,
                       "cannot record the session of an answer");
}

int mn_pg__served_session_seen(mn_store *s, const char *session, const char *op, bool *out)
{
    mn_pg_params p = {0};
    *out = false;
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, session);
    mn_pg__text(&p, op);
    PGresult *r = mn_pg__run(s,
                             "SELECT 1 FROM served WHERE project_id = $1 AND session = $2 AND op "
                             "= $3 LIMIT 1",
                             &p, "cannot read what was served");
    if (!r)
        return mn_error_last_code();
    *out = pg(s)->pq->ntuples(r) > 0;
    pg(s)->pq->clear(r);
    return 0;
}

/* cb for each answer of r (a damaged row rates nothing; the others still do). */
static int each_answer(mn_store *s, PGresult *r, int (*cb)(void *, json_t *), void *payload)
{
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int row = 0; row < n && rc == 0; row++) {
        json_t *a = answer(s, r, row);
        if (!a)
            continue;
        rc = cb(payload, a);
        json_decref(a);
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__served_open(mn_store *s, const char *session, int (*cb)(void *payload, json_t *a),
                       void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, session);
    PGresult *r = mn_pg__run(s,
                             "SELECT id, op, query, ts, items, session FROM served WHERE "
                             "project_id = $1 AND session = $2 AND settled_at IS NULL ORDER BY id",
                             &p, "cannot read what was served");
    return r ? each_answer(s, r, cb, payload) : mn_error_last_code();
}

int mn_pg__served_recent(mn_store *s, size_t limit, int (*cb)(void *payload, json_t *a),
                         void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)limit);
    PGresult *r = mn_pg__run(s,
                             "SELECT id, op, query, ts, items, session FROM served WHERE "
                             "project_id = $1 ORDER BY id DESC LIMIT $2",
                             &p, "cannot read what was served");
    return r ? each_answer(s, r, cb, payload) : mn_error_last_code();
}

int mn_pg__served_settle(mn_store *s, int64_t id, int64_t now_ms)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, now_ms);
    mn_pg__int(&p, id);
    mn_pg__int(&p, s->project_id);
    return mn_pg__exec(s, "UPDATE served SET settled_at = $1 WHERE id = $2 AND project_id = $3", &p,
                       "cannot settle an answer");
}

/* ---- feedback ---- */

int mn_pg__feedback_has(mn_store *s, int64_t served_id, const char *item_kind, const char *item_id,
                        bool *out)
{
    mn_pg_params p = {0};
    *out = false;
    mn_pg__int(&p, served_id);
    mn_pg__text(&p, item_kind);
    mn_pg__text(&p, item_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT 1 FROM feedback WHERE served_id = $1 AND item_kind = $2 AND "
                             "item_id = $3 LIMIT 1",
                             &p, "cannot read feedback");
    if (!r)
        return mn_error_last_code();
    *out = pg(s)->pq->ntuples(r) > 0;
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__feedback_add(mn_store *s, int64_t served_id, const char *actor, const char *item_kind,
                        const char *item_id, const char *signal, const char *note,
                        const char *session, const char *query)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    if (strcmp(item_kind, "memory") == 0 && strcmp(signal, "refined") != 0) {
        mn_pg__text(&p, item_id);
        mn_pg__int(&p, s->project_id);
        PGresult *r = mn_pg__run(s,
                                 strcmp(signal, "used") == 0
                                     ? "UPDATE memories SET used_count = used_count + 1 WHERE "
                                       "uid = $1 AND project_id = $2"
                                     : "UPDATE memories SET ignored_count = ignored_count + 1 "
                                       "WHERE uid = $1 AND project_id = $2",
                                 &p, "cannot count feedback");
        if (!r)
            return mn_error_last_code();
        int64_t n = mn_pg__changed(s, r);
        pg(s)->pq->clear(r);
        if (n == 0)
            return mn_error_set(MN_ENOTFOUND, "memory '%s' not found", item_id);
    }
    if (served_id > 0)
        mn_pg__int(&p, served_id);
    else
        mn_pg__text(&p, NULL);
    mn_pg__int(&p, mn_time_now_ms());
    mn_pg__text(&p, actor);
    mn_pg__text(&p, item_kind);
    mn_pg__text(&p, item_id);
    mn_pg__text(&p, signal);
    mn_pg__text(&p, note);
    mn_pg__text(&p, session);
    mn_pg__text(&p, query);
    return mn_pg__exec(s,
                       "INSERT INTO feedback(served_id, ts, actor, item_kind, item_id, signal, "
                       "note, session, query) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                       &p, "cannot record feedback");
}

static int touch_one(mn_store *s, int64_t rowid, int64_t now_ms)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, rowid);
    mn_pg__int(&p, now_ms);
    /* rows of this project only: a row id from elsewhere changes nothing */
    mn_pg__int(&p, s->project_id);
    return mn_pg__exec(s,
                       "UPDATE memories SET hit_count = hit_count + 1, accessed_at = $2 WHERE id "
                       "= $1 AND project_id = $3",
                       &p, "cannot count a hit");
}

/*
 * In a write transaction the hits are counted at once, in one statement. In a log transaction
 * (a read's record, no project lock: pg_store.c) they wait for its COMMIT:
 * counted there, a memory row locked by a writer would make the read wait
 * while it holds the rows it counted before, and a writer that then wants
 * one of those (a feedback naming several memories) would deadlock with it,
 * PostgreSQL would end one of the two, and the read would lose its record.
 * After the COMMIT each row is one statement on its own: a read then holds
 * nothing while it waits. (The one write outside a transaction: when the
 * connection breaks just after the server ran one, mn_pg__run's retry on a
 * new connection may count that hit twice - a ranking hint, never a record.)
 */
int mn_pg__memories_touch(mn_store *s, const int64_t *rowids, size_t n, int64_t now_ms)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    if (pg(s)->log_tx) {
        if (pg(s)->touch_n + n > pg(s)->touch_cap) {
            pg(s)->touch_cap = pg(s)->touch_n + n + 16;
            pg(s)->touch_ids =
                mn_realloc(pg(s)->touch_ids, pg(s)->touch_cap * sizeof(*pg(s)->touch_ids));
        }
        memcpy(pg(s)->touch_ids + pg(s)->touch_n, rowids, n * sizeof(*rowids));
        pg(s)->touch_n += n;
        pg(s)->touch_ms = now_ms;
        return 0;
    }
    if (n == 0)
        return 0;
    /* in a write transaction the rows stay locked to its end whatever the statements: one
     * statement for them all (a row named twice counts twice, as a row at a time did) */
    mn_pg_params p = {0};
    mn_pg__ids(&p, rowids, n);
    mn_pg__int(&p, now_ms);
    mn_pg__int(&p, s->project_id);
    return mn_pg__exec(s,
                       "UPDATE memories m SET hit_count = m.hit_count + h.n, accessed_at = $2 "
                       "FROM (SELECT id, count(*) AS n FROM unnest($1::bigint[]) AS id GROUP BY "
                       "id) h WHERE m.id = h.id AND m.project_id = $3",
                       &p, "cannot count a hit");
}

/*
 * The hits of a read, counted after its COMMIT: first the rows nobody holds, in one statement
 * that never waits (SKIP LOCKED: it holds only rows it took at once, so it cannot be one side
 * of a deadlock), then a row at a time those a writer held (a round trip a row was 10 of a
 * search's ~40 statements). A row named twice counts twice in both.
 */
void mn_pg__touch_after_commit(mn_store *s)
{
    size_t n = pg(s)->touch_n;
    int64_t *ids = pg(s)->touch_ids;
    pg(s)->touch_n = 0;
    if (n == 0)
        return;
    mn_pg_params p = {0};
    mn_pg__ids(&p, ids, n);
    mn_pg__int(&p, pg(s)->touch_ms);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "WITH h AS (SELECT id, count(*) AS n FROM unnest($1::bigint[]) AS id "
                             "GROUP BY id), f AS (SELECT m.id FROM memories m JOIN h ON h.id = "
                             "m.id WHERE m.project_id = $3 FOR UPDATE OF m SKIP LOCKED) UPDATE "
                             "memories m SET hit_count = m.hit_count + h.n, accessed_at = $2 "
                             "FROM h, f WHERE m.id = h.id AND m.id = f.id RETURNING m.id",
                             &p, "cannot count a hit");
    if (!r) {
        /* a hit count is a ranking hint: the answer's record is committed and stands */
        mn_log(MN_LOG_WARN, "%s", mn_error_last());
        mn_error_clear();
        return;
    }
    int done = pg(s)->pq->ntuples(r);
    for (size_t i = 0; i < n; i++) {
        bool counted = false;
        for (int k = 0; k < done && !counted; k++)
            counted = mn_pg__col_int(s, r, k, 0) == ids[i];
        if (!counted && touch_one(s, ids[i], pg(s)->touch_ms) != 0) {
            mn_log(MN_LOG_WARN, "%s", mn_error_last());
            mn_error_clear();
            break;
        }
    }
    pg(s)->pq->clear(r);
}

void mn_pg__touch_forget(mn_store *s)
{
    pg(s)->touch_n = 0;
}

/* ---- memory rows as hits (store_search.h) ---- */

int mn_pg__memories_by_uid(mn_store *s, const char *const *uids, size_t n, mn_memory_hit_cb cb,
                           void *payload)
{
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        mn_pg_params p = {0};
        mn_pg__text(&p, uids[i]);
        mn_pg__int(&p, s->project_id);
        PGresult *r = mn_pg__run(s,
                                 "SELECT " MN_PG_MEMORY_COLUMNS
                                 " FROM memories m WHERE m.uid = $1 AND m.project_id = $2",
                                 &p, "cannot read memories");
        if (!r)
            return mn_error_last_code();
        if (pg(s)->pq->ntuples(r) == 1) {
            mn_memory_hit h;
            mn_pg__memory_hit_read(s, r, 0, &h);
            rc = cb(payload, &h);
        }
        pg(s)->pq->clear(r);
    }
    return rc;
}
