/*
 * openapi.c - the OpenAPI 3.1 document of the REST API (GET
 * /v1/openapi.json), generated from the operation table, so that an op
 * added to the table is documented by the same build that routes it.
 *
 * For each op: POST /v1/<op> (operationId the op's name, summary and
 * description from the table), its input schema as the request body and
 * its output schema as the 200 answer, both under components/schemas as
 * <op>.input and <op>.output (the CLI's x-... keywords removed, as for the
 * MCP tool list: they are not JSON Schema), and the error answers the
 * server gives (components/responses, one shared Error schema). Read-only
 * ops carry x-mnemo-readonly, destructive ones x-mnemo-destructive. The
 * seed's alias /v1/plan-context points at plan_files' schemas; the
 * webhook, the document itself, /metrics and /healthz are listed too. One
 * security scheme, bearer: the server refuses a call without a token
 * unless it serves loopback for local use (issue 24's access control).
 * Schemas in OpenAPI 3.1 are JSON Schema 2020-12, which ours are.
 */
#include "common.h"

#include "http/rest.h"
#include "mcp/tools.h"
#include "mnemo/mnemo.h"

static json_t *ref(const char *kind, const char *name)
{
    char buf[160];
    snprintf(buf, sizeof(buf), "#/components/%s/%s", kind, name);
    return json_pack("{s:s}", "$ref", buf);
}

/* The error answers every op route may give. */
static void add_error_responses(json_t *responses)
{
    static const char *const codes[] = {"400", "401", "403", "404", "413", "415", "500", "503"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(codes); i++)
        json_object_set_new(responses, codes[i], ref("responses", codes[i]));
}

static json_t *json_body(json_t *schema)
{
    return json_pack("{s:{s:o}}", "application/json", "schema", schema);
}

static json_t *op_post(const mn_op *op, const char *operation_id)
{
    char in[96], out[96];
    snprintf(in, sizeof(in), "%s.input", op->name);
    snprintf(out, sizeof(out), "%s.output", op->name);
    json_t *responses = json_pack("{s:{s:s,s:o}}", "200", "description", "The operation's answer.",
                                  "content", json_body(ref("schemas", out)));
    add_error_responses(responses);
    json_t *post =
        json_pack("{s:s,s:s,s:s,s:[s],s:{s:b,s:o},s:o}", "operationId", operation_id, "summary",
                  op->summary, "description", op->description, "tags",
                  (op->flags & MN_OP_READONLY) ? "read" : "write", "requestBody", "required", 0,
                  "content", json_body(ref("schemas", in)), "responses", responses);
    if (op->flags & MN_OP_READONLY)
        json_object_set_new(post, "x-mnemo-readonly", json_true());
    if (op->flags & MN_OP_DESTRUCTIVE)
        json_object_set_new(post, "x-mnemo-destructive", json_true());
    return json_pack("{s:o}", "post", post);
}

static json_t *error_schema(void)
{
    return json_pack("{s:s,s:[s],s:{s:{s:s,s:[s,s],s:{s:{s:s,s:s},s:{s:s}}}}}", "type", "object",
                     "required", "error", "properties", "error", "type", "object", "required",
                     "code", "message", "properties", "code", "type", "string", "description",
                     "mn_error_name of the failure (invalid, not_found, unauthenticated, "
                     "denied, too_big, busy, unavailable...) or the HTTP refusal "
                     "(method_not_allowed, unsupported_media_type)",
                     "message", "type", "string");
}

static json_t *error_responses(void)
{
    static const struct {
        const char *status, *text;
    } rs[] = {
        {"400", "Malformed JSON, a body that is not an object, or arguments the op's schema "
                "refuses."},
        {"401", "No valid token (WWW-Authenticate: Bearer)."},
        {"403", "The token's role does not allow this, or the request was refused (origin, "
                "host, another user of this machine)."},
        {"404", "No such route, or the thing named does not exist."},
        {"413", "A body over 4 MiB."},
        {"415", "A Content-Type other than application/json."},
        {"500", "The operation failed."},
        {"503", "The store is busy or cannot be reached; retry after Retry-After seconds."},
    };
    json_t *out = json_object();
    for (size_t i = 0; i < MN_ARRAY_SIZE(rs); i++)
        json_object_set_new(out, rs[i].status,
                            json_pack("{s:s,s:o}", "description", rs[i].text, "content",
                                      json_body(ref("schemas", "Error"))));
    return out;
}

/* The routes that are not ops: the webhook, this document, /metrics, /healthz. */
static void add_other_paths(json_t *paths)
{
    json_t *hook_responses = json_pack(
        "{s:{s:s,s:o},s:{s:s},s:{s:s},s:o,s:o,s:o}", "200", "description",
        "A push: the answer of ingest_git ({event, ingest_git}); or a ping.", "content",
        json_body(json_pack("{s:s}", "type", "object")), "202", "description",
        "Another event: acknowledged, nothing done.", "400", "description",
        "No event header, or a payload that is not a JSON object.", "401", ref("responses", "401"),
        "403", ref("responses", "403"), "415", ref("responses", "415"));
    json_object_set_new(
        paths, "/v1/ingest/git",
        json_pack("{s:{s:s,s:s,s:s,s:[],s:{s:b,s:o},s:o}}", "post", "operationId",
                  "ingest_git_webhook", "summary",
                  "Push webhook of GitHub (X-Hub-Signature-256) or GitLab (X-Gitlab-Token).",
                  "description",
                  "Signed with serve.webhook_secret; a push runs ingest_git on the server's "
                  "repository. The body is the forge's push payload (application/json).",
                  "security", "requestBody", "required", 1, "content",
                  json_body(json_pack("{s:s}", "type", "object")), "responses", hook_responses));
    json_object_set_new(paths, "/v1/openapi.json",
                        json_pack("{s:{s:s,s:s,s:{s:{s:s,s:o}}}}", "get", "operationId", "openapi",
                                  "summary", "This document.", "responses", "200", "description",
                                  "OpenAPI 3.1", "content",
                                  json_body(json_pack("{s:s}", "type", "object"))));
    json_object_set_new(paths, "/metrics",
                        json_pack("{s:{s:s,s:s,s:{s:{s:s,s:{s:{s:{s:s}}}}}}}", "get", "operationId",
                                  "metrics", "summary",
                                  "Prometheus text exposition: requests, errors and latency per "
                                  "op and front end, store sizes, served items, feedback, "
                                  "captures.",
                                  "responses", "200", "description", "text format 0.0.4", "content",
                                  "text/plain", "schema", "type", "string"));
    json_object_set_new(paths, "/healthz",
                        json_pack("{s:{s:s,s:s,s:[],s:{s:{s:s}}}}", "get", "operationId", "healthz",
                                  "summary", "200 ok while the server runs.", "security",
                                  "responses", "200", "description", "ok"));
}

char *mn_http__openapi_document(size_t *len)
{
    size_t n;
    const mn_op *ops = mn_api_ops(&n);
    json_t *paths = json_object(), *schemas = json_object();
    char name[96];

    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "/v1/%s", ops[i].name);
        json_object_set_new(paths, name, op_post(&ops[i], ops[i].name));
        snprintf(name, sizeof(name), "%s.input", ops[i].name);
        json_object_set_new(schemas, name, mn_mcp_schema_public(mn_api_input_schema(&ops[i])));
        snprintf(name, sizeof(name), "%s.output", ops[i].name);
        const json_t *out = mn_api_output_schema(&ops[i]);
        json_object_set_new(schemas, name, out ? mn_mcp_schema_public(out) : json_object());
    }
    const mn_op *plan = mn_api_find("plan_files");
    if (plan)
        json_object_set_new(paths, "/v1/plan-context", op_post(plan, "plan_context"));
    add_other_paths(paths);
    json_object_set_new(schemas, "Error", error_schema());

    json_t *doc = json_pack(
        "{s:s,s:{s:s,s:s,s:s},s:o,s:{s:o,s:o,s:{s:{s:s,s:s,s:s}}},s:[{s:[]}]}", "openapi", "3.1.0",
        "info", "title", "mnemo", "version", MNEMO_VERSION, "description",
        "The REST API of mnemo serve: POST /v1/<operation> with the operation's input as JSON, "
        "the operation's output as JSON (docs/http.md).",
        "paths", paths, "components", "schemas", schemas, "responses", error_responses(),
        "securitySchemes", "bearer", "type", "http", "scheme", "bearer", "description",
        "Authorization: Bearer <token> (mnemo token create)", "security", "bearer");
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(doc);
    *len = text ? strlen(text) : 0;
    return text;
}
