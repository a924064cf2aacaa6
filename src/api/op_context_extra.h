/*
 * op_context_extra.h - what context and recall add around the packer
 * (op_context_extra.c): branches, "why is this code like this", and
 * context's mode extract.
 */
#ifndef MN_API_OP_CONTEXT_EXTRA_H
#define MN_API_OP_CONTEXT_EXTRA_H

#include "api/api_internal.h"
#include "retrieve/pack.h"

typedef struct {
    struct mn_branch_view *branch;
    json_t *why; /* retrieve/why.h's answer, or NULL */
} mn_context_extra;

/** Before the packer: the branch view, and the why block (which takes its share of the budget). */
int mn_api__context_extra_begin(mn_ctx *ctx, const json_t *args, mn_context_request *req,
                                mn_context_extra *x);
/** After it: the why block appended (context) or given as history (recall); x released. */
int mn_api__context_extra_end(mn_ctx *ctx, mn_context_extra *x, json_t *out, bool recall,
                              size_t max_tokens);
/** context mode extract. */
int mn_api__context_extract(mn_ctx *ctx, const json_t *args, json_t **out);

#endif
