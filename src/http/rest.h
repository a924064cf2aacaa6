/*
 * rest.h - the REST API of `mnemo serve`: /v1, /v1/openapi.json, /metrics
 * and the push webhook, shared by rest.c, openapi.c, metrics.c, webhook.c
 * (and fuzz/fuzz_rest.c, which calls the request reader alone).
 *
 *   rest.c     the request reader (a pure function: method, path,
 *              Content-Type and body -> an op and its arguments, or a 4xx)
 *              and the endpoint that runs the op through mn_api_call
 *   openapi.c  the OpenAPI 3.1 document, generated from the operation table
 *   metrics.c  counters and histograms of the operations (every front end
 *              of the server), the Prometheus text exposition
 *   webhook.c  POST /v1/ingest/git: GitHub's and GitLab's push webhooks,
 *              their signatures checked, then the ingest_git op
 *
 * docs/http.md describes the API as a client sees it.
 */
#ifndef MN_HTTP_REST_H
#define MN_HTTP_REST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mnemo/api.h"
#include "util/buf.h"

/* ---- rest.c: the request reader ---- */

/** What a request to a REST path asks for. */
typedef enum {
    MN_REST_OP,        /* run op with args */
    MN_REST_OPENAPI,   /* GET /v1/openapi.json */
    MN_REST_METRICS,   /* GET /metrics */
    MN_REST_WEBHOOK,   /* POST /v1/ingest/git: webhook.c checks and reads the body */
    MN_REST_PREFLIGHT, /* OPTIONS on a route: 204 with allow */
    MN_REST_REFUSED    /* status, code and message say why */
} mn_rest_kind;

typedef struct {
    const char *method;       /* "POST", ... */
    const char *path;         /* the URL's path, no query */
    const char *content_type; /* NULL: none */
    const char *body;
    size_t len;
    bool too_big; /* the body was over MN_REST_MAX_BODY and was not kept */
} mn_rest_request;

typedef struct {
    mn_rest_kind kind;
    const char *op;      /* MN_REST_OP: the op's name, as the lookup gave it */
    json_t *args;        /* MN_REST_OP: the body, a JSON object (owned) */
    unsigned status;     /* MN_REST_REFUSED: 400, 404, 405, 413, 415 */
    const char *code;    /* MN_REST_REFUSED: the error's code ("invalid", "not_found"...) */
    const char *allow;   /* 405 and MN_REST_PREFLIGHT: the methods the route takes */
    char message[320];   /* MN_REST_REFUSED: one line, what is wrong and what to do */
    char route_name[64]; /* the op or route, for logs and metrics ("save", "openapi") */
} mn_rest_route;

/** The REST body limit, in bytes: what server.c keeps of a body (MN_MCP_MAX_MESSAGE). */
#define MN_REST_MAX_BODY (4u << 20)

/**
 * The op a path segment names, or NULL: the caller's table (the server's
 * is mn_api_find; the fuzzer's a fixed list). The name returned must live
 * as long as the route.
 */
typedef const char *(*mn_rest_lookup)(void *payload, const char *name);

/**
 * Read a request to a REST path (true for mn_http__rest_path) into out:
 * the route (POST /v1/<op>, where <op> may use '-' for '_', and the
 * aliases of the seed's routes: /v1/plan-context is plan_files), then the
 * method, Content-Type, size and body. Pure: no I/O, no store, no global
 * state. Release out with mn_http__rest_route_release.
 */
void mn_http__rest_parse(mn_rest_route *out, const mn_rest_request *req, mn_rest_lookup lookup,
                         void *payload);
void mn_http__rest_route_release(mn_rest_route *route);

/** True for the paths the REST API answers: /v1 and below, /metrics. */
bool mn_http__rest_path(const char *path);
/**
 * True for the REST paths answered without a bearer token: the OpenAPI
 * document (the API's shape, no stored data) and the push webhook (its
 * signature is its credential).
 */
bool mn_http__rest_public(const char *path);

/** The HTTP status of an mn_error_code (MN_EINVAL 400, MN_ENOTFOUND 404, ... others 500). */
unsigned mn_http__rest_status(int code);

/** A REST error body: {"error":{"code":...,"message":...}} (malloc'd JSON text). */
char *mn_http__rest_error_body(const char *code, const char *message);

/* ---- webhook.c ---- */

typedef struct {
    const char *hub_signature; /* X-Hub-Signature-256: "sha256=<hex>" (GitHub) */
    const char *github_event;  /* X-GitHub-Event: push, ping, ... */
    const char *gitlab_token;  /* X-Gitlab-Token: the secret itself (GitLab) */
    const char *gitlab_event;  /* X-Gitlab-Event: "Push Hook", ... */
} mn_webhook_headers;

/** What a webhook delivery asks for, once its signature holds. */
typedef enum {
    MN_WEBHOOK_PUSH,   /* a push: run ingest_git */
    MN_WEBHOOK_PING,   /* GitHub's ping when a hook is made: answer, do nothing */
    MN_WEBHOOK_IGNORED /* another event: answer 202, do nothing */
} mn_webhook_event;

/**
 * Check a delivery's signature against secret: GitHub's X-Hub-Signature-256
 * (HMAC-SHA-256 of the body under the secret, in hex) or GitLab's
 * X-Gitlab-Token (the secret), compared in constant time. Pure. 0 with
 * *event set, or MN_EAUTH (missing or wrong signature) / MN_EINVAL (no
 * event header) with a one-line message that never quotes the secret.
 */
int mn_http__webhook_check(mn_webhook_event *event, const char *secret, size_t secret_len,
                           const mn_webhook_headers *h, const char *body, size_t len);

/* ---- metrics.c ---- */

/** The front ends an op is counted under. */
typedef enum { MN_METRICS_REST, MN_METRICS_MCP, MN_METRICS_FRONTS } mn_metrics_front;

/**
 * Count the operations this thread runs from now on under front and
 * project (until mn_http__metrics_front_end): the calls of mn_api_call
 * between the two are counted, with their time, result and what they
 * served. Other calls (the server's own reads of config) are not.
 */
void mn_http__metrics_front_begin(mn_metrics_front front, const char *project);
void mn_http__metrics_front_end(void);

/** Start counting (registers the api observer; idempotent, process-wide). */
void mn_http__metrics_init(void);

/** Append value to b as a label value of the exposition (\\, \" and \n escaped). */
void mn_http__metrics_label(mn_buf *b, const char *value);

/** Count an HTTP response: the path's family (/mcp, /v1, /metrics, /healthz, other), status. */
void mn_http__metrics_response(const char *path, unsigned status);

/** How a scrape reads each project's store sizes. */
typedef struct {
    /* a store connection to the project (used at once, for the sizes only), or NULL */
    mn_ctx *(*ctx_of)(void *payload, const char *project);
    void *payload;
    const char *project; /* the asker's project: its sizes are shown even before any op */
} mn_metrics_stores;

/**
 * The Prometheus text exposition (format 0.0.4): every project's series,
 * and the HTTP responses, when only_project is NULL (the server's admin);
 * that project's series alone otherwise. Store sizes of the projects shown
 * are read through stores (NULL: left out). malloc'd.
 */
char *mn_http__metrics_text(const char *only_project, const mn_metrics_stores *stores, size_t *len);

/* ---- openapi.c ---- */

/** The OpenAPI 3.1 document of the REST API, from the operation table (malloc'd JSON text). */
char *mn_http__openapi_document(size_t *len);

#endif
