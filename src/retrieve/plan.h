/*
 * plan.h - `plan`: which files an agent should read for a task, graph
 * first, then semantic, fused under a token budget (issue 23;
 * docs/internals/plan.md has the formulas and their constants).
 *
 * The pipeline (plan.c runs it, plan_graph.c makes the candidates,
 * plan_semantic.c scores them):
 *  1. graph candidates: tier A (the task's text matched directly to
 *     paths, symbol definitions and the lexical file ranking), tier B (one
 *     hop from tier A over imports and calls), tier C (a bounded pool from
 *     the directories of the best seeds and weaker path matches); at most
 *     candidate_cap in all, after a noise filter (lock files, tiny marker
 *     files, tests/docs/config that do not overlap the task);
 *  2. a semantic score in [0, 1] for the best semantic_cap candidates
 *     only, from the first backend of a ladder that answers: the
 *     configured embedder, ripgrep over those files, the built-in scorer;
 *  3. fusion (1 - w) graph + w semantic, w = plan.semantic_weight (0 by
 *     default: measured in docs/internals/plan.md; graph alone without
 *     semantic evidence), the minimum final score, at most 20% tests/docs/config,
 *     and the text cut to a hard token budget with a trace of each
 *     decision.
 * mn_plan_legacy is the plain lexical plan (the search's file ranking)
 * that `--legacy` asks for and that any failure of the graph-first path
 * falls back to.
 *
 * Everything a plan allocates lives in its result's arena
 * (mn_plan_result_release).
 */
#ifndef MN_RETRIEVE_PLAN_H
#define MN_RETRIEVE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "retrieve/tokens.h"
#include "store/store.h"
#include "util/arena.h"

#define MN_PLAN_VERSION        "graph_first_v1"
#define MN_PLAN_LEGACY_VERSION "legacy_v0"
#define MN_PLAN_MAX_MATCHED    8 /* matched terms kept per file */

struct mn_embedder;

typedef struct {
    const char *task;
    const char *root;             /* the project's root: files are read below it only */
    size_t candidate_cap;         /* 0: 60 */
    size_t semantic_cap;          /* 0: 30 */
    double min_final_score;       /* < 0: 0.12 */
    double semantic_weight;       /* of fusion; < 0: W_SEMANTIC (0) */
    size_t budget;                /* tokens of the text; 0: 1800 */
    size_t k;                     /* files in the final set at most; 0: 10 */
    struct mn_embedder *embedder; /* the configured embedder for the semantic stage, or NULL */
    /* the embedder of the search's file ranking (tier A, legacy): its stored vectors */
    struct mn_embedder *search_embedder;
    bool no_ripgrep;                /* skip the ripgrep rung */
    const mn_token_counter *tokens; /* NULL: the estimate */
    /* for ablations (bench_plan --weights): lexical, symbols, path, mention (tier A's noisy-OR)
     * and semantic (fusion); NULL: the defaults of docs/internals/plan.md */
    const double *weights;
} mn_plan_request;

typedef struct {
    int64_t id;
    const char *path, *role;
    int64_t lines;
    char tier;      /* 'A', 'B', 'C' */
    double lexical; /* tier A evidence, each in [0, 1] */
    double symbols, path_match, mention;
    double support;  /* tier B: from matched neighbours */
    const char *why; /* the graph evidence, for people */
    double graph, semantic, final;
    bool semantic_evidence;
    const char *backend; /* semantic_backend_used for this file, or NULL */
    const char *matched[MN_PLAN_MAX_MATCHED];
    size_t nmatched;
    const char *evidence; /* a short line of the file, or NULL */
    bool selected;
} mn_plan_file;

typedef struct {
    const char *pipeline_version;
    const char *backend; /* semantic_backend_used: embedder, ripgrep, builtin, none */
    size_t graph_candidate_count, semantic_hit_count;
    mn_plan_file *files; /* the candidates, best final first */
    size_t nfiles;
    size_t *selected; /* indexes into files, in order */
    size_t nselected;
    const char *text; /* the three sections, within the budget */
    size_t tokens, budget;
    const char **trace; /* the decisions, in order */
    size_t ntrace;
    const char *fallback_reason; /* legacy: why (NULL when asked for) */
    mn_arena arena;
} mn_plan_result;

/** The graph-first plan. out is initialised here; release it with mn_plan_result_release. */
int mn_plan_run(mn_store *s, const mn_plan_request *req, mn_plan_result *out);
/** The plain lexical plan (legacy_v0); reason: why it runs (NULL: asked for). */
int mn_plan_legacy(mn_store *s, const mn_plan_request *req, const char *reason,
                   mn_plan_result *out);
void mn_plan_result_release(mn_plan_result *r);

#endif
