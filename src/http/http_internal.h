/*
 * http_internal.h - what the files of src/http/ share.
 *
 *   server.c        libmicrohttpd: binding, the worker pool, request bodies,
 *                   routing, per-thread store connections
 *   mcp_endpoint.c  /mcp: the streamable HTTP transport of MCP
 *   sessions.c      the table of MCP sessions: ids, expiry, the cap
 *   headers.c       checks of request headers (Origin, Host, Accept,
 *                   Content-Type, session ids), pure functions
 *   peer.c          which user of this machine a loopback connection comes
 *                   from (/proc/net/tcp): other users are refused
 *   limits.c        the deadline per request (a reaper thread cuts
 *                   connections whose request has not arrived in time)
 *   rest*.c, openapi.c, metrics.c, webhook.c
 *                   /v1, /v1/openapi.json, /metrics, the push webhook
 *                   (their own header: rest.h)
 *   auth.c          who a request comes from: its bearer token, or the
 *                   local user of a loopback server (config serve.auth)
 *   sync.c          the server's own clone of each project's repository
 *                   (serve.repo), fetched on the webhook and every serve.poll
 *
 * The endpoint sees a request as an mn_http_request (header values and the
 * body, collected by server.c) and answers with an mn_http_reply, so it
 * knows nothing of libmicrohttpd.
 */
#ifndef MN_HTTP_INTERNAL_H
#define MN_HTTP_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/access.h"
#include "http/http.h"
#include "util/buf.h"
#include "mcp/mcp.h"

/* ---- headers.c ---- */

/**
 * True when a request may come from a page of this Origin: http or https on
 * localhost, 127.0.0.1 or [::1] with any port, or one of `extra` (a comma
 * separated list of origins, compared without case; may be NULL).
 */
bool mn_http__origin_allowed(const char *origin, const char *extra);

/** True when a Host header value names a loopback host (localhost, 127.0.0.1, [::1]), any port. */
bool mn_http__host_is_loopback(const char *host);

/** The host part of a Host header or origin ("a.b:80" -> "a.b", "[::1]:9" -> "[::1]"), in out. */
bool mn_http__host_part(char *out, size_t size, const char *hostport);

typedef struct {
    bool json;       /* application/json acceptable (q > 0) */
    bool sse;        /* text/event-stream acceptable */
    bool prefer_sse; /* text/event-stream ranks above application/json */
} mn_http_accept;

/** Read an Accept header; NULL (absent) accepts anything, and a JSON reply is chosen. */
void mn_http__accept_parse(mn_http_accept *out, const char *accept);

/** True for "application/json", any case, with no parameter but charset=utf-8. */
bool mn_http__content_type_is_json(const char *content_type);

/** True when id has 1..MN_HTTP_SESSION_ID_MAX visible ASCII characters (0x21..0x7e). */
bool mn_http__session_id_valid(const char *id);

/* ---- peer.c ---- */

struct sockaddr_storage;

/** One end of a TCP connection as /proc/net/tcp{,6} prints it (see peer.c). */
typedef struct {
    uint32_t w[4]; /* the address bytes read as 32-bit words of this machine's order */
    int nw;        /* 1 (IPv4, /proc/net/tcp) or 4 (IPv6, /proc/net/tcp6) */
    unsigned port;
} mn_http_net_end;

/**
 * The uid of the socket whose local end is `local` and remote end is
 * `remote`, from the text of /proc/net/tcp (v6 false) or tcp6 (v6 true).
 * 0 with *uid set, or MN_ENOTFOUND.
 */
int mn_http__proc_net_uid(const char *text, size_t len, bool v6, const mn_http_net_end *local,
                          const mn_http_net_end *remote, unsigned *uid);
/** The uid owning the client socket of the accepted connection fd; MN_ENOTFOUND: not local. */
int mn_http__peer_uid(int fd, unsigned *uid);
/** True for 127.0.0.0/8, ::1 and ::ffff:127.x.y.z. */
bool mn_http__is_loopback(const struct sockaddr_storage *sa);

/* The PEM certificate and key of --tls-cert/--tls-key (tls.c); NUL-terminated, malloc'd. */
typedef struct {
    char *cert, *key;
} mn_http_tls;
/** Read both files (the key must be private to its owner); 0, or an error naming the file. */
int mn_http__tls_load(mn_http_tls *tls, const char *cert_path, const char *key_path);
/** Zero the key and free both (a zeroed struct is fine). */
void mn_http__tls_free(mn_http_tls *tls);
/**
 * May the connection fd be served? A peer outside loopback is (serve.host
 * chose the network); a loopback peer only when its socket belongs to this
 * process's effective uid. 0, or MN_ERROR with the reason (one line) in why.
 */
int mn_http__peer_check(int fd, char *why, size_t size);

/* ---- limits.c ---- */

#define MN_HTTP_ADDR_MAX 46 /* INET6_ADDRSTRLEN */

struct sockaddr;

/** A client's address as text ("127.0.0.2", "2001:db8::1"; v4-mapped IPv6 as IPv4); "" if unknown.
 */
void mn_http__client_address(char out[MN_HTTP_ADDR_MAX], const struct sockaddr *sa);

/** The connections of a server and the moments by which their requests must be read. */
typedef struct mn_http_limits mn_http_limits;

/**
 * A table for connections whose requests must arrive within deadline_ms
 * (0: no deadline, and no reaper thread), with a reaper thread that cuts
 * the late ones.
 */
int mn_http__limits_new(mn_http_limits **out, uint64_t deadline_ms);
/** Stop the reaper and free the table (after the last connection closed). */
void mn_http__limits_free(mn_http_limits *l);
/** An accepted connection (any pointer naming it) on socket fd: its first request is due. */
void mn_http__limits_track(mn_http_limits *l, const void *conn, int fd, const char *addr);
/** The connection closed (before its descriptor is closed): unlist it. */
void mn_http__limits_untrack(mn_http_limits *l, const void *conn);
/** Its request has been read: no deadline while it is answered. */
void mn_http__limits_answering(mn_http_limits *l, const void *conn);
/** Its reply is done: the next request (kept-alive) is due within the deadline from now. */
void mn_http__limits_next(mn_http_limits *l, const void *conn);
/** Shut down every listed connection past its deadline at now (monotonic ms); how many. */
size_t mn_http__limits_reap(mn_http_limits *l, uint64_t now);
/** How many connections are listed. */
size_t mn_http__limits_count(mn_http_limits *l);

/* ---- auth.c ---- */

/**
 * Who sends a request, from its Authorization header (NULL: none): a
 * "Bearer mnemo_..." token gives its project, role and actor
 * ("token:<name>"); no header gives the local user (admin of the server's
 * own project, actor "mcp") only when the server is bound to loopback and
 * config serve.auth is local. 0, or MN_EAUTH (401) with one line saying
 * why; MN_EIO and others when the store cannot be read.
 */
int mn_http__authenticate(mn_http_server *srv, const char *authorization, mn_principal *out);

/* ---- sessions.c ---- */

#define MN_HTTP_SESSION_ID_LEN 64 /* hex of 32 random bytes */
#define MN_HTTP_SESSION_ID_MAX 256

typedef struct mn_http_session {
    char id[MN_HTTP_SESSION_ID_LEN + 1];
    mn_mcp_session *mcp;
    pthread_mutex_t lock; /* held while one of its messages is handled */
    mn_buf *events;       /* under lock: where notifications go during an SSE reply, or NULL */
    /* who opened it (auth.c's principal: actor, a newline, project); set before it is
       listed, read-only after: another principal's request finds no such session */
    char owner[MN_TOKEN_NAME_MAX + 8 + MN_PROJECT_NAME_MAX + 2];
    /* under the table's lock: */
    unsigned refs; /* the table's reference (while listed) + requests using it */
    bool listed;
    uint64_t last_used_ms;       /* monotonic */
    uint64_t last_use;           /* t->uses when last used: the order of use, without ties */
    char addr[MN_HTTP_ADDR_MAX]; /* the client address that opened it (set before adding) */
} mn_http_session;

typedef struct {
    pthread_mutex_t lock;
    mn_http_session **v; /* the listed sessions, unordered */
    size_t n, cap;
    size_t max;             /* serve.max_sessions */
    size_t max_per_address; /* serve.max_sessions_per_address; 0: no cap per address */
    uint64_t idle_ms;       /* serve.session_idle */
    uint64_t uses;          /* counts each add and put: a session's last_use */
} mn_http_sessions;

void mn_http__sessions_init(mn_http_sessions *t, size_t max, uint64_t idle_ms);
/** End and free every session (at shutdown, when no request runs any more). */
void mn_http__sessions_release(mn_http_sessions *t);
/**
 * A new, unlisted session around an MCP session; its notifications go to
 * s->events while that is set. refs = 1 (the caller's).
 */
int mn_http__session_new(mn_http_session **out, mn_mcp_server *srv);
/**
 * List s under a fresh random id (s->id). When s->addr already has
 * max_per_address sessions, that address's session idle longest is ended
 * first (MN_EBUSY when all of them are in use); otherwise, at the cap, the
 * session idle longest of the address that holds the most is ended
 * (MN_EBUSY when every listed session is in use). Never another address's
 * while one address holds more than its share.
 */
int mn_http__sessions_add(mn_http_sessions *t, mn_http_session *s);
/** The listed session with this id, with a reference for the caller; NULL: unknown or ended. */
mn_http_session *mn_http__sessions_get(mn_http_sessions *t, const char *id);
/** Drop the caller's reference (marks it used now); the last one frees the session. */
void mn_http__sessions_put(mn_http_sessions *t, mn_http_session *s);
/** Unlist the session with this id; false when there is none. */
bool mn_http__sessions_end(mn_http_sessions *t, const char *id);
/** Unlist the sessions idle longer than idle_ms (not those in use). */
void mn_http__sessions_expire(mn_http_sessions *t);
/** How many sessions are listed. */
size_t mn_http__sessions_count(mn_http_sessions *t);

/* ---- sync.c ---- */

/** The thread that keeps each project's own clone fresh (serve.repo; sync.c). */
typedef struct mn_http_sync mn_http_sync;

/**
 * Start the sync thread of srv (libgit2 loaded and initialised for the
 * server's life). Each project with serve.repo is synced once now, then
 * on mn_http__sync_trigger and every serve.poll.
 */
int mn_http__sync_new(mn_http_sync **out, mn_http_server *srv);
/** Stop the thread (a transfer under way is cut) and free everything (NULL is fine). */
void mn_http__sync_free(mn_http_sync *s);
/**
 * A push arrived for project: true when it has a serve.repo (a run is
 * queued: the caller answers at once), false when it has none.
 */
bool mn_http__sync_trigger(mn_http_sync *s, const char *project);
/** The sync's series (runs by outcome, last success) of one project, or all (NULL), into b. */
void mn_http__sync_metrics(mn_http_sync *s, mn_buf *b, const char *only_project);

/* ---- the server (server.c) as the endpoint sees it ---- */

struct mn_http_server {
    struct MHD_Daemon *daemon;
    mn_mcp_server *mcp;
    mn_http_sessions sessions;
    char *db_path;             /* the store every worker opens */
    char *allowed_origins;     /* serve.allowed_origins ("" for none) */
    struct mn_http_rest *rest; /* the REST API's state (rest.c) */
    bool loopback;             /* bound to a loopback address: Host must name one too */
    bool auth_local;           /* config serve.auth local: see mn_http__authenticate */
    bool tls;                  /* HTTPS (--tls-cert/--tls-key, tls.c) */
    char *project;             /* the project of the store `mnemo serve` was started on */
    char *own_root; /* the repository whose .mnemo/ holds that store, else NULL (project_root) */
    char url[128];
    pthread_key_t ctx_key; /* the worker's mn_ctx */
    pthread_mutex_t ctxs_lock;
    mn_ctx **ctxs; /* every worker's mn_ctx (one per thread and project), freed at shutdown */
    size_t nctxs, ctxs_cap;
    mn_http_limits *limits; /* the deadline per request (limits.c) */
    mn_http_sync *sync;     /* the projects' own clones (sync.c) */
};

typedef struct {
    const char *method; /* "POST", ... */
    const char *origin, *host, *accept, *content_type, *session_id, *protocol_version;
    const char *body;
    size_t len;
    bool too_big;       /* the body was over MN_MCP_MAX_MESSAGE (and was not kept) */
    const char *client; /* the client's address (mn_http__client_address), "" if unknown */
    const char *path;   /* the URL's path (REST routes) */
    /* any other request header, by name (NULL when absent); REST routes */
    const char *(*header)(void *payload, const char *name);
    void *header_payload;
    const mn_principal *principal; /* who sends it (auth.c) */
} mn_http_request;

typedef struct {
    unsigned status;
    const char *content_type; /* static text, or NULL with no body */
    char *body;               /* malloc'd, or NULL */
    size_t len;
    const char *allow;                           /* an Allow header (405), or NULL */
    char session_id[MN_HTTP_SESSION_ID_LEN + 1]; /* "" or an Mcp-Session-Id header */
    bool prepare; /* a tool may have written: mn_ctx_prepare once the reply is sent */
    bool warm;    /* the worker's store has not been warmed: mn_ctx_warm then */
    const char *www_authenticate; /* a WWW-Authenticate header (401), or NULL */
    unsigned retry_after;         /* seconds, for a Retry-After header (503); 0: none */
    bool denied; /* a tool was refused by the caller's role: 403 (the JSON-RPC reply kept) */
} mn_http_reply;

/**
 * The calling worker's store connection to the principal's project (NULL:
 * the server's own project, as its local admin), opened on first use and
 * kept per (thread, project) for up to 8 projects a worker (then the least
 * recently used is closed: a pointer from an earlier call may be gone), with
 * the principal's actor and role set for this request. NULL with an error set.
 */
mn_ctx *mn_http__thread_ctx(mn_http_server *srv, const mn_principal *p);

/** The effective value of a config key, as text (malloc'd into *out). server.c. */
int mn_http__config_text(mn_ctx *ctx, char **out, const char *key);

/** A reply with a JSON-RPC error (id null) as its body. */
void mn_http__reply_error(mn_http_reply *r, unsigned status, int code, const char *message);

/** Answer a request to /mcp (any method). */
void mn_http__mcp_endpoint(mn_http_server *srv, const mn_http_request *req, mn_http_reply *r);

/* ---- rest.c ---- */

/**
 * The REST API's state for srv: serve.webhook_secret resolved (env:NAME or
 * file:PATH, read once here), the OpenAPI document made on first use, the
 * metrics started. 0, or an error (an unreadable secret) that stops the
 * server from starting.
 */
int mn_http__rest_new(mn_http_server *srv, mn_ctx *ctx);
void mn_http__rest_free(mn_http_server *srv);
/** A reply with a REST error body ({"error":{"code","message"}}) and its status. */
void mn_http__rest_reply_error(mn_http_reply *r, unsigned status, const char *code,
                               const char *message);
/** Answer a request to a REST path (mn_http__rest_path: /v1..., /metrics). */
void mn_http__rest_endpoint(mn_http_server *srv, const mn_http_request *req, mn_http_reply *r);

#endif
