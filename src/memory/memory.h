/*
 * memory.h - the life of a memory: save, update, forget, link, import.
 *
 * The save pipeline (docs/internals/memory.md): validate what the schema
 * cannot (agent saves need trigger keywords; a title or a body) -> distill
 * (derive the title, cap the conversation excerpt, default level and
 * confidence from scope and source) -> deduplicate (the exact content hash:
 * merge into the live memory that has it, union its lists, keep the higher
 * confidence) -> judge (below the review threshold it waits as 'pending')
 * -> store, link and audit in one transaction.
 *
 * Inputs are JSON already validated against the operation's schema;
 * outputs are new JSON references the caller json_decref()s.
 */
#ifndef MN_MEMORY_H
#define MN_MEMORY_H

#include <jansson.h>
#include <stdbool.h>

#include "store/store.h"
#include "text/scan.h"

typedef struct {
    size_t excerpt_cap;        /* bytes kept of a conversation excerpt */
    double review_threshold;   /* confidence below it: status pending */
    bool dedup;                /* merge duplicates (exact and near) */
    const char *author;        /* default provenance author */
    const char *actor;         /* who calls, for the audit log */
    const mn_scanner *scanner; /* secrets and personal data (NULL: nothing is scanned) */
    unsigned redact;           /* classes redacted on the way in (mn_scan_class mask) */
    bool quarantine_pii;       /* personal data kept, the memory quarantined for review */
    bool agent;                /* the caller is an agent (MCP, HTTP, hooks), not a person */
    size_t body_cap;           /* characters a body may have (memory.body_cap; 0: no cap) */
} mn_memory_settings;

int mn_memory_save(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *in);
int mn_memory_update(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *in);
int mn_memory_forget(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *in);
int mn_memory_link(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *in);
int mn_memory_import(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *in);
/**
 * mn_memory_import inside the caller's write transaction, with no audit row
 * of its own (mnemo migrate writes one for the whole move); on failure the
 * caller rolls back. *out: {imported, replaced, skipped, links, redacted}.
 */
int mn_memory_import_within(json_t **out, mn_store *s, const mn_memory_settings *cfg,
                            const json_t *in);

/* What an import did, added to page by page. */
typedef struct {
    int64_t imported, replaced, skipped, links;
    size_t redacted; /* secrets and personal data redacted on the way in */
} mn_memory_import_counts;

/**
 * One page of an import, links excluded, inside the caller's write
 * transaction: the same checks (full ids, each once in the page) and scrub
 * as mn_memory_import; on_conflict "skip" (NULL), "replace" or "fail".
 * first: the index of mems[0] in the whole input, for messages; written
 * (one byte per memory): 1 for each memory written, 0 for one skipped. The
 * counts are added to *c. mnemo migrate imports a store a page at a time
 * so, then every page's links (mn_memory_import_links).
 */
int mn_memory_import_rows(mn_memory_import_counts *c, mn_store *s, const mn_memory_settings *cfg,
                          const json_t *mems, const char *on_conflict, size_t first,
                          unsigned char *written);
/**
 * The links of a page's memories written (written[i], as
 * mn_memory_import_rows set it), after every page's rows: a link may point
 * to a memory of a later page, their targets and notes scrubbed as a
 * save's text. A link there already is not counted.
 */
int mn_memory_import_links(mn_memory_import_counts *c, mn_store *s, const mn_memory_settings *cfg,
                           const json_t *mems, size_t first, const unsigned char *written);
/** {imported, replaced, skipped, links, redacted} of c (new reference). */
json_t *mn_memory_import_counts_json(const mn_memory_import_counts *c);

/** Store filter from the list/export input (since, deleted, ...); caller keeps `in` alive. */
int mn_memory_filter_from_json(mn_memory_filter *f, const json_t *in, const char *deleted_default);

#endif
