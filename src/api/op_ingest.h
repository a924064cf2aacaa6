/*
 * op_ingest.h - the handlers of op_ingest.c (and of the save wrapper of
 * op_branch.c), declared apart from api_internal.h so that the ingest
 * branch touches that shared header not at all.
 */
#ifndef MN_API_OP_INGEST_H
#define MN_API_OP_INGEST_H

#include "api/api_internal.h"
#include "ingest/ingest.h"

/** The ingest environment of a context: settings, auto_approve, the canonical root (*root_out). */
int mn_api__ingest_env(mn_ctx *ctx, mn_ingest_env *env, char **root_out);

int mn_op_ingest_git(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_ingest_docs(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_open_doc(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_ingest_issues(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_link_issue(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_capture(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_record_decision(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_chain(mn_ctx *ctx, const json_t *args, json_t **out);
/** save, with the branch and commit it is learnt at filled in from the repository's HEAD. */
int mn_op_save_here(mn_ctx *ctx, const json_t *args, json_t **out);

#endif
