/*
 * store_ingest.h - what the ingests (src/ingest/) and the branch and "why"
 * parts of retrieval keep in the store (schema v12, sqlite/ingest_store.c):
 *
 *   git commits    every commit read, claimed before its candidates are
 *                  saved and marked done after (a re-run or a concurrent
 *                  hook never extracts one twice), with its files;
 *   ingest keys    the memory an ingest made from a stable source key, so
 *                  a re-run updates in place instead of saving again;
 *   tasks          issues from a tracker, and what they are tied to;
 *   documents      the text of ingested documents (open_doc);
 *   ancestry       whether a commit is an ancestor of a HEAD (branches);
 *   blame          the commits behind a file's lines, per blob.
 *
 * Conventions of store.h: writes between mn_store_begin and commit; reads
 * anywhere; strings and JSON returned through `out` are the caller's.
 * Nothing here scrubs: callers hand in text that went through the scanner.
 */
#ifndef MN_STORE_INGEST_H
#define MN_STORE_INGEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/* ---- git commits ---- */

typedef struct {
    const char *sha; /* full hex sha */
    const char *parents;
    const char *author;
    int64_t time_ms;
    const char *subject;
    const char *body;
    const json_t *symbols; /* array of strings, or NULL */
    const char *const *paths;
    const char *const *statuses; /* added modified deleted renamed, per path */
    size_t npaths;
    int candidates, saved, queued;
} mn_git_commit_rec;

/**
 * Claim a commit for extraction: *claimed true when no row had it (a
 * 'claimed' row is written), or when a row was left claimed more than
 * stale_ms ago by a run that died; false when it is done or another run
 * holds it. Write transaction.
 */
int mn_store_git_commit_claim(mn_store *s, const char *sha, int64_t stale_ms, bool *claimed);
/** Give up a claim (the row goes). Write transaction. */
int mn_store_git_commit_unclaim(mn_store *s, const char *sha);
/** Fill a claimed row in and mark it done, with its paths. Write transaction. */
int mn_store_git_commit_finish(mn_store *s, const mn_git_commit_rec *c);
/** Call cb with the sha of every commit done, in no order. */
int mn_store_git_commits_done_each(mn_store *s, int (*cb)(void *payload, const char *sha),
                                   void *payload);
/** Commits done and claimed, and the newest done commit's sha (*newest malloc'd, NULL if none). */
int mn_store_git_commit_counts(mn_store *s, int64_t *done, int64_t *claimed, char **newest);
/**
 * One commit as {sha, parents, author, time, subject, body, symbols,
 * files, candidates, saved, queued}; MN_ENOTFOUND when not ingested.
 */
int mn_store_git_commit_get(mn_store *s, const char *sha, json_t **out);
/** The shas of the newest commits (done) that touched path, newest first, at most limit. */
int mn_store_git_commits_for_path(mn_store *s, const char *path, size_t limit,
                                  int (*cb)(void *payload, const char *sha, int64_t time_ms),
                                  void *payload);

/* ---- ingest keys ---- */

/** The memory saved under key (*uid: 27 bytes) and its source hash (*hash malloc'd, may be NULL).
 */
int mn_store_ingest_key_get(mn_store *s, const char *key, char uid[27], char **hash);
/** Remember (or move) key -> memory. Write transaction. */
int mn_store_ingest_key_set(mn_store *s, const char *key, const char *uid, const char *hash);
int mn_store_ingest_key_del(mn_store *s, const char *key);
/** Every key starting with prefix (and its memory), in key order. */
int mn_store_ingest_keys_each(mn_store *s, const char *prefix,
                              int (*cb)(void *payload, const char *key, const char *uid),
                              void *payload);

/* ---- tasks ---- */

typedef struct {
    const char *tracker;     /* github, jira, youtrack */
    const char *external_id; /* "#123", "CS-214" */
    const char *title;
    const char *body; /* the issue and its comments */
    const char *state;
    const char *url;
    const char *author;
    const json_t *labels; /* array of strings, or NULL */
    int64_t created_ms, updated_ms, closed_ms;
} mn_task_rec;

/** Insert or update a task; *changed false when the stored one had the same updated time and text.
 */
int mn_store_task_upsert(mn_store *s, const mn_task_rec *t, bool *changed);
/**
 * A task by its id as written ("#123", "CS-214"), any tracker, as
 * {tracker, id, title, body, state, url, author, labels, created_at,
 * updated_at, closed_at}; MN_ENOTFOUND.
 */
int mn_store_task_get(mn_store *s, const char *external_id, json_t **out);
/** Tie a task key to a memory id or a reference; an existing tie keeps its kind. Write tx. */
int mn_store_task_link(mn_store *s, const char *task_key, const char *ref, const char *kind);
/** Everything tied to a task: [{ref, kind, created_at}] (*out). */
int mn_store_task_links(mn_store *s, const char *task_key, json_t **out);
/** The tasks a reference is tied to: [{task, kind}] (*out). */
int mn_store_task_links_of(mn_store *s, const char *ref, json_t **out);

/* ---- documents ---- */

typedef struct {
    const char *path; /* relative to the project root, or the URL for a remote document */
    const char *kind; /* adr, wiki, note, doc */
    const char *title;
    const char *body;
    const char *hash;
    const char *url;
} mn_doc_rec;

int mn_store_doc_upsert(mn_store *s, const mn_doc_rec *d);
/**
 * A document by its path, else its URL, else its title (case-insensitive,
 * whole, then a unique prefix, then a unique part): {path, kind, title, body, url, updated_at};
 * MN_ENOTFOUND, or MN_EAMBIGUOUS when a title prefix names several.
 */
int mn_store_doc_find(mn_store *s, const char *path, const char *url, const char *title,
                      json_t **out);

/* ---- branches ---- */

/** For each sha, the cached answer for head: cb(sha, merged) for those known. */
int mn_store_ancestry_get(mn_store *s, const char *head, const char *const *shas, size_t n,
                          int (*cb)(void *payload, const char *sha, bool merged), void *payload);
/** Remember whether sha is an ancestor of head. Write transaction. */
int mn_store_ancestry_put(mn_store *s, const char *head, const char *sha, bool merged);
/** The heads with cached answers, newest first (at most max). */
int mn_store_ancestry_heads(mn_store *s, size_t max, int (*cb)(void *payload, const char *head),
                            void *payload);
/** Copy from's merged answers to to (to descends from from). Write transaction. */
int mn_store_ancestry_inherit(mn_store *s, const char *from, const char *to);
/** Keep the answers of the keep newest heads only. Write transaction. */
int mn_store_ancestry_prune(mn_store *s, size_t keep);

/** (branch, commit) of memory rows (NULL when unset): cb for each row that has either. */
int mn_store_memories_origin(mn_store *s, const int64_t *rowids, size_t n,
                             int (*cb)(void *payload, int64_t rowid, const char *branch,
                                       const char *commit),
                             void *payload);
/** Every distinct provenance.commit of live memories. */
int mn_store_memory_commits_each(mn_store *s, int (*cb)(void *payload, const char *sha),
                                 void *payload);

/* ---- blame ---- */

int mn_store_blame_get(mn_store *s, const char *path, const char *blob, int64_t first, int64_t last,
                       char **hunks_json);
int mn_store_blame_put(mn_store *s, const char *path, const char *blob, int64_t first, int64_t last,
                       const char *hunks_json);

/* ---- memories by link ---- */

/** Live memories with a link (any kind) to ref ("commit:<sha>"): cb(uid), at most limit. */
int mn_store_memories_linked_to(mn_store *s, const char *ref, size_t limit,
                                int (*cb)(void *payload, const char *uid), void *payload);

#endif
