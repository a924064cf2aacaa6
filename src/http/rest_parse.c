/*
 * rest_parse.c - the REST request reader: method, path, Content-Type and
 * body in, the op to run and its arguments (or a 4xx and why) out.
 *
 * A pure function, so that fuzz/fuzz_rest.c can feed it any bytes without
 * a socket and tests/unit/http/test_rest.c can check each refusal. The
 * checks run in this order, and the first that fails decides the answer:
 *
 *   route        /v1/<name> where name (1..63 of [a-z0-9_-], '-' read as
 *                '_') is an op of the caller's table or an alias
 *                (plan-context -> plan_files), /v1/openapi.json,
 *                /v1/ingest/git, /metrics; anything else 404
 *   method       POST for ops and the webhook, GET or HEAD for the
 *                document and /metrics; OPTIONS answers a preflight;
 *                anything else 405 with Allow
 *   Content-Type application/json (charset utf-8 at most) when there is a
 *                body; 415 otherwise
 *   size         at most MN_REST_MAX_BODY (4 MiB); 413 beyond
 *   body         empty means {}; else one JSON object (400 when it does
 *                not parse, or parses to anything but an object)
 *
 * The webhook's body is left unread: its signature must be checked first
 * (webhook.c). The op's own schema is checked later, by mn_api_call.
 */
#include "common.h"

#include "http/http_internal.h"
#include "http/rest.h"

_Static_assert(MN_REST_MAX_BODY == MN_MCP_MAX_MESSAGE,
               "the REST body limit is what server.c keeps of a body");

#define NAME_MAX_LEN 63

/* The seed's routes whose names are not op names. */
static const struct {
    const char *route, *op;
} aliases[] = {
    {"plan_context", "plan_files"},
};

bool mn_http__rest_path(const char *path)
{
    return strcmp(path, "/metrics") == 0 || strcmp(path, "/v1") == 0 ||
           strncmp(path, "/v1/", 4) == 0;
}

bool mn_http__rest_public(const char *path)
{
    return strcmp(path, "/v1/openapi.json") == 0 || strcmp(path, "/v1/ingest/git") == 0;
}

static void refuse(mn_rest_route *out, unsigned status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void refuse(mn_rest_route *out, unsigned status, const char *code, const char *fmt, ...)
{
    va_list ap;
    out->kind = MN_REST_REFUSED;
    out->status = status;
    out->code = code;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof(out->message), fmt, ap);
    va_end(ap);
}

/* The path quoted in a message: at most 80 bytes, control characters as '?'. */
static void quote_path(char *dst, size_t size, const char *path)
{
    size_t i = 0;
    for (; path[i] && i + 1 < size && i < 80; i++)
        dst[i] = (unsigned char)path[i] < 0x20 || path[i] == 0x7f ? '?' : path[i];
    dst[i] = '\0';
}

/* The op /v1/<seg> names ('-' read as '_', then the aliases), or NULL. */
static const char *op_of(const char *seg, mn_rest_lookup lookup, void *payload, char *name,
                         size_t size)
{
    size_t n = strlen(seg);
    if (n == 0 || n > NAME_MAX_LEN || n >= size)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = seg[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return NULL;
        name[i] = c == '-' ? '_' : c;
    }
    name[n] = '\0';
    for (size_t i = 0; i < MN_ARRAY_SIZE(aliases); i++)
        if (strcmp(name, aliases[i].route) == 0)
            return lookup(payload, aliases[i].op);
    return lookup(payload, name);
}

/* True when method is one of allow's (a ", " separated list). */
static bool method_in(const char *method, const char *allow)
{
    size_t n = strlen(method);
    for (const char *p = allow; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, method, n) == 0)
            return true;
        p += len;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return false;
}

/* The method check of a route; false with out refused (405) or a preflight. */
static bool method_ok(mn_rest_route *out, const mn_rest_request *req, const char *allow,
                      const char *shown)
{
    out->allow = allow;
    if (strcmp(req->method, "OPTIONS") == 0) {
        out->kind = MN_REST_PREFLIGHT;
        return false;
    }
    if (method_in(req->method, allow))
        return true;
    refuse(out, 405, "method_not_allowed", "method %.16s not allowed on %s (%s)", req->method,
           shown, allow);
    return false;
}

/* Content-Type and size: what the op routes and the webhook share. */
static bool body_ok(mn_rest_route *out, const mn_rest_request *req)
{
    if ((req->len > 0 || req->too_big || req->content_type) &&
        !mn_http__content_type_is_json(req->content_type)) {
        char ct[84];
        quote_path(ct, sizeof(ct), req->content_type ? req->content_type : "none");
        refuse(out, 415, "unsupported_media_type",
               "Content-Type must be application/json (got '%s')", ct);
        return false;
    }
    if (req->too_big) {
        refuse(out, 413, "too_big", "request body larger than %u bytes, the limit; send less",
               MN_REST_MAX_BODY);
        return false;
    }
    return true;
}

void mn_http__rest_parse(mn_rest_route *out, const mn_rest_request *req, mn_rest_lookup lookup,
                         void *payload)
{
    char name[NAME_MAX_LEN + 1], shown[96];
    const char *path = req->path;
    json_error_t jerr;

    memset(out, 0, sizeof(*out));
    quote_path(shown, sizeof(shown), path);
    if (strcmp(path, "/metrics") == 0) {
        snprintf(out->route_name, sizeof(out->route_name), "metrics");
        if (method_ok(out, req, "GET, HEAD", "/metrics"))
            out->kind = MN_REST_METRICS;
        return;
    }
    if (strcmp(path, "/v1/openapi.json") == 0) {
        snprintf(out->route_name, sizeof(out->route_name), "openapi");
        if (method_ok(out, req, "GET, HEAD", "/v1/openapi.json"))
            out->kind = MN_REST_OPENAPI;
        return;
    }
    if (strcmp(path, "/v1/ingest/git") == 0) {
        snprintf(out->route_name, sizeof(out->route_name), "webhook");
        if (method_ok(out, req, "POST", "/v1/ingest/git") && body_ok(out, req))
            out->kind = MN_REST_WEBHOOK;
        return;
    }
    const char *op =
        strncmp(path, "/v1/", 4) == 0 ? op_of(path + 4, lookup, payload, name, sizeof(name)) : NULL;
    if (!op) {
        refuse(out, 404, "not_found",
               "no such route '%s': POST /v1/<operation> (GET /v1/openapi.json lists them)", shown);
        return;
    }
    snprintf(out->route_name, sizeof(out->route_name), "%s", op);
    if (!method_ok(out, req, "POST", shown) || !body_ok(out, req))
        return;
    if (req->len == 0) {
        out->args = json_object();
    } else if (!(out->args = json_loadb(req->body, req->len, JSON_DECODE_ANY, &jerr))) {
        refuse(out, 400, "invalid", "malformed JSON: %s (line %d, column %d)", jerr.text, jerr.line,
               jerr.column);
        return;
    } else if (!json_is_object(out->args)) {
        json_decref(out->args);
        out->args = NULL;
        refuse(out, 400, "invalid",
               "the body must be a JSON object of the operation's arguments ({} for none)");
        return;
    }
    out->kind = MN_REST_OP;
    out->op = op;
}

void mn_http__rest_route_release(mn_rest_route *route)
{
    json_decref(route->args);
    route->args = NULL;
}

unsigned mn_http__rest_status(int code)
{
    switch (code) {
    case MN_EINVAL:
    case MN_EAMBIGUOUS: /* an id prefix that matches several: the caller's to fix */
        return 400;
    case MN_EAUTH:
        return 401;
    case MN_EDENIED:
        return 403;
    case MN_ENOTFOUND:
        return 404;
    case MN_EEXISTS:
        return 409;
    case MN_ETOOBIG:
        return 413;
    case MN_EBUSY:
    case MN_EUNAVAILABLE:
        return 503;
    default:
        return 500;
    }
}

char *mn_http__rest_error_body(const char *code, const char *message)
{
    json_t *e = json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", message);
    char *text;
    if (!e) {
        /* a message quoting bytes that are not UTF-8 (a parse error near them): ASCII it is */
        char *ascii = mn_strdup(message);
        for (char *p = ascii; *p; p++)
            if ((unsigned char)*p >= 0x80 || (unsigned char)*p < 0x20)
                *p = '?';
        e = json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", ascii);
        free(ascii);
    }
    text = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    return text;
}
