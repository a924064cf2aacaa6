/*
 * mcp.h - the MCP server, independent of its transport.
 *
 * A transport (stdio.c for `mnemo mcp`, src/http/ for /mcp on `mnemo
 * serve`) reads one JSON-RPC message, hands its bytes to mn_mcp_handle()
 * with the calling thread's open store, and writes back the reply, if any.
 * Everything about the protocol (version negotiation, tools generated from
 * the operation table, resources, prompts, errors) lives behind this
 * header, so both transports behave the same and a test can drive the
 * server without either.
 *
 * Threads: an mn_mcp_server is read-only once built and shared by every
 * thread. An mn_mcp_session is one client's state; it is used by one thread
 * at a time (the HTTP transport holds a lock per session while it handles a
 * message). Each thread brings its own mn_ctx (one store connection per
 * thread).
 *
 * The dispatch takes its session as an argument and keeps nothing else
 * between messages, so a stateless revision of the protocol (2026-07-28:
 * no initialize handshake, version per request) can pass a fresh session
 * per request.
 */
#ifndef MN_MCP_H
#define MN_MCP_H

#include <stdbool.h>
#include <stddef.h>

#include "mnemo/api.h"

/** Largest message a transport accepts, in bytes (larger ones get one JSON-RPC error). */
#define MN_MCP_MAX_MESSAGE (4u << 20)

typedef struct mn_mcp_server mn_mcp_server;
typedef struct mn_mcp_session mn_mcp_session;

typedef struct {
    const char *transport; /* "stdio" or "http": named in logs and serverInfo */
} mn_mcp_options;

/**
 * Build the server: the tool list from the operation table (filtered by
 * config mcp.tools, read through ctx), the prompt set. Returns 0 or an
 * mn_error_code with a message.
 */
int mn_mcp_server_new(mn_mcp_server **out, mn_ctx *ctx, const mn_mcp_options *opts);
void mn_mcp_server_free(mn_mcp_server *srv);

/**
 * Server-to-client messages outside a reply (notifications/message log
 * lines): the transport's sink, called on the thread that handles a
 * message. NULL: dropped.
 */
typedef void (*mn_mcp_notify_fn)(void *arg, const char *json, size_t len);

int mn_mcp_session_new(mn_mcp_session **out, mn_mcp_server *srv, mn_mcp_notify_fn notify,
                       void *notify_arg);
void mn_mcp_session_free(mn_mcp_session *s);
/** The negotiated protocol version, or NULL before a successful initialize. */
const char *mn_mcp_session_version(const mn_mcp_session *s);

/** What a handled message was, for transports that care (HTTP). */
typedef struct {
    bool initialized;      /* it was an initialize request that succeeded */
    bool had_requests;     /* it held at least one request (so a reply is due) */
    bool may_have_written; /* it called a tool whose operation is not read-only */
    bool denied;           /* a tool was refused: the caller's role may not run it (MN_EDENIED) */
} mn_mcp_info;

/**
 * Handle one message exactly as received (UTF-8 JSON text, no trailing
 * newline needed). *reply is set to the malloc'd JSON text to send back, or
 * NULL when nothing is due (notifications, responses, cancelled requests).
 * Bad input never fails the call: it becomes a JSON-RPC error reply (parse
 * error, invalid request, unknown method, invalid params) or a tool result
 * with isError. Returns 0, or MN_ENOMEM when no reply could be built.
 * info may be NULL.
 */
int mn_mcp_handle(mn_mcp_session *s, mn_ctx *ctx, const char *msg, size_t len, char **reply,
                  mn_mcp_info *info);

/**
 * A notifications/cancelled for request `id_json` (the id's JSON text) that
 * arrived while another thread handles that request: its reply is dropped.
 * Safe to call from any thread.
 */
void mn_mcp_session_cancel(mn_mcp_session *s, const char *id_json);

/** True for the protocol versions this server speaks: 2025-11-25, 2025-06-18, 2025-03-26,
 * 2024-11-05. */
bool mn_mcp_version_supported(const char *version);

/**
 * When msg is a notifications/cancelled, return true and set *id_json (the
 * requestId's JSON text, malloc'd) for mn_mcp_session_cancel; a transport
 * that reads while another thread handles requests calls this on each
 * message so a cancel is not queued behind the request it cancels.
 */
bool mn_mcp_cancel_target(const char *msg, size_t len, char **id_json);

#endif
