/*
 * pg_migrate.c - store_migrate.h on PostgreSQL: the store's projects, and
 * audit rows written at the time they carry (`mnemo migrate`).
 *
 * Projects come in byte order of their names (COLLATE "C", as SQLite
 * orders them), each with its count of memories, forgotten ones included.
 */
#include "common.h"

#include "store/postgres/pg_internal.h"

int mn_pg__projects_each(mn_store *s, int (*cb)(void *payload, const mn_project_row *p),
                         void *payload)
{
    PGresult *r = mn_pg__run(s,
                             "SELECT p.name, p.root_path, p.created_at, (SELECT count(*) FROM "
                             "memories m WHERE m.project_id = p.id) FROM projects p ORDER BY "
                             "p.name COLLATE \"C\"",
                             NULL, "cannot read the projects");
    int rc = 0;
    if (!r)
        return mn_error_last_code();
    int n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++) {
        mn_project_row p = {mn_pg__col(s, r, i, 0), mn_pg__col(s, r, i, 1),
                            mn_pg__col_int(s, r, i, 2), mn_pg__col_int(s, r, i, 3)};
        rc = cb(payload, &p);
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__audit_put(mn_store *s, int64_t ts, const char *actor, const char *action,
                     const char *target, const json_t *detail)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, ts);
    mn_pg__text(&p, actor ? actor : "unknown");
    mn_pg__text(&p, action);
    mn_pg__text(&p, target);
    mn_pg__take(&p, detail ? json_dumps(detail, JSON_COMPACT) : NULL);
    return mn_pg__exec(s,
                       "INSERT INTO audit(project_id, ts, actor, action, target, detail) VALUES "
                       "($1, $2, $3, $4, $5, $6)",
                       &p, "cannot write the audit log");
}
