/*
 * api_internal.h - what the operation handlers share: the context they run
 * in, and the per-project settings read from the config table.
 */
#ifndef MN_API_INTERNAL_H
#define MN_API_INTERNAL_H

#include "mnemo/api.h"
#include "memory/memory.h"
#include "retrieve/embed.h"
#include "store/store.h"

struct mn_ctx {
    mn_store *store;
    char *db_path;
    char *root;
    const char *how; /* mn_location.how: "repository" when the store lives in root's .mnemo/ */
    char *actor;     /* who calls: audit rows name it (mn_ctx_set_principal) */
    char *project;   /* the project opened */
    mn_role role;    /* what the caller may run (access.c) */
    char *author;
    mn_memory_settings settings;
    bool settings_loaded;
    bool progress;
    bool warmed;    /* mn_ctx_warm has run */
    bool local_cli; /* opened by the mnemo command (MN_FRONT_LOCAL_CLI): config may change all */
    bool network;   /* a request of `mnemo serve` (MN_FRONT_NETWORK): the remotes are not asked */
    /* context, recall, plan and ingest answer from the index as it is, never index first: a
     * team server's request worker (server.c project_root; its sync keeps the index fresh) */
    bool no_refresh;
    /* the server's own reads (metrics' store sizes) are nobody's: no audit row (op_audit.c) */
    bool own_reads;
    /* secrets and personal data (mn_api__scanner): the project's rules, loaded once */
    mn_scanner *scanner;
    const mn_scanner *scanner_used; /* scanner, or the built-in rules */
    unsigned redact_out;            /* classes redacted from every answer */
    /* memory.ttl.<kind> in ms (op_lifecycle.c: mn_api__expiry), read once per context */
    bool lifecycle_loaded;
    int64_t kind_ttl_ms[MN_MEMORY_KINDS];
    /* the project's config rows, read once per operation (config.c: effective), NULL until
     * a setting is read; mn_api_call drops it before each op, mn_api__config_changed after
     * a write */
    json_t *config_rows;
};

/**
 * The scanner for this project (once per context): the built-in rules and
 * the project's own file (<root>/.mnemo-scan.yaml, docs/internals/scan.md),
 * and which classes every answer is scrubbed of (config scan.pii).
 */
int mn_api__scanner(mn_ctx *ctx, const mn_scanner **out);
/** The name of the token the caller holds ("token:NAME" actor), or NULL. api.c. */
const char *mn_api__token_name(const mn_ctx *ctx);
/** settings.author for the caller: a token's name, else user.name (or $USER). api.c. */
void mn_api__settings_author(mn_ctx *ctx);
/** Drop the config rows read for this operation: the next setting read reads them again. */
void mn_api__config_changed(mn_ctx *ctx);
/** Load memory settings from config (once per context). */
int mn_api__settings(mn_ctx *ctx, const mn_memory_settings **out);
/** The effective value of a duration config key (discovery.max_age), in ms; 0 means never. */
int mn_api__config_duration(mn_ctx *ctx, int64_t *out, const char *key);
/**
 * Rebuild the memories' full-text index when writes have split it
 * (mn_store_fts_tidy), where no one waits for an answer: mn_ctx_prepare
 * and op index. A failure is logged, not returned: the index works as it is.
 */
void mn_api__tidy(mn_ctx *ctx);
/**
 * Built-in models trained by this process (mn_api__embedder: one caller at a
 * time per project; the others use the current model meanwhile).
 */
uint64_t mn_api__embed_trainings(void);
/** How long served answers are kept: config served.max_age (ms) and served.max_rows; 0: no limit.
 */
int mn_api__served_limits(mn_ctx *ctx, int64_t *max_age_ms, int64_t *max_rows);
/**
 * Record an answer in the served table (op, query, items) and count a hit
 * on each memory (rows: their row ids), then forget what served.* says is
 * too old, in one transaction. Best effort: when the store cannot be
 * written (read-only, disk full, locked too long) nothing is recorded,
 * *id stays 0 and a note saying why goes into notes; the answer stands.
 */
void mn_api__record_served(mn_ctx *ctx, const char *op, const char *query, const json_t *items,
                           const int64_t *rows, size_t nrows, int64_t *id, json_t *notes);
/** search under another op's name (search_code): served and audited as that op. */
int mn_api__search(mn_ctx *ctx, const char *op, const json_t *args, json_t **out);
/**
 * One audit row for a read or an export that records no served answer, in
 * its own transaction; a read row is pruned as served.* says. Best effort:
 * skipped on a read-only store, logged when it fails; the read stands.
 * op_audit.c.
 */
void mn_api__audit_read(mn_ctx *ctx, const char *op, const char *target, const json_t *detail);
/**
 * The audit row of a read whose handler records nothing itself (get, list,
 * chain, open_doc, plan_files): the ids (or files) its answer `out` shows,
 * through mn_api__audit_read. Nothing for other ops, nor while
 * ctx->own_reads is set. mn_api_call calls it after a read succeeded.
 */
void mn_api__audit_answer(mn_ctx *ctx, const char *op, const json_t *out);
int mn_op_audit(mn_ctx *ctx, const json_t *args, json_t **out);
/** A KEY_INT or KEY_RATIO config key's effective value. */
int mn_api__config_number(mn_ctx *ctx, double *out, const char *key);
/** A KEY_BOOL config key's effective value. */
int mn_api__config_bool(mn_ctx *ctx, bool *out, const char *key);

int mn_op_save(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_get(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_list(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_update(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_forget(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_link(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_export(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_import(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_config(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_index(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_status(mn_ctx *ctx, const json_t *args, json_t **out);
/**
 * status --files: walk root and set in out the counts fresh, stale, new,
 * removed and the lists stale_files, new_files, removed_files (path order,
 * at most files_listed_max each). status_files.c.
 */
int mn_api__status_files(mn_ctx *ctx, const char *root, json_t *out);
int mn_op_files(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_symbols(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_graph(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_discover(mn_ctx *ctx, const json_t *args, json_t **out);
/** The embedder settings from config (embed.*); release with mn_embed_options_release. */
int mn_api__embed_options(mn_ctx *ctx, mn_embed_options *out);
/**
 * The configured embedder, trained and synced (all of it, or a bounded part
 * before a query): *out NULL and *note saying why when there is none. Free
 * both. Fails only on a bad config value.
 */
int mn_api__embedder(mn_ctx *ctx, bool for_query, mn_embedder **out, char **note);
/** Index (and discover) when nothing is indexed or the index is older than index.refresh_age. */
int mn_api__ensure_fresh(mn_ctx *ctx, const json_t *args, json_t *notes);
/** args.as_of (the moment a question is asked) in ms into *now_ms; 0 when not given. */
int mn_api__as_of(const json_t *args, int64_t *now_ms);
int mn_op_context(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_recall(mn_ctx *ctx, const json_t *args, json_t **out);

/* ---- the life cycle (op_lifecycle.c) ---- */
/**
 * The expiry test of answers at the wall clock: what expired (a memory's
 * ttl, its kind's memory.ttl.<kind>) is not served. Fails only on a bad
 * config value.
 */
int mn_api__expiry(mn_ctx *ctx, mn_expiry *out);
/**
 * Before answering (search, context, recall): when the index marked
 * citations for a check that has not run (an index run by another
 * process, an interrupted one), run it. One index probe when there is
 * none; best effort: a store that cannot be written answers as it is.
 */
void mn_api__citations_current(mn_ctx *ctx);
/** After an index run: check the citations it marked (counts into out as "citations"). */
int mn_api__citations_after_index(mn_ctx *ctx, json_t *out);
int mn_op_stale(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_revalidate(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_gc(mn_ctx *ctx, const json_t *args, json_t **out);

#endif
