/*
 * retrieve.h - hybrid search over memories and code: the engine behind the
 * search operation (and, later, recall and context).
 *
 * mn_search_run takes a question and returns ranked items of three types:
 * memories, code chunks, and files. Each item carries the score of every
 * signal that contributed (lexical, graph, recency, usefulness, scope,
 * level) and the fused score it is ranked by; the formula and its
 * constants are in fusion.c and docs/internals/retrieval.md.
 *
 * The pipeline (search.c): analyse the query (query.c: terms for the
 * full-text index, and the code it names: identifiers, dotted names, paths,
 * traceback frames) -> lexical candidates (lexical.c: bounded FTS5 bm25 over
 * memories and chunks) -> code the query names (symbol definitions, path
 * matches) -> graph (graph.c: matched files spread to their import / call
 * neighbours; memories attached to matched files come along) -> fusion
 * (fusion.c) -> snippets for the items kept.
 *
 * Everything a search allocates lives in its result's arena, released by
 * mn_search_result_release.
 */
#ifndef MN_RETRIEVE_H
#define MN_RETRIEVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store_search.h"
#include "util/arena.h"

enum {
    MN_SEARCH_MEMORY = 1u << 0,
    MN_SEARCH_CODE = 1u << 1,
    MN_SEARCH_FILE = 1u << 2,
};

typedef enum { MN_ITEM_MEMORY, MN_ITEM_CODE, MN_ITEM_FILE } mn_item_type;

/* Signals, each in [0, 1] (usefulness centred on 0.5); `has` says which were computed. */
enum {
    MN_SIG_LEXICAL = 1u << 0,
    MN_SIG_SEMANTIC = 1u << 1,
    MN_SIG_GRAPH = 1u << 2,
    MN_SIG_RECENCY = 1u << 3,
    MN_SIG_USEFULNESS = 1u << 4,
    MN_SIG_SCOPE = 1u << 5,
    MN_SIG_LEVEL = 1u << 6,
    MN_SIG_CONVERSATION = 1u << 7,
    MN_SIG_SPEAKER = 1u << 8,
    MN_SIG_WHEN = 1u << 9,
    MN_SIG_HISTORY = 1u << 10,
    MN_SIG_NAMES = 1u << 11,
    MN_SIG_FILE = 1u << 12, /* the file-only evidence below: a file's whole score */
};

typedef struct {
    double lexical, semantic, graph, recency, usefulness, scope, level;
    double conversation; /* episodes: how well the other turns of their session match */
    double speaker;      /* episodes: said by someone the query names (a "Name:" label) */
    double when;         /* memories: created in the time the query names ("last Saturday") */
    double history;      /* files: past commits that changed it say what the query says */
    double names;        /* files, code: it defines names the query mentions (xr.where) */
    /* files (MN_SIG_FILE): the rest of fusion.c's file formula, so that a
     * file's score can be read off its signals */
    double named_path; /* the query names its path or module path */
    double title;      /* the first line over its chunks / the best file's */
    double path_words; /* the query's words over its path / the best file's */
    double share;      /* its share of the query terms' occurrences / the best file's */
    double fault;      /* the deepest traceback frame in the project, or a link to a line */
    double message;    /* holds an error message the query quotes */
    double graph_gap;  /* the share of graph that counts: 1 - its evidence / the best file's */
    double role;       /* the factor of its role (source 1, test 0.35, doc 0.5, ...) */
    unsigned has;
} mn_signals;

typedef struct {
    mn_item_type type;
    int64_t rowid;                /* memory row, chunk id or file id */
    const char *id;               /* memory id, "chunk:<n>" or the file's path */
    const char *title;            /* memory title; symbol or path:lines; path */
    const char *path;             /* code and files; NULL for memories */
    int64_t start_line, end_line; /* code: the chunk's lines; 0 otherwise */
    const char *kind;             /* memory kind, symbol kind, file role */
    const char *status;           /* memories: active, pending, ... ("stale" when marked) */
    int level;                    /* memories: 0..3 */
    double score;                 /* fused */
    mn_signals sig;
    const char *snippet; /* filled for the items returned */
    /* evidence kept for files: their best chunk */
    int64_t best_chunk;
} mn_search_item;

struct mn_embedder;

typedef struct {
    const char *query;
    unsigned kinds; /* MN_SEARCH_*; 0: memory | code */
    /* the semantic signal: an embedder whose vectors are stored (embed.h);
     * NULL: none (the answer's notes say so, semantic_note says why) */
    struct mn_embedder *embedder;
    const char *semantic_note;
    size_t k; /* items wanted; 0: 10 */
    /* memory filters (store_search.h); match and limit are set by the search */
    mn_memory_query filter;
    bool status_given;        /* filter.statuses came from the caller */
    const char *const *files; /* paths in scope */
    size_t nfiles;
    int64_t now_ms; /* 0: now */
    /* when files are ranked: code rows ranked by the words at most (0: 12,000,
     * lexical.c's ROW_BUDGET_FILE); fewer is faster, and costs the first file */
    size_t file_rows;
    /* branches (branch.h): memories of other branches not merged are left out,
     * or marked when the view serves all; NULL: no filter */
    struct mn_branch_view *branch;
    /* no snippets (items' snippet ""): for callers that use the ranking alone (plan) */
    bool no_snippets;
    /* the caller's index cache (index_cache.h): the file table and the files'
     * neighbours come from it; NULL: from the store */
    struct mn_index_cache *index_cache;
} mn_search_request;

typedef struct {
    mn_search_item *items; /* best first, at most k */
    size_t n;
    size_t total; /* candidates that scored, before the cut to k */
    const char *notes[4];
    size_t nnotes;
    mn_arena arena;
} mn_search_result;

/** Run a search. out is initialised here; release it with mn_search_result_release. */
int mn_search_run(mn_store *s, const mn_search_request *req, mn_search_result *out);
void mn_search_result_release(mn_search_result *r);

#endif
