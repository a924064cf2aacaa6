/*
 * ingest_internal.h - what the files of src/ingest/ share: text hygiene,
 * the keyed save every ingest goes through (save.c), and the small
 * language helpers of the extractors.
 */
#ifndef MN_INGEST_INTERNAL_H
#define MN_INGEST_INTERNAL_H

#include <git2.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "ingest/candidate.h"
#include "ingest/ingest.h"
#include "text/decision.h"
#include "util/libs.h"

/* ---- text (cand_util.c) ---- */

/** Invalid UTF-8 bytes of s[0, len) become '?', in place (NUL bytes too). */
void mn_ingest_utf8_fix(char *s, size_t len);
/** A NUL-terminated, valid UTF-8 copy of s[0, len) (git.c). */
char *mn_ingest_text_dup(const char *s, size_t len);
/** s[0, len) with secrets (and personal data, as the project redacts) replaced; malloc'd. */
char *mn_ingest_scrub_text(const mn_ingest_env *env, const char *s, size_t len);
/**
 * s[0, len) scrubbed as mn_ingest_scrub_text, then cut to at most max bytes
 * on a code point boundary: valid UTF-8, NUL-terminated, malloc'd. Text
 * from outside (a commit message, a transcript's turn) goes through it
 * before any cut, so that no cut leaves part of a secret for the pipeline's
 * scrub to miss.
 */
char *mn_ingest_scrub_cut(const mn_ingest_env *env, const char *s, size_t len, size_t max);
/**
 * At most max code points of s, cut at a word boundary when one is near, "…" added. For
 * text scrubbed already (or made by mnemo); mn_ingest_clip_scrubbed scrubs s first when
 * it has to cut.
 */
char *mn_ingest_clip(const char *s, size_t max);
char *mn_ingest_clip_scrubbed(const mn_ingest_env *env, const char *s, size_t max);
/** Collapse runs of white space (newlines included) to one space, trimmed; malloc'd. */
char *mn_ingest_one_line(const char *s, size_t len);
/** Lower case ASCII, trimmed of quotes, backticks and punctuation at the ends; malloc'd. */
char *mn_ingest_norm(const char *s, size_t len);
/** xxh3 of s as 16 hex digits. */
void mn_ingest_hash(char out[17], const char *s, size_t len);

/*
 * A definition on one line of code in language (python, javascript,
 * typescript, tsx, go, rust, java, csharp, kotlin, ruby, php, c, cpp): its
 * name (into name, cap bytes), whether it is public API (not _private,
 * exported, pub, public, Capitalised in Go, not static in C), its kind
 * (function, class, method, type) and the text after the name (*tail: the
 * parameters, for telling a rename). False when the line defines nothing.
 */
bool mn_def_line(const char *language, const char *line, size_t n, char *name, size_t cap,
                 bool *public_api, const char **kind, const char **tail);

/* ---- decisions (cand_util.c) ---- */

/*
 * A decision's title: the sentence that states it (text/decision.h gives
 * the statement, sometimes only its opening words: "We decided"), cut
 * where its reason starts ("because ..." is the memory's reason, not its
 * title), at most 200 characters.
 */
char *mn_ingest_decision_title(const char *text, const mn_decision *d);
/** span cut where one of d's reasons starts inside it (an alternative running into "because"). */
mn_text_span mn_ingest_cut_reason(const char *text, mn_text_span span, const mn_decision *d);

/* ---- saving (save.c) ---- */

typedef struct {
    size_t saved, queued, merged, unchanged, updated, refused, superseded;
} mn_ingest_tally;

/* What a git candidate's memory says of its commit. */
typedef struct {
    const char *sha;
    const char *author;
    int64_t time_ms;
    const char *date;
    const char *subject;
    const json_t *refs; /* [{task, kind}] the message names */
    const char *branch; /* HEAD's branch, NULL when detached */
} mn_ingest_commit_meta;

/**
 * Save one git candidate (unless its key was saved before): the memory
 * (kind, title, body with the evidence, scope, provenance git with the
 * full sha, a derived_from link to commit:<sha>), its key, the chains it
 * continues (a revert supersedes what its commit undid; a fact replaces
 * the one of the same state key; a decision the one that chose what it
 * replaces). *status: the saved memory's status (NULL when skipped).
 * items (may be NULL) gets a report row. A refused save (mostly a secret)
 * is counted, not an error.
 */
int mn_ingest_save_candidate(mn_store *s, const mn_ingest_env *env, const mn_memory_settings *cfg,
                             const mn_ingest_commit_meta *meta, mn_candidate *c,
                             mn_ingest_tally *tally, json_t *items, const char **status);

/** A report row for a candidate: {kind, title, confidence, sha, file, hunk, id?, status?}. */
json_t *mn_ingest_candidate_json(const mn_candidate *c, const mn_commit_view *v,
                                 const json_t *saved);

/**
 * Save mem (the save input) under key, or update the memory already saved
 * under it when source_hash differs: the fields the source changed take its
 * values, what a person changed (tags added or removed, a field the source
 * does not set, one it did not change) stays (save.c: the record of what the
 * source gave, kept beside its hash); a forgotten memory is left alone.
 * *out: the save's or update's result with "action" (created, merged,
 * updated, unchanged, refused). The key is recorded in its own transaction.
 */
int mn_ingest_save_keyed(mn_store *s, const mn_memory_settings *cfg, const char *key,
                         const char *source_hash, json_t *mem, mn_ingest_tally *tally,
                         json_t **out);

/** Mark a memory superseded by another (a supersedes link, status superseded). */
int mn_ingest_supersede(mn_store *s, const mn_memory_settings *cfg, const char *newer,
                        const char *older);

/** Set a memory's status (an ADR's, an issue's): an update through the pipeline. */
int mn_ingest_set_status(mn_store *s, const mn_memory_settings *cfg, const char *id,
                         const char *status);

/* ---- branches (git.c / retrieve/branch.c) ---- */

/** Remember that these commits are ancestors of head (they were walked from it). */
void mn_ingest_note_ancestors(mn_store *s, const mn_git_api *git, const git_oid *head,
                              const git_oid *oids, size_t n);

#endif
