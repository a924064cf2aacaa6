/*
 * pg_store.c - the PostgreSQL store back end: opening (connect, know the
 * database, migrate, the project), transactions, memories, links, config
 * and the audit rows; registers mn_postgres_backend. The same semantics as
 * sqlite/sqlite_store.c, which the common tests (tests/unit/store/) hold
 * both to.
 *
 * - Knowing a database: a mnemo database has the table meta with
 *   'written_by' = 'mnemo ...'. An empty database (no table in the current
 *   schema) becomes one with opts->create; a database holding other tables
 *   and no meta is another program's, refused untouched unless opts->adopt.
 * - Migrations: src/store/postgres/schema_v<N>.sql (their own numbering,
 *   meta 'schema_version'), applied in one transaction under the advisory
 *   lock (0x6d6e6d6f, 0): concurrent openers wait and migrate once (the
 *   version is read again after taking the lock). A database of a newer
 *   mnemo is refused (MN_EVERSION).
 * - Transactions: a write transaction takes the project's advisory lock
 *   (0x6d6e6d6f, project id) at BEGIN, so the writers of one project run
 *   one after another as SQLite's BEGIN IMMEDIATE makes them (read, then
 *   write, with no other writer in between: exact-duplicate checks, the
 *   served row limit), while other projects' writers run beside them; the
 *   wait is bounded by the store's busy timeout (lock_timeout) and ends in
 *   MN_EBUSY. A log transaction (mn_store_begin_log: what a read records,
 *   served and audit rows, hits) takes no lock: reads never queue behind
 *   the project's writers. A read transaction is REPEATABLE READ, READ
 *   ONLY: one snapshot for several statements (export).
 * - Rows of one project only: every statement names s->project_id.
 */
#include "common.h"
#include <libgen.h>
#include <zlib.h>

#include "store/fields.h"
#include "store/postgres/pg_blocks.h"
#include "store/postgres/pg_index.h"
#include "store/postgres/pg_internal.h"
#include "store/postgres/pg_search.h"
#include "util/util.h"

extern const char *const mn_pg_schemas[];
extern const size_t mn_pg_schemas_count;

#define MN_EXCERPT_MAX_STORED (16u << 20) /* the bound sqlite_store.c holds a stored excerpt to */
#define MN_PG_LOCK_KEY        0x6d6e6d6f /* "mnmo": the first key of every advisory lock of mnemo */

/* ---- opening ---- */

static int schema_state(mn_store *s, int *version, bool *foreign)
{
    int rc = 0;
    *version = 0;
    *foreign = false;
    PGresult *r =
        mn_pg__run(s,
                   "SELECT to_regclass('meta') IS NOT NULL, (SELECT count(*) FROM pg_tables WHERE "
                   "schemaname = current_schema())",
                   NULL, "cannot read the database");
    if (!r)
        return mn_error_last_code();
    bool has_meta = mn_pg__col(s, r, 0, 0)[0] == 't';
    int64_t tables = mn_pg__col_int(s, r, 0, 1);
    pg(s)->pq->clear(r);
    if (!has_meta) {
        *foreign = tables > 0;
        return 0;
    }
    r = mn_pg__run(s,
                   "SELECT (SELECT value FROM meta WHERE key = 'written_by'), (SELECT value "
                   "FROM meta WHERE key = 'schema_version')",
                   NULL, "cannot read the database");
    if (!r)
        return mn_error_last_code();
    const char *by = mn_pg__col(s, r, 0, 0), *v = mn_pg__col(s, r, 0, 1);
    if (!by || strncmp(by, "mnemo", 5) != 0)
        *foreign = true;
    else
        *version = v ? (int)strtol(v, NULL, 10) : 0;
    pg(s)->pq->clear(r);
    return rc;
}

static int migrate(mn_store *s, const mn_store_options *opts)
{
    int version, rc;
    bool foreign;
    int latest = (int)mn_pg_schemas_count;
    if ((rc = schema_state(s, &version, &foreign)) != 0)
        return rc;
    if (foreign && !opts->adopt)
        return mn_error_set(MN_EINVAL,
                            "'%s' is not a mnemo store: the database holds tables of another "
                            "program; give an empty database (CREATE DATABASE ...), or run "
                            "'mnemo init' to add mnemo's tables beside them",
                            s->path);
    if (version > latest)
        return mn_error_set(MN_EVERSION,
                            "store '%s' is at PostgreSQL schema version %d, newer than this "
                            "mnemo knows (%d); upgrade mnemo",
                            s->path, version, latest);
    if (version == latest) {
        s->schema_version = version;
        return 0;
    }
    if (version == 0 && !opts->create)
        return mn_error_set(MN_ENOTFOUND,
                            "no mnemo store in '%s'; run 'mnemo init' first, or a command that "
                            "writes (mnemo save, mnemo index) to create it",
                            s->path);
    if (s->read_only)
        return mn_error_set(MN_EIO,
                            "store '%s' needs its schema upgraded from version %d to %d, and it "
                            "cannot be written: %s",
                            s->path, version, latest, s->read_only_why);
    if ((rc = mn_pg__exec(s, "BEGIN", NULL, "cannot migrate the store")) != 0)
        return rc;
    pg(s)->in_tx = true;
    mn_pg_params p = {0};
    mn_pg__int(&p, MN_PG_LOCK_KEY);
    if ((rc = mn_pg__exec(s, "SELECT pg_advisory_xact_lock($1::int, 0)", &p,
                          "cannot lock the store to migrate it")) != 0)
        goto out;
    /* another process may have migrated while this one waited for the lock */
    if ((rc = schema_state(s, &version, &foreign)) != 0)
        goto out;
    for (int v = version; v < latest; v++) {
        PGresult *r = pg(s)->pq->exec(pg(s)->conn, mn_pg_schemas[v]);
        if (pg(s)->pq->resultStatus(r) != PGRES_COMMAND_OK &&
            pg(s)->pq->resultStatus(r) != PGRES_TUPLES_OK) {
            char what[64];
            snprintf(what, sizeof(what), "cannot migrate the store to version %d", v + 1);
            rc = mn_error_set(MN_EIO, "%s in '%s': %s", what, s->path,
                              pg(s)->pq->resultErrorMessage(r));
            pg(s)->pq->clear(r);
            goto out;
        }
        pg(s)->pq->clear(r);
    }
    mn_pg__int(&p, latest);
    mn_pg__text(&p, "mnemo " MNEMO_VERSION);
    if ((rc = mn_pg__exec(s,
                          "INSERT INTO meta(key, value) VALUES ('schema_version', $1), "
                          "('written_by', $2) ON CONFLICT (key) DO UPDATE SET value = "
                          "excluded.value",
                          &p, "cannot migrate the store")) != 0)
        goto out;
    rc = mn_pg__exec(s, "COMMIT", NULL, "cannot migrate the store");
    pg(s)->in_tx = false;
    if (rc == 0)
        s->schema_version = latest;
    return rc;
out:
    mn_store_rollback(s);
    return rc;
}

static int ensure_project(mn_store *s, const char *name, const char *root)
{
    mn_pg_params p = {0};
    int rc;
    mn_pg__text(&p, name);
    PGresult *r =
        mn_pg__run(s, "SELECT id FROM projects WHERE name = $1", &p, "cannot read the projects");
    if (!r)
        return mn_error_last_code();
    if (pg(s)->pq->ntuples(r) == 1) {
        s->project_id = mn_pg__col_int(s, r, 0, 0);
        pg(s)->pq->clear(r);
        return 0;
    }
    pg(s)->pq->clear(r);
    if (s->read_only)
        return mn_error_set(MN_ENOTFOUND, "project '%s' not found in '%s'", name, s->path);
    mn_pg__text(&p, name);
    mn_pg__text(&p, root);
    mn_pg__int(&p, mn_time_now_ms());
    if ((rc = mn_pg__exec(s,
                          "INSERT INTO projects(name, root_path, created_at) VALUES ($1, $2, "
                          "$3) ON CONFLICT (name) DO NOTHING",
                          &p, "cannot create the project")) != 0)
        return rc;
    return ensure_project(s, name, root);
}

static int pg_open(mn_store **out, const char *location, const mn_store_options *opts)
{
    mn_store_options defaults = MN_STORE_OPTIONS_INIT;
    mn_store *s = NULL;
    int rc;
    *out = NULL;
    if (!opts)
        opts = &defaults;
    if (opts->version != MN_STORE_OPTIONS_VERSION)
        return mn_error_set(MN_EINVAL, "store options version %u is not supported", opts->version);
    const mn_pq_api *pq = mn_libs_pq();
    if (!pq)
        return mn_error_last_code();
    s = mn_calloc(1, sizeof(mn_pg_store));
    s->backend = &mn_postgres_backend;
    s->path = mn_store_redact(location);
    pg(s)->pq = pq;
    pg(s)->conninfo = mn_strdup(location);
    pg(s)->lock_timeout_ms = opts->busy_timeout_ms > 0 ? opts->busy_timeout_ms : 10000;
    if ((rc = mn_pg__connect(s)) != 0)
        goto fail;
    if (opts->read_only) {
        s->read_only_why = "the store was opened read-only";
    } else {
        /* a hot standby (a read replica) answers queries and refuses every write */
        PGresult *r = mn_pg__run(s, "SELECT pg_is_in_recovery()", NULL, "cannot open store");
        if (!r) {
            rc = mn_error_last_code();
            goto fail;
        }
        if (mn_pg__col(s, r, 0, 0)[0] == 't')
            s->read_only_why = "the PostgreSQL server is a read-only replica";
        pq->clear(r);
    }
    s->read_only = s->read_only_why != NULL;
    if ((rc = migrate(s, opts)) != 0 || (rc = mn_pg__fingerprints_check(s)) != 0 ||
        (rc = mn_pg__postings_check(s)) != 0 || (rc = mn_pg__blocks_check(s)) != 0)
        goto fail;
    {
        char *copy = mn_strdup(opts->root_path ? opts->root_path : "default");
        const char *name = opts->project     ? opts->project
                           : opts->root_path ? basename(copy)
                                             : "default";
        /* no project: project_id 0 matches no row (ids start at 1) */
        rc = opts->any_project ? 0 : ensure_project(s, name, opts->root_path);
        free(copy);
        if (rc)
            goto fail;
    }
    *out = s;
    return 0;
fail:
    mn_store_free(s);
    return rc;
}

static void pg_close(mn_store *s)
{
    mn_pg__disconnect(s);
    free(pg(s)->touch_ids);
    mn_pg__writes_free(s);
    free(pg(s)->conninfo);
    free(pg(s)->insert_sql);
    free(pg(s)->replace_sql);
    free(pg(s)->select_sql);
    free(s->path);
    free(s);
}

/* ---- transactions ---- */

static int pg_begin(mn_store *s)
{
    MN_ASSERT_OR(!pg(s)->in_tx, MN_EINTERNAL);
    if (s->read_only)
        return mn_error_set(MN_EIO, "store '%s' cannot be written: %s", s->path,
                            s->read_only_why ? s->read_only_why : "it was opened read-only");
    int rc = mn_pg__exec(s, "BEGIN", NULL, "cannot begin a transaction");
    if (rc)
        return rc;
    pg(s)->in_tx = true;
    mn_pg_params p = {0};
    mn_pg__int(&p, MN_PG_LOCK_KEY);
    mn_pg__int(&p, s->project_id);
    /* one writer per project at a time (the file comment says why); the key is an int pair */
    if ((rc = mn_pg__exec(s, "SELECT pg_advisory_xact_lock($1::int, $2::int)", &p,
                          "cannot lock the store for writing")) != 0)
        mn_store_rollback(s);
    return rc;
}

/*
 * A log transaction (store.h, mn_store_begin_log): what a read records - the
 * served row, its audit row, their pruning, the hits. No project lock: those
 * are appends and range deletes of old rows that no writer reads then
 * writes, so they need no writer's order, and a read must not queue behind
 * the project's writers (the model's trainer held the lock for seconds while
 * it wrote the vectors: every search and context waited behind it,
 * docs/internals/load.md). Two of them at once each keep at least max_rows
 * rows when they prune. The hits are counted after the COMMIT (pg_log.c).
 */
static int pg_begin_log(mn_store *s)
{
    MN_ASSERT_OR(!pg(s)->in_tx, MN_EINTERNAL);
    if (s->read_only)
        return mn_error_set(MN_EIO, "store '%s' cannot be written: %s", s->path,
                            s->read_only_why ? s->read_only_why : "it was opened read-only");
    int rc = mn_pg__exec(s, "BEGIN", NULL, "cannot begin a transaction");
    if (rc == 0) {
        pg(s)->in_tx = true;
        pg(s)->log_tx = true;
    }
    return rc;
}

static int pg_begin_read(mn_store *s)
{
    MN_ASSERT_OR(!pg(s)->in_tx, MN_EINTERNAL);
    int rc = mn_pg__exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", NULL,
                         "cannot begin a read transaction");
    if (rc == 0) {
        pg(s)->in_tx = true;
        if (++pg(s)->read_tx_seq == 0)
            pg(s)->read_tx_seq = 1;
        pg(s)->read_tx = pg(s)->read_tx_seq;
    }
    return rc;
}

static int pg_commit(mn_store *s)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    int rc = mn_pg__exec(s, "COMMIT", NULL, "cannot commit");
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    pg(s)->in_tx = false;
    pg(s)->log_tx = false;
    pg(s)->read_tx = 0;
    mn_pg__touch_after_commit(s);
    return 0;
}

static void pg_rollback(mn_store *s)
{
    if (!pg(s)->in_tx)
        return;
    const mn_pq_api *pq = pg(s)->pq;
    if (pq->status(pg(s)->conn) == CONNECTION_OK &&
        pq->transactionStatus(pg(s)->conn) != PQTRANS_IDLE)
        pq->clear(pq->exec(pg(s)->conn, "ROLLBACK"));
    pg(s)->in_tx = false;
    pg(s)->log_tx = false;
    pg(s)->read_tx = 0;
    mn_pg__touch_forget(s);
    mn_pg__writes_forget(s);
}

/*
 * PostgreSQL enforces its constraints as it writes (SQLite's integrity and
 * foreign key checks have nothing to find here): the check is that the
 * server answers and the store's schema is the one this mnemo expects.
 */
static int pg_check(mn_store *s)
{
    PGresult *r = mn_pg__run(s, "SELECT value FROM meta WHERE key = 'schema_version'", NULL,
                             "cannot check the store");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    const char *v = pg(s)->pq->ntuples(r) == 1 ? mn_pg__col(s, r, 0, 0) : NULL;
    if (!v || strtol(v, NULL, 10) != s->schema_version)
        rc = mn_error_set(MN_ECORRUPT, "store '%s' failed its check: schema version %s, not %d",
                          s->path, v ? v : "missing", s->schema_version);
    pg(s)->pq->clear(r);
    return rc;
}

/* ---- memories ---- */

static int bind_field(mn_pg_params *p, const mn_field *f, const json_t *v)
{
    switch (f->type) {
    case MN_F_TEXT:
        mn_pg__text(p, json_string_value(v));
        break;
    case MN_F_STRV:
        mn_pg__take(p, json_is_array(v) && json_array_size(v) > 0
                           ? json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII)
                           : NULL);
        break;
    case MN_F_LEVEL: {
        const char *l = json_string_value(v);
        mn_pg__int(p, l && l[0] == 'L' && l[1] >= '0' && l[1] <= '3' ? l[1] - '0' : 2);
        break;
    }
    case MN_F_REAL:
        if (json_is_number(v))
            mn_pg__real(p, json_number_value(v));
        else
            mn_pg__text(p, NULL);
        break;
    case MN_F_COUNT:
        mn_pg__int(p, json_is_integer(v) ? json_integer_value(v) : 0);
        break;
    case MN_F_TIME: {
        int64_t ms;
        if (json_is_string(v) && mn_time_parse(&ms, json_string_value(v)) == 0)
            mn_pg__int(p, ms);
        else if (v && !json_is_null(v))
            return mn_error_set(MN_EINVAL, "field '%s' must be an RFC 3339 time", f->key);
        else
            mn_pg__text(p, NULL);
        break;
    }
    case MN_F_EXCERPT: {
        const char *txt = json_string_value(v);
        if (!txt || !*txt) {
            mn_pg__text(p, NULL);
            mn_pg__text(p, NULL);
            break;
        }
        size_t len = strlen(txt);
        uLongf clen = compressBound(len);
        Bytef *z = mn_malloc(clen);
        if (compress2(z, &clen, (const Bytef *)txt, len, 6) != Z_OK) {
            free(z);
            return mn_error_set(MN_EINTERNAL, "cannot compress a conversation excerpt");
        }
        mn_pg__bytes(p, z, clen);
        free(z);
        mn_pg__int(p, (int64_t)len);
        break;
    }
    case MN_F_OBJECT:
        mn_pg__take(p, json_is_object(v) ? json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL);
        break;
    }
    return 0;
}

/* SQL text for the field columns, built once from the table (as sqlite_store.c's build_sql). */
static void build_sql(mn_store *s)
{
    if (pg(s)->insert_sql)
        return;
    mn_field_sql f;
    mn_field_sql_build(&f, '$');
    int n = f.params + 1;
    mn_buf ins = MN_BUF_INIT, rep = MN_BUF_INIT, get = MN_BUF_INIT;
    mn_buf_printf(&ins,
                  "INSERT INTO memories (%suid, project_id, content_hash, saved_at) "
                  "VALUES (%s$%d, $%d, $%d, $%d) RETURNING id",
                  f.cols.ptr, f.vals.ptr, n, n + 1, n + 2, n + 3);
    mn_buf_printf(&rep,
                  "UPDATE memories SET %scontent_hash = $%d WHERE uid = $%d AND project_id = "
                  "$%d RETURNING id",
                  f.sets.ptr, n + 2, n, n + 1);
    mn_buf_printf(&get, "SELECT %sid, uid FROM memories", f.cols.ptr);
    pg(s)->insert_sql = mn_buf_detach(&ins);
    pg(s)->replace_sql = mn_buf_detach(&rep);
    pg(s)->select_sql = mn_buf_detach(&get);
    pg(s)->field_params = f.params;
    mn_field_sql_release(&f);
}

static int bind_memory(mn_store *s, mn_pg_params *p, const json_t *mem, bool insert)
{
    int rc;
    for (size_t i = 0; i < mn_memory_field_count; i++)
        if ((rc = bind_field(p, &mn_memory_fields[i], mn_field_get(mem, &mn_memory_fields[i]))))
            return rc;
    char hash[17];
    mn_store_content_hash(hash, mem);
    mn_pg__text(p, json_string_value(json_object_get(mem, "id")));
    mn_pg__int(p, s->project_id);
    mn_pg__text(p, hash);
    if (insert) /* saved_at: when this store took the memory in */
        mn_pg__int(p, mn_time_now_ms());
    return 0;
}

static int64_t memory_rowid(mn_store *s, const char *id)
{
    mn_pg_params p = {0};
    mn_pg__text(&p, id);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s, "SELECT id FROM memories WHERE uid = $1 AND project_id = $2", &p,
                             "cannot read a memory");
    if (!r)
        return -1;
    int64_t rowid = pg(s)->pq->ntuples(r) == 1 ? mn_pg__col_int(s, r, 0, 0) : 0;
    pg(s)->pq->clear(r);
    if (rowid == 0)
        mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    return rowid;
}

/* Side tables that mirror list fields: tags, scope paths, citations. */
static int write_side_tables(mn_store *s, int64_t rowid, const json_t *mem)
{
    int fprc = mn_pg__fingerprint_put(s, rowid, mem);
    if (fprc)
        return fprc;
    static const char *const del[] = {
        "DELETE FROM memory_tags WHERE memory_id = $1",
        "DELETE FROM memory_paths WHERE memory_id = $1",
        "DELETE FROM citations WHERE memory_id = $1",
    };
    mn_pg_params p = {0};
    int rc;
    for (size_t i = 0; i < MN_ARRAY_SIZE(del); i++) {
        mn_pg__int(&p, rowid);
        if ((rc = mn_pg__exec(s, del[i], &p, "cannot update a memory")) != 0)
            return rc;
    }
    const json_t *scope = json_object_get(mem, "scope");
    struct {
        const char *key, *sql;
    } lists[] = {
        {"tags", "INSERT INTO memory_tags(tag, memory_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"},
        {"paths",
         "INSERT INTO memory_paths(path, memory_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"},
    };
    for (size_t l = 0; l < MN_ARRAY_SIZE(lists); l++) {
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(scope, lists[l].key), i, v)
        {
            mn_pg__text(&p, json_string_value(v));
            mn_pg__int(&p, rowid);
            if ((rc = mn_pg__exec(s, lists[l].sql, &p, "cannot store a memory")) != 0)
                return rc;
        }
    }
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(mem, "citations"), i, c)
    {
        /* as sqlite_store.c: a citation whose file was indexed again since it was checked
         * (or never checked) waits for the next check; this schema has no files table yet,
         * so "indexed since" is never true and only the other two cases mark it dirty */
        json_t *sl = json_object_get(c, "start_line"), *el = json_object_get(c, "end_line");
        const char *stale = json_string_value(json_object_get(c, "stale"));
        const char *ct = json_string_value(json_object_get(c, "checked_at"));
        const char *hash = json_string_value(json_object_get(c, "hash"));
        int64_t checked = 0;
        bool has_checked = ct && mn_time_parse(&checked, ct) == 0;
        int stale_n = !stale ? 0 : !strcmp(stale, "gone") ? 2 : 1;
        mn_pg__int(&p, rowid);
        mn_pg__int(&p, (int64_t)i);
        mn_pg__text(&p, json_string_value(json_object_get(c, "path")));
        mn_pg__text(&p, json_string_value(json_object_get(c, "symbol")));
        if (json_is_integer(sl))
            mn_pg__int(&p, json_integer_value(sl));
        else
            mn_pg__text(&p, NULL);
        if (json_is_integer(el))
            mn_pg__int(&p, json_integer_value(el));
        else
            mn_pg__text(&p, NULL);
        mn_pg__text(&p, hash);
        mn_pg__text(&p, json_string_value(json_object_get(c, "text")));
        mn_pg__int(&p, stale_n);
        if (has_checked)
            mn_pg__int(&p, checked);
        else
            mn_pg__text(&p, NULL);
        mn_pg__int(&p, !has_checked ? 1 : (stale_n == 0 && hash != NULL) ? 1 : 0);
        if ((rc = mn_pg__exec(s,
                              "INSERT INTO citations(memory_id, seq, path, symbol, start_line, "
                              "end_line, content_hash, text, stale, checked_at, dirty) VALUES "
                              "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                              &p, "cannot store a citation")) != 0)
            return rc;
    }
    /* the full-text index, as SQLite's triggers keep memories_fts (pg_postings.c) */
    return mn_pg__postings_memory(s, rowid);
}

static int pg_memory_insert(mn_store *s, const json_t *mem)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    const char *id = json_string_value(json_object_get(mem, "id"));
    MN_ASSERT_OR(id != NULL, MN_EINTERNAL);
    build_sql(s);
    mn_pg_params p = {0};
    int rc = bind_memory(s, &p, mem, true);
    if (rc) {
        mn_pg__params_release(&p);
        return rc;
    }
    PGresult *r = mn_pg__run_guarded(s, pg(s)->insert_sql, &p, "cannot store memory");
    if (!r) {
        if (mn_error_last_code() == MN_EEXISTS)
            return mn_error_set(MN_EEXISTS, "memory '%s' exists already", id);
        return mn_error_last_code();
    }
    int64_t rowid = mn_pg__col_int(s, r, 0, 0);
    pg(s)->pq->clear(r);
    return write_side_tables(s, rowid, mem);
}

static int pg_memory_replace(mn_store *s, const json_t *mem)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    const char *id = json_string_value(json_object_get(mem, "id"));
    MN_ASSERT_OR(id != NULL, MN_EINTERNAL);
    build_sql(s);
    mn_pg_params p = {0};
    int rc = bind_memory(s, &p, mem, false);
    if (rc) {
        mn_pg__params_release(&p);
        return rc;
    }
    PGresult *r = mn_pg__run_guarded(s, pg(s)->replace_sql, &p, "cannot update memory");
    if (!r)
        return mn_error_last_code();
    int64_t rowid = pg(s)->pq->ntuples(r) == 1 ? mn_pg__col_int(s, r, 0, 0) : 0;
    pg(s)->pq->clear(r);
    if (!rowid)
        return mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    return write_side_tables(s, rowid, mem);
}

/* hex digit -> its value + 1 (0: not one), as bytea's text form writes them (lower case) */
static const unsigned char HEX[256] = {
    ['0'] = 1, ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

unsigned char *mn_pg__unhex(const char *t, size_t *n)
{
    if (!t || t[0] != '\\' || t[1] != 'x')
        return NULL;
    t += 2;
    size_t len = strlen(t);
    if (len % 2)
        return NULL;
    unsigned char *out = mn_malloc(len / 2 + 1);
    const unsigned char *u = (const unsigned char *)t;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = HEX[u[2 * i]], lo = HEX[u[2 * i + 1]];
        if (!hi || !lo) {
            free(out);
            return NULL;
        }
        out[i] = (unsigned char)((hi - 1) << 4 | (lo - 1));
    }
    *n = len / 2;
    return out;
}

static json_t *column_json(mn_store *s, const PGresult *r, int row, int *col, const mn_field *f)
{
    int i = (*col)++;
    const char *t = mn_pg__col(s, r, row, i);
    switch (f->type) {
    case MN_F_TEXT:
        return t ? json_stringn(t, (size_t)pg(s)->pq->getlength(r, row, i)) : NULL;
    case MN_F_STRV:
    case MN_F_OBJECT: {
        if (!t)
            return NULL;
        json_t *v = json_loadb(t, (size_t)pg(s)->pq->getlength(r, row, i), 0, NULL);
        if (f->type == MN_F_STRV ? !json_is_array(v) : !json_is_object(v)) {
            json_decref(v);
            mn_error_set(MN_ECORRUPT, "database '%s': column %s is not a JSON %s", s->path,
                         f->column, f->type == MN_F_STRV ? "array" : "object");
            return NULL;
        }
        return v;
    }
    case MN_F_LEVEL: {
        char l[3] = {'L', (char)('0' + (mn_pg__col_int(s, r, row, i) & 3)), 0};
        return json_string(l);
    }
    case MN_F_REAL:
        return t ? json_real(strtod(t, NULL)) : NULL;
    case MN_F_COUNT:
        return json_integer(mn_pg__col_int(s, r, row, i));
    case MN_F_TIME: {
        if (!t)
            return NULL;
        char ts[32];
        mn_time_format(ts, strtoll(t, NULL, 10));
        return json_string(ts);
    }
    case MN_F_EXCERPT: {
        int j = (*col)++;
        if (!t)
            return NULL;
        int64_t len = mn_pg__col_int(s, r, row, j);
        size_t zn = 0;
        unsigned char *z = mn_pg__unhex(t, &zn);
        json_t *v = NULL;
        if (z && len > 0 && len <= (int64_t)MN_EXCERPT_MAX_STORED) {
            uLongf out_len = (uLongf)len;
            Bytef *raw = mn_malloc((size_t)len + 1);
            if (uncompress(raw, &out_len, z, (uLong)zn) == Z_OK && out_len == (uLongf)len)
                v = json_stringn((const char *)raw, (size_t)len);
            free(raw);
        }
        free(z);
        if (!v)
            mn_error_set(MN_ECORRUPT, "database '%s': a conversation excerpt is damaged", s->path);
        return v;
    }
    }
    return NULL;
}

/*
 * The citations and links of a page of memories: two statements for the
 * page, not two per memory (a round trip each), ordered by memory so that
 * each memory's rows are one run found by binary search.
 */
typedef struct {
    PGresult *cit;   /* memory_id, path, symbol, start_line, end_line, hash, text, stale, checked */
    PGresult *links; /* src_id, kind, to, note, created_at */
} extras;

static void extras_release(mn_store *s, extras *e)
{
    if (e->cit)
        pg(s)->pq->clear(e->cit);
    if (e->links)
        pg(s)->pq->clear(e->links);
    memset(e, 0, sizeof(*e));
}

static int extras_load(mn_store *s, extras *e, const int64_t *ids, size_t n)
{
    mn_pg_params p = {0};
    memset(e, 0, sizeof(*e));
    mn_pg__ids(&p, ids, n);
    e->cit = mn_pg__run(s,
                        "SELECT memory_id, path, symbol, start_line, end_line, content_hash, text, "
                        "stale, checked_at FROM citations WHERE memory_id = ANY($1) ORDER BY "
                        "memory_id, seq",
                        &p, "cannot read citations");
    if (!e->cit)
        return mn_error_last_code();
    mn_pg__ids(&p, ids, n);
    e->links = mn_pg__run(s,
                          "SELECT l.src_id, l.kind, coalesce(m.uid, l.dst_ref), l.note, "
                          "l.created_at FROM links l LEFT JOIN memories m ON m.id = "
                          "l.dst_memory_id WHERE l.src_id = ANY($1) ORDER BY l.src_id, l.id",
                          &p, "cannot read links");
    if (!e->links) {
        extras_release(s, e);
        return mn_error_last_code();
    }
    return 0;
}

/* The first row of r whose column 0 is rowid (rows ascending by it), or the row count. */
static int first_row_of(mn_store *s, const PGresult *r, int64_t rowid)
{
    int lo = 0, hi = pg(s)->pq->ntuples(r);
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (mn_pg__col_int(s, r, mid, 0) < rowid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void attach_citations(mn_store *s, const PGresult *r, json_t *mem, int64_t rowid)
{
    int n = pg(s)->pq->ntuples(r), row = first_row_of(s, r, rowid);
    json_t *arr = NULL;
    for (; row < n && mn_pg__col_int(s, r, row, 0) == rowid; row++) {
        json_t *c = json_object();
        const char *v;
        json_object_set_new(c, "path", json_string(mn_pg__col(s, r, row, 1)));
        if ((v = mn_pg__col(s, r, row, 2)))
            json_object_set_new(c, "symbol", json_string(v));
        if (!mn_pg__col_null(s, r, row, 3))
            json_object_set_new(c, "start_line", json_integer(mn_pg__col_int(s, r, row, 3)));
        if (!mn_pg__col_null(s, r, row, 4))
            json_object_set_new(c, "end_line", json_integer(mn_pg__col_int(s, r, row, 4)));
        if ((v = mn_pg__col(s, r, row, 5)))
            json_object_set_new(c, "hash", json_string(v));
        if ((v = mn_pg__col(s, r, row, 6)))
            json_object_set_new(c, "text", json_string(v));
        int64_t stale = mn_pg__col_int(s, r, row, 7);
        if (stale)
            json_object_set_new(c, "stale", json_string(stale == 2 ? "gone" : "changed"));
        if (!mn_pg__col_null(s, r, row, 8)) {
            char t[32];
            mn_time_format(t, mn_pg__col_int(s, r, row, 8));
            json_object_set_new(c, "checked_at", json_string(t));
        }
        if (!arr)
            arr = json_array();
        json_array_append_new(arr, c);
    }
    if (arr)
        json_object_set_new(mem, "citations", arr);
}

static void attach_links(mn_store *s, const PGresult *r, json_t *mem, int64_t rowid)
{
    int n = pg(s)->pq->ntuples(r), row = first_row_of(s, r, rowid);
    json_t *arr = NULL;
    for (; row < n && mn_pg__col_int(s, r, row, 0) == rowid; row++) {
        json_t *l = json_object();
        char t[32];
        const char *note = mn_pg__col(s, r, row, 3);
        json_object_set_new(l, "kind", json_string(mn_pg__col(s, r, row, 1)));
        json_object_set_new(l, "to", json_string(mn_pg__col(s, r, row, 2)));
        if (note)
            json_object_set_new(l, "note", json_string(note));
        mn_time_format(t, mn_pg__col_int(s, r, row, 4));
        json_object_set_new(l, "created_at", json_string(t));
        if (!arr)
            arr = json_array();
        json_array_append_new(arr, l);
    }
    if (arr)
        json_object_set_new(mem, "links", arr);
}

/*
 * One row of select_sql to canonical JSON without its citations and links
 * (attach_citations, attach_links); *rowid: its memories.id.
 */
static int row_to_json(mn_store *s, const PGresult *r, int row, json_t **out, int64_t *rowid)
{
    json_t *mem = json_object();
    int col = 0;
    json_object_set_new(mem, "id", json_null()); /* keep "id" first */
    mn_error_clear();
    for (size_t i = 0; i < mn_memory_field_count; i++) {
        const mn_field *f = &mn_memory_fields[i];
        json_t *v = column_json(s, r, row, &col, f);
        if (!v) {
            if (mn_error_last_code() == MN_ECORRUPT) {
                json_decref(mem);
                return MN_ECORRUPT;
            }
            continue;
        }
        if (json_is_array(v) && json_array_size(v) == 0) {
            json_decref(v);
            continue;
        }
        mn_field_set(mem, f, v);
    }
    *rowid = mn_pg__col_int(s, r, row, col);
    json_object_set_new(mem, "id", json_string(mn_pg__col(s, r, row, col + 1)));
    *out = mem;
    return 0;
}

/*
 * Every row of a result of select_sql as canonical JSON, with citations and
 * links, each passed to cb in the result's order; *last: the id of the last
 * row (MN_ID_LEN + 1 bytes), for the next page.
 */
static int rows_each(mn_store *s, const PGresult *r, int (*cb)(void *payload, json_t *mem),
                     void *payload, char *last)
{
    int n = pg(s)->pq->ntuples(r), rc = 0, row;
    json_t **mems = mn_calloc((size_t)n + 1, sizeof(*mems));
    int64_t *ids = mn_calloc((size_t)n + 1, sizeof(*ids));
    extras e = {0};
    for (row = 0; row < n && rc == 0; row++)
        rc = row_to_json(s, r, row, &mems[row], &ids[row]);
    if (rc == 0 && n)
        rc = extras_load(s, &e, ids, (size_t)n);
    for (row = 0; row < n && rc == 0; row++) {
        attach_citations(s, e.cit, mems[row], ids[row]);
        attach_links(s, e.links, mems[row], ids[row]);
        if (last)
            snprintf(last, MN_ID_LEN + 1, "%s",
                     json_string_value(json_object_get(mems[row], "id")));
        rc = cb(payload, mems[row]);
    }
    for (row = 0; row < n; row++)
        json_decref(mems[row]);
    extras_release(s, &e);
    free(mems);
    free(ids);
    return rc;
}

static int take_one(void *payload, json_t *mem)
{
    *(json_t **)payload = json_incref(mem);
    return 0;
}

static int pg_memory_get(mn_store *s, json_t **out, const char *id)
{
    mn_buf sql = MN_BUF_INIT;
    mn_pg_params p = {0};
    int rc;
    *out = NULL;
    build_sql(s);
    mn_buf_printf(&sql, "%s WHERE uid = $1 AND project_id = $2", pg(s)->select_sql);
    mn_pg__text(&p, id);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot read memory");
    mn_buf_release(&sql);
    if (!r)
        return mn_error_last_code();
    if (pg(s)->pq->ntuples(r) == 0)
        rc = mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    else
        rc = rows_each(s, r, take_one, out, NULL);
    pg(s)->pq->clear(r);
    return rc;
}

static int pg_memory_resolve(mn_store *s, char out[MN_ID_LEN + 1], const char *prefix)
{
    size_t n = strlen(prefix);
    char upper[MN_ID_LEN + 1];
    if (!mn_id_is_prefix(prefix))
        return mn_error_set(MN_EINVAL, "'%.60s' is not a memory id", prefix);
    for (size_t i = 0; i <= n; i++) /* ids are stored upper-case; Crockford is case-blind */
        upper[i] = prefix[i] >= 'a' && prefix[i] <= 'z' ? (char)(prefix[i] - 'a' + 'A') : prefix[i];
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, upper);
    /* byte order (COLLATE "C", the index memories_uid_prefix): '~' sorts after every id digit */
    PGresult *r = mn_pg__run(s,
                             "SELECT uid FROM memories WHERE project_id = $1 AND uid COLLATE "
                             "\"C\" >= $2 AND uid COLLATE \"C\" < $2 || '~' ORDER BY uid COLLATE "
                             "\"C\" LIMIT 2",
                             &p, "cannot look up memory");
    if (!r)
        return mn_error_last_code();
    int rows = pg(s)->pq->ntuples(r), found = 0;
    for (int row = 0; row < rows; row++) {
        const char *uid = mn_pg__col(s, r, row, 0);
        if (found == 0)
            snprintf(out, MN_ID_LEN + 1, "%s", uid);
        if (strcmp(uid, upper) == 0) { /* an exact id wins over longer ones */
            snprintf(out, MN_ID_LEN + 1, "%s", uid);
            found = 1;
            break;
        }
        found++;
    }
    pg(s)->pq->clear(r);
    if (found == 0)
        return mn_error_set(MN_ENOTFOUND, "memory '%s' not found", upper);
    if (found > 1)
        return mn_error_set(MN_EAMBIGUOUS, "memory id '%s' is ambiguous: give more characters",
                            upper);
    return 0;
}

static int pg_memory_find_hash(mn_store *s, char out[MN_ID_LEN + 1], const char *hash)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, hash);
    PGresult *r = mn_pg__run(s,
                             "SELECT uid FROM memories WHERE project_id = $1 AND content_hash = "
                             "$2 AND deleted_at IS NULL ORDER BY uid COLLATE \"C\" LIMIT 1",
                             &p, "cannot look up memory");
    if (!r)
        return mn_error_last_code();
    int rc = MN_ENOTFOUND;
    if (pg(s)->pq->ntuples(r) == 1) {
        snprintf(out, MN_ID_LEN + 1, "%s", mn_pg__col(s, r, 0, 0));
        rc = 0;
    }
    pg(s)->pq->clear(r);
    return rc;
}

/* WHERE clause and parameters of a filter (sqlite_store.c's filter_sql, in this dialect). */
static void filter_sql(mn_store *s, mn_buf *sql, mn_pg_params *p, const mn_memory_filter *f)
{
    mn_pg__int(p, s->project_id);
    mn_buf_puts(sql, " WHERE project_id = $1");
    if (f->only_deleted)
        mn_buf_puts(sql, " AND deleted_at IS NOT NULL");
    else if (!f->include_deleted)
        mn_buf_puts(sql, " AND deleted_at IS NULL");
    if (f->kind) {
        mn_pg__text(p, f->kind);
        mn_buf_printf(sql, " AND kind = $%d", p->n);
    }
    if (f->level >= 0) {
        mn_pg__int(p, f->level);
        mn_buf_printf(sql, " AND level = $%d", p->n);
    }
    if (f->status) {
        mn_pg__text(p, f->status);
        mn_buf_printf(sql, " AND status = $%d", p->n);
    }
    if (f->tag) {
        mn_pg__text(p, f->tag);
        mn_buf_printf(sql, " AND id IN (SELECT memory_id FROM memory_tags WHERE tag = $%d)", p->n);
    }
    if (f->path) {
        /* scoped to the path, to a directory above it, or to a path below it; memory_paths.path
         * is COLLATE "C", so '/' < '0' holds as in SQLite's byte order */
        mn_pg__text(p, f->path);
        int k = p->n;
        mn_buf_printf(sql,
                      " AND id IN (SELECT memory_id FROM memory_paths WHERE path = $%d OR "
                      "(path > $%d || '/' AND path < $%d || '0') OR "
                      "($%d::text COLLATE \"C\" > path || '/' AND $%d::text COLLATE \"C\" < path "
                      "|| '0'))",
                      k, k, k, k, k);
    }
    if (f->source) {
        mn_pg__text(p, f->source);
        mn_buf_printf(sql, " AND source = $%d", p->n);
    }
    if (f->since) {
        mn_pg__int(p, f->since);
        mn_buf_printf(sql, " AND updated_at >= $%d", p->n);
    }
    if (f->expiry.at) {
        /* life_store.c's expiry: only a live status expires */
        const mn_expiry *e = &f->expiry;
        mn_pg__int(p, e->at);
        mn_buf_printf(sql,
                      " AND %s(status IN ('active', 'pending') AND ((expires_at IS NOT NULL AND "
                      "expires_at <= $%d)",
                      e->only ? "" : "NOT ", p->n);
        for (size_t k = 0; k < MN_MEMORY_KINDS; k++)
            if (e->kind_ttl_ms[k] > 0) {
                mn_pg__int(p, e->at - e->kind_ttl_ms[k]);
                mn_buf_printf(sql,
                              " OR (kind = '%s' AND greatest(coalesce(saved_at, 0), updated_at, "
                              "coalesce(accessed_at, 0)) <= $%d)",
                              mn_memory_kinds[k], p->n);
            }
        mn_buf_puts(sql, "))");
    }
    if (f->after && !f->newest_first) {
        mn_pg__text(p, f->after);
        mn_buf_printf(sql, " AND uid COLLATE \"C\" > $%d", p->n);
    }
}

/*
 * Rows a result of pg_memory_list holds at most: a longer read in id order
 * goes on in pages after the last id (keyset), so that no PGresult holds a
 * whole table (libpq keeps every row of a result in memory). A read newest
 * first is rarely long (pages of the list op) and is left whole.
 */
#define PG_LIST_PAGE 500

static int pg_memory_list(mn_store *s, const mn_memory_filter *f,
                          int (*cb)(void *payload, json_t *mem), void *payload)
{
    mn_memory_filter page = *f;
    char last[MN_ID_LEN + 1] = "";
    int64_t left = f->limit > 0 ? f->limit : INT64_MAX;
    int rc = 0;
    build_sql(s);
    for (;;) {
        mn_buf sql = MN_BUF_INIT;
        mn_pg_params p = {0};
        int64_t want = f->newest_first || left < PG_LIST_PAGE ? left : PG_LIST_PAGE;
        mn_buf_puts(&sql, pg(s)->select_sql);
        filter_sql(s, &sql, &p, &page);
        /* uid in byte order breaks ties, as in SQLite, so that pages never overlap */
        mn_buf_puts(&sql, f->newest_first ? " ORDER BY updated_at DESC, uid COLLATE \"C\" DESC"
                                          : " ORDER BY uid COLLATE \"C\"");
        /* parameters, not text: the statement is prepared once per filter shape, never once
         * per page (the cache of prepared statements lives as long as the connection) */
        if (want < INT64_MAX)
            mn_pg__int(&p, want);
        else
            mn_pg__text(&p, NULL); /* LIMIT NULL: all */
        mn_buf_printf(&sql, " LIMIT $%d::bigint", p.n);
        mn_pg__int(&p, page.offset > 0 ? page.offset : 0);
        mn_buf_printf(&sql, " OFFSET $%d::bigint", p.n);
        PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot list memories");
        mn_buf_release(&sql);
        if (!r)
            return mn_error_last_code();
        int n = pg(s)->pq->ntuples(r);
        rc = rows_each(s, r, cb, payload, last);
        pg(s)->pq->clear(r);
        if (rc || n < want || want == left)
            return rc;
        left -= n;
        page.offset = 0;
        page.after = last;
    }
}

static int pg_memory_count(mn_store *s, const mn_memory_filter *f, int64_t *out)
{
    mn_buf sql = MN_BUF_INIT;
    mn_pg_params p = {0};
    mn_buf_puts(&sql, "SELECT count(*) FROM memories");
    filter_sql(s, &sql, &p, f);
    PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot count memories");
    mn_buf_release(&sql);
    if (!r)
        return mn_error_last_code();
    *out = mn_pg__col_int(s, r, 0, 0);
    pg(s)->pq->clear(r);
    return 0;
}

/* Run a command that must change a row: MN_ENOTFOUND (message `missing`) when none. */
static int change_one(mn_store *s, const char *sql, mn_pg_params *p, const char *what,
                      const char *missing)
{
    PGresult *r = mn_pg__run(s, sql, p, what);
    if (!r)
        return mn_error_last_code();
    int64_t n = mn_pg__changed(s, r);
    pg(s)->pq->clear(r);
    return n ? 0 : mn_error_set(MN_ENOTFOUND, "%s", missing);
}

static int pg_memory_set_deleted(mn_store *s, const char *id, int64_t ms)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    char missing[80];
    snprintf(missing, sizeof(missing), "memory '%s' not found", id);
    if (ms)
        mn_pg__int(&p, ms);
    else
        mn_pg__text(&p, NULL);
    mn_pg__text(&p, id);
    mn_pg__int(&p, s->project_id);
    int rc = change_one(s,
                        "UPDATE memories SET deleted_at = CASE WHEN $1::bigint IS NULL THEN NULL "
                        "ELSE coalesce(deleted_at, $1::bigint) END WHERE uid = $2 AND project_id = "
                        "$3",
                        &p, "cannot forget memory", missing);
    int64_t rowid = rc ? 0 : memory_rowid(s, id);
    if (rc || rowid <= 0)
        return rc ? rc : mn_error_last_code();
    /* a forgotten memory leaves the full-text index, a restored one comes back */
    return mn_pg__postings_memory(s, rowid);
}

static int pg_memory_purge(mn_store *s, const char *id)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    char missing[80];
    snprintf(missing, sizeof(missing), "memory '%s' not found", id);
    int64_t rowid = memory_rowid(s, id);
    if (rowid <= 0)
        return mn_error_last_code();
    int rc = mn_pg__postings_del(s, MN_FTS_MEMORIES, rowid);
    if (rc)
        return rc;
    mn_pg__text(&p, id);
    mn_pg__int(&p, s->project_id);
    return change_one(s, "DELETE FROM memories WHERE uid = $1 AND project_id = $2", &p,
                      "cannot purge memory", missing);
}

static int pg_memory_backlinks(mn_store *s, json_t **out, const char *id)
{
    mn_pg_params p = {0};
    mn_pg__text(&p, id);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT l.kind, src.uid, l.note, l.created_at FROM links l JOIN "
                             "memories dst ON dst.id = l.dst_memory_id JOIN memories src ON "
                             "src.id = l.src_id WHERE dst.uid = $1 AND dst.project_id = $2 ORDER "
                             "BY l.id",
                             &p, "cannot read links");
    if (!r)
        return mn_error_last_code();
    json_t *arr = json_array();
    int n = pg(s)->pq->ntuples(r);
    for (int row = 0; row < n; row++) {
        char t[32];
        json_t *l = json_object();
        const char *note = mn_pg__col(s, r, row, 2);
        json_object_set_new(l, "kind", json_string(mn_pg__col(s, r, row, 0)));
        json_object_set_new(l, "from", json_string(mn_pg__col(s, r, row, 1)));
        if (note)
            json_object_set_new(l, "note", json_string(note));
        mn_time_format(t, mn_pg__col_int(s, r, row, 3));
        json_object_set_new(l, "created_at", json_string(t));
        json_array_append_new(arr, l);
    }
    pg(s)->pq->clear(r);
    *out = arr;
    return 0;
}

/* store_life.h: a status changes (superseded, archived, active again); updated_at with ms > 0 */
static int pg_memory_set_status(mn_store *s, const char *id, const char *status, int64_t ms)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    char missing[80];
    snprintf(missing, sizeof(missing), "memory '%s' not found", id);
    mn_pg__text(&p, status);
    mn_pg__int(&p, ms);
    mn_pg__text(&p, id);
    mn_pg__int(&p, s->project_id);
    return change_one(s,
                      "UPDATE memories SET status = $1, updated_at = CASE WHEN $2::bigint > 0 "
                      "THEN $2::bigint ELSE updated_at END WHERE uid = $3 AND project_id = $4",
                      &p, "cannot change a memory's status", missing);
}

/* ---- links ---- */

static int pg_link_add(mn_store *s, const char *from, const char *kind, const char *to,
                       const char *note, int64_t created_at)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    int64_t src = memory_rowid(s, from);
    if (src <= 0)
        return mn_error_last_code();
    int64_t dst = 0;
    if (!strchr(to, ':')) {
        dst = memory_rowid(s, to);
        if (dst <= 0)
            return mn_error_last_code();
    }
    mn_pg_params p = {0};
    mn_pg__int(&p, src);
    mn_pg__text(&p, kind);
    if (dst) {
        mn_pg__int(&p, dst);
        mn_pg__text(&p, NULL);
    } else {
        mn_pg__text(&p, NULL);
        mn_pg__text(&p, to);
    }
    mn_pg__text(&p, note);
    mn_pg__int(&p, created_at);
    PGresult *r = mn_pg__run_guarded(s,
                                     "INSERT INTO links(src_id, kind, dst_memory_id, dst_ref, "
                                     "note, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
                                     &p, "cannot store link");
    int rc = r ? 0 : mn_error_last_code();
    if (r)
        pg(s)->pq->clear(r);
    if (rc == MN_EEXISTS)
        return mn_error_set(MN_EEXISTS, "link %s -[%s]-> %s exists already", from, kind, to);
    return rc;
}

static int pg_link_remove(mn_store *s, const char *from, const char *kind, const char *to)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    int64_t src = memory_rowid(s, from);
    if (src <= 0)
        return mn_error_last_code();
    mn_pg_params p = {0};
    char missing[160];
    snprintf(missing, sizeof(missing), "no link %s -[%s]-> %s", from, kind, to);
    mn_pg__int(&p, src);
    mn_pg__text(&p, kind);
    mn_pg__text(&p, to);
    mn_pg__int(&p, s->project_id);
    return change_one(s,
                      "DELETE FROM links WHERE src_id = $1 AND kind = $2 AND (dst_ref = $3 OR "
                      "dst_memory_id = (SELECT id FROM memories WHERE uid = $3 AND project_id = "
                      "$4))",
                      &p, "cannot remove link", missing);
}

/* ---- config ---- */

static int pg_config_get(mn_store *s, char **out, const char *key)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, key);
    PGresult *r = mn_pg__run(s, "SELECT value FROM config WHERE project_id = $1 AND key = $2", &p,
                             "cannot read config");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) == 1)
        *out = mn_strdup(mn_pg__col(s, r, 0, 0));
    else
        rc = mn_error_set(MN_ENOTFOUND, "config key '%s' is not set", key);
    pg(s)->pq->clear(r);
    return rc;
}

static int pg_config_set(mn_store *s, const char *key, const char *value)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, key);
    if (!value)
        return mn_pg__exec(s, "DELETE FROM config WHERE project_id = $1 AND key = $2", &p,
                           "cannot write config");
    mn_pg__text(&p, value);
    mn_pg__int(&p, mn_time_now_ms());
    return mn_pg__exec(s,
                       "INSERT INTO config(project_id, key, value, updated_at) VALUES ($1, $2, "
                       "$3, $4) ON CONFLICT (project_id, key) DO UPDATE SET value = "
                       "excluded.value, updated_at = excluded.updated_at",
                       &p, "cannot write config");
}

static int pg_config_all(mn_store *s, json_t **out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT key, value FROM config WHERE project_id = $1 ORDER BY key "
                             "COLLATE \"C\"",
                             &p, "cannot read config");
    if (!r)
        return mn_error_last_code();
    json_t *obj = json_object();
    int n = pg(s)->pq->ntuples(r);
    for (int row = 0; row < n; row++)
        json_object_set_new(obj, mn_pg__col(s, r, row, 0), json_string(mn_pg__col(s, r, row, 1)));
    pg(s)->pq->clear(r);
    *out = obj;
    return 0;
}

/* ---- audit ---- */

static int pg_audit(mn_store *s, const char *actor, const char *action, const char *target,
                    const json_t *detail)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, mn_time_now_ms());
    mn_pg__text(&p, actor ? actor : "unknown");
    mn_pg__text(&p, action);
    mn_pg__text(&p, target);
    mn_pg__take(&p, detail ? json_dumps(detail, JSON_COMPACT) : NULL);
    return mn_pg__exec(s,
                       "INSERT INTO audit(project_id, ts, actor, action, target, detail) VALUES "
                       "($1, $2, $3, $4, $5, $6)",
                       &p, "cannot write the audit log");
}

/*
 * The table mn_store_open dispatches to for a PostgreSQL location
 * (store.c). Every slot not named here is NULL: the wrapper fails with
 * MN_EUNSUPPORTED naming "postgresql" and the function
 * (docs/internals/store-postgres.md lists what is there and what is not).
 */
const mn_store_backend mn_postgres_backend = {.name = "postgresql",
                                              .open = pg_open,
                                              .close = pg_close,
                                              .rollback = pg_rollback,
                                              .begin = pg_begin,
                                              .begin_read = pg_begin_read,
                                              .begin_log = pg_begin_log,
                                              .commit = pg_commit,
                                              .check = pg_check,
                                              .memory_insert = pg_memory_insert,
                                              .memory_replace = pg_memory_replace,
                                              .memory_get = pg_memory_get,
                                              .memory_resolve = pg_memory_resolve,
                                              .memory_find_hash = pg_memory_find_hash,
                                              .memory_list = pg_memory_list,
                                              .memory_count = pg_memory_count,
                                              .memory_set_deleted = pg_memory_set_deleted,
                                              .memory_purge = pg_memory_purge,
                                              .memory_backlinks = pg_memory_backlinks,
                                              .memory_set_status = pg_memory_set_status,
                                              .link_add = pg_link_add,
                                              .link_remove = pg_link_remove,
                                              .config_get = pg_config_get,
                                              .config_set = pg_config_set,
                                              .config_all = pg_config_all,
                                              .audit = pg_audit,
#define MN_PG_SLOT(name) .name = mn_pg__##name,
                                              MN_PG_OTHER_FILES(MN_PG_SLOT)
#undef MN_PG_SLOT
};
