/*
 * store_migrate.h - what `mnemo migrate` needs of a store beyond store.h:
 * the projects a store holds, and audit rows written with the time they
 * carry (a moved audit log keeps its history's times).
 *
 * Both are whole-store or verbatim operations no other caller needs: a
 * store opened with mn_store_options.any_project (no project of its own)
 * answers mn_store_projects_each, and mn_store_audit_put writes into the
 * project the store was opened on, inside a transaction like every write.
 */
#ifndef MN_STORE_MIGRATE_H
#define MN_STORE_MIGRATE_H

#include <jansson.h>
#include <stdint.h>

#include "store/store.h"

typedef struct {
    const char *name;
    const char *root_path; /* NULL when none was recorded */
    int64_t created_at;    /* ms */
    int64_t memories;      /* its memories, forgotten ones included */
} mn_project_row;

/**
 * Call cb for each project of the store, by name (byte order); strings
 * live until cb returns; a non-zero return stops and is returned.
 */
int mn_store_projects_each(mn_store *s, int (*cb)(void *payload, const mn_project_row *p),
                           void *payload);
/**
 * One audit row as another store wrote it: at ts (ms), by actor, action on
 * target (may be NULL) with detail (may be NULL). Needs a transaction.
 */
int mn_store_audit_put(mn_store *s, int64_t ts, const char *actor, const char *action,
                       const char *target, const json_t *detail);

/**
 * Read and write the store once through (a page of rows after another, as
 * mnemo migrate does): no memory map and a small page cache (SQLite: 4 MB,
 * not 32), so that neither grows the process's resident set with the store.
 * Between transactions. MN_EUNSUPPORTED: the back end caches nothing of the
 * store in the process (PostgreSQL).
 */
int mn_store_stream(mn_store *s);

#endif
