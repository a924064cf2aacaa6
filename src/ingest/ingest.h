/*
 * ingest.h - memory that fills itself: what the project already wrote down
 * (its git history, its documents, its issue tracker, its agents'
 * conversations) turned into memories through the save pipeline
 * (docs/internals/ingest.md).
 *
 *   mn_ingest_git      commits -> fact, decision and gotcha candidates
 *                      (git.c, the extractors of extractors.c);
 *   mn_ingest_docs     Markdown/reST folders -> doc memories, ADRs ->
 *                      decisions with their status (docs.c, markdown.c);
 *   mn_ingest_issues   GitHub, Jira, YouTrack JSON -> tasks, and the
 *                      decisions their threads state (issues.c);
 *   mn_capture         a transcript or a text -> decisions, gotchas and
 *                      fixed errors (capture.c);
 *   mn_decision_record, mn_decision_chain   decisions and their causal
 *                      chains (decide.c).
 *
 * Every memory goes through mn_memory_save (scrub, dedup, judge) with the
 * settings of mn_ingest_env; every text kept elsewhere (a commit message, an
 * issue's thread, a document) is scrubbed with the same scanner first. A
 * stable key per source (store_ingest.h: ingest keys) makes every ingest
 * idempotent: a re-run skips or updates in place, never duplicates.
 *
 * Outputs are JSON reports the operations return as they are.
 */
#ifndef MN_INGEST_H
#define MN_INGEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "memory/memory.h"
#include "store/store.h"

/* What every ingest needs: where, and how saves are judged. */
typedef struct {
    const char *root; /* the project's root (absolute, canonical); NULL outside one */
    const mn_memory_settings *settings; /* the project's save settings */
    double auto_approve;                /* config capture.auto_approve: at or above, saved active */
    bool progress;                      /* a progress line on stderr */
    /* the store is the repository's (.mnemo/ inside root): what is learnt is placed on
     * HEAD's branch (retrieve/branch.h) */
    bool store_in_root;
} mn_ingest_env;

/*
 * The settings a candidate is saved with: the project's, with the review
 * threshold raised to auto_approve (a candidate below it waits in the
 * review queue as 'pending'). The higher of the two wins, so a project
 * that reviews more than auto_approve keeps its policy.
 */
void mn_ingest_settings(mn_memory_settings *out, const mn_ingest_env *env);

/*
 * The detector's decision confidence (text/decision.h: mostly 0.5-0.7) on
 * the memory scale, where capture.auto_approve (0.85) must mean "right on
 * the labelled set": m = 0.5 + 1.75 (d - 0.5), clamped to [0.05, 0.97].
 * d 0.5 -> 0.5 (the review threshold), 0.6 -> 0.675, 0.7 -> 0.85 (precision
 * 1.00 on tests/data/decisions at d >= 0.7, docs/internals/decisions.md).
 */
double mn_ingest_detector_confidence(double d);

/* ---- git (git.c) ---- */

typedef struct {
    const char *since; /* a revision: commits reachable from HEAD and not from it; NULL: all */
    size_t max;        /* at most this many commits this run, the newest; 0: no limit */
    bool incremental;  /* only the commits after the newest one ingested (the hook, `extract`);
                          none ingested yet: HEAD alone (max 0) or the newest max */
    bool dry_run;      /* candidates only, nothing saved or recorded */
} mn_git_ingest_opts;

#define MN_GIT_INGEST_OPTS_INIT \
    {                           \
        NULL, 0, false, false   \
    }

/**
 * Read the history of the repository at env->root and save each new
 * commit's candidates. *out: {commits: {seen, ingested, skipped, merges},
 * candidates: {by kind}, saved, queued, merged, items: [...], seconds}.
 * A directory outside git: MN_EINVAL naming it.
 */
int mn_ingest_git(mn_store *s, const mn_ingest_env *env, const mn_git_ingest_opts *opts,
                  json_t **out);

/* ---- documents (docs.c) ---- */

/**
 * Ingest the Markdown and reST files under each path (files or
 * directories, confined to env->root). *out: {files, sections, created,
 * updated, unchanged, archived, decisions, items: [...]}.
 */
int mn_ingest_docs(mn_store *s, const mn_ingest_env *env, const char *const *paths, size_t n,
                   json_t **out);
/** A document by title, path (confined) or URL: {path, title, kind, body, url, memories}. */
int mn_open_doc(mn_store *s, const mn_ingest_env *env, const json_t *args, json_t **out);

/* ---- issues (issues.c) ---- */

/** Ingest an issue export (a file confined to env->root, or the JSON itself). */
int mn_ingest_issues(mn_store *s, const mn_ingest_env *env, const char *path, const json_t *data,
                     json_t **out);
/** Tie an issue to memories, commits and dialogs: {issue, memories, commits, dialogs, kind}. */
int mn_link_issue(mn_store *s, const mn_ingest_env *env, const json_t *args, json_t **out);
/**
 * Issue ids a text refers to ("Fixes #123", "CS-214", "GH-7"): *out is a
 * JSON array of {task, kind} (fixes when a closing word precedes it,
 * else mentions), each id once.
 */
void mn_issue_refs(json_t **out, const char *text, size_t len);

/* ---- conversations (capture.c) ---- */

/**
 * Candidates from a conversation: args {transcript_path | text,
 * session_id, dry_run}. A transcript must lie inside env->root or the
 * Claude Code transcript directory (~/.claude/projects, or
 * $CLAUDE_CONFIG_DIR/projects).
 */
int mn_capture(mn_store *s, const mn_ingest_env *env, const json_t *args, json_t **out);

/* ---- decisions (decide.c) ---- */

int mn_decision_record(mn_store *s, const mn_ingest_env *env, const json_t *args, json_t **out);
/**
 * The causal chain of decisions from an id, or from the decisions a query
 * finds: {roots: [node], ...}, node = {id, title, status, date, reasons,
 * links: [{relation, node}]}.
 */
int mn_decision_chain(mn_store *s, const json_t *args, json_t **out);

/* ---- paths (paths.c) ---- */

/**
 * path (relative to root, or absolute) as a canonical absolute path that
 * lies inside one of the fences (canonical directories); *rel (may be
 * NULL) its path relative to the first fence holding it. MN_EINVAL when
 * it is outside them (symbolic links resolved), MN_ENOTFOUND when it does
 * not exist.
 */
int mn_ingest_confine(char **out, char **rel, const char *root, const char *path,
                      const char *const *fences, size_t nfences, const char *what);

#endif
