/*
 * store_backend.h - what a store back end implements: the common head of a
 * store handle and the table of its functions (for src/store/ only).
 *
 * The pattern of libgit2's odb back ends and curl's vtls: every public
 * mn_store_xxx(s, ...) of store.h and store_*.h is a wrapper (store.c) that
 * calls s->backend->xxx(s, ...). A back end (src/store/sqlite/, and
 * src/store/postgres/ beside it) defines its own handle whose first member
 * is `mn_store base`, fills one const mn_store_backend, and is chosen by
 * mn_store_open from the kind of location (mn_store_kind_of: a file path,
 * or a PostgreSQL URL or conninfo). docs/internals/store.md, "Back ends",
 * says how to add one.
 *
 * Invariants: a back end's open sets base.backend, base.path (for a URL:
 * the redacted form, mn_store_redact: it is shown in messages), the
 * project id and schema version, and base.read_only/read_only_why; every
 * slot it leaves NULL makes the wrapper fail with MN_EUNSUPPORTED naming the
 * back end and the function, so a partial back end is usable for what it
 * has and says exactly what it lacks.
 */
#ifndef MN_STORE_BACKEND_H
#define MN_STORE_BACKEND_H

#include "store/store.h"
#include "store/store_fns.h"
#include "store/store_index.h"
#include "store/store_ingest.h"
#include "store/store_life.h"
#include "store/store_migrate.h"
#include "store/store_review.h"
#include "store/store_scan.h"
#include "store/store_search.h"
#include "store/store_terms.h"
#include "store/store_tokens.h"
#include "store/store_vector.h"

typedef struct mn_store_backend mn_store_backend;

/* The common head every back end's handle starts with. */
struct mn_store {
    const mn_store_backend *backend;
    char *path;         /* the file's path, or the URL/conninfo with its password redacted */
    int64_t project_id; /* the project this handle reads and writes */
    int schema_version; /* mn_store_schema_version */
    bool read_only;
    const char *read_only_why; /* a static phrase when read_only; mn_store_read_only_reason */
};

#define MN_STORE_BACKEND_MEMBER(name, params, args) int(*name) params;

struct mn_store_backend {
    const char *name; /* "sqlite", "postgresql": named in MN_EUNSUPPORTED messages */
    /*
     * Open (create, migrate) the store at location, a path or URL of this
     * back end's kind; *out is this back end's handle, its head filled.
     */
    int (*open)(mn_store **out, const char *location, const mn_store_options *opts);
    void (*close)(mn_store *s);    /* mn_store_free: s is never NULL here */
    void (*rollback)(mn_store *s); /* a no-op outside a transaction */
    MN_STORE_FUNCTIONS(MN_STORE_BACKEND_MEMBER)
};

/*
 * A back end declares and registers its implementations from the same list
 * (sqlite_internal.h and sqlite_store.c):
 *   #define MN_SQLITE_DECLARE(name, params, args) int mn_sqlite__##name params;
 *   MN_STORE_FUNCTIONS(MN_SQLITE_DECLARE)
 *   #define MN_SQLITE_SLOT(name, params, args) .name = mn_sqlite__##name,
 *   const mn_store_backend mn_sqlite_backend = {.name = "sqlite", ...,
 *                                               MN_STORE_FUNCTIONS(MN_SQLITE_SLOT)};
 * A back end that lacks some lists only the slots it has (designated
 * initializers: the others are NULL).
 */

#endif
