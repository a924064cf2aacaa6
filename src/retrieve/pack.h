/*
 * pack.h - the one-call context and the recall bundle: what a search found,
 * packed under a token budget for an agent to read.
 *
 * mn_context_build turns a question into one Markdown string: the project
 * overview (L0 facts) first, then the facts, gotchas and patterns that
 * match, decisions with their reasons (and, with include_causal, the
 * decisions they supersede or were caused by), and the files and symbols to
 * look at with a line of evidence each. Every item also comes back in JSON
 * with its score and why it was included. The budget is counted with
 * tokens.h's upper bound, so the text never costs more than max_tokens.
 * When nothing scores above the floor (pack.c), the text says there is no
 * relevant project memory instead of padding with weak matches.
 *
 * mn_recall_build returns the same findings as data: {facts, few_shots,
 * decisions, links, confidence}, facts at most 300 characters each.
 */
#ifndef MN_RETRIEVE_PACK_H
#define MN_RETRIEVE_PACK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef enum { MN_CONTEXT_AUTO, MN_CONTEXT_ROUTE, MN_CONTEXT_DISCOVERY } mn_context_mode;

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
    struct mn_branch_view *branch; /* branches (retrieve/branch.h); NULL: no filter */
} mn_context_request;

/**
 * Build the context for req: *out = {markdown, tokens, max_tokens, mode,
 * relevant, items: [{section, type, id, title, path?, start_line?, end_line?,
 * score, why, tokens}], notes: [...]}. Reads only (the caller records what
 * was served).
 */
int mn_context_build(mn_store *s, const mn_context_request *req, json_t **out);

/**
 * The recall bundle for req (max_tokens bounds its text): *out = {facts,
 * few_shots, decisions, links, confidence, items}.
 */
int mn_recall_build(mn_store *s, const mn_context_request *req, json_t **out);

#endif
