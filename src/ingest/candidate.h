/*
 * candidate.h - what the git extractors see of a commit, and what they
 * propose: one candidate per fact, each with a kind, a confidence and its
 * evidence (the sha, the file, the hunk).
 *
 * A commit view (git.c) holds the message and the changed files against
 * the first parent; a file's old and new text and its patch are read only
 * when an extractor asks (mn_delta_text, mn_delta_patch), once. Each
 * extractor (extractors.c lists them: cand_*.c) appends candidates to a
 * list; git.c saves them through the save pipeline (save.c).
 *
 * Keys: a candidate's key is stable across runs ("dep:pip:requests:added",
 * "api:requests/api.py:get:removed"); with the sha it names the memory in
 * the ingest keys, so a re-run never saves it twice.
 */
#ifndef MN_INGEST_CANDIDATE_H
#define MN_INGEST_CANDIDATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index/classify.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/vec.h"

typedef enum {
    MN_DELTA_ADDED,
    MN_DELTA_MODIFIED,
    MN_DELTA_DELETED,
    MN_DELTA_RENAMED
} mn_delta_status;

/* One hunk of a file's patch (no context lines). */
typedef struct {
    int64_t old_start, old_lines, new_start, new_lines;
    char *header;  /* the function context git found ("def get(url):"), may be "" */
    char *removed; /* the removed lines, each ending in '\n' */
    char *added;   /* the added lines */
} mn_hunk;

typedef struct {
    char *path;     /* the new path (the old one when deleted) */
    char *old_path; /* the old path (renames), else the same as path */
    mn_delta_status status;
    mn_file_class cls; /* of the path (and the new text's head) */
    bool binary;       /* libgit2 says so, or the class does */
    /* lazily read (git.c) */
    bool text_read[2];
    char *text[2]; /* [0] old, [1] new; NULL when absent, binary or too big */
    size_t len[2];
    bool patch_read;
    mn_hunk *hunks;
    size_t nhunks;
    bool too_large; /* a side over the bytes read of a file (git.c: MAX_BLOB): neither read */
    void *impl;     /* git.c's ids */
} mn_delta;

typedef struct mn_commit_view {
    char sha[41];
    char short_sha[13];
    char *parents; /* full shas, space separated */
    size_t nparents;
    char *message; /* the whole message, valid UTF-8 */
    char *subject; /* its first line */
    char *author;
    int64_t time_ms;
    char date[11]; /* YYYY-MM-DD */
    mn_delta *deltas;
    size_t ndeltas;
    bool too_big; /* more changed files than are looked at: only the message is read */
    mn_store *store;
    void *impl; /* git.c */
} mn_commit_view;

/** The old (which 0) or new (which 1) text of a delta; NULL when there is none. */
const char *mn_delta_text(mn_commit_view *c, mn_delta *d, int which, size_t *len);
/** The hunks of a text delta (0 of them for a binary one); *n their number. */
const mn_hunk *mn_delta_patch(mn_commit_view *c, mn_delta *d, size_t *n);
/** Whether the parent's tree (before: true) or the commit's holds a path (a file or a directory).
 */
bool mn_commit_has_path(mn_commit_view *c, const char *path, bool before);

typedef struct {
    const char *kind;        /* dependency, runtime, module, api, ci, build, config, migration,
                                decision, gotcha, revert */
    const char *memory_kind; /* fact, decision, gotcha */
    char *key;               /* stable within the commit */
    char *title;
    mn_buf body;
    char *reasons; /* context.situation (a decision's reasons) */
    double confidence;
    json_t *paths;           /* scope.paths (array) */
    json_t *symbols;         /* scope.symbols (array), may be NULL */
    json_t *tags;            /* scope.tags (array) */
    json_t *links;           /* extra links [{kind, to, note?}] */
    char *file;              /* evidence: the file */
    char *hunk;              /* evidence: the hunk's header and lines */
    char *supersedes_commit; /* a revert: the sha it undid */
    /*
     * The state this fact is the latest word on ("dep:pip:chardet",
     * "runtime:python", "chosen:charset_normalizer"): the memory saved
     * under it before is superseded by this one (save.c), which then
     * holds the state. NULL: none.
     */
    char *state_key;
    json_t *supersedes_states; /* more states whose memory this one supersedes, or NULL */
    /* the key names the fact across commits, not within one: a decision a pull request's
     * commit states and its merge repeats is saved once */
    bool global_key;
} mn_candidate;

typedef MN_VEC(mn_candidate) mn_candidate_vec;

/** A new candidate at the end of v (zeroed, with empty arrays); fill it in. */
mn_candidate *mn_candidate_add(mn_candidate_vec *v, const char *kind, const char *memory_kind,
                               double confidence);
void mn_candidates_release(mn_candidate_vec *v);
/** Set the key / title (printf-style). */
void mn_candidate_key(mn_candidate *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mn_candidate_title(mn_candidate *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/**
 * The body's line naming the commit's subject ("Commit message: ..."). The
 * commit's sha, date and author are the memory's provenance and created_at,
 * which answers print ("Saved by Ada (git) on 2024-01-01, commit ..."): in
 * the body they would only repeat them, as numbers and words the save
 * pipeline's near-duplicate check would read as the memory's.
 */
void mn_candidate_intro(mn_candidate *c, const mn_commit_view *v);
/**
 * Evidence: the file and a hunk's text (capped), for the report (ingest_git's
 * items), also written at the end of the body.
 */
void mn_candidate_evidence(mn_candidate *c, const char *file, const mn_hunk *h);
/** The evidence of a whole added file: its first lines (capped). */
void mn_candidate_evidence_text(mn_candidate *c, const char *file, const char *text, size_t len);
/** Add a string to an array unless it is there. */
void mn_strv_add(json_t *arr, const char *s);

/* An extractor: reads the view, appends candidates. Fails only on a store error. */
typedef int (*mn_extractor_fn)(mn_commit_view *c, mn_candidate_vec *out);

typedef struct {
    const char *name; /* the candidate kinds it yields, for the docs and the report */
    mn_extractor_fn fn;
    bool on_merges; /* runs on merge commits too (the message extractors) */
} mn_extractor;

/** The table (extractors.c). */
const mn_extractor *mn_extractors(size_t *n);

/* The extractors (cand_*.c). */
int mn_cand_dependencies(mn_commit_view *c, mn_candidate_vec *out); /* + runtime */
int mn_cand_modules(mn_commit_view *c, mn_candidate_vec *out);
int mn_cand_api(mn_commit_view *c, mn_candidate_vec *out);
int mn_cand_ci_build(mn_commit_view *c, mn_candidate_vec *out); /* ci, build, config */
int mn_cand_migrations(mn_commit_view *c, mn_candidate_vec *out);
int mn_cand_message(mn_commit_view *c, mn_candidate_vec *out); /* decision, gotcha */
int mn_cand_revert(mn_commit_view *c, mn_candidate_vec *out);

/* helpers shared by the extractors (cand_util.c) */

/** Whether a path is of a kind no fact should come from: vendored, generated, lock, test. */
bool mn_cand_noise_path(const mn_delta *d);
/** Version numbers' major parts in a spec ("<1.27,>=1.21.1" -> max 1); -1 when none. */
int mn_version_major(const char *spec);
/** "2.7", "3.12", "pypy3.9" version-looking strings (for CI matrices). */
bool mn_looks_like_version(const char *s);
/** Lines of text: calls cb for each (without '\n'); stops when cb returns non-zero. */
void mn_lines_each(const char *text, size_t len,
                   int (*cb)(void *payload, const char *line, size_t n), void *payload);

#endif
