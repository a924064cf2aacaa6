/*
 * tools.h - MCP tools made from the operation table (tools.c).
 *
 * A tool is an operation: its name, a title, the op's summary and
 * description, its input schema, its output schema and annotations from
 * its flags. The definitions are built once per server and shaped per
 * protocol version when listed (older revisions lack title, outputSchema
 * and annotations).
 */
#ifndef MN_MCP_TOOLS_H
#define MN_MCP_TOOLS_H

#include <jansson.h>
#include <stdbool.h>

#include "mnemo/api.h"

typedef struct {
    const mn_op *op;
    json_t *def;     /* the tool as listed for the newest revision */
    bool structured; /* outputSchema given: structuredContent conforms to it */
} mn_mcp_tool;

/** The tools config mcp.tools selects (read through ctx); free with mn_mcp_tools_free. */
int mn_mcp_tools_build(mn_mcp_tool **out, size_t *count, mn_ctx *ctx);
void mn_mcp_tools_free(mn_mcp_tool *tools, size_t count);

/**
 * tools/list result for a protocol version (new reference): the tools ctx's
 * role may run (mn_api_allowed; NULL: all of them).
 */
json_t *mn_mcp_tools_list(const mn_mcp_tool *tools, size_t count, const char *version,
                          const mn_ctx *ctx);

/**
 * Run a tool: the CallToolResult (new reference). Invalid arguments and
 * failures of the op are results with isError and a message the model can
 * act on. *output is the op's output (new reference, NULL after a
 * failure), for the caller to read its notes.
 */
json_t *mn_mcp_tool_call(const mn_mcp_tool *tool, mn_ctx *ctx, const json_t *arguments,
                         const char *version, json_t **output);

/** Copy of a schema without the x-... keywords the CLI uses (new reference). */
json_t *mn_mcp_schema_public(const json_t *schema);

#endif
