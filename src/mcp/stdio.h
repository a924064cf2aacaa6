/*
 * stdio.h - the MCP stdio transport: `mnemo mcp`.
 */
#ifndef MN_MCP_STDIO_H
#define MN_MCP_STDIO_H

#include "mcp/mcp.h"

/**
 * Serve one session: newline-delimited JSON-RPC messages from in_fd,
 * replies and notifications to out_fd, one per line; nothing else is ever
 * written to out_fd (logs go to stderr). A reader thread reads while the
 * calling thread, which owns ctx, handles messages in order, so a
 * notifications/cancelled reaches a running or queued request. Returns 0
 * at the end of input once every queued message is answered, or an
 * mn_error_code when out_fd cannot be written (the client went away).
 * The caller ignores SIGPIPE.
 */
int mn_mcp_stdio_serve(mn_mcp_server *srv, mn_ctx *ctx, int in_fd, int out_fd);

#endif
