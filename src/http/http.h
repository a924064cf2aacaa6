/*
 * http.h - `mnemo serve`: the HTTP server (libmicrohttpd) and its routes.
 *
 * Routes: POST/DELETE /mcp, the MCP streamable HTTP transport (mcp_endpoint.c:
 * sessions, Origin and header checks, JSON or SSE replies, all dispatch
 * through mn_mcp_handle), and GET /healthz. docs/http.md says how to run it.
 *
 * Threads: libmicrohttpd runs a pool of serve.threads workers; each handles
 * its connections from start to end and opens its own mn_ctx (one store
 * connection per thread) on first use. The front end (cmd_serve.c) blocks
 * SIGINT and SIGTERM before mn_http_server_new so that the workers never
 * take them, waits for one, and frees the server.
 */
#ifndef MN_HTTP_H
#define MN_HTTP_H

#include "mnemo/api.h"

typedef struct mn_http_server mn_http_server;

typedef struct {
    unsigned version;
    const char *host; /* address to bind; NULL: config serve.host */
    int port;         /* 0..65535 (0: a free port); -1: config serve.port */
    /* HTTPS: PEM certificate (chain) and private key files, both or neither (NULL: plain HTTP) */
    const char *tls_cert, *tls_key;
} mn_http_options;

#define MN_HTTP_OPTIONS_VERSION 1
#define MN_HTTP_OPTIONS_INIT                          \
    {                                                 \
        MN_HTTP_OPTIONS_VERSION, NULL, -1, NULL, NULL \
    }

/**
 * Read the serve.* settings through ctx, build the MCP server and start
 * listening. ctx is only used during the call; the workers open the same
 * store (mn_ctx_db_path(ctx)) for themselves. Returns 0 or an mn_error_code
 * with a message (a port in use, a bad address).
 */
int mn_http_server_new(mn_http_server **out, mn_ctx *ctx, const mn_http_options *opts);

/** "http://127.0.0.1:7077" ("https://..." with TLS): the address actually bound (the real port for
 * port 0); owned by srv. */
const char *mn_http_server_url(const mn_http_server *srv);

/** True when it listens on a loopback address (this machine only). */
bool mn_http_server_loopback(const mn_http_server *srv);

/** True when it serves HTTPS (--tls-cert/--tls-key). */
bool mn_http_server_tls(const mn_http_server *srv);

/** End sessions idle longer than serve.session_idle (also done on each request). */
void mn_http_server_expire(mn_http_server *srv);

/** Stop listening, wait for the requests under way, free every session and store connection. */
void mn_http_server_free(mn_http_server *srv);

#endif
