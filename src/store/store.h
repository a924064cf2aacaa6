/*
 * store.h - the one interface to stored data. No SQL outside src/store/.
 *
 * A store holds projects and, per project, the code index and the team's
 * memories (docs/internals/store.md). Everything above this layer speaks
 * JSON in the canonical memory shape (docs/memory-format.md) through these
 * functions, so the SQLite and PostgreSQL back ends pass one test suite.
 *
 * Transactions: every write function must be called between
 * mn_store_begin() and mn_store_commit()/mn_store_rollback(); reads may be
 * called inside or outside one. A store handle is used by one thread at a
 * time; several processes may share the same database.
 *
 * Ownership: json_t values returned through `out` are new references the
 * caller json_decref()s; strings returned through `out` are malloc'd.
 */
#ifndef MN_STORE_H
#define MN_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "text/neardup.h"
#include "util/buf.h"
#include "util/util.h"

typedef struct mn_store mn_store;

typedef struct {
    unsigned version;
    int busy_timeout_ms; /* how long a writer waits for the lock; default 10000 */
    bool create;         /* create the database when it does not exist */
    bool read_only;
    const char *project;   /* project name; default derived from the path */
    const char *root_path; /* repository root recorded for the project */
    bool adopt;            /* make a SQLite database of another program a store (mnemo init only) */
    /* open no project (project is ignored, none is created): only what belongs to the whole
     * store answers (mn_store_projects_each, tokens); a project's reads find nothing and its
     * writes fail (mnemo migrate) */
    bool any_project;
} mn_store_options;

#define MN_STORE_OPTIONS_VERSION 1
#define MN_STORE_OPTIONS_INIT                                                  \
    {                                                                          \
        MN_STORE_OPTIONS_VERSION, 10000, true, false, NULL, NULL, false, false \
    }

/*
 * What a store location names (store.c): a file path (the SQLite back end),
 * a PostgreSQL database (postgres://..., postgresql://..., or a libpq
 * conninfo whose first keyword is libpq's: "service=team", "host=h dbname=d"),
 * or another URL (scheme://..., refused). A file named like a conninfo is
 * given as ./host=x.
 */
typedef enum { MN_STORE_FILE, MN_STORE_POSTGRES, MN_STORE_URL } mn_store_kind;
mn_store_kind mn_store_kind_of(const char *location);
/**
 * The location as it may be shown (malloc'd): a URL's password
 * (user:PASS@, ?password=) and a conninfo's password= values become ***;
 * a path is copied as it is.
 */
char *mn_store_redact(const char *location);

/**
 * Open (and migrate forward) the store at location, with the back end its
 * kind names (mn_store_kind_of); a kind this build has no back end for
 * fails with MN_EUNSUPPORTED (PostgreSQL) or MN_EINVAL (another URL), the
 * location redacted, and creates nothing. A SQLite file: nothing is
 * written to it before it is known as a mnemo store (PRAGMA application_id, or meta
 * 'written_by' of an older store): another program's SQLite database is
 * refused untouched (MN_EINVAL) unless opts->adopt; a missing or empty
 * (0-byte) file becomes a store only with opts->create. A new store and
 * its -wal/-shm files are 0600; an existing one the user owns is made so.
 * A store that cannot be written (its file, its directory, a read-only file
 * system) opens read-only: mn_store_read_only_reason says why.
 */
int mn_store_open(mn_store **out, const char *location, const mn_store_options *opts);
void mn_store_free(mn_store *s);
/** Why nothing can be written to the store (a phrase for a note), or NULL when it can. */
const char *mn_store_read_only_reason(const mn_store *s);
/** The file's path, or a URL or conninfo redacted (mn_store_redact). */
const char *mn_store_path(const mn_store *s);
/** The back end's name: "sqlite", "postgresql". */
const char *mn_store_backend_name(const mn_store *s);
/** The schema version the store is at, and the newest this build knows. */
int mn_store_schema_version(const mn_store *s);
int mn_store_schema_latest(void);

int mn_store_begin(mn_store *s); /* a write transaction, taken at once */
/** A read transaction: one consistent snapshot for several reads (end with commit). */
int mn_store_begin_read(mn_store *s);
/**
 * A write transaction that only appends to the logs of use (served answers,
 * the audit log), prunes them and counts hits (mn_store_memories_touch):
 * what every read records. It need not wait for the project's writers. On
 * SQLite it is mn_store_begin (one writer per file anyway); on PostgreSQL it
 * takes no project lock, so a read never queues behind a long writer (the
 * model's trainer), and the hits it counts are applied right after its
 * commit, one row at a time (a read holds no row while it waits for another:
 * no deadlock with a writer). Only those functions may run in it.
 */
int mn_store_begin_log(mn_store *s);
int mn_store_commit(mn_store *s);
void mn_store_rollback(mn_store *s);
/** Run PRAGMA integrity_check and foreign_key_check; 0 or MN_ECORRUPT. */
int mn_store_check(mn_store *s);
/**
 * Read the store's file through a memory map (on, the default) or not (off). Off drops
 * the map at once: the pages it read leave the process's resident set, and reads go
 * through the page cache until it is on again. For a phase that needs the memory more
 * than fast reads (training the built-in model). MN_EUNSUPPORTED: the back end maps
 * nothing (PostgreSQL).
 */
int mn_store_map_set(mn_store *s, bool on);
/**
 * The map off for a phase that needs the memory (training, the history's read):
 * mn_store_map_set(s, false), where *dropped says whether to set it on again at the
 * phase's end. A back end without a map has nothing to drop: 0, *dropped false.
 */
int mn_store_map_drop(mn_store *s, bool *dropped);

/* ---- memories (canonical JSON shape) ---- */

/*
 * Expiry (docs/internals/memory.md, "Life cycle"): an active or pending
 * memory has expired by `at` when its own expires_at (a save's ttl) is at
 * or before it, or
 * when its kind has a time to live (config memory.ttl.<kind>) and the last
 * of the times the store took it in, it was changed and it was served
 * (saved_at, updated_at, accessed_at) lies that long before `at`.
 */
#define MN_MEMORY_KINDS 8 /* fact decision gotcha pattern rule fewshot episode doc_link */
extern const char *const mn_memory_kinds[MN_MEMORY_KINDS];

typedef struct {
    int64_t at;                           /* 0: no expiry test */
    bool only;                            /* only expired memories (else: only live ones) */
    int64_t kind_ttl_ms[MN_MEMORY_KINDS]; /* per mn_memory_kinds; 0: never by age */
} mn_expiry;

typedef struct {
    const char *kind;   /* NULL: any */
    int level;          /* -1: any */
    const char *status; /* NULL: any */
    const char *tag;    /* memories carrying this tag */
    const char *path;   /* memories scoped to this path or a path under it */
    const char *source; /* provenance source */
    int64_t since;      /* updated at or after (ms); 0: any */
    bool include_deleted;
    bool only_deleted;
    int64_t limit; /* 0: no limit */
    int64_t offset;
    bool newest_first; /* by updated_at, newest first (then id); else by id, oldest first */
    mn_expiry expiry;  /* at 0: expired or not */
    /* id order only: the ids after this one (byte order), the next page of a keyset read
     * that costs the same at any depth (OFFSET steps over every row before it); NULL: all */
    const char *after;
} mn_memory_filter;

#define MN_MEMORY_FILTER_INIT                                                     \
    {                                                                             \
        NULL, -1, NULL, NULL, NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL \
    }

/** Insert a memory (links excluded; see mn_store_link_add). MN_EEXISTS when the id is taken. */
int mn_store_memory_insert(mn_store *s, const json_t *mem);
/** Replace every stored field of an existing memory (links excluded). */
int mn_store_memory_replace(mn_store *s, const json_t *mem);
/** The memory with this full id, with its citations and outgoing links. */
int mn_store_memory_get(mn_store *s, json_t **out, const char *id);
/** Full id for an exact id or a unique prefix: MN_ENOTFOUND / MN_EAMBIGUOUS. */
int mn_store_memory_resolve(mn_store *s, char out[MN_ID_LEN + 1], const char *prefix);
/** A live (not deleted) memory with this content hash, if any (MN_ENOTFOUND). */
int mn_store_memory_find_hash(mn_store *s, char out[MN_ID_LEN + 1], const char *hash);

/* ---- near-duplicates (schema v9; text/neardup.h, docs/internals/memory.md) ---- */

/** The text a memory's fingerprint is made of: its title, body, situation, solution, what failed.
 */
void mn_memory_fingerprint_text(mn_buf *out, const json_t *mem);

/* A memory sharing an LSH key with a text; strings live until the callback returns. */
typedef struct {
    const char *uid, *kind, *status;
    const char *title, *body, *situation, *solution, *what_failed;
    bool deleted;   /* forgotten */
    double jaccard; /* estimated from the two signatures */
} mn_memory_neighbour;

/**
 * The memories of this project that share an LSH key with fp (the store
 * keeps every memory's keys, written with it), best estimated Jaccard first,
 * at most limit of them; cb for each (a non-zero return stops and is
 * returned). Forgotten and archived ones are included: the caller decides.
 */
int mn_store_memory_neighbours(mn_store *s, const mn_fingerprint *fp, size_t limit,
                               int (*cb)(void *payload, const mn_memory_neighbour *n),
                               void *payload);
/**
 * Call cb for each matching memory, in id order (creation order: exports are
 * stable) or newest first (f->newest_first); a non-zero return stops and is
 * returned.
 */
int mn_store_memory_list(mn_store *s, const mn_memory_filter *f,
                         int (*cb)(void *payload, json_t *mem), void *payload);
int mn_store_memory_count(mn_store *s, const mn_memory_filter *f, int64_t *out);
/** Soft delete (deleted_at = ms) or undelete (ms = 0). */
int mn_store_memory_set_deleted(mn_store *s, const char *id, int64_t ms);
/** Remove a memory with its citations and links, for good. */
int mn_store_memory_purge(mn_store *s, const char *id);
/** Memories linking to this one: [{kind, from, note, created_at}]. */
int mn_store_memory_backlinks(mn_store *s, json_t **out, const char *id);

/**
 * The exact-duplicate key of a memory: xxh3 of kind, title and body,
 * lower-cased (ASCII) with runs of white space folded; 16 hex digits.
 */
void mn_store_content_hash(char out[17], const json_t *mem);

/* ---- links ---- */
/** Link from a memory to a memory id or a reference ("file:...", "task:..."). */
int mn_store_link_add(mn_store *s, const char *from, const char *kind, const char *to,
                      const char *note, int64_t created_at);
int mn_store_link_remove(mn_store *s, const char *from, const char *kind, const char *to);

/* ---- per-project configuration ---- */
int mn_store_config_get(mn_store *s, char **out, const char *key);        /* MN_ENOTFOUND */
int mn_store_config_set(mn_store *s, const char *key, const char *value); /* NULL unsets */
/** {key: value} of every key set. */
int mn_store_config_all(mn_store *s, json_t **out);

/* ---- audit (sqlite_store.c writes, audit_store.c reads and prunes) ---- */
/** One row: who (actor) did what (action) to what (target, an id), with a JSON detail. */
int mn_store_audit(mn_store *s, const char *actor, const char *action, const char *target,
                   const json_t *detail);

typedef struct {
    int64_t since_ms;   /* rows at or after this time; 0: all */
    const char *action; /* this action only; NULL: all */
    const char *actor;  /* this actor only; NULL: all */
    int64_t limit;      /* a page of at most this many; <= 0: all */
    int64_t offset;     /* skip this many of the newest first */
    bool oldest_first;  /* by ts then id, oldest first; else newest first */
    /* keyset: only the rows past the row (after_ts, after_id) in the order read, the next
     * page at the cost of the first (an offset steps over every row before it); after_id 0:
     * from the first row */
    int64_t after_ts, after_id;
} mn_audit_filter;

/**
 * The rows the filter matches, newest first (f->oldest_first: oldest
 * first), as a JSON array of {id, time (RFC 3339), actor, op, target?,
 * detail?}; *total counts every match (total NULL: not counted, a page
 * costs only its rows).
 */
int mn_store_audit_list(mn_store *s, const mn_audit_filter *f, json_t **rows, int64_t *total);
/**
 * The actions of audit rows that record a read, as an SQL list: the rows
 * mn_store_audit_prune_reads may delete (both back ends use this one list).
 */
#define MN_STORE_READ_ACTIONS                                                          \
    "('context','recall','search','search_code','resource','get','list','plan_files'," \
    "'chain','open_doc')"
/** Whether rows of this action record a read (MN_STORE_READ_ACTIONS), pruned as served. */
bool mn_store_audit_is_read(const char *action);
/**
 * Delete this project's read rows older than max_age_ms (0: no age limit)
 * and, on one call in max_rows / 256 (added: the caller's served id), all
 * but the newest max_rows of them (0: no cap). Needs a transaction.
 */
int mn_store_audit_prune_reads(mn_store *s, int64_t now_ms, int64_t max_age_ms, int64_t max_rows,
                               int64_t added);

#endif
