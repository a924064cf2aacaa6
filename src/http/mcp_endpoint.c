/*
 * mcp_endpoint.c - /mcp: the MCP streamable HTTP transport (specification
 * 2025-11-25, basic/transports), around the transport-free dispatch of
 * src/mcp/ (mn_mcp_handle).
 *
 * POST carries one JSON-RPC message (a batch array only in sessions that
 * negotiated 2025-03-26, the one revision that had them). Checks, in order:
 * MCP-Protocol-Version (400 when unsupported), Content-Type (415), Accept
 * (406), size (413), JSON (400 with a parse error), then the session:
 * initialize without Mcp-Session-Id opens one and the reply carries its id
 * (503 with Retry-After when a cap of sessions is reached and every
 * session that could end is busy, sessions.c);
 * any other message needs the id (400 without, 404 for one unknown or
 * ended). The reply is application/json, or an SSE stream when the client
 * accepts it and either ranks text/event-stream above JSON (or accepts only
 * it) or log notifications were sent while the request ran: they go first,
 * then the response, each a `message` event. (The reply is made when the
 * request is done, so nothing is streamed early; the stream just carries
 * what a JSON body could not.) Notifications and responses get 202 with no
 * body. DELETE ends a session. GET gets 405: the server has nothing to say
 * unasked, so it offers no stream.
 *
 * notifications/cancelled is handed to mn_mcp_session_cancel without the
 * session's lock, so it reaches the request it cancels while that runs.
 * Transport errors carry a JSON-RPC error with id null: -32700 / -32600 for
 * bad messages, -32000 for header problems, -32001 for an unknown session
 * (the codes the SDK's own servers use).
 */
#include "common.h"

#include "http/http_internal.h"
#include "http/rest.h"
#include "util/util.h"

#define ERR_PARSE      -32700
#define ERR_INVALID    -32600
#define ERR_INTERNAL   -32603
#define ERR_TRANSPORT  -32000
#define ERR_NO_SESSION -32001
#define RETRY_AFTER_S  5 /* a 503 at a session cap: when to initialize again */

void mn_http__reply_error(mn_http_reply *r, unsigned status, int code, const char *message)
{
    json_t *e = json_pack("{s:s,s:n,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", "error", "code", code,
                          "message", message);
    free(r->body);
    r->body = e ? json_dumps(e, JSON_COMPACT) : NULL;
    r->len = r->body ? strlen(r->body) : 0;
    r->content_type = r->body ? "application/json" : NULL;
    r->status = status;
    json_decref(e);
}

static void reply_errorf(mn_http_reply *r, unsigned status, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void reply_errorf(mn_http_reply *r, unsigned status, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    mn_http__reply_error(r, status, code, msg);
}

static void reply_empty(mn_http_reply *r, unsigned status)
{
    free(r->body);
    r->body = NULL;
    r->len = 0;
    r->content_type = NULL;
    r->status = status;
}

/* The reply to a request: JSON, or SSE events (those collected, then the reply). */
static void reply_message(mn_http_reply *r, char *json, mn_buf *events, bool sse)
{
    free(r->body);
    r->status = 200;
    if (!sse) {
        r->body = json;
        r->len = strlen(json);
        r->content_type = "application/json";
        return;
    }
    mn_buf_puts(events, "event: message\n");
    for (const char *p = json; *p;) {
        size_t n = strcspn(p, "\n");
        mn_buf_puts(events, "data: ");
        mn_buf_put(events, p, n);
        mn_buf_putc(events, '\n');
        p += n + (p[n] == '\n');
    }
    mn_buf_putc(events, '\n');
    free(json);
    r->len = events->len;
    r->body = mn_buf_detach(events);
    r->content_type = "text/event-stream";
}

/* Header checks shared by POST and DELETE. */
static bool check_version_header(const mn_http_request *req, mn_http_reply *r)
{
    if (req->protocol_version && !mn_mcp_version_supported(req->protocol_version)) {
        reply_errorf(r, 400, ERR_TRANSPORT,
                     "unsupported MCP-Protocol-Version '%.40s' (supported: 2025-11-25, "
                     "2025-06-18, 2025-03-26, 2024-11-05)",
                     req->protocol_version);
        return false;
    }
    return true;
}

/* The principal as a session's owner (actor, newline, project). */
static void owner_of(char *out, size_t size, const mn_principal *p)
{
    snprintf(out, size, "%s\n%s", p ? p->actor : "", p ? p->project : "");
}

/*
 * The listed session with this id, when the request's principal opened it:
 * another token (of any project) that learnt the id finds nothing, exactly
 * as for an id that never existed. A reference for the caller, or NULL.
 */
static mn_http_session *owned_session(mn_http_server *srv, const mn_http_request *req)
{
    char owner[sizeof(((mn_http_session *)0)->owner)];
    mn_http_session *s = mn_http__sessions_get(&srv->sessions, req->session_id);
    owner_of(owner, sizeof(owner), req->principal);
    if (s && strcmp(s->owner, owner) != 0) {
        mn_http__sessions_put(&srv->sessions, s);
        s = NULL;
    }
    return s;
}

/* The listed session the request names, with a reference; NULL with the reply set. */
static mn_http_session *session_of(mn_http_server *srv, const mn_http_request *req,
                                   mn_http_reply *r)
{
    mn_http_session *s;
    if (!req->session_id) {
        mn_http__reply_error(r, 400, ERR_TRANSPORT,
                             "missing Mcp-Session-Id header: send initialize first and then the "
                             "id its reply carries");
        return NULL;
    }
    if (!mn_http__session_id_valid(req->session_id)) {
        mn_http__reply_error(r, 400, ERR_TRANSPORT,
                             "malformed Mcp-Session-Id header (1 to 256 visible ASCII characters)");
        return NULL;
    }
    if (!(s = owned_session(srv, req)))
        mn_http__reply_error(r, 404, ERR_NO_SESSION,
                             "session not found: it ended or expired; send initialize again");
    return s;
}

static bool is_method(const json_t *msg, const char *method)
{
    const char *m = json_string_value(json_object_get(msg, "method"));
    return m && strcmp(m, method) == 0;
}

/*
 * True when msg is a request or a batch: what a reply with status 200
 * answers. Anything else that draws a reply (a message with neither a
 * method nor a result, an id of the wrong type) was refused: 400.
 */
static bool msg_is_request(const json_t *msg)
{
    const json_t *id = json_object_get(msg, "id");
    return json_is_array(msg) || (json_is_string(json_object_get(msg, "method")) &&
                                  (json_is_string(id) || json_is_integer(id)));
}

/*
 * Handle the message in session s and set the reply. The session's lock is
 * held while it runs: the dispatch sees one message of a session at a time.
 */
static void dispatch(mn_http_server *srv, mn_http_session *s, const mn_http_request *req,
                     bool is_request, const mn_http_accept *accept, mn_http_reply *r,
                     bool *initialized)
{
    mn_ctx *ctx = mn_http__thread_ctx(srv, req->principal);
    mn_buf events = MN_BUF_INIT;
    mn_mcp_info info = {false, false, false, false};
    char *out = NULL;
    int rc;

    if (!ctx) {
        reply_errorf(r, 500, ERR_INTERNAL, "cannot open the store: %s", mn_error_last());
        return;
    }
    pthread_mutex_lock(&s->lock);
    s->events = accept->sse ? &events : NULL;
    /* the tools it calls count as mcp, in the project of the store connection */
    mn_http__metrics_front_begin(MN_METRICS_MCP, mn_ctx_project(ctx));
    rc = mn_mcp_handle(s->mcp, ctx, req->body, req->len, &out, &info);
    mn_http__metrics_front_end();
    s->events = NULL;
    pthread_mutex_unlock(&s->lock);
    if (initialized)
        *initialized = rc == 0 && info.initialized;
    r->prepare = rc == 0 && info.may_have_written;
    r->warm = rc == 0 && !mn_ctx_warmed(ctx);
    r->denied = rc == 0 && info.denied;
    if (rc) {
        reply_errorf(r, 500, ERR_INTERNAL, "cannot answer: %s", mn_error_last());
    } else if (!out && info.had_requests && accept->sse) {
        /* A request cancelled before it ran: the spec wants a POST that
           carried a request answered with JSON or a stream, so an empty
           stream it is (the client, which cancelled, expects no reply). */
        reply_empty(r, 200);
        r->content_type = "text/event-stream";
    } else if (!out) {
        reply_empty(
            r,
            202); /* notifications, responses (and cancelled requests when only JSON is accepted) */
    } else if (!info.had_requests || !is_request) {
        /* an error about a message that was no request: refused as a whole */
        free(r->body);
        r->status = 400;
        r->body = out;
        r->len = strlen(out);
        r->content_type = "application/json";
        out = NULL;
    } else {
        /* a tool the caller's role may not run: 403, with the JSON-RPC reply that says why */
        reply_message(r, out, &events, !r->denied && (accept->prefer_sse || events.len > 0));
        if (r->denied)
            r->status = 403;
        out = NULL;
    }
    free(out);
    mn_buf_release(&events);
}

/* initialize without a session: a new session, listed when it succeeds. */
static void post_initialize(mn_http_server *srv, const mn_http_request *req,
                            const mn_http_accept *accept, mn_http_reply *r)
{
    mn_http_session *s;
    bool initialized = false;
    int rc;

    if ((rc = mn_http__session_new(&s, srv->mcp)) != 0) {
        reply_errorf(r, 500, ERR_INTERNAL, "cannot start a session: %s", mn_error_last());
        return;
    }
    snprintf(s->addr, sizeof(s->addr), "%s", req->client ? req->client : "");
    owner_of(s->owner, sizeof(s->owner), req->principal);
    dispatch(srv, s, req, true, accept, r, &initialized);
    if (initialized) {
        if ((rc = mn_http__sessions_add(&srv->sessions, s)) != 0) {
            reply_errorf(r, rc == MN_EBUSY ? 503 : 500, ERR_TRANSPORT, "%s", mn_error_last());
            /* every session it could end is answering a request: most take a few seconds */
            r->retry_after = rc == MN_EBUSY ? RETRY_AFTER_S : 0;
        } else {
            memcpy(r->session_id, s->id, sizeof(r->session_id));
        }
    }
    mn_http__sessions_put(&srv->sessions, s);
}

/* A batch: only where its session speaks 2025-03-26, and never with initialize. */
static bool batch_allowed(const json_t *batch, const mn_http_session *s, mn_http_reply *r)
{
    const char *v = mn_mcp_session_version(s->mcp);
    size_t i;
    json_t *item;
    if (!v || strcmp(v, "2025-03-26") != 0) {
        reply_errorf(r, 400, ERR_INVALID,
                     "JSON-RPC batches are not part of protocol %s; send one message per POST",
                     v ? v : "(none yet)");
        return false;
    }
    if (json_array_size(batch) == 0) {
        mn_http__reply_error(r, 400, ERR_INVALID, "empty JSON-RPC batch");
        return false;
    }
    json_array_foreach(batch, i, item)
    {
        if (is_method(item, "initialize")) {
            mn_http__reply_error(r, 400, ERR_INVALID, "initialize must not be part of a batch");
            return false;
        }
    }
    return true;
}

static void post(mn_http_server *srv, const mn_http_request *req, mn_http_reply *r)
{
    mn_http_accept accept;
    mn_http_session *s = NULL;
    json_error_t jerr;
    json_t *msg = NULL;

    if (!check_version_header(req, r))
        return;
    if (!mn_http__content_type_is_json(req->content_type)) {
        reply_errorf(r, 415, ERR_TRANSPORT, "Content-Type must be application/json (got '%.80s')",
                     req->content_type ? req->content_type : "none");
        return;
    }
    mn_http__accept_parse(&accept, req->accept);
    if (!accept.json && !accept.sse) {
        mn_http__reply_error(r, 406, ERR_TRANSPORT,
                             "Accept must include application/json or text/event-stream");
        return;
    }
    if (req->too_big) {
        reply_errorf(r, 413, ERR_INVALID, "message larger than %u bytes, the limit",
                     MN_MCP_MAX_MESSAGE);
        return;
    }
    if (!(msg = json_loadb(req->body, req->len, JSON_DECODE_ANY, &jerr))) {
        reply_errorf(r, 400, ERR_PARSE, "parse error: %s (line %d, column %d)", jerr.text,
                     jerr.line, jerr.column);
        return;
    }
    if (!json_is_object(msg) && !json_is_array(msg)) {
        mn_http__reply_error(r, 400, ERR_INVALID, "a message must be a JSON-RPC object");
        goto out;
    }
    if (!req->session_id && json_is_object(msg) && is_method(msg, "initialize")) {
        post_initialize(srv, req, &accept, r);
        goto out;
    }
    if (!(s = session_of(srv, req, r)))
        goto out;
    if (json_is_array(msg) && !batch_allowed(msg, s, r))
        goto out;
    if (json_is_object(msg) && is_method(msg, "notifications/cancelled")) {
        char *id_json = NULL;
        if (mn_mcp_cancel_target(req->body, req->len, &id_json)) {
            mn_mcp_session_cancel(s->mcp, id_json);
            free(id_json);
            reply_empty(r, 202);
            goto out;
        }
    }
    dispatch(srv, s, req, msg_is_request(msg), &accept, r, NULL);
out:
    if (s)
        mn_http__sessions_put(&srv->sessions, s);
    json_decref(msg);
}

static void delete_session(mn_http_server *srv, const mn_http_request *req, mn_http_reply *r)
{
    if (!check_version_header(req, r))
        return;
    if (!req->session_id) {
        mn_http__reply_error(r, 400, ERR_TRANSPORT, "missing Mcp-Session-Id header");
        return;
    }
    if (!mn_http__session_id_valid(req->session_id)) {
        mn_http__reply_error(r, 400, ERR_TRANSPORT, "malformed Mcp-Session-Id header");
        return;
    }
    mn_http_session *s = owned_session(srv, req);
    if (s)
        mn_http__sessions_put(&srv->sessions, s);
    if (s && mn_http__sessions_end(&srv->sessions, req->session_id))
        reply_empty(r, 204);
    else
        mn_http__reply_error(r, 404, ERR_NO_SESSION, "session not found: it ended or expired");
}

void mn_http__mcp_endpoint(mn_http_server *srv, const mn_http_request *req, mn_http_reply *r)
{
    if (strcmp(req->method, "POST") == 0) {
        post(srv, req, r);
    } else if (strcmp(req->method, "DELETE") == 0) {
        delete_session(srv, req, r);
    } else {
        /* GET included: there is no server-initiated stream to open */
        reply_errorf(r, 405, ERR_TRANSPORT, "method %.16s not allowed on /mcp (POST or DELETE)",
                     req->method);
        r->allow = "POST, DELETE, OPTIONS";
    }
}
