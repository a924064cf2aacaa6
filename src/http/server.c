/*
 * server.c - the HTTP server of `mnemo serve` on libmicrohttpd.
 *
 * We bind the listening socket ourselves (so "address in use" is reported
 * as such) and hand it to libmicrohttpd, which runs serve.threads worker
 * threads (MHD_OPTION_THREAD_POOL_SIZE, epoll); a connection stays on one
 * worker from accept to close, so a worker's mn_ctx (a pthread key, opened
 * on first use, listed so shutdown frees it) serves all its requests; a
 * worker keeps at most THREAD_PROJECTS projects' contexts, closing the
 * least recently used.
 *
 * libmicrohttpd calls the handler once with the headers, once per piece of
 * body and once more at the end. A handler must consume the body before it
 * replies: a reply queued while body bytes are unread makes the connection
 * close with data pending, and the client may see a reset instead of the
 * answer. So every reply is made at the last call; the body is kept up to
 * MN_MCP_MAX_MESSAGE and discarded beyond (413). Only a body declared
 * larger than MN_API_MAX_REQUEST, or a large one sent after
 * "Expect: 100-continue", is refused at once without reading it.
 *
 * Before routing, every request but /healthz and CORS preflights is
 * authenticated (auth.c): a bearer token, or the local user of a loopback
 * server; a refusal is 401 with WWW-Authenticate: Bearer. A worker keeps
 * one mn_ctx per project it has served (tokens of several projects reach
 * the same worker) and sets the request's actor and role on it.
 *
 * Before that, every request passes the peer check: a connection from
 * loopback is served only when the client's socket belongs to the user the
 * server runs as (peer.c reads its owner from /proc/net/tcp when the
 * connection is accepted, on_connection; another user gets 403 before any
 * operation runs). Then the DNS-rebinding checks (headers.c): an Origin
 * that is present must be allowed, and when bound to a loopback address the
 * Host must name a loopback host (or the host of an allowed origin).
 * Routes: /mcp (mcp_endpoint.c; OPTIONS answers CORS preflights for allowed
 * origins), /healthz, and the REST API: /v1/... and /metrics (rest.c).
 *
 * Slow and greedy clients (docs/http.md): libmicrohttpd keeps at most
 * serve.max_connections_per_address connections of one client address
 * (MHD_OPTION_PER_IP_CONNECTION_LIMIT: more are closed as soon as they are
 * accepted), well under CONNECTION_LIMIT, the backstop at which it stops
 * accepting at all; and limits.c cuts a connection whose request has not
 * fully arrived within serve.request_deadline (on_connection lists it,
 * route() marks its request read, on_completed starts the next one's time).
 *
 * With --tls-cert/--tls-key the daemon speaks only HTTPS (MHD_USE_TLS,
 * GnuTLS inside libmicrohttpd): tls.c reads the PEM files, the daemon's
 * start copies them into its credentials (and fails when the key does not
 * match the certificate), and our copy of the key is zeroed right after.
 */
#include "common.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "http/http_internal.h"
#include "http/rest.h"
#include "util/libs.h"
#include "util/util.h"

#define DEFAULT_THREADS      8
#define DEFAULT_MAX_SESSIONS 100
#define DEFAULT_IDLE_MS      (3600u * 1000u)
#define CONNECTION_LIMIT     512
#define CONNECTION_TIMEOUT_S 120
/* limits.c, docs/http.md "Slow and greedy clients": the defaults of serve.request_deadline,
 * serve.max_connections_per_address and serve.max_sessions_per_address */
#define DEFAULT_DEADLINE_MS          30000u
#define DEFAULT_CONNECTIONS_PER_ADDR 32
#define DEFAULT_SESSIONS_PER_ADDR    16

/* libmicrohttpd and libgit2, loaded by the first server (util/libs.h) */
static const mn_mhd_api *mhd;
static const mn_git_api *git;

/* What one request collects between the calls of the handler. */
typedef struct {
    mn_buf body;
    size_t received;
    bool too_big;
    bool prepare, warm; /* the reply's: see on_completed */
    bool authenticated; /* principal is set */
    mn_principal principal;
    uint64_t start_ns;
} request_state;

/*
 * A worker's contexts, one per project (the pthread key's value; the contexts
 * themselves are also listed in srv->ctxs, which frees them at shutdown), at
 * most THREAD_PROJECTS of them: a worker that serves one more project closes
 * the connection it used least recently. Each holds a store connection, and
 * tokens of many projects reach every worker: without a cap a server's
 * connections would grow with its projects (PostgreSQL's default
 * max_connections is 100; serve.threads x THREAD_PROJECTS stays under it).
 * A context is used by its worker within one request only, so closing one
 * between requests takes nothing from under anyone.
 */
#define THREAD_PROJECTS 8

typedef struct {
    mn_ctx *v[THREAD_PROJECTS];
    uint64_t used[THREAD_PROJECTS]; /* tick of the last use: the least recent goes first */
    size_t n;
    uint64_t tick;
} thread_ctxs;

static void free_thread_ctxs(void *p)
{
    free(p);
}

/* Close a worker's context: unlist it from the server's list, then free it. */
static void drop_ctx(mn_http_server *srv, mn_ctx *ctx)
{
    pthread_mutex_lock(&srv->ctxs_lock);
    for (size_t i = 0; i < srv->nctxs; i++)
        if (srv->ctxs[i] == ctx) {
            srv->ctxs[i] = srv->ctxs[--srv->nctxs];
            break;
        }
    pthread_mutex_unlock(&srv->ctxs_lock);
    mn_ctx_free(ctx);
}

/*
 * The code a request's project works on, never merely the directory the server was started
 * in: that repository is not every project's (a token of project B would have B's first
 * context index it into B, and read it). The server's own project, when its store lives in
 * that repository (.mnemo/), keeps it; any other project has the root it recorded
 * (index.root: its first index, or the server's clone, serve.repo), or none: then context and
 * recall answer from memories alone, and index refuses a path (op_index.c). Such a project is
 * never indexed by a request (ctx->no_refresh): the sync keeps its index fresh.
 */
static void project_root(const mn_http_server *srv, mn_ctx *ctx, const char *project)
{
    char *root = NULL;
    if (srv->own_root && strcmp(project, srv->project) == 0) {
        root = mn_strdup(srv->own_root);
    } else {
        /* never indexed on a request worker: the sync does it (op_index.c ensure_fresh) */
        ctx->no_refresh = true;
        if (mn_store_config_get(ctx->store, &root, "index.root") != 0) {
            mn_error_clear();
            root = NULL;
        }
    }
    free(ctx->root);
    ctx->root = root;
}

mn_ctx *mn_http__thread_ctx(mn_http_server *srv, const mn_principal *p)
{
    thread_ctxs *t = pthread_getspecific(srv->ctx_key);
    const char *project = p ? p->project : srv->project;
    mn_ctx *ctx = NULL;
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    for (size_t i = 0; t && i < t->n && !ctx; i++)
        if (strcmp(mn_ctx_project(t->v[i]), project) == 0) {
            ctx = t->v[i];
            t->used[i] = ++t->tick;
        }
    if (ctx) {
        if (mn_ctx_set_principal(ctx, p ? p->actor : "mcp", p ? p->role : MN_ROLE_ADMIN) != 0)
            return NULL;
        /* a project without code yet may have it now: the sync's first clone records its
         * root after this connection was opened (one read a request, for those alone) */
        if (!ctx->root)
            project_root(srv, ctx, project);
        return ctx;
    }
    if (!t) {
        if (!(t = calloc(1, sizeof(*t)))) {
            mn_error_set(MN_ENOMEM, "out of memory for a store connection");
            return NULL;
        }
        pthread_setspecific(srv->ctx_key, t);
    }
    if (t->n == THREAD_PROJECTS) {
        size_t lru = 0;
        for (size_t i = 1; i < t->n; i++)
            if (t->used[i] < t->used[lru])
                lru = i;
        drop_ctx(srv, t->v[lru]);
        t->v[lru] = t->v[--t->n];
        t->used[lru] = t->used[t->n];
    }
    o.db_path = srv->db_path;
    o.actor = p ? p->actor : "mcp";
    o.role = p ? p->role : MN_ROLE_ADMIN;
    o.project = project;
    o.front_end = MN_FRONT_NETWORK; /* never asks the project's remotes: see mn_front_end */
    /* a token's project is made on its first use; the store itself must exist */
    o.create = false;
    if (mn_ctx_open(&ctx, &o) != 0)
        return NULL;
    project_root(srv, ctx, project);
    pthread_mutex_lock(&srv->ctxs_lock);
    if (srv->nctxs == srv->ctxs_cap) {
        size_t cap = srv->ctxs_cap ? 2 * srv->ctxs_cap : 16;
        mn_ctx **v = realloc(srv->ctxs, cap * sizeof(*v));
        if (!v) {
            pthread_mutex_unlock(&srv->ctxs_lock);
            mn_ctx_free(ctx);
            mn_error_set(MN_ENOMEM, "out of memory for a store connection");
            return NULL;
        }
        srv->ctxs = v;
        srv->ctxs_cap = cap;
    }
    srv->ctxs[srv->nctxs++] = ctx;
    pthread_mutex_unlock(&srv->ctxs_lock);
    t->used[t->n] = ++t->tick;
    t->v[t->n++] = ctx;
    return ctx;
}

static const char *header(struct MHD_Connection *c, const char *name)
{
    return mhd->lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static const char *header_of(void *payload, const char *name)
{
    return header(payload, name);
}

/* A Host that may reach a server bound to loopback: a loopback name, or an allowed origin's host.
 */
static bool host_allowed(const mn_http_server *srv, const char *host)
{
    char want[256], got[256];
    if (!srv->loopback || mn_http__host_is_loopback(host))
        return true;
    if (!mn_http__host_part(got, sizeof(got), host))
        return false;
    for (const char *p = srv->allowed_origins; *p;) {
        size_t n = strcspn(p, ",");
        const char *item = p;
        while (item < p + n && *item == ' ')
            item++;
        const char *rest = strstr(item, "://");
        if (rest && rest < p + n) {
            rest += 3;
            size_t len = (size_t)(p + n - rest);
            char hp[256];
            if (len < sizeof(hp)) {
                memcpy(hp, rest, len);
                hp[len] = '\0';
                while (len && (hp[len - 1] == ' ' || hp[len - 1] == '/'))
                    hp[--len] = '\0';
                if (mn_http__host_part(want, sizeof(want), hp) && strcasecmp(want, got) == 0)
                    return true;
            }
        }
        p += n + (p[n] == ',');
    }
    return false;
}

/*
 * The peer check's verdict, kept as the connection's socket context from
 * accept to close: &peer_ok, or the reason of a refusal (malloc'd).
 */
static char peer_ok;

static char *peer_verdict(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *fd =
        mhd->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    char why[300];
    if (!fd)
        return mn_strdup("cannot tell who connected; refused");
    if (mn_http__peer_check(fd->connect_fd, why, sizeof(why)) == 0)
        return &peer_ok;
    mn_log(MN_LOG_WARN, "http: refused a connection: %s", why);
    return mn_strdup(why);
}

/* The connection's client address as text (mn_http__client_address). */
static void client_address(struct MHD_Connection *c, char out[MN_HTTP_ADDR_MAX])
{
    const union MHD_ConnectionInfo *a =
        mhd->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    mn_http__client_address(out, a ? a->client_addr : NULL);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    mn_http_server *srv = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd =
            mhd->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        char addr[MN_HTTP_ADDR_MAX];
        client_address(c, addr);
        if (fd) /* its request is due within serve.request_deadline (limits.c) */
            mn_http__limits_track(srv->limits, c, fd->connect_fd, addr);
        *socket_context = peer_verdict(c);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        mn_http__limits_untrack(srv->limits, c);
        if (*socket_context && *socket_context != &peer_ok)
            free(*socket_context);
        *socket_context = NULL;
    }
}

/* A refusal before routing: a REST error body on REST paths, a JSON-RPC one elsewhere. */
static void refuse(mn_http_reply *r, const char *url, unsigned status, const char *msg)
{
    if (mn_http__rest_path(url))
        mn_http__rest_reply_error(r, status,
                                  status == 401   ? "unauthenticated"
                                  : status == 403 ? "denied"
                                  : status == 500 ? "error"
                                                  : "invalid",
                                  msg);
    else
        mn_http__reply_error(r, status, -32000, msg);
}

static void route(mn_http_server *srv, struct MHD_Connection *c, const char *url,
                  const char *method, request_state *st, mn_http_reply *r)
{
    const char *origin = header(c, "Origin"), *host = header(c, "Host");
    char msg[400], client[MN_HTTP_ADDR_MAX];

    mn_http__limits_answering(srv->limits, c); /* read: the deadline is for reading only */
    client_address(c, client);
    /* first of all: who is asking (on_connection); nothing runs for another user */
    const union MHD_ConnectionInfo *ctx_info =
        mhd->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    const char *verdict = ctx_info ? ctx_info->socket_context : NULL;
    char *late = NULL;
    if (!verdict) /* not checked at accept: check now */
        verdict = late = peer_verdict(c);
    if (verdict != &peer_ok) {
        snprintf(msg, sizeof(msg), "%s", verdict ? verdict : "refused");
        free(late);
        refuse(r, url, 403, msg);
        return;
    }

    if (origin && !mn_http__origin_allowed(origin, srv->allowed_origins)) {
        snprintf(msg, sizeof(msg),
                 "origin '%.100s' is not allowed (add it to config serve.allowed_origins)", origin);
        refuse(r, url, 403, msg);
        return;
    }
    if (host && !host_allowed(srv, host)) {
        snprintf(msg, sizeof(msg),
                 "host '%.100s' is not a loopback name; this server listens on loopback only",
                 host);
        refuse(r, url, 403, msg);
        return;
    }
    /* who asks (auth.c): everything but /healthz, CORS preflights (they carry no
       credentials and run nothing), the OpenAPI document (the shape of the API, no data)
       and the push webhook (its signature is its credential: rest.c) */
    if (strcmp(url, "/healthz") != 0 && strcmp(method, "OPTIONS") != 0 &&
        !mn_http__rest_public(url)) {
        int rc =
            mn_http__authenticate(srv, header(c, MHD_HTTP_HEADER_AUTHORIZATION), &st->principal);
        if (rc) {
            /* a token is looked up in the store: a store that is down or locked is a
             * retryable 503 (as for an op, rest.c), not a failure of the server */
            bool retry = rc == MN_EUNAVAILABLE || rc == MN_EBUSY;
            snprintf(msg, sizeof(msg), "%s", mn_error_last());
            if (retry && mn_http__rest_path(url))
                mn_http__rest_reply_error(r, 503, mn_error_name(rc), msg); /* its own code */
            else
                refuse(r, url, rc == MN_EAUTH ? 401 : retry ? 503 : 500, msg);
            if (retry)
                r->retry_after = rc == MN_EBUSY ? 1 : 5; /* rest.c's delays */
            mn_error_clear();
            return;
        }
        st->authenticated = true;
    }
    if (strcmp(url, "/healthz") == 0) {
        if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
            r->status = 200;
            r->body = mn_strdup("ok\n");
            r->len = 3;
            r->content_type = "text/plain";
        } else {
            mn_http__reply_error(r, 405, -32000, "/healthz takes GET or HEAD");
            r->allow = "GET, HEAD";
        }
        return;
    }
    if (mn_http__rest_path(url)) {
        mn_http_request req = {
            .method = method,
            .origin = origin,
            .host = host,
            .content_type = header(c, "Content-Type"),
            .body = st->body.ptr,
            .len = st->body.len,
            .too_big = st->too_big,
            .path = url,
            .principal = &st->principal,
            .header = header_of,
            .header_payload = c,
        };
        mn_http__rest_endpoint(srv, &req, r);
        return;
    }
    if (strcmp(url, "/mcp") != 0) {
        snprintf(msg, sizeof(msg), "no such path '%.100s' (MCP is at /mcp, the REST API under /v1)",
                 url);
        mn_http__reply_error(r, 404, -32000, msg);
        return;
    }
    if (strcmp(method, "OPTIONS") == 0) {
        /* a CORS preflight; the headers that allow it are added by respond() */
        r->status = 204;
        r->allow = "POST, DELETE, OPTIONS";
        return;
    }
    mn_http_request req = {
        .method = method,
        .origin = origin,
        .host = host,
        .accept = header(c, "Accept"),
        .content_type = header(c, "Content-Type"),
        .session_id = header(c, "Mcp-Session-Id"),
        .protocol_version = header(c, "MCP-Protocol-Version"),
        .body = st->body.ptr,
        .len = st->body.len,
        .too_big = st->too_big,
        .client = client,
        .principal = &st->principal,
    };
    mn_http__mcp_endpoint(srv, &req, r);
}

static enum MHD_Result respond(struct MHD_Connection *c, const char *method, const char *url,
                               const request_state *st, mn_http_reply *r)
{
    struct MHD_Response *resp;
    enum MHD_Result ret;
    const char *origin = header(c, "Origin");

    if (r->body)
        resp = mhd->create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
    else
        resp = mhd->create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(r->body);
        return MHD_NO;
    }
    r->body = NULL; /* the response owns it now */
    if (r->content_type)
        mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
    if (r->content_type && strcmp(r->content_type, "text/event-stream") == 0)
        mhd->add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    if (r->allow)
        mhd->add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
    if (r->session_id[0])
        mhd->add_response_header(resp, "Mcp-Session-Id", r->session_id);
    if (r->www_authenticate || r->status == 401) /* RFC 6750: how to authenticate */
        mhd->add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                 r->www_authenticate ? r->www_authenticate
                                                     : "Bearer realm=\"mnemo\"");
    if (r->retry_after) {
        char secs[16];
        snprintf(secs, sizeof(secs), "%u", r->retry_after);
        mhd->add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, secs);
    }
    if (origin && r->status != 403) {
        /* the origin passed route()'s check: let its pages read the reply */
        mhd->add_response_header(resp, "Access-Control-Allow-Origin", origin);
        mhd->add_response_header(resp, "Vary", "Origin");
        mhd->add_response_header(resp, "Access-Control-Expose-Headers", "Mcp-Session-Id");
        if (strcmp(method, "OPTIONS") == 0) {
            mhd->add_response_header(resp, "Access-Control-Allow-Methods", "POST, DELETE, OPTIONS");
            mhd->add_response_header(resp, "Access-Control-Allow-Headers",
                                     "Authorization, Content-Type, Accept, Mcp-Session-Id, "
                                     "MCP-Protocol-Version, Last-Event-ID");
            mhd->add_response_header(resp, "Access-Control-Max-Age", "600");
        }
    }
    ret = mhd->queue_response(c, r->status, resp);
    mhd->destroy_response(resp);
    mn_http__metrics_response(url, r->status);
    mn_log(r->status >= 500 ? MN_LOG_WARN : MN_LOG_INFO, "http: %s %.100s -> %u (%.1f ms)", method,
           url, r->status, (double)(mn_time_mono_ns() - st->start_ns) / 1e6);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **state)
{
    mn_http_server *srv = cls;
    request_state *st = *state;
    mn_http_reply r = {0, NULL, NULL, 0, NULL, "", false, false, NULL, 0, false};
    MN_UNUSED(version);

    if (!st) {
        const char *cl = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
        const char *expect = header(c, MHD_HTTP_HEADER_EXPECT);
        unsigned long long declared = cl ? strtoull(cl, NULL, 10) : 0;
        if (!(st = calloc(1, sizeof(*st))))
            return MHD_NO;
        mn_buf_init(&st->body);
        st->start_ns = mn_time_mono_ns();
        *state = st;
        if (declared > MN_MCP_MAX_MESSAGE &&
            (declared > MN_API_MAX_REQUEST ||
             (expect && strcasecmp(expect, "100-continue") == 0))) {
            /* refused before it is sent (100-continue) or too large to read through */
            st->too_big = true;
            route(srv, c, url, method, st, &r);
            return respond(c, method, url, st, &r);
        }
        return MHD_YES;
    }
    if (*size) {
        st->received += *size;
        if (!st->too_big && st->body.len + *size > MN_MCP_MAX_MESSAGE) {
            st->too_big = true;
            mn_buf_release(&st->body);
        }
        if (!st->too_big)
            mn_buf_put(&st->body, data, *size);
        *size = 0;
        /* a body without end (chunked): stop reading at the API's limit */
        return st->received > MN_API_MAX_REQUEST ? MHD_NO : MHD_YES;
    }
    route(srv, c, url, method, st, &r);
    st->prepare = r.prepare;
    st->warm = r.warm;
    return respond(c, method, url, st, &r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode toe)
{
    request_state *st = *state;
    mn_http_server *srv = cls;
    MN_UNUSED(toe);
    mn_http__limits_next(srv->limits, c); /* a kept-alive connection's next request is due */
    /* The reply is sent: a save's embedding and the vectors' reload happen now, on this
     * worker, not in the next question's time (mn_ctx_prepare; stdio.c does the same). */
    if (st && st->authenticated && (st->prepare || st->warm)) {
        mn_ctx *ctx = mn_http__thread_ctx(srv, &st->principal);
        if (ctx && st->prepare)
            mn_ctx_prepare(ctx);
        else if (ctx && !mn_ctx_warmed(ctx))
            mn_ctx_warm(ctx);
        mn_error_clear();
    }
    if (st) {
        mn_buf_release(&st->body);
        free(st);
        *state = NULL;
    }
}

/* libmicrohttpd's format and arguments (the attribute: clang checks a vsnprintf of fmt) */
__attribute__((format(printf, 2, 0))) static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char line[512];
    MN_UNUSED(cls);
    vsnprintf(line, sizeof(line), fmt, ap);
    line[strcspn(line, "\n")] = '\0';
    mn_log(MN_LOG_INFO, "http: %s", line);
}

/* The effective value of a config key, as text (malloc'd). */
int mn_http__config_text(mn_ctx *ctx, char **out, const char *key)
{
    json_t *args = json_pack("{s:s,s:s}", "action", "get", "key", key), *res = NULL;
    int rc = mn_api_call(ctx, "config", args, &res);
    if (rc == 0) {
        const char *v = json_string_value(json_object_get(res, "value"));
        *out = mn_strdup(v ? v : "");
    }
    json_decref(args);
    json_decref(res);
    return rc;
}

static int config_int(mn_ctx *ctx, int64_t *out, const char *key, int64_t max)
{
    char *v = NULL;
    int rc = mn_http__config_text(ctx, &v, key);
    if (rc == 0)
        rc = mn_parse_int64(out, v, 0, max, key);
    free(v);
    return rc;
}

/* Bind and listen on host:port; *fd, the URL and whether it is loopback on success. */
static int listen_on(mn_http_server *srv, int *fd, int *family, const char *host, int port)
{
    struct addrinfo hints, *ai = NULL;
    struct sockaddr_storage bound;
    socklen_t blen = sizeof(bound);
    char addr[INET6_ADDRSTRLEN], portstr[8];
    int s = -1, one = 1, err, rc = 0;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(portstr, sizeof(portstr), "%d", port);
    if ((err = getaddrinfo(host, portstr, &hints, &ai)) != 0)
        return mn_error_set(MN_EINVAL, "cannot use address '%.100s': %s", host, gai_strerror(err));
    s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (s < 0) {
        rc = mn_error_set(MN_EIO, "cannot open a socket: %s", strerror(errno));
        goto out;
    }
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(s, ai->ai_addr, ai->ai_addrlen) != 0 || listen(s, 128) != 0) {
        rc = mn_error_set(MN_EIO, "cannot listen on %.100s port %d: %s", host, port,
                          strerror(errno));
        goto out;
    }
    if (getsockname(s, (struct sockaddr *)&bound, &blen) != 0) {
        rc = mn_error_set(MN_EIO, "cannot read the bound address: %s", strerror(errno));
        goto out;
    }
    srv->loopback = mn_http__is_loopback(&bound);
    *family = bound.ss_family;
    if (bound.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&bound;
        inet_ntop(AF_INET6, &a->sin6_addr, addr, sizeof(addr));
        snprintf(srv->url, sizeof(srv->url), "%s://[%s]:%u", srv->tls ? "https" : "http", addr,
                 ntohs(a->sin6_port));
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&bound;
        inet_ntop(AF_INET, &a->sin_addr, addr, sizeof(addr));
        snprintf(srv->url, sizeof(srv->url), "%s://%s:%u", srv->tls ? "https" : "http", addr,
                 ntohs(a->sin_port));
    }
    *fd = s;
    s = -1;
out:
    if (s >= 0)
        close(s);
    freeaddrinfo(ai);
    return rc;
}

int mn_http_server_new(mn_http_server **out, mn_ctx *ctx, const mn_http_options *opts)
{
    mn_http_server *srv;
    mn_mcp_options mopts = {"http"};
    char *host = NULL;
    int64_t port = 0, threads = 0, max_sessions = 0, idle_ms = 0, deadline_ms = 0,
            conns_per_addr = 0, sessions_per_addr = 0;
    int fd = -1, family = AF_INET, rc;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
    mn_http_tls tls = {NULL, NULL};
    /* the HTTPS options when --tls-cert/--tls-key are given; else only the end */
    struct MHD_OptionItem tls_opts[3] = {
        {MHD_OPTION_END, 0, NULL}, {MHD_OPTION_END, 0, NULL}, {MHD_OPTION_END, 0, NULL}};

    if ((!mhd && !(mhd = mn_libs_mhd())) || (!git && !(git = mn_libs_git())))
        return mn_error_last_code();
    if (!(srv = calloc(1, sizeof(*srv))))
        return mn_error_set(MN_ENOMEM, "out of memory for the server");
    /*
     * Indexing (src/index/walk.c) brackets each walk with libgit2 init and
     * shutdown. libgit2 keeps per-thread state while initialized and drops
     * its thread key at the last shutdown, so two workers walking at once
     * would leak the state of the one that finished first. Holding one
     * init for the server's life keeps the key, and each worker's state is
     * freed when its thread ends.
     */
    git->libgit2_init();
    pthread_mutex_init(&srv->ctxs_lock, NULL);
    if (pthread_key_create(&srv->ctx_key, free_thread_ctxs) != 0) {
        pthread_mutex_destroy(&srv->ctxs_lock);
        free(srv);
        git->libgit2_shutdown();
        return mn_error_set(MN_ERROR, "cannot create a thread key");
    }
    mn_http__sessions_init(&srv->sessions, DEFAULT_MAX_SESSIONS, DEFAULT_IDLE_MS);
    if ((rc = config_int(ctx, &threads, "serve.threads", 64)) != 0 ||
        (rc = config_int(ctx, &max_sessions, "serve.max_sessions", 10000)) != 0 ||
        (rc = mn_api__config_duration(ctx, &idle_ms, "serve.session_idle")) != 0 ||
        (rc = mn_api__config_duration(ctx, &deadline_ms, "serve.request_deadline")) != 0 ||
        (rc = config_int(ctx, &conns_per_addr, "serve.max_connections_per_address",
                         CONNECTION_LIMIT)) != 0 ||
        (rc = config_int(ctx, &sessions_per_addr, "serve.max_sessions_per_address", 10000)) != 0)
        goto fail;
    srv->sessions.max_per_address =
        sessions_per_addr ? (size_t)sessions_per_addr : DEFAULT_SESSIONS_PER_ADDR;
    if ((rc = mn_http__limits_new(&srv->limits,
                                  deadline_ms ? (uint64_t)deadline_ms : DEFAULT_DEADLINE_MS)) != 0)
        goto fail;
    if (max_sessions)
        srv->sessions.max = (size_t)max_sessions;
    if (idle_ms)
        srv->sessions.idle_ms = (uint64_t)idle_ms;
    if ((rc = mn_http__config_text(ctx, &srv->allowed_origins, "serve.allowed_origins")) != 0)
        goto fail;
    {
        char *auth = NULL;
        if ((rc = mn_http__config_text(ctx, &auth, "serve.auth")) != 0)
            goto fail;
        srv->auth_local = strcmp(auth, "local") == 0;
        free(auth);
    }
    srv->project = mn_strdup(mn_ctx_project(ctx));
    if (ctx->root && strcmp(ctx->how, "repository") == 0)
        srv->own_root = mn_strdup(ctx->root);
    if (opts && opts->host)
        host = mn_strdup(opts->host);
    else if ((rc = mn_http__config_text(ctx, &host, "serve.host")) != 0)
        goto fail;
    if (opts && opts->port >= 0)
        port = opts->port;
    else if ((rc = config_int(ctx, &port, "serve.port", 65535)) != 0)
        goto fail;
    srv->db_path = mn_strdup(mn_ctx_db_path(ctx));
    if ((rc = mn_mcp_server_new(&srv->mcp, ctx, &mopts)) != 0 ||
        (rc = mn_http__rest_new(srv, ctx)) != 0)
        goto fail;
    if (opts && opts->tls_cert && opts->tls_key) {
        if (mhd->is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            rc = mn_error_set(MN_EUNSUPPORTED,
                              "this libmicrohttpd was built without TLS: serve without "
                              "--tls-cert, behind a TLS reverse proxy");
            goto fail;
        }
        if ((rc = mn_http__tls_load(&tls, opts->tls_cert, opts->tls_key)) != 0)
            goto fail;
        srv->tls = true;
        tls_opts[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, tls.cert};
        tls_opts[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, tls.key};
        flags |= MHD_USE_TLS;
    }
    if ((rc = listen_on(srv, &fd, &family, host, (int)port)) != 0)
        goto fail;
    if (family == AF_INET6)
        flags |= MHD_USE_IPv6;
    srv->daemon = mhd->start_daemon(
        flags, 0, NULL, NULL, on_request, srv, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv,
        MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)(conns_per_addr ? conns_per_addr : DEFAULT_CONNECTIONS_PER_ADDR),
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(threads ? threads : DEFAULT_THREADS),
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)CONNECTION_TIMEOUT_S, MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv, MHD_OPTION_ARRAY, tls_opts,
        MHD_OPTION_END);
    mn_http__tls_free(&tls); /* GnuTLS holds its own copy now: zero ours at once */
    if (!srv->daemon) {
        close(fd);
        if (srv->tls)
            rc = mn_error_set(MN_EINVAL,
                              "cannot start the HTTPS server on %s: the key '%s' does not match "
                              "the certificate '%s' (or one of them is not valid PEM)",
                              srv->url, opts->tls_key, opts->tls_cert);
        else
            rc = mn_error_set(MN_ERROR, "cannot start the HTTP server on %s", srv->url);
        goto fail;
    }
    /* the projects' own clones (serve.repo), fetched beside the workers */
    if ((rc = mn_http__sync_new(&srv->sync, srv)) != 0)
        goto fail;
    free(host);
    *out = srv;
    return 0;
fail:
    mn_http__tls_free(&tls);
    free(host);
    mn_http_server_free(srv);
    return rc;
}

const char *mn_http_server_url(const mn_http_server *srv)
{
    return srv->url;
}

bool mn_http_server_loopback(const mn_http_server *srv)
{
    return srv->loopback;
}

bool mn_http_server_tls(const mn_http_server *srv)
{
    return srv->tls;
}

void mn_http_server_expire(mn_http_server *srv)
{
    mn_http__sessions_expire(&srv->sessions);
}

void mn_http_server_free(mn_http_server *srv)
{
    if (!srv)
        return;
    if (srv->daemon)
        mhd->stop_daemon(srv->daemon); /* waits for the requests under way */
    mn_http__sync_free(srv->sync);     /* after the last webhook that could trigger it */
    srv->sync = NULL;
    mn_http__limits_free(srv->limits); /* after the last connection closed */
    mn_http__sessions_release(&srv->sessions);
    for (size_t i = 0; i < srv->nctxs; i++)
        mn_ctx_free(srv->ctxs[i]);
    free(srv->ctxs);
    pthread_key_delete(srv->ctx_key);
    pthread_mutex_destroy(&srv->ctxs_lock);
    if (srv->mcp)
        mn_mcp_server_free(srv->mcp);
    mn_http__rest_free(srv);
    free(srv->db_path);
    free(srv->project);
    free(srv->own_root);
    free(srv->allowed_origins);
    free(srv);
    git->libgit2_shutdown(); /* after the workers ended: see mn_http_server_new */
}
