/*
 * rest.c - the REST API of `mnemo serve`: POST /v1/<op> for every
 * operation of the table, GET /v1/openapi.json, GET /metrics and the push
 * webhook at POST /v1/ingest/git.
 *
 * rest_parse.c reads the request (route, method, Content-Type, size, body)
 * without touching anything; this file runs what it asks for on the
 * worker's store connection (mn_http__thread_ctx). An op's body is its
 * input as JSON, validated against the op's schema by mn_api_call; the
 * answer is the op's output with 200, or {"error":{"code","message"}}
 * with the status of the error's code (mn_http__rest_status: 400 invalid,
 * 401 unauthenticated with WWW-Authenticate, 403 denied, 404 not found,
 * 409 exists, 413 too big, 503 busy or unavailable with Retry-After,
 * others 500). The message is the op's, which mn_api_call scrubbed of
 * secrets as for every front end.
 *
 * Which ops REST reaches: all of them. mcp.tools trims the list an agent's
 * model reads (a token budget); a REST caller is a program that reads the
 * OpenAPI document, and who may call what is decided once, for every
 * front end, in the operation layer (roles, issue 24), not by a list here.
 *
 * The webhook's secret (serve.webhook_secret: env:NAME or file:PATH, never
 * the secret itself) is read once when the server starts, kept in this
 * server's state, wiped when it stops, and never logged or answered.
 */
#include "common.h"
#include <pthread.h>

#include "http/http_internal.h"
#include "http/rest.h"
#include "retrieve/embed.h"
#include "util/util.h"

struct mn_http_rest {
    char *secret; /* the webhook secret, or NULL: the webhook is off */
    size_t secret_len;
    pthread_mutex_t lock; /* over openapi */
    char *openapi;        /* the document, made on first use */
    size_t openapi_len;
};

static const char *table_lookup(void *payload, const char *name)
{
    const mn_op *op = mn_api_find(name);
    MN_UNUSED(payload);
    return op ? op->name : NULL;
}

static void reply_json(mn_http_reply *r, unsigned status, char *text)
{
    free(r->body);
    r->status = text ? status : 500;
    r->body = text;
    r->len = text ? strlen(text) : 0;
    r->content_type = text ? "application/json" : NULL;
}

void mn_http__rest_reply_error(mn_http_reply *r, unsigned status, const char *code,
                               const char *message)
{
    reply_json(r, status, mn_http__rest_error_body(code, message));
}

static void reply_error(mn_http_reply *r, unsigned status, const char *code, const char *message)
{
    mn_http__rest_reply_error(r, status, code, message);
}

/* The reply to a failed call: status, code and the headers its status asks for. */
static void reply_failure(mn_http_reply *r, int rc, const char *message)
{
    unsigned status = mn_http__rest_status(rc);
    reply_error(r, status, mn_error_name(rc), *message ? message : mn_error_name(rc));
    if (status == 401)
        r->www_authenticate = "Bearer realm=\"mnemo\"";
    if (status == 503)
        r->retry_after = rc == MN_EBUSY ? 1 : 5; /* a lock frees soon; a server restarts slower */
}

/* serve.webhook_secret: where the secret is (env:NAME, file:PATH), read now. */
static int read_secret(struct mn_http_rest *rest, const char *ref)
{
    char *secret = NULL;
    int rc = 0;
    if (!*ref)
        return 0;
    if (strncmp(ref, "env:", 4) == 0) {
        const char *v = getenv(ref + 4);
        if (!v || !*v)
            return mn_error_set(MN_EINVAL,
                                "serve.webhook_secret names $%.100s, which is not set: export it "
                                "before mnemo serve, or unset the key",
                                ref + 4);
        secret = mn_strdup(v);
    } else if ((rc = mn_embed_key_resolve(&secret, ref)) != 0) {
        return mn_error_prefix("serve.webhook_secret");
    }
    if (secret && strlen(secret) < 16) {
        memset(secret, 0, strlen(secret));
        free(secret);
        return mn_error_set(MN_EINVAL,
                            "serve.webhook_secret: the secret in '%.100s' is shorter "
                            "than 16 characters; use a long random one",
                            ref);
    }
    rest->secret = secret;
    rest->secret_len = secret ? strlen(secret) : 0;
    return 0;
}

int mn_http__rest_new(mn_http_server *srv, mn_ctx *ctx)
{
    struct mn_http_rest *rest = mn_calloc(1, sizeof(*rest));
    char *ref = NULL;
    int rc;
    pthread_mutex_init(&rest->lock, NULL);
    srv->rest = rest;
    if ((rc = mn_http__config_text(ctx, &ref, "serve.webhook_secret")) == 0)
        rc = read_secret(rest, ref);
    free(ref);
    mn_http__metrics_init();
    return rc;
}

void mn_http__rest_free(mn_http_server *srv)
{
    struct mn_http_rest *rest = srv->rest;
    if (!rest)
        return;
    if (rest->secret) {
        memset(rest->secret, 0, rest->secret_len);
        free(rest->secret);
    }
    free(rest->openapi);
    pthread_mutex_destroy(&rest->lock);
    free(rest);
    srv->rest = NULL;
}

/* Run one op for a REST caller; counted by the metrics as front end rest. */
static int run_op(mn_http_server *srv, const mn_principal *who, mn_http_reply *r, const char *name,
                  const json_t *args, json_t **out)
{
    mn_ctx *ctx = mn_http__thread_ctx(srv, who);
    const mn_op *op = mn_api_find(name);
    int rc;
    *out = NULL;
    if (!ctx)
        return mn_error_prefix("cannot open the store");
    mn_http__metrics_front_begin(MN_METRICS_REST, mn_ctx_project(ctx));
    rc = mn_api_call(ctx, name, args, out);
    mn_http__metrics_front_end();
    /* as for an MCP tool: the store is made ready for the next question once this is sent */
    r->prepare = rc == 0 && op && !(op->flags & MN_OP_READONLY);
    r->warm = rc == 0 && !mn_ctx_warmed(ctx);
    return rc;
}

static void answer_op(mn_http_server *srv, const mn_http_request *req, const mn_rest_route *route,
                      mn_http_reply *r)
{
    json_t *out = NULL;
    int rc = run_op(srv, req->principal, r, route->op, route->args, &out);
    if (rc)
        reply_failure(r, rc, mn_error_last());
    else
        reply_json(r, 200, json_dumps(out, JSON_COMPACT));
    json_decref(out);
}

static const char *header(const mn_http_request *req, const char *name)
{
    return req->header ? req->header(req->header_payload, name) : NULL;
}

/* POST /v1/ingest/git: a push webhook of GitHub or GitLab (webhook.c checks it). */
static void answer_webhook(mn_http_server *srv, const mn_http_request *req, mn_http_reply *r)
{
    struct mn_http_rest *rest = srv->rest;
    mn_webhook_headers h = {
        header(req, "X-Hub-Signature-256"),
        header(req, "X-GitHub-Event"),
        header(req, "X-Gitlab-Token"),
        header(req, "X-Gitlab-Event"),
    };
    mn_webhook_event ev;
    json_t *payload = NULL, *out = NULL;
    json_error_t jerr;
    int rc;

    if (!rest->secret) {
        reply_error(r, 403, "denied",
                    "the push webhook is off: set serve.webhook_secret (env:NAME or file:PATH) "
                    "and restart mnemo serve");
        return;
    }
    if ((rc = mn_http__webhook_check(&ev, rest->secret, rest->secret_len, &h, req->body,
                                     req->len)) != 0) {
        mn_log(MN_LOG_WARN, "http: webhook refused: %s", mn_error_last());
        reply_failure(r, rc, mn_error_last());
        return;
    }
    if (ev == MN_WEBHOOK_PING) {
        reply_json(r, 200, mn_strdup("{\"event\":\"ping\"}"));
        return;
    }
    if (ev == MN_WEBHOOK_IGNORED) {
        reply_json(r, 202, mn_strdup("{\"event\":\"ignored\"}"));
        return;
    }
    payload = json_loadb(req->body ? req->body : "", req->len, 0, &jerr);
    if (!json_is_object(payload)) {
        reply_error(r, 400, "invalid", "the push payload is not a JSON object");
        goto out;
    }
    /* a project with its own clone (serve.repo): the sync thread fetches, indexes and
     * ingests it; the forge gets its answer now, not after the run (sync.c) */
    if (mn_http__sync_trigger(srv->sync, srv->project)) {
        reply_json(r, 202, mn_strdup("{\"event\":\"push\",\"sync\":\"queued\"}"));
        mn_log(MN_LOG_INFO, "http: webhook push: a sync of project '%s' is queued", srv->project);
        goto out;
    }
    /* the server's own repository, as its clone has it now: commits read before are skipped */
    /* a signed push is the server's own admin act on its own project, audited as "webhook" */
    mn_principal hook;
    memset(&hook, 0, sizeof(hook));
    snprintf(hook.actor, sizeof(hook.actor), "webhook");
    snprintf(hook.project, sizeof(hook.project), "%s", srv->project ? srv->project : "");
    hook.role = MN_ROLE_ADMIN;
    json_t *args = json_object();
    rc = run_op(srv, &hook, r, "ingest_git", args, &out);
    json_decref(args);
    if (rc) {
        reply_failure(r, rc, mn_error_last());
        goto out;
    }
    json_t *answer = json_pack("{s:s,s:O}", "event", "push", "ingest_git", out);
    reply_json(r, 200, answer ? json_dumps(answer, JSON_COMPACT) : NULL);
    json_decref(answer);
    mn_log(MN_LOG_INFO, "http: webhook push: %lld commit(s) ingested",
           (long long)json_integer_value(
               json_object_get(json_object_get(out, "commits"), "ingested")));
out:
    json_decref(payload);
    json_decref(out);
}

static void answer_openapi(mn_http_server *srv, mn_http_reply *r)
{
    struct mn_http_rest *rest = srv->rest;
    char *copy = NULL;
    pthread_mutex_lock(&rest->lock);
    if (!rest->openapi)
        rest->openapi = mn_http__openapi_document(&rest->openapi_len);
    if (rest->openapi) {
        copy = mn_malloc(rest->openapi_len + 1);
        memcpy(copy, rest->openapi, rest->openapi_len + 1);
    }
    pthread_mutex_unlock(&rest->lock);
    reply_json(r, 200, copy);
}

/* A store connection to a project for /metrics' sizes (the worker's own, as its admin). */
static mn_ctx *metrics_ctx(void *payload, const char *project)
{
    mn_principal who;
    memset(&who, 0, sizeof(who));
    snprintf(who.actor, sizeof(who.actor), "metrics");
    snprintf(who.project, sizeof(who.project), "%s", project);
    who.role = MN_ROLE_ADMIN;
    return mn_http__thread_ctx(payload, &who);
}

static void answer_metrics(mn_http_server *srv, const mn_http_request *req, mn_http_reply *r)
{
    /* the server's admin sees every project's series; another token its project's only
     * (docs/http.md): a token of A learns nothing of B */
    const mn_principal *p = req->principal;
    const char *project = p ? p->project : srv->project;
    bool server_admin =
        !p || (p->role == MN_ROLE_ADMIN && srv->project && strcmp(p->project, srv->project) == 0);
    mn_metrics_stores stores = {metrics_ctx, srv, project};
    size_t len = 0;
    char *text = mn_http__metrics_text(server_admin ? NULL : project, &stores, &len);
    mn_buf b = MN_BUF_INIT;
    mn_buf_put(&b, text, len);
    free(text);
    mn_http__sync_metrics(srv->sync, &b, server_admin ? NULL : project);
    mn_error_clear();
    free(r->body);
    r->status = 200;
    r->len = b.len;
    r->body = mn_buf_detach(&b);
    r->content_type = "text/plain; version=0.0.4; charset=utf-8";
}

void mn_http__rest_endpoint(mn_http_server *srv, const mn_http_request *req, mn_http_reply *r)
{
    mn_rest_request rq = {req->method, req->path, req->content_type,
                          req->body,   req->len,  req->too_big};
    mn_rest_route route;

    mn_http__rest_parse(&route, &rq, table_lookup, NULL);
    switch (route.kind) {
    case MN_REST_REFUSED:
        reply_error(r, route.status, route.code, route.message);
        r->allow = route.allow;
        break;
    case MN_REST_PREFLIGHT:
        r->status = 204;
        r->allow = route.allow;
        break;
    case MN_REST_OPENAPI:
        answer_openapi(srv, r);
        break;
    case MN_REST_METRICS:
        answer_metrics(srv, req, r);
        break;
    case MN_REST_WEBHOOK:
        answer_webhook(srv, req, r);
        break;
    case MN_REST_OP:
        answer_op(srv, req, &route, r);
        break;
    }
    mn_http__rest_route_release(&route);
}
