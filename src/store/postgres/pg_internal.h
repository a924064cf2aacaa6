/*
 * pg_internal.h - what the PostgreSQL back end's files share: its handle,
 * which extends the common head of store_backend.h, the parameter list of
 * a statement, and the one function that runs a statement.
 *
 * Statements are written in PostgreSQL's dialect with $N parameters, sent
 * as text (binary for bytea), prepared once per connection and cached by
 * their SQL text (mn_pg__run). A connection that broke (the server
 * restarted) is opened again before the next statement outside a
 * transaction; inside one the statement fails with MN_EUNAVAILABLE and the
 * caller's rollback ends it: nothing half-written is ever committed.
 */
#ifndef MN_PG_INTERNAL_H
#define MN_PG_INTERNAL_H

#include <stdbool.h>

#include "store/postgres/pg_migrate.h"
#include "store/postgres/pg_more.h"
#include "store/postgres/pg_search.h"
#include "store/store_backend.h"
#include "util/libs.h"
#include "util/map.h"

typedef struct mn_pg_writes mn_pg_writes; /* pg_vector.c: rows written in batches */

typedef struct {
    int64_t project;
    mn_pg_fts_stats at; /* what the cuts were read under (its ntok not compared) */
    int64_t cut[2];
    int64_t rank, rank_cut; /* the last rank asked for by a search's newest share, its row id */
} mn_pg_slice_cuts;

typedef struct mn_pg_store {
    mn_store base;
    const mn_pq_api *pq;
    PGconn *conn;
    char *conninfo; /* as given (with its password, if any): never shown */
    int lock_timeout_ms;
    bool in_tx;
    bool log_tx; /* in_tx began with mn_store_begin_log: no project lock (pg_store.c) */
    /* the hits memories_touch was asked to count in a log transaction, applied after its
     * COMMIT (pg_log.c, mn_pg__touch_after_commit) */
    int64_t *touch_ids;
    size_t touch_n, touch_cap;
    int64_t touch_ms;
    mn_pg_writes *writes; /* vectors or terms put and not yet written (pg_vector.c) */
    mn_map stmts;         /* SQL text -> its prepared statement's name (malloc'd) */
    unsigned next_stmt;
    char *insert_sql, *replace_sql, *select_sql; /* built from the field table once */
    int field_params;                            /* field columns in select_sql */
    /* pg_search.c: per full-text table, the newest slices' lowest row ids (fts_count) and a
     * search's newest share's, kept while the table's writes, size and highest row id stay
     * (as search_store.c's size_cache keeps the slices') */
    mn_pg_slice_cuts slice_cuts[4];
    /* the read transaction's number (pg_begin_read; 0: none), and a table's full-text stats
     * read in it (pg_search.c mn_pg__fts_stats: its snapshot holds them fixed) */
    unsigned read_tx, read_tx_seq;
    struct {
        unsigned tx;
        int table;
        int64_t project;
        mn_pg_fts_stats v;
    } stats;
} mn_pg_store;

static inline mn_pg_store *pg(mn_store *s)
{
    return (mn_pg_store *)s;
}

extern const mn_store_backend mn_postgres_backend;

/* The parameters of one statement: text values (NULL: SQL NULL), or bytes sent as binary. */
#define MN_PG_MAX_PARAMS 64
typedef struct {
    int n;
    const char *values[MN_PG_MAX_PARAMS];
    int lengths[MN_PG_MAX_PARAMS];
    int formats[MN_PG_MAX_PARAMS];
    char *owned[MN_PG_MAX_PARAMS];
} mn_pg_params;

void mn_pg__text(mn_pg_params *p, const char *v); /* copied; NULL is SQL NULL */
void mn_pg__take(mn_pg_params *p, char *v);       /* a malloc'd string, freed with the list */
void mn_pg__int(mn_pg_params *p, int64_t v);
void mn_pg__ids(mn_pg_params *p, const int64_t *ids, size_t n); /* a bigint[] of ids[0..n) */
void mn_pg__real(mn_pg_params *p, double v);
void mn_pg__bytes(mn_pg_params *p, const void *v, size_t n); /* bytea, binary */
void mn_pg__params_release(mn_pg_params *p);

/*
 * Run sql with p (may be NULL; released here either way): the result on
 * success (PGRES_TUPLES_OK or PGRES_COMMAND_OK, the caller clears it), or
 * NULL with the error set: MN_EEXISTS for a unique violation, MN_EBUSY for
 * a lock not granted within the store's busy timeout, a serialization
 * failure or a deadlock, MN_EUNAVAILABLE when the server cannot be reached
 * (retryable), MN_EIO otherwise; `what` begins the message ("cannot store
 * memory").
 */
PGresult *mn_pg__run(mn_store *s, const char *sql, mn_pg_params *p, const char *what);
/*
 * mn_pg__run inside a savepoint: PostgreSQL ends a transaction at its first
 * failed statement, SQLite does not, and callers of store.h may go on after
 * an expected failure (MN_EEXISTS, a constraint: MN_EINVAL). Two more round
 * trips: for the statements whose failure is an answer (insert, link).
 */
PGresult *mn_pg__run_guarded(mn_store *s, const char *sql, mn_pg_params *p, const char *what);
/* The same for a statement whose rows are not wanted; 0 or the error. */
int mn_pg__exec(mn_store *s, const char *sql, mn_pg_params *p, const char *what);
/* The number of rows a command changed (PQcmdTuples). */
int64_t mn_pg__changed(mn_store *s, PGresult *r);

/* (Re)open the connection and set up its session; close it. */
int mn_pg__connect(mn_store *s);
void mn_pg__disconnect(mn_store *s);

/* The functions of the table other files implement (pg_log.c, pg_neardup.c). */
#define MN_PG_OTHER_FILES(X) \
    X(audit_list)            \
    X(audit_prune_reads)     \
    X(served_add)            \
    X(served_prune)          \
    X(served_get)            \
    X(served_set_session)    \
    X(served_session_seen)   \
    X(served_open)           \
    X(served_recent)         \
    X(served_settle)         \
    X(feedback_has)          \
    X(feedback_add)          \
    X(memories_touch)        \
    X(memory_neighbours)     \
    X(fingerprints_each)     \
    X(memories_by_uid)       \
    MN_PG_SEARCH_FNS(X)      \
    MN_PG_INDEX_FNS(X)       \
    MN_PG_MIGRATE_FNS(X)     \
    MN_PG_MORE_FNS(X)
/* Their declarations, from the one list of store functions (store_fns.h). */
#define MN_PG_DECLARE(name, params, args) int mn_pg__##name params;
MN_STORE_FUNCTIONS(MN_PG_DECLARE)
#undef MN_PG_DECLARE

/* The columns of a mn_memory_hit, as sqlite/search_store.c's MEMORY_COLUMNS (alias m), and
 * the hit a result row of them holds (pg_search.c; its strings point into the result). */
#define MN_PG_MEMORY_COLUMNS                                                                      \
    "m.id, m.uid, m.kind, m.status, m.title, m.level, m.created_at, m.updated_at, "               \
    "m.hit_count, m.used_count, m.ignored_count, m.scope_paths, m.scope_symbols, "                \
    "EXISTS (SELECT 1 FROM citations c WHERE c.memory_id = m.id AND c.stale <> 0), "              \
    "CASE WHEN m.kind = 'episode' THEN coalesce('s:' || nullif(m.session_ref, ''), 'd:' || "      \
    "nullif(m.situation, '')) END, (m.source = 'discovery' AND (m.tags LIKE "                     \
    "'%\"discovery:domain:%' OR m.tags LIKE '%\"discovery:package:%')), coalesce(m.accessed_at, " \
    "0)"
void mn_pg__memory_hit_read(mn_store *s, const PGresult *r, int row, mn_memory_hit *h);

/* The first key of every advisory lock of mnemo ("mnmo"); (key, 0) is the migrations' lock,
 * (key, project id) a project's writers'. */
#define MN_PG_LOCK_KEY 0x6d6e6d6f

/* pg_log.c: count the hits a log transaction asked for, after its COMMIT (pg_store.c's
 * pg_commit), one autocommitted row at a time; a failure is only logged: the answer's record
 * stands. Forget them (a rollback). */
void mn_pg__touch_after_commit(mn_store *s);
void mn_pg__touch_forget(mn_store *s);

/* pg_vector.c: write the vectors or terms put and not yet written (mn_pg__run does before any
 * other statement of the handle); whether there are; forget them (a rollback); free the buffer
 * (closing). */
int mn_pg__writes_flush(mn_store *s);
bool mn_pg__writes_pending(mn_store *s);
void mn_pg__writes_forget(mn_store *s);
void mn_pg__writes_free(mn_store *s);

/* pg_neardup.c: a memory's fingerprint and keys, written with it; the version check at open. */
int mn_pg__fingerprint_put(mn_store *s, int64_t rowid, const json_t *mem);
int mn_pg__fingerprints_check(mn_store *s);
/* bytea in text form ("\x" and two hex digits a byte) as bytes (malloc'd, *n its length); NULL
 * when malformed. */
unsigned char *mn_pg__unhex(const char *t, size_t *n);

/* Column accessors: NULL / 0 for SQL NULL. */
const char *mn_pg__col(mn_store *s, const PGresult *r, int row, int col);
int64_t mn_pg__col_int(mn_store *s, const PGresult *r, int row, int col);
bool mn_pg__col_null(mn_store *s, const PGresult *r, int row, int col);

#endif
