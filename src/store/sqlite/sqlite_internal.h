/*
 * sqlite_internal.h - what the SQLite back end's files share: its handle,
 * which extends the common head of store_backend.h, and its helpers.
 */
#ifndef MN_SQLITE_INTERNAL_H
#define MN_SQLITE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>

#include "store/store_backend.h"
#include "util/map.h"

/*
 * The SQLite back end's handle: the common head (store_backend.h: path,
 * project, schema version, read-only reason) first, so that an mn_store *
 * of this back end is an mn_sqlite_store * (sq()).
 */
typedef struct mn_sqlite_store {
    mn_store base;
    sqlite3 *db;
    bool in_tx;
    char *
        epoch_moved; /* "model\x1fkind" whose epochs this transaction moved (vector_put), or NULL */
    mn_map stmts;    /* SQL text -> prepared statement */
    char *insert_sql; /* built from the field table once */
    char *replace_sql;
    char *select_sql;
    char *get_sql;
    int field_params; /* number of field columns in select_sql */
    int busy_timeout_ms;
    uint64_t busy_since_ns;               /* when the current wait for a lock began (busy_wait) */
    struct mn_memory_sizes *memory_sizes; /* memory_sizes.c: NULL until prepared */
} mn_sqlite_store;

/* Every mn_store this back end sees is one it opened (mn_store_open dispatches by back end). */
static inline mn_sqlite_store *sq(mn_store *s)
{
    return (mn_sqlite_store *)s;
}

/* The back end's table (sqlite_store.c), and its implementation of each listed function. */
extern const mn_store_backend mn_sqlite_backend;
#define MN_SQLITE_DECLARE(name, params, args) int mn_sqlite__##name params;
MN_STORE_FUNCTIONS(MN_SQLITE_DECLARE)
#undef MN_SQLITE_DECLARE
int mn_sqlite__open(mn_store **out, const char *path, const mn_store_options *opts);
void mn_sqlite__close(mn_store *s);
void mn_sqlite__rollback(mn_store *s);

/*
 * PRAGMA application_id of a mnemo store ("mnmo"): how mnemo knows its own
 * files (sqlite_store.c: probe). Stores made before it was set are known by
 * meta 'written_by' ("mnemo <version>") and get it when next opened writable.
 */
#define MN_STORE_APPLICATION_ID 0x6d6e6d6f

sqlite3_stmt *mn_sqlite__stmt(mn_store *s, const char *sql);
/*
 * The back end's errors: "<what> in '<store>': <SQLite's message>", coded by
 * SQLite's primary code (busy or locked MN_EBUSY, a damaged file
 * MN_ECORRUPT, the rest MN_EIO). error is for the result rc of a write of
 * what a caller gave (memories, links, config: a constraint it breaks, a
 * link to no memory, is its input, MN_EINVAL); fail, for the connection's
 * last error, where a constraint that breaks is a defect (MN_EIO).
 * step_done steps st once, resets it and reports with error unless it gave
 * a row or finished; bind_text binds v, or NULL.
 */
int mn_sqlite__error(mn_store *s, int rc, const char *what);
int mn_sqlite__fail(mn_store *s, const char *what);
int mn_sqlite__step_done(mn_store *s, sqlite3_stmt *st, const char *what);
void mn_sqlite__bind_text(sqlite3_stmt *st, int i, const char *v);
/*
 * Forget rows kept for a while (served answers, the audit's reads): by_age
 * deletes the project's rows older than ?2 (now_ms - max_age_ms; skipped
 * when max_age_ms is 0), by_count those before the ?2-th newest (max_rows;
 * run on one add in max_rows / 256, so that its cost per add stays that of
 * ~256 index entries; skipped when 0). ?1 is the project. Needs a
 * transaction; `what` names a failure.
 */
int mn_sqlite__prune(mn_store *s, const char *by_age, const char *by_count, int64_t now_ms,
                     int64_t max_age_ms, int64_t max_rows, int64_t added, const char *what);
/*
 * Run st, a file search (?1 match, ?2 project, ?3 limit; columns id, path,
 * role, rank, score), reporting each row to cb; what: the error's words.
 * search_store.c (paths) and history_store.c (commit subjects) share it.
 */
int mn_sqlite__file_hits(mn_store *s, sqlite3_stmt *st, const char *match, size_t limit,
                         int (*cb)(void *payload, const mn_file_hit *h), void *payload,
                         const char *what);
int mn_sqlite__exec(mn_store *s, const char *sql);
/** A TRUNCATE checkpoint, retried within the busy timeout while its lock is held. */
int mn_sqlite__checkpoint_truncate(mn_store *s);

/*
 * The expiry test of a memory query (life_store.c; store.h: mn_expiry):
 * "<expired>" over the memory columns prefixed by p ("m." or ""), its
 * parameters numbered from *next; expired_bind binds them in the same
 * order. Callers write "NOT <expired>" or "<expired>".
 */
void mn_sqlite__expired_sql(mn_buf *b, const char *p, const mn_expiry *e, int *next);
void mn_sqlite__expired_bind(sqlite3_stmt *st, const mn_expiry *e, int *next);
/* neardup_store.c: a memory's fingerprint and LSH keys, written with its row */
int mn_sqlite__fingerprint_put(mn_store *s, int64_t rowid, const json_t *mem);
/* neardup_store.c: recompute every fingerprint when they were made by another version */
int mn_sqlite__fingerprints_check(mn_store *s);
/*
 * Migrate forward; application_id is what the file held when opened. Sets
 * PRAGMA application_id to MN_STORE_APPLICATION_ID with the first
 * migration, and once on a store made before it was set.
 */
int mn_sqlite__migrate(mn_store *s, int application_id);

#endif
