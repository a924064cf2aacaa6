/*
 * mnemo/api.h - the table of operations every front end calls.
 *
 * Each operation (save, get, list, ...) is a name, a JSON Schema for its
 * input, a JSON Schema for its output, hints (read-only, destructive,
 * idempotent) and a handler. The CLI, the MCP server and the HTTP API all
 * call mn_api_call() with the same JSON, so an operation added to the table
 * appears everywhere and one test of it covers every front end.
 *
 * JSON values are jansson's json_t. Ownership: mn_api_call() borrows args
 * and stores a new reference in *out that the caller json_decref()s.
 */
#ifndef MNEMO_API_H
#define MNEMO_API_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mnemo/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An open memory: the store plus who is calling. One per thread. */
typedef struct mn_ctx mn_ctx;

/**
 * The front end a context serves, which decides what it may change. Only
 * the mnemo command run by the user (src/cli/main.c, cli_open) says
 * MN_FRONT_LOCAL_CLI; `mnemo serve` says MN_FRONT_NETWORK; every other
 * caller (MCP on stdio, hooks, a program linking the library) gets
 * MN_FRONT_RELAYED, the default. All but the command line may
 * not change the settings that send data elsewhere or open the store to
 * others (config: embed.url, embed.provider http, embed.key, serve.*,
 * mcp.tools). A request's JSON can never choose it; `actor` is only a name
 * for provenance and audit, and is never used to decide anything.
 */
typedef enum {
    MN_FRONT_RELAYED = 0,   /* requests relayed from an agent or a program: the default */
    MN_FRONT_LOCAL_CLI = 1, /* the user at the mnemo command line */
    MN_FRONT_NETWORK = 2    /* a request `mnemo serve` took off the network: as RELAYED, and
                               never asks the team's remotes (a server asking servers could
                               loop, and would reach hosts for anyone with a token) */
} mn_front_end;

/**
 * What a caller may do (src/api/access.c: one table for every front end).
 * A reader runs what only reads (and context and recall, which record what
 * they served); a writer also saves, updates, forgets, links, ingests; an
 * admin also changes config, imports, exports, reads the audit log, runs
 * gc and scan, and anything that reads the server's own files (index).
 * The user at their own store (the CLI, `mnemo mcp` on stdio, hooks, a
 * loopback server in local mode) is its admin; a token of the team server
 * carries its own role.
 */
typedef enum { MN_ROLE_READER = 1, MN_ROLE_WRITER = 2, MN_ROLE_ADMIN = 3 } mn_role;

typedef struct {
    unsigned version;
    const char *db_path;    /* explicit database (--db); NULL: MNEMO_DB, then discovery */
    const char *start_dir;  /* where discovery starts; NULL: the current directory */
    const char *actor;      /* who calls, for provenance and audit: "cli", "mcp", ... */
    bool create;            /* create the store when none exists */
    bool progress;          /* long operations draw a progress line on stderr */
    mn_front_end front_end; /* what it may change: see mn_front_end */
    const char *project;    /* the project opened; NULL: $MNEMO_PROJECT, else "default" */
    mn_role role;           /* what the caller may run (mn_role); 0 is taken as reader */
} mn_ctx_options;

#define MN_CTX_OPTIONS_VERSION 1
#define MN_CTX_OPTIONS_INIT                                                             \
    {                                                                                   \
        MN_CTX_OPTIONS_VERSION, NULL, NULL, "cli", true, false, MN_FRONT_RELAYED, NULL, \
            MN_ROLE_ADMIN                                                               \
    }

/** Where a store lives: the database file and the repository root (NULL outside one). */
typedef struct {
    char *db_path;
    char *root;
    const char *how; /* "--db", "MNEMO_DB", "repository", "user default" */
} mn_location;

/**
 * Find the store as git finds its repository: an explicit path, else
 * $MNEMO_DB, else the nearest .mnemo/ directory above start_dir, else the
 * root of the enclosing git repository (<root>/.mnemo/mnemo.db), else the
 * per-user default ($XDG_DATA_HOME or ~/.local/share)/mnemo/mnemo.db.
 * Release with mn_location_release().
 */
int mn_locate(mn_location *out, const char *explicit_path, const char *start_dir);
void mn_location_release(mn_location *loc);
/**
 * Whether db_path names a file (a SQLite store), not a database server's
 * URL or conninfo: only a file has a directory beside it for locks, side
 * files and the warm path's socket.
 */
bool mn_location_is_file(const char *db_path);

/**
 * Create .mnemo/ at dir (a repository root), add it to .git/info/exclude
 * when dir is a git work tree, and create the database. *out_db (malloc'd)
 * is the database path. Succeeds on an existing store.
 */
int mn_init_at(char **out_db, const char *dir);

int mn_ctx_open(mn_ctx **out, const mn_ctx_options *opts);
void mn_ctx_free(mn_ctx *ctx);
/** The database path and repository root (NULL outside a repository); owned by ctx. */
const char *mn_ctx_db_path(const mn_ctx *ctx);
/** The store as it may be printed: its path, or its URL or conninfo without the password. */
const char *mn_ctx_db_shown(const mn_ctx *ctx);
const char *mn_ctx_root(const mn_ctx *ctx);
/** The name of the project ctx opened; owned by ctx. */
const char *mn_ctx_project(const mn_ctx *ctx);
/**
 * Who calls from now on: the actor name written in audit rows and the role
 * every mn_api_call is checked against. A server sets it per request on a
 * context it keeps per (thread, project). Fails only on an empty actor.
 */
int mn_ctx_set_principal(mn_ctx *ctx, const char *actor, mn_role role);

/**
 * Bring up to date what answering a question needs, so that the next one
 * does not wait for it: rebuild the memories' full-text index when writes
 * have split it into many segments (0.6 s at 100,000 memories, rare), train
 * the built-in embedding model when it is due, embed what has no vector
 * yet, load the stored vectors into the process, and mn_ctx_warm.
 * Cheap (two reads) when nothing changed since the last call. For servers
 * between requests: after a save, this is ~100 ms on a large index that
 * the next `context` would otherwise pay. A failure is logged and
 * returned; nothing stored is lost, and queries work without it.
 */
int mn_ctx_prepare(mn_ctx *ctx);
/**
 * The part of mn_ctx_prepare that writes nothing and embeds nothing: read
 * what ranking keeps in memory (the memories' lengths in tokens; one scan,
 * ~20 ms at 100,000 memories, then one row read while nothing changed). A
 * server runs it once after its first request, so that a session that only
 * asks does not wait for a write to have it; mn_ctx_warmed tells whether it
 * has run (mn_ctx_prepare runs it too).
 */
int mn_ctx_warm(mn_ctx *ctx);
bool mn_ctx_warmed(const mn_ctx *ctx);

typedef enum {
    MN_OP_READONLY = 1 << 0,    /* changes nothing */
    MN_OP_DESTRUCTIVE = 1 << 1, /* may delete or overwrite what was stored */
    MN_OP_IDEMPOTENT = 1 << 2,  /* calling twice with the same input does nothing more */
    MN_OP_MCP_DEFAULT = 1 << 3  /* an MCP tool unless config mcp.tools says otherwise */
} mn_op_flags;

typedef struct mn_op {
    const char *name;
    const char *summary;        /* one line, for lists and --help */
    const char *description;    /* when and how to use it, for --help and MCP */
    const char *input_schema;   /* JSON Schema text */
    const char *output_schema;  /* JSON Schema text */
    unsigned flags;             /* mn_op_flags */
    const char *cli_positional; /* input property filled by CLI positional words, or NULL */
    int (*handler)(mn_ctx *ctx, const json_t *args, json_t **out);
} mn_op;

/** The operation table, in a stable order. */
const mn_op *mn_api_ops(size_t *count);
/** The operation with this name, or NULL. */
const mn_op *mn_api_find(const char *name);
/**
 * true when op with these args (may be NULL) only looks at what is stored:
 * an op flagged MN_OP_READONLY, one that writes only when asked (config get
 * and list, review's list, scan without fix, gc and consolidate without
 * apply), and stale (it notes what it checked). The command line finds a
 * store for such a call and never makes one.
 */
bool mn_api_op_looks(const mn_op *op, const json_t *args);
/** The parsed input (or output) schema of an op; borrowed, valid for the process. */
const json_t *mn_api_input_schema(const mn_op *op);
const json_t *mn_api_output_schema(const mn_op *op);

/**
 * True when ctx's role may run op (src/api/access.c); mn_api_call refuses
 * the others with MN_EDENIED. MCP's tools/list offers only these.
 */
bool mn_api_allowed(const mn_ctx *ctx, const mn_op *op);

/**
 * Validate args against the op's input schema and run it. Returns 0 with
 * *out set, or an mn_error_code with a one-line message (mn_error_last())
 * naming the op. MN_EINVAL means the input was wrong (a usage error).
 */
int mn_api_call(mn_ctx *ctx, const char *name, const json_t *args, json_t **out);

/**
 * Told of every mn_api_call of a known op once it returns: the op's name,
 * the result (0 or an mn_error_code), the input, the answer (NULL when it
 * failed) and the time it took in ns. Runs on the calling thread: must be
 * thread-safe and quick, and must not call mn_api_call.
 */
typedef void (*mn_api_observer)(const char *op, int rc, const json_t *args, const json_t *out,
                                uint64_t ns);
/** Set the process's one observer (a server's metrics, src/http/metrics.c); NULL removes it. */
void mn_api_observer_set(mn_api_observer fn);

/**
 * Write the audit row of an MCP resource read (op "resource", target the
 * URI, detail {ids: the memory ids it served}). Best effort: a store that
 * cannot be written skips it and the read stands.
 */
void mn_api_audit_resource(mn_ctx *ctx, const char *uri, const json_t *ids);

/**
 * Which operations are MCP tools, from a value of config mcp.tools:
 * "default" (the ops flagged MN_OP_MCP_DEFAULT), "all", or op names
 * separated by commas (spaces around them allowed). selected has one entry
 * per op of mn_api_ops(). Returns 0 or MN_EINVAL naming the unknown op.
 */
int mn_api_tools_select(bool *selected, const char *spec);

/**
 * The note `context` adds when called with refresh false on an index older
 * than config index.refresh_age: the caller should refresh it (mnemo hook
 * starts `mnemo index` in the background).
 */
#define MN_API_NOTE_STALE "the index is older than index.refresh_age and was not refreshed"

/** Largest JSON request the front ends accept, in bytes. */
#define MN_API_MAX_REQUEST (64u << 20)

#ifdef __cplusplus
}
#endif

#endif
