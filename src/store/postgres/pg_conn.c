/*
 * pg_conn.c - the PostgreSQL back end's connection, statements, parameters
 * and errors (pg_internal.h).
 *
 * Every statement goes through mn_pg__run: prepared once per connection
 * under a name "mn<N>", cached by its SQL text in the handle's map, run
 * with text parameters (the server infers their types from the statement;
 * SQL that leaves a type open casts the parameter) and text results. A
 * connection found broken before a statement outside a transaction is
 * opened again (the prepared statements went with it, so the cache is
 * emptied); inside a transaction nothing is retried: the statement fails
 * with MN_EUNAVAILABLE and the transaction is lost as a whole.
 *
 * Errors map on SQLSTATE: 23505 (unique) -> MN_EEXISTS; 55P03 (lock not
 * available: lock_timeout, the store's busy timeout), 40001 and 40P01
 * (serialization, deadlock) -> MN_EBUSY; class 08 (connection), 57P01-3
 * (the server shutting down or not accepting connections) and a connection
 * gone bad -> MN_EUNAVAILABLE; anything else MN_EIO. Messages name the
 * store by its redacted location and never the conninfo.
 */
#include "common.h"

#include "store/postgres/pg_internal.h"

/* ---- parameters ---- */

static void param(mn_pg_params *p, const char *v, int len, int format, char *owned)
{
    if (p->n >= MN_PG_MAX_PARAMS) /* a statement of this back end has fewer: a bug */
        abort();
    p->values[p->n] = v;
    p->lengths[p->n] = len;
    p->formats[p->n] = format;
    p->owned[p->n] = owned;
    p->n++;
}

void mn_pg__take(mn_pg_params *p, char *v)
{
    param(p, v, 0, 0, v);
}

void mn_pg__text(mn_pg_params *p, const char *v)
{
    mn_pg__take(p, v ? mn_strdup(v) : NULL);
}

void mn_pg__ids(mn_pg_params *p, const int64_t *ids, size_t n)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_putc(&b, '{');
    for (size_t i = 0; i < n; i++)
        mn_buf_printf(&b, "%s%lld", i ? "," : "", (long long)ids[i]);
    mn_buf_putc(&b, '}');
    mn_pg__take(p, mn_buf_detach(&b));
}

void mn_pg__int(mn_pg_params *p, int64_t v)
{
    char *t = mn_malloc(24);
    snprintf(t, 24, "%lld", (long long)v);
    mn_pg__take(p, t);
}

void mn_pg__real(mn_pg_params *p, double v)
{
    /* %.17g: every double converts back to itself, as SQLite stores it */
    char *t = mn_malloc(32);
    snprintf(t, 32, "%.17g", v);
    mn_pg__take(p, t);
}

void mn_pg__bytes(mn_pg_params *p, const void *v, size_t n)
{
    char *copy = mn_malloc(n ? n : 1);
    if (n)
        memcpy(copy, v, n);
    param(p, copy, (int)n, 1, copy);
}

void mn_pg__params_release(mn_pg_params *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->owned[i]);
    p->n = 0;
}

/* ---- errors ---- */

static void no_notices(void *arg, const char *message)
{
    MN_UNUSED(arg);
    MN_UNUSED(message);
}

/* The first line of a libpq message, without its trailing newline. */
static void first_line(char *out, size_t n, const char *msg)
{
    size_t len = msg ? strcspn(msg, "\n") : 0;
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), msg ? msg : "");
}

static int unavailable(mn_store *s, const char *what, bool opening, const char *msg)
{
    char line[256];
    first_line(line, sizeof(line), msg);
    /* libpq's own words say which: no such host, refused, a service not defined, a password
     * refused; they never hold the password */
    return mn_error_set(MN_EUNAVAILABLE,
                        "%s %s'%s': the PostgreSQL server cannot be reached (%s); check the "
                        "location and retry when the server is up",
                        what, opening ? "" : "in ", s->path, line);
}

static int result_error(mn_store *s, PGresult *r, const char *what)
{
    const mn_pq_api *pq = pg(s)->pq;
    const char *state = r ? pq->resultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *primary = r ? pq->resultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    char line[256];
    first_line(line, sizeof(line),
               primary ? primary
               : r     ? pq->resultErrorMessage(r)
                       : pq->errorMessage(pg(s)->conn));
    if (pq->status(pg(s)->conn) == CONNECTION_BAD || (state && !strncmp(state, "08", 2)) ||
        (state && (!strcmp(state, "57P01") || !strcmp(state, "57P02") || !strcmp(state, "57P03"))))
        return unavailable(s, what, false, line);
    if (state && !strcmp(state, "23505"))
        return mn_error_set(MN_EEXISTS, "%s in '%s': it exists already (%s)", what, s->path, line);
    if (state && !strncmp(state, "23", 2)) /* a constraint, as SQLite's SQLITE_CONSTRAINT */
        return mn_error_set(MN_EINVAL, "%s in '%s': %s", what, s->path, line);
    if (state && (!strcmp(state, "55P03") || !strcmp(state, "40001") || !strcmp(state, "40P01")))
        return mn_error_set(MN_EBUSY,
                            "%s in '%s': another writer held the store past the busy timeout "
                            "(%s); retry",
                            what, s->path, line);
    return mn_error_set(MN_EIO, "%s in '%s': %s", what, s->path, line);
}

/* ---- the connection ---- */

static void forget_statements(mn_store *s)
{
    size_t pos = 0;
    const char *key;
    void *name;
    while (mn_map_next(&pg(s)->stmts, &pos, &key, &name))
        free(name);
    mn_map_release(&pg(s)->stmts); /* releasing leaves an empty map, ready for use */
}

/*
 * Session settings every connection gets (the busy timeout, quiet notices,
 * and plans made for each execution's values and the tables' sizes: after
 * five executions of a prepared statement PostgreSQL may keep a generic
 * plan, made while a table was small and blind to the values. A
 * connection that fills an empty store (an import, a migrate, a first
 * index) then kept sequential scans of memory_keys and the postings as
 * they grew: 1,000 memories imported in 46 s, 5.6 s with this; planning
 * each time costs ~0.1 ms a statement).
 */
static int setup_session(mn_store *s)
{
    char sql[200];
    snprintf(sql, sizeof(sql),
             "SET lock_timeout = %d; SET client_min_messages = warning; SET "
             "application_name = 'mnemo'; SET plan_cache_mode = force_custom_plan",
             pg(s)->lock_timeout_ms);
    PGresult *r = pg(s)->pq->exec(pg(s)->conn, sql);
    int rc = 0;
    if (pg(s)->pq->resultStatus(r) != PGRES_COMMAND_OK)
        rc = result_error(s, r, "cannot set up the connection");
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__connect(mn_store *s)
{
    const mn_pq_api *pq = pg(s)->pq;
    if (pg(s)->conn)
        pq->finish(pg(s)->conn);
    forget_statements(s);
    pg(s)->conn = pq->connectdb(pg(s)->conninfo);
    if (!pg(s)->conn)
        return mn_error_set(MN_ENOMEM, "cannot connect to '%s': out of memory", s->path);
    if (pq->status(pg(s)->conn) != CONNECTION_OK)
        return unavailable(s, "cannot open store", true, pq->errorMessage(pg(s)->conn));
    pq->setNoticeProcessor(pg(s)->conn, no_notices, NULL);
    return setup_session(s);
}

void mn_pg__disconnect(mn_store *s)
{
    forget_statements(s);
    if (pg(s)->conn)
        pg(s)->pq->finish(pg(s)->conn);
    pg(s)->conn = NULL;
}

/* ---- statements ---- */

/* One attempt of mn_pg__run; *lost tells that the connection was found broken. */
static PGresult *run_once(mn_store *s, const char *sql, mn_pg_params *p, const char *what,
                          bool *lost)
{
    const mn_pq_api *pq = pg(s)->pq;
    PGresult *r = NULL;
    *lost = false;
    /* a server restart broke the connection: open it again, between transactions only */
    if (!pg(s)->in_tx && pq->status(pg(s)->conn) == CONNECTION_BAD && mn_pg__connect(s) != 0)
        return NULL;
    const char *name = mn_map_get(&pg(s)->stmts, sql);
    if (!name) {
        char buf[24];
        snprintf(buf, sizeof(buf), "mn%u", pg(s)->next_stmt++);
        r = pq->prepare(pg(s)->conn, buf, sql, 0, NULL);
        if (pq->resultStatus(r) != PGRES_COMMAND_OK) {
            *lost = pq->status(pg(s)->conn) == CONNECTION_BAD;
            result_error(s, r, what);
            pq->clear(r);
            return NULL;
        }
        pq->clear(r);
        name = mn_strdup(buf);
        mn_map_set(&pg(s)->stmts, sql, (void *)name);
    }
    r = pq->execPrepared(pg(s)->conn, name, p->n, p->values, p->lengths, p->formats, 0);
    ExecStatusType st = pq->resultStatus(r);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        *lost = pq->status(pg(s)->conn) == CONNECTION_BAD;
        result_error(s, r, what);
        pq->clear(r);
        r = NULL;
    }
    return r;
}

PGresult *mn_pg__run(mn_store *s, const char *sql, mn_pg_params *p, const char *what)
{
    mn_pg_params none = {0};
    bool lost;
    if (!p)
        p = &none;
    /* the vectors or terms put before run first (pg_vector.c): this statement may read them */
    if (mn_pg__writes_pending(s) && mn_pg__writes_flush(s) != 0) {
        mn_pg__params_release(p);
        return NULL;
    }
    PGresult *r = run_once(s, sql, p, what, &lost);
    /* Found broken outside a transaction (a restart since the last statement): once more on
     * a new connection. Safe to repeat: outside a transaction a statement is a read or BEGIN
     * (store.h: every write is inside one). Inside one, the transaction is gone: the error
     * stands and the caller rolls back. */
    if (!r && lost && !pg(s)->in_tx)
        r = run_once(s, sql, p, what, &lost);
    mn_pg__params_release(p);
    return r;
}

/* A plain statement of the connection's own (no parameters, not prepared); 0 or -1. */
static int simple(mn_store *s, const char *sql)
{
    PGresult *r = pg(s)->pq->exec(pg(s)->conn, sql);
    int rc = pg(s)->pq->resultStatus(r) == PGRES_COMMAND_OK ? 0 : -1;
    pg(s)->pq->clear(r);
    return rc;
}

PGresult *mn_pg__run_guarded(mn_store *s, const char *sql, mn_pg_params *p, const char *what)
{
    if (!pg(s)->in_tx)
        return mn_pg__run(s, sql, p, what);
    /* what is pending is written outside the savepoint (mn_pg__run's comment) */
    if (mn_pg__writes_pending(s) && mn_pg__writes_flush(s) != 0) {
        mn_pg__params_release(p);
        return NULL;
    }
    if (simple(s, "SAVEPOINT mn_guard") != 0) {
        mn_pg__params_release(p);
        result_error(s, NULL, what);
        return NULL;
    }
    PGresult *r = mn_pg__run(s, sql, p, what);
    /* the error of the statement stays the one reported; the savepoint only keeps the
     * transaction usable, as a failed statement leaves SQLite's */
    if (simple(s, r ? "RELEASE SAVEPOINT mn_guard" : "ROLLBACK TO SAVEPOINT mn_guard") != 0 && r) {
        pg(s)->pq->clear(r);
        result_error(s, NULL, what);
        r = NULL;
    }
    return r;
}

int mn_pg__exec(mn_store *s, const char *sql, mn_pg_params *p, const char *what)
{
    PGresult *r = mn_pg__run(s, sql, p, what);
    if (!r)
        return mn_error_last_code();
    pg(s)->pq->clear(r);
    return 0;
}

int64_t mn_pg__changed(mn_store *s, PGresult *r)
{
    const char *n = pg(s)->pq->cmdTuples(r);
    return n && *n ? strtoll(n, NULL, 10) : 0;
}

const char *mn_pg__col(mn_store *s, const PGresult *r, int row, int col)
{
    if (pg(s)->pq->getisnull(r, row, col))
        return NULL;
    return pg(s)->pq->getvalue(r, row, col);
}

int64_t mn_pg__col_int(mn_store *s, const PGresult *r, int row, int col)
{
    const char *v = mn_pg__col(s, r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

bool mn_pg__col_null(mn_store *s, const PGresult *r, int row, int col)
{
    return pg(s)->pq->getisnull(r, row, col) != 0;
}
