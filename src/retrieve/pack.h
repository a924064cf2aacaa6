/*
 * pack.h - the one-call context and the recall bundle: what a search found,
 * packed under a token budget for an agent to read.
 *
 * mn_context_build turns a question into one Markdown string: the project
 * overview (L0 facts) first, then the facts, gotchas and patterns that
 * match, decisions with their reasons (and, with include_causal, the
 * decisions they supersede or were caused by), and the files and symbols to
 * look at with their lines of code. Every item says in the text why it is
 * there, and comes back in JSON with its score. The budget is counted
 * exactly in the reader's encoding (tokens.h), so the text never costs
 * more than max_tokens and, when there is enough relevant material, uses
 * at least 90% of it; items are given whole or in a short form that ends
 * on a whole sentence and names where the rest is (pack.c).
 * When nothing scores above the floor (pack.c), the text says there is no
 * relevant project memory instead of padding with weak matches.
 *
 * A stale memory (a span it cites changed: memory/citations.h) is not
 * served as current: context lists it apart ("May be out of date", its
 * title and id only), recall in `stale`.
 *
 * mn_recall_build returns the same findings as data: {facts, few_shots,
 * decisions, links, stale, confidence}, facts at most 300 characters each.
 */
#ifndef MN_RETRIEVE_PACK_H
#define MN_RETRIEVE_PACK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "retrieve/tokens.h"
#include "store/store.h"

typedef enum { MN_CONTEXT_AUTO, MN_CONTEXT_ROUTE, MN_CONTEXT_DISCOVERY } mn_context_mode;

/* The L0 overview: ranked lines (default), only the lines holding the question's words (a
   session that had it already), none. */
typedef enum { MN_OVERVIEW_RANKED, MN_OVERVIEW_MATCHING, MN_OVERVIEW_NONE } mn_overview_mode;

typedef struct {
    const char *query; /* "" or NULL: the overview alone */
    size_t max_tokens;
    mn_context_mode mode;
    bool include_causal;
    const char *const *files; /* paths the caller is working on */
    size_t nfiles;
    const char *const *symbols; /* recall: symbols named by the caller */
    size_t nsymbols;
    int64_t now_ms; /* 0: now */
    /* the semantic signal (retrieve.h): NULL, and the note saying why */
    struct mn_embedder *embedder;
    const char *semantic_note;
    mn_expiry expiry;                /* at > 0: expired memories are not served (store.h) */
    const mn_token_counter *counter; /* NULL: the estimate */
    mn_overview_mode overview;
    bool footer;                   /* keep room for mn_context_footer */
    struct mn_branch_view *branch; /* branches (retrieve/branch.h); NULL: no filter */
} mn_context_request;

/**
 * Build the context for req: *out = {markdown, tokens, max_tokens,
 * tokenizer, mode, relevant, complete, items: [{section, type, id, ref,
 * title, path?, start_line?, end_line?, line?, score, why, tokens, whole}],
 * notes: [...]}. Reads only (the caller records what was served, then
 * calls mn_context_footer).
 */
int mn_context_build(mn_store *s, const mn_context_request *req, json_t **out);

/**
 * End the Markdown of a context built with req.footer with the line that
 * names the answer's id for feedback (served; 0: none recorded, no line),
 * in the room the build kept for it.
 */
int mn_context_footer(json_t *out, int64_t served, const mn_token_counter *counter);

/**
 * The recall bundle for req (max_tokens bounds its text): *out = {facts,
 * few_shots, decisions, links, stale, confidence, items}.
 */
int mn_recall_build(mn_store *s, const mn_context_request *req, json_t **out);

#endif
