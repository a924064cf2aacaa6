/*
 * mcp_internal.h - the parts of the MCP server the dispatch (server.c)
 * calls: resources (resources.c) and prompts (prompts.c).
 *
 * Each takes the request's params (borrowed, may be NULL) and sets *result
 * to the JSON-RPC result object (a new reference) on success. On failure it
 * returns an mn_error_code with a one-line message (mn_error_last()) that
 * the dispatch turns into a JSON-RPC error: MN_EINVAL -> -32602 (invalid
 * params), MN_ENOTFOUND -> -32002 for resources (resource not found) and
 * -32602 for prompts, anything else -> -32603 (internal error).
 */
#ifndef MN_MCP_INTERNAL_H
#define MN_MCP_INTERNAL_H

#include <jansson.h>

#include "mnemo/api.h"

/* resources/list: mnemo://overview, then memories (mnemo://memory/{id}), paged by cursor. */
int mn_mcp_resources_list(mn_ctx *ctx, const json_t *params, json_t **result);
/* resources/templates/list: mnemo://memory/{id}. */
int mn_mcp_resource_templates_list(mn_ctx *ctx, const json_t *params, json_t **result);
/* resources/read {uri}. */
int mn_mcp_resources_read(mn_ctx *ctx, const json_t *params, json_t **result);

/* prompts/list: the reasoning schemas (bugfix, refactor, migration, review, and overrides). */
int mn_mcp_prompts_list(mn_ctx *ctx, const json_t *params, json_t **result);
/* prompts/get {name, arguments}: the schema filled with the memory bundle for the task. */
int mn_mcp_prompts_get(mn_ctx *ctx, const json_t *params, json_t **result);

#endif
